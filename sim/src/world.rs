//! The world every driver shares: both endpoints, the checker, and the optional event log.
//!
//! A driver decides *what happens next* (the simulator by virtual time and the seed, the
//! explorer by enumeration); the world applies it: it feeds the input to the endpoint, shows
//! the checker the input and every output, and records them when a trace is wanted.

use cancelcheck_model::endpoint::{EndpointConfig, IdPolicy};
use cancelcheck_model::pack::{CloneState, PackError, Reader, Relabel, State};
use cancelcheck_model::{Endpoint, Input, Message, Output, Party, RequestId};
use cancelcheck_properties::{Checker, Event};

use crate::link::Order;
use crate::scenario::Scenario;

/// One event with the virtual time it happened at.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Timed {
    /// Virtual microseconds since the start of the run.
    pub t: u64,
    /// The event.
    pub event: Event,
}

/// Both parties, the checker and the log.
///
/// Its state ([`State`], [`Relabel`]) is both endpoints' and the checker's, in that order:
/// equal bytes, equal futures, for one pair of configurations; unpacking keeps
/// configurations and allocations, and the checker starts a fresh verdict. `clone_from`
/// copies into what the target already holds; the output buffer is scratch and is not
/// copied.
#[derive(Debug, State, Relabel, CloneState)]
pub struct World {
    #[state(nested)]
    endpoints: [Endpoint; 2],
    #[state(nested)]
    checker: Checker,
    #[state(config)]
    log: Option<Vec<Timed>>,
    #[state(scratch)]
    outs: Vec<Output>,
    /// Virtual time of the event being applied.
    #[state(config)]
    pub now: u64,
}

/// The endpoint configurations a scenario gives the two parties.
pub fn endpoint_configs(s: &Scenario) -> [EndpointConfig; 2] {
    let (client_b, server_b) = s.behaviours();
    let w = &s.workload;
    let capacity = usize::from(w.requests) + usize::from(w.server_requests) + 1;
    let client = EndpointConfig {
        party: Party::Client,
        dialect: s.dialect,
        behaviour: client_b,
        // The client runs every request the server sends at once.
        workers: w.server_requests.max(1),
        cancel_support: w.client_cancel_support.unwrap_or(true),
        request_timeouts: w.timeout.is_some(),
        init_timeout: w.init_timeout.is_some(),
        ids: w.ids.into(),
        capacity,
        streams: s.link.order == Order::Http,
    };
    // The server counts its ids from the same first id as the client, on its own: the ids of
    // the two directions coincide (the server's first request has the id of the client's
    // `initialize`, its second that of the client's first ordinary request).
    let mut server_ids: IdPolicy = w.ids.into();
    server_ids.reuse_answered = false;
    let server = EndpointConfig {
        party: Party::Server,
        behaviour: server_b,
        workers: w.workers,
        cancel_support: w.cancel_support.unwrap_or(true),
        request_timeouts: false,
        init_timeout: false,
        ids: server_ids,
        ..client
    };
    [client, server]
}

impl World {
    /// A world for `scenario`; `record` keeps every event for a trace.
    pub fn new(scenario: &Scenario, record: bool) -> Self {
        let [c, s] = endpoint_configs(scenario);
        // Requests both ways: the workload plus `initialize`.
        let w = &scenario.workload;
        let requests = usize::from(w.requests) + usize::from(w.server_requests) + 1;
        let mut checker = Checker::new(scenario.dialect, requests);
        checker.set_fifo(scenario.link.order == Order::Fifo);
        World {
            endpoints: [Endpoint::new(c), Endpoint::new(s)],
            checker,
            log: record.then(|| Vec::with_capacity(256)),
            outs: Vec::with_capacity(16),
            now: 0,
        }
    }

    /// Back to the start for `scenario`, keeping allocations.
    pub fn reset(&mut self, scenario: &Scenario, record: bool) {
        let [c, s] = endpoint_configs(scenario);
        self.endpoints[0].reset(c);
        self.endpoints[1].reset(s);
        self.checker.reset(scenario.dialect);
        self.checker.set_fifo(scenario.link.order == Order::Fifo);
        match (&mut self.log, record) {
            (Some(log), true) => log.clear(),
            (log, r) => *log = r.then(|| Vec::with_capacity(256)),
        }
        self.now = 0;
    }

    /// One party's endpoint.
    pub fn endpoint(&self, party: Party) -> &Endpoint {
        &self.endpoints[party.index()]
    }

    /// The checker.
    pub fn checker(&self) -> &Checker {
        &self.checker
    }

    /// The checker, to take its verdict.
    pub fn checker_mut(&mut self) -> &mut Checker {
        &mut self.checker
    }

    /// Events read so far.
    pub fn events(&self) -> u64 {
        self.checker.verdict().events
    }

    /// Shows the checker one event (and logs it).
    pub fn emit(&mut self, event: Event) {
        self.checker.observe(&event);
        if let Some(log) = &mut self.log {
            log.push(Timed { t: self.now, event });
        }
    }

    /// Feeds `input` to `party` and returns what it did; the input and each output are
    /// emitted as events first. The returned buffer is valid until the next `feed`.
    pub fn feed(&mut self, party: Party, input: Input) -> &[Output] {
        self.emit(Event::Input { party, input });
        self.respond(party, input);
        let outs = core::mem::take(&mut self.outs);
        self.emit_outputs(party, &outs);
        self.outs = outs;
        &self.outs
    }

    /// The endpoint's part of [`World::feed`]: feeds `input` to `party` and returns what it
    /// did, showing the checker nothing (what [`World::observe_feed`] shows it instead). The
    /// returned buffer is valid until the next `feed` or `respond`.
    pub fn respond(&mut self, party: Party, input: Input) -> &[Output] {
        let mut outs = core::mem::take(&mut self.outs);
        outs.clear();
        // A request names the request of the receiver's it serves, where it serves one.
        let session = match input {
            Input::Receive(Message::Request { id, .. }) => {
                self.endpoints[party.peer().index()].sent_for(id)
            }
            _ => None,
        };
        self.endpoints[party.index()].handle_in(input, session, &mut outs);
        self.outs = outs;
        &self.outs
    }

    /// The checker's part of [`World::feed`]: shows it (and logs) the events `feed` would for
    /// `party` given `input` and answering with `outs`, in the same order.
    pub fn observe_feed(&mut self, party: Party, input: Input, outs: &[Output]) {
        self.emit(Event::Input { party, input });
        self.emit_outputs(party, outs);
    }

    fn emit_outputs(&mut self, party: Party, outs: &[Output]) {
        for &output in outs {
            self.emit(Event::Output { party, output });
        }
    }

    /// Ends the run: emits `End` with what each party still holds.
    pub fn end(&mut self, quiescent: bool) {
        let open = |p: Party| self.endpoints[p.index()].open_incoming() as u32;
        let open_incoming = [open(Party::Client), open(Party::Server)];
        self.emit(Event::End {
            quiescent,
            open_incoming,
        });
    }

    /// Appends one party's packed endpoint state (see [`Endpoint`]).
    pub fn pack_endpoint(&self, party: Party, out: &mut Vec<u8>) {
        self.endpoints[party.index()].pack_state(out);
    }

    /// Reads one party's endpoint state from what [`World::pack_endpoint`] wrote, keeping its
    /// configuration.
    pub fn unpack_endpoint(&mut self, party: Party, r: &mut Reader<'_>) -> Result<(), PackError> {
        self.endpoints[party.index()].unpack_state(r)
    }

    /// Appends the checker's packed state (see [`Checker`]).
    pub fn pack_checker(&self, out: &mut Vec<u8>) {
        self.checker.pack_state(out);
    }

    /// Reads the checker's state from what [`World::pack_checker`] wrote; the checker starts a
    /// fresh verdict.
    pub fn unpack_checker(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        self.checker.unpack_state(r)
    }

    /// Becomes `src`'s in one party's endpoint, copying into what this world already holds (no
    /// allocation once its tables are large enough). `src` is a world of the same
    /// configurations.
    pub fn copy_endpoint_from(&mut self, src: &World, party: Party) {
        self.endpoints[party.index()].clone_from(&src.endpoints[party.index()]);
    }

    /// Feeds everything both endpoints and the checker hold about request `id` to `h`.
    pub fn hash_request<H: core::hash::Hasher>(&self, id: RequestId, h: &mut H) {
        self.endpoints[0].hash_request(id, h);
        self.endpoints[1].hash_request(id, h);
        self.checker.hash_request(id, h);
    }

    /// Takes the log (empty when not recording).
    pub fn take_log(&mut self) -> Vec<Timed> {
        self.log.take().unwrap_or_default()
    }
}
