//! `cancelcheck tree`: draw a trace's request tree (which request was sent on behalf of
//! which), each request marked answered, cancelled, still running or orphaned, and the path of
//! every cancel highlighted: the request cancelled, the descendants its cascade reached, and
//! those it owed and missed.

use super::{ExitCode, emit, plural, print_out};
use cancelcheck::render::{mermaid_text, origin_text};
use cancelcheck::trace_file::{self, InputError};
use cancelcheck::wire::{id_json, message_json};
use cancelcheck_model::message::Method;
use cancelcheck_model::{Dialect, Message, Reply};
use cancelcheck_properties::RequestTree;
use cancelcheck_properties::tree::{CancelPath, Fate, Node, NodeIndex};
use cancelcheck_sim::Trace;
use clap::ValueEnum;
use serde::Serialize;
use serde_json::Value;
use std::fmt::{self, Write as _};
use std::path::PathBuf;

/// `--format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// An indented tree, one request a line, with markers and a legend.
    Text,
    /// Graphviz `dot` (`dot -Tsvg`): cancel paths in bold red.
    Dot,
    /// A mermaid `flowchart`: cancel paths by `classDef` and `linkStyle`.
    Mermaid,
}

/// `tree`'s flags.
#[derive(clap::Args)]
#[command(
    after_help = "The trace is re-run (as `replay` does) and its events drawn. Exit 0 when it reproduced, 1 when the re-run diverged from the recording (the re-run is drawn, and the first differing event named on stderr), 2 for a file that is not a readable trace."
)]
pub struct TreeArgs {
    /// The trace file (as `run --save` or `explore` write it).
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The nodes and edges as one JSON object instead of a drawing.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// The largest input file read, in bytes (default 16 MiB); larger files are refused.
    #[arg(long, default_value_t = trace_file::DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: u64,
}

/// Where a request stands with respect to the cancels of its trace (in JSON: `origin`,
/// `reached`, `missed`, or `null`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum OnPath {
    /// On no cancel's path.
    #[default]
    No,
    /// The request a cancel gave up first.
    Origin,
    /// Given up in the cascade of an ancestor's cancel.
    Reached,
    /// Owed an ancestor's cascade and missed by it.
    Missed,
}

impl Serialize for OnPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            OnPath::No => s.serialize_none(),
            OnPath::Origin => s.serialize_str("origin"),
            OnPath::Reached => s.serialize_str("reached"),
            OnPath::Missed => s.serialize_str("missed"),
        }
    }
}

/// One request of the tree, as reported.
#[derive(Serialize)]
struct NodeReport {
    /// Its index in `nodes` (the order sent).
    node: usize,
    party: &'static str,
    method: String,
    id: Value,
    /// 1 for the first request its party sent with this id, 2 for the second, ...
    generation: u32,
    parent: Option<usize>,
    depth: usize,
    /// The event that sent it.
    sent: u64,
    /// `answered`, `cancelled`, `disconnected` or `running`.
    state: &'static str,
    /// The answer its requester received, when it received one.
    reply: Option<String>,
    /// When and why its requester gave it up.
    cancel: Option<CancelReport>,
    /// Its requester gave it up, and its handler's ordinary answer, sent before the handler
    /// read the cancel, crossed that cancel and won (`state` is then `answered`).
    cancel_crossed_answer: bool,
    /// When its handler gave it up on its own account (internal cancellation).
    given_up: Option<u64>,
    /// When its parent was answered or dropped while it was unresolved.
    orphaned: Option<u64>,
    /// Sent after its parent's handler took a cancel for the parent or gave it up.
    sent_after_parent_cancel: bool,
    request_lost: bool,
    cancel_path: OnPath,
}

#[derive(Serialize)]
struct CancelReport {
    event: u64,
    reason: &'static str,
}

#[derive(Serialize)]
struct EdgeReport {
    from: usize,
    to: usize,
    /// `reached` or `missed` for an edge on a cancel's path, `null` otherwise.
    cancel_path: OnPath,
}

#[derive(Serialize)]
struct PathReport {
    origin: usize,
    event: u64,
    /// Why its requester gave it up; `given-up-by-handler` for an internal cancellation.
    reason: &'static str,
    reached: Vec<usize>,
    missed: Vec<usize>,
}

/// The request tree of one trace file.
#[derive(Serialize)]
struct TreeReport {
    file: String,
    dialect: &'static str,
    behavior: &'static str,
    origin: String,
    /// Whether any request was sent on behalf of another.
    nesting: bool,
    /// Whether the re-run reproduced the recording (the tree is the re-run's).
    reproduced: bool,
    roots: Vec<usize>,
    nodes: Vec<NodeReport>,
    edges: Vec<EdgeReport>,
    cancels: Vec<PathReport>,
    /// Requests owed a cascade that did not get it (judged when the run ended quiescent).
    cascade_gaps: Vec<usize>,
    /// The indented drawing, for people.
    #[serde(skip)]
    text: String,
}

impl fmt::Display for TreeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `tree`.
pub fn cmd(args: TreeArgs) -> anyhow::Result<ExitCode> {
    refuse_probe_trace(&args)?;
    let doc = trace_file::read_trace_within(&args.file, args.max_input_bytes)
        .map_err(|e: InputError| anyhow::anyhow!(e))?;
    let r = trace_file::replay(&doc);
    let t = &r.fresh;
    let tree = cancelcheck::render::request_tree(t);
    let drawing = Drawing::new(&tree, t.scenario.dialect);
    let title = format!(
        "{} {} {}",
        t.scenario.dialect.id(),
        t.scenario.behaviour.name(),
        origin_text(t)
    );
    if args.json {
        emit(&drawing.report(&args, t, &title, r.reproduced()), true);
    } else {
        print_out(match args.format {
            Format::Text => drawing.text(&args.file.display().to_string(), &title),
            Format::Dot => drawing.dot(&title),
            Format::Mermaid => drawing.mermaid(&title),
        });
    }
    if r.reproduced() {
        return Ok(ExitCode::SUCCESS);
    }
    let at = r
        .diverged_at
        .map_or("its verdict or origin".to_string(), |i| {
            format!("event {i}")
        });
    eprintln!(
        "cancelcheck: {}: the re-run diverged from the recording at {at}; the tree drawn is the re-run's (see `cancelcheck replay {}`)",
        args.file.display(),
        args.file.display()
    );
    Ok(ExitCode(1))
}

/// A probe trace records only what crossed the wire, and the wire does not say which request
/// was sent on behalf of which.
fn refuse_probe_trace(args: &TreeArgs) -> anyhow::Result<()> {
    let Ok(text) = trace_file::read_text(&args.file, args.max_input_bytes) else {
        // The reading below names what is wrong.
        return Ok(());
    };
    let Ok(v) = serde_json::from_str::<Value>(&text) else {
        return Ok(());
    };
    if v.get("kind").and_then(Value::as_str) == Some("probe") {
        anyhow::bail!(
            "{}: field `kind`: a probe trace records only the wire, which does not say which request was sent on behalf of which, so it has no request tree; `cancelcheck replay {}` re-judges it",
            args.file.display(),
            args.file.display()
        );
    }
    Ok(())
}

/// A tree and everything its drawings share: labels, states, and each node's and edge's place
/// on the cancels' paths.
struct Drawing<'a> {
    tree: &'a RequestTree,
    dialect: Dialect,
    /// Every cancel not made by a cascade (see [`RequestTree::cancels`]).
    all_cancels: usize,
    /// The paths of those cancels that gave up a request with requests below it.
    cancels: Vec<CancelPath>,
    /// Per node: its place on a cancel's path (an origin wins over reached, reached over
    /// missed, should two cancels meet).
    on_path: Vec<OnPath>,
    /// Per edge: `Reached`, `Missed` or `No`.
    edge_path: Vec<OnPath>,
}

impl<'a> Drawing<'a> {
    fn new(tree: &'a RequestTree, dialect: Dialect) -> Self {
        // A cancel of a request with nothing below it has no path to draw beyond its own mark.
        let cancels: Vec<CancelPath> = tree
            .cancels()
            .into_iter()
            .filter(|p| !tree.children(p.origin).is_empty())
            .collect();
        let all_cancels = tree.cancels().len();
        let mut on_path = vec![OnPath::No; tree.len()];
        let mut edge_path = vec![OnPath::No; tree.nested()];
        let mark = |slot: &mut OnPath, m: OnPath| {
            let rank = |p: OnPath| match p {
                OnPath::No => 0,
                OnPath::Missed => 1,
                OnPath::Reached => 2,
                OnPath::Origin => 3,
            };
            if rank(m) > rank(*slot) {
                *slot = m;
            }
        };
        for p in &cancels {
            mark(&mut on_path[p.origin.index()], OnPath::Origin);
            for n in &p.reached {
                mark(&mut on_path[n.index()], OnPath::Reached);
            }
            for n in &p.missed {
                mark(&mut on_path[n.index()], OnPath::Missed);
            }
            for (e, _, to) in tree.edges().filter(|(e, _, _)| p.edges.contains(e)) {
                let m = if p.missed.contains(&to) {
                    OnPath::Missed
                } else {
                    OnPath::Reached
                };
                mark(&mut edge_path[e.index()], m);
            }
        }
        Drawing {
            tree,
            dialect,
            all_cancels,
            cancels,
            on_path,
            edge_path,
        }
    }

    fn node(&self, n: NodeIndex) -> &Node {
        self.tree.node(n)
    }

    /// `client tools/call id=1` (and `#2` for the second request with that id).
    fn label(&self, n: NodeIndex) -> String {
        let x = self.node(n);
        let generation = if x.generation > 1 {
            format!(" #{}", x.generation)
        } else {
            String::new()
        };
        format!(
            "{} {} id={}{generation}",
            x.requester.name(),
            method_name(self.dialect, x.method),
            x.id
        )
    }

    /// `client id=1`, for the lists of a cancel's path.
    fn short(&self, n: NodeIndex) -> String {
        let x = self.node(n);
        let generation = if x.generation > 1 {
            format!(" #{}", x.generation)
        } else {
            String::new()
        };
        format!("{} id={}{generation}", x.requester.name(), x.id)
    }

    /// What became of the request: `✓ answered: result`, `✗ cancelled (application)`, ...
    fn state(&self, n: NodeIndex) -> String {
        let x = self.node(n);
        let mut s = match x.state() {
            Fate::Answered(r) => format!("✓ answered: {}", reply_text(r)),
            Fate::Cancelled(why) => format!("✗ cancelled ({})", why.as_str()),
            Fate::Disconnected => "⨯ disconnected before an answer".to_string(),
            Fate::Running => "… still running".to_string(),
        };
        if x.state() == Fate::Running
            && let Some(c) = x.cancel
        {
            let _ = write!(s, " after its cancel ({})", c.reason.as_str());
        }
        if let Some(c) = x.answer_won() {
            if x.cancel_crossed_answer() {
                let _ = write!(s, ", crossed by its cancel ({})", c.reason.as_str());
            } else {
                let _ = write!(
                    s,
                    ", finished after its cancel ({}) was read",
                    c.reason.as_str()
                );
            }
        }
        if let Some(g) = x.given_up {
            let _ = write!(s, ", given up by its handler at event {g}");
        }
        if x.request_lost {
            s.push_str(", request lost");
        }
        s
    }

    /// The markers after the state: orphaned, on a cancel's path, missed by a cascade.
    fn markers(&self, n: NodeIndex) -> Vec<&'static str> {
        let mut m = Vec::new();
        match self.on_path[n.index()] {
            OnPath::Origin | OnPath::Reached => m.push("◆ cancel path"),
            OnPath::Missed => m.push("! missed by the cascade"),
            OnPath::No => {}
        }
        if self.node(n).orphaned.is_some() {
            m.push("⚠ orphaned");
        }
        if self.tree.sent_after_parent_cancel(n) {
            m.push("↯ sent after its parent's cancel");
        }
        m
    }

    /// The tree's nodes depth first, each with the edge that leads to it (none for a root)
    /// and whether it is its parent's last child, and the flags of its ancestors' lines.
    fn walk(&self) -> Vec<(NodeIndex, Vec<bool>, Option<OnPath>)> {
        let mut out = Vec::new();
        for r in self.tree.roots() {
            self.walk_from(r, &mut Vec::new(), None, &mut out);
        }
        out
    }

    fn walk_from(
        &self,
        n: NodeIndex,
        lasts: &mut Vec<bool>,
        edge: Option<OnPath>,
        out: &mut Vec<(NodeIndex, Vec<bool>, Option<OnPath>)>,
    ) {
        out.push((n, lasts.clone(), edge));
        let children: Vec<(NodeIndex, OnPath)> = self
            .tree
            .children(n)
            .into_iter()
            .map(|c| {
                let p = self
                    .tree
                    .edge_to(c)
                    .map_or(OnPath::No, |e| self.edge_path[e.index()]);
                (c, p)
            })
            .collect();
        let k = children.len();
        for (i, (c, p)) in children.into_iter().enumerate() {
            lasts.push(i + 1 == k);
            self.walk_from(c, lasts, Some(p), out);
            lasts.pop();
        }
    }

    /// The indented tree, a summary of each cancel's path, and a legend.
    fn text(&self, file: &str, title: &str) -> String {
        let mut out = String::new();
        let nested = self.tree.nested();
        let _ = writeln!(
            out,
            "request tree of {file}: {title}: {}, {} nested, {}{}",
            plural(self.tree.len() as u64, "request", "requests"),
            nested,
            plural(self.all_cancels as u64, "cancel", "cancels"),
            if nested == 0 {
                String::new()
            } else {
                format!(
                    " ({} of a request with nested requests)",
                    self.cancels.len()
                )
            }
        );
        if nested == 0 {
            let _ = writeln!(
                out,
                "no nesting: no request was sent on behalf of another, so each is a root"
            );
        }
        let lines: Vec<(String, NodeIndex)> = self
            .walk()
            .into_iter()
            .map(|(n, lasts, edge)| {
                let mut prefix = String::new();
                if let Some((last, above)) = lasts.split_last() {
                    for l in above {
                        prefix.push_str(if *l { "   " } else { "│  " });
                    }
                    prefix.push_str(match (edge, *last) {
                        (Some(OnPath::Reached), false) => "┣━ ",
                        (Some(OnPath::Reached), true) => "┗━ ",
                        (Some(OnPath::Missed), false) => "├┄ ",
                        (Some(OnPath::Missed), true) => "└┄ ",
                        (_, false) => "├─ ",
                        (_, true) => "└─ ",
                    });
                }
                (format!("{prefix}{}", self.label(n)), n)
            })
            .collect();
        let width = lines
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (line, n) in &lines {
            let pad = width - line.chars().count();
            let mut rest = vec![self.state(*n)];
            rest.extend(self.markers(*n).into_iter().map(str::to_string));
            let _ = writeln!(out, "{line}{}  {}", " ".repeat(pad), rest.join("  "));
        }
        if !self.cancels.is_empty() {
            let _ = writeln!(out, "cancel paths:");
            for p in &self.cancels {
                let list = |ns: &[NodeIndex]| {
                    if ns.is_empty() {
                        "none".to_string()
                    } else {
                        ns.iter()
                            .map(|&n| self.short(n))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                };
                let _ = write!(
                    out,
                    "  {} ({}, event {}): reached {}",
                    self.short(p.origin),
                    reason_text(p),
                    p.event,
                    list(&p.reached)
                );
                if !p.missed.is_empty() {
                    let _ = write!(out, "; MISSED {}", list(&p.missed));
                }
                out.push('\n');
            }
        }
        out.push_str(
            "legend: ✓ answered (one given up first: its answer won, crossed by its cancel or finished after it)\n\
             \x20       ✗ cancelled (why: application, timeout, parent's cascade, unprompted)\n\
             \x20       … still running at the end  ⨯ disconnected before an answer\n",
        );
        if nested == 0 {
            return out;
        }
        out.push_str(
            "\x20       ⚠ orphaned: its parent was answered or dropped while it was unresolved\n\
             \x20       ↯ sent after its parent's handler took a cancel for the parent (or gave it up)\n\
             \x20       ◆ and ┣━ on a cancel's path: the cancelled request and the descendants its cascade reached\n\
             \x20       ! and ├┄ owed its parent's cascade and missed by it (never cancelled, or cancelled and never resolved)\n",
        );
        out
    }

    /// Graphviz: a box per request filled by its state, cancel paths in bold red, missed
    /// requests and their edges dashed red.
    fn dot(&self, title: &str) -> String {
        const RED: &str = "#c62828";
        let mut out = String::from("digraph requests {\n");
        let caption = if self.tree.has_nesting() {
            format!("{title}: request tree (cancel paths in bold red, missed requests dashed)")
        } else {
            format!("{title}: no nesting, each request is a root")
        };
        let _ = writeln!(
            out,
            "  label=\"{}\";\n  labelloc=t;\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];",
            dot_text(&caption)
        );
        for (n, _) in self.tree.nodes() {
            let x = self.node(n);
            let (fill, border) = match x.state() {
                Fate::Answered(_) => ("#e6f4ea", "#1e7e34"),
                Fate::Cancelled(_) => ("#ffe0b2", "#e65100"),
                Fate::Disconnected => ("#eeeeee", "#616161"),
                Fate::Running => ("#fff9c4", "#f9a825"),
            };
            let mut label = format!(
                "{}\\n{}",
                dot_text(&self.label(n)),
                dot_text(&self.state(n))
            );
            for m in self.markers(n) {
                let _ = write!(label, "\\n{}", dot_text(m));
            }
            let mut style = String::from("rounded,filled");
            if x.state() == Fate::Running {
                style.push_str(",dashed");
            }
            let (color, width) = match self.on_path[n.index()] {
                OnPath::Origin | OnPath::Reached => {
                    style.push_str(",bold");
                    (RED, "3")
                }
                OnPath::Missed => {
                    if !style.contains("dashed") {
                        style.push_str(",dashed");
                    }
                    (RED, "3")
                }
                OnPath::No => (border, "1"),
            };
            let peripheries = if x.orphaned.is_some() { 2 } else { 1 };
            let _ = writeln!(
                out,
                "  n{} [label=\"{label}\", fillcolor=\"{fill}\", color=\"{color}\", penwidth={width}, style=\"{style}\", peripheries={peripheries}];",
                n.index()
            );
        }
        for (e, from, to) in self.tree.edges() {
            let attrs = match self.edge_path[e.index()] {
                OnPath::Reached | OnPath::Origin => {
                    format!(" [color=\"{RED}\", penwidth=3, style=bold]")
                }
                OnPath::Missed => {
                    format!(" [color=\"{RED}\", penwidth=2, style=dashed, label=\"missed\"]")
                }
                OnPath::No => String::new(),
            };
            let _ = writeln!(out, "  n{} -> n{}{attrs};", from.index(), to.index());
        }
        out.push_str("}\n");
        out
    }

    /// Mermaid: a `flowchart` with a class per state, `path` and `missed` classes for the
    /// cancels' paths, and `linkStyle` for their edges.
    fn mermaid(&self, title: &str) -> String {
        let caption = if self.tree.has_nesting() {
            format!("{title}: request tree")
        } else {
            format!("{title}: no nesting, each request is a root")
        };
        let mut out = format!(
            "---\ntitle: \"{}\"\n---\nflowchart TD\n",
            mermaid_text(&caption)
        );
        let mut classes: Vec<(&str, Vec<String>)> = [
            "answered",
            "cancelled",
            "disconnected",
            "running",
            "path",
            "missed",
        ]
        .into_iter()
        .map(|c| (c, Vec::new()))
        .collect();
        let mut add = |class: &str, n: NodeIndex| {
            if let Some((_, v)) = classes.iter_mut().find(|(c, _)| *c == class) {
                v.push(format!("n{}", n.index()));
            }
        };
        for (n, x) in self.tree.nodes() {
            let mut label = format!(
                "{}<br/>{}",
                mermaid_text(&self.label(n)),
                mermaid_text(&self.state(n))
            );
            for m in self.markers(n) {
                let _ = write!(label, "<br/>{}", mermaid_text(m));
            }
            let _ = writeln!(out, "    n{}[\"{label}\"]", n.index());
            add(
                match x.state() {
                    Fate::Answered(_) => "answered",
                    Fate::Cancelled(_) => "cancelled",
                    Fate::Disconnected => "disconnected",
                    Fate::Running => "running",
                },
                n,
            );
            match self.on_path[n.index()] {
                OnPath::Origin | OnPath::Reached => add("path", n),
                OnPath::Missed => add("missed", n),
                OnPath::No => {}
            }
        }
        let mut reached = Vec::new();
        let mut missed = Vec::new();
        for (k, (e, from, to)) in self.tree.edges().enumerate() {
            let arrow = match self.edge_path[e.index()] {
                OnPath::Missed => {
                    missed.push(k.to_string());
                    "-.->|missed|"
                }
                OnPath::Reached | OnPath::Origin => {
                    reached.push(k.to_string());
                    "==>"
                }
                OnPath::No => "-->",
            };
            let _ = writeln!(out, "    n{} {arrow} n{}", from.index(), to.index());
        }
        out.push_str(
            "    classDef answered fill:#e6f4ea,stroke:#1e7e34\n\
             \x20   classDef cancelled fill:#ffe0b2,stroke:#e65100\n\
             \x20   classDef disconnected fill:#eeeeee,stroke:#616161\n\
             \x20   classDef running fill:#fff9c4,stroke:#f9a825,stroke-dasharray:4 3\n\
             \x20   classDef path stroke:#c62828,stroke-width:4px\n\
             \x20   classDef missed stroke:#c62828,stroke-width:4px,stroke-dasharray:6 3\n",
        );
        for (class, nodes) in &classes {
            if !nodes.is_empty() {
                let _ = writeln!(out, "    class {} {class}", nodes.join(","));
            }
        }
        if !reached.is_empty() {
            let _ = writeln!(
                out,
                "    linkStyle {} stroke:#c62828,stroke-width:4px",
                reached.join(",")
            );
        }
        if !missed.is_empty() {
            let _ = writeln!(
                out,
                "    linkStyle {} stroke:#c62828,stroke-width:2px,stroke-dasharray:6 3",
                missed.join(",")
            );
        }
        out
    }

    /// The report `--json` prints (and whose `text` the text format is).
    fn report(&self, args: &TreeArgs, t: &Trace, title: &str, reproduced: bool) -> TreeReport {
        let ix = |n: NodeIndex| n.index();
        let nodes = self
            .tree
            .nodes()
            .map(|(n, x)| NodeReport {
                node: n.index(),
                party: x.requester.name(),
                method: method_name(self.dialect, x.method),
                id: id_json(x.id),
                generation: x.generation,
                parent: self.tree.parent(n).map(ix),
                depth: self.tree.depth(n),
                sent: x.sent,
                state: match x.state() {
                    Fate::Answered(_) => "answered",
                    Fate::Cancelled(_) => "cancelled",
                    Fate::Disconnected => "disconnected",
                    Fate::Running => "running",
                },
                reply: match x.outcome {
                    Some((_, cancelcheck_model::Outcome::Reply(r))) => Some(reply_text(r)),
                    _ => None,
                },
                cancel: x.cancel.map(|c| CancelReport {
                    event: c.event,
                    reason: c.reason.as_str(),
                }),
                cancel_crossed_answer: x.cancel_crossed_answer(),
                given_up: x.given_up,
                orphaned: x.orphaned,
                sent_after_parent_cancel: self.tree.sent_after_parent_cancel(n),
                request_lost: x.request_lost,
                cancel_path: self.on_path[n.index()],
            })
            .collect();
        let edges = self
            .tree
            .edges()
            .map(|(e, from, to)| EdgeReport {
                from: from.index(),
                to: to.index(),
                cancel_path: self.edge_path[e.index()],
            })
            .collect();
        let cancels = self
            .tree
            .cancels()
            .iter()
            .map(|p| PathReport {
                origin: p.origin.index(),
                event: p.event,
                reason: p.reason.map_or("given-up-by-handler", |r| r.as_str()),
                reached: p.reached.iter().copied().map(ix).collect(),
                missed: p.missed.iter().copied().map(ix).collect(),
            })
            .collect();
        let file = args.file.display().to_string();
        TreeReport {
            text: self.text(&file, title),
            file,
            dialect: self.dialect.id(),
            behavior: t.scenario.behaviour.name(),
            origin: origin_text(t),
            nesting: self.tree.has_nesting(),
            reproduced,
            roots: self.tree.roots().into_iter().map(ix).collect(),
            nodes,
            edges,
            cancels,
            // The checker judges which requests missed a cascade; the tree finds their nodes.
            cascade_gaps: self
                .tree
                .checker()
                .cascade_gaps()
                .into_iter()
                .filter_map(|(party, id, generation)| {
                    self.tree.nodes().find_map(|(n, x)| {
                        (x.requester == party && x.id == id && x.generation == generation)
                            .then_some(n.index())
                    })
                })
                .collect(),
        }
    }
}

/// Why a cancel's path began.
fn reason_text(p: &CancelPath) -> &'static str {
    p.reason.map_or("given up by its handler", |r| r.as_str())
}

/// The method a request of `method` carries on the wire in `dialect` (ABP: its `type`).
fn method_name(dialect: Dialect, method: Method) -> String {
    // (A request reads alike whoever sends it.)
    let j = message_json(
        dialect,
        cancelcheck_model::Party::Client,
        &Message::Request {
            id: cancelcheck_model::RequestId::Int(0),
            method,
        },
    );
    j.get("method")
        .or_else(|| j.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("request")
        .to_string()
}

/// An answer in a few words.
fn reply_text(r: Reply) -> String {
    match r {
        Reply::Full => "result".into(),
        Reply::Partial => "partial result".into(),
        Reply::Initialized { .. } => "initialized".into(),
        Reply::Cancelled => "cancelled".into(),
        Reply::Error(code) => format!("error {code}"),
    }
}

/// Text for a double-quoted dot string: quotes and backslashes escaped.
fn dot_text(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
