//! App-call cancellation (ABP): how its text reads each invariant of the catalog that applies to it
//! (the strength, the clause quoted word for word, and a note where the quotation alone does not
//! say), in the catalog's order.

use super::{Reading, Rows};
use crate::invariant::InvariantId::{
    AckAgreesWithOutcome, CancelHonoured, CancelIdempotent, CancelNamesSentRequest,
    CancelResultPerTable, EventualResolution, ExactIdMatch, NoLiveIdReuse, RaceAnswerAfterCancel,
    RaceCancelBeforeWork, RaceCancelCrossesAnswer, RaceTimeoutWithAnswerInFlight, SingleResolution,
    UnknownCancelHarmless,
};
use crate::invariant::files::ABP;

/// Why a rule of ABP is a note: its text states behaviour in tables and lists without a keyword.
const ABP_STATES: &str = "stated in the text's table (or timing list) without a keyword: its one MUST is the agent's callId";

/// Each invariant that applies here, with its reading.
static ROWS: Rows = &[
    (
        SingleResolution,
        at!(
            Abp,
            Note,
            ABP,
            "Call completes while cancel in flight | Call result returned normally",
            Some(ABP_STATES)
        ),
    ),
    (
        EventualResolution,
        at!(
            Abp,
            Note,
            ABP,
            "Cancel arrives during operation: Operation is aborted, response has cancelled: true",
            Some(ABP_STATES)
        ),
    ),
    (
        UnknownCancelHarmless,
        at!(
            Abp,
            Note,
            ABP,
            "Cancel non-existent callId | Return { cancelled: false, reason: 'Operation not found' }",
            Some(ABP_STATES)
        ),
    ),
    (
        ExactIdMatch,
        at!(
            Abp,
            Note,
            ABP,
            "Every capability call includes acallId for identification",
            Some(ABP_STATES)
        ),
    ),
    (
        CancelNamesSentRequest,
        at!(
            Abp,
            Note,
            ABP,
            "Every capability call includes acallId for identification",
            Some(
                "stated without a keyword: a cancel names a call by the callId of a call its sender made (the app answers one naming no call 'Operation not found', cancel-result-per-table's)"
            )
        ),
    ),
    (
        NoLiveIdReuse,
        at!(
            Abp,
            Must,
            ABP,
            "the agent-side library MUST generate a unique identifier"
        ),
    ),
    (
        AckAgreesWithOutcome,
        at!(
            Abp,
            Note,
            ABP,
            "Call completes while cancel in flight | Call result returned normally, cancel returns { cancelled: false }",
            Some(ABP_STATES)
        ),
    ),
    (
        CancelIdempotent,
        at!(
            Abp,
            Note,
            ABP,
            "Multiple cancels for same callId | All return same result (idempotent)",
            Some(ABP_STATES)
        ),
    ),
    // No no-leak-at-quiescence: no sentence of its text asks an app to free a cancelled call, and its
    // idempotency row ("Cancel already-cancelled callId | Return { cancelled: true }")
    // has the app remember one.
    (
        CancelHonoured,
        at!(
            Abp,
            Note,
            ABP,
            "Cancel arrives during operation: Operation is aborted, response has cancelled: true",
            Some(ABP_STATES)
        ),
    ),
    (
        CancelResultPerTable,
        at!(
            Abp,
            Note,
            ABP,
            "Cancel without active session | Return error { code: 'NOT_INITIALIZED' }",
            Some(ABP_STATES)
        ),
    ),
    (
        RaceCancelCrossesAnswer,
        at!(Abp, Coverage, ABP, "Call completes while cancel in flight"),
    ),
    (
        RaceCancelBeforeWork,
        at!(
            Abp,
            Coverage,
            ABP,
            "Cancel arrives before operation starts: Operation is skipped"
        ),
    ),
    (
        RaceTimeoutWithAnswerInFlight,
        at!(
            Abp,
            Coverage,
            ABP,
            "timeout option | Agent, at call time | Automatic, after specified duration"
        ),
    ),
    (
        RaceAnswerAfterCancel,
        at!(
            Abp,
            Coverage,
            ABP,
            "Cancel arrives after completion: Cancel response has cancelled: false, original result is returned"
        ),
    ),
];

/// What the catalog knows of this dialect.
pub(super) static READING: Reading = Reading {
    rows: ROWS,
    vectors: ("abp.json", include_str!("../../vectors/abp.json")),
    readme_facts: &["ABP"],
    breaks: super::as_declared,
    with_trees: super::nothing_more,
    on_http: super::nothing_more,
};
