//! A trace in memory: the unit of evidence. Its JSON form is built at the edges (the root
//! package's `trace_file` module); here it is plain data.

use crate::scenario::{Scenario, SwarmMix};
use crate::world::Timed;
use cancelcheck_properties::Verdict;

/// The trace format version this build writes and reads.
pub const TRACE_VERSION: u32 = 1;

/// How a trace's run can be reproduced.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Origin {
    /// The simulator with this seed.
    Seed(u64),
    /// The explorer with this schedule: the initial state's index, then the index of each
    /// step among the enabled ones (see [`crate::explorer::replay`]).
    Schedule(Vec<u32>),
}

/// One run, complete enough to re-run and compare.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trace {
    /// Format version.
    pub version: u32,
    /// The scenario as given (swarm mode re-draws the same mix from the seed).
    pub scenario: Scenario,
    /// How to reproduce it.
    pub origin: Origin,
    /// The swarm mix, in swarm mode.
    pub mix: Option<SwarmMix>,
    /// Every event, in order.
    pub events: Vec<Timed>,
    /// The verdict.
    pub verdict: Verdict,
}

impl Trace {
    /// The verdict of this one run, as `run` gives it for its seed alone (and for a schedule
    /// alike): `fail`, `warn`, else `vacuous` with why where it reached no race its scenario
    /// claims or its faulty behaviour never acted, else `pass` ([`crate::coverage::verdict`]).
    pub fn status(
        &self,
    ) -> (
        cancelcheck_properties::Status,
        Vec<crate::coverage::Vacuity>,
    ) {
        let v = &self.verdict;
        crate::coverage::verdict(&self.scenario, v.failed(), !v.passed(), v.reached)
    }

    /// The trace of one recorded simulator run.
    pub fn from_run(scenario: &Scenario, run: crate::simulator::RunOutcome) -> Trace {
        Trace {
            version: TRACE_VERSION,
            scenario: scenario.clone(),
            origin: Origin::Seed(run.seed),
            mix: run.mix,
            events: run.events,
            verdict: run.verdict,
        }
    }

    /// The trace of an explorer schedule, re-run with every event recorded. Its origin holds
    /// the part of the schedule that could be applied, so a schedule with entries that do not
    /// fit (a tampered or stale trace) comes back with a different origin.
    pub fn from_schedule(scenario: &Scenario, mut schedule: Vec<u32>) -> Trace {
        let r = crate::explorer::replay(scenario, &schedule);
        schedule.truncate(r.applied);
        Trace {
            version: TRACE_VERSION,
            scenario: scenario.clone(),
            origin: Origin::Schedule(schedule),
            mix: None,
            events: r.events,
            verdict: r.verdict,
        }
    }

    /// Re-runs the trace's origin and returns the fresh trace (to compare with this one).
    pub fn rerun(&self) -> Trace {
        match &self.origin {
            Origin::Seed(seed) => {
                let run = crate::simulator::run_seed(&self.scenario, *seed, true);
                Trace::from_run(&self.scenario, run)
            }
            Origin::Schedule(s) => Trace::from_schedule(&self.scenario, s.clone()),
        }
    }
}
