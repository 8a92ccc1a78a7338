//! Clause vectors: for each invariant of each dialect, short event sequences that break it
//! and that honour it the closest allowed way (for a race: that reach it and that come
//! closest without reaching it), written in the [`notation`] as data, one
//! file per dialect under `properties/vectors/`.
//!
//! A source file is `{"dialect": D, "vectors": [V, ...]}`, each `V` an object with
//! - `name` (unique in the file), `invariant` (a catalog name), `description` (the race or
//!   mistake, in a sentence), `events` (notation lines);
//! - `expect`: `breaks` or `honours` for a MUST or SHOULD application, `reaches` or `misses`
//!   for a race (a COVERAGE application);
//! - `strength` (`MUST`, `SHOULD`, `COVERAGE`): required for `breaks`, optional elsewhere; it
//!   must equal the catalog's for the dialect;
//! - `raised_at`: for `breaks`, the index (from 0) of the event at which the checker raises
//!   the violation; absent otherwise;
//! - `link` (optional): `reordering` (the default: messages in one direction may overtake
//!   each other) or `fifo` (stdio);
//! - `also_breaks` (optional): other invariants the sequence cannot help breaking (none of
//!   the shipped vectors needs it: one deviation per vector);
//! - `clause` (optional): `{file, quote}`; it must equal the catalog's, which is what an
//!   export gives in any case.
//!
//! [`Vector::check`] runs a fresh [`Checker`] over the events and says whether the verdict is
//! the stated one.

use crate::checker::{Checker, PropertySet, Verdict};
use crate::event::Event;
use crate::invariant::{Application, CATALOG, InvariantId, Strength};
use crate::notation;
use cancelcheck_model::Dialect;
use core::fmt;
use serde::Deserialize;

/// The shipped vector files, one per dialect in [`Dialect::ALL`] order: (file name, text),
/// each compiled into its dialect's file under `src/dialect/`.
pub fn files() -> impl Iterator<Item = (&'static str, &'static str)> {
    Dialect::ALL
        .into_iter()
        .map(|d| crate::dialect::reading(d).vectors)
}

/// What a vector claims about its invariant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Expect {
    /// The checker raises a violation of it, at `raised_at`.
    Breaks,
    /// The checker raises no violation of it.
    Honours,
    /// The race is reached (a COVERAGE application).
    Reaches,
    /// The race is not reached.
    Misses,
}

impl Expect {
    /// `"breaks"`, `"honours"`, `"reaches"` or `"misses"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Expect::Breaks => "breaks",
            Expect::Honours => "honours",
            Expect::Reaches => "reaches",
            Expect::Misses => "misses",
        }
    }

    fn parse(s: &str) -> Option<Expect> {
        [
            Expect::Breaks,
            Expect::Honours,
            Expect::Reaches,
            Expect::Misses,
        ]
        .into_iter()
        .find(|e| e.as_str() == s)
    }
}

/// How the link orders messages in one direction; the checker is told (see
/// [`Checker::set_fifo`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Link {
    /// Any order (the checker's conservative default).
    Reordering,
    /// In order, like stdio.
    Fifo,
}

impl Link {
    /// `"reordering"` or `"fifo"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Link::Reordering => "reordering",
            Link::Fifo => "fifo",
        }
    }
}

/// One vector, read and validated against the catalog.
#[derive(Clone, Debug)]
pub struct Vector {
    /// Unique within its file.
    pub name: String,
    /// The invariant it is about; it applies in the file's dialect.
    pub invariant: InvariantId,
    /// What it claims.
    pub expect: Expect,
    /// The catalog's strength of the invariant in the dialect.
    pub strength: Strength,
    /// For [`Expect::Breaks`], the index of the event at which the violation is raised.
    pub raised_at: Option<u64>,
    /// The link order the checker assumes.
    pub link: Link,
    /// Other invariants it is allowed (and required) to break.
    pub also_breaks: Vec<InvariantId>,
    /// The race or the mistake, in a sentence.
    pub description: String,
    /// The events, parsed.
    pub events: Vec<Event>,
    /// The events as written.
    pub lines: Vec<String>,
}

/// One dialect's vectors.
#[derive(Clone, Debug)]
pub struct VectorFile {
    /// The file name it was read from.
    pub file: String,
    /// The dialect.
    pub dialect: Dialect,
    /// Its vectors, in file order.
    pub vectors: Vec<Vector>,
}

/// Why a vector file was refused: the file, where in it (a vector by index and name, a field,
/// an event by index) and what was expected there.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VectorError {
    /// The file name.
    pub file: String,
    /// Where: empty for the file as a whole, else e.g. `vector 3 "x": event 5`.
    pub at: String,
    /// What was expected, or what went wrong.
    pub expected: String,
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            write!(f, "{}: {}", self.file, self.expected)
        } else {
            write!(f, "{}: {}: {}", self.file, self.at, self.expected)
        }
    }
}

impl std::error::Error for VectorError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    dialect: String,
    vectors: Vec<RawVector>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClause {
    file: String,
    quote: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVector {
    name: String,
    invariant: String,
    expect: String,
    #[serde(default)]
    strength: Option<String>,
    #[serde(default)]
    raised_at: Option<u64>,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    also_breaks: Vec<String>,
    #[serde(default)]
    clause: Option<RawClause>,
    description: String,
    events: Vec<String>,
}

fn invariant_named(name: &str) -> Result<InvariantId, String> {
    InvariantId::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = CATALOG.iter().map(|i| i.name).collect();
        format!(
            "unknown invariant {name:?}; expected one of {}",
            names.join(", ")
        )
    })
}

impl VectorFile {
    /// Reads and validates one file's text: JSON syntax and fields, every event in the
    /// notation, every invariant applying in the dialect with the stated strength and clause,
    /// `expect` fitting the strength, `raised_at` given exactly for `breaks`, names unique.
    /// Guarantees: an error names the file, the vector (index and name), the field or event
    /// index, and what was expected; it never panics.
    pub fn parse(file: &str, text: &str) -> Result<VectorFile, VectorError> {
        let err = |at: String, expected: String| VectorError {
            file: file.to_string(),
            at,
            expected,
        };
        let raw: RawFile = serde_json::from_str(text).map_err(|e| {
            err(
                String::new(),
                format!(
                    "line {}, column {}: {e} (expected {{\"dialect\": ..., \"vectors\": [...]}})",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        let dialect: Dialect =
            raw.dialect
                .parse()
                .map_err(|e: cancelcheck_model::dialect::UnknownDialect| {
                    err("field `dialect`".into(), e.to_string())
                })?;
        let mut vectors: Vec<Vector> = Vec::with_capacity(raw.vectors.len());
        for (i, v) in raw.vectors.into_iter().enumerate() {
            let at = format!("vector {i} {:?}", v.name);
            let field = |f: &str| format!("{at}: field `{f}`");
            if v.name.is_empty() {
                return Err(err(field("name"), "a non-empty name".into()));
            }
            if vectors.iter().any(|o| o.name == v.name) {
                return Err(err(
                    field("name"),
                    "a name not used before in the file".into(),
                ));
            }
            let invariant =
                invariant_named(&v.invariant).map_err(|e| err(field("invariant"), e))?;
            let app: &Application = invariant.info().application(dialect).ok_or_else(|| {
                err(
                    field("invariant"),
                    format!(
                        "an invariant that applies in {dialect}; {} does not",
                        v.invariant
                    ),
                )
            })?;
            let expect = Expect::parse(&v.expect).ok_or_else(|| {
                err(
                    field("expect"),
                    format!(
                        "\"breaks\", \"honours\", \"reaches\" or \"misses\"; found {:?}",
                        v.expect
                    ),
                )
            })?;
            let race = app.strength == Strength::Coverage;
            if race != matches!(expect, Expect::Reaches | Expect::Misses) {
                let want = if race {
                    "\"reaches\" or \"misses\" (a race)"
                } else {
                    "\"breaks\" or \"honours\" (a rule)"
                };
                return Err(err(
                    field("expect"),
                    format!("{want}; found {:?}", v.expect),
                ));
            }
            match (&v.strength, expect) {
                (Some(s), _) if s != app.strength.as_str() => {
                    return Err(err(
                        field("strength"),
                        format!(
                            "{:?}, the catalog's strength in {dialect}; found {s:?}",
                            app.strength.as_str()
                        ),
                    ));
                }
                (None, Expect::Breaks) => {
                    return Err(err(
                        field("strength"),
                        format!(
                            "the strength of the violation (\"{}\")",
                            app.strength.as_str()
                        ),
                    ));
                }
                _ => {}
            }
            match (v.raised_at, expect) {
                (None, Expect::Breaks) => {
                    return Err(err(
                        field("raised_at"),
                        "the index of the event at which the violation is raised".into(),
                    ));
                }
                (Some(_), e) if e != Expect::Breaks => {
                    return Err(err(
                        field("raised_at"),
                        "no raised_at: only a breaking vector has one".into(),
                    ));
                }
                _ => {}
            }
            if let Some(c) = &v.clause
                && (c.file != app.clause.file || c.quote != app.clause.clause)
            {
                return Err(err(
                    field("clause"),
                    format!(
                        "the catalog's clause: {{\"file\": {:?}, \"quote\": {:?}}}",
                        app.clause.file, app.clause.clause
                    ),
                ));
            }
            let link = match v.link.as_deref() {
                None | Some("reordering") => Link::Reordering,
                Some("fifo") => Link::Fifo,
                Some(other) => {
                    return Err(err(
                        field("link"),
                        format!("\"reordering\" or \"fifo\"; found {other:?}"),
                    ));
                }
            };
            let mut also_breaks = Vec::new();
            for name in &v.also_breaks {
                also_breaks.push(invariant_named(name).map_err(|e| err(field("also_breaks"), e))?);
            }
            if v.events.is_empty() {
                return Err(err(field("events"), "at least one event".into()));
            }
            let mut events = Vec::with_capacity(v.events.len());
            for (j, line) in v.events.iter().enumerate() {
                let ev = notation::parse(line)
                    .map_err(|e| err(format!("{at}: event {j} {line:?}"), e.to_string()))?;
                events.push(ev);
            }
            if let Some(r) = v.raised_at
                && r >= events.len() as u64
            {
                return Err(err(
                    field("raised_at"),
                    format!("an event index below {}; found {r}", events.len()),
                ));
            }
            vectors.push(Vector {
                name: v.name,
                invariant,
                expect,
                strength: app.strength,
                raised_at: v.raised_at,
                link,
                also_breaks,
                description: v.description,
                events,
                lines: v.events,
            });
        }
        Ok(VectorFile {
            file: file.to_string(),
            dialect,
            vectors,
        })
    }

    /// Every shipped file ([`files`]), parsed, in [`Dialect::ALL`] order.
    pub fn shipped() -> Result<Vec<VectorFile>, VectorError> {
        files().map(|(f, t)| VectorFile::parse(f, t)).collect()
    }
}

impl Vector {
    /// The catalog's application of its invariant in `dialect`: strength, clause and note.
    /// `None` only for a dialect other than the one the vector was read for.
    pub fn application(&self, dialect: Dialect) -> Option<&'static Application> {
        self.invariant.info().application(dialect)
    }

    /// The verdict of a fresh checker for `dialect`, told the vector's link order, over its
    /// events.
    pub fn run(&self, dialect: Dialect) -> Verdict {
        let mut c = Checker::new(dialect, self.events.len());
        c.set_fifo(self.link == Link::Fifo);
        for ev in &self.events {
            c.observe(ev);
        }
        c.take_verdict()
    }

    /// Runs the vector and compares the verdict with its claim: for `breaks`, a violation of
    /// its invariant with its strength raised at `raised_at`; for `honours`, none; for
    /// `reaches` / `misses`, the race in / not in the reached set; and in every case no
    /// invariant broken but those it names (its own for `breaks`, and `also_breaks`).
    /// Returns the verdict, or what differs.
    pub fn check(&self, dialect: Dialect) -> Result<Verdict, String> {
        let v = self.run(dialect);
        let mut allowed = PropertySet::default();
        for i in &self.also_breaks {
            allowed.insert(*i);
        }
        match self.expect {
            Expect::Breaks => {
                allowed.insert(self.invariant);
                let Some(found) = v.violations.iter().find(|x| x.invariant == self.invariant)
                else {
                    return Err(format!("{} was not broken", self.invariant));
                };
                if found.strength != self.strength {
                    return Err(format!(
                        "{} was broken as {}, not {}",
                        self.invariant,
                        found.strength.as_str(),
                        self.strength.as_str()
                    ));
                }
                if Some(found.event) != self.raised_at {
                    return Err(format!(
                        "{} was raised at event {}, not {:?}",
                        self.invariant, found.event, self.raised_at
                    ));
                }
            }
            Expect::Honours => {}
            Expect::Reaches if !v.reached.contains(self.invariant) => {
                return Err(format!("{} was not reached", self.invariant));
            }
            Expect::Misses if v.reached.contains(self.invariant) => {
                return Err(format!("{} was reached", self.invariant));
            }
            Expect::Reaches | Expect::Misses => {}
        }
        let violated = v.violated();
        if violated != allowed {
            let names = |s: PropertySet| {
                let v: Vec<&str> = s.iter().map(|i| i.name()).collect();
                if v.is_empty() {
                    "nothing".to_string()
                } else {
                    v.join(", ")
                }
            };
            let detail: Vec<String> = v
                .violations
                .iter()
                .map(|x| format!("{} at event {}", x.invariant, x.event))
                .collect();
            return Err(format!(
                "broke {} ({}); expected to break {}",
                names(violated),
                detail.join(", "),
                names(allowed)
            ));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"{"dialect": "acp", "vectors": [{
        "name": "answered-twice", "invariant": "single-resolution", "expect": "breaks",
        "strength": "MUST", "raised_at": 3, "description": "two answers",
        "events": ["client sends request 1 work", "server receives request 1 work",
                   "server sends response 1 full", "server sends response 1 full"]}]}"#;

    fn refused(text: &str, at: &str, expected: &str) {
        let e = VectorFile::parse("x.json", text).expect_err(text);
        assert_eq!(e.file, "x.json");
        assert!(e.at.contains(at), "{e}");
        assert!(e.expected.contains(expected), "{e}");
    }

    #[test]
    fn a_good_file_reads_and_its_vector_checks() {
        let f = VectorFile::parse("x.json", ONE).unwrap();
        assert_eq!(f.dialect, Dialect::Acp);
        let v = &f.vectors[0];
        assert_eq!(v.strength, Strength::Must);
        assert_eq!(v.link, Link::Reordering);
        assert_eq!(v.events.len(), 4);
        let verdict = v.check(f.dialect).unwrap();
        assert_eq!(verdict.violations[0].event, 3);
    }

    #[test]
    fn a_wrong_claim_is_reported_not_passed() {
        let wrong_index = ONE.replace("\"raised_at\": 3", "\"raised_at\": 2");
        let f = VectorFile::parse("x.json", &wrong_index).unwrap();
        let e = f.vectors[0].check(f.dialect).unwrap_err();
        assert!(e.contains("raised at event 3"), "{e}");

        let honours = ONE
            .replace("\"breaks\"", "\"honours\"")
            .replace("\"raised_at\": 3, ", "");
        let f = VectorFile::parse("x.json", &honours).unwrap();
        let e = f.vectors[0].check(f.dialect).unwrap_err();
        assert!(e.contains("broke single-resolution"), "{e}");

        let other = ONE.replace(
            "\"server sends response 1 full\"]",
            "\"server sends response 2 full\"]",
        );
        let f = VectorFile::parse("x.json", &other).unwrap();
        let e = f.vectors[0].check(f.dialect).unwrap_err();
        assert!(e.contains("single-resolution was not broken"), "{e}");
    }

    #[test]
    fn bad_files_name_the_vector_the_field_and_the_fix() {
        refused("{", "", "line 1");
        refused(
            &ONE.replace("\"acp\"", "\"acq\""),
            "dialect",
            "unknown dialect",
        );
        refused(
            &ONE.replace("\"single-resolution\"", "\"single\""),
            "vector 0 \"answered-twice\": field `invariant`",
            "unknown invariant",
        );
        refused(
            &ONE.replace("\"single-resolution\"", "\"capability-gated\""),
            "field `invariant`",
            "applies in acp",
        );
        refused(
            &ONE.replace("\"MUST\"", "\"SHOULD\""),
            "field `strength`",
            "\"MUST\"",
        );
        refused(
            &ONE.replace("\"breaks\"", "\"reaches\""),
            "field `expect`",
            "(a rule)",
        );
        refused(
            &ONE.replace("\"raised_at\": 3, ", ""),
            "field `raised_at`",
            "index of the event",
        );
        refused(
            &ONE.replace("\"raised_at\": 3", "\"raised_at\": 9"),
            "field `raised_at`",
            "below 4",
        );
        refused(
            &ONE.replace(
                "\"server receives request 1 work\"",
                "\"server gets request 1 work\"",
            ),
            "vector 0 \"answered-twice\": event 1 \"server gets request 1 work\"",
            "word 2: expected one of \"receives\"",
        );
        refused(
            &ONE.replace(
                "\"description\"",
                "\"clause\": {\"file\": \"README.md\", \"quote\": \"no\"}, \"description\"",
            ),
            "field `clause`",
            "MUST send one of these responses",
        );
        refused(
            &ONE.replace("\"name\"", "\"nom\""),
            "",
            "unknown field `nom`",
        );
        refused(
            &ONE.replace("\"description\"", "\"link\": \"tcp\", \"description\""),
            "field `link`",
            "\"fifo\"",
        );
    }
}
