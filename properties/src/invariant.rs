//! The invariant catalog: stable ids, where each applies, how strongly, and which spec clause
//! it comes from. `cancelcheck properties --json` exports exactly this table.

use cancelcheck_model::Dialect;
use cancelcheck_model::dialect::SpecRef;
use core::fmt;

/// How strongly a clause binds: what breaking it makes the verdict.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Strength {
    /// MUST / MUST NOT: breaking it fails the run.
    Must,
    /// SHOULD / SHOULD NOT: breaking it is a warning.
    Should,
    /// Stated by its text without a keyword (a table row, a goal, the bound of a MAY), or a
    /// hazard the texts ask to model: breaking it is a note under that sentence. It makes the
    /// run warn, never fail, and never claims a MUST or SHOULD the text does not write.
    Note,
    /// Not a rule but a coverage obligation: a race the tool claims to check. Never a
    /// violation; a run that never reaches it is vacuous.
    Coverage,
}

impl Strength {
    /// `"MUST"`, `"SHOULD"`, `"NOTE"` or `"COVERAGE"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Must => "MUST",
            Strength::Should => "SHOULD",
            Strength::Note => "NOTE",
            Strength::Coverage => "COVERAGE",
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
    InternalCancelCode,
    NotificationUnanswered,
    UnknownCancelHarmless,
    UnknownIdCancelIgnored,
    ExactIdMatch,
    CancelNamesSentRequest,
    NoLiveIdReuse,
    InitializeNotCancelled,
    CapabilityGated,
    UndeclaredCancelIgnored,
    NoActivityAfterAnswer,
    NoActivityAfterCancel,
    AckAgreesWithOutcome,
    CancelIdempotent,
    NoLeakAtQuiescence,
    CancelHonoured,
    CancelFromAllowedParty,
    CascadeComplete,
    CascadeOnGiveUp,
    ChildrenBeforeParent,
    NoChildAfterCancel,
    NoChildAfterGiveUp,
    SiblingsUntouched,
    PromptCancelledStopReason,
    MalformedCancelIgnored,
    CancelSentOnGiveUp,
    CancelOnlyInProgress,
    NoRequestBeforeInitialize,
    CancelResultPerTable,
    PermissionCancelledAfterCancel,
    TaskCancelledByRequest,
    CloseIsCancel,
    DisconnectNotCancel,
    RaceCancelCrossesAnswer,
    RaceCancelBeforeWork,
    RaceTimeoutWithAnswerInFlight,
    RaceAnswerAfterCancel,
    RaceCloseCrossesAnswer,
    RaceResumeAfterLoss,
    RaceProgressAfterClose,
}

/// One dialect's reading of a property.
#[derive(Debug)]
pub struct Application {
    /// The dialect.
    pub dialect: Dialect,
    /// How strongly its text states it.
    pub strength: Strength,
    /// Where: the file and the clause, quoted word for word (a test checks every quotation
    /// against the file; ` ... ` joins quoted fragments that stand in this order).
    pub clause: SpecRef,
    /// Why the strength or the reading is what it is, where the quotation alone does not say.
    pub note: Option<&'static str>,
    /// For a quotation stated without a keyword: the sentence of the dialect's texts, word for
    /// word, whose keyword binds the same duty and gives the strength (the note says how the
    /// two meet). A test requires it to stand in the dialect's texts with that keyword.
    pub bound_by: Option<&'static str>,
    /// Whether a wire-only judge decides it in this dialect, where that differs from the
    /// invariant's [`Invariant::observable_on_wire`] (`None`: as the invariant says). A rule
    /// about request trees, for one, is decided on the wire only where the wire links a nested
    /// request to its parent (ACP's agent names the session of the prompt it serves).
    pub on_wire: Option<bool>,
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
    /// Whether a judge that sees only the messages on the wire (a probe of a real peer, an
    /// audit of a recording) can decide it; otherwise it depends on what a party did inside
    /// (what it delivered to its application, what it still holds) and such a judge must
    /// report it as not observable. A dialect's application may say otherwise
    /// ([`Invariant::observable_in`]).
    pub observable_on_wire: bool,
    /// The dialects it applies to, each with its strength and clause.
    pub applies: &'static [Application],
}

impl Invariant {
    /// Its reading in `dialect`, if it applies there.
    pub fn application(&self, dialect: Dialect) -> Option<&'static Application> {
        self.applies.iter().find(|a| a.dialect == dialect)
    }

    /// The clause it comes from in `dialect`, cited ([`Application::cite`]), if it applies there.
    pub fn cite_in(&self, dialect: Dialect) -> Option<String> {
        self.application(dialect).map(Application::cite)
    }

    /// Whether a judge that sees only the wire decides it in `dialect`: the application's own
    /// answer where it gives one, else [`Invariant::observable_on_wire`].
    pub fn observable_in(&self, dialect: Dialect) -> bool {
        self.application(dialect)
            .and_then(|a| a.on_wire)
            .unwrap_or(self.observable_on_wire)
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

impl Application {
    /// Where this application's clause can be read upstream.
    pub fn source(&self) -> Option<Source> {
        source(self.clause.file, self.clause.clause)
    }

    /// The clause as a user can look it up: `ADDRESS (SECTION): "QUOTE"` (or, for a clause no
    /// address covers, which a test rules out, `FILE: "QUOTE"`).
    pub fn cite(&self) -> String {
        match self.source() {
            Some(s) => format!("{} ({}): \"{}\"", s.url, s.section, self.clause.clause),
            None => format!("{}: \"{}\"", self.clause.file, self.clause.clause),
        }
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

    /// The bit of this id in a `u64` set.
    pub fn bit(self) -> u64 {
        1 << (self as u64)
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

    #[test]
    fn catalog_is_in_id_order_with_unique_names() {
        for (i, inv) in CATALOG.iter().enumerate() {
            assert_eq!(inv.id as usize, i, "{} out of order", inv.name);
            assert_eq!(InvariantId::from_name(inv.name), Some(inv.id));
            assert!(!inv.applies.is_empty(), "{} applies nowhere", inv.name);
            assert!(inv.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
        }
        assert!(CATALOG.len() <= 64, "bit sets are u64");
    }

    /// A rule of request trees is decided on the wire only where the wire links a nested
    /// request to its parent (ACP's `sessionId`), and never where it turns on what a party did
    /// inside (gave a request up, or meant to cancel it).
    #[test]
    fn tree_rules_are_decided_on_the_wire_only_where_the_wire_links_parent_and_child() {
        use InvariantId::*;
        let on = |i: InvariantId, d: Dialect| i.info().observable_in(d);
        assert!(on(ChildrenBeforeParent, Dialect::Acp));
        assert!(on(NoChildAfterCancel, Dialect::AcpRfd));
        assert!(!on(NoChildAfterCancel, Dialect::Mcp20251125));
        assert!(!on(NoChildAfterCancel, Dialect::Mcp20260728));
        for d in Dialect::ALL {
            assert!(!on(CascadeComplete, d), "{d}");
            assert!(!on(CascadeOnGiveUp, d), "{d}");
            assert!(!on(NoChildAfterGiveUp, d), "{d}");
            assert!(!on(SiblingsUntouched, d), "{d}");
        }
        // Elsewhere an application says what its invariant says.
        for inv in CATALOG.iter() {
            for a in inv.applies {
                let tree = matches!(inv.id, ChildrenBeforeParent | NoChildAfterCancel);
                assert!(tree || a.on_wire.is_none(), "{} in {}", inv.name, a.dialect);
            }
        }
    }
}
