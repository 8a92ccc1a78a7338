//! The replay of a schedule a search reports (or a trace holds), on plain states.

use cancelcheck_properties::Verdict;

use crate::explorer::initial_scenarios;
use crate::explorer::state::Explorer;
use crate::scenario::Scenario;

/// A schedule replayed: the verdict, every event, and how many of the schedule's entries
/// could be applied (all of them, for a schedule the explorer produced).
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The checker's verdict.
    pub verdict: Verdict,
    /// Every event.
    pub events: Vec<crate::world::Timed>,
    /// Entries of the schedule applied: the initial state's index counts as one. A choice out
    /// of range (or an initial index that does not exist) stops the run there.
    pub applied: usize,
}

/// Re-runs a schedule (from [`SearchReport::counterexample`](super::SearchReport::counterexample) or a trace) with every event
/// recorded.
pub fn replay(scenario: &Scenario, schedule: &[u32]) -> Replayed {
    let inits = initial_scenarios(scenario);
    let Some((root, init, rest)) = schedule
        .split_first()
        .and_then(|(&first, rest)| Some((first as u8, inits.get(first as usize)?, rest)))
    else {
        return Replayed {
            verdict: Verdict::default(),
            events: Vec::new(),
            applied: 0,
        };
    };
    let mut e = Explorer::new(init, root, true);
    let mut steps = Vec::new();
    let mut applied = 1;
    for &c in rest {
        e.enabled(init, &mut steps);
        let Some(&step) = steps.get(c as usize) else {
            break;
        };
        e.apply(init, step);
        applied += 1;
    }
    e.enabled(init, &mut steps);
    let (verdict, mut world) = e.finish(steps.is_empty());
    Replayed {
        verdict,
        events: world.take_log(),
        applied,
    }
}
