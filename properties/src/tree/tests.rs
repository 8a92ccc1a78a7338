//! The request tree: nested requests as edges, a reused id as a second node, cancel paths and cascades owed.

use super::*;
use crate::InvariantId;

fn events(lines: &[&str]) -> Vec<Event> {
    lines
        .iter()
        .map(|l| crate::notation::parse(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn tree(lines: &[&str]) -> RequestTree {
    RequestTree::from_events(Dialect::Mcp20251125, &events(lines))
}

/// The client's request 1; the server sends 2 and 3 on its behalf, and the client sends
/// 4 on behalf of 2: a tree of depth 3.
const TREE: [&str; 21] = [
    "client command send",
    "client sends request 1 work",
    "server receives request 1 work",
    "server starts work 1",
    "server command send-nested 1",
    "server nests 2 under 1",
    "server sends request 2 server-work",
    "server command send-nested 1",
    "server nests 3 under 1",
    "server sends request 3 server-work",
    "client receives request 2 server-work",
    "client starts work 2",
    "client command send-nested 2",
    "client nests 4 under 2",
    "client sends request 4 work",
    "client receives request 3 server-work",
    "client starts work 3",
    "server receives request 4 work",
    "server starts work 4",
    // Unrelated: a flat request of the server.
    "server command send",
    "server sends request 9 server-work",
];

fn ids(t: &RequestTree, ns: &[NodeIndex]) -> Vec<(Party, RequestId)> {
    ns.iter()
        .map(|&n| (t.node(n).requester, t.node(n).id))
        .collect()
}

const C: Party = Party::Client;
const S: Party = Party::Server;
const fn i(n: i64) -> RequestId {
    RequestId::Int(n)
}

#[test]
fn nested_requests_become_edges_and_the_rest_roots() {
    let t = tree(&TREE);
    assert_eq!(t.len(), 5);
    assert!(t.has_nesting());
    assert_eq!(ids(&t, &t.roots()), [(C, i(1)), (S, i(9))]);
    let root = t.find(C, i(1)).expect("root");
    assert_eq!(ids(&t, &t.children(root)), [(S, i(2)), (S, i(3))]);
    assert_eq!(
        ids(&t, &t.descendants(root)),
        [(S, i(2)), (C, i(4)), (S, i(3))],
        "depth first, oldest child first"
    );
    let four = t.find(C, i(4)).expect("grandchild");
    assert_eq!(t.depth(four), 3);
    assert_eq!(t.node(four).parent_id, Some(i(2)));
    assert_eq!(t.parent(four), t.find(S, i(2)));
    assert!(t.nodes().all(|(_, x)| x.state() == Fate::Running));
    assert!(t.cancels().is_empty());
}

#[test]
fn a_reused_id_makes_a_second_node() {
    let t = tree(&[
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server sends response 1 full",
        "client receives response 1 full",
        "client delivers 1 reply full",
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server command send-nested 1",
        "server nests 5 under 1",
        "server sends request 5 server-work",
    ]);
    assert_eq!(t.len(), 3);
    let ones: Vec<&Node> = t
        .nodes()
        .map(|(_, x)| x)
        .filter(|x| x.requester == C && x.id == i(1))
        .collect();
    assert_eq!(ones.len(), 2);
    assert_eq!((ones[0].generation, ones[1].generation), (1, 2));
    assert_eq!(ones[0].state(), Fate::Answered(Reply::Full));
    assert_eq!(ones[1].state(), Fate::Running);
    // The child hangs under the second request, the one its handler holds.
    let five = t.find(S, i(5)).expect("child");
    let parent = t.parent(five).expect("linked");
    assert_eq!(t.node(parent).generation, 2);
    assert_eq!(t.roots().len(), 2);
}

/// The client reuses id 1 while its first request is still on its way. The first request
/// with id 1 that arrives is the first sent, as the checker reads it (the oldest still on
/// its way), so the cancel the server takes and its drop are the first's. The second
/// arrival is the second request, and the child sent for it was sent before any cancel of
/// its parent was read: the checker finds no `no-child-after-cancel`, and the tree agrees.
/// (A tree that took the newest instance for the first arrival drew the child as spawned
/// after its parent's cancel, beside a verdict without that finding.)
#[test]
fn a_reused_id_in_flight_is_read_as_the_checker_reads_it() {
    let t = tree(&[
        "client command send",
        "client sends request 1 work",
        "client command cancel 1",
        "client sends cancel 1",
        "client delivers 1 cancelled user",
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server receives cancel 1",
        "server drops 1",
        "server receives request 1 work",
        "server starts work 1",
        "server command send-nested 1",
        "server nests 5 under 1",
        "server sends request 5 server-work",
        "client command send",
        "client sends request 2 work",
        "client command send",
        "client sends request 2 work",
        "network loses client request 2 work",
        "server receives request 2 work",
    ]);
    let broken = t.checker().broken();
    assert!(broken.contains(&InvariantId::NoLiveIdReuse), "{broken:?}");
    assert!(
        !broken.contains(&InvariantId::NoChildAfterCancel),
        "{broken:?}"
    );
    let nth = |id, g| {
        t.nodes()
            .find(|(_, x)| x.requester == C && x.id == i(id) && x.generation == g)
            .map(|(n, _)| n)
            .expect("node")
    };
    let (first, second) = (t.node(nth(1, 1)), t.node(nth(1, 2)));
    assert_eq!(first.received, Some(7));
    assert_eq!((first.cancel_taken, first.dropped), (Some(8), Some(9)));
    assert_eq!(second.received, Some(10));
    assert_eq!((second.cancel_taken, second.dropped), (None, None));
    let five = t.find(S, i(5)).expect("child");
    assert_eq!(t.parent(five), Some(nth(1, 2)));
    assert!(!t.sent_after_parent_cancel(five));
    // The loss takes the first request with id 2 still on its way; the second arrives.
    let (first, second) = (t.node(nth(2, 1)), t.node(nth(2, 2)));
    assert!(first.request_lost && first.received.is_none());
    assert!(!second.request_lost && second.received == Some(20));
}

/// Where closing a request's stream is its cancel (MCP 2026-07-28 on Streamable HTTP), the
/// close is drawn as the cancel the verdict judges it as, and the server's reading of it as
/// the cancel taken; in MCP 2025-11-25 a close is no cancel, and nothing is drawn.
#[test]
fn a_closed_stream_is_drawn_as_the_cancel_where_it_is_one() {
    let lines = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "client command cancel 1",
        "client closes-stream 1",
        "server stream-closed 1",
    ];
    let events = events(&lines);
    let drawn = |d| {
        let t = RequestTree::from_events(d, &events);
        let x = t.node(t.find(C, i(1)).expect("node"));
        (x.cancel.map(|c| c.event), x.cancel_taken)
    };
    assert_eq!(drawn(Dialect::Mcp20260728), (Some(5), Some(6)));
    assert_eq!(drawn(Dialect::Mcp20251125), (None, None));
}

/// The cascade of a cancel, with every reason a request is given up for.
#[test]
fn a_cancel_s_path_reaches_the_descendants_it_cancelled_and_names_those_it_missed() {
    let mut lines = TREE.to_vec();
    lines.extend([
        "client command cancel 1",
        "client sends cancel 1",
        "server receives cancel 1",
        // The server cascades to 2 but forgets 3.
        "server sends cancel 2",
        "client receives cancel 2",
        // The client cascades to 4.
        "client sends cancel 4",
        "client delivers 4 cancelled parent",
        "client sends response 2 cancelled",
        "server receives response 2 cancelled",
        "server delivers 2 reply cancelled",
        "server sends response 1 cancelled",
        "client receives response 1 cancelled",
        "client delivers 1 reply cancelled",
        // The server's own request times out.
        "server timer-fired timeout 9",
        "server sends cancel 9",
        "server delivers 9 cancelled timeout",
        "end quiescent open 0 0",
    ]);
    let t = tree(&lines);
    let n = |p, id| t.find(p, i(id)).expect("node");
    let reason = |p, id| t.node(n(p, id)).cancel.map(|c| c.reason);
    assert_eq!(reason(C, 1), Some(CancelReason::Application));
    assert_eq!(reason(S, 2), Some(CancelReason::Cascade));
    assert_eq!(reason(C, 4), Some(CancelReason::Cascade));
    assert_eq!(reason(S, 3), None);
    assert_eq!(reason(S, 9), Some(CancelReason::Timeout));
    assert_eq!(
        t.node(n(C, 1)).state(),
        Fate::Cancelled(CancelReason::Application)
    );
    assert_eq!(t.node(n(S, 3)).state(), Fate::Running);
    // 3 was still running when the server answered 1.
    assert!(t.node(n(S, 3)).orphaned.is_some());
    assert!(t.node(n(S, 2)).orphaned.is_none());
    assert!(!t.sent_after_parent_cancel(n(S, 2)));
    let cancels = t.cancels();
    assert_eq!(cancels.len(), 2, "{cancels:?}");
    let p = &cancels[0];
    assert_eq!(p.origin, n(C, 1));
    assert_eq!(p.reason, Some(CancelReason::Application));
    assert_eq!(ids(&t, &p.reached), [(S, i(2)), (C, i(4))]);
    assert_eq!(ids(&t, &p.missed), [(S, i(3))]);
    assert_eq!(p.edges.len(), 3);
    assert!(p.contains(n(C, 4)) && !p.contains(n(S, 3)));
    assert_eq!(cancels[1].origin, n(S, 9));
    assert!(cancels[1].reached.is_empty() && cancels[1].missed.is_empty());
}

#[test]
fn a_handler_giving_up_starts_a_cascade_and_a_stray_cancel_is_unprompted() {
    let mut lines = TREE.to_vec();
    lines.extend([
        "server internal-cancel 1",
        "server sends cancel 2",
        "server sends cancel 3",
        "server delivers 3 cancelled parent",
        // A cancel for the client's grandchild the client was not asked for.
        "client command send",
        "client sends request 7 work",
        "client sends cancel 4",
        // The server sends one more request for 1 after giving it up.
        "server command send-nested 1",
        "server nests 8 under 1",
        "server sends request 8 server-work",
    ]);
    let t = tree(&lines);
    let n = |p, id| t.find(p, i(id)).expect("node");
    let cancels = t.cancels();
    assert_eq!(ids(&t, &[cancels[0].origin]), [(C, i(1))]);
    assert_eq!(cancels[0].reason, None);
    assert_eq!(ids(&t, &cancels[0].reached), [(S, i(2)), (S, i(3))]);
    // 2's cancel was never read: 4 was not owed anything, so its cancel is unprompted.
    assert_eq!(
        t.node(n(C, 4)).cancel.map(|c| c.reason),
        Some(CancelReason::Unprompted)
    );
    assert_eq!(ids(&t, &[cancels[1].origin]), [(C, i(4))]);
    assert!(t.sent_after_parent_cancel(n(S, 8)));
    assert!(!t.sent_after_parent_cancel(n(S, 3)));
}

#[test]
fn initialize_is_a_root_of_its_own() {
    let t = tree(&crate::notation::OPENING);
    assert_eq!(t.roots().len(), 1);
    let x = t.node(t.roots()[0]);
    assert!(x.method.is_initialize());
    assert!(!t.has_nesting());
    assert_eq!(
        x.state(),
        Fate::Answered(Reply::Initialized {
            cancel_support: true
        })
    );
}
