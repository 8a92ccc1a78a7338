//! `cancelcheck replay`: re-run a saved trace and compare it event by event.

use super::{ExitCode, emit, print_out};
use cancelcheck::render;
use cancelcheck::trace_file::{self, InputError};
use clap::ValueEnum;
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// `--format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// A timeline, one event a line, and the verdict.
    Text,
    /// A mermaid `sequenceDiagram`.
    Mermaid,
    /// The trace as re-run, with how it compares.
    Json,
    /// One self-contained page: the diagram, the timeline and the verdict.
    Html,
}

impl Format {
    /// The same format for a probe trace.
    fn probe_view(self) -> cancelcheck::probe::timeline::View {
        use cancelcheck::probe::timeline::View;
        match self {
            Format::Text => View::Text,
            Format::Mermaid => View::Mermaid,
            Format::Json => View::Json,
            Format::Html => View::Html,
        }
    }
}

/// `replay`'s flags.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The trace file.
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The largest input file read, in bytes (default 16 MiB); larger files are refused.
    #[arg(long, default_value_t = trace_file::DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: u64,
}

/// A replay: the trace as re-run and how it compares with the recording.
#[derive(Serialize)]
struct ReplayReport {
    /// The re-run trace's own fields.
    #[serde(flatten)]
    trace: serde_json::Value,
    reproduced: bool,
    diverged_at: Option<usize>,
    verdict_matches: bool,
    origin_matches: bool,
    bytes_identical: bool,
    /// The timeline for people.
    #[serde(skip)]
    text: String,
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `replay`.
pub fn cmd(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    // A probe trace is re-judged, not re-run.
    if let Ok(text) = trace_file::read_text(&args.file, args.max_input_bytes)
        && let Some((out, code)) =
            cancelcheck::probe::replay(&args.file, &text, args.format.probe_view())?
    {
        print_out(out);
        return Ok(ExitCode(code));
    }
    let doc = trace_file::read_trace_within(&args.file, args.max_input_bytes)
        .map_err(|e: InputError| anyhow::anyhow!(e))?;
    let r = trace_file::replay(&doc);
    let code = if r.reproduced() {
        ExitCode::SUCCESS
    } else {
        ExitCode(1)
    };
    match args.format {
        Format::Json | Format::Text => {
            let report = ReplayReport {
                trace: r.fresh_json.clone(),
                reproduced: r.reproduced(),
                diverged_at: r.diverged_at,
                verdict_matches: r.verdict_matches,
                origin_matches: r.origin_matches,
                bytes_identical: r.bytes_identical,
                text: render::text(&r.fresh),
            };
            emit(&report, matches!(args.format, Format::Json));
        }
        Format::Mermaid => print_out(render::mermaid(&r.fresh)),
        Format::Html => print_out(render::html(&r.fresh)),
    }
    if matches!(args.format, Format::Text) || !r.reproduced() {
        report_divergence(&args.file, &doc, &r);
    }
    Ok(code)
}

fn report_divergence(file: &Path, doc: &trace_file::TraceDoc, r: &trace_file::Replay) {
    use std::fmt::Write as _;
    // The whole report is made first and written in one call.
    let mut msg = String::new();
    if r.reproduced() {
        let bytes = if r.bytes_identical {
            "byte for byte"
        } else {
            "event for event (the file's formatting differs)"
        };
        let _ = writeln!(
            msg,
            "reproduced {}: {} events, same verdict, {bytes}",
            file.display(),
            doc.events.len()
        );
        if !r.fresh.verdict.violations.is_empty() {
            let _ = writeln!(
                msg,
                "draw it: cancelcheck replay {} --format mermaid (or --format html > trace.html)",
                file.display()
            );
        }
        super::out::stderr(&msg);
        return;
    }
    let _ = writeln!(msg, "DIVERGED: {}", file.display());
    if let Some(i) = r.diverged_at {
        let fresh = r.fresh_json["events"]
            .get(i)
            .map_or("(none: the re-run ended)".to_string(), quoted);
        let recorded = doc
            .events
            .get(i)
            .map_or("(none: the recording ended)".to_string(), quoted);
        let _ = writeln!(
            msg,
            "  first differing event: #{i}\n  recorded: {recorded}\n  re-run:   {fresh}"
        );
    }
    if !r.origin_matches {
        let _ = writeln!(
            msg,
            "  recorded origin: {}\n  only this much of it applies: {}",
            quoted(&doc.raw["origin"]),
            quoted(&r.fresh_json["origin"])
        );
    }
    if !r.verdict_matches {
        let _ = writeln!(
            msg,
            "  recorded verdict: {}\n  re-run verdict:   {}",
            quoted(&doc.verdict),
            quoted(&r.fresh_json["verdict"])
        );
    }
    super::out::stderr(&msg);
}

/// A JSON value as compact text, cut to a readable length (a recorded value can be huge).
fn quoted(v: &serde_json::Value) -> String {
    trace_file::clip(&v.to_string())
}
