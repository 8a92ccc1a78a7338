//! Each request resolved once: `single-resolution`, and `late-answer-ignored` for an answer a
//! requester delivers after resolving the request at cancel time (a quiescent run's
//! `eventual-resolution` is in `quiescence`).

use super::Checker;
use super::facts::Change;
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::{Message, Outcome, Output};

/// A requester delivering a second outcome, or an answer after its cancel where it does not
/// wait for one; a responder answering twice.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    let (Event::Output { party, output }, Some(i)) = (ev, ch.rec) else {
        return;
    };
    let (party, output) = (*party, *output);
    let r = c.reqs[i];
    match output {
        Output::Deliver { id, outcome } => {
            // An answer delivered after the requester resolved the request at cancel time
            // is one deviation, stated by the "SHOULD ignore" clause; it is not also a
            // second resolution.
            let late =
                matches!(outcome, Outcome::Reply(_)) && r.cancel_sent && !c.rules().requester_waits;
            if late {
                c.violate(InvariantId::LateAnswerIgnored, Some((party, id)));
            } else if r.delivered > 1 {
                c.violate(InvariantId::SingleResolution, Some((party, id)));
            }
        }
        Output::Send(Message::Response { id, .. }) if r.responses_sent > 1 => {
            c.violate(InvariantId::SingleResolution, Some((party.peer(), id)));
        }
        _ => {}
    }
}
