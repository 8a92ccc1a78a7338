//! Model messages as JSON: the only place a model message becomes JSON.
//!
//! Each dialect's messages are rendered as they would cross the wire: JSON-RPC 2.0 for ACP,
//! MCP and LSP (method names and parameter keys from the dialect's rule table), ABP's own
//! `{"type": ...}` objects for app calls. (A run's events and verdict as JSON, which add the
//! party, the virtual time and what the endpoint did, are the root package's `trace_json`.)

use cancelcheck_model::message::Method;
use cancelcheck_model::{Dialect, Message, Output, Party, RequestId};
use serde_json::{Value, json};

/// A request id as JSON: number, string or null, never coerced.
pub fn id_json(id: RequestId) -> Value {
    match id {
        RequestId::Null => Value::Null,
        RequestId::Int(n) => json!(n),
        RequestId::Str(s) => json!(s.as_str()),
    }
}

pub(crate) fn error_message(code: i64) -> &'static str {
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
///
/// This is the model's naming, for the simulator's traces (and the corpus), where no agent
/// opens sessions: it is no wire shape a client sends a peer. The probe's prompts and its
/// `session/cancel` name the session the agent returned from `session/new`; the test peer, an
/// agent, sends no session cancel and names the sessions it opened.
pub fn session_id(id: RequestId) -> String {
    format!("sess-{}", id_json(id))
}

/// [`session_id`] of the request whose id crosses the wire as `id` (exactly, where the model
/// holds a surrogate for it).
pub fn wire_session_id(id: &crate::WireId) -> String {
    format!("sess-{}", id.to_json_text())
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
        return crate::abp::message_json(msg);
    }
    // A server's request runs in the session of the request it was sent for.
    let session = match *msg {
        Message::Request {
            id,
            method: Method::ServerWork,
        } => sessions.of(from, id),
        _ => None,
    };
    crate::shapes::of(dialect).model_message(from, msg, session)
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
            if let Some(p) = params.as_mut() {
                crate::shapes::of(dialect).model_notification_params(msg, &wid, p);
            }
        }
    }
    w.to_text()
}
