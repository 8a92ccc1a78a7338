//! What the checker concludes: violations, the races reached, what was excused or set aside,
//! and the status a run earns from them.

use crate::invariant::{InvariantId, Strength};
use cancelcheck_model::pack::{CloneState, Pack, Relabel, Transient};
use cancelcheck_model::{Party, RequestId};
use smallvec::SmallVec;

/// One broken invariant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Violation {
    /// Which.
    pub invariant: InvariantId,
    /// Its strength in the checked dialect.
    pub strength: Strength,
    /// Index (from 0) of the event that broke it.
    pub event: u64,
    /// The request involved, if one was.
    pub id: Option<RequestId>,
}

/// A set of properties as bits of a `u64` (see [`InvariantId::bit`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Pack, Relabel)]
pub struct PropertySet(pub u64);

impl PropertySet {
    /// Adds one.
    pub fn insert(&mut self, id: InvariantId) {
        self.0 |= id.bit();
    }
    /// Whether it holds `id`.
    pub fn contains(self, id: InvariantId) -> bool {
        self.0 & id.bit() != 0
    }
    /// The union.
    pub fn union(self, other: PropertySet) -> PropertySet {
        PropertySet(self.0 | other.0)
    }
    /// Its members in catalog order.
    pub fn iter(self) -> impl Iterator<Item = InvariantId> {
        InvariantId::all().filter(move |i| self.contains(*i))
    }
}

/// Which message a request's resolution depended on when the network lost it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Lost {
    /// The request itself: the receiver never saw it.
    Request,
    /// Its answer.
    Response,
}

impl Lost {
    /// `"request"` or `"response"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lost::Request => "request",
            Lost::Response => "response",
        }
    }
}

/// A request left unresolved at quiescence and excused from `eventual-resolution` because a
/// message its resolution depended on was lost. Only such a loss excuses: a lost cancel or
/// cancel acknowledgement never does (the request is still owed its answer).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Excuse {
    /// The requester.
    pub requester: Party,
    /// The request.
    pub id: RequestId,
    /// What was lost.
    pub lost: Lost,
}

/// A finding the checker set aside: an invariant seen broken about a request whose id its
/// requester reused while a message about the earlier request could still arrive (or about a
/// request in the tree of one such). Which of the two requests the messages were about cannot
/// be told on the wire, so only the reuse is reported (`no-live-id-reuse`), and this is listed
/// beside it, never counted.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SetAside {
    /// What would have been reported.
    pub invariant: InvariantId,
    /// The requester of the request it was about.
    pub requester: Party,
    /// That request's id.
    pub id: RequestId,
}

impl SetAside {
    /// Why a finding is set aside, for people.
    pub const WHY: &'static str = "its request's id was reused while live, or a request's in its tree: which request the messages were about cannot be told";
}

/// What a run amounts to, strongest first: a MUST broken, only SHOULDs (or notes) broken,
/// nothing broken but a claim left unexercised (a race never reached, a fault that never
/// acted), or a pass.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Status {
    /// A MUST clause was broken.
    Fail,
    /// Only SHOULD clauses were broken.
    Warn,
    /// Nothing was broken, but the run never reached what it claims to check.
    Vacuous,
    /// Nothing was broken and everything claimed was exercised.
    Pass,
}

impl Status {
    /// `"fail"`, `"warn"`, `"vacuous"` or `"pass"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Vacuous => "vacuous",
            Status::Pass => "pass",
        }
    }

    /// The status of a run with `violations` that did (`exercised`) or did not reach what it
    /// claims to check. Only a MUST broken fails.
    pub fn of(violations: &[Violation], exercised: bool) -> Status {
        let must = violations.iter().any(|v| v.strength == Strength::Must);
        Status::judged(must, !violations.is_empty(), exercised)
    }

    /// What the word means, in a few words (for the text beside it).
    pub fn meaning(self) -> &'static str {
        match self {
            Status::Fail => "a MUST broken",
            Status::Warn => "only SHOULDs or notes broken",
            Status::Vacuous => "nothing broken, but not everything claimed was exercised",
            Status::Pass => "nothing broken, everything claimed exercised",
        }
    }

    /// The status of runs that broke a MUST (`must`), broke anything (`broke`), and did or did
    /// not exercise what they claim to check: the strongest applies. Every command and format
    /// says the word this decides ([`Status::as_str`]), whatever it judged.
    pub fn judged(must: bool, broke: bool, exercised: bool) -> Status {
        if must {
            Status::Fail
        } else if broke {
            Status::Warn
        } else if !exercised {
            Status::Vacuous
        } else {
            Status::Pass
        }
    }

    /// The process exit code a command gives it: 1 for a failure, 0 otherwise.
    pub fn exit_code(self) -> u8 {
        u8::from(self == Status::Fail)
    }
}

/// What the checker concluded about one run. `clone_from` keeps the target's allocations.
#[derive(CloneState, PartialEq, Eq, Hash, Debug, Default)]
pub struct Verdict {
    /// Violations, in the order found (first of each invariant only).
    pub violations: Vec<Violation>,
    /// Requests excused from `eventual-resolution` by a loss, in the order of their records.
    pub excused: SmallVec<[Excuse; 2]>,
    /// Findings set aside, each once, in the order met: about requests that a live id's reuse
    /// made ambiguous (see [`SetAside`]).
    pub set_aside: SmallVec<[SetAside; 2]>,
    /// The races ("sometimes" properties) the run reached.
    pub reached: PropertySet,
    /// Events read.
    pub events: u64,
    /// Whether the run ended quiescent (false: cut short by a bound; "eventually" unchecked).
    pub quiescent: bool,
}

impl Verdict {
    /// No violation.
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }

    /// Whether a MUST clause was broken.
    pub fn failed(&self) -> bool {
        self.violations.iter().any(|v| v.strength == Strength::Must)
    }

    /// The status, given whether the run exercised what it claims to check.
    pub fn status(&self, exercised: bool) -> Status {
        Status::of(&self.violations, exercised)
    }

    /// The set of violated invariants.
    pub fn violated(&self) -> PropertySet {
        let mut s = PropertySet::default();
        for v in &self.violations {
            s.insert(v.invariant);
        }
        s
    }
}

/// A verdict is cleared keeping its allocations.
impl Transient for Verdict {
    fn clear(&mut self) {
        self.violations.clear();
        self.excused.clear();
        self.set_aside.clear();
        self.reached = PropertySet::default();
        self.events = 0;
        self.quiescent = false;
    }
}
