//! One home per dialect's wire shapes: no code outside the dialects' homes (`wire/src/dialect/`,
//! `shapes.rs`) decides a message by its dialect.
//!
//! The rule, per function (its whole body, closures and nested items included; comments and
//! `#[cfg(test)]` items left out): a function that names a dialect must not also build a
//! JSON-RPC message (`json!(`, a `"jsonrpc"` or `"method"` key, a
//! `WireMessage::Request {`/`Notification {`/`Response {` or a `Body::Result(`). Ask
//! `cancelcheck_wire::shapes::of(dialect)` instead. A function names a dialect when it
//! writes one (`Dialect::Acp`, `Dialect::Lsp`, ... in a `match`, a `matches!` or a
//! comparison; `Dialect::ALL` is a list, not a choice), or a stand-in for one:
//! - it asks whether work runs in sessions (`opens_sessions()`), which only ACP's does;
//! - it reads the dialect's rule table (`rules()`, `rules().session_cancel_method`, ...),
//!   whose fields tell the dialects apart;
//! - it calls a predicate of its own file that does either (a `fn ... -> bool` that names a
//!   dialect and builds nothing, such as the test peer's `acp()`), as `self.acp()` or
//!   `acp()`.

use std::path::{Path, PathBuf};

/// The dialects' homes, from the workspace root.
const HOMES: [&str; 6] = [
    "wire/src/dialect/acp.rs",
    "wire/src/dialect/mcp.rs",
    "wire/src/dialect/lsp.rs",
    "wire/src/dialect/abp.rs",
    "wire/src/dialect/mod.rs",
    "wire/src/shapes.rs",
];

/// Where messages are built: the root package, the codec, the test peer.
const SCANNED: [&str; 3] = ["src", "wire/src", "testpeer/src"];

const VARIANTS: [&str; 6] = ["Acp", "AcpRfd", "Mcp20251125", "Mcp20260728", "Lsp", "Abp"];

/// What builds a message: a JSON value, an envelope's key, a message or an answer constructed
/// (not a pattern that reads one: followed by `=>`, `|`, `=` or `if`; not a key read with
/// `.get("method")`).
const BUILDS: [&str; 7] = [
    "json!(",
    "\"jsonrpc\"",
    "\"method\"",
    "WireMessage::Request {",
    "WireMessage::Notification {",
    "WireMessage::Response {",
    "Body::Result(",
];

/// A source file with its comments blanked out (kept the same length, newlines kept), and which
/// bytes are code (not inside a string or character literal).
struct Source {
    text: Vec<u8>,
    code: Vec<bool>,
}

fn lex(src: &str) -> Source {
    let b = src.as_bytes();
    let mut text = b.to_vec();
    let mut code = vec![true; b.len()];
    let mut i = 0;
    let blank = |text: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut text[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| i + n);
                blank(&mut text, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let start = i;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                blank(&mut text, start, i);
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                // A raw string: r"...", r#"..."#.
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let mut close = vec![b'"'];
                close.extend(std::iter::repeat_n(b'#', hashes));
                let body = j + 1;
                let end = b[body..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(b.len(), |n| body + n + close.len());
                code[i..end].iter_mut().for_each(|c| *c = false);
                i = end;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                code[start..i].iter_mut().for_each(|c| *c = false);
            }
            b'\'' => {
                // A character literal ('{', '\n', '\''), or a lifetime ('a).
                let lit = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..]
                        .iter()
                        .position(|&c| c == b'\'')
                        .map(|n| i + 3 + n)
                } else if b.get(i + 2) == Some(&b'\'') {
                    Some(i + 3)
                } else {
                    None
                };
                match lit {
                    Some(end) => {
                        code[i..end].iter_mut().for_each(|c| *c = false);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    Source { text, code }
}

impl Source {
    /// The first code `{` (or `;`: no body) from `from`.
    fn body_start(&self, from: usize) -> Option<usize> {
        (from..self.text.len())
            .find(|&i| self.code[i] && matches!(self.text[i], b'{' | b';'))
            .filter(|&i| self.text[i] == b'{')
    }

    fn word_at(&self, i: usize, word: &[u8]) -> bool {
        let boundary =
            |c: Option<&u8>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
        self.code[i]
            && self.text[i..].starts_with(word)
            && boundary(i.checked_sub(1).and_then(|p| self.text.get(p)))
            && boundary(self.text.get(i + word.len()))
    }

    /// The spans of `#[cfg(test)]` items.
    fn test_items(&self) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        let attr = b"#[cfg(test)]";
        for i in 0..self.text.len() {
            if self.code[i] && self.text[i..].starts_with(attr) {
                if let Some(open) = self.body_start(i + attr.len()) {
                    spans.push((i, self.close_of(open)));
                }
            }
        }
        spans
    }

    /// Every function's span, from its `fn` to the end of its body.
    fn functions(&self) -> Vec<(usize, usize)> {
        (0..self.text.len())
            // `fn name`, not a function pointer type (`fn(&mut T)`).
            .filter(|&i| {
                self.word_at(i, b"fn")
                    && self.text[i + 2..]
                        .iter()
                        .find(|c| !c.is_ascii_whitespace())
                        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
            })
            .filter_map(|i| self.body_start(i).map(|open| (i, self.close_of(open))))
            .collect()
    }

    fn line(&self, at: usize) -> usize {
        self.text[..at].iter().filter(|&&c| c == b'\n').count() + 1
    }

    /// The places `span` names a dialect: each `Dialect::Variant`'s offset.
    fn dialects_named(&self, (from, to): (usize, usize)) -> Vec<usize> {
        let path = b"Dialect::";
        (from..to)
            .filter(|&i| self.word_at(i, b"Dialect") && self.text[i..].starts_with(path))
            .filter(|&i| {
                let rest = &self.text[i + path.len()..];
                VARIANTS.iter().any(|v| {
                    rest.starts_with(v.as_bytes())
                        && rest
                            .get(v.len())
                            .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                })
            })
            .collect()
    }

    /// Whether `span` calls `name` (`name(`, `.name(`, as a word).
    fn calls(&self, (from, to): (usize, usize), name: &[u8]) -> Option<usize> {
        (from..to).find(|&i| self.word_at(i, name) && self.after(i + name.len()).starts_with(b"("))
    }

    /// The places `span` stands in for a dialect: asks `opens_sessions()`, reads `rules()` (but
    /// for the fields that describe the dialect rather than shape its messages: `id`, `title`,
    /// `spec_file`), or calls one of `predicates`.
    fn stand_ins(&self, (from, to): (usize, usize), predicates: &[Vec<u8>]) -> Vec<usize> {
        const DESCRIBE: [&[u8]; 3] = [b"id", b"title", b"spec_file"];
        let rules = (from..to).filter(|&i| {
            self.word_at(i, b"rules")
                && self.text[i..].starts_with(b"rules()")
                && !DESCRIBE.iter().any(|f| {
                    let rest = self.after(i + b"rules()".len());
                    rest.strip_prefix(b".").is_some_and(|r| {
                        r.starts_with(f)
                            && r.get(f.len())
                                .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                    })
                })
        });
        let mut at: Vec<usize> = std::iter::once(&b"opens_sessions"[..])
            .chain(predicates.iter().map(Vec::as_slice))
            .filter_map(|name| self.calls((from, to), name))
            .chain(rules)
            .collect();
        at.sort_unstable();
        at
    }

    /// The name of the function whose span starts at `from` (`fn name`), and whether it
    /// returns `bool`.
    fn signature(&self, from: usize) -> (Vec<u8>, bool) {
        let rest = self.after(from + 2);
        let name: Vec<u8> = rest
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .copied()
            .collect();
        let open = self.body_start(from).unwrap_or(self.text.len());
        let head = &self.text[from..open];
        let bool_result = head
            .windows(2)
            .rposition(|w| w == b"->")
            .is_some_and(|k| trim(&head[k + 2..]).starts_with(b"bool"));
        (name, bool_result)
    }

    /// The first message-building marker in `span`, if any.
    fn builds(&self, (from, to): (usize, usize)) -> Option<&'static str> {
        BUILDS.iter().copied().find(|m| {
            (from..to).any(|i| {
                self.text[i..to].starts_with(m.as_bytes())
                    && (m.starts_with('"') || self.code[i])
                    && self.building(i, m)
            })
        })
    }

    /// Whether `marker` at `i` builds rather than reads.
    fn building(&self, i: usize, marker: &str) -> bool {
        let end = i + marker.len();
        if marker.starts_with('"') {
            // A key written (`"method": ...`, `"jsonrpc".into()`), not one read.
            let rest = self.after(end);
            return rest.starts_with(b":") || rest.starts_with(b".into()");
        }
        if marker == "json!(" {
            return true;
        }
        // `X {` or `X(`: a pattern is followed (past the closing brackets and the `, ..` of
        // the pattern that holds it) by `=>`, `|`, `=` (a `let`) or `if` (a guard).
        let close = self.close_of(end - 1);
        let mut rest = self.after(close);
        while let Some(r) = [&b")"[..], b"]", b"}", b",", b".."]
            .iter()
            .find_map(|p| rest.strip_prefix(*p))
        {
            rest = trim(r);
        }
        let pattern = rest.starts_with(b"=>")
            || (rest.starts_with(b"|") && !rest.starts_with(b"||"))
            || (rest.starts_with(b"=") && !rest.starts_with(b"=="))
            || rest.starts_with(b"if ");
        !pattern
    }

    /// The text from `i` on, past whitespace.
    fn after(&self, i: usize) -> &[u8] {
        trim(&self.text[i.min(self.text.len())..])
    }

    /// The index just past the bracket closing the `{` or `(` at `open`.
    fn close_of(&self, open: usize) -> usize {
        let (o, c) = match self.text[open] {
            b'(' => (b'(', b')'),
            _ => (b'{', b'}'),
        };
        let mut depth = 0usize;
        for i in open..self.text.len() {
            if !self.code[i] {
                continue;
            }
            if self.text[i] == o {
                depth += 1;
            } else if self.text[i] == c {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
        }
        self.text.len()
    }
}

fn trim(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &b[n..]
}

/// The violations in one file's text, as `line: why`.
fn violations(src: &str) -> Vec<String> {
    let s = lex(src);
    let tests = s.test_items();
    let spans: Vec<(usize, usize)> = s
        .functions()
        .into_iter()
        .filter(|span| !tests.iter().any(|&(a, b)| a <= span.0 && span.0 < b))
        .collect();
    // The file's predicates that stand in for a dialect, to a fixed point (a predicate that
    // calls one is one).
    let mut predicates: Vec<Vec<u8>> = Vec::new();
    loop {
        let before = predicates.len();
        for &span in &spans {
            let (name, bool_result) = s.signature(span.0);
            if !bool_result || predicates.contains(&name) || s.builds(span).is_some() {
                continue;
            }
            // Its own name called inside it is recursion, not a stand-in.
            if !s.dialects_named(span).is_empty() || !s.stand_ins(span, &predicates).is_empty() {
                predicates.push(name);
            }
        }
        if predicates.len() == before {
            break;
        }
    }
    let mut found = Vec::new();
    for span in spans {
        let mut named = s.dialects_named(span);
        named.extend(s.stand_ins(span, &predicates));
        named.sort_unstable();
        if let (Some(&at), Some(marker)) = (named.first(), s.builds(span)) {
            found.push(format!(
                "{}: a function that names a dialect (line {}) builds a message ({marker}): ask `cancelcheck_wire::shapes::of(dialect)`",
                s.line(span.0),
                s.line(at)
            ));
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        // (A module's `tests.rs` is its `#[cfg(test)] mod tests;`, and a `tests/` folder beside
        // it holds that module's parts: test code, left out as `#[cfg(test)]` items are.)
        if p.is_dir() {
            if p.file_name().is_none_or(|n| n != "tests") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs")
            && p.file_name().is_none_or(|n| n != "tests.rs")
        {
            out.push(p);
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

#[test]
fn no_code_outside_the_homes_decides_a_message_by_its_dialect() {
    let root = root();
    let mut files = Vec::new();
    for dir in SCANNED {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 30, "found only {} files", files.len());
    let mut all = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&root).unwrap_or(&file).to_path_buf();
        let rel_text = rel.to_string_lossy().replace('\\', "/");
        if HOMES.contains(&rel_text.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        for v in violations(&text) {
            all.push(format!("{rel_text}:{v}"));
        }
    }
    assert!(
        all.is_empty(),
        "wire shapes decided outside their dialect's home:\n{}",
        all.join("\n")
    );
}

#[test]
fn every_home_exists() {
    for home in HOMES {
        assert!(root().join(home).is_file(), "{home}");
    }
}

/// The rule finds what it is for (a dialect named, or a stand-in for one, where a message is
/// built), and nothing else.
#[test]
fn the_rule_catches_a_dialect_match_that_builds_and_only_that() {
    let bad = r#"
fn params(d: Dialect) -> Value {
    match d {
        Dialect::Lsp => json!({"command": "x"}),
        _ => json!({}),
    }
}
"#;
    let v = violations(bad);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("2: "), "{v:?}");
    let compare = "fn t(d: Dialect) -> String {\n    if d == Dialect::Mcp20260728 {\n        return WireMessage::Request { id, method: \"x\".into(), params: None }.to_text();\n    }\n    String::new()\n}\n";
    assert_eq!(violations(compare).len(), 1);
    let reads = r#"
fn read(d: Dialect, msg: &WireMessage) -> bool {
    match msg {
        WireMessage::Request { method, .. } if d == Dialect::Acp => method == "x",
        WireMessage::Response { body: Body::Result(v), .. } => v.get("method").is_some(),
        _ => false,
    }
}
"#;
    assert_eq!(violations(reads), Vec::<String>::new());
    let fine = r#"
/// Lists `Dialect::Acp` and friends; builds `json!({})` in a comment.
fn names() -> Vec<&'static str> {
    Dialect::ALL.iter().map(|d| d.id()).collect()
}
fn framing(d: Dialect) -> Framing {
    if d == Dialect::Lsp { Framing::ContentLength } else { Framing::Ndjson }
}
fn build() -> Value {
    let brace = '{';
    json!({"text": "Dialect::Acp }"})
}
#[cfg(test)]
mod tests {
    fn t() { let _ = (Dialect::Acp, json!({})); }
}
"#;
    assert_eq!(violations(fine), Vec::<String>::new());
    // The stand-ins for a dialect count as naming one: whether work runs in sessions, a
    // predicate of the file's own that asks it (or names a dialect), the rule table's fields.
    let sessions = r#"
fn answer(&self, prompt: bool) -> Body {
    if self.shapes.opens_sessions() && prompt {
        Body::Result(json!({"stopReason": "cancelled"}))
    } else {
        not_found()
    }
}
"#;
    assert_eq!(violations(sessions).len(), 1, "{sessions}");
    let predicate = r#"
impl Peer {
    fn acp(&self) -> bool {
        self.shapes.opens_sessions()
    }
    fn agent(&self) -> bool {
        self.acp()
    }
    fn lsp(d: Dialect) -> bool {
        d == Dialect::Lsp
    }
    fn tool_error(&self) -> Value {
        if !self.agent() { json!({"isError": true}) } else { Value::Null }
    }
    fn initialized(&self, d: Dialect) -> Value {
        if Self::lsp(d) { json!({"capabilities": {}}) } else { json!({"protocolVersion": 1}) }
    }
    fn unrelated(&self) -> Value {
        self.acp_session();
        json!({})
    }
}
"#;
    let v = violations(predicate);
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v[0].starts_with("12: ") && v[1].starts_with("15: "),
        "{v:?}"
    );
    let rules = r#"
fn result(d: Dialect, cancel_support: bool) -> Value {
    let r = d.rules();
    let caps = if r.negotiated { json!({"cancellation": {"request": cancel_support}}) } else { json!({}) };
    json!({"protocolVersion": 1, "capabilities": caps})
}
fn field(d: Dialect, id: Value) -> Value {
    json!({ d.rules().cancel_id_field: id })
}
"#;
    assert_eq!(violations(rules).len(), 2, "{:?}", violations(rules));
    let fine_too = r#"
fn title(d: Dialect) -> Value {
    json!({"dialect": d.rules().id, "title": d.rules().title, "text": d.rules().spec_file})
}
fn strict(&self) -> bool {
    self.strict || !self.lenient
}
fn check(&self) -> Value {
    if self.strict() { json!({}) } else { Value::Null }
}
fn sessions(&self) -> usize {
    if self.shapes.opens_sessions() { 1 } else { 0 }
}
#[cfg(test)]
mod tests {
    fn t(s: &dyn Shapes) -> Value { if s.opens_sessions() { json!({}) } else { json!([]) } }
}
"#;
    assert_eq!(violations(fine_too), Vec::<String>::new());
}
