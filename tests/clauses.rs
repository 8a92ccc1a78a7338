//! `cancelcheck clauses` as a user meets it: the JSON document's shape, covering every
//! dialect and every application of the catalog; one dialect; the text; a bad dialect refused
//! as every command refuses it; and the share the README states, and the counts
//! docs/clauses.md shows, are the ones the command reports.

use cancelcheck_model::Dialect;
use cancelcheck_properties::CATALOG;
use serde_json::Value;

mod common;
use common::{cancelcheck, every_dialect_in_order, json_out, text};

const STATES: [&str; 6] = [
    "judged",
    "exercised",
    "not-judgeable",
    "not-modelled",
    "not-an-obligation",
    "superseded",
];

fn document(args: &[&str]) -> Value {
    let o = cancelcheck(args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    json_out(&o)
}

fn count(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

/// The summary's count of each status, in the order of the docs table's columns.
const STATUSES: [&str; 6] = [
    "judged",
    "exercised",
    "not_judgeable",
    "not_modelled",
    "not_an_obligation",
    "superseded",
];

#[test]
fn json_places_every_clause_of_every_dialect() {
    let doc = document(&["clauses", "--json"]);
    assert_eq!(doc["format"], "cancelcheck-clauses");
    assert_eq!(doc["version"], 1);
    let dialects = every_dialect_in_order(&doc);
    let mut total = 0;
    for d in dialects {
        let dialect: Dialect = d["dialect"].as_str().unwrap().parse().unwrap();
        let clauses = d["clauses"].as_array().unwrap();
        assert_eq!(count(&d["summary"], "clauses"), clauses.len() as u64);
        total += clauses.len() as u64;
        for c in clauses {
            for field in ["file", "quote", "strength", "status", "source"] {
                assert!(c[field].is_string(), "{field} in {c}");
            }
            assert!(["MUST", "SHOULD", "MAY", "-"].contains(&c["strength"].as_str().unwrap()));
            let status = c["status"].as_str().unwrap();
            assert!(STATES.contains(&status), "{status}");
            let invariants = c["invariants"].as_array().unwrap();
            let vectors = &c["vectors"];
            let n = |k: &str| vectors[k].as_array().unwrap().len();
            match status {
                "judged" => {
                    assert!(!invariants.is_empty(), "{c}");
                    assert_eq!(c["judged_both_ways"], n("breaks") > 0 && n("honours") > 0);
                }
                "exercised" => {
                    assert!(n("reaches") > 0 && n("misses") > 0, "{c}");
                    assert!(c["why"].is_string(), "{c}");
                }
                _ => {
                    assert!(invariants.is_empty(), "{c}");
                    assert!(c["why"].is_string(), "not judged, and no why: {c}");
                    assert_eq!(c["judged_both_ways"], false);
                }
            }
            assert_eq!(
                c["superseded_by"].is_object(),
                status == "superseded",
                "{c}"
            );
            for i in invariants {
                let name = i["name"].as_str().unwrap();
                let inv = CATALOG
                    .iter()
                    .find(|x| x.name == name)
                    .expect("a catalog name");
                let app = inv.application(dialect).expect("applies in the dialect");
                assert_eq!(i["strength"], app.strength.as_str());
                assert_eq!(i["cites"]["quote"], app.clause.clause);
            }
            for v in vectors
                .as_object()
                .unwrap()
                .values()
                .flat_map(|l| l.as_array().unwrap())
            {
                assert!(v.as_str().unwrap().contains('/'), "a vector name: {v}");
            }
        }
        // Every application of the catalog judges or exercises a clause of its dialect.
        for inv in CATALOG.iter().filter(|i| i.application(dialect).is_some()) {
            assert!(
                clauses.iter().any(|c| c["source"] == "catalog"
                    && c["invariants"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|i| i["name"] == inv.name)),
                "{dialect}: {} places nothing",
                inv.name
            );
        }
    }
    let s = &doc["summary"];
    assert_eq!(count(s, "clauses"), total);
    let by_state: u64 = STATUSES.iter().map(|k| count(s, k)).sum();
    assert_eq!(by_state, total);
    assert!(count(s, "judged_both_ways") <= count(s, "judged"));
}

#[test]
fn one_dialect_and_the_text() {
    let doc = document(&["clauses", "--dialect", "mcp-2026-07-28", "--json"]);
    let dialects = doc["dialects"].as_array().unwrap();
    assert_eq!(dialects.len(), 1);
    assert_eq!(doc["summary"], dialects[0]["summary"]);
    // Its text is the released revision's, in this repository's specs/, not the draft's: the
    // page's MUST NOT for a server's notifications/cancelled is judged at MUST.
    let clauses = dialects[0]["clauses"].as_array().unwrap();
    assert!(
        clauses
            .iter()
            .all(|c| c["file"] != "mcp-cancellation-draft.md")
    );
    let server = clauses
        .iter()
        .find(|c| {
            c["file"] == "mcp-2026-07-28-cancellation.md"
                && c["quote"]
                    .as_str()
                    .is_some_and(|q| q.contains("for any other purpose"))
        })
        .expect("the released page's MUST NOT for a server's cancel");
    assert_eq!(
        (&server["status"], &server["strength"]),
        (&"judged".into(), &"MUST".into())
    );
    assert_eq!(server["invariants"][0]["name"], "cancel-from-allowed-party");
    assert_eq!(server["invariants"][0]["strength"], "MUST");

    let o = cancelcheck(&["clauses"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    for d in Dialect::ALL {
        assert!(out.contains(&format!("\n{}  (", d.id())) || out.starts_with(d.id()));
    }
    assert!(out.contains("judged both ways"));
    assert!(out.contains("why: a log is inside a party"));
    assert!(out.contains("summary (6 dialects): "));
}

#[test]
fn a_bad_dialect_is_refused_as_every_command_refuses_it() {
    let o = cancelcheck(&["clauses", "--dialect", "mcp"]);
    assert_eq!(o.status.code(), Some(2));
    let theirs = cancelcheck(&["vectors", "--dialect", "mcp"]);
    let (a, b) = (text(&o.stderr), text(&theirs.stderr));
    let first = |s: &str| s.lines().next().unwrap_or_default().to_string();
    assert_eq!(first(&a), first(&b));
    assert!(a.contains("did you mean mcp-2025-11-25?"), "{a}");
}

/// The README states the share of clauses judged both ways as the command reports it.
#[test]
fn the_readme_states_the_share_the_command_reports() {
    let s = document(&["clauses", "--json"])["summary"].clone();
    let (both, all) = (count(&s, "judged_both_ways"), count(&s, "clauses"));
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let stated = format!("{both} of its {all} clauses");
    assert!(
        readme
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&stated),
        "README.md does not say {stated:?} (the command's summary)"
    );
}

/// docs/clauses.md's table of counts per dialect is the command's.
#[test]
fn the_docs_table_is_the_commands() {
    let doc = document(&["clauses", "--json"]);
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/clauses.md"))
        .expect("docs/clauses.md");
    for d in doc["dialects"].as_array().unwrap() {
        let s = &d["summary"];
        let cells: Vec<String> = std::iter::once(&"clauses")
            .chain(STATUSES.iter())
            .map(|k| count(s, k).to_string())
            .collect();
        let row = format!(
            "| `{}` | {} |",
            d["dialect"].as_str().unwrap(),
            cells.join(" | ")
        );
        assert!(docs.contains(&row), "docs/clauses.md lacks the row {row:?}");
        assert_eq!(
            count(s, "judged"),
            count(s, "judged_both_ways"),
            "the table says both ways"
        );
    }
}

/// A full stdout is reported (exit 4), never a panic, as for every command.
#[test]
fn a_full_stdout_is_reported() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cancelcheck"))
        .args(["clauses", "--json"])
        .stdout(std::fs::File::create("/dev/full").expect("/dev/full"))
        .output()
        .expect("runs");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("writing to stdout failed"), "{err}");
}
