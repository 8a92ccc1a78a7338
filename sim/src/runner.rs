//! Many seeds: sharded, spread over worker threads, merged in seed order.
//!
//! Each seed's result depends on the seed alone, so the merged summary is the same whatever
//! the number of threads; only its speed changes.

use crate::scenario::Scenario;
use crate::simulator::Simulator;
use cancelcheck_properties::{InvariantId, PropertySet};
use std::ops::Range;

/// Which seeds to run.
#[derive(Clone, Debug)]
pub struct SeedPlan {
    /// The range, `start..end`.
    pub seeds: Range<u64>,
    /// This shard's index and the shard count (`0/1` for all).
    pub shard: (u64, u64),
    /// Worker threads.
    pub jobs: usize,
}

impl SeedPlan {
    /// The seeds of this shard, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + Clone {
        let (i, n) = self.shard;
        self.seeds.clone().filter(move |s| s % n.max(1) == i)
    }
}

/// A failing seed and what it broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The seed.
    pub seed: u64,
    /// The invariants it broke, first found first.
    pub invariants: Vec<InvariantId>,
}

/// The merged result of a plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Seeds run.
    pub seeds: u64,
    /// Events checked.
    pub events: u64,
    /// Failing seeds, in seed order.
    pub failures: Vec<Failure>,
    /// For each invariant (catalog order), how many seeds broke it.
    pub by_invariant: Vec<(InvariantId, u64)>,
    /// The races reached by at least one seed.
    pub reached: PropertySet,
    /// Seeds that ended on the event bound rather than quiescent.
    pub truncated: u64,
}

/// Runs every seed of `plan`; `progress` is called with the number of seeds done so far
/// (from worker threads, at most every 64 seeds each). Stops early once `stop_after` failures
/// are known, if set (the summary then covers the seeds actually run).
pub fn run_plan(scenario: &Scenario, plan: &SeedPlan, progress: &(dyn Fn(u64) + Sync), stop_after: Option<usize>) -> Summary {
    let seeds: Vec<u64> = plan.iter().collect();
    let jobs = plan.jobs.clamp(1, 64).min(seeds.len().max(1));
    let done = std::sync::atomic::AtomicU64::new(0);
    let failed = std::sync::atomic::AtomicUsize::new(0);
    let chunks: Vec<&[u64]> = seeds.chunks(seeds.len().div_ceil(jobs).max(1)).collect();
    let parts: Vec<Summary> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let (done, failed) = (&done, &failed);
                scope.spawn(move || {
                    let mut sim = Simulator::new(scenario);
                    let mut part = Summary::default();
                    for (n, &seed) in chunk.iter().enumerate() {
                        if stop_after.is_some_and(|k| failed.load(std::sync::atomic::Ordering::Relaxed) >= k) {
                            break;
                        }
                        let run = sim.run(scenario, seed, false);
                        part.seeds += 1;
                        part.events += run.verdict.events;
                        part.reached = part.reached.union(run.verdict.reached);
                        part.truncated += u64::from(!run.verdict.quiescent);
                        if !run.verdict.passed() {
                            failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let invariants = run.verdict.violations.iter().map(|v| v.invariant).collect();
                            part.failures.push(Failure { seed, invariants });
                        }
                        if n % 64 == 63 {
                            progress(done.fetch_add(64, std::sync::atomic::Ordering::Relaxed) + 64);
                        }
                    }
                    part
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut total = Summary::default();
    for p in parts {
        total.seeds += p.seeds;
        total.events += p.events;
        total.reached = total.reached.union(p.reached);
        total.truncated += p.truncated;
        total.failures.extend(p.failures);
    }
    total.failures.sort_by_key(|f| f.seed);
    for inv in InvariantId::all() {
        let n = total.failures.iter().filter(|f| f.invariants.contains(&inv)).count() as u64;
        if n > 0 {
            total.by_invariant.push((inv, n));
        }
    }
    total
}

/// The races (sometimes properties) that apply to `scenario`: all of them that its dialect
/// lists, except the timeout race when no request can time out.
pub fn applicable_races(scenario: &Scenario) -> PropertySet {
    let mut set = PropertySet::default();
    for inv in InvariantId::all() {
        let info = inv.info();
        if info.kind != cancelcheck_properties::Expectation::Sometimes || info.application(scenario.dialect).is_none() {
            continue;
        }
        if inv == InvariantId::RaceTimeoutWithAnswerInFlight && scenario.workload.timeout.is_none() && !scenario.swarm {
            continue;
        }
        set.insert(inv);
    }
    set
}
