//! A compact, canonical byte encoding of model values, for drivers that hold many states (the
//! explorer stores each visited state packed, and hashes the packed bytes as its fingerprint).
//!
//! Guarantees: the encoding is a function of the value (equal values give equal bytes) and it
//! is decodable (`unpack` after `pack` gives the value back), so two values are equal exactly
//! when their bytes are: the bytes identify the value. Small integers take one byte. Reading
//! bytes that were not written by `pack` returns a [`PackError`], never panics.
//!
//! One declaration per state type: a type's fields are listed once, in the type, and its
//! packed form ([`Pack`] for values, [`State`] for structs that also hold configuration or
//! scratch), its renaming of request ids ([`Relabel`]) and its allocation-keeping copy are
//! derived from that list (`#[derive(Pack, Relabel, State, CloneState)]`, re-exported here; the
//! encoding is described in `cancelcheck-derive`). What is written by hand here is the codec
//! of the leaf values: ids, messages, the small enums.

use crate::id::{IdStr, MAX_STR_ID, Party, RequestId};
use crate::io::Timer;
use crate::message::{Ack, Message, Method, Reply};
use crate::request::{Incoming, Outgoing};
use core::fmt;
use smallvec::SmallVec;

pub use cancelcheck_derive::{CloneState, Finite, Pack, Relabel, State};

/// Bytes that do not decode: what was being read, and why.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PackError {
    /// The bytes ended inside a value.
    Truncated(&'static str),
    /// A tag byte names no variant.
    BadTag(&'static str, u8),
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::Truncated(what) => write!(f, "packed state ends inside a {what}"),
            PackError::BadTag(what, tag) => write!(f, "packed state: tag {tag} is no {what}"),
        }
    }
}

impl std::error::Error for PackError {}

/// A cursor over packed bytes.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Reads `bytes` from the start.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// One byte.
    #[inline]
    pub fn u8(&mut self, what: &'static str) -> Result<u8, PackError> {
        let (&b, rest) = self.bytes.split_first().ok_or(PackError::Truncated(what))?;
        self.bytes = rest;
        Ok(b)
    }

    /// The next `N` bytes.
    #[inline]
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], PackError> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<N>()
            .ok_or(PackError::Truncated(what))?;
        self.bytes = rest;
        Ok(*head)
    }

    /// An unsigned LEB128 integer (see [`put_varint`]).
    #[inline]
    pub fn varint(&mut self, what: &'static str) -> Result<u64, PackError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8(what)?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(PackError::BadTag(what, 0x80))
    }

    /// A signed integer (see [`put_signed`]).
    #[inline]
    pub fn signed(&mut self, what: &'static str) -> Result<i64, PackError> {
        let z = self.varint(what)?;
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    /// `n` raw bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], PackError> {
        if self.bytes.len() < n {
            return Err(PackError::Truncated(what));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
}

/// Appends `v` as unsigned LEB128: seven bits a byte, one byte below 128.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-encoded (small magnitudes of either sign take one byte).
#[inline]
pub fn put_signed(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// A value with a packed form.
pub trait Pack: Sized {
    /// Appends the value's bytes.
    fn pack(&self, out: &mut Vec<u8>);
    /// Reads one value written by `pack`.
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError>;
    /// Reads one value written by `pack` into `self`, keeping its allocations where it has
    /// any (a table's); on an error `self` holds some value of the type.
    #[inline]
    fn unpack_into(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        *self = Self::unpack(r)?;
        Ok(())
    }
}

/// A struct that holds a state beside what is not part of it (configuration, scratch
/// buffers), derived with `#[derive(State)]`: `pack_state` appends the state's fields only,
/// and two values of one configuration are equal in state exactly when their bytes are;
/// `unpack_state` reads them back into the value, keeping its configuration and allocations.
pub trait State {
    /// Appends the state's bytes.
    fn pack_state(&self, out: &mut Vec<u8>);
    /// Reads what `pack_state` wrote (from a value of the same configuration).
    fn unpack_state(&mut self, r: &mut Reader<'_>) -> Result<(), PackError>;
}

/// A value that holds request ids and can rename them all (the symmetry reduction's
/// canonical copy). Derived: every field renamed in turn, then the type's own
/// `relabel_then` method, if it names one, restores an order the renaming broke.
pub trait Relabel {
    /// Replaces every request id `x` the value holds by `f(x)`.
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F);
}

/// A state that knows which of its tables changed since it was last a copy of another, derived
/// with `#[derive(CloneState)]` and `#[state(dirty_bits = FIELD)]`: `restore_from(src)` makes
/// it equal to `src` again by copying only those (exact when `src` is the state it was last a
/// copy of, or after its mask was set in full).
pub trait Restore {
    /// Becomes `src` again, copying the changed tables and every untracked field.
    fn restore_from(&mut self, src: &Self);
}

/// A field that matters only inside one step (a `#[state(transient)]` field): cleared, keeping
/// allocations, when a state is unpacked into its value.
pub trait Transient {
    /// Back to empty.
    fn clear(&mut self);
}

impl Transient for bool {
    fn clear(&mut self) {
        *self = false;
    }
}

impl<T> Transient for Option<T> {
    fn clear(&mut self) {
        *self = None;
    }
}

impl<T: Transient, const N: usize> Transient for [T; N] {
    fn clear(&mut self) {
        self.iter_mut().for_each(Transient::clear);
    }
}

impl<T> Transient for Vec<T> {
    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// A type with few values, each numbered, derived with `#[derive(Finite)]` (so a value added
/// to the declaration is numbered without being listed anywhere). Guarantees: `index` is below
/// `COUNT`, distinct values have distinct indices, and `from_index(v.index()) == Some(v)`;
/// `from_index` of `COUNT` or more is `None`.
pub trait Finite: Sized {
    /// How many values the type has.
    const COUNT: usize;
    /// The value's number, below `COUNT`.
    fn index(&self) -> usize;
    /// The value numbered `i`, if `i` is below `COUNT`.
    fn from_index(i: usize) -> Option<Self>;
}

impl Finite for bool {
    const COUNT: usize = 2;
    #[inline]
    fn index(&self) -> usize {
        usize::from(*self)
    }
    #[inline]
    fn from_index(i: usize) -> Option<Self> {
        [false, true].get(i).copied()
    }
}

/// Request ids: renamed.
impl Relabel for RequestId {
    #[inline]
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F) {
        *self = f(*self);
    }
}

/// A message names at most one request.
impl Relabel for Message {
    #[inline]
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F) {
        if let Some(id) = self.request_id() {
            *self = self.with_request_id(f(id));
        }
    }
}

impl Relabel for Timer {
    #[inline]
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F) {
        if let Timer::RequestTimeout(id) = self {
            id.relabel(f);
        }
    }
}

impl<T: Relabel> Relabel for Option<T> {
    #[inline]
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F) {
        if let Some(x) = self {
            x.relabel(f);
        }
    }
}

impl<A: Relabel, B: Relabel> Relabel for (A, B) {
    #[inline]
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F) {
        self.0.relabel(f);
        self.1.relabel(f);
    }
}

impl<T: Relabel, const N: usize> Relabel for [T; N] {
    #[inline]
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F) {
        self.iter_mut().for_each(|x| x.relabel(f));
    }
}

impl<A: smallvec::Array> Relabel for SmallVec<A>
where
    A::Item: Relabel,
{
    #[inline]
    fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, f: &F) {
        self.iter_mut().for_each(|x| x.relabel(f));
    }
}

/// Primitive values hold no request id: renaming leaves them as they are. (The model's own
/// types derive `Relabel`, so a field that comes to hold an id is renamed without a word here.)
macro_rules! no_ids {
    ($($t:ty),* $(,)?) => {
        $(impl Relabel for $t {
            #[inline]
            fn relabel<F: Fn(RequestId) -> RequestId>(&mut self, _: &F) {}
        })*
    };
}

no_ids!(u8, u16, u32, u64, i64, bool);

impl<T: State, const N: usize> State for [T; N] {
    fn pack_state(&self, out: &mut Vec<u8>) {
        self.iter().for_each(|x| x.pack_state(out));
    }
    fn unpack_state(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        self.iter_mut().try_for_each(|x| x.unpack_state(r))
    }
}

/// A length, then each item; unpacked into a table, its allocation is kept.
impl<A: smallvec::Array> Pack for SmallVec<A>
where
    A::Item: Pack,
{
    #[inline]
    fn pack(&self, out: &mut Vec<u8>) {
        pack_seq(self, out);
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        let mut v = SmallVec::new();
        unpack_seq(r, &mut v)?;
        Ok(v)
    }
    #[inline]
    fn unpack_into(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        unpack_seq(r, self)
    }
}

/// Each element in turn.
impl<T: Pack + Default, const N: usize> Pack for [T; N] {
    fn pack(&self, out: &mut Vec<u8>) {
        self.iter().for_each(|x| x.pack(out));
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        let mut a: [T; N] = core::array::from_fn(|_| T::default());
        a.unpack_into(r)?;
        Ok(a)
    }
    fn unpack_into(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        self.iter_mut().try_for_each(|x| x.unpack_into(r))
    }
}

/// Unsigned integers wider than a byte: a varint.
macro_rules! pack_unsigned {
    ($($t:ty),*) => {
        $(impl Pack for $t {
            #[inline]
            fn pack(&self, out: &mut Vec<u8>) {
                put_varint(out, u64::from(*self));
            }
            #[inline]
            fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
                <$t>::try_from(r.varint(stringify!($t))?)
                    .map_err(|_| PackError::BadTag(stringify!($t), 0xff))
            }
        })*
    };
}

pack_unsigned!(u16, u32, u64);

/// Zigzag, then a varint.
impl Pack for i64 {
    #[inline]
    fn pack(&self, out: &mut Vec<u8>) {
        put_signed(out, *self);
    }
    #[inline]
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        r.signed("i64")
    }
}

/// Appends a length, then each item.
pub fn pack_seq<T: Pack>(items: &[T], out: &mut Vec<u8>) {
    put_varint(out, items.len() as u64);
    for x in items {
        x.pack(out);
    }
}

/// Reads what [`pack_seq`] wrote into `into` (cleared first; its allocation is kept).
pub fn unpack_seq<A: smallvec::Array>(
    r: &mut Reader<'_>,
    into: &mut smallvec::SmallVec<A>,
) -> Result<(), PackError>
where
    A::Item: Pack,
{
    into.clear();
    let n = r.varint("sequence length")?;
    for _ in 0..n {
        into.push(A::Item::unpack(r)?);
    }
    Ok(())
}

impl Pack for u8 {
    fn pack(&self, out: &mut Vec<u8>) {
        out.push(*self);
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        r.u8("byte")
    }
}

impl Pack for bool {
    fn pack(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        match r.u8("bool")? {
            0 => Ok(false),
            1 => Ok(true),
            t => Err(PackError::BadTag("bool", t)),
        }
    }
}

impl<T: Pack> Pack for Option<T> {
    fn pack(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(x) => {
                out.push(1);
                x.pack(out);
            }
        }
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        match r.u8("option")? {
            0 => Ok(None),
            1 => Ok(Some(T::unpack(r)?)),
            t => Err(PackError::BadTag("option", t)),
        }
    }
}

impl<A: Pack, B: Pack> Pack for (A, B) {
    fn pack(&self, out: &mut Vec<u8>) {
        self.0.pack(out);
        self.1.pack(out);
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        Ok((A::unpack(r)?, B::unpack(r)?))
    }
}

/// Tag bytes 0 and 1 are the two parties.
impl Pack for Party {
    fn pack(&self, out: &mut Vec<u8>) {
        out.push(self.index() as u8);
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        match r.u8("party")? {
            0 => Ok(Party::Client),
            1 => Ok(Party::Server),
            t => Err(PackError::BadTag("party", t)),
        }
    }
}

/// `null` is one byte; an integer from 0 to 127 one byte with the high bit set, any other a tag
/// and its zigzag varint; a string a tag, its length and its bytes. The wire type is kept, so
/// `7` and `"7"` pack differently.
impl Pack for RequestId {
    #[inline]
    fn pack(&self, out: &mut Vec<u8>) {
        match self {
            RequestId::Null => out.push(0),
            RequestId::Int(n @ 0..=127) => out.push(0x80 | *n as u8),
            RequestId::Int(n) => {
                out.push(1);
                put_signed(out, *n);
            }
            RequestId::Str(s) => {
                out.push(2);
                out.push(s.as_str().len() as u8);
                out.extend_from_slice(s.as_str().as_bytes());
            }
        }
    }
    #[inline]
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        match r.u8("request id")? {
            0 => Ok(RequestId::Null),
            t @ 0x80.. => Ok(RequestId::Int(i64::from(t & 0x7f))),
            1 => match r.signed("request id")? {
                // Small integers have the one-byte form only, so bytes stay canonical.
                0..=127 => Err(PackError::BadTag("request id", 1)),
                n => Ok(RequestId::Int(n)),
            },
            2 => {
                let len = usize::from(r.u8("string id")?);
                if len > MAX_STR_ID {
                    return Err(PackError::BadTag("string id length", len as u8));
                }
                let bytes = r.take(len, "string id")?;
                let s = core::str::from_utf8(bytes)
                    .ok()
                    .and_then(IdStr::new)
                    .ok_or(PackError::BadTag("string id", 2))?;
                Ok(RequestId::Str(s))
            }
            t => Err(PackError::BadTag("request id", t)),
        }
    }
}

/// Values of a [`Finite`] type of at most 256 values pack as one byte: their index.
macro_rules! pack_by_index {
    ($($t:ty => $what:literal),* $(,)?) => {
        $(impl Pack for $t {
            #[inline]
            fn pack(&self, out: &mut Vec<u8>) {
                const { assert!(<$t as Finite>::COUNT <= 256, "too many values for one byte") };
                out.push(Finite::index(self) as u8);
            }
            #[inline]
            fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
                let t = r.u8($what)?;
                <$t as Finite>::from_index(usize::from(t)).ok_or(PackError::BadTag($what, t))
            }
        })*
    };
}

pack_by_index!(
    Method => "method",
    Outgoing => "outgoing state",
    Incoming => "incoming state",
    Ack => "acknowledgement",
);

impl Pack for Reply {
    fn pack(&self, out: &mut Vec<u8>) {
        match *self {
            Reply::Full => out.push(0),
            Reply::Partial => out.push(1),
            Reply::Initialized { cancel_support } => out.push(2 + u8::from(cancel_support)),
            Reply::Cancelled => out.push(4),
            Reply::Error(code) => {
                out.push(5);
                put_signed(out, code);
            }
        }
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        Ok(match r.u8("reply")? {
            0 => Reply::Full,
            1 => Reply::Partial,
            t @ (2 | 3) => Reply::Initialized {
                cancel_support: t == 3,
            },
            4 => Reply::Cancelled,
            5 => Reply::Error(r.signed("error code")?),
            t => return Err(PackError::BadTag("reply", t)),
        })
    }
}

/// A request's tag by its method's [`Finite::index`] (the other messages take 2 to 6, and 9
/// for a cancel that names a session; 10 is a task-augmented request). A method added to the
/// model is a compile error here until it has a tag.
const REQUEST_TAGS: [u8; <Method as Finite>::COUNT] = [0, 1, 7, 10, 8];

impl Pack for Message {
    #[inline]
    fn pack(&self, out: &mut Vec<u8>) {
        match *self {
            Message::Request { id, method } => {
                out.push(REQUEST_TAGS[method.index()]);
                id.pack(out);
            }
            Message::Response { id, reply } => {
                out.push(2);
                id.pack(out);
                reply.pack(out);
            }
            Message::Cancel { id, session } => {
                out.push(if session { 9 } else { 3 });
                id.pack(out);
            }
            Message::MalformedCancel => out.push(4),
            Message::CancelAck { id, ack } => {
                out.push(5);
                id.pack(out);
                ack.pack(out);
            }
            Message::Activity { id } => {
                out.push(6);
                id.pack(out);
            }
        }
    }
    #[inline]
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        Ok(match r.u8("message")? {
            t @ (0 | 1 | 7 | 8 | 10) => {
                let index = REQUEST_TAGS.iter().position(|&x| x == t).unwrap_or(0);
                Message::Request {
                    id: RequestId::unpack(r)?,
                    method: Method::from_index(index).ok_or(PackError::BadTag("method", t))?,
                }
            }
            2 => Message::Response {
                id: RequestId::unpack(r)?,
                reply: Reply::unpack(r)?,
            },
            t @ (3 | 9) => Message::Cancel {
                id: RequestId::unpack(r)?,
                session: t == 9,
            },
            4 => Message::MalformedCancel,
            5 => Message::CancelAck {
                id: RequestId::unpack(r)?,
                ack: Ack::unpack(r)?,
            },
            6 => Message::Activity {
                id: RequestId::unpack(r)?,
            },
            t => return Err(PackError::BadTag("message", t)),
        })
    }
}

impl Pack for Timer {
    fn pack(&self, out: &mut Vec<u8>) {
        match *self {
            Timer::InitTimeout => out.push(0),
            Timer::RequestTimeout(id) => {
                out.push(1);
                id.pack(out);
            }
        }
    }
    fn unpack(r: &mut Reader<'_>) -> Result<Self, PackError> {
        match r.u8("timer")? {
            0 => Ok(Timer::InitTimeout),
            1 => Ok(Timer::RequestTimeout(RequestId::unpack(r)?)),
            t => Err(PackError::BadTag("timer", t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{AckReason, CancelCause};
    use crate::request::Completion;
    use std::collections::BTreeSet;

    fn round_trip<T: Pack + PartialEq + core::fmt::Debug>(x: T) -> Vec<u8> {
        let mut out = Vec::new();
        x.pack(&mut out);
        let mut r = Reader::new(&out);
        assert_eq!(T::unpack(&mut r).unwrap(), x);
        assert!(r.is_empty(), "{x:?} left bytes unread");
        out
    }

    #[test]
    fn values_round_trip_and_wire_types_stay_apart() {
        let seven = round_trip(RequestId::Int(7));
        let seven_str = round_trip(RequestId::str("7").unwrap());
        assert_ne!(seven, seven_str);
        assert_eq!(round_trip(RequestId::Int(3)).len(), 1);
        assert_eq!(round_trip(RequestId::Int(128)).len(), 3);
        assert!(RequestId::unpack(&mut Reader::new(&[1, 6])).is_err());
        for n in [0, -1, i64::MIN, i64::MAX, 1 << 40] {
            round_trip(RequestId::Int(n));
        }
        round_trip(RequestId::Null);
        round_trip(RequestId::str(&"x".repeat(MAX_STR_ID)).unwrap());
        let tags: Vec<u8> = (0..Method::COUNT)
            .map(|i| {
                let method = Method::from_index(i).unwrap();
                round_trip(method);
                round_trip(Message::Request {
                    id: RequestId::Int(1),
                    method,
                })[0]
            })
            .collect();
        assert_eq!(tags, REQUEST_TAGS);
        for reply in [
            Reply::Full,
            Reply::Partial,
            Reply::Initialized {
                cancel_support: true,
            },
            Reply::Cancelled,
            Reply::Error(-32800),
        ] {
            round_trip(Message::Response {
                id: RequestId::Int(1),
                reply,
            });
        }
        for session in [false, true] {
            round_trip(Message::Cancel {
                id: RequestId::Int(0),
                session,
            });
        }
        round_trip(Message::CancelAck {
            id: RequestId::str("c").unwrap(),
            ack: Ack {
                cancelled: false,
                reason: AckReason::AlreadyCompleted,
            },
        });
        round_trip(Some((
            Party::Server,
            Timer::RequestTimeout(RequestId::Int(2)),
        )));
        round_trip(Incoming::Answered(Completion::Cancelled));
        round_trip(Outgoing::Abandoned(CancelCause::Timeout));
    }

    /// Every value of a [`Finite`] type is numbered once, and packs to bytes of its own that
    /// read back as it.
    fn every_value_round_trips<T: Finite + Pack + PartialEq + core::fmt::Debug>(count: usize) {
        assert_eq!(T::COUNT, count);
        let mut seen = BTreeSet::new();
        for i in 0..T::COUNT {
            let v = T::from_index(i).unwrap();
            assert_eq!(v.index(), i, "{v:?}");
            assert!(seen.insert(round_trip(v)), "two values share bytes");
        }
        assert_eq!(T::from_index(T::COUNT), None);
    }

    #[test]
    fn every_value_of_the_small_types_has_bytes_of_its_own() {
        every_value_round_trips::<bool>(2);
        every_value_round_trips::<Method>(5);
        every_value_round_trips::<Outgoing>(8);
        every_value_round_trips::<Incoming>(6);
        every_value_round_trips::<Ack>(8);
        assert_eq!(CancelCause::COUNT, 3);
        assert_eq!(Completion::COUNT, 2);
        assert_eq!(AckReason::COUNT, 4);
        // The numbering follows the declaration: variants in order, first field fastest.
        assert_eq!(Outgoing::CancelRequested(CancelCause::Parent).index(), 3);
        assert_eq!(Outgoing::Done.index(), 7);
        let ack = |cancelled, reason| Ack { cancelled, reason };
        assert_eq!(ack(true, AckReason::None).index(), 1);
        assert_eq!(ack(false, AckReason::NotFound).index(), 2);
    }

    #[test]
    fn foreign_bytes_are_errors_not_panics() {
        assert_eq!(
            RequestId::unpack(&mut Reader::new(&[9])),
            Err(PackError::BadTag("request id", 9))
        );
        assert!(Message::unpack(&mut Reader::new(&[2, 1])).is_err());
        assert!(RequestId::unpack(&mut Reader::new(&[2, 200])).is_err());
        assert!(Reader::new(&[0xff; 11]).varint("x").is_err());
        assert_eq!(
            Incoming::unpack(&mut Reader::new(&[])),
            Err(PackError::Truncated("incoming state"))
        );
        assert_eq!(
            Outgoing::unpack(&mut Reader::new(&[8])),
            Err(PackError::BadTag("outgoing state", 8))
        );
    }
}
