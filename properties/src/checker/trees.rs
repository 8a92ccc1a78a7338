//! Requests sent on behalf of others: `siblings-untouched`, `no-child-after-cancel`,
//! `no-child-after-give-up`, `children-before-parent` (a quiescent run's `cascade-complete` is in `quiescence`).

use super::Checker;
use super::facts::Change;
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::message::CancelCause;
use cancelcheck_model::{Message, Outcome, Output};

/// A cancel sent, or a request given up for its parent's cancel, where neither its
/// application nor a cascade asked; a request sent on behalf of one its handler was asked to
/// cancel or gave up; a handler answering while a request it sent on the answer's behalf is
/// unresolved.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    let (Event::Output { party, output }, Some(i)) = (ev, ch.rec) else {
        return;
    };
    let (party, output) = (*party, *output);
    let r = c.reqs[i];
    match output {
        Output::Send(Message::Cancel { id, .. })
            if c.commanded[party.index()] != Some(id) && !r.cascade_owed =>
        {
            // Neither its application nor its timer asked, and no cancel of the request it
            // serves did.
            c.violate(InvariantId::SiblingsUntouched, Some((party, id)));
        }
        Output::Deliver {
            id,
            outcome: Outcome::Cancelled(CancelCause::Parent),
        } if !r.cascade_owed => {
            // Given up for a parent's cancel that did not concern it.
            c.violate(InvariantId::SiblingsUntouched, Some((party, id)));
        }
        // (The child has no record yet: the parent's tree says whether a reused id confused
        // which request was cancelled.)
        Output::Nested { child, .. } if (r.cancel_received_open || r.internal) && !c.tangled(i) => {
            let rule = c.stop_rule(
                &r,
                InvariantId::NoChildAfterGiveUp,
                InvariantId::NoChildAfterCancel,
            );
            c.violate(rule, Some((party, child)));
        }
        // ACP orders the answer after the turn's operations once the agent has received the
        // turn's `session/cancel` ("After all ongoing operations have been successfully
        // aborted ... MUST respond"), and says nothing of a turn never cancelled.
        Output::Send(Message::Response { id, .. })
            if r.session_cancel && c.parentage().children(i).any(|k| c.reqs[k].delivered == 0) =>
        {
            c.violate(InvariantId::ChildrenBeforeParent, Some((party.peer(), id)));
        }
        _ => {}
    }
}
