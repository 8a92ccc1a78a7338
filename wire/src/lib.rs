//! `cancelcheck-wire`: the one JSON codec of cancelcheck.
//!
//! - [`encode`]: model [`Message`](cancelcheck_model::Message)s as JSON, per dialect (the only
//!   place a model message becomes JSON).
//! - [`decode`]: JSON-RPC 2.0 text back to a [`WireMessage`] (errors as values with the byte
//!   offset and what was expected), and a `WireMessage` to a model message
//!   ([`decode::to_model`]).
//! - [`frame`]: newline-delimited JSON and LSP's `Content-Length` framing over a byte stream.
//! - [`acp`], [`mcp`], [`lsp`]: each dialect's wire shapes (handshake, work, cancels) and what
//!   its schema requires of a client's messages; [`client`]: the set of messages a client (the
//!   probe) sends, per dialect; [`schema`]: the check of a client's message against its
//!   dialect's schema.
//! - [`id`]: wire ids of any shape ([`WireId`]: long strings, numbers beyond `i64`, `null`) and
//!   the lossless [`IdMap`] between them and the model's fixed-size ids.
//!
//! No CLI dependency (no clap, no indicatif): trace files, renderings, the probe and any other
//! Rust project can use it.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod acp;
pub mod client;
pub mod decode;
pub mod encode;
pub mod frame;
pub mod id;
pub mod lsp;
pub mod mcp;
pub mod schema;

pub use decode::{Body, DecodeError, WireMessage, to_model};
pub use encode::{Sessions, id_json, message_json, message_json_in, message_text};
pub use frame::{Frame, FrameError, FrameReader, Framing};
pub use id::{IdMap, WireId};
