//! One party of a connection, requester and responder at once, as a pure state machine.
//!
//! `Endpoint::handle(input, &mut outputs)` is the whole interface: no clock, no randomness, no
//! I/O. It never panics: inputs that do not fit are reported as [`Output::Anomaly`] or
//! [`Output::Ignored`] values. Request entries live in vectors reserved up front and are never
//! removed during a connection (terminal entries are how an endpoint recognises a late answer
//! or a repeated cancel), so `handle` does not allocate once capacity is reserved. Up to
//! [`INLINE_REQUESTS`] requests each way are held inline, so cloning a small endpoint (as the
//! explorer does for every state) does not allocate either.

use crate::dialect::DialectRules;
use crate::id::{Party, RequestId};
use crate::io::{Anomaly, Command, Ignored, Input, Output, Timer};
use crate::message::{CancelCause, Message, Method, Outcome, Reply};
use crate::pack::{CloneState, Pack, Relabel, State};
use crate::policy::Policy;
use crate::request::{Incoming, Outgoing};
use smallvec::SmallVec;

mod config;
mod requester;
mod responder;
mod tree;

pub use config::{EndpointConfig, IdPolicy};

/// Requests an endpoint holds inline before its tables move to the heap.
pub const INLINE_REQUESTS: usize = 4;

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
    /// A worker runs for it (true also after its answer, where the policy lets work run on).
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

    /// Whether the session is open for ordinary requests (where the policy sends before it is,
    /// as soon as `initialize` is sent).
    pub fn is_ready(&self) -> bool {
        match self.session {
            Session::Ready { .. } => true,
            Session::Initializing(_) => self.policy().sends_before_ready(),
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

    /// What its behaviour decides where the protocol leaves a choice or a fault departs.
    fn policy(&self) -> Policy {
        Policy::of(self.cfg.behaviour)
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

    fn receive(&mut self, msg: Message, out: &mut Vec<Output>) {
        match msg {
            Message::Request { id, method } => self.on_request(id, method, None, out),
            Message::Response { id, reply } => self.on_response(id, reply, out),
            Message::Cancel { id, session } => self.on_cancel(id, session, out),
            Message::MalformedCancel => {
                if self.policy().crashes_on_unknown_cancel() {
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
