//! The judge over Streamable HTTP: what a stream, a 202 and an HTTP status order or decide.

use super::*;

/// A record on a Streamable HTTP stream.
fn on(dir: Dir, stream: &str, text: &str) -> Record {
    Record {
        stream: Some(stream.to_string()),
        ..rec(dir, text)
    }
}

const WORK: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":2}}}"#;
const PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}"#;

fn over_http(d: Dialect, rest: Vec<Record>) -> Judgement {
    let mut ctx = Context::new(d);
    ctx.work_method = "tools/call".into();
    let mut r = vec![
        rec(Dir::Note, "transport: http http://127.0.0.1:1/mcp"),
        on(Dir::Sent, "post-1", WORK),
    ];
    r.extend(rest);
    judge(&ctx, &r)
}

/// The 202 to a cancel's POST proves the server read it, but not when against what the
/// request's own stream carries: progress arriving there after the 202 is not judged as
/// sent after the cancel, and the rule is not observable (on stdio the same order breaks
/// it).
#[test]
fn over_http_a_202_orders_nothing_on_other_streams() {
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
    let j = over_http(
        Dialect::Mcp20251125,
        vec![
            on(Dir::Received, "post-1", PROGRESS),
            on(Dir::Sent, "post-2", cancel),
            on(
                Dir::Note,
                "post-2",
                "accepted: 202 Accepted: the server read it",
            ),
            on(Dir::Received, "post-1", PROGRESS),
        ],
    );
    assert!(broken(&j).is_empty(), "{j:?}");
    assert!(
        j.not_observable
            .contains(&InvariantId::NoActivityAfterCancel)
    );
    assert!(j.exercised_in_flight || j.vacuous_because.is_empty());
}

/// MCP 2026-07-28: progress on the standalone stream after the probe closed the request's
/// stream (its cancel) was sent after the server read the close: "MUST NOT send any further
/// message"; the assumption is said.
#[test]
fn over_http_a_message_on_the_get_stream_after_a_close_breaks_the_must() {
    let close = on(Dir::Note, "post-1", "stream-closed: request 2: closed");
    let j = over_http(
        Dialect::Mcp20260728,
        vec![close.clone(), on(Dir::Received, "get-1", PROGRESS)],
    );
    assert_eq!(broken(&j), [InvariantId::NoActivityAfterCancel], "{j:?}");
    assert_eq!(j.status(), Status::Fail);
    assert!(j.assumptions[0].contains("standalone stream"), "{j:?}");
    // Nothing after the close: a pass, and the close was a cancel in flight.
    let mut j = over_http(Dialect::Mcp20260728, vec![close]);
    j.claim(true);
    assert_eq!(j.status(), Status::Pass, "{j:?}");
}

/// Progress on the standalone stream after the request's answer came on its own stream:
/// the two are not ordered, so it is not judged (on one stream it breaks the rule).
#[test]
fn over_http_progress_on_another_stream_after_the_answer_is_not_judged() {
    let answer = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
    let j = over_http(
        Dialect::Mcp20251125,
        vec![
            on(Dir::Received, "post-1", answer),
            on(Dir::Received, "get-1", PROGRESS),
        ],
    );
    assert!(broken(&j).is_empty(), "{j:?}");
    assert!(
        j.not_observable
            .contains(&InvariantId::NoActivityAfterAnswer)
    );
    let j = over_http(
        Dialect::Mcp20251125,
        vec![
            on(Dir::Received, "post-1", answer),
            on(Dir::Received, "post-1", PROGRESS),
        ],
    );
    assert_eq!(broken(&j), [InvariantId::NoActivityAfterAnswer], "{j:?}");
}

/// A request never answered, while the same work sent after a cancel naming another id
/// was: over HTTP judged dropped (`exact-id-match`) only if the server had taken the first
/// (its POST answered) before the control was sent; POSTs are read in any order.
#[test]
fn over_http_a_request_is_judged_dropped_only_if_taken_before_its_control() {
    let mut ctx = Context::new(Dialect::Mcp20251125);
    ctx.work_method = "tools/call".into();
    let work = |id: i64| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow"}}}}"#)
    };
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#;
    let taken = |s: &str| on(Dir::Note, s, "accepted: 200 OK: the server took tools/call");
    let session = |first_taken: bool| {
        let mut r = vec![
            rec(Dir::Note, "transport: http http://127.0.0.1:1/mcp"),
            on(Dir::Sent, "post-1", &work(1)),
            on(Dir::Sent, "post-2", cancel),
            on(
                Dir::Note,
                "post-2",
                "accepted: 202 Accepted: the server read it",
            ),
        ];
        if first_taken {
            r.push(taken("post-1"));
        }
        r.push(on(Dir::Sent, "post-3", &work(2)));
        r.push(taken("post-3"));
        r.push(on(
            Dir::Received,
            "post-3",
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
        ));
        judge(&ctx, &r)
    };
    let j = session(true);
    assert_eq!(broken(&j), [InvariantId::ExactIdMatch], "{j:?}");
    let j = session(false);
    assert!(broken(&j).is_empty(), "{j:?}");
}

/// An HTTP error status to the handshake's POST (a server of another protocol version answers
/// so) is the refused handshake, as an error answer is: nothing tested, no session error; one
/// to another POST is a session error.
#[test]
fn over_http_an_error_status_to_the_handshake_is_a_refused_handshake() {
    let ctx = Context::new(Dialect::Mcp20260728);
    let discover = r#"{"jsonrpc":"2.0","id":"0","method":"server/discover","params":{}}"#;
    let refused = |stream: &str| {
        let r = vec![
            rec(Dir::Note, "transport: http http://127.0.0.1:1/mcp"),
            on(Dir::Sent, "post-1", discover),
            on(
                Dir::Note,
                stream,
                "http-error: 400 Bad Request to server/discover: unsupported protocol version",
            ),
        ];
        judge(&ctx, &r)
    };
    let j = refused("post-1");
    let said = j.handshake_refused.clone().unwrap_or_default();
    assert!(
        said.contains("400 Bad Request") && said.contains("unsupported protocol version"),
        "{j:?}"
    );
    assert!(j.errors.is_empty(), "{j:?}");
    assert_eq!(j.status().as_str(), "vacuous", "{j:?}");
    let other = refused("post-2");
    assert_eq!(other.handshake_refused, None);
    assert_eq!(other.errors.len(), 1, "{other:?}");
}
