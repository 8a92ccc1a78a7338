//! The responder side: running the peer's requests, answering them, and what a cancel or a
//! stream's close does to them.

use super::{Endpoint, InEntry, Session};
use crate::dialect::{CancelShape, ReceiverDuty};
use crate::id::{Party, RequestId};
use crate::io::{Anomaly, Ignored, Output};
use crate::message::{Ack, CancelCause, Message, Method, Reply};
use crate::policy::{Ending, Heed};
use crate::request::{Completion, Incoming, Outgoing, acknowledged_cancel};

impl Endpoint {
    /// Streamable HTTP: the stream of the peer's request `id` closed. Where closing is the
    /// cancel, the server takes it as one; elsewhere it keeps the request.
    pub(super) fn stream_closed(&mut self, id: RequestId, out: &mut Vec<Output>) {
        let cancels = self
            .policy()
            .stream_close_cancels(self.rules().stream_close_cancels);
        if cancels && self.cfg.party == Party::Server {
            self.on_cancel(id, false, out);
        }
    }

    /// Gives up a received request on the party's own account: its work stops and it is
    /// answered with the dialect's give-up code ([`crate::dialect::GiveUp`]: as if a cancel
    /// had come, -32800, in ACP; `ContentModified` in LSP), where the dialect says so;
    /// elsewhere the input is an anomaly of the driver.
    pub(super) fn internal_cancel(&mut self, id: RequestId, out: &mut Vec<Output>) {
        let open = self
            .find_in(id)
            .filter(|&i| self.incoming[i].state.is_working());
        let rules = self.rules();
        let (Some(i), Some(give_up)) = (open, rules.give_up) else {
            out.push(Output::Anomaly(Anomaly::UnknownWork(id)));
            return;
        };
        let InEntry { state, running, .. } = self.incoming[i];
        if running {
            self.incoming[i].running = false;
            self.running -= 1;
            out.push(Output::AbortWork(id));
        }
        // A request whose cancel it had read (held for its children, or finishing first) is
        // answered as that cancel asks, whatever stops it now.
        let read = state == Incoming::CancelNoted || self.incoming[i].cancel_read;
        let correct = if read || !rules.gives_up_unlike_a_cancel() {
            Reply::Cancelled
        } else {
            Reply::Error(give_up.code)
        };
        let reply = self.policy().gives_up_with(correct, read, give_up.reserved);
        self.incoming[i].owed = None;
        self.cascade(id, out);
        if !self.defer(i, reply) {
            match state.cancel(true) {
                Ok(next) => self.incoming[i].state = next,
                Err(e) => {
                    out.push(Output::Anomaly(Anomaly::Illegal(id, e)));
                    return;
                }
            }
            self.respond(id, reply, out);
        }
        if running {
            self.start_next(out);
        }
    }

    pub(super) fn find_in(&self, id: RequestId) -> Option<usize> {
        self.incoming.iter().rposition(|e| e.id == id)
    }

    pub(super) fn find_running(&self, id: RequestId) -> Option<usize> {
        self.incoming.iter().rposition(|e| e.id == id && e.running)
    }

    pub(super) fn respond(&self, id: RequestId, reply: Reply, out: &mut Vec<Output>) {
        let wire_id = self.policy().answer_id(id);
        out.push(Output::Send(Message::Response { id: wire_id, reply }));
        if self.policy().activity_after_answer() && self.sends_activity() {
            out.push(Output::Send(Message::Activity { id }));
        }
    }

    fn start_next(&mut self, out: &mut Vec<Output>) {
        let workers = self.cfg.workers.max(1);
        while self.running < workers {
            let Some(e) = self
                .incoming
                .iter_mut()
                .find(|e| e.state == Incoming::Queued)
            else {
                return;
            };
            // The search above found it queued, so the transition holds.
            let Ok(next) = e.state.start() else { return };
            e.state = next;
            e.running = true;
            self.running += 1;
            out.push(Output::StartWork(e.id));
        }
    }

    pub(super) fn on_request(
        &mut self,
        id: RequestId,
        method: Method,
        session: Option<RequestId>,
        out: &mut Vec<Output>,
    ) {
        if let Some(i) = self.find_in(id)
            && self.incoming[i].state.is_open()
        {
            out.push(Output::Anomaly(Anomaly::DuplicateRequestId(id)));
        }
        match method {
            Method::Initialize { cancel_support } => {
                self.incoming.push(InEntry {
                    id,
                    state: Incoming::Answered(Completion::Completed),
                    running: false,
                    owed: None,
                    session,
                    turn_cancelled: false,
                    cancel_read: false,
                });
                if self.session == Session::NotStarted {
                    self.session = Session::Ready {
                        peer_cancel_support: cancel_support,
                    };
                }
                self.respond(
                    id,
                    Reply::Initialized {
                        cancel_support: self.cfg.cancel_support,
                    },
                    out,
                );
            }
            Method::Work { .. } | Method::ServerWork => {
                self.incoming.push(InEntry {
                    id,
                    state: Incoming::Queued,
                    running: false,
                    owed: None,
                    session,
                    turn_cancelled: false,
                    cancel_read: false,
                });
                let last = self.incoming.len() - 1;
                self.incoming[last].turn_cancelled = self.turn_cancelled(last);
                self.start_next(out);
            }
        }
    }

    pub(super) fn work_done(&mut self, id: RequestId, out: &mut Vec<Output>) {
        let Some(i) = self.find_running(id) else {
            out.push(Output::Anomaly(Anomaly::UnknownWork(id)));
            return;
        };
        self.incoming[i].running = false;
        self.running -= 1;
        let state = self.incoming[i].state;
        if !state.is_open() && !self.policy().stops_work() {
            // Work that outlived the cancel it answered (the policy did not stop it) ends quietly.
            self.start_next(out);
            return;
        }
        if self.incoming[i].turn_cancelled && state.is_open() {
            // Its prompt turn was cancelled here: it ends with the outcome `cancelled`, once the
            // requests sent on its behalf are cancelled and resolved.
            self.cascade(id, out);
            if !self.defer(i, Reply::Cancelled) {
                match state.cancel(true) {
                    Ok(next) => {
                        self.incoming[i].state = next;
                        self.respond(id, Reply::Cancelled, out);
                    }
                    Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(id, e))),
                }
            }
            self.start_next(out);
            return;
        }
        if self.incoming[i].owed.is_some() || self.defer(i, Reply::Full) {
            // The work is done; the answer waits for the requests sent on its behalf.
            self.start_next(out);
            return;
        }
        if self.policy().drops_noted_work() && state == Incoming::CancelNoted {
            // A policy that notices the cancel only now drops the work unanswered.
            match state.cancel(false) {
                Ok(next) => self.incoming[i].state = next,
                Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(id, e))),
            }
            out.push(Output::Dropped(id));
            self.start_next(out);
            return;
        }
        match state.complete() {
            Ok(next) => {
                self.incoming[i].state = next;
                self.respond(id, Reply::Full, out);
            }
            // Work that outlived its answer, where the policy answers again.
            Err(_) if self.policy().answers_again() => self.respond(id, Reply::Full, out),
            Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(id, e))),
        }
        self.start_next(out);
    }

    /// Answers an acknowledged cancel (`acked`: ABP's `capabilities/cancel`, a task's cancel);
    /// any other cancel is not answered.
    fn ack(&self, acked: bool, id: RequestId, ack: Ack, out: &mut Vec<Output>) {
        if acked {
            out.push(Output::Send(Message::CancelAck { id, ack }));
        }
    }

    pub(super) fn crash(&mut self, out: &mut Vec<Output>) {
        self.crashed = true;
        out.push(Output::Crashed);
    }

    pub(super) fn on_cancel(&mut self, id: RequestId, session: bool, out: &mut Vec<Output>) {
        let rules = self.rules();
        let policy = self.policy();
        let shape_acked = rules.cancel_shape == CancelShape::AcknowledgedRequest;
        // A task's cancel is a request, answered with the task's final state (MCP).
        let acked = shape_acked || (session && rules.task_cancel_method.is_some());
        if policy.answers_cancel_notifications() && rules.json_rpc {
            out.push(Output::Send(Message::Response {
                id: RequestId::Null,
                reply: Reply::Error(-32601),
            }));
        }
        // A party that declared no support owes the generic cancel nothing; a session's
        // cancel is not the negotiated one.
        if rules.negotiated && !self.cfg.cancel_support && !session {
            out.push(Output::Ignored(Ignored::UnsupportedCancel(id)));
            return;
        }
        if shape_acked && self.session == Session::NotStarted {
            // ABP: "Cancel without active session | Return error { code: 'NOT_INITIALIZED' }".
            self.ack(acked, id, Ack::NOT_INITIALIZED, out);
            return;
        }
        // (A cancel that names a session cannot be mistaken for one of its own requests.)
        if policy.cancel_hits_own_requests()
            && !session
            && let Some(o) = self
                .find_out(id)
                .filter(|&o| self.outgoing[o].state.is_open())
        {
            // It gives up its own request; the peer's request with that id runs on.
            return self.give_up(o, CancelCause::User, true, out);
        }
        if policy.overlooks(id) {
            out.push(Output::Ignored(Ignored::UnknownCancel(id)));
            return;
        }
        if policy.cancel_stops_all() {
            // (The named call is answered as the table says; the fault is in the others.)
            let named = self.find_in(id).map(|i| self.incoming[i].state);
            for i in 0..self.incoming.len() {
                if self.incoming[i].state.is_open() {
                    self.honour(i, out);
                }
            }
            if acked {
                self.ack(acked, id, acknowledged_cancel(named).1, out);
            }
            return;
        }
        let Some(i) = self.find_in(id) else {
            if policy.crashes_on_unknown_cancel() {
                return self.crash(out);
            }
            if acked {
                self.ack(acked, id, acknowledged_cancel(None).1, out);
            } else {
                out.push(Output::Ignored(Ignored::UnknownCancel(id)));
            }
            return;
        };
        let state = self.incoming[i].state;
        if !state.is_open() {
            if policy.crashes_on_unknown_cancel() {
                return self.crash(out);
            }
            if acked {
                let correct = acknowledged_cancel(Some(state)).1;
                let ack = policy.acks_ended(correct, state, acknowledged_cancel(None).1);
                self.ack(acked, id, ack, out);
            } else {
                out.push(Output::Ignored(Ignored::CancelAfterAnswer(id)));
            }
            return;
        }
        if state == Incoming::CancelNoted {
            // An answer held for its children that gives the request up on the party's own
            // account (LSP's ContentModified) becomes the cancel's, now that one came.
            if let (Some(Reply::Error(code)), Some(g)) = (self.incoming[i].owed, rules.give_up)
                && g.says_given_up(code)
            {
                self.incoming[i].owed = Some(Reply::Cancelled);
            }
            if acked {
                self.ack(acked, id, Ack::CANCELLED, out);
            } else {
                out.push(Output::Ignored(Ignored::RepeatedCancel(id)));
            }
            return;
        }
        match policy.heeds(state, acked) {
            Heed::Note => {
                if let Ok(next) = state.note_cancel() {
                    self.incoming[i].state = next;
                }
            }
            // Queued: it will still run and answer in full; what a give-up then answers
            // depends on the cancel read, where the two answers differ (LSP).
            Heed::Read => {
                self.incoming[i].cancel_read = rules.gives_up_unlike_a_cancel();
            }
            Heed::AckOnly => self.ack(acked, id, Ack::CANCELLED, out),
            Heed::AnswerOnly => {
                // Answers now, but the work is never told to stop.
                self.incoming[i].state = Incoming::Answered(Completion::Cancelled);
                self.respond(id, Reply::Cancelled, out);
                self.ack(acked, id, Ack::CANCELLED, out);
            }
            Heed::Stop => {
                self.honour(i, out);
                self.ack(acked, id, Ack::CANCELLED, out);
            }
        }
    }

    /// Whether this party answers the requests of a prompt turn it cancelled itself as
    /// cancelled (ACP's client, as its policy says).
    pub(super) fn ends_turn_requests(&self) -> bool {
        self.rules().session_cancel_method.is_some()
            && self.cfg.party == Party::Client
            && self.policy().ends_turn_requests()
    }

    /// Whether received request `i` serves a prompt turn this party has cancelled and not yet
    /// seen end.
    fn turn_cancelled(&self, i: usize) -> bool {
        self.incoming[i]
            .session
            .and_then(|s| self.find_out(s))
            .is_some_and(|o| matches!(self.outgoing[o].state, Outgoing::CancelRequested(_)))
    }

    /// Stops an open received request because of a cancel, answering as the behaviour says.
    fn honour(&mut self, i: usize, out: &mut Vec<Output>) {
        let rules = self.rules();
        let policy = self.policy();
        let InEntry {
            id, state, running, ..
        } = self.incoming[i];
        let stops = running && policy.stops_work();
        if stops {
            self.incoming[i].running = false;
            self.running -= 1;
            out.push(Output::AbortWork(id));
        }
        let must_answer = rules.receiver_duty == ReceiverDuty::MustAnswer;
        let (ending, reply) = policy
            .ends_cancelled(must_answer, rules.partial_results, rules.cancel_error_code)
            .unwrap_or((
                Ending::Cancelled(must_answer),
                must_answer.then_some(Reply::Cancelled),
            ));
        let next = match ending {
            Ending::Cancelled(answered) => state.cancel(answered),
            Ending::Completed => Ok(Incoming::Answered(Completion::Completed)),
            // The entry is never freed: it stays "noted" with no work behind it.
            Ending::Leaked => Ok(Incoming::CancelNoted),
        };
        // The requests sent on its behalf are cancelled before it is answered; an answer held
        // back for them is superseded by the cancel's.
        self.incoming[i].owed = None;
        self.cascade(id, out);
        if let Some(reply) = reply
            && self.defer(i, reply)
        {
            if stops {
                self.start_next(out);
            }
            return;
        }
        match next {
            Ok(next) => self.incoming[i].state = next,
            Err(e) => {
                out.push(Output::Anomaly(Anomaly::Illegal(id, e)));
                return;
            }
        }
        match reply {
            Some(reply) => self.respond(id, reply, out),
            None if ending != Ending::Leaked => out.push(Output::Dropped(id)),
            None => {}
        }
        if stops {
            self.start_next(out);
        }
    }
}
