//! Round trips through the codec: decode ∘ encode is the identity on wire messages, on the
//! model's messages in every JSON-RPC dialect, on ids of any shape, and through both framings
//! however the stream is cut.

use cancelcheck_model::message::{Ack, AckReason, Method};
use cancelcheck_model::{Dialect, Message, Party, Reply, RequestId};
use cancelcheck_wire::decode::Context;
use cancelcheck_wire::{
    Body, FrameReader, Framing, IdMap, WireId, WireMessage, message_json, to_model,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn wire_id() -> impl Strategy<Value = WireId> {
    prop_oneof![
        Just(WireId::Null),
        any::<i64>().prop_map(WireId::Int),
        any::<u64>()
            .prop_filter("beyond i64", |n| *n > i64::MAX as u64)
            .prop_map(|n| WireId::Number(n.to_string())),
        "-?[1-9][0-9]{19,40}".prop_map(WireId::Number),
        "-?[0-9]\\.[0-9]{1,5}(e-?[1-9][0-9]?)?".prop_map(WireId::Number),
        any::<String>().prop_map(WireId::Str),
        "[a-z0-9-]{0,200}".prop_map(WireId::Str),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn params() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        prop::collection::btree_map("[a-zA-Z_]{1,8}", json_value(), 0..4)
            .prop_map(|m| Some(Value::Object(m.into_iter().collect()))),
        prop::collection::vec(json_value(), 0..3).prop_map(|v| Some(Value::Array(v))),
    ]
}

fn wire_message() -> impl Strategy<Value = WireMessage> {
    prop_oneof![
        (wire_id(), any::<String>(), params())
            .prop_map(|(id, method, params)| WireMessage::Request { id, method, params }),
        (any::<String>(), params())
            .prop_map(|(method, params)| WireMessage::Notification { method, params }),
        (wire_id(), json_value()).prop_map(|(id, v)| WireMessage::Response {
            id,
            body: Body::Result(v)
        }),
        (
            wire_id(),
            any::<i64>(),
            any::<String>(),
            prop::option::of(json_value())
        )
            .prop_map(|(id, code, message, data)| WireMessage::Response {
                id,
                body: Body::Error {
                    code,
                    message,
                    data
                }
            }),
    ]
}

fn model_id(dialect: Dialect) -> impl Strategy<Value = RequestId> + Clone {
    let null_ok = matches!(dialect, Dialect::Acp | Dialect::AcpRfd | Dialect::Lsp);
    prop_oneof![
        any::<i64>().prop_map(RequestId::Int),
        "[ -~]{0,22}".prop_map(|s| RequestId::str(&s).unwrap_or(RequestId::Int(0))),
        Just(if null_ok {
            RequestId::Null
        } else {
            RequestId::Int(0)
        }),
    ]
}

fn json_rpc_dialect() -> impl Strategy<Value = Dialect> {
    prop::sample::select(
        Dialect::ALL
            .into_iter()
            .filter(|d| d.rules().json_rpc)
            .collect::<Vec<_>>(),
    )
}

/// A model message that a JSON-RPC dialect can put on the wire, and the method of the request
/// a response answers.
fn model_message() -> impl Strategy<Value = (Dialect, Message, Method)> {
    json_rpc_dialect().prop_flat_map(|d| {
        let id = model_id(d);
        // Where a cancelled request's answer is a result (ACP), error -32800 is one more error.
        let result_cancels = d.rules().cancelled_result;
        let work_reply = prop_oneof![
            Just(Reply::Full),
            Just(Reply::Partial),
            Just(Reply::Cancelled),
            any::<i64>()
                .prop_filter("not the cancel code", move |c| result_cancels
                    || *c != -32800)
                .prop_map(Reply::Error),
        ];
        let has_server_work = d.rules().server_work_method.is_some();
        // A cancel that names a session (ACP) or a task (MCP 2025-11-25).
        let has_session =
            d.rules().session_cancel_method.is_some() || d.rules().task_cancel_method.is_some();
        let has_task = d.rules().task_cancel_method.is_some();
        let has_activity = d.rules().activity_method.is_some();
        let has_init = d.rules().initialize_method.is_some();
        (
            Just(d),
            prop_oneof![
                (
                    id.clone(),
                    any::<bool>(),
                    any::<bool>(),
                    any::<bool>(),
                    any::<bool>()
                )
                    .prop_map(move |(id, init, server, cs, task)| (
                        Message::Request {
                            id,
                            method: if init && has_init {
                                // Only the ACP RFD says what the client declares.
                                Method::Initialize {
                                    cancel_support: cs || !d.rules().negotiated,
                                }
                            } else if server && d.rules().server_work_method.is_some() {
                                Method::ServerWork
                            } else {
                                Method::Work {
                                    task: task && has_task,
                                }
                            }
                        },
                        Method::Work { task: false }
                    )),
                (id.clone(), work_reply, any::<bool>()).prop_map(move |(id, reply, server)| (
                    Message::Response { id, reply },
                    if server && has_server_work {
                        Method::ServerWork
                    } else {
                        Method::Work { task: false }
                    }
                )),
                (id.clone(), any::<bool>()).prop_map(move |(id, cs)| (
                    Message::Response {
                        id,
                        reply: Reply::Initialized {
                            cancel_support: cs && d.rules().negotiated
                        }
                    },
                    Method::Initialize {
                        cancel_support: true
                    }
                )),
                // (`id` never draws null where the dialect's cancel may not name it.)
                (id.clone(), any::<bool>()).prop_map(move |(id, session)| (
                    Message::Cancel {
                        id,
                        session: session && has_session
                    },
                    Method::Work { task: false }
                )),
                Just((Message::MalformedCancel, Method::Work { task: false })),
                // A task's cancel is answered with the task's final state (MCP 2025-11-25).
                (id.clone(), 0..3u8).prop_map(move |(id, k)| if has_task {
                    let ack = match k {
                        0 => Ack::CANCELLED,
                        1 => Ack {
                            cancelled: false,
                            reason: AckReason::AlreadyCompleted,
                        },
                        _ => Ack {
                            cancelled: false,
                            reason: AckReason::NotFound,
                        },
                    };
                    (Message::CancelAck { id, ack }, Method::Work { task: true })
                } else {
                    (Message::MalformedCancel, Method::Work { task: false })
                }),
                id.prop_map(move |id| if has_activity {
                    (Message::Activity { id }, Method::Work { task: false })
                } else {
                    (Message::MalformedCancel, Method::Work { task: false })
                }),
            ],
        )
            .prop_map(|(d, (m, answers))| (d, m, answers))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn wire_messages_round_trip(m in wire_message()) {
        let text = m.to_text();
        prop_assert!(!text.contains('\n'));
        let back = WireMessage::parse(text.as_bytes());
        prop_assert_eq!(back, Ok(m));
    }

    #[test]
    fn ids_round_trip_through_text_and_the_map(ids in prop::collection::vec(wire_id(), 1..8)) {
        let mut map = IdMap::new();
        let model: Vec<RequestId> = ids.iter().map(|w| map.model(w)).collect();
        for (w, m) in ids.iter().zip(&model) {
            let text = w.to_json_text();
            prop_assert_eq!(WireId::from_json_text(&text), Some(w.clone()));
            prop_assert_eq!(&map.wire(*m), w);
        }
        for (i, a) in ids.iter().enumerate() {
            for (j, b) in ids.iter().enumerate() {
                prop_assert_eq!(a == b, model[i] == model[j]);
            }
        }
    }

    #[test]
    fn model_messages_round_trip((dialect, msg, answers) in model_message()) {
        // A response comes from the party that handles what it answers.
        let from = if answers == Method::ServerWork { Party::Client } else { Party::Server };
        let text = message_json(dialect, from, &msg).to_string();
        let wire = WireMessage::parse(text.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut ids = IdMap::new();
        let back = to_model(&Context::new(dialect), &wire, &mut ids, |_| Some(answers));
        prop_assert_eq!(back, Some(msg), "{}", text);
    }

    #[test]
    fn frames_round_trip_however_the_stream_is_cut(
        msgs in prop::collection::vec(wire_message(), 1..6),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        lsp in any::<bool>(),
    ) {
        let framing = if lsp { Framing::ContentLength } else { Framing::Ndjson };
        let mut stream = Vec::new();
        for m in &msgs {
            stream.extend(framing.frame(&m.to_text()));
        }
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(stream.len() + 1)).collect();
        at.push(0);
        at.push(stream.len());
        at.sort_unstable();
        let mut r = FrameReader::new(framing, 1 << 20);
        let mut got = Vec::new();
        for w in at.windows(2) {
            r.push(&stream[w[0]..w[1]]);
            while let Some(f) = r.next_frame() {
                let f = f.map_err(|e| TestCaseError::fail(e.to_string()))?;
                got.push(WireMessage::parse(&f.body).map_err(|e| TestCaseError::fail(e.to_string()))?);
            }
        }
        prop_assert!(r.finish().is_none());
        prop_assert_eq!(got, msgs);
    }
}
