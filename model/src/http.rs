//! Streamable HTTP (MCP) as every driver holds it (the simulator, the explorer and the test
//! peer): which stream each message travels on, and what became of each client request's
//! response stream.
//!
//! What the model keeps of the transport is what cancellation turns on:
//! - every message the client sends is a POST of its own, so towards the server messages
//!   arrive in any order (a cancel POST can cross the answer);
//! - the server writes what concerns a client request on that request's response stream (its
//!   answer, its progress, the requests it sends on the request's behalf), and everything else
//!   on the standalone GET stream; order holds within a stream, not across streams;
//! - the client may close a request's stream (the cancel, where the dialect says so:
//!   [`DialectRules::stream_close_cancels`](crate::DialectRules)): what is written
//!   on it afterwards, or was written and not yet read, is never read; the server learns of
//!   the close some time later (`Input::StreamClosed`);
//! - the connection carrying a stream may drop (`Input::StreamLost`, where a close is no
//!   cancel): the server learns of it as of a close, keeps what it writes on the stream (an
//!   event store: resumability offered) and hands it over, in order, when the client resumes
//!   the stream with `Last-Event-ID` (`Input::StreamResumed`); progress written once the
//!   server knows the stream dropped goes on the GET stream instead.
//!
//! Abstracted away: the HTTP requests and status codes themselves (a notification's `202
//! Accepted` tells the client only that the POST was read, which no party of the model acts
//! on), event ids, sessions (`Mcp-Session-Id`), a server that answers a POST with a single
//! JSON body (a stream of one message), a POST whose connection drops before the server read
//! it (a lost request), a second drop of a resumed stream, and the server closing streams on
//! its own.

use crate::pack::{Pack, Relabel};
use crate::{Message, Party, RequestId};
use smallvec::SmallVec;

/// Whether `dialect` has a Streamable HTTP transport (MCP's two texts): the one place the
/// simulator, the probe and the test peer ask.
pub fn has_streamable_http(dialect: crate::Dialect) -> bool {
    dialect.rules().streamable_http
}

/// Where a message goes on Streamable HTTP.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Route {
    /// A POST of its own (what the client sends): in any order with the others.
    Post,
    /// The response stream of the client's request with this id.
    Stream(RequestId),
    /// The standalone GET stream.
    Get,
    /// Nowhere: it is written on a stream the client closed, and never read.
    Discard,
}

/// What became of a client request's response stream.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Pack, Relabel)]
pub enum StreamState {
    /// Open (every stream starts so).
    Open,
    /// The client closed it.
    Closed,
    /// Its connection dropped; what the server writes on it waits for a resume.
    Lost,
    /// Resumed after a drop (it does not drop again in the model).
    Resumed,
}

/// One stream that is not simply open.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Pack, Relabel)]
struct Entry {
    id: RequestId,
    state: StreamState,
    /// Whether the server has read that it closed or dropped.
    read: bool,
}

/// The client requests' response streams: those not simply open, sorted by id (so equal
/// states are equal values).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default, Pack, Relabel)]
pub struct Streams {
    entries: SmallVec<[Entry; 4]>,
}

impl Streams {
    /// No stream closed.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// What became of the stream of the client's request `id`, and whether the server has
    /// read that it closed or dropped.
    pub fn state(&self, id: RequestId) -> (StreamState, bool) {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .map_or((StreamState::Open, false), |e| (e.state, e.read))
    }

    fn set(&mut self, id: RequestId, state: StreamState, read: bool) {
        let e = Entry { id, state, read };
        match self.entries.iter().position(|x| x.id == id) {
            Some(i) => self.entries[i] = e,
            None => {
                let at = self.entries.partition_point(|x| x.id < id);
                self.entries.insert(at, e);
            }
        }
    }

    /// The client closed the stream.
    pub fn close(&mut self, id: RequestId) {
        self.set(id, StreamState::Closed, false);
    }

    /// The stream's connection dropped.
    pub fn lose(&mut self, id: RequestId) {
        self.set(id, StreamState::Lost, false);
    }

    /// The client resumed the stream.
    pub fn resume(&mut self, id: RequestId) {
        let read = self.state(id).1;
        self.set(id, StreamState::Resumed, read);
    }

    /// The server read that the stream closed or dropped.
    pub fn read(&mut self, id: RequestId) {
        let state = self.state(id).0;
        self.set(id, state, true);
    }

    /// Whether what is written on the stream of request `id` can be read now (it is open, or
    /// resumed).
    pub fn readable(&self, id: RequestId) -> bool {
        matches!(self.state(id).0, StreamState::Open | StreamState::Resumed)
    }

    /// Whether the stream of request `id` may drop: it is open (never dropped before).
    pub fn may_drop(&self, id: RequestId) -> bool {
        self.state(id).0 == StreamState::Open
    }

    /// The ids of the streams that dropped and wait for a resume, in order.
    pub fn lost(&self) -> impl Iterator<Item = RequestId> + '_ {
        self.entries
            .iter()
            .filter(|e| e.state == StreamState::Lost)
            .map(|e| e.id)
    }

    /// Where `msg`, sent by `from`, goes. `on_behalf` names the client request on whose
    /// behalf the server sent its request with a given id, if any.
    pub fn route(
        &self,
        from: Party,
        msg: Message,
        on_behalf: impl Fn(RequestId) -> Option<RequestId>,
    ) -> Route {
        if from == Party::Client {
            return Route::Post;
        }
        let Some(lane) = lane(msg, on_behalf) else {
            return Route::Get;
        };
        let progress = matches!(msg, Message::Activity { .. });
        match self.state(lane) {
            (StreamState::Open | StreamState::Resumed, _) => Route::Stream(lane),
            // The server knows the stream is gone: progress goes the other way.
            (StreamState::Lost | StreamState::Closed, true) if progress => Route::Get,
            (StreamState::Lost, _) => Route::Stream(lane),
            (StreamState::Closed, _) => Route::Discard,
        }
    }
}

/// The client request whose response stream carries `msg` from the server, if any: the one
/// it answers or reports on, or on whose behalf a request (or its cancel) is sent.
pub fn lane(msg: Message, on_behalf: impl Fn(RequestId) -> Option<RequestId>) -> Option<RequestId> {
    match msg {
        Message::Response { id, .. } | Message::Activity { id } | Message::CancelAck { id, .. } => {
            Some(id)
        }
        Message::Request { id, .. } | Message::Cancel { id, .. } => on_behalf(id),
        Message::MalformedCancel => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Reply;

    /// An answer goes on its request's stream while the stream is open or lost (kept for the
    /// resume), nowhere once the client closed it; progress goes on the GET stream once the
    /// server knows the stream is gone; the client's messages are POSTs.
    #[test]
    fn messages_take_the_stream_their_request_has_left() {
        let id = RequestId::Int(1);
        let answer = Message::Response {
            id,
            reply: Reply::Full,
        };
        let progress = Message::Activity { id };
        let none = |_| None;
        let mut s = Streams::default();
        assert_eq!(s.route(Party::Client, answer, none), Route::Post);
        assert_eq!(s.route(Party::Server, answer, none), Route::Stream(id));
        s.lose(id);
        assert!(!s.readable(id) && !s.may_drop(id));
        assert_eq!(s.route(Party::Server, progress, none), Route::Stream(id));
        s.read(id);
        assert_eq!(s.route(Party::Server, progress, none), Route::Get);
        assert_eq!(s.route(Party::Server, answer, none), Route::Stream(id));
        s.resume(id);
        assert!(s.readable(id) && !s.may_drop(id));
        let mut c = Streams::default();
        c.close(id);
        assert_eq!(c.route(Party::Server, answer, none), Route::Discard);
        assert_eq!(c.route(Party::Server, progress, none), Route::Discard);
        c.read(id);
        assert_eq!(c.route(Party::Server, progress, none), Route::Get);
        let request = Message::Request {
            id: RequestId::Int(5),
            method: crate::message::Method::ServerWork,
        };
        assert_eq!(s.route(Party::Server, request, none), Route::Get);
        assert_eq!(
            s.route(Party::Server, request, |_| Some(id)),
            Route::Stream(id)
        );
    }
}
