//! Which party may cancel, how, and when a requester owes a cancel:
//! `cancel-from-allowed-party`, `task-cancelled-by-request`, `cancel-sent-on-give-up`.

use super::Checker;
use super::facts::Change;
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::{CancelSenders, GiveUpSignal};
use cancelcheck_model::message::CancelCause;
use cancelcheck_model::{Message, Outcome, Output, Party};

/// A cancel from a party the dialect does not let cancel; a request given up (resolved as
/// cancelled) with no cancel sent where the text says the receiver is owed one.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    let Event::Output { party, output } = *ev else {
        return;
    };
    match output {
        Output::Send(Message::Cancel { id, .. })
            if c.rules().cancel_senders == CancelSenders::ClientOnly && party == Party::Server =>
        {
            c.violate(InvariantId::CancelFromAllowedParty, Some((party, id)));
        }
        // A task-augmented request cancelled with the generic notification, not the task's
        // own cancel (MCP 2025-11-25's `tasks/cancel`).
        Output::Send(Message::Cancel { id, session: false })
            if c.rules().task_cancel_method.is_some()
                && ch
                    .rec
                    .is_some_and(|i| c.reqs[i].task && c.reqs[i].requester == party) =>
        {
            c.violate(InvariantId::TaskCancelledByRequest, Some((party, id)));
        }
        Output::Deliver {
            id,
            outcome: Outcome::Cancelled(cause),
        } => {
            if let Some(i) = ch.rec
                && !c.reqs[i].cancel_sent
                && owes_cancel(c, party, cause)
            {
                // It gave the request up and never told the receiver.
                c.violate(InvariantId::CancelSentOnGiveUp, Some((party, id)));
            }
        }
        _ => {}
    }
}

/// Whether `party`, giving one of its requests up for `cause`, owes the receiver a cancel
/// (see `GiveUpSignal`): never for a parent's cascade, which has rules of its own, nor
/// where the party may not cancel at all.
fn owes_cancel(c: &Checker, party: Party, cause: CancelCause) -> bool {
    let rules = c.rules();
    let may_cancel = rules.cancel_senders == CancelSenders::Either || party == Party::Client;
    may_cancel
        && match rules.give_up_signal {
            GiveUpSignal::Unstated => false,
            GiveUpSignal::OnTimeout => cause == CancelCause::Timeout,
            GiveUpSignal::Always => cause != CancelCause::Parent,
        }
}
