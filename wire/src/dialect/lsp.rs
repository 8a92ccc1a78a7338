//! LSP's wire shapes for a client (LSP 3.17), and what the specification requires of them.
//!
//! - `initialize` (`InitializeParams`) requires `processId` (an integer or null), `rootUri` (a
//!   URI or null) and `capabilities` (an object); `initialized` has empty params.
//! - `workspace/executeCommand` (`ExecuteCommandParams`) requires `command`, a string.
//! - `$/cancelRequest` (`CancelParams`) requires `id`, an integer or a string.
//! - "If a server or client receives a request starting with '$/' it must error the request with
//!   error code MethodNotFound": such a request is always answered, whatever the server knows.

use crate::WireMessage;
use crate::decode::Body;
use crate::frame::Framing;
use crate::schema::{Fields, Kind, SchemaError};
use crate::shapes::{Call, Identity, Shapes};

/// A server's answer to `initialize` (`InitializeResult`): no capabilities but what every
/// server has, and its name (`serverInfo`).
pub fn initialize_result(server: Identity<'_>) -> Value {
    json!({"capabilities": {}, "serverInfo": {"name": server.0, "version": server.1}})
}
use cancelcheck_model::{Dialect, RequestId};
use serde_json::{Value, json};

/// Opens the connection.
pub const INITIALIZE: &str = "initialize";
/// Ends the handshake.
pub const INITIALIZED: &str = "initialized";
/// The cancel.
pub const CANCEL_REQUEST: &str = "$/cancelRequest";
/// The server's request that the client create a work-done progress token.
pub const WORK_DONE_PROGRESS_CREATE: &str = "window/workDoneProgress/create";
/// The prefix of methods that depend on the implementation (a request the receiver does not
/// know is answered -32601).
pub const IMPLEMENTATION_PREFIX: &str = "$/";

/// `initialize`'s params: no process, no root, no capabilities.
pub fn initialize_params() -> Value {
    json!({"processId": null, "rootUri": null, "capabilities": {}})
}

/// A client's answer to a request of the server's that a client accepts without serving
/// anything (a progress token, a capability registration, settings it has none of, a message
/// shown), or `None` for a request the client does not implement (answered -32601). A server
/// such as pyright fails its own work with the client's error when its
/// `window/workDoneProgress/create` is refused.
pub fn client_answer(method: &str, params: Option<&Value>) -> Option<Value> {
    match method {
        WORK_DONE_PROGRESS_CREATE
        | "client/registerCapability"
        | "client/unregisterCapability"
        | "window/showMessageRequest"
        | "workspace/codeLens/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/inlineValue/refresh"
        | "workspace/diagnostic/refresh" => Some(Value::Null),
        // `ConfigurationParams.items`: one setting each, none known (null).
        "workspace/configuration" => {
            let n = params
                .and_then(|p| p.get("items"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Some(Value::Array(vec![Value::Null; n]))
        }
        _ => None,
    }
}

/// Whether `method` is one the check knows.
pub fn knows(method: &str) -> bool {
    matches!(
        method,
        INITIALIZE | INITIALIZED | CANCEL_REQUEST | "workspace/executeCommand"
    ) || method.starts_with(IMPLEMENTATION_PREFIX)
}

/// What LSP requires of a client's request or notification (the methods the probe sends).
pub(crate) fn check_client(request: bool, f: Fields<'_>) -> Result<(), SchemaError> {
    match (f.method, request) {
        (INITIALIZE, true) => {
            f.required("processId", Kind::IntOrNull)?;
            f.required("rootUri", Kind::StrOrNull)?;
            f.required("capabilities", Kind::Object)?;
            Ok(())
        }
        (INITIALIZED, false) => f.object().map(|_| ()),
        ("workspace/executeCommand", true) => {
            f.required("command", Kind::Str)?;
            f.optional("arguments", Kind::Array).map(|_| ())
        }
        (CANCEL_REQUEST, false) => f.required("id", Kind::Id).map(|_| ()),
        (m, _) if m.starts_with(IMPLEMENTATION_PREFIX) => Ok(()),
        _ => Err(SchemaError::UnknownMethod(f.method.to_string())),
    }
}

/// LSP's shapes ([`crate::shapes::Shapes`]).
pub struct Lsp;

/// LSP 3.17's shapes.
pub static LSP: Lsp = Lsp;

impl Shapes for Lsp {
    fn dialect(&self) -> Dialect {
        Dialect::Lsp
    }

    fn null_id_names_a_request(&self) -> bool {
        true
    }

    /// The base protocol's `Content-Length` headers.
    fn default_framing(&self) -> Framing {
        Framing::ContentLength
    }

    fn knows(&self, method: &str) -> bool {
        knows(method)
    }

    /// "A notification to ask the server to exit its process."
    fn exit_method(&self) -> Option<&'static str> {
        Some("exit")
    }

    /// "during the `initialize` request the server is allowed to send the notifications
    /// `window/showMessage`, `window/logMessage` and `telemetry/event` as well as the
    /// `window/showMessageRequest` request to the client."
    fn server_may_send_before_open(&self, method: &str) -> bool {
        matches!(
            method,
            "window/showMessage"
                | "window/logMessage"
                | "telemetry/event"
                | "window/showMessageRequest"
        )
    }

    fn check_client(&self, msg: &WireMessage) -> Result<(), SchemaError> {
        match Fields::of(msg) {
            Some((request, f)) => check_client(request, f),
            None => Ok(()),
        }
    }

    fn initialize(&self, _cancel_support: bool, _me: Identity<'_>) -> Option<Call> {
        Some((INITIALIZE, initialize_params()))
    }

    fn initialized(&self) -> Option<Call> {
        Some((INITIALIZED, json!({})))
    }

    /// A `$/` request, which a server that does not know it must answer -32601.
    fn barrier(&self, _me: Identity<'_>) -> (&'static str, Option<Value>) {
        ("$/cancelcheck/barrier", None)
    }

    /// A command named `slow`.
    fn default_work_params(&self) -> Value {
        json!({"command": "slow", "arguments": [{"ms": 300}]})
    }

    /// The requests a client accepts without serving anything ([`client_answer`]) with their
    /// empty answers; any other -32601.
    fn client_answer(&self, method: &str, params: Option<&Value>, _cancelled: bool) -> Body {
        match client_answer(method, params) {
            Some(result) => Body::Result(result),
            None => crate::shapes::not_found(),
        }
    }

    /// LSP negotiates no protocol version: the answer names none.
    fn initialize_result(
        &self,
        _version: &Value,
        _cancel_support: bool,
        me: Identity<'_>,
    ) -> Option<Value> {
        Some(initialize_result(me))
    }

    fn progress_create(&self, token: &str) -> Option<Call> {
        Some((WORK_DONE_PROGRESS_CREATE, json!({ "token": token })))
    }

    fn model_work_params(&self, _id: RequestId) -> Value {
        json!({"command": "build"})
    }

    fn model_server_work_params(&self, _session: Option<RequestId>) -> Value {
        json!({"items": [{"section": "build"}]})
    }
}
