//! The judge of `cancelcheck audit` and `watch` over synthetic LSP sessions of growing length
//! (`cancelcheck::audit::synthetic`): with its time per message the same at every length, its
//! time grows linearly with the session. `cargo bench --bench audit`; peak memory is measured
//! with `/usr/bin/time -v` (see docs/audit.md, "Long sessions").

use cancelcheck::audit::record_of;
use cancelcheck::audit::synthetic::lsp_session;
use cancelcheck::audit::transcript::{Format, Line, Writer, parse_line};
use cancelcheck::probe::judge::{Judging, Record, Vantage};
use cancelcheck_model::Dialect;
use cancelcheck_wire::decode::Context;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// The session's records, as `audit` reads them from its JSONL.
fn records(pairs: u64) -> Vec<Record> {
    lsp_session(pairs, 10)
        .map(|l| match parse_line(Format::Jsonl, &l) {
            Ok(Line::Message(e)) => record_of(
                e.said,
                e.writer == Writer::Client,
                e.time_us.unwrap_or(0),
                0,
            ),
            other => panic!("not a message: {other:?}"),
        })
        .collect()
}

fn judge(c: &mut Criterion) {
    let mut ctx = Context::new(Dialect::Lsp);
    ctx.work_method = "workspace/executeCommand".into();
    let mut group = c.benchmark_group("audit judge");
    group.sample_size(10);
    for pairs in [2_000, 8_000, 32_000] {
        let recs = records(pairs);
        group.throughput(Throughput::Elements(recs.len() as u64));
        group.bench_function(format!("{pairs} requests"), |b| {
            b.iter(|| {
                let mut j = Judging::bounded(&ctx, Some(Vantage::Between));
                for r in &recs {
                    j.push(r);
                }
                black_box(j.finish().status())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, judge);
criterion_main!(benches);
