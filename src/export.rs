//! The catalog and the behaviour table, exported for people and for other implementations.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::CATALOG;
use serde_json::{Value, json};
use std::fmt::Write;

/// `properties --json`: one object per property: `id`, `dialects`, `strength` (the strongest),
/// `kind`, `clause` (of the first dialect), `statement`, `observable_on_wire`, and `applies`:
/// per dialect its `strength` (`MUST`, `SHOULD`, or `COVERAGE` for a race), `file` (the spec
/// text), `clause` (the quotation from it, word for word), `note` (why, where the quotation
/// alone does not say) and `observable_on_wire` (whether a judge that sees only the wire can
/// decide it).
pub fn properties_json() -> Value {
    let rows: Vec<Value> = CATALOG
        .iter()
        .map(|inv| {
            let dialects: Vec<&str> = inv.applies.iter().map(|a| a.dialect.id()).collect();
            let applies: Vec<Value> = inv
                .applies
                .iter()
                .map(|a| {
                    json!({
                        "dialect": a.dialect.id(),
                        "strength": a.strength.as_str(),
                        "file": a.clause.file,
                        "clause": a.clause.clause,
                        "note": a.note,
                        "observable_on_wire": inv.observable_on_wire,
                    })
                })
                .collect();
            let first = &inv.applies[0];
            json!({
                "id": inv.name,
                "dialects": dialects,
                "strength": inv.strength().as_str(),
                "kind": inv.kind.as_str(),
                "clause": format!("{}: {}", first.clause.file, first.clause.clause),
                "statement": inv.statement,
                "observable_on_wire": inv.observable_on_wire,
                "applies": applies,
            })
        })
        .collect();
    Value::Array(rows)
}

/// `properties` as text.
pub fn properties_text() -> String {
    let mut out = String::new();
    for inv in CATALOG.iter() {
        let _ = writeln!(
            out,
            "{}  [{} {}]\n    {}",
            inv.name,
            inv.strength().as_str(),
            inv.kind.as_str(),
            inv.statement
        );
        for a in inv.applies {
            let _ = writeln!(
                out,
                "    {:<15} {:<6} {}: {}",
                a.dialect.id(),
                a.strength.as_str(),
                a.clause.file,
                a.clause.clause
            );
        }
    }
    out
}

/// `behaviors --json`: one object per (dialect, behaviour) that exists there: `dialect`,
/// `name`, `faulty`, `verdict` (what a run earns once the fault acts: `pass`, `warn` where it
/// breaks only SHOULDs there, `fail` where it breaks a MUST), `breaks`, `role`, `summary`.
pub fn behaviors_json() -> Value {
    let mut rows = Vec::new();
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = b.classify(d) else { continue };
            let verdict =
                cancelcheck_sim::coverage::expected_status(d, b).map_or("pass", |s| s.as_str());
            rows.push(json!({
                "dialect": d.id(),
                "name": b.name(),
                "faulty": c.faulty,
                "verdict": verdict,
                "breaks": cancelcheck_properties::invariant::breaks_in(b, d).iter().map(|i| i.name()).collect::<Vec<_>>(),
                "role": match b.role() { cancelcheck_model::behaviour::Role::Requester => "requester", _ => "responder" },
                "summary": b.info().summary,
            }));
        }
    }
    Value::Array(rows)
}

/// `behaviors` as text, grouped by dialect.
pub fn behaviors_text() -> String {
    let mut out = String::new();
    for d in Dialect::ALL {
        let _ = writeln!(out, "{}  ({})", d.id(), d.rules().title);
        for b in Behaviour::all() {
            let Some(c) = b.classify(d) else { continue };
            let tag = if c.faulty {
                let v =
                    cancelcheck_sim::coverage::expected_status(d, b).map_or("fail", |s| s.as_str());
                let names: Vec<&str> = cancelcheck_properties::invariant::breaks_in(b, d)
                    .iter()
                    .map(|i| i.name())
                    .collect();
                format!("{} breaks {}", v.to_uppercase(), names.join(", "))
            } else {
                "correct".to_string()
            };
            let _ = writeln!(out, "    {:<30} {:<44} {}", b.name(), tag, b.info().summary);
        }
    }
    out
}
