//! The rows of ACP stable: the sentences of the released v1 text
//! (`specs/acp-v1-cancellation.md`: the Cancellation page, the Prompt Turn page's Cancellation
//! section, the schema's entries) that the catalog does not quote, in the order of the text,
//! then the README's facts of the dialect, in the README's order.

use super::*;

/// Why the schema's two sentences on a permission request after `session/cancel` are judged.
const PERMISSION_SCHEMA: &str = "the schema's words for the prompt turn page's 'The Client MUST respond to all pending session/request_permission requests with the cancelled outcome', which permission-cancelled-after-cancel quotes";

/// Why the shape of an ACP request id is not judged.
const ID_SHAPE: &str = "the model's requests carry an integer id or a string of digits, never null, a fraction or a value of another type, and no fault sends one: such a request, and a rule on it, would judge it";

pub(super) const ROWS: &[Row] = &[
    row!(
        Acp,
        ACP,
        "the implementation: ... MAY finish sending any pending notifications before responding",
        NotAnObligation(
            "a permission: activity before the answer is allowed (no-activity-after-answer judges only a cancelled prompt turn's updates after its answer)"
        )
    ),
    row!(
        Acp,
        ACP,
        "Cancellation MAY also be done explicitly on a per-feature basis within the protocol to cover specific scenarios, such as cancellation of a prompt turn.",
        NotAnObligation(
            "a permission the protocol takes up itself: session/cancel of a prompt turn, modelled, and judged under the prompt turn page's Cancellation section (prompt-cancelled-stop-reason, permission-cancelled-after-cancel, no-activity-after-answer)"
        )
    ),
    row!(
        Acp,
        ACP,
        "When internal cancellation occurs, the executing party SHOULD: ... Ensure consistent behavior regardless of cancellation source",
        Judged {
            by: &[I::InternalCancelCode],
            why: "the behaviour the text names for both sources is the -32800 answer, which internal-cancel-code holds a request given up on its own to"
        }
    ),
    row!(
        Acp,
        ACP,
        "Clients MAY cancel an ongoing prompt turn at any time by sending a session/cancel notification",
        NotAnObligation(
            "a permission the drivers take: the model's client cancels a prompt turn with session/cancel at any point of the turn, and the explorer tries each"
        )
    ),
    row!(
        Acp,
        ACP,
        "The Client SHOULD preemptively mark all non-finished tool calls pertaining to the current turn as cancelled as soon as it sends the session/cancel notification.",
        NotJudgeable(
            "marking a tool call cancelled is the client's own state and display: it sends no message for it, so no message shows whether it did"
        )
    ),
    row!(
        Acp,
        ACP,
        "When the Agent receives this notification, it SHOULD stop all language model requests and all tool call invocations as soon as possible.",
        NotModelled(
            "what the agent stops is inside it: its language model requests are no messages of the session, and the model's agent has no tool calls (its turn is one unit of work, which a correct agent aborts and finish-first runs to its end, judged only through the answer, by prompt-cancelled-stop-reason); an agent whose tool calls run and report their status in session/update, and a rule that none runs on after the cancel, would judge the tool calls' half"
        )
    ),
    row!(
        Acp,
        ACP,
        "Agents MUST catch these errors and return the semantically meaningful cancelled stop reason, so that Clients can reliably confirm the cancellation.",
        Judged {
            by: &[I::PromptCancelledStopReason],
            why: "an error answer to a turn whose session/cancel the agent took (the fault cancelled-prompt-as-error) is not the cancelled stop reason, a result: prompt-cancelled-stop-reason, which quotes the same section's MUST of that answer"
        }
    ),
    row!(
        Acp,
        ACP,
        "The Client SHOULD still accept tool call updates received after sending session/cancel.",
        NotModelled(
            "the model's client takes every update of a turn it cancelled while it waits for the answer (one read then is neither an anomaly nor set aside), and no fault of a client drops one: such a fault, with the updates a client hands its application recorded, and a rule on it would judge it (no message shows what a client does with an update)"
        )
    ),
    row!(
        Acp,
        ACP,
        "the receiver: ... MAY send any pending notifications.",
        NotAnObligation(
            "a permission: the schema's words for the page's 'MAY finish sending any pending notifications before responding'; activity before the answer is allowed"
        )
    ),
    row!(
        Acp,
        ACP,
        "Implementations MUST NOT make assumptions about values at these keys.",
        NotModelled(
            "the model's messages carry no _meta: a request or cancel with values at its _meta keys, a party whose handling changes with them, and a rule that it does not would judge it"
        )
    ),
    row!(
        Acp,
        ACP,
        "An identifier established by the Client that MUST contain a String, Number, or NULL value if included.",
        NotModelled(ID_SHAPE)
    ),
    row!(
        Acp,
        ACP,
        "The value SHOULD normally not be Null ... and Numbers SHOULD NOT contain fractional parts",
        NotModelled(ID_SHAPE)
    ),
    row!(
        Acp,
        ACP,
        "The Server MUST reply with the same value in the Response object if included.",
        Judged {
            by: &[I::ExactIdMatch],
            why: "the schema's words for JSON-RPC's 'It MUST be the same as the value of the id member in the Request Object', which exact-id-match quotes: an answer carrying another id than its request's (the fault id-type-confusion answers \"7\" for 7) breaks it"
        }
    ),
    row!(
        Acp,
        ACP,
        "Upon receiving this notification, the Agent SHOULD: ... Stop all language model requests as soon as possible",
        NotJudgeable(
            "an agent's language model requests go to its model provider, outside the protocol: no message of the session shows them"
        )
    ),
    row!(
        Acp,
        ACP,
        "Upon receiving this notification, the Agent SHOULD: ... Abort all tool call invocations in progress",
        NotModelled(
            "the model's agent has no tool calls (its turn is one unit of work): an agent whose tool calls run and report their status in session/update, and a rule that none runs on after the cancel, would judge it"
        )
    ),
    row!(
        Acp,
        ACP,
        "Upon receiving this notification, the Agent SHOULD: ... Send any pending session/update notifications",
        NotModelled(
            "the model's agent sends an update as its work makes progress and holds none back: an agent that holds updates and drops them on a cancel, and a rule that the held ones go out before the answer, would judge it"
        )
    ),
    row!(
        Acp,
        ACP,
        "Upon receiving this notification, the Agent SHOULD: ... Respond to the original session/prompt request with StopReason::Cancelled",
        Judged {
            by: &[I::PromptCancelledStopReason],
            why: "the schema's SHOULD of the duty the prompt turn page states as a MUST, which prompt-cancelled-stop-reason quotes: held to that MUST"
        }
    ),
    row!(
        Acp,
        ACP,
        "If the client cancels the prompt turn via session/cancel, it MUST respond to this request with RequestPermissionOutcome::Cancelled.",
        Judged {
            by: &[I::PermissionCancelledAfterCancel],
            why: PERMISSION_SCHEMA
        }
    ),
    row!(
        Acp,
        ACP,
        "When a client sends a session/cancel notification to cancel an ongoing prompt turn, it MUST respond to all pending session/request_permission requests with this Cancelled outcome.",
        Judged {
            by: &[I::PermissionCancelledAfterCancel],
            why: PERMISSION_SCHEMA
        }
    ),
    row!(
        Acp,
        ACP,
        "This stop reason MUST be returned when the client sends a session/cancel notification, even if the cancellation causes exceptions in underlying operations.",
        Judged {
            by: &[I::PromptCancelledStopReason],
            why: "the schema's words for the prompt turn page's 'the Agent MUST respond to the original session/prompt request with the cancelled stop reason', which prompt-cancelled-stop-reason quotes, exceptions included (an error answer breaks it); a turn that ended before its session/cancel reached the agent crossed it, and its ordinary answer is not judged"
        }
    ),
    row!(
        Acp,
        README,
        "MAY stop; MUST send exactly one response: a result (possibly partial) or error -32800",
        Judged {
            by: &[
                I::SingleResolution,
                I::EventualResolution,
                I::CancelErrorCode
            ],
            why: "the README's summary of the text's 'MUST send one of these responses for the original request', which these judge"
        }
    ),
    row!(
        Acp,
        README,
        "Internal cancellation (timeouts, resource limits) SHOULD produce the same -32800.",
        Judged {
            by: &[I::InternalCancelCode],
            why: "the text's internal-cancellation SHOULD, restated"
        }
    ),
    row!(
        Acp,
        README,
        "The client MUST answer every pending `session/request_permission` with `{\"outcome\":{\"outcome\":\"cancelled\"}}`",
        Judged {
            by: &[I::PermissionCancelledAfterCancel],
            why: "the README's summary of the prompt turn page's 'The Client MUST respond to all pending session/request_permission requests with the cancelled outcome', which permission-cancelled-after-cancel quotes"
        }
    ),
    row!(
        Acp,
        README,
        "the agent MAY still send session/update but only before it answers the prompt",
        Judged {
            by: &[I::NoActivityAfterAnswer],
            why: "the README's summary of the prompt turn page's 'The Agent MAY send session/update notifications ... after receiving the session/cancel notification, but it MUST ensure that it does so before responding to the session/prompt request', which no-activity-after-answer quotes at its MUST"
        }
    ),
    row!(
        Acp,
        README,
        "it MUST answer `session/prompt` with `{\"stopReason\":\"cancelled\"}` (a result, never an error)",
        Judged {
            by: &[I::PromptCancelledStopReason],
            why: "the README's summary of the prompt turn page's 'the Agent MUST respond to the original session/prompt request with the cancelled stop reason' and its warning's 'Agents MUST catch these errors', which prompt-cancelled-stop-reason judges under the first"
        }
    ),
    row!(
        Acp,
        README,
        "MUST send one of these responses",
        Judged {
            by: &[
                I::SingleResolution,
                I::EventualResolution,
                I::CancelErrorCode
            ],
            why: "the stable page's sentence, as the README quotes it, of the duty the text states in the same words, which these judge"
        }
    ),
    row!(
        Acp,
        README,
        "internal cancellation \"SHOULD\" answer -32800",
        Judged {
            by: &[I::InternalCancelCode],
            why: "the stable page's internal-cancellation SHOULD, as the README quotes it"
        }
    ),
];
