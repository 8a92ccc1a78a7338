//! The rule table of ACP, stable (`$/cancel_request`, `session/cancel`): what a reviewer checks
//! against its text.

use super::{
    CancelSenders, CancelShape, DialectRules, GiveUp, GiveUpSignal, Honouring, IdReuse,
    InitializeCancel, RPC_CANCELLED, ReceiverDuty,
};
use crate::behaviour::Behaviour;

pub(super) static RULES: DialectRules = DialectRules {
    id: "acp",
    title: "ACP (stable, $/cancel_request)",
    spec_file: "acp-v1-cancellation.md",
    json_rpc: true,
    cancel_method: "$/cancel_request",
    cancel_id_field: "requestId",
    cancel_ack_method: None,
    cancel_shape: CancelShape::Notification,
    cancel_senders: CancelSenders::Either,
    receiver_duty: ReceiverDuty::MustAnswer,
    honouring: Honouring::May,
    partial_results: false,
    requester_waits: true,
    cancel_error_code: RPC_CANCELLED,
    negotiated: false,
    initialize_method: Some("initialize"),
    initialize_cancel: InitializeCancel::Allowed,
    id_reuse: IdReuse::WhenDead,
    work_method: "session/prompt",
    server_work_method: Some("session/request_permission"),
    activity_method: Some("session/update"),
    activity_id_field: "sessionId",
    string_ids: false,
    session_cancel_method: Some("session/cancel"),
    task_cancel_method: None,
    cancelled_result: true,
    client_activity: false,
    give_up_signal: GiveUpSignal::Unstated,
    give_up: Some(GiveUp {
        code: -32800,
        reserved: None,
    }),
    stream_close_cancels: false,
    streamable_http: false,
    text_faults: &[
        // Progress (`session/update`) ends with the prompt turn's answer.
        Behaviour::ActivityAfterAnswer,
        // The agent answers the prompt turn after its own requests are resolved.
        Behaviour::AnswersParentFirst,
        // A cancel reaches the cancelled request's nested work, and no other.
        Behaviour::CancelsSiblingSubtree,
        // The client answers every pending permission request after a cancel.
        Behaviour::LeavesChildPending,
    ],
};
