//! Wire ids as they are, and their lossless mapping onto the model's ids.
//!
//! A JSON-RPC id on the wire may be any string, any number (beyond `i64`, negative, with a
//! fraction or an exponent) or `null`. The model holds ids in a small `Copy` value
//! ([`RequestId`]: `i64`, strings of at most [`MAX_STR_ID`] bytes, `null`), so an [`IdMap`]
//! gives every other wire id a surrogate model id, one to one, and maps it back exactly.

use cancelcheck_model::RequestId;
use cancelcheck_model::id::MAX_STR_ID;
use std::collections::BTreeMap;
use std::fmt;

/// A request id exactly as it crossed the wire. Two ids are the same only if they have the same
/// JSON type and the same text: `7`, `"7"` and `7.0` are three ids.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum WireId {
    /// `null`.
    Null,
    /// An integer that fits `i64`, written in its plain decimal form.
    Int(i64),
    /// Any other JSON number, as its exact text (`18446744073709551616`, `-0`, `1e3`, `1.5`).
    Number(String),
    /// A string (any length).
    Str(String),
}

impl WireId {
    /// Reads an id from its JSON text (surrounding whitespace allowed). `None` unless it is a
    /// string, a number or `null`.
    pub fn from_json_text(text: &str) -> Option<WireId> {
        let t = text.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r'));
        match t.as_bytes().first()? {
            b'n' if t == "null" => Some(WireId::Null),
            b'"' => serde_json::from_str::<String>(t).ok().map(WireId::Str),
            b'-' | b'0'..=b'9' => {
                // Only a valid JSON number token is an id.
                serde_json::from_str::<serde_json::Number>(t).ok()?;
                match t.parse::<i64>() {
                    Ok(n) if n.to_string() == t => Some(WireId::Int(n)),
                    _ => Some(WireId::Number(t.to_string())),
                }
            }
            _ => None,
        }
    }

    /// Its JSON text, exactly as read.
    pub fn to_json_text(&self) -> String {
        match self {
            WireId::Null => "null".into(),
            WireId::Int(n) => n.to_string(),
            WireId::Number(t) => t.clone(),
            WireId::Str(s) => serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()),
        }
    }

    /// The id as a model id when the model can hold it as it is (integers in `i64`, strings of
    /// at most [`MAX_STR_ID`] bytes that do not start with [`SURROGATE_PREFIX`], `null`).
    pub fn plain(&self) -> Option<RequestId> {
        match self {
            WireId::Null => Some(RequestId::Null),
            WireId::Int(n) => Some(RequestId::Int(*n)),
            WireId::Str(s) if !s.starts_with(SURROGATE_PREFIX) => RequestId::str(s),
            WireId::Str(_) | WireId::Number(_) => None,
        }
    }

    /// The wire form of a model id (its JSON value as it is).
    pub fn of_model(id: RequestId) -> WireId {
        match id {
            RequestId::Null => WireId::Null,
            RequestId::Int(n) => WireId::Int(n),
            RequestId::Str(s) => WireId::Str(s.as_str().to_string()),
        }
    }
}

impl fmt::Display for WireId {
    /// As JSON, cut to 80 characters for long strings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.to_json_text();
        if t.chars().count() > 80 {
            let cut: String = t.chars().take(77).collect();
            write!(f, "{cut}...")
        } else {
            f.write_str(&t)
        }
    }
}

/// Model string ids starting with this character are surrogates made by an [`IdMap`]; a wire
/// string starting with it is itself given a surrogate, so the mapping stays one to one.
pub const SURROGATE_PREFIX: char = '\u{1}';

/// A one-to-one mapping between wire ids and model ids, for one connection.
///
/// Ids the model can hold as they are map to themselves; every other wire id gets a surrogate
/// (`"\u{1}1"`, `"\u{1}2"`, ...) the first time it is seen, and the same one ever after.
#[derive(Clone, Debug, Default)]
pub struct IdMap {
    to_model: BTreeMap<WireId, RequestId>,
    to_wire: BTreeMap<RequestId, WireId>,
    next: u64,
}

impl IdMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The model id for a wire id (made on first sight; never fails).
    pub fn model(&mut self, w: &WireId) -> RequestId {
        if let Some(id) = w.plain() {
            return id;
        }
        if let Some(id) = self.to_model.get(w) {
            return *id;
        }
        self.next += 1;
        let name = format!("{SURROGATE_PREFIX}{}", self.next);
        // `name` has at most 21 bytes (a prefix byte and a u64), within MAX_STR_ID.
        let id = RequestId::str(&name).unwrap_or(RequestId::Int(i64::MIN));
        debug_assert!(name.len() <= MAX_STR_ID);
        self.to_model.insert(w.clone(), id);
        self.to_wire.insert(id, w.clone());
        id
    }

    /// The wire id a model id stands for.
    pub fn wire(&self, id: RequestId) -> WireId {
        self.to_wire
            .get(&id)
            .cloned()
            .unwrap_or_else(|| WireId::of_model(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_keep_their_type_and_text() {
        assert_eq!(WireId::from_json_text("7"), Some(WireId::Int(7)));
        assert_eq!(
            WireId::from_json_text("\"7\""),
            Some(WireId::Str("7".into()))
        );
        assert_eq!(
            WireId::from_json_text("7.0"),
            Some(WireId::Number("7.0".into()))
        );
        assert_eq!(
            WireId::from_json_text("-0"),
            Some(WireId::Number("-0".into()))
        );
        let big = "123456789012345678901234567890";
        assert_eq!(
            WireId::from_json_text(big),
            Some(WireId::Number(big.into()))
        );
        assert_eq!(WireId::from_json_text(" null "), Some(WireId::Null));
        assert_eq!(WireId::from_json_text("true"), None);
        assert_eq!(WireId::from_json_text("{}"), None);
        assert_eq!(WireId::from_json_text("07"), None);
    }

    #[test]
    fn the_map_is_one_to_one() {
        let mut m = IdMap::new();
        let long = WireId::Str("x".repeat(100));
        let big = WireId::Number("18446744073709551616".into());
        let tricky = WireId::Str(format!("{SURROGATE_PREFIX}1"));
        let a = m.model(&long);
        let b = m.model(&big);
        let c = m.model(&tricky);
        assert!(a != b && b != c && a != c);
        assert_eq!(m.model(&long), a);
        assert_eq!(m.wire(a), long);
        assert_eq!(m.wire(b), big);
        assert_eq!(m.wire(c), tricky);
        assert_eq!(m.model(&WireId::Int(7)), RequestId::Int(7));
        assert_eq!(m.wire(RequestId::Int(7)), WireId::Int(7));
        assert_ne!(m.model(&WireId::Str("7".into())), RequestId::Int(7));
    }
}
