//! `cancelcheck explore`: every schedule of a small configuration.

use super::memory::{Budget, memory_budget, peak_resident_bytes};
use super::names::{BEHAVIOR_OR_ALL, DIALECT_OR_ALL, Pick};
use super::run::{apply_names, validate};
use super::{ExitCode, bad, emit, plural, races_lines, save_error, transport_name};
use cancelcheck::trace_file::{self, InputError};
use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::Status;
use cancelcheck_sim::coverage;
use cancelcheck_sim::explorer::{SearchOptions, SearchReport, search_shard};
use cancelcheck_sim::runner::applicable_races;
use cancelcheck_sim::{Scenario, Trace};
use clap::ValueEnum;
use serde::Serialize;
use std::fmt;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `--transport`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// FIFO per direction.
    Stdio,
    /// Any order.
    Reordering,
    /// Streamable HTTP (MCP): a POST per client message, a response stream per client
    /// request, the standalone GET stream; closing a stream, a stream's connection dropping
    /// and its resume.
    Http,
}

impl Transport {
    /// The link order it names.
    pub fn order(self) -> cancelcheck_sim::link::Order {
        match self {
            Transport::Stdio => cancelcheck_sim::link::Order::Fifo,
            Transport::Reordering => cancelcheck_sim::link::Order::Reordering,
            Transport::Http => cancelcheck_sim::link::Order::Http,
        }
    }
}

/// `explore`'s flags.
#[derive(clap::Args)]
pub struct ExploreArgs {
    /// Protocol dialect (default: acp, or the scenario file's); `all` sweeps every dialect.
    #[arg(long, value_parser = DIALECT_OR_ALL)]
    pub(super) dialect: Option<Pick<Dialect>>,
    /// Behavior under test (see `cancelcheck behaviors`; default: honour, or the scenario
    /// file's); `all` sweeps every behavior that applies to the dialect.
    #[arg(long, value_parser = BEHAVIOR_OR_ALL)]
    pub(super) behavior: Option<Pick<Behaviour>>,
    /// Run only shard I of N: of one search, its initial states whose index is I modulo N
    /// (up to four: the declared cancellation supports); with `--dialect all` or `--behavior
    /// all`, the sweep's searches whose position is I modulo N. `cancelcheck merge` combines
    /// the shards' `--json` outputs into what the whole prints.
    #[arg(long, value_name = "I/N")]
    pub(super) shard: Option<String>,
    /// Requests the client sends.
    #[arg(long, default_value_t = 2)]
    pub(super) requests: u16,
    /// Delivery order.
    #[arg(long, value_enum, default_value = "stdio")]
    pub(super) transport: Transport,
    /// Requests may time out (a timeout is a step that may come at any point).
    #[arg(long)]
    pub(super) timeouts: bool,
    /// `initialize` may hit a connect timeout.
    #[arg(long)]
    pub(super) init_timeout: bool,
    /// The application may cancel each request twice (always on for acknowledged cancels).
    #[arg(long)]
    pub(super) repeat_cancel: bool,
    /// Messages may be lost.
    #[arg(long)]
    pub(super) loss: bool,
    /// Running work may send one progress notification (session/update, $/progress, ...).
    #[arg(long)]
    pub(super) progress: bool,
    /// The network may deliver one response or notification twice (at any point while it is
    /// in flight; the copy lands right behind it on stdio).
    #[arg(long)]
    pub(super) duplicate: bool,
    /// The client reuses the id of its latest answered request (JSON-RPC allows it).
    #[arg(long)]
    pub(super) reuse_ids: bool,
    /// The server may give up running work on its own (internal cancellation: a timeout, a
    /// resource limit), in the dialects whose text says how it answers then (ACP, ACP RFD).
    #[arg(long)]
    pub(super) internal_cancel: bool,
    /// The client may send one malformed cancel (no id), which the server must ignore (and
    /// the server one, with server requests).
    #[arg(long)]
    pub(super) malformed_cancel: bool,
    /// Every request of the client's is task-augmented, cancelled with `tasks/cancel`
    /// (mcp-2025-11-25 only; sets `workload.task_permille`).
    #[arg(long)]
    pub(super) tasks: bool,
    /// Requests the server sends to the client, each of which the server may cancel where the
    /// dialect lets it (not ABP). With any, the search runs without reductions, and in the
    /// ACP RFD explores both answers of the client's declared cancellation support.
    #[arg(long, default_value_t = 0)]
    pub(super) server_requests: u16,
    /// Request trees, `DEPTHxFANOUT` (e.g. `2x2`): each running request above level DEPTH
    /// sends FANOUT requests on its behalf, in the other direction (not ABP). With any, the
    /// search runs without reductions.
    #[arg(long, value_parser = parse_nesting)]
    pub(super) nesting: Option<cancelcheck_sim::scenario::Nesting>,
    /// Server workers (default: as many as requests).
    #[arg(long)]
    pub(super) workers: Option<u16>,
    /// Worker threads (default: available cores).
    #[arg(long)]
    pub(super) threads: Option<usize>,
    /// Stop expanding at this depth (the result is then bounded, not a proof).
    #[arg(long)]
    pub(super) max_depth: Option<u32>,
    /// Stop after this many unique states (the result is then bounded). The search holds a
    /// level's states packed (50 to 100 bytes each) and 15 to 30 bytes per visited state.
    #[arg(long, default_value_t = 4_000_000)]
    pub(super) max_states: u64,
    /// Stop before the search holds more than this much memory (its levels or stack, the
    /// visited set, the transition memos), e.g. `512M`, `2G` or bytes; the result is then
    /// bounded. Default: half the memory available (the least of `MemAvailable`, the cgroup's
    /// limit and the address-space limit), 2 GiB where none is known.
    #[arg(long)]
    pub(super) max_memory: Option<String>,
    /// A JSON scenario instead of the flags above (`cancelcheck scenario` prints one; the
    /// README's "Scenario files" says which fields the explorer reads).
    #[arg(long)]
    pub(super) scenario: Option<PathBuf>,
    /// Turn off the partial-order reduction (expanding only some steps where the rest commute
    /// with them: one request's on a reordering transport, one delivery or one party's on
    /// stdio; applied only where it is sound, as the certificate says).
    #[arg(long)]
    pub(super) no_por: bool,
    /// Turn off the symmetry reduction (deduplicating states up to a permutation of
    /// interchangeable requests; applied only where it is sound, as the certificate says).
    #[arg(long)]
    pub(super) no_symmetry: bool,
    /// Depth-first (memory grows with depth, not width; the counterexample need not be a
    /// shortest one; single-threaded). Combine with --max-depth to bound it.
    #[arg(long)]
    pub(super) dfs: bool,
    /// Where to save a counterexample trace.
    #[arg(long, default_value = "traces/found")]
    pub(super) save: PathBuf,
    /// Machine-readable certificate on stdout.
    #[arg(long)]
    pub(super) json: bool,
    /// The largest input file read, in bytes (default 16 MiB); larger files are refused.
    #[arg(long, default_value_t = trace_file::DEFAULT_MAX_INPUT_BYTES)]
    pub(super) max_input_bytes: u64,
}

/// The explorer's certificate: what it searched, how far, and what it found.
#[derive(Serialize)]
pub(super) struct ExploreReport {
    pub(super) dialect: &'static str,
    pub(super) behavior: &'static str,
    pub(super) requests: u16,
    pub(super) server_requests: u16,
    /// The request trees' shape (`depth` 1 or `fanout` 0: none).
    pub(super) nesting: cancelcheck_sim::scenario::Nesting,
    pub(super) transport: &'static str,
    pub(super) workers: u16,
    pub(super) timeouts: bool,
    pub(super) loss: bool,
    pub(super) duplicate: bool,
    pub(super) threads: usize,
    pub(super) unique_states: u64,
    pub(super) total_states: u64,
    pub(super) max_depth: u32,
    pub(super) peak_states_held: u64,
    pub(super) peak_rss_bytes: Option<u64>,
    pub(super) peak_bytes_held: u64,
    /// The most bytes held, per distinct state visited (the visited set and the states kept
    /// for counterexamples grow with them).
    pub(super) bytes_per_state: u64,
    pub(super) max_memory_bytes: u64,
    pub(super) max_memory_from: String,
    pub(super) bounded_by: Option<&'static str>,
    pub(super) seconds: f64,
    pub(super) states_per_sec: u64,
    pub(super) exhaustive: bool,
    pub(super) search: &'static str,
    pub(super) symmetry: bool,
    pub(super) partial_order: bool,
    /// The kind of ample set the partial-order reduction took (`fifo-head-or-side`,
    /// `request`, `root-subtree`), where it applied.
    pub(super) ample_sets: Option<&'static str>,
    /// States expanded through an ample set smaller than their enabled steps.
    pub(super) reduced_states: u64,
    pub(super) state_form: &'static str,
    pub(super) verdict: &'static str,
    /// The verdict the word says.
    #[serde(skip)]
    pub(super) status: Status,
    pub(super) vacuous_because: Vec<String>,
    pub(super) violations: Vec<&'static str>,
    pub(super) counterexample: Option<String>,
    pub(super) counterexample_steps: Option<usize>,
    pub(super) counterexample_shortest: Option<bool>,
    pub(super) save_error: Option<String>,
    pub(super) races_reached: Vec<&'static str>,
    /// The races that apply here and no schedule reached.
    pub(super) races_unreached: Vec<&'static str>,
    /// Every option of the search, as flags would set them.
    pub(super) options: Options,
    /// What to do next: replay and draw a counterexample, or widen the search.
    pub(super) next_steps: Vec<String>,
    /// The search hit its memory budget.
    #[serde(skip)]
    pub(super) bounded_by_memory: bool,
    /// A shard's: which it is and what `merge` reads (see `explore_shard`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(super) part: Option<super::explore_shard::Part>,
    /// A merge's: the shards' files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) merged_from: Vec<String>,
    /// The search's own report.
    #[serde(skip)]
    pub(super) report: SearchReport,
}

/// The explorer's options that decide what it can reach.
#[derive(Serialize)]
pub(super) struct Options {
    pub(super) init_timeout: bool,
    pub(super) repeat_cancel: bool,
    pub(super) progress: bool,
    pub(super) reuse_ids: bool,
    pub(super) internal_cancel: bool,
    pub(super) malformed_cancel: bool,
    pub(super) max_depth: Option<u32>,
    pub(super) max_states: u64,
}

/// `explore`.
pub fn cmd(args: ExploreArgs) -> anyhow::Result<ExitCode> {
    if args.dialect == Some(Pick::All) || args.behavior == Some(Pick::All) {
        return super::sweep::cmd(args);
    }
    let (dialect, behavior) = (
        args.dialect.and_then(Pick::one),
        args.behavior.and_then(Pick::one),
    );
    let scenario = explore_scenario(&args, dialect, behavior)?;
    let mut setup = Setup::new(&args)?;
    let part = match &args.shard {
        Some(text) => {
            let shard = super::explore_shard::parse(text, &scenario, args.dfs)?;
            setup.roots = (shard.index, shard.count);
            Some(shard)
        }
        None => None,
    };
    let tty = std::io::stderr().is_terminal();
    let progress = |depth: u32, unique: u64, frontier: u64| {
        if tty {
            super::out::stderr_raw(&format!(
                "\r\x1b[2Kdepth {depth}: {unique} unique states, frontier {frontier}"
            ));
        }
    };
    let mut out = search_one(&args, &scenario, &setup, &progress);
    if let Some(shard) = part {
        out.part = Some(super::explore_shard::part(
            &args,
            &scenario,
            shard,
            &out.report,
        ));
        out.next_steps.push(
            "cancelcheck merge SHARD.json...   # every shard's --json output, to get the whole search's certificate".into(),
        );
    }
    if tty {
        super::out::stderr_raw("\r\x1b[2K");
    }
    emit(&out, args.json);
    if let Some(why) = &out.save_error {
        eprintln!("cancelcheck: the counterexample could not be saved: {why} (exit 3)");
        return Ok(ExitCode(3));
    }
    Ok(ExitCode(out.status.exit_code()))
}

/// What every search of one `explore` shares: its options, threads and memory budget, and
/// the initial states it searches (`roots.0` modulo `roots.1`: all, unless `--shard`).
pub(super) struct Setup {
    opts: SearchOptions,
    threads: usize,
    budget: Budget,
    pub(super) roots: (u32, u32),
}

impl Setup {
    /// The options the flags give, or a usage error.
    pub(super) fn new(args: &ExploreArgs) -> anyhow::Result<Setup> {
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
        Ok(Setup {
            opts,
            threads,
            budget,
            roots: (0, 1),
        })
    }
}

/// One search of `scenario`, its counterexample saved, as the certificate `explore` prints.
pub(super) fn search_one(
    args: &ExploreArgs,
    scenario: &Scenario,
    setup: &Setup,
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> ExploreReport {
    let started = Instant::now();
    let report = search_shard(scenario, &setup.opts, setup.roots, progress);
    let secs = started.elapsed().as_secs_f64();
    let mut out = certify(args, scenario, &report, secs, setup.threads, &setup.budget);
    out.peak_rss_bytes = peak_resident_bytes();
    out.report = report;
    out
}

/// The certificate of a search that took `secs` on `threads` threads within `budget`, its
/// counterexample (or warning) saved under `--save`.
pub(super) fn certify(
    args: &ExploreArgs,
    scenario: &Scenario,
    report: &SearchReport,
    secs: f64,
    threads: usize,
    budget: &Budget,
) -> ExploreReport {
    let mut saved = None;
    let mut save_failed: Option<String> = None;
    let mut steps = None;
    let mut broken: Vec<&'static str> = Vec::new();
    // A MUST broken stops the search; otherwise the first schedule that broke a SHOULD.
    if let Some((schedule, invs)) = report.counterexample.as_ref().or(report.warning.as_ref()) {
        steps = Some(schedule.len().saturating_sub(1));
        broken = invs.iter().map(|i| i.name()).collect();
        let trace = Trace::from_schedule(scenario, schedule.clone());
        match trace_file::save(&args.save, &trace) {
            Ok(s) => saved = Some(s),
            Err(e) => save_failed = Some(save_error(&args.save, &e)),
        }
    }
    // Why a search that found nothing proves less than it seems (empty once it found something).
    let mut vacuous = Vec::new();
    if report.finding().is_none() && !report.exhaustive {
        vacuous.push(
            "the search was bounded (--max-depth, --max-states or --max-memory): not every state was checked"
                .to_string(),
        );
    }
    let applicable = applicable_races(scenario);
    let mut fixes = Vec::new();
    if report.finding().is_none() {
        for v in coverage::vacuity(scenario, applicable, report.reached) {
            vacuous.push(v.why);
            fixes.push(v.fix);
        }
    }
    let status = Status::judged(
        report.counterexample.is_some(),
        report.finding().is_some(),
        vacuous.is_empty(),
    );
    let per_sec = if secs > 0.0 {
        (report.total_states as f64 / secs).round() as u64
    } else {
        0
    };
    let counterexample = saved.as_ref().map(|s| s.path.display().to_string());
    let next_steps = explore_next(args, scenario, counterexample.as_deref(), report, &fixes);
    ExploreReport {
        dialect: scenario.dialect.id(),
        behavior: scenario.behaviour.name(),
        requests: scenario.workload.requests,
        server_requests: scenario.workload.server_requests,
        nesting: scenario.workload.nesting,
        transport: transport_name(scenario.link.order),
        workers: scenario.workload.workers,
        timeouts: scenario.workload.timeout.is_some(),
        loss: scenario.link.loss_permille > 0,
        duplicate: scenario.link.duplicate_permille > 0,
        threads,
        unique_states: report.unique_states,
        total_states: report.total_states,
        max_depth: report.max_depth,
        peak_states_held: report.peak_states_held,
        peak_rss_bytes: None,
        peak_bytes_held: report.peak_bytes_held,
        bytes_per_state: report.peak_bytes_held / report.unique_states.max(1),
        max_memory_bytes: budget.bytes,
        max_memory_from: budget.from.clone(),
        bounded_by: bounded_by(report, args.max_states),
        seconds: secs,
        states_per_sec: per_sec,
        exhaustive: report.exhaustive,
        search: if args.dfs {
            "depth-first"
        } else {
            "breadth-first"
        },
        symmetry: report.symmetry,
        partial_order: report.partial_order,
        ample_sets: cancelcheck_sim::explorer::ample_sets(scenario)
            .filter(|_| report.partial_order),
        reduced_states: report.reduced_states,
        state_form: if report.flat { "flat" } else { "plain" },
        verdict: status.as_str(),
        status,
        vacuous_because: vacuous,
        violations: broken,
        counterexample,
        counterexample_steps: steps,
        counterexample_shortest: saved.is_some().then_some(report.shortest),
        save_error: save_failed,
        races_reached: report.reached.iter().map(|r| r.name()).collect(),
        races_unreached: applicable
            .iter()
            .filter(|r| !report.reached.contains(*r))
            .map(|r| r.name())
            .collect(),
        options: Options {
            init_timeout: scenario.workload.init_timeout.is_some(),
            repeat_cancel: scenario.workload.repeat_cancel_permille > 0,
            progress: scenario.workload.progress_permille > 0,
            reuse_ids: scenario.workload.ids.reuse_answered,
            internal_cancel: scenario.workload.internal_cancel_permille > 0,
            malformed_cancel: scenario.workload.malformed_cancel_permille > 0,
            max_depth: args.max_depth,
            max_states: args.max_states,
        },
        next_steps,
        bounded_by_memory: report.bounded_by_memory,
        part: None,
        merged_from: Vec::new(),
        report: SearchReport::default(),
    }
}

/// After a counterexample: how to replay and draw it. After a search that found nothing: how
/// to widen it.
fn explore_next(
    args: &ExploreArgs,
    s: &Scenario,
    counterexample: Option<&str>,
    report: &SearchReport,
    fixes: &[coverage::Fix],
) -> Vec<String> {
    if let Some(f) = counterexample {
        let html = Path::new(f).with_extension("html");
        return vec![
            format!("cancelcheck replay {f}"),
            format!("cancelcheck replay {f} --format mermaid"),
            format!("cancelcheck replay {f} --format html > {}", html.display()),
        ];
    }
    if report.finding().is_some() {
        return Vec::new();
    }
    let (d, b) = (s.dialect.id(), s.behaviour.name());
    // The same search with every option it had, plus each one that widens it.
    let w = &s.workload;
    let mut flags = vec![
        format!("--requests {}", w.requests.max(2)),
        // (Streamable HTTP stays itself: it reorders across streams already.)
        match s.link.order {
            cancelcheck_sim::link::Order::Http => "--transport http".to_string(),
            _ => "--transport reordering".to_string(),
        },
        "--timeouts".to_string(),
        "--init-timeout".to_string(),
        "--progress".to_string(),
    ];
    let kept = [
        (args.workers.is_some(), format!("--workers {}", w.workers)),
        (args.repeat_cancel, "--repeat-cancel".into()),
        (args.loss, "--loss".into()),
        (args.duplicate, "--duplicate".into()),
        (args.reuse_ids, "--reuse-ids".into()),
        (args.internal_cancel, "--internal-cancel".into()),
        (args.malformed_cancel, "--malformed-cancel".into()),
        (args.tasks, "--tasks".into()),
        (
            args.server_requests > 0,
            format!("--server-requests {}", args.server_requests),
        ),
    ];
    flags.extend(kept.into_iter().filter(|(on, _)| *on).map(|(_, f)| f));
    let wider = w.requests < 2
        || s.link.order == cancelcheck_sim::link::Order::Fifo
        || w.timeout.is_none()
        || w.init_timeout.is_none()
        || w.progress_permille == 0;
    let mut steps = Vec::new();
    // A vacuous search: first the same search, changed so that what it names can happen.
    let fixed: Vec<Vec<String>> = fixes
        .iter()
        .filter_map(|f| super::adjust::explore_flags(*f, s))
        .collect();
    if !fixed.is_empty() {
        let mut line = same_search(s);
        for flags in fixed {
            match line.iter().position(|f| *f == flags[0]) {
                // A flag with a value: the fix's value replaces the one given.
                Some(i) if flags.len() == 2 && i + 1 < line.len() => line[i + 1] = flags[1].clone(),
                Some(_) => {}
                None => line.extend(flags),
            }
        }
        steps.push(format!(
            "cancelcheck explore {}   # the same search, changed so that what `vacuous:` names can happen",
            line.join(" ")
        ));
    } else if fixes.contains(&coverage::Fix::NoCancelSupport) {
        steps.push(format!(
            "cancelcheck scenario --dialect {d} --behavior {b} > s.json   # set workload.cancel_support to false in s.json, then: cancelcheck explore --scenario s.json"
        ));
    }
    if args.scenario.is_none() && wider {
        steps.push(format!(
            "cancelcheck explore --dialect {d} --behavior {b} {}   # a wider search",
            flags.join(" ")
        ));
    }
    steps.push(format!(
        "cancelcheck run --dialect {d} --behavior {b} --swarm   # many more requests, sampled"
    ));
    steps
}

/// The `explore` flags that search what `s` lets the explorer do (it reads a chance or a
/// latency only as "may happen" or "never").
fn same_search(s: &Scenario) -> Vec<String> {
    let w = &s.workload;
    let mut flags: Vec<String> = [
        "--dialect",
        s.dialect.id(),
        "--behavior",
        s.behaviour.name(),
        "--requests",
    ]
    .map(String::from)
    .to_vec();
    flags.push(w.requests.to_string());
    flags.extend(["--workers".to_string(), w.workers.to_string()]);
    flags.extend([
        "--transport".to_string(),
        transport_name(s.link.order).to_string(),
    ]);
    for (on, flag) in [
        (w.timeout.is_some(), "--timeouts"),
        (w.init_timeout.is_some(), "--init-timeout"),
        (w.repeat_cancel_permille > 0, "--repeat-cancel"),
        (s.link.loss_permille > 0, "--loss"),
        (w.progress_permille > 0, "--progress"),
        (s.link.duplicate_permille > 0, "--duplicate"),
        (w.ids.reuse_answered, "--reuse-ids"),
        (w.internal_cancel_permille > 0, "--internal-cancel"),
        (w.malformed_cancel_permille > 0, "--malformed-cancel"),
        (w.task_permille > 0, "--tasks"),
    ] {
        if on {
            flags.push(flag.to_string());
        }
    }
    if w.server_requests > 0 {
        flags.extend([
            "--server-requests".to_string(),
            w.server_requests.to_string(),
        ]);
    }
    if !w.nesting.is_flat() {
        flags.extend([
            "--nesting".to_string(),
            super::adjust::nesting_flag(w.nesting),
        ]);
    }
    flags
}

impl ExploreReport {
    /// `warn (only SHOULDs or notes broken)`: the verdict's word and what it means.
    fn verdict_words(&self) -> String {
        format!("{} ({})", self.status.as_str(), self.status.meaning())
    }
}

impl fmt::Display for ExploreReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on = |b: bool, name: &str| {
            if b {
                name.to_string()
            } else {
                format!("no {name}")
            }
        };
        let o = &self.options;
        if let Some(part) = &self.part {
            writeln!(f, "{part}")?;
        }
        if !self.merged_from.is_empty() {
            writeln!(
                f,
                "cancelcheck merge: {} of one search ({}), combined into the whole search's certificate",
                plural(self.merged_from.len() as u64, "shard", "shards"),
                self.merged_from.join(", ")
            )?;
        }
        writeln!(
            f,
            "cancelcheck explore: {}, behavior {}, {}{}, {} transport, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}; {}, {}",
            self.dialect,
            self.behavior,
            plural(u64::from(self.requests), "request", "requests"),
            match self.server_requests {
                0 => String::new(),
                n => format!(" + {n} from the server"),
            },
            self.transport,
            plural(u64::from(self.workers), "worker", "workers"),
            on(self.timeouts, "timeouts"),
            on(o.init_timeout, "init timeout"),
            on(o.progress, "progress"),
            on(self.loss, "loss"),
            on(self.duplicate, "duplication"),
            on(o.repeat_cancel, "repeat cancel"),
            on(o.reuse_ids, "id reuse"),
            on(o.internal_cancel, "internal cancel"),
            on(o.malformed_cancel, "malformed cancel"),
            self.search,
            match o.max_depth {
                Some(d) => format!("depth at most {d}, at most {} states", o.max_states),
                None => format!("at most {} states", o.max_states),
            },
        )?;
        writeln!(
            f,
            "unique states: {}   total states: {}   depth: {}   peak held: {}{}   {:.3} s   {} states/s ({})",
            self.unique_states,
            self.total_states,
            self.max_depth,
            self.peak_states_held,
            self.peak_rss_bytes.map_or(String::new(), |b| format!(
                " ({} MiB resident at most)",
                b >> 20
            )),
            self.seconds,
            self.states_per_sec,
            plural(self.threads as u64, "thread", "threads")
        )?;
        writeln!(
            f,
            "memory: held {} MiB at most ({} bytes a state visited), of a budget of {} MiB ({})",
            self.peak_bytes_held.div_ceil(1 << 20),
            self.bytes_per_state,
            self.max_memory_bytes >> 20,
            self.max_memory_from
        )?;
        writeln!(
            f,
            "reductions: symmetry {}, partial order {}",
            if self.symmetry { "on" } else { "off" },
            match self.ample_sets {
                Some(sets) => format!(
                    "on ({sets} sets; {} states expanded through fewer steps than enabled)",
                    self.reduced_states
                ),
                None => "off".to_string(),
            }
        )?;
        if self.bounded_by_memory {
            writeln!(
                f,
                "bounded by memory: the search stopped before holding more than {} MiB; raise it with --max-memory",
                self.max_memory_bytes >> 20
            )?;
        }
        races_lines(
            f,
            &self.races_reached,
            &self.races_unreached,
            "no schedule of this configuration reaches them",
        )?;
        let steps = self.counterexample_steps.unwrap_or(0);
        match &self.counterexample {
            Some(path) => {
                // The search looks again for a shortest path where its reductions or
                // depth-first order may have found a longer one; it says when it found none.
                let which = if self.counterexample_shortest == Some(true) {
                    "a shortest counterexample"
                } else {
                    "a counterexample (no shorter path to the same invariant was found; --no-por for a shortest one)"
                };
                writeln!(
                    f,
                    "verdict: {}: {} in {which} of {}",
                    self.verdict_words(),
                    self.violations.join(", "),
                    plural(steps as u64, "step", "steps")
                )?;
                writeln!(
                    f,
                    "counterexample: {path}\nreplay with: cancelcheck replay {path}"
                )?;
            }
            None if !self.violations.is_empty() => writeln!(
                f,
                "verdict: {}: {} in a counterexample of {}\ncounterexample NOT SAVED: {}",
                self.verdict_words(),
                self.violations.join(", "),
                plural(steps as u64, "step", "steps"),
                self.save_error.as_deref().unwrap_or("")
            )?,
            None if self.status == Status::Pass => writeln!(
                f,
                "verdict: {}, exhaustive: every reachable state of this configuration was checked",
                self.verdict_words()
            )?,
            None => {
                writeln!(f, "verdict: {}", self.verdict_words())?;
                for why in &self.vacuous_because {
                    writeln!(f, "  {why}")?;
                }
            }
        }
        if self.violations.is_empty() {
            let what = match self.bounded_by {
                None => "every schedule".to_string(),
                Some(by) => format!("only the schedules within the {by} bound"),
            };
            writeln!(
                f,
                "covered: {what} of {} on {} link ({} deep at most); nothing beyond these bounds",
                plural(u64::from(self.requests), "request", "requests"),
                match self.transport {
                    "http" => "an http".to_string(),
                    t => format!("a {t}"),
                },
                plural(u64::from(self.max_depth), "step", "steps"),
            )?;
        }
        if !self.next_steps.is_empty() {
            writeln!(f, "next:")?;
            for step in &self.next_steps {
                writeln!(f, "  {step}")?;
            }
        }
        Ok(())
    }
}

/// The scenario the flags (or `--scenario`'s file) give, with the dialect and behavior named.
pub(super) fn explore_scenario(
    args: &ExploreArgs,
    dialect: Option<Dialect>,
    behavior: Option<Behaviour>,
) -> anyhow::Result<Scenario> {
    let mut s = match &args.scenario {
        Some(file) => explorable_file(file, args.max_input_bytes)?,
        None => {
            let mut s = Scenario::default_for(Dialect::DEFAULT);
            s.workload.timeout = None;
            s.workload.init_timeout = None;
            s.workload.progress_permille = 0;
            s
        }
    };
    apply_names(&mut s, dialect, behavior);
    if args.scenario.is_none() {
        if !(1..=16).contains(&args.requests) {
            return Err(bad(format!(
                "--requests {}: expected 1 to 16",
                args.requests
            )));
        }
        let order = args.transport.order();
        let mut spec = cancelcheck_sim::explorer::ExploreSpec::new(
            s.dialect,
            s.behaviour,
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
        spec.tasks = args.tasks;
        if let Some(n) = args.nesting {
            spec.nesting = n;
        }
        s = spec.scenario();
    }
    validate(&s)?;
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

/// What stopped a bounded search: `memory`, `states` or `depth` (`None` if exhaustive).
fn bounded_by(report: &SearchReport, max_states: u64) -> Option<&'static str> {
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

/// Reads `DEPTHxFANOUT` (each from 0 to 3, depth at least 1).
pub(crate) fn parse_nesting(text: &str) -> Result<cancelcheck_sim::scenario::Nesting, String> {
    let bad = || {
        format!(
            "{text:?}: expected DEPTHxFANOUT, e.g. 2x2 (depth from 1 to 3, fan-out from 0 to 3)"
        )
    };
    let (d, f) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let depth: u8 = d.trim().parse().map_err(|_| bad())?;
    let fanout: u8 = f.trim().parse().map_err(|_| bad())?;
    let max = cancelcheck_sim::scenario::Nesting::MAX;
    if !(1..=max).contains(&depth) || fanout > max {
        return Err(bad());
    }
    Ok(cancelcheck_sim::scenario::Nesting { depth, fanout })
}
