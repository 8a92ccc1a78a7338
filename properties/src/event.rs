//! The one event vocabulary every driver emits: the simulator, the explorer and the probe.
//!
//! An event is an endpoint's input or output, or something the network did. The checker reads
//! nothing else, so whatever produced a stream of events can be judged the same way.

use cancelcheck_model::{Input, Message, Output, Party};

/// One thing that happened, in the order it happened.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Event {
    /// `party` was fed `input` (a message received, a command, work finished, a timer).
    Input {
        /// Who.
        party: Party,
        /// What.
        input: Input,
    },
    /// `party` did `output` (a message put on the wire, an outcome delivered, work started...).
    Output {
        /// Who.
        party: Party,
        /// What.
        output: Output,
    },
    /// The network lost a message `from` sent.
    Lost {
        /// The sender.
        from: Party,
        /// The message.
        msg: Message,
    },
    /// The network will deliver a second copy of a message `from` sent.
    Duplicated {
        /// The sender.
        from: Party,
        /// The message.
        msg: Message,
    },
    /// `party` put on the wire a message the model has no term for: a request of a method
    /// it does not model, or a notification other than the dialect's cancels and activity.
    /// Only a judge of real sessions sees one; it tells nothing but when it was sent.
    Unmodelled {
        /// The sender.
        party: Party,
    },
    /// The run ended.
    End {
        /// Whether nothing was left to happen (true), or a bound cut the run short (false).
        quiescent: bool,
        /// Received requests each party still held at the end (client, server).
        open_incoming: [u32; 2],
    },
}
