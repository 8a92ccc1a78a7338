//! Compact tables by request id for the judge: what it must remember of every request a
//! session ever sent (its method, whether it was answered, resolved, cancelled), kept as runs
//! of integer ids ([`IdSet`]), so that a long session's tables take a few words per stretch
//! of ids alike rather than a few words per id.

use cancelcheck_model::RequestId;
use cancelcheck_model::message::Method;
use cancelcheck_properties::idset::IdSet;
use cancelcheck_wire::WireId;
use std::collections::BTreeSet;

/// The method of each model request: a set of ids per method (a session uses few).
#[derive(Default)]
pub(super) struct Methods(Vec<(Method, IdSet)>);

impl Methods {
    /// Records `id`'s method as `m` (in place of any it had).
    pub(super) fn insert(&mut self, id: RequestId, m: Method) {
        for (_, ids) in &mut self.0 {
            ids.remove(id);
        }
        match self.0.iter_mut().find(|(k, _)| *k == m) {
            Some((_, ids)) => {
                ids.insert(id);
            }
            None => {
                let mut ids = IdSet::default();
                ids.insert(id);
                self.0.push((m, ids));
            }
        }
    }

    /// `id`'s method, if it is a request the model knows.
    pub(super) fn get(&self, id: RequestId) -> Option<Method> {
        self.0
            .iter()
            .find(|(_, ids)| ids.contains(id))
            .map(|(m, _)| *m)
    }

    /// Whether `id` is a request the model knows.
    pub(super) fn contains_key(&self, id: RequestId) -> bool {
        self.get(id).is_some()
    }
}

/// A set of wire ids: integers as runs, the others one by one.
#[derive(Default)]
pub(super) struct WireIds {
    ints: IdSet,
    others: BTreeSet<WireId>,
}

impl WireIds {
    /// Adds `w`; says whether it was new.
    pub(super) fn insert(&mut self, w: &WireId) -> bool {
        match w {
            WireId::Int(n) => self.ints.insert(RequestId::Int(*n)),
            other => self.others.insert(other.clone()),
        }
    }

    /// Whether it holds `w`.
    pub(super) fn contains(&self, w: &WireId) -> bool {
        match w {
            WireId::Int(n) => self.ints.contains(RequestId::Int(*n)),
            other => self.others.contains(other),
        }
    }
}
