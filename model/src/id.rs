//! Identities: the wire id of a request and the party that holds it.
//!
//! A JSON-RPC id is a number or a string (ACP's `requestId` may also be `null`). The model
//! keeps the wire type: `7` and `"7"` are different ids and are never coerced into each other
//! (the bug class "string `"7"` confused with number `7`"). Ids are `Copy` and never allocate,
//! so the hot loop can move them freely.

use core::fmt;

/// The longest string id the model holds inline. Longer ids (a UUID has 36 bytes) are mapped
/// to short surrogates by the edges that read them from a real peer.
pub const MAX_STR_ID: usize = 22;

/// A request id as it appears on the wire: integer, string or null, compared by type and value.
///
/// Guarantees: `Int(7) != Str("7")`; equality, ordering and hashing are by wire type first,
/// then value. String ids longer than [`MAX_STR_ID`] bytes cannot be built
/// ([`RequestId::str`] returns `None`), so a driver must reject them as bad input.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RequestId {
    /// JSON `null` (only ACP's `requestId` admits it).
    Null,
    /// A JSON integer.
    Int(i64),
    /// A JSON string, held inline.
    Str(IdStr),
}

/// An inline, fixed-capacity UTF-8 string used for string request ids.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IdStr {
    len: u8,
    bytes: [u8; MAX_STR_ID],
}

impl IdStr {
    /// Builds an inline string; `None` if `s` is longer than [`MAX_STR_ID`] bytes.
    pub fn new(s: &str) -> Option<Self> {
        if s.len() > MAX_STR_ID {
            return None;
        }
        let mut bytes = [0u8; MAX_STR_ID];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        Some(IdStr {
            len: s.len() as u8,
            bytes,
        })
    }

    /// The decimal rendering of `n`, inline (never fails: an `i64` has at most 20 characters).
    pub fn decimal(n: i64) -> Self {
        let mut bytes = [0u8; MAX_STR_ID];
        let mut tmp = [0u8; 20];
        let mut i = tmp.len();
        let neg = n < 0;
        let mut v = n.unsigned_abs();
        loop {
            i -= 1;
            tmp[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        let mut len = 0;
        if neg {
            bytes[0] = b'-';
            len = 1;
        }
        let digits = &tmp[i..];
        bytes[len..len + digits.len()].copy_from_slice(digits);
        len += digits.len();
        IdStr {
            len: len as u8,
            bytes,
        }
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        // Built only from `&str` or ASCII digits, so always valid UTF-8.
        core::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

impl RequestId {
    /// A string id; `None` if longer than [`MAX_STR_ID`] bytes.
    pub fn str(s: &str) -> Option<Self> {
        IdStr::new(s).map(RequestId::Str)
    }

    /// The same digits in the other JSON type: `7` ↔ `"7"`. This is what a buggy peer does
    /// when it coerces ids; the model itself never calls it except in the named fault.
    /// Non-numeric strings and `null` come back unchanged.
    pub fn coerced(self) -> Self {
        match self {
            RequestId::Int(n) => RequestId::Str(IdStr::decimal(n)),
            RequestId::Str(s) => s
                .as_str()
                .parse::<i64>()
                .map(RequestId::Int)
                .unwrap_or(self),
            RequestId::Null => self,
        }
    }

    /// Whether a JavaScript-style truthiness check would treat this id as absent
    /// (`0`, `""`, `null`): the bug class "cancel for id 0 ignored".
    pub fn is_falsy(self) -> bool {
        match self {
            RequestId::Null => true,
            RequestId::Int(n) => n == 0,
            RequestId::Str(s) => s.as_str().is_empty(),
        }
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for RequestId {
    /// Renders as JSON would: `null`, `7`, `"7"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Null => f.write_str("null"),
            RequestId::Int(n) => write!(f, "{n}"),
            RequestId::Str(s) => write!(f, "{:?}", s.as_str()),
        }
    }
}

impl fmt::Debug for IdStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// One of the two parties of a connection.
///
/// `Client` opens the connection (sends `initialize`); in ABP it is the agent, in ACP the
/// editor. Both parties can send requests and cancels where the dialect allows.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Debug,
    serde::Serialize,
    serde::Deserialize,
    cancelcheck_derive::Relabel,
)]
#[serde(rename_all = "kebab-case")]
pub enum Party {
    /// The party that connects and initializes.
    Client,
    /// The party that accepts the connection.
    Server,
}

impl Party {
    /// The other party.
    pub fn peer(self) -> Party {
        match self {
            Party::Client => Party::Server,
            Party::Server => Party::Client,
        }
    }

    /// Index 0 for the client, 1 for the server (for two-slot arrays).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Party::Client => "client",
            Party::Server => "server",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_different_wire_types_differ() {
        let s = RequestId::str("7").unwrap();
        assert_ne!(RequestId::Int(7), s);
        assert_eq!(RequestId::Int(7).coerced(), s);
        assert_eq!(s.coerced(), RequestId::Int(7));
        assert_eq!(
            RequestId::Int(-42).coerced(),
            RequestId::str("-42").unwrap()
        );
        assert_eq!(format!("{}", s), "\"7\"");
    }

    #[test]
    fn long_string_ids_are_refused_not_truncated() {
        assert!(RequestId::str(&"x".repeat(MAX_STR_ID)).is_some());
        assert!(RequestId::str(&"x".repeat(MAX_STR_ID + 1)).is_none());
    }

    #[test]
    fn falsy_ids() {
        assert!(RequestId::Int(0).is_falsy());
        assert!(RequestId::str("").unwrap().is_falsy());
        assert!(!RequestId::str("0").unwrap().is_falsy());
        assert!(!RequestId::Int(1).is_falsy());
    }
}
