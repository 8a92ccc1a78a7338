//! What a quiescent run owes at its end (the "eventually" invariants): every request resolved
//! or excused by a loss (`eventual-resolution`), every cascade carried out
//! (`cascade-complete`), every cancel that is answered answered (`cancel-result-per-table`;
//! MCP's `tasks/cancel`, a request, under `eventual-resolution`),
//! nothing left open (`no-leak-at-quiescence`). A run cut short by a bound, or disconnected,
//! is judged on none of them.

use super::facts::Change;
use super::{Checker, Excuse, Lost};
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::Party;
use cancelcheck_model::dialect::CancelShape;

/// Judges the end of the run.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, _: &Change) {
    let Event::End {
        quiescent,
        open_incoming,
    } = *ev
    else {
        return;
    };
    c.verdict.quiescent = quiescent;
    if !quiescent || c.disconnected {
        return;
    }
    let mut hung = None;
    // A handler answers after its children: a request whose unresolved descendant was
    // excused by a loss waits on that loss too.
    let mut waits_on_loss = false;
    for (i, r) in c.reqs.iter().enumerate() {
        // (A request its receiver stopped when its stream closed, and so never answered, is
        // reported once, under the sentence that forbids taking a close for a cancel.)
        if r.delivered > 0 || c.crashed[r.requester.index()] || r.stopped_on_close() {
            continue;
        }
        let lost = if r.request_lost {
            Some(Lost::Request)
        } else if r.responses_lost > 0 {
            Some(Lost::Response)
        } else if let Some(lost) = c.descendant_loss(i) {
            waits_on_loss = true;
            Some(lost)
        } else {
            None
        };
        match lost {
            Some(lost) => c.verdict.excused.push(Excuse {
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
        c.violate(InvariantId::EventualResolution, Some(about));
    }
    // The first request owed a cascade it did not get, under the rule of what its parent took:
    // a cancel received, or its handler's own give-up.
    for rule in [InvariantId::CascadeComplete, InvariantId::CascadeOnGiveUp] {
        let owed_by = |c: &Checker, i: usize| {
            let parent = c.parentage().parent(i).map(|p| c.reqs[p]);
            parent.map_or(InvariantId::CascadeComplete, |p| {
                c.stop_rule(
                    &p,
                    InvariantId::CascadeOnGiveUp,
                    InvariantId::CascadeComplete,
                )
            })
        };
        if let Some(i) = (0..c.reqs.len()).find(|&i| c.uncascaded(i) && owed_by(c, i) == rule) {
            let r = c.reqs[i];
            c.violate(rule, Some((r.requester, r.id)));
        }
    }
    for party in [Party::Client, Party::Server] {
        if c.cancels_unanswered[party.index()] > 0 && !c.crashed[party.index()] {
            // A cancel it read got no answer: ABP's table gives each its answer; MCP's
            // `tasks/cancel` is a request, which JSON-RPC has answered.
            let rule = if c.rules().cancel_shape == CancelShape::AcknowledgedRequest {
                InvariantId::CancelResultPerTable
            } else {
                InvariantId::EventualResolution
            };
            c.violate(rule, None);
        }
    }
    // Two requests with one id in a party's table are not the party's doing.
    // A handler still holding a request whose child's answer was lost holds it for that.
    let waits_on_loss = waits_on_loss
        || (0..c.reqs.len()).any(|i| !c.reqs[i].responder_done && c.descendant_loss(i).is_some());
    let confused = c.reqs.iter().any(|r| r.ambiguous) || waits_on_loss;
    for party in [Party::Client, Party::Server] {
        if open_incoming[party.index()] > 0 && !c.crashed[party.index()] && !confused {
            c.violate(InvariantId::NoLeakAtQuiescence, None);
        }
    }
}

impl Checker {
    /// Whether record `i` was owed the cascade of its parent's cancel and did not get it in
    /// full: its requester (not crashed) never gave it up, or gave it up and never resolved
    /// it though neither the request nor an answer in its subtree was lost. The one rule of
    /// `cascade-complete`.
    fn uncascaded(&self, i: usize) -> bool {
        let r = &self.reqs[i];
        let excused = r.request_lost || r.responses_lost > 0 || self.descendant_loss(i).is_some();
        r.cascade_owed
            && !self.crashed[r.requester.index()]
            && (!(r.cancel_sent || r.resolved_cancelled) || (r.delivered == 0 && !excused))
    }

    /// Every request that did not get the cascade it was owed ([`InvariantId::CascadeComplete`]
    /// names the first), as its requester, its id and its generation (1 for the first request
    /// its requester sent with that id, 2 for the second, ...), in the order the records are
    /// kept (the order sent, unless [canonical](Checker::set_canonical_order)). Judged only once
    /// the events ended quiescent without a disconnect (before that a cascade may still be
    /// under way): otherwise empty. Drawings ask this rather than judge the rule again.
    pub fn cascade_gaps(&self) -> Vec<(Party, cancelcheck_model::RequestId, u32)> {
        if !self.verdict.quiescent || self.disconnected {
            return Vec::new();
        }
        (0..self.reqs.len())
            .filter(|&i| self.uncascaded(i))
            .map(|i| {
                let r = &self.reqs[i];
                (r.requester, r.id, self.parentage().generation(i))
            })
            .collect()
    }
}
