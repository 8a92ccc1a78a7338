//! The clause vectors under `properties/vectors/`: every file reads, every (invariant,
//! dialect) application of the catalog has its vectors, and a fresh checker gives each vector
//! the verdict it states (the invariant broken with its strength at the stated event, or not
//! broken, or the race reached or not), breaking nothing else.

use cancelcheck_model::Dialect;
use cancelcheck_properties::vector;
use cancelcheck_properties::{CATALOG, Expect, Strength, VectorFile};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Every file in the directory, read from disk (not the copies compiled in), by file name.
fn on_disk() -> Vec<VectorFile> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("properties/vectors/ exists")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(dir().join(n)).expect("readable");
            VectorFile::parse(n, &text).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

#[test]
fn one_file_per_dialect_named_for_it_and_compiled_in() {
    let files = on_disk();
    assert_eq!(files.len(), Dialect::ALL.len(), "one file per dialect");
    for f in &files {
        assert_eq!(
            f.file,
            format!("{}.json", f.dialect.id()),
            "file named for its dialect"
        );
        let (_, compiled) = vector::files()
            .find(|(n, _)| *n == f.file)
            .unwrap_or_else(|| panic!("{} is not in vector::files()", f.file));
        let text = std::fs::read_to_string(dir().join(&f.file)).unwrap();
        assert_eq!(compiled, text, "{}: the compiled-in copy differs", f.file);
    }
    let shipped = VectorFile::shipped().unwrap();
    let order: Vec<Dialect> = shipped.iter().map(|f| f.dialect).collect();
    assert_eq!(order, Dialect::ALL, "files() in Dialect::ALL order");
}

#[test]
fn every_application_has_a_vector_each_way() {
    let files = on_disk();
    let mut missing = Vec::new();
    for inv in CATALOG.iter() {
        for app in inv.applies() {
            let f = files.iter().find(|f| f.dialect == app.dialect).unwrap();
            let wanted = if app.strength == Strength::Coverage {
                [Expect::Reaches, Expect::Misses]
            } else {
                [Expect::Breaks, Expect::Honours]
            };
            for e in wanted {
                if !f
                    .vectors
                    .iter()
                    .any(|v| v.invariant == inv.id && v.expect == e)
                {
                    missing.push(format!("{} {} {}", app.dialect, inv.name, e.as_str()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "no vector for:\n{}", missing.join("\n"));
}

#[test]
fn every_vector_gets_the_verdict_it_states() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in on_disk() {
        for v in &f.vectors {
            match v.check(f.dialect) {
                Ok(_) => checked += 1,
                Err(e) => failures.push(format!("{} {:?}: {e}", f.file, v.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 2 * CATALOG.iter().map(|i| i.applies().len()).sum::<usize>());
}

#[test]
fn breaking_vectors_are_cut_at_the_violation_or_end_the_run() {
    // Minimal: nothing follows the event that breaks the invariant, except in a vector
    // whose point is what happens at the end of the run.
    for f in on_disk() {
        for v in f.vectors.iter().filter(|v| v.expect == Expect::Breaks) {
            let at = v.raised_at.unwrap() as usize;
            assert_eq!(
                at + 1,
                v.events.len(),
                "{} {:?}: events after the violation",
                f.file,
                v.name
            );
        }
    }
}

#[test]
fn vectors_are_grouped_by_invariant_in_catalog_order() {
    for f in on_disk() {
        let ids: Vec<usize> = f.vectors.iter().map(|v| v.invariant as usize).collect();
        assert!(
            ids.windows(2).all(|w| w[0] <= w[1]),
            "{}: out of catalog order",
            f.file
        );
        for v in &f.vectors {
            assert!(
                v.name.starts_with(&format!("{}/", v.invariant)),
                "{} {:?}: name it <invariant>/<case>",
                f.file,
                v.name
            );
            assert!(
                !v.description.is_empty(),
                "{} {:?}: no description",
                f.file,
                v.name
            );
        }
    }
}
