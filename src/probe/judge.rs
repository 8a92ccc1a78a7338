//! Judging a black-box peer from the wire alone.
//!
//! A probe session is recorded as the messages that crossed the wire, in the order the probe
//! sent or received them ([`Record`]). [`judge`] turns that record into the checker's
//! [`Event`]s and runs the same [`Checker`] as the simulator. It is a pure function of the
//! record, so `cancelcheck replay` re-judges a saved probe trace to the same verdict.
//!
//! What the peer did inside is unknown; only what it sent and what it must have read are
//! events:
//! - Everything the probe sent is received by the peer in order (stdio is a FIFO stream). That
//!   the peer *had read* a message is established only by evidence: an answer to a request the
//!   probe sent at or after it (the barrier after a cancel, or any later request), or an answer
//!   that says the request was cancelled (error -32800, which only a cancel asks for). Until
//!   then a message is in flight, so an answer that arrives before the barrier's answer may have
//!   crossed the cancel and is judged as the allowed side of that race.
//! - The peer exiting (or closing its stdout) before the probe closed its stdin is a crash,
//!   after reading all it was sent.
//! - ACP's `session/cancel` is a cancel of every prompt turn still open in the session.
//! - The probe's own side is the reference requester: it resolves a request when its answer
//!   arrives, or at cancel time where the dialect's requester does not wait (MCP).
//! - Requests still unanswered when the session ended are unresolved (`eventual-resolution`):
//!   a session ends when the peer exits after its input closed, or at the timeout.

use cancelcheck_model::message::{CancelCause, Method};
use cancelcheck_model::{Dialect, Input, Message, Outcome, Output, Party, Reply, RequestId};
use cancelcheck_properties::{Checker, Event, InvariantId, Strength, Verdict};
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::{IdMap, WireId, WireMessage, to_model};
use std::collections::{BTreeMap, BTreeSet};

/// Which way a record went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    /// Probe → peer.
    Sent,
    /// Peer → probe (one frame's body, or a framing error).
    Received,
    /// Something about the session itself (the peer exited, the probe timed out).
    Note,
}

impl Dir {
    /// `"sent"`, `"received"` or `"note"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::Sent => "sent",
            Dir::Received => "received",
            Dir::Note => "note",
        }
    }

    /// Parses [`Dir::as_str`].
    pub fn from_name(s: &str) -> Option<Dir> {
        match s {
            "sent" => Some(Dir::Sent),
            "received" => Some(Dir::Received),
            "note" => Some(Dir::Note),
            _ => None,
        }
    }
}

/// What a note says.
pub mod note {
    /// The peer exited or closed its stdout before the probe closed its stdin.
    pub const PEER_GONE: &str = "peer-gone";
    /// The probe closed the peer's stdin (the end of the scenario's steps).
    pub const STDIN_CLOSED: &str = "stdin-closed";
    /// The scenario's time ran out; the peer was killed.
    pub const TIMEOUT: &str = "timeout";
    /// Bytes on the peer's stdout that are not a frame (the text says where and why).
    pub const FRAMING: &str = "framing-error";
}

/// One thing that crossed the wire (or happened to the session), with its time.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Record {
    /// Microseconds since the peer was started.
    pub t_us: u64,
    /// Which way.
    pub dir: Dir,
    /// Byte offset of the frame in its stream (the peer's stdout for `Received`).
    pub offset: u64,
    /// The frame's body (lossy UTF-8), or for a note `kind: detail`.
    pub text: String,
}

/// A problem that is not a clause of the catalog but breaks the session: output that is not
/// JSON-RPC, broken framing, a peer that died or hung.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SessionError {
    /// `not-json-rpc`, `framing`, `peer-gone`, `timeout`.
    pub kind: &'static str,
    /// Where in the peer's output, for output problems.
    pub offset: Option<u64>,
    /// What happened.
    pub message: String,
}

/// The judgement of one recorded session.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// The checker's verdict.
    pub verdict: Verdict,
    /// The events it judged.
    pub events: Vec<Event>,
    /// Session errors, in order.
    pub errors: Vec<SessionError>,
    /// Invariants that apply to the dialect but that the wire alone cannot decide.
    pub not_observable: Vec<InvariantId>,
}

impl Judgement {
    /// `fail` (a MUST broken or a session error), `warn` (only SHOULDs) or `pass`.
    pub fn status(&self) -> &'static str {
        if !self.errors.is_empty() || self.verdict.failed() {
            "fail"
        } else if self
            .verdict
            .violations
            .iter()
            .any(|v| v.strength == Strength::Should)
        {
            "warn"
        } else {
            "pass"
        }
    }
}

/// The invariants of `dialect` a wire-only judge must report as not observable.
pub fn not_observable(dialect: Dialect) -> Vec<InvariantId> {
    InvariantId::all()
        .filter(|i| {
            let info = i.info();
            !info.observable_on_wire && info.application(dialect).is_some()
        })
        .collect()
}

struct SentMsg {
    /// The model messages it stands for (none for a barrier; one cancel per open prompt for
    /// ACP's `session/cancel`).
    models: Vec<Message>,
    /// The request's wire id, for requests.
    request: Option<WireId>,
    /// Whether the peer is known to have read it.
    read: bool,
}

/// Whether a message is ACP's `session/cancel` (a prompt turn's cancel).
fn is_session_cancel(dialect: Dialect, msg: &WireMessage) -> bool {
    matches!(dialect, Dialect::Acp | Dialect::AcpRfd) && msg.method() == Some("session/cancel")
}

/// The probe resolving one of its requests.
fn delivered(id: RequestId, outcome: Outcome) -> Event {
    Event::Output {
        party: Party::Client,
        output: Output::Deliver { id, outcome },
    }
}

/// Judges one recorded session (see the module documentation).
pub fn judge(ctx: &Context, records: &[Record]) -> Judgement {
    let dialect = ctx.dialect;
    let rules = dialect.rules();
    let mut checker = Checker::new(dialect, 16);
    checker.set_fifo(true);
    let mut events = Vec::new();
    let mut errors = Vec::new();
    let mut ids = IdMap::new();
    let mut sent: Vec<SentMsg> = Vec::new();
    // Model requests the probe sent: their method, and whether they are resolved.
    let mut methods: BTreeMap<RequestId, Method> = BTreeMap::new();
    let mut resolved: BTreeSet<RequestId> = BTreeSet::new();
    let mut gone = false;
    let mut emit = |ev: Event, events: &mut Vec<Event>| {
        checker.observe(&ev);
        events.push(ev);
    };
    // Marks everything sent up to index `upto` (inclusive) as read by the peer.
    let read_upto = |upto: usize,
                     sent: &mut Vec<SentMsg>,
                     events: &mut Vec<Event>,
                     emit: &mut dyn FnMut(Event, &mut Vec<Event>)| {
        for s in sent.iter_mut().take(upto + 1) {
            if !s.read {
                s.read = true;
                for &m in &s.models {
                    emit(
                        Event::Input {
                            party: Party::Server,
                            input: Input::Receive(m),
                        },
                        events,
                    );
                }
            }
        }
    };
    for rec in records {
        match rec.dir {
            Dir::Note => {
                let (kind, detail) = rec.text.split_once(": ").unwrap_or((&rec.text, ""));
                match kind {
                    note::PEER_GONE if !gone => {
                        gone = true;
                        if !sent.is_empty() {
                            read_upto(sent.len() - 1, &mut sent, &mut events, &mut emit);
                        }
                        emit(
                            Event::Output {
                                party: Party::Server,
                                output: Output::Crashed,
                            },
                            &mut events,
                        );
                        errors.push(SessionError {
                            kind: "peer-gone",
                            offset: None,
                            message: detail.to_string(),
                        });
                    }
                    note::TIMEOUT => errors.push(SessionError {
                        kind: "timeout",
                        offset: None,
                        message: detail.to_string(),
                    }),
                    note::FRAMING => errors.push(SessionError {
                        kind: "framing",
                        offset: Some(rec.offset),
                        message: detail.to_string(),
                    }),
                    _ => {}
                }
            }
            Dir::Sent => {
                let Ok(msg) = WireMessage::parse(rec.text.as_bytes()) else {
                    continue;
                };
                let request = match &msg {
                    WireMessage::Request { id, .. } => Some(id.clone()),
                    _ => None,
                };
                let models: Vec<Message> = if is_session_cancel(dialect, &msg) {
                    // ACP: `session/cancel` cancels the prompt turns still open.
                    methods
                        .iter()
                        .filter(|(id, m)| **m == Method::Work && !resolved.contains(id))
                        .map(|(id, _)| Message::Cancel {
                            id: *id,
                            session: true,
                        })
                        .collect()
                } else if matches!(msg, WireMessage::Response { .. }) {
                    // The probe's answers to the peer's own requests (ACP permission requests,
                    // anything answered -32601): the model has no such requests.
                    Vec::new()
                } else {
                    to_model(ctx, &msg, &mut ids, |_| None)
                        .into_iter()
                        .collect()
                };
                for &m in &models {
                    if let Message::Request { id, method } = m {
                        methods.insert(id, method);
                    }
                    if let Message::Cancel { id, .. } = m
                        && !methods.contains_key(&id)
                    {
                        // The probe's own cancel of an id it never sent is a stimulus (the
                        // unknown-id and malformed scenarios): the peer is judged on it, the
                        // probe is not.
                        continue;
                    }
                    emit(
                        Event::Output {
                            party: Party::Client,
                            output: Output::Send(m),
                        },
                        &mut events,
                    );
                    if let Message::Cancel { id, .. } = m
                        && !rules.requester_waits
                        && methods.contains_key(&id)
                        && resolved.insert(id)
                    {
                        emit(
                            delivered(id, Outcome::Cancelled(CancelCause::User)),
                            &mut events,
                        );
                    }
                }
                sent.push(SentMsg {
                    models,
                    request,
                    read: false,
                });
            }
            Dir::Received => {
                let msg = match WireMessage::parse(rec.text.as_bytes()) {
                    Ok(m) => m,
                    Err(e) => {
                        errors.push(SessionError {
                            kind: "not-json-rpc",
                            offset: Some(rec.offset + e.offset as u64),
                            message: format!("the peer's output {e}"),
                        });
                        continue;
                    }
                };
                if let WireMessage::Response { id, body } = &msg {
                    // An answer to a request the probe sent proves the peer read everything up
                    // to that request.
                    if let Some(k) = sent.iter().rposition(|s| s.request.as_ref() == Some(id)) {
                        read_upto(k, &mut sent, &mut events, &mut emit);
                        if sent[k].models.is_empty() {
                            // The answer to a barrier (or another request the model does not
                            // know): evidence of order only.
                            continue;
                        }
                    }
                    // An answer that says "cancelled" proves the peer read a cancel for it.
                    let mid = ids.model(id);
                    let cancelled =
                        matches!(body, cancelcheck_wire::Body::Error { code: -32800, .. })
                            || matches!(
                                to_model(ctx, &msg, &mut ids, |_| None),
                                Some(Message::Response {
                                    reply: Reply::Cancelled,
                                    ..
                                })
                            );
                    if cancelled
                        && let Some(k) = sent.iter().position(|s| {
                            s.models
                                .iter()
                                .any(|m| matches!(m, Message::Cancel { id, .. } if *id == mid))
                        })
                    {
                        read_upto(k, &mut sent, &mut events, &mut emit);
                    }
                }
                let model = to_model(ctx, &msg, &mut ids, |id| methods.get(&id).copied());
                let Some(m) = model else { continue };
                if let Message::Activity { id } = m
                    && let Some(k) = sent.iter().position(|s| {
                        s.models
                            .iter()
                            .any(|m| matches!(m, Message::Request { id: r, .. } if *r == id))
                    })
                {
                    // Progress about a request proves the peer read it.
                    read_upto(k, &mut sent, &mut events, &mut emit);
                }
                emit(
                    Event::Output {
                        party: Party::Server,
                        output: Output::Send(m),
                    },
                    &mut events,
                );
                emit(
                    Event::Input {
                        party: Party::Client,
                        input: Input::Receive(m),
                    },
                    &mut events,
                );
                if let Message::Response { id, reply } = m
                    && methods.contains_key(&id)
                    && resolved.insert(id)
                {
                    emit(delivered(id, Outcome::Reply(reply)), &mut events);
                }
            }
        }
    }
    emit(
        Event::End {
            quiescent: true,
            open_incoming: [0, 0],
        },
        &mut events,
    );
    let mut verdict = checker.take_verdict();
    // What the wire cannot decide is never reported as broken, nor as passed.
    let hidden = not_observable(dialect);
    verdict
        .violations
        .retain(|v| !hidden.contains(&v.invariant));
    Judgement {
        verdict,
        events,
        errors,
        not_observable: hidden,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(dir: Dir, text: &str) -> Record {
        Record {
            t_us: 0,
            dir,
            offset: 0,
            text: text.to_string(),
        }
    }

    /// MCP 2026-07-28: nothing may follow a cancel the server has read. An answer before the
    /// barrier's answer may have crossed the cancel; one after it was sent after the cancel
    /// was read.
    fn session(answer_after_barrier: bool) -> Vec<Record> {
        let work = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#;
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
        let barrier = r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"ping"}"#;
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let pong = r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","result":{}}"#;
        let mut r = vec![
            rec(Dir::Sent, work),
            rec(Dir::Sent, cancel),
            rec(Dir::Sent, barrier),
        ];
        if answer_after_barrier {
            r.push(rec(Dir::Received, pong));
            r.push(rec(Dir::Received, answer));
        } else {
            r.push(rec(Dir::Received, answer));
            r.push(rec(Dir::Received, pong));
        }
        r
    }

    #[test]
    fn the_barrier_tells_a_crossing_from_an_answer_after_the_cancel() {
        let ctx = Context::new(Dialect::Mcp20260728);
        let crossed = judge(&ctx, &session(false));
        assert_eq!(crossed.status(), "pass", "{:?}", crossed.verdict);
        let after = judge(&ctx, &session(true));
        assert_eq!(after.status(), "fail");
        assert_eq!(
            after.verdict.violations[0].invariant,
            InvariantId::NoAnswerAfterCancel
        );
    }

    #[test]
    fn an_answer_that_says_cancelled_proves_the_cancel_was_read() {
        let ctx = Context::new(Dialect::Mcp20260728);
        let mut r = session(false);
        r[3] = rec(
            Dir::Received,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#,
        );
        let j = judge(&ctx, &r);
        assert_eq!(j.status(), "fail");
    }

    #[test]
    fn undecodable_output_and_a_vanished_peer_are_session_errors() {
        let ctx = Context::new(Dialect::Mcp20251125);
        let mut r = vec![rec(Dir::Received, "{\"jsonrpc\":\"2.0\",")];
        r[0].offset = 100;
        r.push(rec(Dir::Note, "peer-gone: the peer exited"));
        let j = judge(&ctx, &r);
        assert_eq!(j.errors[0].kind, "not-json-rpc");
        assert_eq!(j.errors[0].offset, Some(100 + 17));
        assert_eq!(j.errors[1].kind, "peer-gone");
        assert_eq!(j.errors[1].message, "the peer exited");
        assert_eq!(j.status(), "fail");
    }
}
