//! `cancelcheck probe` against the test peer: the correct peer passes, every faulty behaviour
//! is flagged with the invariants it declares (or, where the wire cannot decide them, they are
//! reported as not observable), saved traces re-judge to the same verdict, and hostile peers
//! never hang, crash or outlive the probe.
//!
//! The probe runs in-process through the library (`cancelcheck::probe::run`, which the CLI
//! prints); the peer is this package's binary. What a verdict needs to see is ordered by the
//! probe's barriers, not by time: work requests run at least 300 ms (ten times the probe's
//! pause before a cancel), a peer that gives work up on its own does so a second after the
//! cancel would come, and the time limits of scenarios a correct peer runs are the default
//! 10 s. A scenario whose cancel still came too late under load is `vacuous`, never a pass;
//! the few tests that accept that say so.

use cancelcheck::probe::{report, run, scenario};
use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::InvariantId;
use cancelcheck_properties::breaks::{breaks_in, classify};
use clap::Parser;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const PEER: &str = env!("CARGO_BIN_EXE_cancelcheck-testpeer");

mod common;
use common::{Cli, scratch};

/// Runs the probe with `flags`, against the test peer with `peer` arguments; returns the JSON
/// report, the exit code and how long it took.
fn probe(name: &str, flags: &[&str], peer: &[&str]) -> (Value, u8, Duration) {
    let save = scratch(name);
    let mut argv: Vec<String> = vec!["probe".into(), "--json".into(), "--save".into()];
    argv.push(save.display().to_string());
    argv.extend(flags.iter().map(|s| s.to_string()));
    argv.push("--".into());
    argv.push(PEER.into());
    argv.extend(peer.iter().map(|s| s.to_string()));
    let cli = Cli::try_parse_from(&argv).expect("arguments parse");
    let t0 = Instant::now();
    let (text, code) = run(cli.args).expect("the probe runs");
    let took = t0.elapsed();
    let v: Value = serde_json::from_str(&text).expect("--json prints JSON");
    (v, code, took)
}

/// Runs the probe with `flags` against the test peer with `peer` arguments, printing text;
/// returns the text and its lines before the table.
fn report_top(flags: &[&str], peer: &[&str]) -> (String, Vec<String>) {
    let mut argv: Vec<String> = ["probe", "--save", scratch("text").to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    argv.extend(flags.iter().map(|s| s.to_string()));
    argv.push("--".into());
    argv.push(PEER.into());
    argv.extend(peer.iter().map(|s| s.to_string()));
    let (text, _) = run(Cli::try_parse_from(&argv).unwrap().args).unwrap();
    let top = text
        .lines()
        .take_while(|l| !l.starts_with("scenario "))
        .map(str::to_string)
        .collect();
    (text, top)
}

/// A work request that runs 300 ms unless cancelled: long beside the 30 ms the probe waits
/// before a cancel, short enough that scenarios which let it finish stay quick.
const FAST: &str = r#"{"name":"slow","arguments":{"ms":300}}"#;

fn mcp<'a>(flags: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["--dialect", "mcp-2025-11-25", "--params", FAST];
    v.extend_from_slice(flags);
    v
}

/// Whether every scenario passed but those whose point needs a peer acting on cancels, which
/// are `vacuous` because no scenario showed it acting (and at least one is); panics on any
/// other verdict.
fn vacuous_for_no_acting(v: &Value) -> bool {
    let mut any = false;
    for s in v["scenarios"].as_array().expect("scenarios") {
        if s["verdict"] == "vacuous" {
            let needs = scenario::by_name(s["name"].as_str().unwrap())
                .is_some_and(|x| x.acting != scenario::Acting::Any);
            assert!(needs, "{}: {v:#}", s["name"]);
            let why = s["vacuous_because"][0].as_str().unwrap_or("");
            assert!(why.starts_with(report::NO_ACTING), "{why}");
            any = true;
        } else {
            assert_eq!(s["verdict"], "pass", "{}: {v:#}", s["name"]);
        }
    }
    any
}

/// The trace saved for `finding` (a scenario of the report, or one of its violations), read.
fn saved_trace(finding: &Value) -> Value {
    let path = finding["trace"].as_str().expect("a trace was saved");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn findings(v: &Value) -> (Vec<String>, Vec<String>) {
    let mut inv = Vec::new();
    let mut err = Vec::new();
    for s in v["scenarios"].as_array().expect("scenarios") {
        for x in s["violations"].as_array().expect("violations") {
            inv.push(x["invariant"].as_str().unwrap_or("").to_string());
        }
        for x in s["errors"].as_array().expect("errors") {
            err.push(x["kind"].as_str().unwrap_or("").to_string());
        }
    }
    inv.sort();
    inv.dedup();
    err.sort();
    err.dedup();
    (inv, err)
}

#[test]
fn the_correct_peer_passes_every_scenario_and_the_report_has_its_shape() {
    let (v, code, _) = probe(
        "correct",
        &mcp(&["--jobs", "2"]),
        &["--dialect", "mcp-2025-11-25"],
    );
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    let scenarios = v["scenarios"].as_array().unwrap();
    let mcp_scenarios = cancelcheck::probe::scenario::SCENARIOS
        .iter()
        .filter(|s| s.applies(Dialect::Mcp20251125) && s.runs_over(Dialect::Mcp20251125, false))
        .count();
    assert_eq!(scenarios.len(), mcp_scenarios);
    assert!(mcp_scenarios >= 12);
    let hidden: Vec<String> = InvariantId::all()
        .filter(|i| {
            !i.info().observable_on_wire && i.info().application(Dialect::Mcp20251125).is_some()
        })
        .map(|i| i.name().to_string())
        .collect();
    assert!(hidden.contains(&"no-leak-at-quiescence".to_string()));
    for s in scenarios {
        assert!(s["name"].is_string());
        assert_eq!(s["verdict"], "pass", "{s:#}");
        assert_eq!(s["violations"], Value::Array(vec![]));
        let not_obs: Vec<String> = s["not_observable"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        assert_eq!(not_obs, hidden);
    }
}

/// Runs every responder behaviour of `d` against the probe and checks it is flagged with what
/// it declares (faulty) or passes (correct). `lazy`: the peer acts on a cancel only after
/// answering the barrier behind it, so that what it does about the cancel is provably after it
/// read it.
fn faults_are_flagged(d: Dialect, params: &str, lazy: bool, extra: &[&str]) {
    let mut checked = 0;
    for b in Behaviour::all() {
        let Some(c) = classify(b, d) else { continue };
        if b.role() != cancelcheck_model::behaviour::Role::Responder {
            continue;
        }
        // The probe plays the client, and the test peer makes no requests of its own: a fault
        // that acts on the server's own requests (a cancel routed to them, or the client's
        // handling of the server's request 0), or on requests nested under the probe's, cannot
        // act here.
        let mut s = cancelcheck_sim::Scenario::default_for(d);
        s.behaviour = b;
        if b.party(d) != cancelcheck_model::Party::Server
            || cancelcheck_sim::coverage::server_requests_to_act(&s) > 0
            || !cancelcheck_sim::coverage::nesting_to_act(&s).is_flat()
            // (Faults of Streamable HTTP act on a stream's close, which stdio has not.)
            || cancelcheck_sim::coverage::http_to_act(b)
        {
            continue;
        }
        let declared: Vec<InvariantId> = breaks_in(b, d);
        let mut peer = vec!["--dialect", d.id(), "--behavior", b.name()];
        if lazy {
            peer.push("--lazy-cancel");
        }
        peer.extend_from_slice(extra);
        // A correct agent asks permission, as `session-cancel` needs (without, that scenario
        // is vacuous); a faulty one does not, so that only its own fault acts.
        if !c.faulty() && matches!(d, Dialect::Acp | Dialect::AcpRfd) {
            peer.push("--ask-permission");
        }
        let mut flags = vec!["--dialect", d.id(), "--params", params, "--jobs", "4"];
        if c.faulty() {
            // A fault that never answers waits out the time limit in every scenario where
            // it acts: shorter than the default, still ten times the work.
            flags.extend(["--timeout", "3000", "--linger", "1000"]);
        }
        let (v, code, _) = probe(&format!("{d}-{b}"), &flags, &peer);
        let (inv, errors) = findings(&v);
        if !c.faulty() {
            // A correct peer that finishes every request first acts on no cancel: the
            // scenarios about which cancels it acts on decide nothing (`vacuous`), the
            // others pass.
            let acts = b != Behaviour::FinishFirst;
            assert_eq!(vacuous_for_no_acting(&v), !acts, "{b} in {d}: {v:#}");
            let run = if acts { "pass" } else { "vacuous" };
            assert_eq!(v["verdict"], run, "{b} is correct in {d}: {v:#}");
            assert_eq!(code, 0);
            continue;
        }
        checked += 1;
        if b == Behaviour::CancelCancelsAll && d.rules().give_up.is_none() {
            // The request it stops for a cancel of another is shown from the wire (in MCP,
            // where it is never answered, by a control request: see
            // `a_request_stopped_by_a_cancel_of_another_id_is_exact_id_match_not_a_timeout`),
            // never as a timeout.
            assert_eq!(inv, ["exact-id-match"], "{b} in {d}: {v:#}");
            assert!(errors.is_empty(), "{b} in {d}: {v:#}");
        }
        let names: Vec<&str> = declared.iter().map(|i| i.name()).collect();
        for found in &inv {
            assert!(
                names.contains(&found.as_str()),
                "{b} in {d}: flagged {found}, which it does not declare ({names:?})"
            );
        }
        let observable = declared.iter().any(|i| i.info().observable_in(d));
        // What the wire cannot decide shows another way: a request never answered is a
        // timeout (eventual-resolution), a crash is the peer gone.
        let hidden_shown = (names.contains(&"eventual-resolution")
            && errors.contains(&"timeout".to_string()))
            || errors.contains(&"peer-gone".to_string());
        // A rule the wire decides in the dialect may be undecided in the scenarios where the
        // fault acts: in ACP and the ACP RFD a request answered "cancelled" after a cancel of
        // another may as well have been given up on its own (`cancel-cancels-all`).
        let scenarios = v["scenarios"].as_array().unwrap();
        let undecided = |i: &InvariantId| {
            !inv.contains(&i.name().to_string())
                && scenarios.iter().any(|s| {
                    s["not_observable"]
                        .as_array()
                        .unwrap()
                        .contains(&Value::from(i.name()))
                })
        };
        if observable && declared.iter().all(undecided) && !hidden_shown {
            assert!(d.rules().give_up.is_some(), "{b} in {d}: {v:#}");
        } else if observable || hidden_shown {
            assert!(
                !inv.is_empty() || hidden_shown,
                "{b} in {d}: nothing flagged; declared {names:?}: {v:#}"
            );
            assert_ne!(v["verdict"], "pass", "{b} in {d}: {v:#}");
        } else {
            // It declares only what the wire cannot see: reported as not observable, never as
            // passed.
            for s in v["scenarios"].as_array().unwrap() {
                let not_obs = s["not_observable"].as_array().unwrap();
                for i in &declared {
                    assert!(not_obs.contains(&Value::from(i.name())), "{b}: {v:#}");
                }
            }
        }
        assert_eq!(code, u8::from(v["verdict"] == "fail"), "{b} in {d}");
    }
    assert!(checked >= 5, "only {checked} faults checked in {d}");
}

#[test]
fn every_faulty_mcp_2025_behaviour_is_flagged_with_what_it_declares() {
    faults_are_flagged(Dialect::Mcp20251125, FAST, false, &[]);
}

#[test]
fn every_faulty_mcp_2026_behaviour_is_flagged_with_what_it_declares() {
    faults_are_flagged(Dialect::Mcp20260728, FAST, true, &[]);
}

#[test]
fn every_faulty_lsp_behaviour_is_flagged_with_what_it_declares_over_content_length() {
    faults_are_flagged(
        Dialect::Lsp,
        r#"{"command":"slow","arguments":[{"ms":300}]}"#,
        true,
        &[],
    );
}

#[test]
fn saved_traces_rejudge_to_the_recorded_verdict() {
    let (v, _, _) = probe(
        "rejudge",
        &mcp(&["--scenarios", "cancel-during-work,unknown-id"]),
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--behavior",
            "answers-cancel-notification",
        ],
    );
    let mut traces = 0;
    for s in v["scenarios"].as_array().unwrap() {
        for x in s["violations"].as_array().unwrap() {
            let doc = saved_trace(x);
            assert_eq!(doc["kind"], "probe");
            let (fresh, same, n) = report::rejudge(&doc).unwrap().expect("a probe trace");
            assert!(same, "{fresh:#}");
            assert!(n > 0);
            // A tampered record is judged differently.
            let mut t = doc.clone();
            let msgs = t["messages"].as_array_mut().unwrap();
            msgs.retain(|m| !m["text"].as_str().unwrap_or("").contains("\"id\":null"));
            let (_, same, _) = report::rejudge(&t).unwrap().unwrap();
            assert!(!same, "removing the offending answer changes the verdict");
            traces += 1;
        }
    }
    assert_eq!(traces, 2);
}

#[test]
fn the_correct_peer_passes_twenty_times_over() {
    let (v, code, _) = probe(
        "repeat",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--repeat",
            "20",
            "--jobs",
            "2",
            "--scenarios",
            "cancel-before-work,cancel-during-work,cancel-crossing-answer,two-concurrent-one-cancelled",
            "--params",
            r#"{"name":"slow","arguments":{"ms":300}}"#,
        ],
        &["--dialect", "mcp-2025-11-25"],
    );
    assert_eq!(v["scenarios"].as_array().unwrap().len(), 80);
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
}

// ---------------------------------------------------------------- hostile peers

fn hostile(mode: &str, flags: &[&str]) -> (Value, u8, Duration) {
    let mut f = mcp(&[
        "--scenarios",
        "cancel-during-work",
        "--timeout",
        "3000",
        "--linger",
        "500",
    ]);
    f.extend_from_slice(flags);
    probe(
        &format!("hostile-{mode}"),
        &f,
        &["--dialect", "mcp-2025-11-25", "--hostile", mode],
    )
}

fn errors_of(v: &Value) -> Vec<Value> {
    v["scenarios"][0]["errors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn non_json_output_is_an_error_at_its_offset() {
    let (v, code, _) = hostile("garbage", &[]);
    assert_eq!(code, 1);
    let e = errors_of(&v);
    assert_eq!(e[0]["kind"], "not-json-rpc", "{v:#}");
    assert_eq!(e[0]["offset"], 0);
}

#[test]
fn an_oversized_line_is_refused_and_the_stream_read_on() {
    let (v, code, _) = hostile("oversized", &["--max-frame", "65536"]);
    assert_eq!(code, 1);
    let e = errors_of(&v);
    assert_eq!(e[0]["kind"], "framing", "{v:#}");
    assert_eq!(e[0]["offset"], 0);
    // The peer went on serving after the line: only the framing error is reported.
    assert_eq!(e.len(), 1, "{v:#}");
}

#[test]
fn broken_json_is_reported_with_its_byte_offset() {
    let (v, _, _) = hostile("bad-framing", &[]);
    let e = errors_of(&v);
    assert_eq!(e[0]["kind"], "not-json-rpc", "{v:#}");
    // `{"jsonrpc":"2.0","id":` ends at byte 22.
    assert_eq!(e[0]["offset"], 22, "{v:#}");
}

#[test]
fn broken_content_length_framing_is_reported_with_its_byte_offset() {
    let (v, code, _) = hostile("bad-framing", &["--framing", "content-length"]);
    assert_eq!(code, 1);
    let e = errors_of(&v);
    assert_eq!(e[0]["kind"], "framing", "{v:#}");
    assert_eq!(e[0]["offset"], 0, "{v:#}");
}

#[test]
fn a_hanging_peer_is_timed_out_killed_and_reaped() {
    let (v, code, took) = hostile("hang", &["--timeout", "800"]);
    assert_eq!(code, 1);
    assert_eq!(errors_of(&v)[0]["kind"], "timeout", "{v:#}");
    assert_eq!(v["scenarios"][0]["peer_killed"], true);
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_peer_that_exits_early_is_reported() {
    let (v, code, _) = hostile("exit-early", &[]);
    assert_eq!(code, 1);
    let kinds: Vec<Value> = errors_of(&v).iter().map(|e| e["kind"].clone()).collect();
    assert!(kinds.contains(&Value::from("peer-gone")), "{v:#}");
}

#[test]
fn a_stderr_flood_neither_blocks_the_peer_nor_fills_memory() {
    let (v, code, _) = hostile("stderr-flood", &[]);
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    assert!(v["scenarios"][0]["peer_stderr_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn a_peer_that_never_reads_cannot_block_the_probe() {
    // Params far larger than a pipe's buffer: writing them would block a probe that wrote on
    // its own thread of control.
    let big = format!(
        r#"{{"name":"slow","arguments":{{"ms":10,"pad":"{}"}}}}"#,
        "x".repeat(1 << 20)
    );
    let (v, code, took) = hostile("no-read", &["--timeout", "800", "--params", &big]);
    assert_eq!(code, 1);
    assert_eq!(errors_of(&v)[0]["kind"], "timeout", "{v:#}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// With `--repeat`, each row names its seed (a scenario then has a row per seed).
#[test]
fn repeated_rows_name_their_seed() {
    let save = scratch("repeat-rows");
    let cli = Cli::try_parse_from([
        "probe",
        "--dialect",
        "mcp-2025-11-25",
        "--save",
        save.to_str().unwrap(),
        "--scenarios",
        "unknown-id",
        "--repeat",
        "2",
        "--seed",
        "40",
        "--",
        PEER,
        "--dialect",
        "mcp-2025-11-25",
    ])
    .unwrap();
    let (text, code) = run(cli.args).unwrap();
    assert_eq!(code, 0, "{text}");
    let rows: Vec<&str> = text.lines().skip(1).take(3).collect();
    assert!(rows[0].contains(" seed  verdict"), "{text}");
    assert!(
        rows[1].starts_with("unknown-id") && rows[1].contains(" 40  pass"),
        "{text}"
    );
    assert!(
        rows[2].starts_with("unknown-id") && rows[2].contains(" 41  pass"),
        "{text}"
    );
}

/// A program that is not there is one usage error, said before anything runs, with no trace
/// written; a file that is there but will not start is a finding, not a crash.
#[test]
fn a_missing_program_is_one_usage_error_and_a_program_that_will_not_start_a_finding() {
    let save = scratch("missing");
    let probe = |program: &str| {
        let cli = Cli::try_parse_from([
            "probe",
            "--json",
            "--dialect",
            "mcp-2025-11-25",
            "--save",
            save.to_str().unwrap(),
            "--scenarios",
            "unknown-id",
            "--",
            program,
        ])
        .unwrap();
        run(cli.args)
    };
    let err = probe("/nonexistent/cancelcheck-peer").expect_err("a usage error");
    assert!(err.to_string().contains("names no file"), "{err}");
    assert!(
        std::fs::read_dir(&save).map_or(true, |mut d| d.next().is_none()),
        "nothing written"
    );
    // A file that is not a program: the start itself fails.
    let not_a_program = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let (text, code) = probe(not_a_program).expect("a judged run");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("could not start the peer"), "{text}");
}

#[test]
fn bad_usage_is_an_error() {
    for argv in [
        vec!["probe", "--dialect", "mcp", "--", PEER],
        vec!["probe", "--dialect", "abp", "--", PEER],
        vec!["probe", "--dialect", "lsp"],
        vec!["probe", "--dialect", "lsp", "--params", "[", "--", PEER],
        vec![
            "probe",
            "--dialect",
            "lsp",
            "--scenarios",
            "nope",
            "--",
            PEER,
        ],
        vec!["probe", "--dialect", "lsp", "--framing", "xml", "--", PEER],
        // Params the dialect's schema refuses: an ACP prompt needs `prompt`, an array of
        // content blocks; an MCP tool call a tool's `name`.
        vec![
            "probe",
            "--dialect",
            "acp",
            "--params",
            r#"{"command":"sleep"}"#,
            "--",
            PEER,
        ],
        vec![
            "probe",
            "--dialect",
            "acp",
            "--params",
            r#"{"prompt":[{"text":"hi"}]}"#,
            "--",
            PEER,
        ],
        vec![
            "probe",
            "--dialect",
            "mcp-2026-07-28",
            "--params",
            r#"{"arguments":{}}"#,
            "--",
            PEER,
        ],
        // A peer command that cannot start: one usage error, no finding per scenario.
        vec![
            "probe",
            "--dialect",
            "lsp",
            "--",
            "/nonexistent/cancelcheck-peer",
        ],
        vec![
            "probe",
            "--dialect",
            "lsp",
            "--",
            "cancelcheck-no-such-peer-on-path",
        ],
        // More peers at once than the probe can hold (each must die with it), or none kept.
        vec!["probe", "--dialect", "lsp", "--jobs", "257", "--", PEER],
        vec!["probe", "--dialect", "lsp", "--max-output", "0", "--", PEER],
    ] {
        let cli = Cli::try_parse_from(&argv).unwrap();
        let e = run(cli.args).err().unwrap_or_else(|| panic!("{argv:?}"));
        if argv.contains(&"257") {
            assert!(e.to_string().starts_with("--jobs 257: at most 256"), "{e}");
        }
    }
}

// The agent makes no requests of its own here: a fault of these is declared for flat runs,
// and one with a request pending may break the rules of request trees too (`answers-twice`
// answers a prompt whose permission request is unresolved). Those are judged below.
#[test]
fn every_faulty_acp_behaviour_is_flagged_with_what_it_declares() {
    faults_are_flagged(Dialect::Acp, ACP_PROMPT, true, &[]);
}

#[test]
fn every_faulty_acp_rfd_behaviour_is_flagged_with_what_it_declares() {
    faults_are_flagged(Dialect::AcpRfd, ACP_PROMPT, true, &[]);
}

/// The rules of request trees that apply to `d` and that the wire decides there (through the
/// `sessionId` that links the agent's requests to its prompt).
fn tree_rules_on_wire(d: Dialect) -> Vec<String> {
    [
        InvariantId::CascadeComplete,
        InvariantId::ChildrenBeforeParent,
        InvariantId::NoChildAfterCancel,
        InvariantId::SiblingsUntouched,
    ]
    .into_iter()
    .filter(|i| i.info().application(d).is_some() && i.info().observable_in(d))
    .map(|i| i.name().to_string())
    .collect()
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// ACP with the agent's own requests (`--ask-permission`: a permission request sent on the
/// prompt's behalf as its work starts): the correct agent passes every scenario, whether it
/// acts on a cancel at once or only after the barrier behind it. Its requests are linked to
/// their prompt by the session they name (the probe sends one prompt at a time per session,
/// opening a session for each of two prompts at once), so the rules of request trees are
/// judged in every scenario.
#[test]
fn the_correct_agent_with_requests_of_its_own_passes_every_scenario() {
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        let on_wire = tree_rules_on_wire(d);
        assert!(!on_wire.is_empty(), "{d}");
        for lazy in [false, true] {
            let mut peer = vec!["--dialect", d.id(), "--ask-permission"];
            if lazy {
                peer.push("--lazy-cancel");
            }
            let (v, code, _) = probe(
                &format!("{d}-own-requests-{lazy}"),
                &["--dialect", d.id(), "--params", ACP_PROMPT, "--jobs", "4"],
                &peer,
            );
            assert_eq!(v["verdict"], "pass", "{d} lazy={lazy}: {v:#}");
            assert_eq!(code, 0);
            for s in v["scenarios"].as_array().unwrap() {
                let hidden = names(&s["not_observable"]);
                for rule in &on_wire {
                    assert!(!hidden.contains(rule), "{d} {rule}: {s:#}");
                }
            }
        }
    }
}

/// `session-cancel` against every agent behaviour that acts in a prompt turn with a request
/// of the agent's pending (the faults of request trees with one level of nesting, and the
/// update after the turn's answer), acting on a cancel after the barrier behind it: each is
/// flagged with exactly the invariants it declares that the wire decides in the dialect (the
/// others are reported as not observable), with exit code 1 for a MUST; the correct ones pass.
/// In particular: the agent answers the prompt before its permission request is resolved
/// (`answers-parent-first`, ACP), sends a new permission request after reading the cancel
/// (`spawns-after-cancel`, ACP RFD: the stable text lets an agent go on), and sends
/// `session/update` after the prompt's answer (`activity-after-answer`, ACP).
#[test]
fn the_faults_of_a_cancelled_prompt_turn_are_flagged_from_the_wire() {
    let mut checked = Vec::new();
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        for b in Behaviour::all() {
            let Some(c) = classify(b, d) else { continue };
            let mut s = cancelcheck_sim::Scenario::default_for(d);
            s.behaviour = b;
            let nested = cancelcheck_sim::coverage::nesting_to_act(&s).depth == 2;
            let in_turn = !c.faulty() || nested || b == Behaviour::ActivityAfterAnswer;
            if b.role() != cancelcheck_model::behaviour::Role::Responder
                || b.party(d) != cancelcheck_model::Party::Server
                || !in_turn
            {
                continue;
            }
            let (v, code, _) = probe(
                &format!("{d}-turn-{b}"),
                &[
                    "--dialect",
                    d.id(),
                    "--params",
                    ACP_PROMPT,
                    "--scenarios",
                    "session-cancel",
                ],
                &[
                    "--dialect",
                    d.id(),
                    "--behavior",
                    b.name(),
                    "--ask-permission",
                    "--lazy-cancel",
                ],
            );
            let declared = breaks_in(b, d);
            let (decided, hidden): (Vec<InvariantId>, Vec<InvariantId>) =
                declared.iter().partition(|i| i.info().observable_in(d));
            let mut expected: Vec<String> = decided.iter().map(|i| i.name().to_string()).collect();
            expected.sort();
            let (inv, errors) = findings(&v);
            assert_eq!(inv, expected, "{b} in {d}: {v:#}");
            assert!(errors.is_empty(), "{b} in {d}: {v:#}");
            let must = decided.iter().any(|i| {
                i.info()
                    .application(d)
                    .is_some_and(|a| a.strength == cancelcheck_properties::Strength::Must)
            });
            let verdict = match (must, expected.is_empty()) {
                (true, _) => "fail",
                (false, false) => "warn",
                (false, true) => "pass",
            };
            assert_eq!(v["verdict"], verdict, "{b} in {d}: {v:#}");
            assert_eq!(code, u8::from(must), "{b} in {d}");
            let not_obs = names(&v["scenarios"][0]["not_observable"]);
            for i in hidden {
                assert!(not_obs.contains(&i.name().to_string()), "{b} in {d}: {v:#}");
            }
            checked.push((d, b, inv));
        }
    }
    for (d, b, flagged) in [
        (
            Dialect::Acp,
            Behaviour::AnswersParentFirst,
            "children-before-parent",
        ),
        (
            Dialect::AcpRfd,
            Behaviour::SpawnsAfterCancel,
            "no-child-after-cancel",
        ),
        (
            Dialect::Acp,
            Behaviour::ActivityAfterAnswer,
            "no-activity-after-answer",
        ),
        (Dialect::Acp, Behaviour::Honour, ""),
        (Dialect::AcpRfd, Behaviour::Honour, ""),
    ] {
        let want: Vec<String> = [flagged]
            .into_iter()
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
        assert!(
            checked.contains(&(d, b, want)),
            "{b} in {d}: expected {flagged:?} flagged, checked {checked:?}"
        );
    }
}

const ACP_PROMPT: &str = r#"{"prompt":[],"_meta":{"ms":300}}"#;

/// ACP and the ACP RFD: an agent that gives a request up on its own before its work is done
/// (`--give-up-ms`: an internal timeout), and answers it as the texts say (the RFD: error
/// -32800, "the same -32800 (Cancelled) error response as if $/cancelRequest was received";
/// ACP: its prompt turn ends with `stopReason: cancelled`), passes every scenario, with
/// requests of its own or without. An answer that says "cancelled" to a request the probe never
/// cancelled is internal cancellation (judged by `internal-cancel-code`), not a cancel meant
/// for another request (`exact-id-match`); where the probe did cancel, the answer is judged
/// against that cancel as before. A scenario whose cancel comes after the agent gave up is
/// vacuous, and the run with it. Every saved trace re-judges to the same verdict.
#[test]
fn an_agent_that_gives_requests_up_on_its_own_passes_every_scenario() {
    let work = r#"{"prompt":[],"_meta":{"ms":300}}"#;
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        for own in [false, true] {
            let mut peer = vec!["--dialect", d.id(), "--give-up-ms", "40"];
            if own {
                peer.push("--ask-permission");
            }
            let (v, code, _) = probe(
                &format!("{d}-gives-up-{own}"),
                &[
                    "--dialect",
                    d.id(),
                    "--params",
                    work,
                    "--jobs",
                    "4",
                    "--save-all",
                ],
                &peer,
            );
            // A scenario whose cancel came after the agent had given the request up has
            // nothing to judge: it is vacuous, and then so is the run, never a pass.
            let verdicts: Vec<&str> = v["scenarios"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["verdict"].as_str().unwrap())
                .collect();
            assert!(
                verdicts.iter().all(|x| ["pass", "vacuous"].contains(x)),
                "{d} own={own}: {v:#}"
            );
            assert!(verdicts.contains(&"pass"), "{d} own={own}: {v:#}");
            let run = if verdicts.contains(&"vacuous") {
                "vacuous"
            } else {
                "pass"
            };
            assert_eq!(v["verdict"], run, "{d} own={own}: {v:#}");
            assert_eq!(code, 0);
            let mut gave_up = false;
            for s in v["scenarios"].as_array().unwrap() {
                let doc = saved_trace(s);
                let (fresh, same, _) = report::rejudge(&doc).unwrap().expect("a probe trace");
                assert!(same, "{d} {}: {fresh:#}", s["name"]);
                // In `cancel-after-answer` the probe cancels only once the prompt is
                // answered: the answer is the agent's giving up.
                if s["name"] == "cancel-after-answer" {
                    let said_cancelled = doc["messages"].as_array().unwrap().iter().any(|m| {
                        let t = m["text"].as_str().unwrap_or("");
                        m["dir"] == "received"
                            && (t.contains("-32800") || t.contains(r#""stopReason":"cancelled""#))
                    });
                    gave_up |= said_cancelled;
                }
            }
            assert!(gave_up, "{d} own={own}: the agent never gave up: {v:#}");
        }
    }
}

/// LSP: a server that gives requests up on its own (`--give-up-ms`) answers `ContentModified`
/// (-32801) and is found at fault in no scenario; one that answers `ServerCancelled` (-32802),
/// which `workspace/executeCommand` does not support, is flagged `internal-cancel-code` (a
/// SHOULD: the verdict is `warn`). The server gives up a second after the request, long after
/// the probe's cancels come, so only the scenarios that send none before the answer see the
/// give-up. `cancel-crossing-answer` times its cancel to the control's answer, here the give-up
/// itself: whether that answer comes before the peer is proved to have read the cancel is the
/// machine's timing, and when it does the scenario is not decidable (`vacuous`, and the run
/// with it), never a pass.
#[test]
fn an_lsp_server_gives_requests_up_with_content_modified_never_server_cancelled() {
    let work = r#"{"command":"slow","arguments":[{"ms":3000}]}"#;
    for (b, verdict) in [("honour", "pass"), ("misuses-server-cancelled", "warn")] {
        let peer = ["--dialect", "lsp", "--behavior", b, "--give-up-ms", "1000"];
        let flags = ["--dialect", "lsp", "--params", work, "--jobs", "4"];
        let (v, code, _) = probe(&format!("lsp-gives-up-{b}"), &flags, &peer);
        assert_eq!(code, 0, "{b}: {v:#}");
        let (inv, _) = findings(&v);
        if verdict == "warn" {
            assert_eq!(v["verdict"], verdict, "{b}: {v:#}");
            assert_eq!(inv, ["internal-cancel-code"], "{b}: {v:#}");
            continue;
        }
        assert!(inv.is_empty(), "{b}: {v:#}");
        let mut undecided = false;
        for s in v["scenarios"].as_array().unwrap() {
            if s["verdict"] == "vacuous" {
                undecided = true;
                let why = s["vacuous_because"].to_string();
                assert_eq!(s["name"], "cancel-crossing-answer", "{b}: {v:#}");
                assert!(why.contains("not decidable"), "{b}: {v:#}");
            } else {
                assert_eq!(s["verdict"], "pass", "{b}: {v:#}");
            }
        }
        let run = if undecided { "vacuous" } else { "pass" };
        assert_eq!(v["verdict"], run, "{b}: {v:#}");
    }
}

/// ACP: `session/cancel` while the agent waits on its own permission request. The agent cancels
/// it (`$/cancel_request`); the probe answers it `cancelled` as a client must, after the
/// barriers; the agent then ends the turn with `stopReason: cancelled`.
#[test]
fn a_prompt_turn_is_cancelled_while_permission_is_pending() {
    let (v, code, _) = probe(
        "acp-session-cancel",
        &[
            "--dialect",
            "acp",
            "--params",
            ACP_PROMPT,
            "--scenarios",
            "session-cancel",
            "--save-all",
        ],
        &["--dialect", "acp", "--ask-permission", "--lazy-cancel"],
    );
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    let doc = saved_trace(&v["scenarios"][0]);
    let texts: Vec<(String, String)> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["dir"].as_str().unwrap().to_string(),
                m["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let at = |dir: &str, needle: &str| {
        texts
            .iter()
            .position(|(d, t)| d == dir && t.contains(needle))
            .unwrap_or_else(|| panic!("no {dir} {needle}: {texts:#?}"))
    };
    let asked = at("received", "session/request_permission");
    let cancel = at("sent", "session/cancel");
    let cascade = at("received", "$/cancel_request");
    let answered = at("sent", r#"{"outcome":{"outcome":"cancelled"}}"#);
    let ended = at("received", r#""stopReason":"cancelled""#);
    assert!(
        asked < cancel && cancel < cascade && cascade < answered && answered < ended,
        "{texts:#?}"
    );
    // The same scenario does not exist in other dialects.
    let cli = Cli::try_parse_from([
        "probe",
        "--dialect",
        "lsp",
        "--scenarios",
        "session-cancel",
        "--",
        PEER,
    ])
    .unwrap();
    assert!(run(cli.args).is_err());
}

/// ACP: the probe answers each permission request of the agent's as a client must: `cancelled`
/// where it has cancelled the request's prompt turn, even one that reaches it after the cancel
/// (`cancel-before-work`: the agent asks as the work starts, before it has read the cancel;
/// before, the probe answered it `selected`, and an agent that went on with the permission given
/// was failed for the probe's answer), and `selected` in a new turn of a session whose earlier
/// turn it cancelled (the control prompt of `two-concurrent-one-cancelled`). Read from every
/// scenario's saved trace.
#[test]
fn permission_requests_are_answered_cancelled_exactly_in_cancelled_turns() {
    let (v, code, _) = probe(
        "acp-ask-after-cancel",
        &[
            "--dialect",
            "acp",
            "--params",
            ACP_PROMPT,
            "--jobs",
            "4",
            "--save-all",
        ],
        &["--dialect", "acp", "--ask-permission", "--lazy-cancel"],
    );
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    let mut answered = [0, 0];
    for s in v["scenarios"].as_array().unwrap() {
        let doc = saved_trace(s);
        let mut cancelled: Vec<String> = Vec::new();
        let mut asked: Vec<(Value, String)> = Vec::new();
        for m in doc["messages"].as_array().unwrap() {
            let Ok(w) = serde_json::from_str::<Value>(m["text"].as_str().unwrap_or("")) else {
                continue;
            };
            let session = w["params"]["sessionId"].as_str().unwrap_or("").to_string();
            match (m["dir"].as_str().unwrap(), w["method"].as_str()) {
                ("sent", Some("session/cancel")) => cancelled.push(session),
                ("sent", Some("session/prompt")) => cancelled.retain(|c| *c != session),
                ("received", Some("session/request_permission")) => {
                    asked.push((w["id"].clone(), session))
                }
                ("sent", None) if w["result"]["outcome"].is_object() => {
                    let (_, session) = asked.iter().find(|(id, _)| *id == w["id"]).unwrap();
                    let outcome = w["result"]["outcome"]["outcome"].as_str().unwrap();
                    let want = if cancelled.contains(session) {
                        "cancelled"
                    } else {
                        "selected"
                    };
                    assert_eq!(outcome, want, "{}: {w}", s["name"]);
                    answered[usize::from(want == "cancelled")] += 1;
                }
                _ => {}
            }
        }
    }
    // Both kinds of answer were given.
    assert!(answered[0] > 0 && answered[1] > 0, "{answered:?}");
}

/// ACP: the generic `$/cancel_request` naming the prompt itself, not the turn's own
/// `session/cancel`. A correct agent answers the prompt once (a result or error -32800, as for
/// any request); one that answers the cancel and then the finished work too is flagged.
#[test]
fn a_generic_cancel_of_the_prompt_is_answered_once() {
    for (peer_behaviour, verdict) in [("honour", "pass"), ("answers-twice", "fail")] {
        let (v, code, _) = probe(
            &format!("acp-cancel-request-names-prompt-{peer_behaviour}"),
            &[
                "--dialect",
                "acp",
                "--params",
                ACP_PROMPT,
                "--scenarios",
                "cancel-request-names-prompt",
            ],
            &["--dialect", "acp", "--behavior", peer_behaviour],
        );
        assert_eq!(v["verdict"], verdict, "{peer_behaviour}: {v:#}");
        assert_eq!(v["scenarios"][0]["name"], "cancel-request-names-prompt");
        if verdict == "fail" {
            assert_eq!(code, 1);
            let (inv, _) = findings(&v);
            assert!(inv.contains(&"single-resolution".to_string()), "{v:#}");
        } else {
            assert_eq!(code, 0);
        }
    }
}

/// A fault is flagged in every one of twenty repeats of every scenario where it acts: the
/// barrier, not timing, decides what the peer had read.
#[test]
fn a_fault_is_flagged_twenty_times_over() {
    let (v, code, _) = probe(
        "repeat-fault",
        &[
            "--dialect",
            "lsp",
            "--repeat",
            "20",
            "--jobs",
            "2",
            "--scenarios",
            "cancel-before-work,cancel-during-work,same-cancel-twice",
            // Work far longer than any cancel takes to come, so the fault always acts (the
            // cancel ends it early).
            "--params",
            r#"{"command":"slow","arguments":[{"ms":5000}]}"#,
        ],
        &[
            "--dialect",
            "lsp",
            "--behavior",
            "wrong-error-code",
            "--lazy-cancel",
        ],
    );
    let scenarios = v["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 60);
    for s in scenarios {
        assert_eq!(s["verdict"], "fail", "{s:#}");
        assert_eq!(
            s["violations"][0]["invariant"], "cancel-error-code",
            "{s:#}"
        );
    }
    assert_eq!(code, 1);
}

// ------------------------------------------- peers that behave like the real ones (strict)

/// Each scenario's messages (notes aside), from the traces `--save-all` saved: `(scenario,
/// [(dir, text)])`.
fn wire_of(v: &Value) -> Vec<(String, Vec<(String, String)>)> {
    v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let doc = saved_trace(s);
            let msgs = doc["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["dir"] != "note")
                .map(|m| {
                    let text = |k: &str| m[k].as_str().unwrap().to_string();
                    (text("dir"), text("text"))
                })
                .collect();
            (s["name"].as_str().unwrap().to_string(), msgs)
        })
        .collect()
}

fn parse(text: &str) -> cancelcheck_wire::WireMessage {
    cancelcheck_wire::WireMessage::parse(text.as_bytes()).expect("a JSON-RPC message")
}

/// Asserts that every message the probe sent in `v`'s scenarios is valid for `d`'s schema (the
/// deliberately malformed cancels of `malformed-cancels` aside), and that the peer refused none
/// of the probe's requests as invalid (-32602) or unknown (-32601) but its barriers.
fn assert_valid_for_the_schema(d: Dialect, v: &Value) {
    let cancel = d.rules().cancel_method;
    for (scenario, msgs) in wire_of(v) {
        let mut barriers = Vec::new();
        for (dir, text) in &msgs {
            let m = parse(text);
            if dir == "sent" {
                if let cancelcheck_wire::WireMessage::Request { id, .. } = &m
                    && id.to_json_text().contains("cancelcheck-barrier")
                {
                    barriers.push(id.clone());
                }
                if scenario == "malformed-cancels" && m.method() == Some(cancel) {
                    continue;
                }
                if let Err(e) = cancelcheck_wire::schema::check_client_message(d, &m) {
                    panic!("{d} {scenario}: the probe sent {text}: {e}");
                }
            } else if dir == "received"
                && let cancelcheck_wire::WireMessage::Response {
                    id,
                    body: cancelcheck_wire::Body::Error { code, .. },
                } = &m
            {
                assert!(
                    !matches!(code, -32602 | -32601) || barriers.contains(id),
                    "{d} {scenario}: the peer refused a request of the probe's: {text}"
                );
            }
        }
    }
}

/// The `sessionId`s the agent's answers to `session/new` gave, in a scenario's messages.
fn sessions_opened(msgs: &[(String, String)]) -> Vec<Value> {
    let asked: Vec<String> = msgs
        .iter()
        .filter(|(d, t)| d == "sent" && t.contains("\"session/new\""))
        .map(|(_, t)| parse(t).id().unwrap().to_json_text())
        .collect();
    msgs.iter()
        .filter(|(d, _)| d == "received")
        .filter_map(|(_, t)| match parse(t) {
            cancelcheck_wire::WireMessage::Response {
                id,
                body: cancelcheck_wire::Body::Result(r),
            } if asked.contains(&id.to_json_text()) => r.get("sessionId").cloned(),
            _ => None,
        })
        .collect()
}

/// Asserts that every `session/prompt` and `session/cancel` the probe sent names a session the
/// agent opened, and that no prompt was sent into a session whose prompt was still open.
fn assert_sessions_are_the_agents(v: &Value) {
    for (scenario, msgs) in wire_of(v) {
        let opened = sessions_opened(&msgs);
        // Prompt id -> its session, while unanswered.
        let mut open: Vec<(String, Value)> = Vec::new();
        for (dir, text) in &msgs {
            let m = parse(text);
            let session = |m: &cancelcheck_wire::WireMessage| match m {
                cancelcheck_wire::WireMessage::Request { params, .. }
                | cancelcheck_wire::WireMessage::Notification { params, .. } => params
                    .as_ref()
                    .and_then(|p| p.get("sessionId"))
                    .cloned()
                    .unwrap_or(Value::Null),
                _ => Value::Null,
            };
            match (dir.as_str(), m.method()) {
                ("sent", Some("session/prompt")) => {
                    let s = session(&m);
                    assert!(
                        opened.contains(&s),
                        "{scenario}: {text} names {s}, not one of {opened:?}"
                    );
                    assert!(
                        !open.iter().any(|(_, o)| *o == s),
                        "{scenario}: a second prompt in session {s} while one is open: {text}"
                    );
                    open.push((m.id().unwrap().to_json_text(), s));
                }
                ("sent", Some("session/cancel")) => {
                    let s = session(&m);
                    assert!(
                        opened.contains(&s),
                        "{scenario}: {text} names {s}, not one of {opened:?}"
                    );
                }
                ("received", None) => {
                    let id = m.id().unwrap().to_json_text();
                    open.retain(|(p, _)| *p != id);
                }
                _ => {}
            }
        }
    }
}

/// ACP with the default prompt against agents that validate it as the ACP SDKs do: every
/// message the probe sends is valid for the schema (a prompt is an array of content blocks in
/// a session the agent opened), the agent refuses none, and the correct agent (one that asks
/// permission, as `session-cancel` needs) passes every scenario.
#[test]
fn the_default_prompt_is_valid_acp_and_a_strict_agent_passes_every_scenario() {
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        let (v, code, _) = probe(
            &format!("{d}-strict-default"),
            &["--dialect", d.id(), "--jobs", "4", "--save-all"],
            &["--dialect", d.id(), "--work-ms", "80", "--ask-permission"],
        );
        assert_valid_for_the_schema(d, &v);
        assert_eq!(v["verdict"], "pass", "{d}: {v:#}");
        assert_eq!(code, 0);
    }
}

/// ACP: the probe's `session/cancel` and its prompts name the session the agent returned from
/// `session/new`, and never two prompts at once in one session (the scenario with two requests
/// at once opens a session for each); an agent that looks its sessions up, and ignores a
/// cancel naming a session it never opened, passes every scenario, whether it acts on a cancel
/// at once or after the barrier behind it.
#[test]
fn session_cancel_names_the_session_the_agent_opened() {
    for lazy in [false, true] {
        let mut peer = vec!["--dialect", "acp", "--ask-permission"];
        if lazy {
            peer.push("--lazy-cancel");
        }
        let (v, code, _) = probe(
            &format!("acp-sessions-{lazy}"),
            &[
                "--dialect",
                "acp",
                "--params",
                ACP_PROMPT,
                "--jobs",
                "4",
                "--save-all",
            ],
            &peer,
        );
        assert_sessions_are_the_agents(&v);
        assert_eq!(v["verdict"], "pass", "lazy={lazy}: {v:#}");
        assert_eq!(code, 0);
        let cancels = wire_of(&v)
            .iter()
            .flat_map(|(_, m)| m.iter())
            .filter(|(d, t)| d == "sent" && t.contains("\"session/cancel\""))
            .count();
        assert!(cancels >= 8, "{cancels} session/cancel sent");
    }
}

/// ACP: a request other than `session/prompt` (here an extension method of the agent's) is
/// cancelled with the generic `$/cancel_request` and judged by the generic rules (one answer:
/// a result or -32800), never with `session/cancel` and the rules of a prompt turn; the
/// scenarios of prompt turns do not run.
#[test]
fn a_request_other_than_a_prompt_is_cancelled_with_the_generic_cancel() {
    let (v, code, _) = probe(
        "acp-other-method",
        &[
            "--dialect",
            "acp",
            "--method",
            "_cancelcheck/slow",
            "--params",
            r#"{"ms":300}"#,
            "--jobs",
            "4",
            "--save-all",
        ],
        &[
            "--dialect",
            "acp",
            "--work-method",
            "_cancelcheck/slow",
            "--lazy-cancel",
        ],
    );
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    assert_valid_for_the_schema(Dialect::Acp, &v);
    let names: Vec<&str> = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"session-cancel") && !names.contains(&"cancel-request-names-prompt"));
    let wire = wire_of(&v);
    for (scenario, msgs) in &wire {
        assert!(
            !msgs
                .iter()
                .any(|(d, t)| d == "sent" && t.contains("session/cancel")),
            "{scenario}: {msgs:#?}"
        );
    }
    let (_, during) = wire
        .iter()
        .find(|(s, _)| s == "cancel-during-work")
        .unwrap();
    assert!(
        during.iter().any(|(d, t)| d == "sent"
            && t.contains(r#""method":"$/cancel_request","params":{"requestId":2}"#)),
        "{during:#?}"
    );
    assert!(
        during
            .iter()
            .any(|(d, t)| d == "received" && t.contains(r#""id":2,"error":{"code":-32800"#)),
        "{during:#?}"
    );
}

/// MCP 2026-07-28 against a server that requires what that version requires of every request
/// (the protocol version and client capabilities in `_meta`, answering -32602 without them):
/// every message the probe sends is valid for that version's schema (no `initialize`, no
/// `ping`: the barrier is `server/discover`), the server refuses none, and the correct server
/// passes every scenario.
#[test]
fn an_mcp_2026_server_gets_the_metadata_it_requires() {
    let d = Dialect::Mcp20260728;
    let (v, code, _) = probe(
        "mcp-2026-strict",
        &[
            "--dialect",
            d.id(),
            "--params",
            FAST,
            "--jobs",
            "4",
            "--save-all",
        ],
        &["--dialect", d.id(), "--lazy-cancel"],
    );
    assert_valid_for_the_schema(d, &v);
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    assert!(v["protocol"].is_null(), "{:#}", v["protocol"]);
}

/// A peer that speaks another protocol version than the dialect names (it answers
/// `initialize` with another, or a 2026-07-28 probe finds a server of an older version) is
/// named on the report's first lines and in `--json`, never judged silently by a text it does
/// not claim to speak.
#[test]
fn a_peer_of_another_protocol_version_is_named_at_the_top() {
    for (d, version, params) in [
        (Dialect::Acp, "2", ACP_PROMPT),
        (Dialect::Mcp20251125, "2025-06-18", FAST),
        (Dialect::Mcp20260728, "2025-11-25", FAST),
    ] {
        let flags = [
            "--dialect",
            d.id(),
            "--params",
            params,
            "--scenarios",
            "cancel-during-work",
        ];
        let peer = ["--dialect", d.id(), "--protocol-version", version];
        let (v, _, _) = probe(&format!("{d}-version-{version}"), &flags, &peer);
        let p = &v["protocol"];
        assert_eq!(
            p["dialect_version"],
            cancelcheck_wire::client::expected_version(d).unwrap(),
            "{v:#}"
        );
        assert!(p["peer"].as_str().unwrap().contains(version), "{d}: {p:#}");
        // In text, on the lines before the table.
        let (text, top) = report_top(&flags, &peer);
        assert!(
            top.iter()
                .any(|l| l.contains("protocol") && l.contains(version)),
            "{d}: {text}"
        );
    }
    // The peer of the dialect's own version: nothing is said.
    let (v, _, _) = probe(
        "mcp-2025-version-same",
        &mcp(&["--scenarios", "cancel-during-work"]),
        &["--dialect", "mcp-2025-11-25"],
    );
    assert!(v["protocol"].is_null(), "{v:#}");
}

/// Issue #25: a scenario whose work request was answered before its cancel was sent (a tool
/// that returns at once) tested nothing: `vacuous`, with why and what would fix it, never
/// `pass`; and a run in which no scenario's cancel reached a request in flight is `vacuous`
/// (exit 0). A work request the peer refuses (an unknown method, -32601) never ran: the same.
#[test]
fn a_work_request_answered_before_its_cancel_or_refused_is_vacuous_never_a_pass() {
    let fast = r#"{"name":"slow","arguments":{"ms":0}}"#;
    let (v, code, _) = probe(
        "vacuous-fast",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--params",
            fast,
            "--scenarios",
            "cancel-during-work,id-zero,two-concurrent-one-cancelled,same-cancel-twice",
        ],
        &["--dialect", "mcp-2025-11-25"],
    );
    assert_eq!(v["verdict"], "vacuous", "{v:#}");
    assert_eq!(code, 0);
    assert!(v["vacuous_because"][0].is_string(), "{v:#}");
    for s in v["scenarios"].as_array().unwrap() {
        assert_eq!(s["verdict"], "vacuous", "{s:#}");
        let why = s["vacuous_because"][0].as_str().unwrap_or("");
        assert!(
            why.contains("was answered") && why.contains("--method/--params"),
            "{s:#}"
        );
    }
    let (v, code, _) = probe(
        "vacuous-refused",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--method",
            "tools/unknown",
            "--params",
            "{}",
            "--scenarios",
            "cancel-during-work,unknown-id",
        ],
        &["--dialect", "mcp-2025-11-25"],
    );
    assert_eq!(v["verdict"], "vacuous", "{v:#}");
    assert_eq!(code, 0);
    for s in v["scenarios"].as_array().unwrap() {
        assert_eq!(s["verdict"], "vacuous", "{s:#}");
        assert_eq!(s["errors"], Value::Array(vec![]), "{s:#}");
        let why = s["vacuous_because"][0].as_str().unwrap_or("");
        assert!(why.contains("-32601") && why.contains("--method"), "{s:#}");
    }
}

/// Issue #25: a peer that stops a request for a cancel naming another id (`cancel-cancels-all`:
/// the cancel of 7 stops "7"; the cancel of one of two requests stops both) never answers it.
/// After the barrier proved the cancel read, the probe sends the same work again; that control
/// answered while the untouched request, read before it, never is, is `exact-id-match` (MUST)
/// decided from the wire under the assumption the verdict names, never a `timeout`.
#[test]
fn a_request_stopped_by_a_cancel_of_another_id_is_exact_id_match_not_a_timeout() {
    for d in ["mcp-2025-11-25", "mcp-2026-07-28"] {
        let (v, code, _) = probe(
            &format!("dropped-{d}"),
            &[
                "--dialect",
                d,
                "--params",
                FAST,
                "--scenarios",
                "string-vs-number,two-concurrent-one-cancelled",
                "--timeout",
                "5000",
            ],
            &["--dialect", d, "--behavior", "cancel-cancels-all"],
        );
        assert_eq!(code, 1, "{v:#}");
        for s in v["scenarios"].as_array().unwrap() {
            assert_eq!(s["errors"], Value::Array(vec![]), "{d}: {s:#}");
            let broken: Vec<&str> = s["violations"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|x| x["invariant"].as_str())
                .collect();
            assert_eq!(broken, ["exact-id-match"], "{d}: {s:#}");
            let assumed = s["assumptions"][0].as_str().unwrap_or("");
            assert!(assumed.contains("assuming"), "{d}: {s:#}");
        }
        // The correct peer answers the request it did not cancel: no finding, no assumption.
        let (v, code, _) = probe(
            &format!("undropped-{d}"),
            &[
                "--dialect",
                d,
                "--params",
                FAST,
                "--scenarios",
                "string-vs-number,two-concurrent-one-cancelled",
            ],
            &["--dialect", d],
        );
        assert_eq!(v["verdict"], "pass", "{d}: {v:#}");
        assert_eq!(code, 0);
        for s in v["scenarios"].as_array().unwrap() {
            assert_eq!(s["assumptions"], Value::Array(vec![]), "{d}: {s:#}");
        }
    }
}

/// `replay` of a probe trace shows its messages in every format, numbered as the file's
/// `messages` are, with the finding at the message that broke the rule.
#[test]
fn replay_shows_a_probe_trace_as_a_timeline_in_every_format() {
    use cancelcheck::probe::timeline::View;
    let (v, code, _) = probe(
        "replay-views",
        &["--dialect", "lsp", "--scenarios", "cancel-during-work"],
        &[
            "--dialect",
            "lsp",
            "--behavior",
            "wrong-error-code",
            "--lazy-cancel",
        ],
    );
    assert_eq!(code, 1, "{v}");
    let file = PathBuf::from(v["scenarios"][0]["trace"].as_str().expect("saved"));
    let text = std::fs::read_to_string(&file).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let messages = doc["messages"].as_array().unwrap();
    // The message that broke cancel-error-code: the answer to the cancelled request.
    let n = messages
        .iter()
        .position(|m| m["dir"] == "received" && m["text"].as_str().unwrap().contains("-32603"))
        .expect("the -32603 answer is recorded");
    let show = |view| {
        cancelcheck::probe::replay(&file, &text, view)
            .unwrap()
            .expect("a probe trace")
    };
    let (out, code) = show(View::Text);
    assert_eq!(code, 0);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("#{n} ")))
        .unwrap_or_else(|| panic!("no line #{n}:\n{out}"));
    assert!(
        line.contains("peer -> probe") && line.contains("error -32603"),
        "{line}"
    );
    assert!(line.ends_with("<- MUST cancel-error-code"), "{line}");
    assert!(
        out.contains(&format!("MUST cancel-error-code at message #{n}")),
        "{out}"
    );
    assert_eq!(
        out.lines()
            .filter(|l| l.trim_start().starts_with('#'))
            .count(),
        messages.len() + 1,
        "a line per message, and the header:\n{out}"
    );
    let (json, _) = show(View::Json);
    let j: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["findings"][0]["message"], n);
    assert_eq!(j["timeline"].as_array().unwrap().len(), messages.len());
    let (mermaid, _) = show(View::Mermaid);
    assert!(mermaid.starts_with("sequenceDiagram\n"), "{mermaid}");
    assert!(
        mermaid.contains(&format!("S->>P: #35;{n} id=2 error -32603")),
        "{mermaid}"
    );
    assert!(
        mermaid.contains("Note over S: MUST cancel-error-code"),
        "{mermaid}"
    );
    let (html, _) = show(View::Html);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<pre class=\"timeline\">"));
    assert!(html.contains(&format!("MUST cancel-error-code at message #{n}")));
    assert!(html.contains("sequenceDiagram"));
}

/// A peer that answers a request it stops for a cancel with error 0 "Request cancelled" (as
/// some SDKs do), before the probe's barrier is answered: without a declared lower bound on the
/// work's duration, that answer is "not decidable" (never a pass); with `--min-work-ms` below
/// the work's duration, it is caused by the cancel and judged so, the assumption named.
#[test]
fn an_answer_caused_by_the_cancel_is_not_a_crossing_once_the_work_is_known_to_take_longer() {
    let scenarios = ["--scenarios", "cancel-before-work,cancel-during-work"];
    // Work of 2 s, declared to take at least 1.5 s: the cancel's answer comes long before.
    let lsp = r#"{"command":"slow","arguments":[{"ms":2000}]}"#;
    let mcp = r#"{"name":"slow","arguments":{"ms":2000}}"#;
    for (dialect, behaviour, rule, work) in [
        ("lsp", "honour", "cancel-error-code", lsp),
        (
            "mcp-2025-11-25",
            "answers-after-cancel",
            "no-answer-after-cancel",
            mcp,
        ),
    ] {
        let peer = [
            "--dialect",
            dialect,
            "--behavior",
            behaviour,
            "--cancel-code-zero",
        ];
        let mut flags = vec!["--dialect", dialect, "--params", work];
        flags.extend_from_slice(&scenarios);
        let (v, code, _) = probe("code-zero", &flags, &peer);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["verdict"], "vacuous", "{v}");
        for s in v["scenarios"].as_array().unwrap() {
            assert_eq!(s["verdict"], "vacuous", "{dialect}: {s}");
            let why = s["vacuous_because"][0].as_str().unwrap();
            assert!(
                why.starts_with("not decidable: ") && why.contains("--min-work-ms"),
                "{why}"
            );
        }
        flags.extend_from_slice(&["--min-work-ms", "1500"]);
        let (v, _, _) = probe("code-zero-min", &flags, &peer);
        let (inv, err) = findings(&v);
        assert_eq!(inv, [rule], "{dialect}: {v}");
        assert!(err.is_empty(), "{err:?}");
        for s in v["scenarios"].as_array().unwrap() {
            assert_eq!(s["violations"][0]["invariant"], rule, "{dialect}: {s}");
            let a = s["assumptions"][0].as_str().unwrap();
            assert!(
                a.contains("sooner than the 1500 ms") && a.contains("caused by the cancel"),
                "{a}"
            );
        }
    }
}

/// A server whose first call is slower than the rest (it loads what later calls reuse, as the
/// SDKs' servers do): `cancel-crossing-answer` measures the work on that first call, so a
/// cancel timed from it came after the second call's answer, and the scenario tested nothing
/// (`vacuous`) on a correct server. It measures again on each call answered too soon, and
/// cancels the work in flight.
#[test]
fn the_crossing_cancel_reaches_work_in_flight_after_a_slow_first_call() {
    let (v, code, _) = probe(
        "cold-start",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--scenarios",
            "cancel-crossing-answer",
            "--repeat",
            "3",
            "--params",
            r#"{"name":"slow","arguments":{"ms":200}}"#,
        ],
        &["--dialect", "mcp-2025-11-25", "--cold-start-ms", "400"],
    );
    for s in v["scenarios"].as_array().unwrap() {
        assert_eq!(s["verdict"], "pass", "{s:#}");
        assert_eq!(s["vacuous_because"], Value::Array(vec![]), "{s:#}");
    }
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
}

/// Writes `recipe` (JSON) as `recipe.json` in a scratch folder; returns its path.
fn recipe_file(name: &str, recipe: &str) -> PathBuf {
    let dir = scratch(&format!("recipe-{name}"));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let file = dir.join("recipe.json");
    std::fs::write(&file, recipe).expect("recipe written");
    file
}

/// Runs the probe expecting a usage error (exit 2): its message, and whether the save folder
/// is still absent (no trace written).
fn probe_error(name: &str, flags: &[&str], peer: &[&str]) -> (String, bool) {
    let save = scratch(&format!("save-{name}"));
    let mut argv: Vec<String> = vec!["probe".into(), "--json".into(), "--save".into()];
    argv.push(save.display().to_string());
    argv.extend(flags.iter().map(|s| s.to_string()));
    argv.push("--".into());
    argv.push(PEER.into());
    argv.extend(peer.iter().map(|s| s.to_string()));
    let cli = Cli::try_parse_from(&argv).expect("arguments parse");
    let e = run(cli.args).expect_err("a usage error");
    (e.to_string(), !save.exists())
}

/// Issue #25: a recipe's set-up step the peer refuses is a usage error (exit 2) naming the
/// step (its index and method) and what the peer answered; no verdict, no trace.
#[test]
fn a_recipe_whose_set_up_step_is_refused_names_the_step_and_writes_no_trace() {
    let file = recipe_file(
        "refused",
        r#"{"setup": [{"notification": "x/hello", "params": {}},
                      {"request": "x/prepare", "params": {"p": 1}, "timeout_ms": 5000}],
            "work": {"method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 80}}}}"#,
    );
    let f = file.display().to_string();
    let (e, no_trace) = probe_error(
        "recipe-refused",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--recipe",
            &f,
            "--scenarios",
            "cancel-during-work",
        ],
        &["--dialect", "mcp-2025-11-25"],
    );
    assert!(e.contains("set-up step 1 (x/prepare)"), "{e}");
    assert!(e.contains("error -32601"), "{e}");
    assert!(e.contains(&f), "{e}");
    assert!(no_trace, "a trace was written");
}

/// Issue #25: a peer not ready for a while after it starts (`--ready-ms`: it answers work at
/// once until it sends `cancelcheck/ready`, as a language server loading its workspace does)
/// exercises nothing with the defaults; a recipe that waits for its readiness notification,
/// or as a last resort a fixed delay (stated as an assumption), tests it.
#[test]
fn a_recipe_waits_for_the_peers_readiness_notification() {
    let peer = ["--dialect", "mcp-2025-11-25", "--ready-ms", "600"];
    let scenarios = [
        "--scenarios",
        "cancel-during-work,two-concurrent-one-cancelled",
    ];
    let mut flags = mcp(&scenarios);
    flags.extend(["--timeout", "20000"]);
    let (v, _, _) = probe("not-ready", &flags, &peer);
    assert_eq!(v["verdict"], "vacuous", "{v:#}");
    let work =
        r#""work": {"method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 150}}}"#;
    let waits = recipe_file(
        "ready",
        &format!(
            r#"{{"ready": {{"notification": "cancelcheck/ready", "params": {{"ready": true}}, "timeout_ms": 15000}}, {work}}}"#
        ),
    );
    let w = waits.display().to_string();
    let mut flags = vec![
        "--dialect",
        "mcp-2025-11-25",
        "--recipe",
        &w,
        "--timeout",
        "20000",
    ];
    flags.extend(scenarios);
    let (v, code, _) = probe("ready", &flags, &peer);
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    assert_eq!(
        v["scenarios"][0]["assumptions"],
        Value::Array(vec![]),
        "{v:#}"
    );
    let delays = recipe_file(
        "delay",
        &format!(r#"{{"ready": {{"delay_ms": 900}}, {work}}}"#),
    );
    let d = delays.display().to_string();
    let mut flags = vec![
        "--dialect",
        "mcp-2025-11-25",
        "--recipe",
        &d,
        "--timeout",
        "20000",
    ];
    flags.extend(scenarios);
    let (v, _, _) = probe("delay", &flags, &peer);
    assert_eq!(v["verdict"], "pass", "{v:#}");
    let said = v["scenarios"][0]["assumptions"][0].as_str().unwrap_or("");
    assert!(
        said.contains("900 ms") && said.contains("delay_ms"),
        "{v:#}"
    );
    // A readiness notification that never comes names itself.
    let never = recipe_file(
        "never",
        &format!(r#"{{"ready": {{"notification": "x/never", "timeout_ms": 300}}, {work}}}"#),
    );
    let n = never.display().to_string();
    let (e, no_trace) = probe_error(
        "never",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--recipe",
            &n,
            "--scenarios",
            "cancel-during-work",
        ],
        &peer,
    );
    assert!(
        e.contains("ready: the notification x/never not received within 300 ms"),
        "{e}"
    );
    assert!(no_trace);
    // A readiness notification larger than --max-frame is named, with the fix.
    let waits_only = recipe_file(
        "ready-only",
        &format!(
            r#"{{"ready": {{"notification": "cancelcheck/ready", "timeout_ms": 3000}}, {work}}}"#
        ),
    );
    let r = waits_only.display().to_string();
    let big = [
        "--dialect",
        "mcp-2025-11-25",
        "--ready-ms",
        "300",
        "--ready-pad",
        "9000",
    ];
    let (e, _) = probe_error(
        "ready-too-big",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--recipe",
            &r,
            "--max-frame",
            "8192",
            "--scenarios",
            "cancel-during-work",
        ],
        &big,
    );
    assert!(
        e.contains("which may have been it: if it is larger than --max-frame (8192 bytes), raise --max-frame"),
        "{e}"
    );
    // The set-up fails alike in every session: the first failure stops the run.
    let (e, _) = probe_error(
        "never-repeated",
        &[
            "--dialect",
            "mcp-2025-11-25",
            "--recipe",
            &n,
            "--repeat",
            "3",
            "--jobs",
            "1",
        ],
        &peer,
    );
    assert!(
        e.contains("1 of 36 sessions run, the rest not started"),
        "{e}"
    );
}

/// Issue #25: a recipe that is not what the schema says is an error naming the file and the
/// field's path (exit 2, nothing run); so is an `initialize` merge that breaks what the
/// dialect requires, and a recipe given with --method or --params.
#[test]
fn a_bad_recipe_is_an_error_with_the_field_path() {
    let cases = [
        (
            r#"{"setup": [{"request": "a"}, {"request": "b", "timeout_ms": "soon"}]}"#,
            "mcp-2025-11-25",
            "setup[1].timeout_ms: invalid type",
        ),
        (
            r#"{"setup": [{"params": {}}]}"#,
            "mcp-2025-11-25",
            "setup[0]: give exactly one",
        ),
        (
            r#"{"ready": {"delay_ms": 5, "notification": "x"}}"#,
            "lsp",
            "ready: give exactly one",
        ),
        (
            r#"{"work": {"params": {}}}"#,
            "lsp",
            "work: missing field `method`",
        ),
        (
            r#"{"initialize": {"capabilities": 3}}"#,
            "lsp",
            "initialize: params.capabilities",
        ),
        (
            r#"{"work": {"method": "workspace/executeCommand", "params": {"arguments": []}}}"#,
            "lsp",
            "work.params: workspace/executeCommand: params.command",
        ),
        (r#"{"setup": [] "#, "lsp", "line 1, column"),
    ];
    for (i, (text, dialect, want)) in cases.iter().enumerate() {
        let file = recipe_file(&format!("bad{i}"), text);
        let f = file.display().to_string();
        let (e, no_trace) = probe_error(
            &format!("bad{i}"),
            &["--dialect", dialect, "--recipe", &f],
            &[],
        );
        assert!(e.contains(&f) && e.contains(want), "{text}: {e}");
        assert!(no_trace);
    }
    let argv = [
        "cc",
        "--dialect",
        "lsp",
        "--recipe",
        "r.json",
        "--method",
        "m",
        "--",
        PEER,
    ];
    assert!(Cli::try_parse_from(argv).is_err());
}

/// Issue #25, found against pyright: a language server asks the client to create a progress
/// token (`window/workDoneProgress/create`) before its work and fails the work with the
/// client's error when it is refused. The probe answered it -32601, so every scenario's work
/// was refused and the run tested nothing; it now accepts what a client accepts without
/// serving anything (`--progress-create` makes the test peer behave so).
#[test]
fn a_language_server_that_asks_for_a_progress_token_gets_one() {
    let file = recipe_file(
        "progress",
        r#"{"initialize": {"capabilities": {"window": {"workDoneProgress": true}}},
            "work": {"method": "workspace/executeCommand", "params": {"command": "slow", "arguments": [{"ms": 80}]}}}"#,
    );
    let f = file.display().to_string();
    let (v, code, _) = probe(
        "progress-create",
        &[
            "--dialect",
            "lsp",
            "--recipe",
            &f,
            "--scenarios",
            "cancel-during-work,id-zero",
        ],
        &["--dialect", "lsp", "--progress-create"],
    );
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
}

/// A server that answers every call with a tool's error result (a tool it does not have, as
/// an SDK answers one) ran no work: no scenario's cancel decided anything, and the run is
/// `vacuous`, never `pass`. A cancelled call answered so before the barrier is not decidable;
/// a call no cancel named answered so says the work fails on its own.
#[test]
fn work_that_fails_with_a_tool_error_tests_nothing() {
    for dialect in ["mcp-2025-11-25", "mcp-2026-07-28"] {
        let (v, code, _) = probe(
            "tool-error",
            &["--dialect", dialect, "--params", FAST],
            &["--dialect", dialect, "--tool-error"],
        );
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["verdict"], "vacuous", "{dialect}: {v}");
        let (inv, err) = findings(&v);
        assert!(inv.is_empty() && err.is_empty(), "{inv:?} {err:?}");
        for s in v["scenarios"].as_array().unwrap() {
            let name = s["name"].as_str().unwrap_or_default();
            let claims = ![
                "cancel-after-answer",
                "unknown-id",
                "malformed-cancels",
                "progress-after-answer",
            ]
            .contains(&name);
            if claims {
                assert_eq!(s["verdict"], "vacuous", "{dialect}: {s}");
            }
            if name == "string-vs-number" {
                let why = s["vacuous_because"][0].as_str().unwrap();
                assert!(
                    why.contains("which no cancel named") && why.contains("Unknown tool"),
                    "{why}"
                );
            }
        }
    }
}

/// Issue #25: a peer that answers every request -32601 (the handshake and `ping` too) runs no
/// work. In the dialects with a handshake no session opens and no work request is sent; in
/// MCP 2026-07-28 the work request is refused. Either way every scenario tested nothing:
/// `vacuous`, with why and what would fix it, never `pass` (the scenarios that claim no cancel
/// in flight, `unknown-id`, `malformed-cancels`, `cancel-after-answer`, included); and a refused
/// handshake is said at the top, in text and in `--json`.
#[test]
fn a_peer_that_refuses_every_request_tests_nothing() {
    for d in [
        Dialect::Mcp20251125,
        Dialect::Mcp20260728,
        Dialect::Acp,
        Dialect::AcpRfd,
        Dialect::Lsp,
    ] {
        let flags = ["--dialect", d.id(), "--timeout", "20000"];
        let peer = ["--dialect", d.id(), "--refuse-all"];
        let (v, code, _) = probe(&format!("refuse-all-{d}"), &flags, &peer);
        assert_eq!(v["verdict"], "vacuous", "{d}: {v:#}");
        assert_eq!(code, 0, "{d}: {v:#}");
        let scenarios = v["scenarios"].as_array().unwrap();
        assert!(scenarios.len() >= 12, "{d}: {v:#}");
        for s in scenarios {
            assert_eq!(s["verdict"], "vacuous", "{d}: {s:#}");
            let why = s["vacuous_because"][0].as_str().unwrap_or("");
            assert!(why.contains("-32601"), "{d}: {s:#}");
            assert!(why.contains("--recipe"), "{d}: {s:#}");
        }
        let handshake = d.rules().initialize_method.is_some();
        if !handshake {
            assert!(v["handshake_refused"].is_null(), "{d}: {v:#}");
            continue;
        }
        let refused = v["handshake_refused"].as_str().unwrap_or("");
        assert!(
            refused.contains("initialize") && refused.contains("-32601"),
            "{d}: {v:#}"
        );
        // In text, on the lines before the table.
        let (text, top) = report_top(&flags, &peer);
        assert!(
            top.iter()
                .any(|l| l.starts_with("handshake refused:") && l.contains("-32601")),
            "{d}: {text}"
        );
    }
}

/// Issue #25: an ACP agent that refuses to open a session (it wants `authenticate` first, as
/// real agents do before they are logged in) is not broken, and the probe tested nothing: every
/// scenario is vacuous with the fix (a recipe's set-up), never a session error that fails it,
/// and the report's first lines say so.
#[test]
fn an_agent_that_wants_authentication_first_tests_nothing_and_fails_nothing() {
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        let flags = ["--dialect", d.id(), "--timeout", "20000"];
        let peer = ["--dialect", d.id(), "--auth-required"];
        let (v, code, _) = probe(&format!("auth-required-{d}"), &flags, &peer);
        assert_eq!(v["verdict"], "vacuous", "{d}: {v:#}");
        assert_eq!(code, 0, "{d}: {v:#}");
        for s in v["scenarios"].as_array().unwrap() {
            assert_eq!(s["verdict"], "vacuous", "{d}: {s:#}");
            assert!(
                s["errors"].as_array().is_none_or(Vec::is_empty),
                "{d}: {s:#}"
            );
            let why = s["vacuous_because"][0].as_str().unwrap_or("");
            assert!(
                why.contains("session/new") && why.contains("-32000"),
                "{d}: {s:#}"
            );
            assert!(why.contains("authenticate"), "{d}: {s:#}");
        }
        let refused = v["handshake_refused"].as_str().unwrap_or("");
        assert!(refused.contains("session/new"), "{d}: {v:#}");
    }
}

/// Issue #25: the recipes examples/peers/probe-all probes the SDK peers with
/// (`FOLDER/recipe.json`, one a peer) are valid for each dialect the peer is probed in
/// (`examples/peers/runs`): the test peer, strict as the SDKs are, runs their work and the
/// run passes.
#[test]
fn every_sdk_peer_recipe_probes_a_strict_peer_of_its_dialect() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let runs = std::fs::read_to_string(root.join("examples/peers/runs")).expect("runs");
    let mut probed = 0;
    for line in runs
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (run, folder, dialect) = (words[0], words[1], words[3]);
        let recipe = root.join(format!("examples/peers/{folder}/recipe.json"));
        assert!(recipe.is_file(), "{run}: no {}", recipe.display());
        let flags = [
            "--dialect",
            dialect,
            "--recipe",
            recipe.to_str().unwrap(),
            "--scenarios",
            "cancel-during-work,unknown-id",
        ];
        let (v, code, _) = probe(&format!("recipe-{run}"), &flags, &["--dialect", dialect]);
        assert_eq!(v["verdict"], "pass", "{run}: {v:#}");
        assert_eq!(code, 0, "{run}");
        probed += 1;
    }
    assert!(probed >= 11, "{probed}");
}

/// The ACP RFD: an agent that declares no support for `$/cancelRequest` is never sent one
/// (`capability-gated` binds the sender, the probe), so it is never failed under that rule;
/// every scenario that needed the cancel is vacuous and says why, and so is the run.
#[test]
fn an_rfd_agent_that_declares_no_cancel_support_is_sent_none_and_the_run_is_vacuous() {
    let d = Dialect::AcpRfd;
    let (v, code, _) = probe(
        "rfd-no-cancel-support",
        &[
            "--dialect",
            d.id(),
            "--params",
            ACP_PROMPT,
            "--jobs",
            "4",
            "--save-all",
        ],
        &[
            "--dialect",
            d.id(),
            "--no-cancel-support",
            "--ask-permission",
        ],
    );
    assert_eq!(v["verdict"], "vacuous", "{v:#}");
    assert_eq!(code, 0, "{v:#}");
    let (inv, errors) = findings(&v);
    assert!(
        inv.is_empty() && errors.is_empty(),
        "{inv:?} {errors:?}: {v:#}"
    );
    let mut withheld = 0;
    for s in v["scenarios"].as_array().unwrap() {
        let doc: Value = serde_json::from_str(
            &std::fs::read_to_string(s["trace"].as_str().expect("saved with --save-all")).unwrap(),
        )
        .unwrap();
        for m in doc["messages"].as_array().unwrap() {
            let t = m["text"].as_str().unwrap_or("");
            assert!(
                !(m["dir"] == "sent" && t.contains("$/cancelRequest")),
                "{}: the probe sent the cancel the agent declared it does not take: {t}",
                s["name"]
            );
        }
        let why = s["vacuous_because"].to_string();
        if why.contains("declares no support for $/cancelRequest") {
            withheld += 1;
            assert_eq!(s["verdict"], "vacuous", "{}", s["name"]);
        }
    }
    assert!(
        withheld > 0,
        "no scenario said why it held its cancel back: {v:#}"
    );
}

/// ACP: `session-cancel` against an agent that never asks permission did not reach its point
/// (a cancel while the agent waits on its own request): vacuous, with why, never a pass.
#[test]
fn session_cancel_with_an_agent_that_never_asks_is_vacuous() {
    let d = Dialect::Acp;
    let (v, code, _) = probe(
        "session-cancel-no-permission",
        &[
            "--dialect",
            d.id(),
            "--params",
            ACP_PROMPT,
            "--scenarios",
            "session-cancel",
        ],
        &["--dialect", d.id()],
    );
    assert_eq!(v["verdict"], "vacuous", "{v:#}");
    assert_eq!(code, 0);
    let why = v["scenarios"][0]["vacuous_because"].to_string();
    assert!(why.contains("session/request_permission"), "{why}");
}

/// A peer that never answers a request of a method it does not know without params (as some
/// real LSP frameworks do) never answers the default barrier: no scenario can be decided, and
/// none passes. Named with `--barrier` (and `--barrier-params`), a request it does answer
/// decides them; the saved traces hold that request and re-judge to their verdicts.
#[test]
fn a_barrier_the_user_names_decides_what_the_default_one_cannot() {
    let peer = ["--dialect", "lsp", "--silent-unknown-without-params"];
    let base = ["--dialect", "lsp", "--jobs", "4"];
    // Every scenario waits out its time limit on the barrier nobody answers: a short one.
    let mut unanswered = base.to_vec();
    unanswered.extend(["--timeout", "1500"]);
    let (v, _, _) = probe("barrier-default", &unanswered, &peer);
    assert_ne!(v["verdict"], "pass", "{v:#}");
    assert!(
        v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["verdict"] != "pass"),
        "{v:#}"
    );
    let mut named = base.to_vec();
    named.extend([
        "--barrier",
        "workspace/symbol",
        "--barrier-params",
        r#"{"query":""}"#,
        "--save-all",
    ]);
    let (v, code, _) = probe("barrier-named", &named, &peer);
    assert_eq!(v["verdict"], "pass", "{v:#}");
    assert_eq!(code, 0);
    let mut barriers = 0;
    for s in v["scenarios"].as_array().unwrap() {
        let doc = saved_trace(s);
        let (fresh, same, _) = report::rejudge(&doc).unwrap().expect("a probe trace");
        assert!(same, "{}: {fresh:#}", s["name"]);
        barriers += doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| {
                let t = m["text"].as_str().unwrap_or("");
                m["dir"] == "sent"
                    && t.contains("cancelcheck-barrier-")
                    && t.contains("workspace/symbol")
            })
            .count();
    }
    assert!(barriers > 0, "{v:#}");
    // A barrier the judge would read as part of what it judges is refused, nothing run.
    for method in ["workspace/executeCommand", "initialize", "$/cancelRequest"] {
        let flags = ["--dialect", "lsp", "--barrier", method];
        let (e, no_trace) = probe_error("barrier-refused", &flags, &peer);
        assert!(
            e.starts_with(&format!("--barrier {method:?}: the judge reads")),
            "{e}"
        );
        assert!(no_trace);
    }
}

/// LSP lets a server answer a cancelled request in full. One that always does (`finish-first`)
/// acts on no cancel, so `string-vs-number`, `id-zero` and `empty-string-id`, which ask which
/// cancels it acts on, decide nothing: `vacuous`, with why, and the run with them; the saved
/// traces keep what the run taught them and re-judge alike. A server that acts on cancels
/// (`honour`) passes them.
#[test]
fn a_peer_that_acts_on_no_cancel_decides_nothing_about_which_cancels_it_acts_on() {
    let work = r#"{"command":"slow","arguments":[{"ms":300}]}"#;
    let scenarios = "cancel-during-work,string-vs-number,id-zero,empty-string-id";
    for (b, acts) in [("finish-first", false), ("honour", true)] {
        let flags = [
            "--dialect",
            "lsp",
            "--params",
            work,
            "--scenarios",
            scenarios,
            "--jobs",
            "4",
            "--save-all",
        ];
        let (v, code, _) = probe(
            &format!("acting-{b}"),
            &flags,
            &["--dialect", "lsp", "--behavior", b],
        );
        assert_eq!(code, 0, "{b}: {v:#}");
        assert_eq!(vacuous_for_no_acting(&v), !acts, "{b}: {v:#}");
        for s in v["scenarios"].as_array().unwrap() {
            let doc = saved_trace(s);
            assert_eq!(
                doc.get("from_run").is_some(),
                s["verdict"] == "vacuous",
                "{b}: {doc:#}"
            );
            let (fresh, same, _) = report::rejudge(&doc).unwrap().expect("a probe trace");
            assert!(same, "{b} {}: {fresh:#}", s["name"]);
        }
    }
}

/// `params: [id]` are by-position params to JSON-RPC (and LSP's `params?: array | object`), so
/// a server may read them as a cancel of the id they hold: `malformed-cancels` sends an array
/// naming an id never sent, and such a server passes, in each dialect whose cancel has params.
/// (It sent the work's own id, and the server was failed `exact-id-match` for reading it.)
#[test]
fn a_peer_that_reads_array_params_by_position_passes_malformed_cancels() {
    for dialect in ["lsp", "mcp-2025-11-25"] {
        let flags = [
            "--dialect",
            dialect,
            "--scenarios",
            "cancel-during-work,malformed-cancels",
        ];
        let peer = ["--dialect", dialect, "--positional-params"];
        let (v, code, _) = probe("positional-params", &flags, &peer);
        assert_eq!(
            (v["verdict"].as_str(), code),
            (Some("pass"), 0),
            "{dialect}: {v:#}"
        );
        let malformed = v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "malformed-cancels")
            .unwrap();
        assert_eq!(malformed["verdict"], "pass", "{dialect}: {v:#}");
    }
}
