//! A plain-text notation for [`Event`]s: one line per event, words separated by spaces, that a
//! person can write and read and any language can parse.
//!
//! ```text
//! event    := PARTY "receives" MSG            | PARTY "sends" MSG
//!           | PARTY "command" COMMAND         | PARTY "work-done" ID
//!           | PARTY "work-progress" ID        | PARTY "timer-fired" TIMER
//!           | PARTY "internal-cancel" ID
//!           | PARTY "stream-closed" ID          | PARTY "stream-lost" ID
//!           | PARTY "stream-resumed" ID         | PARTY "closes-stream" ID
//!           | PARTY "disconnected"            | PARTY "delivers" ID OUTCOME
//!           | PARTY "starts" "work" ID        | PARTY "aborts" "work" ID
//!           | PARTY "drops" ID                | PARTY "crashes"
//!           | PARTY "arms" TIMER              | PARTY "disarms" TIMER
//!           | PARTY "refuses" COMMAND REFUSAL | PARTY "ignores" IGNORED
//!           | PARTY "anomaly" ANOMALY         | PARTY "nests" ID "under" ID
//!           | PARTY "sends-unmodelled"
//!           | "network" "loses" PARTY MSG     | "network" "duplicates" PARTY MSG
//!           | "end" ("quiescent" | "bounded") "open" COUNT COUNT
//! PARTY    := "client" | "server"
//! MSG      := "request" ID METHOD | "response" ID REPLY | "cancel" ID
//!           | "session-cancel" ID | "malformed-cancel" | "activity" ID
//!           | "cancel-ack" ID "cancelled" BOOL ["reason" REASON]
//! METHOD   := "initialize" | "initialize-no-cancel" | "work" | "task-work" | "server-work"
//! REPLY    := "full" | "partial" | "cancelled" | "error" INTEGER
//!           | "initialized" "cancel-support" BOOL
//! OUTCOME  := "reply" REPLY | "cancelled" ("user" | "timeout" | "parent") | "disconnected"
//! COMMAND  := "initialize" | "send" | "send-task" | "send-nested" ID | "cancel" ID
//!           | "malformed-cancel"
//! TIMER    := "timeout" ID | "init-timeout"
//! REASON   := "none" | "not-found" | "already-completed" | "not-initialized"
//! REFUSAL  := "not-pending" | "already-cancelling" | "initialize-not-cancellable"
//!           | "not-negotiated" | "wrong-party" | "no-session" | "no-parent"
//! IGNORED  := ("late-answer" | "unknown-cancel" | "cancel-after-answer"
//!             | "unsupported-cancel" | "repeated-cancel") ID
//!           | "malformed-cancel" | "stale-timer"
//! ANOMALY  := ("unsolicited-response" | "duplicate-response" | "activity-after-answer"
//!             | "duplicate-request-id" | "unexpected-ack" | "unknown-work") ID
//! ID       := INTEGER | "null" | '"' characters other than '"' '"'   (at most 22 bytes)
//! BOOL     := "true" | "false"
//! ```
//!
//! Ids keep their JSON type: `7` is a number, `"7"` a string, and they name different
//! requests. The two `open` counts of `end` are the received requests the client and the
//! server still held when the run ended. `delivers` is what a requester hands its application
//! (`reply REPLY`: the peer's answer as received; `cancelled user|timeout`: it gave up at
//! cancel time; `cancelled parent`: it gave up because the request it was sent for was
//! cancelled). `nests CHILD under PARENT` says that the request the party sends next, `CHILD`,
//! is sent on behalf of `PARENT`, a request it received (the edge of the request tree); the
//! command `send-nested PARENT` asks for such a request. `sends-unmodelled` is a message the
//! model has no term for (a request of another method, an unrelated notification), which only
//! a judge of real sessions writes: it says when the party sent something, nothing more. `initialize` declares that the client handles cancels of the server's
//! requests, `initialize-no-cancel` that it does not (the ACP RFD reads it); `work` is the
//! client's ordinary request, `server-work` the server's. The one event the notation cannot express is the anomaly "illegal
//! transition" (a driver error the checker does not read); [`format()`] renders it as
//! `anomaly illegal ID` and [`parse`] refuses it.

use crate::event::Event;
use cancelcheck_model::io::{Anomaly, Ignored, Refusal, Timer};
use cancelcheck_model::message::{Ack, AckReason, CancelCause, Method};
use cancelcheck_model::pack::Finite;
use cancelcheck_model::{Command, Input, Message, Outcome, Output, Party, Reply, RequestId};
use core::fmt;

/// Why a line is not an event: the word (counted from 1) at fault, what the grammar expected
/// there, and what was found (empty at the end of the line).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NotationError {
    /// The position of the offending word, from 1 (one past the last word when the line
    /// ended too soon).
    pub word: usize,
    /// What the grammar allows there.
    pub expected: String,
    /// The word found, or empty at the end of the line.
    pub found: String,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.found.is_empty() {
            write!(
                f,
                "word {}: expected {}; the line ended",
                self.word, self.expected
            )
        } else {
            write!(
                f,
                "word {}: expected {}; found {:?}",
                self.word, self.expected, self.found
            )
        }
    }
}

impl std::error::Error for NotationError {}

/// Parses one event. Guarantees: every event [`format()`] renders (but an illegal-transition
/// anomaly) parses back to itself; anything else is refused with the word at fault and what
/// was expected there, never a panic.
pub fn parse(line: &str) -> Result<Event, NotationError> {
    let mut w = Words::split(line)?;
    let ev = w.event()?;
    w.finish()?;
    Ok(ev)
}

/// Renders one event in the notation (see the module documentation), as [`parse`] reads it.
pub fn format(ev: &Event) -> String {
    Notation(ev).to_string()
}

/// An event, displayed in the notation.
pub struct Notation<'a>(pub &'a Event);

impl fmt::Display for Notation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self.0 {
            Event::Input { party, input } => {
                write!(f, "{} ", party.name())?;
                match input {
                    Input::Receive(m) => write!(f, "receives {}", Msg(m)),
                    Input::Command(c) => write!(f, "command {}", Cmd(c)),
                    Input::WorkDone(id) => write!(f, "work-done {}", Id(id)),
                    Input::WorkProgress(id) => write!(f, "work-progress {}", Id(id)),
                    Input::TimerFired(t) => write!(f, "timer-fired {}", Tm(t)),
                    Input::Disconnected => f.write_str("disconnected"),
                    Input::InternalCancel(id) => write!(f, "internal-cancel {}", Id(id)),
                    Input::StreamClosed(id) => write!(f, "stream-closed {}", Id(id)),
                    Input::StreamLost(id) => write!(f, "stream-lost {}", Id(id)),
                    Input::StreamResumed(id) => write!(f, "stream-resumed {}", Id(id)),
                }
            }
            Event::Output { party, output } => {
                write!(f, "{} ", party.name())?;
                match output {
                    Output::Send(m) => write!(f, "sends {}", Msg(m)),
                    Output::Deliver { id, outcome } => {
                        write!(f, "delivers {} ", Id(id))?;
                        match outcome {
                            Outcome::Reply(r) => write!(f, "reply {}", Rep(r)),
                            Outcome::Cancelled(CancelCause::User) => f.write_str("cancelled user"),
                            Outcome::Cancelled(CancelCause::Timeout) => {
                                f.write_str("cancelled timeout")
                            }
                            Outcome::Cancelled(CancelCause::Parent) => {
                                f.write_str("cancelled parent")
                            }
                            Outcome::Disconnected => f.write_str("disconnected"),
                        }
                    }
                    Output::StartWork(id) => write!(f, "starts work {}", Id(id)),
                    Output::AbortWork(id) => write!(f, "aborts work {}", Id(id)),
                    Output::Dropped(id) => write!(f, "drops {}", Id(id)),
                    Output::ArmTimer(t) => write!(f, "arms {}", Tm(t)),
                    Output::DisarmTimer(t) => write!(f, "disarms {}", Tm(t)),
                    Output::Refused(c, r) => write!(f, "refuses {} {}", Cmd(c), refusal_word(r)),
                    Output::Ignored(i) => {
                        f.write_str("ignores ")?;
                        match ignored_parts(i) {
                            (word, Some(id)) => write!(f, "{word} {}", Id(id)),
                            (word, None) => f.write_str(word),
                        }
                    }
                    Output::Anomaly(a) => {
                        let (word, id) = anomaly_parts(a);
                        write!(f, "anomaly {word} {}", Id(id))
                    }
                    Output::Crashed => f.write_str("crashes"),
                    Output::CloseStream(id) => write!(f, "closes-stream {}", Id(id)),
                    Output::Nested { parent, child } => {
                        write!(f, "nests {} under {}", Id(child), Id(parent))
                    }
                }
            }
            Event::Unmodelled { party } => write!(f, "{} sends-unmodelled", party.name()),
            Event::Lost { from, msg } => write!(f, "network loses {} {}", from.name(), Msg(msg)),
            Event::Duplicated { from, msg } => {
                write!(f, "network duplicates {} {}", from.name(), Msg(msg))
            }
            Event::End {
                quiescent,
                open_incoming,
            } => write!(
                f,
                "end {} open {} {}",
                if quiescent { "quiescent" } else { "bounded" },
                open_incoming[0],
                open_incoming[1]
            ),
        }
    }
}

struct Id(RequestId);

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RequestId::Null => f.write_str("null"),
            RequestId::Int(n) => write!(f, "{n}"),
            RequestId::Str(s) => write!(f, "\"{}\"", s.as_str()),
        }
    }
}

struct Msg(Message);

/// Request methods by [`Method::code`]: `initialize` declares cancellation support,
/// `initialize-no-cancel` does not; `work` is the client's ordinary request (`task-work`
/// task-augmented), `server-work` the server's.
/// A method's word in the notation.
fn method_word(m: Method) -> &'static str {
    match m {
        Method::Initialize {
            cancel_support: true,
        } => "initialize",
        Method::Initialize {
            cancel_support: false,
        } => "initialize-no-cancel",
        Method::Work { task: false } => "work",
        Method::Work { task: true } => "task-work",
        Method::ServerWork => "server-work",
    }
}

/// Every method's word, in the order of [`Finite::index`].
fn method_words() -> [&'static str; Method::COUNT] {
    core::array::from_fn(|i| Method::from_index(i).map_or("", method_word))
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Message::Request { id, method } => {
                write!(f, "request {} {}", Id(id), method_word(method))
            }
            Message::Response { id, reply } => write!(f, "response {} {}", Id(id), Rep(reply)),
            Message::Cancel { id, session } => {
                let kind = if session { "session-cancel" } else { "cancel" };
                write!(f, "{kind} {}", Id(id))
            }
            Message::MalformedCancel => f.write_str("malformed-cancel"),
            Message::CancelAck { id, ack } => {
                write!(f, "cancel-ack {} cancelled {}", Id(id), ack.cancelled)?;
                match ack.reason {
                    AckReason::None => Ok(()),
                    r => write!(f, " reason {}", reason_word(r)),
                }
            }
            Message::Activity { id } => write!(f, "activity {}", Id(id)),
        }
    }
}

struct Rep(Reply);

impl fmt::Display for Rep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Reply::Full => f.write_str("full"),
            Reply::Partial => f.write_str("partial"),
            Reply::Cancelled => f.write_str("cancelled"),
            Reply::Error(code) => write!(f, "error {code}"),
            Reply::Initialized { cancel_support } => {
                write!(f, "initialized cancel-support {cancel_support}")
            }
        }
    }
}

struct Cmd(Command);

impl fmt::Display for Cmd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Command::Initialize => f.write_str("initialize"),
            Command::Send { task: false } => f.write_str("send"),
            Command::Send { task: true } => f.write_str("send-task"),
            Command::SendNested(id) => write!(f, "send-nested {}", Id(id)),
            Command::Cancel(id) => write!(f, "cancel {}", Id(id)),
            Command::MalformedCancel => f.write_str("malformed-cancel"),
        }
    }
}

struct Tm(Timer);

impl fmt::Display for Tm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Timer::RequestTimeout(id) => write!(f, "timeout {}", Id(id)),
            Timer::InitTimeout => f.write_str("init-timeout"),
        }
    }
}

const REASONS: [(&str, AckReason); 4] = [
    ("none", AckReason::None),
    ("not-found", AckReason::NotFound),
    ("already-completed", AckReason::AlreadyCompleted),
    ("not-initialized", AckReason::NotInitialized),
];

fn reason_word(r: AckReason) -> &'static str {
    REASONS
        .iter()
        .find(|(_, x)| *x == r)
        .map_or("none", |p| p.0)
}

const REFUSALS: [(&str, Refusal); 7] = [
    ("not-pending", Refusal::NotPending),
    ("already-cancelling", Refusal::AlreadyCancelling),
    (
        "initialize-not-cancellable",
        Refusal::InitializeNotCancellable,
    ),
    ("not-negotiated", Refusal::NotNegotiated),
    ("wrong-party", Refusal::WrongParty),
    ("no-session", Refusal::NoSession),
    ("no-parent", Refusal::NoParent),
];

fn refusal_word(r: Refusal) -> &'static str {
    REFUSALS.iter().find(|(_, x)| *x == r).map_or("", |p| p.0)
}

fn ignored_parts(i: Ignored) -> (&'static str, Option<RequestId>) {
    match i {
        Ignored::LateAnswer(id) => ("late-answer", Some(id)),
        Ignored::UnknownCancel(id) => ("unknown-cancel", Some(id)),
        Ignored::CancelAfterAnswer(id) => ("cancel-after-answer", Some(id)),
        Ignored::UnsupportedCancel(id) => ("unsupported-cancel", Some(id)),
        Ignored::RepeatedCancel(id) => ("repeated-cancel", Some(id)),
        Ignored::MalformedCancel => ("malformed-cancel", None),
        Ignored::StaleTimer => ("stale-timer", None),
    }
}

fn anomaly_parts(a: Anomaly) -> (&'static str, RequestId) {
    match a {
        Anomaly::UnsolicitedResponse(id) => ("unsolicited-response", id),
        Anomaly::DuplicateResponse(id) => ("duplicate-response", id),
        Anomaly::ActivityAfterAnswer(id) => ("activity-after-answer", id),
        Anomaly::DuplicateRequestId(id) => ("duplicate-request-id", id),
        Anomaly::UnexpectedAck(id) => ("unexpected-ack", id),
        Anomaly::UnknownWork(id) => ("unknown-work", id),
        Anomaly::Illegal(id, _) => ("illegal", id),
    }
}

/// The words of one line, read left to right.
struct Words<'a> {
    words: Vec<&'a str>,
    at: usize,
}

impl<'a> Words<'a> {
    /// Splits on whitespace; a word starting with `"` runs to the next `"` (spaces included).
    fn split(line: &'a str) -> Result<Self, NotationError> {
        let mut words = Vec::new();
        let mut rest = line.trim_start();
        while !rest.is_empty() {
            let end = if let Some(body) = rest.strip_prefix('"') {
                match body.find('"') {
                    Some(close) => close + 2,
                    None => {
                        return Err(NotationError {
                            word: words.len() + 1,
                            expected: "a closing '\"' after a string id".into(),
                            found: rest.to_string(),
                        });
                    }
                }
            } else {
                rest.find(char::is_whitespace).unwrap_or(rest.len())
            };
            words.push(&rest[..end]);
            rest = rest[end..].trim_start();
        }
        Ok(Words { words, at: 0 })
    }

    fn err<T>(&self, expected: impl Into<String>) -> Result<T, NotationError> {
        Err(NotationError {
            word: self.at + 1,
            expected: expected.into(),
            found: self.words.get(self.at).copied().unwrap_or("").to_string(),
        })
    }

    fn peek(&self) -> Option<&'a str> {
        self.words.get(self.at).copied()
    }

    /// The next word, which must be one of `options`; returns its index in `options`.
    fn one_of(&mut self, options: &[&str]) -> Result<usize, NotationError> {
        match self
            .peek()
            .and_then(|w| options.iter().position(|o| *o == w))
        {
            Some(i) => {
                self.at += 1;
                Ok(i)
            }
            None => {
                let list: Vec<String> = options.iter().map(|o| format!("{o:?}")).collect();
                let what = if list.len() == 1 {
                    list[0].clone()
                } else {
                    format!("one of {}", list.join(", "))
                };
                self.err(what)
            }
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), NotationError> {
        self.one_of(&[word]).map(|_| ())
    }

    fn finish(&self) -> Result<(), NotationError> {
        if self.at < self.words.len() {
            return self.err("the end of the event");
        }
        Ok(())
    }

    fn party(&mut self) -> Result<Party, NotationError> {
        Ok([Party::Client, Party::Server][self.one_of(&["client", "server"])?])
    }

    fn boolean(&mut self) -> Result<bool, NotationError> {
        Ok(self.one_of(&["false", "true"])? == 1)
    }

    fn integer(&mut self, what: &str) -> Result<i64, NotationError> {
        match self.peek().and_then(|w| w.parse::<i64>().ok()) {
            Some(n) => {
                self.at += 1;
                Ok(n)
            }
            None => self.err(what.to_string()),
        }
    }

    fn count(&mut self) -> Result<u32, NotationError> {
        match self.peek().and_then(|w| w.parse::<u32>().ok()) {
            Some(n) => {
                self.at += 1;
                Ok(n)
            }
            None => self.err("a count of requests (0 or more)"),
        }
    }

    fn id(&mut self) -> Result<RequestId, NotationError> {
        const WHAT: &str = "a request id: an integer, a \"quoted string\" or null";
        let Some(w) = self.peek() else {
            return self.err(WHAT);
        };
        let id = if w == "null" {
            RequestId::Null
        } else if let Some(s) = w.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            match RequestId::str(s) {
                Some(id) => id,
                None => {
                    return self.err(format!(
                        "a string id of at most {} bytes",
                        cancelcheck_model::id::MAX_STR_ID
                    ));
                }
            }
        } else if let Ok(n) = w.parse::<i64>() {
            RequestId::Int(n)
        } else {
            return self.err(WHAT);
        };
        self.at += 1;
        Ok(id)
    }

    fn message(&mut self) -> Result<Message, NotationError> {
        let kinds = [
            "request",
            "response",
            "cancel",
            "malformed-cancel",
            "cancel-ack",
            "activity",
            "session-cancel",
        ];
        Ok(match self.one_of(&kinds)? {
            0 => {
                let id = self.id()?;
                let i = self.one_of(&method_words())?;
                let method = Method::from_index(i).unwrap_or(Method::Work { task: false });
                Message::Request { id, method }
            }
            1 => Message::Response {
                id: self.id()?,
                reply: self.reply()?,
            },
            t @ (2 | 6) => Message::Cancel {
                id: self.id()?,
                session: t == 6,
            },
            3 => Message::MalformedCancel,
            4 => {
                let id = self.id()?;
                self.literal("cancelled")?;
                let cancelled = self.boolean()?;
                let reason = if self.peek().is_some() && self.peek() == Some("reason") {
                    self.at += 1;
                    let words: Vec<&str> = REASONS.iter().map(|p| p.0).collect();
                    REASONS[self.one_of(&words)?].1
                } else {
                    AckReason::None
                };
                Message::CancelAck {
                    id,
                    ack: Ack { cancelled, reason },
                }
            }
            _ => Message::Activity { id: self.id()? },
        })
    }

    fn reply(&mut self) -> Result<Reply, NotationError> {
        Ok(
            match self.one_of(&["full", "partial", "cancelled", "error", "initialized"])? {
                0 => Reply::Full,
                1 => Reply::Partial,
                2 => Reply::Cancelled,
                3 => Reply::Error(self.integer("an error code (an integer, e.g. -32603)")?),
                _ => {
                    self.literal("cancel-support")?;
                    Reply::Initialized {
                        cancel_support: self.boolean()?,
                    }
                }
            },
        )
    }

    fn command(&mut self) -> Result<Command, NotationError> {
        Ok(
            match self.one_of(&[
                "initialize",
                "send",
                "cancel",
                "malformed-cancel",
                "send-nested",
                "send-task",
            ])? {
                0 => Command::Initialize,
                1 => Command::Send { task: false },
                5 => Command::Send { task: true },
                2 => Command::Cancel(self.id()?),
                3 => Command::MalformedCancel,
                _ => Command::SendNested(self.id()?),
            },
        )
    }

    fn timer(&mut self) -> Result<Timer, NotationError> {
        Ok(match self.one_of(&["timeout", "init-timeout"])? {
            0 => Timer::RequestTimeout(self.id()?),
            _ => Timer::InitTimeout,
        })
    }

    fn outcome(&mut self) -> Result<Outcome, NotationError> {
        Ok(
            match self.one_of(&["reply", "cancelled", "disconnected"])? {
                0 => Outcome::Reply(self.reply()?),
                1 => Outcome::Cancelled(
                    [CancelCause::User, CancelCause::Timeout, CancelCause::Parent]
                        [self.one_of(&["user", "timeout", "parent"])?],
                ),
                _ => Outcome::Disconnected,
            },
        )
    }

    fn ignored(&mut self) -> Result<Ignored, NotationError> {
        let words = [
            "late-answer",
            "unknown-cancel",
            "cancel-after-answer",
            "unsupported-cancel",
            "repeated-cancel",
            "malformed-cancel",
            "stale-timer",
        ];
        Ok(match self.one_of(&words)? {
            0 => Ignored::LateAnswer(self.id()?),
            1 => Ignored::UnknownCancel(self.id()?),
            2 => Ignored::CancelAfterAnswer(self.id()?),
            3 => Ignored::UnsupportedCancel(self.id()?),
            4 => Ignored::RepeatedCancel(self.id()?),
            5 => Ignored::MalformedCancel,
            _ => Ignored::StaleTimer,
        })
    }

    fn anomaly(&mut self) -> Result<Anomaly, NotationError> {
        let words = [
            "unsolicited-response",
            "duplicate-response",
            "activity-after-answer",
            "duplicate-request-id",
            "unexpected-ack",
            "unknown-work",
        ];
        let which = self.one_of(&words)?;
        let id = self.id()?;
        Ok(match which {
            0 => Anomaly::UnsolicitedResponse(id),
            1 => Anomaly::DuplicateResponse(id),
            2 => Anomaly::ActivityAfterAnswer(id),
            3 => Anomaly::DuplicateRequestId(id),
            4 => Anomaly::UnexpectedAck(id),
            _ => Anomaly::UnknownWork(id),
        })
    }

    fn event(&mut self) -> Result<Event, NotationError> {
        match self.peek() {
            Some("network") => {
                self.at += 1;
                let dup = self.one_of(&["loses", "duplicates"])? == 1;
                let from = self.party()?;
                let msg = self.message()?;
                return Ok(if dup {
                    Event::Duplicated { from, msg }
                } else {
                    Event::Lost { from, msg }
                });
            }
            Some("end") => {
                self.at += 1;
                let quiescent = self.one_of(&["quiescent", "bounded"])? == 0;
                self.literal("open")?;
                let open_incoming = [self.count()?, self.count()?];
                return Ok(Event::End {
                    quiescent,
                    open_incoming,
                });
            }
            Some("client" | "server") => {}
            _ => return self.err("\"client\", \"server\", \"network\" or \"end\""),
        }
        let party = self.party()?;
        let verbs = [
            "receives",
            "command",
            "work-done",
            "work-progress",
            "timer-fired",
            "disconnected",
            "sends",
            "delivers",
            "starts",
            "aborts",
            "drops",
            "arms",
            "disarms",
            "refuses",
            "ignores",
            "anomaly",
            "crashes",
            "internal-cancel",
            "nests",
            "stream-closed",
            "stream-lost",
            "stream-resumed",
            "closes-stream",
            "sends-unmodelled",
        ];
        let input = |input| Event::Input { party, input };
        let output = |output| Event::Output { party, output };
        Ok(match self.one_of(&verbs)? {
            0 => input(Input::Receive(self.message()?)),
            1 => input(Input::Command(self.command()?)),
            2 => input(Input::WorkDone(self.id()?)),
            3 => input(Input::WorkProgress(self.id()?)),
            4 => input(Input::TimerFired(self.timer()?)),
            5 => input(Input::Disconnected),
            6 => output(Output::Send(self.message()?)),
            7 => {
                let id = self.id()?;
                output(Output::Deliver {
                    id,
                    outcome: self.outcome()?,
                })
            }
            8 => {
                self.literal("work")?;
                output(Output::StartWork(self.id()?))
            }
            9 => {
                self.literal("work")?;
                output(Output::AbortWork(self.id()?))
            }
            10 => output(Output::Dropped(self.id()?)),
            11 => output(Output::ArmTimer(self.timer()?)),
            12 => output(Output::DisarmTimer(self.timer()?)),
            13 => {
                let c = self.command()?;
                let words: Vec<&str> = REFUSALS.iter().map(|p| p.0).collect();
                output(Output::Refused(c, REFUSALS[self.one_of(&words)?].1))
            }
            14 => output(Output::Ignored(self.ignored()?)),
            15 => output(Output::Anomaly(self.anomaly()?)),
            16 => output(Output::Crashed),
            17 => input(Input::InternalCancel(self.id()?)),
            19 => input(Input::StreamClosed(self.id()?)),
            20 => input(Input::StreamLost(self.id()?)),
            21 => input(Input::StreamResumed(self.id()?)),
            22 => output(Output::CloseStream(self.id()?)),
            23 => Event::Unmodelled { party },
            _ => {
                let child = self.id()?;
                self.literal("under")?;
                output(Output::Nested {
                    parent: self.id()?,
                    child,
                })
            }
        })
    }
}

/// The opening of a session in this notation, for tests and vectors: the client's
/// `initialize` (id 0), answered by a server that supports cancellation.
pub const OPENING: [&str; 6] = [
    "client command initialize",
    "client sends request 0 initialize",
    "server receives request 0 initialize",
    "server sends response 0 initialized cancel-support true",
    "client receives response 0 initialized cancel-support true",
    "client delivers 0 reply initialized cancel-support true",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(line: &str) -> Event {
        let ev = parse(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(format(&ev), line, "canonical form of {line:?}");
        ev
    }

    #[test]
    fn every_form_round_trips() {
        let lines = [
            "client sends request 1 work",
            "server nests 2 under 1",
            "client delivers 2 cancelled parent",
            "server command send-nested 1",
            "server refuses send-nested 1 no-parent",
            "server receives request 0 initialize",
            "server sends response 0 initialized cancel-support false",
            "server sends response 1 partial",
            "server sends response 1 cancelled",
            "server sends response null error -32600",
            "client sends cancel \"7\"",
            "server receives malformed-cancel",
            "server sends cancel-ack \"1\" cancelled true",
            "server sends cancel-ack \"1\" cancelled false reason already-completed",
            "server sends cancel-ack \"1\" cancelled false reason not-initialized",
            "server sends activity 1",
            "client command initialize",
            "client command send",
            "client command cancel 0",
            "server work-done 1",
            "server work-progress 1",
            "client timer-fired timeout 1",
            "client timer-fired init-timeout",
            "client disconnected",
            "client delivers 1 reply full",
            "client delivers 1 reply error -32603",
            "client delivers 1 cancelled user",
            "client delivers 1 cancelled timeout",
            "client delivers 1 disconnected",
            "server starts work 1",
            "server aborts work 1",
            "server drops 1",
            "client arms timeout 1",
            "client disarms init-timeout",
            "client refuses cancel 1 not-negotiated",
            "client ignores late-answer 1",
            "server ignores stale-timer",
            "client anomaly duplicate-response 1",
            "server crashes",
            "network loses server response 1 full",
            "network duplicates client cancel 1",
            "end quiescent open 0 0",
            "end bounded open 2 1",
            "server stream-closed 1",
            "client stream-lost 1",
            "client stream-resumed 1",
            "client closes-stream 1",
        ];
        for line in lines {
            round_trip(line);
        }
    }

    #[test]
    fn ids_keep_their_json_type() {
        let num = round_trip("client sends cancel 7");
        let text = round_trip("client sends cancel \"7\"");
        assert_ne!(num, text);
        assert_ne!(num, round_trip("client sends session-cancel 7"));
        let spaced = round_trip("client sends cancel \"a b\"");
        assert_eq!(
            spaced,
            Event::Output {
                party: Party::Client,
                output: Output::Send(Message::Cancel {
                    id: RequestId::str("a b").unwrap(),
                    session: false,
                })
            }
        );
        assert_eq!(
            round_trip("client sends cancel null"),
            Event::Output {
                party: Party::Client,
                output: Output::Send(Message::Cancel {
                    id: RequestId::Null,
                    session: false,
                })
            }
        );
    }

    #[test]
    fn extra_spaces_are_allowed_and_the_reason_none_is_implied() {
        let a = parse("  server   sends cancel-ack \"1\" cancelled true reason none ").unwrap();
        assert_eq!(format(&a), "server sends cancel-ack \"1\" cancelled true");
    }

    fn refused(line: &str, word: usize, expected: &str, found: &str) {
        let e = parse(line).expect_err(line);
        assert_eq!(e.word, word, "{line:?}: {e}");
        assert!(e.expected.contains(expected), "{line:?}: {e}");
        assert_eq!(e.found, found, "{line:?}: {e}");
    }

    #[test]
    fn bad_lines_name_the_word_and_what_was_expected() {
        refused("", 1, "\"client\", \"server\"", "");
        refused("client sendz request 1 work", 2, "\"sends\"", "sendz");
        refused("client sends request 1", 5, "\"work\"", "");
        refused("client sends request one work", 4, "a request id", "one");
        refused(
            "client sends request 1 work now",
            6,
            "the end of the event",
            "now",
        );
        refused("server sends response 1 error x", 6, "an error code", "x");
        refused("client sends cancel \"7", 4, "a closing", "\"7");
        refused(
            "client sends cancel \"abcdefghijklmnopqrstuvwxyz\"",
            4,
            "at most 22 bytes",
            "\"abcdefghijklmnopqrstuvwxyz\"",
        );
        refused("end quiescent open 0 -1", 5, "a count", "-1");
        refused("server anomaly illegal 1", 3, "\"unknown-work\"", "illegal");
        refused("network loses nobody cancel 1", 3, "\"client\"", "nobody");
        let e = parse("client delivers 1 reply").unwrap_err();
        assert_eq!(
            e.to_string(),
            "word 5: expected one of \"full\", \"partial\", \"cancelled\", \"error\", \"initialized\"; the line ended"
        );
    }
}
