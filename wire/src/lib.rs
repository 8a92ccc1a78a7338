//! `cancelcheck-wire`: the one JSON codec of cancelcheck.
//!
//! - [`encode`]: model [`Message`](cancelcheck_model::Message)s as JSON, per dialect (the only
//!   place a model message becomes JSON).
//! - [`decode`]: JSON-RPC 2.0 text back to a [`WireMessage`] (errors as values with the byte
//!   offset and what was expected), and a `WireMessage` to a model message
//!   ([`decode::to_model`]).
//! - [`frame`]: newline-delimited JSON and LSP's `Content-Length` framing over a byte stream.
//! - [`http`]: the bytes of Streamable HTTP (message heads, chunked bodies, Server-Sent Events).
//! - [`shapes`]: one home per dialect's wire shapes ([`shapes::Shapes`], reached by
//!   [`shapes::of`]): handshake request and result, work request, cancels, barrier, sessions,
//!   default work method and framing, the methods it knows. Each dialect's are in its own
//!   module ([`acp`], [`mcp`], [`lsp`], [`abp`]) with what its schema requires of a client's
//!   messages; the encoder, the probe and the test peer all ask it. [`client`]: what a client
//!   reads of the version a peer speaks; [`schema`]: the check of a client's message against
//!   its dialect's schema.
//! - [`id`]: wire ids of any shape ([`WireId`]: long strings, numbers beyond `i64`, `null`) and
//!   the lossless [`IdMap`] between them and the model's fixed-size ids.
//!
//! No CLI dependency (no clap, no indicatif): trace files, renderings, the probe and any other
//! Rust project can use it.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod client;
pub mod decode;
mod dialect;
pub mod encode;
pub mod frame;
pub mod http;
pub mod id;
pub mod schema;
pub mod shapes;

pub use decode::{Body, DecodeError, WireMessage, to_model};
pub use dialect::{abp, acp, lsp, mcp};
pub use encode::{Sessions, id_json, message_json, message_json_in, message_text};
pub use frame::{Frame, FrameError, FrameReader, Framing};
pub use id::{IdMap, WireId};
