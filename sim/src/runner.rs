//! Many seeds: sharded, spread over worker threads, merged in seed order.
//!
//! Each seed's result depends on the seed alone, so the merged summary is the same whatever
//! the number of threads; only its speed changes.

use crate::scenario::Scenario;
use crate::simulator::Simulator;
use cancelcheck_properties::{InvariantId, PropertySet};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// The seeds of this shard, in order, made one at a time as they are asked for (a range
    /// of any size costs nothing up front; skipping to the next seed of a shard is one step).
    pub fn iter(&self) -> impl Iterator<Item = u64> + Clone {
        let (i, n) = self.shard;
        let n = n.max(1);
        let (start, end) = (self.seeds.start, self.seeds.end);
        // The first seed at or after `start` that is `i` modulo `n`.
        let r = start % n;
        let offset = if i >= r { i - r } else { n - (r - i) };
        ShardSeeds {
            next: start.checked_add(offset).filter(|&s| s < end && i < n),
            end,
            step: n,
        }
    }

    /// How many seeds [`SeedPlan::iter`] yields, worked out without making them.
    pub fn len(&self) -> u64 {
        let (i, n) = self.shard;
        let n = n.max(1);
        let (start, end) = (self.seeds.start, self.seeds.end);
        if i >= n || end <= start {
            return 0;
        }
        // Seeds below `x` that are `i` modulo `n`.
        let below = |x: u64| x / n + u64::from(x % n > i);
        below(end) - below(start)
    }

    /// Whether the plan has no seed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The seeds of one shard: `next`, `next + step`, ... below `end`.
#[derive(Clone, Debug)]
struct ShardSeeds {
    next: Option<u64>,
    end: u64,
    step: u64,
}

impl Iterator for ShardSeeds {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let seed = self.next?;
        self.next = seed.checked_add(self.step).filter(|&s| s < self.end);
        Some(seed)
    }
}

/// The most failing seeds a [`Summary`] lists besides the first of each invariant (which it
/// always lists); the count of failing seeds and the counts per invariant are always whole.
pub const LISTED_FAILURES: usize = 10_000;

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
    /// Failing seeds, in seed order: the first [`LISTED_FAILURES`], and the first seed to
    /// break each invariant.
    pub failures: Vec<Failure>,
    /// How many seeds failed (all of them, listed or not).
    pub failing_seeds: u64,
    /// For each invariant (catalog order), how many seeds broke it.
    pub by_invariant: Vec<(InvariantId, u64)>,
    /// The races reached by at least one seed.
    pub reached: PropertySet,
    /// Seeds that ended on the event bound rather than quiescent.
    pub truncated: u64,
}

impl Summary {
    /// Adds `other`, the summary of seeds none of which this one ran (a later batch of the
    /// same plan, or another shard of it), so that the result is the summary of both sets of
    /// seeds run as one: counts added, races and truncations combined, and the failing seeds
    /// listed those a single run would list (the first [`LISTED_FAILURES`] and the first to
    /// break each invariant). `run_plan` merges its batches with it, and `cancelcheck merge`
    /// the shards of a run.
    ///
    /// Each part lists its own first failures, so the union holds the whole's: a seed among
    /// the first [`LISTED_FAILURES`] of all is among the first of its part, and the first
    /// seed to break an invariant is the first of its part to break it.
    pub fn merge(&mut self, other: Summary) {
        self.seeds += other.seeds;
        self.events += other.events;
        self.reached = self.reached.union(other.reached);
        self.truncated += other.truncated;
        self.failing_seeds += other.failing_seeds;
        self.by_invariant =
            count_by_invariant(self.by_invariant.iter().chain(&other.by_invariant).copied());
        let mut all = std::mem::take(&mut self.failures);
        all.extend(other.failures);
        all.sort_by_key(|f| f.seed);
        let mut seen: Vec<InvariantId> = Vec::new();
        for f in all {
            let mut first_of_some = false;
            for inv in &f.invariants {
                if !seen.contains(inv) {
                    seen.push(*inv);
                    first_of_some = true;
                }
            }
            if first_of_some || self.failures.len() < LISTED_FAILURES {
                self.failures.push(f);
            }
        }
    }

    /// The verdict of `scenario` over these seeds: `fail` where a seed broke a MUST of the
    /// dialect, `warn` where seeds broke only SHOULDs, else `vacuous` (with why, and what would
    /// remove each reason) where a race was never reached or the behaviour's fault never
    /// acted, else `pass`.
    pub fn verdict(
        &self,
        scenario: &Scenario,
    ) -> (
        cancelcheck_properties::Status,
        Vec<crate::coverage::Vacuity>,
    ) {
        let must = |i: &InvariantId| {
            i.info()
                .application(scenario.dialect)
                .is_some_and(|a| a.strength == cancelcheck_properties::Strength::Must)
        };
        crate::coverage::verdict(
            scenario,
            self.failures.iter().any(|f| f.invariants.iter().any(must)),
            !self.failures.is_empty(),
            self.reached,
        )
    }
}

/// Runs every seed of `plan`; `progress` is called with the number of seeds done so far
/// (from worker threads, at most every 64 seeds each). Seeds are made as they are run, a
/// batch at a time, so a range of any size starts at once and memory does not grow with it.
/// With `stop_after = Some(k)`, batches are small and the run stops after the first batch
/// that brings the failures to `k` or more; every seed below that batch has run, so the
/// failures found are the lowest failing seeds, whatever the number of threads.
pub fn run_plan(
    scenario: &Scenario,
    plan: &SeedPlan,
    progress: &(dyn Fn(u64) + Sync),
    stop_after: Option<usize>,
) -> Summary {
    let jobs = plan.jobs.clamp(1, 64);
    let batch_len = if stop_after.is_some() {
        1024
    } else {
        4096 * jobs
    };
    let mut seeds = plan.iter();
    let mut batch: Vec<u64> = Vec::with_capacity(batch_len);
    let done = AtomicU64::new(0);
    let mut total = Summary::default();
    loop {
        batch.clear();
        batch.extend(seeds.by_ref().take(batch_len));
        if batch.is_empty() {
            break;
        }
        total.merge(run_batch(scenario, &batch, jobs, &done, progress));
        if stop_after.is_some_and(|k| total.failing_seeds >= k as u64) {
            break;
        }
    }
    total
}

fn run_batch(
    scenario: &Scenario,
    seeds: &[u64],
    jobs: usize,
    done: &AtomicU64,
    progress: &(dyn Fn(u64) + Sync),
) -> Summary {
    let jobs = jobs.min(seeds.len().max(1));
    let chunk = seeds.len().div_ceil(jobs).max(1);
    let parts: Vec<Summary> = std::thread::scope(|scope| {
        let handles: Vec<_> = seeds
            .chunks(chunk)
            .map(|chunk| {
                scope.spawn(move || {
                    let mut sim = Simulator::new(scenario);
                    let mut part = Summary::default();
                    for (n, &seed) in chunk.iter().enumerate() {
                        let run = sim.run(scenario, seed, false);
                        part.seeds += 1;
                        part.events += run.verdict.events;
                        part.reached = part.reached.union(run.verdict.reached);
                        part.truncated += u64::from(!run.verdict.quiescent);
                        if !run.verdict.passed() {
                            let invariants =
                                run.verdict.violations.iter().map(|v| v.invariant).collect();
                            part.failures.push(Failure { seed, invariants });
                        }
                        if n % 64 == 63 || n + 1 == chunk.len() {
                            let k = (n % 64 + 1) as u64;
                            progress(done.fetch_add(k, Ordering::Relaxed) + k);
                        }
                    }
                    part
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut total = Summary::default();
    for p in parts {
        total.seeds += p.seeds;
        total.events += p.events;
        total.reached = total.reached.union(p.reached);
        total.truncated += p.truncated;
        total.failures.extend(p.failures);
    }
    total.failing_seeds = total.failures.len() as u64;
    total.by_invariant = count_by_invariant(
        total
            .failures
            .iter()
            .flat_map(|f| f.invariants.iter().map(|&i| (i, 1))),
    );
    total
}

/// Counts per invariant, added up, in catalog order, those above 0 only.
fn count_by_invariant(counts: impl Iterator<Item = (InvariantId, u64)>) -> Vec<(InvariantId, u64)> {
    let mut all: Vec<(InvariantId, u64)> = InvariantId::all().map(|i| (i, 0)).collect();
    for (inv, n) in counts {
        if let Some(c) = all.iter_mut().find(|(i, _)| *i == inv) {
            c.1 += n;
        }
    }
    all.retain(|(_, n)| *n > 0);
    all
}

/// The races (sometimes properties) that apply to `scenario`: all of them that its dialect
/// lists, except the timeout race when no request can time out, and those its transport
/// cannot reach or does not have ([`crate::coverage::race_on_transport`]).
pub fn applicable_races(scenario: &Scenario) -> PropertySet {
    let mut set = PropertySet::default();
    for inv in InvariantId::all() {
        let info = inv.info();
        if info.kind != cancelcheck_properties::Expectation::Sometimes
            || info.application(scenario.dialect).is_none()
        {
            continue;
        }
        if inv == InvariantId::RaceTimeoutWithAnswerInFlight
            && scenario.workload.timeout.is_none()
            && !scenario.swarm
        {
            continue;
        }
        if !crate::coverage::race_on_transport(inv, scenario) {
            continue;
        }
        set.insert(inv);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary of `failures` (seed order) run as one: each counted, listed as `run_plan`
    /// lists them.
    fn whole(failures: &[Failure]) -> Summary {
        let mut s = Summary {
            seeds: failures.len() as u64,
            ..Summary::default()
        };
        for f in failures {
            s.merge(Summary {
                failing_seeds: 1,
                by_invariant: count_by_invariant(f.invariants.iter().map(|&i| (i, 1))),
                failures: vec![f.clone()],
                ..Summary::default()
            });
        }
        s.seeds = failures.len() as u64;
        s
    }

    /// More failing seeds than a summary lists, and an invariant first broken past that bound:
    /// split into shards any way and merged in any order, the summary is the whole's.
    #[test]
    fn shards_merged_are_the_whole() {
        let (a, b) = (
            InvariantId::SingleResolution,
            InvariantId::NoAnswerAfterCancel,
        );
        let n = LISTED_FAILURES as u64 * 2 + 10;
        let failures: Vec<Failure> = (0..n)
            .map(|seed| Failure {
                seed,
                invariants: if seed == n - 3 { vec![a, b] } else { vec![a] },
            })
            .collect();
        let all = whole(&failures);
        assert_eq!(all.failures.len(), LISTED_FAILURES + 1);
        assert_eq!(all.failures.last().map(|f| f.seed), Some(n - 3));
        assert_eq!(all.by_invariant, vec![(a, n), (b, 1)]);
        for shards in [2, 3, 7] {
            let parts: Vec<Summary> = (0..shards)
                .map(|i| {
                    let mine: Vec<Failure> = failures
                        .iter()
                        .filter(|f| f.seed % shards == i)
                        .cloned()
                        .collect();
                    whole(&mine)
                })
                .collect();
            let mut merged = Summary::default();
            for p in parts.into_iter().rev() {
                merged.merge(p);
            }
            assert_eq!(merged, all, "{shards} shards");
        }
    }
}
