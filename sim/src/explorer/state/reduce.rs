//! Which of a plain state's enabled steps the partial-order reduction expands (see
//! [`partial_order`](crate::explorer::partial_order) for the sets and why they are sound): the
//! numbering of requests the sets are made of, each step's footprint on a FIFO link, and on a
//! reordering link the request (with request trees, the root's subtree) whose steps are taken.

use cancelcheck_model::io::Timer;
use cancelcheck_model::{Message, Party, RequestId};
use smallvec::SmallVec;

use super::{Explorer, Step};
use crate::explorer::bounds;
use crate::explorer::fifo::{Footprint, Kind, MsgClass, fifo_ample};
use crate::explorer::steps;
use crate::scenario::Scenario;

/// The request whose steps form the ample set, given the request of each enabled step (`None`
/// for a step of no request): if every step belongs to a request and steps of two or more are
/// enabled, the one with the fewest, then the earliest.
pub(in crate::explorer) fn ample(requests: impl IntoIterator<Item = Option<u32>>) -> Option<u32> {
    let mut counts: SmallVec<[(u32, u32); 8]> = SmallVec::new();
    for r in requests {
        let r = r?;
        match counts.iter_mut().find(|(k, _)| *k == r) {
            Some(c) => c.1 += 1,
            None => counts.push((r, 1)),
        }
    }
    if counts.len() < 2 {
        return None;
    }
    counts.iter().min_by_key(|(k, n)| (*n, *k)).map(|(k, _)| *k)
}

/// The party that sent the request `m` is about: the sender of a request or a cancel, the
/// recipient of what a responder sends (an answer, progress, an acknowledgement).
fn requester_of(to: Party, m: &Message) -> Party {
    match m {
        Message::Request { .. } | Message::Cancel { .. } | Message::MalformedCancel => to.peer(),
        Message::Response { .. } | Message::CancelAck { .. } | Message::Activity { .. } => to,
    }
}

impl Explorer {
    /// The steps to expand from this state, each with its index among all enabled steps (what
    /// a schedule records); `all` is scratch space. With `reduce`, only an ample set is kept
    /// where one helps: on a reordering link, when the enabled steps belong to several
    /// requests, those of one request (the one with the fewest, then the earliest; with
    /// request trees, those of one root's subtree, where they are *tame*); on a FIFO link, the
    /// delivery of a queue's head or every step of one party, as
    /// [`partial_order`](crate::explorer::partial_order) describes, with when that is sound.
    pub fn to_expand(
        &self,
        scenario: &Scenario,
        reduce: bool,
        all: &mut Vec<Step>,
        out: &mut Vec<(u32, Step)>,
    ) {
        self.enabled(scenario, all);
        out.clear();
        if reduce && bounds(scenario).fifo {
            let prints: SmallVec<[Footprint; 16]> =
                all.iter().map(|&step| self.footprint(step)).collect();
            let queues = [
                steps::queued(self, Party::Client),
                steps::queued(self, Party::Server),
            ];
            let chosen = fifo_ample(&prints, [&queues[0], &queues[1]]);
            for (i, (&step, f)) in all.iter().zip(&prints).enumerate() {
                if chosen.is_none_or(|a| a.keeps(f)) {
                    out.push((i as u32, step));
                }
            }
            return;
        }
        let chosen = match (reduce, self.nested) {
            (false, _) => None,
            (true, false) => self.ample_request(all),
            (true, true) => self.ample_subtree(all),
        };
        let group = |step| match self.nested {
            false => self.step_request(step),
            true => self.step_subtree(step),
        };
        for (i, &step) in all.iter().enumerate() {
            if chosen.is_none() || group(step) == chosen {
                out.push((i as u32, step));
            }
        }
    }

    /// The number of the request `requester` sent with `id`, 0 for `initialize` and any id
    /// naming no request the numbering knows. Without trees: `k + 1` for the client's `k`-th
    /// request (whoever sent the id: the server sends no requests where the reduction
    /// applies). With trees: one more than its place among the requests in trees
    /// ([`Explorer::tree_place`]).
    pub(super) fn request_number(&self, requester: Party, id: RequestId) -> u32 {
        if !self.nested {
            let sent = usize::from(self.sent);
            return self.ids[..sent]
                .iter()
                .position(|x| *x == Some(id))
                .map_or(0, |k| k as u32 + 1);
        }
        self.tree_record(requester, id)
            .map_or(0, |i| self.tree_place(i) as u32 + 1)
    }

    /// The request a message in the queue towards `to` is about, numbered as
    /// [`Explorer::step_request`] numbers them.
    pub(super) fn message_request(&self, to: Party, m: &Message) -> Option<u32> {
        Some(self.request_number(requester_of(to, m), m.request_id()?))
    }

    /// What a message in the queue towards `to` is to the reduction on a FIFO link: with
    /// trees, a response to a nested request is a [`MsgClass::NestedAnswer`].
    pub(super) fn class_of(&self, to: Party, m: &Message) -> MsgClass {
        match *m {
            Message::Response { id, .. }
                if self.nested
                    && self
                        .tree_record(to, id)
                        .is_some_and(|i| self.world.checker().parentage().depth(i) > 1) =>
            {
                MsgClass::NestedAnswer
            }
            _ => MsgClass::of(m),
        }
    }

    /// Whether `step` delivers a quiet message (one whose receipt never makes its receiver
    /// send): what the debug assertion in [`Explorer::apply`] checks.
    pub(super) fn delivers_quiet(&self, step: Step) -> bool {
        let Step::Deliver { to, index } = step else {
            return false;
        };
        self.net[to.index()]
            .get(usize::from(index))
            .is_some_and(|m| self.class_of(to, m).quiet())
    }

    /// What `step` (one of `enabled`, on a FIFO link) touches: as [`steps::footprint`] tells
    /// for a listed step; a nested request is sent on a party's own step, like any other it
    /// may make; the server's script is a step the reduction does not reason about.
    fn footprint(&self, step: Step) -> Footprint {
        match (self.listed(step), step) {
            (Some(c), _) => steps::footprint(self, c),
            (None, Step::Spawn(p, _)) => Footprint {
                request: self.step_request(step),
                side: p,
                kind: Kind::Local,
            },
            (None, _) => Footprint {
                request: self.step_request(step),
                side: Party::Server,
                kind: Kind::Other,
            },
        }
    }

    /// The request a step belongs to (see [`Explorer::request_number`]): as
    /// [`steps::request`] tells for a listed step; for a nested request's sending, the request
    /// it is sent on behalf of. `None` for a step of no request: the server's script is never
    /// reduced (see `partial_order`).
    fn step_request(&self, step: Step) -> Option<u32> {
        match (self.listed(step), step) {
            (Some(c), _) => steps::request(self, c),
            (None, Step::Spawn(p, id)) => Some(self.request_number(p.peer(), id)),
            (None, _) => None,
        }
    }

    /// The request whose steps form the ample set, if reducing helps (steps of two or more
    /// requests are enabled) and every step belongs to a request.
    fn ample_request(&self, steps: &[Step]) -> Option<u32> {
        ample(steps.iter().map(|&step| self.step_request(step)))
    }

    /// With trees, the subtree a step belongs to: `k + 1` for the client's `k`-th request and
    /// every request sent on behalf of one in its tree (the client's next request, for
    /// [`Step::Send`]), 0 for `initialize`'s steps, `None` for a step of no request.
    fn step_subtree(&self, step: Step) -> Option<u32> {
        match step {
            Step::Send => Some(u32::from(self.sent) + 1),
            Step::Fire(_, Timer::InitTimeout) => Some(0),
            _ => match self.step_request(step)? {
                0 => Some(0),
                r => Some(u32::from(self.root_slot_at(r as usize - 1)) + 1),
            },
        }
    }

    /// With trees on a reordering link, the subtree whose steps form the ample set: where every
    /// enabled step belongs to a subtree and those of two or more are enabled, the one with the
    /// fewest steps (then the earliest) among the roots' subtrees whose every step is
    /// [tame](Explorer::tame) and none of whose requests waits for a worker.
    fn ample_subtree(&self, steps: &[Step]) -> Option<u32> {
        // (subtree, steps, all tame)
        let mut counts: SmallVec<[(u32, u32, bool); 8]> = SmallVec::new();
        for &step in steps {
            let t = self.step_subtree(step)?;
            let tame = self.tame(step);
            match counts.iter_mut().find(|c| c.0 == t) {
                Some(c) => {
                    c.1 += 1;
                    c.2 &= tame;
                }
                None => counts.push((t, 1, tame)),
            }
        }
        if counts.len() < 2 {
            return None;
        }
        counts
            .iter()
            .filter(|c| c.0 > 0 && c.2 && !self.subtree_waits(c.0))
            .min_by_key(|c| (c.1, c.0))
            .map(|c| c.0)
    }

    /// Whether `step` touches nothing the subtrees share: it neither draws an id from a
    /// party's counter (sending a request) nor touches a party's workers (a request or a cancel
    /// delivered, work ending). What is left: an answer, progress or an acknowledgement
    /// delivered, any message lost, the client's application cancelling, a timeout, running
    /// work reporting progress.
    fn tame(&self, step: Step) -> bool {
        match step {
            Step::Deliver { to, index } => self.net[to.index()]
                .get(usize::from(index))
                .is_some_and(|m| requester_of(to, m) == to),
            Step::Lose { .. } | Step::Cancel(_) | Step::Fire(..) | Step::Progress(..) => true,
            _ => false,
        }
    }

    /// Whether a request of subtree `t` (numbered as [`Explorer::step_subtree`] numbers them)
    /// waits for a worker at its responder.
    fn subtree_waits(&self, t: u32) -> bool {
        let p = self.world.checker().parentage();
        (0..p.len()).any(|i| {
            !p.is_initialize(i)
                && u32::from(self.root_slot(i)) + 1 == t
                && self.world.endpoint(p.requester(i).peer()).received(p.id(i))
                    == Some(cancelcheck_model::request::Incoming::Queued)
        })
    }
}
