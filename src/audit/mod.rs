//! `cancelcheck audit`: judge a recorded session with the probe's judge.
//!
//! A transcript ([`transcript`]) is read twice, a line at a time: a first pass finds which
//! party is the client (a vscode trace may be either side's) and which method the client's
//! cancels name (the request the judge follows, unless `--method` names it); the second feeds
//! each message to [`judge::Judging`] as it is read, the client's as [`Dir::Sent`], the
//! server's as [`Dir::Received`]. Both parties are black boxes: what the order of the file
//! cannot decide is reported not observable (see [`judge::Vantage`]). The verdict table, the
//! `--json` document and the exit codes are the probe's; a session with a finding is saved as
//! a probe trace (a third pass) that `cancelcheck replay` re-judges.

pub mod synthetic;
pub mod transcript;

use crate::probe::judge::{self, Dir, Judgement, Record, Vantage};
use crate::probe::process::PeerEnd;
use crate::probe::report::{self, Outcome};
use crate::write::{Taken, no_clobber_streamed};
use cancelcheck_model::{Dialect, RequestId};
use cancelcheck_properties::idset::IdSet;
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::{Framing, WireId, WireMessage};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use transcript::{Entry, Format, LineError, Lines, Said, Writer};

/// The name the verdict table gives the audited session, and the `scenario` of its trace.
pub const SCENARIO: &str = "audit";

/// The options of `cancelcheck audit`.
#[derive(clap::Args, Debug, Clone)]
pub struct AuditArgs {
    /// The dialect the session speaks: acp, acp-rfd, mcp-2025-11-25, mcp-2026-07-28 or lsp.
    #[arg(long)]
    pub dialect: String,
    /// The transcript's format.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: Format,
    /// The method of the requests judged (default: that of the first request the client
    /// cancels, else the dialect's usual work request).
    #[arg(long)]
    pub method: Option<String>,
    /// The longest line read, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_line: usize,
    /// A lower bound, in ms, on how long a judged request takes when nothing cancels it (as
    /// the probe's `--min-work-ms`): an error answer to a cancelled request that came sooner
    /// than this after the request, but before the server was shown to have read the cancel,
    /// was caused by the cancel (the verdict names this assumption). Without it such an answer
    /// is not decidable, and the session `vacuous`.
    #[arg(long, value_name = "MS")]
    pub min_work_ms: Option<u64>,
    /// Where the trace of a session with findings is saved.
    #[arg(long, default_value = "traces/found")]
    pub save: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// The transcript file.
    pub file: PathBuf,
}

fn bad(msg: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(msg.into())
}

fn line_error(file: &Path, e: &LineError) -> anyhow::Error {
    bad(format!(
        "{}: line {}: {} (fix or remove the line)",
        file.display(),
        e.line,
        e.expected
    ))
}

fn open(args: &AuditArgs) -> anyhow::Result<Lines<BufReader<std::fs::File>>> {
    let f = crate::trace_file::open_regular(&args.file).map_err(|e| bad(e.to_string()))?;
    Ok(Lines::new(BufReader::new(f), args.format, args.max_line))
}

/// The error of a transcript none of whose `lines` is a message in the format given: most
/// likely another format (named where one of the others reads a message in its first lines).
fn no_message(args: &AuditArgs, lines: u64) -> anyhow::Error {
    const LOOK: usize = 1000;
    let others = [Format::Jsonl, Format::Vscode, Format::McpLog]
        .into_iter()
        .filter(|f| *f != args.format);
    let mut reads = None;
    for f in others {
        let Ok(file) = std::fs::File::open(&args.file) else {
            break;
        };
        let mut l = Lines::new(BufReader::new(file), f, args.max_line);
        let found = (0..LOOK).any(|_| matches!(l.next_entry(), Ok(Some(_))));
        if found {
            reads = Some(f);
            break;
        }
    }
    let fix = match reads {
        Some(f) => format!("it reads as --format {}", f.as_str()),
        None => "give the format it is in with --format jsonl|vscode|mcp-log (docs/audit.md describes each)".to_string(),
    };
    bad(format!(
        "{}: none of its {lines} lines is a message in the {} format, so there is nothing to judge; {fix}",
        args.file.display(),
        args.format.as_str()
    ))
}

/// What the first pass learns of a transcript (or `watch` as the session goes): which party
/// is the client, and which methods the client's cancels name.
#[derive(Debug, Default)]
pub struct Scan {
    /// A vscode trace's recorder is the server (it read `initialize`).
    recorder_is_server: bool,
    role_known: bool,
    /// The methods of the client's requests its cancels name, with how many, first first.
    cancelled: Vec<(String, u64)>,
    /// The methods of the client's requests, by id (the ids a cancel may name): integer ids
    /// as runs, a set per method (a session uses few), the others by their text.
    int_methods: Vec<(String, IdSet)>,
    methods: BTreeMap<String, String>,
}

impl Scan {
    /// Learns from the next message, `writer`'s.
    pub fn push(&mut self, dialect: Dialect, writer: Writer, text: &str) {
        let rules = dialect.rules();
        let Ok(msg) = WireMessage::parse(text.as_bytes()) else {
            return;
        };
        if !self.role_known
            && matches!(writer, Writer::Recorder | Writer::Other)
            && let WireMessage::Request { method, .. } = &msg
            && Some(method.as_str()) == rules.initialize_method
        {
            self.role_known = true;
            self.recorder_is_server = writer == Writer::Other;
        }
        if !client_wrote(self, writer) {
            return;
        }
        let named = match &msg {
            WireMessage::Request { id, method, .. } => {
                match id {
                    WireId::Int(n) => self.set_int_method(*n, method),
                    _ => {
                        self.methods.insert(id.to_json_text(), method.clone());
                    }
                }
                return;
            }
            WireMessage::Notification { method, .. }
                if Some(method.as_str()) == rules.session_cancel_method =>
            {
                Some(cancelcheck_wire::acp::PROMPT.to_string())
            }
            WireMessage::Notification { method, params } if method == rules.cancel_method => params
                .as_ref()
                .and_then(|p| p.get(rules.cancel_id_field))
                .and_then(|id| match id.as_i64() {
                    Some(n) => self.int_method(n),
                    None => self.methods.get(&id.to_string()).cloned(),
                }),
            _ => None,
        };
        if let Some(m) = named {
            match self.cancelled.iter_mut().find(|(k, _)| *k == m) {
                Some((_, n)) => *n += 1,
                None => self.cancelled.push((m, 1)),
            }
        }
    }

    /// Records `method` as that of the client's request with integer id `n`.
    fn set_int_method(&mut self, n: i64, method: &str) {
        let id = RequestId::Int(n);
        for (_, ids) in &mut self.int_methods {
            ids.remove(id);
        }
        match self.int_methods.iter_mut().find(|(m, _)| m == method) {
            Some((_, ids)) => {
                ids.insert(id);
            }
            None => {
                let mut ids = IdSet::default();
                ids.insert(id);
                self.int_methods.push((method.to_string(), ids));
            }
        }
    }

    /// The method of the client's request with integer id `n`, if it sent one.
    fn int_method(&self, n: i64) -> Option<String> {
        self.int_methods
            .iter()
            .find(|(_, ids)| ids.contains(RequestId::Int(n)))
            .map(|(m, _)| m.clone())
    }

    /// The method judged: `given`, else that of the first request the client cancelled, else
    /// the dialect's usual work request.
    pub fn method(&self, dialect: Dialect, given: Option<&str>) -> String {
        let handshake = dialect.rules().initialize_method;
        let first = self
            .cancelled
            .iter()
            .find(|(m, _)| Some(m.as_str()) != handshake);
        match (given, first) {
            (Some(m), _) => m.to_string(),
            (None, Some((m, _))) => m.clone(),
            (None, None) => cancelcheck_wire::shapes::of(dialect)
                .default_work_method()
                .into(),
        }
    }

    /// The methods cancelled other than `judged` and the handshake's (whose cancels are judged
    /// whatever the method), each with how many cancels named it.
    pub fn not_judged(&self, dialect: Dialect, judged: &str) -> Vec<String> {
        let handshake = dialect.rules().initialize_method;
        self.cancelled
            .iter()
            .filter(|(m, _)| m != judged && Some(m.as_str()) != handshake)
            .map(|(m, n)| format!("{m} ({n})"))
            .collect()
    }
}

fn scan(args: &AuditArgs, dialect: Dialect) -> anyhow::Result<Scan> {
    let mut lines = open(args)?;
    let mut s = Scan::default();
    while let Some(e) = lines.next_entry().map_err(|e| line_error(&args.file, &e))? {
        if let Said::Message(text) = &e.said {
            s.push(dialect, e.writer, text);
        }
    }
    Ok(s)
}

/// Whether `writer` is the client.
fn client_wrote(scan: &Scan, writer: Writer) -> bool {
    match writer {
        Writer::Client => true,
        Writer::Server => false,
        Writer::Recorder => !scan.recorder_is_server,
        Writer::Other => scan.recorder_is_server,
    }
}

/// The vantage of a transcript: a client's own log or trace shows what the client had read.
fn vantage(format: Format, scan: &Scan) -> Vantage {
    match format {
        Format::McpLog => Vantage::Client,
        Format::Vscode if !scan.recorder_is_server => Vantage::Client,
        _ => Vantage::Between,
    }
}

/// The record the judge reads for a line (`first_us`: the transcript's first time).
fn record(scan: &Scan, e: Entry, offset: u64, first_us: &mut Option<u64>) -> Record {
    let t = e.time_us.unwrap_or(0);
    let first = *first_us.get_or_insert(t);
    let client = client_wrote(scan, e.writer);
    record_of(e.said, client, t.saturating_sub(first), offset)
}

/// The record the judge reads for what a line said (`client`: the client wrote it), at `t_us`
/// and byte `offset`: a message, or a note that a party closed its output
/// ([`judge::note::OUTPUT_CLOSED`]).
pub fn record_of(said: Said, client: bool, t_us: u64, offset: u64) -> Record {
    let (dir, text) = match said {
        Said::Message(text) if client => (Dir::Sent, text),
        Said::Message(text) => (Dir::Received, text),
        Said::Closed => (Dir::Note, judge::output_closed(client)),
    };
    Record {
        t_us,
        dir,
        offset,
        text,
        stream: None,
    }
}

/// What reading the transcript found, beside the messages.
struct Read {
    judgement: Judgement,
    messages: u64,
    lines: u64,
    skipped: u64,
    truncated: Option<LineError>,
}

fn judge_file(args: &AuditArgs, ctx: &Context, scan: &Scan) -> anyhow::Result<Read> {
    let mut lines = open(args)?;
    let mut j = judge::Judging::bounded(ctx, Some(vantage(args.format, scan)));
    if let Some(ms) = args.min_work_ms {
        j.push(&judge::min_work_record(ms));
    }
    let mut first = None;
    let mut messages = 0;
    while let Some(e) = lines.next_entry().map_err(|e| line_error(&args.file, &e))? {
        messages += u64::from(matches!(e.said, Said::Message(_)));
        j.push(&record(scan, e, lines.offset, &mut first));
    }
    Ok(Read {
        judgement: j.finish(),
        messages,
        lines: lines.line,
        skipped: lines.skipped,
        truncated: lines.truncated,
    })
}

/// Writes the trace of the audited session under `dir` (streamed from a third read of the
/// file), as a probe trace of scenario [`SCENARIO`] that names its vantage; never replaces a
/// file.
fn save_trace(
    args: &AuditArgs,
    ctx: &Context,
    scan: &Scan,
    verdict: &Value,
    first: &str,
) -> anyhow::Result<PathBuf> {
    let stem = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let path = args
        .save
        .join(format!("audit-{}-{first}-{stem}.json", ctx.dialect.id()));
    let saved = no_clobber_streamed(&path, Taken::Sibling, |out| -> anyhow::Result<()> {
        let head = json!({
            "version": report::PROBE_TRACE_VERSION,
            "kind": "probe",
            "dialect": ctx.dialect.id(),
            "framing": Framing::Ndjson.as_str(),
            "work_method": ctx.work_method,
            "scenario": SCENARIO,
            "vantage": vantage_name(vantage(args.format, scan)),
            "seed": 0,
            "command": ["audit", args.file.display().to_string()],
        })
        .to_string();
        // The head's fields, then the messages one by one, then the verdict.
        write!(out, "{},\n\"messages\": [", head.trim_end_matches('}'))?;
        let mut lines = open(args)?;
        let mut first_us = None;
        let mut n = 0;
        // The declared duration decides what it decided here when the trace is re-judged.
        if let Some(ms) = args.min_work_ms {
            let r = judge::min_work_record(ms);
            let m =
                json!({"t_us": r.t_us, "dir": r.dir.as_str(), "offset": r.offset, "text": r.text});
            write!(out, "\n{m}")?;
            n += 1;
        }
        while let Some(e) = lines.next_entry().map_err(|e| line_error(&args.file, &e))? {
            let r = record(scan, e, lines.offset, &mut first_us);
            let m =
                json!({"t_us": r.t_us, "dir": r.dir.as_str(), "offset": r.offset, "text": r.text});
            write!(out, "{}\n{m}", if n == 0 { "" } else { "," })?;
            n += 1;
        }
        writeln!(out, "],\n\"verdict\": {verdict}}}")?;
        Ok(())
    })?;
    Ok(saved.path)
}

/// The requester's duties the probe's table has no column for (the probe's own,
/// [`judge::PROBE_OWN_DUTIES`]), each with what the record says of it.
fn own_duties_line(dialect: Dialect, j: &Judgement) -> String {
    let said: Vec<String> = judge::PROBE_OWN_DUTIES
        .iter()
        .filter_map(|i| Some((i, i.info().application(dialect)?)))
        .map(|(i, a)| {
            let what = if j.not_observable.contains(i) {
                "not observable (what the client had read is not in a record made between the parties)"
            } else if j.verdict.violations.iter().any(|v| v.invariant == *i) {
                "broken (see findings)"
            } else {
                "held"
            };
            format!("{} ({}): {what}", i.name(), a.strength.as_str())
        })
        .collect();
    if said.is_empty() {
        return String::new();
    }
    format!("client's duties: {}\n", said.join("; "))
}

/// The name a trace gives a vantage.
pub fn vantage_name(v: Vantage) -> &'static str {
    match v {
        Vantage::Client => "client",
        Vantage::Between => "between",
    }
}

/// Parses [`vantage_name`].
pub fn vantage_from_name(s: &str) -> Option<Vantage> {
    match s {
        "client" => Some(Vantage::Client),
        "between" => Some(Vantage::Between),
        _ => None,
    }
}

/// Runs the audit; returns what to print on stdout and the exit code (the probe's: 0 pass,
/// warn or vacuous, 1 a MUST broken). Bad usage or a bad line is an error (exit 2).
pub fn run(args: AuditArgs) -> anyhow::Result<(String, u8)> {
    let dialect = crate::probe::json_rpc_dialect(&args.dialect, "audit")?;
    if args.max_line == 0 {
        return Err(bad("--max-line must be at least 1"));
    }
    let scan = scan(&args, dialect)?;
    let mut ctx = Context::new(dialect);
    ctx.work_method = scan.method(dialect, args.method.as_deref());
    let read = judge_file(&args, &ctx, &scan)?;
    if read.messages == 0 && read.skipped > 0 {
        return Err(no_message(&args, read.skipped));
    }
    if read.messages == 0 {
        return Err(bad(format!(
            "{}: holds no message ({} lines, none of them a message or a note of a party's output ending): there is nothing to judge; give the file the session was recorded in",
            args.file.display(),
            read.lines
        )));
    }
    let mut outcome = session_outcome(read.judgement);
    if outcome.has_findings() {
        let verdict = report::judgement_json(dialect, &outcome.judgement);
        let first = outcome.judgement.first_finding();
        outcome.trace =
            Some(save_trace(&args, &ctx, &scan, &verdict, first).map_err(|e| e.to_string()));
    }
    let summary = Summary {
        command: "audit",
        file: args.file.display().to_string(),
        format: args.format,
        vantage: vantage(args.format, &scan),
        client_is_recorder: !scan.recorder_is_server,
        lines: read.lines,
        messages: read.messages,
        skipped: read.skipped,
        truncated: read.truncated,
        not_judged: scan.not_judged(ctx.dialect, &ctx.work_method),
        method: ctx.work_method,
    };
    Ok(render(dialect, &summary, outcome, args.json))
}

/// The one session of a transcript as the probe's report takes it.
pub fn session_outcome(judgement: Judgement) -> Outcome {
    Outcome {
        name: SCENARIO,
        seed: 0,
        records: Vec::new(),
        judgement,
        end: PeerEnd::no_process(),
        trace: None,
    }
}

/// What a report says of the transcript beside its verdict.
pub struct Summary {
    /// The command reporting (`audit`, `watch`).
    pub command: &'static str,
    /// The transcript's file.
    pub file: String,
    /// Its format.
    pub format: Format,
    /// Where it was recorded.
    pub vantage: Vantage,
    /// Whether the client is the party that recorded it (vscode traces).
    pub client_is_recorder: bool,
    /// Lines read.
    pub lines: u64,
    /// Messages judged.
    pub messages: u64,
    /// Lines that were not messages.
    pub skipped: u64,
    /// The last line, cut short.
    pub truncated: Option<LineError>,
    /// The method whose requests were judged.
    pub method: String,
    /// Other methods the client cancelled ([`Scan::not_judged`]).
    pub not_judged: Vec<String>,
}

/// The report of one transcript's `outcome` (the probe's table, `--json` document and exit
/// code, with the transcript's [`Summary`] in place of the probe's command and costs).
pub fn render(dialect: Dialect, sum: &Summary, outcome: Outcome, json: bool) -> (String, u8) {
    let outcomes = [outcome];
    let code = report::exit_code(&outcomes);
    let text = if json {
        let mut doc = report::run_json(dialect, Framing::Ndjson, &[], &outcomes);
        if let Some(o) = doc.as_object_mut() {
            o.insert(
                "vacuous_because".into(),
                json!(outcomes[0].judgement.vacuous_because),
            );
            o.remove("framing");
            o.remove("command");
            o.remove("probe_ms_per_scenario");
            o.insert(
                "transcript".into(),
                json!({
                    "file": sum.file,
                    "format": sum.format.as_str(),
                    "vantage": vantage_name(sum.vantage),
                    "client": if sum.client_is_recorder { "recorder" } else { "other" },
                    "lines": sum.lines,
                    "messages": sum.messages,
                    "skipped_lines": sum.skipped,
                    "truncated_last_line": sum.truncated.as_ref().map(|t| json!({"line": t.line, "expected": t.expected})),
                    "method_judged": sum.method,
                    "cancelled_methods_not_judged": sum.not_judged,
                }),
            );
        }
        if let Some(s) = doc
            .pointer_mut("/scenarios/0")
            .and_then(Value::as_object_mut)
        {
            s.insert("messages".into(), json!(sum.messages));
            for k in [
                "peer_exit",
                "peer_killed",
                "peer_stderr_bytes",
                "elapsed_ms",
                "probe_ms",
            ] {
                s.remove(k);
            }
        }
        format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )
    } else {
        let mut t = format!(
            "{}: {} transcript {} ({}, {} lines: {} messages, {} skipped), judged from {}; requests judged: {}\n",
            sum.command,
            dialect.id(),
            sum.file,
            sum.format.as_str(),
            sum.lines,
            sum.messages,
            sum.skipped,
            match sum.vantage {
                Vantage::Client => "the client's own record",
                Vantage::Between =>
                    "a record between the parties (what the client had read is not observable)",
            },
            sum.method,
        );
        if !sum.not_judged.is_empty() {
            t.push_str(&format!(
                "not judged: cancels of requests of other methods: {} (name one with --method)\n",
                sum.not_judged.join(", ")
            ));
        }
        if let Some(tr) = &sum.truncated {
            t.push_str(&format!(
                "truncated: the last line ({}) ends without a newline and is not a whole message ({}); the session is judged up to the line before\n",
                tr.line, tr.expected
            ));
        }
        // The probe's table, findings and verdict; its header, its own cost and its summary of
        // scenarios are the probe's.
        let table = report::run_text(dialect, Framing::Ndjson, &[], &outcomes);
        for line in table.lines().skip(1) {
            if line.starts_with("verdict: ") {
                t.push_str(&own_duties_line(dialect, &outcomes[0].judgement));
            }
            if !line.starts_with("probe's own time") && !line.starts_with("vacuous: ") {
                t.push_str(line);
                t.push('\n');
            }
        }
        t
    };
    (text, code)
}
