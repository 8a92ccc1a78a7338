//! The command line as a user meets it: exit codes, machine-readable output, saved traces, and
//! bad input that names the file, the field and what was expected, never a panic.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cancelcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cancelcheck-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", text(&o.stdout)))
}

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

#[test]
fn a_fault_is_saved_and_replays() {
    let dir = scratch("fault");
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
    let v = json_out(&o);
    let first = &v["violations"][0];
    assert_eq!(first["invariant"], "single-resolution");
    assert!(first["seed"].as_u64().is_some());
    let trace = first["trace"].as_str().expect("trace path").to_string();
    assert!(Path::new(&trace).exists());

    let o = cancelcheck(&["replay", &trace]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("single-resolution"));
    assert!(text(&o.stderr).contains("byte for byte"));

    let o = cancelcheck(&["replay", &trace, "--format", "json"]);
    let v = json_out(&o);
    assert_eq!(v["reproduced"], true);
    assert_eq!(v["diverged_at"], Value::Null);
    assert_eq!(v["verdict"]["result"], "fail");

    let o = cancelcheck(&["replay", &trace, "--format", "mermaid"]);
    assert!(text(&o.stdout).starts_with("sequenceDiagram"));
}

#[test]
fn traces_are_never_overwritten() {
    let dir = scratch("clobber");
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
    let files: Vec<_> = std::fs::read_dir(&dir)
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
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    // A different file under the same name stays; the trace goes beside it.
    std::fs::write(&files[0], "not mine").unwrap();
    let o = cancelcheck(&args);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), "not mine");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.ends_with("-2.json")), "{names:?}");
}

#[test]
fn a_tampered_trace_diverges() {
    let dir = scratch("tamper");
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
        &dir,
        "tampered.json",
        &serde_json::to_string_pretty(&doc).unwrap(),
    );
    let o = cancelcheck(&["replay", &tampered]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("DIVERGED") && err.contains("#5"), "{err}");
}

#[test]
fn bad_scenarios_name_the_file_and_the_field() {
    let dir = scratch("scenario");
    let wrong_type = write(
        &dir,
        "wrong-type.json",
        r#"{"dialect": "acp", "workload": {"requests": "four"}}"#,
    );
    rejects(
        &["run", "--scenario", &wrong_type],
        &["wrong-type.json", "workload.requests", "expected u16"],
    );
    let zero = write(
        &dir,
        "zero.json",
        r#"{"dialect": "acp", "workload": {"requests": 0}}"#,
    );
    rejects(
        &["run", "--scenario", &zero],
        &["zero.json", "workload.requests", "1 to 64"],
    );
    let unknown = write(
        &dir,
        "unknown.json",
        r#"{"dialect": "acp", "workload": {"request": 3}}"#,
    );
    rejects(
        &["run", "--scenario", &unknown],
        &["unknown.json", "workload", "unknown field `request`"],
    );
    let broken = write(
        &dir,
        "broken.json",
        "{\"dialect\": \"acp\",\n  \"workload\": }",
    );
    rejects(&["run", "--scenario", &broken], &["broken.json", "line 2"]);
    let dialect = write(&dir, "dialect.json", r#"{"dialect": "mcp"}"#);
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
    let dir = scratch("trace");
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
    let f = write(&dir, "version.json", &v.to_string());
    rejects(&["replay", &f], &["version.json", "version", "expected 1"]);

    let mut v = doc.clone();
    v["origin"] = serde_json::json!({"kind": "seed"});
    let f = write(&dir, "origin.json", &v.to_string());
    rejects(&["replay", &f], &["origin.json", "origin", "seed"]);

    let mut v = doc.clone();
    v["config"]["link"]["loss_permille"] = Value::from(5000);
    let f = write(&dir, "loss.json", &v.to_string());
    rejects(
        &["replay", &f],
        &["loss.json", "config.link.loss_permille", "0 to 1000"],
    );

    let mut v = doc;
    v["format"] = Value::from("something-else");
    let f = write(&dir, "format.json", &v.to_string());
    rejects(&["replay", &f], &["format.json", "format"]);
}

#[test]
fn bad_flags_say_what_was_expected() {
    rejects(
        &["run", "--dialect", "mcp"],
        &["--dialect", "mcp-2025-11-25"],
    );
    rejects(
        &["run", "--behavior", "sloppy"],
        &["--behavior", "answers-twice"],
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
    rejects(&["explore", "--requests", "40"], &["--requests", "1 to 8"]);
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
        assert!(["MUST", "SHOULD"].contains(&r["strength"].as_str().unwrap()));
        assert!(["always", "eventually", "sometimes"].contains(&r["kind"].as_str().unwrap()));
    }
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
    }
}

#[test]
fn explore_prints_a_certificate_and_saves_a_replayable_counterexample() {
    let dir = scratch("explore");
    let o = cancelcheck(&[
        "explore",
        "--dialect",
        "mcp-2026-07-28",
        "--requests",
        "2",
        "--transport",
        "reordering",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["verdict"], "pass");
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
