//! `explore --dialect all` and `--behavior all`: a sweep, one search per dialect and behavior
//! that applies to it, in a fixed order. `--shard I/N` runs the searches whose position is I
//! modulo N; `cancelcheck merge` combines the shards' `--json` outputs into the sweep's own
//! (the same searches, counts, findings and verdict: each search is whole in one shard).

use super::explore::{ExploreArgs, ExploreReport, Setup, explore_scenario, search_one};
use super::merge::{Slots, field_error, same_as_first, shard_json};
use super::names::Pick;
use super::{ExitCode, bad, emit, plural};
use cancelcheck::trace_file;
use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::breaks::{self, Classification};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The `format` of a sweep's `--json` output (a shard's or a merge's).
pub const FORMAT: &str = "cancelcheck-explore-sweep";
/// The version of that format.
pub const VERSION: u32 = 1;

/// What became of one search, measured against what the behavior claims.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// A correct behavior: every reachable state checked, nothing broken.
    Pass,
    /// A correct behavior, nothing broken, but the search proves less than it seems (bounded,
    /// or a race it needs was never reached).
    Vacuous,
    /// A fault, flagged by an invariant it claims to break.
    Caught,
    /// A fault no schedule of this configuration flagged (it needs another one).
    NotCaught,
    /// A correct behavior flagged, or a fault flagged only by invariants it does not claim to
    /// break: the model and its claims disagree.
    Unexpected,
    /// The configuration does not apply to this dialect (the reason is given).
    Skipped,
}

impl Outcome {
    fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Vacuous => "vacuous",
            Outcome::Caught => "caught",
            Outcome::NotCaught => "not caught",
            Outcome::Unexpected => "UNEXPECTED",
            Outcome::Skipped => "skipped",
        }
    }
}

/// One search of the sweep.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Cell {
    /// Its position in the whole sweep (its shard is `index % count`).
    pub index: usize,
    /// The dialect searched.
    pub dialect: String,
    /// The behavior searched.
    pub behavior: String,
    /// Whether the behavior is a fault in this dialect.
    pub faulty: bool,
    /// The invariants the fault claims to break here (empty for a correct behavior).
    pub claims: Vec<String>,
    /// What came of it.
    pub outcome: Outcome,
    /// Why, where the outcome needs a reason (vacuous, not caught, unexpected, skipped).
    pub because: Option<String>,
    /// The invariants the search's finding broke.
    pub violations: Vec<String>,
    /// The counterexample saved, if any.
    pub counterexample: Option<String>,
    /// Why the counterexample found could not be saved, if it could not.
    pub save_error: Option<String>,
    /// States the search found, as its certificate counts them.
    pub unique_states: u64,
    /// States it generated.
    pub total_states: u64,
    /// Seconds the search took.
    pub seconds: f64,
    /// The search's whole certificate (`explore --json`'s output for it); `null` when skipped.
    pub certificate: Option<serde_json::Value>,
}

/// Which shard of the sweep ran: `index` of `count` (0 of 1 for all of it).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shard {
    /// This shard's number, from 0.
    pub index: usize,
    /// How many shards the sweep was split into.
    pub count: usize,
}

/// A sweep's output: the searches it ran (all, one shard's, or the shards' merged) and what
/// they add up to.
#[derive(Serialize, Deserialize, Debug)]
pub struct Sweep {
    format: String,
    version: u32,
    /// The flags that chose every search (the same in every shard of one sweep).
    configuration: Vec<String>,
    /// Searches in the whole sweep.
    searches: usize,
    shard: Shard,
    cells: Vec<Cell>,
    totals: Totals,
    /// `as expected`, or `unexpected` (a correct behavior flagged, or a fault flagged only by
    /// invariants it does not claim).
    verdict: String,
    /// The shard files a merge combined (empty for a sweep that ran).
    merged_from: Vec<String>,
}

/// The cells added up.
#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
struct Totals {
    pass: usize,
    vacuous: usize,
    caught: usize,
    not_caught: usize,
    unexpected: usize,
    skipped: usize,
    unique_states: u64,
    total_states: u64,
    seconds: f64,
    /// Counterexamples that could not be saved.
    unsaved: usize,
}

/// The searches of a sweep, in order: every dialect picked, and in each every behavior picked
/// that applies to it. A dialect or behavior not given is the scenario file's, or `acp` and
/// `honour`.
fn plan(a: &ExploreArgs) -> anyhow::Result<Vec<(Dialect, Behaviour)>> {
    let base = match &a.scenario {
        Some(_) => {
            let s = explore_scenario(a, None, None)?;
            (s.dialect, s.behaviour)
        }
        None => (Dialect::DEFAULT, Behaviour::Honour),
    };
    let dialects: Vec<Dialect> = match a.dialect {
        Some(Pick::All) => Dialect::ALL.to_vec(),
        Some(Pick::One(d)) => vec![d],
        None => vec![base.0],
    };
    let mut cells = Vec::new();
    for d in dialects {
        match a.behavior {
            Some(Pick::All) => {
                cells.extend(Behaviour::all().filter(|b| b.applies_to(d)).map(|b| (d, b)))
            }
            Some(Pick::One(b)) => cells.push((d, b)),
            None => cells.push((d, base.1)),
        }
    }
    Ok(cells)
}

/// The flags that decide what each search of the sweep reaches, as given (machine-local
/// settings such as `--threads`, `--max-memory` and `--save` left out).
pub(super) fn configuration(a: &ExploreArgs) -> Vec<String> {
    let pick = |p: Option<String>| p.unwrap_or_else(|| "default".into());
    let mut f = vec![
        format!(
            "--dialect {}",
            pick(
                a.dialect
                    .map(|p| p.one().map_or("all".into(), |d| d.id().to_string()))
            )
        ),
        format!(
            "--behavior {}",
            pick(
                a.behavior
                    .map(|p| p.one().map_or("all".into(), |b| b.name().to_string()))
            )
        ),
        format!("--requests {}", a.requests),
        format!("--transport {}", super::transport_name(a.transport.order())),
    ];
    for (on, flag) in [
        (a.timeouts, "--timeouts"),
        (a.init_timeout, "--init-timeout"),
        (a.repeat_cancel, "--repeat-cancel"),
        (a.loss, "--loss"),
        (a.progress, "--progress"),
        (a.duplicate, "--duplicate"),
        (a.reuse_ids, "--reuse-ids"),
        (a.internal_cancel, "--internal-cancel"),
        (a.malformed_cancel, "--malformed-cancel"),
        (a.tasks, "--tasks"),
        (a.no_por, "--no-por"),
        (a.no_symmetry, "--no-symmetry"),
        (a.dfs, "--dfs"),
    ] {
        if on {
            f.push(flag.into());
        }
    }
    if a.server_requests > 0 {
        f.push(format!("--server-requests {}", a.server_requests));
    }
    if let Some(n) = a.nesting {
        f.push(format!("--nesting {}", super::adjust::nesting_flag(n)));
    }
    if let Some(w) = a.workers {
        f.push(format!("--workers {w}"));
    }
    if let Some(d) = a.max_depth {
        f.push(format!("--max-depth {d}"));
    }
    f.push(format!("--max-states {}", a.max_states));
    if let Some(s) = &a.scenario {
        f.push(format!("--scenario {}", s.display()));
    }
    f
}

/// `--shard I/N`, or a usage error.
fn parse_shard(s: &str, searches: usize) -> anyhow::Result<Shard> {
    let (index, count) = i_of_n(s).ok_or_else(|| {
        bad(format!(
            "--shard {s:?}: expected I/N with I < N, e.g. 0/4 (this sweep has {})",
            plural(searches as u64, "search", "searches")
        ))
    })?;
    Ok(Shard { index, count })
}

/// `I/N` with `I < N`.
pub(super) fn i_of_n<T: std::str::FromStr + PartialOrd>(s: &str) -> Option<(T, T)> {
    let (i, n) = s.split_once('/')?;
    let (index, count): (T, T) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
    (index < count).then_some((index, count))
}

/// How one search came out, against what its behavior claims.
fn judge(
    d: Dialect,
    b: Behaviour,
    nesting: bool,
    http: bool,
    out: &ExploreReport,
) -> (bool, Vec<String>, Outcome, Option<String>) {
    let class = breaks::classify(b, d);
    let faulty = class.is_some_and(Classification::faulty);
    let mut claims: Vec<String> = class
        .map(|c| c.breaks.iter().map(|i| i.name().to_string()).collect())
        .unwrap_or_default();
    if nesting {
        claims.extend(
            breaks::also_with_trees(b, d)
                .iter()
                .map(|i| i.name().to_string()),
        );
    }
    if http {
        claims.extend(
            breaks::also_on_http(b, d)
                .iter()
                .map(|i| i.name().to_string()),
        );
    }
    let broken = &out.violations;
    let (outcome, because) = if broken.is_empty() {
        let why = (!out.vacuous_because.is_empty()).then(|| out.vacuous_because.join("; "));
        match (faulty, out.status) {
            (false, cancelcheck_properties::Status::Pass) => (Outcome::Pass, None),
            (false, _) => (Outcome::Vacuous, why),
            (true, _) => (
                Outcome::NotCaught,
                Some(why.unwrap_or_else(|| {
                    format!(
                        "no schedule of this configuration breaks what it claims ({})",
                        claims.join(", ")
                    )
                })),
            ),
        }
    } else if !faulty {
        (
            Outcome::Unexpected,
            Some(format!("a correct behavior broke {}", broken.join(", "))),
        )
    } else if broken.iter().any(|v| claims.iter().any(|c| c == v)) {
        (Outcome::Caught, None)
    } else {
        (
            Outcome::Unexpected,
            Some(format!(
                "flagged by {}, which it does not claim to break (it claims {})",
                broken.join(", "),
                claims.join(", ")
            )),
        )
    };
    (faulty, claims, outcome, because)
}

/// `explore --dialect all` or `--behavior all`.
pub fn cmd(args: ExploreArgs) -> anyhow::Result<ExitCode> {
    let all = plan(&args)?;
    let shard = match &args.shard {
        Some(s) => parse_shard(s, all.len())?,
        None => Shard { index: 0, count: 1 },
    };
    let setup = Setup::new(&args)?;
    let mine: Vec<(usize, (Dialect, Behaviour))> = all
        .iter()
        .copied()
        .enumerate()
        .filter(|(i, _)| i % shard.count == shard.index)
        .collect();
    let mut cells = Vec::with_capacity(mine.len());
    let mut first_error = None;
    for (n, (index, (d, b))) in mine.iter().copied().enumerate() {
        let head = format!(
            "explore sweep: [{}/{}] {} {}",
            n + 1,
            mine.len(),
            d.id(),
            b.name()
        );
        let cell = match explore_scenario(&args, Some(d), Some(b)) {
            Err(e) => {
                let why = e.to_string();
                first_error.get_or_insert(why.clone());
                Cell {
                    index,
                    dialect: d.id().into(),
                    behavior: b.name().into(),
                    faulty: breaks::is_fault(b, d),
                    claims: Vec::new(),
                    outcome: Outcome::Skipped,
                    because: Some(why),
                    violations: Vec::new(),
                    counterexample: None,
                    save_error: None,
                    unique_states: 0,
                    total_states: 0,
                    seconds: 0.0,
                    certificate: None,
                }
            }
            Ok(scenario) => {
                let started = Instant::now();
                let mut out = search_one(&args, &scenario, &setup, &|_, _, _| {});
                let seconds = started.elapsed().as_secs_f64();
                // The process's high-water mark spans every search before this one.
                out.peak_rss_bytes = None;
                let (faulty, claims, outcome, because) = judge(
                    d,
                    b,
                    !scenario.workload.nesting.is_flat(),
                    scenario.link.order == cancelcheck_sim::link::Order::Http,
                    &out,
                );
                Cell {
                    index,
                    dialect: d.id().into(),
                    behavior: b.name().into(),
                    faulty,
                    claims,
                    outcome,
                    because,
                    violations: out.violations.iter().map(|s| s.to_string()).collect(),
                    counterexample: out.counterexample.clone(),
                    save_error: out.save_error.clone(),
                    unique_states: out.unique_states,
                    total_states: out.total_states,
                    seconds,
                    certificate: Some(serde_json::to_value(&out)?),
                }
            }
        };
        eprintln!(
            "{head}: {}{} ({} states, {:.1} s)",
            cell.outcome.word(),
            if cell.violations.is_empty() {
                String::new()
            } else {
                format!(" by {}", cell.violations.join(", "))
            },
            cell.unique_states,
            cell.seconds
        );
        cells.push(cell);
    }
    if !cells.is_empty() && cells.iter().all(|c| c.outcome == Outcome::Skipped) {
        return Err(bad(format!(
            "no search of this sweep applies: {}",
            first_error.unwrap_or_default()
        )));
    }
    let sweep = Sweep::new(configuration(&args), all.len(), shard, cells, Vec::new());
    Ok(finish(&sweep, args.json))
}

/// Prints a sweep and gives its exit code: 0 as expected, 1 unexpected, 3 (unexpected) or 4
/// (as expected) when a counterexample could not be saved.
fn finish(sweep: &Sweep, json: bool) -> ExitCode {
    emit(sweep, json);
    let unexpected = sweep.totals.unexpected > 0;
    if sweep.totals.unsaved > 0 {
        eprintln!(
            "cancelcheck: {} could not be saved (exit {})",
            plural(
                sweep.totals.unsaved as u64,
                "counterexample",
                "counterexamples"
            ),
            if unexpected { 3 } else { 4 }
        );
        return ExitCode(if unexpected { 3 } else { 4 });
    }
    ExitCode(u8::from(unexpected))
}

impl Sweep {
    /// A sweep's output from its cells (in any order), its totals and verdict computed here
    /// for a sweep that ran and for a merge alike.
    fn new(
        configuration: Vec<String>,
        searches: usize,
        shard: Shard,
        mut cells: Vec<Cell>,
        merged_from: Vec<String>,
    ) -> Sweep {
        cells.sort_by_key(|c| c.index);
        let mut t = Totals::default();
        for c in &cells {
            *match c.outcome {
                Outcome::Pass => &mut t.pass,
                Outcome::Vacuous => &mut t.vacuous,
                Outcome::Caught => &mut t.caught,
                Outcome::NotCaught => &mut t.not_caught,
                Outcome::Unexpected => &mut t.unexpected,
                Outcome::Skipped => &mut t.skipped,
            } += 1;
            t.unique_states += c.unique_states;
            t.total_states += c.total_states;
            t.seconds += c.seconds;
            t.unsaved += usize::from(c.save_error.is_some());
        }
        let verdict = if t.unexpected > 0 {
            "unexpected"
        } else {
            "as expected"
        }
        .to_string();
        Sweep {
            format: FORMAT.into(),
            version: VERSION,
            configuration,
            searches,
            shard,
            cells,
            totals: t,
            verdict,
            merged_from,
        }
    }
}

impl fmt::Display for Sweep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = if self.shard.count > 1 {
            format!(
                ", shard {}/{}: {} of them",
                self.shard.index,
                self.shard.count,
                self.cells.len()
            )
        } else if !self.merged_from.is_empty() {
            format!(
                ", merged from {}",
                plural(self.merged_from.len() as u64, "shard", "shards")
            )
        } else {
            String::new()
        };
        writeln!(
            f,
            "cancelcheck explore sweep: {}{part}; {}",
            plural(self.searches as u64, "search", "searches"),
            self.configuration.join(" ")
        )?;
        writeln!(
            f,
            "{:<15} {:<28} {:<11} {:>12}  found",
            "dialect", "behavior", "outcome", "states"
        )?;
        for c in &self.cells {
            let found = match (&c.violations[..], &c.counterexample, &c.save_error) {
                ([], ..) => c.because.clone().unwrap_or_default(),
                (v, Some(path), _) => format!("{} in {path}", v.join(", ")),
                (v, None, Some(e)) => format!("{} (counterexample NOT SAVED: {e})", v.join(", ")),
                (v, None, None) => v.join(", "),
            };
            writeln!(
                f,
                "{:<15} {:<28} {:<11} {:>12}  {found}",
                c.dialect,
                c.behavior,
                c.outcome.word(),
                c.unique_states
            )?;
        }
        let t = &self.totals;
        writeln!(
            f,
            "totals: correct behaviors {} passed, {} vacuous; faults {} caught, {} not caught in this configuration; {} unexpected, {} skipped; {} unique states ({} generated) in {:.1} s",
            t.pass,
            t.vacuous,
            t.caught,
            t.not_caught,
            t.unexpected,
            t.skipped,
            t.unique_states,
            t.total_states,
            t.seconds
        )?;
        for c in self
            .cells
            .iter()
            .filter(|c| c.outcome == Outcome::Unexpected)
        {
            writeln!(
                f,
                "unexpected: {} {}: {}",
                c.dialect,
                c.behavior,
                c.because.as_deref().unwrap_or("")
            )?;
        }
        let meaning = if t.unexpected > 0 {
            "the model and a behavior's claims disagree: replay the counterexample named above"
        } else {
            "no correct behavior was flagged, and every fault flagged was flagged by an invariant it claims to break"
        };
        writeln!(f, "verdict: {} ({meaning})", self.verdict)?;
        if self.shard.count > 1 {
            writeln!(
                f,
                "next:\n  cancelcheck merge SHARD.json...   # every shard's --json output, to get the whole sweep's summary"
            )?;
        }
        Ok(())
    }
}

/// Whether a file is a sweep's output (by its `format`), for `merge` to pick its kind.
pub fn is_sweep(file: &Path, max_bytes: u64) -> anyhow::Result<bool> {
    let text = trace_file::read_text(file, max_bytes)?;
    let value = trace_file::parse_json(file, &text)?;
    Ok(value.get("format").and_then(|f| f.as_str()) == Some(FORMAT))
}

/// `merge` of a sweep's shards: the sweep's output, made as the whole sweep makes it.
pub fn merge(files: &[PathBuf], json: bool, max_bytes: u64) -> anyhow::Result<ExitCode> {
    let mut shards: Vec<(PathBuf, Sweep)> = Vec::with_capacity(files.len());
    let what = "a shard of one sweep (`cancelcheck explore --dialect all --shard I/N --json`)";
    for file in files {
        let value = shard_json(file, &files[0], (FORMAT, VERSION, what), max_bytes)?;
        let doc: Sweep = trace_file::typed_ref(file, "", &value)?;
        if !doc.merged_from.is_empty() {
            return Err(field_error(
                file,
                "merged_from",
                "expected []: this is a merge already; merge the shards it was made from",
            ));
        }
        shards.push((file.clone(), doc));
    }
    let (first_file, first) = &shards[0];
    let mut seen: Vec<Option<&Path>> = vec![None; first.searches];
    let mut slots = Slots::new(first.shard.count as u64);
    // Sums no sweep can give are refused, not wrapped.
    let (mut unique, mut total) = (0u64, 0u64);
    for (file, s) in &shards {
        same_as_first(
            file,
            first_file,
            &[
                ("configuration", s.configuration == first.configuration),
                ("searches", s.searches == first.searches),
                ("shard.count", s.shard.count == first.shard.count),
            ],
            "sweep",
        )?;
        let i = s.shard.index;
        slots.take(file, i as u64)?;
        for (n, c) in s.cells.iter().enumerate() {
            super::merge::check_seconds(file, &format!("cells[{n}].seconds"), c.seconds)?;
            unique = super::merge::add_count(
                file,
                &format!("cells[{n}].unique_states"),
                unique,
                c.unique_states,
            )?;
            total = super::merge::add_count(
                file,
                &format!("cells[{n}].total_states"),
                total,
                c.total_states,
            )?;
            let ok = c.index % s.shard.count == i;
            match seen.get_mut(c.index) {
                Some(slot @ None) if ok => *slot = Some(file),
                _ => {
                    return Err(field_error(
                        file,
                        &format!("cells[{n}].index"),
                        format!(
                            "expected a search of shard {i}/{} below {} not given before, found {}",
                            s.shard.count, s.searches, c.index
                        ),
                    ));
                }
            }
        }
    }
    slots.all_given()?;
    if let Some(i) = seen.iter().position(Option::is_none) {
        return Err(bad(format!(
            "search {i} of the sweep is in no shard given: a shard's output was cut short; run that shard again"
        )));
    }
    let configuration = first.configuration.clone();
    let searches = first.searches;
    let merged_from = files.iter().map(|f| f.display().to_string()).collect();
    let cells = shards.into_iter().flat_map(|(_, s)| s.cells).collect();
    let sweep = Sweep::new(
        configuration,
        searches,
        Shard { index: 0, count: 1 },
        cells,
        merged_from,
    );
    Ok(finish(&sweep, json))
}
