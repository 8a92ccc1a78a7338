//! One live session with a peer: the probe in the other party's seat.
//!
//! The probe's side is the model's reference [`Endpoint`] (a client that follows every rule),
//! driven by real I/O: its commands (initialize, send, cancel) become messages on the peer's
//! stdin, and what the peer writes is decoded and fed back to it. Its requests awaiting an
//! answer are held in the model's [`RequestTable`]. Every frame that crosses the wire is
//! recorded with its time (the wall clock lives here, in the probe, never in the model) for
//! [`super::judge::judge`].

use super::judge::{Dir, Record, note};
use super::process::{Chunk, Peer};
use crate::table::{CancelledBy, RequestTable, Waiter};
use cancelcheck_model::endpoint::IdPolicy;
use cancelcheck_model::io::Refusal;
use cancelcheck_model::message::Method;
use cancelcheck_model::{
    Behaviour, Command, Dialect, Endpoint, EndpointConfig, Input, Message, Output, Party, Reply,
    RequestId,
};
use cancelcheck_sim::rng::SimRng;
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::shapes::{self, Identity, Shapes};
use cancelcheck_wire::{
    Body, FrameReader, Framing, IdMap, WireId, WireMessage, message_text, to_model,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

mod http;
mod opening;
mod outgoing;
mod reading;

pub use outgoing::Outgoing;
use outgoing::{notification, request};

/// Everything a session needs to know, the same for every scenario.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The dialect spoken.
    pub dialect: Dialect,
    /// The framing.
    pub framing: Framing,
    /// The decoding context (the slow request's method).
    pub ctx: Context,
    /// The slow request's params.
    pub params: Value,
    /// The peer's command line.
    pub command: Vec<String>,
    /// Each scenario's time limit.
    pub timeout: Duration,
    /// The largest frame accepted from the peer.
    pub max_frame: usize,
    /// The most the session keeps of what the peer sends (`--max-output`), in bytes.
    pub max_output: u64,
    /// How long the peer may take to exit once its input is closed before it is killed (not
    /// an error: what it sends meanwhile is judged).
    pub linger: Duration,
    /// The declared lower bound on the work request's duration (`--min-work-ms`), recorded as
    /// the session's first note for the judge.
    pub min_work_ms: Option<u64>,
    /// The recipe (`--recipe`): initialize params, set-up steps and the readiness wait.
    pub recipe: Option<super::recipe::Recipe>,
    /// The barrier request the user named (`--barrier`, or the recipe's), if any.
    pub barrier: Option<super::recipe::Barrier>,
    /// Streamable HTTP (`--url`): the endpoint's URL, `{port}` standing for the port the probe
    /// picks when it starts the command (then in the command's arguments too). `None`: stdio.
    pub url: Option<String>,
}

/// How the probe names itself to the peer (`clientInfo`).
pub const ME: Identity<'static> = ("cancelcheck-probe", env!("CARGO_PKG_VERSION"));

/// The id of the probe's `server/discover` (MCP 2026-07-28), sent before anything else.
pub const DISCOVER_ID: &str = "cancelcheck-discover";

/// The prefix of the ids of the probe's `session/new` requests (ACP).
const NEW_SESSION_ID: &str = "cancelcheck-session-new-";

/// Why a session stopped before its steps were done.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stop {
    /// The scenario's time ran out.
    Timeout,
    /// The peer exited or closed its stdout.
    Gone,
    /// The peer refused to open the session (the record says how).
    Refused,
}

/// A step's result: go on, or stop the scenario (what was recorded is still judged).
pub type Step<T> = Result<T, Stop>;

/// A live session.
pub struct Session<'a> {
    setup: &'a Setup,
    /// The peer's process (none when the probe talks to a server the user started).
    peer: Option<Peer>,
    /// Streamable HTTP: the client and the streams (`None`: stdio).
    http: Option<http::Side>,
    reader: FrameReader,
    ep: Endpoint,
    table: RequestTable<Reply>,
    waiters: BTreeMap<RequestId, Waiter<Reply>>,
    ids: IdMap,
    records: Vec<Record>,
    start: Instant,
    deadline: Instant,
    barriers: u32,
    barriers_open: BTreeSet<WireId>,
    /// Answers to the probe's requests outside the model (ACP `session/new`).
    other_answers: BTreeMap<WireId, Body>,
    /// ACP: the sessions the agent opened (`session/new`), in order.
    sessions: Vec<String>,
    /// ACP: the session each of the probe's prompts runs in.
    prompt_session: BTreeMap<RequestId, String>,
    /// ACP: the session the next slow request is sent in.
    next_session: Option<String>,
    /// ACP: hold the agent's permission requests unanswered (to cancel while one is pending).
    pub hold_permissions: bool,
    /// ACP: permission requests held, unanswered.
    held: Vec<WireId>,
    /// ACP: permission requests the agent made.
    permissions_asked: usize,
    /// ACP: the sessions whose prompt turn the probe cancelled (`session/cancel`): a permission
    /// request of the agent's in one is answered `cancelled`, as a client must, even one that
    /// comes after the cancel.
    cancelled_sessions: BTreeSet<String>,
    progress: BTreeSet<RequestId>,
    outs: Vec<Output>,
    init: Option<RequestId>,
    gone: bool,
    /// What the probe was waiting for when the time ran out.
    timed_out: Option<String>,
    sent_bytes: u64,
    /// Time spent waiting for the peer (the rest of the session is the probe's own cost).
    pub waited: Duration,
    /// The seeded generator for this scenario's timing.
    pub rng: SimRng,
    /// Whether the recipe's readiness notification came.
    ready_seen: bool,
    /// Requests sent outside the model ([`Session::call`]).
    calls: u32,
    /// Streamable HTTP: an exchange failed with an error status (the record says which).
    http_failed: bool,
    /// What the session keeps of the peer's output, in bytes (each message's and note's
    /// text, and a record's own size).
    kept: u64,
    /// The peer sent more than `--max-output`: it is stopped and killed at once.
    flooded: bool,
    /// When the peer was seen to have exited while its output was still open.
    peer_exited: Option<Instant>,
    /// When each work request was sent.
    work_sent: BTreeMap<RequestId, Instant>,
    /// The longest a work request took to be answered in this session.
    longest_work: Duration,
}

impl<'a> Session<'a> {
    /// Starts the peer; the probe's ids follow `ids`.
    pub fn start(setup: &'a Setup, ids: IdPolicy, seed: u64) -> std::io::Result<Session<'a>> {
        let start = Instant::now();
        let (peer, http) = match &setup.url {
            Some(_) => {
                // Waiting for a started server to listen is the peer's time.
                let (peer, side) = http::Side::start(setup, start + setup.timeout)?;
                (peer, Some(side))
            }
            None => {
                let (program, args) = setup
                    .command
                    .split_first()
                    .ok_or_else(|| std::io::Error::other("no command given"))?;
                (Some(Peer::spawn(program, args)?), None)
            }
        };
        let cfg = EndpointConfig {
            party: Party::Client,
            dialect: setup.dialect,
            behaviour: Behaviour::Honour,
            workers: 1,
            cancel_support: true,
            request_timeouts: false,
            init_timeout: false,
            ids,
            capacity: 16,
            streams: http.is_some(),
        };
        let mut s = Session {
            setup,
            peer,
            http,
            reader: FrameReader::new(setup.framing, setup.max_frame),
            ep: Endpoint::new(cfg),
            table: RequestTable::new(),
            waiters: BTreeMap::new(),
            ids: IdMap::new(),
            records: Vec::new(),
            start,
            deadline: start + setup.timeout,
            barriers: 0,
            barriers_open: BTreeSet::new(),
            other_answers: BTreeMap::new(),
            sessions: Vec::new(),
            prompt_session: BTreeMap::new(),
            next_session: None,
            hold_permissions: false,
            held: Vec::new(),
            permissions_asked: 0,
            cancelled_sessions: BTreeSet::new(),
            progress: BTreeSet::new(),
            outs: Vec::new(),
            init: None,
            gone: false,
            timed_out: None,
            kept: 0,
            flooded: false,
            peer_exited: None,
            work_sent: BTreeMap::new(),
            longest_work: Duration::ZERO,
            sent_bytes: 0,
            waited: Duration::ZERO,
            rng: SimRng::new(seed),
            ready_seen: false,
            calls: 0,
            http_failed: false,
        };
        if let Some(ms) = setup.min_work_ms {
            s.note(note::MIN_WORK, &super::judge::min_work_note(ms), 0);
        }
        if s.http.is_some() {
            s.waited = start.elapsed();
        }
        if let Some(url) = s.http.as_ref().map(|h| h.url.clone()) {
            s.note(note::TRANSPORT, &format!("{} {url}", note::HTTP), 0);
        }
        Ok(s)
    }

    fn t_us(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn note(&mut self, kind: &str, detail: &str, offset: u64) {
        self.note_on(None, kind, detail, offset);
    }

    /// A note about the stream labelled `stream` (Streamable HTTP), or the session.
    fn note_on(&mut self, stream: Option<&str>, kind: &str, detail: &str, offset: u64) {
        let t_us = self.t_us();
        self.records.push(Record {
            t_us,
            dir: Dir::Note,
            offset,
            text: format!("{kind}: {detail}"),
            stream: stream.map(str::to_string),
        });
    }

    /// Puts one message (JSON text) on the peer's stdin and records it.
    pub fn send_text(&mut self, text: String) {
        if self.http.is_some() {
            return self.post(text);
        }
        let bytes = self.setup.framing.frame(&text);
        let offset = self.sent_bytes;
        self.sent_bytes += bytes.len() as u64;
        let t_us = self.t_us();
        self.records.push(Record {
            t_us,
            dir: Dir::Sent,
            offset,
            text,
            stream: None,
        });
        // A peer that stopped reading is found out by the reads and the deadline.
        if let Some(p) = &self.peer {
            let _ = p.send(bytes);
        }
    }

    fn shapes(&self) -> &'static dyn Shapes {
        shapes::of(self.setup.dialect)
    }

    fn outgoing(&self) -> Outgoing<'_> {
        Outgoing {
            ctx: &self.setup.ctx,
            params: &self.setup.params,
            initialize: self
                .setup
                .recipe
                .as_ref()
                .and_then(|r| r.initialize.as_ref()),
            barrier: self.setup.barrier.as_ref(),
        }
    }

    fn request_text(&self, id: RequestId, method: Method) -> String {
        let wid = self.ids.wire(id);
        match method {
            Method::Initialize { cancel_support } => self
                .outgoing()
                .initialize(wid.clone(), cancel_support)
                .unwrap_or_else(|| request(wid, "initialize", None)),
            // The probe is the client: it sends no server requests.
            Method::Work { .. } | Method::ServerWork => {
                self.outgoing().work(wid, self.next_session.as_deref())
            }
        }
    }

    /// The text of a cancel the probe's endpoint sends: chosen by the method of the request it
    /// cancels. An ACP prompt turn is cancelled with `session/cancel` naming its session; any
    /// other request with the dialect's generic cancel.
    fn cancel_text(&self, id: RequestId) -> String {
        self.session_cancel_text(id).unwrap_or_else(|| {
            message_text(
                self.setup.dialect,
                Party::Client,
                &Message::Cancel { id, session: false },
                &self.ids,
            )
        })
    }

    /// The prompt turn's own cancel of request `id` (ACP's `session/cancel`), where it has one.
    fn session_cancel_text(&self, id: RequestId) -> Option<String> {
        let session = self.prompt_session.get(&id)?;
        if !(self.setup.ctx.prompt_turn()
            && self.setup.dialect.rules().session_cancel_method.is_some())
        {
            return None;
        }
        self.outgoing().session_cancel(session)
    }

    /// Notes that request `id`'s cancel is its prompt turn's `session/cancel`, where it is.
    fn note_session_cancel(&mut self, id: RequestId) {
        if self.session_cancel_text(id).is_some()
            && let Some(session) = self.prompt_session.get(&id)
        {
            self.cancelled_sessions.insert(session.clone());
        }
    }

    /// Feeds the probe's endpoint and acts on what it does.
    fn feed(&mut self, input: Input) -> Option<RequestId> {
        let mut outs = std::mem::take(&mut self.outs);
        outs.clear();
        self.ep.handle(input, &mut outs);
        let mut sent = None;
        for o in &outs {
            match *o {
                Output::Send(Message::Request { id, method }) => {
                    if matches!(method, Method::Work { .. }) {
                        self.work_sent.insert(id, Instant::now());
                    }
                    let text = self.request_text(id, method);
                    if let Ok(w) = self.table.register(id) {
                        self.waiters.insert(id, w);
                    }
                    self.send_text(text);
                    sent = Some(id);
                }
                Output::Send(Message::Cancel { id, .. }) => {
                    self.note_session_cancel(id);
                    let text = self.cancel_text(id);
                    self.send_text(text);
                }
                Output::CloseStream(id) => self.close_stream(id),
                Output::Refused(_, Refusal::NotNegotiated) => self.withhold(),
                Output::Send(m) => {
                    let text = message_text(self.setup.dialect, Party::Client, &m, &self.ids);
                    self.send_text(text);
                }
                Output::Deliver { id, outcome } => match outcome {
                    cancelcheck_model::Outcome::Reply(r) => {
                        let _ = self.table.complete(id, r);
                        if let Some(&t) = self.work_sent.get(&id) {
                            self.longest_work = self.longest_work.max(t.elapsed());
                        }
                    }
                    _ => {
                        self.table.cancel(id, CancelledBy::Application);
                    }
                },
                _ => {}
            }
        }
        self.outs = outs;
        sent
    }

    /// ACP: cancels prompt `id`'s turn with `session/cancel`, naming its session. The
    /// permission requests held stay unanswered until [`Session::answer_held`]; those the
    /// agent makes from now on are answered `cancelled` at once.
    pub fn session_cancel(&mut self, id: RequestId) {
        let session = self.prompt_session.get(&id).cloned().unwrap_or_default();
        self.cancelled_sessions.insert(session.clone());
        if let Some(text) = self.outgoing().session_cancel(&session) {
            self.send_text(text);
        }
    }

    /// ACP: answers every permission request held with `{"outcome": {"outcome": "cancelled"}}`,
    /// as a client must once it has cancelled the prompt turn.
    pub fn answer_held(&mut self) {
        let Some(method) = self.shapes().permission_method() else {
            return;
        };
        for id in std::mem::take(&mut self.held) {
            let text = self.outgoing().answer(id, method, None, true);
            self.send_text(text);
        }
    }

    /// ACP: how many permission requests the agent made.
    pub fn permissions_asked(&self) -> usize {
        self.permissions_asked
    }

    /// The dialect spoken.
    pub fn dialect(&self) -> Dialect {
        self.setup.dialect
    }

    /// Sends the slow request; returns its id. An ACP prompt goes to a session of the agent's
    /// with no prompt open (one prompt at a time per session, as an ACP client sends them): a
    /// new one is opened when every session has one.
    pub fn send_work(&mut self) -> Step<RequestId> {
        self.next_session = if self.setup.ctx.prompt_turn() {
            let busy: Vec<&String> = self
                .prompt_session
                .iter()
                .filter(|&(&id, _)| !self.resolved(id))
                .map(|(_, s)| s)
                .collect();
            let free = self.sessions.iter().find(|s| !busy.contains(s)).cloned();
            match free {
                Some(s) => Some(s),
                None => Some(self.new_session()?),
            }
        } else {
            self.sessions.first().cloned()
        };
        let stop = if self.gone { Stop::Gone } else { Stop::Refused };
        let id = self
            .feed(Input::Command(Command::Send { task: false }))
            .ok_or(stop)?;
        if self.setup.ctx.prompt_turn()
            && let Some(s) = self.next_session.clone()
        {
            // A new turn in a session whose earlier turn was cancelled is not.
            self.cancelled_sessions.remove(&s);
            self.prompt_session.insert(id, s);
        }
        Ok(id)
    }

    /// Cancels a request through the endpoint (refused, and so not sent, unless it may be),
    /// with the cancel its method calls for.
    pub fn cancel(&mut self, id: RequestId) {
        self.feed(Input::Command(Command::Cancel(id)));
    }

    /// Sends the cancel request `id`'s method calls for again, outside the endpoint (which
    /// refuses to cancel a request twice or once answered): ACP's `session/cancel` for a
    /// prompt turn, the dialect's generic cancel naming it for anything else.
    ///
    /// The generic cancel is not sent to a peer that did not declare it takes it (where
    /// support is negotiated: sending it would break `capability-gated`, the probe's own duty).
    pub fn cancel_again(&mut self, id: RequestId) {
        if self.http.is_some() && self.setup.dialect.rules().stream_close_cancels {
            // Where closing the stream is the cancel, there is nothing to send again.
            return self.close_stream(id);
        }
        if let Some(text) = self.session_cancel_text(id) {
            self.note_session_cancel(id);
            return self.send_text(text);
        }
        if self.ep.peer_takes_cancels() {
            let text = self.cancel_text(id);
            self.send_text(text);
        } else {
            self.withhold();
        }
    }

    /// Records that a cancel was held back from a peer that declared no support for it.
    fn withhold(&mut self) {
        let method = self.setup.dialect.rules().cancel_method;
        self.note(
            note::WITHHELD,
            &format!("the peer declared no support for {method}; the probe did not send it"),
            0,
        );
    }

    /// Sends the dialect's generic cancel with exactly these params (or none), whatever they
    /// name; nothing to a peer that did not declare it takes the generic cancel (as
    /// [`Session::cancel_again`]).
    pub fn raw_cancel(&mut self, params: Option<Value>) {
        if !self.ep.peer_takes_cancels() {
            return self.withhold();
        }
        let method = self.shapes().cancel(Value::Null).0;
        self.send_text(notification(method, params));
    }

    /// The params of a well-formed generic cancel naming `id` (a JSON id as it is).
    pub fn cancel_params(&self, id: Value) -> Value {
        self.outgoing().cancel_params(id)
    }

    /// The wire id of a model id, as JSON.
    pub fn id_json(&self, id: RequestId) -> Value {
        serde_json::from_str(&self.ids.wire(id).to_json_text()).unwrap_or(Value::Null)
    }

    /// Sends a barrier request and waits for its answer: afterwards the peer has read
    /// everything sent before it. Over HTTP, waits for the `202` to every notification POSTed
    /// so far instead (an answer on one stream proves nothing of another).
    pub fn barrier(&mut self) -> Step<()> {
        if self.http.is_some() {
            return self.http_barrier();
        }
        self.barriers += 1;
        let id = WireId::Str(format!("cancelcheck-barrier-{}", self.barriers));
        self.barriers_open.insert(id.clone());
        let text = self.outgoing().barrier(id.clone());
        self.send_text(text);
        let what = match &self.setup.barrier {
            Some(b) => format!("the answer to the barrier {id} ({}, as named)", b.method),
            None => format!(
                "the answer to the barrier {id} (a method the peer does not know, which JSON-RPC has it answer -32601; a peer that answers no such request needs one it does answer at once: name it with --barrier METHOD and --barrier-params, or a recipe's barrier)"
            ),
        };
        self.pump_until(&what, |s| !s.barriers_open.contains(&id))
    }

    /// Whether the request is resolved for the probe (answered, or cancelled where the
    /// requester does not wait).
    pub fn resolved(&self, id: RequestId) -> bool {
        matches!(self.table.peek(id), Some(Some(_)))
    }

    /// Whether the peer reported progress for the request.
    pub fn progressed(&self, id: RequestId) -> bool {
        self.progress.contains(&id)
    }

    /// Waits until the request is resolved.
    pub fn wait_resolved(&mut self, id: RequestId) -> Step<()> {
        let what = format!("the answer to request {}", self.ids.wire(id));
        self.pump_until(&what, |s| s.resolved(id))
    }

    /// Waits for the answer to `id`, a work request the probe did not cancel, after a barrier
    /// proved the peer had read a cancel naming something else. A peer that took that cancel
    /// for `id` may never answer it, and no time limit tells that from slow work: so the probe
    /// sends the same work again, a control, and waits for either answer. A control answered
    /// while `id`, read earlier, is not is what the judge decides on (`exact-id-match`, under
    /// the assumption it names); then the scenario ends, and what the peer still sends before
    /// it exits is judged too.
    pub fn wait_untouched(&mut self, id: RequestId) -> Step<()> {
        if self.resolved(id) {
            return Ok(());
        }
        // Over HTTP the control must follow the server's taking of the request (POSTs are
        // read in any order).
        let what = format!(
            "the server's response to the POST of request {}",
            self.ids.wire(id)
        );
        self.pump_until(&what, |s| s.taken(id) || s.resolved(id))?;
        let control = self.send_work()?;
        let what = format!(
            "the answer to request {} or to the same work sent after it, {}",
            self.ids.wire(id),
            self.ids.wire(control)
        );
        self.pump_until(&what, |s| s.resolved(id) || s.resolved(control))?;
        if self.resolved(id) {
            self.wait_resolved(control)?;
        }
        Ok(())
    }

    /// How long the peer may take to exit once its input closes: `--linger`, or over stdio,
    /// while a work request is unanswered, long enough for it to end as the longest work
    /// answered in this session did (1.5 times that, from when it was sent), so that a
    /// cancelled request still owed its answer is not cut off before its work's usual length.
    /// (Bounded by the scenario's time limit, where it is used.)
    fn linger(&self) -> Duration {
        if self.http.is_some() {
            return self.setup.linger;
        }
        let usual = self.longest_work.mul_f64(1.5);
        self.work_sent
            .iter()
            .filter(|&(&id, _)| !self.resolved(id))
            .map(|(_, t)| usual.saturating_sub(t.elapsed()))
            .fold(self.setup.linger, Duration::max)
    }

    /// Reads the peer for `ms` milliseconds, or until `until` holds.
    pub fn pause(&mut self, ms: u64, until: impl Fn(&Session<'_>) -> bool) -> Step<()> {
        let end = Instant::now() + Duration::from_millis(ms);
        self.pump(end, until).map(|_| ())
    }

    /// Ends the session: closes the peer's stdin, reads what it still writes until it exits
    /// (or the time runs out: then it is killed), reaps it, and returns the record.
    pub fn finish(mut self) -> (Vec<Record>, super::process::PeerEnd) {
        // A flooding peer is killed at once.
        let linger = if self.flooded {
            Duration::ZERO
        } else {
            self.linger()
        };
        let mut deadline = self.deadline.min(Instant::now() + linger);
        if self.http.is_some() {
            // What the server still sends is read until --linger, then the server (which does
            // not exit when its client is done) is killed at once.
            self.linger_http(deadline);
            deadline = Instant::now();
        } else if let Some(p) = self.peer.as_mut() {
            p.close_stdin();
            self.note(note::STDIN_CLOSED, "the probe closed the peer's stdin", 0);
        }
        while !self.gone && !self.flooded && self.http.is_none() {
            let t0 = Instant::now();
            let chunk = self.peer.as_ref().and_then(|p| p.recv(deadline));
            self.waited += t0.elapsed();
            match chunk {
                Some(Chunk::Bytes(b)) => self.on_bytes(&b),
                Some(Chunk::Closed) => self.on_closed(),
                None => break,
            }
        }
        // Waiting for the peer to exit is the peer's time, not the probe's.
        let t0 = Instant::now();
        if let Some(p) = self.peer.as_mut() {
            p.finish(deadline);
        }
        self.waited += t0.elapsed();
        if self.peer.as_ref().is_some_and(|p| p.held_open) {
            self.note(
                note::HELD_OPEN,
                "the peer's output stayed open after it and its process group were gone: a process it started outside its group (a daemon) holds it, and is not the probe's to kill",
                0,
            );
        }
        if self.http.is_none()
            && self.timed_out.is_none()
            && !self.flooded
            && self.peer.as_ref().is_some_and(|p| p.killed)
        {
            let ms = linger.as_millis();
            let why = if linger > self.setup.linger {
                "--linger, raised to 1.5 times the longest work answered while a work request was unanswered"
            } else {
                "--linger"
            };
            self.note(
                note::KILLED,
                &format!(
                    "the peer had not exited {ms} ms after its input closed ({why}); it was killed"
                ),
                0,
            );
        }
        if let Some(what) = self.timed_out.take() {
            let ms = self.setup.timeout.as_millis();
            self.note(
                note::TIMEOUT,
                &format!("{what} did not come within the scenario's {ms} ms; the peer was killed"),
                0,
            );
        }
        let (stderr_bytes, stderr_tail) = self.peer.as_ref().map(Peer::stderr).unwrap_or_default();
        let end = super::process::PeerEnd {
            status: self
                .peer
                .as_ref()
                .and_then(|p| p.status)
                .map(|s| s.to_string()),
            killed: self.peer.as_ref().is_some_and(|p| p.killed),
            stderr_bytes,
            stderr_tail,
            elapsed: self.start.elapsed(),
            waited: self.waited,
        };
        (std::mem::take(&mut self.records), end)
    }
}

#[cfg(test)]
mod tests;
