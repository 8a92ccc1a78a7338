//! Task-augmented requests (MCP 2025-11-25): "For task-augmented requests, the `tasks/cancel`
//! request **MUST** be used instead of the `notifications/cancelled` notification". A correct
//! client cancels a task with the task's cancel (`Message::Cancel { session: true }`), and the
//! server answers it with the task's final state (a `CancelAck`): `cancelled`, or `completed`
//! where the task ended first. Elsewhere no request is a task.

mod common;

use cancelcheck_model::message::{Ack, AckReason, Method};
use cancelcheck_model::{
    Behaviour, Command, Dialect, Endpoint, Input, Message, Output, Party, RequestId,
};
use common::{endpoint, feed, server};

fn sent(out: &[Output]) -> Vec<Message> {
    out.iter()
        .filter_map(|o| match o {
            Output::Send(m) => Some(*m),
            _ => None,
        })
        .collect()
}

/// A client of `dialect` in session, and the request it sent (asking for a task).
fn client_with_task(dialect: Dialect) -> (Endpoint, Message) {
    let mut c = endpoint(Party::Client, dialect, Behaviour::Honour);
    for m in sent(&feed(&mut c, Input::Command(Command::Initialize))) {
        if let Message::Request { id, .. } = m {
            feed(
                &mut c,
                Input::Receive(Message::Response {
                    id,
                    reply: cancelcheck_model::Reply::Initialized {
                        cancel_support: true,
                    },
                }),
            );
        }
    }
    let out = sent(&feed(&mut c, Input::Command(Command::Send { task: true })));
    (c, out[0])
}

#[test]
fn a_task_is_cancelled_with_the_tasks_own_cancel() {
    let (mut c, request) = client_with_task(Dialect::Mcp20251125);
    let Message::Request { id, method } = request else {
        panic!("no request: {request:?}");
    };
    assert_eq!(method, Method::Work { task: true });
    let out = sent(&feed(&mut c, Input::Command(Command::Cancel(id))));
    assert_eq!(out, [Message::Cancel { id, session: true }]);
    // The answer with the task's final state is expected: no anomaly.
    let late = feed(
        &mut c,
        Input::Receive(Message::CancelAck {
            id,
            ack: Ack::CANCELLED,
        }),
    );
    assert!(late.is_empty(), "{late:?}");
}

#[test]
fn only_a_dialect_with_tasks_marks_a_request_as_a_task() {
    for d in Dialect::ALL {
        if d == Dialect::Mcp20251125 || d.rules().initialize_method.is_none() {
            continue;
        }
        let (_, request) = client_with_task(d);
        assert!(
            matches!(request, Message::Request { method, .. } if !method.is_task()),
            "{d}: {request:?}"
        );
    }
}

#[test]
fn the_server_answers_a_tasks_cancel_with_its_final_state() {
    let mut s = server(Dialect::Mcp20251125, Behaviour::Honour);
    let task = |id| {
        Input::Receive(Message::Request {
            id: RequestId::Int(id),
            method: Method::Work { task: true },
        })
    };
    let cancel = |id| {
        Input::Receive(Message::Cancel {
            id: RequestId::Int(id),
            session: true,
        })
    };
    // Running: stopped, not answered (MCP), and the task is `cancelled`.
    feed(&mut s, task(1));
    let out = feed(&mut s, cancel(1));
    assert!(out.contains(&Output::Dropped(RequestId::Int(1))), "{out:?}");
    assert_eq!(
        sent(&out),
        [Message::CancelAck {
            id: RequestId::Int(1),
            ack: Ack::CANCELLED
        }]
    );
    // Ended first: `completed`.
    feed(&mut s, task(2));
    feed(&mut s, Input::WorkDone(RequestId::Int(2)));
    let completed = Ack {
        cancelled: false,
        reason: AckReason::AlreadyCompleted,
    };
    assert_eq!(
        sent(&feed(&mut s, cancel(2))),
        [Message::CancelAck {
            id: RequestId::Int(2),
            ack: completed
        }]
    );
    // A notification (not the task's cancel) is not answered.
    feed(&mut s, task(3));
    let out = feed(
        &mut s,
        Input::Receive(Message::Cancel {
            id: RequestId::Int(3),
            session: false,
        }),
    );
    assert!(sent(&out).is_empty(), "{out:?}");
}
