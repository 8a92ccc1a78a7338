//! The ACP RFD of 2025-11: how its text reads each invariant of the catalog that applies to it (the
//! strength, the clause quoted word for word, and a note where the quotation alone does not say),
//! in the catalog's order.

use super::shared::{
    ACP_MUST_ANSWER, CRASH_ANSWERS_NOTHING, LIVE_ID_HAZARD, NAMES_ITS_OWN, RPC_CORRELATE,
    RPC_NO_REPLY, RPC_SAME_ID, SAME_ID_ACTS,
};
use super::{Breaks, RUNS_ON, Reading, Rows};
use super::{bound_by, on_wire};
use crate::invariant::Application;
use crate::invariant::InvariantId::{
    CancelErrorCode, CancelHonoured, CancelNamesSentRequest, CapabilityGated, CascadeComplete,
    CascadeOnGiveUp, EventualResolution, ExactIdMatch, InitializeNotCancelled, InternalCancelCode,
    NoChildAfterCancel, NoChildAfterGiveUp, NoLeakAtQuiescence, NoLiveIdReuse,
    NotificationUnanswered, RaceAnswerAfterCancel, RaceCancelBeforeWork, RaceCancelCrossesAnswer,
    RaceTimeoutWithAnswerInFlight, SiblingsUntouched, SingleResolution, UndeclaredCancelIgnored,
    UnknownCancelHarmless,
};
use crate::invariant::files::{JSONRPC, RFD};
use cancelcheck_model::Behaviour;

/// Why a crash on a cancel that changes nothing breaks the MUST of answering every request.
/// The ACP RFD's reading of the rules of a request given up on its own.
const RFD_GIVE_UP_STOPS: Application = at!(
    AcpRfd,
    Should,
    RFD,
    "When internal cancellation occurs, the executing party SHOULD: ... Stop the request processing immediately",
    Some(GIVE_UP_STOPS)
);
const GIVE_UP_STOPS: &str = "the requests a party sent on a request's behalf are part of that request's processing: stopping it stops them, as 'Ensure consistent behavior regardless of cancellation source' asks; the MUST of 'MUST cancel the corresponding request activity and all nested activities' is of a $/cancelRequest received (cascade-complete, no-child-after-cancel)";

/// Each invariant that applies here, with its reading.
static ROWS: Rows = &[
    (
        SingleResolution,
        at!(
            AcpRfd,
            Must,
            RFD,
            "MUST send one of these responses for the original request"
        ),
    ),
    (EventualResolution, at!(AcpRfd, Must, RFD, ACP_MUST_ANSWER)),
    (
        CancelErrorCode,
        at!(
            AcpRfd,
            Must,
            RFD,
            "MUST send one of these responses for the original request: ... Error response with code -32800 (Cancelled)"
        ),
    ),
    (
        InternalCancelCode,
        at!(
            AcpRfd,
            Should,
            RFD,
            "When internal cancellation occurs, the executing party SHOULD: ... Send the same -32800 (Cancelled) error response as if $/cancelRequest was received"
        ),
    ),
    (
        NotificationUnanswered,
        at!(
            AcpRfd,
            Must,
            JSONRPC,
            RPC_NO_REPLY,
            Some(
                "the RFD's $/cancelRequest 'uses JSON-RPC 2.0 notification format' (acp-rfd-request-cancellation.md)"
            )
        ),
    ),
    (
        UnknownCancelHarmless,
        bound_by(
            at!(
                AcpRfd,
                Must,
                RFD,
                "Ignore the subsequent cancellation notification for that request ID",
                Some(CRASH_ANSWERS_NOTHING)
            ),
            ACP_MUST_ANSWER,
        ),
    ),
    (
        ExactIdMatch,
        at!(AcpRfd, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
    ),
    (
        CancelNamesSentRequest,
        at!(
            AcpRfd,
            Note,
            RFD,
            "ID of request to cancel",
            Some(NAMES_ITS_OWN)
        ),
    ),
    (
        NoLiveIdReuse,
        at!(AcpRfd, Note, JSONRPC, RPC_CORRELATE, Some(LIVE_ID_HAZARD)),
    ),
    (
        InitializeNotCancelled,
        at!(
            AcpRfd,
            Must,
            RFD,
            "The initialize request CANNOT be cancelled"
        ),
    ),
    (
        CapabilityGated,
        at!(
            AcpRfd,
            Must,
            RFD,
            "The calling party (sender of $/cancelRequest) MUST: ... Check the recipient's capabilities before sending $/cancelRequest"
        ),
    ),
    (
        UndeclaredCancelIgnored,
        at!(
            AcpRfd,
            Must,
            RFD,
            "A party MUST declare { cancellation: { request: true } } in their capabilities to handle $/cancelRequest notifications for their requests"
        ),
    ),
    (
        NoLeakAtQuiescence,
        at!(
            AcpRfd,
            Note,
            RFD,
            "Clean up resources associated with the entire request tree",
            Some(
                "the RFD's FAQ writes 'should' in lower case, which the RFD, writing its keywords in capitals, does not make a SHOULD"
            )
        ),
    ),
    (
        CancelHonoured,
        at!(
            AcpRfd,
            Must,
            RFD,
            "MUST cancel the corresponding request activity and all nested activities"
        ),
    ),
    (
        CascadeComplete,
        at!(
            AcpRfd,
            Must,
            RFD,
            "MUST cancel the corresponding request activity and all nested activities"
        ),
    ),
    (CascadeOnGiveUp, RFD_GIVE_UP_STOPS),
    // The agent's requests name the session of the prompt they serve; a barrier proves
    // the agent had read the cancel before it sent one. MCP's requests name no parent.
    (
        NoChildAfterCancel,
        on_wire(
            at!(
                AcpRfd,
                Must,
                RFD,
                "MUST cancel the corresponding request activity and all nested activities"
            ),
            true,
        ),
    ),
    (NoChildAfterGiveUp, RFD_GIVE_UP_STOPS),
    (
        SiblingsUntouched,
        at!(
            AcpRfd,
            Note,
            RFD,
            "Individual JSON-RPC request cancellation without affecting other concurrent requests",
            Some("a goal the RFD states without a keyword")
        ),
    ),
    (
        RaceCancelCrossesAnswer,
        at!(
            AcpRfd,
            Coverage,
            RFD,
            "If a request completes normally before the cancellation notification is processed"
        ),
    ),
    (
        RaceCancelBeforeWork,
        at!(
            AcpRfd,
            Coverage,
            RFD,
            "MUST cancel the corresponding request activity"
        ),
    ),
    (
        RaceTimeoutWithAnswerInFlight,
        at!(
            AcpRfd,
            Coverage,
            RFD,
            "Agent-side examples: LLM context limit reached, internal timeout, resource constraints"
        ),
    ),
    (
        RaceAnswerAfterCancel,
        at!(
            AcpRfd,
            Coverage,
            RFD,
            "Send the normal response (not a cancellation error)"
        ),
    ),
];

/// What the catalog knows of this dialect.
pub(super) static READING: Reading = Reading {
    rows: ROWS,
    vectors: ("acp-rfd.json", include_str!("../../vectors/acp-rfd.json")),
    readme_facts: &[],
    breaks,
    with_trees,
    on_http: super::nothing_more,
};

/// What a fault breaks here where that is not what it breaks wherever it applies.
fn breaks(b: Behaviour) -> Option<Breaks> {
    match b {
        // The requester waits for the cancelled request's answer, which the handler holds
        // until its children are resolved: a repeated cancel then finds the child sent after
        // the first one, which the handler never cancels.
        Behaviour::SpawnsAfterCancel => Some(&[NoChildAfterCancel, CascadeComplete]),
        // The cancel it passes on under the parent's id names no request of its sender's, or
        // another of its nested requests, whose subtree it then stops; the child meant runs on
        // (the cascade is incomplete).
        Behaviour::ForwardsCancelUnrewritten => Some(&[
            CancelNamesSentRequest,
            SiblingsUntouched,
            CascadeComplete,
            CascadeOnGiveUp,
        ]),
        _ => None,
    }
}

/// What a fault also breaks here in request trees.
fn with_trees(b: Behaviour) -> Breaks {
    match b {
        Behaviour::CancelCancelsAll => &[SiblingsUntouched],
        Behaviour::FinishFirst
        | Behaviour::IgnoresCancelForIdZero
        | Behaviour::CancelHitsOwnRequest => RUNS_ON,
        // A request stopped without a word, or lost in a crash, leaves its nested requests
        // uncancelled and held.
        Behaviour::NeverAnswersCancelled | Behaviour::CrashesOnUnknownCancel => {
            &[CascadeComplete, CascadeOnGiveUp, NoLeakAtQuiescence]
        }
        Behaviour::AnswersTwice => &[CascadeComplete],
        _ => &[],
    }
}
