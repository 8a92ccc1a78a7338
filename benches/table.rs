//! The request table under contention: two threads each register a request, complete it from
//! the other side of the table, and take the outcome, against a `Mutex<HashMap>` of one-shot
//! channels written here as the baseline a JSON-RPC client would otherwise use.

use cancelcheck::table::{RequestTable, Resolution};
use cancelcheck_model::RequestId;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// Requests per thread per measured iteration.
const PER_THREAD: i64 = 2_000;
const THREADS: i64 = 2;

fn table_cycle(t: &RequestTable<u64>, base: i64) {
    for i in 0..PER_THREAD {
        let id = RequestId::Int(base + i);
        let mut w = t.register(id).expect("fresh id");
        // Odd requests race a cancel against the answer, as a real client's would.
        if i % 2 == 1 {
            black_box(t.cancel(id, cancelcheck::table::CancelledBy::Application));
        }
        let _ = t.complete(id, i as u64);
        match w.wait() {
            Ok(Resolution::Completed(v)) => {
                black_box(v);
            }
            other => {
                black_box(other.is_ok());
            }
        }
    }
}

type Baseline = Arc<Mutex<HashMap<RequestId, mpsc::SyncSender<Option<u64>>>>>;

fn baseline_cycle(t: &Baseline, base: i64) {
    for i in 0..PER_THREAD {
        let id = RequestId::Int(base + i);
        let (tx, rx) = mpsc::sync_channel(1);
        t.lock().unwrap().insert(id, tx);
        if i % 2 == 1 {
            if let Some(tx) = t.lock().unwrap().remove(&id) {
                let _ = tx.send(None);
            }
        }
        if let Some(tx) = t.lock().unwrap().remove(&id) {
            let _ = tx.send(Some(i as u64));
        }
        black_box(rx.recv().ok());
    }
}

fn contention(c: &mut Criterion) {
    let mut group = c.benchmark_group("request table, 2 threads");
    group.throughput(Throughput::Elements((PER_THREAD * THREADS) as u64));
    group.bench_function("RequestTable", |b| {
        let t = RequestTable::<u64>::new();
        b.iter(|| {
            std::thread::scope(|s| {
                for k in 0..THREADS {
                    let t = &t;
                    s.spawn(move || table_cycle(t, k * 1_000_000));
                }
            })
        })
    });
    group.bench_function("Mutex<HashMap> + one-shot channel", |b| {
        let t: Baseline = Arc::new(Mutex::new(HashMap::new()));
        b.iter(|| {
            std::thread::scope(|s| {
                for k in 0..THREADS {
                    let t = &t;
                    s.spawn(move || baseline_cycle(t, k * 1_000_000));
                }
            })
        })
    });
    group.finish();
}

criterion_group!(benches, contention);
criterion_main!(benches);
