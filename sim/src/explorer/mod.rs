//! The explorer: every schedule of a small configuration, not a sample of them.
//!
//! It drives the same [`World`](crate::World) as the simulator, but where the simulator draws
//! what happens next from time and the seed, the explorer branches on every enabled step
//! ([`Step`]): delivering any in-flight message the transport allows (the head of each
//! direction on a FIFO link, any of them on a reordering one), the application sending its
//! next request or cancelling any request it sent, work finishing, a timer firing, running work
//! reporting progress, a message being lost or duplicated when the network may do so. Time
//! does not exist: timeouts are just steps that may come at any point.
//!
//! The breadth-first search is level-synchronous: each level's states are expanded in
//! parallel, then merged in a fixed order (parent, then choice), so the counts, the first
//! counterexample (a shortest one) and its schedule are the same for any number of threads.
//! States are held packed ([`Explorer::pack`]: everything that affects the future, checker
//! state included, in some 50 to 100 bytes) and deduplicated by a 64-bit [`fingerprint`] of
//! those bytes. Without the symmetry reduction states are held as [flat](Flat) rows: the
//! endpoints and the checker by number, messages, work and timers by one-byte codes, stepped
//! through a memo of transitions.
//!
//! How a [`Scenario`] reads here: `workload.requests` requests; `workload.workers` server
//! workers; the application may cancel each request once (twice with
//! `repeat_cancel_permille > 0`) when `cancel_permille > 0`; request timeouts when
//! `workload.timeout` is set, a connect timeout when `workload.init_timeout` is set; one
//! progress notification per piece of work when `progress_permille > 0`; loss when
//! `link.loss_permille > 0`; one duplicated message (a response or notification, as in the
//! simulator) when `link.duplicate_permille > 0`; `link.order`. Latencies, durations and
//! disconnects are not explored. An unset `cancel_support` explores both answers (two
//! initial states).

mod driver;
mod fifo;
mod flat;
mod hash;
mod search;
mod state;
mod steps;

pub use flat::{Flat, FlatMemo, FlatShared, FlatStep};
pub use hash::{StableHasher, fingerprint};
pub use search::{
    Finding, Findings, Level, Replayed, SearchOptions, SearchReport, combine, replay, search,
    search_shard,
};
pub use state::{Explorer, Step};

use crate::link::Order;
use crate::scenario::Scenario;
use cancelcheck_model::io::Timer;

/// The most requests the explorer can track: a scenario with more is refused by
/// [`explorable`], never cut short.
pub const MAX_REQUESTS: u16 = 32;

/// Whether the explorer can take `s` whole; the error names the field and the limit.
pub fn explorable(s: &Scenario) -> Result<(), crate::scenario::ScenarioError> {
    let n = s.workload.nesting;
    if !n.is_flat() {
        let per_root: u32 = (0..n.depth)
            .map(|k| u32::from(n.fanout).pow(u32::from(k)))
            .sum();
        let total = per_root * u32::from(s.workload.requests + s.workload.server_requests);
        if total > 250 {
            return Err(crate::scenario::ScenarioError {
                field: "workload.nesting".into(),
                expected: format!(
                    "request trees of at most 250 requests in all for the explorer, found {total}"
                ),
            });
        }
    }
    if s.workload.requests > MAX_REQUESTS {
        return Err(crate::scenario::ScenarioError {
            field: "workload.requests".into(),
            expected: format!(
                "at most {MAX_REQUESTS} requests for the explorer, found {}",
                s.workload.requests
            ),
        });
    }
    Ok(())
}

/// What the explorer branches on, read from a scenario.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    requests: u8,
    cancels_each: u8,
    timeouts: bool,
    init_timeout: bool,
    loss: bool,
    fifo: bool,
    progress: bool,
    /// Duplications the network may make in one run.
    duplicates: u8,
    /// Running work may be given up by its party (internal cancellation).
    internal: bool,
    /// The client may send one malformed cancel.
    malformed: bool,
    /// Requests the server sends to the client (each may be cancelled like the client's, and
    /// the server may send one malformed cancel too).
    server_requests: u8,
    /// Request trees: the deepest level and the requests a handler sends on behalf of each
    /// request it works on (`fanout` 0: no nesting).
    depth: u8,
    fanout: u8,
    /// Every request the client sends is task-augmented (where the dialect has tasks).
    tasks: bool,
    /// Streamable HTTP: a stream per client request (see [`crate::http`]).
    http: bool,
}

impl Bounds {
    /// Whether the search arms `timer` (a request's timeout, the connect timeout) at all: an
    /// armed timer it does not explore is never put in a state's tables.
    fn explores(&self, timer: Timer) -> bool {
        match timer {
            Timer::RequestTimeout(_) => self.timeouts,
            Timer::InitTimeout => self.init_timeout,
        }
    }
}

fn bounds(s: &Scenario) -> Bounds {
    Bounds {
        requests: s.workload.requests.min(MAX_REQUESTS) as u8,
        cancels_each: match (
            s.workload.cancel_permille,
            s.workload.repeat_cancel_permille,
        ) {
            (0, _) => 0,
            (_, 0) => 1,
            _ => 2,
        },
        timeouts: s.workload.timeout.is_some(),
        init_timeout: s.workload.init_timeout.is_some(),
        loss: s.link.loss_permille > 0,
        fifo: s.link.order == Order::Fifo,
        progress: s.workload.progress_permille > 0,
        duplicates: u8::from(s.link.duplicate_permille > 0),
        internal: s.workload.internal_cancel_permille > 0 && s.dialect.rules().give_up.is_some(),
        malformed: s.workload.malformed_cancel_permille > 0,
        server_requests: match s.dialect.rules().server_work_method {
            Some(_) => s.workload.server_requests.min(MAX_REQUESTS) as u8,
            None => 0,
        },
        depth: s.workload.nesting.depth,
        fanout: if s.workload.nesting.is_flat() || s.dialect.rules().server_work_method.is_none() {
            0
        } else {
            s.workload.nesting.fanout
        },
        tasks: s.workload.task_permille > 0 && s.dialect.rules().task_cancel_method.is_some(),
        http: s.link.order == Order::Http,
    }
}

/// A small configuration to explore, as the `explore` command takes it.
#[derive(Clone, Copy, Debug)]
pub struct ExploreSpec {
    /// The protocol.
    pub dialect: cancelcheck_model::Dialect,
    /// The behaviour under test.
    pub behaviour: cancelcheck_model::Behaviour,
    /// Requests the client sends.
    pub requests: u16,
    /// Server workers.
    pub workers: u16,
    /// Delivery order.
    pub order: Order,
    /// Request timeouts.
    pub timeouts: bool,
    /// A connect timeout on `initialize`.
    pub init_timeout: bool,
    /// Each request may be cancelled twice (always for acknowledged cancels).
    pub repeat_cancel: bool,
    /// Messages may be lost.
    pub loss: bool,
    /// Running work may send one progress notification.
    pub progress: bool,
    /// The client reuses the id of its latest answered request (see `IdPolicy::reuse_answered`).
    pub reuse_ids: bool,
    /// The network may deliver one response or notification twice.
    pub duplicate: bool,
    /// The server may give up running work on its own (internal cancellation), where the
    /// dialect says how it answers then.
    pub internal_cancel: bool,
    /// The client may send one malformed cancel.
    pub malformed_cancel: bool,
    /// Requests the server sends to the client (where the dialect has server requests); with
    /// any, the search runs without the symmetry and partial-order reductions.
    pub server_requests: u16,
    /// Whether the client declares cancellation support (ACP RFD); `None` explores both
    /// answers where the server sends requests in the ACP RFD.
    pub client_cancel_support: Option<bool>,
    /// Request trees: each running request at a level above `nesting.depth` may send
    /// `nesting.fanout` requests on its behalf; with any, the search runs without the
    /// symmetry reduction, and the partial-order reduction takes its sets for trees (see
    /// [`partial_order`]).
    pub nesting: crate::scenario::Nesting,
    /// Every request the client sends is task-augmented (MCP 2025-11-25), so that it is
    /// cancelled with the task's cancel (`tasks/cancel`). A flag of the method each request
    /// already carries: no state field, no new states where it is off.
    pub tasks: bool,
}

impl ExploreSpec {
    /// `requests` requests in `dialect` under `behaviour`, one worker per request, on a link
    /// with `order`; no timeouts, no loss.
    pub fn new(
        dialect: cancelcheck_model::Dialect,
        behaviour: cancelcheck_model::Behaviour,
        requests: u16,
        order: Order,
    ) -> Self {
        ExploreSpec {
            dialect,
            behaviour,
            requests,
            workers: requests,
            order,
            timeouts: false,
            init_timeout: false,
            repeat_cancel: false,
            loss: false,
            progress: false,
            reuse_ids: false,
            duplicate: false,
            internal_cancel: false,
            malformed_cancel: false,
            server_requests: 0,
            client_cancel_support: None,
            nesting: crate::scenario::Nesting::FLAT,
            tasks: false,
        }
    }

    /// The scenario the explorer reads (see the module documentation).
    pub fn scenario(&self) -> Scenario {
        use crate::link::Latency;
        let mut s = Scenario::default_for(self.dialect);
        s.behaviour = self.behaviour;
        let acked = self.dialect.rules().cancel_shape
            == cancelcheck_model::dialect::CancelShape::AcknowledgedRequest;
        let w = &mut s.workload;
        w.requests = self.requests;
        w.workers = self.workers.max(1);
        w.cancel_permille = 1000;
        w.repeat_cancel_permille = if self.repeat_cancel || acked { 1000 } else { 0 };
        w.timeout = self.timeouts.then_some(Latency::Fixed(1));
        w.init_timeout = self.init_timeout.then_some(Latency::Fixed(1));
        w.progress_permille = if self.progress { 1000 } else { 0 };
        w.internal_cancel_permille = u16::from(self.internal_cancel);
        w.malformed_cancel_permille = u16::from(self.malformed_cancel);
        w.ids.reuse_answered = self.reuse_ids;
        w.cancel_support = None;
        w.server_requests = self.server_requests;
        w.client_cancel_support = self.client_cancel_support;
        w.nesting = self.nesting;
        w.task_permille = if self.tasks { 1000 } else { 0 };
        s.link.order = self.order;
        s.link.loss_permille = u16::from(self.loss);
        s.link.duplicate_permille = u16::from(self.duplicate);
        s
    }
}

/// Whether requests are interchangeable in `s`, so that the symmetry reduction is sound: ids
/// are never reused, no request waits for a worker, and the behaviour neither singles out an
/// id (id 0, coerced ids, reuse of a given-up id) nor acts on several requests in table order
/// (one cancel stopping all). Table order then carries no information, and a state and its
/// relabelling have the same futures up to that relabelling.
///
/// Not with request trees, though their roots' subtrees all have one shape. The client runs
/// every request the server sends with one worker (see [`crate::world::endpoint_configs`]), so the
/// nested requests of different roots queue there behind one another, in the order of the
/// client's table, which a relabelling (tables sorted by id) would scramble; and each party
/// numbers the nested requests it sends from one counter, in the order it sends them across
/// roots, so renaming a root would have to rename its whole subtree in both parties' id spaces,
/// keeping the queue's order, for a gain the partial-order reduction
/// already takes on stdio (where, with one root, there is nothing to permute). The checker's
/// relabelling keeps parent links right all the same (`Checker::relabel`).
pub fn symmetric(s: &Scenario) -> bool {
    use cancelcheck_model::Behaviour as B;
    // The relabelling renames the client's ids only; the server's requests share its id space.
    bounds(s).server_requests == 0
        && bounds(s).fanout == 0
        && !bounds(s).http
        && s.workload.workers >= s.workload.requests
        && !s.workload.ids.reuse_answered
        && !matches!(
            s.behaviour,
            B::ReusesLiveId | B::IgnoresCancelForIdZero | B::IdTypeConfusion | B::CancelCancelsAll
        )
}

/// Whether the partial-order reduction is sound for `s`. With it, the search expands from a
/// state only an *ample* set of its enabled steps (see [`Explorer::to_expand`]), and still
/// reaches every step that breaks an invariant, every step that reaches a race, and every
/// quiescent state (with its verdict) of the full state graph, though not always by a
/// shortest path.
///
/// It needs, on either transport: no duplication (its budget is shared by every request, so
/// one request's duplication disables another's), no crash (`crashes-on-unknown-cancel` stops
/// every request of the party at once), no id reuse, no server requests, and no behaviour that
/// singles out an id, coerces ids, names a request by another's id or stops every request with
/// one cancel. Without request trees, requests must also be interchangeable ([`symmetric`]: no
/// request waits for a worker, so no step of one request starts another's work). With trees,
/// requests do wait (the client runs every request the server sends with one worker), and the
/// sets are chosen so that this does no harm (below); on a reordering link the behaviour must
/// also not act across roots' subtrees (`cancels-sibling-subtree`, `cancel-hits-own-request`).
///
/// The set chosen meets the classic conditions, read for reachability:
/// - C0: it is empty only where no step is enabled.
/// - C1: along every path from the state made of steps outside the set, each step commutes
///   with every step of the set: neither disables the other, both orders reach the same state,
///   and the order with the set's step first breaks and reaches at least what the other order
///   does. A path can then be reordered to begin with a step of the set (or have one put in
///   front) without losing a broken invariant, a race reached or its final state, which by
///   induction over the (finite, acyclic) graph keeps everything the search reports.
/// - C2 (invisibility) serves temporal properties of paths; what is checked here is what single
///   steps break or reach and what quiescent states hold, and C1's "at least what the other
///   order does" keeps those.
/// - C3 (the cycle proviso) holds trivially: the state graph is acyclic. Every step uses up
///   something never given back: the application's script and the network's budgets only
///   count down, a message delivered or lost is counted in the checker's record of its request
///   (a malformed cancel comes out of a budget), a timer is armed once per request sent, work
///   starts once per request received and ends once, progress is reported once per work, and
///   a request sent on another's behalf comes out of that one's fan-out.
///
/// Under the symmetry reduction a state stands for its relabellings; the argument holds from
/// whichever of them is expanded, and a relabelling breaks and reaches the same.
///
/// "The same state" is read on the packed form. With trees both parties send requests, and
/// the checker records each in the order they were sent (its records are the trees the
/// explorer reads: `Checker::parentage`); they are packed sorted by requester and id, with
/// their parent links renumbered (`Checker::set_canonical_order`), so that two sends on
/// different sides leave one state in either order. Nothing judged depends on that order (a
/// record is always looked up by requester and id; the order only decides which request a
/// violation found at the end names).
///
/// **Reordering link.** Without trees, the set is every enabled step of one request (the one
/// with the fewest, then the earliest), where every enabled step belongs to a request and steps
/// of two or more are enabled. There, steps of different requests commute and never enable or
/// disable one another (messages are delivered in any order), and what the checker says about
/// a request depends only on that request's steps and `initialize`'s.
///
/// With trees, the unit is a root's *subtree* (the request and every request sent on behalf
/// of one in its tree): what a party does for one subtree does not touch another's requests,
/// but subtrees share what a party owns for all of them. Its counter of ids: the party's next
/// request, nested or (the client's) a new root, takes the next id, so two subtrees' sends on
/// one party swap ids with their order. And its workers: a request received waits for a free
/// one, work ending starts the first waiting, and a cancel received for a waiting request takes
/// it out, which does not commute with another's work ending (the request would have started).
/// So the set is every enabled step of one subtree (the fewest, then the earliest), where every
/// enabled step belongs to a subtree and those of two or more are enabled, among the subtrees
/// (not `initialize`'s) whose steps are all *tame* and none of whose requests waits for a
/// worker. A tame step touches neither a counter nor workers: an answer, progress or a cancel
/// acknowledgement delivered (an answer may release the answer held back for its parent, in
/// the same subtree, which starts or ends no work), any message lost, the client's application
/// cancelling, a timeout (which gives its request up or sends a cancel), running work
/// reporting progress. C1: a step of another subtree touches this one's state only through
/// counters and workers, which tame steps leave alone, so each commutes with each step of the
/// set, disables none, and enables no step of this subtree (that could only be by starting its
/// waiting work); what the checker says about a request depends only on its subtree's steps
/// and `initialize`'s.
///
/// **FIFO link (stdio).** Steps of different requests do not all commute there: two messages
/// put on one queue arrive in the order they were sent, and delivering the head of a queue is
/// what makes the next message (perhaps another request's) deliverable. Each step is on one
/// party's *side*: the party it feeds (an application command, a delivery, work, a timer, a
/// nested request's sending), or for a loss the lost message's recipient. Each party is the
/// only writer of the queue towards its peer and the only reader of the queue towards itself.
/// Requests are numbered one by one, nested ones too (by their place among the checker's
/// records sorted by requester and id, `initialize` left out); the
/// sending of a nested request belongs to the request it is sent on behalf of. So:
/// - Steps on different sides commute on the queues (one appends to a tail, the other takes the
///   head of the other queue, or of the same queue while it is not empty) and on the endpoints
///   (separate). On the checker they commute but for two reads, each of the other side's doing
///   about the same request, and each deciding only whether a race is reached: a request's
///   timeout reads whether its answer is on the wire (sent by the responder, received or lost by
///   the requester), and a cancel received reads whether the answer was received or lost. In
///   both, the responder's step first reaches the race whenever the other order does. (The
///   answer to `initialize` declares the capability a cancel sent is judged against; no set is
///   chosen while `initialize` is in flight.) With trees, everything else the checker reads
///   about a request's children or parent (a child's resolution when the parent is answered,
///   the parent's cancel when a child is sent or given up) is written on the same side: the
///   handler of a request is the requester of its children.
/// - Steps on the same side of different requests commute when at most one of them may send:
///   the party's handling of one request does not touch its others, and a *quiet* delivery (a
///   response to a root, progress, a cancel acknowledgement, a work request: its receipt never
///   makes a party send, which a debug assertion checks at every such delivery) appends
///   nothing, while two steps that may send put their messages on the same queue in either
///   order. With trees, a request's handling does touch its parent and children: a response
///   to a nested request may release the answer held back for its parent (so it is not quiet),
///   and a cancel received, work given up or a timeout cascade to the children (steps that may
///   send anyway); a progress note received for a child the cascade gave up changes nothing
///   but what is ignored. And requests wait for workers: work ending starts the first waiting
///   request, which commutes with a request's receipt (it joins the end of the line, and the
///   same request starts in either order).
/// - A party's own steps (application commands, work, timers, nested requests' sending) are
///   enabled only by its own steps (a request's work starts on the party's own inputs); a
///   delivery only by the taking of the head before it, or, on an empty queue, by the peer's
///   sending.
///
/// The set is the smallest of these that holds and leaves some step out (ties: a head before a
/// side, the client before the server), or every enabled step:
/// - *The head of the queue towards party P* (its delivery, and its loss where messages may be
///   lost), when the message is quiet, its request has no other step enabled on P's side, and,
///   if it is an answer, no cancel of its request is on its way to the other party. C1: nothing
///   else takes that head; another request's step on P's side commutes with it (it sends
///   nothing); a step on the other side commutes with it unless it is the receipt of that
///   cancel; the request's other steps on P's side can only be enabled by its own steps there,
///   and none is (a request P has not received yet has no step on P's side, so no worker freed
///   on P can start it first), and its messages behind the head wait for it.
/// - *Every step on party P's side*, when the queue towards P is not empty, `initialize` is
///   not in flight, and no request timeout in the set is of a request the peer may still
///   answer (its work running, a message of it on the way to the peer, or, with trees, the
///   peer holding it open: waiting for a worker, or its answer held back for its children, which
///   the peer's steps of other requests release), and no answer (to a root or a nested request)
///   at the head is of a request whose cancel is on the way to the peer. C1: every step outside
///   the set is on the other side; none can hand P a new step before one of the set is taken
///   (the head towards P is the set's, and P's own steps are enabled only by P's); each
///   commutes with the set's steps but for the two reads above, which these conditions rule
///   out on the requester's side and which favour the set on the responder's.
///
/// `sim/tests/explorer.rs` checks that the verdicts (what breaks, the races reached) are the
/// same with and without the reduction for every behaviour on both transports, with and without
/// request trees, and checks C1 itself, step pair by step pair, in every state of small
/// searches: on stdio, and for request trees on both transports.
pub fn partial_order(s: &Scenario) -> bool {
    use cancelcheck_model::Behaviour as B;
    let b = bounds(s);
    // (`sends-before-initialize` makes the client's send and the arrival of the `initialize`
    // answer to it two steps whose order decides a verdict.)
    // (Streamable HTTP's streams are searched whole: its steps are no request's alone.)
    if s.link.duplicate_permille > 0
        || b.http
        || matches!(
            s.behaviour,
            B::CrashesOnUnknownCancel | B::SendsBeforeInitialize
        )
    {
        return false;
    }
    if b.fanout == 0 {
        return symmetric(s);
    }
    b.server_requests == 0
        && !s.workload.ids.reuse_answered
        && !matches!(
            s.behaviour,
            B::ReusesLiveId
                | B::IgnoresCancelForIdZero
                | B::IdTypeConfusion
                | B::CancelCancelsAll
                | B::ForwardsCancelUnrewritten
        )
        // On a reordering link these act across subtrees.
        && (b.fifo || !matches!(s.behaviour, B::CancelsSiblingSubtree | B::CancelHitsOwnRequest))
}

/// The kind of ample set the partial-order reduction takes in `s`, where it applies (see
/// [`partial_order`]): `fifo-head-or-side` on stdio (a queue's head, or every step of one
/// party), `request` on a reordering link (one request's steps), `root-subtree` there with
/// request trees (one root's subtree's steps, where they are tame).
pub fn ample_sets(s: &Scenario) -> Option<&'static str> {
    let b = bounds(s);
    partial_order(s).then_some(match (b.fifo, b.fanout > 0) {
        (true, _) => "fifo-head-or-side",
        (false, false) => "request",
        (false, true) => "root-subtree",
    })
}

/// The scenarios the initial states stand for: one per possible `cancel_support` (the
/// server's), and, where the server sends requests in a dialect that negotiates cancellation,
/// one per possible `client_cancel_support`.
pub fn initial_scenarios(s: &Scenario) -> Vec<Scenario> {
    let w = &s.workload;
    let both = [Some(true), Some(false)];
    let servers: &[Option<bool>] = match w.cancel_support {
        Some(_) => &[w.cancel_support],
        None => &both,
    };
    let clients: &[Option<bool>] = match w.client_cancel_support {
        None if bounds(s).server_requests > 0 && s.dialect.rules().negotiated => &both,
        _ => &[w.client_cancel_support],
    };
    servers
        .iter()
        .flat_map(|&server| {
            clients.iter().map(move |&client| {
                let mut v = s.clone();
                v.workload.cancel_support = server;
                v.workload.client_cancel_support = client;
                v
            })
        })
        .collect()
}
