//! Model messages as JSON: the only place a model message becomes JSON.
//!
//! Each dialect's messages are rendered as they would cross the wire: JSON-RPC 2.0 for ACP,
//! MCP and LSP (method names and parameter keys from the dialect's rule table), ABP's own
//! `{"type": ...}` objects for app calls. (A run's events and verdict as JSON, which add the
//! party, the virtual time and what the endpoint did, are the root package's `trace_json`.)

use crate::acp;
use cancelcheck_model::message::{Ack, AckReason, Method};
use cancelcheck_model::{Dialect, Message, Output, Party, Reply, RequestId};
use serde_json::{Map, Value, json};

/// A request id as JSON: number, string or null, never coerced.
pub fn id_json(id: RequestId) -> Value {
    match id {
        RequestId::Null => Value::Null,
        RequestId::Int(n) => json!(n),
        RequestId::Str(s) => json!(s.as_str()),
    }
}

fn error_message(code: i64) -> &'static str {
    match code {
        -32800 => "Request cancelled",
        -32601 => "Method not found",
        -32603 => "Internal error",
        _ => "Error",
    }
}

/// The session a request of the client's runs in, where the dialect names work by its
/// session (ACP): each request has a session of its own, named `sess-` and the id as JSON
/// (`sess-7`, `sess-"a"`), so that the id can be read back ([`crate::decode::session_request`]).
pub fn session_id(id: RequestId) -> String {
    format!("sess-{}", id_json(id))
}

/// Which session each request runs in, where a dialect names work by its session (ACP),
/// read from a run's events in order: a root request of the client's runs in a session of its
/// own ([`session_id`]), and a request sent on behalf of another ([`Output::Nested`]) in the
/// session of the request it was sent for, so the agent's `session/request_permission` names
/// the prompt turn it serves. A request of the server's own (sent for no request) runs in no
/// session the model opened.
#[derive(Clone, Debug, Default)]
pub struct Sessions {
    /// Each request's session (the client's root request it descends from), by requester and
    /// id; a reused id's newest request first.
    of: Vec<((Party, RequestId), RequestId)>,
    /// The parent each party named in its last `Nested`, for the request it sends next.
    next_parent: [Option<RequestId>; 2],
}

impl Sessions {
    /// Reads one output of the run, by `party` (before it is encoded).
    pub fn observe(&mut self, party: Party, output: Output) {
        match output {
            Output::Nested { parent, .. } => self.next_parent[party.index()] = Some(parent),
            Output::Send(Message::Request { id, .. }) => {
                // A nested request runs where the request it was sent for (the peer's) runs.
                let session = match self.next_parent[party.index()].take() {
                    Some(parent) => self.of(party.peer(), parent),
                    None => (party == Party::Client).then_some(id),
                };
                self.of.retain(|(k, _)| *k != (party, id));
                if let Some(session) = session {
                    self.of.push(((party, id), session));
                }
            }
            _ => {}
        }
    }

    /// The session of the request `requester` sent with `id`, as far as the run was read.
    pub fn of(&self, requester: Party, id: RequestId) -> Option<RequestId> {
        self.of
            .iter()
            .find(|(k, _)| *k == (requester, id))
            .map(|&(_, s)| s)
    }
}

/// The message as `dialect` puts it on the wire, sent by `from` (an ACP answer reads as what
/// it answers: the agent's a prompt turn's `stopReason`, the client's a permission `outcome`),
/// outside any run: an agent's request names no session the model opened (see
/// [`message_json_in`]).
pub fn message_json(dialect: Dialect, from: Party, msg: &Message) -> Value {
    message_json_in(dialect, from, msg, &Sessions::default())
}

/// The message as [`message_json`] puts it, within a run whose events `sessions` has read:
/// an ACP agent's request names the session of the prompt turn it was sent for.
pub fn message_json_in(dialect: Dialect, from: Party, msg: &Message, sessions: &Sessions) -> Value {
    let r = dialect.rules();
    if !r.json_rpc {
        return abp_json(msg);
    }
    let method_name = |m: Method| match m {
        Method::Initialize { .. } => r.initialize_method.unwrap_or("initialize"),
        Method::Work => r.work_method,
        Method::ServerWork => r.server_work_method.unwrap_or(r.work_method),
    };
    match *msg {
        Message::Request { id, method } => {
            let params = match (method, dialect) {
                (Method::Initialize { cancel_support }, Dialect::AcpRfd) => {
                    acp::initialize_params(Some(acp::rfd_capabilities(cancel_support)), None)
                }
                (Method::Initialize { .. }, Dialect::Acp) => acp::initialize_params(None, None),
                // (The simulator's stand-in for the other dialects' handshakes; a client that
                // opens a real session sends `crate::client::initialize`.)
                (Method::Initialize { .. }, _) => json!({"protocolVersion": 1}),
                (Method::ServerWork, Dialect::Acp | Dialect::AcpRfd) => {
                    // (`s1`: a request the agent sends for no prompt turn.)
                    let session = sessions.of(from, id).map_or("s1".into(), session_id);
                    acp::permission_request_params(&session, "t1", json!([]))
                }
                (Method::ServerWork, Dialect::Lsp) => json!({"items": [{"section": "build"}]}),
                (Method::ServerWork, _) => json!({"messages": [], "maxTokens": 1}),
                (Method::Work, Dialect::Acp) => {
                    acp::prompt_params(&session_id(id), acp::text_prompt("build"))
                }
                (Method::Work, Dialect::AcpRfd) => {
                    json!({"sessionId": session_id(id), "cwd": "/work", "mcpServers": []})
                }
                (Method::Work, Dialect::Lsp) => json!({"command": "build"}),
                (Method::Work, _) => json!({"name": "build", "arguments": {}}),
            };
            json!({"jsonrpc": "2.0", "id": id_json(id), "method": method_name(method), "params": params})
        }
        Message::Response { id, reply } => {
            let mut obj = Map::new();
            obj.insert("jsonrpc".into(), json!("2.0"));
            obj.insert("id".into(), id_json(id));
            // ACP's prompt turn and permission request answer with results of their own.
            let prompt_turn = r.cancelled_result;
            match reply {
                Reply::Full | Reply::Cancelled if prompt_turn => {
                    let cancelled = reply.is_cancelled();
                    let result = match from {
                        Party::Server => acp::stop_reason(cancelled),
                        Party::Client if cancelled => acp::permission_cancelled(),
                        Party::Client => acp::permission_selected(&json!("allow")),
                    };
                    obj.insert("result".into(), result)
                }
                Reply::Full => obj.insert("result".into(), json!({"status": "done"})),
                Reply::Partial => obj.insert("result".into(), json!({"status": "partial"})),
                Reply::Initialized { cancel_support } => {
                    let caps = if r.negotiated {
                        json!({"cancellation": {"request": cancel_support}})
                    } else {
                        json!({})
                    };
                    obj.insert(
                        "result".into(),
                        json!({"protocolVersion": 1, "capabilities": caps}),
                    )
                }
                Reply::Cancelled => {
                    let code = r.cancel_error_code.unwrap_or(-32800);
                    obj.insert(
                        "error".into(),
                        json!({"code": code, "message": error_message(code)}),
                    )
                }
                Reply::Error(code) => obj.insert(
                    "error".into(),
                    json!({"code": code, "message": error_message(code)}),
                ),
            };
            Value::Object(obj)
        }
        Message::Cancel { id, session } => match r.session_cancel_method {
            Some(method) if session => {
                json!({"jsonrpc": "2.0", "method": method, "params": acp::session_cancel_params(&session_id(id))})
            }
            _ => {
                json!({"jsonrpc": "2.0", "method": r.cancel_method, "params": {r.cancel_id_field: id_json(id)}})
            }
        },
        Message::MalformedCancel => {
            json!({"jsonrpc": "2.0", "method": r.cancel_method, "params": {}})
        }
        Message::CancelAck { id, ack } => {
            // Only ABP acknowledges; a JSON-RPC rendering keeps the same fields.
            json!({"jsonrpc": "2.0", "method": r.cancel_ack_method.unwrap_or("cancel-result"),
                   "params": {"id": id_json(id), "cancelled": ack.cancelled}})
        }
        Message::Activity { id } => {
            let method = r.activity_method.unwrap_or("notifications/progress");
            let field = r.activity_id_field;
            let params = if field == "sessionId" {
                acp::message_chunk_params(&session_id(id), "working")
            } else {
                json!({field: id_json(id), "progress": 1})
            };
            json!({"jsonrpc": "2.0", "method": method, "params": params})
        }
    }
}

fn abp_json(msg: &Message) -> Value {
    match *msg {
        Message::Request {
            id,
            method: Method::Initialize { .. },
        } => {
            json!({"type": "session/initialize", "callId": id_json(id)})
        }
        Message::Request {
            id,
            method: Method::Work | Method::ServerWork,
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

/// The message as `dialect` puts it on the wire, as one line of text, with every model id
/// written back as the wire id it stands for in `ids` (so a surrogate made for a long string
/// or a number beyond `i64` goes out exactly as it came in).
///
/// ABP messages (not JSON-RPC) are written as [`message_json`] gives them.
pub fn message_text(dialect: Dialect, from: Party, msg: &Message, ids: &crate::IdMap) -> String {
    use crate::decode::WireMessage;
    let v = message_json(dialect, from, msg);
    let Some(mid) = msg.request_id() else {
        return v.to_string();
    };
    let wid = ids.wire(mid);
    if !dialect.rules().json_rpc || wid.plain() == Some(mid) {
        return v.to_string();
    }
    // A surrogate: rebuild the envelope with the exact id.
    let Ok(mut w) = WireMessage::parse(v.to_string().as_bytes()) else {
        return v.to_string();
    };
    match &mut w {
        WireMessage::Request { id, .. } | WireMessage::Response { id, .. } => *id = wid,
        WireMessage::Notification { params, .. } => {
            let r = dialect.rules();
            let field = match msg {
                Message::Activity { .. } => r.activity_id_field,
                Message::Cancel { session: true, .. } if r.session_cancel_method.is_some() => {
                    "sessionId"
                }
                _ => r.cancel_id_field,
            };
            if let Some(p) = params.as_mut().and_then(Value::as_object_mut) {
                // A number beyond what a JSON value holds exactly is written as the closest
                // one; strings are exact. A session names the exact id in its text.
                let exact = if field == "sessionId" {
                    json!(format!("sess-{}", wid.to_json_text()))
                } else {
                    serde_json::from_str::<Value>(&wid.to_json_text()).unwrap_or(Value::Null)
                };
                p.insert(field.to_string(), exact);
            }
        }
    }
    w.to_text()
}
