//! LSP 3.17: how its text reads each invariant of the catalog that applies to it (the strength, the
//! clause quoted word for word, and a note where the quotation alone does not say), in the
//! catalog's order.

use super::bound_by;
use super::shared::{
    CRASH_ANSWERS_NOTHING, LIVE_ID_HAZARD, NAMES_ITS_OWN, RPC_CORRELATE, RPC_NO_REPLY, RPC_SAME_ID,
    SAME_ID_ACTS,
};
use super::{Breaks, Reading, Rows};
use crate::invariant::InvariantId::{
    CancelErrorCode, CancelNamesSentRequest, EventualResolution, ExactIdMatch,
    InitializeNotCancelled, InternalCancelCode, NoLiveIdReuse, NoRequestBeforeInitialize,
    NotificationUnanswered, RaceAnswerAfterCancel, RaceCancelBeforeWork, RaceCancelCrossesAnswer,
    RaceTimeoutWithAnswerInFlight, SingleResolution, UnknownCancelHarmless,
};
use crate::invariant::files::{JSONRPC, LSP, README as TABLE};
use cancelcheck_model::Behaviour;

const LSP_EVERY_REQUEST_ANSWERED: &str =
    "Every processed request must send a response back to the sender of the request.";
const LSP_NOTHING_BEFORE_INITIALIZE: &str = "Until the server has responded to the `initialize` request with an `InitializeResult`, the client must not send any additional requests or notifications to the server.";

/// Each invariant that applies here, with its reading.
static ROWS: Rows = &[
    (
        SingleResolution,
        at!(Lsp, Must, LSP, LSP_EVERY_REQUEST_ANSWERED),
    ),
    (
        EventualResolution,
        at!(
            Lsp,
            Must,
            LSP,
            LSP_EVERY_REQUEST_ANSWERED,
            Some(
                "a cancelled request too: 'A request that got canceled still needs to return from the server and send a response back'"
            )
        ),
    ),
    (
        CancelErrorCode,
        at!(
            Lsp,
            Must,
            TABLE,
            "MUST still answer: result, partial result, or error -32800"
        ),
    ),
    (
        InternalCancelCode,
        at!(
            Lsp,
            Should,
            LSP,
            "This error code should only be used for requests that explicitly support being server cancellable.",
            Some(
                "the code is ServerCancelled (-32802); no request the model sends supports being server cancellable (the pull diagnostics do; workspace/executeCommand and workspace/configuration do not), so a request given up on its own and answered -32802 breaks it; the model's server answers ContentModified (-32801), which the text lets a server use for a request whose result a change of state made useless"
            )
        ),
    ),
    (
        NotificationUnanswered,
        at!(
            Lsp,
            Must,
            JSONRPC,
            RPC_NO_REPLY,
            Some("LSP's $/cancelRequest is a notification (README.md)")
        ),
    ),
    (
        UnknownCancelHarmless,
        bound_by(
            at!(
                Lsp,
                Must,
                TABLE,
                "A request that got canceled still needs to return from the server and send a response back.",
                Some(CRASH_ANSWERS_NOTHING)
            ),
            LSP_EVERY_REQUEST_ANSWERED,
        ),
    ),
    (
        ExactIdMatch,
        at!(Lsp, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
    ),
    (
        CancelNamesSentRequest,
        at!(
            Lsp,
            Note,
            LSP,
            "The request id to cancel.",
            Some(NAMES_ITS_OWN)
        ),
    ),
    (
        NoLiveIdReuse,
        at!(Lsp, Note, JSONRPC, RPC_CORRELATE, Some(LIVE_ID_HAZARD)),
    ),
    (
        InitializeNotCancelled,
        at!(
            Lsp,
            Must,
            LSP,
            LSP_NOTHING_BEFORE_INITIALIZE,
            Some(
                "before the answer only: once the client has it, a cancel of initialize names a finished request, which no sentence forbids"
            )
        ),
    ),
    (
        NoRequestBeforeInitialize,
        at!(
            Lsp,
            Must,
            LSP,
            LSP_NOTHING_BEFORE_INITIALIZE,
            Some(
                "the server's half ('the server is not allowed to send any requests or notifications to the client until it has responded with an InitializeResult', but window/showMessage, window/logMessage, telemetry/event and window/showMessageRequest while it holds initialize) is the next sentence"
            )
        ),
    ),
    (
        RaceCancelCrossesAnswer,
        at!(
            Lsp,
            Coverage,
            TABLE,
            "A request that got canceled still needs to return from the server and send a response back."
        ),
    ),
    (
        RaceCancelBeforeWork,
        at!(
            Lsp,
            Coverage,
            TABLE,
            "A request that got canceled still needs to return from the server and send a response back."
        ),
    ),
    (
        RaceTimeoutWithAnswerInFlight,
        at!(
            Lsp,
            Coverage,
            TABLE,
            "A request that got canceled still needs to return from the server and send a response back."
        ),
    ),
    (
        RaceAnswerAfterCancel,
        at!(
            Lsp,
            Coverage,
            TABLE,
            "A request that got canceled still needs to return from the server and send a response back."
        ),
    ),
];

/// What the catalog knows of this dialect.
pub(super) static READING: Reading = Reading {
    rows: ROWS,
    vectors: ("lsp.json", include_str!("../../vectors/lsp.json")),
    readme_facts: &["LSP 3.17"],
    breaks,
    with_trees: super::nothing_more,
    on_http: super::nothing_more,
};

/// What a fault breaks here where that is not what it breaks wherever it applies.
fn breaks(b: Behaviour) -> Option<Breaks> {
    match b {
        // Its answer to `initialize`, under the other type's id, answers nothing: its own
        // requests then go out before `initialize` is answered.
        Behaviour::IdTypeConfusion => {
            Some(&[ExactIdMatch, EventualResolution, NoRequestBeforeInitialize])
        }
        _ => None,
    }
}
