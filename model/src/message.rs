//! Messages as the model sees them: what crosses the wire, without JSON.
//!
//! The wire encoding per dialect (method names, parameter keys, error codes, ABP's shapes) is
//! built at the edges (the root package's `wire` module); here a message is a small `Copy`
//! value so that the simulator's hot loop never allocates.

use crate::id::RequestId;
use cancelcheck_derive::{Finite, Relabel};

/// What a request asks for. The model tells the session opener from ordinary work, and the
/// ordinary work of each direction apart (their method names differ on the wire).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Finite, Relabel)]
pub enum Method {
    /// The dialect's `initialize` (or `session/initialize`), sent by the client;
    /// `cancel_support` is what the client declares (ACP RFD `clientCapabilities.cancellation
    /// .request`; other dialects ignore it).
    Initialize {
        /// Whether the client handles cancels of requests sent to it.
        cancel_support: bool,
    },
    /// The dialect's ordinary cancellable request from the client (`tools/call`, ...).
    Work {
        /// Whether it is task-augmented (MCP 2025-11-25: `params.task`), so that it is
        /// cancelled with the dialect's task cancel
        /// ([`crate::DialectRules::task_cancel_method`]); always false elsewhere.
        task: bool,
    },
    /// The dialect's ordinary cancellable request from the server to the client (ACP
    /// `session/request_permission`, MCP `sampling/createMessage`, LSP
    /// `workspace/configuration`), where the dialect has one.
    ServerWork,
}

impl Method {
    /// Whether this is the session opener.
    pub fn is_initialize(self) -> bool {
        matches!(self, Method::Initialize { .. })
    }

    /// Whether this is the client's ordinary work, task-augmented or not.
    pub fn is_work(self) -> bool {
        matches!(self, Method::Work { .. })
    }

    /// Whether this is a task-augmented request.
    pub fn is_task(self) -> bool {
        matches!(self, Method::Work { task: true })
    }

    /// Whether this is ordinary work of `party`'s, task-augmented or not.
    pub fn is_work_of(self, party: crate::id::Party) -> bool {
        self == Method::work_of(party, self.is_task())
    }

    /// Ordinary work of the party that sends it (the client's task-augmented where `task`).
    pub fn work_of(party: crate::id::Party, task: bool) -> Method {
        match party {
            crate::id::Party::Client => Method::Work { task },
            crate::id::Party::Server => Method::ServerWork,
        }
    }
}

/// The body of a response.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Relabel)]
pub enum Reply {
    /// A complete result (ABP: `{success: true}`).
    Full,
    /// A valid result holding partial data, sent because of a cancel (ACP, ACP RFD, LSP).
    Partial,
    /// The answer to `initialize`; `cancel_support` is what the sender declares
    /// (ACP RFD `cancellation: {request: true}`; other dialects ignore it).
    Initialized {
        /// Whether the answering party handles cancels of requests sent to it.
        cancel_support: bool,
    },
    /// The request was cancelled: JSON-RPC error -32800, or ABP `{success: false, cancelled: true}`.
    Cancelled,
    /// Some other error, by JSON-RPC code.
    Error(i64),
}

impl Reply {
    /// Whether this answer tells the requester the request was cancelled.
    pub fn is_cancelled(self) -> bool {
        matches!(self, Reply::Cancelled)
    }
}

/// Why an acknowledged cancel (ABP) answered as it did.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Finite, Relabel)]
pub enum AckReason {
    /// No reason given (the normal `cancelled: true`).
    None,
    /// `"Operation not found"`: the call id is unknown.
    NotFound,
    /// `"Operation already completed"`.
    AlreadyCompleted,
    /// No session is open: ABP answers the cancel with error `{code: "NOT_INITIALIZED"}`
    /// instead of a `cancelled` flag ("Cancel without active session").
    NotInitialized,
}

impl AckReason {
    /// The reason text ABP puts on the wire, if any.
    pub fn text(self) -> Option<&'static str> {
        match self {
            AckReason::None => None,
            AckReason::NotFound => Some("Operation not found"),
            AckReason::AlreadyCompleted => Some("Operation already completed"),
            AckReason::NotInitialized => None,
        }
    }
}

/// The answer to an acknowledged cancel.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Finite, Relabel)]
pub struct Ack {
    /// Whether the call is (now) cancelled.
    pub cancelled: bool,
    /// Why not, when not.
    pub reason: AckReason,
}

impl Ack {
    /// The plain `{cancelled: true}`.
    pub const CANCELLED: Ack = Ack {
        cancelled: true,
        reason: AckReason::None,
    };

    /// The error answer to a cancel that reaches an app with no session.
    pub const NOT_INITIALIZED: Ack = Ack {
        cancelled: false,
        reason: AckReason::NotInitialized,
    };
}

/// One message on the wire.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Message {
    /// A request that expects exactly one response.
    Request {
        /// Its id, chosen by the sender.
        id: RequestId,
        /// What it asks for.
        method: Method,
    },
    /// The response to the request with this id (`id: null` answers something that had none).
    Response {
        /// The id of the request answered, exactly as it was sent (unless a peer is faulty).
        id: RequestId,
        /// The body.
        reply: Reply,
    },
    /// The dialect's cancel for the request with this id, sent by that request's requester.
    Cancel {
        /// The id of the request to cancel.
        id: RequestId,
        /// Whether the cancel names the request's session rather than the request: the
        /// dialect's feature-specific cancel of the client's work
        /// ([`crate::DialectRules::session_cancel_method`], ACP's `session/cancel {sessionId}`
        /// for a prompt turn; each prompt turn has a session of its own, named after the
        /// prompt's id), or, for a task-augmented request, its task
        /// ([`crate::DialectRules::task_cancel_method`], MCP's `tasks/cancel {taskId}`, a
        /// request the receiver answers with the task's final state, a
        /// [`Message::CancelAck`]). The receiver honours both forms alike.
        session: bool,
    },
    /// A cancel whose id field is missing or of the wrong type.
    MalformedCancel,
    /// ABP's `capabilities/cancel-result`, or the answer to MCP's `tasks/cancel` (the final
    /// task state: `cancelled`, or `completed` for a task that ended first).
    CancelAck {
        /// The call the cancel named.
        id: RequestId,
        /// The acknowledgement.
        ack: Ack,
    },
    /// Activity for a request in progress (progress notification, session update).
    Activity {
        /// The request it is about.
        id: RequestId,
    },
}

impl Message {
    /// The request id the message is about, if any.
    pub fn request_id(&self) -> Option<RequestId> {
        match *self {
            Message::Request { id, .. }
            | Message::Response { id, .. }
            | Message::Cancel { id, .. }
            | Message::CancelAck { id, .. }
            | Message::Activity { id } => Some(id),
            Message::MalformedCancel => None,
        }
    }

    /// The same message about request `id` instead (a message without an id is unchanged).
    pub fn with_request_id(self, new: RequestId) -> Message {
        match self {
            Message::Request { method, .. } => Message::Request { id: new, method },
            Message::Response { reply, .. } => Message::Response { id: new, reply },
            Message::Cancel { session, .. } => Message::Cancel { id: new, session },
            Message::CancelAck { ack, .. } => Message::CancelAck { id: new, ack },
            Message::Activity { .. } => Message::Activity { id: new },
            Message::MalformedCancel => self,
        }
    }

    /// A short lower-case name of the message kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::Request { .. } => "request",
            Message::Response { .. } => "response",
            Message::Cancel { .. } => "cancel",
            Message::MalformedCancel => "malformed-cancel",
            Message::CancelAck { .. } => "cancel-ack",
            Message::Activity { .. } => "activity",
        }
    }
}

/// Why a requester gave up on a request.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Finite, Relabel)]
pub enum CancelCause {
    /// Its application asked to cancel.
    User,
    /// Its timeout fired (internal cancellation).
    Timeout,
    /// The received request on whose behalf it was sent (its parent) was cancelled: the
    /// cascade of that cancel.
    Parent,
}

/// What a requester delivers to its application: the single resolution of one request.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Outcome {
    /// The peer's answer, as received.
    Reply(Reply),
    /// The request was cancelled (the peer confirmed it, or the dialect resolves at once).
    Cancelled(CancelCause),
    /// The connection closed first.
    Disconnected,
}
