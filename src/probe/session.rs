//! One live session with a peer: the probe in the other party's seat.
//!
//! The probe's side is the model's reference [`Endpoint`] (a client that follows every rule),
//! driven by real I/O: its commands (initialize, send, cancel) become messages on the peer's
//! stdin, and what the peer writes is decoded and fed back to it. Its requests awaiting an
//! answer are held in the model's [`RequestTable`]. Every frame that crosses the wire is
//! recorded with its time (the wall clock lives here, in the probe, never in the model) for
//! [`super::judge::judge`].

use super::judge::{Dir, Record, note};
use super::process::{Chunk, Peer};
use cancelcheck_model::endpoint::IdPolicy;
use cancelcheck_model::message::Method;
use cancelcheck_model::table::{CancelReason, RequestTable, Waiter};
use cancelcheck_model::{
    Behaviour, Command, Dialect, Endpoint, EndpointConfig, Input, Message, Output, Party, Reply,
    RequestId,
};
use cancelcheck_sim::rng::SimRng;
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::{
    Body, FrameReader, Framing, IdMap, WireId, WireMessage, message_text, to_model,
};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// Everything a session needs to know, the same for every scenario.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The dialect spoken.
    pub dialect: Dialect,
    /// The framing.
    pub framing: Framing,
    /// The decoding context (the slow request's method).
    pub ctx: Context,
    /// The slow request's params.
    pub params: Value,
    /// The peer's command line.
    pub command: Vec<String>,
    /// Each scenario's time limit.
    pub timeout: Duration,
    /// The largest frame accepted from the peer.
    pub max_frame: usize,
    /// How long the peer may take to exit once its input is closed before it is killed (not
    /// an error: what it sends meanwhile is judged).
    pub linger: Duration,
}

impl Setup {
    /// The barrier request's method: MCP's `ping`, otherwise a method no peer has (which
    /// JSON-RPC requires to be answered with -32601).
    pub fn barrier_method(&self) -> &'static str {
        match self.dialect {
            Dialect::Mcp20251125 | Dialect::Mcp20260728 => "ping",
            _ => "cancelcheck/barrier",
        }
    }
}

/// Why a session stopped before its steps were done.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stop {
    /// The scenario's time ran out.
    Timeout,
    /// The peer exited or closed its stdout.
    Gone,
}

/// A step's result: go on, or stop the scenario (what was recorded is still judged).
pub type Step<T> = Result<T, Stop>;

/// A live session.
pub struct Session<'a> {
    setup: &'a Setup,
    peer: Peer,
    reader: FrameReader,
    ep: Endpoint,
    table: RequestTable<Reply>,
    waiters: BTreeMap<RequestId, Waiter<Reply>>,
    ids: IdMap,
    records: Vec<Record>,
    start: Instant,
    deadline: Instant,
    barriers: u32,
    barriers_open: BTreeSet<WireId>,
    /// Answers to the probe's requests outside the model (ACP `session/new`).
    other_answers: BTreeMap<WireId, Body>,
    /// The ACP session the prompt turns run in.
    session_id: Option<String>,
    /// ACP: hold the agent's permission requests unanswered (to cancel while one is pending).
    pub hold_permissions: bool,
    /// ACP: permission requests held, unanswered.
    held: Vec<WireId>,
    /// ACP: permission requests the agent made.
    permissions_asked: usize,
    /// ACP: whether the probe sent `session/cancel`.
    session_cancelled: bool,
    progress: BTreeSet<RequestId>,
    outs: Vec<Output>,
    init: Option<RequestId>,
    gone: bool,
    /// What the probe was waiting for when the time ran out.
    timed_out: Option<String>,
    sent_bytes: u64,
    /// Time spent waiting for the peer (the rest of the session is the probe's own cost).
    pub waited: Duration,
    /// The seeded generator for this scenario's timing.
    pub rng: SimRng,
}

impl<'a> Session<'a> {
    /// Starts the peer; the probe's ids follow `ids`.
    pub fn start(setup: &'a Setup, ids: IdPolicy, seed: u64) -> std::io::Result<Session<'a>> {
        let (program, args) = setup
            .command
            .split_first()
            .ok_or_else(|| std::io::Error::other("no command given"))?;
        let start = Instant::now();
        let peer = Peer::spawn(program, args)?;
        let cfg = EndpointConfig {
            party: Party::Client,
            dialect: setup.dialect,
            behaviour: Behaviour::Honour,
            workers: 1,
            cancel_support: true,
            request_timeouts: false,
            init_timeout: false,
            ids,
            capacity: 16,
        };
        Ok(Session {
            setup,
            peer,
            reader: FrameReader::new(setup.framing, setup.max_frame),
            ep: Endpoint::new(cfg),
            table: RequestTable::new(),
            waiters: BTreeMap::new(),
            ids: IdMap::new(),
            records: Vec::new(),
            start,
            deadline: start + setup.timeout,
            barriers: 0,
            barriers_open: BTreeSet::new(),
            other_answers: BTreeMap::new(),
            session_id: None,
            hold_permissions: false,
            held: Vec::new(),
            permissions_asked: 0,
            session_cancelled: false,
            progress: BTreeSet::new(),
            outs: Vec::new(),
            init: None,
            gone: false,
            timed_out: None,
            sent_bytes: 0,
            waited: Duration::ZERO,
            rng: SimRng::new(seed),
        })
    }

    fn t_us(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn note(&mut self, kind: &str, detail: &str, offset: u64) {
        let t_us = self.t_us();
        self.records.push(Record {
            t_us,
            dir: Dir::Note,
            offset,
            text: format!("{kind}: {detail}"),
        });
    }

    /// Puts one message (JSON text) on the peer's stdin and records it.
    pub fn send_text(&mut self, text: String) {
        let bytes = self.setup.framing.frame(&text);
        let offset = self.sent_bytes;
        self.sent_bytes += bytes.len() as u64;
        let t_us = self.t_us();
        self.records.push(Record {
            t_us,
            dir: Dir::Sent,
            offset,
            text,
        });
        // A peer that stopped reading is found out by the reads and the deadline.
        let _ = self.peer.send(bytes);
    }

    fn request_text(&self, id: RequestId, method: Method) -> String {
        let d = self.setup.dialect;
        let (name, params) = match method {
            Method::Initialize { cancel_support } => {
                let params = match d {
                    Dialect::Lsp => {
                        json!({"processId": null, "rootUri": null, "capabilities": {}})
                    }
                    Dialect::Acp => json!({"protocolVersion": 1, "clientCapabilities": {}}),
                    Dialect::AcpRfd => json!({"protocolVersion": 1, "clientCapabilities":
                        {"cancellation": {"request": cancel_support}}}),
                    _ => json!({"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "cancelcheck-probe", "version": env!("CARGO_PKG_VERSION")}}),
                };
                (
                    d.rules()
                        .initialize_method
                        .unwrap_or("initialize")
                        .to_string(),
                    params,
                )
            }
            // The probe is the client: it sends no server requests.
            Method::Work | Method::ServerWork => {
                let mut params = self.setup.params.clone();
                if matches!(d, Dialect::Mcp20251125 | Dialect::Mcp20260728)
                    && let Some(p) = params.as_object_mut()
                {
                    // Ask for progress, with the request's own id as the token.
                    let token = serde_json::from_str::<Value>(&self.ids.wire(id).to_json_text())
                        .unwrap_or(Value::Null);
                    let meta = p.entry("_meta").or_insert_with(|| json!({}));
                    if let Some(m) = meta.as_object_mut() {
                        m.insert("progressToken".into(), token);
                    }
                }
                if let (Some(sid), Some(p)) = (&self.session_id, params.as_object_mut()) {
                    p.insert("sessionId".into(), Value::String(sid.clone()));
                }
                (self.setup.ctx.work_method.clone(), params)
            }
        };
        WireMessage::Request {
            id: self.ids.wire(id),
            method: name,
            params: Some(params),
        }
        .to_text()
    }

    /// Feeds the probe's endpoint and acts on what it does.
    fn feed(&mut self, input: Input) -> Option<RequestId> {
        let mut outs = std::mem::take(&mut self.outs);
        outs.clear();
        self.ep.handle(input, &mut outs);
        let mut sent = None;
        for o in &outs {
            match *o {
                Output::Send(Message::Request { id, method }) => {
                    let text = self.request_text(id, method);
                    if let Ok(w) = self.table.register(id) {
                        self.waiters.insert(id, w);
                    }
                    self.send_text(text);
                    sent = Some(id);
                }
                Output::Send(m) => {
                    let text = message_text(self.setup.dialect, Party::Client, &m, &self.ids);
                    self.send_text(text);
                }
                Output::Deliver { id, outcome } => match outcome {
                    cancelcheck_model::Outcome::Reply(r) => {
                        let _ = self.table.complete(id, r);
                    }
                    _ => {
                        self.table.cancel(id, CancelReason::Application);
                    }
                },
                _ => {}
            }
        }
        self.outs = outs;
        sent
    }

    /// Opens the session as the dialect requires (MCP `initialize` then
    /// `notifications/initialized`; LSP `initialize` then `initialized`).
    pub fn handshake(&mut self) -> Step<()> {
        let init = self.feed(Input::Command(Command::Initialize));
        self.init = init;
        if let Some(id) = init {
            self.wait_resolved(id)?;
            let note = match self.setup.dialect {
                Dialect::Mcp20251125 => Some("notifications/initialized"),
                Dialect::Lsp => Some("initialized"),
                _ => None,
            };
            if matches!(self.setup.dialect, Dialect::Acp | Dialect::AcpRfd) {
                self.new_session()?;
            }
            if let Some(method) = note {
                self.send_text(
                    WireMessage::Notification {
                        method: method.into(),
                        params: Some(json!({})),
                    }
                    .to_text(),
                );
            }
        }
        Ok(())
    }

    /// ACP: opens a session (`session/new`) and keeps its id for the prompts.
    fn new_session(&mut self) -> Step<()> {
        let id = WireId::Str("cancelcheck-session-new".into());
        let text = WireMessage::Request {
            id: id.clone(),
            method: "session/new".into(),
            params: Some(json!({"cwd": "/", "mcpServers": []})),
        }
        .to_text();
        self.send_text(text);
        self.pump_until("the answer to session/new", |s| {
            s.other_answers.contains_key(&id)
        })?;
        if let Some(Body::Result(v)) = self.other_answers.get(&id) {
            self.session_id = v
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        Ok(())
    }

    /// ACP: cancels the prompt turn with `session/cancel`. The permission requests held stay
    /// unanswered until [`Session::answer_held`]; those the agent makes from now on are
    /// answered `cancelled` at once.
    pub fn session_cancel(&mut self) {
        let sid = self.session_id.clone().unwrap_or_default();
        self.session_cancelled = true;
        self.send_text(
            WireMessage::Notification {
                method: "session/cancel".into(),
                params: Some(json!({ "sessionId": sid })),
            }
            .to_text(),
        );
    }

    /// ACP: answers every permission request held with `{"outcome": {"outcome": "cancelled"}}`,
    /// as a client must once it has cancelled the prompt turn.
    pub fn answer_held(&mut self) {
        for id in std::mem::take(&mut self.held) {
            let text = WireMessage::Response {
                id,
                body: Body::Result(json!({"outcome": {"outcome": "cancelled"}})),
            }
            .to_text();
            self.send_text(text);
        }
    }

    /// ACP: how many permission requests the agent made.
    pub fn permissions_asked(&self) -> usize {
        self.permissions_asked
    }

    /// The dialect spoken.
    pub fn dialect(&self) -> Dialect {
        self.setup.dialect
    }

    /// Sends the slow request; returns its id.
    pub fn send_work(&mut self) -> Step<RequestId> {
        self.feed(Input::Command(Command::Send)).ok_or(Stop::Gone)
    }

    /// Cancels a request through the endpoint (refused, and so not sent, unless it may be).
    pub fn cancel(&mut self, id: RequestId) {
        self.feed(Input::Command(Command::Cancel(id)));
    }

    /// Sends a cancel with exactly these params (or none), whatever they name.
    pub fn raw_cancel(&mut self, params: Option<Value>) {
        let method = self.setup.dialect.rules().cancel_method.to_string();
        self.send_text(WireMessage::Notification { method, params }.to_text());
    }

    /// The params of a well-formed cancel naming `id` (a JSON id as it is).
    pub fn cancel_params(&self, id: Value) -> Value {
        let mut p = serde_json::Map::new();
        p.insert(self.setup.dialect.rules().cancel_id_field.into(), id);
        Value::Object(p)
    }

    /// The wire id of a model id, as JSON.
    pub fn id_json(&self, id: RequestId) -> Value {
        serde_json::from_str(&self.ids.wire(id).to_json_text()).unwrap_or(Value::Null)
    }

    /// Sends a barrier request and waits for its answer: afterwards the peer has read
    /// everything sent before it.
    pub fn barrier(&mut self) -> Step<()> {
        self.barriers += 1;
        let id = WireId::Str(format!("cancelcheck-barrier-{}", self.barriers));
        self.barriers_open.insert(id.clone());
        let text = WireMessage::Request {
            id: id.clone(),
            method: self.setup.barrier_method().into(),
            params: None,
        }
        .to_text();
        self.send_text(text);
        let what = format!("the answer to the barrier {id}");
        self.pump_until(&what, |s| !s.barriers_open.contains(&id))
    }

    /// Whether the request is resolved for the probe (answered, or cancelled where the
    /// requester does not wait).
    pub fn resolved(&self, id: RequestId) -> bool {
        matches!(self.table.peek(id), Some(Some(_)))
    }

    /// Whether the peer reported progress for the request.
    pub fn progressed(&self, id: RequestId) -> bool {
        self.progress.contains(&id)
    }

    /// Waits until the request is resolved.
    pub fn wait_resolved(&mut self, id: RequestId) -> Step<()> {
        let what = format!("the answer to request {}", self.ids.wire(id));
        self.pump_until(&what, |s| s.resolved(id))
    }

    /// Reads the peer for `ms` milliseconds, or until `until` holds.
    pub fn pause(&mut self, ms: u64, until: impl Fn(&Session<'_>) -> bool) -> Step<()> {
        let end = Instant::now() + Duration::from_millis(ms);
        self.pump(end, until).map(|_| ())
    }

    fn pump_until(&mut self, what: &str, cond: impl Fn(&Session<'_>) -> bool) -> Step<()> {
        let deadline = self.deadline;
        if self.pump(deadline, cond)? {
            Ok(())
        } else {
            self.timed_out = Some(what.to_string());
            Err(Stop::Timeout)
        }
    }

    /// Reads until `cond` holds (true) or `until` passes (false).
    fn pump(&mut self, until: Instant, cond: impl Fn(&Session<'_>) -> bool) -> Step<bool> {
        let until = until.min(self.deadline);
        loop {
            if cond(self) {
                return Ok(true);
            }
            if self.gone {
                return Err(Stop::Gone);
            }
            if Instant::now() >= until {
                return Ok(false);
            }
            let t0 = Instant::now();
            let chunk = self.peer.recv(until);
            self.waited += t0.elapsed();
            match chunk {
                None => {}
                Some(Chunk::Bytes(b)) => self.on_bytes(&b),
                Some(Chunk::Closed) => {
                    self.on_closed();
                    return Err(Stop::Gone);
                }
            }
        }
    }

    fn on_closed(&mut self) {
        if self.gone {
            return;
        }
        self.gone = true;
        if let Some(e) = self.reader.finish() {
            self.note(note::FRAMING, &e.to_string(), e.offset);
        }
        if !self.peer.stdin_closed() {
            // Give it a moment to be reaped, to report how it ended.
            let t0 = Instant::now();
            while !self.peer.exited() && t0.elapsed() < Duration::from_millis(200) {
                std::thread::sleep(Duration::from_micros(200));
            }
            self.waited += t0.elapsed();
            let how = match self.peer.status {
                Some(s) => format!("the peer exited ({s}) before its input was closed"),
                None => "the peer closed its stdout before its input was closed".to_string(),
            };
            self.note(note::PEER_GONE, &how, 0);
        }
    }

    fn on_bytes(&mut self, bytes: &[u8]) {
        self.reader.push(bytes);
        while let Some(f) = self.reader.next_frame() {
            match f {
                Ok(f) => self.on_frame(f.offset, &f.body),
                Err(e) => self.note(note::FRAMING, &e.to_string(), e.offset),
            }
        }
    }

    fn on_frame(&mut self, offset: u64, body: &[u8]) {
        let t_us = self.t_us();
        self.records.push(Record {
            t_us,
            dir: Dir::Received,
            offset,
            text: String::from_utf8_lossy(body).into_owned(),
        });
        let Ok(msg) = WireMessage::parse(body) else {
            return;
        };
        if let WireMessage::Response { id, body } = &msg {
            if self.barriers_open.remove(id) {
                return;
            }
            if let WireId::Str(s) = id
                && s.starts_with("cancelcheck-")
            {
                self.other_answers.insert(id.clone(), body.clone());
                return;
            }
        }
        let acp = matches!(self.setup.dialect, Dialect::Acp | Dialect::AcpRfd);
        if let WireMessage::Notification { method, params } = &msg
            && acp
            && method == "session/update"
        {
            // An update names the session, not the request (its id is opaque): it shows the
            // work of every prompt still open in the probe's session.
            let ours = self.session_id.as_deref().map(|s| Value::String(s.into()));
            if ours.is_some() && params.as_ref().and_then(|p| p.get("sessionId")) == ours.as_ref() {
                let open: Vec<RequestId> = self
                    .waiters
                    .keys()
                    .copied()
                    .filter(|&id| Some(id) != self.init && !self.resolved(id))
                    .collect();
                self.progress.extend(open);
            }
            return;
        }
        if let WireMessage::Request { id, method, params } = &msg {
            if acp && method == "session/request_permission" {
                self.permissions_asked += 1;
                if self.hold_permissions && !self.session_cancelled {
                    self.held.push(id.clone());
                    return;
                }
                let outcome = match params
                    .as_ref()
                    .and_then(|p| p.pointer("/options/0/optionId"))
                {
                    Some(option) if !self.session_cancelled => {
                        json!({"outcome": "selected", "optionId": option})
                    }
                    _ => json!({"outcome": "cancelled"}),
                };
                let text = WireMessage::Response {
                    id: id.clone(),
                    body: Body::Result(json!({ "outcome": outcome })),
                }
                .to_text();
                self.send_text(text);
                return;
            }
            // The peer's other requests: the probe offers nothing, as JSON-RPC allows.
            let body = if method == "ping" {
                Body::Result(json!({}))
            } else {
                Body::Error {
                    code: -32601,
                    message: "Method not found".into(),
                    data: None,
                }
            };
            let text = WireMessage::Response {
                id: id.clone(),
                body,
            }
            .to_text();
            self.send_text(text);
            return;
        }
        let methods = |id: RequestId| self.waiters.contains_key(&id).then_some(Method::Work);
        let init = self.init;
        let model = to_model(&self.setup.ctx, &msg, &mut self.ids, |id| {
            if Some(id) == init {
                Some(Method::Initialize {
                    cancel_support: true,
                })
            } else {
                methods(id)
            }
        });
        match model {
            Some(m @ Message::Activity { id }) => {
                self.progress.insert(id);
                self.feed(Input::Receive(m));
            }
            Some(
                m @ (Message::Response { .. } | Message::Cancel { .. } | Message::CancelAck { .. }),
            ) => {
                self.feed(Input::Receive(m));
            }
            _ => {}
        }
    }

    /// Ends the session: closes the peer's stdin, reads what it still writes until it exits
    /// (or the time runs out: then it is killed), reaps it, and returns the record.
    pub fn finish(mut self) -> (Vec<Record>, super::process::PeerEnd) {
        self.peer.close_stdin();
        self.note(note::STDIN_CLOSED, "the probe closed the peer's stdin", 0);
        let deadline = self.deadline.min(Instant::now() + self.setup.linger);
        while !self.gone {
            let t0 = Instant::now();
            let chunk = self.peer.recv(deadline);
            self.waited += t0.elapsed();
            match chunk {
                Some(Chunk::Bytes(b)) => self.on_bytes(&b),
                Some(Chunk::Closed) => self.on_closed(),
                None => break,
            }
        }
        // Waiting for the peer to exit is the peer's time, not the probe's.
        let t0 = Instant::now();
        self.peer.finish(deadline);
        self.waited += t0.elapsed();
        if let Some(what) = self.timed_out.take() {
            let ms = self.setup.timeout.as_millis();
            self.note(
                note::TIMEOUT,
                &format!("no {what} within the scenario's {ms} ms; the peer was killed"),
                0,
            );
        }
        let (stderr_bytes, stderr_tail) = self.peer.stderr();
        let end = super::process::PeerEnd {
            status: self.peer.status.map(|s| s.to_string()),
            killed: self.peer.killed,
            stderr_bytes,
            stderr_tail,
            elapsed: self.start.elapsed(),
            waited: self.waited,
        };
        (std::mem::take(&mut self.records), end)
    }
}
