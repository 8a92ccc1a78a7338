//! What the peer sent: its messages read into the model, and whether an answer crossed a
//! cancel or was caused by it.

use super::*;
use cancelcheck_model::dialect::Honouring;

impl Judge<'_> {
    /// What a message of the peer's is in the model, and the prompt it serves (a request of
    /// the agent's, linked by its session).
    pub(super) fn peer_model(&mut self, msg: &WireMessage) -> (Option<Message>, Option<RequestId>) {
        let dialect = self.ctx.dialect;
        match msg {
            WireMessage::Request { id, params, .. } => {
                let known = to_model(self.ctx, msg, &mut self.ids, |_| None);
                let parent = if names_sessions(dialect) {
                    self.link(session_of(params.as_ref()))
                } else {
                    None
                };
                let Some(parent) = parent else {
                    self.unlinked = true;
                    return (known, None);
                };
                // Any request the agent sends in a prompt turn is one of its nested requests.
                let method = match known {
                    Some(Message::Request { method, .. }) => method,
                    _ => Method::ServerWork,
                };
                let id = self.ids.model(id);
                (Some(Message::Request { id, method }), Some(parent))
            }
            WireMessage::Notification { method, params }
                if names_sessions(dialect)
                    && Some(method.as_str()) == dialect.rules().activity_method =>
            {
                let turn = self.turn_of_update(params.as_ref());
                (turn.map(|id| Message::Activity { id }), None)
            }
            _ => {
                let methods = &self.methods;
                let m = to_model(self.ctx, msg, &mut self.ids, |id| methods.get(id));
                (m, None)
            }
        }
    }

    /// Whether the peer's answer `reply` to the probe's request `id` is the peer giving the
    /// request up on its own (see the module documentation): the dialect's text says how such a
    /// request is answered (`internal-cancel-code` applies), the answer is the request's first,
    /// the probe never cancelled it, and the answer says it was cancelled.
    pub(super) fn given_up_by_peer(&self, id: RequestId, reply: Reply) -> bool {
        let dialect = self.ctx.dialect;
        let Some(give_up) = dialect.rules().give_up else {
            return false;
        };
        let says_given_up = match reply {
            // -32800 (or a prompt turn's cancelled stop reason) where that is the give-up's
            // answer (ACP); in LSP it says the client cancelled, which this request it did not:
            // a cancel meant for another request, unless none was ever sent.
            Reply::Cancelled => !dialect.rules().gives_up_unlike_a_cancel() || !self.cancel_sent,
            // (In ACP an error -32800 answering a prompt turn is read as an error: a cancelled
            // prompt turn ends with a result.) LSP's ContentModified and ServerCancelled.
            Reply::Error(code) => give_up.says_given_up(code) || code == SERVER_CANCELLED,
            _ => false,
        };
        says_given_up
            && InvariantId::InternalCancelCode
                .info()
                .application(dialect)
                .is_some()
            && self.methods.contains_key(id)
            && !self.cancelled.contains(id)
            && !self.answered_set.contains(id)
    }

    pub(super) fn on_received(&mut self, rec: &Record) {
        let msg = match WireMessage::parse(rec.text.as_bytes()) {
            Ok(m) => m,
            Err(e) => {
                self.error(SessionError {
                    kind: "not-json-rpc",
                    offset: Some(rec.offset + e.offset as u64),
                    // The offset is the stream's; the message shows the line it is in.
                    message: format!(
                        "expected {}, found {}, in the peer's message {}",
                        e.expected,
                        e.found,
                        cancelcheck_wire::decode::cut(&rec.text)
                    ),
                });
                return;
            }
        };
        if let WireMessage::Response {
            body: Body::Result(v),
            ..
        } = &msg
            && self.created_task.is_none()
            && self.ctx.dialect.rules().task_cancel_method.is_some()
            && let Some(task) = v.pointer("/task/taskId").and_then(Value::as_str)
        {
            self.created_task = Some(task.to_string());
        }
        if let WireMessage::Response { id, body } = &msg {
            let opening = if self.initialize.as_ref() == Some(id) {
                self.ctx.dialect.rules().initialize_method
            } else if self.opening.as_ref() == Some(id) {
                Some("session/new")
            } else {
                None
            };
            if let (Some(method), Body::Error { code, message, .. }) = (opening, body)
                && self.handshake_refused.is_none()
            {
                self.handshake_refused = Some(format!(
                    "the peer answered {method} with error {code} ({message:?})"
                ));
            }
            if self.handshake.as_ref() == Some(id) {
                self.handshake = None;
                self.protocol = cancelcheck_wire::client::version_mismatch(self.ctx.dialect, body);
            }
            // An answer to a request the probe sent proves the peer read everything up to
            // that request.
            if let Some((k, barrier)) = self.sent.newest_request(id) {
                self.proves(k);
                if barrier {
                    // The answer to a barrier (or another request the model does not know):
                    // evidence of order only.
                    return;
                }
            }
            let mid = self.ids.model(id);
            // The probe's slow request refused before it ran: the scenario tests nothing.
            if let cancelcheck_wire::Body::Error { code, message, .. } = body
                && REFUSALS.contains(code)
                && self.methods.get(mid).is_some_and(|m| m.is_work())
            {
                self.refused.insert(mid);
                if self.vacuous_because.is_empty() {
                    self.vacuous_because.push(format!(
                        "the peer refused the work request {id} ({}) with error {code} ({message}): it never ran; name a request of the peer's that takes a while with --method and --params, or in a recipe (--recipe: its work, after the set-up the peer needs)",
                        self.ctx.work_method
                    ));
                }
            }
            let refused = self.refused.contains(&mid);
            let first = self.work.answer(mid, rec.t_us, tool_error(body), refused);
            if first.is_some() {
                self.unanswered_work -= 1;
            }
            // An answer that says "cancelled" proves the peer read a cancel for it.
            let cancelled = matches!(body, cancelcheck_wire::Body::Error { code: -32800, .. })
                || matches!(
                    to_model(self.ctx, &msg, &mut self.ids, |_| None),
                    Some(Message::Response {
                        reply: Reply::Cancelled,
                        ..
                    })
                );
            if cancelled && let Some(k) = self.sent.first_cancel(mid) {
                self.proves(k);
            }
            if let (false, Some(sent_us)) = (cancelled, first) {
                self.crossed_or_caused(rec, sent_us, mid, id, body);
            }
        }
        let (model, parent) = self.peer_model(&msg);
        let Some(m) = model else {
            // A request of another method, or an unrelated notification, but those the text
            // lets the server send while it holds the handshake.
            // (A cancel is always one of the model's messages, well formed or not.)
            if let Some(method) = msg.method()
                && !cancelcheck_wire::shapes::of(self.ctx.dialect)
                    .server_may_send_before_open(method)
            {
                self.emit(Event::Unmodelled {
                    party: Party::Server,
                });
            }
            return;
        };
        let m = self.full_or_partial(m, &msg);
        let m = self.cancelled_unasked(m);
        if let Message::Response { id, reply } = m
            && self.methods.contains_key(id)
            && self.cancelled.contains(id)
            && (reply.is_cancelled()
                || (!matches!(reply, Reply::Full | Reply::Initialized { .. })
                    && self
                        .sent
                        .first_cancel(id)
                        .is_none_or(|k| self.sent.is_read(k))))
        {
            self.acted_on_cancel = true;
        }
        if let (Message::Activity { id }, true) = (
            m,
            rec.stream.as_deref().is_some_and(|s| s.starts_with("get-")),
        ) && !self.on_get_stream(id)
        {
            return;
        }
        match m {
            Message::Activity { id } => {
                // Progress about a request proves the peer read it.
                if let Some(k) = self.sent.first_request(id) {
                    self.proves(k);
                }
            }
            Message::Request { id, .. } => {
                self.peer_requests.insert(
                    id,
                    PeerRequest {
                        cancelled: false,
                        answered: false,
                        resolved: false,
                    },
                );
                if let Some(parent) = parent {
                    self.server(Output::Nested { parent, child: id });
                }
            }
            Message::Cancel { id, .. } => {
                self.any_cancel = true;
                if let Some(r) = self.peer_requests.get_mut(&id) {
                    r.cancelled = true;
                    self.judged_cancel = true;
                }
            }
            Message::MalformedCancel => {
                self.any_cancel = true;
                self.judged_cancel = true;
            }
            Message::Response { id, .. } if self.methods.contains_key(id) => {
                self.children_may_be_resolved(id);
            }
            _ => {}
        }
        if let Message::Response { id, reply } = m
            && self.given_up_by_peer(id, reply)
        {
            self.ambiguous_give_up |= self.cancel_sent;
            self.emit(Event::Input {
                party: Party::Server,
                input: Input::InternalCancel(id),
            });
        }
        self.server(Output::Send(m));
        self.emit(Event::Input {
            party: Party::Client,
            input: Input::Receive(m),
        });
        if let Message::Response { id, reply } = m
            && self.methods.contains_key(id)
        {
            // (Only a prompt turn's `session/update` asks which prompt was answered last.)
            if self.answered_set.insert(id) && self.ctx.prompt_turn() {
                self.answered.push(id);
            }
            if self.resolved.insert(id) {
                self.emit(delivered(id, Outcome::Reply(reply)));
            }
        }
    }

    /// An answer that says "cancelled" (-32800) to a request of the probe's where the probe
    /// never sent a cancel of any kind, in a dialect whose text says nothing of requests given
    /// up on their own (MCP): no cancel can have been taken for the wrong request, so it is an
    /// error answer like any other (the peer's own failure), not a breach of `exact-id-match`.
    /// Any other message is `m` unchanged.
    fn cancelled_unasked(&self, m: Message) -> Message {
        match m {
            Message::Response {
                id,
                reply: Reply::Cancelled,
            } if !self.cancel_sent
                && self.ctx.dialect.rules().give_up.is_none()
                && self.methods.contains_key(id) =>
            {
                Message::Response {
                    id,
                    reply: Reply::Error(CANCELLED_CODE),
                }
            }
            _ => m,
        }
    }

    /// A result after a cancel the peer was proved to have read, where the dialect lets it hold
    /// "partial results" in any form (the ACP RFD: "Valid response with appropriate data
    /// (partial results or cancellation marker)") and the work is not a prompt turn (whose
    /// `stopReason` says how it ended): the wire shows no partial marker but cannot tell partial
    /// from full. It is the full result only if it is the very result an uncancelled request of
    /// the same work got (an assumption the verdict names); unlike it, partial results; with
    /// nothing to compare it with, not decidable. Any other message is `m` unchanged.
    pub(super) fn full_or_partial(&mut self, m: Message, msg: &WireMessage) -> Message {
        let rules = self.ctx.dialect.rules();
        let (
            Message::Response {
                id,
                reply: Reply::Full,
            },
            WireMessage::Response {
                id: wire,
                body: Body::Result(v),
            },
        ) = (m, msg)
        else {
            return m;
        };
        let work = self.methods.get(id).is_some_and(|m| m.is_work());
        if !work
            || !rules.partial_results
            || rules.honouring != Honouring::Must
            || self.ctx.prompt_turn()
        {
            return m;
        }
        let wire = wire.to_json_text();
        let Some(k) = self.sent.first_cancel(id) else {
            if self.full_result.is_none() {
                self.full_result = Some((wire, v.to_string()));
            }
            return m;
        };
        if !self.sent.is_read(k) {
            return m;
        }
        let partial = Message::Response {
            id,
            reply: Reply::Partial,
        };
        let text = v.to_string();
        match &self.full_result {
            Some((full, first)) if *first == text => {
                self.assumptions.push(format!(
                    "the result to request {wire}, after the peer had read its cancel, is the very result the uncancelled request {full} got: judged the full result, assuming the work gives the same result each time"
                ));
                m
            }
            Some((full, _)) => {
                self.assumptions.push(format!(
                    "the result to request {wire}, after the peer had read its cancel, differs from the result the uncancelled request {full} got: taken for partial results, which the text allows in any form, assuming the work gives the same result each time"
                ));
                partial
            }
            None => {
                self.undecided.push(format!(
                    "not decidable: request {wire} was answered with a result after the peer had read its cancel, and the text allows partial results in any form: with no uncancelled answer of the same work to compare it with, the wire does not tell partial from full; give the work an uncancelled run first (a recipe's work, or a scenario that measures it, such as cancel-crossing-answer)"
                ));
                partial
            }
        }
    }

    /// An answer to a work request the probe cancelled that came before the peer was proved to
    /// have read that cancel, and that does not say "cancelled", either crossed the cancel or
    /// was caused by it. Sooner than the declared shortest duration of the work after the
    /// request was sent ([`note::MIN_WORK`]), the cancel caused it: the peer had read the cancel
    /// (an assumption the verdict names). Otherwise nothing on the wire decides it for an error
    /// answer, whose code is judged only if the cancel caused it: not decidable. (A result is
    /// the allowed side either way.) Asked of a first answer only, sent at `sent_us`: a second
    /// answer breaks the answer-once rule whatever caused it.
    pub(super) fn crossed_or_caused(
        &mut self,
        rec: &Record,
        sent_us: u64,
        mid: RequestId,
        id: &WireId,
        body: &Body,
    ) {
        if matches!(body, Body::Error { code, .. } if REFUSALS.contains(code)) {
            return;
        }
        let Some(k) = self.sent.first_cancel(mid) else {
            return;
        };
        if self.sent.is_read(k) {
            return;
        }
        let after_ms = rec.t_us.saturating_sub(sent_us) / 1000;
        let what = match (body, tool_error(body)) {
            (Body::Error { code, message, .. }, _) => format!("error {code} ({message:?})"),
            (_, Some(text)) => format!("a tool error ({text:?})"),
            _ => "a result".to_string(),
        };
        let id = id.to_json_text();
        match self.min_work_us {
            Some(min) if rec.t_us.saturating_sub(sent_us) < min => {
                self.proves(k);
                self.assumptions.push(format!(
                    "the answer to request {id} ({what}) came {after_ms} ms after the request was sent, after its cancel and sooner than the {} ms the work takes at least (--min-work-ms): judged caused by the cancel, which the peer had then read, assuming the work never ends sooner on its own",
                    min / 1000
                ));
            }
            // A tool's error result is an error answer too, in a result's clothes.
            _ if matches!(body, Body::Error { .. }) || tool_error(body).is_some() => {
                let declared = match self.min_work_us {
                    Some(min) => format!(
                        " (it came later than the {} ms declared with --min-work-ms)",
                        min / 1000
                    ),
                    None => String::new(),
                };
                let fix = if self.min_work_us.is_some() {
                    "only an answer sooner than that is decided"
                } else {
                    "declare how long the work takes at least with --min-work-ms N to decide"
                };
                self.undecided.push(format!(
                    "not decidable: the answer to request {id} ({what}) came {after_ms} ms after the request was sent, after its cancel but before the peer was proved to have read it{declared}: it may have crossed the cancel (an ordinary failure, the allowed side) or been caused by it (then it is judged as a cancelled request's answer); {fix}"
                ));
            }
            _ => {}
        }
    }
}
