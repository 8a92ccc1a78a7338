//! The transcripts `cancelcheck audit` reads, one line at a time: the project's own JSONL
//! (`docs/audit.md`, `schemas/transcript.schema.json`), vscode-jsonrpc's JSON trace and the
//! logs desktop MCP clients write. Each line is parsed on its own, so a file of any size is
//! read holding one line.

use serde_json::Value;
use std::io::BufRead;

/// A transcript's format.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Format {
    /// One object a line: `direction`, `time`, `message` (what `watch` writes).
    Jsonl,
    /// vscode-jsonrpc's JSON trace: objects with `isLSPMessage`, `type`, `message`,
    /// `timestamp`, one a line.
    Vscode,
    /// MCP client logs: `TIMESTAMP [info] [NAME] Message from client: {json}` and
    /// `Message from server: {json}`.
    McpLog,
}

impl Format {
    /// The name `--format` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Vscode => "vscode",
            Format::McpLog => "mcp-log",
        }
    }
}

/// Who wrote a message, as a line of the transcript says it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Writer {
    /// The client (JSONL `client-to-server`, MCP `Message from client`).
    Client,
    /// The server.
    Server,
    /// The party whose own trace this is (vscode `send-*`); which party that is follows from
    /// the session (see [`Scan`](super::Scan)).
    Recorder,
    /// The other party (vscode `receive-*`).
    Other,
}

/// One message of a transcript, or the end of what one party wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Who wrote it.
    pub writer: Writer,
    /// Its time in microseconds, on the transcript's own clock (`None`: the line has none).
    pub time_us: Option<u64>,
    /// What the line says.
    pub said: Said,
}

/// What a line of a transcript says its writer did.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    /// A message: compact JSON text, or the raw text of a frame that was not JSON.
    Message(String),
    /// The writer closed its output: nothing more came from it (JSONL `"closed": true`, which
    /// `watch` writes when the server's stdout ends).
    Closed,
}

/// A line of a transcript.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// A message.
    Message(Entry),
    /// A line that is not a message in this format (blank lines, other log lines).
    Skipped,
}

/// The JSONL `direction` of a message the client wrote.
pub const CLIENT_TO_SERVER: &str = "client-to-server";
/// The JSONL `direction` of a message the server wrote.
pub const SERVER_TO_CLIENT: &str = "server-to-client";

/// One JSONL line of the project's own format, for a message `writer` (client or server) wrote
/// at `time_us` since the session started. `message` is the frame's text: written as JSON when
/// it is JSON, else as a string.
pub fn jsonl_line(client_wrote: bool, time_us: u64, message: &[u8]) -> String {
    let direction = if client_wrote {
        CLIENT_TO_SERVER
    } else {
        SERVER_TO_CLIENT
    };
    let message = serde_json::from_slice::<Value>(message)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(message).into_owned()));
    let line = serde_json::json!({"direction": direction, "time": time_us, "message": message});
    line.to_string()
}

/// The JSONL line that says the server (`client_wrote`: the client) closed its output at
/// `time_us`: nothing more came from it.
pub fn jsonl_closed_line(client_wrote: bool, time_us: u64) -> String {
    let direction = if client_wrote {
        CLIENT_TO_SERVER
    } else {
        SERVER_TO_CLIENT
    };
    serde_json::json!({"direction": direction, "time": time_us, "closed": true}).to_string()
}

fn message_text(v: &Value, what: &str) -> Result<String, String> {
    match v {
        Value::Object(_) => Ok(v.to_string()),
        Value::String(s) => Ok(s.clone()),
        _ => Err(format!(
            "{what}: expected a JSON-RPC message (an object) or the raw text of a frame (a string)"
        )),
    }
}

/// Parses one line (without its newline) of a transcript in `format`; `Err` says what was
/// expected.
pub fn parse_line(format: Format, line: &str) -> Result<Line, String> {
    let line = line.trim_end_matches('\r');
    if line.trim().is_empty() {
        return Ok(Line::Skipped);
    }
    match format {
        Format::Jsonl => jsonl(line),
        Format::Vscode => vscode(line),
        Format::McpLog => mcp_log(line),
    }
}

fn object(line: &str) -> Result<serde_json::Map<String, Value>, String> {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("expected a JSON object".into()),
        Err(e) => Err(format!("expected a JSON object: {e}")),
    }
}

fn jsonl(line: &str) -> Result<Line, String> {
    let o = object(line)?;
    let writer = match o.get("direction").and_then(Value::as_str) {
        Some(CLIENT_TO_SERVER) => Writer::Client,
        Some(SERVER_TO_CLIENT) => Writer::Server,
        _ => {
            return Err(format!(
                "field `direction`: expected \"{CLIENT_TO_SERVER}\" or \"{SERVER_TO_CLIENT}\""
            ));
        }
    };
    let time_us = match o.get("time") {
        Some(t) => Some(t.as_u64().ok_or(
            "field `time`: expected microseconds since the session started (an integer >= 0)",
        )?),
        None => {
            return Err("field `time`: missing (microseconds since the session started)".into());
        }
    };
    if o.get("closed") == Some(&Value::Bool(true)) && !o.contains_key("message") {
        return Ok(Line::Message(Entry {
            writer,
            time_us,
            said: Said::Closed,
        }));
    }
    let message = o.get("message").ok_or(
        "field `message`: missing (or `\"closed\": true` where the writer's output ended)",
    )?;
    Ok(Line::Message(Entry {
        writer,
        time_us,
        said: Said::Message(message_text(message, "field `message`")?),
    }))
}

fn vscode(line: &str) -> Result<Line, String> {
    let o = object(line)?;
    if o.get("isLSPMessage") != Some(&Value::Bool(true)) {
        // A tracer's other log calls (not a message).
        return Ok(Line::Skipped);
    }
    let kind = o
        .get("type")
        .and_then(Value::as_str)
        .ok_or("field `type`: expected send-request, receive-response, ... (a string)")?;
    let writer = if kind.starts_with("send-") {
        Writer::Recorder
    } else if kind.starts_with("receive-") {
        Writer::Other
    } else {
        return Err(format!(
            "field `type`: expected send-* or receive-* (send-request, receive-response, ...), found {kind:?}"
        ));
    };
    let time_us = match o.get("timestamp") {
        None => None,
        Some(t) => Some(
            t.as_u64()
                .ok_or("field `timestamp`: expected milliseconds since the epoch")?
                .saturating_mul(1000),
        ),
    };
    let message = o.get("message").ok_or("field `message`: missing")?;
    Ok(Line::Message(Entry {
        writer,
        time_us,
        said: Said::Message(message_text(message, "field `message`")?),
    }))
}

const FROM_CLIENT: &str = "Message from client: ";
const FROM_SERVER: &str = "Message from server: ";

fn mcp_log(line: &str) -> Result<Line, String> {
    let (at, writer, json) = if let Some(k) = line.find(FROM_CLIENT) {
        (k, Writer::Client, &line[k + FROM_CLIENT.len()..])
    } else if let Some(k) = line.find(FROM_SERVER) {
        (k, Writer::Server, &line[k + FROM_SERVER.len()..])
    } else {
        return Ok(Line::Skipped);
    };
    let message = logged_json(json)?;
    let time_us = line[..at].split_whitespace().next().and_then(rfc3339_us);
    Ok(Line::Message(Entry {
        writer,
        time_us,
        said: Said::Message(message_text(&message, "the message")?),
    }))
}

/// The message a desktop client's log line carries after "Message from ...: ": one JSON
/// value, which the logger may follow with its own words after a space (` { metadata:
/// undefined }`, the shape of a JavaScript logger's metadata), never with more of the JSON.
fn logged_json(json: &str) -> Result<Value, String> {
    let expected = |e: &dyn std::fmt::Display| {
        format!("expected a JSON-RPC message after \"Message from ...: \": {e}")
    };
    let mut values = serde_json::Deserializer::from_str(json).into_iter::<Value>();
    let message = match values.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => return Err(expected(&e)),
        None => return Err(expected(&"found nothing")),
    };
    let rest = &json[values.byte_offset()..];
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return Err(expected(&format!(
            "the message is followed by {:?} with no space between",
            rest.chars().take(20).collect::<String>()
        )));
    }
    Ok(message)
}

/// Microseconds since the epoch of an RFC 3339 time in UTC (`2025-06-01T12:00:00.123Z`, an
/// offset such as `+02:00` applied); `None` for anything else.
pub fn rfc3339_us(s: &str) -> Option<u64> {
    let (date, rest) = s.split_once('T')?;
    let mut d = date.split('-');
    let (y, m, day): (i64, i64, i64) = (
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
    );
    let (clock, offset_s) = if let Some(c) = rest.strip_suffix('Z') {
        (c, 0)
    } else {
        let k = rest.rfind(['+', '-'])?;
        let (c, off) = rest.split_at(k);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let (oh, om) = off[1..].split_once(':')?;
        (
            c,
            sign * (oh.parse::<i64>().ok()? * 3600 + om.parse::<i64>().ok()? * 60),
        )
    };
    let (hms, frac) = clock.split_once('.').unwrap_or((clock, ""));
    let mut t = hms.split(':');
    let (h, mi, sec): (i64, i64, i64) = (
        t.next()?.parse().ok()?,
        t.next()?.parse().ok()?,
        t.next()?.parse().ok()?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let micros: i64 = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().take(6).collect();
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        digits.parse::<i64>().ok()? * 10_i64.pow(6 - digits.len() as u32)
    };
    // Days from the civil date (proleptic Gregorian).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_s;
    u64::try_from(secs * 1_000_000 + micros).ok()
}

/// What reading a transcript found wrong with a line.
#[derive(Clone, Debug, PartialEq)]
pub struct LineError {
    /// The line's number (from 1).
    pub line: u64,
    /// What was expected.
    pub expected: String,
}

/// Reads a transcript line by line, holding one line (at most `max_line` bytes) at a time.
pub struct Lines<R> {
    input: R,
    format: Format,
    max_line: usize,
    buf: Vec<u8>,
    /// The number of the last line read.
    pub line: u64,
    /// The byte offset of the last line read.
    pub offset: u64,
    next_offset: u64,
    /// Lines that are not messages in this format.
    pub skipped: u64,
    /// The last line, when it ended without a newline and was not a whole message: what was
    /// wrong with it.
    pub truncated: Option<LineError>,
}

impl<R: BufRead> Lines<R> {
    /// Reads `input` as a transcript in `format`.
    pub fn new(input: R, format: Format, max_line: usize) -> Self {
        Lines {
            input,
            format,
            max_line,
            buf: Vec::new(),
            line: 0,
            offset: 0,
            next_offset: 0,
            skipped: 0,
            truncated: None,
        }
    }

    /// The next message: `Ok(None)` at the end; `Err` names the line and what was expected (a
    /// bad last line without a newline is not an error but [`Lines::truncated`]).
    pub fn next_entry(&mut self) -> Result<Option<Entry>, LineError> {
        loop {
            self.buf.clear();
            let limit = self.max_line as u64 + 1;
            let n = <&mut R as std::io::Read>::take(&mut self.input, limit)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| LineError {
                    line: self.line + 1,
                    expected: format!("a readable file: {e}"),
                })?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            self.offset = self.next_offset;
            self.next_offset += n as u64;
            let ended = self.buf.last() == Some(&b'\n');
            if !ended && n as u64 == limit {
                return Err(LineError {
                    line: self.line,
                    expected: format!(
                        "a line of at most {} bytes (raise --max-line)",
                        self.max_line
                    ),
                });
            }
            if ended {
                self.buf.pop();
            }
            let parsed = std::str::from_utf8(&self.buf)
                .map_err(|e| format!("UTF-8 text: {e}"))
                .and_then(|text| parse_line(self.format, text));
            match parsed {
                Ok(Line::Message(e)) => return Ok(Some(e)),
                Ok(Line::Skipped) => self.skipped += 1,
                Err(expected) if !ended => {
                    self.truncated = Some(LineError {
                        line: self.line,
                        expected,
                    });
                    return Ok(None);
                }
                Err(expected) => {
                    return Err(LineError {
                        line: self.line,
                        expected,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_are_read_in_utc() {
        assert_eq!(rfc3339_us("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_us("2025-06-01T12:00:00.5Z"),
            Some(1_748_779_200_500_000)
        );
        assert_eq!(
            rfc3339_us("2025-06-01T14:00:00.5+02:00"),
            rfc3339_us("2025-06-01T12:00:00.5Z")
        );
        assert_eq!(rfc3339_us("2025-13-01T00:00:00Z"), None);
        assert_eq!(rfc3339_us("yesterday"), None);
    }

    #[test]
    fn a_jsonl_line_written_is_read_back() {
        let line = jsonl_line(true, 42, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        let Ok(Line::Message(e)) = parse_line(Format::Jsonl, &line) else {
            panic!("{line}");
        };
        assert_eq!(e.writer, Writer::Client);
        assert_eq!(e.time_us, Some(42));
        assert_eq!(
            e.said,
            Said::Message(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.into())
        );
        // A frame that is not JSON is kept as its text.
        let line = jsonl_line(false, 0, b"garbage");
        let Ok(Line::Message(e)) = parse_line(Format::Jsonl, &line) else {
            panic!("{line}");
        };
        assert_eq!(
            (e.writer, e.said),
            (Writer::Server, Said::Message("garbage".into()))
        );
        // The end of the server's output is read back as such.
        let line = jsonl_closed_line(false, 7);
        let Ok(Line::Message(e)) = parse_line(Format::Jsonl, &line) else {
            panic!("{line}");
        };
        assert_eq!(
            (e.writer, e.time_us, e.said),
            (Writer::Server, Some(7), Said::Closed)
        );
    }

    #[test]
    fn a_bad_line_says_what_was_expected_and_a_cut_last_line_is_truncated() {
        let good = jsonl_line(true, 1, br#"{"jsonrpc":"2.0","method":"x"}"#);
        let text = format!("{good}\n{{\"direction\":\"up\",\"time\":1,\"message\":{{}}}}\n");
        let mut r = Lines::new(text.as_bytes(), Format::Jsonl, 1 << 20);
        assert!(r.next_entry().unwrap().is_some());
        let e = r.next_entry().unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.expected.contains("field `direction`"), "{e:?}");
        let text = format!("{good}\n{}", &good[..10]);
        let mut r = Lines::new(text.as_bytes(), Format::Jsonl, 1 << 20);
        assert!(r.next_entry().unwrap().is_some());
        assert_eq!(r.next_entry(), Ok(None));
        assert_eq!(r.truncated.as_ref().map(|t| t.line), Some(2));
        let long = format!("{good}\n");
        let mut r = Lines::new(long.as_bytes(), Format::Jsonl, 10);
        assert!(r.next_entry().unwrap_err().expected.contains("--max-line"));
    }

    #[test]
    fn mcp_log_lines_that_are_not_messages_are_skipped() {
        let text = "2025-06-01T12:00:00.000Z [info] [demo] Initializing server...\n\
            2025-06-01T12:00:00.100Z [info] [demo] Message from client: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}\n";
        let mut r = Lines::new(text.as_bytes(), Format::McpLog, 1 << 20);
        let e = r.next_entry().unwrap().unwrap();
        assert_eq!(e.writer, Writer::Client);
        assert_eq!(e.time_us, rfc3339_us("2025-06-01T12:00:00.100Z"));
        assert_eq!(r.skipped, 1);
    }

    #[test]
    fn mcp_log_lines_may_end_in_the_loggers_metadata() {
        let line = "2025-06-01T12:00:00.100Z [info] [demo] Message from server: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}} { metadata: undefined }";
        let Ok(Line::Message(e)) = parse_line(Format::McpLog, line) else {
            panic!("{line}");
        };
        assert_eq!(
            e.said,
            Said::Message(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#.into())
        );
        // A message cut short, or run into other text, is still refused.
        let cut = "2025-06-01T12:00:00.100Z [info] [demo] Message from server: {\"jsonrpc\":\"2.0\",\"id\":0";
        assert!(parse_line(Format::McpLog, cut).is_err());
        let glued = "2025-06-01T12:00:00.100Z [info] [demo] Message from server: {\"id\":0}x";
        assert!(parse_line(Format::McpLog, glued).is_err());
    }
}
