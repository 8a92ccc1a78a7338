//! The first pass: what each event changes in the checker's records of requests and of the
//! session. Nothing here judges; the families read the records (and the [`Change`] an event
//! made) afterwards. The pass is inlined into `Checker::observe` and `Checker::observe_about`
//! alike (`#[inline(always)]`), so that the explorer's `observe` compiles as one function.

use super::{CancelRead, Checker, Lost};
use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::{CancelShape, ReceiverDuty};
use cancelcheck_model::io::Timer;
use cancelcheck_model::message::{AckReason, Method};
use cancelcheck_model::pack::{Pack, Relabel};
use cancelcheck_model::{Command, Input, Message, Outcome, Output, Party, Reply, RequestId};
use smallvec::SmallVec;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Pack, Relabel)]
pub(super) enum Work {
    Unseen,
    Queued,
    Running,
    Ended,
}

/// The checker's record of one request instance.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Pack, Relabel)]
pub(super) struct Req {
    pub(super) requester: Party,
    pub(super) id: RequestId,
    /// Whether it is `initialize` (the only method the rules single out).
    pub(super) initialize: bool,
    /// `initialize` whose first answer was not its result (an error, or cancelled): the
    /// session did not open, so it never counts as answered for the opening's rules.
    pub(super) refused: bool,
    /// Whether it is task-augmented (MCP 2025-11-25: cancelled with `tasks/cancel`).
    pub(super) task: bool,
    pub(super) work: Work,
    pub(super) cancel_sent: bool,
    pub(super) cancel_received: bool,
    /// The cancel reached the responder while it still held the request open.
    pub(super) cancel_received_open: bool,
    /// A cancel received named the request's session (ACP `session/cancel` of a prompt turn).
    pub(super) session_cancel: bool,
    pub(super) responses_sent: u8,
    /// Extra copies of answers the network duplicated.
    pub(super) response_copies: u8,
    pub(super) responses_received: u8,
    pub(super) responses_lost: u8,
    pub(super) responder_done: bool,
    pub(super) delivered: u8,
    /// The request itself was lost: its receiver never saw it.
    pub(super) request_lost: bool,
    pub(super) ack_cancelled: Option<bool>,
    pub(super) result_cancelled: Option<bool>,
    /// Activity notifications put on the wire (copies included), and those received or lost.
    pub(super) activity_sent: u8,
    pub(super) activity_settled: u8,
    /// Cancels put on the wire (copies included), and those received or lost.
    pub(super) cancels_sent: u8,
    pub(super) cancels_received: u8,
    pub(super) cancels_lost: u8,
    /// Cancel acknowledgements put on the wire (copies included), and those received or lost
    /// (ABP).
    pub(super) acks_sent: u8,
    pub(super) acks_settled: u8,
    /// Its id was reused while a message about it could still arrive: from then on the wire
    /// cannot tell this request from the other one with its id, so only that reuse is reported
    /// about it, not what the confusion leads to.
    pub(super) ambiguous: bool,
    /// Its receiver gave it up on its own account (internal cancellation).
    pub(super) internal: bool,
    /// The record of the request on whose behalf it was sent (its parent in the request tree).
    pub(super) parent: Option<u32>,
    /// Its parent was cancelled while it was unresolved: its requester owes it the cascade.
    pub(super) cascade_owed: bool,
    /// Its requester resolved it as cancelled (after a cancel, a timeout, or its parent's
    /// cancel).
    pub(super) resolved_cancelled: bool,
    /// Its receiver, the client, had cancelled the prompt turn it serves (ACP `session/cancel`
    /// of its parent) while it held it unanswered: it owes it the outcome `cancelled`.
    pub(super) turn_cancelled: bool,
    /// Streamable HTTP: its requester's end of the request's response stream is closed or
    /// lost (and not resumed).
    pub(super) stream_closed: bool,
    /// Streamable HTTP: the stream was lost while its receiver held it unanswered.
    pub(super) lost_during_work: bool,
    /// Streamable HTTP: its receiver read that its stream closed while it held it unanswered.
    pub(super) close_read_open: bool,
}

impl Req {
    /// An answer (or a duplicate copy of one) is on the wire.
    pub(super) fn answer_in_flight(&self) -> bool {
        self.responses_sent.saturating_add(self.response_copies)
            > self.responses_received.saturating_add(self.responses_lost)
    }

    /// Its receiver ended it unanswered, with no cancel read and not on its own account,
    /// after reading that its stream closed (Streamable HTTP, where a close is no cancel).
    pub(super) fn stopped_on_close(&self) -> bool {
        self.close_read_open
            && !self.cancel_received
            && !self.internal
            && self.responder_done
            && self.responses_sent == 0
    }

    /// A cancel for this request is on its way to the receiver.
    pub(super) fn cancel_in_flight(&self) -> bool {
        self.cancels_sent > self.cancels_received.saturating_add(self.cancels_lost)
    }

    /// Some message about this request may still arrive after a new request with the same id:
    /// towards the requester its answer (or a copy), progress, or (with `acked`) a cancel's
    /// acknowledgement, or the answer it is still owed; towards the receiver a cancel, unless
    /// the link is `fifo` (a cancel sent before the new request then arrives before it).
    pub(super) fn may_still_arrive(&self, acked: bool, fifo: bool) -> bool {
        self.answer_in_flight()
            || self.activity_sent > self.activity_settled
            || (acked && (self.acks_sent > self.acks_settled || self.cancel_in_flight()))
            || (!fifo && self.cancel_in_flight())
            || (self.responses_sent == 0 && !self.responder_done && !self.request_lost)
    }
}

/// What one event changed, for the families to judge: the record it is about and that record
/// as it was before, and what a request sent found of an earlier one with its id.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Change {
    /// The record the event is about, where the checker knows one: the newest of the id for
    /// what a requester sends, times out or delivers (the newest unresolved one for a
    /// delivery), the one the responder holds for what it receives or sends, the one arriving
    /// for a request received or lost, the new one for a request sent, the parent for
    /// `Output::Nested`.
    pub(super) rec: Option<usize>,
    /// That record before the event.
    pub(super) before: Option<Req>,
    /// A request sent with an id its sender used before: that earlier record, and whether a
    /// message about it could still arrive (the id was live).
    pub(super) reused: Option<(usize, bool)>,
    /// A request sent: whether a finding about its requester and id would have been set aside
    /// before it was recorded (see [`Checker::confused`]).
    pub(super) confused_before: bool,
}

impl Checker {
    /// Records what `ev` changes, and says what that was.
    #[inline(always)]
    pub(super) fn update(&mut self, ev: &Event) -> Change {
        match *ev {
            Event::Input { party, input } => self.input(party, input),
            Event::Output { party, output } => self.output(party, output),
            Event::Lost { from, msg } => self.lost(from, msg),
            Event::Duplicated { from, msg } => self.duplicated(from, msg),
            Event::End { .. } | Event::Unmodelled { .. } => Change::default(),
        }
    }

    /// Records what `ev` says of a request's response stream (Streamable HTTP): its requester
    /// closing or losing it, or resuming it; its receiver reading that it closed.
    #[inline(always)]
    pub(super) fn stream_update(&mut self, ev: &Event) {
        let (party, id, what) = match *ev {
            Event::Output {
                party,
                output: Output::CloseStream(id),
            } => (party, id, 0),
            Event::Input { party, input } => match input {
                Input::StreamLost(id) => (party, id, 1),
                Input::StreamResumed(id) => (party, id, 2),
                Input::StreamClosed(id) => (party, id, 3),
                _ => return,
            },
            _ => return,
        };
        let i = match what {
            3 => self.find_held(party.peer(), id),
            _ => self.find(party, id),
        };
        let Some(i) = i else { return };
        let r = &mut self.reqs[i];
        let open = r.responses_sent == 0 && !r.responder_done;
        match what {
            0 => r.stream_closed = true,
            1 => {
                r.stream_closed = true;
                r.lost_during_work |= open && matches!(r.work, Work::Queued | Work::Running);
            }
            2 => r.stream_closed = false,
            _ => r.close_read_open |= open && r.work != Work::Unseen,
        }
    }

    /// `Change` about record `i`, as it is before the event changes it.
    #[inline(always)]
    fn about(&self, i: Option<usize>) -> Change {
        Change {
            rec: i,
            before: i.map(|i| self.reqs[i]),
            ..Change::default()
        }
    }

    #[inline(always)]
    fn input(&mut self, party: Party, input: Input) -> Change {
        self.handling_cancel[party.index()] =
            match input {
                Input::Receive(Message::Cancel { id, .. }) => Some(
                    if self.reqs.iter().any(|r| {
                        r.requester == party.peer() && r.id == id && r.work != Work::Unseen
                    }) {
                        CancelRead::Known
                    } else {
                        CancelRead::UnknownId
                    },
                ),
                Input::Receive(Message::MalformedCancel) => Some(CancelRead::Malformed),
                _ => None,
            };
        self.commanded[party.index()] = match input {
            Input::Command(Command::Cancel(id)) | Input::TimerFired(Timer::RequestTimeout(id)) => {
                Some(id)
            }
            Input::TimerFired(Timer::InitTimeout) => self
                .reqs
                .iter()
                .rev()
                .find(|r| r.requester == party && r.initialize)
                .map(|r| r.id),
            _ => None,
        };
        let i = match input {
            Input::Receive(Message::Response { id, .. } | Message::CancelAck { id, .. })
            | Input::Receive(Message::Activity { id })
            | Input::TimerFired(Timer::RequestTimeout(id)) => self.find(party, id),
            Input::Receive(Message::Request { id, .. }) => self.find_arriving(party.peer(), id),
            Input::Receive(Message::Cancel { id, .. }) | Input::InternalCancel(id) => {
                self.find_held(party.peer(), id)
            }
            _ => None,
        };
        let change = self.about(i);
        // A cancel that is a request is owed its answer: ABP's `capabilities/cancel`, and
        // MCP's `tasks/cancel` (a session-wide cancel where the dialect has a task's cancel).
        if let Input::Receive(Message::Cancel { session, .. }) = input
            && (self.rules().cancel_shape == CancelShape::AcknowledgedRequest
                || (session && self.rules().task_cancel_method.is_some()))
        {
            let n = &mut self.cancels_unanswered[party.index()];
            *n = n.saturating_add(1);
        }
        if input == Input::Disconnected {
            self.disconnected = true;
        }
        let Some(i) = i else {
            return change;
        };
        let r = &mut self.reqs[i];
        match input {
            Input::Receive(Message::Response { .. }) => {
                r.responses_received = r.responses_received.saturating_add(1);
            }
            Input::Receive(Message::CancelAck { .. }) => {
                r.acks_settled = r.acks_settled.saturating_add(1);
            }
            Input::Receive(Message::Activity { .. }) => {
                r.activity_settled = r.activity_settled.saturating_add(1);
            }
            Input::Receive(Message::Request { .. }) => {
                r.work = Work::Queued;
                // It arrives for a prompt turn its receiver has cancelled and not yet seen end.
                let turn = self.parentage().parent(i).map(|p| self.reqs[p]);
                if turn.is_some_and(|p| self.turn_cancelled_by(party, &p)) {
                    self.end_turn_request(party, i);
                }
            }
            Input::Receive(Message::Cancel { session, .. }) => {
                r.cancels_received = r.cancels_received.saturating_add(1);
                r.session_cancel |= session;
                // A party that declared no support owes the generic cancel nothing (ACP RFD),
                // and a cancel that overtook its request names nothing to its receiver.
                if self.heeds_cancels(party, session) && self.reqs[i].work != Work::Unseen {
                    let r = &mut self.reqs[i];
                    let open = r.responses_sent == 0 && !r.responder_done;
                    r.cancel_received_open |= open;
                    r.cancel_received = true;
                    if open {
                        self.owe_cascade(party, i);
                    }
                }
            }
            Input::InternalCancel(_) => {
                r.internal = true;
                self.owe_cascade(party, i);
            }
            _ => {}
        }
        change
    }

    #[inline(always)]
    fn output(&mut self, party: Party, output: Output) -> Change {
        let i = match output {
            Output::Send(msg) => return self.send(party, msg),
            Output::Deliver { id, .. } => self.find_resolving(party, id),
            Output::Nested { parent, .. } => {
                self.nesting[party.index()] = Some(parent);
                self.find_held(party.peer(), parent)
            }
            Output::StartWork(id) | Output::AbortWork(id) | Output::Dropped(id) => {
                self.find_held(party.peer(), id)
            }
            Output::Crashed => {
                self.crashed[party.index()] = true;
                None
            }
            _ => None,
        };
        let change = self.about(i);
        let Some(i) = i else {
            return change;
        };
        let r = &mut self.reqs[i];
        match output {
            Output::Deliver { outcome, .. } => {
                r.delivered = r.delivered.saturating_add(1);
                if let Outcome::Cancelled(_) = outcome {
                    r.resolved_cancelled = true;
                }
            }
            Output::StartWork(_) => r.work = Work::Running,
            Output::AbortWork(_) => r.work = Work::Ended,
            Output::Dropped(_) => {
                r.work = Work::Ended;
                r.responder_done = true;
            }
            _ => {}
        }
        change
    }

    #[inline(always)]
    fn send(&mut self, from: Party, msg: Message) -> Change {
        match msg {
            Message::Request { id, method } => return self.request_sent(from, id, method),
            Message::Response {
                reply: Reply::Initialized { cancel_support },
                ..
            } => {
                self.declared_support[from.index()] = Some(cancel_support);
            }
            Message::CancelAck { .. } => {
                let n = &mut self.cancels_unanswered[from.index()];
                *n = n.saturating_sub(1);
            }
            _ => {}
        }
        let i = self.record_of(from, msg);
        let change = self.about(i);
        let Some(i) = i else {
            return change;
        };
        let acked = self.rules().cancel_shape == CancelShape::AcknowledgedRequest;
        let r = &mut self.reqs[i];
        match msg {
            Message::Response { reply, .. } => {
                if r.initialize && r.responses_sent == 0 {
                    r.refused = !matches!(reply, Reply::Initialized { .. });
                }
                r.responses_sent = r.responses_sent.saturating_add(1);
                r.responder_done = true;
                // (ABP) The call's first result, which its acknowledgement must agree with.
                if acked && r.result_cancelled.is_none() {
                    r.result_cancelled = Some(reply.is_cancelled());
                }
            }
            Message::Cancel { .. } => {
                r.cancel_sent = true;
                r.cancels_sent = r.cancels_sent.saturating_add(1);
                if self.turn_cancelled_by(from, &self.reqs[i]) {
                    // Each request of the turn its sender holds unanswered.
                    for k in 0..self.reqs.len() {
                        let c = self.reqs[k];
                        let held = c.work != Work::Unseen && c.responses_sent == 0;
                        if c.parent == u32::try_from(i).ok() && held && !c.responder_done {
                            self.end_turn_request(from, k);
                        }
                    }
                }
            }
            Message::CancelAck { ack, .. } => {
                r.acks_sent = r.acks_sent.saturating_add(1);
                if !matches!(ack.reason, AckReason::NotFound | AckReason::NotInitialized) {
                    r.ack_cancelled.get_or_insert(ack.cancelled);
                }
            }
            Message::Activity { .. } => r.activity_sent = r.activity_sent.saturating_add(1),
            Message::Request { .. } | Message::MalformedCancel => {}
        }
        change
    }

    /// A new record for the request `from` sends; an earlier one with its id that may still
    /// hear of it makes both ambiguous.
    #[inline(always)]
    fn request_sent(&mut self, from: Party, id: RequestId, method: Method) -> Change {
        if let Method::Initialize { cancel_support } = method {
            self.declared_support[from.index()] = Some(cancel_support);
        }
        let prev = self.find(from, id);
        // (With no earlier record of the id, nothing about it was confused.)
        let confused_before = prev.is_some() && self.confused(from, id);
        let acked = self.rules().cancel_shape == CancelShape::AcknowledgedRequest;
        let reused = prev.map(|prev| {
            let live = self.reqs[prev].may_still_arrive(acked, self.fifo);
            if live {
                self.reqs[prev].ambiguous = true;
            }
            (prev, live)
        });
        let parent = self.nesting[from.index()]
            .take()
            .and_then(|p| self.find_held(from.peer(), p))
            .and_then(|p| u32::try_from(p).ok());
        // Sent for a request whose prompt turn its sender cancelled: that request ends
        // cancelled, and this one with it.
        let cascade_owed = parent.is_some_and(|p| self.reqs[p as usize].turn_cancelled);
        let ambiguous = self
            .reqs
            .iter()
            .any(|r| r.requester == from && r.id == id && r.ambiguous);
        self.reqs.push(Req {
            requester: from,
            id,
            initialize: method.is_initialize(),
            refused: false,
            task: method.is_task(),
            work: Work::Unseen,
            cancel_sent: false,
            cancel_received: false,
            cancel_received_open: false,
            session_cancel: false,
            responses_sent: 0,
            response_copies: 0,
            responses_received: 0,
            responses_lost: 0,
            responder_done: false,
            delivered: 0,
            request_lost: false,
            ack_cancelled: None,
            result_cancelled: None,
            activity_sent: 0,
            activity_settled: 0,
            cancels_sent: 0,
            cancels_received: 0,
            cancels_lost: 0,
            acks_sent: 0,
            acks_settled: 0,
            ambiguous,
            internal: false,
            parent,
            cascade_owed,
            resolved_cancelled: false,
            turn_cancelled: false,
            stream_closed: false,
            lost_during_work: false,
            close_read_open: false,
        });
        Change {
            rec: Some(self.reqs.len() - 1),
            before: None,
            reused,
            confused_before,
        }
    }

    #[inline(always)]
    fn lost(&mut self, from: Party, msg: Message) -> Change {
        let i = match msg {
            Message::Request { id, .. } => self.find_arriving(from, id),
            _ => self.record_of(from, msg),
        };
        let change = self.about(i);
        let Some(i) = i else {
            return change;
        };
        let r = &mut self.reqs[i];
        // Only the loss of the request or of its answer can excuse it from being resolved; a
        // lost cancel, acknowledgement or progress note just never arrives.
        match msg {
            Message::Activity { .. } => r.activity_settled = r.activity_settled.saturating_add(1),
            Message::Cancel { .. } => r.cancels_lost = r.cancels_lost.saturating_add(1),
            Message::CancelAck { .. } => r.acks_settled = r.acks_settled.saturating_add(1),
            Message::Response { .. } => r.responses_lost = r.responses_lost.saturating_add(1),
            Message::Request { .. } => r.request_lost = true,
            Message::MalformedCancel => {}
        }
        change
    }

    #[inline(always)]
    fn duplicated(&mut self, from: Party, msg: Message) -> Change {
        // A second copy on the wire: one more thing that may still arrive.
        let i = self.record_of(from, msg);
        let change = self.about(i);
        let Some(i) = i else {
            return change;
        };
        let r = &mut self.reqs[i];
        match msg {
            Message::Response { .. } => r.response_copies = r.response_copies.saturating_add(1),
            Message::Activity { .. } => r.activity_sent = r.activity_sent.saturating_add(1),
            Message::Cancel { .. } => r.cancels_sent = r.cancels_sent.saturating_add(1),
            Message::CancelAck { .. } => r.acks_sent = r.acks_sent.saturating_add(1),
            Message::Request { .. } | Message::MalformedCancel => {}
        }
        change
    }

    /// Whether `receiver` takes the cancels it reads: a session's (or task's) cancel always;
    /// the generic cancel unless the dialect negotiates support (ACP RFD) and it declared none.
    pub(super) fn heeds_cancels(&self, receiver: Party, session: bool) -> bool {
        session || !self.rules().negotiated || self.declared_support[receiver.index()] == Some(true)
    }

    /// The newest request instance of `requester` with `id`: the one its requester means by
    /// the id.
    pub(super) fn find(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.parentage().newest(requester, id)
    }

    /// The instance the responder means by `id`: the newest one it has received (where a
    /// reused id's new request is still on its way, the earlier one it holds), or else the
    /// newest.
    pub(super) fn find_held(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs
            .iter()
            .rposition(|r| r.requester == requester && r.id == id && r.work != Work::Unseen)
            .or_else(|| self.find(requester, id))
    }

    /// The instance whose request arrives (or is lost) when a request with `id` from
    /// `requester` does: the oldest one still on its way. Two requests with one id are alike
    /// on the wire, so which of them arrived cannot be told; each arrival takes one of them,
    /// and the responder then holds as many instances as it received (a reused id's second
    /// request is a request of its own, not an echo of the first).
    fn find_arriving(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs.iter().position(|r| {
            r.requester == requester && r.id == id && r.work == Work::Unseen && !r.request_lost
        })
    }

    /// The instance a requester resolves when it delivers an outcome for `id`: the newest one
    /// not yet resolved (a disconnect resolves an earlier instance of a reused id whose request
    /// was lost, after the newer one was answered), or else the newest.
    fn find_resolving(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs
            .iter()
            .rposition(|r| r.requester == requester && r.id == id && r.delivered == 0)
            .or_else(|| self.find(requester, id))
    }

    /// The record a message on the wire is about: what a requester sends (its request, its
    /// cancel) is about its newest instance of the id; what a responder sends (an answer, an
    /// acknowledgement, progress) about the instance it holds.
    fn record_of(&self, from: Party, msg: Message) -> Option<usize> {
        let id = msg.request_id()?;
        match msg {
            Message::Request { .. } | Message::Cancel { .. } | Message::MalformedCancel => {
                self.find(from, id)
            }
            Message::Response { .. } | Message::CancelAck { .. } | Message::Activity { .. } => {
                self.find_held(from.peer(), id)
            }
        }
    }

    /// Whether the receiver of `r` owes it silence because of a cancel: it read a cancel for
    /// it, while it still held it open where the dialect lets it ignore a cancel for a finished
    /// request (MCP 2025-11-25), or at all where nothing may follow a cancel (MCP 2026-07-28).
    pub(super) fn stopped_by_cancel(&self, r: &Req) -> bool {
        match self.rules().receiver_duty {
            ReceiverDuty::MustNotAnswer => r.cancel_received,
            ReceiverDuty::ShouldNotAnswer => r.cancel_received_open,
            ReceiverDuty::MustAnswer => false,
        }
    }

    /// What was lost of an unresolved descendant of record `i` whose loss excuses it, if any
    /// (a handler holds its answer until its children are resolved, so it waits on that loss
    /// too).
    pub(crate) fn descendant_loss(&self, i: usize) -> Option<Lost> {
        let mut stack: SmallVec<[usize; 8]> = SmallVec::new();
        stack.push(i);
        while let Some(k) = stack.pop() {
            for c in self.parentage().children(k) {
                let r = &self.reqs[c];
                if r.delivered > 0 {
                    continue;
                }
                if r.request_lost {
                    return Some(Lost::Request);
                }
                if r.responses_lost > 0 {
                    return Some(Lost::Response);
                }
                stack.push(c);
            }
        }
        None
    }

    /// The record at the root of record `i`'s request tree (`i` itself for a root).
    pub(super) fn root_of(&self, i: usize) -> usize {
        self.parentage().root(i)
    }

    /// Whether record `i`'s request tree holds a request whose id was reused while it was live
    /// (an `ambiguous` one): which of the two a message was about cannot be told.
    pub(super) fn tangled(&self, i: usize) -> bool {
        let root = self.root_of(i);
        (0..self.reqs.len()).any(|k| self.reqs[k].ambiguous && self.root_of(k) == root)
    }

    /// Whether `client` has cancelled prompt turn `p` (ACP `session/cancel`), a request of its
    /// own, and not yet seen it end.
    pub(super) fn turn_cancelled_by(&self, client: Party, p: &Req) -> bool {
        self.rules().session_cancel_method.is_some()
            && client == Party::Client
            && p.requester == client
            && !p.initialize
            && p.cancel_sent
            && p.delivered == 0
    }

    /// The rule a handler breaks by going on with request `r` (sending a request on its
    /// behalf, or leaving one uncancelled): `give_up`'s where it gave `r` up on its own, took no
    /// cancel for it, and the dialect's text sets a give-up apart; else `cancel`'s.
    pub(super) fn stop_rule(
        &self,
        r: &Req,
        give_up: InvariantId,
        cancel: InvariantId,
    ) -> InvariantId {
        if r.internal && !r.cancel_received && give_up.info().application(self.dialect).is_some() {
            give_up
        } else {
            cancel
        }
    }

    /// `client` holds record `k` for a prompt turn it cancelled: it owes it the outcome
    /// `cancelled`, and the requests it sent on its behalf the cascade.
    pub(super) fn end_turn_request(&mut self, client: Party, k: usize) {
        self.reqs[k].turn_cancelled = true;
        self.owe_cascade(client, k);
    }

    /// Record `i`'s handler (`handler`) took a cancel for it, or gave it up: each request it
    /// sent on its behalf and still unresolved is owed the cascade.
    pub(super) fn owe_cascade(&mut self, handler: Party, i: usize) {
        let Ok(i) = u32::try_from(i) else { return };
        for r in &mut self.reqs {
            if r.parent == Some(i) && r.requester == handler && r.delivered == 0 {
                r.cascade_owed = true;
            }
        }
    }

    /// Whether a finding about `requester`'s request `id` is one a live reuse confused: a
    /// record with that requester and id lies in a tree that holds an ambiguous request.
    pub(super) fn confused(&self, requester: Party, id: RequestId) -> bool {
        (0..self.reqs.len()).any(|i| {
            self.reqs[i].requester == requester && self.reqs[i].id == id && self.tangled(i)
        })
    }
}
