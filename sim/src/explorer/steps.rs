//! The explorer's steps, listed and described once: which choices a state offers and in what
//! order, and what each touches (its request, its side, what it does there), for both forms of
//! a state (the plain [`Explorer`](super::Explorer) and the [flat row](super::Flat)).
//!
//! Each form shows its tables through [`StepView`] (the plain form holds values, the flat form
//! one-byte codes of them) and turns each [`Listed`] choice, which names work, timers and
//! messages by their place in their table, into its own step. Both forms list the same choices
//! in the same order because both list them here, and both reductions read the same
//! [`request`] and [`footprint`] of a choice; a new step is added here once (the lockstep
//! test in `sim/tests/packing.rs` still checks the two forms step for step). Steps only the
//! plain form takes (the server's script, nested requests) come after these, so a search
//! without them keeps its step indices.

use super::Bounds;
use super::fifo::{Footprint, Kind, MsgClass, Queued};
use cancelcheck_model::Party;
use smallvec::SmallVec;

/// One choice of what happens next, by place: what [`list`] hands each form (the flat form
/// keeps it as its step's choice).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Listed {
    /// The client sends its next request.
    Send,
    /// The application cancels its request number `k`.
    Cancel(u8),
    /// The message at this place of the queue towards the party is delivered.
    Deliver(Party, u16),
    /// The message at this place of the queue towards the party is lost.
    Lose(Party, u16),
    /// The work at this place of the work table finishes.
    WorkDone(u16),
    /// The timer at this place of the timer table fires.
    Fire(u16),
    /// The work at this place of the work table reports progress.
    Progress(u16),
    /// The message at this place of the queue towards the party will be delivered twice.
    Duplicate(Party, u16),
    /// The work at this place of the work table is given up by its party.
    Abort(u16),
    /// The client sends a malformed cancel.
    Malformed,
}

/// What a timer is to the reductions (see [`StepView::timer_of`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum TimerOf {
    /// The connect timeout (of `initialize`, request 0).
    Init,
    /// A request's own timeout: the request's number, and whether the peer holds that request
    /// open (see [`Kind::Timeout`]).
    Request(u32, bool),
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
    /// Whether the message at place `i` of the queue towards `to` must wait though the link's
    /// order would let it through (Streamable HTTP: behind another of its stream, or on a
    /// stream that cannot be read now).
    fn held(&self, to: Party, i: usize) -> bool {
        let _ = (to, i);
        false
    }
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

    // What the reductions read: requests are numbered 0 for `initialize` (and any id naming
    // no request the numbering knows), from 1 for the others (see each form's numbering).
    /// The number of the request the client sends next.
    fn next_request(&self) -> u32;
    /// The number of the application's request `k` (`None` if it has no id).
    fn app_request(&self, k: u8) -> Option<u32>;
    /// The request a message in the queue towards `to` is about (`None` if it names none).
    fn msg_request(&self, to: Party, m: Self::Msg) -> Option<u32>;
    /// What a message in the queue towards `to` is to the reduction on a FIFO link.
    fn msg_class(&self, to: Party, m: Self::Msg) -> MsgClass;
    /// The party running a piece of work, and the number of its request.
    fn work_of(&self, w: Self::Work) -> (Party, u32);
    /// The party whose timer it is, and what it times.
    fn timer_of(&self, t: Self::Timer) -> (Party, TimerOf);
}

/// Hands `push` every enabled choice of `v` under bounds `b`, in the one order both forms
/// keep. Where entries of a table are equal, only the first is offered: equal entries lead to
/// equal successors.
pub(super) fn list<V: StepView>(v: &V, b: &Bounds, mut push: impl FnMut(Listed)) {
    let first = |t: &[V::Work], i: usize| !t[..i].contains(&t[i]);
    // (A state's tables hold far fewer than 65,536 entries: a request's messages are bounded.)
    let place = |i: usize| i as u16;
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
            if q[..i].contains(&q[i]) || v.held(to, i) {
                continue;
            }
            push(Listed::Deliver(to, place(i)));
            if b.loss {
                push(Listed::Lose(to, place(i)));
            }
        }
    }
    let work = v.work();
    for i in 0..work.len() {
        if first(work, i) {
            push(Listed::WorkDone(place(i)));
        }
    }
    let timers = v.timers();
    for i in 0..timers.len() {
        if !timers[..i].contains(&timers[i]) {
            push(Listed::Fire(place(i)));
        }
    }
    if b.progress {
        let progressed = v.progressed();
        for i in 0..work.len() {
            if first(work, i) && !progressed.contains(&work[i]) {
                push(Listed::Progress(place(i)));
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
                push(Listed::Duplicate(to, place(i)));
            }
        }
    }
    if b.internal {
        for i in 0..work.len() {
            if first(work, i) {
                push(Listed::Abort(place(i)));
            }
        }
    }
    if v.malformed_left() > 0 && v.client_ready() {
        push(Listed::Malformed);
    }
}

/// The request choice `c` belongs to: the request it sends, cancels, delivers a message of,
/// works on or times out (numbered as [`StepView`] numbers them); `None` for a choice of no
/// request (a malformed cancel, a message naming none).
pub(super) fn request<V: StepView>(v: &V, c: Listed) -> Option<u32> {
    match c {
        Listed::Send => Some(v.next_request()),
        Listed::Cancel(k) => v.app_request(k),
        Listed::Deliver(to, i) | Listed::Lose(to, i) | Listed::Duplicate(to, i) => {
            v.msg_request(to, *v.queue(to).get(usize::from(i))?)
        }
        Listed::WorkDone(i) | Listed::Progress(i) | Listed::Abort(i) => {
            Some(v.work_of(*v.work().get(usize::from(i))?).1)
        }
        Listed::Fire(i) => match v.timer_of(*v.timers().get(usize::from(i))?).1 {
            TimerOf::Init => Some(0),
            TimerOf::Request(r, _) => Some(r),
        },
        Listed::Malformed => None,
    }
}

/// What choice `c` touches on a FIFO link: its request, the party whose side it is on, and
/// what it does there (see [`Footprint`]).
pub(super) fn footprint<V: StepView>(v: &V, c: Listed) -> Footprint {
    let (side, kind) = match c {
        Listed::Send | Listed::Cancel(_) | Listed::Malformed => (Party::Client, Kind::Local),
        Listed::Deliver(to, i) | Listed::Lose(to, i) => {
            let kind = match v.queue(to).get(usize::from(i)) {
                Some(&m) if i == 0 => Kind::Head {
                    deliver: matches!(c, Listed::Deliver(..)),
                    class: v.msg_class(to, m),
                },
                _ => Kind::Other,
            };
            (to, kind)
        }
        Listed::WorkDone(i) | Listed::Progress(i) | Listed::Abort(i) => {
            (v.work_of(v.work()[usize::from(i)]).0, Kind::Local)
        }
        Listed::Fire(i) => match v.timer_of(v.timers()[usize::from(i)]) {
            (p, TimerOf::Request(_, peer_holds)) => (p, Kind::Timeout { peer_holds }),
            (p, TimerOf::Init) => (p, Kind::Local),
        },
        Listed::Duplicate(to, _) => (to, Kind::Other),
    };
    Footprint {
        request: request(v, c),
        side,
        kind,
    }
}

/// The queue towards `to`, head first, as the reduction on a FIFO link sees it.
pub(super) fn queued<V: StepView>(v: &V, to: Party) -> SmallVec<[Queued; 16]> {
    v.queue(to)
        .iter()
        .map(|&m| (v.msg_request(to, m), v.msg_class(to, m)))
        .collect()
}
