//! Request trees: which request was sent on behalf of which, and what became of each, as a
//! petgraph graph built from a stream of [`Event`]s.
//!
//! The tree draws and explains; it judges nothing, and it keeps no model of parentage of its
//! own. It reads the events with a [`Checker`] and takes from it both things a drawing could
//! get wrong: which request instance each message is about ([`Checker::observe_about`]) and
//! which request each was sent on behalf of ([`Checker::parentage`]). So a drawing never
//! disagrees with the verdict judged beside it, reused ids included: a request with a reused
//! id that arrives is the oldest of that id still on its way, as the checker reads it.
//!
//! A node is one request instance, the checker's record of it: node `n` is the record at
//! place `n.index()` of the checker's parentage, with its requester, wire id and generation
//! (the n-th request that party sent with that id), so a reused id makes a new node instead of
//! merging two requests. An edge goes from a request to each request its handler sent on its
//! behalf, as the checker linked them (an [`Output::Nested`] followed by the request's
//! `Send`). Nodes are numbered in the order their requests were sent, and no node or edge is
//! ever removed, so a [`NodeIndex`] stays valid and nodes sort by index in sending order.
//!
//! What the tree adds is what a drawing shows: each request's fate and timestamps, why its
//! requester gave it up ([`CancelReason`]), and where each cancel's cascade went
//! ([`RequestTree::cancel_path`]). Which requests missed the cascade of a cancelled ancestor
//! (`cascade-complete`) is the checker's to say ([`Checker::cascade_gaps`]).

use crate::Checker;
use crate::event::Event;
use cancelcheck_model::io::{Ignored, Timer};
use cancelcheck_model::message::{CancelCause, Method};
use cancelcheck_model::{
    Command, Dialect, Input, Message, Outcome, Output, Party, Reply, RequestId,
};
use petgraph::Direction;
use petgraph::graph::DiGraph;
/// The graph's node and edge handles, re-exported so that users need not name petgraph.
pub use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::{Bfs, Dfs, EdgeRef, NodeFiltered, Walker};

/// Why a requester gave up a request: it sent the dialect's cancel for it, or resolved it as
/// cancelled to its application.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum CancelReason {
    /// Its application asked (the requester was handling the command to cancel it).
    Application,
    /// Its timeout fired (internal cancellation by the requester; the connect timeout for
    /// `initialize`).
    Timeout,
    /// The cascade of its parent's cancel: its requester, the parent's handler, had read a
    /// cancel for the parent while holding it open, or had given the parent up on its own.
    Cascade,
    /// None of the above: nothing its requester was asked or owed called for it (a cancel
    /// meant for another subtree, for instance).
    Unprompted,
}

impl CancelReason {
    /// A short name: `application`, `timeout`, `parent's cascade` or `unprompted`.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelReason::Application => "application",
            CancelReason::Timeout => "timeout",
            CancelReason::Cascade => "parent's cascade",
            CancelReason::Unprompted => "unprompted",
        }
    }
}

/// When and why a requester gave up one of its requests.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Cancel {
    /// Index (from 0) of the event at which it first did: its cancel put on the wire, or its
    /// resolution as cancelled, whichever came first.
    pub event: u64,
    /// Why.
    pub reason: CancelReason,
}

/// What became of a request, as its requester saw it at the end of the events read.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Fate {
    /// The requester delivered this answer to its application: any answer to a request it
    /// had not given up, and an ordinary one ([`ordinary`]) to a request it had, whose answer
    /// then won over its cancel ([`Node::answer_won`]).
    Answered(Reply),
    /// The requester gave it up (see [`Node::cancel`]) and resolved it: as cancelled at once,
    /// or with an answer that carries the cancel (a cancelled answer, a partial result, an
    /// error).
    Cancelled(CancelReason),
    /// The connection closed before it was resolved.
    Disconnected,
    /// Not resolved when the events ended (a cancel may have been sent: see [`Node::cancel`]).
    Running,
}

/// Whether an answer carries nothing of a cancel: a full result (or `initialize`'s). The
/// others are answers to a cancel its handler took: a cancelled answer, a partial result (sent
/// because of a cancel), an error (the model answers with an error only a request it was asked
/// to cancel or gave up, with a wrong code).
pub fn ordinary(r: Reply) -> bool {
    matches!(r, Reply::Full | Reply::Initialized { .. })
}

/// One request instance: who sent it, with which id, and what happened to it. Event indices
/// count every event read, from 0.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Node {
    /// The party that sent it.
    pub requester: Party,
    /// Its wire id.
    pub id: RequestId,
    /// 1 for the first request `requester` sent with `id`, 2 for the second, ...
    /// ([`crate::checker::Parentage::generation`]).
    pub generation: u32,
    /// What it asks for (`initialize` included: it is always a root, never nested).
    pub method: Method,
    /// The event that put it on the wire.
    pub sent: u64,
    /// The parent id its requester named in [`Output::Nested`], whether or not the checker
    /// found a request with that id (when none was, the node is a root with this set).
    pub parent_id: Option<RequestId>,
    /// When its handler received it, if it did (a request with a reused id that arrives is
    /// the oldest of that id still on its way, as the checker reads it).
    pub received: Option<u64>,
    /// The network lost the request (its handler never saw it; of a reused id, the oldest
    /// still on its way).
    pub request_lost: bool,
    /// When and why its requester gave it up, if it did.
    pub cancel: Option<Cancel>,
    /// When its handler read a cancel for it while still holding it open (neither answered
    /// nor dropped): from then on the handler owes its unresolved children the cascade.
    pub cancel_taken: Option<u64>,
    /// When its handler first gave it up on its own account (internal cancellation): also
    /// owes the cascade.
    pub given_up: Option<u64>,
    /// Every event at which its handler owed its unresolved children the cascade: each cancel
    /// read while holding it open, and each time it gave it up, in order.
    pub cascades: Vec<u64>,
    /// The first answer its handler put on the wire, and when.
    pub answer: Option<(u64, Reply)>,
    /// When its handler was done with it without answering.
    pub dropped: Option<u64>,
    /// The network lost an answer to it.
    pub answer_lost: bool,
    /// The first outcome its requester delivered to its application, and when.
    pub outcome: Option<(u64, Outcome)>,
    /// When its parent was answered or dropped by its handler (this node's requester) while
    /// this node was still unresolved: the node was orphaned.
    pub orphaned: Option<u64>,
}

impl Node {
    /// Whether its requester resolved it (delivered an outcome) by the end.
    pub fn resolved(&self) -> bool {
        self.outcome.is_some()
    }

    /// The cancel its requester sent that its ordinary answer won over: the request was given
    /// up and then answered in full ([`Fate::Answered`] with [`Node::cancel`] set).
    pub fn answer_won(&self) -> Option<Cancel> {
        self.cancel
            .filter(|_| matches!(self.outcome, Some((_, Outcome::Reply(r))) if ordinary(r)))
    }

    /// Whether its ordinary answer and its cancel crossed: the answer won
    /// ([`Node::answer_won`]) and its handler had sent it before it read the cancel (it never
    /// took the cancel while holding the request open). Otherwise a handler that read the
    /// cancel finished the work and answered in full all the same.
    pub fn cancel_crossed_answer(&self) -> bool {
        self.answer_won().is_some() && self.cancel_taken.is_none()
    }

    /// The first event at which its handler owed its children the cascade (a cancel read
    /// while holding it open, or giving it up), if any.
    pub fn cascade_from(&self) -> Option<u64> {
        self.cascades.first().copied()
    }

    /// What became of it, agreeing with the outcome delivered. Guarantees: `Running` exactly
    /// when no outcome was delivered; `Answered` exactly when the outcome is an answer and
    /// either the requester had not given the request up or the answer is [`ordinary`] (it
    /// won over the cancel: [`Node::answer_won`]); `Cancelled` exactly when the requester had
    /// given the request up ([`Node::cancel`] is set) and resolved it otherwise (but for a
    /// disconnect before it gave it up).
    pub fn state(&self) -> Fate {
        match (self.outcome, self.cancel) {
            (None, _) => Fate::Running,
            (Some((_, Outcome::Reply(r))), Some(_)) if ordinary(r) => Fate::Answered(r),
            (Some((_, Outcome::Disconnected)), None) => Fate::Disconnected,
            (Some(_), Some(c)) => Fate::Cancelled(c.reason),
            (Some((_, Outcome::Reply(r))), None) => Fate::Answered(r),
            // A cancelled outcome always records a cancel; kept total all the same.
            (Some((_, Outcome::Cancelled(cause))), None) => Fate::Cancelled(match cause {
                CancelCause::User => CancelReason::Application,
                CancelCause::Timeout => CancelReason::Timeout,
                CancelCause::Parent => CancelReason::Cascade,
            }),
        }
    }
}

/// One cancel and how far its cascade went: the request given up (by its requester for a
/// reason other than a parent's cascade, or by its handler on its own account), the
/// descendants its cascade reached, and those it owed and missed.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct CancelPath {
    /// The request first given up.
    pub origin: NodeIndex,
    /// When.
    pub event: u64,
    /// Why its requester gave it up; `None` when its handler gave it up on its own
    /// (internal cancellation) and its requester did not cancel it first.
    pub reason: Option<CancelReason>,
    /// The descendants whose requesters gave them up in the cascade ([`CancelReason::Cascade`]),
    /// each through a chain of such requests from `origin`, in the order sent (a request is
    /// always sent after its parent, so a parent comes before its children).
    pub reached: Vec<NodeIndex>,
    /// Children of `origin` or of a reached request that were owed the cascade and did not
    /// get it in full: never given up, or given up and never resolved (see
    /// [`crate::Checker::cascade_gaps`] for the exact rule).
    pub missed: Vec<NodeIndex>,
    /// The edges from `origin` down to every reached or missed request.
    pub edges: Vec<EdgeIndex>,
}

impl CancelPath {
    /// Whether `n` is the origin or a reached descendant.
    pub fn contains(&self, n: NodeIndex) -> bool {
        n == self.origin || self.reached.contains(&n)
    }
}

/// A trace's request tree (a forest: every request without a parent is a root).
///
/// Built online by [`RequestTree::observe`] or at once by [`RequestTree::from_events`]; either
/// way the result depends only on the events, their order and the dialect.
#[derive(Clone, Debug)]
pub struct RequestTree {
    graph: DiGraph<Node, ()>,
    /// The checker the events are read with: node `n` is its record `n.index()`, and it says
    /// which record each event is about and which record is whose parent.
    checker: Checker,
    /// Events read so far (the index of the next one).
    events: u64,
    /// The input each party is handling (what its outputs answer).
    input: [Option<Input>; 2],
    /// The parent each party named in an `Output::Nested`, for the request it sends next.
    nesting: [Option<RequestId>; 2],
    /// The node whose cancel each party took while handling its current input.
    taken: [Option<NodeIndex>; 2],
    /// `Some(quiescent)` once the run ended.
    end: Option<bool>,
}

impl RequestTree {
    /// An empty tree, whose events will be read by a fresh checker of `dialect`.
    pub fn new(dialect: Dialect) -> Self {
        Self::with_checker(Checker::new(dialect, 8))
    }

    /// An empty tree whose events will be read by `checker` (set up as the caller's verdict
    /// is, for instance told the link's order), reset first so that its records are the
    /// tree's nodes; [`RequestTree::checker`] then has the verdict of the events read.
    pub fn with_checker(mut checker: Checker) -> Self {
        checker.reset(checker.dialect());
        RequestTree {
            graph: DiGraph::new(),
            checker,
            events: 0,
            input: [None; 2],
            nesting: [None; 2],
            taken: [None; 2],
            end: None,
        }
    }

    /// The tree of a whole event stream of `dialect`, read in order.
    pub fn from_events<'a>(dialect: Dialect, events: impl IntoIterator<Item = &'a Event>) -> Self {
        let mut t = Self::new(dialect);
        t.observe_all(events);
        t
    }

    /// Reads every event of `events`, in order.
    pub fn observe_all<'a>(&mut self, events: impl IntoIterator<Item = &'a Event>) {
        for e in events {
            self.observe(e);
        }
    }

    /// The checker the events were read with: its verdict is the one the drawing agrees with,
    /// and its parentage is the tree's edges (node `n` is its record `n.index()`).
    pub fn checker(&self) -> &Checker {
        &self.checker
    }

    /// The graph itself: node weights are [`Node`]s, an edge goes from a parent to a child.
    pub fn graph(&self) -> &DiGraph<Node, ()> {
        &self.graph
    }

    /// The node at `n`. Panics if `n` is not a node of this tree (indices come from it).
    pub fn node(&self, n: NodeIndex) -> &Node {
        &self.graph[n]
    }

    /// Every node, in the order its request was sent.
    pub fn nodes(&self) -> impl Iterator<Item = (NodeIndex, &Node)> {
        self.graph.node_indices().map(move |n| (n, &self.graph[n]))
    }

    /// Every edge (parent, child), in the order the children were sent.
    pub fn edges(&self) -> impl Iterator<Item = (EdgeIndex, NodeIndex, NodeIndex)> + '_ {
        self.graph
            .edge_references()
            .map(|e| (e.id(), e.source(), e.target()))
    }

    /// The edge from `child`'s parent to `child`, if it has a parent.
    pub fn edge_to(&self, child: NodeIndex) -> Option<EdgeIndex> {
        self.graph
            .edges_directed(child, Direction::Incoming)
            .next()
            .map(|e| e.id())
    }

    /// How many requests were sent on behalf of another (the number of edges).
    pub fn nested(&self) -> usize {
        self.graph.edge_count()
    }

    /// How many requests were sent.
    pub fn len(&self) -> usize {
        self.graph.node_count()
    }

    /// Whether no request was sent.
    pub fn is_empty(&self) -> bool {
        self.graph.node_count() == 0
    }

    /// Whether any request was sent on behalf of another (the tree has an edge).
    pub fn has_nesting(&self) -> bool {
        self.graph.edge_count() > 0
    }

    /// Events read so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// `Some(quiescent)` once an [`Event::End`] was read.
    pub fn ended(&self) -> Option<bool> {
        self.end
    }

    /// The requests sent on nobody's behalf, in the order sent.
    pub fn roots(&self) -> Vec<NodeIndex> {
        self.graph
            .node_indices()
            .filter(|&n| self.parent(n).is_none())
            .collect()
    }

    /// The request `n` was sent on behalf of, if any.
    pub fn parent(&self, n: NodeIndex) -> Option<NodeIndex> {
        self.graph.neighbors_directed(n, Direction::Incoming).next()
    }

    /// The requests sent on behalf of `n`, in the order sent.
    pub fn children(&self, n: NodeIndex) -> Vec<NodeIndex> {
        let mut c: Vec<NodeIndex> = self.graph.neighbors(n).collect();
        c.sort_unstable();
        c
    }

    /// Every request below `n` (not `n` itself), depth first, each subtree in the order its
    /// requests were sent.
    pub fn descendants(&self, n: NodeIndex) -> Vec<NodeIndex> {
        // `neighbors` yields the newest edge first and `Dfs` pops the last pushed: children
        // come out oldest first.
        Dfs::new(&self.graph, n)
            .iter(&self.graph)
            .filter(|&d| d != n)
            .collect()
    }

    /// How deep `n` sits: 1 for a root ([`crate::checker::Parentage::depth`], uncapped).
    pub fn depth(&self, n: NodeIndex) -> usize {
        1 + self.checker.parentage().ancestors(n.index()).count()
    }

    /// The newest request `requester` sent with `id` (what the requester means by the id:
    /// [`crate::checker::Parentage::newest`]).
    pub fn find(&self, requester: Party, id: RequestId) -> Option<NodeIndex> {
        self.checker
            .parentage()
            .newest(requester, id)
            .map(NodeIndex::new)
    }

    /// Whether `n` was owed the cascade of its parent's cancel: its parent's handler (`n`'s
    /// requester) owed the cascade ([`Node::cascades`]) at some event after `n` was sent and
    /// before `n` was resolved.
    pub fn owed_cascade(&self, n: NodeIndex) -> bool {
        self.owed_at(n).is_some()
    }

    /// The first event at which `n` was owed its parent's cascade (see
    /// [`Self::owed_cascade`]).
    pub fn owed_at(&self, n: NodeIndex) -> Option<u64> {
        let p = self.parent(n)?;
        let x = &self.graph[n];
        self.graph[p]
            .cascades
            .iter()
            .copied()
            .find(|&at| x.sent < at && x.outcome.is_none_or(|(e, _)| e > at))
    }

    /// Whether `n` was sent after its parent's handler (`n`'s requester) had taken a cancel
    /// for the parent or given it up ([`Node::cascade_from`]): a child spawned after the
    /// cancel.
    pub fn sent_after_parent_cancel(&self, n: NodeIndex) -> bool {
        self.parent(n)
            .and_then(|p| self.graph[p].cascade_from())
            .is_some_and(|at| at < self.graph[n].sent)
    }

    /// The path of the cancel that gave up `n`: `n`, the descendants its cascade reached and
    /// those it missed. `None` when `n` was neither given up by its requester nor by its
    /// handler.
    pub fn cancel_path(&self, n: NodeIndex) -> Option<CancelPath> {
        let x = &self.graph[n];
        let (event, reason) = match (x.cancel, x.given_up) {
            (Some(c), Some(g)) if g < c.event => (g, None),
            (Some(c), _) => (c.event, Some(c.reason)),
            (None, Some(g)) => (g, None),
            (None, None) => return None,
        };
        // The cascade runs through requests given up for their parent's cancel.
        let through = NodeFiltered::from_fn(&self.graph, |m| {
            m == n || self.graph[m].cancel.map(|c| c.reason) == Some(CancelReason::Cascade)
        });
        let mut reached: Vec<NodeIndex> = Bfs::new(&through, n)
            .iter(&through)
            .filter(|&m| m != n)
            .collect();
        reached.sort_unstable();
        let mut missed = Vec::new();
        let mut edges = Vec::new();
        for &from in std::iter::once(&n).chain(&reached) {
            for e in self.graph.edges(from) {
                let to = e.target();
                if reached.contains(&to) {
                    edges.push(e.id());
                } else if self.owed_cascade(to) && self.missed(to) {
                    missed.push(to);
                    edges.push(e.id());
                }
            }
        }
        missed.sort_unstable();
        edges.sort_unstable();
        Some(CancelPath {
            origin: n,
            event,
            reason,
            reached,
            missed,
            edges,
        })
    }

    /// A request owed the cascade that its requester did not give up, or gave up and never
    /// resolved unless a loss excuses it (its request's, its answer's, or, as the checker
    /// reads it, an unresolved descendant's): what the checker's `cascade-complete` reports,
    /// drawn whether or not the run ended.
    fn missed(&self, c: NodeIndex) -> bool {
        let x = &self.graph[c];
        x.cancel.is_none()
            || (x.outcome.is_none()
                && !(x.request_lost
                    || x.answer_lost
                    || self.checker.descendant_loss(c.index()).is_some()))
    }

    /// The requests drawn below the origin of some cancel's path ([`Self::cancels`]), reached
    /// or missed, each as its requester and id, in the order of the paths.
    pub fn on_cancel_paths(&self) -> Vec<(Party, RequestId)> {
        self.cancels()
            .iter()
            .flat_map(|p| {
                p.reached
                    .iter()
                    .chain(&p.missed)
                    .copied()
                    .collect::<Vec<_>>()
            })
            .map(|n| (self.graph[n].requester, self.graph[n].id))
            .collect()
    }

    /// Every cancel that did not come from a parent's cascade, in the order of the requests
    /// given up, each with its path: the requests whose cancel started a cascade (or could
    /// have, had they children).
    pub fn cancels(&self) -> Vec<CancelPath> {
        self.graph
            .node_indices()
            .filter(|&n| {
                let x = &self.graph[n];
                x.given_up.is_some() || x.cancel.is_some_and(|c| c.reason != CancelReason::Cascade)
            })
            .filter_map(|n| self.cancel_path(n))
            .collect()
    }

    /// Reads one event. Guarantees: never panics, whatever the order of events (one that
    /// names an unknown request changes nothing).
    pub fn observe(&mut self, ev: &Event) {
        let at = self.events;
        self.events += 1;
        // The checker's record the event is about, as a node (every record is one).
        let about = self.checker.observe_about(ev);
        // A closed stream that is the cancel is drawn as the cancel, as the checker reads it.
        let ev = &self.checker.read_as(ev);
        let n = about
            .filter(|&k| k < self.graph.node_count())
            .map(NodeIndex::new);
        match *ev {
            Event::Input { party, input } => {
                self.input[party.index()] = Some(input);
                self.taken[party.index()] = None;
                if let Some(n) = n {
                    self.on_input(party, n, input, at);
                }
            }
            Event::Output {
                party,
                output: Output::Send(Message::Request { id, method }),
            } => {
                if let Some(k) = about {
                    self.on_request(party, k, id, method, at);
                }
            }
            Event::Output {
                party,
                output: Output::Nested { parent, .. },
            } => self.nesting[party.index()] = Some(parent),
            // The cancel was one the handler declared no support for: it owes nothing.
            Event::Output {
                party,
                output: Output::Ignored(Ignored::UnsupportedCancel(_)),
            } => {
                if let Some(n) = self.taken[party.index()].take() {
                    let x = &mut self.graph[n];
                    let at = x.cascades.pop();
                    if x.cancel_taken == at {
                        x.cancel_taken = None;
                    }
                }
            }
            Event::Output { party, output } => {
                if let Some(n) = n {
                    self.on_output(party, n, output, at);
                }
            }
            Event::Lost { msg, .. } => match (n, msg) {
                (Some(n), Message::Request { .. }) => self.graph[n].request_lost = true,
                (Some(n), Message::Response { .. }) => self.graph[n].answer_lost = true,
                _ => {}
            },
            Event::Duplicated { .. } | Event::Unmodelled { .. } => {}
            Event::End { quiescent, .. } => self.end = Some(quiescent),
        }
    }

    /// `party` read `input`, about node `n`.
    fn on_input(&mut self, party: Party, n: NodeIndex, input: Input, at: u64) {
        let x = &mut self.graph[n];
        match input {
            Input::Receive(Message::Request { .. }) => {
                x.received.get_or_insert(at);
            }
            // A cancel that overtook its request names nothing to its receiver.
            Input::Receive(Message::Cancel { .. })
                if x.received.is_some() && x.answer.is_none() && x.dropped.is_none() =>
            {
                x.cancel_taken.get_or_insert(at);
                x.cascades.push(at);
                self.taken[party.index()] = Some(n);
            }
            Input::InternalCancel(_) => {
                x.given_up.get_or_insert(at);
                x.cascades.push(at);
            }
            _ => {}
        }
    }

    /// `party` put out `output`, about node `n`.
    fn on_output(&mut self, party: Party, n: NodeIndex, output: Output, at: u64) {
        match output {
            Output::Send(Message::Cancel { .. }) => self.give_up(party, n, None, at),
            Output::Send(Message::Response { reply, .. }) => {
                self.graph[n].answer.get_or_insert((at, reply));
                self.orphan_children(n, at);
            }
            Output::Dropped(_) => {
                self.graph[n].dropped.get_or_insert(at);
                self.orphan_children(n, at);
            }
            Output::Deliver { outcome, .. } => {
                self.graph[n].outcome.get_or_insert((at, outcome));
                if let Outcome::Cancelled(cause) = outcome {
                    self.give_up(party, n, Some(cause), at);
                }
            }
            _ => {}
        }
    }

    /// `party` sent a request, the checker's record `k`: a new node, under the parent the
    /// checker linked it to.
    fn on_request(&mut self, party: Party, k: usize, id: RequestId, method: Method, at: u64) {
        let parent_id = self.nesting[party.index()].take();
        let p = self.checker.parentage();
        let generation = p.generation(k);
        let parent = p.parent(k).map(NodeIndex::new);
        let n = self.graph.add_node(Node {
            requester: party,
            id,
            generation,
            method,
            sent: at,
            parent_id,
            received: None,
            request_lost: false,
            cancel: None,
            cancel_taken: None,
            given_up: None,
            cascades: Vec::new(),
            answer: None,
            dropped: None,
            answer_lost: false,
            outcome: None,
            orphaned: None,
        });
        debug_assert_eq!(n.index(), k, "node n is the checker's record n");
        if let Some(p) = parent.filter(|p| p.index() < n.index()) {
            self.graph.add_edge(p, n, ());
        }
    }

    /// `party` gave up its request `n` (a cancel sent, or, with `cause`, resolved as
    /// cancelled): records the first time, and why, from what the party was handling.
    fn give_up(&mut self, party: Party, n: NodeIndex, cause: Option<CancelCause>, at: u64) {
        if self.graph[n].cancel.is_some() {
            return;
        }
        let id = self.graph[n].id;
        let cascade = self.owed_at(n).is_some_and(|owed| owed <= at);
        let reason = match (self.input[party.index()], cause) {
            (Some(Input::Command(Command::Cancel(c))), _) if c == id => CancelReason::Application,
            (Some(Input::TimerFired(Timer::RequestTimeout(t))), _) if t == id => {
                CancelReason::Timeout
            }
            (Some(Input::TimerFired(Timer::InitTimeout)), _) => CancelReason::Timeout,
            (_, Some(CancelCause::User)) => CancelReason::Application,
            (_, Some(CancelCause::Timeout)) => CancelReason::Timeout,
            _ if cascade => CancelReason::Cascade,
            _ => CancelReason::Unprompted,
        };
        self.graph[n].cancel = Some(Cancel { event: at, reason });
    }

    /// `n`'s handler answered or dropped it: its unresolved children are orphaned.
    fn orphan_children(&mut self, n: NodeIndex, at: u64) {
        for c in self.children(n) {
            let x = &mut self.graph[c];
            if x.outcome.is_none() && x.orphaned.is_none() {
                x.orphaned = Some(at);
            }
        }
    }
}

#[cfg(test)]
mod tests;
