//! `cancelcheck watch` as a client's server command: every byte passed through unchanged, the
//! server's exit status and the signals sent to `watch` passed on, a log it cannot write
//! said once, and the verdict it gives live the one `audit` gives of its log.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{Scratch, alive, cancelcheck, json_out, pid_in, testpeer, text, under_256_mib};

fn watch(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
        .arg("watch")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("watch starts")
}

/// 100,000 messages of mixed sizes (a few bytes to 64 KiB, drawn by a fixed generator), one
/// a line, through `watch -- cat`: what comes out is what went in, byte for byte, and the log
/// holds each message twice (once each way), and the end of each party's output.
#[test]
fn a_hundred_thousand_messages_pass_through_byte_for_byte() {
    let tmp = Scratch::new("bytes");
    let log = tmp.path().join("session.jsonl");
    let mut input = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for k in 0..100_000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let size = if x % 500 == 0 {
            (x >> 20) as usize % 65_536
        } else {
            (x >> 20) as usize % 400
        };
        let pad: String = (0..size)
            .map(|i| char::from(b'a' + ((i as u64 + x) % 26) as u8))
            .collect();
        input.extend_from_slice(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"note/{k}\",\"params\":{{\"pad\":\"{pad}\",\"é\":\"\\r\"}}}}\n"
            )
            .as_bytes(),
        );
    }
    let mut child = watch(&[
        "--dialect",
        "mcp-2025-11-25",
        "--log",
        &log.display().to_string(),
        "--",
        "cat",
    ]);
    let mut stdin = child.stdin.take().unwrap();
    let sent = input.clone();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&sent).unwrap();
    });
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(
        out == input,
        "the bytes differ (in {} out {})",
        input.len(),
        out.len()
    );
    let lines: Vec<String> = BufReader::new(std::fs::File::open(&log).unwrap())
        .lines()
        .map(Result::unwrap)
        .collect();
    // Each message twice, and the end of each party's output, the server's last.
    assert_eq!(lines.len(), 200_002);
    let closes = lines
        .iter()
        .filter(|l| l.contains(r#""closed":true"#))
        .count();
    assert_eq!(closes, 2);
    assert!(lines[200_001].contains(r#""direction":"server-to-client","time""#));
    assert!(
        lines[200_001].ends_with(r#""closed":true}"#),
        "{}",
        lines[200_001]
    );
}

/// A server that floods its output (300,000 notifications, 45 MB, as fast as a pipe takes
/// them) passes through `watch` whole to a client that reads it all, with `watch`'s address
/// space capped at 256 MiB: it holds what is live, not what went by (the log on disk holds it).
#[test]
fn a_server_that_floods_its_output_passes_through_in_bounded_memory() {
    let tmp = Scratch::new("flood");
    let log = tmp.path().join("session.jsonl");
    let line = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{}"}}}}"#,
        "x".repeat(64)
    );
    let lines = 300_000;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cancelcheck"));
    cmd.args([
        "watch",
        "--dialect",
        "mcp-2025-11-25",
        "--log",
        &log.display().to_string(),
        "--",
        "sh",
        "-c",
        &format!("yes '{line}' | head -n {lines}"),
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    under_256_mib(&mut cmd);
    let mut child = cmd.spawn().expect("watch starts");
    // The client stays (its input open) until the server's output has ended.
    let stdin = child.stdin.take();
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(out.len(), (line.len() + 1) * lines, "{err}");
}

/// The server's exit code is `watch`'s; a TERM sent to `watch` reaches the server, whose death
/// by it `watch` passes on as 128 + 15.
#[test]
fn the_servers_status_and_signals_pass_through() {
    let tmp = Scratch::new("status");
    let log = tmp.path().join("s.jsonl").display().to_string();
    let o = cancelcheck(&[
        "watch",
        "--dialect",
        "lsp",
        "--log",
        &log,
        "--",
        "sh",
        "-c",
        "exit 7",
    ]);
    assert_eq!(o.status.code(), Some(7), "{}", text(&o.stderr));
    // The server writes before it sleeps: its first byte out of `watch` shows that `watch`
    // has started it and passes signals on.
    let server = r"printf 'Content-Length: 2\r\n\r\n{}'; exec sleep 30";
    let mut child = watch(&["--dialect", "lsp", "--log", &log, "--", "sh", "-c", server]);
    let mut first = [0u8; 1];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    let started = Instant::now();
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + 15));
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Lines of the log at `path` that are whole JSON lines (a line cut by a kill is not).
fn whole_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// The log is written through as messages are forwarded: once the echo of the k-th message
/// has come back through `watch -- cat`, the log already holds both crossings of the first k
/// (no idle wait, no buffer), and a SIGKILL of `watch` then loses none of them.
#[test]
fn the_log_holds_every_forwarded_message_when_watch_is_killed() {
    let tmp = Scratch::new("killed");
    let log = tmp.path().join("session.jsonl");
    let mut child = watch(&[
        "--dialect",
        "mcp-2025-11-25",
        "--log",
        &log.display().to_string(),
        "--",
        "cat",
    ]);
    let mut stdin = child.stdin.take().unwrap();
    let mut echoes = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for k in 1..=103u32 {
        let msg = format!("{{\"jsonrpc\":\"2.0\",\"id\":{k},\"method\":\"tools/call\"}}\n");
        stdin.write_all(msg.as_bytes()).unwrap();
        stdin.flush().unwrap();
        line.clear();
        echoes.read_line(&mut line).unwrap();
        assert_eq!(line, msg);
        let logged = whole_lines(&log).len();
        assert!(
            logged >= 2 * k as usize,
            "after the echo of message {k}, the log holds {logged} lines, not {}",
            2 * k
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let lines = whole_lines(&log);
    assert_eq!(
        lines.len(),
        206,
        "every crossing of the 103 messages is in the log"
    );
    for (k, l) in lines.iter().enumerate() {
        let id = l.pointer("/message/id").and_then(Value::as_u64);
        assert_eq!(id, Some(k as u64 / 2 + 1), "line {}: {l}", k + 1);
    }
    let mut verdict = log.as_os_str().to_owned();
    verdict.push(".verdict");
    assert!(
        !Path::new(&verdict).exists(),
        "a killed watch leaves no verdict, not part of one"
    );
}

/// A log that cannot be written: the session runs unchanged and `watch` says so once.
/// `input` through `watch --log LOG -- cat` (an MCP session): passed through byte for byte,
/// exit 0; returns what `watch` said on stderr.
fn through_cat(log: &Path, input: &str) -> String {
    let mut child = watch(&[
        "--dialect",
        "mcp-2025-11-25",
        "--log",
        &log.display().to_string(),
        "--",
        "cat",
    ]);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), input);
    text(&o.stderr)
}

#[test]
fn an_unwritable_log_is_said_once_and_the_session_goes_on() {
    let input = "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n";
    let err = through_cat(Path::new("/nonexistent-dir/session.jsonl"), input);
    assert_eq!(
        err.matches("cannot write the transcript").count(),
        1,
        "{err}"
    );
}

/// A client's session with the test peer answering the cancel notification (which MCP
/// forbids): the verdict `watch` writes beside its log is the one `audit` gives of the log.
#[test]
fn the_live_verdict_is_the_audit_of_the_log() {
    let tmp = Scratch::new("live");
    let log = tmp.path().join("live.jsonl");
    let peer = testpeer();
    let mut child = watch(&[
        "--dialect",
        "mcp-2025-11-25",
        "--json",
        "--log",
        &log.display().to_string(),
        "--",
        &peer.display().to_string(),
        "--dialect",
        "mcp-2025-11-25",
        "--behavior",
        "answers-cancel-notification",
    ]);
    let session = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":300}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    ];
    let live = live_verdict(&mut child, &session, &log);
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "mcp-2025-11-25",
        "--json",
        "--save",
        &tmp.path().join("found").display().to_string(),
        &log.display().to_string(),
    ]);
    let audited = json_out(&o);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(live["verdict"], "fail", "{live:#}");
    for k in ["verdict", "violations", "not_observable"] {
        let (a, b) = (&live["scenarios"][0][k], &audited["scenarios"][0][k]);
        let strip = |v: &Value| {
            let mut v = v.clone();
            if let Some(a) = v.as_array_mut() {
                for x in a {
                    x.as_object_mut().map(|o| o.remove("trace"));
                }
            }
            v
        };
        assert_eq!(strip(a), strip(b), "{k}");
    }
    assert_eq!(
        live["scenarios"][0]["violations"][0]["invariant"],
        "notification-unanswered"
    );
}

/// A verdict that cannot be written (here past a 1 KiB file-size limit the log stays within)
/// leaves neither part of itself nor the previous session's verdict beside the log, and no
/// temporary file; one that can be written replaces the previous session's whole.
#[test]
fn the_verdict_beside_the_log_is_this_sessions_whole_or_none() {
    let tmp = Scratch::new("verdict-kept");
    let log = tmp.path().join("s.jsonl");
    let verdict = tmp.path().join("s.jsonl.verdict");
    let run = |limit: &str| {
        let mut child = Command::new("bash")
            .arg("-c")
            .arg(format!("{limit} exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_cancelcheck"))
            .args(["watch", "--dialect", "mcp-2025-11-25", "--json", "--log"])
            .arg(&log)
            .args(["--", "cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("watch starts");
        let line = "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n";
        child
            .stdin
            .take()
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), line);
        text(&o.stderr)
    };
    let files = || {
        let mut names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    std::fs::write(&verdict, "watch: a previous session's verdict\n").unwrap();
    let err = run("ulimit -f 1;");
    assert_eq!(err.matches("cannot write the verdict").count(), 1, "{err}");
    assert!(
        err.contains("cancelcheck audit --dialect mcp-2025-11-25"),
        "{err}"
    );
    assert_eq!(files(), ["s.jsonl"], "{err}");
    std::fs::write(&verdict, "watch: a previous session's verdict\n").unwrap();
    let err = run("");
    assert_eq!(err, "");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&verdict).unwrap()).unwrap();
    assert_eq!(v["verdict"], "vacuous", "{v:#}");
    assert_eq!(files(), ["s.jsonl", "s.jsonl.verdict"]);
}

/// An ACP session through `watch` in which prompt 1 is cancelled and never answered (the
/// agent's `never-answers-cancelled`), the client's input closed at the end (`client_first`),
/// or the agent exiting on its own first (`--exit-after-ms`) while the client is still there.
/// Returns the live verdict, the log's audit, and the log.
fn unanswered_session(tmp: &Scratch, name: &str, client_first: bool) -> (Value, Value, PathBuf) {
    let log = tmp.path().join(format!("{name}.jsonl"));
    let peer = testpeer();
    let mut cmd = vec!["--dialect", "acp", "--json", "--log"];
    let log_arg = log.display().to_string();
    let peer_arg = peer.display().to_string();
    cmd.extend([
        log_arg.as_str(),
        "--",
        peer_arg.as_str(),
        "--dialect",
        "acp",
    ]);
    cmd.extend(["--behavior", "never-answers-cancelled"]);
    if !client_first {
        // Long after the client has had the ping answered (it waits for that, not for time).
        cmd.extend(["--exit-after-ms", "3000"]);
    }
    let mut child = watch(&cmd);
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut until = |id: &str| -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(out.read_line(&mut line).unwrap() > 0, "no answer to {id}");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"i","method":"initialize","params":{{"protocolVersion":1,"clientCapabilities":{{}}}}}}"#
    )
    .unwrap();
    until("i");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"n","method":"session/new","params":{{"cwd":"/","mcpServers":[]}}}}"#
    )
    .unwrap();
    let session = until("n")["result"]["sessionId"].clone();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{{"sessionId":{session},"prompt":[],"_meta":{{"ms":2000}}}}}}"#
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"$/cancel_request","params":{{"requestId":1}}}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":"p","method":"_ping"}}"#).unwrap();
    until("p");
    let mut rest = Vec::new();
    if client_first {
        drop(stdin);
        out.read_to_end(&mut rest).unwrap();
    } else {
        // The agent exits on its own; the client is still there until then.
        out.read_to_end(&mut rest).unwrap();
        drop(stdin);
    }
    child.wait().unwrap();
    let live: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{}.verdict", log.display())).unwrap(),
    )
    .unwrap();
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "acp",
        "--json",
        "--save",
        &tmp.path().join("found").display().to_string(),
        &log.display().to_string(),
    ]);
    (live, json_out(&o), log)
}

fn broken(v: &Value) -> Vec<String> {
    v["scenarios"][0]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["invariant"].as_str().unwrap().to_string())
        .collect()
}

/// The server's output closing while the client is still there ends the session: a cancelled
/// request it never answered is never answered, and `eventual-resolution` (an ACP MUST) is
/// decided, live and in the audit of the log (which holds both closes). Where the client went
/// first, what it left in flight was left by the client: not decided, `vacuous`, never a
/// finding against the server.
#[test]
fn the_end_of_the_servers_output_decides_eventual_resolution() {
    let tmp = Scratch::new("ended");
    let (live, audited, log) = unanswered_session(&tmp, "server-first", false);
    assert_eq!(live["verdict"], "fail", "{live:#}");
    assert_eq!(broken(&live), ["eventual-resolution"], "{live:#}");
    assert_eq!(broken(&audited), ["eventual-resolution"], "{audited:#}");
    let lines = whole_lines(&log);
    let closes: Vec<&Value> = lines.iter().filter(|l| l["closed"] == true).collect();
    assert_eq!(closes[0]["direction"], "server-to-client", "{closes:?}");
    let (live, audited, _) = unanswered_session(&tmp, "client-first", true);
    for v in [&live, &audited] {
        assert_eq!(v["verdict"], "vacuous", "{v:#}");
        assert!(broken(v).is_empty(), "{v:#}");
        assert!(
            v["scenarios"][0]["not_observable"]
                .as_array()
                .unwrap()
                .contains(&Value::from("eventual-resolution")),
            "{v:#}"
        );
    }
}

/// A `watch` killed with SIGKILL (no handler runs) leaves no server behind, one that never
/// exits on its own included: the kernel kills the server when `watch` dies.
#[test]
fn a_watch_killed_leaves_no_server_behind() {
    let tmp = Scratch::new("killed-server");
    let pidfile = tmp.path().join("pid");
    let log = tmp.path().join("session.jsonl");
    // The server writes its pid, then sleeps: it reads nothing, so its input closing does
    // not end it.
    let server = format!("echo $$ > {}; exec sleep 600", pidfile.display());
    let mut w = watch(&[
        "--dialect",
        "lsp",
        "--log",
        &log.display().to_string(),
        "--",
        "sh",
        "-c",
        &server,
    ]);
    let pid = pid_in(&pidfile, || w.try_wait().unwrap().is_none());
    w.kill().unwrap();
    w.wait().unwrap();
    // Polled for at most a minute.
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!alive(pid), "the server {pid} outlived watch");
}

/// `watch` never removes nor replaces a file it did not write: with `--log DIR` (a directory:
/// no log can be written) and with a log whose `LOG.verdict` is someone else's file, that file
/// is left as it was, and stderr says why no verdict was written. A verdict of its own is
/// replaced by the next session's.
#[test]
fn a_verdict_file_watch_did_not_write_is_left_alone() {
    let tmp = Scratch::new("not-ours");
    let dir = tmp.path().join("logs");
    std::fs::create_dir_all(&dir).unwrap();
    let log = tmp.path().join("session.jsonl");
    let input = "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n";
    let session = |log: &Path| through_cat(log, input);
    for log in [&dir, &log] {
        let mut theirs = log.as_os_str().to_owned();
        theirs.push(".verdict");
        let theirs = PathBuf::from(theirs);
        std::fs::write(&theirs, "precious notes\n").unwrap();
        let err = session(log);
        assert_eq!(
            std::fs::read_to_string(&theirs).unwrap(),
            "precious notes\n",
            "{}",
            log.display()
        );
        assert!(err.contains("is not a verdict watch wrote"), "{err}");
    }
    // Once the file is watch's own, the next session replaces it.
    let mut ours = log.as_os_str().to_owned();
    ours.push(".verdict");
    let ours = PathBuf::from(ours);
    std::fs::remove_file(&ours).unwrap();
    session(&log);
    let first = std::fs::read_to_string(&ours).unwrap();
    assert!(first.starts_with("watch: "), "{first}");
    let err = session(&log);
    assert!(!err.contains("is not a verdict"), "{err}");
    assert!(
        std::fs::read_to_string(&ours)
            .unwrap()
            .starts_with("watch: ")
    );
}

/// A server that starts a daemon holding its stdout (not the stderr it shares with `watch`,
/// which the test reads to its end), then exits: `watch` ends with the server
/// (a second after it), while the daemon still lives, and says why in its verdict; before, it
/// waited for the daemon to end.
#[test]
fn a_server_that_leaves_a_daemon_holding_its_output_does_not_hang_watch() {
    let tmp = Scratch::new("daemon");
    let pidfile = tmp.path().join("daemon-pid");
    let log = tmp.path().join("session.jsonl");
    let server = format!(
        "setsid sh -c 'echo $$ > {}; exec sleep 120' 2>/dev/null & exit 0",
        pidfile.display()
    );
    let mut w = watch(&[
        "--dialect",
        "mcp-2025-11-25",
        "--log",
        &log.display().to_string(),
        "--",
        "sh",
        "-c",
        &server,
    ]);
    // The client's input stays open until watch ends.
    let stdin = w.stdin.take();
    let o = w.wait_with_output().unwrap();
    drop(stdin);
    let daemon = pid_in(&pidfile, || true);
    let lives = alive(daemon);
    // SAFETY: kill(2) of the test's own daemon.
    unsafe {
        libc::kill(daemon, libc::SIGKILL);
    }
    assert!(lives, "watch waited for the daemon to end");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let mut verdict = log.as_os_str().to_owned();
    verdict.push(".verdict");
    let v = std::fs::read_to_string(PathBuf::from(verdict)).unwrap();
    assert!(v.contains("held by a process it started"), "{v}");
}

/// Writes `session` to `child` (a watch), reads its output up to the answer to request 2, ends
/// its input and waits for it to exit 0; returns the verdict it wrote beside `log`.
fn live_verdict(child: &mut Child, session: &[&str], log: &Path) -> Value {
    let mut stdin = child.stdin.take().unwrap();
    for m in session {
        writeln!(stdin, "{m}").unwrap();
    }
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 {
        if line.contains(r#""id":2"#) {
            break;
        }
    }
    drop(stdin);
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    serde_json::from_str(&std::fs::read_to_string(format!("{}.verdict", log.display())).unwrap())
        .unwrap()
}

/// `watch` decides as `audit` does what nothing judged: a session whose cancels name only a
/// method the judge does not follow (`ping`; the judged one is `tools/call`) is `vacuous` with
/// why, not `pass`; and it takes `--min-work-ms`, which its advice may name.
#[test]
fn a_watched_session_of_no_judged_method_is_vacuous_and_min_work_ms_is_taken() {
    let tmp = Scratch::new("unjudged");
    let log = tmp.path().join("unjudged.jsonl");
    let peer = testpeer();
    let mut child = watch(&[
        "--dialect",
        "mcp-2025-11-25",
        "--json",
        "--min-work-ms",
        "100",
        "--log",
        &log.display().to_string(),
        "--",
        &peer.display().to_string(),
        "--dialect",
        "mcp-2025-11-25",
    ]);
    let session = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    ];
    let live = live_verdict(&mut child, &session, &log);
    assert_eq!(live["verdict"], "vacuous", "{live:#}");
    assert!(
        live.to_string().contains("no request of the judged method"),
        "{live:#}"
    );
}
