//! Packs: named sets of rules, each switched on or off in the configuration (`packs`).
//!
//! A rule has an id (`git:reset-hard`), a severity, the reason a command is refused and the
//! safer alternative the agent is told. The default packs are code (they need paths, the
//! working directory and the shape of the command); the optional packs are tables of
//! patterns over the command, since their rules are regular (`vault secrets disable`,
//! `aws s3 rb`, `kubectl delete namespace`).

pub(crate) mod builtin;
pub(crate) mod catalog;
pub(crate) mod git;
pub(crate) mod tables;

use std::fmt;

use serde::{Deserialize, Serialize};

/// How bad the damage a rule prevents is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Irreversible loss of the system, the home directory, history or production data.
    Critical,
    /// Loss that is hard to recover from: uncommitted work, a remote resource.
    High,
    /// Loss that can usually be undone, or a risk rather than a loss.
    Medium,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
        })
    }
}

/// One rule of a pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The pack it belongs to.
    pub pack: &'static str,
    /// Its name within the pack (`reset-hard`); the full id is `pack:name`.
    pub name: &'static str,
    /// How bad what it prevents is.
    pub severity: Severity,
    /// Why the command is refused.
    pub reason: &'static str,
    /// What the agent should do instead.
    pub alternative: &'static str,
}

impl Rule {
    /// The rule's id, `pack:name`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.pack, self.name)
    }
}

/// A pack: its name, whether it is on by default, and what it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pack {
    /// The name used in `packs`.
    pub name: &'static str,
    /// Whether it is on without configuration.
    pub default_on: bool,
    /// What it guards against, in a line.
    pub summary: &'static str,
}

/// Why a tool call must not run: the rule that fired and what the agent is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The pack whose rule fired (`user` for `blocked_commands`, `input` for a field that
    /// cannot be checked).
    pub pack: String,
    /// The rule's name within the pack.
    pub rule: String,
    /// How bad what it prevents is.
    pub severity: Severity,
    /// What the agent is told: what was refused, why, and what to do instead.
    pub message: String,
}

impl Denial {
    /// A denial by `rule`, with `message` for the agent.
    pub(crate) fn new(rule: &Rule, message: String) -> Self {
        Denial {
            pack: rule.pack.to_owned(),
            rule: rule.name.to_owned(),
            severity: rule.severity,
            message,
        }
    }

    /// A denial by `rule` about `what`, told with the rule's reason and alternative.
    pub(crate) fn explained(rule: &Rule, what: &str) -> Self {
        Denial::new(
            rule,
            format!(
                "`{}` {}; instead, {}",
                shorten(what),
                rule.reason,
                rule.alternative
            ),
        )
    }

    /// The rule's id, `pack:rule`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.pack, self.rule)
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pack == "user" {
            // The user's own words, as configured.
            f.write_str(&self.message)
        } else {
            write!(f, "[{}:{}] {}", self.pack, self.rule, self.message)
        }
    }
}

/// `text` cut to a length that reads well in a message.
pub(crate) fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    let text = text.trim();
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// The packs made of code, on by default.
pub const DEFAULT_PACKS: &[Pack] = &[
    Pack {
        name: "filesystem",
        default_on: true,
        summary: "recursive deletion of the root, home, system directories, the whole workspace or anything outside it",
    },
    Pack {
        name: "system",
        default_on: true,
        summary: "writing into system directories, changing files as root, recursive permission changes on system trees",
    },
    Pack {
        name: "secrets",
        default_on: true,
        summary: "reading or writing keys, `.env` files, credentials and password databases",
    },
    Pack {
        name: "disk",
        default_on: true,
        summary: "formatting and partitioning disks, writing to block devices, shutting down, fork bombs",
    },
    Pack {
        name: "download",
        default_on: true,
        summary: "running code straight from the network (`curl | sh`, `bash <(curl …)`, `sh -c \"$(curl …)\"`)",
    },
    Pack {
        name: "git",
        default_on: true,
        summary: "losing uncommitted work or history: `reset --hard`, `clean -f`, `push --force`, `checkout --`, `restore`, `stash clear`, `branch -D`",
    },
    Pack {
        name: "inline",
        default_on: true,
        summary: "destructive calls in code given to an interpreter (`python -c`, `node -e`, heredocs, here-strings, pipes)",
    },
];

/// Every pack, default ones first, then the optional ones by name.
pub fn all_packs() -> Vec<Pack> {
    let mut packs = DEFAULT_PACKS.to_vec();
    packs.extend(catalog::packs());
    packs
}

/// The set of packs switched on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Enabled {
    names: Vec<&'static str>,
}

impl Enabled {
    /// Resolves the configured list: pack names, `default` (the default packs), `all`, or a
    /// group (`database` for every `database.*` pack).
    pub(crate) fn resolve(requested: &[String]) -> Result<Self, String> {
        let packs = all_packs();
        let mut names: Vec<&'static str> = Vec::new();
        for wanted in requested {
            let matched: Vec<&'static str> = packs
                .iter()
                .filter(|pack| match wanted.as_str() {
                    "all" => true,
                    "default" => pack.default_on,
                    group => {
                        pack.name == group
                            || pack
                                .name
                                .strip_prefix(group)
                                .is_some_and(|rest| rest.starts_with('.'))
                    }
                })
                .map(|pack| pack.name)
                .collect();
            if matched.is_empty() {
                let valid: Vec<&str> = packs.iter().map(|p| p.name).collect();
                return Err(format!(
                    "`packs`: there is no pack `{wanted}`; valid names are `default`, `all`, a \
                     group such as `database`, or one of: {}",
                    valid.join(", ")
                ));
            }
            for name in matched {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        Ok(Enabled { names })
    }

    /// Whether the pack `name` is on.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.names.contains(&name)
    }

    /// The names of the packs that are on.
    pub(crate) fn names(&self) -> &[&'static str] {
        &self.names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_default_and_all_resolve_to_packs() {
        let defaults = Enabled::resolve(&["default".to_owned()]).unwrap_or_default();
        assert!(defaults.has("git") && defaults.has("filesystem"));
        assert!(!defaults.has("database.postgresql"));
        let database = Enabled::resolve(&["database".to_owned()]).unwrap_or_default();
        assert!(database.has("database.postgresql") && !database.has("git"));
        let all = Enabled::resolve(&["all".to_owned()]).unwrap_or_default();
        assert_eq!(all.names().len(), all_packs().len());
    }

    #[test]
    fn an_unknown_pack_is_an_error_listing_the_valid_ones() {
        let error = Enabled::resolve(&["gti".to_owned()]).unwrap_err();
        assert!(
            error.contains("no pack `gti`") && error.contains("git"),
            "{error}"
        );
    }

    #[test]
    fn every_pack_name_is_unique() {
        let packs = all_packs();
        for (i, pack) in packs.iter().enumerate() {
            assert!(
                packs[..i].iter().all(|other| other.name != pack.name),
                "{}",
                pack.name
            );
        }
    }
}
