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
