//! The redaction module (`provider:request`, `tool:post`, `prompt:submit`): replaces secrets and
//! personal data in event data, via modify, and says how many it replaced.
//!
//! Built-in patterns cover API keys of the common formats (OpenAI, Anthropic, AWS, GitHub,
//! Slack, Google, Stripe), bearer tokens, private key blocks, JSON Web Tokens, the passwords in
//! URLs (`postgres://admin:[REDACTED:url_password]@db/prod`, any scheme; the user and host
//! stay) and email addresses; fields named like secrets (`api_key`, `password`,
//! `authorization`, ...) are replaced whole. Nothing is copied when nothing matches.
//!
//! Config keys (unknown keys are an error naming the key). A list with built-in entries is
//! **added to** them: `secret_keys: [session_cookie]` redacts that field besides `password` and
//! the others. To drop a list's built-in entries, name the list in `replace_defaults`; the list
//! given is then the whole list.
//!
//! | key | built in | meaning |
//! |---|---|---|
//! | `events` | `provider:request`, `tool:post`, `prompt:submit` | where to redact; given ones are added |
//! | `secret_keys` | `api_key`, `apikey`, `password`, `passwd`, `secret`, `token`, `access_token`, `refresh_token`, `authorization`, `private_key`, `client_secret` | field names whose values are replaced whole (any case, `-` or `_`); given ones are added |
//! | `replace_defaults` | none | the lists above whose built-in entries are left out, e.g. `[secret_keys]`; another name is an error listing them |
//! | `patterns` | none | extra `{name, regex}` rules, used with the built-in patterns |
//! | `builtin` | `true` | use the built-in patterns (`false` leaves only `patterns` and emails) |
//! | `emails` | `true` | redact email addresses |
//! | `priority` | `-50` | after safety, before most hooks |
//!
//! ```
//! use hooks_std::redaction::{RedactionConfig, RedactionModule};
//! use serde_json::json;
//!
//! let redaction = RedactionModule::new(RedactionConfig::default()).unwrap();
//! let (clean, count) = redaction.redact(&json!({"prompt": "use sk-ant-api03-abcdefghijklmnopqrstuv"})).unwrap();
//! assert_eq!(count, 1);
//! assert_eq!(clean["prompt"], "use [REDACTED:anthropic_key]");
//! ```

use std::sync::{Arc, OnceLock};

use crate::defaults::{BuiltInLists, strings};
use crate::literals::Literals;
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{Hook, HookRegistry, HookResult, MessageLevel};
use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An extra redaction rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// The name shown in the replacement, `[REDACTED:name]`.
    pub name: String,
    /// The regex of what to replace.
    pub regex: String,
}

/// The redaction module's configuration.
///
/// `events` and `secret_keys` hold what is added to the built-in lists: the default
/// configuration's lists are empty, and the built-in entries come from the module.
/// `replace_defaults` names the lists whose built-in entries are left out;
/// [`RedactionConfig::with_built_in_lists`] writes them out, to start a replacement from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedactionConfig {
    /// The events to redact, besides `provider:request`, `tool:post` and `prompt:submit`.
    pub events: Vec<String>,
    /// Use the built-in patterns.
    pub builtin: bool,
    /// Redact email addresses.
    pub emails: bool,
    /// Extra patterns.
    pub patterns: Vec<Pattern>,
    /// Field names whose values are replaced whole, besides the built-in ones.
    pub secret_keys: Vec<String>,
    /// The handlers' priority.
    pub priority: i32,
    /// The lists whose built-in entries are left out, so that the list given is the whole
    /// list: any of [`RedactionConfig::LISTS`].
    pub replace_defaults: Vec<String>,
}

const EVENTS: &[&str] = &["provider:request", "tool:post", "prompt:submit"];

const SECRET_KEYS: &[&str] = &[
    "api_key",
    "apikey",
    "password",
    "passwd",
    "secret",
    "token",
    "access_token",
    "refresh_token",
    "authorization",
    "private_key",
    "client_secret",
];

impl RedactionConfig {
    /// The lists that have built-in entries, which `replace_defaults` may name.
    pub const LISTS: &[&str] = &["events", "secret_keys"];

    /// The default configuration with every built-in list written out in its field and named
    /// in `replace_defaults`: the same module as the default one, and where to start from to
    /// take a built-in entry out.
    pub fn with_built_in_lists() -> Self {
        RedactionConfig {
            events: strings(EVENTS),
            secret_keys: strings(SECRET_KEYS),
            replace_defaults: strings(Self::LISTS),
            ..RedactionConfig::default()
        }
    }

    /// The configuration with the built-in entries merged into its lists, as the module uses it.
    fn resolved(&self) -> Result<RedactionConfig, RedactionConfigError> {
        let lists =
            BuiltInLists::new(&self.replace_defaults, Self::LISTS).map_err(RedactionConfigError)?;
        Ok(RedactionConfig {
            events: lists.merge("events", strings(EVENTS), &self.events),
            secret_keys: lists.merge("secret_keys", strings(SECRET_KEYS), &self.secret_keys),
            replace_defaults: strings(Self::LISTS),
            ..self.clone()
        })
    }
}

impl Default for RedactionConfig {
    fn default() -> Self {
        RedactionConfig {
            events: Vec::new(),
            builtin: true,
            emails: true,
            patterns: Vec::new(),
            secret_keys: Vec::new(),
            priority: -50,
            replace_defaults: Vec::new(),
        }
    }
}

/// A built-in pattern: its name, its regex, and literals one of which every match contains.
struct Builtin {
    name: &'static str,
    regex: &'static str,
    /// The prefilter: a text holding none of these (in any ASCII case) cannot match.
    literals: &'static [&'static str],
    /// What a match becomes, when it keeps part of itself; otherwise `[REDACTED:name]`.
    replacement: Option<&'static str>,
}

const BUILTIN: &[Builtin] = &[
    // `scheme://user:password@host`: the password goes, the user and host stay. It may hold
    // `@` (written unescaped, as people do), so it runs to the last `@` before the host; it
    // stops at what ends a URL's authority or a quoted string. Gated by `@`, rarer in code and
    // logs than `://` (a text with a URL and no `@` pays nothing) and the emails' own literal.
    Builtin {
        name: "url_password",
        regex: r#"(?i)(?P<user>\b[a-z][a-z0-9+.-]*://[^\s:/?#@"'<>`]*:)[^\s/?#"'<>`]+@"#,
        literals: &["@"],
        replacement: Some("${user}[REDACTED:url_password]@"),
    },
    Builtin {
        name: "private_key",
        regex: r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        literals: &["PRIVATE KEY-----"],
        replacement: None,
    },
    Builtin {
        name: "anthropic_key",
        regex: r"sk-ant-[A-Za-z0-9_-]{16,}",
        literals: &["sk-ant-"],
        replacement: None,
    },
    Builtin {
        name: "openai_key",
        regex: r"sk-(?:proj-|live-|svcacct-)?[A-Za-z0-9_-]{16,}",
        literals: &["sk-"],
        replacement: None,
    },
    Builtin {
        name: "stripe_key",
        regex: r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
        literals: &["_live_", "_test_"],
        replacement: None,
    },
    Builtin {
        name: "aws_access_key",
        regex: r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        literals: &["AKIA", "ASIA"],
        replacement: None,
    },
    Builtin {
        name: "github_token",
        regex: r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})",
        literals: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        replacement: None,
    },
    Builtin {
        name: "slack_token",
        regex: r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
        literals: &["xox"],
        replacement: None,
    },
    Builtin {
        name: "google_api_key",
        regex: r"\bAIza[0-9A-Za-z_-]{35}",
        literals: &["AIza"],
        replacement: None,
    },
    Builtin {
        name: "jwt",
        regex: r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        literals: &["eyJ"],
        replacement: None,
    },
    Builtin {
        name: "bearer_token",
        regex: r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*",
        literals: &["bearer"],
        replacement: None,
    },
];

const EMAIL: Builtin = Builtin {
    name: "email",
    regex: r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b",
    literals: &["@"],
    replacement: None,
};

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("redaction module: {0}")]
pub struct RedactionConfigError(String);

#[derive(Debug)]
struct Redactor {
    config: RedactionConfig,
    /// Every pattern's regex and replacement, in rule order.
    sources: Vec<(String, String)>,
    /// The literals of the built-in patterns; `None` when a configured pattern (which has no
    /// known literal) makes every text a candidate.
    prefilter: Option<Literals>,
    /// Compiled at the first text the prefilter lets through. Compiling costs a millisecond,
    /// far more than a per-event hook process spends on anything else, and most events hold
    /// no secret.
    compiled: OnceLock<Compiled>,
    secret_keys: Vec<String>,
}

/// The regexes of a redactor, once needed.
#[derive(Debug)]
struct Compiled {
    /// Which rules match a text, in one pass.
    any: RegexSet,
    /// Each rule's own regex, compiled when the set first finds it.
    rules: Vec<OnceLock<Regex>>,
}

/// The redaction module: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct RedactionModule {
    redactor: Arc<Redactor>,
}

fn normalise_key(key: &str) -> String {
    key.to_ascii_lowercase().replace('-', "_")
}

impl RedactionModule {
    /// Compiles `config`; every pattern and event is checked now.
    pub fn new(config: RedactionConfig) -> Result<Self, RedactionConfigError> {
        let config = config.resolved()?;
        for event in &config.events {
            hooks_core::events::canonicalize(event)
                .map_err(|error| RedactionConfigError(format!("`events`: {error}")))?;
        }
        let mut builtins: Vec<&Builtin> = Vec::new();
        if config.builtin {
            builtins.extend(BUILTIN);
        }
        if config.emails {
            builtins.push(&EMAIL);
        }
        let mut sources: Vec<(String, String)> = builtins
            .iter()
            .map(|b| {
                let replacement = b
                    .replacement
                    .map_or_else(|| format!("[REDACTED:{}]", b.name), str::to_owned);
                (b.regex.to_owned(), replacement)
            })
            .collect();
        // Configured patterns are checked now (they are few); the set is compiled when needed.
        for pattern in &config.patterns {
            Regex::new(&pattern.regex).map_err(|error| {
                RedactionConfigError(format!(
                    "`patterns`: `{}` does not compile: {error}",
                    pattern.name
                ))
            })?;
            // `$` in a name is the name's, not a reference to a group.
            sources.push((
                pattern.regex.clone(),
                format!("[REDACTED:{}]", pattern.name.replace('$', "$$")),
            ));
        }
        // With configured patterns every text is a candidate, and the set is compiled now so
        // that one that cannot be (too large together) is a configuration error.
        let compiled = OnceLock::new();
        if !config.patterns.is_empty() {
            let any = RegexSet::new(sources.iter().map(|(source, _)| source))
                .map_err(|error| RedactionConfigError(format!("`patterns`: {error}")))?;
            let rules = sources.iter().map(|_| OnceLock::new()).collect();
            let _ = compiled.set(Compiled { any, rules });
        }
        let prefilter = config
            .patterns
            .is_empty()
            .then(|| Literals::new(builtins.iter().flat_map(|b| b.literals.iter()), true));
        let secret_keys = config
            .secret_keys
            .iter()
            .map(|k| normalise_key(k))
            .collect();
        Ok(RedactionModule {
            redactor: Arc::new(Redactor {
                config,
                sources,
                prefilter,
                compiled,
                secret_keys,
            }),
        })
    }

    /// The redacted copy of `data` and how many secrets were replaced, or `None` when there
    /// was nothing to replace.
    pub fn redact(&self, data: &Value) -> Option<(Value, usize)> {
        let mut count = 0;
        self.redactor
            .value(data, &mut count)
            .map(|clean| (clean, count))
    }

    /// Redacts one text; `None` when it holds nothing to replace.
    pub fn redact_text(&self, text: &str) -> Option<(String, usize)> {
        let mut count = 0;
        self.redactor
            .text(text, &mut count)
            .map(|clean| (clean, count))
    }
}

impl Redactor {
    /// The regexes, compiled at the first call (configured patterns were compiled by `new`).
    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| Compiled {
            // Only the built-in patterns get here: constants, compiled by the tests.
            any: RegexSet::new(self.sources.iter().map(|(source, _)| source))
                .expect("the built-in patterns compile"),
            rules: self.sources.iter().map(|_| OnceLock::new()).collect(),
        })
    }

    fn text(&self, text: &str, count: &mut usize) -> Option<String> {
        if self.sources.is_empty()
            || self
                .prefilter
                .as_ref()
                .is_some_and(|literals| !literals.is_match(text.as_bytes()))
        {
            return None;
        }
        let compiled = self.compiled();
        let matched = compiled.any.matches(text);
        if !matched.matched_any() {
            return None;
        }
        let mut clean = text.to_owned();
        for index in matched.iter() {
            let regex = compiled.rules[index].get_or_init(|| {
                Regex::new(&self.sources[index].0)
                    .expect("every pattern compiled alone when the module was built")
            });
            let found = regex.find_iter(&clean).count();
            if found > 0 {
                *count += found;
                clean = regex
                    .replace_all(&clean, self.sources[index].1.as_str())
                    .into_owned();
            }
        }
        (clean != text).then_some(clean)
    }

    /// A copy of `value` with secrets replaced, or `None` if it has none (copy on write).
    fn value(&self, value: &Value, count: &mut usize) -> Option<Value> {
        match value {
            Value::String(text) => self.text(text, count).map(Value::String),
            Value::Array(items) => {
                let changed: Vec<Option<Value>> =
                    items.iter().map(|item| self.value(item, count)).collect();
                changed.iter().any(Option::is_some).then(|| {
                    Value::Array(
                        changed
                            .into_iter()
                            .zip(items)
                            .map(|(new, old)| new.unwrap_or_else(|| old.clone()))
                            .collect(),
                    )
                })
            }
            Value::Object(fields) => {
                let changed: Vec<Option<Value>> = fields
                    .iter()
                    .map(|(key, field)| self.field(key, field, count))
                    .collect();
                changed.iter().any(Option::is_some).then(|| {
                    Value::Object(
                        changed
                            .into_iter()
                            .zip(fields)
                            .map(|(new, (key, old))| {
                                (key.clone(), new.unwrap_or_else(|| old.clone()))
                            })
                            .collect::<Map<_, _>>(),
                    )
                })
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => None,
        }
    }

    fn field(&self, key: &str, value: &Value, count: &mut usize) -> Option<Value> {
        let secret_key = self.secret_keys.contains(&normalise_key(key));
        match value {
            Value::String(text) if secret_key && !text.is_empty() && text != "[REDACTED]" => {
                *count += 1;
                Some(Value::from("[REDACTED]"))
            }
            Value::Number(_) if secret_key => {
                *count += 1;
                Some(Value::from("[REDACTED]"))
            }
            _ => self.value(value, count),
        }
    }
}

impl Hook for RedactionModule {
    async fn handle(&self, event: &str, data: &Value) -> HookResult {
        match self.redact(data) {
            Some((clean, count)) => HookResult::modify(clean)
                .with_reason(format!("redacted {count} secret(s)"))
                .with_user_message(
                    format!("redaction: replaced {count} secret(s) in `{event}`"),
                    MessageLevel::Info,
                ),
            None => HookResult::cont(),
        }
    }
}

impl HookModule for RedactionModule {
    fn name(&self) -> &str {
        "redaction"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.name());
        for event in &self.redactor.config.events {
            mounted.register(
                registry,
                event,
                self.clone(),
                self.redactor.config.priority,
                "redaction",
            )?;
        }
        Ok(mounted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_patterns_compile_together_and_alone() {
        let every: Vec<&str> = BUILTIN.iter().chain([&EMAIL]).map(|b| b.regex).collect();
        assert!(RegexSet::new(&every).is_ok());
        for builtin in BUILTIN.iter().chain([&EMAIL]) {
            assert!(Regex::new(builtin.regex).is_ok(), "{}", builtin.name);
        }
    }

    /// The prefilter may only skip texts no pattern matches: every secret a pattern finds
    /// holds one of its literals.
    #[test]
    fn every_secret_a_pattern_finds_holds_one_of_its_literals() {
        let samples = [
            "DATABASE_URL=postgresql+psycopg2://admin:hunter2@db/prod",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
            "sk-ant-api03-AbCdEfGhIjKlMnOpQr",
            "sk-proj-AbCdEfGhIjKlMnOpQrSt",
            "rk_test_AbCdEfGhIjKlMnOpQr",
            "ASIAABCDEFGHIJKLMNOP",
            "ghs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "github_pat_AbCdEfGhIjKlMnOpQrStUv",
            "xoxb-1234567890-abc",
            "AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz0123456",
            "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2Q",
            "Authorization: BEARER abcdefgh12345678",
            "mail me at someone@example.org",
        ];
        for builtin in BUILTIN.iter().chain([&EMAIL]) {
            let regex = Regex::new(builtin.regex).unwrap_or_else(|e| panic!("{e}"));
            let found: Vec<&str> = samples
                .iter()
                .filter_map(|sample| regex.find(sample).map(|m| m.as_str()))
                .collect();
            assert!(!found.is_empty(), "no sample for {}", builtin.name);
            for secret in found {
                let lower = secret.to_ascii_lowercase();
                assert!(
                    builtin
                        .literals
                        .iter()
                        .any(|literal| lower.contains(&literal.to_ascii_lowercase())),
                    "{}: `{secret}` holds none of {:?}",
                    builtin.name,
                    builtin.literals
                );
            }
        }
    }

    #[test]
    fn nothing_is_compiled_for_a_text_without_a_candidate() {
        let redaction =
            RedactionModule::new(RedactionConfig::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(redaction.redact_text("cargo test --workspace").is_none());
        // A URL without `@` holds no credentials: the prefilter answers for it too.
        assert!(
            redaction
                .redact_text("fetched https://docs.rs/regex/ and http://localhost:8080/health")
                .is_none()
        );
        assert!(redaction.redactor.compiled.get().is_none());
        assert!(
            redaction
                .redact_text("key sk-live-AbCdEfGhIjKlMnOpQrSt1234")
                .is_some()
        );
        assert!(redaction.redactor.compiled.get().is_some());
    }
}
