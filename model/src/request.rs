//! Per-request state machines, one for each side, drawn on the types.
//!
//! ```text
//! requester:  Pending ──cancel──▶ CancelRequested ──answer──▶ Done
//!                │  └──cancel (no wait)──▶ Abandoned  (late answers ignored)
//!                └────────answer───────────────────────────▶ Done
//!
//! responder:  Queued ──worker free──▶ Working ──work done──▶ Answered(Completed)
//!               │                        ├──cancel, honour──▶ Answered(Cancelled) | Dropped
//!               │                        └──cancel, finish first──▶ CancelNoted ──done──▶ Answered(Completed)
//!               └──cancel (skipped, never started)──▶ Answered(Cancelled) | Dropped
//! ```
//!
//! Every transition is a function returning `Result`: an input that does not fit the state is
//! an [`IllegalTransition`] value for the caller to report, never a panic.

use crate::message::{Ack, AckReason};
use cancelcheck_derive::{Finite, Relabel};

/// The requester's view of one request it sent.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Finite, Relabel)]
pub enum Outgoing {
    /// Sent; no cancel yet.
    Pending,
    /// A cancel was sent and the requester waits for the answer the dialect guarantees.
    CancelRequested(crate::message::CancelCause),
    /// Resolved locally at cancel time; any answer that still arrives is ignored.
    Abandoned(crate::message::CancelCause),
    /// The answer arrived and was delivered, or the connection closed.
    Done,
}

impl Outgoing {
    /// Whether the requester still awaits an answer (it holds live state for the request).
    pub fn is_open(self) -> bool {
        matches!(self, Outgoing::Pending | Outgoing::CancelRequested(_))
    }
}

/// How an answered request ended on the responder.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Finite, Relabel)]
pub enum Completion {
    /// Its work finished (or produced a partial result) and the result was sent.
    Completed,
    /// It was cancelled and the cancel answer was sent.
    Cancelled,
}

/// The responder's view of one request it received.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Finite, Relabel)]
pub enum Incoming {
    /// Received; waiting for a free worker.
    Queued,
    /// Its work is running.
    Working,
    /// Its work is running; a cancel arrived and the responder chose to finish first.
    CancelNoted,
    /// The answer went out. Terminal.
    Answered(Completion),
    /// Finished without an answer (a cancelled request under MCP's rules). Terminal.
    Dropped,
}

impl Incoming {
    /// Whether the responder still holds live state (work queued or running) for the request.
    pub fn is_open(self) -> bool {
        matches!(
            self,
            Incoming::Queued | Incoming::Working | Incoming::CancelNoted
        )
    }

    /// Whether work is running.
    pub fn is_working(self) -> bool {
        matches!(self, Incoming::Working | Incoming::CancelNoted)
    }
}

/// An input that does not fit the request's state: reported as a value, never a panic.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct IllegalTransition {
    /// The state the request was in.
    pub from: Incoming,
    /// What was attempted.
    pub attempted: Transition,
}

/// The responder-side transitions, named.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Transition {
    /// A worker picked the request up.
    Start,
    /// The work finished and its result is sent.
    Complete,
    /// A cancel is honoured.
    Cancel,
    /// A cancel is noted; the work goes on.
    NoteCancel,
}

impl Incoming {
    /// `Queued → Working`.
    pub fn start(self) -> Result<Incoming, IllegalTransition> {
        match self {
            Incoming::Queued => Ok(Incoming::Working),
            from => Err(IllegalTransition {
                from,
                attempted: Transition::Start,
            }),
        }
    }

    /// `Working | CancelNoted → Answered(Completed)`.
    pub fn complete(self) -> Result<Incoming, IllegalTransition> {
        match self {
            Incoming::Working | Incoming::CancelNoted => {
                Ok(Incoming::Answered(Completion::Completed))
            }
            from => Err(IllegalTransition {
                from,
                attempted: Transition::Complete,
            }),
        }
    }

    /// An open request honours a cancel: it ends answered (`answers`) or dropped.
    pub fn cancel(self, answers: bool) -> Result<Incoming, IllegalTransition> {
        match self {
            s if s.is_open() => Ok(if answers {
                Incoming::Answered(Completion::Cancelled)
            } else {
                Incoming::Dropped
            }),
            from => Err(IllegalTransition {
                from,
                attempted: Transition::Cancel,
            }),
        }
    }

    /// `Working → CancelNoted` (finish first). Queued requests note the cancel too: they will
    /// still run.
    pub fn note_cancel(self) -> Result<Incoming, IllegalTransition> {
        match self {
            Incoming::Working | Incoming::CancelNoted => Ok(Incoming::CancelNoted),
            from => Err(IllegalTransition {
                from,
                attempted: Transition::NoteCancel,
            }),
        }
    }
}

/// The acknowledged-cancel rule (ABP `capabilities/cancel`), as a pure function of the
/// request's state (`None`: the id is unknown). Returns the state after the cancel and the
/// acknowledgement:
///
/// | state                  | after                 | ack                                   |
/// |------------------------|-----------------------|---------------------------------------|
/// | unknown                | unknown               | `false`, "Operation not found"        |
/// | queued / working       | `Answered(Cancelled)` | `true`                                |
/// | `Answered(Completed)`  | unchanged             | `false`, "Operation already completed"|
/// | `Answered(Cancelled)`, `Dropped` | unchanged   | `true` (idempotent)                   |
///
/// (`app-call-cancellation.md`, "Edge Cases" and "Timing Considerations".)
pub fn acknowledged_cancel(state: Option<Incoming>) -> (Option<Incoming>, Ack) {
    match state {
        None => (
            None,
            Ack {
                cancelled: false,
                reason: AckReason::NotFound,
            },
        ),
        Some(s) if s.is_open() => (
            Some(Incoming::Answered(Completion::Cancelled)),
            Ack::CANCELLED,
        ),
        Some(Incoming::Answered(Completion::Completed)) => (
            state,
            Ack {
                cancelled: false,
                reason: AckReason::AlreadyCompleted,
            },
        ),
        Some(_) => (state, Ack::CANCELLED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illegal_transitions_are_values() {
        let err = Incoming::Dropped.complete().unwrap_err();
        assert_eq!(err.attempted, Transition::Complete);
        assert!(
            Incoming::Answered(Completion::Completed)
                .cancel(true)
                .is_err()
        );
        assert!(Incoming::Working.start().is_err());
        assert_eq!(Incoming::Queued.start(), Ok(Incoming::Working));
    }

    #[test]
    fn acknowledged_cancel_is_idempotent() {
        let (s1, a1) = acknowledged_cancel(Some(Incoming::Working));
        let (s2, a2) = acknowledged_cancel(s1);
        assert_eq!(a1, a2);
        assert_eq!(s1, s2);
        let (_, done) = acknowledged_cancel(Some(Incoming::Answered(Completion::Completed)));
        assert_eq!(done.reason, AckReason::AlreadyCompleted);
        assert_eq!(acknowledged_cancel(None).1.reason, AckReason::NotFound);
    }
}
