//! The search's own form of a state without the symmetry reduction: one fixed row of bytes.
//!
//! Small configurations have few distinct endpoint states, checker states and messages (at 3
//! requests with timeouts on a reordering link: a few hundred endpoints, a few thousand
//! checkers, a few dozen messages) but hundreds of thousands of combinations of them. So a
//! [`Flat`] state names each endpoint and the checker by its number in a store the threads
//! share, and each message, piece of work, timer and request id by a one-byte code, handed out
//! in the order they are first met. The whole state is then a row of bytes in a layout fixed
//! for the search ([`Layout`]): copying a state, packing it and unpacking it are each one copy
//! of the row, and the row is its own key in the visited set.
//!
//! Stepping looks the transition up in a per-thread [`FlatMemo`], keyed by the fed endpoint,
//! the checker and the coded input. Only a transition met for the first time materializes the
//! parts in a [`World`], feeds it there, and codes what came out (under the store's lock);
//! everything after that is table work on codes.
//!
//! Every table of the row is kept in the order the plain [`Explorer`] keeps its own (sorted by
//! the decoded values where that one sorts), and the steps are listed in the same order, so a
//! flat state and the plain state it codes have the same steps at the same indices: schedules,
//! counts and counterexamples do not depend on the form (the lockstep test in
//! `sim/tests/packing.rs` checks this). The numbering of codes may differ from run to run on
//! several threads; it is a bijection within a run, so it changes only which bytes stand for a
//! state, never which states are equal. Transitions are known by 64-bit fingerprints of their
//! key, the risk the visited set already takes.
//!
//! A row has room for a bounded number of messages, pieces of work and timers (see
//! [`Layout`]), and each kind of code for 255 values. A state that does not fit spoils the
//! search in this form ([`FlatMemo::spoilt`]); the search then runs again on plain worlds.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::Method;
use cancelcheck_model::pack::{PackError, Reader};
use cancelcheck_model::{Command, Input, Message, Output, Party, RequestId};
use cancelcheck_properties::{Event, InvariantId, PropertySet, Verdict};

use super::hash::{FingerprintMap, StableHasher, fingerprint_pair};
use super::state::Explorer;
use super::{Bounds, bounds};
use crate::scenario::Scenario;
use crate::world::World;

/// The longest row: a layout that needs more does not use the flat form.
const ROW: usize = 192;

/// Offsets of the fixed head of a row: the initial scenario, the client's, the server's and
/// the checker's numbers (4 bytes each, little-endian), whether the client is ready, requests
/// sent, duplications left.
const ROOT: usize = 0;
const ENDPOINTS: [usize; 2] = [1, 5];
const CHECKER: usize = 9;
const READY: usize = 13;
const SENT: usize = 14;
const DUPLICATES: usize = 15;
const HEAD: usize = 16;

/// Where each table sits in a row, and how much each holds. After the head: each request's
/// cancels and id code (in sending order), then the tables (a length byte, then that many codes,
/// then zeros up to the capacity): in-flight messages towards the client and towards the server,
/// running work, work that reported progress, armed timers.
#[derive(Clone, Copy, Debug)]
struct Layout {
    b: Bounds,
    // Offsets and capacities, each below the row's length (a byte keeps the layout small:
    // every step copies it).
    cancels: u8,
    ids: u8,
    net: [u8; 2],
    work: u8,
    progressed: u8,
    timers: u8,
    len: u8,
    net_cap: u8,
    work_cap: u8,
    timer_cap: u8,
}

impl Layout {
    /// The layout for a search with bounds `b`: room towards each party for every request's
    /// request, cancels and answers, `initialize` and its answer, and any duplicate; running
    /// work and timers for every request and one more. `None` if that exceeds a row.
    fn new(b: Bounds) -> Option<Layout> {
        let n = usize::from(b.requests);
        let net_cap = 2 + n * (2 + usize::from(b.cancels_each)) + usize::from(b.duplicates);
        Layout::with_capacities(b, net_cap, n + 1, n + 2)
    }

    fn with_capacities(
        b: Bounds,
        net_cap: usize,
        work_cap: usize,
        timer_cap: usize,
    ) -> Option<Layout> {
        let n = usize::from(b.requests);
        let cancels = HEAD;
        let ids = cancels + n;
        let net0 = ids + n;
        let net1 = net0 + 1 + net_cap;
        let work = net1 + 1 + net_cap;
        let progressed = work + 1 + work_cap;
        let timers = progressed + 1 + work_cap;
        let len = timers + 1 + timer_cap;
        let byte = |x: usize| x as u8;
        (len <= ROW).then_some(Layout {
            b,
            cancels: byte(cancels),
            ids: byte(ids),
            net: [byte(net0), byte(net1)],
            work: byte(work),
            progressed: byte(progressed),
            timers: byte(timers),
            len: byte(len),
            net_cap: byte(net_cap),
            work_cap: byte(work_cap),
            timer_cap: byte(timer_cap),
        })
    }
}

/// Values of one kind by one-byte code. Code 0 stands for none; codes 1 to 255 are handed out
/// in the order values are first met. Each value carries the code of the request id it is
/// about (0 for none).
struct Table<T> {
    codes: HashMap<T, u8>,
    values: Vec<T>,
    ids: Vec<u8>,
}

impl<T: Copy + Eq + Hash> Table<T> {
    /// A table whose code 0 decodes to `none` (never read as a value).
    fn new(none: T) -> Self {
        Table {
            codes: HashMap::new(),
            values: vec![none],
            ids: vec![0],
        }
    }

    /// The code of `v` (about id code `id`), handed out if new; `None` when all 255 are taken.
    fn code(&mut self, v: T, id: u8) -> Option<u8> {
        if let Some(&c) = self.codes.get(&v) {
            return Some(c);
        }
        let c = u8::try_from(self.values.len()).ok()?;
        self.values.push(v);
        self.ids.push(id);
        self.codes.insert(v, c);
        Some(c)
    }
}

/// What the threads of a flat search share: the codes and the parts, by number.
struct Tables {
    msgs: Table<Message>,
    works: Table<(Party, RequestId)>,
    timers: Table<(Party, Timer)>,
    ids: Table<RequestId>,
    parts: HashMap<Box<[u8]>, u32, BuildHasherDefault<StableHasher>>,
    part_bytes: Vec<Box<[u8]>>,
}

impl Tables {
    fn values(&self) -> usize {
        self.msgs.values.len()
            + self.works.values.len()
            + self.timers.values.len()
            + self.ids.values.len()
    }

    fn id(&mut self, id: RequestId) -> Option<u8> {
        self.ids.code(id, 0)
    }

    fn msg(&mut self, m: Message) -> Option<u8> {
        let id = match m.request_id() {
            Some(id) => self.id(id)?,
            None => 0,
        };
        self.msgs.code(m, id)
    }

    fn work(&mut self, w: (Party, RequestId)) -> Option<u8> {
        let id = self.id(w.1)?;
        self.works.code(w, id)
    }

    fn timer(&mut self, t: (Party, Timer)) -> Option<u8> {
        let id = match t.1 {
            Timer::RequestTimeout(id) => self.id(id)?,
            Timer::InitTimeout => 0,
        };
        self.timers.code(t, id)
    }

    /// The number of `bytes` as a part, handed out if new.
    fn part(&mut self, bytes: &[u8]) -> u32 {
        if let Some(&i) = self.parts.get(bytes) {
            return i;
        }
        let i = self.part_bytes.len() as u32;
        self.part_bytes.push(bytes.into());
        self.parts.insert(bytes.into(), i);
        i
    }
}

/// The tables of a flat search, shared by its threads, and its layout.
pub struct FlatShared {
    tables: RwLock<Tables>,
    /// How many coded values the tables hold: a thread whose copy holds fewer copies again.
    values: AtomicUsize,
    layout: Layout,
}

impl FlatShared {
    /// Empty tables for a search of `rules`; `None` if its states would not fit a row.
    pub fn new(rules: &Scenario) -> Option<Arc<FlatShared>> {
        Layout::new(bounds(rules)).map(FlatShared::with_layout)
    }

    /// Tables for rows of `rules` with room for only `cap` messages per direction (to test
    /// what happens when a state does not fit).
    #[cfg(test)]
    pub(super) fn with_net_capacity(rules: &Scenario, cap: usize) -> Arc<FlatShared> {
        let b = bounds(rules);
        let n = usize::from(b.requests);
        let layout = Layout::with_capacities(b, cap, n + 1, n + 2);
        FlatShared::with_layout(layout.unwrap_or_else(|| panic!("{cap} fits a row")))
    }

    fn with_layout(layout: Layout) -> Arc<FlatShared> {
        let tables = Tables {
            msgs: Table::new(Message::MalformedCancel),
            works: Table::new((Party::Client, RequestId::Null)),
            timers: Table::new((Party::Client, Timer::InitTimeout)),
            ids: Table::new(RequestId::Null),
            parts: HashMap::default(),
            part_bytes: Vec::new(),
        };
        Arc::new(FlatShared {
            values: AtomicUsize::new(tables.values()),
            tables: RwLock::new(tables),
            layout,
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Tables> {
        self.tables.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Tables> {
        self.tables.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// A thread's copy of the coded values (index = code), refreshed when the shared tables grow.
#[derive(Default)]
struct Decoded {
    msgs: Vec<Message>,
    msg_ids: Vec<u8>,
    works: Vec<(Party, RequestId)>,
    work_ids: Vec<u8>,
    timers: Vec<(Party, Timer)>,
    timer_ids: Vec<u8>,
    ids: Vec<RequestId>,
    values: usize,
}

impl Decoded {
    fn copy_from(&mut self, t: &Tables) {
        fn tail<T: Copy>(to: &mut Vec<T>, from: &[T]) {
            let have = to.len();
            to.extend_from_slice(&from[have..]);
        }
        tail(&mut self.msgs, &t.msgs.values);
        tail(&mut self.msg_ids, &t.msgs.ids);
        tail(&mut self.works, &t.works.values);
        tail(&mut self.work_ids, &t.works.ids);
        tail(&mut self.timers, &t.timers.values);
        tail(&mut self.timer_ids, &t.timers.ids);
        tail(&mut self.ids, &t.ids.values);
        self.values = t.values();
    }
}

/// What a transition asks of the driver, in codes: a message to send (to the fed party's
/// peer), work to start or abort (the fed party's), a timer to arm or disarm.
#[derive(Clone, Copy, Debug)]
enum Op {
    Send(u8),
    StartWork(u8),
    AbortWork(u8),
    Arm(u8),
    Disarm(u8),
}

/// What a transition does: the endpoint fed and the checker afterwards (numbers), the driver's
/// part (a range of the memo's ops), and the verdict of the step alone (a range of the memo's
/// broken lists). A checker-only event leaves `endpoint` unused.
#[derive(Clone, Copy, Default)]
struct Effect {
    endpoint: u32,
    checker: u32,
    reached: PropertySet,
    ops: u32,
    broken: u32,
    n_ops: u8,
    n_broken: u8,
    /// For the client: whether its session is open afterwards.
    ready: bool,
    /// The id code of the work request it sent, if any (what the application learns of a
    /// `Send`).
    sent_id: u8,
}

/// An input as codes.
#[derive(Clone, Copy, Debug)]
enum Fed {
    Send,
    Cancel(u8),
    Receive(u8),
    WorkDone(u8),
    Progress(u8),
    Fire(u8),
}

impl Fed {
    fn code(self) -> (u64, u64) {
        match self {
            Fed::Send => (1, 0),
            Fed::Cancel(c) => (2, u64::from(c)),
            Fed::Receive(c) => (3, u64::from(c)),
            Fed::WorkDone(c) => (4, u64::from(c)),
            Fed::Progress(c) => (5, u64::from(c)),
            Fed::Fire(c) => (6, u64::from(c)),
        }
    }
}

/// What a step shows the parties, as codes.
#[derive(Clone, Copy, Debug)]
enum Stim {
    Feed(Party, Fed),
    /// Shown to the checker alone: `(from, message, duplicated rather than lost)`.
    Emit(Party, u8, bool),
    Nothing,
}

/// One step of a flat state, as [`Flat::enabled`] lists it: the choice, with what it will show
/// the parties and that transition's memo key, worked out once when the steps are listed (they
/// hold for the state listed and its copies, which is where a search applies them).
#[derive(Clone, Copy, Debug)]
pub struct FlatStep {
    choice: Choice,
    stim: Stim,
    /// The memo key of `stim` (unused for [`Stim::Nothing`]).
    key: u64,
}

/// One choice of what happens next in a flat state: the same choices as [`super::Step`], with
/// work and timers by their place in their table.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Choice {
    /// The client sends its next request.
    Send,
    /// The application cancels request number `k`.
    Cancel(u8),
    /// The message at this place towards the party is delivered.
    Deliver(Party, u8),
    /// The message at this place towards the party is lost.
    Lose(Party, u8),
    /// The work at this place of the work table finishes.
    WorkDone(u8),
    /// The timer at this place of the timer table fires.
    Fire(u8),
    /// The work at this place of the work table reports progress.
    Progress(u8),
    /// The message at this place towards the party will be delivered twice.
    Duplicate(Party, u8),
}

/// One thread's memo of transitions, its copy of the codes, and the worlds (one per initial
/// scenario) in which it works out the transitions it has not met.
pub struct FlatMemo {
    shared: Arc<FlatShared>,
    worlds: Vec<World>,
    effects: FingerprintMap<Effect>,
    ops: Vec<Op>,
    broken: Vec<InvariantId>,
    last_broken: (u32, u8),
    decoded: Decoded,
    /// Set when a state did not fit its row or a code table ran out.
    spoilt: bool,
    bytes: Vec<u8>,
}

impl FlatMemo {
    /// A memo sharing `shared`'s tables, for states descending from `worlds` (one per initial
    /// scenario, in order; only their configurations matter).
    pub fn new(shared: Arc<FlatShared>, worlds: Vec<World>) -> Self {
        let mut m = FlatMemo {
            shared,
            worlds,
            effects: FingerprintMap::default(),
            ops: Vec::new(),
            broken: Vec::new(),
            last_broken: (0, 0),
            decoded: Decoded::default(),
            spoilt: false,
            bytes: Vec::new(),
        };
        m.sync();
        m
    }

    /// Whether some state did not fit the flat form: what was searched with this memo is void.
    pub fn spoilt(&self) -> bool {
        self.spoilt
    }

    /// The invariants broken by the last step that broke one.
    pub fn broken(&self) -> Vec<InvariantId> {
        let (at, n) = self.last_broken;
        self.broken[at as usize..][..usize::from(n)].to_vec()
    }

    /// Copies the codes other threads added.
    fn sync(&mut self) {
        if self.shared.values.load(Ordering::Acquire) != self.decoded.values {
            let t = self.shared.read();
            self.decoded.copy_from(&t);
        }
    }

    /// Codes values under the write lock (`f` returns `None` when a table runs out, which
    /// spoils the search), then refreshes this thread's copy.
    fn coding<R: Default>(&mut self, f: impl FnOnce(&mut Tables) -> Option<R>) -> R {
        let r = {
            let mut t = self.shared.write();
            let r = f(&mut t);
            let values = t.values();
            if values != self.decoded.values {
                self.shared.values.store(values, Ordering::Release);
                self.decoded.copy_from(&t);
            }
            r
        };
        r.unwrap_or_else(|| {
            self.spoilt = true;
            R::default()
        })
    }

    /// Loads part number `n` (an endpoint's, or with `None` the checker's) into the world of
    /// `root`.
    fn load(&mut self, root: u8, part: Option<Party>, n: u32) {
        let w = &mut self.worlds[usize::from(root)];
        let t = self.shared.read();
        let mut r = Reader::new(&t.part_bytes[n as usize]);
        let done = match part {
            Some(p) => w.unpack_endpoint(p, &mut r),
            None => w.unpack_checker(&mut r),
        };
        if let Err(e) = done.and_then(|()| match r.is_empty() {
            true => Ok(()),
            false => Err(PackError::BadTag("end of part", 0)),
        }) {
            // Only `save` stores parts, packed from a world.
            panic!("explorer: a stored part does not unpack ({e})");
        }
    }

    /// Stores part `part` (an endpoint's, or with `None` the checker's) of the world of `root`
    /// and returns its number.
    fn save(&mut self, root: u8, part: Option<Party>) -> u32 {
        let w = &self.worlds[usize::from(root)];
        self.bytes.clear();
        match part {
            Some(p) => w.pack_endpoint(p, &mut self.bytes),
            None => w.pack_checker(&mut self.bytes),
        }
        let known = self.shared.read().parts.get(&self.bytes[..]).copied();
        known.unwrap_or_else(|| self.shared.write().part(&self.bytes))
    }

    /// Works out what `stim` does to `state` in a world.
    fn work_out(&mut self, state: &Flat, stim: Stim) -> Effect {
        let root = state.row[ROOT];
        self.load(root, None, state.checker());
        let d = &self.decoded;
        let (party, input) = match stim {
            Stim::Feed(p, fed) => (
                p,
                match fed {
                    Fed::Send => Input::Command(Command::Send),
                    Fed::Cancel(c) => Input::Command(Command::Cancel(d.ids[usize::from(c)])),
                    Fed::Receive(c) => Input::Receive(d.msgs[usize::from(c)]),
                    Fed::WorkDone(c) => Input::WorkDone(d.works[usize::from(c)].1),
                    Fed::Progress(c) => Input::WorkProgress(d.works[usize::from(c)].1),
                    Fed::Fire(c) => Input::TimerFired(d.timers[usize::from(c)].1),
                },
            ),
            Stim::Emit(from, c, duplicated) => {
                let msg = d.msgs[usize::from(c)];
                let event = match duplicated {
                    true => Event::Duplicated { from, msg },
                    false => Event::Lost { from, msg },
                };
                self.worlds[usize::from(root)].emit(event);
                return self.effect(root, self.ops.len() as u32);
            }
            Stim::Nothing => return Effect::default(),
        };
        self.load(root, Some(party), state.endpoint(party));
        let w = &mut self.worlds[usize::from(root)];
        let outs: Vec<Output> = w.feed(party, input).to_vec();
        let ready = w.endpoint(Party::Client).is_ready();
        let b = self.shared.layout.b;
        let ops_at = self.ops.len() as u32;
        let (ops, sent_id) = self.coding(|t| {
            let mut ops = Vec::new();
            let mut sent_id = 0;
            for o in &outs {
                match *o {
                    Output::Send(m) => {
                        if let Message::Request {
                            id,
                            method: Method::Work,
                        } = m
                            && sent_id == 0
                        {
                            sent_id = t.id(id)?;
                        }
                        ops.push(Op::Send(t.msg(m)?));
                    }
                    Output::StartWork(id) => ops.push(Op::StartWork(t.work((party, id))?)),
                    Output::AbortWork(id) => ops.push(Op::AbortWork(t.work((party, id))?)),
                    Output::ArmTimer(tm) => {
                        let armed = match tm {
                            Timer::RequestTimeout(_) => b.timeouts,
                            Timer::InitTimeout => b.init_timeout,
                        };
                        if armed {
                            ops.push(Op::Arm(t.timer((party, tm))?));
                        }
                    }
                    Output::DisarmTimer(tm) => ops.push(Op::Disarm(t.timer((party, tm))?)),
                    _ => {}
                }
            }
            Some((ops, sent_id))
        });
        self.ops.extend_from_slice(&ops);
        let mut e = self.effect(root, ops_at);
        e.endpoint = self.save(root, Some(party));
        e.ready = ready;
        e.sent_id = sent_id;
        e
    }

    /// The checker's part of the effect just worked out in the world of `root`, whose ops start
    /// at `ops`.
    fn effect(&mut self, root: u8, ops: u32) -> Effect {
        let c = self.worlds[usize::from(root)].checker();
        let reached = c.verdict().reached;
        let broken = self.broken.len() as u32;
        self.broken
            .extend(c.verdict().violations.iter().map(|v| v.invariant));
        Effect {
            endpoint: 0,
            checker: self.save(root, None),
            reached,
            ops,
            broken,
            // An endpoint answers one input with a handful of outputs, and a step breaks at
            // most every invariant once (fewer than 32): both fit a byte.
            n_ops: (self.ops.len() - ops as usize) as u8,
            n_broken: (self.broken.len() - broken as usize) as u8,
            ready: false,
            sent_id: 0,
        }
    }

    /// The world of `state`'s initial scenario, holding `state`'s parts (its checker with a
    /// fresh verdict).
    fn materialize(&mut self, state: &Flat) -> &mut World {
        let root = state.row[ROOT];
        self.load(root, Some(Party::Client), state.endpoint(Party::Client));
        self.load(root, Some(Party::Server), state.endpoint(Party::Server));
        self.load(root, None, state.checker());
        &mut self.worlds[usize::from(root)]
    }
}

/// A state as one row of bytes (see the module documentation), plus what the search reads of
/// the path since it was unpacked: whether an invariant broke, and the races reached.
#[derive(Clone, Debug)]
pub struct Flat {
    row: [u8; ROW],
    layout: Layout,
    violated: bool,
    reached: PropertySet,
}

/// Where `x` goes in the sorted `codes` (after its equals), comparing decoded values.
fn sorted_place<T: Ord>(codes: &[u8], values: &[T], x: u8) -> usize {
    let v = &values[usize::from(x)];
    codes.partition_point(|&y| values[usize::from(y)] <= *v)
}

impl Flat {
    /// The flat form of the plain state `e`, coding what it holds in `memo`'s tables; `None`
    /// if it does not fit a row (the memo is then spoilt).
    pub fn from_explorer(e: &Explorer, memo: &mut FlatMemo) -> Option<Flat> {
        let layout = memo.shared.layout;
        let mut f = Flat {
            row: [0; ROW],
            layout,
            violated: e.violated(),
            reached: e.reached(),
        };
        let d = e.driver();
        let w = e.world();
        f.row[ROOT] = d.root;
        let mut parts = [0u32; 3];
        for (i, part) in [Some(Party::Client), Some(Party::Server), None]
            .into_iter()
            .enumerate()
        {
            memo.bytes.clear();
            match part {
                Some(p) => w.pack_endpoint(p, &mut memo.bytes),
                None => w.pack_checker(&mut memo.bytes),
            }
            let bytes = core::mem::take(&mut memo.bytes);
            parts[i] = memo.shared.write().part(&bytes);
            memo.bytes = bytes;
        }
        f.set_u32(ENDPOINTS[0], parts[0]);
        f.set_u32(ENDPOINTS[1], parts[1]);
        f.set_u32(CHECKER, parts[2]);
        f.row[READY] = u8::from(w.endpoint(Party::Client).is_ready());
        f.row[SENT] = d.sent;
        f.row[DUPLICATES] = d.duplicates_left;
        let n = usize::from(layout.b.requests);
        let fits = d.net.iter().all(|q| q.len() <= usize::from(layout.net_cap))
            && d.work.len() <= usize::from(layout.work_cap)
            && d.progressed.len() <= usize::from(layout.work_cap)
            && d.timers.len() <= usize::from(layout.timer_cap)
            && d.cancels.len() == n
            && d.ids.len() == n;
        if !fits {
            memo.spoilt = true;
            return None;
        }
        let coded = memo.coding(|t| {
            let mut row = f.row;
            for k in 0..n {
                row[usize::from(layout.cancels) + k] = d.cancels[k];
                row[usize::from(layout.ids) + k] = match d.ids[k] {
                    Some(id) => t.id(id)?,
                    None => 0,
                };
            }
            let mut table = |at: u8, codes: &mut dyn Iterator<Item = Option<u8>>| {
                let at = usize::from(at);
                let mut len = 0;
                for c in codes {
                    row[at + 1 + len] = c?;
                    len += 1;
                }
                row[at] = len as u8;
                Some(())
            };
            for p in [Party::Client, Party::Server] {
                table(
                    layout.net[p.index()],
                    &mut d.net[p.index()].iter().map(|&m| t.msg(m)),
                )?;
            }
            table(layout.work, &mut d.work.iter().map(|&w| t.work(w)))?;
            table(
                layout.progressed,
                &mut d.progressed.iter().map(|&w| t.work(w)),
            )?;
            table(layout.timers, &mut d.timers.iter().map(|&x| t.timer(x)))?;
            Some(Some(row))
        });
        f.row = coded?;
        Some(f)
    }

    /// The row: what identifies the state (equal rows, equal states, within one search).
    pub fn bytes(&self) -> &[u8] {
        &self.row[..usize::from(self.layout.len)]
    }

    /// Becomes the state `bytes` holds (a row of this search's layout).
    pub fn unpack(&mut self, bytes: &[u8], memo: &mut FlatMemo) -> Result<(), PackError> {
        if bytes.len() != usize::from(self.layout.len) {
            return Err(PackError::BadTag("row length", bytes.len() as u8));
        }
        self.row[..bytes.len()].copy_from_slice(bytes);
        self.violated = false;
        self.reached = PropertySet::default();
        memo.sync();
        Ok(())
    }

    /// Becomes `src` again.
    pub fn restore_from(&mut self, src: &Flat) {
        // The whole row, a fixed size: a few vector moves, cheaper than a call to copy a part.
        self.row = src.row;
        self.violated = src.violated;
        self.reached = src.reached;
    }

    fn u32_at(&self, at: usize) -> u32 {
        let mut b = [0; 4];
        b.copy_from_slice(&self.row[at..at + 4]);
        u32::from_le_bytes(b)
    }

    fn set_u32(&mut self, at: usize, v: u32) {
        self.row[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn endpoint(&self, p: Party) -> u32 {
        self.u32_at(ENDPOINTS[p.index()])
    }

    fn checker(&self) -> u32 {
        self.u32_at(CHECKER)
    }

    /// The codes of the table at `at`.
    fn table(&self, at: u8) -> &[u8] {
        let at = usize::from(at);
        &self.row[at + 1..][..usize::from(self.row[at])]
    }

    fn id(&self, k: usize) -> u8 {
        self.row[usize::from(self.layout.ids) + k]
    }

    /// Puts `x` at place `i` of the table at `at` (holding `cap`); spoils the memo if full.
    fn insert(&mut self, at: u8, cap: u8, i: usize, x: u8, memo: &mut FlatMemo) {
        let at = usize::from(at);
        let len = usize::from(self.row[at]);
        if len == usize::from(cap) {
            memo.spoilt = true;
            return;
        }
        let t = &mut self.row[at + 1..at + 2 + len];
        t.copy_within(i..len, i + 1);
        t[i] = x;
        self.row[at] += 1;
    }

    /// Takes out place `i` of the table at `at`.
    fn remove(&mut self, at: u8, i: usize) {
        let at = usize::from(at);
        let len = usize::from(self.row[at]);
        let t = &mut self.row[at + 1..at + 1 + len];
        t.copy_within(i + 1.., i);
        t[len - 1] = 0;
        self.row[at] -= 1;
    }

    /// Takes out the first `x` of the table at `at`, if any.
    fn remove_first(&mut self, at: u8, x: u8) {
        if let Some(i) = self.table(at).iter().position(|&y| y == x) {
            self.remove(at, i);
        }
    }

    /// Takes out every `x` of the table at `at`.
    fn remove_all(&mut self, at: u8, x: u8) {
        while let Some(i) = self.table(at).iter().position(|&y| y == x) {
            self.remove(at, i);
        }
    }

    /// Every enabled step, in the order [`Explorer::enabled`] lists the plain state's.
    pub fn enabled(&self, memo: &FlatMemo, out: &mut Vec<FlatStep>) {
        out.clear();
        let l = &self.layout;
        let b = l.b;
        let sent = self.row[SENT];
        if sent < b.requests && self.row[READY] != 0 {
            out.push(self.plan(Choice::Send, memo));
        }
        for k in 0..sent {
            if self.row[usize::from(l.cancels) + usize::from(k)] < b.cancels_each
                && self.id(k.into()) != 0
            {
                out.push(self.plan(Choice::Cancel(k), memo));
            }
        }
        for to in [Party::Client, Party::Server] {
            let q = self.table(l.net[to.index()]);
            let candidates = if b.fifo { q.len().min(1) } else { q.len() };
            for i in 0..candidates {
                if q[..i].contains(&q[i]) {
                    continue;
                }
                out.push(self.plan(Choice::Deliver(to, i as u8), memo));
                if b.loss {
                    out.push(self.plan(Choice::Lose(to, i as u8), memo));
                }
            }
        }
        let work = self.table(l.work);
        for i in 0..work.len() {
            if !work[..i].contains(&work[i]) {
                out.push(self.plan(Choice::WorkDone(i as u8), memo));
            }
        }
        let timers = self.table(l.timers);
        for i in 0..timers.len() {
            if !timers[..i].contains(&timers[i]) {
                out.push(self.plan(Choice::Fire(i as u8), memo));
            }
        }
        if b.progress {
            let progressed = self.table(l.progressed);
            for i in 0..work.len() {
                if !work[..i].contains(&work[i]) && !progressed.contains(&work[i]) {
                    out.push(self.plan(Choice::Progress(i as u8), memo));
                }
            }
        }
        if self.row[DUPLICATES] > 0 {
            for to in [Party::Client, Party::Server] {
                let q = self.table(l.net[to.index()]);
                for (i, &m) in q.iter().enumerate() {
                    let request =
                        matches!(memo.decoded.msgs[usize::from(m)], Message::Request { .. });
                    if request || (!b.fifo && q[..i].contains(&m)) {
                        continue;
                    }
                    out.push(self.plan(Choice::Duplicate(to, i as u8), memo));
                }
            }
        }
    }

    /// The steps to expand, as [`Explorer::to_expand`] picks them.
    pub fn to_expand(
        &self,
        reduce: bool,
        memo: &FlatMemo,
        all: &mut Vec<FlatStep>,
        out: &mut Vec<(u32, FlatStep)>,
    ) {
        self.enabled(memo, all);
        out.clear();
        let chosen = if reduce {
            self.ample_request(all, memo)
        } else {
            None
        };
        for (i, &step) in all.iter().enumerate() {
            if chosen.is_none() || self.step_request(step.choice, memo) == chosen {
                out.push((i as u32, step));
            }
        }
    }

    /// The request a step belongs to, as `Explorer::step_request` tells.
    fn step_request(&self, step: Choice, memo: &FlatMemo) -> Option<u32> {
        let l = &self.layout;
        let sent = usize::from(self.row[SENT]);
        let of_id = |c: u8| {
            let ids = &self.row[usize::from(l.ids)..usize::from(l.ids) + sent];
            Some(ids.iter().position(|&x| x == c).map_or(0, |k| k as u32 + 1))
        };
        let d = &memo.decoded;
        match step {
            Choice::Send => Some(u32::from(self.row[SENT]) + 1),
            Choice::Cancel(k) => Some(u32::from(k) + 1),
            Choice::Deliver(to, i) | Choice::Lose(to, i) | Choice::Duplicate(to, i) => {
                let m = *self.table(l.net[to.index()]).get(usize::from(i))?;
                match d.msg_ids[usize::from(m)] {
                    0 => None,
                    c => of_id(c),
                }
            }
            Choice::WorkDone(i) | Choice::Progress(i) => {
                of_id(d.work_ids[usize::from(self.table(l.work)[usize::from(i)])])
            }
            Choice::Fire(i) => {
                match d.timer_ids[usize::from(self.table(l.timers)[usize::from(i)])] {
                    0 => Some(0),
                    c => of_id(c),
                }
            }
        }
    }

    /// As `Explorer::ample_request`.
    fn ample_request(&self, steps: &[FlatStep], memo: &FlatMemo) -> Option<u32> {
        let mut counts: smallvec::SmallVec<[(u32, u32); 8]> = smallvec::SmallVec::new();
        for &step in steps {
            let r = self.step_request(step.choice, memo)?;
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

    /// What `step` will show the parties, read before it is applied.
    fn stimulus(&self, step: Choice, memo: &FlatMemo) -> Stim {
        let l = &self.layout;
        let d = &memo.decoded;
        let msg = |to: Party, i: u8| self.table(l.net[to.index()])[usize::from(i)];
        let work = |i: u8| self.table(l.work)[usize::from(i)];
        match step {
            Choice::Send => Stim::Feed(Party::Client, Fed::Send),
            Choice::Cancel(k) => match self.id(k.into()) {
                0 => Stim::Nothing,
                c => Stim::Feed(Party::Client, Fed::Cancel(c)),
            },
            Choice::Deliver(to, i) => Stim::Feed(to, Fed::Receive(msg(to, i))),
            Choice::Lose(to, i) => Stim::Emit(to.peer(), msg(to, i), false),
            Choice::Duplicate(to, i) => Stim::Emit(to.peer(), msg(to, i), true),
            Choice::WorkDone(i) => {
                let w = work(i);
                Stim::Feed(d.works[usize::from(w)].0, Fed::WorkDone(w))
            }
            Choice::Progress(i) => {
                let w = work(i);
                Stim::Feed(d.works[usize::from(w)].0, Fed::Progress(w))
            }
            Choice::Fire(i) => {
                let t = self.table(l.timers)[usize::from(i)];
                Stim::Feed(d.timers[usize::from(t)].0, Fed::Fire(t))
            }
        }
    }

    /// The memo key of `stim` fed to this state's parties.
    fn key(&self, stim: Stim) -> Option<u64> {
        let root = u64::from(self.row[ROOT]);
        let checker = u64::from(self.checker()) << 32;
        match stim {
            Stim::Feed(p, fed) => {
                let (kind, code) = fed.code();
                Some(fingerprint_pair(
                    root | (p.index() as u64) << 8 | kind << 16 | code << 24,
                    u64::from(self.endpoint(p)) | checker,
                ))
            }
            Stim::Emit(from, m, duplicated) => Some(fingerprint_pair(
                root | (from.index() as u64) << 8
                    | (7 + u64::from(duplicated)) << 16
                    | u64::from(m) << 24,
                checker,
            )),
            Stim::Nothing => None,
        }
    }

    /// Asks for the memo slots of `steps` (a hint).
    pub fn prefetch(&self, steps: &[(u32, FlatStep)], memo: &FlatMemo) {
        for (_, step) in steps {
            if !matches!(step.stim, Stim::Nothing) {
                memo.effects.prefetch(step.key);
            }
        }
    }

    /// `choice` planned: what it will show the parties, and the memo key of that.
    fn plan(&self, choice: Choice, memo: &FlatMemo) -> FlatStep {
        let stim = self.stimulus(choice, memo);
        FlatStep {
            choice,
            stim,
            key: self.key(stim).unwrap_or(0),
        }
    }

    /// Applies one step (one of `enabled`), as `Explorer::step` does the plain state's.
    pub fn step(&mut self, step: FlatStep, memo: &mut FlatMemo) {
        let l = self.layout;
        let b = l.b;
        let stim = step.stim;
        match step.choice {
            Choice::Send => self.row[SENT] += 1,
            Choice::Cancel(k) => self.row[usize::from(l.cancels) + usize::from(k)] += 1,
            Choice::Deliver(to, i) | Choice::Lose(to, i) => {
                self.remove(l.net[to.index()], usize::from(i))
            }
            Choice::Duplicate(to, i) => {
                let at = l.net[to.index()];
                let m = self.table(at)[usize::from(i)];
                let place = if b.fifo {
                    usize::from(i) + 1
                } else {
                    sorted_place(self.table(at), &memo.decoded.msgs, m)
                };
                self.insert(at, l.net_cap, place, m, memo);
                self.row[DUPLICATES] -= 1;
            }
            Choice::WorkDone(i) => {
                let w = self.table(l.work)[usize::from(i)];
                self.remove(l.work, usize::from(i));
                self.remove_all(l.progressed, w);
            }
            Choice::Progress(i) => {
                let w = self.table(l.work)[usize::from(i)];
                let place = sorted_place(self.table(l.progressed), &memo.decoded.works, w);
                self.insert(l.progressed, l.work_cap, place, w, memo);
            }
            Choice::Fire(i) => self.remove(l.timers, usize::from(i)),
        }
        if matches!(stim, Stim::Nothing) {
            return;
        }
        let key = step.key;
        let e = match memo.effects.get(key) {
            Some(e) => e,
            None => {
                let e = memo.work_out(self, stim);
                memo.effects.insert(key, e);
                e
            }
        };
        self.set_u32(CHECKER, e.checker);
        self.reached = self.reached.union(e.reached);
        if e.n_broken > 0 {
            self.violated = true;
            memo.last_broken = (e.broken, e.n_broken);
        }
        let Stim::Feed(party, _) = stim else {
            return;
        };
        self.set_u32(ENDPOINTS[party.index()], e.endpoint);
        if party == Party::Client {
            self.row[READY] = u8::from(e.ready);
        }
        for k in 0..usize::from(e.n_ops) {
            match memo.ops[e.ops as usize + k] {
                Op::Send(m) => {
                    let at = l.net[party.peer().index()];
                    let place = if b.fifo {
                        self.table(at).len()
                    } else {
                        sorted_place(self.table(at), &memo.decoded.msgs, m)
                    };
                    self.insert(at, l.net_cap, place, m, memo);
                }
                Op::StartWork(w) => {
                    let place = sorted_place(self.table(l.work), &memo.decoded.works, w);
                    self.insert(l.work, l.work_cap, place, w, memo);
                }
                Op::AbortWork(w) => {
                    self.remove_first(l.work, w);
                    self.remove_all(l.progressed, w);
                }
                Op::Arm(t) => {
                    let place = sorted_place(self.table(l.timers), &memo.decoded.timers, t);
                    self.insert(l.timers, l.timer_cap, place, t, memo);
                }
                Op::Disarm(t) => self.remove_all(l.timers, t),
            }
        }
        if step.choice == Choice::Send {
            self.row[usize::from(l.ids) + usize::from(self.row[SENT]) - 1] = e.sent_id;
        }
    }

    /// Whether some invariant is broken.
    pub fn violated(&self) -> bool {
        self.violated
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_that_does_not_fit_a_row_is_refused() {
        let s = super::super::ExploreSpec::new(
            cancelcheck_model::Dialect::Acp,
            cancelcheck_model::Behaviour::Honour,
            3,
            crate::link::Order::Reordering,
        )
        .scenario();
        let b = bounds(&s);
        assert!(Layout::new(b).is_some_and(|l| usize::from(l.len) <= ROW));
        assert!(Layout::with_capacities(b, ROW, 1, 1).is_none());
    }
}
