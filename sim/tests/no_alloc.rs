//! The simulator's hot loop allocates nothing per event: after a warm-up, running further
//! seeds of the default scenario (not recording) performs no heap allocation at all.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_sim::{Scenario, Simulator};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations each thread makes while its `COUNTING` flag is set. Flag and count
/// are both per thread: the test harness runs tests on parallel threads, and one test's
/// allocations must not show up in another's count.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// Counts one allocation if this thread is counting. `const` thread-locals without a
/// destructor never allocate and stay accessible; `try_with` covers thread teardown anyway.
fn count() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
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
