//! Stable hashing for the explorer: fingerprints of packed states, and the hasher behind the
//! symmetry reduction's per-request signatures. Both depend only on the bytes or values fed,
//! on every run and every little-endian machine, so counts and counterexamples never depend on
//! a process's random hash seed.

use std::hash::Hasher;

/// A 64-bit hasher for `Hash` values: each integer is folded in with a multiply-rotate step
/// (byte slices eight bytes at a time), then the result is avalanched.
#[derive(Clone, Copy, Debug)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl StableHasher {
    #[inline]
    fn mix(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

impl Hasher for StableHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }
    fn write_u16(&mut self, n: u16) {
        self.mix(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.mix(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.mix(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }
    fn finish(&self) -> u64 {
        avalanche(self.0)
    }
}

/// The final mix of [`StableHasher`]: every input bit affects every output bit.
#[inline]
fn avalanche(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x
}

/// The two constants [`fingerprint`] mixes its blocks with.
const K0: u64 = 0xa076_1d64_78bd_642f;
const K1: u64 = 0xe703_7ed1_a0b4_28db;

/// The full 128-bit product of `a` and `b`, its halves folded together.
#[inline]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The fingerprint's state before any block: the length folded in.
#[inline]
fn fingerprint_start(len: usize) -> u64 {
    K0 ^ (len as u64).wrapping_mul(K1)
}

/// The fingerprint's state after one block of sixteen bytes, as two little-endian words.
#[inline]
fn fingerprint_block(acc: u64, lo: u64, hi: u64) -> u64 {
    fold_mul(acc ^ lo ^ K0, hi ^ K1)
}

/// The fingerprint of a packed state: sixteen bytes per multiply, the length folded in so that
/// the zero padding of the last block is unambiguous. No mix follows the last multiply: its
/// folded halves already spread the bits that maps and the visited set place keys by, and a
/// final mix, one to one, would not change which states share a fingerprint.
#[inline]
pub fn fingerprint(bytes: &[u8]) -> u64 {
    // Up to eight bytes, little-endian, zero-padded: a load for a whole word, a byte at a
    // time for the tail (no call to copy a slice of unknown length).
    let word = |b: &[u8]| match <[u8; 8]>::try_from(b) {
        Ok(w) => u64::from_le_bytes(w),
        Err(_) => b.iter().rev().fold(0u64, |w, &x| (w << 8) | u64::from(x)),
    };
    let mut acc = fingerprint_start(bytes.len());
    let mut blocks = bytes.chunks_exact(16);
    for b in &mut blocks {
        acc = fingerprint_block(acc, word(&b[..8]), word(&b[8..]));
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let (lo, hi) = rest.split_at(rest.len().min(8));
        acc = fingerprint_block(acc, word(lo), word(hi));
    }
    acc
}

/// [`fingerprint`] of `row[..len]`, read a word at a time: `row` holds zeros from `len` up to
/// the next multiple of 16 (a flat row's unused room), which are the padding `fingerprint`
/// puts behind the tail, so the tail is read as it lies rather than a byte at a time.
#[inline]
pub(super) fn fingerprint_padded(row: &[u8], len: usize) -> u64 {
    let end = len.next_multiple_of(16);
    debug_assert!(
        row[len..end].iter().all(|&b| b == 0),
        "a row's room is zeros"
    );
    let mut acc = fingerprint_start(len);
    for b in row[..end].chunks_exact(16) {
        let (lo, hi) = b.split_at(8);
        let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap_or_default());
        acc = fingerprint_block(acc, word(lo), word(hi));
    }
    acc
}

/// A fingerprint of two words (the flat form's memo keys): one multiply.
#[inline]
pub(super) fn fingerprint_pair(a: u64, b: u64) -> u64 {
    fold_mul(a ^ K0, b ^ K1)
}

/// A map from fingerprints to small values: open addressing with linear probing over one
/// array, the fingerprint's low bits as the home slot (fingerprints are already mixed). Unlike
/// a general hash map it can [`prefetch`](FingerprintMap::prefetch) a key's slot, so a search
/// can ask for the memory of a lookup it will make shortly and do other work meanwhile.
/// Grows when five eighths full.
#[derive(Clone, Debug)]
pub(super) struct FingerprintMap<V: Copy> {
    /// `(key, value)`; key 0 marks an empty slot (the key 0 itself lives in `zero`).
    slots: Vec<(u64, V)>,
    zero: Option<V>,
    len: usize,
}

impl<V: Copy> Default for FingerprintMap<V> {
    fn default() -> Self {
        FingerprintMap {
            slots: Vec::new(),
            zero: None,
            len: 0,
        }
    }
}

impl<V: Copy + Default> FingerprintMap<V> {
    /// Keys held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    fn home(&self, key: u64) -> usize {
        key as usize & (self.slots.len() - 1)
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        while self.slots[i].0 != key && self.slots[i].0 != 0 {
            i = (i + 1) & mask;
        }
        i
    }

    /// The value for `key`.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<V> {
        if key == 0 {
            return self.zero;
        }
        if self.slots.is_empty() {
            return None;
        }
        let slot = self.slots[self.find(key)];
        (slot.0 == key).then_some(slot.1)
    }

    /// Puts `key` with `value` unless `key` is held; returns whether it was new.
    #[inline(always)]
    pub(super) fn insert(&mut self, key: u64, value: V) -> bool {
        if (self.len + 1) * 8 > self.slots.len() * 5 {
            self.grow();
        }
        self.put(key, value)
    }

    /// [`FingerprintMap::insert`] into a table given its room by its owner (as a
    /// [`ShardedSet`]'s shards are): it grows only when the key would fill more than seven
    /// eighths of it.
    #[inline(always)]
    pub(super) fn insert_in_room(&mut self, key: u64, value: V) -> bool {
        if self.full() {
            self.grow();
        }
        self.put(key, value)
    }

    /// Whether one more key would fill more than seven eighths of its table.
    #[inline(always)]
    fn full(&self) -> bool {
        (self.len + 1) * 8 > self.slots.len() * 7
    }

    /// Puts `key` with `value` unless `key` is held, in a table with room for it; returns
    /// whether it was new.
    #[inline(always)]
    fn put(&mut self, key: u64, value: V) -> bool {
        if key == 0 {
            let new = self.zero.is_none();
            if new {
                self.zero = Some(value);
                self.len += 1;
            }
            return new;
        }
        let i = self.find(key);
        if self.slots[i].0 == key {
            return false;
        }
        self.slots[i] = (key, value);
        self.len += 1;
        true
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.resize_to((self.slots.len() * 2).max(MIN_SLOTS));
    }

    /// Moves the keys to a table of `size` slots (a power of two, with room for them).
    fn resize_to(&mut self, size: usize) {
        // Written out, not allocated zeroed: zeroed pages are first mapped shared and read
        // only, and the first write to each then costs a second fault, which on a search of
        // several threads also interrupts every other core to flush its TLB.
        let mut slots = Vec::with_capacity(size);
        slots.resize(size, (0, V::default()));
        let old = core::mem::replace(&mut self.slots, slots);
        for (k, v) in old {
            if k != 0 {
                let i = self.find(k);
                self.slots[i] = (k, v);
            }
        }
    }

    /// Gives the table `slots` slots (a power of two), unless its keys would fill more than
    /// seven eighths of them.
    pub(super) fn settle_to(&mut self, slots: usize) {
        if slots != self.slots.len() && (self.len + 1) * 8 <= slots * 7 {
            self.resize_to(slots);
        }
    }

    /// Gives the table at least `slots` slots (a power of two).
    fn reserve_slots(&mut self, slots: usize) {
        if self.slots.len() < slots {
            self.resize_to(slots);
        }
    }

    /// Forgets every key, keeping its table.
    pub(super) fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill((0, V::default()));
            self.zero = None;
            self.len = 0;
        }
    }

    /// The bytes its table takes.
    pub(super) fn held_bytes(&self) -> u64 {
        (self.slots.capacity() * core::mem::size_of::<(u64, V)>()) as u64
    }

    /// The bytes held at most while `more` keys are put in: the table it would grow to, and
    /// the table it has while the keys move over (nothing beyond [`held_bytes`] if no growth
    /// is needed).
    ///
    /// [`held_bytes`]: FingerprintMap::held_bytes
    pub(super) fn held_bytes_after(&self, more: usize) -> u64 {
        let want = self.len.saturating_add(more);
        let mut size = self.slots.len();
        while want.saturating_mul(8) > size.saturating_mul(5) {
            size = (size * 2).max(MIN_SLOTS);
        }
        let slot = core::mem::size_of::<(u64, V)>() as u64;
        if size == self.slots.len() {
            self.held_bytes()
        } else {
            self.held_bytes() + size as u64 * slot
        }
    }

    /// Asks the processor to bring `key`'s home slot into cache; never changes the map.
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[self.home(key)]);
        }
    }
}

/// Asks the processor to start loading the cache line of `x`; a hint with no effect on the
/// program's meaning.
#[inline]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch neither reads into the program nor faults, whatever the address; the
    // address here is of a live reference anyway. SSE is part of the x86-64 baseline.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The visited set: fingerprints.
pub(super) type FingerprintSet = FingerprintMap<()>;

/// The slots of a [`FingerprintMap`]'s first table.
const MIN_SLOTS: usize = 1024;

/// How many shards a [`ShardedSet`] has (a power of two).
pub(super) const SHARDS: usize = 16;

/// A visited set split by the top bits of its fingerprints into [`SHARDS`] sets, so that
/// threads can fill different shards at once.
///
/// The shards grow on a schedule set by how many keys the whole set holds, one after another
/// in a fixed order (each when its turn comes, once the keys fill 61.6 to 62.5% of the slots
/// on average), not each when its own keys fill it: so the bytes it holds depend only on the
/// number of keys put in. On several threads the fingerprints of a state differ from run to
/// run (they hash the numbers of the parts it holds, handed out in the order the threads
/// store them), and so does how they fall among the shards; a memory budget and a thread count
/// still give one result. A shard its keys would fill past seven eighths grows at once, off
/// the schedule: one key at a time that takes some ten standard deviations of a shard's share
/// of the keys; [`ShardedSet::fill_shards`] lets shards grow so, then brings every shard back
/// to the schedule's table.
pub(super) struct ShardedSet {
    shards: [FingerprintSet; SHARDS],
    /// Keys held.
    len: usize,
    /// Where the schedule stands: each shard has `size` slots, but the first `grown`, which
    /// have twice that; the next grows when `len` reaches `next_at`.
    size: usize,
    grown: usize,
    next_at: usize,
    /// The bytes its tables take.
    held: u64,
}

impl Default for ShardedSet {
    fn default() -> Self {
        ShardedSet {
            shards: core::array::from_fn(|_| FingerprintSet::default()),
            len: 0,
            size: 0,
            grown: 0,
            next_at: 0,
            held: 0,
        }
    }
}

/// A place in the schedule the shards of a [`ShardedSet`] grow on (see there).
#[derive(Clone, Copy)]
struct Schedule {
    size: usize,
    grown: usize,
}

impl Schedule {
    /// The keys held at which the next shard grows.
    fn next_at(self) -> usize {
        match self.size {
            0 => 0,
            // From 5/8 * 63/64 of the slots on average, one shard per 1/512 of 5/8, the last
            // at 5/8: about where each would grow when its own keys filled 5/8 of it.
            s => 5 * s * (63 * SHARDS + self.grown + 1) / 512,
        }
    }

    /// The shard that grows next, the slots it grows to, and the place after.
    fn step(self) -> (core::ops::Range<usize>, usize, Schedule) {
        match self.size {
            0 => (
                0..SHARDS,
                MIN_SLOTS,
                Schedule {
                    size: MIN_SLOTS,
                    grown: 0,
                },
            ),
            s if self.grown + 1 == SHARDS => (
                self.grown..SHARDS,
                2 * s,
                Schedule {
                    size: 2 * s,
                    grown: 0,
                },
            ),
            s => (
                self.grown..self.grown + 1,
                2 * s,
                Schedule {
                    size: s,
                    grown: self.grown + 1,
                },
            ),
        }
    }
}

impl ShardedSet {
    /// The shard of `key` (the slot within a shard comes from the low bits).
    #[inline]
    pub(super) fn shard(key: u64) -> usize {
        (key >> (64 - SHARDS.trailing_zeros())) as usize
    }

    /// Keys held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    fn schedule(&self) -> Schedule {
        Schedule {
            size: self.size,
            grown: self.grown,
        }
    }

    /// Puts `key` in; returns whether it was new.
    #[inline(always)]
    pub(super) fn insert(&mut self, key: u64) -> bool {
        let i = Self::shard(key);
        if self.shards[i].full() {
            self.grow_full(i);
        }
        // (`i` is below SHARDS: no bounds check.)
        let new = self.shards[i].put(key, ());
        if new {
            self.len += 1;
            if self.len >= self.next_at {
                self.grow_next();
            }
        }
        new
    }

    /// Makes room in shard `i`, which one more key would fill to seven eighths: the first
    /// tables of every shard, if there are none yet; else a growth of the shard, off the
    /// schedule.
    #[cold]
    #[inline(never)]
    fn grow_full(&mut self, i: usize) {
        if self.size == 0 {
            self.grow_next();
        } else {
            self.shards[i].grow();
            self.recount();
        }
    }

    /// Grows the shards whose turn it is.
    #[cold]
    #[inline(never)]
    fn grow_next(&mut self) {
        let (shards, size, after) = self.schedule().step();
        for s in &mut self.shards[shards] {
            s.reserve_slots(size);
        }
        self.size = after.size;
        self.grown = after.grown;
        self.next_at = after.next_at();
        self.recount();
    }

    /// Takes note of the bytes its tables take.
    #[cold]
    #[inline(never)]
    fn recount(&mut self) {
        self.held = self.shards.iter().map(FingerprintSet::held_bytes).sum();
    }

    /// Asks for `key`'s slot (a hint).
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        self.shards[Self::shard(key)].prefetch(key);
    }

    /// Lets `fill` put keys into the shards apart ([`FingerprintMap::insert_in_room`]: a
    /// shard grows as its own keys fill it), then, if some shard's table is not the one the
    /// schedule gives it for the keys the set then holds (the table the keys put in one by one
    /// would have grown to, whatever shards they fell in), lets `settle` give each shard its
    /// slots ([`FingerprintMap::settle_to`]), apart too.
    pub(super) fn fill_shards(
        &mut self,
        fill: impl FnOnce(&mut [FingerprintSet]),
        settle: impl FnOnce(&mut [FingerprintSet], &[usize; SHARDS]),
    ) {
        fill(&mut self.shards);
        self.len = self.shards.iter().map(FingerprintSet::len).sum();
        let mut at = self.schedule();
        while self.len > 0 && self.len >= at.next_at() {
            at = at.step().2;
        }
        (self.size, self.grown, self.next_at) = (at.size, at.grown, at.next_at());
        let slots: [usize; SHARDS] =
            core::array::from_fn(|i| if i < at.grown { 2 * at.size } else { at.size });
        if self
            .shards
            .iter()
            .zip(&slots)
            .any(|(s, &n)| s.slots.len() != n)
        {
            settle(&mut self.shards, &slots);
        }
        self.recount();
    }

    /// The bytes its tables take.
    pub(super) fn held_bytes(&self) -> u64 {
        self.held
    }

    /// The bytes the next growth adds at once (the tables it grows to, while the old ones are
    /// still held): what putting in a few keys may cost.
    pub(super) fn next_growth(&self) -> u64 {
        let (shards, size, _) = self.schedule().step();
        (shards.len() * size * core::mem::size_of::<(u64, ())>()) as u64
    }

    /// The bytes held at most while `more` keys are put in, one by one or by
    /// [`ShardedSet::fill_shards`]: the tables the schedule gives the set for them, and the old
    /// table of each shard that grows meanwhile (on several threads, shards grow at once).
    pub(super) fn held_bytes_after(&self, more: usize) -> u64 {
        let slot = core::mem::size_of::<(u64, ())>() as u64;
        let mut slots: [usize; SHARDS] = core::array::from_fn(|i| self.shards[i].slots.len());
        let mut old = 0;
        let mut at = self.schedule();
        while more > 0 && self.len + more >= at.next_at() {
            let (shards, size, after) = at.step();
            for s in &mut slots[shards] {
                if *s < size {
                    old += *s as u64 * slot;
                    *s = size;
                }
            }
            at = after;
        }
        slots.iter().map(|&s| s as u64 * slot).sum::<u64>() + old
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read a word at a time from a zero-padded row, every length from 0 to 64 bytes gives
    /// what `fingerprint` gives of the same bytes.
    #[test]
    fn a_padded_row_fingerprints_as_its_bytes() {
        for len in 0..=64 {
            let mut row = [0u8; 80];
            for (i, b) in row[..len].iter_mut().enumerate() {
                *b = (i as u8).wrapping_mul(37).wrapping_add(len as u8) | 1;
            }
            assert_eq!(
                fingerprint_padded(&row, len),
                fingerprint(&row[..len]),
                "{len}"
            );
        }
    }

    #[test]
    fn fingerprints_are_stable_and_tell_lengths_and_bytes_apart() {
        assert_ne!(fingerprint(b""), fingerprint(&[0]));
        assert_ne!(fingerprint(&[0]), fingerprint(&[0, 0]));
        let base: Vec<u8> = (0..40).collect();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..base.len() {
            for bit in 0..8 {
                let mut v = base.clone();
                v[i] ^= 1 << bit;
                assert!(
                    seen.insert(fingerprint(&v)),
                    "collision at byte {i} bit {bit}"
                );
            }
        }
        assert!(!seen.contains(&fingerprint(&base)));
    }

    /// With no final mix, the bits a map and the visited set place keys by still spread
    /// keys that differ in a few low bits, as memo keys and states do: the low bits (a map's
    /// home slot) over 1,024 slots, the top four (the visited set's shard) over 16.
    #[test]
    fn fingerprints_spread_over_home_slots_and_shards() {
        let spread = |keys: &[u64], what: &str| {
            let mut slots = vec![0u32; 1024];
            let mut shards = [0u32; SHARDS];
            for &k in keys {
                slots[k as usize & 1023] += 1;
                shards[ShardedSet::shard(k)] += 1;
            }
            let (per_slot, per_shard) = (keys.len() / 1024, keys.len() / SHARDS);
            let fullest = *slots.iter().max().unwrap() as usize;
            assert!(
                fullest < 2 * per_slot,
                "{what}: a slot of {fullest}, {per_slot} a slot on average"
            );
            for n in shards {
                let n = n as usize;
                assert!(
                    n * 10 > per_shard * 9 && n * 10 < per_shard * 11,
                    "{what}: a shard of {n}, {per_shard} on average"
                );
            }
        };
        // Memo keys: a small coded input beside a party's number.
        let pairs: Vec<u64> = (0..256u64)
            .flat_map(|code| (0..256u64).map(move |n| fingerprint_pair(code << 24 | 3 << 16, n)))
            .collect();
        spread(&pairs, "pairs");
        // Rows of 40 bytes differing in two bytes.
        let mut row = [0u8; 48];
        let rows: Vec<u64> = (0..65_536u32)
            .map(|i| {
                row[5] = i as u8;
                row[33] = (i >> 8) as u8;
                fingerprint_padded(&row, 40)
            })
            .collect();
        spread(&rows, "rows");
    }

    /// The bytes a sharded set holds depend only on how many keys are put in, not on how the
    /// keys fall among its shards: two sets given different keys hold the same bytes after
    /// every key put in one by one, and after a batch put in through `fill_shards` as many as
    /// one by one; the bound asked for before a batch covers what the batch grew to. Growing
    /// each shard when its own keys fill it fails this, and so does a batch not settled.
    #[test]
    fn a_sharded_set_holds_what_its_number_of_keys_sets() {
        const ONE_BY_ONE: usize = 20_000;
        let keys = |salt: u64| -> Vec<u64> {
            (0..110_000u64)
                .map(|i| fingerprint(&(i ^ salt << 40).to_le_bytes()))
                .collect()
        };
        let run = |keys: &[u64], batch_from: usize| {
            let mut set = ShardedSet::default();
            let mut held = Vec::new();
            for (i, &k) in keys[..batch_from].iter().enumerate() {
                assert!(set.insert(k), "a new key");
                held.push(set.held_bytes());
                if i % 997 == 0 {
                    assert!(!set.insert(keys[i / 2]), "a key held");
                }
            }
            // The rest as the merge puts them in: shard by shard, each growing as it fills.
            let batch = &keys[batch_from..];
            let bound = set.held_bytes_after(batch.len());
            set.fill_shards(
                |shards| {
                    for (i, shard) in shards.iter_mut().enumerate() {
                        for &k in batch.iter().filter(|&&k| ShardedSet::shard(k) == i) {
                            assert!(shard.insert_in_room(k, ()));
                        }
                    }
                },
                |shards, slots| {
                    for (shard, &n) in shards.iter_mut().zip(slots) {
                        shard.settle_to(n);
                    }
                },
            );
            assert!(set.held_bytes() <= bound, "the bound asked for first holds");
            held.push(set.held_bytes());
            assert_eq!(set.len(), keys.len());
            assert!(keys.iter().all(|&k| !set.insert(k)), "every key held");
            held
        };
        let (a, b) = (keys(1), keys(2));
        let batched = run(&a, ONE_BY_ONE);
        assert_eq!(batched, run(&b, ONE_BY_ONE));
        let one_by_one = run(&a, a.len());
        assert_eq!(
            batched.last(),
            one_by_one.last(),
            "a batch holds what one by one does"
        );
        assert_eq!(batched[..ONE_BY_ONE], one_by_one[..ONE_BY_ONE]);
    }

    #[test]
    fn the_fingerprint_map_keeps_every_key_once_across_growth() {
        let mut m = FingerprintMap::<u32>::default();
        let keys: Vec<u64> = (0..5000u64)
            .map(|i| fingerprint(&i.to_le_bytes()))
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            assert!(m.insert(k, i as u32));
            assert!(!m.insert(k, 0), "a second insert keeps the first value");
        }
        // Keys that share a home slot, and the key 0.
        assert!(m.insert(0, 7) && m.insert(1 << 40, 8) && m.insert(2 << 40, 9));
        assert_eq!(m.len(), keys.len() + 3);
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(m.get(k), Some(i as u32));
        }
        assert_eq!(
            (m.get(0), m.get(1 << 40), m.get(2 << 40)),
            (Some(7), Some(8), Some(9))
        );
        assert!(m.get(3 << 40).is_none() && m.get(fingerprint(b"absent")).is_none());
        // Cleared, it holds nothing and takes every key again, in the table it had.
        let table = m.held_bytes();
        m.clear();
        assert_eq!((m.len(), m.get(keys[0]), m.get(0)), (0, None, None));
        assert!(m.insert(keys[0], 1) && m.insert(0, 2));
        assert_eq!(
            (m.get(keys[0]), m.get(0), m.held_bytes()),
            (Some(1), Some(2), table)
        );
    }
}
