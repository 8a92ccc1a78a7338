//! The explorer's steps, listed once: which choices a state offers and in what order, for both
//! forms of a state (the plain [`Explorer`](super::Explorer) and the [flat row](super::Flat)).
//!
//! Each form shows its tables through [`StepView`] (the plain form holds values, the flat form
//! one-byte codes of them) and turns each [`Listed`] choice, which names work, timers and
//! messages by their place in their table, into its own step. Both forms list the same choices
//! in the same order because both list them here; a new step is added here once (the lockstep
//! test in `sim/tests/packing.rs` still checks the two forms step for step). Steps only the
//! plain form takes (the server's script, nested requests) come after these, so a search
//! without them keeps its step indices.

use super::Bounds;
use cancelcheck_model::Party;

/// One choice of what happens next, by place: what [`list`] hands each form.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Listed {
    /// The client sends its next request.
    Send,
    /// The application cancels its request number `k`.
    Cancel(u8),
    /// The message at this place of the queue towards the party is delivered.
    Deliver(Party, usize),
    /// The message at this place of the queue towards the party is lost.
    Lose(Party, usize),
    /// The work at this place of the work table finishes.
    WorkDone(usize),
    /// The timer at this place of the timer table fires.
    Fire(usize),
    /// The work at this place of the work table reports progress.
    Progress(usize),
    /// The message at this place of the queue towards the party will be delivered twice.
    Duplicate(Party, usize),
    /// The work at this place of the work table is given up by its party.
    Abort(usize),
    /// The client sends a malformed cancel.
    Malformed,
}

/// What [`list`] reads of a state. Equal entries of a table are equal values (codes are a
/// bijection within a search), which is all the listing compares.
pub(super) trait StepView {
    /// An entry of a message queue.
    type Msg: Copy + PartialEq;
    /// An entry of the work table (also of the table of work that reported progress).
    type Work: Copy + PartialEq;
    /// An entry of the timer table.
    type Timer: Copy + PartialEq;
    /// How many requests the client's application has sent.
    fn sent(&self) -> u8;
    /// Whether the client's session is open for requests.
    fn client_ready(&self) -> bool;
    /// How many times the application cancelled its request number `k`.
    fn cancels(&self, k: u8) -> u8;
    /// Whether the application's request number `k` has an id (was sent).
    fn has_id(&self, k: u8) -> bool;
    /// The messages in flight towards `to`, in the form's order.
    fn queue(&self, to: Party) -> &[Self::Msg];
    /// Whether `m` is a request (which the network never duplicates).
    fn is_request(&self, m: Self::Msg) -> bool;
    /// Running work.
    fn work(&self) -> &[Self::Work];
    /// Running work that already reported progress.
    fn progressed(&self) -> &[Self::Work];
    /// Armed timers.
    fn timers(&self) -> &[Self::Timer];
    /// Duplications the network may still make.
    fn duplicates_left(&self) -> u8;
    /// Malformed cancels the client may still send.
    fn malformed_left(&self) -> u8;
}

/// Hands `push` every enabled choice of `v` under bounds `b`, in the one order both forms
/// keep. Where entries of a table are equal, only the first is offered: equal entries lead to
/// equal successors.
pub(super) fn list<V: StepView>(v: &V, b: &Bounds, mut push: impl FnMut(Listed)) {
    let first = |t: &[V::Work], i: usize| !t[..i].contains(&t[i]);
    let sent = v.sent();
    if sent < b.requests && v.client_ready() {
        push(Listed::Send);
    }
    for k in 0..sent {
        if v.cancels(k) < b.cancels_each && v.has_id(k) {
            push(Listed::Cancel(k));
        }
    }
    for to in [Party::Client, Party::Server] {
        let q = v.queue(to);
        let candidates = if b.fifo { q.len().min(1) } else { q.len() };
        for i in 0..candidates {
            if q[..i].contains(&q[i]) {
                continue;
            }
            push(Listed::Deliver(to, i));
            if b.loss {
                push(Listed::Lose(to, i));
            }
        }
    }
    let work = v.work();
    for i in 0..work.len() {
        if first(work, i) {
            push(Listed::WorkDone(i));
        }
    }
    let timers = v.timers();
    for i in 0..timers.len() {
        if !timers[..i].contains(&timers[i]) {
            push(Listed::Fire(i));
        }
    }
    if b.progress {
        let progressed = v.progressed();
        for i in 0..work.len() {
            if first(work, i) && !progressed.contains(&work[i]) {
                push(Listed::Progress(i));
            }
        }
    }
    if v.duplicates_left() > 0 {
        for to in [Party::Client, Party::Server] {
            let q = v.queue(to);
            for (i, &m) in q.iter().enumerate() {
                // A copy lands behind its original, so on a FIFO link equal messages at
                // different places have different successors; on a sorted queue they do not.
                if v.is_request(m) || (!b.fifo && q[..i].contains(&m)) {
                    continue;
                }
                push(Listed::Duplicate(to, i));
            }
        }
    }
    if b.internal {
        for i in 0..work.len() {
            if first(work, i) {
                push(Listed::Abort(i));
            }
        }
    }
    if v.malformed_left() > 0 && v.client_ready() {
        push(Listed::Malformed);
    }
}
