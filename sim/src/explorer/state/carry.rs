//! How a step's effects reach a plain state's tables: an input fed and its outputs carried
//! out ([`Carrying`]), and the tables edited in values for the driver code both forms share
//! ([`Driver`]), each table changed marked dirty.

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::Method;
use cancelcheck_model::{Input, Message, Party, RequestId};

use super::{Dirty, Explorer, insert_sorted};
use crate::effects::{Effects, carry_out};
use crate::explorer::Bounds;
use crate::explorer::driver::{self, Counter, Driver, Effect};

impl Explorer {
    /// Feeds one input and carries out what the endpoint did (see [`carry_out`]); its
    /// outputs stay in `outs`. With `asked`, the input was the application's request to send:
    /// the id of the work request it made is recorded in the slot of the party's script.
    pub(super) fn feed(&mut self, b: &Bounds, party: Party, input: Input, asked: Option<usize>) {
        let mut outs = core::mem::take(&mut self.outs);
        outs.clear();
        outs.extend_from_slice(self.world.feed(party, input));
        carry_out(
            party,
            &outs,
            &mut Carrying {
                e: self,
                b,
                asked: asked.map(|k| (party, k)),
            },
        );
        self.outs = outs;
    }
}

/// A state carrying out one input's outputs: messages join the queue towards the peer, work
/// and armed timers join their tables (a timer only where the bounds explore it), and each
/// table changed is marked dirty.
struct Carrying<'a> {
    e: &'a mut Explorer,
    b: &'a Bounds,
    /// The party whose application asked to send, and the slot of its script that learns the
    /// id of the first work request it sends.
    asked: Option<(Party, usize)>,
}

impl Effects for Carrying<'_> {
    fn send(&mut self, from: Party, msg: Message) {
        // (Streamable HTTP's streams are the plain form's alone.)
        if self.b.http {
            return self.e.http_send(from, msg);
        }
        driver::carry(self.e, from, Effect::Send(msg), self.b.fifo);
    }

    /// Records the application's id (the slot of its script that asked learns it).
    fn request(&mut self, from: Party, id: RequestId, method: Method) {
        let e = &mut *self.e;
        if let Some((p, k)) = self.asked
            && p == from
            && method.is_work_of(from)
        {
            match from {
                Party::Client => e.ids[k] = Some(id),
                Party::Server => e.server.ids[k] = Some(id),
            }
            self.asked = None;
        }
    }

    fn start_work(&mut self, party: Party, id: RequestId) {
        driver::carry(self.e, party, Effect::StartWork((party, id)), self.b.fifo);
    }

    fn abort_work(&mut self, party: Party, id: RequestId) {
        driver::carry(self.e, party, Effect::AbortWork((party, id)), self.b.fifo);
    }

    fn arm(&mut self, party: Party, timer: Timer) {
        if self.b.explores(timer) {
            driver::carry(self.e, party, Effect::Arm((party, timer)), self.b.fifo);
        }
    }

    fn disarm(&mut self, party: Party, timer: Timer) {
        driver::carry(self.e, party, Effect::Disarm((party, timer)), self.b.fifo);
    }

    fn close_stream(&mut self, _: Party, id: RequestId) {
        self.e.http_close(id);
    }
}

/// The plain state's tables edited in values, each table changed marked dirty.
impl Driver for Explorer {
    #[inline(always)]
    fn insert_msg(&mut self, to: Party, i: usize, m: Message) {
        self.dirty |= Dirty::NET[to.index()];
        self.net[to.index()].insert(i, m);
    }
    #[inline(always)]
    fn sorted_msg_place(&self, to: Party, m: Message) -> usize {
        self.net[to.index()].partition_point(|y| *y <= m)
    }
    #[inline(always)]
    fn remove_msg(&mut self, to: Party, i: usize) {
        self.dirty |= Dirty::NET[to.index()];
        self.net[to.index()].remove(i);
    }
    #[inline(always)]
    fn insert_work(&mut self, w: (Party, RequestId)) {
        self.dirty |= Dirty::WORK;
        insert_sorted(&mut self.work, w);
    }
    #[inline(always)]
    fn remove_work(&mut self, i: usize) {
        self.dirty |= Dirty::WORK;
        self.work.remove(i);
    }
    #[inline(always)]
    fn insert_progressed(&mut self, w: (Party, RequestId)) {
        self.dirty |= Dirty::PROGRESSED;
        insert_sorted(&mut self.progressed, w);
    }
    #[inline(always)]
    fn remove_progressed(&mut self, i: usize) {
        self.dirty |= Dirty::PROGRESSED;
        self.progressed.remove(i);
    }
    #[inline(always)]
    fn insert_timer(&mut self, t: (Party, Timer)) {
        self.dirty |= Dirty::TIMERS;
        insert_sorted(&mut self.timers, t);
    }
    #[inline(always)]
    fn remove_timer(&mut self, i: usize) {
        self.dirty |= Dirty::TIMERS;
        self.timers.remove(i);
    }
    #[inline(always)]
    fn count(&mut self, c: Counter) {
        match c {
            // The application learns the new request's id when the client is fed.
            Counter::Sent => {
                self.sent += 1;
                self.dirty |= Dirty::IDS;
            }
            Counter::Cancelled(k) => {
                self.cancels[usize::from(k)] += 1;
                self.dirty |= Dirty::CANCELS;
            }
            Counter::Duplicated => self.duplicates_left -= 1,
            Counter::Malformed => self.malformed_left -= 1,
        }
    }
}
