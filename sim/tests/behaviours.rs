//! Every correct behaviour runs clean; every faulty one is caught.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::breaks::classify;
use cancelcheck_sim::{Scenario, Simulator};

/// Seeds each correct behaviour of each dialect must pass.
const CLEAN_SEEDS: u64 = 10_000;
/// Seeds within which each fault must be found.
const FAULT_SEEDS: u64 = 1_000;

#[test]
fn correct_behaviours_run_clean() {
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = classify(b, d) else { continue };
            if c.faulty() {
                continue;
            }
            // The scenario `cancelcheck run` runs: the dialect's request trees included.
            let s = Scenario::built_in(d, b);
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
            let Some(c) = classify(b, d) else { continue };
            if !c.faulty() {
                continue;
            }
            // The scenario `cancelcheck run` runs: with what the fault needs to act.
            let s = Scenario::built_in(d, b);
            let mut sim = Simulator::new(&s);
            let found = (0..FAULT_SEEDS).find(|&seed| {
                let run = sim.run(&s, seed, false);
                run.verdict
                    .violations
                    .iter()
                    .any(|v| c.breaks.contains(&v.invariant))
            });
            assert!(
                found.is_some(),
                "{d} {b}: none of {:?} broken in {FAULT_SEEDS} seeds",
                c.breaks
            );
        }
    }
}

/// `cancelcheck run --dialect D --behavior B`, as a new user types it: 10,000 seeds of the
/// built-in scenario earn every behaviour the verdict `cancelcheck behaviors` promises it
/// (`pass` for a correct one, reaching every race; `fail` or `warn` for a fault, never
/// `vacuous`), and the request trees the built-in scenarios add change no fault's verdict.
#[test]
fn the_built_in_scenario_earns_every_behaviour_its_verdict() {
    use cancelcheck_sim::SeedPlan;
    let mut wrong = Vec::new();
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(expected) = cancelcheck_sim::coverage::expected_status(d, b) else {
                continue;
            };
            let s = Scenario::built_in(d, b);
            let plan = SeedPlan {
                seeds: 0..CLEAN_SEEDS,
                shard: (0, 1),
                jobs: 2,
            };
            let summary = cancelcheck_sim::run_plan(&s, &plan, &|_| {}, None);
            let (status, vacuous) = summary.verdict(&s);
            if status != expected {
                wrong.push(format!(
                    "{d} {b}: {status:?}, expected {expected:?}: {vacuous:?}"
                ));
            }
            let strongest = |trees: bool| {
                cancelcheck_properties::breaks::breaks_with_trees_in(b, d, trees)
                    .iter()
                    .filter_map(|i| i.info().application(d).map(|a| a.strength))
                    .max_by_key(|s| *s == cancelcheck_properties::Strength::Must)
            };
            if strongest(true) != strongest(false) {
                wrong.push(format!("{d} {b}: request trees change its verdict"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What every faulty behaviour declares it breaks is what it is seen to break: the union of
/// the invariants broken over seeds of the default scenario without request trees but those
/// the fault needs (and of its swarm mode, with loss, duplication, reordering and
/// disconnects) and over exhaustive searches (1 and 2 requests, both transports, timeouts,
/// connect timeout, progress) equals its declared list in every dialect (with and without
/// request timeouts: where a requester gives up on a request by timing out, a peer that never
/// answers cannot hang it); and over the same seeds of the built-in scenario (the dialect's
/// request trees, as `cancelcheck run` runs it), the declared list with what it breaks besides
/// in trees (`breaks::also_with_trees`). A fault that breaks an invariant it does not
/// declare, or declares one it never breaks, fails here.
///
/// The longest test of `cargo test` (about two minutes on 2 cores, most of it one fault's
/// searches with request trees), so it runs in the long suite, `cargo test -- --ignored`,
/// which `.ci/run` runs after `cargo test` (README, "The long suite").
#[test]
#[ignore = "the long suite: cargo test -- --ignored (README, The long suite)"]
fn declared_breaks_are_observed_breaks() {
    use cancelcheck_sim::explorer::{ExploreSpec, SearchOptions, search};
    use cancelcheck_sim::link::Order;
    let mut wrong = Vec::new();
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = classify(b, d) else { continue };
            if !c.faulty() {
                continue;
            }
            let mut seen: Vec<&'static str> = Vec::new();
            let mut note = |names: &mut dyn Iterator<Item = &'static str>| {
                for n in names {
                    if !seen.contains(&n) {
                        seen.push(n);
                    }
                }
            };
            for (swarm, timeouts) in [(false, true), (true, true), (false, false)] {
                let mut s = Scenario::default_for(d);
                s.behaviour = b;
                s.swarm = swarm;
                // Faults of request trees get trees, faults of tasks tasks.
                s.workload.nesting = cancelcheck_sim::coverage::nesting_to_act(&s);
                if b == Behaviour::CancelsTaskByNotification {
                    s.workload.task_permille = cancelcheck_sim::scenario::TASK_PERMILLE_TO_ACT;
                }
                // Faults of Streamable HTTP get it.
                if cancelcheck_sim::coverage::http_to_act(b) {
                    s.use_http();
                }
                if !timeouts {
                    s.workload.timeout = None;
                    s.workload.init_timeout = None;
                }
                let mut sim = Simulator::new(&s);
                for seed in 0..FAULT_SEEDS {
                    let run = sim.run(&s, seed, false);
                    note(&mut run.verdict.violations.iter().map(|v| v.invariant.name()));
                }
            }
            for (n, order, timeouts) in [1, 2]
                .into_iter()
                .flat_map(|n| {
                    let orders = match cancelcheck_sim::coverage::http_to_act(b) {
                        true => [Order::Http, Order::Http],
                        false => [Order::Fifo, Order::Reordering],
                    };
                    orders.map(|o| (n, o))
                })
                .flat_map(|(n, o)| [true, false].map(|t| (n, o, t)))
            {
                {
                    let mut spec = ExploreSpec::new(d, b, n, order);
                    spec.timeouts = timeouts;
                    spec.init_timeout = true;
                    spec.progress = true;
                    // This fault acts on a request the server gives up on its own.
                    spec.internal_cancel = b == Behaviour::MisusesServerCancelled;
                    // This fault acts on task-augmented requests.
                    spec.tasks = b == Behaviour::CancelsTaskByNotification;
                    // Faults that act on the server's own requests get them.
                    spec.server_requests =
                        cancelcheck_sim::coverage::server_requests_to_act(&spec.scenario());
                    spec.nesting = cancelcheck_sim::coverage::nesting_to_act(&spec.scenario());
                    let opts = SearchOptions {
                        max_depth: None,
                        threads: 2,
                        max_states: Some(2_000_000),
                        depth_first: false,
                        symmetry: true,
                        partial_order: true,
                        max_memory: None,
                    };
                    let r = search(&spec.scenario(), &opts, &|_, _, _| {});
                    for (_, broken) in r.counterexample.iter().chain(r.warning.iter()) {
                        note(&mut broken.iter().map(|i| i.name()));
                    }
                }
            }
            let mut declared: Vec<&str> = cancelcheck_properties::breaks::breaks_in(b, d)
                .iter()
                .map(|i| i.name())
                .collect();
            declared.sort_unstable();
            seen.sort_unstable();
            if declared != seen {
                wrong.push(format!("{d} {b}: declares {declared:?}, breaks {seen:?}"));
            }
            // The built-in scenario, with the dialect's request trees.
            let trees = !Scenario::built_in(d, b).workload.nesting.is_flat();
            let mut in_trees: Vec<&str> = Vec::new();
            for (swarm, timeouts) in [(false, true), (true, true), (false, false)] {
                let mut s = Scenario::built_in(d, b);
                s.swarm = swarm;
                if !timeouts {
                    s.workload.timeout = None;
                    s.workload.init_timeout = None;
                }
                let mut sim = Simulator::new(&s);
                for seed in 0..FAULT_SEEDS {
                    for v in &sim.run(&s, seed, false).verdict.violations {
                        if !in_trees.contains(&v.invariant.name()) {
                            in_trees.push(v.invariant.name());
                        }
                    }
                }
            }
            let mut with_trees: Vec<&str> =
                cancelcheck_properties::breaks::breaks_with_trees_in(b, d, trees)
                    .iter()
                    .map(|i| i.name())
                    .collect();
            with_trees.sort_unstable();
            in_trees.extend(seen.iter().copied());
            in_trees.sort_unstable();
            in_trees.dedup();
            if with_trees != in_trees {
                wrong.push(format!(
                    "{d} {b} in the built-in scenario: declares {with_trees:?}, breaks {in_trees:?}"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "declared and observed differ:\n{}",
        wrong.join("\n")
    );
}

/// A reused id confuses two requests on the wire; in a request tree the confusion spreads to
/// the tree (a parent waits on a child whose answer went to the other request, a cancel meant
/// for one lands on the other). What follows from it is pinned on no party: with trees, the
/// requester's `reuses-live-id` still breaks what it declares and nothing else, and the
/// responder's handling of the second request of a reused id (a request of its own) is not
/// taken for a handling of the first.
#[test]
fn a_reused_id_in_request_trees_breaks_only_what_it_declares() {
    use cancelcheck_sim::scenario::Nesting;
    let b = Behaviour::ReusesLiveId;
    let mut wrong = Vec::new();
    for d in Dialect::ALL {
        // (ABP has no nesting: its app sends no requests.)
        if classify(b, d).is_none() || d == Dialect::Abp {
            continue;
        }
        let declared: Vec<&str> = cancelcheck_properties::breaks::breaks_in(b, d)
            .iter()
            .map(|i| i.name())
            .collect();
        for (depth, fanout) in [(2, 2), (3, 2)] {
            let mut s = Scenario::default_for(d);
            s.behaviour = b;
            s.workload.nesting = Nesting { depth, fanout };
            let mut sim = Simulator::new(&s);
            for seed in 0..2 * FAULT_SEEDS {
                let run = sim.run(&s, seed, false);
                for v in &run.verdict.violations {
                    let n = v.invariant.name();
                    if !declared.contains(&n) {
                        wrong.push(format!("{d} nesting {depth}x{fanout} seed {seed}: {n}"));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "breaks more than declared:\n{}",
        wrong.join("\n")
    );
}
