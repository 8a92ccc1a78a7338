//! loom models of the request table, run by plain `cargo test`.
//!
//! `table.rs` is compiled a second time here, against loom's primitives: this crate's `sync`
//! module maps to `loom::sync`, and `table.rs` is included by path (the ids and
//! acknowledgements it uses are the model's).
//! Every model runs the main thread plus the threads it names, with a preemption bound of 3,
//! and checks exactly-once resolution, agreeing acknowledgements, and an empty table at the
//! end. The planted bugs (`Flaw`) must each make some model fail.

#![allow(dead_code)]

mod sync {
    pub use loom::sync::{Arc, Condvar, Mutex, MutexGuard};
}
#[path = "../src/table.rs"]
mod table;

use cancelcheck_model::RequestId;
use cancelcheck_model::message::{Ack, AckReason};
use loom::thread;
use table::{CancelledBy, Flaw, LostTo, RequestTable, Resolution};

const PREEMPTION_BOUND: usize = 3;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(PREEMPTION_BOUND);
    b.check(f);
}

/// The message of the panic by which loom reports a failing interleaving of `f`, if any.
fn failure(f: impl Fn() + Sync + Send + 'static) -> Option<String> {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| model(f))).err()?;
    Some(match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    })
}

/// Asserts that loom finds a failure of `f` whose message contains one of `expected` (so a
/// flaw test cannot pass on an unrelated panic).
fn finds(f: impl Fn() + Sync + Send + 'static, expected: &[&str]) {
    let msg = failure(f).expect("loom finds no failing interleaving");
    assert!(
        expected.iter().any(|e| msg.contains(e)),
        "loom failed for another reason: {msg}"
    );
}

const ID: RequestId = RequestId::Int(1);
const COMPLETED: Ack = Ack {
    cancelled: false,
    reason: AckReason::AlreadyCompleted,
};

/// Answer vs cancel, with the waiter blocked meanwhile. Bounds: 3 threads (the waiter on main, 2 racing), preemption bound 3.
fn answer_vs_cancel(flaw: Flaw) {
    let t = RequestTable::<u32>::with_flaw(flaw);
    let mut w = t.register(ID).expect("register");
    let (a, b) = (t.clone(), t.clone());
    let answer = thread::spawn(move || a.complete(ID, 7).is_ok());
    let cancel = thread::spawn(move || b.cancel(ID, CancelledBy::Peer));
    let outcome = w.wait().expect("the waiter wakes with an outcome");
    let (answered, ack) = (answer.join().unwrap(), cancel.join().unwrap());
    match outcome {
        Resolution::Completed(7) => assert!(answered && ack == COMPLETED, "one winner: answer"),
        Resolution::Cancelled(_) => {
            assert!(!answered && ack == Ack::CANCELLED, "one winner: cancel")
        }
        other => panic!("unexpected {other:?}"),
    }
    drop(w);
    assert!(t.is_empty());
}

#[test]
fn answer_vs_cancel_resolves_once() {
    model(|| answer_vs_cancel(Flaw::None));
}

/// Answer vs timeout. Bounds: 3 threads (the waiter on main, 2 racing), preemption bound 3.
#[test]
fn answer_vs_timeout_resolves_once() {
    model(|| {
        let t = RequestTable::<u32>::new();
        let mut w = t.register(ID).unwrap();
        let (a, b) = (t.clone(), t.clone());
        let answer = thread::spawn(move || a.complete(ID, 7).is_ok());
        let timer = thread::spawn(move || b.timeout(ID).is_ok());
        let outcome = w.wait().unwrap();
        let (answered, timed_out) = (answer.join().unwrap(), timer.join().unwrap());
        assert!(answered != timed_out, "exactly one wins");
        assert_eq!(outcome == Resolution::TimedOut, timed_out);
        drop(w);
        assert!(t.is_empty());
    });
}

/// Cancel vs cancel: the same acknowledgement twice. Bounds: 3 threads (the waiter on main, 2 racing), preemption bound 3.
#[test]
fn cancel_vs_cancel_acknowledges_the_same() {
    model(|| {
        let t = RequestTable::<u32>::new();
        let mut w = t.register(ID).unwrap();
        let (a, b) = (t.clone(), t.clone());
        let first = thread::spawn(move || a.cancel(ID, CancelledBy::Application));
        let second = thread::spawn(move || b.cancel(ID, CancelledBy::Peer));
        assert!(matches!(w.wait(), Ok(Resolution::Cancelled(_))));
        assert_eq!(first.join().unwrap(), Ack::CANCELLED);
        assert_eq!(second.join().unwrap(), Ack::CANCELLED);
        drop(w);
        assert!(t.is_empty());
    });
}

/// Shutdown vs answer, cancel and timeout, one at a time. Bounds: 3 threads (the waiter on main, 2 racing), preemption bound 3.
#[test]
fn shutdown_vs_each_resolves_once() {
    for op in 0..3 {
        model(move || {
            let t = RequestTable::<u32>::new();
            let mut w = t.register(ID).unwrap();
            let (a, b) = (t.clone(), t.clone());
            let other = thread::spawn(move || match op {
                0 => a.complete(ID, 7).is_ok(),
                1 => a.cancel(ID, CancelledBy::Peer) == Ack::CANCELLED,
                _ => a.timeout(ID).is_ok(),
            });
            let closer = thread::spawn(move || b.shutdown());
            let outcome = w.wait().unwrap();
            let (won, resolved) = (other.join().unwrap(), closer.join().unwrap());
            match op {
                0 => assert_eq!(won, resolved == 0),
                // A shut-down request acknowledges a cancel as cancelled too.
                1 => assert!(won),
                _ => assert_eq!(won, resolved == 0),
            }
            assert_eq!(outcome == Resolution::Shutdown, resolved == 1, "op {op}");
            drop(w);
            assert!(t.is_empty());
        });
    }
}

/// Register vs shutdown: refused, or registered and then resolved by the shutdown (never left
/// hanging). Bounds: 2 threads, preemption bound 3.
#[test]
fn register_vs_shutdown_never_hangs() {
    model(|| {
        let t = RequestTable::<u32>::new();
        let a = t.clone();
        let closer = thread::spawn(move || a.shutdown());
        match t.register(ID) {
            Ok(mut w) => {
                assert_eq!(w.wait(), Ok(Resolution::Shutdown));
                closer.join().unwrap();
            }
            Err(e) => {
                assert_eq!(e, table::RegisterError::ShutDown);
                closer.join().unwrap();
            }
        }
        assert!(t.is_empty());
    });
}

/// The waiter is dropped while the answer arrives: no leak either way. Bounds: 2 threads, preemption bound 3.
#[test]
fn waiter_dropped_early_leaves_nothing() {
    model(|| {
        let t = RequestTable::<u32>::new();
        let w = t.register(ID).unwrap();
        let a = t.clone();
        let answer = thread::spawn(move || a.complete(ID, 7).map_err(|l| l.to));
        drop(w);
        let r = answer.join().unwrap();
        assert!(r == Ok(()) || r == Err(LostTo::NotFound), "{r:?}");
        assert!(t.is_empty());
        assert_eq!(t.cancel(ID, CancelledBy::Peer).reason, AckReason::NotFound);
    });
}

/// A timeout, then the id registered again while the timer thread finishes: the new request
/// must be unaffected. Bounds: 2 threads, preemption bound 3.
fn timeout_then_reuse(flaw: Flaw) {
    {
        let t = RequestTable::<u32>::with_flaw(flaw);
        let mut w = t.register(ID).unwrap();
        let a = t.clone();
        let timer = thread::spawn(move || a.timeout(ID).is_ok());
        assert_eq!(w.wait(), Ok(Resolution::TimedOut));
        drop(w);
        let mut again = t.register(ID).expect("the id is free again");
        assert!(timer.join().unwrap());
        assert_eq!(t.complete(ID, 5).map_err(|l| l.to), Ok(()));
        assert_eq!(again.wait(), Ok(Resolution::Completed(5)));
        drop(again);
        assert!(t.is_empty());
    }
}

#[test]
fn a_reused_id_is_unaffected_by_the_old_timeout() {
    model(|| timeout_then_reuse(Flaw::None));
}

#[test]
fn loom_finds_check_then_act() {
    finds(|| answer_vs_cancel(Flaw::CheckThenAct), &["one winner"]);
}

#[test]
fn loom_finds_wake_before_publish() {
    finds(|| answer_vs_cancel(Flaw::WakeBeforePublish), &["NoOutcome"]);
}

#[test]
fn loom_finds_remove_twice() {
    // The second removal either deletes the entry under its own waiter (`Vanished`) or the
    // newer request's entry (`NotFound`), depending on the interleaving loom meets first.
    finds(
        || timeout_then_reuse(Flaw::RemoveTwice),
        &["Vanished", "NotFound"],
    );
}
