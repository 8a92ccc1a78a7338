//! `Checker::retire_settled`: retiring settled requests' records changes no verdict (every
//! shipped vector, and long sessions with late cancels, second answers and reused ids, judged
//! with the records retired after every event), and keeps what the checker holds bounded by
//! what is open, not by how many requests a session ever sent.

use cancelcheck_model::Dialect;
use cancelcheck_properties::notation::{OPENING, parse};
use cancelcheck_properties::{Checker, Event, Link, VectorFile};

/// The verdict of a checker fed `events`, retiring settled records after each event or not.
fn verdict(
    d: Dialect,
    fifo: bool,
    events: &[Event],
    retire: bool,
) -> cancelcheck_properties::Verdict {
    let mut c = Checker::new(d, 4);
    c.set_fifo(fifo);
    for ev in events {
        c.observe(ev);
        if retire {
            c.retire_settled();
        }
    }
    c.take_verdict()
}

fn events(lines: &[String]) -> Vec<Event> {
    lines
        .iter()
        .map(|l| parse(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[test]
fn every_vector_is_judged_alike_with_its_settled_records_retired() {
    for f in VectorFile::shipped().expect("the vectors read") {
        for v in &f.vectors {
            let fifo = v.link == Link::Fifo;
            assert_eq!(
                verdict(f.dialect, fifo, &v.events, true),
                verdict(f.dialect, fifo, &v.events, false),
                "{}: {}",
                f.file,
                v.name
            );
        }
    }
}

/// The client's request `id` sent, read, answered in full and delivered.
fn round_trip(id: u64) -> Vec<String> {
    vec![
        "client command send".into(),
        format!("client sends request {id} work"),
        format!("server receives request {id} work"),
        format!("server starts work {id}"),
        format!("server sends response {id} full"),
        format!("client receives response {id} full"),
        format!("client delivers {id} reply full"),
    ]
}

/// A session of `n` settled requests, in which every 7th is also named again after it settled
/// (a late cancel, read by the server), every 11th answered a second time, and every 13th id
/// reused by a later request.
fn long_session(n: u64) -> Vec<String> {
    let mut lines: Vec<String> = OPENING.iter().map(|s| s.to_string()).collect();
    for id in 1..=n {
        lines.extend(round_trip(id));
        if id % 7 == 0 {
            lines.push(format!("client sends cancel {}", id - 3));
            lines.push(format!("server receives cancel {}", id - 3));
        }
        if id % 11 == 0 {
            lines.push(format!("server sends response {} full", id - 5));
            lines.push(format!("client receives response {} full", id - 5));
        }
        if id % 13 == 0 {
            lines.extend(round_trip(id - 6));
        }
    }
    lines.push("end quiescent open 0 0".into());
    lines
}

#[test]
fn a_long_session_with_late_messages_and_reused_ids_is_judged_alike() {
    let ev = events(&long_session(400));
    for d in [Dialect::Lsp, Dialect::Mcp20251125, Dialect::Acp] {
        let kept = verdict(d, true, &ev, false);
        assert!(
            !kept.violations.is_empty(),
            "{d:?}: the session breaks something"
        );
        assert_eq!(verdict(d, true, &ev, true), kept, "{d:?}");
    }
}

/// After 10,000 settled requests the checker holds a few records, and the retired ones take
/// a few pieces (consecutive ids settled alike make one run), however long the session.
#[test]
fn what_the_checker_holds_stays_bounded_by_what_is_open() {
    let mut c = Checker::new(Dialect::Lsp, 4);
    c.set_fifo(true);
    let mut most = (0, 0);
    for l in OPENING {
        c.observe(&parse(l).expect("parses"));
    }
    for id in 1..=10_000 {
        for l in round_trip(id) {
            c.observe(&parse(&l).expect("parses"));
        }
        c.retire_settled();
        let (records, pieces) = c.held();
        most = (most.0.max(records), most.1.max(pieces));
    }
    // `initialize`, which is never retired, and none other.
    assert!(most.0 <= 2, "records held: {most:?}");
    assert!(most.1 <= 2, "pieces retired records take: {most:?}");
    assert!(c.verdict().violations.is_empty());
}
