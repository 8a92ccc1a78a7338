//! Dialect and behavior names as people type them: one parser and one message for a name
//! that does not exist, used by every command and by the scenario and trace files, so the
//! same mistake is always told the same way (the bad value, every name there is, and the
//! closest one).

use cancelcheck_model::{Behaviour, Dialect};

/// The closest of `names` to `bad`: the one `bad` is the start of (`mcp` for
/// `mcp-2025-11-25`), else the one fewest edits away, if that is a few edits at most.
pub fn closest<'a>(bad: &str, names: &[&'a str]) -> Option<&'a str> {
    let lower = bad.to_ascii_lowercase();
    if !lower.is_empty()
        && let Some(n) = names.iter().find(|n| n.starts_with(&lower))
    {
        return Some(n);
    }
    let (best, d) = names
        .iter()
        .map(|n| (*n, strsim::levenshtein(&lower, n)))
        .min_by_key(|&(_, d)| d)?;
    (d <= 3.max(lower.chars().count() / 3)).then_some(best)
}

/// `unknown KIND "BAD"; expected one of: A, B, C; did you mean X?` (the value cut to a
/// readable length).
pub fn unknown(kind: &str, bad: &str, names: &[&str]) -> String {
    let shown = crate::trace_file::clip(bad);
    let mut msg = format!(
        "unknown {kind} {shown:?}; expected one of: {}",
        names.join(", ")
    );
    if let Some(n) = closest(bad, names) {
        msg.push_str(&format!("; did you mean {n}?"));
    }
    msg
}

/// Every dialect id, in catalog order.
pub fn dialect_names() -> Vec<&'static str> {
    Dialect::ALL.iter().map(|d| d.id()).collect()
}

/// Every behavior name, in table order.
pub fn behaviour_names() -> Vec<&'static str> {
    Behaviour::all().map(|b| b.name()).collect()
}

/// A dialect by its id, or the message for a name that does not exist.
pub fn parse_dialect(s: &str) -> Result<Dialect, String> {
    s.parse::<Dialect>()
        .map_err(|_| unknown("dialect", s, &dialect_names()))
}

/// A behavior by its name, or the message for a name that does not exist.
pub fn parse_behaviour(s: &str) -> Result<Behaviour, String> {
    s.parse::<Behaviour>()
        .map_err(|_| unknown("behavior", s, &behaviour_names()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_name_is_suggested() {
        let d = dialect_names();
        assert_eq!(closest("mcp", &d), Some("mcp-2025-11-25"));
        assert_eq!(closest("lps", &d), Some("lsp"));
        assert_eq!(closest("ACP", &d), Some("acp"));
        assert_eq!(closest("zzzzzzzzzzzzzzzzzzzz", &d), None);
        let b = behaviour_names();
        assert_eq!(closest("honor", &b), Some("honour"));
        assert_eq!(closest("answer-twice", &b), Some("answers-twice"));
    }

    #[test]
    fn a_bad_name_is_named_with_every_good_one() {
        let e = parse_dialect("mcp").unwrap_err();
        assert!(e.contains("\"mcp\"") && e.contains("acp, acp-rfd"), "{e}");
        assert!(e.ends_with("did you mean mcp-2025-11-25?"), "{e}");
        let e = parse_behaviour("sloppy").unwrap_err();
        assert!(e.starts_with("unknown behavior \"sloppy\""), "{e}");
        assert!(e.contains("honour"), "{e}");
    }
}
