//! The session's opening: `no-request-before-initialize`, `initialize-not-cancelled`,
//! `capability-gated`.

use super::Checker;
use super::facts::Change;
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::InitializeCancel;
use cancelcheck_model::message::Method;
use cancelcheck_model::{Message, Output, Party};

/// A request or another message sent before `initialize` is answered as far as its sender can
/// know; a cancel of
/// an `initialize` the dialect does not let be cancelled (then, or ever), or (where support is negotiated) a
/// generic cancel to a party that declared no support (a prompt turn's `session/cancel` is
/// not the negotiated cancel).
#[inline(always)]
pub(super) fn judge(c: &mut Checker, ev: &Event, ch: &Change) {
    if let Event::Unmodelled { party } = *ev {
        if !initialize_answered(c, party, true) {
            c.violate(InvariantId::NoRequestBeforeInitialize, None);
        }
        return;
    }
    let Event::Output {
        party,
        output: Output::Send(msg),
    } = *ev
    else {
        return;
    };
    match msg {
        Message::Request { id, method }
            if !matches!(method, Method::Initialize { .. })
                && !initialize_answered(c, party, true) =>
        {
            // (Judged as the records stood before the request joined them.)
            c.violate_unless(
                InvariantId::NoRequestBeforeInitialize,
                Some((party, id)),
                Some(ch.confused_before),
            );
        }
        // The server's progress is a notification: none before its answer either (its work
        // starts only once it has answered). (The client's progress is about a request of the
        // server's, which the server sends only once it has answered: on a link that reorders,
        // it may reach the client, and be worked on, before the answer does.)
        Message::Activity { .. }
            if party == Party::Server && !initialize_answered(c, party, true) =>
        {
            c.violate(InvariantId::NoRequestBeforeInitialize, None);
        }
        Message::Cancel { id, session } => {
            let Some(i) = ch.rec else {
                return;
            };
            let rules = c.rules();
            let forbidden = match rules.initialize_cancel {
                InitializeCancel::Allowed => false,
                InitializeCancel::Never => true,
                InitializeCancel::NotBeforeAnswer => !initialize_answered(c, party, false),
            };
            if c.reqs[i].initialize && forbidden {
                c.violate(InvariantId::InitializeNotCancelled, Some((party, id)));
            } else if rules.negotiated
                && !session
                && c.declared_support[party.peer().index()] != Some(true)
            {
                // (A cancel of `initialize` is reported once, under the clause that names
                // it, though no capability was declared yet either.)
                c.violate(InvariantId::CapabilityGated, Some((party, id)));
            }
        }
        _ => {}
    }
}

/// Whether `initialize` is answered as far as `party` can know (the client has received the
/// answer, the server has sent it), with its result where `result` (an error answer opens no
/// session: "Until the server has responded to the `initialize` request with an
/// `InitializeResult`").
fn initialize_answered(c: &Checker, party: Party, result: bool) -> bool {
    c.reqs.iter().any(|r| {
        r.requester == Party::Client
            && r.initialize
            && !(result && r.refused)
            && match party {
                Party::Client => r.responses_received > 0,
                Party::Server => r.responses_sent > 0,
            }
    })
}
