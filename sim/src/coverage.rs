//! What a run claims to check, and what it takes to check it: the races a scenario can reach,
//! the faults that can act in it, and the option that would let an unreached race or an inert
//! fault act. A pass that never reached a race, or whose fault never acted, is vacuous.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::breaks::{breaks_in, classify, is_fault};
use cancelcheck_properties::{InvariantId, Status, Strength};

use crate::scenario::{Nesting, Scenario};

/// The verdict a behaviour earns in `dialect` once its fault acts: `pass` for a correct one,
/// `fail` where it breaks a MUST there, `warn` where it breaks only SHOULDs. `None` where the
/// behaviour does not exist in the dialect.
pub fn expected_status(dialect: Dialect, behaviour: Behaviour) -> Option<Status> {
    let faulty = classify(behaviour, dialect)?.faulty();
    let must = breaks_in(behaviour, dialect).iter().any(|i| {
        i.info()
            .application(dialect)
            .is_some_and(|a| a.strength == Strength::Must)
    });
    Some(Status::judged(faulty && must, faulty, true))
}

/// A change to a scenario that lets an unreached race be reached or an inert fault act: what
/// a `vacuous` verdict offers as its first next step, as flags of the command that ran.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fix {
    /// Request trees of at least this shape (`--nesting DxF`).
    Nesting(Nesting),
    /// At least this many requests from the client (`--requests N`).
    Requests(u16),
    /// This many server workers, fewer than the requests (`--workers N`).
    Workers(u16),
    /// At least this many requests from the server (`--server-requests N`).
    ServerRequests(u16),
    /// A connect timeout on `initialize` (`workload.init_timeout`).
    InitTimeout,
    /// Request timeouts (`workload.timeout`).
    Timeouts,
    /// Progress notifications (`workload.progress_permille`).
    Progress,
    /// Requests their receiver gives up on its own (`workload.internal_cancel_permille`).
    InternalCancels,
    /// Cancels at all (`workload.cancel_permille`).
    Cancels,
    /// Task-augmented requests (`workload.task_permille`; `--tasks`).
    Tasks,
    /// A peer that declares no cancellation support (`workload.cancel_support: false`).
    NoCancelSupport,
    /// A link that may reorder (`--transport reordering`).
    Reordering,
    /// Streamable HTTP (`--transport http`).
    Http,
    /// Connections that drop (`link.disconnect_permille`).
    Disconnects,
    /// Nothing in the scenario stands in the way: more seeds may reach it (a larger search,
    /// for the explorer: a reordering link, or one request more).
    MoreSeeds,
}

/// Why a run proves less than it claims, and what would make it prove it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Vacuity {
    /// The reason, for people (`vacuous_because`).
    pub why: String,
    /// The change that removes the reason.
    pub fix: Fix,
}

/// Whether `race` belongs to `scenario`'s transport. The races of Streamable HTTP's streams
/// (`race-close-crosses-answer`, `race-resume-after-loss`, and with progress
/// `race-progress-after-close`) exist on it only. On it, where closing the stream is the
/// cancel (MCP 2026-07-28), nothing written on the stream is read after the close, so a cancel
/// crossing the answer is `race-close-crosses-answer`, and no answer arrives after a cancel.
pub fn race_on_transport(race: InvariantId, scenario: &Scenario) -> bool {
    let http = scenario.link.order == crate::link::Order::Http;
    let closes_cancel = scenario.dialect.rules().stream_close_cancels;
    match race {
        InvariantId::RaceCloseCrossesAnswer | InvariantId::RaceResumeAfterLoss => http,
        InvariantId::RaceProgressAfterClose => {
            http && (scenario.workload.progress_permille > 0 || scenario.swarm)
        }
        InvariantId::RaceCancelCrossesAnswer | InvariantId::RaceAnswerAfterCancel => {
            !(http && closes_cancel)
        }
        _ => true,
    }
}

/// What would let `race` be reached where `scenario` did not reach it.
pub fn race_hint(race: InvariantId, scenario: &Scenario) -> (&'static str, Fix) {
    let w = &scenario.workload;
    match race {
        InvariantId::RaceCancelBeforeWork if w.workers >= w.requests => (
            "a request must wait for a worker: --requests 2 or more and --workers below it (workload.workers)",
            if w.requests < 2 {
                Fix::Requests(2)
            } else {
                Fix::Workers(1)
            },
        ),
        InvariantId::RaceTimeoutWithAnswerInFlight if w.timeout.is_none() => {
            ("--timeouts (workload.timeout)", Fix::Timeouts)
        }
        InvariantId::RaceCancelCrossesAnswer | InvariantId::RaceAnswerAfterCancel
            if w.cancel_permille == 0 =>
        {
            ("cancels (workload.cancel_permille above 0)", Fix::Cancels)
        }
        _ => (
            "more seeds, more requests, or a reordering link",
            Fix::MoreSeeds,
        ),
    }
}

/// The fewest server requests `scenario`'s fault needs to act: a request of the server's with
/// the id of one of the client's ordinary requests (`cancel-hits-own-request`: the server's
/// second, where the client's id 0 is its `initialize`), the server's request 0 in the hands
/// of a faulty client (`ignores-cancel-for-id-zero`, see `Behaviour::party`), or any request of
/// a server that cancels where it may not (`server-cancels`).
pub fn server_requests_to_act(scenario: &Scenario) -> u16 {
    let init = scenario.dialect.rules().initialize_method.is_some();
    match scenario.behaviour {
        Behaviour::CancelHitsOwnRequest => 1 + u16::from(init),
        Behaviour::IgnoresCancelForIdZero if init => 1,
        Behaviour::ServerCancels => 1,
        _ => 0,
    }
}

/// Whether behaviour `b` acts on Streamable HTTP only (a stream's close is what it mistakes).
pub fn http_to_act(b: Behaviour) -> bool {
    matches!(
        b,
        Behaviour::WorksAfterClose | Behaviour::CancelsOnDisconnect
    )
}

/// The request trees a behaviour of request trees needs to act: a grandchild for
/// `forgets-grandchild` (depth 3), nested requests for the others (depth 2, one each); no
/// nesting for every other behaviour.
pub fn nesting_to_act(scenario: &Scenario) -> Nesting {
    match scenario.behaviour {
        Behaviour::ForgetsGrandchild => Nesting {
            depth: 3,
            fanout: 1,
        },
        Behaviour::AnswersParentFirst
        | Behaviour::CancelsSiblingSubtree
        | Behaviour::SpawnsAfterCancel
        | Behaviour::LeavesChildPending
        | Behaviour::SelectsAfterCancel
        | Behaviour::ForwardsCancelUnrewritten => Nesting {
            depth: 2,
            fanout: 1,
        },
        _ => Nesting::FLAT,
    }
}

/// What would let the fault of `scenario`'s behaviour act, where a run showed no sign of it.
pub fn fault_hint(scenario: &Scenario) -> (&'static str, Fix) {
    let w = &scenario.workload;
    let trees = nesting_to_act(scenario);
    match scenario.behaviour {
        Behaviour::GivesUpSilently
            if w.timeout.is_none()
                && scenario.dialect.rules().give_up_signal
                    == cancelcheck_model::dialect::GiveUpSignal::OnTimeout =>
        {
            (
                "it acts when a request's timeout fires (workload.timeout)",
                Fix::Timeouts,
            )
        }
        Behaviour::CancelsInitialize if w.init_timeout.is_none() => (
            "it acts when the connect timeout fires (workload.init_timeout)",
            Fix::InitTimeout,
        ),
        Behaviour::ActivityAfterAnswer | Behaviour::ProgressAfterCancel
            if w.progress_permille == 0 =>
        {
            (
                "it acts on progress notifications (workload.progress_permille)",
                Fix::Progress,
            )
        }
        Behaviour::MisusesServerCancelled if w.internal_cancel_permille == 0 => (
            "it acts on a request the server gives up on its own (workload.internal_cancel_permille)",
            Fix::InternalCancels,
        ),
        Behaviour::CancelCancelsAll | Behaviour::ReusesLiveId if w.requests < 2 => (
            "it needs two requests (workload.requests)",
            Fix::Requests(2),
        ),
        Behaviour::CancelHitsOwnRequest if w.server_requests < server_requests_to_act(scenario) => {
            (
                "it needs a request of the server's own with the id of one of the client's (workload.server_requests)",
                Fix::ServerRequests(server_requests_to_act(scenario)),
            )
        }
        Behaviour::ServerCancels if w.server_requests == 0 => (
            "it acts on the server's own requests (workload.server_requests)",
            Fix::ServerRequests(1),
        ),
        Behaviour::IgnoresCancelForIdZero
            if w.server_requests < server_requests_to_act(scenario) =>
        {
            (
                "it acts on the client's handling of the server's request 0 (workload.server_requests)",
                Fix::ServerRequests(server_requests_to_act(scenario)),
            )
        }
        Behaviour::ForgetsGrandchild if w.nesting.depth < 3 || w.nesting.fanout == 0 => (
            "it acts on the requests sent for the server's nested requests (workload.nesting)",
            Fix::Nesting(join(w.nesting, trees)),
        ),
        Behaviour::AnswersParentFirst
        | Behaviour::CancelsSiblingSubtree
        | Behaviour::SpawnsAfterCancel
        | Behaviour::LeavesChildPending
        | Behaviour::SelectsAfterCancel
        | Behaviour::ForwardsCancelUnrewritten
            if w.nesting.is_flat() =>
        {
            (
                "it acts on nested requests (workload.nesting)",
                Fix::Nesting(trees),
            )
        }
        Behaviour::CancelsSiblingSubtree if w.requests < 2 => (
            "it needs two requests with children (workload.requests)",
            Fix::Requests(2),
        ),
        Behaviour::CancelsTaskByNotification if w.task_permille == 0 => (
            "it acts on task-augmented requests (workload.task_permille)",
            Fix::Tasks,
        ),
        b if http_to_act(b) && scenario.link.order != crate::link::Order::Http => (
            "it acts on Streamable HTTP only (--transport http)",
            Fix::Http,
        ),
        Behaviour::CancelsOnDisconnect if scenario.link.disconnect_permille == 0 => (
            "it acts when a stream's connection drops (link.disconnect_permille)",
            Fix::Disconnects,
        ),
        Behaviour::CancelsWithoutCapability if w.cancel_support == Some(true) => (
            "it acts only when the peer declares no cancellation support (workload.cancel_support)",
            Fix::NoCancelSupport,
        ),
        _ if w.cancel_permille == 0 => (
            "it acts on cancels (workload.cancel_permille above 0)",
            Fix::Cancels,
        ),
        _ => (
            "it never acted in this configuration: more seeds, more requests, timeouts or a reordering link",
            Fix::MoreSeeds,
        ),
    }
}

/// The smallest request trees that hold both `a` and `b` (the larger depth and fan-out).
pub fn join(a: Nesting, b: Nesting) -> Nesting {
    if a.is_flat() {
        return b;
    }
    if b.is_flat() {
        return a;
    }
    Nesting {
        depth: a.depth.max(b.depth),
        fanout: a.fanout.max(b.fanout),
    }
}

/// The verdict of runs of `scenario` (one seed, a range of seeds, or one schedule) that broke
/// a MUST (`must`), broke anything (`broke`) and reached the races `reached`: `fail`, `warn`,
/// else `vacuous` with why (see [`vacuity`]), else `pass` ([`Status::judged`]).
pub fn verdict(
    scenario: &Scenario,
    must: bool,
    broke: bool,
    reached: cancelcheck_properties::PropertySet,
) -> (Status, Vec<Vacuity>) {
    let vacuous = if broke {
        Vec::new()
    } else {
        vacuity(scenario, crate::runner::applicable_races(scenario), reached)
    };
    (Status::judged(must, broke, vacuous.is_empty()), vacuous)
}

/// Why a run that broke nothing is vacuous, if it is: for a faulty behaviour, that its fault
/// never acted; then the races of `applicable` it did not reach; each with the change that
/// would remove the reason. Empty when the pass is a real one.
pub fn vacuity(
    scenario: &Scenario,
    applicable: cancelcheck_properties::PropertySet,
    reached: cancelcheck_properties::PropertySet,
) -> Vec<Vacuity> {
    let mut why = Vec::new();
    if is_fault(scenario.behaviour, scenario.dialect) {
        let (hint, fix) = fault_hint(scenario);
        why.push(Vacuity {
            why: format!(
                "the faulty behavior {} never acted: {hint}",
                scenario.behaviour
            ),
            fix,
        });
    }
    for race in applicable.iter().filter(|r| !reached.contains(*r)) {
        let (hint, fix) = race_hint(race, scenario);
        why.push(Vacuity {
            why: format!("{race} never reached: {hint}"),
            fix,
        });
    }
    why
}
