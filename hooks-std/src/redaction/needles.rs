//! The prefilter: one pass over a text finds which rules' literals it holds (and where the
//! secrets' names are), so that a text without any pays that pass alone and a text with a
//! few runs only the few rules they belong to.
//!
//! Short texts are scanned directly: a bitmap of the literals' first two bytes answers for
//! most positions with one lookup. Long texts go through an Aho-Corasick automaton, built the
//! first time one comes (building it costs more than a per-event hook process spends on
//! anything else, and such a process mostly sees short texts).

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// Texts up to this length are scanned directly.
const SCAN_LIMIT: usize = 4096;

/// Who a literal belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The rule at this index.
    Rule(usize),
    /// A secret's name: where it is matters, not only that it is there.
    Name,
    /// The `-u`/`--user` flag.
    UserFlag,
}

#[derive(Debug)]
struct Needle {
    /// The literal, lowercased when it matches in any case.
    bytes: Box<[u8]>,
    ignore_case: bool,
    owner: Owner,
}

/// What a text holds: the rules whose literals it has, and the names and flags found.
#[derive(Debug, Default)]
pub(crate) struct Hits {
    /// One flag per rule.
    pub(crate) rules: Vec<bool>,
    /// Byte ranges of the name keywords found.
    pub(crate) names: Vec<(usize, usize)>,
    /// Byte ranges of the user flags found.
    pub(crate) user_flags: Vec<(usize, usize)>,
}

/// The literals of every rule.
#[derive(Debug)]
pub(crate) struct Needles {
    needles: Vec<Needle>,
    rules: usize,
    /// Whether some literal starts with these two bytes (lowercased), as a bitmap.
    pairs: Box<[u64; 1024]>,
    /// One-byte literals (lowercased): the byte and the literal.
    singles: Vec<(u8, u16)>,
    /// The literals of two bytes or more by their first two bytes (lowercased), sorted.
    by_pair: Vec<(u16, u16)>,
    automaton: OnceLock<Option<AhoCorasick>>,
}

fn pair_index(a: u8, b: u8) -> usize {
    (usize::from(a.to_ascii_lowercase()) << 8) | usize::from(b.to_ascii_lowercase())
}

impl Needles {
    /// The needles of `rules` rules, from `(literal, ignore_case, owner)` triples (empty
    /// literals are left out: they would match every text).
    pub(crate) fn new<'a>(
        rules: usize,
        literals: impl IntoIterator<Item = (&'a str, bool, Owner)>,
    ) -> Self {
        let mut needles: Vec<Needle> = Vec::new();
        for (literal, ignore_case, owner) in literals {
            if literal.is_empty() {
                continue;
            }
            let bytes: Box<[u8]> = if ignore_case {
                literal.to_ascii_lowercase().into_bytes().into_boxed_slice()
            } else {
                literal.as_bytes().into()
            };
            needles.push(Needle {
                bytes,
                ignore_case,
                owner,
            });
        }
        let mut pairs = Box::new([0u64; 1024]);
        let mut singles = Vec::new();
        let mut by_pair = Vec::new();
        for (index, needle) in needles.iter().enumerate() {
            let index = u16::try_from(index).unwrap_or(u16::MAX);
            let first = needle.bytes[0];
            match needle.bytes.get(1) {
                Some(&second) => {
                    let pair = pair_index(first, second);
                    pairs[pair / 64] |= 1 << (pair % 64);
                    by_pair.push((u16::try_from(pair).unwrap_or(u16::MAX), index));
                }
                None => singles.push((first.to_ascii_lowercase(), index)),
            }
        }
        by_pair.sort_unstable();
        Needles {
            needles,
            rules,
            pairs,
            singles,
            by_pair,
            automaton: OnceLock::new(),
        }
    }

    /// What `text` holds, or `None` when it holds no literal at all.
    pub(crate) fn find(&self, text: &[u8]) -> Option<Hits> {
        let mut hits: Option<Hits> = None;
        let mut record = |index: usize, at: usize| {
            let needle = &self.needles[index];
            let end = at + needle.bytes.len();
            let matches = text.get(at..end).is_some_and(|window| {
                if needle.ignore_case {
                    window.eq_ignore_ascii_case(&needle.bytes)
                } else {
                    *window == *needle.bytes
                }
            });
            if !matches {
                return;
            }
            let hits = hits.get_or_insert_with(|| Hits {
                rules: vec![false; self.rules],
                ..Hits::default()
            });
            match needle.owner {
                Owner::Rule(rule) => hits.rules[rule] = true,
                Owner::Name => hits.names.push((at, end)),
                Owner::UserFlag => hits.user_flags.push((at, end)),
            }
        };
        if text.len() > SCAN_LIMIT
            && let Some(automaton) = self.automaton()
        {
            for found in automaton.find_overlapping_iter(aho_corasick::Input::new(text)) {
                record(found.pattern().as_usize(), found.start());
            }
            return hits;
        }
        for at in 0..text.len() {
            let first = text[at];
            if let Some(&second) = text.get(at + 1) {
                let pair = pair_index(first, second);
                if self.pairs[pair / 64] & (1 << (pair % 64)) != 0 {
                    let pair = u16::try_from(pair).unwrap_or(u16::MAX);
                    let from = self.by_pair.partition_point(|&(p, _)| p < pair);
                    for &(_, index) in self.by_pair[from..].iter().take_while(|(p, _)| *p == pair) {
                        record(usize::from(index), at);
                    }
                }
            }
            for &(byte, index) in &self.singles {
                if byte == first.to_ascii_lowercase() {
                    record(usize::from(index), at);
                }
            }
        }
        hits
    }

    fn automaton(&self) -> Option<&AhoCorasick> {
        self.automaton
            .get_or_init(|| {
                AhoCorasick::builder()
                    // Case is checked when a match is recorded.
                    .ascii_case_insensitive(true)
                    // A few hundred literals: a DFA scans fastest, and is built once.
                    .kind(Some(AhoCorasickKind::DFA))
                    .build(self.needles.iter().map(|needle| &needle.bytes))
                    .ok()
            })
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_texts_find_the_same_literals() {
        let needles = Needles::new(
            2,
            [
                ("ghp_", false, Owner::Rule(0)),
                ("@", false, Owner::Rule(1)),
                ("token", true, Owner::Name),
                ("-u", false, Owner::UserFlag),
            ],
        );
        let padding = " ".repeat(SCAN_LIMIT);
        for (text, rules, names, flags) in [
            ("GHP_ no, ghp_ yes", vec![true, false], 0, 0),
            ("mail a@b and API_TOKEN=1", vec![false, true], 1, 0),
            ("curl -u a:b", vec![false, false], 0, 1),
        ] {
            for text in [text.to_owned(), format!("{padding}{text}")] {
                let hits = needles.find(text.as_bytes()).unwrap_or_default();
                assert_eq!(hits.rules, rules, "{text}");
                assert_eq!(hits.names.len(), names, "{text}");
                assert_eq!(hits.user_flags.len(), flags, "{text}");
            }
        }
        assert!(needles.find(b"nothing to see").is_none());
        assert!(needles.find(padding.as_bytes()).is_none());
    }
}
