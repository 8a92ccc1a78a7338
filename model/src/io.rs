//! What a driver feeds an endpoint, and what the endpoint does in return.
//!
//! All values are `Copy` and small: the simulator and explorer pass them by value in their
//! hot loops, and the checker reads them as they go by.

use crate::id::RequestId;
use crate::message::{Message, Outcome};
use crate::request::IllegalTransition;

/// One thing that happens to an endpoint.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Input {
    /// A message arrived from the peer.
    Receive(Message),
    /// The endpoint's application asks for something.
    Command(Command),
    /// The work for a received request finished.
    WorkDone(RequestId),
    /// The work for a received request has progress to report.
    WorkProgress(RequestId),
    /// The party gives up, on its own, a request it received and still works on (a timeout, a
    /// resource limit): internal cancellation, answered as the dialect says.
    InternalCancel(RequestId),
    /// A timer the endpoint armed has fired.
    TimerFired(Timer),
    /// The connection closed.
    Disconnected,
    /// Streamable HTTP, at the server: the response stream of the client's request with this
    /// id closed (the client closed it, or the connection carrying it dropped: a server cannot
    /// tell which).
    StreamClosed(RequestId),
    /// Streamable HTTP, at the client: the connection carrying the response stream of its
    /// request with this id dropped; what the server writes on it meanwhile waits for a resume.
    StreamLost(RequestId),
    /// Streamable HTTP, at the client: it reconnected to that stream (`Last-Event-ID`), and
    /// what the server kept follows.
    StreamResumed(RequestId),
}

/// An application command.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Command {
    /// Open the session (send `initialize`, where the dialect has one).
    Initialize,
    /// Send an ordinary request; the endpoint picks its id and reports it in the `Send` output.
    /// `task`: the client's request is task-augmented where the dialect has tasks
    /// ([`crate::DialectRules::task_cancel_method`]; ignored elsewhere and by the server).
    Send {
        /// Whether the request is task-augmented.
        task: bool,
    },
    /// Send an ordinary request on behalf of the received request with this id, whose work is
    /// running here: a nested request (a child of that request in the request tree). The
    /// endpoint reports the link as an [`Output::Nested`] right before the request's `Send`.
    SendNested(RequestId),
    /// Cancel the request with this id.
    Cancel(RequestId),
    /// Send a cancel whose id field is missing or of the wrong type (a buggy or hostile peer;
    /// the receiver must ignore it).
    MalformedCancel,
}

/// A timer an endpoint arms and a driver fires (when, the driver decides: the model has no clock).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Timer {
    /// The request's own timeout: internal cancellation.
    RequestTimeout(RequestId),
    /// The connect timeout while `initialize` is unanswered.
    InitTimeout,
}

/// Why an application command was not carried out.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Refusal {
    /// No request with that id awaits an answer.
    NotPending,
    /// A cancel for it was already sent.
    AlreadyCancelling,
    /// The dialect forbids cancelling `initialize`.
    InitializeNotCancellable,
    /// The peer did not declare cancellation support (ACP RFD), or the session is not ready.
    NotNegotiated,
    /// This party may not cancel in this dialect (MCP 2026-07-28: only the client cancels).
    WrongParty,
    /// The session is not open (no `initialize` answered yet) or already closed.
    NoSession,
    /// A nested request names a parent whose work is not running here, or that was cancelled.
    NoParent,
}

/// Something received that the endpoint set aside, harmlessly, as the spec allows.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Ignored {
    /// An answer to a request resolved locally at cancel time (MCP: "SHOULD ignore").
    LateAnswer(RequestId),
    /// A cancel for an id this endpoint does not know, or no longer works on.
    UnknownCancel(RequestId),
    /// A cancel for a request already answered (it crossed the answer on the wire).
    CancelAfterAnswer(RequestId),
    /// A cancel that could not be parsed.
    MalformedCancel,
    /// A cancel this endpoint declared no support for (ACP RFD).
    UnsupportedCancel(RequestId),
    /// A repeated cancel for a request already cancelling.
    RepeatedCancel(RequestId),
    /// A timer for a request no longer pending.
    StaleTimer,
}

/// Something the peer did wrong, as this endpoint sees it: a value, never a panic.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Anomaly {
    /// A response for an id with no request awaiting one.
    UnsolicitedResponse(RequestId),
    /// A second response for a request already answered.
    DuplicateResponse(RequestId),
    /// Activity for a request already answered.
    ActivityAfterAnswer(RequestId),
    /// A request reusing the id of a request still in progress here.
    DuplicateRequestId(RequestId),
    /// A cancel acknowledgement for a call never cancelled.
    UnexpectedAck(RequestId),
    /// A driver input that does not fit the request's state (e.g. work finishing twice).
    Illegal(RequestId, IllegalTransition),
    /// Work reported for a request this endpoint does not hold.
    UnknownWork(RequestId),
}

/// One thing an endpoint does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Output {
    /// Put a message on the wire to the peer.
    Send(Message),
    /// The request sent next (the following `Send`) is a child of `parent`, a request this
    /// endpoint received and works on: the edge of the request tree. Not a message: the wire
    /// does not carry the link.
    Nested {
        /// The received request on whose behalf the child is sent.
        parent: RequestId,
        /// The child's id.
        child: RequestId,
    },
    /// Resolve one of this endpoint's requests to its application (once per request).
    Deliver {
        /// The request.
        id: RequestId,
        /// Its outcome.
        outcome: Outcome,
    },
    /// Start the work for a received request.
    StartWork(RequestId),
    /// Abort the running work for a received request.
    AbortWork(RequestId),
    /// The responder is done with a received request without answering it.
    Dropped(RequestId),
    /// Arm a timer; the driver fires it (or never, once disarmed).
    ArmTimer(Timer),
    /// Disarm a timer.
    DisarmTimer(Timer),
    /// An application command was not carried out.
    Refused(Command, Refusal),
    /// Something harmless was set aside.
    Ignored(Ignored),
    /// The peer misbehaved.
    Anomaly(Anomaly),
    /// The endpoint crashed (faulty behaviours only); it ignores every later input.
    Crashed,
    /// Streamable HTTP: close the response stream of this endpoint's request with this id
    /// (the client's cancel where closing the stream is the cancel: MCP 2026-07-28).
    CloseStream(RequestId),
}
