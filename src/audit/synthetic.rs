//! Synthetic long sessions, for measuring what `audit` and `watch` keep as a session grows
//! (the benchmark `cargo bench --bench audit`, the test that retained state stays bounded, and
//! `cargo run --release --example long_session` that writes one to a file).
//!
//! [`lsp_session`] is an LSP session in the project's JSONL, recorded between the parties: the
//! handshake, then `pairs` `workspace/executeCommand` requests, each answered, with a few in
//! flight at once ([`IN_FLIGHT`]). Every `cancel_every`-th request is cancelled while in flight
//! and answered -32800 (`RequestCancelled`), except every third of those, answered with a
//! result (it crossed the cancel: the allowed side of the race). Every such session keeps
//! every rule: its verdict is `pass`. The lines are made one at a time, so a session of any
//! length is written holding none of it.

use super::transcript::jsonl_line;

/// How many requests the client keeps unanswered at once, at most.
pub const IN_FLIGHT: u64 = 4;

/// The lines (without newlines) of a synthetic LSP session of `pairs` requests with a cancel
/// every `cancel_every` requests (0: none), in the JSONL `audit` reads; deterministic.
pub fn lsp_session(pairs: u64, cancel_every: u64) -> impl Iterator<Item = String> {
    const OPENING: [(bool, &str); 3] = [
        (
            true,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#,
        ),
        (
            false,
            r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"executeCommandProvider":{"commands":["slow"]}}}}"#,
        ),
        (
            true,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
        ),
    ];
    let cancelled = move |i: u64| cancel_every > 0 && i % cancel_every == 0;
    let steps = (1..=pairs + IN_FLIGHT).flat_map(move |i| {
        let mut out: Vec<(bool, String)> = Vec::with_capacity(3);
        if i <= pairs {
            out.push((
                true,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"workspace/executeCommand","params":{{"command":"slow","arguments":[{{"ms":{}}}]}}}}"#,
                    100 + i % 900
                ),
            ));
            if cancelled(i) {
                out.push((
                    true,
                    format!(r#"{{"jsonrpc":"2.0","method":"$/cancelRequest","params":{{"id":{i}}}}}"#),
                ));
            }
        }
        // The oldest request in flight is answered once the window is full (and at the end).
        if let Some(a) = i.checked_sub(IN_FLIGHT).filter(|&a| a >= 1 && a <= pairs) {
            let answer = if cancelled(a) && (a / cancel_every) % 3 != 0 {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{a},"error":{{"code":-32800,"message":"Request cancelled"}}}}"#
                )
            } else {
                format!(r#"{{"jsonrpc":"2.0","id":{a},"result":{{"done":{a}}}}}"#)
            };
            out.push((false, answer));
        }
        out
    });
    let opening = OPENING.into_iter().map(|(c, m)| (c, m.to_string()));
    // A tenth of a millisecond between messages.
    (opening.chain(steps).zip(1u64..))
        .map(|((client, text), k)| jsonl_line(client, k * 100, text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every request is sent once and answered once, and the cancels come while it is open.
    #[test]
    fn every_request_is_answered_once_after_its_cancel() {
        let lines: Vec<String> = lsp_session(20, 5).collect();
        // The handshake (3), 20 requests, 4 cancels, 20 answers.
        assert_eq!(lines.len(), 3 + 20 + 4 + 20);
        for i in 1..=20 {
            let req = format!(r#""id":{i},"method""#);
            let ans = format!(r#""id":{i},"#);
            let sent = lines.iter().position(|l| l.contains(&req)).expect("sent");
            let answered = lines
                .iter()
                .rposition(|l| l.contains("server-to-client") && l.contains(&ans))
                .expect("answered");
            assert!(sent < answered);
        }
    }
}
