//! `cancelcheck probe --list-tools` against the test peer: every page of MCP's `tools/list`,
//! each tool with its required arguments and the flags that probe it (which do), and a usage
//! error where the dialect lists nothing or the peer refuses the list.

use cancelcheck::probe::{ProbeArgs, run};
use clap::Parser;
use serde_json::Value;

const PEER: &str = env!("CARGO_BIN_EXE_cancelcheck-testpeer");

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: ProbeArgs,
}

/// The probe with `flags`, against the test peer with `peer` arguments.
fn probe(flags: &[&str], peer: &[&str]) -> Result<(String, u8), String> {
    // Listing saves nothing; a folder of cargo's for tests, should it ever.
    let save = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("list-tools");
    let mut argv: Vec<String> = vec!["probe".into(), "--save".into(), save.display().to_string()];
    argv.extend(flags.iter().map(|s| s.to_string()));
    argv.push("--".into());
    argv.push(PEER.into());
    argv.extend(peer.iter().map(|s| s.to_string()));
    run(Cli::try_parse_from(&argv).expect("arguments parse").args).map_err(|e| e.to_string())
}

#[test]
fn every_page_is_listed_with_the_flags_that_probe_each_tool() {
    for dialect in ["mcp-2025-11-25", "mcp-2026-07-28"] {
        let (text, code) = probe(
            &["--dialect", dialect, "--list-tools", "--json"],
            &["--dialect", dialect],
        )
        .expect("the tools are listed");
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(v["pages"], 2, "{dialect}: {v}");
        let tools = v["tools"].as_array().expect("tools");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["slow", "sleep"], "{dialect}");
        assert_eq!(tools[1]["required"], serde_json::json!(["ms"]));
        assert_eq!(
            tools[1]["params"],
            serde_json::json!({"name": "sleep", "arguments": {"ms": 0}})
        );
        // The flags given probe the tool.
        let args: Vec<String> = tools[0]["probe_args"]
            .as_array()
            .expect("probe_args")
            .iter()
            .filter_map(|a| a.as_str().map(str::to_string))
            .collect();
        let mut flags = vec!["--dialect", dialect, "--scenarios", "cancel-during-work"];
        flags.extend(args.iter().map(String::as_str));
        let (report, code) = probe(&flags, &["--dialect", dialect]).expect("the probe runs");
        assert_eq!(code, 0, "{dialect}: {report}");
        assert!(report.contains("pass"), "{report}");
    }
    let (text, _) =
        probe(&["--dialect", "mcp-2025-11-25", "--list-tools"], &[]).expect("the tools are listed");
    assert!(text.contains("2 tool(s)"), "{text}");
    assert!(text.contains("  Waits `ms` milliseconds"), "{text}");
    assert!(
        !text.contains("Honours a cancel"),
        "only the first line: {text}"
    );
    assert!(text.contains("required arguments: ms (integer)"), "{text}");
    assert!(
        text.contains(r#"--method tools/call --params '{"name":"sleep","arguments":{"ms":0}}'"#),
        "{text}"
    );
}

#[test]
fn a_dialect_without_a_list_or_a_peer_refusing_it_is_a_usage_error() {
    for dialect in ["acp", "lsp"] {
        let e = probe(
            &["--dialect", dialect, "--list-tools"],
            &["--dialect", dialect],
        )
        .expect_err(dialect);
        assert!(e.contains("--list-tools") && e.contains("--method"), "{e}");
    }
    // A peer of another dialect: it refuses the handshake, said as such.
    let e = probe(
        &["--dialect", "mcp-2025-11-25", "--list-tools"],
        &["--dialect", "acp"],
    )
    .expect_err("refused");
    assert!(e.contains("initialize with error -32602"), "{e}");
    // A peer that refuses tools/list (MCP 2026-07-28 has no handshake to refuse first): its
    // answer, said as such.
    let e = probe(
        &["--dialect", "mcp-2026-07-28", "--list-tools"],
        &["--dialect", "mcp-2026-07-28", "--refuse-all"],
    )
    .expect_err("refused");
    assert!(e.contains("tools/list with error -32601"), "{e}");
}
