//! The symmetry reduction's canonical relabelling of a plain state: each request's signature
//! (everything about it but its id), and the ids handed out again in the order of those.

use cancelcheck_model::RequestId;
use cancelcheck_model::io::Timer;
use cancelcheck_model::pack::Relabel;
use core::hash::{Hash, Hasher};
use smallvec::SmallVec;

use super::{Dirty, Explorer};
use crate::explorer::bounds;
use crate::explorer::hash::StableHasher;
use crate::scenario::Scenario;

/// `x` renamed by `map` (pairs of an id and its new id; ids not listed keep theirs).
fn rename(map: &[(RequestId, RequestId)], x: RequestId) -> RequestId {
    map.iter().find(|(from, _)| *from == x).map_or(x, |p| p.1)
}

impl Explorer {
    /// Renames work-request ids in place to this state's canonical relabelling: ids are handed
    /// out again in the order of what each request's state looks like (every component's
    /// record of it, its messages and their FIFO positions, its work, timers and cancels), so
    /// states that differ only by a permutation of interchangeable requests become equal.
    /// The result is a key, not a state to expand: its steps are listed in another order.
    /// Only sound where [`crate::explorer::symmetric`] holds. Returns whether anything could move
    /// (false with fewer than two requests sent: the state is then left as it was).
    pub fn canonicalize(&mut self, scenario: &Scenario) -> bool {
        let sent = usize::from(self.sent);
        let ids: SmallVec<[RequestId; 8]> = self.ids[..sent].iter().flatten().copied().collect();
        if ids.len() < 2 {
            return false;
        }
        let fifo = bounds(scenario).fifo;
        let mut by_look: SmallVec<[(u64, RequestId); 8]> =
            ids.iter().map(|&x| (self.signature(x, fifo), x)).collect();
        by_look.sort_unstable();
        let mut slots = ids;
        slots.sort_unstable();
        let map: SmallVec<[(RequestId, RequestId); 8]> = by_look
            .iter()
            .zip(&slots)
            .map(|(&(_, from), &to)| (from, to))
            .collect();
        self.relabel_by(&map, fifo);
        true
    }

    /// Everything about request `x` except its id.
    fn signature(&self, x: RequestId, fifo: bool) -> u64 {
        let mut h = StableHasher::default();
        self.world.hash_request(x, &mut h);
        for q in &self.net {
            0xFFu8.hash(&mut h);
            for (pos, m) in q.iter().enumerate() {
                if m.request_id() == Some(x) {
                    if fifo {
                        pos.hash(&mut h);
                    }
                    m.with_request_id(RequestId::Null).hash(&mut h);
                }
            }
        }
        for &(p, y) in self.work.iter().chain(&self.progressed) {
            if y == x {
                p.hash(&mut h);
            }
        }
        1u8.hash(&mut h);
        for &(p, t) in &self.timers {
            if t == Timer::RequestTimeout(x) {
                p.hash(&mut h);
            }
        }
        for (k, id) in self.ids.iter().enumerate() {
            if *id == Some(x) {
                self.cancels[k].hash(&mut h);
            }
        }
        h.finish()
    }

    /// Renames request ids everywhere (see [`Relabel`]), then puts back in order what is kept
    /// sorted: queues on a reordering link, work, timers, and the application's requests by
    /// their new ids.
    fn relabel_by(&mut self, map: &[(RequestId, RequestId)], fifo: bool) {
        self.dirty = Dirty::ALL;
        self.relabel(&|x| rename(map, x));
        if !fifo {
            self.net.iter_mut().for_each(|q| q.sort_unstable());
        }
        self.work.sort_unstable();
        self.progressed.sort_unstable();
        self.timers.sort_unstable();
        let sent = usize::from(self.sent);
        let mut apps: SmallVec<[(Option<RequestId>, u8); 8]> =
            (0..sent).map(|k| (self.ids[k], self.cancels[k])).collect();
        apps.sort_unstable();
        for (k, (id, c)) in apps.into_iter().enumerate() {
            self.ids[k] = id;
            self.cancels[k] = c;
        }
    }
}
