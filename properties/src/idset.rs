//! A set of request ids kept as runs: integer ids, which sessions number in order, take a
//! run (first and last) per stretch of consecutive ids, so the set of every id a long session
//! used takes a few words, not a word per id. Other ids (strings, `null`) are kept one by one.
//! Its order is the ids' order (no hash order reaches anything).

use cancelcheck_model::RequestId;
use std::collections::{BTreeMap, BTreeSet};

/// A set of ids: integers as runs (first → last, inclusive), the others one by one.
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct IdSet {
    runs: BTreeMap<i64, i64>,
    others: BTreeSet<RequestId>,
}

impl IdSet {
    /// Whether `id` is in the set.
    pub fn contains(&self, id: RequestId) -> bool {
        match id {
            RequestId::Int(n) => self
                .runs
                .range(..=n)
                .next_back()
                .is_some_and(|(_, &e)| e >= n),
            other => self.others.contains(&other),
        }
    }

    /// Adds `id`; says whether it was new.
    pub fn insert(&mut self, id: RequestId) -> bool {
        if self.contains(id) {
            return false;
        }
        let RequestId::Int(n) = id else {
            return self.others.insert(id);
        };
        let before = self
            .runs
            .range(..n)
            .next_back()
            .map(|(&s, &e)| (s, e))
            .filter(|&(_, e)| e.checked_add(1) == Some(n));
        let after = n
            .checked_add(1)
            .and_then(|m| self.runs.get(&m).map(|&e| (m, e)));
        match (before, after) {
            (Some((s, _)), Some((m, e))) => {
                self.runs.remove(&m);
                self.runs.insert(s, e);
            }
            (Some((s, _)), None) => {
                self.runs.insert(s, n);
            }
            (None, Some((m, e))) => {
                self.runs.remove(&m);
                self.runs.insert(n, e);
            }
            (None, None) => {
                self.runs.insert(n, n);
            }
        }
        true
    }

    /// Removes `id`; says whether it was there.
    pub fn remove(&mut self, id: RequestId) -> bool {
        let RequestId::Int(n) = id else {
            return self.others.remove(&id);
        };
        let Some((s, e)) = self
            .runs
            .range(..=n)
            .next_back()
            .map(|(&s, &e)| (s, e))
            .filter(|&(_, e)| e >= n)
        else {
            return false;
        };
        self.runs.remove(&s);
        if s < n {
            self.runs.insert(s, n - 1);
        }
        if n < e {
            self.runs.insert(n + 1, e);
        }
        true
    }

    /// The ids in the set, in id order.
    pub fn iter(&self) -> impl Iterator<Item = RequestId> + '_ {
        let nulls = self
            .others
            .iter()
            .copied()
            .filter(|i| *i == RequestId::Null);
        let ints = self
            .runs
            .iter()
            .flat_map(|(&s, &e)| (s..=e).map(RequestId::Int));
        let rest = self
            .others
            .iter()
            .copied()
            .filter(|i| *i != RequestId::Null);
        nulls.chain(ints).chain(rest)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.others.is_empty()
    }

    /// How many runs and single ids it holds: what its memory grows with.
    pub fn pieces(&self) -> usize {
        self.runs.len() + self.others.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserting and removing integers joins and splits runs; other ids are kept apart.
    #[test]
    fn runs_join_and_split() {
        let mut s = IdSet::default();
        for n in [1, 2, 4, 3, 10] {
            assert!(s.insert(RequestId::Int(n)));
        }
        assert!(!s.insert(RequestId::Int(3)));
        assert_eq!(s.pieces(), 2);
        assert!(s.remove(RequestId::Int(2)));
        assert!(!s.remove(RequestId::Int(2)));
        assert_eq!(s.pieces(), 3);
        assert!(s.contains(RequestId::Int(1)) && !s.contains(RequestId::Int(2)));
        assert!(s.contains(RequestId::Int(3)) && s.contains(RequestId::Int(4)));
        let name = RequestId::str("a").expect("short");
        assert!(s.insert(name) && s.contains(name) && !s.contains(RequestId::Int(5)));
        assert!(s.remove(name) && !s.is_empty());
    }
}
