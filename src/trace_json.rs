//! A run's events and verdict as JSON (the trace file's `events` and `verdict`), built on the
//! wire codec's messages ([`message_json_in`]): each event adds the party, the virtual time and
//! what the endpoint did, so a trace reads as a timeline.

use crate::wire::{Sessions, id_json, message_json_in};
use cancelcheck_model::io::{Anomaly, Ignored, Refusal, Timer};
use cancelcheck_model::message::CancelCause;
use cancelcheck_model::{
    Command, Dialect, Input, Message, Outcome, Output, Party, Reply, RequestId,
};
use cancelcheck_properties::{Event, SetAside, Status, Verdict, Violation};
use cancelcheck_sim::Timed;
use serde_json::{Map, Value, json};

fn kebab<T: core::fmt::Debug>(v: &T) -> String {
    // `LateAnswer(3)` → `late-answer`: the variant name only, in kebab case.
    let s = format!("{v:?}");
    let name = s.split(['(', ' ', '{']).next().unwrap_or("");
    let mut out = String::with_capacity(name.len() + 4);
    for (i, ch) in name.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

fn timer_json(obj: &mut Map<String, Value>, t: Timer) {
    match t {
        Timer::RequestTimeout(id) => {
            obj.insert("timer".into(), json!("request-timeout"));
            obj.insert("id".into(), id_json(id));
        }
        Timer::InitTimeout => {
            obj.insert("timer".into(), json!("init-timeout"));
        }
    }
}

fn command_json(obj: &mut Map<String, Value>, c: Command) {
    let name = match c {
        Command::Initialize => "initialize",
        Command::Send { task } => {
            if task {
                obj.insert("task".into(), json!(true));
            }
            "send"
        }
        Command::Cancel(id) => {
            obj.insert("id".into(), id_json(id));
            "cancel"
        }
        Command::MalformedCancel => "malformed-cancel",
        Command::SendNested(parent) => {
            obj.insert("parent".into(), id_json(parent));
            "send-nested"
        }
    };
    obj.insert("command".into(), json!(name));
}

fn outcome_json(o: Outcome) -> Value {
    match o {
        Outcome::Reply(Reply::Full) => json!("result"),
        Outcome::Reply(Reply::Partial) => json!("partial-result"),
        Outcome::Reply(Reply::Initialized { .. }) => json!("initialized"),
        Outcome::Reply(Reply::Cancelled) => json!("cancelled-by-peer"),
        Outcome::Reply(Reply::Error(code)) => json!(format!("error {code}")),
        Outcome::Cancelled(CancelCause::User) => json!("cancelled"),
        Outcome::Cancelled(CancelCause::Timeout) => json!("timed-out"),
        Outcome::Cancelled(CancelCause::Parent) => json!("parent-cancelled"),
        Outcome::Disconnected => json!("disconnected"),
    }
}

fn ignored_id(i: Ignored) -> Option<RequestId> {
    match i {
        Ignored::LateAnswer(id)
        | Ignored::UnknownCancel(id)
        | Ignored::CancelAfterAnswer(id)
        | Ignored::UnsupportedCancel(id)
        | Ignored::RepeatedCancel(id) => Some(id),
        Ignored::MalformedCancel | Ignored::StaleTimer => None,
    }
}

fn anomaly_id(a: Anomaly) -> RequestId {
    match a {
        Anomaly::UnsolicitedResponse(id)
        | Anomaly::DuplicateResponse(id)
        | Anomaly::ActivityAfterAnswer(id)
        | Anomaly::DuplicateRequestId(id)
        | Anomaly::UnexpectedAck(id)
        | Anomaly::Illegal(id, _)
        | Anomaly::UnknownWork(id) => id,
    }
}

fn refusal_name(r: Refusal) -> String {
    kebab(&r)
}

/// One event as a JSON object: `i` (index), `t` (virtual µs), `kind`, and its details; the
/// run's events are read in order into `sessions`, this one too.
pub fn event_json(dialect: Dialect, i: usize, timed: &Timed, sessions: &mut Sessions) -> Value {
    if let Event::Output { party, output } = timed.event {
        sessions.observe(party, output);
    }
    let message_json = |dialect, from, msg: &Message| message_json_in(dialect, from, msg, sessions);
    let mut o = Map::new();
    o.insert("i".into(), json!(i));
    o.insert("t".into(), json!(timed.t));
    let party = |o: &mut Map<String, Value>, p: Party| {
        o.insert("party".into(), json!(p.name()));
    };
    let kind = match timed.event {
        Event::Input { party: p, input } => {
            party(&mut o, p);
            match input {
                Input::Receive(msg) => {
                    o.insert("message".into(), message_json(dialect, p.peer(), &msg));
                    "receive"
                }
                Input::Command(c) => {
                    command_json(&mut o, c);
                    "command"
                }
                Input::WorkDone(id) => {
                    o.insert("id".into(), id_json(id));
                    "work-done"
                }
                Input::WorkProgress(id) => {
                    o.insert("id".into(), id_json(id));
                    "work-progress"
                }
                Input::InternalCancel(id) => {
                    o.insert("id".into(), id_json(id));
                    "internal-cancel"
                }
                Input::TimerFired(t) => {
                    timer_json(&mut o, t);
                    "timer-fired"
                }
                Input::Disconnected => "disconnected",
                Input::StreamClosed(id) => {
                    o.insert("id".into(), id_json(id));
                    "stream-closed"
                }
                Input::StreamLost(id) => {
                    o.insert("id".into(), id_json(id));
                    "stream-lost"
                }
                Input::StreamResumed(id) => {
                    o.insert("id".into(), id_json(id));
                    "stream-resumed"
                }
            }
        }
        Event::Output { party: p, output } => {
            party(&mut o, p);
            match output {
                Output::Send(msg) => {
                    o.insert("message".into(), message_json(dialect, p, &msg));
                    "send"
                }
                Output::Deliver { id, outcome } => {
                    o.insert("id".into(), id_json(id));
                    o.insert("outcome".into(), outcome_json(outcome));
                    "deliver"
                }
                Output::Nested { parent, child } => {
                    o.insert("id".into(), id_json(child));
                    o.insert("parent".into(), id_json(parent));
                    "nested"
                }
                Output::StartWork(id) => {
                    o.insert("id".into(), id_json(id));
                    "work-start"
                }
                Output::AbortWork(id) => {
                    o.insert("id".into(), id_json(id));
                    "work-abort"
                }
                Output::Dropped(id) => {
                    o.insert("id".into(), id_json(id));
                    "dropped"
                }
                Output::ArmTimer(t) => {
                    timer_json(&mut o, t);
                    "timer-armed"
                }
                Output::DisarmTimer(t) => {
                    timer_json(&mut o, t);
                    "timer-disarmed"
                }
                Output::Refused(c, r) => {
                    command_json(&mut o, c);
                    o.insert("reason".into(), json!(refusal_name(r)));
                    "refused"
                }
                Output::Ignored(what) => {
                    o.insert("what".into(), json!(kebab(&what)));
                    if let Some(id) = ignored_id(what) {
                        o.insert("id".into(), id_json(id));
                    }
                    "ignored"
                }
                Output::Anomaly(a) => {
                    o.insert("what".into(), json!(kebab(&a)));
                    o.insert("id".into(), id_json(anomaly_id(a)));
                    "anomaly"
                }
                Output::Crashed => "crashed",
                Output::CloseStream(id) => {
                    o.insert("id".into(), id_json(id));
                    "stream-close"
                }
            }
        }
        Event::Unmodelled { party: p } => {
            party(&mut o, p);
            "unmodelled"
        }
        Event::Lost { from, msg } => {
            o.insert("from".into(), json!(from.name()));
            o.insert("message".into(), message_json(dialect, from, &msg));
            "lost"
        }
        Event::Duplicated { from, msg } => {
            o.insert("from".into(), json!(from.name()));
            o.insert("message".into(), message_json(dialect, from, &msg));
            "duplicated"
        }
        Event::End {
            quiescent,
            open_incoming,
        } => {
            o.insert("quiescent".into(), json!(quiescent));
            o.insert(
                "open_incoming".into(),
                json!({"client": open_incoming[0], "server": open_incoming[1]}),
            );
            "end"
        }
    };
    o.insert("kind".into(), json!(kind));
    Value::Object(o)
}

/// How much a finding's JSON says: each level adds to the one before it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum FindingDetail {
    /// `invariant` and `strength` (a probe run's summary, which adds the scenario's `trace`).
    Brief,
    /// And `event`, `id` and `clause` (`null` where none): where it happened and what it
    /// breaks (a probe trace's verdict).
    Located,
    /// And `statement`, the invariant in one sentence (a simulated run's trace).
    Full,
}

/// One finding (a broken invariant) as JSON: the one builder of the shape every output uses,
/// its fields always in this order, `detail` saying how many of them.
pub fn finding_json(dialect: Dialect, v: &Violation, detail: FindingDetail) -> Value {
    let info = v.invariant.info();
    let mut o = Map::new();
    o.insert("invariant".into(), json!(info.name));
    o.insert("strength".into(), json!(v.strength.as_str()));
    if detail >= FindingDetail::Located {
        o.insert("event".into(), json!(v.event));
        o.insert("id".into(), json!(v.id.map(id_json)));
        o.insert("clause".into(), json!(info.cite_in(dialect)));
    }
    if detail >= FindingDetail::Full {
        o.insert("statement".into(), json!(info.statement));
    }
    Value::Object(o)
}

/// The verdict as JSON: `result` (the word of `status`: what `run` says of this one run,
/// `fail`, `warn`, `vacuous` or `pass`), `violations` (with clause and statement),
/// `races_reached`, `events`, `quiescent`, and where it is vacuous `vacuous_because`.
pub fn verdict_json(dialect: Dialect, v: &Verdict, status: Status, vacuous: &[String]) -> Value {
    let violations: Vec<Value> = v
        .violations
        .iter()
        .map(|x| finding_json(dialect, x, FindingDetail::Full))
        .collect();
    let reached: Vec<&str> = v.reached.iter().map(|r| r.name()).collect();
    let mut out = json!({
        "result": status.as_str(),
        "violations": violations,
        "races_reached": reached,
        "events": v.events,
        "quiescent": v.quiescent,
    });
    if !vacuous.is_empty() {
        out["vacuous_because"] = json!(vacuous);
    }
    if !v.excused.is_empty() {
        let excused: Vec<Value> = v
            .excused
            .iter()
            .map(|e| json!({"requester": e.requester.name(), "id": id_json(e.id), "lost": e.lost.as_str()}))
            .collect();
        out["excused"] = json!(excused);
    }
    if !v.set_aside.is_empty() {
        let aside: Vec<Value> = v
            .set_aside
            .iter()
            .map(|a| {
                json!({
                    "invariant": a.invariant.name(),
                    "requester": a.requester.name(),
                    "id": id_json(a.id),
                    "why": SetAside::WHY,
                })
            })
            .collect();
        out["set_aside"] = json!(aside);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cancelcheck_model::message::Method;

    fn out(party: Party, output: Output) -> Timed {
        Timed {
            t: 0,
            event: Event::Output { party, output },
        }
    }

    fn request(id: i64, method: Method) -> Output {
        Output::Send(Message::Request {
            id: RequestId::Int(id),
            method,
        })
    }

    /// The agent's permission request names the session of the prompt turn it serves, and
    /// one sent for no prompt turn names none the run opened.
    #[test]
    fn an_agents_request_names_the_session_of_its_prompt() {
        let run = [
            out(Party::Client, request(1, Method::Work { task: false })),
            out(Party::Client, request(2, Method::Work { task: false })),
            out(
                Party::Server,
                Output::Nested {
                    parent: RequestId::Int(2),
                    child: RequestId::Int(0),
                },
            ),
            out(Party::Server, request(0, Method::ServerWork)),
            out(Party::Server, request(1, Method::ServerWork)),
        ];
        let mut sessions = Sessions::default();
        let sent: Vec<Value> = run
            .iter()
            .enumerate()
            .map(|(i, e)| event_json(Dialect::Acp, i, e, &mut sessions))
            .collect();
        let session = |i: usize| sent[i]["message"]["params"]["sessionId"].clone();
        assert_eq!(session(0), json!("sess-1"));
        assert_eq!(session(1), json!("sess-2"));
        assert_eq!(
            sent[3]["message"]["method"],
            json!("session/request_permission")
        );
        assert_eq!(session(3), json!("sess-2"));
        assert_eq!(session(4), json!("s1"));
        assert_eq!(
            sessions.of(Party::Server, RequestId::Int(0)),
            Some(RequestId::Int(2))
        );
    }

    /// Every form of a finding is one builder's: its fields in one order, each level of
    /// detail adding to the one before (the probe's run summary, a probe trace, a simulated
    /// run's trace).
    #[test]
    fn a_finding_has_one_shape_in_three_levels_of_detail() {
        use cancelcheck_properties::{InvariantId, Strength};
        let v = Violation {
            invariant: InvariantId::CancelErrorCode,
            strength: Strength::Must,
            event: 4,
            id: Some(RequestId::Int(7)),
        };
        let keys = |detail| -> Vec<String> {
            match finding_json(Dialect::Lsp, &v, detail) {
                Value::Object(o) => o.keys().cloned().collect(),
                other => panic!("not an object: {other}"),
            }
        };
        let brief = ["invariant", "strength"];
        let located = ["invariant", "strength", "event", "id", "clause"];
        let full = [
            "invariant",
            "strength",
            "event",
            "id",
            "clause",
            "statement",
        ];
        assert_eq!(keys(FindingDetail::Brief), brief);
        assert_eq!(keys(FindingDetail::Located), located);
        assert_eq!(keys(FindingDetail::Full), full);
        let f = finding_json(Dialect::Lsp, &v, FindingDetail::Full);
        assert_eq!(f["invariant"], "cancel-error-code");
        assert_eq!(f["strength"], "MUST");
        assert_eq!(f["event"], 4);
        assert_eq!(f["id"], 7);
        assert!(
            f["clause"]
                .as_str()
                .is_some_and(|c| c.contains("(Cancellation Support)")),
            "{f}"
        );
        // Where the invariant does not apply, `clause` is null, not missing.
        let abp = finding_json(Dialect::Abp, &v, FindingDetail::Located);
        assert_eq!(abp["clause"], Value::Null);
    }
}
