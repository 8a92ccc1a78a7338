//! `cancelcheck probe` and `cancelcheck replay` of its traces, through the binary, with peers
//! made of `sh` one-liners (the Rust test peer's tests are in `testpeer/tests/probe.rs`).

mod common;
use common::{Scratch, cancelcheck, json_out, text};

#[test]
fn bad_usage_exits_2() {
    for args in [
        vec!["probe", "--dialect", "mcp-2025-11-25"],
        vec!["probe", "--dialect", "nope", "--", "true"],
        vec!["probe", "--dialect", "lsp", "--timeout", "0", "--", "true"],
    ] {
        let o = cancelcheck(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
    }
}

#[test]
fn the_scenarios_are_listed() {
    let o = cancelcheck(&["probe", "--dialect", "lsp", "--scenarios", "list"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("cancel-during-work"));
}

#[test]
fn a_finding_is_saved_as_a_probe_trace_that_replay_rejudges() {
    let dir = Scratch::new("replay");
    let save = dir.path().display().to_string();
    let o = cancelcheck(&[
        "probe",
        "--json",
        "--dialect",
        "mcp-2025-11-25",
        "--scenarios",
        "unknown-id",
        "--timeout",
        "1000",
        "--save",
        &save,
        "--",
        "sh",
        "-c",
        "echo hello; cat >/dev/null",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "fail");
    let s = &v["scenarios"][0];
    assert_eq!(s["name"], "unknown-id");
    assert_eq!(s["errors"][0]["kind"], "not-json-rpc");
    assert_eq!(s["errors"][0]["offset"], 0);
    let trace = s["errors"][0]["trace"].as_str().expect("saved").to_string();
    let r = cancelcheck(&["replay", &trace]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let out = text(&r.stdout);
    assert!(out.contains("cannot re-run the peer"), "{out}");
    assert!(out.contains("verdict: fail (as recorded)"), "{out}");
    let r = cancelcheck(&["replay", "--format", "json", &trace]);
    let j = json_out(&r);
    assert_eq!(j["kind"], "probe");
    assert_eq!(j["reran"], false);
    assert_eq!(j["verdict_matches"], true);
    // An edited verdict no longer matches: exit 1.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    doc["verdict"]["result"] = "pass".into();
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, doc.to_string()).unwrap();
    let r = cancelcheck(&["replay", edited.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(text(&r.stdout).contains("DIFFERS"));
}

/// A probe of a peer that prints one line that is not JSON-RPC and exits: each scenario has
/// the same findings, at once.
fn probe_garbage(scenarios: &str, extra: &[&str], save: &str) -> std::process::Output {
    let mut args = vec![
        "probe",
        "--dialect",
        "mcp-2025-11-25",
        "--scenarios",
        scenarios,
        "--timeout",
        "2000",
        "--save",
        save,
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "sh", "-c", "echo hello"]);
    cancelcheck(&args)
}

#[test]
fn a_baseline_accepts_known_findings_and_fails_on_new_or_stale_ones() {
    let dir = Scratch::new("baseline");
    let save = dir.path().join("found").display().to_string();
    let file = dir.path().join("baseline.txt");
    let b = file.to_str().unwrap();
    // Written from a run: the run's findings, each once, and exit 0.
    let o = probe_garbage("unknown-id", &["--write-baseline", b], &save);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let written = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(
        lines.contains(&"unknown-id error:not-json-rpc"),
        "{written}"
    );
    // The same findings against it: exit 0, though the verdict is fail.
    let o = probe_garbage("unknown-id", &["--baseline", b], &save);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(text(&o.stdout).contains("verdict: fail"));
    assert!(text(&o.stdout).contains("0 new, 0 stale"));
    // An accepted finding no longer found in a scenario that ran is stale, named with its line.
    std::fs::write(&file, format!("{written}unknown-id cancel-error-code\n")).unwrap();
    let o = probe_garbage("unknown-id", &["--baseline", b, "--json"], &save);
    assert_eq!(o.status.code(), Some(1));
    let v = json_out(&o);
    assert_eq!(
        v["baseline"]["stale"][0]["finding"],
        "unknown-id cancel-error-code"
    );
    assert_eq!(v["baseline"]["stale"][0]["line"], lines.len() + 2);
    // A finding the baseline does not list is new: exit 1. An entry of a scenario that did not
    // run is neither.
    std::fs::write(&file, "cancel-after-answer error:not-json-rpc\n").unwrap();
    let o = probe_garbage("unknown-id", &["--baseline", b, "--json"], &save);
    assert_eq!(o.status.code(), Some(1));
    let v = json_out(&o);
    assert_eq!(v["baseline"]["new"][0], "unknown-id error:not-json-rpc");
    assert_eq!(v["baseline"]["stale"], serde_json::json!([]));
    assert_eq!(v["baseline"]["unchecked"][0]["line"], 1);
    // A bad file: a usage error naming the line and the field, before anything runs.
    std::fs::write(&file, "# ok\nunknown-id error:nonsense\n").unwrap();
    let o = probe_garbage("unknown-id", &["--baseline", b], &save);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("line 2, field 2 (finding)"), "{err}");
}
