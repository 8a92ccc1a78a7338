use super::*;

mod http;

/// MCP 2026-07-28: nothing may follow a cancel the server has read. An answer before the
/// barrier's answer may have crossed the cancel; one after it was sent after the cancel
/// was read.
fn session(answer_after_barrier: bool) -> Vec<Record> {
    let work = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    let barrier = r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"ping"}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let pong = r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","result":{}}"#;
    let mut r = vec![
        rec(Dir::Sent, work),
        rec(Dir::Sent, cancel),
        rec(Dir::Sent, barrier),
    ];
    if answer_after_barrier {
        r.push(rec(Dir::Received, pong));
        r.push(rec(Dir::Received, answer));
    } else {
        r.push(rec(Dir::Received, answer));
        r.push(rec(Dir::Received, pong));
    }
    r
}

#[test]
fn the_barrier_tells_a_crossing_from_an_answer_after_the_cancel() {
    let ctx = Context::new(Dialect::Mcp20260728);
    let crossed = judge(&ctx, &session(false));
    assert_eq!(crossed.status(), Status::Pass, "{:?}", crossed.verdict);
    let after = judge(&ctx, &session(true));
    assert_eq!(after.status(), Status::Fail);
    assert_eq!(
        after.verdict.violations[0].invariant,
        InvariantId::NoAnswerAfterCancel
    );
}

#[test]
fn an_answer_that_says_cancelled_proves_the_cancel_was_read() {
    let ctx = Context::new(Dialect::Mcp20260728);
    let mut r = session(false);
    r[3] = rec(
        Dir::Received,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#,
    );
    let j = judge(&ctx, &r);
    assert_eq!(j.status(), Status::Fail);
}

/// An error answer that does not say "cancelled", before the barrier's answer, crossed the
/// cancel or was caused by it: not decidable, never a pass; sooner than the declared
/// shortest duration of the work, caused by it, with that assumption named.
#[test]
fn an_error_answer_before_the_barrier_is_not_decidable_unless_sooner_than_the_work() {
    let ctx = Context::new(Dialect::Mcp20260728);
    let zero = r#"{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"Request cancelled"}}"#;
    let mut r = session(false);
    r[3] = rec(Dir::Received, zero);
    let j = judge(&ctx, &r);
    assert_eq!(j.status(), Status::Vacuous, "{:?}", j.verdict);
    assert!(
        j.vacuous_because[0].starts_with("not decidable: "),
        "{:?}",
        j.vacuous_because
    );
    // Work that takes at least 200 ms, answered 5 ms after it was sent.
    let declared = format!("{}: {}", note::MIN_WORK, min_work_note(200));
    let mut timed = vec![rec(Dir::Note, &declared)];
    timed.extend(r.iter().cloned());
    timed[4].t_us = 5_000;
    let j = judge(&ctx, &timed);
    assert_eq!(broken(&j), [InvariantId::NoAnswerAfterCancel]);
    assert!(
        j.assumptions[0].contains("sooner than the 200 ms"),
        "{:?}",
        j.assumptions
    );
    assert!(j.vacuous_because.is_empty());
    // Answered later than that: not decidable still.
    timed[4].t_us = 250_000;
    let j = judge(&ctx, &timed);
    assert_eq!(j.status(), Status::Vacuous, "{:?}", j.verdict);
    // A result that crossed the cancel is the allowed side, as before.
    assert_eq!(judge(&ctx, &session(false)).status(), Status::Pass);
}

/// An ACP session with opaque session id `"s-opaque"`: `initialize` (1, answered with
/// cancellation declared, as the RFD asks) and the prompt (2).
fn acp_opening() -> Vec<Record> {
    let mut r = acp_initialized();
    r.push(rec(
        Dir::Sent,
        r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s-opaque","prompt":[]}}"#,
    ));
    r
}

/// `initialize` (1), answered with cancellation declared, as the RFD asks.
fn acp_initialized() -> Vec<Record> {
    vec![
        rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
        ),
        rec(
            Dir::Received,
            r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"cancellation":{"request":true}}}}"#,
        ),
    ]
}

/// The agent's permission request 0 naming `session`.
fn asks(session: &str) -> Record {
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{{"sessionId":"{session}","options":[]}}}}"#
    );
    rec(Dir::Received, &text)
}

const SESSION_CANCEL: &str =
    r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s-opaque"}}"#;
const PERMISSION_CANCELLED: &str =
    r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}"#;
const PROMPT_CANCELLED: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}"#;
const PROMPT_ENDED: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}"#;
const BARRIER: &str = r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"b"}"#;
const BARRIER_ANSWERED: &str =
    r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","error":{"code":-32601,"message":"no"}}"#;

fn broken(j: &Judgement) -> Vec<InvariantId> {
    j.verdict.violations.iter().map(|v| v.invariant).collect()
}

/// Asserts that `j` found exactly `finding` (the invariant broken and the status it makes),
/// or nothing.
fn assert_found(j: &Judgement, finding: Option<(InvariantId, &str)>) {
    match finding {
        Some((inv, status)) => {
            assert_eq!(broken(j), [inv], "{:?}", j.verdict);
            assert_eq!(j.status().as_str(), status);
        }
        None => assert_eq!(j.status(), Status::Pass, "{:?}", j.verdict),
    }
}

/// ACP: the agent's permission request names the prompt's session, so it is the prompt's
/// child. A prompt answered before the probe had sent its answer to that request was
/// answered with it unresolved; one answered after may have read it (the allowed side).
#[test]
fn a_prompt_answered_before_its_permission_request_was_answered_breaks_children_before_parent() {
    let ctx = Context::new(Dialect::Acp);
    for prompt_first in [true, false] {
        let mut r = acp_opening();
        r.extend([asks("s-opaque"), rec(Dir::Sent, SESSION_CANCEL)]);
        let (a, b) = (
            rec(Dir::Received, PROMPT_CANCELLED),
            rec(Dir::Sent, PERMISSION_CANCELLED),
        );
        if prompt_first {
            r.extend([a, b]);
        } else {
            r.extend([b, a]);
        }
        let j = judge(&ctx, &r);
        assert!(j.events.iter().any(|e| matches!(
            e,
            Event::Output {
                party: Party::Server,
                output: Output::Nested { .. }
            }
        )));
        assert!(
            !j.not_observable
                .contains(&InvariantId::ChildrenBeforeParent)
        );
        let finding = (InvariantId::ChildrenBeforeParent, "fail");
        assert_found(&j, prompt_first.then_some(finding));
    }
}

/// ACP: `session/cancel` cancels the prompt turn of the session it names, and nothing in
/// another: an agent that ends its turn `end_turn` after a cancel naming another session
/// (or the model's own `sess-2`) did right; after one naming its session, wrong.
#[test]
fn session_cancel_cancels_only_the_turn_of_the_session_it_names() {
    let ctx = Context::new(Dialect::Acp);
    for (session, finding) in [
        (
            "s-opaque",
            Some((InvariantId::PromptCancelledStopReason, "fail")),
        ),
        ("sess-2", None),
    ] {
        let mut r = acp_opening();
        let cancel = format!(
            r#"{{"jsonrpc":"2.0","method":"session/cancel","params":{{"sessionId":"{session}"}}}}"#
        );
        r.extend([
            rec(Dir::Sent, &cancel),
            rec(Dir::Sent, BARRIER),
            rec(Dir::Received, BARRIER_ANSWERED),
            rec(Dir::Received, PROMPT_ENDED),
        ]);
        assert_found(&judge(&ctx, &r), finding);
    }
}

/// ACP RFD: a request the agent sends on behalf of a prompt after the barrier proved it had
/// read the prompt's cancel breaks no-child-after-cancel; one sent before that proof may
/// have crossed the cancel.
#[test]
fn a_request_sent_after_the_cancel_was_read_breaks_no_child_after_cancel() {
    // The probe's slow request in both ACP dialects.
    let mut ctx = Context::new(Dialect::AcpRfd);
    ctx.work_method = "session/prompt".into();
    for after_barrier in [true, false] {
        let mut r = acp_opening();
        r.extend([rec(Dir::Sent, SESSION_CANCEL), rec(Dir::Sent, BARRIER)]);
        if after_barrier {
            r.extend([rec(Dir::Received, BARRIER_ANSWERED), asks("s-opaque")]);
        } else {
            r.extend([asks("s-opaque"), rec(Dir::Received, BARRIER_ANSWERED)]);
        }
        r.extend([
            rec(Dir::Sent, PERMISSION_CANCELLED),
            rec(Dir::Received, PROMPT_CANCELLED),
        ]);
        let finding = after_barrier.then_some((InvariantId::NoChildAfterCancel, "fail"));
        assert_found(&judge(&ctx, &r), finding);
    }
}

/// A request that names no session, a session of no open prompt, or one of two open
/// prompts is left unlinked, and the rules of request trees are then not observable. A
/// session id is opaque: `sess-2` does not name request 2.
#[test]
fn an_unlinked_request_makes_the_rules_of_request_trees_not_observable() {
    let ctx = Context::new(Dialect::Acp);
    let second = rec(
        Dir::Sent,
        r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s-opaque","prompt":[]}}"#,
    );
    let no_session = rec(
        Dir::Received,
        r#"{"jsonrpc":"2.0","id":0,"method":"terminal/create","params":{"command":"ls"}}"#,
    );
    for (extra, request) in [
        (None, no_session),
        (None, asks("sess-2")),
        (Some(second), asks("s-opaque")),
    ] {
        let mut r = acp_opening();
        r.extend(extra);
        // Answered before the probe answers the agent: decided only if linked.
        r.extend([
            request,
            rec(Dir::Sent, SESSION_CANCEL),
            rec(Dir::Received, PROMPT_CANCELLED),
        ]);
        let j = judge(&ctx, &r);
        assert!(
            j.not_observable
                .contains(&InvariantId::ChildrenBeforeParent),
            "{r:?}"
        );
        assert!(broken(&j).is_empty(), "{:?}", j.verdict);
        assert!(!j.events.iter().any(|e| matches!(
            e,
            Event::Output {
                output: Output::Nested { .. },
                ..
            }
        )));
    }
    // Linked, the same order is a finding, and the rule is observable.
    let mut r = acp_opening();
    r.extend([
        asks("s-opaque"),
        rec(Dir::Sent, SESSION_CANCEL),
        rec(Dir::Received, PROMPT_CANCELLED),
    ]);
    let j = judge(&ctx, &r);
    assert_eq!(broken(&j), [InvariantId::ChildrenBeforeParent]);
    assert_eq!(j.not_observable, not_observable(Dialect::Acp));
    // A turn never cancelled, answered while its request is open, is not judged.
    let mut r = acp_opening();
    r.extend([asks("s-opaque"), rec(Dir::Received, PROMPT_ENDED)]);
    assert!(broken(&judge(&ctx, &r)).is_empty());
}

/// ACP: a `session/update` with a turn's content naming the session of a prompt already
/// answered, in a turn the probe had cancelled (`session/cancel`, which the answer's
/// `cancelled` proves read), came after that answer: a MUST ("it MUST ensure that it does so
/// before responding to the session/prompt request"). After the answer of a turn never
/// cancelled no sentence binds the agent, and nothing is judged; one about the session itself
/// (its commands) may come at any time; one naming another session (`sess-2`, whatever its
/// text) is about no prompt of the probe's.
#[test]
fn a_turn_update_after_the_prompt_is_answered_is_activity_after_answer() {
    let ctx = Context::new(Dialect::Acp);
    let update = |session: &str, kind: &str| {
        let text = format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{{"sessionUpdate":"{kind}"}}}}}}"#
        );
        rec(Dir::Received, &text)
    };
    for (u, after) in [
        (update("s-opaque", "agent_message_chunk"), true),
        (update("s-opaque", "available_commands_update"), false),
        (update("sess-2", "agent_message_chunk"), false),
    ] {
        let mut r = acp_opening();
        r.extend([
            rec(Dir::Sent, SESSION_CANCEL),
            rec(Dir::Received, PROMPT_CANCELLED),
            u.clone(),
        ]);
        let finding = after.then_some((InvariantId::NoActivityAfterAnswer, "fail"));
        assert_found(&judge(&ctx, &r), finding);
        // The same update after the answer of a turn never cancelled.
        let mut r = acp_opening();
        r.extend([rec(Dir::Received, PROMPT_ENDED), u]);
        assert_found(&judge(&ctx, &r), None);
    }
}

/// Whether the judge fed the checker the peer's giving up of a request on its own.
fn gave_up(j: &Judgement) -> bool {
    j.events.iter().any(|e| {
        matches!(
            e,
            Event::Input {
                party: Party::Server,
                input: Input::InternalCancel(_)
            }
        )
    })
}

/// The prompt of [`acp_opening`] in `d`, answered with `answer` (the `result` or `error`
/// member), after the probe's cancel for it and a barrier when `cancelled`.
fn prompt_answered(d: Dialect, cancelled: bool, answer: &str) -> Judgement {
    let mut ctx = Context::new(d);
    ctx.work_method = "session/prompt".into();
    let mut r = acp_opening();
    if cancelled {
        let cancel = match d {
            Dialect::Acp => {
                r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}"#
            }
            _ => r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}"#,
        };
        // The barrier's answer proves the agent read the cancel before it answered.
        r.extend([
            rec(Dir::Sent, cancel),
            rec(Dir::Sent, BARRIER),
            rec(Dir::Received, BARRIER_ANSWERED),
        ]);
    }
    r.push(rec(
        Dir::Received,
        &format!(r#"{{"jsonrpc":"2.0","id":2,{answer}}}"#),
    ));
    judge(&ctx, &r)
}

const CANCELLED_ERROR: &str = r#""error":{"code":-32800,"message":"Cancelled"}"#;
const CANCELLED_STOP: &str = r#""result":{"stopReason":"cancelled"}"#;
/// LSP's ServerCancelled: "the server cancelled the request", in another code than -32800.
const SERVER_CANCELLED_ERROR: &str = r#""error":{"code":-32802,"message":"Server cancelled"}"#;
const INTERNAL_ERROR: &str = r#""error":{"code":-32603,"message":"Internal error"}"#;

/// ACP and the ACP RFD: an answer that says "cancelled" (error -32800, or the prompt turn's
/// `stopReason: cancelled`) to a request the probe never cancelled is the agent giving it up
/// on its own, which the texts let it do ("SHOULD: ... Send the same -32800 (Cancelled) error
/// response"): internal cancellation, not a cancel meant for another request.
#[test]
fn a_cancelled_answer_to_a_request_nobody_cancelled_is_internal_cancellation() {
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        for answer in [CANCELLED_ERROR, CANCELLED_STOP] {
            let j = prompt_answered(d, false, answer);
            assert_found(&j, None);
            assert!(gave_up(&j), "{d} {answer}");
        }
    }
}

/// A give-up answered with LSP's code for a request the server cancelled (-32802) rather
/// than -32800 breaks `internal-cancel-code` (a SHOULD), which the wire then shows though it
/// cannot decide the rule in general: an answer with an ordinary error code (-32603) may be
/// a failure as well as a give-up, so the rule stays not observable and nothing is flagged.
#[test]
fn a_give_up_answered_with_another_cancel_code_breaks_internal_cancel_code() {
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        let j = prompt_answered(d, false, SERVER_CANCELLED_ERROR);
        assert_found(&j, Some((InvariantId::InternalCancelCode, "warn")));
        assert!(!j.not_observable.contains(&InvariantId::InternalCancelCode));
        let j = prompt_answered(d, false, INTERNAL_ERROR);
        assert_found(&j, None);
        assert!(!gave_up(&j));
        assert!(j.not_observable.contains(&InvariantId::InternalCancelCode));
    }
}

/// LSP: a server that gives a request up on its own answers `ContentModified` (-32801), or
/// `ServerCancelled` (-32802) "only ... for requests that explicitly support being server
/// cancellable", which `workspace/executeCommand` does not: to a request nobody cancelled,
/// either is a give-up, and -32802 breaks `internal-cancel-code` (a SHOULD). -32800 says
/// the client cancelled: to a request nobody cancelled, a cancel meant for another.
#[test]
fn lsp_give_ups_are_content_modified_never_server_cancelled() {
    let ctx = Context::new(Dialect::Lsp);
    let answered_after = |cancel: Option<&str>, answer: &str| {
        let mut r = vec![
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#,
            ),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"c"}}"#,
            ),
        ];
        r.extend(cancel.map(|c| rec(Dir::Sent, c)));
        r.push(rec(
            Dir::Received,
            &format!(r#"{{"jsonrpc":"2.0","id":1,{answer}}}"#),
        ));
        judge(&ctx, &r)
    };
    let answered = |answer: &str| answered_after(None, answer);
    let j = answered(SERVER_CANCELLED_ERROR);
    assert_found(&j, Some((InvariantId::InternalCancelCode, "warn")));
    assert!(gave_up(&j));
    let j = answered(r#""error":{"code":-32801,"message":"Content modified"}"#);
    assert_found(&j, None);
    assert!(gave_up(&j));
    // -32800 says the client cancelled. Where the client never sent a cancel, none can have
    // been taken for the wrong request: the server gave the request up on its own, with a code
    // no sentence forbids for that. Once a cancel of another id was sent, it may have been.
    let j = answered(CANCELLED_ERROR);
    assert_found(&j, None);
    assert!(gave_up(&j));
    let other = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9}}"#;
    let j = answered_after(Some(other), CANCELLED_ERROR);
    assert_found(&j, Some((InvariantId::ExactIdMatch, "fail")));
    assert!(!gave_up(&j));
}

/// Soundness: an answer to a request the probe did cancel is judged against that cancel
/// (-32802 breaks `cancel-error-code`, a MUST, as before); and where the text says nothing of
/// internal cancellation (MCP), a -32800 answer to a request nobody cancelled is a cancel
/// meant for another request once one was sent, and an error like any other before.
#[test]
fn only_an_uncancelled_request_in_acp_is_taken_for_internal_cancellation() {
    for d in [Dialect::Acp, Dialect::AcpRfd] {
        let j = prompt_answered(d, true, SERVER_CANCELLED_ERROR);
        assert_found(&j, Some((InvariantId::CancelErrorCode, "fail")));
        assert!(!gave_up(&j));
    }
    let ctx = Context::new(Dialect::Mcp20251125);
    let mut r = vec![
        rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
        ),
        rec(
            Dir::Received,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#,
        ),
    ];
    let j = judge(&ctx, &r);
    assert_found(&j, None);
    assert!(!gave_up(&j));
    r.insert(
        1,
        rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#,
        ),
    );
    let j = judge(&ctx, &r);
    assert_found(&j, Some((InvariantId::ExactIdMatch, "fail")));
    assert!(!gave_up(&j));
}

/// Once the probe has cancelled one request, another answered "cancelled" may have been
/// given up on its own (allowed) or stopped by that cancel (`exact-id-match`, a MUST): the
/// wire cannot tell, so neither that rule nor `internal-cancel-code` is reported, broken or
/// held, in the scenario.
#[test]
fn a_give_up_after_a_cancel_of_another_request_decides_neither_reading() {
    let second = rec(
        Dir::Sent,
        r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s-other","prompt":[]}}"#,
    );
    let cancel = rec(
        Dir::Sent,
        r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}"#,
    );
    let mut ctx = Context::new(Dialect::AcpRfd);
    ctx.work_method = "session/prompt".into();
    for answer in [CANCELLED_ERROR, SERVER_CANCELLED_ERROR] {
        let mut r = acp_opening();
        r.extend([
            second.clone(),
            cancel.clone(),
            rec(Dir::Sent, BARRIER),
            rec(Dir::Received, BARRIER_ANSWERED),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"Cancelled"}}"#,
            ),
            rec(
                Dir::Received,
                &format!(r#"{{"jsonrpc":"2.0","id":3,{answer}}}"#),
            ),
        ]);
        let j = judge(&ctx, &r);
        assert_found(&j, None);
        assert!(gave_up(&j));
        for i in [InvariantId::ExactIdMatch, InvariantId::InternalCancelCode] {
            assert!(j.not_observable.contains(&i), "{answer}: {i}");
        }
    }
    // ACP: after the probe's session/cancel of one session's turn, a turn of another session
    // ending `cancelled` is a correct give-up or a cancel that hit the wrong turn, alike.
    let mut ctx = Context::new(Dialect::Acp);
    ctx.work_method = "session/prompt".into();
    let mut r = acp_opening();
    r.extend([
        second.clone(),
        rec(Dir::Sent, SESSION_CANCEL),
        rec(Dir::Sent, BARRIER),
        rec(Dir::Received, BARRIER_ANSWERED),
        rec(Dir::Received, PROMPT_CANCELLED),
        rec(
            Dir::Received,
            &format!(r#"{{"jsonrpc":"2.0","id":3,{CANCELLED_STOP}}}"#),
        ),
    ]);
    let j = judge(&ctx, &r);
    assert_found(&j, None);
    assert!(gave_up(&j));
    for i in [InvariantId::ExactIdMatch, InvariantId::InternalCancelCode] {
        assert!(j.not_observable.contains(&i), "acp: {i}");
    }
}

/// MCP: request 1 and the messages of `cancel-during-work` around it, with the answer
/// before or after the cancel was sent; or refused (-32601).
fn work_then_cancel(answer: Option<&str>, before_cancel: bool) -> Vec<Record> {
    let work = rec(
        Dir::Sent,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
    );
    let cancel = rec(
        Dir::Sent,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    let barrier = rec(
        Dir::Sent,
        r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"ping"}"#,
    );
    let pong = rec(
        Dir::Received,
        r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","result":{}}"#,
    );
    let mut r = vec![work];
    let answer = answer.map(|a| rec(Dir::Received, a));
    if before_cancel {
        r.extend(answer.clone());
    }
    r.extend([cancel, barrier, pong]);
    if !before_cancel {
        r.extend(answer);
    }
    r
}

/// A scenario that claims a cancel of a request in flight is vacuous when the work was
/// answered before any cancel was sent, or refused; a cancel sent first exercised it, and a
/// scenario that claims nothing of a request in flight is not vacuous for an early answer.
#[test]
fn an_answer_before_the_cancel_or_a_refusal_makes_the_scenario_vacuous() {
    let ctx = Context::new(Dialect::Mcp20251125);
    let full = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
    let refused = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#;
    let mut j = judge(&ctx, &work_then_cancel(Some(full), true));
    j.claim(true);
    assert_eq!(j.status(), Status::Vacuous);
    assert!(j.vacuous_because[0].contains("before the cancel"), "{j:?}");
    let mut j = judge(&ctx, &work_then_cancel(Some(full), true));
    j.claim(false);
    assert_eq!(j.status(), Status::Pass);
    let mut j = judge(&ctx, &work_then_cancel(None, false));
    j.claim(true);
    assert_eq!(j.status(), Status::Pass);
    assert!(j.exercised_in_flight);
    // Refused, before or after the cancel was sent: never ran (a refusal after the cancel
    // was read is an answer after it, a SHOULD broken, which still warns).
    for before in [true, false] {
        let mut j = judge(&ctx, &work_then_cancel(Some(refused), before));
        j.claim(true);
        assert!(j.errors.is_empty());
        assert!(j.vacuous_because[0].contains("-32601"));
        assert!(!j.exercised_in_flight);
    }
    let mut j = judge(&ctx, &work_then_cancel(Some(refused), true));
    j.claim(true);
    assert_eq!(j.status(), Status::Vacuous, "{j:?}");
}

/// MCP: request "7" and a cancel naming 7, read (the barrier's answer); then the same work
/// again ("8"), answered while "7" never is: "7" was dropped for a cancel of another id
/// (`exact-id-match`), under the assumption named. Answered, even after "8", it was not.
#[test]
fn a_request_never_answered_while_the_same_work_read_after_it_was_is_exact_id_match() {
    let ctx = Context::new(Dialect::Mcp20251125);
    let answer_7 = rec(
        Dir::Received,
        r#"{"jsonrpc":"2.0","id":"7","result":{"content":[]}}"#,
    );
    for answered in [false, true] {
        let mut r = vec![
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","method":"ping"}"#,
            ),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":"cancelcheck-barrier-1","result":{}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":"8","method":"tools/call","params":{}}"#,
            ),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":"8","result":{"content":[]}}"#,
            ),
        ];
        if answered {
            r.push(answer_7.clone());
        }
        let j = judge(&ctx, &r);
        if answered {
            assert_found(&j, None);
            assert!(j.assumptions.is_empty());
        } else {
            assert_found(&j, Some((InvariantId::ExactIdMatch, "fail")));
            assert!(j.assumptions[0].contains("assuming"), "{j:?}");
        }
    }
}

#[test]
fn undecodable_output_and_a_vanished_peer_are_session_errors() {
    let ctx = Context::new(Dialect::Mcp20251125);
    let mut r = vec![rec(Dir::Received, "{\"jsonrpc\":\"2.0\",")];
    r[0].offset = 100;
    r.push(rec(Dir::Note, "peer-gone: the peer exited"));
    let j = judge(&ctx, &r);
    assert_eq!(j.errors[0].kind, "not-json-rpc");
    assert_eq!(j.errors[0].offset, Some(100 + 17));
    // One offset (the stream's, in `offset`), and the message the peer wrote.
    let m = &j.errors[0].message;
    assert!(!m.contains("byte"), "{m}");
    assert!(
        m.ends_with("in the peer's message {\"jsonrpc\":\"2.0\","),
        "{m}"
    );
    assert_eq!(j.errors[1].kind, "peer-gone");
    assert_eq!(j.errors[1].message, "the peer exited");
    assert_eq!(j.status(), Status::Fail);
}

/// The ACP RFD, a work request that is no prompt turn (`_slow`, request 3 and, when
/// `reference`, an uncancelled one before it, 2): `answer` to 3 after the agent was proved to
/// have read its cancel.
fn rfd_result_after_cancel(reference: Option<&str>, answer: &str) -> Judgement {
    let mut ctx = Context::new(Dialect::AcpRfd);
    ctx.work_method = "_slow".into();
    let mut r = acp_initialized();
    if let Some(full) = reference {
        r.push(rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":2,"method":"_slow","params":{}}"#,
        ));
        r.push(rec(
            Dir::Received,
            &format!(r#"{{"jsonrpc":"2.0","id":2,"result":{full}}}"#),
        ));
    }
    r.extend([
        rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","id":3,"method":"_slow","params":{}}"#,
        ),
        rec(
            Dir::Sent,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}"#,
        ),
        rec(Dir::Sent, BARRIER),
        rec(Dir::Received, BARRIER_ANSWERED),
        rec(
            Dir::Received,
            &format!(r#"{{"jsonrpc":"2.0","id":3,"result":{answer}}}"#),
        ),
    ]);
    judge(&ctx, &r)
}

/// The ACP RFD lets a cancelled request's answer hold "partial results" in any form: a result
/// after a cancel read breaks `cancel-honoured` only if it is the very result an uncancelled
/// request of the same work got; unlike it, it is taken for partial results; with nothing to
/// compare it with, not decidable (vacuous, with the fix), never a MUST failure.
#[test]
fn an_rfd_result_after_a_cancel_is_full_only_if_it_is_the_uncancelled_result() {
    let full = r#"{"lines":["a","b","c"]}"#;
    let j = rfd_result_after_cancel(Some(full), full);
    assert_found(&j, Some((InvariantId::CancelHonoured, "fail")));
    assert!(
        j.assumptions.iter().any(|a| a.contains("very result")),
        "{j:?}"
    );
    let j = rfd_result_after_cancel(Some(full), r#"{"lines":["a"]}"#);
    assert_found(&j, None);
    assert!(
        j.assumptions.iter().any(|a| a.contains("partial results")),
        "{j:?}"
    );
    let j = rfd_result_after_cancel(None, full);
    assert!(broken(&j).is_empty(), "{:?}", j.verdict);
    assert_eq!(j.status(), Status::Vacuous, "{j:?}");
    assert!(
        j.vacuous_because
            .iter()
            .any(|v| v.contains("partial from full")),
        "{j:?}"
    );
}

/// LSP: a cancelled request still unanswered when the probe killed the peer for not exiting
/// within `--linger` may yet have been answered: not decidable (`vacuous`, naming the option),
/// never a pass. Answered before the kill, the session is judged as ever.
#[test]
fn a_cancelled_request_unanswered_when_the_peer_was_killed_at_linger_is_not_decided() {
    let ctx = Context::new(Dialect::Lsp);
    let session = |answered: bool| {
        let mut r = vec![
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#,
            ),
            rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"c"}}"#,
            ),
            rec(
                Dir::Sent,
                r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#,
            ),
            rec(Dir::Sent, BARRIER),
            rec(Dir::Received, BARRIER_ANSWERED),
        ];
        if answered {
            r.push(rec(
                Dir::Received,
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}"#,
            ));
        }
        r.push(rec(
            Dir::Note,
            "stdin-closed: the probe closed the peer's stdin",
        ));
        r.push(rec(
            Dir::Note,
            "killed: the peer had not exited 50 ms after its input closed (--linger); it was killed",
        ));
        judge(&ctx, &r)
    };
    let j = session(false);
    assert_eq!(j.status(), Status::Vacuous, "{:?}", j.verdict);
    assert!(
        j.vacuous_because[0].contains("raise --linger"),
        "{:?}",
        j.vacuous_because
    );
    let j = session(true);
    assert_eq!(
        j.status(),
        Status::Pass,
        "{:?} {:?}",
        j.verdict,
        j.vacuous_because
    );
}
