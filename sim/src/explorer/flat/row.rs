//! A flat state: its row of bytes, its steps, and stepping it.

use std::sync::Arc;

use cancelcheck_model::pack::PackError;
use cancelcheck_model::{Message, Party};
use cancelcheck_properties::{PropertySet, Verdict};

use super::kinds::{Reader, Table, Writer};
use super::memo::{Fed, FlatMemo, Op, Response, Stim};
use super::{CHECKER, DUPLICATES, ENDPOINTS, Layout, MALFORMED, READY, ROOT, ROW, SENT};
use crate::explorer::driver::{self, Counter, Driver};
use crate::explorer::fifo::{Footprint, MsgClass, fifo_ample};
use crate::explorer::hash::{fingerprint_padded, fingerprint_pair};
use crate::explorer::state::{Explorer, ample};
use crate::explorer::steps::{self, Listed, StepView, TimerOf};
use cancelcheck_model::io::Timer;
use core::ops::Deref;
use smallvec::SmallVec;

/// One step of a flat state, as [`Flat::enabled`] lists it: the choice, with what it will show
/// the parties and that transition's memo key, worked out once when the steps are listed, and
/// what the memo holds of it once [`Flat::prepare`]d (they hold for the state listed and its
/// copies, which is where a search applies them).
#[derive(Clone, Copy, Debug)]
pub struct FlatStep {
    /// The choice (see [`steps::list`]).
    pub(super) choice: Listed,
    pub(super) stim: Stim,
    /// The memo key of `stim` (unused for [`Stim::Nothing`]).
    pub(super) key: u64,
    /// For a feed, the number of the endpoint's response if the memo held it when the step
    /// was prepared ([`UNKNOWN`] if not, or not prepared), and then the memo key of the
    /// checker's judgement; for an event shown to the checker alone, that key is `key`.
    pub(super) response: u32,
    pub(super) judged: u64,
}

/// A response not yet worked out when a step was prepared.
const UNKNOWN: u32 = u32::MAX;

impl FlatStep {
    /// `choice`, not yet planned ([`Flat::plan`]).
    #[inline(always)]
    fn listed(choice: Listed) -> FlatStep {
        FlatStep {
            choice,
            stim: Stim::Nothing,
            key: 0,
            response: UNKNOWN,
            judged: 0,
        }
    }
}

/// A state as one row of bytes (see the module documentation), plus what the search reads of
/// the path since it was unpacked: whether an invariant broke, and the races reached.
#[derive(Clone, Debug)]
pub struct Flat {
    pub(super) row: [u8; ROW],
    pub(super) layout: Layout,
    pub(super) violated: bool,
    pub(super) warned: bool,
    pub(super) reached: PropertySet,
}

/// Where `x` goes in the sorted `codes` (after its equals), comparing decoded values by their
/// ranks (see [`Decoded`](super::codes::Decoded): codes are a bijection, so equal ranks are
/// equal values).
pub(super) fn sorted_place(codes: &[u8], ranks: &[u8], x: u8) -> usize {
    let r = ranks[usize::from(x)];
    codes.partition_point(|&y| ranks[usize::from(y)] <= r)
}

impl Flat {
    /// The flat form of the plain state `e`, coding what it holds in `memo`'s tables (each
    /// field as its declaration places it, see `ExplorerRow`); `None` if it does not fit a
    /// row (the memo is then spoilt).
    pub fn from_explorer(e: &Explorer, memo: &mut FlatMemo) -> Option<Flat> {
        let layout = memo.shared.layout;
        let mut bytes = core::mem::take(&mut memo.bytes);
        let shared = Arc::clone(&memo.shared);
        let row = memo.coding(|t| {
            let mut w = Writer {
                row: [0; ROW],
                requests: usize::from(layout.b.requests),
                t,
                parts: &shared.parts,
                bytes: &mut bytes,
            };
            layout.row.put(e, &mut w)?;
            Some(Some(w.row))
        });
        memo.bytes = bytes;
        memo.recount();
        Some(Flat {
            row: row?,
            layout,
            violated: e.violated(),
            warned: e.warned(),
            reached: e.reached(),
        })
    }

    /// The plain state this row codes: `template` (a plain state of the same initial
    /// scenario, which gives what a row does not hold: the configuration, and the parts of the
    /// state a flat search never changes) with every field the row holds read from it, its
    /// checker starting a fresh verdict.
    pub fn to_explorer(&self, memo: &FlatMemo, template: &Explorer) -> Result<Explorer, PackError> {
        let mut e = template.clone();
        let t = memo.shared.read();
        let r = Reader {
            row: self.bytes(),
            requests: usize::from(self.layout.b.requests),
            t: &t,
            parts: &memo.shared.parts,
        };
        self.layout.row.get(&mut e, &r)?;
        Ok(e)
    }

    /// The row: what identifies the state (equal rows, equal states, within one search).
    pub fn bytes(&self) -> &[u8] {
        &self.row[..usize::from(self.layout.len)]
    }

    /// The fingerprint of [`Flat::bytes`] (as [`fingerprint`](crate::explorer::hash::fingerprint)
    /// makes it), read a word at a time: past the layout's length a row holds zeros.
    #[inline]
    pub fn fingerprint(&self) -> u64 {
        fingerprint_padded(&self.row, usize::from(self.layout.len))
    }

    /// Becomes the state `bytes` holds (a row of this search's layout).
    pub fn unpack(&mut self, bytes: &[u8], memo: &mut FlatMemo) -> Result<(), PackError> {
        if bytes.len() != usize::from(self.layout.len) {
            return Err(PackError::BadTag("row length", bytes.len() as u8));
        }
        self.row[..bytes.len()].copy_from_slice(bytes);
        self.violated = false;
        self.warned = false;
        self.reached = PropertySet::default();
        memo.sync();
        Ok(())
    }

    /// Becomes `src` again.
    pub fn restore_from(&mut self, src: &Flat) {
        // The part of the row in use, as one copy of a fixed size (a few vector moves,
        // cheaper than a call to copy a length known only when running); what lies past the
        // layout's length is never read.
        fn copy<const N: usize>(to: &mut [u8; ROW], from: &[u8; ROW]) {
            let (to, from) = (&mut to[..N], &from[..N]);
            to.copy_from_slice(from);
        }
        match self.layout.len {
            0..=64 => copy::<64>(&mut self.row, &src.row),
            65..=128 => copy::<128>(&mut self.row, &src.row),
            _ => self.row = src.row,
        }
        self.violated = src.violated;
        self.warned = src.warned;
        self.reached = src.reached;
    }

    pub(super) fn u32_at(&self, at: usize) -> u32 {
        let mut b = [0; 4];
        b.copy_from_slice(&self.row[at..at + 4]);
        u32::from_le_bytes(b)
    }

    pub(super) fn set_u32(&mut self, at: usize, v: u32) {
        self.row[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    pub(super) fn endpoint(&self, p: Party) -> u32 {
        self.u32_at(ENDPOINTS[p.index()])
    }

    pub(super) fn checker(&self) -> u32 {
        self.u32_at(CHECKER)
    }

    /// The codes of table `t`.
    pub(super) fn table(&self, t: Table) -> &[u8] {
        let at = usize::from(t.at);
        &self.row[at + 1..][..usize::from(self.row[at])]
    }

    pub(super) fn id(&self, k: usize) -> u8 {
        self.row[usize::from(self.layout.row.ids.at) + k]
    }

    /// Puts `x` at place `i` of table `t`; spoils the memo if full.
    pub(super) fn insert(&mut self, t: Table, i: usize, x: u8, memo: &mut FlatMemo) {
        let at = usize::from(t.at);
        let len = usize::from(self.row[at]);
        if len == usize::from(t.cap) {
            memo.spoilt = true;
            return;
        }
        let codes = &mut self.row[at + 1..at + 2 + len];
        codes.copy_within(i..len, i + 1);
        codes[i] = x;
        self.row[at] += 1;
    }

    /// Takes out place `i` of table `t`.
    pub(super) fn remove(&mut self, t: Table, i: usize) {
        let at = usize::from(t.at);
        let len = usize::from(self.row[at]);
        let codes = &mut self.row[at + 1..at + 1 + len];
        codes.copy_within(i + 1.., i);
        codes[len - 1] = 0;
        self.row[at] -= 1;
    }

    /// Every enabled step, in the order [`Explorer::enabled`] lists the plain state's (both
    /// list them with `steps::list`).
    pub fn enabled(&self, memo: &FlatMemo, out: &mut Vec<FlatStep>) {
        out.clear();
        let view = FlatView { flat: self, memo };
        steps::list(&view, &self.layout.b, |c| {
            out.push(FlatStep::listed(c));
            let n = out.len() - 1;
            self.plan(&mut out[n], memo);
        });
    }

    /// The steps to expand, as [`Explorer::to_expand`] picks them.
    pub fn to_expand(
        &self,
        reduce: bool,
        memo: &FlatMemo,
        all: &mut Vec<FlatStep>,
        out: &mut Vec<(u32, FlatStep)>,
    ) {
        out.clear();
        let view = FlatView { flat: self, memo };
        if !reduce {
            // Every step, numbered as listed: no list of all to choose from.
            all.clear();
            steps::list(&view, &self.layout.b, |c| {
                let n = out.len();
                out.push((n as u32, FlatStep::listed(c)));
                self.plan(&mut out[n].1, memo);
            });
            return;
        }
        self.enabled(memo, all);
        if self.layout.b.fifo {
            let prints: SmallVec<[Footprint; 16]> = all
                .iter()
                .map(|step| steps::footprint(&view, step.choice))
                .collect();
            let queues = [
                steps::queued(&view, Party::Client),
                steps::queued(&view, Party::Server),
            ];
            let chosen = fifo_ample(&prints, [&queues[0], &queues[1]]);
            for (i, (&step, f)) in all.iter().zip(&prints).enumerate() {
                if chosen.is_none_or(|a| a.keeps(f)) {
                    out.push((i as u32, step));
                }
            }
            return;
        }
        let chosen = ample(all.iter().map(|s| steps::request(&view, s.choice)));
        for (i, &step) in all.iter().enumerate() {
            if chosen.is_none() || steps::request(&view, step.choice) == chosen {
                out.push((i as u32, step));
            }
        }
    }

    /// What `step` will show the parties, read before it is applied.
    pub(super) fn stimulus(&self, step: Listed, memo: &FlatMemo) -> Stim {
        let l = &self.layout.row;
        let d = &memo.decoded;
        let msg = |to: Party, i: u16| self.table(l.net[to.index()])[usize::from(i)];
        let work = |i: u16| self.table(l.work)[usize::from(i)];
        match step {
            Listed::Send => Stim::Feed(Party::Client, Fed::Send),
            Listed::Cancel(k) => match self.id(k.into()) {
                0 => Stim::Nothing,
                c => Stim::Feed(Party::Client, Fed::Cancel(c)),
            },
            Listed::Deliver(to, i) => Stim::Feed(to, Fed::Receive(msg(to, i))),
            Listed::Lose(to, i) => Stim::Emit(to.peer(), msg(to, i), false),
            Listed::Duplicate(to, i) => Stim::Emit(to.peer(), msg(to, i), true),
            Listed::WorkDone(i) => {
                let w = work(i);
                Stim::Feed(d.works[usize::from(w)].0, Fed::WorkDone(w))
            }
            Listed::Progress(i) => {
                let w = work(i);
                Stim::Feed(d.works[usize::from(w)].0, Fed::Progress(w))
            }
            Listed::Fire(i) => {
                let t = self.table(l.timers)[usize::from(i)];
                Stim::Feed(d.timers[usize::from(t)].0, Fed::Fire(t))
            }
            Listed::Abort(i) => {
                let w = work(i);
                Stim::Feed(d.works[usize::from(w)].0, Fed::Abort(w))
            }
            Listed::Malformed => Stim::Feed(Party::Client, Fed::Malformed),
        }
    }

    /// The memo key of `stim` fed to this state's parties: of the fed endpoint's response
    /// (see [`FlatMemo`]), or of the checker's judgement of an event shown to it alone.
    pub(super) fn key(&self, stim: Stim) -> Option<u64> {
        let root = u64::from(self.row[ROOT]);
        match stim {
            Stim::Feed(p, fed) => {
                let (kind, code) = fed.code();
                Some(fingerprint_pair(
                    root | (p.index() as u64) << 8 | kind << 16 | code << 24,
                    u64::from(self.endpoint(p)),
                ))
            }
            Stim::Emit(from, m, duplicated) => Some(fingerprint_pair(
                root | (from.index() as u64) << 8
                    | (7 + u64::from(duplicated)) << 16
                    | u64::from(m) << 24,
                u64::from(self.checker()) << 32,
            )),
            Stim::Nothing => None,
        }
    }

    /// The memo key of this state's checker's judgement of a feed whose response showed it
    /// `shown`.
    fn judged_key(&self, shown: u64) -> u64 {
        let root = u64::from(self.row[ROOT]);
        fingerprint_pair(shown, u64::from(self.checker()) | root << 32 | 1 << 40)
    }

    /// Works out what the memo already holds of `steps` (listed from this state), and asks for
    /// the memory their stepping reads (a hint: a step not prepared looks it up when taken).
    /// Every step was planned first, which asked for the slot of its response: the lookups,
    /// made here, then wait for those loads together rather than one after another.
    pub fn prepare(&self, steps: &mut [(u32, FlatStep)], memo: &FlatMemo) {
        for (_, step) in steps {
            match step.stim {
                Stim::Feed(..) => {
                    if let Some(r) = memo.responses.get(step.key) {
                        step.response = r;
                        step.judged = self.judged_key(memo.response(r).shown);
                        memo.judged.prefetch(step.judged);
                    }
                }
                Stim::Emit(..) => memo.judged.prefetch(step.judged),
                Stim::Nothing => {}
            }
        }
    }

    /// Plans `step` (as [`FlatStep::listed`] made it): what its choice will show the parties
    /// and the memo key of that, asking for the slot of the fed endpoint's response (which
    /// [`Flat::prepare`] reads). Written in place: a step returned by value is written field
    /// by field and then read back whole, which waits for the writes to reach the cache.
    pub(super) fn plan(&self, step: &mut FlatStep, memo: &FlatMemo) {
        let stim = self.stimulus(step.choice, memo);
        let key = self.key(stim).unwrap_or(0);
        step.stim = stim;
        step.key = key;
        match stim {
            Stim::Feed(..) => memo.responses.prefetch(key),
            _ => step.judged = key,
        }
    }

    /// Applies one step (one of `enabled`), as `Explorer::apply` does the plain state's: the
    /// driver's part by `driver::take` and `driver::carry` on the row's codes, the
    /// parties' part by the memo.
    pub fn step(&mut self, step: FlatStep, memo: &mut FlatMemo) {
        let fifo = self.layout.b.fifo;
        let stim = step.stim;
        driver::take(&mut self.driven(memo), step.choice, fifo);
        if matches!(stim, Stim::Nothing) {
            return;
        }
        let (response, key) = match stim {
            Stim::Feed(_, _) if step.response != UNKNOWN => {
                (*memo.response(step.response), step.judged)
            }
            Stim::Feed(party, fed) => {
                let n = match memo.responses.get(step.key) {
                    Some(n) => n,
                    None => {
                        let n = memo.respond(self, party, fed);
                        memo.responses.insert(step.key, n);
                        memo.recount();
                        n
                    }
                };
                let r = *memo.response(n);
                (r, self.judged_key(r.shown))
            }
            _ => (Response::default(), step.judged),
        };
        let j = match memo.judged.get(key) {
            Some(j) => j,
            None => {
                let j = memo.judge(self, stim, &response);
                memo.judged.insert(key, j);
                memo.recount();
                j
            }
        };
        self.set_u32(CHECKER, j.checker);
        let o = memo.outcomes[j.outcome as usize];
        self.reached = self.reached.union(o.reached);
        if o.n_broken > 0 {
            if o.failed {
                self.violated = true;
            } else {
                self.warned = true;
            }
            memo.last_broken = (o.broken, o.n_broken);
        }
        let Stim::Feed(party, fed) = stim else {
            return;
        };
        let e = response;
        debug_assert!(
            !matches!(fed, Fed::Receive(m) if MsgClass::of(&memo.decoded.msgs[usize::from(m)]).quiet())
                || !memo.ops[e.ops as usize..][..usize::from(e.n_ops)]
                    .iter()
                    .any(|op| matches!(op, Op::Send(_))),
            "a quiet message made its receiver send"
        );
        self.set_u32(ENDPOINTS[party.index()], e.endpoint);
        if party == Party::Client {
            self.row[READY] = u8::from(e.ready);
        }
        for k in 0..usize::from(e.n_ops) {
            let op = memo.ops[e.ops as usize + k];
            driver::carry(&mut self.driven(memo), party, op, fifo);
        }
        if step.choice == Listed::Send {
            let l = &self.layout.row;
            self.row[usize::from(l.ids.at) + usize::from(self.row[SENT]) - 1] = e.sent_id;
        }
    }

    /// The row's tables as the driver edits them (see [`Driver`]).
    #[inline(always)]
    fn driven<'a>(
        &'a mut self,
        memo: &'a mut FlatMemo,
    ) -> FlatView<&'a mut Flat, &'a mut FlatMemo> {
        FlatView { flat: self, memo }
    }

    /// Whether a MUST clause was broken since the state was unpacked.
    pub fn violated(&self) -> bool {
        self.violated
    }

    /// Whether only SHOULD clauses were broken since the state was unpacked.
    pub fn warned(&self) -> bool {
        self.warned && !self.violated
    }

    /// The races reached since the state was made or unpacked.
    pub fn reached(&self) -> PropertySet {
        self.reached
    }

    /// Ends the run here and takes the verdict.
    pub fn end(&mut self, quiescent: bool, memo: &mut FlatMemo) -> Verdict {
        let w = memo.materialize(self);
        w.end(quiescent);
        w.checker_mut().take_verdict()
    }
}

/// A flat state with the memo that decodes it, as [`steps::list`] reads it (tables of codes)
/// and, borrowed mutably, as [`driver::take`] and [`driver::carry`] edit it.
struct FlatView<F, M> {
    flat: F,
    memo: M,
}

impl<F: Deref<Target = Flat>, M: Deref<Target = FlatMemo>> StepView for FlatView<F, M> {
    type Msg = u8;
    type Work = u8;
    type Timer = u8;
    fn sent(&self) -> u8 {
        self.flat.row[SENT]
    }
    fn client_ready(&self) -> bool {
        self.flat.row[READY] != 0
    }
    fn cancels(&self, k: u8) -> u8 {
        self.flat.row[usize::from(self.flat.layout.row.cancels.at) + usize::from(k)]
    }
    fn has_id(&self, k: u8) -> bool {
        self.flat.id(k.into()) != 0
    }
    fn queue(&self, to: Party) -> &[u8] {
        self.flat.table(self.flat.layout.row.net[to.index()])
    }
    fn is_request(&self, m: u8) -> bool {
        matches!(
            self.memo.decoded.msgs[usize::from(m)],
            Message::Request { .. }
        )
    }
    fn work(&self) -> &[u8] {
        self.flat.table(self.flat.layout.row.work)
    }
    fn progressed(&self) -> &[u8] {
        self.flat.table(self.flat.layout.row.progressed)
    }
    fn timers(&self) -> &[u8] {
        self.flat.table(self.flat.layout.row.timers)
    }
    fn duplicates_left(&self) -> u8 {
        self.flat.row[DUPLICATES]
    }
    fn malformed_left(&self) -> u8 {
        self.flat.row[MALFORMED]
    }
    // A row holds no trees nor server requests: requests are numbered by the application's
    // order of sending (`k + 1`), 0 for any other id.
    fn next_request(&self) -> u32 {
        u32::from(self.flat.row[SENT]) + 1
    }
    fn app_request(&self, k: u8) -> Option<u32> {
        Some(u32::from(k) + 1)
    }
    fn msg_request(&self, _: Party, m: u8) -> Option<u32> {
        match self.memo.decoded.msg_ids[usize::from(m)] {
            0 => None,
            c => Some(self.id_request(c)),
        }
    }
    fn msg_class(&self, _: Party, m: u8) -> MsgClass {
        MsgClass::of(&self.memo.decoded.msgs[usize::from(m)])
    }
    fn work_of(&self, w: u8) -> (Party, u32) {
        let d = &self.memo.decoded;
        (
            d.works[usize::from(w)].0,
            self.id_request(d.work_ids[usize::from(w)]),
        )
    }
    fn timer_of(&self, t: u8) -> (Party, TimerOf) {
        let d = &self.memo.decoded;
        let what = match d.timers[usize::from(t)].1 {
            Timer::InitTimeout => TimerOf::Init,
            // (No trees and no queues in a row: the peer answers on the request's steps.)
            Timer::RequestTimeout(_) => {
                TimerOf::Request(self.id_request(d.timer_ids[usize::from(t)]), false)
            }
        };
        (d.timers[usize::from(t)].0, what)
    }
}

impl<F: Deref<Target = Flat>, M: Deref<Target = FlatMemo>> FlatView<F, M> {
    /// The number of the request whose id is coded `c`: one more than the application's
    /// request that has it, 0 for none.
    fn id_request(&self, c: u8) -> u32 {
        let sent = usize::from(self.flat.row[SENT]);
        let ids = &self.flat.row[usize::from(self.flat.layout.row.ids.at)..][..sent];
        ids.iter().position(|&x| x == c).map_or(0, |k| k as u32 + 1)
    }
}

/// The row's tables edited in codes: sorted places by the codes' ranks, an insertion into a
/// full table spoiling the memo.
impl Driver for FlatView<&mut Flat, &mut FlatMemo> {
    #[inline(always)]
    fn insert_msg(&mut self, to: Party, i: usize, m: u8) {
        let t = self.flat.layout.row.net[to.index()];
        self.flat.insert(t, i, m, self.memo);
    }
    #[inline(always)]
    fn sorted_msg_place(&self, to: Party, m: u8) -> usize {
        sorted_place(self.queue(to), &self.memo.decoded.msg_ranks, m)
    }
    #[inline(always)]
    fn remove_msg(&mut self, to: Party, i: usize) {
        let t = self.flat.layout.row.net[to.index()];
        self.flat.remove(t, i);
    }
    #[inline(always)]
    fn insert_work(&mut self, w: u8) {
        let t = self.flat.layout.row.work;
        let place = sorted_place(self.flat.table(t), &self.memo.decoded.work_ranks, w);
        self.flat.insert(t, place, w, self.memo);
    }
    #[inline(always)]
    fn remove_work(&mut self, i: usize) {
        let t = self.flat.layout.row.work;
        self.flat.remove(t, i);
    }
    #[inline(always)]
    fn insert_progressed(&mut self, w: u8) {
        let t = self.flat.layout.row.progressed;
        let place = sorted_place(self.flat.table(t), &self.memo.decoded.work_ranks, w);
        self.flat.insert(t, place, w, self.memo);
    }
    #[inline(always)]
    fn remove_progressed(&mut self, i: usize) {
        let t = self.flat.layout.row.progressed;
        self.flat.remove(t, i);
    }
    #[inline(always)]
    fn insert_timer(&mut self, x: u8) {
        let t = self.flat.layout.row.timers;
        let place = sorted_place(self.flat.table(t), &self.memo.decoded.timer_ranks, x);
        self.flat.insert(t, place, x, self.memo);
    }
    #[inline(always)]
    fn remove_timer(&mut self, i: usize) {
        let t = self.flat.layout.row.timers;
        self.flat.remove(t, i);
    }
    #[inline(always)]
    fn count(&mut self, c: Counter) {
        let row = &mut self.flat.row;
        match c {
            Counter::Sent => row[SENT] += 1,
            Counter::Cancelled(k) => {
                row[usize::from(self.flat.layout.row.cancels.at) + usize::from(k)] += 1
            }
            Counter::Duplicated => row[DUPLICATES] -= 1,
            Counter::Malformed => row[MALFORMED] -= 1,
        }
    }
}
