//! `cancelcheck-model`: JSON-RPC request cancellation as pure data and functions.
//!
//! No clock, no randomness, no I/O. An [`endpoint::Endpoint`] is one party; a driver feeds it
//! [`io::Input`]s and drains [`io::Output`]s. Time exists only as the order of inputs, and
//! nothing here runs threads.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

// The derives of `pack` name their traits by this crate's path, from here too.
extern crate self as cancelcheck_model;

pub mod behaviour;
pub mod dialect;
pub mod endpoint;
pub mod http;
pub mod id;
pub mod io;
pub mod message;
pub mod pack;
mod policy;
pub mod request;

pub use behaviour::Behaviour;
pub use dialect::{Dialect, DialectRules};
pub use endpoint::{Endpoint, EndpointConfig};
pub use id::{Party, RequestId};
pub use io::{Command, Input, Output};
pub use message::{Message, Outcome, Reply};
