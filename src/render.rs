//! Renderings of a trace for people: a text timeline, a mermaid `sequenceDiagram` and one
//! HTML page holding both, each marking every event that breaks an invariant.

use crate::trace_json::event_json;
use crate::wire::{Sessions, message_json_in};
use cancelcheck_model::{Input, Message, Output, Party};
use cancelcheck_properties::tree::CancelReason;
use cancelcheck_properties::{Checker, Event, RequestTree, Violation};
use cancelcheck_sim::Trace;
use serde_json::Value;
use std::fmt::Write;

/// One line per event (`index  time  party  kind  details`), violations marked where they
/// occurred, then the verdict.
pub fn text(t: &Trace) -> String {
    let d = t.scenario.dialect;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "dialect {}  behavior {}  {}",
        d.id(),
        t.scenario.behaviour.name(),
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
    let violations = every_violation(t);
    let mut sessions = Sessions::default();
    for (i, e) in t.events.iter().enumerate() {
        let mut j = event_json(d, i, e, &mut sessions);
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
        for v in violations.iter().filter(|v| v.event == i as u64) {
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

/// How a trace came about, in words: `seed N` or `explorer schedule of N steps`.
pub fn origin_text(t: &Trace) -> String {
    match &t.origin {
        cancelcheck_sim::Origin::Seed(s) => format!("seed {s}"),
        cancelcheck_sim::Origin::Schedule(s) => {
            let n = s.len().saturating_sub(1);
            format!(
                "explorer schedule of {n} {}",
                if n == 1 { "step" } else { "steps" }
            )
        }
    }
}

/// The verdict's line: its word, as `run` says it of this one run (see [`Trace::status`]),
/// and what the word means: `verdict: warn (only SHOULDs or notes broken)`.
pub fn verdict_line(t: &Trace) -> String {
    let (status, _) = t.status();
    format!("verdict: {} ({})", status.as_str(), status.meaning())
}

/// The verdict in a few lines: its word (what `run` says of this one run), each violation with
/// its clause or why nothing broken is vacuous, and the races reached.
pub fn verdict_text(t: &Trace) -> String {
    let d = t.scenario.dialect;
    let v = &t.verdict;
    let (status, vacuous) = t.status();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "verdict: {} ({}; {} events{})",
        status.as_str(),
        status.meaning(),
        v.events,
        if v.quiescent {
            ""
        } else {
            ", cut short by max_events"
        }
    );
    for why in &vacuous {
        let _ = writeln!(out, "  vacuous: {}", why.why);
    }
    if !v.passed() {
        // Breaches, and the events they happen at (one event may break several invariants).
        let every = every_violation(t);
        let mut at: Vec<u64> = every.iter().map(|x| x.event).collect();
        at.dedup();
        let events = match at.len() {
            1 => "1 event breaks".to_string(),
            n => format!("{n} events break"),
        };
        let breaches = if every.len() > at.len() {
            format!(" ({} breaches)", every.len())
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {events} an invariant{breaches} (each marked ✗ where it happens); below, the first of each invariant:",
        );
        for x in &v.violations {
            let clause = x.invariant.info().cite_in(d).unwrap_or_default();
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
    for a in &v.set_aside {
        let _ = writeln!(
            out,
            "  set aside: {} about {} request {} ({})",
            a.invariant.name(),
            a.requester.name(),
            a.id,
            cancelcheck_properties::SetAside::WHY
        );
    }
    for e in &v.excused {
        let _ = writeln!(
            out,
            "  excused from eventual-resolution: {} request {} (its {} was lost)",
            e.requester.name(),
            e.id,
            e.lost.as_str()
        );
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

/// A message in the wire's own words: the method (or ABP's `type`), the id, and the params,
/// result or error as JSON, cut to a readable length (the sessions of the run read so far).
pub fn wire_label(
    d: cancelcheck_model::Dialect,
    from: Party,
    m: &Message,
    sessions: &Sessions,
) -> String {
    json_label(&message_json_in(d, from, m, sessions))
}

/// A JSON-RPC (or ABP) message's label: the method (or ABP's `type`), the id, and the params,
/// result or error, cut to a readable length.
pub fn json_label(j: &Value) -> String {
    let Some(obj) = j.as_object() else {
        return j.to_string();
    };
    let compact = |v: &Value| clip_chars(&v.to_string(), 60);
    let id = obj
        .get("id")
        .map(|id| format!("id={id} "))
        .unwrap_or_default();
    if let Some(method) = obj.get("method").and_then(Value::as_str) {
        let params = obj.get("params").map(compact).unwrap_or_default();
        return format!("{id}{method} {params}").trim_end().to_string();
    }
    if let Some(e) = obj.get("error") {
        let code = e.get("code").map(Value::to_string).unwrap_or_default();
        let msg = e.get("message").map(Value::to_string).unwrap_or_default();
        return format!("{id}error {code} {msg}").trim_end().to_string();
    }
    if let Some(r) = obj.get("result") {
        return format!("{id}result {}", compact(r));
    }
    // ABP: its own objects, named by `type`.
    let name = obj.get("type").and_then(Value::as_str).unwrap_or("message");
    let rest: serde_json::Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| *k != "type")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    format!("{name} {}", compact(&Value::Object(rest)))
}

/// `s` cut to `n` characters, with `…` where it was cut.
pub fn clip_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(n).collect();
        out.push('…');
        out
    }
}

/// `s` with each character of `table` written as its replacement.
fn replace_chars(s: &str, table: &[(char, &str)]) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match table.iter().find(|(k, _)| *k == c) {
            Some((_, r)) => out.push_str(r),
            None => out.push(c),
        }
    }
    out
}

/// Text made safe for a mermaid message, note or quoted label: its statement separator,
/// comment and entity characters written as mermaid entities.
pub fn mermaid_text(s: &str) -> String {
    replace_chars(
        s,
        &[
            ('#', "#35;"),
            (';', "#59;"),
            ('"', "#quot;"),
            ('<', "#lt;"),
            ('>', "#gt;"),
            ('%', "#37;"),
        ],
    )
}

fn who(p: Party) -> &'static str {
    match p {
        Party::Client => "C",
        Party::Server => "S",
    }
}

/// An event in the notation of `properties/src/notation.rs`, without its party.
fn said(e: &Event) -> String {
    let line = cancelcheck_properties::notation::format(e);
    line.strip_prefix("client ")
        .or_else(|| line.strip_prefix("server "))
        .unwrap_or(&line)
        .to_string()
}

/// Every event that breaks an invariant, not only the first of each invariant that the
/// verdict keeps: the trace's events are fed to a fresh checker, which forgets which
/// invariants it already reported before each input (its records of the requests are kept,
/// so what it judges is unchanged). A break inside one input's own outputs is counted once.
/// The first of each invariant is the verdict's own violation.
pub fn every_violation(t: &Trace) -> Vec<Violation> {
    checked(t, true).take_verdict().violations
}

/// A fresh checker set up as the trace's run's own was (its dialect, the link's order told).
fn fresh_checker(t: &Trace) -> Checker {
    let mut checker = Checker::new(
        t.scenario.dialect,
        usize::from(t.scenario.workload.requests),
    );
    checker.set_fifo(t.scenario.link.order == cancelcheck_sim::link::Order::Fifo);
    checker
}

/// A fresh checker fed the trace's events, as the run's own was (the link's order told);
/// with `every`, it forgets which invariants it reported before each input (see
/// [`every_violation`]).
pub fn checked(t: &Trace, every: bool) -> Checker {
    let mut checker = fresh_checker(t);
    for e in &t.events {
        if every && matches!(e.event, Event::Input { .. }) {
            checker.forget_reported();
        }
        checker.observe(&e.event);
    }
    checker
}

/// The trace's request tree, read with a checker set up as the run's own was (see
/// [`checked`]): its drawing agrees with that checker's verdict
/// ([`RequestTree::checker`]).
pub fn request_tree(t: &Trace) -> RequestTree {
    let mut tree = RequestTree::with_checker(fresh_checker(t));
    tree.observe_all(t.events.iter().map(|e| &e.event));
    tree
}

/// How a message's arrow ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arrow {
    /// A request or response, received.
    Call,
    /// A notification, received.
    Notify,
    /// Lost by the network.
    Lost,
    /// Still on its way when the run ended.
    NeverDelivered,
}

/// Where a note stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Over {
    One(Party),
    Both,
}

/// One row of a sequence diagram.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Row {
    /// A message from a party to the other.
    Message {
        from: Party,
        arrow: Arrow,
        label: String,
    },
    /// A note; `violation` for an event that breaks an invariant.
    Note {
        over: Over,
        text: String,
        violation: bool,
    },
}

/// The rows of a trace's sequence diagram, in the wire's own words. Each message is drawn
/// when it is received; one lost is drawn with a cross where the network lost it, and one
/// still on its way when the run ended with a cross at the end, labelled as never delivered.
/// Work, timers and what each party hands its application are notes in the event notation;
/// every event that breaks an invariant gets a note right after it, naming the invariant,
/// its strength and the event. A nested request's arrow names the request it was sent for, and
/// a cancel sent in a cascade the request whose cancel it carries on (see [`nesting_notes`]).
fn rows(t: &Trace) -> Vec<Row> {
    let d = t.scenario.dialect;
    let violations = every_violation(t);
    let nesting = nesting_notes(t);
    let mut rows = Vec::new();
    let note = |over: Over, text: String| Row::Note {
        over,
        text,
        violation: false,
    };
    // Messages sent and not yet received or lost, per sender, in the order sent (a copy made
    // by the network counts as one more), each with what its arrow says of the request tree.
    let mut in_flight: Vec<(Party, Message, Option<&str>)> = Vec::new();
    // Which session each request runs in, read up to the event being drawn.
    let mut sessions = Sessions::default();
    let label = |sessions: &Sessions, from: Party, m: &Message, tree: Option<&str>| {
        let wire = wire_label(d, from, m, sessions);
        match tree {
            Some(s) => format!("{wire} {s}"),
            None => wire,
        }
    };
    for (i, e) in t.events.iter().enumerate() {
        if let Event::Output { party, output } = e.event {
            sessions.observe(party, output);
        }
        let label = |from: Party, m: &Message, tree: Option<&str>| label(&sessions, from, m, tree);
        match e.event {
            Event::Output {
                party,
                output: Output::Send(m),
            } => in_flight.push((party, m, nesting.get(&i).map(String::as_str))),
            Event::Duplicated { from, msg } => {
                let tree = in_flight
                    .iter()
                    .find(|(p, x, _)| *p == from && *x == msg)
                    .and_then(|e| e.2);
                in_flight.push((from, msg, tree));
                rows.push(note(
                    Over::Both,
                    format!("network duplicates {}", label(from, &msg, tree)),
                ));
            }
            Event::Input {
                party,
                input: Input::Receive(m),
            } => {
                let tree = take_in_flight(&mut in_flight, party.peer(), &m);
                let arrow = if matches!(m, Message::Request { .. } | Message::Response { .. }) {
                    Arrow::Call
                } else {
                    Arrow::Notify
                };
                rows.push(Row::Message {
                    from: party.peer(),
                    arrow,
                    label: label(party.peer(), &m, tree),
                });
            }
            Event::Lost { from, msg } => {
                let tree = take_in_flight(&mut in_flight, from, &msg);
                rows.push(Row::Message {
                    from,
                    arrow: Arrow::Lost,
                    label: format!("LOST: {}", label(from, &msg, tree)),
                });
            }
            Event::End { .. } => {
                for (from, m, tree) in in_flight.drain(..) {
                    rows.push(Row::Message {
                        from,
                        arrow: Arrow::NeverDelivered,
                        label: format!(
                            "NEVER DELIVERED (in flight at the end): {}",
                            label(from, &m, tree)
                        ),
                    });
                }
                rows.push(note(Over::Both, said(&e.event)));
            }
            Event::Input {
                input: Input::Disconnected,
                party: Party::Client,
            } => rows.push(note(Over::Both, "disconnected".into())),
            Event::Input { party, .. }
            | Event::Output {
                party,
                output:
                    Output::StartWork(_)
                    | Output::AbortWork(_)
                    | Output::Dropped(_)
                    | Output::Deliver { .. }
                    | Output::Crashed
                    | Output::Anomaly(_),
            } => rows.push(note(Over::One(party), said(&e.event))),
            _ => {}
        }
        for v in violations.iter().filter(|v| v.event == i as u64) {
            rows.push(Row::Note {
                over: Over::Both,
                text: format!(
                    "✗ {} ({}) at event {i}: {}",
                    v.invariant.name(),
                    v.strength.as_str(),
                    cancelcheck_properties::notation::format(&e.event)
                ),
                violation: true,
            });
        }
    }
    rows.push(note(Over::Both, verdict_line(t)));
    rows
}

/// Takes the first message `from` sent equal to `m` off the wire, giving back what its arrow
/// says of the request tree.
fn take_in_flight<'a>(
    in_flight: &mut Vec<(Party, Message, Option<&'a str>)>,
    from: Party,
    m: &Message,
) -> Option<&'a str> {
    let k = in_flight
        .iter()
        .position(|(p, x, _)| *p == from && x == m)?;
    in_flight.remove(k).2
}

/// What the arrows of a trace's request tree say, by the index of the event that sent the
/// message: a nested request `(for client id=P)`, naming the request it was sent on behalf of,
/// and a cancel sent in the cascade of a parent's cancel `(cascade of client id=P)`, as the ACP
/// text's own
/// diagram of a cascading cancel labels them. Empty for a trace without nesting.
fn nesting_notes(t: &Trace) -> std::collections::BTreeMap<usize, String> {
    let tree = request_tree(t);
    let mut notes = std::collections::BTreeMap::new();
    for (n, x) in tree.nodes() {
        let Some(p) = tree.parent(n) else { continue };
        let parent = format!("{} id={}", tree.node(p).requester.name(), tree.node(p).id);
        notes.insert(x.sent as usize, format!("(for {parent})"));
        if let Some(c) = x.cancel
            && c.reason == CancelReason::Cascade
            && matches!(
                t.events.get(c.event as usize).map(|e| e.event),
                Some(Event::Output {
                    output: Output::Send(Message::Cancel { .. }),
                    ..
                })
            )
        {
            notes.insert(c.event as usize, format!("(cascade of {parent})"));
        }
    }
    notes
}

/// A mermaid `sequenceDiagram` of the trace (see `rows` for what is drawn and how).
pub fn mermaid(t: &Trace) -> String {
    let mut out =
        String::from("sequenceDiagram\n    participant C as Client\n    participant S as Server\n");
    for row in rows(t) {
        let _ = match row {
            Row::Message { from, arrow, label } => writeln!(
                out,
                "    {}{}{}: {}",
                who(from),
                match arrow {
                    Arrow::Call => "->>",
                    Arrow::Notify => "-)",
                    Arrow::Lost => "-x",
                    Arrow::NeverDelivered => "--x",
                },
                who(from.peer()),
                mermaid_text(&label)
            ),
            Row::Note { over, text, .. } => writeln!(
                out,
                "    Note over {}: {}",
                match over {
                    Over::One(p) => who(p),
                    Over::Both => "C,S",
                },
                mermaid_text(&text)
            ),
        };
    }
    out
}

/// The sequence diagram as an SVG drawing that needs nothing but a browser: the same rows as
/// [`mermaid`], one a line, the client's lifeline on the left and the server's on the right.
pub fn svg(t: &Trace) -> String {
    const ROW: usize = 26;
    const LEFT: usize = 120;
    const RIGHT: usize = 760;
    const WIDTH: usize = 880;
    let rows = rows(t);
    let height = 70 + ROW * (rows.len() + 1);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" font-family=\"monospace\" font-size=\"12\">"
    );
    out.push_str("<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>\n");
    for (x, name) in [(LEFT, "Client"), (RIGHT, "Server")] {
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"10\" width=\"100\" height=\"28\" fill=\"#eaeaf7\" stroke=\"#333\"/><text x=\"{x}\" y=\"29\" text-anchor=\"middle\">{name}</text><line x1=\"{x}\" y1=\"38\" x2=\"{x}\" y2=\"{}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>",
            x - 50,
            height - 10
        );
    }
    for (k, row) in rows.iter().enumerate() {
        let y = 60 + ROW * k;
        match row {
            Row::Message { from, arrow, label } => {
                let (x1, x2) = match from {
                    Party::Client => (LEFT, RIGHT),
                    Party::Server => (RIGHT, LEFT),
                };
                let (dash, color) = match arrow {
                    Arrow::Call => ("", "#000"),
                    Arrow::Notify => (" stroke-dasharray=\"6 3\"", "#000"),
                    Arrow::Lost | Arrow::NeverDelivered => (" stroke-dasharray=\"2 3\"", "#b00020"),
                };
                // A message that never arrived stops halfway, ending in a cross.
                let end = match arrow {
                    Arrow::Lost | Arrow::NeverDelivered => (x1 + x2) / 2,
                    _ => x2,
                };
                let head = if matches!(arrow, Arrow::Call | Arrow::Notify) {
                    " marker-end=\"url(#head)\""
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "<line x1=\"{x1}\" y1=\"{y}\" x2=\"{end}\" y2=\"{y}\" stroke=\"{color}\"{dash}{head}/>"
                );
                if head.is_empty() {
                    let _ = writeln!(
                        out,
                        "<path d=\"M{a},{b} l8,8 M{a},{c} l8,-8\" stroke=\"{color}\" stroke-width=\"2\"/>",
                        a = end - 4,
                        b = y - 4,
                        c = y + 4
                    );
                }
                let _ = writeln!(
                    out,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{color}\">{}</text>",
                    (LEFT + RIGHT) / 2,
                    y - 4,
                    escape(label)
                );
            }
            Row::Note {
                over,
                text,
                violation,
            } => {
                let x = match over {
                    Over::One(Party::Client) => LEFT,
                    Over::One(Party::Server) => RIGHT,
                    Over::Both => (LEFT + RIGHT) / 2,
                };
                let (fill, color) = if *violation {
                    ("#fde7ea", "#b00020")
                } else {
                    ("#fffbe6", "#333")
                };
                let w = (text.chars().count() * 7 + 12).min(WIDTH - 20);
                let x0 = x.saturating_sub(w / 2).clamp(10, WIDTH - 10 - w);
                let _ = writeln!(
                    out,
                    "<rect x=\"{x0}\" y=\"{}\" width=\"{w}\" height=\"20\" fill=\"{fill}\" stroke=\"{color}\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{color}\">{}</text>",
                    y - 14,
                    x0 + w / 2,
                    y,
                    escape(text)
                );
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

/// One self-contained HTML page a person can open: the verdict, the sequence diagram drawn
/// as inline SVG (nothing is loaded from elsewhere), the timeline, and the diagram's mermaid
/// source.
pub fn html(t: &Trace) -> String {
    let title = format!(
        "cancelcheck: {} {} {}",
        t.scenario.dialect.id(),
        t.scenario.behaviour.name(),
        origin_text(t)
    );
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>\nbody {{ font-family: sans-serif; margin: 2em; }}\npre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; }}\n</style>\n</head>\n<body>\n<h1>{title}</h1>\n<h2>Verdict</h2>\n<pre class=\"verdict\">{verdict}</pre>\n<h2>Sequence diagram</h2>\n{svg}<h2>Timeline</h2>\n<pre class=\"timeline\">{timeline}</pre>\n<h2>Mermaid source</h2>\n<pre class=\"mermaid-source\">{diagram}</pre>\n</body>\n</html>\n",
        title = escape(&title),
        verdict = escape(&verdict_text(t)),
        svg = svg(t),
        timeline = escape(&text(t)),
        diagram = escape(&mermaid(t)),
    )
}

/// `s` with HTML's special characters escaped (`&`, `<`, `>`, `"`).
pub fn escape(s: &str) -> String {
    replace_chars(
        s,
        &[
            ('&', "&amp;"),
            ('<', "&lt;"),
            ('>', "&gt;"),
            ('"', "&quot;"),
        ],
    )
}
