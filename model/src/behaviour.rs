//! Peer behaviours: what the specs allow, and named faults, each a real bug class.
//!
//! A behaviour acts in one role: a responder behaviour decides what a party does with the
//! requests it receives and the cancels for them; a requester behaviour decides how a party
//! sends, cancels and resolves its own requests. Which invariants a behaviour breaks in each
//! dialect is the checker's knowledge (`cancelcheck_properties::breaks`); here is where it
//! applies.

use crate::dialect::{Dialect, Honouring, ReceiverDuty};
use crate::id::Party;
use core::fmt;
use core::str::FromStr;

/// Which side of a request a behaviour acts on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// Sends requests and cancels.
    Requester,
    /// Receives requests and cancels.
    Responder,
}

/// One named behaviour. `Honour` is the default of both roles.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Behaviour {
    // ---- correct ----
    /// Stops at once and answers as the dialect requires: error -32800 (ACP, ACP RFD, LSP),
    /// `cancelled: true` (ABP), or nothing (MCP). As a requester: follows every rule.
    Honour,
    /// Ignores the cancel, finishes the work and sends the full result (allowed where the
    /// receiver MAY cancel: ACP, LSP, and MCP 2025-11-25's "MAY ignore").
    FinishFirst,
    /// Stops at once and answers with a valid partial result (ACP, ACP RFD, LSP).
    Partial,
    // ---- faulty responders ----
    /// Answers a cancelled request with error -32800 where the dialect says not to (MCP).
    AnswersAfterCancel,
    /// Stops a cancelled request and never answers it: the requester, which waits, hangs.
    NeverAnswersCancelled,
    /// Answers the cancel at once but lets the work run on, so its result is sent too.
    AnswersTwice,
    /// Answers a cancelled request with -32603 instead of -32800.
    WrongErrorCode,
    /// Echoes request ids coerced to the other JSON type (`7` answered as `"7"`).
    IdTypeConfusion,
    /// Treats a cancel for id `0` as absent (a truthiness check) and so ignores it.
    IgnoresCancelForIdZero,
    /// One cancel stops every request in progress, not just the one it names.
    CancelCancelsAll,
    /// Looks a received cancel's id up among the requests it sent itself, and gives up its own
    /// request with that id instead of the peer's (a cancel routed to the wrong direction).
    CancelHitsOwnRequest,
    /// Answers the cancel notification itself (with a "method not found" error, id `null`).
    AnswersCancelNotification,
    /// Sends a progress notification for a request after its answer.
    ActivityAfterAnswer,
    /// MCP: on a cancel keeps the work running and reporting progress, then drops it without
    /// answering (what real servers do when a handler ignores its cancellation signal).
    ProgressAfterCancel,
    /// Crashes on a cancel for an unknown (e.g. already answered) or malformed request.
    CrashesOnUnknownCancel,
    /// Stops a cancelled request but never frees its entry.
    LeaksCancelled,
    /// ABP: acknowledges `cancelled: true` but lets the call complete normally.
    AckDisagreesWithOutcome,
    /// ABP: a second cancel of a cancelled call answers `cancelled: false` (the spec's sample code).
    SecondCancelNotCancelled,
    // ---- faulty requesters ----
    /// MCP: delivers an answer that arrives after its cancel to the application.
    DeliversLateAnswer,
    /// Reuses the id of a request it gave up on while that request's answer may still arrive.
    ReusesLiveId,
    /// Cancels `initialize` when its connect timeout fires.
    CancelsInitialize,
    /// ACP RFD: sends `$/cancelRequest` though the peer did not declare support.
    CancelsWithoutCapability,
    /// MCP 2026-07-28: the server cancels its own requests, though only the client may cancel.
    ServerCancels,
    // ---- faulty handlers of request trees ----
    /// The client, handling a request of the server's that gets cancelled, does not cancel the
    /// requests it sent on that request's behalf: the root's grandchildren run on.
    ForgetsGrandchild,
    /// Answers a request (cancelled or finished) before the requests it sent on its behalf are
    /// resolved.
    AnswersParentFirst,
    /// On a cancel, cancels the children of every request it handles, not only of the one
    /// cancelled: a sibling's subtree is hit.
    CancelsSiblingSubtree,
    /// Answers a cancel but lets the work run on, and that work keeps sending nested requests.
    SpawnsAfterCancel,
    /// The client stops a nested request of the server's that the server cancels (a
    /// permission request after the prompt's cancel) and never answers it.
    LeavesChildPending,
    /// The agent answers a prompt turn its client cancelled (`session/cancel`) with error
    /// -32800, the generic cancel's answer, instead of the result `{"stopReason":"cancelled"}`
    /// that ends a cancelled prompt turn.
    CancelledPromptAsError,
    /// Handles a request by sending one of its own on its behalf (as a forwarding proxy
    /// forwards a request under a new id), and, when the request it handles is cancelled,
    /// passes the cancel on under the id it received instead of the id it gave its own request:
    /// the cancel names a request its receiver never got, or a different one.
    ForwardsCancelUnrewritten,
    /// Gives a request up (its application cancels it, or its timeout fires) without sending
    /// the cancel that tells the receiver, which works on for nothing.
    GivesUpSilently,
    /// Cancels a request whose answer it has already received (a cancel that does not check
    /// whether the request is still in progress).
    CancelsAfterAnswer,
    /// Sends its requests as soon as it has sent `initialize`, without waiting for the answer.
    SendsBeforeInitialize,
    /// ABP: forgets a call once it has answered it, so a cancel for a completed call is
    /// answered "Operation not found" instead of "Operation already completed".
    ForgetsCompletedCall,
    /// ACP: the client, having cancelled a prompt turn (`session/cancel`), answers the turn's
    /// pending permission requests as their work ends (`selected`) instead of `cancelled`.
    SelectsAfterCancel,
    /// LSP: gives a request up on its own with `ServerCancelled` (-32802), though the request
    /// does not support being server cancellable (the code kept for those that do).
    MisusesServerCancelled,
    /// MCP 2025-11-25: cancels a task-augmented request with `notifications/cancelled`
    /// instead of the task's own cancel, `tasks/cancel`.
    CancelsTaskByNotification,
    // ---- faulty servers on Streamable HTTP ----
    /// MCP 2026-07-28: ignores the close of a request's stream (the cancel there), keeps
    /// working and answers (and reports progress on the standalone GET stream).
    WorksAfterClose,
    /// MCP 2025-11-25: takes a lost stream for a cancel and drops the request, which the
    /// client, resuming the stream, still waits for.
    CancelsOnDisconnect,
}

/// Everything known about one behaviour: the rows of `cancelcheck behaviors`.
#[derive(Debug)]
pub struct BehaviourInfo {
    /// The behaviour.
    pub behaviour: Behaviour,
    /// Stable kebab-case name.
    pub name: &'static str,
    /// Which role it acts in.
    pub role: Role,
    /// One sentence: what it does.
    pub summary: &'static str,
}

macro_rules! table {
    ($( $b:ident, $name:literal, $role:ident, $summary:literal; )*) => {
        static INFO: &[BehaviourInfo] = &[
            $( BehaviourInfo {
                behaviour: Behaviour::$b,
                name: $name,
                role: Role::$role,
                summary: $summary,
            }, )*
        ];
    };
}

table! {
    Honour, "honour", Responder, "stop at once and answer as the dialect requires";
    FinishFirst, "finish-first", Responder, "ignore the cancel, finish and send the full result";
    Partial, "partial", Responder, "stop at once and answer with a partial result";
    AnswersAfterCancel, "answers-after-cancel", Responder, "answer a cancelled request with -32800 where no answer is owed";
    NeverAnswersCancelled, "never-answers-cancelled", Responder, "stop a cancelled request and never answer it";
    AnswersTwice, "answers-twice", Responder, "answer the cancel at once and the finished work again";
    WrongErrorCode, "wrong-error-code", Responder, "answer a cancelled request with -32603 (and one it gives up on its own)";
    IdTypeConfusion, "id-type-confusion", Responder, "answer 7 as \"7\" (ids coerced between number and string)";
    IgnoresCancelForIdZero, "ignores-cancel-for-id-zero", Responder, "ignore a cancel whose id is 0 (truthiness check)";
    CancelCancelsAll, "cancel-cancels-all", Responder, "one cancel stops every request in progress";
    CancelHitsOwnRequest, "cancel-hits-own-request", Responder, "take a cancel for its own outgoing request with the same id";
    AnswersCancelNotification, "answers-cancel-notification", Responder, "answer the cancel notification with an error";
    ActivityAfterAnswer, "activity-after-answer", Responder, "send progress for a request after its answer";
    ProgressAfterCancel, "progress-after-cancel", Responder, "keep working and sending progress after the cancel, never answering";
    CrashesOnUnknownCancel, "crashes-on-unknown-cancel", Responder, "crash on a cancel for an unknown or finished request, or a malformed one";
    LeaksCancelled, "leaks-cancelled", Responder, "stop a cancelled request but never free its entry";
    AckDisagreesWithOutcome, "ack-disagrees-with-outcome", Responder, "acknowledge cancelled:true, then complete the call normally";
    SecondCancelNotCancelled, "second-cancel-not-cancelled", Responder, "answer a repeated cancel of a cancelled call with cancelled:false";
    DeliversLateAnswer, "delivers-late-answer", Requester, "deliver an answer that arrives after the cancel to the application";
    ReusesLiveId, "reuses-live-id", Requester, "reuse a given-up request's id while its answer may still arrive";
    CancelsInitialize, "cancels-initialize", Requester, "cancel initialize when the connect timeout fires";
    CancelsWithoutCapability, "cancels-without-capability", Requester, "send a cancel the peer did not declare support for";
    ServerCancels, "server-cancels", Requester, "the server cancels its own requests where only the client may cancel";
    ForgetsGrandchild, "forgets-grandchild", Responder, "leave the requests sent for a cancelled request running (the root's grandchildren)";
    AnswersParentFirst, "answers-parent-first", Responder, "answer a request before the requests sent on its behalf are resolved";
    CancelsSiblingSubtree, "cancels-sibling-subtree", Responder, "on a cancel, cancel the children of every request it handles";
    SpawnsAfterCancel, "spawns-after-cancel", Responder, "answer a cancel but keep working, sending nested requests";
    LeavesChildPending, "leaves-child-pending", Responder, "never answer a nested request its requester cancelled";
    CancelledPromptAsError, "cancelled-prompt-as-error", Responder, "answer a cancelled prompt turn with error -32800 instead of stopReason: cancelled";
    ForwardsCancelUnrewritten, "forwards-cancel-unrewritten", Responder, "pass a cancel on to a nested request under the cancelled request's id (a proxy that does not rewrite the id)";
    GivesUpSilently, "gives-up-silently", Requester, "give a request up (its application's cancel, its timeout) without sending the cancel";
    CancelsAfterAnswer, "cancels-after-answer", Requester, "send a cancel for a request whose answer it already received";
    SendsBeforeInitialize, "sends-before-initialize", Requester, "send requests before initialize is answered";
    ForgetsCompletedCall, "forgets-completed-call", Responder, "answer a cancel for a completed call 'Operation not found' (the call forgotten once answered)";
    SelectsAfterCancel, "selects-after-cancel", Responder, "answer a permission request of a prompt turn it cancelled with outcome selected instead of cancelled";
    MisusesServerCancelled, "misuses-server-cancelled", Responder, "give a request up on its own with ServerCancelled (-32802), which the request does not support";
    CancelsTaskByNotification, "cancels-task-by-notification", Requester, "cancel a task-augmented request with notifications/cancelled instead of tasks/cancel";
    WorksAfterClose, "works-after-close", Responder, "on Streamable HTTP, keep working and answering after the request's stream closed (its cancel)";
    CancelsOnDisconnect, "cancels-on-disconnect", Responder, "on Streamable HTTP, take a lost stream for a cancel and drop the request the client resumes";
}

impl Behaviour {
    /// Every behaviour, correct ones first, in a fixed order.
    pub fn all() -> impl Iterator<Item = Behaviour> {
        INFO.iter().map(|i| i.behaviour)
    }

    /// Its row of the table.
    pub fn info(self) -> &'static BehaviourInfo {
        // INFO lists every variant in declaration order.
        &INFO[self as usize]
    }

    /// Stable kebab-case name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The role it acts in.
    pub fn role(self) -> Role {
        self.info().role
    }

    /// The party that behaves so in `dialect`: the server for a responder behaviour, the client
    /// for a requester one; except `ignores-cancel-for-id-zero` where the client's id 0 is its
    /// `initialize`, which nobody may cancel there: the client then has it, as the responder of
    /// the server's first request (id 0, as the server counts from the same first id).
    pub fn party(self, dialect: Dialect) -> Party {
        match self.role() {
            Role::Requester if self == Behaviour::ServerCancels => Party::Server,
            Role::Requester => Party::Client,
            Role::Responder
                if matches!(
                    self,
                    Behaviour::ForgetsGrandchild
                        | Behaviour::LeavesChildPending
                        | Behaviour::SelectsAfterCancel
                ) =>
            {
                Party::Client
            }
            Role::Responder
                if self == Behaviour::IgnoresCancelForIdZero
                    && dialect.rules().initialize_method.is_some() =>
            {
                Party::Client
            }
            Role::Responder => Party::Server,
        }
    }

    /// Whether the behaviour exists in `dialect` (a correct behaviour the dialect allows, or a
    /// fault whose breach the dialect makes observable).
    pub fn applies_to(self, dialect: Dialect) -> bool {
        let r = dialect.rules();
        let must_answer = r.receiver_duty == ReceiverDuty::MustAnswer;
        let text = |b: Behaviour| r.text_faults.contains(&b);
        // ABP's app answers every cancel of a call, and so remembers cancelled calls.
        let acknowledged = r.cancel_shape == crate::dialect::CancelShape::AcknowledgedRequest;
        match self {
            Behaviour::Honour => true,
            Behaviour::FinishFirst => r.honouring == Honouring::May && must_answer,
            Behaviour::Partial => r.partial_results,
            Behaviour::AnswersAfterCancel => !must_answer,
            Behaviour::NeverAnswersCancelled | Behaviour::AnswersTwice => must_answer,
            Behaviour::WrongErrorCode => r.cancel_error_code.is_some(),
            Behaviour::IdTypeConfusion => true,
            // Observable only where a cancel for id 0 is owed more than "MAY" and names an
            // ordinary request: the client's request 0 where there is no `initialize`; else the
            // server's request 0, where the server makes requests and may cancel them.
            Behaviour::IgnoresCancelForIdZero => {
                let owed = !(must_answer && r.honouring == Honouring::May);
                let ordinary = r.initialize_method.is_none()
                    || (r.server_work_method.is_some()
                        && r.cancel_senders == crate::dialect::CancelSenders::Either);
                owed && ordinary
            }
            Behaviour::CancelCancelsAll => true,
            // Only where the server makes requests of its own, whose ids can match the client's,
            // and the client's cancels name ids (ACP's `session/cancel` names a session).
            Behaviour::CancelHitsOwnRequest => {
                r.server_work_method.is_some() && r.session_cancel_method.is_none()
            }
            Behaviour::AnswersCancelNotification => r.json_rpc,
            // Where a text says progress stops at the answer (ACP's session/update, MCP
            // 2025-11-25's progress); the other texts say nothing of it.
            Behaviour::ActivityAfterAnswer => text(self),
            Behaviour::ProgressAfterCancel => !must_answer && r.activity_method.is_some(),
            Behaviour::CrashesOnUnknownCancel => true,
            // Where the text asks the receiver to free what a cancelled request held (not ABP,
            // whose app must remember a cancelled call to answer a repeated cancel).
            Behaviour::LeaksCancelled => {
                (r.honouring == Honouring::Must || !must_answer) && !acknowledged
            }
            Behaviour::AckDisagreesWithOutcome | Behaviour::SecondCancelNotCancelled => {
                acknowledged
            }
            Behaviour::DeliversLateAnswer => !r.requester_waits,
            Behaviour::ReusesLiveId => true,
            Behaviour::CancelsInitialize => {
                r.initialize_method.is_some() && !r.initialize_cancel.while_pending()
            }
            Behaviour::CancelsWithoutCapability => r.negotiated,
            Behaviour::ServerCancels => {
                r.cancel_senders == crate::dialect::CancelSenders::ClientOnly
                    && r.server_work_method.is_some()
            }
            // Where the text asks for the cascade: the receiver cancels "all nested
            // activities" (ACP RFD) or stops processing (MCP), and, for the client's part, where
            // the server may cancel what it asked the client.
            Behaviour::ForgetsGrandchild => {
                r.server_work_method.is_some()
                    && r.cancel_senders == crate::dialect::CancelSenders::Either
                    && text(self)
            }
            Behaviour::SpawnsAfterCancel => r.server_work_method.is_some() && text(self),
            // ACP's prompt turn: the agent answers after its own requests are resolved.
            Behaviour::AnswersParentFirst => text(self),
            // Where a text bounds the cascade by the cancelled request (ACP, ACP RFD).
            Behaviour::CancelsSiblingSubtree => text(self),
            // ACP's permission requests, which the client must answer after a cancel.
            Behaviour::LeavesChildPending => text(self),
            // Where a cancelled request's answer is a result (ACP's prompt turn).
            Behaviour::CancelledPromptAsError => r.cancelled_result,
            // Where a handler sends requests on a request's behalf and may cancel them.
            Behaviour::ForwardsCancelUnrewritten => {
                r.server_work_method.is_some()
                    && r.cancel_senders == crate::dialect::CancelSenders::Either
            }
            // Where the text says a requester that gives up sends a cancel (MCP).
            Behaviour::GivesUpSilently => {
                r.give_up_signal != crate::dialect::GiveUpSignal::Unstated
            }
            // Where the text says a cancel names only a request still in progress (MCP).
            Behaviour::CancelsAfterAnswer => text(self),
            // Where the text says nothing is asked before `initialize` is answered (LSP).
            Behaviour::SendsBeforeInitialize => text(self),
            Behaviour::ForgetsCompletedCall => acknowledged,
            // Where the client cancels a prompt turn by its session (ACP's `session/cancel`).
            Behaviour::SelectsAfterCancel => r.session_cancel_method.is_some(),
            // Where the text keeps a give-up code for requests that support it (LSP).
            Behaviour::MisusesServerCancelled => r.give_up.is_some_and(|g| g.reserved.is_some()),
            // Where a task's cancel is a request of its own (MCP 2025-11-25's `tasks/cancel`).
            Behaviour::CancelsTaskByNotification => r.task_cancel_method.is_some(),
            // Where a stream's close is the cancel, and where it is not (Streamable HTTP).
            Behaviour::WorksAfterClose => r.stream_close_cancels,
            Behaviour::CancelsOnDisconnect => text(self) && !r.stream_close_cancels,
        }
    }
}

impl fmt::Display for Behaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown behaviour name; its text lists the known ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownBehaviour(pub String);

impl fmt::Display for UnknownBehaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown behavior {:?}; expected one of:", self.0)?;
        for b in Behaviour::all() {
            write!(f, " {}", b.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownBehaviour {}

impl FromStr for Behaviour {
    type Err = UnknownBehaviour;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Behaviour::all()
            .find(|b| b.name() == s)
            .ok_or_else(|| UnknownBehaviour(s.to_string()))
    }
}

impl serde::Serialize for Behaviour {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Behaviour {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_declaration_order_and_names_parse() {
        for (i, b) in Behaviour::all().enumerate() {
            assert_eq!(b as usize, i, "{b:?} out of order in INFO");
            assert_eq!(b.name().parse::<Behaviour>().unwrap(), b);
        }
    }

    #[test]
    fn every_fault_applies_somewhere_and_honour_everywhere() {
        for b in Behaviour::all() {
            assert!(
                Dialect::ALL.iter().any(|d| b.applies_to(*d)),
                "{b} applies nowhere"
            );
        }
        assert!(
            Dialect::ALL
                .iter()
                .all(|d| Behaviour::Honour.applies_to(*d))
        );
        assert!(!Behaviour::FinishFirst.applies_to(Dialect::AcpRfd));
    }
}
