//! Every command the README shows is run, as written, from the file itself: a command that
//! stops working, or a README that drifts from the tool, fails here. `.ci/run` runs the two
//! set-up commands, the long suite and the install command (the README's only `cargo`
//! commands); this test
//! runs every other one, in README order, from one scratch folder that holds a copy of the
//! regression corpus (`traces/`) and of the recorded transcripts (`tests/fixtures/audit/`), so
//! a command may read what an earlier one wrote.
//!
//! Where commands are: a ```sh block holds one command a line (a `# comment` may follow; a
//! trailing `\` continues the line); in a ```console block a line starting with `$ ` is a
//! command and the lines after it are its output. Blocks of any other kind hold no commands.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{Scratch, testpeer, text};

/// A command of the README: the line it starts on and its words.
#[derive(Debug)]
struct Shown {
    line: usize,
    section: String,
    words: Vec<String>,
}

/// The words of one command line as a POSIX shell splits them (single and double quotes,
/// backslash escapes), up to an unquoted `#` that starts a word.
fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed ' in {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.extend(chars.next()),
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed \" in {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '|' | '&' | ';' | '`' | '$' | '<' => {
                return Err(format!(
                    "{c:?} in {line:?}: a README command is one program with its arguments and at most a final `> FILE`"
                ));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Every command in `readme`, in order.
fn commands(readme: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    let mut section = String::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in readme.lines().enumerate() {
        let n = i + 1;
        if block.is_none() && raw.starts_with("## ") {
            section = raw.trim_start_matches("## ").to_string();
        }
        if let Some(tag) = raw.strip_prefix("```") {
            block = match block {
                None => Some(match tag.trim() {
                    "sh" => "sh",
                    "console" => "console",
                    _ => "other",
                }),
                Some(_) => None,
            };
            continue;
        }
        let text = match (block, &mut pending) {
            (Some("sh" | "console"), Some((_, so_far))) => {
                so_far.push(' ');
                so_far.push_str(raw.trim());
                None
            }
            (Some("sh"), None) => Some(raw),
            (Some("console"), None) => raw.strip_prefix("$ "),
            _ => None,
        };
        if let Some(t) = text {
            pending = Some((n, t.trim().to_string()));
        }
        let continued = pending.as_ref().is_some_and(|(_, t)| t.ends_with('\\'));
        if continued {
            if let Some((_, t)) = &mut pending {
                t.pop();
            }
            continue;
        }
        if let Some((line, t)) = pending.take() {
            let words = split(&t).unwrap_or_else(|e| panic!("README.md:{line}: {e}"));
            if !words.is_empty() {
                out.push(Shown {
                    line,
                    section: section.clone(),
                    words,
                });
            }
        }
    }
    assert!(block.is_none(), "README.md: a code block is never closed");
    out
}

/// A copy of `from` (files and folders) under `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

#[test]
fn every_command_in_the_readme_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let shown = commands(&readme);
    let tmp = Scratch::new("readme");
    copy_tree(&root.join("traces"), &tmp.path().join("traces"));
    // The recorded transcripts the README's `audit` example reads, at their checkout path.
    copy_tree(
        &root.join("tests/fixtures/audit"),
        &tmp.path().join("tests/fixtures/audit"),
    );
    let cli = PathBuf::from(env!("CARGO_BIN_EXE_cancelcheck"));
    let peer = testpeer();
    let mut ran = 0;
    let mut cargo = Vec::new();
    for c in &shown {
        let at = format!("README.md:{} ({})", c.line, c.section);
        let mut words = c.words.clone();
        if words[0] == "cargo" {
            // The set-up, long-suite and install commands: `.ci/run` reads them from these
            // sections and runs them as written.
            assert!(
                ["Set-up", "The long suite", "Installing"].contains(&c.section.as_str()),
                "{at}: a cargo command outside Set-up, The long suite and Installing is run by nothing: {:?}",
                c.words
            );
            cargo.push(words.join(" "));
            continue;
        }
        let out_file = match words.iter().position(|w| w == ">") {
            Some(i) => {
                assert_eq!(i + 2, words.len(), "{at}: `>` must end the command");
                let f = words.pop();
                words.pop();
                f
            }
            None => None,
        };
        let program = match words[0].as_str() {
            "cancelcheck" | "target/release/cancelcheck" => cli.clone(),
            other => panic!("{at}: {other:?} is not a cancelcheck command"),
        };
        for w in words.iter_mut() {
            if w == "target/release/cancelcheck-testpeer" || w == "cancelcheck-testpeer" {
                *w = peer.display().to_string();
            }
        }
        let stdout = match &out_file {
            Some(f) => Stdio::from(std::fs::File::create(tmp.path().join(f)).expect("create")),
            None => Stdio::piped(),
        };
        let started = Instant::now();
        let mut child = Command::new(&program)
            .args(&words[1..])
            .current_dir(tmp.path())
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        // Bounded: a README command is meant to finish in seconds.
        while child.try_wait().expect("wait").is_none() {
            if started.elapsed() > Duration::from_secs(300) {
                let _ = child.kill();
                panic!("{at}: still running after 300 s: {:?}", c.words);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let o = child.wait_with_output().expect("output");
        let code = o.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{at}: {:?} exited {code:?} (0 or 1 expected: no usage error, no crash)\nstderr: {}",
            c.words,
            text(&o.stderr)
        );
        assert!(
            !text(&o.stderr).contains("panicked"),
            "{at}: {}",
            text(&o.stderr)
        );
        ran += 1;
    }
    assert!(
        ran >= 10,
        "only {ran} README commands found: is the parser right?"
    );
    assert_eq!(
        cargo.first().map(String::as_str),
        Some("cargo run --release -- run"),
        "the README's first command is the main job on its built-in default"
    );
    assert!(cargo.iter().any(|c| c == "cargo test"), "{cargo:?}");
    assert!(
        cargo.iter().any(|c| c == "cargo test -- --ignored"),
        "the long suite: {cargo:?}"
    );
}

#[test]
fn the_readme_parser_reads_what_the_readme_promises() {
    let shown = commands(
        "## A\n```sh\ncancelcheck run  # a comment\ncancelcheck replay \\\n  t.json --format 'a b'\n```\n```text\ncancelcheck not-me\n```\n```console\n$ cancelcheck tree x.json\noutput line\n```\n",
    );
    let words: Vec<Vec<&str>> = shown
        .iter()
        .map(|s| s.words.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        words,
        vec![
            vec!["cancelcheck", "run"],
            vec!["cancelcheck", "replay", "t.json", "--format", "a b"],
            vec!["cancelcheck", "tree", "x.json"],
        ]
    );
    assert_eq!(shown[1].line, 4);
    assert!(split("a | b").is_err());
}

/// `n` (below 100) in English words, as the README writes its counts.
fn in_words(n: usize) -> String {
    const ONES: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 10] = [
        "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    match n {
        0..20 => ONES[n].to_string(),
        _ if n % 10 == 0 => TENS[n / 10].to_string(),
        _ => format!("{}-{}", TENS[n / 10], ONES[n % 10]),
    }
}

/// The README and docs/checker.md state the catalog's counts as the commands report them: the
/// invariants and races of `properties`, and the faults of `behaviors` (every behaviour named
/// but those correct in some dialect).
#[test]
fn the_readme_states_the_counts_the_commands_report() {
    use common::{cancelcheck, json_out};
    let props = json_out(&cancelcheck(&["properties", "--json"]));
    let props = props.as_array().expect("properties --json is a list");
    let races = props.iter().filter(|p| p["kind"] == "sometimes").count();
    let invariants = props.len() - races;
    let behaviours = json_out(&cancelcheck(&["behaviors", "--json"]));
    let behaviours = behaviours.as_array().expect("behaviors --json is a list");
    let name = |b: &serde_json::Value| b["name"].as_str().unwrap_or_default().to_string();
    let correct: std::collections::BTreeSet<String> = behaviours
        .iter()
        .filter(|b| b["faulty"] == false)
        .map(name)
        .collect();
    let faults: std::collections::BTreeSet<String> = behaviours
        .iter()
        .map(name)
        .filter(|n| !correct.contains(n))
        .collect();
    let stated = [
        format!(
            "{} invariants and {} races",
            in_words(invariants),
            in_words(races)
        ),
        format!("one of {} named faults", in_words(faults.len())),
    ];
    for file in ["README.md", "docs/checker.md"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
        for s in &stated {
            assert!(doc.contains(s.as_str()), "{file} does not say {s:?}");
        }
    }
}
