//! `cancelcheck merge`: the shards of a run (`run --shard I/N --json`, one file each) combined
//! into the summary the whole run prints: the same counts, first failures and verdict, made by
//! the same functions (`Summary::merge`, `Summary::verdict`, the run's report). The shards of
//! an `explore` sweep are merged by [`super::sweep::merge`].

use super::run::{self, Made, SavedTrace, Shard, Unsaved};
use super::{ExitCode, bad};
use cancelcheck::trace_file::{self, InputError};
use cancelcheck_properties::{InvariantId, PropertySet};
use cancelcheck_sim::Scenario;
use cancelcheck_sim::runner::{Failure, SeedPlan, Summary};
use cancelcheck_sim::scenario::SwarmMix;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `merge`'s flags.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' outputs (`cancelcheck run --shard I/N --json > FILE`, `cancelcheck explore
    /// --shard I/N --json > FILE` of one search, or `cancelcheck explore --dialect all --shard
    /// I/N --json > FILE`), one per shard, in any order.
    #[arg(required = true, value_name = "SHARD.json")]
    files: Vec<PathBuf>,
    /// Machine-readable summary on stdout.
    #[arg(long)]
    json: bool,
    /// The largest input file read, in bytes (default 16 MiB); larger files are refused.
    #[arg(long, default_value_t = trace_file::DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: u64,
}

/// The fields of a shard's output that a merge reads.
#[derive(Deserialize)]
struct ShardDoc {
    version: u32,
    scenario: Scenario,
    seed_range: String,
    shard: Shard,
    stop_first: bool,
    seeds: u64,
    events: u64,
    seconds: f64,
    jobs: usize,
    failing_seeds: u64,
    violations_by_invariant: BTreeMap<String, u64>,
    failures: Vec<ListedDoc>,
    races_reached: Vec<String>,
    truncated_runs: u64,
    violations: Vec<SavedDoc>,
    unsaved: Vec<UnsavedDoc>,
    flags: Vec<(String, String)>,
    adjusted: Option<String>,
}

#[derive(Deserialize)]
struct ListedDoc {
    seed: u64,
    invariants: Vec<String>,
}

#[derive(Deserialize)]
struct SavedDoc {
    seed: u64,
    invariant: String,
    trace: String,
    swarm: Option<SwarmMix>,
}

#[derive(Deserialize)]
struct UnsavedDoc {
    seed: u64,
    invariant: String,
    error: String,
}

/// One shard read: its file, its document and its summary.
struct Read {
    file: PathBuf,
    doc: ShardDoc,
    summary: Summary,
}

pub(super) fn field_error(file: &Path, field: &str, expected: impl Into<String>) -> anyhow::Error {
    InputError {
        file: file.to_path_buf(),
        field: field.to_string(),
        expected: expected.into(),
    }
    .into()
}

/// A shard file's JSON, refused unless its `format` is `format` (as `first`'s, the first file
/// given; `what` says which command writes it) and its `version` is `version`.
pub(super) fn shard_json(
    file: &Path,
    first: &Path,
    (format, version, what): (&str, u32, &str),
    max_bytes: u64,
) -> anyhow::Result<serde_json::Value> {
    let text = trace_file::read_text(file, max_bytes)?;
    let value = trace_file::parse_json(file, &text)?;
    if value.get("format").and_then(|f| f.as_str()) != Some(format) {
        return Err(field_error(
            file,
            "format",
            format!(
                "expected \"{format}\" as in {}: every file merged must be {what}",
                first.display()
            ),
        ));
    }
    let found = value.get("version").and_then(|v| v.as_u64());
    if found != Some(u64::from(version)) {
        let found = found.map_or("none".to_string(), |v| v.to_string());
        return Err(field_error(
            file,
            "version",
            format!("expected {version} (this cancelcheck's), found {found}"),
        ));
    }
    Ok(value)
}

/// Refuses a shard whose `fields` (name, whether it equals the first shard's) differ from
/// those of `first`, the first file given: the shards of one `what` share them.
pub(super) fn same_as_first(
    file: &Path,
    first: &Path,
    fields: &[(&str, bool)],
    what: &str,
) -> anyhow::Result<()> {
    match fields.iter().find(|(_, same)| !same) {
        Some((field, _)) => Err(field_error(
            file,
            field,
            format!(
                "differs from {}'s: the shards of one {what} share it",
                first.display()
            ),
        )),
        None => Ok(()),
    }
}

/// Which file was given for each shard of a split into `count`: a shard out of range, given
/// twice or missing is refused.
pub(super) struct Slots<'a> {
    count: u64,
    files: Vec<Option<&'a Path>>,
}

impl<'a> Slots<'a> {
    /// No shard given yet, of `count`.
    pub(super) fn new(count: u64) -> Self {
        let n = usize::try_from(count).unwrap_or(0);
        Slots {
            count,
            files: vec![None; n],
        }
    }

    /// Records `file` as shard `index`.
    pub(super) fn take(&mut self, file: &'a Path, index: u64) -> anyhow::Result<()> {
        let count = self.count;
        let slot = usize::try_from(index)
            .ok()
            .and_then(|i| self.files.get_mut(i))
            .ok_or_else(|| {
                field_error(
                    file,
                    "shard.index",
                    format!("expected below shard.count ({count}), found {index}"),
                )
            })?;
        if let Some(other) = slot {
            return Err(field_error(
                file,
                "shard.index",
                format!(
                    "shard {index}/{count} again: {} is that shard too",
                    other.display()
                ),
            ));
        }
        *slot = Some(file);
        Ok(())
    }

    /// Refuses when some shard has no file, naming the files given.
    pub(super) fn all_given(&self) -> anyhow::Result<()> {
        let count = self.count;
        let missing: Vec<String> = (self.files.iter().enumerate())
            .filter(|(_, f)| f.is_none())
            .map(|(i, _)| format!("{i}/{count}"))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let given: Vec<String> = (self.files.iter().enumerate())
            .filter_map(|(i, f)| f.map(|f| format!("{} is {i}/{count}", f.display())))
            .collect();
        Err(bad(format!(
            "shard {} missing: no file given has that `shard.index` ({}); pass one output per shard",
            missing.join(", "),
            given.join(", ")
        )))
    }
}

/// An invariant's name, or an error naming the field that holds it.
pub(super) fn invariant(file: &Path, field: &str, name: &str) -> anyhow::Result<InvariantId> {
    InvariantId::from_name(name).ok_or_else(|| {
        field_error(
            file,
            field,
            format!(
                "unknown invariant {:?}; expected one that `cancelcheck properties` lists",
                trace_file::clip(name)
            ),
        )
    })
}

/// Reads one shard's output, refusing a file that is not one.
fn read(file: &Path, max_bytes: u64) -> anyhow::Result<Read> {
    let text = trace_file::read_text(file, max_bytes)?;
    let value = trace_file::parse_json(file, &text)?;
    if value.get("format").and_then(|f| f.as_str()) != Some(run::FORMAT) {
        return Err(field_error(
            file,
            "format",
            format!(
                "expected \"{}\": not a shard (the output of `cancelcheck run --shard I/N --json`)",
                run::FORMAT
            ),
        ));
    }
    let doc: ShardDoc = trace_file::typed_ref(file, "", &value)?;
    if doc.version != run::VERSION {
        return Err(field_error(
            file,
            "version",
            format!(
                "expected {} (this cancelcheck's), found {}",
                run::VERSION,
                doc.version
            ),
        ));
    }
    trace_file::validated(file, "scenario", doc.scenario.clone())?;
    if doc.stop_first {
        return Err(field_error(
            file,
            "stop_first",
            "expected false: a shard run with --stop-first stopped early and its counts are not whole",
        ));
    }
    // Counts no run can give are refused, not summed.
    check_seconds(file, "seconds", doc.seconds)?;
    for (field, n) in [
        ("failing_seeds", doc.failing_seeds),
        ("truncated_runs", doc.truncated_runs),
    ] {
        if n > doc.seeds {
            return Err(field_error(
                file,
                field,
                format!(
                    "expected at most the seeds the shard ran ({}), found {n}",
                    doc.seeds
                ),
            ));
        }
    }
    if doc.failures.len() as u64 > doc.failing_seeds {
        return Err(field_error(
            file,
            "failures",
            format!(
                "expected at most failing_seeds ({}) entries, found {}",
                doc.failing_seeds,
                doc.failures.len()
            ),
        ));
    }
    check_threads(file, "jobs", doc.jobs)?;
    let mut failures = Vec::with_capacity(doc.failures.len());
    for (n, f) in doc.failures.iter().enumerate() {
        let mut invariants = Vec::with_capacity(f.invariants.len());
        for (k, name) in f.invariants.iter().enumerate() {
            invariants.push(invariant(
                file,
                &format!("failures[{n}].invariants[{k}]"),
                name,
            )?);
        }
        failures.push(Failure {
            seed: f.seed,
            invariants,
        });
    }
    let mut by_invariant = Vec::new();
    for (name, n) in &doc.violations_by_invariant {
        by_invariant.push((
            invariant(file, &format!("violations_by_invariant.{name}"), name)?,
            *n,
        ));
    }
    let mut reached = PropertySet::default();
    for (n, name) in doc.races_reached.iter().enumerate() {
        reached.insert(invariant(file, &format!("races_reached[{n}]"), name)?);
    }
    let summary = Summary {
        seeds: doc.seeds,
        events: doc.events,
        failures,
        failing_seeds: doc.failing_seeds,
        by_invariant,
        reached,
        truncated: doc.truncated_runs,
    };
    Ok(Read {
        file: file.to_path_buf(),
        doc,
        summary,
    })
}

/// The longest a shard can have run: about 31 years.
const MAX_SECONDS: f64 = 1e9;

/// The most worker threads a shard can have run with.
const MAX_JOBS: usize = 1 << 16;

/// A shard's run time as a shard can give it: finite, from 0 to [`MAX_SECONDS`].
pub(super) fn check_seconds(file: &Path, field: &str, secs: f64) -> anyhow::Result<()> {
    if secs.is_finite() && (0.0..=MAX_SECONDS).contains(&secs) {
        return Ok(());
    }
    Err(field_error(
        file,
        field,
        format!("expected a run time, from 0 to {MAX_SECONDS} seconds, found {secs}"),
    ))
}

/// A shard's worker threads as a shard can give them: from 1 to [`MAX_JOBS`].
pub(super) fn check_threads(file: &Path, field: &str, n: usize) -> anyhow::Result<()> {
    if (1..=MAX_JOBS).contains(&n) {
        return Ok(());
    }
    Err(field_error(
        file,
        field,
        format!("expected from 1 to {MAX_JOBS}, found {n}"),
    ))
}

/// `sum` and a shard's count `n` of `field`, refused where the total passes 2^64 - 1 (no
/// run's count).
pub(super) fn add_count(file: &Path, field: &str, sum: u64, n: u64) -> anyhow::Result<u64> {
    sum.checked_add(n).ok_or_else(|| {
        field_error(
            file,
            field,
            format!("found {n}, which with the other shards' passes 2^64 - 1: not a run's count"),
        )
    })
}

/// `merge`.
pub fn cmd(args: MergeArgs) -> anyhow::Result<ExitCode> {
    if super::sweep::is_sweep(&args.files[0], args.max_input_bytes)? {
        return super::sweep::merge(&args.files, args.json, args.max_input_bytes);
    }
    if super::explore_shard::is_part(&args.files[0], args.max_input_bytes)? {
        return super::explore_shard::merge(&args.files, args.json, args.max_input_bytes);
    }
    let mut shards = Vec::with_capacity(args.files.len());
    for file in &args.files {
        shards.push(read(file, args.max_input_bytes)?);
    }
    let first = &shards[0];
    let count = first.doc.shard.count;
    let seeds = run::parse_seeds(&first.doc.seed_range)
        .map_err(|e| field_error(&first.file, "seed_range", e.to_string()))?;
    let mut slots = Slots::new(count);
    for s in &shards {
        same_as_first(
            &s.file,
            &first.file,
            &[
                ("scenario", s.doc.scenario == first.doc.scenario),
                ("seed_range", s.doc.seed_range == first.doc.seed_range),
                ("shard.count", s.doc.shard.count == count),
            ],
            "run",
        )?;
        let index = s.doc.shard.index;
        slots.take(&s.file, index)?;
        let plan = SeedPlan {
            seeds: seeds.clone(),
            shard: (index, count),
            jobs: 1,
        };
        if s.doc.seeds != plan.len() {
            return Err(field_error(
                &s.file,
                "seeds",
                format!(
                    "expected {} (every seed of shard {index}/{count} of {}), found {}",
                    plan.len(),
                    s.doc.seed_range,
                    s.doc.seeds
                ),
            ));
        }
    }
    slots.all_given()?;
    // Sums that cannot be: a count past what 64 bits hold is no run's.
    let mut events: u64 = 0;
    for s in &shards {
        events = add_count(&s.file, "events", events, s.doc.events)?;
    }

    let mut summary = Summary::default();
    let (mut secs, mut jobs) = (0.0, 0);
    for s in &shards {
        summary.merge(s.summary.clone());
        secs += s.doc.seconds;
        jobs += s.doc.jobs;
    }
    // The traces the whole run would save (the first seed to break each invariant), as the
    // shard that ran that seed saved them.
    let (mut saved, mut unsaved) = (Vec::new(), Vec::new());
    let mut seen: Vec<InvariantId> = Vec::new();
    for f in &summary.failures {
        for inv in &f.invariants {
            if seen.contains(inv) {
                continue;
            }
            seen.push(*inv);
            let name = inv.name();
            let found = shards.iter().find_map(|s| {
                s.doc
                    .violations
                    .iter()
                    .find(|v| v.seed == f.seed && v.invariant == name)
            });
            let failed = shards.iter().find_map(|s| {
                s.doc
                    .unsaved
                    .iter()
                    .find(|u| u.seed == f.seed && u.invariant == name)
            });
            match (found, failed) {
                (Some(v), _) => {
                    // One seed that broke two invariants is one trace, listed for each.
                    let existed = saved.iter().any(|s: &SavedTrace| s.trace == v.trace);
                    saved.push(SavedTrace {
                        seed: v.seed,
                        invariant: name,
                        trace: v.trace.clone(),
                        swarm: v.swarm,
                        existed,
                    })
                }
                (None, Some(u)) => unsaved.push(Unsaved {
                    seed: u.seed,
                    invariant: name,
                    error: u.error.clone(),
                }),
                (None, None) => unsaved.push(Unsaved {
                    seed: f.seed,
                    invariant: name,
                    error: "no shard's output names a trace for it".to_string(),
                }),
            }
        }
    }
    let first = &shards[0];
    let report = run::report(Made {
        scenario: first.doc.scenario.clone(),
        seeds,
        shard: Shard { index: 0, count: 1 },
        summary,
        saved,
        unsaved,
        secs,
        jobs,
        stop_first: false,
        flags: first.doc.flags.clone(),
        adjusted: first.doc.adjusted.clone(),
        merged_from: args.files.iter().map(|f| f.display().to_string()).collect(),
    });
    Ok(run::finish(&report, args.json, "the shards' --save"))
}
