//! Pictures that tell the truth: the mermaid diagram speaks the wire's words, draws messages
//! that never arrived as such, marks every event that breaks an invariant, and the HTML page
//! stands alone. Where mermaid's own renderer (`mmdc`) and Chromium are installed, the diagram
//! is rendered for real; elsewhere that test says why it was skipped.

use cancelcheck::render;
use cancelcheck::trace_file;
use cancelcheck_properties::Event;
use cancelcheck_sim::{Scenario, Trace, run_seed};
use std::path::Path;

mod common;
use common::{Scratch, cancelcheck, text};

/// A corpus trace, re-run.
fn corpus(name: &str) -> Trace {
    let doc = trace_file::read_trace(&Path::new("traces").join(name)).expect("corpus trace");
    trace_file::replay(&doc).fresh
}

/// Rust's `Debug` text for the model's types, which a picture must never show.
const DEBUG_TEXT: [&str; 8] = [
    "Reply(",
    "Full",
    "Initialized {",
    "cancel_support:",
    "Some(",
    "Request { id",
    "Cancel { id",
    "Outcome",
];

#[test]
fn the_diagram_speaks_the_wire_s_words() {
    for name in [
        "acp--answers-twice--seed-2.json",
        "mcp-2025-11-25--answers-after-cancel--seed-1.json",
        "lsp--wrong-error-code--seed-1.json",
        "abp--answers-twice--seed-3.json",
    ] {
        let d = render::mermaid(&corpus(name));
        for bad in DEBUG_TEXT {
            assert!(!d.contains(bad), "{name}: {bad:?} in\n{d}");
        }
        assert!(d.starts_with("sequenceDiagram\n"), "{name}");
    }
    let d = render::mermaid(&corpus("acp--answers-twice--seed-2.json"));
    for words in [
        "id=0 initialize",
        // An ACP prompt turn: cancelled by its session, ended by a stop reason.
        "session/cancel {#quot;sessionId#quot;:#quot;sess-3#quot;}",
        "id=3 result {#quot;stopReason#quot;:#quot;cancelled#quot;}",
        "id=1 result {#quot;stopReason#quot;:#quot;end_turn#quot;}",
    ] {
        assert!(d.contains(words), "lacks {words:?}:\n{d}");
    }
    let d = render::mermaid(&corpus("mcp-2025-11-25--answers-after-cancel--seed-1.json"));
    assert!(d.contains("notifications/cancelled"), "{d}");
    let d = render::mermaid(&corpus("abp--answers-twice--seed-3.json"));
    assert!(d.contains("capabilities/call"), "{d}");
}

#[test]
fn every_breaking_event_is_marked_and_the_first_of_each_is_the_verdict_s() {
    // The checker keeps the first violation of each invariant; the pictures find them all.
    let t = corpus("acp--answers-twice--seed-2.json");
    let every = render::every_violation(&t);
    // Each of two late answers breaks two invariants: single-resolution, and (ending a
    // cancelled prompt turn normally) prompt-cancelled-stop-reason.
    assert_eq!(t.verdict.violations.len(), 2);
    assert_eq!(every.len(), 4, "{every:?}");
    let d = render::mermaid(&t);
    assert_eq!(d.matches("✗ single-resolution (MUST)").count(), 2, "{d}");
    let timeline = render::text(&t);
    assert!(
        timeline.contains("2 events break an invariant (4 breaches)"),
        "{timeline}"
    );
    // Over the whole corpus, the first of each invariant is exactly what the verdict holds.
    let mut seen_more = 0;
    for entry in std::fs::read_dir("traces").expect("traces/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let t = trace_file::replay(&trace_file::read_trace(&path).expect("trace")).fresh;
        let every = render::every_violation(&t);
        let mut firsts = Vec::new();
        for v in &every {
            if !firsts
                .iter()
                .any(|f: &cancelcheck_properties::Violation| f.invariant == v.invariant)
            {
                firsts.push(*v);
            }
        }
        let mut expected = t.verdict.violations.clone();
        expected.sort_by_key(|v| (v.event, v.invariant.name()));
        firsts.sort_by_key(|v| (v.event, v.invariant.name()));
        assert_eq!(firsts, expected, "{}", path.display());
        seen_more += every.len() - expected.len();
    }
    assert!(seen_more > 0, "no corpus trace breaks an invariant twice");
}

/// The default scenario with `f` applied, checked.
fn scenario(f: impl Fn(&mut Scenario)) -> Scenario {
    let mut s = Scenario::default_for(cancelcheck_model::Dialect::Acp);
    f(&mut s);
    s.validate().expect("valid");
    s
}

#[test]
fn lost_and_undelivered_messages_are_drawn_as_such() {
    let lossy = scenario(|s| s.link.loss_permille = 300);
    let t = Trace::from_run(&lossy, run_seed(&lossy, 1, true));
    let lost = t
        .events
        .iter()
        .filter(|e| matches!(e.event, Event::Lost { .. }))
        .count();
    assert!(lost > 0, "seed 1 loses nothing");
    let d = render::mermaid(&t);
    assert_eq!(
        d.matches("-x").count() - d.matches("--x").count(),
        lost,
        "{d}"
    );
    assert_eq!(d.matches(": LOST: ").count(), lost, "{d}");

    // A run cut short with messages still on their way.
    let cut = scenario(|s| s.max_events = 12);
    let t = Trace::from_run(&cut, run_seed(&cut, 0, true));
    let (mut sent, mut received) = (0, 0);
    for e in &t.events {
        match e.event {
            Event::Output {
                output: cancelcheck_model::Output::Send(_),
                ..
            } => sent += 1,
            Event::Input {
                input: cancelcheck_model::Input::Receive(_),
                ..
            } => received += 1,
            _ => {}
        }
    }
    assert!(sent > received, "nothing in flight at the end");
    let d = render::mermaid(&t);
    assert_eq!(
        d.matches("NEVER DELIVERED (in flight at the end)").count(),
        sent - received,
        "{d}"
    );
    assert!(d.contains("--x"), "{d}");
}

#[test]
fn the_html_page_stands_alone() {
    let tmp = Scratch::new("html");
    let _ = tmp;
    let o = cancelcheck(&[
        "replay",
        "traces/acp--answers-twice--seed-2.json",
        "--format",
        "html",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let page = text(&o.stdout);
    assert!(page.starts_with("<!DOCTYPE html>"));
    for part in [
        "<svg",
        "verdict: fail (a MUST broken",
        "Timeline",
        "single-resolution",
        "$/cancel_request",
    ] {
        assert!(page.contains(part), "lacks {part:?}");
    }
    // Nothing is loaded from elsewhere: no script, no stylesheet, no image, no link; the
    // addresses it shows (the clauses' sources) are text.
    for loads in [
        "<script", "<link", "<img", "src=", "href=", "@import", "url(http",
    ] {
        assert!(!page.contains(loads), "the page loads something: {loads}");
    }
    // The marks of every breaking event are drawn.
    // (two events, each breaking two invariants)
    assert_eq!(page.matches("fill=\"#fde7ea\"").count(), 4);
}

/// `mmdc` (from the npm package `@mermaid-js/mermaid-cli`): `CANCELCHECK_MMDC`, or on `PATH`.
fn mmdc() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("CANCELCHECK_MMDC") {
        return Some(p.into());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("mmdc"))
            .find(|p| p.is_file())
    })
}

#[test]
fn mermaid_s_own_renderer_draws_the_diagram() {
    let Some(mmdc) = mmdc() else {
        eprintln!(
            "SKIPPED: mmdc not found (npm install @mermaid-js/mermaid-cli with PUPPETEER_SKIP_DOWNLOAD=1, then put node_modules/.bin on PATH or set CANCELCHECK_MMDC)"
        );
        return;
    };
    let chromium = std::env::var("CANCELCHECK_CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    if !Path::new(&chromium).is_file() {
        eprintln!(
            "SKIPPED: no Chromium at {chromium} (apt-get install chromium, or set CANCELCHECK_CHROMIUM)"
        );
        return;
    }
    let tmp = Scratch::new("mmdc");
    let config = tmp.path().join("puppeteer.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"executablePath": "{chromium}", "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]}}"#
        ),
    )
    .expect("config");
    for name in [
        "acp--answers-twice--seed-2.json",
        "mcp-2026-07-28--reuses-live-id--explore-n2-reordering-3steps.json",
        "abp--crashes-on-unknown-cancel--seed-2.json",
    ] {
        let input = tmp.path().join("d.mmd");
        let output = tmp.path().join("d.svg");
        std::fs::write(&input, render::mermaid(&corpus(name))).expect("write");
        let o = std::process::Command::new(&mmdc)
            .arg("-p")
            .arg(&config)
            .arg("-i")
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .output()
            .expect("mmdc runs");
        assert!(
            o.status.success(),
            "{name}: mmdc failed: {}{}",
            text(&o.stdout),
            text(&o.stderr)
        );
        let svg = std::fs::read_to_string(&output).expect("svg");
        // Mermaid draws a syntax error as a picture of the error: refuse that.
        assert!(
            !svg.contains("Syntax error"),
            "{name}: mermaid could not parse it"
        );
        assert!(svg.contains("Client") && svg.contains("Server"), "{name}");
    }
}
