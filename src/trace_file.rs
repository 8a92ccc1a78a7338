//! Trace files: versioned JSON, written atomically and never overwritten; read back with
//! errors that name the file, the field and what was expected.

use crate::wire::{event_json, verdict_json};
use cancelcheck_sim::scenario::{Scenario, SwarmMix};
use cancelcheck_sim::trace::TRACE_VERSION;
use cancelcheck_sim::{Origin, Trace};
use serde::Deserialize;
use serde_json::{Value, json};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `format` field every trace file carries.
pub const FORMAT: &str = "cancelcheck-trace";

/// A bad input file: which file, which field, what was expected. Never a panic.
#[derive(Debug)]
pub struct InputError {
    /// The file.
    pub file: PathBuf,
    /// The field's dotted path (empty when the file as a whole is at fault).
    pub field: String,
    /// What was expected, or what went wrong.
    pub expected: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.expected)
        } else {
            write!(
                f,
                "{}: field `{}`: {}",
                self.file.display(),
                self.field,
                self.expected
            )
        }
    }
}

impl std::error::Error for InputError {}

/// A trace as JSON, events rendered for its dialect.
pub fn trace_json(t: &Trace) -> Value {
    let d = t.scenario.dialect;
    let events: Vec<Value> = t
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| event_json(d, i, e))
        .collect();
    let origin = match &t.origin {
        Origin::Seed(seed) => json!({"kind": "seed", "seed": seed}),
        Origin::Schedule(s) => json!({"kind": "schedule", "schedule": s}),
    };
    json!({
        "format": FORMAT,
        "version": t.version,
        "dialect": d.id(),
        "behavior": t.scenario.behavior.name(),
        "origin": origin,
        "config": t.scenario,
        "swarm": t.mix,
        "events": events,
        "verdict": verdict_json(d, &t.verdict),
    })
}

/// The exact bytes of a trace file: pretty JSON and a final newline.
pub fn trace_text(t: &Trace) -> String {
    let mut s = serde_json::to_string_pretty(&trace_json(t)).unwrap_or_default();
    s.push('\n');
    s
}

/// A trace file as read: what is needed to re-run it, and what it recorded.
#[derive(Debug, Clone)]
pub struct TraceDoc {
    /// The scenario.
    pub scenario: Scenario,
    /// How to reproduce it.
    pub origin: Origin,
    /// The recorded swarm mix.
    pub swarm: Option<SwarmMix>,
    /// The recorded events, as JSON.
    pub events: Vec<Value>,
    /// The recorded verdict, as JSON.
    pub verdict: Value,
    /// The whole document.
    pub raw: Value,
    /// The file's bytes.
    pub text: String,
}

#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

#[derive(Deserialize)]
struct Body {
    config: Scenario,
    origin: Value,
    #[serde(default)]
    swarm: Option<SwarmMix>,
    events: Vec<Value>,
    verdict: Value,
}

/// Reads `origin`: `{"kind": "seed", "seed": N}` or `{"kind": "schedule", "schedule": [..]}`,
/// naming the exact field at fault.
fn origin_of(file: &Path, v: Value) -> Result<Origin, InputError> {
    let field = |name: &str, expected: &str| InputError {
        file: file.to_path_buf(),
        field: name.to_string(),
        expected: expected.to_string(),
    };
    let mut obj = match v {
        Value::Object(o) => o,
        _ => return Err(field("origin", "expected an object with `kind`")),
    };
    match obj.get("kind").and_then(Value::as_str) {
        Some("seed") => {
            let seed = obj.remove("seed").ok_or_else(|| {
                field(
                    "origin.seed",
                    "missing: expected the seed, an unsigned integer",
                )
            })?;
            Ok(Origin::Seed(typed(file, "origin.seed", seed)?))
        }
        Some("schedule") => {
            let s = obj.remove("schedule").ok_or_else(|| {
                field(
                    "origin.schedule",
                    "missing: expected an array of step indices",
                )
            })?;
            Ok(Origin::Schedule(typed(file, "origin.schedule", s)?))
        }
        _ => Err(field("origin.kind", "expected \"seed\" or \"schedule\"")),
    }
}

/// The document must be a JSON object: serde would otherwise read a struct from an array of
/// its fields in order, which no person writes on purpose.
fn require_object(file: &Path, v: &Value) -> Result<(), InputError> {
    if v.is_object() {
        return Ok(());
    }
    let found = match v {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        _ => "null",
    };
    Err(InputError {
        file: file.to_path_buf(),
        field: String::new(),
        expected: format!("expected a JSON object at the top level, found {found}"),
    })
}

/// Deserializes `value` as `T`, naming the failing field's path.
pub fn typed<T: serde::de::DeserializeOwned>(
    file: &Path,
    prefix: &str,
    value: Value,
) -> Result<T, InputError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = match (prefix.is_empty(), path.as_str()) {
            (true, p) => p.to_string(),
            (false, ".") => prefix.to_string(),
            (false, p) => format!("{prefix}.{p}"),
        };
        InputError {
            file: file.to_path_buf(),
            field: if field == "." { String::new() } else { field },
            expected: e.into_inner().to_string(),
        }
    })
}

/// Parses JSON text, naming the line and column of a syntax error.
pub fn parse_json(file: &Path, text: &str) -> Result<Value, InputError> {
    serde_json::from_str(text).map_err(|e| InputError {
        file: file.to_path_buf(),
        field: String::new(),
        expected: format!(
            "not valid JSON at line {}, column {}: {e}",
            e.line(),
            e.column()
        ),
    })
}

/// Checks a scenario's values, naming the field under `prefix`.
pub fn validated(file: &Path, prefix: &str, s: Scenario) -> Result<Scenario, InputError> {
    s.validate().map_err(|e| InputError {
        file: file.to_path_buf(),
        field: if prefix.is_empty() {
            e.field
        } else {
            format!("{prefix}.{}", e.field)
        },
        expected: format!("expected {}", e.expected),
    })?;
    Ok(s)
}

/// Reads a scenario file (the shape of a trace's `config`).
pub fn read_scenario(file: &Path) -> Result<Scenario, InputError> {
    let text = read_text(file)?;
    let value = parse_json(file, &text)?;
    require_object(file, &value)?;
    let s: Scenario = typed(file, "", value)?;
    validated(file, "", s)
}

fn read_text(file: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(file).map_err(|e| InputError {
        file: file.to_path_buf(),
        field: String::new(),
        expected: format!("cannot be read: {e}"),
    })
}

/// Reads a trace file.
pub fn read_trace(file: &Path) -> Result<TraceDoc, InputError> {
    let text = read_text(file)?;
    let raw = parse_json(file, &text)?;
    require_object(file, &raw)?;
    let header: Header = typed(file, "", raw.clone())?;
    if header.format != FORMAT {
        return Err(InputError {
            file: file.to_path_buf(),
            field: "format".into(),
            expected: format!("expected \"{FORMAT}\", found {:?}", header.format),
        });
    }
    if header.version != TRACE_VERSION {
        return Err(InputError {
            file: file.to_path_buf(),
            field: "version".into(),
            expected: format!(
                "expected {TRACE_VERSION} (this build reads version {TRACE_VERSION} traces), found {}",
                header.version
            ),
        });
    }
    let body: Body = typed(file, "", raw.clone())?;
    let scenario = validated(file, "config", body.config)?;
    let origin = origin_of(file, body.origin)?;
    Ok(TraceDoc {
        scenario,
        origin,
        swarm: body.swarm,
        events: body.events,
        verdict: body.verdict,
        raw,
        text,
    })
}

/// Where a trace was saved, and whether it was already there.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The file.
    pub path: PathBuf,
    /// An identical file was already there (nothing written).
    pub existed: bool,
}

/// The default file name of a trace: dialect, behaviour, and the seed or the explored bounds.
pub fn file_name(t: &Trace) -> String {
    let (d, b) = (t.scenario.dialect.id(), t.scenario.behavior.name());
    match &t.origin {
        Origin::Seed(seed) => format!("{d}--{b}--seed-{seed}.json"),
        Origin::Schedule(s) => format!(
            "{d}--{b}--explore-n{}-{}-{}steps.json",
            t.scenario.workload.requests,
            t.scenario.link.order.name(),
            s.len().saturating_sub(1)
        ),
    }
}

/// Writes `t` into `dir` atomically (a temporary file, then a no-clobber link). An existing
/// file with the same name is never overwritten: if its bytes are the same, nothing is
/// written; otherwise the trace goes to the first free `name-2.json`, `name-3.json`, ...
pub fn save(dir: &Path, t: &Trace) -> std::io::Result<Saved> {
    std::fs::create_dir_all(dir)?;
    let text = trace_text(t);
    let name = file_name(t);
    let stem = name.trim_end_matches(".json").to_string();
    let tmp = dir.join(format!(".{stem}.{}.tmp", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    let result = (|| {
        for n in 1.. {
            let path = if n == 1 {
                dir.join(&name)
            } else {
                dir.join(format!("{stem}-{n}.json"))
            };
            match std::fs::hard_link(&tmp, &path) {
                Ok(()) => {
                    return Ok(Saved {
                        path,
                        existed: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
                        return Ok(Saved {
                            path,
                            existed: true,
                        });
                    }
                }
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop above returns")
    })();
    let _ = std::fs::remove_file(&tmp);
    result
}

/// The result of re-running a trace file.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The fresh run.
    pub fresh: Trace,
    /// The fresh run as JSON.
    pub fresh_json: Value,
    /// Index of the first event that differs, if any (the length of the shorter list when one
    /// is a prefix of the other).
    pub diverged_at: Option<usize>,
    /// Whether the recorded verdict matches.
    pub verdict_matches: bool,
    /// Whether the re-run's origin is the recorded one (an explorer schedule with entries that
    /// no longer apply comes back shortened).
    pub origin_matches: bool,
    /// Whether the file's bytes are exactly what this build writes for the fresh run.
    pub bytes_identical: bool,
}

impl Replay {
    /// Events and verdict both reproduced.
    pub fn reproduced(&self) -> bool {
        self.diverged_at.is_none() && self.verdict_matches && self.origin_matches
    }
}

/// Re-runs a trace and compares it, event by event, with what it recorded.
pub fn replay(doc: &TraceDoc) -> Replay {
    let trace = Trace {
        version: TRACE_VERSION,
        scenario: doc.scenario.clone(),
        origin: doc.origin.clone(),
        mix: doc.swarm,
        events: Vec::new(),
        verdict: Default::default(),
    };
    let fresh = trace.rerun();
    let fresh_json = trace_json(&fresh);
    let fresh_events = fresh_json["events"].as_array().cloned().unwrap_or_default();
    let diverged_at = (0..fresh_events.len().max(doc.events.len()))
        .find(|&i| fresh_events.get(i) != doc.events.get(i));
    let verdict_matches = fresh_json["verdict"] == doc.verdict;
    let origin_matches = fresh.origin == doc.origin;
    let bytes_identical = trace_text(&fresh) == doc.text;
    Replay {
        fresh,
        fresh_json,
        diverged_at,
        verdict_matches,
        origin_matches,
        bytes_identical,
    }
}
