//! `cancelcheck probe` and `cancelcheck replay` of its traces, through the binary, with peers
//! made of `sh` one-liners (the Rust test peer's tests are in `testpeer/tests/probe.rs`).

mod common;
use common::{Scratch, alive, cancelcheck, json_out, pid_in, text, under_256_mib};

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
    // Params that are not an object, or not what the dialect's schema allows, say what is
    // expected.
    for (dialect, params, expected) in [
        (
            "mcp-2025-11-25",
            "[1]",
            "tools/call: params: expected an object",
        ),
        (
            "mcp-2026-07-28",
            "[1]",
            "tools/call: params: expected an object",
        ),
        (
            "lsp",
            "[1]",
            "workspace/executeCommand: params: expected an object",
        ),
        ("acp", "[1]", "session/prompt: params: expected an object"),
        (
            "acp-rfd",
            "{\"prompt\":1}",
            "session/prompt: params.prompt: expected an array",
        ),
        ("lsp", "1", "--params: expected a JSON object or array"),
    ] {
        let o = cancelcheck(&[
            "probe",
            "--dialect",
            dialect,
            "--params",
            params,
            "--",
            "true",
        ]);
        assert_eq!(o.status.code(), Some(2), "{dialect} {params}");
        let err = text(&o.stderr);
        assert!(err.contains(expected), "{dialect} {params}: {err}");
    }
}

/// `--scenarios list` lists the scenarios of the dialect over the transport named: no ACP or
/// HTTP scenario for LSP over stdio; ACP's own for ACP; HTTP's for MCP with `--url`.
#[test]
fn the_scenarios_are_listed() {
    let names = |args: &[&str]| -> Vec<String> {
        let o = cancelcheck(args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect()
    };
    let lsp = names(&["probe", "--dialect", "lsp", "--scenarios", "list"]);
    assert!(lsp.contains(&"cancel-during-work".to_string()), "{lsp:?}");
    for other in [
        "session-cancel",
        "disconnect-resume",
        "progress-after-close",
    ] {
        assert!(!lsp.contains(&other.to_string()), "{other} in {lsp:?}");
    }
    let acp = names(&["probe", "--dialect", "acp", "--scenarios", "list"]);
    assert!(acp.contains(&"session-cancel".to_string()), "{acp:?}");
    let http = names(&[
        "probe",
        "--dialect",
        "mcp-2025-11-25",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--scenarios",
        "list",
    ]);
    assert!(http.contains(&"disconnect-resume".to_string()), "{http:?}");
    assert!(
        !http.contains(&"progress-after-close".to_string()),
        "{http:?}"
    );
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

/// The JUnit report's counts agree with its testcases; returns the testcases.
fn junit_cases(file: &std::path::Path) -> Vec<common::xml::Node> {
    let doc = std::fs::read_to_string(file).expect("the report is written");
    let root = common::xml::parse(&doc).unwrap_or_else(|e| panic!("not XML: {e}\n{doc}"));
    assert_eq!(root.name, "testsuites");
    let suites: Vec<_> = root.all("testsuite").collect();
    assert_eq!(suites.len(), 1, "one testsuite per probe run");
    let suite = suites[0];
    let cases: Vec<_> = suite.all("testcase").collect();
    let count = |tag: &str| cases.iter().filter(|c| c.all(tag).next().is_some()).count();
    for n in [&root, suite] {
        assert_eq!(n.attr("tests"), Some(cases.len().to_string().as_str()));
        assert_eq!(
            n.attr("failures"),
            Some(count("failure").to_string().as_str())
        );
        assert_eq!(
            n.attr("skipped"),
            Some(count("skipped").to_string().as_str())
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "written atomically: {leftovers:?}");
    let mut root = root;
    root.children
        .remove(0)
        .children
        .into_iter()
        .filter(|c| c.name == "testcase")
        .collect()
}

#[test]
fn the_xml_checker_refuses_what_is_not_xml() {
    for bad in [
        "<a><b></a></b>",
        "<a>x & y</a>",
        "<a x=\"1\" x=\"2\"/>",
        "<a>&nbsp;</a>",
        "<a/><b/>",
        "<a>\u{1}</a>",
    ] {
        assert!(common::xml::parse(bad).is_err(), "{bad}");
    }
    let ok =
        common::xml::parse("<?xml version=\"1.0\"?>\n<a k='&lt;&amp;'><b/>t&quot;</a>").unwrap();
    assert_eq!(ok.attr("k"), Some("<&"));
    assert_eq!(ok.text, "t\"");
}

#[test]
fn a_junit_report_has_a_testcase_per_scenario_and_seed_failures_and_skips() {
    let dir = Scratch::new("junit");
    let save = dir.path().join("found").display().to_string();
    let file = dir.path().join("report.xml");
    let j = file.to_str().unwrap();
    // Failed scenarios, twice each: a failure naming the session error, and the trace.
    let o = probe_garbage(
        "unknown-id,cancel-after-answer",
        &["--repeat", "2", "--junit", j],
        &save,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let cases = junit_cases(&file);
    let names: Vec<&str> = cases.iter().filter_map(|c| c.attr("name")).collect();
    assert_eq!(
        names,
        [
            "unknown-id (seed 0)",
            "cancel-after-answer (seed 0)",
            "unknown-id (seed 1)",
            "cancel-after-answer (seed 1)"
        ]
    );
    for c in &cases {
        let f = c.all("failure").next().expect("a failure");
        assert!(
            f.attr("message").unwrap().contains("error not-json-rpc"),
            "{f:?}"
        );
        assert!(f.text.contains("at byte 0"), "{f:?}");
        let out = c.all("system-out").next().expect("the trace");
        assert!(out.text.contains("trace: "), "{out:?}");
    }
    // A peer that refuses every request: the scenario is skipped, with why; markup in the
    // command survives escaping.
    let peer = r#"while IFS= read -r l; do id=$(printf '%s' "$l" | sed -n 's/.*"id":\([0-9"][^,}]*\).*/\1/p'); [ -n "$id" ] && printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no <such> & method"}}\n' "$id"; done"#;
    let o = cancelcheck(&[
        "probe",
        "--dialect",
        "mcp-2025-11-25",
        "--scenarios",
        "cancel-during-work",
        "--timeout",
        "2000",
        "--save",
        &save,
        "--junit",
        j,
        "--",
        "sh",
        "-c",
        peer,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let cases = junit_cases(&file);
    assert_eq!(cases.len(), 1);
    let skipped = cases[0].all("skipped").next().expect("skipped");
    assert!(
        skipped.attr("message").unwrap().starts_with("vacuous: "),
        "{skipped:?}"
    );
    assert!(cases[0].all("failure").next().is_none());
    let doc = std::fs::read_to_string(&file).unwrap();
    let root = common::xml::parse(&doc).unwrap();
    let props = root.children[0].all("properties").next().unwrap();
    let command = props
        .all("property")
        .find(|p| p.attr("name") == Some("command"))
        .unwrap();
    assert_eq!(
        command.attr("value"),
        Some(format!("sh -c {peer}").as_str())
    );
}

/// The CI workflow's probe step, run as the workflow runs it: it fails on a finding not in the
/// baseline, passes once the baseline accepts it, and writes the JUnit report either way.
#[test]
fn the_ci_probe_recipe_fails_on_a_new_finding_and_writes_its_report() {
    use common::recipes::{literal_block, repo_file, sh};
    let tmp = Scratch::new("ci");
    let dir = tmp.path();
    let yaml = repo_file("examples/ci/probe.yml");
    let step = literal_block(&yaml, "- name: Probe");
    assert!(step.contains("--baseline .cancelcheck/baseline.txt --junit probe-junit.xml"));
    assert!(yaml.contains("report_paths: probe-junit.xml"));
    std::fs::create_dir_all(dir.join(".cancelcheck")).unwrap();
    std::fs::write(dir.join("server.sh"), "echo hello\n").unwrap();
    let env = [
        ("DIALECT", "mcp-2025-11-25"),
        ("SERVER", "sh server.sh"),
        ("PROBE_FLAGS", "--scenarios 'unknown-id' --timeout 2000"),
    ];
    std::fs::write(dir.join(".cancelcheck/baseline.txt"), "").unwrap();
    let o = sh(dir, &step, &env);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("new (not in the baseline): unknown-id error:not-json-rpc"));
    let cases = junit_cases(&dir.join("probe-junit.xml"));
    assert_eq!(cases.len(), 3, "--repeat 3");
    std::fs::write(
        dir.join(".cancelcheck/baseline.txt"),
        "unknown-id error:not-json-rpc\nunknown-id error:peer-gone\n",
    )
    .unwrap();
    let o = sh(dir, &step, &env);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
}

/// The end of the peer's stderr is shown under its finding, in `--json`, in the saved trace
/// and in `replay` (control characters made harmless in the text).
#[test]
fn the_peers_stderr_is_shown_with_its_finding_and_kept_in_the_trace() {
    let dir = Scratch::new("stderr");
    let save = dir.path().display().to_string();
    let peer = "printf 'panic: \\033[31mno such tool\\n' >&2; echo hello";
    let args = |json: bool| {
        let mut a = vec![
            "probe",
            "--dialect",
            "mcp-2025-11-25",
            "--scenarios",
            "unknown-id",
            "--timeout",
            "2000",
            "--save",
            &save,
        ];
        if json {
            a.push("--json");
        }
        a.extend_from_slice(&["--", "sh", "-c", peer]);
        cancelcheck(&a)
    };
    let o = args(false);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(out.contains("peer's stderr"), "{out}");
    assert!(
        out.contains("      | panic: \u{fffd}[31mno such tool"),
        "{out}"
    );
    let v = json_out(&args(true));
    let s = &v["scenarios"][0];
    assert_eq!(s["peer_stderr_tail"], "panic: \u{1b}[31mno such tool\n");
    let trace = s["trace"].as_str().expect("saved");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    assert_eq!(doc["peer_stderr_tail"], s["peer_stderr_tail"]);
    let r = cancelcheck(&["replay", trace]);
    assert!(
        text(&r.stdout).contains("  | panic: \u{fffd}[31mno such tool"),
        "{}",
        text(&r.stdout)
    );
}

/// A peer that floods its stdout once it has answered `initialize`, run by a probe whose
/// address space is capped at 256 MiB (so that a runaway aborts instead of taking the machine
/// down): a valid notification without end is stopped at `--max-output` with a `flood` session
/// error, not by the scenario's time limit; so are lines that are not JSON, whose errors are
/// kept a few only; one endless line is a framing error, reported once, and the scenario ends
/// at its time limit. Each fails.
#[test]
fn a_peer_that_floods_its_output_is_stopped_at_max_output() {
    let tmp = Scratch::new("flood");
    let answer = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}"#;
    for (name, flood, timeout, kinds_wanted) in [
        (
            "lines",
            r#"yes '{"jsonrpc":"2.0","method":"x/flood","params":{"data":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}'"#,
            "60000",
            &["flood"][..],
        ),
        (
            "garbage",
            "yes 'not json'",
            "60000",
            &["flood", "not-json-rpc"][..],
        ),
        (
            "one-line",
            "yes | tr -d '\\n'",
            "3000",
            &["framing", "timeout"][..],
        ),
    ] {
        let peer = format!("read line; echo '{answer}'; {flood}");
        let save = tmp.path().join(name).display().to_string();
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cancelcheck"));
        cmd.args([
            "probe",
            "--dialect",
            "mcp-2025-11-25",
            "--scenarios",
            "cancel-during-work",
            "--timeout",
            timeout,
            "--max-output",
            "8000000",
            "--max-frame",
            "1000000",
            "--json",
            "--save",
            &save,
            "--",
            "sh",
            "-c",
            &peer,
        ]);
        let kinds = error_kinds_under_256_mib(name, cmd);
        assert_eq!(kinds, kinds_wanted, "{name}");
    }
}

/// Runs `cmd` (a `probe --json` of one scenario) with its address space capped at 256 MiB, so
/// that a probe keeping what a peer floods aborts instead of taking the machine down; asserts
/// it ends failing that scenario with a few errors of a kind, and gives their kinds, sorted.
fn error_kinds_under_256_mib(name: &str, mut cmd: std::process::Command) -> Vec<String> {
    under_256_mib(&mut cmd);
    let o = cmd.output().expect("the binary runs");
    assert_eq!(o.status.code(), Some(1), "{name}: {}", text(&o.stderr));
    let v = json_out(&o);
    let s = &v["scenarios"][0];
    assert_eq!(s["verdict"], "fail", "{name}: {s:#}");
    let mut kinds: Vec<String> = s["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["kind"].as_str().map(String::from))
        .collect();
    assert!(kinds.len() <= 12, "{name}: a few of a kind: {kinds:?}");
    kinds.sort();
    kinds.dedup();
    kinds
}

/// A Streamable HTTP server that answers `initialize`, accepts notifications, and answers any
/// other request with an event stream that never ends (notifications, as fast as the probe
/// reads): the probe stops reading at `--max-output` with a `flood` session error, under a
/// 256 MiB address-space cap (before bounded queues it kept 2.3 GB in 6 s, then passed).
#[test]
fn a_server_that_floods_an_event_stream_is_stopped_at_max_output() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            std::thread::spawn(move || flood_on_each_request(conn));
        }
    });
    /// Serves one connection's requests, each head and body read whole.
    fn flood_on_each_request(mut conn: std::net::TcpStream) {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                match conn.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
                continue;
            };
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while buf.len() < end + 4 + length {
                match conn.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let body: serde_json::Value =
                serde_json::from_slice(&buf[end + 4..end + 4 + length]).unwrap_or_default();
            buf.drain(..end + 4 + length);
            let sse = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s1\r\nConnection: close\r\n\r\n";
            if !head.starts_with("post") {
                let _ =
                    conn.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
            } else if body.get("id").is_none() || body.get("method").is_none() {
                let _ = conn.write_all(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
            } else if body["method"] == "initialize" {
                let answer = serde_json::json!({"jsonrpc": "2.0", "id": body["id"], "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "flood", "version": "1"}}});
                let _ = write!(conn, "{sse}data: {answer}\n\n");
                return;
            } else {
                let event = format!(
                    "data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{}\"}}}}\n\n",
                    "x".repeat(200)
                )
                .repeat(64);
                let _ = conn.write_all(sse.as_bytes());
                // Until the probe closes the connection.
                while conn.write_all(event.as_bytes()).is_ok() {}
                return;
            }
        }
    }
    let tmp = Scratch::new("sse-flood");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cancelcheck"));
    cmd.args([
        "probe",
        "--dialect",
        "mcp-2025-11-25",
        "--url",
        &format!("http://127.0.0.1:{port}/mcp"),
        "--scenarios",
        "cancel-during-work",
        "--timeout",
        "60000",
        "--max-output",
        "8000000",
        "--json",
        "--save",
        &tmp.path().join("found").display().to_string(),
    ]);
    let kinds = error_kinds_under_256_mib("sse", cmd);
    assert!(kinds.contains(&"flood".to_string()), "{kinds:?}");
}

/// A probe interrupted (SIGINT: the terminal's Ctrl-C never reaches a peer in its own process
/// group), terminated (SIGTERM) or killed (SIGKILL) while its peer runs leaves no peer behind,
/// a peer that never exits on its own included, nor what the peer started: the probe kills its
/// peers' process groups on the way out, and, killed, its warden kills them.
#[test]
fn a_probe_stopped_by_a_signal_leaves_no_peer_behind() {
    let tmp = Scratch::new("signals");
    for (name, sig) in [
        ("int", libc::SIGINT),
        ("term", libc::SIGTERM),
        ("kill", libc::SIGKILL),
    ] {
        let pidfile = tmp.path().join(name);
        let started = tmp.path().join(format!("{name}-started"));
        // The peer starts a process of its own (in its group), writes both pids, then sleeps:
        // it reads nothing and answers nothing.
        let peer = format!(
            "sleep 600 & echo $! > {}; echo $$ > {}; exec sleep 600",
            started.display(),
            pidfile.display()
        );
        let mut probe = std::process::Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
            .args([
                "probe",
                "--dialect",
                "lsp",
                "--scenarios",
                "cancel-during-work",
                "--timeout",
                "600000",
                "--save",
                &tmp.path().join("found").display().to_string(),
                "--",
                "sh",
                "-c",
                &peer,
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the binary runs");
        // Wait for the peer to have started (and written its pid).
        let pid = pid_in(&pidfile, || probe.try_wait().unwrap().is_none());
        let grandchild = pid_in(&started, || probe.try_wait().unwrap().is_none());
        // SAFETY: kill(2) on the probe's pid.
        unsafe {
            libc::kill(probe.id() as i32, sig);
        }
        let status = probe.wait().unwrap();
        assert!(!status.success(), "{name}: {status}");
        // The peer goes when the probe does (polled for at most a minute).
        let mut waited = 0;
        while alive(pid) && waited < 6000 {
            std::thread::sleep(std::time::Duration::from_millis(10));
            waited += 1;
        }
        assert!(!alive(pid), "{name}: the peer {pid} outlived the probe");
        while alive(grandchild) && waited < 6000 {
            std::thread::sleep(std::time::Duration::from_millis(10));
            waited += 1;
        }
        assert!(
            !alive(grandchild),
            "{name}: the process {grandchild} the peer started outlived the probe"
        );
    }
}

/// A peer's frame that is not JSON, full of terminal controls (a new window title, a cleared
/// screen), is quoted in the report with each control escaped: no control character but
/// newline and tab reaches the terminal, from the probe's report nor from `replay` of its trace.
#[test]
fn a_peers_terminal_controls_are_printed_escaped() {
    let tmp = Scratch::new("controls");
    let save = tmp.path().join("found");
    let peer = r#"read line; printf '\033]0;pwned\007\033[2J\233\177 not json\n'; sleep 1"#;
    let o = cancelcheck(&[
        "probe",
        "--dialect",
        "lsp",
        "--framing",
        "ndjson",
        "--scenarios",
        "cancel-during-work",
        "--timeout",
        "3000",
        "--save",
        &save.display().to_string(),
        "--",
        "sh",
        "-c",
        peer,
    ]);
    let clean = |bytes: &[u8]| {
        let s = text(bytes);
        !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
    };
    assert!(clean(&o.stdout), "{:?}", text(&o.stdout));
    assert!(clean(&o.stderr), "{:?}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("\\u{1b}]0;pwned"),
        "{}",
        text(&o.stdout)
    );
    let trace = std::fs::read_dir(&save)
        .expect("a trace saved")
        .next()
        .expect("one trace")
        .unwrap()
        .path();
    let r = cancelcheck(&["replay", &trace.display().to_string()]);
    assert!(clean(&r.stdout), "{:?}", text(&r.stdout));
    assert!(clean(&r.stderr), "{:?}", text(&r.stderr));
}

/// A peer that starts a daemon (a process in a session of its own, outside the peer's process
/// group) holding its stdout and stderr, then exits: the probe ends the scenario with the
/// peer gone, and ends the run while the daemon still lives (before, it waited for the daemon
/// to end); the trace notes the output held open.
#[test]
fn a_peer_that_leaves_a_daemon_holding_its_output_does_not_hang_the_probe() {
    let tmp = Scratch::new("daemon");
    let pidfile = tmp.path().join("daemon-pid");
    let save = tmp.path().join("found");
    let peer = format!(
        "read line; setsid sh -c 'echo $$ > {}; exec sleep 120' & exit 0",
        pidfile.display()
    );
    let o = cancelcheck(&[
        "probe",
        "--dialect",
        "mcp-2025-11-25",
        "--scenarios",
        "cancel-during-work",
        "--timeout",
        "60000",
        "--json",
        "--save",
        &save.display().to_string(),
        "--",
        "sh",
        "-c",
        &peer,
    ]);
    let daemon = pid_in(&pidfile, || true);
    let lives = alive(daemon);
    // SAFETY: kill(2) of the test's own daemon.
    unsafe {
        libc::kill(daemon, libc::SIGKILL);
    }
    assert!(lives, "the probe waited for the daemon to end");
    let v = json_out(&o);
    let kinds: Vec<&str> = v["scenarios"][0]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"peer-gone"), "{v:#}");
}
