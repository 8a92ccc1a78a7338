//! `cancelcheck`: the edges of the model checker. Wire encoding (the only place JSON is
//! built), trace files, renderings, and the exported catalog. The CLI in `main.rs` is a thin
//! layer over these.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod audit;
pub mod export;
pub mod names;
pub mod probe;
pub mod render;
pub mod trace_file;
pub mod trace_json;
pub mod vectors;
pub mod watch;
pub mod wire;
pub mod write;
