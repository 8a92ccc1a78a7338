//! The judge over Streamable HTTP: what the transport's notes tell (what the server
//! accepted, a stream closed, lost or resumed), and what a disconnect left unanswered.

use super::*;

impl Judge<'_> {
    /// The Streamable HTTP notes.
    pub(super) fn on_http_note(&mut self, kind: &str, detail: &str, rec: &Record) {
        let client = |input| Event::Input {
            party: Party::Client,
            input,
        };
        match kind {
            note::TRANSPORT if detail.split_whitespace().next() == Some(note::HTTP) => {
                self.http = true;
                self.work.keep_whole();
                self.checker.set_fifo(false);
            }
            note::ACCEPTED => {
                if let Some(k) = self
                    .sent
                    .position(|s| s.stream.is_some() && s.stream == rec.stream)
                    && let Some(s) = self.sent.get_mut(k)
                {
                    s.accepted = true;
                    self.deferred.push(k);
                }
            }
            note::HTTP_ERROR => {
                // An error status to the handshake's POST refuses the session as an error
                // answer does (a server of another protocol version answers so): nothing was
                // tested, the peer is not judged broken for it, and the report says it first.
                let on_handshake = self.handshake.is_some()
                    && rec.stream.is_some()
                    && self
                        .sent
                        .position(|s| s.request == self.handshake && s.stream == rec.stream)
                        .is_some();
                if on_handshake {
                    if self.handshake_refused.is_none() {
                        self.handshake_refused = Some(format!("the server answered HTTP {detail}"));
                    }
                    return;
                }
                self.error(SessionError {
                    kind: "http",
                    offset: None,
                    message: format!("{}: {detail}", rec.stream.as_deref().unwrap_or("")),
                });
            }
            note::STREAM_CLOSED => {
                let Some(id) = self.lane(rec) else { return };
                if !self.ctx.dialect.rules().stream_close_cancels {
                    self.emit(Event::Output {
                        party: Party::Client,
                        output: Output::CloseStream(id),
                    });
                    return;
                }
                // The close is the cancel: a message the peer reads, though nothing is sent.
                let k = self.sent.len();
                self.cancels_at.push(k);
                if self.unanswered_work > 0 {
                    self.in_flight = true;
                }
                self.cancel_sent = true;
                self.any_cancel = true;
                self.judged_cancel = true;
                self.cancelled.insert(id);
                self.closes.insert(id, k);
                self.sent.push(SentMsg {
                    models: vec![Message::Cancel { id, session: false }],
                    request: None,
                    read: false,
                    stream: rec.stream.clone(),
                    accepted: false,
                });
                self.emit(Event::Output {
                    party: Party::Client,
                    output: Output::CloseStream(id),
                });
                if !self.ctx.dialect.rules().requester_waits
                    && self.methods.contains_key(id)
                    && self.resolved.insert(id)
                {
                    self.emit(delivered(id, Outcome::Cancelled(CancelCause::User)));
                }
            }
            note::STREAM_LOST => {
                if let Some(id) = self.lane(rec) {
                    let at = self.sent.len();
                    self.lost.entry(id).or_insert(at);
                    self.emit(client(Input::StreamLost(id)));
                }
            }
            note::STREAM_RESUMED => {
                if let Some(id) = self.lane(rec) {
                    self.resumed.entry(id).or_default().push(rec.t_us);
                    self.emit(client(Input::StreamResumed(id)));
                }
            }
            note::NO_RESUME => self.vacuous_because.push(format!(
                "{detail}; a server that gives its events ids (`id:`) can be resumed with Last-Event-ID, and only then is a disconnect told from a cancel"
            )),
            _ => {}
        }
    }

    /// Streamable HTTP: a message of the peer's on the standalone GET stream about request
    /// `id` of the probe's. Whether to judge it where it arrived: after the probe closed the
    /// request's stream (its cancel), it proves the peer had read the close (a server writes a
    /// request's messages on the request's own stream while it is open: assumed, and said);
    /// after the request's answer came on its own stream, its order against that answer is
    /// not observable, so it is not judged.
    pub(super) fn on_get_stream(&mut self, id: RequestId) -> bool {
        if let Some(&k) = self.closes.get(&id) {
            if !self.sent.is_read(k) {
                // About the request, so written after the server read it (before the close).
                if let Some(r) = self.sent.first_request(id) {
                    self.read(r);
                }
                self.read(k);
                let a = "a message about a request on the standalone stream, after the probe closed the request's own stream, was written after the server read that close (Streamable HTTP: a server writes a request's messages on that request's stream while it is open)".to_string();
                if !self.assumptions.contains(&a) {
                    self.assumptions.push(a);
                }
            }
            return true;
        }
        if self.answered_set.contains(id) {
            self.cross_stream.insert(InvariantId::NoActivityAfterAnswer);
            return false;
        }
        true
    }

    /// Streamable HTTP: whether a request whose stream the probe dropped, and never cancelled,
    /// was answered: the wire then shows what the disconnect did to it.
    pub(super) fn survived_disconnect(&self) -> bool {
        self.lost.keys().any(|id| {
            !self.cancelled.contains(*id)
                && self.work.get(*id).is_some_and(|w| w.answered_us.is_some())
        })
    }

    /// Streamable HTTP, at the end: what was seen of a request whose answer came only on a
    /// later resume of its stream, the earlier resumed stream carrying none though the same
    /// work sent after the drop was answered: the answer was lost on resumption (the server's
    /// replay of its events), not the work stopped by the disconnect.
    pub(super) fn lost_on_resume(&mut self) {
        for (id, times) in &self.resumed {
            let Some(w) = self.work.get(*id) else {
                continue;
            };
            let (Some(answered), [_, second, ..]) = (w.answered_us, times.as_slice()) else {
                continue;
            };
            if answered >= *second {
                let wire = w
                    .wire
                    .as_ref()
                    .map(WireId::to_json_text)
                    .unwrap_or_default();
                self.assumptions.push(format!(
                    "request {wire}: its first resumed stream (Last-Event-ID) carried no answer, though the same work sent after the drop was answered; a second resume did: the work went on through the disconnect, and the server lost its answer on resumption (its replay of the stream's events)"
                ));
            }
        }
    }

    /// Streamable HTTP, at the end: requests whose stream the probe dropped and resumed, never
    /// answered, while the same work sent after the drop was: the peer took the disconnect for
    /// a cancel (assuming it answers the same work in the order it read it).
    pub(super) fn dropped_on_disconnect(&mut self) {
        let lost: Vec<(RequestId, usize)> = self.lost.iter().map(|(&i, &k)| (i, k)).collect();
        for (id, at) in lost {
            let Some(w) = self.work.get(id) else {
                continue;
            };
            if w.answered_us.is_some() || self.cancelled.contains(id) || self.refused.contains(&id)
            {
                continue;
            }
            let control = self.work.whole().find(|&(c, cw)| {
                cw.at >= at
                    && cw.taken_before.contains(&id)
                    && cw.answered_us.is_some()
                    && cw.tool_error.is_none()
                    && !self.refused.contains(c)
            });
            let Some((_, cw)) = control else { continue };
            let name =
                |w: &Option<WireId>| w.as_ref().map(WireId::to_json_text).unwrap_or_default();
            self.assumptions.push(format!(
                "request {} was never answered after its stream dropped and was resumed, though {}, the same work sent after the drop, was: judged dropped because of the disconnect, assuming the peer answers the same work in the order it read it",
                name(&w.wire),
                name(&cw.wire)
            ));
            self.emit(Event::Input {
                party: Party::Server,
                input: Input::StreamClosed(id),
            });
            self.server(Output::Dropped(id));
        }
    }
}
