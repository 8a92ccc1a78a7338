//! The one model of request parentage: which request each request was sent on behalf of, read
//! from the checker's records. A record's parent link is set once, when its request is sent:
//! the request its sender named in the `Output::Nested` before it, as that sender holds it
//! (the newest instance of the id it received). The checker judges the rules of request trees
//! from these links, and every driver asks here rather than keep links of its own: the
//! simulator and the explorer how deep a request stands and which tree it is in, the probe
//! which of the peer's requests serve a prompt, and `crate::RequestTree` which edges to draw
//! (it draws and explains a trace's trees; it judges nothing).

use super::Checker;
use super::facts::Req;
use cancelcheck_model::{Party, RequestId};

/// The checker's records seen as a forest of request instances ([`Checker::parentage`]).
///
/// A record is named by its place among the records (`0..len()`): in the order the requests
/// were sent, or (once the checker was unpacked or renamed in [canonical
/// order](Checker::set_canonical_order)) sorted by requester and id; either way a reused id's
/// records keep the order they were sent in, so [`Parentage::newest`] and
/// [`Parentage::generation`] mean the same in both. A place is valid until the checker reads
/// another event or is unpacked or renamed. Guarantees: every parent link names a record of
/// this view, `initialize` is always a root, and the walk up from any record ends at a root
/// within `len()` steps (a malformed chain cannot loop).
#[derive(Clone, Copy, Debug)]
pub struct Parentage<'a> {
    reqs: &'a [Req],
}

impl<'a> Parentage<'a> {
    pub(super) fn new(reqs: &'a [Req]) -> Self {
        Parentage { reqs }
    }

    /// How many request instances the checker has seen.
    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    /// Whether the checker has seen no request.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// Who sent record `i`'s request. Panics if `i` is not below [`Parentage::len`].
    pub fn requester(&self, i: usize) -> Party {
        self.reqs[i].requester
    }

    /// Record `i`'s wire id. Panics if `i` is not below [`Parentage::len`].
    pub fn id(&self, i: usize) -> RequestId {
        self.reqs[i].id
    }

    /// Whether record `i` is the session's `initialize` (never sent on another's behalf).
    pub fn is_initialize(&self, i: usize) -> bool {
        self.reqs[i].initialize
    }

    /// The newest request `requester` sent with `id` (what the requester means by the id).
    pub fn newest(&self, requester: Party, id: RequestId) -> Option<usize> {
        self.reqs
            .iter()
            .rposition(|r| r.requester == requester && r.id == id)
    }

    /// 1 for the first request record `i`'s requester sent with its id, 2 for the second, ...
    pub fn generation(&self, i: usize) -> u32 {
        let r = &self.reqs[i];
        let n = self.reqs[..=i]
            .iter()
            .filter(|q| q.requester == r.requester && q.id == r.id)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The record of the request record `i` was sent on behalf of, if any.
    pub fn parent(&self, i: usize) -> Option<usize> {
        match self.reqs[i].parent {
            Some(p) if (p as usize) < self.reqs.len() => Some(p as usize),
            _ => None,
        }
    }

    /// The records above record `i` in its tree, its parent first.
    pub fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + 'a {
        let this = *self;
        // (Parent links point to earlier records, unless packed in canonical order: the
        // bound keeps a malformed chain from looping.)
        core::iter::successors(Some(i), move |&k| this.parent(k))
            .skip(1)
            .take(self.reqs.len())
    }

    /// The record at the root of record `i`'s tree (`i` itself for a root).
    pub fn root(&self, i: usize) -> usize {
        self.ancestors(i).last().unwrap_or(i)
    }

    /// How deep record `i` stands in its tree: 1 for a root (a request its application sent),
    /// one more than its parent's for a request sent on another's behalf.
    pub fn depth(&self, i: usize) -> u8 {
        u8::try_from(self.ancestors(i).count() + 1).unwrap_or(u8::MAX)
    }

    /// The records of the requests sent on behalf of record `i` (its children), in the order
    /// the records are kept.
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + 'a {
        let reqs = self.reqs;
        let i = u32::try_from(i).ok();
        (0..reqs.len()).filter(move |&k| i.is_some() && reqs[k].parent == i)
    }
}

impl Checker {
    /// The one model of request parentage: the checker's records as a forest of request
    /// instances (see [`Parentage`]).
    pub fn parentage(&self) -> Parentage<'_> {
        Parentage::new(&self.reqs)
    }
}
