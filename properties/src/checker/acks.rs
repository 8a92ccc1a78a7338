//! Cancels that are answered (ABP's `capabilities/cancel` → `cancel-result`):
//! `cancel-result-per-table`, `cancel-idempotent`, `ack-agrees-with-outcome` (a quiescent
//! run's cancel left unanswered is in `quiescence`).

use super::Checker;
use super::facts::{Change, Work};
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::CancelShape;
use cancelcheck_model::message::{Ack, AckReason};
use cancelcheck_model::{Message, Output, Party, RequestId};

/// An acknowledgement that says other than the text's table, that changes its `cancelled`
/// flag, or that disagrees with the call's first result; a first result that disagrees with an
/// acknowledgement already sent.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    let Event::Output {
        party,
        output: Output::Send(msg),
    } = *ev
    else {
        return;
    };
    match msg {
        Message::CancelAck { id, ack } => {
            if ack_off_table(c, party, id, ack) {
                c.violate(InvariantId::CancelResultPerTable, Some((party.peer(), id)));
            }
            let (Some(i), Some(before)) = (ch.rec, ch.before) else {
                return;
            };
            if matches!(ack.reason, AckReason::NotFound | AckReason::NotInitialized) {
                return;
            }
            if before
                .ack_cancelled
                .is_some_and(|prev| prev != ack.cancelled)
            {
                c.violate(InvariantId::CancelIdempotent, Some((party.peer(), id)));
            }
            if c.reqs[i]
                .result_cancelled
                .is_some_and(|r| r != ack.cancelled)
            {
                c.violate(InvariantId::AckAgreesWithOutcome, Some((party.peer(), id)));
            }
        }
        Message::Response { id, reply } => {
            let (Some(i), Some(before)) = (ch.rec, ch.before) else {
                return;
            };
            if c.rules().cancel_shape == CancelShape::AcknowledgedRequest
                && before.result_cancelled.is_none()
                && c.reqs[i]
                    .ack_cancelled
                    .is_some_and(|a| a != reply.is_cancelled())
            {
                c.violate(InvariantId::AckAgreesWithOutcome, Some((party.peer(), id)));
            }
        }
        _ => {}
    }
}

/// Whether `app`'s answer `ack` to a cancel of `id` says other than the text's table
/// (ABP): NOT_INITIALIZED before the app has read `initialize`, "Operation not found" for
/// a call it never read, "Operation already completed" where it answered the call in full
/// and says `cancelled: false`, and neither "not found" nor NOT_INITIALIZED for a call it
/// holds. A known call's `cancelled` flag is judged by ack-agrees-with-outcome and
/// cancel-idempotent, not here.
fn ack_off_table(c: &Checker, app: Party, id: RequestId, ack: Ack) -> bool {
    let requester = app.peer();
    let session = c.rules().initialize_method.is_none()
        || c.reqs
            .iter()
            .any(|r| r.requester == requester && r.initialize && r.work != Work::Unseen);
    let held = c
        .find_held(requester, id)
        .map(|i| c.reqs[i])
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
