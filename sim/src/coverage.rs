//! What a run claims to check, and what it takes to check it: the races a scenario can reach,
//! the faults that can act in it, and the option that would let an unreached race or an inert
//! fault act. A pass that never reached a race, or whose fault never acted, is vacuous.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::{InvariantId, Status, Strength};

use crate::scenario::{Nesting, Scenario};

/// The verdict a behaviour earns in `dialect` once its fault acts: `pass` for a correct one,
/// `fail` where it breaks a MUST there, `warn` where it breaks only SHOULDs. `None` where the
/// behaviour does not exist in the dialect.
pub fn expected_status(dialect: Dialect, behaviour: Behaviour) -> Option<Status> {
    let c = behaviour.classify(dialect)?;
    if !c.faulty {
        return Some(Status::Pass);
    }
    let must = cancelcheck_properties::invariant::breaks_in(behaviour, dialect)
        .iter()
        .any(|i| {
            i.info()
                .application(dialect)
                .is_some_and(|a| a.strength == Strength::Must)
        });
    Some(if must { Status::Fail } else { Status::Warn })
}

/// What would let `race` be reached where `scenario` did not reach it (explorer flags, then
/// the scenario field).
pub fn race_hint(race: InvariantId, scenario: &Scenario) -> &'static str {
    match race {
        InvariantId::RaceCancelBeforeWork
            if scenario.workload.workers >= scenario.workload.requests =>
        {
            "a request must wait for a worker: --requests 2 or more and --workers below it (workload.workers)"
        }
        InvariantId::RaceTimeoutWithAnswerInFlight if scenario.workload.timeout.is_none() => {
            "--timeouts (workload.timeout)"
        }
        InvariantId::RaceCancelCrossesAnswer | InvariantId::RaceAnswerAfterCancel
            if scenario.workload.cancel_permille == 0 =>
        {
            "cancels (workload.cancel_permille above 0)"
        }
        _ => "more requests, more seeds, or --transport reordering",
    }
}

/// The fewest server requests `scenario`'s fault needs to act: a request of the server's with
/// the id of one of the client's ordinary requests (`cancel-hits-own-request`: the server's
/// second, where the client's id 0 is its `initialize`), the server's request 0 in the hands
/// of a faulty client (`ignores-cancel-for-id-zero`, see `Behaviour::party`), or any request of
/// a server that cancels where it may not (`server-cancels`).
pub fn server_requests_to_act(scenario: &Scenario) -> u16 {
    let init = scenario.dialect.rules().initialize_method.is_some();
    match scenario.behavior {
        Behaviour::CancelHitsOwnRequest => 1 + u16::from(init),
        Behaviour::IgnoresCancelForIdZero if init => 1,
        Behaviour::ServerCancels => 1,
        _ => 0,
    }
}

/// The request trees a behaviour of request trees needs to act: a grandchild for
/// `forgets-grandchild` (depth 3), nested requests for the others (depth 2, one each); no
/// nesting for every other behaviour.
pub fn nesting_to_act(scenario: &Scenario) -> Nesting {
    match scenario.behavior {
        Behaviour::ForgetsGrandchild => Nesting {
            depth: 3,
            fanout: 1,
        },
        Behaviour::AnswersParentFirst
        | Behaviour::CancelsSiblingSubtree
        | Behaviour::SpawnsAfterCancel
        | Behaviour::LeavesChildPending
        | Behaviour::ForwardsCancelUnrewritten => Nesting {
            depth: 2,
            fanout: 1,
        },
        _ => Nesting::FLAT,
    }
}

/// What would let the fault of `scenario`'s behaviour act, where a run showed no sign of it.
pub fn fault_hint(scenario: &Scenario) -> &'static str {
    let w = &scenario.workload;
    match scenario.behavior {
        Behaviour::CancelsInitialize if w.init_timeout.is_none() => {
            "it acts when the connect timeout fires: --init-timeout (workload.init_timeout)"
        }
        Behaviour::ActivityAfterAnswer | Behaviour::ProgressAfterCancel
            if w.progress_permille == 0 =>
        {
            "it acts on progress notifications: --progress (workload.progress_permille)"
        }
        Behaviour::CancelCancelsAll | Behaviour::ReusesLiveId if w.requests < 2 => {
            "it needs two requests: --requests 2 (workload.requests)"
        }
        Behaviour::CancelHitsOwnRequest if w.server_requests < server_requests_to_act(scenario) => {
            if scenario.dialect.rules().initialize_method.is_some() {
                "it needs a request of the server's own with the id of one of the client's: --server-requests 2 (workload.server_requests)"
            } else {
                "it needs a request of the server's own with the id of one of the client's: --server-requests 1 (workload.server_requests)"
            }
        }
        Behaviour::ServerCancels if w.server_requests == 0 => {
            "it acts on the server's own requests: --server-requests 1 (workload.server_requests)"
        }
        Behaviour::IgnoresCancelForIdZero
            if w.server_requests < server_requests_to_act(scenario) =>
        {
            "it acts on the client's handling of the server's request 0: --server-requests 1 (workload.server_requests)"
        }
        Behaviour::ForgetsGrandchild if w.nesting.depth < 3 || w.nesting.fanout == 0 => {
            "it acts on the requests sent for the server's nested requests: --nesting 3x1 (workload.nesting)"
        }
        Behaviour::AnswersParentFirst
        | Behaviour::CancelsSiblingSubtree
        | Behaviour::SpawnsAfterCancel
        | Behaviour::LeavesChildPending
        | Behaviour::ForwardsCancelUnrewritten
            if w.nesting.is_flat() =>
        {
            "it acts on nested requests: --nesting 2x1 (workload.nesting)"
        }
        Behaviour::CancelsSiblingSubtree if w.requests < 2 => {
            "it needs two requests with children: --requests 2 (workload.requests)"
        }
        Behaviour::CancelsWithoutCapability if w.cancel_support == Some(true) => {
            "it acts only when the peer declares no cancellation support (workload.cancel_support)"
        }
        _ if w.cancel_permille == 0 => "it acts on cancels: workload.cancel_permille above 0",
        _ => {
            "it never acted in this configuration: more requests, --timeouts or --transport reordering"
        }
    }
}

/// Why a run that broke nothing is vacuous, if it is: the races of `applicable` it did not
/// reach (each with what would reach it), and, for a faulty behaviour, that its fault never
/// acted. Empty when the pass is a real one.
pub fn vacuity(
    scenario: &Scenario,
    applicable: cancelcheck_properties::PropertySet,
    reached: cancelcheck_properties::PropertySet,
) -> Vec<String> {
    let mut why = Vec::new();
    if scenario
        .behavior
        .classify(scenario.dialect)
        .is_some_and(|c| c.faulty)
    {
        why.push(format!(
            "the faulty behavior {} never acted: {}",
            scenario.behavior,
            fault_hint(scenario)
        ));
    }
    for race in applicable.iter().filter(|r| !reached.contains(*r)) {
        why.push(format!(
            "{} never reached: {}",
            race,
            race_hint(race, scenario)
        ));
    }
    why
}
