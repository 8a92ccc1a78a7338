//! ACP (stable): how its text reads each invariant of the catalog that applies to it (the strength,
//! the clause quoted word for word, and a note where the quotation alone does not say), in the
//! catalog's order.

use super::shared::{
    ACP_MUST_ANSWER, CRASH_ANSWERS_NOTHING, LIVE_ID_HAZARD, NAMES_ITS_OWN, RPC_CORRELATE,
    RPC_NO_REPLY, RPC_SAME_ID, SAME_ID_ACTS,
};
use super::{Breaks, Reading, Rows};
use super::{bound_by, on_wire};
use crate::invariant::InvariantId::{
    CancelErrorCode, CancelNamesSentRequest, ChildrenBeforeParent, EventualResolution,
    ExactIdMatch, InternalCancelCode, NoActivityAfterAnswer, NoLiveIdReuse, NotificationUnanswered,
    PermissionCancelledAfterCancel, PromptCancelledStopReason, RaceAnswerAfterCancel,
    RaceCancelBeforeWork, RaceCancelCrossesAnswer, RaceTimeoutWithAnswerInFlight,
    SiblingsUntouched, SingleResolution, UnknownCancelHarmless,
};
use crate::invariant::files::{ACP, JSONRPC, README as TABLE};
use cancelcheck_model::Behaviour;

/// Each invariant that applies here, with its reading.
static ROWS: Rows = &[
    (
        SingleResolution,
        at!(
            Acp,
            Must,
            ACP,
            "MUST send one of these responses for the original request"
        ),
    ),
    (EventualResolution, at!(Acp, Must, ACP, ACP_MUST_ANSWER)),
    (
        CancelErrorCode,
        at!(
            Acp,
            Must,
            ACP,
            "MUST send one of these responses for the original request: ... An error response with code -32800 (Request Cancelled)"
        ),
    ),
    (
        InternalCancelCode,
        at!(
            Acp,
            Should,
            ACP,
            "When internal cancellation occurs, the executing party SHOULD: ... Send the same -32800 (Cancelled) error response as if $/cancel_request was received"
        ),
    ),
    (
        NotificationUnanswered,
        at!(
            Acp,
            Must,
            JSONRPC,
            RPC_NO_REPLY,
            Some("ACP's $/cancel_request is a notification (acp-v1-cancellation.md)")
        ),
    ),
    (
        UnknownCancelHarmless,
        bound_by(
            at!(
                Acp,
                Must,
                TABLE,
                "If the request completed before the cancel is processed, the normal response goes out and the cancel is ignored.",
                Some(CRASH_ANSWERS_NOTHING)
            ),
            ACP_MUST_ANSWER,
        ),
    ),
    (
        ExactIdMatch,
        at!(Acp, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
    ),
    (
        CancelNamesSentRequest,
        at!(
            Acp,
            Note,
            ACP,
            "The ID of the request to cancel.",
            Some(NAMES_ITS_OWN)
        ),
    ),
    (
        NoLiveIdReuse,
        at!(Acp, Note, JSONRPC, RPC_CORRELATE, Some(LIVE_ID_HAZARD)),
    ),
    (
        NoActivityAfterAnswer,
        at!(
            Acp,
            Must,
            ACP,
            "The Agent MAY send session/update notifications with content or tool call updates after receiving the session/cancel notification, but it MUST ensure that it does so before responding to the session/prompt request.",
            Some(
                "the MUST reaches a prompt turn whose session/cancel the agent received: a session/update it sends for that turn after the cancel and after its answer to the prompt breaks it; an update after the answer of a turn never cancelled is not judged, since no sentence of the text binds it"
            )
        ),
    ),
    // ACP's agent names the session of the prompt it serves in its own requests; on a
    // stdio stream (in order), a prompt answered before the client had sent its answer to
    // such a request was answered with the request unresolved.
    (
        ChildrenBeforeParent,
        on_wire(
            at!(
                Acp,
                Must,
                ACP,
                "After all ongoing operations have been successfully aborted and pending updates have been sent, the Agent MUST respond to the original session/prompt request with the cancelled stop reason.",
                Some(
                    "the MUST orders the answer of a turn whose session/cancel the agent received after its ongoing operations are aborted, the requests it sent for the turn among them: the text's Cascading Cancellation Flow shows the agent cancelling its terminal/create and session/request_permission and the client answering each before the agent answers the prompt; a turn never cancelled is not judged, since no sentence of the text orders its answer"
                )
            ),
            true,
        ),
    ),
    (
        SiblingsUntouched,
        at!(
            Acp,
            Note,
            ACP,
            "cancel the corresponding request activity and all nested activities related to that request",
            Some(
                "the bound of a MAY: what is not related to the cancelled request is not the cancel's to stop, and no keyword forbids stopping it"
            )
        ),
    ),
    (
        PromptCancelledStopReason,
        at!(
            Acp,
            Must,
            ACP,
            "After all ongoing operations have been successfully aborted and pending updates have been sent, the Agent MUST respond to the original session/prompt request with the cancelled stop reason.",
            Some(
                "the cancelled stop reason is a result ({\"stopReason\":\"cancelled\"}): an error answer breaks it too, as the warning's 'Agents MUST catch these errors and return the semantically meaningful cancelled stop reason' says"
            )
        ),
    ),
    (
        PermissionCancelledAfterCancel,
        at!(
            Acp,
            Must,
            ACP,
            "The Client MUST respond to all pending session/request_permission requests with the cancelled outcome."
        ),
    ),
    (
        RaceCancelCrossesAnswer,
        at!(
            Acp,
            Coverage,
            TABLE,
            "If the request completed before the cancel is processed, the normal response goes out and the cancel is ignored."
        ),
    ),
    (
        RaceCancelBeforeWork,
        at!(
            Acp,
            Coverage,
            ACP,
            "MAY cancel the corresponding request activity"
        ),
    ),
    (
        RaceTimeoutWithAnswerInFlight,
        at!(
            Acp,
            Coverage,
            ACP,
            "Agent-side examples: LLM context limit reached, internal timeout, resource constraints"
        ),
    ),
    (
        RaceAnswerAfterCancel,
        at!(
            Acp,
            Coverage,
            ACP,
            "The calling side MAY implement graceful cancellation processing by waiting for the response from the remote side."
        ),
    ),
];

/// What the catalog knows of this dialect.
pub(super) static READING: Reading = Reading {
    rows: ROWS,
    vectors: ("acp.json", include_str!("../../vectors/acp.json")),
    readme_facts: &["ACP stable", "ACP prompt turns"],
    breaks,
    with_trees,
    on_http: super::nothing_more,
};

/// What a fault breaks here where that is not what it breaks wherever it applies.
fn breaks(b: Behaviour) -> Option<Breaks> {
    match b {
        // The cancel it passes on under the parent's id names no request of its sender's, or
        // another of its nested requests, whose subtree it then stops.
        Behaviour::ForwardsCancelUnrewritten => Some(&[CancelNamesSentRequest, SiblingsUntouched]),
        _ => None,
    }
}

/// What a fault also breaks here in request trees.
fn with_trees(b: Behaviour) -> Breaks {
    match b {
        // The answer it sends at once goes out before the prompt's own requests resolve.
        Behaviour::AnswersTwice => &[ChildrenBeforeParent],
        // Stopping every request stops the siblings' subtrees.
        Behaviour::CancelCancelsAll => &[SiblingsUntouched],
        _ => &[],
    }
}
