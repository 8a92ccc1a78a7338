//! The test peer's command line: the flags its tests use, and exit 2 with a message naming the
//! argument for every bad one.

use std::io::Write;
use std::process::{Command, Stdio};

const PEER: &str = env!("CARGO_BIN_EXE_cancelcheck-testpeer");

/// Runs the peer with `args` and `input` on stdin: exit code, stdout, stderr.
fn run(args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(PEER)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test peer starts");
    let mut stdin = child.stdin.take().expect("stdin");
    // A peer that refused its arguments has exited: a write may fail.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("it exits");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_arguments_exit_2_naming_what_is_wrong() {
    for (args, says) in [
        (&["--dialect", "nope"][..], "--dialect"),
        (&["--dialect", "abp"], "not JSON-RPC"),
        (&["--behavior", "nope"], "--behavior"),
        (&["--behaviour", "cancels-initialize"], "requester"),
        (&["--framing", "xml"], "unknown framing xml"),
        (&["--hostile", "rude"], "--hostile"),
        (&["--work-ms"], "--work-ms"),
        (&["--work-ms", "soon"], "--work-ms"),
        (&["--progress-ms", "0"], "--progress-ms"),
        (
            &["--dialect", "mcp-2025-11-25", "--give-up-ms", "5"],
            "--give-up-ms",
        ),
        (&["--dialect", "lsp", "--tool-error"], "--tool-error"),
        (
            &["--dialect", "mcp-2025-11-25", "--ask-permission"],
            "--ask-permission",
        ),
        (
            &["--dialect", "acp", "--progress-create"],
            "--progress-create",
        ),
        (&["--dialect", "acp", "--protocol-version", "v1"], "integer"),
        (&["--no-such-flag"], "--no-such-flag"),
    ] {
        let (code, _, err) = run(args, "");
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn the_flags_are_read() {
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    // Strict by default: ACP has no `ping`. The last of --lenient and --strict counts.
    for (args, answered) in [
        (&["--dialect", "acp"][..], false),
        (&["--dialect", "acp", "--lenient"], true),
        (&["--dialect", "acp", "--lenient", "--strict"], false),
        (&["--dialect", "acp", "--strict", "--lenient"], true),
    ] {
        let (code, out, err) = run(args, ping);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(out.contains("\"result\":{}"), answered, "{args:?}: {out}");
    }
    // LSP frames with Content-Length unless told otherwise.
    let unknown = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x/y\"}";
    let framed = format!("Content-Length: {}\r\n\r\n{unknown}", unknown.len());
    let (_, out, _) = run(&["--dialect", "lsp"], &framed);
    assert!(out.starts_with("Content-Length: "), "{out}");
    let (_, out, _) = run(
        &["--dialect", "lsp", "--framing", "ndjson"],
        &format!("{unknown}\n"),
    );
    assert!(out.starts_with("{\"jsonrpc\""), "{out}");
    let (code, _, _) = run(&["--hostile", "exit-early"], "");
    assert_eq!(code, Some(3));
    let (code, out, _) = run(&["--help"], "");
    assert_eq!(code, Some(0));
    assert!(
        out.contains("--cancel-code-zero") && out.contains("--work-method"),
        "{out}"
    );
}
