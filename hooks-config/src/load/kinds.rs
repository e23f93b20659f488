//! What each kind of entry needs, read from its keys: a command, a matcher's rules, an HTTP
//! service, a model, a WebAssembly component. The keys every entry shares are read by the
//! loader itself.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use globset::GlobBuilder;
use marked_yaml::Node;
use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use regex::Regex;

use hooks_core::events::fields::TOOL_NAME;

use super::{Loader, anchor};
use crate::schema::{self, MatchKeys};
use crate::{
    Action, AnswerCache, AnswerProtocol, CommandHook, ComponentHook, DEFAULT_WASM_MEMORY_MB,
    HttpHook, LlmHook, MatcherHook, Pattern, Provider, WasmAbi,
};

impl Loader<'_> {
    pub(super) fn command(
        &mut self,
        mapping: &MarkedMappingNode,
        context: &str,
    ) -> Option<CommandHook> {
        let command = self.required_string(mapping, "command", context);
        let protocol = self.choice(mapping, "protocol", context);
        let fire_and_forget = self.flag(mapping, "async", context);
        let persistent = self.flag(mapping, "persistent", context);
        if persistent && protocol == Some(AnswerProtocol::ClaudeCode) {
            let span = *mapping
                .get_node("protocol")
                .map_or(mapping.span(), Node::span);
            self.error(
                &span,
                format!(
                    "{context}: a persistent hook answers JSON lines; `protocol: claude` (plain \
                     text read as Claude Code reads it) cannot apply to it"
                ),
            );
        }
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
            protocol: protocol.unwrap_or_default(),
            fire_and_forget,
            persistent,
        })
    }

    pub(super) fn http(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<HttpHook> {
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
        let protocol = self
            .choice(mapping, "protocol", context)
            .unwrap_or_default();
        Some(HttpHook {
            url: url?,
            headers,
            protocol,
        })
    }

    pub(super) fn llm(&mut self, mapping: &MarkedMappingNode, context: &str) -> Option<LlmHook> {
        let model = self.required_string(mapping, "model", context);
        let prompt = self.required_string(mapping, "prompt", context);
        let provider = self
            .choice(mapping, "provider", context)
            .unwrap_or(Provider::OpenAi);
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
            cache,
        })
    }

    pub(super) fn wasm(
        &mut self,
        mapping: &MarkedMappingNode,
        context: &str,
    ) -> Option<ComponentHook> {
        let path = self.required_string(mapping, "path", context);
        let abi = self
            .choice(mapping, "abi", context)
            .unwrap_or(WasmAbi::Hooks);
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
        let memory_mb = self.positive(mapping, "memory_mb", context, DEFAULT_WASM_MEMORY_MB, 4096);
        let read_dirs = self
            .strings(mapping, "allow_read", context)
            .into_iter()
            .map(|dir| self.context.resolve(Path::new(&dir)))
            .collect();
        let env = self.strings(mapping, "allow_env", context);
        Some(ComponentHook {
            path: self.context.resolve(Path::new(&path?)),
            abi,
            config,
            memory_mb,
            read_dirs,
            env,
        })
    }

    pub(super) fn matcher(
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
        self.known_keys(conditions, schema::fields::<MatchKeys>(), "`match`");
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
        if mapping.get_node("action").is_none() {
            self.error(&anchor(mapping), format!("{context} is missing `action`"));
            return None;
        }
        self.choice(mapping, "action", context)
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
