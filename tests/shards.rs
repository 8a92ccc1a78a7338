//! A run split into shards and merged says what the whole run says: `run --seeds R --json`
//! against `run --seeds R --shard I/3 --json` for each I, then `merge`, for a passing, a
//! failing and a vacuous run; `merge` refuses what is not the shards of one run; and
//! `examples/run-shards.sh`, the recipes' local twin, runs shards in parallel and merges them.

use serde_json::Value;
use std::path::Path;
use std::process::Output;

mod common;
use common::{Scratch, cancelcheck, json_out, text};

/// The fields that differ between a whole run and its shards merged: the timings, the worker
/// threads, which shard ran, and which files were merged.
const MAY_DIFFER: [&str; 5] = ["seconds", "events_per_sec", "jobs", "shard", "merged_from"];

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn run(args: &[&str], code: i32) -> Output {
    let o = cancelcheck(args);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{args:?}\nstderr: {}",
        text(&o.stderr)
    );
    o
}

/// Runs `args` whole and in 3 shards (saving traces under `dir`), merges the shards (given in
/// reverse order) and compares every field of the JSON and every line of the text but the
/// first two (what ran, and the timings); returns the whole run's JSON.
fn whole_and_sharded(dir: &Path, args: &[&str], code: i32) -> Value {
    let save = dir.join("traces").display().to_string();
    let with = |extra: &[&str]| {
        let mut all: Vec<&str> = vec!["run"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--save", &save, "--jobs", "1"]);
        all.extend_from_slice(extra);
        all.into_iter().map(String::from).collect::<Vec<_>>()
    };
    // The text first: it notes a trace already saved, which the merge cannot know.
    let whole_text = text(&run(&strs(&with(&[])), code).stdout);
    let whole_json = json_out(&run(&strs(&with(&["--json"])), code));
    let mut files = Vec::new();
    for i in 0..3 {
        let shard = format!("{i}/3");
        // A shard of a failing run may pass on its own seeds: 0 or 1.
        let o = cancelcheck(&strs(&with(&["--shard", &shard, "--json"])));
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{}",
            text(&o.stderr)
        );
        let v = json_out(&o);
        assert_eq!(v["format"], "cancelcheck-run");
        assert_eq!(v["shard"]["index"], i);
        assert_eq!(v["shard"]["count"], 3);
        let file = dir.join(format!("shard-{i}.json"));
        std::fs::write(&file, &o.stdout).expect("write shard");
        files.push(file.display().to_string());
    }
    files.reverse();
    let mut merge: Vec<&str> = vec!["merge"];
    merge.extend(files.iter().map(String::as_str));
    let merged_text = text(&run(&merge, code).stdout);
    merge.push("--json");
    let merged_json = json_out(&run(&merge, code));

    let (w, m) = (
        whole_json.as_object().unwrap(),
        merged_json.as_object().unwrap(),
    );
    for key in w.keys().chain(m.keys()) {
        if MAY_DIFFER.contains(&key.as_str()) {
            continue;
        }
        assert_eq!(w.get(key), m.get(key), "{args:?}: field `{key}` differs");
    }
    assert_eq!(m["merged_from"].as_array().map(Vec::len), Some(3));
    let tail = |t: &str| t.lines().skip(2).map(String::from).collect::<Vec<_>>();
    assert_eq!(
        tail(&whole_text),
        tail(&merged_text),
        "{args:?}: the text differs"
    );
    assert!(
        merged_text
            .lines()
            .next()
            .unwrap()
            .contains("merged from 3 shards"),
        "{merged_text}"
    );
    whole_json
}

#[test]
fn shards_merged_say_what_the_whole_run_says() {
    let tmp = Scratch::new("same");
    let v = whole_and_sharded(tmp.path(), &["--seeds", "0..600"], 0);
    assert_eq!(v["verdict"], "pass");
    // More failing seeds than a summary lists: the first 10,000 and the counts agree.
    let v = whole_and_sharded(
        tmp.path(),
        &["--behavior", "answers-twice", "--seeds", "0..12000"],
        1,
    );
    assert_eq!(v["verdict"], "fail");
    assert!(
        v["failing_seeds"].as_u64().unwrap() > 10_000,
        "{}",
        v["failing_seeds"]
    );
    assert_eq!(v["failures"].as_array().map(Vec::len), Some(10_000));
    assert!(!v["violations"].as_array().unwrap().is_empty());
    let v = whole_and_sharded(tmp.path(), &["--seeds", "0..3"], 0);
    assert_eq!(v["verdict"], "vacuous");
    assert!(!v["vacuous_because"].as_array().unwrap().is_empty());
}

#[test]
fn merge_refuses_what_is_not_the_shards_of_one_run() {
    let tmp = Scratch::new("refuse");
    let dir = tmp.path();
    let save = dir.join("traces").display().to_string();
    let shard = |name: &str, args: &[&str]| {
        let mut all = vec!["run", "--seeds", "0..40", "--save", &save, "--json"];
        all.extend_from_slice(args);
        let o = cancelcheck(&all);
        let file = dir.join(name);
        std::fs::write(&file, &o.stdout).expect("write shard");
        file.display().to_string()
    };
    let s0 = shard("s0.json", &["--shard", "0/2"]);
    let s1 = shard("s1.json", &["--shard", "1/2"]);
    let other = shard(
        "other.json",
        &["--shard", "1/2", "--behavior", "answers-twice"],
    );
    let stopped = shard("stopped.json", &["--shard", "1/2", "--stop-first"]);
    let scenario = dir.join("scenario.json").display().to_string();
    std::fs::write(&scenario, cancelcheck(&["scenario"]).stdout).expect("write scenario");
    let cut = dir.join("cut.json").display().to_string();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&s1).unwrap()).unwrap();
    v["seeds"] = Value::from(3);
    std::fs::write(&cut, v.to_string()).unwrap();
    assert_eq!(
        run(&["merge", &s0, &s1, "--json"], 0).status.code(),
        Some(0)
    );
    for (files, fragments) in [
        (vec![&s0], vec!["shard 1/2 missing"]),
        (vec![&s0, &s0], vec![&s0, "field `shard.index`", "again"]),
        (
            vec![&s0, &other],
            vec![&other, "field `scenario`", "differs"],
        ),
        (vec![&s0, &stopped], vec![&stopped, "field `stop_first`"]),
        (vec![&s0, &cut], vec![&cut, "field `seeds`", "expected 20"]),
        (
            vec![&scenario],
            vec![&scenario, "field `format`", "not a shard"],
        ),
    ] {
        let mut args = vec!["merge"];
        args.extend(files.iter().map(|f| f.as_str()));
        let o = run(&args, 2);
        let err = text(&o.stderr);
        for f in fragments {
            assert!(err.contains(f), "{args:?}: {err:?} lacks {f:?}");
        }
    }
}
