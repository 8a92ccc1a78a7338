//! What each behaviour breaks: the invariants a named fault of `cancelcheck_model::Behaviour`
//! breaks in each dialect, by [`InvariantId`], so that a misspelt or removed invariant is a
//! compile error, and a new behaviour is one until its row below exists.

use crate::invariant::InvariantId;
use cancelcheck_model::dialect::{CancelShape, Honouring, ReceiverDuty};
use cancelcheck_model::{Behaviour, Dialect};

/// How a behaviour counts in one dialect.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Classification {
    /// The invariants it breaks there, in the order declared; empty where it is correct.
    pub breaks: &'static [InvariantId],
}

impl Classification {
    /// Whether it is a bug there: whether it breaks anything.
    pub fn faulty(self) -> bool {
        !self.breaks.is_empty()
    }
}

/// What `b` breaks wherever it applies, unless [`classify`] says otherwise for a dialect.
/// No wildcard: a new behaviour does not compile until it has its row.
fn declared(b: Behaviour) -> &'static [InvariantId] {
    use Behaviour as B;
    use InvariantId::*;
    match b {
        B::Honour | B::FinishFirst | B::Partial => &[],
        B::AnswersAfterCancel => &[NoAnswerAfterCancel],
        B::NeverAnswersCancelled => &[EventualResolution],
        B::AnswersTwice => &[SingleResolution, CancelHonoured],
        B::WrongErrorCode => &[CancelErrorCode, InternalCancelCode],
        B::IdTypeConfusion => &[ExactIdMatch, EventualResolution],
        B::IgnoresCancelForIdZero => &[NoAnswerAfterCancel, NoActivityAfterCancel],
        B::CancelCancelsAll => &[ExactIdMatch],
        B::CancelHitsOwnRequest => &[ExactIdMatch],
        B::AnswersCancelNotification => &[NotificationUnanswered],
        B::ActivityAfterAnswer => &[NoActivityAfterAnswer],
        B::ProgressAfterCancel => &[NoActivityAfterCancel],
        B::CrashesOnUnknownCancel => &[
            UnknownCancelHarmless,
            UnknownIdCancelIgnored,
            EventualResolution,
            MalformedCancelIgnored,
        ],
        B::LeaksCancelled => &[NoLeakAtQuiescence],
        B::AckDisagreesWithOutcome => &[AckAgreesWithOutcome, CancelHonoured, CancelIdempotent],
        B::SecondCancelNotCancelled => &[CancelIdempotent, AckAgreesWithOutcome],
        B::DeliversLateAnswer => &[LateAnswerIgnored],
        B::ReusesLiveId => &[NoLiveIdReuse],
        B::CancelsInitialize => &[InitializeNotCancelled],
        B::CancelsWithoutCapability => &[CapabilityGated],
        B::ServerCancels => &[CancelFromAllowedParty],
        B::ForgetsGrandchild => &[CascadeComplete, CascadeOnGiveUp],
        B::AnswersParentFirst => &[ChildrenBeforeParent],
        B::CancelsSiblingSubtree => &[SiblingsUntouched],
        B::SpawnsAfterCancel => &[NoChildAfterCancel],
        B::LeavesChildPending => &[
            EventualResolution,
            CascadeComplete,
            CascadeOnGiveUp,
            NoLeakAtQuiescence,
        ],
        B::CancelledPromptAsError => &[PromptCancelledStopReason],
        B::ForwardsCancelUnrewritten => &[CancelNamesSentRequest],
        B::GivesUpSilently => &[CancelSentOnGiveUp],
        B::CancelsAfterAnswer => &[CancelOnlyInProgress],
        B::SendsBeforeInitialize => &[NoRequestBeforeInitialize],
        B::ForgetsCompletedCall => &[CancelResultPerTable],
        B::SelectsAfterCancel => &[PermissionCancelledAfterCancel],
        B::MisusesServerCancelled => &[InternalCancelCode],
        B::CancelsTaskByNotification => &[TaskCancelledByRequest],
        // Its breaks show on Streamable HTTP only: elsewhere no stream closes.
        B::WorksAfterClose => &[CloseIsCancel, NoAnswerAfterCancel, NoActivityAfterCancel],
        // (The request it drops is never answered: reported under this rule alone.)
        B::CancelsOnDisconnect => &[DisconnectNotCancel],
    }
}

/// How `b` counts in `dialect`: `None` where it does not apply
/// ([`Behaviour::applies_to`], except where a dialect makes a correct behaviour a fault);
/// otherwise the invariants it breaks there (none where it is
/// correct). Finishing first is allowed where the receiver MAY cancel (LSP), a fault where a
/// cancelled prompt turn must end with the cancelled stop reason (ACP), and where it MUST
/// cancel (ACP RFD breaks `cancel-honoured`; MCP 2026-07-28, where nothing may follow a
/// cancel, breaks `no-answer-after-cancel` and `no-activity-after-cancel`) or SHOULD stop and
/// not answer (MCP 2025-11-25: the same two, as warnings; it MAY ignore a cancel only for a
/// request that is unknown, completed, or cannot be cancelled).
pub fn classify(b: Behaviour, dialect: Dialect) -> Option<Classification> {
    use Behaviour as B;
    use InvariantId::*;
    let r = dialect.rules();
    let must_answer = r.receiver_duty == ReceiverDuty::MustAnswer;
    let applies = b.applies_to(dialect);
    // Where the cancel is acknowledged (ABP), finishing first does not apply
    // ([`Behaviour::applies_to`]), though the receiver must honour a cancel.
    let acknowledged = r.cancel_shape == CancelShape::AcknowledgedRequest;
    let breaks: &'static [InvariantId] = match b {
        // The requests it stops without being asked are dropped unanswered (MCP): their
        // requesters, which never cancelled them, wait for ever.
        B::CancelCancelsAll if !must_answer => &[ExactIdMatch, EventualResolution],
        // A prompt turn whose cancel arrived ends cancelled, not with its ordinary end.
        B::FinishFirst if r.cancelled_result => &[PromptCancelledStopReason],
        // Where the text keeps only one give-up code from such answers (LSP's ServerCancelled),
        // -32603 for a request given up on its own is no deviation.
        B::WrongErrorCode if r.give_up.is_some_and(|g| !g.breaks(-32603)) => &[CancelErrorCode],
        B::WrongErrorCode if r.cancelled_result => &[
            CancelErrorCode,
            InternalCancelCode,
            PromptCancelledStopReason,
        ],
        // The second answer, the finished work's, ends the cancelled prompt turn normally.
        B::AnswersTwice if r.cancelled_result => &[SingleResolution, PromptCancelledStopReason],
        B::FinishFirst if !must_answer => &[NoAnswerAfterCancel, NoActivityAfterCancel],
        B::FinishFirst if r.honouring == Honouring::Must && !acknowledged => {
            if r.receiver_duty == ReceiverDuty::MustNotAnswer {
                &[NoAnswerAfterCancel]
            } else {
                &[CancelHonoured]
            }
        }
        // Where the cancelled request must stop (ACP RFD), running it on to the end is not
        // honouring the cancel.
        B::IgnoresCancelForIdZero if must_answer && applies => &[CancelHonoured],
        // The cancel meant for the peer's request is spent on its own: the peer's request
        // runs on as if never cancelled, which breaks what that dialect owes a cancel.
        // Where a request given up on its own is answered otherwise than a cancelled one
        // (LSP's ContentModified), the peer's request it then gives up is answered so, though
        // its cancel came.
        B::CancelHitsOwnRequest if applies => match (r.receiver_duty, r.honouring) {
            (ReceiverDuty::MustAnswer, Honouring::May) if r.gives_up_unlike_a_cancel() => {
                &[ExactIdMatch, CancelErrorCode]
            }
            (ReceiverDuty::MustAnswer, Honouring::May) => &[ExactIdMatch],
            (ReceiverDuty::MustAnswer, Honouring::Must) => &[ExactIdMatch, CancelHonoured],
            _ => &[ExactIdMatch, NoAnswerAfterCancel, NoActivityAfterCancel],
        },
        _ if applies => crate::dialect::reading(dialect)
            .breaks(b)
            .unwrap_or(declared(b)),
        _ => return None,
    };
    Some(Classification { breaks })
}

/// Whether `b` is a fault in `dialect` (where it does not apply, it is not).
pub fn is_fault(b: Behaviour, dialect: Dialect) -> bool {
    classify(b, dialect).is_some_and(Classification::faulty)
}

/// What `b` breaks in `dialect` besides [`classify`]'s list once requests have nested
/// requests (the trees of the built-in scenarios): what follows in a tree from what it does
/// to one request. A request left running past its cancel (or stopped without a word, or
/// lost in a crash) leaves its nested requests uncancelled (`cascade-complete`) and may send
/// more (`no-child-after-cancel`); a cancel that stops every request stops its siblings'
/// subtrees (`siblings-untouched`), or in MCP leaves their entries behind
/// (`no-leak-at-quiescence`); a parent answered at once, before its nested requests, breaks
/// `children-before-parent`; a handler that holds its answer back for its nested requests
/// answers once they resolve, even past a cancel it was ignoring (`no-answer-after-cancel`).
/// Empty where trees add nothing, and for correct behaviours.
pub fn also_with_trees(b: Behaviour, dialect: Dialect) -> &'static [InvariantId] {
    crate::dialect::reading(dialect).with_trees(b)
}

/// What `b` breaks in `dialect` besides [`classify`]'s list on Streamable HTTP, where closing a
/// request's stream is its cancel (MCP 2026-07-28): work a fault runs on past the cancel runs
/// on past the close the server read (`close-is-cancel`). Empty elsewhere, for correct
/// behaviours, and for the faults of Streamable HTTP itself, whose list already says it.
pub fn also_on_http(b: Behaviour, dialect: Dialect) -> &'static [InvariantId] {
    crate::dialect::reading(dialect).on_http(b)
}

/// The invariants `behaviour` breaks in `dialect`: those of [`classify`]'s list that apply
/// there, in the order declared (empty for a correct behaviour or one absent from the
/// dialect).
pub fn breaks_in(behaviour: Behaviour, dialect: Dialect) -> Vec<InvariantId> {
    let Some(c) = classify(behaviour, dialect) else {
        return Vec::new();
    };
    applying(c.breaks, dialect).collect()
}

/// What `behaviour` breaks in `dialect` in a run of request trees (`nesting`): [`breaks_in`]
/// and, with trees, what follows from it there ([`also_with_trees`]).
pub fn breaks_with_trees_in(
    behaviour: Behaviour,
    dialect: Dialect,
    trees: bool,
) -> Vec<InvariantId> {
    let mut all = breaks_in(behaviour, dialect);
    if trees && classify(behaviour, dialect).is_some() {
        for i in applying(also_with_trees(behaviour, dialect), dialect) {
            if !all.contains(&i) {
                all.push(i);
            }
        }
    }
    all
}

/// Those of `ids` that have an application in `dialect`.
fn applying(ids: &'static [InvariantId], dialect: Dialect) -> impl Iterator<Item = InvariantId> {
    ids.iter()
        .copied()
        .filter(move |i| i.info().application(dialect).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_breaks_an_invariant_that_applies_where_it_does() {
        for b in Behaviour::all() {
            for d in Dialect::ALL {
                let Some(c) = classify(b, d) else { continue };
                let applies = c.breaks.iter().any(|i| i.info().application(d).is_some());
                assert!(
                    !c.faulty() || applies,
                    "{b} in {d}: none of its broken invariants applies"
                );
            }
        }
    }

    /// Finishing first: a fault where a cancelled prompt turn must end with the cancelled stop
    /// reason (ACP) or where the receiver must stop (ACP RFD, where it is no correct behaviour),
    /// allowed where the receiver MAY cancel (LSP), absent from ABP, and a deviation where it
    /// SHOULD stop (MCP 2025-11-25: a warning, by the strength of the clauses it breaks).
    #[test]
    fn finishing_first_is_a_fault_where_the_receiver_must_or_should_stop() {
        let faulty = |d| classify(Behaviour::FinishFirst, d).map(Classification::faulty);
        assert_eq!(faulty(Dialect::AcpRfd), Some(true));
        assert_eq!(faulty(Dialect::Acp), Some(true));
        assert_eq!(faulty(Dialect::Lsp), Some(false));
        assert_eq!(faulty(Dialect::Abp), None);
        assert_eq!(faulty(Dialect::Mcp20251125), Some(true));
    }
}
