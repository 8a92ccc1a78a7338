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
