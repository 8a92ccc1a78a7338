//! The invariant catalog: stable ids, where each applies, how strongly, and which spec clause
//! it comes from. `cancelcheck properties --json` exports exactly this table.

use cancelcheck_model::Dialect;
use cancelcheck_model::dialect::SpecRef;
use core::fmt;
use std::sync::OnceLock;

mod catalog;
mod sources;

pub use catalog::CATALOG;
pub use sources::{Source, addresses, files, source};

/// How strongly a clause binds: what breaking it makes the verdict.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Strength {
    /// MUST / MUST NOT: breaking it fails the run.
    Must,
    /// SHOULD / SHOULD NOT: breaking it is a warning.
    Should,
    /// Stated by its text without a keyword (a table row, a goal, the bound of a MAY), or a
    /// hazard the texts ask to model: breaking it is a note under that sentence. It makes the
    /// run warn, never fail, and never claims a MUST or SHOULD the text does not write.
    Note,
    /// Not a rule but a coverage obligation: a race the tool claims to check. Never a
    /// violation; a run that never reaches it is vacuous.
    Coverage,
}

impl Strength {
    /// `"MUST"`, `"SHOULD"`, `"NOTE"` or `"COVERAGE"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Must => "MUST",
            Strength::Should => "SHOULD",
            Strength::Note => "NOTE",
            Strength::Coverage => "COVERAGE",
        }
    }
}

/// How a property is judged over a run.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Expectation {
    /// Holds at every event.
    Always,
    /// Holds once the run is quiescent.
    Eventually,
    /// Some run must reach it: a race the tool claims to check. A run that never reaches it
    /// says so instead of passing.
    Sometimes,
}

impl Expectation {
    /// `"always"`, `"eventually"` or `"sometimes"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Expectation::Always => "always",
            Expectation::Eventually => "eventually",
            Expectation::Sometimes => "sometimes",
        }
    }
}

/// Every property's stable id. The discriminant indexes [`CATALOG`] and bit sets.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[allow(missing_docs)] // each variant is documented by its catalog row
pub enum InvariantId {
    SingleResolution,
    EventualResolution,
    NoAnswerAfterCancel,
    LateAnswerIgnored,
    CancelErrorCode,
    InternalCancelCode,
    NotificationUnanswered,
    UnknownCancelHarmless,
    UnknownIdCancelIgnored,
    ExactIdMatch,
    CancelNamesSentRequest,
    NoLiveIdReuse,
    InitializeNotCancelled,
    CapabilityGated,
    UndeclaredCancelIgnored,
    NoActivityAfterAnswer,
    NoActivityAfterCancel,
    AckAgreesWithOutcome,
    CancelIdempotent,
    NoLeakAtQuiescence,
    CancelHonoured,
    CancelFromAllowedParty,
    CascadeComplete,
    CascadeOnGiveUp,
    ChildrenBeforeParent,
    NoChildAfterCancel,
    NoChildAfterGiveUp,
    SiblingsUntouched,
    PromptCancelledStopReason,
    MalformedCancelIgnored,
    CancelSentOnGiveUp,
    CancelOnlyInProgress,
    NoRequestBeforeInitialize,
    CancelResultPerTable,
    PermissionCancelledAfterCancel,
    TaskCancelledByRequest,
    CloseIsCancel,
    DisconnectNotCancel,
    RaceCancelCrossesAnswer,
    RaceCancelBeforeWork,
    RaceTimeoutWithAnswerInFlight,
    RaceAnswerAfterCancel,
    RaceCloseCrossesAnswer,
    RaceResumeAfterLoss,
    RaceProgressAfterClose,
}

/// One dialect's reading of a property.
#[derive(Debug)]
pub struct Application {
    /// The dialect.
    pub dialect: Dialect,
    /// How strongly its text states it.
    pub strength: Strength,
    /// Where: the file and the clause, quoted word for word (a test checks every quotation
    /// against the file; ` ... ` joins quoted fragments that stand in this order).
    pub clause: SpecRef,
    /// Why the strength or the reading is what it is, where the quotation alone does not say.
    pub note: Option<&'static str>,
    /// For a quotation stated without a keyword: the sentence of the dialect's texts, word for
    /// word, whose keyword binds the same duty and gives the strength (the note says how the
    /// two meet). A test requires it to stand in the dialect's texts with that keyword.
    pub bound_by: Option<&'static str>,
    /// Whether a wire-only judge decides it in this dialect, where that differs from the
    /// invariant's [`Invariant::observable_on_wire`] (`None`: as the invariant says). A rule
    /// about request trees, for one, is decided on the wire only where the wire links a nested
    /// request to its parent (ACP's agent names the session of the prompt it serves).
    pub on_wire: Option<bool>,
}

/// One row of the catalog.
#[derive(Debug)]
pub struct Invariant {
    /// The id.
    pub id: InvariantId,
    /// Stable kebab-case name.
    pub name: &'static str,
    /// How it is judged.
    pub kind: Expectation,
    /// One sentence.
    pub statement: &'static str,
    /// Whether a judge that sees only the messages on the wire (a probe of a real peer, an
    /// audit of a recording) can decide it; otherwise it depends on what a party did inside
    /// (what it delivered to its application, what it still holds) and such a judge must
    /// report it as not observable. A dialect's application may say otherwise
    /// ([`Invariant::observable_in`]).
    pub observable_on_wire: bool,
}

impl Invariant {
    /// The dialects it applies to, each with its strength and clause, in [`Dialect::ALL`]'s
    /// order: the rows of each dialect's file that read this invariant.
    pub fn applies(&self) -> &'static [&'static Application] {
        static BY_INVARIANT: OnceLock<Vec<Vec<&'static Application>>> = OnceLock::new();
        let by = BY_INVARIANT.get_or_init(|| {
            let mut by: Vec<Vec<&'static Application>> =
                CATALOG.iter().map(|_| Vec::new()).collect();
            for d in Dialect::ALL {
                for (id, a) in crate::dialect::reading(d).rows {
                    by[*id as usize].push(a);
                }
            }
            by
        });
        &by[self.id as usize]
    }

    /// Its reading in `dialect`, if it applies there.
    pub fn application(&self, dialect: Dialect) -> Option<&'static Application> {
        self.applies()
            .iter()
            .find(|a| a.dialect == dialect)
            .copied()
    }

    /// The clause it comes from in `dialect`, cited ([`Application::cite`]), if it applies there.
    pub fn cite_in(&self, dialect: Dialect) -> Option<String> {
        self.application(dialect).map(Application::cite)
    }

    /// Whether a judge that sees only the wire decides it in `dialect`: the application's own
    /// answer where it gives one, else [`Invariant::observable_on_wire`].
    pub fn observable_in(&self, dialect: Dialect) -> bool {
        self.application(dialect)
            .and_then(|a| a.on_wire)
            .unwrap_or(self.observable_on_wire)
    }

    /// The strongest strength over its dialects.
    pub fn strength(&self) -> Strength {
        self.applies()
            .iter()
            .map(|a| a.strength)
            .min()
            .unwrap_or(Strength::Should)
    }
}

impl Application {
    /// Where this application's clause can be read upstream.
    pub fn source(&self) -> Option<Source> {
        source(self.clause.file, self.clause.clause)
    }

    /// The clause as a user can look it up: `ADDRESS (SECTION): "QUOTE"` (or, for a clause no
    /// address covers, which a test rules out, `FILE: "QUOTE"`).
    pub fn cite(&self) -> String {
        match self.source() {
            Some(s) => format!("{} ({}): \"{}\"", s.url, s.section, self.clause.clause),
            None => format!("{}: \"{}\"", self.clause.file, self.clause.clause),
        }
    }
}

impl InvariantId {
    /// Every id, in catalog order.
    pub fn all() -> impl Iterator<Item = InvariantId> {
        CATALOG.iter().map(|i| i.id)
    }

    /// Its catalog row.
    pub fn info(self) -> &'static Invariant {
        &CATALOG[self as usize]
    }

    /// Stable kebab-case name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Parses a stable name.
    pub fn from_name(name: &str) -> Option<InvariantId> {
        InvariantId::all().find(|i| i.name() == name)
    }

    /// The bit of this id in a `u64` set.
    pub fn bit(self) -> u64 {
        1 << (self as u64)
    }
}

impl fmt::Display for InvariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_is_in_id_order_with_unique_names() {
        for (i, inv) in CATALOG.iter().enumerate() {
            assert_eq!(inv.id as usize, i, "{} out of order", inv.name);
            assert_eq!(InvariantId::from_name(inv.name), Some(inv.id));
            assert!(!inv.applies().is_empty(), "{} applies nowhere", inv.name);
            assert!(inv.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
        }
        assert!(CATALOG.len() <= 64, "bit sets are u64");
    }

    /// A rule of request trees is decided on the wire only where the wire links a nested
    /// request to its parent (ACP's `sessionId`), and never where it turns on what a party did
    /// inside (gave a request up, or meant to cancel it).
    #[test]
    fn tree_rules_are_decided_on_the_wire_only_where_the_wire_links_parent_and_child() {
        use InvariantId::*;
        let on = |i: InvariantId, d: Dialect| i.info().observable_in(d);
        assert!(on(ChildrenBeforeParent, Dialect::Acp));
        assert!(on(NoChildAfterCancel, Dialect::AcpRfd));
        assert!(!on(NoChildAfterCancel, Dialect::Mcp20251125));
        assert!(!on(NoChildAfterCancel, Dialect::Mcp20260728));
        for d in Dialect::ALL {
            assert!(!on(CascadeComplete, d), "{d}");
            assert!(!on(CascadeOnGiveUp, d), "{d}");
            assert!(!on(NoChildAfterGiveUp, d), "{d}");
            assert!(!on(SiblingsUntouched, d), "{d}");
        }
        // Elsewhere an application says what its invariant says.
        for inv in CATALOG.iter() {
            for a in inv.applies() {
                let tree = matches!(inv.id, ChildrenBeforeParent | NoChildAfterCancel);
                assert!(tree || a.on_wire.is_none(), "{} in {}", inv.name, a.dialect);
            }
        }
    }
}
