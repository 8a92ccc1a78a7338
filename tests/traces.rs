//! The regression corpus: every trace under `traces/` re-runs to the same events, the same
//! verdict and the same bytes; and every faulty behaviour of every dialect has a trace there
//! that shows it breaking what it claims to break.

use cancelcheck::trace_file::{read_trace, replay};
use cancelcheck_model::{Behaviour, Dialect};
use cancelcheck_properties::breaks::classify;
use std::path::PathBuf;

fn corpus() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("traces/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// With `CANCELCHECK_RERECORD=1`, a trace whose events re-run exactly but whose verdict or
/// bytes differ (after a deliberate change to the checker or the trace format) is written
/// again as this build writes it, and named on stderr; `git diff traces/` then shows what
/// changed. A trace whose events diverge is never rewritten.
#[test]
fn every_saved_trace_replays_exactly() {
    let files = corpus();
    assert!(!files.is_empty(), "the corpus is empty");
    let rerecord = std::env::var_os("CANCELCHECK_RERECORD").is_some_and(|v| v == "1");
    for f in &files {
        let doc = read_trace(f).unwrap_or_else(|e| panic!("{e}"));
        let r = replay(&doc);
        assert_eq!(r.diverged_at, None, "{} diverged", f.display());
        if rerecord && r.origin_matches && !(r.verdict_matches && r.bytes_identical) {
            std::fs::write(f, cancelcheck::trace_file::trace_text(&r.fresh)).expect("write");
            eprintln!("re-recorded {}", f.display());
            continue;
        }
        assert!(r.verdict_matches, "{}: verdict differs", f.display());
        assert!(
            r.bytes_identical,
            "{}: bytes differ from a fresh run",
            f.display()
        );
    }
}

#[test]
fn every_fault_has_a_failing_trace_in_the_corpus() {
    let docs: Vec<_> = corpus()
        .iter()
        .map(|f| read_trace(f).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    for d in Dialect::ALL {
        for b in Behaviour::all() {
            let Some(c) = classify(b, d) else { continue };
            if !c.faulty() {
                continue;
            }
            let shown = docs.iter().any(|doc| {
                doc.scenario.dialect == d
                    && doc.scenario.behaviour == b
                    && doc.verdict["violations"].as_array().is_some_and(|vs| {
                        vs.iter()
                            .any(|v| c.breaks.iter().any(|i| v["invariant"] == i.name()))
                    })
            });
            assert!(
                shown,
                "no trace in traces/ shows {d} {b} breaking {:?}",
                c.breaks
            );
        }
    }
}

/// Every trace of the corpus judged with the checker's settled records retired after every
/// event (`Checker::retire_settled`, as `audit` and `watch` do) gives the verdict its run gave:
/// losses, copies, reused ids, late cancels and request trees included.
#[test]
fn every_saved_trace_is_judged_alike_with_settled_records_retired() {
    use cancelcheck_properties::Checker;
    for f in corpus() {
        let doc = read_trace(&f).unwrap_or_else(|e| panic!("{e}"));
        let t = replay(&doc).fresh;
        let judge = |retire: bool| {
            let mut c = Checker::new(t.scenario.dialect, 4);
            c.set_fifo(t.scenario.link.order == cancelcheck_sim::link::Order::Fifo);
            for e in &t.events {
                c.observe(&e.event);
                if retire {
                    c.retire_settled();
                }
            }
            c.take_verdict()
        };
        assert_eq!(judge(true), judge(false), "{}", f.display());
    }
}
