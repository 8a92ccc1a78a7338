//! The ways in: a probe scenario's records judged whole, a transcript's, or one record at a
//! time (`audit`, `watch`).

use super::*;

/// Judges one recorded session of the scenario `name` (see the module documentation), with
/// what that scenario claims ([`Judgement::claim`]); an unknown name claims nothing.
pub fn judge_scenario(ctx: &Context, name: &str, records: &[Record]) -> Judgement {
    let mut j = judge(ctx, records);
    j.claim(crate::probe::scenario::by_name(name).is_some_and(|s| s.in_flight));
    let no_get = |r: &Record| r.dir == Dir::Note && r.text.starts_with(note::NO_GET);
    if name == crate::probe::scenario::AFTER_CLOSE
        && j.vacuous_because.is_empty()
        && records.iter().any(no_get)
    {
        j.vacuous_because.push(
            "the server offers no standalone stream (405 to the GET; MCP 2026-07-28 has none): after the request's stream closed nothing more for it can reach the client, so whether the server sent any is not observable".to_string(),
        );
        j.exercised_in_flight = false;
    }
    if name == crate::probe::scenario::SESSION_CANCEL
        && j.vacuous_because.is_empty()
        && let Some(method) = cancelcheck_wire::shapes::of(ctx.dialect).permission_method()
        && !asked_before_cancel(ctx.dialect, method, records)
    {
        j.vacuous_because.push(format!(
            "the agent sent no {method} before the probe's session/cancel: the scenario's point, a cancel while the agent waits on its own permission request, was not reached; give a prompt that makes the agent ask (--params, or a recipe's work)"
        ));
    }
    let dropped = |r: &Record| r.dir == Dir::Note && r.text.starts_with(note::STREAM_LOST);
    if name == crate::probe::scenario::DISCONNECT
        && j.vacuous_because.is_empty()
        && !records.iter().any(dropped)
    {
        j.vacuous_because.push(
            "the work request was answered before its stream could be dropped: no disconnect happened during the work; name a slower request with --method/--params".to_string(),
        );
    }
    j
}

/// Whether the peer sent a request of `method` before the probe's first prompt-turn cancel.
fn asked_before_cancel(dialect: Dialect, method: &str, records: &[Record]) -> bool {
    for r in records {
        let Ok(m) = WireMessage::parse(r.text.as_bytes()) else {
            continue;
        };
        match r.dir {
            Dir::Received if matches!(&m, WireMessage::Request { method: x, .. } if x == method) => {
                return true;
            }
            Dir::Sent if session_cancelled(dialect, &m).is_some() => return false,
            _ => {}
        }
    }
    false
}

/// Judges one recorded session (see the module documentation).
pub fn judge(ctx: &Context, records: &[Record]) -> Judgement {
    let mut j = Judging::new(ctx, None);
    for rec in records {
        j.push(rec);
    }
    j.finish()
}

/// What a [`Judging`] holds ([`Judging::held`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Held {
    /// The checker's records of requests (see `Checker::held`).
    pub records: usize,
    /// The messages sent that it keeps.
    pub messages: usize,
    /// The events it keeps (none when bounded).
    pub events: usize,
    /// The pieces the checker's retired records take: a run per stretch of consecutive
    /// integer ids settled alike.
    pub retired: usize,
    /// The work requests' entries it keeps whole and the controls it keeps for the open ones
    /// (see `src/probe/work.rs`).
    pub work: usize,
}

/// A judgement fed one record at a time, so a transcript of any size can be judged while it is
/// read: it holds what each message did (the checker's events), never the messages' text.
pub struct Judging<'c>(Judge<'c>, Vec<usize>);

impl<'c> Judging<'c> {
    /// A judgement of a probe session (`audit: None`: the probe is the client, its own duties
    /// are not judged) or of a transcript recorded from a [`Vantage`] (`cancelcheck audit`:
    /// both parties are black boxes; the client is the side whose messages are [`Dir::Sent`];
    /// a transcript in which no cancel crossed the wire is vacuous).
    pub fn new(ctx: &'c Context, audit: Option<Vantage>) -> Self {
        let mut checker = Checker::new(ctx.dialect, 16);
        checker.set_fifo(true);
        Judging(
            Judge {
                ctx,
                checker,
                events: Vec::new(),
                errors: Vec::new(),
                errors_more: BTreeMap::new(),
                ids: IdMap::new(),
                sent: Sent::new(),
                methods: Methods::default(),
                resolved: IdSet::default(),
                cancelled: IdSet::default(),
                cancel_sent: false,
                acted_on_cancel: false,
                killed_at_us: None,
                created_task: None,
                ambiguous_give_up: false,
                answered: Vec::new(),
                answered_set: IdSet::default(),
                read_below: 0,
                prompts: Vec::new(),
                peer_requests: BTreeMap::new(),
                unlinked: false,
                gone: false,
                handshake: None,
                handshake_sent: false,
                protocol: None,
                initialize: None,
                opening: None,
                handshake_refused: None,
                work: WorkTable::new(false),
                refused: BTreeSet::new(),
                in_flight: false,
                vacuous_because: Vec::new(),
                cancels_at: Vec::new(),
                assumptions: Vec::new(),
                audit,
                any_cancel: false,
                withheld: false,
                ended: false,
                client_closed: false,
                judged_cancel: false,
                reuse_undecided: false,
                client_ids: WireIds::default(),
                min_work_us: None,
                undecided: Vec::new(),
                full_result: None,
                http: false,
                lanes: BTreeMap::new(),
                deferred: Vec::new(),
                closes: BTreeMap::new(),
                lost: BTreeMap::new(),
                resumed: BTreeMap::new(),
                cross_stream: BTreeSet::new(),
                unanswered_work: 0,
                retire_at: 0,
                bounded: false,
            },
            Vec::new(),
        )
    }

    /// [`Judging::new`], keeping only what is still open, so that its memory is bounded by the
    /// requests in flight and the messages the peer is not yet known to have read, not by the
    /// session's length (`cancelcheck audit` and `watch`, whose sessions may be of any
    /// length). Its verdict is [`Judging::new`]'s; its judgement holds no events
    /// ([`Judgement::events`] is empty, and [`Judgement::record_of`] says `None`).
    pub fn bounded(ctx: &'c Context, audit: Option<Vantage>) -> Self {
        let mut j = Judging::new(ctx, audit);
        j.0.bounded = true;
        j.0.sent = Sent::bounded();
        j.0.work = WorkTable::new(true);
        j
    }

    /// Judges the next record.
    pub fn push(&mut self, rec: &Record) {
        match rec.dir {
            Dir::Note => self.0.on_note(rec),
            Dir::Sent => self.0.on_sent(rec),
            Dir::Received => self.0.on_received(rec),
        }
        if self.0.bounded {
            // Once the records held have doubled since the last retiring, so that its walk
            // costs a constant per record.
            if self.0.checker.held().0 >= self.0.retire_at {
                self.0.checker.retire_settled();
                self.0.retire_at = 2 * self.0.checker.held().0 + 32;
            }
        } else {
            self.1.push(self.0.events.len());
        }
    }

    /// What the judgement holds so far that grows with the session unless it is
    /// [bounded](Judging::bounded): bounded, the first two stay within a few times what is still
    /// open, whatever the session's length, and so does the last.
    pub fn held(&self) -> Held {
        let (records, retired) = self.0.checker.held();
        Held {
            records,
            messages: self.0.sent.held(),
            events: self.0.events.len(),
            retired,
            work: self.0.work.held(),
        }
    }

    /// The judgement of everything pushed.
    pub fn finish(self) -> Judgement {
        let mut judgement = self.0.finish();
        judgement.record_ends = self.1;
        judgement
    }
}

/// Judges a transcript recorded from `vantage` (see [`Judging::new`]).
pub fn judge_transcript(ctx: &Context, vantage: Vantage, records: &[Record]) -> Judgement {
    let mut j = Judging::new(ctx, Some(vantage));
    for rec in records {
        j.push(rec);
    }
    j.finish()
}
