//! Where each clause of the catalog can be read: the spec files it quotes, their public
//! addresses, and the section of each (`source`).

/// The spec texts the catalog quotes: three of the five under `shared/specs/` and its
/// `README.md` (which supersedes them where the protocols moved on), and, in this repository's
/// `specs/`, the released ACP v1 text (`specs/acp-v1-cancellation.md`, which replaces the
/// pre-release `shared/specs/acp-cancellation.md`), the released MCP 2026-07-28 text
/// (`specs/mcp-2026-07-28-cancellation.md`, which replaces the draft
/// `shared/specs/mcp-cancellation-draft.md` it grew from) and the JSON-RPC 2.0 and LSP 3.17
/// sentences (`specs/json-rpc-2.0.md`, `specs/lsp-3.17.md`).
pub mod files {
    /// ACP stable as released (schema v1.17.0), quoted in this repository: the v1
    /// Cancellation page, the Prompt Turn page's Cancellation section and the schema's entries
    /// (the pre-release `shared/specs/acp-cancellation.md` is no longer quoted).
    pub const ACP: &str = "acp-v1-cancellation.md";
    /// The ACP RFD.
    pub const RFD: &str = "acp-rfd-request-cancellation.md";
    /// MCP 2025-11-25.
    pub const MCP25: &str = "mcp-cancellation-2025-11-25.md";
    /// MCP 2026-07-28 as released, quoted in this repository: its cancellation page, the
    /// sentences of its other pages that page refers to, and the schema's comments (the
    /// draft it grew from, `shared/specs/mcp-cancellation-draft.md`, is no longer quoted).
    pub const MCP26: &str = "mcp-2026-07-28-cancellation.md";
    /// The dialect table and the facts beyond the texts.
    pub const README: &str = "README.md";
    /// App-call cancellation (ABP).
    pub const ABP: &str = "app-call-cancellation.md";
    /// JSON-RPC 2.0, quoted in this repository.
    pub const JSONRPC: &str = "json-rpc-2.0.md";
    /// LSP 3.17, quoted in this repository (LSP has no text under `shared/specs/`).
    pub const LSP: &str = "lsp-3.17.md";

    /// Whether `file` is one of this repository's `specs/` (the others are under
    /// `shared/specs/`).
    pub fn in_repository(file: &str) -> bool {
        file == JSONRPC || file == LSP || file == MCP26 || file == ACP
    }
}

use files::{ABP, ACP, JSONRPC, LSP, MCP25, MCP26, README as TABLE, RFD};

/// Where a quoted clause can be read upstream: the public address of the document (with the
/// section's anchor where the page has one) and the section's heading. The quotation itself
/// is checked against the texts named in [`files`]; this is what a user opens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Source {
    /// The document's public address.
    pub url: &'static str,
    /// The section the clause stands in, as the document heads it.
    pub section: &'static str,
}

/// The public addresses of the documents the catalog quotes.
pub mod addresses {
    /// ACP (stable): the cancellation page of protocol version 1.
    pub const ACP: &str = "https://agentclientprotocol.com/protocol/v1/cancellation";
    /// ACP (stable): the schema page of protocol version 1.
    pub const ACP_SCHEMA: &str = "https://agentclientprotocol.com/protocol/v1/schema";
    /// ACP: the prompt turn page (`session/cancel`).
    pub const ACP_PROMPT_TURN: &str = "https://agentclientprotocol.com/protocol/prompt-turn";
    /// ACP (stable): the Cancellation section of the prompt turn page of protocol version 1.
    pub const ACP_V1_PROMPT_TURN: &str =
        "https://agentclientprotocol.com/protocol/v1/prompt-turn#cancellation";
    /// The ACP request cancellation RFD.
    pub const RFD: &str = "https://agentclientprotocol.com/rfds/request-cancellation";
    /// MCP revision 2025-11-25: cancellation.
    pub const MCP25: &str =
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation";
    /// MCP revision 2025-11-25: the base protocol (requests).
    pub const MCP25_BASIC: &str = "https://modelcontextprotocol.io/specification/2025-11-25/basic";
    /// MCP revision 2025-11-25: the lifecycle (timeouts).
    pub const MCP25_LIFECYCLE: &str =
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts";
    /// MCP revision 2025-11-25: progress.
    pub const MCP25_PROGRESS: &str =
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress";
    /// MCP revision 2025-11-25: transports (Streamable HTTP).
    pub const MCP25_TRANSPORTS: &str = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server";
    /// MCP revision 2026-07-28: cancellation.
    pub const MCP26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation";
    /// MCP revision 2026-07-28: the base protocol (requests).
    pub const MCP26_BASIC: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic";
    /// MCP revision 2026-07-28: the stdio transport.
    pub const MCP26_STDIO: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio";
    /// LSP 3.17: cancellation support.
    pub const LSP_CANCEL: &str = "https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#cancelRequest";
    /// LSP 3.17: the initialize request.
    pub const LSP_INITIALIZE: &str = "https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#initialize";
    /// LSP 3.17: the request message.
    pub const LSP_REQUEST: &str = "https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#requestMessage";
    /// LSP 3.17: the error codes of a response message.
    pub const LSP_ERROR_CODES: &str = "https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#errorCodes";
    /// The app-call (Agentic Browser Protocol) cancellation reference.
    pub const ABP: &str = "https://agenticbrowserprotocol.io/reference/cancellation";
    /// JSON-RPC 2.0.
    pub const JSONRPC: &str = "https://www.jsonrpc.org/specification";
}

/// `(file, start of the clause, address, section)`, first match wins; an empty start is the
/// file's default.
const SOURCES: &[(&str, &str, &str, &str)] = {
    use addresses as a;
    &[
        (ACP, "Agent-side examples", a::ACP, "Internal Cancellation"),
        (
            ACP,
            "When internal cancellation",
            a::ACP,
            "Internal Cancellation",
        ),
        (
            ACP,
            "The Client MUST respond to all pending",
            a::ACP_V1_PROMPT_TURN,
            "Cancellation",
        ),
        (
            ACP,
            "After all ongoing operations",
            a::ACP_V1_PROMPT_TURN,
            "Cancellation",
        ),
        (
            ACP,
            "The Agent MAY send session/update",
            a::ACP_V1_PROMPT_TURN,
            "Cancellation",
        ),
        (
            ACP,
            "The ID of the request to cancel",
            a::ACP_SCHEMA,
            "CancelRequestNotification",
        ),
        (ACP, "", a::ACP, "$/cancel_request Notification"),
        (RFD, "Individual JSON-RPC request", a::RFD, "Shiny future"),
        (
            RFD,
            "ID of request to cancel",
            a::RFD,
            "Implementation details and plan: Protocol Changes: Cancellation Method",
        ),
        (
            RFD,
            "The initialize request CANNOT",
            a::RFD,
            "Cancellation Behavior: Prerequisites",
        ),
        (
            RFD,
            "A party MUST declare",
            a::RFD,
            "Cancellation Behavior: Prerequisites",
        ),
        (
            RFD,
            "The calling party",
            a::RFD,
            "Cancellation Behavior: Responsibility for Support Checking",
        ),
        (
            RFD,
            "MUST cancel",
            a::RFD,
            "Cancellation Behavior: Cancellation Processing",
        ),
        (
            RFD,
            "MUST send one of",
            a::RFD,
            "Cancellation Behavior: Cancellation Processing",
        ),
        (
            RFD,
            "Agent-side examples",
            a::RFD,
            "Cancellation Behavior: Internal Cancellation",
        ),
        (
            RFD,
            "When internal cancellation",
            a::RFD,
            "Cancellation Behavior: Internal Cancellation",
        ),
        (
            RFD,
            "Clean up resources",
            a::RFD,
            "Frequently asked questions: How should implementations handle cascading cancellation?",
        ),
        (
            RFD,
            "",
            a::RFD,
            "Frequently asked questions: What happens if a request completes before the cancellation is processed?",
        ),
        (
            MCP25,
            "Both parties MUST",
            a::MCP25,
            "Timing Considerations",
        ),
        (
            MCP25,
            "potentially after",
            a::MCP25,
            "Timing Considerations",
        ),
        (
            MCP25,
            "Invalid cancellation notifications",
            a::MCP25,
            "Error Handling",
        ),
        (MCP25, "", a::MCP25, "Behavior Requirements"),
        (
            MCP26,
            "Both parties MUST",
            a::MCP26,
            "Timing Considerations",
        ),
        (
            MCP26,
            "potentially after",
            a::MCP26,
            "Timing Considerations",
        ),
        (
            MCP26,
            "The client **MUST** send",
            a::MCP26,
            "Transport-Specific Cancellation",
        ),
        (
            MCP26,
            "The server **MUST** treat",
            a::MCP26,
            "Transport-Specific Cancellation",
        ),
        (
            MCP26,
            "Closing the SSE",
            a::MCP26,
            "Transport-Specific Cancellation",
        ),
        (
            MCP26,
            "Invalid cancellation notifications",
            a::MCP26,
            "Error Handling",
        ),
        (MCP26, "**stdio**: sending", a::MCP26, "Timeouts"),
        (MCP26, "Servers **MUST NOT** send", a::MCP26, "Cancellation"),
        (
            MCP26,
            "Servers **SHOULD** stop work",
            a::MCP26_STDIO,
            "Cancellation",
        ),
        (
            MCP26,
            "Result responses",
            a::MCP26_BASIC,
            "Messages, Responses, Result Responses",
        ),
        (MCP26, "", a::MCP26, "Behavior Requirements"),
        (
            ABP,
            "Every capability call",
            a::ABP,
            "Protocol Specification: Call ID",
        ),
        (
            ABP,
            "the agent-side library",
            a::ABP,
            "Protocol Specification: Call ID",
        ),
        (ABP, "Cancel arrives", a::ABP, "Timing Considerations"),
        (ABP, "timeout option", a::ABP, "Relationship to Timeout"),
        (ABP, "", a::ABP, "Edge Cases"),
        (
            JSONRPC,
            "The Server MUST NOT reply",
            a::JSONRPC,
            "4.1 Notification",
        ),
        (
            JSONRPC,
            "This member is used",
            a::JSONRPC,
            "4 Request object (id)",
        ),
        (JSONRPC, "", a::JSONRPC, "5 Response object"),
        (
            TABLE,
            "A request that got canceled",
            a::LSP_CANCEL,
            "Cancellation Support",
        ),
        (
            TABLE,
            "MUST still answer",
            a::LSP_CANCEL,
            "Cancellation Support",
        ),
        (
            LSP,
            "The request id to cancel",
            a::LSP_CANCEL,
            "Cancellation Support",
        ),
        (
            LSP,
            "Until the server",
            a::LSP_INITIALIZE,
            "Initialize Request",
        ),
        (
            LSP,
            "Every processed request",
            a::LSP_REQUEST,
            "Request Message",
        ),
        (
            LSP,
            "ServerCancelled",
            a::LSP_ERROR_CODES,
            "Response Message: ErrorCodes",
        ),
        (
            LSP,
            "This error code should only",
            a::LSP_ERROR_CODES,
            "Response Message: ErrorCodes",
        ),
        (
            TABLE,
            "If the request completed",
            a::ACP,
            "$/cancel_request Notification",
        ),
        (
            TABLE,
            "request ids MUST NOT",
            a::MCP25_BASIC,
            "Messages: Requests",
        ),
        (TABLE, "On timeout", a::MCP25_LIFECYCLE, "Timeouts"),
        (
            TABLE,
            "Streamable HTTP: a disconnect",
            a::MCP25_TRANSPORTS,
            "Streamable HTTP: Sending Messages to the Server",
        ),
        (TABLE, "The cascade:", a::ACP_PROMPT_TURN, "Cancellation"),
        (
            TABLE,
            "Progress notifications",
            a::MCP25_PROGRESS,
            "Behavior Requirements",
        ),
        (
            TABLE,
            "since a cancelled request",
            a::MCP26_BASIC,
            "Messages: Requests",
        ),
    ]
};

/// Where `clause`, quoted from `file`, can be read upstream; `None` for a clause no entry
/// covers (a test requires every clause of the catalog to be covered).
pub fn source(file: &str, clause: &str) -> Option<Source> {
    SOURCES
        .iter()
        .find(|(f, start, _, _)| *f == file && clause.starts_with(start))
        .map(|&(_, _, url, section)| Source { url, section })
}
