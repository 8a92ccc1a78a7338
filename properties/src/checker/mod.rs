//! The online checker: one pass over an [`Event`] stream, one [`Verdict`].
//!
//! It keeps a small record per request instance (requester, id, generation by order of
//! sending) in a vector reserved up front, so feeding an event does not allocate. Only the
//! first violation of each invariant is recorded, with the index of the event that broke it.
//!
//! Each event is read in two passes. First `facts` records what it changed, in one place for
//! every event kind: the request it is about (found by the one lookup that suits who sent
//! what), counts of what is on the wire, what each party declared or did. Then each family of
//! invariants judges the event against the records, one file each, in the order of
//! `Checker::observe`: `races` (the races reached), `streams` (Streamable HTTP), `parties`,
//! `initialize`, `ids`, `activity`, `trees`, `resolution`, `cancel_answers`, `acks` and
//! `quiescence` (what a quiescent run owes). Adding an invariant is adding its id, its catalog row, its check in one family, and
//! its vectors (see `docs/checker.md`).

mod acks;
mod activity;
mod cancel_answers;
mod facts;
mod ids;
mod initialize;
mod parentage;
mod parties;
mod quiescence;
mod races;
mod resolution;
mod retired;
mod streams;
mod trees;
mod verdict;

pub use parentage::Parentage;
pub use verdict::{Excuse, Lost, PropertySet, SetAside, Status, Verdict, Violation};

use crate::event::Event;
use crate::invariant::InvariantId;
use cancelcheck_model::dialect::DialectRules;
use cancelcheck_model::pack::{
    CloneState, Pack, PackError, Reader, Relabel, State, Transient, pack_seq, put_varint,
    unpack_seq,
};
use cancelcheck_model::{Dialect, Party, RequestId};
use facts::Req;
use smallvec::SmallVec;

/// The inverse of a permutation of record indices: where each record went.
fn inverse(order: &[u32]) -> SmallVec<[u32; 16]> {
    let mut place: SmallVec<[u32; 16]> = smallvec::smallvec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        place[old as usize] = new as u32;
    }
    place
}

/// The online checker for one dialect.
///
/// Its state is declared here once: the fields without a role are packed ([`State`]:
/// everything that affects the checker's future verdicts, its per-request records and what it
/// learnt of the session, and the invariants already broken; not the verdict so far nor what
/// the party being fed is doing within one step), renamed ([`Relabel`]: ids renamed, then the
/// records put back in [canonical order](Checker::set_canonical_order) with their parent links
/// renumbered) and copied (`clone_from` keeps the target's allocations). Two checkers of one
/// dialect whose packed bytes are equal judge every continuation alike (with
/// [`Checker::set_canonical_order`], alike in what breaks and what is reached; see there).
/// Unpacking starts a fresh verdict: the races reached and the violations found from there on.
#[derive(PartialEq, Eq, Hash, Debug, State, Relabel, CloneState)]
#[state(relabel_then = sort_records)]
pub struct Checker {
    #[state(config)]
    dialect: Dialect,
    /// Packed by `pack_reqs` (in canonical order where that is set).
    #[state(custom)]
    reqs: SmallVec<[Req; 6]>,
    found: PropertySet,
    #[state(transient)]
    verdict: Verdict,
    /// Cancellation support each party declared in its initialize answer.
    declared_support: [Option<bool>; 2],
    /// The cancel each party is handling, if its input is one (to blame a crash on it).
    #[state(transient)]
    handling_cancel: [Option<CancelRead>; 2],
    /// The request of its own that the input being handled by each party asks to cancel (its
    /// application's cancel command, or that request's timer): what may cancel a request
    /// besides a cascade.
    #[state(transient)]
    commanded: [Option<RequestId>; 2],
    /// The parent each party named in an `Output::Nested`, for the request it sends next.
    #[state(transient)]
    nesting: [Option<RequestId>; 2],
    crashed: [bool; 2],
    /// Acknowledged cancels (ABP) each party has read and not yet answered.
    cancels_unanswered: [u8; 2],
    disconnected: bool,
    /// Whether the link delivers each direction in order.
    #[state(config)]
    fifo: bool,
    /// Whether the records pack in canonical order (see [`Checker::set_canonical_order`]).
    #[state(config)]
    canonical: bool,
    /// Records of settled requests put away ([`Checker::retire_settled`]; never by the
    /// explorer, so never packed).
    #[state(config)]
    retired: retired::Retired,
}

/// What kind of cancel a party is reading.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum CancelRead {
    /// One naming a request the reader has received (held or finished).
    Known,
    /// One naming an id the reader has never received a request under (never used, or its
    /// request still on its way).
    UnknownId,
    /// A malformed one.
    Malformed,
}

impl Checker {
    /// A checker for `dialect`, with room for `requests` request instances before it allocates.
    pub fn new(dialect: Dialect, requests: usize) -> Self {
        Checker {
            dialect,
            reqs: SmallVec::with_capacity(requests + 1),
            found: PropertySet::default(),
            verdict: Verdict {
                violations: Vec::with_capacity(8),
                ..Verdict::default()
            },
            declared_support: [None; 2],
            handling_cancel: [None; 2],
            commanded: [None; 2],
            nesting: [None; 2],
            crashed: [false; 2],
            cancels_unanswered: [0; 2],
            disconnected: false,
            fifo: false,
            canonical: false,
            retired: retired::Retired::default(),
        }
    }

    /// Tells the checker whether the link delivers each direction in order (stdio): then a
    /// cancel sent before a request reusing its id arrives before it and cannot stop it. Off by
    /// default, the conservative reading (any order).
    pub fn set_fifo(&mut self, fifo: bool) {
        self.fifo = fifo;
    }

    /// Makes [`State::pack_state`] write the records in canonical order, by requester and
    /// then id (a requester's records with one id, of a reused id, keep their order), with
    /// each parent named by its place in that order; off by default (the order the requests
    /// were sent in). Where both parties send requests (request trees), two checkers that
    /// differ only in how the two parties' sends were interleaved then pack alike. They judge
    /// every continuation alike: every lookup of a record is by requester and id (the newest
    /// of a reused id), and the records' order decides only which request a violation found
    /// at the end names and the order of the excuses, never which invariants break.
    pub fn set_canonical_order(&mut self, on: bool) {
        self.canonical = on;
    }

    /// Forgets which invariants were already reported, so that the next violation of each is
    /// reported again (the verdict keeps the first of each; a rendering that marks every event
    /// that breaks an invariant calls this before each input).
    pub fn forget_reported(&mut self) {
        self.found = PropertySet::default();
    }

    /// The dialect it judges.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Back to the start, for `dialect`, keeping allocations.
    pub fn reset(&mut self, dialect: Dialect) {
        self.dialect = dialect;
        self.reqs.clear();
        self.found = PropertySet::default();
        self.clear_verdict();
        self.declared_support = [None; 2];
        self.handling_cancel = [None; 2];
        self.commanded = [None; 2];
        self.nesting = [None; 2];
        self.crashed = [false; 2];
        self.cancels_unanswered = [0; 2];
        self.disconnected = false;
        self.retired = retired::Retired::default();
    }

    /// Whether a MUST clause was broken since the verdict was last cleared (by
    /// [`Checker::unpack_state`] or [`Checker::take_verdict`]).
    pub fn failed(&self) -> bool {
        self.verdict.failed()
    }

    /// Whether a clause was broken since the verdict was last cleared.
    pub fn broke_something(&self) -> bool {
        !self.verdict.violations.is_empty()
    }

    /// The verdict so far.
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// Takes the verdict, leaving an empty one (for reuse across runs, call `reset` next).
    pub fn take_verdict(&mut self) -> Verdict {
        core::mem::take(&mut self.verdict)
    }

    /// Appends the records, in canonical order where that is set (see [`State`]).
    fn pack_reqs(&self, out: &mut Vec<u8>) {
        // (The order is worked out only where it is asked for: a search of flat states packs a
        // checker for every transition it meets.)
        match self.canonical.then(|| self.canonical_order()).flatten() {
            Some(order) => {
                let place = inverse(&order);
                put_varint(out, self.reqs.len() as u64);
                for &k in &order {
                    let r = &self.reqs[k as usize];
                    Req {
                        parent: r.parent.map(|p| place[p as usize]),
                        ..*r
                    }
                    .pack(out);
                }
            }
            None => pack_seq(&self.reqs, out),
        }
    }

    /// Reads what [`Checker::pack_reqs`] wrote.
    fn unpack_reqs(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        unpack_seq(r, &mut self.reqs)
    }

    /// Starts an empty verdict, keeping the violations' allocation.
    fn clear_verdict(&mut self) {
        self.verdict.clear();
    }

    /// The invariants broken so far, first found first.
    pub fn broken(&self) -> Vec<InvariantId> {
        self.verdict
            .violations
            .iter()
            .map(|v| v.invariant)
            .collect()
    }

    /// Puts the records in canonical order, their parent links renumbered (after a renaming:
    /// see [`Relabel`]).
    fn sort_records(&mut self) {
        let Some(order) = self.canonical_order() else {
            // (Beyond `u32::MAX` records no parent link names a record: a plain sort keeps
            // them.)
            self.reqs.sort_by_key(|r| (r.requester, r.id));
            return;
        };
        let place = inverse(&order);
        let old: SmallVec<[Req; 16]> = self.reqs.iter().copied().collect();
        for (slot, &k) in self.reqs.iter_mut().zip(&order) {
            let r = old[k as usize];
            *slot = Req {
                parent: r.parent.map(|p| place[p as usize]),
                ..r
            };
        }
    }

    /// The records' indices sorted by requester and id, stably (a reused id's records keep
    /// the order they were sent in); `None` beyond `u32::MAX` records, which a parent link
    /// cannot name.
    fn canonical_order(&self) -> Option<SmallVec<[u32; 16]>> {
        let n = u32::try_from(self.reqs.len().checked_sub(1)?).ok()?;
        let mut order: SmallVec<[u32; 16]> = (0..=n).collect();
        order.sort_by_key(|&k| {
            let r = &self.reqs[k as usize];
            (r.requester, r.id)
        });
        Some(order)
    }

    /// Feeds the checker's records of request `id` to `h`, except the id itself.
    pub fn hash_request<H: core::hash::Hasher>(&self, id: RequestId, h: &mut H) {
        use core::hash::Hash;
        for r in self.reqs.iter().filter(|r| r.id == id) {
            Req {
                id: RequestId::Null,
                ..*r
            }
            .hash(h);
        }
    }

    /// The depth in its request tree of the newest request `requester` sent with `id` (see
    /// [`Parentage::depth`]): 1 for a request its application sent, one more than its
    /// parent's for a request sent on another's behalf, 1 for a request the checker has not
    /// seen. A driver that bounds how deep trees grow asks here.
    pub fn depth(&self, requester: Party, id: RequestId) -> u8 {
        let p = self.parentage();
        p.newest(requester, id).map_or(1, |i| p.depth(i))
    }

    /// Violated invariants so far.
    pub fn violated(&self) -> PropertySet {
        self.found
    }

    fn rules(&self) -> &'static DialectRules {
        self.dialect.rules()
    }

    /// Reports `inv` broken, about the request `about` names (its requester and id) where
    /// there is one. A finding about a request that a live id's reuse made ambiguous (that
    /// request, by requester and id, or one in its tree) is set aside and listed instead: the
    /// reuse was reported, and what the confusion of two requests leads to is not a deviation
    /// the wire can pin on either of them, nor on the requests of their tree (a parent waiting
    /// on a child whose answer went to the other request). The other party's requests with the
    /// same id are not concerned.
    fn violate(&mut self, inv: InvariantId, about: Option<(Party, RequestId)>) {
        self.violate_unless(inv, about, None);
    }

    /// [`Checker::violate`], with whether the request `about` names is confused given
    /// (`confused`) rather than judged from the records as they are now.
    fn violate_unless(
        &mut self,
        inv: InvariantId,
        about: Option<(Party, RequestId)>,
        confused: Option<bool>,
    ) {
        let Some(app) = inv.info().application(self.dialect) else {
            return;
        };
        if inv != InvariantId::NoLiveIdReuse
            && let Some((requester, id)) = about
            && confused.unwrap_or_else(|| self.confused(requester, id))
        {
            let aside = SetAside {
                invariant: inv,
                requester,
                id,
            };
            if !self.verdict.set_aside.contains(&aside) {
                self.verdict.set_aside.push(aside);
            }
            return;
        }
        let id = about.map(|(_, id)| id);
        if self.found.contains(inv) {
            return;
        }
        self.found.insert(inv);
        let event = self.verdict.events;
        self.verdict.violations.push(Violation {
            invariant: inv,
            strength: app.strength,
            event,
            id,
        });
    }

    fn reach(&mut self, race: InvariantId) {
        self.verdict.reached.insert(race);
    }

    /// Reads one event: records what it changed, then lets every family judge it.
    pub fn observe(&mut self, raw: &Event) {
        self.read(raw);
    }

    /// Reads one event as [`Checker::observe`] does, and says which request instance it was
    /// about, as the checker matched it (a place in [`Checker::parentage`], valid as long as
    /// the parentage's places are): the new record for a request sent; for a request received
    /// or lost, the oldest instance of its id still on its way; for what a requester sends,
    /// reads in answer, times out or delivers, its newest instance of the id (the newest
    /// unresolved one for a delivery); for what a responder reads or sends about a request,
    /// starts, gives up or drops, the instance it holds (the newest it received); for
    /// `Output::Nested`, that parent. `None` for an event about no request, or about one the
    /// checker has no record of. (A closed stream the dialect reads as a cancel is about that
    /// cancel's instance.)
    pub fn observe_about(&mut self, raw: &Event) -> Option<usize> {
        self.read(raw)
    }

    /// `ev` as every family but the streams' reads it: where the dialect makes closing a
    /// request's stream its cancel (Streamable HTTP in MCP 2026-07-28), the requester's close
    /// is the cancel it sends and the receiver's reading of it the cancel it receives; any
    /// other event as it is.
    #[inline(always)]
    pub fn read_as(&self, ev: &Event) -> Event {
        streams::as_cancel(self.rules(), ev)
    }

    /// What [`Checker::observe`] does, saying which record the event was about: inlined into
    /// both, with the first pass (`facts`) and the families, so that `observe` compiles as it
    /// did before `observe_about` existed (the record unused, nothing returned).
    #[inline(always)]
    fn read(&mut self, raw: &Event) -> Option<usize> {
        // Where closing a request's stream is its cancel (Streamable HTTP in MCP 2026-07-28),
        // every family but the stream's own reads the close as the cancel it is.
        // A retired record of a request the event names is back first (see `retired`).
        self.revive(raw);
        let read = self.read_as(raw);
        let ev = &read;
        self.stream_update(raw);
        let ch = self.update(ev);
        // The families, in the order they judge each event. Findings of one event are listed
        // in this order, the order the checker has always listed them in (a cancel from a
        // party that may not send one before what else is wrong with it, a tree's rules
        // before a second resolution, an answer's resolution before what it says after a
        // cancel, before what an acknowledgement says of it); a new family goes where its
        // findings are to be listed.
        races::judge(self, ev, &ch);
        streams::judge(self, raw);
        parties::judge(self, ev, &ch);
        initialize::judge(self, ev, &ch);
        ids::judge(self, ev, &ch);
        activity::judge(self, ev, &ch);
        trees::judge(self, ev, &ch);
        resolution::judge(self, ev, &ch);
        cancel_answers::judge(self, ev, &ch);
        acks::judge(self, ev, &ch);
        quiescence::judge(self, ev, &ch);
        self.verdict.events += 1;
        ch.rec
    }
}

#[cfg(test)]
mod tests {
    use super::facts::Work;
    use super::*;
    use crate::invariant::Strength;

    /// A checker of `d` that has read `lines` (vector notation).
    fn read(d: Dialect, fifo: bool, lines: &[&str]) -> Checker {
        let mut c = Checker::new(d, 4);
        c.set_fifo(fifo);
        for l in lines {
            let ev = crate::notation::parse(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            c.observe(&ev);
        }
        c
    }

    /// A reused id names two records: a loss or a copy of what the requester sends counts
    /// against its newest request, one of what the responder sends against the request the
    /// responder holds (the older one while the new request is still on its way).
    #[test]
    fn losses_and_copies_count_against_the_record_they_are_about() {
        let lines = [
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
            "server sends response 1 full",
            "server sends activity 1",
            "client command send",
            "client sends request 1 work",
            "network loses server response 1 full",
            "network duplicates server activity 1",
            "network duplicates client cancel 1",
            "network loses client cancel 1",
        ];
        let c = read(Dialect::Acp, false, &lines);
        let (old, new) = (c.reqs[0], c.reqs[1]);
        assert_eq!((old.responses_lost, new.responses_lost), (1, 0));
        assert_eq!((old.activity_sent, new.activity_sent), (2, 0));
        assert_eq!((old.cancels_sent, new.cancels_sent), (0, 1));
        assert_eq!((old.cancels_lost, new.cancels_lost), (0, 1));
        // Once the new request has arrived, the responder holds it.
        let mut later = lines[..8].to_vec();
        later.extend([
            "server receives request 1 work",
            "network loses server response 1 full",
        ]);
        let c = read(Dialect::Acp, false, &later);
        assert_eq!((c.reqs[0].responses_lost, c.reqs[1].responses_lost), (0, 1));
    }

    /// The session's opening, then the client's request 1, on whose behalf the server sends
    /// its request 0, and the client's request 2, sent before (`root_first`) or after the
    /// server's: the same records, in two orders.
    fn interleaved(root_first: bool) -> Vec<&'static str> {
        let mut lines = crate::notation::OPENING.to_vec();
        lines.extend([
            "client command send",
            "client sends request 1 work",
            "server receives request 1 work",
            "server starts work 1",
        ]);
        let root = ["client command send", "client sends request 2 work"];
        let nested = [
            "server command send-nested 1",
            "server nests 0 under 1",
            "server sends request 0 server-work",
        ];
        if root_first {
            lines.extend(root.iter().chain(&nested));
        } else {
            lines.extend(nested.iter().chain(&root));
        }
        lines
    }

    /// A record named by requester and id.
    type Named = (Party, RequestId);

    /// Each record's requester and id, with its parent's.
    fn links(c: &Checker) -> Vec<(Named, Option<Named>)> {
        let mut v: Vec<_> = c
            .reqs
            .iter()
            .map(|r| {
                let parent = r.parent.map(|p| {
                    let p = &c.reqs[p as usize];
                    (p.requester, p.id)
                });
                ((r.requester, r.id), parent)
            })
            .collect();
        v.sort();
        v
    }

    /// Relabelling sorts the records; each parent link still names the same request (the
    /// server's request 0, recorded before the client's request 2, moves behind it).
    #[test]
    fn relabelling_keeps_every_parent_link() {
        let before = read(Dialect::Mcp20251125, true, &interleaved(false));
        assert_eq!(before.reqs[2].parent, Some(1));
        let mut after = before.clone();
        after.relabel(&|id| match id {
            RequestId::Int(1) => RequestId::Int(2),
            RequestId::Int(2) => RequestId::Int(1),
            other => other,
        });
        let renamed = |x: Named| match x.1 {
            RequestId::Int(1) => (x.0, RequestId::Int(2)),
            RequestId::Int(2) => (x.0, RequestId::Int(1)),
            _ => x,
        };
        let mut want: Vec<_> = links(&before)
            .into_iter()
            .map(|(r, p)| (renamed(r), p.map(renamed)))
            .collect();
        want.sort();
        assert_eq!(links(&after), want);
        let ids: Vec<_> = after.reqs.iter().map(|r| (r.requester, r.id)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        // The server's request is under the client's (renamed) request 2.
        let server = after.reqs.iter().find(|r| r.requester == Party::Server);
        let parent = server
            .and_then(|r| r.parent)
            .map(|p| after.reqs[p as usize].id);
        assert_eq!(parent, Some(RequestId::Int(2)));
    }

    /// With canonical order, two checkers that differ only in how the parties' sends were
    /// interleaved pack alike (and do not without it), and what each unpacks to judges a
    /// continuation as the original does.
    #[test]
    fn canonical_order_packs_interleavings_alike() {
        let rest = [
            "client command cancel 1",
            "client sends cancel 1",
            "client delivers 1 cancelled user",
            "server receives cancel 1",
            "server aborts work 1",
            "server drops 1",
            "client receives request 0 server-work",
            "client starts work 0",
            "end quiescent open 1 0",
        ];
        let pack = |c: &Checker| {
            let mut out = Vec::new();
            c.pack_state(&mut out);
            out
        };
        let (mut a, mut b) = (
            read(Dialect::Mcp20251125, true, &interleaved(true)),
            read(Dialect::Mcp20251125, true, &interleaved(false)),
        );
        assert_ne!(pack(&a), pack(&b));
        a.set_canonical_order(true);
        b.set_canonical_order(true);
        assert_eq!(pack(&a), pack(&b));
        let verdict = |mut c: Checker| {
            for l in rest {
                c.observe(&crate::notation::parse(l).expect("parses"));
            }
            c.take_verdict()
                .violations
                .iter()
                .map(|v| v.invariant)
                .collect::<Vec<_>>()
        };
        let want = verdict(b.clone());
        assert!(!want.is_empty(), "the continuation breaks something");
        let mut unpacked = Checker::new(Dialect::Mcp20251125, 4);
        unpacked.set_fifo(true);
        unpacked.set_canonical_order(true);
        unpacked
            .unpack_state(&mut Reader::new(&pack(&b)))
            .expect("unpacks");
        assert_eq!(links(&unpacked), links(&b));
        assert_eq!(verdict(unpacked), want);
        assert_eq!(verdict(a), want);
    }

    /// In canonical order a parent link names its parent's new place: two checkers whose
    /// client sent its requests 1 and 2 in either order, the server's request nested under 2,
    /// pack alike (the parent moves from the second record to the third in one of them).
    #[test]
    fn canonical_order_renumbers_parent_links() {
        let sent = |first: &'static str, second: &'static str| {
            let mut lines = crate::notation::OPENING.to_vec();
            lines.extend([
                "client command send",
                first,
                "client command send",
                second,
                "server receives request 2 work",
                "server starts work 2",
                "server command send-nested 2",
                "server nests 0 under 2",
                "server sends request 0 server-work",
            ]);
            let mut c = read(Dialect::Mcp20251125, true, &lines);
            c.set_canonical_order(true);
            let mut out = Vec::new();
            c.pack_state(&mut out);
            out
        };
        let (one, two) = ("client sends request 1 work", "client sends request 2 work");
        assert_eq!(sent(one, two), sent(two, one));
    }

    fn v(invariant: InvariantId, strength: Strength) -> Violation {
        Violation {
            invariant,
            strength,
            event: 0,
            id: None,
        }
    }

    /// Only a MUST fails; SHOULDs alone warn; nothing broken is a pass only when exercised.
    #[test]
    fn the_strongest_finding_decides_the_status() {
        let must = v(InvariantId::SingleResolution, Strength::Must);
        let should = v(InvariantId::LateAnswerIgnored, Strength::Should);
        assert_eq!(Status::of(&[should, must], true), Status::Fail);
        assert_eq!(Status::of(&[should], true), Status::Warn);
        assert_eq!(Status::of(&[should], false), Status::Warn);
        assert_eq!(Status::of(&[], false), Status::Vacuous);
        assert_eq!(Status::of(&[], true), Status::Pass);
        assert_eq!(Status::Fail.exit_code(), 1);
        for s in [Status::Warn, Status::Vacuous, Status::Pass] {
            assert_eq!(s.exit_code(), 0, "{s:?}");
        }
    }

    /// Packing a checker's state and reading it back gives a checker that judges alike, every
    /// record field included.
    #[test]
    fn a_record_round_trips_through_its_packed_form() {
        let r = Req {
            requester: Party::Server,
            id: RequestId::Int(7),
            initialize: false,
            refused: false,
            task: true,
            work: Work::Running,
            cancel_sent: true,
            cancel_received: true,
            cancel_received_open: true,
            session_cancel: true,
            responses_sent: 1,
            response_copies: 2,
            responses_received: 3,
            responses_lost: 4,
            responder_done: true,
            delivered: 5,
            request_lost: true,
            ack_cancelled: Some(false),
            result_cancelled: Some(true),
            activity_sent: 6,
            activity_settled: 7,
            cancels_sent: 8,
            cancels_received: 9,
            cancels_lost: 10,
            acks_sent: 11,
            acks_settled: 12,
            ambiguous: true,
            internal: true,
            parent: Some(3),
            cascade_owed: true,
            resolved_cancelled: true,
            turn_cancelled: true,
            stream_closed: true,
            lost_during_work: true,
            close_read_open: true,
        };
        let mut bytes = Vec::new();
        r.pack(&mut bytes);
        let back = Req::unpack(&mut Reader::new(&bytes)).expect("unpacks");
        assert_eq!(back, r);
    }
}
