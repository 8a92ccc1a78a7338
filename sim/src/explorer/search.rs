//! The searches over explored states: breadth-first (level by level on several threads,
//! shortest counterexample first), depth-first (one thread, memory that grows with the depth),
//! and the replay of a schedule either of them reports.
//!
//! Both hold states packed and expand one by unpacking it into a base state, making each
//! successor in a scratch copy of it, and packing the successor again: nothing is allocated per
//! successor once the buffers have grown, but for a transition met for the first time by a
//! flat search (see [`super::flat`]). Lookups in the large tables (the visited set, the
//! transition memo) are prefetched ahead of use.

use std::sync::Arc;

use cancelcheck_model::pack::{PackError, Restore};
use cancelcheck_properties::{InvariantId, PropertySet, Verdict};

use super::flat::{Flat, FlatMemo, FlatShared, FlatStep};
use super::hash::{FingerprintSet, fingerprint};
use super::state::{Explorer, Step};
use super::{initial_scenarios, partial_order, symmetric};
use crate::scenario::Scenario;
use crate::world::World;

/// How to search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Stop expanding at this depth (the search is then bounded, never a plain pass).
    pub max_depth: Option<u32>,
    /// Worker threads for expanding a level.
    pub threads: usize,
    /// Stop after this many unique states (bounded).
    pub max_states: Option<u64>,
    /// Stop before the search would hold more than this many bytes (bounded): its levels or
    /// stack, the successors being made, the visited set and the transition memos, each
    /// counted with the growth it is about to make. See [`SearchReport::bounded_by_memory`].
    pub max_memory: Option<u64>,
    /// Depth-first instead of breadth-first: memory grows with the depth, not the width, but
    /// the first counterexample need not be a shortest one, and with a depth bound a state
    /// first met deep is not revisited from shallower paths (the bound is then approximate).
    /// Single-threaded.
    pub depth_first: bool,
    /// Deduplicate states up to a permutation of interchangeable requests (applied only where
    /// [`symmetric`](super::symmetric) holds; see [`SearchReport::symmetry`]).
    pub symmetry: bool,
    /// Expand, from each state, only an ample set of its steps (one request's on a reordering
    /// link; a queue's head or one party's steps on a FIFO link), where that leaves steps out
    /// (applied only where [`partial_order`](super::partial_order) holds; see [`SearchReport::partial_order`]).
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
    /// The most states held at once: breadth-first, a level plus the new states of the next
    /// (each packed in some 50 to 100 bytes); depth-first, the stack.
    pub peak_states_held: u64,
    /// Whether the symmetry reduction was applied.
    pub symmetry: bool,
    /// Whether the partial-order reduction was applied.
    pub partial_order: bool,
    /// States expanded through an ample set smaller than their enabled steps (0 without the
    /// partial-order reduction).
    pub reduced_states: u64,
    /// Whether states were held as [flat](super::Flat) rows (rather than plain worlds).
    pub flat: bool,
    /// Whether the search stopped at [`SearchOptions::max_memory`] (it is then bounded).
    pub bounded_by_memory: bool,
    /// The most bytes the search held at once, as it counts them (see
    /// [`SearchOptions::max_memory`]).
    pub peak_bytes_held: u64,
    /// The first counterexample found that breaks a MUST clause: its schedule (initial state
    /// index, then the index of each step in `enabled`) and the invariants it breaks. A
    /// shortest one, breadth-first without the partial-order reduction. The search stops at it.
    pub counterexample: Option<(Vec<u32>, Vec<cancelcheck_properties::InvariantId>)>,
    /// The first schedule found that breaks only SHOULD clauses (a warning), in the same form.
    /// The search goes on past it: a state that broke a SHOULD is expanded like any other, so
    /// a MUST broken further on is still found.
    pub warning: Option<(Vec<u32>, Vec<cancelcheck_properties::InvariantId>)>,
    /// Whether the reported counterexample (or warning) is a shortest one: breadth-first
    /// without the partial-order reduction it is; after a reduced search found one, a second
    /// breadth-first search without that reduction, bounded by its length, looks for a
    /// shortest path to a state breaking the same invariant, and it is reported instead when
    /// found.
    pub shortest: bool,
}

impl SearchReport {
    /// The counterexample if a MUST was broken, else the first warning.
    pub fn finding(&self) -> Option<&(Vec<u32>, Vec<InvariantId>)> {
        self.counterexample.as_ref().or(self.warning.as_ref())
    }
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

/// A state's place in the breadth-first search tree: the state it was first reached from and
/// the step that reached it (for a root: `parent == u32::MAX`, `choice` its initial index).
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

/// Packed states end to end in one buffer.
#[derive(Default)]
struct Packed {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Packed {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    fn push(&mut self, state: &[u8]) {
        self.bytes.extend_from_slice(state);
        self.ends.push(self.bytes.len());
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    fn held_bytes(&self) -> u64 {
        (self.bytes.capacity() + self.ends.capacity() * core::mem::size_of::<usize>()) as u64
    }
}

/// A search stopped at its memory budget: bounded, with the states visited so far.
fn out_of_memory(mut report: SearchReport, seen: &FingerprintSet) -> SearchReport {
    report.exhaustive = false;
    report.bounded_by_memory = true;
    report.unique_states = seen.len() as u64;
    report
}

/// One thread's means of expanding states: per initial scenario (they differ only in
/// configuration, which packing leaves out) two states, the base (the one being expanded,
/// unpacked once) and the scratch (a copy of the base for each successor), which trade places
/// when the last successor is made from the base itself; what stepping needs (for the flat
/// form, this thread's memo of transitions); buffers reused for every state, so expanding
/// allocates nothing once they have grown (but for transitions met for the first time).
struct Expander<'a, F: Form> {
    rules: &'a Scenario,
    states: Vec<[F; 2]>,
    /// Which of each pair is the base.
    base_at: Vec<usize>,
    memo: F::Ctx,
    symmetry: bool,
    partial_order: bool,
    all: Vec<F::Step>,
    steps: Vec<(u32, F::Step)>,
    /// The state last keyed, packed (by forms that do not hold their packed form): what is
    /// stored.
    packed: Vec<u8>,
    /// Its canonical relabelling, packed: what is hashed under symmetry.
    canon: Vec<u8>,
    /// What it made of its share of the level last expanded (its buffers kept from level to
    /// level).
    share: Share,
}

/// A form in which a search holds and steps states: a plain [`Explorer`] or a [`Flat`] row.
/// See [`search`] for which it uses.
trait Form: Sized + Send {
    /// What one thread needs to step states besides the states.
    type Ctx: Send;
    /// One choice of what happens next.
    type Step: Copy + Send;
    /// The initial states (one per initial scenario) in this form and one thread's context;
    /// `None` if the form cannot hold them.
    fn start(roots: &Roots) -> Option<(Vec<Self>, Self::Ctx)>;
    /// A copy.
    fn copy(&self) -> Self;
    /// Becomes `src` again (which this state was last a copy of, unless
    /// [`Form::forget_origin`] was called since).
    fn restore_from(&mut self, src: &Self);
    /// The state it was a copy of has itself changed.
    fn forget_origin(&mut self) {}
    /// Becomes the state `bytes` packs.
    fn unpack(&mut self, bytes: &[u8], cx: &mut Self::Ctx) -> Result<(), PackError>;
    /// The steps to expand, each with its index among all enabled steps; `all` is scratch.
    fn to_expand(
        &self,
        rules: &Scenario,
        reduce: bool,
        cx: &Self::Ctx,
        all: &mut Vec<Self::Step>,
        out: &mut Vec<(u32, Self::Step)>,
    );
    /// Gets ready to take `steps` soon (a hint).
    fn prefetch(&self, steps: &[(u32, Self::Step)], cx: &Self::Ctx);
    /// Applies one step.
    fn step(&mut self, rules: &Scenario, step: Self::Step, cx: &mut Self::Ctx);
    /// Whether a MUST clause was broken since the state was unpacked.
    fn violated(&self) -> bool;
    /// Whether only SHOULD clauses were broken since the state was unpacked.
    fn warned(&self) -> bool;
    /// The races reached since the state was unpacked.
    fn reached(&self) -> PropertySet;
    /// The invariants the last step that broke one broke.
    fn broken(&self, cx: &Self::Ctx) -> Vec<InvariantId>;
    /// Ends the run here and takes the verdict; the state is spent.
    fn end(&mut self, quiescent: bool, cx: &mut Self::Ctx) -> Verdict;
    /// The state packed (in `packed`, or held by the state itself) and its key in the
    /// visited set: the fingerprint of the packed bytes, or with `symmetry` of its canonical
    /// relabelling's (packed into `canon`; the state is then relabelled: unpack another
    /// before stepping).
    fn key<'s>(
        &'s mut self,
        rules: &Scenario,
        symmetry: bool,
        cx: &mut Self::Ctx,
        packed: &'s mut Vec<u8>,
        canon: &mut Vec<u8>,
    ) -> (u64, &'s [u8]);
    /// The bytes one thread's context holds (its memo of transitions).
    fn held_bytes(_cx: &Self::Ctx) -> u64 {
        0
    }
    /// Whether some state did not fit this form, which voids the search.
    fn spoilt(_cx: &Self::Ctx) -> bool {
        false
    }
}

impl Form for Explorer {
    type Ctx = ();
    type Step = Step;

    fn start(roots: &Roots) -> Option<(Vec<Self>, ())> {
        Some((roots.states.clone(), ()))
    }

    fn copy(&self) -> Self {
        self.clone()
    }

    fn restore_from(&mut self, src: &Self) {
        Restore::restore_from(self, src);
    }

    fn forget_origin(&mut self) {
        Explorer::forget_origin(self);
    }

    fn unpack(&mut self, bytes: &[u8], _: &mut ()) -> Result<(), PackError> {
        Explorer::unpack(self, bytes)
    }

    fn to_expand(
        &self,
        rules: &Scenario,
        reduce: bool,
        _: &(),
        all: &mut Vec<Step>,
        out: &mut Vec<(u32, Step)>,
    ) {
        Explorer::to_expand(self, rules, reduce, all, out);
    }

    /// Nothing to fetch: a plain state steps its world directly.
    fn prefetch(&self, _: &[(u32, Step)], _: &()) {}

    fn step(&mut self, rules: &Scenario, step: Step, _: &mut ()) {
        self.apply(rules, step);
    }

    fn violated(&self) -> bool {
        Explorer::violated(self)
    }

    fn warned(&self) -> bool {
        Explorer::warned(self)
    }

    fn reached(&self) -> PropertySet {
        Explorer::reached(self)
    }

    fn broken(&self, _: &()) -> Vec<InvariantId> {
        self.world().checker().broken()
    }

    fn end(&mut self, quiescent: bool, _: &mut ()) -> Verdict {
        Explorer::end(self, quiescent)
    }

    fn key<'s>(
        &'s mut self,
        rules: &Scenario,
        symmetry: bool,
        _: &mut (),
        packed: &'s mut Vec<u8>,
        canon: &mut Vec<u8>,
    ) -> (u64, &'s [u8]) {
        self.pack(packed);
        if !symmetry || !self.canonicalize(rules) {
            return (fingerprint(packed), packed);
        }
        self.pack(canon);
        (fingerprint(canon), packed)
    }
}

impl Form for Flat {
    type Ctx = FlatMemo;
    type Step = FlatStep;

    fn start(roots: &Roots) -> Option<(Vec<Flat>, FlatMemo)> {
        let shared = roots.flat.clone()?;
        let mut memo = FlatMemo::new(shared, roots.worlds.clone());
        let states = roots
            .states
            .iter()
            .map(|e| Flat::from_explorer(e, &mut memo))
            .collect::<Option<Vec<Flat>>>()?;
        Some((states, memo))
    }

    fn copy(&self) -> Self {
        self.clone()
    }

    fn restore_from(&mut self, src: &Self) {
        Flat::restore_from(self, src);
    }

    fn unpack(&mut self, bytes: &[u8], cx: &mut FlatMemo) -> Result<(), PackError> {
        Flat::unpack(self, bytes, cx)
    }

    fn to_expand(
        &self,
        _: &Scenario,
        reduce: bool,
        cx: &FlatMemo,
        all: &mut Vec<FlatStep>,
        out: &mut Vec<(u32, FlatStep)>,
    ) {
        Flat::to_expand(self, reduce, cx, all, out);
    }

    fn prefetch(&self, steps: &[(u32, FlatStep)], cx: &FlatMemo) {
        Flat::prefetch(self, steps, cx);
    }

    fn step(&mut self, _: &Scenario, step: FlatStep, cx: &mut FlatMemo) {
        Flat::step(self, step, cx);
    }

    fn violated(&self) -> bool {
        Flat::violated(self)
    }

    fn warned(&self) -> bool {
        Flat::warned(self)
    }

    fn reached(&self) -> PropertySet {
        Flat::reached(self)
    }

    fn broken(&self, cx: &FlatMemo) -> Vec<InvariantId> {
        cx.broken()
    }

    fn end(&mut self, quiescent: bool, cx: &mut FlatMemo) -> Verdict {
        Flat::end(self, quiescent, cx)
    }

    /// A flat state is its own packed form, and is never relabelled (the flat form serves
    /// searches without symmetry).
    fn key<'s>(
        &'s mut self,
        _: &Scenario,
        _: bool,
        _: &mut FlatMemo,
        _: &'s mut Vec<u8>,
        _: &mut Vec<u8>,
    ) -> (u64, &'s [u8]) {
        (fingerprint(self.bytes()), self.bytes())
    }

    fn held_bytes(cx: &FlatMemo) -> u64 {
        cx.held_bytes()
    }
    fn spoilt(cx: &FlatMemo) -> bool {
        cx.spoilt()
    }
}

impl<'a, F: Form> Expander<'a, F> {
    /// `None` if the form cannot hold the initial states.
    fn new(
        rules: &'a Scenario,
        roots: &Roots,
        symmetry: bool,
        partial_order: bool,
    ) -> Option<Self> {
        let (states, memo) = F::start(roots)?;
        Some(Expander {
            rules,
            base_at: vec![0; states.len()],
            states: states.into_iter().map(|e| [e.copy(), e]).collect(),
            memo,
            symmetry,
            partial_order,
            all: Vec::new(),
            steps: Vec::new(),
            packed: Vec::new(),
            canon: Vec::new(),
            share: Share::default(),
        })
    }

    /// Unpacks `state` into the base state of its root, lists the steps to expand from it into
    /// `steps`, and returns the root.
    fn load(&mut self, state: &[u8]) -> usize {
        let root = usize::from(state[0]);
        let at = self.base_at[root];
        if let Err(e) = self.states[root][at].unpack(state, &mut self.memo) {
            // Only this module's own `key` writes these bytes.
            panic!("explorer: a state it packed does not unpack ({e})");
        }
        // The scratch state was a copy of what the base held before.
        self.states[root][at ^ 1].forget_origin();
        let base = &self.states[root][at];
        base.to_expand(
            self.rules,
            self.partial_order,
            &self.memo,
            &mut self.all,
            &mut self.steps,
        );
        base.prefetch(&self.steps, &self.memo);
        root
    }

    /// Whether the state last loaded expands fewer steps than it has enabled.
    fn reduced(&self) -> bool {
        self.steps.len() < self.all.len()
    }

    /// Applies `step` to a copy of the base state of `root`, in its scratch state; with
    /// `last`, to the base itself (which is then spent: load another before the next step).
    fn step(&mut self, root: usize, step: F::Step, last: bool) -> &mut F {
        if last {
            self.base_at[root] ^= 1;
        } else {
            let [a, b] = &mut self.states[root];
            match self.base_at[root] {
                0 => b.restore_from(a),
                _ => a.restore_from(b),
            }
        }
        let e = &mut self.states[root][self.base_at[root] ^ 1];
        e.step(self.rules, step, &mut self.memo);
        e
    }

    /// The invariants the scratch state of `root` broke.
    fn broken(&self, root: usize) -> Vec<InvariantId> {
        self.states[root][self.base_at[root] ^ 1].broken(&self.memo)
    }

    /// Ends the run at the base state of `root` (quiescent) and takes the verdict.
    fn end_base(&mut self, root: usize) -> Verdict {
        let at = self.base_at[root];
        self.states[root][at].end(true, &mut self.memo)
    }

    /// The scratch state of `root` packed, and its key in the visited set (see
    /// [`Form::key`]).
    fn key(&mut self, root: usize) -> (u64, &[u8]) {
        let e = &mut self.states[root][self.base_at[root] ^ 1];
        e.key(
            self.rules,
            self.symmetry,
            &mut self.memo,
            &mut self.packed,
            &mut self.canon,
        )
    }
}

/// What every thread of a search starts from: the initial states, one per initial scenario;
/// their worlds (whose configurations the flat memos work out transitions in); the flat
/// form's shared tables.
struct Roots {
    states: Vec<Explorer>,
    worlds: Vec<World>,
    /// The flat form's shared tables (`None` where its states would not fit a row).
    flat: Option<Arc<FlatShared>>,
}

/// The initial states and the scenario whose step rules serve for all (they differ only in
/// what the server declares, which lives in the endpoints).
fn roots(scenario: &Scenario) -> (Scenario, Roots) {
    let inits = initial_scenarios(scenario);
    let states: Vec<Explorer> = inits
        .iter()
        .enumerate()
        .map(|(i, s)| Explorer::new(s, i as u8, false))
        .collect();
    let worlds = states.iter().map(|e| e.world().clone()).collect();
    let rules = inits.into_iter().next().unwrap_or_else(|| scenario.clone());
    let flat = FlatShared::new(&rules);
    (
        rules,
        Roots {
            states,
            worlds,
            flat,
        },
    )
}

/// A successor that breaks an invariant, or a quiescent state that breaks an eventual one
/// (`choice: None`).
#[derive(Clone)]
struct Bad {
    parent: u32,
    choice: Option<u32>,
    broken: Vec<InvariantId>,
}

/// A successor not in the visited set when its level began.
#[derive(Clone, Copy)]
struct Candidate {
    parent: u32,
    choice: u32,
    fingerprint: u64,
    /// Where its packed state is in its share's bytes.
    at: usize,
    len: u32,
}

/// What one thread made of its share of a level.
#[derive(Default)]
struct Share {
    candidates: Vec<Candidate>,
    /// The packed states of the candidates (and of successors dropped as already seen), end
    /// to end.
    bytes: Vec<u8>,
    generated: u64,
    /// States expanded through an ample set smaller than their enabled steps.
    reduced: u64,
    reached: PropertySet,
    /// The first quiescent state breaking an eventual property, and the first successor
    /// breaking an invariant, in merge order: a MUST (`bad`) or only SHOULDs (`warn`).
    quiescent_bad: Option<Bad>,
    child_bad: Option<Bad>,
    quiescent_warn: Option<Bad>,
    child_warn: Option<Bad>,
    /// Whether it stopped before the end of its range, at its memory allowance.
    cut: bool,
}

/// The bytes a growable buffer of `len` of `cap` elements of `elem` bytes holds, counting the
/// doubling it is about to make (the old and the new buffer at once) once it is three
/// quarters full.
fn growable(len: usize, cap: usize, elem: usize) -> u64 {
    let bytes = (cap * elem) as u64;
    if len * 4 >= cap * 3 { 3 * bytes } else { bytes }
}

/// The bytes a buffer of `cap` elements of `elem` bytes holds while it is made to hold
/// `needed` (the old and the new buffer at once if it must grow).
fn reserved(needed: usize, cap: usize, elem: usize) -> u64 {
    if needed <= cap {
        (cap * elem) as u64
    } else {
        ((cap + needed) * elem) as u64
    }
}

/// Expands states `range` of `level` into `x.share`: every successor is generated and checked;
/// those whose key is not in `seen` (read only while a level expands) become candidates for
/// the merge. With an `allowance`, it stops (and says so in `cut`) once its buffers and its
/// memo would hold more bytes than that.
fn expand_share<F: Form>(
    x: &mut Expander<'_, F>,
    level: &Packed,
    nodes: &[u32],
    range: core::ops::Range<usize>,
    seen: &FingerprintSet,
    allowance: Option<u64>,
) {
    let mut out = core::mem::take(&mut x.share);
    out.candidates.clear();
    out.bytes.clear();
    out.generated = 0;
    out.reduced = 0;
    out.reached = PropertySet::default();
    out.quiescent_bad = None;
    out.child_bad = None;
    out.quiescent_warn = None;
    out.child_warn = None;
    out.cut = false;
    // Candidates from `pending` on were not yet checked against `seen`: those of one state are
    // checked after the next state's successors are made, when their slots have arrived.
    let mut pending = 0;
    for i in range {
        let state = level.get(i);
        let node = nodes[i];
        let root = x.load(state);
        out.reduced += u64::from(x.reduced());
        if x.steps.is_empty() {
            // Quiescent: the eventual properties are judged here.
            let v = x.end_base(root);
            let slot = match v.failed() {
                true => &mut out.quiescent_bad,
                false => &mut out.quiescent_warn,
            };
            if !v.passed() && slot.is_none() {
                *slot = Some(Bad {
                    parent: node,
                    choice: None,
                    broken: v.violations.iter().map(|v| v.invariant).collect(),
                });
            }
            continue;
        }
        let made = out.candidates.len();
        let before = out.bytes.len() + out.candidates.len() * core::mem::size_of::<Candidate>();
        for j in 0..x.steps.len() {
            let (choice, step) = x.steps[j];
            let e = x.step(root, step, j + 1 == x.steps.len());
            out.generated += 1;
            out.reached = out.reached.union(e.reached());
            if e.violated() {
                if out.child_bad.is_none() {
                    out.child_bad = Some(Bad {
                        parent: node,
                        choice: Some(choice),
                        broken: x.broken(root),
                    });
                }
                continue;
            }
            if e.warned() && out.child_warn.is_none() {
                out.child_warn = Some(Bad {
                    parent: node,
                    choice: Some(choice),
                    broken: x.broken(root),
                });
            }
            let (fingerprint, packed) = x.key(root);
            seen.prefetch(fingerprint);
            out.candidates.push(Candidate {
                parent: node,
                choice,
                fingerprint,
                at: out.bytes.len(),
                len: packed.len() as u32,
            });
            out.bytes.extend_from_slice(packed);
        }
        pending = out.settle(seen, pending, made);
        // Room is kept for the next state to add as much as this one did.
        let added = (out.bytes.len() + out.candidates.len() * core::mem::size_of::<Candidate>())
            .saturating_sub(before) as u64;
        if allowance.is_some_and(|a| out.held_bytes() + F::held_bytes(&x.memo) + 2 * added > a) {
            out.cut = true;
            break;
        }
    }
    let end = out.candidates.len();
    out.settle(seen, pending, end);
    x.share = out;
}

impl Share {
    /// Drops the candidates of `from..to` whose key `seen` holds (their bytes stay, unused),
    /// moving later ones down; returns where the candidate at `to` went.
    fn settle(&mut self, seen: &FingerprintSet, from: usize, to: usize) -> usize {
        let len = self.candidates.len();
        let mut w = from;
        for i in from..len {
            let c = self.candidates[i];
            if i < to && seen.contains(c.fingerprint) {
                continue;
            }
            self.candidates[w] = c;
            w += 1;
        }
        self.candidates.truncate(w);
        to - (len - w)
    }

    /// The bytes its buffers hold, counting a growth about to happen.
    fn held_bytes(&self) -> u64 {
        growable(self.bytes.len(), self.bytes.capacity(), 1)
            + growable(
                self.candidates.len(),
                self.candidates.capacity(),
                core::mem::size_of::<Candidate>(),
            )
    }

    /// The packed state of candidate `c`.
    fn state(&self, c: &Candidate) -> &[u8] {
        &self.bytes[c.at..][..c.len as usize]
    }
}

/// Explores `scenario` (breadth-first unless `opts.depth_first`). `progress(depth, unique,
/// frontier)` is called after each breadth-first level.
///
/// Without the symmetry reduction states are held [flat](super::Flat): few distinct endpoint
/// states, checker states and messages recur in many global states, so a state is a row of
/// small codes and most transitions are looked up, not worked out. Under symmetry every
/// successor is relabelled, which needs the parties themselves, and the reduced space has few
/// repeats to look up: states are then held as plain worlds, as they are when a state does not
/// fit a flat row. Either way the same states are visited, with the same counts.
pub fn search(
    scenario: &Scenario,
    opts: &SearchOptions,
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> SearchReport {
    let sym = opts.symmetry && symmetric(scenario);
    let (rules, roots) = roots(scenario);
    let run = |flat: bool| match (flat, opts.depth_first) {
        (true, false) => search_breadth_first::<Flat>(&rules, &roots, opts, progress),
        (false, false) => search_breadth_first::<Explorer>(&rules, &roots, opts, progress),
        (true, true) => search_depth_first::<Flat>(&rules, &roots, opts),
        (false, true) => search_depth_first::<Explorer>(&rules, &roots, opts),
    };
    // Plain worlds hold every state, so the second run always reports.
    let mut report = (!sym)
        .then(|| run(true))
        .flatten()
        .map(|r| SearchReport { flat: true, ..r })
        .or_else(|| run(false))
        .unwrap_or_default();
    report.shortest = !opts.depth_first && !report.partial_order;
    if report.shortest {
        return report;
    }
    // A reduced or depth-first search found a path, perhaps not a shortest one: look for a
    // shortest path to the same invariant breadth-first, without the partial-order reduction
    // (the symmetry reduction keeps lengths), no deeper than the path found.
    let Some((path, broken)) = report.finding().cloned() else {
        // Nothing found: no path to shorten.
        report.shortest = true;
        return report;
    };
    let must = report.counterexample.is_some();
    let again = SearchOptions {
        max_depth: Some(path.len() as u32),
        depth_first: false,
        partial_order: false,
        ..*opts
    };
    let quiet = |_, _, _| {};
    let shorter = search(scenario, &again, &quiet);
    let same = |found: &Option<(Vec<u32>, Vec<InvariantId>)>| {
        found
            .clone()
            .filter(|(p, b)| p.len() <= path.len() && b.iter().any(|i| broken.contains(i)))
    };
    let found = if must {
        same(&shorter.counterexample)
    } else {
        same(&shorter.warning)
    };
    if let Some(found) = found {
        if must {
            report.counterexample = Some(found);
        } else {
            report.warning = Some(found);
        }
        report.shortest = true;
    }
    report
}

/// Breadth-first search from `roots` by the step rules of `rules` (see [`roots`]); `None` if
/// the form `F` could not hold some state.
fn search_breadth_first<F: Form>(
    rules: &Scenario,
    roots: &Roots,
    opts: &SearchOptions,
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> Option<SearchReport> {
    let sym = opts.symmetry && symmetric(rules);
    let por = opts.partial_order && partial_order(rules);
    let mut report = SearchReport::starting(sym, por);
    let threads = opts.threads.clamp(1, 64);
    let mut expanders: Vec<Expander<'_, F>> = (0..threads)
        .map(|_| Expander::new(rules, roots, sym, por))
        .collect::<Option<_>>()?;
    let mut seen = FingerprintSet::default();
    let mut nodes: Vec<Node> = Vec::new();
    // A level: its states packed, and each one's node.
    let (mut level, mut level_nodes) = (Packed::default(), Vec::<u32>::new());
    // (Keying may relabel a scratch state; scratch states are overwritten before every step.)
    let x = &mut expanders[0];
    for i in 0..x.states.len() {
        report.total_states += 1;
        let (key, packed) = x.key(i);
        if seen.insert(key, ()) {
            nodes.push(Node {
                parent: u32::MAX,
                choice: i as u32,
            });
            level.push(packed);
            level_nodes.push((nodes.len() - 1) as u32);
        }
    }
    let mut depth = 0u32;
    while level.len() > 0 {
        report.max_depth = depth;
        if opts.max_depth.is_some_and(|d| depth >= d) {
            report.exhaustive = false;
            break;
        }
        // Expand in parallel: each thread a contiguous share, so that shares in thread order
        // are the level in order.
        let chunk = level.len().div_ceil(threads);
        let range = |t: usize| (t * chunk).min(level.len())..((t + 1) * chunk).min(level.len());
        // What the search holds besides the threads' shares and memos, and what each thread
        // may then hold.
        let fixed = level.held_bytes()
            + (level_nodes.capacity() * 4) as u64
            + (nodes.capacity() * core::mem::size_of::<Node>()) as u64
            + seen.held_bytes();
        let threads_held: u64 = expanders
            .iter()
            .map(|x| x.share.held_bytes() + F::held_bytes(&x.memo))
            .sum();
        let allowance = match opts.max_memory {
            Some(m) if fixed + threads_held > m => {
                return Some(out_of_memory(report, &seen));
            }
            Some(m) => Some((m - fixed) / threads as u64),
            None => None,
        };
        report.peak_bytes_held = report.peak_bytes_held.max(fixed + threads_held);
        if threads == 1 {
            expand_share(
                &mut expanders[0],
                &level,
                &level_nodes,
                range(0),
                &seen,
                allowance,
            );
        } else {
            std::thread::scope(|scope| {
                let (level, level_nodes, seen) = (&level, &level_nodes, &seen);
                for (t, x) in expanders.iter_mut().enumerate() {
                    let range = range(t);
                    scope
                        .spawn(move || expand_share(x, level, level_nodes, range, seen, allowance));
                }
            });
        }
        if expanders.iter().any(|x| F::spoilt(&x.memo)) {
            return None;
        }
        let threads_held: u64 = expanders
            .iter()
            .map(|x| x.share.held_bytes() + F::held_bytes(&x.memo))
            .sum();
        if opts.max_memory.is_none_or(|m| fixed + threads_held <= m) {
            report.peak_bytes_held = report.peak_bytes_held.max(fixed + threads_held);
        }
        let shares: Vec<&Share> = expanders.iter().map(|x| &x.share).collect();
        for s in &shares {
            report.total_states += s.generated;
            report.reduced_states += s.reduced;
            report.reached = report.reached.union(s.reached);
        }
        // A quiescent state's own violation is shallower than any successor's: report it first.
        let bad = shares
            .iter()
            .find_map(|s| s.quiescent_bad.clone())
            .or_else(|| shares.iter().find_map(|s| s.child_bad.clone()));
        if let Some(bad) = bad {
            let mut path = path_to(&nodes, bad.parent);
            path.extend(bad.choice);
            report.counterexample = Some((path, bad.broken));
            report.unique_states = seen.len() as u64;
            report.max_depth = depth + u32::from(bad.choice.is_some());
            if shares.iter().any(|s| s.cut) {
                report.exhaustive = false;
                report.bounded_by_memory = true;
            }
            return Some(report);
        }
        if report.warning.is_none() {
            let warn = shares
                .iter()
                .find_map(|s| s.quiescent_warn.clone())
                .or_else(|| shares.iter().find_map(|s| s.child_warn.clone()));
            report.warning = warn.map(|w| {
                let mut path = path_to(&nodes, w.parent);
                path.extend(w.choice);
                (path, w.broken)
            });
        }
        if shares.iter().any(|s| s.cut) {
            return Some(out_of_memory(report, &seen));
        }
        let candidates: usize = shares.iter().map(|s| s.candidates.len()).sum();
        // The merge puts up to every candidate in the next level, the tree and the visited
        // set: make room first, if the budget allows.
        let candidate_bytes: usize = shares
            .iter()
            .map(|s| s.candidates.iter().map(|c| c.len as usize).sum::<usize>())
            .sum();
        let merging = reserved(candidate_bytes, level.bytes.capacity(), 1)
            + reserved(
                candidates,
                level.ends.capacity(),
                core::mem::size_of::<usize>(),
            )
            + reserved(candidates, level_nodes.capacity(), 4)
            + reserved(
                nodes.len() + candidates,
                nodes.capacity(),
                core::mem::size_of::<Node>(),
            )
            + seen.held_bytes_after(candidates)
            + threads_held;
        if opts.max_memory.is_some_and(|m| merging > m) {
            return Some(out_of_memory(report, &seen));
        }
        report.peak_bytes_held = report.peak_bytes_held.max(merging);
        report.peak_states_held = report
            .peak_states_held
            .max((level.len() + candidates) as u64);
        // Merge in order: the first of equal states is kept.
        level.clear();
        level_nodes.clear();
        if opts.max_memory.is_some() {
            level.bytes.reserve_exact(candidate_bytes);
            level.ends.reserve_exact(candidates);
            level_nodes.reserve_exact(candidates);
            nodes.reserve_exact(candidates);
        }
        for share in &shares {
            for (k, c) in share.candidates.iter().enumerate() {
                // Ask for the slot of a candidate a few ahead, so that it is there when needed.
                if let Some(ahead) = share.candidates.get(k + 8) {
                    seen.prefetch(ahead.fingerprint);
                }
                if !seen.insert(c.fingerprint, ()) {
                    continue;
                }
                nodes.push(Node {
                    parent: c.parent,
                    choice: c.choice,
                });
                level.push(share.state(c));
                level_nodes.push((nodes.len() - 1) as u32);
                if opts.max_states.is_some_and(|m| seen.len() as u64 >= m) {
                    report.exhaustive = false;
                    report.unique_states = seen.len() as u64;
                    return Some(report);
                }
            }
        }
        depth += 1;
        progress(depth, seen.len() as u64, level.len() as u64);
    }
    report.unique_states = seen.len() as u64;
    Some(report)
}

/// A state on the depth-first stack: where its packed bytes are in the byte stack, where its
/// steps are in the step stack (listed when it first comes to the top), and the next to take.
struct Frame {
    start: usize,
    end: usize,
    steps: Option<(usize, usize)>,
    next: usize,
}

/// Depth-first search from `roots` by the step rules of `rules`; `None` if the form `F` could
/// not hold some state.
fn search_depth_first<F: Form>(
    rules: &Scenario,
    roots: &Roots,
    opts: &SearchOptions,
) -> Option<SearchReport> {
    let sym = opts.symmetry && symmetric(rules);
    let por = opts.partial_order && partial_order(rules);
    let mut report = SearchReport::starting(sym, por);
    let mut x = Expander::<F>::new(rules, roots, sym, por)?;
    let mut seen = FingerprintSet::default();
    let mut bytes: Vec<u8> = Vec::new();
    let mut steps: Vec<(u32, F::Step)> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    // The choices that led to the top: the step taken last from every frame below it.
    let path = |root: usize, stack: &[Frame], steps: &[(u32, F::Step)]| {
        let mut p = vec![root as u32];
        for f in &stack[..stack.len() - 1] {
            let (s0, _) = f.steps.unwrap_or_default();
            p.push(steps[s0 + f.next - 1].0);
        }
        p
    };
    for root in 0..x.states.len() {
        report.total_states += 1;
        let (key, packed) = x.key(root);
        if !seen.insert(key, ()) {
            continue;
        }
        bytes.clear();
        bytes.extend_from_slice(packed);
        steps.clear();
        // The frame whose state the base holds.
        let mut loaded: Option<usize> = None;
        stack.push(Frame {
            start: 0,
            end: bytes.len(),
            steps: None,
            next: 0,
        });
        while let Some(t) = stack.len().checked_sub(1) {
            let depth = t as u32;
            report.max_depth = report.max_depth.max(depth);
            report.peak_states_held = report.peak_states_held.max(stack.len() as u64);
            let (start, end) = (stack[t].start, stack[t].end);
            let (s0, s1) = match stack[t].steps {
                Some(range) => range,
                None => {
                    let r = x.load(&bytes[start..end]);
                    report.reduced_states += u64::from(x.reduced());
                    loaded = Some(t);
                    let range = (steps.len(), steps.len() + x.steps.len());
                    steps.extend_from_slice(&x.steps);
                    stack[t].steps = Some(range);
                    if range.0 == range.1 {
                        // Quiescent: the eventual properties are judged here.
                        let v = x.end_base(r);
                        loaded = None;
                        let broken = || v.violations.iter().map(|v| v.invariant).collect();
                        if v.failed() {
                            report.counterexample = Some((path(root, &stack, &steps), broken()));
                            report.unique_states = seen.len() as u64;
                            return Some(report);
                        }
                        if !v.passed() && report.warning.is_none() {
                            report.warning = Some((path(root, &stack, &steps), broken()));
                        }
                    }
                    range
                }
            };
            let next = stack[t].next;
            if s0 + next >= s1 || opts.max_depth.is_some_and(|d| depth >= d) {
                if s0 + next < s1 {
                    report.exhaustive = false;
                }
                bytes.truncate(start);
                steps.truncate(s0);
                stack.pop();
                continue;
            }
            let (choice, step) = steps[s0 + next];
            stack[t].next += 1;
            if loaded != Some(t) {
                x.load(&bytes[start..end]);
            }
            let last = s0 + next + 1 == s1;
            loaded = if last { None } else { Some(t) };
            let e = x.step(root, step, last);
            report.total_states += 1;
            report.reached = report.reached.union(e.reached());
            let violated = e.violated();
            let warned = e.warned();
            if F::spoilt(&x.memo) {
                return None;
            }
            if violated {
                let broken = x.broken(root);
                let mut p = path(root, &stack, &steps);
                p.push(choice);
                report.counterexample = Some((p, broken));
                report.unique_states = seen.len() as u64;
                return Some(report);
            }
            if warned && report.warning.is_none() {
                let mut p = path(root, &stack, &steps);
                p.push(choice);
                report.warning = Some((p, x.broken(root)));
            }
            if let Some(m) = opts.max_memory {
                // The successor's row is about as long as its parent's.
                let held = growable(bytes.len() + 2 * (end - start), bytes.capacity(), 1)
                    + growable(
                        stack.len() + 1,
                        stack.capacity(),
                        core::mem::size_of::<Frame>(),
                    )
                    + growable(
                        steps.len(),
                        steps.capacity(),
                        core::mem::size_of::<(u32, F::Step)>(),
                    )
                    + seen.held_bytes_after(1)
                    + F::held_bytes(&x.memo);
                if held > m {
                    return Some(out_of_memory(report, &seen));
                }
                report.peak_bytes_held = report.peak_bytes_held.max(held);
            }
            let (key, packed) = x.key(root);
            if seen.insert(key, ()) {
                if opts.max_states.is_some_and(|m| seen.len() as u64 >= m) {
                    report.exhaustive = false;
                    report.unique_states = seen.len() as u64;
                    return Some(report);
                }
                let start = bytes.len();
                bytes.extend_from_slice(packed);
                stack.push(Frame {
                    start,
                    end: bytes.len(),
                    steps: None,
                    next: 0,
                });
            }
        }
    }
    report.unique_states = seen.len() as u64;
    Some(report)
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
    let Some((root, init, rest)) = schedule
        .split_first()
        .and_then(|(&first, rest)| Some((first as u8, inits.get(first as usize)?, rest)))
    else {
        return Replayed {
            verdict: Verdict::default(),
            events: Vec::new(),
            applied: 0,
        };
    };
    let mut e = Explorer::new(init, root, true);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explorer::ExploreSpec;
    use crate::link::Order;
    use cancelcheck_model::{Behaviour, Dialect};

    /// Rows with room for one message per direction cannot hold two requests in flight: both
    /// flat searches report themselves void, and plain worlds answer with the counts the flat
    /// form gives when its rows are large enough.
    #[test]
    fn a_state_too_big_for_its_row_voids_the_flat_search() {
        let s = ExploreSpec::new(Dialect::Acp, Behaviour::Honour, 2, Order::Reordering).scenario();
        let (rules, mut roots) = roots(&s);
        let mut opts = SearchOptions {
            max_depth: None,
            threads: 1,
            max_states: None,
            max_memory: None,
            depth_first: false,
            symmetry: false,
            partial_order: false,
        };
        let quiet = |_, _, _| {};
        let flat = search_breadth_first::<Flat>(&rules, &roots, &opts, &quiet).expect("fits");
        let whole = search(&s, &opts, &quiet);
        assert!(whole.flat && flat.exhaustive);
        roots.flat = Some(FlatShared::with_net_capacity(&rules, 1));
        assert!(search_breadth_first::<Flat>(&rules, &roots, &opts, &quiet).is_none());
        let plain = search_breadth_first::<Explorer>(&rules, &roots, &opts, &quiet);
        let plain = plain.expect("plain worlds hold every state");
        assert_eq!(
            (flat.unique_states, flat.total_states),
            (plain.unique_states, plain.total_states)
        );
        opts.depth_first = true;
        assert!(search_depth_first::<Flat>(&rules, &roots, &opts).is_none());
        let plain = search_depth_first::<Explorer>(&rules, &roots, &opts).expect("plain");
        assert_eq!(flat.unique_states, plain.unique_states);
    }
}
