//! What may follow an answer or a cancel: `no-activity-after-answer`,
//! `no-activity-after-cancel`, and a requester's `cancel-only-in-progress`.

use super::Checker;
use super::facts::Change;
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::{Message, Output};

/// A cancel sent for a request whose answer its sender had read; progress sent for a request
/// already answered (in ACP, a prompt turn whose `session/cancel` its agent had received), or
/// one its receiver owes silence after a cancel.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    let (
        Event::Output {
            party,
            output: Output::Send(msg),
        },
        Some(i),
    ) = (ev, ch.rec)
    else {
        return;
    };
    let (party, msg) = (*party, *msg);
    let r = c.reqs[i];
    match msg {
        Message::Cancel { id, .. } if r.responses_received > 0 => {
            // Its sender had read the answer: it knew the request was over.
            c.violate(InvariantId::CancelOnlyInProgress, Some((party, id)));
        }
        Message::Activity { id } => {
            if r.responses_sent > 0 {
                // ACP bounds a turn's updates by its answer once the agent has received the
                // turn's `session/cancel` ("MAY send session/update notifications ... after
                // receiving the session/cancel notification, but it MUST ensure that it does
                // so before responding"), and says nothing of a turn never cancelled.
                if c.rules().session_cancel_method.is_none() || r.session_cancel {
                    c.violate(InvariantId::NoActivityAfterAnswer, Some((party.peer(), id)));
                }
            } else if c.stopped_by_cancel(&r) {
                c.violate(InvariantId::NoActivityAfterCancel, Some((party.peer(), id)));
            }
        }
        _ => {}
    }
}
