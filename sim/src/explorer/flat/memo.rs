//! One thread's memo of the transitions of a flat search: what each coded input does to the
//! fed endpoint and the driver, and what the checker makes of it, each worked out on a plain
//! world the first time it is met.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::Method;
use cancelcheck_model::pack::{PackError, Reader, State};
use cancelcheck_model::{Command, Input, Message, Output, Party, RequestId};
use cancelcheck_properties::{Checker, Event, InvariantId, PropertySet};

use super::ROOT;
use super::codes::{Coder, Decoded, FlatShared, Known, PART_SHARDS, PartStore, Tables};
use super::row::Flat;
use crate::effects::{Effects, carry_out};
use crate::explorer::Bounds;
use crate::explorer::driver::Effect;
use crate::explorer::hash::{FingerprintMap, FingerprintSet, StableHasher, fingerprint_pair};
use crate::world::World;

/// What a transition asks of the driver, in codes: a message to send (to the fed party's
/// peer), work to start or abort (the fed party's), a timer to arm or disarm; landed in the
/// row by [`crate::explorer::driver::carry`], as the plain form lands its own.
pub(super) type Op = Effect<u8, u8, u8>;

/// A transition's outputs carried out as codes (see [`carry_out`]): each effect becomes an
/// [`Op`] on the fed party's tables, as [`crate::explorer::Explorer`] carries it out on its own
/// (a timer only where the bounds explore it).
struct Coding<'a, C: Coder> {
    t: &'a mut C,
    b: Bounds,
    ops: &'a mut Vec<Op>,
    /// The id code of the first work request sent (0: none).
    sent_id: u8,
    /// Set when `t` gave some value no code (a table ran out, or the value has none yet).
    full: bool,
}

impl<C: Coder> Coding<'_, C> {
    /// Pushes the op `code` makes, or notes that there was no code.
    fn push(&mut self, op: impl FnOnce(u8) -> Op, code: Option<u8>) {
        match code {
            Some(c) => self.ops.push(op(c)),
            None => self.full = true,
        }
    }
}

impl<C: Coder> Effects for Coding<'_, C> {
    fn send(&mut self, _: Party, msg: Message) {
        let c = self.t.msg(msg);
        self.push(Op::Send, c);
    }

    fn request(&mut self, _: Party, id: RequestId, method: Method) {
        if method.is_work() && self.sent_id == 0 {
            match self.t.id(id) {
                Some(c) => self.sent_id = c,
                None => self.full = true,
            }
        }
    }

    fn start_work(&mut self, party: Party, id: RequestId) {
        let c = self.t.work((party, id));
        self.push(Op::StartWork, c);
    }

    fn abort_work(&mut self, party: Party, id: RequestId) {
        let c = self.t.work((party, id));
        self.push(Op::AbortWork, c);
    }

    fn arm(&mut self, party: Party, timer: Timer) {
        if self.b.explores(timer) {
            let c = self.t.timer((party, timer));
            self.push(Op::Arm, c);
        }
    }

    fn disarm(&mut self, party: Party, timer: Timer) {
        let c = self.t.timer((party, timer));
        self.push(Op::Disarm, c);
    }
}

/// Carries out `outs` (outputs of `party`) as codes into `ops` (cleared first), and returns the
/// id code of the first work request sent (0: none); `None` if `coder` gave some value no code.
fn code_outputs(
    coder: &mut impl Coder,
    b: Bounds,
    party: Party,
    outs: &[Output],
    ops: &mut Vec<Op>,
) -> Option<u8> {
    ops.clear();
    let mut c = Coding {
        t: coder,
        b,
        ops,
        sent_id: 0,
        full: false,
    };
    carry_out(party, outs, &mut c);
    (!c.full).then_some(c.sent_id)
}

/// What feeding an endpoint a coded input does, whatever the checker holds: the endpoint
/// afterwards (its number), the driver's part (a range of the memo's ops), the outputs (a range
/// of the memo's outputs, for the checker to be shown) and a fingerprint of the events the
/// checker is shown, which keys the checker's part ([`Judged`]).
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Response {
    pub(super) endpoint: u32,
    pub(super) ops: u32,
    pub(super) outs: u32,
    pub(super) n_ops: u8,
    pub(super) n_outs: u8,
    /// For the client: whether its session is open afterwards.
    pub(super) ready: bool,
    /// The id code of the work request it sent, if any (what the application learns of a
    /// `Send`).
    pub(super) sent_id: u8,
    /// The fingerprint of the party, the coded input and the outputs.
    pub(super) shown: u64,
}

/// The fingerprint of what feeding `fed` to `party`, answered by `outs`, shows the checker:
/// the key of its judgement, so it must tell apart whatever the checker would (the same input
/// answered differently by two states of the endpoint is two different steps to the checker).
fn shown(party: Party, fed: Fed, outs: &[Output]) -> u64 {
    let (kind, code) = fed.code();
    let mut h = StableHasher::default();
    (party.index(), kind, code, outs).hash(&mut h);
    h.finish()
}

/// What the checker makes of a step's events: the checker afterwards (its number) and the
/// verdict of the step alone (the number of an [`Outcome`]). Eight bytes, so that a slot of
/// the memo's table of judgements, the largest table a step reads, takes sixteen.
#[derive(Clone, Copy, Default)]
pub(super) struct Judged {
    pub(super) checker: u32,
    pub(super) outcome: u32,
}

/// The verdict of one step alone: the races it reached and the invariants it broke (a range
/// of the memo's broken lists). The memo keeps each distinct one once (number 0: nothing
/// reached, nothing broken).
#[derive(Clone, Copy, Default)]
pub(super) struct Outcome {
    pub(super) reached: PropertySet,
    pub(super) broken: u32,
    pub(super) n_broken: u8,
    /// Whether a MUST clause is among those broken.
    pub(super) failed: bool,
}

/// An input as codes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Fed {
    Send,
    Cancel(u8),
    Receive(u8),
    WorkDone(u8),
    Progress(u8),
    Fire(u8),
    Abort(u8),
    Malformed,
}

impl Fed {
    pub(super) fn code(self) -> (u64, u64) {
        match self {
            Fed::Send => (1, 0),
            Fed::Cancel(c) => (2, u64::from(c)),
            Fed::Receive(c) => (3, u64::from(c)),
            Fed::WorkDone(c) => (4, u64::from(c)),
            Fed::Progress(c) => (5, u64::from(c)),
            Fed::Fire(c) => (6, u64::from(c)),
            // (7 and 8 are the kinds of the checker-only events in a memo key.)
            Fed::Abort(c) => (9, u64::from(c)),
            Fed::Malformed => (10, 0),
        }
    }
}

/// What a step shows the parties, as codes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Stim {
    Feed(Party, Fed),
    /// Shown to the checker alone: `(from, message, duplicated rather than lost)`.
    Emit(Party, u8, bool),
    Nothing,
}

/// A world holding endpoints as they were stored, the checkers met last (see [`Checkers`]),
/// and which parts it holds: the client's, the server's and the checker's numbers (`u32::MAX`:
/// none yet). A transition worked out copies the parts it needs from here, unpacking only
/// those not held already (the steps of one state that miss the memo all start from its
/// parts).
struct Base {
    world: World,
    checkers: Checkers,
    held: [u32; 3],
    /// The stored bytes of each part held (empty where none is): a part that comes out of a
    /// step as it went in is known by its number without a look-up.
    bytes: [Vec<u8>; 3],
}

/// How many checkers a [`Checkers`] holds at most.
const CHECKER_SLOTS: usize = 1024;

/// How many sets of slots a [`Checkers`] has: a divisor of [`PART_SHARDS`], so that a
/// checker's set is read from its shard, which its bytes give.
const CHECKER_SETS: usize = CHECKER_SLOTS / CHECKER_WAYS;

/// How many slots a set of a [`Checkers`] has.
const CHECKER_WAYS: usize = 4;
const _: () = assert!(PART_SHARDS % CHECKER_SETS == 0);

/// The checkers met last in one world, unpacked: checker number `n` in one of the
/// [`CHECKER_WAYS`] slots of set `n % CHECKER_SETS`, the one used least lately taken by the
/// next checker of the set met. A judgement worked out starts from a copy of its state's
/// checker, and the judgements met one after another come back to few checkers: in the search
/// of ACP's 3 requests with timeouts, the checker changes 28,538 times from one judgement to
/// the next (of 56,620), among only 8,742 different checkers.
///
/// A checker's set is read from its bytes (the shard of its number), not from where it was
/// stored, so which checkers are held, and how many slots are filled, does not depend on the
/// order in which several threads stored them.
#[derive(Default)]
struct Checkers {
    /// Set `s` in slots `CHECKER_WAYS * s..`, the one used last first.
    slots: Vec<Option<(u32, Box<Checker>)>>,
    /// Slots filled.
    used: usize,
}

impl Checkers {
    /// Unpacks checker number `n` from `stored` unless its set holds it (the first time a
    /// slot is filled, into a copy of `like`: a checker of the world's configuration).
    fn load(&mut self, n: u32, stored: &[u8], like: &Checker) -> Result<(), PackError> {
        if self.slots.is_empty() {
            self.slots.resize_with(CHECKER_SLOTS, || None);
        }
        let at = n as usize % CHECKER_SETS * CHECKER_WAYS;
        let set = &mut self.slots[at..at + CHECKER_WAYS];
        let holds = |s: &Option<(u32, Box<Checker>)>| matches!(s, Some((m, _)) if *m == n);
        // Used now: first in its set; met anew, it takes the slot used least lately.
        match set.iter().position(holds) {
            Some(0) => return Ok(()),
            Some(p) => {
                set[..=p].rotate_right(1);
                return Ok(());
            }
            None => set.rotate_right(1),
        }
        let slot = &mut set[0];
        let (m, c) = match slot {
            Some((m, c)) => (m, c),
            None => {
                self.used += 1;
                let (m, c) = slot.insert((u32::MAX, Box::new(like.clone())));
                (m, c)
            }
        };
        // (Until it has unpacked in full, the slot holds no checker.)
        *m = u32::MAX;
        let mut r = Reader::new(stored);
        c.unpack_state(&mut r)?;
        ended(&r)?;
        *m = n;
        Ok(())
    }

    /// Checker number `n`, if held.
    fn get(&self, n: u32) -> Option<&Checker> {
        let at = n as usize % CHECKER_SETS * CHECKER_WAYS;
        self.slots
            .get(at..at + CHECKER_WAYS)?
            .iter()
            .find_map(|s| match s {
                Some((m, c)) if *m == n => Some(&**c),
                _ => None,
            })
    }

    /// The bytes it holds (a checker's records beyond those it holds inline are not counted:
    /// a search's checkers hold one record per request, inline).
    fn held_bytes(&self) -> u64 {
        (self.slots.capacity() * core::mem::size_of::<Option<(u32, Box<Checker>)>>()
            + self.used * core::mem::size_of::<Checker>()) as u64
    }
}

/// One thread's memo of transitions, its copy of the codes, and the worlds (one per initial
/// scenario) in which it works out the transitions it has not met.
///
/// A step is looked up in two parts: the fed endpoint's response (keyed by the endpoint
/// and the coded input: few, as the endpoints' states are few), then the checker's
/// judgement (keyed by the checker and what the response shows it). The endpoint never reads
/// the checker, and the checker reads only the events, so the two parts make the step's
/// whole transition, with far fewer worked out than keyed by both at once.
pub struct FlatMemo {
    pub(super) shared: Arc<FlatShared>,
    pub(super) worlds: Vec<World>,
    bases: Vec<Base>,
    /// Scratch for a transition's outputs and their ops (kept, so that working one out
    /// allocates nothing once they have grown).
    outs: Vec<Output>,
    coded: Vec<Op>,
    /// The responses worked out, by number, and each one's number by its key.
    pub(super) responses: FingerprintMap<u32>,
    response_list: Vec<Response>,
    pub(super) judged: FingerprintMap<Judged>,
    /// The outcomes of the judgements, each once, by number.
    pub(super) outcomes: Vec<Outcome>,
    pub(super) ops: Vec<Op>,
    outputs: Vec<Output>,
    pub(super) broken: Vec<InvariantId>,
    pub(super) last_broken: (u32, u8),
    pub(super) decoded: Decoded,
    /// Set when a state did not fit its row or a code table ran out.
    pub(super) spoilt: bool,
    pub(super) bytes: Vec<u8>,
    /// [`FlatMemo::held_bytes`] as last counted (the memo grows only when it meets a
    /// transition, and a search asks after every state).
    held: u64,
    /// At most what the parts this memo stored added to the shared store since it was last
    /// counted (a part new to two memos is in both), and those parts (each counted once).
    added: u64,
    added_parts: FingerprintSet,
}

impl FlatMemo {
    /// A memo sharing `shared`'s tables, for states descending from `worlds` (one per initial
    /// scenario, in order; only their configurations matter).
    pub fn new(shared: Arc<FlatShared>, worlds: Vec<World>) -> Self {
        let bases = worlds
            .iter()
            .map(|w| Base {
                world: w.clone(),
                checkers: Checkers::default(),
                held: [u32::MAX; 3],
                bytes: Default::default(),
            })
            .collect();
        let mut m = FlatMemo {
            shared,
            worlds,
            bases,
            outs: Vec::new(),
            coded: Vec::new(),
            responses: FingerprintMap::default(),
            response_list: Vec::new(),
            judged: FingerprintMap::default(),
            outcomes: vec![Outcome::default()],
            ops: Vec::new(),
            outputs: Vec::new(),
            broken: Vec::new(),
            last_broken: (0, 0),
            decoded: Decoded::default(),
            spoilt: false,
            bytes: Vec::new(),
            held: 0,
            added: 0,
            added_parts: FingerprintSet::default(),
        };
        m.sync();
        m.recount();
        m
    }

    /// The bytes this memo holds (its transitions and their outputs), counting the next
    /// growth of its table once that is near: as counted when it last learnt a transition;
    /// and at most what the parts it stored since the shared tables were last
    /// [counted](FlatMemo::count_shared) added to them.
    pub fn held_bytes(&self) -> u64 {
        self.held + self.added
    }

    /// The bytes the tables and parts `memos` share hold (counted once, with room for their
    /// next growth), each memo's count of what it adds to them begun again. Called while no
    /// memo is in use; the memos share one set of tables (those of one search).
    pub fn count_shared<'m>(memos: impl IntoIterator<Item = &'m mut FlatMemo>) -> u64 {
        let mut shared: Option<Arc<FlatShared>> = None;
        for m in memos {
            m.added = 0;
            m.added_parts.clear();
            let s = shared.get_or_insert_with(|| m.shared.clone());
            debug_assert!(Arc::ptr_eq(s, &m.shared), "one search's memos");
        }
        shared.map_or(0, |s| s.count())
    }

    /// Counts [`FlatMemo::held_bytes`] again (after what it holds changed).
    pub(super) fn recount(&mut self) {
        self.held = self
            .responses
            .held_bytes_after(self.responses.len() / 4 + 1)
            + self.judged.held_bytes_after(self.judged.len() / 4 + 1)
            + self
                .added_parts
                .held_bytes_after(self.added_parts.len() / 4 + 1)
            + (self.ops.capacity() * core::mem::size_of::<Op>()) as u64
            + (self.outputs.capacity() * core::mem::size_of::<Output>()) as u64
            + (self.response_list.capacity() * core::mem::size_of::<Response>()) as u64
            + (self.broken.capacity() * core::mem::size_of::<InvariantId>()) as u64
            + (self.outcomes.capacity() * core::mem::size_of::<Outcome>()) as u64
            + self.bytes.capacity() as u64
            + self
                .bases
                .iter()
                .map(|b| {
                    b.bytes.iter().map(|b| b.capacity() as u64).sum::<u64>()
                        + b.checkers.held_bytes()
                })
                .sum::<u64>();
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
    pub(super) fn sync(&mut self) {
        if self.shared.values.load(Ordering::Acquire) != self.decoded.values {
            let t = self.shared.read();
            self.decoded.copy_from(&t);
        }
    }

    /// Codes values under the write lock (`f` returns `None` when a table runs out, which
    /// spoils the search), then refreshes this thread's copy.
    pub(super) fn coding<R: Default>(&mut self, f: impl FnOnce(&mut Tables) -> Option<R>) -> R {
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
    /// `root`: a copy of the base's, unpacked there first unless the base holds it already.
    pub(super) fn load(&mut self, root: u8, part: Option<Party>, n: u32) {
        let base = &mut self.bases[usize::from(root)];
        let slot = part.map_or(2, Party::index);
        if base.held[slot] != n {
            let done = self.shared.parts.with(n, |stored| {
                base.bytes[slot].clear();
                base.bytes[slot].extend_from_slice(stored);
                match part {
                    Some(p) => {
                        let mut r = Reader::new(stored);
                        let done = base.world.unpack_endpoint(p, &mut r);
                        done.and_then(|()| ended(&r))
                    }
                    None => base.checkers.load(n, stored, base.world.checker()),
                }
            });
            match done {
                Some(Ok(())) => {}
                // Only `save` hands out numbers, of parts packed from a world.
                None => panic!("explorer: no part has the number {n}"),
                Some(Err(e)) => panic!("explorer: a stored part does not unpack ({e})"),
            }
            base.held[slot] = n;
        }
        let world = &mut self.worlds[usize::from(root)];
        match part {
            Some(p) => world.copy_endpoint_from(&base.world, p),
            None => {
                // (A slot changes checker only when another is loaded.)
                let c = base.checkers.get(n).expect("the checker loaded is held");
                world.checker_mut().clone_from(c);
            }
        }
    }

    /// Stores part `part` (an endpoint's, or with `None` the checker's) of the world of `root`
    /// and returns its number (0, spoiling the search, once the parts run out of numbers).
    pub(super) fn save(&mut self, root: u8, part: Option<Party>) -> u32 {
        let w = &self.worlds[usize::from(root)];
        self.bytes.clear();
        match part {
            Some(p) => w.pack_endpoint(p, &mut self.bytes),
            None => w.pack_checker(&mut self.bytes),
        }
        let base = &self.bases[usize::from(root)];
        let slot = part.map_or(2, Party::index);
        if base.held[slot] != u32::MAX && base.bytes[slot] == self.bytes {
            // Unchanged by the step (a third of the checker's judgements).
            return base.held[slot];
        }
        match self.shared.parts.number(&self.bytes) {
            Some((n, new)) => {
                // Keyed by its number: a part keeps the number it was handed all search.
                if new
                    && self
                        .added_parts
                        .insert(fingerprint_pair(u64::from(n), 0), ())
                {
                    self.added += PartStore::added_by(self.bytes.len());
                }
                n
            }
            None => {
                self.spoilt = true;
                0
            }
        }
    }

    /// The input `fed` decodes to.
    fn input(&self, fed: Fed) -> Input {
        let d = &self.decoded;
        match fed {
            Fed::Send => Input::Command(Command::Send {
                task: self.shared.layout.b.tasks,
            }),
            Fed::Cancel(c) => Input::Command(Command::Cancel(d.ids[usize::from(c)])),
            Fed::Receive(c) => Input::Receive(d.msgs[usize::from(c)]),
            Fed::WorkDone(c) => Input::WorkDone(d.works[usize::from(c)].1),
            Fed::Progress(c) => Input::WorkProgress(d.works[usize::from(c)].1),
            Fed::Fire(c) => Input::TimerFired(d.timers[usize::from(c)].1),
            Fed::Abort(c) => Input::InternalCancel(d.works[usize::from(c)].1),
            Fed::Malformed => Input::Command(Command::MalformedCancel),
        }
    }

    /// Response number `n`.
    #[inline]
    pub(super) fn response(&self, n: u32) -> &Response {
        &self.response_list[n as usize]
    }

    /// Works out what feeding `fed` to `party` of `state` does to that endpoint, and returns
    /// the number of the response.
    // Met once per transition: kept out of the step it would otherwise be inlined into.
    #[inline(never)]
    pub(super) fn respond(&mut self, state: &Flat, party: Party, fed: Fed) -> u32 {
        let root = state.row[ROOT];
        let input = self.input(fed);
        self.load(root, Some(party), state.endpoint(party));
        let w = &mut self.worlds[usize::from(root)];
        let mut outs = core::mem::take(&mut self.outs);
        outs.clear();
        outs.extend_from_slice(w.respond(party, input));
        let ready = w.endpoint(Party::Client).is_ready();
        let b = self.shared.layout.b;
        let ops_at = self.ops.len() as u32;
        let mut ops = core::mem::take(&mut self.coded);
        // Codes are looked up under a read lock; the write lock only hands out new ones.
        let known = code_outputs(&mut Known(&self.shared.read()), b, party, &outs, &mut ops);
        let (coded, sent_id) = match known {
            Some(sent_id) => {
                // Codes another thread handed out may be among them.
                self.sync();
                (true, sent_id)
            }
            None => self.coding(|t| {
                code_outputs(t, b, party, &outs, &mut ops).map(|sent_id| (true, sent_id))
            }),
        };
        if coded {
            self.ops.extend_from_slice(&ops);
        }
        let r = Response {
            endpoint: self.save(root, Some(party)),
            ops: ops_at,
            outs: self.outputs.len() as u32,
            // An endpoint answers one input with a handful of outputs: they fit a byte.
            n_ops: (self.ops.len() - ops_at as usize) as u8,
            n_outs: outs.len() as u8,
            ready,
            sent_id,
            shown: shown(party, fed, &outs),
        };
        self.outputs.extend_from_slice(&outs);
        self.outs = outs;
        self.coded = ops;
        self.response_list.push(r);
        (self.response_list.len() - 1) as u32
    }

    /// Works out what the checker of `state` makes of `stim`: for a feed, the input and the
    /// outputs of `response`.
    // Met once per transition: kept out of the step it would otherwise be inlined into.
    #[inline(never)]
    pub(super) fn judge(&mut self, state: &Flat, stim: Stim, response: &Response) -> Judged {
        let root = state.row[ROOT];
        self.load(root, None, state.checker());
        match stim {
            Stim::Feed(party, fed) => {
                let input = self.input(fed);
                let outs = &self.outputs[response.outs as usize..][..usize::from(response.n_outs)];
                self.worlds[usize::from(root)].observe_feed(party, input, outs);
            }
            Stim::Emit(from, c, duplicated) => {
                let msg = self.decoded.msgs[usize::from(c)];
                let event = match duplicated {
                    true => Event::Duplicated { from, msg },
                    false => Event::Lost { from, msg },
                };
                self.worlds[usize::from(root)].emit(event);
            }
            Stim::Nothing => return Judged::default(),
        }
        self.judgement(root)
    }

    /// The checker's part of the step just shown to the world of `root`.
    fn judgement(&mut self, root: u8) -> Judged {
        let c = self.worlds[usize::from(root)].checker();
        let (reached, failed) = (c.verdict().reached, c.failed());
        let broken = c.verdict().violations.iter().map(|v| v.invariant);
        // Few outcomes are distinct (at most six in any search of every dialect and behaviour):
        // each is found by comparing, the most common (nothing reached, nothing broken) first.
        let known = self.outcomes.iter().position(|o| {
            o.reached == reached
                && o.failed == failed
                && self.broken[o.broken as usize..][..usize::from(o.n_broken)]
                    .iter()
                    .copied()
                    .eq(broken.clone())
        });
        let outcome = match known {
            Some(n) => n as u32,
            None => {
                let at = self.broken.len();
                self.broken.extend(broken);
                self.outcomes.push(Outcome {
                    reached,
                    broken: at as u32,
                    // A step breaks at most every invariant once (fewer than 32): a byte.
                    n_broken: (self.broken.len() - at) as u8,
                    failed,
                });
                (self.outcomes.len() - 1) as u32
            }
        };
        Judged {
            checker: self.save(root, None),
            outcome,
        }
    }

    /// The world of `state`'s initial scenario, holding `state`'s parts (its checker with a
    /// fresh verdict).
    pub(super) fn materialize(&mut self, state: &Flat) -> &mut World {
        let root = state.row[ROOT];
        self.load(root, Some(Party::Client), state.endpoint(Party::Client));
        self.load(root, Some(Party::Server), state.endpoint(Party::Server));
        self.load(root, None, state.checker());
        &mut self.worlds[usize::from(root)]
    }
}

/// Whether `r` read a stored part to its end.
fn ended(r: &Reader<'_>) -> Result<(), PackError> {
    match r.is_empty() {
        true => Ok(()),
        false => Err(PackError::BadTag("end of part", 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cancelcheck_model::Message;

    /// The checker is shown the outputs as well as the input: the same input answered
    /// differently is keyed apart (an endpoint holding the request answers a cancel; one that
    /// already answered it says nothing).
    #[test]
    fn a_judgement_is_keyed_by_the_outputs_too() {
        let answer = Output::Send(Message::Response {
            id: RequestId::Int(1),
            reply: cancelcheck_model::message::Reply::Cancelled,
        });
        let fed = Fed::Receive(3);
        let a = shown(Party::Server, fed, &[answer]);
        assert_ne!(a, shown(Party::Server, fed, &[]));
        assert_ne!(a, shown(Party::Client, fed, &[answer]));
        assert_ne!(a, shown(Party::Server, Fed::Receive(4), &[answer]));
        assert_eq!(a, shown(Party::Server, fed, &[answer]));
    }

    /// A checker is unpacked into a slot of its set once, and held there until as many other
    /// checkers of its set as the set has slots are met after it was last used; bytes that do
    /// not unpack leave the slot holding none.
    #[test]
    fn checkers_are_held_by_number_until_their_set_fills_with_others() {
        use cancelcheck_model::Dialect;
        use cancelcheck_properties::notation::{OPENING, parse};
        let fresh = Checker::new(Dialect::Acp, 2);
        let mut opened = fresh.clone();
        for line in OPENING {
            opened.observe(&parse(line).expect("parses"));
        }
        let packed = |c: &Checker| {
            let mut out = Vec::new();
            c.pack_state(&mut out);
            out
        };
        let (a, b) = (packed(&fresh), packed(&opened));
        assert_ne!(a, b, "the opening changes the checker's state");
        let mut held = Checkers::default();
        // Numbers of one set, one more than it has slots.
        let n: Vec<u32> = (0..=CHECKER_WAYS as u32)
            .map(|i| 5 + i * CHECKER_SETS as u32)
            .collect();
        held.load(n[0], &a, &fresh).expect("unpacks");
        assert_eq!(packed(held.get(n[0]).expect("held")), a);
        // Held: not read again (these bytes would not unpack).
        held.load(n[0], &[0xff], &fresh).expect("held already");
        assert_eq!((held.get(n[1]).is_none(), held.used), (true, 1));
        for &k in &n[1..CHECKER_WAYS] {
            held.load(k, &b, &fresh).expect("unpacks");
        }
        assert_eq!(packed(held.get(n[0]).expect("still held")), a);
        assert!(n[1..CHECKER_WAYS].iter().all(|&k| held.get(k).is_some()));
        assert_eq!(held.used, CHECKER_WAYS);
        // `n[0]` used again, then one more met: `n[1]`, used least lately, gives up its slot.
        held.load(n[0], &[0xff], &fresh).expect("held already");
        held.load(n[CHECKER_WAYS], &b, &fresh).expect("unpacks");
        assert!(held.get(n[1]).is_none(), "its slot was taken");
        assert!(held.get(n[0]).is_some() && held.get(n[CHECKER_WAYS]).is_some());
        // `n[2]` is now the one used least lately; bytes that do not unpack leave its slot
        // empty.
        assert!(held.load(n[1], &[0xff], &fresh).is_err());
        assert!(held.get(n[1]).is_none() && held.get(n[2]).is_none());
        assert!(held.get(n[0]).is_some());
        held.load(n[0] + 1, &b, &fresh).expect("unpacks");
        assert_eq!(held.used, CHECKER_WAYS + 1);
        assert_eq!(
            held.held_bytes(),
            (CHECKER_SLOTS * core::mem::size_of::<Option<(u32, Box<Checker>)>>()
                + (CHECKER_WAYS + 1) * core::mem::size_of::<Checker>()) as u64
        );
    }
}
