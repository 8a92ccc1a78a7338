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
//!   cancelled, so to a request nobody cancelled it is a cancel meant for another request.
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
//!   its own duties ([`PROBE_OWN_DUTIES`]) are judged where the record shows what it had read
//!   (its own log) and not observable where it does not (a proxy's record), as is an id it
//!   reused after the earlier request's answer passed by. A transcript with no cancel either
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

/// The text of the note that the server (`client`: the client) closed its output
/// ([`note::OUTPUT_CLOSED`]).
pub fn output_closed(client: bool) -> String {
    let who = if client { "client" } else { "server" };
    format!(
        "{}: {who}: the {who} closed its output; nothing more came from it",
        note::OUTPUT_CLOSED
    )
}

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
    /// The agent answered `session/new` with a result that names no session (ACP).
    pub const REFUSED: &str = "refused";
    /// The declared lower bound on the work's duration (`--min-work-ms`): `N ms ...`.
    pub const MIN_WORK: &str = "min-work-ms";
    /// A recipe's set-up step (or readiness wait) failed: which, and what the peer answered.
    /// The run is then a usage error (exit 2), not a verdict.
    pub const SETUP_FAILED: &str = "setup-failed";
    /// The peer refused the handshake (`initialize` answered with an error): no session
    /// opened, and no work request was sent. The judge decides from the wire alone (the
    /// scenario is vacuous); the note tells a reader of the timeline.
    pub const HANDSHAKE_REFUSED: &str = "handshake-refused";
    /// The probe held a cancel back: the peer declared no support for the generic cancel
    /// where support is negotiated (the ACP RFD), so sending it would break
    /// `capability-gated`, the sender's duty. The scenario then tests nothing (`vacuous`).
    pub const WITHHELD: &str = "cancel-withheld";
    /// A party closed its output (`server` or `client` ...): nothing more came from it. The
    /// server's ends the session, unless the client's came first: a request the server left
    /// unanswered is never answered, so `eventual-resolution` is decided
    /// ([`super::output_closed`]).
    pub const OUTPUT_CLOSED: &str = "output-closed";
    /// An assumption the session rests on (a recipe's fixed readiness delay), stated in the
    /// verdict.
    pub const ASSUMED: &str = "assumed";
    /// The transport, when not stdio: `http URL` (MCP Streamable HTTP). The judge then reads
    /// every message's stream ([`Record::stream`](super::Record)) and orders nothing across
    /// streams.
    pub const TRANSPORT: &str = "transport";
    /// The first word of a [`TRANSPORT`] note for Streamable HTTP.
    pub const HTTP: &str = "http";
    /// Streamable HTTP: the server answered a POSTed notification or response `202 Accepted`,
    /// or a request's POST with a 2xx head: it read it (the one fact the client learns across
    /// streams; when, against what the other streams carry, is not known).
    pub const ACCEPTED: &str = "accepted";
    /// Streamable HTTP: an HTTP status that is not the exchange's success (the text says which
    /// and what the body said); a session error.
    pub const HTTP_ERROR: &str = "http-error";
    /// Streamable HTTP: a status worth knowing that is no error (a 405 to the GET: the server
    /// offers no standalone stream; a 4xx to a POSTed notification: the server refused it, so
    /// did not read it).
    pub const HTTP_STATUS: &str = "http-status";
    /// Streamable HTTP: the probe closed a request's response stream (`STREAM: request ID`): in
    /// MCP 2026-07-28 the request's cancel.
    pub const STREAM_CLOSED: &str = "stream-closed";
    /// Streamable HTTP: the probe dropped a request's stream's connection, as a network
    /// failure would (`STREAM: request ID`): no cancel in MCP 2025-11-25.
    pub const STREAM_LOST: &str = "stream-lost";
    /// Streamable HTTP: the probe resumed a dropped stream with `Last-Event-ID` (`STREAM:
    /// request ID ...`); what comes on the new GET is recorded on the request's stream.
    pub const STREAM_RESUMED: &str = "stream-resumed";
    /// Streamable HTTP: the server answered the GET with 405: it offers no standalone stream
    /// (MCP 2026-07-28 has none), so after a request's stream closed nothing more for it can
    /// reach the client.
    pub const NO_GET: &str = "no-get-stream";
    /// Streamable HTTP: a stream that dropped cannot be resumed (the server gave no event id
    /// on it): what the disconnect did is not observable.
    pub const NO_RESUME: &str = "no-resume";
}

/// The detail of a [`note::MIN_WORK`] note declaring `ms`.
pub fn min_work_note(ms: u64) -> String {
    format!("{ms} ms (declared: the work request takes at least this long unless cancelled)")
}

/// The note record declaring `ms` ([`note::MIN_WORK`]) at the start of a session, for
/// `audit` and `watch`, whose sessions the probe did not drive.
pub fn min_work_record(ms: u64) -> Record {
    Record {
        t_us: 0,
        dir: Dir::Note,
        offset: 0,
        text: format!("{}: {}", note::MIN_WORK, min_work_note(ms)),
        stream: None,
    }
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
    /// Streamable HTTP: the label of the stream it went on (`post-N`: a POST and its
    /// response, `get-N`: a GET stream); `None` on stdio.
    pub stream: Option<String>,
}

/// Every kind of [`SessionError`].
pub const ERROR_KINDS: [&str; 6] = [
    "not-json-rpc",
    "framing",
    "peer-gone",
    "timeout",
    "refused",
    "http",
];

/// A problem that is not a clause of the catalog but breaks the session: output that is not
/// JSON-RPC, broken framing, a peer that died or hung.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SessionError {
    /// `not-json-rpc`, `framing`, `peer-gone`, `timeout`, `refused` (an ACP agent answered
    /// `session/new` with a result that names no session; an error answer is a refusal the
    /// scenario is vacuous for, not a session error), `http` (Streamable HTTP: an exchange
    /// answered with an error status).
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
    /// The events it judged (none where it was judged [bounded](Judging::bounded)).
    pub events: Vec<Event>,
    /// Session errors, in order.
    pub errors: Vec<SessionError>,
    /// Invariants that apply to the dialect but that the wire alone cannot decide in this
    /// session, in catalog order: the dialect's (see [`not_observable`]), and the rules of
    /// request trees where a request of the peer's could not be linked to the prompt it serves
    /// (unless one was seen broken).
    pub not_observable: Vec<InvariantId>,
    /// What the peer's answer to the handshake says of the protocol version it speaks, where
    /// that is not the one the dialect's text is of (`None`: the same, or none negotiated).
    pub protocol: Option<String>,
    /// How the peer refused to open the session (an error answer to `initialize`, or to ACP's
    /// `session/new`: no session opened), if it did.
    pub handshake_refused: Option<String>,
    /// Why the scenario tested nothing, each with what would fix it (empty: it tested what it
    /// claims): its work request refused before it ran, or, where the scenario claims a cancel
    /// of a request in flight ([`Judgement::claim`]), answered before any cancel was sent.
    pub vacuous_because: Vec<String>,
    /// The assumptions a finding rests on, where the wire alone does not decide it (a work
    /// request judged dropped because the same work read after it was answered).
    pub assumptions: Vec<String>,
    /// Whether the scenario claims a cancel reaching a request in flight and one did: a cancel
    /// was sent while a work request the peer had not refused was still unanswered.
    pub exercised_in_flight: bool,
    /// Why no cancel reached a work request in flight (`None`: one did).
    not_in_flight: Option<String>,
    /// Why the work fails on its own, if a work request no cancel named was answered with a
    /// tool's error: the probe sends the same work in every session of a run, so what one
    /// session learned of it holds for the others ([`Judgement::work_failed_elsewhere`]).
    pub work_fails: Option<String>,
    /// For each record judged, how many events there were once it was read (the events of
    /// the session's end come after the last).
    record_ends: Vec<usize>,
}

impl Judgement {
    /// The name a saved trace takes from its first finding: the first invariant broken, else
    /// the first session error's kind, else `pass`.
    pub fn first_finding(&self) -> &'static str {
        self.verdict
            .violations
            .first()
            .map(|v| v.invariant.name())
            .or_else(|| self.errors.first().map(|e| e.kind))
            .unwrap_or("pass")
    }

    /// `fail` (a MUST broken or a session error), `warn` (only SHOULDs or notes), `vacuous`
    /// (nothing broken, but the scenario tested nothing: [`Judgement::vacuous_because`]) or
    /// `pass` ([`Status::judged`]). The races it reached are reported, not judged.
    pub fn status(&self) -> Status {
        let error = !self.errors.is_empty();
        Status::judged(
            error || self.verdict.failed(),
            error || !self.verdict.passed(),
            self.vacuous_because.is_empty(),
        )
    }

    /// Applies what the scenario claims: `in_flight`, that a cancel reaches a work request
    /// still in flight. A scenario that claims it and sent every cancel after the work was
    /// answered (or sent none) tested nothing.
    pub fn claim(&mut self, in_flight: bool) {
        if !in_flight || !self.vacuous_because.is_empty() {
            return;
        }
        match &self.not_in_flight {
            Some(why) => self.vacuous_because.push(why.clone()),
            None => self.exercised_in_flight = true,
        }
    }

    /// Applies what another session of the same run learned: the work fails on its own
    /// (`why`, from the scenario `name`). A scenario that claims a cancel of a request in
    /// flight and passed cannot tell whether its work ran: it tested nothing.
    pub fn work_failed_elsewhere(&mut self, in_flight: bool, name: &str, why: &str) {
        if !in_flight || !self.vacuous_because.is_empty() || self.work_fails.is_some() {
            return;
        }
        self.vacuous_because
            .push(format!("in scenario {name}, {why}"));
        self.exercised_in_flight = false;
    }

    /// The record (its index among those judged) whose reading gave the event `event`, or
    /// `None` for an event of the session's end.
    pub fn record_of(&self, event: u64) -> Option<usize> {
        let event = usize::try_from(event).ok()?;
        self.record_ends.iter().position(|&end| end > event)
    }
}

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
    /// [`PROBE_OWN_DUTIES`] are not observable.
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

/// LSP's `ServerCancelled`: "The server cancelled the request". An answer with it says its
/// request was given up as plainly as -32800 does, in another code (in LSP, the give-up code
/// kept for requests that support it: [`cancelcheck_model::dialect::GiveUp::reserved`]).
const SERVER_CANCELLED: i64 = -32802;

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
    /// The probe held a cancel back from a peer that declared no support for it
    /// ([`note::WITHHELD`]).
    withheld: bool,
    /// The record shows the session ended: the server closed its output
    /// ([`note::OUTPUT_CLOSED`]), or the client sent the notification after which the server
    /// exits (LSP `exit`). What it left unanswered it never answers.
    ended: Option<&'static str>,
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
    /// Answers the wire does not tell crossed from caused by a cancel: why, each.
    undecided: Vec<String>,
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
    /// been sent then.
    lost: BTreeMap<RequestId, usize>,
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

    /// The Streamable HTTP notes.
    fn on_http_note(&mut self, kind: &str, detail: &str, rec: &Record) {
        let client = |input| Event::Input {
            party: Party::Client,
            input,
        };
        match kind {
            note::TRANSPORT if detail.split_whitespace().next() == Some(note::HTTP) => {
                self.http = true;
                self.work.keep_whole();
                self.checker.set_fifo(false);
            }
            note::ACCEPTED => {
                if let Some(k) = self
                    .sent
                    .position(|s| s.stream.is_some() && s.stream == rec.stream)
                    && let Some(s) = self.sent.get_mut(k)
                {
                    s.accepted = true;
                    self.deferred.push(k);
                }
            }
            note::HTTP_ERROR => self.errors.push(SessionError {
                kind: "http",
                offset: None,
                message: format!("{}: {detail}", rec.stream.as_deref().unwrap_or("")),
            }),
            note::STREAM_CLOSED => {
                let Some(id) = self.lane(rec) else { return };
                if !self.ctx.dialect.rules().stream_close_cancels {
                    self.emit(Event::Output {
                        party: Party::Client,
                        output: Output::CloseStream(id),
                    });
                    return;
                }
                // The close is the cancel: a message the peer reads, though nothing is sent.
                let k = self.sent.len();
                self.cancels_at.push(k);
                if self.unanswered_work > 0 {
                    self.in_flight = true;
                }
                self.cancel_sent = true;
                self.any_cancel = true;
                self.judged_cancel = true;
                self.cancelled.insert(id);
                self.closes.insert(id, k);
                self.sent.push(SentMsg {
                    models: vec![Message::Cancel { id, session: false }],
                    request: None,
                    read: false,
                    stream: rec.stream.clone(),
                    accepted: false,
                });
                self.emit(Event::Output {
                    party: Party::Client,
                    output: Output::CloseStream(id),
                });
                if !self.ctx.dialect.rules().requester_waits
                    && self.methods.contains_key(id)
                    && self.resolved.insert(id)
                {
                    self.emit(delivered(id, Outcome::Cancelled(CancelCause::User)));
                }
            }
            note::STREAM_LOST => {
                if let Some(id) = self.lane(rec) {
                    self.lost.insert(id, self.sent.len());
                    self.emit(client(Input::StreamLost(id)));
                }
            }
            note::STREAM_RESUMED => {
                if let Some(id) = self.lane(rec) {
                    self.emit(client(Input::StreamResumed(id)));
                }
            }
            note::NO_RESUME => self.vacuous_because.push(format!(
                "{detail}; a server that gives its events ids (`id:`) can be resumed with Last-Event-ID, and only then is a disconnect told from a cancel"
            )),
            _ => {}
        }
    }

    /// Streamable HTTP: a message of the peer's on the standalone GET stream about request
    /// `id` of the probe's. Whether to judge it where it arrived: after the probe closed the
    /// request's stream (its cancel), it proves the peer had read the close (a server writes a
    /// request's messages on the request's own stream while it is open: assumed, and said);
    /// after the request's answer came on its own stream, its order against that answer is
    /// not observable, so it is not judged.
    fn on_get_stream(&mut self, id: RequestId) -> bool {
        if let Some(&k) = self.closes.get(&id) {
            if !self.sent.is_read(k) {
                // About the request, so written after the server read it (before the close).
                if let Some(r) = self.sent.first_request(id) {
                    self.read(r);
                }
                self.read(k);
                let a = "a message about a request on the standalone stream, after the probe closed the request's own stream, was written after the server read that close (Streamable HTTP: a server writes a request's messages on that request's stream while it is open)".to_string();
                if !self.assumptions.contains(&a) {
                    self.assumptions.push(a);
                }
            }
            return true;
        }
        if self.answered_set.contains(id) {
            self.cross_stream.insert(InvariantId::NoActivityAfterAnswer);
            return false;
        }
        true
    }

    /// Streamable HTTP, at the end: requests whose stream the probe dropped and resumed, never
    /// answered, while the same work sent after the drop was: the peer took the disconnect for
    /// a cancel (assuming it answers the same work in the order it read it).
    fn dropped_on_disconnect(&mut self) {
        let lost: Vec<(RequestId, usize)> = self.lost.iter().map(|(&i, &k)| (i, k)).collect();
        for (id, at) in lost {
            let Some(w) = self.work.get(id) else {
                continue;
            };
            if w.answered_us.is_some() || self.cancelled.contains(id) || self.refused.contains(&id)
            {
                continue;
            }
            let control = self.work.whole().find(|&(c, cw)| {
                cw.at >= at
                    && cw.taken_before.contains(&id)
                    && cw.answered_us.is_some()
                    && cw.tool_error.is_none()
                    && !self.refused.contains(c)
            });
            let Some((_, cw)) = control else { continue };
            let name =
                |w: &Option<WireId>| w.as_ref().map(WireId::to_json_text).unwrap_or_default();
            self.assumptions.push(format!(
                "request {} was never answered after its stream dropped and was resumed, though {}, the same work sent after the drop, was: judged dropped because of the disconnect, assuming the peer answers the same work in the order it read it",
                name(&w.wire),
                name(&cw.wire)
            ));
            self.emit(Event::Input {
                party: Party::Server,
                input: Input::StreamClosed(id),
            });
            self.server(Output::Dropped(id));
        }
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
                self.errors.push(SessionError {
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
                self.ended = Some("the server closed its output");
            }
            note::TIMEOUT => self.errors.push(SessionError {
                kind: "timeout",
                offset: None,
                message: detail.to_string(),
            }),
            note::FRAMING => self.errors.push(SessionError {
                kind: "framing",
                offset: Some(rec.offset),
                message: detail.to_string(),
            }),
            note::REFUSED => self.errors.push(SessionError {
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
        if let WireMessage::Notification { method, .. } = &msg
            && (method == rules.cancel_method
                || Some(method.as_str()) == rules.session_cancel_method
                || session_cancelled(dialect, &msg).is_some())
        {
            self.cancel_sent = true;
            self.any_cancel = true;
        }
        if let WireMessage::Notification { method, .. } = &msg
            && (method == rules.cancel_method
                || Some(method.as_str()) == rules.session_cancel_method
                || session_cancelled(dialect, &msg).is_some())
        {
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
            self.ended = Some("the client sent exit");
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

    /// What a message of the peer's is in the model, and the prompt it serves (a request of
    /// the agent's, linked by its session).
    fn peer_model(&mut self, msg: &WireMessage) -> (Option<Message>, Option<RequestId>) {
        let dialect = self.ctx.dialect;
        match msg {
            WireMessage::Request { id, params, .. } => {
                let known = to_model(self.ctx, msg, &mut self.ids, |_| None);
                let parent = if names_sessions(dialect) {
                    self.link(session_of(params.as_ref()))
                } else {
                    None
                };
                let Some(parent) = parent else {
                    self.unlinked = true;
                    return (known, None);
                };
                // Any request the agent sends in a prompt turn is one of its nested requests.
                let method = match known {
                    Some(Message::Request { method, .. }) => method,
                    _ => Method::ServerWork,
                };
                let id = self.ids.model(id);
                (Some(Message::Request { id, method }), Some(parent))
            }
            WireMessage::Notification { method, params }
                if names_sessions(dialect)
                    && Some(method.as_str()) == dialect.rules().activity_method =>
            {
                let turn = self.turn_of_update(params.as_ref());
                (turn.map(|id| Message::Activity { id }), None)
            }
            _ => {
                let methods = &self.methods;
                let m = to_model(self.ctx, msg, &mut self.ids, |id| methods.get(id));
                (m, None)
            }
        }
    }

    /// Whether the peer's answer `reply` to the probe's request `id` is the peer giving the
    /// request up on its own (see the module documentation): the dialect's text says how such a
    /// request is answered (`internal-cancel-code` applies), the answer is the request's first,
    /// the probe never cancelled it, and the answer says it was cancelled.
    fn given_up_by_peer(&self, id: RequestId, reply: Reply) -> bool {
        let dialect = self.ctx.dialect;
        let Some(give_up) = dialect.rules().give_up else {
            return false;
        };
        let says_given_up = match reply {
            // -32800 (or a prompt turn's cancelled stop reason) where that is the give-up's
            // answer (ACP); in LSP it says the client cancelled, which this request it did not.
            Reply::Cancelled => !dialect.rules().gives_up_unlike_a_cancel(),
            // (In ACP an error -32800 answering a prompt turn is read as an error: a cancelled
            // prompt turn ends with a result.) LSP's ContentModified and ServerCancelled.
            Reply::Error(code) => give_up.says_given_up(code) || code == SERVER_CANCELLED,
            _ => false,
        };
        says_given_up
            && InvariantId::InternalCancelCode
                .info()
                .application(dialect)
                .is_some()
            && self.methods.contains_key(id)
            && !self.cancelled.contains(id)
            && !self.answered_set.contains(id)
    }

    fn on_received(&mut self, rec: &Record) {
        let msg = match WireMessage::parse(rec.text.as_bytes()) {
            Ok(m) => m,
            Err(e) => {
                self.errors.push(SessionError {
                    kind: "not-json-rpc",
                    offset: Some(rec.offset + e.offset as u64),
                    // The offset is the stream's; the message shows the line it is in.
                    message: format!(
                        "expected {}, found {}, in the peer's message {}",
                        e.expected,
                        e.found,
                        cancelcheck_wire::decode::cut(&rec.text)
                    ),
                });
                return;
            }
        };
        if let WireMessage::Response { id, body } = &msg {
            let opening = if self.initialize.as_ref() == Some(id) {
                self.ctx.dialect.rules().initialize_method
            } else if self.opening.as_ref() == Some(id) {
                Some("session/new")
            } else {
                None
            };
            if let (Some(method), Body::Error { code, message, .. }) = (opening, body)
                && self.handshake_refused.is_none()
            {
                self.handshake_refused = Some(format!(
                    "the peer answered {method} with error {code} ({message:?})"
                ));
            }
            if self.handshake.as_ref() == Some(id) {
                self.handshake = None;
                self.protocol = cancelcheck_wire::client::version_mismatch(self.ctx.dialect, body);
            }
            // An answer to a request the probe sent proves the peer read everything up to
            // that request.
            if let Some((k, barrier)) = self.sent.newest_request(id) {
                self.proves(k);
                if barrier {
                    // The answer to a barrier (or another request the model does not know):
                    // evidence of order only.
                    return;
                }
            }
            let mid = self.ids.model(id);
            // The probe's slow request refused before it ran: the scenario tests nothing.
            if let cancelcheck_wire::Body::Error { code, message, .. } = body
                && REFUSALS.contains(code)
                && self.methods.get(mid).is_some_and(|m| m.is_work())
            {
                self.refused.insert(mid);
                if self.vacuous_because.is_empty() {
                    self.vacuous_because.push(format!(
                        "the peer refused the work request {id} ({}) with error {code} ({message}): it never ran; name a request of the peer's that takes a while with --method and --params, or in a recipe (--recipe: its work, after the set-up the peer needs)",
                        self.ctx.work_method
                    ));
                }
            }
            if self.work.contains(mid) && self.work.answer(mid, rec.t_us, tool_error(body)) {
                self.unanswered_work -= 1;
            }
            // An answer that says "cancelled" proves the peer read a cancel for it.
            let cancelled = matches!(body, cancelcheck_wire::Body::Error { code: -32800, .. })
                || matches!(
                    to_model(self.ctx, &msg, &mut self.ids, |_| None),
                    Some(Message::Response {
                        reply: Reply::Cancelled,
                        ..
                    })
                );
            if cancelled && let Some(k) = self.sent.first_cancel(mid) {
                self.proves(k);
            }
            if !cancelled {
                self.crossed_or_caused(rec, mid, id, body);
            }
        }
        let (model, parent) = self.peer_model(&msg);
        let Some(m) = model else { return };
        if let (Message::Activity { id }, true) = (
            m,
            rec.stream.as_deref().is_some_and(|s| s.starts_with("get-")),
        ) && !self.on_get_stream(id)
        {
            return;
        }
        match m {
            Message::Activity { id } => {
                // Progress about a request proves the peer read it.
                if let Some(k) = self.sent.first_request(id) {
                    self.proves(k);
                }
            }
            Message::Request { id, .. } => {
                self.peer_requests.insert(
                    id,
                    PeerRequest {
                        cancelled: false,
                        answered: false,
                        resolved: false,
                    },
                );
                if let Some(parent) = parent {
                    self.server(Output::Nested { parent, child: id });
                }
            }
            Message::Cancel { id, .. } => {
                self.any_cancel = true;
                if let Some(r) = self.peer_requests.get_mut(&id) {
                    r.cancelled = true;
                    self.judged_cancel = true;
                }
            }
            Message::MalformedCancel => {
                self.any_cancel = true;
                self.judged_cancel = true;
            }
            Message::Response { id, .. } if self.methods.contains_key(id) => {
                self.children_may_be_resolved(id);
            }
            _ => {}
        }
        if let Message::Response { id, reply } = m
            && self.given_up_by_peer(id, reply)
        {
            self.ambiguous_give_up |= self.cancel_sent;
            self.emit(Event::Input {
                party: Party::Server,
                input: Input::InternalCancel(id),
            });
        }
        self.server(Output::Send(m));
        self.emit(Event::Input {
            party: Party::Client,
            input: Input::Receive(m),
        });
        if let Message::Response { id, reply } = m
            && self.methods.contains_key(id)
        {
            // (Only a prompt turn's `session/update` asks which prompt was answered last.)
            if self.answered_set.insert(id) && self.ctx.prompt_turn() {
                self.answered.push(id);
            }
            if self.resolved.insert(id) {
                self.emit(delivered(id, Outcome::Reply(reply)));
            }
        }
    }

    /// An answer to a work request the probe cancelled that came before the peer was proved to
    /// have read that cancel, and that does not say "cancelled", either crossed the cancel or
    /// was caused by it. Sooner than the declared shortest duration of the work after the
    /// request was sent ([`note::MIN_WORK`]), the cancel caused it: the peer had read the cancel
    /// (an assumption the verdict names). Otherwise nothing on the wire decides it for an error
    /// answer, whose code is judged only if the cancel caused it: not decidable. (A result is
    /// the allowed side either way.)
    fn crossed_or_caused(&mut self, rec: &Record, mid: RequestId, id: &WireId, body: &Body) {
        if matches!(body, Body::Error { code, .. } if REFUSALS.contains(code)) {
            return;
        }
        let Some(sent_us) = self.work.sent_us(mid) else {
            return;
        };
        let Some(k) = self.sent.first_cancel(mid) else {
            return;
        };
        if self.sent.is_read(k) {
            return;
        }
        let after_ms = rec.t_us.saturating_sub(sent_us) / 1000;
        let what = match (body, tool_error(body)) {
            (Body::Error { code, message, .. }, _) => format!("error {code} ({message:?})"),
            (_, Some(text)) => format!("a tool error ({text:?})"),
            _ => "a result".to_string(),
        };
        let id = id.to_json_text();
        match self.min_work_us {
            Some(min) if rec.t_us.saturating_sub(sent_us) < min => {
                self.proves(k);
                self.assumptions.push(format!(
                    "the answer to request {id} ({what}) came {after_ms} ms after the request was sent, after its cancel and sooner than the {} ms the work takes at least (--min-work-ms): judged caused by the cancel, which the peer had then read, assuming the work never ends sooner on its own",
                    min / 1000
                ));
            }
            // A tool's error result is an error answer too, in a result's clothes.
            _ if matches!(body, Body::Error { .. }) || tool_error(body).is_some() => {
                let declared = match self.min_work_us {
                    Some(min) => format!(
                        " (it came later than the {} ms declared with --min-work-ms)",
                        min / 1000
                    ),
                    None => String::new(),
                };
                let fix = if self.min_work_us.is_some() {
                    "only an answer sooner than that is decided"
                } else {
                    "declare how long the work takes at least with --min-work-ms N to decide"
                };
                self.undecided.push(format!(
                    "not decidable: the answer to request {id} ({what}) came {after_ms} ms after the request was sent, after its cancel but before the peer was proved to have read it{declared}: it may have crossed the cancel (an ordinary failure, the allowed side) or been caused by it (then it is judged as a cancelled request's answer); {fix}"
                ));
            }
            _ => {}
        }
    }

    /// Why no cancel reached a work request in flight, and what would fix it.
    fn why_not_in_flight(&self) -> String {
        if self.withheld && !self.any_cancel {
            return self.declined();
        }
        const FIX: &str = "name a slower one with --method/--params (or a recipe's work), or raise its duration; a peer that answers at once until it is ready needs a recipe's ready wait";
        let cancel = if !self.cancels_at.is_empty() {
            "before the cancel"
        } else {
            "before the scenario's moment to cancel it (no cancel was sent)"
        };
        let Some(w) = self.work.last_answered() else {
            return format!("no work request was in flight when a cancel was sent: {FIX}");
        };
        let (id, ms) = w.id_and_ms();
        let tool = w
            .tool_error
            .as_ref()
            .map(|t| format!(" with a tool error ({t:?})"))
            .unwrap_or_default();
        format!(
            "the work request {id} ({}) was answered{tool} {ms} ms after it was sent, {cancel}: {FIX}",
            self.ctx.work_method
        )
    }

    /// Why a session with a peer that declared no cancel support tested nothing.
    fn declined(&self) -> String {
        format!(
            "the peer's initialize answer declares no support for {} (cancellation.request), so the probe held its cancel back (capability-gated binds the sender): the scenario tested nothing; a peer that handles the cancel declares it",
            self.ctx.dialect.rules().cancel_method
        )
    }

    /// A work request no cancel named that the peer answered with a tool's error: the work
    /// fails on its own (a tool it does not have, arguments it refuses), so what a cancel did
    /// to a request of it cannot be told from its answer.
    fn failed_on_its_own(&self) -> Option<String> {
        // (An answer with a tool's error keeps its whole entry.)
        let (_, w) = self
            .work
            .whole()
            .find(|(id, w)| w.tool_error.is_some() && !self.cancelled.contains(**id))?;
        let (id, ms) = w.id_and_ms();
        Some(format!(
            "the work request {id} ({}), which no cancel named, was answered with a tool error ({:?}) {ms} ms after it was sent: the work fails on its own, so what a cancel did to it cannot be told; name a request that succeeds and takes a while with --method/--params (or a recipe's work, after the set-up it needs)",
            self.ctx.work_method,
            w.tool_error.as_deref().unwrap_or("")
        ))
    }

    /// Work requests the peer dropped: never answered, never cancelled by the probe, sent
    /// before a cancel (naming something else) that the peer was proved to have read before a
    /// control, the same work sent after that proof, which it answered. On a FIFO stream the
    /// peer read each such request before its control; no time limit tells a dropped request
    /// from slow work, so this rests on an assumption, named in the verdict: the peer answers
    /// the same work in the order it read it. The probe sends every work request of a session
    /// with the same method and params.
    fn dropped(&mut self) {
        if self.gone {
            return;
        }
        let answered = |id: &RequestId, w: &WorkTimes| {
            w.answered_us.is_some() && w.tool_error.is_none() && !self.refused.contains(id)
        };
        let mut found = Vec::new();
        // (An unanswered request keeps its whole entry.)
        for (id, w) in self.work.whole() {
            if w.answered_us.is_some() || self.cancelled.contains(*id) || self.refused.contains(id)
            {
                continue;
            }
            let control = if self.http {
                self.work
                    .whole()
                    .find(|&(c, cw)| {
                        answered(c, cw)
                            && cw.after_read_cancel.is_some_and(|k| w.at < k)
                            && cw.taken_before.contains(id)
                    })
                    .map(|(_, cw)| cw.wire.clone())
            } else {
                self.work.first_control(w.at, &self.refused)
            };
            if let Some(control) = control {
                found.push((*id, w.wire.clone(), control));
            }
        }
        for (id, wire, control) in found {
            let name = |w: Option<WireId>| w.map(|w| w.to_json_text()).unwrap_or_default();
            self.assumptions.push(format!(
                "request {} was never answered though {}, the same work read after it and after the peer had read a cancel naming another id, was: judged dropped for that cancel (exact-id-match), assuming the peer answers the same work in the order it read it",
                name(wire),
                name(control)
            ));
            self.server(Output::Dropped(id));
        }
    }

    fn finish(mut self) -> Judgement {
        let dialect = self.ctx.dialect;
        // What the server answered 202 it read before the 202, at no moment known against the
        // other streams: told to the checker last, so that nothing is judged after it.
        for k in std::mem::take(&mut self.deferred) {
            self.read(k);
        }
        self.dropped();
        if self.http {
            self.dropped_on_disconnect();
        }
        self.emit(Event::End {
            quiescent: true,
            open_incoming: [0, 0],
        });
        let mut verdict = self.checker.take_verdict();
        // What the wire cannot decide is never reported as broken, nor as passed; a breach the
        // wire shows of a rule it cannot always decide stands. A give-up that may as well have
        // been a cancel taken for the wrong request decides neither rule.
        let shown = verdict.violated();
        let mut hidden = not_observable(dialect);
        if self.http {
            // Over Streamable HTTP the rules of the streams are judged where the wire shows
            // them broken; the rules of what follows a cancel read only so (a 202 proves the
            // read, not when it was among what the other streams carried).
            hidden.retain(|i| !(HTTP_SHOWN_WHEN_BROKEN.contains(i) && shown.contains(*i)));
            for i in HTTP_CROSS_STREAM
                .into_iter()
                .chain(self.cross_stream.iter().copied())
            {
                if i.info().application(dialect).is_some()
                    && !shown.contains(i)
                    && !hidden.contains(&i)
                {
                    hidden.push(i);
                }
            }
            hidden.sort();
        }
        if self.ambiguous_give_up {
            if !shown.contains(InvariantId::ExactIdMatch) {
                hidden.push(InvariantId::ExactIdMatch);
                hidden.sort();
            }
        } else {
            hidden.retain(|i| !(SHOWN_WHEN_BROKEN.contains(i) && shown.contains(*i)));
        }
        // A session the record shows ended decides what it left unanswered: never answered.
        if self.ended.is_some() && !self.http {
            hidden.retain(|i| *i != InvariantId::EventualResolution);
        }
        // The probe's own duties judge the probe; a client's own record shows the client's.
        let own_judged = self.audit == Some(Vantage::Client);
        if self.audit == Some(Vantage::Between) {
            hidden.extend(
                PROBE_OWN_DUTIES
                    .into_iter()
                    .filter(|i| i.info().application(dialect).is_some()),
            );
            // An id reused after the earlier request's answer passed by: live or not depends on
            // whether the client had read it. A reuse the record shows live stands.
            if self.reuse_undecided && !shown.contains(InvariantId::NoLiveIdReuse) {
                hidden.push(InvariantId::NoLiveIdReuse);
            }
            hidden.sort();
        }
        // A transcript that holds no handshake (it starts after one) cannot show what was
        // sent before the handshake was answered.
        if self.audit.is_some() && !self.handshake_sent {
            for i in [
                InvariantId::NoRequestBeforeInitialize,
                InvariantId::InitializeNotCancelled,
            ] {
                if i.info().application(dialect).is_some() && !hidden.contains(&i) {
                    hidden.push(i);
                }
            }
            hidden.sort();
        }
        verdict.violations.retain(|v| {
            !hidden.contains(&v.invariant)
                && (own_judged || !PROBE_OWN_DUTIES.contains(&v.invariant))
        });
        if self.unlinked {
            // A request of the peer's that names no single open prompt: the rules of request
            // trees cannot be decided for it. One seen broken for a linked request stands.
            let broken = verdict.violated();
            for i in TREE_RULES {
                if i.info().application(dialect).is_some()
                    && !hidden.contains(&i)
                    && !broken.contains(i)
                {
                    hidden.push(i);
                }
            }
            hidden.sort();
        }
        let work_fails = self.failed_on_its_own();
        let not_in_flight = if self.in_flight {
            work_fails.clone()
        } else {
            Some(self.why_not_in_flight())
        };
        // A transcript claims nothing: it exercised cancellation if a cancel crossed the wire
        // naming a request the judge follows.
        let exercised = self.audit.is_some() && self.judged_cancel;
        if self.audit.is_some() && !self.any_cancel {
            self.vacuous_because.push(
                "the transcript holds no cancel, either way: nothing about cancellation was exercised; record a session in which a request is cancelled".to_string(),
            );
        } else if self.audit.is_some() && self.work.is_empty() && !self.judged_cancel {
            self.vacuous_because.push(format!(
                "no request of the judged method ({}) occurs in the session, and no cancel named a request the judge follows: the cancels that crossed were not judged; name the method the cancels name with --method",
                self.ctx.work_method
            ));
        } else if self.audit.is_some() && !self.judged_cancel {
            self.vacuous_because.push(format!(
                "no cancel named a request the judge follows (requests of {}, the handshake, or the server's own requests): the cancels that crossed were not judged; name the method the cancels name with --method",
                self.ctx.work_method
            ));
        }
        // A cancelled request the record leaves unanswered, where the dialect owes it an
        // answer, in a record that does not show the session ended: whether it was answered
        // later is not observable.
        if self.audit.is_some()
            && self.ended.is_none()
            && dialect.rules().requester_waits
            && self.vacuous_because.is_empty()
            && let Some(w) = self
                .work
                .whole()
                .find(|(id, w)| self.cancelled.contains(**id) && w.answered_us.is_none())
                .map(|(_, w)| w)
        {
            let (id, _) = w.id_and_ms();
            self.vacuous_because.push(format!(
                "request {id} ({}) was cancelled and the record holds no answer to it, nor the end of the session: whether it was answered is not observable; record the session to its end (LSP's exit, or watch until the server exits)",
                self.ctx.work_method
            ));
        }
        if self.audit.is_none() && self.withheld && self.vacuous_because.is_empty() {
            self.vacuous_because.push(self.declined());
        }
        if self.audit.is_none() && self.work.is_empty() && self.vacuous_because.is_empty() {
            // A probe session that never sent its work request tested nothing, whatever it
            // claims; where a session error says why (the peer gone, a timeout), that fails it.
            if let Some(refused) = &self.handshake_refused {
                self.vacuous_because.push(format!(
                    "{refused}: no session opened, so the probe sent no work request; check that the command starts a server of {dialect}, and give what it needs first in a recipe (--recipe FILE: its initialize params, or set-up steps such as an agent's authenticate)"
                ));
            } else if self.errors.is_empty() {
                self.vacuous_because.push(format!(
                    "the probe sent no work request ({}): the session ended before it; check that the command starts a server of {dialect} and what it needs to open a session (a recipe, --recipe FILE)",
                    self.ctx.work_method
                ));
            }
        }
        if self.vacuous_because.is_empty() {
            self.vacuous_because = self.undecided;
        }
        Judgement {
            verdict,
            events: self.events,
            errors: self.errors,
            not_observable: hidden,
            protocol: self.protocol,
            handshake_refused: self.handshake_refused,
            vacuous_because: self.vacuous_because,
            assumptions: self.assumptions,
            exercised_in_flight: exercised,
            not_in_flight,
            work_fails,
            record_ends: Vec::new(),
        }
    }
}

/// Judges one recorded session of the scenario `name` (see the module documentation), with
/// what that scenario claims ([`Judgement::claim`]); an unknown name claims nothing.
pub fn judge_scenario(ctx: &Context, name: &str, records: &[Record]) -> Judgement {
    let mut j = judge(ctx, records);
    j.claim(super::scenario::by_name(name).is_some_and(|s| s.in_flight));
    let no_get = |r: &Record| r.dir == Dir::Note && r.text.starts_with(note::NO_GET);
    if name == super::scenario::AFTER_CLOSE
        && j.vacuous_because.is_empty()
        && records.iter().any(no_get)
    {
        j.vacuous_because.push(
            "the server offers no standalone stream (405 to the GET; MCP 2026-07-28 has none): after the request's stream closed nothing more for it can reach the client, so whether the server sent any is not observable".to_string(),
        );
        j.exercised_in_flight = false;
    }
    if name == super::scenario::SESSION_CANCEL
        && j.vacuous_because.is_empty()
        && let Some(method) = cancelcheck_wire::shapes::of(ctx.dialect).permission_method()
        && !asked_before_cancel(ctx.dialect, method, records)
    {
        j.vacuous_because.push(format!(
            "the agent sent no {method} before the probe's session/cancel: the scenario's point, a cancel while the agent waits on its own permission request, was not reached; give a prompt that makes the agent ask (--params, or a recipe's work)"
        ));
    }
    let dropped = |r: &Record| r.dir == Dir::Note && r.text.starts_with(note::STREAM_LOST);
    if name == super::scenario::DISCONNECT
        && j.vacuous_because.is_empty()
        && !records.iter().any(dropped)
    {
        j.vacuous_because.push(
            "the work request was answered before its stream could be dropped: no disconnect happened during the work; name a slower request with --method/--params".to_string(),
        );
    }
    j
}

/// Whether the peer sent a request of `method` before the probe's first prompt-turn cancel.
fn asked_before_cancel(dialect: Dialect, method: &str, records: &[Record]) -> bool {
    for r in records {
        let Ok(m) = WireMessage::parse(r.text.as_bytes()) else {
            continue;
        };
        match r.dir {
            Dir::Received if matches!(&m, WireMessage::Request { method: x, .. } if x == method) => {
                return true;
            }
            Dir::Sent if session_cancelled(dialect, &m).is_some() => return false,
            _ => {}
        }
    }
    false
}

/// Judges one recorded session (see the module documentation).
pub fn judge(ctx: &Context, records: &[Record]) -> Judgement {
    let mut j = Judging::new(ctx, None);
    for rec in records {
        j.push(rec);
    }
    j.finish()
}

/// What a [`Judging`] holds ([`Judging::held`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Held {
    /// The checker's records of requests (see `Checker::held`).
    pub records: usize,
    /// The messages sent that it keeps.
    pub messages: usize,
    /// The events it keeps (none when bounded).
    pub events: usize,
    /// The pieces the checker's retired records take: a run per stretch of consecutive
    /// integer ids settled alike.
    pub retired: usize,
}

/// A judgement fed one record at a time, so a transcript of any size can be judged while it is
/// read: it holds what each message did (the checker's events), never the messages' text.
pub struct Judging<'c>(Judge<'c>, Vec<usize>);

impl<'c> Judging<'c> {
    /// A judgement of a probe session (`audit: None`: the probe is the client, its own duties
    /// are not judged) or of a transcript recorded from a [`Vantage`] (`cancelcheck audit`:
    /// both parties are black boxes; the client is the side whose messages are [`Dir::Sent`];
    /// a transcript in which no cancel crossed the wire is vacuous).
    pub fn new(ctx: &'c Context, audit: Option<Vantage>) -> Self {
        let mut checker = Checker::new(ctx.dialect, 16);
        checker.set_fifo(true);
        Judging(
            Judge {
                ctx,
                checker,
                events: Vec::new(),
                errors: Vec::new(),
                ids: IdMap::new(),
                sent: Sent::new(),
                methods: Methods::default(),
                resolved: IdSet::default(),
                cancelled: IdSet::default(),
                cancel_sent: false,
                ambiguous_give_up: false,
                answered: Vec::new(),
                answered_set: IdSet::default(),
                read_below: 0,
                prompts: Vec::new(),
                peer_requests: BTreeMap::new(),
                unlinked: false,
                gone: false,
                handshake: None,
                handshake_sent: false,
                protocol: None,
                initialize: None,
                opening: None,
                handshake_refused: None,
                work: WorkTable::new(false),
                refused: BTreeSet::new(),
                in_flight: false,
                vacuous_because: Vec::new(),
                cancels_at: Vec::new(),
                assumptions: Vec::new(),
                audit,
                any_cancel: false,
                withheld: false,
                ended: None,
                client_closed: false,
                judged_cancel: false,
                reuse_undecided: false,
                client_ids: WireIds::default(),
                min_work_us: None,
                undecided: Vec::new(),
                http: false,
                lanes: BTreeMap::new(),
                deferred: Vec::new(),
                closes: BTreeMap::new(),
                lost: BTreeMap::new(),
                cross_stream: BTreeSet::new(),
                unanswered_work: 0,
                retire_at: 0,
                bounded: false,
            },
            Vec::new(),
        )
    }

    /// [`Judging::new`], keeping only what is still open, so that its memory is bounded by the
    /// requests in flight and the messages the peer is not yet known to have read, not by the
    /// session's length (`cancelcheck audit` and `watch`, whose sessions may be of any
    /// length). Its verdict is [`Judging::new`]'s; its judgement holds no events
    /// ([`Judgement::events`] is empty, and [`Judgement::record_of`] says `None`).
    pub fn bounded(ctx: &'c Context, audit: Option<Vantage>) -> Self {
        let mut j = Judging::new(ctx, audit);
        j.0.bounded = true;
        j.0.sent = Sent::bounded();
        j.0.work = WorkTable::new(true);
        j
    }

    /// Judges the next record.
    pub fn push(&mut self, rec: &Record) {
        match rec.dir {
            Dir::Note => self.0.on_note(rec),
            Dir::Sent => self.0.on_sent(rec),
            Dir::Received => self.0.on_received(rec),
        }
        if self.0.bounded {
            // Once the records held have doubled since the last retiring, so that its walk
            // costs a constant per record.
            if self.0.checker.held().0 >= self.0.retire_at {
                self.0.checker.retire_settled();
                self.0.retire_at = 2 * self.0.checker.held().0 + 32;
            }
        } else {
            self.1.push(self.0.events.len());
        }
    }

    /// What the judgement holds so far that grows with the session unless it is
    /// [bounded](Judging::bounded): bounded, the first two stay within a few times what is still
    /// open, whatever the session's length.
    pub fn held(&self) -> Held {
        let (records, retired) = self.0.checker.held();
        Held {
            records,
            messages: self.0.sent.held(),
            events: self.0.events.len(),
            retired,
        }
    }

    /// The judgement of everything pushed.
    pub fn finish(self) -> Judgement {
        let mut judgement = self.0.finish();
        judgement.record_ends = self.1;
        judgement
    }
}

/// Judges a transcript recorded from `vantage` (see [`Judging::new`]).
pub fn judge_transcript(ctx: &Context, vantage: Vantage, records: &[Record]) -> Judgement {
    let mut j = Judging::new(ctx, Some(vantage));
    for rec in records {
        j.push(rec);
    }
    j.finish()
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
mod tests {
    use super::*;

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
        assert_eq!(crossed.status(), Status::Pass, "{:?}", crossed.verdict);
        let after = judge(&ctx, &session(true));
        assert_eq!(after.status(), Status::Fail);
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
        assert_eq!(j.status(), Status::Fail);
    }

    /// An error answer that does not say "cancelled", before the barrier's answer, crossed the
    /// cancel or was caused by it: not decidable, never a pass; sooner than the declared
    /// shortest duration of the work, caused by it, with that assumption named.
    #[test]
    fn an_error_answer_before_the_barrier_is_not_decidable_unless_sooner_than_the_work() {
        let ctx = Context::new(Dialect::Mcp20260728);
        let zero = r#"{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"Request cancelled"}}"#;
        let mut r = session(false);
        r[3] = rec(Dir::Received, zero);
        let j = judge(&ctx, &r);
        assert_eq!(j.status(), Status::Vacuous, "{:?}", j.verdict);
        assert!(
            j.vacuous_because[0].starts_with("not decidable: "),
            "{:?}",
            j.vacuous_because
        );
        // Work that takes at least 200 ms, answered 5 ms after it was sent.
        let declared = format!("{}: {}", note::MIN_WORK, min_work_note(200));
        let mut timed = vec![rec(Dir::Note, &declared)];
        timed.extend(r.iter().cloned());
        timed[4].t_us = 5_000;
        let j = judge(&ctx, &timed);
        assert_eq!(broken(&j), [InvariantId::NoAnswerAfterCancel]);
        assert!(
            j.assumptions[0].contains("sooner than the 200 ms"),
            "{:?}",
            j.assumptions
        );
        assert!(j.vacuous_because.is_empty());
        // Answered later than that: not decidable still.
        timed[4].t_us = 250_000;
        let j = judge(&ctx, &timed);
        assert_eq!(j.status(), Status::Vacuous, "{:?}", j.verdict);
        // A result that crossed the cancel is the allowed side, as before.
        assert_eq!(judge(&ctx, &session(false)).status(), Status::Pass);
    }

    /// An ACP session with opaque session id `"s-opaque"`: `initialize` (1, answered with
    /// cancellation declared, as the RFD asks) and the prompt (2).
    fn acp_opening() -> Vec<Record> {
        vec![
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            ),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"cancellation":{"request":true}}}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s-opaque","prompt":[]}}"#,
            ),
        ]
    }

    /// The agent's permission request 0 naming `session`.
    fn asks(session: &str) -> Record {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{{"sessionId":"{session}","options":[]}}}}"#
        );
        rec(Dir::Received, &text)
    }

    const SESSION_CANCEL: &str =
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s-opaque"}}"#;
    const PERMISSION_CANCELLED: &str =
        r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}"#;
    const PROMPT_CANCELLED: &str =
        r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}"#;
    const PROMPT_ENDED: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}"#;
    const BARRIER: &str = r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"b"}"#;
    const BARRIER_ANSWERED: &str =
        r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","error":{"code":-32601,"message":"no"}}"#;

    fn broken(j: &Judgement) -> Vec<InvariantId> {
        j.verdict.violations.iter().map(|v| v.invariant).collect()
    }

    /// Asserts that `j` found exactly `finding` (the invariant broken and the status it makes),
    /// or nothing.
    fn assert_found(j: &Judgement, finding: Option<(InvariantId, &str)>) {
        match finding {
            Some((inv, status)) => {
                assert_eq!(broken(j), [inv], "{:?}", j.verdict);
                assert_eq!(j.status().as_str(), status);
            }
            None => assert_eq!(j.status(), Status::Pass, "{:?}", j.verdict),
        }
    }

    /// ACP: the agent's permission request names the prompt's session, so it is the prompt's
    /// child. A prompt answered before the probe had sent its answer to that request was
    /// answered with it unresolved; one answered after may have read it (the allowed side).
    #[test]
    fn a_prompt_answered_before_its_permission_request_was_answered_breaks_children_before_parent()
    {
        let ctx = Context::new(Dialect::Acp);
        for prompt_first in [true, false] {
            let mut r = acp_opening();
            r.extend([asks("s-opaque"), rec(Dir::Sent, SESSION_CANCEL)]);
            let (a, b) = (
                rec(Dir::Received, PROMPT_CANCELLED),
                rec(Dir::Sent, PERMISSION_CANCELLED),
            );
            if prompt_first {
                r.extend([a, b]);
            } else {
                r.extend([b, a]);
            }
            let j = judge(&ctx, &r);
            assert!(j.events.iter().any(|e| matches!(
                e,
                Event::Output {
                    party: Party::Server,
                    output: Output::Nested { .. }
                }
            )));
            assert!(
                !j.not_observable
                    .contains(&InvariantId::ChildrenBeforeParent)
            );
            let finding = (InvariantId::ChildrenBeforeParent, "warn");
            assert_found(&j, prompt_first.then_some(finding));
        }
    }

    /// ACP: `session/cancel` cancels the prompt turn of the session it names, and nothing in
    /// another: an agent that ends its turn `end_turn` after a cancel naming another session
    /// (or the model's own `sess-2`) did right; after one naming its session, wrong.
    #[test]
    fn session_cancel_cancels_only_the_turn_of_the_session_it_names() {
        let ctx = Context::new(Dialect::Acp);
        for (session, finding) in [
            (
                "s-opaque",
                Some((InvariantId::PromptCancelledStopReason, "fail")),
            ),
            ("sess-2", None),
        ] {
            let mut r = acp_opening();
            let cancel = format!(
                r#"{{"jsonrpc":"2.0","method":"session/cancel","params":{{"sessionId":"{session}"}}}}"#
            );
            r.extend([
                rec(Dir::Sent, &cancel),
                rec(Dir::Sent, BARRIER),
                rec(Dir::Received, BARRIER_ANSWERED),
                rec(Dir::Received, PROMPT_ENDED),
            ]);
            assert_found(&judge(&ctx, &r), finding);
        }
    }

    /// ACP RFD: a request the agent sends on behalf of a prompt after the barrier proved it had
    /// read the prompt's cancel breaks no-child-after-cancel; one sent before that proof may
    /// have crossed the cancel.
    #[test]
    fn a_request_sent_after_the_cancel_was_read_breaks_no_child_after_cancel() {
        // The probe's slow request in both ACP dialects.
        let mut ctx = Context::new(Dialect::AcpRfd);
        ctx.work_method = "session/prompt".into();
        for after_barrier in [true, false] {
            let mut r = acp_opening();
            r.extend([rec(Dir::Sent, SESSION_CANCEL), rec(Dir::Sent, BARRIER)]);
            if after_barrier {
                r.extend([rec(Dir::Received, BARRIER_ANSWERED), asks("s-opaque")]);
            } else {
                r.extend([asks("s-opaque"), rec(Dir::Received, BARRIER_ANSWERED)]);
            }
            r.extend([
                rec(Dir::Sent, PERMISSION_CANCELLED),
                rec(Dir::Received, PROMPT_CANCELLED),
            ]);
            let finding = after_barrier.then_some((InvariantId::NoChildAfterCancel, "fail"));
            assert_found(&judge(&ctx, &r), finding);
        }
    }

    /// A request that names no session, a session of no open prompt, or one of two open
    /// prompts is left unlinked, and the rules of request trees are then not observable. A
    /// session id is opaque: `sess-2` does not name request 2.
    #[test]
    fn an_unlinked_request_makes_the_rules_of_request_trees_not_observable() {
        let ctx = Context::new(Dialect::Acp);
        let second = rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s-opaque","prompt":[]}}"#,
        );
        let no_session = rec(
            Dir::Received,
            r#"{"jsonrpc":"2.0","id":0,"method":"terminal/create","params":{"command":"ls"}}"#,
        );
        for (extra, request) in [
            (None, no_session),
            (None, asks("sess-2")),
            (Some(second), asks("s-opaque")),
        ] {
            let mut r = acp_opening();
            r.extend(extra);
            // Answered before the probe answers the agent: decided only if linked.
            r.extend([request, rec(Dir::Received, PROMPT_ENDED)]);
            let j = judge(&ctx, &r);
            assert!(
                j.not_observable
                    .contains(&InvariantId::ChildrenBeforeParent),
                "{r:?}"
            );
            assert!(broken(&j).is_empty(), "{:?}", j.verdict);
            assert!(!j.events.iter().any(|e| matches!(
                e,
                Event::Output {
                    output: Output::Nested { .. },
                    ..
                }
            )));
        }
        // Linked, the same order is a finding, and the rule is observable.
        let mut r = acp_opening();
        r.extend([asks("s-opaque"), rec(Dir::Received, PROMPT_ENDED)]);
        let j = judge(&ctx, &r);
        assert_eq!(broken(&j), [InvariantId::ChildrenBeforeParent]);
        assert_eq!(j.not_observable, not_observable(Dialect::Acp));
    }

    /// ACP: a `session/update` with a turn's content naming the session of a prompt already
    /// answered came after that answer; one about the session itself (its commands) may come
    /// at any time; one naming another session (`sess-2`, whatever its text) is about no
    /// prompt of the probe's.
    #[test]
    fn a_turn_update_after_the_prompt_is_answered_is_activity_after_answer() {
        let ctx = Context::new(Dialect::Acp);
        let update = |session: &str, kind: &str| {
            let text = format!(
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{{"sessionUpdate":"{kind}"}}}}}}"#
            );
            rec(Dir::Received, &text)
        };
        for (u, after) in [
            (update("s-opaque", "agent_message_chunk"), true),
            (update("s-opaque", "available_commands_update"), false),
            (update("sess-2", "agent_message_chunk"), false),
        ] {
            let mut r = acp_opening();
            r.extend([rec(Dir::Received, PROMPT_ENDED), u]);
            let finding = after.then_some((InvariantId::NoActivityAfterAnswer, "warn"));
            assert_found(&judge(&ctx, &r), finding);
        }
    }

    /// Whether the judge fed the checker the peer's giving up of a request on its own.
    fn gave_up(j: &Judgement) -> bool {
        j.events.iter().any(|e| {
            matches!(
                e,
                Event::Input {
                    party: Party::Server,
                    input: Input::InternalCancel(_)
                }
            )
        })
    }

    /// The prompt of [`acp_opening`] in `d`, answered with `answer` (the `result` or `error`
    /// member), after the probe's cancel for it and a barrier when `cancelled`.
    fn prompt_answered(d: Dialect, cancelled: bool, answer: &str) -> Judgement {
        let mut ctx = Context::new(d);
        ctx.work_method = "session/prompt".into();
        let mut r = acp_opening();
        if cancelled {
            let cancel = match d {
                Dialect::Acp => {
                    r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}"#
                }
                _ => r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}"#,
            };
            // The barrier's answer proves the agent read the cancel before it answered.
            r.extend([
                rec(Dir::Sent, cancel),
                rec(Dir::Sent, BARRIER),
                rec(Dir::Received, BARRIER_ANSWERED),
            ]);
        }
        r.push(rec(
            Dir::Received,
            &format!(r#"{{"jsonrpc":"2.0","id":2,{answer}}}"#),
        ));
        judge(&ctx, &r)
    }

    const CANCELLED_ERROR: &str = r#""error":{"code":-32800,"message":"Cancelled"}"#;
    const CANCELLED_STOP: &str = r#""result":{"stopReason":"cancelled"}"#;
    /// LSP's ServerCancelled: "the server cancelled the request", in another code than -32800.
    const SERVER_CANCELLED_ERROR: &str = r#""error":{"code":-32802,"message":"Server cancelled"}"#;
    const INTERNAL_ERROR: &str = r#""error":{"code":-32603,"message":"Internal error"}"#;

    /// ACP and the ACP RFD: an answer that says "cancelled" (error -32800, or the prompt turn's
    /// `stopReason: cancelled`) to a request the probe never cancelled is the agent giving it up
    /// on its own, which the texts let it do ("SHOULD: ... Send the same -32800 (Cancelled) error
    /// response"): internal cancellation, not a cancel meant for another request.
    #[test]
    fn a_cancelled_answer_to_a_request_nobody_cancelled_is_internal_cancellation() {
        for d in [Dialect::Acp, Dialect::AcpRfd] {
            for answer in [CANCELLED_ERROR, CANCELLED_STOP] {
                let j = prompt_answered(d, false, answer);
                assert_found(&j, None);
                assert!(gave_up(&j), "{d} {answer}");
            }
        }
    }

    /// A give-up answered with LSP's code for a request the server cancelled (-32802) rather
    /// than -32800 breaks `internal-cancel-code` (a SHOULD), which the wire then shows though it
    /// cannot decide the rule in general: an answer with an ordinary error code (-32603) may be
    /// a failure as well as a give-up, so the rule stays not observable and nothing is flagged.
    #[test]
    fn a_give_up_answered_with_another_cancel_code_breaks_internal_cancel_code() {
        for d in [Dialect::Acp, Dialect::AcpRfd] {
            let j = prompt_answered(d, false, SERVER_CANCELLED_ERROR);
            assert_found(&j, Some((InvariantId::InternalCancelCode, "warn")));
            assert!(!j.not_observable.contains(&InvariantId::InternalCancelCode));
            let j = prompt_answered(d, false, INTERNAL_ERROR);
            assert_found(&j, None);
            assert!(!gave_up(&j));
            assert!(j.not_observable.contains(&InvariantId::InternalCancelCode));
        }
    }

    /// LSP: a server that gives a request up on its own answers `ContentModified` (-32801), or
    /// `ServerCancelled` (-32802) "only ... for requests that explicitly support being server
    /// cancellable", which `workspace/executeCommand` does not: to a request nobody cancelled,
    /// either is a give-up, and -32802 breaks `internal-cancel-code` (a SHOULD). -32800 says
    /// the client cancelled: to a request nobody cancelled, a cancel meant for another.
    #[test]
    fn lsp_give_ups_are_content_modified_never_server_cancelled() {
        let ctx = Context::new(Dialect::Lsp);
        let answered = |answer: &str| {
            let r = [
                rec(
                    Dir::Sent,
                    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#,
                ),
                rec(
                    Dir::Received,
                    r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}"#,
                ),
                rec(
                    Dir::Sent,
                    r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
                ),
                rec(
                    Dir::Sent,
                    r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"c"}}"#,
                ),
                rec(
                    Dir::Received,
                    &format!(r#"{{"jsonrpc":"2.0","id":1,{answer}}}"#),
                ),
            ];
            judge(&ctx, &r)
        };
        let j = answered(SERVER_CANCELLED_ERROR);
        assert_found(&j, Some((InvariantId::InternalCancelCode, "warn")));
        assert!(gave_up(&j));
        let j = answered(r#""error":{"code":-32801,"message":"Content modified"}"#);
        assert_found(&j, None);
        assert!(gave_up(&j));
        let j = answered(CANCELLED_ERROR);
        assert_found(&j, Some((InvariantId::ExactIdMatch, "fail")));
        assert!(!gave_up(&j));
    }

    /// Soundness: an answer to a request the probe did cancel is judged against that cancel
    /// (-32802 breaks `cancel-error-code`, a MUST, as before); and where the text says nothing of
    /// internal cancellation (MCP), a -32800 answer to a request nobody cancelled is still a
    /// cancel meant for another request.
    #[test]
    fn only_an_uncancelled_request_in_acp_is_taken_for_internal_cancellation() {
        for d in [Dialect::Acp, Dialect::AcpRfd] {
            let j = prompt_answered(d, true, SERVER_CANCELLED_ERROR);
            assert_found(&j, Some((InvariantId::CancelErrorCode, "fail")));
            assert!(!gave_up(&j));
        }
        let ctx = Context::new(Dialect::Mcp20251125);
        let r = [
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
            ),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#,
            ),
        ];
        let j = judge(&ctx, &r);
        assert_found(&j, Some((InvariantId::ExactIdMatch, "fail")));
        assert!(!gave_up(&j));
    }

    /// Once the probe has cancelled one request, another answered "cancelled" may have been
    /// given up on its own (allowed) or stopped by that cancel (`exact-id-match`, a MUST): the
    /// wire cannot tell, so neither that rule nor `internal-cancel-code` is reported, broken or
    /// held, in the scenario.
    #[test]
    fn a_give_up_after_a_cancel_of_another_request_decides_neither_reading() {
        let second = rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s-other","prompt":[]}}"#,
        );
        let cancel = rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}"#,
        );
        let mut ctx = Context::new(Dialect::AcpRfd);
        ctx.work_method = "session/prompt".into();
        for answer in [CANCELLED_ERROR, SERVER_CANCELLED_ERROR] {
            let mut r = acp_opening();
            r.extend([
                second.clone(),
                cancel.clone(),
                rec(Dir::Sent, BARRIER),
                rec(Dir::Received, BARRIER_ANSWERED),
                rec(
                    Dir::Received,
                    r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"Cancelled"}}"#,
                ),
                rec(
                    Dir::Received,
                    &format!(r#"{{"jsonrpc":"2.0","id":3,{answer}}}"#),
                ),
            ]);
            let j = judge(&ctx, &r);
            assert_found(&j, None);
            assert!(gave_up(&j));
            for i in [InvariantId::ExactIdMatch, InvariantId::InternalCancelCode] {
                assert!(j.not_observable.contains(&i), "{answer}: {i}");
            }
        }
    }

    /// MCP: request 1 and the messages of `cancel-during-work` around it, with the answer
    /// before or after the cancel was sent; or refused (-32601).
    fn work_then_cancel(answer: Option<&str>, before_cancel: bool) -> Vec<Record> {
        let work = rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
        );
        let cancel = rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        );
        let barrier = rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"ping"}"#,
        );
        let pong = rec(
            Dir::Received,
            r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","result":{}}"#,
        );
        let mut r = vec![work];
        let answer = answer.map(|a| rec(Dir::Received, a));
        if before_cancel {
            r.extend(answer.clone());
        }
        r.extend([cancel, barrier, pong]);
        if !before_cancel {
            r.extend(answer);
        }
        r
    }

    /// A scenario that claims a cancel of a request in flight is vacuous when the work was
    /// answered before any cancel was sent, or refused; a cancel sent first exercised it, and a
    /// scenario that claims nothing of a request in flight is not vacuous for an early answer.
    #[test]
    fn an_answer_before_the_cancel_or_a_refusal_makes_the_scenario_vacuous() {
        let ctx = Context::new(Dialect::Mcp20251125);
        let full = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        let refused = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#;
        let mut j = judge(&ctx, &work_then_cancel(Some(full), true));
        j.claim(true);
        assert_eq!(j.status(), Status::Vacuous);
        assert!(j.vacuous_because[0].contains("before the cancel"), "{j:?}");
        let mut j = judge(&ctx, &work_then_cancel(Some(full), true));
        j.claim(false);
        assert_eq!(j.status(), Status::Pass);
        let mut j = judge(&ctx, &work_then_cancel(None, false));
        j.claim(true);
        assert_eq!(j.status(), Status::Pass);
        assert!(j.exercised_in_flight);
        // Refused, before or after the cancel was sent: never ran (a refusal after the cancel
        // was read is an answer after it, a SHOULD broken, which still warns).
        for before in [true, false] {
            let mut j = judge(&ctx, &work_then_cancel(Some(refused), before));
            j.claim(true);
            assert!(j.errors.is_empty());
            assert!(j.vacuous_because[0].contains("-32601"));
            assert!(!j.exercised_in_flight);
        }
        let mut j = judge(&ctx, &work_then_cancel(Some(refused), true));
        j.claim(true);
        assert_eq!(j.status(), Status::Vacuous, "{j:?}");
    }

    /// MCP: request "7" and a cancel naming 7, read (the barrier's answer); then the same work
    /// again ("8"), answered while "7" never is: "7" was dropped for a cancel of another id
    /// (`exact-id-match`), under the assumption named. Answered, even after "8", it was not.
    #[test]
    fn a_request_never_answered_while_the_same_work_read_after_it_was_is_exact_id_match() {
        let ctx = Context::new(Dialect::Mcp20251125);
        let answer_7 = rec(
            Dir::Received,
            r#"{"jsonrpc":"2.0","id":"7","result":{"content":[]}}"#,
        );
        for answered in [false, true] {
            let mut r = vec![
                rec(
                    Dir::Sent,
                    r#"{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{}}"#,
                ),
                rec(
                    Dir::Sent,
                    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
                ),
                rec(
                    Dir::Sent,
                    r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"ping"}"#,
                ),
                rec(
                    Dir::Received,
                    r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","result":{}}"#,
                ),
                rec(
                    Dir::Sent,
                    r#"{"jsonrpc":"2.0","id":"8","method":"tools/call","params":{}}"#,
                ),
                rec(
                    Dir::Received,
                    r#"{"jsonrpc":"2.0","id":"8","result":{"content":[]}}"#,
                ),
            ];
            if answered {
                r.push(answer_7.clone());
            }
            let j = judge(&ctx, &r);
            if answered {
                assert_found(&j, None);
                assert!(j.assumptions.is_empty());
            } else {
                assert_found(&j, Some((InvariantId::ExactIdMatch, "fail")));
                assert!(j.assumptions[0].contains("assuming"), "{j:?}");
            }
        }
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
        // One offset (the stream's, in `offset`), and the message the peer wrote.
        let m = &j.errors[0].message;
        assert!(!m.contains("byte"), "{m}");
        assert!(
            m.ends_with("in the peer's message {\"jsonrpc\":\"2.0\","),
            "{m}"
        );
        assert_eq!(j.errors[1].kind, "peer-gone");
        assert_eq!(j.errors[1].message, "the peer exited");
        assert_eq!(j.status(), Status::Fail);
    }

    /// A record on a Streamable HTTP stream.
    fn on(dir: Dir, stream: &str, text: &str) -> Record {
        Record {
            stream: Some(stream.to_string()),
            ..rec(dir, text)
        }
    }

    const WORK: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":2}}}"#;
    const PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}"#;

    fn over_http(d: Dialect, rest: Vec<Record>) -> Judgement {
        let mut ctx = Context::new(d);
        ctx.work_method = "tools/call".into();
        let mut r = vec![
            rec(Dir::Note, "transport: http http://127.0.0.1:1/mcp"),
            on(Dir::Sent, "post-1", WORK),
        ];
        r.extend(rest);
        judge(&ctx, &r)
    }

    /// The 202 to a cancel's POST proves the server read it, but not when against what the
    /// request's own stream carries: progress arriving there after the 202 is not judged as
    /// sent after the cancel, and the rule is not observable (on stdio the same order breaks
    /// it).
    #[test]
    fn over_http_a_202_orders_nothing_on_other_streams() {
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        let j = over_http(
            Dialect::Mcp20251125,
            vec![
                on(Dir::Received, "post-1", PROGRESS),
                on(Dir::Sent, "post-2", cancel),
                on(
                    Dir::Note,
                    "post-2",
                    "accepted: 202 Accepted: the server read it",
                ),
                on(Dir::Received, "post-1", PROGRESS),
            ],
        );
        assert!(broken(&j).is_empty(), "{j:?}");
        assert!(
            j.not_observable
                .contains(&InvariantId::NoActivityAfterCancel)
        );
        assert!(j.exercised_in_flight || j.vacuous_because.is_empty());
    }

    /// MCP 2026-07-28: progress on the standalone stream after the probe closed the request's
    /// stream (its cancel) was sent after the server read the close: "MUST NOT send any further
    /// message"; the assumption is said.
    #[test]
    fn over_http_a_message_on_the_get_stream_after_a_close_breaks_the_must() {
        let close = on(Dir::Note, "post-1", "stream-closed: request 2: closed");
        let j = over_http(
            Dialect::Mcp20260728,
            vec![close.clone(), on(Dir::Received, "get-1", PROGRESS)],
        );
        assert_eq!(broken(&j), [InvariantId::NoActivityAfterCancel], "{j:?}");
        assert_eq!(j.status(), Status::Fail);
        assert!(j.assumptions[0].contains("standalone stream"), "{j:?}");
        // Nothing after the close: a pass, and the close was a cancel in flight.
        let mut j = over_http(Dialect::Mcp20260728, vec![close]);
        j.claim(true);
        assert_eq!(j.status(), Status::Pass, "{j:?}");
    }

    /// Progress on the standalone stream after the request's answer came on its own stream:
    /// the two are not ordered, so it is not judged (on one stream it breaks the rule).
    #[test]
    fn over_http_progress_on_another_stream_after_the_answer_is_not_judged() {
        let answer = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
        let j = over_http(
            Dialect::Mcp20251125,
            vec![
                on(Dir::Received, "post-1", answer),
                on(Dir::Received, "get-1", PROGRESS),
            ],
        );
        assert!(broken(&j).is_empty(), "{j:?}");
        assert!(
            j.not_observable
                .contains(&InvariantId::NoActivityAfterAnswer)
        );
        let j = over_http(
            Dialect::Mcp20251125,
            vec![
                on(Dir::Received, "post-1", answer),
                on(Dir::Received, "post-1", PROGRESS),
            ],
        );
        assert_eq!(broken(&j), [InvariantId::NoActivityAfterAnswer], "{j:?}");
    }

    /// A request never answered, while the same work sent after a cancel naming another id
    /// was: over HTTP judged dropped (`exact-id-match`) only if the server had taken the first
    /// (its POST answered) before the control was sent; POSTs are read in any order.
    #[test]
    fn over_http_a_request_is_judged_dropped_only_if_taken_before_its_control() {
        let mut ctx = Context::new(Dialect::Mcp20251125);
        ctx.work_method = "tools/call".into();
        let work = |id: i64| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow"}}}}"#
            )
        };
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#;
        let taken = |s: &str| on(Dir::Note, s, "accepted: 200 OK: the server took tools/call");
        let session = |first_taken: bool| {
            let mut r = vec![
                rec(Dir::Note, "transport: http http://127.0.0.1:1/mcp"),
                on(Dir::Sent, "post-1", &work(1)),
                on(Dir::Sent, "post-2", cancel),
                on(
                    Dir::Note,
                    "post-2",
                    "accepted: 202 Accepted: the server read it",
                ),
            ];
            if first_taken {
                r.push(taken("post-1"));
            }
            r.push(on(Dir::Sent, "post-3", &work(2)));
            r.push(taken("post-3"));
            r.push(on(
                Dir::Received,
                "post-3",
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
            ));
            judge(&ctx, &r)
        };
        let j = session(true);
        assert_eq!(broken(&j), [InvariantId::ExactIdMatch], "{j:?}");
        let j = session(false);
        assert!(broken(&j).is_empty(), "{j:?}");
    }
}
