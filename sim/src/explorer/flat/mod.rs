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
mod memo;
mod row;

pub use codes::FlatShared;
pub use memo::FlatMemo;
pub use row::{Flat, FlatStep};

use super::Bounds;

/// The longest row: a layout that needs more does not use the flat form.
pub(super) const ROW: usize = 192;

/// Offsets of the fixed head of a row: the initial scenario, the client's, the server's and
/// the checker's numbers (4 bytes each, little-endian), whether the client is ready, requests
/// sent, duplications left, malformed cancels left.
pub(super) const ROOT: usize = 0;
pub(super) const ENDPOINTS: [usize; 2] = [1, 5];
pub(super) const CHECKER: usize = 9;
pub(super) const READY: usize = 13;
pub(super) const SENT: usize = 14;
pub(super) const DUPLICATES: usize = 15;
pub(super) const MALFORMED: usize = 16;
pub(super) const HEAD: usize = 17;

/// Where each table sits in a row, and how much each holds. After the head: each request's
/// cancels and id code (in sending order), then the tables (a length byte, then that many codes,
/// then zeros up to the capacity): in-flight messages towards the client and towards the server,
/// running work, work that reported progress, armed timers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) b: Bounds,
    // Offsets and capacities, each below the row's length (a byte keeps the layout small:
    // every step copies it).
    cancels: u8,
    ids: u8,
    net: [u8; 2],
    pub(super) work: u8,
    progressed: u8,
    timers: u8,
    len: u8,
    net_cap: u8,
    work_cap: u8,
    timer_cap: u8,
}

impl Layout {
    /// The layout for a search with bounds `b`: room towards each party for every request's
    /// request, cancels and answers, `initialize` and its answer, and any duplicate; running
    /// work and timers for every request and one more. `None` if that exceeds a row.
    pub(super) fn new(b: Bounds) -> Option<Layout> {
        if b.server_requests > 0 || b.fanout > 0 || b.http {
            // Rows hold the client's script only, and the FIFO and reordering links: such a
            // search runs on plain states.
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
        let n = usize::from(b.requests);
        let cancels = HEAD;
        let ids = cancels + n;
        let net0 = ids + n;
        let net1 = net0 + 1 + net_cap;
        let work = net1 + 1 + net_cap;
        let progressed = work + 1 + work_cap;
        let timers = progressed + 1 + work_cap;
        let len = timers + 1 + timer_cap;
        let byte = |x: usize| x as u8;
        (len <= ROW).then_some(Layout {
            b,
            cancels: byte(cancels),
            ids: byte(ids),
            net: [byte(net0), byte(net1)],
            work: byte(work),
            progressed: byte(progressed),
            timers: byte(timers),
            len: byte(len),
            net_cap: byte(net_cap),
            work_cap: byte(work_cap),
            timer_cap: byte(timer_cap),
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
