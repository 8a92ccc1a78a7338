//! What each dialect's schema requires of the messages a client sends, as a small hand-written
//! check of required fields and their types (no JSON-Schema engine): the probe's messages are
//! tested against it, the probe refuses `--params` that fail it, and the test peer answers
//! -32602 to a request that fails it, as the protocols' SDKs do.
//!
//! The rules live beside the shapes, one module per dialect ([`crate::acp`], [`crate::mcp`],
//! [`crate::lsp`]); [`check_client_message`] asks the dialect's ([`crate::shapes::of`]).

use crate::decode::WireMessage;
use cancelcheck_model::Dialect;
use serde_json::{Map, Value};
use std::fmt;

/// Why a client's message is not what its dialect's schema allows.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SchemaError {
    /// The method is not one the dialect defines for a client to send (JSON-RPC's -32601).
    UnknownMethod(String),
    /// A required field is missing or has the wrong type (JSON-RPC's -32602).
    Invalid {
        /// The message's method.
        method: String,
        /// The field, as a path from `params` (`params.prompt[0].text`).
        field: String,
        /// What the schema requires there.
        expected: &'static str,
    },
}

impl SchemaError {
    /// The JSON-RPC error code a receiver answers a request failing the check with.
    pub fn code(&self) -> i64 {
        match self {
            SchemaError::UnknownMethod(_) => -32601,
            SchemaError::Invalid { .. } => -32602,
        }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::UnknownMethod(m) => write!(f, "{m}: not a method a client sends"),
            SchemaError::Invalid {
                method,
                field,
                expected,
            } => write!(f, "{method}: {field}: expected {expected}"),
        }
    }
}

/// Checks one message a client sends (a request, a notification, or its answer to a request of
/// the server's) against what `dialect`'s schema requires. The answers are JSON-RPC results or
/// errors whose shape depends on the request answered: only their envelope is checked here.
pub fn check_client_message(dialect: Dialect, msg: &WireMessage) -> Result<(), SchemaError> {
    crate::shapes::of(dialect).check_client(msg)
}

/// A message's params (or an object within them), read field by field.
#[derive(Clone)]
pub(crate) struct Fields<'a> {
    pub method: &'a str,
    pub params: Option<&'a Value>,
    /// The path of these fields in the message, for error messages (`params.prompt[0]`).
    pub prefix: String,
}

/// The JSON types the checks name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Str,
    Int,
    Bool,
    Object,
    Array,
    /// A JSON-RPC id: a string or an integer.
    Id,
    /// A JSON-RPC id or `null`.
    IdOrNull,
    /// An integer or `null`.
    IntOrNull,
    /// A string or `null`.
    StrOrNull,
}

impl Kind {
    fn expected(self) -> &'static str {
        match self {
            Kind::Str => "a string",
            Kind::Int => "an integer",
            Kind::Bool => "a boolean",
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::Id => "a string or an integer",
            Kind::IdOrNull => "a string, an integer or null",
            Kind::IntOrNull => "an integer or null",
            Kind::StrOrNull => "a string or null",
        }
    }

    fn admits(self, v: &Value) -> bool {
        let int = v.is_i64() || v.is_u64();
        match self {
            Kind::Str => v.is_string(),
            Kind::Int => int,
            Kind::Bool => v.is_boolean(),
            Kind::Object => v.is_object(),
            Kind::Array => v.is_array(),
            Kind::Id => v.is_string() || int,
            Kind::IdOrNull => v.is_string() || int || v.is_null(),
            Kind::IntOrNull => int || v.is_null(),
            Kind::StrOrNull => v.is_string() || v.is_null(),
        }
    }
}

impl<'a> Fields<'a> {
    /// A request's or a notification's params, and whether it is a request; `None` for an
    /// answer.
    pub(crate) fn of(msg: &'a WireMessage) -> Option<(bool, Fields<'a>)> {
        let (method, params) = match msg {
            WireMessage::Request { method, params, .. } => (method.as_str(), params.as_ref()),
            WireMessage::Notification { method, params } => (method.as_str(), params.as_ref()),
            WireMessage::Response { .. } => return None,
        };
        let request = matches!(msg, WireMessage::Request { .. });
        let f = Fields {
            method,
            params,
            prefix: "params".into(),
        };
        Some((request, f))
    }

    pub(crate) fn invalid(&self, field: &str, expected: &'static str) -> SchemaError {
        SchemaError::Invalid {
            method: self.method.to_string(),
            field: if field.is_empty() {
                self.prefix.clone()
            } else {
                format!("{}.{field}", self.prefix)
            },
            expected,
        }
    }

    /// The params as an object (required).
    pub(crate) fn object(&self) -> Result<&'a Map<String, Value>, SchemaError> {
        self.params
            .and_then(Value::as_object)
            .ok_or_else(|| self.invalid("", "an object"))
    }

    /// A required field of `kind`.
    pub(crate) fn required(&self, key: &str, kind: Kind) -> Result<&'a Value, SchemaError> {
        match self.object()?.get(key) {
            Some(v) if kind.admits(v) => Ok(v),
            _ => Err(self.invalid(key, kind.expected())),
        }
    }

    /// An optional field: absent, or of `kind`.
    pub(crate) fn optional(&self, key: &str, kind: Kind) -> Result<Option<&'a Value>, SchemaError> {
        match self
            .params
            .and_then(Value::as_object)
            .and_then(|o| o.get(key))
        {
            None => Ok(None),
            Some(v) if kind.admits(v) => Ok(Some(v)),
            Some(_) => Err(self.invalid(key, kind.expected())),
        }
    }

    /// The object `v` at `path` (relative to these fields: `key` or `key[0]`), read the same
    /// way.
    pub(crate) fn within(&self, path: &str, v: &'a Value) -> Fields<'a> {
        Fields {
            method: self.method,
            params: Some(v),
            prefix: format!("{}.{path}", self.prefix),
        }
    }
}

/// A client's `Implementation` (`clientInfo`): `name` and `version`, both strings (ACP's and
/// MCP's schemas alike).
pub(crate) fn implementation(f: Fields<'_>) -> Result<(), SchemaError> {
    f.required("name", Kind::Str)?;
    f.required("version", Kind::Str)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defects this guards against: an ACP prompt without `prompt`, a `session/cancel`
    /// without a session, an MCP 2026-07-28 request without its `_meta`, and `ping` there.
    #[test]
    fn what_the_schemas_refuse_is_refused() {
        let refused = |dialect: Dialect, text: &str| {
            let msg = WireMessage::parse(text.as_bytes()).expect("JSON-RPC");
            check_client_message(dialect, &msg).expect_err(text)
        };
        let e = refused(
            Dialect::Acp,
            r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","command":"sleep"}}"#,
        );
        assert_eq!(e.code(), -32602);
        assert!(e.to_string().contains("params.prompt"), "{e}");
        refused(
            Dialect::Acp,
            r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"text":"hi"}]}}"#,
        );
        refused(
            Dialect::Acp,
            r#"{"jsonrpc":"2.0","method":"session/cancel","params":{}}"#,
        );
        refused(
            Dialect::Acp,
            r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"work","mcpServers":[]}}"#,
        );
        refused(
            Dialect::Acp,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1"}}"#,
        );
        let e = refused(
            Dialect::Mcp20260728,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":2}}}"#,
        );
        assert_eq!(e.code(), -32602);
        assert!(e.to_string().contains("protocolVersion"), "{e}");
        let e = refused(
            Dialect::Mcp20260728,
            r#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#,
        );
        assert_eq!(e.code(), -32601);
        refused(
            Dialect::Mcp20260728,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
        );
        refused(
            Dialect::Mcp20251125,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
        );
        refused(
            Dialect::Lsp,
            r#"{"jsonrpc":"2.0","id":1,"method":"cancelcheck/barrier"}"#,
        );
    }
}
