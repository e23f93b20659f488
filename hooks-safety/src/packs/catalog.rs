//! The optional packs: rules that are a program and a pattern over its arguments, so they
//! are data. Each pack is off until `packs` names it (or its group, or `all`).
//!
//! A rule applies to the programs it lists (by base name after wrappers, in lower case; a
//! name ending in `.` is a prefix); its pattern is a regex over the program and its arguments
//! joined by single spaces, followed by any text the command reads from a heredoc, a
//! here-string or an `echo` piped in (so `psql <<SQL … SQL` is read too); `unless` is a regex
//! that, when it matches too, lets the command pass (`--dry-run`).

use std::sync::OnceLock;

use regex::Regex;
use rustc_hash::FxHashMap;

use super::tables::{self, PatternRule};
use super::{Pack, Rule};

/// The optional packs, by name.
pub(crate) fn packs() -> Vec<Pack> {
    tables::PACKS
        .iter()
        .map(|(name, summary)| Pack {
            name,
            default_on: false,
            summary,
        })
        .collect()
}

/// The rules of the packs switched on, indexed by program. A rule's regexes are compiled the
/// first time a command of its program is checked: a process that lives for one event (an
/// agent's per-event hook) compiles only what that event needs.
#[derive(Debug, Default)]
pub(crate) struct Compiled {
    rules: Vec<LazyRule>,
    /// For each program named by a rule, its rules (indexes into `rules`, in table order).
    by_program: FxHashMap<&'static str, Vec<usize>>,
    /// Program prefixes and their rules.
    by_prefix: Vec<(&'static str, usize)>,
}

/// A rule and its regexes, once needed.
#[derive(Debug)]
struct LazyRule {
    rule: &'static PatternRule,
    regexes: OnceLock<(Regex, Option<Regex>)>,
}

impl LazyRule {
    /// The rule's pattern and its `unless`, compiled at the first call. The tables are
    /// constants, and a test compiles every rule of every pack.
    fn regexes(&self) -> &(Regex, Option<Regex>) {
        self.regexes.get_or_init(|| {
            let compile = |pattern: &str| {
                Regex::new(pattern).unwrap_or_else(|error| {
                    unreachable!("rule {}: bad pattern: {error}", self.rule.rule.id())
                })
            };
            let unless = (!self.rule.unless.is_empty()).then(|| compile(self.rule.unless));
            (compile(self.rule.pattern), unless)
        })
    }
}

impl Compiled {
    /// The rules of the packs for which `enabled` is true.
    pub(crate) fn new(enabled: impl Fn(&str) -> bool) -> Result<Self, String> {
        let rules: Vec<LazyRule> = tables::RULES
            .iter()
            .filter(|r| enabled(r.rule.pack))
            .map(|rule| LazyRule {
                rule,
                regexes: OnceLock::new(),
            })
            .collect();
        let mut by_program: FxHashMap<&'static str, Vec<usize>> = FxHashMap::default();
        let mut by_prefix = Vec::new();
        for (index, LazyRule { rule, .. }) in rules.iter().enumerate() {
            for program in rule.programs {
                if program.ends_with('.') {
                    by_prefix.push((*program, index));
                } else {
                    by_program.entry(program).or_default().push(index);
                }
            }
        }
        Ok(Compiled {
            rules,
            by_program,
            by_prefix,
        })
    }

    /// The first rule that `program` with `args` (and `stdin` text) breaks.
    pub(crate) fn check(
        &self,
        program: &str,
        args: &[String],
        stdin: &[String],
    ) -> Option<&'static Rule> {
        if self.rules.is_empty() {
            return None;
        }
        let lower;
        let key = if program.bytes().any(|b| b.is_ascii_uppercase()) {
            lower = program.to_ascii_lowercase();
            lower.as_str()
        } else {
            program
        };
        let named = self.by_program.get(key).map_or(&[][..], Vec::as_slice);
        let prefixed = self
            .by_prefix
            .iter()
            .filter(|(prefix, _)| key.starts_with(prefix))
            .map(|(_, index)| index);
        let mut candidates = named.iter().chain(prefixed).peekable();
        candidates.peek()?;
        let mut text: Option<String> = None;
        for lazy in candidates.filter_map(|i| self.rules.get(*i)) {
            let text = text.get_or_insert_with(|| {
                let mut text = program.to_owned();
                for arg in args {
                    text.push(' ');
                    text.push_str(arg);
                }
                for body in stdin {
                    text.push('\n');
                    text.push_str(body);
                }
                text
            });
            let (pattern, unless) = lazy.regexes();
            if pattern.is_match(text) && !unless.as_ref().is_some_and(|u| u.is_match(text)) {
                return Some(&lazy.rule.rule);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles_and_belongs_to_a_listed_pack() {
        let compiled = Compiled::new(|_| true);
        assert!(compiled.is_ok(), "{:?}", compiled.err());
        for rule in tables::RULES {
            assert!(
                Regex::new(rule.pattern).is_ok(),
                "{}: pattern",
                rule.rule.id()
            );
            assert!(
                rule.unless.is_empty() || Regex::new(rule.unless).is_ok(),
                "{}: unless",
                rule.rule.id()
            );
            assert!(
                tables::PACKS
                    .iter()
                    .any(|(name, _)| *name == rule.rule.pack),
                "{} names no listed pack",
                rule.rule.id()
            );
        }
        for (name, _) in tables::PACKS {
            assert!(
                tables::RULES.iter().any(|r| r.rule.pack == *name),
                "the pack {name} has no rule"
            );
        }
    }
}
