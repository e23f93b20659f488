//! Built-in lists in a module's configuration: a list a configuration gives is added
//! to the module's built-in one, unless the configuration's `replace_defaults` names it.
//!
//! The safety checker and the standard modules of `hooks-std` (redaction, logging, linter,
//! reminder) share this one rule, so it lives here, in the crate they all depend on.
//!
//! `{"protected_files": ["**/secrets.toml"]}` reads as "protect this too", and a guard that took
//! it as "protect only this" would stop protecting `.env` and keys without a word. So a list
//! extends, and replacing is said in so many words, per list: replacing one list (dropping
//! `*.pub` from the exceptions, say) leaves every other list's built-in entries in place, where
//! a switch for the whole module would also drop the fields read as commands and leave the
//! module checking nothing.

use std::fmt;

/// Which of one module's built-in lists a configuration replaces.
///
/// ```
/// use hooks_safety::lists::{BuiltInLists, strings};
///
/// let replaced = strings(&["events"]);
/// let lists = BuiltInLists::new(&replaced, &["events", "keys"])?;
/// assert_eq!(lists.merge("keys", strings(&["a"]), &strings(&["b"])), ["a", "b"]);
/// assert_eq!(lists.merge("events", strings(&["a"]), &strings(&["b"])), ["b"]);
/// # Ok::<(), hooks_safety::lists::UnknownList>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct BuiltInLists<'a> {
    replaced: &'a [String],
}

impl<'a> BuiltInLists<'a> {
    /// The lists that `replace_defaults` names, each checked to be one of `lists`, the keys of
    /// the module's lists that have built-in entries.
    pub fn new(replace_defaults: &'a [String], lists: &[&str]) -> Result<Self, UnknownList> {
        if let Some(unknown) = replace_defaults
            .iter()
            .find(|name| !lists.contains(&name.as_str()))
        {
            return Err(UnknownList {
                named: unknown.clone(),
                lists: strings(lists),
            });
        }
        Ok(BuiltInLists {
            replaced: replace_defaults,
        })
    }

    /// Whether the configuration replaces the built-in entries of `list`.
    pub fn replaces(&self, list: &str) -> bool {
        self.replaced.iter().any(|name| name == list)
    }

    /// The built-in entries of `list`, or none when the configuration replaces them.
    pub fn kept<T>(&self, list: &str, built_in: impl IntoIterator<Item = T>) -> Vec<T> {
        if self.replaces(list) {
            Vec::new()
        } else {
            built_in.into_iter().collect()
        }
    }

    /// The list `list` as the module uses it: the built-in entries (unless replaced), then the
    /// configured ones, each once.
    pub fn merge<T: PartialEq + Clone>(
        &self,
        list: &str,
        built_in: impl IntoIterator<Item = T>,
        configured: &[T],
    ) -> Vec<T> {
        let mut merged = self.kept(list, built_in);
        for entry in configured {
            if !merged.contains(entry) {
                merged.push(entry.clone());
            }
        }
        merged
    }
}

/// A `replace_defaults` that names a list without built-in entries: a misspelt name would
/// otherwise replace nothing without a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownList {
    /// The name `replace_defaults` gave.
    pub named: String,
    /// The lists that have built-in entries.
    pub lists: Vec<String>,
}

impl fmt::Display for UnknownList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let valid: Vec<String> = self.lists.iter().map(|list| format!("`{list}`")).collect();
        write!(
            f,
            "`replace_defaults`: `{}` is not a list with built-in entries; those are {}",
            self.named,
            valid.join(", ")
        )
    }
}

impl std::error::Error for UnknownList {}

/// `list` as owned strings.
pub fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_extends_the_built_in_one_unless_named() {
        let none = BuiltInLists::new(&[], &["a", "b"]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            none.merge("a", strings(&["x", "y"]), &strings(&["y", "z"])),
            ["x", "y", "z"]
        );
        let replace = strings(&["a"]);
        let some = BuiltInLists::new(&replace, &["a", "b"]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(some.merge("a", strings(&["x"]), &strings(&["z"])), ["z"]);
        assert_eq!(
            some.merge("b", strings(&["x"]), &strings(&["z"])),
            ["x", "z"]
        );
    }

    #[test]
    fn an_unknown_list_is_an_error_naming_the_valid_ones() {
        let replace = strings(&["protected_file"]);
        let error = BuiltInLists::new(&replace, &["protected_files", "allowed_files"])
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert_eq!(
            error,
            "`replace_defaults`: `protected_file` is not a list with built-in entries; those are \
             `protected_files`, `allowed_files`"
        );
    }
}
