//! The `cancelcheck` command line.
//!
//! Exit codes: 0 no violation (or reproduced), 1 violation found (or diverged), 2 bad input,
//! 3 violation found (or diverged) but some output (a trace file, stdout) could not be written,
//! 4 no violation but some output could not be written. A closed stdout (`cancelcheck run |
//! head`) ends the output quietly and leaves the exit code as it would have been.

use cancelcheck::trace_file::{self, InputError};
use cancelcheck::{export, render, vectors};
use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::{InvariantId, Status, Strength};
use cancelcheck_sim::coverage;
use cancelcheck_sim::runner::applicable_races;
use cancelcheck_sim::{Scenario, SeedPlan, Trace, run_plan, run_seed};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

// Every line printed goes through `out`, so that a closed or full stdout never panics and
// never goes unreported; these shadow the standard macros for the rest of this file.
macro_rules! println {
    ($($arg:tt)*) => {
        out::stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}
macro_rules! eprintln {
    ($($arg:tt)*) => {
        out::stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}
macro_rules! eprint {
    ($($arg:tt)*) => {
        out::stderr(&format!("{}", format_args!($($arg)*)))
    };
}

/// A command's exit code (see the module documentation), as a number the end of `main` can
/// combine with what became of stdout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct ExitCode(u8);

impl ExitCode {
    /// Exit 0.
    const SUCCESS: ExitCode = ExitCode(0);

    /// Exit `code`.
    fn from(code: u8) -> ExitCode {
        ExitCode(code)
    }
}

/// Writing to stdout and stderr without panicking. A write to stdout that fails stops every
/// later one; a broken pipe is remembered as such (the reader went away: the Unix convention
/// is a quiet exit), any other failure with its message, for `main` to report.
mod out {
    use std::io::Write;
    use std::sync::Mutex;

    /// What became of stdout.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Status {
        /// Everything written so far arrived.
        Fine,
        /// The reader closed the pipe.
        Closed,
        /// A write failed for another reason (e.g. a full disk).
        Failed(String),
    }

    static STATUS: Mutex<Status> = Mutex::new(Status::Fine);

    fn record(e: &std::io::Error) {
        let mut st = STATUS.lock().unwrap_or_else(|p| p.into_inner());
        if *st == Status::Fine {
            *st = if e.kind() == std::io::ErrorKind::BrokenPipe {
                Status::Closed
            } else {
                Status::Failed(e.to_string())
            };
        }
    }

    /// Writes `s` to stdout unless an earlier write failed.
    pub fn stdout(s: &str) {
        if status() != Status::Fine {
            return;
        }
        let mut o = std::io::stdout().lock();
        if let Err(e) = o.write_all(s.as_bytes()) {
            record(&e);
        }
    }

    /// Writes `s` to stderr in one call; a failure there has nowhere to be reported.
    pub fn stderr(s: &str) {
        let _ = std::io::stderr().lock().write_all(s.as_bytes());
    }

    /// Flushes stdout and says what became of it.
    pub fn finish() -> Status {
        if status() == Status::Fine
            && let Err(e) = std::io::stdout().lock().flush()
        {
            record(&e);
        }
        status()
    }

    fn status() -> Status {
        STATUS.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[derive(Parser)]
#[command(
    name = "cancelcheck",
    version,
    about = "Simulate and model-check JSON-RPC request cancellation"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario over many seeds; save a trace for each invariant broken.
    Run(RunArgs),
    /// Explore every schedule of a small configuration (breadth-first; shortest counterexample).
    Explore(ExploreArgs),
    /// Re-run a saved trace and compare it event by event.
    Replay(ReplayArgs),
    /// Probe a real implementation over stdio and judge what crosses the wire.
    Probe(cancelcheck::probe::ProbeArgs),
    /// Print the invariant catalog.
    Properties {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// List correct and faulty behaviours per dialect.
    Behaviors {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Export the clause vectors: per invariant and dialect, event sequences that break it
    /// and that honour it, to replay against another implementation.
    Vectors(VectorsArgs),
}

#[derive(clap::Args)]
struct VectorsArgs {
    /// Only this dialect's vectors (default: every dialect).
    #[arg(long)]
    dialect: Option<String>,
    /// One JSON document on stdout.
    #[arg(long, conflicts_with = "out")]
    json: bool,
    /// Write one JSON document per dialect, DIR/<dialect>.json (an existing file that
    /// differs is never overwritten).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Protocol dialect (default: acp, or the scenario file's).
    #[arg(long)]
    dialect: Option<String>,
    /// Behaviour under test (see `cancelcheck behaviors`; default: honour, or the scenario file's).
    #[arg(long)]
    behavior: Option<String>,
    /// Seeds to run: `A..B` (B excluded) or a single seed.
    #[arg(long, default_value = "0..10000")]
    seeds: String,
    /// Worker threads (default: available cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only shard I of N (seeds with seed % N == I).
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Where to save traces of violations.
    #[arg(long, default_value = "traces/found")]
    save: PathBuf,
    /// A JSON scenario (the shape of a trace's `config`).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Swarm mode: each seed draws its own fault mix.
    #[arg(long)]
    swarm: bool,
    /// Stop at the first violating seed.
    #[arg(long)]
    stop_first: bool,
    /// Machine-readable summary on stdout.
    #[arg(long)]
    json: bool,
    /// The largest input file read, in bytes (default 16 MiB); larger files are refused.
    #[arg(long, default_value_t = trace_file::DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Transport {
    /// FIFO per direction.
    Stdio,
    /// Any order.
    Reordering,
}

#[derive(clap::Args)]
struct ExploreArgs {
    /// Protocol dialect (default: acp, or the scenario file's).
    #[arg(long)]
    dialect: Option<String>,
    /// Behaviour under test (default: honour, or the scenario file's).
    #[arg(long)]
    behavior: Option<String>,
    /// Requests the client sends.
    #[arg(long, default_value_t = 2)]
    requests: u16,
    /// Delivery order.
    #[arg(long, value_enum, default_value = "stdio")]
    transport: Transport,
    /// Requests may time out (a timeout is a step that may come at any point).
    #[arg(long)]
    timeouts: bool,
    /// `initialize` may hit a connect timeout.
    #[arg(long)]
    init_timeout: bool,
    /// The application may cancel each request twice (always on for acknowledged cancels).
    #[arg(long)]
    repeat_cancel: bool,
    /// Messages may be lost.
    #[arg(long)]
    loss: bool,
    /// Running work may send one progress notification (session/update, $/progress, ...).
    #[arg(long)]
    progress: bool,
    /// The network may deliver one response or notification twice (at any point while it is
    /// in flight; the copy lands right behind it on stdio).
    #[arg(long)]
    duplicate: bool,
    /// The client reuses the id of its latest answered request (JSON-RPC allows it).
    #[arg(long)]
    reuse_ids: bool,
    /// The server may give up running work on its own (internal cancellation: a timeout, a
    /// resource limit), in the dialects whose text says how it answers then (ACP, ACP RFD).
    #[arg(long)]
    internal_cancel: bool,
    /// The client may send one malformed cancel (no id), which the server must ignore (and
    /// the server one, with server requests).
    #[arg(long)]
    malformed_cancel: bool,
    /// Requests the server sends to the client, each of which the server may cancel where the
    /// dialect lets it (not ABP). With any, the search runs without reductions, and in the
    /// ACP RFD explores both answers of the client's declared cancellation support.
    #[arg(long, default_value_t = 0)]
    server_requests: u16,
    /// Server workers (default: as many as requests).
    #[arg(long)]
    workers: Option<u16>,
    /// Worker threads (default: available cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Stop expanding at this depth (the result is then bounded, not a proof).
    #[arg(long)]
    max_depth: Option<u32>,
    /// Stop after this many unique states (the result is then bounded). The search holds a
    /// level's states packed (50 to 100 bytes each) and 15 to 30 bytes per visited state.
    #[arg(long, default_value_t = 4_000_000)]
    max_states: u64,
    /// Stop before the search holds more than this much memory (its levels or stack, the
    /// visited set, the transition memos), e.g. `512M`, `2G` or bytes; the result is then
    /// bounded. Default: half the memory available (the least of `MemAvailable`, the cgroup's
    /// limit and the address-space limit), 2 GiB where none is known.
    #[arg(long)]
    max_memory: Option<String>,
    /// A JSON scenario instead of the flags above (see docs: how the explorer reads it).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Turn off the partial-order reduction (expanding only one request's steps where steps of
    /// several commute; applied only where it is sound, as the certificate says).
    #[arg(long)]
    no_por: bool,
    /// Turn off the symmetry reduction (deduplicating states up to a permutation of
    /// interchangeable requests; applied only where it is sound, as the certificate says).
    #[arg(long)]
    no_symmetry: bool,
    /// Depth-first (memory grows with depth, not width; the counterexample need not be a
    /// shortest one; single-threaded). Combine with --max-depth to bound it.
    #[arg(long)]
    dfs: bool,
    /// Where to save a counterexample trace.
    #[arg(long, default_value = "traces/found")]
    save: PathBuf,
    /// Machine-readable certificate on stdout.
    #[arg(long)]
    json: bool,
    /// The largest input file read, in bytes (default 16 MiB); larger files are refused.
    #[arg(long, default_value_t = trace_file::DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: u64,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Mermaid,
    Json,
}

#[derive(clap::Args)]
struct ReplayArgs {
    /// The trace file.
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The largest input file read, in bytes (default 16 MiB); larger files are refused.
    #[arg(long, default_value_t = trace_file::DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: u64,
}

fn main() -> std::process::ExitCode {
    ignore_file_size_signal();
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Run(args) => cmd_run(args),
        Cmd::Explore(args) => cmd_explore(args),
        Cmd::Replay(args) => cmd_replay(args),
        Cmd::Probe(args) => cancelcheck::probe::run(args).map(|(text, code)| {
            print_out(text);
            ExitCode::from(code)
        }),
        Cmd::Properties { json } => {
            print_out(if json {
                pretty(&export::properties_json())
            } else {
                export::properties_text()
            });
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Behaviors { json } => {
            print_out(if json {
                pretty(&export::behaviors_json())
            } else {
                export::behaviors_text()
            });
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Vectors(args) => cmd_vectors(args),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cancelcheck: {e:#}");
            ExitCode::from(2)
        }
    };
    std::process::ExitCode::from(with_stdout(code, out::finish()).0)
}

/// The exit code once stdout's fate is known: a closed pipe changes nothing (the reader went
/// away, which is its choice); a failed write is reported and turns 0 into 4 and 1 into 3.
fn with_stdout(code: ExitCode, stdout: out::Status) -> ExitCode {
    match stdout {
        out::Status::Fine | out::Status::Closed => code,
        out::Status::Failed(why) => {
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

fn cmd_vectors(args: VectorsArgs) -> anyhow::Result<ExitCode> {
    let dialect = match &args.dialect {
        Some(d) => Some(
            d.parse::<Dialect>()
                .map_err(|e| bad(format!("--dialect: {e}")))?,
        ),
        None => None,
    };
    let files = vectors::load(dialect)?;
    if let Some(dir) = &args.out {
        for w in vectors::write_dir(dir, &files)? {
            let what = if w.unchanged { "unchanged" } else { "wrote" };
            println!("{what} {}", w.path.display());
        }
    } else if args.json {
        print_out(pretty(&vectors::document(&files)));
    } else {
        print_out(vectors::text(&files));
    }
    Ok(ExitCode::SUCCESS)
}

fn pretty(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

fn print_out(s: String) {
    out::stdout(&s);
}

/// A usage error (exit 2) that says what was expected.
fn bad(what: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(what.into())
}

fn parse_seeds(s: &str) -> anyhow::Result<std::ops::Range<u64>> {
    let err = || {
        bad(format!(
            "--seeds {s:?}: expected A..B (B > A) or a single seed, e.g. 0..10000"
        ))
    };
    match s.split_once("..") {
        Some((a, b)) => {
            let a: u64 = a.trim().parse().map_err(|_| err())?;
            let b: u64 = b.trim().parse().map_err(|_| err())?;
            if b <= a {
                return Err(err());
            }
            Ok(a..b)
        }
        None => {
            let a: u64 = s.trim().parse().map_err(|_| err())?;
            Ok(a..a.checked_add(1).ok_or_else(err)?)
        }
    }
}

fn parse_shard(s: &str) -> anyhow::Result<(u64, u64)> {
    let err = || bad(format!("--shard {s:?}: expected I/N with I < N, e.g. 0/4"));
    let (i, n) = s.split_once('/').ok_or_else(err)?;
    let (i, n): (u64, u64) = (i.parse().map_err(|_| err())?, n.parse().map_err(|_| err())?);
    if n == 0 || i >= n {
        return Err(err());
    }
    Ok((i, n))
}

/// `--dialect` and `--behavior`, over a scenario's own.
fn apply_names(
    s: &mut Scenario,
    dialect: Option<&str>,
    behavior: Option<&str>,
) -> anyhow::Result<()> {
    if let Some(d) = dialect {
        s.dialect = d
            .parse::<Dialect>()
            .map_err(|e| bad(format!("--dialect: {e}")))?;
    }
    if let Some(b) = behavior {
        s.behavior = b
            .parse::<Behaviour>()
            .map_err(|e| bad(format!("--behavior: {e}")))?;
    }
    Ok(())
}

fn scenario_from(args: &RunArgs) -> anyhow::Result<Scenario> {
    let mut s = match &args.scenario {
        Some(file) => trace_file::read_scenario_within(file, args.max_input_bytes)?,
        None => Scenario::default_for(Dialect::Acp),
    };
    apply_names(&mut s, args.dialect.as_deref(), args.behavior.as_deref())?;
    if args.swarm {
        s.swarm = true;
    }
    s.validate().map_err(|e| {
        let what = match e.field.as_str() {
            "behavior" => format!(
                "--behavior {}: not in {}; expected {}",
                s.behavior, s.dialect, e.expected
            ),
            _ => e.to_string(),
        };
        bad(what)
    })?;
    Ok(s)
}

fn cmd_run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let scenario = scenario_from(&args)?;
    let seeds = parse_seeds(&args.seeds)?;
    let shard = parse_shard(&args.shard)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        return Err(bad("--jobs: expected at least 1"));
    }
    let plan = SeedPlan {
        seeds: seeds.clone(),
        shard,
        jobs,
    };
    let total = plan.len();
    let classification = scenario.behavior.classify(scenario.dialect);
    let faulty = classification.is_some_and(|c| c.faulty);

    let bar = if std::io::stderr().is_terminal() && !args.json {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {pos}/{len} seeds [{bar:30}] {per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let progress = |n: u64| {
        if let Some(b) = &bar {
            b.set_position(n);
        }
    };
    let started = Instant::now();
    let summary = run_plan(&scenario, &plan, &progress, args.stop_first.then_some(1));
    let secs = started.elapsed().as_secs_f64();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let events_per_sec = if secs > 0.0 {
        summary.events as f64 / secs
    } else {
        0.0
    };

    // One trace per violated invariant: the first seed that broke it.
    let mut saved: Vec<(u64, InvariantId, trace_file::Saved)> = Vec::new();
    // Traces that could not be saved: the summary still goes out, and the exit code says so.
    let mut unsaved: Vec<(u64, InvariantId, String)> = Vec::new();
    let mut mixes = Vec::new();
    let mut seen = Vec::new();
    let to_save = if args.stop_first {
        &summary.failures[..summary.failures.len().min(1)]
    } else {
        &summary.failures[..]
    };
    for f in to_save {
        for inv in &f.invariants {
            if seen.contains(inv) {
                continue;
            }
            seen.push(*inv);
            let run = run_seed(&scenario, f.seed, true);
            let trace = Trace::from_run(&scenario, run);
            match trace_file::save(&args.save, &trace) {
                Ok(s) => {
                    mixes.push(trace.mix);
                    saved.push((f.seed, *inv, s));
                }
                Err(e) => unsaved.push((f.seed, *inv, save_error(&args.save, &e))),
            }
        }
    }
    let applicable = applicable_races(&scenario);
    let unreached: Vec<InvariantId> = applicable
        .iter()
        .filter(|r| !summary.reached.contains(*r))
        .collect();
    let must = |i: &InvariantId| {
        i.info()
            .application(scenario.dialect)
            .is_some_and(|a| a.strength == Strength::Must)
    };
    let vacuous = if summary.failures.is_empty() {
        coverage::vacuity(&scenario, applicable, summary.reached)
    } else {
        Vec::new()
    };
    let status = Status::judged(
        summary
            .failures
            .iter()
            .any(|f| f.invariants.iter().any(must)),
        !summary.failures.is_empty(),
        vacuous.is_empty(),
    );
    let verdict = status.as_str();

    if args.json {
        let violations: Vec<_> = saved
            .iter()
            .zip(&mixes)
            .map(|((seed, inv, s), mix)| {
                json!({"seed": seed, "invariant": inv.name(), "trace": s.path.display().to_string(), "swarm": mix})
            })
            .collect();
        let by_inv: serde_json::Map<String, serde_json::Value> = summary
            .by_invariant
            .iter()
            .map(|(i, n)| (i.name().to_string(), json!(n)))
            .collect();
        let out = json!({
            "dialect": scenario.dialect.id(),
            "behavior": scenario.behavior.name(),
            "faulty": faulty,
            "seeds": summary.seeds,
            "seed_range": format!("{}..{}", seeds.start, seeds.end),
            "events": summary.events,
            "seconds": secs,
            "events_per_sec": events_per_sec.round(),
            "violations": violations,
            "failing_seeds": summary.failing_seeds,
            "violations_by_invariant": by_inv,
            "races_reached": summary.reached.iter().map(|r| r.name()).collect::<Vec<_>>(),
            "races_unreached": unreached.iter().map(|r| r.name()).collect::<Vec<_>>(),
            "truncated_runs": summary.truncated,
            "verdict": verdict,
            "vacuous_because": vacuous,
            "unsaved": unsaved_json(&unsaved),
        });
        print_out(pretty(&out));
    } else {
        let kind = if faulty { "faulty" } else { "correct" };
        println!(
            "cancelcheck run: {} ({}), behavior {} ({kind}), seeds {}..{}{}, {} jobs{}",
            scenario.dialect.id(),
            scenario.dialect.rules().title,
            scenario.behavior.name(),
            seeds.start,
            seeds.end,
            if shard.1 > 1 {
                format!(" shard {}/{}", shard.0, shard.1)
            } else {
                String::new()
            },
            jobs,
            if scenario.swarm { ", swarm" } else { "" },
        );
        println!(
            "seeds run: {}   events: {}   {:.0} events/s   {:.2} s",
            summary.seeds, summary.events, events_per_sec, secs
        );
        if summary.failures.is_empty() {
            println!("violations: none");
        } else {
            println!("violations: {} failing seeds", summary.failing_seeds);
            for (inv, n) in &summary.by_invariant {
                let first = summary
                    .failures
                    .iter()
                    .find(|f| f.invariants.contains(inv))
                    .map_or(0, |f| f.seed);
                println!("  {:<36} {n:>6} seeds (first: seed {first})", inv.name());
            }
            for (seed, inv, s) in &saved {
                let note = if s.existed { " (already saved)" } else { "" };
                println!(
                    "  trace for {} (seed {seed}): {}{note}",
                    inv.name(),
                    s.path.display()
                );
            }
            for (seed, inv, why) in &unsaved {
                println!("  trace for {} (seed {seed}): NOT SAVED: {why}", inv.name());
            }
            if let (Some((seed, _, _)), Some(Some(mix))) = (saved.first(), mixes.first()) {
                println!("  swarm mix of seed {seed}: {mix}");
            }
        }
        let reached: Vec<&str> = summary.reached.iter().map(|r| r.name()).collect();
        println!(
            "races reached: {}",
            if reached.is_empty() {
                "none".into()
            } else {
                reached.join(", ")
            }
        );
        if !unreached.is_empty() {
            let names: Vec<&str> = unreached.iter().map(|r| r.name()).collect();
            println!(
                "races NOT reached: {} (a pass that never reached a race proves nothing about it)",
                names.join(", ")
            );
        }
        if status == Status::Vacuous {
            for why in &vacuous {
                println!("vacuous: {why}");
            }
        }
        if summary.truncated > 0 {
            println!(
                "{} runs were cut short by max_events ({}): their eventual properties went unchecked",
                summary.truncated, scenario.max_events
            );
        }
        println!("verdict: {verdict}");
        if !saved.is_empty() {
            println!(
                "replay with: cancelcheck replay {}",
                saved[0].2.path.display()
            );
        }
    }
    if !unsaved.is_empty() {
        eprintln!(
            "cancelcheck: {} trace(s) could not be saved under {} (exit 3: violations found, evidence not saved)",
            unsaved.len(),
            args.save.display()
        );
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::from(status.exit_code()))
}

/// Why saving under `dir` failed, for the summary.
fn save_error(dir: &Path, e: &std::io::Error) -> String {
    format!("saving under {} failed: {e}", dir.display())
}

/// The traces that could not be saved, for `--json`.
fn unsaved_json(unsaved: &[(u64, InvariantId, String)]) -> serde_json::Value {
    unsaved
        .iter()
        .map(|(seed, inv, why)| json!({"seed": seed, "invariant": inv.name(), "error": why}))
        .collect()
}

fn explore_scenario(args: &ExploreArgs) -> anyhow::Result<Scenario> {
    let mut s = match &args.scenario {
        Some(file) => explorable_file(file, args.max_input_bytes)?,
        None => {
            let mut s = Scenario::default_for(Dialect::Acp);
            s.workload.timeout = None;
            s.workload.init_timeout = None;
            s.workload.progress_permille = 0;
            s
        }
    };
    apply_names(&mut s, args.dialect.as_deref(), args.behavior.as_deref())?;
    if args.scenario.is_none() {
        if !(1..=16).contains(&args.requests) {
            return Err(bad(format!(
                "--requests {}: expected 1 to 16",
                args.requests
            )));
        }
        let order = match args.transport {
            Transport::Stdio => cancelcheck_sim::link::Order::Fifo,
            Transport::Reordering => cancelcheck_sim::link::Order::Reordering,
        };
        let mut spec = cancelcheck_sim::explorer::ExploreSpec::new(
            s.dialect,
            s.behavior,
            args.requests,
            order,
        );
        spec.workers = args.workers.unwrap_or(args.requests);
        spec.timeouts = args.timeouts;
        spec.init_timeout = args.init_timeout;
        spec.repeat_cancel = args.repeat_cancel;
        spec.loss = args.loss;
        spec.progress = args.progress;
        spec.duplicate = args.duplicate;
        spec.reuse_ids = args.reuse_ids;
        spec.internal_cancel = args.internal_cancel;
        spec.malformed_cancel = args.malformed_cancel;
        spec.server_requests = args.server_requests;
        s = spec.scenario();
    }
    s.validate().map_err(|e| bad(e.to_string()))?;
    Ok(s)
}

/// Reads an explorer scenario file, refusing what the explorer cannot take whole.
fn explorable_file(file: &Path, max_bytes: u64) -> anyhow::Result<Scenario> {
    let s = trace_file::read_scenario_within(file, max_bytes)?;
    cancelcheck_sim::explorer::explorable(&s).map_err(|e| InputError {
        file: file.to_path_buf(),
        field: e.field,
        expected: format!("expected {}", e.expected),
    })?;
    Ok(s)
}

fn cmd_explore(args: ExploreArgs) -> anyhow::Result<ExitCode> {
    use cancelcheck_sim::explorer::{SearchOptions, search};
    let scenario = explore_scenario(&args)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return Err(bad("--threads 0: expected at least 1"));
    }
    let budget = memory_budget(args.max_memory.as_deref())?;
    // The depth-first search runs on one thread.
    let threads = if args.dfs { 1 } else { threads };
    let opts = SearchOptions {
        max_depth: args.max_depth,
        threads,
        max_states: Some(args.max_states),
        max_memory: Some(budget.bytes),
        depth_first: args.dfs,
        symmetry: !args.no_symmetry,
        partial_order: !args.no_por,
    };
    let tty = std::io::stderr().is_terminal();
    let progress = |depth: u32, unique: u64, frontier: u64| {
        if tty {
            eprint!("\r\x1b[2Kdepth {depth}: {unique} unique states, frontier {frontier}");
        }
    };
    let started = Instant::now();
    let report = search(&scenario, &opts, &progress);
    let secs = started.elapsed().as_secs_f64();
    if tty {
        eprint!("\r\x1b[2K");
    }
    let mut saved = None;
    let mut save_failed: Option<String> = None;
    let mut steps = None;
    let mut broken: Vec<&str> = Vec::new();
    // A MUST broken stops the search; otherwise the first schedule that broke a SHOULD.
    if let Some((schedule, invs)) = report.counterexample.as_ref().or(report.warning.as_ref()) {
        steps = Some(schedule.len().saturating_sub(1));
        broken = invs.iter().map(|i| i.name()).collect();
        let trace = Trace::from_schedule(&scenario, schedule.clone());
        match trace_file::save(&args.save, &trace) {
            Ok(s) => saved = Some(s),
            Err(e) => save_failed = Some(save_error(&args.save, &e)),
        }
    }
    // Why a search that found nothing proves less than it seems (empty once it found something).
    let mut vacuous = Vec::new();
    if report.finding().is_some() {
        // Nothing to say: the verdict is a failure or a warning.
    } else if !report.exhaustive {
        vacuous.push(
            "the search was bounded (--max-depth, --max-states or --max-memory): not every state was checked"
                .to_string(),
        );
    }
    if report.finding().is_none() {
        vacuous.extend(coverage::vacuity(
            &scenario,
            applicable_races(&scenario),
            report.reached,
        ));
    }
    let status = Status::judged(
        report.counterexample.is_some(),
        report.finding().is_some(),
        vacuous.is_empty(),
    );
    let verdict = status.as_str();
    let per_sec = if secs > 0.0 {
        report.total_states as f64 / secs
    } else {
        0.0
    };
    let transport = scenario.link.order.name();
    let peak_rss = peak_resident_bytes();
    if args.json {
        let out = json!({
            "dialect": scenario.dialect.id(),
            "behavior": scenario.behavior.name(),
            "requests": scenario.workload.requests,
            "server_requests": scenario.workload.server_requests,
            "transport": if transport == "fifo" { "stdio" } else { transport },
            "workers": scenario.workload.workers,
            "timeouts": scenario.workload.timeout.is_some(),
            "loss": scenario.link.loss_permille > 0,
            "duplicate": scenario.link.duplicate_permille > 0,
            "threads": threads,
            "unique_states": report.unique_states,
            "total_states": report.total_states,
            "max_depth": report.max_depth,
            "peak_states_held": report.peak_states_held,
            "peak_rss_bytes": peak_rss,
            "peak_bytes_held": report.peak_bytes_held,
            "max_memory_bytes": budget.bytes,
            "max_memory_from": budget.from,
            "bounded_by": bounded_by(&report, args.max_states),
            "seconds": secs,
            "states_per_sec": per_sec.round(),
            "exhaustive": report.exhaustive,
            "search": if args.dfs { "depth-first" } else { "breadth-first" },
            "symmetry": report.symmetry,
            "partial_order": report.partial_order,
            "state_form": if report.flat { "flat" } else { "plain" },
            "verdict": verdict,
            "vacuous_because": vacuous,
            "violations": broken,
            "counterexample": saved.as_ref().map(|s| s.path.display().to_string()),
            "counterexample_steps": steps,
            "counterexample_shortest": saved.is_some().then_some(report.shortest),
            "save_error": save_failed,
            "races_reached": report.reached.iter().map(|r| r.name()).collect::<Vec<_>>(),
        });
        print_out(pretty(&out));
    } else {
        println!(
            "cancelcheck explore: {}, behavior {}, {} requests{}, {} transport, {} workers{}{}{}",
            scenario.dialect.id(),
            scenario.behavior.name(),
            scenario.workload.requests,
            match scenario.workload.server_requests {
                0 => String::new(),
                n => format!(" + {n} from the server"),
            },
            if transport == "fifo" {
                "stdio"
            } else {
                transport
            },
            scenario.workload.workers,
            if scenario.workload.timeout.is_some() {
                ", timeouts"
            } else {
                ""
            },
            if scenario.link.loss_permille > 0 {
                ", loss"
            } else {
                ""
            },
            if scenario.link.duplicate_permille > 0 {
                ", duplication"
            } else {
                ""
            },
        );
        println!(
            "unique states: {}   total states: {}   depth: {}   peak held: {}{}   {:.3} s   {:.0} states/s ({} threads)",
            report.unique_states,
            report.total_states,
            report.max_depth,
            report.peak_states_held,
            peak_rss.map_or(String::new(), |b| format!(
                " ({} MiB resident at most)",
                b >> 20
            )),
            secs,
            per_sec,
            threads
        );
        println!(
            "memory: held {} MiB at most, of a budget of {} MiB ({})",
            report.peak_bytes_held.div_ceil(1 << 20),
            budget.bytes >> 20,
            budget.from
        );
        if report.bounded_by_memory {
            println!(
                "bounded by memory: the search stopped before holding more than {} MiB; raise it with --max-memory",
                budget.bytes >> 20
            );
        }
        let races: Vec<&str> = report.reached.iter().map(|r| r.name()).collect();
        println!(
            "races reached: {}",
            if races.is_empty() {
                "none".to_string()
            } else {
                races.join(", ")
            }
        );
        match (&saved, status) {
            (Some(s), _) => {
                // The search looks again for a shortest path where its reductions or depth-first
                // order may have found a longer one; it says when it found none.
                let which = if report.shortest {
                    "a shortest counterexample"
                } else {
                    "a counterexample (no shorter path to the same invariant was found; --no-por for a shortest one)"
                };
                let (word, what) = match status {
                    Status::Fail => ("FAIL", "a MUST broken"),
                    _ => ("WARN", "only SHOULDs broken"),
                };
                println!(
                    "verdict: {word} ({what}): {} in {which} of {} steps",
                    broken.join(", "),
                    steps.unwrap_or(0)
                );
                println!(
                    "counterexample: {}\nreplay with: cancelcheck replay {}",
                    s.path.display(),
                    s.path.display()
                );
            }
            (None, _) if report.finding().is_some() => println!(
                "verdict: {}: {} in a counterexample of {} steps\ncounterexample NOT SAVED: {}",
                verdict.to_uppercase(),
                broken.join(", "),
                steps.unwrap_or(0),
                save_failed.as_deref().unwrap_or("")
            ),
            (None, Status::Pass) => println!(
                "verdict: pass, exhaustive: every reachable state of this configuration was checked"
            ),
            (None, _) => {
                println!(
                    "verdict: vacuous: nothing broken, but not everything claimed was checked"
                );
                for why in &vacuous {
                    println!("  {why}");
                }
            }
        }
    }
    if let Some(why) = &save_failed {
        eprintln!("cancelcheck: the counterexample could not be saved: {why} (exit 3)");
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::from(status.exit_code()))
}

/// What stopped a bounded search: `memory`, `states` or `depth` (`None` if exhaustive).
fn bounded_by(
    report: &cancelcheck_sim::explorer::SearchReport,
    max_states: u64,
) -> Option<&'static str> {
    if report.exhaustive {
        None
    } else if report.bounded_by_memory {
        Some("memory")
    } else if report.unique_states >= max_states {
        Some("states")
    } else {
        Some("depth")
    }
}

/// A memory budget and where it came from.
struct Budget {
    bytes: u64,
    from: String,
}

/// `--max-memory`, or the default: half the least of the memory available, the cgroup's
/// limit and the address-space limit.
fn memory_budget(flag: Option<&str>) -> anyhow::Result<Budget> {
    if let Some(s) = flag {
        let bytes = parse_size(s).ok_or_else(|| {
            bad(format!(
                "--max-memory {:?}: expected a size of at least 1M, e.g. 512M, 2G or 1073741824",
                trace_file::clip(s)
            ))
        })?;
        return Ok(Budget {
            bytes,
            from: "--max-memory".into(),
        });
    }
    let mut known: Vec<(u64, &str)> = Vec::new();
    if let Ok(info) = std::fs::read_to_string("/proc/meminfo") {
        let field = |name: &str| {
            info.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|kib| kib.parse::<u64>().ok())
                .map(|kib| kib.saturating_mul(1024))
        };
        if let Some(b) = field("MemAvailable:") {
            known.push((b, "half of MemAvailable"));
        } else if let Some(b) = field("MemTotal:") {
            known.push((b, "half of MemTotal"));
        }
    }
    if let Ok(max) = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        && let Ok(b) = max.trim().parse::<u64>()
    {
        known.push((b, "half of the cgroup's memory.max"));
    }
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit into the struct passed, which lives on this stack.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
        if ok && lim.rlim_cur != libc::RLIM_INFINITY {
            known.push((lim.rlim_cur, "half of the address-space limit (ulimit -v)"));
        }
    }
    Ok(match known.into_iter().min_by_key(|k| k.0) {
        Some((b, from)) => Budget {
            bytes: (b / 2).max(1 << 20),
            from: from.into(),
        },
        None => Budget {
            bytes: 2 << 30,
            from: "no memory figure found: 2 GiB".into(),
        },
    })
}

/// A size: bytes, or a number with `K`, `M`, `G` or `T` (powers of 1024; `MiB`, `MB` and `m`
/// read the same); at least 1 MiB.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(digits);
    let n: u64 = n.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    let bytes = n.checked_mul(1u64 << shift)?;
    (bytes >= 1 << 20).then_some(bytes)
}

/// The process's peak resident memory so far (Linux `VmHWM`), where the system reports it.
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn cmd_replay(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    // A probe trace is re-judged, not re-run (issue 14).
    if let Ok(text) = trace_file::read_text(&args.file, args.max_input_bytes)
        && let Some((out, code)) =
            cancelcheck::probe::replay(&args.file, &text, matches!(args.format, Format::Json))?
    {
        print_out(out);
        return Ok(ExitCode::from(code));
    }
    let doc = trace_file::read_trace_within(&args.file, args.max_input_bytes)
        .map_err(|e: InputError| anyhow::anyhow!(e))?;
    let r = trace_file::replay(&doc);
    let code = if r.reproduced() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    match args.format {
        Format::Json => {
            let mut out = r.fresh_json.clone();
            out["reproduced"] = json!(r.reproduced());
            out["diverged_at"] = json!(r.diverged_at);
            out["verdict_matches"] = json!(r.verdict_matches);
            out["origin_matches"] = json!(r.origin_matches);
            out["bytes_identical"] = json!(r.bytes_identical);
            print_out(pretty(&out));
        }
        Format::Mermaid => print_out(render::mermaid(&r.fresh)),
        Format::Text => {
            print_out(render::text(&r.fresh));
            report_divergence(&args.file, &doc, &r);
        }
    }
    if !matches!(args.format, Format::Text) && !r.reproduced() {
        report_divergence(&args.file, &doc, &r);
    }
    Ok(code)
}

fn report_divergence(file: &Path, doc: &trace_file::TraceDoc, r: &trace_file::Replay) {
    use std::fmt::Write as _;
    // The whole report is made first and written in one call.
    let mut msg = String::new();
    if r.reproduced() {
        let bytes = if r.bytes_identical {
            "byte for byte"
        } else {
            "event for event (the file's formatting differs)"
        };
        let _ = writeln!(
            msg,
            "reproduced {}: {} events, same verdict, {bytes}",
            file.display(),
            doc.events.len()
        );
        out::stderr(&msg);
        return;
    }
    let _ = writeln!(msg, "DIVERGED: {}", file.display());
    if let Some(i) = r.diverged_at {
        let fresh = r.fresh_json["events"]
            .get(i)
            .map_or("(none: the re-run ended)".to_string(), quoted);
        let recorded = doc
            .events
            .get(i)
            .map_or("(none: the recording ended)".to_string(), quoted);
        let _ = writeln!(
            msg,
            "  first differing event: #{i}\n  recorded: {recorded}\n  re-run:   {fresh}"
        );
    }
    if !r.origin_matches {
        let _ = writeln!(
            msg,
            "  recorded origin: {}\n  only this much of it applies: {}",
            quoted(&doc.raw["origin"]),
            quoted(&r.fresh_json["origin"])
        );
    }
    if !r.verdict_matches {
        let _ = writeln!(
            msg,
            "  recorded verdict: {}\n  re-run verdict:   {}",
            quoted(&doc.verdict),
            quoted(&r.fresh_json["verdict"])
        );
    }
    out::stderr(&msg);
}

/// A JSON value as compact text, cut to a readable length (a recorded value can be huge).
fn quoted(v: &serde_json::Value) -> String {
    trace_file::clip(&v.to_string())
}
