//! What a probe run reports: the verdict table, the `--json` document, and probe traces (saved
//! for every finding, re-judged offline by `cancelcheck replay`).

use super::judge::{Dir, Judgement, Record, judge_scenario};
use super::process::PeerEnd;
use crate::trace_json::{FindingDetail, finding_json};
use cancelcheck_model::Dialect;
use cancelcheck_properties::{InvariantId, Status, Strength};
use cancelcheck_wire::Framing;
use cancelcheck_wire::decode::Context;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The format version of probe traces.
pub const PROBE_TRACE_VERSION: u32 = 1;

/// One scenario's outcome.
pub struct Outcome {
    /// The scenario's name.
    pub name: &'static str,
    /// The seed its timing was drawn from.
    pub seed: u64,
    /// What crossed the wire.
    pub records: Vec<Record>,
    /// The judgement.
    pub judgement: Judgement,
    /// How the peer ended.
    pub end: PeerEnd,
    /// Where its trace was saved, or why it could not be.
    pub trace: Option<Result<PathBuf, String>>,
}

impl Outcome {
    /// Whether there is something to report (a violation or a session error).
    pub fn has_findings(&self) -> bool {
        !self.judgement.verdict.violations.is_empty() || !self.judgement.errors.is_empty()
    }

    /// The probe's own time: the session's time minus the time spent waiting for the peer.
    pub fn probe_ms(&self) -> f64 {
        self.end
            .elapsed
            .saturating_sub(self.end.waited)
            .as_secs_f64()
            * 1000.0
    }
}

/// What the peers of a run said of the protocol version they speak, where it is not the one
/// the dialect's text is of: each different sentence once, in order.
pub fn protocol_notes(outcomes: &[Outcome]) -> Vec<&str> {
    distinct(outcomes, |j| j.protocol.as_deref())
}

/// Each different sentence `said` of the outcomes' judgements, once, in order.
fn distinct<'a>(
    outcomes: &'a [Outcome],
    said: impl Fn(&'a Judgement) -> Option<&'a str>,
) -> Vec<&'a str> {
    let mut sentences: Vec<&str> = Vec::new();
    for o in outcomes {
        if let Some(p) = said(&o.judgement)
            && !sentences.contains(&p)
        {
            sentences.push(p);
        }
    }
    sentences
}

/// The lines that open a report whose peer speaks another protocol version than the dialect's.
fn protocol_lines(dialect: Dialect, outcomes: &[Outcome]) -> Vec<String> {
    let Some(expected) = cancelcheck_wire::client::expected_version(dialect) else {
        return Vec::new();
    };
    protocol_notes(outcomes)
        .into_iter()
        .map(|n| {
            format!(
                "protocol: the peer does not speak version {expected}, which the {dialect} text is of: {n}; the verdicts below judge it by that text all the same (probe it with the dialect of the version it speaks)"
            )
        })
        .collect()
}

/// How the peers of a run refused the handshake (`initialize` answered with an error), each
/// different sentence once, in order.
pub fn handshake_refusals(outcomes: &[Outcome]) -> Vec<&str> {
    distinct(outcomes, |j| j.handshake_refused.as_deref())
}

/// The lines that open a report whose peer refused the handshake, in every dialect that has
/// one: for a probe (`command` names the peer), with what to give the peer; for a record
/// (`audit`, `watch`: no command), with what to record instead.
fn handshake_lines(dialect: Dialect, command: &[String], outcomes: &[Outcome]) -> Vec<String> {
    handshake_refusals(outcomes)
        .into_iter()
        .map(|r| {
            if command.is_empty() {
                format!(
                    "handshake refused: {r}: no session opened, so nothing about cancellation was tested; judge a record of a session whose handshake succeeded"
                )
            } else {
                format!(
                    "handshake refused: {r}: no session opened, so no work request was sent and nothing was tested; check that the command starts a server of {dialect}, and give what it needs first in a recipe (--recipe FILE: its initialize params, or set-up steps such as an agent's authenticate)"
                )
            }
        })
        .collect()
}

/// The verdict of several outcomes: the weakest scenario's ([`Judgement::status`]), so `fail`
/// or `warn` as the strongest finding, and `vacuous` where any scenario tested nothing or could
/// not be decided, or none exercised a cancel of a request in flight. `pass` only when every
/// scenario passed and one reached a request in flight; no outcomes at all is `vacuous`.
pub fn overall(outcomes: &[Outcome]) -> Status {
    let worst = outcomes
        .iter()
        .map(|o| o.judgement.status())
        .min()
        .unwrap_or(Status::Vacuous);
    let exercised = outcomes.iter().any(|o| o.judgement.exercised_in_flight);
    worst.min(if exercised {
        Status::Pass
    } else {
        Status::Vacuous
    })
}

/// The exit code of a run's `outcomes`: [`overall`]'s, unless the trace of a finding (a
/// scenario that failed or warned) could not be saved: then 3, as the README's table says.
pub fn exit_code(outcomes: &[Outcome]) -> u8 {
    let unsaved = outcomes.iter().any(|o| {
        matches!(o.trace, Some(Err(_)))
            && matches!(o.judgement.status(), Status::Fail | Status::Warn)
    });
    if unsaved {
        3
    } else {
        overall(outcomes).exit_code()
    }
}

/// How a run's scenarios that needed a peer acting on cancels say none was seen.
pub const NO_ACTING: &str = "no scenario of this run showed the peer acting on a cancel (answering a cancelled request \"cancelled\", or once it had read the cancel with anything but the full result, or, where the text owes no answer, never answering one whose cancel it was proved to have read)";

/// A scenario whose point shows only on a peer that acts on cancels
/// ([`super::scenario::Acting`]) and passed is `vacuous` where the peer was not seen acting:
/// in its own session (`id-zero`), or in any session of the run (`string-vs-number`,
/// `empty-string-id`).
pub fn spread_acting(outcomes: &mut [Outcome]) {
    use super::scenario::Acting;
    let acted_in = outcomes
        .iter()
        .find(|o| o.judgement.acted_on_cancel)
        .map(|o| o.name);
    for o in outcomes.iter_mut() {
        let Some(s) = super::scenario::by_name(o.name) else {
            continue;
        };
        let why = match (s.acting, o.judgement.acted_on_cancel, acted_in) {
            (Acting::InSession, false, Some(other)) => format!(
                "the peer was not seen acting on this scenario's cancel (its request answered in full, or its acting not observable here), though it acted on one in scenario {other}: it may take this id for no id (a falsy check); the scenario decided nothing (where the text asks the receiver to act, a breach shows as a finding wherever it is observable: over stdio)"
            ),
            (Acting::InSession | Acting::InRun, _, None) => format!(
                "{NO_ACTING}: which cancels a peer acts on shows nothing of one seen acting on none; probe work the peer stops when it is cancelled (--method and --params, or a recipe); over HTTP, probe over stdio too, where more of a cancel's effect is observable"
            ),
            _ => continue,
        };
        o.judgement.learned_from_run(why);
    }
}

/// Where one session of a run found that the work fails on its own (a call no cancel named
/// answered with a tool's error), every other scenario that claims a cancel of a request in
/// flight and passed is `vacuous`: the same work, sent in every session, never ran there
/// either, as far as the probe can tell.
pub fn spread_failed_work(outcomes: &mut [Outcome]) {
    let Some((name, why)) = outcomes
        .iter()
        .find_map(|o| Some((o.name, o.judgement.work_fails.clone()?)))
    else {
        return;
    };
    for o in outcomes.iter_mut() {
        let in_flight = super::scenario::by_name(o.name).is_some_and(|s| s.in_flight);
        o.judgement.work_failed_elsewhere(in_flight, name, &why);
    }
}

/// Why the run as a whole is `vacuous` (empty unless it is): the scenarios that tested
/// nothing or could not be decided, or that no scenario reached a request in flight.
pub fn run_vacuous_because(outcomes: &[Outcome]) -> Vec<String> {
    if overall(outcomes) != Status::Vacuous {
        return Vec::new();
    }
    let vacuous: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.judgement.status() == Status::Vacuous)
        .map(|o| o.name)
        .collect();
    let mut why = Vec::new();
    if outcomes.is_empty() {
        why.push("no scenario ran".to_string());
    } else if !vacuous.is_empty() {
        let mut names: Vec<&str> = Vec::new();
        for n in &vacuous {
            if !names.contains(n) {
                names.push(n);
            }
        }
        why.push(format!(
            "{} of {} sessions tested nothing or could not be decided ({}): a run is a pass only when every part of it is (each one's vacuous_because says why and what would fix it)",
            vacuous.len(),
            outcomes.len(),
            names.join(", ")
        ));
    }
    if !outcomes.iter().any(|o| o.judgement.exercised_in_flight) {
        why.push(
            "no scenario's cancel reached a work request in flight and decided what the peer did (each scenario's vacuous_because says why and what would fix it)"
                .to_string(),
        );
    }
    why
}

fn trace_path(o: &Outcome) -> Value {
    match &o.trace {
        Some(Ok(p)) => json!(p.display().to_string()),
        Some(Err(e)) => json!(format!("NOT SAVED: {e}")),
        None => Value::Null,
    }
}

/// The verdict of one judgement as JSON (what a probe trace records and replay compares).
pub fn judgement_json(dialect: Dialect, j: &Judgement) -> Value {
    let violations: Vec<Value> = j
        .verdict
        .violations
        .iter()
        .map(|v| finding_json(dialect, v, FindingDetail::Located))
        .collect();
    let errors: Vec<Value> = j
        .errors
        .iter()
        .map(|e| json!({"kind": e.kind, "offset": e.offset, "message": e.message}))
        .collect();
    let mut v = json!({
        "result": j.status().as_str(),
        "violations": violations,
        "errors": errors,
        "not_observable": j.not_observable.iter().map(|i| i.name()).collect::<Vec<_>>(),
        "races_reached": j.verdict.reached.iter().map(|r| r.name()).collect::<Vec<_>>(),
        "events": j.verdict.events,
    });
    if !j.vacuous_because.is_empty() {
        v["vacuous_because"] = json!(j.vacuous_because);
    }
    if !j.assumptions.is_empty() {
        v["assumptions"] = json!(j.assumptions);
    }
    v
}

/// The run as one JSON document.
pub fn run_json(
    dialect: Dialect,
    framing: Framing,
    command: &[String],
    outcomes: &[Outcome],
) -> Value {
    let scenarios: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            let j = &o.judgement;
            let violations: Vec<Value> = j
                .verdict
                .violations
                .iter()
                .map(|v| {
                    let mut f = finding_json(dialect, v, FindingDetail::Brief);
                    f["trace"] = trace_path(o);
                    f
                })
                .collect();
            let errors: Vec<Value> = j
                .errors
                .iter()
                .map(|e| json!({"kind": e.kind, "offset": e.offset, "message": e.message, "trace": trace_path(o)}))
                .collect();
            json!({
                "name": o.name,
                "seed": o.seed,
                "trace": trace_path(o),
                "verdict": j.status().as_str(),
                "violations": violations,
                "errors": errors,
                "not_observable": j.not_observable.iter().map(|i| i.name()).collect::<Vec<_>>(),
                // (A race the wire cannot show is not reported reached: it is not observable.)
                "races_reached": j
                    .verdict
                    .reached
                    .iter()
                    .filter(|r| !j.not_observable.contains(r))
                    .map(|r| r.name())
                    .collect::<Vec<_>>(),
                "vacuous_because": j.vacuous_because,
                "assumptions": j.assumptions,
                "peer_protocol": j.protocol,
                "messages": o.records.iter().filter(|r| r.dir != Dir::Note).count(),
                "peer_exit": o.end.status,
                "peer_killed": o.end.killed,
                "peer_stderr_bytes": o.end.stderr_bytes,
                "peer_stderr_tail": o.end.stderr_tail,
                "elapsed_ms": round(o.end.elapsed.as_secs_f64() * 1000.0),
                "probe_ms": round(o.probe_ms()),
            })
        })
        .collect();
    let (mean, max) = cost(outcomes);
    let notes = protocol_notes(outcomes);
    let protocol = if notes.is_empty() {
        Value::Null
    } else {
        json!({"dialect_version": cancelcheck_wire::client::expected_version(dialect),
               "peer": notes.join("; ")})
    };
    let refusals = handshake_refusals(outcomes);
    json!({
        "verdict": overall(outcomes).as_str(),
        "vacuous_because": run_vacuous_because(outcomes),
        "handshake_refused": (!refusals.is_empty()).then(|| refusals.join("; ")),
        "protocol": protocol,
        "dialect": dialect.id(),
        "framing": framing.as_str(),
        "command": command,
        "scenarios": scenarios,
        "probe_ms_per_scenario": {"mean": round(mean), "max": round(max)},
    })
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Mean and max of the probe's own time per scenario, in ms.
pub fn cost(outcomes: &[Outcome]) -> (f64, f64) {
    let n = outcomes.len().max(1) as f64;
    let sum: f64 = outcomes.iter().map(Outcome::probe_ms).sum();
    let max = outcomes.iter().map(Outcome::probe_ms).fold(0.0, f64::max);
    (sum / n, max)
}

/// The invariants a table has columns for: those of `dialect` that are rules (not races),
/// but the probe's own duties (see `judge::PROBE_OWN_DUTIES`).
fn columns(dialect: Dialect) -> Vec<InvariantId> {
    InvariantId::all()
        .filter(|i| {
            i.info()
                .application(dialect)
                .is_some_and(|a| a.strength != Strength::Coverage)
                && !super::judge::PROBE_OWN_DUTIES.contains(i)
        })
        .collect()
}

/// Whether a scenario ran more than once (`--repeat`): then its seed tells its rows apart.
pub fn repeated(outcomes: &[Outcome]) -> bool {
    outcomes
        .iter()
        .enumerate()
        .any(|(k, o)| outcomes[..k].iter().any(|p| p.name == o.name))
}

/// The verdict table as text: one row per scenario, one column per invariant of the dialect
/// (`.` held, `E` a MUST broken, `W` a SHOULD or a note broken, `-` not observable on the wire,
/// `?` not decided: the session tested nothing or ended in an error), then
/// each finding with its trace, the probe's own cost and the verdict.
pub fn run_text(
    dialect: Dialect,
    framing: Framing,
    command: &[String],
    outcomes: &[Outcome],
) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "probe: {} over stdio ({}): {}",
        dialect.id(),
        framing.as_str(),
        command.join(" ")
    );
    for line in handshake_lines(dialect, command, outcomes)
        .into_iter()
        .chain(protocol_lines(dialect, outcomes))
    {
        let _ = writeln!(t, "{line}");
    }
    let cols = columns(dialect);
    let width = outcomes
        .iter()
        .map(|o| o.name.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let head: String = (1..=cols.len()).map(|n| format!("{:>3}", n)).collect();
    let repeated = repeated(outcomes);
    let seed_width = if repeated {
        outcomes
            .iter()
            .map(|o| o.seed.to_string().len())
            .max()
            .unwrap_or(4)
            .max(4)
    } else {
        0
    };
    let seed_cell = |seed: Option<u64>| match (repeated, seed) {
        (false, _) => String::new(),
        (true, Some(s)) => format!("{s:>seed_width$}  "),
        (true, None) => format!("{:>seed_width$}  ", "seed"),
    };
    let _ = writeln!(
        t,
        "{:width$}  {}verdict  {head}  session",
        "scenario",
        seed_cell(None)
    );
    for o in outcomes {
        let j = &o.judgement;
        // A session that tested nothing (failed or not), or ended in an error, held nothing
        // it did not break.
        let undecided = !j.errors.is_empty() || !j.vacuous_because.is_empty();
        let cells: String = cols
            .iter()
            .map(|i| {
                let c = if j.not_observable.contains(i) {
                    '-'
                } else {
                    match j.verdict.violations.iter().find(|v| v.invariant == *i) {
                        Some(v) if v.strength == Strength::Must => 'E',
                        Some(_) => 'W',
                        None if undecided => '?',
                        None => '.',
                    }
                };
                format!("{c:>3}")
            })
            .collect();
        let session = if j.errors.is_empty() {
            "ok".to_string()
        } else {
            j.errors
                .iter()
                .map(|e| e.kind)
                .collect::<Vec<_>>()
                .join(",")
        };
        let _ = writeln!(
            t,
            "{:width$}  {}{:7}  {cells}  {session}",
            o.name,
            seed_cell(Some(o.seed)),
            j.status().as_str()
        );
    }
    let _ = writeln!(
        t,
        "columns (. held, E MUST broken, W SHOULD or NOTE broken, - not observable on the wire, ? not decided: the session tested nothing or ended in an error; - and ? never reported as passed):"
    );
    for (n, i) in cols.iter().enumerate() {
        let strength = i
            .info()
            .application(dialect)
            .map_or("", |a| a.strength.as_str());
        let hidden = if outcomes
            .first()
            .is_some_and(|o| o.judgement.not_observable.contains(i))
        {
            ", not observable"
        } else {
            ""
        };
        let _ = writeln!(t, "  {:>2} {} ({strength}{hidden})", n + 1, i.name());
    }
    let with: Vec<&Outcome> = outcomes.iter().filter(|o| o.has_findings()).collect();
    if !with.is_empty() {
        let _ = writeln!(t, "findings:");
    }
    for o in with {
        let j = &o.judgement;
        for v in &j.verdict.violations {
            let tag = if v.strength == Strength::Must {
                "error"
            } else {
                "warning"
            };
            let _ = writeln!(
                t,
                "  {} (seed {}): {tag}: {} {}",
                o.name,
                o.seed,
                v.strength.as_str(),
                v.invariant.name()
            );
        }
        for a in &j.assumptions {
            let _ = writeln!(t, "    {a}");
        }
        for e in &j.errors {
            let at = e
                .offset
                .map(|a| format!(" at byte {a}"))
                .unwrap_or_default();
            let _ = writeln!(
                t,
                "  {} (seed {}): error: {}{at}: {}",
                o.name, o.seed, e.kind, e.message
            );
        }
        match &o.trace {
            Some(Ok(p)) => {
                let _ = writeln!(t, "    trace: {}", p.display());
            }
            Some(Err(e)) => {
                let _ = writeln!(t, "    trace NOT SAVED: {e}");
            }
            None => {}
        }
        stderr_lines(&mut t, &o.end);
    }
    // What a session could not decide: all it did, where it is vacuous; beside its findings,
    // where it failed or warned.
    for (vacuous, heading) in [
        (true, "vacuous (tested nothing):"),
        (false, "not decided, beside the findings:"),
    ] {
        let listed: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| !o.judgement.vacuous_because.is_empty())
            .filter(|o| (o.judgement.status() == Status::Vacuous) == vacuous)
            .collect();
        if !listed.is_empty() {
            let _ = writeln!(t, "{heading}");
        }
        for o in listed {
            for why in &o.judgement.vacuous_because {
                let _ = writeln!(t, "  {} (seed {}): {why}", o.name, o.seed);
            }
        }
    }
    for why in run_vacuous_because(outcomes) {
        let _ = writeln!(t, "vacuous: {why}");
    }
    let (mean, max) = cost(outcomes);
    let _ = writeln!(
        t,
        "probe's own time per scenario: {mean:.2} ms mean, {max:.2} ms max (beyond waiting for the peer)"
    );
    let _ = writeln!(t, "verdict: {}", overall(outcomes).as_str());
    t
}

/// The lines of the peer's stderr shown under a finding.
const STDERR_LINES: usize = 10;

/// The end of the peer's stderr, under a finding: its last lines (all of the kept tail is in
/// `--json` and the trace).
fn stderr_lines(t: &mut String, end: &PeerEnd) {
    use std::fmt::Write as _;
    let lines: Vec<&str> = end.stderr_tail.lines().collect();
    if lines.is_empty() {
        return;
    }
    let shown = &lines[lines.len().saturating_sub(STDERR_LINES)..];
    let _ = writeln!(
        t,
        "    peer's stderr (the end of its {} bytes):",
        end.stderr_bytes
    );
    for l in shown {
        let _ = writeln!(t, "      | {}", printable(l));
    }
}

/// A line of the peer's output as it is safe to print: control characters (a terminal's
/// escape sequences among them) written as U+FFFD.
pub fn printable(line: &str) -> String {
    line.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

/// A probe trace: the wire record of one scenario and its verdict.
pub fn trace_json(setup: &super::session::Setup, o: &Outcome) -> Value {
    let messages: Vec<Value> = o
        .records
        .iter()
        .map(|r| {
            let mut m =
                json!({"t_us": r.t_us, "dir": r.dir.as_str(), "offset": r.offset, "text": r.text});
            // Streamable HTTP only: a stdio trace keeps its shape, byte for byte.
            if let Some(s) = &r.stream {
                m["stream"] = s.clone().into();
            }
            m
        })
        .collect();
    let mut doc = json!({
        "version": PROBE_TRACE_VERSION,
        "kind": "probe",
        "dialect": setup.dialect.id(),
        "framing": setup.framing.as_str(),
        "work_method": setup.ctx.work_method,
        "scenario": o.name,
        "seed": o.seed,
        "command": setup.command,
        "messages": messages,
        "peer_stderr_bytes": o.end.stderr_bytes,
        "peer_stderr_tail": o.end.stderr_tail,
        "verdict": judgement_json(setup.dialect, &o.judgement),
    });
    // What the other sessions of the run taught this one, to judge it again alike.
    if !o.judgement.from_run.is_empty() {
        doc["from_run"] = json!(o.judgement.from_run);
    }
    // Streamable HTTP only: a stdio trace keeps its shape.
    if let Some(url) = &setup.url {
        doc["url"] = url.clone().into();
    }
    doc
}

/// Writes a trace under `dir` without replacing a different file of the same name (a `-2`,
/// `-3`... sibling is made instead); an identical file is left alone
/// ([`crate::write::no_clobber`]).
pub fn save(dir: &Path, name: &str, doc: &Value) -> std::io::Result<PathBuf> {
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(doc).map_err(std::io::Error::other)?
    );
    let path = dir.join(format!("{name}.json"));
    crate::write::no_clobber(&path, &text, crate::write::Taken::Sibling).map(|s| s.path)
}

/// A probe trace as read back: what the judge needs to judge it again.
pub struct ProbeTrace {
    /// The dialect and the work method.
    pub ctx: Context,
    /// The scenario's name.
    pub scenario: String,
    /// Where an audited transcript was recorded (`None`: a probe session).
    pub vantage: Option<super::judge::Vantage>,
    /// The records, in the order of the file's `messages`.
    pub records: Vec<Record>,
    /// Why the session tested nothing, as the other sessions of its run taught it
    /// (`from_run`).
    pub from_run: Vec<String>,
}

/// Reads a probe trace document. `Ok(None)` if it is not a probe trace; an error names the
/// field.
pub fn read_probe_trace(doc: &Value) -> Result<Option<ProbeTrace>, String> {
    if doc.get("kind").and_then(Value::as_str) != Some("probe") {
        return Ok(None);
    }
    let version = doc.get("version").and_then(Value::as_u64);
    if version != Some(u64::from(PROBE_TRACE_VERSION)) {
        return Err(format!(
            "field `version`: expected {PROBE_TRACE_VERSION}, found {version:?}"
        ));
    }
    let dialect: Dialect = doc
        .get("dialect")
        .and_then(Value::as_str)
        .ok_or("field `dialect`: expected a dialect id")?
        .parse()
        .map_err(|e| format!("field `dialect`: {e}"))?;
    let mut ctx = Context::new(dialect);
    if let Some(m) = doc.get("work_method").and_then(Value::as_str) {
        ctx.work_method = m.to_string();
    }
    let msgs = doc
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("field `messages`: expected an array")?;
    let mut records = Vec::with_capacity(msgs.len());
    for (i, m) in msgs.iter().enumerate() {
        let field = |k: &str| format!("field `messages[{i}].{k}`");
        let dir = m
            .get("dir")
            .and_then(Value::as_str)
            .and_then(Dir::from_name)
            .ok_or_else(|| format!("{}: expected sent, received or note", field("dir")))?;
        let text = m
            .get("text")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{}: expected a string", field("text")))?;
        records.push(Record {
            t_us: m.get("t_us").and_then(Value::as_u64).unwrap_or(0),
            dir,
            offset: m.get("offset").and_then(Value::as_u64).unwrap_or(0),
            text: text.to_string(),
            stream: m.get("stream").and_then(Value::as_str).map(str::to_string),
        });
    }
    let scenario = doc
        .get("scenario")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    // A transcript audited names where it was recorded.
    let vantage = match doc.get("vantage").and_then(Value::as_str) {
        Some(v) => Some(
            crate::audit::vantage_from_name(v)
                .ok_or("field `vantage`: expected client or between")?,
        ),
        None => None,
    };
    let from_run = match doc.get("from_run") {
        None => Vec::new(),
        Some(v) => v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|x| x.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or("field `from_run`: expected an array of strings")?,
    };
    Ok(Some(ProbeTrace {
        ctx,
        scenario,
        vantage,
        records,
        from_run,
    }))
}

/// Re-judges a probe trace: the judgement, its verdict as JSON, and whether that is the
/// recorded verdict.
pub fn rejudge_trace(doc: &Value, t: &ProbeTrace) -> (Judgement, Value, bool) {
    let mut j = match t.vantage {
        Some(v) => super::judge::judge_transcript(&t.ctx, v, &t.records),
        None => judge_scenario(&t.ctx, &t.scenario, &t.records),
    };
    for why in &t.from_run {
        j.learned_from_run(why.clone());
    }
    let fresh = judgement_json(t.ctx.dialect, &j);
    let same = doc.get("verdict") == Some(&fresh);
    (j, fresh, same)
}

/// Re-judges a probe trace document: the verdict as JSON, whether it is the recorded one, and
/// the number of records. `Ok(None)` if it is not a probe trace.
pub fn rejudge(doc: &Value) -> Result<Option<(Value, bool, usize)>, String> {
    let Some(t) = read_probe_trace(doc)? else {
        return Ok(None);
    };
    let (_, fresh, same) = rejudge_trace(doc, &t);
    Ok(Some((fresh, same, t.records.len())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::judge::{SessionError, rec};
    use crate::probe::scenario;

    /// An MCP 2026-07-28 session of scenario `name`: a call, its cancel, a barrier, and the
    /// call's answer (`answer`) before the barrier's.
    fn outcome(name: &'static str, answer: &str) -> Outcome {
        let ctx = Context::new(Dialect::Mcp20260728);
        let records = vec![
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"ping"}"#,
            ),
            rec(Dir::Received, answer),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","result":{}}"#,
            ),
        ];
        Outcome {
            name,
            seed: 0,
            judgement: judge_scenario(&ctx, name, &records),
            records,
            end: PeerEnd::no_process(),
            trace: None,
        }
    }

    /// A run is a pass only where every part is: one session that could not be decided makes
    /// the run `vacuous` beside one that passed, and says which; no session at all is not a
    /// pass either.
    /// The cells of the table row of scenario `name` in the report `text`.
    fn row_cells<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .split_whitespace()
            .skip(2)
            .collect()
    }

    #[test]
    fn one_undecided_session_makes_the_run_vacuous() {
        let name = scenario::by_name("cancel-during-work")
            .map(|s| s.name)
            .expect("the scenario exists");
        let crossed = outcome(name, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(crossed.judgement.status(), Status::Pass);
        let undecided = outcome(
            name,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"Request cancelled"}}"#,
        );
        assert_eq!(undecided.judgement.status(), Status::Vacuous);
        let both = [crossed, undecided];
        assert_eq!(overall(&both[..1]), Status::Pass);
        assert_eq!(overall(&both), Status::Vacuous);
        let why = run_vacuous_because(&both);
        assert!(why[0].starts_with("1 of 2 sessions"), "{why:?}");
        assert!(
            run_text(Dialect::Mcp20260728, Framing::Ndjson, &[], &both)
                .ends_with("verdict: vacuous\n")
        );
        assert_eq!(
            run_json(Dialect::Mcp20260728, Framing::Ndjson, &[], &both)["verdict"],
            "vacuous"
        );
        assert_eq!(overall(&[]), Status::Vacuous);
        // The undecided session's row shows no rule as held.
        let text = run_text(Dialect::Mcp20260728, Framing::Ndjson, &[], &both);
        let row = |n: usize| -> Vec<&str> {
            let line = text.lines().filter(|l| l.starts_with(name)).nth(n).unwrap();
            line.split_whitespace().skip(2).collect()
        };
        assert!(row(0).contains(&"."), "{text}");
        assert!(!row(1).contains(&".") && row(1).contains(&"?"), "{text}");
        // Nor does one that broke a rule but tested nothing of the rest.
        let mut failed = outcome(name, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        failed
            .judgement
            .verdict
            .violations
            .push(cancelcheck_properties::Violation {
                invariant: InvariantId::SingleResolution,
                strength: Strength::Must,
                event: 0,
                id: None,
            });
        failed
            .judgement
            .vacuous_because
            .push("the session holds no cancel".into());
        assert_eq!(failed.judgement.status(), Status::Fail);
        let text = run_text(Dialect::Mcp20260728, Framing::Ndjson, &[], &[failed]);
        let cells = row_cells(&text, name);
        assert!(cells.contains(&"E") && cells.contains(&"?"), "{text}");
        assert!(!cells.contains(&"."), "{text}");
        // Nor one that ended in an error: a cancel that killed the peer held nothing (its
        // harmless-cancel rule among them), whatever else the session showed.
        let mut gone = outcome(name, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(gone.judgement.status(), Status::Pass);
        gone.judgement.errors.push(SessionError {
            kind: "peer-gone",
            offset: None,
            message: "the peer exited after the cancel".into(),
        });
        let text = run_text(Dialect::Mcp20260728, Framing::Ndjson, &[], &[gone]);
        let cells = row_cells(&text, name);
        assert!(cells.contains(&"?") && !cells.contains(&"."), "{text}");
    }
}
