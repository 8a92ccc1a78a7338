//! Framing over a byte stream: newline-delimited JSON (MCP, ACP stdio) or LSP's
//! `Content-Length` headers.
//!
//! A [`FrameReader`] is fed bytes as they arrive and hands out whole frames; it never holds
//! more than the frame size limit plus one read's worth of bytes. Errors are values naming the
//! byte offset in the stream and what was expected. After an oversized line, newline framing
//! resynchronises at the next newline; a broken `Content-Length` stream cannot be resynchronised,
//! so the reader reports the error once and then yields nothing more.

use std::fmt;

/// How messages are delimited on the stream.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Framing {
    /// One JSON text per line (`\n`, an optional `\r` before it is dropped); blank lines are
    /// skipped.
    Ndjson,
    /// `Content-Length: N\r\n` (other headers allowed), a blank line, then N bytes.
    ContentLength,
}

impl Framing {
    /// `"ndjson"` or `"content-length"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Framing::Ndjson => "ndjson",
            Framing::ContentLength => "content-length",
        }
    }

    /// Parses [`Framing::as_str`]'s names.
    pub fn from_name(s: &str) -> Option<Framing> {
        match s {
            "ndjson" => Some(Framing::Ndjson),
            "content-length" => Some(Framing::ContentLength),
            _ => None,
        }
    }

    /// The bytes that put `body` (one JSON text, without a raw newline for [`Framing::Ndjson`])
    /// on the stream.
    pub fn frame(self, body: &str) -> Vec<u8> {
        match self {
            Framing::Ndjson => {
                let mut v = Vec::with_capacity(body.len() + 1);
                v.extend_from_slice(body.as_bytes());
                v.push(b'\n');
                v
            }
            Framing::ContentLength => {
                let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
                v.extend_from_slice(body.as_bytes());
                v
            }
        }
    }
}

/// One frame's body and where it starts in the stream.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Frame {
    /// Byte offset of the body's first byte from the start of the stream.
    pub offset: u64,
    /// The body.
    pub body: Vec<u8>,
}

/// A framing error: where, and what was expected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FrameError {
    /// Byte offset in the stream.
    pub offset: u64,
    /// What was expected there.
    pub expected: String,
    /// What was found (cut to 80 characters).
    pub found: String,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {}: expected {}, found {}",
            self.offset, self.expected, self.found
        )
    }
}

impl std::error::Error for FrameError {}

fn shown(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned();
    format!("{s:?}")
}

/// The longest header section accepted before its blank line.
const MAX_HEADERS: usize = 8 * 1024;

/// Splits a byte stream into frames.
#[derive(Debug)]
pub struct FrameReader {
    framing: Framing,
    max: usize,
    buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// Newline framing: dropping the rest of an oversized line.
    skipping: bool,
    /// Content-Length framing: the stream is broken beyond repair.
    broken: bool,
    /// Content-Length framing: the body length once the headers were read.
    body_len: Option<usize>,
}

impl FrameReader {
    /// A reader for `framing` that refuses frames over `max_frame` bytes.
    pub fn new(framing: Framing, max_frame: usize) -> Self {
        FrameReader {
            framing,
            max: max_frame,
            buf: Vec::new(),
            base: 0,
            skipping: false,
            broken: false,
            body_len: None,
        }
    }

    /// Bytes read from the stream so far.
    pub fn position(&self) -> u64 {
        self.base + self.buf.len() as u64
    }

    /// Appends bytes read from the stream. Call [`FrameReader::next_frame`] until it returns
    /// `None` after each push.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.broken {
            self.base += bytes.len() as u64;
            return;
        }
        self.buf.extend_from_slice(bytes);
    }

    fn consume(&mut self, n: usize) {
        self.buf.drain(..n);
        self.base += n as u64;
    }

    /// The next whole frame, a framing error, or `None` until more bytes arrive.
    pub fn next_frame(&mut self) -> Option<Result<Frame, FrameError>> {
        match self.framing {
            Framing::Ndjson => self.next_line(),
            Framing::ContentLength => self.next_counted(),
        }
    }

    fn next_line(&mut self) -> Option<Result<Frame, FrameError>> {
        loop {
            let nl = self.buf.iter().position(|&b| b == b'\n');
            if self.skipping {
                match nl {
                    Some(i) => {
                        self.consume(i + 1);
                        self.skipping = false;
                        continue;
                    }
                    None => {
                        let n = self.buf.len();
                        self.consume(n);
                        return None;
                    }
                }
            }
            let Some(i) = nl else {
                if self.buf.len() > self.max {
                    let e = FrameError {
                        offset: self.base,
                        expected: format!("a line of at most {} bytes", self.max),
                        found: format!("a longer one, starting {}", shown(&self.buf)),
                    };
                    let n = self.buf.len();
                    self.consume(n);
                    self.skipping = true;
                    return Some(Err(e));
                }
                return None;
            };
            let offset = self.base;
            let mut line: Vec<u8> = self.buf[..i].to_vec();
            self.consume(i + 1);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > self.max {
                return Some(Err(FrameError {
                    offset,
                    expected: format!("a line of at most {} bytes", self.max),
                    found: format!("{} bytes", line.len()),
                }));
            }
            if line.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            return Some(Ok(Frame { offset, body: line }));
        }
    }

    fn break_with(&mut self, offset: u64, expected: String, found: String) -> FrameError {
        self.broken = true;
        self.base += self.buf.len() as u64;
        self.buf = Vec::new();
        FrameError {
            offset,
            expected,
            found,
        }
    }

    fn next_counted(&mut self) -> Option<Result<Frame, FrameError>> {
        if self.broken {
            return None;
        }
        if self.body_len.is_none() {
            let end = self.buf.windows(4).position(|w| w == b"\r\n\r\n");
            let Some(end) = end else {
                if self.buf.len() > MAX_HEADERS {
                    let at = self.base;
                    return Some(Err(self.break_with(
                        at,
                        format!(
                            "a header section ending in a blank line within {MAX_HEADERS} bytes"
                        ),
                        shown(&self.buf),
                    )));
                }
                // A header line must start like one: catch a stream of bare JSON early.
                if let Some(first) = self.buf.first()
                    && (*first == b'{' || *first == b'[')
                {
                    let at = self.base;
                    return Some(Err(self.break_with(
                        at,
                        "a \"Content-Length: N\" header".into(),
                        shown(&self.buf),
                    )));
                }
                return None;
            };
            let headers = self.buf[..end].to_vec();
            let mut len = None;
            let mut line_at = 0usize;
            for line in headers.split(|&b| b == b'\n') {
                let line_offset = self.base + line_at as u64;
                line_at += line.len() + 1;
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let text = String::from_utf8_lossy(line);
                let Some((name, value)) = text.split_once(':') else {
                    return Some(Err(self.break_with(
                        line_offset,
                        "a header \"Name: value\"".into(),
                        shown(line),
                    )));
                };
                if name.trim().eq_ignore_ascii_case("content-length") {
                    match value.trim().parse::<usize>() {
                        Ok(n) => len = Some(n),
                        Err(_) => {
                            return Some(Err(self.break_with(
                                line_offset,
                                "a Content-Length that is a decimal number".into(),
                                shown(line),
                            )));
                        }
                    }
                }
            }
            let Some(len) = len else {
                let at = self.base;
                return Some(Err(self.break_with(
                    at,
                    "a \"Content-Length: N\" header".into(),
                    shown(&headers),
                )));
            };
            if len > self.max {
                let at = self.base;
                return Some(Err(self.break_with(
                    at,
                    format!("a Content-Length of at most {}", self.max),
                    len.to_string(),
                )));
            }
            self.consume(end + 4);
            self.body_len = Some(len);
        }
        let len = self.body_len?;
        if self.buf.len() < len {
            return None;
        }
        let offset = self.base;
        let body = self.buf[..len].to_vec();
        self.consume(len);
        self.body_len = None;
        Some(Ok(Frame { offset, body }))
    }

    /// At the end of the stream: an error if a frame was cut short.
    pub fn finish(&mut self) -> Option<FrameError> {
        if self.broken || self.skipping {
            return None;
        }
        let rest = self.buf.iter().any(|b| !b.is_ascii_whitespace());
        if !rest && self.body_len.is_none() {
            return None;
        }
        let expected = match (self.framing, self.body_len) {
            (Framing::Ndjson, _) => "a newline ending the last line".to_string(),
            (Framing::ContentLength, Some(n)) => format!("{n} bytes of body"),
            (Framing::ContentLength, None) => "the rest of the headers".to_string(),
        };
        let at = self.position();
        let found = format!("the end of the stream after {}", shown(&self.buf));
        Some(self.break_with(at, expected, found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(r: &mut FrameReader) -> Vec<Result<Frame, FrameError>> {
        std::iter::from_fn(|| r.next_frame()).collect()
    }

    #[test]
    fn lines_split_anywhere() {
        let stream = b"{\"a\":1}\r\n\n{\"b\":2}\n";
        for cut in 0..stream.len() {
            let mut r = FrameReader::new(Framing::Ndjson, 100);
            r.push(&stream[..cut]);
            let mut got = all(&mut r);
            r.push(&stream[cut..]);
            got.extend(all(&mut r));
            let bodies: Vec<Vec<u8>> = got.into_iter().map(|f| f.unwrap().body).collect();
            assert_eq!(bodies, vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]);
            assert!(r.finish().is_none());
        }
    }

    #[test]
    fn an_oversized_line_is_an_error_and_the_reader_resynchronises() {
        let mut r = FrameReader::new(Framing::Ndjson, 8);
        r.push(b"{}\n0123456789abcdef");
        let got = all(&mut r);
        assert_eq!(got[0].as_ref().unwrap().body, b"{}");
        let e = got[1].as_ref().unwrap_err();
        assert_eq!(e.offset, 3);
        r.push(b"more\n{\"x\":1}\n");
        let got = all(&mut r);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().unwrap().offset, 24);
    }

    #[test]
    fn content_length_frames_and_errors() {
        let mut r = FrameReader::new(Framing::ContentLength, 100);
        let mut s = Framing::ContentLength.frame("{\"a\":1}");
        s.extend(b"Content-Type: x\r\ncontent-length: 2\r\n\r\n{}");
        for b in &s {
            r.push(std::slice::from_ref(b));
        }
        let got: Vec<_> = all(&mut r).into_iter().map(|f| f.unwrap()).collect();
        assert_eq!(got[0].body, b"{\"a\":1}");
        assert_eq!(got[0].offset, 21);
        assert_eq!(got[1].body, b"{}");
        let mut r = FrameReader::new(Framing::ContentLength, 100);
        r.push(b"Content-Length: 2\r\n\r\n{}Content-Lenth 3\r\n\r\n");
        let got = all(&mut r);
        let e = got[1].as_ref().unwrap_err();
        assert_eq!(e.offset, 23);
        r.push(b"anything");
        assert!(r.next_frame().is_none());
        let mut r = FrameReader::new(Framing::ContentLength, 100);
        r.push(b"{\"jsonrpc\":\"2.0\"}\n");
        assert_eq!(all(&mut r)[0].as_ref().unwrap_err().offset, 0);
        let mut r = FrameReader::new(Framing::ContentLength, 100);
        r.push(b"Content-Length: 1000\r\n\r\n");
        assert!(all(&mut r)[0].is_err());
        let mut r = FrameReader::new(Framing::ContentLength, 100);
        r.push(b"Content-Length: 10\r\n\r\n{}");
        assert!(all(&mut r).is_empty());
        assert_eq!(r.finish().unwrap().offset, 24);
    }
}
