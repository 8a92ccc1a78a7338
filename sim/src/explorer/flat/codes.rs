//! The codes and parts a flat search shares between its threads, and each thread's copy of the
//! codes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, RwLock};

use cancelcheck_model::io::Timer;
use cancelcheck_model::{Message, Party, RequestId};
use hashbrown::HashTable;

use super::Layout;
use crate::explorer::bounds;
use crate::explorer::hash::{StableHasher, fingerprint};
use crate::explorer::search::growable_bytes;
use crate::scenario::Scenario;

/// Values of one kind by one-byte code. Code 0 stands for none; codes 1 to 255 are handed out
/// in the order values are first met. Each value carries the code of the request id it is
/// about (0 for none).
pub(super) struct Table<T> {
    pub(super) codes: HashMap<T, u8, BuildHasherDefault<StableHasher>>,
    pub(super) values: Vec<T>,
    pub(super) ids: Vec<u8>,
}

impl<T: Copy + Eq + Hash> Table<T> {
    /// A table whose code 0 decodes to `none` (never read as a value).
    pub(super) fn new(none: T) -> Self {
        Table {
            codes: HashMap::default(),
            values: vec![none],
            ids: vec![0],
        }
    }

    /// The code of `v` (about id code `id`), handed out if new; `None` when all 255 are taken.
    pub(super) fn code(&mut self, v: T, id: u8) -> Option<u8> {
        if let Some(&c) = self.codes.get(&v) {
            return Some(c);
        }
        let c = u8::try_from(self.values.len()).ok()?;
        self.values.push(v);
        self.ids.push(id);
        self.codes.insert(v, c);
        Some(c)
    }
}

/// The codes the threads of a flat search share.
pub(super) struct Tables {
    pub(super) msgs: Table<Message>,
    pub(super) works: Table<(Party, RequestId)>,
    pub(super) timers: Table<(Party, Timer)>,
    pub(super) ids: Table<RequestId>,
}

impl Tables {
    /// Tables holding no value but each kind's code 0.
    fn empty() -> Self {
        Tables {
            msgs: Table::new(Message::MalformedCancel),
            works: Table::new((Party::Client, RequestId::Null)),
            timers: Table::new((Party::Client, Timer::InitTimeout)),
            ids: Table::new(RequestId::Null),
        }
    }

    pub(super) fn values(&self) -> usize {
        self.msgs.values.len()
            + self.works.values.len()
            + self.timers.values.len()
            + self.ids.values.len()
    }

    /// The bytes the tables hold, with room for each buffer's next growth (the old buffer and
    /// one twice its size at once). Each kind holds at most 255 values: their growth between
    /// two counts is small.
    fn held_bytes(&self) -> u64 {
        fn table<T>(t: &Table<T>) -> usize {
            // A hash map of `n` entries has up to 2 buckets an entry, each a control byte
            // beside the entry.
            t.codes.capacity() * 2 * (core::mem::size_of::<(T, u8)>() + 1)
                + t.values.capacity() * core::mem::size_of::<T>()
                + t.ids.capacity()
        }
        3 * (table(&self.msgs) + table(&self.works) + table(&self.timers) + table(&self.ids)) as u64
    }
}

/// A kind of coded value: the table of the shared ones that codes it.
pub(super) trait InTable: Copy + Eq + Hash {
    fn table(t: &Tables) -> &Table<Self>;
    fn table_mut(t: &mut Tables) -> &mut Table<Self>;
}

macro_rules! in_table {
    ($($ty:ty => $table:ident;)*) => {$(
        impl InTable for $ty {
            fn table(t: &Tables) -> &Table<Self> {
                &t.$table
            }
            fn table_mut(t: &mut Tables) -> &mut Table<Self> {
                &mut t.$table
            }
        }
    )*};
}

in_table! {
    Message => msgs;
    (Party, RequestId) => works;
    (Party, Timer) => timers;
    RequestId => ids;
}

/// Codes values of every kind, each by the code its table gives it (`None` where it gives
/// none): [`Tables`] hands out codes, [`Known`] only finds them.
pub(super) trait Coder {
    /// The code of `v`, about id code `id`.
    fn code<T: InTable>(&mut self, v: T, id: u8) -> Option<u8>;

    fn id(&mut self, id: RequestId) -> Option<u8> {
        self.code(id, 0)
    }

    fn msg(&mut self, m: Message) -> Option<u8> {
        let id = match m.request_id() {
            Some(id) => self.id(id)?,
            None => 0,
        };
        self.code(m, id)
    }

    fn work(&mut self, w: (Party, RequestId)) -> Option<u8> {
        let id = self.id(w.1)?;
        self.code(w, id)
    }

    fn timer(&mut self, t: (Party, Timer)) -> Option<u8> {
        let id = match t.1 {
            Timer::RequestTimeout(id) => self.id(id)?,
            Timer::InitTimeout => 0,
        };
        self.code(t, id)
    }
}

/// Hands out a code to a value that has none (under the write lock); `None` once its kind's
/// 255 codes are taken.
impl Coder for Tables {
    fn code<T: InTable>(&mut self, v: T, id: u8) -> Option<u8> {
        T::table_mut(self).code(v, id)
    }
}

/// The shared tables read under a read lock: the codes handed out are found, and a value
/// without one is `None`.
pub(super) struct Known<'a>(pub(super) &'a Tables);

impl Coder for Known<'_> {
    fn code<T: InTable>(&mut self, v: T, _: u8) -> Option<u8> {
        T::table(self.0).codes.get(&v).copied()
    }
}

/// How many shards hold the parts, as bits of a part's number.
const PART_SHARD_BITS: u32 = 10;

/// How many shards hold the parts: a part's number modulo this is its shard, which is read
/// from the part's fingerprint, so it does not depend on the order parts are stored in.
pub(super) const PART_SHARDS: usize = 1 << PART_SHARD_BITS;

/// The parts of one shard: their bytes by their place, found by their fingerprints.
#[derive(Default)]
struct PartShard {
    /// `(fingerprint of its bytes, place)` of each part.
    places: HashTable<(u64, u32)>,
    bytes: Vec<Box<[u8]>>,
    /// The bytes of the parts themselves.
    part_bytes: u64,
    /// How many parts the shard held when the store was last counted.
    counted: u32,
}

impl PartShard {
    /// The place of the part `bytes` (whose fingerprint is `key`), if it is held.
    fn find(&self, key: u64, bytes: &[u8]) -> Option<u32> {
        let same = |&(k, p): &(u64, u32)| k == key && *self.bytes[p as usize] == *bytes;
        self.places.find(key, same).map(|&(_, p)| p)
    }
}

/// The parts (packed endpoints and checkers) a flat search met, by number, shared by its
/// threads. They are kept in shards, each under a lock of its own, so that two threads storing
/// or reading parts seldom take one lock at once. A part's number is its place in its shard,
/// followed by its shard in the low [`PART_SHARD_BITS`] bits.
pub(super) struct PartStore {
    shards: Box<[RwLock<PartShard>]>,
}

impl Default for PartStore {
    fn default() -> Self {
        PartStore {
            shards: (0..PART_SHARDS).map(|_| RwLock::default()).collect(),
        }
    }
}

impl PartStore {
    /// The number of `bytes` as a part, handed out if new, and whether the part was stored
    /// after the store was last [counted](PartStore::count) (whichever thread stored it);
    /// `None` once their shard holds as many parts as a number can place.
    pub(super) fn number(&self, bytes: &[u8]) -> Option<(u32, bool)> {
        let key = fingerprint(bytes);
        let s = (key >> (64 - PART_SHARD_BITS)) as u32;
        let lock = &self.shards[s as usize];
        let known = {
            let r = read(lock);
            r.find(key, bytes).map(|p| (p, r.counted))
        };
        let (place, counted) = match known {
            Some(found) => found,
            None => {
                let mut w = write(lock);
                match w.find(key, bytes) {
                    Some(p) => (p, w.counted),
                    None => {
                        let p = u32::try_from(w.bytes.len())
                            .ok()
                            .filter(|&p| p < 1 << (32 - PART_SHARD_BITS))?;
                        w.bytes.push(bytes.into());
                        w.part_bytes += bytes.len() as u64;
                        w.places.insert_unique(key, (key, p), |&(k, _)| k);
                        (p, w.counted)
                    }
                }
            }
        };
        Some((place << PART_SHARD_BITS | s, place >= counted))
    }

    /// The bytes the store holds, counting each buffer's next growth once it is near
    /// ([`growable_bytes`]); the parts stored from now on are new to [`PartStore::number`].
    /// That count, made while no thread stores parts, and [`PartStore::added_by`] for each
    /// new part (whichever thread stores it) bound what the store holds until the next count.
    pub(super) fn count(&self) -> u64 {
        let mut held = 0;
        for lock in &self.shards {
            let mut shard = write(lock);
            let len = shard.bytes.len();
            shard.counted = len as u32;
            let places = shard.places.allocation_size() as u64;
            let bytes = (shard.bytes.capacity() * core::mem::size_of::<Box<[u8]>>()) as u64;
            held += shard.part_bytes
                + growable_bytes(len, shard.places.capacity(), places)
                + growable_bytes(len, shard.bytes.capacity(), bytes);
        }
        held
    }

    /// At most what a part of `len` bytes stored after a count adds to the store: its bytes,
    /// and 8 entries of each buffer (see [`growable_bytes`]; a hash table holds up to 2
    /// buckets an entry, each a control byte beside the entry).
    pub(super) fn added_by(len: usize) -> u64 {
        let entries =
            core::mem::size_of::<Box<[u8]>>() + 2 * (core::mem::size_of::<(u64, u32)>() + 1);
        (len + 8 * entries) as u64
    }

    /// `f` of the bytes of part `n`; `None` if no part has that number.
    pub(super) fn with<R>(&self, n: u32, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        let shard = read(&self.shards[(n % (1 << PART_SHARD_BITS)) as usize]);
        shard
            .bytes
            .get((n >> PART_SHARD_BITS) as usize)
            .map(|b| f(b))
    }
}

/// `lock` read (a panic while it was held spoils nothing here: the thread's panic reaches the
/// search, which then ends).
fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

/// `lock` written (see [`read`]).
fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}

/// The tables of a flat search, shared by its threads, and its layout.
pub struct FlatShared {
    pub(super) tables: RwLock<Tables>,
    /// The parts, under locks of their own.
    pub(super) parts: PartStore,
    /// How many coded values the tables hold: a thread whose copy holds fewer copies again.
    pub(super) values: AtomicUsize,
    pub(super) layout: Layout,
}

impl FlatShared {
    /// Empty tables for a search of `rules`; `None` if its states would not fit a row.
    pub fn new(rules: &Scenario) -> Option<Arc<FlatShared>> {
        Layout::new(bounds(rules)).map(FlatShared::with_layout)
    }

    /// Tables for rows of `rules` with room for only `cap` messages per direction (to test
    /// what happens when a state does not fit).
    #[cfg(test)]
    pub(in crate::explorer) fn with_net_capacity(rules: &Scenario, cap: usize) -> Arc<FlatShared> {
        let b = bounds(rules);
        let n = usize::from(b.requests);
        let layout = Layout::with_capacities(b, cap, n + 1, n + 2);
        FlatShared::with_layout(layout.unwrap_or_else(|| panic!("{cap} fits a row")))
    }

    pub(super) fn with_layout(layout: Layout) -> Arc<FlatShared> {
        let tables = Tables::empty();
        Arc::new(FlatShared {
            values: AtomicUsize::new(tables.values()),
            tables: RwLock::new(tables),
            parts: PartStore::default(),
            layout,
        })
    }

    pub(super) fn read(&self) -> std::sync::RwLockReadGuard<'_, Tables> {
        read(&self.tables)
    }

    pub(super) fn write(&self) -> std::sync::RwLockWriteGuard<'_, Tables> {
        write(&self.tables)
    }

    /// The bytes the tables and the parts hold, with room for their next growth; see
    /// [`PartStore::count`] (called while no thread codes or stores anything).
    pub(super) fn count(&self) -> u64 {
        self.read().held_bytes() + self.parts.count()
    }
}

/// A thread's copy of the coded values (index = code), refreshed when the shared tables grow,
/// with each code's rank among its kind's values in their order (what keeps a row's tables
/// sorted by value: comparing ranks is comparing values, and a code has its own rank).
#[derive(Default)]
pub(super) struct Decoded {
    pub(super) msg_ranks: Vec<u8>,
    pub(super) work_ranks: Vec<u8>,
    pub(super) timer_ranks: Vec<u8>,
    pub(super) msgs: Vec<Message>,
    pub(super) msg_ids: Vec<u8>,
    pub(super) works: Vec<(Party, RequestId)>,
    pub(super) work_ids: Vec<u8>,
    pub(super) timers: Vec<(Party, Timer)>,
    pub(super) timer_ids: Vec<u8>,
    pub(super) ids: Vec<RequestId>,
    pub(super) values: usize,
}

impl Decoded {
    pub(super) fn copy_from(&mut self, t: &Tables) {
        fn tail<T: Copy>(to: &mut Vec<T>, from: &[T]) {
            let have = to.len();
            to.extend_from_slice(&from[have..]);
        }
        tail(&mut self.msgs, &t.msgs.values);
        tail(&mut self.msg_ids, &t.msgs.ids);
        tail(&mut self.works, &t.works.values);
        tail(&mut self.work_ids, &t.works.ids);
        tail(&mut self.timers, &t.timers.values);
        tail(&mut self.timer_ids, &t.timers.ids);
        tail(&mut self.ids, &t.ids.values);
        ranks(&mut self.msg_ranks, &self.msgs);
        ranks(&mut self.work_ranks, &self.works);
        ranks(&mut self.timer_ranks, &self.timers);
        self.values = t.values();
    }
}

/// Each code's rank among `values` sorted (codes 0 to 255: a rank fits a byte).
fn ranks<T: Ord>(out: &mut Vec<u8>, values: &[T]) {
    let mut order: Vec<u8> = (0..values.len()).map(|c| c as u8).collect();
    order.sort_by(|&a, &b| values[usize::from(a)].cmp(&values[usize::from(b)]));
    out.clear();
    out.resize(values.len(), 0);
    for (rank, &c) in order.iter().enumerate() {
        out[usize::from(c)] = rank as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads storing the same parts at once, in the same order (so that they race for
    /// each), are handed one number per part, which gives back its bytes and whose shard its
    /// bytes give; the parts spread over every shard. (A store that did not look again under
    /// the write lock fails most rounds.)
    #[test]
    fn parts_are_numbered_once_whichever_thread_stores_them() {
        // 40,000 parts of 1 to 4 bytes, some of them equal.
        let parts: Vec<Vec<u8>> = (0..40_000u32)
            .map(|i| i.to_le_bytes()[..1 + i as usize % 4].to_vec())
            .collect();
        for _round in 0..8 {
            let store = PartStore::default();
            let start = std::sync::Barrier::new(2);
            let number_all = || -> Vec<(Vec<u8>, u32)> {
                start.wait();
                let numbers = parts
                    .iter()
                    .map(|p| (p.clone(), store.number(p).expect("room").0));
                numbers.collect()
            };
            let (a, b) = std::thread::scope(|s| {
                let a = s.spawn(number_all);
                let b = s.spawn(number_all);
                (a.join().expect("ran"), b.join().expect("ran"))
            });
            assert_eq!(a, b, "both threads were handed the same numbers");
            let mut numbered = a;
            numbered.sort();
            numbered.dedup();
            assert!(
                numbered.windows(2).all(|w| w[0].0 != w[1].0),
                "one number per part"
            );
            let mut numbers: Vec<u32> = numbered.iter().map(|&(_, n)| n).collect();
            numbers.sort_unstable();
            numbers.dedup();
            assert_eq!(numbers.len(), numbered.len(), "parts apart, numbers apart");
            for (bytes, n) in &numbered {
                assert_eq!(store.with(*n, <[u8]>::to_vec).as_ref(), Some(bytes));
                // Its shard is read from its bytes, whichever thread stored it first.
                let shard = fingerprint(bytes) >> (64 - PART_SHARD_BITS);
                assert_eq!(u64::from(*n % PART_SHARDS as u32), shard);
            }
            let mut shards: Vec<u32> = numbers.iter().map(|n| n % (1 << PART_SHARD_BITS)).collect();
            shards.sort_unstable();
            shards.dedup();
            assert_eq!(
                shards.len(),
                1 << PART_SHARD_BITS,
                "every shard holds parts"
            );
            let unused = (numbers.len() as u32) << PART_SHARD_BITS;
            assert_eq!(store.with(unused, <[u8]>::len), None);
        }
    }

    /// The shared tables hand out codes; read as [`Known`] they find the codes handed out and
    /// give none to a value without one, handing out nothing.
    #[test]
    fn known_finds_codes_and_hands_out_none() {
        let mut t = Tables::empty();
        let work = (Party::Server, RequestId::Int(7));
        let timer = (Party::Client, Timer::RequestTimeout(RequestId::Int(7)));
        let c = t.work(work).expect("room");
        let before = t.values();
        assert_eq!(Known(&t).work(work), Some(c));
        assert_eq!(Known(&t).id(RequestId::Int(7)), t.id(RequestId::Int(7)));
        assert_eq!(Known(&t).timer(timer), None, "no code yet");
        assert_eq!(Known(&t).work((Party::Client, RequestId::Int(7))), None);
        assert_eq!(Known(&t).id(RequestId::Int(8)), None);
        assert_eq!(t.values(), before, "finding hands out nothing");
        let d = t.timer(timer).expect("room");
        assert_eq!(Known(&t).timer(timer), Some(d));
        assert_eq!(t.values(), before + 1);
    }

    /// A count of the store and [`PartStore::added_by`] of each part stored after it bound what
    /// the store holds at every moment until the next count, a buffer that grows holding its
    /// old and new allocations at once. The hardest counts are tried: each made when the hash
    /// table (or the list) of one shard is just short of three quarters full (so counted
    /// without room to grow), or full, then parts stored until it grows. A part stored before
    /// the count is not new; one stored after it is.
    #[test]
    fn a_count_and_the_parts_added_bound_what_the_store_holds() {
        // What the first shard holds: its parts' bytes, its hash table, its list.
        let holds = |store: &PartStore| -> [u64; 3] {
            let s = read(&store.shards[0]);
            let list = s.bytes.capacity() * core::mem::size_of::<Box<[u8]>>();
            [s.part_bytes, s.places.allocation_size() as u64, list as u64]
        };
        // Distinct parts of 4 to 16 bytes, those of the first shard.
        let mut parts = (0u32..)
            .map(|i| {
                let mut p = i.to_le_bytes().to_vec();
                p.resize(4 + i as usize % 13, 7);
                p
            })
            .filter(|p| fingerprint(p) >> (64 - PART_SHARD_BITS) == 0);
        for (buffer, full) in [(1, false), (2, false), (1, true), (2, true)] {
            let store = PartStore::default();
            let len = |store: &PartStore| read(&store.shards[0]).bytes.len();
            let cap = |store: &PartStore| {
                let s = read(&store.shards[0]);
                [0, s.places.capacity(), s.bytes.capacity()][buffer]
            };
            let mut last = Vec::new();
            let mut counts = 0;
            while len(&store) < 20_000 {
                let short = |l: usize, c: usize| match full {
                    false => (l + 1) * 4 < c.max(1) * 3,
                    true => l < c,
                };
                while short(len(&store), cap(&store)) {
                    last = parts.next().expect("parts");
                    store.number(&last);
                }
                let counted = store.count();
                counts += 1;
                if !last.is_empty() {
                    assert_eq!(store.number(&last).map(|n| n.1), Some(false));
                }
                let (mut added, mut before, was) = (0, holds(&store), cap(&store));
                while cap(&store) == was {
                    last = parts.next().expect("parts");
                    assert_eq!(store.number(&last).map(|n| n.1), Some(true));
                    added += PartStore::added_by(last.len());
                    let after = holds(&store);
                    let grown = |k: usize| if after[k] == before[k] { 0 } else { before[k] };
                    let at_once = after.iter().sum::<u64>() + grown(1) + grown(2);
                    assert!(
                        at_once <= counted + added,
                        "buffer {buffer}, full {full}, {} parts: {at_once} held, {counted} \
                         counted, {added} added",
                        len(&store)
                    );
                    before = after;
                }
            }
            assert!(counts > 10, "{counts} counts");
        }
    }
}
