//! One home per dialect's wire shapes: the [`Shapes`] a dialect puts on the wire, reached by
//! [`of`].
//!
//! Every message a dialect's parties exchange that is not the generic JSON-RPC envelope is
//! decided by the dialect's implementation of [`Shapes`], in its own module: [`crate::acp`]
//! (ACP and the ACP RFD), [`crate::mcp`] (MCP 2025-11-25 and 2026-07-28), [`crate::lsp`] and
//! [`crate::abp`] (which has no client wire form: the probe refuses it). The encoder
//! ([`crate::encode`]), the probe and the test peer ask it; none of them matches on a dialect
//! to build a message (`wire/tests/one_home.rs` fails if one does).
//!
//! The trait's default methods are the generic JSON-RPC shapes, built from the dialect's rule
//! table (`cancel_method`, `cancel_id_field`, ...); a dialect overrides what it shapes its own
//! way.

use crate::decode::{Body, Context};
use crate::encode::{error_message, id_json, session_id};
use crate::frame::Framing;
use crate::schema::SchemaError;
use crate::{WireId, WireMessage};
use cancelcheck_model::dialect::DialectRules;
use cancelcheck_model::message::{Ack, Method};
use cancelcheck_model::{Dialect, Message, Party, Reply, RequestId};
use serde_json::{Map, Value, json};

/// A party's name and version, as it identifies itself (`clientInfo`, `serverInfo`).
pub type Identity<'a> = (&'a str, &'a str);

/// A method name and its params.
pub type Call = (&'static str, Value);

/// The request of the client's that asks the server what it speaks (MCP 2026-07-28's
/// `server/discover`), or that opens a session of work (ACP's `session/new`), as a server
/// reads it; `ping` where the dialect has one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Plumbing {
    /// A liveness request answered `{}` (MCP 2025-11-25's `ping`).
    Ping,
    /// The versions and capabilities the server speaks (MCP 2026-07-28's `server/discover`).
    Discover,
    /// Opens a session of work whose answer names it (ACP's `session/new`).
    NewSession,
    /// The list of the server's operations (MCP's `tools/list`).
    ListTools,
}

/// What one dialect puts on the wire. Each method answers for its dialect alone; `None` where
/// the dialect has no such message.
pub trait Shapes: Sync {
    /// The dialect these are the shapes of.
    fn dialect(&self) -> Dialect;

    /// The dialect's rule table.
    fn rules(&self) -> &'static DialectRules {
        self.dialect().rules()
    }

    /// Whether a `null` in a cancel's or a progress notification's id field can name a request
    /// (JSON-RPC admits a null id where the dialect does not narrow it; MCP's ids are a string
    /// or an integer).
    fn null_id_names_a_request(&self) -> bool;

    // ---- what it is framed with, and which methods its schema defines

    /// The framing a stdio connection uses unless told otherwise.
    fn default_framing(&self) -> Framing {
        Framing::Ndjson
    }

    /// Whether `method` is one the schema check ([`Shapes::check_client`]) knows.
    fn knows(&self, method: &str) -> bool;

    /// Checks a client's message against what the dialect's schema requires (answers: their
    /// envelope only; see [`crate::schema::check_client_message`]).
    fn check_client(&self, msg: &WireMessage) -> Result<(), SchemaError>;

    // ---- a client's messages (the probe)

    /// The request that opens the connection, if the dialect has one: its method and params.
    /// `cancel_support` is what the client declares where support is negotiated (ACP RFD).
    fn initialize(&self, _cancel_support: bool, _me: Identity<'_>) -> Option<Call> {
        None
    }

    /// The notification that ends the handshake, if the dialect has one.
    fn initialized(&self) -> Option<Call> {
        None
    }

    /// The request sent before anything else to ask which versions the server speaks, if the
    /// dialect has one (MCP 2026-07-28: `server/discover`).
    fn discover(&self, _me: Identity<'_>) -> Option<(&'static str, Option<Value>)> {
        None
    }

    /// The request that opens a session of work after the handshake, in working directory
    /// `cwd`, if work runs in sessions the server opens (ACP: `session/new`).
    fn new_session(&self, _cwd: &str) -> Option<Call> {
        None
    }

    /// Whether work runs in sessions the client opens after the handshake
    /// ([`Shapes::new_session`]).
    fn opens_sessions(&self) -> bool {
        self.new_session("/").is_some()
    }

    /// The session a server's answer to [`Shapes::new_session`] names.
    fn opened_session<'v>(&self, _result: &'v Value) -> Option<&'v str> {
        None
    }

    /// A request the peer must answer whatever it knows, valid in the dialect (a barrier: its
    /// answer proves the peer read everything sent before it).
    fn barrier(&self, me: Identity<'_>) -> (&'static str, Option<Value>);

    /// The slow request's method a client sends unless told otherwise.
    fn default_work_method(&self) -> &'static str {
        self.rules().work_method
    }

    /// The request that is a turn of a session, cancelled with the session's own cancel and
    /// answered cancelled with a result, if the dialect has one (ACP: `session/prompt`).
    fn prompt_method(&self) -> Option<&'static str> {
        None
    }

    /// The default params of the slow request where the client names nothing of the peer's.
    fn default_work_params(&self) -> Value;

    /// The slow request's params as sent: `params` with what the dialect requires of this
    /// request filled in (the session it runs in; the progress asked for with
    /// `progress_token`; per-request metadata).
    fn work_params(
        &self,
        _ctx: &Context,
        params: &Value,
        _session: Option<&str>,
        _progress_token: Value,
        _me: Identity<'_>,
    ) -> Value {
        params.clone()
    }

    /// The method of the cancel of a session's turn, if the dialect has one (ACP:
    /// `session/cancel`, in both ACP texts' schemas).
    fn session_cancel_method(&self) -> Option<&'static str> {
        None
    }

    /// The cancel of a session's turn, naming `session`, if the dialect has one.
    fn session_cancel(&self, _session: &str) -> Option<Call> {
        None
    }

    /// The params of the dialect's generic cancel naming `id` (a JSON id as it is).
    fn cancel_params(&self, id: Value) -> Value {
        let mut p = Map::new();
        p.insert(self.rules().cancel_id_field.into(), id);
        Value::Object(p)
    }

    /// The dialect's generic cancel naming `id`.
    fn cancel(&self, id: Value) -> Call {
        (self.rules().cancel_method, self.cancel_params(id))
    }

    /// Whether a generic cancel may name `null` (then a cancel naming null is no malformed
    /// cancel).
    fn cancel_names_null(&self) -> bool {
        false
    }

    /// The server's notification of a session's progress, naming the session rather than a
    /// request, if the dialect has one (ACP: `session/update`).
    fn session_update_method(&self) -> Option<&'static str> {
        None
    }

    /// The server's request that asks the client to choose, which a client answers
    /// `cancelled` once it has cancelled the work it serves (ACP: `session/request_permission`).
    fn permission_method(&self) -> Option<&'static str> {
        None
    }

    /// A client's answer to a request `method` of the server's (`cancelled`: the client
    /// cancelled the work the request serves): what it accepts, else -32601 (method not
    /// found), as JSON-RPC allows a client that offers nothing.
    fn client_answer(&self, method: &str, _params: Option<&Value>, _cancelled: bool) -> Body {
        if self.plumbing(method) == Some(Plumbing::Ping) {
            Body::Result(json!({}))
        } else {
            not_found()
        }
    }

    /// Whether a result answering a request says it was cancelled (ACP: a prompt turn's
    /// `stopReason`, a permission's `outcome`).
    fn result_says_cancelled(&self, _result: &Value) -> bool {
        false
    }

    /// The request that lists the server's operations, from page `cursor` (the first where
    /// `None`), if the dialect has one (MCP: `tools/list`; read its answer with
    /// [`crate::mcp::read_tools`]).
    fn list_tools(
        &self,
        _cursor: Option<&str>,
        _me: Identity<'_>,
    ) -> Option<(&'static str, Option<Value>)> {
        None
    }

    /// The request that runs the listed operation `name` with `arguments`, as the slow
    /// request's method and params (MCP: `tools/call`).
    fn tool_call(&self, _name: &str, _arguments: Value) -> Option<Call> {
        None
    }

    /// The protocol version the dialect's text is of, as the handshake names it, if the
    /// dialect negotiates one.
    fn expected_version(&self) -> Option<Value> {
        None
    }

    /// The request the handshake is judged by (whose answer names the version spoken).
    fn handshake_method(&self) -> &'static str {
        self.rules().initialize_method.unwrap_or("initialize")
    }

    /// What the peer's answer to the handshake ([`Shapes::handshake_method`]) says of the
    /// version it speaks, where that is not the dialect's: `None` when it is (or the dialect
    /// negotiates none), else a sentence saying what the peer speaks.
    fn version_mismatch(&self, answer: &Body) -> Option<String> {
        initialize_version_mismatch(self.expected_version()?, answer)
    }

    /// The client's notification after which the server exits and sends nothing more (LSP's
    /// `exit`), where the dialect has one.
    fn exit_method(&self) -> Option<&'static str> {
        None
    }

    /// Whether the server may send a message of `method` while it holds the handshake, before
    /// it has answered it (LSP: a few notifications and one request); none elsewhere.
    fn server_may_send_before_open(&self, _method: &str) -> bool {
        false
    }

    // ---- a server's messages (the test peer)

    /// Which of the dialect's own requests `method` is, as a server reads it.
    fn plumbing(&self, _method: &str) -> Option<Plumbing> {
        None
    }

    /// The protocol version `text` names, as the dialect writes it (ACP: an integer), or why
    /// it names none.
    fn parse_version(&self, text: &str) -> Result<Value, String> {
        Ok(json!(text))
    }

    /// A server's answer to [`Shapes::initialize`], speaking `version` and declaring
    /// `cancel_support` where support is negotiated, if the dialect shapes it (else the
    /// codec's rendering of the model's answer stands).
    fn initialize_result(
        &self,
        _version: &Value,
        _cancel_support: bool,
        _me: Identity<'_>,
    ) -> Option<Value> {
        None
    }

    /// A server's answer to [`Plumbing::Discover`], speaking only `version`.
    fn discover_result(&self, _version: &Value, _me: Identity<'_>) -> Option<Value> {
        None
    }

    /// A server's answer to [`Plumbing::NewSession`], naming `session`.
    fn new_session_result(&self, _session: &str) -> Option<Value> {
        None
    }

    /// A server's refusal of a request whose params name another version than `mine`, where
    /// every request names one (MCP 2026-07-28: `UnsupportedProtocolVersionError`).
    fn version_refusal(&self, _params: Option<&Value>, _mine: &Value) -> Option<Body> {
        None
    }

    /// A server's request asking the client to choose, in `session`, about `tool_call`
    /// (ACP's permission request offering to allow once).
    fn permission_request(&self, _session: &str, _tool_call: &str) -> Option<Call> {
        None
    }

    /// A server's update of `session` with some of its turn's content.
    fn session_update(&self, _session: &str, _text: &str) -> Option<Call> {
        None
    }

    /// A server's answer to a prompt turn it stopped for a cancel (ACP: the result
    /// `{"stopReason": "cancelled"}`, never an error).
    fn cancelled_prompt_result(&self) -> Option<Value> {
        None
    }

    /// A server's answer to a request it stopped for a cancel, where the dialect's is not the
    /// codec's rendering of the model's cancelled answer: `prompt`, whether the request is a
    /// prompt turn ([`Shapes::prompt_method`]). ACP: a prompt turn ends with
    /// [`Shapes::cancelled_prompt_result`], any other request with error -32800.
    fn cancelled_answer(&self, _prompt: bool) -> Option<Body> {
        None
    }

    /// A server's answer to a call of a tool it does not have, naming the tool the call's
    /// `params` name, as the SDKs answer it (MCP: a tool's error result, `isError: true`), if
    /// the dialect's work is a tool call.
    fn unknown_tool_result(&self, _params: Option<&Value>) -> Option<Value> {
        None
    }

    /// A server's request that the client create the progress token `token` before progress
    /// is reported under it, if the dialect has one (LSP: `window/workDoneProgress/create`).
    fn progress_create(&self, _token: &str) -> Option<Call> {
        None
    }

    // ---- the model's messages as the simulator renders them ([`crate::encode`])
    //
    // The model's stand-ins (`{"protocolVersion": 1}`, sessions named `sess-<id>`, work
    // `{"status": "done"}`) are what the simulator's traces and the corpus record; the probe
    // and the test peer put the dialect's own shapes above on a wire instead.

    /// The model's message `msg`, sent by `from`, as the simulator renders it (JSON-RPC);
    /// `session` is the session of a server's ordinary request (see
    /// [`crate::encode::Sessions`]).
    fn model_message(&self, from: Party, msg: &Message, session: Option<RequestId>) -> Value {
        model_message(self, from, msg, session)
    }

    /// The result of the model's answer to `initialize` (`Reply::Initialized`) as the simulator
    /// renders it in every JSON-RPC dialect: `{"protocolVersion": 1, "capabilities": ...}`,
    /// declaring `cancel_support` where support is negotiated. A server on a wire answers with
    /// [`Shapes::initialize_result`] instead.
    fn model_initialize_result(&self, cancel_support: bool) -> Value {
        let caps = if self.rules().negotiated {
            json!({"cancellation": {"request": cancel_support}})
        } else {
            json!({})
        };
        json!({"protocolVersion": 1, "capabilities": caps})
    }

    /// The params of the model's notification `msg` (a cancel, a session's cancel, progress)
    /// made to name request `wire` exactly, where the model's id is a surrogate for it (a long
    /// string, a number beyond `i64`): the field that names the request, or the session the
    /// model names after it ([`crate::encode::wire_session_id`]).
    fn model_notification_params(&self, msg: &Message, wire: &WireId, params: &mut Value) {
        let r = self.rules();
        let session_cancel = match msg {
            Message::Cancel { session: true, .. } => {
                self.session_cancel(&crate::encode::wire_session_id(wire))
            }
            _ => None,
        };
        if let Some((_, p)) = session_cancel {
            *params = p;
            return;
        }
        let field = match msg {
            Message::Activity { .. } => r.activity_id_field,
            _ => r.cancel_id_field,
        };
        if let Some(p) = params.as_object_mut() {
            // A number beyond what a JSON value holds exactly is written as the closest one;
            // strings are exact.
            let exact = serde_json::from_str::<Value>(&wire.to_json_text()).unwrap_or(Value::Null);
            p.insert(field.to_string(), exact);
        }
    }

    /// The params of the model's `initialize` (the simulator's stand-in for a handshake where
    /// the dialect has none of its own).
    fn model_initialize_params(&self, _cancel_support: bool) -> Value {
        json!({"protocolVersion": 1})
    }

    /// The params of the client's ordinary request `id`.
    fn model_work_params(&self, id: RequestId) -> Value;

    /// The params of the server's ordinary request, sent in the session of the client's
    /// request `session` (`None`: for none).
    fn model_server_work_params(&self, session: Option<RequestId>) -> Value;

    /// The result that answers a party's ordinary request, where the dialect's answer says
    /// whether it was `cancelled` (ACP: a prompt turn's `stopReason`, a permission's
    /// `outcome`); `None` where it is the generic `{"status": "done"}` or the cancel error.
    fn model_result(&self, _from: Party, _cancelled: bool) -> Option<Value> {
        None
    }

    /// The params of the activity notification (progress) of request `id`.
    fn model_activity_params(&self, id: RequestId) -> Value {
        json!({self.rules().activity_id_field: crate::id_json(id), "progress": 1})
    }

    // ---- tasks, where the dialect has them (MCP 2025-11-25; see
    // `DialectRules::task_cancel_method`). The model names the task of request `7` after it
    // (`task-7`), as it names sessions; a task's cancel is a request with an id of its own,
    // derived from the task.

    /// Marks the params of the client's ordinary request (`params`) as task-augmented.
    fn model_task_params(&self, _params: &mut Value) {}

    /// Whether a request's `params` make it task-augmented.
    fn names_task(&self, _params: Option<&Value>) -> bool {
        false
    }

    /// The cancel of the task of the request whose id is written `id` (JSON text): a whole
    /// JSON-RPC request.
    fn model_task_cancel(&self, _id: &str) -> Option<Value> {
        None
    }

    /// The answer to that cancel, saying the task's final state as `ack` says it: a whole
    /// JSON-RPC response.
    fn model_task_cancel_answer(&self, _id: &str, _ack: Ack) -> Option<Value> {
        None
    }

    /// The request whose task a task cancel `method` names in `params` (`Some(None)`: it is a
    /// task cancel naming no task the model named); `None` where `method` is no task cancel.
    fn read_task_cancel(&self, _method: &str, _params: Option<&Value>) -> Option<Option<WireId>> {
        None
    }

    /// The request whose task a response with `id` (a task cancel's id) names, and the final
    /// state `body` reports; `None` where `id` is no task cancel's.
    fn read_task_cancel_answer(&self, _id: &WireId, _body: &Body) -> Option<(WireId, Ack)> {
        None
    }
}

/// The generic JSON-RPC rendering of the model's messages ([`Shapes::model_message`]): method
/// names and parameter keys from the dialect's rule table, params and results from `shapes`'
/// `model_*` methods.
fn model_message<S: Shapes + ?Sized>(
    shapes: &S,
    from: Party,
    msg: &Message,
    session: Option<RequestId>,
) -> Value {
    let r = shapes.rules();
    let method_name = |m: Method| match m {
        Method::Initialize { .. } => r.initialize_method.unwrap_or("initialize"),
        Method::Work { .. } => r.work_method,
        Method::ServerWork => r.server_work_method.unwrap_or(r.work_method),
    };
    match *msg {
        Message::Request { id, method } => {
            let params = match method {
                Method::Initialize { cancel_support } => {
                    shapes.model_initialize_params(cancel_support)
                }
                Method::ServerWork => shapes.model_server_work_params(session),
                Method::Work { task } => {
                    let mut params = shapes.model_work_params(id);
                    if task {
                        shapes.model_task_params(&mut params);
                    }
                    params
                }
            };
            json!({"jsonrpc": "2.0", "id": id_json(id), "method": method_name(method), "params": params})
        }
        Message::Response { id, reply } => {
            let mut obj = Map::new();
            obj.insert("jsonrpc".into(), json!("2.0"));
            obj.insert("id".into(), id_json(id));
            // An answer that says whether the request was cancelled (ACP's prompt turn and
            // permission request), where the dialect has one.
            let own = match reply {
                Reply::Full | Reply::Cancelled => shapes.model_result(from, reply.is_cancelled()),
                _ => None,
            };
            if let Some(result) = own {
                obj.insert("result".into(), result);
                return Value::Object(obj);
            }
            match reply {
                Reply::Full => obj.insert("result".into(), json!({"status": "done"})),
                Reply::Partial => obj.insert("result".into(), json!({"status": "partial"})),
                Reply::Initialized { cancel_support } => obj.insert(
                    "result".into(),
                    shapes.model_initialize_result(cancel_support),
                ),
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
        Message::Cancel { id, session } => {
            if session
                && r.task_cancel_method.is_some()
                && let Some(v) = shapes.model_task_cancel(&id_json(id).to_string())
            {
                return v;
            }
            let session_cancel = shapes
                .session_cancel(&session_id(id))
                .filter(|_| session && r.session_cancel_method.is_some());
            let (method, params) = session_cancel.unwrap_or_else(|| shapes.cancel(id_json(id)));
            json!({"jsonrpc": "2.0", "method": method, "params": params})
        }
        Message::MalformedCancel => {
            json!({"jsonrpc": "2.0", "method": r.cancel_method, "params": {}})
        }
        Message::CancelAck { id, ack } => {
            if let Some(v) = shapes.model_task_cancel_answer(&id_json(id).to_string(), ack) {
                return v;
            }
            // Only ABP acknowledges; a JSON-RPC rendering keeps the same fields.
            json!({"jsonrpc": "2.0", "method": r.cancel_ack_method.unwrap_or("cancel-result"),
                   "params": {"id": id_json(id), "cancelled": ack.cancelled}})
        }
        Message::Activity { id } => {
            let method = r.activity_method.unwrap_or("notifications/progress");
            let params = shapes.model_activity_params(id);
            json!({"jsonrpc": "2.0", "method": method, "params": params})
        }
    }
}

/// JSON-RPC's "method not found" answer.
pub fn not_found() -> Body {
    Body::Error {
        code: -32601,
        message: "Method not found".into(),
        data: None,
    }
}

/// What a peer's answer to `initialize` says of the version it speaks, where that is not
/// `expected` (see [`Shapes::version_mismatch`]).
pub fn initialize_version_mismatch(expected: Value, answer: &Body) -> Option<String> {
    match answer {
        Body::Result(v) => match v.get("protocolVersion") {
            Some(spoken) if *spoken == expected => None,
            Some(spoken) => Some(format!(
                "it answered initialize with protocolVersion {spoken}, not {expected}"
            )),
            None => Some(format!(
                "its answer to initialize names no protocolVersion (expected {expected})"
            )),
        },
        Body::Error { code, .. } => Some(format!(
            "it answered initialize with error {code}, naming no protocol version (expected {expected})"
        )),
    }
}

pub use crate::dialect::of;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_has_its_own_shapes() {
        for d in Dialect::ALL {
            assert_eq!(of(d).dialect(), d);
        }
    }
}
