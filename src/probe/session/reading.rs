//! Reading the peer: its bytes split into frames, each recorded and fed to the probe's
//! endpoint, until a condition holds, the time runs out or the peer goes.

use super::*;

impl Session<'_> {
    pub(super) fn pump_until(
        &mut self,
        what: &str,
        cond: impl Fn(&Session<'_>) -> bool,
    ) -> Step<()> {
        let deadline = self.deadline;
        if self.pump(deadline, cond)? {
            Ok(())
        } else {
            self.timed_out = Some(what.to_string());
            Err(Stop::Timeout)
        }
    }

    /// Reads until `cond` holds (true) or `until` passes (false).
    pub(super) fn pump(
        &mut self,
        until: Instant,
        cond: impl Fn(&Session<'_>) -> bool,
    ) -> Step<bool> {
        let until = until.min(self.deadline);
        loop {
            if cond(self) {
                return Ok(true);
            }
            if self.gone || self.flooded {
                return Err(Stop::Gone);
            }
            if let Some(stop) = self.http_stop() {
                return Err(stop);
            }
            if Instant::now() >= until {
                return Ok(false);
            }
            let t0 = Instant::now();
            if let Some(side) = &self.http {
                // A server the probe started is watched too: one that dies may leave nothing
                // to read.
                let got = side.client.recv(until.min(t0 + Duration::from_millis(50)));
                self.waited += t0.elapsed();
                match got {
                    Some(a) => self.on_arrival(a),
                    None => self.watch_server(),
                }
                continue;
            }
            // (Woken now and then to see whether the peer exited with its output held open.)
            let wake = until.min(t0 + Duration::from_millis(100));
            let chunk = self.peer.as_ref().and_then(|p| p.recv(wake));
            self.waited += t0.elapsed();
            match chunk {
                None => self.watch_peer(),
                Some(Chunk::Bytes(b)) => self.on_bytes(&b),
                Some(Chunk::Closed) => {
                    self.on_closed();
                    return Err(Stop::Gone);
                }
            }
        }
    }

    /// A peer that exited while its output stays open (held by a process it started outside
    /// its group, such as a daemon) is gone all the same once that lasts a second.
    fn watch_peer(&mut self) {
        let Some(peer) = self.peer.as_mut() else {
            return;
        };
        if self.peer_exited.is_none() && peer.exited() {
            self.peer_exited = Some(Instant::now());
        }
        if self
            .peer_exited
            .is_some_and(|at| at.elapsed() >= Duration::from_secs(1))
        {
            self.on_closed();
        }
    }

    pub(super) fn on_closed(&mut self) {
        if self.gone {
            return;
        }
        self.gone = true;
        if let Some(e) = self.reader.finish() {
            self.note(note::FRAMING, &e.to_string(), e.offset);
        }
        let Some(peer) = self.peer.as_mut() else {
            return;
        };
        if !peer.stdin_closed() {
            // Give it a moment to be reaped, to report how it ended.
            let t0 = Instant::now();
            while !peer.exited() && t0.elapsed() < Duration::from_millis(200) {
                std::thread::sleep(Duration::from_micros(200));
            }
            self.waited += t0.elapsed();
            let how = match peer.status {
                Some(s) => format!("the peer exited ({s}) before its input was closed"),
                None => "the peer closed its stdout before its input was closed".to_string(),
            };
            self.note(note::PEER_GONE, &how, 0);
        }
    }

    pub(super) fn on_bytes(&mut self, bytes: &[u8]) {
        if self.flooded {
            return;
        }
        self.reader.push(bytes);
        while let Some(f) = self.reader.next_frame() {
            match f {
                Ok(f) => self.on_frame(f.offset, &f.body),
                Err(e) if self.keep(e.offset, 0) => {
                    self.note(note::FRAMING, &e.to_string(), e.offset)
                }
                Err(_) => return,
            }
        }
    }

    /// Counts `len` bytes of the peer's, at `offset`, and a record, against `--max-output`:
    /// false once the session keeps no more (then the peer was noted flooding, and is
    /// stopped and killed).
    pub(super) fn keep(&mut self, offset: u64, len: usize) -> bool {
        if self.flooded {
            return false;
        }
        self.kept += (len + std::mem::size_of::<Record>() + 64) as u64;
        if self.kept <= self.setup.max_output {
            return true;
        }
        self.flooded = true;
        let max = self.setup.max_output;
        self.note(
            note::FLOOD,
            &format!("the peer sent more than this session keeps ({max} bytes, --max-output; reached at byte {offset} of its output): it was stopped and killed, and what it sent before is judged; raise --max-output if its output is legitimately that large"),
            offset,
        );
        false
    }

    pub(super) fn on_frame(&mut self, offset: u64, body: &[u8]) {
        self.on_frame_on(None, offset, body);
    }

    /// A message of the peer's, received on the stream labelled `stream` (Streamable HTTP).
    pub(super) fn on_frame_on(&mut self, stream: Option<&str>, offset: u64, body: &[u8]) {
        if !self.keep(offset, body.len()) {
            return;
        }
        let t_us = self.t_us();
        self.records.push(Record {
            t_us,
            dir: Dir::Received,
            offset,
            text: String::from_utf8_lossy(body).into_owned(),
            stream: stream.map(str::to_string),
        });
        let Ok(msg) = WireMessage::parse(body) else {
            return;
        };
        if let (
            WireMessage::Notification { method, params },
            Some(crate::probe::recipe::Ready::Notification {
                method: want,
                params: want_params,
                ..
            }),
        ) = (
            &msg,
            self.setup.recipe.as_ref().and_then(|r| r.ready.as_ref()),
        ) && method == want
            && want_params.as_ref().is_none_or(|w| {
                crate::probe::recipe::contains(params.as_ref().unwrap_or(&Value::Null), w)
            })
        {
            self.ready_seen = true;
        }
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
        let shapes = self.shapes();
        if let WireMessage::Notification { method, params } = &msg
            && shapes.session_update_method() == Some(method.as_str())
        {
            // An update names the session, not the request (its id is opaque): it shows the
            // work of the prompt open in that session.
            let named = params.as_ref().and_then(|p| p.get("sessionId"));
            let open: Vec<RequestId> = self
                .prompt_session
                .iter()
                .filter(|&(&id, s)| named == Some(&Value::String(s.clone())) && !self.resolved(id))
                .map(|(&id, _)| id)
                .collect();
            self.progress.extend(open);
            return;
        }
        if let WireMessage::Request { id, method, params } = &msg {
            // (A request of a prompt turn the probe cancelled is answered as cancelled.)
            let cancelled = params
                .as_ref()
                .and_then(|p| p.get("sessionId"))
                .and_then(Value::as_str)
                .is_some_and(|s| self.cancelled_sessions.contains(s));
            if shapes.permission_method() == Some(method.as_str()) {
                self.permissions_asked += 1;
                if self.hold_permissions && !cancelled {
                    self.held.push(id.clone());
                    return;
                }
            }
            // The peer's other requests: the probe offers nothing, as JSON-RPC allows.
            let text = self
                .outgoing()
                .answer(id.clone(), method, params.as_ref(), cancelled);
            self.send_text(text);
            return;
        }
        let methods = |id: RequestId| {
            self.waiters
                .contains_key(&id)
                .then_some(Method::Work { task: false })
        };
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
}
