//! `cancelcheck tree` and the nesting in `replay --format mermaid`: the markers and the
//! highlighted path land on the requests the events say they should, in every format; a trace
//! without nesting is drawn as roots and says so; bad input is refused with the file and the
//! field, exit 2, never a panic. And the request tree agrees with the online checker on
//! `cascade-complete` over simulated runs of every behaviour with request trees.

use cancelcheck::render;
use cancelcheck::trace_file;
use cancelcheck_model::message::CancelCause;
use cancelcheck_model::{
    Command, Dialect, Input, Message, Outcome, Output, Party, Reply, RequestId,
};
use cancelcheck_properties::tree::{CancelReason, Fate};
use cancelcheck_properties::{Event, InvariantId};
use cancelcheck_sim::{Scenario, Trace, run_seed};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::{Scratch, cancelcheck, json_out, text};

/// `dialect`'s default scenario with `behaviour`, request trees of depth 3 and fan-out 2, and
/// `patch` applied to its workload (as JSON, so that the test names fields as a scenario file
/// does); not yet validated.
fn nested(dialect: Dialect, behaviour: &str, patch: Value) -> Scenario {
    let mut s = serde_json::to_value(Scenario::default_for(dialect)).expect("scenario as JSON");
    s["behavior"] = json!(behaviour);
    s["workload"]["nesting"] = json!({"depth": 3, "fanout": 2});
    if let Value::Object(p) = patch {
        for (k, v) in p {
            s["workload"][k] = v;
        }
    }
    serde_json::from_value(s).expect("scenario")
}

/// One client request, a tree below it, no noise: what the README draws.
fn small_tree(behaviour: &str) -> Scenario {
    let s = nested(
        Dialect::AcpRfd,
        behaviour,
        json!({
            "requests": 1,
            "server_requests": 0,
            "progress_permille": 0,
            "malformed_cancel_permille": 0,
            "internal_cancel_permille": 0,
            "repeat_cancel_permille": 0,
            "timeout": {"uniform": [20000, 40000]},
        }),
    );
    s.validate().expect("valid scenario");
    s
}

fn run(s: &Scenario, seed: u64) -> Trace {
    Trace::from_run(s, run_seed(s, seed, true))
}

/// A request as the events name it: requester and id (the traces here reuse no id).
type Req = (Party, RequestId);

/// What the events of `t` say, read without the request tree: the edges of `Output::Nested`,
/// the requests their application cancelled, and those given up for their parent's cancel.
struct Facts {
    edges: BTreeSet<(Req, Req)>,
    by_application: BTreeSet<Req>,
    by_parent: BTreeSet<Req>,
    requests: BTreeSet<Req>,
}

fn facts(t: &Trace) -> Facts {
    let mut f = Facts {
        edges: BTreeSet::new(),
        by_application: BTreeSet::new(),
        by_parent: BTreeSet::new(),
        requests: BTreeSet::new(),
    };
    for e in &t.events {
        match e.event {
            Event::Output {
                party,
                output: Output::Nested { parent, child },
            } => {
                f.edges.insert(((party.peer(), parent), (party, child)));
            }
            Event::Output {
                party,
                output: Output::Send(Message::Request { id, .. }),
            } => {
                f.requests.insert((party, id));
            }
            Event::Input {
                party,
                input: Input::Command(Command::Cancel(id)),
            } => {
                f.by_application.insert((party, id));
            }
            Event::Output {
                party,
                output:
                    Output::Deliver {
                        id,
                        outcome: Outcome::Cancelled(CancelCause::Parent),
                    },
            } => {
                f.by_parent.insert((party, id));
            }
            _ => {}
        }
    }
    f
}

/// A saved trace of forgets-grandchild in the small tree: the application cancels the root,
/// its children are cancelled in the cascade, and the grandchildren are forgotten (the
/// checker's `cascade-complete` names one of them). The seed is searched for, so that a change
/// to the model's draws does not break the test.
struct Saved {
    _dir: Scratch,
    path: PathBuf,
    trace: Trace,
    /// The request the checker says the cascade missed.
    missed: Req,
}

fn forgotten_grandchild(name: &str) -> Saved {
    let s = small_tree("forgets-grandchild");
    let (trace, missed) = (0..200)
        .find_map(|seed| {
            let t = run(&s, seed);
            let f = facts(&t);
            let v = t
                .verdict
                .violations
                .iter()
                .find(|v| v.invariant == InvariantId::CascadeComplete)?;
            let id = v.id?;
            let ok = f.by_application.len() == 1 && !f.by_parent.is_empty();
            ok.then_some((t, (Party::Client, id)))
        })
        .expect("a seed below 200 forgets a grandchild after one cancel with a cascade");
    let dir = Scratch::new(name);
    let path = trace_file::save(dir.path(), &trace).expect("saved").path;
    Saved {
        _dir: dir,
        path,
        trace,
        missed,
    }
}

/// The line of the text drawing for `req`: the label after the tree's connectors is
/// `party method id=N`.
fn line_of(drawing: &str, (party, id): Req) -> &str {
    drawing
        .lines()
        .find(|l| {
            let label = l.trim_start_matches(|c: char| "│├└┣┗━─┄ ".contains(c));
            let words: Vec<&str> = label.split_whitespace().collect();
            words.len() >= 3 && words[0] == party.name() && words[2] == format!("id={id}")
        })
        .unwrap_or_else(|| panic!("no line for {party:?} {id} in\n{drawing}"))
}

fn ok(args: &[&str]) -> String {
    let o = cancelcheck(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    text(&o.stdout)
}

#[test]
fn the_text_tree_marks_the_cancel_s_path_and_what_it_missed() {
    let saved = forgotten_grandchild("text-tree");
    let f = facts(&saved.trace);
    let file = saved.path.to_str().expect("utf-8 path");
    let drawing = ok(&["tree", file]);

    let root = *f.by_application.first().expect("one cancel");
    let l = line_of(&drawing, root);
    assert!(
        l.contains("✗ cancelled (application)") && l.contains("◆ cancel path"),
        "{l}"
    );
    for &child in &f.by_parent {
        let l = line_of(&drawing, child);
        assert!(l.contains("✗ cancelled (parent's cascade)"), "{l}");
        assert!(l.contains("◆ cancel path"), "{l}");
        assert!(l.contains("┣━ ") || l.contains("┗━ "), "a bold edge: {l}");
    }
    let l = line_of(&drawing, saved.missed);
    assert!(l.contains("! missed by the cascade"), "{l}");
    assert!(!l.contains("◆"), "{l}");
    assert!(l.contains("├┄ ") || l.contains("└┄ "), "a dotted edge: {l}");
    // Off the path: initialize is a root of its own, answered.
    let l = line_of(&drawing, (Party::Client, RequestId::Int(0)));
    assert!(l.starts_with("client initialize id=0"), "{l}");
    assert!(
        l.contains("✓ answered: initialized") && !l.contains('◆'),
        "{l}"
    );
    // Every request is drawn once, indented below its parent.
    let tree_lines = drawing
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("cancel paths:") && !l.starts_with("legend:"));
    assert_eq!(tree_lines.count(), f.requests.len(), "{drawing}");
    let summary = format!("  {} id={} (application, event ", root.0.name(), root.1);
    let path_line = drawing
        .lines()
        .find(|l| l.starts_with(&summary))
        .unwrap_or_else(|| panic!("no cancel path for the root in\n{drawing}"));
    let (_, missed) = path_line.split_once("; MISSED ").expect("a missed list");
    assert!(
        missed
            .split(", ")
            .any(|r| r == format!("{} id={}", saved.missed.0.name(), saved.missed.1)),
        "{path_line}"
    );
    assert!(drawing.contains("legend: ✓ answered"), "{drawing}");
    assert!(!drawing.contains("no nesting"), "{drawing}");
}

/// `--json`: a node per request and an edge per `Output::Nested`, with the path marks of the
/// text drawing; the index of each node is what dot and mermaid name it by.
fn json_tree(path: &Path) -> Value {
    let o = cancelcheck(&["tree", path.to_str().expect("utf-8"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    json_out(&o)
}

/// The node index `--json` gives `req`.
fn index_of(tree: &Value, (party, id): Req) -> u64 {
    tree["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["party"] == party.name() && n["id"] == cancelcheck::wire::id_json(id))
        .and_then(|n| n["node"].as_u64())
        .unwrap_or_else(|| panic!("no node for {party:?} {id}"))
}

#[test]
fn json_dot_and_mermaid_put_the_marks_on_the_same_requests() {
    let saved = forgotten_grandchild("formats");
    let f = facts(&saved.trace);
    let tree = json_tree(&saved.path);
    assert_eq!(tree["nesting"], true);
    assert_eq!(tree["reproduced"], true);
    assert_eq!(
        tree["nodes"].as_array().map(Vec::len),
        Some(f.requests.len())
    );
    // The edges are exactly the events' `Nested` links.
    let mut edges: BTreeSet<(u64, u64)> = BTreeSet::new();
    for e in tree["edges"].as_array().expect("edges") {
        edges.insert((
            e["from"].as_u64().expect("from"),
            e["to"].as_u64().expect("to"),
        ));
    }
    let expected: BTreeSet<(u64, u64)> = f
        .edges
        .iter()
        .map(|&(p, c)| (index_of(&tree, p), index_of(&tree, c)))
        .collect();
    assert_eq!(edges, expected);

    let root = index_of(&tree, *f.by_application.first().expect("root"));
    let reached: Vec<u64> = f.by_parent.iter().map(|&r| index_of(&tree, r)).collect();
    let missed = index_of(&tree, saved.missed);
    let node = |i: u64| &tree["nodes"][i as usize];
    assert_eq!(node(root)["cancel_path"], "origin");
    assert_eq!(node(root)["cancel"]["reason"], "application");
    for &r in &reached {
        assert_eq!(node(r)["cancel_path"], "reached");
        assert_eq!(node(r)["state"], "cancelled");
        assert_eq!(node(r)["cancel"]["reason"], "parent's cascade");
    }
    assert_eq!(node(missed)["cancel_path"], "missed");
    assert!(
        tree["cascade_gaps"]
            .as_array()
            .expect("gaps")
            .contains(&json!(missed))
    );
    let file = saved.path.to_str().expect("utf-8");

    // dot: the path's nodes and edges bold red, the missed request dashed red.
    let dot = ok(&["tree", file, "--format", "dot"]);
    assert!(dot.starts_with("digraph requests {"), "{dot}");
    let stmt = |i: u64| {
        dot.lines()
            .find(|l| l.trim_start().starts_with(&format!("n{i} [")))
            .unwrap_or_else(|| panic!("no n{i} in\n{dot}"))
    };
    for i in std::iter::once(root).chain(reached.iter().copied()) {
        let s = stmt(i);
        assert!(s.contains("color=\"#c62828\"") && s.contains("bold"), "{s}");
    }
    let s = stmt(missed);
    assert!(
        s.contains("color=\"#c62828\"") && s.contains("dashed"),
        "{s}"
    );
    assert!(stmt(0).contains("client initialize id=0") && !stmt(0).contains("#c62828"));
    for &r in &reached {
        let edge = format!("n{root} -> n{r} [color=\"#c62828\", penwidth=3, style=bold];");
        assert!(dot.contains(&edge), "lacks {edge} in\n{dot}");
    }
    let into_missed = dot
        .lines()
        .find(|l| l.contains(&format!("-> n{missed} ")))
        .expect("an edge into the missed request");
    assert!(
        into_missed.contains("style=dashed, label=\"missed\""),
        "{into_missed}"
    );

    // mermaid: the path by class and linkStyle.
    let m = ok(&["tree", file, "--format", "mermaid"]);
    assert!(m.contains("\nflowchart TD\n"), "{m}");
    let class_line = |class: &str| {
        m.lines()
            .find(|l| l.trim_start().starts_with("class ") && l.ends_with(&format!(" {class}")))
            .unwrap_or_else(|| panic!("no class {class} in\n{m}"))
            .trim_start()
            .trim_start_matches("class ")
            .trim_end_matches(&format!(" {class}"))
            .split(',')
            .map(str::to_string)
            .collect::<BTreeSet<String>>()
    };
    let mut path: BTreeSet<String> = reached.iter().map(|r| format!("n{r}")).collect();
    path.insert(format!("n{root}"));
    assert_eq!(class_line("path"), path);
    assert!(class_line("missed").contains(&format!("n{missed}")));
    for &r in &reached {
        assert!(m.contains(&format!("    n{root} ==> n{r}\n")), "{m}");
    }
    assert!(m.contains(&format!("-.->|missed| n{missed}\n")), "{m}");
    assert!(m.contains("classDef path stroke:#c62828"), "{m}");
    let styled = m
        .lines()
        .filter(|l| l.trim_start().starts_with("linkStyle "))
        .count();
    assert_eq!(
        styled, 2,
        "one linkStyle for reached edges, one for missed:\n{m}"
    );
}

#[test]
fn a_trace_without_nesting_is_drawn_as_roots_and_says_so() {
    let file = "traces/acp--answers-twice--seed-2.json";
    let drawing = ok(&["tree", file]);
    assert!(drawing.contains("\nno nesting: "), "{drawing}");
    assert!(
        !drawing.contains('◆') && !drawing.contains("├"),
        "{drawing}"
    );
    let tree = json_tree(Path::new(file));
    assert_eq!(tree["nesting"], false);
    assert_eq!(tree["edges"], json!([]));
    assert_eq!(
        tree["roots"].as_array().map(Vec::len),
        tree["nodes"].as_array().map(Vec::len)
    );
    assert!(ok(&["tree", file, "--format", "mermaid"]).contains("no nesting"));
    let dot = ok(&["tree", file, "--format", "dot"]);
    assert!(dot.contains("no nesting") && !dot.contains("->"), "{dot}");
}

#[test]
fn string_ids_are_escaped_in_every_format() {
    let mut s = small_tree("honour");
    s.workload.ids.strings = true;
    let t = run(&s, 0);
    let dir = Scratch::new("string-ids");
    let path = trace_file::save(dir.path(), &t).expect("saved").path;
    let file = path.to_str().expect("utf-8");
    let dot = ok(&["tree", file, "--format", "dot"]);
    assert!(dot.contains("id=\\\""), "{dot}");
    let m = ok(&["tree", file, "--format", "mermaid"]);
    assert!(m.contains("id=#quot;") && !m.contains("id=\""), "{m}");
    let tree = json_tree(&path);
    assert!(tree["nodes"][1]["id"].is_string(), "{tree}");
}

#[test]
fn bad_input_names_the_file_and_the_field() {
    let dir = Scratch::new("bad");
    let good: Value = serde_json::from_str(
        &std::fs::read_to_string("traces/acp--answers-twice--seed-2.json").expect("corpus"),
    )
    .expect("json");
    let write = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).expect("write");
        p
    };
    let mut deep = good.clone();
    deep["config"]["workload"]["nesting"] = json!({"depth": 9, "fanout": 2});
    let mut no_events = good.clone();
    no_events.as_object_mut().expect("object").remove("events");
    let cases = [
        (
            write("truncated.json", "{\"format\": \"cancelcheck-trace\", "),
            "not valid JSON at line 1",
        ),
        (
            write("deep.json", &deep.to_string()),
            "field `config.workload.nesting.depth`",
        ),
        (
            write("no-events.json", &no_events.to_string()),
            "field `events`: missing",
        ),
        (
            write("probe.json", r#"{"kind": "probe", "version": 1}"#),
            "a probe trace records only the wire",
        ),
        (dir.path().join("absent.json"), "cannot be read"),
    ];
    for (path, says) in cases {
        let file = path.to_str().expect("utf-8");
        for format in ["text", "dot", "mermaid"] {
            let o = cancelcheck(&["tree", file, "--format", format]);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{file}: {err}");
            assert!(o.stdout.is_empty(), "{file}");
            assert!(err.contains(file) && err.contains(says), "{file}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    // A recording the re-run does not reproduce: the re-run is drawn, and exit 1 says so.
    let mut edited = good;
    edited["events"][3]["t"] = json!(999_999);
    let path = write("edited.json", &edited.to_string());
    let o = cancelcheck(&["tree", path.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("request tree of "));
    assert!(text(&o.stderr).contains("diverged from the recording at event 3"));
}

#[test]
fn the_sequence_diagram_names_each_nested_request_s_parent_and_each_cascade() {
    let saved = forgotten_grandchild("sequence");
    let d = render::mermaid(&saved.trace);
    let who = |p: Party| if p == Party::Client { "C" } else { "S" };
    let f = facts(&saved.trace);
    for &((pp, pid), (cp, cid)) in &f.edges {
        let arrow = format!("    {}->>{}: id={cid} ", who(cp), who(pp));
        let suffix = format!(" (for {} id={pid})", pp.name());
        assert!(
            d.lines()
                .any(|l| l.starts_with(&arrow) && l.ends_with(&suffix)),
            "no arrow {arrow:?}...{suffix:?} in\n{d}"
        );
    }
    // Each nested request is received once (no loss, no copies here), and only those say so.
    assert_eq!(d.matches(" (for ").count(), f.edges.len(), "{d}");
    // The children's cancels carry on the root's.
    let root = f.by_application.first().expect("root");
    let cascades = d
        .lines()
        .filter(|l| l.ends_with(&format!(" (cascade of {} id={})", root.0.name(), root.1)))
        .count();
    assert_eq!(cascades, f.by_parent.len(), "{d}");
    // Without nesting, nothing of the kind.
    let corpus = trace_file::read_trace(Path::new("traces/acp--answers-twice--seed-2.json"))
        .expect("corpus");
    let flat = render::mermaid(&trace_file::replay(&corpus).fresh);
    assert!(
        !flat.contains("(for ") && !flat.contains("(cascade of "),
        "{flat}"
    );
}

/// The checker's gaps in cascades (the one judgement of `cascade-complete`, and of
/// `cascade-on-give-up` where a handler gave its request up) are what its
/// verdict reports, and the tree draws each on a cancel's path (missed, or reached and never resolved); the tree's
/// finding of a child sent after its parent's cancel agrees with the checker's
/// `no-child-after-cancel`; over simulated runs of every behaviour with request trees, with
/// losses and copies, reordering and reused ids, and disconnects. Runs where the checker found
/// an id reused while live are left out: from then on it stops reporting what the confusion of
/// two requests leads to, by design.
#[test]
fn the_checker_judges_cascades_and_the_tree_draws_them_in_simulated_runs() {
    let behaviours = [
        "honour",
        "forgets-grandchild",
        "answers-parent-first",
        "cancels-sibling-subtree",
        "spawns-after-cancel",
        "leaves-child-pending",
    ];
    let variants = [
        json!({}),
        json!({"requests": 2}),
        json!({"ids": {"first": 0, "strings": false, "reuse_answered": true}}),
    ];
    let (mut runs, mut gaps, mut spawns) = (0, 0, 0);
    for dialect in [Dialect::AcpRfd, Dialect::Mcp20251125, Dialect::Mcp20260728] {
        for b in behaviours {
            for (k, v) in variants.iter().enumerate() {
                let mut s = nested(dialect, b, v.clone());
                match k {
                    1 => {
                        s.link.loss_permille = 100;
                        s.link.duplicate_permille = 100;
                        s.link.disconnect_permille = 20;
                    }
                    2 => s.link.order = cancelcheck_sim::link::Order::Reordering,
                    _ => {}
                }
                if s.validate().is_err() {
                    continue;
                }
                for seed in 0..60 {
                    let t = run(&s, seed);
                    let violated = t.verdict.violated();
                    if violated.contains(InvariantId::NoLiveIdReuse) {
                        continue;
                    }
                    let tree = cancelcheck::render::request_tree(&t);
                    let gaps_found = cancelcheck::render::checked(&t, false).cascade_gaps();
                    assert_eq!(
                        gaps_found.is_empty(),
                        !(violated.contains(InvariantId::CascadeComplete)
                            || violated.contains(InvariantId::CascadeOnGiveUp)),
                        "{} {b} variant {k} seed {seed}: gaps {gaps_found:?}, verdict {:?}",
                        dialect.id(),
                        t.verdict.violations
                    );
                    // The tree draws each gap the checker names on a cancel's path.
                    let drawn = tree.on_cancel_paths();
                    for (party, id, _) in &gaps_found {
                        assert!(
                            drawn.contains(&(*party, *id)),
                            "{} {b} variant {k} seed {seed}: gap {party:?} {id:?} not drawn: {drawn:?}",
                            dialect.id()
                        );
                    }
                    let spawned = tree.nodes().any(|(n, _)| tree.sent_after_parent_cancel(n));
                    assert_eq!(
                        spawned,
                        violated.contains(InvariantId::NoChildAfterCancel)
                            || violated.contains(InvariantId::NoChildAfterGiveUp),
                        "{} {b} variant {k} seed {seed}: no-child-after-cancel",
                        dialect.id(),
                    );
                    spawns += usize::from(spawned);
                    runs += 1;
                    gaps += usize::from(!gaps_found.is_empty());
                }
            }
        }
    }
    assert!(runs > 1000, "{runs} runs compared");
    assert!(
        gaps > 100,
        "only {gaps} runs with a gap: the comparison proves little"
    );
    assert!(
        spawns > 20,
        "only {spawns} runs spawned a child after a cancel"
    );
}

/// A program on `PATH` (or named by the environment variable `var`).
fn tool(var: &str, name: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(p.into());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// Where Graphviz (`dot`) and mermaid's own renderer (`mmdc`, with Chromium) are installed,
/// the drawings are rendered for real; elsewhere the test says why it was skipped.
#[test]
fn graphviz_and_mermaid_render_the_drawings() {
    let saved = forgotten_grandchild("render");
    let file = saved.path.to_str().expect("utf-8");
    let tmp = Scratch::new("render-out");
    match tool("CANCELCHECK_DOT", "dot") {
        None => eprintln!("SKIPPED dot: Graphviz not found (apt-get install graphviz)"),
        Some(dot) => {
            let input = tmp.path().join("t.dot");
            std::fs::write(&input, ok(&["tree", file, "--format", "dot"])).expect("write");
            let o = std::process::Command::new(dot)
                .arg("-Tsvg")
                .arg(&input)
                .output()
                .expect("dot runs");
            assert!(o.status.success(), "{}", text(&o.stderr));
            assert!(text(&o.stdout).contains("<svg"));
        }
    }
    let chromium = std::env::var("CANCELCHECK_CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    match tool("CANCELCHECK_MMDC", "mmdc") {
        None => eprintln!(
            "SKIPPED mermaid: mmdc not found (npm install @mermaid-js/mermaid-cli with PUPPETEER_SKIP_DOWNLOAD=1, then put node_modules/.bin on PATH or set CANCELCHECK_MMDC)"
        ),
        Some(_) if !Path::new(&chromium).is_file() => {
            eprintln!("SKIPPED mermaid: no Chromium at {chromium} (set CANCELCHECK_CHROMIUM)")
        }
        Some(mmdc) => {
            let config = tmp.path().join("puppeteer.json");
            std::fs::write(
                &config,
                format!(
                    r#"{{"executablePath": "{chromium}", "args": ["--no-sandbox", "--disable-gpu", "--no-first-run"]}}"#
                ),
            )
            .expect("config");
            let input = tmp.path().join("t.mmd");
            let output = tmp.path().join("t.svg");
            std::fs::write(&input, ok(&["tree", file, "--format", "mermaid"])).expect("write");
            let o = std::process::Command::new(mmdc)
                .arg("-p")
                .arg(&config)
                .arg("-i")
                .arg(&input)
                .arg("-o")
                .arg(&output)
                .output()
                .expect("mmdc runs");
            assert!(o.status.success(), "{}", text(&o.stderr));
            let svg = std::fs::read_to_string(&output).expect("svg");
            assert!(
                svg.contains("missed by the cascade"),
                "the labels are drawn"
            );
        }
    }
}

/// A nested request whose cascade cancel crossed its ordinary answer (the answer won): the
/// first such request over seeds of the ACP RFD's built-in scenario (trees of 2x2), with the
/// trace it is in, saved.
fn crossed_cascade(name: &str) -> (Scratch, PathBuf, Req) {
    let s = Scenario::built_in(Dialect::AcpRfd, cancelcheck_model::Behaviour::Honour);
    let (trace, req) = (0..300)
        .find_map(|seed| {
            let t = run(&s, seed);
            let tree = cancelcheck::render::request_tree(&t);
            let (_, x) = tree.nodes().find(|(n, x)| {
                tree.parent(*n).is_some()
                    && x.cancel.is_some_and(|c| c.reason == CancelReason::Cascade)
                    && x.cancel_taken.is_none()
                    && x.outcome
                        .is_some_and(|(_, o)| o == Outcome::Reply(Reply::Full))
            })?;
            Some((t, (x.requester, x.id)))
        })
        .expect("a seed below 300 where a cascade cancel crosses an answer");
    let dir = Scratch::new(name);
    let path = trace_file::save(dir.path(), &trace).expect("saved").path;
    (dir, path, req)
}

/// A request whose cancel crossed its ordinary answer (the answer won) is drawn answered, and
/// the drawing says its cancel crossed the answer; in `--json` its state agrees with its reply
/// (`answered` beside `result`, never `cancelled`), and it still stands on its cascade's path.
#[test]
fn a_cascade_cancel_that_crossed_an_answer_is_drawn_answered() {
    let (_dir, path, req) = crossed_cascade("crossed");
    let file = path.to_str().expect("utf-8 path");
    let drawing = ok(&["tree", file]);
    let l = line_of(&drawing, req);
    assert!(l.contains("✓ answered: result"), "{l}");
    assert!(l.contains("crossed"), "{l}");
    assert!(!l.contains("✗ cancelled"), "{l}");
    let tree = json_tree(&path);
    let node = &tree["nodes"][index_of(&tree, req) as usize];
    assert_eq!(node["state"], "answered", "{node:#}");
    assert_eq!(node["reply"], "result", "{node:#}");
    assert_eq!(node["cancel"]["reason"], "parent's cascade", "{node:#}");
    assert_eq!(node["cancel_crossed_answer"], true, "{node:#}");
    assert_eq!(node["cancel_path"], "reached", "{node:#}");
}

/// Over every trace of the corpus, each request's state in `--json` agrees with its reply: a
/// request answered has a reply; one cancelled has none, or one that carries its cancel (a
/// cancelled answer, a partial result, an error), never an ordinary result.
#[test]
fn every_corpus_request_s_state_agrees_with_its_reply() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/traces"))
        .expect("the corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() > 100);
    let mut answered_after_cancel = 0;
    for f in &files {
        let doc = trace_file::read_trace_within(f, trace_file::DEFAULT_MAX_INPUT_BYTES)
            .expect("a corpus trace");
        let t = trace_file::replay(&doc).fresh;
        let tree = cancelcheck::render::request_tree(&t);
        for (n, x) in tree.nodes() {
            let reply = match x.outcome {
                Some((_, Outcome::Reply(r))) => Some(r),
                _ => None,
            };
            match x.state() {
                Fate::Answered(r) => {
                    assert_eq!(reply, Some(r), "{}: node {}", f.display(), n.index());
                    answered_after_cancel += usize::from(x.cancel.is_some());
                }
                Fate::Cancelled(_) => assert!(
                    !matches!(reply, Some(Reply::Full | Reply::Initialized { .. })),
                    "{}: node {} cancelled beside an ordinary answer {reply:?}",
                    f.display(),
                    n.index()
                ),
                Fate::Disconnected | Fate::Running => {}
            }
        }
    }
    assert!(answered_after_cancel > 0, "the corpus has answers that won");
}
