//! How one endpoint is configured: its party, dialect, behaviour and resources.

use crate::behaviour::Behaviour;
use crate::dialect::Dialect;
use crate::id::Party;

/// How a requester numbers its requests.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct IdPolicy {
    /// The first id (taken by `initialize` where the dialect has one).
    pub first: i64,
    /// Whether ids are JSON strings of the same digits (`"0"`, `"1"`, ...). ABP always uses strings.
    pub strings: bool,
    /// Whether a new request reuses the id of the latest request whose answer has arrived (what
    /// JSON-RPC allows: ids need only differ from those still awaiting a response). Whether
    /// that is safe depends on the transport; the checker judges it by `no-live-id-reuse`.
    pub reuse_answered: bool,
}

/// Everything that configures one endpoint.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct EndpointConfig {
    /// Which party this is.
    pub party: Party,
    /// The protocol.
    pub dialect: Dialect,
    /// How it behaves (correct, or a named fault).
    pub behaviour: Behaviour,
    /// How many received requests may run at once (at least 1); the rest queue.
    pub workers: u16,
    /// Whether it declares cancellation support in its `initialize` answer (ACP RFD).
    pub cancel_support: bool,
    /// Whether every ordinary request it sends arms a timeout.
    pub request_timeouts: bool,
    /// Whether `initialize` arms a connect timeout.
    pub init_timeout: bool,
    /// How it numbers its requests.
    pub ids: IdPolicy,
    /// How many requests each direction is expected to carry (capacity reserved up front).
    pub capacity: usize,
    /// Whether the transport gives each request a stream of its own (Streamable HTTP): there
    /// the client cancels by closing it where the dialect says so
    /// ([`DialectRules::stream_close_cancels`]).
    pub streams: bool,
}
