//! The searches over explored states: breadth-first (level by level on several threads,
//! shortest counterexample first), depth-first (one thread, memory that grows with the depth),
//! and the replay of a schedule either of them reports.
//!
//! Both hold states packed and expand one by unpacking it into a base state, making each
//! successor in a scratch copy of it, and packing the successor again: nothing is allocated per
//! successor once the buffers have grown, but for a transition met for the first time by a
//! flat search (see [`super::flat`]). Lookups in the large tables (the visited set, the
//! transition memo) are prefetched ahead of use.
//!
//! One file per job: [`form`] (the forms a search holds states in), [`expander`] (one
//! thread's means of expanding states), [`breadth_first`], [`depth_first`], [`replay`](mod@replay); this
//! file holds what a search is asked and reports, the memory accounting both searches share,
//! and [`search`], which picks the form and shortens what a reduced search found.

mod breadth_first;
mod combine;
mod depth_first;
mod expander;
mod form;
mod replay;
mod workers;

pub use combine::combine;
pub use replay::{Replayed, replay};

use cancelcheck_properties::{InvariantId, PropertySet};

use super::flat::Flat;
use super::state::Explorer;
use super::symmetric;
use crate::scenario::Scenario;
use breadth_first::search_breadth_first;
use depth_first::search_depth_first;
use expander::roots;

/// How to search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Stop expanding at this depth (the search is then bounded, never a plain pass).
    pub max_depth: Option<u32>,
    /// Worker threads for expanding a level.
    pub threads: usize,
    /// Stop after this many unique states (bounded).
    pub max_states: Option<u64>,
    /// Stop before the search would hold more than this many bytes (bounded): its levels or
    /// stack, the successors being made, the visited set and the transition memos, each
    /// counted with the growth it is about to make. See [`SearchReport::bounded_by_memory`].
    pub max_memory: Option<u64>,
    /// Depth-first instead of breadth-first: memory grows with the depth, not the width, but
    /// the first counterexample need not be a shortest one, and with a depth bound a state
    /// first met deep is not revisited from shallower paths (the bound is then approximate).
    /// Single-threaded.
    pub depth_first: bool,
    /// Deduplicate states up to a permutation of interchangeable requests (applied only where
    /// [`symmetric`] holds; see [`SearchReport::symmetry`]).
    pub symmetry: bool,
    /// Expand, from each state, only an ample set of its steps (one request's on a reordering
    /// link; a queue's head or one party's steps on a FIFO link), where that leaves steps out
    /// (applied only where [`partial_order`](super::partial_order) holds; see [`SearchReport::partial_order`]).
    pub partial_order: bool,
}

/// What a search found.
#[derive(Clone, Debug, Default)]
pub struct SearchReport {
    /// Distinct states visited.
    pub unique_states: u64,
    /// States generated, duplicates included.
    pub total_states: u64,
    /// Deepest level reached.
    pub max_depth: u32,
    /// Whether every reachable state was visited (no bound cut the search).
    pub exhaustive: bool,
    /// Races reached by some visited state.
    pub reached: PropertySet,
    /// The most states held at once: breadth-first, a level plus the new states of the next
    /// (each packed in some 50 to 100 bytes); depth-first, the stack.
    pub peak_states_held: u64,
    /// Whether the symmetry reduction was applied.
    pub symmetry: bool,
    /// Whether the partial-order reduction was applied.
    pub partial_order: bool,
    /// States expanded through an ample set smaller than their enabled steps (0 without the
    /// partial-order reduction).
    pub reduced_states: u64,
    /// Whether states were held as [flat](super::Flat) rows (rather than plain worlds).
    pub flat: bool,
    /// Whether the search stopped at [`SearchOptions::max_memory`] (it is then bounded).
    pub bounded_by_memory: bool,
    /// The most bytes the search held at once, as it counts them (see
    /// [`SearchOptions::max_memory`]).
    pub peak_bytes_held: u64,
    /// The first counterexample found that breaks a MUST clause: its schedule (initial state
    /// index, then the index of each step in `enabled`) and the invariants it breaks. A
    /// shortest one, breadth-first without the partial-order reduction. The search stops at it.
    pub counterexample: Option<(Vec<u32>, Vec<cancelcheck_properties::InvariantId>)>,
    /// The first schedule found that breaks only SHOULD clauses (a warning), in the same form.
    /// The search goes on past it: a state that broke a SHOULD is expanded like any other, so
    /// a MUST broken further on is still found.
    pub warning: Option<(Vec<u32>, Vec<cancelcheck_properties::InvariantId>)>,
    /// Whether the reported counterexample (or warning) is a shortest one: breadth-first
    /// without the partial-order reduction it is; after a reduced search found one, a second
    /// breadth-first search without that reduction, bounded by its length, looks for a
    /// shortest path to a state breaking the same invariant, and it is reported instead when
    /// found.
    pub shortest: bool,
    /// Whether the search stopped at [`SearchOptions::max_states`] (it is then bounded).
    pub bounded_by_states: bool,
    /// Breadth-first: each level expanded, counted as the search stood after expanding it
    /// (a level cut short at the memory budget is not listed). With [`SearchReport::found`]
    /// and [`SearchReport::shortening`], what [`combine`] needs to make the report of a
    /// search of every initial state out of those of searches of some of them.
    pub levels: Vec<Level>,
    /// Breadth-first: what the search found and at which level, before any shortening.
    pub found: Findings,
    /// The shortening search run after a reduced one found something (see
    /// [`SearchReport::shortest`]): the depth it was bounded by and what it found.
    pub shortening: Option<(u32, Findings)>,
}

/// One level of a breadth-first search, as the search stood once it had expanded it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// Distinct states visited: every level up to this one.
    pub unique: u64,
    /// States generated, this level's successors included.
    pub total: u64,
    /// States expanded through a reduced ample set so far.
    pub reduced: u64,
    /// Races reached so far.
    pub reached: PropertySet,
}

/// A schedule that broke something, and the breadth-first level whose expansion found it: a
/// quiescent state of that level (its schedule is `level` steps long) or a successor of one
/// (`level + 1` steps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The initial state's index, then the index of each step.
    pub schedule: Vec<u32>,
    /// The invariants broken.
    pub broken: Vec<InvariantId>,
    /// The level whose expansion found it.
    pub level: u32,
}

impl Finding {
    /// The order in which a breadth-first search meets findings: by level, a quiescent
    /// state's before a successor's, then by initial state (a level holds its states in the
    /// order of their initial states, each in the order the search of that initial state
    /// alone holds them).
    pub fn key(&self) -> (u32, bool, u32) {
        let successor = self.schedule.len() as u32 > self.level + 1;
        (self.level, successor, self.schedule[0])
    }
}

/// The first MUST broken and the first warning, as a breadth-first search found them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// The first schedule found to break a MUST.
    pub counterexample: Option<Finding>,
    /// The first schedule found to break only SHOULDs, before any MUST was.
    pub warning: Option<Finding>,
}

impl SearchReport {
    /// The counterexample if a MUST was broken, else the first warning.
    pub fn finding(&self) -> Option<&(Vec<u32>, Vec<InvariantId>)> {
        self.counterexample.as_ref().or(self.warning.as_ref())
    }
}

impl SearchReport {
    fn starting(symmetry: bool, partial_order: bool) -> Self {
        SearchReport {
            exhaustive: true,
            symmetry,
            partial_order,
            ..SearchReport::default()
        }
    }
}

/// A search stopped at its memory budget: bounded, with the states visited so far.
fn out_of_memory(mut report: SearchReport, unique: usize) -> SearchReport {
    report.exhaustive = false;
    report.bounded_by_memory = true;
    report.unique_states = unique as u64;
    report
}

/// The bytes a growable buffer of `len` of `cap` elements of `elem` bytes holds, counting the
/// doubling it is about to make (the old and the new buffer at once) once it is three
/// quarters full.
fn growable(len: usize, cap: usize, elem: usize) -> u64 {
    growable_bytes(len, cap, (cap * elem) as u64)
}

/// [`growable`] of a buffer (or hash table) of `cap` entries that holds `bytes` for them.
/// Counted so, it next grows only after `cap / 4` more entries if ever it is counted at
/// `bytes`: counting each entry added after at 8 entries' share of `bytes` covers the
/// doubling then, and every later one.
pub(in crate::explorer) fn growable_bytes(len: usize, cap: usize, bytes: u64) -> u64 {
    if len * 4 >= cap * 3 { 3 * bytes } else { bytes }
}

/// The bytes a buffer of `cap` elements of `elem` bytes holds while it is made to hold
/// `needed` (the old and the new buffer at once if it must grow).
fn reserved(needed: usize, cap: usize, elem: usize) -> u64 {
    if needed <= cap {
        (cap * elem) as u64
    } else {
        ((cap + needed) * elem) as u64
    }
}

/// Explores `scenario` (breadth-first unless `opts.depth_first`). `progress(depth, unique,
/// frontier)` is called after each breadth-first level.
///
/// Without the symmetry reduction states are held [flat](super::Flat): few distinct endpoint
/// states, checker states and messages recur in many global states, so a state is a row of
/// small codes and most transitions are looked up, not worked out. Under symmetry every
/// successor is relabelled, which needs the parties themselves, and the reduced space has few
/// repeats to look up: states are then held as plain worlds, as they are when a state does not
/// fit a flat row. Either way the same states are visited, with the same counts.
pub fn search(
    scenario: &Scenario,
    opts: &SearchOptions,
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> SearchReport {
    search_shard(scenario, opts, (0, 1), progress)
}

/// [`search`] from the initial states ([`initial_scenarios`](super::initial_scenarios)) whose
/// index is `shard.0` modulo `shard.1` only (none, if there are fewer than `shard.0 + 1`).
///
/// No state is shared between initial states: each packs its initial state's index first
/// (the plain form's `root`, the flat row's `ROOT` code), so the search of one initial state
/// visits, counts and deduplicates exactly what the search of all of them does from it, and
/// [`combine`] adds the shards' counts up. In a shard of more than one (`shard.1 > 1`), a
/// reduced search bounded by `max_depth` runs its shortening search to that depth whatever it
/// found, for [`combine`] to know what the whole search's shortening would find among this
/// shard's initial states.
pub fn search_shard(
    scenario: &Scenario,
    opts: &SearchOptions,
    shard: (u32, u32),
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> SearchReport {
    let sym = opts.symmetry && symmetric(scenario);
    let (rules, mut roots) = roots(scenario);
    roots.shard = (shard.0, shard.1.max(1));
    let run = |flat: bool| match (flat, opts.depth_first) {
        (true, false) => search_breadth_first::<Flat>(&rules, &roots, opts, progress),
        (false, false) => search_breadth_first::<Explorer>(&rules, &roots, opts, progress),
        (true, true) => search_depth_first::<Flat>(&rules, &roots, opts),
        (false, true) => search_depth_first::<Explorer>(&rules, &roots, opts),
    };
    // Plain worlds hold every state, so the second run always reports.
    let mut report = (!sym)
        .then(|| run(true))
        .flatten()
        .map(|r| SearchReport { flat: true, ..r })
        .or_else(|| run(false))
        .unwrap_or_default();
    report.shortest = !opts.depth_first && !report.partial_order;
    if report.shortest {
        return report;
    }
    // A reduced or depth-first search found a path, perhaps not a shortest one: look for a
    // shortest path to the same invariant breadth-first, without the partial-order reduction
    // (the symmetry reduction keeps lengths), no deeper than the path found.
    let finding = report.finding().cloned();
    // A shard's bounded search looks as deep as any shard's finding may call for.
    let shard_bound = opts
        .max_depth
        .filter(|_| shard.1 > 1 && !report.exhaustive && !opts.depth_first)
        .map(|d| d + 1);
    let Some(bound) = shard_bound.or(finding.as_ref().map(|(p, _)| p.len() as u32)) else {
        // Nothing found: no path to shorten.
        report.shortest = true;
        return report;
    };
    let again = SearchOptions {
        max_depth: Some(bound),
        depth_first: false,
        partial_order: false,
        ..*opts
    };
    let quiet = |_, _, _| {};
    let shorter = search_shard(scenario, &again, shard, &quiet);
    report.shortening = Some((bound, shorter.found.clone()));
    let Some((path, broken)) = finding else {
        report.shortest = true;
        return report;
    };
    let must = report.counterexample.is_some();
    let same = |found: &Option<(Vec<u32>, Vec<InvariantId>)>| {
        found
            .clone()
            .filter(|(p, b)| p.len() <= path.len() && b.iter().any(|i| broken.contains(i)))
    };
    let found = if must {
        same(&shorter.counterexample)
    } else {
        same(&shorter.warning)
    };
    if let Some(found) = found {
        if must {
            report.counterexample = Some(found);
        } else {
            report.warning = Some(found);
        }
        report.shortest = true;
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explorer::ExploreSpec;
    use crate::explorer::flat::FlatShared;
    use crate::link::Order;
    use cancelcheck_model::{Behaviour, Dialect};

    /// Rows with room for one message per direction cannot hold two requests in flight: both
    /// flat searches report themselves void, and plain worlds answer with the counts the flat
    /// form gives when its rows are large enough.
    #[test]
    fn a_state_too_big_for_its_row_voids_the_flat_search() {
        let s = ExploreSpec::new(Dialect::Acp, Behaviour::Honour, 2, Order::Reordering).scenario();
        let (rules, mut roots) = roots(&s);
        let mut opts = SearchOptions {
            max_depth: None,
            threads: 1,
            max_states: None,
            max_memory: None,
            depth_first: false,
            symmetry: false,
            partial_order: false,
        };
        let quiet = |_, _, _| {};
        let flat = search_breadth_first::<Flat>(&rules, &roots, &opts, &quiet).expect("fits");
        let whole = search(&s, &opts, &quiet);
        assert!(whole.flat && flat.exhaustive);
        roots.flat = Some(FlatShared::with_net_capacity(&rules, 1));
        assert!(search_breadth_first::<Flat>(&rules, &roots, &opts, &quiet).is_none());
        let plain = search_breadth_first::<Explorer>(&rules, &roots, &opts, &quiet);
        let plain = plain.expect("plain worlds hold every state");
        assert_eq!(
            (flat.unique_states, flat.total_states),
            (plain.unique_states, plain.total_states)
        );
        opts.depth_first = true;
        assert!(search_depth_first::<Flat>(&rules, &roots, &opts).is_none());
        let plain = search_depth_first::<Explorer>(&rules, &roots, &opts).expect("plain");
        assert_eq!(flat.unique_states, plain.unique_states);
    }
}
