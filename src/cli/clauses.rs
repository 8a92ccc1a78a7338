//! `cancelcheck clauses`: every normative sentence of the texts, per dialect, with its
//! strength and what becomes of it: judged by which invariants (with the vectors that show
//! each both ways), exercised by races only, not judgeable (and why), not modelled (and what
//! would model it), not an obligation, or superseded. The traceability matrix from the texts
//! to the checker; `properties/src/clauses.rs` holds it, and its test places every sentence.
//!
//! `--json` prints one document:
//!
//! ```text
//! {"format": "cancelcheck-clauses", "version": 1,
//!  "dialects": [{"dialect", "title", "summary": COUNTS, "clauses": [
//!    {"file", "quote", "strength": "MUST" | "SHOULD" | "MAY" | "-",
//!     "status": "judged" | "exercised" | "not-judgeable" | "not-modelled"
//!               | "not-an-obligation" | "superseded",
//!     "judged_both_ways": bool, "source": "catalog" | "table",
//!     "invariants": [{"name", "strength", "cites": {"file", "quote"}}],
//!     "vectors": {"breaks", "honours", "reaches", "misses"}: [vector names],
//!     "why": null | text, "superseded_by": null | {"file", "quote"}}]}],
//!  "summary": COUNTS}
//! ```
//!
//! COUNTS is `{"clauses", "judged", "judged_both_ways", "exercised", "not_judgeable",
//! "not_modelled", "not_an_obligation", "superseded"}`.

use super::names::DIALECT;
use super::{ExitCode, emit};
use cancelcheck_model::Dialect;
use cancelcheck_properties::VectorFile;
use cancelcheck_properties::clauses::{self, Clause, Counts};
use cancelcheck_properties::invariant::files;
use serde::Serialize;
use std::fmt;

/// The `format` field of the document.
pub const FORMAT: &str = "cancelcheck-clauses";
/// The `version` field: raised when a field changes meaning or goes away.
pub const VERSION: u32 = 1;

/// `clauses`' flags.
#[derive(clap::Args)]
pub struct ClausesArgs {
    /// Only this dialect's clauses (default: every dialect).
    #[arg(long, value_parser = DIALECT)]
    dialect: Option<Dialect>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report {
    format: &'static str,
    version: u32,
    dialects: Vec<DialectClauses>,
    summary: Summary,
}

#[derive(Serialize)]
struct DialectClauses {
    dialect: &'static str,
    title: &'static str,
    summary: Summary,
    clauses: Vec<ClauseRow>,
}

#[derive(Serialize)]
struct ClauseRow {
    file: &'static str,
    quote: String,
    strength: &'static str,
    status: &'static str,
    judged_both_ways: bool,
    source: &'static str,
    invariants: Vec<InvariantRef>,
    vectors: Vectors,
    why: Option<&'static str>,
    superseded_by: Option<Quote>,
}

#[derive(Serialize)]
struct InvariantRef {
    name: &'static str,
    strength: &'static str,
    cites: Quote,
}

#[derive(Serialize)]
struct Quote {
    file: &'static str,
    quote: &'static str,
}

#[derive(Serialize, Default)]
struct Vectors {
    breaks: Vec<String>,
    honours: Vec<String>,
    reaches: Vec<String>,
    misses: Vec<String>,
}

#[derive(Serialize)]
struct Summary {
    clauses: usize,
    judged: usize,
    judged_both_ways: usize,
    exercised: usize,
    not_judgeable: usize,
    not_modelled: usize,
    not_an_obligation: usize,
    superseded: usize,
}

impl From<Counts> for Summary {
    fn from(c: Counts) -> Summary {
        Summary {
            clauses: c.clauses,
            judged: c.judged,
            judged_both_ways: c.judged_both_ways,
            exercised: c.exercised,
            not_judgeable: c.not_judgeable,
            not_modelled: c.not_modelled,
            not_an_obligation: c.not_an_obligation,
            superseded: c.superseded,
        }
    }
}

fn row(c: &Clause) -> ClauseRow {
    let mut vectors = Vectors::default();
    for j in &c.judges {
        vectors.breaks.extend(j.breaks.iter().cloned());
        vectors.honours.extend(j.honours.iter().cloned());
        vectors.reaches.extend(j.reaches.iter().cloned());
        vectors.misses.extend(j.misses.iter().cloned());
    }
    ClauseRow {
        file: c.file,
        quote: c.quote.clone(),
        strength: c.strength.as_str(),
        status: c.state.as_str(),
        judged_both_ways: c.judged_both_ways(),
        source: if c.in_catalog { "catalog" } else { "table" },
        invariants: c
            .judges
            .iter()
            .map(|j| InvariantRef {
                name: j.invariant.name(),
                strength: j.strength.as_str(),
                cites: Quote {
                    file: j.cites.0,
                    quote: j.cites.1,
                },
            })
            .collect(),
        vectors,
        why: c.why,
        superseded_by: c.superseded_by.map(|quote| Quote {
            file: files::README,
            quote,
        }),
    }
}

fn report(dialect: Option<Dialect>) -> anyhow::Result<Report> {
    let vectors = VectorFile::shipped()?;
    let mut all = Vec::new();
    let mut dialects = Vec::new();
    for d in Dialect::ALL
        .into_iter()
        .filter(|d| dialect.is_none_or(|x| x == *d))
    {
        let list = clauses::clauses(d, &vectors);
        dialects.push(DialectClauses {
            dialect: d.id(),
            title: d.rules().title,
            summary: Counts::of(&list).into(),
            clauses: list.iter().map(row).collect(),
        });
        all.extend(list);
    }
    Ok(Report {
        format: FORMAT,
        version: VERSION,
        dialects,
        summary: Counts::of(&all).into(),
    })
}

/// `clauses`.
pub fn cmd(args: ClausesArgs) -> anyhow::Result<ExitCode> {
    emit(&report(args.dialect)?, args.json);
    Ok(ExitCode::SUCCESS)
}

/// `text` cut to `n` characters, with `…` where it was cut.
fn clipped(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(n - 1).collect();
        s.push('…');
        s
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let share = (self.judged_both_ways * 100 + self.clauses / 2)
            .checked_div(self.clauses)
            .unwrap_or(0);
        write!(
            f,
            "{} clauses: {} judged ({} both ways: {share}% of all), {} exercised by races only, \
             {} not judgeable, {} not modelled, {} not an obligation, {} superseded",
            self.clauses,
            self.judged,
            self.judged_both_ways,
            self.exercised,
            self.not_judgeable,
            self.not_modelled,
            self.not_an_obligation,
            self.superseded
        )
    }
}

impl fmt::Display for ClauseRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = if self.judged_both_ways {
            "judged both ways".to_string()
        } else {
            self.status.to_string()
        };
        writeln!(
            f,
            "  {:<6} {:<17} {}: \"{}\"",
            self.strength,
            status,
            self.file,
            clipped(&self.quote, 90)
        )?;
        let pad = " ".repeat(27);
        if !self.invariants.is_empty() {
            let names: Vec<String> = self
                .invariants
                .iter()
                .map(|i| format!("{} ({})", i.name, i.strength))
                .collect();
            let v = &self.vectors;
            let shown = if v.breaks.is_empty() && v.honours.is_empty() {
                format!("{} reaching, {} missing", v.reaches.len(), v.misses.len())
            } else {
                format!("{} breaking, {} honouring", v.breaks.len(), v.honours.len())
            };
            writeln!(f, "{pad}by {}; vectors: {shown}", names.join(", "))?;
        }
        if let Some(s) = &self.superseded_by {
            writeln!(f, "{pad}superseded by {}: \"{}\"", s.file, s.quote)?;
        }
        if let Some(why) = self.why {
            writeln!(f, "{pad}why: {why}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.dialects {
            writeln!(f, "{}  ({}): {}", d.dialect, d.title, d.summary)?;
            for c in &d.clauses {
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        let of = match self.dialects.as_slice() {
            [one] => one.dialect.to_string(),
            many => format!("{} dialects", many.len()),
        };
        writeln!(f, "summary ({of}): {}", self.summary)?;
        writeln!(
            f,
            "(a clause is a normative sentence, or the part of one the catalog quotes; \
             docs/clauses.md says what each status means)"
        )
    }
}
