//! `cascade-complete` is judged once, by the online checker from its flat records and parent
//! indices as the events go by; the request tree draws where each cancel's path went. On the
//! same events the drawing shows what the checker judged: the requests it names as missed by
//! the cascade are those the tree draws as missed.

use cancelcheck_model::{Dialect, Party, RequestId};
use cancelcheck_properties::notation::parse;
use cancelcheck_properties::tree::CancelReason;
use cancelcheck_properties::{Checker, Event, InvariantId, RequestTree};

fn events(lines: &[&str]) -> Vec<Event> {
    lines
        .iter()
        .map(|l| parse(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The checker after `events` in `dialect`.
fn checked(dialect: Dialect, events: &[Event]) -> Checker {
    let mut c = Checker::new(dialect, 4);
    for e in events {
        c.observe(e);
    }
    c
}

/// Whether the checker reported `cascade-complete` for `events` in `dialect`.
fn checker_says_incomplete(dialect: Dialect, events: &[Event]) -> bool {
    checked(dialect, events)
        .verdict()
        .violations
        .iter()
        .any(|v| v.invariant == InvariantId::CascadeComplete)
}

/// The session every case starts from: the client's `initialize` (id 0), answered with support.
const OPEN: [&str; 6] = cancelcheck_properties::notation::OPENING;

/// The client's request 1; the server sends 0 on its behalf and the client 2 on behalf of
/// that: a chain of three. The client then cancels 1 (MCP 2025-11-25: resolved at once).
const CHAIN: [&str; 20] = [
    "client command send",
    "client sends request 1 work",
    "server receives request 1 work",
    "server starts work 1",
    "server command send-nested 1",
    "server nests 0 under 1",
    "server sends request 0 server-work",
    "server work-done 1",
    "client command cancel 1",
    "client sends cancel 1",
    "client delivers 1 cancelled user",
    "server receives cancel 1",
    "server sends cancel 0",
    "server delivers 0 cancelled parent",
    "server drops 1",
    "client receives request 0 server-work",
    "client starts work 0",
    "client command send-nested 0",
    "client nests 2 under 0",
    "client sends request 2 work",
];

fn with(prefix: &[&'static str], rest: &[&'static str]) -> Vec<&'static str> {
    let mut v = OPEN.to_vec();
    v.extend_from_slice(prefix);
    v.extend_from_slice(rest);
    v
}

/// The cases: a name, the dialect, the event lines, and whether the cascade was complete.
fn cases() -> Vec<(&'static str, Dialect, Vec<&'static str>, bool)> {
    vec![
        (
            "every level cascades",
            Dialect::Mcp20251125,
            with(
                &CHAIN,
                &[
                    "client work-done 0",
                    "client receives cancel 0",
                    "client sends cancel 2",
                    "client delivers 2 cancelled parent",
                    "client drops 0",
                    "server receives request 2 work",
                    "server starts work 2",
                    "server receives cancel 2",
                    "server aborts work 2",
                    "server drops 2",
                    "end quiescent open 0 0",
                ],
            ),
            true,
        ),
        (
            "the grandchild is forgotten",
            Dialect::Mcp20251125,
            with(
                &CHAIN,
                &[
                    "client work-done 0",
                    "client receives cancel 0",
                    "client drops 0",
                    "server receives request 2 work",
                    "server starts work 2",
                    "server work-done 2",
                    "server sends response 2 full",
                    "client receives response 2 full",
                    "client delivers 2 reply full",
                    "end quiescent open 0 0",
                ],
            ),
            false,
        ),
        (
            "the grandchild is forgotten, but the run was cut short",
            Dialect::Mcp20251125,
            with(
                &CHAIN,
                &[
                    "client work-done 0",
                    "client receives cancel 0",
                    "client drops 0",
                    "end bounded open 0 1",
                ],
            ),
            true,
        ),
        (
            "the cancel crosses the answer: nothing is owed",
            Dialect::Mcp20251125,
            with(
                &CHAIN,
                &[
                    "server receives request 2 work",
                    "server starts work 2",
                    "server work-done 2",
                    "server sends response 2 full",
                    "client receives response 2 full",
                    "client delivers 2 reply full",
                    "client work-done 0",
                    "client sends response 0 full",
                    "client receives cancel 0",
                    "client ignores cancel-after-answer 0",
                    "server receives response 0 full",
                    "server ignores late-answer 0",
                    "end quiescent open 0 0",
                ],
            ),
            true,
        ),
        (
            "the handler gives its request up and cascades",
            Dialect::Mcp20251125,
            with(
                &CHAIN[..8],
                &[
                    "server internal-cancel 1",
                    "server sends cancel 0",
                    "server delivers 0 cancelled parent",
                    "server aborts work 1",
                    "server sends response 1 cancelled",
                    "client receives response 1 cancelled",
                    "client delivers 1 reply cancelled",
                    "client receives request 0 server-work",
                    "client receives cancel 0",
                    "end quiescent open 0 0",
                ],
            ),
            true,
        ),
        (
            "the handler gives its request up and forgets its child",
            Dialect::Mcp20251125,
            with(
                &CHAIN[..8],
                &[
                    "server internal-cancel 1",
                    "server aborts work 1",
                    "server sends response 1 cancelled",
                    "client receives response 1 cancelled",
                    "client delivers 1 reply cancelled",
                    "client receives request 0 server-work",
                    "client starts work 0",
                    "client work-done 0",
                    "client sends response 0 full",
                    "server receives response 0 full",
                    "server delivers 0 reply full",
                    "end quiescent open 0 0",
                ],
            ),
            false,
        ),
        (
            "a cancelled child is never answered (ACP RFD: its requester waits)",
            Dialect::AcpRfd,
            with(
                &[
                    "client command send",
                    "client sends request 1 work",
                    "server receives request 1 work",
                    "server starts work 1",
                    "server command send-nested 1",
                    "server nests 0 under 1",
                    "server sends request 0 server-work",
                    "server work-done 1",
                    "client command cancel 1",
                    "client sends cancel 1",
                    "client receives request 0 server-work",
                    "client starts work 0",
                    "server receives cancel 1",
                    "server sends cancel 0",
                ],
                &[
                    "client receives cancel 0",
                    "client drops 0",
                    "end quiescent open 0 1",
                ],
            ),
            false,
        ),
        (
            "a cancelled child whose request was lost is excused",
            Dialect::AcpRfd,
            with(
                &[
                    "client command send",
                    "client sends request 1 work",
                    "server receives request 1 work",
                    "server starts work 1",
                    "server command send-nested 1",
                    "server nests 0 under 1",
                    "server sends request 0 server-work",
                    "network loses server request 0 server-work",
                    "client command cancel 1",
                    "client sends cancel 1",
                    "server receives cancel 1",
                    "server sends cancel 0",
                    "server aborts work 1",
                    "server sends response 1 cancelled",
                    "client receives response 1 cancelled",
                    "client delivers 1 reply cancelled",
                ],
                &["client receives cancel 0", "end quiescent open 0 0"],
            ),
            true,
        ),
    ]
}

/// The checker's finding and its list of gaps say one thing, and the tree draws each gap on a
/// cancel's path (missed, or reached and never resolved).
#[test]
fn the_checker_judges_cascade_complete_and_the_tree_draws_it() {
    for (name, dialect, lines, complete) in cases() {
        let evs = events(&lines);
        let c = checked(dialect, &evs);
        assert_eq!(
            checker_says_incomplete(dialect, &evs),
            !complete,
            "{name}: the checker's verdict"
        );
        assert_eq!(
            c.cascade_gaps().is_empty(),
            complete,
            "{name}: gaps {:?}",
            c.cascade_gaps()
        );
        let tree = RequestTree::from_events(dialect, &evs);
        let drawn = tree.on_cancel_paths();
        for (party, id, _) in c.cascade_gaps() {
            assert!(
                drawn.contains(&(party, id)),
                "{name}: the checker's gap {party:?} {id:?} is not drawn on a cancel's path: {drawn:?}"
            );
        }
    }
}

/// The gaps the checker names: exactly the request the cascade missed, with its generation.
#[test]
fn the_gaps_are_the_requests_the_cascade_missed() {
    let cases = cases();
    let gap_of = |name: &str| {
        let (_, dialect, lines, _) = cases.iter().find(|c| c.0 == name).expect("case");
        checked(*dialect, &events(lines)).cascade_gaps()
    };
    assert_eq!(
        gap_of("the grandchild is forgotten"),
        [(Party::Client, RequestId::Int(2), 1)]
    );
    assert_eq!(
        gap_of("a cancelled child is never answered (ACP RFD: its requester waits)"),
        [(Party::Server, RequestId::Int(0), 1)]
    );

    // The honoured chain: one cancel, from the application, reaching both descendants.
    let (_, dialect, lines, _) = &cases[0];
    let tree = RequestTree::from_events(*dialect, &events(lines));
    let cancels = tree.cancels();
    assert_eq!(cancels.len(), 1);
    let path = &cancels[0];
    assert_eq!(path.reason, Some(CancelReason::Application));
    assert_eq!(tree.node(path.origin).id, RequestId::Int(1));
    assert_eq!(path.reached.len(), 2);
    assert!(path.missed.is_empty());
    assert_eq!(tree.descendants(path.origin), path.reached);
}
