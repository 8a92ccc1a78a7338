//! Both parties send requests: the server's requests, cancels and malformed cancels are driven
//! by the simulator and the explorer wherever the dialect lets the server make them, and judged
//! by each dialect's rules (who may cancel, what each side declared).

use cancelcheck_model::io::{Ignored, Refusal};
use cancelcheck_model::{
    Behaviour, Command, Dialect, Input, Message, Output, Party, dialect::CancelSenders,
};
use cancelcheck_properties::breaks::classify;
use cancelcheck_properties::{Event, InvariantId};
use cancelcheck_sim::explorer::{ExploreSpec, SearchOptions, initial_scenarios, search};
use cancelcheck_sim::link::Order;
use cancelcheck_sim::{Scenario, Simulator};

const SEEDS: u64 = 300;

fn no_reductions() -> SearchOptions {
    SearchOptions {
        max_depth: None,
        threads: 2,
        max_states: Some(5_000_000),
        max_memory: None,
        depth_first: false,
        symmetry: false,
        partial_order: false,
    }
}

/// A simulated scenario in which the server sends `n` requests and both parties cancel all of
/// theirs.
fn busy_server(d: Dialect, n: u16) -> Scenario {
    let mut s = Scenario::default_for(d);
    s.workload.server_requests = n;
    s.workload.cancel_permille = 1000;
    s.workload.malformed_cancel_permille = 1000;
    s
}

/// Every event of `SEEDS` runs of `s`.
fn events(s: &Scenario) -> Vec<Event> {
    let mut sim = Simulator::new(s);
    (0..SEEDS)
        .flat_map(|seed| sim.run(s, seed, true).events)
        .map(|t| t.event)
        .collect()
}

fn server_sent_cancel(events: &[Event]) -> bool {
    events.iter().any(|e| {
        matches!(
            e,
            Event::Output {
                party: Party::Server,
                output: Output::Send(Message::Cancel { .. })
            }
        )
    })
}

fn server_refused(events: &[Event], why: Refusal) -> bool {
    events.iter().any(|e| {
        matches!(e, Event::Output {
            party: Party::Server,
            output: Output::Refused(Command::Cancel(_), r)
        } if *r == why)
    })
}

#[test]
fn the_server_sends_requests_where_the_dialect_lets_it() {
    for d in Dialect::ALL {
        let allowed = d.rules().server_work_method.is_some();
        let s = busy_server(d, 2);
        assert_eq!(s.validate().is_ok(), allowed, "{d}");
        // The built-in default has two server requests wherever there may be any.
        assert_eq!(
            Scenario::default_for(d).workload.server_requests,
            if allowed { 2 } else { 0 }
        );
        if !allowed {
            continue;
        }
        let ev = events(&s);
        let received = ev.iter().any(|e| {
            matches!(e, Event::Input {
                party: Party::Client,
                input: Input::Receive(Message::Request { method, .. })
            } if *method == cancelcheck_model::message::Method::ServerWork)
        });
        assert!(received, "{d}: the client never received a server request");
        // The server's malformed cancels reach the client, which sets them aside.
        let ignored = ev.iter().any(|e| {
            matches!(
                e,
                Event::Output {
                    party: Party::Client,
                    output: Output::Ignored(Ignored::MalformedCancel)
                }
            )
        });
        assert!(
            ignored,
            "{d}: no malformed cancel from the server reached the client"
        );
    }
}

#[test]
fn only_the_parties_a_dialect_names_may_cancel() {
    for d in Dialect::ALL
        .into_iter()
        .filter(|d| d.rules().server_work_method.is_some())
    {
        let mut s = busy_server(d, 2);
        s.workload.client_cancel_support = Some(true);
        let ev = events(&s);
        match d.rules().cancel_senders {
            // MCP 2026-07-28: only the client cancels; the server's application is refused.
            CancelSenders::ClientOnly => {
                assert!(!server_sent_cancel(&ev), "{d}: the server sent a cancel");
                assert!(server_refused(&ev, Refusal::WrongParty), "{d}");
            }
            CancelSenders::Either => assert!(server_sent_cancel(&ev), "{d}"),
        }
    }
}

#[test]
fn in_the_acp_rfd_the_server_cancels_only_a_client_that_declared_support() {
    let d = Dialect::AcpRfd;
    for declared in [true, false] {
        let mut s = busy_server(d, 2);
        s.workload.client_cancel_support = Some(declared);
        let ev = events(&s);
        assert_eq!(server_sent_cancel(&ev), declared, "declared {declared}");
        assert_eq!(
            server_refused(&ev, Refusal::NotNegotiated),
            !declared,
            "declared {declared}"
        );
    }
    // The explorer tries both declarations of each party.
    let mut spec = ExploreSpec::new(d, Behaviour::Honour, 1, Order::Fifo);
    spec.server_requests = 1;
    assert_eq!(initial_scenarios(&spec.scenario()).len(), 4);
    spec.server_requests = 0;
    assert_eq!(initial_scenarios(&spec.scenario()).len(), 2);
}

#[test]
fn correct_behaviours_are_exhaustively_clean_with_requests_both_ways() {
    for d in Dialect::ALL
        .into_iter()
        .filter(|d| d.rules().server_work_method.is_some())
    {
        for b in Behaviour::all().filter(|b| classify(*b, d).is_some_and(|c| !c.faulty())) {
            for order in [Order::Fifo, Order::Reordering] {
                let mut spec = ExploreSpec::new(d, b, 1, order);
                spec.server_requests = 1;
                spec.malformed_cancel = true;
                spec.timeouts = true;
                let r = search(&spec.scenario(), &no_reductions(), &|_, _, _| {});
                assert!(r.exhaustive, "{d} {b} {order:?}: not exhaustive");
                assert!(
                    r.finding().is_none(),
                    "{d} {b} {order:?}: {:?}",
                    r.finding()
                );
                assert!(!r.symmetry && !r.partial_order && !r.flat);
                assert!(
                    r.reached.contains(InvariantId::RaceCancelCrossesAnswer),
                    "{d} {b} {order:?}"
                );
            }
        }
    }
}

#[test]
fn a_cancel_routed_to_the_wrong_direction_is_caught_and_inert_without_server_requests() {
    for d in Dialect::ALL
        .into_iter()
        .filter(|d| Behaviour::CancelHitsOwnRequest.applies_to(*d))
    {
        let b = Behaviour::CancelHitsOwnRequest;
        let mut spec = ExploreSpec::new(d, b, 1, Order::Fifo);
        let quiet = search(&spec.scenario(), &no_reductions(), &|_, _, _| {});
        assert!(
            quiet.finding().is_none(),
            "{d}: acted with no server request"
        );
        let (why, fix) = cancelcheck_sim::coverage::fault_hint(&spec.scenario());
        let need = cancelcheck_sim::coverage::server_requests_to_act(&spec.scenario());
        assert_eq!(
            fix,
            cancelcheck_sim::coverage::Fix::ServerRequests(need),
            "{d}: {why}"
        );
        spec.server_requests = need;
        let r = search(&spec.scenario(), &no_reductions(), &|_, _, _| {});
        let (_, broken) = r.finding().unwrap_or_else(|| panic!("{d}: not found"));
        assert!(
            broken.contains(&InvariantId::ExactIdMatch),
            "{d}: {broken:?}"
        );
    }
}

/// The simulator bounds how deep trees grow by asking the checker how deep a request stands
/// (`Checker::depth`): in a long run (128 roots of trees 3x3, some 500 requests in all) no
/// request stands deeper than the scenario's depth, past the checker's 256th record too (a
/// parent link that named no record there let trees grow to depth 17).
#[test]
fn trees_keep_their_depth_in_a_long_run() {
    let mut s = Scenario::default_for(Dialect::Mcp20251125);
    s.workload.requests = 64;
    s.workload.server_requests = 64;
    s.workload.nesting = cancelcheck_sim::scenario::Nesting {
        depth: 3,
        fanout: 3,
    };
    s.validate().expect("valid");
    let mut sim = Simulator::new(&s);
    let out = sim.run(&s, 0, true);
    let tree = cancelcheck_properties::RequestTree::from_events(
        s.dialect,
        out.events.iter().map(|e| &e.event),
    );
    assert!(tree.len() > 300, "only {} requests", tree.len());
    let deepest = tree.nodes().map(|(n, _)| tree.depth(n)).max();
    assert_eq!(deepest, Some(3));
}
