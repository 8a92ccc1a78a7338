//! The races a run reaches ("sometimes" properties): coverage a run claims, never a violation.

use super::Checker;
use super::facts::{Change, Work};
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::io::Timer;
use cancelcheck_model::{Input, Message};

/// Notes the race `ev` reached, if any: an answer read after its request's cancel was sent, a
/// cancel taken while the answer was on its way or before work started, a timeout while the
/// answer was on its way.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    let (Event::Input { party, input }, Some(i)) = (ev, ch.rec) else {
        return;
    };
    let (party, input) = (*party, *input);
    let r = c.reqs[i];
    match input {
        Input::Receive(Message::Response { .. }) if r.cancel_sent => {
            c.reach(InvariantId::RaceAnswerAfterCancel);
        }
        Input::Receive(Message::Cancel { session, .. }) if c.heeds_cancels(party, session) => {
            if r.responses_sent > 0 && r.answer_in_flight() {
                c.reach(InvariantId::RaceCancelCrossesAnswer);
            }
            if r.work == Work::Queued {
                c.reach(InvariantId::RaceCancelBeforeWork);
            }
        }
        Input::TimerFired(Timer::RequestTimeout(_)) if r.answer_in_flight() => {
            c.reach(InvariantId::RaceTimeoutWithAnswerInFlight);
        }
        _ => {}
    }
}
