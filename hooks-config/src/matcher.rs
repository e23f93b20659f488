//! Matcher hooks: rules on the tool name and tool input fields, answered in process.

use hooks_core::HookResult;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};

use crate::interop::tools::AGENT_TOOL_NAME;
use regex::Regex;
use serde_json::Value;

/// A pattern of a matcher hook.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// A glob without wildcards: the whole text.
    Exact(String),
    /// A glob `literal*`.
    Prefix(String),
    /// A glob `*literal`.
    Suffix(String),
    /// A glob (`**` spans directories), compiled to the regex it means: matched on the string
    /// directly, without building a path candidate per check.
    Glob(regex::bytes::Regex),
    /// A regex (`regex:` prefix).
    Regex(Regex),
}

impl Pattern {
    /// The literal fast path for a glob that has one, as globset's own strategies do: most
    /// rules name a tool or an extension, and a string comparison is ten times cheaper than
    /// a regex search.
    pub(crate) fn literal(glob: &str) -> Option<Pattern> {
        let wild = |text: &str| text.contains(['*', '?', '[', ']', '{', '}', '\\']);
        if !wild(glob) {
            Some(Pattern::Exact(glob.to_owned()))
        } else if let Some(prefix) = glob.strip_suffix('*').filter(|rest| !wild(rest)) {
            Some(Pattern::Prefix(prefix.to_owned()))
        } else {
            glob.strip_prefix('*')
                .filter(|rest| !wild(rest))
                .map(|suffix| Pattern::Suffix(suffix.to_owned()))
        }
    }

    fn matches(&self, text: &str) -> bool {
        match self {
            Pattern::Exact(literal) => text == literal,
            Pattern::Prefix(literal) => text.starts_with(literal.as_str()),
            Pattern::Suffix(literal) => text.ends_with(literal.as_str()),
            Pattern::Glob(glob) => glob.is_match(text.as_bytes()),
            Pattern::Regex(regex) => regex.is_match(text),
        }
    }
}

/// What a matcher hook does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Deny, with the message as the reason.
    Block,
    /// Continue.
    Allow,
    /// Ask the user, with the message as the prompt.
    Ask,
    /// Inject the message as context.
    Inject,
}

/// A matcher hook.
#[derive(Debug, Clone)]
pub struct MatcherHook {
    /// The tool-name pattern, if any.
    pub tool: Option<Pattern>,
    /// Field patterns, all of which must match: the tool input's fields, or on an event without
    /// a tool call the event's own.
    pub args: Vec<(String, Pattern)>,
    /// What to do on a match.
    pub action: Action,
    /// The reason, prompt or injected text.
    pub message: Option<String>,
}

impl MatcherHook {
    /// Whether the event data matches every given condition.
    pub fn matches(&self, data: &Value) -> bool {
        // The canonical name, or the agent's own one that it replaced (`Shell`, `run_shell_command`):
        // a rule written for either keeps matching.
        let tool_matches = self.tool.as_ref().is_none_or(|pattern| {
            [TOOL_NAME, AGENT_TOOL_NAME].iter().any(|field| {
                data[*field]
                    .as_str()
                    .is_some_and(|tool| pattern.matches(tool))
            })
        });
        // A tool call's input fields; on an event without one, the event's own fields
        // (`prompt`, ...).
        let fields = match data.get(TOOL_INPUT) {
            Some(input @ Value::Object(_)) => input,
            _ => data,
        };
        tool_matches
            && self.args.iter().all(|(field, pattern)| {
                fields[field]
                    .as_str()
                    .is_some_and(|value| pattern.matches(value))
            })
    }

    /// The answer to one event.
    pub fn decide(&self, name: &str, data: &Value) -> HookResult {
        if !self.matches(data) {
            return HookResult::cont();
        }
        let message = self.message.clone();
        match self.action {
            Action::Block => HookResult::deny(
                message.unwrap_or_else(|| format!("blocked by the matcher `{name}`")),
            ),
            Action::Allow => HookResult::cont(),
            Action::Ask => HookResult::ask(message.unwrap_or_default()),
            Action::Inject => HookResult::inject(message.unwrap_or_default()),
        }
    }
}

impl crate::runner::Runner for MatcherHook {
    const IMMEDIATE: bool = true;

    async fn run(
        &self,
        entry: &crate::Entry,
        data: &Value,
    ) -> Result<HookResult, crate::failure::Failure> {
        Ok(self.decide(&entry.name, data))
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn kind(glob: &str) -> &'static str {
        match Pattern::literal(glob) {
            Some(Pattern::Exact(_)) => "exact",
            Some(Pattern::Prefix(_)) => "prefix",
            Some(Pattern::Suffix(_)) => "suffix",
            _ => "glob",
        }
    }

    #[test]
    fn only_plain_literals_take_the_fast_path() {
        assert_eq!(kind("Bash"), "exact");
        assert_eq!(kind("mcp__github__*"), "prefix");
        assert_eq!(kind("*.py"), "suffix");
        assert_eq!(kind("*"), "prefix");
        for glob in [
            "Tool?",
            "a*b",
            "{Write,Edit}",
            "**/.env*",
            "[ab]*",
            "*.p[yx]",
            "\\*x",
        ] {
            assert_eq!(kind(glob), "glob", "{glob}");
        }
        let suffix = Pattern::literal("*.py").unwrap();
        assert!(suffix.matches("src/a.py") && !suffix.matches("a.pyc"));
        assert!(Pattern::literal("*").unwrap().matches(""));
    }
}
