//! Small text helpers shared by the workspace's messages: cutting a text to a size without
//! splitting a character, and naming the kind of a JSON value.
//!
//! ```
//! use hooks_core::text::{json_kind, truncate_bytes, truncate_chars, truncate_chars_marked};
//! use serde_json::json;
//!
//! assert_eq!(truncate_bytes("héllo", 2), "h"); // `é` takes two bytes and would not fit
//! assert_eq!(truncate_chars("héllo", 2), "hé");
//! assert_eq!(truncate_chars_marked("héllo", 2, "…"), "hé…");
//! assert_eq!(truncate_chars_marked("hé", 2, "…"), "hé");
//! assert_eq!(json_kind(&json!([1, 2])), "an array");
//! ```

use std::borrow::Cow;

use serde_json::Value;

/// The longest beginning of `text` that fits in `max` bytes without splitting a character:
/// `text` itself when it fits.
pub fn truncate_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    // A character is at most four bytes, so this steps back at most three times.
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first `max` characters of `text`: `text` itself when it has no more.
pub fn truncate_chars(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(end, _)| &text[..end])
}

/// The first `max` characters of `text` followed by `marker` (an ellipsis, say) when anything
/// was cut; `text` unchanged when it has no more than `max` characters.
pub fn truncate_chars_marked<'a>(text: &'a str, max: usize, marker: &str) -> Cow<'a, str> {
    let kept = truncate_chars(text, max);
    if kept.len() == text.len() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{kept}{marker}"))
    }
}

/// The kind of a JSON value as a message names it: `null`, `a boolean`, `a number`,
/// `a string`, `an array` or `an object`.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_byte_cut_never_splits_a_character_and_stays_within_the_limit() {
        let text = "aé€😀"; // characters of one, two, three and four bytes
        let ends = [0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10];
        for (max, end) in ends.into_iter().enumerate() {
            let kept = truncate_bytes(text, max);
            assert_eq!(kept, &text[..end], "max {max}");
            assert!(kept.len() <= max);
        }
    }

    #[test]
    fn a_character_cut_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("aé€😀", 0), "");
        assert_eq!(truncate_chars("aé€😀", 3), "aé€");
        assert_eq!(truncate_chars("aé€😀", 4), "aé€😀");
        assert_eq!(truncate_chars("aé€😀", 9), "aé€😀");
    }

    #[test]
    fn the_marker_is_added_only_when_something_was_cut() {
        assert_eq!(truncate_chars_marked("abcd", 3, "..."), "abc...");
        assert_eq!(truncate_chars_marked("abc", 3, "..."), "abc");
        assert!(matches!(
            truncate_chars_marked("abc", 3, "..."),
            Cow::Borrowed(_)
        ));
        assert_eq!(truncate_chars_marked("ééé", 1, "…"), "é…");
    }

    #[test]
    fn every_json_kind_has_its_word() {
        let words: Vec<_> = [
            json!(null),
            json!(true),
            json!(1.5),
            json!("x"),
            json!([]),
            json!({}),
        ]
        .iter()
        .map(json_kind)
        .collect();
        assert_eq!(
            words,
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
    }
}
