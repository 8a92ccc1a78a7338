//! Scenarios: everything a run needs besides its seed. The same shape is a scenario file
//! (`--scenario FILE`) and the `config` inside a trace, so a trace's config can be edited and
//! run again.
//!
//! Times are virtual microseconds; probabilities are per-mille integers (no floating point).

use crate::coverage::Fix;
use crate::link::{Latency, LinkConfig, Order};
use crate::rng::SimRng;

use cancelcheck_model::endpoint::IdPolicy;
use cancelcheck_model::{Behaviour, Dialect, Party};
use cancelcheck_properties::breaks;
use serde::{Deserialize, Serialize};

/// A whole run's configuration.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The protocol.
    pub dialect: Dialect,
    /// The behaviour under test: it acts in its own role (a responder fault on the server,
    /// a requester fault on the client; `ignores-cancel-for-id-zero` on the client where the
    /// client's id 0 is its `initialize`, see `Behaviour::party`); the other party behaves
    /// correctly.
    /// (Spelled `behavior` in files, as the command line's flag is.)
    #[serde(default = "honour", rename = "behavior")]
    pub behaviour: Behaviour,
    /// What the client asks for and when it cancels.
    #[serde(default)]
    pub workload: Workload,
    /// Both directions of the connection.
    #[serde(default)]
    pub link: LinkConfig,
    /// Swarm mode: each seed draws its own fault mix (order, loss, duplication, disconnect,
    /// timeouts, workers) before the run, and the mix is reported with the verdict.
    #[serde(default)]
    pub swarm: bool,
    /// A bound on events per run; a run that reaches it ends without being quiescent.
    #[serde(default = "default_max_events")]
    pub max_events: u64,
}

fn honour() -> Behaviour {
    Behaviour::Honour
}

fn default_max_events() -> u64 {
    100_000
}

/// The client's requests.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Workload {
    /// Ordinary requests the client sends once the session is open.
    pub requests: u16,
    /// Gap between consecutive sends.
    pub spacing: Latency,
    /// How long the server's work for one request takes.
    pub work: Latency,
    /// Requests the server runs at once; the rest queue (so a cancel can arrive before work starts).
    pub workers: u16,
    /// Chance that the client cancels a request.
    pub cancel_permille: u16,
    /// Delay from a request's send to its cancel (spans before, during and after the work).
    pub cancel_delay: Latency,
    /// Chance that a cancelled request is cancelled a second time (idempotency).
    pub repeat_cancel_permille: u16,
    /// Each request's timeout (internal cancellation), if any.
    pub timeout: Option<Latency>,
    /// Connect timeout on `initialize`, if any.
    pub init_timeout: Option<Latency>,
    /// Chance that the work reports progress halfway.
    pub progress_permille: u16,
    /// Chance that the server gives up a request on its own while working on it (internal
    /// cancellation: a timeout, a resource limit), where the dialect says how it answers then.
    pub internal_cancel_permille: u16,
    /// Chance, per request, that the client also sends a malformed cancel (no id, or an id of
    /// the wrong type) at some point, which the server must ignore.
    pub malformed_cancel_permille: u16,
    /// How the client numbers its requests.
    pub ids: Ids,
    /// Whether the server declares cancellation support (ACP RFD `cancellation.request`);
    /// `null`: drawn from the seed, half and half.
    pub cancel_support: Option<bool>,
    /// Ordinary requests the server sends to the client once its session is open (ACP
    /// `session/request_permission`, MCP `sampling/createMessage`, LSP
    /// `workspace/configuration`; ABP's app makes none), spaced, cancelled (where the dialect
    /// lets the server cancel), given up and mangled like the client's. Absent from a file: 0
    /// (files written before the field).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub server_requests: u16,
    /// Whether the client declares cancellation support in `initialize` (ACP RFD
    /// `clientCapabilities.cancellation.request`); `null`: true, except that with server
    /// requests in the ACP RFD it is drawn from the seed, half and half.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cancel_support: Option<bool>,
    /// Request trees: while a party works on a received request, it sends requests of its own
    /// on that request's behalf (nested requests, in the other direction), down to a depth.
    /// Absent from a file: no nesting.
    #[serde(default, skip_serializing_if = "Nesting::is_flat")]
    pub nesting: Nesting,
    /// Chance that a request of the client's is task-augmented (MCP 2025-11-25's
    /// `params.task`), so that it is cancelled with `tasks/cancel`. Absent from a file, and in
    /// the built-in default: 0, and nothing is drawn for it (every seed draws as before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub task_permille: u16,
}

/// The share of the client's requests that are task-augmented where a fault needs tasks to
/// act (`cancels-task-by-notification`): every one.
pub const TASK_PERMILLE_TO_ACT: u16 = 1000;

/// The chance that a run's connection drops, where a scenario moves to Streamable HTTP
/// ([`Scenario::use_http`]) in a dialect where a dropped stream is no cancel: half the runs,
/// so that a request's stream drops during its work and is resumed.
pub const HTTP_DISCONNECT_PERMILLE: u16 = 500;

fn is_zero(n: &u16) -> bool {
    *n == 0
}

/// The request trees of a dialect's built-in scenario: two requests nested under each
/// request a party works on, as in the ACP text's own example (a cascading cancellation of a
/// prompt turn with nested requests), in every dialect whose parties send requests of their
/// own; ABP's app sends none.
pub fn default_nesting(dialect: Dialect) -> Nesting {
    if dialect.rules().server_work_method.is_some() {
        Nesting {
            depth: 2,
            fanout: 2,
        }
    } else {
        Nesting::FLAT
    }
}

/// The shape of request trees: how deep (a request sent by an application is at depth 1)
/// and how many requests a handler sends on behalf of each request it works on.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nesting {
    /// The deepest level, from 1 (flat) to [`Nesting::MAX`].
    pub depth: u8,
    /// Requests a handler sends on behalf of each request it works on above the deepest
    /// level, from 0 to [`Nesting::MAX`].
    pub fanout: u8,
}

impl Nesting {
    /// The largest depth and fan-out.
    pub const MAX: u8 = 3;

    /// No nesting.
    pub const FLAT: Nesting = Nesting {
        depth: 1,
        fanout: 0,
    };

    /// Whether no request is ever nested.
    pub fn is_flat(&self) -> bool {
        self.depth <= 1 || self.fanout == 0
    }
}

impl Default for Nesting {
    fn default() -> Self {
        Nesting::FLAT
    }
}

/// Request numbering (by default from 0, integers, no reuse).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ids {
    /// The first id.
    pub first: i64,
    /// Ids as JSON strings of the same digits.
    pub strings: bool,
    /// A new request reuses the id of the latest answered one (allowed by JSON-RPC; judged by
    /// `no-live-id-reuse`).
    pub reuse_answered: bool,
}

impl From<Ids> for IdPolicy {
    fn from(i: Ids) -> Self {
        IdPolicy {
            first: i.first,
            strings: i.strings,
            reuse_answered: i.reuse_answered,
        }
    }
}

impl Default for Workload {
    /// The built-in default: four requests, one worker, half of them cancelled at any point of
    /// their life, timeouts on requests and on `initialize`, progress sometimes, the server
    /// giving up a request on its own sometimes, a malformed cancel sometimes, the server's
    /// cancellation support drawn from the seed.
    fn default() -> Self {
        Workload {
            requests: 4,
            spacing: Latency::Uniform(0, 200),
            work: Latency::Exponential(400),
            workers: 1,
            cancel_permille: 500,
            cancel_delay: Latency::Uniform(0, 1500),
            repeat_cancel_permille: 200,
            timeout: Some(Latency::Uniform(500, 4000)),
            init_timeout: Some(Latency::Uniform(100, 1500)),
            progress_permille: 300,
            internal_cancel_permille: 100,
            malformed_cancel_permille: 100,
            ids: Ids::default(),
            cancel_support: None,
            server_requests: 2,
            client_cancel_support: None,
            nesting: Nesting::FLAT,
            task_permille: 0,
        }
    }
}

impl Scenario {
    /// The built-in default scenario for `dialect`: the default workload over a FIFO (stdio)
    /// link with uniform latency, no faults.
    pub fn default_for(dialect: Dialect) -> Self {
        let mut workload = Workload::default();
        if dialect.rules().server_work_method.is_none() {
            workload.server_requests = 0;
        }
        Scenario {
            dialect,
            behaviour: Behaviour::Honour,
            workload,
            link: LinkConfig::default(),
            swarm: false,
            max_events: default_max_events(),
        }
    }

    /// The scenario `cancelcheck run` runs and `cancelcheck scenario` prints when no file is
    /// given: the dialect's default (`default_for`) with its request trees
    /// ([`default_nesting`]), plus what `behaviour`'s fault needs to act there (deeper trees,
    /// the server's own requests, task-augmented requests; see [`Scenario::adjusted_for`]).
    pub fn built_in(dialect: Dialect, behaviour: Behaviour) -> Self {
        let mut s = Scenario::unadjusted(dialect, behaviour);
        if let Some((_, fix)) = s.adjusted_for() {
            match fix {
                Fix::Nesting(n) => s.workload.nesting = n,
                Fix::ServerRequests(n) => s.workload.server_requests = n,
                Fix::Tasks => s.workload.task_permille = TASK_PERMILLE_TO_ACT,
                Fix::Http => s.use_http(),
                _ => {}
            }
        }
        s
    }

    /// Why and how `built_in` changes the dialect's default for `behaviour`, if it does.
    pub fn built_in_adjustment(
        dialect: Dialect,
        behaviour: Behaviour,
    ) -> Option<(&'static str, Fix)> {
        Scenario::unadjusted(dialect, behaviour).adjusted_for()
    }

    /// The dialect's default with its request trees and `behaviour`, before the change its
    /// fault may need.
    fn unadjusted(dialect: Dialect, behaviour: Behaviour) -> Self {
        let mut s = Scenario::default_for(dialect);
        s.behaviour = behaviour;
        s.workload.nesting = default_nesting(dialect);
        s
    }

    /// Where the built-in scenario of this dialect would leave this scenario's fault inert
    /// for want of request trees, server requests or tasks: why, and the change `built_in`
    /// makes.
    pub fn adjusted_for(&self) -> Option<(&'static str, Fix)> {
        if !breaks::is_fault(self.behaviour, self.dialect)
            || self.dialect.rules().server_work_method.is_none()
        {
            return None;
        }
        // What would let the fault act, where that is the trees or the server's requests.
        let (why, fix) = crate::coverage::fault_hint(self);
        matches!(
            fix,
            Fix::Nesting(_) | Fix::ServerRequests(_) | Fix::Tasks | Fix::Http
        )
        .then_some((why, fix))
    }

    /// Moves the scenario to Streamable HTTP; where a dropped stream is no cancel (MCP
    /// 2025-11-25) and the connection never drops, it drops in
    /// [`HTTP_DISCONNECT_PERMILLE`] of the runs (each drop, of every stream a request the
    /// server works on holds, is resumed).
    pub fn use_http(&mut self) {
        self.link.order = Order::Http;
        if !self.dialect.rules().stream_close_cancels && self.link.disconnect_permille == 0 {
            self.link.disconnect_permille = HTTP_DISCONNECT_PERMILLE;
        }
    }

    /// The client's and the server's behaviours: the one under test on the party it acts on
    /// (see `Behaviour::party`), `honour` on the other.
    pub fn behaviours(&self) -> (Behaviour, Behaviour) {
        match self.behaviour.party(self.dialect) {
            Party::Client => (self.behaviour, Behaviour::Honour),
            Party::Server => (Behaviour::Honour, self.behaviour),
        }
    }

    /// Checks every field a run relies on; the error names the field and what was expected.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let err = |field: &str, expected: String| {
            Err(ScenarioError {
                field: field.to_string(),
                expected,
            })
        };
        if breaks::classify(self.behaviour, self.dialect).is_none() {
            let ok: Vec<&str> = Behaviour::all()
                .filter(|b| breaks::classify(*b, self.dialect).is_some())
                .map(|b| b.name())
                .collect();
            return err(
                "behavior",
                format!(
                    "a behavior that exists in {}: {}",
                    self.dialect,
                    ok.join(", ")
                ),
            );
        }
        let w = &self.workload;
        if w.requests == 0 || w.requests > 64 {
            return err("workload.requests", "an integer from 1 to 64".into());
        }
        if w.server_requests > 64 {
            return err("workload.server_requests", "an integer from 0 to 64".into());
        }
        if w.server_requests > 0 && self.dialect.rules().server_work_method.is_none() {
            return err(
                "workload.server_requests",
                format!("0: the server makes no requests in {}", self.dialect),
            );
        }
        if w.workers == 0 {
            return err("workload.workers", "an integer of at least 1".into());
        }
        if !(1..=Nesting::MAX).contains(&w.nesting.depth) {
            return err("workload.nesting.depth", "an integer from 1 to 3".into());
        }
        if w.nesting.fanout > Nesting::MAX {
            return err("workload.nesting.fanout", "an integer from 0 to 3".into());
        }
        if !w.nesting.is_flat() && self.dialect.rules().server_work_method.is_none() {
            return err(
                "workload.nesting",
                format!(
                    "{{\"depth\": 1, \"fanout\": 0}}: in {} the server makes no requests, so none nest",
                    self.dialect
                ),
            );
        }
        if w.task_permille > 0 && self.dialect.rules().task_cancel_method.is_none() {
            return err(
                "workload.task_permille",
                format!(
                    "0: {} has no task-augmented requests (only mcp-2025-11-25 has tasks)",
                    self.dialect
                ),
            );
        }
        for (field, p) in [
            ("workload.cancel_permille", w.cancel_permille),
            ("workload.repeat_cancel_permille", w.repeat_cancel_permille),
            ("workload.progress_permille", w.progress_permille),
            (
                "workload.internal_cancel_permille",
                w.internal_cancel_permille,
            ),
            (
                "workload.malformed_cancel_permille",
                w.malformed_cancel_permille,
            ),
            ("workload.task_permille", w.task_permille),
            ("link.loss_permille", self.link.loss_permille),
            ("link.duplicate_permille", self.link.duplicate_permille),
            ("link.disconnect_permille", self.link.disconnect_permille),
        ] {
            if p > 1000 {
                return err(field, "a per-mille value from 0 to 1000".into());
            }
        }
        for (field, l) in [
            ("workload.spacing", Some(&w.spacing)),
            ("workload.work", Some(&w.work)),
            ("workload.cancel_delay", Some(&w.cancel_delay)),
            ("workload.timeout", w.timeout.as_ref()),
            ("workload.init_timeout", w.init_timeout.as_ref()),
            ("link.latency", Some(&self.link.latency)),
        ] {
            if let Some(l) = l
                && let Err(why) = l.validate()
            {
                return err(field, why);
            }
        }
        if self.link.order == Order::Http {
            if !cancelcheck_model::http::has_streamable_http(self.dialect) {
                return err(
                    "link.order",
                    format!(
                        "fifo or reordering: Streamable HTTP (http) is MCP's transport (mcp-2025-11-25, mcp-2026-07-28), not {}'s",
                        self.dialect
                    ),
                );
            }
            for (field, p) in [
                ("link.loss_permille", self.link.loss_permille),
                ("link.duplicate_permille", self.link.duplicate_permille),
            ] {
                if p > 0 {
                    return err(
                        field,
                        "0 on Streamable HTTP (http): a stream loses and duplicates nothing; what drops is a stream's connection (link.disconnect_permille)".into(),
                    );
                }
            }
        }
        if self.max_events == 0 {
            return err("max_events", "an integer of at least 1".into());
        }
        Ok(())
    }

    /// The scenario one seed actually runs: itself with every seed-drawn choice made (the
    /// server's cancellation support if unset, then in swarm mode the fault mix), drawn
    /// first, in this fixed order, before anything else.
    pub fn for_seed(&self, rng: &mut SimRng) -> (Scenario, Option<SwarmMix>) {
        let mut s = self.clone();
        if s.workload.cancel_support.is_none() {
            s.workload.cancel_support = Some(rng.chance(500));
        }
        if s.workload.client_cancel_support.is_none()
            && s.workload.server_requests > 0
            && s.dialect.rules().negotiated
        {
            s.workload.client_cancel_support = Some(rng.chance(500));
        }
        if !self.swarm {
            return (s, None);
        }
        let mix = SwarmMix {
            order: if rng.chance(500) {
                Order::Reordering
            } else {
                Order::Fifo
            },
            loss_permille: if rng.chance(250) {
                20 + rng.below(80) as u16
            } else {
                0
            },
            duplicate_permille: if rng.chance(250) {
                20 + rng.below(80) as u16
            } else {
                0
            },
            disconnect_permille: if rng.chance(150) { 1000 } else { 0 },
            timeouts: rng.chance(500),
            workers: 1 + rng.below(3) as u16,
        };
        // Streamable HTTP stays itself, with neither loss nor duplication (drawn all the
        // same, so that the draws after them do not move).
        let mix = match s.link.order {
            Order::Http => SwarmMix {
                order: Order::Http,
                loss_permille: 0,
                duplicate_permille: 0,
                ..mix
            },
            _ => mix,
        };
        s.link.order = mix.order;
        s.link.loss_permille = mix.loss_permille;
        s.link.duplicate_permille = mix.duplicate_permille;
        s.link.disconnect_permille = mix.disconnect_permille;
        if mix.timeouts && s.workload.timeout.is_none() {
            s.workload.timeout = Some(Latency::Uniform(200, 2000));
        }
        s.workload.workers = mix.workers;
        (s, Some(mix))
    }
}

/// The fault mix a swarm-mode seed drew.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct SwarmMix {
    /// Delivery order.
    pub order: Order,
    /// Loss.
    pub loss_permille: u16,
    /// Duplication.
    pub duplicate_permille: u16,
    /// Chance of a disconnect during the run.
    pub disconnect_permille: u16,
    /// Whether requests time out.
    pub timeouts: bool,
    /// Server workers.
    pub workers: u16,
}

impl core::fmt::Display for SwarmMix {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "order={} loss={}‰ dup={}‰ disconnect={} timeouts={} workers={}",
            self.order.name(),
            self.loss_permille,
            self.duplicate_permille,
            if self.disconnect_permille > 0 {
                "yes"
            } else {
                "no"
            },
            if self.timeouts { "yes" } else { "no" },
            self.workers
        )
    }
}

/// A scenario field that does not hold what a run needs.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ScenarioError {
    /// Dotted path of the field (`workload.requests`).
    pub field: String,
    /// What was expected there.
    pub expected: String,
}

impl core::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "field `{}`: expected {}", self.field, self.expected)
    }
}

impl std::error::Error for ScenarioError {}
