//! Criterion benchmarks of the hot paths: simulated events per second on the default scenario
//! (one simulator reused across seeds, one thread), and explored states per second.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_sim::explorer::{ExploreSpec, SearchOptions, search};
use cancelcheck_sim::link::Order;
use cancelcheck_sim::{Scenario, Simulator};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// Seeds per measured batch.
const SEEDS: u64 = 1_000;

fn simulator(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulator");
    for d in Dialect::ALL {
        let s = Scenario::default_for(d);
        let mut sim = Simulator::new(&s);
        // The batch's event count is a function of the seeds: count it once.
        let events: u64 = (0..SEEDS)
            .map(|seed| sim.run(&s, seed, false).verdict.events)
            .sum();
        group.throughput(Throughput::Elements(events));
        group.bench_function(format!("default scenario, {}", d.id()), |b| {
            b.iter(|| {
                let mut n = 0;
                for seed in 0..SEEDS {
                    n += sim.run(&s, black_box(seed), false).verdict.events;
                }
                black_box(n)
            })
        });
    }
    group.finish();
}

/// Fixes the C allocator's thresholds for giving memory back to the system. By default glibc
/// raises them as large blocks are freed, so a search's figure would depend on which searches
/// ran before it in this process (after one that freed large blocks, the next keeps its memory;
/// otherwise every search pays again for the pages its buffers touch). Fixed, every
/// configuration is measured alike: searches reuse the memory of the ones before.
fn steady_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets two of glibc's tuning parameters, under glibc's own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

fn explorer(c: &mut Criterion) {
    steady_allocator();
    let mut group = c.benchmark_group("explorer");
    // One search is about a second: ten of them per configuration.
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(12));
    // Large enough that the figure is the search's steady state, not the start of its memo.
    let mut spec = ExploreSpec::new(Dialect::Acp, Behaviour::Honour, 3, Order::Reordering);
    spec.timeouts = true;
    let s = spec.scenario();
    for (name, threads, depth_first) in [
        ("bfs 1 thread", 1, false),
        ("bfs 2 threads", 2, false),
        ("dfs", 1, true),
    ] {
        let opts = SearchOptions {
            max_depth: None,
            threads,
            max_states: None,
            max_memory: None,
            depth_first,
            // Raw states per second: no reduction of the state space.
            symmetry: false,
            partial_order: false,
        };
        let total = search(&s, &opts, &|_, _, _| {}).total_states;
        group.throughput(Throughput::Elements(total));
        group.bench_function(
            format!("acp, 3 requests, reordering, timeouts, {name}"),
            |b| b.iter(|| black_box(search(&s, &opts, &|_, _, _| {}).unique_states)),
        );
    }
    group.finish();
}

criterion_group!(benches, simulator, explorer);
criterion_main!(benches);
