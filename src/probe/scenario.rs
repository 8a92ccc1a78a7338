//! The scenarios: each one a short conversation in a fresh peer process, with its timing drawn
//! from the seed. Every cancel is followed by a barrier (see [`Session::barrier`]), so what the
//! peer did after reading it is told apart from what crossed it, without timing.

use super::session::{Session, Step};
use cancelcheck_model::endpoint::IdPolicy;
use serde_json::{Value, json};

/// One of the probe's scenarios: a scripted conversation with a fresh peer process (not
/// `cancelcheck_sim::Scenario`, the configuration of a simulated run).
pub struct ProbeScenario {
    /// Stable name (for `--scenarios`).
    pub name: &'static str,
    /// One sentence.
    pub summary: &'static str,
    /// How the probe numbers its requests (the first id goes to `initialize`).
    pub ids: IdPolicy,
    /// The steps after the handshake.
    pub run: fn(&mut Session<'_>) -> Step<()>,
    /// Whether it exists only in ACP and the ACP RFD, where the slow request is a prompt turn
    /// (`session/prompt`: the agent's permission requests, the turn's own cancel).
    pub acp_only: bool,
    /// Whether it exists only where the client's request is a prompt turn with a cancel of its
    /// own (ACP's `session/prompt`).
    pub prompt_turn: bool,
    /// Whether what it claims needs a cancel to reach a work request still in flight: sent
    /// while the peer had not answered it. Where none did (the work answered first), it tested
    /// nothing and is `vacuous`. The others claim nothing of a request in flight (a cancel of
    /// an answered request, of an unknown id, malformed cancels, progress).
    pub in_flight: bool,
    /// The transports it runs over.
    pub over: Over,
    /// Whether its point shows only on a peer that acts on cancels.
    pub acting: Acting,
}

/// What a scenario's point needs of the peer besides a cancel sent: a peer that leaves every
/// request alone whatever cancel comes (as ACP and LSP allow) passes a scenario about which
/// cancels it acts on without showing anything.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Acting {
    /// Nothing more: its point shows on any peer (a crash, an answer, progress).
    Any,
    /// That the peer acts on the very cancel it sends (`id-zero`: a peer that reads 0 as no
    /// id leaves that request alone).
    InSession,
    /// That the peer acts on cancels in some session of the run: the scenario's own cancel
    /// names nothing by design (`string-vs-number`), or is one of two (`empty-string-id`).
    InRun,
}

/// The transports a scenario runs over.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Over {
    /// Stdio, and Streamable HTTP (its cancel: a POSTed notification, or in MCP 2026-07-28
    /// the close of the request's stream).
    Any,
    /// Not where closing the stream is the cancel (MCP 2026-07-28 over HTTP): the scenario
    /// sends cancel notifications of its own, which that transport has no use for.
    NotClosing,
    /// Streamable HTTP only, where a closed stream is no cancel (MCP 2025-11-25).
    HttpKeeping,
    /// Streamable HTTP only, where closing the stream is the cancel (MCP 2026-07-28).
    HttpClosing,
}

impl ProbeScenario {
    /// Whether it runs in `dialect`.
    pub fn applies(&self, dialect: cancelcheck_model::Dialect) -> bool {
        let prompts = cancelcheck_wire::shapes::of(dialect)
            .prompt_method()
            .is_some();
        (!self.acp_only || prompts)
            && (!self.prompt_turn || dialect.rules().session_cancel_method.is_some())
    }

    /// Whether it runs with this slow request: the scenarios of prompt turns only where the
    /// request is `session/prompt`.
    pub fn runs_with(&self, ctx: &cancelcheck_wire::decode::Context) -> bool {
        self.applies(ctx.dialect) && (!self.acp_only || ctx.prompt_turn())
    }

    /// Whether it runs over this transport (`http`: Streamable HTTP) in `dialect`.
    pub fn runs_over(&self, dialect: cancelcheck_model::Dialect, http: bool) -> bool {
        let closing = dialect.rules().stream_close_cancels;
        match self.over {
            Over::Any => true,
            Over::NotClosing => !(http && closing),
            Over::HttpKeeping => http && !closing,
            Over::HttpClosing => http && closing,
        }
    }
}

const fn ints(first: i64) -> IdPolicy {
    IdPolicy {
        first,
        strings: false,
        reuse_answered: false,
    }
}

/// Every scenario, in the order they run.
pub static SCENARIOS: &[ProbeScenario] = &[
    ProbeScenario {
        name: "cancel-before-work",
        summary: "cancel right behind the request, before the peer can have started",
        ids: ints(1),
        run: cancel_before_work,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::Any,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "cancel-during-work",
        summary: "cancel once the work reports progress (or after a seeded delay)",
        ids: ints(1),
        run: cancel_during_work,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::Any,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "cancel-after-answer",
        summary: "cancel a request already answered: the peer must ignore it",
        ids: ints(1),
        run: cancel_after_answer,
        acp_only: false,
        prompt_turn: false,
        in_flight: false,
        over: Over::NotClosing,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "cancel-crossing-answer",
        summary: "cancel at a seeded moment near the end of the work (its duration measured first), so it may cross the answer",
        ids: ints(1),
        run: cancel_crossing_answer,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::Any,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "unknown-id",
        summary: "cancel an id never sent: harmless, the peer goes on answering",
        ids: ints(1),
        run: unknown_id,
        acp_only: false,
        prompt_turn: false,
        in_flight: false,
        over: Over::NotClosing,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "malformed-cancels",
        summary: "cancels without params, with a null id, ids of wrong types, array params (naming an id never sent)",
        ids: ints(1),
        run: malformed_cancels,
        acp_only: false,
        prompt_turn: false,
        in_flight: false,
        over: Over::NotClosing,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "string-vs-number",
        summary: "request \"7\" (a string) and a cancel naming 7 (a number): it names nothing",
        ids: IdPolicy {
            first: 6,
            strings: true,
            reuse_answered: false,
        },
        run: string_vs_number,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::NotClosing,
        acting: Acting::InRun,
    },
    ProbeScenario {
        name: "id-zero",
        summary: "cancel request 0 (a falsy id)",
        ids: ints(-1),
        // The steps of cancel-during-work; the ids make the request 0.
        run: cancel_during_work,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::Any,
        acting: Acting::InSession,
    },
    ProbeScenario {
        name: "empty-string-id",
        summary: "a cancel naming \"\" (a falsy id that names nothing), then a real one",
        ids: IdPolicy {
            first: 0,
            strings: true,
            reuse_answered: false,
        },
        run: empty_string_id,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::NotClosing,
        acting: Acting::InRun,
    },
    ProbeScenario {
        name: "two-concurrent-one-cancelled",
        summary: "two requests at once, one cancelled: the other is still answered",
        ids: ints(1),
        run: two_concurrent,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::Any,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "same-cancel-twice",
        summary: "the same cancel sent twice",
        ids: ints(1),
        run: same_cancel_twice,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::NotClosing,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "progress-after-answer",
        summary: "a request with progress, answered: no progress may follow the answer",
        ids: ints(1),
        run: progress_after_answer,
        acp_only: false,
        prompt_turn: false,
        in_flight: false,
        over: Over::Any,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: SESSION_CANCEL,
        summary: "ACP: session/cancel of a prompt while the agent waits on its own permission request",
        ids: ints(1),
        run: session_cancel,
        acp_only: true,
        prompt_turn: false,
        in_flight: true,
        over: Over::Any,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: "cancel-request-names-prompt",
        summary: "ACP: the generic cancel naming the prompt itself (not session/cancel): still one answer",
        ids: ints(1),
        run: cancel_request_names_prompt,
        acp_only: true,
        prompt_turn: true,
        in_flight: true,
        over: Over::Any,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: DISCONNECT,
        summary: "HTTP, MCP 2025-11-25: the work's stream drops during the work and is resumed with Last-Event-ID: no cancel, so the answer still comes",
        ids: ints(1),
        run: disconnect_resume,
        acp_only: false,
        prompt_turn: false,
        in_flight: false,
        over: Over::HttpKeeping,
        acting: Acting::Any,
    },
    ProbeScenario {
        name: AFTER_CLOSE,
        summary: "HTTP, MCP 2026-07-28: close the work's stream (its cancel), then read the standalone stream a while: nothing more may come for the request",
        ids: ints(1),
        run: progress_after_close,
        acp_only: false,
        prompt_turn: false,
        in_flight: true,
        over: Over::HttpClosing,
        acting: Acting::Any,
    },
];

/// The name of the scenario of ACP's `session/cancel` while the agent waits on its own
/// permission request.
pub const SESSION_CANCEL: &str = "session-cancel";

/// The name of the scenario that reads the standalone stream after a close (Streamable HTTP).
pub const AFTER_CLOSE: &str = "progress-after-close";

/// The name of the scenario of a disconnect and a resume (Streamable HTTP).
pub const DISCONNECT: &str = "disconnect-resume";

/// Looks a scenario up by name.
pub fn by_name(name: &str) -> Option<&'static ProbeScenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}

/// Waits for the work to show it started (progress), at most a seeded 5–40 ms.
fn until_started(s: &mut Session<'_>, id: cancelcheck_model::RequestId) -> Step<()> {
    let ms = s.rng.between(5, 40);
    s.pause(ms, |s| s.progressed(id) || s.resolved(id))
}

/// After the steps: wait for every request the probe still awaits (the dialect's requester
/// waits for an answer after a cancel in ACP and LSP).
fn settle(s: &mut Session<'_>, ids: &[cancelcheck_model::RequestId]) -> Step<()> {
    for &id in ids {
        s.wait_resolved(id)?;
    }
    Ok(())
}

fn cancel_before_work(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    s.cancel(id);
    s.barrier()?;
    settle(s, &[id])
}

fn cancel_during_work(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    until_started(s, id)?;
    s.cancel(id);
    s.barrier()?;
    settle(s, &[id])
}

fn cancel_after_answer(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    s.wait_resolved(id)?;
    s.cancel_again(id);
    s.barrier()
}

/// How many times `cancel-crossing-answer` sends its work to cancel it in flight.
const CROSSING_ATTEMPTS: usize = 4;

fn cancel_crossing_answer(s: &mut Session<'_>) -> Step<()> {
    // The work's duration, measured: one run of it, uncancelled, in this session.
    let t0 = std::time::Instant::now();
    let first = s.send_work()?;
    s.wait_resolved(first)?;
    let mut took = micros(t0.elapsed());
    // A seeded moment in the last quarter of that duration: the work should still run, and its
    // answer may cross the cancel.
    let mut permille = s.rng.between(750, 999);
    for attempt in 1..=CROSSING_ATTEMPTS {
        let ms = took.saturating_mul(permille) / 1_000_000;
        let t0 = std::time::Instant::now();
        let id = s.send_work()?;
        s.pause(ms, |s| s.resolved(id))?;
        if !s.resolved(id) {
            s.cancel(id);
        } else if attempt < CROSSING_ATTEMPTS {
            // Answered before the moment: the measure was longer than the work (a first call
            // that loaded what later ones reuse, a busy machine). This run is a measure too;
            // try again at the quarter's start of the shortest.
            took = took.min(micros(t0.elapsed()));
            permille = 750;
            continue;
        } else {
            s.cancel_again(id);
        }
        s.barrier()?;
        return settle(s, &[id]);
    }
    Ok(())
}

fn micros(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// An id the probe never sends.
const UNKNOWN_ID: i64 = 424242;

fn unknown_id(s: &mut Session<'_>) -> Step<()> {
    let p = s.cancel_params(json!(UNKNOWN_ID));
    s.raw_cancel(Some(p));
    s.barrier()?;
    let id = s.send_work()?;
    s.wait_resolved(id)
}

fn malformed_cancels(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    let wire = s.id_json(id);
    let field = s.cancel_params(Value::Null);
    let key = field
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .unwrap_or_default();
    s.raw_cancel(None);
    s.raw_cancel(Some(json!({})));
    if !cancelcheck_wire::shapes::of(s.dialect()).cancel_names_null() {
        s.raw_cancel(Some(json!({ key.clone(): null })));
    }
    s.raw_cancel(Some(json!({ key.clone(): [wire.clone()] })));
    s.raw_cancel(Some(json!({ key.clone(): {"id": wire.clone()} })));
    s.raw_cancel(Some(json!({ key: true })));
    // Array params are by-position params to JSON-RPC, which a server may read as a cancel of
    // the id they hold: they name an id never sent, so that either reading leaves the work
    // to run.
    s.raw_cancel(Some(json!([UNKNOWN_ID])));
    s.barrier()?;
    s.wait_resolved(id)
}

fn string_vs_number(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    // The request is "7"; 7 names nothing.
    let p = s.cancel_params(json!(7));
    s.raw_cancel(Some(p));
    s.barrier()?;
    s.wait_untouched(id)
}

fn empty_string_id(s: &mut Session<'_>) -> Step<()> {
    // The probe's ids are strings ("0" went to `initialize`); "" names nothing.
    let id = s.send_work()?;
    let p = s.cancel_params(json!(""));
    s.raw_cancel(Some(p));
    s.barrier()?;
    until_started(s, id)?;
    s.cancel(id);
    s.barrier()?;
    settle(s, &[id])
}

/// Two requests at once; in ACP two prompts, each in a session of its own (an ACP client
/// sends one prompt at a time per session), so that the first one's `session/cancel` names
/// only its own.
fn two_concurrent(s: &mut Session<'_>) -> Step<()> {
    let a = s.send_work()?;
    let b = s.send_work()?;
    until_started(s, a)?;
    s.cancel(a);
    s.barrier()?;
    settle(s, &[a])?;
    s.wait_untouched(b)
}

fn same_cancel_twice(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    until_started(s, id)?;
    s.cancel(id);
    s.cancel_again(id);
    s.barrier()?;
    settle(s, &[id])
}

fn progress_after_answer(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    s.wait_resolved(id)?;
    s.barrier()
}

/// ACP: `session/cancel` while the agent waits on its own permission request, held
/// unanswered. The probe answers it `cancelled` only after two barriers, so that an agent that
/// acts on the cancel after answering the next request has acted before the answer is sent. A
/// prompt answered before that answer was sent was answered with the permission request
/// unresolved, and a request of the agent's that arrives after the first barrier's answer was
/// sent after the cancel was read: both are decided by the order on the wire alone.
fn session_cancel(s: &mut Session<'_>) -> Step<()> {
    s.hold_permissions = true;
    let id = s.send_work()?;
    // Until the agent asks for permission (held unanswered), at most a seeded 20-80 ms.
    let ms = s.rng.between(20, 80);
    s.pause(ms, |s| s.permissions_asked() > 0 || s.resolved(id))?;
    s.session_cancel(id);
    s.barrier()?;
    s.barrier()?;
    s.answer_held();
    settle(s, &[id])
}

/// ACP: `$/cancel_request` (the generic cancel) naming the `session/prompt` request, where the
/// prompt turn's own cancel is `session/cancel`. The generic rules judge the answer: exactly one,
/// a result or error -32800.
fn cancel_request_names_prompt(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    until_started(s, id)?;
    let p = s.cancel_params(s.id_json(id));
    s.raw_cancel(Some(p));
    s.barrier()?;
    settle(s, &[id])
}

/// Streamable HTTP, MCP 2025-11-25: once the work has shown it started (its first progress, at
/// most 200 ms), its stream's connection drops as a network failure would, and is resumed a
/// seeded 20-60 ms later with `Last-Event-ID`; then the answer is awaited, with the same work
/// sent again as a control (a peer that took the disconnect for a cancel never answers).
fn disconnect_resume(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    s.pause(200, |s| s.progressed(id) || s.resolved(id))?;
    if s.resolved(id) {
        return Ok(());
    }
    s.drop_stream(id);
    let ms = s.rng.between(20, 60);
    s.pause(ms, |_| false)?;
    if !s.resume_stream(id) {
        return Ok(());
    }
    s.wait_untouched(id)?;
    if s.resolved(id) {
        return Ok(());
    }
    // The control was answered and the resumed stream carried no answer: a second resume
    // tells an answer lost on resumption (the work went on) from work the disconnect stopped.
    s.drop_stream(id);
    if s.resume_stream(id) {
        let ms = s.rng.between(150, 250);
        s.pause(ms, |s| s.resolved(id))?;
    }
    Ok(())
}

/// Streamable HTTP, MCP 2026-07-28: the work's stream closed once it started (its cancel), then
/// a seeded 150-250 ms of reading the standalone stream, where anything more about the request
/// shows the server went on after it read the close.
fn progress_after_close(s: &mut Session<'_>) -> Step<()> {
    let id = s.send_work()?;
    until_started(s, id)?;
    s.cancel(id);
    let ms = s.rng.between(150, 250);
    s.pause(ms, |_| false)
}
