//! `cancelcheck replay` of a probe trace: the recorded messages, re-judged, as a timeline
//! (text), a mermaid sequence diagram, one HTML page, or JSON. Messages are numbered `#N` as
//! they are in the file (`messages[N]`), and each finding is shown at the message whose
//! reading broke the rule (or at the session's end).

use super::judge::{Dir, Judgement, Record};
use super::report::{self, ProbeTrace};
use crate::render::{clip_chars, escape, json_label, mermaid_text};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;

/// How a probe trace is shown.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum View {
    /// A timeline, one message a line, then the findings and the verdict.
    Text,
    /// A mermaid `sequenceDiagram`.
    Mermaid,
    /// The timeline and the verdict as JSON.
    Json,
    /// One self-contained page: the verdict, the timeline, the diagram's mermaid source.
    Html,
}

/// A message's label: what it is in the wire's own words, cut to a readable length.
fn label(rec: &Record) -> String {
    if rec.dir == Dir::Note {
        return clip_chars(&rec.text, 100);
    }
    match serde_json::from_str::<Value>(&rec.text) {
        Ok(v) => json_label(&v),
        Err(_) => format!("(not JSON) {}", clip_chars(&rec.text, 60)),
    }
}

/// Whether a message is a notification (no answer expected): drawn as an open arrow.
fn is_notification(rec: &Record) -> bool {
    serde_json::from_str::<Value>(&rec.text)
        .is_ok_and(|v| v.get("method").is_some() && v.get("id").is_none())
}

/// A finding and the message it is shown at (`None`: the session's end).
struct Found {
    at: Option<usize>,
    text: String,
    cite: Option<String>,
}

fn found(t: &ProbeTrace, j: &Judgement) -> Vec<Found> {
    let d = t.ctx.dialect;
    let mut all: Vec<Found> = j
        .verdict
        .violations
        .iter()
        .map(|v| Found {
            at: j.record_of(v.event),
            text: format!("{} {}", v.strength.as_str(), v.invariant.name()),
            cite: v.invariant.info().cite_in(d),
        })
        .collect();
    all.extend(j.errors.iter().map(|e| Found {
        at: None,
        text: format!(
            "error {}{}: {}",
            e.kind,
            e.offset
                .map(|o| format!(" at byte {o}"))
                .unwrap_or_default(),
            e.message
        ),
        cite: None,
    }));
    all
}

fn at_text(at: Option<usize>) -> String {
    at.map_or("at the session's end".to_string(), |n| {
        format!("at message #{n}")
    })
}

fn time_ms(rec: &Record) -> String {
    format!("{:.3}", rec.t_us as f64 / 1000.0)
}

fn arrow(dir: Dir) -> &'static str {
    match dir {
        Dir::Sent => "probe -> peer",
        Dir::Received => "peer -> probe",
        Dir::Note => "note",
    }
}

/// The record's label, after its stream's (`[post-3] `) over Streamable HTTP.
fn on_stream(rec: &Record) -> String {
    match &rec.stream {
        Some(s) => format!("[{s}] {}", label(rec)),
        None => label(rec),
    }
}

fn text(file: &Path, doc: &Value, t: &ProbeTrace, j: &Judgement, same: bool) -> String {
    let mut out = format!(
        "{}: probe trace of scenario {} ({}): re-judged {} recorded messages; a probe trace cannot re-run the peer.\n",
        file.display(),
        t.scenario,
        t.ctx.dialect,
        t.records.len()
    );
    let found = found(t, j);
    let width = t.records.len().to_string().len() + 1;
    let _ = writeln!(
        out,
        "  {:>width$}  {:>10}  {:13}  message",
        "#", "ms", "direction"
    );
    for (n, rec) in t.records.iter().enumerate() {
        let marks: Vec<&str> = found
            .iter()
            .filter(|f| f.at == Some(n))
            .map(|f| f.text.as_str())
            .collect();
        let marks = if marks.is_empty() {
            String::new()
        } else {
            format!("   <- {}", marks.join(", "))
        };
        let _ = writeln!(
            out,
            "  {:>width$}  {:>10}  {:13}  {}{marks}",
            format!("#{n}"),
            time_ms(rec),
            arrow(rec.dir),
            on_stream(rec)
        );
    }
    if !found.is_empty() {
        let _ = writeln!(out, "findings (#N is messages[N] in the file):");
    }
    for f in &found {
        let at = if f.text.starts_with("error ") {
            String::new()
        } else {
            format!(" {}", at_text(f.at))
        };
        let _ = writeln!(out, "  {}{at}", f.text);
        if let Some(c) = &f.cite {
            let _ = writeln!(out, "    {c}");
        }
    }
    for a in &j.assumptions {
        let _ = writeln!(out, "  assuming: {a}");
    }
    for why in &j.vacuous_because {
        let _ = writeln!(out, "  vacuous: {why}");
    }
    if let Some(tail) = doc
        .get("peer_stderr_tail")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        let _ = writeln!(out, "peer's stderr (its end, as kept in the trace):");
        for l in tail.lines() {
            let _ = writeln!(out, "  | {}", report::printable(l));
        }
    }
    let _ = writeln!(out, "verdict: {} ({})", j.status().as_str(), matched(same));
    out
}

/// Whether the re-judged verdict is the recorded one, in words.
fn matched(same: bool) -> &'static str {
    if same {
        "as recorded"
    } else {
        "DIFFERS from the recorded verdict"
    }
}

fn mermaid(t: &ProbeTrace, j: &Judgement) -> String {
    let mut out =
        String::from("sequenceDiagram\n    participant P as probe\n    participant S as peer\n");
    let found = found(t, j);
    for (n, rec) in t.records.iter().enumerate() {
        let what = mermaid_text(&format!("#{n} {}", on_stream(rec)));
        let head = if is_notification(rec) { "-)" } else { "->>" };
        let _ = match rec.dir {
            Dir::Sent => writeln!(out, "    P{head}S: {what}"),
            Dir::Received => writeln!(out, "    S{head}P: {what}"),
            Dir::Note => writeln!(out, "    Note over P,S: {what}"),
        };
        for f in found.iter().filter(|f| f.at == Some(n)) {
            let _ = writeln!(out, "    Note over S: {}", mermaid_text(&f.text));
        }
    }
    for f in found.iter().filter(|f| f.at.is_none()) {
        let _ = writeln!(out, "    Note over P,S: {}", mermaid_text(&f.text));
    }
    out
}

fn json_view(t: &ProbeTrace, j: &Judgement, fresh: &Value, same: bool) -> Value {
    let timeline: Vec<Value> = t
        .records
        .iter()
        .enumerate()
        .map(|(n, r)| {
            let mut v = json!({"n": n, "t_us": r.t_us, "dir": r.dir.as_str(), "label": label(r)});
            // Streamable HTTP only: the stream it went on.
            if let Some(st) = &r.stream {
                v["stream"] = st.clone().into();
            }
            v
        })
        .collect();
    let findings: Vec<Value> = found(t, j)
        .into_iter()
        .map(|f| json!({"finding": f.text, "message": f.at, "clause": f.cite}))
        .collect();
    json!({"kind": "probe", "rejudged": true, "reran": false,
        "messages": t.records.len(), "timeline": timeline, "findings": findings,
        "verdict": fresh, "verdict_matches": same})
}

/// Shows a probe trace, re-judged, in `view`; `Ok(None)` if `doc` is not a probe trace. Exit
/// code 0 when the verdict is the recorded one, 1 when it differs.
pub fn show(file: &Path, doc: &Value, view: View) -> Result<Option<(String, u8)>, String> {
    let Some(t) = report::read_probe_trace(doc)? else {
        return Ok(None);
    };
    let (j, fresh, same) = report::rejudge_trace(doc, &t);
    let out = match view {
        View::Text => text(file, doc, &t, &j, same),
        View::Mermaid => mermaid(&t, &j),
        View::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&json_view(&t, &j, &fresh, same)).unwrap_or_default()
        ),
        View::Html => {
            let title = format!(
                "cancelcheck probe: {} {} ({})",
                t.ctx.dialect.id(),
                t.scenario,
                file.display()
            );
            let timeline = text(file, doc, &t, &j, same);
            format!(
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>\nbody {{ font-family: sans-serif; margin: 2em; }}\npre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; }}\n</style>\n</head>\n<body>\n<h1>{title}</h1>\n<h2>Verdict</h2>\n<pre class=\"verdict\">{verdict}</pre>\n<h2>Timeline</h2>\n<pre class=\"timeline\">{timeline}</pre>\n<h2>Mermaid source</h2>\n<pre class=\"mermaid-source\">{diagram}</pre>\n</body>\n</html>\n",
                title = escape(&title),
                verdict = escape(&format!("{} ({})", j.status().as_str(), matched(same))),
                timeline = escape(&timeline),
                diagram = escape(&mermaid(&t, &j)),
            )
        }
    };
    Ok(Some((out, u8::from(!same))))
}
