//! The `matcher` key of configured entries: Claude Code's matcher semantics ([`EventMatcher`]).

use hooks_core::events::fields::TOOL_NAME;
use hooks_core::events::{
    APPROVAL_REQUIRED, CONTEXT_POST_COMPACT, CONTEXT_PRE_COMPACT, SESSION_END, SESSION_START,
    TOOL_ERROR, TOOL_POST, TOOL_PRE, USER_NOTIFICATION,
};
use regex::Regex;
use serde_json::Value;

use crate::interop::tools::AGENT_TOOL_NAME;

/// The `matcher` of a command, HTTP or LLM entry, with Claude Code's semantics, so that its
/// settings keep their meaning here: absent, `""` or `"*"` match everything; a string of only
/// letters, digits, `_`, `-`, spaces, `|` and `,` is a list of exact names; anything else is an
/// unanchored regex (`Edit.*` also matches `NotebookEdit`).
///
/// It is tested against the field that names what the event is about: the tool for tool events
/// and approvals, `source` for session:start, `reason` for session:end, `notification_type` for
/// user:notification, `trigger` for compaction. Events without such a field ignore it, as Claude
/// Code's UserPromptSubmit and Stop do.
#[derive(Debug, Clone)]
pub enum EventMatcher {
    /// Matches every event.
    All,
    /// One of these exact names.
    Names(Vec<String>),
    /// An unanchored regex.
    Regex(Regex),
}

impl EventMatcher {
    /// Reads a matcher; an invalid regex is an error.
    pub fn parse(text: &str) -> Result<Self, regex::Error> {
        let text = text.trim();
        if text.is_empty() || text == "*" {
            return Ok(EventMatcher::All);
        }
        let plain = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | '|' | ','));
        if plain {
            Ok(EventMatcher::Names(
                text.split(['|', ','])
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ))
        } else {
            Regex::new(text).map(EventMatcher::Regex)
        }
    }

    /// The field of `event`'s data the matcher is tested against, if the event has one.
    pub fn subject_field(event: &str) -> Option<&'static str> {
        match event {
            TOOL_PRE | TOOL_POST | TOOL_ERROR | APPROVAL_REQUIRED => Some(TOOL_NAME),
            SESSION_START => Some("source"),
            SESSION_END => Some("reason"),
            USER_NOTIFICATION => Some("notification_type"),
            CONTEXT_PRE_COMPACT | CONTEXT_POST_COMPACT => Some("trigger"),
            _ => None,
        }
    }

    /// Whether the entry runs for `event` with `data`. When the event has a subject field but
    /// the data lacks it, only a match-everything matcher runs.
    pub fn matches(&self, event: &str, data: &Value) -> bool {
        let Some(field) = Self::subject_field(event) else {
            return true;
        };
        // A tool made canonical keeps the agent's own name, which a matcher may name.
        let own_name = (field == TOOL_NAME).then_some(AGENT_TOOL_NAME);
        let subjects: Vec<&str> = [Some(field), own_name]
            .into_iter()
            .flatten()
            .filter_map(|field| data[field].as_str())
            .collect();
        match self {
            EventMatcher::All => true,
            EventMatcher::Names(names) => subjects
                .iter()
                .any(|subject| names.iter().any(|n| n == subject)),
            EventMatcher::Regex(regex) => subjects.iter().any(|subject| regex.is_match(subject)),
        }
    }
}

/// The matcher as written in a hooks file: it parses back to the same matcher.
impl std::fmt::Display for EventMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventMatcher::All => f.write_str("*"),
            EventMatcher::Names(names) => f.write_str(&names.join("|")),
            EventMatcher::Regex(regex) => f.write_str(regex.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Value {
        json!({ TOOL_NAME: name })
    }

    #[test]
    fn claude_code_matcher_semantics() {
        let all = EventMatcher::parse("*").unwrap();
        assert!(all.matches(TOOL_PRE, &tool("Bash")) && all.matches(TOOL_PRE, &json!({})));
        assert!(
            EventMatcher::parse("")
                .unwrap()
                .matches(TOOL_PRE, &tool("Write"))
        );

        let list = EventMatcher::parse("Edit|Write, Bash").unwrap();
        assert!(list.matches(TOOL_PRE, &tool("Write")) && list.matches(TOOL_PRE, &tool("Bash")));
        // A plain name is exact, not a substring.
        assert!(!list.matches(TOOL_PRE, &tool("NotebookEdit")));

        let regex = EventMatcher::parse("Edit.*").unwrap();
        assert!(regex.matches(TOOL_PRE, &tool("NotebookEdit")));
        let mcp = EventMatcher::parse("mcp__github__.*").unwrap();
        assert!(mcp.matches(TOOL_POST, &tool("mcp__github__create_issue")));
        assert!(!mcp.matches(TOOL_POST, &tool("mcp__gitlab__create_issue")));
        assert!(EventMatcher::parse("(unclosed").is_err());
    }

    #[test]
    fn a_matcher_naming_the_agents_own_tool_matches_its_canonical_call() {
        let canonical = json!({ TOOL_NAME: "Bash", AGENT_TOOL_NAME: "run_shell_command" });
        for text in ["run_shell_command", "Bash", "run_shell.*"] {
            assert!(
                EventMatcher::parse(text)
                    .unwrap()
                    .matches(TOOL_PRE, &canonical),
                "{text}"
            );
        }
        assert!(
            !EventMatcher::parse("Write")
                .unwrap()
                .matches(TOOL_PRE, &canonical)
        );
    }

    #[test]
    fn a_matcher_written_out_parses_back_the_same() {
        for text in [
            "*",
            "Edit|Write, Bash",
            "Edit.*",
            "mcp__github__.*",
            "startup",
        ] {
            let matcher = EventMatcher::parse(text).unwrap();
            let again = EventMatcher::parse(&matcher.to_string()).unwrap();
            assert_eq!(format!("{matcher:?}"), format!("{again:?}"), "{text}");
        }
        assert_eq!(
            EventMatcher::parse("Edit|Write, Bash").unwrap().to_string(),
            "Edit|Write|Bash"
        );
    }

    #[test]
    fn each_event_matches_on_its_own_field() {
        let startup = EventMatcher::parse("startup").unwrap();
        assert!(startup.matches(SESSION_START, &json!({"source": "startup"})));
        assert!(!startup.matches(SESSION_START, &json!({"source": "resume"})));
        let auto = EventMatcher::parse("auto").unwrap();
        assert!(auto.matches(CONTEXT_PRE_COMPACT, &json!({"trigger": "auto"})));
        // Prompts have no subject: the matcher is ignored, as Claude Code ignores it.
        assert!(auto.matches("prompt:submit", &json!({"prompt": "hi"})));
        // A tool event without a tool name runs only match-everything entries.
        assert!(
            !EventMatcher::parse("Bash")
                .unwrap()
                .matches(TOOL_PRE, &json!({}))
        );
    }
}
