//! The partial-order reduction's ample sets on a FIFO link (stdio), worked out from what each
//! enabled step touches. Both forms of a state (the plain [`Explorer`](super::Explorer) and the
//! [flat row](super::Flat)) describe their steps and queues in these terms and ask
//! [`fifo_ample`], so they choose the same set.
//!
//! On a FIFO link each party is the only writer of the queue towards its peer and the only
//! reader of the queue towards itself. A step is on one party's *side*: the party it feeds
//! (an application command, a message delivered, work finishing, a timer), or, for a loss, the
//! party the lost message was going to. See [`super::partial_order`] for why the sets chosen
//! here are sound.

use cancelcheck_model::{Message, Party};

/// What a message in flight is, as far as the reduction on a FIFO link cares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum MsgClass {
    /// A response to a request sent on no other's behalf (a root). Receiving it makes no
    /// party send anything; whether it was received or lost is read by the checker when a
    /// cancel of its request arrives.
    Answer,
    /// A response to a nested request (one its requester sent on behalf of a request it
    /// received). Receiving it may release the answer its requester held back for that parent,
    /// so it may send; otherwise it is read like an [`MsgClass::Answer`].
    NestedAnswer,
    /// A cancel: its receiver may answer or acknowledge it.
    Cancel,
    /// `initialize`: its receiver answers it, declaring the capability every cancel sent is
    /// judged against.
    Initialize,
    /// A work request, a progress notification or a cancel acknowledgement: receiving it makes
    /// no party send anything.
    Quiet,
    /// Anything else (a malformed cancel): no ample set delivers it alone.
    Other,
}

impl MsgClass {
    /// The class of `m`, a response taken for a root's (see [`MsgClass::NestedAnswer`]).
    pub(super) fn of(m: &Message) -> MsgClass {
        match m {
            Message::Request { method, .. } if method.is_initialize() => MsgClass::Initialize,
            Message::Request { .. } | Message::Activity { .. } | Message::CancelAck { .. } => {
                MsgClass::Quiet
            }
            Message::Response { .. } => MsgClass::Answer,
            Message::Cancel { .. } => MsgClass::Cancel,
            Message::MalformedCancel => MsgClass::Other,
        }
    }

    /// Whether receiving such a message never makes its receiver send anything (checked by a
    /// debug assertion wherever a step delivers one).
    pub(super) fn quiet(self) -> bool {
        matches!(self, MsgClass::Answer | MsgClass::Quiet)
    }

    /// Whether it is a response to a request (of a root or a nested one).
    fn answer(self) -> bool {
        matches!(self, MsgClass::Answer | MsgClass::NestedAnswer)
    }
}

/// A message in flight, as the reduction sees it: the request it is about (numbered as the
/// steps' requests are: 0 for `initialize` and messages naming no work request, `None` for one
/// naming nothing) and its class.
pub(super) type Queued = (Option<u32>, MsgClass);

/// What one enabled step touches.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Footprint {
    /// Its request, numbered as the steps' requests are.
    pub(super) request: Option<u32>,
    /// The party whose side it is on.
    pub(super) side: Party,
    /// What it does there.
    pub(super) kind: Kind,
}

/// What a step does on its side.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// Delivers (`deliver`) or loses the head of the queue towards its side, a message of
    /// `class`.
    Head {
        /// Delivered, not lost.
        deliver: bool,
        /// What the message is.
        class: MsgClass,
    },
    /// A request's own timeout fires: the checker reads whether the request's answer is on the
    /// wire, and the party may send a cancel.
    Timeout {
        /// Whether the peer holds the request open (received, its answer not sent): it may
        /// then answer it on a step of another request (a worker freed for it, or, with
        /// request trees, the last answer of the requests sent on its behalf releasing the
        /// answer held back). Without trees and queues the peer answers only on the request's
        /// own steps, and this may be `false`.
        peer_holds: bool,
    },
    /// Anything else a party does on its own: an application command, work finishing,
    /// reporting progress or being given up, the connect timeout. It may send to the peer.
    Local,
    /// A step the reduction does not reason about (a duplication, the server's own script):
    /// where one is enabled, no ample set is chosen.
    Other,
}

/// An ample set on a FIFO link.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FifoAmple {
    /// The steps that take the head of the queue towards this party: its delivery (and its
    /// loss, where messages may be lost).
    Head(Party),
    /// Every enabled step on this party's side.
    Side(Party),
}

impl FifoAmple {
    /// Whether the set holds the step `f`.
    pub(super) fn keeps(self, f: &Footprint) -> bool {
        match self {
            FifoAmple::Head(p) => f.side == p && matches!(f.kind, Kind::Head { .. }),
            FifoAmple::Side(p) => f.side == p,
        }
    }

    /// Whether the set is ample in a state whose enabled steps are `steps` and whose queues
    /// (towards the client, towards the server, head first) are `queues` (see
    /// [`super::partial_order`] for the conditions and why they suffice).
    fn holds(self, steps: &[Footprint], queues: [&[Queued]; 2]) -> bool {
        match self {
            FifoAmple::Head(p) => {
                let Some(&(Some(r), class)) = queues[p.index()].first() else {
                    return false;
                };
                // The message makes its receiver send nothing; its request has nothing else
                // to do on this side; and if it is an answer, no cancel of its request waits
                // to be read on the other side.
                class.quiet()
                    && !steps.iter().any(|f| {
                        f.request == Some(r) && f.side == p && !matches!(f.kind, Kind::Head { .. })
                    })
                    && (class != MsgClass::Answer
                        || !queues[p.peer().index()].contains(&(Some(r), MsgClass::Cancel)))
            }
            FifoAmple::Side(p) => {
                let (mine, theirs) = (queues[p.index()], queues[p.peer().index()]);
                // A message waits for this side (so the peer cannot hand it a new step before
                // one of these is taken), and `initialize` is no longer in flight.
                if mine.is_empty()
                    || mine
                        .iter()
                        .chain(theirs)
                        .any(|m| m.1 == MsgClass::Initialize)
                {
                    return false;
                }
                // Of the two checker reads across sides (see `partial_order`), the ones whose
                // reader would be moved before the writer: a request's timeout while the peer
                // may still answer it, and an answer's receipt or loss while its cancel is on
                // the way to the peer. (A cancel received before the answer's receipt or loss
                // reaches every race the other order does: no check.)
                let peer_has = |r: u32| {
                    steps.iter().any(|g| g.side != p && g.request == Some(r))
                        || theirs.iter().any(|m| m.0 == Some(r))
                };
                steps.iter().filter(|f| f.side == p).all(|f| {
                    let Some(r) = f.request else { return true };
                    let timeout_races_answer = match f.kind {
                        Kind::Timeout { peer_holds } => peer_holds || peer_has(r),
                        _ => false,
                    };
                    let answer_meets_cancel = matches!(f.kind, Kind::Head { class, .. } if class.answer())
                        && theirs.contains(&(Some(r), MsgClass::Cancel));
                    !(timeout_races_answer || answer_meets_cancel)
                })
            }
        }
    }
}

/// The ample set to expand on a FIFO link, given every enabled step's footprint and the two
/// queues (towards the client, towards the server, head first): the smallest of the sets that
/// hold and leave some enabled step out (the head of a queue before a whole side, the client
/// before the server where sizes tie), or `None` (expand every step).
pub(super) fn fifo_ample(steps: &[Footprint], queues: [&[Queued]; 2]) -> Option<FifoAmple> {
    if steps.iter().any(|f| f.kind == Kind::Other) {
        return None;
    }
    let mut best: Option<(usize, FifoAmple)> = None;
    for candidate in [
        FifoAmple::Head(Party::Client),
        FifoAmple::Head(Party::Server),
        FifoAmple::Side(Party::Client),
        FifoAmple::Side(Party::Server),
    ] {
        let size = steps.iter().filter(|f| candidate.keeps(f)).count();
        if size == 0 || size == steps.len() || best.is_some_and(|(n, _)| n <= size) {
            continue;
        }
        if candidate.holds(steps, queues) {
            best = Some((size, candidate));
        }
    }
    best.map(|(_, a)| a)
}
