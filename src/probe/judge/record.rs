//! What the judge reads (records, which way they went, the notes a driver writes) and what it
//! gives (the judgement).

use super::*;

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
    /// The peer had not exited within `--linger` of its input closing; it was killed (stdio).
    pub const KILLED: &str = "killed";
    /// The peer's output stayed open after it and its process group were gone (held by a
    /// process it started outside its group).
    pub const HELD_OPEN: &str = "held-open";
    /// The peer sent more than the session keeps (`--max-output`): it was stopped and killed.
    pub const FLOOD: &str = "flood";
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
pub const ERROR_KINDS: [&str; 7] = [
    "not-json-rpc",
    "framing",
    "peer-gone",
    "timeout",
    "refused",
    "http",
    "flood",
];

/// A problem that is not a clause of the catalog but breaks the session: output that is not
/// JSON-RPC, broken framing, a peer that died or hung.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SessionError {
    /// `not-json-rpc`, `framing`, `peer-gone`, `timeout`, `refused` (an ACP agent answered
    /// `session/new` with a result that names no session; an error answer is a refusal the
    /// scenario is vacuous for, not a session error), `http` (Streamable HTTP: an exchange
    /// answered with an error status), `flood` (the peer sent more than `--max-output`).
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
    pub(super) not_in_flight: Option<String>,
    /// Why the work fails on its own, if a work request no cancel named was answered with a
    /// tool's error: the probe sends the same work in every session of a run, so what one
    /// session learned of it holds for the others ([`Judgement::work_failed_elsewhere`]).
    pub work_fails: Option<String>,
    /// For each record judged, how many events there were once it was read (the events of
    /// the session's end come after the last).
    pub(super) record_ends: Vec<usize>,
    /// Whether the peer was seen acting on a cancel of the probe's: it answered a cancelled
    /// request "cancelled", or, once the cancel was proved read, with anything but the full
    /// result; or, where the text owes the cancelled request no answer (MCP), it never
    /// answered one whose cancel it was proved to have read. A scenario whose point shows only
    /// on a peer that acts on cancels ([`crate::probe::scenario::Acting`]) tested nothing
    /// without it.
    pub acted_on_cancel: bool,
    /// Why the scenario tested nothing, learned from the other sessions of its run (each also
    /// in `vacuous_because`); a saved trace keeps them, so that it re-judges alike.
    pub from_run: Vec<String>,
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
        self.learned_from_run(format!("in scenario {name}, {why}"));
    }

    /// Applies `why`, a reason the scenario tested nothing that the other sessions of its run
    /// gave, where nothing else made it vacuous or broke anything.
    pub fn learned_from_run(&mut self, why: String) {
        if !self.vacuous_because.is_empty() || self.status() != Status::Pass {
            return;
        }
        self.vacuous_because.push(why.clone());
        self.from_run.push(why);
        self.exercised_in_flight = false;
    }

    /// The record (its index among those judged) whose reading gave the event `event`, or
    /// `None` for an event of the session's end.
    pub fn record_of(&self, event: u64) -> Option<usize> {
        let event = usize::try_from(event).ok()?;
        self.record_ends.iter().position(|&end| end > event)
    }
}
