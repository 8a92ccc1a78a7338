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
//!   crossed the cancel and is judged as the allowed side of that race; an error answer to the
//!   cancelled request that does not say "cancelled" may as well have been caused by it, and
//!   is not decidable, unless it came sooner than the declared shortest duration of the work
//!   (`--min-work-ms`, [`note::MIN_WORK`]): then the cancel caused it.
//! - The peer exiting (or closing its stdout) before the probe closed its stdin is a crash,
//!   after reading all it was sent.
//! - ACP's `session/cancel` is a cancel of every prompt turn still open in the session.
//! - ACP's agent names a session, not a request, in its own requests (`session/request_permission`,
//!   `terminal/create`, ...) and in `session/update`. A request of the agent's whose `sessionId`
//!   is that of exactly one prompt the probe sent and the agent has not answered is a nested
//!   request of that prompt (an `Output::Nested` before its send, as the simulator's endpoint
//!   reports it), so the rules of request trees judge it; a session id is compared as the
//!   opaque value it is, never read. A request left unlinked (no `sessionId`, a session of no
//!   open prompt, or of several) makes those rules not observable in that session, unless one
//!   was seen broken. The agent resolves its request when it reads the probe's answer; when it
//!   answers the prompt, an answer the probe had already sent may have been read (the allowed
//!   side), one the probe had not yet sent cannot have been.
//! - ACP and the ACP RFD let a party give up a request on its own (a timeout, a resource limit)
//!   and say how it answers: "the same -32800 (Cancelled) error response as if" a cancel had
//!   been received. An answer of the peer's that says its request was cancelled (error
//!   -32800, a prompt turn's `stopReason: cancelled`, or LSP's -32802 "the server cancelled the
//!   request") to a request the probe never cancelled is such a give-up: an
//!   `Input::InternalCancel` of the peer's before its answer, judged by `internal-cancel-code`.
//!   LSP's server gives a request up with `ContentModified` (-32801), or `ServerCancelled`
//!   (-32802) "only ... for requests that explicitly support being server cancellable", which
//!   no request the probe sends does: either answer to a request the probe never cancelled is
//!   a give-up there, and -32802 breaks `internal-cancel-code`; an LSP -32800 says the client
//!   cancelled, so to a request nobody cancelled it is a cancel meant for another request, once
//!   the client has sent any cancel (before that, a give-up). In MCP, whose text says nothing
//!   of requests given up on their own, a -32800 where no cancel was ever sent is an error
//!   answer like any other.
//!   A request the probe did cancel is judged against that cancel, whatever its answer; an
//!   answer with another code cannot be told from a failure, so whether a give-up used the right
//!   code stays not observable, unless the wire shows it broken (-32802). Once the probe has
//!   sent any cancel (of another request, of an unknown id, malformed), such an answer may as
//!   well be that cancel taken for the wrong request: neither reading can be ruled out, so
//!   `exact-id-match` and `internal-cancel-code` are then not observable in the scenario,
//!   unless broken otherwise. In the other dialects a "cancelled" answer to a request nobody
//!   cancelled is a cancel meant for another request.
//! - The probe's side is the reference requester: it resolves a request when its answer
//!   arrives, or at cancel time where the dialect's requester does not wait (MCP). It answers
//!   the agent's requests; an answer that says "cancelled" to a request the agent never
//!   cancelled is the probe giving it up on its own account (ACP's client answers its pending
//!   permission requests so once it cancels the prompt turn).
//! - Requests still unanswered when the session ended are unresolved (`eventual-resolution`):
//!   a session ends when the peer exits after its input closed, or at the timeout.
//! - A transcript (`cancelcheck audit`, `watch`) is judged the same way, its client's messages
//!   as the probe's ([`Judging::new`] with a [`Vantage`]): the client is a black box too, so
//!   its own duties ([`PROBE_OWN_DUTIES`]) are judged: those that depend on what it had read
//!   ([`READ_DEPENDENT_DUTIES`]) where the record shows it (its own log) and not observable where
//!   it does not (a proxy's record), as is an id it reused after the earlier request's answer
//!   passed by. A transcript with no cancel either
//!   way tested nothing (`vacuous`).

use super::idsets::{Methods, WireIds};
use super::sent::{Sent, SentMsg};
use super::work::{WorkTable, WorkTimes};
use cancelcheck_model::message::{CancelCause, Method};
use cancelcheck_model::{Dialect, Input, Message, Outcome, Output, Party, Reply, RequestId};
use cancelcheck_properties::idset::IdSet;
use cancelcheck_properties::{Checker, Event, InvariantId, Status, Verdict};
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::{Body, IdMap, WireId, WireMessage, to_model};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

mod finish;
mod http;
mod judging;
mod received;
mod record;

pub use judging::*;
pub use record::*;

/// The invariants of `dialect` a wire-only judge must report as not observable.
pub fn not_observable(dialect: Dialect) -> Vec<InvariantId> {
    InvariantId::all()
        .filter(|i| i.info().application(dialect).is_some() && !i.info().observable_in(dialect))
        .collect()
}

/// Where a transcript audited by `cancelcheck audit` was recorded, which decides what its order
/// proves of the client (the requester whose duties the probe never judges in itself).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Vantage {
    /// The client's own record (its log or trace): the order is the order in which the client
    /// read and wrote, so a cancel written after an answer was read is the client's.
    Client,
    /// A record made by neither party (a proxy between them) or by the server: each direction's
    /// order is that side's, but not what the client had read when it wrote, so
    /// [`READ_DEPENDENT_DUTIES`] are not observable.
    Between,
}

/// Duties of the requester that the probe, as the requester, breaks on purpose to see what
/// the peer does (`cancel-after-answer` cancels a request it has the answer to), or keeps as
/// the client it is (its answers to an ACP agent's permission requests after its own
/// `session/cancel`): they judge the probe, not the peer, so they are neither reported nor
/// given a column.
pub const PROBE_OWN_DUTIES: [InvariantId; 2] = [
    InvariantId::CancelOnlyInProgress,
    InvariantId::PermissionCancelledAfterCancel,
];

/// Of the requester's duties, those that depend on what it had read when it wrote (a cancel
/// sent after the answer was read): a record made between the parties cannot show them. The
/// others depend only on the order of its own messages, which every record keeps
/// (`permission-cancelled-after-cancel`: its answer written after its own `session/cancel`).
pub const READ_DEPENDENT_DUTIES: [InvariantId; 1] = [InvariantId::CancelOnlyInProgress];

/// How many session errors of one kind are kept; the others are counted (a peer that writes
/// a million bad lines gets a report of a few and the count).
const ERRORS_KEPT: usize = 8;

/// LSP's `ServerCancelled`: "The server cancelled the request". An answer with it says its
/// request was given up as plainly as -32800 does, in another code (in LSP, the give-up code
/// kept for requests that support it: [`cancelcheck_model::dialect::GiveUp::reserved`]).
const SERVER_CANCELLED: i64 = -32802;

/// JSON-RPC's (and LSP's) `RequestCancelled`: the error of a cancelled request.
const CANCELLED_CODE: i64 = -32800;

/// Invariants the wire cannot decide in general but whose breach it can show: a breach seen
/// stands, and the rule is then not reported as not observable. `internal-cancel-code`: a
/// give-up answered with an ordinary error cannot be told from a failure, one answered with
/// another code that says "cancelled" can.
const SHOWN_WHEN_BROKEN: [InvariantId; 1] = [InvariantId::InternalCancelCode];

/// Over Streamable HTTP, the rules of the streams, which the wire cannot decide in general but
/// shows broken: a request dropped after its stream dropped (`disconnect-not-cancel`), one that
/// goes on after its stream closed (`close-is-cancel`).
const HTTP_SHOWN_WHEN_BROKEN: [InvariantId; 2] =
    [InvariantId::CloseIsCancel, InvariantId::DisconnectNotCancel];

/// Over Streamable HTTP, the rules of what a receiver sends after it read a cancel: the `202`
/// that proves a notification read comes on a connection of its own, so what the request's
/// stream carries is not ordered against it. Not observable, unless the wire shows one broken
/// (a message on the standalone stream after a close: [`Judge::on_get_stream`]).
const HTTP_CROSS_STREAM: [InvariantId; 3] = [
    InvariantId::NoAnswerAfterCancel,
    InvariantId::NoActivityAfterCancel,
    InvariantId::NoChildAfterCancel,
];

/// The rules of request trees: a wire-only judge decides them only through the link from a
/// nested request to its parent.
const TREE_RULES: [InvariantId; 5] = [
    InvariantId::CascadeComplete,
    InvariantId::ChildrenBeforeParent,
    InvariantId::NoChildAfterCancel,
    InvariantId::SiblingsUntouched,
    InvariantId::PermissionCancelledAfterCancel,
];

/// The kinds of ACP `session/update` that are a prompt turn's content (messages, thoughts,
/// tool calls, the plan); the others (available commands, the current mode, ...) are about
/// the session and may come at any time.
const TURN_CONTENT: [&str; 5] = [
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
];

/// Whether the dialect's work runs in sessions its messages name by `sessionId` (ACP): the
/// agent's own requests and updates name the session of the prompt they serve.
fn names_sessions(dialect: Dialect) -> bool {
    dialect.rules().activity_id_field == "sessionId"
}

/// The session a message's params name, if they name one.
fn session_of(params: Option<&Value>) -> Option<&Value> {
    params?.get("sessionId")
}

/// A request the peer sent the probe, as the model knows it. Which prompt it was sent on
/// behalf of (where its session links it to one) is the checker's to say
/// ([`Checker::parentage`]): the judge tells it with `Output::Nested` as the request arrives.
struct PeerRequest {
    /// The peer sent a cancel for it.
    cancelled: bool,
    /// The probe answered it.
    answered: bool,
    /// The peer resolved it (it read, or may have read, the probe's answer).
    resolved: bool,
}

/// The session an ACP `session/cancel` names (a cancel of that session's prompt turn), if
/// `msg` is one (`Value::Null` when it names none).
fn session_cancelled(dialect: Dialect, msg: &WireMessage) -> Option<Value> {
    match msg {
        WireMessage::Notification { method, params }
            if cancelcheck_wire::shapes::of(dialect).session_cancel_method()
                == Some(method.as_str()) =>
        {
            Some(session_of(params.as_ref()).cloned().unwrap_or(Value::Null))
        }
        _ => None,
    }
}

/// The text of an MCP tool's error result (`isError: true`: the call failed), its first 80
/// characters; `None` for any other answer.
fn tool_error(body: &Body) -> Option<String> {
    match body {
        Body::Result(v) if v.get("isError") == Some(&Value::Bool(true)) => Some(
            v.pointer("/content/0/text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .chars()
                .take(80)
                .collect(),
        ),
        _ => None,
    }
}

/// The answers that say a request was refused before it ran: an invalid request (-32600), an
/// unknown method (-32601), invalid params (-32602), a protocol version the server does not
/// support (MCP 2026-07-28's -32022).
const REFUSALS: [i64; 4] = [
    -32600,
    -32601,
    -32602,
    cancelcheck_wire::mcp::UNSUPPORTED_VERSION,
];

/// The probe resolving one of its requests.
fn delivered(id: RequestId, outcome: Outcome) -> Event {
    Event::Output {
        party: Party::Client,
        output: Output::Deliver { id, outcome },
    }
}

/// The judgement of one record in progress.
struct Judge<'c> {
    ctx: &'c Context,
    checker: Checker,
    events: Vec<Event>,
    errors: Vec<SessionError>,
    /// Session errors beyond the first [`ERRORS_KEPT`] of their kind: how many, by kind.
    errors_more: BTreeMap<&'static str, u64>,
    ids: IdMap,
    sent: Sent,
    /// Model requests the probe sent: their method.
    methods: Methods,
    /// The probe's requests it resolved.
    resolved: IdSet,
    /// The probe's requests it sent a cancel for (its own cancels, `session/cancel` included).
    cancelled: IdSet,
    /// The probe sent a cancel of any kind (naming any id, well formed or not).
    cancel_sent: bool,
    /// The peer gave a request up on its own after the probe had sent a cancel: the answer may
    /// as well be that cancel taken for the wrong request.
    ambiguous_give_up: bool,
    /// The probe's requests the peer answered, in the order of their first answers (kept
    /// only for prompt turns, the one thing that asks).
    answered: Vec<RequestId>,
    /// The same, to look up.
    answered_set: IdSet,
    /// Every message sent below this index is known to have been read.
    read_below: usize,
    /// The probe's prompts (its work requests) and the session each names.
    prompts: Vec<(RequestId, Value)>,
    /// The peer's requests the model knows.
    peer_requests: BTreeMap<RequestId, PeerRequest>,
    /// A request of the peer's was left unlinked.
    unlinked: bool,
    gone: bool,
    /// The handshake's request (`initialize`; MCP 2026-07-28 `server/discover`), once sent,
    /// until answered.
    handshake: Option<WireId>,
    /// Whether the handshake's request was sent (a later one of that method is not it).
    handshake_sent: bool,
    /// What its answer says of the peer's protocol version, where not the dialect's.
    protocol: Option<String>,
    /// The session's `initialize` request (the dialect's `initialize_method`), once sent.
    initialize: Option<WireId>,
    /// The probe's request that opens a session of work (ACP `session/new`), once sent.
    opening: Option<WireId>,
    /// How the peer refused it (an error answer).
    handshake_refused: Option<String>,
    /// The probe's work requests: when each was sent and first answered.
    work: WorkTable,
    /// Work requests the peer refused before they ran.
    refused: BTreeSet<RequestId>,
    /// A cancel was sent while a work request was in flight.
    in_flight: bool,
    /// Why the scenario tested nothing, so far (a refusal).
    vacuous_because: Vec<String>,
    /// The cancels the probe sent (of any kind): their indices among the messages sent.
    cancels_at: Vec<usize>,
    /// The assumptions a finding rests on, each once.
    assumptions: Vec<String>,
    /// Judging a transcript (`cancelcheck audit`) recorded from this vantage, rather than a
    /// probe session: the client is a black box too.
    audit: Option<Vantage>,
    /// A cancel of any kind crossed the wire, either way.
    any_cancel: bool,
    /// The peer was seen acting on a cancel of the probe's (see [`Judgement::acted_on_cancel`]).
    acted_on_cancel: bool,
    /// When the probe killed the peer for not exiting within `--linger` ([`note::KILLED`]).
    killed_at_us: Option<u64>,
    /// MCP 2025-11-25: the id of the first task the peer created for a request (an answer
    /// carrying `task.taskId`, a `CreateTaskResult`), if it did.
    created_task: Option<String>,
    /// The probe held a cancel back from a peer that declared no support for it
    /// ([`note::WITHHELD`]).
    withheld: bool,
    /// The record shows the session ended: the server closed its output
    /// ([`note::OUTPUT_CLOSED`]), or the client sent the notification after which the server
    /// exits (LSP `exit`). What it left unanswered it never answers.
    ended: bool,
    /// The client closed its output ([`note::OUTPUT_CLOSED`]) before the server did.
    client_closed: bool,
    /// A cancel crossed the wire naming a request the judge follows (one of the client's it
    /// models, or one of the server's), or a malformed one: something about cancellation was
    /// judged.
    judged_cancel: bool,
    /// Audited from between the parties, the client sent a request with the id of one of its
    /// earlier requests: whether it had read the earlier one's answer is not observable.
    reuse_undecided: bool,
    /// The ids of the requests the client sent, of any method (audits).
    client_ids: WireIds,
    /// The declared lower bound on the work's duration, in µs ([`note::MIN_WORK`]).
    min_work_us: Option<u64>,
    /// Answers the wire does not tell crossed from caused by a cancel, or full from partial:
    /// why, each.
    undecided: Vec<String>,
    /// The first result of a work request nobody cancelled (its id as sent, its JSON text): what
    /// a result after a cancel is compared with where partial results may take any form.
    full_result: Option<(String, String)>,
    /// Streamable HTTP ([`note::TRANSPORT`]): order holds within a stream only.
    http: bool,
    /// Streamable HTTP: the request POSTed on each stream.
    lanes: BTreeMap<String, RequestId>,
    /// Streamable HTTP: messages the server answered `202 Accepted`, whose reading is told to
    /// the checker only at the end (it happened before the 202, but when among what the other
    /// streams carried is not observable).
    deferred: Vec<usize>,
    /// Streamable HTTP: requests whose stream the probe closed as their cancel, and the index
    /// of that close among the messages sent.
    closes: BTreeMap<RequestId, usize>,
    /// Streamable HTTP: requests whose stream the probe dropped, and how many messages had
    /// been sent when it first did.
    lost: BTreeMap<RequestId, usize>,
    /// Streamable HTTP: when each dropped stream was resumed (`Last-Event-ID`), in order.
    resumed: BTreeMap<RequestId, Vec<u64>>,
    /// Streamable HTTP: rules a message arriving on another stream than the one it must be
    /// ordered against leaves undecided.
    cross_stream: BTreeSet<InvariantId>,
    /// Bounded: how many checker records wait for the next retiring.
    retire_at: usize,
    /// How many work requests are unanswered (none of them refused: a refusal is an answer).
    unanswered_work: usize,
    /// Keeps only what is still open ([`Judging::bounded`]): no events, no messages the peer
    /// is known to have read, no checker records of settled requests.
    bounded: bool,
}

impl Judge<'_> {
    fn emit(&mut self, ev: Event) {
        self.checker.observe(&ev);
        if !self.bounded {
            self.events.push(ev);
        }
    }

    fn server(&mut self, output: Output) {
        self.emit(Event::Output {
            party: Party::Server,
            output,
        });
    }

    /// The peer reads `m`, which the probe sent; reading the probe's answer to one of its
    /// requests resolves that request.
    fn peer_reads(&mut self, m: Message) {
        self.emit(Event::Input {
            party: Party::Server,
            input: Input::Receive(m),
        });
        if let Message::Response { id, reply } = m
            && let Some(r) = self.peer_requests.get_mut(&id)
            && !r.resolved
        {
            r.resolved = true;
            self.server(Output::Deliver {
                id,
                outcome: Outcome::Reply(reply),
            });
        }
    }

    /// Marks `sent[k]` as read by the peer.
    fn read(&mut self, k: usize) {
        let Some(s) = self.sent.get_mut(k).filter(|s| !s.read) else {
            return;
        };
        s.read = true;
        let n = s.models.len();
        for j in 0..n {
            let Some(&m) = self.sent.get(k).and_then(|s| s.models.get(j)) else {
                break;
            };
            self.peer_reads(m);
        }
    }

    /// Marks everything sent up to index `upto` (inclusive) as read by the peer.
    fn read_upto(&mut self, upto: usize) {
        let end = upto.min(self.sent.len().saturating_sub(1));
        // Everything below the mark is read already: a long session is not walked again.
        for k in self.read_below..=end {
            self.read(k);
        }
        self.read_below = self.read_below.max(end + 1);
        self.sent.retire_below(self.read_below);
    }

    /// Evidence that the peer read `sent[k]`: on stdio everything sent before it too (a FIFO),
    /// over HTTP that message alone (every POST is a connection of its own).
    fn proves(&mut self, k: usize) {
        if self.http {
            self.read(k);
        } else {
            self.read_upto(k);
        }
    }

    /// The request whose stream a record went on (Streamable HTTP).
    fn lane(&self, rec: &Record) -> Option<RequestId> {
        self.lanes.get(rec.stream.as_deref()?).copied()
    }

    /// The probe's prompts of `session` the peer has not answered.
    fn open_in<'a>(&'a self, session: &'a Value) -> impl Iterator<Item = RequestId> + 'a {
        self.prompts
            .iter()
            .filter(move |(id, s)| s == session && !self.answered_set.contains(*id))
            .map(|(id, _)| *id)
    }

    /// The prompt a message naming `session` serves: the one prompt of that session still open.
    fn link(&self, session: Option<&Value>) -> Option<RequestId> {
        let mut open = self.open_in(session?);
        let first = open.next()?;
        open.next().is_none().then_some(first)
    }

    /// The prompt an ACP `session/update` with these params is about: the one open in its
    /// session, or, when none is, the one its session's last answer ended (the update came
    /// after that answer). Only a turn's content is about a turn.
    fn turn_of_update(&self, params: Option<&Value>) -> Option<RequestId> {
        let kind = params?.pointer("/update/sessionUpdate")?.as_str()?;
        if !TURN_CONTENT.contains(&kind) {
            return None;
        }
        let session = session_of(params)?;
        if self.open_in(session).next().is_some() {
            return self.link(Some(session));
        }
        self.answered
            .iter()
            .rev()
            .copied()
            .find(|id| self.prompts.iter().any(|(p, s)| p == id && s == session))
    }

    /// Before the peer's answer to prompt `parent`: the answers the probe had already sent to
    /// the requests it sent on the prompt's behalf may have been read by then (the allowed side
    /// of that race). Those the probe had not sent stay unresolved.
    fn children_may_be_resolved(&mut self, parent: RequestId) {
        // The peer's requests, each by its newest instance (as `peer_requests` keeps them),
        // linked to the prompt `parent`; in the order of their ids.
        let p = self.checker.parentage();
        let mut children: Vec<RequestId> = (0..p.len())
            .filter(|&k| {
                let id = p.id(k);
                p.requester(k) == Party::Server
                    && p.newest(Party::Server, id) == Some(k)
                    && p.parent(k).is_some_and(|q| p.id(q) == parent)
                    && self.peer_requests.get(&id).is_some_and(|r| !r.resolved)
            })
            .map(|k| p.id(k))
            .collect();
        children.sort_unstable();
        for c in children {
            let answer = self.sent.position(|s| {
                !s.read
                    && s.models
                        .iter()
                        .any(|m| matches!(m, Message::Response { id, .. } if *id == c))
            });
            if let Some(k) = answer {
                self.read(k);
            }
        }
    }

    fn on_note(&mut self, rec: &Record) {
        let (kind, detail) = rec.text.split_once(": ").unwrap_or((&rec.text, ""));
        self.on_http_note(kind, detail, rec);
        match kind {
            note::PEER_GONE if !self.gone => {
                self.gone = true;
                if self.http {
                    // Over HTTP only what the server accepted is known read (a POST that never
                    // got its 202 or its answer may never have been).
                    for k in std::mem::take(&mut self.deferred) {
                        self.read(k);
                    }
                } else if !self.sent.is_empty() {
                    self.read_upto(self.sent.len() - 1);
                }
                self.server(Output::Crashed);
                self.error(SessionError {
                    kind: "peer-gone",
                    offset: None,
                    message: detail.to_string(),
                });
            }
            note::WITHHELD => self.withheld = true,
            // The server's output ending ends the session, unless the client had gone first
            // (then what was in flight was left by the client, not unanswered by the server).
            note::OUTPUT_CLOSED if detail.starts_with("client") => self.client_closed = true,
            note::OUTPUT_CLOSED if !self.client_closed => {
                self.ended = true;
            }
            note::KILLED => self.killed_at_us = Some(rec.t_us),
            note::FLOOD => self.error(SessionError {
                kind: "flood",
                offset: Some(rec.offset),
                message: detail.to_string(),
            }),
            note::TIMEOUT => self.error(SessionError {
                kind: "timeout",
                offset: None,
                message: detail.to_string(),
            }),
            note::FRAMING => self.error(SessionError {
                kind: "framing",
                offset: Some(rec.offset),
                message: detail.to_string(),
            }),
            note::REFUSED => self.error(SessionError {
                kind: "refused",
                offset: None,
                message: detail.to_string(),
            }),
            note::MIN_WORK => {
                let ms = detail
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse::<u64>().ok());
                self.min_work_us = ms.map(|ms| ms.saturating_mul(1000));
            }
            note::ASSUMED if !self.assumptions.iter().any(|a| a == detail) => {
                self.assumptions.push(detail.to_string());
            }
            _ => {}
        }
    }

    /// A session error: kept if fewer than [`ERRORS_KEPT`] of its kind were, else counted.
    fn error(&mut self, e: SessionError) {
        if self.errors.iter().filter(|k| k.kind == e.kind).count() < ERRORS_KEPT {
            self.errors.push(e);
        } else {
            *self.errors_more.entry(e.kind).or_default() += 1;
        }
    }

    fn on_sent(&mut self, rec: &Record) {
        let dialect = self.ctx.dialect;
        let Ok(msg) = WireMessage::parse(rec.text.as_bytes()) else {
            return;
        };
        let request = match &msg {
            WireMessage::Request { id, .. } => Some(id.clone()),
            _ => None,
        };
        let rules = dialect.rules();
        // A cancel of any kind: the dialect's notification, a session's cancel, or a task's
        // cancel, a request (MCP 2025-11-25's `tasks/cancel`).
        let cancel = match &msg {
            WireMessage::Notification { method, .. } => {
                method == rules.cancel_method
                    || Some(method.as_str()) == rules.session_cancel_method
                    || session_cancelled(dialect, &msg).is_some()
            }
            WireMessage::Request { method, .. } => {
                Some(method.as_str()) == rules.task_cancel_method
            }
            WireMessage::Response { .. } => false,
        };
        if cancel {
            self.cancel_sent = true;
            self.any_cancel = true;
            self.cancels_at.push(self.sent.len());
            // A cancel of any kind sent while a work request (not refused) is unanswered: the
            // scenario's moment came with the work in flight.
            // (A refused request was answered: `unanswered_work` counts the others.)
            if self.unanswered_work > 0 {
                self.in_flight = true;
            }
        }
        if self.initialize.is_none()
            && msg.method().is_some()
            && msg.method() == rules.initialize_method
        {
            self.initialize = request.clone();
        }
        if self.opening.is_none()
            && msg.method().is_some_and(|m| {
                cancelcheck_wire::shapes::of(dialect).plumbing(m)
                    == Some(cancelcheck_wire::shapes::Plumbing::NewSession)
            })
        {
            self.opening = request.clone();
        }
        if let WireMessage::Notification { method, .. } = &msg
            && cancelcheck_wire::shapes::of(dialect).exit_method() == Some(method.as_str())
        {
            self.ended = true;
        }
        let handshake = cancelcheck_wire::shapes::of(dialect).handshake_method();
        if !self.handshake_sent && msg.method() == Some(handshake) {
            self.handshake_sent = true;
            self.handshake = request.clone();
        }
        let models: Vec<Message> = if let Some(session) = session_cancelled(dialect, &msg) {
            // ACP: `session/cancel` cancels the prompt turn still open in the session it
            // names.
            let open: Vec<RequestId> = self.open_in(&session).collect();
            open.into_iter()
                .filter(|id| !self.resolved.contains(*id))
                .map(|id| Message::Cancel { id, session: true })
                .collect()
        } else if let WireMessage::Response { id, .. } = &msg {
            // The probe's answer to a request of the peer's: one the model knows, answered
            // once; the others (answered -32601) are outside the model.
            let mid = self.ids.model(id);
            match self.peer_requests.get(&mid) {
                Some(r) if !r.answered => {
                    to_model(self.ctx, &msg, &mut self.ids, |_| Some(Method::ServerWork))
                        .into_iter()
                        .collect()
                }
                _ => Vec::new(),
            }
        } else {
            to_model(self.ctx, &msg, &mut self.ids, |_| None)
                .into_iter()
                .collect()
        };
        if models.is_empty() && !cancel && msg.method().is_some() {
            // A request of another method, or an unrelated notification: when it was sent is
            // what the rules of the session's opening read of it.
            self.emit(Event::Unmodelled {
                party: Party::Client,
            });
        }
        for &m in &models {
            match m {
                Message::Request { id, method } => {
                    self.methods.insert(id, method);
                    if method.is_work() {
                        let after_read_cancel = self
                            .cancels_at
                            .iter()
                            .rev()
                            .copied()
                            .find(|&k| self.sent.is_taken(k));
                        // (Read only over HTTP, where it grows with the square of the session.)
                        let taken_before = if self.http {
                            self.work
                                .whole()
                                .filter(|(_, w)| self.sent.is_taken(w.at))
                                .map(|(&i, _)| i)
                                .collect()
                        } else {
                            BTreeSet::new()
                        };
                        let new = self.work.insert(
                            id,
                            WorkTimes {
                                at: self.sent.len(),
                                after_read_cancel,
                                taken_before,
                                wire: request.clone(),
                                sent_us: rec.t_us,
                                answered_us: None,
                                tool_error: None,
                            },
                        );
                        if new {
                            self.unanswered_work += 1;
                        }
                    }
                    if let (Method::Work { .. }, WireMessage::Request { params, .. }) =
                        (method, &msg)
                        && self.ctx.prompt_turn()
                        && let Some(session) = session_of(params.as_ref())
                    {
                        self.prompts.push((id, session.clone()));
                    }
                }
                Message::Cancel { id, .. } if !self.methods.contains_key(id) => {
                    // The probe's own cancel of an id it never sent is a stimulus (the
                    // unknown-id and malformed scenarios): the peer is judged on it, the probe
                    // is not. A recorded client's cancel of a request of a method the judge
                    // does not follow is not judged; one naming no request the client ever
                    // sent is, as the same act of the server's is.
                    if self.audit.is_none() || self.client_ids.contains(&self.ids.wire(id)) {
                        continue;
                    }
                    self.judged_cancel = true;
                }
                Message::Cancel { id, .. } => {
                    self.judged_cancel = true;
                    self.cancelled.insert(id);
                }
                Message::MalformedCancel => self.judged_cancel = true,
                Message::Response { id, reply } => {
                    if let Some(r) = self.peer_requests.get_mut(&id) {
                        r.answered = true;
                        if reply.is_cancelled() && !r.cancelled {
                            // Given up on the probe's own account (its prompt turn's cancel).
                            self.emit(Event::Input {
                                party: Party::Client,
                                input: Input::InternalCancel(id),
                            });
                        }
                    }
                }
                _ => {}
            }
            self.emit(Event::Output {
                party: Party::Client,
                output: Output::Send(m),
            });
            if let Message::Cancel { id, .. } = m
                && !dialect.rules().requester_waits
                && self.methods.contains_key(id)
                && self.resolved.insert(id)
            {
                self.emit(delivered(id, Outcome::Cancelled(CancelCause::User)));
            }
        }
        if self.audit.is_some()
            && let Some(id) = &request
            && !self.client_ids.insert(id)
            && self.audit == Some(Vantage::Between)
        {
            self.reuse_undecided = true;
        }
        if let (Some(label), Some(Message::Request { id, .. })) = (&rec.stream, models.first()) {
            self.lanes.insert(label.clone(), *id);
        }
        self.sent.push(SentMsg {
            models,
            request,
            read: false,
            stream: rec.stream.clone(),
            accepted: false,
        });
    }
}

/// A record at time 0, offset 0, on no stream (for tests).
#[cfg(test)]
pub(crate) fn rec(dir: Dir, text: &str) -> Record {
    Record {
        t_us: 0,
        dir,
        offset: 0,
        text: text.to_string(),
        stream: None,
    }
}

#[cfg(test)]
mod tests;
