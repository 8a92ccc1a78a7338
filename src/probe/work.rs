//! The judge's table of the work requests the client sent: when each was sent and first
//! answered, and what it knew of the cancels when it was sent.
//!
//! Unbounded (the probe) every request keeps its whole entry. Bounded (`audit`, `watch`), a
//! request with an integer id answered without a tool's error keeps only what the end of the
//! session and a later answer ask of it: when it was sent, and, where it can be the control
//! that shows another request dropped (it was sent after the peer had read a cancel), that
//! cancel, with the ids sent after the same cancel kept as runs. Every question the table
//! answers gets the same answer either way.

use cancelcheck_model::RequestId;
use cancelcheck_properties::idset::IdSet;
use cancelcheck_wire::WireId;
use std::collections::{BTreeMap, BTreeSet};

/// When a work request of the client's was sent and first answered (record times).
#[derive(Clone)]
pub(super) struct WorkTimes {
    /// Its index among the messages the client sent.
    pub(super) at: usize,
    /// The last cancel (an index among the messages sent) the peer was proved to have read
    /// when this request was sent.
    pub(super) after_read_cancel: Option<usize>,
    /// The work requests the peer was known to have taken (read, or accepted over HTTP) when
    /// this one was sent: over HTTP, where POSTs are read in any order, only those were read
    /// before it (empty on stdio, where nothing asks).
    pub(super) taken_before: BTreeSet<RequestId>,
    pub(super) wire: Option<WireId>,
    pub(super) sent_us: u64,
    pub(super) answered_us: Option<u64>,
    /// The text of an MCP tool's error result (`isError: true`), if it answered so.
    pub(super) tool_error: Option<String>,
}

impl WorkTimes {
    /// Its id as sent, and how many milliseconds its answer took (0 if none came).
    pub(super) fn id_and_ms(&self) -> (String, u64) {
        let id = self
            .wire
            .as_ref()
            .map(WireId::to_json_text)
            .unwrap_or_default();
        let ms = self.answered_us.unwrap_or(0).saturating_sub(self.sent_us) / 1000;
        (id, ms)
    }
}

/// The work requests (see the module documentation).
pub(super) struct WorkTable {
    /// The requests with their whole entry, by id.
    full: BTreeMap<RequestId, WorkTimes>,
    bounded: bool,
    /// Every id in the table.
    ids: IdSet,
    /// Bounded: when each compacted request was sent.
    sent_us: BTreeMap<i64, u64>,
    /// Bounded: the compacted requests sent after the peer had read a cancel, by that cancel.
    controls: BTreeMap<usize, IdSet>,
    /// The answered request of the greatest id, as it was answered.
    last_answered: Option<(RequestId, WorkTimes)>,
}

impl WorkTable {
    /// A table that keeps every entry whole (`bounded` false) or compacts answered ones.
    pub(super) fn new(bounded: bool) -> Self {
        WorkTable {
            full: BTreeMap::new(),
            bounded,
            ids: IdSet::default(),
            sent_us: BTreeMap::new(),
            controls: BTreeMap::new(),
            last_answered: None,
        }
    }

    /// Keeps every entry whole from now on (over Streamable HTTP, where the end of the session
    /// asks what each request knew of the others).
    pub(super) fn keep_whole(&mut self) {
        self.bounded = false;
    }

    /// Whether no work request was sent.
    pub(super) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether `id` is a work request.
    pub(super) fn contains(&self, id: RequestId) -> bool {
        self.ids.contains(id)
    }

    /// Adds `id`'s entry, unless it has one (a reused id keeps its first); says whether it
    /// was new.
    pub(super) fn insert(&mut self, id: RequestId, w: WorkTimes) -> bool {
        if !self.ids.insert(id) {
            return false;
        }
        self.full.insert(id, w);
        true
    }

    /// The entries kept whole, in id order (unbounded: every entry; bounded: every one still
    /// unanswered, answered with a tool's error, or of an id that is not an integer).
    pub(super) fn whole(&self) -> impl DoubleEndedIterator<Item = (&RequestId, &WorkTimes)> {
        self.full.iter()
    }

    /// `id`'s whole entry, where it is kept whole.
    pub(super) fn get(&self, id: RequestId) -> Option<&WorkTimes> {
        self.full.get(&id)
    }

    /// When `id` was sent, if it is a work request.
    pub(super) fn sent_us(&self, id: RequestId) -> Option<u64> {
        match (self.full.get(&id), id) {
            (Some(w), _) => Some(w.sent_us),
            (None, RequestId::Int(n)) => self.sent_us.get(&n).copied(),
            _ => None,
        }
    }

    /// Records `id`'s first answer, at `t_us`, with the tool's error it carried; says whether
    /// this was its first answer (false: not a work request, or answered before).
    pub(super) fn answer(&mut self, id: RequestId, t_us: u64, tool_error: Option<String>) -> bool {
        let Some(w) = self.full.get_mut(&id).filter(|w| w.answered_us.is_none()) else {
            return false;
        };
        w.answered_us = Some(t_us);
        w.tool_error = tool_error;
        if self.last_answered.as_ref().is_none_or(|(l, _)| *l < id) {
            self.last_answered = Some((id, w.clone()));
        }
        if let (true, RequestId::Int(n), None) = (self.bounded, id, &w.tool_error) {
            let sent = w.sent_us;
            let after = w.after_read_cancel;
            self.full.remove(&id);
            self.sent_us.insert(n, sent);
            if let Some(k) = after {
                self.controls.entry(k).or_default().insert(id);
            }
        }
        true
    }

    /// The answered request of the greatest id, as it was when answered.
    pub(super) fn last_answered(&self) -> Option<&WorkTimes> {
        self.last_answered.as_ref().map(|(_, w)| w)
    }

    /// The first request, in id order, answered without a tool's error, not `refused`, and
    /// sent after the peer had read a cancel sent after message `at`: its wire id.
    pub(super) fn first_control(
        &self,
        at: usize,
        refused: &BTreeSet<RequestId>,
    ) -> Option<Option<WireId>> {
        let whole = self
            .full
            .iter()
            .find(|&(c, cw)| {
                cw.answered_us.is_some()
                    && cw.tool_error.is_none()
                    && !refused.contains(c)
                    && cw.after_read_cancel.is_some_and(|k| at < k)
            })
            .map(|(c, cw)| (*c, cw.wire.clone()));
        let compact = self
            .controls
            .range(at.saturating_add(1)..)
            .filter_map(|(_, ids)| ids.iter().find(|c| !refused.contains(c)))
            .min()
            .map(|c| match c {
                RequestId::Int(n) => (c, Some(WireId::Int(n))),
                _ => (c, None),
            });
        match (whole, compact) {
            (Some(a), Some(b)) => Some(if a.0 < b.0 { a.1 } else { b.1 }),
            (a, b) => a.or(b).map(|x| x.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at: usize, after_read_cancel: Option<usize>, sent_us: u64) -> WorkTimes {
        WorkTimes {
            at,
            after_read_cancel,
            taken_before: BTreeSet::new(),
            wire: Some(WireId::Int(at as i64)),
            sent_us,
            answered_us: None,
            tool_error: None,
        }
    }

    /// A bounded table answers every question as an unbounded one does: when a request was
    /// sent, which answered request came last, and the first control after a message.
    #[test]
    fn a_compacted_table_answers_as_a_whole_one() {
        let (mut whole, mut bounded) = (WorkTable::new(false), WorkTable::new(true));
        // Requests 1..=40 sent at message `id`, each after the last cancel read before it
        // (every tenth message is a cancel read); all but 17 and 33 answered, 25 with a tool's
        // error, 12 refused.
        for t in [&mut whole, &mut bounded] {
            for id in 1..=40usize {
                let arc = (id >= 10).then_some(id / 10 * 10);
                assert!(t.insert(RequestId::Int(id as i64), entry(id, arc, 100 * id as u64)));
            }
            assert!(!t.insert(RequestId::Int(3), entry(99, None, 0)));
            for id in (1..=40i64).filter(|id| ![17, 33].contains(id)) {
                let tool = (id == 25).then(|| "no such tool".to_string());
                assert!(t.answer(RequestId::Int(id), 5000 + id as u64, tool));
            }
            assert!(!t.answer(RequestId::Int(5), 1, None));
        }
        let refused: BTreeSet<RequestId> = [RequestId::Int(12), RequestId::Int(20)].into();
        for at in [0, 9, 10, 17, 19, 29, 33, 39, 40] {
            assert_eq!(
                whole.first_control(at, &refused),
                bounded.first_control(at, &refused),
                "after message {at}"
            );
        }
        for id in 0..=41 {
            let id = RequestId::Int(id);
            assert_eq!(whole.sent_us(id), bounded.sent_us(id));
            assert_eq!(whole.contains(id), bounded.contains(id));
        }
        let last = |t: &WorkTable| t.last_answered().map(WorkTimes::id_and_ms);
        assert_eq!(last(&whole), last(&bounded));
        let unanswered = |t: &WorkTable| {
            t.whole()
                .filter(|(_, w)| w.answered_us.is_none())
                .map(|(id, _)| *id)
                .collect::<Vec<_>>()
        };
        assert_eq!(unanswered(&whole), unanswered(&bounded));
        assert!(
            bounded.whole().count() < 5,
            "answered entries are compacted"
        );
    }
}
