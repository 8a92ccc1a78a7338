//! Request trees as a plain state reads them: from the checker's records (the one model of
//! parentage, [`Checker::parentage`](cancelcheck_properties::Checker::parentage)), numbered
//! for the partial-order reduction; and the one thing the checker cannot know, what the
//! script spent of each request's budget of nested requests. (The checker keeps every record
//! and its parent link for the whole run, and forgets none.)

use cancelcheck_model::pack::{Pack, Relabel};
use cancelcheck_model::{Party, RequestId};

use super::{Explorer, Inert};
use smallvec::SmallVec;

/// The spawn steps ([`super::Step::Spawn`]) taken on behalf of one request so far, against its
/// budget (`nesting.fanout`). Kept here, not counted from the checker's records: a spawn step
/// its handler refuses (the request no longer running, unless the behaviour spawns after a
/// cancel) spends the budget and sends nothing, so the checker never hears of it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Pack, Relabel)]
pub(super) struct Spawned {
    requester: Party,
    id: RequestId,
    /// Which of the requests `requester` sent with `id` (see
    /// [`Parentage::generation`](cancelcheck_properties::checker::Parentage::generation)).
    generation: u8,
    count: u8,
}

/// No spawn step taken (as in every search without nesting).
impl Inert for SmallVec<[Spawned; 4]> {
    fn inert(&self) -> bool {
        self.is_empty()
    }
}

impl Explorer {
    /// The checker's record of the newest request `requester` sent with `id`, unless that is
    /// `initialize` (never in a tree).
    pub(super) fn tree_record(&self, requester: Party, id: RequestId) -> Option<usize> {
        let p = self.world.checker().parentage();
        p.newest(requester, id).filter(|&i| !p.is_initialize(i))
    }

    /// How many requests are in trees: every request sent but `initialize`.
    pub(super) fn tree_len(&self) -> usize {
        let p = self.world.checker().parentage();
        (0..p.len()).filter(|&i| !p.is_initialize(i)).count()
    }

    /// Record `i`'s place (from 0) among the requests in trees, sorted by requester and id (a
    /// reused id's requests in the order sent): a numbering that the order in which the two
    /// parties' sends interleaved does not decide.
    pub(super) fn tree_place(&self, i: usize) -> usize {
        let p = self.world.checker().parentage();
        let key = (p.requester(i), p.id(i));
        (0..p.len())
            .filter(|&k| {
                let other = (p.requester(k), p.id(k));
                !p.is_initialize(k) && (other < key || (other == key && k < i))
            })
            .count()
    }

    /// The record at `place` (see [`Explorer::tree_place`]).
    fn tree_record_at(&self, place: usize) -> Option<usize> {
        let p = self.world.checker().parentage();
        (0..p.len()).find(|&i| !p.is_initialize(i) && self.tree_place(i) == place)
    }

    /// The root of record `i`'s tree, by its slot in its sender's script: `k` for the
    /// client's `k`-th request, `128 + k` for the server's `k`-th. The script's slots name
    /// its requests by id; of a reused id's roots, the `g`-th sent is the `g`-th slot.
    pub(super) fn root_slot(&self, i: usize) -> u8 {
        let p = self.world.checker().parentage();
        let r = p.root(i);
        let (requester, id) = (p.requester(r), p.id(r));
        let rank = (0..=r)
            .filter(|&k| {
                p.parent(k).is_none()
                    && !p.is_initialize(k)
                    && (p.requester(k), p.id(k)) == (requester, id)
            })
            .count();
        let (slots, base) = match requester {
            Party::Client => (&self.ids[..usize::from(self.sent)], 0u8),
            Party::Server => (&self.server.ids[..usize::from(self.server.sent)], 128),
        };
        let k = slots
            .iter()
            .enumerate()
            .filter(|(_, x)| **x == Some(id))
            .nth(rank.saturating_sub(1))
            // (Every root is a request its sender's script asked for: never read.)
            .map_or(u8::MAX, |(k, _)| k as u8);
        base.wrapping_add(k)
    }

    /// The root's slot (see [`Explorer::root_slot`]) of the request at `place` (see
    /// [`Explorer::tree_place`]).
    pub(super) fn root_slot_at(&self, place: usize) -> u8 {
        self.tree_record_at(place)
            .map_or(u8::MAX, |i| self.root_slot(i))
    }

    /// The spawn steps taken on behalf of record `i` so far.
    pub(super) fn spawned(&self, i: usize) -> u8 {
        let key = self.spawn_key(i);
        self.spawns
            .iter()
            .find(|s| (s.requester, s.id, s.generation) == key)
            .map_or(0, |s| s.count)
    }

    /// Counts a spawn step taken on behalf of record `i`.
    pub(super) fn count_spawn(&mut self, i: usize) {
        let key = self.spawn_key(i);
        let at = self
            .spawns
            .partition_point(|s| (s.requester, s.id, s.generation) < key);
        match self.spawns.get_mut(at) {
            Some(s) if (s.requester, s.id, s.generation) == key => s.count += 1,
            _ => self.spawns.insert(
                at,
                Spawned {
                    requester: key.0,
                    id: key.1,
                    generation: key.2,
                    count: 1,
                },
            ),
        }
    }

    fn spawn_key(&self, i: usize) -> (Party, RequestId, u8) {
        let p = self.world.checker().parentage();
        let generation = u8::try_from(p.generation(i)).unwrap_or(u8::MAX);
        (p.requester(i), p.id(i), generation)
    }
}
