//! `cancelcheck probe --url` against the test peer over MCP's Streamable HTTP
//! (`cancelcheck-testpeer --http`): the correct peer passes in both MCP dialects, the faults of
//! the streams are flagged with the rule they break (a MUST in 2026-07-28, a SHOULD in
//! 2025-11-25), other faults as over stdio, the saved traces re-judge to their verdict, and bad
//! usage is a clear error. Work requests run 300 ms or more (ten times the probe's pause before a
//! cancel), and what a server still sends on a stream is read for a second after the session.

use cancelcheck::probe::{report, run};
use clap::Parser;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const PEER: &str = env!("CARGO_BIN_EXE_cancelcheck-testpeer");
const URL: &str = "http://127.0.0.1:{port}/mcp";
const FAST: &str = r#"{"name":"slow","arguments":{"ms":300}}"#;

mod common;
use common::{Cli, scratch};

/// Probes over HTTP with `flags` (the test peer started per scenario with `peer`, if any);
/// every trace is saved under `name`, and each must re-judge to its recorded verdict.
fn probe(name: &str, dialect: &str, flags: &[&str], peer: Option<&[&str]>) -> (Value, u8) {
    let save = scratch(name);
    let mut argv: Vec<String> = [
        "probe",
        "--json",
        "--save-all",
        "--jobs",
        "2",
        "--linger",
        "1000",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    argv.extend(["--save".into(), save.display().to_string()]);
    argv.extend([
        "--dialect".into(),
        dialect.into(),
        "--params".into(),
        FAST.into(),
    ]);
    argv.extend(flags.iter().map(|s| s.to_string()));
    if let Some(peer) = peer {
        argv.extend(["--".into(), PEER.into(), "--dialect".into(), dialect.into()]);
        argv.extend(["--http".into(), "127.0.0.1:{port}".into()]);
        argv.extend(peer.iter().map(|s| s.to_string()));
    }
    let cli = Cli::try_parse_from(&argv).expect("arguments parse");
    let (text, code) = run(cli.args).expect("the probe runs");
    let v: Value = serde_json::from_str(&text).expect("--json prints JSON");
    for entry in std::fs::read_dir(&save).expect("traces saved") {
        let path = entry.unwrap().path();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (_, same, _) = report::rejudge(&doc).unwrap().expect("a probe trace");
        assert!(same, "{} re-judges to another verdict", path.display());
        assert!(
            doc["messages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["stream"].is_string())
        );
    }
    (v, code)
}

/// Each scenario's name, verdict and findings (invariants, then `error:KIND`).
fn rows(v: &Value) -> Vec<(String, String, Vec<String>)> {
    v["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| {
            let mut f: Vec<String> = s["violations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["invariant"].as_str().unwrap().to_string())
                .collect();
            f.extend(
                s["errors"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| format!("error:{}", e["kind"].as_str().unwrap())),
            );
            let name = s["name"].as_str().unwrap().to_string();
            (name, s["verdict"].as_str().unwrap().to_string(), f)
        })
        .collect()
}

#[test]
fn the_correct_peer_passes_over_http_in_both_mcp_dialects() {
    for (dialect, http_only) in [
        ("mcp-2025-11-25", "disconnect-resume"),
        ("mcp-2026-07-28", "progress-after-close"),
    ] {
        let (v, code) = probe(
            &format!("correct-{dialect}"),
            dialect,
            &["--url", URL],
            Some(&[]),
        );
        let rows = rows(&v);
        // Where closing the request's stream is the cancel (MCP 2026-07-28), no answer can
        // show the cancel acted: `id-zero`, whose point is whether the cancel of request 0
        // acts, decides nothing there. Every other scenario exercised what it claims.
        let undecided = |name: &str| dialect == "mcp-2026-07-28" && name == "id-zero";
        for (name, verdict, found) in &rows {
            let want = if undecided(name) { "vacuous" } else { "pass" };
            assert_eq!(
                (verdict.as_str(), found.len()),
                (want, 0),
                "{dialect} {name}: {v:#}"
            );
        }
        assert!(rows.iter().any(|r| r.0 == http_only), "{dialect}: {rows:?}");
        // A request answered after its stream dropped and was resumed shows the disconnect
        // was not taken for a cancel: the rule is decided there, not "not observable".
        if let Some(s) = v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "disconnect-resume")
        {
            let hidden = s["not_observable"].as_array().unwrap();
            assert!(
                !hidden.iter().any(|i| i == "disconnect-not-cancel"),
                "{s:#}"
            );
        }
        let run = if rows.iter().any(|r| undecided(&r.0)) {
            "vacuous"
        } else {
            "pass"
        };
        assert_eq!((v["verdict"].as_str(), code), (Some(run), 0));
        assert_eq!(v["url"], URL);
    }
}

/// The scenarios that flag `behaviour` in `dialect` (over HTTP, only `scenarios`).
fn flagged(dialect: &str, behaviour: &str, scenarios: &str) -> Vec<(String, String, Vec<String>)> {
    let name = format!("{behaviour}-{dialect}");
    // Work long enough that a cancel reaches it in flight on a loaded machine.
    let slow = r#"{"name":"slow","arguments":{"ms":400}}"#;
    let flags = ["--url", URL, "--scenarios", scenarios, "--params", slow];
    let (v, _) = probe(&name, dialect, &flags, Some(&["--behavior", behaviour]));
    rows(&v).into_iter().filter(|r| r.1 != "pass").collect()
}

#[test]
fn a_2026_server_that_works_on_after_its_stream_closed_breaks_the_must() {
    let rows = flagged(
        "mcp-2026-07-28",
        "works-after-close",
        "progress-after-close",
    );
    assert_eq!(
        rows,
        [(
            "progress-after-close".to_string(),
            "fail".to_string(),
            vec!["no-activity-after-cancel".to_string()]
        )]
    );
}

#[test]
fn a_2025_server_that_takes_a_disconnect_for_a_cancel_is_the_should_warning() {
    let rows = flagged(
        "mcp-2025-11-25",
        "cancels-on-disconnect",
        "disconnect-resume",
    );
    assert_eq!(
        rows,
        [(
            "disconnect-resume".to_string(),
            "warn".to_string(),
            vec!["disconnect-not-cancel".to_string()]
        )]
    );
}

/// A server whose event store loses the answer on the first resume, the work going on, is
/// not taken for one that took the disconnect for a cancel: a second resume brings the
/// answer, the scenario passes with `disconnect-not-cancel` decided, and what was seen is
/// said. The same server with a sound store needs no second resume.
#[test]
fn an_answer_lost_on_resumption_is_named_not_taken_for_a_disconnect_cancel() {
    let slow = r#"{"name":"slow","arguments":{"ms":400}}"#;
    let flags = [
        "--url",
        URL,
        "--scenarios",
        "disconnect-resume",
        "--params",
        slow,
    ];
    let (v, code) = probe(
        "lossy-resume",
        "mcp-2025-11-25",
        &flags,
        Some(&["--lossy-resume"]),
    );
    let s = &v["scenarios"][0];
    assert_eq!((s["verdict"].as_str(), code), (Some("pass"), 0), "{v:#}");
    assert!(
        !s["not_observable"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i == "disconnect-not-cancel"),
        "{s:#}"
    );
    let seen = s["assumptions"].to_string();
    assert!(seen.contains("lost its answer on resumption"), "{s:#}");
    let (v, _) = probe("sound-resume", "mcp-2025-11-25", &flags, Some(&[]));
    let s = &v["scenarios"][0];
    assert_eq!(s["verdict"], "pass", "{v:#}");
    assert!(
        !s["assumptions"].to_string().contains("resumption"),
        "{s:#}"
    );
}

#[test]
fn other_faults_are_flagged_over_http_as_over_stdio() {
    for (behaviour, scenario, invariant) in [
        (
            "answers-after-cancel",
            "cancel-during-work",
            "no-answer-after-cancel",
        ),
        (
            "cancel-cancels-all",
            "two-concurrent-one-cancelled",
            "exact-id-match",
        ),
        (
            "answers-cancel-notification",
            "unknown-id",
            "notification-unanswered",
        ),
        (
            "crashes-on-unknown-cancel",
            "unknown-id",
            "unknown-id-cancel-ignored",
        ),
    ] {
        let rows = flagged("mcp-2025-11-25", behaviour, scenario);
        assert!(
            rows.len() == 1 && rows[0].2.contains(&invariant.to_string()),
            "{behaviour}: {rows:?}"
        );
    }
}

#[test]
fn a_server_the_user_started_is_probed_at_its_url() {
    let mut server = Command::new(PEER)
        .args(["--dialect", "mcp-2025-11-25", "--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test peer starts");
    let mut line = String::new();
    BufReader::new(server.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the peer says where it serves")
        .to_string();
    let flags = [
        "--url",
        url.as_str(),
        "--scenarios",
        "cancel-during-work,unknown-id,disconnect-resume",
        // One session at a time: the test peer serves the last one opened.
        "--jobs",
        "1",
    ];
    let (v, code) = probe("running", "mcp-2025-11-25", &flags, None);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!((v["verdict"].as_str(), code), (Some("pass"), 0), "{v:#}");
}

fn usage_error(flags: &[&str]) -> String {
    let mut argv = vec!["probe", "--json"];
    argv.extend_from_slice(flags);
    let cli = Cli::try_parse_from(&argv).expect("arguments parse");
    run(cli.args).expect_err("a usage error").to_string()
}

#[test]
fn bad_http_usage_is_a_clear_error() {
    let e = usage_error(&[
        "--dialect",
        "acp",
        "--url",
        "http://127.0.0.1:9/",
        "--",
        PEER,
    ]);
    assert!(
        e.contains("no Streamable HTTP") && e.contains("mcp-2026-07-28"),
        "{e}"
    );
    let e = usage_error(&[
        "--dialect",
        "mcp-2025-11-25",
        "--url",
        "https://example.com/mcp",
    ]);
    assert!(e.contains("no TLS"), "{e}");
    let e = usage_error(&["--dialect", "mcp-2025-11-25", "--url", URL]);
    assert!(e.contains("{port}") && e.contains("command"), "{e}");
    // A server started per scenario on a fixed port, two scenarios at once.
    let fixed = "http://127.0.0.1:45555/mcp";
    let e = usage_error(&[
        "--dialect",
        "mcp-2025-11-25",
        "--jobs",
        "2",
        "--url",
        fixed,
        "--",
        PEER,
        "--http",
        "127.0.0.1:45555",
    ]);
    assert!(e.contains("--jobs 2") && e.contains("{port}"), "{e}");
}

#[test]
fn a_command_that_never_listens_is_named_with_its_stderr() {
    let flags = [
        "--url",
        URL,
        "--scenarios",
        "cancel-during-work",
        "--timeout",
        "3000",
    ];
    let save = scratch("never");
    let mut argv: Vec<String> = ["probe", "--json", "--save"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    argv.push(save.display().to_string());
    argv.extend(["--dialect".into(), "mcp-2025-11-25".into()]);
    argv.extend(flags.iter().map(|s| s.to_string()));
    argv.extend([
        "--".into(),
        "sh".into(),
        "-c".into(),
        "echo no port for me >&2; exit 4".into(),
    ]);
    let (text, code) = run(Cli::try_parse_from(&argv).unwrap().args).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let msg = v["scenarios"][0]["errors"][0]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert_eq!(code, 1);
    assert!(
        msg.contains("`sh -c")
            && msg.contains("exited before it accepted")
            && msg.contains("started 3 times")
            && msg.contains("no port for me"),
        "{msg}"
    );
}

/// A server that exits before it listens (as one does whose port was taken between the
/// probe's finding it free and the server's binding it) is started again on another port.
#[test]
fn a_server_that_exits_before_it_listens_is_started_again_on_another_port() {
    let save = scratch("again");
    std::fs::create_dir_all(&save).unwrap();
    let mark = save.join("started-once");
    let script = format!(
        "if [ -e '{}' ]; then exec '{PEER}' --dialect mcp-2025-11-25 --http 127.0.0.1:$1; fi; touch '{}'; echo address in use >&2; exit 1",
        mark.display(),
        mark.display()
    );
    let (v, code) = probe(
        "again-run",
        "mcp-2025-11-25",
        &[
            "--url",
            URL,
            "--scenarios",
            "cancel-during-work",
            "--repeat",
            "1",
            "--",
            "sh",
            "-c",
            &script,
            "sh",
            "{port}",
        ],
        None,
    );
    assert!(mark.exists(), "the first start ran");
    assert_eq!(
        rows(&v),
        [("cancel-during-work".to_string(), "pass".to_string(), vec![])],
        "{v}"
    );
    assert_eq!(code, 0);
}

/// A stdio session's trace and report keep their shape: no stream on any message, no URL.
#[test]
fn a_stdio_trace_keeps_its_shape() {
    let save = scratch("stdio");
    let argv = [
        "probe",
        "--json",
        "--save-all",
        "--save",
        save.to_str().unwrap(),
        "--dialect",
        "mcp-2025-11-25",
        "--params",
        FAST,
        "--scenarios",
        "cancel-during-work",
        "--",
        PEER,
        "--dialect",
        "mcp-2025-11-25",
    ];
    let (text, code) = run(Cli::try_parse_from(argv).unwrap().args).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((code, v.get("url")), (0, None), "{v:#}");
    let path = std::fs::read_dir(&save)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(doc.get("url"), None);
    for m in doc["messages"].as_array().unwrap() {
        let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["t_us", "dir", "offset", "text"], "{m}");
    }
}
