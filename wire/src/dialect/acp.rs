//! ACP's wire shapes: the messages of a connection and a prompt turn, for both parties, and what
//! the schema requires of the client's.
//!
//! The facts are those of ACP's schema (`schema/v1/schema.json` in the
//! `agentclientprotocol/agent-client-protocol` repository, v1.17.0 to v1.21.0 alike):
//! - `initialize` (`InitializeRequest`) requires `protocolVersion`, an integer (0 to 65535;
//!   version 1 is the stable protocol); `clientCapabilities` (an object) and `clientInfo`
//!   (`{name, version}`, which the text says a client SHOULD send) are optional. The agent
//!   answers (`InitializeResponse`) with the `protocolVersion` it chose and its
//!   `agentCapabilities`.
//! - `session/new` (`NewSessionRequest`) requires `cwd` (an absolute path) and `mcpServers` (an
//!   array); the answer (`NewSessionResponse`) carries the `sessionId`, an opaque string.
//! - `session/prompt` (`PromptRequest`) requires `sessionId` and `prompt`, an array of content
//!   blocks (`ContentBlock`: `{"type": "text", "text": ...}`, `image` and `audio` with `data`
//!   and `mimeType`, `resource_link` with `name` and `uri`, `resource` with `resource`).
//! - `session/cancel` (`CancelNotification`) requires `sessionId`; `$/cancel_request`
//!   (`CancelRequestNotification`) requires `requestId` (a string, an integer or null).
//! - Methods whose name starts with `_` are extensions, free of shape; a receiver that does not
//!   know one answers -32601.
//!
//! The ACP RFD's `$/cancelRequest {id}` and `clientCapabilities.cancellation.request` come from
//! its own text (`acp-rfd-request-cancellation.md`).

use crate::WireMessage;
use crate::decode::{Body, Context};
use crate::schema::{Fields, Kind, SchemaError, implementation};
use crate::shapes::{Call, Identity, Plumbing, Shapes};
use cancelcheck_model::{Dialect, Party, RequestId};
use serde_json::{Value, json};

/// The stable protocol's version, an integer.
pub const PROTOCOL_VERSION: u64 = 1;
/// Opens the connection.
pub const INITIALIZE: &str = "initialize";
/// Opens a session; its answer names it.
pub const NEW_SESSION: &str = "session/new";
/// A prompt turn.
pub const PROMPT: &str = "session/prompt";
/// The prompt turn's own cancel, naming the session.
pub const SESSION_CANCEL: &str = "session/cancel";
/// The generic cancel of any other request (stable ACP).
pub const CANCEL_REQUEST: &str = "$/cancel_request";
/// The generic cancel of the ACP RFD.
pub const RFD_CANCEL_REQUEST: &str = "$/cancelRequest";
/// The agent asks the client for permission (a request nested in a prompt turn).
pub const REQUEST_PERMISSION: &str = "session/request_permission";
/// The agent's updates of a session.
pub const SESSION_UPDATE: &str = "session/update";

/// `initialize`'s params: the version, then `clientCapabilities` and `clientInfo` (`name`,
/// `version`) where given.
pub fn initialize_params(capabilities: Option<Value>, client: Option<(&str, &str)>) -> Value {
    let mut p = json!({"protocolVersion": PROTOCOL_VERSION});
    if let Some(c) = capabilities {
        p["clientCapabilities"] = c;
    }
    if let Some((name, version)) = client {
        p["clientInfo"] = json!({"name": name, "version": version});
    }
    p
}

/// The ACP RFD's client capabilities: whether it handles `$/cancelRequest`.
pub fn rfd_capabilities(request: bool) -> Value {
    json!({"cancellation": {"request": request}})
}

/// `session/new`'s params: a working directory (absolute) and no MCP servers.
pub fn new_session_params(cwd: &str) -> Value {
    json!({"cwd": cwd, "mcpServers": []})
}

/// A prompt of one text block.
pub fn text_prompt(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

/// `session/prompt`'s params: the session and the prompt's content blocks.
pub fn prompt_params(session: &str, prompt: Value) -> Value {
    json!({"sessionId": session, "prompt": prompt})
}

/// `session/cancel`'s params.
pub fn session_cancel_params(session: &str) -> Value {
    json!({ "sessionId": session })
}

/// The client's answer to a permission request once it has cancelled the prompt turn.
pub fn permission_cancelled() -> Value {
    json!({"outcome": {"outcome": "cancelled"}})
}

/// The client's answer to a permission request: the option chosen.
pub fn permission_selected(option: &Value) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option}})
}

/// The agent's answer to a prompt: the turn ended, cancelled or not.
pub fn stop_reason(cancelled: bool) -> Value {
    json!({"stopReason": if cancelled { "cancelled" } else { "end_turn" }})
}

/// The agent's answer to `initialize`: `version` and, in the ACP RFD, whether it handles
/// `$/cancelRequest`.
pub fn initialize_result(version: u64, rfd_cancellation: Option<bool>) -> Value {
    let caps = match rfd_cancellation {
        Some(request) => rfd_capabilities(request),
        None => json!({}),
    };
    json!({"protocolVersion": version, "agentCapabilities": caps})
}

/// The agent's permission request about tool call `tool_call`, in `session`.
pub fn permission_request_params(session: &str, tool_call: &str, options: Value) -> Value {
    json!({"sessionId": session, "toolCall": {"toolCallId": tool_call}, "options": options})
}

/// The agent's `session/update` with a chunk of its message (a turn's content).
pub fn message_chunk_params(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "update": {"sessionUpdate": "agent_message_chunk",
           "content": {"type": "text", "text": text}}})
}

/// Whether `method` is one the check knows (a method of the client's in the schema, an
/// extension, or a cancel).
pub fn knows(method: &str, rfd: bool) -> bool {
    matches!(
        method,
        INITIALIZE | NEW_SESSION | PROMPT | SESSION_CANCEL | CANCEL_REQUEST
    ) || method.starts_with('_')
        || (rfd && method == RFD_CANCEL_REQUEST)
}

/// What the schema requires of a client's request or notification.
pub(crate) fn check_client(rfd: bool, request: bool, f: Fields<'_>) -> Result<(), SchemaError> {
    let unknown = || SchemaError::UnknownMethod(f.method.to_string());
    if f.method.starts_with('_') {
        // An extension: any shape.
        return Ok(());
    }
    match (f.method, request) {
        (INITIALIZE, true) => {
            let v = f.required("protocolVersion", Kind::Int)?;
            if v.as_u64().is_none_or(|n| n > 65535) {
                return Err(f.invalid("protocolVersion", "an integer from 0 to 65535"));
            }
            if let Some(caps) = f.optional("clientCapabilities", Kind::Object)? {
                let caps = f.within("clientCapabilities", caps);
                if rfd && let Some(c) = caps.optional("cancellation", Kind::Object)? {
                    caps.within("cancellation", c)
                        .optional("request", Kind::Bool)?;
                }
            }
            match f.optional("clientInfo", Kind::Object)? {
                Some(info) => implementation(f.within("clientInfo", info)),
                None => Ok(()),
            }
        }
        (NEW_SESSION, true) => {
            let cwd = f.required("cwd", Kind::Str)?;
            if !cwd.as_str().is_some_and(|c| c.starts_with('/')) {
                return Err(f.invalid("cwd", "an absolute path"));
            }
            f.required("mcpServers", Kind::Array)?;
            Ok(())
        }
        (PROMPT, true) => {
            f.required("sessionId", Kind::Str)?;
            let blocks = f.required("prompt", Kind::Array)?;
            for (i, b) in blocks.as_array().into_iter().flatten().enumerate() {
                content_block(&f, i, b)?;
            }
            Ok(())
        }
        (SESSION_CANCEL, false) => f.required("sessionId", Kind::Str).map(|_| ()),
        (CANCEL_REQUEST, false) if !rfd => f.required("requestId", Kind::IdOrNull).map(|_| ()),
        (RFD_CANCEL_REQUEST, false) if rfd => f.required("id", Kind::Id).map(|_| ()),
        _ => Err(unknown()),
    }
}

/// One `ContentBlock` of a prompt.
fn content_block(f: &Fields<'_>, i: usize, b: &Value) -> Result<(), SchemaError> {
    let path = format!("prompt[{i}]");
    if !b.is_object() {
        return Err(f.invalid(&path, "a content block (an object with a `type`)"));
    }
    let block = f.within(&path, b);
    let kind = block.required("type", Kind::Str)?;
    let fields: &[&str] = match kind.as_str().unwrap_or("") {
        "text" => &["text"],
        "image" | "audio" => &["data", "mimeType"],
        "resource_link" => &["name", "uri"],
        "resource" => {
            block.required("resource", Kind::Object)?;
            &[]
        }
        _ => {
            return Err(block.invalid("type", "text, image, audio, resource_link or resource"));
        }
    };
    for k in fields {
        block.required(k, Kind::Str)?;
    }
    Ok(())
}

/// ACP's shapes ([`crate::shapes::Shapes`]): the stable protocol's, or (`rfd`) the ACP RFD's,
/// which negotiates cancellation in `initialize` and cancels with `$/cancelRequest {id}`.
pub struct Acp {
    rfd: bool,
}

/// Stable ACP's shapes.
pub static ACP: Acp = Acp { rfd: false };
/// The ACP RFD's shapes.
pub static ACP_RFD: Acp = Acp { rfd: true };

/// The session the model's rendering names for the client's request `id`.
fn model_session(id: RequestId) -> String {
    crate::encode::session_id(id)
}

impl Shapes for Acp {
    fn dialect(&self) -> Dialect {
        if self.rfd {
            Dialect::AcpRfd
        } else {
            Dialect::Acp
        }
    }

    fn null_id_names_a_request(&self) -> bool {
        true
    }

    fn knows(&self, method: &str) -> bool {
        knows(method, self.rfd)
    }

    fn check_client(&self, msg: &WireMessage) -> Result<(), SchemaError> {
        match Fields::of(msg) {
            Some((request, f)) => check_client(self.rfd, request, f),
            None => Ok(()),
        }
    }

    fn initialize(&self, cancel_support: bool, me: Identity<'_>) -> Option<Call> {
        let caps = if self.rfd {
            rfd_capabilities(cancel_support)
        } else {
            json!({})
        };
        Some((INITIALIZE, initialize_params(Some(caps), Some(me))))
    }

    fn new_session(&self, cwd: &str) -> Option<Call> {
        Some((NEW_SESSION, new_session_params(cwd)))
    }

    fn opened_session<'v>(&self, result: &'v Value) -> Option<&'v str> {
        result.get("sessionId").and_then(Value::as_str)
    }

    /// An extension method (`_`), answered -32601 by an agent that does not know it.
    fn barrier(&self, _me: Identity<'_>) -> (&'static str, Option<Value>) {
        ("_cancelcheck/barrier", None)
    }

    fn default_work_method(&self) -> &'static str {
        PROMPT
    }

    fn prompt_method(&self) -> Option<&'static str> {
        Some(PROMPT)
    }

    /// A prompt of one text block (its `sessionId` filled in when it is sent).
    fn default_work_params(&self) -> Value {
        json!({"prompt": text_prompt("Count from 1 to 50, one number per line.")})
    }

    /// A prompt names `session` (any `sessionId` given is replaced); another method has its
    /// `sessionId` replaced only if it has one.
    fn work_params(
        &self,
        ctx: &Context,
        params: &Value,
        session: Option<&str>,
        _progress_token: Value,
        _me: Identity<'_>,
    ) -> Value {
        let mut params = params.clone();
        if let (Some(s), Some(p)) = (session, params.as_object_mut())
            && (ctx.prompt_turn() || p.contains_key("sessionId"))
        {
            p.insert("sessionId".into(), json!(s));
        }
        params
    }

    fn session_cancel_method(&self) -> Option<&'static str> {
        Some(SESSION_CANCEL)
    }

    fn session_cancel(&self, session: &str) -> Option<Call> {
        Some((SESSION_CANCEL, session_cancel_params(session)))
    }

    /// `RequestId` admits null in ACP's schema.
    fn cancel_names_null(&self) -> bool {
        true
    }

    fn session_update_method(&self) -> Option<&'static str> {
        Some(SESSION_UPDATE)
    }

    fn permission_method(&self) -> Option<&'static str> {
        Some(REQUEST_PERMISSION)
    }

    /// A permission request is answered with the first option offered, or `cancelled` once
    /// the prompt turn was cancelled (or when none is offered).
    fn client_answer(&self, method: &str, params: Option<&Value>, cancelled: bool) -> Body {
        if method != REQUEST_PERMISSION {
            return crate::shapes::not_found();
        }
        let option = params.and_then(|p| p.pointer("/options/0/optionId"));
        Body::Result(match option {
            Some(o) if !cancelled => permission_selected(o),
            _ => permission_cancelled(),
        })
    }

    /// A prompt turn ends cancelled with a result, never an error; a permission request is
    /// answered with the outcome `cancelled` (both ACP texts: a result may carry a
    /// cancellation marker).
    fn result_says_cancelled(&self, result: &Value) -> bool {
        result.get("stopReason").and_then(Value::as_str) == Some("cancelled")
            || result.pointer("/outcome/outcome").and_then(Value::as_str) == Some("cancelled")
    }

    fn expected_version(&self) -> Option<Value> {
        Some(json!(PROTOCOL_VERSION))
    }

    fn plumbing(&self, method: &str) -> Option<Plumbing> {
        (method == NEW_SESSION).then_some(Plumbing::NewSession)
    }

    fn parse_version(&self, text: &str) -> Result<Value, String> {
        text.parse::<u64>()
            .map(|v| json!(v))
            .map_err(|_| format!("ACP's is an integer, not {text}"))
    }

    fn initialize_result(
        &self,
        version: &Value,
        cancel_support: bool,
        _me: Identity<'_>,
    ) -> Option<Value> {
        Some(initialize_result(
            version.as_u64()?,
            self.rfd.then_some(cancel_support),
        ))
    }

    fn new_session_result(&self, session: &str) -> Option<Value> {
        Some(json!({ "sessionId": session }))
    }

    fn permission_request(&self, session: &str, tool_call: &str) -> Option<Call> {
        let options = json!([{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]);
        Some((
            REQUEST_PERMISSION,
            permission_request_params(session, tool_call, options),
        ))
    }

    fn session_update(&self, session: &str, text: &str) -> Option<Call> {
        Some((SESSION_UPDATE, message_chunk_params(session, text)))
    }

    fn cancelled_prompt_result(&self) -> Option<Value> {
        Some(stop_reason(true))
    }

    /// A prompt turn ends cancelled with a result, never an error; any other request (a
    /// `--work-method` of the test peer's) with -32800.
    fn cancelled_answer(&self, prompt: bool) -> Option<Body> {
        Some(match self.cancelled_prompt_result() {
            Some(result) if prompt => Body::Result(result),
            _ => Body::Error {
                code: -32800,
                message: "Request cancelled".into(),
                data: None,
            },
        })
    }

    fn model_initialize_params(&self, cancel_support: bool) -> Value {
        let caps = self.rfd.then(|| rfd_capabilities(cancel_support));
        initialize_params(caps, None)
    }

    /// Each request of the client's runs in a session of its own, named after it
    /// ([`crate::encode::session_id`]). (The RFD's ordinary request is `session/load`.)
    fn model_work_params(&self, id: RequestId) -> Value {
        if self.rfd {
            json!({"sessionId": model_session(id), "cwd": "/work", "mcpServers": []})
        } else {
            prompt_params(&model_session(id), text_prompt("build"))
        }
    }

    /// (`s1`: a request the agent sends for no prompt turn.)
    fn model_server_work_params(&self, session: Option<RequestId>) -> Value {
        let session = session.map_or("s1".into(), model_session);
        permission_request_params(&session, "t1", json!([]))
    }

    /// The agent's a prompt turn's `stopReason`, the client's a permission `outcome` (stable
    /// ACP, whose ordinary requests are these; the RFD's answers are the generic ones).
    fn model_result(&self, from: Party, cancelled: bool) -> Option<Value> {
        if self.rfd {
            return None;
        }
        Some(match from {
            Party::Server => stop_reason(cancelled),
            Party::Client if cancelled => permission_cancelled(),
            Party::Client => permission_selected(&json!("allow")),
        })
    }

    /// An update of the request's session.
    fn model_activity_params(&self, id: RequestId) -> Value {
        message_chunk_params(&model_session(id), "working")
    }
}
