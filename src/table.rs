//! A concurrent table of pending requests that resolves each request exactly once.
//!
//! A JSON-RPC client keeps its requests awaiting an answer in a table that several threads race
//! on: the reader delivers the answer ([`RequestTable::complete`]), the application cancels
//! ([`RequestTable::cancel`]), a timer fires ([`RequestTable::timeout`]), the connection closes
//! ([`RequestTable::shutdown`]). Whichever comes first resolves the request; the others learn
//! that they lost, and the [`Waiter`] wakes exactly once with the winner's [`Resolution`].
//!
//! Guarantees:
//! - Exactly one operation resolves each registered request; every other one is told why it
//!   lost ([`Lost`], or a `cancelled: false` acknowledgement).
//! - `cancel` answers with ABP's acknowledgement rules (`app-call-cancellation.md`, "Edge
//!   Cases"): unknown id → `{false, "Operation not found"}`; resolved otherwise than by a
//!   cancel → `{false, "Operation already completed"}`; cancelled (by a cancel, a timeout or a
//!   shutdown) → `{true}`, the same answer every time.
//! - Retention: an entry lives exactly as long as its [`Waiter`]. Dropping the waiter (before
//!   or after resolution) removes the entry, so once every waiter is gone the table is empty.
//! - No lock is held while user code runs: the table calls no callback, answers that lose are
//!   handed back to the caller and dropped outside the lock, and waiters are woken after the
//!   outcome is published and the lock released.
//! - After `shutdown`, `register` is refused with [`RegisterError::ShutDown`].
//! - No panics: a poisoned lock is recovered (the state it guards is updated in single steps,
//!   so it is never left half-written).
//!
//! The file is compiled twice: in the crate against `std::sync`, and inside the loom test
//! crate (`tests/loom_table.rs`) against loom's primitives, through `super::sync`.

use super::sync::{Arc, Condvar, Mutex, MutexGuard};
use cancelcheck_model::RequestId;
use cancelcheck_model::message::{Ack, AckReason};
use std::collections::BTreeMap;

/// Why a request was cancelled.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CancelledBy {
    /// The application asked.
    Application,
    /// The peer asked (a cancel notification received).
    Peer,
}

/// How a request was resolved: what its waiter receives, once.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Resolution<T> {
    /// The answer arrived.
    Completed(T),
    /// It was cancelled.
    Cancelled(CancelledBy),
    /// Its timer fired first.
    TimedOut,
    /// The table shut down first.
    Shutdown,
}

impl<T> Resolution<T> {
    fn kind(&self) -> Kind {
        match self {
            Resolution::Completed(_) => Kind::Completed,
            Resolution::Cancelled(_) => Kind::Cancelled,
            Resolution::TimedOut => Kind::TimedOut,
            Resolution::Shutdown => Kind::Shutdown,
        }
    }
}

/// How a request was resolved, without the answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// By its answer.
    Completed,
    /// By a cancel.
    Cancelled,
    /// By its timer.
    TimedOut,
    /// By shutdown.
    Shutdown,
}

impl Kind {
    /// The acknowledgement a cancel gets once the request was resolved this way.
    pub fn ack(self) -> Ack {
        match self {
            Kind::Completed => Ack {
                cancelled: false,
                reason: AckReason::AlreadyCompleted,
            },
            Kind::Cancelled | Kind::TimedOut | Kind::Shutdown => Ack::CANCELLED,
        }
    }
}

/// Why an operation did not resolve the request.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LostTo {
    /// No request with that id is in the table (never registered, or its waiter is gone).
    NotFound,
    /// Something else resolved it first.
    AlreadyResolved(Kind),
}

/// A `complete` that lost: why, and what it tried to publish, handed back to the caller (so
/// the answer is dropped outside the table's lock, or reused).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Lost<T> {
    /// Why.
    pub to: LostTo,
    /// The resolution it tried to publish (`Completed(answer)`).
    pub returned: Resolution<T>,
}

impl<T> Lost<T> {
    /// The answer handed back.
    pub fn into_answer(self) -> Option<T> {
        match self.returned {
            Resolution::Completed(a) => Some(a),
            _ => None,
        }
    }
}

/// Why `register` refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RegisterError {
    /// A request with this id is still in the table.
    Duplicate(RequestId),
    /// The table was shut down.
    ShutDown,
}

/// Deliberate concurrency bugs, kept so the loom tests can show that they are caught. Only
/// [`Flaw::None`] is used outside those tests.
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flaw {
    /// The correct table.
    None,
    /// Resolution checks the slot and writes it in two separate critical sections.
    CheckThenAct,
    /// The waiter is woken (marked ready) before the outcome is stored.
    WakeBeforePublish,
    /// A timeout removes the entry itself, in a second critical section, though the waiter's
    /// drop removes it too: the second removal can delete a newer request with the same id.
    RemoveTwice,
}

enum Slot<T> {
    Pending,
    /// Flawed tables only: ready is signalled but the outcome is not stored yet.
    Signalled,
    Resolved(Resolution<T>),
    /// The waiter took the outcome; the entry stays (for acknowledgements) until it is dropped.
    Taken(Kind),
}

struct Entry<T> {
    slot: Slot<T>,
    /// Distinguishes registrations of the same id.
    generation: u64,
}

struct State<T> {
    entries: BTreeMap<RequestId, Entry<T>>,
    shut_down: bool,
    next_generation: u64,
    /// Waiters blocked on the condition variable. A waiter only blocks after seeing `Pending`
    /// under the lock, so a resolver that publishes under the lock and sees no sleeper can
    /// skip the wake-up.
    sleeping: usize,
}

struct Inner<T> {
    state: Mutex<State<T>>,
    wake: Condvar,
    flaw: Flaw,
}

impl<T> Inner<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The table. Cloning it gives another handle to the same table.
pub struct RequestTable<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Clone for RequestTable<T> {
    fn clone(&self) -> Self {
        RequestTable {
            inner: self.inner.clone(),
        }
    }
}

/// The one handle that receives a request's resolution. Dropping it removes the entry.
pub struct Waiter<T> {
    inner: Arc<Inner<T>>,
    id: RequestId,
    generation: u64,
}

/// What a waiter saw when woken without an outcome (only a flawed table does this).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WaitError {
    /// Woken, but no outcome was stored.
    NoOutcome,
    /// The entry is gone (only a flawed table removes it under a live waiter).
    Vanished,
    /// The outcome was already taken by an earlier `wait`.
    AlreadyTaken(Kind),
}

impl<T> Default for RequestTable<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> RequestTable<T> {
    /// An empty table.
    pub fn new() -> Self {
        Self::with_flaw(Flaw::None)
    }

    #[doc(hidden)]
    /// A table with a planted bug (tests only).
    pub fn with_flaw(flaw: Flaw) -> Self {
        RequestTable {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    entries: BTreeMap::new(),
                    shut_down: false,
                    next_generation: 0,
                    sleeping: 0,
                }),
                wake: Condvar::new(),
                flaw,
            }),
        }
    }

    /// Registers a request and returns its waiter.
    pub fn register(&self, id: RequestId) -> Result<Waiter<T>, RegisterError> {
        let mut st = self.inner.lock();
        if st.shut_down {
            return Err(RegisterError::ShutDown);
        }
        if st.entries.contains_key(&id) {
            return Err(RegisterError::Duplicate(id));
        }
        let generation = st.next_generation;
        st.next_generation += 1;
        st.entries.insert(
            id,
            Entry {
                slot: Slot::Pending,
                generation,
            },
        );
        drop(st);
        Ok(Waiter {
            inner: self.inner.clone(),
            id,
            generation,
        })
    }

    /// Resolves the request with its answer; hands the answer back if something won first.
    pub fn complete(&self, id: RequestId, answer: T) -> Result<(), Lost<T>> {
        self.resolve(id, Resolution::Completed(answer))
            .map_err(|(to, returned)| Lost { to, returned })
    }

    /// Cancels the request (idempotent) and acknowledges as ABP does.
    pub fn cancel(&self, id: RequestId, reason: CancelledBy) -> Ack {
        match self.resolve(id, Resolution::Cancelled(reason)) {
            Ok(()) => Ack::CANCELLED,
            Err((LostTo::NotFound, _)) => Ack {
                cancelled: false,
                reason: AckReason::NotFound,
            },
            Err((LostTo::AlreadyResolved(kind), _)) => kind.ack(),
        }
    }

    /// Resolves the request as timed out, unless something won first.
    pub fn timeout(&self, id: RequestId) -> Result<(), LostTo> {
        let result = self.resolve(id, Resolution::TimedOut).map_err(|(to, _)| to);
        if self.inner.flaw == Flaw::RemoveTwice && result.is_ok() {
            // The planted bug: clean up "our" entry in a second critical section, by id only.
            self.inner.lock().entries.remove(&id);
        }
        result
    }

    /// Resolves every pending request as shut down and refuses later registrations. Returns how
    /// many requests it resolved.
    pub fn shutdown(&self) -> usize {
        let mut st = self.inner.lock();
        st.shut_down = true;
        let mut n = 0;
        for e in st.entries.values_mut() {
            if matches!(e.slot, Slot::Pending) {
                e.slot = Slot::Resolved(Resolution::Shutdown);
                n += 1;
            }
        }
        drop(st);
        self.inner.wake.notify_all();
        n
    }

    /// Requests in the table (pending, or resolved with a live waiter).
    pub fn len(&self) -> usize {
        self.inner.lock().entries.len()
    }

    /// Whether the table holds no request.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How the request was resolved so far: `None` if unknown, `Some(None)` if pending.
    pub fn peek(&self, id: RequestId) -> Option<Option<Kind>> {
        let st = self.inner.lock();
        st.entries.get(&id).map(|e| match &e.slot {
            Slot::Pending | Slot::Signalled => None,
            Slot::Resolved(r) => Some(r.kind()),
            Slot::Taken(k) => Some(*k),
        })
    }

    /// The single resolution step. On loss, hands back the resolution it was given.
    fn resolve(&self, id: RequestId, res: Resolution<T>) -> Result<(), (LostTo, Resolution<T>)> {
        let inner = &self.inner;
        let mut st = inner.lock();
        let Some(e) = st.entries.get_mut(&id) else {
            return Err((LostTo::NotFound, res));
        };
        match &e.slot {
            Slot::Pending => {}
            Slot::Signalled => return Err((LostTo::AlreadyResolved(res.kind()), res)),
            Slot::Resolved(r) => return Err((LostTo::AlreadyResolved(r.kind()), res)),
            Slot::Taken(k) => return Err((LostTo::AlreadyResolved(*k), res)),
        }
        match inner.flaw {
            Flaw::CheckThenAct => {
                // The planted bug: the check above and the write below are separate steps.
                drop(st);
                let mut st = inner.lock();
                if let Some(e) = st.entries.get_mut(&id) {
                    e.slot = Slot::Resolved(res);
                }
            }
            Flaw::WakeBeforePublish => {
                e.slot = Slot::Signalled;
                drop(st);
                inner.wake.notify_all();
                let mut st = inner.lock();
                if let Some(e) = st.entries.get_mut(&id) {
                    e.slot = Slot::Resolved(res);
                }
            }
            Flaw::None | Flaw::RemoveTwice => {
                e.slot = Slot::Resolved(res);
                let sleepers = st.sleeping > 0;
                drop(st);
                if sleepers {
                    inner.wake.notify_all();
                }
                return Ok(());
            }
        }
        inner.wake.notify_all();
        Ok(())
    }
}

impl<T> Waiter<T> {
    /// The request's id.
    pub fn id(&self) -> RequestId {
        self.id
    }

    /// Blocks until the request is resolved and returns the resolution (once: a second call
    /// reports [`WaitError::AlreadyTaken`]).
    pub fn wait(&mut self) -> Result<Resolution<T>, WaitError> {
        let inner = &self.inner;
        let mut st = inner.lock();
        loop {
            let Some(e) = st
                .entries
                .get_mut(&self.id)
                .filter(|e| e.generation == self.generation)
            else {
                return Err(WaitError::Vanished);
            };
            match &e.slot {
                Slot::Pending => {}
                // A flawed table's "ready" without an outcome.
                Slot::Signalled => return Err(WaitError::NoOutcome),
                Slot::Taken(k) => return Err(WaitError::AlreadyTaken(*k)),
                Slot::Resolved(r) => {
                    let kind = r.kind();
                    let Slot::Resolved(r) = core::mem::replace(&mut e.slot, Slot::Taken(kind))
                    else {
                        return Err(WaitError::NoOutcome);
                    };
                    return Ok(r);
                }
            }
            st.sleeping += 1;
            st = inner.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            st.sleeping -= 1;
        }
    }

    /// The resolution if there is one already (taking it), without blocking.
    pub fn try_take(&mut self) -> Option<Resolution<T>> {
        let mut st = self.inner.lock();
        let e = st
            .entries
            .get_mut(&self.id)
            .filter(|e| e.generation == self.generation)?;
        let kind = match &e.slot {
            Slot::Resolved(r) => r.kind(),
            _ => return None,
        };
        match core::mem::replace(&mut e.slot, Slot::Taken(kind)) {
            Slot::Resolved(r) => Some(r),
            _ => None,
        }
    }
}

impl<T> Drop for Waiter<T> {
    fn drop(&mut self) {
        let mut st = self.inner.lock();
        // Remove only this registration, never a newer one with the same id.
        if st
            .entries
            .get(&self.id)
            .is_some_and(|e| e.generation == self.generation)
        {
            let removed = st.entries.remove(&self.id);
            drop(st);
            // An unread answer is dropped here, outside the lock.
            drop(removed);
        }
    }
}
