//! The end of a judged session: what was dropped, what could not be decided and why, and
//! the judgement.

use super::*;
use cancelcheck_model::dialect::ReceiverDuty;

impl Judge<'_> {
    /// Why no cancel reached a work request in flight, and what would fix it.
    pub(super) fn why_not_in_flight(&self) -> String {
        if self.withheld && !self.any_cancel {
            return self.declined();
        }
        const FIX: &str = "name a slower one with --method/--params (or a recipe's work), or raise its duration; a peer that answers at once until it is ready needs a recipe's ready wait";
        let cancel = if !self.cancels_at.is_empty() {
            "before the cancel"
        } else {
            "before the scenario's moment to cancel it (no cancel was sent)"
        };
        let Some(w) = self.work.last_answered() else {
            return format!("no work request was in flight when a cancel was sent: {FIX}");
        };
        let (id, ms) = w.id_and_ms();
        let tool = w
            .tool_error
            .as_ref()
            .map(|t| format!(" with a tool error ({t:?})"))
            .unwrap_or_default();
        format!(
            "the work request {id} ({}) was answered{tool} {ms} ms after it was sent, {cancel}: {FIX}",
            self.ctx.work_method
        )
    }

    /// Why a session with a peer that declared no cancel support tested nothing.
    pub(super) fn declined(&self) -> String {
        format!(
            "the peer's initialize answer declares no support for {} (cancellation.request), so the probe held its cancel back (capability-gated binds the sender): the scenario tested nothing; a peer that handles the cancel declares it",
            self.ctx.dialect.rules().cancel_method
        )
    }

    /// A work request no cancel named that the peer answered with a tool's error: the work
    /// fails on its own (a tool it does not have, arguments it refuses), so what a cancel did
    /// to a request of it cannot be told from its answer.
    pub(super) fn failed_on_its_own(&self) -> Option<String> {
        // (An answer with a tool's error keeps its whole entry.)
        let (_, w) = self
            .work
            .whole()
            .find(|(id, w)| w.tool_error.is_some() && !self.cancelled.contains(**id))?;
        let (id, ms) = w.id_and_ms();
        Some(format!(
            "the work request {id} ({}), which no cancel named, was answered with a tool error ({:?}) {ms} ms after it was sent: the work fails on its own, so what a cancel did to it cannot be told; name a request that succeeds and takes a while with --method/--params (or a recipe's work, after the set-up it needs)",
            self.ctx.work_method,
            w.tool_error.as_deref().unwrap_or("")
        ))
    }

    /// Work requests the peer dropped: never answered, never cancelled by the probe, sent
    /// before a cancel (naming something else) that the peer was proved to have read before a
    /// control, the same work sent after that proof, which it answered. On a FIFO stream the
    /// peer read each such request before its control; no time limit tells a dropped request
    /// from slow work, so this rests on an assumption, named in the verdict: the peer answers
    /// the same work in the order it read it. The probe sends every work request of a session
    /// with the same method and params.
    pub(super) fn dropped(&mut self) {
        if self.gone {
            return;
        }
        let answered = |id: &RequestId, w: &WorkTimes| {
            w.answered_us.is_some() && w.tool_error.is_none() && !self.refused.contains(id)
        };
        let mut found = Vec::new();
        // (An unanswered request keeps its whole entry.)
        for (id, w) in self.work.whole() {
            if w.answered_us.is_some() || self.cancelled.contains(*id) || self.refused.contains(id)
            {
                continue;
            }
            let control = if self.http {
                self.work
                    .whole()
                    .find(|&(c, cw)| {
                        answered(c, cw)
                            && cw.after_read_cancel.is_some_and(|k| w.at < k)
                            && cw.taken_before.contains(id)
                    })
                    .map(|(_, cw)| cw.wire.clone())
            } else {
                self.work.first_control(w.at, &self.refused)
            };
            if let Some(control) = control {
                found.push((*id, w.wire.clone(), control));
            }
        }
        for (id, wire, control) in found {
            let name = |w: Option<WireId>| w.map(|w| w.to_json_text()).unwrap_or_default();
            self.assumptions.push(format!(
                "request {} was never answered though {}, the same work read after it and after the peer had read a cancel naming another id, was: judged dropped for that cancel (exact-id-match), assuming the peer answers the same work in the order it read it",
                name(wire),
                name(control)
            ));
            self.server(Output::Dropped(id));
        }
    }

    pub(super) fn finish(mut self) -> Judgement {
        let dialect = self.ctx.dialect;
        // What the server answered 202 it read before the 202, at no moment known against the
        // other streams: told to the checker last, so that nothing is judged after it.
        for k in std::mem::take(&mut self.deferred) {
            self.read(k);
        }
        self.dropped();
        if self.http {
            self.dropped_on_disconnect();
            self.lost_on_resume();
        }
        self.emit(Event::End {
            quiescent: true,
            open_incoming: [0, 0],
        });
        let mut verdict = self.checker.take_verdict();
        // What the wire cannot decide is never reported as broken, nor as passed; a breach the
        // wire shows of a rule it cannot always decide stands. A give-up that may as well have
        // been a cancel taken for the wrong request decides neither rule.
        let shown = verdict.violated();
        let mut hidden = not_observable(dialect);
        if self.http {
            // Over Streamable HTTP the rules of the streams are judged where the wire shows
            // them broken; the rules of what follows a cancel read only so (a 202 proves the
            // read, not when it was among what the other streams carried).
            hidden.retain(|i| !(HTTP_SHOWN_WHEN_BROKEN.contains(i) && shown.contains(*i)));
            // A request answered after its stream dropped (and was resumed) shows what the
            // disconnect did: the work went on, or the answer says it was given up.
            if self.survived_disconnect() {
                hidden.retain(|i| *i != InvariantId::DisconnectNotCancel);
            }
            for i in HTTP_CROSS_STREAM
                .into_iter()
                .chain(self.cross_stream.iter().copied())
            {
                if i.info().application(dialect).is_some()
                    && !shown.contains(i)
                    && !hidden.contains(&i)
                {
                    hidden.push(i);
                }
            }
            hidden.sort();
        }
        if self.ambiguous_give_up {
            if !shown.contains(InvariantId::ExactIdMatch) {
                hidden.push(InvariantId::ExactIdMatch);
                hidden.sort();
            }
        } else {
            hidden.retain(|i| !(SHOWN_WHEN_BROKEN.contains(i) && shown.contains(*i)));
        }
        // A session the record shows ended decides what it left unanswered: never answered.
        if self.ended && !self.http {
            hidden.retain(|i| *i != InvariantId::EventualResolution);
        }
        // The probe's own duties judge the probe; a record shows the client's, but those that
        // depend on what it had read only where it is the client's own.
        let own_judged = self.audit.is_some();
        if self.audit == Some(Vantage::Between) {
            hidden.extend(
                READ_DEPENDENT_DUTIES
                    .into_iter()
                    .filter(|i| i.info().application(dialect).is_some()),
            );
            // An id reused after the earlier request's answer passed by: live or not depends on
            // whether the client had read it. A reuse the record shows live stands.
            if self.reuse_undecided && !shown.contains(InvariantId::NoLiveIdReuse) {
                hidden.push(InvariantId::NoLiveIdReuse);
            }
            hidden.sort();
        }
        // A transcript that holds no handshake (it starts after one) cannot show what was
        // sent before the handshake was answered.
        if self.audit.is_some() && !self.handshake_sent {
            for i in [
                InvariantId::NoRequestBeforeInitialize,
                InvariantId::InitializeNotCancelled,
            ] {
                if i.info().application(dialect).is_some() && !hidden.contains(&i) {
                    hidden.push(i);
                }
            }
            hidden.sort();
        }
        // Work run as tasks the peer created: their answer, cancel and result follow the
        // task's id and its own requests (tasks/get, tasks/result, tasks/cancel), which the
        // judge does not follow; what it would decide from the requests' own answers is not
        // what happened, so it decides nothing.
        if let Some(task) = &self.created_task {
            hidden = InvariantId::all()
                .filter(|i| i.info().application(dialect).is_some())
                .collect();
            self.vacuous_because.push(format!(
                "the peer ran a request as a task (it answered with a CreateTaskResult, task {task:?}): a task's result and cancel follow its own requests (tasks/get, tasks/result, tasks/cancel by the id the peer chose), which the judge does not read; nothing was decided: record or probe the same work without the request's `task` field"
            ));
        }
        verdict.violations.retain(|v| {
            !hidden.contains(&v.invariant)
                && (own_judged || !PROBE_OWN_DUTIES.contains(&v.invariant))
        });
        if self.unlinked {
            // A request of the peer's that names no single open prompt: the rules of request
            // trees cannot be decided for it. One seen broken for a linked request stands.
            let broken = verdict.violated();
            for i in TREE_RULES {
                if i.info().application(dialect).is_some()
                    && !hidden.contains(&i)
                    && !broken.contains(i)
                {
                    hidden.push(i);
                }
            }
            hidden.sort();
        }
        let work_fails = self.failed_on_its_own();
        let not_in_flight = if self.in_flight {
            work_fails.clone()
        } else {
            Some(self.why_not_in_flight())
        };
        // A transcript claims nothing: it exercised cancellation if a cancel crossed the wire
        // naming a request the judge follows.
        let exercised = self.audit.is_some() && self.judged_cancel;
        if self.audit.is_some() && !self.any_cancel {
            self.vacuous_because.push(
                "the transcript holds no cancel, either way: nothing about cancellation was exercised; record a session in which a request is cancelled".to_string(),
            );
        } else if self.audit.is_some() && self.work.is_empty() && !self.judged_cancel {
            self.vacuous_because.push(format!(
                "no request of the judged method ({}) occurs in the session, and no cancel named a request the judge follows: the cancels that crossed were not judged; name the method the cancels name with --method",
                self.ctx.work_method
            ));
        } else if self.audit.is_some() && !self.judged_cancel {
            self.vacuous_because.push(format!(
                "no cancel named a request the judge follows (requests of {}, the handshake, or the server's own requests): the cancels that crossed were not judged; name the method the cancels name with --method",
                self.ctx.work_method
            ));
        }
        // A cancelled request the record leaves unanswered, where the dialect owes it an
        // answer, in a record that does not show the session ended: whether it was answered
        // later is not observable.
        if self.audit.is_some()
            && !self.ended
            && dialect.rules().requester_waits
            && self.vacuous_because.is_empty()
            && let Some(w) = self
                .work
                .whole()
                .find(|(id, w)| self.cancelled.contains(**id) && w.answered_us.is_none())
                .map(|(_, w)| w)
        {
            let (id, _) = w.id_and_ms();
            self.vacuous_because.push(format!(
                "request {id} ({}) was cancelled and the record holds no answer to it, nor the end of the session: whether it was answered is not observable; record the session to its end (LSP's exit, or watch until the server exits)",
                self.ctx.work_method
            ));
        }
        // A cancelled request still owed its answer when the peer was killed for not exiting
        // within --linger: whether it would have answered is not observable.
        if let Some(killed_us) = self.killed_at_us
            && self.audit.is_none()
            && dialect.rules().requester_waits
            && self.vacuous_because.is_empty()
            && let Some(w) = self
                .work
                .whole()
                .find(|(id, w)| self.cancelled.contains(**id) && w.answered_us.is_none())
                .map(|(_, w)| w)
        {
            let (id, _) = w.id_and_ms();
            let waited = killed_us.saturating_sub(w.sent_us) / 1000;
            let longest = self
                .work
                .whole()
                .map(|(_, w)| w.id_and_ms().1)
                .max()
                .unwrap_or(0);
            self.vacuous_because.push(format!(
                "request {id} ({}) was cancelled and still unanswered when the peer was killed for not exiting after its input closed ({waited} ms after the request was sent; the longest work answered in this session took {longest} ms): whether it would have answered is not observable; raise --linger above the work's length",
                self.ctx.work_method
            ));
        }
        if self.audit.is_none() && self.withheld && self.vacuous_because.is_empty() {
            self.vacuous_because.push(self.declined());
        }
        if self.audit.is_none() && self.work.is_empty() && self.vacuous_because.is_empty() {
            // A probe session that never sent its work request tested nothing, whatever it
            // claims; where a session error says why (the peer gone, a timeout), that fails it.
            if let Some(refused) = &self.handshake_refused {
                self.vacuous_because.push(format!(
                    "{refused}: no session opened, so the probe sent no work request; check that the command starts a server of {dialect}, and give what it needs first in a recipe (--recipe FILE: its initialize params, or set-up steps such as an agent's authenticate)"
                ));
            } else if self.errors.is_empty() {
                self.vacuous_because.push(format!(
                    "the probe sent no work request ({}): the session ended before it; check that the command starts a server of {dialect} and what it needs to open a session (a recipe, --recipe FILE)",
                    self.ctx.work_method
                ));
            }
        }
        if self.vacuous_because.is_empty() {
            self.vacuous_because = self.undecided;
        }
        // Where the text owes a cancelled request no answer (MCP), one never answered whose
        // cancel the peer was proved to have read was acted on.
        let acted_on_cancel = self.acted_on_cancel
            || (dialect.rules().receiver_duty != ReceiverDuty::MustAnswer
                && self.work.whole().any(|(id, w)| {
                    self.cancelled.contains(*id)
                        && w.answered_us.is_none()
                        && self
                            .sent
                            .first_cancel(*id)
                            .is_none_or(|k| self.sent.is_read(k))
                }));
        Judgement {
            verdict,
            events: self.events,
            errors: {
                let mut errors = self.errors;
                for (kind, n) in self.errors_more {
                    errors.push(SessionError {
                        kind,
                        offset: None,
                        message: format!("and {n} more {kind} errors after these"),
                    });
                }
                errors
            },
            not_observable: hidden,
            protocol: self.protocol,
            handshake_refused: self.handshake_refused,
            vacuous_because: self.vacuous_because,
            assumptions: self.assumptions,
            exercised_in_flight: exercised,
            not_in_flight,
            work_fails,
            record_ends: Vec::new(),
            acted_on_cancel,
            from_run: Vec::new(),
        }
    }
}
