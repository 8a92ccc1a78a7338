//! The rule table of MCP 2025-11-25 (`notifications/cancelled`): what a reviewer checks against its
//! text.

use super::{
    CancelSenders, CancelShape, DialectRules, GiveUpSignal, Honouring, IdReuse, InitializeCancel,
    ReceiverDuty,
};
use crate::behaviour::Behaviour;

pub(super) static RULES: DialectRules = DialectRules {
    id: "mcp-2025-11-25",
    title: "MCP 2025-11-25 (notifications/cancelled)",
    spec_file: "mcp-cancellation-2025-11-25.md",
    json_rpc: true,
    cancel_method: "notifications/cancelled",
    cancel_id_field: "requestId",
    cancel_ack_method: None,
    cancel_shape: CancelShape::Notification,
    cancel_senders: CancelSenders::Either,
    receiver_duty: ReceiverDuty::ShouldNotAnswer,
    honouring: Honouring::May,
    partial_results: false,
    requester_waits: false,
    cancel_error_code: None,
    negotiated: false,
    initialize_method: Some("initialize"),
    initialize_cancel: InitializeCancel::Never,
    id_reuse: IdReuse::Never,
    work_method: "tools/call",
    server_work_method: Some("sampling/createMessage"),
    activity_method: Some("notifications/progress"),
    activity_id_field: "progressToken",
    string_ids: false,
    session_cancel_method: None,
    task_cancel_method: Some("tasks/cancel"),
    cancelled_result: false,
    client_activity: true,
    give_up_signal: GiveUpSignal::OnTimeout,
    give_up: None,
    stream_close_cancels: false,
    streamable_http: true,
    text_faults: &[
        // Progress stops at the answer.
        Behaviour::ActivityAfterAnswer,
        // A cancel names only a request still in progress.
        Behaviour::CancelsAfterAnswer,
        // The receiver stops processing the cancelled request, its nested requests with it.
        Behaviour::ForgetsGrandchild,
        Behaviour::SpawnsAfterCancel,
        // A disconnect is not a cancel.
        Behaviour::CancelsOnDisconnect,
    ],
};
