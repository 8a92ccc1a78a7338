//! What a client reads of the version a peer speaks, for any dialect: the version the
//! dialect's text is of, and what the peer's answer to the handshake says of its own. Each is
//! its dialect's [`crate::shapes::Shapes`]' answer (the messages a client sends are theirs too).

use crate::decode::Body;
use cancelcheck_model::Dialect;
use serde_json::Value;

pub use crate::shapes::Identity;

/// The protocol version the dialect's text is of, as the handshake names it (ACP: the integer
/// 1; MCP: the dated version), if the dialect negotiates one.
pub fn expected_version(dialect: Dialect) -> Option<Value> {
    crate::shapes::of(dialect).expected_version()
}

/// What the peer's answer to the handshake (`initialize`; in MCP 2026-07-28 `server/discover`)
/// says of the version it speaks, where that is not the dialect's: `None` when it is (or the
/// dialect negotiates none), else a sentence saying what the peer speaks.
pub fn version_mismatch(dialect: Dialect, answer: &Body) -> Option<String> {
    crate::shapes::of(dialect).version_mismatch(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
