//! Dialects: each protocol's cancellation rules as one constant table, in a file of its own
//! (`acp.rs`, `mcp_2025_11_25.rs`, ...), joined here by [`Dialect::rules`].
//!
//! Adding a protocol is adding a table and its line in the registry, not branching across the
//! code: the endpoint, the checker and the wire encoder read only these fields. Facts come from
//! `shared/specs/` and the table in its `README.md` (which supersedes the older texts where
//! they disagree).

mod abp;
mod acp;
mod acp_rfd;
mod lsp;
mod mcp_2025_11_25;
mod mcp_2026_07_28;

use crate::behaviour::Behaviour;
use core::fmt;
use core::str::FromStr;

/// A protocol whose cancellation rules the model knows.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, serde::Serialize, serde::Deserialize,
)]
pub enum Dialect {
    /// ACP stable: `$/cancel_request {requestId}`; the receiver MUST answer once.
    #[serde(rename = "acp")]
    Acp,
    /// ACP RFD 2025-11: `$/cancelRequest {id}`, negotiated through `cancellation.request`.
    #[serde(rename = "acp-rfd")]
    AcpRfd,
    /// MCP 2025-11-25: `notifications/cancelled {requestId, reason?}`, either side; no answer.
    #[serde(rename = "mcp-2025-11-25")]
    Mcp20251125,
    /// MCP 2026-07-28: only the client cancels (`notifications/cancelled` on stdio, the request's
    /// stream closed on Streamable HTTP); nothing further may be sent.
    #[serde(rename = "mcp-2026-07-28")]
    Mcp20260728,
    /// LSP 3.17: `$/cancelRequest {id}`; the server still answers.
    #[serde(rename = "lsp")]
    Lsp,
    /// Agentic Browser Protocol app calls: `capabilities/cancel` acknowledged by `cancel-result`.
    #[serde(rename = "abp")]
    Abp,
}

/// What a receiver owes the requester once it has received a cancel for a request still
/// in progress.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReceiverDuty {
    /// Exactly one response still goes out: a (possibly partial) result or the cancel error
    /// (ACP, ACP RFD, LSP, and ABP's `cancelled: true` call result).
    MustAnswer,
    /// The receiver SHOULD stop and SHOULD NOT answer; it MAY ignore a cancel it cannot honour
    /// and then answer normally (MCP 2025-11-25).
    ShouldNotAnswer,
    /// The receiver MUST NOT send any further message for the request (MCP 2026-07-28).
    MustNotAnswer,
}

/// Whether the receiver may keep working on a cancelled request and answer with the full result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Honouring {
    /// "MAY cancel": finishing first is allowed (ACP, LSP, MCP 2025-11-25's "MAY ignore").
    May,
    /// "MUST cancel the corresponding request activity" (ACP RFD, ABP, MCP 2026-07-28).
    Must,
}

/// When a request id may be used again by the same sender.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IdReuse {
    /// Never within a session (MCP 2025-11-25: "MUST NOT be reused"; ABP: callIds are unique).
    Never,
    /// Once no answer for the old request can still arrive (JSON-RPC: ids of requests awaiting
    /// a response must differ).
    WhenDead,
}

/// Whether a requester may cancel `initialize`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InitializeCancel {
    /// Like any request (ACP, ABP).
    Allowed,
    /// Never (MCP 2025-11-25: "MUST NOT be cancelled by clients"; ACP RFD: "CANNOT be
    /// cancelled").
    Never,
    /// Not before its answer, when nothing else may be sent either (LSP: "Until the server has
    /// responded to the `initialize` request ... the client must not send any additional
    /// requests or notifications"); once answered, a cancel of it names a finished request.
    NotBeforeAnswer,
}

impl InitializeCancel {
    /// Whether a requester may cancel `initialize` while its answer is still to come.
    pub fn while_pending(self) -> bool {
        self == InitializeCancel::Allowed
    }
}

/// When a requester that gives a request up must tell the receiver with a cancel.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GiveUpSignal {
    /// The text does not say.
    Unstated,
    /// When its timeout fires (MCP 2025-11-25: "On timeout the sender SHOULD send a cancel").
    OnTimeout,
    /// Whenever it gives one up, where it may cancel (MCP 2026-07-28 on stdio: "The client
    /// MUST send a `notifications/cancelled` notification").
    Always,
}

/// How a receiver answers a request it gives up on its own account (a timeout, a resource
/// limit, a change of state that makes the result useless).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GiveUp {
    /// The error code a correct receiver answers with: -32800 in ACP and the ACP RFD ("as if
    /// $/cancel_request was received"), LSP's `ContentModified` (-32801: "if a server detects
    /// an internal state change ... the server can error these requests with
    /// `ContentModified`").
    pub code: i64,
    /// A code the text keeps for requests that support it, none of which the model sends
    /// (LSP's `ServerCancelled`, -32802: "This error code should only be used for requests
    /// that explicitly support being server cancellable"; the pull diagnostics do, and the
    /// model's `workspace/executeCommand` and `workspace/configuration` do not). Where there
    /// is one, only it breaks `internal-cancel-code`; where there is none, any other error
    /// code does.
    pub reserved: Option<i64>,
}

impl GiveUp {
    /// Whether an error with `code` says its request was given up on its own in this dialect
    /// (its code, or the code it keeps for requests that support it).
    pub fn says_given_up(self, code: i64) -> bool {
        code == self.code || Some(code) == self.reserved
    }

    /// Whether an error answer with `code` to a request given up on its own breaks what the
    /// text says of such answers.
    pub fn breaks(self, code: i64) -> bool {
        match self.reserved {
            Some(reserved) => code == reserved,
            None => code != self.code,
        }
    }
}

/// Which party may send a cancel.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CancelSenders {
    /// Either party, for requests it sent.
    Either,
    /// Only the client (MCP 2026-07-28; ABP's agent).
    ClientOnly,
}

/// How the cancel travels.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CancelShape {
    /// A JSON-RPC notification: fire and forget.
    Notification,
    /// A request answered by an acknowledgement (ABP `capabilities/cancel` → `cancel-result`).
    AcknowledgedRequest,
}

/// A pointer into a spec text: file under `shared/specs/` and the clause it states.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SpecRef {
    /// File name under `shared/specs/`.
    pub file: &'static str,
    /// The clause, quoted or named.
    pub clause: &'static str,
}

/// One dialect's rule table. Every field is read by the model or the checker.
#[derive(Debug)]
pub struct DialectRules {
    /// Stable id, as on the command line and in traces.
    pub id: &'static str,
    /// Display name.
    pub title: &'static str,
    /// The file (under `specs/` or `../shared/specs/`) of the dialect's own text, whose
    /// normative sentences `cancelcheck clauses` places (`clauses::texts`).
    pub spec_file: &'static str,
    /// Whether messages are JSON-RPC 2.0 (all but ABP).
    pub json_rpc: bool,
    /// Cancel method name.
    pub cancel_method: &'static str,
    /// Field in the cancel's params that names the request.
    pub cancel_id_field: &'static str,
    /// Method of the cancel's acknowledgement, for acknowledged cancels.
    pub cancel_ack_method: Option<&'static str>,
    /// Notification or acknowledged request.
    pub cancel_shape: CancelShape,
    /// Who may cancel.
    pub cancel_senders: CancelSenders,
    /// What the receiver owes after a cancel.
    pub receiver_duty: ReceiverDuty,
    /// Whether the receiver may finish and send the full result anyway.
    pub honouring: Honouring,
    /// Whether a partial result is an acceptable answer to a cancelled request.
    pub partial_results: bool,
    /// Whether the requester, after cancelling, keeps waiting for the answer (true) or resolves
    /// the request at once and ignores a late answer (false: MCP's "SHOULD ignore").
    pub requester_waits: bool,
    /// The error code of a cancelled request's answer, for JSON-RPC dialects.
    pub cancel_error_code: Option<i64>,
    /// Whether cancellation support must be negotiated (ACP RFD `cancellation: {request: true}`).
    pub negotiated: bool,
    /// Method that opens the session, if the dialect has one.
    pub initialize_method: Option<&'static str>,
    /// Whether `initialize` may itself be cancelled.
    pub initialize_cancel: InitializeCancel,
    /// When ids may be reused.
    pub id_reuse: IdReuse,
    /// Method of the ordinary request the client sends.
    pub work_method: &'static str,
    /// Method of the ordinary request the server sends to the client, if the dialect lets the
    /// server make requests (ACP's agent asks for permission, MCP's server for sampling, LSP's
    /// server for configuration; ABP's app makes no calls).
    pub server_work_method: Option<&'static str>,
    /// Notification a worker sends while busy (progress, updates), if the dialect has one.
    pub activity_method: Option<&'static str>,
    /// Field of the activity notification that names the request.
    pub activity_id_field: &'static str,
    /// Whether request ids are strings on the wire (ABP `callId`) rather than integers.
    pub string_ids: bool,
    /// The feature-specific cancel of the client's work, which names the work's session
    /// rather than the request, if the dialect has one (ACP: `session/cancel {sessionId}` ends
    /// a prompt turn). The requester's other requests are cancelled by `cancel_method`.
    pub session_cancel_method: Option<&'static str>,
    /// The cancel of a task-augmented request, if the dialect has tasks (MCP 2025-11-25:
    /// `tasks/cancel {taskId}`, "MUST be used instead of the `notifications/cancelled`
    /// notification"). It is a request whatever `cancel_shape` says: the receiver answers it
    /// with the task's final state (a [`crate::Message::CancelAck`]).
    pub task_cancel_method: Option<&'static str>,
    /// Whether a cancelled request of either party's ordinary work is answered with a result
    /// that says so rather than an error (ACP's prompt turn: the agent answers
    /// `session/prompt` with `{"stopReason":"cancelled"}`, "a result, never an error"; the
    /// client answers a pending `session/request_permission` with
    /// `{"outcome":{"outcome":"cancelled"}}`). `initialize` is still answered with the error.
    pub cancelled_result: bool,
    /// Whether the client sends activity notifications for the work it does for the server
    /// (MCP's and LSP's progress go either way; ACP's `session/update` comes from the agent
    /// only).
    pub client_activity: bool,
    /// How a receiver answers a request it gives up on its own (internal cancellation), where
    /// the text says: ACP and the ACP RFD ("SHOULD ... Send the same -32800 (Cancelled) error
    /// response"), LSP (ContentModified, never ServerCancelled for a request that does not
    /// support it). `None`: the text says nothing, and the model's parties give nothing up.
    pub give_up: Option<GiveUp>,
    /// When a requester giving a request up owes the receiver a cancel.
    pub give_up_signal: GiveUpSignal,
    /// Whether, on a transport with a stream per request (Streamable HTTP), the client cancels
    /// by closing the request's stream and the server takes any close of it as the cancel (MCP
    /// 2026-07-28: "The server MUST treat a client disconnect as cancellation of that
    /// request"); elsewhere a closed stream is no cancel (MCP 2025-11-25: "a disconnect SHOULD
    /// NOT be taken as a cancel").
    pub stream_close_cancels: bool,
    /// Whether the dialect has a Streamable HTTP transport (MCP's two texts), each request
    /// with a stream of its own ([`crate::http`]).
    pub streamable_http: bool,
    /// The faults this dialect's text makes observable in words no other field holds (each
    /// table says, by its entry, what the text asks): read by [`Behaviour::applies_to`].
    pub text_faults: &'static [Behaviour],
}

/// JSON-RPC's request-cancelled code, -32800, where a dialect answers a cancel with it.
const RPC_CANCELLED: Option<i64> = Some(-32800);

impl DialectRules {
    /// Whether a request given up on its own is answered otherwise than a cancelled one (LSP's
    /// `ContentModified`, where a cancel's answer is -32800); false where nothing is given up.
    pub fn gives_up_unlike_a_cancel(&self) -> bool {
        self.give_up
            .is_some_and(|g| Some(g.code) != self.cancel_error_code)
    }
}

impl Dialect {
    /// Every dialect, in a fixed order (the order of `shared/specs/README.md`).
    pub const ALL: [Dialect; 6] = [
        Dialect::Acp,
        Dialect::AcpRfd,
        Dialect::Mcp20251125,
        Dialect::Mcp20260728,
        Dialect::Lsp,
        Dialect::Abp,
    ];

    /// The dialect a command speaks when none is named.
    pub const DEFAULT: Dialect = Dialect::Acp;

    /// The rule table.
    pub fn rules(self) -> &'static DialectRules {
        match self {
            Dialect::Acp => &acp::RULES,
            Dialect::AcpRfd => &acp_rfd::RULES,
            Dialect::Mcp20251125 => &mcp_2025_11_25::RULES,
            Dialect::Mcp20260728 => &mcp_2026_07_28::RULES,
            Dialect::Lsp => &lsp::RULES,
            Dialect::Abp => &abp::RULES,
        }
    }

    /// The stable id (`acp`, `mcp-2025-11-25`, ...).
    pub fn id(self) -> &'static str {
        self.rules().id
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The error of parsing an unknown dialect id; its text lists the known ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(pub String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown dialect {:?}; expected one of:", self.0)?;
        for d in Dialect::ALL {
            write!(f, " {}", d.id())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.id() == s)
            .ok_or_else(|| UnknownDialect(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_are_unique() {
        for d in Dialect::ALL {
            assert_eq!(d.id().parse::<Dialect>().unwrap(), d);
        }
        let err = "mcp".parse::<Dialect>().unwrap_err().to_string();
        assert!(err.contains("mcp-2025-11-25"), "{err}");
    }

    #[test]
    fn rules_match_the_spec_table() {
        assert_eq!(Dialect::Acp.rules().receiver_duty, ReceiverDuty::MustAnswer);
        assert!(Dialect::Acp.rules().initialize_cancel.while_pending());
        assert!(Dialect::AcpRfd.rules().negotiated);
        assert_eq!(
            Dialect::AcpRfd.rules().initialize_cancel,
            InitializeCancel::Never
        );
        assert_eq!(
            Dialect::Lsp.rules().initialize_cancel,
            InitializeCancel::NotBeforeAnswer
        );
        assert_eq!(Dialect::Mcp20251125.rules().id_reuse, IdReuse::Never);
        assert_eq!(
            Dialect::Mcp20260728.rules().receiver_duty,
            ReceiverDuty::MustNotAnswer
        );
        assert!(Dialect::Mcp20260728.rules().initialize_method.is_none());
        assert_eq!(Dialect::Lsp.rules().cancel_error_code, Some(-32800));
        let lsp = Dialect::Lsp.rules().give_up.unwrap();
        assert!(lsp.breaks(-32802) && !lsp.breaks(-32801) && !lsp.breaks(-32800));
        let acp = Dialect::Acp.rules().give_up.unwrap();
        assert!(acp.breaks(-32603) && !acp.breaks(-32800));
        assert_eq!(
            Dialect::Abp.rules().cancel_shape,
            CancelShape::AcknowledgedRequest
        );
    }
}
