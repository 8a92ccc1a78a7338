//! The explorer: every schedule of a small configuration, not a sample of them.
//!
//! It drives the same [`World`] as the simulator, but where the simulator draws what happens
//! next from time and the seed, the explorer branches on every enabled step: delivering any
//! in-flight message the transport allows (the head of each direction on a FIFO link, any of
//! them on a reordering one), the application sending its next request or cancelling any
//! request it sent, work finishing, a timer firing, a message being lost when loss is on.
//! Time does not exist: timeouts are just steps that may come at any point.
//!
//! The search is breadth-first and level-synchronous: each level's states are expanded in
//! parallel, then merged in a fixed order (parent, then choice), so the counts, the first
//! counterexample (a shortest one) and its schedule are the same for any number of threads.
//! States are deduplicated by a 64-bit fingerprint of everything that affects the future,
//! checker state included ([`Explorer::fingerprint`]).
//!
//! How a [`Scenario`] reads here: `workload.requests` requests; `workload.workers` server
//! workers; the application may cancel each request once (twice with
//! `repeat_cancel_permille > 0`) when `cancel_permille > 0`; request timeouts when
//! `workload.timeout` is set, a connect timeout when `workload.init_timeout` is set; loss
//! when `link.loss_permille > 0`; `link.order`. Latencies, durations, duplication,
//! disconnects and progress notifications are not explored. An unset `cancel_support`
//! explores both answers (two initial states).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::Method;
use cancelcheck_model::{Command, Input, Message, Output, Party, RequestId};
use cancelcheck_properties::{PropertySet, Verdict};
use smallvec::SmallVec;

use crate::link::Order;
use crate::scenario::Scenario;
use crate::world::World;

/// A 64-bit hasher whose output depends only on the values fed, on every run and machine of
/// the same endianness: each integer is folded in with a multiply-rotate step (byte slices
/// eight bytes at a time), then the result is avalanched.
#[derive(Clone, Copy, Debug)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl StableHasher {
    #[inline]
    fn mix(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

impl Hasher for StableHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }
    fn write_u16(&mut self, n: u16) {
        self.mix(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.mix(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.mix(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^= x >> 33;
        x
    }
}

/// A hasher that passes a `u64` fingerprint through (the fingerprint is already mixed).
#[derive(Default, Clone, Copy)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FingerprintSet = HashSet<u64, BuildHasherDefault<PassThrough>>;

/// One choice of what happens next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Step {
    /// The client sends its next request.
    Send,
    /// The client's application cancels request number `k` (in sending order).
    Cancel(u8),
    /// The message at `index` of the queue towards `to` is delivered.
    Deliver {
        /// The recipient.
        to: Party,
        /// Position in its in-flight queue.
        index: u16,
    },
    /// The message at `index` towards `to` is lost.
    Lose {
        /// The recipient.
        to: Party,
        /// Position in its in-flight queue.
        index: u16,
    },
    /// The work for a request finishes.
    WorkDone(Party, RequestId),
    /// An armed timer fires.
    Fire(Party, Timer),
    /// Running work reports progress (at most once per piece of work).
    Progress(Party, RequestId),
}

/// What the explorer branches on, read from a scenario.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    requests: u8,
    cancels_each: u8,
    timeouts: bool,
    init_timeout: bool,
    loss: bool,
    fifo: bool,
    progress: bool,
}

/// One explored state: the world plus everything a driver holds.
#[derive(Clone, Debug)]
pub struct Explorer {
    world: World,
    /// In-flight messages, indexed by recipient: in sending order on a FIFO link, sorted on a
    /// reordering one (where order carries no information), so equal states look equal.
    net: [SmallVec<[Message; 8]>; 2],
    /// Running work and armed timers, kept sorted.
    work: SmallVec<[(Party, RequestId); 8]>,
    /// Running work that already reported progress.
    progressed: SmallVec<[(Party, RequestId); 8]>,
    timers: SmallVec<[(Party, Timer); 8]>,
    sent: u8,
    cancels: SmallVec<[u8; 8]>,
    ids: SmallVec<[Option<RequestId>; 8]>,
    steps: u64,
}

fn insert_sorted<T: Ord, const N: usize>(v: &mut SmallVec<[T; N]>, x: T)
where
    [T; N]: smallvec::Array<Item = T>,
{
    let at = v.partition_point(|y| *y <= x);
    v.insert(at, x);
}

fn bounds(s: &Scenario) -> Bounds {
    Bounds {
        requests: s.workload.requests.min(32) as u8,
        cancels_each: match (
            s.workload.cancel_permille,
            s.workload.repeat_cancel_permille,
        ) {
            (0, _) => 0,
            (_, 0) => 1,
            _ => 2,
        },
        timeouts: s.workload.timeout.is_some(),
        init_timeout: s.workload.init_timeout.is_some(),
        loss: s.link.loss_permille > 0,
        fifo: s.link.order == Order::Fifo,
        progress: s.workload.progress_permille > 0,
    }
}

/// A small configuration to explore, as the `explore` command takes it.
#[derive(Clone, Copy, Debug)]
pub struct ExploreSpec {
    /// The protocol.
    pub dialect: cancelcheck_model::Dialect,
    /// The behaviour under test.
    pub behavior: cancelcheck_model::Behaviour,
    /// Requests the client sends.
    pub requests: u16,
    /// Server workers.
    pub workers: u16,
    /// Delivery order.
    pub order: Order,
    /// Request timeouts.
    pub timeouts: bool,
    /// A connect timeout on `initialize`.
    pub init_timeout: bool,
    /// Each request may be cancelled twice (always for acknowledged cancels).
    pub repeat_cancel: bool,
    /// Messages may be lost.
    pub loss: bool,
    /// Running work may send one progress notification.
    pub progress: bool,
    /// The client reuses the id of its latest answered request (see `IdPolicy::reuse_answered`).
    pub reuse_ids: bool,
}

impl ExploreSpec {
    /// `requests` requests in `dialect` under `behavior`, one worker per request, on a link
    /// with `order`; no timeouts, no loss.
    pub fn new(
        dialect: cancelcheck_model::Dialect,
        behavior: cancelcheck_model::Behaviour,
        requests: u16,
        order: Order,
    ) -> Self {
        ExploreSpec {
            dialect,
            behavior,
            requests,
            workers: requests,
            order,
            timeouts: false,
            init_timeout: false,
            repeat_cancel: false,
            loss: false,
            progress: false,
            reuse_ids: false,
        }
    }

    /// The scenario the explorer reads (see the module documentation).
    pub fn scenario(&self) -> Scenario {
        use crate::link::Latency;
        let mut s = Scenario::default_for(self.dialect);
        s.behavior = self.behavior;
        let acked = self.dialect.rules().cancel_shape
            == cancelcheck_model::dialect::CancelShape::AcknowledgedRequest;
        let w = &mut s.workload;
        w.requests = self.requests;
        w.workers = self.workers.max(1);
        w.cancel_permille = 1000;
        w.repeat_cancel_permille = if self.repeat_cancel || acked { 1000 } else { 0 };
        w.timeout = self.timeouts.then_some(Latency::Fixed(1));
        w.init_timeout = self.init_timeout.then_some(Latency::Fixed(1));
        w.progress_permille = if self.progress { 1000 } else { 0 };
        w.ids.reuse_answered = self.reuse_ids;
        w.cancel_support = None;
        s.link.order = self.order;
        s.link.loss_permille = u16::from(self.loss);
        s
    }
}

/// Whether requests are interchangeable in `s`, so that the symmetry reduction is sound: ids
/// are never reused, no request waits for a worker, and the behaviour neither singles out an
/// id (id 0, coerced ids, reuse of a given-up id) nor acts on several requests in table order
/// (one cancel stopping all). Table order then carries no information, and a state and its
/// relabelling have the same futures up to that relabelling.
pub fn symmetric(s: &Scenario) -> bool {
    use cancelcheck_model::Behaviour as B;
    s.workload.workers >= s.workload.requests
        && !s.workload.ids.reuse_answered
        && !matches!(
            s.behavior,
            B::ReusesLiveId | B::IgnoresCancelForIdZero | B::IdTypeConfusion | B::CancelCancelsAll
        )
}

/// Whether the partial-order reduction is sound for `s`: steps of different requests commute
/// and never enable or disable one another. That needs a reordering transport (on a FIFO link a
/// message waits behind another request's), no id reuse, no request waiting for a worker, and a
/// behaviour that keeps requests apart (not a crash that stops every request, not one cancel
/// stopping all, not coerced ids). The checker's verdict about a request depends only on that
/// request's own steps and `initialize`'s, so every violation and every quiescent state of the
/// full graph stays reachable in the reduced one.
pub fn partial_order(s: &Scenario) -> bool {
    use cancelcheck_model::Behaviour as B;
    s.link.order == Order::Reordering
        && symmetric(s)
        && !matches!(s.behavior, B::CrashesOnUnknownCancel)
}

/// The scenarios the initial states stand for: one per possible `cancel_support`.
pub fn initial_scenarios(s: &Scenario) -> Vec<Scenario> {
    match s.workload.cancel_support {
        Some(_) => vec![s.clone()],
        None => [true, false]
            .into_iter()
            .map(|b| {
                let mut v = s.clone();
                v.workload.cancel_support = Some(b);
                v
            })
            .collect(),
    }
}

impl Explorer {
    /// The initial state for `scenario` (its `cancel_support` must be set): the client has
    /// been told to initialize.
    pub fn new(scenario: &Scenario, record: bool) -> Self {
        let n = usize::from(bounds(scenario).requests);
        let mut e = Explorer {
            world: World::new(scenario, record),
            net: [SmallVec::new(), SmallVec::new()],
            work: SmallVec::new(),
            progressed: SmallVec::new(),
            timers: SmallVec::new(),
            sent: 0,
            cancels: smallvec::smallvec![0; n],
            ids: smallvec::smallvec![None; n],
            steps: 0,
        };
        e.feed(scenario, Party::Client, Input::Command(Command::Initialize));
        e
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Every enabled step, in a fixed order.
    pub fn enabled(&self, scenario: &Scenario, out: &mut Vec<Step>) {
        out.clear();
        let b = bounds(scenario);
        if self.sent < b.requests && self.world.endpoint(Party::Client).is_ready() {
            out.push(Step::Send);
        }
        for k in 0..self.sent {
            if self.cancels[usize::from(k)] < b.cancels_each && self.ids[usize::from(k)].is_some() {
                out.push(Step::Cancel(k));
            }
        }
        for to in [Party::Client, Party::Server] {
            let q = &self.net[to.index()];
            let candidates = if b.fifo { q.len().min(1) } else { q.len() };
            for i in 0..candidates {
                // Identical messages lead to identical successors: branch on the first only.
                if q[..i].contains(&q[i]) {
                    continue;
                }
                out.push(Step::Deliver {
                    to,
                    index: i as u16,
                });
                if b.loss {
                    out.push(Step::Lose {
                        to,
                        index: i as u16,
                    });
                }
            }
        }
        for (i, &(p, id)) in self.work.iter().enumerate() {
            if !self.work[..i].contains(&(p, id)) {
                out.push(Step::WorkDone(p, id));
            }
        }
        for (i, &(p, t)) in self.timers.iter().enumerate() {
            if !self.timers[..i].contains(&(p, t)) {
                out.push(Step::Fire(p, t));
            }
        }
        if b.progress {
            for (i, &w) in self.work.iter().enumerate() {
                if !self.work[..i].contains(&w) && !self.progressed.contains(&w) {
                    out.push(Step::Progress(w.0, w.1));
                }
            }
        }
    }

    /// Applies one step (one of `enabled`).
    pub fn apply(&mut self, scenario: &Scenario, step: Step) {
        self.steps += 1;
        self.world.now = self.steps;
        match step {
            Step::Send => {
                let k = self.sent;
                self.sent += 1;
                // The id the client chose, read from what it sent (a reused id need not be the
                // largest in flight).
                let id = self
                    .feed(scenario, Party::Client, Input::Command(Command::Send))
                    .iter()
                    .find_map(|o| match o {
                        Output::Send(Message::Request {
                            id,
                            method: Method::Work,
                        }) => Some(*id),
                        _ => None,
                    });
                self.ids[usize::from(k)] = id;
            }
            Step::Cancel(k) => {
                self.cancels[usize::from(k)] += 1;
                if let Some(id) = self.ids[usize::from(k)] {
                    self.feed(scenario, Party::Client, Input::Command(Command::Cancel(id)));
                }
            }
            Step::Deliver { to, index } => {
                let msg = self.net[to.index()].remove(usize::from(index));
                self.feed(scenario, to, Input::Receive(msg));
            }
            Step::Lose { to, index } => {
                let msg = self.net[to.index()].remove(usize::from(index));
                self.world.emit(cancelcheck_properties::Event::Lost {
                    from: to.peer(),
                    msg,
                });
            }
            Step::WorkDone(p, id) => {
                if let Some(i) = self.work.iter().position(|w| *w == (p, id)) {
                    self.work.remove(i);
                }
                self.progressed.retain(|w| *w != (p, id));
                self.feed(scenario, p, Input::WorkDone(id));
            }
            Step::Progress(p, id) => {
                insert_sorted(&mut self.progressed, (p, id));
                self.feed(scenario, p, Input::WorkProgress(id));
            }
            Step::Fire(p, t) => {
                if let Some(i) = self.timers.iter().position(|x| *x == (p, t)) {
                    self.timers.remove(i);
                }
                self.feed(scenario, p, Input::TimerFired(t));
            }
        }
    }

    /// Feeds one input and carries out what the endpoint did; returns its outputs.
    fn feed(&mut self, scenario: &Scenario, party: Party, input: Input) -> SmallVec<[Output; 16]> {
        let b = bounds(scenario);
        let outs: SmallVec<[Output; 16]> = SmallVec::from_slice(self.world.feed(party, input));
        for &out in &outs {
            match out {
                Output::Send(msg) => {
                    let q = &mut self.net[party.peer().index()];
                    if b.fifo {
                        q.push(msg)
                    } else {
                        insert_sorted(q, msg)
                    }
                }
                Output::StartWork(id) => insert_sorted(&mut self.work, (party, id)),
                Output::AbortWork(id) => {
                    if let Some(i) = self.work.iter().position(|w| *w == (party, id)) {
                        self.work.remove(i);
                    }
                    self.progressed.retain(|w| *w != (party, id));
                }
                Output::ArmTimer(t) => {
                    let armed = match t {
                        Timer::RequestTimeout(_) => b.timeouts,
                        Timer::InitTimeout => b.init_timeout,
                    };
                    if armed {
                        insert_sorted(&mut self.timers, (party, t));
                    }
                }
                Output::DisarmTimer(t) => self.timers.retain(|x| *x != (party, t)),
                _ => {}
            }
        }
        outs
    }

    /// Everything that affects the future, hashed stably: both endpoints, the checker's
    /// records, in-flight messages (as a multiset on a reordering link), running work, armed
    /// timers and the application's script position.
    pub fn fingerprint(&self) -> u64 {
        let mut h = StableHasher::default();
        self.world.fingerprint(&mut h);
        // Queues on a reordering link, work and timers are kept sorted: hash them as they are.
        self.net.hash(&mut h);
        self.work.hash(&mut h);
        self.progressed.hash(&mut h);
        self.timers.hash(&mut h);
        self.sent.hash(&mut h);
        self.cancels.hash(&mut h);
        self.ids.hash(&mut h);
        h.finish()
    }

    /// The fingerprint of this state's canonical relabelling: work-request ids are handed out
    /// again in the order of what each request's state looks like (every component's record of
    /// it, its messages and their FIFO positions, its work, timers and cancels), so states that
    /// differ only by a permutation of interchangeable requests share one fingerprint. Only
    /// sound where [`symmetric`] holds.
    pub fn canonical_fingerprint(&self, scenario: &Scenario) -> u64 {
        let sent = usize::from(self.sent);
        let ids: SmallVec<[RequestId; 8]> = self.ids[..sent].iter().flatten().copied().collect();
        if ids.len() < 2 {
            return self.fingerprint();
        }
        let fifo = bounds(scenario).fifo;
        let mut by_look: SmallVec<[(u64, RequestId); 8]> =
            ids.iter().map(|&x| (self.signature(x, fifo), x)).collect();
        by_look.sort_unstable();
        let mut slots = ids;
        slots.sort_unstable();
        let rename = |x: RequestId| {
            by_look
                .iter()
                .position(|(_, y)| *y == x)
                .map_or(x, |i| slots[i])
        };
        let mut canonical = self.clone();
        canonical.relabel(rename, fifo);
        canonical.fingerprint()
    }

    /// Everything about request `x` except its id.
    fn signature(&self, x: RequestId, fifo: bool) -> u64 {
        let mut h = StableHasher::default();
        self.world.hash_request(x, &mut h);
        for q in &self.net {
            0xFFu8.hash(&mut h);
            for (pos, m) in q.iter().enumerate() {
                if m.request_id() == Some(x) {
                    if fifo {
                        pos.hash(&mut h);
                    }
                    m.with_request_id(RequestId::Null).hash(&mut h);
                }
            }
        }
        for &(p, y) in self.work.iter().chain(&self.progressed) {
            if y == x {
                p.hash(&mut h);
            }
        }
        1u8.hash(&mut h);
        for &(p, t) in &self.timers {
            if t == Timer::RequestTimeout(x) {
                p.hash(&mut h);
            }
        }
        for (k, id) in self.ids.iter().enumerate() {
            if *id == Some(x) {
                self.cancels[k].hash(&mut h);
            }
        }
        h.finish()
    }

    /// Renames request ids everywhere, keeping sorted what is kept sorted.
    fn relabel(&mut self, f: impl Fn(RequestId) -> RequestId + Copy, fifo: bool) {
        self.world.relabel(f);
        for q in &mut self.net {
            for m in q.iter_mut() {
                if let Some(id) = m.request_id() {
                    *m = m.with_request_id(f(id));
                }
            }
            if !fifo {
                q.sort_unstable();
            }
        }
        for w in self.work.iter_mut().chain(self.progressed.iter_mut()) {
            w.1 = f(w.1);
        }
        self.work.sort_unstable();
        self.progressed.sort_unstable();
        for t in &mut self.timers {
            if let Timer::RequestTimeout(id) = t.1 {
                t.1 = Timer::RequestTimeout(f(id));
            }
        }
        self.timers.sort_unstable();
        // The application's requests, in the order of their new ids.
        let sent = usize::from(self.sent);
        let mut apps: SmallVec<[(Option<RequestId>, u8); 8]> = (0..sent)
            .map(|k| (self.ids[k].map(f), self.cancels[k]))
            .collect();
        apps.sort_unstable();
        for (k, (id, c)) in apps.into_iter().enumerate() {
            self.ids[k] = id;
            self.cancels[k] = c;
        }
    }

    /// The steps to expand from this state, each with its index among all enabled steps (what
    /// a schedule records). With `reduce`, when the enabled steps belong to several requests,
    /// only those of one request are kept (the one with the fewest, then the earliest): an
    /// ample set. See [`partial_order`] for when that is sound.
    pub fn to_expand(&self, scenario: &Scenario, reduce: bool, out: &mut Vec<(u32, Step)>) {
        let mut all = Vec::new();
        self.enabled(scenario, &mut all);
        out.clear();
        let chosen = if reduce {
            self.ample_request(&all)
        } else {
            None
        };
        for (i, step) in all.into_iter().enumerate() {
            if chosen.is_none() || self.step_request(step) == chosen {
                out.push((i as u32, step));
            }
        }
    }

    /// The request a step belongs to: 0 for `initialize` and messages naming no work request,
    /// `k + 1` for the client's `k`-th request.
    fn step_request(&self, step: Step) -> Option<u32> {
        let of_id = |id: RequestId| {
            let sent = usize::from(self.sent);
            Some(
                self.ids[..sent]
                    .iter()
                    .position(|x| *x == Some(id))
                    .map_or(0, |k| k as u32 + 1),
            )
        };
        match step {
            Step::Send => Some(u32::from(self.sent) + 1),
            Step::Cancel(k) => Some(u32::from(k) + 1),
            Step::Deliver { to, index } | Step::Lose { to, index } => self.net[to.index()]
                .get(usize::from(index))?
                .request_id()
                .and_then(of_id),
            Step::WorkDone(_, id) | Step::Progress(_, id) => of_id(id),
            Step::Fire(_, Timer::RequestTimeout(id)) => of_id(id),
            Step::Fire(_, Timer::InitTimeout) => Some(0),
        }
    }

    /// The request whose steps form the ample set, if reducing helps (steps of two or more
    /// requests are enabled) and every step belongs to a request.
    fn ample_request(&self, steps: &[Step]) -> Option<u32> {
        let mut counts: SmallVec<[(u32, u32); 8]> = SmallVec::new();
        for &step in steps {
            let r = self.step_request(step)?;
            match counts.iter_mut().find(|(k, _)| *k == r) {
                Some(c) => c.1 += 1,
                None => counts.push((r, 1)),
            }
        }
        if counts.len() < 2 {
            return None;
        }
        counts.iter().min_by_key(|(k, n)| (*n, *k)).map(|(k, _)| *k)
    }

    /// Ends the run here (quiescent when nothing is enabled) and returns the verdict.
    pub fn finish(mut self, quiescent: bool) -> (Verdict, World) {
        self.world.end(quiescent);
        let v = self.world.checker_mut().take_verdict();
        (v, self.world)
    }

    fn violated(&self) -> bool {
        self.world.checker().violated().0 != 0
    }

    fn reached(&self) -> PropertySet {
        self.world.checker().verdict().reached
    }
}

/// How to search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Stop expanding at this depth (the search is then bounded, never a plain pass).
    pub max_depth: Option<u32>,
    /// Worker threads for expanding a level.
    pub threads: usize,
    /// Stop after this many unique states (bounded).
    pub max_states: Option<u64>,
    /// Depth-first instead of breadth-first: memory grows with the depth, not the width, but
    /// the first counterexample need not be a shortest one, and with a depth bound a state
    /// first met deep is not revisited from shallower paths (the bound is then approximate).
    /// Single-threaded.
    pub depth_first: bool,
    /// Deduplicate states up to a permutation of interchangeable requests (applied only where
    /// [`symmetric`] holds; see [`SearchReport::symmetry`]).
    pub symmetry: bool,
    /// Expand, from each state, only the steps of one request when steps of several are enabled
    /// (applied only where [`partial_order`] holds; see [`SearchReport::partial_order`]).
    pub partial_order: bool,
}

/// What a search found.
#[derive(Clone, Debug, Default)]
pub struct SearchReport {
    /// Distinct states visited.
    pub unique_states: u64,
    /// States generated, duplicates included.
    pub total_states: u64,
    /// Deepest level reached.
    pub max_depth: u32,
    /// Whether every reachable state was visited (no bound cut the search).
    pub exhaustive: bool,
    /// Races reached by some visited state.
    pub reached: PropertySet,
    /// The most states held at once (frontier plus the next level).
    pub peak_states_held: u64,
    /// Whether the symmetry reduction was applied.
    pub symmetry: bool,
    /// Whether the partial-order reduction was applied.
    pub partial_order: bool,
    /// The first counterexample found: its schedule (initial state index, then the index of
    /// each step in `enabled`) and the invariants it breaks. A shortest one.
    pub counterexample: Option<(Vec<u32>, Vec<cancelcheck_properties::InvariantId>)>,
}

impl SearchReport {
    fn starting(symmetry: bool, partial_order: bool) -> Self {
        SearchReport {
            exhaustive: true,
            symmetry,
            partial_order,
            ..SearchReport::default()
        }
    }
}

struct Node {
    parent: u32,
    choice: u32,
}

fn path_to(nodes: &[Node], mut i: u32) -> Vec<u32> {
    let mut path = Vec::new();
    loop {
        let n = &nodes[i as usize];
        path.push(n.choice);
        if n.parent == u32::MAX {
            break;
        }
        i = n.parent;
    }
    path.reverse();
    path
}

/// Explores `scenario` breadth-first. `progress(depth, unique, frontier)` is called after each
/// level.
pub fn search(
    scenario: &Scenario,
    opts: &SearchOptions,
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> SearchReport {
    if opts.depth_first {
        return search_depth_first(scenario, opts);
    }
    let sym = opts.symmetry && symmetric(scenario);
    let por = opts.partial_order && partial_order(scenario);
    let mut report = SearchReport::starting(sym, por);
    let mut seen = FingerprintSet::default();
    let mut nodes: Vec<Node> = Vec::new();
    // A level: its states, in arenas (one while merged, one per thread while expanded), and
    // the unique ones among them as (arena, index, node).
    let mut arenas: Vec<Vec<Explorer>> = vec![Vec::new()];
    let mut frontier: Vec<(u32, u32, u32)> = Vec::new();
    let inits = initial_scenarios(scenario);
    for (i, s) in inits.iter().enumerate() {
        let e = Explorer::new(s, false);
        report.total_states += 1;
        if seen.insert(key(&e, s, sym)) {
            nodes.push(Node {
                parent: u32::MAX,
                choice: i as u32,
            });
            frontier.push((0, arenas[0].len() as u32, (nodes.len() - 1) as u32));
            arenas[0].push(e);
        }
    }
    // The initial scenarios differ only in what the server declares, which lives in the
    // endpoints; the step rules read the shared fields, so the first serves for all.
    let rules = &inits[0];
    let threads = opts.threads.clamp(1, 64);
    let mut depth = 0u32;
    while !frontier.is_empty() {
        report.max_depth = depth;
        report.peak_states_held = report.peak_states_held.max(frontier.len() as u64);
        if opts.max_depth.is_some_and(|d| depth >= d) {
            report.exhaustive = false;
            break;
        }
        let chunk = frontier.len().div_ceil(threads).max(1);
        // Expand in parallel: for each parent, in order, its children in choice order.
        let expanded: Vec<(Vec<Explorer>, Vec<Child>)> = std::thread::scope(|scope| {
            let arenas = &arenas;
            let handles: Vec<_> = frontier
                .chunks(chunk)
                .map(|part| scope.spawn(move || expand_all(rules, arenas, part, sym, por)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        // A quiescent state's own violation is shallower than any child's: report it first.
        let first_bad = expanded
            .iter()
            .flat_map(|(_, cs)| cs.iter())
            .filter(|c| c.violation.is_some())
            .min_by_key(|c| c.choice.is_some());
        if let Some(c) = first_bad {
            report.total_states += expanded.iter().map(|(_, cs)| cs.len() as u64).sum::<u64>();
            let mut path = path_to(&nodes, c.parent);
            if let Some(choice) = c.choice {
                path.push(choice);
            }
            report.counterexample = Some((path, c.violation.clone().unwrap_or_default()));
            report.unique_states = seen.len() as u64;
            report.max_depth = depth + u32::from(c.choice.is_some());
            for (_, cs) in &expanded {
                for c in cs {
                    report.reached = report.reached.union(c.reached);
                }
            }
            return report;
        }
        report.peak_states_held = report
            .peak_states_held
            .max(expanded.iter().map(|(a, _)| a.len() as u64).sum::<u64>() + frontier.len() as u64);
        // Keep the new states only, moved into one compact arena, in merge order.
        let mut next = Vec::new();
        let mut kept: Vec<Explorer> = Vec::new();
        for (arena, children) in expanded {
            let mut keep = vec![false; arena.len()];
            // Slots grow with the children's order, so kept states keep that order too.
            let mut position = kept.len() as u32;
            for child in &children {
                report.total_states += 1;
                report.reached = report.reached.union(child.reached);
                let Some(slot) = child.slot else { continue };
                if seen.insert(child.fingerprint) {
                    nodes.push(Node {
                        parent: child.parent,
                        choice: child.choice.unwrap_or(0),
                    });
                    keep[slot as usize] = true;
                    next.push((0, position, (nodes.len() - 1) as u32));
                    position += 1;
                }
            }
            kept.extend(
                arena
                    .into_iter()
                    .zip(keep)
                    .filter_map(|(e, k)| k.then_some(e)),
            );
            if opts.max_states.is_some_and(|m| seen.len() as u64 >= m) {
                report.exhaustive = false;
                report.unique_states = seen.len() as u64;
                return report;
            }
        }
        arenas = vec![kept];
        frontier = next;
        depth += 1;
        progress(depth, seen.len() as u64, frontier.len() as u64);
    }
    report.unique_states = seen.len() as u64;
    report
}

struct Frame {
    state: Explorer,
    /// The steps to expand, each with its index among all enabled steps.
    steps: Vec<(u32, Step)>,
    next: usize,
}

/// The choices that led to the top of `stack` (the step taken last from every frame below the
/// top, as its index among all enabled steps).
fn stack_path(root: usize, stack: &[Frame]) -> Vec<u32> {
    let mut p = vec![root as u32];
    p.extend(
        stack
            .iter()
            .take(stack.len().saturating_sub(1))
            .map(|f| f.steps[f.next - 1].0),
    );
    p
}

/// The state's key in the visited set.
fn key(e: &Explorer, s: &Scenario, symmetry: bool) -> u64 {
    if symmetry {
        e.canonical_fingerprint(s)
    } else {
        e.fingerprint()
    }
}

fn search_depth_first(scenario: &Scenario, opts: &SearchOptions) -> SearchReport {
    let sym = opts.symmetry && symmetric(scenario);
    let por = opts.partial_order && partial_order(scenario);
    let mut report = SearchReport::starting(sym, por);
    let mut seen = FingerprintSet::default();
    let inits = initial_scenarios(scenario);
    let rules = &inits[0];
    for (root, s) in inits.iter().enumerate() {
        let e = Explorer::new(s, false);
        report.total_states += 1;
        if !seen.insert(key(&e, s, sym)) {
            continue;
        }
        let mut steps = Vec::new();
        e.to_expand(rules, por, &mut steps);
        let mut stack = vec![Frame {
            state: e,
            steps,
            next: 0,
        }];
        while !stack.is_empty() {
            let depth = (stack.len() - 1) as u32;
            report.max_depth = report.max_depth.max(depth);
            report.peak_states_held = report.peak_states_held.max(stack.len() as u64);
            let Some(top) = stack.last_mut() else { break };
            if top.steps.is_empty() {
                let (v, _) = top.state.clone().finish(true);
                report.reached = report.reached.union(v.reached);
                if !v.passed() {
                    let broken = v.violations.iter().map(|x| x.invariant).collect();
                    report.counterexample = Some((stack_path(root, &stack), broken));
                    report.unique_states = seen.len() as u64;
                    return report;
                }
                stack.pop();
                continue;
            }
            if top.next >= top.steps.len() {
                stack.pop();
                continue;
            }
            if opts.max_depth.is_some_and(|d| depth >= d) {
                report.exhaustive = false;
                stack.pop();
                continue;
            }
            let (choice, step) = top.steps[top.next];
            top.next += 1;
            let mut child = top.state.clone();
            child.apply(rules, step);
            report.total_states += 1;
            report.reached = report.reached.union(child.reached());
            if child.violated() {
                let broken = child.world.checker().broken();
                let mut p = stack_path(root, &stack);
                p.push(choice);
                report.counterexample = Some((p, broken));
                report.unique_states = seen.len() as u64;
                return report;
            }
            if seen.insert(key(&child, rules, sym)) {
                if opts.max_states.is_some_and(|m| seen.len() as u64 >= m) {
                    report.exhaustive = false;
                    report.unique_states = seen.len() as u64;
                    return report;
                }
                let mut steps = Vec::new();
                child.to_expand(rules, por, &mut steps);
                stack.push(Frame {
                    state: child,
                    steps,
                    next: 0,
                });
            }
        }
    }
    report.unique_states = seen.len() as u64;
    report
}

/// One generated successor (or a quiescent state's end-of-run check, `choice: None`).
struct Child {
    parent: u32,
    choice: Option<u32>,
    fingerprint: u64,
    /// Where the state is in its thread's arena (none for a violation).
    slot: Option<u32>,
    reached: PropertySet,
    violation: Option<Vec<cancelcheck_properties::InvariantId>>,
}

fn expand_all(
    s: &Scenario,
    arenas: &[Vec<Explorer>],
    part: &[(u32, u32, u32)],
    sym: bool,
    por: bool,
) -> (Vec<Explorer>, Vec<Child>) {
    let mut steps = Vec::new();
    // Size the arena exactly first: growing it would copy every state already in it.
    let total: usize = part
        .iter()
        .map(|&(a, i, _)| {
            arenas[a as usize][i as usize].to_expand(s, por, &mut steps);
            steps.len()
        })
        .sum();
    let mut arena: Vec<Explorer> = Vec::with_capacity(total);
    let mut out = Vec::with_capacity(total + 1);
    for &(a, i, node) in part {
        let state = &arenas[a as usize][i as usize];
        state.to_expand(s, por, &mut steps);
        if steps.is_empty() {
            // Quiescent: the eventual properties are judged here.
            let (v, _) = state.clone().finish(true);
            if !v.passed() {
                out.push(Child {
                    parent: node,
                    choice: None,
                    fingerprint: 0,
                    slot: None,
                    reached: v.reached,
                    violation: Some(v.violations.iter().map(|x| x.invariant).collect()),
                });
            }
            continue;
        }
        for &(c, step) in &steps {
            arena.push(state.clone());
            let slot = arena.len() - 1;
            let child = &mut arena[slot];
            child.apply(s, step);
            let reached = child.reached();
            let choice = Some(c);
            if child.violated() {
                let v = child.world.checker().broken();
                arena.pop();
                out.push(Child {
                    parent: node,
                    choice,
                    fingerprint: 0,
                    slot: None,
                    reached,
                    violation: Some(v),
                });
                continue;
            }
            let fingerprint = key(child, s, sym);
            out.push(Child {
                parent: node,
                choice,
                fingerprint,
                slot: Some(slot as u32),
                reached,
                violation: None,
            });
        }
    }
    (arena, out)
}

/// A schedule replayed: the verdict, every event, and how many of the schedule's entries
/// could be applied (all of them, for a schedule the explorer produced).
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The checker's verdict.
    pub verdict: Verdict,
    /// Every event.
    pub events: Vec<crate::world::Timed>,
    /// Entries of the schedule applied: the initial state's index counts as one. A choice out
    /// of range (or an initial index that does not exist) stops the run there.
    pub applied: usize,
}

/// Re-runs a schedule (from [`SearchReport::counterexample`] or a trace) with every event
/// recorded.
pub fn replay(scenario: &Scenario, schedule: &[u32]) -> Replayed {
    let inits = initial_scenarios(scenario);
    let Some((init, rest)) = schedule
        .split_first()
        .and_then(|(&first, rest)| Some((inits.get(first as usize)?, rest)))
    else {
        return Replayed {
            verdict: Verdict::default(),
            events: Vec::new(),
            applied: 0,
        };
    };
    let mut e = Explorer::new(init, true);
    let mut steps = Vec::new();
    let mut applied = 1;
    for &c in rest {
        e.enabled(init, &mut steps);
        let Some(&step) = steps.get(c as usize) else {
            break;
        };
        e.apply(init, step);
        applied += 1;
    }
    e.enabled(init, &mut steps);
    let (verdict, mut world) = e.finish(steps.is_empty());
    Replayed {
        verdict,
        events: world.take_log(),
        applied,
    }
}
