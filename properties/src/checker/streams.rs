//! Streamable HTTP, where each client request has a response stream of its own:
//! `close-is-cancel` (MCP 2026-07-28: a closed stream is the request's cancel),
//! `disconnect-not-cancel` (MCP 2025-11-25: a lost stream is not), and the races the streams
//! bring (`race-close-crosses-answer`, `race-resume-after-loss`, `race-progress-after-close`).

use super::Checker;
use super::facts::Work;
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::DialectRules;
use cancelcheck_model::{Input, Message, Output};

/// `ev` as the other families read it: where closing a request's stream is its cancel
/// ([`DialectRules::stream_close_cancels`]), the requester's close is the cancel it sends and
/// the receiver's reading of it the cancel it receives; every other event as it is.
#[inline(always)]
pub(super) fn as_cancel(rules: &DialectRules, ev: &Event) -> Event {
    if !rules.stream_close_cancels {
        return *ev;
    }
    let cancel = |id| Message::Cancel { id, session: false };
    match *ev {
        Event::Output {
            party,
            output: Output::CloseStream(id),
        } => Event::Output {
            party,
            output: Output::Send(cancel(id)),
        },
        Event::Input {
            party,
            input: Input::StreamClosed(id),
        } => Event::Input {
            party,
            input: Input::Receive(cancel(id)),
        },
        other => other,
    }
}

/// Judges `ev` (as it happened, a close not read as a cancel) on the streams' rules, and notes
/// the streams' races.
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event) {
    let closes_cancel = c.rules().stream_close_cancels;
    let on = |c: &Checker, party, id, f: fn(&super::facts::Req) -> bool| {
        c.find(party, id).is_some_and(|i| f(&c.reqs[i]))
    };
    match *ev {
        // The stream closes while the answer written on it is still unread.
        Event::Output {
            party,
            output: Output::CloseStream(id),
        }
        | Event::Input {
            party,
            input: Input::StreamLost(id),
        } if on(c, party, id, |r| r.answer_in_flight()) => {
            c.reach(InvariantId::RaceCloseCrossesAnswer);
        }
        Event::Input {
            party,
            input: Input::StreamResumed(id),
        } if on(c, party, id, |r| r.lost_during_work) => {
            c.reach(InvariantId::RaceResumeAfterLoss);
        }
        // Progress that came another way (the GET stream) after the request's own closed.
        Event::Input {
            party,
            input: Input::Receive(Message::Activity { id }),
        } if on(c, party, id, |r| r.stream_closed) => {
            c.reach(InvariantId::RaceProgressAfterClose);
        }
        Event::Input {
            party,
            input: Input::WorkDone(id) | Input::WorkProgress(id),
        } if closes_cancel => {
            // The work of a request whose close its receiver read runs on.
            let held = c.find_held(party.peer(), id).map(|i| c.reqs[i]);
            if held.is_some_and(|r| r.close_read_open && r.work == Work::Running) {
                c.violate(InvariantId::CloseIsCancel, Some((party.peer(), id)));
            }
        }
        Event::Output {
            party,
            output: Output::AbortWork(id) | Output::Dropped(id),
        } if !closes_cancel => {
            // A request stopped for no reason but that its stream closed.
            let held = c.find_held(party.peer(), id).map(|i| c.reqs[i]);
            if held.is_some_and(|r| r.close_read_open && !r.cancel_received && !r.internal) {
                c.violate(InvariantId::DisconnectNotCancel, Some((party.peer(), id)));
            }
        }
        _ => {}
    }
}
