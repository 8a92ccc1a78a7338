//! What the code allocates. The simulator's hot loop allocates nothing per event: after a
//! warm-up, running further seeds of the default scenario (not recording) performs no heap
//! allocation at all. A search on one thread holds no more than its memory budget.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_sim::explorer::{ExploreSpec, SearchOptions, search};
use cancelcheck_sim::link::Order;
use cancelcheck_sim::{Scenario, Simulator};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations each thread makes while its `COUNTING` flag is set, and the bytes
/// it holds meanwhile (allocated less freed) and their peak. Flag and counts are all per
/// thread: the test harness runs tests on parallel threads, and one test's allocations must
/// not show up in another's count.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static HELD: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

/// Counts one allocation of `grown` more bytes (fewer, if negative: a free or a shrinking) if
/// this thread is counting. `const` thread-locals without a destructor never allocate and
/// stay accessible; `try_with` covers thread teardown anyway.
fn count(allocation: bool, grown: i64) {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        if allocation {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        }
        let _ = HELD.try_with(|h| {
            h.set(h.get() + grown);
            let _ = PEAK.try_with(|p| p.set(p.get().max(h.get())));
        });
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(true, layout.size() as i64);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(true, layout.size() as i64);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(false, -(layout.size() as i64));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Both blocks are held while the bytes move over.
        count(true, new_size as i64);
        count(false, -(layout.size() as i64));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (and reallocations) this thread makes while running `f`.
fn allocations_during(f: impl FnOnce()) -> u64 {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

/// The most bytes this thread held at once, beyond what it held before, while running `f`.
fn peak_bytes_during<R>(f: impl FnOnce() -> R) -> (u64, R) {
    HELD.with(|h| h.set(0));
    PEAK.with(|p| p.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (PEAK.with(Cell::get).max(0) as u64, r)
}

#[test]
fn passing_runs_allocate_nothing_after_warm_up() {
    for d in Dialect::ALL {
        let s = Scenario::default_for(d);
        let mut sim = Simulator::new(&s);
        for seed in 0..200 {
            sim.run(&s, seed, false);
        }
        let mut events = 0;
        let n = allocations_during(|| {
            for seed in 200..2200 {
                events += sim.run(&s, seed, false).verdict.events;
            }
        });
        assert!(
            events > 10_000,
            "{d}: too few events to mean anything ({events})"
        );
        assert_eq!(n, 0, "{d}: {n} allocations over {events} events");
    }
}

/// The counter works: a run that records its events does allocate (so a zero above is real).
#[test]
fn the_counter_sees_allocations() {
    let mut s = Scenario::default_for(Dialect::Acp);
    s.behaviour = Behaviour::Honour;
    let mut sim = Simulator::new(&s);
    let n = allocations_during(|| {
        sim.run(&s, 1, true);
    });
    assert!(n > 0);
}

/// A search on one thread (which fills the visited set and the next level as it expands, or
/// holds a stack) allocates no more than its memory budget, and more than half of it: what it
/// counts as held is what it holds, the parts its memos share included. ABP's checker has
/// many states, so its search stores many parts (a third of what it holds); ACP's few. (On
/// several threads the later threads' successors are merged after each level, reserving
/// first; the CLI's tests bound those by the figure the search reports.)
#[test]
fn a_search_on_one_thread_allocates_within_its_memory_budget() {
    let cases = [
        (Dialect::Acp, 8 << 20, false, false),
        (Dialect::Abp, 32 << 20, true, false),
        (Dialect::Abp, 16 << 20, true, true),
    ];
    for (dialect, budget, partial_order, depth_first) in cases {
        let mut spec = ExploreSpec::new(dialect, Behaviour::Honour, 3, Order::Reordering);
        spec.timeouts = true;
        let s = spec.scenario();
        let opts = SearchOptions {
            max_depth: None,
            threads: 1,
            max_states: None,
            max_memory: Some(budget),
            depth_first,
            symmetry: false,
            partial_order,
        };
        let (peak, r) = peak_bytes_during(|| search(&s, &opts, &|_, _, _| {}));
        let case = format!("{dialect} depth_first={depth_first}");
        assert!(r.bounded_by_memory && !r.exhaustive, "{case}");
        assert!(r.peak_bytes_held <= budget, "{case}: {}", r.peak_bytes_held);
        // What a search never counts (the scenario, the initial worlds, allocators' rounding)
        // is small beside the budget.
        assert!(
            peak <= budget + budget / 16,
            "{case}: {peak} bytes allocated at most, {} counted",
            r.peak_bytes_held
        );
        assert!(peak > budget / 2, "{case}: {peak} bytes allocated at most");
    }
}
