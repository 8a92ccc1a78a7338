//! One `explore` search split over its initial states (`explore --shard I/N`, a single
//! dialect and behavior) and merged back (`cancelcheck merge`): each shard searches the
//! initial states whose index is I modulo N and writes, with `--json`, what it is and what
//! [`combine`] needs; the merge makes the whole search's report out of the shards' and
//! certifies it with the code `explore` uses, saving the counterexample it picks.

use super::explore::{ExploreArgs, certify};
use super::memory::Budget;
use super::merge::{Slots, field_error, invariant, same_as_first, shard_json};
use super::{ExitCode, bad, emit, plural};
use cancelcheck::trace_file;
use cancelcheck_properties::PropertySet;
use cancelcheck_sim::Scenario;
use cancelcheck_sim::explorer::{
    Finding, Findings, Level, SearchReport, combine, initial_scenarios,
};
use clap::Parser;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The `format` of a shard's `--json` output.
pub(super) const FORMAT: &str = "cancelcheck-explore-shard";
/// Its `version`.
pub(super) const VERSION: u32 = 1;

/// Which shard of a search: `index` of `count`.
#[derive(Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct RootShard {
    pub(super) index: u32,
    pub(super) count: u32,
}

/// What a shard's `--json` output adds to the certificate: what it is and its raw search.
#[derive(Serialize, Deserialize)]
pub(super) struct Part {
    format: String,
    version: u32,
    shard: RootShard,
    /// The whole search's initial states.
    initial_states: u32,
    /// Those this shard searched (none is valid: a shard beyond them).
    initial_states_searched: Vec<u32>,
    /// The flags that decide what the search reaches (as a sweep lists them).
    configuration: Vec<String>,
    /// The scenario searched, every field filled in.
    scenario: Scenario,
    /// Where the shard saved its counterexample (the merge saves its own in shard 0's).
    save: PathBuf,
    /// The search's report as `merge` reads it.
    search_report: RawSearch,
}

/// A [`SearchReport`] written out.
#[derive(Serialize, Deserialize)]
struct RawSearch {
    unique_states: u64,
    total_states: u64,
    max_depth: u32,
    exhaustive: bool,
    reached: Vec<String>,
    reduced_states: u64,
    peak_states_held: u64,
    peak_bytes_held: u64,
    flat: bool,
    symmetry: bool,
    partial_order: bool,
    bounded_by_states: bool,
    bounded_by_memory: bool,
    levels: Vec<RawLevel>,
    found: RawFindings,
    /// The shortening search's depth bound and findings.
    shortening: Option<(u32, RawFindings)>,
}

#[derive(Serialize, Deserialize)]
struct RawLevel {
    unique: u64,
    total: u64,
    reduced: u64,
    reached: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct RawFindings {
    counterexample: Option<RawFinding>,
    warning: Option<RawFinding>,
}

#[derive(Serialize, Deserialize)]
struct RawFinding {
    schedule: Vec<u32>,
    broken: Vec<String>,
    level: u32,
}

/// `--shard I/N` of one search of `s`, or a usage error.
pub(super) fn parse(text: &str, s: &Scenario, dfs: bool) -> anyhow::Result<RootShard> {
    let roots = initial_scenarios(s).len();
    let (index, count) = super::sweep::i_of_n(text).ok_or_else(|| {
        bad(format!(
            "--shard {text:?}: expected I/N with I < N, e.g. 0/2 (this search has {}; a shard beyond them searches none)",
            plural(roots as u64, "initial state", "initial states")
        ))
    })?;
    if dfs {
        return Err(bad(format!(
            "--shard {text} with --dfs: a depth-first search stops at its first counterexample in its own order across initial states, which shards cannot reproduce; shard the breadth-first search (leave out --dfs)"
        )));
    }
    Ok(RootShard { index, count })
}

/// What shard `shard` of the search of `s` writes besides its certificate.
pub(super) fn part(args: &ExploreArgs, s: &Scenario, shard: RootShard, r: &SearchReport) -> Part {
    let roots = initial_scenarios(s).len() as u32;
    Part {
        format: FORMAT.into(),
        version: VERSION,
        shard,
        initial_states: roots,
        initial_states_searched: searched(shard, roots),
        configuration: super::sweep::configuration(args),
        scenario: s.clone(),
        save: args.save.clone(),
        search_report: RawSearch {
            unique_states: r.unique_states,
            total_states: r.total_states,
            max_depth: r.max_depth,
            exhaustive: r.exhaustive,
            reached: names(r.reached),
            reduced_states: r.reduced_states,
            peak_states_held: r.peak_states_held,
            peak_bytes_held: r.peak_bytes_held,
            flat: r.flat,
            symmetry: r.symmetry,
            partial_order: r.partial_order,
            bounded_by_states: r.bounded_by_states,
            bounded_by_memory: r.bounded_by_memory,
            levels: r
                .levels
                .iter()
                .map(|l| RawLevel {
                    unique: l.unique,
                    total: l.total,
                    reduced: l.reduced,
                    reached: names(l.reached),
                })
                .collect(),
            found: raw_findings(&r.found),
            shortening: r.shortening.as_ref().map(|(b, f)| (*b, raw_findings(f))),
        },
    }
}

/// The initial states of `roots` that `shard` searches.
fn searched(shard: RootShard, roots: u32) -> Vec<u32> {
    (0..roots)
        .filter(|i| i % shard.count == shard.index)
        .collect()
}

fn names(set: PropertySet) -> Vec<String> {
    set.iter().map(|i| i.name().to_string()).collect()
}

fn raw_findings(f: &Findings) -> RawFindings {
    let raw = |f: &Finding| RawFinding {
        schedule: f.schedule.clone(),
        broken: f.broken.iter().map(|i| i.name().to_string()).collect(),
        level: f.level,
    };
    RawFindings {
        counterexample: f.counterexample.as_ref().map(raw),
        warning: f.warning.as_ref().map(raw),
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (i, n, all) = (self.shard.index, self.shard.count, self.initial_states);
        let roots = &self.initial_states_searched;
        if roots.is_empty() {
            return write!(
                f,
                "shard {i}/{n} of one search of {all} initial states: none is this shard's, so it searches nothing (valid: merge it with the others)"
            );
        }
        let list: Vec<String> = roots.iter().map(u32::to_string).collect();
        write!(
            f,
            "shard {i}/{n} of one search: its initial states {} of {all}; the counts and verdict below are theirs (`cancelcheck merge` of every shard's --json gives the whole search's)",
            list.join(", ")
        )
    }
}

/// Whether a file is an `explore --shard` output of one search (by its `format`).
pub(super) fn is_part(file: &Path, max_bytes: u64) -> anyhow::Result<bool> {
    let text = trace_file::read_text(file, max_bytes)?;
    let value = trace_file::parse_json(file, &text)?;
    Ok(value.get("format").and_then(|f| f.as_str()) == Some(FORMAT))
}

/// The fields of a shard's output a merge reads besides its part.
#[derive(Deserialize)]
struct Doc {
    #[serde(flatten)]
    part: Part,
    seconds: f64,
    threads: usize,
    max_memory_bytes: u64,
}

/// The flags of the search again, as `explore` reads them (the certificate's next steps and
/// bounds read them).
#[derive(Parser)]
#[command(name = "explore", no_binary_name = true)]
struct Again {
    #[command(flatten)]
    args: ExploreArgs,
}

fn set(file: &Path, field: &str, names: &[String]) -> anyhow::Result<PropertySet> {
    let mut s = PropertySet::default();
    for (k, n) in names.iter().enumerate() {
        s.insert(invariant(file, &format!("{field}[{k}]"), n)?);
    }
    Ok(s)
}

/// A finding read back: its schedule must start at one of `roots` and be as long as its level
/// says.
fn finding(
    file: &Path,
    field: &str,
    raw: &Option<RawFinding>,
    roots: &[u32],
) -> anyhow::Result<Option<Finding>> {
    let Some(raw) = raw else { return Ok(None) };
    let len = raw.schedule.len() as u64;
    let level = u64::from(raw.level);
    if !(len == level + 1 || len == level + 2) || !roots.contains(&raw.schedule[0]) {
        return Err(field_error(
            file,
            &format!("{field}.schedule"),
            format!(
                "expected one of this shard's initial states ({roots:?}) then {} or {} steps (its level {} says so)",
                raw.level,
                level + 1,
                raw.level
            ),
        ));
    }
    let mut broken = Vec::with_capacity(raw.broken.len());
    for (k, n) in raw.broken.iter().enumerate() {
        broken.push(invariant(file, &format!("{field}.broken[{k}]"), n)?);
    }
    Ok(Some(Finding {
        schedule: raw.schedule.clone(),
        broken,
        level: raw.level,
    }))
}

fn findings(
    file: &Path,
    field: &str,
    raw: &RawFindings,
    roots: &[u32],
) -> anyhow::Result<Findings> {
    Ok(Findings {
        counterexample: finding(
            file,
            &format!("{field}.counterexample"),
            &raw.counterexample,
            roots,
        )?,
        warning: finding(file, &format!("{field}.warning"), &raw.warning, roots)?,
    })
}

/// The shard's search as [`combine`] takes it.
fn report(file: &Path, p: &Part) -> anyhow::Result<SearchReport> {
    let r = &p.search_report;
    let roots = &p.initial_states_searched;
    let mut levels = Vec::with_capacity(r.levels.len());
    for (n, l) in r.levels.iter().enumerate() {
        levels.push(Level {
            unique: l.unique,
            total: l.total,
            reduced: l.reduced,
            reached: set(
                file,
                &format!("search_report.levels[{n}].reached"),
                &l.reached,
            )?,
        });
    }
    let shortening = match &r.shortening {
        Some((b, f)) => Some((*b, findings(file, "search_report.shortening.1", f, roots)?)),
        None => None,
    };
    Ok(SearchReport {
        unique_states: r.unique_states,
        total_states: r.total_states,
        max_depth: r.max_depth,
        exhaustive: r.exhaustive,
        reached: set(file, "search_report.reached", &r.reached)?,
        peak_states_held: r.peak_states_held,
        symmetry: r.symmetry,
        partial_order: r.partial_order,
        reduced_states: r.reduced_states,
        flat: r.flat,
        bounded_by_memory: r.bounded_by_memory,
        bounded_by_states: r.bounded_by_states,
        peak_bytes_held: r.peak_bytes_held,
        levels,
        found: findings(file, "search_report.found", &r.found, roots)?,
        shortening,
        ..SearchReport::default()
    })
}

/// `merge` of the shards of one search: the whole search's certificate.
pub(super) fn merge(files: &[PathBuf], json: bool, max_bytes: u64) -> anyhow::Result<ExitCode> {
    let mut docs: Vec<(PathBuf, Doc)> = Vec::with_capacity(files.len());
    let what = "a shard of one search (`cancelcheck explore --shard I/N --json`)";
    for file in files {
        let value = shard_json(file, &files[0], (FORMAT, VERSION, what), max_bytes)?;
        let doc: Doc = trace_file::typed_ref(file, "", &value)?;
        trace_file::validated(file, "scenario", doc.part.scenario.clone())?;
        super::merge::check_seconds(file, "seconds", doc.seconds)?;
        super::merge::check_threads(file, "threads", doc.threads)?;
        docs.push((file.clone(), doc));
    }
    let (first_file, first) = (&docs[0].0, &docs[0].1.part);
    let count = first.shard.count;
    let mut slots = Slots::new(u64::from(count));
    for (file, d) in &docs {
        let p = &d.part;
        same_as_first(
            file,
            first_file,
            &[
                ("configuration", p.configuration == first.configuration),
                ("scenario", p.scenario == first.scenario),
                ("shard.count", p.shard.count == count),
                ("initial_states", p.initial_states == first.initial_states),
            ],
            "search",
        )?;
        let i = p.shard.index;
        slots.take(file, u64::from(i))?;
        let expected = searched(p.shard, p.initial_states);
        if p.initial_states_searched != expected {
            return Err(field_error(
                file,
                "initial_states_searched",
                format!(
                    "expected {expected:?} (shard {i}/{count} of {} initial states), found {:?}",
                    p.initial_states, p.initial_states_searched
                ),
            ));
        }
    }
    slots.all_given()?;
    let mut bytes = 0;
    for (file, d) in &docs {
        bytes = super::merge::add_count(file, "max_memory_bytes", bytes, d.max_memory_bytes)?;
    }
    // In shard order, so that an error names the shard.
    docs.sort_by_key(|(_, d)| d.part.shard.index);
    let mut parts = Vec::with_capacity(docs.len());
    for (file, d) in &docs {
        parts.push(report(file, &d.part)?);
    }
    let whole =
        combine(&parts).map_err(|(i, why)| field_error(&docs[i].0, "search_report", why))?;
    let first = &docs[0].1.part;
    let tokens = first
        .configuration
        .iter()
        .filter(|f| !f.ends_with(" default"))
        .flat_map(|f| match f.split_once(' ') {
            Some((flag, value)) => vec![flag.to_string(), value.to_string()],
            None => vec![f.clone()],
        })
        .chain(["--save".to_string(), first.save.display().to_string()]);
    let args = Again::try_parse_from(tokens)
        .map_err(|e| {
            field_error(
                &docs[0].0,
                "configuration",
                format!("flags `explore` takes: {e}"),
            )
        })?
        .args;
    let seconds = docs.iter().map(|(_, d)| d.seconds).sum();
    let threads = docs.iter().map(|(_, d)| d.threads).sum();
    let budget = Budget {
        bytes,
        from: "the shards' budgets added up".into(),
    };
    let mut out = certify(&args, &first.scenario, &whole, seconds, threads, &budget);
    out.merged_from = files.iter().map(|f| f.display().to_string()).collect();
    emit(&out, json);
    if let Some(why) = &out.save_error {
        eprintln!("cancelcheck: the counterexample could not be saved: {why} (exit 3)");
        return Ok(ExitCode(3));
    }
    Ok(ExitCode(out.status.exit_code()))
}
