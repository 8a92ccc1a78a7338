//! How a field of [`Explorer`](crate::explorer::Explorer) sits in a flat row: the kinds its
//! declaration names (`#[state(row = KIND)]`), from which the derive makes the row's layout
//! ([`ExplorerRow`](crate::explorer::state::ExplorerRow)) and its conversion to and from the
//! plain state.
//!
//! A row is a head of fixed size (each field's part of fixed size, in declaration order), then
//! one byte per request for each field held per request, then the tables (a length byte, then
//! that many codes, then zeros up to the table's room).

use cancelcheck_model::io::Timer;
use cancelcheck_model::pack::{PackError, Reader as Bytes};
use cancelcheck_model::{Message, Party, RequestId};
use smallvec::{Array, SmallVec};

use super::ROW;
use super::codes::{Coder, PartStore, Tables};
use crate::world::World;

/// How a field of type `T` sits in a row.
pub(crate) trait Kind<T>: Copy + Sized {
    /// The bytes the field takes in the head.
    const SIZE: usize;
    /// The field's place, its part of fixed size at `head`: what it needs past the head taken
    /// from `p` (`None` if that does not fit a row).
    fn place(head: usize, p: &mut Placer) -> Option<Self>;
    /// Writes `v` into the row (`None` if it does not fit, or a code table ran out).
    fn put(&self, head: usize, v: &T, w: &mut Writer<'_>) -> Option<()>;
    /// Reads the field back into `v`.
    fn get(&self, head: usize, v: &mut T, r: &Reader<'_>) -> Result<(), PackError>;
}

/// Hands out the room past the head, region by region: first the bytes held per request, then
/// the tables. A layout is placed twice: once from 0 to measure the regions, then for good.
pub(crate) struct Placer {
    /// The next free offset of each region.
    pub(super) next: [usize; 2],
    /// The requests of the application's script.
    pub(super) requests: usize,
    /// The room of a table of messages (each direction), of work, of timers.
    pub(super) net_cap: usize,
    pub(super) work_cap: usize,
    pub(super) timer_cap: usize,
}

impl Placer {
    /// Takes `size` bytes of `region`; `None` past an offset a byte can name.
    fn take(&mut self, region: usize, size: usize) -> Option<u8> {
        let at = self.next[region];
        self.next[region] += size;
        u8::try_from(at).ok()
    }
}

/// A row being written, with the tables that code its values.
pub(crate) struct Writer<'a> {
    pub(super) row: [u8; ROW],
    /// The requests of the application's script.
    pub(super) requests: usize,
    pub(super) t: &'a mut Tables,
    pub(super) parts: &'a PartStore,
    /// Scratch for a part's bytes.
    pub(super) bytes: &'a mut Vec<u8>,
}

/// A row being read, with the tables that decode its values.
pub(crate) struct Reader<'a> {
    pub(super) row: &'a [u8],
    pub(super) requests: usize,
    pub(super) t: &'a Tables,
    pub(super) parts: &'a PartStore,
}

/// A byte, in the head.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Byte;

impl Kind<u8> for Byte {
    const SIZE: usize = 1;
    fn place(_: usize, _: &mut Placer) -> Option<Self> {
        Some(Byte)
    }
    fn put(&self, head: usize, v: &u8, w: &mut Writer<'_>) -> Option<()> {
        w.row[head] = *v;
        Some(())
    }
    fn get(&self, head: usize, v: &mut u8, r: &Reader<'_>) -> Result<(), PackError> {
        *v = r.row[head];
        Ok(())
    }
}

/// The world, in the head: the client's, the server's and the checker's numbers as parts the
/// threads share (4 bytes each, little-endian), then whether the client is ready.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parts;

impl Parts {
    /// Where the client's and the server's numbers sit, from the field's head.
    pub(crate) const ENDPOINTS: [usize; 2] = [0, 4];
    /// Where the checker's number sits.
    pub(crate) const CHECKER: usize = 8;
    /// Where whether the client is ready sits (the endpoint's, kept beside it for the steps).
    pub(crate) const READY: usize = 12;
    /// The parts in the order they sit: the client's, the server's, the checker's (`None`).
    const ORDER: [(usize, Option<Party>); 3] = [
        (Self::ENDPOINTS[0], Some(Party::Client)),
        (Self::ENDPOINTS[1], Some(Party::Server)),
        (Self::CHECKER, None),
    ];
}

impl Kind<World> for Parts {
    const SIZE: usize = 13;
    fn place(_: usize, _: &mut Placer) -> Option<Self> {
        Some(Parts)
    }
    fn put(&self, head: usize, v: &World, w: &mut Writer<'_>) -> Option<()> {
        for (at, part) in Parts::ORDER {
            w.bytes.clear();
            match part {
                Some(p) => v.pack_endpoint(p, w.bytes),
                None => v.pack_checker(w.bytes),
            }
            let (n, _) = w.parts.number(w.bytes)?;
            w.row[head + at..][..4].copy_from_slice(&n.to_le_bytes());
        }
        w.row[head + Parts::READY] = u8::from(v.endpoint(Party::Client).is_ready());
        Some(())
    }
    fn get(&self, head: usize, v: &mut World, r: &Reader<'_>) -> Result<(), PackError> {
        for (at, part) in Parts::ORDER {
            let mut n = [0; 4];
            n.copy_from_slice(&r.row[head + at..][..4]);
            let done = r.parts.with(u32::from_le_bytes(n), |bytes| {
                let mut b = Bytes::new(bytes);
                match part {
                    Some(p) => v.unpack_endpoint(p, &mut b),
                    None => v.unpack_checker(&mut b),
                }
            });
            done.ok_or(PackError::BadTag("part", 0))??;
        }
        Ok(())
    }
}

/// A value a row holds as a one-byte code (see [`Tables`]).
pub(super) trait Coded: Copy {
    /// Its code, handed out if new; `None` when its kind's codes ran out.
    fn code(self, t: &mut Tables) -> Option<u8>;
    /// The value of code `c`.
    fn decode(c: u8, t: &Tables) -> Result<Self, PackError>;
}

/// A value of `values` by code.
fn value<T: Copy>(values: &[T], c: u8, what: &'static str) -> Result<T, PackError> {
    values
        .get(usize::from(c))
        .copied()
        .ok_or(PackError::BadTag(what, c))
}

/// A count is its own code.
impl Coded for u8 {
    fn code(self, _: &mut Tables) -> Option<u8> {
        Some(self)
    }
    fn decode(c: u8, _: &Tables) -> Result<Self, PackError> {
        Ok(c)
    }
}

/// An id the application learnt (code 0: none yet).
impl Coded for Option<RequestId> {
    fn code(self, t: &mut Tables) -> Option<u8> {
        self.map_or(Some(0), |id| t.id(id))
    }
    fn decode(c: u8, t: &Tables) -> Result<Self, PackError> {
        match c {
            0 => Ok(None),
            c => value(&t.ids.values, c, "id code").map(Some),
        }
    }
}

/// A value held in a table: how many a row has room for.
pub(super) trait Tabled: Coded {
    /// The room of a table of these.
    fn room(p: &Placer) -> usize;
}

/// The values held in tables (messages in flight, pieces of work running or having reported
/// progress, armed timers): each coded by its own kind of code, with its own room.
macro_rules! tabled {
    ($($ty:ty => $code:ident, $values:ident, $room:ident, $what:literal;)*) => {$(
        impl Coded for $ty {
            fn code(self, t: &mut Tables) -> Option<u8> {
                t.$code(self)
            }
            fn decode(c: u8, t: &Tables) -> Result<Self, PackError> {
                value(&t.$values.values, c, $what)
            }
        }

        impl Tabled for $ty {
            fn room(p: &Placer) -> usize {
                p.$room
            }
        }
    )*};
}

tabled! {
    Message => msg, msgs, net_cap, "message code";
    (Party, RequestId) => work, works, work_cap, "work code";
    (Party, Timer) => timer, timers, timer_cap, "timer code";
}

/// One value per request of the application's script (in sending order), each a byte, past
/// the head. A state whose list is not one per request does not fit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PerRequest {
    pub(crate) at: u8,
}

impl<E: Coded, const N: usize> Kind<SmallVec<[E; N]>> for PerRequest
where
    [E; N]: Array<Item = E>,
{
    const SIZE: usize = 0;
    fn place(_: usize, p: &mut Placer) -> Option<Self> {
        Some(PerRequest {
            at: p.take(0, p.requests)?,
        })
    }
    #[inline]
    fn put(&self, _: usize, v: &SmallVec<[E; N]>, w: &mut Writer<'_>) -> Option<()> {
        if v.len() != w.requests {
            return None;
        }
        let at = usize::from(self.at);
        for (k, &x) in v.iter().enumerate() {
            w.row[at + k] = x.code(w.t)?;
        }
        Some(())
    }
    fn get(&self, _: usize, v: &mut SmallVec<[E; N]>, r: &Reader<'_>) -> Result<(), PackError> {
        v.clear();
        for &c in &r.row[usize::from(self.at)..][..r.requests] {
            v.push(E::decode(c, r.t)?);
        }
        Ok(())
    }
}

/// A table past the head: a length byte, then that many codes in the field's order, then
/// zeros up to its room. A state whose list is longer than the room does not fit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table {
    pub(crate) at: u8,
    pub(crate) cap: u8,
}

impl<E: Tabled, const N: usize> Kind<SmallVec<[E; N]>> for Table
where
    [E; N]: Array<Item = E>,
{
    const SIZE: usize = 0;
    fn place(_: usize, p: &mut Placer) -> Option<Self> {
        let room = E::room(p);
        Some(Table {
            cap: u8::try_from(room).ok()?,
            at: p.take(1, 1 + room)?,
        })
    }
    #[inline]
    fn put(&self, _: usize, v: &SmallVec<[E; N]>, w: &mut Writer<'_>) -> Option<()> {
        if v.len() > usize::from(self.cap) {
            return None;
        }
        let at = usize::from(self.at);
        w.row[at] = v.len() as u8;
        for (i, &x) in v.iter().enumerate() {
            w.row[at + 1 + i] = x.code(w.t)?;
        }
        Some(())
    }
    fn get(&self, _: usize, v: &mut SmallVec<[E; N]>, r: &Reader<'_>) -> Result<(), PackError> {
        let at = usize::from(self.at);
        v.clear();
        for &c in &r.row[at + 1..][..usize::from(r.row[at])] {
            v.push(E::decode(c, r.t)?);
        }
        Ok(())
    }
}

/// An array of fields, each of kind `K`, one after the other.
impl<T, K: Kind<T>, const M: usize> Kind<[T; M]> for [K; M] {
    const SIZE: usize = K::SIZE * M;
    fn place(head: usize, p: &mut Placer) -> Option<Self> {
        let first = K::place(head, p)?;
        let mut all = [first; M];
        for (i, k) in all.iter_mut().enumerate().skip(1) {
            *k = K::place(head + i * K::SIZE, p)?;
        }
        Some(all)
    }
    #[inline]
    fn put(&self, head: usize, v: &[T; M], w: &mut Writer<'_>) -> Option<()> {
        for (i, (k, x)) in self.iter().zip(v).enumerate() {
            k.put(head + i * K::SIZE, x, w)?;
        }
        Some(())
    }
    fn get(&self, head: usize, v: &mut [T; M], r: &Reader<'_>) -> Result<(), PackError> {
        for (i, (k, x)) in self.iter().zip(v).enumerate() {
            k.get(head + i * K::SIZE, x, r)?;
        }
        Ok(())
    }
}

/// A part of the state a row does not hold, because the flat form serves only searches in
/// which it keeps its initial value: [`Layout::new`](super::Layout::new) refuses the others.
/// A state in which it is not [`Inert`] does not fit a row; read back, it keeps the value it
/// had.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Absent;

/// A part of the state that did nothing and can do nothing in the state it is in.
pub(crate) trait Inert {
    /// Whether the value is inert.
    fn inert(&self) -> bool;
}

impl<T: Inert> Kind<T> for Absent {
    const SIZE: usize = 0;
    fn place(_: usize, _: &mut Placer) -> Option<Self> {
        Some(Absent)
    }
    #[inline]
    fn put(&self, _: usize, v: &T, _: &mut Writer<'_>) -> Option<()> {
        v.inert().then_some(())
    }
    fn get(&self, _: usize, _: &mut T, _: &Reader<'_>) -> Result<(), PackError> {
        Ok(())
    }
}
