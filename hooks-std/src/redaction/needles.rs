//! The prefilter: one pass over a text finds which rules' literals it holds (and where the
//! secrets' names are), so that a text without any pays that pass alone and a text with a
//! few runs only the few rules they belong to.
//!
//! Short texts are scanned directly: a bitmap of the literals' first three bytes answers for
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
    /// One bit per rule.
    rules: Vec<u64>,
    /// Byte ranges of the name keywords found.
    pub(crate) names: Vec<(usize, usize)>,
    /// Byte ranges of the user flags found.
    pub(crate) user_flags: Vec<(usize, usize)>,
}

impl Hits {
    /// The rules whose literals the text holds, in order.
    pub(crate) fn rules(&self) -> impl Iterator<Item = usize> + '_ {
        self.rules.iter().enumerate().flat_map(|(at, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    at * 64 + bit
                })
            })
        })
    }

    fn add_rule(&mut self, index: usize) {
        if let Some(word) = self.rules.get_mut(index / 64) {
            *word |= 1 << (index % 64);
        }
    }
}

/// The literals of every rule.
#[derive(Debug)]
pub(crate) struct Needles {
    needles: Vec<Needle>,
    rules: usize,
    /// The literals of one byte: the byte and the literal, sorted.
    singles: Vec<(u8, u16)>,
    /// The literals of two bytes.
    pairs: Vec<u16>,
    /// The first three bytes of every longer literal (a literal of two, followed by any
    /// printable byte): exact bytes, one entry per case a literal may be written in.
    triples: Heads,
    automaton: OnceLock<Option<AhoCorasick>>,
}

/// The literals' first three bytes: a bitmap of their hashes answers for most
/// positions of a text with one lookup, a sorted list finds the literals behind a hit.
#[derive(Debug)]
struct Heads {
    bitmap: Box<[u64; BITMAP_BITS / 64]>,
    /// `(head, literal)`, sorted.
    literals: Vec<(u32, u16)>,
}

/// Bits in the bitmap of heads (hashed: few literals share a bit, and a text's bytes rarely
/// meet one).
const BITMAP_BITS: usize = 1 << 17;

impl Heads {
    fn new() -> Self {
        Heads {
            bitmap: Box::new([0; BITMAP_BITS / 64]),
            literals: Vec::new(),
        }
    }

    fn head(bytes: &[u8]) -> u32 {
        bytes
            .iter()
            .fold(0u32, |head, &b| (head << 8) | u32::from(b))
    }

    /// The head's two bits in the bitmap, by two independent hashes: a text's three bytes
    /// that are no literal's head seldom have both set.
    fn bits(head: u32) -> [usize; 2] {
        [
            (head.wrapping_mul(0x9E37_79B1) >> 15) as usize,
            (head.wrapping_mul(0x85EB_CA77).rotate_left(11) >> 15) as usize,
        ]
    }

    /// Whether some literal may have the head `head` (the question asked at every byte).
    #[inline]
    fn may_hold(&self, head: u32) -> bool {
        Self::bits(head)
            .iter()
            .all(|&bit| self.bitmap[bit / 64] & (1 << (bit % 64)) != 0)
    }

    /// Adds a literal's head in every case it may be written in.
    fn add(&mut self, head: &[u8], ignore_case: bool, index: u16) {
        let letters: Vec<usize> = (0..head.len())
            .filter(|&i| ignore_case && head[i].is_ascii_alphabetic())
            .collect();
        for variant in 0..(1u32 << letters.len()) {
            let mut bytes = head.to_vec();
            for (bit, &i) in letters.iter().enumerate() {
                if variant & (1 << bit) != 0 {
                    bytes[i] = bytes[i].to_ascii_uppercase();
                }
            }
            let head = Self::head(&bytes);
            for bit in Self::bits(head) {
                self.bitmap[bit / 64] |= 1 << (bit % 64);
            }
            self.literals.push((head, index));
        }
    }

    /// The literals whose head is `head`.
    fn find(&self, head: u32) -> &[(u32, u16)] {
        let from = self.literals.partition_point(|&(h, _)| h < head);
        let to = from + self.literals[from..].partition_point(|&(h, _)| h == head);
        &self.literals[from..to]
    }
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
        let mut singles = Vec::new();
        let mut pairs = Vec::new();
        let mut triples = Heads::new();
        for (index, needle) in needles.iter().enumerate() {
            let index = u16::try_from(index).unwrap_or(u16::MAX);
            match *needle.bytes {
                [byte] => {
                    singles.push((byte, index));
                    if needle.ignore_case {
                        singles.push((byte.to_ascii_uppercase(), index));
                    }
                }
                [first, second] => {
                    pairs.push(index);
                    for third in (b' '..=b'~').chain([b'\t', b'\n']) {
                        triples.add(&[first, second, third], needle.ignore_case, index);
                    }
                }
                _ => triples.add(&needle.bytes[..3], needle.ignore_case, index),
            }
        }
        triples.literals.sort_unstable();
        triples.literals.dedup();
        singles.sort_unstable();
        Needles {
            needles,
            rules,
            singles,
            pairs,
            triples,
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
                rules: vec![0; self.rules.div_ceil(64)],
                ..Hits::default()
            });
            match needle.owner {
                Owner::Rule(rule) => hits.add_rule(rule),
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
        // One-byte literals are rules' (`@`): that the text holds one says enough.
        let mut looked_for: Option<(u8, Option<usize>)> = None;
        for &(byte, index) in &self.singles {
            let at = match looked_for {
                Some((seen, at)) if seen == byte => at,
                _ => text.iter().position(|&b| b == byte),
            };
            looked_for = Some((byte, at));
            if let Some(at) = at {
                record(usize::from(index), at);
            }
        }
        for (at, window) in text.windows(3).enumerate() {
            let head =
                u32::from(window[0]) << 16 | u32::from(window[1]) << 8 | u32::from(window[2]);
            if self.triples.may_hold(head) {
                for &(_, index) in self.triples.find(head) {
                    record(usize::from(index), at);
                }
            }
        }
        // A two-byte literal ending the text has no third byte to be found by.
        if text.len() >= 2 {
            for &index in &self.pairs {
                record(usize::from(index), text.len() - 2);
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
                let listed: Vec<usize> = hits.rules().collect();
                let expected: Vec<usize> = (0..2).filter(|&rule| rules[rule]).collect();
                assert_eq!(listed, expected, "{text}");
                assert_eq!(hits.names.len(), names, "{text}");
                assert_eq!(hits.user_flags.len(), flags, "{text}");
            }
        }
        assert!(needles.find(b"nothing to see").is_none());
        assert!(needles.find(padding.as_bytes()).is_none());
    }
}
