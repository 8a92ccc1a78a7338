//! The report of a breadth-first search of every initial state, made from the reports of
//! searches of disjoint sets of them ([`search_shard`](super::search_shard)).

use super::{Finding, Findings, Level, SearchReport};

/// The report [`search`](super::search) gives, made from `parts`: the reports of
/// breadth-first [`search_shard`](super::search_shard)es of one scenario with the same options
/// (threads and memory budget aside), one per shard of a split of the initial states, in any
/// order. Or why it cannot be made: the index of the part at fault and the reason.
///
/// No state is shared between initial states, so the counts add up. The whole search stops
/// at the level where it meets its first MUST broken, having expanded that level of every
/// initial state: its counts are the parts' as they stood at that level
/// ([`SearchReport::levels`]). It reports the first finding in its order ([`Finding::key`]):
/// the least level, a quiescent state before a successor, the lowest initial state; each
/// part's first is its least in that order, so the whole's is the least of the parts'. After
/// a reduced search, the shortening search of every initial state stops, likewise, at the
/// least of the parts' shortening searches' findings no deeper than its bound.
///
/// Exact for counts, depth, races, findings and `shortest`; `peak_states_held` and
/// `peak_bytes_held` are the parts' added up, which is at least what the whole search held at
/// once. A part cut short by `max_states` or `max_memory` is refused (the whole search's cut
/// falls elsewhere), as is a part whose shortening search does not reach the bound the whole
/// search's needs.
pub fn combine(parts: &[SearchReport]) -> Result<SearchReport, (usize, String)> {
    let Some(first) = parts.first() else {
        return Err((0, "no part to combine".into()));
    };
    for (i, p) in parts.iter().enumerate() {
        if p.bounded_by_states || p.bounded_by_memory {
            let by = if p.bounded_by_states {
                "--max-states"
            } else {
                "its memory budget (--max-memory)"
            };
            return Err((
                i,
                format!(
                    "its search stopped at {by}, where the whole search would not: its counts are not its share of the whole's; raise the bound (or split the search further) and run it again"
                ),
            ));
        }
        if (p.symmetry, p.partial_order) != (first.symmetry, first.partial_order) {
            return Err((i, "its reductions differ from the first part's".into()));
        }
    }
    let least = |pick: &dyn Fn(&SearchReport) -> Option<&Finding>| {
        parts
            .iter()
            .filter_map(pick)
            .min_by_key(|f| f.key())
            .cloned()
    };
    let mut whole = SearchReport::starting(first.symmetry, first.partial_order);
    whole.flat = parts.iter().all(|p| p.flat);
    whole.peak_states_held = parts.iter().map(|p| p.peak_states_held).sum();
    whole.peak_bytes_held = parts.iter().map(|p| p.peak_bytes_held).sum();
    let stop = least(&|p| p.found.counterexample.as_ref());
    for p in parts {
        let at = match (&stop, p) {
            // A part that ended before that level (every state searched) counts whole.
            (Some(bad), p) if (bad.level as usize) < p.levels.len() => {
                p.levels[bad.level as usize].clone()
            }
            _ => Level {
                unique: p.unique_states,
                total: p.total_states,
                reduced: p.reduced_states,
                reached: p.reached,
            },
        };
        whole.unique_states += at.unique;
        whole.total_states += at.total;
        whole.reduced_states += at.reduced;
        whole.reached = whole.reached.union(at.reached);
        // Every part ran to its end (or its depth bound), as the whole search does.
        whole.max_depth = whole.max_depth.max(p.max_depth);
        whole.exhaustive &= p.exhaustive;
    }
    match &stop {
        None => whole.found.warning = least(&|p| p.found.warning.as_ref()),
        Some(bad) => {
            whole.max_depth = bad.level + u32::from(bad.key().1);
            // The whole search returns at its counterexample as it would at the end.
            whole.exhaustive = true;
            whole.found.counterexample = stop.clone();
            whole.found.warning =
                least(&|p| p.found.warning.as_ref().filter(|w| w.level < bad.level));
        }
    }
    let as_pair = |f: &Finding| (f.schedule.clone(), f.broken.clone());
    whole.counterexample = whole.found.counterexample.as_ref().map(as_pair);
    whole.warning = whole.found.warning.as_ref().map(as_pair);
    whole.shortest = !whole.partial_order;
    if whole.shortest {
        return Ok(whole);
    }
    let Some((path, broken)) = whole.finding().cloned() else {
        whole.shortest = true;
        return Ok(whole);
    };
    let must = whole.counterexample.is_some();
    let bound = path.len() as u32;
    // What the whole's shortening search (every initial state, no deeper than `bound`) finds.
    let mut pass = Findings::default();
    for (i, p) in parts.iter().enumerate() {
        match &p.shortening {
            Some((b, found)) if *b >= bound => {
                let within = |f: &Option<Finding>| f.clone().filter(|f| f.level < bound);
                pass.counterexample = lesser(pass.counterexample, within(&found.counterexample));
                pass.warning = lesser(pass.warning, within(&found.warning));
            }
            // An exhaustive reduced search reaches every state that breaks an invariant: a
            // part that found nothing of the kind has nothing of it to shorten.
            _ if p.exhaustive && p.found.warning.is_none() && p.found.counterexample.is_none() => {}
            _ if p.exhaustive && must && p.found.counterexample.is_none() => {}
            _ => {
                return Err((
                    i,
                    format!(
                        "its shortening search does not reach depth {bound}, which the whole search's needs; run every shard with this cancelcheck"
                    ),
                ));
            }
        }
    }
    // It stops at its first MUST: warnings after it are not its.
    if let Some(stop) = &pass.counterexample {
        pass.warning = pass.warning.filter(|w| w.level < stop.level);
    }
    let found = if must {
        pass.counterexample
    } else {
        pass.warning
    };
    let found = found
        .filter(|f| f.schedule.len() <= path.len() && f.broken.iter().any(|i| broken.contains(i)));
    if let Some(f) = found {
        let pair = Some(as_pair(&f));
        if must {
            whole.counterexample = pair;
        } else {
            whole.warning = pair;
        }
        whole.shortest = true;
    }
    Ok(whole)
}

/// The one met first, of two findings.
fn lesser(a: Option<Finding>, b: Option<Finding>) -> Option<Finding> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.key() < a.key() { b } else { a }),
        (a, b) => a.or(b),
    }
}
