//! Request trees: the requests sent on behalf of a received one, cancelled with it, and its
//! answer held back until they resolve.

use super::Endpoint;
use crate::id::RequestId;
use crate::io::{Anomaly, Command, Output, Refusal};
use crate::message::{CancelCause, Reply};
use crate::request::{Incoming, Outgoing};

impl Endpoint {
    /// Whether a request this endpoint sent on behalf of received request `parent` is still
    /// unresolved.
    fn has_open_children(&self, parent: RequestId) -> bool {
        self.outgoing
            .iter()
            .any(|e| e.parent == Some(parent) && e.state.is_open())
    }

    /// Cancels the requests sent on behalf of received request `parent`, which was just
    /// cancelled (its cascade), as far as its policy reaches.
    pub(super) fn cascade(&mut self, parent: RequestId, out: &mut Vec<Output>) {
        let policy = self.policy();
        for k in 0..self.outgoing.len() {
            let e = self.outgoing[k];
            if policy.cascade_reaches(e.parent, parent) && e.state == Outgoing::Pending {
                self.cancel(e.id, CancelCause::Parent, Command::Cancel(e.id), out);
            }
        }
    }

    /// Holds back `reply` to received request `i` while requests sent on its behalf are
    /// unresolved (a handler answers after its children, where its policy waits); whether it did.
    pub(super) fn defer(&mut self, i: usize, reply: Reply) -> bool {
        let e = self.incoming[i];
        if !self.policy().waits_for_children() || !self.has_open_children(e.id) {
            return false;
        }
        if e.state == Incoming::Working
            && !matches!(reply, Reply::Full | Reply::Partial)
            && let Ok(next) = e.state.note_cancel()
        {
            self.incoming[i].state = next;
        }
        self.incoming[i].owed = Some(reply);
        true
    }

    /// Sends the answer held back for received request `parent` once its last child is
    /// resolved.
    pub(super) fn settle(&mut self, parent: Option<RequestId>, out: &mut Vec<Output>) {
        let Some(p) = parent else { return };
        let Some(i) = self.find_in(p) else { return };
        let Some(reply) = self.incoming[i].owed else {
            return;
        };
        if self.has_open_children(p) {
            return;
        }
        self.incoming[i].owed = None;
        let state = self.incoming[i].state;
        let next = match reply {
            Reply::Full | Reply::Partial => state.complete(),
            _ => state.cancel(true),
        };
        match next {
            Ok(next) => {
                self.incoming[i].state = next;
                self.respond(p, reply, out);
            }
            Err(e) => out.push(Output::Anomaly(Anomaly::Illegal(p, e))),
        }
    }

    /// A request on behalf of received request `parent`, whose work must be running here and
    /// not cancelled (unless its policy keeps the work on after the cancel).
    pub(super) fn send_nested(&mut self, parent: RequestId, cmd: Command, out: &mut Vec<Output>) {
        let live = self.find_running(parent).is_some_and(|i| {
            self.incoming[i].state == Incoming::Working || !self.policy().stops_work()
        });
        if !live {
            out.push(Output::Refused(cmd, Refusal::NoParent));
            return;
        }
        self.send_work(Some(parent), false, cmd, out);
    }
}
