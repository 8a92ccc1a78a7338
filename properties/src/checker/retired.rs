//! Records of settled requests put away ([`Checker::retire_settled`]), kept compactly: each
//! distinct record, its id blanked, once, with the set of ids whose record it is. A long
//! session's settled requests differ in little but their ids, so a few such shapes hold them
//! all, and integer ids, sent in order, make runs.
//!
//! A record is retired only where nothing the checker does with every record can tell it is
//! gone (it is settled, a root with no children, not `initialize`, not ambiguous, and the only
//! record of its requester and id), and it is put back, unchanged, before the event that
//! names its id is read ([`Checker::revive`]): every lookup by id then finds what it found
//! before. So retiring changes no verdict; it only keeps the records small.

use super::Checker;
use super::facts::{Req, Work};
use crate::event::Event;
use crate::idset::IdSet;
use cancelcheck_model::io::Timer;
use cancelcheck_model::{Command, Input, Output, Party, RequestId};
use smallvec::SmallVec;

/// The retired records (see the module documentation).
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub(super) struct Retired {
    /// Each distinct retired record with its id blanked ([`RequestId::Null`]), and the ids of
    /// its requester's requests whose record it is. An id is in one set at most.
    shapes: Vec<(Req, IdSet)>,
}

impl Retired {
    /// Whether no record is retired.
    pub(super) fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Puts `r` away, in place of any record of its requester and id retired before.
    fn insert(&mut self, r: Req) {
        self.take(r.requester, r.id);
        let shape = Req {
            id: RequestId::Null,
            ..r
        };
        match self.shapes.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, ids)) => {
                ids.insert(r.id);
            }
            None => {
                let mut ids = IdSet::default();
                ids.insert(r.id);
                self.shapes.push((shape, ids));
            }
        }
    }

    /// Takes back the record of `requester`'s request `id`, if it was retired.
    fn take(&mut self, requester: Party, id: RequestId) -> Option<Req> {
        let k = self
            .shapes
            .iter()
            .position(|(s, ids)| s.requester == requester && ids.contains(id))?;
        let (shape, ids) = &mut self.shapes[k];
        ids.remove(id);
        let r = Req { id, ..*shape };
        if ids.is_empty() {
            self.shapes.swap_remove(k);
        }
        Some(r)
    }

    /// How many pieces (runs of integer ids, other ids) and shapes it holds.
    fn size(&self) -> usize {
        self.shapes.len()
            + self
                .shapes
                .iter()
                .map(|(_, ids)| ids.pieces())
                .sum::<usize>()
    }
}

/// The ids `ev` names, for which a retired record must be back before it is read.
fn named(ev: &Event) -> SmallVec<[RequestId; 2]> {
    let mut out = SmallVec::new();
    let msg_id = |m: &cancelcheck_model::Message| m.request_id();
    match *ev {
        Event::Input { input, .. } => match input {
            Input::Receive(m) => out.extend(msg_id(&m)),
            Input::Command(c) => match c {
                Command::SendNested(id) | Command::Cancel(id) => out.push(id),
                Command::Initialize | Command::Send { .. } | Command::MalformedCancel => {}
            },
            Input::WorkDone(id)
            | Input::WorkProgress(id)
            | Input::InternalCancel(id)
            | Input::StreamClosed(id)
            | Input::StreamLost(id)
            | Input::StreamResumed(id) => out.push(id),
            Input::TimerFired(Timer::RequestTimeout(id)) => out.push(id),
            Input::TimerFired(Timer::InitTimeout) => {}
            Input::Disconnected => {}
        },
        Event::Output { output, .. } => match output {
            Output::Send(m) => out.extend(msg_id(&m)),
            Output::Nested { parent, child } => out.extend([parent, child]),
            Output::Deliver { id, .. }
            | Output::StartWork(id)
            | Output::AbortWork(id)
            | Output::Dropped(id)
            | Output::CloseStream(id) => out.push(id),
            // (No family looks a request up for these.)
            Output::ArmTimer(_)
            | Output::DisarmTimer(_)
            | Output::Refused(..)
            | Output::Ignored(_)
            | Output::Anomaly(_)
            | Output::Crashed => {}
        },
        Event::Lost { msg, .. } | Event::Duplicated { msg, .. } => out.extend(msg_id(&msg)),
        Event::End { .. } | Event::Unmodelled { .. } => {}
    }
    out
}

impl Checker {
    /// Puts away the records of settled requests that nothing can tell apart from their id,
    /// so that what the checker holds is bounded by the requests still open (and a few
    /// settled ones since the last call), not by how many were ever sent; lookups then walk
    /// only those. A later event that names a retired request's id gets its record back first,
    /// unchanged, so the verdict is the one the checker gives without retiring (the places of
    /// [`Checker::parentage`] change; a request's [`Parentage::generation`] counts only the
    /// records still held). It walks every record held: a driver of long sessions (`audit`,
    /// `watch`) calls it once the records have doubled since it last did, which keeps its cost
    /// a constant per event. The explorer, which packs checkers, never calls it (retired
    /// records are not packed).
    ///
    /// [`Parentage::generation`]: super::Parentage::generation
    pub fn retire_settled(&mut self) {
        let n = self.reqs.len();
        let mut has_children = vec![false; n];
        for r in &self.reqs {
            if let Some(p) = r.parent.filter(|&p| (p as usize) < n) {
                has_children[p as usize] = true;
            }
        }
        let mut keys: Vec<(Party, RequestId)> =
            self.reqs.iter().map(|r| (r.requester, r.id)).collect();
        keys.sort_unstable();
        let only = |k: (Party, RequestId)| {
            let lo = keys.partition_point(|x| *x < k);
            keys.get(lo + 1) != Some(&k)
        };
        let acked = self.rules().cancel_shape
            == cancelcheck_model::dialect::CancelShape::AcknowledgedRequest;
        let retire: Vec<bool> = (0..n)
            .map(|i| {
                let r = &self.reqs[i];
                r.parent.is_none()
                    && !has_children[i]
                    && !r.initialize
                    && !r.ambiguous
                    && !r.cascade_owed
                    && r.delivered > 0
                    && r.responder_done
                    && r.work != Work::Unseen
                    && !r.may_still_arrive(acked, false)
                    && only((r.requester, r.id))
            })
            .collect();
        let mut place = vec![u32::MAX; n];
        let mut kept = 0u32;
        for i in 0..n {
            if !retire[i] {
                place[i] = kept;
                kept += 1;
            }
        }
        let mut i = 0;
        let retired = &mut self.retired;
        self.reqs.retain(|r| {
            let go = retire[i];
            i += 1;
            if go {
                retired.insert(*r);
            }
            !go
        });
        for r in &mut self.reqs {
            // (A parent is never retired: it has a child.)
            r.parent = r
                .parent
                .map(|p| place.get(p as usize).copied().unwrap_or(p));
        }
    }

    /// How much the checker holds: the records of requests (open, or settled since the last
    /// [`Checker::retire_settled`]), and the pieces the retired ones take (a shape of record,
    /// a run of integer ids, another id). Bounded by the open requests for the first, by the
    /// ids' pattern for the second (a run per stretch of consecutive ids settled alike).
    pub fn held(&self) -> (usize, usize) {
        (self.reqs.len(), self.retired.size())
    }

    /// Puts back the retired records of the ids `ev` names, each before the records of its
    /// requester and id still held (they are newer), so that every lookup finds what it
    /// found before the record was retired.
    #[inline(always)]
    pub(super) fn revive(&mut self, ev: &Event) {
        if self.retired.is_empty() {
            return;
        }
        for id in named(ev) {
            for party in [Party::Client, Party::Server] {
                let Some(r) = self.retired.take(party, id) else {
                    continue;
                };
                let at = self
                    .reqs
                    .iter()
                    .position(|q| q.requester == party && q.id == id)
                    .unwrap_or(self.reqs.len());
                for q in &mut self.reqs {
                    if let Some(p) = q.parent.as_mut()
                        && *p as usize >= at
                    {
                        *p += 1;
                    }
                }
                self.reqs.insert(at, r);
            }
        }
    }
}
