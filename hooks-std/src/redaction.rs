//! The redaction module (`provider:request`, `tool:post`, `prompt:submit`): replaces secrets and
//! personal data in event data, via modify, and says how many it replaced.
//!
//! Built-in patterns cover API keys of the common formats (OpenAI, Anthropic, AWS, GitHub,
//! Slack, Google, Stripe), bearer tokens, private key blocks, JSON Web Tokens and email
//! addresses; fields named like secrets (`api_key`, `password`, `authorization`, ...) are
//! replaced whole. Nothing is copied when nothing matches.
//!
//! Config keys (unknown keys are an error naming the key):
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `events` | `provider:request`, `tool:post`, `prompt:submit` | where to redact |
//! | `builtin` | `true` | use the built-in patterns |
//! | `emails` | `true` | redact email addresses |
//! | `patterns` | none | extra `{name, regex}` rules |
//! | `secret_keys` | `api_key`, `apikey`, `password`, `passwd`, `secret`, `token`, `access_token`, `refresh_token`, `authorization`, `private_key`, `client_secret` | field names whose values are replaced whole (any case, `-` or `_`) |
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

use std::sync::Arc;

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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedactionConfig {
    /// The events to redact.
    pub events: Vec<String>,
    /// Use the built-in patterns.
    pub builtin: bool,
    /// Redact email addresses.
    pub emails: bool,
    /// Extra patterns.
    pub patterns: Vec<Pattern>,
    /// Field names whose values are replaced whole.
    pub secret_keys: Vec<String>,
    /// The handlers' priority.
    pub priority: i32,
}

impl Default for RedactionConfig {
    fn default() -> Self {
        RedactionConfig {
            events: ["provider:request", "tool:post", "prompt:submit"]
                .map(String::from)
                .to_vec(),
            builtin: true,
            emails: true,
            patterns: Vec::new(),
            secret_keys: [
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
            ]
            .map(String::from)
            .to_vec(),
            priority: -50,
        }
    }
}

const BUILTIN: &[(&str, &str)] = &[
    (
        "private_key",
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ),
    ("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{16,}"),
    (
        "openai_key",
        r"sk-(?:proj-|live-|svcacct-)?[A-Za-z0-9_-]{16,}",
    ),
    ("stripe_key", r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})",
    ),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    ("bearer_token", r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*"),
];

const EMAIL: (&str, &str) = (
    "email",
    r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b",
);

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("redaction module: {0}")]
pub struct RedactionConfigError(String);

#[derive(Debug)]
struct Redactor {
    config: RedactionConfig,
    any: RegexSet,
    rules: Vec<(Regex, String)>,
    secret_keys: Vec<String>,
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
        for event in &config.events {
            hooks_core::events::canonicalize(event)
                .map_err(|error| RedactionConfigError(format!("`events`: {error}")))?;
        }
        let mut sources: Vec<(String, String)> = Vec::new();
        if config.builtin {
            sources.extend(
                BUILTIN
                    .iter()
                    .map(|(n, r)| ((*n).to_owned(), (*r).to_owned())),
            );
        }
        if config.emails {
            sources.push((EMAIL.0.to_owned(), EMAIL.1.to_owned()));
        }
        sources.extend(
            config
                .patterns
                .iter()
                .map(|p| (p.name.clone(), p.regex.clone())),
        );
        let rules = sources
            .iter()
            .map(|(name, source)| {
                Regex::new(source)
                    .map(|regex| (regex, format!("[REDACTED:{name}]")))
                    .map_err(|error| {
                        RedactionConfigError(format!(
                            "`patterns`: `{name}` does not compile: {error}"
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let any = RegexSet::new(sources.iter().map(|(_, source)| source))
            .map_err(|error| RedactionConfigError(format!("`patterns`: {error}")))?;
        let secret_keys = config
            .secret_keys
            .iter()
            .map(|k| normalise_key(k))
            .collect();
        Ok(RedactionModule {
            redactor: Arc::new(Redactor {
                config,
                any,
                rules,
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
    fn text(&self, text: &str, count: &mut usize) -> Option<String> {
        let matched = self.any.matches(text);
        if !matched.matched_any() {
            return None;
        }
        let mut clean = text.to_owned();
        for index in matched.iter() {
            let (regex, replacement) = &self.rules[index];
            let found = regex.find_iter(&clean).count();
            if found > 0 {
                *count += found;
                clean = regex.replace_all(&clean, replacement.as_str()).into_owned();
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
