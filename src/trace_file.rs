//! Trace files: versioned JSON, written atomically and never overwritten; read back with
//! errors that name the file, the field and what was expected.

use crate::trace_json::{event_json, verdict_json};
use crate::wire::Sessions;
use crate::write::Taken;
use cancelcheck_sim::scenario::{Scenario, SwarmMix};
use cancelcheck_sim::trace::TRACE_VERSION;
use cancelcheck_sim::{Origin, Trace};
use serde::Deserialize;
use serde_json::{Value, json};
use std::fmt;
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
                clip(&self.field),
                self.expected
            )
        }
    }
}

impl std::error::Error for InputError {}

/// The most characters of an offending value a message quotes.
pub const QUOTE_LIMIT: usize = 200;

/// `s` cut to [`QUOTE_LIMIT`] characters, saying how much was left out.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(QUOTE_LIMIT) {
        None => s.to_string(),
        Some((at, _)) => format!("{}... ({} more bytes)", &s[..at], s.len() - at),
    }
}

/// A trace as JSON, events rendered for its dialect.
pub fn trace_json(t: &Trace) -> Value {
    let d = t.scenario.dialect;
    let mut sessions = Sessions::default();
    let events: Vec<Value> = t
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| event_json(d, i, e, &mut sessions))
        .collect();
    let (status, vacuous) = t.status();
    let vacuous: Vec<String> = vacuous.into_iter().map(|v| v.why).collect();
    let origin = match &t.origin {
        Origin::Seed(seed) => json!({"kind": "seed", "seed": seed}),
        Origin::Schedule(s) => json!({"kind": "schedule", "schedule": s}),
    };
    json!({
        "format": FORMAT,
        "version": t.version,
        "dialect": d.id(),
        "behavior": t.scenario.behaviour.name(),
        "origin": origin,
        "config": t.scenario,
        "swarm": t.mix,
        "events": events,
        "verdict": verdict_json(d, &t.verdict, status, &vacuous),
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
    /// The whole document but its events (which are in `events`, not copied).
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
    serde_path_to_error::deserialize(value).map_err(|e| path_error(file, prefix, e))
}

/// Deserializes `value` as `T` without taking or copying it, naming the failing field's path.
pub fn typed_ref<'v, T: Deserialize<'v>>(
    file: &Path,
    prefix: &str,
    value: &'v Value,
) -> Result<T, InputError> {
    serde_path_to_error::deserialize(value).map_err(|e| path_error(file, prefix, e))
}

fn path_error(
    file: &Path,
    prefix: &str,
    e: serde_path_to_error::Error<serde_json::Error>,
) -> InputError {
    let field = join_path(prefix, &e.path().to_string());
    let inner = e.into_inner().to_string();
    let expected = unknown_name(&field, &inner).unwrap_or_else(|| describe(&inner));
    InputError {
        file: file.to_path_buf(),
        field,
        expected,
    }
}

/// A dialect or behavior name that does not exist (at a field named `dialect` or `behavior`),
/// told as every command tells it (see [`crate::names`]); `None` for any other message.
fn unknown_name(field: &str, msg: &str) -> Option<String> {
    let kind = ["dialect", "behavior"]
        .into_iter()
        .find(|k| field == *k || field.ends_with(&format!(".{k}")))?;
    let bad: String = if let Some(rest) = msg.strip_prefix(&format!("unknown {kind} ")) {
        serde_json::from_str(rest.split("; expected").next()?).ok()?
    } else {
        let rest = msg.strip_prefix("unknown variant `")?;
        rest[..rest.find("`, expected")?].to_string()
    };
    let names = if kind == "dialect" {
        crate::names::dialect_names()
    } else {
        crate::names::behaviour_names()
    };
    Some(crate::names::unknown(kind, &bad, &names))
}

/// A field path in the one notation every message uses: keys joined by dots, array indices
/// in brackets (`config.workload.requests`, `origin.schedule[3]`, `events[2].message`).
pub fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path) {
        (_, ".") => prefix.to_string(),
        (true, p) => p.to_string(),
        (false, p) if p.starts_with('[') => format!("{prefix}{p}"),
        (false, p) => format!("{prefix}.{p}"),
    }
}

/// A deserializer's message made plain: an integer too large for 64 bits (which JSON parsing
/// turns into a float) is called an integer, and a quoted value is cut to a readable length.
fn describe(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("invalid type: floating point `")
        && let Some((num, expected)) = rest.split_once("`, expected ")
        && let Ok(x) = num.parse::<f64>()
        && x.fract() == 0.0
        && x.abs() >= 9.2e18
        && (expected.starts_with('u') || expected.starts_with('i'))
    {
        let (side, bound) = match (expected.starts_with('u'), x < 0.0) {
            (true, true) => ("below", "0".to_string()),
            (true, false) => ("above", u64::MAX.to_string()),
            (false, true) => ("below", i64::MIN.to_string()),
            (false, false) => ("above", i64::MAX.to_string()),
        };
        return format!(
            "invalid value: an integer {side} {bound}, too large for 64 bits, expected {}",
            clip(expected)
        );
    }
    clip(msg)
}

/// A JSON value read with every object's keys checked: a key that appears twice in one
/// object is refused (otherwise the last would silently win).
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = StrictValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<StrictValue, E> {
        Ok(StrictValue(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(v)))
    }
    fn visit_unit<E>(self) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Null))
    }
    fn visit_none<E>(self) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Null))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<StrictValue, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(StrictValue(Value::Array(items)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<StrictValue, A::Error> {
        let mut obj = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if obj.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate key `{}`: a key may appear once in an object (remove one)",
                    clip(&key)
                )));
            }
            let StrictValue(v) = map.next_value()?;
            obj.insert(key, v);
        }
        Ok(StrictValue(Value::Object(obj)))
    }
}

/// Parses JSON text, naming the line, column and byte offset of a syntax error, and refusing
/// an object that repeats a key (naming its path).
pub fn parse_json(file: &Path, text: &str) -> Result<Value, InputError> {
    let syntax = |e: serde_json::Error| {
        let (line, column) = (e.line(), e.column());
        InputError {
            file: file.to_path_buf(),
            field: String::new(),
            expected: format!(
                "not valid JSON at line {line}, column {column} (byte offset {}): {}",
                byte_offset(text, line, column),
                clip(&e.to_string())
            ),
        }
    };
    let mut de = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, StrictValue>(&mut de) {
        Ok(StrictValue(v)) => {
            de.end().map_err(syntax)?;
            Ok(v)
        }
        Err(e) => {
            let field = join_path("", &e.path().to_string());
            let inner = e.into_inner();
            if inner.is_data() {
                Err(InputError {
                    file: file.to_path_buf(),
                    field: if field == "." { String::new() } else { field },
                    expected: clip(&inner.to_string()),
                })
            } else {
                Err(syntax(inner))
            }
        }
    }
}

/// The byte offset of 1-based `line` and `column` in `text` (as serde_json counts them).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}

/// Checks a scenario's values, naming the field under `prefix`.
pub fn validated(file: &Path, prefix: &str, s: Scenario) -> Result<Scenario, InputError> {
    s.validate().map_err(|e| InputError {
        file: file.to_path_buf(),
        field: join_path(prefix, &e.field),
        expected: format!("expected {}", e.expected),
    })?;
    Ok(s)
}

/// The largest input file (scenario or trace) read unless a command's `--max-input-bytes`
/// says otherwise: 16 MiB, some thousand times the largest trace of the corpus. Reading
/// holds about ten times a file's size in memory at most.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 16 << 20;

/// Reads a scenario file (the shape of a trace's `config`), at most
/// [`DEFAULT_MAX_INPUT_BYTES`] long.
pub fn read_scenario(file: &Path) -> Result<Scenario, InputError> {
    read_scenario_within(file, DEFAULT_MAX_INPUT_BYTES)
}

/// Reads a scenario file of at most `max_bytes` bytes.
pub fn read_scenario_within(file: &Path, max_bytes: u64) -> Result<Scenario, InputError> {
    let text = read_text(file, max_bytes)?;
    let value = parse_json(file, &text)?;
    require_object(file, &value)?;
    let s: Scenario = typed(file, "", value)?;
    validated(file, "", s)
}

/// What kind of file `t` is, for a message.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Opens `file` for reading if it is a regular file. Anything else (a FIFO, a device such as
/// `/dev/zero`, a directory, a socket) is refused before it is opened, and again if it became
/// one meanwhile: a pipe may never end, or never start.
pub fn open_regular(file: &Path) -> Result<std::fs::File, InputError> {
    let fail = |expected: String| InputError {
        file: file.to_path_buf(),
        field: String::new(),
        expected,
    };
    let not_regular = |t: std::fs::FileType| {
        fail(format!(
            "is {}: only regular files are read (a pipe or device may never end); save its contents to a file and pass that",
            kind_of(t)
        ))
    };
    let meta = std::fs::metadata(file).map_err(|e| fail(format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Should the file have become a FIFO since, opening it does not wait for a writer.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let f = options
        .open(file)
        .map_err(|e| fail(format!("cannot be read: {e}")))?;
    let meta = f
        .metadata()
        .map_err(|e| fail(format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    Ok(f)
}

/// Reads a whole regular file of at most `max_bytes` bytes as UTF-8. Anything else (a FIFO,
/// a device such as `/dev/zero`, a directory) is refused before it is opened: a pipe may
/// never end, or never start.
pub fn read_text(file: &Path, max_bytes: u64) -> Result<String, InputError> {
    read_text_within(file, max_bytes, "raise it with --max-input-bytes")
}

/// [`read_text`], saying `fix` of a file over `max_bytes`.
pub fn read_text_within(file: &Path, max_bytes: u64, fix: &str) -> Result<String, InputError> {
    use std::io::Read;
    let fail = |expected: String| InputError {
        file: file.to_path_buf(),
        field: String::new(),
        expected,
    };
    let too_big = |len: u64| {
        fail(format!(
            "is {len} bytes or more, over the input limit of {max_bytes} bytes; {fix}"
        ))
    };
    let f = open_regular(file)?;
    let meta = f
        .metadata()
        .map_err(|e| fail(format!("cannot be read: {e}")))?;
    if meta.len() > max_bytes {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max_bytes) as usize);
    f.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("cannot be read: {e}")))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text: invalid byte at byte offset {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The top-level fields of a trace file.
const TRACE_FIELDS: [&str; 9] = [
    "format", "version", "dialect", "behavior", "origin", "config", "swarm", "events", "verdict",
];

/// Reads a trace file, at most [`DEFAULT_MAX_INPUT_BYTES`] long.
pub fn read_trace(file: &Path) -> Result<TraceDoc, InputError> {
    read_trace_within(file, DEFAULT_MAX_INPUT_BYTES)
}

/// Reads a trace file of at most `max_bytes` bytes. Every top-level field must be one a
/// trace has; `dialect` and `behavior` must be the config's.
pub fn read_trace_within(file: &Path, max_bytes: u64) -> Result<TraceDoc, InputError> {
    let field_err = |field: &str, expected: String| InputError {
        file: file.to_path_buf(),
        field: field.to_string(),
        expected,
    };
    let text = read_text(file, max_bytes)?;
    let mut raw = parse_json(file, &text)?;
    require_object(file, &raw)?;
    if let Some(obj) = raw.as_object()
        && let Some(k) = obj.keys().find(|k| !TRACE_FIELDS.contains(&k.as_str()))
    {
        return Err(field_err(
            &clip(k),
            format!(
                "unknown field `{}`, expected one of {}",
                clip(k),
                TRACE_FIELDS.map(|f| format!("`{f}`")).join(", ")
            ),
        ));
    }
    let header: Header = typed_ref(file, "", &raw)?;
    if header.format != FORMAT {
        return Err(field_err(
            "format",
            format!("expected \"{FORMAT}\", found {:?}", clip(&header.format)),
        ));
    }
    if header.version != TRACE_VERSION {
        return Err(field_err(
            "version",
            format!(
                "expected {TRACE_VERSION} (this build reads version {TRACE_VERSION} traces), found {}",
                header.version
            ),
        ));
    }
    // The events are taken out of the document rather than copied.
    let events = match raw.as_object_mut().and_then(|o| o.shift_remove("events")) {
        Some(Value::Array(events)) => events,
        Some(other) => {
            return Err(field_err(
                "events",
                format!(
                    "invalid type: {}, expected a sequence of events",
                    clip(&other.to_string())
                ),
            ));
        }
        None => {
            return Err(field_err(
                "events",
                "missing: expected a sequence of events".into(),
            ));
        }
    };
    let body: Body = typed_ref(file, "", &raw)?;
    let scenario = validated(file, "config", body.config)?;
    for (field, found, config) in [
        ("dialect", &raw["dialect"], scenario.dialect.id()),
        ("behavior", &raw["behavior"], scenario.behaviour.name()),
    ] {
        if found.as_str() != Some(config) {
            let found = if found.is_null() {
                "missing".to_string()
            } else {
                format!("found {}", clip(&found.to_string()))
            };
            return Err(field_err(
                field,
                format!(
                    "expected \"{config}\", the config's `{field}` ({found}); make the two agree"
                ),
            ));
        }
    }
    let origin = origin_of(file, body.origin.clone())?;
    if let Origin::Schedule(_) = origin
        && let Err(e) = cancelcheck_sim::explorer::explorable(&scenario)
    {
        return Err(field_err(
            &join_path("config", &e.field),
            format!(
                "expected {} (the trace's origin is an explorer schedule)",
                e.expected
            ),
        ));
    }
    Ok(TraceDoc {
        scenario,
        origin,
        swarm: body.swarm,
        events,
        verdict: body.verdict,
        raw,
        text,
    })
}

pub use crate::write::Saved;

/// The default file name of a trace: dialect, behavior, and the seed or the explored bounds
/// (requests, transport as `--transport` names it, steps).
pub fn file_name(t: &Trace) -> String {
    let (d, b) = (t.scenario.dialect.id(), t.scenario.behaviour.name());
    match &t.origin {
        Origin::Seed(seed) => format!("{d}--{b}--seed-{seed}.json"),
        Origin::Schedule(s) => format!(
            "{d}--{b}--explore-n{}-{}-{}steps.json",
            t.scenario.workload.requests,
            transport_name(t.scenario.link.order),
            s.len().saturating_sub(1)
        ),
    }
}

/// The link order as the `--transport` flag names it: `stdio` (first in, first out) or
/// `reordering`.
pub fn transport_name(order: cancelcheck_sim::link::Order) -> &'static str {
    match order {
        cancelcheck_sim::link::Order::Fifo => "stdio",
        cancelcheck_sim::link::Order::Reordering => "reordering",
        cancelcheck_sim::link::Order::Http => "http",
    }
}

/// Writes `t` into `dir` under its [`file_name`], whole or not at all
/// ([`crate::write::no_clobber`]): an identical file there is left as it is; a different one
/// is never replaced, the trace goes to the first free `name-2.json`, `name-3.json`, ...
pub fn save(dir: &Path, t: &Trace) -> std::io::Result<Saved> {
    crate::write::no_clobber(&dir.join(file_name(t)), &trace_text(t), Taken::Sibling)
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
