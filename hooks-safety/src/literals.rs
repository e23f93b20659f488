//! Literal prefilters: whether a text holds one of a few dozen short literals, the question the
//! safety module's secret-file hints and the redaction prefilter ask before any glob or regex.
//!
//! A short text is scanned directly, through a table of the literals by first byte; an
//! Aho-Corasick automaton answers for long texts, built the first time one comes. Building it
//! costs more than a per-event hook process spends on everything else, and
//! such a process mostly sees short texts; a long-lived application pays it once.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// Texts up to this length are scanned directly.
const SCAN_LIMIT: usize = 4096;

/// A set of literals, matched case-sensitively or in any ASCII case.
#[derive(Debug)]
pub(crate) struct Literals {
    /// The literals, lowercased when the match ignores ASCII case.
    literals: Vec<Box<[u8]>>,
    /// For each first byte (lowercased likewise), the literals that start with it.
    by_first: Box<[Vec<u16>; 256]>,
    ignore_case: bool,
    /// For long texts; `None` when it could not be built, and every text is scanned.
    automaton: OnceLock<Option<AhoCorasick>>,
}

impl Literals {
    /// The set of `literals` (empty ones are left out: they would match every text; repeated
    /// ones are kept once: rules may share a literal).
    pub(crate) fn new<I, L>(literals: I, ignore_case: bool) -> Self
    where
        I: IntoIterator<Item = L>,
        L: AsRef<[u8]>,
    {
        let mut unique: Vec<Box<[u8]>> = Vec::new();
        for literal in literals {
            let literal = literal.as_ref();
            let literal: Box<[u8]> = if ignore_case {
                literal.to_ascii_lowercase().into_boxed_slice()
            } else {
                literal.into()
            };
            if !literal.is_empty() && !unique.contains(&literal) {
                unique.push(literal);
            }
        }
        let literals = unique;
        let mut by_first: Box<[Vec<u16>; 256]> = Box::new(std::array::from_fn(|_| Vec::new()));
        for (index, literal) in literals.iter().enumerate() {
            let index = u16::try_from(index).unwrap_or(u16::MAX);
            by_first[usize::from(literal[0])].push(index);
        }
        Literals {
            literals,
            by_first,
            ignore_case,
            automaton: OnceLock::new(),
        }
    }

    /// Whether `text` holds one of the literals.
    pub(crate) fn is_match(&self, text: &[u8]) -> bool {
        if text.len() > SCAN_LIMIT
            && let Some(automaton) = self.automaton()
        {
            return automaton.is_match(text);
        }
        self.scan(text)
    }

    fn scan(&self, text: &[u8]) -> bool {
        (0..text.len()).any(|at| {
            let first = if self.ignore_case {
                text[at].to_ascii_lowercase()
            } else {
                text[at]
            };
            self.by_first[usize::from(first)].iter().any(|&index| {
                let literal = &self.literals[usize::from(index)];
                text.get(at..at + literal.len()).is_some_and(|window| {
                    if self.ignore_case {
                        window.eq_ignore_ascii_case(literal)
                    } else {
                        window == &**literal
                    }
                })
            })
        })
    }

    fn automaton(&self) -> Option<&AhoCorasick> {
        self.automaton
            .get_or_init(|| {
                AhoCorasick::builder()
                    .ascii_case_insensitive(self.ignore_case)
                    .kind(Some(AhoCorasickKind::ContiguousNFA))
                    .build(&self.literals)
                    .ok()
            })
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_texts_give_the_same_answers() {
        let sensitive = Literals::new(["id_rsa", ".env", "credentials"], false);
        let insensitive = Literals::new(["AKIA", "-----begin", "ghp_"], true);
        let padding = "x".repeat(SCAN_LIMIT);
        for (text, in_sensitive, in_insensitive) in [
            ("config/.env", true, false),
            ("~/.ssh/id_rsa.pub", true, false),
            ("src/main.rs", false, false),
            ("key akia123 here", false, true),
            ("-----BEGIN RSA PRIVATE KEY-----", false, true),
            ("token GHP_abc", false, true),
            (".EN", false, false),
            ("", false, false),
        ] {
            let long = format!("{padding}{text}");
            for text in [text, long.as_str()] {
                assert_eq!(sensitive.is_match(text.as_bytes()), in_sensitive, "{text}");
                assert_eq!(
                    insensitive.is_match(text.as_bytes()),
                    in_insensitive,
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn a_literal_at_the_very_end_is_found_and_none_never_matches() {
        let literals = Literals::new(["abc"], false);
        assert!(literals.is_match(b"xxabc"));
        assert!(!literals.is_match(b"xxab"));
        let repeated = Literals::new(["@", "AKIA", "@", "akia"], true);
        assert_eq!(
            repeated.literals.len(),
            2,
            "a literal two rules share is kept once"
        );
        let none = Literals::new(Vec::<&str>::new(), true);
        assert!(!none.is_match(b"anything"));
    }
}
