//! The redaction module (`provider:request`, `tool:post`, `prompt:submit`): replaces secrets and
//! personal data in event data, via modify, and says how many it replaced.
//!
//! What it finds, in the order in which a rule claims a range of text (a later rule's match
//! overlapping it is dropped):
//!
//! - passwords in URLs (`postgres://admin:[REDACTED:url_password]@db/prod`, any scheme; the
//!   user and host stay) and private key blocks with key material in them;
//! - the keys and tokens of the providers an agent meets, each by its documented format
//!   (source control, package registries, clouds, model providers, payments,
//!   CI, chat webhooks, ...), masked as `[REDACTED:<provider>_token]` or the like; a webhook
//!   keeps its host (`https://hooks.slack.com/services/[REDACTED:slack_webhook]`);
//! - JSON Web Tokens and bearer tokens;
//! - secrets found by their name: `DB_PASSWORD=...`, `api_key: '...'`,
//!   `"client_secret": "..."`, `--password ...`, `Authorization: Basic ...`,
//!   `<secret>...</secret>`, `curl -u user:...`, `password=` in connection strings; only the
//!   value is masked (`[REDACTED:password]`, `[REDACTED:secret]`), and only when it reads as
//!   one;
//! - email addresses, then the configured patterns.
//!
//! Placeholders and look-alikes are left alone: references
//! (`${DB_PASSWORD}`, `$(cmd)`, `{{ x }}`, `<your key here>`), `x`-filled, masked or
//! sequential values (`ghp_xxxx...`, `Bearer ****`), documented examples (`...EXAMPLE`),
//! values made of words (`config.db.password`), hashes and ids under names that are not a
//! secret's, and publishable keys (Stripe's `pk_live_`). Fields named like secrets
//! (`api_key`, `password`, `authorization`, ...) in the event data are replaced whole.
//! Nothing is copied when nothing matches, and a text holding none of the rules' literals
//! costs one pass of a literal prefilter.
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
//! let (clean, count) = redaction.redact(&json!({"prompt": "use sk-ant-api03-Q7rT2mVx9LpZk4Ns8WcY"})).unwrap();
//! assert_eq!(count, 1);
//! assert_eq!(clean["prompt"], "use [REDACTED:anthropic_key]");
//! ```

mod named;
mod needles;
mod placeholder;
mod providers;

use std::sync::{Arc, OnceLock};

use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{Hook, HookRegistry, HookResult, MessageLevel};
use hooks_safety::lists::{BuiltInLists, strings};
use needles::{Needles, Owner};
use providers::{AFTER_PROVIDERS, EMAIL, FORMATS, Format, URL_PASSWORD};
use regex::Regex;
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
        let lists = BuiltInLists::new(&self.replace_defaults, Self::LISTS)
            .map_err(|unknown| RedactionConfigError(unknown.to_string()))?;
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

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("redaction module: {0}")]
pub struct RedactionConfigError(String);

/// A rule that finds secrets by their shape.
#[derive(Debug)]
struct Rule {
    /// The name in the replacement, `[REDACTED:name]`.
    name: String,
    source: String,
    check: Check,
    /// Compiled the first time a text holds one of the rule's literals: compiling every rule
    /// costs milliseconds, far more than a per-event hook process spends on anything else,
    /// and most texts need none of them.
    regex: OnceLock<Option<Regex>>,
}

/// How a rule's match is judged before it is masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Masked whatever it is (configured patterns, emails, age keys).
    None,
    /// Left alone when it is a placeholder or look-alike.
    Placeholder,
    /// A password in a URL: left alone when it is a reference, filled, or the word itself.
    UrlPassword,
    /// A private key block: masked when its body holds key material.
    KeyMaterial,
}

impl Rule {
    fn built_in(format: &Format) -> Self {
        let check = match format.name {
            "url_password" => Check::UrlPassword,
            "private_key" => Check::KeyMaterial,
            "email" => Check::None,
            _ if format.check => Check::Placeholder,
            _ => Check::None,
        };
        Rule {
            name: format.name.to_owned(),
            // ASCII word boundaries: a Unicode one sends a text with any non-ASCII byte to
            // the slowest of the regex engines.
            source: format.regex.replace(r"\b", r"(?-u:\b)"),
            check,
            regex: OnceLock::new(),
        }
    }

    fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
    }
}

/// A range of the text to mask, and which rule found it (the lower, the stronger claim).
#[derive(Debug, Clone, Copy)]
struct Span<'a> {
    start: usize,
    end: usize,
    rank: usize,
    label: &'a str,
}

#[derive(Debug)]
struct Redactor {
    config: RedactionConfig,
    /// The built-in rules (URL passwords, provider formats, tokens), then emails, then the
    /// configured patterns: the order in which they claim a range.
    rules: Vec<Rule>,
    /// How many of `rules` come before the secrets found by name.
    before_names: usize,
    /// How many of `rules` are found through the prefilter (the configured patterns, which
    /// have no known literal, run on every text).
    prefiltered: usize,
    /// Whether the secrets found by name are looked for.
    names: bool,
    needles: Needles,
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
        let config = config.resolved()?;
        for event in &config.events {
            hooks_core::events::canonicalize(event)
                .map_err(|error| RedactionConfigError(format!("`events`: {error}")))?;
        }
        let mut formats: Vec<&Format> = Vec::new();
        if config.builtin {
            formats.push(&URL_PASSWORD);
            formats.extend(FORMATS);
            formats.extend(AFTER_PROVIDERS);
        }
        let before_names = formats.len();
        if config.emails {
            formats.push(&EMAIL);
        }
        let mut rules: Vec<Rule> = formats.iter().map(|f| Rule::built_in(f)).collect();
        let prefiltered = rules.len();
        let mut literals: Vec<(&str, bool, Owner)> = Vec::new();
        for (index, format) in formats.iter().enumerate() {
            // URLs and bearer tokens are matched in any case; the providers' prefixes exactly.
            let ignore_case = format.regex.starts_with("(?i)");
            literals.extend(
                format
                    .literals
                    .iter()
                    .map(|literal| (*literal, ignore_case, Owner::Rule(index))),
            );
        }
        if config.builtin {
            literals.extend(named::KEYWORDS.iter().map(|k| (*k, true, Owner::Name)));
            literals.extend(
                named::USER_FLAGS
                    .iter()
                    .map(|flag| (*flag, false, Owner::UserFlag)),
            );
        }
        // Configured patterns are compiled now, so that a bad one is a configuration error.
        for pattern in &config.patterns {
            let regex = Regex::new(&pattern.regex).map_err(|error| {
                RedactionConfigError(format!(
                    "`patterns`: `{}` does not compile: {error}",
                    pattern.name
                ))
            })?;
            rules.push(Rule {
                name: pattern.name.clone(),
                source: pattern.regex.clone(),
                check: Check::None,
                regex: OnceLock::from(Some(regex)),
            });
        }
        let needles = Needles::new(prefiltered, literals);
        let secret_keys = config
            .secret_keys
            .iter()
            .map(|k| normalise_key(k))
            .collect();
        Ok(RedactionModule {
            redactor: Arc::new(Redactor {
                names: config.builtin,
                config,
                rules,
                before_names,
                prefiltered,
                needles,
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
        let configured = self.rules.len() > self.prefiltered;
        let hits = self.needles.find(text.as_bytes());
        if hits.is_none() && !configured {
            return None;
        }
        let hits = hits.unwrap_or_default();
        let mut spans: Vec<Span<'_>> = Vec::new();
        // The rules whose literals the text holds, then the configured ones (every text).
        let candidates = hits
            .rules()
            .filter(|&rank| rank < self.prefiltered)
            .chain(self.prefiltered..self.rules.len());
        for rank in candidates {
            let rule = &self.rules[rank];
            let Some(regex) = rule.regex() else { continue };
            // Names rank after the built-in rules: a provider's format says more.
            let rank = if rank < self.before_names {
                rank
            } else {
                rank + 1
            };
            let mut push = |whole: regex::Match<'_>, secret: regex::Match<'_>| {
                if !self.keeps(rule.check, text, whole, secret) {
                    spans.push(Span {
                        start: secret.start(),
                        end: secret.end(),
                        rank,
                        label: &rule.name,
                    });
                }
            };
            // Finding a match costs less than finding its groups: groups only where asked.
            if regex.captures_len() > 1 {
                for found in regex.captures_iter(text) {
                    if let Some(whole) = found.get(0) {
                        push(whole, found.name("s").unwrap_or(whole));
                    }
                }
            } else {
                for whole in regex.find_iter(text) {
                    push(whole, whole);
                }
            }
        }
        if self.names {
            let mut last_name = usize::MAX;
            for &(at, end) in &hits.names {
                let (start, stop) = named::name_around(text.as_bytes(), at, end);
                // Two keywords in one name (`password` holds `pass`): the name once.
                if start == last_name {
                    continue;
                }
                last_name = start;
                if let Some(found) = named::at_name(text, start, stop) {
                    spans.push(self.named_span(found));
                }
            }
            for &(at, end) in &hits.user_flags {
                if let Some(found) = named::user_flag(text, at, end) {
                    spans.push(self.named_span(found));
                }
            }
        }
        if spans.is_empty() {
            return None;
        }
        // The strongest claim on a range keeps it; a weaker one overlapping it is dropped.
        spans.sort_by_key(|span| (span.rank, span.start));
        let mut kept: Vec<Span<'_>> = Vec::with_capacity(spans.len());
        for span in spans {
            let overlaps = kept
                .iter()
                .any(|k| span.start < k.end && k.start < span.end);
            if !overlaps {
                kept.push(span);
            }
        }
        kept.sort_by_key(|span| span.start);
        *count += kept.len();
        let mut clean = String::with_capacity(text.len());
        let mut at = 0;
        for span in &kept {
            clean.push_str(&text[at..span.start]);
            clean.push_str("[REDACTED:");
            clean.push_str(span.label);
            clean.push(']');
            at = span.end;
        }
        clean.push_str(&text[at..]);
        Some(clean)
    }

    fn named_span(&self, found: named::Found) -> Span<'static> {
        Span {
            start: found.start,
            end: found.end,
            rank: self.before_names,
            label: found.kind.label(),
        }
    }

    /// Whether a match is left alone: a placeholder or look-alike, judged by the rule's check.
    fn keeps(
        &self,
        check: Check,
        text: &str,
        whole: regex::Match<'_>,
        secret: regex::Match<'_>,
    ) -> bool {
        match check {
            Check::None => false,
            Check::UrlPassword => {
                let password = secret.as_str();
                password.contains("[REDACTED")
                    || placeholder::is_reference(password)
                    || placeholder::is_filled(password)
                    || placeholder::is_url_password_word(password)
            }
            Check::KeyMaterial => !providers::is_key_material(whole.as_str()),
            Check::Placeholder => {
                let word = word_around(text, whole.start(), whole.end());
                placeholder::is_placeholder(word)
                    || placeholder::is_identifier_like(secret.as_str())
                    || names_a_file(text, whole.end())
            }
        }
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

/// The token a match is part of: the match widened over what is neither space, quote nor
/// delimiter, so that `xoxp-1234-####` is judged whole (at most 256 bytes each way).
fn word_around(text: &str, start: usize, end: usize) -> &str {
    let bytes = text.as_bytes();
    let stops = |b: &u8| {
        b.is_ascii_whitespace()
            || matches!(
                b,
                b'"' | b'\''
                    | b'`'
                    | b'='
                    | b','
                    | b';'
                    | b'('
                    | b')'
                    | b'<'
                    | b'>'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
            )
    };
    let from = bytes[start.saturating_sub(256)..start]
        .iter()
        .rposition(stops)
        .map_or(start.saturating_sub(256), |p| {
            start.saturating_sub(256) + p + 1
        });
    let to = bytes[end..bytes.len().min(end + 256)]
        .iter()
        .position(stops)
        .map_or(bytes.len().min(end + 256), |p| end + p);
    text.get(from..to).unwrap_or(&text[start..end])
}

/// Whether a match is followed by a file extension (`ico-<hex>.png`): a file's name.
fn names_a_file(text: &str, end: usize) -> bool {
    let rest = &text.as_bytes()[end..];
    if rest.first() != Some(&b'.') {
        return false;
    }
    let extension = rest[1..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    (2..=4).contains(&extension) && rest[1..=extension].iter().any(u8::is_ascii_alphabetic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_rule_compiles() {
        let every = std::iter::once(&URL_PASSWORD)
            .chain(FORMATS)
            .chain(AFTER_PROVIDERS)
            .chain([&EMAIL]);
        for format in every {
            let rule = Rule::built_in(format);
            assert!(Regex::new(&rule.source).is_ok(), "{}", format.name);
            assert!(
                !format.literals.is_empty(),
                "{} has no literal",
                format.name
            );
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
        let compiled = |r: &RedactionModule| {
            r.redactor
                .rules
                .iter()
                .filter(|rule| rule.regex.get().is_some())
                .count()
        };
        assert_eq!(compiled(&redaction), 0);
        let key = format!("sk-live-{}", "Q7rT2mVx9LpZk4Ns8WcY");
        assert!(redaction.redact_text(&format!("key {key}")).is_some());
        assert!(compiled(&redaction) >= 1);
        assert!(compiled(&redaction) < 5, "only the rules the text names");
    }

    #[test]
    fn a_word_is_judged_whole_and_file_names_are_not_keys() {
        let text = "id: tok-1234-#### and more";
        let at = text.find("tok").unwrap_or_default();
        assert_eq!(word_around(text, at, at + 8), "tok-1234-####");
        assert!(names_a_file("ico-abc.png here", 7));
        assert!(!names_a_file("sk-abc. Then", 6));
    }
}
