//! The checker's own tests, family by family, beyond the clause vectors: what keeps an id
//! live, what a loss excuses, what a disconnect or a bound changes, whose request a responder's
//! event is about, and the checker's packed state (what the explorer stores of it). Events are
//! written in the vector notation (`cancelcheck_properties::notation`).

use cancelcheck_model::pack::{Reader, Relabel, State};
use cancelcheck_model::{Dialect, Party, RequestId};
use cancelcheck_properties::notation::parse;
use cancelcheck_properties::{Checker, InvariantId, Lost, PropertySet, Status, Strength};

/// The session every case starts from: the client's `initialize` (id 0), answered with support.
const OPEN: [&str; 6] = cancelcheck_properties::notation::OPENING;

fn checker(d: Dialect, fifo: bool, lines: &[&str]) -> Checker {
    let mut c = Checker::new(d, 4);
    c.set_fifo(fifo);
    for l in OPEN.iter().chain(lines) {
        c.observe(&parse(l).unwrap_or_else(|e| panic!("{l}: {e}")));
    }
    c
}

fn broken(c: &Checker) -> Vec<InvariantId> {
    c.verdict().violations.iter().map(|v| v.invariant).collect()
}

/// Request 1 sent, received, answered, the answer received and delivered.
const ANSWERED: &[&str] = &[
    "client command send",
    "client sends request 1 work",
    "server receives request 1 work",
    "server starts work 1",
    "server sends response 1 full",
    "client receives response 1 full",
    "client delivers 1 reply full",
];

fn then<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    a.iter().chain(b).copied().collect()
}

const REUSE: &[&str] = &["client command send", "client sends request 1 work"];

#[test]
fn an_answered_id_with_nothing_in_flight_may_be_reused() {
    let c = checker(Dialect::Acp, false, &then(ANSWERED, REUSE));
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
}

#[test]
fn progress_still_in_flight_keeps_an_id_live_until_it_arrives_or_is_lost() {
    let sent = then(
        &[
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "server sends activity 1",
            "server sends response 1 full",
            "client receives response 1 full",
            "client delivers 1 reply full",
        ],
        &[],
    );
    let c = checker(Dialect::Acp, true, &then(&sent, REUSE));
    assert_eq!(broken(&c), [InvariantId::NoLiveIdReuse]);
    for settle in [
        "client receives activity 1",
        "network loses server activity 1",
    ] {
        let c = checker(Dialect::Acp, true, &then(&then(&sent, &[settle]), REUSE));
        assert!(broken(&c).is_empty(), "{settle}: {:?}", broken(&c));
    }
}

#[test]
fn a_cancel_in_flight_keeps_an_id_live_on_a_reordering_link_only() {
    let crossed = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "server sends response 1 full",
        "client command cancel 1",
        "client sends cancel 1",
        "client receives response 1 full",
        "client delivers 1 reply full",
    ];
    let reordering = checker(Dialect::AcpRfd, false, &then(&crossed, REUSE));
    assert_eq!(broken(&reordering), [InvariantId::NoLiveIdReuse]);
    let fifo = checker(Dialect::AcpRfd, true, &then(&crossed, REUSE));
    assert!(broken(&fifo).is_empty(), "{:?}", broken(&fifo));
    for settle in ["server receives cancel 1", "network loses client cancel 1"] {
        let c = checker(
            Dialect::AcpRfd,
            false,
            &then(&then(&crossed, &[settle]), REUSE),
        );
        assert!(broken(&c).is_empty(), "{settle}: {:?}", broken(&c));
    }
    // A copy of the cancel is one more on its way.
    let copied = then(
        &crossed,
        &[
            "network duplicates client cancel 1",
            "server receives cancel 1",
        ],
    );
    let c = checker(Dialect::AcpRfd, false, &then(&copied, REUSE));
    assert_eq!(broken(&c), [InvariantId::NoLiveIdReuse]);
}

#[test]
fn a_copy_of_the_answer_keeps_an_id_live_and_a_request_never_answered_too() {
    let copied = then(ANSWERED, &["network duplicates server response 1 full"]);
    let c = checker(Dialect::Acp, true, &then(&copied, REUSE));
    assert_eq!(broken(&c), [InvariantId::NoLiveIdReuse]);
    // Given up at a timeout, its answer still owed.
    let pending = [
        "client command send",
        "client sends request 1 work",
        "client timer-fired timeout 1",
        "client sends cancel 1",
        "server receives request 1 work",
    ];
    let c = checker(Dialect::Acp, true, &then(&pending, REUSE));
    assert_eq!(broken(&c), [InvariantId::NoLiveIdReuse]);
    // A request lost on the way will never be answered: its id is free.
    let lost = [
        "client command send",
        "client sends request 1 work",
        "network loses client request 1 work",
    ];
    let c = checker(Dialect::Acp, true, &then(&lost, REUSE));
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
}

/// A live id reused, then a stale cancel for the earlier request stopping the new one, and
/// the earlier one answered (MCP 2026-07-28, where the reuse is a SHOULD).
const STALE_CANCEL_ON_A_REUSED_ID: &[&str] = &[
    "client command send",
    "client sends request 1 work",
    "server receives request 1 work",
    "server starts work 1",
    "client command cancel 1",
    "client sends cancel 1",
    "client delivers 1 cancelled user",
    "client command send",
    "client sends request 1 work",
    "server receives request 1 work",
    "server receives cancel 1",
    "server sends response 1 full",
];

#[test]
fn once_two_requests_share_an_id_only_the_reuse_is_reported() {
    // The stale cancel stops the new request, and the old one is answered: the wire cannot
    // tell which is which, so nothing more is pinned on either.
    let c = checker(
        Dialect::Mcp20260728,
        false,
        &then(STALE_CANCEL_ON_A_REUSED_ID, &["end quiescent open 1 0"]),
    );
    assert_eq!(broken(&c), [InvariantId::NoLiveIdReuse]);
    assert_eq!(c.verdict().violations[0].strength, Strength::Note);
    assert_eq!(c.verdict().status(true), Status::Warn);
}

/// What a live reuse sets aside is scoped to the requests it confused (requester, id and their
/// trees), and listed: the other party's own request with the same id, answered twice (a MUST
/// broken, unambiguously), is still reported, and the run fails rather than ending as the
/// reuse's warning.
#[test]
fn a_reuse_sets_aside_only_what_it_confused_and_lists_it() {
    let confused = STALE_CANCEL_ON_A_REUSED_ID;
    let c = checker(Dialect::Mcp20260728, false, confused);
    assert_eq!(broken(&c), [InvariantId::NoLiveIdReuse]);
    let aside = &c.verdict().set_aside;
    assert!(!aside.is_empty(), "what the confusion led to is listed");
    assert!(
        aside
            .iter()
            .all(|a| a.requester == Party::Client && a.id == RequestId::Int(1)),
        "{aside:?}"
    );
    // The server's own request 1, answered twice by the client: not confused with the
    // client's request 1, which went the other way.
    let other_party = then(
        confused,
        &[
            "server command send",
            "server sends request 1 server-work",
            "client receives request 1 server-work",
            "client starts work 1",
            "client sends response 1 full",
            "client sends response 1 full",
        ],
    );
    let c = checker(Dialect::Mcp20260728, false, &other_party);
    assert_eq!(
        broken(&c),
        [InvariantId::NoLiveIdReuse, InvariantId::SingleResolution]
    );
    assert_eq!(c.verdict().status(true), Status::Fail);
    assert!(
        c.verdict()
            .set_aside
            .iter()
            .all(|a| a.requester == Party::Client),
        "{:?}",
        c.verdict().set_aside
    );
}

#[test]
fn only_the_loss_of_the_request_or_its_answer_excuses_it() {
    let asked = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
    ];
    let answer_lost = checker(
        Dialect::Acp,
        false,
        &then(
            &asked,
            &[
                "server sends response 1 full",
                "network loses server response 1 full",
                "end quiescent open 0 0",
            ],
        ),
    );
    assert!(broken(&answer_lost).is_empty());
    let excused = &answer_lost.verdict().excused;
    assert_eq!(excused.len(), 1);
    assert_eq!(
        (excused[0].requester, excused[0].id, excused[0].lost),
        (Party::Client, RequestId::Int(1), Lost::Response)
    );
    assert_eq!(Lost::Response.as_str(), "response");
    assert_eq!(Lost::Request.as_str(), "request");
    let request_lost = checker(
        Dialect::Acp,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "network loses client request 1 work",
            "end quiescent open 0 0",
        ],
    );
    assert!(broken(&request_lost).is_empty());
    assert_eq!(request_lost.verdict().excused[0].lost, Lost::Request);
    // A lost cancel (or a lost progress note) excuses nothing: the answer is still owed.
    for lost in [
        "network loses client cancel 1",
        "network loses server activity 1",
    ] {
        let c = checker(
            Dialect::Acp,
            false,
            &then(
                &asked,
                &[
                    "client command cancel 1",
                    "client sends cancel 1",
                    "server sends activity 1",
                    lost,
                    "server drops 1",
                    "end quiescent open 0 0",
                ],
            ),
        );
        assert!(
            broken(&c).contains(&InvariantId::EventualResolution),
            "{lost}: {:?}",
            broken(&c)
        );
        assert!(c.verdict().excused.is_empty());
    }
}

#[test]
fn a_bounded_or_disconnected_run_judges_nothing_eventual() {
    let open = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
    ];
    let hung = checker(
        Dialect::Acp,
        false,
        &then(&open, &["end quiescent open 0 1"]),
    );
    assert_eq!(broken(&hung), [InvariantId::EventualResolution]);
    let bounded = checker(Dialect::Acp, false, &then(&open, &["end bounded open 0 1"]));
    assert!(broken(&bounded).is_empty());
    assert!(!bounded.verdict().quiescent);
    let gone = checker(
        Dialect::Acp,
        false,
        &then(
            &open,
            &[
                "client disconnected",
                "server disconnected",
                "server aborts work 1",
                "server drops 1",
                "end quiescent open 0 0",
            ],
        ),
    );
    assert!(broken(&gone).is_empty(), "{:?}", broken(&gone));
    // Without a disconnect, work stopped that no cancel named is a misdirected cancel.
    let stray = checker(Dialect::Acp, false, &then(&open, &["server aborts work 1"]));
    assert_eq!(broken(&stray), [InvariantId::ExactIdMatch]);
    let dropped = checker(
        Dialect::Mcp20251125,
        false,
        &then(&open, &["server drops 1"]),
    );
    assert_eq!(broken(&dropped), [InvariantId::ExactIdMatch]);
}

#[test]
fn a_leak_is_judged_at_quiescence_for_either_party() {
    for (d, strength) in [
        (Dialect::Mcp20251125, Strength::Should),
        (Dialect::AcpRfd, Strength::Note),
    ] {
        for end in ["end quiescent open 1 0", "end quiescent open 0 1"] {
            let c = checker(d, false, &[end]);
            assert_eq!(broken(&c), [InvariantId::NoLeakAtQuiescence], "{d} {end}");
            assert_eq!(c.verdict().violations[0].strength, strength);
        }
        assert!(broken(&checker(d, false, &["end quiescent open 0 0"])).is_empty());
    }
    // No sentence of ABP's text asks an app to free a cancelled call (it must remember one to
    // answer a repeated cancel), and ACP's and LSP's say nothing of it: no leak is judged there.
    for d in [Dialect::Abp, Dialect::Acp, Dialect::Lsp] {
        assert!(
            broken(&checker(d, false, &["end quiescent open 1 0"])).is_empty(),
            "{d}"
        );
    }
    // A crashed party's requests are not its leak.
    let c = checker(
        Dialect::Abp,
        false,
        &["server crashes", "end quiescent open 0 1"],
    );
    assert!(
        !broken(&c).contains(&InvariantId::NoLeakAtQuiescence),
        "{:?}",
        broken(&c)
    );
}

#[test]
fn progress_is_counted_as_it_arrives() {
    // Activity received for a request keeps nothing in flight.
    let c = checker(
        Dialect::Acp,
        true,
        &then(
            &[
                "client command send",
                "client sends request 1 work",
                "server receives request 1 work",
                "server starts work 1",
                "server sends activity 1",
                "client receives activity 1",
            ],
            &[
                "server sends response 1 full",
                "client receives response 1 full",
                "client delivers 1 reply full",
                "client command send",
                "client sends request 1 work",
            ],
        ),
    );
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
}

#[test]
fn an_acknowledgement_received_settles_it() {
    // ABP never allows reuse, so the acknowledgement is observed through its agreement
    // with the call's result: a second acknowledgement that disagrees is caught.
    let c = checker(
        Dialect::Abp,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server aborts work 1",
            "server sends response 1 cancelled",
            "server sends cancel-ack 1 cancelled true",
            "client receives cancel-ack 1 cancelled true",
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server sends cancel-ack 1 cancelled false",
        ],
    );
    assert_eq!(
        broken(&c),
        [
            InvariantId::CancelIdempotent,
            InvariantId::AckAgreesWithOutcome
        ]
    );
}

#[test]
fn verdict_accessors_say_what_was_found() {
    let c = checker(
        Dialect::Mcp20251125,
        false,
        &then(ANSWERED, &["server sends activity 1"]),
    );
    let v = c.verdict();
    assert!(!v.passed() && v.failed() && c.failed() && c.broke_something());
    assert_eq!(c.broken(), [InvariantId::NoActivityAfterAnswer]);
    assert!(c.violated().contains(InvariantId::NoActivityAfterAnswer));
    assert!(!c.violated().contains(InvariantId::SingleResolution));
    let quiet = checker(Dialect::Mcp20251125, false, ANSWERED);
    assert!(quiet.verdict().passed() && !quiet.verdict().failed() && !quiet.failed());
    assert!(!quiet.broke_something() && quiet.broken().is_empty());
    let should = checker(
        Dialect::Mcp20251125,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server sends response 1 full",
        ],
    );
    assert!(should.broke_something() && !should.failed() && !should.verdict().failed());
    assert_eq!(Status::Warn.as_str(), "warn");
    assert_eq!(Status::Vacuous.as_str(), "vacuous");
    assert_eq!(Status::Fail.as_str(), "fail");
    assert_eq!(Status::Pass.as_str(), "pass");
    let mut a = PropertySet::default();
    a.insert(InvariantId::SingleResolution);
    let mut b = PropertySet::default();
    b.insert(InvariantId::ExactIdMatch);
    let u = a.union(b);
    assert!(u.contains(InvariantId::SingleResolution) && u.contains(InvariantId::ExactIdMatch));
    assert_eq!(u.iter().count(), 2);
    assert_eq!(a.union(a), a);
}

/// ACP bounds a prompt turn's updates by its answer only once the agent has received the
/// turn's `session/cancel` ("it MUST ensure that it does so before responding to the
/// session/prompt request"): an update after that answer fails the run; one after the answer
/// of a turn never cancelled is not judged. MCP 2025-11-25 bounds every request's progress.
#[test]
fn acp_bounds_updates_by_the_answer_of_a_cancelled_turn_only() {
    let after = ["server sends activity 1"];
    let uncancelled = checker(Dialect::Acp, false, &then(ANSWERED, &after));
    assert!(
        broken(&uncancelled).is_empty(),
        "{:?}",
        uncancelled.verdict()
    );
    let cancelled: &[&str] = &[
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "client command cancel 1",
        "client sends session-cancel 1",
        "server receives session-cancel 1",
        "server aborts work 1",
        "server sends response 1 cancelled",
    ];
    let c = checker(Dialect::Acp, false, &then(cancelled, &after));
    assert_eq!(broken(&c), [InvariantId::NoActivityAfterAnswer]);
    assert_eq!(c.verdict().violations[0].strength, Strength::Must);
    assert!(c.failed() && c.verdict().failed());
    let mcp = checker(Dialect::Mcp20251125, false, &then(ANSWERED, &after));
    assert_eq!(broken(&mcp), [InvariantId::NoActivityAfterAnswer]);
}

/// The checker's packed state: what the explorer stores. Unpacked into another checker it
/// packs to the same bytes and judges the rest of a run alike; copies, resets and relabellings
/// keep what they promise.
#[test]
fn the_packed_state_holds_everything_that_judges_the_future() {
    let prefix = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "client command cancel 1",
        "client sends cancel 1",
        "network duplicates client cancel 1",
        "server receives cancel 1",
        "server sends activity 1",
        "client disconnected",
    ];
    // (A step begins with an input: what a party was handling is not carried between steps.)
    let rest = [
        "server sends response 1 full",
        "server receives malformed-cancel",
        "server crashes",
        "end quiescent open 0 1",
    ];
    for d in [Dialect::Mcp20251125, Dialect::AcpRfd, Dialect::Abp] {
        let c = checker(d, false, &prefix);
        let mut bytes = Vec::new();
        c.pack_state(&mut bytes);
        let mut back = Checker::new(d, 4);
        back.unpack_state(&mut Reader::new(&bytes))
            .expect("unpacks");
        let mut again = Vec::new();
        back.pack_state(&mut again);
        assert_eq!(again, bytes, "{d}");
        let mut copy = Checker::new(d, 0);
        copy.clone_from(&c);
        assert_eq!(copy, c, "{d}");
        let mut fresh = c.clone();
        for l in rest {
            let ev = parse(l).unwrap();
            fresh.observe(&ev);
            back.observe(&ev);
        }
        // What the rest of the run breaks: the same, whichever checker judges it.
        let judged = |c: &Checker, from: usize| -> Vec<InvariantId> {
            c.verdict().violations[from..]
                .iter()
                .map(|v| v.invariant)
                .collect()
        };
        let before = c.verdict().violations.len();
        assert_eq!(judged(&back, 0), judged(&fresh, before), "{d}");
        assert!(
            !judged(&back, 0).is_empty(),
            "{d}: the rest breaks something"
        );
        let mut reset = c.clone();
        reset.reset(d);
        assert_eq!(reset, Checker::new(d, 4), "{d}");
    }
    // Declared support and a crash survive packing.
    let mut c = checker(Dialect::AcpRfd, false, &["server crashes"]);
    c.observe(&parse("client sends response 9 initialized cancel-support false").unwrap());
    let mut bytes = Vec::new();
    c.pack_state(&mut bytes);
    let mut back = Checker::new(Dialect::AcpRfd, 4);
    back.unpack_state(&mut Reader::new(&bytes))
        .expect("unpacks");
    let mut again = Vec::new();
    back.pack_state(&mut again);
    assert_eq!(again, bytes);
    // A relabelled checker tells the same of each request under its new id.
    let c = checker(Dialect::Acp, false, ANSWERED);
    let mut r = c.clone();
    r.relabel(&|id| {
        if id == RequestId::Int(1) {
            RequestId::Int(5)
        } else {
            id
        }
    });
    let digest = |c: &Checker, id| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        c.hash_request(id, &mut h);
        std::hash::Hasher::finish(&h)
    };
    assert_eq!(digest(&r, RequestId::Int(5)), digest(&c, RequestId::Int(1)));
    assert_ne!(digest(&c, RequestId::Int(1)), digest(&c, RequestId::Int(0)));
    assert_ne!(digest(&c, RequestId::Int(1)), digest(&c, RequestId::Int(9)));
    // An id the checker never saw feeds nothing.
    assert_eq!(
        digest(&c, RequestId::Int(9)),
        digest(&Checker::new(Dialect::Acp, 4), RequestId::Int(9))
    );
}

/// What a checker learnt of the session (support each party declared, a crash, a disconnect)
/// survives packing: judged after unpacking as before.
#[test]
fn the_session_survives_packing() {
    let roundtrip = |c: &Checker, d: Dialect| {
        let mut bytes = Vec::new();
        c.pack_state(&mut bytes);
        let mut back = Checker::new(d, 4);
        back.unpack_state(&mut Reader::new(&bytes))
            .expect("unpacks");
        back
    };
    let feed = |c: &mut Checker, lines: &[&str]| {
        for l in lines {
            c.observe(&parse(l).unwrap());
        }
    };
    // The server declared no support: a cancel after unpacking breaks the gate.
    let mut c = Checker::new(Dialect::AcpRfd, 4);
    feed(
        &mut c,
        &[
            "client command initialize",
            "client sends request 0 initialize",
            "server receives request 0 initialize",
            "server sends response 0 initialized cancel-support false",
            "client receives response 0 initialized cancel-support false",
            "client delivers 0 reply initialized cancel-support false",
            "client command send",
            "client sends request 1 work",
        ],
    );
    let mut back = roundtrip(&c, Dialect::AcpRfd);
    feed(
        &mut back,
        &["client command cancel 1", "client sends cancel 1"],
    );
    assert_eq!(broken(&back), [InvariantId::CapabilityGated]);
    // Support declared: no breach.
    let c = checker(
        Dialect::AcpRfd,
        false,
        &["client command send", "client sends request 1 work"],
    );
    let mut back = roundtrip(&c, Dialect::AcpRfd);
    feed(
        &mut back,
        &["client command cancel 1", "client sends cancel 1"],
    );
    assert!(broken(&back).is_empty(), "{:?}", broken(&back));
    // The server sends a request; its requester crashed: its request is not judged unresolved.
    for (who, crash) in [("server", "server crashes"), ("client", "client crashes")] {
        let c = checker(
            Dialect::Acp,
            false,
            &[
                &format!("{who} command send"),
                &format!("{who} sends request 3 work"),
                crash,
            ],
        );
        let mut back = roundtrip(&c, Dialect::Acp);
        feed(&mut back, &["end quiescent open 0 0"]);
        assert!(broken(&back).is_empty(), "{who}: {:?}", broken(&back));
        let c = checker(
            Dialect::Acp,
            false,
            &[
                &format!("{who} command send"),
                &format!("{who} sends request 3 work"),
            ],
        );
        let mut back = roundtrip(&c, Dialect::Acp);
        feed(&mut back, &["end quiescent open 0 0"]);
        assert_eq!(broken(&back), [InvariantId::EventualResolution], "{who}");
    }
    // Disconnected: nothing eventual is judged after unpacking either.
    let c = checker(
        Dialect::Acp,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "client disconnected",
        ],
    );
    let mut back = roundtrip(&c, Dialect::Acp);
    feed(&mut back, &["end quiescent open 0 0"]);
    assert!(broken(&back).is_empty(), "{:?}", broken(&back));
}

/// A responder's event is about the request it holds: when an id was reused with nothing
/// about the old request left to arrive, and the new request has not reached the responder,
/// a second answer it sends answers the old one (answered twice), not the new one.
#[test]
fn a_responders_event_names_the_request_it_holds() {
    let c = checker(
        Dialect::Acp,
        false,
        &then(&then(ANSWERED, REUSE), &["server sends response 1 full"]),
    );
    assert_eq!(broken(&c), [InvariantId::SingleResolution]);
    // Once the new request arrived, the answer is the new request's: nothing broken.
    let c = checker(
        Dialect::Acp,
        false,
        &then(
            &then(ANSWERED, REUSE),
            &[
                "server receives request 1 work",
                "server starts work 1",
                "server sends response 1 full",
            ],
        ),
    );
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
}

/// Races are reached only as their statement says, and a requester resolving twice is caught.
#[test]
fn races_and_double_resolution() {
    let asked = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
    ];
    // A cancel before any answer was sent crosses nothing.
    let c = checker(
        Dialect::Acp,
        false,
        &then(
            &asked,
            &[
                "client command cancel 1",
                "client sends cancel 1",
                "server receives cancel 1",
            ],
        ),
    );
    assert!(
        !c.verdict()
            .reached
            .contains(InvariantId::RaceCancelCrossesAnswer)
    );
    let c = checker(
        Dialect::Acp,
        false,
        &then(
            &asked,
            &[
                "server sends response 1 full",
                "client command cancel 1",
                "client sends cancel 1",
                "server receives cancel 1",
            ],
        ),
    );
    assert!(
        c.verdict()
            .reached
            .contains(InvariantId::RaceCancelCrossesAnswer)
    );
    // A timeout with no answer on the wire is not the race; with one, it is.
    let c = checker(
        Dialect::Acp,
        false,
        &then(&asked, &["client timer-fired timeout 1"]),
    );
    assert!(
        !c.verdict()
            .reached
            .contains(InvariantId::RaceTimeoutWithAnswerInFlight)
    );
    let c = checker(
        Dialect::Acp,
        false,
        &then(
            &asked,
            &[
                "server sends response 1 full",
                "client timer-fired timeout 1",
            ],
        ),
    );
    assert!(
        c.verdict()
            .reached
            .contains(InvariantId::RaceTimeoutWithAnswerInFlight)
    );
    // Resolved once: fine; twice: single-resolution.
    let once = checker(Dialect::Acp, false, ANSWERED);
    assert!(broken(&once).is_empty());
    let twice = checker(
        Dialect::Acp,
        false,
        &then(ANSWERED, &["client delivers 1 reply full"]),
    );
    assert_eq!(broken(&twice), [InvariantId::SingleResolution]);
    // A cancel of initialize where it may not be cancelled: reported once, under its clause.
    let c = checker(
        Dialect::AcpRfd,
        false,
        &["client command cancel 0", "client sends cancel 0"],
    );
    assert_eq!(broken(&c), [InvariantId::InitializeNotCancelled]);
    let c = checker(
        Dialect::Acp,
        false,
        &["client command cancel 0", "client sends cancel 0"],
    );
    assert!(
        broken(&c).is_empty(),
        "ACP lets initialize be cancelled: {:?}",
        broken(&c)
    );
}

/// A reused id names two requests; a delivery resolves the newest one not yet resolved. Here
/// request 2 was lost and given up (its cancel goes ahead of the reuse on stdio, so the reuse is
/// safe), the new request 2 is answered, and the disconnect then resolves the old one: two
/// requests resolved once each, not one resolved twice.
#[test]
fn a_disconnect_resolves_the_earlier_instance_of_a_reused_id() {
    let c = checker(
        Dialect::Acp,
        true,
        &[
            "client command send",
            "client sends request 2 work",
            "network loses client request 2 work",
            "client command cancel 2",
            "client sends cancel 2",
            "client command send",
            "client sends request 2 work",
            "server receives cancel 2",
            "server ignores unknown-cancel 2",
            "server receives request 2 work",
            "server starts work 2",
            "server sends response 2 full",
            "client receives response 2 full",
            "client delivers 2 reply full",
            "client disconnected",
            "client delivers 2 disconnected",
        ],
    );
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
    // The same delivery once more is a second resolution.
    let twice = checker(
        Dialect::Acp,
        true,
        &[
            "client command send",
            "client sends request 2 work",
            "server receives request 2 work",
            "server starts work 2",
            "server sends response 2 full",
            "client receives response 2 full",
            "client delivers 2 reply full",
            "client disconnected",
            "client delivers 2 disconnected",
        ],
    );
    assert_eq!(broken(&twice), [InvariantId::SingleResolution]);
}

/// ABP never lets an id be reused; whether the id was still live decides whether what follows
/// can be pinned on either request. An acknowledgement on its way, or a cancel that will be
/// acknowledged, keeps it live even on stdio; once the acknowledgement is in, it is not.
#[test]
fn an_acknowledgement_to_come_keeps_an_abp_id_live() {
    let answered = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "server work-done 1",
        "server sends response 1 full",
        "client command cancel 1",
        "client sends cancel 1",
    ];
    let acked = [
        "server receives cancel 1",
        "server sends cancel-ack 1 cancelled false reason already-completed",
    ];
    let settled = [
        "client receives response 1 full",
        "client delivers 1 reply full",
        "client receives cancel-ack 1 cancelled false reason already-completed",
    ];
    // Reused, then resolved twice: a second resolution, unless the two requests are confused.
    let reuse = [
        "client command send",
        "client sends request 1 work",
        "client delivers 1 reply full",
        "client delivers 1 reply full",
    ];
    let run = |parts: &[&[&str]]| {
        let lines: Vec<&str> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        broken(&checker(Dialect::Abp, true, &lines))
    };
    // Everything settled: the reuse (never allowed) and the double resolution.
    assert_eq!(
        run(&[&answered, &acked, &settled, &reuse]),
        [InvariantId::NoLiveIdReuse, InvariantId::SingleResolution]
    );
    // The acknowledgement still on its way, or the cancel not yet acknowledged: live, so the
    // reuse alone is reported.
    let unacked = &settled[..2];
    for parts in [
        [&answered[..], &acked[..], unacked, &reuse[..]],
        [&answered[..], &[][..], unacked, &reuse[..]],
    ] {
        assert_eq!(run(&parts), [InvariantId::NoLiveIdReuse]);
    }
}

/// A cancel that reaches a request its receiver already dropped finds nothing open: an answer
/// sent after it is not an answer to a request stopped by the cancel.
#[test]
fn a_cancel_after_a_drop_finds_nothing_open() {
    let c = checker(
        Dialect::AcpRfd,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "server drops 1",
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server sends response 1 full",
        ],
    );
    assert!(
        !broken(&c).contains(&InvariantId::CancelHonoured),
        "{:?}",
        broken(&c)
    );
}

/// `initialize` may not be cancelled where the text says so (LSP); ACP allows it, and a cancel
/// of any other request is no cancel of `initialize`.
#[test]
fn only_an_uncancellable_initialize_may_not_be_cancelled() {
    let cancel_init = [
        "client command initialize",
        "client sends request 0 initialize",
        "client command cancel 0",
        "client sends cancel 0",
    ];
    let run = |d: Dialect, lines: &[&str]| {
        let mut c = Checker::new(d, 4);
        for l in lines {
            c.observe(&parse(l).unwrap());
        }
        broken(&c)
    };
    assert_eq!(
        run(Dialect::Lsp, &cancel_init),
        [InvariantId::InitializeNotCancelled]
    );
    assert!(run(Dialect::Acp, &cancel_init).is_empty());
    let cancel_work = then(
        &OPEN,
        &[
            "client command send",
            "client sends request 1 work",
            "client command cancel 1",
            "client sends cancel 1",
        ],
    );
    assert!(run(Dialect::Lsp, &cancel_work).is_empty());
}

/// Two requests confused by a live reuse say nothing of a third with another id: what goes
/// wrong with that one is still reported.
#[test]
fn a_confused_id_leaves_other_ids_judged() {
    let c = checker(
        Dialect::Acp,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "server sends response 1 full",
            "client command send",
            "client sends request 1 work",
            "client command send",
            "client sends request 2 work",
            "client delivers 2 reply full",
            "client delivers 2 reply full",
        ],
    );
    assert_eq!(
        broken(&c),
        [InvariantId::NoLiveIdReuse, InvariantId::SingleResolution]
    );
}

/// A cancel that arrives after the answer (it crossed it) stopped nothing: a second answer is a
/// second resolution, not an answer after a cancel (MCP 2025-11-25, where the receiver of a
/// cancel for a request it still holds should not answer).
#[test]
fn a_cancel_that_crossed_the_answer_stopped_nothing() {
    let c = checker(
        Dialect::Mcp20251125,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "server sends response 1 full",
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server sends response 1 full",
        ],
    );
    assert_eq!(broken(&c), [InvariantId::SingleResolution]);
}

/// An answer that says "cancelled" to a request nobody cancelled, while the connection is up,
/// is a cancel that hit the wrong request.
#[test]
fn a_cancelled_answer_nobody_asked_for_is_a_misdirected_cancel() {
    let lines = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "server sends response 1 cancelled",
    ];
    assert_eq!(
        broken(&checker(Dialect::Acp, false, &lines)),
        [InvariantId::ExactIdMatch]
    );
}

/// ABP: the acknowledgement is compared with the call's first result only; a second result is a
/// second resolution, not a disagreement.
#[test]
fn an_acknowledgement_is_compared_with_the_first_result() {
    let c = checker(
        Dialect::Abp,
        false,
        &[
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server aborts work 1",
            "server sends response 1 cancelled",
            "server sends cancel-ack 1 cancelled true",
            "server sends response 1 full",
        ],
    );
    // (The full result after the cancel also did not honour it.)
    assert_eq!(
        broken(&c),
        [InvariantId::SingleResolution, InvariantId::CancelHonoured]
    );
    // An acknowledgement after both results is compared with the first, which it matches.
    let acked_last = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "client command cancel 1",
        "client sends cancel 1",
        "server receives cancel 1",
        "server aborts work 1",
        "server sends response 1 cancelled",
        "server sends response 1 full",
        "server sends cancel-ack 1 cancelled true",
    ];
    let c = checker(Dialect::Abp, false, &acked_last);
    assert_eq!(
        broken(&c),
        [InvariantId::SingleResolution, InvariantId::CancelHonoured]
    );
}

/// A crash on a malformed cancel is judged by what the texts say of malformed cancels, with
/// their strength: in MCP "Invalid cancellation notifications SHOULD be ignored" (a warning,
/// not the MUST of a cancel for an unknown or finished request); ACP and LSP say nothing of
/// them, so the crash itself is not pinned there (what it leaves unanswered still is, at the
/// end, by the rules of resolution).
#[test]
fn a_crash_on_a_malformed_cancel_has_the_strength_of_its_sentence() {
    let crash = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "client command malformed-cancel",
        "client sends malformed-cancel",
        "server receives malformed-cancel",
        "server crashes",
    ];
    for d in [Dialect::Mcp20251125, Dialect::Mcp20260728] {
        let c = checker(d, true, &crash);
        assert_eq!(broken(&c), [InvariantId::MalformedCancelIgnored], "{d}");
        assert_eq!(c.verdict().status(true), Status::Warn, "{d}");
    }
    for d in [Dialect::Acp, Dialect::AcpRfd, Dialect::Lsp] {
        let c = checker(d, true, &crash);
        assert!(broken(&c).is_empty(), "{d}: {:?}", broken(&c));
        let ended = checker(d, true, &then(&crash, &["end quiescent open 0 0"]));
        assert_eq!(broken(&ended), [InvariantId::EventualResolution], "{d}");
    }
}

/// ABP: a call's first result is compared with an acknowledgement already sent (here one that
/// said the call was not cancelled, then a result that says it was), and a completed call's
/// cancel is answered "Operation already completed", not a bare `cancelled: false`.
#[test]
fn a_first_result_is_compared_with_the_acknowledgement_before_it() {
    let cancelled = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "client command cancel 1",
        "client sends cancel 1",
        "server receives cancel 1",
    ];
    let disagrees = then(
        &cancelled,
        &[
            "server sends cancel-ack 1 cancelled false",
            "server aborts work 1",
            "server sends response 1 cancelled",
        ],
    );
    let c = checker(Dialect::Abp, true, &disagrees);
    assert_eq!(broken(&c), [InvariantId::AckAgreesWithOutcome]);
    assert_eq!(c.verdict().violations[0].event as usize, OPEN.len() + 9);
    let agrees = then(
        &cancelled,
        &[
            "server sends cancel-ack 1 cancelled true",
            "server aborts work 1",
            "server sends response 1 cancelled",
        ],
    );
    assert!(broken(&checker(Dialect::Abp, true, &agrees)).is_empty());
    // Elsewhere no cancel is acknowledged: nothing to compare a result with.
    let completed = [
        "client command send",
        "client sends request 1 work",
        "server receives request 1 work",
        "server starts work 1",
        "server sends response 1 full",
        "client command cancel 1",
        "client sends cancel 1",
        "server receives cancel 1",
    ];
    for (ack, want) in [
        (
            "server sends cancel-ack 1 cancelled false reason already-completed",
            vec![],
        ),
        (
            "server sends cancel-ack 1 cancelled false",
            vec![InvariantId::CancelResultPerTable],
        ),
    ] {
        let c = checker(Dialect::Abp, true, &then(&completed, &[ack]));
        assert_eq!(broken(&c), want, "{ack}");
    }
}

/// What may cancel a request besides a cascade: its application's cancel or its own timer.
/// The `initialize` timer stands for `initialize` only, not for the newest request its
/// requester sent (ACP, where `initialize` may be cancelled).
#[test]
fn the_initialize_timer_cancels_initialize_only() {
    let judged = |cancelled: &str| {
        let mut c = Checker::new(Dialect::Acp, 4);
        c.set_fifo(true);
        for l in [
            "client command initialize",
            "client sends request 0 initialize",
            "client command send",
            "client sends request 1 work",
            "client timer-fired init-timeout",
            cancelled,
        ] {
            c.observe(&parse(l).unwrap_or_else(|e| panic!("{l}: {e}")));
        }
        broken(&c)
    };
    assert!(judged("client sends cancel 0").is_empty());
    assert_eq!(
        judged("client sends cancel 1"),
        [InvariantId::SiblingsUntouched]
    );
}

/// ACP: prompt turn 1, and the agent's permission request 2 sent for it.
const TURN_WITH_PERMISSION: &[&str] = &[
    "client command send",
    "client sends request 1 work",
    "server receives request 1 work",
    "server starts work 1",
    "server command send-nested 1",
    "server nests 2 under 1",
    "server sends request 2 server-work",
];

/// A session's cancel ends the permission requests of its own turn that its client holds, and
/// those that arrive while the turn has not ended: not a request of another turn, nor one that
/// arrives once the turn is over.
#[test]
fn a_session_cancel_ends_the_permission_requests_of_its_own_turn_only() {
    let held_by_another_turn = then(
        TURN_WITH_PERMISSION,
        &[
            "client receives request 2 server-work",
            "client starts work 2",
            "client command send",
            "client sends request 3 work",
            "client command cancel 3",
            "client sends session-cancel 3",
            "client work-done 2",
            "client sends response 2 full",
        ],
    );
    let c = checker(Dialect::Acp, true, &held_by_another_turn);
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
    let arrives_after_the_turn = then(
        TURN_WITH_PERMISSION,
        &[
            "client command cancel 1",
            "client sends session-cancel 1",
            "server receives session-cancel 1",
            "server command cancel 2",
            "server sends cancel 2",
            "server delivers 2 cancelled parent",
            "server aborts work 1",
            "server sends response 1 cancelled",
            "client receives response 1 cancelled",
            "client delivers 1 cancelled user",
            "client receives request 2 server-work",
            "client starts work 2",
            "client work-done 2",
            "client sends response 2 full",
        ],
    );
    let c = checker(Dialect::Acp, true, &arrives_after_the_turn);
    assert!(
        !broken(&c).contains(&InvariantId::PermissionCancelledAfterCancel),
        "{:?}",
        broken(&c)
    );
    // While the turn is still on, the same request arriving is owed `cancelled`.
    let arrives_during_the_turn = then(
        TURN_WITH_PERMISSION,
        &[
            "client command cancel 1",
            "client sends session-cancel 1",
            "client receives request 2 server-work",
            "client starts work 2",
            "client work-done 2",
            "client sends response 2 full",
        ],
    );
    let c = checker(Dialect::Acp, true, &arrives_during_the_turn);
    assert_eq!(broken(&c), [InvariantId::PermissionCancelledAfterCancel]);
}

/// A copy of a request lost after the request itself arrived excuses nothing: a request never
/// answered still breaks `eventual-resolution`.
#[test]
fn a_lost_copy_of_a_request_that_arrived_excuses_nothing() {
    let c = checker(
        Dialect::Acp,
        true,
        &[
            "client command send",
            "client sends request 1 work",
            "network duplicates client request 1 work",
            "server receives request 1 work",
            "network loses client request 1 work",
            "end quiescent open 0 1",
        ],
    );
    assert!(c.verdict().excused.is_empty(), "{:?}", c.verdict().excused);
    assert_eq!(broken(&c)[0], InvariantId::EventualResolution);
}

/// ACP RFD: a party that declared no support for cancels (here the client, whose `initialize`
/// declared none) owes a cancel sent to it nothing: answering in full is no failure to honour
/// it, and the cancel reaches no race. Only its sender is at fault.
#[test]
fn a_cancel_to_a_party_that_declared_no_support_is_owed_nothing() {
    let mut c = Checker::new(Dialect::AcpRfd, 4);
    c.set_fifo(true);
    for l in [
        "client command initialize",
        "client sends request 0 initialize-no-cancel",
        "server receives request 0 initialize-no-cancel",
        "server sends response 0 initialized cancel-support true",
        "client receives response 0 initialized cancel-support true",
        "client delivers 0 reply initialized cancel-support true",
        "server command send",
        "server sends request 0 server-work",
        "client receives request 0 server-work",
        "server command cancel 0",
        "server sends cancel 0",
        "client receives cancel 0",
        "client starts work 0",
        "client work-done 0",
        "client sends response 0 full",
    ] {
        c.observe(&parse(l).unwrap_or_else(|e| panic!("{l}: {e}")));
    }
    assert_eq!(broken(&c), [InvariantId::CapabilityGated]);
    assert_eq!(c.verdict().reached, PropertySet::default());
}

/// The client's request 1, on whose behalf the server sends its request 2 (ACP).
const NESTED: &[&str] = &[
    "client command send",
    "client sends request 1 work",
    "server receives request 1 work",
    "server starts work 1",
    "server command send-nested 1",
    "server nests 2 under 1",
    "server sends request 2 server-work",
];

/// A handler waits on the requests it sent on its request's behalf: when one of them (or its
/// answer) was lost, the request it serves is excused with it, and what the handler still
/// holds is no leak. A child that was merely never answered excuses nothing.
#[test]
fn a_loss_below_a_request_excuses_it_too() {
    let excused = |c: &Checker| {
        c.verdict()
            .excused
            .iter()
            .map(|e| (e.requester, e.id, e.lost))
            .collect::<Vec<_>>()
    };
    let (one, two) = (RequestId::Int(1), RequestId::Int(2));
    let request_lost = then(
        NESTED,
        &[
            "network loses server request 2 server-work",
            "end quiescent open 0 1",
        ],
    );
    let c = checker(Dialect::Acp, true, &request_lost);
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
    assert_eq!(
        excused(&c),
        [
            (Party::Client, one, Lost::Request),
            (Party::Server, two, Lost::Request)
        ]
    );
    let answer_lost = then(
        NESTED,
        &[
            "client receives request 2 server-work",
            "client starts work 2",
            "client work-done 2",
            "client sends response 2 full",
            "network loses client response 2 full",
            "end quiescent open 0 1",
        ],
    );
    let c = checker(Dialect::Acp, true, &answer_lost);
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
    assert_eq!(
        excused(&c),
        [
            (Party::Client, one, Lost::Response),
            (Party::Server, two, Lost::Response)
        ]
    );
    let never_answered = then(
        NESTED,
        &[
            "client receives request 2 server-work",
            "client starts work 2",
            "end quiescent open 1 1",
        ],
    );
    let c = checker(Dialect::Acp, true, &never_answered);
    assert!(excused(&c).is_empty(), "{:?}", excused(&c));
    let v = c.verdict().violations[0];
    assert_eq!(
        (v.invariant, v.id),
        (InvariantId::EventualResolution, Some(one))
    ); // Nor does a lost child its handler has since given up: it waits on nothing.
    let given_up = then(
        NESTED,
        &[
            "network loses server request 2 server-work",
            "server timer-fired timeout 2",
            "server delivers 2 cancelled timeout",
            "end quiescent open 0 1",
        ],
    );
    let c = checker(Dialect::Acp, true, &given_up);
    assert!(excused(&c).is_empty(), "{:?}", excused(&c));
    let v = c.verdict().violations[0];
    assert_eq!(
        (v.invariant, v.id),
        (InvariantId::EventualResolution, Some(one))
    );
}

/// A live reuse confuses the whole tree of the request it names: a finding about the root
/// (its handler answering its cancelled turn while a request it sent for it is unresolved) is
/// set aside.
#[test]
fn a_reuse_in_a_tree_sets_aside_what_concerns_its_root() {
    let reused = then(
        NESTED,
        &[
            "server command send-nested 1",
            "server nests 2 under 1",
            "server sends request 2 server-work",
            "client command cancel 1",
            "client sends session-cancel 1",
            "server receives session-cancel 1",
            "server aborts work 1",
            "server sends response 1 cancelled",
        ],
    );
    let c = checker(Dialect::Acp, true, &reused);
    assert_eq!(broken(&c), [InvariantId::NoLiveIdReuse]);
    let aside: Vec<_> = c
        .verdict()
        .set_aside
        .iter()
        .map(|s| (s.invariant, s.requester, s.id))
        .collect();
    assert_eq!(
        aside,
        [(
            InvariantId::ChildrenBeforeParent,
            Party::Client,
            RequestId::Int(1)
        )]
    );
}

/// A handler owes the cascade to a request it sent for one whose cancel it took (ACP RFD); one
/// whose answer was lost on the way cannot be resolved, and is excused from the cascade as from
/// resolution. What the handler still holds for a lost child is no leak, even once its own
/// requester has given the request up.
#[test]
fn a_loss_excuses_the_cascade_and_what_a_handler_holds_for_it() {
    let cascade = then(
        NESTED,
        &[
            "client receives request 2 server-work",
            "client starts work 2",
            "client work-done 2",
            "client sends response 2 full",
            "network loses client response 2 full",
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server sends cancel 2",
            "end quiescent open 0 1",
        ],
    );
    let c = checker(Dialect::AcpRfd, true, &cascade);
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
    // The cascade itself is still owed: without the cancel of 2, it is broken.
    let mut uncancelled = cascade.clone();
    uncancelled.retain(|l| *l != "server sends cancel 2");
    let c = checker(Dialect::AcpRfd, true, &uncancelled);
    assert_eq!(broken(&c), [InvariantId::CascadeComplete]);
    let given_up = then(
        NESTED,
        &[
            "network loses server request 2 server-work",
            "client timer-fired timeout 1",
            "client delivers 1 cancelled timeout",
            "end quiescent open 0 1",
        ],
    );
    let c = checker(Dialect::AcpRfd, true, &given_up);
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
    // Without the loss, what the handler holds is a leak.
    let mut held = given_up.clone();
    held.retain(|l| *l != "network loses server request 2 server-work");
    let end = held.len() - 1;
    held.splice(
        end..end,
        [
            "server timer-fired timeout 2",
            "server delivers 2 cancelled timeout",
        ],
    );
    let c = checker(Dialect::AcpRfd, true, &held);
    assert_eq!(broken(&c), [InvariantId::NoLeakAtQuiescence]);
}

/// A request given up for its parent's cancel is one the parent's cancel concerned: its
/// handler took that cancel while it held the parent open. Given up otherwise, it was a
/// sibling the cancel should have left alone.
#[test]
fn a_request_given_up_for_its_parent_needs_the_parents_cancel() {
    let c = checker(
        Dialect::Acp,
        true,
        &then(NESTED, &["server delivers 2 cancelled parent"]),
    );
    assert_eq!(broken(&c), [InvariantId::SiblingsUntouched]);
    let cancelled = then(
        NESTED,
        &[
            "client command cancel 1",
            "client sends cancel 1",
            "server receives cancel 1",
            "server delivers 2 cancelled parent",
        ],
    );
    let c = checker(Dialect::Acp, true, &cancelled);
    assert!(broken(&c).is_empty(), "{:?}", broken(&c));
}

/// Each invariant is reported once, at the first event that breaks it, until the checker is
/// told to forget what it reported (as a rendering that marks every breaking event does).
#[test]
fn a_forgotten_finding_is_reported_again() {
    let twice = then(
        ANSWERED,
        &[
            "server sends response 1 full",
            "server sends response 1 full",
        ],
    );
    let c = checker(Dialect::Acp, true, &twice);
    assert_eq!(broken(&c), [InvariantId::SingleResolution]);
    let mut c = checker(Dialect::Acp, true, &twice[..twice.len() - 1]);
    c.forget_reported();
    c.observe(&parse(twice[twice.len() - 1]).expect("parses"));
    let events: Vec<u64> = c.verdict().violations.iter().map(|v| v.event).collect();
    let n = (OPEN.len() + twice.len()) as u64;
    assert_eq!(events, [n - 2, n - 1]);
}

/// Each status says what it means in words of its own: a failure names the MUST, a warning
/// the SHOULDs.
#[test]
fn every_status_says_what_it_means() {
    let all = [Status::Fail, Status::Warn, Status::Vacuous, Status::Pass];
    let meanings: Vec<&str> = all.iter().map(|s| s.meaning()).collect();
    for (i, m) in meanings.iter().enumerate() {
        assert!(!m.is_empty(), "{:?}", all[i]);
        assert!(
            !meanings[..i].contains(m),
            "{:?} says what another says",
            all[i]
        );
    }
    assert!(Status::Fail.meaning().contains("MUST"));
    assert!(Status::Warn.meaning().contains("SHOULD"));
}

/// The checker's records are the one model of parentage that drivers ask: a request the
/// application sent is at depth 1, one sent on its behalf at 2, one sent on that one's behalf
/// at 3; an id never seen is at 1.
#[test]
fn the_depth_of_a_request_is_counted_from_its_tree_root() {
    let c = checker(
        Dialect::Acp,
        true,
        &then(
            TURN_WITH_PERMISSION,
            &[
                "client receives request 2 server-work",
                "client starts work 2",
                "client command send-nested 2",
                "client nests 3 under 2",
                "client sends request 3 work",
            ],
        ),
    );
    assert_eq!(c.depth(Party::Client, RequestId::Int(1)), 1);
    assert_eq!(c.depth(Party::Server, RequestId::Int(2)), 2);
    assert_eq!(c.depth(Party::Client, RequestId::Int(3)), 3);
    assert_eq!(c.depth(Party::Server, RequestId::Int(9)), 1);
}

/// A parent link names its record however many came before it: a request sent on behalf of
/// the client's 300th request stands at depth 2.
#[test]
fn a_parent_link_names_a_record_past_the_256th() {
    let mut lines: Vec<String> = Vec::new();
    for n in 1..=300 {
        lines.push("client command send".into());
        lines.push(format!("client sends request {n} work"));
    }
    lines.extend(
        [
            "server receives request 300 work",
            "server starts work 300",
            "server command send-nested 300",
            "server nests 1 under 300",
            "server sends request 1 server-work",
        ]
        .map(String::from),
    );
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let c = checker(Dialect::Mcp20251125, true, &lines);
    assert_eq!(c.depth(Party::Server, RequestId::Int(1)), 2);
    let p = c.parentage();
    let child = p.newest(Party::Server, RequestId::Int(1)).expect("sent");
    assert_eq!(
        p.parent(child),
        p.newest(Party::Client, RequestId::Int(300))
    );
}

/// The one model of parentage ([`Checker::parentage`]): `initialize` and the application's
/// requests are roots; a request sent on another's behalf names, of a reused id, the instance
/// its sender holds (the client's first request 1, received, not the second, still on its
/// way); the walk up from the deepest request ends at its root; children and generations
/// are counted per instance.
#[test]
fn parentage_links_each_request_to_the_instance_its_sender_holds() {
    let c = checker(
        Dialect::Acp,
        false,
        &then(
            &TURN_WITH_PERMISSION[..4],
            &[
                "client command send",
                "client sends request 1 work",
                "server command send-nested 1",
                "server nests 2 under 1",
                "server sends request 2 server-work",
                "client receives request 2 server-work",
                "client starts work 2",
                "client command send-nested 2",
                "client nests 3 under 2",
                "client sends request 3 work",
            ],
        ),
    );
    let p = c.parentage();
    let at = |party, id, generation| {
        (0..p.len())
            .find(|&i| {
                p.requester(i) == party
                    && p.id(i) == RequestId::Int(id)
                    && p.generation(i) == generation
            })
            .unwrap_or_else(|| panic!("{party:?} {id} generation {generation}"))
    };
    let (init, first, second) = (
        at(Party::Client, 0, 1),
        at(Party::Client, 1, 1),
        at(Party::Client, 1, 2),
    );
    let (permission, nested) = (at(Party::Server, 2, 1), at(Party::Client, 3, 1));
    assert_eq!(p.len(), 5);
    assert!(p.is_initialize(init) && !p.is_initialize(first));
    assert_eq!(p.newest(Party::Client, RequestId::Int(1)), Some(second));
    assert_eq!(p.newest(Party::Server, RequestId::Int(1)), None);
    assert_eq!(
        [p.parent(init), p.parent(first), p.parent(second)],
        [None; 3]
    );
    assert_eq!(p.parent(permission), Some(first));
    assert_eq!(p.parent(nested), Some(permission));
    assert_eq!(p.ancestors(nested).collect::<Vec<_>>(), [permission, first]);
    assert_eq!((p.root(nested), p.root(second)), (first, second));
    assert_eq!(
        (p.depth(nested), p.depth(permission), p.depth(second)),
        (3, 2, 1)
    );
    assert_eq!(p.children(first).collect::<Vec<_>>(), [permission]);
    assert_eq!(p.children(second).count(), 0);
}
