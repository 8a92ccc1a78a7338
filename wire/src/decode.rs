//! JSON-RPC 2.0 text to messages: first to a [`WireMessage`] (the envelope, exactly), then to
//! the model's [`Message`] per dialect ([`to_model`]).
//!
//! Nothing here panics on input: every malformed message is a [`DecodeError`] naming the byte
//! offset (from the start of the text given) and what was expected there.

use crate::id::{IdMap, WireId};
use cancelcheck_model::message::Method;
use cancelcheck_model::{Dialect, Message, Reply, RequestId};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::fmt;

/// The body of a response.
#[derive(Clone, PartialEq, Debug)]
pub enum Body {
    /// `"result": ...`.
    Result(Value),
    /// `"error": {"code", "message", "data"?}`.
    Error {
        /// The error code.
        code: i64,
        /// The message.
        message: String,
        /// `data`, if present.
        data: Option<Value>,
    },
}

/// One JSON-RPC 2.0 message as it crossed the wire (ids exact, see [`WireId`]).
#[derive(Clone, PartialEq, Debug)]
pub enum WireMessage {
    /// A request: it has an id and expects one response.
    Request {
        /// Its id.
        id: WireId,
        /// Its method.
        method: String,
        /// Its params (an object or an array), if any.
        params: Option<Value>,
    },
    /// A notification: no id, no response.
    Notification {
        /// Its method.
        method: String,
        /// Its params, if any.
        params: Option<Value>,
    },
    /// A response.
    Response {
        /// The id of the request it answers (`null` for an error about an unreadable request).
        id: WireId,
        /// Result or error.
        body: Body,
    },
}

/// Why a text is not a JSON-RPC 2.0 message.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DecodeError {
    /// Byte offset in the text where the problem is.
    pub offset: usize,
    /// What was expected there.
    pub expected: String,
    /// What was found instead (cut to 80 characters).
    pub found: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {}: expected {}, found {}",
            self.offset, self.expected, self.found
        )
    }
}

impl std::error::Error for DecodeError {}

/// `s`, or its first 77 characters and `...` when it is longer than 80.
pub fn cut(s: &str) -> String {
    if s.chars().count() > 80 {
        let c: String = s.chars().take(77).collect();
        format!("{c}...")
    } else {
        s.to_string()
    }
}

fn err(offset: usize, expected: impl Into<String>, found: &str) -> DecodeError {
    DecodeError {
        offset,
        expected: expected.into(),
        found: cut(found),
    }
}

/// The byte offset of line `line`, column `column` (both from 1, as serde_json counts) in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

impl WireMessage {
    /// Parses one message from `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<WireMessage, DecodeError> {
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.valid_up_to();
                let bad: String = bytes[at..bytes.len().min(at + 4)]
                    .iter()
                    .map(|b| format!("\\x{b:02x}"))
                    .collect();
                return Err(err(at, "UTF-8 text", &bad));
            }
        };
        let start = text.len() - text.trim_start().len();
        match text.as_bytes().get(start) {
            None => return Err(err(start, "a JSON object", "the end of the text")),
            Some(b'[') => {
                return Err(err(
                    start,
                    "a single JSON-RPC object (batches are not supported)",
                    "an array",
                ));
            }
            Some(b'{') => {}
            Some(_) => return Err(err(start, "a JSON object", &text[start..])),
        }
        let fields: BTreeMap<String, &RawValue> = serde_json::from_str(text).map_err(|e| {
            if e.is_eof() {
                return err(
                    text.len(),
                    format!("the rest of the JSON value ({e})"),
                    "the end of the text",
                );
            }
            let at = offset_of(text, e.line(), e.column());
            err(at, format!("valid JSON ({e})"), &text[at.min(text.len())..])
        })?;
        let at =
            |raw: &RawValue| (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        match fields.get("jsonrpc") {
            Some(v) if v.get() == "\"2.0\"" => {}
            Some(v) => return Err(err(at(v), "\"jsonrpc\": \"2.0\"", v.get())),
            None => return Err(err(start, "a \"jsonrpc\": \"2.0\" member", "none")),
        }
        let id = match fields.get("id") {
            None => None,
            Some(raw) => Some(
                WireId::from_json_text(raw.get())
                    .ok_or_else(|| err(at(raw), "an id: a string, a number or null", raw.get()))?,
            ),
        };
        let value = |raw: &RawValue| -> Result<Value, DecodeError> {
            serde_json::from_str(raw.get())
                .map_err(|e| err(at(raw), "a JSON value", &e.to_string()))
        };
        if let Some(m) = fields.get("method") {
            let method: String = serde_json::from_str(m.get())
                .map_err(|_| err(at(m), "a method name (a string)", m.get()))?;
            let params = match fields.get("params") {
                None => None,
                Some(p) => {
                    let v = value(p)?;
                    if !v.is_object() && !v.is_array() {
                        return Err(err(at(p), "params: an object or an array", p.get()));
                    }
                    Some(v)
                }
            };
            for k in ["result", "error"] {
                if let Some(r) = fields.get(k) {
                    return Err(err(at(r), "no result or error in a request", k));
                }
            }
            return Ok(match id {
                Some(id) => WireMessage::Request { id, method, params },
                None => WireMessage::Notification { method, params },
            });
        }
        let Some(id) = id else {
            return Err(err(start, "a \"method\" or an \"id\" member", "neither"));
        };
        let body = match (fields.get("result"), fields.get("error")) {
            (Some(r), None) => Body::Result(value(r)?),
            (None, Some(e)) => {
                let v = value(e)?;
                let code = v.get("code").and_then(Value::as_i64);
                let message = v.get("message").and_then(Value::as_str);
                match (code, message) {
                    (Some(code), Some(message)) => Body::Error {
                        code,
                        message: message.to_string(),
                        data: v.get("data").cloned(),
                    },
                    _ => {
                        return Err(err(
                            at(e),
                            "an error object with an integer \"code\" and a string \"message\"",
                            e.get(),
                        ));
                    }
                }
            }
            (Some(_), Some(e)) => {
                return Err(err(
                    at(e),
                    "either \"result\" or \"error\", not both",
                    "both",
                ));
            }
            (None, None) => {
                return Err(err(start, "a \"result\" or an \"error\" member", "neither"));
            }
        };
        Ok(WireMessage::Response { id, body })
    }

    /// The message as compact JSON text (one line: no raw newline), ids written exactly.
    pub fn to_text(&self) -> String {
        let s = |v: &str| serde_json::to_string(v).unwrap_or_else(|_| "\"\"".into());
        let j = |v: &Value| v.to_string();
        match self {
            WireMessage::Request { id, method, params } => {
                let mut t = format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":{}",
                    id.to_json_text(),
                    s(method)
                );
                if let Some(p) = params {
                    t.push_str(&format!(",\"params\":{}", j(p)));
                }
                t.push('}');
                t
            }
            WireMessage::Notification { method, params } => {
                let mut t = format!("{{\"jsonrpc\":\"2.0\",\"method\":{}", s(method));
                if let Some(p) = params {
                    t.push_str(&format!(",\"params\":{}", j(p)));
                }
                t.push('}');
                t
            }
            WireMessage::Response { id, body } => {
                let body = match body {
                    Body::Result(v) => format!("\"result\":{}", j(v)),
                    Body::Error {
                        code,
                        message,
                        data,
                    } => {
                        let mut e = format!("{{\"code\":{code},\"message\":{}", s(message));
                        if let Some(d) = data {
                            e.push_str(&format!(",\"data\":{}", j(d)));
                        }
                        e.push('}');
                        format!("\"error\":{e}")
                    }
                };
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{},{body}}}",
                    id.to_json_text()
                )
            }
        }
    }

    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            WireMessage::Request { method, .. } | WireMessage::Notification { method, .. } => {
                Some(method)
            }
            WireMessage::Response { .. } => None,
        }
    }

    /// The id, for requests and responses.
    pub fn id(&self) -> Option<&WireId> {
        match self {
            WireMessage::Request { id, .. } | WireMessage::Response { id, .. } => Some(id),
            WireMessage::Notification { .. } => None,
        }
    }
}

/// What a decoder needs to know to read a message as the model's.
#[derive(Clone, Debug)]
pub struct Context {
    /// The dialect.
    pub dialect: Dialect,
    /// The method of the ordinary (cancellable) request: the dialect's `work_method` by default,
    /// or the method a probe was told to send.
    pub work_method: String,
}

impl Context {
    /// The dialect's defaults.
    pub fn new(dialect: Dialect) -> Self {
        Context {
            dialect,
            work_method: dialect.rules().work_method.to_string(),
        }
    }

    /// Whether the ordinary request is an ACP prompt turn (`session/prompt`, in either ACP
    /// dialect): a turn of a session, cancelled by the session's own cancel where the dialect
    /// has one, answered cancelled with `{"stopReason": "cancelled"}`. Any other request is
    /// cancelled with the dialect's generic cancel and judged by the generic rules.
    pub fn prompt_turn(&self) -> bool {
        crate::shapes::of(self.dialect).prompt_method() == Some(self.work_method.as_str())
    }
}

/// The request whose session `session` names, as [`crate::encode::session_id`] writes it
/// (`sess-7` names request 7, `sess-"a"` request `"a"`); `None` for any other text.
pub fn session_request(session: &str) -> Option<WireId> {
    WireId::from_json_text(session.strip_prefix("sess-")?)
}

/// A value that names a request in a cancel or a progress notification's `field`: `None` unless
/// it is an id this dialect admits there (MCP: a string or an integer, never null), or, in a
/// `sessionId`, a session named after a request.
fn named_id(ctx: &Context, field: &str, v: Option<&Value>, ids: &mut IdMap) -> Option<RequestId> {
    let v = v?;
    if field == "sessionId" {
        return Some(ids.model(&session_request(v.as_str()?)?));
    }
    let text = v.to_string();
    let w = WireId::from_json_text(&text)?;
    let null_ok = crate::shapes::of(ctx.dialect).null_id_names_a_request();
    if w == WireId::Null && !null_ok {
        return None;
    }
    Some(ids.model(&w))
}

/// Whether an `initialize` result declares that its sender handles the generic cancel (the
/// ACP RFD's `cancellation.request`: an agent writes it in `agentCapabilities`, the
/// simulator's own rendering in `capabilities`); absent is `false`.
pub fn declares_cancel_support(result: &Value) -> bool {
    result
        .pointer("/agentCapabilities/cancellation/request")
        .or_else(|| result.pointer("/capabilities/cancellation/request"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The wire message as the model's `Message`, or `None` if the model has no such message (a
/// `ping`, a server's own request for something else, an unrelated notification).
///
/// `answers` tells what request a response answers (by the model id of the request): an answer
/// to `initialize` is read as [`Reply::Initialized`]. Ids go through `ids` (one to one).
/// A cancel whose params lack the id field, or hold a value of the wrong type, is
/// [`Message::MalformedCancel`]. Results are [`Reply::Full`] unless they are
/// `{"status": "partial"}` (the form the encoder writes); error -32800, and in ACP a result
/// `{"stopReason": "cancelled"}` (how a prompt turn ends cancelled), is [`Reply::Cancelled`].
pub fn to_model(
    ctx: &Context,
    msg: &WireMessage,
    ids: &mut IdMap,
    answers: impl FnOnce(RequestId) -> Option<Method>,
) -> Option<Message> {
    let r = ctx.dialect.rules();
    match msg {
        WireMessage::Request { id, method, params } => {
            let m = if Some(method.as_str()) == r.initialize_method {
                // What the client declares (ACP RFD); the other dialects negotiate nothing.
                let declared = params
                    .as_ref()
                    .and_then(|p| p.pointer("/clientCapabilities/cancellation/request"))
                    .and_then(Value::as_bool);
                Method::Initialize {
                    cancel_support: declared.unwrap_or(!r.negotiated),
                }
            } else if *method == ctx.work_method {
                Method::Work {
                    task: r.task_cancel_method.is_some()
                        && crate::shapes::of(ctx.dialect).names_task(params.as_ref()),
                }
            } else if let Some(named) =
                crate::shapes::of(ctx.dialect).read_task_cancel(method, params.as_ref())
            {
                // A task's cancel (MCP's `tasks/cancel`) is a request naming the task.
                return Some(match named {
                    Some(w) => Message::Cancel {
                        id: ids.model(&w),
                        session: true,
                    },
                    None => Message::MalformedCancel,
                });
            } else if Some(method.as_str()) == r.server_work_method {
                Method::ServerWork
            } else {
                return None;
            };
            Some(Message::Request {
                id: ids.model(id),
                method: m,
            })
        }
        WireMessage::Notification { method, params } => {
            let session = Some(method.as_str()) == r.session_cancel_method;
            if method == r.cancel_method || session {
                let field = if session {
                    "sessionId"
                } else {
                    r.cancel_id_field
                };
                let named = params
                    .as_ref()
                    .and_then(Value::as_object)
                    .and_then(|p| named_id(ctx, field, p.get(field), ids));
                return Some(match named {
                    Some(id) => Message::Cancel { id, session },
                    None => Message::MalformedCancel,
                });
            }
            if Some(method.as_str()) == r.activity_method {
                let field = r.activity_id_field;
                let id = params
                    .as_ref()
                    .and_then(Value::as_object)
                    .and_then(|p| named_id(ctx, field, p.get(field), ids))?;
                return Some(Message::Activity { id });
            }
            None
        }
        WireMessage::Response { id, body } => {
            if let Some((task, ack)) =
                crate::shapes::of(ctx.dialect).read_task_cancel_answer(id, body)
            {
                return Some(Message::CancelAck {
                    id: ids.model(&task),
                    ack,
                });
            }
            let mid = ids.model(id);
            let answered = answers(mid);
            let reply = match body {
                Body::Result(v) => match answered {
                    Some(Method::Initialize { .. }) => Reply::Initialized {
                        cancel_support: declares_cancel_support(v),
                    },
                    _ if v.get("status").and_then(Value::as_str) == Some("partial") => {
                        Reply::Partial
                    }
                    // A result that says the request was cancelled, where the dialect has one.
                    _ if crate::shapes::of(ctx.dialect).result_says_cancelled(v) => {
                        Reply::Cancelled
                    }
                    _ => Reply::Full,
                },
                // Where a cancelled request's answer is a result (an ACP prompt turn, a
                // permission request), error -32800 answering one is an error like any other.
                Body::Error { code: -32800, .. }
                    if !(r.cancelled_result
                        && match answered {
                            Some(Method::Work { .. }) => ctx.prompt_turn(),
                            Some(Method::ServerWork) => true,
                            _ => false,
                        }) =>
                {
                    Reply::Cancelled
                }
                Body::Error { code, .. } => Reply::Error(*code),
            };
            Some(Message::Response { id: mid, reply })
        }
    }
}

/// Whether `request` is part of what the judge reads: the work request, a request the model
/// knows (`initialize`, the peer's own), or a message named as one of the dialect's cancels.
/// A request of any other method is evidence of order only (a barrier).
pub fn judged_request(ctx: &Context, request: &WireMessage) -> bool {
    let method = match request {
        WireMessage::Request { method, .. } | WireMessage::Notification { method, .. } => method,
        WireMessage::Response { .. } => return false,
    };
    *method == ctx.work_method
        || names_a_cancel(ctx, method)
        || to_model(ctx, request, &mut IdMap::new(), |_| None).is_some()
}

/// Whether `method` is one of the context's dialect's cancels (generic, of a session, of a
/// task), whatever the message's form.
fn names_a_cancel(ctx: &Context, method: &str) -> bool {
    let r = ctx.dialect.rules();
    method == r.cancel_method
        || Some(method) == r.session_cancel_method
        || Some(method) == r.task_cancel_method
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_offset_and_what_was_expected() {
        let e = WireMessage::parse(b"{\"jsonrpc\":\"2.0\",\"id\":1,").unwrap_err();
        assert!(e.expected.contains("JSON"), "{e}");
        assert_eq!(e.offset, 24, "{e}");
        let e = WireMessage::parse(b"  hello").unwrap_err();
        assert_eq!(e.offset, 2);
        let e = WireMessage::parse(b"{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":1}").unwrap_err();
        assert_eq!(e.offset, 11, "{e}");
        let e = WireMessage::parse(b"{\"jsonrpc\":\"2.0\",\"id\":true,\"result\":1}").unwrap_err();
        assert_eq!(e.offset, 22, "{e}");
        assert!(e.expected.contains("id"));
        let e = WireMessage::parse(b"[1]").unwrap_err();
        assert!(e.expected.contains("batches"));
        let e = WireMessage::parse(b"{\"jsonrpc\":\"2.0\",\"id\":1}").unwrap_err();
        assert!(e.expected.contains("result"));
        let e = WireMessage::parse(b"\xff\xfe").unwrap_err();
        assert_eq!(e.offset, 0);
        let e =
            WireMessage::parse(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":3}").unwrap_err();
        assert!(e.expected.contains("params"));
    }

    #[test]
    fn malformed_cancels_are_recognised() {
        let ctx = Context::new(Dialect::Mcp20251125);
        let mut ids = IdMap::new();
        for text in [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#,
        ] {
            let m = WireMessage::parse(text.as_bytes()).unwrap();
            assert_eq!(
                to_model(&ctx, &m, &mut ids, |_| None),
                Some(Message::MalformedCancel),
                "{text}"
            );
        }
    }
}
