//! The messages a client (the probe) sends, one correct set per dialect, built from the
//! dialect's module ([`crate::acp`], [`crate::mcp`], [`crate::lsp`]) and valid for its schema
//! ([`crate::schema::check_client_message`]); and how to read the version a peer answers with.

use crate::decode::{Body, Context};
use crate::{acp, lsp, mcp};
use cancelcheck_model::Dialect;
use serde_json::{Value, json};

/// A client's name and version, as it identifies itself (`clientInfo`).
pub type Identity<'a> = (&'a str, &'a str);

/// The request that opens the session, if the dialect has one: its method and params.
/// `cancel_support` is what the client declares where support is negotiated (ACP RFD).
pub fn initialize(
    dialect: Dialect,
    cancel_support: bool,
    me: Identity<'_>,
) -> Option<(&'static str, Value)> {
    Some(match dialect {
        Dialect::Acp => (
            acp::INITIALIZE,
            acp::initialize_params(Some(json!({})), Some(me)),
        ),
        Dialect::AcpRfd => (
            acp::INITIALIZE,
            acp::initialize_params(Some(acp::rfd_capabilities(cancel_support)), Some(me)),
        ),
        Dialect::Mcp20251125 => (mcp::INITIALIZE, mcp::initialize_params(me)),
        Dialect::Lsp => (lsp::INITIALIZE, lsp::initialize_params()),
        Dialect::Mcp20260728 | Dialect::Abp => return None,
    })
}

/// The notification that ends the handshake, if the dialect has one.
pub fn initialized(dialect: Dialect) -> Option<(&'static str, Value)> {
    match dialect {
        Dialect::Mcp20251125 => Some((mcp::INITIALIZED, json!({}))),
        Dialect::Lsp => Some((lsp::INITIALIZED, json!({}))),
        _ => None,
    }
}

/// The request that asks a 2026-07-28 server which versions it speaks (`server/discover`),
/// sent before anything else.
pub fn discover(me: Identity<'_>) -> (&'static str, Option<Value>) {
    let mut params = None;
    mcp::add_request_meta(&mut params, me);
    (mcp::DISCOVER, params)
}

/// A request the peer must answer whatever it knows, valid in the dialect (a barrier: its
/// answer proves the peer read everything sent before it). MCP 2025-11-25: `ping`; MCP
/// 2026-07-28, which has no `ping`: `server/discover`, which every server implements; ACP: an
/// extension method (`_`), answered -32601 by an agent that does not know it; LSP: a `$/`
/// request, which a server that does not know it must answer -32601.
pub fn barrier(dialect: Dialect, me: Identity<'_>) -> (&'static str, Option<Value>) {
    match dialect {
        Dialect::Mcp20251125 => (mcp::PING, None),
        Dialect::Mcp20260728 => discover(me),
        Dialect::Acp | Dialect::AcpRfd => ("_cancelcheck/barrier", None),
        Dialect::Lsp | Dialect::Abp => ("$/cancelcheck/barrier", None),
    }
}

/// The default params of the slow request (`ctx.work_method`) where the client names nothing
/// of the peer's: MCP a tool named `slow`, LSP a command named `slow`, ACP a prompt of one
/// text block (its `sessionId` filled in when it is sent).
pub fn default_work_params(dialect: Dialect) -> Value {
    match dialect {
        Dialect::Lsp => json!({"command": "slow", "arguments": [{"ms": 300}]}),
        Dialect::Acp | Dialect::AcpRfd => json!({
            "prompt": acp::text_prompt("Count from 1 to 50, one number per line.")
        }),
        _ => json!({"name": "slow", "arguments": {"ms": 300}}),
    }
}

/// The slow request's params as sent: `params` with what the dialect requires of this request
/// filled in. ACP: a prompt names `session` (any `sessionId` given is replaced; another method
/// has its `sessionId` replaced only if it has one). MCP: progress is asked for with
/// `progress_token`; 2026-07-28 adds the protocol version, capabilities and identity to
/// `_meta`.
pub fn work_params(
    ctx: &Context,
    params: &Value,
    session: Option<&str>,
    progress_token: Value,
    me: Identity<'_>,
) -> Value {
    let mut params = params.clone();
    match ctx.dialect {
        Dialect::Acp | Dialect::AcpRfd => {
            if let (Some(s), Some(p)) = (session, params.as_object_mut())
                && (ctx.prompt_turn() || p.contains_key("sessionId"))
            {
                p.insert("sessionId".into(), json!(s));
            }
        }
        Dialect::Mcp20251125 | Dialect::Mcp20260728 => {
            if let Some(p) = params.as_object_mut() {
                let meta = p.entry("_meta").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    m.insert("progressToken".into(), progress_token);
                }
            }
            if ctx.dialect == Dialect::Mcp20260728 && params.is_object() {
                let mut p = Some(params);
                mcp::add_request_meta(&mut p, me);
                params = p.unwrap_or_default();
            }
        }
        _ => {}
    }
    params
}

/// The protocol version the dialect's text is of, as the handshake names it (ACP: the integer
/// 1; MCP: the dated version), if the dialect negotiates one.
pub fn expected_version(dialect: Dialect) -> Option<Value> {
    match dialect {
        Dialect::Acp | Dialect::AcpRfd => Some(json!(acp::PROTOCOL_VERSION)),
        Dialect::Mcp20251125 => Some(json!(mcp::V2025)),
        Dialect::Mcp20260728 => Some(json!(mcp::V2026)),
        Dialect::Lsp | Dialect::Abp => None,
    }
}

/// What the peer's answer to the handshake (`initialize`; in MCP 2026-07-28 `server/discover`)
/// says of the version it speaks, where that is not the dialect's: `None` when it is (or the
/// dialect negotiates none), else a sentence saying what the peer speaks.
pub fn version_mismatch(dialect: Dialect, answer: &Body) -> Option<String> {
    let expected = expected_version(dialect)?;
    match (dialect, answer) {
        (Dialect::Mcp20260728, Body::Result(v)) => {
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
        (
            Dialect::Mcp20260728,
            Body::Error {
                code: mcp::UNSUPPORTED_VERSION,
                data,
                ..
            },
        ) => Some(format!(
            "it answered server/discover with UnsupportedProtocolVersionError (-32022): it supports {}",
            data.as_ref()
                .and_then(|d| d.get("supported"))
                .map_or("(unlisted)".to_string(), Value::to_string)
        )),
        (Dialect::Mcp20260728, Body::Error { code, .. }) => Some(format!(
            "it answered server/discover with error {code}: a server of a version before {expected}, which opens sessions with initialize"
        )),
        (_, Body::Result(v)) => match v.get("protocolVersion") {
            Some(spoken) if *spoken == expected => None,
            Some(spoken) => Some(format!(
                "it answered initialize with protocolVersion {spoken}, not {expected}"
            )),
            None => Some(format!(
                "its answer to initialize names no protocolVersion (expected {expected})"
            )),
        },
        (_, Body::Error { code, .. }) => Some(format!(
            "it answered initialize with error {code}, naming no protocol version (expected {expected})"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: i64, data: Option<Value>) -> Body {
        Body::Error {
            code,
            message: "no".into(),
            data,
        }
    }

    #[test]
    fn a_handshake_answered_with_another_version_is_said() {
        let ok = |d, v: Value| version_mismatch(d, &Body::Result(v));
        assert_eq!(ok(Dialect::Acp, json!({"protocolVersion": 1})), None);
        assert!(
            ok(Dialect::Acp, json!({"protocolVersion": 2}))
                .unwrap()
                .contains('2')
        );
        assert_eq!(
            ok(
                Dialect::Mcp20251125,
                json!({"protocolVersion": "2025-11-25"})
            ),
            None
        );
        let older = ok(
            Dialect::Mcp20251125,
            json!({"protocolVersion": "2025-06-18"}),
        );
        assert!(older.unwrap().contains("2025-06-18"));
        assert_eq!(ok(Dialect::Lsp, json!({"capabilities": {}})), None);
        let discover = json!({"supportedVersions": ["2025-11-25", "2026-07-28"]});
        assert_eq!(ok(Dialect::Mcp20260728, discover), None);
        let old = ok(
            Dialect::Mcp20260728,
            json!({"supportedVersions": ["2025-11-25"]}),
        );
        assert!(old.unwrap().contains("2025-11-25"));
        let refused = version_mismatch(
            Dialect::Mcp20260728,
            &error(-32022, Some(json!({"supported": ["2025-11-25"]}))),
        );
        assert!(refused.unwrap().contains("2025-11-25"));
        let legacy = version_mismatch(Dialect::Mcp20260728, &error(-32601, None));
        assert!(legacy.unwrap().contains("initialize"));
    }
}
