//! The plain state's own tests: restoring a copy, and reading request trees.

use super::*;
use crate::explorer::ExploreSpec;
use crate::link::Order;
use cancelcheck_model::pack::Restore;
use cancelcheck_model::{Behaviour, Dialect};

/// A copy that took a step and was restored from its source is its source again, in every
/// field of the state (the packed bytes, derived from the declaration) and in what the
/// search reads of the path: `restore_from` copies back only the tables a step changed, so
/// a field it forgets would show here. Trees, server requests, duplicates and timers
/// make every table change.
#[test]
fn a_restored_state_is_its_source_again() {
    let (mut checked, mut a, mut b) = (0, Vec::new(), Vec::new());
    for order in [Order::Fifo, Order::Reordering] {
        let mut spec = ExploreSpec::new(Dialect::Mcp20251125, Behaviour::Honour, 2, order);
        spec.timeouts = true;
        spec.progress = true;
        spec.duplicate = true;
        spec.malformed_cancel = true;
        spec.server_requests = 1;
        spec.nesting = crate::scenario::Nesting {
            depth: 2,
            fanout: 1,
        };
        let s = spec.scenario();
        let mut level = vec![Explorer::new(&s, 0, false)];
        let mut steps = Vec::new();
        for _ in 0..5 {
            let mut next = Vec::new();
            for src in &level {
                src.enabled(&s, &mut steps);
                let mut copy = src.clone();
                for &step in &steps {
                    copy.apply(&s, step);
                    next.push(copy.clone());
                    copy.restore_from(src);
                    src.pack(&mut a);
                    copy.pack(&mut b);
                    assert_eq!(a, b, "{order:?}: restored after {step:?}");
                    assert_eq!(
                        (copy.steps, copy.violated(), copy.reached()),
                        (src.steps, src.violated(), src.reached())
                    );
                    checked += 1;
                }
            }
            next.truncate(200);
            level = next;
        }
    }
    assert!(checked > 500, "only {checked} steps");
}

/// With trees, what the explorer reads of them comes from the checker's records: how deep
/// a request stands, the script slot of its tree's root, its number (by requester and id,
/// whatever order the parties' sends interleaved in), and the spawn steps taken on its
/// behalf against the fanout; alike after the state is packed and unpacked (the checker's
/// records then come back sorted).
#[test]
fn request_trees_are_read_from_the_checkers_records() {
    let mut spec = ExploreSpec::new(Dialect::Mcp20251125, Behaviour::Honour, 2, Order::Fifo);
    spec.nesting = crate::scenario::Nesting {
        depth: 2,
        fanout: 1,
    };
    let s = spec.scenario();
    let mut e = Explorer::new(&s, 0, false);
    let mut steps = Vec::new();
    let mut take = |e: &mut Explorer, want: &dyn Fn(Step) -> bool| {
        e.enabled(&s, &mut steps);
        let step = *steps.iter().find(|&&st| want(st)).expect("enabled");
        e.apply(&s, step);
    };
    let deliver = |to| move |st| matches!(st, Step::Deliver { to: t, index: 0 } if t == to);
    take(&mut e, &deliver(Party::Server));
    take(&mut e, &deliver(Party::Client));
    // The client's first request, received; a request sent on its behalf; the second.
    take(&mut e, &|st| st == Step::Send);
    take(&mut e, &deliver(Party::Server));
    let first = e.ids[0].expect("sent");
    take(&mut e, &|st| st == Step::Spawn(Party::Server, first));
    take(&mut e, &|st| st == Step::Send);
    let second = e.ids[1].expect("sent");
    let nested = match e.net[Party::Client.index()].last() {
        Some(&Message::Request { id, .. }) => id,
        other => panic!("{other:?}"),
    };
    let mut unpacked = Explorer::new(&s, 0, false);
    let mut bytes = Vec::new();
    e.pack(&mut bytes);
    unpacked.unpack(&bytes).expect("unpacks");
    for e in [&e, &unpacked] {
        let rec = |p, id| e.tree_record(p, id).expect("recorded");
        let depth = |p, id| e.world.checker().parentage().depth(rec(p, id));
        assert_eq!(e.tree_len(), 3);
        assert_eq!(depth(Party::Server, nested), 2);
        assert_eq!(depth(Party::Client, second), 1);
        assert_eq!(e.root_slot(rec(Party::Server, nested)), 0);
        assert_eq!(e.root_slot(rec(Party::Client, second)), 1);
        // The client's requests first, then the server's.
        assert_eq!(e.request_number(Party::Client, first), 1);
        assert_eq!(e.request_number(Party::Client, second), 2);
        assert_eq!(e.request_number(Party::Server, nested), 3);
        assert_eq!(e.root_slot_at(2), 0);
        assert_eq!(e.spawned(rec(Party::Client, first)), 1);
        assert_eq!(e.spawned(rec(Party::Client, second)), 0);
    }
    // The first request spent its fanout; the nested one, at the deepest level, has none.
    take(&mut e, &deliver(Party::Server));
    take(&mut e, &deliver(Party::Client));
    e.enabled(&s, &mut steps);
    let spawns: Vec<Step> = steps
        .iter()
        .copied()
        .filter(|st| matches!(st, Step::Spawn(..)))
        .collect();
    assert_eq!(spawns, [Step::Spawn(Party::Server, second)]);
}
