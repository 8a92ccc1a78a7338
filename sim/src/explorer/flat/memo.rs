//! One thread's memo of the transitions of a flat search: what each coded input does to the
//! parts and the driver, worked out on a plain world the first time it is met.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::Method;
use cancelcheck_model::pack::{PackError, Reader};
use cancelcheck_model::{Command, Input, Message, Output, Party, RequestId};
use cancelcheck_properties::{Event, InvariantId, PropertySet};

use super::ROOT;
use super::codes::{Decoded, FlatShared, Tables};
use super::row::Flat;
use crate::effects::{Effects, carry_out};
use crate::explorer::Bounds;
use crate::explorer::hash::FingerprintMap;
use crate::world::World;

/// What a transition asks of the driver, in codes: a message to send (to the fed party's
/// peer), work to start or abort (the fed party's), a timer to arm or disarm.
#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    Send(u8),
    StartWork(u8),
    AbortWork(u8),
    Arm(u8),
    Disarm(u8),
}

/// A transition's outputs carried out as codes (see [`carry_out`]): each effect becomes an
/// [`Op`] on the fed party's tables, as [`crate::explorer::Explorer`] carries it out on its own
/// (a timer only where the bounds explore it).
struct Coding<'a> {
    t: &'a mut Tables,
    b: Bounds,
    ops: Vec<Op>,
    /// The id code of the first work request sent (0: none).
    sent_id: u8,
    /// Set when a code table ran out.
    full: bool,
}

impl Coding<'_> {
    /// Pushes the op `code` makes, or notes that a table ran out.
    fn push(&mut self, op: impl FnOnce(u8) -> Op, code: Option<u8>) {
        match code {
            Some(c) => self.ops.push(op(c)),
            None => self.full = true,
        }
    }
}

impl Effects for Coding<'_> {
    fn send(&mut self, _: Party, msg: Message) {
        let c = self.t.msg(msg);
        self.push(Op::Send, c);
    }

    fn request(&mut self, _: Party, id: RequestId, method: Method, _: Option<RequestId>) {
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
        let armed = match timer {
            Timer::RequestTimeout(_) => self.b.timeouts,
            Timer::InitTimeout => self.b.init_timeout,
        };
        if armed {
            let c = self.t.timer((party, timer));
            self.push(Op::Arm, c);
        }
    }

    fn disarm(&mut self, party: Party, timer: Timer) {
        let c = self.t.timer((party, timer));
        self.push(Op::Disarm, c);
    }
}

/// What a transition does: the endpoint fed and the checker afterwards (numbers), the driver's
/// part (a range of the memo's ops), and the verdict of the step alone (a range of the memo's
/// broken lists). A checker-only event leaves `endpoint` unused.
#[derive(Clone, Copy, Default)]
pub(super) struct Effect {
    pub(super) endpoint: u32,
    pub(super) checker: u32,
    pub(super) reached: PropertySet,
    pub(super) ops: u32,
    pub(super) broken: u32,
    pub(super) n_ops: u8,
    pub(super) n_broken: u8,
    /// For the client: whether its session is open afterwards.
    pub(super) ready: bool,
    /// The id code of the work request it sent, if any (what the application learns of a
    /// `Send`).
    pub(super) sent_id: u8,
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

/// One thread's memo of transitions, its copy of the codes, and the worlds (one per initial
/// scenario) in which it works out the transitions it has not met.
pub struct FlatMemo {
    pub(super) shared: Arc<FlatShared>,
    pub(super) worlds: Vec<World>,
    pub(super) effects: FingerprintMap<Effect>,
    pub(super) ops: Vec<Op>,
    pub(super) broken: Vec<InvariantId>,
    pub(super) last_broken: (u32, u8),
    pub(super) decoded: Decoded,
    /// Set when a state did not fit its row or a code table ran out.
    pub(super) spoilt: bool,
    pub(super) bytes: Vec<u8>,
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

    /// The bytes this memo holds (its transitions and their outputs), counting the next
    /// growth of its table once that is near.
    pub fn held_bytes(&self) -> u64 {
        self.effects.held_bytes_after(self.effects.len() / 4 + 1)
            + (self.ops.capacity() * core::mem::size_of::<Op>()) as u64
            + (self.broken.capacity() * core::mem::size_of::<InvariantId>()) as u64
            + self.bytes.capacity() as u64
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
    /// `root`.
    pub(super) fn load(&mut self, root: u8, part: Option<Party>, n: u32) {
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
    pub(super) fn save(&mut self, root: u8, part: Option<Party>) -> u32 {
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
    pub(super) fn work_out(&mut self, state: &Flat, stim: Stim) -> Effect {
        let root = state.row[ROOT];
        self.load(root, None, state.checker());
        let d = &self.decoded;
        let (party, input) = match stim {
            Stim::Feed(p, fed) => (
                p,
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
            let mut c = Coding {
                t,
                b,
                ops: Vec::new(),
                sent_id: 0,
                full: false,
            };
            carry_out(party, &outs, &mut c);
            (!c.full).then_some((c.ops, c.sent_id))
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
    pub(super) fn effect(&mut self, root: u8, ops: u32) -> Effect {
        let c = self.worlds[usize::from(root)].checker();
        let reached = c.verdict().reached;
        let failed = c.failed();
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
            failed,
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
