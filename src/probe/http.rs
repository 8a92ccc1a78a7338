//! The probe's side of MCP's Streamable HTTP: a client on `std::net`, the bytes from
//! [`cancelcheck_wire::http`].
//!
//! Every message is a POST on a connection of its own (`Connection: close`); the standalone
//! stream and a resume (`Last-Event-ID`) are GETs. Each connection is read on a thread of its
//! own, which feeds one channel the session reads (as [`super::process`] does for a peer's
//! stdout), each arrival named by its stream's label (`post-N`, `get-N`). The session keeps a
//! clone of every socket, so it closes one stream at the moment it picks (a shutdown of that
//! socket): a stream closed so is read no further.
//!
//! Why not an HTTP crate: see [`cancelcheck_wire::http`] (the socket of a stream must be shut
//! down from another thread than the one reading it).

use cancelcheck_wire::http::{self as h, BodyKind, Dechunker, SseReader, Url};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What arrived on a stream.
#[derive(Debug)]
pub enum What {
    /// The response head: status, media type, and the text of an error response's body
    /// comes as [`What::Body`].
    Head {
        /// The status code.
        status: u16,
        /// The status line's reason.
        reason: String,
        /// The media type, lower case.
        media: Option<String>,
    },
    /// One JSON-RPC message (a JSON body, or an SSE event's data), with its stream offset and
    /// its event id if any.
    Message {
        /// The message's bytes.
        bytes: Vec<u8>,
        /// Offset of the message in the response body.
        offset: u64,
        /// The SSE event's `id:`.
        event_id: Option<String>,
    },
    /// An SSE event with an id and no data (a priming event: where to resume from).
    Priming(String),
    /// The body of a response that is not 2xx (its first 500 bytes, lossy).
    Body(String),
    /// The server ended the response (its last chunk, its length, or end of file).
    End,
    /// The stream broke: malformed HTTP or events, or no connection.
    Broken(String),
}

/// One arrival, on the stream labelled `stream`.
#[derive(Debug)]
pub struct Arrival {
    /// The stream's label.
    pub stream: String,
    /// What came.
    pub what: What,
}

/// How many arrivals (each a message of at most `--max-frame`) wait for the session to read
/// them before the connections' readers stop reading.
const ARRIVALS: usize = 16;

/// The client of one session.
pub struct Client {
    url: Url,
    tx: SyncSender<Arrival>,
    rx: Receiver<Arrival>,
    sockets: BTreeMap<String, TcpStream>,
    threads: Vec<JoinHandle<()>>,
    /// `Mcp-Session-Id`, as the server handed it out (any response may).
    session: Arc<Mutex<Option<String>>>,
    /// `MCP-Protocol-Version`, once the version is settled.
    pub version: Option<String>,
    next: u64,
    max_frame: usize,
}

impl Client {
    /// A client of the endpoint at `url`.
    pub fn new(url: Url, max_frame: usize) -> Client {
        // Bounded: a server that writes faster than the session reads is held back by its
        // connection, never buffered here without end.
        let (tx, rx) = mpsc::sync_channel(ARRIVALS);
        Client {
            url,
            tx,
            rx,
            sockets: BTreeMap::new(),
            threads: Vec::new(),
            session: Arc::new(Mutex::new(None)),
            version: None,
            next: 0,
            max_frame,
        }
    }

    /// The `Mcp-Session-Id` the server handed out, if any.
    pub fn session_id(&self) -> Option<String> {
        self.session
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn label(&mut self, kind: &str) -> String {
        self.next += 1;
        format!("{kind}-{}", self.next)
    }

    /// POSTs one JSON-RPC message; returns the label of the stream its response comes on.
    /// The message's method goes in `Mcp-Method` and its params' `name` (or `uri`) in
    /// `Mcp-Name`, as MCP 2026-07-28 requires (SEP-2243; harmless to a 2025 server).
    pub fn post(&mut self, text: &str) -> String {
        let label = self.label("post");
        let mut headers = vec![
            ("Accept", "application/json, text/event-stream".to_string()),
            ("Content-Type", "application/json".to_string()),
        ];
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            if let Some(m) = v.get("method").and_then(|m| m.as_str()) {
                headers.push(("Mcp-Method", m.to_string()));
            }
            let params = v.get("params");
            let name = params.and_then(|p| p.get("name").or_else(|| p.get("uri")));
            if let Some(n) = name.and_then(|n| n.as_str()) {
                headers.push(("Mcp-Name", n.to_string()));
            }
        }
        self.common(&mut headers);
        let head = self.head("POST", &headers, Some(text.len()));
        let mut bytes = head;
        bytes.extend_from_slice(text.as_bytes());
        self.open(label.clone(), bytes);
        label
    }

    /// Opens a GET stream (`last_event`: a resume of the stream that event was on).
    pub fn get(&mut self, last_event: Option<&str>) -> String {
        let label = self.label("get");
        let mut headers = vec![("Accept", "text/event-stream".to_string())];
        if let Some(id) = last_event {
            headers.push(("Last-Event-ID", id.to_string()));
        }
        self.common(&mut headers);
        let bytes = self.head("GET", &headers, None);
        self.open(label.clone(), bytes);
        label
    }

    fn common(&self, headers: &mut Vec<(&'static str, String)>) {
        if let Some(s) = self.session_id() {
            headers.push(("Mcp-Session-Id", s));
        }
        if let Some(v) = &self.version {
            headers.push(("MCP-Protocol-Version", v.clone()));
        }
    }

    fn head(&self, method: &str, headers: &[(&str, String)], len: Option<usize>) -> Vec<u8> {
        let refs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        h::request_head(method, &self.url.path, &self.url.authority(), &refs, len)
    }

    /// Connects (at most 5 s), then sends `bytes` and reads the response on a thread of its
    /// own.
    fn open(&mut self, label: String, bytes: Vec<u8>) {
        let addr = self.url.authority();
        let tx = self.tx.clone();
        let session = self.session.clone();
        let max = self.max_frame;
        let socket = (|| -> std::io::Result<TcpStream> {
            let to = addr
                .to_socket_addrs()?
                .next()
                .ok_or_else(|| std::io::Error::other("the host resolves to no address"))?;
            let s = TcpStream::connect_timeout(&to, Duration::from_secs(5))?;
            s.set_nodelay(true)?;
            Ok(s)
        })();
        let mut socket = match socket {
            Ok(s) => s,
            Err(e) => {
                let _ = tx.send(Arrival {
                    stream: label,
                    what: What::Broken(format!("could not connect to {addr}: {e}")),
                });
                return;
            }
        };
        if let Ok(c) = socket.try_clone() {
            self.sockets.insert(label.clone(), c);
        }
        let thread = std::thread::spawn(move || {
            let send = |what| {
                tx.send(Arrival {
                    stream: label.clone(),
                    what,
                })
                .is_ok()
            };
            if let Err(e) = socket.write_all(&bytes) {
                send(What::Broken(format!("could not send the request: {e}")));
                return;
            }
            read_response(&mut socket, max, &session, send);
        });
        self.threads.push(thread);
    }

    /// Shuts the stream's connection down now: nothing more is read on it.
    pub fn close(&mut self, label: &str) {
        if let Some(s) = self.sockets.remove(label) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// The next arrival, waiting until `deadline` at most.
    pub fn recv(&self, deadline: Instant) -> Option<Arrival> {
        let wait = deadline.saturating_duration_since(Instant::now());
        self.rx.recv_timeout(wait).ok()
    }

    /// Everything the streams still carry once the server is gone: waits (until `deadline`
    /// at most) for every stream's thread to end, which it does when the server's sockets
    /// close with it, then returns what they sent, each stream's in its own order.
    pub fn settle(&mut self, deadline: Instant) -> Vec<Arrival> {
        while self.threads.iter().any(|t| !t.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.rx.try_iter().collect()
    }

    /// Closes every stream and waits for their threads.
    pub fn finish(&mut self) {
        for (_, s) in std::mem::take(&mut self.sockets) {
            let _ = s.shutdown(Shutdown::Both);
        }
        // Nothing more is read: a reader blocked on a full channel ends with it.
        let (tx, rx) = mpsc::sync_channel(0);
        self.tx = tx;
        drop(std::mem::replace(&mut self.rx, rx));
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Reads one response: its head, then its body as one JSON message or as events.
fn read_response(
    socket: &mut TcpStream,
    max: usize,
    session: &Mutex<Option<String>>,
    send: impl Fn(What) -> bool,
) {
    let mut chunk = vec![0u8; 16 * 1024];
    let (head, mut input) = match h::read_head(socket) {
        Ok(x) => x,
        Err(h::HeadError::Ended(0)) => {
            send(What::Broken(
                "the server closed the connection without a response".into(),
            ));
            return;
        }
        Err(e) => {
            send(What::Broken(format!("the response: {e}")));
            return;
        }
    };
    if let Some(id) = head.header("mcp-session-id") {
        *session.lock().unwrap_or_else(|p| p.into_inner()) = Some(id.to_string());
    }
    let status = head.status().unwrap_or(0);
    let media = head.media_type();
    let kind = match head.body_kind() {
        Ok(k) => k,
        Err(e) => {
            send(What::Broken(format!("the response head: {e}")));
            return;
        }
    };
    if !send(What::Head {
        status,
        reason: match &head.start {
            h::Start::Status { reason, .. } => reason.clone(),
            h::Start::Request { .. } => String::new(),
        },
        media: media.clone(),
    }) {
        return;
    }
    // The body, decoded as it arrives.
    let mut body = Body::new(kind);
    let events = media.as_deref() == Some("text/event-stream") && (200..300).contains(&status);
    let mut sse = SseReader::default();
    let mut whole = Vec::new();
    loop {
        let data = match body.push(&input) {
            Ok(d) => d,
            Err(e) => {
                send(What::Broken(format!("the response body: {e}")));
                return;
            }
        };
        if events {
            match sse.push(&data) {
                Ok(evs) => {
                    for ev in evs {
                        let what = match (ev.data.is_empty(), ev.id) {
                            (true, Some(id)) => What::Priming(id),
                            (true, None) => continue,
                            (false, event_id) => What::Message {
                                bytes: ev.data.into_bytes(),
                                offset: ev.offset,
                                event_id,
                            },
                        };
                        if !send(what) {
                            return;
                        }
                    }
                }
                Err(e) => {
                    send(What::Broken(format!("the event stream: {e}")));
                    return;
                }
            }
        } else {
            whole.extend_from_slice(&data);
            if whole.len() > max {
                send(What::Broken(format!(
                    "a response body larger than {max} bytes (--max-frame)"
                )));
                return;
            }
        }
        if body.done() {
            break;
        }
        match socket.read(&mut chunk) {
            Ok(0) | Err(_) if body.until_close() => break,
            Ok(0) | Err(_) => {
                // Ended early: the peer (or the probe, closing it) cut the stream.
                send(What::End);
                return;
            }
            Ok(n) => input = chunk[..n].to_vec(),
        }
    }
    if !events && !whole.is_empty() {
        let what = if (200..300).contains(&status) {
            What::Message {
                bytes: whole,
                offset: 0,
                event_id: None,
            }
        } else {
            let cut = whole.len().min(500);
            What::Body(String::from_utf8_lossy(&whole[..cut]).into_owned())
        };
        if !send(what) {
            return;
        }
    }
    send(What::End);
}

/// A response body's delimiting.
enum Body {
    Length(usize),
    Chunked(Dechunker),
    UntilClose,
}

impl Body {
    fn new(kind: BodyKind) -> Body {
        match kind {
            BodyKind::None => Body::Length(0),
            BodyKind::Length(n) => Body::Length(n),
            BodyKind::Chunked => Body::Chunked(Dechunker::default()),
            BodyKind::UntilClose => Body::UntilClose,
        }
    }

    fn push(&mut self, bytes: &[u8]) -> Result<Vec<u8>, h::HttpError> {
        match self {
            Body::Length(left) => {
                let n = (*left).min(bytes.len());
                *left -= n;
                Ok(bytes[..n].to_vec())
            }
            Body::Chunked(d) => d.push(bytes),
            Body::UntilClose => Ok(bytes.to_vec()),
        }
    }

    fn done(&self) -> bool {
        match self {
            Body::Length(left) => *left == 0,
            Body::Chunked(d) => d.done(),
            Body::UntilClose => false,
        }
    }

    fn until_close(&self) -> bool {
        matches!(self, Body::UntilClose)
    }
}

/// The ports this process has leased to servers it starts (see [`PortLease`]).
static LEASED: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

fn leased() -> std::sync::MutexGuard<'static, BTreeSet<u16>> {
    LEASED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A local port held for one server the probe starts, until the lease is dropped: no other
/// lease of this process gets it meanwhile. A port is picked by binding it and released for
/// the server to bind, so the system may offer it again before the server listens; without the
/// lease, two scenarios run at once could start their servers on one port, and the one whose
/// server could not listen would talk to the other's.
#[derive(Debug)]
pub struct PortLease(u16);

impl PortLease {
    /// Leases `port`, unless this process holds a lease on it.
    fn take(port: u16) -> Option<PortLease> {
        // (A lease made only once the set is unlocked: dropping one takes the lock.)
        let new = leased().insert(port);
        new.then(|| PortLease(port))
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.0
    }
}

impl Drop for PortLease {
    fn drop(&mut self) {
        leased().remove(&self.0);
    }
}

/// A local port no one listens on now and no other lease of this process holds (for
/// `{port}`): bound, read and released.
pub fn free_port() -> std::io::Result<PortLease> {
    lease_from(|| std::net::TcpListener::bind("127.0.0.1:0"))
}

/// The first port `bind` offers that no lease holds, leased. Each port found leased stays bound
/// while the search goes on, so the system does not offer it twice.
fn lease_from(
    mut bind: impl FnMut() -> std::io::Result<std::net::TcpListener>,
) -> std::io::Result<PortLease> {
    let mut tried = Vec::new();
    loop {
        let l = bind()?;
        if let Some(lease) = PortLease::take(l.local_addr()?.port()) {
            return Ok(lease);
        }
        tried.push(l);
    }
}

/// Waits until `url`'s host accepts connections, until `deadline`; `alive` says whether the
/// process that should listen still runs (connections accepted once it has exited are another
/// process's). Returns why not, if it never did.
pub fn wait_listening(
    url: &Url,
    deadline: Instant,
    mut alive: impl FnMut() -> bool,
) -> Result<(), String> {
    let addr = url.authority();
    loop {
        let to = addr
            .to_socket_addrs()
            .map_err(|e| format!("{addr}: {e}"))?
            .next()
            .ok_or_else(|| format!("{addr} resolves to no address"))?;
        if TcpStream::connect_timeout(&to, Duration::from_millis(200)).is_ok() {
            if !alive() {
                // An exited process accepted nothing: another one listens there.
                return Err(format!(
                    "it exited, and something else accepts connections on {addr}"
                ));
            }
            return Ok(());
        }
        if !alive() {
            return Err(format!(
                "it exited before it accepted connections on {addr}"
            ));
        }
        if Instant::now() >= deadline {
            return Err(format!("nothing accepted connections on {addr} in time"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    /// A port this process leased is not leased again, even when the system offers it (as it
    /// may once the port is released for the server to bind), until the lease is dropped.
    #[test]
    fn a_leased_port_is_not_leased_again_until_released() {
        let held = free_port().unwrap();
        let p = held.port();
        assert!(PortLease::take(p).is_none());
        // The system offers the leased port first, then any.
        let mut offers = [format!("127.0.0.1:{p}"), "127.0.0.1:0".to_string()].into_iter();
        let other = lease_from(|| TcpListener::bind(offers.next().unwrap())).unwrap();
        assert_ne!(other.port(), p);
        drop(held);
        assert_eq!(PortLease::take(p).map(|l| l.port()), Some(p));
    }

    /// A started server that has exited, while something else accepts connections on its port,
    /// is not taken as listening.
    #[test]
    fn a_port_another_process_listens_on_is_not_the_exited_servers() {
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = other.local_addr().unwrap().port();
        let url = Url::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let why = wait_listening(&url, deadline, || false).unwrap_err();
        assert!(why.contains("something else accepts connections"), "{why}");
        assert!(wait_listening(&url, deadline, || true).is_ok());
    }

    /// A server that answers its one POST with a 202 only after a while, then is gone: `settle`
    /// waits for the stream's thread and hands over what the server wrote.
    #[test]
    fn settle_takes_what_a_server_wrote_before_it_went() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            std::thread::sleep(Duration::from_millis(150));
            s.write_all(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
                .unwrap();
        });
        let url = Url::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
        let mut client = Client::new(url, 1 << 20);
        let label = client.post(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
        let got = client.settle(Instant::now() + Duration::from_secs(5));
        server.join().unwrap();
        assert!(
            got.iter()
                .any(|a| a.stream == label && matches!(a.what, What::Head { status: 202, .. })),
            "{got:?}"
        );
    }
}
