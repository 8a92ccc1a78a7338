//! A run split into shards and merged says what the whole run says: `run --seeds R --json`
//! against `run --seeds R --shard I/3 --json` for each I, then `merge`, for a passing, a
//! failing and a vacuous run; `merge` refuses what is not the shards of one run; and
//! `examples/run-shards.sh`, the recipes' local twin, runs shards in parallel and merges them.

use serde_json::Value;
use std::path::Path;
use std::process::Output;

mod common;
use common::recipes::{literal_block, repo_file, sh};
use common::{Scratch, cancelcheck, json_out, text};

/// The fields that differ between a whole run and its shards merged: the timings, the worker
/// threads, which shard ran, and which files were merged.
const MAY_DIFFER: [&str; 5] = ["seconds", "events_per_sec", "jobs", "shard", "merged_from"];

/// Asserts that a whole run's JSON and its shards' merge agree on every field that must.
fn same(whole: &Value, merged: &Value, what: &str) {
    let (w, m) = (whole.as_object().unwrap(), merged.as_object().unwrap());
    for key in w.keys().chain(m.keys()) {
        if MAY_DIFFER.contains(&key.as_str()) {
            continue;
        }
        assert_eq!(w.get(key), m.get(key), "{what}: field `{key}` differs");
    }
}

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

/// Runs `args` (a shard: exit 0 or 1) and writes its stdout to `dir/name`; returns that path.
fn output_file(dir: &Path, name: &str, args: &[&str]) -> String {
    let o = cancelcheck(args);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        text(&o.stderr)
    );
    let file = dir.join(name);
    std::fs::write(&file, &o.stdout).expect("write shard");
    file.display().to_string()
}

/// A copy of shard `from`, named `name` in `dir`, with `field` set to `value`.
fn forged(dir: &Path, from: &str, name: &str, field: &str, value: Value) -> String {
    let file = dir.join(name).display().to_string();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    v[field] = value;
    std::fs::write(&file, v.to_string()).unwrap();
    file
}

/// Asserts that `merge` of `files` exits 2 saying each of `fragments` on stderr.
fn merge_refused(files: &[&String], fragments: &[&str]) {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| f.as_str()));
    let err = text(&run(&args, 2).stderr);
    for f in fragments {
        assert!(err.contains(f), "{args:?}: {err:?} lacks {f:?}");
    }
}

#[test]
fn merge_refuses_what_is_not_the_shards_of_one_run() {
    let tmp = Scratch::new("refuse");
    let dir = tmp.path();
    let save = dir.join("traces").display().to_string();
    let shard = |name: &str, args: &[&str]| {
        let mut all = vec!["run", "--seeds", "0..40", "--save", &save, "--json"];
        all.extend_from_slice(args);
        output_file(dir, name, &all)
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
    // Numbers no run gives: a sum past 2^64 - 1, more failing seeds than seeds, a time that
    // is negative or past any run's, no worker thread.
    let forged = |name: &str, field: &str, value: Value| forged(dir, &s1, name, field, value);
    let wraps = forged("wraps.json", "events", Value::from(u64::MAX));
    let too_failing = forged("failing.json", "failing_seeds", Value::from(21));
    let negative = forged("negative.json", "seconds", Value::from(-1.0));
    let forever = forged("forever.json", "seconds", Value::from(1e308));
    let no_jobs = forged("no-jobs.json", "jobs", Value::from(0));
    for (file, field) in [
        (&wraps, "field `events`"),
        (&too_failing, "field `failing_seeds`"),
        (&negative, "field `seconds`"),
        (&forever, "field `seconds`"),
        (&no_jobs, "field `jobs`"),
    ] {
        merge_refused(&[&s0, file], &[file, field]);
    }
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
        merge_refused(&files, &fragments);
    }
}

/// The whole run of `flags` as JSON, run in `dir` with traces saved under `traces/found`.
fn whole(dir: &Path, flags: &str, code: i32) -> Value {
    let o = sh(
        dir,
        &format!("cancelcheck run --json --save traces/found {flags}"),
        &[],
    );
    assert_eq!(o.status.code(), Some(code), "{}", text(&o.stderr));
    json_out(&o)
}

const FLAGS: &str = "--behavior answers-twice --seeds 0..400 --jobs 1";

#[test]
fn run_shards_sh_runs_shards_at_once_and_merges_them() {
    let tmp = Scratch::new("script");
    let dir = tmp.path();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/run-shards.sh");
    let o = sh(
        dir,
        &format!("sh {} 3 {FLAGS} --save traces/found", script.display()),
        &[("OUT", "out"), ("MERGE_FLAGS", "--json")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let merged = json_out(&o);
    assert_eq!(merged["merged_from"].as_array().map(Vec::len), Some(3));
    same(&whole(dir, FLAGS, 1), &merged, "run-shards.sh");
}

/// The CI matrix's shard step, run for each index as the matrix would, then its merge step.
#[test]
fn the_ci_matrix_recipe_runs_its_shards_and_merges_them() {
    let tmp = Scratch::new("ci");
    let dir = tmp.path();
    let yaml = repo_file("examples/ci/shards.yml");
    assert!(yaml.contains("index: [0, 1, 2, 3]") && yaml.contains("SHARDS: 4"));
    let step = literal_block(&yaml, "- name: Run shard");
    assert!(
        step.contains("--shard ${{ matrix.index }}/$SHARDS --json"),
        "{step}"
    );
    for i in 0..4 {
        let script = step
            .replace("${{ matrix.index }}", &i.to_string())
            .replace("bin/cancelcheck", "cancelcheck");
        let o = sh(dir, &script, &[("RUN_FLAGS", FLAGS), ("SHARDS", "4")]);
        assert!(o.status.success(), "shard {i}: {}", text(&o.stderr));
    }
    let merge = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("- run: bin/cancelcheck merge"))
        .expect("a merge step");
    let o = sh(dir, &format!("cancelcheck merge{merge} --json"), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    same(&whole(dir, FLAGS, 1), &json_out(&o), "the CI recipe");
}

/// The Indexed Job's container script, run for each completion index with the shared volume
/// a folder here, then the merge Job's.
#[test]
fn the_indexed_job_recipe_runs_its_shards_and_merges_them() {
    let tmp = Scratch::new("k8s");
    let dir = tmp.path();
    let out = dir.display().to_string();
    let job = repo_file("examples/k8s/shards.yaml");
    for needed in [
        "completionMode: Indexed",
        "completions: 4",
        "value: \"4\"",
        "mountPath: /out",
    ] {
        assert!(job.contains(needed), "shards.yaml lacks {needed:?}");
    }
    let script = literal_block(&job, "JOB_COMPLETION_INDEX is set").replace("/out", &out);
    assert!(script.contains("--shard \"$I/$SHARDS\""), "{script}");
    for i in 0..4 {
        let index = i.to_string();
        let o = sh(
            dir,
            &script,
            &[
                ("JOB_COMPLETION_INDEX", &index),
                ("SHARDS", "4"),
                ("RUN_FLAGS", FLAGS),
            ],
        );
        assert!(o.status.success(), "index {i}: {}", text(&o.stderr));
        assert!(dir.join(format!("shard-{i}.json")).is_file());
    }
    let merge = literal_block(&repo_file("examples/k8s/merge.yaml"), "args:").replace("/out", &out);
    let o = sh(dir, &merge, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let save = dir.join("traces");
    let save = save.display().to_string();
    let whole = json_out(&run(
        &[
            "run",
            "--json",
            "--save",
            &save,
            "--behavior",
            "answers-twice",
            "--seeds",
            "0..400",
            "--jobs",
            "1",
        ],
        1,
    ));
    same(&whole, &merged, "the Indexed Job recipe");
    assert!(
        text(&o.stdout).contains("verdict: fail"),
        "{}",
        text(&o.stdout)
    );
}

/// What may differ between one search whole and its shards merged: timings, threads, memory
/// figures (each shard holds its own share at once) and which files were merged.
const SEARCH_MAY_DIFFER: [&str; 9] = [
    "seconds",
    "states_per_sec",
    "threads",
    "peak_rss_bytes",
    "peak_states_held",
    "peak_bytes_held",
    "bytes_per_state",
    "max_memory_bytes",
    "max_memory_from",
];

/// The lines of an `explore` text that the whole search and the merge share: all but the
/// merge's first (which files it merged), the timings and the memory line.
fn search_lines(t: &str) -> Vec<String> {
    t.lines()
        .filter(|l| !l.starts_with("cancelcheck merge:") && !l.starts_with("memory:"))
        .map(|l| match l.split_once("   peak held") {
            Some((counts, _)) if l.starts_with("unique states:") => counts.to_string(),
            _ => l.to_string(),
        })
        .collect()
}

/// Runs one search of `args` whole and in `n` shards (traces under `dir`), merges the shards
/// in reverse order, and compares every field of the JSON but `SEARCH_MAY_DIFFER` and
/// `merged_from`, and the text's lines; returns the whole search's JSON and each shard's.
fn search_whole_and_sharded(dir: &Path, args: &[&str], n: u32, code: i32) -> (Value, Vec<Value>) {
    let save = dir.join("traces").display().to_string();
    let with = |extra: &[&str]| {
        let mut all: Vec<&str> = vec!["explore"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--save", &save]);
        all.extend_from_slice(extra);
        all.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let whole_text = text(&run(&strs(&with(&[])), code).stdout);
    let whole_json = json_out(&run(&strs(&with(&["--json"])), code));
    let (mut files, mut shards) = (Vec::new(), Vec::new());
    for i in 0..n {
        let shard = format!("{i}/{n}");
        let threads = (1 + i % 2).to_string();
        let o = cancelcheck(&strs(&with(&[
            "--shard",
            &shard,
            "--json",
            "--threads",
            &threads,
        ])));
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{shard}: {}",
            text(&o.stderr)
        );
        let v = json_out(&o);
        assert_eq!(v["format"], "cancelcheck-explore-shard");
        assert_eq!(v["shard"]["index"], i);
        assert_eq!(v["shard"]["count"], n);
        let file = dir.join(format!("search-{i}-of-{n}.json"));
        std::fs::write(&file, &o.stdout).expect("write shard");
        files.push(file.display().to_string());
        shards.push(v);
    }
    files.reverse();
    let mut merge: Vec<&str> = vec!["merge"];
    merge.extend(files.iter().map(String::as_str));
    let merged_text = text(&run(&merge, code).stdout);
    merge.push("--json");
    let merged = json_out(&run(&merge, code));
    let (w, m) = (whole_json.as_object().unwrap(), merged.as_object().unwrap());
    for key in w.keys().chain(m.keys()) {
        if SEARCH_MAY_DIFFER.contains(&key.as_str()) || key == "merged_from" {
            continue;
        }
        assert_eq!(
            w.get(key),
            m.get(key),
            "{args:?} in {n}: field `{key}` differs"
        );
    }
    assert_eq!(m["merged_from"].as_array().map(Vec::len), Some(n as usize));
    assert_eq!(
        search_lines(&whole_text),
        search_lines(&merged_text),
        "{args:?} in {n}: the text differs"
    );
    assert!(merged_text.starts_with(&format!("cancelcheck merge: {n} shards")));
    (whole_json, shards)
}

/// One search split over its initial states and merged says what the whole search says: a
/// correct behavior that passes, a fault whose shards stop at different depths (the search of
/// the second initial state goes on past the level where the first's finds a counterexample:
/// the merge counts it as it stood there), a fault only the second initial state reaches, and
/// one both reach at the same depth (the whole search reports the first's), and a search
/// bounded by depth whose counterexample the whole search shortens.
#[test]
fn a_search_in_shards_merged_says_what_the_whole_search_says() {
    let tmp = Scratch::new("search");
    let dir = tmp.path();
    let acp = [
        "--requests",
        "2",
        "--transport",
        "reordering",
        "--timeouts",
        "--progress",
        "--init-timeout",
    ];
    let rfd = |b: &'static str| {
        let mut a = vec!["--dialect", "acp-rfd", "--behavior", b];
        a.extend_from_slice(&acp);
        a
    };
    for n in [2, 3] {
        let (v, shards) = search_whole_and_sharded(dir, &acp, n, 0);
        assert_eq!(v["verdict"], "pass");
        assert_eq!(v["partial_order"], true);
        // Two initial states: a third shard has none, says so, and counts nothing.
        let roots: Vec<Value> = shards
            .iter()
            .map(|s| s["initial_states_searched"].clone())
            .collect();
        assert_eq!(
            roots
                .iter()
                .filter(|r| r.as_array().unwrap().is_empty())
                .count(),
            n as usize - 2
        );
        let sum: u64 = shards
            .iter()
            .map(|s| s["unique_states"].as_u64().unwrap())
            .sum();
        assert_eq!(
            sum,
            v["unique_states"].as_u64().unwrap(),
            "no state is shared"
        );

        let (v, shards) = search_whole_and_sharded(dir, &rfd("cancel-cancels-all"), n, 1);
        assert_eq!(v["verdict"], "fail");
        let states: Vec<u64> = shards
            .iter()
            .map(|s| s["unique_states"].as_u64().unwrap())
            .collect();
        assert!(
            states.iter().sum::<u64>() > v["unique_states"].as_u64().unwrap(),
            "a shard searched past the whole search's stop: {states:?} against {}",
            v["unique_states"]
        );

        let (v, _) = search_whole_and_sharded(dir, &rfd("cancels-without-capability"), n, 1);
        assert_eq!(v["verdict"], "fail");

        // Both initial states break it at the same depth: the first one's is reported.
        let mut args = vec!["--behavior", "finish-first"];
        args.extend_from_slice(&acp);
        let (v, shards) = search_whole_and_sharded(dir, &args, n, 1);
        assert_eq!(v["verdict"], "fail");
        let found = |s: &Value| s["search_report"]["found"]["counterexample"]["level"].clone();
        assert_eq!(found(&shards[0]), found(&shards[1]));

        // Bounded by depth under the partial-order reduction: the first initial state's search
        // finds nothing within the bound, the second's finds a counterexample that the whole
        // search then shortens over every initial state, the first's included.
        let args = [
            "--dialect",
            "acp-rfd",
            "--behavior",
            "cancels-without-capability",
            "--requests",
            "2",
            "--transport",
            "reordering",
            "--max-depth",
            "5",
        ];
        let (v, shards) = search_whole_and_sharded(dir, &args, n, 1);
        assert_eq!(v["verdict"], "fail");
        assert_eq!(shards[0]["verdict"], "vacuous");
        assert_eq!(shards[0]["search_report"]["shortening"][0], 6);
    }
}

#[test]
fn merge_refuses_what_is_not_the_shards_of_one_search() {
    let tmp = Scratch::new("refuse-search");
    let dir = tmp.path();
    let save = dir.join("traces").display().to_string();
    let shard = |name: &str, args: &[&str]| {
        let mut all = vec!["explore", "--dialect", "acp-rfd", "--save", &save, "--json"];
        all.extend_from_slice(args);
        output_file(dir, name, &all)
    };
    let s0 = shard("s0.json", &["--shard", "0/2"]);
    let s1 = shard("s1.json", &["--shard", "1/2"]);
    let other = shard(
        "other.json",
        &["--shard", "1/2", "--behavior", "finish-first"],
    );
    let three = shard("three.json", &["--shard", "1/3"]);
    let bounded = ["0/2", "1/2"].map(|i| {
        shard(
            &format!("b{i}.json").replace('/', "-"),
            &["--shard", i, "--max-states", "5"],
        )
    });
    let edited = dir.join("edited.json").display().to_string();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&s1).unwrap()).unwrap();
    v["initial_states_searched"] = serde_json::json!([0]);
    std::fs::write(&edited, v.to_string()).unwrap();
    // Numbers no search gives: a negative time, no thread, a memory budget that sums past
    // 2^64 - 1.
    let forged = |name: &str, field: &str, value: Value| forged(dir, &s1, name, field, value);
    for (name, field, value) in [
        ("negative.json", "seconds", Value::from(-1.0)),
        ("no-threads.json", "threads", Value::from(0)),
        ("bytes.json", "max_memory_bytes", Value::from(u64::MAX)),
    ] {
        let file = forged(name, field, value);
        merge_refused(&[&s0, &file], &[&file, &format!("field `{field}`")]);
    }
    assert_eq!(run(&["merge", &s1, &s0], 0).status.code(), Some(0));
    for (files, fragments) in [
        (vec![&s0], vec!["shard 1/2 missing"]),
        (vec![&s0, &s0], vec![&s0, "field `shard.index`", "again"]),
        (
            vec![&s0, &other],
            vec![&other, "field `configuration`", "differs"],
        ),
        (
            vec![&s0, &three],
            vec![&three, "field `shard.count`", "differs"],
        ),
        (
            vec![&s0, &edited],
            vec![&edited, "field `initial_states_searched`", "expected [1]"],
        ),
        (
            vec![&bounded[1], &bounded[0]],
            vec![
                &bounded[0],
                "field `search_report`",
                "--max-states",
                "raise the bound",
            ],
        ),
    ] {
        merge_refused(&files, &fragments);
    }
    for (args, fragment) in [
        (vec!["explore", "--shard", "2/2"], "expected I/N with I < N"),
        (vec!["explore", "--shard", "0/2", "--dfs"], "--dfs"),
    ] {
        let err = text(&run(&args, 2).stderr);
        assert!(err.contains(fragment), "{args:?}: {err}");
    }
}
