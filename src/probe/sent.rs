//! The messages the client (the probe, or an audited session's client) sent, as the judge
//! keeps them: each named by its index in the order sent, with the lookups the judge makes by
//! id answered from maps rather than by walking every message.
//!
//! Unbounded ([`Sent::new`], the probe's short sessions) every message is kept. Bounded
//! ([`Sent::bounded`], `audit` and `watch`) the messages the peer is known to have read, below
//! a mark that only rises ([`Sent::retire_below`]), are dropped: a retired message counts as
//! read, which is all the judge asks of a message below that mark. What the lookups say does
//! not depend on the mode.

use cancelcheck_model::{Message, RequestId};
use cancelcheck_properties::idset::IdSet;
use cancelcheck_wire::WireId;
use std::collections::{BTreeMap, VecDeque};

/// One message sent.
pub(super) struct SentMsg {
    /// The model messages it stands for (none for a barrier; one cancel per open prompt for
    /// ACP's `session/cancel`; the answer to a request of the peer's that the model knows).
    pub(super) models: Vec<Message>,
    /// The request's wire id, for requests.
    pub(super) request: Option<WireId>,
    /// Whether the peer is known to have read it.
    pub(super) read: bool,
    /// Streamable HTTP: the stream it went on.
    pub(super) stream: Option<String>,
    /// Streamable HTTP: the server answered its POST `202 Accepted` (it read it; when, among
    /// what other streams carry, is not known).
    pub(super) accepted: bool,
}

/// The messages sent, by index (see the module documentation).
pub(super) struct Sent {
    /// The index of `window[0]`: every message below it is retired (and was read).
    base: usize,
    window: VecDeque<SentMsg>,
    bounded: bool,
    /// For each wire id a request was sent with, the newest such request's index and whether
    /// the model knows nothing of it (a barrier).
    requests: BTreeMap<WireId, (usize, bool)>,
    /// For each model id, the first message that cancels it, while that message is kept.
    first_cancel: BTreeMap<RequestId, usize>,
    /// For each model id, the first message that is that request, while that message is kept.
    first_request: BTreeMap<RequestId, usize>,
    /// The model ids any message cancelled, and those any message requested (so that a later
    /// message is never taken for the first once the first is retired).
    cancelled: IdSet,
    requested: IdSet,
}

impl Sent {
    /// Keeps every message.
    pub(super) fn new() -> Self {
        Sent {
            base: 0,
            window: VecDeque::new(),
            bounded: false,
            requests: BTreeMap::new(),
            first_cancel: BTreeMap::new(),
            first_request: BTreeMap::new(),
            cancelled: IdSet::default(),
            requested: IdSet::default(),
        }
    }

    /// Drops messages once they are below the read mark ([`Sent::retire_below`]).
    pub(super) fn bounded() -> Self {
        Sent {
            bounded: true,
            ..Sent::new()
        }
    }

    /// How many messages were sent (the index the next one takes).
    pub(super) fn len(&self) -> usize {
        self.base + self.window.len()
    }

    /// How many messages it keeps.
    pub(super) fn held(&self) -> usize {
        self.window.len()
    }

    /// Whether none was sent.
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the next message.
    pub(super) fn push(&mut self, m: SentMsg) {
        let k = self.len();
        if let Some(w) = &m.request {
            self.requests.insert(w.clone(), (k, m.models.is_empty()));
        }
        for model in &m.models {
            match *model {
                Message::Cancel { id, .. } if self.cancelled.insert(id) => {
                    self.first_cancel.insert(id, k);
                }
                Message::Request { id, .. } if self.requested.insert(id) => {
                    self.first_request.insert(id, k);
                }
                _ => {}
            }
        }
        self.window.push_back(m);
    }

    /// Message `k`, unless retired (or never sent).
    pub(super) fn get(&self, k: usize) -> Option<&SentMsg> {
        self.window.get(k.checked_sub(self.base)?)
    }

    /// Message `k`, mutably, unless retired (or never sent).
    pub(super) fn get_mut(&mut self, k: usize) -> Option<&mut SentMsg> {
        self.window.get_mut(k.checked_sub(self.base)?)
    }

    /// Whether the peer is known to have read message `k` (a retired message was).
    pub(super) fn is_read(&self, k: usize) -> bool {
        self.get(k).is_none_or(|s| s.read)
    }

    /// Whether message `k` was read or, over HTTP, accepted.
    pub(super) fn is_taken(&self, k: usize) -> bool {
        self.get(k).is_none_or(|s| s.read || s.accepted)
    }

    /// The newest request sent with wire id `w`: its index, and whether it is a barrier (the
    /// model knows nothing of it). Of a retired request that is not a barrier nothing may be
    /// said (`None`): it was read, and that is all an answer to it could prove.
    pub(super) fn newest_request(&self, w: &WireId) -> Option<(usize, bool)> {
        self.requests.get(w).copied()
    }

    /// The first message that cancels model request `id` (`None` where none did, or where
    /// that message is retired: it was read, and that is all a lookup of it could prove).
    pub(super) fn first_cancel(&self, id: RequestId) -> Option<usize> {
        self.first_cancel.get(&id).copied()
    }

    /// The first message that is model request `id` (`None` where there is none, or where it
    /// is retired, as for [`Sent::first_cancel`]).
    pub(super) fn first_request(&self, id: RequestId) -> Option<usize> {
        self.first_request.get(&id).copied()
    }

    /// The first message not yet retired that `f` accepts.
    pub(super) fn position(&self, f: impl Fn(&SentMsg) -> bool) -> Option<usize> {
        self.window.iter().position(f).map(|i| self.base + i)
    }

    /// Bounded: retires every message below `mark` (each must have been read); unbounded:
    /// nothing.
    pub(super) fn retire_below(&mut self, mark: usize) {
        if !self.bounded {
            return;
        }
        while self.base < mark {
            let Some(m) = self.window.pop_front() else {
                break;
            };
            debug_assert!(m.read, "a message retired unread");
            if let Some(w) = &m.request
                && self.requests.get(w) == Some(&(self.base, false))
            {
                self.requests.remove(w);
            }
            for model in &m.models {
                let firsts = match *model {
                    Message::Cancel { id, .. } => Some((&mut self.first_cancel, id)),
                    Message::Request { id, .. } => Some((&mut self.first_request, id)),
                    _ => None,
                };
                if let Some((firsts, id)) = firsts
                    && firsts.get(&id) == Some(&self.base)
                {
                    firsts.remove(&id);
                }
            }
            self.base += 1;
        }
    }
}
