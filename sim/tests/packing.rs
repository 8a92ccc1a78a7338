//! The explorer stores states packed and deduplicates them by the packed bytes, so packing must
//! lose nothing: every state reachable in small configurations of every dialect (both
//! transports, timeouts, loss, progress, duplication, id reuse) unpacks into a fresh state that
//! equals it and packs to the same bytes, and a copy made with `clone_from` packs the same too.

use cancelcheck_model::{Behaviour, Dialect, Party};
use cancelcheck_sim::explorer::{ExploreSpec, Explorer, fingerprint, initial_scenarios};
use cancelcheck_sim::link::Order;
use std::collections::HashSet;

/// Walks every state reachable within `depth` steps (depth-first, deduplicated by packed bytes)
/// and checks each; returns how many distinct states it checked.
fn walk(spec: &ExploreSpec, depth: usize) -> usize {
    let s = spec.scenario();
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut fingerprints = HashSet::new();
    for (root, init) in initial_scenarios(&s).iter().enumerate() {
        let template = Explorer::new(init, root as u8, false);
        let mut stack = vec![(template.clone(), 0)];
        let (mut packed, mut again, mut steps) = (Vec::new(), Vec::new(), Vec::new());
        let mut copy = template.clone();
        while let Some((e, d)) = stack.pop() {
            e.pack(&mut packed);
            if !seen.insert(packed.clone()) {
                continue;
            }
            assert!(
                fingerprints.insert(fingerprint(&packed)),
                "two states share a fingerprint"
            );
            let mut fresh = template.clone();
            fresh.unpack(&packed).expect("a packed state unpacks");
            fresh.pack(&mut again);
            assert_eq!(packed, again, "{spec:?}: unpack then pack differs");
            for p in [Party::Client, Party::Server] {
                assert_eq!(fresh.world().endpoint(p), e.world().endpoint(p), "{spec:?}");
            }
            copy.clone_from(&e);
            copy.pack(&mut again);
            assert_eq!(packed, again, "{spec:?}: clone_from then pack differs");
            if d == depth {
                continue;
            }
            e.enabled(init, &mut steps);
            for &step in &steps {
                let mut child = e.clone();
                child.apply(init, step);
                if !child.violated() {
                    stack.push((child, d + 1));
                }
            }
        }
    }
    seen.len()
}

#[test]
fn packed_states_round_trip() {
    let mut checked = 0;
    for d in Dialect::ALL {
        for order in [Order::Fifo, Order::Reordering] {
            let mut spec = ExploreSpec::new(d, Behaviour::Honour, 2, order);
            spec.timeouts = true;
            spec.init_timeout = true;
            spec.progress = true;
            spec.loss = true;
            spec.duplicate = true;
            spec.internal_cancel = true;
            spec.malformed_cancel = true;
            checked += walk(&spec, 7);
            let mut spec = ExploreSpec::new(d, Behaviour::IdTypeConfusion, 2, order);
            spec.reuse_ids = true;
            spec.repeat_cancel = true;
            checked += walk(&spec, 7);
        }
    }
    assert!(checked > 10_000, "only {checked} states checked");
}

#[test]
fn foreign_bytes_do_not_unpack() {
    let s = ExploreSpec::new(Dialect::Acp, Behaviour::Honour, 1, Order::Fifo).scenario();
    let mut e = Explorer::new(&s, 0, false);
    let mut packed = Vec::new();
    e.pack(&mut packed);
    assert!(e.unpack(&packed[..packed.len() - 1]).is_err(), "truncated");
    let mut longer = packed.clone();
    longer.push(0);
    assert!(e.unpack(&longer).is_err(), "trailing bytes");
    let mut other_root = packed.clone();
    other_root[0] = 1;
    assert!(e.unpack(&other_root).is_err(), "another initial scenario");
    assert!(e.unpack(&packed).is_ok());
}

/// Steps every state within `depth` steps twice, once as a plain state and once as a flat row
/// (parts by number, messages, work and timers by code, stepped through the memo the search
/// uses), and checks that they agree at every state and after every step: the same steps at
/// the same indices (also as the partial-order reduction picks them), the same row (coding the
/// plain state gives the flat one's bytes, and the row read back packs as the plain state),
/// the same verdict of the step, and at a quiescent state the same final verdict. Returns the
/// states checked.
fn lockstep(spec: &ExploreSpec, depth: usize) -> usize {
    use cancelcheck_sim::explorer::{Flat, FlatMemo, FlatShared};
    let s = spec.scenario();
    let inits = initial_scenarios(&s);
    let plain: Vec<Explorer> = inits
        .iter()
        .enumerate()
        .map(|(i, init)| Explorer::new(init, i as u8, false))
        .collect();
    let worlds = plain.iter().map(|e| e.world().clone()).collect();
    let shared = FlatShared::new(&inits[0]).expect("small configurations fit a row");
    let mut memo = FlatMemo::new(shared, worlds);
    let (mut a, mut b, mut seen, mut checked) = (Vec::new(), Vec::new(), HashSet::new(), 0);
    let (mut steps, mut flat_steps) = (Vec::new(), Vec::new());
    let (mut ample, mut flat_ample) = (Vec::new(), Vec::new());
    let code = |e: &Explorer, memo: &mut FlatMemo| {
        Flat::from_explorer(e, memo).unwrap_or_else(|| panic!("{spec:?}: a state does not fit"))
    };
    for (root, init) in inits.iter().enumerate() {
        let flat = code(&plain[root], &mut memo);
        let mut stack = vec![(plain[root].clone(), flat, 0)];
        while let Some((e, f, d)) = stack.pop() {
            e.pack(&mut a);
            if !seen.insert(a.clone()) || d == depth {
                continue;
            }
            checked += 1;
            // Read back, the row is the plain state: every field of it the row holds, and the
            // rest as the initial state has it.
            let back = f
                .to_explorer(&memo, &plain[root])
                .expect("a row reads back");
            back.pack(&mut b);
            assert_eq!(a, b, "{spec:?}: the row read back differs");
            e.enabled(init, &mut steps);
            f.enabled(&memo, &mut flat_steps);
            assert_eq!(steps.len(), flat_steps.len(), "{spec:?}: {steps:?}");
            e.to_expand(init, true, &mut Vec::new(), &mut ample);
            f.to_expand(true, &memo, &mut Vec::new(), &mut flat_ample);
            let picked: Vec<u32> = ample.iter().map(|p| p.0).collect();
            let flat_picked: Vec<u32> = flat_ample.iter().map(|p| p.0).collect();
            assert_eq!(picked, flat_picked, "{spec:?}: ample sets");
            if steps.is_empty() {
                let (v, _) = e.clone().finish(true);
                let w = f.clone().end(true, &mut memo);
                assert_eq!(v.violations, w.violations, "{spec:?}: final verdicts");
            }
            // Prepared as a search prepares them (what the memo holds of each looked up
            // ahead), the steps make the same rows as unprepared.
            let mut prepared: Vec<(u32, _)> = (0..).zip(flat_steps.iter().copied()).collect();
            f.prepare(&mut prepared, &memo);
            for ((&step, &flat_step), &(_, ready)) in steps.iter().zip(&flat_steps).zip(&prepared) {
                let (mut e2, mut f2, mut f3) = (e.clone(), f.clone(), f.clone());
                e2.apply(init, step);
                f2.step(flat_step, &mut memo);
                f3.step(ready, &mut memo);
                assert!(!memo.spoilt(), "{spec:?}: a state does not fit");
                let outcome =
                    |f: &Flat| (f.bytes().to_vec(), f.violated(), f.warned(), f.reached());
                assert_eq!(outcome(&f2), outcome(&f3), "{spec:?} {step:?}: prepared");
                assert_eq!(e2.violated(), f2.violated(), "{spec:?} {step:?}");
                assert_eq!(e2.reached(), f2.reached(), "{spec:?} {step:?}");
                assert_eq!(e2.warned(), f2.warned(), "{spec:?} {step:?}");
                if e2.violated() || e2.warned() {
                    assert_eq!(e2.world().checker().broken(), memo.broken(), "{spec:?}");
                }
                if e2.violated() {
                    continue;
                }
                // As the search does, the state starts its own verdict (a warning is expanded
                // further, and what its successors break is theirs).
                e2.pack(&mut a);
                e2.unpack(&a).expect("a packed state unpacks");
                let row = f2.bytes().to_vec();
                f2.unpack(&row, &mut memo).expect("a row unpacks");
                let coded = code(&e2, &mut memo);
                assert_eq!(coded.bytes(), f2.bytes(), "{spec:?}: {step:?} differs flat");
                stack.push((e2, f2, d + 1));
            }
        }
    }
    checked
}

#[test]
fn flat_stepping_agrees_with_the_world() {
    let mut checked = 0;
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let mut spec = ExploreSpec::new(d, b, 2, Order::Reordering);
            spec.timeouts = true;
            spec.progress = true;
            spec.duplicate = true;
            spec.internal_cancel = true;
            spec.malformed_cancel = true;
            checked += lockstep(&spec, 6);
            // On stdio without duplication, where the partial-order reduction's ample sets
            // are worked out from the queues.
            spec.order = Order::Fifo;
            spec.duplicate = false;
            checked += lockstep(&spec, 6);
        }
        let mut spec = ExploreSpec::new(d, Behaviour::Honour, 2, Order::Fifo);
        spec.loss = true;
        spec.reuse_ids = true;
        spec.init_timeout = true;
        checked += lockstep(&spec, 8);
    }
    assert!(checked > 10_000, "only {checked} states checked");
}
