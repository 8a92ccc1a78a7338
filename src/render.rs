//! Renderings of a trace for people: a text timeline and a mermaid `sequenceDiagram`.

use crate::wire::{event_json, message_json};
use cancelcheck_model::{Input, Message, Output, Party};
use cancelcheck_properties::{Event, Verdict};
use cancelcheck_sim::Trace;
use serde_json::Value;
use std::fmt::Write;

fn violations_at(
    v: &Verdict,
    i: usize,
) -> impl Iterator<Item = &cancelcheck_properties::Violation> {
    v.violations.iter().filter(move |x| x.event == i as u64)
}

/// One line per event (`index  time  party  kind  details`), violations marked where they
/// occurred, then the verdict.
pub fn text(t: &Trace) -> String {
    let d = t.scenario.dialect;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "dialect {}  behavior {}  {}",
        d.id(),
        t.scenario.behavior.name(),
        origin_text(t)
    );
    if let Some(mix) = &t.mix {
        let _ = writeln!(out, "swarm mix: {mix}");
    }
    // Simulated time is in virtual microseconds; an explorer schedule counts steps.
    let unit = match t.origin {
        cancelcheck_sim::Origin::Seed(_) => "µs",
        cancelcheck_sim::Origin::Schedule(_) => " step",
    };
    for (i, e) in t.events.iter().enumerate() {
        let mut j = event_json(d, i, e);
        let Some(obj) = j.as_object_mut() else {
            continue;
        };
        let kind = obj
            .remove("kind")
            .and_then(|k| k.as_str().map(str::to_string))
            .unwrap_or_default();
        let party = obj
            .remove("party")
            .and_then(|k| k.as_str().map(str::to_string))
            .unwrap_or_default();
        obj.remove("i");
        obj.remove("t");
        let details = match obj.remove("message") {
            Some(m) => m.to_string(),
            None if obj.is_empty() => String::new(),
            None => Value::Object(obj.clone()).to_string(),
        };
        let _ = writeln!(
            out,
            "{i:>5} {:>8}{unit}  {party:<6}  {kind:<14} {details}",
            e.t
        );
        for v in violations_at(&t.verdict, i) {
            let _ = writeln!(
                out,
                "      ✗ {} ({}): {}",
                v.invariant.name(),
                v.strength.as_str(),
                v.invariant.info().statement
            );
        }
    }
    let _ = write!(out, "{}", verdict_text(t));
    out
}

fn origin_text(t: &Trace) -> String {
    match &t.origin {
        cancelcheck_sim::Origin::Seed(s) => format!("seed {s}"),
        cancelcheck_sim::Origin::Schedule(s) => {
            format!("explorer schedule of {} steps", s.len().saturating_sub(1))
        }
    }
}

/// The verdict in a few lines: pass/fail, each violation with its clause, races reached.
pub fn verdict_text(t: &Trace) -> String {
    let d = t.scenario.dialect;
    let v = &t.verdict;
    let mut out = String::new();
    if v.passed() {
        let _ = writeln!(
            out,
            "verdict: pass ({} events{})",
            v.events,
            if v.quiescent {
                ""
            } else {
                ", cut short by max_events"
            }
        );
    } else {
        let _ = writeln!(out, "verdict: FAIL ({} events)", v.events);
        for x in &v.violations {
            let clause = x
                .invariant
                .info()
                .application(d)
                .map(|a| format!("{}: {}", a.clause.file, a.clause.clause))
                .unwrap_or_default();
            let id = x.id.map(|id| format!(" request {id}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "  ✗ {} ({}) at event {}{id}\n      {}\n      spec: {clause}",
                x.invariant.name(),
                x.strength.as_str(),
                x.event,
                x.invariant.info().statement
            );
        }
    }
    let races: Vec<&str> = v.reached.iter().map(|r| r.name()).collect();
    let _ = writeln!(
        out,
        "races reached: {}",
        if races.is_empty() {
            "none".to_string()
        } else {
            races.join(", ")
        }
    );
    out
}

fn label(d: cancelcheck_model::Dialect, m: &Message) -> String {
    let j = message_json(d, m);
    let name = j
        .get("method")
        .or_else(|| j.get("type"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let id = m
        .request_id()
        .map(|id| format!(" id={id}"))
        .unwrap_or_default();
    match (m, name) {
        (Message::Response { reply, .. }, None) => {
            if let Some(e) = j.get("error") {
                format!("error {}{id}", e["code"])
            } else {
                format!("result {:?}{id}", reply).replace('"', "'")
            }
        }
        (_, Some(n)) => format!("{n}{id}"),
        (_, None) => format!("{}{id}", m.kind()),
    }
    .replace('"', "'")
    .replace(';', ",")
}

fn who(p: Party) -> &'static str {
    match p {
        Party::Client => "C",
        Party::Server => "S",
    }
}

/// A mermaid `sequenceDiagram`: each message drawn when it is received (lost ones with a
/// cross), work and outcomes as notes, violations as notes where they occurred.
pub fn mermaid(t: &Trace) -> String {
    let d = t.scenario.dialect;
    let mut out =
        String::from("sequenceDiagram\n    participant C as Client\n    participant S as Server\n");
    for (i, e) in t.events.iter().enumerate() {
        match e.event {
            Event::Input {
                party,
                input: Input::Receive(m),
            } => {
                let arrow = if matches!(m, Message::Request { .. } | Message::Response { .. }) {
                    "->>"
                } else {
                    "-)"
                };
                let _ = writeln!(
                    out,
                    "    {}{arrow}{}: {} (t={})",
                    who(party.peer()),
                    who(party),
                    label(d, &m),
                    e.t
                );
            }
            Event::Lost { from, msg } => {
                let _ = writeln!(
                    out,
                    "    {}-x{}: {} LOST",
                    who(from),
                    who(from.peer()),
                    label(d, &msg)
                );
            }
            Event::Input {
                party,
                input: Input::Command(c),
            } => {
                let _ = writeln!(
                    out,
                    "    Note over {}: app: {}",
                    who(party),
                    format!("{c:?}").to_lowercase()
                );
            }
            Event::Input {
                party,
                input: Input::TimerFired(timer),
            } => {
                let _ = writeln!(out, "    Note over {}: timer fired: {timer:?}", who(party));
            }
            Event::Input {
                input: Input::Disconnected,
                party: Party::Client,
            } => {
                let _ = writeln!(out, "    Note over C,S: disconnected");
            }
            Event::Output { party, output } => {
                let note = match output {
                    Output::StartWork(id) => Some(format!("work {id} starts")),
                    Output::AbortWork(id) => Some(format!("work {id} aborted")),
                    Output::Dropped(id) => Some(format!("drops {id} (no answer)")),
                    Output::Deliver { id, outcome } => Some(format!("{id} resolved: {outcome:?}")),
                    Output::Crashed => Some("CRASHED".to_string()),
                    Output::Anomaly(a) => Some(format!("anomaly: {a:?}")),
                    _ => None,
                };
                if let Some(n) = note {
                    let _ = writeln!(
                        out,
                        "    Note over {}: {}",
                        who(party),
                        n.replace('"', "'").replace(';', ",")
                    );
                }
            }
            _ => {}
        }
        for v in violations_at(&t.verdict, i) {
            let _ = writeln!(
                out,
                "    Note over C,S: ✗ {} ({})",
                v.invariant.name(),
                v.strength.as_str()
            );
        }
    }
    out
}

/// One self-contained HTML page: the sequence diagram (its mermaid source, drawn where the
/// page can load mermaid, and readable as text where it cannot), the timeline and the verdict.
pub fn html(t: &Trace) -> String {
    let title = format!(
        "cancelcheck: {} {} {}",
        t.scenario.dialect.id(),
        t.scenario.behavior.name(),
        origin_text(t)
    );
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>\nbody {{ font-family: sans-serif; margin: 2em; }}\npre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; }}\n.violation {{ color: #b00020; }}\n</style>\n</head>\n<body>\n<h1>{title}</h1>\n<h2>Verdict</h2>\n<pre class=\"verdict\">{verdict}</pre>\n<h2>Sequence diagram</h2>\n<pre class=\"mermaid\">{diagram}</pre>\n<h2>Timeline</h2>\n<pre class=\"timeline\">{timeline}</pre>\n</body>\n</html>\n",
        title = escape(&title),
        verdict = escape(&verdict_text(t)),
        diagram = escape(&mermaid(t)),
        timeline = escape(&text(t)),
    )
}

/// `s` with HTML's special characters escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}
