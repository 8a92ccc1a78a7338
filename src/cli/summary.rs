//! What a run ran, in one line: the parts of a scenario that decide what it can find.

use super::{plural, transport_name};
use cancelcheck_sim::Scenario;
use cancelcheck_sim::link::Latency;
use serde::Serialize;

/// A latency as people read it, in virtual microseconds.
pub fn latency(l: &Latency) -> String {
    match l {
        Latency::Fixed(v) => format!("{v} µs"),
        Latency::Uniform(a, b) => format!("{a}..{b} µs"),
        Latency::Exponential(m) => format!("exponential, mean {m} µs"),
        Latency::Bimodal {
            fast,
            slow,
            slow_permille,
        } => format!(
            "{}..{} µs, {slow_permille}‰ {}..{} µs",
            fast.0, fast.1, slow.0, slow.1
        ),
    }
}

/// A chance in per mille, or `off`.
fn chance(p: u16) -> String {
    if p == 0 {
        "off".into()
    } else {
        format!("{p}‰")
    }
}

/// The settings of a simulated run that decide what it can reach, each as a short phrase.
#[derive(Serialize, Clone, Debug)]
pub struct Ran {
    /// Requests the client sends.
    pub requests: u16,
    /// Requests the server sends to the client.
    pub server_requests: u16,
    /// Server workers.
    pub workers: u16,
    /// The request trees' shape (`depth` 1 or `fanout` 0: none).
    pub nesting: cancelcheck_sim::scenario::Nesting,
    /// `stdio` (first in, first out) or `reordering`.
    pub transport: &'static str,
    /// The share of requests cancelled, per mille.
    pub cancel_permille: u16,
    /// Whether requests time out.
    pub timeouts: bool,
    /// Whether `initialize` may hit a connect timeout.
    pub init_timeout: bool,
    /// Progress notifications, per mille of requests.
    pub progress_permille: u16,
    /// Lost messages, per mille.
    pub loss_permille: u16,
    /// Duplicated messages, per mille.
    pub duplicate_permille: u16,
    /// Runs that disconnect, per mille.
    pub disconnect_permille: u16,
    /// Swarm mode (each seed draws its own fault mix).
    pub swarm: bool,
    /// The line for people.
    #[serde(skip)]
    line: String,
}

impl Ran {
    /// What `s` runs.
    pub fn of(s: &Scenario) -> Ran {
        let w = &s.workload;
        let l = &s.link;
        let mut parts = vec![
            plural(u64::from(w.requests), "request", "requests"),
            format!("{} from the server", w.server_requests),
            plural(u64::from(w.workers), "worker", "workers"),
            if w.nesting.is_flat() {
                "no request trees".to_string()
            } else {
                format!("request trees {}x{}", w.nesting.depth, w.nesting.fanout)
            },
            format!("{} link", transport_name(l.order)),
            format!("cancel {}", chance(w.cancel_permille)),
        ];
        if w.repeat_cancel_permille > 0 {
            parts.push(format!(
                "repeat cancel {}",
                chance(w.repeat_cancel_permille)
            ));
        }
        parts.push(match &w.timeout {
            Some(t) => format!("timeouts {}", latency(t)),
            None => "timeouts off".into(),
        });
        parts.push(match &w.init_timeout {
            Some(t) => format!("init timeout {}", latency(t)),
            None => "init timeout off".into(),
        });
        parts.push(format!("progress {}", chance(w.progress_permille)));
        if w.internal_cancel_permille > 0 {
            parts.push(format!(
                "internal cancel {}",
                chance(w.internal_cancel_permille)
            ));
        }
        if w.malformed_cancel_permille > 0 {
            parts.push(format!(
                "malformed cancel {}",
                chance(w.malformed_cancel_permille)
            ));
        }
        if w.task_permille > 0 {
            parts.push(format!("tasks {}", chance(w.task_permille)));
        }
        if w.ids.reuse_answered {
            parts.push("reuses ids".into());
        }
        parts.push(format!("loss {}", chance(l.loss_permille)));
        parts.push(format!("duplication {}", chance(l.duplicate_permille)));
        parts.push(format!("disconnect {}", chance(l.disconnect_permille)));
        if s.swarm {
            parts.push(
                "swarm (each seed draws order, loss, duplication, disconnect, timeouts, workers)"
                    .into(),
            );
        }
        Ran {
            requests: w.requests,
            server_requests: w.server_requests,
            workers: w.workers,
            nesting: w.nesting,
            transport: transport_name(l.order),
            cancel_permille: w.cancel_permille,
            timeouts: w.timeout.is_some(),
            init_timeout: w.init_timeout.is_some(),
            progress_permille: w.progress_permille,
            loss_permille: l.loss_permille,
            duplicate_permille: l.duplicate_permille,
            disconnect_permille: l.disconnect_permille,
            swarm: s.swarm,
            line: parts.join(", "),
        }
    }
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}
