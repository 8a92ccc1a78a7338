//! One thread's share of a level: expanding it ([`expand_share`]), where its successors go
//! ([`Sink`]), what it made ([`Share`]), and the merge's marking of its new candidates and
//! their gathering into the next level's part.

use cancelcheck_properties::{InvariantId, PropertySet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::Node;
use super::level::{LevelView, Packed};
use crate::explorer::hash::{FingerprintSet, SHARDS, ShardedSet};
use crate::explorer::search::expander::Expander;
use crate::explorer::search::form::Form;
use crate::explorer::search::growable;

/// Gathers the new candidates of `share`, in order, into `part` and their nodes into `nodes`
/// (under a memory bound the merge made room for all of them first).
pub(super) fn gather(part: &mut Packed, share: &Share, nodes: &mut Vec<Node>) {
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
pub(super) struct Bad {
    pub(super) parent: u32,
    pub(super) choice: Option<u32>,
    pub(super) broken: Vec<InvariantId>,
}

/// A successor, kept until it is put into the visited set (its packed state follows those of
/// the candidates before it, in the bytes they are kept in).
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    parent: u32,
    choice: u32,
    fingerprint: u64,
    len: u32,
}

/// What one thread made of its share of a level.
#[derive(Default)]
pub(in crate::explorer::search) struct Share {
    /// Its successors to be merged ([`Sink::Later`]): the first of equal ones in order.
    pub(super) candidates: Vec<Candidate>,
    /// The packed states of the candidates, end to end.
    pub(super) bytes: Vec<u8>,
    /// The fingerprints of the candidates (of this level's share).
    kept: FingerprintSet,
    /// The successors of the last two states expanded, one buffer each in turn: those of a
    /// state are put into the visited set, or kept as candidates, once the next state's are
    /// made (when their slots, asked for earlier, have arrived).
    recent: [Recent; 2],
    pub(super) generated: u64,
    /// States expanded through an ample set smaller than their enabled steps.
    pub(super) reduced: u64,
    pub(super) reached: PropertySet,
    /// The first quiescent state breaking an eventual property, and the first successor
    /// breaking an invariant, in merge order: a MUST (`bad`) or only SHOULDs (`warn`).
    pub(super) quiescent_bad: Option<Bad>,
    pub(super) child_bad: Option<Bad>,
    pub(super) quiescent_warn: Option<Bad>,
    pub(super) child_warn: Option<Bad>,
    /// Whether it stopped before the end of its range, at its memory allowance.
    pub(super) cut: bool,
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
    pub(super) uneven: bool,
}

/// One state's successors: their candidates and packed states.
#[derive(Default)]
struct Recent {
    candidates: Vec<Candidate>,
    rows: Vec<u8>,
}

/// Where a share's successors go.
pub(super) enum Sink<'s> {
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
pub(super) struct Direct<'s> {
    pub(super) seen: &'s mut ShardedSet,
    pub(super) next: &'s mut Packed,
    pub(super) nodes: &'s mut Vec<Node>,
    /// New states the state bound still lets in (then none is kept).
    pub(super) room: usize,
    /// The bytes the visited set, the next level and the nodes held as the level began (which
    /// the search counts apart).
    pub(super) from: u64,
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
pub(super) fn expand_share<F: Form>(
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
pub(super) fn mark_fresh(
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
    pub(super) fn held_bytes(&self) -> u64 {
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
