//! The table agrees with the model's pure per-request state machine.
//!
//! Random sequences of operations are applied one at a time to a `RequestTable` and, in
//! parallel, to a mirror built only from `request::Incoming` and
//! `request::acknowledged_cancel`. They must agree on every result: who wins, who loses and
//! why, every acknowledgement, every outcome a waiter takes.
//!
//! The mapping: a registered request is `Working`; `complete` is `Incoming::complete`; a
//! cancel is `acknowledged_cancel`; a timeout is a cancel (ABP: "a `timeout` call option is a
//! cancel"), so it ends `Answered(Cancelled)`; shutdown ends every open request as `Dropped`
//! (no answer, acknowledged as cancelled); dropping the waiter forgets the request (`None`).

use cancelcheck::table::{
    CancelledBy, Kind, LostTo, RegisterError, RequestTable, Resolution, Waiter,
};
use cancelcheck_model::RequestId;
use cancelcheck_model::message::{Ack, AckReason};
use cancelcheck_model::request::{Completion, Incoming, acknowledged_cancel};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Op {
    Register(u8),
    Complete(u8, u32),
    Cancel(u8),
    Timeout(u8),
    Shutdown,
    DropWaiter(u8),
    Take(u8),
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u8..3;
    prop_oneof![
        3 => k.clone().prop_map(Op::Register),
        3 => (k.clone(), any::<u32>()).prop_map(|(k, a)| Op::Complete(k, a)),
        3 => k.clone().prop_map(Op::Cancel),
        2 => k.clone().prop_map(Op::Timeout),
        1 => Just(Op::Shutdown),
        2 => k.clone().prop_map(Op::DropWaiter),
        2 => k.prop_map(Op::Take),
    ]
}

/// The mirror's record of one request: the pure state, how it was resolved (to compare the
/// table's richer outcome), and whether its outcome was taken.
struct Mirror {
    state: Incoming,
    kind: Option<Kind>,
    answer: Option<u32>,
    taken: bool,
}

fn id(k: u8) -> RequestId {
    RequestId::Int(i64::from(k))
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let table = RequestTable::<u32>::new();
    let mut waiters: BTreeMap<u8, Waiter<u32>> = BTreeMap::new();
    let mut mirror: BTreeMap<u8, Mirror> = BTreeMap::new();
    let mut shut_down = false;
    for op in ops {
        match *op {
            Op::Register(k) => {
                let got = table.register(id(k));
                let want = if shut_down {
                    Err(RegisterError::ShutDown)
                } else if mirror.contains_key(&k) {
                    Err(RegisterError::Duplicate(id(k)))
                } else {
                    Ok(())
                };
                prop_assert_eq!(got.as_ref().map(|_| ()).map_err(|e| *e), want);
                if let Ok(w) = got {
                    waiters.insert(k, w);
                    mirror.insert(
                        k,
                        Mirror {
                            state: Incoming::Working,
                            kind: None,
                            answer: None,
                            taken: false,
                        },
                    );
                }
            }
            Op::Complete(k, a) => {
                let got = table.complete(id(k), a).map_err(|l| l.to);
                let want = match mirror.get_mut(&k) {
                    None => Err(LostTo::NotFound),
                    Some(m) => match m.state.complete() {
                        Ok(next) => {
                            m.state = next;
                            m.kind = Some(Kind::Completed);
                            m.answer = Some(a);
                            Ok(())
                        }
                        Err(_) => Err(LostTo::AlreadyResolved(m.kind.expect("resolved"))),
                    },
                };
                prop_assert_eq!(got, want);
            }
            Op::Cancel(k) => {
                let got = table.cancel(id(k), CancelledBy::Peer);
                let m = mirror.get_mut(&k);
                let (next, want) = acknowledged_cancel(m.as_ref().map(|m| m.state));
                if let (Some(m), Some(next)) = (m, next) {
                    if m.state.is_open() {
                        m.kind = Some(Kind::Cancelled);
                    }
                    m.state = next;
                }
                prop_assert_eq!(got, want);
            }
            Op::Timeout(k) => {
                let got = table.timeout(id(k));
                let want = match mirror.get_mut(&k) {
                    None => Err(LostTo::NotFound),
                    Some(m) => match m.state.cancel(true) {
                        Ok(next) => {
                            m.state = next;
                            m.kind = Some(Kind::TimedOut);
                            Ok(())
                        }
                        Err(_) => Err(LostTo::AlreadyResolved(m.kind.expect("resolved"))),
                    },
                };
                prop_assert_eq!(got, want);
            }
            Op::Shutdown => {
                let got = table.shutdown();
                let mut want = 0;
                for m in mirror.values_mut() {
                    if let Ok(next) = m.state.cancel(false) {
                        m.state = next;
                        m.kind = Some(Kind::Shutdown);
                        want += 1;
                    }
                }
                shut_down = true;
                prop_assert_eq!(got, want);
            }
            Op::DropWaiter(k) => {
                waiters.remove(&k);
                mirror.remove(&k);
            }
            Op::Take(k) => {
                let got = waiters.get_mut(&k).and_then(|w| w.try_take());
                let want = mirror.get_mut(&k).and_then(|m| {
                    if m.state.is_open() || m.taken {
                        return None;
                    }
                    m.taken = true;
                    Some(match m.kind.expect("resolved") {
                        Kind::Completed => Resolution::Completed(m.answer.expect("answered")),
                        Kind::Cancelled => Resolution::Cancelled(CancelledBy::Peer),
                        Kind::TimedOut => Resolution::TimedOut,
                        Kind::Shutdown => Resolution::Shutdown,
                    })
                });
                prop_assert_eq!(got, want);
            }
        }
        prop_assert_eq!(table.len(), mirror.len());
    }
    drop(waiters);
    prop_assert!(table.is_empty(), "entries left after every waiter is gone");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x7AB1E),
        ..ProptestConfig::default()
    })]

    #[test]
    fn table_agrees_with_the_pure_state_machine(ops in prop::collection::vec(op(), 1..40)) {
        run(&ops)?;
    }
}

#[test]
fn one_winner_and_abp_acknowledgements() {
    let t = RequestTable::new();
    let mut w = t.register(id(1)).unwrap();
    assert_eq!(t.complete(id(1), 10).map_err(|l| l.to), Ok(()));
    let lost = t.complete(id(1), 20).unwrap_err();
    assert_eq!(lost.to, LostTo::AlreadyResolved(Kind::Completed));
    assert_eq!(lost.into_answer(), Some(20));
    let ack = t.cancel(id(1), CancelledBy::Application);
    assert_eq!(
        ack,
        Ack {
            cancelled: false,
            reason: AckReason::AlreadyCompleted
        }
    );
    assert_eq!(w.wait(), Ok(Resolution::Completed(10)));
    assert!(w.wait().is_err(), "the outcome is delivered once");
    assert_eq!(
        t.cancel(id(2), CancelledBy::Peer).reason,
        AckReason::NotFound
    );
    drop(w);
    assert!(t.is_empty());
}

#[test]
fn a_timed_out_request_acknowledges_cancels_as_cancelled() {
    let t = RequestTable::<()>::new();
    let _w = t.register(id(1)).unwrap();
    assert_eq!(t.timeout(id(1)), Ok(()));
    assert_eq!(t.cancel(id(1), CancelledBy::Peer), Ack::CANCELLED);
    assert_eq!(t.peek(id(1)), Some(Some(Kind::TimedOut)));
    let (_, pure) = acknowledged_cancel(Some(Incoming::Answered(Completion::Cancelled)));
    assert_eq!(pure, Ack::CANCELLED);
}
