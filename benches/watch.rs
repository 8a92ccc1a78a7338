//! The time `cancelcheck watch` adds to a message: a message written, and its echo read back,
//! through `cat` alone and through `cancelcheck watch -- cat` (so each round trip crosses the
//! proxy twice, once each way). Prints the 50th, 99th and 99.9th percentiles of both round
//! trips and the difference; `cargo bench --bench watch`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Messages timed per run (after as many unmeasured ones to warm up).
const MESSAGES: usize = 20_000;

fn round_trips(program: &str, args: &[&str]) -> Vec<Duration> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut to = child.stdin.take().expect("stdin");
    let mut from = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut times = Vec::with_capacity(MESSAGES);
    for k in 0..2 * MESSAGES {
        let msg = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{k},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}}}\n",
            "x".repeat(k % 300)
        );
        let t = Instant::now();
        to.write_all(msg.as_bytes()).expect("write");
        line.clear();
        from.read_line(&mut line).expect("read");
        if k >= MESSAGES {
            times.push(t.elapsed());
        }
        assert_eq!(line, msg, "the echo differs");
    }
    drop(to);
    let _ = child.wait();
    times.sort();
    times
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn main() {
    let log = std::env::temp_dir().join(format!(
        "cancelcheck-bench-watch-{}.jsonl",
        std::process::id()
    ));
    let direct = round_trips("cat", &[]);
    let watched = round_trips(
        env!("CARGO_BIN_EXE_cancelcheck"),
        &[
            "watch",
            "--dialect",
            "mcp-2025-11-25",
            "--log",
            &log.display().to_string(),
            "--",
            "cat",
        ],
    );
    let _ = std::fs::remove_file(&log);
    let mut verdict = log.into_os_string();
    verdict.push(".verdict");
    let _ = std::fs::remove_file(verdict);
    println!("round trip of one message ({MESSAGES} timed), microseconds:");
    println!("{:>22} {:>9} {:>9} {:>9}", "", "p50", "p99", "p99.9");
    for (name, t) in [("cat", &direct), ("watch -- cat", &watched)] {
        println!(
            "{name:>22} {:>9.1} {:>9.1} {:>9.1}",
            pct(t, 0.5),
            pct(t, 0.99),
            pct(t, 0.999)
        );
    }
    println!(
        "{:>22} {:>9.1} {:>9.1} {:>9.1}   (two crossings of the proxy per round trip)",
        "added by watch",
        pct(&watched, 0.5) - pct(&direct, 0.5),
        pct(&watched, 0.99) - pct(&direct, 0.99),
        pct(&watched, 0.999) - pct(&direct, 0.999)
    );
}
