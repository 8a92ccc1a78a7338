//! The session's opening: the dialect's handshake, the recipe's set-up steps, and ACP's
//! `session/new`.

use super::*;

impl Session<'_> {
    /// Opens the session as the dialect requires: MCP 2025-11-25 `initialize` then
    /// `notifications/initialized`; LSP `initialize` then `initialized`; ACP `initialize` then
    /// `session/new`; MCP 2026-07-28, which has no handshake, `server/discover` first (which
    /// versions the server speaks).
    pub fn handshake(&mut self) -> Step<()> {
        if self.http.is_some() {
            self.http_version_first();
        }
        self.handshake_steps()?;
        if self.http.is_some() {
            self.http_opened();
        }
        Ok(())
    }

    fn handshake_steps(&mut self) -> Step<()> {
        if let Some(text) = self.outgoing().discover() {
            self.send_text(text);
            let id = WireId::Str(DISCOVER_ID.into());
            self.pump_until("the answer to server/discover", |s| {
                s.other_answers.contains_key(&id)
            })?;
        }
        let init = self.feed(Input::Command(Command::Initialize));
        self.init = init;
        if let Some(id) = init {
            self.wait_resolved(id)?;
            if let Some(Body::Error { code, message, .. }) = self.answer_of(&self.ids.wire(id)) {
                // Refused: no session opened, so nothing more is sent (the judge finds no work
                // request and says why: the scenario is vacuous).
                let method = self.shapes().handshake_method();
                self.note(
                    note::HANDSHAKE_REFUSED,
                    &format!("the peer answered {method} with error {code} {message:?}: no session opened, so the probe sends nothing more"),
                    0,
                );
                return Err(Stop::Refused);
            }
            if self.shapes().opens_sessions() {
                self.new_session()?;
            }
            if let Some(text) = self.outgoing().initialized() {
                self.send_text(text);
            }
        }
        Ok(())
    }

    /// The peer's last answer to request `id`, from the record.
    fn answer_of(&self, id: &WireId) -> Option<Body> {
        self.records.iter().rev().find_map(|r| {
            if r.dir != Dir::Received {
                return None;
            }
            match WireMessage::parse(r.text.as_bytes()) {
                Ok(WireMessage::Response { id: got, body }) if got == *id => Some(body),
                _ => None,
            }
        })
    }

    /// Runs the recipe's set-up steps, then its readiness wait. A step refused (an error
    /// answer, no answer in time, the peer gone) stops the scenario with a
    /// [`note::SETUP_FAILED`] note naming the step (its index and method) and what the peer
    /// answered; a readiness notification that never comes, likewise. A fixed delay is noted
    /// as the assumption it is ([`note::ASSUMED`]).
    pub fn recipe_setup(&mut self) -> Step<()> {
        let Some(recipe) = self.setup.recipe.as_ref() else {
            return Ok(());
        };
        for (i, step) in recipe.setup.iter().enumerate() {
            let what = format!("set-up step {i} ({})", step.method());
            self.send_text(step.message(i).to_text());
            match step {
                crate::probe::recipe::Step::Notify { .. } => {}
                crate::probe::recipe::Step::Request { timeout, .. } => {
                    let id = crate::probe::recipe::Step::request_id(i);
                    let end = Instant::now() + *timeout;
                    let got = self.pump(end, |s| s.other_answers.contains_key(&id));
                    let why = match (got, self.other_answers.get(&id)) {
                        (Ok(true), Some(Body::Result(_))) => continue,
                        (
                            Ok(true),
                            Some(Body::Error {
                                code,
                                message,
                                data,
                            }),
                        ) => {
                            let data = data.as_ref().map(|d| format!(", data {d}"));
                            format!(
                                "the peer answered error {code} {message:?}{}",
                                data.unwrap_or_default()
                            )
                        }
                        (Err(Stop::Gone), _) => "the peer exited before answering".into(),
                        _ => format!(
                            "no answer within {} ms (the step's timeout_ms, bounded by --timeout)",
                            timeout.as_millis().min(self.setup.timeout.as_millis())
                        ),
                    };
                    self.note(note::SETUP_FAILED, &format!("{what}: {why}"), 0);
                    return Err(Stop::Refused);
                }
            }
        }
        match &recipe.ready {
            None => {}
            Some(crate::probe::recipe::Ready::Delay(d)) => {
                if let Some(a) = recipe.assumption() {
                    self.note(note::ASSUMED, &a, 0);
                }
                let end = Instant::now() + *d;
                if let Err(stop) = self.pump(end, |_| false) {
                    self.note(
                        note::SETUP_FAILED,
                        "ready.delay_ms: the peer exited while the probe waited for it to be ready",
                        0,
                    );
                    return Err(stop);
                }
            }
            Some(crate::probe::recipe::Ready::Notification {
                method, timeout, ..
            }) => {
                let end = Instant::now() + *timeout;
                let from = self.records.len();
                let got = self.pump(end, |s| s.ready_seen);
                if !matches!(got, Ok(true)) {
                    let mut why = if got.is_err() {
                        "the peer exited before sending it".to_string()
                    } else {
                        format!(
                            "not received within {} ms (ready.timeout_ms, bounded by --timeout)",
                            timeout.as_millis().min(self.setup.timeout.as_millis())
                        )
                    };
                    // What the peer sent meanwhile that could not be read may have been it.
                    if let Some(r) = self.records[from..]
                        .iter()
                        .find(|r| r.dir == Dir::Note && r.text.starts_with(note::FRAMING))
                    {
                        why.push_str(&format!(
                            "; meanwhile the peer sent what could not be read as a message ({}), which may have been it: if it is larger than --max-frame ({} bytes), raise --max-frame",
                            r.text.trim_start_matches(note::FRAMING).trim_start_matches(": "),
                            self.setup.max_frame
                        ));
                    }
                    self.note(
                        note::SETUP_FAILED,
                        &format!("ready: the notification {method} {why}"),
                        0,
                    );
                    return Err(Stop::Refused);
                }
            }
        }
        Ok(())
    }

    /// Sends a request outside the model (`method` with `params`) and waits for its answer.
    pub fn call(&mut self, method: &str, params: Option<Value>) -> Step<Body> {
        self.calls += 1;
        let id = WireId::Str(format!("cancelcheck-call-{}", self.calls));
        self.send_text(request(id.clone(), method, params));
        let what = format!("the answer to {method}");
        self.pump_until(&what, |s| s.other_answers.contains_key(&id))?;
        self.other_answers.remove(&id).ok_or(Stop::Gone)
    }

    /// ACP: opens a session (`session/new`) and keeps the id the agent gave it.
    pub(super) fn new_session(&mut self) -> Step<String> {
        let id = WireId::Str(format!("{NEW_SESSION_ID}{}", self.sessions.len() + 1));
        let Some(text) = self.outgoing().new_session(id.clone()) else {
            return Err(Stop::Refused);
        };
        self.send_text(text);
        self.pump_until("the answer to session/new", |s| {
            s.other_answers.contains_key(&id)
        })?;
        let session = match self.other_answers.get(&id) {
            Some(Body::Result(v)) => self.shapes().opened_session(v),
            Some(Body::Error { code, message, .. }) => {
                // Refused (an agent that wants `authenticate` first, say): no session opens,
                // so nothing more is sent; the judge finds no work request and says why.
                let why = format!(
                    "the agent answered session/new with error {code} {message:?}: no session opened, so the probe sends nothing more"
                );
                self.note(note::HANDSHAKE_REFUSED, &why, 0);
                return Err(Stop::Refused);
            }
            None => None,
        };
        let Some(session) = session.map(str::to_string) else {
            let t = self.t_us();
            self.records.push(Record {
                t_us: t,
                dir: Dir::Note,
                offset: 0,
                stream: None,
                text: format!(
                    "{}: the agent opened no session (its answer to session/new names no sessionId): no prompt can be sent",
                    note::REFUSED
                ),
            });
            return Err(Stop::Refused);
        };
        self.sessions.push(session.clone());
        Ok(session)
    }
}
