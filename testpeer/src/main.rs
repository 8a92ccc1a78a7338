//! `cancelcheck-testpeer`: a JSON-RPC server over stdio, for testing `cancelcheck probe`.
//!
//! It is the model's own reference [`Endpoint`] in the server's seat, driven by real I/O and
//! real time: requests of the dialect's work method (ACP: `session/prompt`, in the session it
//! opens on `session/new`; or `--work-method`) start work that lasts
//! `ms` milliseconds (from the request's `params.arguments.ms`, `params.arguments[0].ms`,
//! `params._meta.ms` or `params.ms`, else
//! `--work-ms`), reporting progress every `--progress-ms` when the request asked for it
//! (`params._meta.progressToken`); `--cold-start-ms N` makes the first work request take N ms
//! longer, as a server's first call that loads what later calls reuse. It behaves correctly or as any responder fault of the
//! catalog (`--behavior`, names as `cancelcheck behaviors` lists them), and can be hostile
//! (`--hostile`) to test that the probe survives it.
//!
//! ```text
//! cancelcheck-testpeer --dialect mcp-2025-11-25 [--behavior honour] [--framing ndjson]
//!     [--work-ms 300] [--progress-ms 50] [--work-method M] [--cold-start-ms N]
//!     [--hostile garbage|oversized|bad-framing|hang|exit-early|stderr-flood|no-read]
//!     [--lazy-cancel] [--cancel-code-zero] [--ask-permission] [--give-up-ms N] [--lenient]
//!     [--no-cancel-support] [--exit-after-ms N] [--positional-params] [--ready-pad BYTES]
//!     [--protocol-version V] [--tool-error] [--refuse-all] [--http ADDR]
//! ```
//!
//! `--http ADDR` (MCP only) serves Streamable HTTP on `ADDR` instead of stdio ([`http`]: the
//! same endpoint, its messages routed onto streams by the model's routing); it runs until it is
//! killed.
//!
//! It is strict, as the protocols' SDKs are: a request that lacks what its dialect's schema
//! requires (`cancelcheck_wire::schema`) is answered -32602 (an unknown method -32601), and a
//! notification that does is ignored. ACP: a `session/prompt` without a `prompt` array of
//! content blocks, or naming a session `session/new` did not open, is answered -32602, and a
//! `session/cancel` naming such a session is ignored. MCP 2026-07-28: a request without the
//! protocol version and client capabilities in `_meta` is answered -32602, one naming another
//! version than the peer's -32022; `server/discover` lists the peer's version.
//! `--lenient` accepts what they refuse (a prompt in any session; `session/cancel` then
//! cancels every open prompt turn, whatever it names). `--protocol-version` is the version the
//! peer speaks, if not its dialect's: the one it answers `initialize` with (ACP an integer, MCP
//! 2025-11-25 a date) or, in MCP 2026-07-28, the only one `server/discover` lists.
//!
//! ACP: each `session/new` opens a session of its own (`session-1`, `session-2`, ...), which
//! the agent's `session/update` and its own requests for a prompt of that session name; a
//! prompt turn cancelled ends with the result `{"stopReason": "cancelled"}`; `session/cancel`
//! cancels the session's open prompt turn. A request of `--work-method` other than
//! `session/prompt` is no prompt turn: cancelled with `$/cancel_request`, it is answered
//! -32800. `--ask-permission` makes every prompt ask
//! `session/request_permission` as its work starts: a request the model's endpoint sends on the
//! prompt's behalf, so the agent cancels it (`$/cancel_request`) when the prompt is cancelled
//! and answers the prompt once it is resolved, or not, as its `--behavior` says. A prompt whose
//! work still runs after the agent acted on its cancel asks again (the model refuses unless
//! the behaviour keeps working after a cancel: `spawns-after-cancel`).
//!
//! `--lazy-cancel` acts on a cancel only once it has answered the next request it reads (a
//! `ping` or an unknown method: the probe's barrier), as a server whose handler notices a
//! cancellation token later does; what it then does is provably after it read the cancel.
//!
//! `--cancel-code-zero` answers a request it stops for a cancel (all but an ACP prompt turn)
//! with error 0 "Request cancelled" instead of the dialect's cancelled answer, as some SDKs do:
//! an answer caused by the cancel that, arriving before the probe's barrier is answered, looks
//! like one that crossed it.
//!
//! `--ask-permission` (ACP), `--tool-error` (MCP) and `--progress-create` (LSP) are refused
//! (exit 2) in a dialect without the message they send.
//!
//! `--tool-error` (MCP) answers every work request 20 ms after reading it with a tool's error
//! result, `{"content": [{"type": "text", "text": "Unknown tool: NAME"}], "isError": true}`,
//! as an SDK answers a call of a tool it does not have (work that fails on its own), and not
//! at all when a cancel of it came first (as an SDK sends nothing for an aborted handler).
//!
//! `--refuse-all` answers every request -32601 (method not found), the handshake and `ping`
//! too, and ignores every notification: a JSON-RPC program that speaks none of the dialect.
//!
//! `--give-up-ms N` (ACP, ACP RFD, LSP: the dialects whose text says how a receiver answers a
//! request it cancels on its own) gives up each request still being worked on N ms after its work
//! started, as an agent whose internal timeout fires: the model's internal cancellation
//! (`Input::InternalCancel`). It answers as the simulator's wire does: the correct peer with the
//! dialect's cancelled answer, which is error -32800 in the ACP RFD ("the same -32800 (Cancelled)
//! error response as if $/cancelRequest was received") and a prompt turn's
//! `{"stopReason": "cancelled"}` in ACP, `ContentModified` (-32801) in LSP; `wrong-error-code`
//! with error -32603, `misuses-server-cancelled` with LSP's `ServerCancelled` (-32802).
//!
//! `ping` (MCP 2025-11-25) is answered `{}` and any other unknown method -32601, as JSON-RPC
//! requires. At the end
//! of its input it lets running work finish (so a late answer still shows), then exits 0; a
//! crash (`crashes-on-unknown-cancel`) exits 3. Bad arguments exit 2.

use cancelcheck_model::behaviour::Role;
use cancelcheck_model::endpoint::IdPolicy;
use cancelcheck_model::http::Route;
use cancelcheck_model::{
    Behaviour, Command, Dialect, Endpoint, EndpointConfig, Input, Message, Output, Party, Reply,
    RequestId,
};
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::shapes::{self, Shapes};
use cancelcheck_wire::{Body, FrameReader, Framing, IdMap, WireId, WireMessage, mcp, message_text};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod args;
mod frames;
mod hostile;
mod http;

use args::Args;
use hostile::hostile_start;

/// How long after its call `--tool-error` answers (ms): long enough for a cancel right behind
/// the call to be read first.
const TOOL_ERROR_MS: u64 = 20;

enum In {
    Frame(Vec<u8>),
    Bad(String),
    Eof,
    Http(http::HttpIn),
}

/// Reads stdin on its own thread, so the main loop can wait for input and timers at once.
fn reader(framing: Framing, tx: mpsc::Sender<In>) {
    let mut stdin = std::io::stdin().lock();
    let mut fr = FrameReader::new(framing, 16 << 20);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => 0,
            Ok(n) => n,
        };
        if n == 0 {
            if let Some(e) = fr.finish() {
                let _ = tx.send(In::Bad(e.to_string()));
            }
            let _ = tx.send(In::Eof);
            return;
        }
        fr.push(&buf[..n]);
        while let Some(f) = fr.next_frame() {
            let msg = match f {
                Ok(f) => In::Frame(f.body),
                Err(e) => In::Bad(e.to_string()),
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    }
}

/// How the test peer names itself.
const ME: (&str, &str) = ("cancelcheck-testpeer", env!("CARGO_PKG_VERSION"));

struct Job {
    done_at: Instant,
    next_progress: Option<Instant>,
    /// When the peer gives it up on its own (`--give-up-ms`), if before it is done.
    give_up_at: Option<Instant>,
}

struct Peer {
    args: Args,
    /// The dialect's wire shapes.
    shapes: &'static dyn Shapes,
    ctx: Context,
    ep: Endpoint,
    ids: IdMap,
    jobs: BTreeMap<RequestId, Job>,
    /// Work duration and progress wish of requests received and not yet started.
    asked_work: BTreeMap<RequestId, (u64, bool)>,
    /// Whether a work request came yet (the first one pays the cold start).
    warm: bool,
    out: std::io::Stdout,
    crashed: bool,
    /// Cancels read but not acted on yet (`--lazy-cancel`).
    deferred: Vec<Message>,
    /// ACP: prompt turns received and not answered yet.
    open_prompts: std::collections::BTreeSet<RequestId>,
    /// Requests given up on the peer's own account and not answered yet.
    given_up: std::collections::BTreeSet<RequestId>,
    /// ACP: the sessions `session/new` opened, in order.
    sessions: Vec<String>,
    /// ACP: the session each prompt turn runs in.
    session_of: BTreeMap<RequestId, String>,
    /// ACP: the prompt each of the agent's own requests is sent for.
    parent_of: BTreeMap<RequestId, RequestId>,
    /// When it becomes ready (`--ready-ms`), until it is.
    ready_at: Option<Instant>,
    /// `--tool-error`: the error results not sent yet, each due a moment after its call was
    /// read, and dropped if a cancel of the call comes first (as an SDK sends no answer for a
    /// call whose handler was aborted).
    tool_errors: BTreeMap<RequestId, (Instant, WireId, Value)>,
    /// Work requests waiting for the answer to their `window/workDoneProgress/create`, by
    /// that request's id (`--progress-create`).
    creating: BTreeMap<String, Vec<u8>>,
    /// Streamable HTTP (`--http`): the server's side of the transport.
    http: Option<http::Serve>,
    /// Where the model routes the message being written (Streamable HTTP), if the model
    /// decided it.
    route: Option<Route>,
}

impl Peer {
    fn write(&mut self, text: &str) {
        if let Some(serve) = self.http.as_mut() {
            let answer = match WireMessage::parse(text.as_bytes()) {
                Ok(WireMessage::Response { id, .. }) => Some(id),
                _ => None,
            };
            let stream = match self.route.take() {
                Some(Route::Discard) => return,
                Some(Route::Stream(id)) => Some(self.ids.wire(id)),
                Some(Route::Get | Route::Post) => None,
                // Written outside the model (plumbing answers, refusals): an answer goes on
                // its request's response.
                None => answer.clone(),
            };
            let stream = stream.filter(|s| serve.knows(s));
            let ends = answer.is_some() && answer == stream;
            serve.send(stream.as_ref(), text, ends);
            return;
        }
        let bytes = self.args.framing().frame(text);
        let mut out = self.out.lock();
        // A closed stdout ends the conversation; the peer exits at the end of its input.
        let _ = out.write_all(&bytes).and_then(|()| out.flush());
    }

    fn respond(&mut self, id: WireId, body: Body) {
        let text = WireMessage::Response { id, body }.to_text();
        self.write(&text);
    }

    fn error(code: i64, message: impl Into<String>, data: Option<Value>) -> Body {
        Body::Error {
            code,
            message: message.into(),
            data,
        }
    }

    /// The protocol version the peer speaks, as its dialect writes it.
    fn version(&self) -> Value {
        match &self.args.protocol_version {
            Some(v) => self.shapes.parse_version(v).unwrap_or(json!(0)),
            None => self.shapes.expected_version().unwrap_or(Value::Null),
        }
    }

    /// The answer to `initialize`, in the dialect's shape.
    fn initialized(&self, cancel_support: bool) -> Option<Body> {
        self.shapes
            .initialize_result(&self.version(), cancel_support, ME)
            .map(Body::Result)
    }

    fn feed(&mut self, input: Input) {
        let mut outs = Vec::new();
        self.ep.handle(input, &mut outs);
        let now = Instant::now();
        let mut asks = Vec::new();
        for o in outs {
            if let (Output::Send(m), Some(serve)) = (o, self.http.as_ref()) {
                let parents = &self.parent_of;
                self.route = Some(
                    serve
                        .streams
                        .route(Party::Server, m, |c| parents.get(&c).copied()),
                );
            }
            match o {
                Output::Nested { parent, child } => {
                    self.parent_of.insert(child, parent);
                }
                // The agent's own requests, sent on behalf of a prompt (`--ask-permission`), and
                // its updates, where the dialect shapes them.
                Output::Send(Message::Request { id, .. }) if self.ask_permission(id) => {}
                Output::Send(Message::Activity { id }) if self.update(id) => {}
                Output::Send(m) => {
                    if let Message::Response { id, reply } = m {
                        let prompt = self.open_prompts.remove(&id);
                        self.given_up.remove(&id);
                        let wid = self.ids.wire(id);
                        if let Reply::Initialized { cancel_support } = reply
                            && let Some(body) = self.initialized(cancel_support)
                        {
                            self.respond(wid, body);
                            continue;
                        }
                        if reply == Reply::Cancelled && self.args.cancel_code_zero && !prompt {
                            self.respond(wid, Self::error(0, "Request cancelled", None));
                            continue;
                        }
                        if reply == Reply::Cancelled
                            && let Some(body) = self.shapes.cancelled_answer(prompt)
                        {
                            self.respond(wid, body);
                            continue;
                        }
                    }
                    let text = message_text(self.args.dialect, Party::Server, &m, &self.ids);
                    self.write(&text);
                }
                Output::StartWork(id) => {
                    if self.args.ask_permission {
                        asks.push(id);
                    }
                    let (ms, progress) = self
                        .asked_work
                        .remove(&id)
                        .unwrap_or((self.args.work_ms, false));
                    let every = Duration::from_millis(self.args.progress_ms);
                    let give_up_at = self
                        .args
                        .give_up_ms
                        .filter(|&g| g < ms)
                        .map(|g| now + Duration::from_millis(g));
                    self.jobs.insert(
                        id,
                        Job {
                            done_at: now + Duration::from_millis(ms),
                            next_progress: progress.then(|| now + every),
                            give_up_at,
                        },
                    );
                }
                Output::AbortWork(id) | Output::Dropped(id) => {
                    self.jobs.remove(&id);
                }
                Output::Crashed => self.crashed = true,
                _ => {}
            }
        }
        for id in asks {
            self.feed(Input::Command(Command::SendNested(id)));
        }
    }

    /// ACP: the session of prompt `id` (the session of the prompt it was sent for, for one of
    /// the agent's own requests).
    fn session(&self, id: RequestId) -> String {
        let prompt = self.parent_of.get(&id).copied().unwrap_or(id);
        self.session_of
            .get(&prompt)
            .or_else(|| self.sessions.first())
            .cloned()
            .unwrap_or_default()
    }

    /// ACP: the agent's own request `id`, which the model sent on behalf of a prompt: a
    /// permission request in that prompt's session. Whether the dialect has one (else the
    /// codec renders the request).
    fn ask_permission(&mut self, id: RequestId) -> bool {
        let wid = self.ids.wire(id);
        let Some((method, params)) = self
            .shapes
            .permission_request(&self.session(id), &format!("call-{wid}"))
        else {
            return false;
        };
        let text = WireMessage::Request {
            id: wid,
            method: method.into(),
            params: Some(params),
        }
        .to_text();
        self.write(&text);
        true
    }

    /// ACP: a `session/update` of prompt `id`'s session, with some of the turn's content.
    /// Whether the dialect has one (else the codec renders the progress).
    fn update(&mut self, id: RequestId) -> bool {
        let Some((method, params)) = self.shapes.session_update(&self.session(id), "working")
        else {
            return false;
        };
        let text = WireMessage::Notification {
            method: method.into(),
            params: Some(params),
        }
        .to_text();
        self.write(&text);
        true
    }

    /// ACP `session/cancel`: a cancel of the open prompt turns of the session it names (the
    /// model cancels the agent's own requests sent on their behalf: the cascade). A session
    /// no `session/new` opened names nothing: the cancel is ignored (`--lenient`: every open
    /// prompt turn is cancelled, whatever it names).
    fn session_cancel(&mut self, params: Option<&Value>) {
        let named = params
            .and_then(|p| p.get("sessionId"))
            .and_then(Value::as_str);
        let prompts: Vec<RequestId> = self
            .open_prompts
            .iter()
            .copied()
            .filter(|p| !self.args.strict() || named == self.session_of.get(p).map(String::as_str))
            .collect();
        if prompts.is_empty() && self.args.strict() {
            eprintln!("cancelcheck-testpeer: session/cancel names no open prompt turn: {named:?}");
        }
        for id in prompts {
            self.take_cancel(Message::Cancel { id, session: true });
        }
    }

    /// A cancel read: acted on now, or with `--lazy-cancel` once the next request is answered.
    fn take_cancel(&mut self, m: Message) {
        if self.args.lazy_cancel {
            self.deferred.push(m);
        } else {
            self.act_on_cancel(m);
        }
    }

    /// Acts on a cancel. A prompt whose work still runs afterwards takes its next step, which
    /// asks for permission again (`--ask-permission`).
    fn act_on_cancel(&mut self, m: Message) {
        self.feed(Input::Receive(m));
        if let Message::Cancel { id, .. } = m
            && self.args.ask_permission
            && self.jobs.contains_key(&id)
        {
            self.feed(Input::Command(Command::SendNested(id)));
        }
    }

    /// A new session (Streamable HTTP, MCP 2025-11-25): the endpoint and what it held start
    /// over.
    fn afresh(&mut self) {
        self.ep = Endpoint::new(*self.ep.config());
        self.ids = IdMap::new();
        self.jobs.clear();
        self.asked_work.clear();
        self.deferred.clear();
        self.open_prompts.clear();
        self.given_up.clear();
        self.sessions.clear();
        self.session_of.clear();
        self.parent_of.clear();
        self.tool_errors.clear();
        self.creating.clear();
    }

    /// Streamable HTTP: a request read, or a connection ended.
    fn on_http(&mut self, ev: http::HttpIn) {
        let Some(serve) = self.http.as_mut() else {
            return;
        };
        match ev {
            http::HttpIn::Request {
                conn,
                head,
                body,
                socket,
            } => {
                let work = self.ctx.work_method.clone();
                match serve.take(conn, &head, body, socket, |m| m == work) {
                    http::Taken::Message(body) => {
                        self.on_frame(&body);
                        if let Some(serve) = self.http.as_mut() {
                            serve.after_read(conn);
                        }
                    }
                    http::Taken::Initialize(body) => {
                        self.afresh();
                        self.on_frame(&body);
                    }
                    http::Taken::Resumed(id) => {
                        let mid = self.ids.model(&id);
                        serve.streams.resume(mid);
                    }
                    http::Taken::Done => {}
                }
            }
            http::HttpIn::Bad { why, .. } => eprintln!("cancelcheck-testpeer: {why}"),
            http::HttpIn::Gone { conn } => {
                let Some(id) = serve.gone(conn) else {
                    return;
                };
                // The server cannot tell a close from a drop: where closing is the cancel it is
                // a close, elsewhere a drop (what it writes waits for a resume).
                let mid = self.ids.model(&id);
                if self.args.dialect.rules().stream_close_cancels {
                    serve.streams.close(mid);
                } else {
                    serve.streams.lose(mid);
                }
                serve.streams.read(mid);
                self.feed(Input::StreamClosed(mid));
            }
        }
    }

    /// Acts on the cancels set aside (as a server that cancels through a token its handler
    /// notices later).
    fn apply_deferred(&mut self) {
        for m in std::mem::take(&mut self.deferred) {
            self.act_on_cancel(m);
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.jobs
            .values()
            .flat_map(|j| [Some(j.done_at), j.next_progress, j.give_up_at])
            .flatten()
            .chain(self.ready_at)
            .chain(self.tool_errors.values().map(|t| t.0))
            .min()
    }

    fn fire_timers(&mut self) {
        let now = Instant::now();
        let due: Vec<RequestId> = (self.tool_errors.iter())
            .filter(|(_, t)| t.0 <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            if let Some((_, wire, result)) = self.tool_errors.remove(&id) {
                self.respond(wire, Body::Result(result));
            }
        }
        if self.ready_at.is_some_and(|t| t <= now) {
            self.ready_at = None;
            let text = WireMessage::Notification {
                method: "cancelcheck/ready".into(),
                params: Some(if self.args.ready_pad == 0 {
                    json!({"ready": true})
                } else {
                    json!({"ready": true, "pad": "x".repeat(self.args.ready_pad)})
                }),
            }
            .to_text();
            self.write(&text);
        }
        let due: Vec<RequestId> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.next_progress.is_some_and(|t| t <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            if let Some(j) = self.jobs.get_mut(&id) {
                j.next_progress = j
                    .next_progress
                    .map(|t| t + Duration::from_millis(self.args.progress_ms));
            }
            self.feed(Input::WorkProgress(id));
        }
        // Work given up on the peer's own account (before it would be done): the model's
        // endpoint stops it and answers as its dialect and behaviour say.
        let given_up: Vec<RequestId> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.give_up_at.is_some_and(|t| t <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in given_up {
            if let Some(j) = self.jobs.get_mut(&id) {
                j.give_up_at = None;
            }
            self.given_up.insert(id);
            self.feed(Input::InternalCancel(id));
            if self.jobs.contains_key(&id) {
                // The endpoint did not stop it (it was no longer its to give up).
                self.given_up.remove(&id);
            }
        }
        let done: Vec<RequestId> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.done_at <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in done {
            self.jobs.remove(&id);
            self.feed(Input::WorkDone(id));
        }
    }
}

/// MCP `tools/list`: its tools, one a page (page 1 has no cursor, page 2 the cursor
/// `page-2`); `None` for a cursor it never gave. Each runs as the work (its `ms` argument).
fn tools_page(cursor: Option<&str>) -> Option<Value> {
    let tool = |name: &str, description: &str, required: &[&str]| mcp::Tool {
        name: name.into(),
        description: Some(description.into()),
        input_schema: json!({"type": "object",
            "properties": {"ms": {"type": "integer", "description": "How long it takes"}},
            "required": required}),
    };
    Some(match cursor {
        None => mcp::tools_list_result(
            &[tool(
                "slow",
                "Waits `ms` milliseconds (300 unless given), reporting progress when asked.\nHonours a cancel at once.",
                &[],
            )],
            Some("page-2"),
        ),
        Some("page-2") => {
            mcp::tools_list_result(&[tool("sleep", "Sleeps `ms` milliseconds.", &["ms"])], None)
        }
        Some(_) => return None,
    })
}

fn main() -> ExitCode {
    // Bad arguments exit 2 (clap's usage errors too).
    let args = <Args as clap::Parser>::parse();
    if let Err(e) = args.check() {
        eprintln!("cancelcheck-testpeer: {e}");
        return ExitCode::from(2);
    }
    if let Some(mode) = args.hostile.clone()
        && let Some(code) = hostile_start(&mode, args.framing())
    {
        return code;
    }
    if let Some(ms) = args.exit_after_ms {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            let _ = std::io::stdout().flush();
            std::process::exit(0);
        });
    }
    let shapes = shapes::of(args.dialect);
    let mut ctx = Context::new(args.dialect);
    ctx.work_method = match &args.work_method {
        Some(m) => m.clone(),
        None => shapes.default_work_method().into(),
    };
    let cfg = EndpointConfig {
        party: Party::Server,
        dialect: args.dialect,
        behaviour: args.behavior,
        workers: 8,
        cancel_support: !args.no_cancel_support,
        request_timeouts: false,
        init_timeout: false,
        ids: IdPolicy {
            first: 0,
            strings: false,
            reuse_answered: false,
        },
        capacity: 16,
        streams: args.http.is_some(),
    };
    let (tx, rx) = mpsc::channel();
    let framing = args.framing();
    let serve = match &args.http {
        None => {
            std::thread::spawn(move || reader(framing, tx));
            None
        }
        Some(addr) => match http::listen(addr, tx) {
            Ok(bound) => {
                eprintln!("cancelcheck-testpeer: serving Streamable HTTP on http://{bound}/mcp");
                let version = shapes
                    .expected_version()
                    .and_then(|v| v.as_str().map(String::from));
                let mut serve =
                    http::Serve::new(!args.dialect.rules().stream_close_cancels, version);
                serve.lossy_resume = args.lossy_resume;
                Some(serve)
            }
            Err(e) => {
                eprintln!("cancelcheck-testpeer: --http {addr}: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let mut peer = Peer {
        shapes,
        ctx,
        ep: Endpoint::new(cfg),
        ids: IdMap::new(),
        jobs: BTreeMap::new(),
        asked_work: BTreeMap::new(),
        warm: false,
        out: std::io::stdout(),
        crashed: false,
        deferred: Vec::new(),
        open_prompts: Default::default(),
        given_up: Default::default(),
        sessions: Vec::new(),
        session_of: BTreeMap::new(),
        parent_of: BTreeMap::new(),
        tool_errors: BTreeMap::new(),
        ready_at: args
            .ready_ms
            .map(|ms| Instant::now() + Duration::from_millis(ms)),
        creating: BTreeMap::new(),
        http: serve,
        route: None,
        args,
    };
    let mut eof = false;
    loop {
        if peer.crashed {
            return ExitCode::from(3);
        }
        let deadline = peer.next_deadline();
        if eof && deadline.is_none() {
            return ExitCode::SUCCESS;
        }
        let got = match deadline {
            _ if eof => {
                if let Some(d) = deadline {
                    std::thread::sleep(d.saturating_duration_since(Instant::now()));
                }
                None
            }
            Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                Ok(m) => Some(m),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => Some(In::Eof),
            },
            None => Some(rx.recv().unwrap_or(In::Eof)),
        };
        match got {
            Some(In::Frame(body)) => peer.on_frame(&body),
            Some(In::Http(ev)) => peer.on_http(ev),
            Some(In::Bad(e)) => eprintln!("cancelcheck-testpeer: {e}"),
            Some(In::Eof) => {
                eof = true;
                peer.apply_deferred();
            }
            None => {}
        }
        peer.fire_timers();
    }
}
