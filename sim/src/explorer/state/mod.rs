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
use cancelcheck_model::pack::{CloneState, Pack, PackError, Reader, Relabel, State};
use cancelcheck_model::{Command, Input, Message, Output, Party, RequestId};
use cancelcheck_properties::{Event, PropertySet, Verdict};
use smallvec::SmallVec;

mod canonical;
mod carry;
mod http;
mod reduce;
mod step_view;
#[cfg(test)]
mod tests;
mod trees;
use http::Http;
pub(super) use reduce::ample;
use trees::Spawned;

use super::bounds;
use super::driver;
use super::flat::kinds::{Absent, Byte, Inert, Parts, PerRequest, Table};
use super::steps::Listed;
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
