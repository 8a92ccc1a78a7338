//! What a behaviour decides at the endpoint's decision points: the one place a fault (or a
//! choice the texts leave open, such as finishing first) departs from the protocol.
//!
//! The endpoint implements the protocol and asks its [`Policy`] at each named point; each
//! method takes or returns what a correct party does there, and only the behaviours that act at
//! that point answer otherwise. So the correct protocol reads in `endpoint/` alone, and a fault
//! reads here whole: which points it acts at and what it does instead.

use crate::behaviour::Behaviour;
use crate::id::RequestId;
use crate::message::{Ack, Reply};
use crate::request::{Completion, Incoming};

/// A behaviour as the endpoint consults it. Copy, one byte: asking costs a comparison.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Policy(Behaviour);

/// How a responder ends a request it stops for a cancel (see [`Policy::ends_cancelled`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Ending {
    /// Cancelled: answered (`true`) or dropped unanswered.
    Cancelled(bool),
    /// Answered as completed (a partial result).
    Completed,
    /// Left noted with no work behind it, never freed (the faulty `leaks-cancelled`).
    Leaked,
}

/// What a responder does with a cancel for a request still open and not yet noted (see
/// [`Policy::heeds`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Heed {
    /// Stops the work and answers as the dialect requires.
    Stop,
    /// Notes the cancel and lets the running work finish (finishing first).
    Note,
    /// Reads the cancel of a queued request, which still runs and answers in full.
    Read,
    /// Acknowledges the cancel and does nothing else (the faulty
    /// `ack-disagrees-with-outcome`).
    AckOnly,
    /// Answers it cancelled and acknowledges, but never stops the work (the faulty
    /// `answers-twice`).
    AnswerOnly,
}

impl Policy {
    /// The policy of `b`.
    pub(crate) fn of(b: Behaviour) -> Policy {
        Policy(b)
    }

    // ---------------------------------------------------------------- session

    /// Whether ordinary requests go out while `initialize` is unanswered (correct: no).
    #[inline]
    pub(crate) fn sends_before_ready(self) -> bool {
        self.0 == Behaviour::SendsBeforeInitialize
    }

    /// Whether a server takes the close of a request's stream for its cancel; `by_rule` is
    /// what the dialect says.
    #[inline]
    pub(crate) fn stream_close_cancels(self, by_rule: bool) -> bool {
        match self.0 {
            Behaviour::WorksAfterClose => false,
            Behaviour::CancelsOnDisconnect => true,
            _ => by_rule,
        }
    }

    // ---------------------------------------------------------------- requester

    /// Whether a new request takes the id of one given up whose answer may still come
    /// (correct: never).
    #[inline]
    pub(crate) fn reuses_live_ids(self) -> bool {
        self.0 == Behaviour::ReusesLiveId
    }

    /// Whether `initialize` is cancelled where the dialect forbids it (correct: no).
    #[inline]
    pub(crate) fn cancels_initialize(self) -> bool {
        self.0 == Behaviour::CancelsInitialize
    }

    /// Whether the user's cancel of an answered request is sent anyway (correct: refused).
    #[inline]
    pub(crate) fn cancels_answered(self) -> bool {
        self.0 == Behaviour::CancelsAfterAnswer
    }

    /// Whether a server sends cancels where only the client may (correct: no).
    #[inline]
    pub(crate) fn server_cancels(self) -> bool {
        self.0 == Behaviour::ServerCancels
    }

    /// Whether a cancel goes to a peer that did not declare it takes them (correct: no).
    #[inline]
    pub(crate) fn ignores_negotiation(self) -> bool {
        self.0 == Behaviour::CancelsWithoutCapability
    }

    /// Whether a task-augmented request is cancelled by the task's own cancel (correct: yes;
    /// the faulty `cancels-task-by-notification` sends the generic one).
    #[inline]
    pub(crate) fn cancels_tasks_as_tasks(self) -> bool {
        self.0 != Behaviour::CancelsTaskByNotification
    }

    /// The id a cascade's cancel of `child` names: the child's own (the faulty
    /// `forwards-cancel-unrewritten` passes it on under its `parent`'s).
    #[inline]
    pub(crate) fn cascade_names(self, child: RequestId, parent: RequestId) -> RequestId {
        if self.0 == Behaviour::ForwardsCancelUnrewritten {
            parent
        } else {
            child
        }
    }

    /// Whether a cancel of the user's or a timeout's is sent to the peer (correct: yes; the
    /// faulty `gives-up-silently` gives up without telling it).
    #[inline]
    pub(crate) fn tells_the_peer(self) -> bool {
        self.0 != Behaviour::GivesUpSilently
    }

    /// Whether the answer to a request given up is delivered when it comes (correct: it is
    /// ignored).
    #[inline]
    pub(crate) fn delivers_late_answers(self) -> bool {
        self.0 == Behaviour::DeliversLateAnswer
    }

    /// Whether a client that cancelled a prompt turn answers the requests it serves as
    /// cancelled (correct: yes; the faulty `selects-after-cancel` answers them as they end).
    #[inline]
    pub(crate) fn ends_turn_requests(self) -> bool {
        self.0 != Behaviour::SelectsAfterCancel
    }

    // ---------------------------------------------------------------- request trees

    /// Whether a cascade from `parent` reaches a sent request made on behalf of `of` (correct:
    /// exactly when `of` is `parent`).
    #[inline]
    pub(crate) fn cascade_reaches(self, of: Option<RequestId>, parent: RequestId) -> bool {
        match self.0 {
            Behaviour::ForgetsGrandchild => false,
            Behaviour::CancelsSiblingSubtree => of.is_some(),
            _ => of == Some(parent),
        }
    }

    /// Whether an answer waits for the requests sent on the request's behalf (correct: yes).
    #[inline]
    pub(crate) fn waits_for_children(self) -> bool {
        self.0 != Behaviour::AnswersParentFirst
    }

    // ---------------------------------------------------------------- responder

    /// Whether a cancel stops the request's work (correct: yes; the faulty
    /// `spawns-after-cancel` answers and lets it run on, sending requests and ending quietly).
    #[inline]
    pub(crate) fn stops_work(self) -> bool {
        self.0 != Behaviour::SpawnsAfterCancel
    }

    /// What a request given up on the party's own account is answered: `correct`, unless the
    /// fault answers another code (`reserved`: the dialect's code for a server's own cancel;
    /// `read`: a cancel for it was read, so the correct answer is the cancel's).
    #[inline]
    pub(crate) fn gives_up_with(self, correct: Reply, read: bool, reserved: Option<i64>) -> Reply {
        match (self.0, reserved) {
            (Behaviour::WrongErrorCode, _) => Reply::Error(-32603),
            (Behaviour::MisusesServerCancelled, Some(code)) if !read => Reply::Error(code),
            _ => correct,
        }
    }

    /// The id an answer carries for request `id` (correct: `id` as it came).
    #[inline]
    pub(crate) fn answer_id(self, id: RequestId) -> RequestId {
        if self.0 == Behaviour::IdTypeConfusion {
            id.coerced()
        } else {
            id
        }
    }

    /// Whether an activity notification follows an answer (correct: never).
    #[inline]
    pub(crate) fn activity_after_answer(self) -> bool {
        self.0 == Behaviour::ActivityAfterAnswer
    }

    /// Whether work whose cancel was noted is dropped unanswered when it ends (correct: it is
    /// answered).
    #[inline]
    pub(crate) fn drops_noted_work(self) -> bool {
        self.0 == Behaviour::ProgressAfterCancel
    }

    /// Whether work answered already answers again when it ends (correct: never).
    #[inline]
    pub(crate) fn answers_again(self) -> bool {
        self.0 == Behaviour::AnswersTwice
    }

    /// Whether a cancel notification is answered as if it were a request (correct: never).
    #[inline]
    pub(crate) fn answers_cancel_notifications(self) -> bool {
        self.0 == Behaviour::AnswersCancelNotification
    }

    /// Whether a received cancel is looked up among the requests this party sent (correct:
    /// never: it names the peer's request).
    #[inline]
    pub(crate) fn cancel_hits_own_requests(self) -> bool {
        self.0 == Behaviour::CancelHitsOwnRequest
    }

    /// Whether a cancel naming `id` is taken for one naming nothing (correct: never).
    #[inline]
    pub(crate) fn overlooks(self, id: RequestId) -> bool {
        self.0 == Behaviour::IgnoresCancelForIdZero && id.is_falsy()
    }

    /// Whether one cancel stops every open request (correct: only the one it names).
    #[inline]
    pub(crate) fn cancel_stops_all(self) -> bool {
        self.0 == Behaviour::CancelCancelsAll
    }

    /// Whether a cancel for no open request, or a malformed one, crashes the party (correct:
    /// it is ignored or answered as the dialect says).
    #[inline]
    pub(crate) fn crashes_on_unknown_cancel(self) -> bool {
        self.0 == Behaviour::CrashesOnUnknownCancel
    }

    /// The acknowledgement of a cancel for a request already ended in `state`: `correct`,
    /// unless the fault misreports it.
    #[inline]
    pub(crate) fn acks_ended(self, correct: Ack, state: Incoming, unknown: Ack) -> Ack {
        match self.0 {
            Behaviour::SecondCancelNotCancelled if correct.cancelled => Ack {
                cancelled: false,
                ..correct
            },
            // The faulty app dropped the call from its table when it answered it.
            Behaviour::ForgetsCompletedCall
                if state == Incoming::Answered(Completion::Completed) =>
            {
                unknown
            }
            _ => correct,
        }
    }

    /// What a cancel does to a request in `state`, open and not yet noted; `acked`: the cancel
    /// is acknowledged.
    #[inline]
    pub(crate) fn heeds(self, state: Incoming, acked: bool) -> Heed {
        match (self.0, state) {
            (Behaviour::FinishFirst | Behaviour::ProgressAfterCancel, Incoming::Working) => {
                Heed::Note
            }
            (Behaviour::FinishFirst, _) => Heed::Read,
            (Behaviour::AckDisagreesWithOutcome, _) if acked => Heed::AckOnly,
            (Behaviour::AnswersTwice, Incoming::Working) => Heed::AnswerOnly,
            _ => Heed::Stop,
        }
    }

    /// How a request stopped for a cancel ends, and its answer, where the behaviour departs
    /// from the dialect; `None`: as the dialect requires. `must_answer`: the dialect requires
    /// an answer; `partial`: it allows a partial result; `code`: its cancel error code.
    #[inline]
    pub(crate) fn ends_cancelled(
        self,
        must_answer: bool,
        partial: bool,
        code: Option<i64>,
    ) -> Option<(Ending, Option<Reply>)> {
        Some(match self.0 {
            Behaviour::LeaksCancelled => (Ending::Leaked, must_answer.then_some(Reply::Cancelled)),
            Behaviour::Partial if partial => (Ending::Completed, Some(Reply::Partial)),
            Behaviour::WrongErrorCode if must_answer => {
                (Ending::Cancelled(true), Some(Reply::Error(-32603)))
            }
            Behaviour::CancelledPromptAsError if must_answer => (
                Ending::Cancelled(true),
                Some(Reply::Error(code.unwrap_or(-32800))),
            ),
            Behaviour::NeverAnswersCancelled | Behaviour::LeavesChildPending => {
                (Ending::Cancelled(false), None)
            }
            Behaviour::AnswersAfterCancel => (Ending::Cancelled(true), Some(Reply::Cancelled)),
            _ => return None,
        })
    }
}
