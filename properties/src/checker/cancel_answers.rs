//! What a receiver answers after a cancel, or after giving a request up on its own:
//! `no-answer-after-cancel`, `cancel-error-code`, `cancel-honoured`,
//! `prompt-cancelled-stop-reason`, `internal-cancel-code`,
//! `permission-cancelled-after-cancel`, `exact-id-match` for an answer that says "cancelled"
//! to a request nobody cancelled; and a crash on reading a cancel
//! (`unknown-cancel-harmless`, `unknown-id-cancel-ignored`, `malformed-cancel-ignored`).

use super::facts::Change;
use super::{CancelRead, Checker};
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::{Honouring, ReceiverDuty};
use cancelcheck_model::{Message, Output, Party, Reply, RequestId};

/// An answer judged by what came before it (a cancel read, a give-up, a cancelled prompt
/// turn, nothing); a crash judged by the cancel being read.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    match *ev {
        Event::Output {
            party,
            output: Output::Send(Message::Response { id, reply }),
        } => {
            if let Some(i) = ch.rec {
                answer(c, party.peer(), i, id, reply);
            }
        }
        Event::Output {
            party,
            output: Output::Crashed,
        } => {
            // A crash on a malformed cancel breaks what the texts say of malformed cancels
            // (where they say anything), one on a cancel naming an id never used what they say
            // of unknown ids (where they say it apart), not what they say of a cancel for a
            // finished request.
            let unknown_id = InvariantId::UnknownIdCancelIgnored;
            match c.handling_cancel[party.index()] {
                Some(CancelRead::Malformed) => c.violate(InvariantId::MalformedCancelIgnored, None),
                Some(CancelRead::UnknownId)
                    if unknown_id.info().application(c.dialect).is_some() =>
                {
                    c.violate(unknown_id, None)
                }
                Some(_) => c.violate(InvariantId::UnknownCancelHarmless, None),
                None => {}
            }
        }
        _ => {}
    }
}

/// The answer `reply` to record `i` (`requester`'s request `id`).
fn answer(c: &mut Checker, requester: Party, i: usize, id: RequestId, reply: Reply) {
    let rules = c.rules();
    let r = c.reqs[i];
    let about = Some((requester, id));
    if r.cancel_received {
        if rules.receiver_duty != ReceiverDuty::MustAnswer && c.stopped_by_cancel(&r) {
            c.violate(InvariantId::NoAnswerAfterCancel, about);
        }
        if let Reply::Error(code) = reply
            && Some(code) != rules.cancel_error_code
        {
            c.violate(InvariantId::CancelErrorCode, about);
        }
        if rules.honouring == Honouring::Must && r.cancel_received_open && reply == Reply::Full {
            c.violate(InvariantId::CancelHonoured, about);
        }
        // A prompt turn cancelled by its session's cancel ends with the cancelled stop
        // reason, a result (ACP's prompt turn).
        if rules.cancelled_result
            && r.session_cancel
            && r.cancel_received_open
            && !reply.is_cancelled()
        {
            c.violate(InvariantId::PromptCancelledStopReason, about);
        }
    } else if r.internal {
        // What the text says of the answer to a request given up on its own: -32800 (ACP),
        // never ServerCancelled for a request that does not support it (LSP).
        if let (Reply::Error(code), Some(give_up)) = (reply, rules.give_up)
            && give_up.breaks(code)
        {
            c.violate(InvariantId::InternalCancelCode, about);
        }
    } else if reply.is_cancelled() && !r.turn_cancelled && !c.disconnected {
        // Cancelled, though no cancel it heeds named it and its receiver did not give it up:
        // a cancel it declared no support for (it acted on it all the same), or one meant
        // for another request.
        c.violate(c.unheeded_cancel_rule(&r, requester.peer()), about);
    }
    // A request of a turn its sender cancelled is answered with the outcome `cancelled`: a
    // result with another outcome breaks that, and so does an error, unless the request's own
    // sender cancelled it too (then the cancel's text allows its error).
    let other_outcome = match reply {
        Reply::Full | Reply::Partial => true,
        Reply::Error(_) => !r.cancel_received,
        Reply::Cancelled | Reply::Initialized { .. } => false,
    };
    if r.turn_cancelled && other_outcome {
        c.violate(InvariantId::PermissionCancelledAfterCancel, about);
    }
}
