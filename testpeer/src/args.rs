//! The test peer's arguments and their checks.

use super::*;

/// A JSON-RPC peer over stdio for testing `cancelcheck probe`: correct or faulty on demand.
#[derive(clap::Parser, Debug)]
#[command(name = "cancelcheck-testpeer", version)]
pub(crate) struct Args {
    /// The dialect it speaks (a JSON-RPC one).
    #[arg(long, default_value = "mcp-2025-11-25")]
    pub(crate) dialect: Dialect,
    /// How it responds: honour, or a responder fault as `cancelcheck behaviors` lists them.
    #[arg(long, alias = "behaviour", default_value = "honour")]
    pub(crate) behavior: Behaviour,
    /// ndjson or content-length (default: the dialect's).
    #[arg(long, value_parser = framing)]
    pub(crate) framing: Option<Framing>,
    /// How long a work request takes unless its params say (ms).
    #[arg(long, default_value_t = 300)]
    pub(crate) work_ms: u64,
    /// How much longer the first work request takes than the others (ms).
    #[arg(long, default_value_t = 0)]
    pub(crate) cold_start_ms: u64,
    /// How often a request that asked for progress gets it (ms, at least 1).
    #[arg(long, default_value_t = 50)]
    pub(crate) progress_ms: u64,
    /// The method that runs work (default: the dialect's).
    #[arg(long)]
    pub(crate) work_method: Option<String>,
    /// Misbehave to test that the probe survives it.
    #[arg(long, value_parser = HOSTILE)]
    pub(crate) hostile: Option<String>,
    /// Act on a cancel only once the next request it reads is answered.
    #[arg(long)]
    pub(crate) lazy_cancel: bool,
    /// Answer a request it cancels with error 0 "Request cancelled".
    #[arg(long)]
    pub(crate) cancel_code_zero: bool,
    /// ACP: ask `session/request_permission` as each prompt's work starts.
    #[arg(long)]
    pub(crate) ask_permission: bool,
    /// Give up each request this long after its work started (internal cancellation).
    #[arg(long, value_name = "MS")]
    pub(crate) give_up_ms: Option<u64>,
    /// ACP RFD: declare no support for `$/cancelRequest` in the `initialize` answer.
    #[arg(long)]
    pub(crate) no_cancel_support: bool,
    /// Exit (status 0) this long after starting, whatever is still open: a server that ends
    /// the session on its own.
    #[arg(long, value_name = "MS")]
    pub(crate) exit_after_ms: Option<u64>,
    /// Accept what the protocols' SDKs refuse.
    #[arg(long, overrides_with = "strict")]
    pub(crate) lenient: bool,
    /// Refuse what the protocols' SDKs refuse (the default).
    #[arg(long, overrides_with = "lenient")]
    pub(crate) strict: bool,
    /// The protocol version it speaks, if not its dialect's.
    #[arg(long)]
    pub(crate) protocol_version: Option<String>,
    /// Not ready for this long after it starts (ms): work is answered at once, as by a server
    /// still loading its workspace; then it sends `cancelcheck/ready`.
    #[arg(long, value_name = "MS")]
    pub(crate) ready_ms: Option<u64>,
    /// Pad `cancelcheck/ready`'s params with this many bytes (`"pad"`): a readiness
    /// notification larger than the client's frame limit.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    pub(crate) ready_pad: usize,
    /// LSP: ask `window/workDoneProgress/create` before each work request and fail the work
    /// with the error the client answers it with.
    #[arg(long)]
    pub(crate) progress_create: bool,
    /// MCP: answer every work request a moment later with a tool's error result, `Unknown
    /// tool`, as an SDK answers a call of a tool it does not have (not at all once cancelled).
    #[arg(long)]
    pub(crate) tool_error: bool,
    /// Answer every request with -32601 (method not found), `initialize` and `ping` too, as a
    /// program that speaks JSON-RPC but not this dialect; ignore every notification.
    #[arg(long)]
    pub(crate) refuse_all: bool,
    /// Never answer a request of a method it does not know that carries no params, as some
    /// real LSP frameworks do: a barrier of that form is never answered.
    #[arg(long)]
    pub(crate) silent_unknown_without_params: bool,
    /// Read a cancel whose params are an array (by-position params to JSON-RPC) as a cancel
    /// of the id it holds first, as a server may: `params: [2]` cancels request 2.
    #[arg(long)]
    pub(crate) positional_params: bool,
    /// ACP: answer every `session/new` with error -32000 "Authentication required", as an
    /// agent that wants `authenticate` first: no session opens.
    #[arg(long)]
    pub(crate) auth_required: bool,
    /// Serve MCP's Streamable HTTP on this address (e.g. `127.0.0.1:8080`; port 0 picks one,
    /// printed on stderr) instead of stdio; the endpoint's path is any.
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<String>,
    /// With --http (MCP 2025-11-25): a broken event store, whose first resume of a stream
    /// (`Last-Event-ID`) replays nothing and carries nothing more, the answer lost; a second
    /// resume replays every event, the answer too. The work itself goes on.
    #[arg(long, requires = "http")]
    pub(crate) lossy_resume: bool,
}

const HOSTILE: [&str; 7] = [
    "garbage",
    "oversized",
    "bad-framing",
    "hang",
    "exit-early",
    "stderr-flood",
    "no-read",
];

fn framing(name: &str) -> Result<Framing, String> {
    Framing::from_name(name).ok_or(format!("unknown framing {name}"))
}

impl Args {
    /// Whether it refuses what the protocols' SDKs refuse (not `--lenient`).
    pub(crate) fn strict(&self) -> bool {
        self.strict || !self.lenient
    }

    /// The framing: the one given, else the dialect's.
    pub(crate) fn framing(&self) -> Framing {
        self.framing
            .unwrap_or_else(|| shapes::of(self.dialect).default_framing())
    }

    /// What clap cannot check of the arguments alone.
    pub(crate) fn check(&self) -> Result<(), String> {
        let a = self;
        if !a.dialect.rules().json_rpc {
            return Err(format!("{} is not JSON-RPC", a.dialect));
        }
        if a.behavior.role() != Role::Responder {
            return Err(format!("{} is a requester's behaviour", a.behavior));
        }
        if a.progress_ms == 0 {
            return Err("--progress-ms must be at least 1".into());
        }
        if a.give_up_ms.is_some() && a.dialect.rules().give_up.is_none() {
            return Err(format!(
                "--give-up-ms: the text of {} says nothing of a request its receiver gives up on its own",
                a.dialect
            ));
        }
        let shapes = shapes::of(a.dialect);
        let no = |flag: &str, what: &str| Err(format!("{flag}: {} has no {what}", a.dialect));
        if a.ask_permission && shapes.permission_request("s", "t").is_none() {
            return no("--ask-permission", "permission request");
        }
        if a.tool_error && shapes.unknown_tool_result(None).is_none() {
            return no("--tool-error", "tool error result");
        }
        if a.progress_create && shapes.progress_create("t").is_none() {
            return no("--progress-create", "progress token the server creates");
        }
        if a.auth_required && !shapes.opens_sessions() {
            return no("--auth-required", "session to open");
        }
        if a.http.is_some() && !cancelcheck_model::http::has_streamable_http(a.dialect) {
            return Err(format!(
                "--http: {} has no Streamable HTTP transport (mcp-2025-11-25 and mcp-2026-07-28 do)",
                a.dialect
            ));
        }
        if a.http.is_some() && a.hostile.is_some() {
            return Err("--hostile is for stdio; it cannot be combined with --http".into());
        }
        if let Some(v) = &a.protocol_version {
            shapes::of(a.dialect)
                .parse_version(v)
                .map_err(|e| format!("--protocol-version: {e}"))?;
        }
        Ok(())
    }
}
