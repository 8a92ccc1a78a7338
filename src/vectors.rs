//! `cancelcheck vectors`: the clause vectors of `properties/vectors/`, exported for people
//! (text) and for implementations in other languages (JSON).
//!
//! Every JSON document has one shape, whether printed (`--json`) or written one file per
//! dialect (`--out DIR`):
//!
//! ```text
//! {"format": "cancelcheck-vectors", "version": 1,
//!  "dialects": [{"dialect": "acp", "title": ..., "vectors": [
//!    {"name", "invariant", "statement", "strength": "MUST" | "SHOULD" | "NOTE" | "COVERAGE",
//!     "clause": {"file", "quote"}, "note": null | text,
//!     "expect": "breaks" | "honours" | "reaches" | "misses",
//!     "raised_at": index | null, "link": "reordering" | "fifo", "also_breaks": [names],
//!     "description", "events": [{"event": notation, "message"?: wire JSON}]}]}]}
//! ```
//!
//! The clause and the strength come from the catalog, never from the vector file, so they
//! cannot drift. `message` is present for every event that carries a message (sent,
//! received, lost, duplicated): the message as the dialect puts it on the wire.

use crate::wire::message_json;
use cancelcheck_model::{Dialect, Input, Message, Output, Party};
use cancelcheck_properties::vector::{VectorError, VectorFile};
use cancelcheck_properties::{Event, Vector};
use serde_json::{Value, json};
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// The `format` field of every exported document.
pub const FORMAT: &str = "cancelcheck-vectors";
/// The `version` field: raised when a field changes meaning or goes away.
pub const VERSION: u32 = 1;

/// The shipped vector files, all or one dialect's, in `Dialect::ALL` order. An error names
/// the file, the vector and what was expected.
pub fn load(dialect: Option<Dialect>) -> Result<Vec<VectorFile>, VectorError> {
    let mut files = VectorFile::shipped()?;
    files.retain(|f| dialect.is_none_or(|d| d == f.dialect));
    Ok(files)
}

fn message_of(ev: &Event) -> Option<(Party, Message)> {
    match *ev {
        Event::Input {
            party,
            input: Input::Receive(m),
        } => Some((party.peer(), m)),
        Event::Output {
            party,
            output: Output::Send(m),
        }
        | Event::Lost {
            from: party,
            msg: m,
        }
        | Event::Duplicated {
            from: party,
            msg: m,
        } => Some((party, m)),
        _ => None,
    }
}

fn vector_json(dialect: Dialect, v: &Vector) -> Value {
    let info = v.invariant.info();
    let app = v.application(dialect);
    let events: Vec<Value> = v
        .events
        .iter()
        .zip(&v.lines)
        .map(|(ev, line)| {
            let mut o = json!({"event": cancelcheck_properties::notation::format(ev)});
            debug_assert_eq!(
                cancelcheck_properties::notation::parse(line).ok(),
                Some(*ev)
            );
            if let Some((from, m)) = message_of(ev) {
                o["message"] = message_json(dialect, from, &m);
            }
            o
        })
        .collect();
    let also: Vec<&str> = v.also_breaks.iter().map(|i| i.name()).collect();
    json!({
        "name": v.name,
        "invariant": info.name,
        "statement": info.statement,
        "strength": v.strength.as_str(),
        "clause": app.map(|a| json!({
            "file": a.clause.file,
            "quote": a.clause.clause,
            "url": a.source().map(|s| s.url),
            "section": a.source().map(|s| s.section),
        })),
        "note": app.and_then(|a| a.note),
        "expect": v.expect.as_str(),
        "raised_at": v.raised_at,
        "link": v.link.as_str(),
        "also_breaks": also,
        "description": v.description,
        "events": events,
    })
}

fn dialect_json(f: &VectorFile) -> Value {
    let vectors: Vec<Value> = f
        .vectors
        .iter()
        .map(|v| vector_json(f.dialect, v))
        .collect();
    json!({
        "dialect": f.dialect.id(),
        "title": f.dialect.rules().title,
        "vectors": vectors,
    })
}

/// One document holding `files` (see the module documentation for its schema).
pub fn document(files: &[VectorFile]) -> Value {
    let dialects: Vec<Value> = files.iter().map(dialect_json).collect();
    json!({"format": FORMAT, "version": VERSION, "dialects": dialects})
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// The vectors as a readable listing: per dialect, per vector its invariant, strength,
/// clause, claim and numbered events.
pub fn text(files: &[VectorFile]) -> String {
    let mut out = String::new();
    for f in files {
        let _ = writeln!(
            out,
            "{}  ({}): {} vectors",
            f.dialect.id(),
            f.dialect.rules().title,
            f.vectors.len()
        );
        for v in &f.vectors {
            let claim = match v.raised_at {
                Some(i) => format!("breaks at event {i}"),
                None => v.expect.as_str().to_string(),
            };
            let link = match v.link {
                cancelcheck_properties::Link::Fifo => ", fifo link",
                cancelcheck_properties::Link::Reordering => "",
            };
            let _ = writeln!(
                out,
                "\n  {}  [{} {claim}{link}]",
                v.name,
                v.strength.as_str()
            );
            if let Some(a) = v.application(f.dialect) {
                let _ = writeln!(out, "    {}", a.cite());
            }
            let _ = writeln!(out, "    {}", v.description);
            for (i, ev) in v.events.iter().enumerate() {
                let mark = if v.raised_at == Some(i as u64) {
                    "!"
                } else {
                    " "
                };
                let _ = writeln!(
                    out,
                    "    {mark}{i:>3}  {}",
                    cancelcheck_properties::notation::Notation(ev)
                );
            }
        }
        out.push('\n');
    }
    out
}

/// Why `--out` wrote nothing, or stopped: the path at fault and what went wrong.
#[derive(Debug)]
pub struct WriteError {
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong, and the fix where there is one.
    pub reason: String,
    /// Writing or reading failed (a full disk, no permission), rather than a file that
    /// differs being refused.
    pub io: bool,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for WriteError {}

/// What `--out` did with one file.
#[derive(Debug, PartialEq, Eq)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// Whether an identical file was already there (and was left alone).
    pub unchanged: bool,
}

/// Writes one document per dialect, `DIR/<dialect>.json`, each through a temporary file
/// linked into place, so a reader never sees half a file. Guarantees: an existing file with
/// the same bytes is left alone; an existing file that differs is never overwritten: before
/// anything is written, every target is checked and the first that differs is named in the
/// error.
pub fn write_dir(dir: &Path, files: &[VectorFile]) -> Result<Vec<Written>, WriteError> {
    let io = |path: &Path, e: std::io::Error| WriteError {
        path: path.to_path_buf(),
        reason: e.to_string(),
        io: true,
    };
    let docs: Vec<(PathBuf, String)> = files
        .iter()
        .map(|f| {
            (
                dir.join(format!("{}.json", f.dialect.id())),
                pretty(&document(std::slice::from_ref(f))),
            )
        })
        .collect();
    // Whether a file at `path` differs from `text` (`None`: there is none). Only a regular
    // file of `text`'s length is read: a FIFO or a device there may never end, or never start.
    let differs = |path: &Path, text: &str| -> Result<Option<bool>, WriteError> {
        use std::io::Read;
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(path, e)),
        };
        if !meta.is_file() {
            return Err(WriteError {
                path: path.to_path_buf(),
                reason: "exists and is not a regular file (a directory, a pipe or a device); remove it or choose another --out directory".into(),
                io: false,
            });
        }
        if meta.len() != text.len() as u64 {
            return Ok(Some(true));
        }
        let mut old = Vec::with_capacity(text.len());
        crate::trace_file::open_regular(path)
            .map_err(|e| WriteError {
                path: path.to_path_buf(),
                reason: e.expected,
                io: true,
            })?
            .take(text.len() as u64 + 1)
            .read_to_end(&mut old)
            .map_err(|e| io(path, e))?;
        Ok(Some(old != text.as_bytes()))
    };
    let refuse = |path: &Path| WriteError {
        path: path.to_path_buf(),
        reason: "exists and differs; remove it or choose another --out directory".into(),
        io: false,
    };
    for (path, text) in &docs {
        if differs(path, text)? == Some(true) {
            return Err(refuse(path));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut written = Vec::with_capacity(docs.len());
    for (path, text) in &docs {
        if differs(path, text)? == Some(false) {
            written.push(Written {
                path: path.clone(),
                unchanged: true,
            });
            continue;
        }
        let result = match crate::write::no_clobber(path, text, crate::write::Taken::Refuse) {
            Ok(saved) => Ok(saved.existed),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(refuse(path)),
            Err(e) => Err(io(path, e)),
        };
        written.push(Written {
            path: path.clone(),
            unchanged: result?,
        });
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_event_carries_its_wire_json() {
        let files = load(None).unwrap();
        let doc = document(&files);
        let mut with_message = 0;
        for d in doc["dialects"].as_array().unwrap() {
            for v in d["vectors"].as_array().unwrap() {
                assert!(v["clause"]["quote"].is_string(), "{}", v["name"]);
                for e in v["events"].as_array().unwrap() {
                    let line = e["event"].as_str().unwrap();
                    let carries = [" sends ", " receives ", " loses ", " duplicates "]
                        .iter()
                        .any(|w| line.contains(w));
                    assert_eq!(e.get("message").is_some(), carries, "{line}");
                    with_message += usize::from(carries);
                }
            }
        }
        assert!(with_message > 0);
    }

    #[test]
    fn one_dialect_only_when_asked() {
        let files = load(Some(Dialect::Lsp)).unwrap();
        assert_eq!(files.len(), 1);
        assert!(text(&files).starts_with("lsp  ("));
    }
}
