//! What a newcomer meets in the first hour: every run says what it ran, the scenario it ran can
//! be printed and run again, every outcome says what to do next, and a name typed wrong gets
//! the same message from every command.

use serde_json::Value;

mod common;
use common::{Scratch, cancelcheck, json_out, text};

/// The first line of stdout.
fn first_line(o: &std::process::Output) -> String {
    text(&o.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_printed_scenario_is_the_one_run_and_runs_again() {
    let tmp = Scratch::new("scenario");
    for names in [
        vec![],
        vec!["--dialect", "lsp", "--behavior", "answers-twice"],
        vec!["--dialect", "mcp-2026-07-28"],
    ] {
        let mut args = vec!["scenario"];
        args.extend(&names);
        let o = cancelcheck(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let printed = json_out(&o);
        // Every field is there, none left to a default the reader cannot see.
        for key in [
            "dialect",
            "behavior",
            "workload",
            "link",
            "swarm",
            "max_events",
        ] {
            assert!(printed.get(key).is_some(), "{key} missing: {printed}");
        }
        for key in ["requests", "workers", "cancel_permille", "timeout", "ids"] {
            assert!(printed["workload"].get(key).is_some(), "workload.{key}");
        }
        // The run with the same names runs exactly this scenario...
        let mut run = vec!["run", "--seeds", "0..20", "--json", "--save"];
        let save = tmp.path().display().to_string();
        run.push(&save);
        run.extend(&names);
        let by_flags = json_out(&cancelcheck(&run));
        assert_eq!(by_flags["scenario"], printed, "{names:?}");
        // ...and the printed file, given back, runs it too, with the same results.
        let file = tmp.path().join("s.json");
        std::fs::write(&file, text(&o.stdout)).expect("write");
        let f = file.display().to_string();
        let by_file = json_out(&cancelcheck(&[
            "run",
            "--scenario",
            &f,
            "--seeds",
            "0..20",
            "--json",
            "--save",
            &save,
        ]));
        assert_eq!(by_file["scenario"], printed);
        for key in ["events", "verdict", "failing_seeds", "races_reached"] {
            assert_eq!(by_file[key], by_flags[key], "{key}");
        }
    }
}

#[test]
fn every_run_says_in_one_line_what_it_ran() {
    let tmp = Scratch::new("ran");
    let save = tmp.path().display().to_string();
    let o = cancelcheck(&["run", "--seeds", "0..10", "--save", &save]);
    let line = first_line(&o);
    for part in [
        "acp",
        "behavior honour",
        "seeds 0..10",
        "4 requests",
        "1 worker,",
        "stdio link",
        "cancel 500‰",
        "timeouts 500..4000 µs",
        "init timeout",
        "progress 300‰",
        "loss off",
        "cancelcheck scenario --dialect acp --behavior honour",
    ] {
        assert!(line.contains(part), "lacks {part:?}: {line}");
    }
    let v = json_out(&cancelcheck(&[
        "run", "--seeds", "0..10", "--save", &save, "--json",
    ]));
    assert_eq!(v["ran"]["requests"], 4);
    assert_eq!(v["ran"]["transport"], "stdio");
    assert_eq!(v["ran"]["cancel_permille"], 500);
    assert!(v["events_per_sec"].is_u64(), "a rate is an integer");

    let o = cancelcheck(&["explore", "--requests", "1", "--save", &save]);
    let line = first_line(&o);
    for part in [
        "1 request,",
        "stdio transport",
        "1 worker,",
        "no timeouts",
        "no loss",
        "breadth-first",
        "at most 4000000 states",
    ] {
        assert!(line.contains(part), "lacks {part:?}: {line}");
    }
    let all = text(&o.stdout);
    assert!(
        !all.contains("1 requests") && !all.contains("1 workers"),
        "{all}"
    );
}

#[test]
fn a_pass_says_what_it_covered_and_a_failure_how_to_look_at_it() {
    let tmp = Scratch::new("next");
    let save = tmp.path().display().to_string();
    let o = cancelcheck(&["run", "--seeds", "0..20", "--save", &save]);
    let out = text(&o.stdout);
    assert!(
        out.contains("covered: 20 seeds of 4 requests each"),
        "{out}"
    );
    assert!(
        out.contains("next:") && out.contains("cancelcheck explore"),
        "{out}"
    );

    let o = cancelcheck(&[
        "run",
        "--behavior",
        "answers-twice",
        "--seeds",
        "0..50",
        "--save",
        &save,
        "--json",
    ]);
    let v = json_out(&o);
    let trace = v["violations"][0]["trace"]
        .as_str()
        .expect("a trace")
        .to_string();
    let next: Vec<&str> = v["next_steps"]
        .as_array()
        .expect("next_steps")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(next.contains(&format!("cancelcheck replay {trace}").as_str()));
    assert!(next.contains(&format!("cancelcheck replay {trace} --format mermaid").as_str()));
    assert!(next.iter().any(|s| s.contains("--format html")), "{next:?}");

    // The explorer reports the races it never reached, and why its verdict is vacuous.
    let v = json_out(&cancelcheck(&[
        "explore",
        "--requests",
        "1",
        "--json",
        "--save",
        &save,
    ]));
    assert_eq!(v["verdict"], "vacuous");
    assert_eq!(
        v["races_unreached"],
        serde_json::json!(["race-cancel-before-work"])
    );
    assert!(
        v["vacuous_because"][0]
            .as_str()
            .unwrap()
            .contains("--workers")
    );
    assert!(v["states_per_sec"].is_u64(), "a rate is an integer");
    let o = cancelcheck(&["explore", "--requests", "1", "--save", &save]);
    let out = text(&o.stdout);
    assert!(
        out.contains("races NOT reached: race-cancel-before-work"),
        "{out}"
    );
    assert!(out.contains("next:"), "{out}");
    assert!(
        out.contains("covered: every schedule of 1 request on a stdio link"),
        "{out}"
    );
    // The wider search it suggests keeps every option given, and widens the rest.
    let v = json_out(&cancelcheck(&[
        "explore",
        "--requests",
        "2",
        "--reuse-ids",
        "--json",
        "--save",
        &save,
    ]));
    let wider = v["next_steps"]
        .as_array()
        .expect("next_steps")
        .iter()
        .filter_map(Value::as_str)
        .find(|s| s.ends_with("# a wider search"))
        .expect("a wider search");
    for flag in [
        "--requests 2",
        "--reuse-ids",
        "--transport reordering",
        "--timeouts",
    ] {
        assert!(wider.contains(flag), "lacks {flag}: {wider}");
    }
    // A bounded search says so in what it covered.
    let o = cancelcheck(&[
        "explore",
        "--requests",
        "2",
        "--max-depth",
        "3",
        "--save",
        &save,
    ]);
    let out = text(&o.stdout);
    assert!(
        out.contains("covered: only the schedules within the depth bound of 2 requests"),
        "{out}"
    );

    // A counterexample on stdio is saved under a name that says stdio, as the flag does.
    let v = json_out(&cancelcheck(&[
        "explore",
        "--behavior",
        "answers-twice",
        "--requests",
        "1",
        "--transport",
        "stdio",
        "--json",
        "--save",
        &save,
    ]));
    let file = v["counterexample"].as_str().expect("a counterexample");
    assert!(file.contains("-n1-stdio-"), "{file}");
}

#[test]
fn the_same_mistake_gets_the_same_message_everywhere() {
    let tmp = Scratch::new("names");
    let expected = "unknown dialect \"mcp\"; expected one of: acp, acp-rfd, mcp-2025-11-25, mcp-2026-07-28, lsp, abp; did you mean mcp-2025-11-25?";
    for cmd in ["run", "explore", "vectors", "scenario"] {
        let o = cancelcheck(&[cmd, "--dialect", "mcp"]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!("--dialect: {expected}")),
            "{cmd}: {err}"
        );
    }
    for cmd in ["run", "explore", "scenario"] {
        let o = cancelcheck(&[cmd, "--behavior", "honor"]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = text(&o.stderr);
        assert!(
            err.contains("--behavior: unknown behavior \"honor\"")
                && err.contains("did you mean honour?"),
            "{cmd}: {err}"
        );
    }
    // A scenario file with the same mistake: the same words, after the file and the field.
    let file = tmp.path().join("s.json");
    std::fs::write(&file, r#"{"dialect": "mcp"}"#).expect("write");
    let f = file.display().to_string();
    for cmd in ["run", "explore"] {
        let o = cancelcheck(&[cmd, "--scenario", &f]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!("s.json: field `dialect`: {expected}")),
            "{cmd}: {err}"
        );
    }
    // --help lists the names.
    let help = text(&cancelcheck(&["run", "--help"]).stdout);
    for name in ["mcp-2026-07-28", "abp", "answers-twice", "reuses-live-id"] {
        assert!(help.contains(name), "run --help lacks {name}");
    }
    // One spelling in the interface.
    let help = text(&cancelcheck(&["--help"]).stdout);
    assert!(!help.contains("behaviour"), "{help}");
}

/// Runs a `next:` line (a cancelcheck command, then flags; single quotes group a word; a
/// trailing `# comment` is dropped) with `--save` and `--json` added, and returns its JSON.
fn run_next(line: &str, save: &str) -> Value {
    let line = line.split("   # ").next().unwrap_or(line);
    let mut words: Vec<String> = Vec::new();
    let mut quoted = false;
    let mut word = String::new();
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    assert_eq!(words[0], "cancelcheck", "{line}");
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    args.extend(["--save", save, "--json"]);
    let o = cancelcheck(&args);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{line}: {}",
        text(&o.stderr)
    );
    json_out(&o)
}

/// A vacuous verdict's first `next:` line is the same command with the options that remove
/// its reasons, and running it does: the fault acts, the race is reached.
#[test]
fn a_vacuous_verdict_says_first_how_to_remove_its_reason() {
    let tmp = Scratch::new("vacuous-next");
    let save = tmp.path().display().to_string();
    for (args, expect) in [
        // A fault of request trees, run flat.
        (
            vec![
                "run",
                "--behavior",
                "cancels-sibling-subtree",
                "--nesting",
                "1x0",
            ],
            // A note: ACP's MAY bounds what a cancel may stop, with no keyword.
            "warn",
        ),
        // A fault that acts on the connect timeout, run without one.
        (
            vec![
                "run",
                "--dialect",
                "lsp",
                "--behavior",
                "cancels-initialize",
                "--set",
                "workload.init_timeout=null",
            ],
            "fail",
        ),
        // A fault that acts on the server's own requests, without any.
        (
            vec![
                "run",
                "--dialect",
                "mcp-2026-07-28",
                "--behavior",
                "server-cancels",
                "--server-requests",
                "0",
                "--nesting",
                "1x0",
            ],
            // "Servers MUST NOT send `notifications/cancelled` for any other purpose" (than
            // ending a subscriptions/listen stream, which the model does not have).
            "fail",
        ),
        // Too few seeds to reach the races.
        (vec!["run", "--seeds", "0..2"], "pass"),
        // The explorer: one request, one worker each.
        (vec!["explore", "--requests", "1"], "pass"),
        (
            vec![
                "explore",
                "--dialect",
                "lsp",
                "--behavior",
                "cancels-initialize",
                "--requests",
                "1",
            ],
            "fail",
        ),
    ] {
        let mut first = args.clone();
        first.extend(["--save", &save, "--json"]);
        let v = json_out(&cancelcheck(&first));
        assert_eq!(v["verdict"], "vacuous", "{args:?}: {v}");
        let next = v["next_steps"][0].as_str().expect("a next step");
        let again = run_next(next, &save);
        assert_eq!(again["verdict"], expect, "{args:?} -> {next}: {again}");
    }
}

/// `cancelcheck scenario` prints, for every behaviour of every dialect, the scenario `run`
/// runs with the same names, and `run --scenario` takes the file back; where the built-in
/// scenario was changed so that the fault can act, both say so.
#[test]
fn every_printed_scenario_runs_again() {
    let tmp = Scratch::new("every-scenario");
    let save = tmp.path().display().to_string();
    let rows = json_out(&cancelcheck(&["behaviors", "--json"]));
    let mut checked = 0;
    for row in rows.as_array().expect("rows") {
        let (d, b) = (
            row["dialect"].as_str().expect("dialect"),
            row["name"].as_str().expect("name"),
        );
        let o = cancelcheck(&["scenario", "--dialect", d, "--behavior", b]);
        assert_eq!(o.status.code(), Some(0), "{d} {b}: {}", text(&o.stderr));
        let file = tmp.path().join(format!("{d}-{b}.json"));
        std::fs::write(&file, &o.stdout).expect("write");
        let f = file.display().to_string();
        let by_file = json_out(&cancelcheck(&[
            "run",
            "--scenario",
            &f,
            "--seeds",
            "0..5",
            "--json",
            "--save",
            &save,
        ]));
        let by_names = json_out(&cancelcheck(&[
            "run",
            "--dialect",
            d,
            "--behavior",
            b,
            "--seeds",
            "0..5",
            "--json",
            "--save",
            &save,
        ]));
        assert_eq!(by_file["scenario"], json_out(&o), "{d} {b}");
        assert_eq!(by_names["scenario"], by_file["scenario"], "{d} {b}");
        assert_eq!(
            by_names["adjusted"].is_string(),
            !text(&o.stderr).is_empty(),
            "{d} {b}: run and scenario disagree on whether the built-in scenario was changed"
        );
        checked += 1;
    }
    assert!(checked > 80, "{checked}");
    // The one that needs deeper trees says so in run's first line.
    let o = cancelcheck(&[
        "run",
        "--dialect",
        "acp-rfd",
        "--behavior",
        "forgets-grandchild",
        "--seeds",
        "0..5",
        "--save",
        &save,
    ]);
    let first = text(&o.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        first.contains("request trees 3x2 so that forgets-grandchild can act"),
        "{first}"
    );
}
