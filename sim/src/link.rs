//! Network links: latency distributions, delivery order, loss, duplication, disconnect.

use crate::rng::SimRng;
use serde::{Deserialize, Serialize};

/// A delay distribution, in virtual microseconds. All draws are integer-only.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Latency {
    /// Always this.
    Fixed(u64),
    /// Uniform in `[lo, hi]`.
    Uniform(u64, u64),
    /// Exponential with this mean (capped at 32 × mean).
    Exponential(u64),
    /// Mostly `fast`, sometimes `slow` (each uniform in its bounds).
    Bimodal {
        /// The common case, `[lo, hi]`.
        fast: (u64, u64),
        /// The tail, `[lo, hi]`.
        slow: (u64, u64),
        /// Chance of the tail.
        slow_permille: u16,
    },
}

/// The largest bound or mean a latency may have: 10^12 virtual microseconds (about eleven
/// and a half days), so that a run's virtual time stays far from `u64` overflow.
pub const MAX_DELAY: u64 = 1_000_000_000_000;

impl Latency {
    /// Draws one delay.
    pub fn draw(&self, rng: &mut SimRng) -> u64 {
        match *self {
            Latency::Fixed(t) => t,
            Latency::Uniform(lo, hi) => rng.between(lo, hi),
            Latency::Exponential(mean) => rng.exponential(mean),
            Latency::Bimodal {
                fast,
                slow,
                slow_permille,
            } => {
                let (lo, hi) = if rng.chance(slow_permille) {
                    slow
                } else {
                    fast
                };
                rng.between(lo, hi)
            }
        }
    }

    /// Whether the parameters make sense; the error says what was expected.
    pub fn validate(&self) -> Result<(), String> {
        let values: &[u64] = match self {
            Latency::Fixed(t) | Latency::Exponential(t) => &[*t],
            Latency::Uniform(lo, hi) => &[*lo, *hi],
            Latency::Bimodal { fast, slow, .. } => &[fast.0, fast.1, slow.0, slow.1],
        };
        if let Some(v) = values.iter().find(|&&v| v > MAX_DELAY) {
            return Err(format!(
                "delays of at most {MAX_DELAY} microseconds (the limit on every latency), got {v}"
            ));
        }
        let bounds = |(lo, hi): (u64, u64)| {
            if lo > hi {
                Err(format!("bounds [lo, hi] with lo <= hi, got [{lo}, {hi}]"))
            } else {
                Ok(())
            }
        };
        match *self {
            Latency::Fixed(_) | Latency::Exponential(_) => Ok(()),
            Latency::Uniform(lo, hi) => bounds((lo, hi)),
            Latency::Bimodal {
                fast,
                slow,
                slow_permille,
            } => {
                bounds(fast)?;
                bounds(slow)?;
                if slow_permille > 1000 {
                    return Err("slow_permille from 0 to 1000".into());
                }
                Ok(())
            }
        }
    }
}

/// Delivery order on one direction of the connection.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// First in, first out (stdio, one TCP stream).
    Fifo,
    /// Any order (several streams, HTTP requests).
    Reordering,
    /// Streamable HTTP (MCP): every client message is a POST of its own (any order towards
    /// the server); the server answers each client request on that request's response stream
    /// (its answer, its progress, the requests it sends on its behalf), in order within the
    /// stream and in no order across streams, and sends the rest on the standalone GET stream.
    /// The client may close a request's stream (the cancel where the dialect says so), and
    /// the connection carrying one may drop and be resumed (`Last-Event-ID`): see
    /// [`crate::http`].
    Http,
}

impl Order {
    /// `fifo` or `reordering`.
    pub fn name(self) -> &'static str {
        match self {
            Order::Fifo => "fifo",
            Order::Reordering => "reordering",
            Order::Http => "http",
        }
    }
}

/// Both directions of a connection (the same settings each way).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// One-way delay of each message.
    pub latency: Latency,
    /// Delivery order.
    pub order: Order,
    /// Chance that a message is lost.
    pub loss_permille: u16,
    /// Chance that a response or notification is delivered twice (requests are never
    /// duplicated: a second copy of a request is a new request with a reused id).
    pub duplicate_permille: u16,
    /// Chance that the connection drops at some point of the run.
    pub disconnect_permille: u16,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            latency: Latency::Uniform(50, 400),
            order: Order::Fifo,
            loss_permille: 0,
            duplicate_permille: 0,
            disconnect_permille: 0,
        }
    }
}
