//! The forms a state type derives from its one declaration (`cancelcheck-derive`): packed bytes
//! that identify the value and refuse what `pack` never writes, renaming of every request id it
//! holds, and an unpacking that keeps configuration and clears what lives within one step.

use cancelcheck_model::RequestId;
use cancelcheck_model::pack::{CloneState, Pack, PackError, Reader, Relabel, State};
use smallvec::SmallVec;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Pack, Relabel)]
enum Phase {
    Idle,
    Waiting(RequestId),
    Done { ok: bool },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Pack, Relabel)]
struct Entry {
    id: RequestId,
    open: bool,
    support: Option<bool>,
    parent: Option<RequestId>,
    phase: Phase,
    count: u8,
}

/// Runs of byte fields among others (a derived pack writes each run as one slice).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Pack)]
struct Counts {
    first: u8,
    id: RequestId,
    sent: u8,
    received: u8,
    open: bool,
    lost: u8,
    last: Option<u32>,
}

#[derive(PartialEq, Eq, Debug, State, Relabel, CloneState)]
#[state(relabel_then = sort)]
struct Holder {
    #[state(config)]
    name: u8,
    entries: SmallVec<[Entry; 2]>,
    crashed: bool,
    #[state(transient)]
    handling: Option<RequestId>,
    #[state(scratch)]
    buffer: Vec<u8>,
}

impl Holder {
    fn sort(&mut self) {
        self.entries.sort_by_key(|e| e.id);
    }
}

fn entry(id: i64) -> Entry {
    Entry {
        id: RequestId::Int(id),
        open: id % 2 == 0,
        support: [None, Some(false), Some(true)][(id % 3) as usize],
        parent: (id > 1).then_some(RequestId::Int(id - 1)),
        phase: [
            Phase::Idle,
            Phase::Waiting(RequestId::Int(id)),
            Phase::Done { ok: true },
        ][(id % 3) as usize],
        count: id as u8,
    }
}

fn packed<T: Pack>(x: &T) -> Vec<u8> {
    let mut out = Vec::new();
    x.pack(&mut out);
    out
}

#[test]
fn derived_values_round_trip_and_their_bytes_identify_them() {
    let all: Vec<Entry> = (0..6).map(entry).collect();
    for e in &all {
        let bytes = packed(e);
        let mut r = Reader::new(&bytes);
        assert_eq!(Entry::unpack(&mut r), Ok(*e));
        assert!(r.is_empty());
        // Booleans and tri-valued options share one flag byte: 1 + 2 bits.
        assert_eq!(bytes[0] & !0b111, 0);
    }
    for a in &all {
        for b in &all {
            assert_eq!(a == b, packed(a) == packed(b), "{a:?} / {b:?}");
        }
    }
}

#[test]
fn bytes_a_derived_pack_never_writes_are_errors() {
    let bytes = packed(&entry(1));
    // An unused flag bit.
    let mut bad = bytes.clone();
    bad[0] |= 0b1000;
    assert_eq!(
        Entry::unpack(&mut Reader::new(&bad)),
        Err(PackError::BadTag("Entry", 1))
    );
    // A tri-valued option's fourth value.
    let mut bad = bytes.clone();
    bad[0] |= 0b110;
    assert_eq!(
        Entry::unpack(&mut Reader::new(&bad)),
        Err(PackError::BadTag("Entry", 3))
    );
    // A tag past the last variant.
    assert_eq!(
        Phase::unpack(&mut Reader::new(&[3])),
        Err(PackError::BadTag("Phase", 3))
    );
    // Every truncation.
    for n in 0..bytes.len() {
        assert!(
            Entry::unpack(&mut Reader::new(&bytes[..n])).is_err(),
            "{n} bytes"
        );
    }
}

#[test]
fn runs_of_byte_fields_pack_and_unpack_as_each_field_would() {
    let c = Counts {
        first: 1,
        id: RequestId::Int(300),
        sent: 2,
        received: 3,
        open: true,
        lost: 4,
        last: Some(5),
    };
    // The flag byte, then the other fields in order, each packed on its own.
    let mut want = vec![1];
    c.first.pack(&mut want);
    c.id.pack(&mut want);
    for b in [c.sent, c.received, c.lost] {
        b.pack(&mut want);
    }
    c.last.pack(&mut want);
    let bytes = packed(&c);
    assert_eq!(bytes, want);
    let mut r = Reader::new(&bytes);
    assert_eq!(Counts::unpack(&mut r), Ok(c));
    assert!(r.is_empty());
    // Short inside the run `sent, received, lost`, as `u8` itself names it.
    let run_ends = bytes.len() - packed(&c.last).len();
    for n in run_ends - 3..run_ends {
        assert_eq!(
            Counts::unpack(&mut Reader::new(&bytes[..n])),
            Err(PackError::Truncated("byte")),
            "{n} bytes"
        );
    }
}

#[test]
fn a_state_packs_only_its_state_and_unpacks_keeping_configuration() {
    let a = Holder {
        name: 1,
        entries: (0..4).map(entry).collect(),
        crashed: true,
        handling: Some(RequestId::Int(3)),
        buffer: vec![9; 8],
    };
    let mut b = Holder {
        name: 2,
        entries: SmallVec::with_capacity(16),
        crashed: false,
        handling: Some(RequestId::Int(1)),
        buffer: Vec::new(),
    };
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    a.pack_state(&mut pa);
    b.pack_state(&mut pb);
    assert_ne!(pa, pb);
    b.unpack_state(&mut Reader::new(&pa)).unwrap();
    assert_eq!(b.name, 2, "configuration is kept");
    assert_eq!(b.entries, a.entries);
    assert!(b.crashed);
    assert_eq!(b.handling, None, "what lives within one step is cleared");
    assert!(b.entries.capacity() >= 16, "the table's allocation is kept");
    pb.clear();
    b.pack_state(&mut pb);
    assert_eq!(pa, pb);
    // Configuration and scratch are not part of the state.
    b.name = 7;
    b.buffer.push(1);
    pb.clear();
    b.pack_state(&mut pb);
    assert_eq!(pa, pb);

    let c = a.clone();
    assert!(c.buffer.is_empty(), "scratch is not copied");
    assert_eq!((c.name, c.handling), (a.name, a.handling));
}

#[test]
fn renaming_reaches_every_id_then_restores_order() {
    let mut h = Holder {
        name: 0,
        entries: (1..4).map(entry).collect(),
        crashed: false,
        handling: None,
        buffer: Vec::new(),
    };
    h.relabel(&|id| match id {
        RequestId::Int(n) => RequestId::Int(10 - n),
        other => other,
    });
    let ids: Vec<_> = h.entries.iter().map(|e| e.id).collect();
    assert_eq!(ids, [7, 8, 9].map(RequestId::Int), "sorted after renaming");
    let nine = h.entries[2];
    assert_eq!(nine.parent, None, "request 1 had no parent");
    let seven = h.entries[0];
    assert_eq!(seven.parent, Some(RequestId::Int(8)));
    assert_eq!(seven.phase, Phase::Idle);
    assert_eq!(h.entries[1].phase, Phase::Done { ok: true });
    let mut w = Phase::Waiting(RequestId::Int(4));
    w.relabel(&|_| RequestId::Int(5));
    assert_eq!(w, Phase::Waiting(RequestId::Int(5)));
}
