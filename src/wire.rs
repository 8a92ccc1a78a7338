//! The wire codec lives in its own crate, `cancelcheck-wire`; this module re-exports it so that
//! `cancelcheck::wire::...` keeps working.
pub use cancelcheck_wire::*;
