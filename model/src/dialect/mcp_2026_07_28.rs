//! The rule table of MCP 2026-07-28 (`notifications/cancelled`; over Streamable HTTP a closed
//! stream): what a reviewer checks against its text.

use super::{
    CancelSenders, CancelShape, DialectRules, GiveUpSignal, Honouring, IdReuse, InitializeCancel,
    ReceiverDuty,
};
use crate::behaviour::Behaviour;

pub(super) static RULES: DialectRules = DialectRules {
    id: "mcp-2026-07-28",
    title: "MCP 2026-07-28 (client-only cancel: a notification on stdio, a closed stream on HTTP)",
    spec_file: "mcp-2026-07-28-cancellation.md",
    json_rpc: true,
    cancel_method: "notifications/cancelled",
    cancel_id_field: "requestId",
    cancel_ack_method: None,
    cancel_shape: CancelShape::Notification,
    cancel_senders: CancelSenders::ClientOnly,
    receiver_duty: ReceiverDuty::MustNotAnswer,
    honouring: Honouring::Must,
    partial_results: false,
    requester_waits: false,
    cancel_error_code: None,
    negotiated: false,
    initialize_method: None,
    initialize_cancel: InitializeCancel::Never,
    id_reuse: IdReuse::WhenDead,
    work_method: "tools/call",
    server_work_method: Some("sampling/createMessage"),
    activity_method: Some("notifications/progress"),
    activity_id_field: "progressToken",
    string_ids: false,
    session_cancel_method: None,
    task_cancel_method: None,
    cancelled_result: false,
    client_activity: true,
    give_up_signal: GiveUpSignal::Always,
    give_up: None,
    stream_close_cancels: true,
    streamable_http: true,
    text_faults: &[
        // A cancel names only a request still in progress.
        Behaviour::CancelsAfterAnswer,
        // The receiver stops processing the cancelled request, its nested requests with it.
        Behaviour::ForgetsGrandchild,
        Behaviour::SpawnsAfterCancel,
    ],
};
