//! The command line as a user meets it: exit codes, machine-readable output, saved traces, and
//! bad input that names the file, the field and what was expected, never a panic.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{Scratch, cancelcheck, json_out, text};

/// Exit 2, no panic, and every expected fragment in stderr.
fn rejects(args: &[&str], fragments: &[&str]) {
    let o = cancelcheck(args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for f in fragments {
        assert!(err.contains(f), "{args:?}: stderr lacks {f:?}: {err}");
    }
}

fn write(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).expect("write");
    p.display().to_string()
}

#[test]
fn a_clean_run_exits_0_with_a_summary() {
    let o = cancelcheck(&["run", "--dialect", "lsp", "--seeds", "0..200", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["seeds"], 200);
    assert!(v["events"].as_u64().unwrap() > 1000);
    assert!(v["events_per_sec"].as_f64().is_some());
    assert_eq!(v["violations"], Value::Array(vec![]));
    assert!(v["races_reached"].as_array().is_some_and(|r| !r.is_empty()));
    assert_eq!(v["verdict"], "pass");
}

/// `run --dialect abp` starts from ABP's own default scenario (no nesting, no server
/// requests: its app makes no calls), runs clean, and catches an ABP fault.
#[test]
fn abp_runs_from_its_own_default() {
    let o = cancelcheck(&["run", "--dialect", "abp", "--seeds", "0..200", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["dialect"], "abp");
    assert_eq!(v["violations"], Value::Array(vec![]));
    assert_eq!(v["verdict"], "pass", "{v:#}");
    let tmp = Scratch::new("abp-run");
    let run = [
        "run",
        "--dialect",
        "abp",
        "--behavior",
        "answers-twice",
        "--seeds",
        "0..50",
        "--save",
        tmp.path().to_str().unwrap(),
    ];
    let o = cancelcheck(&[&run[..], &["--json"]].concat());
    // ABP's tables carry no keyword: what they state is a note, which warns.
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "warn");
    assert!(
        v["violations_by_invariant"]["single-resolution"].is_number(),
        "{v:#}"
    );
    // Each invariant broken says how strongly this dialect's text binds it, in JSON and text.
    let first = v["first_failures"].as_array().unwrap();
    assert!(first.iter().all(|b| b["strength"] == "NOTE"), "{v:#}");
    let o = cancelcheck(&run);
    assert!(text(&o.stdout).contains("  single-resolution (NOTE) "));
}

#[test]
fn a_fault_is_saved_and_replays() {
    let tmp = Scratch::new("fault");
    let dir = tmp.path();
    let save = dir.display().to_string();
    let o = cancelcheck(&[
        "run",
        "--dialect",
        "acp",
        "--behavior",
        "answers-twice",
        "--seeds",
        "0..100",
        "--save",
        &save,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "fail");
    let violations = v["violations"].as_array().expect("violations array");
    assert!(!violations.is_empty());
    for x in violations {
        assert!(x["seed"].as_u64().is_some_and(|s| s < 100), "{x}");
        assert!(x["invariant"].is_string(), "{x}");
        let t = Path::new(x["trace"].as_str().expect("trace path"));
        assert!(t.is_file() && t.starts_with(dir), "{x}");
    }
    let first = &violations[0];
    assert_eq!(first["invariant"], "single-resolution");
    let trace = first["trace"].as_str().unwrap().to_string();

    // Without --json: the same verdict, and the trace's path to replay.
    let o = cancelcheck(&[
        "run",
        "--dialect",
        "acp",
        "--behavior",
        "answers-twice",
        "--seeds",
        "0..100",
        "--save",
        &save,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("verdict: fail"), "{out}");
    assert!(
        out.contains(&format!("replay with: cancelcheck replay {trace}")),
        "{out}"
    );

    let o = cancelcheck(&["replay", &trace]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("single-resolution"));
    assert!(text(&o.stderr).contains("byte for byte"));

    let o = cancelcheck(&["replay", &trace, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["reproduced"], true);
    assert_eq!(v["diverged_at"], Value::Null);
    assert_eq!(v["verdict"]["result"], "fail");
    assert_eq!(
        v["verdict"]["violations"][0]["invariant"],
        "single-resolution"
    );

    let o = cancelcheck(&["replay", &trace, "--format", "mermaid"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("sequenceDiagram"));
}

#[test]
fn traces_are_never_overwritten() {
    let tmp = Scratch::new("clobber");
    let dir = tmp.path();
    let save = dir.display().to_string();
    let args = [
        "run",
        "--dialect",
        "lsp",
        "--behavior",
        "wrong-error-code",
        "--seeds",
        "0..50",
        "--stop-first",
        "--save",
        &save,
    ];
    let o = cancelcheck(&args);
    assert_eq!(o.status.code(), Some(1));
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    // The same trace again: nothing new is written.
    let o = cancelcheck(&args);
    assert!(
        text(&o.stdout).contains("already saved"),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1);
    // A different file under the same name stays; the trace goes beside it.
    std::fs::write(&files[0], "not mine").unwrap();
    let o = cancelcheck(&args);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), "not mine");
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.ends_with("-2.json")), "{names:?}");
}

#[test]
fn a_tampered_trace_diverges() {
    let tmp = Scratch::new("tamper");
    let dir = tmp.path();
    let save = dir.display().to_string();
    let o = cancelcheck(&[
        "run",
        "--dialect",
        "acp",
        "--behavior",
        "answers-twice",
        "--seeds",
        "0..100",
        "--stop-first",
        "--save",
        &save,
        "--json",
    ]);
    let trace = json_out(&o)["violations"][0]["trace"]
        .as_str()
        .unwrap()
        .to_string();
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    doc["events"][5]["t"] = Value::from(999_999);
    let tampered = write(
        dir,
        "tampered.json",
        &serde_json::to_string_pretty(&doc).unwrap(),
    );
    let o = cancelcheck(&["replay", &tampered]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("DIVERGED") && err.contains("#5"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let o = cancelcheck(&["replay", &tampered, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_out(&o);
    assert_eq!(v["reproduced"], false);
    assert_eq!(v["diverged_at"], 5);
    assert!(text(&o.stderr).contains("DIVERGED"));

    // The events intact but the recorded verdict changed: diverged too, on the verdict.
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    doc["verdict"]["result"] = Value::from("pass");
    doc["verdict"]["violations"] = Value::Array(vec![]);
    let tampered = write(
        dir,
        "verdict.json",
        &serde_json::to_string_pretty(&doc).unwrap(),
    );
    let o = cancelcheck(&["replay", &tampered]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("DIVERGED") && err.contains("recorded verdict"),
        "{err}"
    );
    let o = cancelcheck(&["replay", &tampered, "--format", "json"]);
    let v = json_out(&o);
    assert_eq!(v["reproduced"], false);
    assert_eq!(v["diverged_at"], Value::Null);
    assert_eq!(v["verdict_matches"], false);
}

#[test]
fn bad_scenarios_name_the_file_and_the_field() {
    let tmp = Scratch::new("scenario");
    let dir = tmp.path();
    let wrong_type = write(
        dir,
        "wrong-type.json",
        r#"{"dialect": "acp", "workload": {"requests": "four"}}"#,
    );
    rejects(
        &["run", "--scenario", &wrong_type],
        &["wrong-type.json", "workload.requests", "expected u16"],
    );
    let zero = write(
        dir,
        "zero.json",
        r#"{"dialect": "acp", "workload": {"requests": 0}}"#,
    );
    rejects(
        &["run", "--scenario", &zero],
        &["zero.json", "workload.requests", "1 to 64"],
    );
    let unknown = write(
        dir,
        "unknown.json",
        r#"{"dialect": "acp", "workload": {"request": 3}}"#,
    );
    rejects(
        &["run", "--scenario", &unknown],
        &["unknown.json", "workload", "unknown field `request`"],
    );
    let broken = write(
        dir,
        "broken.json",
        "{\"dialect\": \"acp\",\n  \"workload\": }",
    );
    rejects(
        &["run", "--scenario", &broken],
        &["broken.json", "line 2", "column"],
    );
    let dialect = write(dir, "dialect.json", r#"{"dialect": "mcp"}"#);
    rejects(
        &["run", "--scenario", &dialect],
        &["dialect.json", "dialect"],
    );
    rejects(
        &["run", "--scenario", "/nonexistent/scenario.json"],
        &["/nonexistent/scenario.json", "cannot be read"],
    );
}

#[test]
fn bad_traces_name_the_file_and_the_field() {
    let tmp = Scratch::new("trace");
    let dir = tmp.path();
    let o = cancelcheck(&[
        "run",
        "--dialect",
        "lsp",
        "--behavior",
        "wrong-error-code",
        "--seeds",
        "0..50",
        "--stop-first",
        "--save",
        &dir.display().to_string(),
        "--json",
    ]);
    let trace = json_out(&o)["violations"][0]["trace"]
        .as_str()
        .unwrap()
        .to_string();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();

    let mut v = doc.clone();
    v["version"] = Value::from(99);
    let f = write(dir, "version.json", &v.to_string());
    rejects(&["replay", &f], &["version.json", "version", "expected 1"]);

    let mut v = doc.clone();
    v["origin"] = serde_json::json!({"kind": "seed"});
    let f = write(dir, "origin.json", &v.to_string());
    rejects(&["replay", &f], &["origin.json", "origin", "seed"]);

    let mut v = doc.clone();
    v["config"]["link"]["loss_permille"] = Value::from(5000);
    let f = write(dir, "loss.json", &v.to_string());
    rejects(
        &["replay", &f],
        &["loss.json", "config.link.loss_permille", "0 to 1000"],
    );

    let mut v = doc.clone();
    v["events"] = Value::from("many");
    let f = write(dir, "events.json", &v.to_string());
    rejects(&["replay", &f], &["events.json", "events", "sequence"]);

    let mut v = doc;
    v["format"] = Value::from("something-else");
    let f = write(dir, "format.json", &v.to_string());
    rejects(&["replay", &f], &["format.json", "format"]);

    let f = write(dir, "garbage.json", "not json at all");
    rejects(&["replay", &f], &["garbage.json", "line 1", "column"]);
    let missing = dir.join("missing.json").display().to_string();
    rejects(&["replay", &missing], &["missing.json", "cannot be read"]);
}

#[test]
fn bad_flags_say_what_was_expected() {
    rejects(
        &["run", "--dialect", "mcp"],
        &["--dialect", "\"mcp\"", "acp", "lsp", "mcp-2025-11-25"],
    );
    rejects(
        &["run", "--behavior", "sloppy"],
        &["--behavior", "\"sloppy\"", "honour", "answers-twice"],
    );
    rejects(&["run", "--seeds", "5..2"], &["--seeds", "A..B"]);
    rejects(&["run", "--shard", "3/2"], &["--shard", "I/N"]);
    rejects(
        &[
            "run",
            "--dialect",
            "acp",
            "--behavior",
            "ack-disagrees-with-outcome",
        ],
        &["not in acp", "honour"],
    );
    rejects(&["explore", "--requests", "40"], &["--requests", "1 to 16"]);
}

#[test]
fn the_catalog_and_behaviours_export_as_json() {
    let v = json_out(&cancelcheck(&["properties", "--json"]));
    let rows = v.as_array().expect("array");
    assert!(rows.len() >= 19);
    for r in rows {
        for field in ["id", "dialects", "strength", "kind", "clause", "statement"] {
            assert!(!r[field].is_null(), "{field} missing in {r}");
        }
        assert!(["always", "eventually", "sometimes"].contains(&r["kind"].as_str().unwrap()));
        // A race is a coverage obligation, never a MUST; every other row is a MUST, a SHOULD or
        // a note (what a text states without a keyword).
        let race = r["kind"] == "sometimes";
        for a in r["applies"].as_array().expect("applies") {
            let strength = a["strength"].as_str().unwrap();
            if race {
                assert_eq!(strength, "COVERAGE", "{a}");
            } else {
                assert!(["MUST", "SHOULD", "NOTE"].contains(&strength), "{a}");
            }
            assert!(
                a["file"].as_str().is_some_and(|f| f.ends_with(".md")),
                "{a}"
            );
            assert!(a["clause"].as_str().is_some_and(|c| !c.is_empty()), "{a}");
            assert!(a["observable_on_wire"].is_boolean(), "{a}");
        }
    }
    // MCP 2026-07-28 leaves id reuse after a cancel unstated: a hazard, so a note.
    let reuse = rows.iter().find(|r| r["id"] == "no-live-id-reuse").unwrap();
    let mcp26 = reuse["applies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["dialect"] == "mcp-2026-07-28")
        .unwrap();
    assert_eq!(mcp26["strength"], "NOTE");
    assert!(mcp26["note"].as_str().unwrap().contains("hazard"));
    let v = json_out(&cancelcheck(&["behaviors", "--json"]));
    let rows = v.as_array().expect("array");
    assert!(
        rows.iter()
            .any(|r| r["faulty"] == true && r["breaks"].as_array().is_some_and(|b| !b.is_empty()))
    );
    assert!(
        rows.iter()
            .any(|r| r["faulty"] == false && r["breaks"].as_array().is_some_and(|b| b.is_empty()))
    );
    for r in rows {
        assert!(r["dialect"].is_string() && r["name"].is_string());
        let expected = matches!(
            (r["faulty"].as_bool(), r["verdict"].as_str()),
            (Some(false), Some("pass")) | (Some(true), Some("fail" | "warn"))
        );
        assert!(expected, "{r}");
    }
    // Finishing a cancellable request after its cancel is a SHOULD-level deviation in MCP
    // 2025-11-25, and a MUST-level one where nothing may follow a cancel.
    let verdict = |d: &str, b: &str| {
        rows.iter()
            .find(|r| r["dialect"] == d && r["name"] == b)
            .map(|r| r["verdict"].as_str().unwrap().to_string())
    };
    assert_eq!(
        verdict("mcp-2025-11-25", "finish-first").as_deref(),
        Some("warn")
    );
    assert_eq!(
        verdict("mcp-2026-07-28", "finish-first").as_deref(),
        Some("fail")
    );
    // LSP lets a receiver finish; an ACP prompt turn whose cancel arrived must end cancelled.
    assert_eq!(verdict("lsp", "finish-first").as_deref(), Some("pass"));
    assert_eq!(verdict("acp", "finish-first").as_deref(), Some("fail"));
    // Where a closed stream is the cancel, work run on past it also breaks close-is-cancel;
    // the text says so beside the row, as it says what request trees add.
    let on_http = |d: &str, b: &str| {
        rows.iter()
            .find(|r| r["dialect"] == d && r["name"] == b)
            .map(|r| r["also_on_http"].clone())
    };
    assert_eq!(
        on_http("mcp-2026-07-28", "progress-after-cancel"),
        Some(serde_json::json!(["close-is-cancel"]))
    );
    assert_eq!(
        on_http("mcp-2025-11-25", "progress-after-cancel"),
        Some(serde_json::json!([]))
    );
    let text = text(&cancelcheck(&["behaviors"]).stdout);
    let row = text
        .lines()
        .skip_while(|l| !l.starts_with("mcp-2026-07-28"))
        .find(|l| l.trim_start().starts_with("progress-after-cancel "))
        .expect("the row");
    assert!(
        row.contains("(over Streamable HTTP also close-is-cancel)"),
        "{row}"
    );
}

/// A faulty behaviour that cannot act in the configuration, or a race that is never reached,
/// makes the verdict vacuous (exit 0, not a pass) and names the option that would let it act;
/// a deviation from a SHOULD alone is a warning (exit 0, saved with its trace).
#[test]
fn vacuous_and_warning_verdicts_say_what_they_are() {
    let tmp = Scratch::new("vacuous");
    let dir = tmp.path().to_str().unwrap();
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "lsp",
        "--behavior",
        "cancels-initialize",
        "--requests",
        "1",
        "--save",
        dir,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "vacuous");
    let why = v["vacuous_because"].to_string();
    assert!(why.contains("connect timeout"), "{why}");
    // The first next step is the same search with the option that lets the fault act.
    let next = v["next_steps"][0].as_str().unwrap_or_default();
    assert!(
        next.starts_with("cancelcheck explore ") && next.contains("--init-timeout"),
        "{next}"
    );
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "lsp",
        "--behavior",
        "cancels-initialize",
        "--requests",
        "1",
        "--init-timeout",
        "--save",
        dir,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(json_out(&o)["verdict"], "fail");
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "mcp-2025-11-25",
        "--behavior",
        "finish-first",
        "--requests",
        "1",
        "--workers",
        "1",
        "--save",
        dir,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "warn");
    assert_eq!(v["violations"][0], "no-answer-after-cancel");
    assert!(v["counterexample"].is_string());
    // The same in text: the word, and the strength that earned it.
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "mcp-2025-11-25",
        "--behavior",
        "finish-first",
        "--requests",
        "1",
        "--save",
        dir,
    ]);
    assert!(text(&o.stdout).contains("verdict: warn (only SHOULDs or notes broken)"));
    // A correct run whose race is out of reach: vacuous, with the way to reach it.
    let o = cancelcheck(&["run", "--seeds", "0..50", "--save", dir, "--json"]);
    let v = json_out(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(["pass", "vacuous"].contains(&v["verdict"].as_str().unwrap()));
}

#[test]
fn explore_prints_a_certificate_and_saves_a_replayable_counterexample() {
    let tmp = Scratch::new("explore");
    let dir = tmp.path();
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "mcp-2026-07-28",
        "--requests",
        "2",
        "--transport",
        "reordering",
        "--workers",
        "1",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "pass", "{v}");
    assert_eq!(v["exhaustive"], true);
    for field in [
        "unique_states",
        "total_states",
        "max_depth",
        "seconds",
        "states_per_sec",
    ] {
        assert!(v[field].is_number(), "{field}");
    }
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "acp",
        "--requests",
        "2",
        "--max-depth",
        "3",
        "--json",
    ]);
    assert_eq!(json_out(&o)["exhaustive"], false);

    let save = dir.display().to_string();
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "acp",
        "--behavior",
        "wrong-error-code",
        "--requests",
        "1",
        "--save",
        &save,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_out(&o);
    assert_eq!(v["violations"][0], "cancel-error-code");
    let trace = v["counterexample"].as_str().unwrap().to_string();
    let o = cancelcheck(&["replay", &trace, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json_out(&o)["reproduced"], true);
}

/// A counterexample that needs the network to duplicate a message is saved and replayed like
/// any other; the certificate says duplication was on and how much memory the process held.
#[test]
fn explore_with_duplication_saves_a_replayable_counterexample() {
    let tmp = Scratch::new("explore-duplicate");
    let save = tmp.path().display().to_string();
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "lsp",
        "--requests",
        "2",
        "--reuse-ids",
        "--timeouts",
        "--duplicate",
        "--save",
        &save,
        "--json",
    ]);
    // Reusing a live id is a note in LSP (a hazard no keyword forbids): a warning, exit 0.
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "warn");
    assert_eq!(v["duplicate"], true);
    assert_eq!(v["violations"][0], "no-live-id-reuse");
    assert_eq!(v["counterexample_steps"], 8);
    if cfg!(target_os = "linux") {
        assert!(v["peak_rss_bytes"].as_u64().is_some_and(|b| b > 0));
    }
    let trace = v["counterexample"].as_str().unwrap().to_string();
    let o = cancelcheck(&["replay", &trace, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(json_out(&o)["reproduced"], true);
}

/// A file that is a JSON array, not an object, is bad input whatever it holds. serde's derived
/// `Deserialize` also accepts a struct as a sequence of its fields, so `["acp"]` runs as a
/// scenario and a trace that is an array is judged field by field.
#[test]
fn a_file_that_is_not_an_object_is_rejected() {
    let tmp = Scratch::new("array");
    let dir = tmp.path();
    let f = write(dir, "array.json", r#"["acp"]"#);
    rejects(
        &["run", "--scenario", &f, "--seeds", "0..2"],
        &["array.json", "object"],
    );
    let f = write(dir, "trace-array.json", r#"["cancelcheck-trace", 1]"#);
    rejects(&["replay", &f], &["trace-array.json", "object"]);
}

#[test]
fn origin_errors_name_the_field_and_overlong_schedules_diverge() {
    let tmp = Scratch::new("origin");
    let dir = tmp.path();
    let save = dir.display().to_string();
    let o = cancelcheck(&[
        "run",
        "--dialect",
        "lsp",
        "--behavior",
        "wrong-error-code",
        "--seeds",
        "0..50",
        "--stop-first",
        "--save",
        &save,
        "--json",
    ]);
    let trace = json_out(&o)["violations"][0]["trace"]
        .as_str()
        .unwrap()
        .to_string();
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    doc["origin"]["seed"] = Value::from("7");
    let f = write(dir, "seed-type.json", &doc.to_string());
    rejects(&["replay", &f], &["seed-type.json", "origin.seed", "u64"]);
    doc["origin"] = serde_json::json!({"kind": "oracle"});
    let f = write(dir, "kind.json", &doc.to_string());
    rejects(&["replay", &f], &["kind.json", "origin.kind", "schedule"]);

    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "acp",
        "--behavior",
        "wrong-error-code",
        "--requests",
        "1",
        "--save",
        &save,
        "--json",
    ]);
    let trace = json_out(&o)["counterexample"].as_str().unwrap().to_string();
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let schedule = doc["origin"]["schedule"].as_array_mut().unwrap();
    schedule.extend([7, 7, 7].map(Value::from));
    let f = write(
        dir,
        "overlong.json",
        &serde_json::to_string_pretty(&doc).unwrap(),
    );
    let o = cancelcheck(&["replay", &f]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("only this much of it applies"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_seed_range_that_overflows_is_refused() {
    rejects(&["run", "--seeds", "18446744073709551615"], &["--seeds"]);
}

/// Runs `args` under `bash` with `limits` (e.g. `ulimit -v 300000`) set first.
fn cancelcheck_limited(limits: &str, args: &[&str]) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("{limits}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_cancelcheck"))
        .args(args)
        .output()
        .expect("bash runs")
}

/// Runs `args`, failing the test (rather than hanging it) if it has not ended in 20 s.
fn cancelcheck_within_20s(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Read both pipes as the child writes, so that a long output never blocks it.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    for _ in 0..200 {
        if let Some(status) = child.try_wait().expect("wait") {
            return Output {
                status,
                stdout: stdout.join().expect("stdout read"),
                stderr: stderr.join().expect("stderr read"),
            };
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("{args:?} still running after 20 s");
}

#[test]
fn memory_bounds_every_search() {
    let tmp = Scratch::new("memory");
    let save = tmp.path().display().to_string();
    let big = [
        "explore",
        "--dialect",
        "acp",
        "--requests",
        "4",
        "--transport",
        "reordering",
        "--timeouts",
        "--no-symmetry",
        "--no-por",
        "--threads",
        "1",
        "--max-states",
        "100000000",
        "--save",
        &save,
        "--json",
    ];
    // An explicit budget: a clean, bounded stop that says why.
    let mut args = big.to_vec();
    args.extend(["--max-memory", "8M"]);
    let o = cancelcheck(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["bounded_by"], "memory", "{v}");
    assert_eq!(v["exhaustive"], false);
    assert_eq!(v["max_memory_bytes"], 8 << 20);
    assert!(v["peak_bytes_held"].as_u64().unwrap() <= 8 << 20, "{v}");
    // Bytes held per state visited, as the certificate states it.
    let per_state = v["peak_bytes_held"].as_u64().unwrap() / v["unique_states"].as_u64().unwrap();
    assert_eq!(v["bytes_per_state"], per_state, "{v}");
    assert!(per_state > 0, "{v}");
    // The default budget follows the address-space limit: no abort where the search would
    // outgrow it.
    let o = cancelcheck_limited("ulimit -v 300000", &big);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["bounded_by"], "memory", "{v}");
    assert!(v["max_memory_from"].as_str().unwrap().contains("ulimit -v"));
    // Without --json the bound is said in words.
    let o = cancelcheck(
        &big[..big.len() - 1]
            .iter()
            .copied()
            .chain(["--max-memory", "8M"])
            .collect::<Vec<_>>(),
    );
    assert!(
        text(&o.stdout).contains("bounded by memory"),
        "{}",
        text(&o.stdout)
    );
    rejects(
        &["explore", "--max-memory", "lots"],
        &["--max-memory", "512M"],
    );
    rejects(
        &["explore", "--max-memory", "10"],
        &["--max-memory", "at least 1M"],
    );
}

#[test]
fn seeds_are_made_as_they_run() {
    let tmp = Scratch::new("lazy-seeds");
    let save = tmp.path().display().to_string();
    for shard in ["0/1", "7/1000000000000"] {
        let o = cancelcheck_within_20s(&[
            "run",
            "--behavior",
            "answers-twice",
            "--seeds",
            "0..18446744073709551615",
            "--shard",
            shard,
            "--stop-first",
            "--save",
            &save,
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        let v = json_out(&o);
        assert_eq!(v["verdict"], "fail");
        assert!(v["seeds"].as_u64().unwrap() <= 2048, "{v}");
    }
}

#[test]
fn inputs_are_regular_files_of_bounded_size() {
    let tmp = Scratch::new("inputs");
    let dir = tmp.path();
    for args in [
        vec!["replay", "/dev/zero"],
        vec!["run", "--scenario", "/dev/zero"],
        vec!["explore", "--scenario", "/dev/zero"],
    ] {
        let o = cancelcheck_within_20s(&args);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains("/dev/zero: is a character device"));
    }
    let fifo = dir.join("fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let fifo = fifo.display().to_string();
    let o = cancelcheck_within_20s(&["replay", &fifo]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("FIFO"), "{}", text(&o.stderr));
    // A scenario padded to 2 MB: refused under a 1 MB limit, read under the default.
    let padded = format!("{}{{\"dialect\": \"lsp\"}}", " ".repeat(2_000_000));
    let f = write(dir, "padded.json", &padded);
    rejects(
        &["run", "--scenario", &f, "--max-input-bytes", "1000000"],
        &[
            "padded.json",
            "input limit of 1000000 bytes",
            "--max-input-bytes",
        ],
    );
    let o = cancelcheck(&["run", "--scenario", &f, "--seeds", "0..5", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let f = write(dir, "latin1.json", "{\"dialect\": \"acp\"}\n\u{0}");
    std::fs::write(&f, b"{\"dialect\": \"ac\xe9\"}").unwrap();
    rejects(
        &["run", "--scenario", &f],
        &["latin1.json", "UTF-8", "byte offset 15"],
    );
}

#[test]
fn a_closed_or_full_stdout_is_never_a_panic() {
    let full = || std::fs::File::create("/dev/full").expect("/dev/full");
    for (args, code) in [
        (vec!["properties"], 4),
        (vec!["properties", "--json"], 4),
        (vec!["run", "--seeds", "0..20"], 4),
        (vec!["run", "--seeds", "0..20", "--json"], 4),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
            .args(&args)
            .stdout(full())
            .output()
            .expect("runs");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains("writing to stdout failed"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // A reader that went away: a quiet end, the exit code the run would have had.
    for args in [
        vec!["properties"],
        vec!["run", "--seeds", "0..20", "--json"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("runs");
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("output");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        assert_eq!(text(&o.stderr), "", "{args:?}");
    }
}

#[test]
fn a_failed_save_leaves_nothing_behind_and_keeps_the_summary() {
    let tmp = Scratch::new("failed-save");
    let save = tmp.path().join("found");
    let save_s = save.display().to_string();
    // Trace files are several KiB: a 2 KiB file-size limit makes every save fail.
    let o = cancelcheck_limited(
        "ulimit -f 2",
        &[
            "run",
            "--behavior",
            "answers-twice",
            "--seeds",
            "0..50",
            "--save",
            &save_s,
            "--json",
        ],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let v = json_out(&o);
    assert_eq!(v["verdict"], "fail");
    assert!(
        v["unsaved"].as_array().is_some_and(|u| !u.is_empty()),
        "{v}"
    );
    let left: Vec<_> = std::fs::read_dir(&save).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // The same without --json, and from the explorer.
    let o = cancelcheck_limited(
        "ulimit -f 2",
        &[
            "run",
            "--behavior",
            "answers-twice",
            "--seeds",
            "0..50",
            "--save",
            &save_s,
        ],
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(text(&o.stdout).contains("NOT SAVED"), "{}", text(&o.stdout));
    let o = cancelcheck_limited(
        "ulimit -f 2",
        &[
            "explore",
            "--behavior",
            "answers-twice",
            "--requests",
            "1",
            "--save",
            &save_s,
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(json_out(&o)["save_error"].is_string());
    assert_eq!(std::fs::read_dir(&save).unwrap().count(), 0);
}

#[test]
fn silently_accepted_input_is_refused() {
    let tmp = Scratch::new("silent");
    let dir = tmp.path();
    let f = write(dir, "dup.json", r#"{"dialect": "acp", "dialect": "lsp"}"#);
    rejects(
        &["run", "--scenario", &f],
        &["dup.json", "duplicate key `dialect`"],
    );
    let f = write(
        dir,
        "dup-inner.json",
        r#"{"dialect": "acp", "workload": {"requests": 2, "requests": 9}}"#,
    );
    rejects(
        &["run", "--scenario", &f],
        &["dup-inner.json", "workload", "duplicate key `requests`"],
    );
    let f = write(
        dir,
        "latency.json",
        r#"{"dialect": "acp", "link": {"latency": {"fixed": 18446744073709551615}}}"#,
    );
    rejects(
        &["run", "--scenario", &f],
        &["latency.json", "link.latency", "1000000000000"],
    );
    let f = write(
        dir,
        "many.json",
        r#"{"dialect": "acp", "workload": {"requests": 40}}"#,
    );
    rejects(
        &["explore", "--scenario", &f],
        &["many.json", "workload.requests", "at most 32"],
    );
    rejects(&["explore", "--threads", "0"], &["--threads", "at least 1"]);

    let trace = "traces/acp--answers-twice--seed-2.json";
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    let mut v = doc.clone();
    v["dialect"] = Value::from("lsp");
    let f = write(dir, "dialect.json", &v.to_string());
    rejects(
        &["replay", &f],
        &["dialect.json", "field `dialect`", "\"acp\""],
    );
    let mut v = doc.clone();
    v["behavior"] = Value::from("honour");
    let f = write(dir, "behavior.json", &v.to_string());
    rejects(
        &["replay", &f],
        &["behavior.json", "field `behavior`", "answers-twice"],
    );
    let mut v = doc.clone();
    v["note"] = Value::from("hi");
    let f = write(dir, "extra.json", &v.to_string());
    rejects(&["replay", &f], &["extra.json", "unknown field `note`"]);
    let text_doc = std::fs::read_to_string(trace).unwrap();
    let f = write(
        dir,
        "dup-trace.json",
        &text_doc.replacen("\"version\": 1,", "\"version\": 1, \"version\": 1,", 1),
    );
    rejects(
        &["replay", &f],
        &["dup-trace.json", "duplicate key `version`"],
    );
}

#[test]
fn messages_quote_little_and_speak_plainly() {
    let tmp = Scratch::new("messages");
    let dir = tmp.path();
    let huge = format!(r#"{{"dialect": "{}"}}"#, "x".repeat(100_000));
    let f = write(dir, "huge.json", &huge);
    let o = cancelcheck(&["run", "--scenario", &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stderr.len() < 1000, "{} bytes", o.stderr.len());
    assert!(
        text(&o.stderr).contains("more bytes"),
        "{}",
        text(&o.stderr)
    );
    let f = write(
        dir,
        "big.json",
        r#"{"dialect": "acp", "max_events": 18446744073709551616}"#,
    );
    rejects(
        &["run", "--scenario", &f],
        &["big.json", "max_events", "integer", "u64"],
    );
    let o = cancelcheck(&["run", "--scenario", &f]);
    assert!(!text(&o.stderr).contains("floating"), "{}", text(&o.stderr));
    let f = write(
        dir,
        "neg.json",
        r#"{"dialect": "acp", "workload": {"ids": {"first": -99999999999999999999}}}"#,
    );
    rejects(
        &["run", "--scenario", &f],
        &["workload.ids.first", "integer", "i64"],
    );
    // Array indices in brackets, in every path.
    let trace = "traces/acp--answers-twice--seed-2.json";
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    doc["origin"] = serde_json::json!({"kind": "schedule", "schedule": [0, "x"]});
    let f = write(dir, "schedule.json", &doc.to_string());
    rejects(
        &["replay", &f],
        &["schedule.json", "field `origin.schedule[1]`"],
    );
}

/// One word for a verdict, whoever says it. `replay` of a trace says in every format (text,
/// json, mermaid, html) what `run` says of that one seed: `warn` where only SHOULDs broke (not
/// FAIL), `fail` where a MUST did, and `vacuous` for a run that broke nothing and did not reach
/// what it claims to check (not pass); `explore` says in text the word of its `--json`.
#[test]
fn every_command_and_format_says_the_verdict_run_says() {
    use cancelcheck_model::{Behaviour, Dialect};
    use cancelcheck_sim::{Scenario, Trace, run_seed};
    let tmp = Scratch::new("verdict-word");
    let dir = tmp.path();
    let s = Scenario::built_in(Dialect::Mcp20251125, Behaviour::Honour);
    let clean = cancelcheck::trace_file::save(dir, &Trace::from_run(&s, run_seed(&s, 0, true)))
        .expect("saved")
        .path;
    let mut words = Vec::new();
    for file in [
        "traces/mcp-2025-11-25--finish-first--seed-1.json".to_string(),
        "traces/acp--answers-twice--seed-2.json".to_string(),
        clean.display().to_string(),
    ] {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let seed = doc["origin"]["seed"].as_u64().expect("a seed").to_string();
        let config = write(dir, "config.json", &doc["config"].to_string());
        let o = cancelcheck(&[
            "run",
            "--scenario",
            &config,
            "--seeds",
            &seed,
            "--save",
            &dir.join("found").display().to_string(),
            "--json",
        ]);
        let word = json_out(&o)["verdict"]
            .as_str()
            .expect("a word")
            .to_string();
        let replay = |format: &str| {
            let o = cancelcheck(&["replay", &file, "--format", format]);
            assert_eq!(o.status.code(), Some(0), "{file}: {}", text(&o.stderr));
            text(&o.stdout)
        };
        let line = format!("verdict: {word} (");
        for format in ["text", "mermaid", "html"] {
            let out = replay(format);
            assert!(
                out.contains(&line),
                "{file} --format {format}: lacks {line:?}: {out}"
            );
            assert!(
                !out.contains("verdict: FAIL") && !out.contains("verdict: WARN"),
                "{file} --format {format}: {out}"
            );
        }
        let v: Value = serde_json::from_str(&replay("json")).expect("json");
        assert_eq!(v["verdict"]["result"], word.as_str(), "{file}");
        words.push(word);
    }
    assert_eq!(words, ["warn", "fail", "vacuous"]);
    // explore: the text's word is the JSON's.
    let args = [
        "explore",
        "--dialect",
        "mcp-2025-11-25",
        "--behavior",
        "finish-first",
        "--requests",
        "1",
        "--workers",
        "1",
        "--save",
        &dir.display().to_string(),
    ];
    let word = json_out(&cancelcheck(&[&args[..], &["--json"]].concat()))["verdict"]
        .as_str()
        .expect("a word")
        .to_string();
    let out = text(&cancelcheck(&args).stdout);
    assert!(out.contains(&format!("verdict: {word} (")), "{out}");
}

/// `probe --print-messages` starts no peer and prints every message the probe can send, one
/// JSON-RPC message a line, each valid for the dialect's schema check; `--json` names the
/// request each answer answers; a recipe's set-up steps and `initialize` params are in it;
/// bad params are refused as they are when probing.
#[test]
fn the_probe_prints_every_message_it_can_send_without_a_peer() {
    use cancelcheck_wire::{WireMessage, schema::check_client_message};
    for d in ["acp", "acp-rfd", "mcp-2025-11-25", "mcp-2026-07-28", "lsp"] {
        let o = cancelcheck(&["probe", "--dialect", d, "--print-messages"]);
        assert_eq!(o.status.code(), Some(0), "{d}: {}", text(&o.stderr));
        let dialect = d.parse().expect("dialect");
        let lines: Vec<String> = text(&o.stdout).lines().map(str::to_string).collect();
        assert!(lines.len() >= 15, "{d}: {} messages", lines.len());
        for line in &lines {
            let msg = WireMessage::parse(line.as_bytes()).expect("JSON-RPC");
            check_client_message(dialect, &msg).unwrap_or_else(|e| panic!("{d}: {line}: {e}"));
        }
        let cancel = if d.starts_with("mcp") {
            "notifications/cancelled"
        } else if d == "acp" {
            "$/cancel_request"
        } else {
            "$/cancelRequest"
        };
        assert!(lines.iter().any(|l| l.contains(cancel)), "{d}: no {cancel}");
        let v = json_out(&cancelcheck(&[
            "probe",
            "--dialect",
            d,
            "--print-messages",
            "--json",
        ]));
        let messages = v["messages"].as_array().expect("messages");
        assert_eq!(messages.len(), lines.len(), "{d}");
        assert!(
            messages
                .iter()
                .any(|m| m["answers"].is_string() && m["message"].get("id").is_some())
        );
    }
    let tmp = Scratch::new("print-messages");
    let recipe = write(
        tmp.path(),
        "recipe.json",
        r#"{"initialize":{"rootUri":"file:///ws"},"setup":[{"notification":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/a.py","languageId":"python","version":1,"text":""}}}],"work":{"method":"workspace/symbol","params":{"query":"C"}}}"#,
    );
    let o = cancelcheck(&[
        "probe",
        "--dialect",
        "lsp",
        "--recipe",
        &recipe,
        "--print-messages",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for fragment in [
        r#""rootUri":"file:///ws""#,
        "textDocument/didOpen",
        r#""method":"workspace/symbol","params":{"query":"C"}"#,
    ] {
        assert!(out.contains(fragment), "lacks {fragment}: {out}");
    }
    rejects(
        &[
            "probe",
            "--dialect",
            "acp",
            "--params",
            r#"{"command":"sleep"}"#,
            "--print-messages",
        ],
        &["--params", "prompt"],
    );
}

/// The README's exit codes where output cannot be written or input holds nothing: `audit`
/// whose failing finding's trace cannot be saved exits 3 (it exited 1); a transcript with no
/// message at all is bad input, 2 (an empty one exited 0); `vectors --out` into a place no
/// file can be written exits 3 (it exited 2, "bad input").
#[test]
fn exit_codes_for_unwritten_output_and_empty_input_are_the_readmes() {
    let tmp = Scratch::new("exit-codes");
    let dir = tmp.path();
    let a_file = write(dir, "a-file", "");
    let failing = write(
        dir,
        "fail.jsonl",
        concat!(
            r#"{"direction":"client-to-server","time":0,"message":{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"x"}}}"#,
            "\n",
            r#"{"direction":"client-to-server","time":5,"message":{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}}"#,
            "\n",
            r#"{"direction":"server-to-client","time":9,"message":{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}}"#,
            "\n"
        ),
    );
    // Saved where a file stands in for the folder, the trace cannot be saved: 3; saved, 1.
    let unsaved = format!("{a_file}/found");
    let saved = dir.join("found").display().to_string();
    for (save, code) in [(&unsaved, 3), (&saved, 1)] {
        let o = cancelcheck(&[
            "audit",
            "--dialect",
            "lsp",
            "--min-work-ms",
            "100",
            "--save",
            save,
            &failing,
        ]);
        assert_eq!(o.status.code(), Some(code), "{}", text(&o.stdout));
        assert_eq!(text(&o.stdout).contains("NOT SAVED"), code == 3);
    }
    rejects(
        &["audit", "--dialect", "lsp", &a_file],
        &["holds no message"],
    );
    let o = cancelcheck(&["vectors", "--out", &format!("{a_file}/vectors")]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("NOT WRITTEN"),
        "{}",
        text(&o.stderr)
    );
}
