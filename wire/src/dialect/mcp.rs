//! MCP's wire shapes for a client, in the two versions cancelcheck speaks, and what each
//! version's schema requires of them.
//!
//! The facts are those of the `modelcontextprotocol/modelcontextprotocol` repository's schemas
//! (`schema/2025-11-25/schema.json`, `schema/2026-07-28/schema.json`) and texts
//! (`docs/specification/2026-07-28/basic/index.mdx`, `.../basic/versioning.mdx`,
//! `.../changelog.mdx`):
//! - **2025-11-25**: a session opens with `initialize` (`protocolVersion`, a string;
//!   `capabilities`, an object; `clientInfo`, `{name, version}`: all three required) and
//!   `notifications/initialized`; the server answers with the version it chose
//!   (`InitializeResult.protocolVersion`). `ping` has no required params; `tools/call` requires
//!   `name`; `notifications/cancelled` names the request in `requestId` (a string or an
//!   integer).
//! - **2026-07-28**: there is no `initialize`, no `notifications/initialized` and no `ping`
//!   (removed). Every request's params require `_meta` (`RequestParams`, `RequestMetaObject`)
//!   with `io.modelcontextprotocol/protocolVersion` (a string) and
//!   `io.modelcontextprotocol/clientCapabilities` (an object); `io.modelcontextprotocol/clientInfo`
//!   (`{name, version}`) SHOULD be sent. "A request missing any required field is malformed;
//!   the server MUST reject it with JSON-RPC error code -32602". Servers MUST implement
//!   `server/discover`, whose answer lists `supportedVersions`; a server that does not support
//!   the version a request names answers `UnsupportedProtocolVersionError` (-32022, with
//!   `data.supported`).

use crate::decode::{Body, Context};
use crate::schema::{Fields, Kind, SchemaError, implementation};
use crate::shapes::{Call, Identity, Plumbing, Shapes};
use crate::{WireId, WireMessage};
use cancelcheck_model::message::{Ack, AckReason};
use cancelcheck_model::{Dialect, RequestId};
use serde_json::{Value, json};

/// The version of the `mcp-2025-11-25` dialect.
pub const V2025: &str = "2025-11-25";
/// The version of the `mcp-2026-07-28` dialect.
pub const V2026: &str = "2026-07-28";
/// The `_meta` key of a 2026 request's protocol version.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of a 2026 request's client capabilities.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of a 2026 request's client identity.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// 2025-11-25's handshake.
pub const INITIALIZE: &str = "initialize";
/// 2025-11-25's notification that ends the handshake.
pub const INITIALIZED: &str = "notifications/initialized";
/// 2025-11-25's liveness request (removed in 2026-07-28).
pub const PING: &str = "ping";
/// 2026-07-28's request every server implements: its versions and capabilities.
pub const DISCOVER: &str = "server/discover";
/// The list of the server's tools (paginated with `cursor` and `nextCursor`), both versions.
pub const TOOLS_LIST: &str = "tools/list";
/// A call of one of the server's tools, both versions.
pub const TOOLS_CALL: &str = "tools/call";
/// The cancel, both versions.
pub const CANCELLED: &str = "notifications/cancelled";
/// 2025-11-25's cancel of a task-augmented request (a request, answered with the task).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// The time the model's tasks are stamped with (the model has no clock).
const EPOCH: &str = "1970-01-01T00:00:00Z";
/// The lifetime a task-augmented request asks for (`params.task.ttl`, ms).
pub const TASK_TTL: u64 = 60_000;
/// JSON-RPC's invalid params: the answer to a cancel of a task the server does not know.
const INVALID_PARAMS: i64 = -32602;
/// 2026-07-28's error for a request naming a version the server does not support.
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// 2025-11-25's `initialize` params.
pub fn initialize_params(client: (&str, &str)) -> Value {
    json!({"protocolVersion": V2025, "capabilities": {},
           "clientInfo": {"name": client.0, "version": client.1}})
}

/// A server's answer to 2025-11-25's `initialize`, speaking `version`.
pub fn initialize_result(version: &str, server: (&str, &str)) -> Value {
    json!({"protocolVersion": version, "capabilities": {"tools": {}},
           "serverInfo": {"name": server.0, "version": server.1}})
}

/// Adds what 2026-07-28 requires of every request to `params` (an object; created if absent):
/// the protocol version, the client's capabilities (none) and its identity, in `_meta`.
pub fn add_request_meta(params: &mut Option<Value>, client: (&str, &str)) {
    let p = params.get_or_insert_with(|| json!({}));
    let Some(p) = p.as_object_mut() else { return };
    let meta = p.entry("_meta").or_insert_with(|| json!({}));
    if let Some(m) = meta.as_object_mut() {
        m.insert(PROTOCOL_VERSION_KEY.into(), json!(V2026));
        m.insert(CLIENT_CAPABILITIES_KEY.into(), json!({}));
        m.insert(
            CLIENT_INFO_KEY.into(),
            json!({"name": client.0, "version": client.1}),
        );
    }
}

/// A 2026-07-28 server's answer to `server/discover`, supporting `versions`.
pub fn discover_result(versions: &[&str], server: (&str, &str)) -> Value {
    json!({"supportedVersions": versions, "capabilities": {"tools": {}},
           "serverInfo": {"name": server.0, "version": server.1},
           "cacheScope": "public", "ttlMs": 0, "resultType": "complete"})
}

/// One tool of a `tools/list` answer (`Tool`: `name`, `description`, `inputSchema`).
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    /// Its name, as `tools/call` names it.
    pub name: String,
    /// Its description, if it has one.
    pub description: Option<String>,
    /// The JSON Schema of its arguments (`inputSchema`; `{}` where none is given).
    pub input_schema: Value,
}

impl Tool {
    /// The arguments its input schema requires (`inputSchema.required`), in order.
    pub fn required(&self) -> Vec<String> {
        self.input_schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect()
    }
}

/// The tools a `tools/list` result lists and the cursor of its next page (`nextCursor`), or
/// what is wrong with it.
pub fn read_tools(result: &Value) -> Result<(Vec<Tool>, Option<String>), String> {
    let list = result
        .get("tools")
        .and_then(Value::as_array)
        .ok_or("the result has no `tools` array")?;
    let mut tools = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let name = t
            .get("name")
            .and_then(Value::as_str)
            .ok_or(format!("tools[{i}] has no string `name`"))?;
        tools.push(Tool {
            name: name.to_string(),
            description: t
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            input_schema: t.get("inputSchema").cloned().unwrap_or_else(|| json!({})),
        });
    }
    let next = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok((tools, next))
}

/// A server's `tools/list` result: `tools` (each `{name, description, inputSchema}`) and the
/// cursor of the next page, if there is one.
pub fn tools_list_result(tools: &[Tool], next_cursor: Option<&str>) -> Value {
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
        .collect();
    let mut result = json!({ "tools": tools });
    if let Some(c) = next_cursor {
        result["nextCursor"] = json!(c);
    }
    result
}

/// `tools/call`'s params: the tool's name and its arguments.
pub fn tool_call_params(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// A tool's error result saying the server has no tool `name`, as the SDKs answer such a call
/// (`CallToolResult` with `isError: true`).
pub fn unknown_tool_result(name: &str) -> Value {
    json!({"content": [{"type": "text", "text": format!("Unknown tool: {name}")}], "isError": true})
}

/// The task the model names after the request whose id is written `id` (JSON text): `task-7`,
/// `task-"a"` (read back by [`task_request`]).
pub fn task_id(id: &str) -> String {
    format!("task-{id}")
}

/// The request a task named by [`task_id`] stands for; `None` for any other text.
pub fn task_request(task: &str) -> Option<WireId> {
    WireId::from_json_text(task.strip_prefix("task-")?)
}

/// The id of the model's `tasks/cancel` of `task`: `cancel-task-7`.
pub fn task_cancel_id(task: &str) -> String {
    format!("cancel-{task}")
}

/// A `Task` (2025-11-25's `tasks/cancel` result) in `status` (`cancelled`, `completed`, ...).
pub fn task_state(task: &str, status: &str) -> Value {
    json!({"taskId": task, "status": status, "createdAt": EPOCH, "lastUpdatedAt": EPOCH,
           "ttl": TASK_TTL})
}

/// Whether `method` is one the check knows for `version`.
pub fn knows(version: &str, method: &str) -> bool {
    const BOTH: [&str; 9] = [
        "tools/call",
        "tools/list",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        CANCELLED,
    ];
    BOTH.contains(&method)
        || match version {
            V2026 => method == DISCOVER,
            _ => matches!(method, INITIALIZE | INITIALIZED | PING | TASKS_CANCEL),
        }
}

/// What `version`'s schema requires of a client's request or notification.
pub(crate) fn check_client(version: &str, request: bool, f: Fields<'_>) -> Result<(), SchemaError> {
    if !knows(version, f.method) || request == (f.method == CANCELLED || f.method == INITIALIZED) {
        return Err(SchemaError::UnknownMethod(f.method.to_string()));
    }
    if request && version == V2026 {
        let meta = f.required("_meta", Kind::Object)?;
        let meta = f.within("_meta", meta);
        meta.required(PROTOCOL_VERSION_KEY, Kind::Str)?;
        meta.required(CLIENT_CAPABILITIES_KEY, Kind::Object)?;
        if let Some(info) = meta.optional(CLIENT_INFO_KEY, Kind::Object)? {
            implementation(meta.within(CLIENT_INFO_KEY, info))?;
        }
    }
    if let Some(meta) = f.optional("_meta", Kind::Object)? {
        f.within("_meta", meta)
            .optional("progressToken", Kind::Id)?;
    }
    match f.method {
        INITIALIZE => {
            f.required("protocolVersion", Kind::Str)?;
            f.required("capabilities", Kind::Object)?;
            let info = f.required("clientInfo", Kind::Object)?;
            implementation(f.within("clientInfo", info))
        }
        "tools/call" => {
            f.required("name", Kind::Str)?;
            f.optional("arguments", Kind::Object).map(|_| ())
        }
        "resources/read" => f.required("uri", Kind::Str).map(|_| ()),
        "prompts/get" => f.required("name", Kind::Str).map(|_| ()),
        CANCELLED => f.required("requestId", Kind::Id).map(|_| ()),
        TASKS_CANCEL => f.required("taskId", Kind::Str).map(|_| ()),
        _ => Ok(()),
    }
}

/// MCP's shapes ([`crate::shapes::Shapes`]) in one of its versions.
pub struct Mcp {
    dialect: Dialect,
    version: &'static str,
}

/// MCP 2025-11-25's shapes.
pub static MCP_2025: Mcp = Mcp {
    dialect: Dialect::Mcp20251125,
    version: V2025,
};
/// MCP 2026-07-28's shapes.
pub static MCP_2026: Mcp = Mcp {
    dialect: Dialect::Mcp20260728,
    version: V2026,
};

impl Mcp {
    /// Whether this is 2026-07-28 (no `initialize`, no `ping`; `_meta` on every request).
    fn v2026(&self) -> bool {
        self.version == V2026
    }
}

impl Shapes for Mcp {
    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn null_id_names_a_request(&self) -> bool {
        false
    }

    fn knows(&self, method: &str) -> bool {
        knows(self.version, method)
    }

    fn check_client(&self, msg: &WireMessage) -> Result<(), SchemaError> {
        match Fields::of(msg) {
            Some((request, f)) => check_client(self.version, request, f),
            None => Ok(()),
        }
    }

    fn initialize(&self, _cancel_support: bool, me: Identity<'_>) -> Option<Call> {
        (!self.v2026()).then(|| (INITIALIZE, initialize_params(me)))
    }

    fn initialized(&self) -> Option<Call> {
        (!self.v2026()).then(|| (INITIALIZED, json!({})))
    }

    fn discover(&self, me: Identity<'_>) -> Option<(&'static str, Option<Value>)> {
        if !self.v2026() {
            return None;
        }
        let mut params = None;
        add_request_meta(&mut params, me);
        Some((DISCOVER, params))
    }

    /// 2025-11-25: `ping`; 2026-07-28, which has no `ping`: `server/discover`, which every
    /// server implements.
    fn barrier(&self, me: Identity<'_>) -> (&'static str, Option<Value>) {
        match self.discover(me) {
            Some(discover) => discover,
            None => (PING, None),
        }
    }

    /// A tool named `slow`.
    fn default_work_params(&self) -> Value {
        json!({"name": "slow", "arguments": {"ms": 300}})
    }

    /// Progress is asked for with `progress_token`; 2026-07-28 adds the protocol version,
    /// capabilities and identity to `_meta`.
    fn work_params(
        &self,
        _ctx: &Context,
        params: &Value,
        _session: Option<&str>,
        progress_token: Value,
        me: Identity<'_>,
    ) -> Value {
        let mut params = params.clone();
        if let Some(p) = params.as_object_mut() {
            let meta = p.entry("_meta").or_insert_with(|| json!({}));
            if let Some(m) = meta.as_object_mut() {
                m.insert("progressToken".into(), progress_token);
            }
        }
        if self.v2026() && params.is_object() {
            let mut p = Some(params);
            add_request_meta(&mut p, me);
            params = p.unwrap_or_default();
        }
        params
    }

    fn list_tools(
        &self,
        cursor: Option<&str>,
        me: Identity<'_>,
    ) -> Option<(&'static str, Option<Value>)> {
        let mut params = cursor.map(|c| json!({ "cursor": c }));
        if self.v2026() {
            add_request_meta(&mut params, me);
        }
        Some((TOOLS_LIST, params))
    }

    fn tool_call(&self, name: &str, arguments: Value) -> Option<Call> {
        Some((TOOLS_CALL, tool_call_params(name, arguments)))
    }

    fn expected_version(&self) -> Option<Value> {
        Some(json!(self.version))
    }

    fn handshake_method(&self) -> &'static str {
        if self.v2026() { DISCOVER } else { INITIALIZE }
    }

    fn version_mismatch(&self, answer: &Body) -> Option<String> {
        if !self.v2026() {
            return crate::shapes::initialize_version_mismatch(json!(self.version), answer);
        }
        let expected = json!(self.version);
        match answer {
            Body::Result(v) => {
                let supported = v.get("supportedVersions").and_then(Value::as_array);
                match supported {
                    Some(list) if list.contains(&expected) => None,
                    Some(list) => Some(format!(
                        "its server/discover lists supportedVersions {}, without {expected}",
                        Value::Array(list.clone())
                    )),
                    None => Some(format!(
                        "its answer to server/discover lists no supportedVersions (not an MCP {expected} server)"
                    )),
                }
            }
            Body::Error {
                code: UNSUPPORTED_VERSION,
                data,
                ..
            } => Some(format!(
                "it answered server/discover with UnsupportedProtocolVersionError (-32022): it supports {}",
                data.as_ref()
                    .and_then(|d| d.get("supported"))
                    .map_or("(unlisted)".to_string(), Value::to_string)
            )),
            Body::Error { code, .. } => Some(format!(
                "it answered server/discover with error {code}: a server of a version before {expected}, which opens sessions with initialize"
            )),
        }
    }

    fn plumbing(&self, method: &str) -> Option<Plumbing> {
        match method {
            PING if !self.v2026() => Some(Plumbing::Ping),
            DISCOVER if self.v2026() => Some(Plumbing::Discover),
            TOOLS_LIST => Some(Plumbing::ListTools),
            _ => None,
        }
    }

    fn initialize_result(
        &self,
        version: &Value,
        _cancel_support: bool,
        me: Identity<'_>,
    ) -> Option<Value> {
        if self.v2026() {
            return None;
        }
        Some(initialize_result(version.as_str()?, me))
    }

    fn discover_result(&self, version: &Value, me: Identity<'_>) -> Option<Value> {
        self.v2026()
            .then(|| discover_result(&[version.as_str().unwrap_or("")], me))
    }

    /// 2026-07-28: a request naming another version than `mine` in `_meta`.
    fn version_refusal(&self, params: Option<&Value>, mine: &Value) -> Option<Body> {
        if !self.v2026() {
            return None;
        }
        let asked = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(PROTOCOL_VERSION_KEY));
        (asked != Some(mine)).then(|| Body::Error {
            code: UNSUPPORTED_VERSION,
            message: "Unsupported protocol version".into(),
            data: Some(json!({"supported": [mine], "requested": asked})),
        })
    }

    /// The tool `tools/call` names (`params.name`).
    fn unknown_tool_result(&self, params: Option<&Value>) -> Option<Value> {
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
        Some(unknown_tool_result(name.unwrap_or("")))
    }

    fn model_work_params(&self, _id: RequestId) -> Value {
        json!({"name": "build", "arguments": {}})
    }

    fn model_server_work_params(&self, _session: Option<RequestId>) -> Value {
        json!({"messages": [], "maxTokens": 1})
    }

    /// 2025-11-25: `params.task: {ttl}`.
    fn model_task_params(&self, params: &mut Value) {
        if !self.v2026()
            && let Some(p) = params.as_object_mut()
        {
            p.insert("task".into(), json!({ "ttl": TASK_TTL }));
        }
    }

    fn names_task(&self, params: Option<&Value>) -> bool {
        !self.v2026()
            && params
                .and_then(|p| p.get("task"))
                .is_some_and(Value::is_object)
    }

    /// `tasks/cancel {taskId}`, with the id `cancel-task-...`.
    fn model_task_cancel(&self, id: &str) -> Option<Value> {
        let task = task_id(id);
        (!self.v2026()).then(|| {
            json!({"jsonrpc": "2.0", "id": task_cancel_id(&task), "method": TASKS_CANCEL,
                   "params": {"taskId": task}})
        })
    }

    /// The task `cancelled`, or `completed` where it ended first; a task the server does not
    /// know is invalid params (-32602).
    fn model_task_cancel_answer(&self, id: &str, ack: Ack) -> Option<Value> {
        if self.v2026() {
            return None;
        }
        let task = task_id(id);
        let mut answer = json!({"jsonrpc": "2.0", "id": task_cancel_id(&task)});
        let status = match (ack.cancelled, ack.reason) {
            (true, _) => "cancelled",
            (false, AckReason::AlreadyCompleted) => "completed",
            (false, _) => {
                answer["error"] = json!({"code": INVALID_PARAMS, "message": "Task not found"});
                return Some(answer);
            }
        };
        answer["result"] = task_state(&task, status);
        Some(answer)
    }

    fn read_task_cancel(&self, method: &str, params: Option<&Value>) -> Option<Option<WireId>> {
        (!self.v2026() && method == TASKS_CANCEL).then(|| {
            params
                .and_then(|p| p.get("taskId"))
                .and_then(Value::as_str)
                .and_then(task_request)
        })
    }

    /// A task `cancelled` is [`Ack::CANCELLED`]; `completed` says it ended first; an error
    /// says the server knows no such task.
    fn read_task_cancel_answer(&self, id: &WireId, body: &Body) -> Option<(WireId, Ack)> {
        let WireId::Str(text) = id else { return None };
        let request = task_request(text.strip_prefix("cancel-")?).filter(|_| !self.v2026())?;
        let ack = match body {
            Body::Result(v) => match v.get("status").and_then(Value::as_str) {
                Some("cancelled") => Ack::CANCELLED,
                Some("completed") => Ack {
                    cancelled: false,
                    reason: AckReason::AlreadyCompleted,
                },
                _ => Ack {
                    cancelled: false,
                    reason: AckReason::None,
                },
            },
            Body::Error { .. } => Ack {
                cancelled: false,
                reason: AckReason::NotFound,
            },
        };
        Some((request, ack))
    }
}
