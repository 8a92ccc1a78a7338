//! The catalog and the behavior table, exported for people and for other implementations.
//! Each is a list of rows that implements both `Serialize` (the `--json` output) and
//! `Display` (the text), so the two are made from the same values.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::{CATALOG, breaks};
use serde::Serialize;
use std::fmt;

/// One invariant of the catalog (`properties --json`): `id`, `dialects`, `strength` (the
/// strongest), `kind`, `clause` (of the first dialect), `statement`, `observable_on_wire`,
/// and `applies`, one [`Application`] per dialect.
#[derive(Serialize, Debug, Clone)]
pub struct PropertyRow {
    /// The stable id.
    pub id: &'static str,
    /// The dialects it applies to.
    pub dialects: Vec<&'static str>,
    /// The strongest strength among them.
    pub strength: &'static str,
    /// `always`, `eventually` or `sometimes`.
    pub kind: &'static str,
    /// The first dialect's clause as a user can look it up (see [`Application::cite`](cancelcheck_properties::invariant::Application::cite)).
    pub clause: String,
    /// What it requires.
    pub statement: &'static str,
    /// Whether a judge that sees only the wire can decide it, unless a dialect's application
    /// says otherwise.
    pub observable_on_wire: bool,
    /// Per dialect.
    pub applies: Vec<Application>,
}

/// How an invariant applies in one dialect.
#[derive(Serialize, Debug, Clone)]
pub struct Application {
    /// The dialect.
    pub dialect: &'static str,
    /// `MUST`, `SHOULD`, or `COVERAGE` for a race.
    pub strength: &'static str,
    /// The name of the text the quotation is checked against (the project's copy).
    pub file: &'static str,
    /// The upstream document's public address, where a user can read the clause.
    pub url: &'static str,
    /// The section of that document the clause stands in.
    pub section: &'static str,
    /// The quotation, word for word.
    pub clause: &'static str,
    /// Why, where the quotation alone does not say.
    pub note: Option<&'static str>,
    /// Whether a judge that sees only the wire can decide it in this dialect.
    pub observable_on_wire: bool,
}

/// The invariant catalog (`cancelcheck properties`).
#[derive(Serialize, Debug, Clone)]
#[serde(transparent)]
pub struct Properties(pub Vec<PropertyRow>);

/// The catalog's rows, in catalog order.
pub fn properties() -> Properties {
    Properties(
        CATALOG
            .iter()
            .map(|inv| {
                let applies: Vec<Application> = inv
                    .applies()
                    .iter()
                    .map(|a| Application {
                        dialect: a.dialect.id(),
                        strength: a.strength.as_str(),
                        file: a.clause.file,
                        url: a.source().map_or("", |s| s.url),
                        section: a.source().map_or("", |s| s.section),
                        clause: a.clause.clause,
                        note: a.note,
                        observable_on_wire: inv.observable_in(a.dialect),
                    })
                    .collect();
                let first = &inv.applies()[0];
                PropertyRow {
                    id: inv.name,
                    dialects: applies.iter().map(|a| a.dialect).collect(),
                    strength: inv.strength().as_str(),
                    kind: inv.kind.as_str(),
                    clause: first.cite(),
                    statement: inv.statement,
                    observable_on_wire: inv.observable_on_wire,
                    applies,
                }
            })
            .collect(),
    )
}

impl fmt::Display for Properties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            writeln!(
                f,
                "{}  [{} {}]\n    {}",
                p.id, p.strength, p.kind, p.statement
            )?;
            for a in &p.applies {
                writeln!(
                    f,
                    "    {:<15} {:<6} \"{}\"\n{:29}{} ({})",
                    a.dialect, a.strength, a.clause, "", a.url, a.section
                )?;
            }
        }
        Ok(())
    }
}

/// One behavior in one dialect where it exists (`behaviors --json`).
#[derive(Serialize, Debug, Clone)]
pub struct BehaviourRow {
    /// The dialect.
    pub dialect: &'static str,
    /// The behavior's name (`--behavior`).
    pub name: &'static str,
    /// Whether it is a fault in this dialect.
    pub faulty: bool,
    /// What a run earns once the fault acts: `pass`, `warn` where it breaks only SHOULDs or
    /// notes there, `fail` where it breaks a MUST.
    pub verdict: &'static str,
    /// The invariants it breaks here.
    pub breaks: Vec<&'static str>,
    /// What it breaks besides, here, once requests have nested requests (as in the built-in
    /// scenario of every dialect but ABP).
    pub also_with_trees: Vec<&'static str>,
    /// What it breaks besides, here, over Streamable HTTP (`--transport http`), where closing
    /// a request's stream is its cancel.
    pub also_on_http: Vec<&'static str>,
    /// `requester` or `responder`.
    pub role: &'static str,
    /// One sentence.
    pub summary: &'static str,
    /// The dialect's title, for the text.
    #[serde(skip)]
    title: &'static str,
}

/// The behavior table (`cancelcheck behaviors`).
#[derive(Serialize, Debug, Clone)]
#[serde(transparent)]
pub struct Behaviours(pub Vec<BehaviourRow>);

/// Every (dialect, behavior) that exists, dialect by dialect.
pub fn behaviours() -> Behaviours {
    let mut rows = Vec::new();
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let (Some(c), Some(status)) = (
                breaks::classify(b, d),
                cancelcheck_sim::coverage::expected_status(d, b),
            ) else {
                continue;
            };
            let verdict = status.as_str();
            let broken = breaks::breaks_in(b, d);
            rows.push(BehaviourRow {
                dialect: d.id(),
                name: b.name(),
                faulty: c.faulty(),
                verdict,
                breaks: broken.iter().map(|i| i.name()).collect(),
                also_with_trees: breaks::breaks_with_trees_in(b, d, true)
                    .iter()
                    .skip(broken.len())
                    .map(|i| i.name())
                    .collect(),
                also_on_http: breaks::also_on_http(b, d)
                    .iter()
                    .map(|i| i.name())
                    .collect(),
                role: match b.role() {
                    cancelcheck_model::behaviour::Role::Requester => "requester",
                    _ => "responder",
                },
                summary: b.info().summary,
                title: d.rules().title,
            });
        }
    }
    Behaviours(rows)
}

impl fmt::Display for Behaviours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut dialect = "";
        for r in &self.0 {
            if r.dialect != dialect {
                dialect = r.dialect;
                writeln!(f, "{}  ({})", r.dialect, r.title)?;
            }
            let tag = if r.faulty {
                format!(
                    "{} breaks {}",
                    r.verdict.to_uppercase(),
                    r.breaks.join(", ")
                )
            } else {
                "correct".to_string()
            };
            // What a fault breaks besides in a configuration, beside its row.
            let also = |what: &str, names: &[&str]| match names {
                [] => String::new(),
                _ => format!(" ({what} also {})", names.join(", ")),
            };
            let trees = also("with request trees", &r.also_with_trees);
            let http = also("over Streamable HTTP", &r.also_on_http);
            writeln!(
                f,
                "    {:<30} {:<44} {}{trees}{http}",
                r.name, tag, r.summary
            )?;
        }
        Ok(())
    }
}
