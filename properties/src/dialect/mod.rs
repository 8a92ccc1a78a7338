//! The catalog read dialect by dialect: one file per dialect holds each invariant's reading
//! in that dialect's text (strength, quoted clause, note), which a reviewer checks against that
//! text alone; [`rows`] is the one registry. The invariants themselves (name, statement, how
//! they are judged) are dialect-independent, in [`crate::invariant::CATALOG`].

use crate::invariant::{Application, InvariantId};
use cancelcheck_model::{Behaviour, Dialect};

/// One dialect's reading of one invariant, in that dialect's file.
macro_rules! at {
    ($d:ident, $s:ident, $file:expr, $clause:expr) => {
        at!($d, $s, $file, $clause, None)
    };
    ($d:ident, $s:ident, $file:expr, $clause:expr, $note:expr) => {
        $crate::invariant::Application {
            dialect: cancelcheck_model::Dialect::$d,
            strength: $crate::invariant::Strength::$s,
            clause: cancelcheck_model::dialect::SpecRef {
                file: $file,
                clause: $clause,
            },
            note: $note,
            bound_by: None,
            on_wire: None,
        }
    };
}

/// `a`, whose quotation carries no keyword, bound by `sentence` of its dialect's texts, whose
/// keyword is its strength ([`Application::bound_by`]).
const fn bound_by(a: Application, sentence: &'static str) -> Application {
    Application {
        bound_by: Some(sentence),
        ..a
    }
}

/// `a`, decided on the wire in its dialect as `on_wire` says, whatever the invariant says
/// elsewhere.
const fn on_wire(a: Application, on_wire: bool) -> Application {
    Application {
        on_wire: Some(on_wire),
        ..a
    }
}

mod abp;
mod acp;
mod acp_rfd;
mod lsp;
mod mcp_2025_11_25;
mod mcp_2026_07_28;
mod shared;

/// A dialect's rows: each invariant that applies to it, with its reading there.
pub(crate) type Rows = &'static [(InvariantId, Application)];

/// A list of invariants a behaviour breaks.
type Breaks = &'static [InvariantId];

/// What the catalog knows of one dialect, from its file: how its text reads each invariant,
/// and where a fault breaks something else there than it does wherever it applies.
pub(crate) struct Reading {
    /// Each invariant that applies, with its reading.
    pub(crate) rows: Rows,
    /// The bold words a fact of the specs' README about this dialect opens with (its "Facts
    /// beyond the texts").
    pub(crate) readme_facts: &'static [&'static str],
    /// Its clause vectors: the file's name (`vectors/<id>.json`) and its text, compiled in.
    pub(crate) vectors: (&'static str, &'static str),
    breaks: fn(Behaviour) -> Option<Breaks>,
    with_trees: fn(Behaviour) -> Breaks,
    on_http: fn(Behaviour) -> Breaks,
}

impl Reading {
    /// What `b` breaks here, where that is not what it breaks wherever it applies
    /// ([`crate::breaks::classify`]).
    pub(crate) fn breaks(&self, b: Behaviour) -> Option<Breaks> {
        (self.breaks)(b)
    }

    /// What `b` also breaks here in request trees ([`crate::breaks::also_with_trees`]).
    pub(crate) fn with_trees(&self, b: Behaviour) -> Breaks {
        (self.with_trees)(b)
    }

    /// What `b` also breaks here on Streamable HTTP ([`crate::breaks::also_on_http`]).
    pub(crate) fn on_http(&self, b: Behaviour) -> Breaks {
        (self.on_http)(b)
    }
}

/// For a dialect where every fault breaks what it breaks wherever it applies.
fn as_declared(_: Behaviour) -> Option<Breaks> {
    None
}

/// For a dialect where a fault breaks nothing more in trees, or on Streamable HTTP.
fn nothing_more(_: Behaviour) -> Breaks {
    &[]
}

/// What a request left running past its cancel breaks in a tree: its nested requests stay
/// uncancelled, and it may send more.
const RUNS_ON: Breaks = &[
    InvariantId::CascadeComplete,
    InvariantId::NoChildAfterCancel,
];

/// The reading of `dialect`.
pub(crate) fn reading(dialect: Dialect) -> &'static Reading {
    match dialect {
        Dialect::Acp => &acp::READING,
        Dialect::AcpRfd => &acp_rfd::READING,
        Dialect::Mcp20251125 => &mcp_2025_11_25::READING,
        Dialect::Mcp20260728 => &mcp_2026_07_28::READING,
        Dialect::Lsp => &lsp::READING,
        Dialect::Abp => &abp::READING,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_is_of_its_dialect_and_each_invariant_read_once() {
        for d in Dialect::ALL {
            let mut seen = std::collections::BTreeSet::new();
            for (id, a) in reading(d).rows {
                assert_eq!(a.dialect, d, "{id:?} in {d}'s file names {}", a.dialect);
                assert!(seen.insert(*id), "{id:?} read twice in {d}");
            }
        }
    }
}
