//! Sentences and readings the rows of more than one dialect use: JSON-RPC 2.0's, which every
//! JSON-RPC dialect inherits, and the notes that read a sentence the same way in each.

pub(super) const ACP_MUST_ANSWER: &str =
    "MUST send one of these responses for the original request";
/// Why reusing a live id is a note where JSON-RPC alone speaks of ids.
pub(super) const LIVE_ID_HAZARD: &str = "a hazard, not a rule: while a message about the earlier request may still arrive, the id no longer tells the two apart, but 'used to correlate' states no duty on a requester's choice of ids";
pub(super) const RPC_SAME_ID: &str =
    "It MUST be the same as the value of the id member in the Request Object.";
pub(super) const RPC_NO_REPLY: &str = "The Server MUST NOT reply to a Notification";
pub(super) const UNKNOWN_ID_ELSEWHERE: &str = "a cancel for a request its receiver has received (held, or finished before the cancel arrived) is the race the sentence covers; one naming an id the receiver never received a request under is unknown to it, and unknown-id-cancel-ignored's";
pub(super) const UNKNOWN_ID_NO_RACE: &str = "an id the receiver never received a request under (never used, or its request overtaken by the cancel) is unknown to it, not the race of a cancel arriving 'after request processing has completed' that the MUST of 'Both parties MUST handle these race conditions gracefully' covers (unknown-cancel-harmless)";
pub(super) const CRASH_ANSWERS_NOTHING: &str = "stated without a keyword; a receiver that crashes on such a cancel leaves the requests it holds without the response the dialect's MUST owes each of them (stopping other work for it is exact-id-match's)";
pub(super) const RPC_CORRELATE: &str =
    "This member is used to correlate the context between the two objects.";
/// How JSON-RPC's sentence on a response's id reaches what a message acts on.
pub(super) const SAME_ID_ACTS: &str = "the sentence binds a response to the request whose id it carries; the catalog holds a cancel, and the work it stops, to the same correlation: stopping or answering as cancelled a request no cancel named breaks it (a cancel naming no request of its sender's is cancel-names-sent-request's)";
/// Why naming a request its sender never sent is a note where the text only describes the id.
pub(super) const NAMES_ITS_OWN: &str = "the cancel's schema says what its id is, without a keyword: a cancel under an id its sender never sent in that direction (a cancel passed on under the id of the request it came from) names none of its requests";
