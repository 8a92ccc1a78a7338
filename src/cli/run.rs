//! `cancelcheck run`: a scenario over many seeds.

use super::names::{BEHAVIOR, DIALECT};
use super::summary::Ran;
use super::{ExitCode, adjust, bad, emit, plural, races_lines, save_error};
use cancelcheck::trace_file;
use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::Status;
use cancelcheck_sim::coverage::Fix;
use cancelcheck_sim::runner::Summary;
use cancelcheck_sim::runner::applicable_races;
use cancelcheck_sim::scenario::SwarmMix;
use cancelcheck_sim::{Scenario, SeedPlan, Trace, run_plan, run_seed};
use serde::Serialize;
use std::fmt;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// `run`'s flags.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Protocol dialect (default: acp, or the scenario file's).
    #[arg(long, value_parser = DIALECT)]
    dialect: Option<Dialect>,
    /// Behavior under test (see `cancelcheck behaviors`; default: honour, or the scenario
    /// file's).
    #[arg(long, value_parser = BEHAVIOR)]
    behavior: Option<Behaviour>,
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
    /// A JSON scenario (the shape of a trace's `config`; `cancelcheck scenario` prints the
    /// default one, every field filled in).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Swarm mode: each seed draws its own fault mix.
    #[arg(long)]
    swarm: bool,
    /// Request trees, `DEPTHxFANOUT` (e.g. `3x2`): each request a party works on above level
    /// DEPTH makes it send FANOUT requests on its behalf, in the other direction (not ABP);
    /// sets `workload.nesting`.
    #[arg(long, value_parser = super::explore::parse_nesting)]
    nesting: Option<cancelcheck_sim::scenario::Nesting>,
    /// Requests the client sends (sets `workload.requests`).
    #[arg(long)]
    requests: Option<u16>,
    /// Server workers: requests worked on at once, the rest wait (sets `workload.workers`).
    #[arg(long)]
    workers: Option<u16>,
    /// Requests the server sends to the client (sets `workload.server_requests`; 0 in ABP).
    #[arg(long)]
    server_requests: Option<u16>,
    /// Delivery order (sets `link.order`).
    #[arg(long, value_enum)]
    transport: Option<super::explore::Transport>,
    /// Any field of the scenario, `FIELD=VALUE` with FIELD a dotted path and VALUE JSON or a
    /// bare word (`--set workload.cancel_permille=900 --set link.order=reordering`); applied
    /// last, in order.
    #[arg(long, value_name = "FIELD=VALUE")]
    set: Vec<String>,
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

/// The `format` of `run --json`'s output: each run's, or shard's, summary says what it is, so
/// that `cancelcheck merge` can combine shards.
pub const FORMAT: &str = "cancelcheck-run";

/// The version of that format.
pub const VERSION: u32 = 1;

/// A trace saved for an invariant broken.
#[derive(Serialize)]
pub struct SavedTrace {
    pub seed: u64,
    pub invariant: &'static str,
    pub trace: String,
    pub swarm: Option<SwarmMix>,
    /// An identical file was already there.
    #[serde(skip)]
    pub existed: bool,
}

/// A trace that could not be saved.
#[derive(Serialize)]
pub struct Unsaved {
    pub seed: u64,
    pub invariant: &'static str,
    pub error: String,
}

/// A failing seed listed, and what it broke.
#[derive(Serialize)]
struct Listed {
    seed: u64,
    invariants: Vec<&'static str>,
}

/// Which shard of the seeds ran: `index` of `count` (0 of 1 for all of them).
#[derive(Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// How many seeds broke one invariant, and the first of them.
#[derive(Serialize)]
struct ByInvariant {
    invariant: &'static str,
    /// Its strength in the run's dialect: `MUST`, `SHOULD` or `NOTE`.
    strength: &'static str,
    seeds: u64,
    first_seed: u64,
}

/// What a run did and found: printed as JSON with `--json`, as text otherwise.
#[derive(Serialize)]
pub struct RunReport {
    /// [`FORMAT`].
    format: &'static str,
    /// [`VERSION`].
    version: u32,
    dialect: &'static str,
    behavior: &'static str,
    faulty: bool,
    seeds: u64,
    seed_range: String,
    events: u64,
    seconds: f64,
    events_per_sec: u64,
    violations: Vec<SavedTrace>,
    failing_seeds: u64,
    violations_by_invariant: serde_json::Map<String, serde_json::Value>,
    races_reached: Vec<&'static str>,
    races_unreached: Vec<&'static str>,
    truncated_runs: u64,
    verdict: &'static str,
    vacuous_because: Vec<String>,
    unsaved: Vec<Unsaved>,
    /// The settings that decide what the run could reach.
    ran: Ran,
    /// The scenario run, every field filled in (the file `--scenario` takes).
    scenario: Scenario,
    title: &'static str,
    jobs: usize,
    shard: Shard,
    /// With `--stop-first` the run stopped early: its counts are not whole.
    stop_first: bool,
    /// The failing seeds listed (the first 10,000 and the first of each invariant), in seed
    /// order.
    failures: Vec<Listed>,
    /// The flags that chose the scenario and the seeds, as (flag, value) pairs (value empty
    /// for a switch): what `next_steps` builds on.
    flags: Vec<(String, String)>,
    /// The shard files a `merge` combined (empty for a run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    merged_from: Vec<String>,
    max_events: u64,
    first_failures: Vec<ByInvariant>,
    /// What to do next: commands to replay and draw a failure, or to look further after a
    /// pass; after a vacuous one, first the command with the options that remove its reasons.
    next_steps: Vec<String>,
    /// Where the built-in scenario was changed so that the behaviour's fault can act: how and
    /// why (absent when it was not, or when a scenario file was given).
    adjusted: Option<String>,
    /// The exit code the verdict gives.
    #[serde(skip)]
    exit: u8,
}

/// `run`.
pub fn cmd(args: RunArgs) -> anyhow::Result<ExitCode> {
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
    // One trace per violated invariant: the first seed that broke it.
    let mut saved: Vec<SavedTrace> = Vec::new();
    // Traces that could not be saved: the summary still goes out, and the exit code says so.
    let mut unsaved: Vec<Unsaved> = Vec::new();
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
                Ok(s) => saved.push(SavedTrace {
                    seed: f.seed,
                    invariant: inv.name(),
                    trace: s.path.display().to_string(),
                    swarm: trace.mix,
                    existed: s.existed,
                }),
                Err(e) => unsaved.push(Unsaved {
                    seed: f.seed,
                    invariant: inv.name(),
                    error: save_error(&args.save, &e),
                }),
            }
        }
    }
    let adjusted = args
        .scenario
        .is_none()
        .then(|| Scenario::built_in_adjustment(scenario.dialect, scenario.behaviour))
        .flatten()
        .map(|(why, fix)| adjustment_line(fix, why, &scenario));
    let flags = given_flags(&args, &scenario, &seeds);
    let report = report(Made {
        scenario,
        seeds,
        shard: Shard {
            index: shard.0,
            count: shard.1,
        },
        summary,
        saved,
        unsaved,
        secs,
        jobs,
        stop_first: args.stop_first,
        flags,
        adjusted,
        merged_from: Vec::new(),
    });
    Ok(finish(&report, args.json, &args.save.display().to_string()))
}

/// What a run's report is made from: a run's own results, or its shards' merged.
pub struct Made {
    pub scenario: Scenario,
    pub seeds: std::ops::Range<u64>,
    pub shard: Shard,
    pub summary: Summary,
    pub saved: Vec<SavedTrace>,
    pub unsaved: Vec<Unsaved>,
    pub secs: f64,
    pub jobs: usize,
    pub stop_first: bool,
    pub flags: Vec<(String, String)>,
    pub adjusted: Option<String>,
    pub merged_from: Vec<String>,
}

/// A run's report, verdict and all, from what it ran and found.
pub fn report(m: Made) -> RunReport {
    let Made {
        scenario,
        seeds,
        shard,
        summary,
        saved,
        unsaved,
        secs,
        jobs,
        stop_first,
        flags,
        adjusted,
        merged_from,
    } = m;
    let faulty = cancelcheck_properties::breaks::is_fault(scenario.behaviour, scenario.dialect);
    let events_per_sec = if secs > 0.0 {
        (summary.events as f64 / secs).round() as u64
    } else {
        0
    };
    let applicable = applicable_races(&scenario);
    let races_unreached: Vec<&'static str> = applicable
        .iter()
        .filter(|r| !summary.reached.contains(*r))
        .map(|r| r.name())
        .collect();
    let (status, vacuous) = summary.verdict(&scenario);
    let first_failures: Vec<ByInvariant> = summary
        .by_invariant
        .iter()
        .map(|(inv, n)| ByInvariant {
            invariant: inv.name(),
            strength: inv
                .info()
                .application(scenario.dialect)
                .map_or("", |a| a.strength.as_str()),
            seeds: *n,
            first_seed: summary
                .failures
                .iter()
                .find(|f| f.invariants.contains(inv))
                .map_or(0, |f| f.seed),
        })
        .collect();
    let fixes: Vec<Fix> = vacuous.iter().map(|v| v.fix).collect();
    let next_steps = next_steps(&flags, &scenario, &seeds, &saved, &races_unreached, &fixes);
    let vacuous: Vec<String> = vacuous.into_iter().map(|v| v.why).collect();
    RunReport {
        format: FORMAT,
        version: VERSION,
        dialect: scenario.dialect.id(),
        behavior: scenario.behaviour.name(),
        faulty,
        seeds: summary.seeds,
        seed_range: format!("{}..{}", seeds.start, seeds.end),
        events: summary.events,
        seconds: secs,
        events_per_sec,
        violations: saved,
        failing_seeds: summary.failing_seeds,
        violations_by_invariant: summary
            .by_invariant
            .iter()
            .map(|(i, n)| (i.name().to_string(), serde_json::json!(n)))
            .collect(),
        races_reached: summary.reached.iter().map(|r| r.name()).collect(),
        races_unreached,
        truncated_runs: summary.truncated,
        verdict: status.as_str(),
        vacuous_because: vacuous,
        unsaved,
        ran: Ran::of(&scenario),
        title: scenario.dialect.rules().title,
        jobs,
        shard,
        stop_first,
        failures: summary
            .failures
            .iter()
            .map(|f| Listed {
                seed: f.seed,
                invariants: f.invariants.iter().map(|i| i.name()).collect(),
            })
            .collect(),
        flags,
        merged_from,
        max_events: scenario.max_events,
        first_failures,
        next_steps,
        adjusted,
        scenario,
        exit: status.exit_code(),
    }
}

/// Prints `report` and says the exit code: the verdict's, or 3 when a trace of a violation
/// could not be saved (under `save`).
pub fn finish(report: &RunReport, json: bool, save: &str) -> ExitCode {
    emit(report, json);
    if !report.unsaved.is_empty() {
        eprintln!(
            "cancelcheck: {} could not be saved under {save} (exit 3: violations found, evidence not saved)",
            plural(report.unsaved.len() as u64, "trace", "traces"),
        );
        return ExitCode(3);
    }
    ExitCode(report.exit)
}

/// After a failure: how to replay and draw the first trace saved. After a vacuous run: first
/// the same command with the options that remove its reasons. After a run that broke nothing:
/// how to look further (the races not reached, other orders and faults, every schedule).
fn next_steps(
    given: &[(String, String)],
    s: &Scenario,
    seeds: &std::ops::Range<u64>,
    saved: &[SavedTrace],
    unreached: &[&str],
    fixes: &[Fix],
) -> Vec<String> {
    if let Some(t) = saved.first() {
        let f = &t.trace;
        let html = std::path::Path::new(f).with_extension("html");
        return vec![
            format!("cancelcheck replay {f}"),
            format!("cancelcheck replay {f} --format mermaid"),
            format!("cancelcheck replay {f} --format html > {}", html.display()),
        ];
    }
    let (d, b) = (s.dialect.id(), s.behaviour.name());
    let mut steps = Vec::new();
    if !fixes.is_empty() {
        let mut flags = given.to_vec();
        for fix in fixes {
            for (flag, value) in adjust::run_flags(*fix, seeds) {
                let field = |v: &str| v.split('=').next().unwrap_or_default().to_string();
                match flags
                    .iter_mut()
                    .find(|(f, v)| *f == flag && (flag != "--set" || field(v) == field(&value)))
                {
                    Some(slot) => slot.1 = value,
                    None => flags.push((flag, value)),
                }
            }
        }
        let line: Vec<String> = flags
            .into_iter()
            .map(|(f, v)| if v.is_empty() { f } else { format!("{f} {v}") })
            .collect();
        steps.push(format!(
            "cancelcheck run {}   # the same run, changed so that what `vacuous:` names can happen",
            line.join(" ")
        ));
    }
    let scenario = given
        .iter()
        .find(|(f, _)| f == "--scenario")
        .map_or(String::new(), |(_, file)| format!(" --scenario {file}"));
    if !s.swarm {
        steps.push(format!(
            "cancelcheck run{scenario} --dialect {d} --behavior {b} --swarm --seeds {}..{}   # vary order, loss, duplication, disconnects per seed",
            seeds.start,
            seeds.end.saturating_mul(10).max(seeds.start + 1)
        ));
    }
    if !unreached.is_empty() {
        steps.push(format!(
            "races not reached ({}): see `vacuous:` above for what reaches each",
            unreached.join(", ")
        ));
    }
    steps.push(format!(
        "cancelcheck explore --dialect {d} --behavior {b} --requests 2 --transport reordering --timeouts   # every schedule, not a sample"
    ));
    steps
}

/// The flags of the command that ran, as (flag, value) pairs (value empty for a switch).
fn given_flags(
    args: &RunArgs,
    s: &Scenario,
    seeds: &std::ops::Range<u64>,
) -> Vec<(String, String)> {
    let mut flags: Vec<(String, String)> = Vec::new();
    let mut push = |f: &str, v: String| flags.push((f.to_string(), v));
    if let Some(file) = &args.scenario {
        push("--scenario", file.display().to_string());
    }
    push("--dialect", s.dialect.id().to_string());
    push("--behavior", s.behaviour.name().to_string());
    push("--seeds", format!("{}..{}", seeds.start, seeds.end));
    if args.swarm {
        push("--swarm", String::new());
    }
    if let Some(n) = args.nesting {
        push("--nesting", adjust::nesting_flag(n));
    }
    for (flag, v) in [
        ("--requests", args.requests),
        ("--workers", args.workers),
        ("--server-requests", args.server_requests),
    ] {
        if let Some(v) = v {
            push(flag, v.to_string());
        }
    }
    if args.transport.is_some() {
        push(
            "--transport",
            super::transport_name(s.link.order).to_string(),
        );
    }
    for set in &args.set {
        push("--set", set.clone());
    }
    flags
}

/// What the built-in scenario changed for the behaviour under test, for the first line.
pub fn adjustment_line(fix: Fix, why: &str, s: &Scenario) -> String {
    let what = match fix {
        Fix::Nesting(n) => format!("request trees {}", adjust::nesting_flag(n)),
        Fix::ServerRequests(n) => format!("{n} requests from the server"),
        Fix::Tasks => format!("task-augmented requests ({}‰)", s.workload.task_permille),
        Fix::Http if s.link.disconnect_permille > 0 => format!(
            "Streamable HTTP, its connection dropping in {}‰ of the runs",
            s.link.disconnect_permille
        ),
        Fix::Http => "Streamable HTTP".to_string(),
        _ => format!("{fix:?}"),
    };
    format!(
        "the built-in {} scenario with {what} so that {} can act: {why}",
        s.dialect, s.behaviour
    )
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.faulty { "faulty" } else { "correct" };
        let shard = if self.shard.count > 1 {
            format!(" shard {}/{}", self.shard.index, self.shard.count)
        } else if !self.merged_from.is_empty() {
            format!(
                " (merged from {})",
                plural(self.merged_from.len() as u64, "shard", "shards")
            )
        } else {
            String::new()
        };
        writeln!(
            f,
            "cancelcheck run: {} ({}), behavior {} ({kind}), seeds {}{shard}, {}; {}{} (every field: cancelcheck scenario --dialect {} --behavior {})",
            self.dialect,
            self.title,
            self.behavior,
            self.seed_range,
            plural(self.jobs as u64, "job", "jobs"),
            self.ran,
            self.adjusted
                .as_ref()
                .map_or(String::new(), |a| format!("; {a}")),
            self.dialect,
            self.behavior,
        )?;
        writeln!(
            f,
            "seeds run: {}   events: {}   {} events/s   {:.2} s",
            self.seeds, self.events, self.events_per_sec, self.seconds
        )?;
        if self.failing_seeds == 0 {
            writeln!(f, "violations: none")?;
        } else {
            writeln!(
                f,
                "violations: {}",
                plural(self.failing_seeds, "failing seed", "failing seeds")
            )?;
            for b in &self.first_failures {
                writeln!(
                    f,
                    "  {:<44} {:>6} (first: seed {})",
                    format!("{} ({})", b.invariant, b.strength),
                    plural(b.seeds, "seed", "seeds"),
                    b.first_seed
                )?;
            }
            for s in &self.violations {
                let note = if s.existed { " (already saved)" } else { "" };
                writeln!(
                    f,
                    "  trace for {} (seed {}): {}{note}",
                    s.invariant, s.seed, s.trace
                )?;
            }
            for u in &self.unsaved {
                writeln!(
                    f,
                    "  trace for {} (seed {}): NOT SAVED: {}",
                    u.invariant, u.seed, u.error
                )?;
            }
            if let Some(s) = self.violations.first()
                && let Some(mix) = &s.swarm
            {
                writeln!(f, "  swarm mix of seed {}: {mix}", s.seed)?;
            }
        }
        races_lines(
            f,
            &self.races_reached,
            &self.races_unreached,
            "a pass that never reached a race proves nothing about it",
        )?;
        if self.verdict == Status::Vacuous.as_str() {
            for why in &self.vacuous_because {
                writeln!(f, "vacuous: {why}")?;
            }
        }
        if self.truncated_runs > 0 {
            writeln!(
                f,
                "{} cut short by max_events ({}): their eventual properties went unchecked",
                plural(self.truncated_runs, "run was", "runs were"),
                self.max_events
            )?;
        }
        writeln!(f, "verdict: {}", self.verdict)?;
        if self.failing_seeds == 0 {
            writeln!(
                f,
                "covered: {} of {} requests each{}, up to {} events a run; only what these seeds drew was checked, not every schedule",
                plural(self.seeds, "seed", "seeds"),
                self.ran.requests,
                match self.ran.server_requests {
                    0 => String::new(),
                    n => format!(" and {n} from the server"),
                },
                self.max_events
            )?;
        }
        if let Some(s) = self.violations.first() {
            writeln!(f, "replay with: cancelcheck replay {}", s.trace)?;
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

/// `--dialect` and `--behavior`, over a scenario's own.
pub fn apply_names(s: &mut Scenario, dialect: Option<Dialect>, behavior: Option<Behaviour>) {
    if let Some(d) = dialect {
        s.dialect = d;
    }
    if let Some(b) = behavior {
        s.behaviour = b;
    }
}

/// A scenario's check, failing as a usage error that names the flag where a flag set it.
pub fn validate(s: &Scenario) -> anyhow::Result<()> {
    s.validate().map_err(|e| {
        let what = match e.field.as_str() {
            "behavior" => format!(
                "--behavior {}: not in {}; expected {}",
                s.behaviour, s.dialect, e.expected
            ),
            _ => e.to_string(),
        };
        bad(what)
    })
}

fn scenario_from(args: &RunArgs) -> anyhow::Result<Scenario> {
    let mut s = match &args.scenario {
        Some(file) => trace_file::read_scenario_within(file, args.max_input_bytes)?,
        // The built-in scenario of the dialect and behaviour asked for: the dialect's request
        // trees, and what the behaviour's fault needs to act.
        None => Scenario::built_in(
            args.dialect.unwrap_or(Dialect::DEFAULT),
            args.behavior.unwrap_or(Behaviour::Honour),
        ),
    };
    apply_names(&mut s, args.dialect, args.behavior);
    if args.swarm {
        s.swarm = true;
    }
    if let Some(n) = args.nesting {
        s.workload.nesting = n;
    }
    if let Some(n) = args.requests {
        s.workload.requests = n;
    }
    if let Some(n) = args.workers {
        s.workload.workers = n;
    }
    if let Some(n) = args.server_requests {
        s.workload.server_requests = n;
    }
    match args.transport {
        Some(super::explore::Transport::Http) => s.use_http(),
        Some(t) => s.link.order = t.order(),
        None => {}
    }
    adjust::apply_sets(&mut s, &args.set)?;
    validate(&s)?;
    Ok(s)
}

pub fn parse_seeds(s: &str) -> anyhow::Result<std::ops::Range<u64>> {
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
