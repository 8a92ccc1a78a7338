//! What a server answers a request it gives up on its own (`Input::InternalCancel`), by the
//! dialect's give-up code (`DialectRules::give_up`): -32800 in ACP; in LSP `ContentModified`
//! (-32801), never `ServerCancelled` (-32802) but for the fault `misuses-server-cancelled`;
//! and, for a request whose cancel it had read, the cancel's answer.

mod common;

use cancelcheck_model::message::Method;
use cancelcheck_model::{Behaviour, Dialect, Input, Message, Output, Reply, RequestId};
use common::{feed, server};

fn work(id: i64) -> Input {
    Input::Receive(Message::Request {
        id: RequestId::Int(id),
        method: Method::Work { task: false },
    })
}

fn cancel(id: i64) -> Input {
    Input::Receive(Message::Cancel {
        id: RequestId::Int(id),
        session: false,
    })
}

/// The answer among `out`, if one went out.
fn answer(out: &[Output]) -> Option<Reply> {
    out.iter().find_map(|o| match o {
        Output::Send(Message::Response { reply, .. }) => Some(*reply),
        _ => None,
    })
}

#[test]
fn a_request_given_up_on_its_own_is_answered_with_the_dialects_give_up_code() {
    let given_up = |d, b| {
        let mut s = server(d, b);
        feed(&mut s, work(1));
        answer(&feed(&mut s, Input::InternalCancel(RequestId::Int(1))))
    };
    assert_eq!(
        given_up(Dialect::Acp, Behaviour::Honour),
        Some(Reply::Cancelled)
    );
    assert_eq!(
        given_up(Dialect::Lsp, Behaviour::Honour),
        Some(Reply::Error(-32801))
    );
    assert_eq!(
        given_up(Dialect::Lsp, Behaviour::MisusesServerCancelled),
        Some(Reply::Error(-32802))
    );
    // MCP's texts say nothing of it: the driver's input is an anomaly, and nothing is sent.
    assert_eq!(given_up(Dialect::Mcp20251125, Behaviour::Honour), None);
}

/// LSP: a request whose cancel the server read (and runs on, finishing first) is answered as
/// the cancel asks (-32800) when it is given up later, whether the cancel came while it
/// waited for a worker or while it ran.
#[test]
fn a_give_up_after_a_cancel_was_read_is_answered_as_the_cancel_asks() {
    // Read while it waited for the one worker (busy with request 1).
    let mut s = server(Dialect::Lsp, Behaviour::FinishFirst);
    feed(&mut s, work(1));
    feed(&mut s, work(2));
    feed(&mut s, cancel(2));
    feed(&mut s, Input::WorkDone(RequestId::Int(1)));
    let out = feed(&mut s, Input::InternalCancel(RequestId::Int(2)));
    assert_eq!(answer(&out), Some(Reply::Cancelled), "queued");
    // Read while it ran.
    let mut s = server(Dialect::Lsp, Behaviour::FinishFirst);
    feed(&mut s, work(1));
    feed(&mut s, cancel(1));
    let out = feed(&mut s, Input::InternalCancel(RequestId::Int(1)));
    assert_eq!(answer(&out), Some(Reply::Cancelled), "running");
}
