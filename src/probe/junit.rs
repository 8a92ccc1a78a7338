//! `--junit FILE`: the run as a JUnit XML report, the format CI systems show as tests.
//!
//! One `<testsuite>` for the run, one `<testcase>` per scenario run (per scenario and seed with
//! `--repeat`): a `<failure>` for a scenario that failed (each MUST broken, with the clause it
//! is quoted from, and each session error), `<skipped>` for a vacuous one (why, and the fix),
//! and a SHOULD broken, an assumption or the trace in `<system-out>`.

use super::report::{self, Outcome};
use cancelcheck_model::Dialect;
use cancelcheck_properties::{Status, Strength};
use std::fmt::Write as _;

/// `s` as XML text or attribute value: markup escaped, and the characters XML 1.0 cannot hold
/// (control characters but tab and newlines) dropped.
fn xml(s: &str) -> String {
    let kept: String = s
        .chars()
        .filter(|&c| {
            c >= ' ' && c != '\u{fffe}' && c != '\u{ffff}' || matches!(c, '\t' | '\n' | '\r')
        })
        .collect();
    crate::render::escape(&kept).replace('\'', "&apos;")
}

fn seconds(o: &Outcome) -> String {
    format!("{:.3}", o.end.elapsed.as_secs_f64())
}

/// One scenario's `<testcase>`.
fn testcase(t: &mut String, dialect: Dialect, o: &Outcome, repeated: bool) {
    let j = &o.judgement;
    let name = if repeated {
        format!("{} (seed {})", o.name, o.seed)
    } else {
        o.name.to_string()
    };
    let _ = writeln!(
        t,
        "    <testcase classname=\"cancelcheck.probe.{}\" name=\"{}\" time=\"{}\">",
        dialect.id(),
        xml(&name),
        seconds(o)
    );
    let cite = |v: &cancelcheck_properties::Violation| {
        v.invariant
            .info()
            .cite_in(dialect)
            .map(|c| format!(": {c}"))
            .unwrap_or_default()
    };
    let mut out = String::new();
    match j.status() {
        Status::Fail => {
            let musts: Vec<_> = j
                .verdict
                .violations
                .iter()
                .filter(|v| v.strength == Strength::Must)
                .collect();
            let message: Vec<String> = musts
                .iter()
                .map(|v| format!("MUST {}", v.invariant.name()))
                .chain(j.errors.iter().map(|e| format!("error {}", e.kind)))
                .collect();
            let mut body = String::new();
            for v in &musts {
                let _ = writeln!(body, "MUST {}{}", v.invariant.name(), cite(v));
            }
            for e in &j.errors {
                let at = e
                    .offset
                    .map(|a| format!(" at byte {a}"))
                    .unwrap_or_default();
                let _ = writeln!(body, "error {}{at}: {}", e.kind, e.message);
            }
            for a in &j.assumptions {
                let _ = writeln!(body, "assuming: {a}");
            }
            let _ = writeln!(
                t,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                xml(&message.join(", ")),
                if musts.is_empty() {
                    "session-error"
                } else {
                    "MUST"
                },
                xml(&body)
            );
        }
        Status::Vacuous => {
            let _ = writeln!(
                t,
                "      <skipped message=\"vacuous: {}\"/>",
                xml(&j.vacuous_because.join("; "))
            );
        }
        Status::Warn | Status::Pass => {}
    }
    for v in &j.verdict.violations {
        if v.strength != Strength::Must {
            let _ = writeln!(
                out,
                "warning: {} {}{}",
                v.strength.as_str(),
                v.invariant.name(),
                cite(v)
            );
        }
    }
    if j.status() != Status::Fail {
        for a in &j.assumptions {
            let _ = writeln!(out, "assuming: {a}");
        }
    }
    if o.has_findings() && !o.end.stderr_tail.is_empty() {
        let _ = writeln!(
            out,
            "peer's stderr (the last of {} bytes):",
            o.end.stderr_bytes
        );
        let _ = writeln!(out, "{}", o.end.stderr_tail.trim_end());
    }
    match &o.trace {
        Some(Ok(p)) => {
            let _ = writeln!(out, "trace: {}", p.display());
        }
        Some(Err(e)) => {
            let _ = writeln!(out, "trace NOT SAVED: {e}");
        }
        None => {}
    }
    if !out.is_empty() {
        let _ = writeln!(t, "      <system-out>{}</system-out>", xml(&out));
    }
    let _ = writeln!(t, "    </testcase>");
}

/// The run as a JUnit XML document.
pub fn render(dialect: Dialect, command: &[String], outcomes: &[Outcome]) -> String {
    let count = |s: Status| {
        outcomes
            .iter()
            .filter(|o| o.judgement.status() == s)
            .count()
    };
    let (tests, failures, skipped) = (outcomes.len(), count(Status::Fail), count(Status::Vacuous));
    let time: f64 = outcomes.iter().map(|o| o.end.elapsed.as_secs_f64()).sum();
    let suite = format!("cancelcheck probe {}", dialect.id());
    let mut t = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        t,
        "<testsuites name=\"cancelcheck probe\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{time:.3}\">"
    );
    let _ = writeln!(
        t,
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{time:.3}\">",
        xml(&suite)
    );
    let _ = writeln!(t, "    <properties>");
    let _ = writeln!(
        t,
        "      <property name=\"dialect\" value=\"{}\"/>",
        dialect.id()
    );
    let _ = writeln!(
        t,
        "      <property name=\"command\" value=\"{}\"/>",
        xml(&command.join(" "))
    );
    let _ = writeln!(
        t,
        "      <property name=\"verdict\" value=\"{}\"/>",
        report::overall(outcomes).as_str()
    );
    let _ = writeln!(t, "    </properties>");
    let repeated = report::repeated(outcomes);
    for o in outcomes {
        testcase(&mut t, dialect, o, repeated);
    }
    let _ = writeln!(t, "  </testsuite>");
    let _ = writeln!(t, "</testsuites>");
    t
}
