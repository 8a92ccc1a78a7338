//! The simulator: a discrete-event loop over virtual time, driven by one seed.
//!
//! Everything nondeterministic (latencies, loss, duplication, disconnects, work durations, when
//! the application cancels, swarm mixes) is drawn from one [`SimRng`] in the order events are
//! processed; ties in time are broken by scheduling order. So one seed and one scenario give
//! one run, event for event, on every machine. A [`Simulator`] is reused across seeds: after
//! its first runs, the loop does not allocate.

use core::cmp::Reverse;
use std::collections::BinaryHeap;

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::Method;
use cancelcheck_model::{Command, Input, Message, Party, RequestId};
use cancelcheck_properties::{Event, Verdict};

use crate::effects::{Effects, carry_out};
use crate::http::{Route, Streams};
use crate::link::Order;
use crate::rng::SimRng;
use crate::scenario::{Scenario, SwarmMix};
use crate::world::{Timed, World};

/// Something scheduled to happen.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Occ {
    App(Party, AppAct),
    Deliver(Party, Message),
    WorkDone(Party, RequestId, u32),
    Progress(Party, RequestId, u32),
    InternalCancel(Party, RequestId, u32),
    /// The running work for a received request sends a request on its behalf.
    Spawn(Party, RequestId, u32),
    Fire(Party, Timer, u32),
    Disconnect,
    /// Streamable HTTP: a message arrives on the response stream of the client's request with
    /// this id.
    Stream(RequestId, Message),
    /// Streamable HTTP: the server reads that the stream of the client's request closed.
    StreamClosed(RequestId),
    /// Streamable HTTP: the client resumes the stream of its request.
    Resume(RequestId),
}

/// The application's scripted actions (the workload).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum AppAct {
    Init,
    /// The client's or server's request number `k`; `true`: task-augmented.
    Send(u16, bool),
    Cancel(u16),
    MalformedCancel,
}

/// `(time, sequence)` orders the agenda; the sequence makes ties deterministic.
#[derive(Clone, Copy, Debug)]
struct Item {
    time: u64,
    seq: u64,
    occ: Occ,
}

impl PartialEq for Item {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}

impl Eq for Item {}

impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Item {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

/// What one seed's run produced.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// The seed.
    pub seed: u64,
    /// The checker's verdict.
    pub verdict: Verdict,
    /// The swarm mix drawn, in swarm mode.
    pub mix: Option<SwarmMix>,
    /// Every event, when recorded.
    pub events: Vec<Timed>,
    /// Virtual time at the end.
    pub end_time: u64,
}

/// A reusable simulator.
#[derive(Debug)]
pub struct Simulator {
    world: World,
    agenda: BinaryHeap<Reverse<Item>>,
    seq: u64,
    token: u32,
    /// Live work and timers: (party, what, token). Small; scanned linearly.
    live_work: Vec<(Party, RequestId, u32)>,
    live_timers: Vec<(Party, Timer, u32)>,
    /// Per party, workload index → id the party gave it.
    ids: [Vec<Option<RequestId>>; 2],
    last_delivery: [u64; 2],
    connected: bool,
    /// Streamable HTTP: the client requests' streams, when each delivers last (order holds
    /// within a stream), and what arrived on a dropped stream, waiting for its resume.
    streams: Streams,
    stream_last: Vec<(RequestId, u64)>,
    held: Vec<(RequestId, Message)>,
    /// Scratch: what was on its way on a stream the client closes.
    gone: Vec<(u64, u64, Message)>,
    /// Per party, whether its workload is scheduled.
    workload_started: [bool; 2],
    scratch: Vec<cancelcheck_model::Output>,
}

impl Simulator {
    /// A simulator sized for `scenario`.
    pub fn new(scenario: &Scenario) -> Self {
        Simulator {
            world: World::new(scenario, false),
            agenda: BinaryHeap::with_capacity(64),
            seq: 0,
            token: 0,
            live_work: Vec::with_capacity(16),
            live_timers: Vec::with_capacity(16),
            ids: [
                Vec::with_capacity(usize::from(scenario.workload.requests)),
                Vec::with_capacity(usize::from(scenario.workload.server_requests)),
            ],
            last_delivery: [0; 2],
            connected: true,
            streams: Streams::default(),
            stream_last: Vec::new(),
            held: Vec::new(),
            gone: Vec::new(),
            workload_started: [false; 2],
            scratch: Vec::with_capacity(16),
        }
    }

    /// Runs `scenario` with `seed`; `record` keeps every event (for a trace).
    pub fn run(&mut self, scenario: &Scenario, seed: u64, record: bool) -> RunOutcome {
        let mut rng = SimRng::new(seed);
        let (s, mix) = scenario.for_seed(&mut rng);
        self.world.reset(&s, record);
        self.agenda.clear();
        self.seq = 0;
        self.token = 0;
        self.live_work.clear();
        self.live_timers.clear();
        for (p, n) in [
            (Party::Client, s.workload.requests),
            (Party::Server, s.workload.server_requests),
        ] {
            self.ids[p.index()].clear();
            self.ids[p.index()].resize(usize::from(n), None);
        }
        self.last_delivery = [0; 2];
        self.connected = true;
        self.streams.clear();
        self.stream_last.clear();
        self.held.clear();
        self.workload_started = [false; 2];

        self.schedule(0, Occ::App(Party::Client, AppAct::Init));
        if rng.chance(s.link.disconnect_permille) {
            // Somewhere within a typical run's span.
            let span = 4 * u64::from(s.workload.requests) * 1000;
            let at = rng.between(1, span.max(2));
            self.schedule(at, Occ::Disconnect);
        }
        let mut quiescent = true;
        while let Some(Reverse(item)) = self.agenda.pop() {
            if self.world.events() >= s.max_events {
                quiescent = false;
                break;
            }
            self.world.now = item.time;
            self.step(&s, &mut rng, item.occ);
        }
        self.world.end(quiescent);
        let end_time = self.world.now;
        let verdict = self.world.checker_mut().take_verdict();
        let events = self.world.take_log();
        RunOutcome {
            seed,
            verdict,
            mix,
            events,
            end_time,
        }
    }

    fn schedule(&mut self, time: u64, occ: Occ) {
        self.seq += 1;
        self.agenda.push(Reverse(Item {
            time,
            seq: self.seq,
            occ,
        }));
    }

    fn next_token(&mut self) -> u32 {
        self.token = self.token.wrapping_add(1);
        self.token
    }

    fn step(&mut self, s: &Scenario, rng: &mut SimRng, occ: Occ) {
        match occ {
            Occ::App(party, act) => {
                let cmd = match act {
                    AppAct::Init => Command::Initialize,
                    AppAct::Send(_, task) => Command::Send { task },
                    AppAct::Cancel(k) => match self.ids[party.index()][usize::from(k)] {
                        Some(id) => Command::Cancel(id),
                        None => return,
                    },
                    AppAct::MalformedCancel => Command::MalformedCancel,
                };
                if !self.connected && act != AppAct::Init {
                    return;
                }
                self.feed(s, rng, party, Input::Command(cmd), Some(act));
                if act == AppAct::Init {
                    // Without `initialize`, both parties are in session at once.
                    self.start_workload(s, rng, Party::Client);
                    self.start_workload(s, rng, Party::Server);
                }
            }
            Occ::Deliver(to, msg) => {
                if self.connected {
                    self.feed(s, rng, to, Input::Receive(msg), None);
                    if let Message::Request { method, .. } = msg
                        && method.is_initialize()
                    {
                        self.start_workload(s, rng, to);
                    }
                }
            }
            Occ::Spawn(party, id, token) => {
                if self.connected && self.live_work.contains(&(party, id, token)) {
                    let cmd = Command::SendNested(id);
                    self.feed(s, rng, party, Input::Command(cmd), None);
                }
            }
            Occ::WorkDone(party, id, token)
            | Occ::Progress(party, id, token)
            | Occ::InternalCancel(party, id, token) => {
                let Some(pos) = self.live_work.iter().position(|w| *w == (party, id, token)) else {
                    return;
                };
                let input = match occ {
                    Occ::WorkDone(..) => {
                        self.live_work.swap_remove(pos);
                        Input::WorkDone(id)
                    }
                    // The party aborts the work itself (an `AbortWork` output), if it does.
                    Occ::InternalCancel(..) => Input::InternalCancel(id),
                    _ => Input::WorkProgress(id),
                };
                self.feed(s, rng, party, input, None);
            }
            Occ::Fire(party, timer, token) => {
                let Some(pos) = self
                    .live_timers
                    .iter()
                    .position(|t| *t == (party, timer, token))
                else {
                    return;
                };
                self.live_timers.swap_remove(pos);
                self.feed(s, rng, party, Input::TimerFired(timer), None);
            }
            Occ::Disconnect
                if s.link.order == Order::Http && !s.dialect.rules().stream_close_cancels =>
            {
                self.lose_streams(s, rng);
            }
            Occ::Stream(id, msg) => match self.streams.state(id).0 {
                // (Counted lost when the client closed the stream.)
                crate::http::StreamState::Closed => {}
                _ if !self.streams.readable(id) || self.held.iter().any(|h| h.0 == id) => {
                    self.held.push((id, msg))
                }
                _ => self.feed(s, rng, Party::Client, Input::Receive(msg), None),
            },
            Occ::StreamClosed(id) => {
                self.streams.read(id);
                self.feed(s, rng, Party::Server, Input::StreamClosed(id), None);
            }
            Occ::Resume(id) => {
                self.streams.resume(id);
                self.feed(s, rng, Party::Client, Input::StreamResumed(id), None);
                // The server replays, in order, what it kept of the stream.
                while let Some(i) = self.held.iter().position(|h| h.0 == id) {
                    let (_, msg) = self.held.remove(i);
                    self.feed(s, rng, Party::Client, Input::Receive(msg), None);
                }
            }
            Occ::Disconnect => {
                if self.connected {
                    self.connected = false;
                    self.feed(s, rng, Party::Client, Input::Disconnected, None);
                    self.feed(s, rng, Party::Server, Input::Disconnected, None);
                    self.live_timers.clear();
                }
            }
        }
    }

    /// Schedules `party`'s requests, cancels and malformed cancels, once its session is open
    /// (and once only).
    fn start_workload(&mut self, s: &Scenario, rng: &mut SimRng, party: Party) {
        let w = &s.workload;
        let requests = match party {
            Party::Client => w.requests,
            Party::Server => w.server_requests,
        };
        if self.workload_started[party.index()]
            || requests == 0
            || !self.world.endpoint(party).is_ready()
        {
            return;
        }
        self.workload_started[party.index()] = true;
        let mut t = self.world.now;
        for k in 0..requests {
            if k > 0 {
                t = t.saturating_add(w.spacing.draw(rng));
            }
            // (Nothing is drawn where no request may be a task: seeds draw as before.)
            let task = party == Party::Client && w.task_permille > 0 && rng.chance(w.task_permille);
            self.schedule(t, Occ::App(party, AppAct::Send(k, task)));
            if w.malformed_cancel_permille > 0 && rng.chance(w.malformed_cancel_permille) {
                let at = t.saturating_add(w.cancel_delay.draw(rng));
                self.schedule(at, Occ::App(party, AppAct::MalformedCancel));
            }
            if rng.chance(w.cancel_permille) {
                let at = t.saturating_add(w.cancel_delay.draw(rng));
                self.schedule(at, Occ::App(party, AppAct::Cancel(k)));
                if rng.chance(w.repeat_cancel_permille) {
                    let again = at.saturating_add(w.cancel_delay.draw(rng) / 4);
                    self.schedule(again, Occ::App(party, AppAct::Cancel(k)));
                }
            }
        }
    }

    /// Feeds one input and carries out what the endpoint did.
    fn feed(
        &mut self,
        s: &Scenario,
        rng: &mut SimRng,
        party: Party,
        input: Input,
        act: Option<AppAct>,
    ) {
        let mut outs = core::mem::take(&mut self.scratch);
        outs.clear();
        outs.extend_from_slice(self.world.feed(party, input));
        let mut carrying = Carrying {
            sim: self,
            s,
            rng,
            act,
        };
        carry_out(party, &outs, &mut carrying);
        self.scratch = outs;
    }

    /// Streamable HTTP, where a stream's drop is no cancel: the connection drops, and with it
    /// the stream of every request the server has read and the client still waits for; the
    /// server reads each drop after a delay, and the client resumes each after another.
    fn lose_streams(&mut self, s: &Scenario, rng: &mut SimRng) {
        for k in 0..self.ids[Party::Client.index()].len() {
            let Some(id) = self.ids[Party::Client.index()][k] else {
                continue;
            };
            let (client, server) = (
                self.world.endpoint(Party::Client),
                self.world.endpoint(Party::Server),
            );
            if !(self.streams.may_drop(id) && client.awaits(id) && server.received(id).is_some()) {
                continue;
            }
            self.streams.lose(id);
            self.feed(s, rng, Party::Client, Input::StreamLost(id), None);
            let now = self.world.now;
            let read = now.saturating_add(s.link.latency.draw(rng));
            self.schedule(read, Occ::StreamClosed(id));
            let back = now.saturating_add(s.link.latency.draw(rng).saturating_mul(4));
            self.schedule(back, Occ::Resume(id));
        }
    }

    /// When the next message on the stream of request `id` arrives, at the earliest `at`
    /// (order holds within a stream).
    fn stream_time(&mut self, id: RequestId, at: u64) -> u64 {
        match self.stream_last.iter_mut().find(|l| l.0 == id) {
            Some(l) => {
                l.1 = l.1.max(at);
                l.1
            }
            None => {
                self.stream_last.push((id, at));
                at
            }
        }
    }

    fn transmit(&mut self, s: &Scenario, rng: &mut SimRng, from: Party, msg: Message) {
        if !self.connected {
            return;
        }
        let link = &s.link;
        if rng.chance(link.loss_permille) {
            self.world.emit(Event::Lost { from, msg });
            return;
        }
        let copies =
            if !matches!(msg, Message::Request { .. }) && rng.chance(link.duplicate_permille) {
                self.world.emit(Event::Duplicated { from, msg });
                2
            } else {
                1
            };
        let to = from.peer();
        if link.order == Order::Http {
            // (Streamable HTTP neither loses nor duplicates: the scenario refuses both.)
            let at = self.world.now.saturating_add(link.latency.draw(rng));
            let server = self.world.endpoint(Party::Server);
            match self.streams.route(from, msg, |id| server.sent_for(id)) {
                Route::Post => self.schedule(at, Occ::Deliver(to, msg)),
                Route::Stream(id) => {
                    let at = self.stream_time(id, at);
                    self.schedule(at, Occ::Stream(id, msg));
                }
                Route::Get => {
                    let at = at.max(self.last_delivery[to.index()]);
                    self.last_delivery[to.index()] = at;
                    self.schedule(at, Occ::Deliver(to, msg));
                }
                Route::Discard => self.world.emit(Event::Lost { from, msg }),
            }
            return;
        }
        for _ in 0..copies {
            let mut at = self.world.now.saturating_add(link.latency.draw(rng));
            if link.order == Order::Fifo {
                at = at.max(self.last_delivery[to.index()]);
                self.last_delivery[to.index()] = at;
            }
            self.schedule(at, Occ::Deliver(to, msg));
        }
    }
}

/// The simulator carrying out one input's outputs: effects are scheduled in virtual time, with
/// delays drawn from the seed in the order of the outputs.
struct Carrying<'a> {
    sim: &'a mut Simulator,
    s: &'a Scenario,
    rng: &'a mut SimRng,
    /// The application's action fed, if the input was one.
    act: Option<AppAct>,
}

impl Effects for Carrying<'_> {
    fn send(&mut self, from: Party, msg: Message) {
        self.sim.transmit(self.s, self.rng, from, msg);
    }

    fn request(&mut self, from: Party, id: RequestId, method: Method) {
        let sim = &mut *self.sim;
        if let Some(AppAct::Send(k, _)) = self.act
            && !method.is_initialize()
        {
            sim.ids[from.index()][usize::from(k)] = Some(id);
        }
    }

    fn start_work(&mut self, party: Party, id: RequestId) {
        let (sim, s, rng) = (&mut *self.sim, self.s, &mut *self.rng);
        let now = sim.world.now;
        let token = sim.next_token();
        sim.live_work.push((party, id, token));
        let dur = s.workload.work.draw(rng);
        let nesting = s.workload.nesting;
        if !nesting.is_flat() && sim.world.checker().depth(party.peer(), id) < nesting.depth {
            for _ in 0..nesting.fanout {
                let at = now.saturating_add(rng.between(0, dur));
                sim.schedule(at, Occ::Spawn(party, id, token));
            }
        }
        if rng.chance(s.workload.progress_permille) {
            sim.schedule(now.saturating_add(dur / 2), Occ::Progress(party, id, token));
        }
        let internal = s.workload.internal_cancel_permille;
        if internal > 0 && s.dialect.rules().give_up.is_some() && rng.chance(internal) {
            let at = now.saturating_add(rng.between(0, dur));
            sim.schedule(at, Occ::InternalCancel(party, id, token));
        }
        sim.schedule(now.saturating_add(dur), Occ::WorkDone(party, id, token));
    }

    fn abort_work(&mut self, party: Party, id: RequestId) {
        self.sim.live_work.retain(|w| !(w.0 == party && w.1 == id));
    }

    fn arm(&mut self, party: Party, timer: Timer) {
        let (sim, w) = (&mut *self.sim, &self.s.workload);
        let after = match timer {
            Timer::RequestTimeout(_) => w.timeout.map(|l| l.draw(self.rng)),
            Timer::InitTimeout => w.init_timeout.map(|l| l.draw(self.rng)),
        };
        if let Some(after) = after {
            let token = sim.next_token();
            sim.live_timers.push((party, timer, token));
            let at = sim.world.now.saturating_add(after);
            sim.schedule(at, Occ::Fire(party, timer, token));
        }
    }

    fn disarm(&mut self, party: Party, timer: Timer) {
        self.sim
            .live_timers
            .retain(|t| !(t.0 == party && t.1 == timer));
    }

    fn close_stream(&mut self, _: Party, id: RequestId) {
        let sim = &mut *self.sim;
        sim.streams.close(id);
        // What is on its way on the stream is never read: lost now, in the order it was sent.
        let mut gone = core::mem::take(&mut sim.gone);
        gone.clear();
        gone.extend(sim.agenda.iter().filter_map(|Reverse(i)| match i.occ {
            Occ::Stream(l, m) if l == id => Some((i.time, i.seq, m)),
            _ => None,
        }));
        gone.sort_unstable();
        for &(_, _, msg) in &gone {
            sim.world.emit(Event::Lost {
                from: Party::Server,
                msg,
            });
        }
        sim.gone = gone;
        let at = sim
            .world
            .now
            .saturating_add(self.s.link.latency.draw(self.rng));
        sim.schedule(at, Occ::StreamClosed(id));
    }

    fn session_open(&mut self, party: Party) {
        if party == Party::Client {
            self.sim.start_workload(self.s, self.rng, Party::Client);
        }
    }
}

/// Runs one seed of `scenario` in a fresh simulator.
pub fn run_seed(scenario: &Scenario, seed: u64, record: bool) -> RunOutcome {
    Simulator::new(scenario).run(scenario, seed, record)
}
