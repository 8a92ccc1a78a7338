//! Depth-first search: one thread, memory that grows with the depth, not the width.

use super::expander::{Expander, Roots};
use super::form::Form;
use super::{SearchOptions, SearchReport, growable, out_of_memory};
use crate::explorer::hash::FingerprintSet;
use crate::explorer::{partial_order, symmetric};
use crate::scenario::Scenario;

/// A state on the depth-first stack: where its packed bytes are in the byte stack, where its
/// steps are in the step stack (listed when it first comes to the top), and the next to take.
struct Frame {
    start: usize,
    end: usize,
    steps: Option<(usize, usize)>,
    next: usize,
}

/// How many states apart the depth-first search counts what its memo shares.
const RECOUNT: u64 = 4096;

/// Depth-first search from `roots` by the step rules of `rules`; `None` if the form `F` could
/// not hold some state.
pub(super) fn search_depth_first<F: Form>(
    rules: &Scenario,
    roots: &Roots,
    opts: &SearchOptions,
) -> Option<SearchReport> {
    let sym = opts.symmetry && symmetric(rules);
    let por = opts.partial_order && partial_order(rules);
    let mut report = SearchReport::starting(sym, por);
    let mut x = Expander::<F>::new(rules, roots, sym, por)?;
    let mut seen = FingerprintSet::default();
    let mut bytes: Vec<u8> = Vec::new();
    let mut steps: Vec<(u32, F::Step)> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    // What the memo shares (the flat form's parts), counted again every so many states: the
    // memo counts each part it stores meanwhile at more than it adds.
    let mut shared = F::count_shared([&mut x.memo]);
    // The choices that led to the top: the step taken last from every frame below it.
    let path = |root: usize, stack: &[Frame], steps: &[(u32, F::Step)]| {
        let mut p = vec![root as u32];
        for f in &stack[..stack.len() - 1] {
            let (s0, _) = f.steps.unwrap_or_default();
            p.push(steps[s0 + f.next - 1].0);
        }
        p
    };
    for root in (0..x.states.len()).filter(|&i| roots.searched(i)) {
        report.total_states += 1;
        let (key, packed) = x.key(root);
        if !seen.insert(key, ()) {
            continue;
        }
        bytes.clear();
        bytes.extend_from_slice(packed);
        steps.clear();
        // The frame whose state the base holds.
        let mut loaded: Option<usize> = None;
        stack.push(Frame {
            start: 0,
            end: bytes.len(),
            steps: None,
            next: 0,
        });
        while let Some(t) = stack.len().checked_sub(1) {
            let depth = t as u32;
            report.max_depth = report.max_depth.max(depth);
            report.peak_states_held = report.peak_states_held.max(stack.len() as u64);
            let (start, end) = (stack[t].start, stack[t].end);
            let (s0, s1) = match stack[t].steps {
                Some(range) => range,
                None => {
                    let r = x.load(&bytes[start..end]);
                    report.reduced_states += u64::from(x.reduced());
                    loaded = Some(t);
                    let range = (steps.len(), steps.len() + x.steps.len());
                    steps.extend_from_slice(&x.steps);
                    stack[t].steps = Some(range);
                    if range.0 == range.1 {
                        // Quiescent: the eventual properties are judged here.
                        let v = x.end_base(r);
                        loaded = None;
                        let broken = || v.violations.iter().map(|v| v.invariant).collect();
                        if v.failed() {
                            report.counterexample = Some((path(root, &stack, &steps), broken()));
                            report.unique_states = seen.len() as u64;
                            return Some(report);
                        }
                        if !v.passed() && report.warning.is_none() {
                            report.warning = Some((path(root, &stack, &steps), broken()));
                        }
                    }
                    range
                }
            };
            let next = stack[t].next;
            if s0 + next >= s1 || opts.max_depth.is_some_and(|d| depth >= d) {
                if s0 + next < s1 {
                    report.exhaustive = false;
                }
                bytes.truncate(start);
                steps.truncate(s0);
                stack.pop();
                continue;
            }
            let (choice, step) = steps[s0 + next];
            stack[t].next += 1;
            if loaded != Some(t) {
                x.load(&bytes[start..end]);
            }
            let last = s0 + next + 1 == s1;
            loaded = if last { None } else { Some(t) };
            let e = x.step(root, step, last);
            report.total_states += 1;
            report.reached = report.reached.union(e.reached());
            let violated = e.violated();
            let warned = e.warned();
            if F::spoilt(&x.memo) {
                return None;
            }
            if violated {
                let broken = x.broken(root);
                let mut p = path(root, &stack, &steps);
                p.push(choice);
                report.counterexample = Some((p, broken));
                report.unique_states = seen.len() as u64;
                return Some(report);
            }
            if warned && report.warning.is_none() {
                let mut p = path(root, &stack, &steps);
                p.push(choice);
                report.warning = Some((p, x.broken(root)));
            }
            if let Some(m) = opts.max_memory {
                if report.total_states % RECOUNT == 0 {
                    shared = F::count_shared([&mut x.memo]);
                }
                // The successor's row is about as long as its parent's.
                let held = growable(bytes.len() + 2 * (end - start), bytes.capacity(), 1)
                    + growable(
                        stack.len() + 1,
                        stack.capacity(),
                        core::mem::size_of::<Frame>(),
                    )
                    + growable(
                        steps.len(),
                        steps.capacity(),
                        core::mem::size_of::<(u32, F::Step)>(),
                    )
                    + seen.held_bytes_after(1)
                    + shared
                    + F::held_bytes(&x.memo);
                if held > m {
                    return Some(out_of_memory(report, seen.len()));
                }
                report.peak_bytes_held = report.peak_bytes_held.max(held);
            }
            let (key, packed) = x.key(root);
            if seen.insert(key, ()) {
                if opts.max_states.is_some_and(|m| seen.len() as u64 >= m) {
                    report.exhaustive = false;
                    report.bounded_by_states = true;
                    report.unique_states = seen.len() as u64;
                    return Some(report);
                }
                let start = bytes.len();
                bytes.extend_from_slice(packed);
                stack.push(Frame {
                    start,
                    end: bytes.len(),
                    steps: None,
                    next: 0,
                });
            }
        }
    }
    report.unique_states = seen.len() as u64;
    Some(report)
}
