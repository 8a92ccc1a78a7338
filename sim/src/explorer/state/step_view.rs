//! A plain state as the step list both forms share reads it ([`StepView`]).

use cancelcheck_model::io::Timer;
use cancelcheck_model::{Message, Party, RequestId};

use super::Explorer;
use crate::explorer::fifo::MsgClass;
use crate::explorer::steps::{StepView, TimerOf};

impl StepView for Explorer {
    type Msg = Message;
    type Work = (Party, RequestId);
    type Timer = (Party, Timer);
    fn sent(&self) -> u8 {
        self.sent
    }
    fn client_ready(&self) -> bool {
        self.world.endpoint(Party::Client).is_ready()
    }
    fn cancels(&self, k: u8) -> u8 {
        self.cancels[usize::from(k)]
    }
    fn has_id(&self, k: u8) -> bool {
        self.ids[usize::from(k)].is_some()
    }
    fn queue(&self, to: Party) -> &[Message] {
        &self.net[to.index()]
    }
    fn is_request(&self, m: Message) -> bool {
        matches!(m, Message::Request { .. })
    }
    fn held(&self, to: Party, i: usize) -> bool {
        self.http.on() && to == Party::Client && self.http_held(i)
    }
    fn work(&self) -> &[(Party, RequestId)] {
        &self.work
    }
    fn progressed(&self) -> &[(Party, RequestId)] {
        &self.progressed
    }
    fn timers(&self) -> &[(Party, Timer)] {
        &self.timers
    }
    fn duplicates_left(&self) -> u8 {
        self.duplicates_left
    }
    fn malformed_left(&self) -> u8 {
        self.malformed_left
    }
    // Requests are numbered as `Explorer::request_number` numbers them.
    fn next_request(&self) -> u32 {
        match self.nested {
            true => self.tree_len() as u32 + 1,
            false => u32::from(self.sent) + 1,
        }
    }
    fn app_request(&self, k: u8) -> Option<u32> {
        match self.nested {
            true => Some(self.request_number(Party::Client, self.ids[usize::from(k)]?)),
            false => Some(u32::from(k) + 1),
        }
    }
    fn msg_request(&self, to: Party, m: Message) -> Option<u32> {
        self.message_request(to, &m)
    }
    fn msg_class(&self, to: Party, m: Message) -> MsgClass {
        self.class_of(to, &m)
    }
    fn work_of(&self, (p, id): (Party, RequestId)) -> (Party, u32) {
        (p, self.request_number(p.peer(), id))
    }
    fn timer_of(&self, (p, t): (Party, Timer)) -> (Party, TimerOf) {
        let what = match t {
            Timer::InitTimeout => TimerOf::Init,
            // Without trees a request never waits for a worker where the reduction applies,
            // and is answered on its own steps only.
            Timer::RequestTimeout(id) => TimerOf::Request(
                self.request_number(p, id),
                self.nested
                    && (self.world.endpoint(p.peer()).received(id)).is_some_and(|s| s.is_open()),
            ),
        };
        (p, what)
    }
}
