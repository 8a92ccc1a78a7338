//! `cancelcheck-sim`: drivers that feed the model and show the checker what happened.
//!
//! The [`simulator`] samples runs from one seed each; the [`runner`] spreads seeds over
//! threads; the [`explorer`] enumerates every schedule of a small configuration. No wall clock is read here: time is virtual, randomness is the seeded ChaCha.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod coverage;
pub mod effects;
pub mod explorer;
/// The routing of Streamable HTTP, in the model (the test peer routes with it too).
pub use cancelcheck_model::http;
pub mod link;
pub mod rng;
pub mod runner;
pub mod scenario;
pub mod simulator;
pub mod trace;
pub mod world;

pub use runner::{SeedPlan, Summary, run_plan};
pub use scenario::Scenario;
pub use simulator::{RunOutcome, Simulator, run_seed};
pub use trace::{Origin, Trace};
pub use world::{Timed, World};
