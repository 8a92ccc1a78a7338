//! The test peer over MCP's Streamable HTTP (`--http ADDR`): the same endpoint behind a small
//! HTTP/1.1 server on `std::net` (the bytes from [`cancelcheck_wire::http`]).
//!
//! - Each connection carries one exchange (`Connection: close`). A thread per connection reads
//!   the request and hands it, with a clone of the socket to answer on, to the main loop; then
//!   it reads on until end of file, which is the client closing (or losing) the connection
//!   ([`HttpIn::Gone`]): for a request's open response stream, `Input::StreamClosed`.
//! - A POST of a notification or a response is answered `202 Accepted` once the main loop has
//!   read it. A POST of a request of the work method is answered with an event stream (SSE,
//!   chunked) carrying what the model routes to it ([`cancelcheck_model::http::Streams`]); any
//!   other request with one JSON body.
//! - MCP 2025-11-25: `initialize`'s answer hands out `Mcp-Session-Id`, which every later request
//!   must carry (400 without it, 404 with another); every event has an id (`KEY-SEQ`), each
//!   stream starts with a priming event (an id, no data), and a `GET` with `Last-Event-ID`
//!   resumes a request's stream after a drop, replaying what was written after that event.
//!   A new `initialize` opens a new session, and the peer starts afresh (one session at a
//!   time). MCP 2026-07-28: no session, no event ids; a closed stream is the request's cancel.
//! - A `GET` without `Last-Event-ID` opens the standalone stream, which carries what the model
//!   routes to it (kept until one is open).

use cancelcheck_model::http::Streams;
use cancelcheck_wire::WireId;
use cancelcheck_wire::WireMessage;
use cancelcheck_wire::http::{self as h, BodyKind, Dechunker, Head, Start};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// What the connection threads tell the main loop.
pub enum HttpIn {
    /// A request arrived on connection `conn` (answer on `socket`).
    Request {
        conn: u64,
        head: Head,
        body: Vec<u8>,
        socket: TcpStream,
    },
    /// Bytes that are no HTTP request (answered 400 here).
    Bad { why: String },
    /// The connection reached end of file (the client closed or lost it).
    Gone { conn: u64 },
}

/// Listens on `addr` and serves every connection on a thread of its own, sending what it reads
/// through `tx`. Returns the address bound (port 0 picks one).
pub fn listen(addr: &str, tx: Sender<crate::In>) -> std::io::Result<std::net::SocketAddr> {
    let listener = TcpListener::bind(addr)?;
    let bound = listener.local_addr()?;
    std::thread::spawn(move || {
        let mut next = 0u64;
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            next += 1;
            let conn = next;
            let tx = tx.clone();
            std::thread::spawn(move || connection(conn, stream, &tx));
        }
    });
    Ok(bound)
}

/// One connection: its request, then end of file.
fn connection(conn: u64, mut stream: TcpStream, tx: &Sender<crate::In>) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let send = |ev| tx.send(crate::In::Http(ev)).is_ok();
    let mut chunk = vec![0u8; 16 * 1024];
    let (head, mut rest) = match h::read_head(&mut stream) {
        Ok(x) => x,
        Err(h::HeadError::Malformed(e)) => {
            let _ = send(HttpIn::Bad { why: e.to_string() });
            reject(&mut stream, 400, "Bad Request", &e.to_string());
            return;
        }
        Err(_) => return,
    };
    let body = match head.body_kind() {
        Ok(BodyKind::Length(n)) => {
            while rest.len() < n {
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(k) => rest.extend_from_slice(&chunk[..k]),
                }
            }
            rest.truncate(n);
            rest
        }
        Ok(BodyKind::Chunked) => {
            let mut d = Dechunker::default();
            let mut body = Vec::new();
            let mut input = rest;
            loop {
                match d.push(&input) {
                    Ok(data) => body.extend(data),
                    Err(e) => {
                        reject(&mut stream, 400, "Bad Request", &e.to_string());
                        return;
                    }
                }
                if d.done() {
                    break body;
                }
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(k) => input = chunk[..k].to_vec(),
                }
            }
        }
        Ok(_) => Vec::new(),
        Err(e) => {
            reject(&mut stream, 400, "Bad Request", &e.to_string());
            return;
        }
    };
    let Ok(socket) = stream.try_clone() else {
        return;
    };
    if !send(HttpIn::Request {
        conn,
        head,
        body,
        socket,
    }) {
        return;
    }
    // The client sends nothing more on this connection: a read ends when it closes it (or the
    // peer itself shut it down after the stream's last message).
    loop {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    let _ = send(HttpIn::Gone { conn });
}

/// Answers a request that cannot be served with `code` and a JSON-RPC error body, and closes.
fn reject(socket: &mut TcpStream, code: u16, reason: &str, why: &str) {
    let body = WireMessage::Response {
        id: WireId::Null,
        body: cancelcheck_wire::Body::Error {
            code: -32600,
            message: format!("{reason}: {why}"),
            data: None,
        },
    }
    .to_text();
    let len = body.len().to_string();
    let mut out = h::response_head(
        code,
        reason,
        &[
            ("Content-Type", "application/json"),
            ("Content-Length", &len),
        ],
    );
    out.extend_from_slice(body.as_bytes());
    let _ = socket.write_all(&out);
    let _ = socket.shutdown(Shutdown::Both);
}

/// A client request's response: an event stream (or one JSON body) and what was written on it.
struct Slot {
    /// The stream's key in event ids.
    key: u32,
    /// The connection it is written on (`None` once the client dropped it).
    conn: Option<u64>,
    /// One JSON body rather than an event stream.
    json: bool,
    /// Every event written, with its sequence number (kept for a resume; 2025-11-25 only).
    events: Vec<(u32, String)>,
    /// The answer was written (in the store, at least).
    answered: bool,
    /// The stream was ended by the peer (its last chunk sent).
    ended: bool,
    /// How many times it was resumed.
    resumes: u32,
    /// Its events are kept but not written (the faulty first resume of `lossy_resume`).
    muted: bool,
}

/// What the main loop should do with a request the server took.
pub enum Taken {
    /// Read this JSON-RPC message (then call [`Serve::after_read`]).
    Message(Vec<u8>),
    /// A new session's `initialize` (MCP 2025-11-25): the peer starts afresh (one session at
    /// a time: the last one opened), then reads it.
    Initialize(Vec<u8>),
    /// A request's stream was resumed (`Last-Event-ID`): the model's stream state follows.
    Resumed(WireId),
    /// Nothing more (answered here: a GET, a refusal).
    Done,
}

/// The server's side of Streamable HTTP, held by the main loop.
pub struct Serve {
    /// MCP 2025-11-25: sessions, event ids and resumption.
    stateful: bool,
    /// The protocol version the dialect's text is of (`MCP-Protocol-Version`).
    version: Option<String>,
    session: Option<String>,
    /// Sessions opened so far.
    sessions: u32,
    conns: BTreeMap<u64, TcpStream>,
    slots: BTreeMap<WireId, Slot>,
    by_conn: BTreeMap<u64, WireId>,
    /// POSTs of notifications and responses, answered 202 once read.
    to_accept: BTreeSet<u64>,
    get: Option<u64>,
    backlog: Vec<String>,
    /// The model's view of the client requests' streams.
    pub streams: Streams,
    /// The faulty event store: a stream's first resume replays nothing and carries nothing
    /// more (its answer is lost); a second resume replays every event, the answer too.
    pub lossy_resume: bool,
}

impl Serve {
    /// A server for `dialect`.
    pub fn new(stateful: bool, version: Option<String>) -> Serve {
        Serve {
            stateful,
            version,
            session: None,
            sessions: 0,
            conns: BTreeMap::new(),
            slots: BTreeMap::new(),
            by_conn: BTreeMap::new(),
            to_accept: BTreeSet::new(),
            get: None,
            backlog: Vec::new(),
            streams: Streams::default(),
            lossy_resume: false,
        }
    }

    fn write(&mut self, conn: u64, bytes: &[u8]) {
        if let Some(s) = self.conns.get_mut(&conn)
            && s.write_all(bytes).is_err()
        {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn close(&mut self, conn: u64) {
        if let Some(s) = self.conns.remove(&conn) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn refuse(&mut self, conn: u64, code: u16, reason: &str, why: &str) -> Taken {
        if let Some(mut s) = self.conns.remove(&conn) {
            reject(&mut s, code, reason, why);
        }
        Taken::Done
    }

    fn session_header(&self) -> Vec<(&'static str, String)> {
        self.session
            .iter()
            .map(|s| ("Mcp-Session-Id", s.clone()))
            .collect()
    }

    fn open_events(&mut self, conn: u64) {
        let mut headers = vec![
            ("Content-Type", "text/event-stream".to_string()),
            ("Cache-Control", "no-cache".to_string()),
            ("Transfer-Encoding", "chunked".to_string()),
        ];
        headers.extend(self.session_header());
        let refs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let head = h::response_head(200, "OK", &refs);
        self.write(conn, &head);
    }

    /// Takes a request read on `conn`: checks its headers, and says what to do with it.
    /// `streamed`: whether a request of this method is answered with an event stream.
    pub fn take(
        &mut self,
        conn: u64,
        head: &Head,
        body: Vec<u8>,
        socket: TcpStream,
        streamed: impl Fn(&str) -> bool,
    ) -> Taken {
        self.conns.insert(conn, socket);
        let Start::Request { method, .. } = &head.start else {
            return self.refuse(conn, 400, "Bad Request", "not a request");
        };
        let initialize = method == "POST"
            && matches!(WireMessage::parse(&body), Ok(WireMessage::Request { ref method, .. }) if method == "initialize");
        if !initialize && let Some(s) = &self.session {
            match head.header("mcp-session-id") {
                None => {
                    return self.refuse(
                        conn,
                        400,
                        "Bad Request",
                        "Mcp-Session-Id header is required",
                    );
                }
                Some(got) if got != s => {
                    return self.refuse(
                        conn,
                        404,
                        "Not Found",
                        "no session with this Mcp-Session-Id",
                    );
                }
                Some(_) => {}
            }
        }
        if let (Some(got), Some(want)) = (head.header("mcp-protocol-version"), &self.version)
            && !initialize
            && got != want
        {
            let why =
                format!("unsupported MCP-Protocol-Version {got:?} (this server speaks {want})");
            return self.refuse(conn, 400, "Bad Request", &why);
        }
        let accept = head.header("accept").unwrap_or("").to_ascii_lowercase();
        match method.as_str() {
            "GET" => {
                if !accept.contains("text/event-stream") {
                    return self.refuse(
                        conn,
                        406,
                        "Not Acceptable",
                        "GET must accept text/event-stream",
                    );
                }
                self.get_stream(conn, head.header("last-event-id"))
            }
            "POST" => {
                if !(accept.contains("application/json") && accept.contains("text/event-stream")) {
                    return self.refuse(
                        conn,
                        406,
                        "Not Acceptable",
                        "a POST must accept both application/json and text/event-stream",
                    );
                }
                if head.media_type().as_deref() != Some("application/json") {
                    return self.refuse(
                        conn,
                        415,
                        "Unsupported Media Type",
                        "Content-Type must be application/json",
                    );
                }
                match WireMessage::parse(&body) {
                    Ok(WireMessage::Request { id, method, .. }) => {
                        if initialize && self.stateful {
                            // A new session: the old one's streams end with it.
                            self.sessions += 1;
                            self.session =
                                Some(format!("cancelcheck-testpeer-session-{}", self.sessions));
                            let keep = self.conns.remove(&conn);
                            for (_, s) in std::mem::take(&mut self.conns) {
                                let _ = s.shutdown(Shutdown::Both);
                            }
                            self.conns.extend(keep.map(|s| (conn, s)));
                            self.slots.clear();
                            self.by_conn.clear();
                            self.to_accept.clear();
                            self.get = None;
                            self.backlog.clear();
                            self.streams = Streams::default();
                        }
                        let key = u32::try_from(self.slots.len() + 1).unwrap_or(u32::MAX);
                        let json = !streamed(&method);
                        self.slots.insert(
                            id.clone(),
                            Slot {
                                key,
                                conn: Some(conn),
                                json,
                                events: Vec::new(),
                                answered: false,
                                ended: false,
                                resumes: 0,
                                muted: false,
                            },
                        );
                        self.by_conn.insert(conn, id.clone());
                        if !json {
                            self.open_events(conn);
                            if self.stateful {
                                // The priming event: an id to resume from, no data.
                                self.event(&id, None);
                            }
                        }
                    }
                    Ok(_) => {
                        self.to_accept.insert(conn);
                    }
                    Err(e) => {
                        return self.refuse(
                            conn,
                            400,
                            "Bad Request",
                            &format!("not JSON-RPC: {e}"),
                        );
                    }
                }
                if initialize && self.stateful {
                    Taken::Initialize(body)
                } else {
                    Taken::Message(body)
                }
            }
            "DELETE" => self.refuse(
                conn,
                405,
                "Method Not Allowed",
                "sessions end when the server stops",
            ),
            other => self.refuse(conn, 405, "Method Not Allowed", other),
        }
    }

    /// After the main loop read a notification or response POSTed on `conn`: `202 Accepted`.
    pub fn after_read(&mut self, conn: u64) {
        if self.to_accept.remove(&conn) {
            let head = h::response_head(202, "Accepted", &[("Content-Length", "0")]);
            self.write(conn, &head);
            self.close(conn);
        }
    }

    fn get_stream(&mut self, conn: u64, last: Option<&str>) -> Taken {
        let Some(last) = last else {
            self.open_events(conn);
            if let Some(old) = self.get.replace(conn) {
                self.close(old);
            }
            for text in std::mem::take(&mut self.backlog) {
                self.write(conn, &h::chunk(&h::sse_event(None, &text)));
            }
            return Taken::Done;
        };
        let parsed = last
            .split_once('-')
            .and_then(|(k, s)| Some((k.parse::<u32>().ok()?, s.parse::<u32>().ok()?)));
        let found = parsed.and_then(|(key, seq)| {
            let (id, _) = self.slots.iter().find(|(_, s)| s.key == key && !s.json)?;
            Some((id.clone(), seq))
        });
        let Some((id, seq)) = found.filter(|_| self.stateful) else {
            return self.refuse(
                conn,
                404,
                "Not Found",
                &format!("no stream to resume at event {last:?}"),
            );
        };
        self.open_events(conn);
        let Some(slot) = self.slots.get_mut(&id) else {
            return Taken::Done;
        };
        if let Some(old) = slot.conn.replace(conn) {
            self.by_conn.remove(&old);
        }
        self.by_conn.insert(conn, id.clone());
        slot.resumes += 1;
        slot.muted = self.lossy_resume && slot.resumes == 1;
        if slot.muted {
            return Taken::Resumed(id);
        }
        let replay: Vec<(u32, String)> = slot
            .events
            .iter()
            .filter(|(s, _)| *s > seq)
            .cloned()
            .collect();
        let (key, answered) = (slot.key, slot.answered);
        for (s, text) in replay {
            let id = format!("{key}-{s}");
            self.write(conn, &h::chunk(&h::sse_event(Some(&id), &text)));
        }
        if answered {
            self.end(&id);
        }
        Taken::Resumed(id)
    }

    /// Writes `text` (`None`: a priming event) on request `id`'s stream, keeping it for a
    /// resume where the server offers one.
    fn event(&mut self, id: &WireId, text: Option<&str>) {
        let stateful = self.stateful;
        let Some(slot) = self.slots.get_mut(id) else {
            return;
        };
        let seq = u32::try_from(slot.events.len()).unwrap_or(u32::MAX);
        let event_id = stateful.then(|| format!("{}-{seq}", slot.key));
        slot.events.push((seq, text.unwrap_or("").to_string()));
        if let Some(conn) = slot.conn.filter(|_| !slot.muted) {
            let bytes = h::chunk(&h::sse_event(event_id.as_deref(), text.unwrap_or("")));
            self.write(conn, &bytes);
        }
    }

    /// Ends request `id`'s stream (its answer written): the last chunk, then the close.
    fn end(&mut self, id: &WireId) {
        let Some(slot) = self.slots.get_mut(id) else {
            return;
        };
        slot.ended = true;
        if let Some(conn) = slot.conn.filter(|_| !slot.muted) {
            self.write(conn, &h::chunk(b""));
            self.close(conn);
        }
    }

    /// Sends `text` on the stream of the client's request `stream` (`None`: the standalone
    /// stream); `answer`: it is that request's answer, which ends its stream.
    pub fn send(&mut self, stream: Option<&WireId>, text: &str, answer: bool) {
        let Some((id, slot)) = stream.and_then(|id| Some((id, self.slots.get_mut(id)?))) else {
            match self.get {
                Some(conn) => self.write(conn, &h::chunk(&h::sse_event(None, text))),
                None => self.backlog.push(text.to_string()),
            }
            return;
        };
        if slot.ended {
            return;
        }
        if slot.json {
            if !answer {
                // A JSON answer carries one message; anything before it goes the other way.
                return self.send(None, text, false);
            }
            slot.ended = true;
            if let Some(conn) = slot.conn {
                let len = text.len().to_string();
                let mut headers = vec![
                    ("Content-Type", "application/json".to_string()),
                    ("Content-Length", len),
                ];
                headers.extend(self.session_header());
                let refs: Vec<(&str, &str)> =
                    headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
                let mut out = h::response_head(200, "OK", &refs);
                out.extend_from_slice(text.as_bytes());
                self.write(conn, &out);
                self.close(conn);
            }
            return;
        }
        let id = id.clone();
        self.event(&id, Some(text));
        if answer {
            if let Some(slot) = self.slots.get_mut(&id) {
                slot.answered = true;
            }
            if self.slots.get(&id).is_some_and(|s| s.conn.is_some()) {
                self.end(&id);
            }
        }
    }

    /// Connection `conn` reached end of file: the request whose open stream it carried, if
    /// any (the client closed or lost it before its end).
    pub fn gone(&mut self, conn: u64) -> Option<WireId> {
        self.conns.remove(&conn);
        self.to_accept.remove(&conn);
        if self.get == Some(conn) {
            self.get = None;
        }
        let id = self.by_conn.remove(&conn)?;
        let slot = self.slots.get_mut(&id)?;
        if slot.ended || slot.conn != Some(conn) {
            return None;
        }
        slot.conn = None;
        Some(id)
    }

    /// Whether request `id` has a response of its own here (its stream routes by the model).
    pub fn knows(&self, id: &WireId) -> bool {
        self.slots.contains_key(id)
    }
}

/// How long a write to a client may block (a client that stopped reading).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
