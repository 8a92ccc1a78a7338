//! What the explorer's driver needs of the two endpoints and the checker, and the plain form of
//! it: a [`World`], stepped directly (for replays, which record every event, and for tests).
//! The search holds them interned instead ([`super::interned`]).

use cancelcheck_model::pack::{PackError, Reader};
use cancelcheck_model::{Input, Output, Party, RequestId};
use cancelcheck_properties::{Event, InvariantId, PropertySet, Verdict};

use super::hash::StableHasher;
use crate::world::World;

/// The outputs of one fed input, as the driver keeps them (on the heap: a state holds the
/// buffer, not copies of it).
pub type Outputs = Vec<Output>;

/// A renaming of request ids: each pair maps an id to another; ids not listed keep theirs.
pub type Renaming = [(RequestId, RequestId)];

/// Applies a renaming to one id.
pub fn rename(map: &Renaming, x: RequestId) -> RequestId {
    map.iter().find(|(from, _)| *from == x).map_or(x, |p| p.1)
}

/// Whether the explorer's driver acts on an output (puts a message on the wire, starts or
/// stops work, arms or disarms a timer); the others concern only the checker.
pub fn acted_on(o: &Output) -> bool {
    matches!(
        o,
        Output::Send(_)
            | Output::StartWork(_)
            | Output::AbortWork(_)
            | Output::ArmTimer(_)
            | Output::DisarmTimer(_)
    )
}

/// What one step shows the parties.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stimulus {
    /// An input fed to one party.
    Feed(Party, Input),
    /// An event shown to the checker alone (a loss, a duplication).
    Emit(Event),
    /// Nothing (a cancel of a request that never got an id).
    Nothing,
}

/// Both endpoints and the checker, as the explorer's driver steps them. Every method has the
/// meaning of the [`World`] method of the same name; `Ctx` is what stepping needs besides the
/// state itself (nothing for a world, the transition memo for interned parties).
pub trait Parties: Clone {
    /// What stepping needs besides the state.
    type Ctx;
    /// Feeds `input` to `party`, the input and each output shown to the checker; the outputs
    /// are appended to `outs` (at least those the driver [acts on](acted_on)).
    fn feed(&mut self, cx: &mut Self::Ctx, party: Party, input: Input, outs: &mut Outputs);
    /// Shows the checker one event that is no endpoint's doing (a loss, a duplication).
    fn emit(&mut self, cx: &mut Self::Ctx, event: Event);
    /// Gets ready to take `stimulus` soon (a hint: never changes what stepping does).
    fn prefetch(&self, _cx: &Self::Ctx, _stimulus: &Stimulus) {}
    /// Sets the virtual time of the event being applied (only a recording world cares).
    fn set_now(&mut self, _now: u64) {}
    /// Whether the client's session is open for ordinary requests.
    fn client_ready(&self) -> bool;
    /// Whether some invariant is broken.
    fn violated(&self) -> bool;
    /// The races reached since the state was made or unpacked.
    fn reached(&self) -> PropertySet;
    /// The invariants broken, first found first (by the last step that broke one, for
    /// interned parties).
    fn broken(&self, cx: &Self::Ctx) -> Vec<InvariantId>;
    /// Ends the run here (emits `End`) and takes the verdict.
    fn end(&mut self, cx: &mut Self::Ctx, quiescent: bool) -> Verdict;
    /// Appends the packed state: equal bytes, equal futures, for one pair of configurations.
    fn pack(&self, out: &mut Vec<u8>);
    /// Reads what [`Parties::pack`] wrote; the checker starts a fresh verdict.
    fn unpack(&mut self, r: &mut Reader<'_>) -> Result<(), PackError>;
    /// Feeds everything both endpoints and the checker hold about request `id` to `h`, except
    /// the id itself, in the order `World::hash_request` does.
    fn hash_request(&self, cx: &mut Self::Ctx, id: RequestId, h: &mut StableHasher);
    /// Renames request ids everywhere (see `Endpoint::relabel`).
    fn relabel(&mut self, cx: &mut Self::Ctx, map: &Renaming);
}

impl Parties for World {
    type Ctx = ();

    fn feed(&mut self, _: &mut (), party: Party, input: Input, outs: &mut Outputs) {
        outs.extend_from_slice(World::feed(self, party, input));
    }

    fn emit(&mut self, _: &mut (), event: Event) {
        World::emit(self, event);
    }

    fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    fn client_ready(&self) -> bool {
        self.endpoint(Party::Client).is_ready()
    }

    fn violated(&self) -> bool {
        self.checker().violated().0 != 0
    }

    fn reached(&self) -> PropertySet {
        self.checker().verdict().reached
    }

    fn broken(&self, _: &()) -> Vec<InvariantId> {
        self.checker().broken()
    }

    fn end(&mut self, _: &mut (), quiescent: bool) -> Verdict {
        World::end(self, quiescent);
        self.checker_mut().take_verdict()
    }

    fn pack(&self, out: &mut Vec<u8>) {
        self.pack_state(out);
    }

    fn unpack(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        self.unpack_state(r)
    }

    fn hash_request(&self, _: &mut (), id: RequestId, h: &mut StableHasher) {
        World::hash_request(self, id, h);
    }

    fn relabel(&mut self, _: &mut (), map: &Renaming) {
        World::relabel(self, |x| rename(map, x));
    }
}
