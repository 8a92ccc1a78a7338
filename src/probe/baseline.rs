//! `--baseline FILE`: the findings a project has accepted, so that CI fails on a new finding
//! (and on an accepted one that is no longer found) rather than on every known one.
//!
//! A finding is named by what stays the same from run to run: the scenario and the invariant
//! broken (`SCENARIO INVARIANT`), or the kind of session error (`SCENARIO error:KIND`); never
//! a seed, a time or a trace path. A baseline file holds one finding a line; `#` starts a
//! comment, blank lines are ignored.

use super::judge::ERROR_KINDS;
use super::report::Outcome;
use super::scenario;
use cancelcheck_properties::InvariantId;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;

/// A finding as a baseline names it.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Finding {
    /// The scenario's name.
    pub scenario: String,
    /// The invariant broken, or `error:KIND` for a session error.
    pub what: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.scenario, self.what)
    }
}

/// Every finding of a run, each once (a finding seen under several seeds is one), sorted.
pub fn findings(outcomes: &[Outcome]) -> BTreeSet<Finding> {
    let mut all = BTreeSet::new();
    for o in outcomes {
        for v in &o.judgement.verdict.violations {
            all.insert(Finding {
                scenario: o.name.to_string(),
                what: v.invariant.name().to_string(),
            });
        }
        for e in &o.judgement.errors {
            all.insert(Finding {
                scenario: o.name.to_string(),
                what: format!("error:{}", e.kind),
            });
        }
    }
    all
}

/// An accepted finding and the line of the baseline file it is on.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The finding.
    pub finding: Finding,
    /// Its line (1-based).
    pub line: usize,
}

/// Reads a baseline file's text. An error names the line and the field and says what was
/// expected.
pub fn parse(file: &Path, text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let at = |field: &str, what: String| {
            format!(
                "{} line {line}, {field}: {what} (each line is `SCENARIO INVARIANT` or `SCENARIO error:KIND`; `cancelcheck probe --write-baseline FILE` writes one)",
                file.display()
            )
        };
        let body = raw.split('#').next().unwrap_or("");
        let fields: Vec<&str> = body.split_whitespace().collect();
        let (scenario, what) = match fields.as_slice() {
            [] => continue,
            [s, w] => (*s, *w),
            [_] => return Err(at("field 2", "missing".into())),
            [_, _, extra, ..] => {
                return Err(at("field 3", format!("unexpected {extra:?}")));
            }
        };
        if scenario::by_name(scenario).is_none() {
            let known: Vec<&str> = scenario::SCENARIOS.iter().map(|s| s.name).collect();
            return Err(at(
                "field 1 (scenario)",
                format!(
                    "no scenario {scenario:?}; expected one of: {}",
                    known.join(", ")
                ),
            ));
        }
        let known = match what.strip_prefix("error:") {
            Some(kind) => ERROR_KINDS.contains(&kind),
            None => InvariantId::from_name(what).is_some(),
        };
        if !known {
            return Err(at(
                "field 2 (finding)",
                format!(
                    "{what:?} is neither an invariant (`cancelcheck properties` lists them) nor error:KIND with KIND one of {}",
                    ERROR_KINDS.join(", ")
                ),
            ));
        }
        entries.push(Entry {
            finding: Finding {
                scenario: scenario.to_string(),
                what: what.to_string(),
            },
            line,
        });
    }
    Ok(entries)
}

/// The text of a baseline accepting `findings`.
pub fn render(dialect: &str, findings: &BTreeSet<Finding>) -> String {
    let mut t = format!(
        "# cancelcheck probe baseline ({dialect}): accepted findings, one a line: SCENARIO INVARIANT or SCENARIO error:KIND\n"
    );
    for f in findings {
        t.push_str(&format!("{f}\n"));
    }
    t
}

/// A run compared with a baseline.
#[derive(Debug, Default)]
pub struct Comparison {
    /// Findings of the run the baseline accepts.
    pub accepted: Vec<Finding>,
    /// Findings of the run the baseline does not list: they fail the run.
    pub new: Vec<Finding>,
    /// Entries of scenarios that ran whose finding was not found: they fail the run.
    pub stale: Vec<Entry>,
    /// Entries of scenarios that did not run: neither found nor not found.
    pub unchecked: Vec<Entry>,
}

impl Comparison {
    /// Whether the run matches the baseline (nothing new, nothing stale).
    pub fn matches(&self) -> bool {
        self.new.is_empty() && self.stale.is_empty()
    }

    /// As JSON: `{"file", "matches", "accepted", "new", "stale": [{"finding", "line"}],
    /// "unchecked"}`.
    pub fn json(&self, file: &Path) -> Value {
        let names = |v: &[Finding]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
        let entries = |v: &[Entry]| {
            v.iter()
                .map(|e| json!({"finding": e.finding.to_string(), "line": e.line}))
                .collect::<Vec<_>>()
        };
        json!({
            "file": file.display().to_string(),
            "matches": self.matches(),
            "accepted": names(&self.accepted),
            "new": names(&self.new),
            "stale": entries(&self.stale),
            "unchecked": entries(&self.unchecked),
        })
    }

    /// As text, for people.
    pub fn text(&self, file: &Path) -> String {
        let mut t = format!(
            "baseline {}: {} accepted, {} new, {} stale\n",
            file.display(),
            self.accepted.len(),
            self.new.len(),
            self.stale.len()
        );
        for f in &self.new {
            t.push_str(&format!("  new (not in the baseline): {f}\n"));
        }
        for e in &self.stale {
            t.push_str(&format!(
                "  stale (line {}, no longer found): {}\n",
                e.line, e.finding
            ));
        }
        for e in &self.unchecked {
            t.push_str(&format!(
                "  unchecked (line {}, its scenario did not run): {}\n",
                e.line, e.finding
            ));
        }
        let verdict = if self.matches() {
            "pass (every finding is accepted, every accepted one found)"
        } else {
            "fail"
        };
        t.push_str(&format!("verdict with the baseline: {verdict}\n"));
        t
    }
}

/// Compares a run's findings with a baseline's entries.
pub fn compare(outcomes: &[Outcome], entries: &[Entry]) -> Comparison {
    let found = findings(outcomes);
    let ran: BTreeSet<&str> = outcomes.iter().map(|o| o.name).collect();
    let listed: BTreeSet<&Finding> = entries.iter().map(|e| &e.finding).collect();
    let mut c = Comparison::default();
    for f in &found {
        if listed.contains(f) {
            c.accepted.push(f.clone());
        } else {
            c.new.push(f.clone());
        }
    }
    for e in entries {
        if !ran.contains(e.finding.scenario.as_str()) {
            c.unchecked.push(e.clone());
        } else if !found.contains(&e.finding) {
            c.stale.push(e.clone());
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_line_is_named_with_its_field() {
        let f = Path::new("b.txt");
        let ok = parse(
            f,
            "# accepted\n\ncancel-during-work cancel-error-code # why\nunknown-id error:timeout\n",
        )
        .expect("valid");
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[1].line, 4);
        for (text, want) in [
            ("cancel-during-work\n", "line 1, field 2: missing"),
            ("\nnope cancel-error-code\n", "line 2, field 1 (scenario)"),
            (
                "cancel-during-work no-such-rule\n",
                "line 1, field 2 (finding)",
            ),
            (
                "cancel-during-work error:nope\n",
                "line 1, field 2 (finding)",
            ),
            (
                "cancel-during-work cancel-error-code 3\n",
                "line 1, field 3",
            ),
        ] {
            let e = parse(f, text).expect_err(text);
            assert!(e.starts_with("b.txt ") && e.contains(want), "{text:?}: {e}");
        }
    }
}
