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

/// Steps every state within `depth` steps twice, once on a plain world and once interned
/// (endpoints and checker by fingerprint, stepped through the memo the search uses), and checks
/// that they agree after every step: the same driver state and parts (interning the plain
/// world's state gives the interned state's bytes), the same verdict of the step. Returns the
/// states checked.
fn lockstep(spec: &ExploreSpec, depth: usize) -> usize {
    use cancelcheck_sim::explorer::{Memo, Store};
    use std::sync::Arc;
    let s = spec.scenario();
    let inits = initial_scenarios(&s);
    let plain: Vec<Explorer> = inits
        .iter()
        .enumerate()
        .map(|(i, init)| Explorer::new(init, i as u8, false))
        .collect();
    let worlds = plain.iter().map(|e| e.world().clone()).collect();
    let mut memo = Memo::new(Arc::new(Store::default()), worlds);
    let (mut a, mut b, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    let mut checked = 0;
    for (root, init) in inits.iter().enumerate() {
        let interned = plain[root].intern(&mut memo);
        let mut stack = vec![(plain[root].clone(), interned, 0)];
        while let Some((e, i, d)) = stack.pop() {
            e.pack(&mut a);
            if !seen.insert(a.clone()) || d == depth {
                continue;
            }
            checked += 1;
            e.enabled(init, &mut steps);
            for &step in &steps {
                let (mut e2, mut i2) = (e.clone(), i.clone());
                e2.apply(init, step);
                i2.step(init, step, &mut memo);
                assert_eq!(e2.violated(), i2.violated(), "{spec:?} {step:?}");
                assert_eq!(e2.reached(), i2.reached(), "{spec:?} {step:?}");
                if e2.violated() {
                    assert_eq!(e2.world().checker().broken(), memo.broken(), "{spec:?}");
                    continue;
                }
                e2.intern(&mut memo).pack(&mut a);
                i2.pack(&mut b);
                assert_eq!(a, b, "{spec:?}: {step:?} differs interned");
                stack.push((e2, i2, d + 1));
            }
        }
    }
    checked
}

#[test]
fn interned_stepping_agrees_with_the_world() {
    let mut checked = 0;
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let mut spec = ExploreSpec::new(d, b, 2, Order::Reordering);
            spec.timeouts = true;
            spec.progress = true;
            spec.duplicate = true;
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
