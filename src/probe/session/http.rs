//! A session over MCP's Streamable HTTP (`probe --url`): the same session, its messages POSTed
//! ([`crate::probe::http::Client`]), each arrival recorded with the stream it came on.
//!
//! - A request's POST is answered on a stream of its own (one JSON body, or events); a
//!   notification's or response's POST with `202 Accepted`, recorded ([`note::ACCEPTED`]): the
//!   server read it. The barrier after a cancel is that 202 (no request's answer on another
//!   stream proves anything of the cancel).
//! - After the handshake the probe opens the standalone GET stream (a 405 says there is none).
//! - The probe closes a request's stream ([`note::STREAM_CLOSED`]: the cancel in MCP
//!   2026-07-28), drops it as a network failure would ([`note::STREAM_LOST`]) and resumes it
//!   with `Last-Event-ID` ([`note::STREAM_RESUMED`]); what the resumed GET carries is recorded
//!   on the request's stream. What a closed or dropped connection still held is never read.
//! - With `-- COMMAND`, the probe picks a free local port (leased: no other scenario of the run
//!   gets it while this one lasts), puts it for `{port}` in the URL and the command's
//!   arguments, starts the command and waits (within the scenario's time) until the port
//!   accepts connections while the command runs; the server is killed when the scenario ends.

use super::super::http::{Arrival, Client, PortLease, What, free_port, wait_listening};
use super::super::judge::{Dir, Record, note};
use super::super::process::Peer;
use super::{Session, Setup, Step, Stop};
use cancelcheck_model::RequestId;
use cancelcheck_wire::http::Url;
use cancelcheck_wire::{WireId, WireMessage};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// The longest the probe waits for a started command's port (bounded by `--timeout` too).
const LISTEN_WAIT: Duration = Duration::from_secs(10);

/// The HTTP side of a session.
pub(super) struct Side {
    /// The client.
    pub(super) client: Client,
    /// The URL, its port filled in.
    pub(super) url: String,
    /// Each request's stream, by its wire id.
    stream_of: BTreeMap<WireId, String>,
    /// The method of what each POST carried.
    posted: BTreeMap<String, String>,
    /// POSTs of notifications and responses not yet answered.
    unaccepted: BTreeSet<String>,
    /// Connections the probe closed or dropped: what they still deliver is not read.
    cut: BTreeSet<String>,
    /// A resuming GET's label → the request stream it carries on.
    alias: BTreeMap<String, String>,
    /// A request stream → the connection that carries it now (after a resume).
    current: BTreeMap<String, String>,
    /// The last event id seen on each request stream.
    last_event: BTreeMap<String, String>,
    /// Error statuses waiting for their body, by stream, and whether the POST carried a
    /// notification or response (refused, not a session error).
    failed: BTreeMap<String, (u16, String, bool)>,
    /// The standalone GET stream, if open.
    get: Option<String>,
    /// Request streams the server ended.
    ended: BTreeSet<String>,
    /// Request streams whose POST the server answered 2xx (it took the request).
    taken: BTreeSet<String>,
    /// The port of the server the probe started, held while the session lasts.
    _lease: Option<PortLease>,
}

/// How many times a server that exits before it listens is started (each on another port).
const START_ATTEMPTS: u32 = 3;

/// `{port}` replaced.
fn with_port(s: &str, port: u16) -> String {
    s.replace("{port}", &port.to_string())
}

impl Side {
    /// Connects to the setup's URL; with a command, starts it first on a free port and waits
    /// until it listens (until `deadline`, at most [`LISTEN_WAIT`]).
    pub(super) fn start(setup: &Setup, deadline: Instant) -> std::io::Result<(Option<Peer>, Side)> {
        let template = setup.url.clone().unwrap_or_default();
        let (url, peer, lease) = match setup.command.split_first() {
            None => (template, None, None),
            Some((program, args)) => {
                // A port found free may be taken before the server binds it (by another
                // program, or as the local port of a connection): a server that exits before
                // it listens is started again on another port, twice at most.
                let mut attempt = 0;
                loop {
                    attempt += 1;
                    let lease = free_port()?;
                    let port = lease.port();
                    let url = with_port(&template, port);
                    let args: Vec<String> = args.iter().map(|a| with_port(a, port)).collect();
                    let mut peer = Peer::spawn(program, &args)?;
                    let parsed = Url::parse(&url).map_err(std::io::Error::other)?;
                    let until = deadline.min(Instant::now() + LISTEN_WAIT);
                    let Err(why) = wait_listening(&parsed, until, || !peer.exited()) else {
                        break (url, Some(peer), Some(lease));
                    };
                    let exited = peer.exited();
                    peer.finish(Instant::now());
                    if exited && attempt < START_ATTEMPTS && Instant::now() < until {
                        continue;
                    }
                    let (_, tail) = peer.stderr();
                    let line = std::iter::once(program.clone())
                        .chain(args)
                        .collect::<Vec<_>>()
                        .join(" ");
                    let tail = tail.trim_end();
                    let said = if tail.is_empty() {
                        "it wrote nothing on stderr".to_string()
                    } else {
                        format!("its stderr ends: {tail}")
                    };
                    let tries = if attempt > 1 {
                        format!(" (started {attempt} times, each on another port)")
                    } else {
                        String::new()
                    };
                    return Err(std::io::Error::other(format!(
                        "`{line}` {why}{tries}; {said} (give the server's listening address as --url with {{port}} where the probe's port goes)"
                    )));
                }
            }
        };
        let parsed = Url::parse(&url).map_err(std::io::Error::other)?;
        let side = Side {
            client: Client::new(parsed, setup.max_frame),
            url,
            stream_of: BTreeMap::new(),
            posted: BTreeMap::new(),
            unaccepted: BTreeSet::new(),
            cut: BTreeSet::new(),
            alias: BTreeMap::new(),
            current: BTreeMap::new(),
            last_event: BTreeMap::new(),
            failed: BTreeMap::new(),
            get: None,
            ended: BTreeSet::new(),
            taken: BTreeSet::new(),
            _lease: lease,
        };
        Ok((peer, side))
    }
}

impl Session<'_> {
    fn side(&mut self) -> &mut Side {
        self.http.as_mut().expect("an HTTP session")
    }

    /// POSTs one message and records it on its stream.
    pub(super) fn post(&mut self, text: String) {
        let msg = WireMessage::parse(text.as_bytes()).ok();
        let side = self.side();
        let label = side.client.post(&text);
        let method = match &msg {
            Some(WireMessage::Request { id, method, .. }) => {
                side.stream_of.insert(id.clone(), label.clone());
                method.clone()
            }
            Some(m) => {
                side.unaccepted.insert(label.clone());
                m.method().unwrap_or("a response").to_string()
            }
            None => {
                side.unaccepted.insert(label.clone());
                "a message".to_string()
            }
        };
        side.posted.insert(label.clone(), method);
        let t_us = self.t_us();
        self.records.push(Record {
            t_us,
            dir: Dir::Sent,
            offset: 0,
            text,
            stream: Some(label),
        });
    }

    /// Takes one arrival from the client.
    pub(super) fn on_arrival(&mut self, a: Arrival) {
        let side = self.side();
        if side.cut.contains(&a.stream) {
            return;
        }
        let lane = side
            .alias
            .get(&a.stream)
            .cloned()
            .unwrap_or(a.stream.clone());
        match a.what {
            What::Head { status, reason, .. } => {
                let ok = (200..300).contains(&status);
                let accepting = side.unaccepted.remove(&lane);
                if accepting && ok {
                    let what = side.posted.get(&lane).cloned().unwrap_or_default();
                    let detail = format!("{status} {reason}: the server read {what}");
                    self.note_on(Some(&lane), note::ACCEPTED, &detail, 0);
                } else if ok
                    && side.stream_of.values().any(|l| *l == lane)
                    && side.taken.insert(lane.clone())
                {
                    // A request's POST answered 2xx: the server took the request (when,
                    // against what the other streams carry, is not known).
                    let what = side.posted.get(&lane).cloned().unwrap_or_default();
                    let detail = format!("{status} {reason}: the server took {what}");
                    self.note_on(Some(&lane), note::ACCEPTED, &detail, 0);
                } else if status == 405 && side.get.as_deref() == Some(lane.as_str()) {
                    side.get = None;
                    let detail = format!(
                        "{status} {reason} to the GET: the server offers no standalone stream"
                    );
                    self.note_on(Some(&lane), note::NO_GET, &detail, 0);
                } else if !ok {
                    side.failed.insert(lane, (status, reason, accepting));
                }
            }
            What::Message {
                bytes,
                offset,
                event_id,
            } => {
                if let Some(id) = event_id {
                    side.last_event.insert(lane.clone(), id);
                }
                self.on_frame_on(Some(&lane), offset, &bytes);
            }
            What::Priming(id) => {
                side.last_event.insert(lane, id);
            }
            What::Body(text) => self.http_error(&lane, &text),
            What::End => {
                side.ended.insert(lane.clone());
                self.http_error(&lane, "");
            }
            What::Broken(why) if self.server_exited() => self.server_gone(Some(&lane), &why),
            What::Broken(why) if why.starts_with("could not connect") => {
                if !self.gone {
                    self.gone = true;
                    let detail = format!(
                        "{why}: no server answers at {} (start it, or give its command after --)",
                        self.side().url
                    );
                    self.note_on(Some(&lane), note::PEER_GONE, &detail, 0);
                }
            }
            What::Broken(why) => self.note_on(Some(&lane), note::FRAMING, &why, 0),
        }
    }

    /// Notes a server the probe started that has exited (the session then ends).
    pub(super) fn watch_server(&mut self) {
        if self.peer.as_mut().is_some_and(Peer::exited) {
            self.server_gone(None, "");
        }
    }

    /// The server the probe started exited (`why`: what the probe saw of it, if anything).
    fn server_gone(&mut self, lane: Option<&str>, why: &str) {
        if self.gone {
            return;
        }
        self.gone = true;
        // What the server wrote before it exited (a 202, a last answer) is on other streams'
        // threads, which may not have handed it over yet: it is taken first, or the judge
        // would see the exit before what preceded it.
        let t0 = Instant::now();
        let rest = self.side().client.settle(t0 + Duration::from_secs(1));
        self.waited += t0.elapsed();
        for a in rest {
            self.on_arrival(a);
        }
        let how = self
            .peer
            .as_ref()
            .and_then(|p| p.status)
            .map_or("exited".to_string(), |s| format!("exited ({s})"));
        let seen = if why.is_empty() {
            String::new()
        } else {
            format!(" ({why})")
        };
        let detail = format!("the server {how} before the probe was done{seen}");
        self.note_on(lane, note::PEER_GONE, &detail, 0);
    }

    /// Whether the server the probe started has exited (given a moment to be reaped).
    fn server_exited(&mut self) -> bool {
        let Some(peer) = self.peer.as_mut() else {
            return false;
        };
        let t0 = Instant::now();
        while !peer.exited() && t0.elapsed() < Duration::from_millis(200) {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.waited += t0.elapsed();
        peer.exited()
    }

    /// An error status on `lane`, with its body: to a request or a GET a session error, which
    /// ends the scenario; to a notification or a response the server's refusal of it ("If the
    /// server cannot accept the input, it MUST return an HTTP error status code"), noted: it
    /// was not accepted, so not read.
    fn http_error(&mut self, lane: &str, body: &str) {
        let side = self.side();
        let Some((status, reason, refused)) = side.failed.remove(lane) else {
            return;
        };
        let what = side
            .posted
            .get(lane)
            .cloned()
            .unwrap_or_else(|| "GET".into());
        let body = body.trim();
        let said = if body.is_empty() {
            String::new()
        } else {
            format!(": {body}")
        };
        if refused {
            let detail = format!("{status} {reason} to {what}: the server refused it{said}");
            self.note_on(Some(lane), note::HTTP_STATUS, &detail, 0);
            return;
        }
        let detail = format!("{status} {reason} to {what}{said}");
        self.note_on(Some(lane), note::HTTP_ERROR, &detail, 0);
        self.http_failed = true;
    }

    /// The barrier after a cancel over HTTP: the 202 to every notification POSTed so far (the
    /// server read them).
    pub(super) fn http_barrier(&mut self) -> Step<()> {
        self.pump_until(
            "the 202 Accepted to every notification the probe POSTed",
            |s| s.http.as_ref().is_none_or(|h| h.unaccepted.is_empty()),
        )
    }

    /// The settled version goes in every later request; the standalone stream opens.
    pub(super) fn http_opened(&mut self) {
        let version = self
            .shapes()
            .expected_version()
            .and_then(|v| v.as_str().map(str::to_string));
        let side = self.side();
        side.client.version = version;
        let label = side.client.get(None);
        side.get = Some(label);
    }

    /// Sets the protocol version header from the start (MCP 2026-07-28: no handshake).
    pub(super) fn http_version_first(&mut self) {
        if self.setup.dialect.rules().initialize_method.is_none() {
            let version = self
                .shapes()
                .expected_version()
                .and_then(|v| v.as_str().map(str::to_string));
            self.side().client.version = version;
        }
    }

    /// The stream of request `id`, and the connection carrying it now.
    fn stream_now(&mut self, id: RequestId) -> Option<(WireId, String, String)> {
        let wid = self.ids.wire(id);
        let side = self.http.as_mut()?;
        let lane = side.stream_of.get(&wid)?.clone();
        let raw = side.current.get(&lane).cloned().unwrap_or(lane.clone());
        Some((wid, lane, raw))
    }

    /// Closes request `id`'s response stream now (in MCP 2026-07-28, its cancel).
    pub fn close_stream(&mut self, id: RequestId) {
        self.cut_stream(
            id,
            note::STREAM_CLOSED,
            "the probe closed its response stream",
        );
    }

    /// Drops the connection of request `id`'s stream now, as a network failure would.
    pub fn drop_stream(&mut self, id: RequestId) {
        let how = "the probe dropped its stream's connection, as a network failure would";
        self.cut_stream(id, note::STREAM_LOST, how);
    }

    /// Shuts the connection carrying request `id`'s stream down now, noted as `kind`.
    fn cut_stream(&mut self, id: RequestId, kind: &str, how: &str) {
        let Some((wid, lane, raw)) = self.stream_now(id) else {
            return;
        };
        let side = self.side();
        if !side.cut.insert(raw.clone()) {
            return;
        }
        side.client.close(&raw);
        self.note_on(Some(&lane), kind, &format!("request {wid}: {how}"), 0);
    }

    /// Resumes request `id`'s dropped stream with a GET and `Last-Event-ID`. False (and a
    /// [`note::NO_RESUME`]) where the server gave no event id on it.
    pub fn resume_stream(&mut self, id: RequestId) -> bool {
        let Some((wid, lane, _)) = self.stream_now(id) else {
            return false;
        };
        let side = self.side();
        let Some(last) = side.last_event.get(&lane).cloned() else {
            let detail = format!(
                "request {wid}: the server gave no event id on its stream, so it offers no resumption: what the disconnect did to the request cannot be observed"
            );
            self.note_on(Some(&lane), note::NO_RESUME, &detail, 0);
            return false;
        };
        let raw = side.client.get(Some(&last));
        side.alias.insert(raw.clone(), lane.clone());
        side.current.insert(lane.clone(), raw.clone());
        let detail = format!("request {wid}: resumed with GET and Last-Event-ID {last:?} ({raw})");
        self.note_on(Some(&lane), note::STREAM_RESUMED, &detail, 0);
        true
    }

    /// Whether the server took request `id` (its POST answered 2xx); true on stdio, where
    /// reading is proved otherwise.
    pub(super) fn taken(&self, id: RequestId) -> bool {
        let Some(side) = &self.http else {
            return true;
        };
        side.stream_of
            .get(&self.ids.wire(id))
            .is_some_and(|l| side.taken.contains(l))
    }

    /// Whether the session stopped on an HTTP error.
    pub(super) fn http_stop(&self) -> Option<Stop> {
        self.http_failed.then_some(Stop::Refused)
    }

    /// After the steps: what the server still sends on the request streams it has not ended
    /// is read until `until` (`--linger`), then every stream is closed.
    pub(super) fn linger_http(&mut self, until: Instant) {
        let _ = self.pump(until, |s| {
            s.http.as_ref().is_none_or(|h| {
                h.stream_of
                    .values()
                    .all(|l| h.ended.contains(l) || h.cut.contains(l))
            })
        });
        self.close_http();
    }

    /// The end of an HTTP session: every stream closed.
    pub(super) fn close_http(&mut self) {
        if let Some(side) = self.http.as_mut() {
            side.client.finish();
        }
    }
}
