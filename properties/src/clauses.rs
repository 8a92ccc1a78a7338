//! Clauses: every normative sentence of the texts, per dialect, with what becomes of it.
//!
//! A sentence is *judged* where the [`CATALOG`] quotes it (an application whose quotation is
//! the sentence or a part of it): those sentences are found from the catalog's quotations and
//! are never copied here. [`TABLE`] holds the rest: each normative sentence the catalog does
//! not quote, quoted word for word, with its [`Treatment`]: judged by invariants that cite
//! another sentence stating the same duty, not judgeable by any driver (and why), not
//! modelled (and what would model it), not an obligation on a party, or superseded by a fact
//! of the specs' README.
//!
//! [`segment`] splits a text into the units a reader calls sentences (see its documentation
//! for how markdown is read); [`strength_of`] says whether a unit is normative. The test
//! `properties/tests/clauses.rs` segments every text under `shared/specs/` and requires each
//! normative unit to be placed: covered by a catalog quotation or by a row of [`TABLE`].

use crate::invariant::{CATALOG, InvariantId, Strength, files};
use crate::vector::{Expect, VectorFile};
use cancelcheck_model::Dialect;

/// The text as quotations are compared: markdown emphasis, code ticks and link targets
/// dropped, typographic quotes made plain, white space folded.
pub fn normal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '`' => {}
            '’' | '‘' => out.push('\''),
            '“' | '”' => out.push('"'),
            // `[text](target)`: keep the text, drop the target.
            ']' if chars.peek() == Some(&'(') => {
                for c in chars.by_ref() {
                    if c == ')' {
                        break;
                    }
                }
            }
            '[' => {}
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `quote` stands in `text`, both compared [`normal`]ised: each ` ... `-separated
/// fragment, in order.
pub fn quoted_in(quote: &str, text: &str) -> bool {
    let text = normal(text);
    let mut from = 0;
    for part in quote.split(" ... ") {
        let part = normal(part);
        match text[from..].find(&part) {
            Some(at) => from += at + part.len(),
            None => return false,
        }
    }
    true
}

/// How strongly a sentence of a text binds, by the keywords it carries.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Keyword {
    /// MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT (and the ACP RFD's CANNOT and NO).
    Must,
    /// SHOULD, SHOULD NOT, RECOMMENDED.
    Should,
    /// MAY, OPTIONAL (and the ACP RFD's CAN and NOT required).
    May,
    /// No keyword: a sentence stated without one (a table row of the ABP text, a fact of the
    /// README) that the catalog or the table places all the same.
    None,
}

impl Keyword {
    /// `"MUST"`, `"SHOULD"`, `"MAY"` or `"-"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Keyword::Must => "MUST",
            Keyword::Should => "SHOULD",
            Keyword::May => "MAY",
            Keyword::None => "-",
        }
    }
}

/// The keywords a normative sentence carries, upper case and whole words: RFC 2119's MUST,
/// MUST NOT, REQUIRED, SHALL, SHALL NOT, SHOULD, SHOULD NOT, RECOMMENDED, NOT RECOMMENDED,
/// MAY and OPTIONAL, and the upper-case words the ACP RFD writes in their place (CANNOT, CAN,
/// and NO), each with its strength; [`strength_of`] also reads the RFD's "NOT required" as a
/// MAY.
pub const KEYWORDS: &[(&str, Keyword)] = &[
    ("MUST", Keyword::Must),
    ("REQUIRED", Keyword::Must),
    ("SHALL", Keyword::Must),
    ("CANNOT", Keyword::Must),
    ("NO", Keyword::Must),
    ("SHOULD", Keyword::Should),
    ("RECOMMENDED", Keyword::Should),
    ("MAY", Keyword::May),
    ("OPTIONAL", Keyword::May),
    ("CAN", Keyword::May),
];

/// The strongest keyword `s` carries (`Keyword::None` for none). A word counts only written in
/// capitals and standing alone (`NOT_INITIALIZED` is no `NOT`).
pub fn strength_of(s: &str) -> Keyword {
    let words: Vec<&str> = s
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let not_required = words
        .windows(2)
        .any(|w| w == ["NOT", "required"])
        .then_some(Keyword::May);
    words
        .iter()
        .filter_map(|w| KEYWORDS.iter().find(|(k, _)| k == w).map(|&(_, s)| s))
        .chain(not_required)
        .min()
        .unwrap_or(Keyword::None)
}

/// The strongest keyword `s` carries as a sentence of `file`: [`strength_of`], and, in LSP's
/// text ([`files::LSP`]), which writes its obligations in lower case and in words of its own,
/// also `must` and `is not allowed to` as MUST, `should` as SHOULD, `may` as MAY, in any case.
/// Other wordings of LSP's ("needs to", "is advised to", "can") carry no keyword.
pub fn strength_in(file: &str, s: &str) -> Keyword {
    let capitals = strength_of(s);
    if file != files::LSP {
        return capitals;
    }
    let words: Vec<String> = s
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let not_allowed = words
        .windows(2)
        .any(|w| w == ["not", "allowed"])
        .then_some(Keyword::Must);
    words
        .iter()
        .filter_map(|w| match w.as_str() {
            "must" => Some(Keyword::Must),
            "should" => Some(Keyword::Should),
            "may" => Some(Keyword::May),
            _ => None,
        })
        .chain(not_allowed)
        .chain([capitals])
        .min()
        .unwrap_or(Keyword::None)
}

/// One unit of a text: a sentence, a list item with the lead-ins it completes, or a table row.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Unit {
    /// The line (from 1) it starts on.
    pub line: usize,
    /// Its text as written, lead-ins first, lines joined by a space.
    pub text: String,
}

/// A block of lines while segmenting: a paragraph or a list item.
struct Block {
    line: usize,
    /// Indentation of a list item; `None` for a paragraph.
    indent: Option<usize>,
    text: String,
    /// Whether an item nested in it was read.
    has_items: bool,
}

impl Block {
    fn leads(&self) -> bool {
        self.text.trim_end().ends_with(':')
    }
}

/// A lead-in paragraph of the list being read: where it starts, its last sentence, and
/// whether an item took it.
struct Lead {
    line: usize,
    text: String,
    used: bool,
}

/// The state of [`segment`]: the open blocks (a paragraph, or a list item with its open
/// ancestors, by indentation), the lead-in paragraph of the list being read, and the units
/// so far.
#[derive(Default)]
struct Segmenter {
    stack: Vec<Block>,
    lead: Option<Lead>,
    units: Vec<Unit>,
}

impl Segmenter {
    /// Closes the innermost open block: emits its units, unless it is a lead-in (a paragraph
    /// ending with `:` becomes the list's lead-in; an item ending with `:` that has items
    /// emits nothing of its own: they carry it).
    fn close(&mut self) {
        let Some(b) = self.stack.pop() else { return };
        if b.indent.is_none() && b.leads() {
            // Its earlier sentences stand alone; its last leads the list.
            let mut s = sentences(&b.text);
            let last = s.pop().unwrap_or_default();
            let line = b.line;
            self.units
                .extend(s.into_iter().map(|text| Unit { line, text }));
            self.lead = Some(Lead {
                line,
                text: last,
                used: false,
            });
            return;
        }
        if b.leads() && b.has_items {
            return;
        }
        let mut prefix = String::new();
        if b.indent.is_some() {
            if let Some(l) = self.lead.as_mut() {
                prefix.push_str(&l.text);
                prefix.push(' ');
                l.used = true;
            }
            for a in self
                .stack
                .iter()
                .filter(|a| a.indent.is_some() && a.leads())
            {
                prefix.push_str(a.text.trim());
                prefix.push(' ');
            }
        }
        let mut s = sentences(&b.text).into_iter();
        if let Some(first) = s.next() {
            self.units.push(Unit {
                line: b.line,
                text: format!("{prefix}{first}"),
            });
        }
        self.units.extend(s.map(|text| Unit { line: b.line, text }));
    }

    /// Ends a list (or a paragraph): every open block, then a lead-in no item took, as a
    /// unit of its own.
    fn end_list(&mut self) {
        while !self.stack.is_empty() {
            self.close();
        }
        if let Some(Lead {
            line,
            text,
            used: false,
        }) = self.lead.take()
        {
            self.units.push(Unit { line, text });
        }
    }

    fn open(&mut self, line: usize, indent: Option<usize>, text: &str) {
        self.stack.push(Block {
            line,
            indent,
            text: text.to_string(),
            has_items: false,
        });
    }
}

fn list_marker(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start().len();
    let t = line.trim_start();
    for m in ["- ", "* ", "• ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some((indent, rest));
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = t[digits..].strip_prefix(". ")
    {
        return Some((indent, rest));
    }
    None
}

/// Splits `text` (whose lead-ins are already in front) into sentences: a sentence ends at
/// `.`, `?` or `!` (after which closing quotes, brackets and emphasis may follow) where white
/// space and then a capital letter, a quote or a code tick come next; and at `; `, which joins
/// clauses that each carry their own keyword ("The client MUST answer ...; the agent MAY
/// still send ...").
fn sentences(text: &str) -> Vec<String> {
    full_stops(text)
        .iter()
        .flat_map(|s| s.split("; "))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn full_stops(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        if matches!(chars[i], '.' | '?' | '!') {
            let mut j = i + 1;
            while j < chars.len() && matches!(chars[j], '"' | '\'' | ')' | '*' | '`' | '”') {
                j += 1;
            }
            if j < chars.len() && chars[j] == ' ' {
                let next = chars[j + 1..].iter().find(|c| **c != ' ');
                if next.is_some_and(|c| c.is_uppercase() || matches!(c, '"' | '`' | '“' | '*')) {
                    out.push(
                        chars[start..j]
                            .iter()
                            .collect::<String>()
                            .trim()
                            .to_string(),
                    );
                    start = j + 1;
                    i = j;
                }
            }
        }
        i += 1;
    }
    let rest: String = chars[start..].iter().collect();
    if !rest.trim().is_empty() {
        out.push(rest.trim().to_string());
    }
    out
}

/// Splits a markdown text into [`Unit`]s, kept simple:
/// - fenced code blocks (```` ``` ````) and headings (`#`) are skipped: the texts state
///   nothing normative in their examples and diagrams;
/// - a line starting with `|` is a table row and one unit (a `|---|` rule is skipped), and so
///   is a line holding ` | ` right after a table row (the ABP text lost some rows' first bar);
/// - a line starting with `- `, `* `, `• `, `+ ` or `N. ` (after any indentation) starts a list
///   item; any other line continues the item or paragraph above it; a blank line ends a
///   paragraph, not a list;
/// - a paragraph or item ending with `:` is a lead-in: it is put in front of the first
///   sentence of each item that follows it (of each item indented deeper, for an item), so
///   "Receivers SHOULD:" and its item "Free associated resources" make one unit; a lead-in no
///   item follows is a unit of its own;
/// - every other paragraph and item is split into sentences, and those at `; ` (see
///   `sentences`).
pub fn segment(text: &str) -> Vec<Unit> {
    let mut sg = Segmenter::default();
    let mut in_code = false;
    let mut last_was_row = false;
    let lines: Vec<&str> = text.lines().collect();
    for (n, raw) in lines.iter().copied().enumerate() {
        let line = n + 1;
        let t = raw.trim();
        if t.starts_with("```") {
            in_code = !in_code;
            if in_code {
                sg.end_list();
            }
            continue;
        }
        if in_code {
            continue;
        }
        if t.starts_with('#') {
            sg.end_list();
            last_was_row = false;
            continue;
        }
        if t.starts_with('|') || (last_was_row && t.contains(" | ")) {
            sg.end_list();
            last_was_row = true;
            if !t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
                sg.units.push(Unit {
                    line,
                    text: t.to_string(),
                });
            }
            continue;
        }
        last_was_row = false;
        if t.is_empty() {
            // A blank line ends a paragraph; a list goes on past it (items are often
            // separated by blank lines).
            if sg.stack.last().is_some_and(|b| b.indent.is_none()) {
                sg.close();
            }
            continue;
        }
        if let Some((indent, rest)) = list_marker(raw) {
            // Close the items at this depth or deeper, and any paragraph.
            while sg
                .stack
                .last()
                .is_some_and(|b| b.indent.is_none_or(|i| i >= indent))
            {
                sg.close();
            }
            if let Some(parent) = sg.stack.last_mut() {
                parent.has_items = true;
            }
            sg.open(line, Some(indent), rest);
            continue;
        }
        let indent = raw.len() - raw.trim_start().len();
        let after_blank = n > 0 && lines[n - 1].trim().is_empty();
        let continues = match sg.stack.last() {
            // A paragraph goes on to the next blank line.
            Some(Block { indent: None, .. }) => true,
            // An item goes on over lines indented as far as it is (the ABP text's items run
            // on at the margin), or, past a blank line, deeper.
            Some(Block {
                indent: Some(i), ..
            }) => {
                if after_blank {
                    indent > *i
                } else {
                    indent >= *i
                }
            }
            None => false,
        };
        if continues {
            let b = sg.stack.last_mut().expect("an open block");
            b.text.push(' ');
            b.text.push_str(t);
        } else {
            // A paragraph after a list ends the list.
            sg.end_list();
            sg.open(line, None, t);
        }
    }
    sg.end_list();
    // An item is emitted when it closes, after the items nested in it: put them in order.
    let mut units = sg.units;
    units.sort_by_key(|u| u.line);
    units
}

/// The normative units of `text`, a text of `file`: those [`strength_in`] finds a keyword in.
pub fn normative(file: &str, text: &str) -> Vec<Unit> {
    segment(text)
        .into_iter()
        .filter(|u| strength_in(file, &u.text) != Keyword::None)
        .collect()
}

/// The texts and the dialect each states: four texts under `shared/specs/` and their
/// `README.md`, whose units belong to the dialect their table row or fact names (see
/// [`readme_dialect`]), and, in this repository's `specs/` ([`files::in_repository`]), the
/// released MCP 2026-07-28 text (which replaces the draft under `shared/specs/`) and LSP's
/// sentences.
pub const TEXTS: &[(&str, Option<Dialect>)] = &[
    (files::ACP, Some(Dialect::Acp)),
    (files::RFD, Some(Dialect::AcpRfd)),
    (files::MCP25, Some(Dialect::Mcp20251125)),
    (files::MCP26, Some(Dialect::Mcp20260728)),
    (files::ABP, Some(Dialect::Abp)),
    (files::LSP, Some(Dialect::Lsp)),
    (files::README, None),
];

/// How the README's "Facts beyond the texts" name the dialect of each fact: by the words it
/// opens with in bold.
pub const README_FACTS: &[(&str, Dialect)] = &[
    ("ACP stable", Dialect::Acp),
    ("ACP prompt turns", Dialect::Acp),
    ("MCP 2025-11-25", Dialect::Mcp20251125),
    ("MCP 2026-07-28", Dialect::Mcp20260728),
    ("LSP 3.17", Dialect::Lsp),
    ("ABP", Dialect::Abp),
];

/// The units of the specs' README, each with the dialect it states a fact of: a row of the
/// dialect table (its first cell) or a sentence of a fact (the bold words the fact opens
/// with, [`README_FACTS`]); `None` for the rest of the README (its introduction, its list of
/// bug classes), which states no rule of a dialect.
pub fn readme_dialect(text: &str) -> Vec<(Option<Dialect>, Unit)> {
    let lines: Vec<&str> = text.lines().collect();
    segment(text)
        .into_iter()
        .map(|u| {
            let d = if u.text.starts_with('|') {
                u.text
                    .split('|')
                    .nth(1)
                    .and_then(|c| c.trim().trim_matches('`').parse::<Dialect>().ok())
            } else {
                // The fact this unit stands in: the nearest line above (or at) it that opens
                // a fact, within the facts' section.
                (0..u.line)
                    .rev()
                    .map(|i| lines[i])
                    .take_while(|l| !l.starts_with('#'))
                    .find_map(|l| {
                        let rest = l.strip_prefix("- **")?;
                        README_FACTS
                            .iter()
                            .find(|(name, _)| rest.starts_with(name))
                            .map(|&(_, d)| d)
                    })
            };
            (d, u)
        })
        .collect()
}

/// What becomes of a sentence the catalog does not quote (a row of [`TABLE`]).
#[derive(Clone, Copy, Debug)]
pub enum Treatment {
    /// Judged by these invariants, whose applications in the dialect cite another sentence
    /// that states the same duty (the catalog cites one sentence per invariant and dialect);
    /// `why` says how the two meet.
    Judged {
        /// The invariants (each a rule, MUST or SHOULD, in the dialect).
        by: &'static [InvariantId],
        /// How this sentence's duty is the one they judge.
        why: &'static str,
    },
    /// No driver can decide it: it speaks of what no message shows (a log, a user
    /// interface), and why.
    NotJudgeable(&'static str),
    /// A duty on a party that no invariant judges: what model change would judge it.
    NotModelled(&'static str),
    /// Not an obligation on a party: a permission of what is allowed anyway, a definition, a
    /// design note; why in a line.
    NotAnObligation(&'static str),
    /// No longer stands: a fact of the specs' README replaces it.
    Superseded {
        /// The README's fact, quoted word for word from `README.md`.
        by: &'static str,
        /// What changed.
        why: &'static str,
    },
}

/// A normative sentence the catalog does not quote, with what becomes of it.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The dialect whose text states it.
    pub dialect: Dialect,
    /// The text it is quoted from (a name of [`TEXTS`]).
    pub file: &'static str,
    /// The sentence, word for word (` ... ` joins a list's lead-in to its item).
    pub quote: &'static str,
    /// What becomes of it.
    pub status: Treatment,
}

macro_rules! row {
    ($d:ident, $file:expr, $quote:expr, $status:expr) => {
        Row {
            dialect: Dialect::$d,
            file: $file,
            quote: $quote,
            status: $status,
        }
    };
}

use InvariantId as I;
use Treatment::{Judged, NotAnObligation, NotJudgeable, NotModelled};
use files::{ABP, ACP, LSP, MCP25, MCP26, README, RFD};

const LOGS: &str = "a log is inside a party: no message shows whether it was written";
const UI: &str = "a user interface is outside the protocol: no message shows what it displays";
const MAY_IGNORE: &str = "a permission: the checker requires an ignored cancel to change nothing (unknown-cancel-harmless) and never requires one to be acted on";
/// Why the sentences of MCP 2026-07-28's subscriptions are not judged.
const SUBSCRIPTIONS: &str = "the model has no subscriptions: a subscriptions/listen request, a server that tears its stream down, and a rule on what each party sends then would judge it";
/// Why the shape of an MCP 2026-07-28 request id is not judged.
const ID_SHAPE: &str = "the model's requests always carry an integer or string id, and no fault sends one without an id or with null: such a request, and a rule on it, would judge it";
const INVALID_IGNORED: &str = "the duty unknown-cancel-harmless judges (a cancel for an unknown or finished request changes nothing; a malformed one is malformed-cancel-ignored's); the catalog cites the MUST of 'Both parties MUST handle these race conditions gracefully' for it, so it is held to MUST";

/// Every normative sentence of the texts that the catalog does not quote, per dialect, in
/// the order of its text (a dialect's own text, then the README's facts). A test requires
/// every quotation to stand in its file, and every sentence with a keyword to be placed
/// (here or by the catalog).
pub static TABLE: &[Row] = &[
    // ACP (stable).
    row!(
        Acp,
        ACP,
        "the implementation: ... MAY finish sending any pending notifications before responding",
        NotAnObligation(
            "a permission: activity before the answer is allowed (no-activity-after-answer forbids it only after)"
        )
    ),
    row!(
        Acp,
        ACP,
        "Cancellation MAY also be done explicitly on a per-feature basis within the protocol to cover specific scenarios, such as cancellation of a prompt turn.",
        NotAnObligation(
            "a permission the protocol takes up itself: session/cancel of a prompt turn, modelled, and judged by the README's prompt-turn facts"
        )
    ),
    row!(
        Acp,
        ACP,
        "When internal cancellation occurs, the executing party SHOULD: ... Ensure consistent behavior regardless of cancellation source",
        Judged {
            by: &[I::InternalCancelCode],
            why: "the behaviour the text names for both sources is the -32800 answer, which internal-cancel-code holds a request given up on its own to"
        }
    ),
    row!(
        Acp,
        README,
        "MAY stop; MUST send exactly one response: a result (possibly partial) or error -32800",
        Judged {
            by: &[
                I::SingleResolution,
                I::EventualResolution,
                I::CancelErrorCode
            ],
            why: "the README's summary of the text's 'MUST send one of these responses for the original request', which these judge"
        }
    ),
    row!(
        Acp,
        README,
        "Internal cancellation (timeouts, resource limits) SHOULD produce the same -32800.",
        Judged {
            by: &[I::InternalCancelCode],
            why: "the text's internal-cancellation SHOULD, restated"
        }
    ),
    row!(
        Acp,
        README,
        "MUST send one of these responses",
        Judged {
            by: &[
                I::SingleResolution,
                I::EventualResolution,
                I::CancelErrorCode
            ],
            why: "the stable page's sentence, as the README quotes it, of the duty the text states in the same words, which these judge"
        }
    ),
    row!(
        Acp,
        README,
        "internal cancellation \"SHOULD\" answer -32800",
        Judged {
            by: &[I::InternalCancelCode],
            why: "the stable page's internal-cancellation SHOULD, as the README quotes it"
        }
    ),
    // The ACP RFD.
    row!(
        AcpRfd,
        RFD,
        "A party MUST declare { cancellation: { request: true } } in their capabilities to handle $/cancelRequest notifications for their requests",
        NotModelled(
            "a party of the model handles cancels only if it declared support (it ignores one otherwise), but no invariant judges a party that handles a cancel it did not declare; a rule on the receiver of an undeclared cancel and a fault that honours one would"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "Until capabilities are exchanged, NO requests can be cancelled",
        Judged {
            by: &[I::CapabilityGated],
            why: "capability-gated: a cancel is sent only after initialize, and only to a peer that declared support"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "Any requests after initialize (which performs capability negotiation) CAN be cancelled if the recipient declared support",
        NotAnObligation(
            "a permission the drivers take: after initialize they cancel requests of a peer that declared support"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "The calling party (sender of $/cancelRequest) MUST: ... Only send $/cancelRequest if the recipient declared supportsRequestCancellation: true",
        Judged {
            by: &[I::CapabilityGated],
            why: "the same duty as the item before it, which the catalog cites"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "The calling party (sender of $/cancelRequest) MUST: ... Not send $/cancelRequest notifications to parties that don't support them",
        Judged {
            by: &[I::CapabilityGated],
            why: "the same duty as the item before it, which the catalog cites"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "The receiving party is NOT required to: ... Perform special handling for unsupported cancellation requests",
        NotAnObligation("relieves the receiver: nothing is owed, so nothing to judge")
    ),
    row!(
        AcpRfd,
        RFD,
        "The receiving party is NOT required to: ... Return custom errors for unsupported $/cancelRequest notifications",
        NotAnObligation("relieves the receiver: nothing is owed, so nothing to judge")
    ),
    row!(
        AcpRfd,
        RFD,
        "When internal cancellation occurs, the executing party SHOULD: ... Stop the request processing immediately",
        Judged {
            by: &[I::CascadeComplete, I::NoChildAfterCancel],
            why: "what of stopping a party shows: a request given up on its own has the requests sent on its behalf cancelled (cascade-complete) and no new one sent (no-child-after-cancel); both cite the text's MUST for a received cancel"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "When internal cancellation occurs, the executing party SHOULD: ... Ensure consistent behavior regardless of cancellation source",
        Judged {
            by: &[I::InternalCancelCode, I::CascadeComplete],
            why: "the behaviour the checker holds both sources to: the -32800 answer (internal-cancel-code) and the cascade (cascade-complete covers a request given up on its own)"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "Implementations MAY support handling cancellation by declaring supportsRequestCancellation: true",
        NotAnObligation(
            "a permission; the drivers try both declarations (the explorer starts from each)"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "If an implementation declares support, it MUST handle $/cancelRequest notifications for its requests",
        Judged {
            by: &[
                I::CancelHonoured,
                I::SingleResolution,
                I::EventualResolution
            ],
            why: "handling is what the Cancellation Processing section spells out: cancel (cancel-honoured) and answer once (single-resolution, eventual-resolution)"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "Any requests after initialize CAN be cancelled if the recipient declared support",
        NotAnObligation(
            "a permission the drivers take: after initialize they cancel requests of a peer that declared support"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "When cancellation is supported: ... Implementations MUST respond with either an error or valid response",
        Judged {
            by: &[I::SingleResolution, I::EventualResolution],
            why: "the text's 'MUST send one of these responses for the original request', restated"
        }
    ),
    row!(
        AcpRfd,
        RFD,
        "When cancellation is supported: ... Implementations MAY choose how quickly to honor cancellation requests",
        NotAnObligation(
            "a permission, read with 'MUST cancel': a receiver may take its time to stop, but one that answers the full result after the cancel arrived breaks cancel-honoured"
        )
    ),
    row!(
        AcpRfd,
        RFD,
        "When cancellation is supported: ... Implementations MAY return partial results instead of errors when appropriate",
        NotAnObligation("a permission: the `partial` behaviour takes it and passes")
    ),
    row!(
        AcpRfd,
        README,
        "MUST cancel; MUST send one response: error -32800 or a valid result | yes: `cancellation: { request: true }`; sender MUST check; none before `initialize` completes",
        Judged {
            by: &[
                I::CancelHonoured,
                I::SingleResolution,
                I::EventualResolution,
                I::CancelErrorCode,
                I::CapabilityGated,
                I::InitializeNotCancelled
            ],
            why: "the README's summary of the text's duties, each judged under the text's own sentence"
        }
    ),
    // MCP 2025-11-25.
    row!(
        Mcp20251125,
        MCP25,
        "Receivers MAY ignore cancellation notifications if: ... The referenced request is unknown",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Receivers MAY ignore cancellation notifications if: ... Processing has already completed",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Receivers MAY ignore cancellation notifications if: ... The request cannot be cancelled",
        NotAnObligation(
            "a permission the model never uses: every request it sends can be cancelled (the catalog's note on no-answer-after-cancel)"
        )
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Both parties SHOULD log cancellation reasons for debugging",
        NotJudgeable(LOGS)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Application UIs SHOULD indicate when cancellation is requested",
        NotJudgeable(UI)
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Invalid cancellation notifications SHOULD be ignored: ... Unknown request IDs",
        Judged {
            by: &[I::UnknownCancelHarmless],
            why: INVALID_IGNORED
        }
    ),
    row!(
        Mcp20251125,
        MCP25,
        "Invalid cancellation notifications SHOULD be ignored: ... Already completed requests",
        Judged {
            by: &[I::UnknownCancelHarmless],
            why: INVALID_IGNORED
        }
    ),
    row!(
        Mcp20251125,
        README,
        "SHOULD stop and SHOULD NOT respond; MAY ignore unknown/completed; malformed SHOULD be ignored | no | no (MUST NOT)",
        Judged {
            by: &[
                I::NoActivityAfterCancel,
                I::NoAnswerAfterCancel,
                I::UnknownCancelHarmless,
                I::MalformedCancelIgnored,
                I::InitializeNotCancelled
            ],
            why: "the README's summary of the text's duties, each judged under the text's own sentence"
        }
    ),
    // MCP 2026-07-28 as released (specs/mcp-2026-07-28-cancellation.md: the cancellation page,
    // the sentences of other pages it refers to, the schema's comments), and the README's facts.
    row!(
        Mcp20260728,
        MCP26,
        "A client SHOULD send a cancellation notification to indicate that a request it previously issued should be terminated.",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "whether to cancel at all is the client's choice (cancellation is optional); a client that gives a request up has cancelled it, and on stdio the transport section's MUST, which cancel-sent-on-give-up quotes, has it send this notification: held to that MUST"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "A server MUST send notifications/cancelled referencing a subscriptions/listen request ID when it tears down that subscription stream",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Implementations SHOULD establish timeouts for all sent requests, to prevent hung connections and resource exhaustion.",
        NotModelled(
            "the model's requesters set a timer where the workload asks for one (workload timeouts, explore --timeouts): a requester that sends a request without one, and a rule that every request has one, would judge it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "When the request has not received a success or error response within the timeout period, the sender SHOULD cancel the request and stop waiting for a response.",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "a client whose timeout fires and that stops waiting has given the request up: on stdio the transport section's MUST, which cancel-sent-on-give-up quotes, has it send the notification (the fault gives-up-silently does not); held to that MUST"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "SDKs and other middleware SHOULD allow these timeouts to be configured on a per-request basis.",
        NotJudgeable(
            "what an SDK lets its user configure is its programming interface: no message shows it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Implementations MAY choose to reset the timeout clock when receiving a progress notification corresponding to the request, as this implies that work is actually happening.",
        NotAnObligation(
            "a permission: the model's timer is not reset by progress, and the checker never requires it to be"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "However, implementations SHOULD always enforce a maximum timeout, regardless of progress notifications, to limit the impact of a misbehaving client or server.",
        NotModelled(
            "the model's timer is never reset by progress, so it is its maximum: a requester that extends its timer on progress without bound, and a rule on it, would judge it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Server-sent cancellation notifications MUST reference a subscriptions/listen request, to terminate that subscription stream",
        Judged {
            by: &[I::CancelFromAllowedParty],
            why: "a server's cancel of any other request breaks it, and the model has no subscriptions/listen, so every cancel a server sends does: cancel-from-allowed-party, which quotes the page's 'Servers MUST NOT send notifications/cancelled for any other purpose'"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers receiving cancellation notifications SHOULD: ... Not send a response for the cancelled request",
        Judged {
            by: &[I::NoAnswerAfterCancel],
            why: "the page's SHOULD of the duty the transport pages state as a MUST NOT ('MUST NOT send any further messages for it'), which no-answer-after-cancel quotes from the stdio page: held to that MUST"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MAY ignore cancellation notifications if: ... The referenced request is unknown",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MAY ignore cancellation notifications if: ... Processing has already completed",
        NotAnObligation(MAY_IGNORE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MAY ignore cancellation notifications if: ... The request cannot be cancelled",
        NotAnObligation(
            "a permission the model never uses: every request it sends can be cancelled"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Both parties SHOULD log cancellation reasons for debugging",
        NotJudgeable(LOGS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Application UIs SHOULD indicate when cancellation is requested",
        NotJudgeable(UI)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Invalid cancellation notifications SHOULD be ignored: ... Unknown request IDs",
        Judged {
            by: &[I::UnknownCancelHarmless],
            why: INVALID_IGNORED
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Invalid cancellation notifications SHOULD be ignored: ... Already completed requests",
        Judged {
            by: &[I::UnknownCancelHarmless],
            why: INVALID_IGNORED
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Requests MUST include a string or integer ID.",
        NotModelled(ID_SHAPE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Unlike base JSON-RPC, the ID MUST NOT be null.",
        NotModelled(ID_SHAPE)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "The request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for.",
        NotModelled(
            "not at its strength: no-live-id-reuse reports a reuse while a message about the earlier request may still arrive as the README's hazard, a note, since a cancelled request never gets a response and when its id may be reused is unstated; a requester that reuses the id of a request it never cancelled and still awaits breaks this MUST and is reported only as that note. Telling the two apart, and a MUST for the second, would judge it"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Result responses MUST include the same ID as the request they correspond to.",
        Judged {
            by: &[I::ExactIdMatch],
            why: "an answer carrying another id than its request's (the fault id-type-confusion answers \"7\" for 7) names no request or another: exact-id-match, which the catalog quotes from the cancel's side"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "it SHOULD send a successful subscriptions/listen response to signal a graceful end (see Graceful Closure), then close the stream.",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "When the server ends a subscription on its own initiative (for example, during shutdown), it SHOULD respond to the original subscriptions/listen request with a completion result before closing the stream.",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "which the client MAY treat as a trigger to reconnect.",
        NotAnObligation("a permission of subscriptions, which the model does not have")
    ),
    row!(
        Mcp20260728,
        MCP26,
        "On stdio, if the connection is terminated and then re-established, the client MUST re-send subscriptions/listen to re-establish its subscriptions",
        NotModelled(SUBSCRIPTIONS)
    ),
    row!(
        Mcp20260728,
        MCP26,
        "At the release tag 2026-07-28 (commit 5f5440bb26a6) the two server sentences read:",
        NotModelled(
            "the wording of the two subscriptions sentences above at the release tag, quoted by the file: the model has no subscriptions, and a server that tears a subscriptions/listen stream down, with a rule on what it sends then, would judge them"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "These sentences and the cancellation page's",
        NotAnObligation(
            "the file's note that the subscriptions page and the cancellation page describe one event differently (modelcontextprotocol/modelcontextprotocol issue #3348); the page's sentence it recalls is placed above"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Closing the SSE response stream MUST be treated by the server as cancellation of that request.",
        Judged {
            by: &[I::CloseIsCancel],
            why: "the Streamable HTTP page's sentence of the duty close-is-cancel quotes from the cancellation page ('The server MUST treat a client disconnect as cancellation of that request')"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "The server SHOULD stop work on the cancelled request as soon as practical and MUST NOT send any further messages for it.",
        Judged {
            by: &[I::CloseIsCancel],
            why: "on Streamable HTTP the cancelled request's stream is closed, so nothing more reaches the client on it: close-is-cancel (MUST) judges a server that works on after reading the close (the stdio page's sentence in the same words is no-answer-after-cancel's and no-activity-after-cancel's)"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "To cancel an in-flight request, the client MUST send a notifications/cancelled notification referencing the request's ID.",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "the stdio page's sentence of the duty cancel-sent-on-give-up quotes from the cancellation page's transport section"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "This MUST correspond to the ID of a request the client previously issued.",
        Judged {
            by: &[I::ExactIdMatch],
            why: "the schema's words for the page's 'Were previously issued by the client', which exact-id-match quotes"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "This MAY be logged or presented to the user.",
        NotAnObligation(
            "a permission about the reason, which no message shows being logged or displayed"
        )
    ),
    row!(
        Mcp20260728,
        MCP26,
        "Servers MUST NOT use this notification to cancel any other request.",
        Judged {
            by: &[I::CancelFromAllowedParty],
            why: "the schema's words for the page's 'Servers MUST NOT send notifications/cancelled for any other purpose', which cancel-from-allowed-party quotes"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "The request SHOULD still be in-flight, but due to communication latency, it is always possible that this notification MAY arrive after the request has already finished.",
        Judged {
            by: &[I::CancelOnlyInProgress],
            why: "the schema's SHOULD of what the page states as a MUST ('Are believed to still be in-progress'), which cancel-only-in-progress quotes: held to that MUST; a cancel that crosses the answer on its way is not judged, as the sentence's second half allows"
        }
    ),
    row!(
        Mcp20260728,
        MCP26,
        "This notification indicates that the result will be unused, so any associated processing SHOULD cease.",
        Judged {
            by: &[I::CascadeComplete],
            why: "the schema's words for the page's 'Stop processing the cancelled request' (SHOULD), which cascade-complete quotes: the requests a handler sent on the cancelled request's behalf are part of its processing"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "MUST NOT send any further message for the request",
        Judged {
            by: &[
                I::NoAnswerAfterCancel,
                I::NoActivityAfterCancel,
                I::NoChildAfterCancel
            ],
            why: "the README's table row of the stdio page's 'MUST NOT send any further messages for it', which these judge"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "stdio: the client MUST send notifications/cancelled, the server MUST NOT send any further message for that request.",
        Judged {
            by: &[
                I::CancelSentOnGiveUp,
                I::NoAnswerAfterCancel,
                I::NoActivityAfterCancel,
                I::NoChildAfterCancel
            ],
            why: "the README's summary of the released text's transport sentences ('The client MUST send a notifications/cancelled notification referencing the request ID'; 'MUST NOT send any further messages for it'), which these judge under those sentences"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "Streamable HTTP: closing the request's SSE stream is the cancel",
        Judged {
            by: &[I::CloseIsCancel],
            why: "the README's summary of the text's 'The server MUST treat a client disconnect as cancellation of that request', which close-is-cancel judges (the client's half, a close sent as the cancel, is how the model's client cancels there)"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "A client SHOULD send a cancellation notification",
        Judged {
            by: &[I::CancelSentOnGiveUp],
            why: "the README's quotation of the released page's sentence, placed under the page (mcp-2026-07-28-cancellation.md) and held to the transport section's MUST"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "A server MUST send notifications/cancelled referencing a subscriptions/listen request ID when it tears down that subscription stream ... Servers MUST NOT send notifications/cancelled for any other purpose",
        Judged {
            by: &[I::CancelFromAllowedParty],
            why: "the README's quotation of the released page's sentences: cancel-from-allowed-party quotes the second from the page; the first, a duty of subscriptions, the model does not have"
        }
    ),
    row!(
        Mcp20260728,
        README,
        "The client SHOULD ignore any response to the cancelled request that arrives afterward",
        Judged {
            by: &[I::LateAnswerIgnored],
            why: "the README's quotation of the released page's sentence, which late-answer-ignored quotes from the page"
        }
    ),
    // LSP 3.17: the sentences this repository quotes (specs/lsp-3.17.md).
    row!(
        Lsp,
        LSP,
        "A server should NOT send this error code if it detects a content change in it unprocessed messages.",
        NotModelled(
            "the model has no documents and no content changes: a change notification queued behind a request, and a rule that the server does not answer that request ContentModified for it, would judge it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "If a client decides that a result is not of any use anymore the client should cancel the request.",
        NotJudgeable(
            "whether a result is still of use is the client's own judgement: no message shows it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "servers should therefore not decide by themselves to cancel requests simply due to that fact that a state change notification is detected in the queue.",
        NotModelled(
            "the model has no state change notifications: one queued behind a request, and a rule that the server does not give the request up for it alone, would judge it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "If clients receive a ContentModified error, it generally should not show it in the UI for the end-user.",
        NotJudgeable(UI)
    ),
    row!(
        Lsp,
        LSP,
        "If the server receives a request or notification before the initialize request it should act as follows: ... For a request the response should be an error with code: -32002.",
        NotModelled(
            "the model's correct client sends nothing before initialize is answered, and its server works on a request it reads before initialize (only the faulty sends-before-initialize client makes one, which no-request-before-initialize fails): a server that answers such a request -32002, and a rule that it does, would judge it"
        )
    ),
    row!(
        Lsp,
        LSP,
        "If the server receives a request or notification before the initialize request it should act as follows: ... Notifications should be dropped, except for the exit notification.",
        NotModelled(
            "as the -32002 answer before it: the model's server has no rule for what it reads before initialize"
        )
    ),
    row!(
        Lsp,
        LSP,
        "In addition the server is not allowed to send any requests or notifications to the client until it has responded with an InitializeResult",
        Judged {
            by: &[I::NoRequestBeforeInitialize],
            why: "the server's half of the duty whose client half the catalog cites: no-request-before-initialize holds the server to sending no request before its answer to initialize (the notifications and the window/showMessageRequest the sentence excepts are not modelled)"
        }
    ),
    // ABP: its text states its rules in tables, without keywords.
    row!(
        Abp,
        ABP,
        "Cancel already-completed call | Return { cancelled: false, reason: 'Operation already completed' }",
        Judged {
            by: &[I::AckAgreesWithOutcome, I::CancelResultPerTable],
            why: "the acknowledgement's cancelled: false agrees with a call that completed (ack-agrees-with-outcome), and says it completed, not that it was never found (cancel-result-per-table, which cites the table's row on a cancel without a session)"
        }
    ),
    row!(
        Abp,
        ABP,
        "Cancel already-cancelled call | Return { cancelled: true } (idempotent)",
        Judged {
            by: &[I::CancelIdempotent],
            why: "the idempotency the catalog cites from the row 'Multiple cancels for same callId'"
        }
    ),
    row!(
        Abp,
        ABP,
        "Apps cannot distinguish between timeout-triggered and signal-triggered cancellation (and SHOULD NOT need to).",
        NotAnObligation(
            "a design note: a timeout reaches the app as the same capabilities/cancel, as the model sends it"
        )
    ),
    row!(
        Abp,
        README,
        "answers the cancel with `{callId, cancelled, reason?}`; the call's result carries `cancelled: true` iff it was cancelled",
        Judged {
            by: &[I::AckAgreesWithOutcome, I::CancelResultPerTable],
            why: "the README's summary of the text's edge cases: every cancel is answered, as the table says (cancel-result-per-table), and the acknowledgement agrees with the call's result (ack-agrees-with-outcome)"
        }
    ),
];

/// Lead-ins the catalog's quotations leave out: where the catalog quotes a list item without
/// the words that introduce it and carry its keyword, the clause is shown with them:
/// `(file, the catalog's quotation, the lead-in)`, the lead-in quoted word for word.
pub const LEAD_INS: &[(&str, &str, &str)] = &[
    (
        MCP26,
        "Stop processing the cancelled request",
        "Servers receiving cancellation notifications SHOULD:",
    ),
    (
        MCP25,
        "Were previously issued in the same direction",
        "Cancellation notifications MUST only reference requests that:",
    ),
    (
        MCP26,
        "Were previously issued by the client",
        "Cancellation notifications MUST only reference requests that:",
    ),
];

/// What becomes of a clause, as `cancelcheck clauses` reports it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Disposition {
    /// An invariant that is a rule (MUST or SHOULD) in the dialect judges it.
    Judged,
    /// Only races cite it: the drivers must reach what it describes, and no rule judges it.
    Exercised,
    /// No driver can decide it.
    NotJudgeable,
    /// A duty no invariant judges.
    NotModelled,
    /// Not an obligation on a party.
    NotAnObligation,
    /// A fact of the specs' README replaces it.
    Superseded,
}

impl Disposition {
    /// Every state, in the order reports list them.
    pub const ALL: [Disposition; 6] = [
        Disposition::Judged,
        Disposition::Exercised,
        Disposition::NotJudgeable,
        Disposition::NotModelled,
        Disposition::NotAnObligation,
        Disposition::Superseded,
    ];

    /// `"judged"`, `"exercised"`, `"not-judgeable"`, `"not-modelled"`,
    /// `"not-an-obligation"` or `"superseded"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Judged => "judged",
            Disposition::Exercised => "exercised",
            Disposition::NotJudgeable => "not-judgeable",
            Disposition::NotModelled => "not-modelled",
            Disposition::NotAnObligation => "not-an-obligation",
            Disposition::Superseded => "superseded",
        }
    }
}

/// An invariant that judges (or, a race, exercises) a clause, with the vectors that show it.
#[derive(Clone, Debug)]
pub struct Judge {
    /// The invariant.
    pub invariant: InvariantId,
    /// Its strength in the dialect (`COVERAGE` for a race).
    pub strength: Strength,
    /// The file and the quotation the catalog cites for it in the dialect: this clause's own,
    /// or, for a clause of [`TABLE`], the other sentence that states the same duty.
    pub cites: (&'static str, &'static str),
    /// The names of the dialect's vectors that break it, and that honour it (a rule).
    pub breaks: Vec<String>,
    /// See `breaks`.
    pub honours: Vec<String>,
    /// The names of the vectors that reach the race, and that come closest without (a race).
    pub reaches: Vec<String>,
    /// See `reaches`.
    pub misses: Vec<String>,
}

impl Judge {
    /// Whether it is a rule (MUST or SHOULD), not a race.
    pub fn is_rule(&self) -> bool {
        self.strength != Strength::Coverage
    }

    /// Whether vectors show it both ways: one that breaks it and one that honours it (for a
    /// race, one that reaches it and one that misses it).
    pub fn both_ways(&self) -> bool {
        if self.is_rule() {
            !self.breaks.is_empty() && !self.honours.is_empty()
        } else {
            !self.reaches.is_empty() && !self.misses.is_empty()
        }
    }
}

/// One normative sentence (or the part of one the catalog quotes) of a dialect, with what
/// becomes of it.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The dialect.
    pub dialect: Dialect,
    /// The text it is quoted from.
    pub file: &'static str,
    /// The quotation (` ... ` joins fragments that stand in this order).
    pub quote: String,
    /// The keyword the quotation carries.
    pub strength: Keyword,
    /// What becomes of it.
    pub state: Disposition,
    /// The invariants that judge or exercise it (empty unless judged or exercised).
    pub judges: Vec<Judge>,
    /// Why, for a clause of [`TABLE`] and for one only races cite ([`EXERCISED`]).
    pub why: Option<&'static str>,
    /// The README's fact that replaces it, for a superseded clause.
    pub superseded_by: Option<&'static str>,
    /// Whether the catalog quotes it (else it is a row of [`TABLE`]).
    pub in_catalog: bool,
}

impl Clause {
    /// Judged, and every rule that judges it is shown both ways by the vectors.
    pub fn judged_both_ways(&self) -> bool {
        self.state == Disposition::Judged
            && self
                .judges
                .iter()
                .filter(|j| j.is_rule())
                .all(Judge::both_ways)
    }
}

/// The clauses of a list, counted by what becomes of them.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Counts {
    /// Every clause.
    pub clauses: usize,
    /// Judged by a rule.
    pub judged: usize,
    /// Of those, shown both ways by the vectors.
    pub judged_both_ways: usize,
    /// Cited by races only.
    pub exercised: usize,
    /// Not judgeable by any driver.
    pub not_judgeable: usize,
    /// Not modelled.
    pub not_modelled: usize,
    /// Not an obligation.
    pub not_an_obligation: usize,
    /// Superseded.
    pub superseded: usize,
}

impl Counts {
    /// The counts of `clauses`.
    pub fn of(clauses: &[Clause]) -> Counts {
        let mut c = Counts {
            clauses: clauses.len(),
            ..Counts::default()
        };
        for cl in clauses {
            match cl.state {
                Disposition::Judged => c.judged += 1,
                Disposition::Exercised => c.exercised += 1,
                Disposition::NotJudgeable => c.not_judgeable += 1,
                Disposition::NotModelled => c.not_modelled += 1,
                Disposition::NotAnObligation => c.not_an_obligation += 1,
                Disposition::Superseded => c.superseded += 1,
            }
            c.judged_both_ways += usize::from(cl.judged_both_ways());
        }
        c
    }
}

/// Why a clause only races cite is not judged.
pub const EXERCISED: &str = "only races cite it: a run must reach the situation it describes (else its verdict is vacuous), but no rule judges what a party does there";

/// `b` merged into `a` where both quote one sentence: one holds the other, or (single
/// fragments) the end of one is the start of the other, four words or more.
fn merge(a: &str, b: &str) -> Option<String> {
    if quoted_in(b, a) {
        return Some(a.to_string());
    }
    if quoted_in(a, b) {
        return Some(b.to_string());
    }
    if a.contains(" ... ") || b.contains(" ... ") {
        return None;
    }
    let (a, b) = (normal(a), normal(b));
    let overlap = |a: &str, b: &str| {
        let (aw, bw): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
        (4..=aw.len().min(bw.len()))
            .rev()
            .find(|&k| aw[aw.len() - k..] == bw[..k])
            .map(|k| [&aw[..], &bw[k..]].concat().join(" "))
    };
    overlap(&a, &b).or_else(|| overlap(&b, &a))
}

/// The catalog's quotation of `file` as a clause shows it: with its lead-in ([`LEAD_INS`]).
fn with_lead_in(file: &str, quote: &'static str) -> String {
    match LEAD_INS.iter().find(|(f, q, _)| *f == file && *q == quote) {
        Some((_, q, lead)) => format!("{lead} ... {q}"),
        None => quote.to_string(),
    }
}

fn judge(dialect: Dialect, id: InvariantId, vectors: &[VectorFile]) -> Option<Judge> {
    let app = id.info().application(dialect)?;
    let mut j = Judge {
        invariant: id,
        strength: app.strength,
        cites: (app.clause.file, app.clause.clause),
        breaks: Vec::new(),
        honours: Vec::new(),
        reaches: Vec::new(),
        misses: Vec::new(),
    };
    let file = vectors.iter().find(|f| f.dialect == dialect);
    for v in file
        .into_iter()
        .flat_map(|f| &f.vectors)
        .filter(|v| v.invariant == id)
    {
        let list = match v.expect {
            Expect::Breaks => &mut j.breaks,
            Expect::Honours => &mut j.honours,
            Expect::Reaches => &mut j.reaches,
            Expect::Misses => &mut j.misses,
        };
        list.push(v.name.clone());
    }
    Some(j)
}

/// Every clause of `dialect`: the catalog's quotations (those of one sentence merged into one
/// clause), then the rows of [`TABLE`], by file (the dialect's own text, the README, the
/// JSON-RPC sentences); each judge with the names of its vectors in `vectors` (the shipped
/// files, [`VectorFile::shipped`]).
pub fn clauses(dialect: Dialect, vectors: &[VectorFile]) -> Vec<Clause> {
    // The catalog's quotations, merged where they quote one sentence.
    let mut groups: Vec<(&'static str, String, Vec<InvariantId>)> = Vec::new();
    for inv in CATALOG.iter() {
        let Some(a) = inv.application(dialect) else {
            continue;
        };
        let quote = with_lead_in(a.clause.file, a.clause.clause);
        let at = groups
            .iter()
            .position(|(f, q, _)| *f == a.clause.file && merge(q, &quote).is_some());
        match at {
            Some(i) => {
                let g = &mut groups[i];
                g.1 = merge(&g.1, &quote).expect("merged above");
                g.2.push(inv.id);
            }
            None => groups.push((a.clause.file, quote, vec![inv.id])),
        }
    }
    // A later quotation may join two groups.
    let mut i = 0;
    while i < groups.len() {
        let join = (i + 1..groups.len())
            .find(|&k| groups[k].0 == groups[i].0 && merge(&groups[i].1, &groups[k].1).is_some());
        match join {
            Some(k) => {
                let (_, q, ids) = groups.remove(k);
                groups[i].1 = merge(&groups[i].1, &q).expect("merged above");
                groups[i].2.extend(ids);
            }
            None => i += 1,
        }
    }
    let mut out: Vec<Clause> = groups
        .into_iter()
        .map(|(file, quote, ids)| {
            let judges: Vec<Judge> = ids
                .into_iter()
                .filter_map(|id| judge(dialect, id, vectors))
                .collect();
            let (state, why) = if judges.iter().any(Judge::is_rule) {
                (Disposition::Judged, None)
            } else {
                (Disposition::Exercised, Some(EXERCISED))
            };
            Clause {
                dialect,
                file,
                strength: strength_in(file, &quote),
                quote,
                state,
                judges,
                why,
                superseded_by: None,
                in_catalog: true,
            }
        })
        .collect();
    for r in TABLE.iter().filter(|r| r.dialect == dialect) {
        let (state, judges, why, superseded_by) = match r.status {
            Treatment::Judged { by, why } => (
                Disposition::Judged,
                by.iter()
                    .filter_map(|&id| judge(dialect, id, vectors))
                    .collect(),
                why,
                None,
            ),
            Treatment::NotJudgeable(why) => (Disposition::NotJudgeable, Vec::new(), why, None),
            Treatment::NotModelled(why) => (Disposition::NotModelled, Vec::new(), why, None),
            Treatment::NotAnObligation(why) => {
                (Disposition::NotAnObligation, Vec::new(), why, None)
            }
            Treatment::Superseded { by, why } => {
                (Disposition::Superseded, Vec::new(), why, Some(by))
            }
        };
        out.push(Clause {
            dialect,
            file: r.file,
            quote: r.quote.to_string(),
            strength: strength_in(r.file, r.quote),
            state,
            judges,
            why: Some(why),
            superseded_by,
            in_catalog: false,
        });
    }
    let rank = |f: &str| match f {
        f if f == files::README => 1,
        f if f == files::JSONRPC => 2,
        _ => 0,
    };
    // A stable sort: within a file, the catalog's clauses in catalog order, then the table's.
    out.sort_by_key(|c| rank(c.file));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &str) -> Vec<String> {
        segment(t).into_iter().map(|u| normal(&u.text)).collect()
    }

    #[test]
    fn lead_ins_complete_their_items_and_code_is_skipped() {
        let t = "# Title\n\nReceivers **SHOULD**:\n\n- Stop processing\n- Free resources\n\n\
                 Then more. And a second.\n\n```json\n{\"MUST\": 1}\n```\n\
                 1. Notifications **MUST** reference requests that:\n   - Were issued\n\
                 2. The `initialize` request **MUST NOT** be cancelled\n";
        assert_eq!(
            texts(t),
            [
                "Receivers SHOULD: Stop processing",
                "Receivers SHOULD: Free resources",
                "Then more.",
                "And a second.",
                "Notifications MUST reference requests that: Were issued",
                "The initialize request MUST NOT be cancelled",
            ]
        );
    }

    #[test]
    fn table_rows_items_that_run_on_and_clauses_after_a_semicolon() {
        let t = "| a | b |\n|---|---|\n| x MUST | y |\ntimeout | z |\n- Item starts\nand runs on\n\
                 A paragraph MUST hold; it MAY not.\n  • indented item\nA paragraph at the margin.";
        assert_eq!(
            texts(t),
            [
                "| a | b |",
                "| x MUST | y |",
                "timeout | z |",
                "Item starts and runs on A paragraph MUST hold",
                "it MAY not.",
                "indented item",
                "A paragraph at the margin.",
            ]
        );
        let lines: Vec<usize> = segment(t).iter().map(|u| u.line).collect();
        assert_eq!(lines, [1, 3, 4, 5, 5, 8, 9]);
    }

    #[test]
    fn keywords_are_capitals_standing_alone() {
        assert_eq!(strength_of("it MUST NOT"), Keyword::Must);
        assert_eq!(strength_of("SHOULD stop; MAY ignore"), Keyword::Should);
        assert_eq!(strength_of("is NOT required to"), Keyword::May);
        assert_eq!(strength_of("NOT_INITIALIZED; Chose NOT to"), Keyword::None);
        assert_eq!(strength_of("it must, it should, it may"), Keyword::None);
        assert_eq!(
            strength_of("The initialize request CANNOT be"),
            Keyword::Must
        );
    }

    #[test]
    fn quotations_of_one_sentence_merge() {
        assert_eq!(
            merge(
                "MAY cancel the corresponding request activity",
                "cancel the corresponding request activity and all nested activities"
            )
            .as_deref(),
            Some("MAY cancel the corresponding request activity and all nested activities")
        );
        assert_eq!(
            merge("Stop processing", "Receivers SHOULD: ... Stop processing").as_deref(),
            Some("Receivers SHOULD: ... Stop processing")
        );
        assert_eq!(merge("Free resources", "Stop processing the request"), None);
    }
}
