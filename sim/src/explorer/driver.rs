//! The driver's part of a step, written once for both forms of a state (the plain
//! [`Explorer`](super::Explorer) and the [flat row](super::Flat)): what a listed choice does to
//! the tables before the fed party sees anything ([`take`]), and how each of that party's
//! effects lands in them ([`carry`]).
//!
//! Each form shows its tables through [`Driver`], a few edits on top of [`StepView`]: the plain
//! form on its values (marking the tables it changes dirty), the flat form on its one-byte
//! codes (finding sorted places by the codes' ranks). Where an entry goes and which entries go
//! is decided here, so a new kind of step or table is written in one place; the lockstep test
//! in `sim/tests/packing.rs` still checks the two forms step for step.

use super::steps::{Listed, StepView};
use cancelcheck_model::Party;

/// A counter of the application's script or of the network that a step moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Counter {
    /// The client's application sent one more request.
    Sent,
    /// The application cancelled its request number `k` once more.
    Cancelled(u8),
    /// The network spent one of its duplications.
    Duplicated,
    /// The client spent its malformed cancel.
    Malformed,
}

/// One effect of a fed party on the driver's tables, in a form's entries: a message it sends
/// (towards its peer), work it starts or aborts, a timer it arms (one the bounds explore) or
/// disarms. The flat form's memo keeps its transitions' effects as these, in codes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Effect<M, W, T> {
    /// A message towards the party's peer.
    Send(M),
    /// Work the party starts.
    StartWork(W),
    /// Work the party aborts.
    AbortWork(W),
    /// A timer the party arms.
    Arm(T),
    /// A timer the party disarms.
    Disarm(T),
}

/// The effect of a form whose tables are `D`'s.
pub(super) type EffectOf<D> =
    Effect<<D as StepView>::Msg, <D as StepView>::Work, <D as StepView>::Timer>;

/// A form's tables as the driver edits them. Places are those of [`StepView`]'s slices; an
/// edit may not make room a form does not have (the flat form then spoils its search).
pub(super) trait Driver: StepView {
    /// Puts `m` at place `i` of the queue towards `to`.
    fn insert_msg(&mut self, to: Party, i: usize, m: Self::Msg);
    /// The place of `m` in the sorted queue towards `to`: after every entry not greater.
    fn sorted_msg_place(&self, to: Party, m: Self::Msg) -> usize;
    /// Takes out place `i` of the queue towards `to`.
    fn remove_msg(&mut self, to: Party, i: usize);
    /// Puts `w` in its sorted place (after its equals) among running work.
    fn insert_work(&mut self, w: Self::Work);
    /// Takes out place `i` of running work.
    fn remove_work(&mut self, i: usize);
    /// Puts `w` in its sorted place (after its equals) among work that reported progress.
    fn insert_progressed(&mut self, w: Self::Work);
    /// Takes out place `i` of work that reported progress.
    fn remove_progressed(&mut self, i: usize);
    /// Puts `t` in its sorted place (after its equals) among armed timers.
    fn insert_timer(&mut self, t: Self::Timer);
    /// Takes out place `i` of armed timers.
    fn remove_timer(&mut self, i: usize);
    /// Moves counter `c` by one (up for what was done, down for what is left).
    fn count(&mut self, c: Counter);
}

/// Applies the driver's own part of choice `c` (one of [`super::steps::list`]'s for this
/// state) on a FIFO link or not: the message leaves the network (or is copied behind itself, or
/// in its sorted place), the work finishes or reports progress, the timer fires, the counters
/// move. What the step then shows the parties is each form's to feed.
#[inline(always)]
pub(super) fn take<D: Driver>(d: &mut D, c: Listed, fifo: bool) {
    match c {
        Listed::Send => d.count(Counter::Sent),
        Listed::Cancel(k) => d.count(Counter::Cancelled(k)),
        Listed::Deliver(to, i) | Listed::Lose(to, i) => d.remove_msg(to, usize::from(i)),
        Listed::Duplicate(to, i) => {
            let i = usize::from(i);
            let m = d.queue(to)[i];
            let place = if fifo {
                i + 1
            } else {
                d.sorted_msg_place(to, m)
            };
            d.insert_msg(to, place, m);
            d.count(Counter::Duplicated);
        }
        Listed::WorkDone(i) => {
            let i = usize::from(i);
            let w = d.work()[i];
            d.remove_work(i);
            remove_progressed(d, w);
        }
        Listed::Progress(i) => {
            let w = d.work()[usize::from(i)];
            d.insert_progressed(w);
        }
        Listed::Fire(i) => d.remove_timer(usize::from(i)),
        // The party's own abort of the work comes back as its effect.
        Listed::Abort(_) => {}
        Listed::Malformed => d.count(Counter::Malformed),
    }
}

/// Lands one effect of `from` (in the order the party made them) on a FIFO link or not: a
/// message joins the end of the queue towards the peer (or its sorted place), work and timers
/// join theirs, aborted work leaves (its first entry, and every mark of progress), a disarmed
/// timer leaves (every entry).
#[inline(always)]
pub(super) fn carry<D: Driver>(d: &mut D, from: Party, e: EffectOf<D>, fifo: bool) {
    match e {
        Effect::Send(m) => {
            let to = from.peer();
            let place = if fifo {
                d.queue(to).len()
            } else {
                d.sorted_msg_place(to, m)
            };
            d.insert_msg(to, place, m);
        }
        Effect::StartWork(w) => d.insert_work(w),
        Effect::AbortWork(w) => {
            if let Some(i) = d.work().iter().position(|&x| x == w) {
                d.remove_work(i);
            }
            remove_progressed(d, w);
        }
        Effect::Arm(t) => d.insert_timer(t),
        Effect::Disarm(t) => {
            while let Some(i) = d.timers().iter().position(|&x| x == t) {
                d.remove_timer(i);
            }
        }
    }
}

/// Takes out every mark of progress of `w`.
#[inline(always)]
fn remove_progressed<D: Driver>(d: &mut D, w: D::Work) {
    while let Some(i) = d.progressed().iter().position(|&x| x == w) {
        d.remove_progressed(i);
    }
}
