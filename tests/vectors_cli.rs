//! `cancelcheck vectors` as a user meets it: the JSON parses and covers every dialect and
//! every catalog application, `--out` writes one file per dialect and never overwrites a
//! different file, bad input exits 2 naming what was expected.

use cancelcheck_model::Dialect;
use cancelcheck_properties::{CATALOG, Strength};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

mod common;
use common::{Scratch, cancelcheck, every_dialect_in_order, json_out, text};

fn json_of(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    json_out(o)
}

#[test]
fn json_covers_every_dialect_and_every_application() {
    let doc = json_of(&cancelcheck(&["vectors", "--json"]));
    assert_eq!(doc["format"], "cancelcheck-vectors");
    assert_eq!(doc["version"], 1);
    let dialects = every_dialect_in_order(&doc);
    for d in dialects {
        let dialect: Dialect = d["dialect"].as_str().unwrap().parse().unwrap();
        let vectors = d["vectors"].as_array().unwrap();
        for inv in CATALOG.iter() {
            let Some(app) = inv.application(dialect) else {
                continue;
            };
            let wanted = if app.strength == Strength::Coverage {
                ["reaches", "misses"]
            } else {
                ["breaks", "honours"]
            };
            for e in wanted {
                let v = vectors
                    .iter()
                    .find(|v| v["invariant"] == inv.name && v["expect"] == e)
                    .unwrap_or_else(|| panic!("{dialect} {} {e}: none", inv.name));
                assert_eq!(v["strength"], app.strength.as_str());
                assert_eq!(v["clause"]["file"], app.clause.file);
                assert_eq!(v["clause"]["quote"], app.clause.clause);
            }
        }
        for v in vectors {
            let events = v["events"].as_array().unwrap();
            assert!(!events.is_empty(), "{}", v["name"]);
            match v["raised_at"].as_u64() {
                Some(i) => {
                    assert_eq!(v["expect"], "breaks");
                    assert!((i as usize) < events.len(), "{}", v["name"]);
                }
                None => assert_ne!(v["expect"], "breaks", "{}", v["name"]),
            }
            for e in events {
                let line = e["event"].as_str().unwrap();
                cancelcheck_properties::notation::parse(line)
                    .unwrap_or_else(|err| panic!("{line:?}: {err}"));
                if line.contains(" sends ") {
                    assert!(e["message"].is_object(), "{line}: no wire message");
                }
            }
        }
    }
}

#[test]
fn one_dialect_and_text() {
    let doc = json_of(&cancelcheck(&["vectors", "--dialect", "abp", "--json"]));
    let dialects = doc["dialects"].as_array().unwrap();
    assert_eq!(dialects.len(), 1);
    assert_eq!(dialects[0]["dialect"], "abp");
    let first = &dialects[0]["vectors"][0]["events"][1];
    assert_eq!(first["message"]["type"], "session/initialize");

    let o = cancelcheck(&["vectors"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    for d in Dialect::ALL {
        assert!(out.contains(&format!("{}  (", d.id())), "text lacks {d}");
    }
    assert!(out.contains("single-resolution/answered-twice"));
}

#[test]
fn out_writes_one_file_per_dialect_and_never_overwrites_a_different_one() {
    let dir = Scratch::new("out");
    let target = dir.path().join("v");
    let t = target.to_str().unwrap();
    let o = cancelcheck(&["vectors", "--out", t]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for d in Dialect::ALL {
        let path = target.join(format!("{}.json", d.id()));
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["format"], "cancelcheck-vectors");
        assert_eq!(doc["dialects"][0]["dialect"], d.id());
    }
    let names = |p: &Path| std::fs::read_dir(p).unwrap().count();
    assert_eq!(names(&target), Dialect::ALL.len(), "no temporary file left");

    // Again: identical files are left alone.
    let o = cancelcheck(&["vectors", "--out", t]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout).matches("unchanged").count(),
        Dialect::ALL.len()
    );

    // A different file is refused, named, and left as it was.
    let lsp = target.join("lsp.json");
    std::fs::write(&lsp, "{}\n").unwrap();
    let o = cancelcheck(&["vectors", "--out", t]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("lsp.json") && err.contains("differs"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(std::fs::read_to_string(&lsp).unwrap(), "{}\n");
}

#[test]
fn bad_input_exits_2_saying_what_was_expected() {
    let o = cancelcheck(&["vectors", "--dialect", "mcp"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--dialect") && err.contains("mcp-2025-11-25"),
        "{err}"
    );
    let o = cancelcheck(&["vectors", "--json", "--out", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("cannot be used with"));
}
