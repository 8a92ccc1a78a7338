//! The one way cancelcheck writes a file a user keeps (a trace, a probe trace, an exported
//! document): whole or not at all, never over a different file.

use std::io::Write;
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
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result =
        write_synced(&tmp, text.as_bytes()).and_then(|()| link_free(&tmp, path, text, taken));
    let _ = std::fs::remove_file(&tmp);
    result
}

/// Writes `bytes` to a new file at `tmp` and syncs it.
fn write_synced(tmp: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::File::create(tmp)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Links `tmp` (holding `text`) to `path`, or to its first free sibling name, or finds one of
/// them already holding the same bytes.
fn link_free(tmp: &Path, path: &Path, text: &str, taken: Taken) -> std::io::Result<Saved> {
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
                if same_bytes(&at, text) {
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

/// Whether the file at `path` holds exactly `text` (read no further than `text`'s length).
fn same_bytes(path: &Path, text: &str) -> bool {
    use std::io::Read;
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut old = Vec::with_capacity(text.len() + 1);
    f.take(text.len() as u64 + 1).read_to_end(&mut old).is_ok() && old == text.as_bytes()
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
