//! The one interpreter of what an endpoint does: [`carry_out`] turns an endpoint's
//! [`Output`]s into effects on a driver ([`Effects`]), so every driver reads them alike.
//!
//! A driver decides how an effect happens (the simulator schedules it in virtual time with
//! drawn delays, the explorer puts it in its tables to branch on later); which outputs are
//! effects, and in what order, is decided here once. Which request a nested one was sent for
//! is the checker's to say (`Checker::parentage`), from the same outputs: the world
//! ([`crate::World::feed`]) has already shown the checker every output.

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::{Method, Outcome, Reply};
use cancelcheck_model::{Message, Output, Party, RequestId};

/// What a driver does with an endpoint's outputs, one method per effect. Each is called in
/// the order of the outputs that cause it.
pub trait Effects {
    /// `from` puts `msg` on the wire towards its peer.
    fn send(&mut self, from: Party, msg: Message);
    /// `from` sends the request `id` with `method` (called right before its [`Effects::send`]).
    fn request(&mut self, from: Party, id: RequestId, method: Method) {
        let _ = (from, id, method);
    }
    /// `party` starts the work for the request `id` it received.
    fn start_work(&mut self, party: Party, id: RequestId);
    /// `party` aborts the running work for the request `id` it received.
    fn abort_work(&mut self, party: Party, id: RequestId);
    /// `party` arms `timer`.
    fn arm(&mut self, party: Party, timer: Timer);
    /// `party` disarms `timer`.
    fn disarm(&mut self, party: Party, timer: Timer);
    /// `party` closes the response stream of its request `id` (Streamable HTTP).
    fn close_stream(&mut self, party: Party, id: RequestId) {
        let _ = (party, id);
    }
    /// `party`'s session opened: the answer to its `initialize` was delivered to it.
    fn session_open(&mut self, party: Party) {
        let _ = party;
    }
}

/// Carries out, on `driver`, what `party` did (`outs`, one input's outputs in order). Outputs
/// that are no effect on a driver (a nested request's link to its parent, outcomes other than
/// `initialize`'s, refusals, ignored input, anomalies, a crash) are left to the checker, which
/// has seen them.
pub fn carry_out(party: Party, outs: &[Output], driver: &mut impl Effects) {
    for &out in outs {
        match out {
            Output::Send(msg) => {
                if let Message::Request { id, method } = msg {
                    driver.request(party, id, method);
                }
                driver.send(party, msg);
            }
            Output::StartWork(id) => driver.start_work(party, id),
            Output::AbortWork(id) => driver.abort_work(party, id),
            Output::ArmTimer(t) => driver.arm(party, t),
            Output::DisarmTimer(t) => driver.disarm(party, t),
            Output::CloseStream(id) => driver.close_stream(party, id),
            Output::Deliver {
                outcome: Outcome::Reply(Reply::Initialized { .. }),
                ..
            } => driver.session_open(party),
            Output::Nested { .. }
            | Output::Deliver { .. }
            | Output::Dropped(_)
            | Output::Refused(..)
            | Output::Ignored(_)
            | Output::Anomaly(_)
            | Output::Crashed => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every effect, written down in the order it was carried out.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Effects for Log {
        fn send(&mut self, from: Party, msg: Message) {
            self.0.push(format!("send {from:?} {:?}", msg.request_id()));
        }
        fn request(&mut self, from: Party, id: RequestId, _: Method) {
            self.0.push(format!("request {from:?} {id:?}"));
        }
        fn start_work(&mut self, party: Party, id: RequestId) {
            self.0.push(format!("start {party:?} {id:?}"));
        }
        fn abort_work(&mut self, party: Party, id: RequestId) {
            self.0.push(format!("abort {party:?} {id:?}"));
        }
        fn arm(&mut self, party: Party, timer: Timer) {
            self.0.push(format!("arm {party:?} {timer:?}"));
        }
        fn disarm(&mut self, party: Party, timer: Timer) {
            self.0.push(format!("disarm {party:?} {timer:?}"));
        }
    }

    /// Effects come in the order of the outputs; outputs that are no effect (a nested
    /// request's link to its parent, which the checker reads, among them) are passed over.
    #[test]
    fn effects_come_in_the_order_of_the_outputs() {
        let (p, a, b) = (RequestId::Int(7), RequestId::Int(1), RequestId::Int(2));
        let work = |id| {
            Output::Send(Message::Request {
                id,
                method: Method::ServerWork,
            })
        };
        let timer = Timer::RequestTimeout(a);
        let outs = [
            Output::Nested {
                parent: p,
                child: a,
            },
            work(a),
            Output::ArmTimer(timer),
            Output::Dropped(p),
            work(b),
            Output::StartWork(p),
            Output::AbortWork(p),
            Output::DisarmTimer(timer),
        ];
        let mut log = Log::default();
        carry_out(Party::Server, &outs, &mut log);
        let want = [
            "request Server 1",
            "send Server Some(1)",
            "arm Server RequestTimeout(1)",
            "request Server 2",
            "send Server Some(2)",
            "start Server 7",
            "abort Server 7",
            "disarm Server RequestTimeout(1)",
        ];
        assert_eq!(log.0, want);
    }
}
