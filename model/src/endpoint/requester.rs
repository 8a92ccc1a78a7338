//! The requester side: numbering, sending, cancelling and resolving this party's own requests.

use super::{Endpoint, OutEntry, Session};
use crate::dialect::{CancelSenders, CancelShape};
use crate::id::{IdStr, Party, RequestId};
use crate::io::{Anomaly, Command, Ignored, Output, Refusal, Timer};
use crate::message::{CancelCause, Message, Method, Outcome, Reply};
use crate::request::Outgoing;

impl Endpoint {
    fn alloc_id(&mut self) -> RequestId {
        if self.policy().reuses_live_ids() {
            let given_up = self.outgoing.iter_mut().rev().find(|e| {
                !e.reused
                    && matches!(
                        e.state,
                        Outgoing::Abandoned(_) | Outgoing::CancelRequested(_)
                    )
            });
            if let Some(e) = given_up {
                e.reused = true;
                return e.id;
            }
        }
        if self.cfg.ids.reuse_answered {
            let answered = self
                .outgoing
                .iter_mut()
                .rev()
                .find(|e| !e.reused && !e.method.is_initialize() && e.state == Outgoing::Done);
            if let Some(e) = answered {
                e.reused = true;
                return e.id;
            }
        }
        let n = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        if self.cfg.ids.strings || self.rules().string_ids {
            RequestId::Str(IdStr::decimal(n))
        } else {
            RequestId::Int(n)
        }
    }

    pub(super) fn find_out(&self, id: RequestId) -> Option<usize> {
        self.outgoing.iter().rposition(|e| e.id == id)
    }

    pub(super) fn initialize(&mut self, out: &mut Vec<Output>) {
        if self.session != Session::NotStarted {
            out.push(Output::Refused(Command::Initialize, Refusal::NoSession));
            return;
        }
        if self.rules().initialize_method.is_none() {
            self.session = Session::Ready {
                peer_cancel_support: true,
            };
            return;
        }
        let id = self.alloc_id();
        self.outgoing.push(OutEntry {
            id,
            method: Method::Initialize {
                cancel_support: self.cfg.cancel_support,
            },
            state: Outgoing::Pending,
            timer: false,
            reused: false,
            parent: None,
        });
        self.session = Session::Initializing(id);
        out.push(Output::Send(Message::Request {
            id,
            method: Method::Initialize {
                cancel_support: self.cfg.cancel_support,
            },
        }));
        if self.cfg.init_timeout {
            out.push(Output::ArmTimer(Timer::InitTimeout));
        }
    }

    pub(super) fn send_work(
        &mut self,
        parent: Option<RequestId>,
        task: bool,
        cmd: Command,
        out: &mut Vec<Output>,
    ) {
        if !self.is_ready() {
            out.push(Output::Refused(cmd, Refusal::NoSession));
            return;
        }
        if self.cfg.party == Party::Server && self.rules().server_work_method.is_none() {
            // ABP: the app answers the agent's calls and makes none of its own.
            out.push(Output::Refused(cmd, Refusal::WrongParty));
            return;
        }
        // Only a dialect with tasks marks a request task-augmented.
        let task = task && self.rules().task_cancel_method.is_some();
        let method = Method::work_of(self.cfg.party, task);
        let id = self.alloc_id();
        let timer = self.cfg.request_timeouts;
        self.outgoing.push(OutEntry {
            id,
            method,
            state: Outgoing::Pending,
            timer,
            reused: false,
            parent,
        });
        if let Some(parent) = parent {
            out.push(Output::Nested { parent, child: id });
        }
        out.push(Output::Send(Message::Request { id, method }));
        if timer {
            out.push(Output::ArmTimer(Timer::RequestTimeout(id)));
        }
    }

    pub(super) fn init_timeout(&mut self, out: &mut Vec<Output>) {
        if let Session::Initializing(id) = self.session {
            if self.rules().initialize_cancel.while_pending() || self.policy().cancels_initialize()
            {
                self.cancel(id, CancelCause::Timeout, Command::Cancel(id), out);
            }
            // Otherwise a correct requester keeps waiting: `initialize` may not be cancelled.
        } else {
            out.push(Output::Ignored(Ignored::StaleTimer));
        }
    }

    pub(super) fn disarm(&mut self, i: usize, out: &mut Vec<Output>) {
        let e = &mut self.outgoing[i];
        if e.timer {
            e.timer = false;
            out.push(Output::DisarmTimer(Timer::RequestTimeout(e.id)));
        }
        if e.method.is_initialize() && self.cfg.init_timeout {
            out.push(Output::DisarmTimer(Timer::InitTimeout));
        }
    }

    pub(super) fn cancel(
        &mut self,
        id: RequestId,
        cause: CancelCause,
        cmd: Command,
        out: &mut Vec<Output>,
    ) {
        let rules = self.rules();
        let policy = self.policy();
        let refuse = |out: &mut Vec<Output>, why| {
            if cause == CancelCause::User {
                out.push(Output::Refused(cmd, why));
            } else {
                out.push(Output::Ignored(Ignored::StaleTimer));
            }
        };
        let Some(i) = self.find_out(id) else {
            return refuse(out, Refusal::NotPending);
        };
        let entry = self.outgoing[i];
        match entry.state {
            Outgoing::Done if policy.cancels_answered() && cause == CancelCause::User => {
                out.push(Output::Send(Message::Cancel { id, session: false }));
                return;
            }
            Outgoing::Done | Outgoing::Abandoned(_) => return refuse(out, Refusal::NotPending),
            Outgoing::CancelRequested(_) => {
                // An acknowledged cancel may be repeated: each one gets the same answer.
                if rules.cancel_shape == CancelShape::AcknowledgedRequest
                    && cause == CancelCause::User
                {
                    out.push(Output::Send(Message::Cancel { id, session: false }));
                } else {
                    refuse(out, Refusal::AlreadyCancelling);
                }
                return;
            }
            Outgoing::Pending => {}
        }
        if entry.method.is_initialize()
            && !rules.initialize_cancel.while_pending()
            && !policy.cancels_initialize()
        {
            return refuse(out, Refusal::InitializeNotCancellable);
        }
        if rules.cancel_senders == CancelSenders::ClientOnly
            && self.cfg.party == Party::Server
            && !policy.server_cancels()
        {
            if cause == CancelCause::Parent {
                // It may not ask the peer to stop, so it gives up locally.
                return self.give_up(i, cause, true, out);
            }
            return refuse(out, Refusal::WrongParty);
        }
        let supported = self.peer_takes_cancels();
        let reckless = policy.ignores_negotiation()
            || (policy.cancels_initialize() && entry.method.is_initialize());
        if !supported && !reckless {
            if cause != CancelCause::User {
                // It cannot ask the peer to stop, so it gives up locally; the answer is ignored.
                if entry.method.is_initialize() {
                    self.session = Session::Failed;
                }
                self.give_up(i, cause, true, out);
            } else {
                out.push(Output::Refused(cmd, Refusal::NotNegotiated));
            }
            return;
        }
        // The client's work has a cancel of its own where the dialect has one (ACP's
        // `session/cancel` of a prompt turn).
        // A task-augmented request is cancelled by its task's cancel (MCP's `tasks/cancel`).
        let session = (entry.method.is_work() && rules.session_cancel_method.is_some())
            || (entry.method.is_task()
                && rules.task_cancel_method.is_some()
                && policy.cancels_tasks_as_tasks());
        let named = match entry.parent {
            Some(parent) if cause == CancelCause::Parent => policy.cascade_names(id, parent),
            _ => id,
        };
        if !policy.tells_the_peer() && cause != CancelCause::Parent {
            if cause == CancelCause::Timeout {
                self.outgoing[i].timer = false;
            }
            return self.give_up(i, cause, cause != CancelCause::Timeout, out);
        }
        if self.cfg.streams && rules.stream_close_cancels && self.cfg.party == Party::Client {
            // Streamable HTTP: closing the request's stream is the cancel.
            out.push(Output::CloseStream(id));
        } else {
            out.push(Output::Send(Message::Cancel { id: named, session }));
        }
        if session && self.ends_turn_requests() {
            // ACP: "The client MUST answer every pending `session/request_permission` with
            // `{"outcome":{"outcome":"cancelled"}}`" once it has cancelled the prompt turn.
            // It answers each so when its work ends (or when the agent's cancel for it comes);
            // one whose work is over waits for its children, which are cancelled now.
            for k in 0..self.incoming.len() {
                let e = self.incoming[k];
                if e.session == Some(id) && e.state.is_open() {
                    self.incoming[k].turn_cancelled = true;
                    if matches!(e.owed, Some(Reply::Full | Reply::Partial)) {
                        self.incoming[k].owed = Some(Reply::Cancelled);
                        self.cascade(e.id, out);
                    }
                }
            }
        }
        if rules.requester_waits {
            self.outgoing[i].state = Outgoing::CancelRequested(cause);
            if cause == CancelCause::Timeout {
                self.outgoing[i].timer = false;
            } else {
                self.disarm(i, out);
            }
        } else {
            if cause == CancelCause::Timeout {
                self.outgoing[i].timer = false;
            }
            self.give_up(i, cause, cause != CancelCause::Timeout, out);
        }
    }

    /// Resolves sent request `i` as cancelled without waiting for an answer (a late one is
    /// ignored), and answers its parent if that was waiting for it.
    /// With `disarm`, its timers are disarmed (not when the one that fired gave it up).
    pub(super) fn give_up(
        &mut self,
        i: usize,
        cause: CancelCause,
        disarm: bool,
        out: &mut Vec<Output>,
    ) {
        if disarm {
            self.disarm(i, out);
        }
        let e = &mut self.outgoing[i];
        e.state = Outgoing::Abandoned(cause);
        let (id, parent) = (e.id, e.parent);
        out.push(Output::Deliver {
            id,
            outcome: Outcome::Cancelled(cause),
        });
        self.settle(parent, out);
    }

    pub(super) fn on_response(&mut self, id: RequestId, reply: Reply, out: &mut Vec<Output>) {
        let Some(i) = self.find_out(id) else {
            out.push(Output::Anomaly(Anomaly::UnsolicitedResponse(id)));
            return;
        };
        let entry = self.outgoing[i];
        let outcome = match entry.state {
            Outgoing::Pending => Outcome::Reply(reply),
            Outgoing::CancelRequested(cause) => {
                if reply.is_cancelled() {
                    Outcome::Cancelled(cause)
                } else {
                    Outcome::Reply(reply)
                }
            }
            Outgoing::Abandoned(_) => {
                if self.policy().delivers_late_answers() {
                    // (Its parent settled when it was given up.)
                    self.outgoing[i].state = Outgoing::Done;
                    out.push(Output::Deliver {
                        id,
                        outcome: Outcome::Reply(reply),
                    });
                } else {
                    out.push(Output::Ignored(Ignored::LateAnswer(id)));
                }
                return;
            }
            Outgoing::Done => {
                out.push(Output::Anomaly(Anomaly::DuplicateResponse(id)));
                return;
            }
        };
        self.disarm(i, out);
        self.outgoing[i].state = Outgoing::Done;
        if entry.method.is_initialize() {
            self.session = match reply {
                Reply::Initialized { cancel_support } => Session::Ready {
                    peer_cancel_support: cancel_support,
                },
                _ => Session::Failed,
            };
        }
        out.push(Output::Deliver { id, outcome });
        self.settle(entry.parent, out);
    }
}
