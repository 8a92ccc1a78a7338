//! The forms a search holds and steps states in: a plain [`Explorer`] or a [`Flat`] row.

use cancelcheck_model::pack::{PackError, Restore};
use cancelcheck_properties::{InvariantId, PropertySet, Verdict};

use super::expander::Roots;
use crate::explorer::flat::{Flat, FlatMemo, FlatStep};
use crate::explorer::hash::fingerprint;
use crate::explorer::state::{Explorer, Step};
use crate::scenario::Scenario;

/// A form in which a search holds and steps states: a plain [`Explorer`] or a [`Flat`] row.
/// See [`search`](super::search) for which it uses.
pub(super) trait Form: Sized + Send {
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
    /// Gets ready to take `steps` (listed from this state) soon: works out what it can of
    /// them ahead and asks for the memory they will read (a hint: they step alike without).
    fn prepare(&self, steps: &mut [(u32, Self::Step)], cx: &Self::Ctx);
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
    /// The bytes one thread's context holds (its memo of transitions, and what it added to
    /// what the contexts share since [`Form::count_shared`]).
    fn held_bytes(_cx: &Self::Ctx) -> u64 {
        0
    }
    /// The bytes the threads' contexts share, counted once (with room for their next growth);
    /// each context's count of what it adds to them begins again. Called while no thread
    /// steps.
    fn count_shared<'c>(_cxs: impl IntoIterator<Item = &'c mut Self::Ctx>) -> u64
    where
        Self::Ctx: 'c,
    {
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

    /// Nothing to prepare: a plain state steps its world directly.
    fn prepare(&self, _: &mut [(u32, Step)], _: &()) {}

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

    fn prepare(&self, steps: &mut [(u32, FlatStep)], cx: &FlatMemo) {
        Flat::prepare(self, steps, cx);
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
        (self.fingerprint(), self.bytes())
    }

    fn held_bytes(cx: &FlatMemo) -> u64 {
        cx.held_bytes()
    }
    fn count_shared<'c>(cxs: impl IntoIterator<Item = &'c mut FlatMemo>) -> u64 {
        FlatMemo::count_shared(cxs)
    }
    fn spoilt(cx: &FlatMemo) -> bool {
        cx.spoilt()
    }
}
