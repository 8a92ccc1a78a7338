//! One party of a connection, requester and responder at once, as a pure state machine.
//!
//! `Endpoint::handle(input, &mut outputs)` is the whole interface: no clock, no randomness, no
//! I/O. It never panics: inputs that do not fit are reported as [`Output::Anomaly`] or
//! [`Output::Ignored`] values. Request entries live in vectors reserved up front and are never
//! removed during a connection (terminal entries are how an endpoint recognises a late answer
//! or a repeated cancel), so `handle` does not allocate once capacity is reserved. Up to
//! [`INLINE_REQUESTS`] requests each way are held inline, so cloning a small endpoint (as the
//! explorer does for every state) does not allocate either.

use crate::behaviour::Behaviour;
use crate::dialect::{CancelSenders, CancelShape, Dialect, DialectRules, ReceiverDuty};
use crate::id::{IdStr, Party, RequestId};
use crate::io::{Anomaly, Command, Ignored, Input, Output, Refusal, Timer};
use crate::message::{Ack, CancelCause, Message, Method, Outcome, Reply};
use crate::pack::{CloneState, Pack, Relabel, State};
use crate::request::{Completion, Incoming, Outgoing, acknowledged_cancel};
use smallvec::SmallVec;

/// Requests an endpoint holds inline before its tables move to the heap.
pub const INLINE_REQUESTS: usize = 4;

/// How a requester numbers its requests.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct IdPolicy {
    /// The first id (taken by `initialize` where the dialect has one).
    pub first: i64,
    /// Whether ids are JSON strings of the same digits (`"0"`, `"1"`, ...). ABP always uses strings.
    pub strings: bool,
    /// Whether a new request reuses the id of the latest request whose answer has arrived (what
    /// JSON-RPC allows: ids need only differ from those still awaiting a response). Whether
    /// that is safe depends on the transport; the checker judges it by `no-live-id-reuse`.
    pub reuse_answered: bool,
}

/// Everything that configures one endpoint.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct EndpointConfig {
    /// Which party this is.
    pub party: Party,
    /// The protocol.
    pub dialect: Dialect,
    /// How it behaves (correct, or a named fault).
    pub behaviour: Behaviour,
    /// How many received requests may run at once (at least 1); the rest queue.
    pub workers: u16,
    /// Whether it declares cancellation support in its `initialize` answer (ACP RFD).
    pub cancel_support: bool,
    /// Whether every ordinary request it sends arms a timeout.
    pub request_timeouts: bool,
    /// Whether `initialize` arms a connect timeout.
    pub init_timeout: bool,
    /// How it numbers its requests.
    pub ids: IdPolicy,
    /// How many requests each direction is expected to carry (capacity reserved up front).
    pub capacity: usize,
    /// Whether the transport gives each request a stream of its own (Streamable HTTP): there
    /// the client cancels by closing it where the dialect says so
    /// ([`DialectRules::stream_close_cancels`]).
    pub streams: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Pack, Relabel)]
enum Session {
    NotStarted,
    Initializing(RequestId),
    Ready { peer_cancel_support: bool },
    Failed,
    Closed,
}

impl Session {
    /// A server in a dialect without `initialize` is in session from the start (MCP
    /// 2026-07-28); everyone else waits for `initialize`.
    fn initial(cfg: &EndpointConfig) -> Session {
        if cfg.party == Party::Server && cfg.dialect.rules().initialize_method.is_none() {
            Session::Ready {
                peer_cancel_support: true,
            }
        } else {
            Session::NotStarted
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Pack, Relabel)]
struct OutEntry {
    id: RequestId,
    method: Method,
    state: Outgoing,
    timer: bool,
    reused: bool,
    /// The received request on whose behalf it was sent (its parent in the request tree).
    parent: Option<RequestId>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Pack, Relabel)]
struct InEntry {
    id: RequestId,
    state: Incoming,
    /// A worker runs for it (true also for the faulty "work outlives its answer").
    running: bool,
    /// The answer decided for it, held back until every request sent on its behalf is
    /// resolved (a handler answers after its children).
    owed: Option<Reply>,
    /// The request of this party's on whose behalf the peer sent it, as the request names it
    /// (ACP: the `sessionId` of the prompt turn a `session/request_permission` serves).
    session: Option<RequestId>,
    /// It serves a prompt turn this party cancelled while it held it, or before it arrived
    /// (ACP): it owes it the outcome `cancelled` when its work ends.
    turn_cancelled: bool,
    /// A cancel for it was read while it waited for a worker, and it runs on (finishing
    /// first), where a request given up on its own is answered otherwise than a cancelled
    /// one (LSP): given up later, it is answered as the cancel asks.
    cancel_read: bool,
}

/// One party: its requests in both directions and its session.
///
/// Its state is every field but the configuration, declared here once: packed
/// ([`State`]: two endpoints of one configuration are equal exactly when their packed bytes
/// are), renamed ([`Relabel`]: request ids renamed, then both tables sorted by id; that
/// preserves behaviour only where ids are unique and table order carries no information, as
/// for the explorer's symmetry reduction) and copied (`clone_from` copies into the tables the
/// target already holds: no allocation once they are large enough) from this one list.
#[derive(PartialEq, Eq, Hash, Debug, State, Relabel, CloneState)]
#[state(relabel_then = sort_tables)]
pub struct Endpoint {
    #[state(config)]
    cfg: EndpointConfig,
    session: Session,
    next_id: i64,
    outgoing: SmallVec<[OutEntry; INLINE_REQUESTS]>,
    incoming: SmallVec<[InEntry; INLINE_REQUESTS]>,
    running: u16,
    crashed: bool,
}

impl Endpoint {
    /// A fresh endpoint, capacity reserved.
    pub fn new(cfg: EndpointConfig) -> Self {
        Endpoint {
            cfg,
            session: Session::initial(&cfg),
            next_id: cfg.ids.first,
            outgoing: SmallVec::with_capacity(cfg.capacity + 1),
            incoming: SmallVec::with_capacity(cfg.capacity + 1),
            running: 0,
            crashed: false,
        }
    }

    /// Back to the fresh state with a (possibly new) configuration, keeping allocations.
    pub fn reset(&mut self, cfg: EndpointConfig) {
        self.cfg = cfg;
        self.session = Session::initial(&cfg);
        self.next_id = cfg.ids.first;
        self.outgoing.clear();
        self.incoming.clear();
        self.running = 0;
        self.crashed = false;
        let extra = cfg.capacity + 1;
        self.outgoing.reserve(extra);
        self.incoming.reserve(extra);
    }

    /// The configuration.
    pub fn config(&self) -> &EndpointConfig {
        &self.cfg
    }

    /// Requests received and still held (queued, running, or noted but never finished).
    pub fn open_incoming(&self) -> usize {
        self.incoming.iter().filter(|e| e.state.is_open()).count()
    }

    /// The state of the newest request it received with `id`, if it received one.
    pub fn received(&self, id: RequestId) -> Option<Incoming> {
        self.find_in(id).map(|i| self.incoming[i].state)
    }

    /// The peer's request on whose behalf this party sent its newest request with `id`, if it
    /// sent one so: what that request names on the wire (ACP's `sessionId`), for
    /// [`Endpoint::handle_in`] at the peer.
    pub fn sent_for(&self, id: RequestId) -> Option<RequestId> {
        self.find_out(id).and_then(|i| self.outgoing[i].parent)
    }

    /// Whether its newest request with `id` still awaits its answer (pending or cancelling).
    pub fn awaits(&self, id: RequestId) -> bool {
        self.find_out(id)
            .is_some_and(|i| self.outgoing[i].state.is_open())
    }

    /// Sorts both tables by id (after a renaming: see [`Relabel`]).
    fn sort_tables(&mut self) {
        self.outgoing.sort_by_key(|e| e.id);
        self.incoming.sort_by_key(|e| e.id);
    }

    /// Feeds everything this endpoint holds about request `id` to `h`, except the id itself
    /// (each entry as its derived `Hash` sees it, with the id blanked: a field added to an
    /// entry is hashed here without being named).
    pub fn hash_request<H: core::hash::Hasher>(&self, id: RequestId, h: &mut H) {
        use core::hash::Hash;
        for e in self.outgoing.iter().filter(|e| e.id == id) {
            OutEntry {
                id: RequestId::Null,
                ..*e
            }
            .hash(h);
        }
        for e in self.incoming.iter().filter(|e| e.id == id) {
            InEntry {
                id: RequestId::Null,
                ..*e
            }
            .hash(h);
        }
    }

    /// Whether the session is open for ordinary requests (for the faulty
    /// `sends-before-initialize`, as soon as `initialize` is sent).
    pub fn is_ready(&self) -> bool {
        match self.session {
            Session::Ready { .. } => true,
            Session::Initializing(_) => self.b() == Behaviour::SendsBeforeInitialize,
            _ => false,
        }
    }

    /// Whether the peer may be sent the dialect's generic cancel: the dialect negotiates no
    /// support, or the peer declared it in the handshake (the ACP RFD's
    /// `cancellation.request`). Before the handshake is answered, only where nothing is
    /// negotiated.
    pub fn peer_takes_cancels(&self) -> bool {
        let negotiated = self.rules().negotiated;
        match self.session {
            Session::Ready {
                peer_cancel_support,
            } => peer_cancel_support || !negotiated,
            _ => !negotiated,
        }
    }

    /// Whether this party sends activity notifications for the work it does (the dialect has
    /// them, and lets this party send them).
    fn sends_activity(&self) -> bool {
        let r = self.rules();
        r.activity_method.is_some() && (self.cfg.party == Party::Server || r.client_activity)
    }

    fn rules(&self) -> &'static DialectRules {
        self.cfg.dialect.rules()
    }

    fn b(&self) -> Behaviour {
        self.cfg.behaviour
    }

    /// Feeds one input; appends what the endpoint does to `out` (in order). A received request
    /// names no request of this party's it serves (see [`Endpoint::handle_in`]).
    pub fn handle(&mut self, input: Input, out: &mut Vec<Output>) {
        self.handle_in(input, None, out);
    }

    /// Feeds one input as [`Endpoint::handle`] does; a received request serves `session`, this
    /// party's request it names (ACP's `sessionId`: the prompt turn a permission request is
    /// asked for; [`Endpoint::sent_for`] of its sender). A correct ACP client answers a
    /// permission request of a prompt turn it cancelled with the outcome `cancelled`.
    pub fn handle_in(&mut self, input: Input, session: Option<RequestId>, out: &mut Vec<Output>) {
        if self.crashed {
            return;
        }
        match input {
            Input::Command(Command::Initialize) => self.initialize(out),
            Input::Command(cmd @ Command::Send { task }) => self.send_work(None, task, cmd, out),
            Input::Command(cmd @ Command::SendNested(parent)) => self.send_nested(parent, cmd, out),
            Input::Command(cmd @ Command::Cancel(id)) => {
                self.cancel(id, CancelCause::User, cmd, out)
            }
            Input::Command(Command::MalformedCancel) => {
                out.push(Output::Send(Message::MalformedCancel));
            }
            Input::TimerFired(Timer::RequestTimeout(id)) => {
                let armed = self.find_out(id).is_some_and(|i| self.outgoing[i].timer);
                if armed {
                    self.cancel(id, CancelCause::Timeout, Command::Cancel(id), out);
                } else {
                    out.push(Output::Ignored(Ignored::StaleTimer));
                }
            }
            Input::TimerFired(Timer::InitTimeout) => self.init_timeout(out),
            Input::Receive(Message::Request { id, method }) => {
                // (Only a party that ends a cancelled turn's requests keeps what they serve.)
                let session = session.filter(|_| self.ends_turn_requests());
                self.on_request(id, method, session, out)
            }
            Input::Receive(msg) => self.receive(msg, out),
            Input::WorkDone(id) => self.work_done(id, out),
            Input::WorkProgress(id) => {
                let live = self.find_running(id).is_some_and(|i| {
                    matches!(
                        self.incoming[i].state,
                        Incoming::Working | Incoming::CancelNoted
                    )
                });
                if live && self.sends_activity() {
                    out.push(Output::Send(Message::Activity { id }));
                }
            }
            Input::InternalCancel(id) => self.internal_cancel(id, out),
            Input::Disconnected => self.disconnect(out),
            Input::StreamClosed(id) => self.stream_closed(id, out),
            // The client's transport loses and resumes a stream; its requests stay as they are.
            Input::StreamLost(_) | Input::StreamResumed(_) => {}
        }
    }

    /// Streamable HTTP: the stream of the peer's request `id` closed. Where closing is the
    /// cancel, the server takes it as one (the faulty `works-after-close` ignores it); elsewhere
    /// it keeps the request (the faulty `cancels-on-disconnect` takes it for a cancel).
    fn stream_closed(&mut self, id: RequestId, out: &mut Vec<Output>) {
        let cancels = match self.b() {
            Behaviour::WorksAfterClose => false,
            Behaviour::CancelsOnDisconnect => true,
            _ => self.rules().stream_close_cancels,
        };
        if cancels && self.cfg.party == Party::Server {
            self.on_cancel(id, false, out);
        }
    }

    /// Gives up a received request on the party's own account: its work stops and it is
    /// answered with the dialect's give-up code ([`crate::dialect::GiveUp`]: as if a cancel
    /// had come, -32800, in ACP; `ContentModified` in LSP), where the dialect says so;
    /// elsewhere the input is an anomaly of the driver.
    fn internal_cancel(&mut self, id: RequestId, out: &mut Vec<Output>) {
        let open = self
            .find_in(id)
            .filter(|&i| self.incoming[i].state.is_working());
        let rules = self.rules();
        let (Some(i), Some(give_up)) = (open, rules.give_up) else {
            out.push(Output::Anomaly(Anomaly::UnknownWork(id)));
            return;
        };
        let InEntry { state, running, .. } = self.incoming[i];
        if running {
            self.incoming[i].running = false;
            self.running -= 1;
            out.push(Output::AbortWork(id));
        }
        let reply = match (self.b(), give_up.reserved) {
            (Behaviour::WrongErrorCode, _) => Reply::Error(-32603),
            // A request whose cancel it had read (held for its children, or finishing first)
            // is answered as that cancel asks, whatever stops it now.
            _ if state == Incoming::CancelNoted || self.incoming[i].cancel_read => Reply::Cancelled,
            (Behaviour::MisusesServerCancelled, Some(reserved)) => Reply::Error(reserved),
            _ if !rules.gives_up_unlike_a_cancel() => Reply::Cancelled,
            _ => Reply::Error(give_up.code),
        };
        self.incoming[i].owed = None;
        self.cascade(id, out);
        if !self.defer(i, reply) {
            match state.cancel(true) {
                Ok(next) => self.incoming[i].state = next,
                Err(e) => {
                    out.push(Output::Anomaly(Anomaly::Illegal(id, e)));
                    return;
                }
            }
            self.respond(id, reply, out);
        }
        if running {
            self.start_next(out);
        }
    }

    // ---------------------------------------------------------------- request trees

    /// Whether a request this endpoint sent on behalf of received request `parent` is still
    /// unresolved.
    fn has_open_children(&self, parent: RequestId) -> bool {
        self.outgoing
            .iter()
            .any(|e| e.parent == Some(parent) && e.state.is_open())
    }

    /// Cancels the requests sent on behalf of received request `parent`, which was just
    /// cancelled (its cascade). A faulty endpoint forgets them, or cancels its other requests'
    /// children too.
    fn cascade(&mut self, parent: RequestId, out: &mut Vec<Output>) {
        let b = self.b();
        if b == Behaviour::ForgetsGrandchild {
            return;
        }
        for k in 0..self.outgoing.len() {
            let e = self.outgoing[k];
            let hit = e.parent == Some(parent)
                || (b == Behaviour::CancelsSiblingSubtree && e.parent.is_some());
            if hit && e.state == Outgoing::Pending {
                self.cancel(e.id, CancelCause::Parent, Command::Cancel(e.id), out);
            }
        }
    }

    /// Holds back `reply` to received request `i` while requests sent on its behalf are
    /// unresolved (a handler answers after its children); whether it did. The faulty
    /// `answers-parent-first` never waits.
    fn defer(&mut self, i: usize, reply: Reply) -> bool {
        let e = self.incoming[i];
        if self.b() == Behaviour::AnswersParentFirst || !self.has_open_children(e.id) {
            return false;
        }
        if e.state == Incoming::Working
            && !matches!(reply, Reply::Full | Reply::Partial)
            && let Ok(next) = e.state.note_cancel()
        {
            self.incoming[i].state = next;
        }
        self.incoming[i].owed = Some(reply);
        true
    }

    /// Sends the answer held back for received request `parent` once its last child is
    /// resolved.
    fn settle(&mut self, parent: Option<RequestId>, out: &mut Vec<Output>) {
        let Some(p) = parent else { return };
        let Some(i) = self.find_in(p) else { return };
        let Some(reply) = self.incoming[i].owed else {
            return;
        };
        if self.has_open_children(p) {
            return;
        }
        self.incoming[i].owed = None;
        let state = self.incoming[i].state;
        let next = match reply {
            Reply::Full | Reply::Partial => state.complete(),
            _ => state.cancel(true),
        };
        match next {
            Ok(next) => {
                self.incoming[i].state = next;
                self.respond(p, reply, out);
            }
            Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(p, e))),
        }
    }

    /// A request on behalf of received request `parent`, whose work must be running here and
    /// not cancelled (the faulty `spawns-after-cancel` keeps working after the cancel).
    fn send_nested(&mut self, parent: RequestId, cmd: Command, out: &mut Vec<Output>) {
        let live = self.find_running(parent).is_some_and(|i| {
            self.incoming[i].state == Incoming::Working || self.b() == Behaviour::SpawnsAfterCancel
        });
        if !live {
            out.push(Output::Refused(cmd, Refusal::NoParent));
            return;
        }
        self.send_work(Some(parent), false, cmd, out);
    }

    // ---------------------------------------------------------------- requester side

    fn alloc_id(&mut self) -> RequestId {
        if self.b() == Behaviour::ReusesLiveId {
            let given_up = self.outgoing.iter_mut().rev().find(|e| {
                !e.reused
                    && matches!(
                        e.state,
                        Outgoing::Abandoned(_) | Outgoing::CancelRequested(_)
                    )
            });
            if let Some(e) = given_up {
                e.reused = true;
                return e.id;
            }
        }
        if self.cfg.ids.reuse_answered {
            let answered = self
                .outgoing
                .iter_mut()
                .rev()
                .find(|e| !e.reused && !e.method.is_initialize() && e.state == Outgoing::Done);
            if let Some(e) = answered {
                e.reused = true;
                return e.id;
            }
        }
        let n = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        if self.cfg.ids.strings || self.rules().string_ids {
            RequestId::Str(IdStr::decimal(n))
        } else {
            RequestId::Int(n)
        }
    }

    fn find_out(&self, id: RequestId) -> Option<usize> {
        self.outgoing.iter().rposition(|e| e.id == id)
    }

    fn initialize(&mut self, out: &mut Vec<Output>) {
        if self.session != Session::NotStarted {
            out.push(Output::Refused(Command::Initialize, Refusal::NoSession));
            return;
        }
        if self.rules().initialize_method.is_none() {
            self.session = Session::Ready {
                peer_cancel_support: true,
            };
            return;
        }
        let id = self.alloc_id();
        self.outgoing.push(OutEntry {
            id,
            method: Method::Initialize {
                cancel_support: self.cfg.cancel_support,
            },
            state: Outgoing::Pending,
            timer: false,
            reused: false,
            parent: None,
        });
        self.session = Session::Initializing(id);
        out.push(Output::Send(Message::Request {
            id,
            method: Method::Initialize {
                cancel_support: self.cfg.cancel_support,
            },
        }));
        if self.cfg.init_timeout {
            out.push(Output::ArmTimer(Timer::InitTimeout));
        }
    }

    fn send_work(
        &mut self,
        parent: Option<RequestId>,
        task: bool,
        cmd: Command,
        out: &mut Vec<Output>,
    ) {
        if !self.is_ready() {
            out.push(Output::Refused(cmd, Refusal::NoSession));
            return;
        }
        if self.cfg.party == Party::Server && self.rules().server_work_method.is_none() {
            // ABP: the app answers the agent's calls and makes none of its own.
            out.push(Output::Refused(cmd, Refusal::WrongParty));
            return;
        }
        // Only a dialect with tasks marks a request task-augmented.
        let task = task && self.rules().task_cancel_method.is_some();
        let method = Method::work_of(self.cfg.party, task);
        let id = self.alloc_id();
        let timer = self.cfg.request_timeouts;
        self.outgoing.push(OutEntry {
            id,
            method,
            state: Outgoing::Pending,
            timer,
            reused: false,
            parent,
        });
        if let Some(parent) = parent {
            out.push(Output::Nested { parent, child: id });
        }
        out.push(Output::Send(Message::Request { id, method }));
        if timer {
            out.push(Output::ArmTimer(Timer::RequestTimeout(id)));
        }
    }

    fn init_timeout(&mut self, out: &mut Vec<Output>) {
        if let Session::Initializing(id) = self.session {
            if self.rules().initialize_cancel.while_pending()
                || self.b() == Behaviour::CancelsInitialize
            {
                self.cancel(id, CancelCause::Timeout, Command::Cancel(id), out);
            }
            // Otherwise a correct requester keeps waiting: `initialize` may not be cancelled.
        } else {
            out.push(Output::Ignored(Ignored::StaleTimer));
        }
    }

    fn disarm(&mut self, i: usize, out: &mut Vec<Output>) {
        let e = &mut self.outgoing[i];
        if e.timer {
            e.timer = false;
            out.push(Output::DisarmTimer(Timer::RequestTimeout(e.id)));
        }
        if e.method.is_initialize() && self.cfg.init_timeout {
            out.push(Output::DisarmTimer(Timer::InitTimeout));
        }
    }

    fn cancel(&mut self, id: RequestId, cause: CancelCause, cmd: Command, out: &mut Vec<Output>) {
        let rules = self.rules();
        let b = self.b();
        let refuse = |out: &mut Vec<Output>, why| {
            if cause == CancelCause::User {
                out.push(Output::Refused(cmd, why));
            } else {
                out.push(Output::Ignored(Ignored::StaleTimer));
            }
        };
        let Some(i) = self.find_out(id) else {
            return refuse(out, Refusal::NotPending);
        };
        let entry = self.outgoing[i];
        match entry.state {
            Outgoing::Done if b == Behaviour::CancelsAfterAnswer && cause == CancelCause::User => {
                // The faulty `cancels-after-answer` never checks that the request is still on.
                out.push(Output::Send(Message::Cancel { id, session: false }));
                return;
            }
            Outgoing::Done | Outgoing::Abandoned(_) => return refuse(out, Refusal::NotPending),
            Outgoing::CancelRequested(_) => {
                // An acknowledged cancel may be repeated: each one gets the same answer.
                if rules.cancel_shape == CancelShape::AcknowledgedRequest
                    && cause == CancelCause::User
                {
                    out.push(Output::Send(Message::Cancel { id, session: false }));
                } else {
                    refuse(out, Refusal::AlreadyCancelling);
                }
                return;
            }
            Outgoing::Pending => {}
        }
        if entry.method.is_initialize()
            && !rules.initialize_cancel.while_pending()
            && b != Behaviour::CancelsInitialize
        {
            return refuse(out, Refusal::InitializeNotCancellable);
        }
        if rules.cancel_senders == CancelSenders::ClientOnly
            && self.cfg.party == Party::Server
            && b != Behaviour::ServerCancels
        {
            if cause == CancelCause::Parent {
                // It may not ask the peer to stop, so it gives up locally.
                return self.give_up(i, cause, true, out);
            }
            return refuse(out, Refusal::WrongParty);
        }
        let supported = self.peer_takes_cancels();
        let reckless = b == Behaviour::CancelsWithoutCapability
            || (b == Behaviour::CancelsInitialize && entry.method.is_initialize());
        if !supported && !reckless {
            if cause != CancelCause::User {
                // It cannot ask the peer to stop, so it gives up locally; the answer is ignored.
                if entry.method.is_initialize() {
                    self.session = Session::Failed;
                }
                self.give_up(i, cause, true, out);
            } else {
                out.push(Output::Refused(cmd, Refusal::NotNegotiated));
            }
            return;
        }
        // The client's work has a cancel of its own where the dialect has one (ACP's
        // `session/cancel` of a prompt turn).
        // A task-augmented request is cancelled by its task's cancel (MCP's `tasks/cancel`);
        // the faulty `cancels-task-by-notification` sends the generic cancel.
        let session = (entry.method.is_work() && rules.session_cancel_method.is_some())
            || (entry.method.is_task()
                && rules.task_cancel_method.is_some()
                && b != Behaviour::CancelsTaskByNotification);
        // The faulty `forwards-cancel-unrewritten` passes a cascade on under the parent's id.
        let named = match entry.parent {
            Some(parent)
                if cause == CancelCause::Parent && b == Behaviour::ForwardsCancelUnrewritten =>
            {
                parent
            }
            _ => id,
        };
        if b == Behaviour::GivesUpSilently && cause != CancelCause::Parent {
            // The faulty `gives-up-silently` never tells the receiver.
            if cause == CancelCause::Timeout {
                self.outgoing[i].timer = false;
            }
            return self.give_up(i, cause, cause != CancelCause::Timeout, out);
        }
        if self.cfg.streams && rules.stream_close_cancels && self.cfg.party == Party::Client {
            // Streamable HTTP: closing the request's stream is the cancel.
            out.push(Output::CloseStream(id));
        } else {
            out.push(Output::Send(Message::Cancel { id: named, session }));
        }
        if session && self.ends_turn_requests() {
            // ACP: "The client MUST answer every pending `session/request_permission` with
            // `{"outcome":{"outcome":"cancelled"}}`" once it has cancelled the prompt turn.
            // It answers each so when its work ends (or when the agent's cancel for it comes);
            // one whose work is over waits for its children, which are cancelled now.
            for k in 0..self.incoming.len() {
                let e = self.incoming[k];
                if e.session == Some(id) && e.state.is_open() {
                    self.incoming[k].turn_cancelled = true;
                    if matches!(e.owed, Some(Reply::Full | Reply::Partial)) {
                        self.incoming[k].owed = Some(Reply::Cancelled);
                        self.cascade(e.id, out);
                    }
                }
            }
        }
        if rules.requester_waits {
            self.outgoing[i].state = Outgoing::CancelRequested(cause);
            if cause == CancelCause::Timeout {
                self.outgoing[i].timer = false;
            } else {
                self.disarm(i, out);
            }
        } else {
            if cause == CancelCause::Timeout {
                self.outgoing[i].timer = false;
            }
            self.give_up(i, cause, cause != CancelCause::Timeout, out);
        }
    }

    /// Resolves sent request `i` as cancelled without waiting for an answer (a late one is
    /// ignored), and answers its parent if that was waiting for it.
    /// With `disarm`, its timers are disarmed (not when the one that fired gave it up).
    fn give_up(&mut self, i: usize, cause: CancelCause, disarm: bool, out: &mut Vec<Output>) {
        if disarm {
            self.disarm(i, out);
        }
        let e = &mut self.outgoing[i];
        e.state = Outgoing::Abandoned(cause);
        let (id, parent) = (e.id, e.parent);
        out.push(Output::Deliver {
            id,
            outcome: Outcome::Cancelled(cause),
        });
        self.settle(parent, out);
    }

    fn on_response(&mut self, id: RequestId, reply: Reply, out: &mut Vec<Output>) {
        let Some(i) = self.find_out(id) else {
            out.push(Output::Anomaly(Anomaly::UnsolicitedResponse(id)));
            return;
        };
        let entry = self.outgoing[i];
        let outcome = match entry.state {
            Outgoing::Pending => Outcome::Reply(reply),
            Outgoing::CancelRequested(cause) => {
                if reply.is_cancelled() {
                    Outcome::Cancelled(cause)
                } else {
                    Outcome::Reply(reply)
                }
            }
            Outgoing::Abandoned(_) => {
                if self.b() == Behaviour::DeliversLateAnswer {
                    // (Its parent settled when it was given up.)
                    self.outgoing[i].state = Outgoing::Done;
                    out.push(Output::Deliver {
                        id,
                        outcome: Outcome::Reply(reply),
                    });
                } else {
                    out.push(Output::Ignored(Ignored::LateAnswer(id)));
                }
                return;
            }
            Outgoing::Done => {
                out.push(Output::Anomaly(Anomaly::DuplicateResponse(id)));
                return;
            }
        };
        self.disarm(i, out);
        self.outgoing[i].state = Outgoing::Done;
        if entry.method.is_initialize() {
            self.session = match reply {
                Reply::Initialized { cancel_support } => Session::Ready {
                    peer_cancel_support: cancel_support,
                },
                _ => Session::Failed,
            };
        }
        out.push(Output::Deliver { id, outcome });
        self.settle(entry.parent, out);
    }

    // ---------------------------------------------------------------- responder side

    fn find_in(&self, id: RequestId) -> Option<usize> {
        self.incoming.iter().rposition(|e| e.id == id)
    }

    fn find_running(&self, id: RequestId) -> Option<usize> {
        self.incoming.iter().rposition(|e| e.id == id && e.running)
    }

    fn respond(&self, id: RequestId, reply: Reply, out: &mut Vec<Output>) {
        let wire_id = if self.b() == Behaviour::IdTypeConfusion {
            id.coerced()
        } else {
            id
        };
        out.push(Output::Send(Message::Response { id: wire_id, reply }));
        if self.b() == Behaviour::ActivityAfterAnswer && self.sends_activity() {
            out.push(Output::Send(Message::Activity { id }));
        }
    }

    fn start_next(&mut self, out: &mut Vec<Output>) {
        let workers = self.cfg.workers.max(1);
        while self.running < workers {
            let Some(e) = self
                .incoming
                .iter_mut()
                .find(|e| e.state == Incoming::Queued)
            else {
                return;
            };
            // The search above found it queued, so the transition holds.
            let Ok(next) = e.state.start() else { return };
            e.state = next;
            e.running = true;
            self.running += 1;
            out.push(Output::StartWork(e.id));
        }
    }

    fn on_request(
        &mut self,
        id: RequestId,
        method: Method,
        session: Option<RequestId>,
        out: &mut Vec<Output>,
    ) {
        if let Some(i) = self.find_in(id)
            && self.incoming[i].state.is_open()
        {
            out.push(Output::Anomaly(Anomaly::DuplicateRequestId(id)));
        }
        match method {
            Method::Initialize { cancel_support } => {
                self.incoming.push(InEntry {
                    id,
                    state: Incoming::Answered(Completion::Completed),
                    running: false,
                    owed: None,
                    session,
                    turn_cancelled: false,
                    cancel_read: false,
                });
                if self.session == Session::NotStarted {
                    self.session = Session::Ready {
                        peer_cancel_support: cancel_support,
                    };
                }
                self.respond(
                    id,
                    Reply::Initialized {
                        cancel_support: self.cfg.cancel_support,
                    },
                    out,
                );
            }
            Method::Work { .. } | Method::ServerWork => {
                self.incoming.push(InEntry {
                    id,
                    state: Incoming::Queued,
                    running: false,
                    owed: None,
                    session,
                    turn_cancelled: false,
                    cancel_read: false,
                });
                let last = self.incoming.len() - 1;
                self.incoming[last].turn_cancelled = self.turn_cancelled(last);
                self.start_next(out);
            }
        }
    }

    fn work_done(&mut self, id: RequestId, out: &mut Vec<Output>) {
        let Some(i) = self.find_running(id) else {
            out.push(Output::Anomaly(Anomaly::UnknownWork(id)));
            return;
        };
        self.incoming[i].running = false;
        self.running -= 1;
        let state = self.incoming[i].state;
        if !state.is_open() && self.b() == Behaviour::SpawnsAfterCancel {
            // The faulty handler's work outlived the cancel it answered; it ends quietly.
            self.start_next(out);
            return;
        }
        if self.incoming[i].turn_cancelled && state.is_open() {
            // Its prompt turn was cancelled here: it ends with the outcome `cancelled`, once the
            // requests sent on its behalf are cancelled and resolved.
            self.cascade(id, out);
            if !self.defer(i, Reply::Cancelled) {
                match state.cancel(true) {
                    Ok(next) => {
                        self.incoming[i].state = next;
                        self.respond(id, Reply::Cancelled, out);
                    }
                    Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(id, e))),
                }
            }
            self.start_next(out);
            return;
        }
        if self.incoming[i].owed.is_some() || self.defer(i, Reply::Full) {
            // The work is done; the answer waits for the requests sent on its behalf.
            self.start_next(out);
            return;
        }
        if self.b() == Behaviour::ProgressAfterCancel && state == Incoming::CancelNoted {
            // The faulty server notices the cancel only now, and drops the work unanswered.
            match state.cancel(false) {
                Ok(next) => self.incoming[i].state = next,
                Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(id, e))),
            }
            out.push(Output::Dropped(id));
            self.start_next(out);
            return;
        }
        match state.complete() {
            Ok(next) => {
                self.incoming[i].state = next;
                self.respond(id, Reply::Full, out);
            }
            // The faulty "work outlives its answer": the finished work answers again.
            Err(_) if self.b() == Behaviour::AnswersTwice => self.respond(id, Reply::Full, out),
            Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(id, e))),
        }
        self.start_next(out);
    }

    /// Answers an acknowledged cancel (`acked`: ABP's `capabilities/cancel`, a task's cancel);
    /// any other cancel is not answered.
    fn ack(&self, acked: bool, id: RequestId, ack: Ack, out: &mut Vec<Output>) {
        if acked {
            out.push(Output::Send(Message::CancelAck { id, ack }));
        }
    }

    fn crash(&mut self, out: &mut Vec<Output>) {
        self.crashed = true;
        out.push(Output::Crashed);
    }

    fn on_cancel(&mut self, id: RequestId, session: bool, out: &mut Vec<Output>) {
        let rules = self.rules();
        let b = self.b();
        let shape_acked = rules.cancel_shape == CancelShape::AcknowledgedRequest;
        // A task's cancel is a request, answered with the task's final state (MCP).
        let acked = shape_acked || (session && rules.task_cancel_method.is_some());
        if b == Behaviour::AnswersCancelNotification && rules.json_rpc {
            out.push(Output::Send(Message::Response {
                id: RequestId::Null,
                reply: Reply::Error(-32601),
            }));
        }
        // A party that declared no support owes the generic cancel nothing; a session's
        // cancel is not the negotiated one.
        if rules.negotiated && !self.cfg.cancel_support && !session {
            out.push(Output::Ignored(Ignored::UnsupportedCancel(id)));
            return;
        }
        if shape_acked && self.session == Session::NotStarted {
            // ABP: "Cancel without active session | Return error { code: 'NOT_INITIALIZED' }".
            self.ack(acked, id, Ack::NOT_INITIALIZED, out);
            return;
        }
        // (A cancel that names a session cannot be mistaken for one of its own requests.)
        if b == Behaviour::CancelHitsOwnRequest
            && !session
            && let Some(o) = self
                .find_out(id)
                .filter(|&o| self.outgoing[o].state.is_open())
        {
            // The faulty receiver looks the id up among the requests it sent, and gives up its
            // own request; the peer's request with that id runs on.
            return self.give_up(o, CancelCause::User, true, out);
        }
        if b == Behaviour::IgnoresCancelForIdZero && id.is_falsy() {
            out.push(Output::Ignored(Ignored::UnknownCancel(id)));
            return;
        }
        if b == Behaviour::CancelCancelsAll {
            // (The named call is answered as the table says; the fault is in the others.)
            let named = self.find_in(id).map(|i| self.incoming[i].state);
            for i in 0..self.incoming.len() {
                if self.incoming[i].state.is_open() {
                    self.honour(i, out);
                }
            }
            if acked {
                self.ack(acked, id, acknowledged_cancel(named).1, out);
            }
            return;
        }
        let Some(i) = self.find_in(id) else {
            if b == Behaviour::CrashesOnUnknownCancel {
                return self.crash(out);
            }
            if acked {
                self.ack(acked, id, acknowledged_cancel(None).1, out);
            } else {
                out.push(Output::Ignored(Ignored::UnknownCancel(id)));
            }
            return;
        };
        let state = self.incoming[i].state;
        if !state.is_open() {
            if b == Behaviour::CrashesOnUnknownCancel {
                return self.crash(out);
            }
            if acked {
                let (_, mut ack) = acknowledged_cancel(Some(state));
                if b == Behaviour::SecondCancelNotCancelled && ack.cancelled {
                    ack.cancelled = false;
                }
                if b == Behaviour::ForgetsCompletedCall
                    && state == Incoming::Answered(Completion::Completed)
                {
                    // The faulty app dropped the call from its table when it answered it.
                    ack = acknowledged_cancel(None).1;
                }
                self.ack(acked, id, ack, out);
            } else {
                out.push(Output::Ignored(Ignored::CancelAfterAnswer(id)));
            }
            return;
        }
        match (b, state) {
            (_, Incoming::CancelNoted) => {
                // An answer held for its children that gives the request up on the party's
                // own account (LSP's ContentModified) becomes the cancel's, now that one came.
                if let (Some(Reply::Error(code)), Some(g)) = (self.incoming[i].owed, rules.give_up)
                    && g.says_given_up(code)
                {
                    self.incoming[i].owed = Some(Reply::Cancelled);
                }
                if acked {
                    self.ack(acked, id, Ack::CANCELLED, out);
                } else {
                    out.push(Output::Ignored(Ignored::RepeatedCancel(id)));
                }
            }
            (Behaviour::FinishFirst | Behaviour::ProgressAfterCancel, Incoming::Working) => {
                if let Ok(next) = state.note_cancel() {
                    self.incoming[i].state = next;
                }
            }
            // Queued: it will still run and answer in full; what a give-up then answers
            // depends on the cancel read, where the two answers differ (LSP).
            (Behaviour::FinishFirst, _) => {
                self.incoming[i].cancel_read = rules.gives_up_unlike_a_cancel();
            }
            (Behaviour::AckDisagreesWithOutcome, _) if acked => {
                self.ack(acked, id, Ack::CANCELLED, out);
            }
            (Behaviour::AnswersTwice, Incoming::Working) => {
                // Answers now, but the work is never told to stop.
                self.incoming[i].state = Incoming::Answered(Completion::Cancelled);
                self.respond(id, Reply::Cancelled, out);
                self.ack(acked, id, Ack::CANCELLED, out);
            }
            _ => {
                self.honour(i, out);
                self.ack(acked, id, Ack::CANCELLED, out);
            }
        }
    }

    /// Whether this party answers the requests of a prompt turn it cancelled itself as
    /// cancelled (ACP's client; the faulty `selects-after-cancel` does not, and answers them as
    /// their work ends).
    fn ends_turn_requests(&self) -> bool {
        self.rules().session_cancel_method.is_some()
            && self.cfg.party == Party::Client
            && self.b() != Behaviour::SelectsAfterCancel
    }

    /// Whether received request `i` serves a prompt turn this party has cancelled and not yet
    /// seen end.
    fn turn_cancelled(&self, i: usize) -> bool {
        self.incoming[i]
            .session
            .and_then(|s| self.find_out(s))
            .is_some_and(|o| matches!(self.outgoing[o].state, Outgoing::CancelRequested(_)))
    }

    /// Stops an open received request because of a cancel, answering as the behaviour says.
    fn honour(&mut self, i: usize, out: &mut Vec<Output>) {
        let rules = self.rules();
        let b = self.b();
        let InEntry {
            id, state, running, ..
        } = self.incoming[i];
        // The faulty `spawns-after-cancel` answers but lets the work run on.
        let stops = running && b != Behaviour::SpawnsAfterCancel;
        if stops {
            self.incoming[i].running = false;
            self.running -= 1;
            out.push(Output::AbortWork(id));
        }
        let answers_by_rule = rules.receiver_duty == ReceiverDuty::MustAnswer;
        let (next, reply) = match b {
            // The entry is never freed: it stays "noted" with no work behind it.
            Behaviour::LeaksCancelled => (
                Ok(Incoming::CancelNoted),
                answers_by_rule.then_some(Reply::Cancelled),
            ),
            Behaviour::Partial if rules.partial_results => (
                Ok(Incoming::Answered(Completion::Completed)),
                Some(Reply::Partial),
            ),
            Behaviour::WrongErrorCode if answers_by_rule => {
                (state.cancel(true), Some(Reply::Error(-32603)))
            }
            Behaviour::CancelledPromptAsError if answers_by_rule => (
                state.cancel(true),
                Some(Reply::Error(rules.cancel_error_code.unwrap_or(-32800))),
            ),
            Behaviour::NeverAnswersCancelled | Behaviour::LeavesChildPending => {
                (state.cancel(false), None)
            }
            Behaviour::AnswersAfterCancel => (state.cancel(true), Some(Reply::Cancelled)),
            _ => (
                state.cancel(answers_by_rule),
                answers_by_rule.then_some(Reply::Cancelled),
            ),
        };
        // The requests sent on its behalf are cancelled before it is answered; an answer held
        // back for them is superseded by the cancel's.
        self.incoming[i].owed = None;
        self.cascade(id, out);
        if let Some(reply) = reply
            && self.defer(i, reply)
        {
            if stops {
                self.start_next(out);
            }
            return;
        }
        match next {
            Ok(next) => self.incoming[i].state = next,
            Err(e) => {
                out.push(Output::Anomaly(Anomaly::Illegal(id, e)));
                return;
            }
        }
        match reply {
            Some(reply) => self.respond(id, reply, out),
            None if b != Behaviour::LeaksCancelled => out.push(Output::Dropped(id)),
            None => {}
        }
        if stops {
            self.start_next(out);
        }
    }

    // ---------------------------------------------------------------- both

    fn receive(&mut self, msg: Message, out: &mut Vec<Output>) {
        match msg {
            Message::Request { id, method } => self.on_request(id, method, None, out),
            Message::Response { id, reply } => self.on_response(id, reply, out),
            Message::Cancel { id, session } => self.on_cancel(id, session, out),
            Message::MalformedCancel => {
                if self.b() == Behaviour::CrashesOnUnknownCancel {
                    self.crash(out);
                } else {
                    out.push(Output::Ignored(Ignored::MalformedCancel));
                }
            }
            Message::CancelAck { id, .. } => {
                let cancelling = self
                    .find_out(id)
                    .is_some_and(|i| !matches!(self.outgoing[i].state, Outgoing::Pending));
                if !cancelling {
                    out.push(Output::Anomaly(Anomaly::UnexpectedAck(id)));
                }
            }
            Message::Activity { id } => {
                let open = self.find_out(id).map(|i| self.outgoing[i].state);
                match open {
                    Some(Outgoing::Pending | Outgoing::CancelRequested(_)) => {}
                    Some(Outgoing::Abandoned(_)) => {
                        out.push(Output::Ignored(Ignored::LateAnswer(id)))
                    }
                    _ => out.push(Output::Anomaly(Anomaly::ActivityAfterAnswer(id))),
                }
            }
        }
    }

    fn disconnect(&mut self, out: &mut Vec<Output>) {
        self.session = Session::Closed;
        for i in 0..self.outgoing.len() {
            if self.outgoing[i].state.is_open() {
                self.disarm(i, out);
                self.outgoing[i].state = Outgoing::Done;
                out.push(Output::Deliver {
                    id: self.outgoing[i].id,
                    outcome: Outcome::Disconnected,
                });
            }
        }
        for i in 0..self.incoming.len() {
            let e = self.incoming[i];
            if e.running {
                self.incoming[i].running = false;
                out.push(Output::AbortWork(e.id));
            }
            if e.state.is_open() {
                self.incoming[i].state = Incoming::Dropped;
                out.push(Output::Dropped(e.id));
            }
        }
        self.running = 0;
    }
}
