//! Every normative sentence of the texts is placed: the texts under `shared/specs/` beside the
//! checkout (skipped, with a message, where that folder is absent, as in a user's clone) are
//! split into sentences (`clauses::segment`), and each sentence with a keyword (MUST, SHOULD,
//! MAY, ...: `clauses::strength_of`) must be covered by a catalog quotation or by a row of
//! `clauses::TABLE`. Every row quotes its file word for word, repeats nothing the catalog
//! quotes, and is needed: without it, a sentence is unplaced.

use cancelcheck_model::Dialect;
use cancelcheck_properties::clauses::{
    self, Disposition, Keyword, LEAD_INS, Row, TABLE, Treatment, Unit,
};
use cancelcheck_properties::invariant::files;
use cancelcheck_properties::{CATALOG, Strength, VectorFile};
use std::path::{Path, PathBuf};

fn shared_specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/specs")
}

/// Where `file` is: this repository's `specs/` or `shared/specs/`.
fn path_of(file: &str) -> PathBuf {
    if files::in_repository(file) {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../specs")
            .join(file)
    } else {
        shared_specs().join(file)
    }
}

/// The texts' units with their dialects, or `None` (after saying so) where the texts are
/// absent.
fn units() -> Option<Vec<(&'static str, Dialect, Unit)>> {
    if !shared_specs().is_dir() {
        eprintln!(
            "skipped: {} is absent (as in a user's clone); the clauses are placed where it is",
            shared_specs().display()
        );
        return None;
    }
    let mut all = Vec::new();
    for (file, dialect) in clauses::texts() {
        let text = std::fs::read_to_string(path_of(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        match dialect {
            Some(d) => all.extend(clauses::segment(&text).into_iter().map(|u| (file, d, u))),
            None => {
                for (d, u) in clauses::readme_dialect(&text) {
                    match d {
                        Some(d) => all.push((file, d, u)),
                        None => assert_eq!(
                            clauses::strength_of(&u.text),
                            Keyword::None,
                            "{file}:{}: a keyword outside the table and the facts: {}",
                            u.line,
                            u.text
                        ),
                    }
                }
            }
        }
    }
    Some(all)
}

/// The normative units that neither the catalog nor `rows` place, as messages.
fn unplaced(units: &[(&'static str, Dialect, Unit)], rows: &[&Row]) -> Vec<String> {
    units
        .iter()
        .filter(|(file, _, u)| clauses::strength_in(file, &u.text) != Keyword::None)
        .filter(|(file, d, u)| {
            let by_catalog = CATALOG
                .iter()
                .filter_map(|i| i.application(*d))
                .any(|a| a.clause.file == *file && clauses::quoted_in(a.clause.clause, &u.text));
            let by_table = rows.iter().any(|r| {
                r.dialect == *d && r.file == *file && clauses::quoted_in(r.quote, &u.text)
            });
            !by_catalog && !by_table
        })
        .map(|(file, d, u)| {
            format!(
                "{d} {file}:{} {}: {}",
                u.line,
                clauses::strength_in(file, &u.text).as_str(),
                clauses::normal(&u.text)
            )
        })
        .collect()
}

#[test]
fn every_normative_sentence_is_placed() {
    let Some(units) = units() else { return };
    let rows: Vec<&Row> = TABLE.iter().collect();
    let missing = unplaced(&units, &rows);
    assert!(
        missing.is_empty(),
        "normative sentences neither the catalog quotes nor clauses::TABLE places:\n{}",
        missing.join("\n")
    );
    // The extraction found what the texts hold: every text has normative sentences.
    for (file, _) in clauses::texts() {
        assert!(
            units
                .iter()
                .any(|(f, _, u)| *f == file && clauses::strength_in(f, &u.text) != Keyword::None),
            "{file}: no normative sentence found"
        );
    }
}

/// The test above can fail: without any one row that quotes a sentence with a keyword, that
/// sentence is unplaced.
#[test]
fn every_row_with_a_keyword_is_needed() {
    let Some(units) = units() else { return };
    for (i, r) in TABLE.iter().enumerate() {
        if clauses::strength_in(r.file, r.quote) == Keyword::None {
            continue;
        }
        let rows: Vec<&Row> = TABLE
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != i)
            .map(|(_, r)| r)
            .collect();
        assert!(
            !unplaced(&units, &rows).is_empty(),
            "{} {}: the row places nothing the catalog or another row does not: {}",
            r.dialect,
            r.file,
            r.quote
        );
    }
}

/// Whether `quote` stands within one unit of `file` stated for `dialect`.
fn in_a_unit(units: &[(&'static str, Dialect, Unit)], file: &str, d: Dialect, quote: &str) -> bool {
    units
        .iter()
        .any(|(f, ud, u)| *f == file && *ud == d && clauses::quoted_in(quote, &u.text))
}

#[test]
fn every_row_is_quoted_from_its_file_within_one_sentence() {
    let Some(units) = units() else { return };
    let mut wrong = Vec::new();
    for r in TABLE {
        if !in_a_unit(&units, r.file, r.dialect, r.quote) {
            wrong.push(format!("{} {}: {:?}", r.dialect, r.file, r.quote));
        }
        if let Treatment::Superseded { by, .. } = r.status
            && !in_a_unit(&units, files::README, r.dialect, by)
        {
            wrong.push(format!(
                "{} superseded by {:?}: not a fact of README.md",
                r.dialect, by
            ));
        }
    }
    for (file, quote, lead) in LEAD_INS {
        let both = format!("{lead} ... {quote}");
        if !units
            .iter()
            .any(|(f, _, u)| f == file && clauses::quoted_in(&both, &u.text))
        {
            wrong.push(format!("{file}: lead-in {both:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "not quoted word for word within one sentence:\n{}",
        wrong.join("\n")
    );
}

/// The keyword the words before `quote` in `sentence` carry (in its cell, for a table row):
/// a lead-in's keyword binds what follows it.
fn keyword_before(file: &str, quote: &str, sentence: &str) -> Option<Keyword> {
    let first = clauses::normal(quote.split(" ... ").next().unwrap_or_default());
    let text = clauses::normal(sentence);
    let before = &text[..text.find(&first)?];
    let before = before.rsplit('|').next().unwrap_or(before);
    Some(clauses::strength_in(file, before)).filter(|k| *k != Keyword::None)
}

/// Each clause `cancelcheck clauses` lists (the catalog's quotations, merged where they quote
/// one sentence, and the table's rows) stands within one sentence of its file; one whose
/// words carry no keyword has none before it in its sentence either (else it would show a
/// weaker clause than the text states).
#[test]
fn every_clause_is_part_of_one_sentence_with_its_keyword() {
    let Some(units) = units() else { return };
    let vectors = VectorFile::shipped().unwrap();
    let mut wrong = Vec::new();
    for d in Dialect::ALL {
        for c in clauses::clauses(d, &vectors) {
            if c.file == files::JSONRPC {
                continue;
            }
            let holding: Vec<&Unit> = units
                .iter()
                .filter(|(f, ud, u)| {
                    *f == c.file && *ud == d && clauses::quoted_in(&c.quote, &u.text)
                })
                .map(|(_, _, u)| u)
                .collect();
            if holding.is_empty() {
                wrong.push(format!("{d} {}: in no sentence: {:?}", c.file, c.quote));
            } else if c.strength == Keyword::None
                && let Some(k) = holding
                    .iter()
                    .find_map(|u| keyword_before(c.file, &c.quote, &u.text))
            {
                wrong.push(format!(
                    "{d} {}: shows no keyword where its sentence says {} before it (a lead-in \
                     to add to clauses::LEAD_INS?): {:?}",
                    c.file,
                    k.as_str(),
                    c.quote
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_table_repeats_nothing_the_catalog_quotes() {
    for (i, r) in TABLE.iter().enumerate() {
        for inv in CATALOG.iter() {
            let Some(a) = inv.application(r.dialect) else {
                continue;
            };
            if a.clause.file == r.file {
                assert!(
                    !clauses::quoted_in(a.clause.clause, r.quote)
                        && !clauses::quoted_in(r.quote, a.clause.clause),
                    "{} {}: {:?} repeats the catalog's quotation for {}",
                    r.dialect,
                    r.file,
                    r.quote,
                    inv.name
                );
            }
        }
        for o in &TABLE[..i] {
            assert!(
                !(o.dialect == r.dialect && o.file == r.file && o.quote == r.quote),
                "{} {}: {:?} twice",
                r.dialect,
                r.file,
                r.quote
            );
        }
    }
}

#[test]
fn judged_rows_name_rules_of_their_dialect_and_every_row_says_why() {
    for r in TABLE {
        let why = match r.status {
            Treatment::Judged { by, why } => {
                assert!(!by.is_empty(), "{}: judged by nothing", r.quote);
                for id in by {
                    let a = id.info().application(r.dialect).unwrap_or_else(|| {
                        panic!("{}: {} does not apply in {}", r.quote, id, r.dialect)
                    });
                    assert_ne!(
                        a.strength,
                        Strength::Coverage,
                        "{}: {id} is a race",
                        r.quote
                    );
                }
                why
            }
            Treatment::NotJudgeable(why)
            | Treatment::NotModelled(why)
            | Treatment::NotAnObligation(why)
            | Treatment::Superseded { why, .. } => why,
        };
        assert!(why.len() > 20, "{}: say why", r.quote);
    }
}

/// Every judged clause is shown both ways: `properties/tests/vectors.rs` requires a breaking
/// and an honouring vector for every application, and the clauses are judged by
/// applications. Every clause not judged says why.
#[test]
fn every_judged_clause_is_judged_both_ways() {
    let vectors = VectorFile::shipped().unwrap();
    for d in Dialect::ALL {
        let list = clauses::clauses(d, &vectors);
        assert!(
            list.iter().any(|c| c.state == Disposition::Judged),
            "{d}: nothing judged"
        );
        for c in &list {
            assert_eq!(
                c.state == Disposition::Judged,
                c.judged_both_ways(),
                "{d}: {:?}",
                c.quote
            );
            assert!(
                c.state == Disposition::Judged || c.why.is_some(),
                "{d}: {:?} is not judged and says not why",
                c.quote
            );
            if c.state == Disposition::Exercised {
                assert!(c.judges.iter().all(|j| j.both_ways()), "{d}: {:?}", c.quote);
            }
        }
        // Every application of the dialect judges or exercises some clause.
        for inv in CATALOG.iter().filter(|i| i.application(d).is_some()) {
            assert!(
                list.iter()
                    .any(|c| c.in_catalog && c.judges.iter().any(|j| j.invariant == inv.id)),
                "{d}: {} judges no clause",
                inv.name
            );
        }
    }
}

/// The keyword `quote` carries where it stands in a unit of dialect `d` (or in the JSON-RPC
/// sentences), `None` where it stands in none.
fn keyword_where_quoted(
    units: &[(&'static str, Dialect, Unit)],
    d: Dialect,
    quote: &str,
) -> Option<Keyword> {
    let rpc = std::fs::read_to_string(path_of(files::JSONRPC)).expect("json-rpc-2.0.md");
    let rpc_units: Vec<(&'static str, Dialect, Unit)> = clauses::segment(&rpc)
        .into_iter()
        .map(|u| (files::JSONRPC, d, u))
        .collect();
    units
        .iter()
        .chain(&rpc_units)
        .find(|(_, ud, u)| *ud == d && clauses::quoted_in(quote, &u.text))
        .map(|(f, _, _)| clauses::strength_in(f, quote))
}

/// Every finding has the strength of the sentence it quotes, in every dialect: a rule applied
/// under a sentence that carries a keyword (as `clauses::strength_in` reads its text) has that
/// keyword's strength; a MAY permits and binds nothing, so no rule stands under one. A rule
/// applied under a sentence without a keyword names in `bound_by` the sentence of its
/// dialect's texts whose keyword binds the same duty, and says in its note how the two meet:
/// that sentence stands in the texts and carries the rule's strength. What no keyword binds is
/// a note (`Strength::Note`), never a MUST or SHOULD: it stands under a sentence without a
/// keyword or under a MAY whose bound it states, and its note says why.
#[test]
fn every_rule_has_the_strength_of_the_sentence_it_quotes() {
    let Some(units) = units() else { return };
    let vectors = VectorFile::shipped().unwrap();
    let mut wrong = Vec::new();
    for d in Dialect::ALL {
        for c in clauses::clauses(d, &vectors)
            .iter()
            .filter(|c| c.in_catalog)
        {
            for j in c.judges.iter().filter(|j| j.is_rule()) {
                let a = j.invariant.info().application(d).expect("applies");
                let holds = |k: Keyword| match k {
                    Keyword::Must => j.strength == Strength::Must,
                    Keyword::Should => j.strength == Strength::Should,
                    Keyword::May | Keyword::None => false,
                };
                let same = match (j.strength, c.strength) {
                    // A note states what a sentence without a keyword (or the bound of a MAY)
                    // says, and says why; under a MUST or a SHOULD it would understate it.
                    (Strength::Note, Keyword::None | Keyword::May) => {
                        a.note.is_some() && a.bound_by.is_none()
                    }
                    (Strength::Note, _) => false,
                    (_, Keyword::None) => a.bound_by.is_some_and(|b| {
                        a.note.is_some() && keyword_where_quoted(&units, d, b).is_some_and(holds)
                    }),
                    (_, k) => holds(k),
                };
                if !same {
                    wrong.push(format!(
                        "{d} {} {} under {} {:?} (bound by {:?})",
                        j.invariant,
                        j.strength.as_str(),
                        c.strength.as_str(),
                        c.quote,
                        a.bound_by
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
