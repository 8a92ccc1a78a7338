//! How a level's states are held: packed end to end in parts (one per share of the level
//! before), and read by index, at once or as the later parts are gathered.

/// Packed states end to end in one buffer. While every state has the same length (as flat
/// rows do) no list of where each ends is kept: the states are found by arithmetic.
#[derive(Default)]
pub(super) struct Packed {
    pub(super) bytes: Vec<u8>,
    /// Where each state ends, once some state's length differs from the first's (empty before).
    pub(super) ends: Vec<usize>,
    /// The first state's length.
    stride: usize,
    len: usize,
}

impl Packed {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    fn get(&self, i: usize) -> &[u8] {
        if self.ends.is_empty() {
            return &self.bytes[i * self.stride..][..self.stride];
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    pub(super) fn push(&mut self, state: &[u8]) {
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

    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.len = 0;
    }

    pub(super) fn held_bytes(&self) -> u64 {
        (self.bytes.capacity() + self.ends.capacity() * core::mem::size_of::<usize>()) as u64
    }
}

/// A level's states in parts, in order: the first filled by the first share's thread as the
/// level before was expanded (the roots: the first part alone), each later one gathered from
/// that share's candidates on its own thread, as the level itself is expanded.
#[derive(Default)]
pub(super) struct Parts {
    pub(super) parts: Vec<Packed>,
    /// The index of each part's first state.
    pub(super) starts: Vec<usize>,
    len: usize,
}

impl Parts {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Takes note of where each part starts, given how many states each holds (or will hold
    /// once gathered).
    pub(super) fn set_lens(&mut self, lens: impl Iterator<Item = usize>) {
        self.starts.clear();
        self.len = 0;
        for n in lens {
            self.starts.push(self.len);
            self.len += n;
        }
    }

    pub(super) fn held_bytes(&self) -> u64 {
        self.parts.iter().map(Packed::held_bytes).sum::<u64>()
            + (self.starts.capacity() * core::mem::size_of::<usize>()) as u64
    }
}

/// A level's states as a thread reads them, by index in the level.
pub(super) trait LevelView {
    fn get(&self, i: usize) -> &[u8];
}

/// Every part of a level, gathered.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    pub(super) parts: &'a [&'a Packed],
    pub(super) starts: &'a [usize],
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
pub(super) struct FirstView<'a> {
    pub(super) first: &'a Packed,
    pub(super) starts: &'a [usize],
    pub(super) gathered: std::sync::mpsc::Receiver<&'a [Packed]>,
    pub(super) parts: std::cell::OnceCell<Vec<&'a Packed>>,
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
