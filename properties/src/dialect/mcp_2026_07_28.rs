//! MCP 2026-07-28: how its text reads each invariant of the catalog that applies to it (the
//! strength, the clause quoted word for word, and a note where the quotation alone does not say),
//! in the catalog's order.

use super::shared::{RPC_NO_REPLY, SAME_ID_ACTS, UNKNOWN_ID_ELSEWHERE, UNKNOWN_ID_NO_RACE};
use super::{Breaks, RUNS_ON, Reading, Rows};
use crate::invariant::InvariantId::{
    CancelFromAllowedParty, CancelNamesSentRequest, CancelOnlyInProgress, CancelSentOnGiveUp,
    CascadeComplete, CloseIsCancel, EventualResolution, ExactIdMatch, LateAnswerIgnored,
    MalformedCancelIgnored, NoActivityAfterCancel, NoAnswerAfterCancel, NoChildAfterCancel,
    NoLeakAtQuiescence, NoLiveIdReuse, NotificationUnanswered, RaceAnswerAfterCancel,
    RaceCancelBeforeWork, RaceCancelCrossesAnswer, RaceCloseCrossesAnswer,
    RaceTimeoutWithAnswerInFlight, SingleResolution, UnknownCancelHarmless, UnknownIdCancelIgnored,
};
use crate::invariant::files::{JSONRPC, MCP26, README as TABLE};
use cancelcheck_model::Behaviour;

/// MCP 2026-07-28's stdio transport: what a server owes a request the client cancelled.
const MCP26_NOTHING_FURTHER: &str = "Servers **SHOULD** stop work on a cancelled request as soon as practical and **MUST NOT** send any further messages for it.";

/// Each invariant that applies here, with its reading.
static ROWS: Rows = &[
    (
        SingleResolution,
        at!(
            Mcp20260728,
            Must,
            JSONRPC,
            "When a rpc call is made, the Server MUST reply with a Response"
        ),
    ),
    (
        EventualResolution,
        at!(
            Mcp20260728,
            Must,
            JSONRPC,
            "When a rpc call is made, the Server MUST reply with a Response",
            Some(
                "a request that was not cancelled is owed its answer; a cancelled one resolves at the requester when it cancels"
            )
        ),
    ),
    (
        NoAnswerAfterCancel,
        at!(Mcp20260728, Must, MCP26, MCP26_NOTHING_FURTHER),
    ),
    (
        LateAnswerIgnored,
        at!(
            Mcp20260728,
            Should,
            MCP26,
            "The client **SHOULD** ignore any response to the cancelled request that arrives afterward"
        ),
    ),
    (
        NotificationUnanswered,
        at!(
            Mcp20260728,
            Must,
            JSONRPC,
            RPC_NO_REPLY,
            Some("notifications/cancelled is a notification (mcp-2026-07-28-cancellation.md)")
        ),
    ),
    (
        UnknownCancelHarmless,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            "Both parties MUST handle these race conditions gracefully",
            Some(UNKNOWN_ID_ELSEWHERE)
        ),
    ),
    (
        UnknownIdCancelIgnored,
        at!(
            Mcp20260728,
            Should,
            MCP26,
            "Invalid cancellation notifications SHOULD be ignored: ... Unknown request IDs",
            Some(UNKNOWN_ID_NO_RACE)
        ),
    ),
    (
        ExactIdMatch,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            "Result responses **MUST** include the same ID as the request they correspond to.",
            Some(SAME_ID_ACTS)
        ),
    ),
    (
        CancelNamesSentRequest,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            "Were previously issued by the client",
            Some(
                "a cancel names a request the client sent (a cancel from the server is cancel-from-allowed-party's)"
            )
        ),
    ),
    (
        NoLiveIdReuse,
        at!(
            Mcp20260728,
            Note,
            TABLE,
            "since a cancelled request never gets one, when its id may be reused is unstated: model that as a hazard",
            Some("a hazard, not a MUST: the text does not say when a cancelled id may be reused")
        ),
    ),
    (
        NoActivityAfterCancel,
        at!(Mcp20260728, Must, MCP26, MCP26_NOTHING_FURTHER),
    ),
    (
        NoLeakAtQuiescence,
        at!(
            Mcp20260728,
            Should,
            MCP26,
            "Servers receiving cancellation notifications **SHOULD**: ... Free associated resources"
        ),
    ),
    (
        CancelFromAllowedParty,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            "Servers **MUST NOT** send `notifications/cancelled` for any other purpose.",
            Some(
                "the one purpose the page allows a server, ending a subscriptions/listen stream it tears down, the model does not have (it has no subscriptions): every notifications/cancelled a server sends there is for another purpose"
            )
        ),
    ),
    (
        CascadeComplete,
        at!(
            Mcp20260728,
            Should,
            MCP26,
            "Stop processing the cancelled request",
            Some(
                "the requests a handler sent on the cancelled request's behalf are part of its processing; a server, which may not cancel, gives its own up"
            )
        ),
    ),
    (
        NoChildAfterCancel,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            MCP26_NOTHING_FURTHER,
            Some("a request sent on the cancelled request's behalf is such a message")
        ),
    ),
    (
        MalformedCancelIgnored,
        at!(
            Mcp20260728,
            Should,
            MCP26,
            "Invalid cancellation notifications **SHOULD** be ignored: ... Malformed notifications"
        ),
    ),
    (
        CancelSentOnGiveUp,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            "The client **MUST** send a `notifications/cancelled` notification referencing the request ID.",
            Some(
                "on stdio, the model's transport for it: the page's 'A client SHOULD send a cancellation notification' leaves to the client whether to cancel at all; one that gives a request up (its application cancels, or its timeout fires and it stops waiting) has cancelled it, and this sentence, like the stdio page's 'To cancel an in-flight request, the client MUST send', says how"
            )
        ),
    ),
    (
        CancelOnlyInProgress,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            "Cancellation notifications **MUST** only reference requests that: ... Are believed to still be in-progress"
        ),
    ),
    (
        CloseIsCancel,
        at!(
            Mcp20260728,
            Must,
            MCP26,
            "The server **MUST** treat a client disconnect as cancellation of that request."
        ),
    ),
    (
        RaceCancelCrossesAnswer,
        at!(
            Mcp20260728,
            Coverage,
            MCP26,
            "potentially after a response has already been sent"
        ),
    ),
    (
        RaceCancelBeforeWork,
        at!(
            Mcp20260728,
            Coverage,
            MCP26,
            "Stop processing the cancelled request"
        ),
    ),
    (
        RaceTimeoutWithAnswerInFlight,
        at!(
            Mcp20260728,
            Coverage,
            MCP26,
            "**stdio**: sending a `notifications/cancelled` notification referencing the request ID."
        ),
    ),
    (
        RaceAnswerAfterCancel,
        at!(
            Mcp20260728,
            Coverage,
            MCP26,
            "The client **SHOULD** ignore any response to the cancelled request that arrives afterward"
        ),
    ),
    (
        RaceCloseCrossesAnswer,
        at!(
            Mcp20260728,
            Coverage,
            MCP26,
            "Closing the SSE response stream is the cancellation signal."
        ),
    ),
];

/// What the catalog knows of this dialect.
pub(super) static READING: Reading = Reading {
    rows: ROWS,
    vectors: (
        "mcp-2026-07-28.json",
        include_str!("../../vectors/mcp-2026-07-28.json"),
    ),
    readme_facts: &["MCP 2026-07-28"],
    breaks: super::as_declared,
    with_trees,
    on_http,
};

/// What a fault also breaks here in request trees.
fn with_trees(b: Behaviour) -> Breaks {
    match b {
        // The requests stopped, or lost in a crash, leave their entries behind.
        Behaviour::CancelCancelsAll | Behaviour::CrashesOnUnknownCancel => &[NoLeakAtQuiescence],
        Behaviour::IdTypeConfusion => &[NoLeakAtQuiescence],
        Behaviour::FinishFirst
        | Behaviour::IgnoresCancelForIdZero
        | Behaviour::CancelHitsOwnRequest => RUNS_ON,
        // The work it keeps running past the close goes on sending nested requests.
        Behaviour::WorksAfterClose => RUNS_ON,
        // The handler holds its answer back for its nested requests, and sends it once they
        // resolve, past the cancel it was ignoring.
        Behaviour::ProgressAfterCancel => &[CascadeComplete, NoAnswerAfterCancel],
        _ => &[],
    }
}

/// What a fault also breaks here on Streamable HTTP.
fn on_http(b: Behaviour) -> Breaks {
    match b {
        // The work it runs on past the cancel runs on past the close the server read.
        Behaviour::ProgressAfterCancel | Behaviour::IgnoresCancelForIdZero => &[CloseIsCancel],
        _ => &[],
    }
}
