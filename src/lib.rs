//! `cancelcheck`: the edges of the model checker. Wire encoding (the only place JSON is
//! built), trace files, renderings, the exported catalog, and the concurrent request table
//! ([`table::RequestTable`], checked by loom). The CLI in `main.rs` is a thin
//! layer over these.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod audit;
pub mod children;
pub mod export;
pub mod names;
pub mod probe;
pub mod render;
pub mod table;
pub mod trace_file;
pub mod trace_json;
pub mod vectors;
pub mod watch;
pub mod wire;
pub mod write;

/// The synchronisation primitives `table` is written against: `std` here; a loom test crate
/// compiles `table.rs` again against loom's (see `tests/loom_table.rs`).
mod sync {
    pub(crate) use std::sync::{Arc, Condvar, Mutex, MutexGuard};
}
