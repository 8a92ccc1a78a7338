//! Every clause the catalog quotes can be opened upstream: it has a public address and a
//! section, and, where the project's copies of the texts are beside the checkout, that section
//! is a heading of the text the clause is quoted from.

use cancelcheck_properties::CATALOG;
use cancelcheck_properties::invariant::files;
use std::path::{Path, PathBuf};

fn shared_specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/specs")
}

#[test]
fn every_clause_has_a_public_address_and_a_section() {
    let mut missing = Vec::new();
    for inv in CATALOG.iter() {
        for a in inv.applies() {
            match a.source() {
                Some(s) if s.url.starts_with("https://") && !s.section.is_empty() => {
                    assert!(
                        !s.url.ends_with(".md"),
                        "{}: a file name, not an address",
                        s.url
                    );
                }
                other => missing.push(format!("{} {}: {other:?}", inv.name, a.dialect)),
            }
        }
    }
    assert!(
        missing.is_empty(),
        "clauses without an address:\n{}",
        missing.join("\n")
    );
}

#[test]
fn each_section_is_where_the_clause_stands() {
    if !shared_specs().is_dir() {
        eprintln!(
            "skipped: {} is absent (as in a user's clone)",
            shared_specs().display()
        );
        return;
    }
    let mut wrong = Vec::new();
    for inv in CATALOG.iter() {
        for a in inv.applies() {
            // The facts of the dialect table and the JSON-RPC sentences are not laid out under
            // the upstream headings; the five texts and LSP's sentences are.
            if [files::README, files::JSONRPC].contains(&a.clause.file) {
                continue;
            }
            let s = a.source().expect("covered by the other test");
            let path = if files::in_repository(a.clause.file) {
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../specs")
                    .join(a.clause.file)
            } else {
                shared_specs().join(a.clause.file)
            };
            let text = std::fs::read_to_string(path).expect("text");
            let first = a.clause.clause.split(" ... ").next().unwrap_or_default();
            let norm = |t: &str| {
                t.replace(['*', '`'], "")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            // The text normalised line by line (the same as normalising it whole), and where
            // in it each heading line (`#`) stands, with its words.
            let mut body = String::new();
            let mut heading_lines: Vec<(usize, String)> = Vec::new();
            for line in text.lines() {
                let n = norm(line);
                if n.is_empty() {
                    continue;
                }
                if !body.is_empty() {
                    body.push(' ');
                }
                if line.starts_with('#') {
                    heading_lines.push((body.len(), norm(line.trim_start_matches('#'))));
                }
                body.push_str(&n);
            }
            let at = body.find(&norm(first)[..norm(first).len().min(40)]);
            // Of the headings the catalog names in this text, the nearest before the clause
            // is its section's (the last part of the section's path). A section that a heading
            // line (`#`) of the text names is found at its heading lines only (a heading names
            // it when its words are the section's last part, or end with ": " and them: the
            // file that gathers several pages of a revision heads a page's section "page:
            // section"); one no heading line names (the RFD's sections are bold lines) is
            // searched for in the words of the text.
            let last = |section: &str| norm(section.rsplit(": ").next().unwrap_or(section));
            let headings: Vec<String> = CATALOG
                .iter()
                .flat_map(|i| i.applies().iter())
                .filter(|b| b.clause.file == a.clause.file)
                .filter_map(|b| b.source())
                .map(|b| last(b.section))
                .collect();
            let names = |line: &str, h: &str| line == h || line.ends_with(&format!(": {h}"));
            let nearest = at.and_then(|i| {
                headings
                    .iter()
                    .filter_map(|h| {
                        if heading_lines.iter().any(|(_, line)| names(line, h)) {
                            heading_lines
                                .iter()
                                .filter(|(p, line)| *p <= i && names(line, h))
                                .map(|(p, _)| (*p, h))
                                .next_back()
                        } else {
                            body[..i].rfind(h.as_str()).map(|p| (p, h))
                        }
                    })
                    .max()
                    .map(|(_, h)| h.clone())
            });
            if nearest.as_deref() != Some(last(s.section).as_str()) {
                wrong.push(format!(
                    "{} {}: {:?}, but the nearest heading before {first:?} is {nearest:?}",
                    inv.name, a.dialect, s.section
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "sections that do not hold their clause:\n{}",
        wrong.join("\n")
    );
}
