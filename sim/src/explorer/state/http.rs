//! Streamable HTTP's part of a plain state (see [`crate::http`]): the client requests'
//! streams, the closes the server has not read yet, and the standalone GET stream; where each
//! message the parties send goes, and the steps the transport adds. Only plain states take
//! this transport (a row of the flat form has no room for it), without reductions.
//!
//! The queue towards the client holds the messages on requests' streams, sorted by stream and
//! in sending order within one: a message is deliverable when it is the first of its stream
//! and the stream is readable. The queue towards the server holds the client's POSTs, sorted
//! (any order). The GET stream is delivered from its head.

use super::{Dirty, Explorer, Inert, Step, insert_sorted};
use crate::http::{Route, Streams, lane};
use cancelcheck_model::pack::{Pack, PackError, Reader, Relabel};
use cancelcheck_model::{Message, Party, RequestId};
use cancelcheck_properties::Event;
use smallvec::SmallVec;

/// The transport's state.
#[derive(Clone, Debug, Relabel)]
pub(super) struct Http {
    /// Whether the transport is Streamable HTTP (otherwise the rest stays empty and is packed
    /// as nothing).
    on: bool,
    streams: Streams,
    /// The client requests whose stream closed or dropped without the server having read it
    /// yet, sorted.
    notices: SmallVec<[RequestId; 4]>,
    /// The standalone GET stream towards the client, in sending order.
    pub(super) get: SmallVec<[Message; 4]>,
}

impl Http {
    pub(super) fn new(on: bool) -> Self {
        Http {
            on,
            streams: Streams::default(),
            notices: SmallVec::new(),
            get: SmallVec::new(),
        }
    }

    /// Whether the transport is Streamable HTTP.
    pub(super) fn on(&self) -> bool {
        self.on
    }
}

/// Off: the transport is another (its streams then stay empty).
impl Inert for Http {
    fn inert(&self) -> bool {
        !self.on
    }
}

impl Explorer {
    /// Packs the transport's state (nothing on another transport).
    pub(super) fn pack_http(&self, out: &mut Vec<u8>) {
        let h = &self.http;
        if h.on {
            h.streams.pack(out);
            h.notices.pack(out);
            h.get.pack(out);
        }
    }

    /// Reads what [`Explorer::pack_http`] wrote.
    pub(super) fn unpack_http(&mut self, r: &mut Reader<'_>) -> Result<(), PackError> {
        let h = &mut self.http;
        if h.on {
            h.streams.unpack_into(r)?;
            h.notices.unpack_into(r)?;
            h.get.unpack_into(r)?;
        }
        Ok(())
    }

    /// The client request whose stream carries `m` (a message of the server's), if any.
    fn lane_of(&self, m: Message) -> Option<RequestId> {
        let server = self.world.endpoint(Party::Server);
        lane(m, |id| server.sent_for(id))
    }

    /// Whether the message at place `i` of the queue towards the client must wait: another of
    /// its stream is ahead of it, or its stream cannot be read now.
    pub(super) fn http_held(&self, i: usize) -> bool {
        let q = &self.net[Party::Client.index()];
        let l = self.lane_of(q[i]);
        (i > 0 && self.lane_of(q[i - 1]) == l) || l.is_some_and(|l| !self.http.streams.readable(l))
    }

    /// The transport's own steps: the GET stream's head delivered, a close read by the
    /// server, a stream's connection dropping (where a close is no cancel: once per stream, of
    /// a request the server has read and the client still waits for), a dropped stream resumed.
    pub(super) fn http_steps(&self, out: &mut Vec<Step>) {
        let h = &self.http;
        if !h.get.is_empty() {
            out.push(Step::DeliverGet);
        }
        out.extend(h.notices.iter().map(|&id| Step::StreamClosed(id)));
        let client = self.world.endpoint(Party::Client);
        if !client.config().dialect.rules().stream_close_cancels {
            let server = self.world.endpoint(Party::Server);
            for &id in self.ids[..usize::from(self.sent)].iter().flatten() {
                if h.streams.may_drop(id) && client.awaits(id) && server.received(id).is_some() {
                    out.push(Step::LoseStream(id));
                }
            }
        }
        out.extend(h.streams.lost().map(Step::ResumeStream));
    }

    /// The driver's part of a transport step (what it shows the parties follows).
    pub(super) fn http_apply(&mut self, step: Step) {
        let h = &mut self.http;
        match step {
            Step::DeliverGet => {
                h.get.remove(0);
            }
            Step::StreamClosed(id) => {
                h.notices.retain(|x| *x != id);
                h.streams.read(id);
            }
            Step::LoseStream(id) => {
                h.streams.lose(id);
                insert_sorted(&mut h.notices, id);
            }
            Step::ResumeStream(id) => h.streams.resume(id),
            _ => {}
        }
    }

    /// `from` sends `msg`: a POST, onto a stream, onto the GET stream, or nowhere.
    pub(super) fn http_send(&mut self, from: Party, msg: Message) {
        let server = self.world.endpoint(Party::Server);
        match self.http.streams.route(from, msg, |id| server.sent_for(id)) {
            Route::Post => {
                self.dirty |= Dirty::NET[Party::Server.index()];
                insert_sorted(&mut self.net[Party::Server.index()], msg);
            }
            Route::Stream(l) => {
                self.dirty |= Dirty::NET[Party::Client.index()];
                let q = &self.net[Party::Client.index()];
                let at = q
                    .iter()
                    .position(|&m| self.lane_of(m) > Some(l))
                    .unwrap_or(q.len());
                self.net[Party::Client.index()].insert(at, msg);
            }
            Route::Get => self.http.get.push(msg),
            Route::Discard => self.world.emit(Event::Lost { from, msg }),
        }
    }

    /// The client closes the stream of its request `id`: what is on it is never read, and
    /// the server will read that it closed.
    pub(super) fn http_close(&mut self, id: RequestId) {
        self.dirty |= Dirty::NET[Party::Client.index()];
        let mut i = 0;
        while i < self.net[Party::Client.index()].len() {
            let m = self.net[Party::Client.index()][i];
            if self.lane_of(m) == Some(id) {
                self.net[Party::Client.index()].remove(i);
                self.world.emit(Event::Lost {
                    from: Party::Server,
                    msg: m,
                });
            } else {
                i += 1;
            }
        }
        self.http.streams.close(id);
        insert_sorted(&mut self.http.notices, id);
    }
}
