//! The simulator's hot loop allocates nothing per event: after a warm-up, running further
//! seeds of the default scenario (not recording) performs no heap allocation at all.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_sim::{Scenario, Simulator};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counts allocations made by the thread that set `COUNTING`.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> u64 {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::Relaxed)
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
    s.behavior = Behaviour::Honour;
    let mut sim = Simulator::new(&s);
    let n = allocations_during(|| {
        sim.run(&s, 1, true);
    });
    assert!(n > 0);
}
