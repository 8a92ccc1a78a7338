//! The catalog's rows: every invariant, with each dialect's reading of it (strength, quoted
//! clause, note).

use super::*;
use files::{ABP, ACP, JSONRPC, LSP, MCP25, MCP26, README as TABLE, RFD};

macro_rules! at {
    ($d:ident, $s:ident, $file:expr, $clause:expr) => {
        at!($d, $s, $file, $clause, None)
    };
    ($d:ident, $s:ident, $file:expr, $clause:expr, $note:expr) => {
        Application {
            dialect: Dialect::$d,
            strength: Strength::$s,
            clause: SpecRef {
                file: $file,
                clause: $clause,
            },
            note: $note,
            bound_by: None,
            on_wire: None,
        }
    };
}

/// `a`, whose quotation carries no keyword, bound by `sentence` of its dialect's texts, whose
/// keyword is its strength ([`Application::bound_by`]).
const fn bound_by(a: Application, sentence: &'static str) -> Application {
    Application {
        bound_by: Some(sentence),
        ..a
    }
}

/// `a`, decided on the wire in its dialect as `on_wire` says, whatever the invariant says
/// elsewhere.
const fn on_wire(a: Application, on_wire: bool) -> Application {
    Application {
        on_wire: Some(on_wire),
        ..a
    }
}

const ACP_MUST_ANSWER: &str = "MUST send one of these responses for the original request";
/// Why a rule of ABP is a note: its text states behaviour in tables and lists without a keyword.
const ABP_STATES: &str = "stated in the text's table (or timing list) without a keyword: its one MUST is the agent's callId";

/// Why reusing a live id is a note where JSON-RPC alone speaks of ids.
const LIVE_ID_HAZARD: &str = "a hazard, not a rule: while a message about the earlier request may still arrive, the id no longer tells the two apart, but 'used to correlate' states no duty on a requester's choice of ids";

/// MCP 2026-07-28's stdio transport: what a server owes a request the client cancelled.
const MCP26_NOTHING_FURTHER: &str = "Servers **SHOULD** stop work on a cancelled request as soon as practical and **MUST NOT** send any further messages for it.";
const RPC_SAME_ID: &str =
    "It MUST be the same as the value of the id member in the Request Object.";
const RPC_NO_REPLY: &str = "The Server MUST NOT reply to a Notification";
const LSP_EVERY_REQUEST_ANSWERED: &str =
    "Every processed request must send a response back to the sender of the request.";
const LSP_NOTHING_BEFORE_INITIALIZE: &str = "Until the server has responded to the `initialize` request with an `InitializeResult`, the client must not send any additional requests or notifications to the server.";
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
const UNKNOWN_ID_ELSEWHERE: &str = "a cancel for a request its receiver has received (held, or finished before the cancel arrived) is the race the sentence covers; one naming an id the receiver never received a request under is unknown to it, and unknown-id-cancel-ignored's";
const UNKNOWN_ID_NO_RACE: &str = "an id the receiver never received a request under (never used, or its request overtaken by the cancel) is unknown to it, not the race of a cancel arriving 'after request processing has completed' that the MUST of 'Both parties MUST handle these race conditions gracefully' covers (unknown-cancel-harmless)";
const CRASH_ANSWERS_NOTHING: &str = "stated without a keyword; a receiver that crashes on such a cancel leaves the requests it holds without the response the dialect's MUST owes each of them (stopping other work for it is exact-id-match's)";
const RPC_CORRELATE: &str = "This member is used to correlate the context between the two objects.";
/// How JSON-RPC's sentence on a response's id reaches what a message acts on.
const SAME_ID_ACTS: &str = "the sentence binds a response to the request whose id it carries; the catalog holds a cancel, and the work it stops, to the same correlation: stopping or answering as cancelled a request no cancel named breaks it (a cancel naming no request of its sender's is cancel-names-sent-request's)";
/// Why naming a request its sender never sent is a note where the text only describes the id.
const NAMES_ITS_OWN: &str = "the cancel's schema says what its id is, without a keyword: a cancel under an id its sender never sent in that direction (a cancel passed on under the id of the request it came from) names none of its requests";

/// The catalog, in [`InvariantId`] order.
pub static CATALOG: [Invariant; 45] = [
    Invariant {
        id: InvariantId::SingleResolution,
        name: "single-resolution",
        kind: Expectation::Always,
        statement: "Each request is answered at most once, and its requester resolves it to its application at most once.",
        observable_on_wire: true,
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "MUST send one of these responses for the original request"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "MUST send one of these responses for the original request"
            ),
            at!(
                Mcp20251125,
                Must,
                JSONRPC,
                "When a rpc call is made, the Server MUST reply with a Response"
            ),
            at!(
                Mcp20260728,
                Must,
                JSONRPC,
                "When a rpc call is made, the Server MUST reply with a Response"
            ),
            at!(Lsp, Must, LSP, LSP_EVERY_REQUEST_ANSWERED),
            at!(
                Abp,
                Note,
                ABP,
                "Call completes while cancel in flight | Call result returned normally",
                Some(ABP_STATES)
            ),
        ],
    },
    Invariant {
        id: InvariantId::EventualResolution,
        name: "eventual-resolution",
        kind: Expectation::Eventually,
        statement: "Once nothing is left to happen, every request is resolved at its requester (answer, cancel, or disconnect), unless a message its resolution depends on (the request or its answer) was lost; the verdict names each such loss.",
        observable_on_wire: false,
        applies: &[
            at!(Acp, Must, ACP, ACP_MUST_ANSWER),
            at!(AcpRfd, Must, RFD, ACP_MUST_ANSWER),
            at!(
                Mcp20251125,
                Must,
                JSONRPC,
                "When a rpc call is made, the Server MUST reply with a Response",
                Some(
                    "a request that was not cancelled is owed its answer; a cancelled one resolves at the requester when it cancels; a task's cancel, `tasks/cancel`, is a request and owed its answer"
                )
            ),
            at!(
                Mcp20260728,
                Must,
                JSONRPC,
                "When a rpc call is made, the Server MUST reply with a Response",
                Some(
                    "a request that was not cancelled is owed its answer; a cancelled one resolves at the requester when it cancels"
                )
            ),
            at!(
                Lsp,
                Must,
                LSP,
                LSP_EVERY_REQUEST_ANSWERED,
                Some(
                    "a cancelled request too: 'A request that got canceled still needs to return from the server and send a response back'"
                )
            ),
            at!(
                Abp,
                Note,
                ABP,
                "Cancel arrives during operation: Operation is aborted, response has cancelled: true",
                Some(ABP_STATES)
            ),
        ],
    },
    Invariant {
        id: InvariantId::NoAnswerAfterCancel,
        name: "no-answer-after-cancel",
        kind: Expectation::Always,
        statement: "After receiving a cancel for a request it still held open, the receiver sends no answer for it.",
        observable_on_wire: true,
        applies: &[
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Receivers of cancellation notifications SHOULD: ... Not send a response for the cancelled request",
                Some(
                    "a receiver MAY ignore a cancel only for an unknown or completed request, or one that cannot be cancelled; every request the model sends can be"
                )
            ),
            at!(Mcp20260728, Must, MCP26, MCP26_NOTHING_FURTHER),
        ],
    },
    Invariant {
        id: InvariantId::LateAnswerIgnored,
        name: "late-answer-ignored",
        kind: Expectation::Always,
        statement: "A requester that cancelled a request does not deliver an answer that arrives afterward to its application.",
        observable_on_wire: false,
        applies: &[
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward"
            ),
            at!(
                Mcp20260728,
                Should,
                MCP26,
                "The client **SHOULD** ignore any response to the cancelled request that arrives afterward"
            ),
        ],
    },
    Invariant {
        id: InvariantId::CancelErrorCode,
        name: "cancel-error-code",
        kind: Expectation::Always,
        statement: "An error answering a cancelled request carries code -32800 (Request Cancelled).",
        observable_on_wire: true,
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "MUST send one of these responses for the original request: ... An error response with code -32800 (Request Cancelled)"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "MUST send one of these responses for the original request: ... Error response with code -32800 (Cancelled)"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "MUST still answer: result, partial result, or error -32800"
            ),
        ],
    },
    Invariant {
        id: InvariantId::InternalCancelCode,
        name: "internal-cancel-code",
        kind: Expectation::Always,
        statement: "A receiver that gives up a request on its own (a timeout, a resource limit, a change of state) and answers it with an error uses the code its text names: -32800, as if it had been cancelled (ACP, ACP RFD); never ServerCancelled (-32802) for a request that does not support it (LSP).",
        observable_on_wire: false,
        applies: &[
            at!(
                Acp,
                Should,
                ACP,
                "When internal cancellation occurs, the executing party SHOULD: ... Send the same -32800 (Cancelled) error response as if $/cancel_request was received"
            ),
            at!(
                AcpRfd,
                Should,
                RFD,
                "When internal cancellation occurs, the executing party SHOULD: ... Send the same -32800 (Cancelled) error response as if $/cancelRequest was received"
            ),
            at!(
                Lsp,
                Should,
                LSP,
                "This error code should only be used for requests that explicitly support being server cancellable.",
                Some(
                    "the code is ServerCancelled (-32802); no request the model sends supports being server cancellable (the pull diagnostics do; workspace/executeCommand and workspace/configuration do not), so a request given up on its own and answered -32802 breaks it; the model's server answers ContentModified (-32801), which the text lets a server use for a request whose result a change of state made useless"
                )
            ),
        ],
    },
    Invariant {
        id: InvariantId::NotificationUnanswered,
        name: "notification-unanswered",
        kind: Expectation::Always,
        statement: "The cancel notification itself is never answered.",
        observable_on_wire: true,
        applies: &[
            at!(
                Acp,
                Must,
                JSONRPC,
                RPC_NO_REPLY,
                Some("ACP's $/cancel_request is a notification (acp-v1-cancellation.md)")
            ),
            at!(
                AcpRfd,
                Must,
                JSONRPC,
                RPC_NO_REPLY,
                Some(
                    "the RFD's $/cancelRequest 'uses JSON-RPC 2.0 notification format' (acp-rfd-request-cancellation.md)"
                )
            ),
            at!(
                Mcp20251125,
                Must,
                JSONRPC,
                RPC_NO_REPLY,
                Some("notifications/cancelled is a notification (mcp-cancellation-2025-11-25.md)")
            ),
            at!(
                Mcp20260728,
                Must,
                JSONRPC,
                RPC_NO_REPLY,
                Some("notifications/cancelled is a notification (mcp-2026-07-28-cancellation.md)")
            ),
            at!(
                Lsp,
                Must,
                JSONRPC,
                RPC_NO_REPLY,
                Some("LSP's $/cancelRequest is a notification (README.md)")
            ),
        ],
    },
    Invariant {
        id: InvariantId::UnknownCancelHarmless,
        name: "unknown-cancel-harmless",
        kind: Expectation::Always,
        statement: "A cancel for an unknown or finished request changes nothing: the receiver neither crashes nor stops other work.",
        observable_on_wire: true,
        applies: &[
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
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Both parties MUST handle these race conditions gracefully",
                Some(UNKNOWN_ID_ELSEWHERE)
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Both parties MUST handle these race conditions gracefully",
                Some(UNKNOWN_ID_ELSEWHERE)
            ),
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
            at!(
                Abp,
                Note,
                ABP,
                "Cancel non-existent callId | Return { cancelled: false, reason: 'Operation not found' }",
                Some(ABP_STATES)
            ),
        ],
    },
    Invariant {
        id: InvariantId::UnknownIdCancelIgnored,
        name: "unknown-id-cancel-ignored",
        kind: Expectation::Always,
        statement: "A cancel naming an id its receiver has never received a request under (never used, or its request still on its way) changes nothing: the receiver neither crashes nor stops other work. (Where a dialect's text does not set such ids apart, unknown-cancel-harmless judges them.)",
        observable_on_wire: true,
        applies: &[
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Invalid cancellation notifications SHOULD be ignored: ... Unknown request IDs",
                Some(UNKNOWN_ID_NO_RACE)
            ),
            at!(
                Mcp20260728,
                Should,
                MCP26,
                "Invalid cancellation notifications SHOULD be ignored: ... Unknown request IDs",
                Some(UNKNOWN_ID_NO_RACE)
            ),
        ],
    },
    Invariant {
        id: InvariantId::ExactIdMatch,
        name: "exact-id-match",
        kind: Expectation::Always,
        statement: "Answers and cancels act on exactly the request whose id they carry, compared by JSON type and value (7 is not \"7\"), in the direction the request went; no other request is affected.",
        observable_on_wire: true,
        applies: &[
            at!(Acp, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
            at!(AcpRfd, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
            at!(Mcp20251125, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Result responses **MUST** include the same ID as the request they correspond to.",
                Some(SAME_ID_ACTS)
            ),
            at!(Lsp, Must, JSONRPC, RPC_SAME_ID, Some(SAME_ID_ACTS)),
            at!(
                Abp,
                Note,
                ABP,
                "Every capability call includes acallId for identification",
                Some(ABP_STATES)
            ),
        ],
    },
    Invariant {
        id: InvariantId::CancelNamesSentRequest,
        name: "cancel-names-sent-request",
        kind: Expectation::Always,
        statement: "A cancel names a request its sender sent, in the direction the cancel goes: one passed on to a request sent on another's behalf carries that request's id, not the id of the request it came from.",
        // The wire shows every request each side sent, and under which id.
        observable_on_wire: true,
        applies: &[
            at!(
                Acp,
                Note,
                ACP,
                "The ID of the request to cancel.",
                Some(NAMES_ITS_OWN)
            ),
            at!(
                AcpRfd,
                Note,
                RFD,
                "ID of request to cancel",
                Some(NAMES_ITS_OWN)
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Were previously issued in the same direction"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Were previously issued by the client",
                Some(
                    "a cancel names a request the client sent (a cancel from the server is cancel-from-allowed-party's)"
                )
            ),
            at!(
                Lsp,
                Note,
                LSP,
                "The request id to cancel.",
                Some(NAMES_ITS_OWN)
            ),
            at!(
                Abp,
                Note,
                ABP,
                "Every capability call includes acallId for identification",
                Some(
                    "stated without a keyword: a cancel names a call by the callId of a call its sender made (the app answers one naming no call 'Operation not found', cancel-result-per-table's)"
                )
            ),
        ],
    },
    Invariant {
        id: InvariantId::NoLiveIdReuse,
        name: "no-live-id-reuse",
        kind: Expectation::Always,
        statement: "A requester does not reuse an id while any message about the earlier request with that id may still arrive after the new one: its answer or a copy of it, a progress notification, a cancel acknowledgement, or (on a link that may reorder) a cancel still on its way to the receiver (MCP 2025-11-25 and ABP: never within a session).",
        observable_on_wire: true,
        applies: &[
            at!(Acp, Note, JSONRPC, RPC_CORRELATE, Some(LIVE_ID_HAZARD)),
            at!(AcpRfd, Note, JSONRPC, RPC_CORRELATE, Some(LIVE_ID_HAZARD)),
            at!(
                Mcp20251125,
                Must,
                TABLE,
                "request ids MUST NOT be reused within a session"
            ),
            at!(
                Mcp20260728,
                Note,
                TABLE,
                "since a cancelled request never gets one, when its id may be reused is unstated: model that as a hazard",
                Some(
                    "a hazard, not a MUST: the text does not say when a cancelled id may be reused"
                )
            ),
            at!(Lsp, Note, JSONRPC, RPC_CORRELATE, Some(LIVE_ID_HAZARD)),
            at!(
                Abp,
                Must,
                ABP,
                "the agent-side library MUST generate a unique identifier"
            ),
        ],
    },
    Invariant {
        id: InvariantId::InitializeNotCancelled,
        name: "initialize-not-cancelled",
        kind: Expectation::Always,
        statement: "No cancel is sent for the initialize request.",
        observable_on_wire: true,
        applies: &[
            at!(
                AcpRfd,
                Must,
                RFD,
                "The initialize request CANNOT be cancelled"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "The initialize request MUST NOT be cancelled by clients"
            ),
            at!(
                Lsp,
                Must,
                LSP,
                LSP_NOTHING_BEFORE_INITIALIZE,
                Some(
                    "before the answer only: once the client has it, a cancel of initialize names a finished request, which no sentence forbids"
                )
            ),
        ],
    },
    Invariant {
        id: InvariantId::CapabilityGated,
        name: "capability-gated",
        kind: Expectation::Always,
        statement: "A cancel is sent only after initialize, and only to a peer that declared cancellation: {request: true}.",
        observable_on_wire: true,
        applies: &[at!(
            AcpRfd,
            Must,
            RFD,
            "The calling party (sender of $/cancelRequest) MUST: ... Check the recipient's capabilities before sending $/cancelRequest"
        )],
    },
    Invariant {
        id: InvariantId::UndeclaredCancelIgnored,
        name: "undeclared-cancel-ignored",
        kind: Expectation::Always,
        statement: "A party that declared no support for cancels (`cancellation: {request: true}`) does not act on one it receives: the request it names is neither stopped nor answered as cancelled because of it. (Sending it is capability-gated's.)",
        // The declaration is in the initialize exchange, the cancel and the answer after it.
        observable_on_wire: true,
        applies: &[at!(
            AcpRfd,
            Must,
            RFD,
            "A party MUST declare { cancellation: { request: true } } in their capabilities to handle $/cancelRequest notifications for their requests"
        )],
    },
    Invariant {
        id: InvariantId::NoActivityAfterAnswer,
        name: "no-activity-after-answer",
        kind: Expectation::Always,
        statement: "No progress or update notification for a request follows its answer.",
        observable_on_wire: true,
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "The Agent MAY send session/update notifications with content or tool call updates after receiving the session/cancel notification, but it MUST ensure that it does so before responding to the session/prompt request.",
                Some(
                    "the MUST reaches a prompt turn whose session/cancel the agent received: a session/update it sends for that turn after the cancel and after its answer to the prompt breaks it; an update after the answer of a turn never cancelled is not judged, since no sentence of the text binds it"
                )
            ),
            at!(
                Mcp20251125,
                Must,
                TABLE,
                "Progress notifications (notifications/progress) MUST stop after completion."
            ),
        ],
    },
    Invariant {
        id: InvariantId::NoActivityAfterCancel,
        name: "no-activity-after-cancel",
        kind: Expectation::Always,
        statement: "After receiving a cancel for a request it still held open, the receiver sends no progress or other notification about it.",
        observable_on_wire: true,
        applies: &[
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Receivers of cancellation notifications SHOULD: ... Stop processing the cancelled request"
            ),
            at!(Mcp20260728, Must, MCP26, MCP26_NOTHING_FURTHER),
        ],
    },
    Invariant {
        id: InvariantId::AckAgreesWithOutcome,
        name: "ack-agrees-with-outcome",
        kind: Expectation::Always,
        statement: "A cancel acknowledgement's `cancelled` agrees with the call's result: true iff the result carries cancelled: true.",
        observable_on_wire: true,
        applies: &[at!(
            Abp,
            Note,
            ABP,
            "Call completes while cancel in flight | Call result returned normally, cancel returns { cancelled: false }",
            Some(ABP_STATES)
        )],
    },
    Invariant {
        id: InvariantId::CancelIdempotent,
        name: "cancel-idempotent",
        kind: Expectation::Always,
        statement: "Every cancel of the same known call gets the same `cancelled` answer.",
        observable_on_wire: true,
        applies: &[at!(
            Abp,
            Note,
            ABP,
            "Multiple cancels for same callId | All return same result (idempotent)",
            Some(ABP_STATES)
        )],
    },
    Invariant {
        id: InvariantId::NoLeakAtQuiescence,
        name: "no-leak-at-quiescence",
        kind: Expectation::Eventually,
        statement: "Once nothing is left to happen, no party still holds a received request.",
        observable_on_wire: false,
        applies: &[
            at!(
                AcpRfd,
                Note,
                RFD,
                "Clean up resources associated with the entire request tree",
                Some(
                    "the RFD's FAQ writes 'should' in lower case, which the RFD, writing its keywords in capitals, does not make a SHOULD"
                )
            ),
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Receivers of cancellation notifications SHOULD: ... Free associated resources"
            ),
            at!(
                Mcp20260728,
                Should,
                MCP26,
                "Servers receiving cancellation notifications **SHOULD**: ... Free associated resources"
            ),
            // Not ABP: no sentence of its text asks an app to free a cancelled call, and its
            // idempotency row ("Cancel already-cancelled callId | Return { cancelled: true }")
            // has the app remember one.
        ],
    },
    Invariant {
        id: InvariantId::CancelHonoured,
        name: "cancel-honoured",
        kind: Expectation::Always,
        statement: "A receiver that gets a cancel for a request in progress stops it: it does not answer with the full result.",
        observable_on_wire: true,
        applies: &[
            at!(
                AcpRfd,
                Must,
                RFD,
                "MUST cancel the corresponding request activity and all nested activities"
            ),
            at!(
                Abp,
                Note,
                ABP,
                "Cancel arrives during operation: Operation is aborted, response has cancelled: true",
                Some(ABP_STATES)
            ),
        ],
    },
    Invariant {
        id: InvariantId::CancelFromAllowedParty,
        name: "cancel-from-allowed-party",
        kind: Expectation::Always,
        statement: "Only a party the dialect lets cancel sends a cancel: in MCP 2026-07-28, the client alone.",
        observable_on_wire: true,
        applies: &[at!(
            Mcp20260728,
            Must,
            MCP26,
            "Servers **MUST NOT** send `notifications/cancelled` for any other purpose.",
            Some(
                "the one purpose the page allows a server, ending a subscriptions/listen stream it tears down, the model does not have (it has no subscriptions): every notifications/cancelled a server sends there is for another purpose"
            )
        )],
    },
    Invariant {
        id: InvariantId::CascadeComplete,
        name: "cascade-complete",
        kind: Expectation::Eventually,
        statement: "When a party takes a cancel for a request it handles (or gives it up on its own), it cancels, or gives up, every request it sent on that request's behalf and that is still unresolved; each of those ends resolved. Applied level by level, the cancel reaches every descendant of the cancelled request.",
        observable_on_wire: false,
        applies: &[
            at!(
                AcpRfd,
                Must,
                RFD,
                "MUST cancel the corresponding request activity and all nested activities"
            ),
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Stop processing the cancelled request",
                Some(
                    "the requests a handler sent on the cancelled request's behalf are part of its processing"
                )
            ),
            at!(
                Mcp20260728,
                Should,
                MCP26,
                "Stop processing the cancelled request",
                Some(
                    "the requests a handler sent on the cancelled request's behalf are part of its processing; a server, which may not cancel, gives its own up"
                )
            ),
        ],
    },
    Invariant {
        id: InvariantId::CascadeOnGiveUp,
        name: "cascade-on-give-up",
        kind: Expectation::Eventually,
        statement: "When a party gives a request it handles up on its own, it cancels, or gives up, every request it sent on that request's behalf and that is still unresolved, as for a cancel it received; each of those ends resolved. (Where a dialect's text does not set a give-up apart from a cancel received, cascade-complete judges it.)",
        observable_on_wire: false,
        applies: &[RFD_GIVE_UP_STOPS],
    },
    Invariant {
        id: InvariantId::ChildrenBeforeParent,
        name: "children-before-parent",
        kind: Expectation::Always,
        statement: "An agent that took the cancel of a prompt turn (ACP `session/cancel`) answers the prompt only after every request it sent on the turn's behalf is resolved: its own requests are cancelled and answered before the prompt's answer.",
        observable_on_wire: false,
        // ACP's agent names the session of the prompt it serves in its own requests; on a
        // stdio stream (in order), a prompt answered before the client had sent its answer to
        // such a request was answered with the request unresolved.
        applies: &[on_wire(
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
        )],
    },
    Invariant {
        id: InvariantId::NoChildAfterCancel,
        name: "no-child-after-cancel",
        kind: Expectation::Always,
        statement: "A party sends no new request on behalf of a request it handles once it has taken a cancel for that request (or given it up on its own).",
        observable_on_wire: false,
        applies: &[
            // The agent's requests name the session of the prompt they serve; a barrier proves
            // the agent had read the cancel before it sent one. MCP's requests name no parent.
            on_wire(
                at!(
                    AcpRfd,
                    Must,
                    RFD,
                    "MUST cancel the corresponding request activity and all nested activities"
                ),
                true,
            ),
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Stop processing the cancelled request"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                MCP26_NOTHING_FURTHER,
                Some("a request sent on the cancelled request's behalf is such a message")
            ),
        ],
    },
    Invariant {
        id: InvariantId::NoChildAfterGiveUp,
        name: "no-child-after-give-up",
        kind: Expectation::Always,
        statement: "A party sends no new request on behalf of a request it handles once it has given it up on its own. (Where a dialect's text does not set a give-up apart from a cancel received, no-child-after-cancel judges it.)",
        observable_on_wire: false,
        applies: &[RFD_GIVE_UP_STOPS],
    },
    Invariant {
        id: InvariantId::SiblingsUntouched,
        name: "siblings-untouched",
        kind: Expectation::Always,
        statement: "A cancel's cascade reaches only the requests sent on behalf of the cancelled request: a party cancels or gives up a request of its own only when its application asks, its timeout fires, or the request it serves was cancelled.",
        observable_on_wire: false,
        applies: &[
            at!(
                Acp,
                Note,
                ACP,
                "cancel the corresponding request activity and all nested activities related to that request",
                Some(
                    "the bound of a MAY: what is not related to the cancelled request is not the cancel's to stop, and no keyword forbids stopping it"
                )
            ),
            at!(
                AcpRfd,
                Note,
                RFD,
                "Individual JSON-RPC request cancellation without affecting other concurrent requests",
                Some("a goal the RFD states without a keyword")
            ),
        ],
    },
    Invariant {
        id: InvariantId::PromptCancelledStopReason,
        name: "prompt-cancelled-stop-reason",
        kind: Expectation::Always,
        statement: "A prompt turn whose cancel (`session/cancel`) reached the agent before it answered is answered with the result `{\"stopReason\":\"cancelled\"}`: not an error, not the turn's ordinary end.",
        observable_on_wire: true,
        applies: &[at!(
            Acp,
            Must,
            ACP,
            "After all ongoing operations have been successfully aborted and pending updates have been sent, the Agent MUST respond to the original session/prompt request with the cancelled stop reason.",
            Some(
                "the cancelled stop reason is a result ({\"stopReason\":\"cancelled\"}): an error answer breaks it too, as the warning's 'Agents MUST catch these errors and return the semantically meaningful cancelled stop reason' says"
            )
        )],
    },
    Invariant {
        id: InvariantId::MalformedCancelIgnored,
        name: "malformed-cancel-ignored",
        kind: Expectation::Always,
        statement: "A malformed cancel (no id, or an id of the wrong type) is ignored: its receiver neither crashes on it nor acts on it.",
        observable_on_wire: true,
        // Only the MCP texts speak of malformed cancels, and as a SHOULD; ACP, the ACP RFD and
        // LSP say nothing of them (what a crash then leaves unanswered is judged by the rules
        // of resolution, which their texts state), and ABP's cancel is a request of its own.
        applies: &[
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Invalid cancellation notifications **SHOULD** be ignored: ... Malformed notifications"
            ),
            at!(
                Mcp20260728,
                Should,
                MCP26,
                "Invalid cancellation notifications **SHOULD** be ignored: ... Malformed notifications"
            ),
        ],
    },
    Invariant {
        id: InvariantId::CancelSentOnGiveUp,
        name: "cancel-sent-on-give-up",
        kind: Expectation::Always,
        statement: "A requester that gives a request up (its application cancels it, or its timeout fires) sends the cancel that tells the receiver, where its dialect's text asks for one: in MCP 2025-11-25 on a timeout, in MCP 2026-07-28 on stdio whenever the client gives one up.",
        // What a requester gives up happens inside it: the wire shows a cancel, or nothing.
        observable_on_wire: false,
        applies: &[
            at!(
                Mcp20251125,
                Should,
                TABLE,
                "On timeout the sender SHOULD send a cancel."
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "The client **MUST** send a `notifications/cancelled` notification referencing the request ID.",
                Some(
                    "on stdio, the model's transport for it: the page's 'A client SHOULD send a cancellation notification' leaves to the client whether to cancel at all; one that gives a request up (its application cancels, or its timeout fires and it stops waiting) has cancelled it, and this sentence, like the stdio page's 'To cancel an in-flight request, the client MUST send', says how"
                )
            ),
        ],
    },
    Invariant {
        id: InvariantId::CancelOnlyInProgress,
        name: "cancel-only-in-progress",
        kind: Expectation::Always,
        statement: "A requester cancels only a request it believes still in progress: never one whose answer it has already received.",
        // On a FIFO link the wire shows it: the cancel left after the answer had arrived.
        observable_on_wire: true,
        applies: &[
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Cancellation notifications **MUST** only reference requests that: ... Are believed to still be in-progress"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Cancellation notifications **MUST** only reference requests that: ... Are believed to still be in-progress"
            ),
        ],
    },
    Invariant {
        id: InvariantId::NoRequestBeforeInitialize,
        name: "no-request-before-initialize",
        kind: Expectation::Always,
        statement: "No request but `initialize`, and no notification, is sent before `initialize` is answered: the client sends none before it has received the answer, the server none before it has sent it (but the few notifications and the one request the text lets it send while it holds `initialize`).",
        // The client's request leaves before the answer reached it; the server's before its
        // answer went out (on a FIFO link, the server's request arrives ahead of that answer).
        observable_on_wire: true,
        applies: &[at!(
            Lsp,
            Must,
            LSP,
            LSP_NOTHING_BEFORE_INITIALIZE,
            Some(
                "the server's half ('the server is not allowed to send any requests or notifications to the client until it has responded with an InitializeResult', but window/showMessage, window/logMessage, telemetry/event and window/showMessageRequest while it holds initialize) is the next sentence"
            )
        )],
    },
    Invariant {
        id: InvariantId::CancelResultPerTable,
        name: "cancel-result-per-table",
        kind: Expectation::Always,
        statement: "Every `capabilities/cancel` the app reads is answered, as the text's table says: error NOT_INITIALIZED without a session, `cancelled: false` \"Operation not found\" for a call it never got, \"Operation already completed\" for one it completed, and never \"not found\" or NOT_INITIALIZED for a call it holds (the `cancelled` flag of a known call is ack-agrees-with-outcome's and cancel-idempotent's).",
        // What the app had read when it answered is what the wire shows it had been sent
        // before, on a FIFO link.
        observable_on_wire: true,
        applies: &[at!(
            Abp,
            Note,
            ABP,
            "Cancel without active session | Return error { code: 'NOT_INITIALIZED' }",
            Some(ABP_STATES)
        )],
    },
    Invariant {
        id: InvariantId::PermissionCancelledAfterCancel,
        name: "permission-cancelled-after-cancel",
        kind: Expectation::Always,
        statement: "Once the client has cancelled a prompt turn (`session/cancel`), each request the agent sent for that turn and the client had not answered yet (`session/request_permission`) is answered with the outcome `cancelled`, not with another outcome (`selected`).",
        // The client's answer follows its own session/cancel on the wire it writes; which turn
        // the request serves is its sessionId.
        observable_on_wire: true,
        applies: &[at!(
            Acp,
            Must,
            ACP,
            "The Client MUST respond to all pending session/request_permission requests with the cancelled outcome."
        )],
    },
    Invariant {
        id: InvariantId::TaskCancelledByRequest,
        name: "task-cancelled-by-request",
        kind: Expectation::Always,
        statement: "A requester cancels a task-augmented request with the task's own cancel (`tasks/cancel`), never with `notifications/cancelled`.",
        // Whether a request is task-augmented is on the wire (`params.task`), and so is the
        // cancel that names it.
        observable_on_wire: true,
        applies: &[at!(
            Mcp20251125,
            Must,
            MCP25,
            "For [task-augmented requests](https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks), the `tasks/cancel` request **MUST** be used instead of the `notifications/cancelled` notification"
        )],
    },
    Invariant {
        id: InvariantId::CloseIsCancel,
        name: "close-is-cancel",
        kind: Expectation::Always,
        statement: "On Streamable HTTP, a server that reads that the response stream of a request it holds open closed stops the request's work, as it would on its cancel.",
        observable_on_wire: false,
        applies: &[at!(
            Mcp20260728,
            Must,
            MCP26,
            "The server **MUST** treat a client disconnect as cancellation of that request."
        )],
    },
    Invariant {
        id: InvariantId::DisconnectNotCancel,
        name: "disconnect-not-cancel",
        kind: Expectation::Always,
        statement: "On Streamable HTTP, a server does not stop a request (drop it or abort its work) because its response stream closed: only a cancel stops it.",
        observable_on_wire: false,
        applies: &[at!(
            Mcp20251125,
            Should,
            TABLE,
            "Streamable HTTP: a disconnect SHOULD NOT be taken as a cancel."
        )],
    },
    Invariant {
        id: InvariantId::RaceCancelCrossesAnswer,
        name: "race-cancel-crosses-answer",
        kind: Expectation::Sometimes,
        statement: "Reached: a cancel reaches the receiver while its answer to the request is on the wire.",
        observable_on_wire: true,
        applies: &[
            at!(
                Acp,
                Coverage,
                TABLE,
                "If the request completed before the cancel is processed, the normal response goes out and the cancel is ignored."
            ),
            at!(
                AcpRfd,
                Coverage,
                RFD,
                "If a request completes normally before the cancellation notification is processed"
            ),
            at!(
                Mcp20251125,
                Coverage,
                MCP25,
                "potentially after a response has already been sent"
            ),
            at!(
                Mcp20260728,
                Coverage,
                MCP26,
                "potentially after a response has already been sent"
            ),
            at!(
                Lsp,
                Coverage,
                TABLE,
                "A request that got canceled still needs to return from the server and send a response back."
            ),
            at!(Abp, Coverage, ABP, "Call completes while cancel in flight"),
        ],
    },
    Invariant {
        id: InvariantId::RaceCancelBeforeWork,
        name: "race-cancel-before-work",
        kind: Expectation::Sometimes,
        statement: "Reached: a cancel reaches the receiver before the request's work has started.",
        observable_on_wire: false,
        applies: &[
            at!(
                Acp,
                Coverage,
                ACP,
                "MAY cancel the corresponding request activity"
            ),
            at!(
                AcpRfd,
                Coverage,
                RFD,
                "MUST cancel the corresponding request activity"
            ),
            at!(
                Mcp20251125,
                Coverage,
                MCP25,
                "Stop processing the cancelled request"
            ),
            at!(
                Mcp20260728,
                Coverage,
                MCP26,
                "Stop processing the cancelled request"
            ),
            at!(
                Lsp,
                Coverage,
                TABLE,
                "A request that got canceled still needs to return from the server and send a response back."
            ),
            at!(
                Abp,
                Coverage,
                ABP,
                "Cancel arrives before operation starts: Operation is skipped"
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceTimeoutWithAnswerInFlight,
        name: "race-timeout-with-answer-in-flight",
        kind: Expectation::Sometimes,
        statement: "Reached (when timeouts are on): a requester's timeout fires while the answer is on the wire.",
        observable_on_wire: false,
        applies: &[
            at!(
                Acp,
                Coverage,
                ACP,
                "Agent-side examples: LLM context limit reached, internal timeout, resource constraints"
            ),
            at!(
                AcpRfd,
                Coverage,
                RFD,
                "Agent-side examples: LLM context limit reached, internal timeout, resource constraints"
            ),
            at!(
                Mcp20251125,
                Coverage,
                TABLE,
                "On timeout the sender SHOULD send a cancel."
            ),
            at!(
                Mcp20260728,
                Coverage,
                MCP26,
                "**stdio**: sending a `notifications/cancelled` notification referencing the request ID."
            ),
            at!(
                Lsp,
                Coverage,
                TABLE,
                "A request that got canceled still needs to return from the server and send a response back."
            ),
            at!(
                Abp,
                Coverage,
                ABP,
                "timeout option | Agent, at call time | Automatic, after specified duration"
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceAnswerAfterCancel,
        name: "race-answer-after-cancel",
        kind: Expectation::Sometimes,
        statement: "Reached: a requester receives an answer to a request after it sent a cancel for it.",
        observable_on_wire: true,
        applies: &[
            at!(
                Acp,
                Coverage,
                ACP,
                "The calling side MAY implement graceful cancellation processing by waiting for the response from the remote side."
            ),
            at!(
                AcpRfd,
                Coverage,
                RFD,
                "Send the normal response (not a cancellation error)"
            ),
            at!(
                Mcp20251125,
                Coverage,
                MCP25,
                "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward"
            ),
            at!(
                Mcp20260728,
                Coverage,
                MCP26,
                "The client **SHOULD** ignore any response to the cancelled request that arrives afterward"
            ),
            at!(
                Lsp,
                Coverage,
                TABLE,
                "A request that got canceled still needs to return from the server and send a response back."
            ),
            at!(
                Abp,
                Coverage,
                ABP,
                "Cancel arrives after completion: Cancel response has cancelled: false, original result is returned"
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceCloseCrossesAnswer,
        name: "race-close-crosses-answer",
        kind: Expectation::Sometimes,
        statement: "Reached (on Streamable HTTP): a request's response stream closes, or its connection drops, after its answer was written on it and before it was read.",
        observable_on_wire: false,
        applies: &[
            at!(
                Mcp20251125,
                Coverage,
                TABLE,
                "Streamable HTTP: a disconnect SHOULD NOT be taken as a cancel."
            ),
            at!(
                Mcp20260728,
                Coverage,
                MCP26,
                "Closing the SSE response stream is the cancellation signal."
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceResumeAfterLoss,
        name: "race-resume-after-loss",
        kind: Expectation::Sometimes,
        statement: "Reached (on Streamable HTTP): the connection of a request's stream drops while its receiver works on it, and the client resumes the stream.",
        observable_on_wire: false,
        applies: &[at!(
            Mcp20251125,
            Coverage,
            TABLE,
            "Streamable HTTP: a disconnect SHOULD NOT be taken as a cancel."
        )],
    },
    Invariant {
        id: InvariantId::RaceProgressAfterClose,
        name: "race-progress-after-close",
        kind: Expectation::Sometimes,
        statement: "Reached (on Streamable HTTP, with progress): a requester receives progress for a request, on the standalone GET stream, after the request's own stream closed.",
        observable_on_wire: true,
        applies: &[at!(
            Mcp20251125,
            Coverage,
            TABLE,
            "Progress notifications (notifications/progress) MUST stop after completion."
        )],
    },
];
