//! The README's table of exit codes, command by command: each command run through every code
//! it can give (0 no failure, 1 a MUST broken or a replay diverged, 2 bad input, 3 a failure
//! whose evidence could not be written, 4 no failure but stdout could not be written), and
//! `watch`, which passes on its server's.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{Scratch, cancelcheck, testpeer, text};

/// What running `args` gives: its exit code, and stderr to say why when it is not expected.
fn exit(args: &[&str]) -> (Option<i32>, String) {
    let o = cancelcheck(args);
    (o.status.code(), text(&o.stderr))
}

/// The exit code of `args` with stdout on a full disk (`/dev/full`).
fn exit_on_full_disk(args: &[&str]) -> (Option<i32>, String) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let o = Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
        .args(args)
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    (o.status.code(), text(&o.stderr))
}

fn write(dir: &Path, name: &str, contents: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

/// A recorded LSP session: a request, its cancel 5 ms later, and its answer 4 ms after that
/// with `code` (with --min-work-ms 100 the answer is decided as the cancelled request's).
fn lsp_session(code: i64) -> String {
    [
        r#"{"direction":"client-to-server","time":0,"message":{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"x"}}}"#.to_string(),
        r#"{"direction":"client-to-server","time":5,"message":{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}}"#.to_string(),
        format!(r#"{{"direction":"server-to-client","time":9,"message":{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"x"}}}}}}"#),
    ]
    .join("\n")
        + "\n"
}

#[test]
fn every_command_exits_as_the_readmes_table_says() {
    let tmp = Scratch::new("table");
    let dir = tmp.path();
    let a_file = write(dir, "a-file", "");
    let unsavable = format!("{a_file}/found");
    let save = |name: &str| dir.join(name).display().to_string();
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/lsp--never-answers-cancelled--seed-1.json")
        .display()
        .to_string();
    let mut tampered: Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    tampered["events"][5]["t"] = Value::from(999_999);
    let tampered = write(
        dir,
        "tampered.json",
        &serde_json::to_string_pretty(&tampered).unwrap(),
    );
    // Shards of a run that passes and of one that fails, for merge.
    let shards = |name: &str, behavior: &str| -> Vec<String> {
        ["0/2", "1/2"]
            .iter()
            .enumerate()
            .map(|(k, shard)| {
                let o = cancelcheck(&[
                    "run",
                    "--dialect",
                    "lsp",
                    "--behavior",
                    behavior,
                    "--seeds",
                    "20",
                    "--shard",
                    shard,
                    "--json",
                    "--save",
                    &save(&format!("{name}-saved")),
                ]);
                write(dir, &format!("{name}-{k}.json"), &text(&o.stdout))
            })
            .collect()
    };
    let good = shards("good", "honour");
    let bad = shards("bad", "never-answers-cancelled");
    let passing = write(dir, "pass.jsonl", &lsp_session(-32800));
    let failing = write(dir, "fail.jsonl", &lsp_session(-32603));
    let peer = testpeer().display().to_string();
    let log = save("watch.jsonl");
    let owned = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let run_ok = ["run", "--dialect", "lsp", "--seeds", "20"];
    let run_failing = |to: &str| {
        owned(&[
            "run",
            "--dialect",
            "lsp",
            "--behavior",
            "never-answers-cancelled",
            "--seeds",
            "20",
            "--save",
            to,
        ])
    };
    let explore_ok = ["explore", "--dialect", "lsp", "--requests", "1"];
    let explore_failing = |to: &str| {
        owned(&[
            "explore",
            "--dialect",
            "lsp",
            "--behavior",
            "never-answers-cancelled",
            "--requests",
            "1",
            "--save",
            to,
        ])
    };
    let audit = |file: &str, to: &str| {
        owned(&[
            "audit",
            "--dialect",
            "lsp",
            "--min-work-ms",
            "100",
            "--save",
            to,
            file,
        ])
    };
    let probe = |behavior: &str, to: &str| {
        owned(&[
            "probe",
            "--dialect",
            "lsp",
            "--scenarios",
            "cancel-during-work",
            "--save",
            to,
            "--",
            &peer,
            "--dialect",
            "lsp",
            "--behavior",
            behavior,
        ])
    };
    let mut merge_good = owned(&["merge"]);
    merge_good.extend(good.iter().cloned());
    let mut merge_bad = owned(&["merge"]);
    merge_bad.extend(bad.iter().cloned());

    // (command, args, stdout on a full disk, the code the README's table gives)
    let rows: Vec<(&str, Vec<String>, bool, i32)> = vec![
        ("run", owned(&run_ok), false, 0),
        ("run", run_failing(&save("run")), false, 1),
        ("run", owned(&["run", "--dialect", "nope"]), false, 2),
        ("run", run_failing(&unsavable), false, 3),
        ("run", owned(&run_ok), true, 4),
        ("merge", merge_good.clone(), false, 0),
        ("merge", merge_bad, false, 1),
        ("merge", owned(&["merge", &a_file]), false, 2),
        ("merge", merge_good, true, 4),
        ("explore", owned(&explore_ok), false, 0),
        ("explore", explore_failing(&save("explore")), false, 1),
        (
            "explore",
            owned(&["explore", "--dialect", "lsp", "--requests", "0"]),
            false,
            2,
        ),
        ("explore", explore_failing(&unsavable), false, 3),
        ("explore", owned(&explore_ok), true, 4),
        ("replay", owned(&["replay", &trace]), false, 0),
        ("replay", owned(&["replay", &tampered]), false, 1),
        ("replay", owned(&["replay", &a_file]), false, 2),
        ("replay", owned(&["replay", &trace]), true, 4),
        ("tree", owned(&["tree", &trace]), false, 0),
        ("tree", owned(&["tree", &a_file]), false, 2),
        ("tree", owned(&["tree", &trace]), true, 4),
        ("audit", audit(&passing, &save("audit")), false, 0),
        ("audit", audit(&failing, &save("audit")), false, 1),
        ("audit", audit(&a_file, &save("audit")), false, 2),
        ("audit", audit(&failing, &unsavable), false, 3),
        ("audit", audit(&passing, &save("audit")), true, 4),
        ("probe", probe("honour", &save("probe")), false, 0),
        ("probe", probe("answers-twice", &save("probe")), false, 1),
        (
            "probe",
            owned(&["probe", "--dialect", "lsp", "--timeout", "0", "--", "true"]),
            false,
            2,
        ),
        ("probe", probe("answers-twice", &unsavable), false, 3),
        ("probe", probe("honour", &save("probe")), true, 4),
        (
            "scenario",
            owned(&["scenario", "--dialect", "lsp"]),
            false,
            0,
        ),
        (
            "scenario",
            owned(&["scenario", "--dialect", "nope"]),
            false,
            2,
        ),
        (
            "scenario",
            owned(&["scenario", "--dialect", "lsp"]),
            true,
            4,
        ),
        ("properties", owned(&["properties"]), false, 0),
        ("properties", owned(&["properties", "--nope"]), false, 2),
        ("properties", owned(&["properties"]), true, 4),
        ("behaviors", owned(&["behaviors"]), false, 0),
        ("behaviors", owned(&["behaviors", "--nope"]), false, 2),
        ("behaviors", owned(&["behaviors"]), true, 4),
        ("vectors", owned(&["vectors", "--dialect", "lsp"]), false, 0),
        (
            "vectors",
            owned(&["vectors", "--dialect", "nope"]),
            false,
            2,
        ),
        (
            "vectors",
            owned(&["vectors", "--out", &format!("{a_file}/vectors")]),
            false,
            3,
        ),
        ("vectors", owned(&["vectors", "--dialect", "lsp"]), true, 4),
        ("clauses", owned(&["clauses", "--dialect", "lsp"]), false, 0),
        (
            "clauses",
            owned(&["clauses", "--dialect", "nope"]),
            false,
            2,
        ),
        ("clauses", owned(&["clauses", "--dialect", "lsp"]), true, 4),
        (
            "watch",
            owned(&[
                "watch",
                "--dialect",
                "lsp",
                "--log",
                &log,
                "--",
                "sh",
                "-c",
                "exit 7",
            ]),
            false,
            7,
        ),
        (
            "watch",
            owned(&[
                "watch",
                "--dialect",
                "lsp",
                "--log",
                &log,
                "--",
                "/no/such/server",
            ]),
            false,
            2,
        ),
    ];
    let mut wrong = Vec::new();
    for (command, args, full, want) in &rows {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (got, err) = if *full {
            exit_on_full_disk(&args)
        } else {
            exit(&args)
        };
        if got != Some(*want) {
            wrong.push(format!(
                "{command} (want {want}, got {got:?}): {args:?}\n  {}",
                err.lines().last().unwrap_or("")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every command but `help` has a row.
    let help = text(&cancelcheck(&["--help"]).stdout);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    for c in &commands {
        assert!(rows.iter().any(|r| r.0 == *c), "no row for {c}");
    }
    assert!(commands.len() >= 13, "{commands:?}");
}
