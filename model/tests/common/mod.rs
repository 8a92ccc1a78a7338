//! Endpoints for the model's tests: one of a party, fresh or with its session open, and the
//! outputs of one input.

#![allow(dead_code)] // each test file uses what it needs

use cancelcheck_model::endpoint::IdPolicy;
use cancelcheck_model::message::Method;
use cancelcheck_model::{
    Behaviour, Dialect, Endpoint, EndpointConfig, Input, Message, Output, Party, RequestId,
};

/// A fresh endpoint of `party`: one worker, no timeouts, integer ids from 0.
pub fn endpoint(party: Party, dialect: Dialect, behaviour: Behaviour) -> Endpoint {
    Endpoint::new(EndpointConfig {
        party,
        dialect,
        behaviour,
        workers: 1,
        cancel_support: true,
        request_timeouts: false,
        init_timeout: false,
        ids: IdPolicy {
            first: 0,
            strings: false,
            reuse_answered: false,
        },
        capacity: 4,
        streams: false,
    })
}

/// A server that has read `initialize` (id 0).
pub fn server(dialect: Dialect, behaviour: Behaviour) -> Endpoint {
    let mut e = endpoint(Party::Server, dialect, behaviour);
    feed(
        &mut e,
        Input::Receive(Message::Request {
            id: RequestId::Int(0),
            method: Method::Initialize {
                cancel_support: true,
            },
        }),
    );
    e
}

/// What `e` does with `input`.
pub fn feed(e: &mut Endpoint, input: Input) -> Vec<Output> {
    let mut out = Vec::new();
    e.handle(input, &mut out);
    out
}
