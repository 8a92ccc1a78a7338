//! A fuzz target over the trace and scenario readers: valid documents (corpus traces and
//! scenarios) are mutated (bytes flipped, cut, repeated or inserted; numbers made extreme;
//! keys repeated; values made huge; nesting made deep) and read. Every input must end in an
//! answer, never a panic: read in this process, an error names the file (and a field, where
//! one is at fault); a read trace replays. One input in twenty goes through the `cancelcheck`
//! binary under an address-space limit, which must exit 0, 1 or 2, never abort, and name the
//! file on exit 2.
//!
//! `cargo test --test fuzz` tries 3,000 inputs (a fixed seed, under a minute). A longer run:
//! `CANCELCHECK_FUZZ_CASES=100000 cargo test --test fuzz -- --nocapture`, with
//! `CANCELCHECK_FUZZ_SEED=N` for other inputs; it prints how many inputs it tried.

use cancelcheck::trace_file;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One change to a document's bytes; positions are fractions of its length (per 10,000).
#[derive(Clone, Debug)]
enum Mutation {
    Flip(u16, u8),
    Cut(u16, u16),
    Truncate(u16),
    Repeat(u16, u16),
    Insert(u16, Vec<u8>),
    ExtremeNumber(u16, u8),
    RepeatKey(u16),
    HugeString(u16, u32),
    Deep(u16, u16),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = 0u16..10_000;
    prop_oneof![
        (at.clone(), any::<u8>()).prop_map(|(a, b)| Mutation::Flip(a, b)),
        (at.clone(), 1u16..200).prop_map(|(a, n)| Mutation::Cut(a, n)),
        at.clone().prop_map(Mutation::Truncate),
        (at.clone(), 1u16..400).prop_map(|(a, n)| Mutation::Repeat(a, n)),
        (
            at.clone(),
            prop::collection::vec(
                prop_oneof![
                    Just(b'{'),
                    Just(b'}'),
                    Just(b'['),
                    Just(b']'),
                    Just(b'"'),
                    Just(b','),
                    Just(b':'),
                    Just(b'-'),
                    Just(b'9'),
                    Just(b'e'),
                    Just(b'\\'),
                    Just(0xff),
                    any::<u8>()
                ],
                1..12
            )
        )
            .prop_map(|(a, v)| Mutation::Insert(a, v)),
        (at.clone(), any::<u8>()).prop_map(|(a, k)| Mutation::ExtremeNumber(a, k)),
        at.clone().prop_map(Mutation::RepeatKey),
        (at.clone(), 1u32..3_000_000).prop_map(|(a, n)| Mutation::HugeString(a, n)),
        (at, 1u16..3000).prop_map(|(a, n)| Mutation::Deep(a, n)),
    ]
}

const EXTREMES: [&str; 10] = [
    "18446744073709551616",
    "18446744073709551615",
    "-1",
    "-9223372036854775809",
    "1e400",
    "0",
    "65536",
    "1000000000000000000000000000000",
    "4294967296",
    "0.5",
];

fn pos(bytes: &[u8], at: u16) -> usize {
    bytes.len() * usize::from(at) / 10_000
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    match m {
        Mutation::Flip(a, b) => {
            let i = pos(bytes, *a);
            if let Some(x) = bytes.get_mut(i) {
                *x ^= b | 1;
            }
        }
        Mutation::Cut(a, n) => {
            let i = pos(bytes, *a);
            let j = (i + usize::from(*n)).min(bytes.len());
            bytes.drain(i..j);
        }
        Mutation::Truncate(a) => bytes.truncate(pos(bytes, *a)),
        Mutation::Repeat(a, n) => {
            let i = pos(bytes, *a);
            let j = (i + usize::from(*n)).min(bytes.len());
            let piece = bytes[i..j].to_vec();
            bytes.splice(j..j, piece);
        }
        Mutation::Insert(a, v) => {
            let i = pos(bytes, *a);
            bytes.splice(i..i, v.iter().copied());
        }
        Mutation::ExtremeNumber(a, k) => {
            // The next number from `a` on becomes an extreme one.
            let i = pos(bytes, *a);
            if let Some(s) = bytes[i..].iter().position(u8::is_ascii_digit) {
                let s = i + s;
                let e = s + bytes[s..].iter().take_while(|b| b.is_ascii_digit()).count();
                let x = EXTREMES[usize::from(*k) % EXTREMES.len()];
                bytes.splice(s..e, x.bytes());
            }
        }
        Mutation::RepeatKey(a) => {
            // The next `"key": value` pair from `a` on is written twice.
            let i = pos(bytes, *a);
            if let Some(q) = bytes[i..].iter().position(|&b| b == b'"') {
                let s = i + q;
                if let Some(c) = bytes[s..].iter().position(|&b| b == b',') {
                    let piece = bytes[s..=s + c].to_vec();
                    bytes.splice(s..s, piece);
                }
            }
        }
        Mutation::HugeString(a, n) => {
            let i = pos(bytes, *a);
            let mut s = vec![b'"'];
            s.extend(std::iter::repeat_n(b'x', *n as usize));
            s.push(b'"');
            bytes.splice(i..i, s);
        }
        Mutation::Deep(a, n) => {
            let i = pos(bytes, *a);
            let n = usize::from(*n);
            let mut s = vec![b'['; n];
            s.extend(std::iter::repeat_n(b']', n));
            bytes.splice(i..i, s);
        }
    }
}

/// The documents mutated: a few corpus traces (a seed and a schedule) and scenarios.
fn seeds() -> Vec<(bool, Vec<u8>)> {
    let mut out = Vec::new();
    for t in [
        "traces/acp--answers-twice--seed-2.json",
        "traces/acp--answers-twice--explore-n1-reordering-7steps.json",
    ] {
        out.push((true, std::fs::read(t).expect("corpus trace")));
    }
    let scenario = serde_json::to_vec_pretty(&cancelcheck_sim::Scenario::default_for(
        cancelcheck_model::Dialect::Lsp,
    ))
    .expect("json");
    out.push((false, scenario));
    out.push((false, br#"{"dialect": "mcp-2025-11-25", "workload": {"requests": 3, "timeout": {"uniform": [10, 20]}}, "link": {"order": "reordering", "latency": {"bimodal": {"fast": [1, 5], "slow": [50, 90], "slow_permille": 100}}}}"#.to_vec()));
    out
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Reads `file` in this process; a panic or an error without the file's name fails.
fn read_in_process(file: &Path, trace: bool) -> Result<(), TestCaseError> {
    let name = file.display().to_string();
    let result = std::panic::catch_unwind(|| {
        if trace {
            trace_file::read_trace(file).map(|doc| {
                let _ = trace_file::replay(&doc);
            })
        } else {
            trace_file::read_scenario(file).map(|_| ())
        }
    });
    match result {
        Err(_) => Err(TestCaseError::fail(format!("{name}: the reader panicked"))),
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => {
            let msg = e.to_string();
            prop_assert!(msg.starts_with(&name), "{msg}");
            prop_assert!(
                msg.len() < 2000,
                "{} bytes: {}",
                msg.len(),
                trace_file::clip(&msg)
            );
            prop_assert!(!e.expected.is_empty(), "{msg}");
            Ok(())
        }
    }
}

/// Runs the binary on `file` under a 2 GB address-space limit.
fn read_by_cli(file: &Path, trace: bool) -> Result<(), TestCaseError> {
    let name = file.display().to_string();
    let args: Vec<&str> = if trace {
        vec!["replay", &name, "--format", "json"]
    } else {
        vec![
            "run",
            "--scenario",
            &name,
            "--seeds",
            "0..3",
            "--json",
            "--save",
            "/dev/null/x",
        ]
    };
    let o = Command::new("bash")
        .arg("-c")
        .arg("ulimit -v 2000000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_cancelcheck"))
        .args(&args)
        .output()
        .expect("bash runs");
    let err = String::from_utf8_lossy(&o.stderr);
    let code = o.status.code();
    // A run whose scenario fails cannot save under /dev/null: exit 3 says so.
    let allowed: &[i32] = if trace { &[0, 1, 2] } else { &[0, 1, 2, 3] };
    prop_assert!(
        code.is_some_and(|c| allowed.contains(&c)),
        "{args:?}: exit {code:?}: {err}"
    );
    prop_assert!(!err.contains("panicked"), "{args:?}: {err}");
    if code == Some(2) {
        prop_assert!(err.contains(&name), "{args:?}: {err}");
    }
    Ok(())
}

#[test]
fn mutated_traces_and_scenarios_are_answered_never_a_panic() {
    let cases = env_u64("CANCELCHECK_FUZZ_CASES", 3000) as u32;
    let seed = env_u64("CANCELCHECK_FUZZ_SEED", 0xF022);
    let dir = std::env::temp_dir().join(format!("cancelcheck-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let docs = seeds();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    });
    let tried = std::sync::atomic::AtomicU64::new(0);
    let strategy = (
        0..docs.len(),
        prop::collection::vec(mutation(), 1..4),
        0u8..20,
    );
    let result = runner.run(&strategy, |(which, muts, cli)| {
        let n = tried.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (trace, base) = &docs[which];
        let mut bytes = base.clone();
        for m in &muts {
            apply(&mut bytes, m);
        }
        let file: PathBuf = dir.join(format!("input-{}.json", n % 8));
        std::fs::write(&file, &bytes).expect("write");
        read_in_process(&file, *trace)?;
        if cli == 0 {
            read_by_cli(&file, *trace)?;
        }
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "fuzz: {} inputs tried (seed {seed:#x})",
        tried.load(std::sync::atomic::Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}
