//! The rule table of LSP 3.17 (`$/cancelRequest`): what a reviewer checks against its text.

use super::{
    CancelSenders, CancelShape, DialectRules, GiveUp, GiveUpSignal, Honouring, IdReuse,
    InitializeCancel, RPC_CANCELLED, ReceiverDuty,
};
use crate::behaviour::Behaviour;

pub(super) static RULES: DialectRules = DialectRules {
    id: "lsp",
    title: "LSP 3.17 ($/cancelRequest)",
    spec_file: "lsp-3.17.md",
    json_rpc: true,
    cancel_method: "$/cancelRequest",
    cancel_id_field: "id",
    cancel_ack_method: None,
    cancel_shape: CancelShape::Notification,
    cancel_senders: CancelSenders::Either,
    receiver_duty: ReceiverDuty::MustAnswer,
    honouring: Honouring::May,
    partial_results: true,
    requester_waits: true,
    cancel_error_code: RPC_CANCELLED,
    negotiated: false,
    initialize_method: Some("initialize"),
    initialize_cancel: InitializeCancel::NotBeforeAnswer,
    id_reuse: IdReuse::WhenDead,
    work_method: "workspace/executeCommand",
    server_work_method: Some("workspace/configuration"),
    activity_method: Some("$/progress"),
    activity_id_field: "token",
    string_ids: false,
    session_cancel_method: None,
    task_cancel_method: None,
    cancelled_result: false,
    client_activity: true,
    give_up_signal: GiveUpSignal::Unstated,
    give_up: Some(GiveUp {
        code: -32801,
        reserved: Some(-32802),
    }),
    stream_close_cancels: false,
    streamable_http: false,
    text_faults: &[
        // Nothing is asked before `initialize` is answered.
        Behaviour::SendsBeforeInitialize,
    ],
};
