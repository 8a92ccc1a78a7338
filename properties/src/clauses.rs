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

mod table;
pub use table::{LEAD_INS, TABLE};

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

/// The texts and the dialect each states: each dialect's own text (its rules' `spec_file`:
/// the ACP RFD, MCP 2025-11-25 and ABP under `shared/specs/`, and, in this repository's
/// `specs/` ([`files::in_repository`]), the released ACP v1 and MCP 2026-07-28 texts and
/// LSP's sentences), in [`Dialect::ALL`]'s order, then the specs' `README.md`, whose units belong to the dialect their table row or
/// fact names (see [`readme_dialect`]).
pub fn texts() -> Vec<(&'static str, Option<Dialect>)> {
    Dialect::ALL
        .into_iter()
        .map(|d| (d.rules().spec_file, Some(d)))
        .chain([(files::README, None)])
        .collect()
}

/// The units of the specs' README, each with the dialect it states a fact of: a row of the
/// dialect table (its first cell) or a sentence of a fact (the bold words the fact opens
/// with, its dialect's `readme_facts`); `None` for the rest of the README (its introduction, its list of
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
                        Dialect::ALL.into_iter().find(|&d| {
                            crate::dialect::reading(d)
                                .readme_facts
                                .iter()
                                .any(|name| rest.starts_with(name))
                        })
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
    /// The text it is quoted from (a name of [`texts`]).
    pub file: &'static str,
    /// The sentence, word for word (` ... ` joins a list's lead-in to its item).
    pub quote: &'static str,
    /// What becomes of it.
    pub status: Treatment,
}

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
mod tests;
