//! Every correct behaviour runs clean; every faulty one is caught.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_sim::{Scenario, Simulator};

/// Seeds each correct behaviour of each dialect must pass.
const CLEAN_SEEDS: u64 = 10_000;
/// Seeds within which each fault must be found.
const FAULT_SEEDS: u64 = 1_000;

#[test]
fn correct_behaviours_run_clean() {
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = b.classify(d) else { continue };
            if c.faulty {
                continue;
            }
            let mut s = Scenario::default_for(d);
            s.behavior = b;
            let mut sim = Simulator::new(&s);
            for seed in 0..CLEAN_SEEDS {
                let run = sim.run(&s, seed, false);
                assert!(
                    run.verdict.passed(),
                    "{d} {b} seed {seed}: {:?}",
                    run.verdict.violations
                );
                assert!(
                    run.verdict.quiescent,
                    "{d} {b} seed {seed} hit the event bound"
                );
            }
        }
    }
}

#[test]
fn faulty_behaviours_are_caught() {
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = b.classify(d) else { continue };
            if !c.faulty {
                continue;
            }
            let mut s = Scenario::default_for(d);
            s.behavior = b;
            let mut sim = Simulator::new(&s);
            let found = (0..FAULT_SEEDS).find(|&seed| {
                let run = sim.run(&s, seed, false);
                run.verdict
                    .violations
                    .iter()
                    .any(|v| c.breaks.contains(&v.invariant.name()))
            });
            assert!(
                found.is_some(),
                "{d} {b}: none of {:?} broken in {FAULT_SEEDS} seeds",
                c.breaks
            );
        }
    }
}
