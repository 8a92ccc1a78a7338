//! The online checker: one pass over an [`Event`] stream, one [`Verdict`].
//!
//! It keeps a small record per request instance (requester, id, generation by order of
//! sending) in a vector reserved up front, so feeding an event does not allocate. Only the
//! first violation of each invariant is recorded, with the index of the event that broke it.

use crate::event::Event;
use crate::invariant::{InvariantId, Strength};
use cancelcheck_model::dialect::{
    CancelSenders, CancelShape, DialectRules, GiveUpSignal, Honouring, IdReuse, ReceiverDuty,
};
use cancelcheck_model::io::Timer;
use cancelcheck_model::message::{Ack, AckReason, CancelCause, Method};
use cancelcheck_model::pack::{
    CloneState, Pack, PackError, Reader, Relabel, State, Transient, pack_seq, put_varint,
    unpack_seq,
};
use cancelcheck_model::{
    Command, Dialect, Input, Message, Outcome, Output, Party, Reply, RequestId,
};
use smallvec::SmallVec;

/// One broken invariant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Violation {
    /// Which.
    pub invariant: InvariantId,
    /// Its strength in the checked dialect.
    pub strength: Strength,
    /// Index (from 0) of the event that broke it.
    pub event: u64,
    /// The request involved, if one was.
    pub id: Option<RequestId>,
}

/// A set of properties as bits of a `u64` (see [`InvariantId::bit`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Pack, Relabel)]
pub struct PropertySet(pub u64);

impl PropertySet {
    /// Adds one.
    pub fn insert(&mut self, id: InvariantId) {
        self.0 |= id.bit();
    }
    /// Whether it holds `id`.
    pub fn contains(self, id: InvariantId) -> bool {
        self.0 & id.bit() != 0
    }
    /// The union.
    pub fn union(self, other: PropertySet) -> PropertySet {
        PropertySet(self.0 | other.0)
    }
    /// Its members in catalog order.
    pub fn iter(self) -> impl Iterator<Item = InvariantId> {
        InvariantId::all().filter(move |i| self.contains(*i))
    }
}

/// Which message a request's resolution depended on when the network lost it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Lost {
    /// The request itself: the receiver never saw it.
    Request,
    /// Its answer.
    Response,
}

impl Lost {
    /// `"request"` or `"response"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lost::Request => "request",
            Lost::Response => "response",
        }
    }
}

/// A request left unresolved at quiescence and excused from `eventual-resolution` because a
/// message its resolution depended on was lost. Only such a loss excuses: a lost cancel or
/// cancel acknowledgement never does (the request is still owed its answer).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Excuse {
    /// The requester.
    pub requester: Party,
    /// The request.
    pub id: RequestId,
    /// What was lost.
    pub lost: Lost,
}

/// A finding the checker set aside: an invariant seen broken about a request whose id its
/// requester reused while a message about the earlier request could still arrive (or about a
/// request in the tree of one such). Which of the two requests the messages were about cannot
/// be told on the wire, so only the reuse is reported (`no-live-id-reuse`), and this is listed
/// beside it, never counted.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SetAside {
    /// What would have been reported.
    pub invariant: InvariantId,
    /// The requester of the request it was about.
    pub requester: Party,
    /// That request's id.
    pub id: RequestId,
}

impl SetAside {
    /// Why a finding is set aside, for people.
    pub const WHY: &'static str = "its request's id was reused while live, or a request's in its tree: which request the messages were about cannot be told";
}

/// What a run amounts to, strongest first: a MUST broken, only SHOULDs broken, nothing broken
/// but a claim left unexercised (a race never reached, a fault that never acted), or a pass.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Status {
    /// A MUST clause was broken.
    Fail,
    /// Only SHOULD clauses were broken.
    Warn,
    /// Nothing was broken, but the run never reached what it claims to check.
    Vacuous,
    /// Nothing was broken and everything claimed was exercised.
    Pass,
}

impl Status {
    /// `"fail"`, `"warn"`, `"vacuous"` or `"pass"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Vacuous => "vacuous",
            Status::Pass => "pass",
        }
    }

    /// The status of a run with `violations` that did (`exercised`) or did not reach what it
    /// claims to check. Only a MUST broken fails.
    pub fn of(violations: &[Violation], exercised: bool) -> Status {
        let must = violations.iter().any(|v| v.strength == Strength::Must);
        Status::judged(must, !violations.is_empty(), exercised)
    }

    /// What the word means, in a few words (for the text beside it).
    pub fn meaning(self) -> &'static str {
        match self {
            Status::Fail => "a MUST broken",
            Status::Warn => "only SHOULDs broken",
            Status::Vacuous => "nothing broken, but not everything claimed was exercised",
            Status::Pass => "nothing broken, everything claimed exercised",
        }
    }

    /// The status of runs that broke a MUST (`must`), broke anything (`broke`), and did or did
    /// not exercise what they claim to check: the strongest applies. Every command and format
    /// says the word this decides ([`Status::as_str`]), whatever it judged.
    pub fn judged(must: bool, broke: bool, exercised: bool) -> Status {
        if must {
            Status::Fail
        } else if broke {
            Status::Warn
        } else if !exercised {
            Status::Vacuous
        } else {
            Status::Pass
        }
    }

    /// The process exit code a command gives it: 1 for a failure, 0 otherwise.
    pub fn exit_code(self) -> u8 {
        u8::from(self == Status::Fail)
    }
}

/// What the checker concluded about one run. `clone_from` keeps the target's allocations.
#[derive(CloneState, PartialEq, Eq, Hash, Debug, Default)]
pub struct Verdict {
    /// Violations, in the order found (first of each invariant only).
    pub violations: Vec<Violation>,
    /// Requests excused from `eventual-resolution` by a loss, in the order of their records.
    pub excused: SmallVec<[Excuse; 2]>,
    /// Findings set aside, each once, in the order met: about requests that a live id's reuse
    /// made ambiguous (see [`SetAside`]).
    pub set_aside: SmallVec<[SetAside; 2]>,
    /// The races ("sometimes" properties) the run reached.
    pub reached: PropertySet,
    /// Events read.
    pub events: u64,
    /// Whether the run ended quiescent (false: cut short by a bound; "eventually" unchecked).
    pub quiescent: bool,
}

impl Verdict {
    /// No violation.
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }

    /// Whether a MUST clause was broken.
    pub fn failed(&self) -> bool {
        self.violations.iter().any(|v| v.strength == Strength::Must)
    }

    /// The status, given whether the run exercised what it claims to check.
    pub fn status(&self, exercised: bool) -> Status {
        Status::of(&self.violations, exercised)
    }

    /// The set of violated invariants.
    pub fn violated(&self) -> PropertySet {
        let mut s = PropertySet::default();
        for v in &self.violations {
            s.insert(v.invariant);
        }
        s
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Pack, Relabel)]
enum Work {
    Unseen,
    Queued,
    Running,
    Ended,
}

/// The checker's record of one request instance.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Pack, Relabel)]
struct Req {
    requester: Party,
    id: RequestId,
    /// Whether it is `initialize` (the only method the rules single out).
    initialize: bool,
    work: Work,
    cancel_sent: bool,
    cancel_received: bool,
    /// The cancel reached the responder while it still held the request open.
    cancel_received_open: bool,
    /// A cancel received named the request's session (ACP `session/cancel` of a prompt turn).
    session_cancel: bool,
    responses_sent: u8,
    /// Extra copies of answers the network duplicated.
    response_copies: u8,
    responses_received: u8,
    responses_lost: u8,
    responder_done: bool,
    delivered: u8,
    /// The request itself was lost: its receiver never saw it.
    request_lost: bool,
    ack_cancelled: Option<bool>,
    result_cancelled: Option<bool>,
    /// Activity notifications put on the wire (copies included), and those received or lost.
    activity_sent: u8,
    activity_settled: u8,
    /// Cancels put on the wire (copies included), and those received or lost.
    cancels_sent: u8,
    cancels_received: u8,
    cancels_lost: u8,
    /// Cancel acknowledgements put on the wire (copies included), and those received or lost
    /// (ABP).
    acks_sent: u8,
    acks_settled: u8,
    /// Its id was reused while a message about it could still arrive: from then on the wire
    /// cannot tell this request from the other one with its id, so only that reuse is reported
    /// about it, not what the confusion leads to.
    ambiguous: bool,
    /// Its receiver gave it up on its own account (internal cancellation).
    internal: bool,
    /// The record of the request on whose behalf it was sent (its parent in the request tree).
    parent: Option<u8>,
    /// Its parent was cancelled while it was unresolved: its requester owes it the cascade.
    cascade_owed: bool,
    /// Its requester resolved it as cancelled (after a cancel, a timeout, or its parent's
    /// cancel).
    resolved_cancelled: bool,
    /// Its receiver, the client, had cancelled the prompt turn it serves (ACP `session/cancel`
    /// of its parent) while it held it unanswered: it owes it the outcome `cancelled`.
    turn_cancelled: bool,
}

impl Req {
    /// An answer (or a duplicate copy of one) is on the wire.
    fn answer_in_flight(&self) -> bool {
        self.responses_sent.saturating_add(self.response_copies)
            > self.responses_received.saturating_add(self.responses_lost)
    }

    /// A cancel for this request is on its way to the receiver.
    fn cancel_in_flight(&self) -> bool {
        self.cancels_sent > self.cancels_received.saturating_add(self.cancels_lost)
    }

    /// Some message about this request may still arrive after a new request with the same id:
    /// towards the requester its answer (or a copy), progress, or (with `acked`) a cancel's
    /// acknowledgement, or the answer it is still owed; towards the receiver a cancel, unless
    /// the link is `fifo` (a cancel sent before the new request then arrives before it).
    fn may_still_arrive(&self, acked: bool, fifo: bool) -> bool {
        self.answer_in_flight()
            || self.activity_sent > self.activity_settled
            || (acked && (self.acks_sent > self.acks_settled || self.cancel_in_flight()))
            || (!fifo && self.cancel_in_flight())
            || (self.responses_sent == 0 && !self.responder_done && !self.request_lost)
    }
}

/// The inverse of a permutation of record indices: where each record went.
fn inverse(order: &[u8]) -> SmallVec<[u8; 16]> {
    let mut place: SmallVec<[u8; 16]> = smallvec::smallvec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        place[usize::from(old)] = new as u8;
    }
    place
}

/// The online checker for one dialect.
///
/// Its state is declared here once: the fields without a role are packed ([`State`]:
/// everything that affects the checker's future verdicts, its per-request records and what it
/// learnt of the session, and the invariants already broken; not the verdict so far nor what
/// the party being fed is doing within one step), renamed ([`Relabel`]: ids renamed, then the
/// records put back in [canonical order](Checker::set_canonical_order) with their parent links
/// renumbered) and copied (`clone_from` keeps the target's allocations). Two checkers of one
/// dialect whose packed bytes are equal judge every continuation alike (with
/// [`Checker::set_canonical_order`], alike in what breaks and what is reached; see there).
/// Unpacking starts a fresh verdict: the races reached and the violations found from there on.
#[derive(PartialEq, Eq, Hash, Debug, State, Relabel, CloneState)]
#[state(relabel_then = sort_records)]
pub struct Checker {
    #[state(config)]
    dialect: Dialect,
    /// Packed by `pack_reqs` (in canonical order where that is set).
    #[state(custom)]
    reqs: SmallVec<[Req; 6]>,
    found: PropertySet,
    #[state(transient)]
    verdict: Verdict,
    /// Cancellation support each party declared in its initialize answer.
    declared_support: [Option<bool>; 2],
    /// Whether the input being handled by each party is a cancel, and whether a malformed one
    /// (to blame a crash on it).
    #[state(transient)]
    handling_cancel: [Option<bool>; 2],
    /// The request of its own that the input being handled by each party asks to cancel (its
    /// application's cancel command, or that request's timer): what may cancel a request
    /// besides a cascade.
    #[state(transient)]
    commanded: [Option<RequestId>; 2],
    /// The parent each party named in an `Output::Nested`, for the request it sends next.
    #[state(transient)]
    nesting: [Option<RequestId>; 2],
    crashed: [bool; 2],
    /// Acknowledged cancels (ABP) each party has read and not yet answered.
    cancels_unanswered: [u8; 2],
    disconnected: bool,
    /// Whether the link delivers each direction in order.
    #[state(config)]
    fifo: bool,
    /// Whether the records pack in canonical order (see [`Checker::set_canonical_order`]).
    #[state(config)]
    canonical: bool,
}

/// A verdict is cleared keeping its allocations.
impl Transient for Verdict {
    fn clear(&mut self) {
        self.violations.clear();
        self.excused.clear();
        self.set_aside.clear();
        self.reached = PropertySet::default();
        self.events = 0;
        self.quiescent = false;
    }
}

impl Checker {
    /// A checker for `dialect`, with room for `requests` request instances before it allocates.
    pub fn new(dialect: Dialect, requests: usize) -> Self {
        Checker {
            dialect,
            reqs: SmallVec::with_capacity(requests + 1),
            found: PropertySet::default(),
            verdict: Verdict {
                violations: Vec::with_capacity(8),
                ..Verdict::default()
            },
            declared_support: [None; 2],
            handling_cancel: [None; 2],
            commanded: [None; 2],
            nesting: [None; 2],
            crashed: [false; 2],
            cancels_unanswered: [0; 2],
            disconnected: false,
            fifo: false,
            canonical: false,
        }
    }

    /// Tells the checker whether the link delivers each direction in order (stdio): then a
    /// cancel sent before a request reusing its id arrives before it and cannot stop it. Off by
    /// default, the conservative reading (any order).
    pub fn set_fifo(&mut self, fifo: bool) {
        self.fifo = fifo;
    }

    /// Makes [`State::pack_state`] write the records in canonical order, by requester and
    /// then id (a requester's records with one id, of a reused id, keep their order), with
    /// each parent named by its place in that order; off by default (the order the requests
    /// were sent in). Where both parties send requests (request trees), two checkers that
    /// differ only in how the two parties' sends were interleaved then pack alike. They judge
    /// every continuation alike: every lookup of a record is by requester and id (the newest
    /// of a reused id), and the records' order decides only which request a violation found
    /// at the end names and the order of the excuses, never which invariants break.
    pub fn set_canonical_order(&mut self, on: bool) {
        self.canonical = on;
    }

    /// Forgets which invariants were already reported, so that the next violation of each is
    /// reported again (the verdict keeps the first of each; a rendering that marks every event
    /// that breaks an invariant calls this before each input).
    pub fn forget_reported(&mut self) {
        self.found = PropertySet::default();
    }

    /// Back to the start, for `dialect`, keeping allocations.
    pub fn reset(&mut self, dialect: Dialect) {
        self.dialect = dialect;
        self.reqs.clear();
        self.found = PropertySet::default();
        self.clear_verdict();
        self.declared_support = [None; 2];
        self.handling_cancel = [None; 2];
        self.commanded = [None; 2];
        self.nesting = [None; 2];
        self.crashed = [false; 2];
        self.cancels_unanswered = [0; 2];
        self.disconnected = false;
    }

    /// Whether a MUST clause was broken since the verdict was last cleared (by
    /// [`Checker::unpack_state`] or [`Checker::take_verdict`]).
    pub fn failed(&self) -> bool {
        self.verdict.failed()
    }

    /// Whether a clause was broken since the verdict was last cleared.
    pub fn broke_something(&self) -> bool {
        !self.verdict.violations.is_empty()
    }

    /// The verdict so far.
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// Takes the verdict, leaving an empty one (for reuse across runs, call `reset` next).
    pub fn take_verdict(&mut self) -> Verdict {
        core::mem::take(&mut self.verdict)
    }

    /// Appends the records, in canonical order where that is set (see [`State`]).
    fn pack_reqs(&self, out: &mut Vec<u8>) {
        match self.canonical_order().filter(|_| self.canonical) {
            Some(order) => {
                let place = inverse(&order);
                put_varint(out, self.reqs.len() as u64);
                for &k in &order {
                    let r = &self.reqs[usize::from(k)];
                    Req {
                        parent: r.parent.map(|p| place[usize::from(p)]),
                        ..*r
                    }
                    .pack(out);
                }
            }
            None => pack_seq(&self.reqs, out),
        }
    }

    /// Reads what [`Checker::pack_reqs`] wrote.
    fn unpack_reqs(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        unpack_seq(r, &mut self.reqs)
    }

    /// Starts an empty verdict, keeping the violations' allocation.
    fn clear_verdict(&mut self) {
        self.verdict.clear();
    }

    /// The invariants broken so far, first found first.
    pub fn broken(&self) -> Vec<InvariantId> {
        self.verdict
            .violations
            .iter()
            .map(|v| v.invariant)
            .collect()
    }

    /// Puts the records in canonical order, their parent links renumbered (after a renaming:
    /// see [`Relabel`]).
    fn sort_records(&mut self) {
        let Some(order) = self.canonical_order() else {
            // (Beyond 256 records no parent link names a record: a plain sort keeps them.)
            self.reqs.sort_by_key(|r| (r.requester, r.id));
            return;
        };
        let place = inverse(&order);
        let old: SmallVec<[Req; 16]> = self.reqs.iter().copied().collect();
        for (slot, &k) in self.reqs.iter_mut().zip(&order) {
            let r = old[usize::from(k)];
            *slot = Req {
                parent: r.parent.map(|p| place[usize::from(p)]),
                ..r
            };
        }
    }

    /// The records' indices sorted by requester and id, stably (a reused id's records keep
    /// the order they were sent in); `None` beyond 256 records, which a `u8` cannot index.
    fn canonical_order(&self) -> Option<SmallVec<[u8; 16]>> {
        let n = u8::try_from(self.reqs.len().checked_sub(1)?).ok()?;
        let mut order: SmallVec<[u8; 16]> = (0..=n).collect();
        order.sort_by_key(|&k| {
            let r = &self.reqs[usize::from(k)];
            (r.requester, r.id)
        });
        Some(order)
    }

    /// Feeds the checker's records of request `id` to `h`, except the id itself.
    pub fn hash_request<H: core::hash::Hasher>(&self, id: RequestId, h: &mut H) {
        use core::hash::Hash;
        for r in self.reqs.iter().filter(|r| r.id == id) {
            Req {
                id: RequestId::Null,
                ..*r
            }
            .hash(h);
        }
    }

    /// Violated invariants so far.
    pub fn violated(&self) -> PropertySet {
        self.found
    }

    fn rules(&self) -> &'static DialectRules {
        self.dialect.rules()
    }

    /// Reports `inv` broken, about the request `about` names (its requester and id) where
    /// there is one. A finding about a request that a live id's reuse made ambiguous (that
    /// request, by requester and id, or one in its tree) is set aside and listed instead: the
    /// reuse was reported, and what the confusion of two requests leads to is not a deviation
    /// the wire can pin on either of them, nor on the requests of their tree (a parent waiting
    /// on a child whose answer went to the other request). The other party's requests with the
    /// same id are not concerned.
    fn violate(&mut self, inv: InvariantId, about: Option<(Party, RequestId)>) {
        let Some(app) = inv.info().application(self.dialect) else {
            return;
        };
        if inv != InvariantId::NoLiveIdReuse
            && let Some((requester, id)) = about
            && (0..self.reqs.len()).any(|i| {
                self.reqs[i].requester == requester && self.reqs[i].id == id && self.tangled(i)
            })
        {
            let aside = SetAside {
                invariant: inv,
                requester,
                id,
            };
            if !self.verdict.set_aside.contains(&aside) {
                self.verdict.set_aside.push(aside);
            }
            return;
        }
        let id = about.map(|(_, id)| id);
        if self.found.contains(inv) {
            return;
        }
        self.found.insert(inv);
        let event = self.verdict.events;
        self.verdict.violations.push(Violation {
            invariant: inv,
            strength: app.strength,
            event,
            id,
        });
    }

    fn reach(&mut self, race: InvariantId) {
        self.verdict.reached.insert(race);
    }

    /// The newest request instance of `requester` with `id`: the one its requester means by
    /// the id.
    fn find(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs
            .iter()
            .rposition(|r| r.requester == requester && r.id == id)
    }

    /// The instance the responder means by `id`: the newest one it has received (where a
    /// reused id's new request is still on its way, the earlier one it holds), or else the
    /// newest.
    fn find_held(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs
            .iter()
            .rposition(|r| r.requester == requester && r.id == id && r.work != Work::Unseen)
            .or_else(|| self.find(requester, id))
    }

    /// The instance whose request arrives (or is lost) when a request with `id` from
    /// `requester` does: the oldest one still on its way. Two requests with one id are alike
    /// on the wire, so which of them arrived cannot be told; each arrival takes one of them,
    /// and the responder then holds as many instances as it received (a reused id's second
    /// request is a request of its own, not an echo of the first).
    fn find_arriving(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs.iter().position(|r| {
            r.requester == requester && r.id == id && r.work == Work::Unseen && !r.request_lost
        })
    }

    /// The instance a requester resolves when it delivers an outcome for `id`: the newest one
    /// not yet resolved (a disconnect resolves an earlier instance of a reused id whose request
    /// was lost, after the newer one was answered), or else the newest.
    fn find_resolving(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs
            .iter()
            .rposition(|r| r.requester == requester && r.id == id && r.delivered == 0)
            .or_else(|| self.find(requester, id))
    }

    /// Reads one event.
    pub fn observe(&mut self, ev: &Event) {
        match *ev {
            Event::Input { party, input } => self.on_input(party, input),
            Event::Output { party, output } => self.on_output(party, output),
            Event::Lost { from, msg } => self.on_lost(from, msg),
            Event::Duplicated { from, msg } => self.on_duplicated(from, msg),
            Event::End {
                quiescent,
                open_incoming,
            } => self.on_end(quiescent, open_incoming),
        }
        self.verdict.events += 1;
    }

    fn on_input(&mut self, party: Party, input: Input) {
        self.handling_cancel[party.index()] = match input {
            Input::Receive(Message::Cancel { .. }) => Some(false),
            Input::Receive(Message::MalformedCancel) => Some(true),
            _ => None,
        };
        self.commanded[party.index()] = match input {
            Input::Command(Command::Cancel(id)) | Input::TimerFired(Timer::RequestTimeout(id)) => {
                Some(id)
            }
            Input::TimerFired(Timer::InitTimeout) => self
                .reqs
                .iter()
                .rev()
                .find(|r| r.requester == party && r.initialize)
                .map(|r| r.id),
            _ => None,
        };
        match input {
            Input::Receive(Message::Response { id, .. }) => {
                if let Some(i) = self.find(party, id) {
                    let r = &mut self.reqs[i];
                    r.responses_received = r.responses_received.saturating_add(1);
                    if r.cancel_sent {
                        self.reach(InvariantId::RaceAnswerAfterCancel);
                    }
                }
            }
            Input::Receive(Message::CancelAck { id, .. }) => {
                if let Some(i) = self.find(party, id) {
                    let r = &mut self.reqs[i];
                    r.acks_settled = r.acks_settled.saturating_add(1);
                }
            }
            Input::Receive(Message::Activity { id }) => {
                if let Some(i) = self.find(party, id) {
                    let r = &mut self.reqs[i];
                    r.activity_settled = r.activity_settled.saturating_add(1);
                }
            }
            Input::Receive(Message::Request { id, .. }) => {
                if let Some(i) = self.find_arriving(party.peer(), id) {
                    self.reqs[i].work = Work::Queued;
                    // It arrives for a prompt turn its receiver has cancelled and not yet seen end.
                    let turn = self.reqs[i].parent.map(|p| self.reqs[usize::from(p)]);
                    if turn.is_some_and(|p| self.turn_cancelled_by(party, &p)) {
                        self.end_turn_request(party, i);
                    }
                }
            }
            Input::Receive(Message::Cancel { id, session }) => {
                if self.rules().cancel_shape == CancelShape::AcknowledgedRequest {
                    let n = &mut self.cancels_unanswered[party.index()];
                    *n = n.saturating_add(1);
                }
                let Some(i) = self.find_held(party.peer(), id) else {
                    return;
                };
                let r = &mut self.reqs[i];
                r.cancels_received = r.cancels_received.saturating_add(1);
                r.session_cancel |= session;
                if self.rules().negotiated && self.declared_support[party.index()] != Some(true) {
                    // A party that declared no support owes the cancel nothing (ACP RFD).
                    return;
                }
                let r = self.reqs[i];
                if r.responses_sent > 0 && r.answer_in_flight() {
                    self.reach(InvariantId::RaceCancelCrossesAnswer);
                }
                if r.work == Work::Queued {
                    self.reach(InvariantId::RaceCancelBeforeWork);
                }
                if r.work == Work::Unseen {
                    // The cancel overtook its request: to the receiver it names nothing.
                    return;
                }
                let open = r.responses_sent == 0 && !r.responder_done;
                let r = &mut self.reqs[i];
                r.cancel_received_open |= open;
                r.cancel_received = true;
                if open {
                    self.owe_cascade(party, i);
                }
            }
            Input::TimerFired(Timer::RequestTimeout(id)) => {
                if let Some(i) = self.find(party, id)
                    && self.reqs[i].answer_in_flight()
                {
                    self.reach(InvariantId::RaceTimeoutWithAnswerInFlight);
                }
            }
            Input::InternalCancel(id) => {
                if let Some(i) = self.find_held(party.peer(), id) {
                    self.reqs[i].internal = true;
                    self.owe_cascade(party, i);
                }
            }
            Input::Disconnected => self.disconnected = true,
            _ => {}
        }
    }

    fn on_output(&mut self, party: Party, output: Output) {
        match output {
            Output::Send(msg) => self.on_send(party, msg),
            Output::Deliver { id, outcome } => {
                let Some(i) = self.find_resolving(party, id) else {
                    return;
                };
                let r = &mut self.reqs[i];
                r.delivered = r.delivered.saturating_add(1);
                let (delivered, cancel_sent) = (r.delivered, r.cancel_sent);
                if let Outcome::Cancelled(cause) = outcome {
                    r.resolved_cancelled = true;
                    if cause == CancelCause::Parent && !r.cascade_owed {
                        // Given up for a parent's cancel that did not concern it.
                        self.violate(InvariantId::SiblingsUntouched, Some((party, id)));
                    }
                }
                if let Outcome::Cancelled(cause) = outcome
                    && !cancel_sent
                    && self.owes_cancel(party, cause)
                {
                    // It gave the request up and never told the receiver.
                    self.violate(InvariantId::CancelSentOnGiveUp, Some((party, id)));
                }
                if outcome == Outcome::Cancelled(CancelCause::User)
                    && !cancel_sent
                    && self.commanded[party.index()] != Some(id)
                {
                    // Its application never got to cancel it: a cancel meant for another
                    // request (one received, in the other direction) stopped it.
                    self.violate(InvariantId::ExactIdMatch, Some((party, id)));
                }
                // An answer delivered after the requester resolved the request at cancel time
                // is one deviation, stated by the "SHOULD ignore" clause; it is not also a
                // second resolution.
                let late = matches!(outcome, Outcome::Reply(_))
                    && cancel_sent
                    && !self.rules().requester_waits;
                if late {
                    self.violate(InvariantId::LateAnswerIgnored, Some((party, id)));
                } else if delivered > 1 {
                    self.violate(InvariantId::SingleResolution, Some((party, id)));
                }
            }
            Output::Nested { parent, child } => {
                self.nesting[party.index()] = Some(parent);
                if let Some(i) = self.find_held(party.peer(), parent) {
                    let p = self.reqs[i];
                    // (The child has no record yet: the parent's tree says whether a reused
                    // id confused which request was cancelled.)
                    if (p.cancel_received_open || p.internal) && !self.tangled(i) {
                        self.violate(InvariantId::NoChildAfterCancel, Some((party, child)));
                    }
                }
            }
            Output::StartWork(id) => {
                if let Some(i) = self.find_held(party.peer(), id) {
                    self.reqs[i].work = Work::Running;
                }
            }
            Output::AbortWork(id) | Output::Dropped(id) => {
                let Some(i) = self.find_held(party.peer(), id) else {
                    return;
                };
                let r = &mut self.reqs[i];
                r.work = Work::Ended;
                if matches!(output, Output::Dropped(_)) {
                    r.responder_done = true;
                }
                // (A request of a prompt turn its receiver cancelled may stop with the turn.)
                if !r.cancel_received && !r.internal && !r.turn_cancelled && !self.disconnected {
                    self.violate(InvariantId::ExactIdMatch, Some((party.peer(), id)));
                }
            }
            Output::Crashed => {
                self.crashed[party.index()] = true;
                // A crash on a malformed cancel breaks what the texts say of malformed
                // cancels (where they say anything), not what they say of a cancel for an
                // unknown or finished request.
                match self.handling_cancel[party.index()] {
                    Some(true) => self.violate(InvariantId::MalformedCancelIgnored, None),
                    Some(false) => self.violate(InvariantId::UnknownCancelHarmless, None),
                    None => {}
                }
            }
            _ => {}
        }
    }

    fn on_send(&mut self, from: Party, msg: Message) {
        let rules = self.rules();
        match msg {
            Message::Request { id, method } => {
                if let Method::Initialize { cancel_support } = method {
                    self.declared_support[from.index()] = Some(cancel_support);
                } else if !self.initialize_answered(from) {
                    self.violate(InvariantId::NoRequestBeforeInitialize, Some((from, id)));
                }
                if let Some(prev) = self.find(from, id) {
                    let p = self.reqs[prev];
                    let acked = rules.cancel_shape == CancelShape::AcknowledgedRequest;
                    let live = p.may_still_arrive(acked, self.fifo);
                    if rules.id_reuse == IdReuse::Never || live {
                        self.violate(InvariantId::NoLiveIdReuse, Some((from, id)));
                    }
                    if live {
                        self.reqs[prev].ambiguous = true;
                    }
                }
                self.reqs.push(Req {
                    requester: from,
                    id,
                    initialize: method.is_initialize(),
                    work: Work::Unseen,
                    cancel_sent: false,
                    cancel_received: false,
                    cancel_received_open: false,
                    session_cancel: false,
                    responses_sent: 0,
                    response_copies: 0,
                    responses_received: 0,
                    responses_lost: 0,
                    responder_done: false,
                    delivered: 0,
                    request_lost: false,
                    ack_cancelled: None,
                    result_cancelled: None,
                    activity_sent: 0,
                    activity_settled: 0,
                    cancels_sent: 0,
                    cancels_received: 0,
                    cancels_lost: 0,
                    acks_sent: 0,
                    acks_settled: 0,
                    ambiguous: false,
                    internal: false,
                    parent: self.nesting[from.index()]
                        .take()
                        .and_then(|p| self.find_held(from.peer(), p))
                        .and_then(|p| u8::try_from(p).ok()),
                    cascade_owed: false,
                    resolved_cancelled: false,
                    turn_cancelled: false,
                });
                // Sent for a request whose prompt turn its sender cancelled: that request ends
                // cancelled, and this one with it.
                let last = self.reqs.len() - 1;
                if let Some(p) = self.reqs[last].parent
                    && self.reqs[usize::from(p)].turn_cancelled
                {
                    self.reqs[last].cascade_owed = true;
                }
                if self
                    .reqs
                    .iter()
                    .rev()
                    .skip(1)
                    .any(|r| r.requester == from && r.id == id && r.ambiguous)
                {
                    if let Some(new) = self.reqs.last_mut() {
                        new.ambiguous = true;
                    }
                }
            }
            Message::Response { id, reply } => self.on_response_sent(from, id, reply),
            Message::Cancel { id, .. } => {
                if rules.cancel_senders == CancelSenders::ClientOnly && from == Party::Server {
                    self.violate(InvariantId::CancelFromAllowedParty, Some((from, id)));
                }
                let Some(i) = self.find(from, id) else {
                    // It names no request its sender ever sent in this direction (a cancel
                    // passed on under the id of the request it came from).
                    self.violate(InvariantId::ExactIdMatch, Some((from, id)));
                    return;
                };
                let initialize = self.reqs[i].initialize && !rules.initialize_cancellable;
                if initialize {
                    self.violate(InvariantId::InitializeNotCancelled, Some((from, id)));
                } else if rules.negotiated
                    && self.declared_support[from.peer().index()] != Some(true)
                {
                    // (A cancel of `initialize` is reported once, under the clause that names
                    // it, though no capability was declared yet either.)
                    self.violate(InvariantId::CapabilityGated, Some((from, id)));
                }
                if self.reqs[i].responses_received > 0 {
                    // Its sender had read the answer: it knew the request was over.
                    self.violate(InvariantId::CancelOnlyInProgress, Some((from, id)));
                }
                if self.commanded[from.index()] != Some(id) && !self.reqs[i].cascade_owed {
                    // Neither its application nor its timer asked, and no cancel of the request
                    // it serves did.
                    self.violate(InvariantId::SiblingsUntouched, Some((from, id)));
                }
                let r = &mut self.reqs[i];
                r.cancel_sent = true;
                r.cancels_sent = r.cancels_sent.saturating_add(1);
                if self.turn_cancelled_by(from, &self.reqs[i]) {
                    // Each request of the turn its sender holds unanswered.
                    for k in 0..self.reqs.len() {
                        let c = self.reqs[k];
                        let held = c.work != Work::Unseen && c.responses_sent == 0;
                        if c.parent == u8::try_from(i).ok() && held && !c.responder_done {
                            self.end_turn_request(from, k);
                        }
                    }
                }
            }
            Message::CancelAck { id, ack } => {
                let n = &mut self.cancels_unanswered[from.index()];
                *n = n.saturating_sub(1);
                if self.ack_off_table(from, id, ack) {
                    self.violate(InvariantId::CancelResultPerTable, Some((from.peer(), id)));
                }
                let Some(i) = self.find_held(from.peer(), id) else {
                    return;
                };
                let r = &mut self.reqs[i];
                r.acks_sent = r.acks_sent.saturating_add(1);
                if matches!(ack.reason, AckReason::NotFound | AckReason::NotInitialized) {
                    return;
                }
                let r = self.reqs[i];
                if r.ack_cancelled.is_some_and(|prev| prev != ack.cancelled) {
                    self.violate(InvariantId::CancelIdempotent, Some((from.peer(), id)));
                }
                if r.result_cancelled.is_some_and(|c| c != ack.cancelled) {
                    self.violate(InvariantId::AckAgreesWithOutcome, Some((from.peer(), id)));
                }
                self.reqs[i].ack_cancelled.get_or_insert(ack.cancelled);
            }
            Message::Activity { id } => {
                let Some(i) = self.find_held(from.peer(), id) else {
                    return;
                };
                let r = &mut self.reqs[i];
                r.activity_sent = r.activity_sent.saturating_add(1);
                let r = *r;
                if r.responses_sent > 0 {
                    self.violate(InvariantId::NoActivityAfterAnswer, Some((from.peer(), id)));
                } else if self.stopped_by_cancel(&r) {
                    self.violate(InvariantId::NoActivityAfterCancel, Some((from.peer(), id)));
                }
            }
            Message::MalformedCancel => {}
        }
    }

    /// Whether `app`'s answer `ack` to a cancel of `id` says other than the text's table
    /// (ABP): NOT_INITIALIZED before the app has read `initialize`, "Operation not found" for
    /// a call it never read, "Operation already completed" where it answered the call in full
    /// and says `cancelled: false`, and neither "not found" nor NOT_INITIALIZED for a call it
    /// holds. A known call's `cancelled` flag is judged by ack-agrees-with-outcome and
    /// cancel-idempotent, not here.
    fn ack_off_table(&self, app: Party, id: RequestId, ack: Ack) -> bool {
        let requester = app.peer();
        let session = self.rules().initialize_method.is_none()
            || self
                .reqs
                .iter()
                .any(|r| r.requester == requester && r.initialize && r.work != Work::Unseen);
        let held = self
            .find_held(requester, id)
            .map(|i| self.reqs[i])
            .filter(|r| r.work != Work::Unseen);
        let tabled = match held {
            _ if !session => return ack != Ack::NOT_INITIALIZED,
            None => {
                return ack
                    != Ack {
                        cancelled: false,
                        reason: AckReason::NotFound,
                    };
            }
            Some(r) if r.result_cancelled == Some(false) => AckReason::AlreadyCompleted,
            Some(_) => AckReason::None,
        };
        match ack.reason {
            AckReason::NotFound | AckReason::NotInitialized => true,
            AckReason::None => tabled == AckReason::AlreadyCompleted && !ack.cancelled,
            AckReason::AlreadyCompleted => false,
        }
    }

    /// Whether `initialize` is answered as far as `party` can know: the client has received
    /// the answer, the server has sent it.
    fn initialize_answered(&self, party: Party) -> bool {
        self.reqs.iter().any(|r| {
            r.requester == Party::Client
                && r.initialize
                && match party {
                    Party::Client => r.responses_received > 0,
                    Party::Server => r.responses_sent > 0,
                }
        })
    }

    /// Whether `party`, giving one of its requests up for `cause`, owes the receiver a cancel
    /// (see `GiveUpSignal`): never for a parent's cascade, which has rules of its own, nor
    /// where the party may not cancel at all.
    fn owes_cancel(&self, party: Party, cause: CancelCause) -> bool {
        let rules = self.rules();
        let may_cancel = rules.cancel_senders == CancelSenders::Either || party == Party::Client;
        may_cancel
            && match rules.give_up_signal {
                GiveUpSignal::Unstated => false,
                GiveUpSignal::OnTimeout => cause == CancelCause::Timeout,
                GiveUpSignal::Always => cause != CancelCause::Parent,
            }
    }

    /// Whether the receiver of `r` owes it silence because of a cancel: it read a cancel for
    /// it, while it still held it open where the dialect lets it ignore a cancel for a finished
    /// request (MCP 2025-11-25), or at all where nothing may follow a cancel (MCP 2026-07-28).
    fn stopped_by_cancel(&self, r: &Req) -> bool {
        match self.rules().receiver_duty {
            ReceiverDuty::MustNotAnswer => r.cancel_received,
            ReceiverDuty::ShouldNotAnswer => r.cancel_received_open,
            ReceiverDuty::MustAnswer => false,
        }
    }

    fn on_response_sent(&mut self, from: Party, id: RequestId, reply: Reply) {
        let rules = self.rules();
        if let Reply::Initialized { cancel_support } = reply {
            self.declared_support[from.index()] = Some(cancel_support);
        }
        let Some(i) = self.find_held(from.peer(), id) else {
            let inv = if id == RequestId::Null {
                InvariantId::NotificationUnanswered
            } else {
                InvariantId::ExactIdMatch
            };
            self.violate(inv, Some((from.peer(), id)));
            return;
        };
        if self.children(i).any(|c| c.delivered == 0) {
            self.violate(InvariantId::ChildrenBeforeParent, Some((from.peer(), id)));
        }
        let r = &mut self.reqs[i];
        r.responses_sent = r.responses_sent.saturating_add(1);
        r.responder_done = true;
        let r = *r;
        if r.responses_sent > 1 {
            self.violate(InvariantId::SingleResolution, Some((from.peer(), id)));
        }
        if r.cancel_received {
            if rules.receiver_duty != ReceiverDuty::MustAnswer && self.stopped_by_cancel(&r) {
                self.violate(InvariantId::NoAnswerAfterCancel, Some((from.peer(), id)));
            }
            if let Reply::Error(code) = reply
                && Some(code) != rules.cancel_error_code
            {
                self.violate(InvariantId::CancelErrorCode, Some((from.peer(), id)));
            }
            if rules.honouring == Honouring::Must && r.cancel_received_open && reply == Reply::Full
            {
                self.violate(InvariantId::CancelHonoured, Some((from.peer(), id)));
            }
            // A prompt turn cancelled by its session's cancel ends with the cancelled stop
            // reason, a result (ACP's prompt turn).
            if rules.cancelled_result
                && r.session_cancel
                && r.cancel_received_open
                && !reply.is_cancelled()
            {
                self.violate(
                    InvariantId::PromptCancelledStopReason,
                    Some((from.peer(), id)),
                );
            }
        } else if r.internal {
            if let Reply::Error(code) = reply
                && Some(code) != rules.cancel_error_code
            {
                self.violate(InvariantId::InternalCancelCode, Some((from.peer(), id)));
            }
        } else if reply.is_cancelled() && !r.turn_cancelled && !self.disconnected {
            // Cancelled, though no cancel named it and its receiver did not give it up.
            self.violate(InvariantId::ExactIdMatch, Some((from.peer(), id)));
        }
        if r.turn_cancelled && matches!(reply, Reply::Full | Reply::Partial) {
            // A result other than the outcome `cancelled` for a turn its sender cancelled.
            self.violate(
                InvariantId::PermissionCancelledAfterCancel,
                Some((from.peer(), id)),
            );
        }
        if rules.cancel_shape == CancelShape::AcknowledgedRequest && r.result_cancelled.is_none() {
            let cancelled = reply.is_cancelled();
            self.reqs[i].result_cancelled = Some(cancelled);
            if r.ack_cancelled.is_some_and(|a| a != cancelled) {
                self.violate(InvariantId::AckAgreesWithOutcome, Some((from.peer(), id)));
            }
        }
    }

    /// What was lost of an unresolved descendant of record `i` whose loss excuses it, if any.
    fn descendant_loss(&self, i: usize) -> Option<Lost> {
        let mut stack: SmallVec<[usize; 8]> = SmallVec::new();
        stack.push(i);
        while let Some(k) = stack.pop() {
            let Ok(k8) = u8::try_from(k) else { continue };
            for (c, r) in self.reqs.iter().enumerate() {
                if r.parent != Some(k8) || r.delivered > 0 {
                    continue;
                }
                if r.request_lost {
                    return Some(Lost::Request);
                }
                if r.responses_lost > 0 {
                    return Some(Lost::Response);
                }
                stack.push(c);
            }
        }
        None
    }

    /// The record at the root of record `i`'s request tree (`i` itself for a root).
    fn root_of(&self, mut i: usize) -> usize {
        // (Parent links point to earlier records, unless packed in canonical order: the
        // bound keeps a malformed chain from looping.)
        for _ in 0..self.reqs.len() {
            match self.reqs[i].parent {
                Some(p) if usize::from(p) < self.reqs.len() => i = usize::from(p),
                _ => break,
            }
        }
        i
    }

    /// Whether record `i`'s request tree holds a request whose id was reused while it was live
    /// (an `ambiguous` one): which of the two a message was about cannot be told.
    fn tangled(&self, i: usize) -> bool {
        let root = self.root_of(i);
        (0..self.reqs.len()).any(|k| self.reqs[k].ambiguous && self.root_of(k) == root)
    }

    /// The records of the requests sent on behalf of record `i` (its children).
    fn children(&self, i: usize) -> impl Iterator<Item = &Req> {
        let i = u8::try_from(i).ok();
        self.reqs
            .iter()
            .filter(move |r| i.is_some() && r.parent == i)
    }

    /// Whether `client` has cancelled prompt turn `p` (ACP `session/cancel`), a request of its
    /// own, and not yet seen it end.
    fn turn_cancelled_by(&self, client: Party, p: &Req) -> bool {
        self.rules().session_cancel_method.is_some()
            && client == Party::Client
            && p.requester == client
            && !p.initialize
            && p.cancel_sent
            && p.delivered == 0
    }

    /// `client` holds record `k` for a prompt turn it cancelled: it owes it the outcome
    /// `cancelled`, and the requests it sent on its behalf the cascade.
    fn end_turn_request(&mut self, client: Party, k: usize) {
        self.reqs[k].turn_cancelled = true;
        self.owe_cascade(client, k);
    }

    /// Record `i`'s handler (`handler`) took a cancel for it, or gave it up: each request it
    /// sent on its behalf and still unresolved is owed the cascade.
    fn owe_cascade(&mut self, handler: Party, i: usize) {
        let Ok(i) = u8::try_from(i) else { return };
        for r in &mut self.reqs {
            if r.parent == Some(i) && r.requester == handler && r.delivered == 0 {
                r.cascade_owed = true;
            }
        }
    }

    /// The record a message on the wire is about: what a requester sends (its request, its
    /// cancel) is about its newest instance of the id; what a responder sends (an answer, an
    /// acknowledgement, progress) about the instance it holds.
    fn record_of(&self, from: Party, msg: Message) -> Option<usize> {
        let id = msg.request_id()?;
        match msg {
            Message::Request { .. } | Message::Cancel { .. } | Message::MalformedCancel => {
                self.find(from, id)
            }
            Message::Response { .. } | Message::CancelAck { .. } | Message::Activity { .. } => {
                self.find_held(from.peer(), id)
            }
        }
    }

    fn on_lost(&mut self, from: Party, msg: Message) {
        let i = match msg {
            Message::Request { id, .. } => self.find_arriving(from, id),
            _ => self.record_of(from, msg),
        };
        let Some(i) = i else {
            return;
        };
        let r = &mut self.reqs[i];
        // Only the loss of the request or of its answer can excuse it from being resolved; a
        // lost cancel, acknowledgement or progress note just never arrives.
        match msg {
            Message::Activity { .. } => r.activity_settled = r.activity_settled.saturating_add(1),
            Message::Cancel { .. } => r.cancels_lost = r.cancels_lost.saturating_add(1),
            Message::CancelAck { .. } => r.acks_settled = r.acks_settled.saturating_add(1),
            Message::Response { .. } => r.responses_lost = r.responses_lost.saturating_add(1),
            Message::Request { .. } => r.request_lost = true,
            Message::MalformedCancel => {}
        }
    }

    fn on_duplicated(&mut self, from: Party, msg: Message) {
        // A second copy on the wire: one more thing that may still arrive.
        let Some(i) = self.record_of(from, msg) else {
            return;
        };
        let r = &mut self.reqs[i];
        match msg {
            Message::Response { .. } => r.response_copies = r.response_copies.saturating_add(1),
            Message::Activity { .. } => r.activity_sent = r.activity_sent.saturating_add(1),
            Message::Cancel { .. } => r.cancels_sent = r.cancels_sent.saturating_add(1),
            Message::CancelAck { .. } => r.acks_sent = r.acks_sent.saturating_add(1),
            Message::Request { .. } | Message::MalformedCancel => {}
        }
    }

    fn on_end(&mut self, quiescent: bool, open_incoming: [u32; 2]) {
        self.verdict.quiescent = quiescent;
        if !quiescent || self.disconnected {
            return;
        }
        let mut hung = None;
        // A handler answers after its children: a request whose unresolved descendant was
        // excused by a loss waits on that loss too.
        let mut waits_on_loss = false;
        for (i, r) in self.reqs.iter().enumerate() {
            if r.delivered > 0 || self.crashed[r.requester.index()] {
                continue;
            }
            let lost = if r.request_lost {
                Some(Lost::Request)
            } else if r.responses_lost > 0 {
                Some(Lost::Response)
            } else if let Some(lost) = self.descendant_loss(i) {
                waits_on_loss = true;
                Some(lost)
            } else {
                None
            };
            match lost {
                Some(lost) => self.verdict.excused.push(Excuse {
                    requester: r.requester,
                    id: r.id,
                    lost,
                }),
                None => {
                    hung.get_or_insert((r.requester, r.id));
                }
            }
        }
        if let Some(about) = hung {
            self.violate(InvariantId::EventualResolution, Some(about));
        }
        let uncascaded = (0..self.reqs.len()).find(|&i| {
            let r = &self.reqs[i];
            let excused =
                r.request_lost || r.responses_lost > 0 || self.descendant_loss(i).is_some();
            r.cascade_owed
                && !self.crashed[r.requester.index()]
                && (!(r.cancel_sent || r.resolved_cancelled) || (r.delivered == 0 && !excused))
        });
        if let Some(i) = uncascaded {
            let r = self.reqs[i];
            self.violate(InvariantId::CascadeComplete, Some((r.requester, r.id)));
        }
        for party in [Party::Client, Party::Server] {
            if self.cancels_unanswered[party.index()] > 0 && !self.crashed[party.index()] {
                // A cancel it read got no answer.
                self.violate(InvariantId::CancelResultPerTable, None);
            }
        }
        // Two requests with one id in a party's table are not the party's doing.
        // A handler still holding a request whose child's answer was lost holds it for that.
        let waits_on_loss = waits_on_loss
            || (0..self.reqs.len())
                .any(|i| !self.reqs[i].responder_done && self.descendant_loss(i).is_some());
        let confused = self.reqs.iter().any(|r| r.ambiguous) || waits_on_loss;
        for party in [Party::Client, Party::Server] {
            if open_incoming[party.index()] > 0 && !self.crashed[party.index()] && !confused {
                self.violate(InvariantId::NoLeakAtQuiescence, None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checker of `d` that has read `lines` (vector notation).
    fn read(d: Dialect, fifo: bool, lines: &[&str]) -> Checker {
        let mut c = Checker::new(d, 4);
        c.set_fifo(fifo);
        for l in lines {
            let ev = crate::notation::parse(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            c.observe(&ev);
        }
        c
    }

    /// A reused id names two records: a loss or a copy of what the requester sends counts
    /// against its newest request, one of what the responder sends against the request the
    /// responder holds (the older one while the new request is still on its way).
    #[test]
    fn losses_and_copies_count_against_the_record_they_are_about() {
        let lines = [
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "server sends response 1 full",
            "server sends activity 1",
            "client command send",
            "client sends request 1 work",
            "network loses server response 1 full",
            "network duplicates server activity 1",
            "network duplicates client cancel 1",
            "network loses client cancel 1",
        ];
        let c = read(Dialect::Acp, false, &lines);
        let (old, new) = (c.reqs[0], c.reqs[1]);
        assert_eq!((old.responses_lost, new.responses_lost), (1, 0));
        assert_eq!((old.activity_sent, new.activity_sent), (2, 0));
        assert_eq!((old.cancels_sent, new.cancels_sent), (0, 1));
        assert_eq!((old.cancels_lost, new.cancels_lost), (0, 1));
        // Once the new request has arrived, the responder holds it.
        let mut later = lines[..8].to_vec();
        later.extend([
            "server receives request 1 work",
            "network loses server response 1 full",
        ]);
        let c = read(Dialect::Acp, false, &later);
        assert_eq!((c.reqs[0].responses_lost, c.reqs[1].responses_lost), (0, 1));
    }

    /// The session's opening, then the client's request 1, on whose behalf the server sends
    /// its request 0, and the client's request 2, sent before (`root_first`) or after the
    /// server's: the same records, in two orders.
    fn interleaved(root_first: bool) -> Vec<&'static str> {
        let mut lines = crate::notation::OPENING.to_vec();
        lines.extend([
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
        ]);
        let root = ["client command send", "client sends request 2 work"];
        let nested = [
            "server command send-nested 1",
            "server nests 0 under 1",
            "server sends request 0 server-work",
        ];
        if root_first {
            lines.extend(root.iter().chain(&nested));
        } else {
            lines.extend(nested.iter().chain(&root));
        }
        lines
    }

    /// A record named by requester and id.
    type Named = (Party, RequestId);

    /// Each record's requester and id, with its parent's.
    fn links(c: &Checker) -> Vec<(Named, Option<Named>)> {
        let mut v: Vec<_> = c
            .reqs
            .iter()
            .map(|r| {
                let parent = r.parent.map(|p| {
                    let p = &c.reqs[usize::from(p)];
                    (p.requester, p.id)
                });
                ((r.requester, r.id), parent)
            })
            .collect();
        v.sort();
        v
    }

    /// Relabelling sorts the records; each parent link still names the same request (the
    /// server's request 0, recorded before the client's request 2, moves behind it).
    #[test]
    fn relabelling_keeps_every_parent_link() {
        let before = read(Dialect::Mcp20251125, true, &interleaved(false));
        assert_eq!(before.reqs[2].parent, Some(1));
        let mut after = before.clone();
        after.relabel(&|id| match id {
            RequestId::Int(1) => RequestId::Int(2),
            RequestId::Int(2) => RequestId::Int(1),
            other => other,
        });
        let renamed = |x: Named| match x.1 {
            RequestId::Int(1) => (x.0, RequestId::Int(2)),
            RequestId::Int(2) => (x.0, RequestId::Int(1)),
            _ => x,
        };
        let mut want: Vec<_> = links(&before)
            .into_iter()
            .map(|(r, p)| (renamed(r), p.map(renamed)))
            .collect();
        want.sort();
        assert_eq!(links(&after), want);
        let ids: Vec<_> = after.reqs.iter().map(|r| (r.requester, r.id)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        // The server's request is under the client's (renamed) request 2.
        let server = after.reqs.iter().find(|r| r.requester == Party::Server);
        let parent = server
            .and_then(|r| r.parent)
            .map(|p| after.reqs[usize::from(p)].id);
        assert_eq!(parent, Some(RequestId::Int(2)));
    }

    /// With canonical order, two checkers that differ only in how the parties' sends were
    /// interleaved pack alike (and do not without it), and what each unpacks to judges a
    /// continuation as the original does.
    #[test]
    fn canonical_order_packs_interleavings_alike() {
        let rest = [
            "client command cancel 1",
            "client sends cancel 1",
            "client delivers 1 cancelled user",
            "server receives cancel 1",
            "server aborts work 1",
            "server drops 1",
            "client receives request 0 server-work",
            "client starts work 0",
            "end quiescent open 1 0",
        ];
        let pack = |c: &Checker| {
            let mut out = Vec::new();
            c.pack_state(&mut out);
            out
        };
        let (mut a, mut b) = (
            read(Dialect::Mcp20251125, true, &interleaved(true)),
            read(Dialect::Mcp20251125, true, &interleaved(false)),
        );
        assert_ne!(pack(&a), pack(&b));
        a.set_canonical_order(true);
        b.set_canonical_order(true);
        assert_eq!(pack(&a), pack(&b));
        let verdict = |mut c: Checker| {
            for l in rest {
                c.observe(&crate::notation::parse(l).expect("parses"));
            }
            c.take_verdict()
                .violations
                .iter()
                .map(|v| v.invariant)
                .collect::<Vec<_>>()
        };
        let want = verdict(b.clone());
        assert!(!want.is_empty(), "the continuation breaks something");
        let mut unpacked = Checker::new(Dialect::Mcp20251125, 4);
        unpacked.set_fifo(true);
        unpacked.set_canonical_order(true);
        unpacked
            .unpack_state(&mut Reader::new(&pack(&b)))
            .expect("unpacks");
        assert_eq!(links(&unpacked), links(&b));
        assert_eq!(verdict(unpacked), want);
        assert_eq!(verdict(a), want);
    }

    fn v(invariant: InvariantId, strength: Strength) -> Violation {
        Violation {
            invariant,
            strength,
            event: 0,
            id: None,
        }
    }

    /// Only a MUST fails; SHOULDs alone warn; nothing broken is a pass only when exercised.
    #[test]
    fn the_strongest_finding_decides_the_status() {
        let must = v(InvariantId::SingleResolution, Strength::Must);
        let should = v(InvariantId::LateAnswerIgnored, Strength::Should);
        assert_eq!(Status::of(&[should, must], true), Status::Fail);
        assert_eq!(Status::of(&[should], true), Status::Warn);
        assert_eq!(Status::of(&[should], false), Status::Warn);
        assert_eq!(Status::of(&[], false), Status::Vacuous);
        assert_eq!(Status::of(&[], true), Status::Pass);
        assert_eq!(Status::Fail.exit_code(), 1);
        for s in [Status::Warn, Status::Vacuous, Status::Pass] {
            assert_eq!(s.exit_code(), 0, "{s:?}");
        }
    }

    /// Packing a checker's state and reading it back gives a checker that judges alike, every
    /// record field included.
    #[test]
    fn a_record_round_trips_through_its_packed_form() {
        let r = Req {
            requester: Party::Server,
            id: RequestId::Int(7),
            initialize: false,
            work: Work::Running,
            cancel_sent: true,
            cancel_received: true,
            cancel_received_open: true,
            session_cancel: true,
            responses_sent: 1,
            response_copies: 2,
            responses_received: 3,
            responses_lost: 4,
            responder_done: true,
            delivered: 5,
            request_lost: true,
            ack_cancelled: Some(false),
            result_cancelled: Some(true),
            activity_sent: 6,
            activity_settled: 7,
            cancels_sent: 8,
            cancels_received: 9,
            cancels_lost: 10,
            acks_sent: 11,
            acks_settled: 12,
            ambiguous: true,
            internal: true,
            parent: Some(3),
            cascade_owed: true,
            resolved_cancelled: true,
            turn_cancelled: true,
        };
        let mut bytes = Vec::new();
        r.pack(&mut bytes);
        let back = Req::unpack(&mut Reader::new(&bytes)).expect("unpacks");
        assert_eq!(back, r);
    }
}
