//! The judge's table of the work requests the client sent: when each was sent and first
//! answered, and what it knew of the cancels when it was sent.
//!
//! Unbounded (the probe) every request keeps its whole entry. Bounded (`audit`, `watch`), a
//! request with an integer id answered without a tool's error keeps only what the end of the
//! session asks of it: where it can be the control that shows a request still open dropped
//! (it was sent after the peer had read a cancel), the least such id for each stretch of
//! cancels between two open requests. What it keeps grows with the requests open, not with
//! the session. Every question the table answers gets the same answer either way: when a
//! request was sent is asked at its first answer only, and the first control only after an
//! open request (`finish`).

use cancelcheck_model::RequestId;
use cancelcheck_properties::idset::IdSet;
use cancelcheck_wire::WireId;

/// How many more controls than twice the open requests the bounded table holds before it
/// merges them.
const MERGE_SLACK: usize = 64;
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
    /// How many entries are not answered yet.
    open: usize,
    /// Bounded: the least id of a compacted request sent after the peer had read a cancel, by
    /// that cancel; cancels in one stretch between two open requests' places are merged
    /// under the stretch's last ([`WorkTable::merge_controls`]).
    controls: BTreeMap<usize, i64>,
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
            open: 0,
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

    /// Adds `id`'s entry, unless it has one (a reused id keeps its first); says whether it
    /// was new.
    pub(super) fn insert(&mut self, id: RequestId, w: WorkTimes) -> bool {
        if !self.ids.insert(id) {
            return false;
        }
        self.open += usize::from(w.answered_us.is_none());
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

    /// Records `id`'s first answer, at `t_us`, with the tool's error it carried, and whether
    /// it refused the work; gives when `id` was sent if this was its first answer (None: not a
    /// work request, or answered before).
    pub(super) fn answer(
        &mut self,
        id: RequestId,
        t_us: u64,
        tool_error: Option<String>,
        refused: bool,
    ) -> Option<u64> {
        let w = self.full.get_mut(&id).filter(|w| w.answered_us.is_none())?;
        w.answered_us = Some(t_us);
        w.tool_error = tool_error;
        self.open -= 1;
        let sent = w.sent_us;
        if self.last_answered.as_ref().is_none_or(|(l, _)| *l < id) {
            self.last_answered = Some((id, w.clone()));
        }
        if let (true, RequestId::Int(n), None) = (self.bounded, id, &w.tool_error) {
            let after = w.after_read_cancel;
            self.full.remove(&id);
            if let (Some(k), false) = (after, refused) {
                let least = self.controls.entry(k).or_insert(n);
                *least = (*least).min(n);
                if self.controls.len() > 2 * self.open + MERGE_SLACK {
                    self.merge_controls();
                }
            }
        }
        Some(sent)
    }

    /// Merges the controls of the cancels in each stretch between two open requests' places
    /// into one, under the stretch's last cancel, and drops those before every open request.
    /// A control counts for an open request sent at `at` if its cancel came after `at`
    /// ([`WorkTable::first_control`]): the same for every cancel of a stretch, so the least id
    /// of the stretch answers for all of them. A request sent later comes after every cancel
    /// kept: none counts for it. What is left is at most one entry per open request.
    fn merge_controls(&mut self) {
        let mut open: Vec<usize> = self
            .full
            .values()
            .filter(|w| w.answered_us.is_none())
            .map(|w| w.at)
            .collect();
        open.sort_unstable();
        let mut merged = BTreeMap::new();
        // (stretch, its last cancel, its least id)
        let mut group: Option<(usize, usize, i64)> = None;
        for (&k, &n) in &self.controls {
            let stretch = open.partition_point(|&a| a < k);
            if stretch == 0 {
                continue;
            }
            match &mut group {
                Some((s, last, least)) if *s == stretch => {
                    *last = k;
                    *least = (*least).min(n);
                }
                _ => {
                    if let Some((_, last, least)) = group {
                        merged.insert(last, least);
                    }
                    group = Some((stretch, k, n));
                }
            }
        }
        if let Some((_, last, least)) = group {
            merged.insert(last, least);
        }
        self.controls = merged;
    }

    /// How many entries and controls it keeps.
    pub(super) fn held(&self) -> usize {
        self.full.len() + self.controls.len()
    }

    /// The answered request of the greatest id, as it was when answered.
    pub(super) fn last_answered(&self) -> Option<&WorkTimes> {
        self.last_answered.as_ref().map(|(_, w)| w)
    }

    /// The first request, in id order, answered without a tool's error, not `refused` (a
    /// compacted one: not refused by its first answer), and sent after the peer had read a
    /// cancel sent after message `at`, where `at` is where a request still open was sent: its
    /// wire id.
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
            .map(|(_, &n)| n)
            .min()
            .map(|n| (RequestId::Int(n), Some(WireId::Int(n))));
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
    /// sent (at its first answer), which answered request came last, and the first control
    /// after each request still open, before and after its controls are merged.
    #[test]
    fn a_compacted_table_answers_as_a_whole_one() {
        let (mut whole, mut bounded) = (WorkTable::new(false), WorkTable::new(true));
        let refused: BTreeSet<RequestId> = [RequestId::Int(12), RequestId::Int(20)].into();
        // Requests 1..=40 sent at message `id`, each after the last cancel read before it
        // (every tenth message is a cancel read); all but 17 and 33 answered, 25 with a tool's
        // error, 12 and 20 refused.
        for t in [&mut whole, &mut bounded] {
            for id in 1..=40usize {
                let arc = (id >= 10).then_some(id / 10 * 10);
                assert!(t.insert(RequestId::Int(id as i64), entry(id, arc, 100 * id as u64)));
            }
            assert!(!t.insert(RequestId::Int(3), entry(99, None, 0)));
            for id in (1..=40i64).filter(|id| ![17, 33].contains(id)) {
                let tool = (id == 25).then(|| "no such tool".to_string());
                let r = refused.contains(&RequestId::Int(id));
                let sent = t.answer(RequestId::Int(id), 5000 + id as u64, tool, r);
                assert_eq!(sent, Some(100 * id as u64));
            }
            assert_eq!(t.answer(RequestId::Int(5), 1, None, false), None);
        }
        let controls = |t: &WorkTable| [17, 33].map(|at| t.first_control(at, &refused));
        assert_eq!(controls(&whole), controls(&bounded));
        assert_eq!(controls(&whole)[0], Some(Some(WireId::Int(21))));
        bounded.merge_controls();
        assert_eq!(controls(&whole), controls(&bounded));
        assert!(bounded.controls.len() <= 2, "{:?}", bounded.controls);
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

    /// Along a long session with a few requests left open (one at the start, one every
    /// thousand), the bounded table holds a few entries per open request and finds the control
    /// the whole one finds after each.
    #[test]
    fn the_controls_held_grow_with_the_open_requests_not_the_session() {
        let (mut whole, mut bounded) = (WorkTable::new(false), WorkTable::new(true));
        let none = BTreeSet::new();
        let open = |id: usize| id == 1 || id % 1000 == 500;
        let mut most = 0;
        for id in 1..=20_000usize {
            let arc = (id >= 10).then_some(id / 10 * 10);
            for t in [&mut whole, &mut bounded] {
                t.insert(RequestId::Int(id as i64), entry(id, arc, id as u64));
                if !open(id) {
                    t.answer(RequestId::Int(id as i64), id as u64 + 1, None, false);
                }
            }
            most = most.max(bounded.controls.len());
        }
        assert_eq!(bounded.open, 21);
        assert!(most <= 2 * 21 + MERGE_SLACK + 1, "controls held: {most}");
        for at in (1..=20_000).filter(|&id| open(id)) {
            let w = whole.first_control(at, &none);
            assert_eq!(w, bounded.first_control(at, &none), "after {at}");
            assert!(w.is_some() || at > 19_990, "after {at}");
        }
    }
}
