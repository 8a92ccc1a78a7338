//! `cancelcheck-properties`: the invariant catalog and the online checker.
//!
//! Every driver (simulator, explorer, probe) emits [`Event`]s; one [`Checker`] judges them
//! against the [`CATALOG`], each invariant citing the spec clause it comes from.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod breaks;
pub mod checker;
pub mod clauses;
mod dialect;
pub mod event;
pub mod idset;
pub mod invariant;
pub mod notation;
pub mod tree;
pub mod vector;

pub use checker::{Checker, Excuse, Lost, PropertySet, SetAside, Status, Verdict, Violation};
pub use event::Event;
pub use invariant::{CATALOG, Expectation, Invariant, InvariantId, Strength};
pub use tree::RequestTree;
pub use vector::{Expect, Link, Vector, VectorFile};
