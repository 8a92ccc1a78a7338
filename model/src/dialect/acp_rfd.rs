//! The rule table of the ACP RFD of 2025-11 (`$/cancelRequest`, negotiated): what a reviewer checks
//! against its text.

use super::{
    CancelSenders, CancelShape, DialectRules, GiveUp, GiveUpSignal, Honouring, IdReuse,
    InitializeCancel, RPC_CANCELLED, ReceiverDuty,
};
use crate::behaviour::Behaviour;

pub(super) static RULES: DialectRules = DialectRules {
    id: "acp-rfd",
    title: "ACP RFD 2025-11 ($/cancelRequest, negotiated)",
    spec_file: "acp-rfd-request-cancellation.md",
    json_rpc: true,
    cancel_method: "$/cancelRequest",
    cancel_id_field: "id",
    cancel_ack_method: None,
    cancel_shape: CancelShape::Notification,
    cancel_senders: CancelSenders::Either,
    receiver_duty: ReceiverDuty::MustAnswer,
    honouring: Honouring::Must,
    partial_results: true,
    requester_waits: true,
    cancel_error_code: RPC_CANCELLED,
    negotiated: true,
    initialize_method: Some("initialize"),
    initialize_cancel: InitializeCancel::Never,
    id_reuse: IdReuse::WhenDead,
    work_method: "session/load",
    server_work_method: Some("session/request_permission"),
    activity_method: None,
    activity_id_field: "sessionId",
    string_ids: false,
    session_cancel_method: None,
    task_cancel_method: None,
    cancelled_result: false,
    client_activity: false,
    give_up_signal: GiveUpSignal::Unstated,
    give_up: Some(GiveUp {
        code: -32800,
        reserved: None,
    }),
    stream_close_cancels: false,
    streamable_http: false,
    text_faults: &[
        // The receiver cancels "all nested activities" of the cancelled request, and no other.
        Behaviour::ForgetsGrandchild,
        Behaviour::SpawnsAfterCancel,
        Behaviour::CancelsSiblingSubtree,
        // Permission requests are answered after a cancel.
        Behaviour::LeavesChildPending,
    ],
};
