//! What the peer does with each frame it reads: what a strict peer refuses before reading a
//! request, array params read by position, and each message handed to its endpoint or its
//! work.

use cancelcheck_model::message::Method;
use cancelcheck_model::{Input, Message};
use cancelcheck_wire::shapes::{self, Plumbing};
use cancelcheck_wire::{Body, WireId, WireMessage, mcp, schema, to_model};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

use super::{ME, Peer, TOOL_ERROR_MS, tools_page};

impl Peer {
    /// What a strict peer refuses of a request before it reads it: what the dialect's schema
    /// requires and it lacks (-32602; an unknown method -32601), an ACP prompt in a session it
    /// never opened (-32602), an MCP 2026-07-28 request of another version (-32022).
    fn refusal(&self, msg: &WireMessage) -> Option<Body> {
        if !self.args.strict() {
            return None;
        }
        if let Err(e) = schema::check_client_message(self.args.dialect, msg) {
            // A method the work runs under (`--work-method`) is known whatever the schema says.
            let work = msg.method() == Some(self.ctx.work_method.as_str());
            if !(work && matches!(e, schema::SchemaError::UnknownMethod(_))) {
                return Some(Self::error(e.code(), e.to_string(), None));
            }
        }
        let WireMessage::Request { method, params, .. } = msg else {
            return None;
        };
        let p = params.as_ref();
        if self.ctx.prompt_turn() && *method == self.ctx.work_method {
            let named = p.and_then(|p| p.get("sessionId")).and_then(Value::as_str);
            if !self.sessions.iter().any(|s| Some(s.as_str()) == named) {
                return Some(Self::error(
                    -32602,
                    format!("Invalid params: session not found: {named:?}"),
                    None,
                ));
            }
        }
        self.shapes.version_refusal(p, &self.version())
    }

    /// `--positional-params`: a cancel whose params are an array, rewritten as the cancel of
    /// the id it holds first.
    fn positional(&self, body: &[u8]) -> Option<Vec<u8>> {
        match WireMessage::parse(body).ok()? {
            WireMessage::Notification {
                method,
                params: Some(Value::Array(a)),
            } if self.args.positional_params => {
                let (cancel, params) = self.shapes.cancel(a.first()?.clone());
                let named = WireMessage::Notification {
                    method: cancel.into(),
                    params: Some(params),
                };
                (method == cancel).then(|| named.to_text().into_bytes())
            }
            _ => None,
        }
    }

    pub(super) fn on_frame(&mut self, body: &[u8]) {
        let rewritten = self.positional(body);
        let body = rewritten.as_deref().unwrap_or(body);
        let msg = match WireMessage::parse(body) {
            Ok(m) => m,
            Err(e) => {
                self.respond(
                    WireId::Null,
                    Self::error(-32700, format!("Parse error: {e}"), None),
                );
                return;
            }
        };
        if self.args.refuse_all {
            if let WireMessage::Request { id, .. } = &msg {
                self.respond(id.clone(), shapes::not_found());
            }
            return;
        }
        if let Some(body) = self.refusal(&msg) {
            if let WireMessage::Request { id, .. } = &msg {
                self.respond(id.clone(), body);
                self.apply_deferred();
            } else if let Body::Error { message, .. } = body {
                eprintln!("cancelcheck-testpeer: ignored: {message}");
            }
            return;
        }
        if let WireMessage::Response {
            id: WireId::Str(k),
            body,
        } = &msg
            && let Some(work) = self.creating.remove(k)
        {
            // The answer to the progress token's creation: the work runs, or fails with it.
            match (body, WireMessage::parse(&work)) {
                (Body::Error { .. }, Ok(WireMessage::Request { id, .. })) => {
                    self.respond(id, body.clone());
                }
                _ => self.on_work(&work),
            }
            return;
        }
        let token = match &msg {
            WireMessage::Request { id, method, .. }
                if self.args.progress_create && *method == self.ctx.work_method =>
            {
                Some(format!("create-{}", id.to_json_text()))
            }
            _ => None,
        };
        if let Some(k) = token
            && let Some((create, params)) = self.shapes.progress_create(&k)
        {
            let text = WireMessage::Request {
                id: WireId::Str(k.clone()),
                method: create.into(),
                params: Some(params),
            }
            .to_text();
            self.creating.insert(k, body.to_vec());
            self.write(&text);
            return;
        }
        self.on_work(body);
    }

    /// Acts on a message (parsed from `body`) the peer has decided to read.
    fn on_work(&mut self, body: &[u8]) {
        let Ok(msg) = WireMessage::parse(body) else {
            return;
        };
        if let WireMessage::Notification { method, params } = &msg
            && self.shapes.session_cancel_method() == Some(method.as_str())
        {
            self.session_cancel(params.as_ref());
            return;
        }
        // A response answers one of the agent's own requests.
        let model = to_model(&self.ctx, &msg, &mut self.ids, |_| Some(Method::ServerWork));
        match (&msg, model) {
            (
                WireMessage::Request { params, .. },
                Some(m @ Message::Request { id: mid, method }),
            ) => {
                if self.args.tool_error
                    && method.is_work()
                    && let WireMessage::Request { id, .. } = &msg
                    && let Some(result) = self.shapes.unknown_tool_result(params.as_ref())
                {
                    let due = Instant::now() + Duration::from_millis(TOOL_ERROR_MS);
                    self.tool_errors.insert(mid, (due, id.clone(), result));
                    return;
                }
                let p = params.as_ref();
                let ms = p
                    .and_then(|p| {
                        p.pointer("/arguments/ms")
                            .or_else(|| p.pointer("/arguments/0/ms"))
                            .or_else(|| p.pointer("/_meta/ms"))
                            .or_else(|| p.get("ms"))
                    })
                    .and_then(Value::as_u64)
                    .unwrap_or(self.args.work_ms);
                // Not ready yet: answered at once, as a server still loading answers.
                let ms = if self.ready_at.is_some() { 0 } else { ms };
                let ms = if !method.is_work() || std::mem::replace(&mut self.warm, true) {
                    ms
                } else {
                    ms + self.args.cold_start_ms
                };
                let progress = p.and_then(|p| p.pointer("/_meta/progressToken")).is_some();
                self.asked_work.insert(mid, (ms, progress));
                if self.ctx.prompt_turn() && method.is_work() {
                    self.open_prompts.insert(mid);
                    let named = p.and_then(|p| p.get("sessionId")).and_then(Value::as_str);
                    if let Some(s) = named {
                        self.session_of.insert(mid, s.to_string());
                    }
                }
                self.feed(Input::Receive(m));
            }
            (WireMessage::Request { id, method, params }, _) => {
                let body = match self.shapes.plumbing(method) {
                    Some(Plumbing::Ping) => Body::Result(json!({})),
                    // (A lenient peer answers `ping` in any dialect.)
                    None if method == mcp::PING && !self.args.strict() => Body::Result(json!({})),
                    Some(Plumbing::Discover) => {
                        let v = self.version();
                        self.shapes.discover_result(&v, ME).map_or_else(
                            || Self::error(-32601, "Method not found", None),
                            Body::Result,
                        )
                    }
                    Some(Plumbing::ListTools) => {
                        let cursor = params
                            .as_ref()
                            .and_then(|p| p.get("cursor"))
                            .and_then(Value::as_str);
                        tools_page(cursor).map_or_else(
                            || {
                                Self::error(
                                    -32602,
                                    format!("Invalid params: unknown cursor {cursor:?}"),
                                    None,
                                )
                            },
                            Body::Result,
                        )
                    }
                    Some(Plumbing::NewSession) if self.args.auth_required => {
                        Self::error(-32000, "Authentication required", None)
                    }
                    Some(Plumbing::NewSession) => {
                        let session = format!("session-{}", self.sessions.len() + 1);
                        self.sessions.push(session.clone());
                        self.shapes.new_session_result(&session).map_or_else(
                            || Self::error(-32601, "Method not found", None),
                            Body::Result,
                        )
                    }
                    None if self.args.silent_unknown_without_params && params.is_none() => {
                        self.apply_deferred();
                        return;
                    }
                    None => Self::error(-32601, "Method not found", None),
                };
                self.respond(id.clone(), body);
                self.apply_deferred();
            }
            (_, Some(m @ (Message::Cancel { .. } | Message::MalformedCancel))) => {
                if let Message::Cancel { id, .. } = m {
                    self.tool_errors.remove(&id);
                }
                self.take_cancel(m);
            }
            (_, Some(m @ Message::Response { .. })) => self.feed(Input::Receive(m)),
            _ => {}
        }
    }
}
