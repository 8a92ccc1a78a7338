//! The one way cancelcheck writes a file a user keeps (a trace, a probe trace, an exported
//! document, a report): whole or not at all, and never over a different file unless asked
//! to ([`replace`]).

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// What to do when the file's name is taken by a file with other bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Taken {
    /// Write to the first free sibling name instead: `NAME-2.EXT`, `NAME-3.EXT`, ...
    Sibling,
    /// Write nothing: an `AlreadyExists` error.
    Refuse,
}

/// Where a file was written, and whether an identical one was already there.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The file.
    pub path: PathBuf,
    /// An identical file was already there (nothing written).
    pub existed: bool,
}

/// Writes `text` to `path` (its directory made if missing) through a synced temporary file
/// and a no-clobber link, so a reader never sees half a file and no existing file is ever
/// replaced: a file already holding exactly `text` is left as it is (`existed`); one holding
/// other bytes is handled as `taken` says. Whatever fails (a full disk, the file-size limit),
/// the temporary file is removed: a failed write leaves nothing behind.
pub fn no_clobber(path: &Path, text: &str, taken: Taken) -> std::io::Result<Saved> {
    no_clobber_streamed(path, taken, |w| w.write_all(text.as_bytes()))
}

/// [`no_clobber`] of what `fill` writes, streamed (a file larger than memory can be written
/// this way); an error of `fill` is returned as it is, and nothing is left behind.
pub fn no_clobber_streamed<E: From<std::io::Error>>(
    path: &Path,
    taken: Taken,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<Saved, E> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = write_synced(&tmp, fill).and_then(|()| Ok(link_free(&tmp, path, taken)?));
    let _ = std::fs::remove_file(&tmp);
    result
}

/// Writes `bytes` to `path`, replacing what was there (a file the user asked to be
/// rewritten, such as a baseline): a reader sees the old file or the whole new one, never part
/// of it, and a failed write leaves `path` as it was and no temporary file behind.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result =
        write_synced(&tmp, |w| w.write_all(bytes)).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes what `fill` writes to a new file at `tmp` and syncs it.
fn write_synced<E: From<std::io::Error>>(
    tmp: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<(), E> {
    let mut w = BufWriter::new(File::create(tmp)?);
    fill(&mut w)?;
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

/// Links `tmp` to `path`, or to its first free sibling name, or finds one of them already
/// holding the same bytes.
fn link_free(tmp: &Path, path: &Path, taken: Taken) -> std::io::Result<Saved> {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    for n in 1u32.. {
        let at = if n == 1 {
            path.to_path_buf()
        } else {
            path.with_file_name(format!("{stem}-{n}{ext}"))
        };
        match std::fs::hard_link(tmp, &at) {
            Ok(()) => {
                return Ok(Saved {
                    path: at,
                    existed: false,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if same_bytes(&at, tmp) {
                    return Ok(Saved {
                        path: at,
                        existed: true,
                    });
                }
                if taken == Taken::Refuse {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free file name"))
}

/// Whether the files at `a` and `b` hold the same bytes (read a block at a time).
fn same_bytes(a: &Path, b: &Path) -> bool {
    let (Ok(fa), Ok(fb)) = (File::open(a), File::open(b)) else {
        return false;
    };
    let (mut ra, mut rb) = (BufReader::new(fa), BufReader::new(fb));
    loop {
        let (Ok(x), Ok(y)) = (ra.fill_buf(), rb.fill_buf()) else {
            return false;
        };
        if x.is_empty() || y.is_empty() {
            return x.is_empty() && y.is_empty();
        }
        let n = x.len().min(y.len());
        if x[..n] != y[..n] {
            return false;
        }
        ra.consume(n);
        rb.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_name_is_never_overwritten() {
        let dir = std::env::temp_dir().join(format!("cancelcheck-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("a.json");
        let first = no_clobber(&path, "one", Taken::Sibling).unwrap();
        assert_eq!((first.path.clone(), first.existed), (path.clone(), false));
        assert!(no_clobber(&path, "one", Taken::Refuse).unwrap().existed);
        let second = no_clobber(&path, "two", Taken::Sibling).unwrap();
        assert_eq!(second.path, dir.join("a-2.json"));
        let refused = no_clobber(&path, "three", Taken::Refuse).unwrap_err();
        assert_eq!(refused.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one");
        assert_eq!(
            std::fs::read_to_string(dir.join("a-2.json")).unwrap(),
            "two"
        );
        // Nothing else is left behind: no temporary file.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
