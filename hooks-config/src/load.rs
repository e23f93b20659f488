//! Loading a hooks YAML file: every problem is collected, each with its file, line and column.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use globset::GlobBuilder;
use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoadError, Node, Span};
use regex::Regex;

use hooks_core::events::fields::TOOL_NAME;
use hooks_std::catalog::{ModuleCatalog, ModuleContext};

use crate::modules::{self, ConfiguredModule};
use crate::{
    Action, AnswerCache, CommandHook, ComponentHook, ConfigError, ConfigErrors,
    DEFAULT_COMMAND_TIMEOUT, DEFAULT_WASM_MEMORY_MB, DEFAULT_WASM_TIMEOUT, Entry, EventMatcher,
    HookKind, HooksConfig, HttpHook, LlmHook, MAX_COMMAND_TIMEOUT, MatcherHook, OnFailure, Pattern,
    Provider, Rewrite, WasmAbi,
};

struct Loader<'c> {
    file: PathBuf,
    errors: Vec<ConfigError>,
    /// Where the `modules:` section's names come from.
    catalog: &'c ModuleCatalog,
    /// Where the modules' relative paths resolve: the file's directory.
    context: ModuleContext,
}

/// Where to point for a problem with a whole mapping: its first key (a mapping's own span may
/// start after it).
fn anchor(mapping: &MarkedMappingNode) -> Span {
    mapping
        .keys()
        .next()
        .map_or(*mapping.span(), |key| *key.span())
}

fn position(span: &Span) -> (usize, usize) {
    span.start()
        .map_or((1, 1), |marker| (marker.line(), marker.column()))
}

/// The keys an entry of hook type `kind` may have; `None` for an unknown type.
fn keys_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "command" => &[
            "type",
            "name",
            "priority",
            "matcher",
            "command",
            "timeout_ms",
            "on_failure",
            "async",
            "persistent",
            "rewrite",
        ],
        "matcher" => &["type", "name", "priority", "match", "action", "message"],
        "http" => &[
            "type",
            "name",
            "priority",
            "matcher",
            "url",
            "headers",
            "timeout_ms",
            "on_failure",
            "rewrite",
        ],
        "llm" => &[
            "type",
            "name",
            "priority",
            "matcher",
            "model",
            "prompt",
            "max_tokens",
            "provider",
            "base_url",
            "api_key_env",
            "cache",
            "cache_ttl_secs",
            "cache_size",
            "timeout_ms",
            "on_failure",
        ],
        "wasm" => &[
            "type",
            "name",
            "priority",
            "matcher",
            "path",
            "abi",
            "config",
            "timeout_ms",
            "memory_mb",
            "allow_read",
            "allow_env",
            "on_failure",
            "rewrite",
        ],
        _ => return None,
    })
}

impl Loader<'_> {
    fn error(&mut self, span: &Span, message: impl Into<String>) {
        let (line, column) = position(span);
        self.errors.push(ConfigError {
            file: self.file.clone(),
            line,
            column,
            message: message.into(),
        });
    }

    /// Reports keys of `mapping` that are not in `allowed`.
    fn known_keys(&mut self, mapping: &MarkedMappingNode, allowed: &[&str], context: &str) {
        for key in mapping.keys() {
            if !allowed.contains(&key.as_str()) {
                self.error(
                    key.span(),
                    format!(
                        "unknown key `{}` in {context}; expected one of {}",
                        key.as_str(),
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    fn string(&mut self, mapping: &MarkedMappingNode, key: &str, context: &str) -> Option<String> {
        match mapping.get_node(key)? {
            Node::Scalar(scalar) => Some(scalar.as_str().to_owned()),
            other => {
                self.error(
                    other.span(),
                    format!("`{key}` in {context} must be a string"),
                );
                None
            }
        }
    }

    fn required_string(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
    ) -> Option<String> {
        if mapping.get_node(key).is_none() {
            self.error(&anchor(mapping), format!("{context} is missing `{key}`"));
            return None;
        }
        self.string(mapping, key, context).filter(|value| {
            let empty = value.trim().is_empty();
            if empty {
                let span = *mapping.get_node(key).map_or(mapping.span(), Node::span);
                self.error(&span, format!("`{key}` in {context} must not be empty"));
            }
            !empty
        })
    }

    fn scalar<'n>(
        &mut self,
        mapping: &'n MarkedMappingNode,
        key: &str,
        what: &str,
        context: &str,
    ) -> Option<&'n MarkedScalarNode> {
        match mapping.get_node(key)? {
            Node::Scalar(scalar) => Some(scalar),
            other => {
                self.error(other.span(), format!("`{key}` in {context} must be {what}"));
                None
            }
        }
    }

    fn load(&mut self, root: &Node) -> (Vec<Entry>, Vec<ConfiguredModule>) {
        let Some(top) = root.as_mapping() else {
            self.error(
                root.span(),
                "a hooks file is a mapping with a `hooks:` or a `modules:` key",
            );
            return (Vec::new(), Vec::new());
        };
        self.known_keys(top, &["modules", "hooks"], "the top level");
        let modules = match top.get_node("modules") {
            Some(modules) => self.modules(modules),
            None => Vec::new(),
        };
        let entries = match top.get_node("hooks") {
            Some(hooks) => self.hooks(hooks),
            None if top.get_node("modules").is_none() => {
                self.error(top.span(), "the file has no `hooks:` and no `modules:` key");
                Vec::new()
            }
            None => Vec::new(),
        };
        (entries, modules)
    }

    /// The `modules:` section: each module built from its settings.
    fn modules(&mut self, node: &Node) -> Vec<ConfiguredModule> {
        let Some(modules) = node.as_mapping() else {
            if !matches!(node, Node::Scalar(scalar) if scalar.may_coerce() && scalar.as_str().is_empty())
            {
                self.error(
                    node.span(),
                    "`modules` maps module names to their settings (`safety: {}`)",
                );
            }
            return Vec::new();
        };
        let mut built = Vec::new();
        for (name, settings) in modules.iter() {
            match modules::build(self.catalog, &self.context, name, settings) {
                Ok(module) => built.push(module),
                Err(problems) => {
                    for problem in problems {
                        self.error(&problem.span, problem.message);
                    }
                }
            }
        }
        built
    }

    /// The `hooks:` section: each entry of each event.
    fn hooks(&mut self, hooks: &Node) -> Vec<Entry> {
        // `hooks:` with nothing after it (or `hooks: {}`) is a file of modules only.
        if matches!(hooks, Node::Scalar(scalar) if scalar.may_coerce() && scalar.as_str().is_empty())
        {
            return Vec::new();
        }
        let Some(hooks) = hooks.as_mapping() else {
            self.error(hooks.span(), "`hooks` maps event names to lists of hooks");
            return Vec::new();
        };
        let mut entries = Vec::new();
        for (event_key, list) in hooks.iter() {
            let event = match crate::agent_protocol::event_named(event_key.as_str()) {
                Ok(canonical) => canonical,
                Err(problem) => {
                    self.error(event_key.span(), problem.to_string());
                    continue;
                }
            };
            let Some(list) = list.as_sequence() else {
                self.error(
                    list.span(),
                    format!(
                        "`{}` takes a list of hooks (`- type: ...`)",
                        event_key.as_str()
                    ),
                );
                continue;
            };
            for (index, item) in list.iter().enumerate() {
                let context = format!("hook {} of `{}`", index + 1, event_key.as_str());
                if let Some(entry) = self.entry(item, &event, event_key.as_str(), &context) {
                    entries.push(entry);
                }
            }
        }
        entries
    }

    fn entry(&mut self, item: &Node, event: &str, written: &str, context: &str) -> Option<Entry> {
        let Some(mapping) = item.as_mapping() else {
            self.error(
                item.span(),
                format!("{context} must be a mapping with a `type`"),
            );
            return None;
        };
        // Every key is checked even when one is wrong, so that one run reports every problem
        // of the entry: without a `type` only its own keys are unknown, the shared ones are not.
        let kind = self.required_string(mapping, "type", context);
        let (line, _) = position(&anchor(mapping));
        let name = self.string(mapping, "name", context);
        let priority = self.priority(mapping, context);
        let hook = kind
            .as_deref()
            .and_then(|kind| self.hook(mapping, kind, event, context));
        let matcher = self.event_matcher(mapping, context);
        let rewrite = self.rewrite(mapping, context);
        let kind = kind?;
        Some(Entry {
            event: event.to_owned(),
            event_as_written: written.to_owned(),
            name: name.unwrap_or_else(|| format!("{}:{line}:{kind}", self.file.display())),
            priority,
            line,
            matcher,
            hook: hook?,
            rewrite,
        })
    }

    /// The `priority` of an entry, 0 when absent.
    fn priority(&mut self, mapping: &MarkedMappingNode, context: &str) -> i32 {
        let Some(scalar) = self.scalar(mapping, "priority", "an integer", context) else {
            return 0;
        };
        scalar.as_i32().unwrap_or_else(|| {
            self.error(
                scalar.span(),
                format!(
                    "`priority` in {context} must be an integer, not `{}`",
                    scalar.as_str()
                ),
            );
            0
        })
    }

    /// What an entry of type `kind` does, its keys checked against those of its type.
    fn hook(
        &mut self,
        mapping: &MarkedMappingNode,
        kind: &str,
        event: &str,
        context: &str,
    ) -> Option<HookKind> {
        let Some(keys) = keys_of(kind) else {
            let span = *mapping.get_node("type").map_or(mapping.span(), Node::span);
            self.error(
                &span,
                format!("unknown hook type `{kind}`; expected command, matcher, llm, http or wasm"),
            );
            return None;
        };
        self.known_keys(mapping, keys, context);
        match kind {
            "command" => self.command(mapping, context).map(HookKind::Command),
            "matcher" => self.matcher(mapping, event, context).map(HookKind::Matcher),
            "http" => self.http(mapping, context).map(HookKind::Http),
            "wasm" => self.wasm(mapping, context).map(HookKind::Wasm),
            _ => self.llm(mapping, context).map(HookKind::Llm),
        }
    }

    /// The `matcher` of a command, HTTP or LLM entry (a matcher entry has its own `match`).
    fn event_matcher(
        &mut self,
        mapping: &MarkedMappingNode,
        context: &str,
    ) -> Option<EventMatcher> {
        let scalar = self.scalar(mapping, "matcher", "a string", context)?;
        match EventMatcher::parse(scalar.as_str()) {
            Ok(matcher) => Some(matcher),
            Err(error) => {
                self.error(
                    scalar.span(),
                    format!("`matcher` in {context} is not a valid regex: {error}"),
                );
                None
            }
        }
    }

    fn command(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<CommandHook> {
        let command = self.required_string(mapping, "command", context);
        let timeout = self.timeout(mapping, context, DEFAULT_COMMAND_TIMEOUT);
        let on_failure = self.on_failure(mapping, context);
        let fire_and_forget = self.flag(mapping, "async", context);
        let persistent = self.flag(mapping, "persistent", context);
        if fire_and_forget && persistent {
            let span = *mapping
                .get_node("persistent")
                .map_or(mapping.span(), Node::span);
            self.error(
                &span,
                format!(
                    "{context}: `persistent` and `async` cannot both be true (a persistent hook \
                     answers every event in turn)"
                ),
            );
        }
        Some(CommandHook {
            command: command?,
            timeout,
            on_failure,
            fire_and_forget,
            persistent,
        })
    }

    /// A `true`/`false` key, false when absent.
    fn flag(&mut self, mapping: &MarkedMappingNode, key: &str, context: &str) -> bool {
        match self.scalar(mapping, key, "true or false", context) {
            Some(scalar) => scalar.as_bool().unwrap_or_else(|| {
                self.error(
                    scalar.span(),
                    format!("`{key}` must be true or false, not `{}`", scalar.as_str()),
                );
                false
            }),
            None => false,
        }
    }

    fn timeout(
        &mut self,
        mapping: &MarkedMappingNode,
        context: &str,
        default: Duration,
    ) -> Duration {
        let Some(scalar) = self.scalar(
            mapping,
            "timeout_ms",
            "a whole number of milliseconds",
            context,
        ) else {
            return default;
        };
        match scalar.as_u64() {
            Some(ms) if ms >= 1 && Duration::from_millis(ms) <= MAX_COMMAND_TIMEOUT => {
                Duration::from_millis(ms)
            }
            _ => {
                let message = format!(
                    "`timeout_ms` must be from 1 to {} milliseconds, not `{}`",
                    MAX_COMMAND_TIMEOUT.as_millis(),
                    scalar.as_str()
                );
                self.error(scalar.span(), message);
                default
            }
        }
    }

    fn url(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
        default: Option<&str>,
    ) -> Option<String> {
        let url = match default {
            Some(default) => self
                .string(mapping, key, context)
                .unwrap_or_else(|| default.to_owned()),
            None => self.required_string(mapping, key, context)?,
        };
        if url.starts_with("http://") || url.starts_with("https://") {
            return Some(url);
        }
        let span = *mapping.get_node(key).map_or(mapping.span(), Node::span);
        self.error(
            &span,
            format!("`{key}` must be an http:// or https:// URL, not `{url}`"),
        );
        None
    }

    fn http(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<HttpHook> {
        let url = self.url(mapping, "url", context, None);
        let mut headers = Vec::new();
        match mapping.get_node("headers") {
            Some(Node::Mapping(fields)) => {
                for (name, value) in fields.iter() {
                    match value {
                        Node::Scalar(value) => {
                            headers.push((name.as_str().to_owned(), value.as_str().to_owned()))
                        }
                        other => self.error(
                            other.span(),
                            format!("header `{}` must be a string", name.as_str()),
                        ),
                    }
                }
            }
            Some(other) => self.error(other.span(), "`headers` maps header names to values"),
            None => {}
        }
        let timeout = self.timeout(mapping, context, DEFAULT_COMMAND_TIMEOUT);
        let on_failure = self.on_failure(mapping, context);
        Some(HttpHook {
            url: url?,
            headers,
            timeout,
            on_failure,
        })
    }

    fn positive(
        &mut self,
        mapping: &MarkedMappingNode,
        key: &str,
        context: &str,
        default: u64,
        max: u64,
    ) -> u64 {
        let Some(scalar) = self.scalar(mapping, key, "a positive whole number", context) else {
            return default;
        };
        match scalar.as_u64() {
            Some(n) if (1..=max).contains(&n) => n,
            _ => {
                let message = format!("`{key}` must be from 1 to {max}, not `{}`", scalar.as_str());
                self.error(scalar.span(), message);
                default
            }
        }
    }

    fn llm(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<LlmHook> {
        let model = self.required_string(mapping, "model", context);
        let prompt = self.required_string(mapping, "prompt", context);
        let provider = match self.scalar(mapping, "provider", "openai or anthropic", context) {
            None => Provider::OpenAi,
            Some(scalar) => match scalar.as_str() {
                "openai" => Provider::OpenAi,
                "anthropic" => Provider::Anthropic,
                other => {
                    let message = format!("`provider` must be openai or anthropic, not `{other}`");
                    self.error(scalar.span(), message);
                    Provider::OpenAi
                }
            },
        };
        let default_base = match provider {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
        };
        let base_url = self.url(mapping, "base_url", context, Some(default_base));
        let api_key_env = self.string(mapping, "api_key_env", context);
        if let Some(variable) = &api_key_env
            && (variable.is_empty()
                || !variable
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            let span = *mapping
                .get_node("api_key_env")
                .map_or(mapping.span(), Node::span);
            self.error(&span, format!("`api_key_env` names an environment variable (letters, digits, `_`), not `{variable}`"));
        }
        let max_tokens = self.positive(mapping, "max_tokens", context, 256, 100_000);
        let ttl = self.positive(mapping, "cache_ttl_secs", context, 300, 86_400);
        let size = self.positive(mapping, "cache_size", context, 256, 1_000_000);
        let cache = match self.scalar(mapping, "cache", "true or false", context) {
            Some(scalar) => scalar.as_bool().unwrap_or_else(|| {
                self.error(
                    scalar.span(),
                    format!("`cache` must be true or false, not `{}`", scalar.as_str()),
                );
                false
            }),
            None => false,
        };
        let timeout = self.timeout(mapping, context, Duration::from_secs(30));
        let on_failure = self.on_failure(mapping, context);
        let cache = cache.then(|| {
            let size = usize::try_from(size).unwrap_or(256);
            Arc::new(AnswerCache::new(size, Duration::from_secs(ttl)))
        });
        Some(LlmHook {
            model: model?,
            prompt: prompt?,
            max_tokens: u32::try_from(max_tokens).unwrap_or(256),
            provider,
            base_url: base_url?,
            api_key_env,
            timeout,
            on_failure,
            cache,
        })
    }

    /// The `rewrite` of an entry: `confirm` unless it says `apply`.
    fn rewrite(&mut self, mapping: &MarkedMappingNode, context: &str) -> Rewrite {
        match self.scalar(mapping, "rewrite", "confirm or apply", context) {
            Some(scalar) => match scalar.as_str() {
                "confirm" => Rewrite::Confirm,
                "apply" => Rewrite::Apply,
                other => {
                    self.error(
                        scalar.span(),
                        format!("`rewrite` must be confirm or apply, not `{other}`"),
                    );
                    Rewrite::Confirm
                }
            },
            None => Rewrite::Confirm,
        }
    }

    fn wasm(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<ComponentHook> {
        let path = self.required_string(mapping, "path", context);
        let abi = match self.scalar(mapping, "abi", "hooks or amplifier", context) {
            None => WasmAbi::Hooks,
            Some(scalar) => match scalar.as_str() {
                "hooks" => WasmAbi::Hooks,
                "amplifier" => WasmAbi::Amplifier,
                other => {
                    let message = format!("`abi` must be hooks or amplifier, not `{other}`");
                    self.error(scalar.span(), message);
                    WasmAbi::Hooks
                }
            },
        };
        let config = match mapping.get_node("config") {
            None => serde_json::Value::Object(serde_json::Map::new()),
            Some(node @ Node::Mapping(_)) => crate::modules::json_of(node),
            Some(other) => {
                self.error(
                    other.span(),
                    format!("`config` in {context} must be a mapping"),
                );
                serde_json::Value::Object(serde_json::Map::new())
            }
        };
        let timeout = self.timeout(mapping, context, DEFAULT_WASM_TIMEOUT);
        let memory_mb = self.positive(mapping, "memory_mb", context, DEFAULT_WASM_MEMORY_MB, 4096);
        let read_dirs = self
            .strings(mapping, "allow_read", context)
            .into_iter()
            .map(|dir| self.context.resolve(Path::new(&dir)))
            .collect();
        let env = self.strings(mapping, "allow_env", context);
        let on_failure = self.on_failure(mapping, context);
        Some(ComponentHook {
            path: self.context.resolve(Path::new(&path?)),
            abi,
            config,
            timeout,
            memory_mb,
            read_dirs,
            env,
            on_failure,
        })
    }

    /// A list of strings under `key`, empty when absent.
    fn strings(&mut self, mapping: &MarkedMappingNode, key: &str, context: &str) -> Vec<String> {
        match mapping.get_node(key) {
            None => Vec::new(),
            Some(Node::Sequence(items)) => items
                .iter()
                .filter_map(|item| match item {
                    Node::Scalar(scalar) if !scalar.as_str().is_empty() => {
                        Some(scalar.as_str().to_owned())
                    }
                    other => {
                        self.error(
                            other.span(),
                            format!("`{key}` in {context} lists non-empty strings"),
                        );
                        None
                    }
                })
                .collect(),
            Some(other) => {
                self.error(other.span(), format!("`{key}` in {context} must be a list"));
                Vec::new()
            }
        }
    }

    fn on_failure(&mut self, mapping: &MarkedMappingNode, context: &str) -> OnFailure {
        match self.scalar(mapping, "on_failure", "warn, block or ignore", context) {
            Some(scalar) => match scalar.as_str() {
                "warn" => OnFailure::Warn,
                "block" => OnFailure::Block,
                "ignore" => OnFailure::Ignore,
                other => {
                    self.error(
                        scalar.span(),
                        format!("`on_failure` must be warn, block or ignore, not `{other}`"),
                    );
                    OnFailure::Warn
                }
            },
            None => OnFailure::Warn,
        }
    }

    fn matcher(
        &mut self,
        mapping: &MarkedMappingNode,
        event: &str,
        context: &str,
    ) -> Option<MatcherHook> {
        // A wrong `action` does not stop the check: `match` is read whatever it says.
        let action = self.action(mapping, context);
        let message = self.string(mapping, "message", context);
        if matches!(action, Some(Action::Ask | Action::Inject)) && message.is_none() {
            self.error(
                mapping.span(),
                format!(
                    "{context}: `action: {}` needs a `message`",
                    match action {
                        Some(Action::Ask) => "ask",
                        _ => "inject",
                    }
                ),
            );
        }
        let Some(conditions) = mapping.get_node("match") else {
            self.error(&anchor(mapping), format!("{context} is missing `match`"));
            return None;
        };
        let Some(conditions) = conditions.as_mapping() else {
            self.error(conditions.span(), "`match` takes `tool` and/or `args`");
            return None;
        };
        self.known_keys(conditions, &["tool", "args"], "`match`");
        self.conditions_can_match(conditions, event);
        let tool = self.tool_pattern(conditions);
        let args = self.arg_patterns(conditions);
        Some(MatcherHook {
            tool,
            args,
            action: action?,
            message,
        })
    }

    /// On an event without a tool call, `args` keys match the event's own fields: a condition
    /// on a tool, or on a field the event never carries, could never match, and a rule that
    /// never fires must not pass as a guard. Custom events, whose fields nobody lists, pass.
    fn conditions_can_match(&mut self, conditions: &MarkedMappingNode, event: &str) {
        let Some(fields) = hooks_core::events::fields::of(event) else {
            return;
        };
        let fields = fields.fields();
        // An approval request carries the tool call it asks about when an agent sends it
        // (Claude Code's and Codex CLI's PermissionRequest).
        if fields.contains(&TOOL_NAME) || event == hooks_core::events::APPROVAL_REQUIRED {
            return;
        }
        let listed = fields.join(", ");
        if let Some(tool) = conditions.get_node("tool") {
            self.error(
                tool.span(),
                format!(
                    "`match.tool` can never match on `{event}`: the event carries no tool call \
                     (its fields: {listed})"
                ),
            );
        }
        if let Some(Node::Mapping(args)) = conditions.get_node("args") {
            for (key, _) in args.iter() {
                if !fields.contains(&key.as_str()) {
                    self.error(
                        key.span(),
                        format!(
                            "`match.args.{}` can never match on `{event}`: without a tool call \
                             `args` matches the event's own fields ({listed})",
                            key.as_str()
                        ),
                    );
                }
            }
        }
    }

    /// The `action` of a matcher entry.
    fn action(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<Action> {
        Some(
            match self.required_string(mapping, "action", context)?.as_str() {
                "block" => Action::Block,
                "allow" => Action::Allow,
                "ask" => Action::Ask,
                "inject" => Action::Inject,
                other => {
                    let span = *mapping
                        .get_node("action")
                        .map_or(mapping.span(), Node::span);
                    self.error(
                        &span,
                        format!("`action` must be block, allow, ask or inject, not `{other}`"),
                    );
                    return None;
                }
            },
        )
    }

    /// `match.tool`, if given.
    fn tool_pattern(&mut self, conditions: &MarkedMappingNode) -> Option<Pattern> {
        match conditions.get_node("tool")? {
            Node::Scalar(scalar) => self.pattern(scalar, "match.tool"),
            other => {
                self.error(
                    other.span(),
                    "`match.tool` must be a glob or `regex:...` string",
                );
                None
            }
        }
    }

    /// `match.args`: input field → pattern, in file order.
    fn arg_patterns(&mut self, conditions: &MarkedMappingNode) -> Vec<(String, Pattern)> {
        let mut args = Vec::new();
        match conditions.get_node("args") {
            Some(Node::Mapping(fields)) => {
                for (key, value) in fields.iter() {
                    let place = format!("match.args.{}", key.as_str());
                    match value {
                        Node::Scalar(scalar) => {
                            if let Some(pattern) = self.pattern(scalar, &place) {
                                args.push((key.as_str().to_owned(), pattern));
                            }
                        }
                        other => self.error(
                            other.span(),
                            format!("`{place}` must be a glob or `regex:...` string"),
                        ),
                    }
                }
            }
            Some(other) => self.error(other.span(), "`match.args` maps input fields to patterns"),
            None => {}
        }
        args
    }

    fn pattern(&mut self, scalar: &MarkedScalarNode, key: &str) -> Option<Pattern> {
        let text = scalar.as_str();
        if let Some(source) = text.strip_prefix("regex:") {
            return match Regex::new(source) {
                Ok(regex) => Some(Pattern::Regex(regex)),
                Err(error) => {
                    self.error(
                        scalar.span(),
                        format!("`{key}`: the regex `{source}` does not compile: {error}"),
                    );
                    None
                }
            };
        }
        if let Some(literal) = Pattern::literal(text) {
            return Some(literal);
        }
        let compiled = GlobBuilder::new(text)
            .literal_separator(false)
            .build()
            .map_err(|error| error.to_string())
            .and_then(|glob| {
                regex::bytes::Regex::new(glob.regex()).map_err(|error| error.to_string())
            });
        match compiled {
            Ok(regex) => Some(Pattern::Glob(regex)),
            Err(error) => {
                self.error(
                    scalar.span(),
                    format!("`{key}`: the glob `{text}` does not compile: {error}"),
                );
                None
            }
        }
    }
}

fn load_error_marker(error: &LoadError) -> (usize, usize) {
    use LoadError::*;
    let marker = match error {
        TopLevelMustBeMapping(m)
        | TopLevelMustBeSequence(m)
        | UnexpectedAnchor(m)
        | MappingKeyMustBeScalar(m)
        | UnexpectedTag(m)
        | ScanError(m, _) => Some(*m),
        DuplicateKey(inner) => inner.key.span().start().copied(),
    };
    marker.map_or((1, 1), |m| (m.line(), m.column()))
}

/// Parses YAML keeping what its quotes say: `"true"` and `'12'` are strings, not a boolean
/// and a number (the modules' settings are typed from the nodes).
pub(crate) fn parse(text: &str) -> Result<Node, LoadError> {
    let options = marked_yaml::LoaderOptions::default().prevent_coercion(true);
    marked_yaml::parse_yaml_with_options(0, text, options)
}

/// Loads hooks from YAML `text`, naming `file` in errors; relative paths in it are taken from
/// `project_dir`. Its `modules:` are the standard modules.
pub fn load_str(text: &str, file: &Path, project_dir: &Path) -> Result<HooksConfig, ConfigErrors> {
    load_str_with(text, file, project_dir, &ModuleCatalog::standard())
}

/// [`load_str`] with the modules of `catalog` (the standard ones and an application's own).
pub fn load_str_with(
    text: &str,
    file: &Path,
    project_dir: &Path,
    catalog: &ModuleCatalog,
) -> Result<HooksConfig, ConfigErrors> {
    let root = match parse(text) {
        Ok(root) => root,
        Err(error) => {
            let (line, column) = load_error_marker(&error);
            return Err(ConfigErrors(vec![ConfigError {
                file: file.to_path_buf(),
                line,
                column,
                message: format!("not valid YAML: {error}"),
            }]));
        }
    };
    let mut loader = Loader {
        file: file.to_path_buf(),
        errors: Vec::new(),
        catalog,
        // The file is handed on so that the safety module write-protects it.
        context: ModuleContext::new(project_dir)
            .with_file(&std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf())),
    };
    let (entries, modules) = loader.load(&root);
    if loader.errors.is_empty() {
        Ok(HooksConfig {
            file: file.to_path_buf(),
            project_dir: project_dir.to_path_buf(),
            plugin_root: None,
            modules,
            entries,
        })
    } else {
        loader.errors.sort_by_key(|e| (e.line, e.column));
        Err(ConfigErrors(loader.errors))
    }
}

/// Loads a hooks file: our YAML, or (a `.json` file) a Claude Code settings file or plugin
/// hooks file, whose hooks are converted as `hooks import claude` converts them; a hook with no
/// equivalent here is an error rather than silently missing.
///
/// Command hooks run in the file's directory; for a file in `.claude/`, the project directory
/// above it, as in Claude Code. A plugin's `<plugin>/hooks/hooks.json` is the exception, as in
/// Claude Code: its hooks run in the project (`CLAUDE_PROJECT_DIR`, else the current directory)
/// with `CLAUDE_PLUGIN_ROOT` set to the plugin's directory.
pub fn load_file(path: &Path) -> Result<HooksConfig, ConfigErrors> {
    load_file_with(path, &ModuleCatalog::standard())
}

/// [`load_file`] with the modules of `catalog` (the standard ones and an application's own).
pub fn load_file_with(path: &Path, catalog: &ModuleCatalog) -> Result<HooksConfig, ConfigErrors> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        ConfigErrors(vec![ConfigError {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
            message: format!("cannot read the file: {error}"),
        }])
    })?;
    // Absolute, so that the directory hooks are told (`cwd`, `CLAUDE_PROJECT_DIR`) means the
    // same wherever they `cd`; `--config hooks.yaml` would otherwise give them `.`.
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut project_dir = absolute
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    if path
        .extension()
        .is_some_and(|extension| extension == "json")
    {
        let plugin_root = crate::settings::plugin_root_of(&absolute);
        if plugin_root.is_some() {
            project_dir = current_project_dir().unwrap_or(project_dir);
        } else if project_dir
            .file_name()
            .is_some_and(|name| name == ".claude")
        {
            project_dir.pop();
        }
        let imported = crate::settings::import_settings(&text, path)?;
        if !imported.left_out.is_empty() {
            return Err(ConfigErrors(imported.left_out));
        }
        return Ok(HooksConfig {
            file: path.to_path_buf(),
            project_dir,
            plugin_root,
            modules: Vec::new(),
            entries: imported.entries,
        });
    }
    load_str_with(&text, path, &project_dir, catalog)
}

/// The project a plugin's hooks run in: Claude Code's `CLAUDE_PROJECT_DIR` when it started us,
/// else the directory we run in.
fn current_project_dir() -> Option<PathBuf> {
    std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
}
