//! `cancelcheck probe`: judge a real implementation over stdio with the same checker.
//!
//! The probe starts the peer (any program that speaks JSON-RPC on its stdin and stdout), plays
//! the other party with the model's reference endpoint, runs each scenario in a fresh peer
//! process, records what crosses the wire and judges the record ([`judge::judge`]). Findings
//! are saved as probe traces that `cancelcheck replay` re-judges offline.
//!
//! - [`process`]: the child process, its pipes, timeouts, killing and reaping;
//! - [`session`]: one live session (the reference endpoint driven by real I/O);
//! - [`scenario`]: the scenarios;
//! - [`judge`]: what the wire decides, as the checker's events;
//! - [`report`]: the verdict table, `--json`, probe traces and their re-judging;
//! - [`tools`]: `--list-tools`, the operations a server lists (MCP `tools/list`).

pub mod baseline;
pub mod http;
mod idsets;
pub mod judge;
pub mod junit;
pub mod process;
pub mod recipe;
pub mod report;
pub mod scenario;
mod sent;
pub mod session;
pub mod timeline;
pub mod tools;
mod work;

use cancelcheck_model::Dialect;
use cancelcheck_wire::Framing;
use cancelcheck_wire::decode::Context;
use report::Outcome;
use session::{Session, Setup};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The options of `cancelcheck probe`.
#[derive(clap::Args, Debug, Clone)]
pub struct ProbeArgs {
    /// The dialect the peer speaks: acp, acp-rfd, mcp-2025-11-25, mcp-2026-07-28 or lsp.
    #[arg(long)]
    pub dialect: String,
    /// ndjson (default) or content-length (default for lsp).
    #[arg(long)]
    pub framing: Option<String>,
    /// The slow request's method (default: MCP `tools/call`, LSP `workspace/executeCommand`,
    /// ACP `session/prompt` in a session the agent opened). Its cancel follows from it: an ACP
    /// prompt is cancelled with `session/cancel`, anything else with the dialect's generic
    /// cancel.
    #[arg(long)]
    pub method: Option<String>,
    /// The slow request's params as JSON: name something of the peer's that takes a while
    /// (default for MCP `{"name":"slow","arguments":{"ms":300}}`, a tool named `slow`; LSP
    /// `{"command":"slow","arguments":[{"ms":300}]}`; ACP a prompt of one text block). The
    /// probe fills in what the dialect requires (ACP the `sessionId`; MCP `_meta`, in
    /// 2026-07-28 the protocol version and capabilities) and refuses params the dialect's
    /// schema refuses.
    #[arg(long)]
    pub params: Option<String>,
    /// A recipe (JSON, `schemas/recipe.schema.json`): the set-up a real server needs
    /// (initialize params merged over the dialect's, set-up notifications and requests, a
    /// readiness wait) and the work request, which replaces --method and --params.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["method", "params"])]
    pub recipe: Option<PathBuf>,
    /// The request sent after a cancel to prove the peer has read everything before it (over
    /// stdio; over HTTP the proof is the 202 to each POST); any answer, result or error,
    /// proves it. Default: MCP `ping` (2026-07-28 `server/discover`); in ACP and LSP a method
    /// the peer does not know, which JSON-RPC has it answer -32601. Name one the peer answers
    /// at once and that changes nothing where it answers no unknown method (every scenario
    /// then times out at its first barrier). Overrides a recipe's `barrier`.
    #[arg(long, value_name = "METHOD")]
    pub barrier: Option<String>,
    /// The barrier's params (JSON object or array); only with --barrier.
    #[arg(long, value_name = "JSON", requires = "barrier")]
    pub barrier_params: Option<String>,
    /// Comma-separated scenario names (default: all; `list` prints them).
    #[arg(long)]
    pub scenarios: Option<String>,
    /// Run each scenario this many times (seeds S, S+1, ...).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// The seed the scenarios' timing is drawn from.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Each scenario's time limit in milliseconds; the peer is killed when it runs out.
    #[arg(long, default_value_t = 10_000)]
    pub timeout: u64,
    /// How long the peer may take to exit once its input is closed (ms) before it is killed
    /// (over stdio, while a work request is unanswered, at least until 1.5 times the longest
    /// work answered in the session has passed since it was sent); over HTTP, how long the
    /// probe reads what the server still sends on streams it has not ended (a server is
    /// killed at once after).
    #[arg(long, default_value_t = 2_000)]
    pub linger: u64,
    /// The largest message accepted from the peer, in bytes.
    #[arg(long, default_value_t = 4 << 20)]
    pub max_frame: usize,
    /// The most a session keeps of what its peer sends, in bytes (16 MiB): a peer that sends
    /// more is stopped and killed at once, a `flood` session error. Each of --jobs sessions
    /// keeps its own.
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    pub max_output: u64,
    /// A lower bound, in ms, on how long the work request takes when nothing cancels it. An
    /// answer to a cancelled work request that comes after its cancel was sent but sooner than
    /// this after the request was sent was caused by the cancel (the verdict names this
    /// assumption). Without it, an error answer to a cancelled request that came before the
    /// peer was proved to have read the cancel, and that does not say "cancelled", is not
    /// decidable.
    #[arg(long, value_name = "MS")]
    pub min_work_ms: Option<u64>,
    /// Scenarios run at once, each against its own peer process (at most 256).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Where traces of findings are saved.
    #[arg(long, default_value = "traces/found")]
    pub save: PathBuf,
    /// Save every scenario's trace, not only those with findings.
    #[arg(long)]
    pub save_all: bool,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Accepted findings (one `SCENARIO INVARIANT` or `SCENARIO error:KIND` a line): the run
    /// fails (exit 1) on a finding the file does not list, or on a listed one of a scenario
    /// that ran that is no longer found, and passes (exit 0) otherwise.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Write the run's findings to FILE as a baseline (replacing it); the run then exits 0
    /// unless the file cannot be written.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Write a JUnit XML report to FILE (atomically): a testsuite for the run, a testcase per
    /// scenario (and seed), a failure for a scenario that failed, skipped for a vacuous one.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// List the server's tools (MCP `tools/list`, every page) with the --method and --params
    /// that probe each, instead of probing: to pick a slow one. Nothing is judged.
    #[arg(long, conflicts_with_all = ["baseline", "write_baseline", "junit", "scenarios"])]
    pub list_tools: bool,
    /// Print every message the probe can send with these options (--method, --params,
    /// --recipe), one JSON-RPC message a line, instead of probing: the handshake, the set-up
    /// steps, the work request under every id shape the scenarios use, its cancels, barriers
    /// and the probe's answers to the peer's requests (not the malformed cancels, which are
    /// sent to be refused). No peer is started; to check them against a schema of your own.
    #[arg(long, conflicts_with_all = ["baseline", "write_baseline", "junit", "scenarios", "list_tools"])]
    pub print_messages: bool,
    /// Talk to an MCP server over Streamable HTTP at this URL (`http://HOST:PORT/PATH`)
    /// instead of stdio. With a command after `--`, the probe starts it for each scenario on a
    /// free local port, written for `{port}` in the URL and in the command's arguments, and
    /// waits until the port accepts connections; without one, the server must be running.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The peer's command line.
    #[arg(last = true, required = false)]
    pub command: Vec<String>,
}

fn bad(msg: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(msg.into())
}

/// `--dialect` of a command that speaks or reads JSON-RPC over stdio (`command`: the probe,
/// `audit`, `watch`): the dialect, or an error naming the ones it takes.
pub fn json_rpc_dialect(name: &str, command: &str) -> anyhow::Result<Dialect> {
    let dialect: Dialect = name.parse().map_err(|e| bad(format!("--dialect: {e}")))?;
    if !dialect.rules().json_rpc {
        let ids: Vec<&str> = Dialect::ALL
            .iter()
            .filter(|d| d.rules().json_rpc)
            .map(|d| d.id())
            .collect();
        return Err(bad(format!(
            "--dialect: {dialect} is not JSON-RPC over stdio; {command} takes {}",
            ids.join(", ")
        )));
    }
    Ok(dialect)
}

/// The default slow request's params for a dialect.
pub fn default_params(dialect: Dialect) -> serde_json::Value {
    cancelcheck_wire::shapes::of(dialect).default_work_params()
}

/// Refuses a slow request its dialect's schema refuses (where the schema defines the method):
/// the peer would answer it -32602 at once and no scenario would test anything.
fn check_work(ctx: &Context, params: &serde_json::Value) -> anyhow::Result<()> {
    use cancelcheck_wire::schema;
    if !cancelcheck_wire::shapes::of(ctx.dialect).knows(&ctx.work_method) {
        return Ok(());
    }
    let out = session::Outgoing {
        ctx,
        params,
        initialize: None,
        barrier: None,
    };
    let text = out.work(cancelcheck_wire::WireId::Int(1), Some("the-session"));
    let msg = cancelcheck_wire::WireMessage::parse(text.as_bytes())
        .map_err(|e| bad(format!("--params: {e}")))?;
    schema::check_client_message(ctx.dialect, &msg).map_err(|e| {
        bad(format!(
            "--params: {e} (the {} schema requires it; the peer would refuse the request)",
            ctx.dialect
        ))
    })
}

/// What the options alone decide (no peer needed): the dialect, framing, decoding context,
/// the work request's params and the recipe, each checked.
struct Plan {
    dialect: Dialect,
    framing: Framing,
    ctx: Context,
    params: serde_json::Value,
    recipe: Option<recipe::Recipe>,
    barrier: Option<recipe::Barrier>,
}

fn plan(args: &ProbeArgs) -> anyhow::Result<Plan> {
    let dialect = json_rpc_dialect(&args.dialect, "the probe")?;
    let shapes = cancelcheck_wire::shapes::of(dialect);
    let framing = match args.framing.as_deref() {
        None => shapes.default_framing(),
        Some(f) => Framing::from_name(f).ok_or_else(|| {
            bad(format!(
                "--framing: expected ndjson or content-length, found {f:?}"
            ))
        })?,
    };
    let recipe = match &args.recipe {
        None => None,
        Some(file) => Some(recipe::Recipe::load(file).map_err(|e| bad(format!("--recipe {e}")))?),
    };
    let recipe_work = recipe.as_ref().and_then(|r| r.work.clone());
    let params = match (&args.params, &recipe_work) {
        (_, Some((_, p))) if !p.is_null() => p.clone(),
        (None, _) => default_params(dialect),
        (Some(p), _) => {
            let v: serde_json::Value =
                serde_json::from_str(p).map_err(|e| bad(format!("--params: not JSON: {e}")))?;
            if !v.is_object() && !v.is_array() {
                return Err(bad("--params: expected a JSON object or array"));
            }
            v
        }
    };
    let mut ctx = Context::new(dialect);
    ctx.work_method = match &args.method {
        _ if recipe_work.is_some() => recipe_work.map(|(m, _)| m).unwrap_or_default(),
        Some(m) => m.clone(),
        None => shapes.default_work_method().into(),
    };
    check_work(&ctx, &params).map_err(|e| match &args.recipe {
        Some(file) => bad(format!(
            "--recipe {}: work.{}",
            file.display(),
            e.to_string().trim_start_matches("--")
        )),
        None => e,
    })?;
    if let Some(r) = &recipe {
        check_recipe(&ctx, r)?;
    }
    let barrier = match &args.barrier {
        Some(method) => Some(recipe::Barrier {
            method: method.clone(),
            params: match &args.barrier_params {
                None => None,
                Some(p) => {
                    let v: serde_json::Value = serde_json::from_str(p)
                        .map_err(|e| bad(format!("--barrier-params: not JSON: {e}")))?;
                    if !v.is_object() && !v.is_array() {
                        return Err(bad("--barrier-params: expected a JSON object or array"));
                    }
                    Some(v)
                }
            },
        }),
        None => recipe.as_ref().and_then(|r| r.barrier.clone()),
    };
    if let Some(b) = &barrier {
        let from = if args.barrier.is_some() {
            "--barrier".to_string()
        } else {
            format!(
                "--recipe {}: barrier.method",
                args.recipe
                    .as_deref()
                    .unwrap_or(std::path::Path::new(""))
                    .display()
            )
        };
        check_barrier(&ctx, b).map_err(|why| bad(format!("{from} {:?}: {why}", b.method)))?;
    }
    Ok(Plan {
        dialect,
        framing,
        ctx,
        params,
        recipe,
        barrier,
    })
}

/// Refuses a barrier the judge would read as something else: a request of a method the
/// model knows (the work request, `initialize`, the peer's own requests), or a cancel.
fn check_barrier(ctx: &Context, b: &recipe::Barrier) -> Result<(), String> {
    let request = cancelcheck_wire::WireMessage::Request {
        id: cancelcheck_wire::WireId::Str("cancelcheck-barrier-1".into()),
        method: b.method.clone(),
        params: b.params.clone(),
    };
    if cancelcheck_wire::decode::judged_request(ctx, &request) {
        return Err(
            "the judge reads a request of this method as part of what it judges (the work request, the handshake, a cancel); name one the peer answers at once and that changes nothing (docs/probe.md, \"No guessing from timing\")".to_string(),
        );
    }
    Ok(())
}

/// `--print-messages`: every message the probe can send with these options, a line each;
/// with `json`, one document: each message with the method of the peer's request it answers.
fn print_messages(plan: &Plan, json: bool) -> String {
    let out = session::Outgoing {
        ctx: &plan.ctx,
        params: &plan.params,
        initialize: plan.recipe.as_ref().and_then(|r| r.initialize.as_ref()),
        barrier: plan.barrier.as_ref(),
    };
    let steps = plan.recipe.as_ref().map_or(&[][..], |r| &r.setup[..]);
    let sent = out.everything(steps);
    if json {
        let messages: Vec<serde_json::Value> = sent
            .iter()
            .map(|(answers, text)| {
                let message =
                    serde_json::from_str(text).unwrap_or(serde_json::Value::String(text.clone()));
                serde_json::json!({"message": message, "answers": answers})
            })
            .collect();
        let doc = serde_json::json!({"dialect": plan.dialect.id(), "messages": messages});
        return format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
    }
    sent.into_iter().map(|(_, t)| t + "\n").collect()
}

/// `--url`: refused unless the dialect has Streamable HTTP and the URL is `http://` (with
/// `{port}` only where the probe starts the server, and where it starts one per scenario for
/// `jobs` at once).
fn check_url(dialect: Dialect, url: &str, command: &[String], jobs: usize) -> anyhow::Result<()> {
    if !cancelcheck_model::http::has_streamable_http(dialect) {
        return Err(bad(format!(
            "--url: {dialect} has no Streamable HTTP transport (mcp-2025-11-25 and mcp-2026-07-28 do); probe it over stdio with its command after --"
        )));
    }
    if url.contains("{port}") && command.is_empty() {
        return Err(bad(format!(
            "--url {url}: {{port}} stands for the port of a server the probe starts: give its command after --, or the port of the server you started"
        )));
    }
    if !url.contains("{port}") && !command.is_empty() && jobs > 1 {
        return Err(bad(format!(
            "--url {url} with --jobs {jobs}: each scenario starts its own server, and without {{port}} every one would listen on the same port (a server that cannot would leave its scenario talking to another's): put {{port}} where the port goes, in the URL and the command's arguments, or run --jobs 1"
        )));
    }
    cancelcheck_wire::http::Url::parse(&url.replace("{port}", "1"))
        .map_err(|e| bad(format!("--url {e}")))?;
    Ok(())
}

fn setup_from(args: &ProbeArgs) -> anyhow::Result<Setup> {
    let Plan {
        dialect,
        framing,
        ctx,
        params,
        recipe,
        barrier,
    } = plan(args)?;
    if let Some(url) = &args.url {
        check_url(dialect, url, &args.command, args.jobs)?;
    }
    if args.command.is_empty() && args.url.is_none() {
        return Err(bad(
            "no peer command: give it after `--`, e.g. `cancelcheck probe --dialect mcp-2025-11-25 -- ./my-server`",
        ));
    }
    if let Some(why) = args.command.first().and_then(|c| unrunnable(c)) {
        return Err(bad(format!(
            "the peer command {:?} {why}: give the path of a program that speaks JSON-RPC on stdio, or that serves --url (nothing was run, no trace written)",
            args.command[0]
        )));
    }
    if args.timeout == 0
        || args.jobs == 0
        || args.repeat == 0
        || args.max_frame == 0
        || args.max_output == 0
    {
        return Err(bad(
            "--timeout, --jobs, --repeat, --max-frame and --max-output must be at least 1",
        ));
    }
    if args.jobs > crate::children::SLOTS {
        return Err(bad(format!(
            "--jobs {}: at most {} sessions run at once (each peer is held so that none outlives the probe, and each keeps up to --max-output of what it sent): give --jobs {} or fewer",
            args.jobs,
            crate::children::SLOTS,
            crate::children::SLOTS
        )));
    }
    Ok(Setup {
        dialect,
        framing,
        ctx,
        params,
        command: args.command.clone(),
        timeout: Duration::from_millis(args.timeout),
        max_frame: args.max_frame,
        max_output: args.max_output,
        linger: Duration::from_millis(args.linger.min(args.timeout)),
        min_work_ms: args.min_work_ms,
        recipe,
        barrier,
        url: args.url.clone(),
    })
}

/// Refuses a recipe whose messages the dialect's schema refuses (where it defines the
/// method): its merged `initialize` (which must keep what the schema requires) and its set-up
/// steps.
fn check_recipe(ctx: &Context, r: &recipe::Recipe) -> anyhow::Result<()> {
    use cancelcheck_wire::schema::{SchemaError, check_client_message};
    let file = r.file.display();
    let params = default_params(ctx.dialect);
    let out = session::Outgoing {
        ctx,
        params: &params,
        initialize: r.initialize.as_ref(),
        barrier: r.barrier.as_ref(),
    };
    let mut texts = Vec::new();
    if let Some(t) = out.initialize(cancelcheck_wire::WireId::Int(1), true) {
        texts.push(("initialize".to_string(), t));
    }
    for (i, step) in r.setup.iter().enumerate() {
        texts.push((format!("setup[{i}]"), step.message(i).to_text()));
    }
    for (field, text) in texts {
        let msg = cancelcheck_wire::WireMessage::parse(text.as_bytes())
            .map_err(|e| bad(format!("--recipe {file}: {field}: {e}")))?;
        match check_client_message(ctx.dialect, &msg) {
            Ok(()) | Err(SchemaError::UnknownMethod(_)) => {}
            Err(e) => {
                return Err(bad(format!(
                    "--recipe {file}: {field}: {e} (the {} schema requires it; the peer would refuse the message)",
                    ctx.dialect
                )));
            }
        }
    }
    Ok(())
}

/// The set-up failure a scenario's record holds ([`judge::note::SETUP_FAILED`]), if any.
fn setup_failure(o: &Outcome) -> Option<&str> {
    o.records.iter().find_map(|r| {
        (r.dir == judge::Dir::Note)
            .then(|| {
                r.text
                    .strip_prefix(judge::note::SETUP_FAILED)?
                    .strip_prefix(": ")
            })
            .flatten()
    })
}

fn selected(
    args: &ProbeArgs,
    ctx: &Context,
) -> anyhow::Result<Vec<&'static scenario::ProbeScenario>> {
    let d = ctx.dialect;
    let http = args.url.is_some();
    let Some(list) = &args.scenarios else {
        return Ok(scenario::SCENARIOS
            .iter()
            .filter(|s| s.runs_with(ctx) && s.runs_over(d, http))
            .collect());
    };
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            let known: Vec<&str> = scenario::SCENARIOS
                .iter()
                .filter(|s| s.runs_with(ctx) && s.runs_over(d, http))
                .map(|s| s.name)
                .collect();
            scenario::by_name(name)
                .filter(|s| s.runs_with(ctx) && s.runs_over(d, http))
                .ok_or_else(|| {
                    let over = if http {
                        "over Streamable HTTP"
                    } else {
                        "over stdio"
                    };
                    let why = if scenario::by_name(name)
                        .is_some_and(|s| s.applies(d) && !s.runs_over(d, http))
                    {
                        format!(" {over}")
                    } else if scenario::by_name(name).is_some_and(|s| s.applies(d)) {
                        format!(
                            " with --method {} (it needs a prompt turn)",
                            ctx.work_method
                        )
                    } else {
                        String::new()
                    };
                    bad(format!(
                        "--scenarios: no scenario {name:?} in {d}{why}; expected some of: {}",
                        known.join(", ")
                    ))
                })
        })
        .collect()
}

/// Why `program` cannot be started, if it plainly cannot: a path that names no file, or a
/// name found in no directory of `PATH` (a usage error, said once, rather than a finding per
/// scenario). Whether the file is executable is left to the start itself.
fn unrunnable(program: &str) -> Option<&'static str> {
    let path = std::path::Path::new(program);
    if program.contains(std::path::MAIN_SEPARATOR) {
        return (!path.is_file()).then_some("names no file");
    }
    let found = std::env::var_os("PATH")
        .is_some_and(|dirs| std::env::split_paths(&dirs).any(|d| d.join(program).is_file()));
    (!found).then_some("is found in no directory of PATH")
}

/// Runs one scenario in a fresh peer process and judges it.
pub fn run_scenario(setup: &Setup, sc: &'static scenario::ProbeScenario, seed: u64) -> Outcome {
    let mut ids = sc.ids;
    if setup.dialect.rules().initialize_method.is_none() {
        // No `initialize` takes the first id: the first request gets the id it has elsewhere.
        ids.first = ids.first.saturating_add(1);
    }
    let (records, end) = match Session::start(setup, ids, seed) {
        Ok(mut s) => {
            // A stop (timeout, peer gone) ends the steps; the record is judged all the same.
            let _ = s
                .handshake()
                .and_then(|()| s.recipe_setup())
                .and_then(|()| (sc.run)(&mut s));
            s.finish()
        }
        Err(e) => {
            let rec = judge::Record {
                t_us: 0,
                dir: judge::Dir::Note,
                offset: 0,
                text: format!("{}: could not start the peer: {e}", judge::note::PEER_GONE),
                stream: None,
            };
            (vec![rec], process::PeerEnd::no_process())
        }
    };
    let judgement = judge::judge_scenario(&setup.ctx, sc.name, &records);
    Outcome {
        name: sc.name,
        seed,
        records,
        judgement,
        end,
        trace: None,
    }
}

/// Runs the probe; returns what to print on stdout and the exit code (0 pass or warn, 1 a MUST
/// broken or a session error). Bad usage is an error (exit 2).
pub fn run(args: ProbeArgs) -> anyhow::Result<(String, u8)> {
    if args.scenarios.as_deref() == Some("list") {
        // The scenarios of this dialect over this transport (stdio, or HTTP with --url).
        let dialect = json_rpc_dialect(&args.dialect, "the probe")?;
        let http = args.url.is_some();
        let mut t = String::new();
        for s in scenario::SCENARIOS
            .iter()
            .filter(|s| s.applies(dialect) && s.runs_over(dialect, http))
        {
            t.push_str(&format!("{:30} {}\n", s.name, s.summary));
        }
        return Ok((t, 0));
    }
    if args.list_tools {
        let dialect = json_rpc_dialect(&args.dialect, "the probe")?;
        if let Some(why) = tools::refusal(cancelcheck_wire::shapes::of(dialect)) {
            return Err(bad(why));
        }
        return tools::list(&setup_from(&args)?, args.json);
    }
    if args.print_messages {
        return Ok((print_messages(&plan(&args)?, args.json), 0));
    }
    let setup = setup_from(&args)?;
    let chosen = selected(&args, &setup.ctx)?;
    let accepted = match &args.baseline {
        None => None,
        Some(file) => {
            let text = crate::trace_file::read_text_within(
                file,
                crate::trace_file::DEFAULT_MAX_INPUT_BYTES,
                "a baseline is read up to that size",
            )
            .map_err(|e| bad(format!("--baseline: {e}")))?;
            Some(baseline::parse(file, &text).map_err(|e| bad(format!("--baseline: {e}")))?)
        }
    };
    let mut jobs: Vec<(&'static scenario::ProbeScenario, u64)> = Vec::new();
    for k in 0..u64::from(args.repeat) {
        for sc in &chosen {
            jobs.push((sc, args.seed.wrapping_add(k)));
        }
    }
    let results: Vec<Mutex<Option<Outcome>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    // A recipe's set-up that failed fails the same way in every session: no further one starts
    // (the run is a usage error, below).
    let set_up_failed = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..args.jobs.min(jobs.len()) {
            scope.spawn(|| {
                loop {
                    if set_up_failed.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(sc, seed)) = jobs.get(i) else {
                        return;
                    };
                    let o = run_scenario(&setup, sc, seed);
                    if setup_failure(&o).is_some() {
                        set_up_failed.store(true, Ordering::Relaxed);
                    }
                    if let Some(slot) = results.get(i) {
                        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(o);
                    }
                }
            });
        }
    });
    let mut outcomes: Vec<Outcome> = results
        .into_iter()
        .filter_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect();
    if let (Some(o), Some(file)) = (
        outcomes.iter().find(|o| setup_failure(o).is_some()),
        &args.recipe,
    ) {
        let why = setup_failure(o).unwrap_or_default();
        return Err(bad(format!(
            "--recipe {}: {why} (scenario {}, seed {}; {} of {} sessions run, the rest not started; no verdict, no trace written: fix the recipe, or the peer's set-up)",
            file.display(),
            o.name,
            o.seed,
            outcomes.len(),
            jobs.len()
        )));
    }
    report::spread_failed_work(&mut outcomes);
    report::spread_acting(&mut outcomes);
    for o in &mut outcomes {
        if o.has_findings() || args.save_all {
            let first = o.judgement.first_finding();
            let name = format!(
                "probe-{}-{}-{}-seed{}",
                setup.dialect.id(),
                o.name,
                first,
                o.seed
            );
            let doc = report::trace_json(&setup, o);
            o.trace = Some(report::save(&args.save, &name, &doc).map_err(|e| e.to_string()));
        }
    }
    let mut code = report::exit_code(&outcomes);
    let compared = accepted.map(|entries| baseline::compare(&outcomes, &entries));
    if let Some(c) = &compared {
        code = u8::from(!c.matches());
    }
    let written = args.write_baseline.as_ref().map(|file| {
        let text = baseline::render(setup.dialect.id(), &baseline::findings(&outcomes));
        write_report(file, &text)
    });
    if let Some(w) = &written {
        code = u8::from(w.is_err());
    }
    let junit = args.junit.as_ref().map(|file| {
        write_report(
            file,
            &junit::render(setup.dialect, &setup.command, &outcomes),
        )
    });
    if let Some(Err(_)) = &junit {
        code = code.max(1);
    }
    // Each file written: its path, or `NOT WRITTEN: why`.
    let said =
        |w: &Result<String, String>| w.clone().unwrap_or_else(|e| format!("NOT WRITTEN: {e}"));
    let text = if args.json {
        let mut v = report::run_json(setup.dialect, setup.framing, &setup.command, &outcomes);
        if let Some(url) = &setup.url {
            v["url"] = url.clone().into();
        }
        if let (Some(c), Some(file)) = (&compared, &args.baseline) {
            v["baseline"] = c.json(file);
        }
        if let Some(w) = &written {
            v["baseline_written"] = said(w).into();
        }
        if let Some(w) = &junit {
            v["junit"] = said(w).into();
        }
        format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
    } else {
        let mut t = report::run_text(setup.dialect, setup.framing, &setup.command, &outcomes);
        if let Some(url) = &setup.url {
            // The first line says the transport: Streamable HTTP, not stdio.
            let rest = t.split_once('\n').map_or("", |(_, r)| r).to_string();
            let server = if setup.command.is_empty() {
                "a server already running".to_string()
            } else {
                setup.command.join(" ")
            };
            t = format!(
                "probe: {} over Streamable HTTP at {url}: {server}\n{rest}",
                setup.dialect.id()
            );
        }
        if let Some(a) = setup.recipe.as_ref().and_then(recipe::Recipe::assumption) {
            t.insert_str(0, &format!("assumption: {a}\n"));
        }
        if let (Some(c), Some(file)) = (&compared, &args.baseline) {
            t.push_str(&c.text(file));
        }
        if let Some(w) = &written {
            t.push_str(&format!("baseline written: {}\n", said(w)));
        }
        if let Some(w @ Err(_)) = &junit {
            t.push_str(&format!("JUnit report: {}\n", said(w)));
        }
        t
    };
    Ok((text, code))
}

/// `cancelcheck replay` of a probe trace: re-judges the recorded messages (a probe trace cannot
/// re-run the peer) and shows them ([`timeline::show`]). `Ok(None)` if `file` is not a probe
/// trace. Exit 0 when the verdict is the recorded one, 1 when it differs.
pub fn replay(
    file: &Path,
    text: &str,
    view: timeline::View,
) -> anyhow::Result<Option<(String, u8)>> {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else {
        return Ok(None);
    };
    timeline::show(file, &doc, view).map_err(|e| bad(format!("{}: {e}", file.display())))
}

/// Writes a report file (`--write-baseline`, `--junit`) atomically: its path, or an error
/// naming it.
fn write_report(file: &Path, text: &str) -> Result<String, String> {
    crate::write::replace(file, text.as_bytes())
        .map(|()| file.display().to_string())
        .map_err(|e| format!("{}: {e}", file.display()))
}
