//! MCP 2025-11-25: how its text reads each invariant of the catalog that applies to it (the
//! strength, the clause quoted word for word, and a note where the quotation alone does not say),
//! in the catalog's order.

use super::shared::{
    RPC_NO_REPLY, RPC_SAME_ID, SAME_ID_ACTS, UNKNOWN_ID_ELSEWHERE, UNKNOWN_ID_NO_RACE,
};
use super::{Breaks, RUNS_ON, Reading, Rows};
use crate::invariant::InvariantId::{
    CancelNamesSentRequest, CancelOnlyInProgress, CancelSentOnGiveUp, CascadeComplete,
    DisconnectNotCancel, EventualResolution, ExactIdMatch, InitializeNotCancelled,
    LateAnswerIgnored, MalformedCancelIgnored, NoActivityAfterAnswer, NoActivityAfterCancel,
    NoAnswerAfterCancel, NoChildAfterCancel, NoLeakAtQuiescence, NoLiveIdReuse,
    NotificationUnanswered, RaceAnswerAfterCancel, RaceCancelBeforeWork, RaceCancelCrossesAnswer,
    RaceCloseCrossesAnswer, RaceProgressAfterClose, RaceResumeAfterLoss,
    RaceTimeoutWithAnswerInFlight, SingleResolution, TaskCancelledByRequest, UnknownCancelHarmless,
    UnknownIdCancelIgnored,
};
use crate::invariant::files::{JSONRPC, MCP25, README as TABLE};
use cancelcheck_model::Behaviour;

/// Each invariant that applies here, with its reading.
static ROWS: Rows = &[
    (
        SingleResolution,
        at!(
            Mcp20251125,
            Must,
            JSONRPC,
            "When a rpc call is made, the Server MUST reply with a Response"
        ),
    ),
    (
        EventualResolution,
        at!(
            Mcp20251125,
            Must,
            JSONRPC,
            "When a rpc call is made, the Server MUST reply with a Response",
            Some(
                "a request that was not cancelled is owed its answer; a cancelled one resolves at the requester when it cancels; a task's cancel, `tasks/cancel`, is a request and owed its answer"
            )
        ),
    ),
    (
        NoAnswerAfterCancel,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "Receivers of cancellation notifications SHOULD: ... Not send a response for the cancelled request",
            Some(
                "a receiver MAY ignore a cancel only for an unknown or completed request, or one that cannot be cancelled; every request the model sends can be"
            )
        ),
    ),
    (
        LateAnswerIgnored,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward"
        ),
    ),
    (
        NotificationUnanswered,
        at!(
            Mcp20251125,
            Must,
            JSONRPC,
            RPC_NO_REPLY,
            Some("notifications/cancelled is a notification (mcp-cancellation-2025-11-25.md)")
        ),
    ),
    (
        UnknownCancelHarmless,
        at!(
            Mcp20251125,
            Must,
            MCP25,
            "Both parties MUST handle these race conditions gracefully",
            Some(UNKNOWN_ID_ELSEWHERE)
        ),
    ),
    (
        UnknownIdCancelIgnored,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "Invalid cancellation notifications SHOULD be ignored: ... Unknown request IDs",
            Some(UNKNOWN_ID_NO_RACE)
        ),
    ),
    (
        ExactIdMatch,
        at!(Mcp20251125, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
    ),
    (
        CancelNamesSentRequest,
        at!(
            Mcp20251125,
            Must,
            MCP25,
            "Were previously issued in the same direction"
        ),
    ),
    (
        NoLiveIdReuse,
        at!(
            Mcp20251125,
            Must,
            TABLE,
            "request ids MUST NOT be reused within a session"
        ),
    ),
    (
        InitializeNotCancelled,
        at!(
            Mcp20251125,
            Must,
            MCP25,
            "The initialize request MUST NOT be cancelled by clients"
        ),
    ),
    (
        NoActivityAfterAnswer,
        at!(
            Mcp20251125,
            Must,
            TABLE,
            "Progress notifications (notifications/progress) MUST stop after completion."
        ),
    ),
    (
        NoActivityAfterCancel,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "Receivers of cancellation notifications SHOULD: ... Stop processing the cancelled request"
        ),
    ),
    (
        NoLeakAtQuiescence,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "Receivers of cancellation notifications SHOULD: ... Free associated resources"
        ),
    ),
    (
        CascadeComplete,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "Stop processing the cancelled request",
            Some(
                "the requests a handler sent on the cancelled request's behalf are part of its processing"
            )
        ),
    ),
    (
        NoChildAfterCancel,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "Stop processing the cancelled request"
        ),
    ),
    // Only the MCP texts speak of malformed cancels, and as a SHOULD; ACP, the ACP RFD and
    // LSP say nothing of them (what a crash then leaves unanswered is judged by the rules
    // of resolution, which their texts state), and ABP's cancel is a request of its own.
    (
        MalformedCancelIgnored,
        at!(
            Mcp20251125,
            Should,
            MCP25,
            "Invalid cancellation notifications **SHOULD** be ignored: ... Malformed notifications"
        ),
    ),
    (
        CancelSentOnGiveUp,
        at!(
            Mcp20251125,
            Should,
            TABLE,
            "On timeout the sender SHOULD send a cancel."
        ),
    ),
    (
        CancelOnlyInProgress,
        at!(
            Mcp20251125,
            Must,
            MCP25,
            "Cancellation notifications **MUST** only reference requests that: ... Are believed to still be in-progress"
        ),
    ),
    (
        TaskCancelledByRequest,
        at!(
            Mcp20251125,
            Must,
            MCP25,
            "For [task-augmented requests](https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks), the `tasks/cancel` request **MUST** be used instead of the `notifications/cancelled` notification"
        ),
    ),
    (
        DisconnectNotCancel,
        at!(
            Mcp20251125,
            Should,
            TABLE,
            "Streamable HTTP: a disconnect SHOULD NOT be taken as a cancel."
        ),
    ),
    (
        RaceCancelCrossesAnswer,
        at!(
            Mcp20251125,
            Coverage,
            MCP25,
            "potentially after a response has already been sent"
        ),
    ),
    (
        RaceCancelBeforeWork,
        at!(
            Mcp20251125,
            Coverage,
            MCP25,
            "Stop processing the cancelled request"
        ),
    ),
    (
        RaceTimeoutWithAnswerInFlight,
        at!(
            Mcp20251125,
            Coverage,
            TABLE,
            "On timeout the sender SHOULD send a cancel."
        ),
    ),
    (
        RaceAnswerAfterCancel,
        at!(
            Mcp20251125,
            Coverage,
            MCP25,
            "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward"
        ),
    ),
    (
        RaceCloseCrossesAnswer,
        at!(
            Mcp20251125,
            Coverage,
            TABLE,
            "Streamable HTTP: a disconnect SHOULD NOT be taken as a cancel."
        ),
    ),
    (
        RaceResumeAfterLoss,
        at!(
            Mcp20251125,
            Coverage,
            TABLE,
            "Streamable HTTP: a disconnect SHOULD NOT be taken as a cancel."
        ),
    ),
    (
        RaceProgressAfterClose,
        at!(
            Mcp20251125,
            Coverage,
            TABLE,
            "Progress notifications (notifications/progress) MUST stop after completion."
        ),
    ),
];

/// What the catalog knows of this dialect.
pub(super) static READING: Reading = Reading {
    rows: ROWS,
    vectors: (
        "mcp-2025-11-25.json",
        include_str!("../../vectors/mcp-2025-11-25.json"),
    ),
    readme_facts: &["MCP 2025-11-25"],
    breaks,
    with_trees,
    on_http: super::nothing_more,
};

/// What a fault breaks here where that is not what it breaks wherever it applies.
fn breaks(b: Behaviour) -> Option<Breaks> {
    match b {
        // The cancel it passes on under the parent's id names no request of its sender's, or
        // another of its nested requests, which is never answered: its requester and the
        // request it serves wait for ever, a requester that named it in a cancel still takes
        // its answer if one comes, and one already answered is cancelled after its answer
        // came ("believed to still be in-progress").
        Behaviour::ForwardsCancelUnrewritten => Some(&[
            CancelNamesSentRequest,
            EventualResolution,
            LateAnswerIgnored,
            NoLeakAtQuiescence,
            CancelOnlyInProgress,
        ]),
        _ => None,
    }
}

/// What a fault also breaks here in request trees.
fn with_trees(b: Behaviour) -> Breaks {
    match b {
        // The requests stopped, or lost in a crash, leave their entries behind.
        Behaviour::CancelCancelsAll | Behaviour::CrashesOnUnknownCancel => &[NoLeakAtQuiescence],
        Behaviour::FinishFirst
        | Behaviour::IgnoresCancelForIdZero
        | Behaviour::CancelHitsOwnRequest => RUNS_ON,
        // The handler holds its answer back for its nested requests, and sends it once they
        // resolve, past the cancel it was ignoring.
        Behaviour::ProgressAfterCancel => &[CascadeComplete, NoAnswerAfterCancel],
        _ => &[],
    }
}
