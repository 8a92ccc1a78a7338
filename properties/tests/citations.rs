//! Every clause the catalog cites is quoted word for word from the file it names: the spec
//! texts in `shared/specs/` beside the checkout (skipped, with a message, where that folder is
//! absent, as in a user's clone) and the released MCP 2026-07-28 text, the JSON-RPC 2.0 and the LSP
//! 3.17 sentences in this repository's `specs/`.

use cancelcheck_properties::CATALOG;
use cancelcheck_properties::clauses::quoted_in;
use cancelcheck_properties::invariant::files;
use std::path::{Path, PathBuf};

fn shared_specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/specs")
}

fn text_of(file: &str) -> Option<String> {
    let path = if files::in_repository(file) {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../specs")
            .join(file)
    } else {
        shared_specs().join(file)
    };
    std::fs::read_to_string(path).ok()
}

#[test]
fn every_clause_is_quoted_from_the_file_it_cites() {
    if !shared_specs().is_dir() {
        eprintln!(
            "skipped: {} is absent (as in a user's clone); the quotations are checked where it is",
            shared_specs().display()
        );
        return;
    }
    let mut wrong = Vec::new();
    for inv in CATALOG.iter() {
        for a in inv.applies() {
            let Some(text) = text_of(a.clause.file) else {
                wrong.push(format!(
                    "{} {}: no file {}",
                    inv.name, a.dialect, a.clause.file
                ));
                continue;
            };
            if !quoted_in(a.clause.clause, &text) {
                wrong.push(format!(
                    "{} {}: not in {}: {:?}",
                    inv.name, a.dialect, a.clause.file, a.clause.clause
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "misquoted clauses:\n{}", wrong.join("\n"));
}

/// The comparison (`clauses::quoted_in`: markdown emphasis, code ticks and link targets
/// dropped, typographic quotes made plain, white space folded) can fail: a paraphrase, a
/// fragment out of order and a word changed are each refused.
#[test]
fn a_paraphrase_is_not_a_quotation() {
    let text = "Receivers **SHOULD**:\n- Stop processing the `cancelled` request\n- Free resources";
    assert!(quoted_in("Receivers SHOULD: ... Free resources", text));
    assert!(quoted_in("Stop processing the cancelled request", text));
    assert!(!quoted_in("Free resources ... Receivers SHOULD", text));
    assert!(!quoted_in("Stop processing the canceled request", text));
    assert!(quoted_in("see the spec", "see [the spec](/a/b)"));
}
