//! The rule table of ABP (`capabilities/cancel`, acknowledged): what a reviewer checks against its
//! text.

use super::{
    CancelSenders, CancelShape, DialectRules, GiveUpSignal, Honouring, IdReuse, InitializeCancel,
    ReceiverDuty,
};

pub(super) static RULES: DialectRules = DialectRules {
    id: "abp",
    title: "ABP app calls (capabilities/cancel, acknowledged)",
    spec_file: "app-call-cancellation.md",
    json_rpc: false,
    cancel_method: "capabilities/cancel",
    cancel_id_field: "callId",
    cancel_ack_method: Some("capabilities/cancel-result"),
    cancel_shape: CancelShape::AcknowledgedRequest,
    cancel_senders: CancelSenders::ClientOnly,
    receiver_duty: ReceiverDuty::MustAnswer,
    honouring: Honouring::Must,
    partial_results: false,
    requester_waits: true,
    cancel_error_code: None,
    negotiated: false,
    initialize_method: Some("session/initialize"),
    // Nothing in the text forbids it; a cancel that reaches the app before the session is
    // open is answered `NOT_INITIALIZED`.
    initialize_cancel: InitializeCancel::Allowed,
    id_reuse: IdReuse::Never,
    work_method: "capabilities/call",
    server_work_method: None,
    activity_method: None,
    activity_id_field: "callId",
    string_ids: true,
    session_cancel_method: None,
    task_cancel_method: None,
    cancelled_result: false,
    client_activity: false,
    give_up_signal: GiveUpSignal::Unstated,
    give_up: None,
    stream_close_cancels: false,
    streamable_http: false,
    text_faults: &[],
};
