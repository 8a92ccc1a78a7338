//! The invariant catalog: stable ids, where each applies, how strongly, and which spec clause
//! it comes from. `cancelcheck properties --json` exports exactly this table.

use cancelcheck_model::Dialect;
use cancelcheck_model::dialect::SpecRef;
use core::fmt;

/// Spec keyword strength.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Strength {
    /// MUST / MUST NOT.
    Must,
    /// SHOULD / SHOULD NOT.
    Should,
}

impl Strength {
    /// `"MUST"` or `"SHOULD"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Must => "MUST",
            Strength::Should => "SHOULD",
        }
    }
}

/// How a property is judged over a run.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Expectation {
    /// Holds at every event.
    Always,
    /// Holds once the run is quiescent.
    Eventually,
    /// Some run must reach it: a race the tool claims to check. A run that never reaches it
    /// says so instead of passing.
    Sometimes,
}

impl Expectation {
    /// `"always"`, `"eventually"` or `"sometimes"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Expectation::Always => "always",
            Expectation::Eventually => "eventually",
            Expectation::Sometimes => "sometimes",
        }
    }
}

/// Every property's stable id. The discriminant indexes [`CATALOG`] and bit sets.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[allow(missing_docs)] // each variant is documented by its catalog row
pub enum InvariantId {
    SingleResolution,
    EventualResolution,
    NoAnswerAfterCancel,
    LateAnswerIgnored,
    CancelErrorCode,
    NotificationUnanswered,
    UnknownCancelHarmless,
    ExactIdMatch,
    NoLiveIdReuse,
    InitializeNotCancelled,
    CapabilityGated,
    NoActivityAfterAnswer,
    AckAgreesWithOutcome,
    CancelIdempotent,
    NoLeakAtQuiescence,
    CancelHonoured,
    RaceCancelCrossesAnswer,
    RaceCancelBeforeWork,
    RaceTimeoutWithAnswerInFlight,
    RaceAnswerAfterCancel,
}

/// One dialect's reading of a property.
#[derive(Debug)]
pub struct Application {
    /// The dialect.
    pub dialect: Dialect,
    /// How strongly its text states it.
    pub strength: Strength,
    /// Where.
    pub clause: SpecRef,
}

/// One row of the catalog.
#[derive(Debug)]
pub struct Invariant {
    /// The id.
    pub id: InvariantId,
    /// Stable kebab-case name.
    pub name: &'static str,
    /// How it is judged.
    pub kind: Expectation,
    /// One sentence.
    pub statement: &'static str,
    /// The dialects it applies to, each with its strength and clause.
    pub applies: &'static [Application],
}

impl Invariant {
    /// Its reading in `dialect`, if it applies there.
    pub fn application(&self, dialect: Dialect) -> Option<&'static Application> {
        self.applies.iter().find(|a| a.dialect == dialect)
    }

    /// The strongest strength over its dialects.
    pub fn strength(&self) -> Strength {
        self.applies
            .iter()
            .map(|a| a.strength)
            .min()
            .unwrap_or(Strength::Should)
    }
}

macro_rules! at {
    ($d:ident, $s:ident, $file:expr, $clause:literal) => {
        Application {
            dialect: Dialect::$d,
            strength: Strength::$s,
            clause: SpecRef {
                file: $file,
                clause: $clause,
            },
        }
    };
}

const ACP: &str = "acp-cancellation.md";
const RFD: &str = "acp-rfd-request-cancellation.md";
const MCP25: &str = "mcp-cancellation-2025-11-25.md";
const MCP26: &str = "mcp-cancellation-draft.md";
const TABLE: &str = "README.md";
const ABP: &str = "app-call-cancellation.md";

/// The catalog, in [`InvariantId`] order.
pub static CATALOG: [Invariant; 20] = [
    Invariant {
        id: InvariantId::SingleResolution,
        name: "single-resolution",
        kind: Expectation::Always,
        statement: "Each request is answered at most once, and its requester resolves it to its application at most once.",
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "$/cancel_request: MUST send one of these responses for the original request"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "Cancellation Processing 2: MUST send one of these responses for the original request"
            ),
            at!(
                Mcp20251125,
                Must,
                TABLE,
                "JSON-RPC 2.0: one response object per request"
            ),
            at!(
                Mcp20260728,
                Must,
                TABLE,
                "JSON-RPC 2.0: one response object per request"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "LSP 3.17: a request that got canceled still needs to return ... a response"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Edge Cases: call completes while cancel in flight: call result returned normally"
            ),
        ],
    },
    Invariant {
        id: InvariantId::EventualResolution,
        name: "eventual-resolution",
        kind: Expectation::Eventually,
        statement: "Once nothing is left to happen, every request whose messages were not lost is resolved at its requester (answer, cancel, or disconnect).",
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "$/cancel_request: MUST send one of these responses for the original request"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "Cancellation Processing 2: MUST send one of these responses"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Behavior Requirements 6: the sender SHOULD ignore any response that arrives afterward (so it resolves at cancel time); uncancelled requests are answered"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Behavior Requirements 4: the sender SHOULD ignore any response that arrives afterward"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "LSP 3.17: a request that got canceled still needs to return from the server and send a response back"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Timing Considerations: the response has cancelled: true"
            ),
        ],
    },
    Invariant {
        id: InvariantId::NoAnswerAfterCancel,
        name: "no-answer-after-cancel",
        kind: Expectation::Always,
        statement: "After receiving a cancel for a request, the receiver sends no answer for it (MCP 2025-11-25 allows a normal result when it ignores the cancel).",
        applies: &[
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Behavior Requirements 4: Receivers SHOULD ... Not send a response for the cancelled request"
            ),
            at!(
                Mcp20260728,
                Must,
                TABLE,
                "MCP 2026-07-28 stdio: the server MUST NOT send any further message for that request"
            ),
        ],
    },
    Invariant {
        id: InvariantId::LateAnswerIgnored,
        name: "late-answer-ignored",
        kind: Expectation::Always,
        statement: "A requester that cancelled a request does not deliver an answer that arrives afterward to its application.",
        applies: &[
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Behavior Requirements 6: The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward"
            ),
            at!(
                Mcp20260728,
                Should,
                MCP26,
                "Behavior Requirements 4: The sender SHOULD ignore any response to the request that arrives afterward"
            ),
        ],
    },
    Invariant {
        id: InvariantId::CancelErrorCode,
        name: "cancel-error-code",
        kind: Expectation::Always,
        statement: "An error answering a cancelled request carries code -32800 (Request Cancelled).",
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "$/cancel_request: MUST send ... an error response with code -32800 (Request Cancelled)"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "Cancellation Processing 2: Error response with code -32800 (Cancelled)"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "LSP 3.17: result, partial result, or error -32800 (RequestCancelled)"
            ),
        ],
    },
    Invariant {
        id: InvariantId::NotificationUnanswered,
        name: "notification-unanswered",
        kind: Expectation::Always,
        statement: "The cancel notification itself is never answered.",
        applies: &[
            at!(
                Acp,
                Must,
                TABLE,
                "cancel message: notification $/cancel_request (JSON-RPC 2.0: the Server MUST NOT reply to a Notification)"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "Cancellation Method: uses JSON-RPC 2.0 notification format"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Error Handling: maintains the fire and forget nature of notifications"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Error Handling: maintains the fire and forget nature of notifications"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "LSP 3.17: $/cancelRequest is a notification (JSON-RPC 2.0: the Server MUST NOT reply to a Notification)"
            ),
        ],
    },
    Invariant {
        id: InvariantId::UnknownCancelHarmless,
        name: "unknown-cancel-harmless",
        kind: Expectation::Always,
        statement: "A cancel for an unknown, finished or malformed request changes nothing: the receiver neither crashes nor stops other work.",
        applies: &[
            at!(
                Acp,
                Must,
                TABLE,
                "ACP stable: if the request completed before the cancel is processed, the normal response goes out and the cancel is ignored"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "FAQ: ignore the subsequent cancellation notification for that request ID"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Timing Considerations: Both parties MUST handle these race conditions gracefully"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Timing Considerations: Both parties MUST handle these race conditions gracefully"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "Bug classes: a cancel that lands between handler returned and response written crashes the receiver"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Edge Cases: cancel non-existent callId returns { cancelled: false, reason: 'Operation not found' }"
            ),
        ],
    },
    Invariant {
        id: InvariantId::ExactIdMatch,
        name: "exact-id-match",
        kind: Expectation::Always,
        statement: "Answers and cancels act on exactly the request whose id they carry, compared by JSON type and value (7 is not \"7\"); no other request is affected.",
        applies: &[
            at!(
                Acp,
                Must,
                TABLE,
                "JSON-RPC 2.0: the response id MUST be the same as the value of the id member in the Request"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "Shiny future: individual JSON-RPC request cancellation without affecting other concurrent requests"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Cancellation Flow: the ID of the request to cancel"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Cancellation Flow: the ID of the request to cancel"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "JSON-RPC 2.0: the response id MUST be the same as the value of the id member in the Request"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Call ID: every capability call includes a callId for identification"
            ),
        ],
    },
    Invariant {
        id: InvariantId::NoLiveIdReuse,
        name: "no-live-id-reuse",
        kind: Expectation::Always,
        statement: "A requester does not reuse an id while an answer, a duplicate of one, or a progress notification about the earlier request with that id may still arrive (MCP 2025-11-25: never within a session).",
        applies: &[
            at!(
                Acp,
                Must,
                TABLE,
                "JSON-RPC 2.0: ids of requests awaiting a response must differ"
            ),
            at!(
                AcpRfd,
                Must,
                TABLE,
                "JSON-RPC 2.0: ids of requests awaiting a response must differ"
            ),
            at!(
                Mcp20251125,
                Must,
                TABLE,
                "MCP 2025-11-25: request ids MUST NOT be reused within a session"
            ),
            at!(
                Mcp20260728,
                Must,
                TABLE,
                "MCP 2026-07-28: a request id only has to differ from the sender's requests still awaiting a response (reuse after cancel is a hazard)"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "JSON-RPC 2.0: ids of requests awaiting a response must differ"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Call ID: the agent-side library MUST generate a unique identifier"
            ),
        ],
    },
    Invariant {
        id: InvariantId::InitializeNotCancelled,
        name: "initialize-not-cancelled",
        kind: Expectation::Always,
        statement: "No cancel is sent for the initialize request.",
        applies: &[
            at!(
                AcpRfd,
                Must,
                RFD,
                "Prerequisites: The initialize request CANNOT be cancelled"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Behavior Requirements 2: The initialize request MUST NOT be cancelled by clients"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "LSP 3.17: no request of any kind before initialize is answered"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Edge Cases: cancel without active session returns NOT_INITIALIZED"
            ),
        ],
    },
    Invariant {
        id: InvariantId::CapabilityGated,
        name: "capability-gated",
        kind: Expectation::Always,
        statement: "A cancel is sent only after initialize, and only to a peer that declared cancellation: {request: true}.",
        applies: &[at!(
            AcpRfd,
            Must,
            RFD,
            "Responsibility for Support Checking: The calling party MUST check the recipient's capabilities before sending $/cancelRequest"
        )],
    },
    Invariant {
        id: InvariantId::NoActivityAfterAnswer,
        name: "no-activity-after-answer",
        kind: Expectation::Always,
        statement: "No progress or update notification for a request follows its answer.",
        applies: &[
            at!(
                Acp,
                Must,
                TABLE,
                "ACP prompt turns: the agent MAY still send session/update but only before it answers"
            ),
            at!(
                Mcp20251125,
                Must,
                TABLE,
                "MCP 2025-11-25: progress notifications MUST stop after completion"
            ),
            at!(
                Mcp20260728,
                Must,
                TABLE,
                "MCP 2026-07-28 stdio: the server MUST NOT send any further message for that request"
            ),
            at!(
                Lsp,
                Should,
                TABLE,
                "Bug classes: progress sent after the response"
            ),
        ],
    },
    Invariant {
        id: InvariantId::AckAgreesWithOutcome,
        name: "ack-agrees-with-outcome",
        kind: Expectation::Always,
        statement: "A cancel acknowledgement's `cancelled` agrees with the call's result: true iff the result carries cancelled: true.",
        applies: &[at!(
            Abp,
            Must,
            ABP,
            "Edge Cases: call completes while cancel in flight: call result returned normally, cancel returns { cancelled: false }"
        )],
    },
    Invariant {
        id: InvariantId::CancelIdempotent,
        name: "cancel-idempotent",
        kind: Expectation::Always,
        statement: "Every cancel of the same known call gets the same `cancelled` answer.",
        applies: &[at!(
            Abp,
            Must,
            ABP,
            "Edge Cases: multiple cancels for same callId: all return same result (idempotent)"
        )],
    },
    Invariant {
        id: InvariantId::NoLeakAtQuiescence,
        name: "no-leak-at-quiescence",
        kind: Expectation::Eventually,
        statement: "Once nothing is left to happen, no party still holds a received request.",
        applies: &[
            at!(
                AcpRfd,
                Should,
                RFD,
                "FAQ: clean up resources associated with the entire request tree"
            ),
            at!(
                Mcp20251125,
                Should,
                MCP25,
                "Behavior Requirements 4: Receivers SHOULD ... Free associated resources"
            ),
            at!(
                Mcp20260728,
                Should,
                MCP26,
                "Behavior Requirements 2: Receivers SHOULD ... Free associated resources"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Timing Considerations: cancel arrives during operation: operation is aborted"
            ),
        ],
    },
    Invariant {
        id: InvariantId::CancelHonoured,
        name: "cancel-honoured",
        kind: Expectation::Always,
        statement: "A receiver that gets a cancel for a request in progress stops it: it does not answer with the full result.",
        applies: &[
            at!(
                AcpRfd,
                Must,
                RFD,
                "Cancellation Processing 1: MUST cancel the corresponding request activity and all nested activities"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Timing Considerations: cancel arrives during operation: operation is aborted, response has cancelled: true"
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceCancelCrossesAnswer,
        name: "race-cancel-crosses-answer",
        kind: Expectation::Sometimes,
        statement: "Reached: a cancel reaches the receiver while its answer to the request is on the wire.",
        applies: &[
            at!(
                Acp,
                Must,
                TABLE,
                "ACP stable: if the request completed before the cancel is processed, the normal response goes out"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "FAQ: what happens if a request completes before the cancellation is processed?"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Timing Considerations: cancellation notifications may arrive ... after a response has already been sent"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Timing Considerations: cancellation notifications may arrive ... after a response has already been sent"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "Bug classes: a cancel crosses a response on the wire"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Edge Cases: call completes while cancel in flight"
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceCancelBeforeWork,
        name: "race-cancel-before-work",
        kind: Expectation::Sometimes,
        statement: "Reached: a cancel reaches the receiver before the request's work has started.",
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "$/cancel_request: MAY cancel the corresponding request activity"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "Cancellation Processing 1: MUST cancel the corresponding request activity"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Behavior Requirements 4: stop processing the cancelled request"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Behavior Requirements 2: stop processing the cancelled request"
            ),
            at!(Lsp, Must, TABLE, "LSP 3.17: $/cancelRequest"),
            at!(
                Abp,
                Must,
                ABP,
                "Timing Considerations: cancel arrives before operation starts: operation is skipped"
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceTimeoutWithAnswerInFlight,
        name: "race-timeout-with-answer-in-flight",
        kind: Expectation::Sometimes,
        statement: "Reached (when timeouts are on): a requester's timeout fires while the answer is on the wire.",
        applies: &[
            at!(Acp, Must, ACP, "Internal Cancellation: internal timeout"),
            at!(AcpRfd, Must, RFD, "Internal Cancellation: internal timeout"),
            at!(
                Mcp20251125,
                Must,
                TABLE,
                "MCP 2025-11-25: on timeout the sender SHOULD send a cancel"
            ),
            at!(
                Mcp20260728,
                Must,
                TABLE,
                "MCP 2026-07-28 stdio: the client MUST send notifications/cancelled"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "Bug classes: a timeout and a response fire together"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Relationship to Timeout: the timeout option is a cancel"
            ),
        ],
    },
    Invariant {
        id: InvariantId::RaceAnswerAfterCancel,
        name: "race-answer-after-cancel",
        kind: Expectation::Sometimes,
        statement: "Reached: a requester receives an answer to a request after it sent a cancel for it.",
        applies: &[
            at!(
                Acp,
                Must,
                ACP,
                "$/cancel_request: the calling side MAY implement graceful cancellation processing by waiting for the response"
            ),
            at!(
                AcpRfd,
                Must,
                RFD,
                "FAQ: send the normal response (not a cancellation error)"
            ),
            at!(
                Mcp20251125,
                Must,
                MCP25,
                "Behavior Requirements 6: the sender SHOULD ignore any response to the request that arrives afterward"
            ),
            at!(
                Mcp20260728,
                Must,
                MCP26,
                "Behavior Requirements 4: the sender SHOULD ignore any response to the request that arrives afterward"
            ),
            at!(
                Lsp,
                Must,
                TABLE,
                "LSP 3.17: a request that got canceled still needs to return from the server"
            ),
            at!(
                Abp,
                Must,
                ABP,
                "Timing Considerations: cancel arrives after completion: original result is returned"
            ),
        ],
    },
];

impl InvariantId {
    /// Every id, in catalog order.
    pub fn all() -> impl Iterator<Item = InvariantId> {
        CATALOG.iter().map(|i| i.id)
    }

    /// Its catalog row.
    pub fn info(self) -> &'static Invariant {
        &CATALOG[self as usize]
    }

    /// Stable kebab-case name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Parses a stable name.
    pub fn from_name(name: &str) -> Option<InvariantId> {
        InvariantId::all().find(|i| i.name() == name)
    }

    /// The bit of this id in a `u32` set.
    pub fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for InvariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cancelcheck_model::Behaviour;

    #[test]
    fn catalog_is_in_id_order_with_unique_names() {
        for (i, inv) in CATALOG.iter().enumerate() {
            assert_eq!(inv.id as usize, i, "{} out of order", inv.name);
            assert_eq!(InvariantId::from_name(inv.name), Some(inv.id));
            assert!(!inv.applies.is_empty(), "{} applies nowhere", inv.name);
            assert!(inv.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
        }
        assert!(CATALOG.len() <= 32, "bit sets are u32");
    }

    #[test]
    fn every_fault_names_catalog_invariants_that_apply_where_it_does() {
        for b in Behaviour::all() {
            for d in Dialect::ALL {
                let Some(c) = b.classify(d) else { continue };
                assert_eq!(c.faulty, !c.breaks.is_empty(), "{b} in {d}");
                for name in c.breaks {
                    assert!(
                        InvariantId::from_name(name).is_some(),
                        "{b} breaks unknown {name}"
                    );
                }
                let applies = c.breaks.iter().any(|n| {
                    InvariantId::from_name(n).is_some_and(|i| i.info().application(d).is_some())
                });
                assert!(
                    c.breaks.is_empty() || applies,
                    "{b} in {d}: none of its broken invariants applies"
                );
            }
        }
    }
}
