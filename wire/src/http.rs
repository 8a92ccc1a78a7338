//! The bytes of MCP's Streamable HTTP, for both sides (the probe's client and the test peer's
//! server): HTTP/1.1 message heads, `Content-Length` and `chunked` bodies, and Server-Sent
//! Events. Pure functions over bytes; no sockets, no threads, no clock.
//!
//! Why a small layer of its own rather than an HTTP crate: the probe must close one request's
//! stream at the moment it picks, from another thread than the one reading it (a clone of the
//! stream's socket, shut down), and the test peer must notice a client's close (end of file on
//! that connection). The blocking client crates do not hand the socket out, and the server
//! crates hide the end of a connection behind their own request loop; an async runtime would
//! cost more build time than this file on a 2-core machine. Only what Streamable HTTP uses is
//! here: no TLS, no `Transfer-Encoding` other than `chunked`, no trailers kept, no pipelining.
//!
//! Every parser takes what has arrived so far and says it needs more (`Ok(None)`), is done, or
//! is broken, with the byte offset of the fault in what it was given: never a panic.

use std::fmt;

/// The largest message head accepted (request or status line and headers).
pub const MAX_HEAD: usize = 64 * 1024;

/// A malformed HTTP message or event stream: where (a byte offset in the bytes given) and why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HttpError {
    /// Byte offset of the fault.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for HttpError {}

fn err<T>(offset: usize, message: impl Into<String>) -> Result<T, HttpError> {
    Err(HttpError {
        offset,
        message: message.into(),
    })
}

/// A parsed message head: a request line or a status line, and the headers in order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Head {
    /// The request line's method and target, or the status line's `HTTP/1.1` and code.
    pub start: Start,
    /// Headers as sent (names keep their case; look them up with [`Head::header`]).
    pub headers: Vec<(String, String)>,
}

/// The first line of a message.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Start {
    /// `METHOD TARGET HTTP/1.x`.
    Request {
        /// `GET`, `POST`, ...
        method: String,
        /// The path (and query).
        target: String,
    },
    /// `HTTP/1.x CODE REASON`.
    Status {
        /// The status code.
        code: u16,
        /// The reason phrase.
        reason: String,
    },
}

/// How a message's body is delimited.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BodyKind {
    /// No body.
    None,
    /// Exactly this many bytes.
    Length(usize),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Until the connection closes (a response without length).
    UntilClose,
}

impl Head {
    /// The first header named `name` (case-insensitive), trimmed.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The status code (`None` for a request).
    pub fn status(&self) -> Option<u16> {
        match self.start {
            Start::Status { code, .. } => Some(code),
            Start::Request { .. } => None,
        }
    }

    /// The media type of `Content-Type`, lower case, without parameters.
    pub fn media_type(&self) -> Option<String> {
        let v = self.header("content-type")?;
        Some(
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase(),
        )
    }

    /// How the body that follows is delimited. A request without length has none; a response
    /// to HEAD, 1xx, 204 and 304 have none; another response without length runs to the close.
    pub fn body_kind(&self) -> Result<BodyKind, HttpError> {
        if let Some(te) = self.header("transfer-encoding") {
            if te.trim().eq_ignore_ascii_case("chunked") {
                return Ok(BodyKind::Chunked);
            }
            return err(
                0,
                format!("Transfer-Encoding {te:?}: only chunked is supported"),
            );
        }
        if let Some(len) = self.header("content-length") {
            return match len.trim().parse::<usize>() {
                Ok(n) => Ok(BodyKind::Length(n)),
                Err(_) => err(0, format!("Content-Length {len:?} is not a number")),
            };
        }
        Ok(match self.start {
            Start::Request { .. } => BodyKind::None,
            Start::Status { code, .. } if code < 200 || code == 204 || code == 304 => {
                BodyKind::None
            }
            Start::Status { .. } => BodyKind::UntilClose,
        })
    }
}

/// Parses a message head from the start of `buf`: `Ok(None)` until the blank line that ends it
/// has arrived, else the head and how many bytes it took.
pub fn parse_head(buf: &[u8]) -> Result<Option<(Head, usize)>, HttpError> {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        if buf.len() > MAX_HEAD {
            return err(
                MAX_HEAD,
                format!("no end of the head within {MAX_HEAD} bytes"),
            );
        }
        return Ok(None);
    };
    let text = match std::str::from_utf8(&buf[..end]) {
        Ok(t) => t,
        Err(e) => return err(e.valid_up_to(), "the head is not UTF-8"),
    };
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or("");
    let start = parse_start(first)?;
    let mut headers = Vec::new();
    let mut at = first.len() + 2;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return err(at, format!("header line without a colon: {line:?}"));
        };
        if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace()) {
            return err(at, format!("bad header name {name:?}"));
        }
        headers.push((name.to_string(), value.trim().to_string()));
        at += line.len() + 2;
    }
    Ok(Some((Head { start, headers }, end + 4)))
}

fn parse_start(line: &str) -> Result<Start, HttpError> {
    let mut parts = line.splitn(3, ' ');
    let (a, b, c) = (parts.next(), parts.next(), parts.next());
    match (a, b, c) {
        (Some(v), Some(code), reason) if v.starts_with("HTTP/1.") => {
            let Ok(code) = code.parse::<u16>() else {
                return err(v.len() + 1, format!("status code {code:?} is not a number"));
            };
            if !(100..1000).contains(&code) {
                return err(v.len() + 1, format!("status code {code} out of range"));
            }
            Ok(Start::Status {
                code,
                reason: reason.unwrap_or("").to_string(),
            })
        }
        (Some(method), Some(target), Some(v)) if v.starts_with("HTTP/1.") && !method.is_empty() => {
            Ok(Start::Request {
                method: method.to_string(),
                target: target.to_string(),
            })
        }
        _ => err(
            0,
            format!("not an HTTP/1.x request or status line: {line:?}"),
        ),
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Why [`read_head`] returned no head.
#[derive(Debug)]
pub enum HeadError {
    /// The head is malformed.
    Malformed(HttpError),
    /// The connection ended after this many bytes, before the head's end.
    Ended(usize),
    /// Reading failed.
    Io(std::io::Error),
}

impl fmt::Display for HeadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeadError::Malformed(e) => write!(f, "the head: {e}"),
            HeadError::Ended(0) => write!(f, "the connection closed with nothing sent"),
            HeadError::Ended(n) => write!(f, "the connection ended within the head ({n} bytes)"),
            HeadError::Io(e) => write!(f, "reading the head: {e}"),
        }
    }
}

/// Reads a message head from `r` (a blocking connection): the head, and the bytes read past
/// it (the body's start).
pub fn read_head(r: &mut impl std::io::Read) -> Result<(Head, Vec<u8>), HeadError> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match parse_head(&buf) {
            Ok(Some((head, used))) => return Ok((head, buf.split_off(used))),
            Ok(None) => {}
            Err(e) => return Err(HeadError::Malformed(e)),
        }
        match r.read(&mut chunk) {
            Ok(0) => return Err(HeadError::Ended(buf.len())),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(HeadError::Io(e)),
        }
    }
}

/// Writes a request head (with `Content-Length` when `body_len` is given, and `Connection:
/// close`: one exchange a connection).
pub fn request_head(
    method: &str,
    target: &str,
    host: &str,
    headers: &[(&str, &str)],
    body_len: Option<usize>,
) -> Vec<u8> {
    let mut s = format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\n");
    for (n, v) in headers {
        s.push_str(&format!("{n}: {v}\r\n"));
    }
    if let Some(n) = body_len {
        s.push_str(&format!("Content-Length: {n}\r\n"));
    }
    s.push_str("Connection: close\r\n\r\n");
    s.into_bytes()
}

/// Writes a response head; `Connection: close` is always sent (one exchange a connection).
pub fn response_head(code: u16, reason: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let mut s = format!("HTTP/1.1 {code} {reason}\r\n");
    for (n, v) in headers {
        s.push_str(&format!("{n}: {v}\r\n"));
    }
    s.push_str("Connection: close\r\n\r\n");
    s.into_bytes()
}

/// One chunk of a `chunked` body (an empty `data` is the last chunk).
pub fn chunk(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

/// Decodes a `chunked` body as it arrives: [`Dechunker::push`] the bytes read, take the data.
#[derive(Default, Debug)]
pub struct Dechunker {
    buf: Vec<u8>,
    /// Bytes consumed before `buf` (for offsets).
    consumed: usize,
    /// Bytes of the current chunk's data still to come.
    left: usize,
    /// Expecting the CRLF after a chunk's data.
    crlf: bool,
    done: bool,
}

impl Dechunker {
    /// Feeds bytes; returns the body data they complete (maybe none). After the last chunk
    /// the rest (trailers) is ignored.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<u8>, HttpError> {
        let mut out = Vec::new();
        if self.done {
            return Ok(out);
        }
        self.buf.extend_from_slice(bytes);
        let mut at = 0;
        loop {
            if self.left > 0 {
                let n = self.left.min(self.buf.len() - at);
                out.extend_from_slice(&self.buf[at..at + n]);
                at += n;
                self.left -= n;
                if self.left > 0 {
                    break;
                }
                self.crlf = true;
            }
            if self.crlf {
                if self.buf.len() - at < 2 {
                    break;
                }
                if &self.buf[at..at + 2] != b"\r\n" {
                    return err(self.consumed + at, "expected CRLF after a chunk's data");
                }
                at += 2;
                self.crlf = false;
            }
            let Some(eol) = find(&self.buf[at..], b"\r\n") else {
                if self.buf.len() - at > 1024 {
                    return err(self.consumed + at, "chunk size line longer than 1024 bytes");
                }
                break;
            };
            let line = &self.buf[at..at + eol];
            let size = line.split(|&b| b == b';').next().unwrap_or(b"");
            let size = std::str::from_utf8(size)
                .ok()
                .and_then(|s| usize::from_str_radix(s.trim(), 16).ok());
            let Some(size) = size else {
                return err(
                    self.consumed + at,
                    format!(
                        "chunk size {:?} is not hexadecimal",
                        String::from_utf8_lossy(line)
                    ),
                );
            };
            at += eol + 2;
            if size == 0 {
                self.done = true;
                break;
            }
            self.left = size;
        }
        self.buf.drain(..at);
        self.consumed += at;
        Ok(out)
    }

    /// Whether the last chunk has arrived.
    pub fn done(&self) -> bool {
        self.done
    }
}

/// One Server-Sent Event (only the fields MCP uses).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct SseEvent {
    /// `id:` (the last one given in the event).
    pub id: Option<String>,
    /// `event:` (`None`: the default, `message`).
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n` (empty for an event without data: a priming event).
    pub data: String,
    /// `retry:` in milliseconds.
    pub retry: Option<u64>,
    /// The offset of the event's first byte in the stream.
    pub offset: u64,
}

/// Splits an event stream into events as it arrives (lines end with LF, CRLF or CR).
#[derive(Default, Debug)]
pub struct SseReader {
    buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    base: u64,
    cur: SseEvent,
    any_field: bool,
    data_lines: usize,
    start: u64,
}

/// The longest line an event stream may send.
pub const MAX_SSE_LINE: usize = 16 << 20;

impl SseReader {
    /// Feeds bytes; returns the events they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, HttpError> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(eol) = self.buf[at..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            let mut next = at + eol + 1;
            if self.buf[at + eol] == b'\r' {
                if next >= self.buf.len() {
                    // A CR at the end: wait, it may be the start of a CRLF.
                    break;
                }
                if self.buf[next] == b'\n' {
                    next += 1;
                }
            }
            let line_at = self.base + at as u64;
            let line = &self.buf[at..at + eol];
            let Ok(line) = std::str::from_utf8(line) else {
                return Err(HttpError {
                    offset: usize::try_from(line_at).unwrap_or(usize::MAX),
                    message: "an event stream line that is not UTF-8".into(),
                });
            };
            if line.is_empty() {
                if self.any_field {
                    let mut ev = std::mem::take(&mut self.cur);
                    ev.offset = self.start;
                    out.push(ev);
                }
                self.any_field = false;
                self.data_lines = 0;
            } else if !line.starts_with(':') {
                if !self.any_field {
                    self.start = line_at;
                }
                self.any_field = true;
                let (field, value) = match line.split_once(':') {
                    Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                    None => (line, ""),
                };
                match field {
                    "data" => {
                        if self.data_lines > 0 {
                            self.cur.data.push('\n');
                        }
                        self.data_lines += 1;
                        self.cur.data.push_str(value);
                    }
                    "id" if !value.contains('\0') => self.cur.id = Some(value.to_string()),
                    "event" => self.cur.event = Some(value.to_string()),
                    "retry" => self.cur.retry = value.parse().ok(),
                    _ => {}
                }
            }
            at = next;
        }
        if self.buf.len() - at > MAX_SSE_LINE {
            return Err(HttpError {
                offset: usize::try_from(self.base).unwrap_or(usize::MAX) + at,
                message: format!("an event stream line longer than {MAX_SSE_LINE} bytes"),
            });
        }
        self.buf.drain(..at);
        self.base += at as u64;
        Ok(out)
    }
}

/// Writes one event: its `id:` if any, then `data:` (one line per line of `data`; none for an
/// empty `data`, a priming event), then the blank line.
pub fn sse_event(id: Option<&str>, data: &str) -> Vec<u8> {
    let mut s = String::new();
    if let Some(id) = id {
        s.push_str(&format!("id: {id}\n"));
    }
    if data.is_empty() {
        s.push_str("data:\n");
    }
    for line in data.lines() {
        s.push_str(&format!("data: {line}\n"));
    }
    s.push('\n');
    s.into_bytes()
}

/// An `http://host:port/path` URL, split.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Url {
    /// The host, as written.
    pub host: String,
    /// The port (80 when not written).
    pub port: u16,
    /// The path and query (`/` when not written).
    pub path: String,
}

impl Url {
    /// Parses an `http://` URL; `https://` and any other scheme are refused (no TLS here).
    pub fn parse(s: &str) -> Result<Url, String> {
        let Some(rest) = s.strip_prefix("http://") else {
            if s.starts_with("https://") {
                return Err(format!(
                    "{s}: https is not supported (no TLS); give an http:// URL, e.g. through a local TLS-terminating proxy"
                ));
            }
            return Err(format!("{s}: expected http://HOST:PORT/PATH"));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.contains('@') {
            return Err(format!("{s}: user information in the URL is not supported"));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => {
                let port = p
                    .parse::<u16>()
                    .map_err(|_| format!("{s}: port {p:?} is not a number from 0 to 65535"))?;
                (h, port)
            }
            _ => (authority, 80),
        };
        if host.is_empty() {
            return Err(format!("{s}: no host"));
        }
        Ok(Url {
            host: host.to_string(),
            port,
            path: path.to_string(),
        })
    }

    /// `host:port`, for `Host:` and to connect to.
    pub fn authority(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_parse_whole_and_wait_for_more() {
        let raw = b"HTTP/1.1 202 Accepted\r\nMcp-Session-Id: abc\r\nContent-Length: 0\r\n\r\nrest";
        assert_eq!(parse_head(&raw[..20]), Ok(None));
        let (h, n) = parse_head(raw).unwrap().unwrap();
        assert_eq!(&raw[n..], b"rest");
        assert_eq!(h.status(), Some(202));
        assert_eq!(h.header("mcp-session-id"), Some("abc"));
        assert_eq!(h.body_kind(), Ok(BodyKind::Length(0)));
        let (r, _) = parse_head(b"POST /mcp HTTP/1.1\r\nContent-Type: application/json; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            r.start,
            Start::Request {
                method: "POST".into(),
                target: "/mcp".into()
            }
        );
        assert_eq!(r.media_type().as_deref(), Some("application/json"));
        assert_eq!(r.body_kind(), Ok(BodyKind::Chunked));
        let (s, _) = parse_head(b"HTTP/1.1 200 OK\r\n\r\n").unwrap().unwrap();
        assert_eq!(s.body_kind(), Ok(BodyKind::UntilClose));
    }

    #[test]
    fn malformed_heads_say_where() {
        let e = parse_head(b"SPDY/3 200 OK\r\n\r\n").unwrap_err();
        assert_eq!(e.offset, 0);
        let e = parse_head(b"HTTP/1.1 abc OK\r\n\r\n").unwrap_err();
        assert_eq!(e.offset, 9);
        let e = parse_head(b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n").unwrap_err();
        assert_eq!((e.offset, e.message.contains("colon")), (17, true));
        let e = parse_head(b"HTTP/1.1 200 OK\r\nX: \xff\r\n\r\n").unwrap_err();
        assert_eq!(e.offset, 20);
        let (h, _) = parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(h.body_kind().is_err());
        let (h, _) = parse_head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(h.body_kind().is_err());
        assert!(parse_head(&vec![b'a'; MAX_HEAD + 1]).is_err());
    }

    #[test]
    fn chunked_bodies_decode_across_any_split() {
        let body = [chunk(b"hello "), chunk(b"world"), chunk(b"")].concat();
        for split in 0..body.len() {
            let mut d = Dechunker::default();
            let mut got = d.push(&body[..split]).unwrap();
            got.extend(d.push(&body[split..]).unwrap());
            assert_eq!(got, b"hello world", "split at {split}");
            assert!(d.done());
        }
        let mut d = Dechunker::default();
        let e = d.push(b"5\r\nhelloXX").unwrap_err();
        assert_eq!(e.offset, 8);
        let mut d = Dechunker::default();
        let e = d.push(b"5\r\nhello\r\nzz\r\n").unwrap_err();
        assert_eq!((e.offset, e.message.contains("hexadecimal")), (10, true));
    }

    #[test]
    fn events_split_on_blank_lines_with_ids_and_priming() {
        let mut r = SseReader::default();
        let stream = b"id: 1\ndata:\n\n: comment\r\nid: 2\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nretry: 50\ndata: x\n\n";
        let mut all = Vec::new();
        for b in stream.chunks(3) {
            all.extend(r.push(b).unwrap());
        }
        assert_eq!(all.len(), 3);
        assert_eq!(
            (all[0].id.as_deref(), all[0].data.as_str()),
            (Some("1"), "")
        );
        assert_eq!(all[1].data, "{\"a\":\n1}");
        assert_eq!(all[1].id.as_deref(), Some("2"));
        assert_eq!(all[1].offset, 24);
        assert_eq!((all[2].retry, all[2].data.as_str()), (Some(50), "x"));
        let mut r = SseReader::default();
        let back = r.push(&sse_event(Some("7"), "{\"x\":1}")).unwrap();
        assert_eq!(back[0].data, "{\"x\":1}");
        assert_eq!(
            r.push(&sse_event(Some("8"), "")).unwrap()[0].id.as_deref(),
            Some("8")
        );
        let e = SseReader::default()
            .push(b"data: ok\n\ndata: \xff\n")
            .unwrap_err();
        assert_eq!(e.offset, 10);
    }

    #[test]
    fn heads_are_read_from_a_connection_in_pieces() {
        struct Drip<'a>(&'a [u8]);
        impl std::io::Read for Drip<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(3).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let (h, rest) = read_head(&mut Drip(b"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody")).unwrap();
        assert_eq!(h.header("a"), Some("b"));
        assert!(b"body".starts_with(&rest));
        assert!(matches!(
            read_head(&mut Drip(b"HTTP/1.1 2")),
            Err(HeadError::Ended(10))
        ));
        assert!(matches!(
            read_head(&mut Drip(b"nope\r\n\r\n")),
            Err(HeadError::Malformed(_))
        ));
    }

    #[test]
    fn urls_are_http_only() {
        let u = Url::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("127.0.0.1", 8080, "/mcp")
        );
        assert_eq!(Url::parse("http://localhost").unwrap().path, "/");
        assert!(Url::parse("https://x/mcp").unwrap_err().contains("no TLS"));
        assert!(Url::parse("ftp://x").is_err());
        assert!(Url::parse("http://h:99999/").unwrap_err().contains("port"));
        assert!(Url::parse("http://:80/").is_err());
    }
}
