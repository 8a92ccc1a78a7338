//! The parties as the search holds them: each endpoint and the checker by the fingerprint of
//! its packed state, stepped through a memo of transitions.
//!
//! Small configurations have few distinct endpoint and checker states (at 3 requests with
//! timeouts on a reordering link: a few hundred endpoints, a few thousand checkers) but
//! hundreds of thousands of combinations of them with the network. So the search does not copy
//! and repack the endpoints and the checker for every successor: a state names each by the
//! [`fingerprint`] of its packed bytes (kept once in a [`Store`] shared by the threads), and
//! feeding an input looks the whole transition up in a per-thread [`Memo`], keyed by the
//! fed endpoint, the checker and the input. Only a transition met for the first time
//! materializes the two in a [`World`], feeds it there, and packs what came out.
//!
//! The memo is a cache of a deterministic function, so what a search finds does not depend on
//! what each thread has cached. Parts and transitions are known by 64-bit fingerprints (of the
//! packed bytes; of the configuration, parts and input): two different ones with one
//! fingerprint would be confused, the same risk (about n²/2⁶⁵ for n distinct ones) the
//! visited set already takes. The search holds parties this way only without the symmetry
//! reduction (see `search`); [`Parties::hash_request`] and [`Parties::relabel`] work here but
//! go through the plain parts.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, RwLock};

use cancelcheck_model::pack::{PackError, Reader};
use cancelcheck_model::{Input, Output, Party, RequestId};
use cancelcheck_properties::{Event, InvariantId, PropertySet, Verdict};

use super::hash::{FingerprintMap, PassThrough, StableHasher, fingerprint};
use super::parties::{Outputs, Parties, Renaming, Stimulus, acted_on, rename};
use crate::world::World;

/// Packed endpoint and checker states by fingerprint, shared by the threads of a search.
/// Content-addressed: a fingerprint always stands for the same bytes, so the order in which
/// threads add them does not matter.
#[derive(Default)]
pub struct Store {
    parts: RwLock<HashMap<u64, Box<[u8]>, BuildHasherDefault<PassThrough>>>,
}

impl Store {
    /// Keeps `bytes` (if new) and returns their fingerprint.
    pub fn intern(&self, bytes: &[u8]) -> u64 {
        let fp = fingerprint(bytes);
        let known = self.parts.read().is_ok_and(|p| p.contains_key(&fp));
        if !known && let Ok(mut parts) = self.parts.write() {
            parts.entry(fp).or_insert_with(|| bytes.into());
        }
        fp
    }

    /// Calls `f` with the bytes behind `fp` (every fingerprint a search meets was interned by
    /// it first).
    fn with<R>(&self, fp: u64, f: impl FnOnce(&[u8]) -> R) -> R {
        let parts = self.parts.read().unwrap_or_else(|e| e.into_inner());
        match parts.get(&fp) {
            Some(bytes) => f(bytes),
            None => panic!("explorer: part {fp:#x} was never interned"),
        }
    }
}

/// One of the three parts of a world.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Part {
    Endpoint(Party),
    Checker,
}

/// Both endpoints and the checker, each by the fingerprint of its packed state, plus what the
/// driver reads of them without stepping (all functions of those fingerprints, or of the path
/// since the state was unpacked).
#[derive(Clone, Copy, Debug)]
pub struct Interned {
    /// The initial scenario the endpoints' configurations come from.
    root: u8,
    endpoints: [u64; 2],
    checker: u64,
    client_ready: bool,
    violated: bool,
    reached: PropertySet,
}

/// What a transition does: the endpoint fed and the checker afterwards, the outputs the driver
/// acts on (a range of the memo's outputs), and the verdict of the step alone (the invariants it
/// broke, a range of the memo's broken lists). A checker-only event leaves `endpoint` unused.
#[derive(Clone, Copy, Default)]
struct Effect {
    endpoint: u64,
    checker: u64,
    reached: PropertySet,
    outs: u32,
    broken: u32,
    n_outs: u8,
    n_broken: u8,
    /// For the client: whether its session is open afterwards.
    ready: bool,
}

/// The key of feeding `input` to `party` (endpoint `endpoint`, checker `checker`) in initial
/// scenario `root`: a fingerprint of all of them.
fn feed_key(root: u8, party: Party, endpoint: u64, checker: u64, input: &Input) -> u64 {
    let mut h = StableHasher::default();
    h.write_u64(u64::from(root) | (party.index() as u64) << 8);
    h.write_u64(endpoint);
    h.write_u64(checker);
    input.hash(&mut h);
    h.finish()
}

/// The key of showing `event` to checker `checker` in initial scenario `root` (tagged apart
/// from every feed key).
fn emit_key(root: u8, checker: u64, event: &Event) -> u64 {
    let mut h = StableHasher::default();
    h.write_u64(u64::from(root) | 0xEE << 8);
    h.write_u64(checker);
    event.hash(&mut h);
    h.finish()
}

/// One thread's memo of transitions, and the worlds (one per initial scenario) in which it
/// works out those it has not met.
pub struct Memo {
    store: Arc<Store>,
    worlds: Vec<World>,
    /// Transitions by key ([`feed_key`], [`emit_key`]).
    effects: FingerprintMap<Effect>,
    /// The outputs of every transition held, end to end.
    outs: Vec<Output>,
    /// The invariants broken by every transition held that broke one, end to end.
    broken: Vec<InvariantId>,
    /// The range of `broken` the last step that broke an invariant broke.
    last_broken: (u32, u8),
    bytes: Vec<u8>,
}

impl Memo {
    /// An empty memo over `store`, for states descending from `worlds` (one per initial
    /// scenario, in order; only their configurations matter).
    pub fn new(store: Arc<Store>, worlds: Vec<World>) -> Self {
        Memo {
            store,
            worlds,
            effects: FingerprintMap::default(),
            outs: Vec::new(),
            broken: Vec::new(),
            last_broken: (0, 0),
            bytes: Vec::new(),
        }
    }

    /// The invariants broken by the last step that broke one.
    pub fn broken(&self) -> Vec<InvariantId> {
        let (at, n) = self.last_broken;
        self.broken[at as usize..][..usize::from(n)].to_vec()
    }

    /// Interns the parts of `world` (a state of initial scenario `root`).
    pub fn intern(&mut self, root: u8, world: &World) -> Interned {
        let mut part = |f: &dyn Fn(&mut Vec<u8>)| {
            self.bytes.clear();
            f(&mut self.bytes);
            self.store.intern(&self.bytes)
        };
        Interned {
            root,
            endpoints: [
                part(&|b| world.pack_endpoint(Party::Client, b)),
                part(&|b| world.pack_endpoint(Party::Server, b)),
            ],
            checker: part(&|b| world.pack_checker(b)),
            client_ready: world.endpoint(Party::Client).is_ready(),
            violated: world.checker().violated().0 != 0,
            reached: world.checker().verdict().reached,
        }
    }

    /// Loads part `part` of state `fp` into the world of `root`.
    fn load(&mut self, root: u8, part: Part, fp: u64) {
        let w = &mut self.worlds[usize::from(root)];
        let done = self.store.with(fp, |bytes| {
            let mut r = Reader::new(bytes);
            match part {
                Part::Endpoint(p) => w.unpack_endpoint(p, &mut r)?,
                Part::Checker => w.unpack_checker(&mut r)?,
            }
            if r.is_empty() {
                Ok(())
            } else {
                Err(PackError::BadTag("end of part", 0))
            }
        });
        if let Err(e) = done {
            // Only `intern` puts bytes in the store, packed from a world.
            panic!("explorer: an interned part does not unpack ({e})");
        }
    }

    /// Packs part `part` of the world of `root` into the store.
    fn save(&mut self, root: u8, part: Part) -> u64 {
        let w = &self.worlds[usize::from(root)];
        self.bytes.clear();
        match part {
            Part::Endpoint(p) => w.pack_endpoint(p, &mut self.bytes),
            Part::Checker => w.pack_checker(&mut self.bytes),
        }
        self.store.intern(&self.bytes)
    }

    /// The effect held under `key`, worked out by `work` (and then held) if there is none.
    fn cached(&mut self, key: u64, work: impl FnOnce(&mut Memo) -> Effect) -> Effect {
        if let Some(e) = self.effects.get(key) {
            return e;
        }
        let e = work(self);
        self.effects.insert(key, e);
        e
    }

    /// Works out feeding `input` to `party` of `state` in a world.
    fn feed(&mut self, state: &Interned, party: Party, input: Input) -> Effect {
        self.load(
            state.root,
            Part::Endpoint(party),
            state.endpoints[party.index()],
        );
        self.load(state.root, Part::Checker, state.checker);
        let w = &mut self.worlds[usize::from(state.root)];
        let outs = self.outs.len() as u32;
        // Only what the driver acts on: the checker has seen the rest.
        self.outs
            .extend(w.feed(party, input).iter().filter(|o| acted_on(o)));
        let ready = w.endpoint(Party::Client).is_ready();
        let mut e = self.effect(state.root, outs);
        e.endpoint = self.save(state.root, Part::Endpoint(party));
        e.ready = ready;
        e
    }

    /// Works out showing `event` to the checker of `state` in a world.
    fn emit(&mut self, state: &Interned, event: Event) -> Effect {
        self.load(state.root, Part::Checker, state.checker);
        self.worlds[usize::from(state.root)].emit(event);
        let outs = self.outs.len() as u32;
        self.effect(state.root, outs)
    }

    /// The checker's part of the effect just worked out in the world of `root`, whose outputs
    /// start at `outs`.
    fn effect(&mut self, root: u8, outs: u32) -> Effect {
        let c = self.worlds[usize::from(root)].checker();
        let reached = c.verdict().reached;
        let broken = self.broken.len() as u32;
        self.broken
            .extend(c.verdict().violations.iter().map(|v| v.invariant));
        Effect {
            endpoint: 0,
            checker: self.save(root, Part::Checker),
            reached,
            outs,
            broken,
            // An endpoint answers one input with a handful of outputs, and a step breaks at
            // most every invariant once (fewer than 32): both fit a byte.
            n_outs: (self.outs.len() - outs as usize) as u8,
            n_broken: (self.broken.len() - broken as usize) as u8,
            ready: false,
        }
    }

    /// The world of `state`'s initial scenario, holding `state` (its checker with a fresh
    /// verdict).
    fn materialize(&mut self, state: &Interned) -> &mut World {
        self.load(
            state.root,
            Part::Endpoint(Party::Client),
            state.endpoints[0],
        );
        self.load(
            state.root,
            Part::Endpoint(Party::Server),
            state.endpoints[1],
        );
        self.load(state.root, Part::Checker, state.checker);
        &mut self.worlds[usize::from(state.root)]
    }
}

impl Interned {
    /// Takes on what a transition did to the checker.
    fn take(&mut self, e: &Effect, memo: &mut Memo) {
        self.checker = e.checker;
        self.reached = self.reached.union(e.reached);
        if e.n_broken > 0 {
            self.violated = true;
            memo.last_broken = (e.broken, e.n_broken);
        }
    }
}

impl Parties for Interned {
    type Ctx = Memo;

    fn feed(&mut self, memo: &mut Memo, party: Party, input: Input, outs: &mut Outputs) {
        let i = party.index();
        let key = feed_key(self.root, party, self.endpoints[i], self.checker, &input);
        let e = memo.cached(key, |m| m.feed(self, party, input));
        self.endpoints[i] = e.endpoint;
        if party == Party::Client {
            self.client_ready = e.ready;
        }
        outs.extend_from_slice(&memo.outs[e.outs as usize..][..usize::from(e.n_outs)]);
        self.take(&e, memo);
    }

    fn emit(&mut self, memo: &mut Memo, event: Event) {
        let key = emit_key(self.root, self.checker, &event);
        let e = memo.cached(key, |m| m.emit(self, event));
        self.take(&e, memo);
    }

    fn prefetch(&self, memo: &Memo, stimulus: &Stimulus) {
        let key = match stimulus {
            Stimulus::Feed(party, input) => feed_key(
                self.root,
                *party,
                self.endpoints[party.index()],
                self.checker,
                input,
            ),
            Stimulus::Emit(event) => emit_key(self.root, self.checker, event),
            Stimulus::Nothing => return,
        };
        memo.effects.prefetch(key);
    }

    fn broken(&self, memo: &Memo) -> Vec<InvariantId> {
        memo.broken()
    }

    fn client_ready(&self) -> bool {
        self.client_ready
    }

    fn violated(&self) -> bool {
        self.violated
    }

    fn reached(&self) -> PropertySet {
        self.reached
    }

    fn end(&mut self, memo: &mut Memo, quiescent: bool) -> Verdict {
        let w = memo.materialize(self);
        w.end(quiescent);
        w.checker_mut().take_verdict()
    }

    /// The three fingerprints and whether the client is ready: 25 bytes (the driver packs the
    /// root).
    fn pack(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.endpoints[0].to_le_bytes());
        out.extend_from_slice(&self.endpoints[1].to_le_bytes());
        out.extend_from_slice(&self.checker.to_le_bytes());
        out.push(u8::from(self.client_ready));
    }

    fn unpack(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        let mut fp = |what| {
            r.take(8, what)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        };
        let endpoints = [fp("client")?, fp("server")?];
        let checker = fp("checker")?;
        let client_ready = match r.u8("client ready")? {
            0 => false,
            1 => true,
            t => return Err(PackError::BadTag("client ready", t)),
        };
        *self = Interned {
            root: self.root,
            endpoints,
            checker,
            client_ready,
            violated: false,
            reached: PropertySet::default(),
        };
        Ok(())
    }

    /// Materializes the parts and hashes them there (the search does not reduce by symmetry
    /// over interned parties: see `search`).
    fn hash_request(&self, memo: &mut Memo, id: RequestId, h: &mut StableHasher) {
        memo.materialize(self).hash_request(id, h);
    }

    /// Materializes the parts, renames them there and interns the results.
    fn relabel(&mut self, memo: &mut Memo, map: &Renaming) {
        memo.materialize(self).relabel(|x| rename(map, x));
        self.endpoints = [
            memo.save(self.root, Part::Endpoint(Party::Client)),
            memo.save(self.root, Part::Endpoint(Party::Server)),
        ];
        self.checker = memo.save(self.root, Part::Checker);
    }
}
