//! Breadth-first search: level by level on several threads, merged in a fixed order, so the
//! first counterexample is a shortest one and the counts do not depend on the threads.
//!
//! Each thread expands a contiguous share of a level. The first share's successors come first
//! in the level's order, so its thread puts them straight into the visited set and the next
//! level as it makes them; the other threads keep theirs as candidates (each distinct one
//! once per share), which are merged, in order, once the level is expanded. Each later share's
//! new states are gathered on its own thread at the start of the next level, while the first
//! thread is already expanding its share of it. The threads beside the calling one are
//! started once a search ([`Worker`]) and handed each level's jobs.
//!
//! How a level's states are held is in [`level`], one thread's share of a level in [`share`];
//! this file holds the search tree and the search.

mod level;
mod share;

pub(super) use share::Share;

use level::{FirstView, Packed, Parts, View};
use share::{Direct, Sink, expand_share, gather, mark_fresh};

use super::expander::{Expander, Roots};
use super::form::Form;
use super::workers::{Worker, join, run_each};
use super::{Finding, Level, SearchOptions, SearchReport, out_of_memory, reserved};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::explorer::hash::{SHARDS, ShardedSet};
use crate::explorer::{partial_order, symmetric};
use crate::scenario::Scenario;

/// A state's place in the breadth-first search tree: the state it was first reached from and
/// the step that reached it (for a root: `parent == u32::MAX`, `choice` its initial index).
#[derive(Clone, Copy)]
struct Node {
    parent: u32,
    choice: u32,
}

fn path_to(nodes: &[Node], mut i: u32) -> Vec<u32> {
    let mut path = Vec::new();
    loop {
        let n = &nodes[i as usize];
        path.push(n.choice);
        if n.parent == u32::MAX {
            break;
        }
        i = n.parent;
    }
    path.reverse();
    path
}

/// Breadth-first search from `roots` by the step rules of `rules` (see [`roots`](super::expander::roots)); `None` if
/// the form `F` could not hold some state.
pub(super) fn search_breadth_first<F: Form>(
    rules: &Scenario,
    roots: &Roots,
    opts: &SearchOptions,
    progress: &(dyn Fn(u32, u64, u64) + Sync),
) -> Option<SearchReport> {
    let sym = opts.symmetry && symmetric(rules);
    let por = opts.partial_order && partial_order(rules);
    let mut report = SearchReport::starting(sym, por);
    let threads = opts.threads.clamp(1, 64);
    let mut expanders: Vec<Expander<'_, F>> = (0..threads)
        .map(|_| Expander::new(rules, roots, sym, por))
        .collect::<Option<_>>()?;
    // The threads beside this one, kept for the whole search.
    let workers: Vec<Worker> = (1..threads).map(|_| Worker::new()).collect();
    let mut seen = ShardedSet::default();
    // The tree: a level's states are nodes `base..base + level.len()`, in order.
    let mut nodes: Vec<Node> = Vec::new();
    let mut level = Parts::default();
    level.parts.resize_with(threads, Packed::default);
    // Each part's new nodes, in order (kept from level to level): the first part's made by
    // the first share's thread, the others' as each part is gathered.
    let mut new_nodes: Vec<Vec<Node>> = (0..threads).map(|_| Vec::new()).collect();
    // (Keying may relabel a scratch state; scratch states are overwritten before every step.)
    let x = &mut expanders[0];
    for i in (0..x.states.len()).filter(|&i| roots.searched(i)) {
        report.total_states += 1;
        let (key, packed) = x.key(i);
        if seen.insert(key) {
            new_nodes[0].push(Node {
                parent: u32::MAX,
                choice: i as u32,
            });
            level.parts[0].push(packed);
        }
    }
    let roots_len = level.parts[0].len();
    level.set_lens((0..threads).map(|t| if t == 0 { roots_len } else { 0 }));
    let exact = opts.max_memory.is_some();
    // The first part of the next level as the first share fills it (then it and the level's
    // first part trade places).
    let mut spare = Packed::default();
    let mut depth = 0u32;
    while level.len() > 0 {
        report.max_depth = depth;
        if opts.max_depth.is_some_and(|d| depth >= d) {
            report.exhaustive = false;
            break;
        }
        // The level's first part's nodes join the tree now (the first share's thread makes
        // the next level's); the later parts' once they are gathered.
        let base = nodes.len() as u32;
        nodes.extend_from_slice(&new_nodes[0]);
        new_nodes[0].clear();
        // Expand in parallel: each thread a contiguous share, so that shares in thread order
        // are the level in order.
        let len = level.len();
        let chunk = len.div_ceil(threads);
        let range = |t: usize| (t * chunk).min(len)..((t + 1) * chunk).min(len);
        // What the search holds besides the threads' shares and memos, and what each thread
        // may then hold.
        let unique_before = seen.len();
        let held = |level: &Parts,
                    spare: &Packed,
                    new_nodes: &[Vec<Node>],
                    nodes: &Vec<Node>,
                    seen: &ShardedSet| {
            level.held_bytes()
                + spare.held_bytes()
                + (new_nodes.iter().map(Vec::capacity).sum::<usize>()
                    * core::mem::size_of::<Node>()) as u64
                + (nodes.capacity() * core::mem::size_of::<Node>()) as u64
                + seen.held_bytes()
        };
        let shared = F::count_shared(expanders.iter_mut().map(|x| &mut x.memo));
        let fixed = held(&level, &spare, &new_nodes, &nodes, &seen) + shared;
        let threads_held: u64 = expanders
            .iter()
            .map(|x| x.share.held_bytes() + F::held_bytes(&x.memo))
            .sum();
        let allowance = match opts.max_memory {
            Some(m) if fixed + threads_held > m => {
                return Some(out_of_memory(report, seen.len()));
            }
            Some(m) => Some((m - fixed) / threads as u64),
            None => None,
        };
        report.peak_bytes_held = report.peak_bytes_held.max(fixed + threads_held);
        spare.clear();
        // The state bound stops the search at the new state that reaches it (at the first new
        // state if the roots reached it).
        let room = opts.max_states.map_or(usize::MAX, |m| {
            usize::try_from(m)
                .unwrap_or(usize::MAX)
                .saturating_sub(unique_before)
                .max(1)
        });
        let (nodes0, later_nodes) = new_nodes.split_first_mut().expect("at least one thread");
        let from = seen.held_bytes()
            + spare.held_bytes()
            + (nodes0.capacity() * core::mem::size_of::<Node>()) as u64;
        let first = Sink::Direct(Direct {
            seen: &mut seen,
            next: &mut spare,
            nodes: nodes0,
            room,
            from,
        });
        // The first share on this thread; on the first worker, each later part gathered from
        // the candidates its share's thread kept (which that thread then reuses), in
        // parallel, then the later shares expanded, in parallel (the last share on the first
        // worker, each other on a worker of its own). The gathered parts are sent to
        // this thread too, should the first share reach past the first part.
        let (x0, later) = expanders.split_first_mut().expect("at least one thread");
        let (part0, later_parts) = level.parts.split_first_mut().expect("a first part");
        let (part0, starts) = (&*part0, &level.starts[..]);
        let (send, gathered) = std::sync::mpsc::channel();
        let rest = workers.get(1..).unwrap_or_default();
        let later_shares = move || {
            let shares = later.iter().map(|x| &x.share);
            run_each(
                rest,
                later_parts
                    .iter_mut()
                    .zip(shares)
                    .zip(later_nodes)
                    .map(|((part, share), nn)| move || gather(part, share, nn)),
            );
            let later_parts: &[Packed] = later_parts;
            // (The first share's thread may have finished without them.)
            let _ = send.send(later_parts);
            let parts: Vec<&Packed> = core::iter::once(part0).chain(later_parts).collect();
            debug_assert!(
                (0..parts.len())
                    .all(|p| { starts.get(p + 1).unwrap_or(&len) - starts[p] == parts[p].len() }),
                "each part gathered as many states as the merge found new"
            );
            let view = View {
                parts: &parts,
                starts,
            };
            let view = &view;
            run_each(
                rest,
                later.iter_mut().enumerate().map(|(t, x)| {
                    let range = range(t + 1);
                    move || expand_share(x, view, base, range, Sink::Later, allowance)
                }),
            );
        };
        let first_share = move || {
            let view = FirstView {
                first: part0,
                starts,
                gathered,
                parts: std::cell::OnceCell::new(),
            };
            expand_share(x0, &view, base, range(0), first, allowance);
        };
        match workers.first() {
            // One thread: its share is the first part.
            None => {
                drop(later_shares);
                first_share();
            }
            Some(w) => join(w, later_shares, first_share),
        }
        for nn in &new_nodes[1..] {
            nodes.extend_from_slice(nn);
        }
        if expanders.iter().any(|x| F::spoilt(&x.memo)) {
            return None;
        }
        let shared = F::count_shared(expanders.iter_mut().map(|x| &mut x.memo));
        let threads_held: u64 = expanders
            .iter()
            .map(|x| x.share.held_bytes() + F::held_bytes(&x.memo))
            .sum();
        // (The first share's thread grew the next level and the visited set meanwhile.)
        let fixed = held(&level, &spare, &new_nodes, &nodes, &seen) + shared;
        if opts.max_memory.is_none_or(|m| fixed + threads_held <= m) {
            report.peak_bytes_held = report.peak_bytes_held.max(fixed + threads_held);
        }
        let shares: Vec<&Share> = expanders.iter().map(|x| &x.share).collect();
        for s in &shares {
            report.total_states += s.generated;
            report.reduced_states += s.reduced;
            report.reached = report.reached.union(s.reached);
        }
        if !shares.iter().any(|s| s.cut) {
            report.levels.push(Level {
                unique: unique_before as u64,
                total: report.total_states,
                reduced: report.reduced_states,
                reached: report.reached,
            });
        }
        // A quiescent state's own violation is shallower than any successor's: report it first.
        let bad = shares
            .iter()
            .find_map(|s| s.quiescent_bad.clone())
            .or_else(|| shares.iter().find_map(|s| s.child_bad.clone()));
        if let Some(bad) = bad {
            let mut path = path_to(&nodes, bad.parent);
            path.extend(bad.choice);
            report.found.counterexample = Some(Finding {
                schedule: path.clone(),
                broken: bad.broken.clone(),
                level: depth,
            });
            report.counterexample = Some((path, bad.broken));
            report.unique_states = unique_before as u64;
            report.max_depth = depth + u32::from(bad.choice.is_some());
            if shares.iter().any(|s| s.cut) {
                report.exhaustive = false;
                report.bounded_by_memory = true;
            }
            return Some(report);
        }
        if report.warning.is_none() {
            let warn = shares
                .iter()
                .find_map(|s| s.quiescent_warn.clone())
                .or_else(|| shares.iter().find_map(|s| s.child_warn.clone()));
            report.warning = warn.map(|w| {
                let mut path = path_to(&nodes, w.parent);
                path.extend(w.choice);
                (path, w.broken)
            });
            report.found.warning = report.warning.clone().map(|(schedule, broken)| Finding {
                schedule,
                broken,
                level: depth,
            });
        }
        if shares.iter().any(|s| s.cut) {
            return Some(out_of_memory(report, unique_before));
        }
        // The first part of the next level was filled as the level expanded (the level's first
        // part, spare now, is held until the merge is done).
        core::mem::swap(&mut level.parts[0], &mut spare);
        let direct = level.parts[0].len();
        let fresh: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
        if threads == 1 {
            report.peak_states_held = report.peak_states_held.max((len + direct) as u64);
        } else {
            let candidates: usize = shares.iter().map(|s| s.candidates.len()).sum();
            // The merge puts up to every candidate in the next level (each share's in its
            // own part, gathered as the next level is expanded), the tree and the visited
            // set: make room first, if the budget allows.
            let parts_after: u64 = shares
                .iter()
                .zip(&level.parts)
                .zip(&new_nodes)
                .map(|((s, part), nn)| {
                    let n = s.candidates.len();
                    let ends = if s.uneven { n } else { 0 };
                    reserved(s.bytes.len(), part.bytes.capacity(), 1)
                        + reserved(ends, part.ends.capacity(), core::mem::size_of::<usize>())
                        + reserved(n, nn.capacity(), core::mem::size_of::<Node>())
                })
                .sum();
            let merging = parts_after
                + reserved(
                    nodes.len() + direct + candidates,
                    nodes.capacity(),
                    core::mem::size_of::<Node>(),
                )
                + seen.held_bytes_after(candidates)
                + spare.held_bytes()
                + shared
                + threads_held;
            if opts.max_memory.is_some_and(|m| merging > m) {
                return Some(out_of_memory(report, unique_before));
            }
            report.peak_bytes_held = report.peak_bytes_held.max(merging);
            report.peak_states_held = report
                .peak_states_held
                .max((len + direct + candidates) as u64);
            // Merge in order after the first share's: the first of equal states is kept. Which
            // candidates are new is worked out shard by shard of the visited set, the shards
            // shared out among the threads (the last piece on this thread, the others on a
            // worker each); each later share's new states are gathered on its own thread as
            // the next level is expanded.
            let per = SHARDS.div_ceil(threads.min(SHARDS));
            seen.fill_shards(
                |shards| {
                    let (shares, fresh) = (&shares, &fresh);
                    run_each(
                        &workers,
                        shards
                            .chunks_mut(per)
                            .enumerate()
                            .map(|(t, shards)| move || mark_fresh(shares, t * per, shards, fresh)),
                    )
                },
                |shards, slots| {
                    run_each(
                        &workers,
                        shards
                            .chunks_mut(per)
                            .zip(slots.chunks(per))
                            .map(|(shards, slots)| {
                                move || {
                                    for (shard, &n) in shards.iter_mut().zip(slots) {
                                        shard.settle_to(n);
                                    }
                                }
                            }),
                    )
                },
            );
            if exact {
                // The room each part's gathering would make, made now, as counted above.
                for ((part, share), nn) in level
                    .parts
                    .iter_mut()
                    .zip(&shares)
                    .zip(&mut new_nodes)
                    .skip(1)
                {
                    part.clear();
                    nn.clear();
                    part.bytes.reserve_exact(share.bytes.len());
                    if share.uneven {
                        part.ends.reserve_exact(share.candidates.len());
                    }
                    nn.reserve_exact(share.candidates.len());
                }
            }
        }
        level.set_lens(fresh.iter().enumerate().map(|(t, n)| {
            if t == 0 {
                direct
            } else {
                n.load(Ordering::Relaxed)
            }
        }));
        let fresh = level.len();
        if let Some(m) = opts.max_states
            && fresh > 0
            && (unique_before + fresh) as u64 >= m
        {
            // Merged in order, the search stops at the new state that reaches the bound.
            report.exhaustive = false;
            report.bounded_by_states = true;
            report.unique_states = m.max(unique_before as u64 + 1);
            return Some(report);
        }
        if exact {
            nodes.reserve_exact(fresh);
        }
        depth += 1;
        progress(depth, seen.len() as u64, level.len() as u64);
    }
    report.unique_states = seen.len() as u64;
    Some(report)
}
