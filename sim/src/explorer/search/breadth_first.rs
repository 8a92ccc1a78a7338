//! Breadth-first search: level by level on several threads, merged in a fixed order, so the
//! first counterexample is a shortest one and the counts do not depend on the threads.
//!
//! Each thread expands a contiguous share of a level. The first share's successors come first
//! in the level's order, so its thread puts them straight into the visited set and the next
//! level as it makes them; the other threads keep theirs as candidates (each distinct one
//! once per share), which are merged, in order, once the level is expanded. Each later share's
//! new states are gathered on its own thread at the start of the next level, while the first
//! thread is already expanding its share of it. The threads beside the calling one are
//! started once a search ([`Worker`]) and handed each level's jobs.

use cancelcheck_properties::{InvariantId, PropertySet};

use super::expander::{Expander, Roots};
use super::form::Form;
use super::workers::{Worker, join, run_each};
use super::{Finding, Level, SearchOptions, SearchReport, growable, out_of_memory, reserved};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::explorer::hash::{FingerprintSet, SHARDS, ShardedSet};
use crate::explorer::{partial_order, symmetric};
use crate::scenario::Scenario;

/// A state's place in the breadth-first search tree: the state it was first reached from and
/// the step that reached it (for a root: `parent == u32::MAX`, `choice` its initial index).
#[derive(Clone, Copy)]
struct Node {
    parent: u32,
    choice: u32,
}

fn path_to(nodes: &[Node], mut i: u32) -> Vec<u32> {
    let mut path = Vec::new();
    loop {
        let n = &nodes[i as usize];
        path.push(n.choice);
        if n.parent == u32::MAX {
            break;
        }
        i = n.parent;
    }
    path.reverse();
    path
}

/// Packed states end to end in one buffer. While every state has the same length (as flat
/// rows do) no list of where each ends is kept: the states are found by arithmetic.
#[derive(Default)]
struct Packed {
    bytes: Vec<u8>,
    /// Where each state ends, once some state's length differs from the first's (empty before).
    ends: Vec<usize>,
    /// The first state's length.
    stride: usize,
    len: usize,
}

impl Packed {
    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, i: usize) -> &[u8] {
        if self.ends.is_empty() {
            return &self.bytes[i * self.stride..][..self.stride];
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    fn push(&mut self, state: &[u8]) {
        if self.len == 0 {
            self.stride = state.len();
        }
        if self.ends.is_empty() && state.len() != self.stride {
            // From here on each state's end is listed.
            self.ends.reserve(self.len + 1);
            self.ends.extend((1..=self.len).map(|k| k * self.stride));
        }
        self.bytes.extend_from_slice(state);
        if !self.ends.is_empty() {
            self.ends.push(self.bytes.len());
        }
        self.len += 1;
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.len = 0;
    }

    fn held_bytes(&self) -> u64 {
        (self.bytes.capacity() + self.ends.capacity() * core::mem::size_of::<usize>()) as u64
    }
}

/// A level's states in parts, in order: the first filled by the first share's thread as the
/// level before was expanded (the roots: the first part alone), each later one gathered from
/// that share's candidates on its own thread, as the level itself is expanded.
#[derive(Default)]
struct Parts {
    parts: Vec<Packed>,
    /// The index of each part's first state.
    starts: Vec<usize>,
    len: usize,
}

impl Parts {
    fn len(&self) -> usize {
        self.len
    }

    /// Takes note of where each part starts, given how many states each holds (or will hold
    /// once gathered).
    fn set_lens(&mut self, lens: impl Iterator<Item = usize>) {
        self.starts.clear();
        self.len = 0;
        for n in lens {
            self.starts.push(self.len);
            self.len += n;
        }
    }

    fn held_bytes(&self) -> u64 {
        self.parts.iter().map(Packed::held_bytes).sum::<u64>()
            + (self.starts.capacity() * core::mem::size_of::<usize>()) as u64
    }
}

/// A level's states as a thread reads them, by index in the level.
trait LevelView {
    fn get(&self, i: usize) -> &[u8];
}

/// Every part of a level, gathered.
#[derive(Clone, Copy)]
struct View<'a> {
    parts: &'a [&'a Packed],
    starts: &'a [usize],
}

impl<'a> View<'a> {
    fn at(self, i: usize) -> &'a [u8] {
        let p = self.starts.partition_point(|&s| s <= i) - 1;
        self.parts[p].get(i - self.starts[p])
    }
}

impl LevelView for View<'_> {
    fn get(&self, i: usize) -> &[u8] {
        self.at(i)
    }
}

/// A level as the first share's thread reads it while the later parts are being gathered: the
/// first part at once, the later parts once the thread gathering them sends them (which it
/// waits for only if its share reaches past the first part).
struct FirstView<'a> {
    first: &'a Packed,
    starts: &'a [usize],
    gathered: std::sync::mpsc::Receiver<&'a [Packed]>,
    parts: std::cell::OnceCell<Vec<&'a Packed>>,
}

impl LevelView for FirstView<'_> {
    fn get(&self, i: usize) -> &[u8] {
        if i < self.first.len() {
            return self.first.get(i);
        }
        let parts = self.parts.get_or_init(|| {
            let later = self.gathered.recv().expect("the later parts were gathered");
            core::iter::once(self.first).chain(later).collect()
        });
        View {
            parts,
            starts: self.starts,
        }
        .at(i)
    }
}

/// Gathers the new candidates of `share`, in order, into `part` and their nodes into `nodes`
/// (under a memory bound the merge made room for all of them first).
fn gather(part: &mut Packed, share: &Share, nodes: &mut Vec<Node>) {
    part.clear();
    nodes.clear();
    for ((c, row), fresh) in with_rows(&share.candidates, &share.bytes).zip(&share.fresh) {
        if fresh.load(Ordering::Relaxed) {
            part.push(row);
            nodes.push(Node {
                parent: c.parent,
                choice: c.choice,
            });
        }
    }
}

/// Each of `candidates` with its packed state, the states lying end to end in `rows`.
fn with_rows<'a>(
    candidates: &'a [Candidate],
    rows: &'a [u8],
) -> impl Iterator<Item = (&'a Candidate, &'a [u8])> {
    candidates.iter().scan(0, move |at: &mut usize, c| {
        let row = &rows[*at..][..c.len as usize];
        *at += row.len();
        Some((c, row))
    })
}

/// A successor that breaks an invariant, or a quiescent state that breaks an eventual one
/// (`choice: None`).
#[derive(Clone)]
struct Bad {
    parent: u32,
    choice: Option<u32>,
    broken: Vec<InvariantId>,
}

/// A successor, kept until it is put into the visited set (its packed state follows those of
/// the candidates before it, in the bytes they are kept in).
#[derive(Clone, Copy)]
struct Candidate {
    parent: u32,
    choice: u32,
    fingerprint: u64,
    len: u32,
}

/// What one thread made of its share of a level.
#[derive(Default)]
pub(super) struct Share {
    /// Its successors to be merged ([`Sink::Later`]): the first of equal ones in order.
    candidates: Vec<Candidate>,
    /// The packed states of the candidates, end to end.
    bytes: Vec<u8>,
    /// The fingerprints of the candidates (of this level's share).
    kept: FingerprintSet,
    /// The successors of the last two states expanded, one buffer each in turn: those of a
    /// state are put into the visited set, or kept as candidates, once the next state's are
    /// made (when their slots, asked for earlier, have arrived).
    recent: [Recent; 2],
    generated: u64,
    /// States expanded through an ample set smaller than their enabled steps.
    reduced: u64,
    reached: PropertySet,
    /// The first quiescent state breaking an eventual property, and the first successor
    /// breaking an invariant, in merge order: a MUST (`bad`) or only SHOULDs (`warn`).
    quiescent_bad: Option<Bad>,
    child_bad: Option<Bad>,
    quiescent_warn: Option<Bad>,
    child_warn: Option<Bad>,
    /// Whether it stopped before the end of its range, at its memory allowance.
    cut: bool,
    /// Per candidate, whether the merge found it new (set by the thread filling its shard).
    fresh: Vec<AtomicBool>,
    /// Where the candidates of each shard of the visited set start in `by_shard` (and, last,
    /// where they all end).
    shard_starts: [usize; SHARDS + 1],
    /// The candidates (fingerprints and places) shard by shard of the visited set, in order
    /// within each: each thread of the merge reads only the candidates of its own shards, one
    /// after another. One list, so that its room depends only on how many candidates there
    /// are, not on how their fingerprints fall among the shards.
    by_shard: Vec<(u64, u32)>,
    /// Whether its candidates' packed states differ in length (then a part gathered from
    /// them lists where each ends).
    uneven: bool,
}

/// One state's successors: their candidates and packed states.
#[derive(Default)]
struct Recent {
    candidates: Vec<Candidate>,
    rows: Vec<u8>,
}

/// Where a share's successors go.
enum Sink<'s> {
    /// The first share: each successor goes straight into the visited set and, if new, into
    /// the next level, in the order the merge keeps them (so the same states, tree and counts,
    /// without candidates to keep and merge).
    Direct(Direct<'s>),
    /// Every later share: each successor becomes a candidate unless an equal one of the share
    /// already is (the first is the one the merge would keep), and the candidates are merged
    /// after the level in order (the first share's thread fills the visited set meanwhile).
    Later,
}

/// The first thread's visited set and next level (see [`Sink::Direct`]).
struct Direct<'s> {
    seen: &'s mut ShardedSet,
    next: &'s mut Packed,
    nodes: &'s mut Vec<Node>,
    /// New states the state bound still lets in (then none is kept).
    room: usize,
    /// The bytes the visited set, the next level and the nodes held as the level began (which
    /// the search counts apart).
    from: u64,
}

impl Direct<'_> {
    /// The bytes the visited set, the next level and the nodes hold, counting growths about to
    /// happen.
    fn held_bytes(&self) -> u64 {
        self.seen.held_bytes()
            + self.seen.next_growth()
            + growable(self.next.bytes.len(), self.next.bytes.capacity(), 1)
            + growable(
                self.next.ends.len(),
                self.next.ends.capacity(),
                core::mem::size_of::<usize>(),
            )
            + growable(
                self.nodes.len(),
                self.nodes.capacity(),
                core::mem::size_of::<Node>(),
            )
    }
}

impl Sink<'_> {
    fn prefetch(&self, key: u64, kept: &FingerprintSet) {
        match self {
            Sink::Direct(d) => d.seen.prefetch(key),
            Sink::Later => kept.prefetch(key),
        }
    }

    /// The bytes it holds beyond what it held when the level began, counting growths about
    /// to happen.
    fn held_bytes(&self) -> u64 {
        match self {
            Sink::Direct(d) => d.held_bytes().saturating_sub(d.from),
            Sink::Later => 0,
        }
    }
}

/// Expands states `range` of `level` into `x.share` (state `i` is node `base + i` of the
/// tree): every successor is generated and checked, then goes to `sink` (see [`Sink`]). With
/// an `allowance`, it stops (and says so in `cut`) once its buffers, its memo and what it
/// added to `sink` would hold more bytes than that.
fn expand_share<F: Form>(
    x: &mut Expander<'_, F>,
    level: &impl LevelView,
    base: u32,
    range: core::ops::Range<usize>,
    mut sink: Sink<'_>,
    allowance: Option<u64>,
) {
    let mut out = core::mem::take(&mut x.share);
    out.candidates.clear();
    out.bytes.clear();
    out.kept.clear();
    out.generated = 0;
    out.reduced = 0;
    out.reached = PropertySet::default();
    out.quiescent_bad = None;
    out.child_bad = None;
    out.quiescent_warn = None;
    out.child_warn = None;
    out.cut = false;
    // The successors of the state being expanded go to `recent[cur]`, of the one before to
    // `recent[cur ^ 1]`: those are put in once this state's are made, when their slots, asked
    // for earlier, have arrived.
    let mut cur = 0;
    let listing_room = out.listing_room();
    for i in range {
        let state = level.get(i);
        let node = base + i as u32;
        let root = x.load(state);
        out.reduced += u64::from(x.reduced());
        if x.steps.is_empty() {
            // Quiescent: the eventual properties are judged here.
            let v = x.end_base(root);
            let slot = match v.failed() {
                true => &mut out.quiescent_bad,
                false => &mut out.quiescent_warn,
            };
            if !v.passed() && slot.is_none() {
                *slot = Some(Bad {
                    parent: node,
                    choice: None,
                    broken: v.violations.iter().map(|v| v.invariant).collect(),
                });
            }
            continue;
        }
        let before = out.bytes.len() + out.candidates.len() * core::mem::size_of::<Candidate>();
        out.recent[cur].candidates.clear();
        out.recent[cur].rows.clear();
        for j in 0..x.steps.len() {
            let (choice, step) = x.steps[j];
            let e = x.step(root, step, j + 1 == x.steps.len());
            out.generated += 1;
            out.reached = out.reached.union(e.reached());
            if e.violated() {
                if out.child_bad.is_none() {
                    out.child_bad = Some(Bad {
                        parent: node,
                        choice: Some(choice),
                        broken: x.broken(root),
                    });
                }
                continue;
            }
            if e.warned() && out.child_warn.is_none() {
                out.child_warn = Some(Bad {
                    parent: node,
                    choice: Some(choice),
                    broken: x.broken(root),
                });
            }
            let (fingerprint, packed) = x.key(root);
            sink.prefetch(fingerprint, &out.kept);
            let r = &mut out.recent[cur];
            r.candidates.push(Candidate {
                parent: node,
                choice,
                fingerprint,
                len: packed.len() as u32,
            });
            r.rows.extend_from_slice(packed);
        }
        out.put(&mut sink, cur ^ 1);
        cur ^= 1;
        // Room is kept for the next state to add as much as this one did.
        let added = (out.bytes.len() + out.candidates.len() * core::mem::size_of::<Candidate>())
            .saturating_sub(before) as u64;
        if allowance.is_some_and(|a| {
            debug_assert_eq!(listing_room, out.listing_room(), "lists made mid-share");
            out.held_bytes_listing(listing_room)
                + F::held_bytes(&x.memo)
                + sink.held_bytes()
                + 2 * added
                > a
        }) {
            out.cut = true;
            break;
        }
    }
    out.put(&mut sink, cur ^ 1);
    // Made ready for the merge here, on this thread (the first thread has none).
    out.fresh.clear();
    out.fresh
        .resize_with(out.candidates.len(), || AtomicBool::new(false));
    let mut per_shard = [0; SHARDS];
    let first_len = out.candidates.first().map(|c| c.len);
    out.uneven = false;
    for c in &out.candidates {
        out.uneven |= Some(c.len) != first_len;
        per_shard[ShardedSet::shard(c.fingerprint)] += 1;
    }
    // Each shard's candidates placed after the earlier shards', in order.
    let mut at = 0;
    for (start, n) in out.shard_starts.iter_mut().zip(&mut per_shard) {
        *start = at;
        at += *n;
        *n = *start;
    }
    out.shard_starts[SHARDS] = at;
    out.by_shard.clear();
    out.by_shard.resize(at, (0, 0));
    for (k, c) in out.candidates.iter().enumerate() {
        let next = &mut per_shard[ShardedSet::shard(c.fingerprint)];
        out.by_shard[*next] = (c.fingerprint, k as u32);
        *next += 1;
    }
    x.share = out;
}

/// Puts the candidates of `shares` (in order) whose shard is one of `shards` (numbered from
/// `first`) into those shards, and marks those that were new: the first of equal candidates,
/// since equal candidates share a shard, which meets its candidates in order. Adds to `fresh`
/// how many of each share's were new.
fn mark_fresh(
    shares: &[&Share],
    first: usize,
    shards: &mut [FingerprintSet],
    fresh: &[AtomicUsize],
) {
    for (s, count) in shares.iter().zip(fresh) {
        let mut n = 0;
        for (i, shard) in shards.iter_mut().enumerate() {
            let list = &s.by_shard[s.shard_starts[first + i]..s.shard_starts[first + i + 1]];
            for (j, &(key, k)) in list.iter().enumerate() {
                // Ask for the slot of a candidate a few ahead, so that it is there when needed.
                if let Some(&(ahead, _)) = list.get(j + 8) {
                    shard.prefetch(ahead);
                }
                if shard.insert_in_room(key, ()) {
                    s.fresh[k as usize].store(true, Ordering::Relaxed);
                    n += 1;
                }
            }
        }
        count.fetch_add(n, Ordering::Relaxed);
    }
}

impl Share {
    /// Puts the successors in `recent[k]` where `sink` says, in order, and forgets them.
    #[inline(always)]
    fn put(&mut self, sink: &mut Sink<'_>, k: usize) {
        match sink {
            Sink::Direct(d) => self.admit(d, k),
            Sink::Later => self.keep(k),
        }
    }

    /// Keeps each successor in `recent[k]` as a candidate unless an equal one is kept.
    fn keep(&mut self, k: usize) {
        let r = &mut self.recent[k];
        for (c, row) in with_rows(&r.candidates, &r.rows) {
            if self.kept.insert(c.fingerprint, ()) {
                self.candidates.push(*c);
                self.bytes.extend_from_slice(row);
            }
        }
        r.candidates.clear();
    }

    /// Puts the successors in `recent[k]` into `d` in order, each new one into the next level
    /// while the state bound leaves room, and forgets them.
    fn admit(&mut self, d: &mut Direct<'_>, k: usize) {
        let r = &mut self.recent[k];
        for (c, row) in with_rows(&r.candidates, &r.rows) {
            if d.room > 0 && d.seen.insert(c.fingerprint) {
                d.next.push(row);
                d.nodes.push(Node {
                    parent: c.parent,
                    choice: c.choice,
                });
                d.room -= 1;
            }
        }
        r.candidates.clear();
    }

    /// The bytes its buffers hold, counting a growth about to happen.
    fn held_bytes(&self) -> u64 {
        self.held_bytes_listing(self.listing_room())
    }

    /// The room of its list by shard, in candidates (unchanged while a share is expanded: it
    /// is made once the share is).
    fn listing_room(&self) -> usize {
        self.by_shard.capacity()
    }

    /// [`Share::held_bytes`], given [`Share::listing_room`].
    fn held_bytes_listing(&self, room: usize) -> u64 {
        // Listed by shard: a fingerprint and a place per candidate.
        let listed = room.max(self.candidates.len());
        growable(self.bytes.len(), self.bytes.capacity(), 1)
            // (A state's successors, a few dozen, may make it grow; the first share keeps none.)
            + match self.kept.len() {
                0 => self.kept.held_bytes(),
                _ => self.kept.held_bytes_after(64),
            }
            + self
                .recent
                .iter()
                .map(|r| {
                    (r.rows.capacity()
                        + r.candidates.capacity() * core::mem::size_of::<Candidate>())
                        as u64
                })
                .sum::<u64>()
            + growable(
                self.candidates.len(),
                self.candidates.capacity(),
                core::mem::size_of::<Candidate>(),
            )
            + (listed * core::mem::size_of::<(u64, u32)>()) as u64
    }
}

/// Breadth-first search from `roots` by the step rules of `rules` (see [`roots`](super::expander::roots)); `None` if
/// the form `F` could not hold some state.
pub(super) fn search_breadth_first<F: Form>(
    rules: &Scenario,
    roots: &Roots,
    opts: &SearchOptions,
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> Option<SearchReport> {
    let sym = opts.symmetry && symmetric(rules);
    let por = opts.partial_order && partial_order(rules);
    let mut report = SearchReport::starting(sym, por);
    let threads = opts.threads.clamp(1, 64);
    let mut expanders: Vec<Expander<'_, F>> = (0..threads)
        .map(|_| Expander::new(rules, roots, sym, por))
        .collect::<Option<_>>()?;
    // The threads beside this one, kept for the whole search.
    let workers: Vec<Worker> = (1..threads).map(|_| Worker::new()).collect();
    let mut seen = ShardedSet::default();
    // The tree: a level's states are nodes `base..base + level.len()`, in order.
    let mut nodes: Vec<Node> = Vec::new();
    let mut level = Parts::default();
    level.parts.resize_with(threads, Packed::default);
    // Each part's new nodes, in order (kept from level to level): the first part's made by
    // the first share's thread, the others' as each part is gathered.
    let mut new_nodes: Vec<Vec<Node>> = (0..threads).map(|_| Vec::new()).collect();
    // (Keying may relabel a scratch state; scratch states are overwritten before every step.)
    let x = &mut expanders[0];
    for i in (0..x.states.len()).filter(|&i| roots.searched(i)) {
        report.total_states += 1;
        let (key, packed) = x.key(i);
        if seen.insert(key) {
            new_nodes[0].push(Node {
                parent: u32::MAX,
                choice: i as u32,
            });
            level.parts[0].push(packed);
        }
    }
    let roots_len = level.parts[0].len();
    level.set_lens((0..threads).map(|t| if t == 0 { roots_len } else { 0 }));
    let exact = opts.max_memory.is_some();
    // The first part of the next level as the first share fills it (then it and the level's
    // first part trade places).
    let mut spare = Packed::default();
    let mut depth = 0u32;
    while level.len() > 0 {
        report.max_depth = depth;
        if opts.max_depth.is_some_and(|d| depth >= d) {
            report.exhaustive = false;
            break;
        }
        // The level's first part's nodes join the tree now (the first share's thread makes
        // the next level's); the later parts' once they are gathered.
        let base = nodes.len() as u32;
        nodes.extend_from_slice(&new_nodes[0]);
        new_nodes[0].clear();
        // Expand in parallel: each thread a contiguous share, so that shares in thread order
        // are the level in order.
        let len = level.len();
        let chunk = len.div_ceil(threads);
        let range = |t: usize| (t * chunk).min(len)..((t + 1) * chunk).min(len);
        // What the search holds besides the threads' shares and memos, and what each thread
        // may then hold.
        let unique_before = seen.len();
        let held = |level: &Parts,
                    spare: &Packed,
                    new_nodes: &[Vec<Node>],
                    nodes: &Vec<Node>,
                    seen: &ShardedSet| {
            level.held_bytes()
                + spare.held_bytes()
                + (new_nodes.iter().map(Vec::capacity).sum::<usize>()
                    * core::mem::size_of::<Node>()) as u64
                + (nodes.capacity() * core::mem::size_of::<Node>()) as u64
                + seen.held_bytes()
        };
        let shared = F::count_shared(expanders.iter_mut().map(|x| &mut x.memo));
        let fixed = held(&level, &spare, &new_nodes, &nodes, &seen) + shared;
        let threads_held: u64 = expanders
            .iter()
            .map(|x| x.share.held_bytes() + F::held_bytes(&x.memo))
            .sum();
        let allowance = match opts.max_memory {
            Some(m) if fixed + threads_held > m => {
                return Some(out_of_memory(report, seen.len()));
            }
            Some(m) => Some((m - fixed) / threads as u64),
            None => None,
        };
        report.peak_bytes_held = report.peak_bytes_held.max(fixed + threads_held);
        spare.clear();
        // The state bound stops the search at the new state that reaches it (at the first new
        // state if the roots reached it).
        let room = opts.max_states.map_or(usize::MAX, |m| {
            usize::try_from(m)
                .unwrap_or(usize::MAX)
                .saturating_sub(unique_before)
                .max(1)
        });
        let (nodes0, later_nodes) = new_nodes.split_first_mut().expect("at least one thread");
        let from = seen.held_bytes()
            + spare.held_bytes()
            + (nodes0.capacity() * core::mem::size_of::<Node>()) as u64;
        let first = Sink::Direct(Direct {
            seen: &mut seen,
            next: &mut spare,
            nodes: nodes0,
            room,
            from,
        });
        // The first share on this thread; on the first worker, each later part gathered from
        // the candidates its share's thread kept (which that thread then reuses), in
        // parallel, then the later shares expanded, in parallel (the last share on the first
        // worker, each other on a worker of its own). The gathered parts are sent to
        // this thread too, should the first share reach past the first part.
        let (x0, later) = expanders.split_first_mut().expect("at least one thread");
        let (part0, later_parts) = level.parts.split_first_mut().expect("a first part");
        let (part0, starts) = (&*part0, &level.starts[..]);
        let (send, gathered) = std::sync::mpsc::channel();
        let rest = workers.get(1..).unwrap_or_default();
        let later_shares = move || {
            let shares = later.iter().map(|x| &x.share);
            run_each(
                rest,
                later_parts
                    .iter_mut()
                    .zip(shares)
                    .zip(later_nodes)
                    .map(|((part, share), nn)| move || gather(part, share, nn)),
            );
            let later_parts: &[Packed] = later_parts;
            // (The first share's thread may have finished without them.)
            let _ = send.send(later_parts);
            let parts: Vec<&Packed> = core::iter::once(part0).chain(later_parts).collect();
            debug_assert!(
                (0..parts.len())
                    .all(|p| { starts.get(p + 1).unwrap_or(&len) - starts[p] == parts[p].len() }),
                "each part gathered as many states as the merge found new"
            );
            let view = View {
                parts: &parts,
                starts,
            };
            let view = &view;
            run_each(
                rest,
                later.iter_mut().enumerate().map(|(t, x)| {
                    let range = range(t + 1);
                    move || expand_share(x, view, base, range, Sink::Later, allowance)
                }),
            );
        };
        let first_share = move || {
            let view = FirstView {
                first: part0,
                starts,
                gathered,
                parts: std::cell::OnceCell::new(),
            };
            expand_share(x0, &view, base, range(0), first, allowance);
        };
        match workers.first() {
            // One thread: its share is the first part.
            None => {
                drop(later_shares);
                first_share();
            }
            Some(w) => join(w, later_shares, first_share),
        }
        for nn in &new_nodes[1..] {
            nodes.extend_from_slice(nn);
        }
        if expanders.iter().any(|x| F::spoilt(&x.memo)) {
            return None;
        }
        let shared = F::count_shared(expanders.iter_mut().map(|x| &mut x.memo));
        let threads_held: u64 = expanders
            .iter()
            .map(|x| x.share.held_bytes() + F::held_bytes(&x.memo))
            .sum();
        // (The first share's thread grew the next level and the visited set meanwhile.)
        let fixed = held(&level, &spare, &new_nodes, &nodes, &seen) + shared;
        if opts.max_memory.is_none_or(|m| fixed + threads_held <= m) {
            report.peak_bytes_held = report.peak_bytes_held.max(fixed + threads_held);
        }
        let shares: Vec<&Share> = expanders.iter().map(|x| &x.share).collect();
        for s in &shares {
            report.total_states += s.generated;
            report.reduced_states += s.reduced;
            report.reached = report.reached.union(s.reached);
        }
        if !shares.iter().any(|s| s.cut) {
            report.levels.push(Level {
                unique: unique_before as u64,
                total: report.total_states,
                reduced: report.reduced_states,
                reached: report.reached,
            });
        }
        // A quiescent state's own violation is shallower than any successor's: report it first.
        let bad = shares
            .iter()
            .find_map(|s| s.quiescent_bad.clone())
            .or_else(|| shares.iter().find_map(|s| s.child_bad.clone()));
        if let Some(bad) = bad {
            let mut path = path_to(&nodes, bad.parent);
            path.extend(bad.choice);
            report.found.counterexample = Some(Finding {
                schedule: path.clone(),
                broken: bad.broken.clone(),
                level: depth,
            });
            report.counterexample = Some((path, bad.broken));
            report.unique_states = unique_before as u64;
            report.max_depth = depth + u32::from(bad.choice.is_some());
            if shares.iter().any(|s| s.cut) {
                report.exhaustive = false;
                report.bounded_by_memory = true;
            }
            return Some(report);
        }
        if report.warning.is_none() {
            let warn = shares
                .iter()
                .find_map(|s| s.quiescent_warn.clone())
                .or_else(|| shares.iter().find_map(|s| s.child_warn.clone()));
            report.warning = warn.map(|w| {
                let mut path = path_to(&nodes, w.parent);
                path.extend(w.choice);
                (path, w.broken)
            });
            report.found.warning = report.warning.clone().map(|(schedule, broken)| Finding {
                schedule,
                broken,
                level: depth,
            });
        }
        if shares.iter().any(|s| s.cut) {
            return Some(out_of_memory(report, unique_before));
        }
        // The first part of the next level was filled as the level expanded (the level's first
        // part, spare now, is held until the merge is done).
        core::mem::swap(&mut level.parts[0], &mut spare);
        let direct = level.parts[0].len();
        let fresh: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
        if threads == 1 {
            report.peak_states_held = report.peak_states_held.max((len + direct) as u64);
        } else {
            let candidates: usize = shares.iter().map(|s| s.candidates.len()).sum();
            // The merge puts up to every candidate in the next level (each share's in its
            // own part, gathered as the next level is expanded), the tree and the visited
            // set: make room first, if the budget allows.
            let parts_after: u64 = shares
                .iter()
                .zip(&level.parts)
                .zip(&new_nodes)
                .map(|((s, part), nn)| {
                    let n = s.candidates.len();
                    let ends = if s.uneven { n } else { 0 };
                    reserved(s.bytes.len(), part.bytes.capacity(), 1)
                        + reserved(ends, part.ends.capacity(), core::mem::size_of::<usize>())
                        + reserved(n, nn.capacity(), core::mem::size_of::<Node>())
                })
                .sum();
            let merging = parts_after
                + reserved(
                    nodes.len() + direct + candidates,
                    nodes.capacity(),
                    core::mem::size_of::<Node>(),
                )
                + seen.held_bytes_after(candidates)
                + spare.held_bytes()
                + shared
                + threads_held;
            if opts.max_memory.is_some_and(|m| merging > m) {
                return Some(out_of_memory(report, unique_before));
            }
            report.peak_bytes_held = report.peak_bytes_held.max(merging);
            report.peak_states_held = report
                .peak_states_held
                .max((len + direct + candidates) as u64);
            // Merge in order after the first share's: the first of equal states is kept. Which
            // candidates are new is worked out shard by shard of the visited set, the shards
            // shared out among the threads (the last piece on this thread, the others on a
            // worker each); each later share's new states are gathered on its own thread as
            // the next level is expanded.
            let per = SHARDS.div_ceil(threads.min(SHARDS));
            seen.fill_shards(
                |shards| {
                    let (shares, fresh) = (&shares, &fresh);
                    run_each(
                        &workers,
                        shards
                            .chunks_mut(per)
                            .enumerate()
                            .map(|(t, shards)| move || mark_fresh(shares, t * per, shards, fresh)),
                    )
                },
                |shards, slots| {
                    run_each(
                        &workers,
                        shards
                            .chunks_mut(per)
                            .zip(slots.chunks(per))
                            .map(|(shards, slots)| {
                                move || {
                                    for (shard, &n) in shards.iter_mut().zip(slots) {
                                        shard.settle_to(n);
                                    }
                                }
                            }),
                    )
                },
            );
            if exact {
                // The room each part's gathering would make, made now, as counted above.
                for ((part, share), nn) in level
                    .parts
                    .iter_mut()
                    .zip(&shares)
                    .zip(&mut new_nodes)
                    .skip(1)
                {
                    part.clear();
                    nn.clear();
                    part.bytes.reserve_exact(share.bytes.len());
                    if share.uneven {
                        part.ends.reserve_exact(share.candidates.len());
                    }
                    nn.reserve_exact(share.candidates.len());
                }
            }
        }
        level.set_lens(fresh.iter().enumerate().map(|(t, n)| {
            if t == 0 {
                direct
            } else {
                n.load(Ordering::Relaxed)
            }
        }));
        let fresh = level.len();
        if let Some(m) = opts.max_states
            && fresh > 0
            && (unique_before + fresh) as u64 >= m
        {
            // Merged in order, the search stops at the new state that reaches the bound.
            report.exhaustive = false;
            report.bounded_by_states = true;
            report.unique_states = m.max(unique_before as u64 + 1);
            return Some(report);
        }
        if exact {
            nodes.reserve_exact(fresh);
        }
        depth += 1;
        progress(depth, seen.len() as u64, level.len() as u64);
    }
    report.unique_states = seen.len() as u64;
    Some(report)
}

#[cfg(test)]
mod tests {
    use super::Packed;

    /// States of one length are found by arithmetic; once one differs, by the list of ends,
    /// which then covers the states put in before it too.
    #[test]
    fn packed_states_come_back_as_put_whatever_their_lengths() {
        let states: [&[u8]; 5] = [&[1, 2, 3], &[4, 5, 6], &[7, 8], &[9, 10, 11], &[12]];
        let mut p = Packed::default();
        for (n, s) in states.iter().enumerate() {
            p.push(s);
            assert_eq!(p.len(), n + 1);
            assert_eq!(p.ends.is_empty(), n < 2, "after {} states", n + 1);
            for (i, t) in states[..=n].iter().enumerate() {
                assert_eq!(p.get(i), *t);
            }
        }
        p.clear();
        p.push(&[1, 2]);
        p.push(&[3, 4]);
        assert!(p.ends.is_empty());
        assert_eq!((p.len(), p.get(1)), (2, &[3, 4][..]));
    }
}
