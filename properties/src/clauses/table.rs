//! The table of every normative sentence the catalog does not quote, with what becomes of
//! it: a reviewer checks each row against its text.

use super::*;

macro_rules! row {
    ($d:ident, $file:expr, $quote:expr, $status:expr) => {
        Row {
            dialect: Dialect::$d,
            file: $file,
            quote: $quote,
            status: $status,
        }
    };
}

use InvariantId as I;
use Treatment::{Judged, NotAnObligation, NotJudgeable, NotModelled};
use files::{ABP, ACP, LSP, MCP25, MCP26, README, RFD};

const LOGS: &str = "a log is inside a party: no message shows whether it was written";
const UI: &str = "a user interface is outside the protocol: no message shows what it displays";
const MAY_IGNORE: &str = "a permission: the checker requires an ignored cancel to change nothing (unknown-cancel-harmless) and never requires one to be acted on";
/// Why the sentences of MCP 2026-07-28's subscriptions are not judged.
const SUBSCRIPTIONS: &str = "the model has no subscriptions: a subscriptions/listen request, a server that tears its stream down, and a rule on what each party sends then would judge it";
/// Why the shape of an MCP 2026-07-28 request id is not judged.
const ID_SHAPE: &str = "the model's requests always carry an integer or string id, and no fault sends one without an id or with null: such a request, and a rule on it, would judge it";
const INVALID_IGNORED: &str = "the duty unknown-cancel-harmless judges (a cancel for a finished request changes nothing; one naming an id never received is unknown-id-cancel-ignored's, a malformed one malformed-cancel-ignored's); the catalog cites the MUST of 'Both parties MUST handle these race conditions gracefully' for it, so it is held to MUST";

mod acp;

/// Every normative sentence of the texts that the catalog does not quote, per dialect, in
/// the order of its text (a dialect's own text, then the README's facts): ACP stable's rows
/// (`acp::ROWS`), then the others' (`OTHERS`). A test requires every quotation to stand
/// in its file, and every sentence with a keyword to be placed (here or by the catalog).
pub static TABLE: &[Row] = &joined::<{ acp::ROWS.len() + OTHERS.len() }>(acp::ROWS, OTHERS);

/// `a`, then `b`, as one array of `N` rows (`N` is their lengths' sum).
const fn joined<const N: usize>(a: &[Row], b: &[Row]) -> [Row; N] {
    assert!(a.len() + b.len() == N && N > 0);
    let mut out = [if a.is_empty() { b[0] } else { a[0] }; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// The rows of every dialect but ACP stable, in [`TABLE`]'s order.
const OTHERS: &[Row] = &[
    // The ACP RFD.
    row!(
        AcpRfd,
        RFD,
        "Until capabilities are exchanged, NO requests can be cancelled",
        Judged {
            by: &[I::CapabilityGated],
            why: "capability-gated: a cancel is sent only after initialize, and only to a peer that declared support"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "Any requests after initialize (which performs capability negotiation) CAN be cancelled if the recipient declared support",
        NotAnObligation(
            "a permission the drivers take: after initialize they cancel requests of a peer that declared support"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "The calling party (sender of $/cancelRequest) MUST: ... Only send $/cancelRequest if the recipient declared supportsRequestCancellation: true",
        Judged {
            by: &[I::CapabilityGated],
            why: "the same duty as the item before it, which the catalog cites"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "The calling party (sender of $/cancelRequest) MUST: ... Not send $/cancelRequest notifications to parties that don't support them",
        Judged {
            by: &[I::CapabilityGated],
            why: "the same duty as the item before it, which the catalog cites"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "The receiving party is NOT required to: ... Perform special handling for unsupported cancellation requests",
        NotAnObligation("relieves the receiver: nothing is owed, so nothing to judge")
    ),
    row!(
        AcpRfd,
        RFD,
        "The receiving party is NOT required to: ... Return custom errors for unsupported $/cancelRequest notifications",
        NotAnObligation("relieves the receiver: nothing is owed, so nothing to judge")
    ),
    row!(
        AcpRfd,
        RFD,
        "When internal cancellation occurs, the executing party SHOULD: ... Ensure consistent behavior regardless of cancellation source",
        Judged {
            by: &[
                I::InternalCancelCode,
                I::CascadeOnGiveUp,
                I::NoChildAfterGiveUp
            ],
            why: "the behaviour the checker holds a give-up to, as a cancel received: the -32800 answer (internal-cancel-code), the cascade and no new request on the given-up request's behalf (cascade-on-give-up, no-child-after-give-up, at this sentence's SHOULD)"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "Implementations MAY support handling cancellation by declaring supportsRequestCancellation: true",
        NotAnObligation(
            "a permission; the drivers try both declarations (the explorer starts from each)"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "If an implementation declares support, it MUST handle $/cancelRequest notifications for its requests",
        Judged {
            by: &[
                I::CancelHonoured,
                I::SingleResolution,
                I::EventualResolution
            ],
            why: "handling is what the Cancellation Processing section spells out: cancel (cancel-honoured) and answer once (single-resolution, eventual-resolution)"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "Any requests after initialize CAN be cancelled if the recipient declared support",
        NotAnObligation(
            "a permission the drivers take: after initialize they cancel requests of a peer that declared support"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "When cancellation is supported: ... Implementations MUST respond with either an error or valid response",
        Judged {
            by: &[I::SingleResolution, I::EventualResolution],
            why: "the text's 'MUST send one of these responses for the original request', restated"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "When cancellation is supported: ... Implementations MAY choose how quickly to honor cancellation requests",
        NotAnObligation(
            "a permission, read with 'MUST cancel': a receiver may take its time to stop, but one that answers the full result after the cancel arrived breaks cancel-honoured"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "When cancellation is supported: ... Implementations MAY return partial results instead of errors when appropriate",
        NotAnObligation("a permission: the `partial` behaviour takes it and passes")
    ),
    row!(
        AcpRfd,
        README,
        "MUST cancel; MUST send one response: error -32800 or a valid result | yes: `cancellation: { request: true }`; sender MUST check; none before `initialize` completes",
        Judged {
            by: &[
                I::CancelHonoured,
                I::SingleResolution,
                I::EventualResolution,
                I::CancelErrorCode,
                I::CapabilityGated,
                I::InitializeNotCancelled
            ],
            why: "the README's summary of the text's duties, each judged under the text's own sentence"
        }
    ),
    // MCP 2025-11-25.
    row!(
        Mcp20251125,
        MCP25,
        "Receivers MAY ignore cancellation notifications if: ... The referenced request is unknown",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Receivers MAY ignore cancellation notifications if: ... Processing has already completed",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Receivers MAY ignore cancellation notifications if: ... The request cannot be cancelled",
        NotAnObligation(
            "a permission the model never uses: every request it sends can be cancelled (the catalog's note on no-answer-after-cancel)"
        )
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Both parties SHOULD log cancellation reasons for debugging",
        NotJudgeable(LOGS)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Application UIs SHOULD indicate when cancellation is requested",
        NotJudgeable(UI)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Invalid cancellation notifications SHOULD be ignored: ... Already completed requests",
        Judged {
            by: &[I::UnknownCancelHarmless],
            why: INVALID_IGNORED
        }
    ),
    row!(
        Mcp20251125,
        README,
        "SHOULD stop and SHOULD NOT respond; MAY ignore unknown/completed; malformed SHOULD be ignored | no | no (MUST NOT)",
        Judged {
            by: &[
                I::NoActivityAfterCancel,
                I::NoAnswerAfterCancel,
                I::UnknownCancelHarmless,
                I::UnknownIdCancelIgnored,
                I::MalformedCancelIgnored,
                I::InitializeNotCancelled
            ],
            why: "the README's summary of the text's duties, each judged under the text's own sentence"
        }
    ),
    // MCP 2026-07-28 as released (specs/mcp-2026-07-28-cancellation.md: the cancellation page,
    // the sentences of other pages it refers to, the schema's comments), and the README's facts.
    row!(
        Mcp20260728,
        MCP26,
        "A client SHOULD send a cancellation notification to indicate that a request it previously issued should be terminated.",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "whether to cancel at all is the client's choice (cancellation is optional); a client that gives a request up has cancelled it, and on stdio the transport section's MUST, which cancel-sent-on-give-up quotes, has it send this notification: held to that MUST"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "A server MUST send notifications/cancelled referencing a subscriptions/listen request ID when it tears down that subscription stream",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Implementations SHOULD establish timeouts for all sent requests, to prevent hung connections and resource exhaustion.",
        NotModelled(
            "the model's requesters set a timer where the workload asks for one (workload timeouts, explore --timeouts): a requester that sends a request without one, and a rule that every request has one, would judge it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "When the request has not received a success or error response within the timeout period, the sender SHOULD cancel the request and stop waiting for a response.",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "a client whose timeout fires and that stops waiting has given the request up: on stdio the transport section's MUST, which cancel-sent-on-give-up quotes, has it send the notification (the fault gives-up-silently does not); held to that MUST"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "SDKs and other middleware SHOULD allow these timeouts to be configured on a per-request basis.",
        NotJudgeable(
            "what an SDK lets its user configure is its programming interface: no message shows it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Implementations MAY choose to reset the timeout clock when receiving a progress notification corresponding to the request, as this implies that work is actually happening.",
        NotAnObligation(
            "a permission: the model's timer is not reset by progress, and the checker never requires it to be"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "However, implementations SHOULD always enforce a maximum timeout, regardless of progress notifications, to limit the impact of a misbehaving client or server.",
        NotModelled(
            "the model's timer is never reset by progress, so it is its maximum: a requester that extends its timer on progress without bound, and a rule on it, would judge it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Server-sent cancellation notifications MUST reference a subscriptions/listen request, to terminate that subscription stream",
        Judged {
            by: &[I::CancelFromAllowedParty],
            why: "a server's cancel of any other request breaks it, and the model has no subscriptions/listen, so every cancel a server sends does: cancel-from-allowed-party, which quotes the page's 'Servers MUST NOT send notifications/cancelled for any other purpose'"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers receiving cancellation notifications SHOULD: ... Not send a response for the cancelled request",
        Judged {
            by: &[I::NoAnswerAfterCancel],
            why: "the page's SHOULD of the duty the transport pages state as a MUST NOT ('MUST NOT send any further messages for it'), which no-answer-after-cancel quotes from the stdio page: held to that MUST"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MAY ignore cancellation notifications if: ... The referenced request is unknown",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MAY ignore cancellation notifications if: ... Processing has already completed",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MAY ignore cancellation notifications if: ... The request cannot be cancelled",
        NotAnObligation(
            "a permission the model never uses: every request it sends can be cancelled"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Both parties SHOULD log cancellation reasons for debugging",
        NotJudgeable(LOGS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Application UIs SHOULD indicate when cancellation is requested",
        NotJudgeable(UI)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Invalid cancellation notifications SHOULD be ignored: ... Already completed requests",
        Judged {
            by: &[I::UnknownCancelHarmless],
            why: INVALID_IGNORED
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Requests MUST include a string or integer ID.",
        NotModelled(ID_SHAPE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Unlike base JSON-RPC, the ID MUST NOT be null.",
        NotModelled(ID_SHAPE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "The request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for.",
        NotModelled(
            "not at its strength: no-live-id-reuse reports a reuse while a message about the earlier request may still arrive as the README's hazard, a note, since a cancelled request never gets a response and when its id may be reused is unstated; a requester that reuses the id of a request it never cancelled and still awaits breaks this MUST and is reported only as that note. Telling the two apart, and a MUST for the second, would judge it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "it SHOULD send a successful subscriptions/listen response to signal a graceful end (see Graceful Closure), then close the stream.",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "When the server ends a subscription on its own initiative (for example, during shutdown), it SHOULD respond to the original subscriptions/listen request with a completion result before closing the stream.",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "which the client MAY treat as a trigger to reconnect.",
        NotAnObligation("a permission of subscriptions, which the model does not have")
    ),
    row!(
        Mcp20260728,
        MCP26,
        "On stdio, if the connection is terminated and then re-established, the client MUST re-send subscriptions/listen to re-establish its subscriptions",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "At the release tag 2026-07-28 (commit 5f5440bb26a6) the two server sentences read:",
        NotModelled(
            "the wording of the two subscriptions sentences above at the release tag, quoted by the file: the model has no subscriptions, and a server that tears a subscriptions/listen stream down, with a rule on what it sends then, would judge them"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "These sentences and the cancellation page's",
        NotAnObligation(
            "the file's note that the subscriptions page and the cancellation page describe one event differently (modelcontextprotocol/modelcontextprotocol issue #3348); the page's sentence it recalls is placed above"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Closing the SSE response stream MUST be treated by the server as cancellation of that request.",
        Judged {
            by: &[I::CloseIsCancel],
            why: "the Streamable HTTP page's sentence of the duty close-is-cancel quotes from the cancellation page ('The server MUST treat a client disconnect as cancellation of that request')"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "The server SHOULD stop work on the cancelled request as soon as practical and MUST NOT send any further messages for it.",
        Judged {
            by: &[I::CloseIsCancel],
            why: "on Streamable HTTP the cancelled request's stream is closed, so nothing more reaches the client on it: close-is-cancel (MUST) judges a server that works on after reading the close (the stdio page's sentence in the same words is no-answer-after-cancel's and no-activity-after-cancel's)"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "To cancel an in-flight request, the client MUST send a notifications/cancelled notification referencing the request's ID.",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "the stdio page's sentence of the duty cancel-sent-on-give-up quotes from the cancellation page's transport section"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "This MUST correspond to the ID of a request the client previously issued.",
        Judged {
            by: &[I::CancelNamesSentRequest],
            why: "the schema's words for the page's 'Were previously issued by the client', which cancel-names-sent-request quotes"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "This MAY be logged or presented to the user.",
        NotAnObligation(
            "a permission about the reason, which no message shows being logged or displayed"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MUST NOT use this notification to cancel any other request.",
        Judged {
            by: &[I::CancelFromAllowedParty],
            why: "the schema's words for the page's 'Servers MUST NOT send notifications/cancelled for any other purpose', which cancel-from-allowed-party quotes"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "The request SHOULD still be in-flight, but due to communication latency, it is always possible that this notification MAY arrive after the request has already finished.",
        Judged {
            by: &[I::CancelOnlyInProgress],
            why: "the schema's SHOULD of what the page states as a MUST ('Are believed to still be in-progress'), which cancel-only-in-progress quotes: held to that MUST; a cancel that crosses the answer on its way is not judged, as the sentence's second half allows"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "This notification indicates that the result will be unused, so any associated processing SHOULD cease.",
        Judged {
            by: &[I::CascadeComplete],
            why: "the schema's words for the page's 'Stop processing the cancelled request' (SHOULD), which cascade-complete quotes: the requests a handler sent on the cancelled request's behalf are part of its processing"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "MUST NOT send any further message for the request",
        Judged {
            by: &[
                I::NoAnswerAfterCancel,
                I::NoActivityAfterCancel,
                I::NoChildAfterCancel
            ],
            why: "the README's table row of the stdio page's 'MUST NOT send any further messages for it', which these judge"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "stdio: the client MUST send notifications/cancelled, the server MUST NOT send any further message for that request.",
        Judged {
            by: &[
                I::CancelSentOnGiveUp,
                I::NoAnswerAfterCancel,
                I::NoActivityAfterCancel,
                I::NoChildAfterCancel
            ],
            why: "the README's summary of the released text's transport sentences ('The client MUST send a notifications/cancelled notification referencing the request ID'; 'MUST NOT send any further messages for it'), which these judge under those sentences"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "Streamable HTTP: closing the request's SSE stream is the cancel",
        Judged {
            by: &[I::CloseIsCancel],
            why: "the README's summary of the text's 'The server MUST treat a client disconnect as cancellation of that request', which close-is-cancel judges (the client's half, a close sent as the cancel, is how the model's client cancels there)"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "A client SHOULD send a cancellation notification",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "the README's quotation of the released page's sentence, placed under the page (mcp-2026-07-28-cancellation.md) and held to the transport section's MUST"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "A server MUST send notifications/cancelled referencing a subscriptions/listen request ID when it tears down that subscription stream ... Servers MUST NOT send notifications/cancelled for any other purpose",
        Judged {
            by: &[I::CancelFromAllowedParty],
            why: "the README's quotation of the released page's sentences: cancel-from-allowed-party quotes the second from the page; the first, a duty of subscriptions, the model does not have"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "The client SHOULD ignore any response to the cancelled request that arrives afterward",
        Judged {
            by: &[I::LateAnswerIgnored],
            why: "the README's quotation of the released page's sentence, which late-answer-ignored quotes from the page"
        }
    ),
    // LSP 3.17: the sentences this repository quotes (specs/lsp-3.17.md).
    row!(
        Lsp,
        LSP,
        "A server should NOT send this error code if it detects a content change in it unprocessed messages.",
        NotModelled(
            "the model has no documents and no content changes: a change notification queued behind a request, and a rule that the server does not answer that request ContentModified for it, would judge it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "If a client decides that a result is not of any use anymore the client should cancel the request.",
        NotJudgeable(
            "whether a result is still of use is the client's own judgement: no message shows it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "servers should therefore not decide by themselves to cancel requests simply due to that fact that a state change notification is detected in the queue.",
        NotModelled(
            "the model has no state change notifications: one queued behind a request, and a rule that the server does not give the request up for it alone, would judge it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "If clients receive a ContentModified error, it generally should not show it in the UI for the end-user.",
        NotJudgeable(UI)
    ),
    row!(
        Lsp,
        LSP,
        "If the server receives a request or notification before the initialize request it should act as follows: ... For a request the response should be an error with code: -32002.",
        NotModelled(
            "the model's correct client sends nothing before initialize is answered, and its server works on a request it reads before initialize (only the faulty sends-before-initialize client makes one, which no-request-before-initialize fails): a server that answers such a request -32002, and a rule that it does, would judge it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "If the server receives a request or notification before the initialize request it should act as follows: ... Notifications should be dropped, except for the exit notification.",
        NotModelled(
            "as the -32002 answer before it: the model's server has no rule for what it reads before initialize"
        )
    ),
    row!(
        Lsp,
        LSP,
        "In addition the server is not allowed to send any requests or notifications to the client until it has responded with an InitializeResult",
        Judged {
            by: &[I::NoRequestBeforeInitialize],
            why: "the server's half of the duty whose client half the catalog cites: no-request-before-initialize holds the server to sending no request before its answer to initialize (the notifications and the window/showMessageRequest the sentence excepts are not modelled)"
        }
    ),
    // ABP: its text states its rules in tables, without keywords.
    row!(
        Abp,
        ABP,
        "Cancel already-completed call | Return { cancelled: false, reason: 'Operation already completed' }",
        Judged {
            by: &[I::AckAgreesWithOutcome, I::CancelResultPerTable],
            why: "the acknowledgement's cancelled: false agrees with a call that completed (ack-agrees-with-outcome), and says it completed, not that it was never found (cancel-result-per-table, which cites the table's row on a cancel without a session)"
        }
    ),
    row!(
        Abp,
        ABP,
        "Cancel already-cancelled call | Return { cancelled: true } (idempotent)",
        Judged {
            by: &[I::CancelIdempotent],
            why: "the idempotency the catalog cites from the row 'Multiple cancels for same callId'"
        }
    ),
    row!(
        Abp,
        ABP,
        "Apps cannot distinguish between timeout-triggered and signal-triggered cancellation (and SHOULD NOT need to).",
        NotAnObligation(
            "a design note: a timeout reaches the app as the same capabilities/cancel, as the model sends it"
        )
    ),
    row!(
        Abp,
        README,
        "answers the cancel with `{callId, cancelled, reason?}`; the call's result carries `cancelled: true` iff it was cancelled",
        Judged {
            by: &[I::AckAgreesWithOutcome, I::CancelResultPerTable],
            why: "the README's summary of the text's edge cases: every cancel is answered, as the table says (cancel-result-per-table), and the acknowledgement agrees with the call's result (ack-agrees-with-outcome)"
        }
    ),
];

/// Lead-ins the catalog's quotations leave out: where the catalog quotes a list item without
/// the words that introduce it and carry its keyword, the clause is shown with them:
/// `(file, the catalog's quotation, the lead-in)`, the lead-in quoted word for word.
pub const LEAD_INS: &[(&str, &str, &str)] = &[
    (
        MCP26,
        "Stop processing the cancelled request",
        "Servers receiving cancellation notifications SHOULD:",
    ),
    (
        MCP25,
        "Were previously issued in the same direction",
        "Cancellation notifications MUST only reference requests that:",
    ),
    (
        MCP26,
        "Were previously issued by the client",
        "Cancellation notifications MUST only reference requests that:",
    ),
];
