//! The search's own form of a state without the symmetry reduction: one fixed row of bytes.
//!
//! Small configurations have few distinct endpoint states, checker states and messages (at 3
//! requests with timeouts on a reordering link: a few hundred endpoints, a few thousand
//! checkers, a few dozen messages) but hundreds of thousands of combinations of them. So a
//! [`Flat`] state names each endpoint and the checker by its number in a store the threads
//! share, and each message, piece of work, timer and request id by a one-byte code, handed out
//! in the order they are first met. The whole state is then a row of bytes in a layout fixed
//! for the search ([`Layout`]): copying a state, packing it and unpacking it are each one copy
//! of the row, and the row is its own key in the visited set.
//!
//! Stepping looks the transition up in a per-thread [`FlatMemo`] in two parts: the fed
//! endpoint's response, keyed by the endpoint and the coded input, then the checker's
//! judgement, keyed by the checker and what the response shows it. Only a part met for the
//! first time materializes what it needs in a [`World`](crate::world::World), feeds it there,
//! and codes what came out (under the store's lock); everything after that is table work on
//! codes.
//!
//! Every table of the row is kept in the order the plain [`Explorer`](super::Explorer) keeps its own (sorted by
//! the decoded values where that one sorts), and the steps are listed in the same order, so a
//! flat state and the plain state it codes have the same steps at the same indices: schedules,
//! counts and counterexamples do not depend on the form (the lockstep test in
//! `sim/tests/packing.rs` checks this). The numbering of codes may differ from run to run on
//! several threads; it is a bijection within a run, so it changes only which bytes stand for a
//! state, never which states are equal. Transitions are known by 64-bit fingerprints of their
//! key, the risk the visited set already takes.
//!
//! A row has room for a bounded number of messages, pieces of work and timers (see
//! [`Layout`]), and each kind of code for 255 values. A state that does not fit spoils the
//! search in this form ([`FlatMemo::spoilt`]); the search then runs again on plain worlds.

mod codes;
pub(super) mod kinds;
mod memo;
mod row;

pub use codes::FlatShared;
pub use memo::FlatMemo;
pub use row::{Flat, FlatStep};

use super::Bounds;
use super::state::ExplorerRow;
use kinds::{Parts, Placer};

/// The longest row: a layout that needs more does not use the flat form.
pub(super) const ROW: usize = 192;

/// Offsets in the head of a row, each where [`ExplorerRow`] places its field: the initial
/// scenario, the client's, the server's and the checker's numbers, whether the client is
/// ready, requests sent, duplications left, malformed cancels left.
pub(super) const ROOT: usize = ExplorerRow::ROOT;
pub(super) const ENDPOINTS: [usize; 2] = [
    ExplorerRow::WORLD + Parts::ENDPOINTS[0],
    ExplorerRow::WORLD + Parts::ENDPOINTS[1],
];
pub(super) const CHECKER: usize = ExplorerRow::WORLD + Parts::CHECKER;
pub(super) const READY: usize = ExplorerRow::WORLD + Parts::READY;
pub(super) const SENT: usize = ExplorerRow::SENT;
pub(super) const DUPLICATES: usize = ExplorerRow::DUPLICATES_LEFT;
pub(super) const MALFORMED: usize = ExplorerRow::MALFORMED_LEFT;

/// A row's layout for one search: where each field of the plain state sits ([`ExplorerRow`],
/// derived from [`Explorer`](super::Explorer)'s declaration) and how long the row is. After the
/// head, in declaration order: each request's cancels and id code (in sending order), then the
/// tables (a length byte, then that many codes, then zeros up to the table's room): in-flight
/// messages towards the client and towards the server, running work, work that reported
/// progress, armed timers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) b: Bounds,
    /// Offsets and rooms are bytes (a small layout: every step copies it).
    pub(super) row: ExplorerRow,
    len: u8,
}

impl Layout {
    /// The layout for a search with bounds `b`: room towards each party for every request's
    /// request, cancels and answers, `initialize` and its answer, and any duplicate; running
    /// work and timers for every request and one more. `None` if that exceeds a row.
    pub(super) fn new(b: Bounds) -> Option<Layout> {
        if b.server_requests > 0 || b.fanout > 0 || b.http {
            // Rows hold the client's script only, and the FIFO and reordering links: such a
            // search runs on plain states (the fields it would use are `Absent` from a row).
            return None;
        }
        let n = usize::from(b.requests);
        let net_cap = 2 + n * (2 + usize::from(b.cancels_each)) + usize::from(b.duplicates);
        Layout::with_capacities(b, net_cap, n + 1, n + 2)
    }

    pub(super) fn with_capacities(
        b: Bounds,
        net_cap: usize,
        work_cap: usize,
        timer_cap: usize,
    ) -> Option<Layout> {
        let mut p = Placer {
            next: [0, 0],
            requests: usize::from(b.requests),
            net_cap,
            work_cap,
            timer_cap,
        };
        // Placed once to measure the regions past the head, then where they start.
        ExplorerRow::place(&mut p)?;
        let per_request = p.next[0];
        p.next = [ExplorerRow::HEAD, ExplorerRow::HEAD + per_request];
        let row = ExplorerRow::place(&mut p)?;
        let len = p.next[1];
        (len <= ROW).then_some(Layout {
            b,
            row,
            len: len as u8,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explorer::bounds;

    #[test]
    fn a_layout_that_does_not_fit_a_row_is_refused() {
        let s = crate::explorer::ExploreSpec::new(
            cancelcheck_model::Dialect::Acp,
            cancelcheck_model::Behaviour::Honour,
            3,
            crate::link::Order::Reordering,
        )
        .scenario();
        let b = bounds(&s);
        assert!(Layout::new(b).is_some_and(|l| usize::from(l.len) <= ROW));
        assert!(Layout::with_capacities(b, ROW, 1, 1).is_none());
    }
}
