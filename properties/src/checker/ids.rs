//! Which request a message names: `exact-id-match` (an answer naming no request of its
//! receiver's in that direction, a request stopped or given up as cancelled that nobody
//! cancelled), `cancel-names-sent-request` (a cancel naming no request of its sender's),
//! `notification-unanswered`, `no-live-id-reuse`; `undeclared-cancel-ignored` (a request
//! stopped by a cancel its receiver declared no support for). (An answer that says "cancelled" to a
//! request nobody cancelled is judged with the other answers, in `cancel_answers`.)

use super::Checker;
use super::facts::Change;
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::IdReuse;
use cancelcheck_model::message::CancelCause;
use cancelcheck_model::{Message, Outcome, Output, Party, RequestId};

/// A cancel or an answer naming no request; an id reused (while live, or at all where the
/// dialect forbids it); a request given up, or its work stopped, for a cancel that named
/// another.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    let Event::Output { party, output } = *ev else {
        return;
    };
    match output {
        Output::Send(Message::Cancel { id, .. }) if ch.rec.is_none() => {
            // It names no request its sender ever sent in this direction (a cancel passed on
            // under the id of the request it came from).
            c.violate(InvariantId::CancelNamesSentRequest, Some((party, id)));
        }
        Output::Send(Message::Response { id, .. }) if ch.rec.is_none() => {
            let inv = if id == RequestId::Null {
                InvariantId::NotificationUnanswered
            } else {
                InvariantId::ExactIdMatch
            };
            c.violate(inv, Some((party.peer(), id)));
        }
        Output::Send(Message::Request { id, .. }) => {
            if let Some((_, live)) = ch.reused
                && (c.rules().id_reuse == IdReuse::Never || live)
            {
                c.violate(InvariantId::NoLiveIdReuse, Some((party, id)));
            }
        }
        Output::Deliver {
            id,
            outcome: Outcome::Cancelled(CancelCause::User),
        } => {
            if let Some(i) = ch.rec
                && !c.reqs[i].cancel_sent
                && c.commanded[party.index()] != Some(id)
            {
                // Its application never got to cancel it: a cancel meant for another
                // request (one received, in the other direction) stopped it.
                c.violate(InvariantId::ExactIdMatch, Some((party, id)));
            }
        }
        Output::AbortWork(id) | Output::Dropped(id) => {
            let Some(i) = ch.rec else {
                return;
            };
            let r = c.reqs[i];
            // (A request of a prompt turn its receiver cancelled may stop with the turn; one
            // stopped when its stream closed is `streams`' to judge.)
            if !r.cancel_received
                && !r.internal
                && !r.turn_cancelled
                && !r.close_read_open
                && !c.disconnected
            {
                c.violate(c.unheeded_cancel_rule(&r, party), Some((party.peer(), id)));
            }
        }
        _ => {}
    }
}

impl Checker {
    /// What a request stopped or answered as cancelled by its `receiver`, though no cancel it
    /// heeds named it and it was not given up, breaks: where a cancel naming it was read but
    /// the receiver declared no support for cancels (ACP RFD), acting on it breaks
    /// `undeclared-cancel-ignored`; otherwise it was a cancel meant for another request
    /// (`exact-id-match`).
    pub(super) fn unheeded_cancel_rule(
        &self,
        r: &super::facts::Req,
        receiver: Party,
    ) -> InvariantId {
        if r.cancels_received > 0 && !self.heeds_cancels(receiver, false) {
            InvariantId::UndeclaredCancelIgnored
        } else {
            InvariantId::ExactIdMatch
        }
    }
}
