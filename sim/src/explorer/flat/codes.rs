//! The codes and parts a flat search shares between its threads, and each thread's copy of the
//! codes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, RwLock};

use cancelcheck_model::io::Timer;
use cancelcheck_model::{Message, Party, RequestId};

use super::Layout;
use crate::explorer::bounds;
use crate::explorer::hash::StableHasher;
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

/// What the threads of a flat search share: the codes and the parts, by number.
pub(super) struct Tables {
    pub(super) msgs: Table<Message>,
    pub(super) works: Table<(Party, RequestId)>,
    pub(super) timers: Table<(Party, Timer)>,
    pub(super) ids: Table<RequestId>,
    pub(super) parts: HashMap<Box<[u8]>, u32, BuildHasherDefault<StableHasher>>,
    pub(super) part_bytes: Vec<Box<[u8]>>,
}

impl Tables {
    pub(super) fn values(&self) -> usize {
        self.msgs.values.len()
            + self.works.values.len()
            + self.timers.values.len()
            + self.ids.values.len()
    }

    pub(super) fn id(&mut self, id: RequestId) -> Option<u8> {
        self.ids.code(id, 0)
    }

    pub(super) fn msg(&mut self, m: Message) -> Option<u8> {
        let id = match m.request_id() {
            Some(id) => self.id(id)?,
            None => 0,
        };
        self.msgs.code(m, id)
    }

    pub(super) fn work(&mut self, w: (Party, RequestId)) -> Option<u8> {
        let id = self.id(w.1)?;
        self.works.code(w, id)
    }

    pub(super) fn timer(&mut self, t: (Party, Timer)) -> Option<u8> {
        let id = match t.1 {
            Timer::RequestTimeout(id) => self.id(id)?,
            Timer::InitTimeout => 0,
        };
        self.timers.code(t, id)
    }

    /// The number of `bytes` as a part, handed out if new.
    pub(super) fn part(&mut self, bytes: &[u8]) -> u32 {
        if let Some(&i) = self.parts.get(bytes) {
            return i;
        }
        let i = self.part_bytes.len() as u32;
        self.part_bytes.push(bytes.into());
        self.parts.insert(bytes.into(), i);
        i
    }
}

/// The tables of a flat search, shared by its threads, and its layout.
pub struct FlatShared {
    pub(super) tables: RwLock<Tables>,
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
        let tables = Tables {
            msgs: Table::new(Message::MalformedCancel),
            works: Table::new((Party::Client, RequestId::Null)),
            timers: Table::new((Party::Client, Timer::InitTimeout)),
            ids: Table::new(RequestId::Null),
            parts: HashMap::default(),
            part_bytes: Vec::new(),
        };
        Arc::new(FlatShared {
            values: AtomicUsize::new(tables.values()),
            tables: RwLock::new(tables),
            layout,
        })
    }

    pub(super) fn read(&self) -> std::sync::RwLockReadGuard<'_, Tables> {
        self.tables.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn write(&self) -> std::sync::RwLockWriteGuard<'_, Tables> {
        self.tables.write().unwrap_or_else(|e| e.into_inner())
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
