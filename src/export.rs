//! The catalog and the behaviour table, exported for people and for other implementations.

use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::CATALOG;
use serde_json::{Value, json};
use std::fmt::Write;

/// `properties --json`: one object per property: `id`, `dialects`, `strength` (the strongest),
/// `kind`, `clause` (of the first dialect), `statement`, and `applies` (per dialect: strength
/// and clause).
pub fn properties_json() -> Value {
    let rows: Vec<Value> = CATALOG
        .iter()
        .map(|inv| {
            let dialects: Vec<&str> = inv.applies.iter().map(|a| a.dialect.id()).collect();
            let applies: Vec<Value> = inv
                .applies
                .iter()
                .map(|a| json!({"dialect": a.dialect.id(), "strength": a.strength.as_str(), "clause": format!("{}: {}", a.clause.file, a.clause.clause)}))
                .collect();
            let first = &inv.applies[0];
            json!({
                "id": inv.name,
                "dialects": dialects,
                "strength": inv.strength().as_str(),
                "kind": inv.kind.as_str(),
                "clause": format!("{}: {}", first.clause.file, first.clause.clause),
                "statement": inv.statement,
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
/// `name`, `faulty`, `breaks`, `role`, `summary`.
pub fn behaviors_json() -> Value {
    let mut rows = Vec::new();
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = b.classify(d) else { continue };
            rows.push(json!({
                "dialect": d.id(),
                "name": b.name(),
                "faulty": c.faulty,
                "breaks": c.breaks,
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
                format!("FAULT breaks {}", c.breaks.join(", "))
            } else {
                "correct".to_string()
            };
            let _ = writeln!(out, "    {:<30} {:<44} {}", b.name(), tag, b.info().summary);
        }
    }
    out
}
