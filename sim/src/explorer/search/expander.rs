//! One thread's means of expanding states, and the initial states every thread starts from.

use std::sync::Arc;

use cancelcheck_properties::{InvariantId, Verdict};

use super::breadth_first::Share;
use super::form::Form;
use crate::explorer::flat::FlatShared;
use crate::explorer::initial_scenarios;
use crate::explorer::state::Explorer;
use crate::scenario::Scenario;
use crate::world::World;

/// One thread's means of expanding states: per initial scenario (they differ only in
/// configuration, which packing leaves out) two states, the base (the one being expanded,
/// unpacked once) and the scratch (a copy of the base for each successor), which trade places
/// when the last successor is made from the base itself; what stepping needs (for the flat
/// form, this thread's memo of transitions); buffers reused for every state, so expanding
/// allocates nothing once they have grown (but for transitions met for the first time).
pub(super) struct Expander<'a, F: Form> {
    pub(super) rules: &'a Scenario,
    pub(super) states: Vec<[F; 2]>,
    /// Which of each pair is the base.
    pub(super) base_at: Vec<usize>,
    pub(super) memo: F::Ctx,
    pub(super) symmetry: bool,
    pub(super) partial_order: bool,
    pub(super) all: Vec<F::Step>,
    pub(super) steps: Vec<(u32, F::Step)>,
    /// The state last keyed, packed (by forms that do not hold their packed form): what is
    /// stored.
    pub(super) packed: Vec<u8>,
    /// Its canonical relabelling, packed: what is hashed under symmetry.
    pub(super) canon: Vec<u8>,
    /// What it made of its share of the level last expanded (its buffers kept from level to
    /// level).
    pub(super) share: Share,
}

impl<'a, F: Form> Expander<'a, F> {
    /// `None` if the form cannot hold the initial states.
    pub(super) fn new(
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
    pub(super) fn load(&mut self, state: &[u8]) -> usize {
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
        base.prepare(&mut self.steps, &self.memo);
        root
    }

    /// Whether the state last loaded expands fewer steps than it has enabled.
    pub(super) fn reduced(&self) -> bool {
        self.steps.len() < self.all.len()
    }

    /// Applies `step` to a copy of the base state of `root`, in its scratch state; with
    /// `last`, to the base itself (which is then spent: load another before the next step).
    pub(super) fn step(&mut self, root: usize, step: F::Step, last: bool) -> &mut F {
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
    pub(super) fn broken(&self, root: usize) -> Vec<InvariantId> {
        self.states[root][self.base_at[root] ^ 1].broken(&self.memo)
    }

    /// Ends the run at the base state of `root` (quiescent) and takes the verdict.
    pub(super) fn end_base(&mut self, root: usize) -> Verdict {
        let at = self.base_at[root];
        self.states[root][at].end(true, &mut self.memo)
    }

    /// The scratch state of `root` packed, and its key in the visited set (see
    /// [`Form::key`]).
    pub(super) fn key(&mut self, root: usize) -> (u64, &[u8]) {
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
pub(super) struct Roots {
    pub(super) states: Vec<Explorer>,
    pub(super) worlds: Vec<World>,
    /// The flat form's shared tables (`None` where its states would not fit a row).
    pub(super) flat: Option<Arc<FlatShared>>,
    /// The initial states searched: those whose index is `shard.0` modulo `shard.1`.
    pub(super) shard: (u32, u32),
}

impl Roots {
    /// Whether the search starts from initial state `i`.
    pub(super) fn searched(&self, i: usize) -> bool {
        i as u32 % self.shard.1 == self.shard.0
    }
}

/// The initial states and the scenario whose step rules serve for all (they differ only in
/// what the server declares, which lives in the endpoints).
pub(super) fn roots(scenario: &Scenario) -> (Scenario, Roots) {
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
            shard: (0, 1),
        },
    )
}
