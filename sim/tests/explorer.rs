//! The explorer in `cargo test`: every correct behaviour of every dialect explored
//! exhaustively (reordering transport, timeouts at any point, every cancel at any point) with
//! its unique-state count pinned, so a model change that shrinks the space fails here; and
//! every faulty behaviour found, with its shortest counterexample's length pinned.
//!
//! Bounds: N ≤ 3 requests (N ≤ 2 for ABP, whose repeated acknowledged cancels make N = 3 too
//! large to hold in memory here), one worker per request, FIFO replaced by any order.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::breaks::classify;
use cancelcheck_sim::explorer::{ExploreSpec, SearchOptions, replay, search};
use cancelcheck_sim::link::Order;
use cancelcheck_sim::scenario::Nesting;

/// (dialect, behaviour, requests, unique states, total states).
const CORRECT: &[(&str, &str, u16, u64, u64)] = &[
    ("acp", "honour", 1, 80, 122),
    ("acp", "honour", 2, 4618, 13792),
    ("acp", "honour", 3, 413724, 1831488),
    ("acp-rfd", "honour", 1, 59, 91),
    ("acp-rfd", "honour", 2, 2728, 8206),
    ("acp-rfd", "honour", 3, 221745, 984942),
    ("acp-rfd", "partial", 1, 59, 91),
    ("acp-rfd", "partial", 2, 2728, 8206),
    ("acp-rfd", "partial", 3, 221745, 984942),
    ("mcp-2025-11-25", "honour", 1, 82, 116),
    ("mcp-2025-11-25", "honour", 2, 4892, 13360),
    ("mcp-2025-11-25", "honour", 3, 452908, 1824110),
    ("mcp-2026-07-28", "honour", 1, 78, 112),
    ("mcp-2026-07-28", "honour", 2, 4888, 13356),
    ("mcp-2026-07-28", "honour", 3, 452904, 1824106),
    ("lsp", "honour", 1, 80, 122),
    ("lsp", "honour", 2, 4618, 13792),
    ("lsp", "honour", 3, 413724, 1831488),
    ("lsp", "finish-first", 1, 86, 130),
    ("lsp", "finish-first", 2, 5464, 16174),
    ("lsp", "finish-first", 3, 538572, 2364402),
    ("lsp", "partial", 1, 80, 122),
    ("lsp", "partial", 2, 4618, 13792),
    ("lsp", "partial", 3, 413724, 1831488),
    ("abp", "honour", 1, 528, 1086),
    ("abp", "honour", 2, 244418, 998628),
];

/// (dialect, behaviour, requests, shortest counterexample steps, unique states visited).
const FAULTY: &[(&str, &str, u16, usize, u64)] = &[
    ("acp", "never-answers-cancelled", 1, 6, 96), // eventual-resolution
    ("acp", "answers-twice", 1, 7, 96),           // single-resolution
    ("acp", "wrong-error-code", 1, 6, 54),        // cancel-error-code
    ("acp", "id-type-confusion", 1, 1, 2),        // exact-id-match
    ("acp", "cancel-cancels-all", 2, 6, 70),      // exact-id-match
    ("acp", "answers-cancel-notification", 1, 2, 6), // notification-unanswered
    ("acp", "activity-after-answer", 1, 6, 80),   // no-activity-after-answer
    ("acp", "crashes-on-unknown-cancel", 1, 2, 6), // unknown-cancel-harmless
    ("acp", "reuses-live-id", 2, 5, 33462),       // no-live-id-reuse
    ("acp", "finish-first", 1, 7, 96),            // prompt-cancelled-stop-reason
    ("acp", "cancelled-prompt-as-error", 1, 6, 54), // prompt-cancelled-stop-reason
    ("acp-rfd", "finish-first", 1, 7, 41),        // cancel-honoured
    ("acp-rfd", "never-answers-cancelled", 1, 6, 41), // eventual-resolution
    ("acp-rfd", "answers-twice", 1, 7, 41),       // single-resolution,cancel-honoured
    ("acp-rfd", "wrong-error-code", 1, 6, 28),    // cancel-error-code
    ("acp-rfd", "id-type-confusion", 1, 1, 2),    // exact-id-match
    ("acp-rfd", "cancel-cancels-all", 2, 7, 95),  // exact-id-match
    ("acp-rfd", "cancel-hits-own-request", 1, 7, 708), // exact-id-match
    ("acp-rfd", "ignores-cancel-for-id-zero", 1, 6, 182), // cancel-honoured
    ("acp-rfd", "answers-cancel-notification", 1, 5, 18), // notification-unanswered
    ("acp-rfd", "crashes-on-unknown-cancel", 1, 5, 18), // unknown-cancel-harmless
    ("acp-rfd", "leaks-cancelled", 1, 7, 63),     // no-leak-at-quiescence
    ("acp-rfd", "reuses-live-id", 2, 5, 4758),    // no-live-id-reuse
    ("acp-rfd", "cancels-initialize", 1, 1, 2),   // initialize-not-cancelled,capability-gated
    ("acp-rfd", "cancels-without-capability", 1, 4, 12), // capability-gated
    ("mcp-2025-11-25", "progress-after-cancel", 1, 7, 252), // no-activity-after-cancel (warn)
    ("mcp-2025-11-25", "finish-first", 1, 7, 98), // no-answer-after-cancel (warn)
    ("mcp-2025-11-25", "answers-after-cancel", 1, 6, 92), // no-answer-after-cancel
    ("mcp-2025-11-25", "id-type-confusion", 1, 1, 2), // exact-id-match
    ("mcp-2025-11-25", "cancel-cancels-all", 2, 7, 106), // exact-id-match
    ("mcp-2025-11-25", "cancel-hits-own-request", 1, 7, 392), // exact-id-match
    ("mcp-2025-11-25", "ignores-cancel-for-id-zero", 1, 6, 2930), // no-answer-after-cancel,no-activity-after-cancel
    ("mcp-2025-11-25", "answers-cancel-notification", 1, 5, 18),  // notification-unanswered
    ("mcp-2025-11-25", "activity-after-answer", 1, 1, 2),         // no-activity-after-answer
    ("mcp-2025-11-25", "crashes-on-unknown-cancel", 1, 7, 48), // unknown-cancel-harmless (a cancel that overtakes its request: unknown-id-cancel-ignored, a warning)
    ("mcp-2025-11-25", "leaks-cancelled", 1, 6, 86),           // no-leak-at-quiescence
    ("mcp-2025-11-25", "delivers-late-answer", 1, 7, 80),      // late-answer-ignored (warn)
    ("mcp-2025-11-25", "reuses-live-id", 2, 5, 20),            // no-live-id-reuse
    ("mcp-2025-11-25", "cancels-initialize", 1, 1, 2),         // initialize-not-cancelled
    ("mcp-2026-07-28", "finish-first", 1, 5, 40),              // no-answer-after-cancel
    ("mcp-2026-07-28", "progress-after-cancel", 1, 5, 50),     // no-activity-after-cancel
    ("mcp-2026-07-28", "answers-after-cancel", 1, 4, 22),      // no-answer-after-cancel
    ("mcp-2026-07-28", "id-type-confusion", 1, 3, 10),         // exact-id-match
    ("mcp-2026-07-28", "ignores-cancel-for-id-zero", 1, 5, 40), // no-answer-after-cancel
    ("mcp-2026-07-28", "cancel-cancels-all", 2, 5, 98),        // exact-id-match
    ("mcp-2026-07-28", "cancel-hits-own-request", 1, 4, 56),   // exact-id-match
    ("mcp-2026-07-28", "server-cancels", 1, 2, 6), // cancel-from-allowed-party (a MUST: the search stops at it)
    ("mcp-2026-07-28", "answers-cancel-notification", 1, 3, 10), // notification-unanswered
    ("mcp-2026-07-28", "crashes-on-unknown-cancel", 1, 5, 40), // unknown-cancel-harmless (as above)
    ("mcp-2026-07-28", "leaks-cancelled", 1, 4, 78), // no-leak-at-quiescence
    ("mcp-2026-07-28", "delivers-late-answer", 1, 5, 72), // late-answer-ignored (warn)
    ("mcp-2026-07-28", "reuses-live-id", 2, 3, 9774), // no-live-id-reuse
    ("lsp", "never-answers-cancelled", 1, 6, 48),  // eventual-resolution
    ("lsp", "answers-twice", 1, 7, 48),            // single-resolution
    ("lsp", "wrong-error-code", 1, 6, 30),         // cancel-error-code
    ("lsp", "id-type-confusion", 1, 1, 2),         // exact-id-match
    ("lsp", "cancel-cancels-all", 2, 7, 106),      // exact-id-match
    ("lsp", "cancel-hits-own-request", 1, 7, 394), // exact-id-match
    ("lsp", "answers-cancel-notification", 1, 5, 18), // notification-unanswered
    ("lsp", "crashes-on-unknown-cancel", 1, 5, 18), // unknown-cancel-harmless
    ("lsp", "reuses-live-id", 2, 5, 8370),         // no-live-id-reuse
    ("lsp", "cancels-initialize", 1, 1, 2),        // initialize-not-cancelled
    ("mcp-2025-11-25", "gives-up-silently", 1, 4, 44), // cancel-sent-on-give-up
    ("mcp-2026-07-28", "gives-up-silently", 1, 2, 4), // cancel-sent-on-give-up
    ("mcp-2025-11-25", "cancels-after-answer", 1, 7, 48), // cancel-only-in-progress
    ("mcp-2026-07-28", "cancels-after-answer", 1, 5, 40), // cancel-only-in-progress
    ("mcp-2025-11-25", "cancels-task-by-notification", 1, 4, 12), // task-cancelled-by-request
    // Streamable HTTP (with `coverage::http_to_act`).
    ("mcp-2026-07-28", "works-after-close", 1, 5, 40), // close-is-cancel
    ("mcp-2025-11-25", "cancels-on-disconnect", 1, 6, 330), // disconnect-not-cancel (warn)
    ("lsp", "sends-before-initialize", 1, 1, 2),       // no-request-before-initialize
    ("lsp", "misuses-server-cancelled", 1, 5, 120),    // internal-cancel-code (warn)
    ("abp", "never-answers-cancelled", 1, 10, 2732),   // eventual-resolution
    ("abp", "answers-twice", 1, 7, 5300),              // single-resolution,cancel-honoured
    ("abp", "id-type-confusion", 1, 1, 32),            // exact-id-match
    ("abp", "cancel-cancels-all", 2, 6, 2899236),      // exact-id-match
    ("abp", "crashes-on-unknown-cancel", 1, 3, 1158),  // unknown-cancel-harmless
    ("abp", "ack-disagrees-with-outcome", 1, 7, 4148), // cancel-honoured,ack-agrees-with-outcome
    ("abp", "second-cancel-not-cancelled", 1, 8, 3548), // cancel-idempotent,ack-agrees-with-outcome
    ("abp", "forgets-completed-call", 1, 3, 2900),     // cancel-result-per-table
    // Request trees (with `coverage::nesting_to_act`).
    ("acp", "answers-parent-first", 1, 7, 108), // children-before-parent (after session/cancel)
    ("acp", "cancels-sibling-subtree", 2, 9, 8757478),
    ("acp", "leaves-child-pending", 1, 9, 576),
    ("acp", "selects-after-cancel", 1, 8, 208), // permission-cancelled-after-cancel
    ("acp-rfd", "forgets-grandchild", 1, 15, 1376),
    ("acp-rfd", "cancels-sibling-subtree", 2, 9, 565000),
    ("acp-rfd", "spawns-after-cancel", 1, 7, 51),
    ("acp-rfd", "leaves-child-pending", 1, 9, 152),
    ("mcp-2025-11-25", "forgets-grandchild", 1, 13, 2364),
    ("mcp-2025-11-25", "spawns-after-cancel", 1, 7, 424),
    ("mcp-2026-07-28", "spawns-after-cancel", 1, 5, 50),
    ("acp", "forwards-cancel-unrewritten", 1, 7, 1790), // cancel-names-sent-request (a note)
    ("acp-rfd", "forwards-cancel-unrewritten", 1, 12, 224), // cascade-complete
    ("mcp-2025-11-25", "forwards-cancel-unrewritten", 1, 7, 58), // cancel-names-sent-request
    ("lsp", "forwards-cancel-unrewritten", 1, 7, 340),  // cancel-names-sent-request (a note)
    ("abp", "reuses-live-id", 2, 5, 40),                // no-live-id-reuse
];

fn search_options(
    threads: usize,
    max_depth: Option<u32>,
    max_states: Option<u64>,
    depth_first: bool,
) -> SearchOptions {
    SearchOptions {
        max_depth,
        threads,
        max_states,
        max_memory: None,
        depth_first,
        symmetry: false,
        partial_order: false,
    }
}

fn opts() -> SearchOptions {
    search_options(2, None, None, false)
}

fn correct_spec(d: &str, b: &str, n: u16) -> ExploreSpec {
    let mut spec = ExploreSpec::new(d.parse().unwrap(), b.parse().unwrap(), n, Order::Reordering);
    spec.timeouts = true;
    spec
}

fn check_correct(dialect: &str) {
    for &(d, b, n, unique, total) in CORRECT.iter().filter(|r| r.0 == dialect) {
        let s = correct_spec(d, b, n).scenario();
        let r = search(&s, &opts(), &|_, _, _| {});
        assert!(
            r.finding().is_none(),
            "{d} {b} N={n}: {:?}",
            r.counterexample
        );
        assert!(r.exhaustive, "{d} {b} N={n} was not exhaustive");
        assert_eq!(
            (r.unique_states, r.total_states),
            (unique, total),
            "{d} {b} N={n}: state counts changed"
        );
    }
}

#[test]
fn acp_correct_behaviours_are_exhaustively_clean() {
    check_correct("acp");
}

#[test]
fn acp_rfd_correct_behaviours_are_exhaustively_clean() {
    check_correct("acp-rfd");
}

#[test]
fn mcp_2025_correct_behaviours_are_exhaustively_clean() {
    check_correct("mcp-2025-11-25");
}

#[test]
fn mcp_2026_correct_behaviours_are_exhaustively_clean() {
    check_correct("mcp-2026-07-28");
}

/// Streamable HTTP, searched whole (no reduction applies) with one worker, and progress where
/// the search stays small: (dialect, requests, progress, unique states, total states).
const HTTP_CORRECT: &[(&str, u16, bool, u64, u64)] = &[
    ("mcp-2026-07-28", 1, true, 56, 72),
    ("mcp-2026-07-28", 2, true, 2018, 4258),
    ("mcp-2025-11-25", 1, true, 456, 844),
    ("mcp-2025-11-25", 2, false, 22228, 68418),
];

/// The correct server and client on Streamable HTTP break nothing in any schedule of 1 and 2
/// requests, in both MCP dialects, and reach every race that applies there: the close crossing
/// the answer (and in MCP 2025-11-25 the cancel POST crossing it, a drop during work and its
/// resume, progress on the GET stream after the drop).
#[test]
fn http_correct_behaviours_are_exhaustively_clean_and_reach_every_race() {
    let mut changed = Vec::new();
    for &(d, n, progress, unique, total) in HTTP_CORRECT {
        let mut spec = ExploreSpec::new(d.parse().unwrap(), Behaviour::Honour, n, Order::Http);
        spec.workers = 1;
        spec.progress = progress;
        let s = spec.scenario();
        let r = search(&s, &opts(), &|_, _, _| {});
        assert!(r.finding().is_none(), "{d} N={n}: {:?}", r.counterexample);
        assert!(r.exhaustive, "{d} N={n} was not exhaustive");
        let missed: Vec<_> = cancelcheck_sim::runner::applicable_races(&s)
            .iter()
            .filter(|race| !r.reached.contains(*race))
            .map(|race| race.name())
            .collect();
        // (One request never waits for a worker.)
        let expected: &[&str] = if n == 1 {
            &["race-cancel-before-work"]
        } else {
            &[]
        };
        assert_eq!(missed, expected, "{d} N={n}: races not reached");
        if (r.unique_states, r.total_states) != (unique, total) {
            changed.push(format!(
                "(\"{d}\", {n}, {progress}, {}, {}), // was {unique}, {total}",
                r.unique_states, r.total_states
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "state counts changed:\n{}",
        changed.join("\n")
    );
}

#[test]
fn lsp_correct_behaviours_are_exhaustively_clean() {
    check_correct("lsp");
}

#[test]
fn abp_correct_behaviours_are_exhaustively_clean() {
    check_correct("abp");
}

#[test]
fn every_correct_behaviour_is_pinned() {
    for d in Dialect::ALL {
        for b in Behaviour::all().filter(|b| classify(*b, d).is_some_and(|c| !c.faulty())) {
            let max_n = CORRECT
                .iter()
                .filter(|r| r.0 == d.id() && r.1 == b.name())
                .map(|r| r.2)
                .max();
            let want = if d == Dialect::Abp { 2 } else { 3 };
            assert_eq!(max_n, Some(want), "{d} {b} is not explored up to N={want}");
        }
    }
}

/// A fault whose pinned search visits more states than this is searched in the long suite
/// (`the_largest_fault_searches_find_their_faults`), every other one in `cargo test`: the three
/// above it (ACP's and the ACP RFD's `cancels-sibling-subtree`, ABP's `cancel-cancels-all`)
/// break only notes, so each is searched to the end to show that no MUST lies behind them, and
/// together they made up 98% of the states this check visits.
const LONG_FAULT_SEARCH: u64 = 500_000;

#[test]
fn every_fault_is_found_with_a_shortest_counterexample_that_replays() {
    check_faults(|unique| unique <= LONG_FAULT_SEARCH);
}

/// The rest of `every_fault_is_found_with_a_shortest_counterexample_that_replays`.
#[test]
#[ignore = "the long suite: cargo test -- --ignored (README, The long suite)"]
fn the_largest_fault_searches_find_their_faults() {
    check_faults(|unique| unique > LONG_FAULT_SEARCH);
}

/// Searches every fault whose pinned search size `size_is` accepts (every fault has a pin) and
/// checks its shortest counterexample, its size, its status and its replay; and that every
/// such pin belongs to a fault.
fn check_faults(size_is: impl Fn(u64) -> bool) {
    let (mut changed, mut searched) = (Vec::new(), 0);
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = classify(b, d) else { continue };
            if !c.faulty() {
                continue;
            }
            let row = FAULTY.iter().find(|r| r.0 == d.id() && r.1 == b.name());
            let &(_, _, n, steps, unique) =
                row.unwrap_or_else(|| panic!("{d} {b} has no pinned counterexample"));
            if !size_is(unique) {
                continue;
            }
            searched += 1;
            // These act on Streamable HTTP only.
            let order = if cancelcheck_sim::coverage::http_to_act(b) {
                Order::Http
            } else {
                Order::Reordering
            };
            let mut spec = ExploreSpec::new(d, b, n, order);
            spec.timeouts = true;
            spec.init_timeout = true;
            // This fault acts on progress notifications.
            spec.progress = b == Behaviour::ProgressAfterCancel;
            spec.internal_cancel = b == Behaviour::MisusesServerCancelled;
            // This on task-augmented requests.
            spec.tasks = b == Behaviour::CancelsTaskByNotification;
            // These on requests of the server's own.
            spec.server_requests =
                cancelcheck_sim::coverage::server_requests_to_act(&spec.scenario());
            // These on nested requests.
            spec.nesting = cancelcheck_sim::coverage::nesting_to_act(&spec.scenario());
            let s = spec.scenario();
            let r = search(&s, &opts(), &|_, _, _| {});
            let (schedule, broken) = r
                .finding()
                .cloned()
                .unwrap_or_else(|| panic!("{d} {b}: not found"));
            assert!(
                broken.iter().any(|i| c.breaks.contains(i)),
                "{d} {b}: found {broken:?}, expected one of {:?}",
                c.breaks
            );
            if (schedule.len() - 1, r.unique_states) != (steps, unique) {
                changed.push(format!(
                    "(\"{d}\", \"{b}\", {n}, {}, {}), // was {steps}, {unique}",
                    schedule.len() - 1,
                    r.unique_states
                ));
            }
            // A warning (only SHOULDs or notes broken) is reported, and the search goes on,
            // exactly when the fault breaks no MUST in the dialect.
            let expected = cancelcheck_sim::coverage::expected_status(d, b);
            let got = if r.counterexample.is_some() {
                cancelcheck_properties::Status::Fail
            } else {
                cancelcheck_properties::Status::Warn
            };
            assert_eq!(Some(got), expected, "{d} {b}");
            let replayed = replay(&s, &schedule);
            assert_eq!(
                replayed.applied,
                schedule.len(),
                "{d} {b}: the whole schedule applies"
            );
            let (verdict, events) = (replayed.verdict, replayed.events);
            let replayed: Vec<_> = verdict.violations.iter().map(|v| v.invariant).collect();
            assert!(
                broken.iter().all(|i| replayed.contains(i)),
                "{d} {b}: the schedule does not replay to the same violation: {replayed:?} vs {broken:?}"
            );
            assert!(!events.is_empty());
        }
    }
    assert!(
        changed.is_empty(),
        "counterexample lengths or search sizes changed:\n{}",
        changed.join("\n")
    );
    let pinned = FAULTY.iter().filter(|r| size_is(r.4)).count();
    assert_eq!(searched, pinned, "a pinned fault was not searched");
}

/// Explored bounds are honest: a depth bound makes the search non-exhaustive.
#[test]
fn a_bounded_search_says_so() {
    let s = correct_spec("acp", "honour", 2).scenario();
    let r = search(&s, &search_options(1, Some(4), None, false), &|_, _, _| {});
    assert!(!r.exhaustive);
    assert!(r.counterexample.is_none());
    // A state bound stops at the new state that reaches it, on any number of threads.
    for threads in [1, 2, 3] {
        let r = search(
            &s,
            &search_options(threads, None, Some(100), false),
            &|_, _, _| {},
        );
        assert!(!r.exhaustive && r.bounded_by_states, "{threads}");
        assert_eq!(r.unique_states, 100, "{threads}");
    }
}

/// A memory budget stops a search cleanly on any number of threads (the first thread fills the
/// visited set and the next level as it goes, the others' successors are merged after each
/// level): it says so, and it never held more than the budget.
#[test]
fn a_memory_budget_holds_on_any_number_of_threads() {
    let mut spec = ExploreSpec::new(Dialect::Acp, Behaviour::Honour, 3, Order::Reordering);
    spec.timeouts = true;
    let s = spec.scenario();
    let budget = 8 << 20;
    for threads in [1, 2] {
        let opts = SearchOptions {
            max_memory: Some(budget),
            ..search_options(threads, None, None, false)
        };
        let r = search(&s, &opts, &|_, _, _| {});
        assert!(r.bounded_by_memory && !r.exhaustive, "{threads}");
        assert!(
            r.peak_bytes_held <= budget,
            "{threads}: {}",
            r.peak_bytes_held
        );
        // The budget was used, not set aside: the search held most of it before it stopped.
        assert!(
            r.peak_bytes_held > budget / 2,
            "{threads}: {}",
            r.peak_bytes_held
        );
        assert!(r.unique_states > 5_000, "{threads}: {}", r.unique_states);
    }
}

/// The thread count changes nothing but speed (and memory): the first thread puts each
/// successor straight into the visited set, the others' are merged after each level, and one,
/// two or three threads give the same report, level by level, in both forms (flat rows; plain
/// states under the symmetry reduction), passing, failing and warning.
#[test]
fn threads_do_not_change_results() {
    let mut cases = vec![correct_spec("mcp-2025-11-25", "honour", 2)];
    for (d, behaviour) in [
        (Dialect::Acp, Behaviour::AnswersTwice),
        (Dialect::Abp, Behaviour::SecondCancelNotCancelled),
    ] {
        let mut spec = ExploreSpec::new(d, behaviour, 2, Order::Reordering);
        spec.timeouts = true;
        cases.push(spec);
    }
    let seen = |r: &cancelcheck_sim::explorer::SearchReport| {
        format!(
            "{} {} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {}",
            r.unique_states,
            r.total_states,
            r.reduced_states,
            r.max_depth,
            r.reached,
            r.levels,
            r.counterexample,
            r.warning,
            r.found,
            r.shortening,
            r.flat,
        )
    };
    for spec in &cases {
        let s = spec.scenario();
        for reduced in [false, true] {
            let opts = |threads| SearchOptions {
                symmetry: reduced,
                partial_order: reduced,
                ..search_options(threads, None, None, false)
            };
            let one = search(&s, &opts(1), &|_, _, _| {});
            assert_eq!(one.flat, !reduced, "{spec:?}");
            for threads in [2, 3] {
                let more = search(&s, &opts(threads), &|_, _, _| {});
                assert_eq!(seen(&one), seen(&more), "{spec:?}, {threads} threads");
            }
        }
    }
    // Each kind of outcome is among the cases.
    let outcomes: Vec<_> = cases
        .iter()
        .map(|spec| {
            let r = search(
                &spec.scenario(),
                &search_options(1, None, None, false),
                &|_, _, _| {},
            );
            (r.counterexample.is_some(), r.warning.is_some())
        })
        .collect();
    assert_eq!(outcomes, [(false, false), (true, false), (false, true)]);
}

/// Depth-first visits the same reachable states as breadth-first when unbounded, and finds
/// the same faults (not necessarily by a shortest path).
#[test]
fn depth_first_agrees_with_breadth_first() {
    let dfs = search_options(1, None, None, true);
    let s = correct_spec("lsp", "honour", 2).scenario();
    let a = search(&s, &opts(), &|_, _, _| {});
    let b = search(&s, &dfs, &|_, _, _| {});
    assert!(b.exhaustive && b.counterexample.is_none());
    assert_eq!(a.unique_states, b.unique_states);
    for (d, behaviour) in [
        (Dialect::Acp, Behaviour::AnswersTwice),
        (Dialect::Mcp20260728, Behaviour::AnswersAfterCancel),
        (Dialect::Abp, Behaviour::SecondCancelNotCancelled),
    ] {
        let mut spec = ExploreSpec::new(d, behaviour, 1, Order::Reordering);
        spec.timeouts = true;
        let s = spec.scenario();
        let r = search(&s, &dfs, &|_, _, _| {});
        // ABP's fault breaks a note: a warning, found all the same.
        let (schedule, broken) = r.finding().cloned().expect("depth-first finds the fault");
        let verdict = replay(&s, &schedule).verdict;
        let replayed: Vec<_> = verdict.violations.iter().map(|v| v.invariant).collect();
        assert_eq!(replayed, broken, "{d} {behaviour}");
    }
    let bounded = SearchOptions {
        max_depth: Some(3),
        ..dfs
    };
    assert!(!search(&s, &bounded, &|_, _, _| {}).exhaustive);
}

/// The README's id-reuse finding: reusing the id of an answered request (what JSON-RPC allows)
/// is safe on stdio, and unsafe on a reordering transport: a progress notification sent before
/// the answer can arrive after it and land on the new request, and (the ACP RFD, which has no
/// progress) a cancel that crossed the answer can still be on its way and stop the new
/// request. MCP 2026-07-28 reports it as a hazard (a warning: the search goes on past it).
/// MCP 2025-11-25 and ABP forbid any reuse. (dialect, stdio verdict, reordering verdict) with the
/// counterexample lengths and search sizes pinned; 2 requests, progress, timeouts.
#[test]
fn reusing_an_answered_id() {
    // (dialect, transport, Some(steps) for a counterexample or None for a pass, unique states)
    let expected: &[(&str, Order, Option<usize>, u64)] = &[
        ("acp", Order::Fifo, None, 14892),
        ("acp", Order::Reordering, Some(8), 43818),
        ("acp-rfd", Order::Fifo, None, 1779),
        ("acp-rfd", Order::Reordering, Some(8), 4629),
        ("lsp", Order::Fifo, None, 14892),
        ("lsp", Order::Reordering, Some(8), 43818),
        ("mcp-2026-07-28", Order::Fifo, None, 12460),
        ("mcp-2026-07-28", Order::Reordering, Some(6), 39190),
        ("mcp-2025-11-25", Order::Fifo, Some(7), 108),
        ("abp", Order::Fifo, Some(7), 120),
    ];
    let mut changed = Vec::new();
    for &(d, order, steps, unique) in expected {
        let mut spec = ExploreSpec::new(d.parse().unwrap(), Behaviour::Honour, 2, order);
        spec.progress = true;
        spec.reuse_ids = true;
        spec.timeouts = true;
        let r = search(&spec.scenario(), &opts(), &|_, _, _| {});
        let found = r.finding().map(|(s, broken)| {
            assert_eq!(
                broken.iter().map(|i| i.name()).collect::<Vec<_>>(),
                ["no-live-id-reuse"],
                "{d} {order:?}"
            );
            s.len() - 1
        });
        if (found, r.unique_states) != (steps, unique) {
            changed.push(format!(
                "(\"{d}\", Order::{order:?}, {found:?}, {}), // was {steps:?}, {unique}",
                r.unique_states
            ));
        }
        if found.is_none() {
            assert!(r.exhaustive, "{d} {order:?}");
        }
    }
    assert!(
        changed.is_empty(),
        "results changed:\n{}",
        changed.join("\n")
    );
}

/// The symmetry reduction changes counts, never verdicts: for every behaviour of every dialect
/// at 2 requests (reordering, timeouts, connect timeout), the search with and without it agrees
/// on pass or fail, on the shortest counterexample's length and on what it breaks; and where it
/// applies to a correct behaviour it visits fewer states.
#[test]
#[ignore = "the long suite: cargo test -- --ignored (README, The long suite)"]
fn symmetry_keeps_every_verdict() {
    let with = SearchOptions {
        symmetry: true,
        ..opts()
    };
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            if classify(b, d).is_none() {
                continue;
            }
            for order in [Order::Fifo, Order::Reordering] {
                let mut spec = ExploreSpec::new(d, b, 2, order);
                spec.timeouts = true;
                spec.init_timeout = true;
                spec.progress = b == Behaviour::ProgressAfterCancel;
                spec.internal_cancel = b == Behaviour::MisusesServerCancelled;
                spec.tasks = b == Behaviour::CancelsTaskByNotification;
                let s = spec.scenario();
                let plain = search(&s, &opts(), &|_, _, _| {});
                let reduced = search(&s, &with, &|_, _, _| {});
                let shape = |r: &cancelcheck_sim::explorer::SearchReport| {
                    r.finding()
                        .map(|(path, broken)| (path.len(), broken.clone()))
                };
                assert_eq!(shape(&plain), shape(&reduced), "{d} {b} {order:?}");
                assert!(plain.exhaustive && reduced.exhaustive, "{d} {b} {order:?}");
                if reduced.symmetry && plain.finding().is_none() {
                    assert!(
                        reduced.unique_states < plain.unique_states,
                        "{d} {b} {order:?}: no reduction"
                    );
                }
            }
        }
    }
}

/// Unique and total states with the symmetry reduction, pinned like the plain counts:
/// (dialect, behaviour, requests, unique, total), reordering, timeouts.
const SYMMETRIC: &[(&str, &str, u16, u64, u64)] = &[
    ("acp", "honour", 3, 19764, 90408),
    ("acp-rfd", "honour", 3, 10853, 49806),
    ("acp-rfd", "partial", 3, 10853, 49806),
    ("mcp-2025-11-25", "honour", 3, 21324, 90126),
    ("mcp-2026-07-28", "honour", 3, 21320, 90122),
    ("lsp", "honour", 3, 19764, 90408),
    ("lsp", "finish-first", 3, 24686, 111894),
    ("lsp", "partial", 3, 19764, 90408),
    ("abp", "honour", 2, 68910, 284044),
];

#[test]
fn symmetric_counts_are_pinned_and_every_correct_behaviour_passes() {
    let with = SearchOptions {
        symmetry: true,
        ..opts()
    };
    for &(d, b, n, unique, total) in SYMMETRIC {
        let s = correct_spec(d, b, n).scenario();
        let r = search(&s, &with, &|_, _, _| {});
        assert!(r.symmetry, "{d} {b}: symmetry not applied");
        assert!(r.exhaustive && r.finding().is_none(), "{d} {b} N={n}");
        assert_eq!(
            (r.unique_states, r.total_states),
            (unique, total),
            "{d} {b} N={n}: state counts changed"
        );
    }
}

/// The partial-order reduction (with symmetry on top) keeps every verdict: for every behaviour
/// of every dialect at 2 requests on a reordering link with timeouts, and, where the dialect
/// nests requests, at 2 roots with trees of depth 2 and fan-out 1 (no timeouts) and with the
/// trees its fault needs (`coverage::nesting_to_act`, 1 root or the 2 it needs), the reduced
/// search passes exactly when the full one does; a counterexample it reports replays to the
/// same violation and breaks what the fault claims to break, and the search for a shortest
/// path after it finds one as short as the full search's. It also pins the reduced count of
/// the README's example.
#[test]
#[ignore = "the long suite: cargo test -- --ignored (README, The long suite)"]
fn partial_order_keeps_every_verdict() {
    let reduced_opts = SearchOptions {
        symmetry: true,
        partial_order: true,
        ..opts()
    };
    let (mut applied, mut applied_to_trees) = (0, 0);
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(class) = classify(b, d) else {
                continue;
            };
            // The faults of Streamable HTTP act there only, where no reduction applies.
            if cancelcheck_sim::coverage::http_to_act(b) {
                continue;
            }
            let spec = |n: u16, nesting: Nesting| {
                let mut spec = ExploreSpec::new(d, b, n, Order::Reordering);
                spec.timeouts = nesting.is_flat();
                spec.init_timeout = nesting.is_flat();
                spec.progress = b == Behaviour::ProgressAfterCancel;
                spec.internal_cancel = b == Behaviour::MisusesServerCancelled;
                spec.tasks = b == Behaviour::CancelsTaskByNotification;
                spec.server_requests =
                    cancelcheck_sim::coverage::server_requests_to_act(&spec.scenario());
                spec.nesting = nesting;
                spec
            };
            let acts =
                cancelcheck_sim::coverage::nesting_to_act(&spec(2, Nesting::FLAT).scenario());
            let mut specs = Vec::new();
            // Faults of request trees act only on nested requests.
            if acts.is_flat() {
                specs.push(spec(2, Nesting::FLAT));
            }
            if d.rules().server_work_method.is_some() {
                specs.push(spec(2, nest(2, 1)));
                if !acts.is_flat() {
                    let roots = if b == Behaviour::CancelsSiblingSubtree {
                        2
                    } else {
                        1
                    };
                    specs.push(spec(roots, acts));
                }
            }
            for spec in specs {
                let at = format!("{d} {b} N={} nesting={:?}", spec.requests, spec.nesting);
                let s = spec.scenario();
                if !spec.nesting.is_flat() && !cancelcheck_sim::explorer::partial_order(&s) {
                    // Not applied: nothing to compare (server requests make these large).
                    continue;
                }
                let full = search(&s, &opts(), &|_, _, _| {});
                let reduced = search(&s, &reduced_opts, &|_, _, _| {});
                if spec.nesting.is_flat() {
                    applied += usize::from(reduced.partial_order);
                } else {
                    applied_to_trees +=
                        usize::from(reduced.partial_order && reduced.reduced_states > 0);
                }
                assert_eq!(
                    full.counterexample.is_some(),
                    reduced.counterexample.is_some(),
                    "{at}"
                );
                assert_eq!(
                    full.finding().is_some(),
                    reduced.finding().is_some(),
                    "{at}"
                );
                // Where the configuration is the one the fault acts in. (Without timeouts some
                // faults have nothing to act on in the two roots' trees, and a reused id may
                // first break a rule of trees there.)
                let its_own = spec.nesting.is_flat() || spec.nesting == acts;
                if its_own {
                    assert_eq!(full.finding().is_some(), class.faulty(), "{at}");
                }
                if full.finding().is_none() {
                    assert_eq!(full.reached, reduced.reached, "{at}: the races reached");
                }
                // A reduced search looks again for a shortest path; it finds one as long.
                assert!(
                    reduced.shortest,
                    "{at}: no shortest path after the reduction"
                );
                assert_eq!(
                    full.finding().map(|f| f.0.len()),
                    reduced.finding().map(|f| f.0.len()),
                    "{at}: the reduced search's path is not a shortest one"
                );
                if let Some((schedule, broken)) = reduced.finding() {
                    assert_replays(&s, schedule, broken, &at);
                    assert!(
                        !its_own || broken.iter().any(|i| class.breaks.contains(i)),
                        "{at}: {broken:?}"
                    );
                } else if reduced.partial_order
                    && (spec.nesting.is_flat() || reduced.reduced_states > 0)
                {
                    assert!(
                        reduced.unique_states < full.unique_states,
                        "{at}: no reduction"
                    );
                }
            }
        }
    }
    assert!(
        applied > 30,
        "the reduction applied to only {applied} configurations"
    );
    assert!(
        applied_to_trees > 10,
        "the reduction applied to only {applied_to_trees} configurations of request trees"
    );
    let s = correct_spec("acp", "honour", 3).scenario();
    let r = search(&s, &reduced_opts, &|_, _, _| {});
    assert!(r.exhaustive && r.finding().is_none() && r.partial_order && r.symmetry);
    assert_eq!((r.unique_states, r.total_states), (1040, 1722));
    // ABP at 3 requests, out of reach without the reductions, is exhaustive with them.
    let s = correct_spec("abp", "honour", 3).scenario();
    let r = search(&s, &reduced_opts, &|_, _, _| {});
    assert!(r.exhaustive && r.finding().is_none() && r.partial_order && r.symmetry);
    assert_eq!((r.unique_states, r.total_states), (81986, 171014));
}

/// Duplication (one response or notification delivered twice) breaks no correct behaviour:
/// every one is explored exhaustively with it (2 requests, 1 for ABP; reordering, timeouts),
/// counts pinned: (dialect, behaviour, requests, unique, total).
const DUPLICATED: &[(&str, &str, u16, u64, u64)] = &[
    ("acp", "honour", 2, 35988, 119956),
    ("acp-rfd", "honour", 2, 19932, 66529),
    ("acp-rfd", "partial", 2, 19932, 66529),
    ("mcp-2025-11-25", "honour", 2, 37462, 114846),
    ("mcp-2026-07-28", "honour", 2, 27680, 83242),
    ("lsp", "honour", 2, 35988, 119956),
    ("lsp", "finish-first", 2, 42246, 140006),
    ("lsp", "partial", 2, 35988, 119956),
    ("abp", "honour", 1, 3942, 9872),
];

#[test]
fn duplication_breaks_no_correct_behaviour() {
    let mut changed = Vec::new();
    for d in Dialect::ALL {
        for b in Behaviour::all().filter(|b| classify(*b, d).is_some_and(|c| !c.faulty())) {
            let row = DUPLICATED.iter().find(|r| r.0 == d.id() && r.1 == b.name());
            let &(_, _, n, unique, total) =
                row.unwrap_or_else(|| panic!("{d} {b} is not explored with duplication"));
            let mut spec = correct_spec(d.id(), b.name(), n);
            spec.duplicate = true;
            let r = search(&spec.scenario(), &opts(), &|_, _, _| {});
            assert!(r.exhaustive && r.finding().is_none(), "{d} {b}");
            if (r.unique_states, r.total_states) != (unique, total) {
                changed.push(format!(
                    "(\"{d}\", \"{b}\", {n}, {}, {}), // was {unique}, {total}",
                    r.unique_states, r.total_states
                ));
            }
            assert!(
                !r.partial_order,
                "{d} {b}: duplication shares a budget across requests"
            );
        }
    }
    assert!(
        changed.is_empty(),
        "counts changed:\n{}",
        changed.join("\n")
    );
}

/// Reusing an answered id is safe on stdio (`reusing_an_answered_id`) only while the transport
/// never duplicates: a copy of the answer still on the wire then answers the new request.
/// (dialect, shortest counterexample steps, unique states); 2 requests, stdio, timeouts.
#[test]
fn duplication_makes_reusing_an_answered_id_unsafe_on_stdio() {
    let mut changed = Vec::new();
    for (d, steps, unique) in [
        ("acp", 8, 14588),
        ("acp-rfd", 8, 8476),
        ("lsp", 8, 14588),
        ("mcp-2026-07-28", 6, 9060),
    ] {
        let mut spec = ExploreSpec::new(d.parse().unwrap(), Behaviour::Honour, 2, Order::Fifo);
        spec.reuse_ids = true;
        spec.timeouts = true;
        spec.duplicate = true;
        let s = spec.scenario();
        let r = search(&s, &opts(), &|_, _, _| {});
        let (schedule, broken) = r.finding().cloned().expect("found");
        let names: Vec<_> = broken.iter().map(|i| i.name()).collect();
        assert_eq!(names, ["no-live-id-reuse"], "{d}");
        if (schedule.len() - 1, r.unique_states) != (steps, unique) {
            changed.push(format!(
                "(\"{d}\", {}, {}), // was {steps}, {unique}",
                schedule.len() - 1,
                r.unique_states
            ));
        }
        let replayed = replay(&s, &schedule);
        assert_eq!(replayed.applied, schedule.len(), "{d}");
        assert!(
            replayed
                .events
                .iter()
                .any(|e| matches!(e.event, cancelcheck_properties::Event::Duplicated { .. })),
            "{d}: the counterexample duplicates a message"
        );
    }
    assert!(
        changed.is_empty(),
        "results changed:\n{}",
        changed.join("\n")
    );
}

/// What a search concluded, for comparing searches: whether a MUST broke, whether anything
/// broke, the invariants the reported finding breaks, and (where the search went to the end:
/// no MUST broken) the races it reached.
fn conclusion(
    r: &cancelcheck_sim::explorer::SearchReport,
) -> (
    bool,
    bool,
    Option<Vec<cancelcheck_properties::InvariantId>>,
    Option<cancelcheck_properties::PropertySet>,
) {
    let mut broken = r.finding().map(|f| f.1.clone());
    if let Some(b) = &mut broken {
        b.sort_by_key(|i| i.name());
    }
    (
        r.counterexample.is_some(),
        r.finding().is_some(),
        broken,
        r.counterexample.is_none().then_some(r.reached),
    )
}

/// Request trees `depth` levels deep, with `fanout` requests sent on behalf of each request
/// above the deepest level.
fn nest(depth: u8, fanout: u8) -> Nesting {
    Nesting { depth, fanout }
}

/// The request trees the verdict-equality tests explore besides flat requests, where the
/// dialect has nested requests: (roots, shape, with timeouts too). Each is small enough to
/// search without the reductions.
const TREES: &[(u16, (u8, u8), bool)] = &[
    (1, (2, 1), true),
    (1, (2, 2), true),
    (1, (3, 1), true),
    (1, (3, 2), false),
    (2, (2, 1), false),
];

/// The configurations `stdio_partial_order_keeps_every_verdict` compares for behaviour `b` of
/// `d`: flat requests at 1 to 3 (2 with timeouts in ABP and with progress notifications),
/// without and with timeouts (request and connect timeouts), each with the server requests its
/// fault needs; then, where `d` nests requests, the [`TREES`], and the trees the fault needs
/// to act (`coverage::nesting_to_act`) at 1 and 2 roots.
fn stdio_configurations(d: Dialect, b: Behaviour) -> Vec<ExploreSpec> {
    let mut specs = Vec::new();
    let spec = |n: u16, timeouts: bool, nesting: Nesting| {
        let mut spec = ExploreSpec::new(d, b, n, Order::Fifo);
        spec.timeouts = timeouts;
        spec.init_timeout = timeouts;
        spec.progress = b == Behaviour::ProgressAfterCancel;
        spec.internal_cancel = b == Behaviour::MisusesServerCancelled;
        spec.server_requests = cancelcheck_sim::coverage::server_requests_to_act(&spec.scenario());
        spec.nesting = nesting;
        spec
    };
    for timeouts in [false, true] {
        // ABP's repeated cancels and MCP's progress make 3 requests with timeouts large.
        let heavy = d == Dialect::Abp || b == Behaviour::ProgressAfterCancel;
        let most = if heavy && timeouts { 2 } else { 3 };
        for n in 1..=most {
            specs.push(spec(n, timeouts, Nesting::FLAT));
        }
    }
    if d.rules().server_work_method.is_none() {
        return specs;
    }
    for &(n, (depth, fanout), timeouts) in TREES {
        specs.push(spec(n, false, nest(depth, fanout)));
        if timeouts {
            specs.push(spec(n, true, nest(depth, fanout)));
        }
    }
    let acts = cancelcheck_sim::coverage::nesting_to_act(&spec(1, false, Nesting::FLAT).scenario());
    if !acts.is_flat() {
        for n in 1..=2 {
            specs.push(spec(n, false, acts));
            specs.push(spec(n, true, acts));
        }
    }
    specs
}

/// The partial-order reduction on a FIFO link (stdio) keeps every verdict, for one dialect:
/// for every behaviour it applies to, in every configuration of [`stdio_configurations`]
/// (request trees included), the search with the reduction alone and (where the symmetry
/// reduction applies too) with both agree with the search without reductions on whether a MUST
/// or anything broke, on the invariants the reported finding breaks, and (when no MUST broke,
/// so every search ran to the end) on the races reached, which decide a vacuous verdict. A
/// reduced finding replays to the same violation. Returns in how many of the reduced searches
/// the reduction applied and visited fewer states, and how many there were; and the same for
/// searches of request trees alone.
fn stdio_partial_order_keeps_every_verdict(d: Dialect) -> [(usize, usize); 2] {
    let por = SearchOptions {
        partial_order: true,
        ..opts()
    };
    let both = SearchOptions {
        symmetry: true,
        ..por
    };
    let mut counts = [(0, 0); 2];
    for b in Behaviour::all() {
        let Some(class) = classify(b, d) else {
            continue;
        };
        for spec in stdio_configurations(d, b) {
            let s = spec.scenario();
            if !cancelcheck_sim::explorer::partial_order(&s) {
                // Not applied: the searches with it are the search without it.
                continue;
            }
            let full = search(&s, &opts(), &|_, _, _| {});
            assert!(!full.partial_order);
            let want = conclusion(&full);
            let mut reduced = vec![(search(&s, &por, &|_, _, _| {}), "por")];
            if cancelcheck_sim::explorer::symmetric(&s) {
                reduced.push((search(&s, &both, &|_, _, _| {}), "por+symmetry"));
            }
            let tally = &mut counts[usize::from(!spec.nesting.is_flat())];
            for (reduced, how) in reduced {
                let at = format!(
                    "{d} {b} N={} nesting={:?} timeouts={} {how}",
                    spec.requests, spec.nesting, spec.timeouts
                );
                tally.1 += 1;
                assert_eq!(conclusion(&reduced), want, "{at}");
                assert!(
                    reduced.exhaustive || reduced.counterexample.is_some(),
                    "{at}"
                );
                if reduced.partial_order && reduced.unique_states < full.unique_states {
                    tally.0 += 1;
                }
                let Some((schedule, broken)) = reduced.finding() else {
                    continue;
                };
                assert!(
                    broken.iter().any(|i| class.breaks.contains(i)),
                    "{at}: {broken:?}"
                );
                assert_replays(&s, schedule, broken, &at);
            }
        }
    }
    counts
}

/// The schedule a reduced search reported applies whole and breaks again what it broke.
fn assert_replays(
    s: &cancelcheck_sim::Scenario,
    schedule: &[u32],
    broken: &[cancelcheck_properties::InvariantId],
    at: &str,
) {
    let replayed = replay(s, schedule);
    assert_eq!(replayed.applied, schedule.len(), "{at}");
    let again: Vec<_> = replayed
        .verdict
        .violations
        .iter()
        .map(|v| v.invariant)
        .collect();
    assert!(broken.iter().all(|i| again.contains(i)), "{at}: {again:?}");
}

/// [`stdio_partial_order_keeps_every_verdict`] for `d`, which must also have applied the
/// reduction in at least two thirds of its searches, and of its searches of request trees
/// (so the equality is not vacuous).
fn stdio_partial_order_applies_and_keeps_every_verdict(d: Dialect) {
    let [(applied, of), (trees, of_trees)] = stdio_partial_order_keeps_every_verdict(d);
    assert!(
        applied * 3 >= of * 2,
        "{d}: the reduction applied in only {applied} of {of} searches"
    );
    assert!(
        trees * 3 >= of_trees * 2 && (of_trees > 0) == d.rules().server_work_method.is_some(),
        "{d}: the reduction applied in only {trees} of {of_trees} searches of request trees"
    );
}

#[test]
fn stdio_partial_order_keeps_every_verdict_acp() {
    stdio_partial_order_applies_and_keeps_every_verdict(Dialect::Acp);
}

#[test]
fn stdio_partial_order_keeps_every_verdict_acp_rfd() {
    stdio_partial_order_applies_and_keeps_every_verdict(Dialect::AcpRfd);
}

#[test]
fn stdio_partial_order_keeps_every_verdict_mcp_2025() {
    stdio_partial_order_applies_and_keeps_every_verdict(Dialect::Mcp20251125);
}

#[test]
fn stdio_partial_order_keeps_every_verdict_mcp_2026() {
    stdio_partial_order_applies_and_keeps_every_verdict(Dialect::Mcp20260728);
}

#[test]
fn stdio_partial_order_keeps_every_verdict_lsp() {
    stdio_partial_order_applies_and_keeps_every_verdict(Dialect::Lsp);
}

#[test]
fn stdio_partial_order_keeps_every_verdict_abp() {
    stdio_partial_order_applies_and_keeps_every_verdict(Dialect::Abp);
}

/// A step named so that it can be found again in another state: a delivery, loss or
/// duplication also by the message it takes (positions move on a reordering link, whose queues
/// are kept sorted).
#[derive(Clone, Copy, PartialEq, Debug)]
struct Named(
    cancelcheck_sim::explorer::Step,
    Option<cancelcheck_model::Message>,
);

impl Named {
    /// `step`, one of `e`'s enabled steps, named.
    fn of(e: &cancelcheck_sim::explorer::Explorer, step: cancelcheck_sim::explorer::Step) -> Named {
        use cancelcheck_sim::explorer::Step as S;
        let msg = match step {
            S::Deliver { to, index } | S::Lose { to, index } | S::Duplicate { to, index } => {
                e.in_flight(to).get(usize::from(index)).copied()
            }
            _ => None,
        };
        Named(step, msg)
    }

    /// The same step in `e` (taking the first copy of its message), if its message is there.
    fn find(
        self,
        e: &cancelcheck_sim::explorer::Explorer,
    ) -> Option<cancelcheck_sim::explorer::Step> {
        use cancelcheck_sim::explorer::Step as S;
        let Named(step, Some(m)) = self else {
            return Some(self.0);
        };
        let at = |to: cancelcheck_model::Party| {
            e.in_flight(to)
                .iter()
                .position(|x| *x == m)
                .map(|i| i as u16)
        };
        Some(match step {
            S::Deliver { to, .. } => S::Deliver { to, index: at(to)? },
            S::Lose { to, .. } => S::Lose { to, index: at(to)? },
            S::Duplicate { to, .. } => S::Duplicate { to, index: at(to)? },
            other => other,
        })
    }
}

/// The state after applying `steps` in order to the state `bytes` packs, and what those steps
/// did (the invariants they broke, the races they reached, by name); `None` if a step is not
/// enabled when its turn comes.
fn after_steps(
    template: &mut cancelcheck_sim::explorer::Explorer,
    s: &cancelcheck_sim::Scenario,
    bytes: &[u8],
    steps: &[Named],
) -> Option<(Vec<u8>, std::collections::BTreeSet<&'static str>)> {
    template.unpack(bytes).expect("a packed state unpacks");
    let mut enabled = Vec::new();
    for &named in steps {
        template.enabled(s, &mut enabled);
        let step = named.find(template)?;
        if !enabled.contains(&step) {
            return None;
        }
        template.apply(s, step);
    }
    let did = template
        .world()
        .checker()
        .broken()
        .iter()
        .chain(template.reached().iter().collect::<Vec<_>>().iter())
        .map(|i| i.name())
        .collect();
    let mut packed = Vec::new();
    template.pack(&mut packed);
    Some((packed, did))
}

/// Checks the reduction's claim directly (on either transport), state by state: from every
/// reachable state (of `spec`) where it expands fewer steps than are enabled, along every path
/// of steps outside its set, each step of the set stays enabled, and every step `b` taken there
/// commutes with every step `a` of the set: `a` then `b` and `b` then `a` are both possible,
/// reach the same state, and `a` first breaks and reaches everything `b` first does (the
/// reduction may move `a` before `b`). Returns the states where a set was checked.
fn ample_sets_are_persistent(spec: &ExploreSpec) -> usize {
    const OUTSIDE_DEPTH: usize = 3;
    use cancelcheck_sim::explorer::{Explorer, initial_scenarios};
    use std::collections::HashSet;
    let s = spec.scenario();
    assert!(cancelcheck_sim::explorer::partial_order(&s), "{spec:?}");
    let mut checked = 0;
    let (mut all, mut ample, mut enabled) = (Vec::new(), Vec::new(), Vec::new());
    for (root, init) in initial_scenarios(&s).iter().enumerate() {
        let mut e = Explorer::new(init, root as u8, false);
        let mut t = Explorer::new(init, root as u8, false);
        let mut bytes = Vec::new();
        e.pack(&mut bytes);
        let mut seen = HashSet::from([bytes.clone()]);
        let mut stack = vec![bytes];
        while let Some(state) = stack.pop() {
            e.unpack(&state).expect("unpacks");
            e.to_expand(init, true, &mut all, &mut ample);
            let set: Vec<Named> = ample.iter().map(|p| Named::of(&e, p.1)).collect();
            for &step in &all {
                t.unpack(&state).expect("unpacks");
                t.apply(init, step);
                let mut next = Vec::new();
                t.pack(&mut next);
                if !t.violated() && seen.insert(next.clone()) {
                    stack.push(next);
                }
            }
            if set.len() == all.len() {
                continue;
            }
            checked += 1;
            // Every state reachable from here by steps outside the set.
            let mut outside = HashSet::from([state.clone()]);
            let mut todo = vec![(state.clone(), 0)];
            while let Some((u, depth)) = todo.pop() {
                e.unpack(&u).expect("unpacks");
                e.enabled(init, &mut enabled);
                let here: Vec<_> = set
                    .iter()
                    .map(|a| {
                        let step = a.find(&e).filter(|step| enabled.contains(step));
                        step.unwrap_or_else(|| panic!("{spec:?}: {a:?} disabled by {all:?}"))
                    })
                    .collect();
                let others: Vec<Named> = enabled
                    .iter()
                    .filter(|b| !here.contains(b))
                    .map(|&b| Named::of(&e, b))
                    .collect();
                for b in others {
                    for &a in &set {
                        let ab = after_steps(&mut t, init, &u, &[a, b]);
                        let ba = after_steps(&mut t, init, &u, &[b, a]);
                        let (Some(ab), Some(ba)) = (ab, ba) else {
                            panic!(
                                "{spec:?}: {a:?} and {b:?} do not commute (one disables the other)"
                            );
                        };
                        assert_eq!(ab.0, ba.0, "{spec:?}: {a:?} and {b:?} do not commute");
                        assert!(
                            ab.1.is_superset(&ba.1),
                            "{spec:?}: {a:?} moved before {b:?} loses {:?}",
                            ba.1.difference(&ab.1).collect::<Vec<_>>()
                        );
                    }
                    if depth == OUTSIDE_DEPTH {
                        continue;
                    }
                    e.unpack(&u).expect("unpacks");
                    e.apply(init, b.0);
                    if !e.violated() {
                        let mut next = Vec::new();
                        e.pack(&mut next);
                        if outside.insert(next.clone()) {
                            todo.push((next, depth + 1));
                        }
                    }
                }
            }
        }
    }
    checked
}

/// The ample sets on stdio are persistent (see `ample_sets_are_persistent`) in every dialect,
/// for every behaviour the reduction applies to, at 2 requests with timeouts, a connect
/// timeout and progress, and with loss, internal cancellation and a malformed cancel.
#[test]
fn stdio_ample_sets_are_persistent() {
    let mut checked = 0;
    for d in Dialect::ALL {
        for b in Behaviour::all().filter(|b| classify(*b, d).is_some()) {
            // ABP's repeated acknowledged cancels make 2 requests large.
            let n = if d == Dialect::Abp { 1 } else { 2 };
            let mut spec = ExploreSpec::new(d, b, n, Order::Fifo);
            spec.timeouts = true;
            spec.init_timeout = true;
            spec.progress = b == Behaviour::ProgressAfterCancel;
            spec.internal_cancel = b == Behaviour::MisusesServerCancelled;
            if !cancelcheck_sim::explorer::partial_order(&spec.scenario()) {
                continue;
            }
            checked += ample_sets_are_persistent(&spec);
        }
        let n = if d == Dialect::Abp { 1 } else { 2 };
        let mut spec = ExploreSpec::new(d, Behaviour::Honour, n, Order::Fifo);
        spec.loss = true;
        spec.internal_cancel = true;
        spec.malformed_cancel = true;
        checked += ample_sets_are_persistent(&spec);
    }
    assert!(checked > 50_000, "only {checked} states checked");
}

/// The ample sets of request trees are persistent (see `ample_sets_are_persistent`), on stdio
/// and on a reordering link, in every dialect with nested requests: for every behaviour the
/// reduction applies to, one root with the trees its fault needs (`coverage::nesting_to_act`;
/// depth 2, fan-out 1 for the others) and timeouts, a connect timeout and progress; and for
/// `honour`, one root with a fan-out of 2 (with timeouts, and with progress too) and with a
/// depth of 3 (timeouts), two roots (depth 2, fan-out 1; timeouts on stdio), and loss,
/// internal cancellation and a malformed cancel. (Two roots with timeouts on stdio are where
/// a timeout meets an answer its peer holds back for a nested request.) One test a link, so
/// that `cargo test` runs the two side by side.
#[test]
fn ample_sets_of_request_trees_are_persistent_on_stdio() {
    let checked = ample_sets_of_request_trees_are_persistent(Order::Fifo);
    assert!(checked > 5_000, "only {checked} states checked");
}

/// See [`ample_sets_of_request_trees_are_persistent_on_stdio`].
#[test]
fn ample_sets_of_request_trees_are_persistent_on_a_reordering_link() {
    let checked = ample_sets_of_request_trees_are_persistent(Order::Reordering);
    assert!(checked > 100, "only {checked} states checked");
}

/// How many states of the searches above on `order` had their ample sets checked.
fn ample_sets_of_request_trees_are_persistent(order: Order) -> usize {
    let mut checked = 0;
    for d in Dialect::ALL
        .into_iter()
        .filter(|d| d.rules().server_work_method.is_some())
    {
        let spec = |b: Behaviour, n: u16, nesting: Nesting, timeouts: bool| {
            let mut spec = ExploreSpec::new(d, b, n, order);
            spec.timeouts = timeouts;
            spec.init_timeout = timeouts;
            spec.progress = b == Behaviour::ProgressAfterCancel;
            spec.internal_cancel = b == Behaviour::MisusesServerCancelled;
            spec.nesting = nesting;
            spec
        };
        let mut specs: Vec<ExploreSpec> = Behaviour::all()
            .filter(|b| classify(*b, d).is_some())
            .map(|b| {
                let acts = cancelcheck_sim::coverage::nesting_to_act(
                    &spec(b, 1, nest(2, 1), false).scenario(),
                );
                let nesting = if acts.is_flat() { nest(2, 1) } else { acts };
                spec(b, 1, nesting, true)
            })
            .collect();
        specs.push(spec(Behaviour::Honour, 1, nest(2, 2), true));
        specs.push(spec(Behaviour::Honour, 1, nest(3, 1), true));
        // Two roots (with timeouts on stdio only: on a reordering link they are large).
        specs.push(spec(Behaviour::Honour, 2, nest(2, 1), order == Order::Fifo));
        let mut progress = spec(Behaviour::Honour, 1, nest(2, 2), true);
        progress.progress = true;
        specs.push(progress);
        let mut lossy = spec(Behaviour::Honour, 1, nest(2, 2), false);
        lossy.loss = true;
        lossy.internal_cancel = true;
        lossy.malformed_cancel = true;
        specs.push(lossy);
        for spec in specs {
            if cancelcheck_sim::explorer::partial_order(&spec.scenario()) {
                checked += ample_sets_are_persistent(&spec);
            }
        }
    }
    checked
}

/// Unique and total states on stdio with the partial-order reduction, pinned like the other
/// counts: (dialect, behaviour, requests, timeouts, with symmetry too, unique, total). Every
/// one passes or is vacuous, as without the reduction.
const STDIO_REDUCED: &[(&str, &str, u16, bool, bool, u64, u64)] = &[
    ("acp", "honour", 3, true, false, 35082, 67176),
    ("acp", "honour", 3, true, true, 6874, 13160),
    ("acp", "honour", 6, false, true, 48372, 83488),
    ("mcp-2025-11-25", "honour", 3, true, true, 2442, 4660),
    ("abp", "honour", 3, false, true, 21536, 31250),
];

#[test]
fn stdio_reduced_counts_are_pinned() {
    let mut changed = Vec::new();
    for &(d, b, n, timeouts, symmetry, unique, total) in STDIO_REDUCED {
        let mut spec = ExploreSpec::new(d.parse().unwrap(), b.parse().unwrap(), n, Order::Fifo);
        spec.timeouts = timeouts;
        spec.init_timeout = timeouts;
        let with = SearchOptions {
            symmetry,
            partial_order: true,
            ..opts()
        };
        let r = search(&spec.scenario(), &with, &|_, _, _| {});
        assert!(r.partial_order && r.symmetry == symmetry, "{d} {b} N={n}");
        assert!(r.exhaustive && r.finding().is_none(), "{d} {b} N={n}");
        if (r.unique_states, r.total_states) != (unique, total) {
            changed.push(format!(
                "(\"{d}\", \"{b}\", {n}, {timeouts}, {symmetry}, {}, {}), // was {unique}, {total}",
                r.unique_states, r.total_states
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "counts changed:\n{}",
        changed.join("\n")
    );
}

/// Request trees of every shape up to depth 2 and fan-out 2, explored exhaustively with the
/// reductions the command line applies by default, pinned like the other counts: (dialect,
/// transport, roots, depth, fan-out, unique states). One root of each shape on both
/// transports; two roots on stdio, and on a reordering link up to fan-out 1 (two roots with a
/// fan-out of 2 there are millions of states).
const TREE_SHAPES: &[(&str, Order, u16, u8, u8, u64)] = &[
    ("acp", Order::Fifo, 1, 1, 1, 28),
    ("acp", Order::Fifo, 1, 1, 2, 28),
    ("acp", Order::Fifo, 1, 2, 1, 96),
    ("acp", Order::Fifo, 1, 2, 2, 274),
    ("acp", Order::Fifo, 2, 1, 1, 138),
    ("acp", Order::Fifo, 2, 1, 2, 138),
    ("acp", Order::Fifo, 2, 2, 1, 4902),
    ("acp", Order::Fifo, 2, 2, 2, 93756),
    ("acp", Order::Reordering, 1, 1, 1, 40),
    ("acp", Order::Reordering, 1, 1, 2, 40),
    ("acp", Order::Reordering, 1, 2, 1, 210),
    ("acp", Order::Reordering, 1, 2, 2, 2854),
    ("acp", Order::Reordering, 2, 1, 1, 158),
    ("acp", Order::Reordering, 2, 2, 1, 90940),
    ("acp-rfd", Order::Fifo, 1, 1, 1, 24),
    ("acp-rfd", Order::Fifo, 1, 1, 2, 24),
    ("acp-rfd", Order::Fifo, 1, 2, 1, 74),
    ("acp-rfd", Order::Fifo, 1, 2, 2, 191),
    ("acp-rfd", Order::Fifo, 2, 1, 1, 102),
    ("acp-rfd", Order::Fifo, 2, 1, 2, 102),
    ("acp-rfd", Order::Fifo, 2, 2, 1, 2987),
    ("acp-rfd", Order::Fifo, 2, 2, 2, 50375),
    ("acp-rfd", Order::Reordering, 1, 1, 1, 31),
    ("acp-rfd", Order::Reordering, 1, 1, 2, 31),
    ("acp-rfd", Order::Reordering, 1, 2, 1, 113),
    ("acp-rfd", Order::Reordering, 1, 2, 2, 1015),
    ("acp-rfd", Order::Reordering, 2, 1, 1, 98),
    ("acp-rfd", Order::Reordering, 2, 2, 1, 27446),
    ("mcp-2025-11-25", Order::Fifo, 1, 1, 1, 26),
    ("mcp-2025-11-25", Order::Fifo, 1, 1, 2, 26),
    ("mcp-2025-11-25", Order::Fifo, 1, 2, 1, 70),
    ("mcp-2025-11-25", Order::Fifo, 1, 2, 2, 164),
    ("mcp-2025-11-25", Order::Fifo, 2, 1, 1, 122),
    ("mcp-2025-11-25", Order::Fifo, 2, 1, 2, 122),
    ("mcp-2025-11-25", Order::Fifo, 2, 2, 1, 2424),
    ("mcp-2025-11-25", Order::Fifo, 2, 2, 2, 28154),
    ("mcp-2025-11-25", Order::Reordering, 1, 1, 1, 38),
    ("mcp-2025-11-25", Order::Reordering, 1, 1, 2, 38),
    ("mcp-2025-11-25", Order::Reordering, 1, 2, 1, 122),
    ("mcp-2025-11-25", Order::Reordering, 1, 2, 2, 818),
    ("mcp-2025-11-25", Order::Reordering, 2, 1, 1, 148),
    ("mcp-2025-11-25", Order::Reordering, 2, 2, 1, 24388),
    ("mcp-2026-07-28", Order::Fifo, 1, 1, 1, 22),
    ("mcp-2026-07-28", Order::Fifo, 1, 1, 2, 22),
    ("mcp-2026-07-28", Order::Fifo, 1, 2, 1, 62),
    ("mcp-2026-07-28", Order::Fifo, 1, 2, 2, 130),
    ("mcp-2026-07-28", Order::Fifo, 2, 1, 1, 118),
    ("mcp-2026-07-28", Order::Fifo, 2, 1, 2, 118),
    ("mcp-2026-07-28", Order::Fifo, 2, 2, 1, 1848),
    ("mcp-2026-07-28", Order::Fifo, 2, 2, 2, 12278),
    ("mcp-2026-07-28", Order::Reordering, 1, 1, 1, 34),
    ("mcp-2026-07-28", Order::Reordering, 1, 1, 2, 34),
    ("mcp-2026-07-28", Order::Reordering, 1, 2, 1, 104),
    ("mcp-2026-07-28", Order::Reordering, 1, 2, 2, 450),
    ("mcp-2026-07-28", Order::Reordering, 2, 1, 1, 144),
    ("mcp-2026-07-28", Order::Reordering, 2, 2, 1, 17662),
    ("lsp", Order::Fifo, 1, 1, 1, 28),
    ("lsp", Order::Fifo, 1, 1, 2, 28),
    ("lsp", Order::Fifo, 1, 2, 1, 96),
    ("lsp", Order::Fifo, 1, 2, 2, 274),
    ("lsp", Order::Fifo, 2, 1, 1, 138),
    ("lsp", Order::Fifo, 2, 1, 2, 138),
    ("lsp", Order::Fifo, 2, 2, 1, 4902),
    ("lsp", Order::Fifo, 2, 2, 2, 93756),
    ("lsp", Order::Reordering, 1, 1, 1, 40),
    ("lsp", Order::Reordering, 1, 1, 2, 40),
    ("lsp", Order::Reordering, 1, 2, 1, 168),
    ("lsp", Order::Reordering, 1, 2, 2, 1796),
    ("lsp", Order::Reordering, 2, 1, 1, 158),
    ("lsp", Order::Reordering, 2, 2, 1, 50662),
];

/// Every shape of [`TREE_SHAPES`] in every dialect with nested requests: `honour` passes and
/// the search is exhaustive, with the partial-order reduction applied (it applies to trees on
/// both transports); and every fault of request trees that acts within these shapes (all but
/// `forgets-grandchild`, which needs a grandchild) is found, on both transports, in a tree of
/// depth 2 and fan-out 2 (two roots of fan-out 1 for `cancels-sibling-subtree`), breaking what
/// it claims to break.
#[test]
fn every_tree_shape_up_to_two_by_two_is_explored() {
    let reduced = SearchOptions {
        symmetry: true,
        partial_order: true,
        ..opts()
    };
    let mut changed = Vec::new();
    let nested = Dialect::ALL
        .into_iter()
        .filter(|d| d.rules().server_work_method.is_some());
    for d in nested.clone() {
        for order in [Order::Fifo, Order::Reordering] {
            for roots in 1..=2u16 {
                for (depth, fanout) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
                    if order == Order::Reordering && roots == 2 && fanout == 2 {
                        continue;
                    }
                    let mut spec = ExploreSpec::new(d, Behaviour::Honour, roots, order);
                    spec.nesting = nest(depth, fanout);
                    let r = search(&spec.scenario(), &reduced, &|_, _, _| {});
                    let at = format!("{d} {order:?} {roots} roots, {depth}x{fanout}");
                    assert!(r.exhaustive && r.finding().is_none(), "{at}");
                    assert!(r.partial_order, "{at}: the reduction did not apply");
                    if order == Order::Fifo || roots == 2 {
                        assert!(r.reduced_states > 0, "{at}: no state was reduced");
                    }
                    let row = TREE_SHAPES.iter().find(|x| {
                        (x.0, x.1, x.2, x.3, x.4) == (d.id(), order, roots, depth, fanout)
                    });
                    if row.map(|x| x.5) != Some(r.unique_states) {
                        changed.push(format!(
                            "(\"{d}\", Order::{order:?}, {roots}, {depth}, {fanout}, {}), // was {:?}",
                            r.unique_states,
                            row.map(|x| x.5)
                        ));
                    }
                }
            }
        }
    }
    assert!(
        changed.is_empty(),
        "counts changed:\n{}",
        changed.join("\n")
    );
    let mut found = 0;
    for d in nested {
        let faults = Behaviour::all().filter(|b| {
            classify(*b, d).is_some_and(|c| c.faulty()) && *b != Behaviour::ForgetsGrandchild
        });
        for b in faults {
            let mut probe = ExploreSpec::new(d, b, 1, Order::Fifo);
            if cancelcheck_sim::coverage::nesting_to_act(&probe.scenario()).is_flat() {
                continue;
            }
            let sibling = b == Behaviour::CancelsSiblingSubtree;
            probe.requests = if sibling { 2 } else { 1 };
            probe.workers = probe.requests;
            probe.nesting = if sibling { nest(2, 1) } else { nest(2, 2) };
            for order in [Order::Fifo, Order::Reordering] {
                let spec = ExploreSpec { order, ..probe };
                let r = search(&spec.scenario(), &reduced, &|_, _, _| {});
                let broken = r.finding().map(|f| f.1.clone()).unwrap_or_default();
                let claims = classify(b, d).map(|c| c.breaks).unwrap_or_default();
                assert!(
                    broken.iter().any(|i| claims.contains(i)),
                    "{d} {b} {order:?}: found {broken:?}, expected one of {claims:?}"
                );
                found += 1;
            }
        }
        assert!(
            found >= 2,
            "{d}: only {found} searches for faults of request trees"
        );
    }
}
