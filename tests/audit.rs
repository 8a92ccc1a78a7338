//! `cancelcheck audit` on transcripts written by the real software that writes each format
//! (fixtures under tests/fixtures/audit/, recorded by the scripts beside them; see its
//! README), and on the project's own JSONL as `transcript::jsonl_line` writes it.

use cancelcheck::audit::transcript::{self, Format, Writer};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{Scratch, cancelcheck, json_out, text};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/audit")
        .join(name)
        .display()
        .to_string()
}

/// `audit --json` of `file`, saving under `save`.
fn audit(dialect: &str, format: &str, file: &str, save: &Path) -> Output {
    cancelcheck(&[
        "audit",
        "--dialect",
        dialect,
        "--format",
        format,
        "--json",
        "--save",
        &save.display().to_string(),
        file,
    ])
}

/// The verdict, the invariants broken and the exit code.
fn verdict(o: &Output) -> (String, Vec<String>, Option<i32>) {
    let v = json_out(o);
    let broken = v["scenarios"][0]["violations"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x["invariant"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    (
        v["verdict"].as_str().unwrap_or("").to_string(),
        broken,
        o.status.code(),
    )
}

fn not_observable(o: &Output) -> Vec<String> {
    json_out(o)["scenarios"][0]["not_observable"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The one trace saved under `dir`, replayed: it must re-judge to the recorded verdict.
fn replays(dir: &Path) -> PathBuf {
    let traces: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("traces saved")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(traces.len(), 1, "{traces:?}");
    let o = cancelcheck(&[
        "replay",
        "--format",
        "json",
        &traces[0].display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert_eq!(json_out(&o)["verdict_matches"], true);
    traces[0].clone()
}

/// `keeps` passes (exit 0) and `breaks` breaks exactly `broken` (a MUST: exit 1), and the
/// trace saved of `breaks` re-judges to its verdict; both `--json` documents.
fn keeps_and_breaks(
    dialect: &str,
    format: &str,
    keeps: &str,
    breaks: &str,
    broken: &str,
) -> (Value, Value) {
    let tmp = Scratch::new(&format!("{dialect}-{format}"));
    let k = audit(dialect, format, &fixture(keeps), tmp.path());
    assert_eq!(
        verdict(&k),
        ("pass".into(), vec![], Some(0)),
        "{keeps}: {}",
        text(&k.stdout)
    );
    let b = audit(dialect, format, &fixture(breaks), tmp.path());
    assert_eq!(
        verdict(&b),
        ("fail".into(), vec![broken.to_string()], Some(1)),
        "{breaks}: {}",
        text(&b.stdout)
    );
    let trace = replays(tmp.path());
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    assert_eq!(doc["vantage"], json_out(&b)["transcript"]["vantage"]);
    (json_out(&k), json_out(&b))
}

/// LSP, vscode-jsonrpc's JSON trace of a client whose server answers a cancelled command
/// -32800 after a ping that proves it read the cancel (keeps every rule), and of the same
/// session with -32603 (breaks cancel-error-code, a MUST).
#[test]
fn a_vscode_jsonrpc_trace_is_judged_from_the_client_side() {
    let (keeps, _) = keeps_and_breaks(
        "lsp",
        "vscode",
        "lsp-keeps.vscode.jsonl",
        "lsp-breaks.vscode.jsonl",
        "cancel-error-code",
    );
    assert_eq!(keeps["transcript"]["vantage"], "client");
    assert_eq!(keeps["transcript"]["messages"], 10);
    assert_eq!(
        keeps["transcript"]["method_judged"],
        "workspace/executeCommand"
    );
}

/// MCP 2025-11-25, the log lines desktop clients write, from the SDK's own client and server:
/// a call given up (the SDK sends notifications/cancelled, the server never answers it), and a
/// client that cancels a call it already has the answer to (its own duty, a MUST, judged
/// because a client's log shows what it had read).
#[test]
fn an_mcp_client_log_judges_the_client_as_well_as_the_server() {
    let (keeps, _) = keeps_and_breaks(
        "mcp-2025-11-25",
        "mcp-log",
        "mcp-keeps.log",
        "mcp-cancel-after-answer.log",
        "cancel-only-in-progress",
    );
    assert_eq!(keeps["transcript"]["skipped_lines"], 2);
    assert_eq!(keeps["transcript"]["vantage"], "client");
    // The text names the client's duty the probe's table has no column for.
    let tmp = Scratch::new("mcp-text");
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "mcp-2025-11-25",
        "--format",
        "mcp-log",
        "--save",
        &tmp.path().display().to_string(),
        &fixture("mcp-cancel-after-answer.log"),
    ]);
    let out = text(&o.stdout);
    assert!(
        out.contains("client's duties: cancel-only-in-progress (MUST): broken"),
        "{out}"
    );
    assert!(out.contains("error: MUST cancel-only-in-progress"), "{out}");
}

/// ACP, the project's JSONL recorded at the client of the ACP TypeScript SDK: a prompt turn
/// cancelled with `session/cancel` ends `cancelled` (keeps every rule), or `end_turn` after a
/// later request's answer proved the agent had read the cancel (breaks
/// prompt-cancelled-stop-reason, a MUST).
#[test]
fn an_acp_sdk_session_in_jsonl_is_judged() {
    let (keeps, _) = keeps_and_breaks(
        "acp",
        "jsonl",
        "acp-keeps.jsonl",
        "acp-ignores-cancel.jsonl",
        "prompt-cancelled-stop-reason",
    );
    assert_eq!(keeps["transcript"]["method_judged"], "session/prompt");
    assert_eq!(keeps["transcript"]["vantage"], "between");
}

/// Rewrites a fixture as the project's own JSONL (what `watch` writes), the client's messages
/// as `client-to-server`.
fn as_jsonl(format: Format, fixture_name: &str, client_is: Writer, dir: &Path) -> String {
    let src = std::fs::read_to_string(fixture(fixture_name)).unwrap();
    let mut out = String::new();
    for line in src.lines() {
        if let Ok(transcript::Line::Message(e)) = transcript::parse_line(format, line)
            && let transcript::Said::Message(text) = &e.said
        {
            let t = e.time_us.unwrap_or(0) % 1_000_000_000;
            out.push_str(&transcript::jsonl_line(
                e.writer == client_is,
                t,
                text.as_bytes(),
            ));
            out.push('\n');
        }
    }
    let p = dir.join(fixture_name.replace('.', "-") + ".jsonl");
    std::fs::write(&p, out).unwrap();
    p.display().to_string()
}

/// The same sessions in the JSONL a proxy between the parties writes: the server's duties are
/// judged as before, but what the client had read when it cancelled is not in such a record,
/// so its cancel after the answer is not observable, never passed or failed.
#[test]
fn jsonl_from_between_the_parties_leaves_the_clients_reading_unobservable() {
    let tmp = Scratch::new("jsonl");
    let save = tmp.path().join("found");
    let lsp = as_jsonl(
        Format::Vscode,
        "lsp-breaks.vscode.jsonl",
        Writer::Recorder,
        tmp.path(),
    );
    assert_eq!(
        verdict(&audit("lsp", "jsonl", &lsp, &save)),
        ("fail".into(), vec!["cancel-error-code".into()], Some(1))
    );
    let mcp = as_jsonl(
        Format::McpLog,
        "mcp-cancel-after-answer.log",
        Writer::Client,
        tmp.path(),
    );
    let o = audit("mcp-2025-11-25", "jsonl", &mcp, &save);
    assert_eq!(verdict(&o), ("pass".into(), vec![], Some(0)));
    assert!(
        not_observable(&o).contains(&"cancel-only-in-progress".to_string()),
        "{:?}",
        not_observable(&o)
    );
    assert_eq!(json_out(&o)["transcript"]["vantage"], "between");
}

fn jsonl(dir: &Path, name: &str, lines: &[(&str, u64, &str)]) -> String {
    let mut s = String::new();
    for (dir, t, m) in lines {
        s.push_str(&format!(
            "{{\"direction\":\"{dir}\",\"time\":{t},\"message\":{m}}}\n"
        ));
    }
    let p = dir.join(name);
    std::fs::write(&p, s).unwrap();
    p.display().to_string()
}

const C: &str = "client-to-server";
const S: &str = "server-to-client";

/// The client's own duties from a record between the parties: an id reused while its request
/// is unanswered is decided (broken); reused after the answer passed by, whether the client had
/// read it is not, so the rule is not observable. In MCP 2025-11-25 ids are never reused.
#[test]
fn an_id_reused_is_judged_only_as_far_as_the_order_decides() {
    let tmp = Scratch::new("reuse");
    let save = tmp.path().join("found");
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"slow"}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#;
    let live = jsonl(
        tmp.path(),
        "live.jsonl",
        &[(C, 0, req), (C, 1, cancel), (C, 2, req), (S, 3, answer)],
    );
    assert_eq!(
        verdict(&audit("lsp", "jsonl", &live, &save)),
        // A note in LSP (JSON-RPC's "used to correlate" binds no keyword): a warning.
        ("warn".into(), vec!["no-live-id-reuse".into()], Some(0))
    );
    let after = jsonl(
        tmp.path(),
        "after.jsonl",
        &[(C, 0, req), (C, 1, cancel), (S, 2, answer), (C, 3, req)],
    );
    let o = audit("lsp", "jsonl", &after, &save);
    assert_eq!(verdict(&o).0, "pass");
    assert!(not_observable(&o).contains(&"no-live-id-reuse".to_string()));
}

/// A transcript in which nothing was cancelled tested nothing about cancellation.
#[test]
fn a_transcript_without_a_cancel_is_vacuous() {
    let tmp = Scratch::new("vacuous");
    let f = jsonl(
        tmp.path(),
        "quiet.jsonl",
        &[
            (
                C,
                0,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
            ),
            (S, 9, r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#),
        ],
    );
    let o = audit("mcp-2025-11-25", "jsonl", &f, tmp.path());
    assert_eq!(verdict(&o), ("vacuous".into(), vec![], Some(0)));
    let why = json_out(&o)["vacuous_because"][0]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(why.contains("no cancel"), "{why}");
}

/// A bad line is an error naming the line and what was expected; a last line cut short is
/// reported and the rest judged.
#[test]
fn a_bad_line_is_named_and_a_truncated_last_line_is_reported() {
    let tmp = Scratch::new("bad");
    let good = std::fs::read_to_string(fixture("lsp-keeps.vscode.jsonl")).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        format!(
            "{}\n{{\"isLSPMessage\":true,\"type\":\"sent\"}}\n{}\n",
            lines[0], lines[1]
        ),
    )
    .unwrap();
    let o = audit("lsp", "vscode", &bad.display().to_string(), tmp.path());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("line 2") && err.contains("field `type`"),
        "{err}"
    );
    let cut = tmp.path().join("cut.jsonl");
    let last = lines[lines.len() - 1];
    let mut body = lines[..lines.len() - 1].join("\n");
    body.push('\n');
    body.push_str(&last[..last.len() / 2]);
    std::fs::write(&cut, body).unwrap();
    let o = audit("lsp", "vscode", &cut.display().to_string(), tmp.path());
    assert_eq!(verdict(&o), ("pass".into(), vec![], Some(0)));
    assert_eq!(
        json_out(&o)["transcript"]["truncated_last_line"]["line"],
        lines.len()
    );
}

/// The published schema of the JSONL names the fields and directions the reader takes.
#[test]
fn the_published_schema_is_the_format_read() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/transcript.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["direction", "time"]));
    assert_eq!(
        schema["oneOf"],
        serde_json::json!([
            { "required": ["message"], "not": { "required": ["closed"] } },
            { "required": ["closed"], "not": { "required": ["message"] } }
        ])
    );
    assert_eq!(schema["properties"]["closed"]["const"], true);
    assert_eq!(
        schema["properties"]["direction"]["enum"],
        serde_json::json!([transcript::CLIENT_TO_SERVER, transcript::SERVER_TO_CLIENT])
    );
}

/// A request sent before `initialize` was answered breaks `no-request-before-initialize` where
/// the transcript holds the handshake; one that starts after it (no handshake recorded) cannot
/// show that, so the rule is not observable there, never broken nor passed.
#[test]
fn requests_before_initialize_is_judged_only_where_the_handshake_was_recorded() {
    let tmp = Scratch::new("before-init");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
    let init_answer = r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}"#;
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"slow"}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#;
    let early = jsonl(
        tmp.path(),
        "early.jsonl",
        &[
            (C, 0, init),
            (C, 1, req),
            (S, 2, init_answer),
            (C, 3, cancel),
            (S, 4, answer),
        ],
    );
    let o = audit("lsp", "jsonl", &early, &save);
    assert_eq!(
        verdict(&o),
        (
            "fail".into(),
            vec!["no-request-before-initialize".into()],
            Some(1)
        )
    );
    let mid = jsonl(
        tmp.path(),
        "mid.jsonl",
        &[(C, 1, req), (C, 3, cancel), (S, 4, answer)],
    );
    let o = audit("lsp", "jsonl", &mid, &save);
    assert_eq!(verdict(&o), ("pass".into(), vec![], Some(0)));
    assert!(
        not_observable(&o).contains(&"no-request-before-initialize".to_string()),
        "{:?}",
        not_observable(&o)
    );
}

/// A notification or a request of another method is held to the same opening rule: the
/// client's `initialized` or `textDocument/didOpen` before the `initialize` answer reached it,
/// or the server's `$/progress` or `client/registerCapability` before it answered, break it;
/// what the text lets the server send while it holds `initialize` (`window/logMessage`,
/// `window/showMessageRequest`, ...) and everything after the answer do not.
#[test]
fn notifications_before_initialize_are_judged_as_requests_are() {
    let tmp = Scratch::new("notify-before-init");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
    let init_answer = r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
    let did_open = r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.py","languageId":"python","version":1,"text":""}}}"#;
    let log = r#"{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"starting"}}"#;
    let ask = r#"{"jsonrpc":"2.0","id":"s1","method":"window/showMessageRequest","params":{"type":3,"message":"?"}}"#;
    let progress = r#"{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"begin","title":"x"}}}"#;
    let register = r#"{"jsonrpc":"2.0","id":"s2","method":"client/registerCapability","params":{"registrations":[]}}"#;
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"slow"}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#;
    let session = |name: &str, opening: &[(&'static str, &'static str)]| {
        let mut lines: Vec<(&str, u64, &str)> = vec![(C, 0, init)];
        lines.extend(opening.iter().map(|&(d, m)| (d, 1, m)));
        lines.extend([
            (S, 2, init_answer),
            (C, 3, initialized),
            (C, 4, did_open),
            (S, 5, log),
            (C, 6, req),
            (C, 7, cancel),
            (S, 8, answer),
        ]);
        let file = jsonl(tmp.path(), &format!("{name}.jsonl"), &lines);
        verdict(&audit("lsp", "jsonl", &file, &save))
    };
    let broken = || {
        (
            "fail".to_string(),
            vec!["no-request-before-initialize".to_string()],
            Some(1),
        )
    };
    let held = ("pass".to_string(), vec![], Some(0));
    assert_eq!(session("after", &[]), held);
    assert_eq!(session("allowed", &[(S, log), (S, ask)]), held);
    assert_eq!(session("initialized-early", &[(C, initialized)]), broken());
    assert_eq!(session("open-early", &[(C, did_open)]), broken());
    assert_eq!(session("progress-early", &[(S, progress)]), broken());
    assert_eq!(session("register-early", &[(S, register)]), broken());
}

/// An error answer to a cancelled request that came after the cancel but before anything
/// showed the server had read it (no barrier) may have crossed the cancel or been caused by
/// it: `vacuous`, never `pass`, with the fix `audit` takes (`--min-work-ms`); declaring the
/// work's shortest duration decides it, under the assumption named, and the saved trace
/// re-judges to the same verdict.
#[test]
fn an_undecided_answer_is_vacuous_and_min_work_ms_decides_it() {
    let tmp = Scratch::new("undecided");
    let save = tmp.path().join("found");
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/references","params":{}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal"}}"#;
    let file = jsonl(
        tmp.path(),
        "undecided.jsonl",
        &[(C, 0, req), (C, 50_000, cancel), (S, 100_000, answer)],
    );
    let o = audit("lsp", "jsonl", &file, &save);
    assert_eq!(verdict(&o), ("vacuous".into(), vec![], Some(0)));
    let why = json_out(&o)["vacuous_because"].to_string();
    assert!(
        why.contains("not decidable") && why.contains("--min-work-ms"),
        "{why}"
    );
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "lsp",
        "--min-work-ms",
        "1000",
        "--save",
        &save.display().to_string(),
        &file,
    ]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("MUST cancel-error-code"), "{out}");
    assert!(
        out.contains("--min-work-ms"),
        "the assumption is named: {out}"
    );
    let trace = std::fs::read_dir(&save)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let r = cancelcheck(&["replay", &trace.display().to_string()]);
    assert!(
        text(&r.stdout).contains("(as recorded)"),
        "{}",
        text(&r.stdout)
    );
    // Answered later than the declared duration: still not decidable, and said so.
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "lsp",
        "--min-work-ms",
        "50",
        "--json",
        "--save",
        &save.display().to_string(),
        &file,
    ]);
    assert_eq!(verdict(&o).0, "vacuous");
}

/// A session whose cancels name no request of the judged method judged nothing: `vacuous`,
/// with the fix, though cancels crossed.
#[test]
fn cancels_of_a_method_not_judged_are_vacuous_not_a_pass() {
    let tmp = Scratch::new("other-method");
    let save = tmp.path().join("found");
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/completion","params":{}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#;
    let file = jsonl(
        tmp.path(),
        "editor.jsonl",
        &[(C, 0, req), (C, 10, cancel), (S, 20, answer)],
    );
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "lsp",
        "--method",
        "workspace/executeCommand",
        "--json",
        "--save",
        &save.display().to_string(),
        &file,
    ]);
    assert_eq!(verdict(&o), ("vacuous".into(), vec![], Some(0)));
    let why = json_out(&o)["vacuous_because"].to_string();
    assert!(why.contains("no request of the judged method"), "{why}");
    // Judged by the method the cancels name (the default), the same session passes.
    let o = audit("lsp", "jsonl", &file, &save);
    assert_eq!(verdict(&o), ("pass".into(), vec![], Some(0)));
}

/// A transcript none of whose lines is a message in the format given is an error that names
/// the format it reads as, not a `vacuous` session of no messages.
#[test]
fn a_wrong_format_is_an_error_that_names_the_right_one() {
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "lsp",
        "--format",
        "mcp-log",
        &fixture("lsp-keeps.vscode.jsonl"),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("none of its"), "{err}");
    assert!(err.contains("it reads as --format vscode"), "{err}");
}

/// LSP: an error answer to `initialize` is no `InitializeResult`: the session never opened, so
/// a request the client sends after it breaks `no-request-before-initialize` (it was taken for
/// the result, and the session passed), and the report says what to record instead of what to
/// give a peer it never started.
#[test]
fn an_error_answer_to_initialize_opens_no_session() {
    let tmp = Scratch::new("refused-initialize");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
    let refused = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"boom"}}"#;
    let inited = r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}"#;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"x","arguments":[]}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    let cancelled = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#;
    let session = |name: &str, answer: &str| {
        jsonl(
            tmp.path(),
            name,
            &[
                (C, 0, init),
                (S, 1_000, answer),
                (C, 3_000, call),
                (C, 3_500, cancel),
                (S, 900_000, cancelled),
            ],
        )
    };
    let o = audit("lsp", "jsonl", &session("refused.jsonl", refused), &save);
    let (v, broken, code) = verdict(&o);
    assert_eq!(
        (v.as_str(), broken, code),
        (
            "fail",
            vec!["no-request-before-initialize".to_string()],
            Some(1)
        ),
        "{}",
        text(&o.stdout)
    );
    let refused_file = session("refused-text.jsonl", refused);
    let out = text(
        &cancelcheck(&[
            "audit",
            "--dialect",
            "lsp",
            "--format",
            "jsonl",
            "--save",
            &save.display().to_string(),
            &refused_file,
        ])
        .stdout,
    );
    assert!(
        out.contains("handshake refused: the peer answered initialize with error -32603"),
        "{out}"
    );
    assert!(!out.contains("check that the command"), "{out}");
    let (v, broken, _) = verdict(&audit(
        "lsp",
        "jsonl",
        &session("opened.jsonl", inited),
        &save,
    ));
    assert_eq!((v.as_str(), broken), ("pass", vec![]));
}

/// A recorded client that cancels a request it never sent (here the server's own request, by
/// its id) breaks `cancel-names-sent-request` as the same act of the server's does; the client's cancel
/// of its own request, the same session otherwise, breaks nothing.
#[test]
fn a_client_cancel_naming_a_request_it_never_sent_fails_as_the_servers_would() {
    let tmp = Scratch::new("client-cancels-unknown");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let inited = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#;
    let asks = r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
    let session = |name: &str, named: u32| {
        let cancel = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{named}}}}}"#
        );
        jsonl(
            tmp.path(),
            name,
            &[
                (C, 0, init),
                (S, 1_000, inited),
                (C, 3_000, call),
                (S, 4_000, asks),
                (C, 5_000, &cancel),
                (S, 900_000, answer),
            ],
        )
    };
    let theirs = session("names-the-servers.jsonl", 7);
    let o = audit("mcp-2025-11-25", "jsonl", &theirs, &save);
    let (v, broken, code) = verdict(&o);
    assert_eq!((v.as_str(), code), ("fail", Some(1)), "{}", text(&o.stdout));
    assert!(
        broken.contains(&"cancel-names-sent-request".to_string()),
        "{broken:?}"
    );
    let own = session("names-its-own.jsonl", 1);
    let (_, broken, _) = verdict(&audit("mcp-2025-11-25", "jsonl", &own, &save));
    assert!(
        !broken.contains(&"cancel-names-sent-request".to_string()),
        "{broken:?}"
    );
}

/// LSP: a cancelled request never answered in a session the client ended (`shutdown`
/// answered, then `exit`) was never answered: `eventual-resolution` fails. Without the
/// `exit` the record cannot tell: `vacuous`, never a pass. Answered -32800 before the end:
/// a pass.
#[test]
fn the_end_of_an_lsp_session_decides_a_cancelled_request_never_answered() {
    let tmp = Scratch::new("lsp-exit");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
    let inited = r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}"#;
    let ready = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"slow","arguments":[]}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    let cancelled = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#;
    let shutdown = r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#;
    let down = r#"{"jsonrpc":"2.0","id":2,"result":null}"#;
    let exit = r#"{"jsonrpc":"2.0","method":"exit"}"#;
    let opening = [
        (C, 0, init),
        (S, 1_000, inited),
        (C, 2_000, ready),
        (C, 3_000, call),
    ];
    let run = |name: &str, rest: &[(&str, u64, &str)]| {
        let lines: Vec<(&str, u64, &str)> = opening.iter().chain(rest).copied().collect();
        let file = jsonl(tmp.path(), name, &lines);
        verdict(&audit("lsp", "jsonl", &file, &save))
    };
    let ended = [
        (C, 50_000, cancel),
        (C, 60_000, shutdown),
        (S, 61_000, down),
        (C, 62_000, exit),
    ];
    assert_eq!(
        run("never-answered.jsonl", &ended),
        ("fail".into(), vec!["eventual-resolution".into()], Some(1))
    );
    assert_eq!(
        run("not-ended.jsonl", &ended[..3]),
        ("vacuous".into(), vec![], Some(0))
    );
    let answered = [
        (C, 50_000, cancel),
        (S, 55_000, cancelled),
        (C, 60_000, shutdown),
        (S, 61_000, down),
        (C, 62_000, exit),
    ];
    assert_eq!(
        run("answered.jsonl", &answered),
        ("pass".into(), vec![], Some(0))
    );
}

/// The judge of `audit` and `watch` ([`Judging::bounded`]) holds, all along a session of
/// 10,000 requests with a cancel every tenth, a few checker records and a few messages, and
/// judges it as the judge that keeps everything does. (The retired records' ids take a run
/// per stretch of ids settled alike: here about two per cancel.)
#[test]
fn a_long_session_is_judged_holding_only_what_is_open() {
    use cancelcheck::audit::record_of;
    use cancelcheck::audit::synthetic::lsp_session;
    use cancelcheck::audit::transcript::{Line, parse_line};
    use cancelcheck::probe::judge::{Judging, Vantage};
    use cancelcheck_wire::decode::Context;
    let mut ctx = Context::new(cancelcheck_model::Dialect::Lsp);
    ctx.work_method = "workspace/executeCommand".into();
    let mut bounded = Judging::bounded(&ctx, Some(Vantage::Between));
    let mut kept = Judging::new(&ctx, Some(Vantage::Between));
    let (mut records, mut messages, mut retired, mut work) = (0, 0, 0, 0);
    for line in lsp_session(10_000, 10) {
        let Ok(Line::Message(e)) = parse_line(Format::Jsonl, &line) else {
            panic!("not an entry: {line}");
        };
        let rec = record_of(
            e.said,
            e.writer == Writer::Client,
            e.time_us.unwrap_or(0),
            0,
        );
        bounded.push(&rec);
        kept.push(&rec);
        let h = bounded.held();
        assert_eq!(h.events, 0);
        records = records.max(h.records);
        messages = messages.max(h.messages);
        retired = retired.max(h.retired);
        work = work.max(h.work);
    }
    assert!(work <= 2 * 64, "work entries and controls held: {work}");
    assert!(records <= 64, "checker records held: {records}");
    assert!(messages <= 64, "messages held: {messages}");
    assert!(
        retired <= 2 * 1_000 + 8,
        "pieces of retired records: {retired}"
    );
    assert_eq!(
        kept.held().records,
        10_001,
        "the unbounded judge keeps every record"
    );
    let (b, k) = (bounded.finish(), kept.finish());
    assert_eq!(b.status(), k.status());
    assert_eq!(b.verdict, k.verdict);
    assert_eq!(b.not_observable, k.not_observable);
    assert_eq!(b.vacuous_because, k.vacuous_because);
    assert_eq!(b.assumptions, k.assumptions);
    assert_eq!(b.errors, k.errors);
}

/// A cancel of `initialize` (the MCP TypeScript SDK's `connect()` timing out, recorded between
/// it and a real server) is judged whatever method is: `initialize-not-cancelled`, and no
/// "not judged" line naming it.
#[test]
fn a_cancel_of_the_handshake_is_judged_and_never_listed_as_not_judged() {
    let tmp = Scratch::new("init-cancel");
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trials/mcp-ts-init-timeout.jsonl");
    let o = cancelcheck(&[
        "audit",
        "--dialect",
        "mcp-2025-11-25",
        "--save",
        &tmp.path().display().to_string(),
        &file.display().to_string(),
    ]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("MUST initialize-not-cancelled"), "{out}");
    assert!(!out.contains("not judged"), "{out}");
}

/// A race the wire cannot show (`race-cancel-before-work`: a wire-only judge never sees work
/// start) is listed not observable, never also as reached (a real session: the MCP Python
/// SDK 2.3.0 client with server-everything, recorded by `watch`).
#[test]
fn a_race_the_wire_cannot_show_is_never_reported_reached() {
    let tmp = Scratch::new("races");
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trials/mcp-py2-everything.jsonl");
    let v = json_out(&audit(
        "mcp-2025-11-25",
        "jsonl",
        &file.display().to_string(),
        tmp.path(),
    ));
    let s = &v["scenarios"][0];
    let hidden = s["not_observable"].as_array().unwrap();
    assert!(
        hidden.contains(&Value::from("race-cancel-before-work")),
        "{s:#}"
    );
    for r in s["races_reached"].as_array().unwrap() {
        assert!(
            !hidden.contains(r),
            "{r} is both reached and not observable: {s:#}"
        );
    }
}

/// ACP, a record made between the parties: the client's answer to the agent's pending
/// `session/request_permission` after its own `session/cancel` is judged (it depends only on
/// the order of the client's own messages), never listed as not observable: an error breaks
/// it (the outcome `cancelled`, a result, is owed), the outcome `cancelled` keeps it.
#[test]
fn a_permission_answered_with_an_error_after_session_cancel_fails_from_between_the_parties() {
    let tmp = Scratch::new("acp-permission-error");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
    let inited =
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}"#;
    let new =
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#;
    let made = r#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}"#;
    let prompt = r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}"#;
    let asks = r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}"#;
    let ended = r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}"#;
    let session = |name: &str, answer: &str| {
        jsonl(
            tmp.path(),
            name,
            &[
                (C, 0, init),
                (S, 1_000, inited),
                (C, 2_000, new),
                (S, 3_000, made),
                (C, 4_000, prompt),
                (S, 5_000, asks),
                (C, 6_000, cancel),
                (C, 7_000, answer),
                (S, 8_000, ended),
            ],
        )
    };
    let error = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32800,"message":"Request cancelled"}}"#;
    let o = audit("acp", "jsonl", &session("error.jsonl", error), &save);
    assert_eq!(
        verdict(&o),
        (
            "fail".into(),
            vec!["permission-cancelled-after-cancel".into()],
            Some(1)
        ),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(json_out(&o)["transcript"]["vantage"], "between");
    let outcome = r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}"#;
    let o = audit("acp", "jsonl", &session("outcome.jsonl", outcome), &save);
    let (_, broken, _) = verdict(&o);
    assert!(broken.is_empty(), "{}", text(&o.stdout));
    assert!(
        !not_observable(&o).contains(&"permission-cancelled-after-cancel".to_string()),
        "{:?}",
        not_observable(&o)
    );
}

/// MCP 2025-11-25: `tasks/cancel` is a request, and "When a rpc call is made, the Server MUST
/// reply with a Response". A server that stops the cancelled task but never answers the
/// `tasks/cancel` it was proved to have read (a ping answered after it), in a session whose
/// end the record shows (the server's output closed), fails `eventual-resolution`; the same session with the task's final state as the answer
/// does not. (Task ids as the model writes them: `task-1` for request 1.)
#[test]
fn a_tasks_cancel_never_answered_in_an_ended_session_fails_eventual_resolution() {
    let tmp = Scratch::new("tasks-cancel-unanswered");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let inited = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}},"cancel":{}}},"serverInfo":{"name":"s","version":"1"}}}"#;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"task":{"ttl":60000}}}"#;
    let cancel = r#"{"jsonrpc":"2.0","id":"cancel-task-1","method":"tasks/cancel","params":{"taskId":"task-1"}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":"cancel-task-1","result":{"taskId":"task-1","status":"cancelled","createdAt":"2025-11-25T00:00:00Z","lastUpdatedAt":"2025-11-25T00:00:00Z","ttl":60000}}"#;
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let pong = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
    let session = |name: &str, answered: bool| {
        let mut s = String::new();
        let mut line = |dir: &str, t: u64, m: &str| {
            s.push_str(&format!(
                "{{\"direction\":\"{dir}\",\"time\":{t},\"message\":{m}}}\n"
            ))
        };
        line(C, 0, init);
        line(S, 1_000, inited);
        line(C, 3_000, call);
        line(C, 50_000, cancel);
        if answered {
            line(S, 51_000, answer);
        }
        // A ping answered after it: the server had read the tasks/cancel.
        line(C, 60_000, ping);
        line(S, 61_000, pong);
        s.push_str(&format!(
            "{{\"direction\":\"{S}\",\"time\":90000,\"closed\":true}}\n"
        ));
        let p = tmp.path().join(name);
        std::fs::write(&p, s).unwrap();
        p.display().to_string()
    };
    let o = audit(
        "mcp-2025-11-25",
        "jsonl",
        &session("unanswered.jsonl", false),
        &save,
    );
    assert_eq!(
        verdict(&o),
        ("fail".into(), vec!["eventual-resolution".into()], Some(1)),
        "{}",
        text(&o.stdout)
    );
    let o = audit(
        "mcp-2025-11-25",
        "jsonl",
        &session("answered.jsonl", true),
        &save,
    );
    let (_, broken, _) = verdict(&o);
    assert!(broken.is_empty(), "{}", text(&o.stdout));
}

/// MCP 2025-11-25 with work run as tasks the server created (a `CreateTaskResult`, task ids
/// of the server's choosing, `tasks/cancel` by that id under an id of the client's): the
/// judge does not follow a task's lifecycle, so the session decides nothing (`vacuous`,
/// saying why), never a pass, and the well-formed `tasks/cancel` is no malformed cancel.
#[test]
fn work_run_as_tasks_the_server_created_is_not_decided() {
    let tmp = Scratch::new("server-tasks");
    let save = tmp.path().join("found");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let inited = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}},"cancel":{}}},"serverInfo":{"name":"s","version":"1"}}}"#;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"task":{"ttl":60000}}}"#;
    let created = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}}}"#;
    let cancel = r#"{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840"}}"#;
    let cancelled = r#"{"jsonrpc":"2.0","id":2,"result":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"cancelled","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:01Z","ttl":60000}}"#;
    let file = jsonl(
        tmp.path(),
        "tasks.jsonl",
        &[
            (C, 0, init),
            (S, 1_000, inited),
            (C, 3_000, call),
            (S, 4_000, created),
            (C, 50_000, cancel),
            (S, 51_000, cancelled),
        ],
    );
    let o = audit("mcp-2025-11-25", "jsonl", &file, &save);
    assert_eq!(
        verdict(&o),
        ("vacuous".into(), vec![], Some(0)),
        "{}",
        text(&o.stdout)
    );
    let why = json_out(&o)["vacuous_because"].to_string();
    assert!(why.contains("CreateTaskResult"), "{why}");
}

/// Every file argument refuses what is not a regular file, before it opens it: `audit` of a
/// FIFO without a writer or of `/dev/zero`, `probe --baseline` and `--recipe` of a FIFO, a
/// FIFO where `vectors --out` would write, and a
/// recipe's `${text:FILE}` naming `/dev/zero`, each exit 2 naming the file and what it is (run
/// with a time limit: before, the FIFO hung and the device was read without end).
#[test]
fn fifos_and_devices_are_refused_by_every_file_argument() {
    use std::time::{Duration, Instant};
    let tmp = Scratch::new("special-files");
    let fifo = tmp.path().join("fifo");
    let c = std::ffi::CString::new(fifo.display().to_string()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let recipe = tmp.path().join("recipe.json");
    std::fs::write(
        &recipe,
        r#"{"work":{"method":"workspace/executeCommand","params":{"command":"x","arguments":["${text:/dev/zero}"]}}}"#,
    )
    .unwrap();
    // A FIFO where `vectors --out` would write (and first read what is there).
    let vectors = tmp.path().join("vectors");
    std::fs::create_dir(&vectors).unwrap();
    let c = std::ffi::CString::new(vectors.join("lsp.json").display().to_string()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let f = fifo.display().to_string();
    let r = recipe.display().to_string();
    let v = vectors.display().to_string();
    for (args, what) in [
        (
            vec!["vectors", "--out", &v],
            "lsp.json: exists and is not a regular file",
        ),
        (vec!["audit", "--dialect", "lsp", &f], "is a FIFO"),
        (
            vec!["audit", "--dialect", "lsp", "/dev/zero"],
            "is a character device",
        ),
        (
            vec!["probe", "--dialect", "lsp", "--baseline", &f, "--", "true"],
            "is a FIFO",
        ),
        (
            vec!["probe", "--dialect", "lsp", "--recipe", &f, "--", "true"],
            "is a FIFO",
        ),
        (
            vec!["probe", "--dialect", "lsp", "--recipe", &r, "--", "true"],
            "/dev/zero: is a character device",
        ),
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(10));
        }
        if child.try_wait().unwrap().is_none() {
            let _ = child.kill();
            panic!("{args:?} did not end");
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(what),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
}
