//! The `cancelcheck` command line: one module per command. Each command gathers what it did
//! into a report struct that implements both `Serialize` (printed with `--json`) and `Display`
//! (printed for people), so the two outputs are made from the same values and cannot drift.
//!
//! Exit codes: 0 no violation (or reproduced), 1 violation found (or diverged), 2 bad input,
//! 3 violation found (or diverged) but some output (a trace file, stdout) could not be written,
//! 4 no violation but some output could not be written. A closed stdout (`cancelcheck run |
//! head`) ends the output quietly and leaves the exit code as it would have been.

// Every line printed goes through `out`, so that a closed or full stdout never panics and
// never goes unreported; these shadow the standard macros in every command module.
macro_rules! println {
    ($($arg:tt)*) => {
        $crate::cli::out::stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}
macro_rules! eprintln {
    ($($arg:tt)*) => {
        $crate::cli::out::stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod adjust;
mod catalog;
mod clauses;
mod explore;
mod explore_shard;
mod memory;
mod merge;
mod names;
mod replay;
mod run;
mod scenario;
mod summary;
mod sweep;
mod tree;
mod vectors;

use clap::{Parser, Subcommand};
use serde::Serialize;
use std::fmt::Display;
use std::path::Path;

/// A command's exit code (see the module documentation), as a number the end of `main` can
/// combine with what became of stdout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ExitCode(pub u8);

impl ExitCode {
    /// Exit 0.
    pub const SUCCESS: ExitCode = ExitCode(0);
}

/// Writing to stdout and stderr without panicking. A write to stdout that fails stops every
/// later one; a broken pipe is remembered as such (the reader went away: the Unix convention
/// is a quiet exit), any other failure with its message, for `main` to report. What is written
/// never holds a control character but newline and tab: text a peer or a file supplied (a
/// frame quoted in a session error, a line of a transcript) cannot drive the terminal.
pub mod out {
    use std::borrow::Cow;
    use std::io::Write;
    use std::sync::Mutex;

    /// `s` with every control character but newline and tab (C0, DEL, C1) written as its
    /// escape, `\u{1b}`.
    pub fn inert(s: &str) -> Cow<'_, str> {
        let bad = |c: char| c.is_control() && c != '\n' && c != '\t';
        if !s.chars().any(bad) {
            return Cow::Borrowed(s);
        }
        let mut t = String::with_capacity(s.len() + 16);
        for c in s.chars() {
            if bad(c) {
                t.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            } else {
                t.push(c);
            }
        }
        Cow::Owned(t)
    }

    /// What became of stdout.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Stdout {
        /// Everything written so far arrived.
        Fine,
        /// The reader closed the pipe.
        Closed,
        /// A write failed for another reason (e.g. a full disk).
        Failed(String),
    }

    static STATUS: Mutex<Stdout> = Mutex::new(Stdout::Fine);

    fn record(e: &std::io::Error) {
        let mut st = STATUS.lock().unwrap_or_else(|p| p.into_inner());
        if *st == Stdout::Fine {
            *st = if e.kind() == std::io::ErrorKind::BrokenPipe {
                Stdout::Closed
            } else {
                Stdout::Failed(e.to_string())
            };
        }
    }

    /// Writes `s` to stdout unless an earlier write failed.
    pub fn stdout(s: &str) {
        if status() != Stdout::Fine {
            return;
        }
        let mut o = std::io::stdout().lock();
        if let Err(e) = o.write_all(inert(s).as_bytes()) {
            record(&e);
        }
    }

    /// Writes `s` to stderr in one call; a failure there has nowhere to be reported.
    pub fn stderr(s: &str) {
        stderr_raw(&inert(s));
    }

    /// Writes `s`, the program's own text with its own controls (a progress line that
    /// redraws itself), to stderr as it is.
    pub fn stderr_raw(s: &str) {
        let _ = std::io::stderr().lock().write_all(s.as_bytes());
    }

    /// Flushes stdout and says what became of it.
    pub fn finish() -> Stdout {
        if status() == Stdout::Fine
            && let Err(e) = std::io::stdout().lock().flush()
        {
            record(&e);
        }
        status()
    }

    fn status() -> Stdout {
        STATUS.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[derive(Parser)]
#[command(
    name = "cancelcheck",
    version,
    about = "Simulate and model-check JSON-RPC request cancellation",
    after_help = "Start with `cancelcheck run` (the default scenario), then `cancelcheck scenario` to see every field it used."
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario over many seeds; save a trace for each invariant broken.
    Run(run::RunArgs),
    /// Combine the outputs of `run --shard I/N --json` (or of an `explore` sweep's shards) into the summary the whole run prints.
    Merge(merge::MergeArgs),
    /// Explore every schedule of a small configuration (breadth-first; shortest counterexample).
    Explore(explore::ExploreArgs),
    /// Re-run a saved trace and compare it event by event.
    Replay(replay::ReplayArgs),
    /// Probe a real implementation over stdio and judge what crosses the wire.
    Probe(Box<cancelcheck::probe::ProbeArgs>),
    /// Judge a recorded session (own JSONL, vscode-jsonrpc trace, MCP client log) with the
    /// probe's judge.
    Audit(cancelcheck::audit::AuditArgs),
    /// Stand in for a server's command: pass stdio through unchanged, record the session and
    /// judge it as it goes.
    Watch(cancelcheck::watch::WatchArgs),
    /// Draw a trace's request tree: each request answered, cancelled, still running or
    /// orphaned, and every cancel's path highlighted.
    Tree(tree::TreeArgs),
    /// Print the full scenario `run` would run (the JSON file `--scenario` takes).
    Scenario(scenario::ScenarioArgs),
    /// Print the invariant catalog.
    Properties(catalog::JsonFlag),
    /// List correct and faulty behaviors per dialect.
    Behaviors(catalog::JsonFlag),
    /// Export the clause vectors: per invariant and dialect, event sequences that break it
    /// and that honour it, to replay against another implementation.
    Vectors(vectors::VectorsArgs),
    /// List every normative sentence of the texts per dialect: the invariants that judge it
    /// (and their vectors), or why none does.
    Clauses(clauses::ClausesArgs),
}

/// Parses the command line, runs the command and turns its result into the process's exit
/// code.
pub fn main() -> std::process::ExitCode {
    ignore_file_size_signal();
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Run(args) => run::cmd(args),
        Cmd::Merge(args) => merge::cmd(args),
        Cmd::Explore(args) => explore::cmd(args),
        Cmd::Replay(args) => replay::cmd(args),
        Cmd::Probe(args) => cancelcheck::probe::run(*args).map(|(text, code)| {
            print_out(text);
            ExitCode(code)
        }),
        Cmd::Audit(args) => cancelcheck::audit::run(args).map(|(text, code)| {
            print_out(text);
            ExitCode(code)
        }),
        Cmd::Watch(args) => cancelcheck::watch::run(args).map(ExitCode),
        Cmd::Tree(args) => tree::cmd(args),
        Cmd::Scenario(args) => scenario::cmd(args),
        Cmd::Properties(args) => catalog::properties(args),
        Cmd::Behaviors(args) => catalog::behaviors(args),
        Cmd::Vectors(args) => vectors::cmd(args),
        Cmd::Clauses(args) => clauses::cmd(args),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            out::stderr(&format!("cancelcheck: {e:#}\n"));
            ExitCode(2)
        }
    };
    std::process::ExitCode::from(with_stdout(code, out::finish()).0)
}

/// The exit code once stdout's fate is known: a closed pipe changes nothing (the reader went
/// away, which is its choice); a failed write is reported and turns 0 into 4 and 1 into 3.
fn with_stdout(code: ExitCode, stdout: out::Stdout) -> ExitCode {
    match stdout {
        out::Stdout::Fine | out::Stdout::Closed => code,
        out::Stdout::Failed(why) => {
            eprintln!("cancelcheck: writing to stdout failed: {why}");
            match code.0 {
                0 | 4 => ExitCode(4),
                1 | 3 => ExitCode(3),
                other => ExitCode(other),
            }
        }
    }
}

/// A write past the file-size limit (`ulimit -f`) then fails with an error the save reports,
/// instead of a signal killing the process with a temporary file left behind.
fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" runs no code in a handler; it is done
    // first thing in `main`, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Prints a report: as pretty JSON with `json`, else as its `Display` text.
pub fn emit<R: Serialize + Display>(report: &R, json: bool) {
    if json {
        print_out(pretty(report));
    } else {
        print_out(report.to_string());
    }
}

/// Pretty JSON with a final newline.
pub fn pretty<T: Serialize + ?Sized>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// Writes `s` to stdout (through [`out`]).
pub fn print_out(s: String) {
    out::stdout(&s);
}

/// A usage error (exit 2) that says what was expected.
pub fn bad(what: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(what.into())
}

/// Why saving under `dir` failed, for the summary.
pub fn save_error(dir: &Path, e: &std::io::Error) -> String {
    format!("saving under {} failed: {e}", dir.display())
}

/// A list of names, or `none`.
pub fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The races reached, and those not reached with why that matters (`why`), as lines.
pub fn races_lines(
    f: &mut std::fmt::Formatter<'_>,
    reached: &[&str],
    unreached: &[&str],
    why: &str,
) -> std::fmt::Result {
    writeln!(f, "races reached: {}", list_or_none(reached))?;
    if !unreached.is_empty() {
        writeln!(f, "races NOT reached: {} ({why})", unreached.join(", "))?;
    }
    Ok(())
}

/// `n thing` or `n things`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

pub use cancelcheck::trace_file::transport_name;
