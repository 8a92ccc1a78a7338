//! One explored state in its plain form: the world (both endpoints and the checker) plus
//! everything a driver holds (messages in flight, running work, armed timers, the
//! application's script position), its enabled steps, and its packed form. Replays use this
//! form, and so does a search under the symmetry reduction (without it, a search holds states
//! as [flat rows](super::Flat), which list the same steps in the same order).
//!
//! A search stores states packed (see `cancelcheck_model::pack`) and unpacks one into a reused
//! base state to expand it; each successor is made in a scratch copy, restored from the base by
//! copying back only the tables the previous step changed. The packed bytes identify the state,
//! so their [`fingerprint`](super::hash::fingerprint) is its key in the visited set.

use cancelcheck_model::io::Timer;
use cancelcheck_model::message::Method;
use cancelcheck_model::pack::{CloneState, Pack, PackError, Reader, Relabel, State};
use cancelcheck_model::{Command, Input, Message, Output, Party, RequestId};
use cancelcheck_properties::{Event, PropertySet, Verdict};
use core::hash::{Hash, Hasher};
use smallvec::SmallVec;

mod http;
mod reduce;
mod trees;
use http::Http;
pub(super) use reduce::ample;
use trees::Spawned;

use super::driver::{self, Counter, Driver, Effect};
use super::fifo::MsgClass;
use super::flat::kinds::{Absent, Byte, Inert, Parts, PerRequest, Table};
use super::hash::StableHasher;
use super::steps::{Listed, StepView, TimerOf};
use super::{Bounds, bounds};
use crate::effects::{Effects, carry_out};
use crate::scenario::Scenario;
use crate::world::World;

/// What one step shows the parties.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stimulus {
    /// An input fed to one party.
    Feed(Party, Input),
    /// An event shown to the checker alone (a loss, a duplication).
    Emit(Event),
    /// Nothing (a cancel of a request that never got an id).
    Nothing,
}

/// `x` renamed by `map` (pairs of an id and its new id; ids not listed keep theirs).
fn rename(map: &[(RequestId, RequestId)], x: RequestId) -> RequestId {
    map.iter().find(|(from, _)| *from == x).map_or(x, |p| p.1)
}

/// One choice of what happens next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Step {
    /// The client sends its next request.
    Send,
    /// The client's application cancels request number `k` (in sending order).
    Cancel(u8),
    /// The message at `index` of the queue towards `to` is delivered.
    Deliver {
        /// The recipient.
        to: Party,
        /// Position in its in-flight queue.
        index: u16,
    },
    /// The message at `index` towards `to` is lost.
    Lose {
        /// The recipient.
        to: Party,
        /// Position in its in-flight queue.
        index: u16,
    },
    /// The work for a request finishes.
    WorkDone(Party, RequestId),
    /// An armed timer fires.
    Fire(Party, Timer),
    /// Running work reports progress (at most once per piece of work).
    Progress(Party, RequestId),
    /// The message at `index` towards `to` (not a request) will be delivered twice: a copy
    /// joins the queue right behind it (in its sorted place on a reordering link).
    Duplicate {
        /// The recipient.
        to: Party,
        /// Position in its in-flight queue.
        index: u16,
    },
    /// The party gives up the work of a request it received, on its own (internal
    /// cancellation; where the dialect says how it is answered).
    Abort(Party, RequestId),
    /// The client sends a malformed cancel (at most once per run).
    Malformed,
    /// The server sends its next request to the client.
    ServerSend,
    /// The server's application cancels its request number `k` (in sending order).
    ServerCancel(u8),
    /// The server sends a malformed cancel (at most once per run).
    ServerMalformed,
    /// The running work of the request with this id, received by the party, sends a request
    /// on its behalf (a nested request).
    Spawn(Party, RequestId),
    /// Streamable HTTP: the message at the head of the standalone GET stream is delivered to
    /// the client.
    DeliverGet,
    /// Streamable HTTP: the server reads that the stream of the client's request with this id
    /// closed (or dropped).
    StreamClosed(RequestId),
    /// Streamable HTTP: the connection of the stream of the client's request with this id
    /// drops.
    LoseStream(RequestId),
    /// Streamable HTTP: the client resumes the stream of its request with this id.
    ResumeStream(RequestId),
}

/// The server's application script: what it sent, cancelled and may still send. Only the plain
/// form holds it (a search with server requests runs on plain states).
#[derive(Debug, Pack, Relabel, CloneState)]
struct ServerScript {
    sent: u8,
    cancels: SmallVec<[u8; 4]>,
    ids: SmallVec<[Option<RequestId>; 4]>,
    malformed_left: u8,
}

/// A script that may send nothing (the search has no server requests).
impl Inert for ServerScript {
    fn inert(&self) -> bool {
        self.sent == 0 && self.cancels.is_empty() && self.ids.is_empty() && self.malformed_left == 0
    }
}

/// One explored state: the world plus everything a driver holds.
///
/// Its state is declared here once: the fields without a role are packed ([`State`]:
/// everything that affects the future, nothing about the path that led here: step count,
/// races reached, the event log) and renamed ([`Relabel`], for the symmetry reduction; see
/// [`Explorer::canonicalize`]). Queues on a reordering link, work and timers are kept sorted,
/// so equal states pack to equal bytes.
///
/// The same declaration says how each field sits in a search's [flat row](super::Flat)
/// (`#[state(row = KIND)]`, the kinds of `super::flat::kinds`): the derive makes the row's
/// layout, `ExplorerRow`, and the conversion to and from it. A field of the state without a
/// place in the row does not compile.
#[derive(Debug, State, Relabel, CloneState)]
#[state(dirty_bits = dirty, row = ExplorerRow, row_kinds = crate::explorer::flat::kinds)]
pub struct Explorer {
    /// Which initial scenario (of `initial_scenarios`) the state descends from.
    #[state(row = Byte)]
    root: u8,
    #[state(nested, row = Parts)]
    world: World,
    /// In-flight messages, indexed by recipient: in sending order on a FIFO link, sorted on a
    /// reordering one (where order carries no information), so equal states look equal.
    #[state(dirty_each = Dirty::NET, row = [Table; 2])]
    net: [SmallVec<[Message; 8]>; 2],
    /// Running work and armed timers, kept sorted.
    #[state(dirty = Dirty::WORK, row = Table)]
    work: SmallVec<[(Party, RequestId); 8]>,
    /// Running work that already reported progress.
    #[state(dirty = Dirty::PROGRESSED, row = Table)]
    progressed: SmallVec<[(Party, RequestId); 8]>,
    #[state(dirty = Dirty::TIMERS, row = Table)]
    timers: SmallVec<[(Party, Timer); 8]>,
    #[state(row = Byte)]
    sent: u8,
    #[state(dirty = Dirty::CANCELS, row = PerRequest)]
    cancels: SmallVec<[u8; 8]>,
    #[state(dirty = Dirty::IDS, row = PerRequest)]
    ids: SmallVec<[Option<RequestId>; 8]>,
    /// Duplications the network may still make.
    #[state(row = Byte)]
    duplicates_left: u8,
    /// Malformed cancels the client may still send.
    #[state(row = Byte)]
    malformed_left: u8,
    /// The server's requests.
    #[state(row = Absent)]
    server: ServerScript,
    /// What the script spent of each request's budget of nested requests (the requests that
    /// spent any, sorted; see [`Spawned`]). The trees themselves (which request was sent on
    /// whose behalf, how deep each stands, which root it serves) are read from the checker's
    /// records, the one model of parentage; empty without nesting.
    #[state(row = Absent)]
    spawns: SmallVec<[Spawned; 4]>,
    /// Streamable HTTP's streams (packed as nothing on the other transports).
    #[state(custom, row = Absent)]
    http: Http,
    /// Whether requests nest.
    #[state(config)]
    nested: bool,
    #[state(config)]
    steps: u64,
    /// The last fed input's outputs (kept to reuse its allocation; not copied).
    #[state(scratch)]
    outs: Vec<Output>,
    /// Which of the tables above were changed since the state was a copy of another (bits of
    /// [`Dirty`]): [`cancelcheck_model::pack::Restore::restore_from`] copies back only those.
    #[state(config)]
    dirty: u8,
}

/// Bits of [`Explorer::dirty`], one per table.
struct Dirty;

impl Dirty {
    const NET: [u8; 2] = [1, 2];
    const WORK: u8 = 4;
    const PROGRESSED: u8 = 8;
    const TIMERS: u8 = 16;
    const CANCELS: u8 = 32;
    const IDS: u8 = 64;
    const ALL: u8 = 127;
}

fn insert_sorted<T: Ord, const N: usize>(v: &mut SmallVec<[T; N]>, x: T)
where
    [T; N]: smallvec::Array<Item = T>,
{
    let at = v.partition_point(|y| *y <= x);
    v.insert(at, x);
}

impl Explorer {
    /// The initial state for `scenario` (its `cancel_support` must be set), descending from
    /// initial scenario number `root`: the client has been told to initialize.
    pub fn new(scenario: &Scenario, root: u8, record: bool) -> Self {
        let b = bounds(scenario);
        let n = usize::from(b.requests);
        let mut e = Explorer {
            root,
            world: World::new(scenario, record),
            net: [SmallVec::new(), SmallVec::new()],
            work: SmallVec::new(),
            progressed: SmallVec::new(),
            timers: SmallVec::new(),
            sent: 0,
            cancels: smallvec::smallvec![0; n],
            ids: smallvec::smallvec![None; n],
            duplicates_left: b.duplicates,
            malformed_left: u8::from(b.malformed),
            server: ServerScript {
                sent: 0,
                cancels: smallvec::smallvec![0; usize::from(b.server_requests)],
                ids: smallvec::smallvec![None; usize::from(b.server_requests)],
                malformed_left: u8::from(b.malformed && b.server_requests > 0),
            },
            spawns: SmallVec::new(),
            http: Http::new(b.http),
            nested: b.fanout > 0,
            steps: 0,
            outs: Vec::new(),
            dirty: Dirty::ALL,
        };
        // With trees both parties send requests: the checker's records then pack in an order
        // the interleaving of their sends does not decide.
        e.world.checker_mut().set_canonical_order(e.nested);
        e.feed(&b, Party::Client, Input::Command(Command::Initialize), None);
        e
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The messages in flight towards `to`: in sending order on a FIFO link, sorted on a
    /// reordering one ([`Step::Deliver`] and its kin name a message by its place here).
    pub fn in_flight(&self, to: Party) -> &[Message] {
        &self.net[to.index()]
    }

    /// Ends the run here (quiescent when nothing is enabled) and returns the verdict.
    pub fn finish(mut self, quiescent: bool) -> (Verdict, World) {
        let v = self.end(quiescent);
        (v, self.world)
    }
}

impl Explorer {
    /// Marks every table changed: the state it was a copy of has itself changed.
    pub(super) fn forget_origin(&mut self) {
        self.dirty = Dirty::ALL;
    }

    /// Every enabled step, in a fixed order (a schedule records positions in it).
    pub fn enabled(&self, scenario: &Scenario, out: &mut Vec<Step>) {
        out.clear();
        let b = bounds(scenario);
        super::steps::list(self, &b, |c| out.push(self.step_of(c)));
        // The server's script comes last, so the steps of a search without it keep their
        // indices.
        let server = &self.server;
        let server_ready = self.world.endpoint(Party::Server).is_ready();
        if server.sent < b.server_requests && server_ready {
            out.push(Step::ServerSend);
        }
        for k in 0..server.sent {
            let k_ = usize::from(k);
            if server.cancels[k_] < b.cancels_each && server.ids[k_].is_some() {
                out.push(Step::ServerCancel(k));
            }
        }
        if server.malformed_left > 0 && server_ready {
            out.push(Step::ServerMalformed);
        }
        // Nested requests come after everything else, for the same reason.
        if b.fanout > 0 {
            for (i, &(p, id)) in self.work.iter().enumerate() {
                if self.work[..i].contains(&(p, id)) {
                    continue;
                }
                if let Some(i) = self.tree_record(p.peer(), id)
                    && self.world.checker().parentage().depth(i) < b.depth
                    && self.spawned(i) < b.fanout
                {
                    out.push(Step::Spawn(p, id));
                }
            }
        }
        // Streamable HTTP's steps come last of all, so the others keep their indices.
        if b.http {
            self.http_steps(out);
        }
    }

    /// The plain step of a listed choice (by place) in this state.
    fn step_of(&self, c: Listed) -> Step {
        let work = |i: u16| self.work[usize::from(i)];
        match c {
            Listed::Send => Step::Send,
            Listed::Cancel(k) => Step::Cancel(k),
            Listed::Deliver(to, index) => Step::Deliver { to, index },
            Listed::Lose(to, index) => Step::Lose { to, index },
            Listed::Duplicate(to, index) => Step::Duplicate { to, index },
            Listed::WorkDone(i) => Step::WorkDone(work(i).0, work(i).1),
            Listed::Progress(i) => Step::Progress(work(i).0, work(i).1),
            Listed::Abort(i) => Step::Abort(work(i).0, work(i).1),
            Listed::Fire(i) => {
                let (p, t) = self.timers[usize::from(i)];
                Step::Fire(p, t)
            }
            Listed::Malformed => Step::Malformed,
        }
    }

    /// The listed choice of a plain step ([`Explorer::step_of`] undone, work and timers by
    /// the first place holding them); `None` for the steps only plain states take (the
    /// server's script, nested requests) and for work or a timer this state does not hold.
    pub(super) fn listed(&self, step: Step) -> Option<Listed> {
        let work = |p, id| {
            let i = self.work.iter().position(|&w| w == (p, id))?;
            Some(i as u16)
        };
        Some(match step {
            Step::Send => Listed::Send,
            Step::Cancel(k) => Listed::Cancel(k),
            Step::Deliver { to, index } => Listed::Deliver(to, index),
            Step::Lose { to, index } => Listed::Lose(to, index),
            Step::Duplicate { to, index } => Listed::Duplicate(to, index),
            Step::WorkDone(p, id) => Listed::WorkDone(work(p, id)?),
            Step::Progress(p, id) => Listed::Progress(work(p, id)?),
            Step::Abort(p, id) => Listed::Abort(work(p, id)?),
            Step::Fire(p, t) => Listed::Fire(self.timers.iter().position(|&x| x == (p, t))? as u16),
            Step::Malformed => Listed::Malformed,
            Step::ServerSend
            | Step::ServerCancel(_)
            | Step::ServerMalformed
            | Step::Spawn(..)
            | Step::DeliverGet
            | Step::StreamClosed(_)
            | Step::LoseStream(_)
            | Step::ResumeStream(_) => {
                return None;
            }
        })
    }

    /// What `step` (one of `enabled`) will show the parties, read before it is applied.
    fn stimulus(&self, step: Step, tasks: bool) -> Stimulus {
        let msg = |to: Party, index: u16| self.net[to.index()][usize::from(index)];
        match step {
            Step::Send => {
                Stimulus::Feed(Party::Client, Input::Command(Command::Send { task: tasks }))
            }
            Step::Cancel(k) => match self.ids[usize::from(k)] {
                Some(id) => Stimulus::Feed(Party::Client, Input::Command(Command::Cancel(id))),
                None => Stimulus::Nothing,
            },
            Step::Deliver { to, index } => Stimulus::Feed(to, Input::Receive(msg(to, index))),
            Step::Lose { to, index } => Stimulus::Emit(Event::Lost {
                from: to.peer(),
                msg: msg(to, index),
            }),
            Step::Duplicate { to, index } => Stimulus::Emit(Event::Duplicated {
                from: to.peer(),
                msg: msg(to, index),
            }),
            Step::WorkDone(p, id) => Stimulus::Feed(p, Input::WorkDone(id)),
            Step::Progress(p, id) => Stimulus::Feed(p, Input::WorkProgress(id)),
            Step::Fire(p, t) => Stimulus::Feed(p, Input::TimerFired(t)),
            Step::Abort(p, id) => Stimulus::Feed(p, Input::InternalCancel(id)),
            Step::Malformed => {
                Stimulus::Feed(Party::Client, Input::Command(Command::MalformedCancel))
            }
            Step::ServerSend => {
                Stimulus::Feed(Party::Server, Input::Command(Command::Send { task: false }))
            }
            Step::ServerCancel(k) => match self.server.ids[usize::from(k)] {
                Some(id) => Stimulus::Feed(Party::Server, Input::Command(Command::Cancel(id))),
                None => Stimulus::Nothing,
            },
            Step::ServerMalformed => {
                Stimulus::Feed(Party::Server, Input::Command(Command::MalformedCancel))
            }
            Step::Spawn(p, id) => Stimulus::Feed(p, Input::Command(Command::SendNested(id))),
            Step::DeliverGet => match self.http.get.first() {
                Some(&m) => Stimulus::Feed(Party::Client, Input::Receive(m)),
                None => Stimulus::Nothing,
            },
            Step::StreamClosed(id) => Stimulus::Feed(Party::Server, Input::StreamClosed(id)),
            Step::LoseStream(id) => Stimulus::Feed(Party::Client, Input::StreamLost(id)),
            Step::ResumeStream(id) => Stimulus::Feed(Party::Client, Input::StreamResumed(id)),
        }
    }

    /// Applies one step (one of `enabled`): the driver's own part first (the message leaves
    /// the network, the work or timer is done), then what it shows the parties.
    pub fn apply(&mut self, scenario: &Scenario, step: Step) {
        let b = bounds(scenario);
        self.steps += 1;
        self.world.now = self.steps;
        let stimulus = self.stimulus(step, b.tasks);
        // Whether the step delivers a message its receiver must not answer by sending.
        let quiet = cfg!(debug_assertions) && self.delivers_quiet(step);
        match self.listed(step) {
            // The steps both forms take: the driver's part is written once, for both.
            Some(c) => driver::take(self, c, b.fifo),
            // Steps only the plain form takes: a flat search refuses the searches that have
            // them (`Layout::new`), so they are written here alone.
            None => match step {
                Step::ServerSend => self.server.sent += 1,
                Step::ServerCancel(k) => self.server.cancels[usize::from(k)] += 1,
                Step::ServerMalformed => self.server.malformed_left -= 1,
                Step::Spawn(p, id) => {
                    if let Some(i) = self.tree_record(p.peer(), id) {
                        self.count_spawn(i);
                    }
                }
                Step::DeliverGet
                | Step::StreamClosed(_)
                | Step::LoseStream(_)
                | Step::ResumeStream(_) => self.http_apply(step),
                // (Work or a timer this state does not hold: nothing to take.)
                _ => {}
            },
        }
        // The application asking to send learns the id of its request (a reused id need not
        // be the largest in flight).
        let asked = match step {
            Step::Send => Some(usize::from(self.sent - 1)),
            Step::ServerSend => Some(usize::from(self.server.sent - 1)),
            _ => None,
        };
        match stimulus {
            Stimulus::Feed(party, input) => self.feed(&b, party, input, asked),
            Stimulus::Emit(event) => self.world.emit(event),
            Stimulus::Nothing => {}
        }
        // The reduction on a FIFO link relies on this (see `super::partial_order`).
        debug_assert!(
            !quiet || !self.outs.iter().any(|o| matches!(o, Output::Send(_))),
            "a quiet message made its receiver send: {stimulus:?} -> {:?}",
            self.outs
        );
    }

    /// Feeds one input and carries out what the endpoint did (see [`carry_out`]); its
    /// outputs stay in `outs`. With `asked`, the input was the application's request to send:
    /// the id of the work request it made is recorded in the slot of the party's script.
    fn feed(&mut self, b: &Bounds, party: Party, input: Input, asked: Option<usize>) {
        let mut outs = core::mem::take(&mut self.outs);
        outs.clear();
        outs.extend_from_slice(self.world.feed(party, input));
        carry_out(
            party,
            &outs,
            &mut Carrying {
                e: self,
                b,
                asked: asked.map(|k| (party, k)),
            },
        );
        self.outs = outs;
    }

    /// Appends the packed state (see [`Explorer`]), replacing what `out` held.
    pub fn pack(&self, out: &mut Vec<u8>) {
        out.clear();
        self.pack_state(out);
    }

    /// Becomes the state `bytes` packs (written by [`Explorer::pack`] from a state of the same
    /// initial scenario), keeping allocations. The checker starts a fresh verdict, so
    /// [`Explorer::reached`] and the violations afterwards are those of the steps applied
    /// since.
    pub fn unpack(&mut self, bytes: &[u8]) -> Result<(), PackError> {
        self.dirty = Dirty::ALL;
        let root = self.root;
        let mut r = Reader::new(bytes);
        self.unpack_state(&mut r)?;
        if self.root != root {
            let theirs = self.root;
            self.root = root;
            return Err(PackError::BadTag("state of this initial scenario", theirs));
        }
        if !r.is_empty() {
            return Err(PackError::BadTag("end of state", 0));
        }
        Ok(())
    }

    /// Renames work-request ids in place to this state's canonical relabelling: ids are handed
    /// out again in the order of what each request's state looks like (every component's
    /// record of it, its messages and their FIFO positions, its work, timers and cancels), so
    /// states that differ only by a permutation of interchangeable requests become equal.
    /// The result is a key, not a state to expand: its steps are listed in another order.
    /// Only sound where [`super::symmetric`] holds. Returns whether anything could move
    /// (false with fewer than two requests sent: the state is then left as it was).
    pub fn canonicalize(&mut self, scenario: &Scenario) -> bool {
        let sent = usize::from(self.sent);
        let ids: SmallVec<[RequestId; 8]> = self.ids[..sent].iter().flatten().copied().collect();
        if ids.len() < 2 {
            return false;
        }
        let fifo = bounds(scenario).fifo;
        let mut by_look: SmallVec<[(u64, RequestId); 8]> =
            ids.iter().map(|&x| (self.signature(x, fifo), x)).collect();
        by_look.sort_unstable();
        let mut slots = ids;
        slots.sort_unstable();
        let map: SmallVec<[(RequestId, RequestId); 8]> = by_look
            .iter()
            .zip(&slots)
            .map(|(&(_, from), &to)| (from, to))
            .collect();
        self.relabel_by(&map, fifo);
        true
    }

    /// Everything about request `x` except its id.
    fn signature(&self, x: RequestId, fifo: bool) -> u64 {
        let mut h = StableHasher::default();
        self.world.hash_request(x, &mut h);
        for q in &self.net {
            0xFFu8.hash(&mut h);
            for (pos, m) in q.iter().enumerate() {
                if m.request_id() == Some(x) {
                    if fifo {
                        pos.hash(&mut h);
                    }
                    m.with_request_id(RequestId::Null).hash(&mut h);
                }
            }
        }
        for &(p, y) in self.work.iter().chain(&self.progressed) {
            if y == x {
                p.hash(&mut h);
            }
        }
        1u8.hash(&mut h);
        for &(p, t) in &self.timers {
            if t == Timer::RequestTimeout(x) {
                p.hash(&mut h);
            }
        }
        for (k, id) in self.ids.iter().enumerate() {
            if *id == Some(x) {
                self.cancels[k].hash(&mut h);
            }
        }
        h.finish()
    }

    /// Renames request ids everywhere (see [`Relabel`]), then puts back in order what is kept
    /// sorted: queues on a reordering link, work, timers, and the application's requests by
    /// their new ids.
    fn relabel_by(&mut self, map: &[(RequestId, RequestId)], fifo: bool) {
        self.dirty = Dirty::ALL;
        self.relabel(&|x| rename(map, x));
        if !fifo {
            self.net.iter_mut().for_each(|q| q.sort_unstable());
        }
        self.work.sort_unstable();
        self.progressed.sort_unstable();
        self.timers.sort_unstable();
        let sent = usize::from(self.sent);
        let mut apps: SmallVec<[(Option<RequestId>, u8); 8]> =
            (0..sent).map(|k| (self.ids[k], self.cancels[k])).collect();
        apps.sort_unstable();
        for (k, (id, c)) in apps.into_iter().enumerate() {
            self.ids[k] = id;
            self.cancels[k] = c;
        }
    }

    /// Ends the run here and takes the verdict; the state is spent (unpack another into it).
    pub fn end(&mut self, quiescent: bool) -> Verdict {
        self.world.end(quiescent);
        self.world.checker_mut().take_verdict()
    }

    /// Whether a MUST clause was broken since the state was made or unpacked.
    pub fn violated(&self) -> bool {
        self.world.checker().failed()
    }

    /// Whether only SHOULD clauses were broken since the state was made or unpacked.
    pub fn warned(&self) -> bool {
        let c = self.world.checker();
        c.broke_something() && !c.failed()
    }

    /// The races reached since the state was made or unpacked.
    pub fn reached(&self) -> PropertySet {
        self.world.checker().verdict().reached
    }
}

/// A state carrying out one input's outputs: messages join the queue towards the peer, work
/// and armed timers join their tables (a timer only where the bounds explore it), and each
/// table changed is marked dirty.
struct Carrying<'a> {
    e: &'a mut Explorer,
    b: &'a Bounds,
    /// The party whose application asked to send, and the slot of its script that learns the
    /// id of the first work request it sends.
    asked: Option<(Party, usize)>,
}

impl Effects for Carrying<'_> {
    fn send(&mut self, from: Party, msg: Message) {
        // (Streamable HTTP's streams are the plain form's alone.)
        if self.b.http {
            return self.e.http_send(from, msg);
        }
        driver::carry(self.e, from, Effect::Send(msg), self.b.fifo);
    }

    /// Records the application's id (the slot of its script that asked learns it).
    fn request(&mut self, from: Party, id: RequestId, method: Method) {
        let e = &mut *self.e;
        if let Some((p, k)) = self.asked
            && p == from
            && method.is_work_of(from)
        {
            match from {
                Party::Client => e.ids[k] = Some(id),
                Party::Server => e.server.ids[k] = Some(id),
            }
            self.asked = None;
        }
    }

    fn start_work(&mut self, party: Party, id: RequestId) {
        driver::carry(self.e, party, Effect::StartWork((party, id)), self.b.fifo);
    }

    fn abort_work(&mut self, party: Party, id: RequestId) {
        driver::carry(self.e, party, Effect::AbortWork((party, id)), self.b.fifo);
    }

    fn arm(&mut self, party: Party, timer: Timer) {
        if self.b.explores(timer) {
            driver::carry(self.e, party, Effect::Arm((party, timer)), self.b.fifo);
        }
    }

    fn disarm(&mut self, party: Party, timer: Timer) {
        driver::carry(self.e, party, Effect::Disarm((party, timer)), self.b.fifo);
    }

    fn close_stream(&mut self, _: Party, id: RequestId) {
        self.e.http_close(id);
    }
}

/// The plain state's tables edited in values, each table changed marked dirty.
impl Driver for Explorer {
    #[inline(always)]
    fn insert_msg(&mut self, to: Party, i: usize, m: Message) {
        self.dirty |= Dirty::NET[to.index()];
        self.net[to.index()].insert(i, m);
    }
    #[inline(always)]
    fn sorted_msg_place(&self, to: Party, m: Message) -> usize {
        self.net[to.index()].partition_point(|y| *y <= m)
    }
    #[inline(always)]
    fn remove_msg(&mut self, to: Party, i: usize) {
        self.dirty |= Dirty::NET[to.index()];
        self.net[to.index()].remove(i);
    }
    #[inline(always)]
    fn insert_work(&mut self, w: (Party, RequestId)) {
        self.dirty |= Dirty::WORK;
        insert_sorted(&mut self.work, w);
    }
    #[inline(always)]
    fn remove_work(&mut self, i: usize) {
        self.dirty |= Dirty::WORK;
        self.work.remove(i);
    }
    #[inline(always)]
    fn insert_progressed(&mut self, w: (Party, RequestId)) {
        self.dirty |= Dirty::PROGRESSED;
        insert_sorted(&mut self.progressed, w);
    }
    #[inline(always)]
    fn remove_progressed(&mut self, i: usize) {
        self.dirty |= Dirty::PROGRESSED;
        self.progressed.remove(i);
    }
    #[inline(always)]
    fn insert_timer(&mut self, t: (Party, Timer)) {
        self.dirty |= Dirty::TIMERS;
        insert_sorted(&mut self.timers, t);
    }
    #[inline(always)]
    fn remove_timer(&mut self, i: usize) {
        self.dirty |= Dirty::TIMERS;
        self.timers.remove(i);
    }
    #[inline(always)]
    fn count(&mut self, c: Counter) {
        match c {
            // The application learns the new request's id when the client is fed.
            Counter::Sent => {
                self.sent += 1;
                self.dirty |= Dirty::IDS;
            }
            Counter::Cancelled(k) => {
                self.cancels[usize::from(k)] += 1;
                self.dirty |= Dirty::CANCELS;
            }
            Counter::Duplicated => self.duplicates_left -= 1,
            Counter::Malformed => self.malformed_left -= 1,
        }
    }
}

impl StepView for Explorer {
    type Msg = Message;
    type Work = (Party, RequestId);
    type Timer = (Party, Timer);
    fn sent(&self) -> u8 {
        self.sent
    }
    fn client_ready(&self) -> bool {
        self.world.endpoint(Party::Client).is_ready()
    }
    fn cancels(&self, k: u8) -> u8 {
        self.cancels[usize::from(k)]
    }
    fn has_id(&self, k: u8) -> bool {
        self.ids[usize::from(k)].is_some()
    }
    fn queue(&self, to: Party) -> &[Message] {
        &self.net[to.index()]
    }
    fn is_request(&self, m: Message) -> bool {
        matches!(m, Message::Request { .. })
    }
    fn held(&self, to: Party, i: usize) -> bool {
        self.http.on() && to == Party::Client && self.http_held(i)
    }
    fn work(&self) -> &[(Party, RequestId)] {
        &self.work
    }
    fn progressed(&self) -> &[(Party, RequestId)] {
        &self.progressed
    }
    fn timers(&self) -> &[(Party, Timer)] {
        &self.timers
    }
    fn duplicates_left(&self) -> u8 {
        self.duplicates_left
    }
    fn malformed_left(&self) -> u8 {
        self.malformed_left
    }
    // Requests are numbered as `Explorer::request_number` numbers them.
    fn next_request(&self) -> u32 {
        match self.nested {
            true => self.tree_len() as u32 + 1,
            false => u32::from(self.sent) + 1,
        }
    }
    fn app_request(&self, k: u8) -> Option<u32> {
        match self.nested {
            true => Some(self.request_number(Party::Client, self.ids[usize::from(k)]?)),
            false => Some(u32::from(k) + 1),
        }
    }
    fn msg_request(&self, to: Party, m: Message) -> Option<u32> {
        self.message_request(to, &m)
    }
    fn msg_class(&self, to: Party, m: Message) -> MsgClass {
        self.class_of(to, &m)
    }
    fn work_of(&self, (p, id): (Party, RequestId)) -> (Party, u32) {
        (p, self.request_number(p.peer(), id))
    }
    fn timer_of(&self, (p, t): (Party, Timer)) -> (Party, TimerOf) {
        let what = match t {
            Timer::InitTimeout => TimerOf::Init,
            // Without trees a request never waits for a worker where the reduction applies,
            // and is answered on its own steps only.
            Timer::RequestTimeout(id) => TimerOf::Request(
                self.request_number(p, id),
                self.nested
                    && (self.world.endpoint(p.peer()).received(id)).is_some_and(|s| s.is_open()),
            ),
        };
        (p, what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explorer::ExploreSpec;
    use crate::link::Order;
    use cancelcheck_model::pack::Restore;
    use cancelcheck_model::{Behaviour, Dialect};

    /// A copy that took a step and was restored from its source is its source again, in every
    /// field of the state (the packed bytes, derived from the declaration) and in what the
    /// search reads of the path: `restore_from` copies back only the tables a step changed, so
    /// a field it forgets would show here. Trees, server requests, duplicates and timers
    /// make every table change.
    #[test]
    fn a_restored_state_is_its_source_again() {
        let (mut checked, mut a, mut b) = (0, Vec::new(), Vec::new());
        for order in [Order::Fifo, Order::Reordering] {
            let mut spec = ExploreSpec::new(Dialect::Mcp20251125, Behaviour::Honour, 2, order);
            spec.timeouts = true;
            spec.progress = true;
            spec.duplicate = true;
            spec.malformed_cancel = true;
            spec.server_requests = 1;
            spec.nesting = crate::scenario::Nesting {
                depth: 2,
                fanout: 1,
            };
            let s = spec.scenario();
            let mut level = vec![Explorer::new(&s, 0, false)];
            let mut steps = Vec::new();
            for _ in 0..5 {
                let mut next = Vec::new();
                for src in &level {
                    src.enabled(&s, &mut steps);
                    let mut copy = src.clone();
                    for &step in &steps {
                        copy.apply(&s, step);
                        next.push(copy.clone());
                        copy.restore_from(src);
                        src.pack(&mut a);
                        copy.pack(&mut b);
                        assert_eq!(a, b, "{order:?}: restored after {step:?}");
                        assert_eq!(
                            (copy.steps, copy.violated(), copy.reached()),
                            (src.steps, src.violated(), src.reached())
                        );
                        checked += 1;
                    }
                }
                next.truncate(200);
                level = next;
            }
        }
        assert!(checked > 500, "only {checked} steps");
    }

    /// With trees, what the explorer reads of them comes from the checker's records: how deep
    /// a request stands, the script slot of its tree's root, its number (by requester and id,
    /// whatever order the parties' sends interleaved in), and the spawn steps taken on its
    /// behalf against the fanout; alike after the state is packed and unpacked (the checker's
    /// records then come back sorted).
    #[test]
    fn request_trees_are_read_from_the_checkers_records() {
        let mut spec = ExploreSpec::new(Dialect::Mcp20251125, Behaviour::Honour, 2, Order::Fifo);
        spec.nesting = crate::scenario::Nesting {
            depth: 2,
            fanout: 1,
        };
        let s = spec.scenario();
        let mut e = Explorer::new(&s, 0, false);
        let mut steps = Vec::new();
        let mut take = |e: &mut Explorer, want: &dyn Fn(Step) -> bool| {
            e.enabled(&s, &mut steps);
            let step = *steps.iter().find(|&&st| want(st)).expect("enabled");
            e.apply(&s, step);
        };
        let deliver = |to| move |st| matches!(st, Step::Deliver { to: t, index: 0 } if t == to);
        take(&mut e, &deliver(Party::Server));
        take(&mut e, &deliver(Party::Client));
        // The client's first request, received; a request sent on its behalf; the second.
        take(&mut e, &|st| st == Step::Send);
        take(&mut e, &deliver(Party::Server));
        let first = e.ids[0].expect("sent");
        take(&mut e, &|st| st == Step::Spawn(Party::Server, first));
        take(&mut e, &|st| st == Step::Send);
        let second = e.ids[1].expect("sent");
        let nested = match e.net[Party::Client.index()].last() {
            Some(&Message::Request { id, .. }) => id,
            other => panic!("{other:?}"),
        };
        let mut unpacked = Explorer::new(&s, 0, false);
        let mut bytes = Vec::new();
        e.pack(&mut bytes);
        unpacked.unpack(&bytes).expect("unpacks");
        for e in [&e, &unpacked] {
            let rec = |p, id| e.tree_record(p, id).expect("recorded");
            let depth = |p, id| e.world.checker().parentage().depth(rec(p, id));
            assert_eq!(e.tree_len(), 3);
            assert_eq!(depth(Party::Server, nested), 2);
            assert_eq!(depth(Party::Client, second), 1);
            assert_eq!(e.root_slot(rec(Party::Server, nested)), 0);
            assert_eq!(e.root_slot(rec(Party::Client, second)), 1);
            // The client's requests first, then the server's.
            assert_eq!(e.request_number(Party::Client, first), 1);
            assert_eq!(e.request_number(Party::Client, second), 2);
            assert_eq!(e.request_number(Party::Server, nested), 3);
            assert_eq!(e.root_slot_at(2), 0);
            assert_eq!(e.spawned(rec(Party::Client, first)), 1);
            assert_eq!(e.spawned(rec(Party::Client, second)), 0);
        }
        // The first request spent its fanout; the nested one, at the deepest level, has none.
        take(&mut e, &deliver(Party::Server));
        take(&mut e, &deliver(Party::Client));
        e.enabled(&s, &mut steps);
        let spawns: Vec<Step> = steps
            .iter()
            .copied()
            .filter(|st| matches!(st, Step::Spawn(..)))
            .collect();
        assert_eq!(spawns, [Step::Spawn(Party::Server, second)]);
    }
}
