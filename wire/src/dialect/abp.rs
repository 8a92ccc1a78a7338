//! ABP's wire shapes: app calls as ABP's own `{"type": ...}` objects (not JSON-RPC), as the
//! simulator renders the model's messages. ABP has no client wire form here: the probe, audit
//! and watch refuse it, and its [`Shapes`] define no client message the schema check knows.

use crate::WireMessage;
use crate::encode::{error_message, id_json};
use crate::schema::SchemaError;
use crate::shapes::{Identity, Shapes};
use cancelcheck_model::message::{Ack, AckReason, Method};
use cancelcheck_model::{Dialect, Message, Reply, RequestId};
use serde_json::{Value, json};

/// A model message as ABP puts it on the wire.
pub fn message_json(msg: &Message) -> Value {
    match *msg {
        Message::Request {
            id,
            method: Method::Initialize { .. },
        } => {
            json!({"type": "session/initialize", "callId": id_json(id)})
        }
        Message::Request {
            id,
            method: Method::Work { .. } | Method::ServerWork,
        } => {
            json!({"type": "capabilities/call", "callId": id_json(id), "capability": "pdf.generate", "params": {}})
        }
        Message::Response { id, reply } => match reply {
            Reply::Initialized { .. } => {
                json!({"type": "session/initialize-result", "callId": id_json(id), "success": true})
            }
            Reply::Full | Reply::Partial => {
                json!({"type": "capabilities/call-result", "callId": id_json(id), "success": true, "data": {}})
            }
            Reply::Cancelled => {
                json!({"type": "capabilities/call-result", "callId": id_json(id), "success": false, "cancelled": true})
            }
            Reply::Error(code) => {
                json!({"type": "capabilities/call-result", "callId": id_json(id), "success": false,
                                          "error": {"code": code, "message": error_message(code)}})
            }
        },
        Message::Cancel { id, .. } => {
            json!({"type": "capabilities/cancel", "callId": id_json(id)})
        }
        Message::MalformedCancel => json!({"type": "capabilities/cancel"}),
        Message::CancelAck {
            id,
            ack:
                Ack {
                    reason: AckReason::NotInitialized,
                    ..
                },
        } => json!({"type": "capabilities/cancel-result", "callId": id_json(id),
                    "error": {"code": "NOT_INITIALIZED"}}),
        Message::CancelAck { id, ack } => {
            let mut v = json!({"type": "capabilities/cancel-result", "callId": id_json(id), "cancelled": ack.cancelled});
            if let Some(reason) = ack.reason.text() {
                v["reason"] = json!(reason);
            }
            v
        }
        Message::Activity { id } => json!({"type": "capabilities/progress", "callId": id_json(id)}),
    }
}

/// ABP's shapes ([`crate::shapes::Shapes`]): none a JSON-RPC client sends.
pub struct Abp;

/// ABP's shapes.
pub static ABP: Abp = Abp;

impl Shapes for Abp {
    fn dialect(&self) -> Dialect {
        Dialect::Abp
    }

    fn null_id_names_a_request(&self) -> bool {
        false
    }

    fn knows(&self, _method: &str) -> bool {
        false
    }

    /// Every request and notification: no JSON-RPC method of a client's.
    fn check_client(&self, msg: &WireMessage) -> Result<(), SchemaError> {
        match msg.method() {
            Some(m) => Err(SchemaError::UnknownMethod(m.to_string())),
            None => Ok(()),
        }
    }

    fn barrier(&self, _me: Identity<'_>) -> (&'static str, Option<Value>) {
        ("$/cancelcheck/barrier", None)
    }

    fn default_work_params(&self) -> Value {
        json!({"name": "slow", "arguments": {"ms": 300}})
    }

    fn model_work_params(&self, _id: RequestId) -> Value {
        json!({"name": "build", "arguments": {}})
    }

    fn model_server_work_params(&self, _session: Option<RequestId>) -> Value {
        json!({"messages": [], "maxTokens": 1})
    }
}
