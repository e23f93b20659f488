//! Policies written in a policy language (`type: cedar`, `type: rego`): the policies are
//! compiled once, when the hooks file loads, and each event is a question to the engine that
//! answers in the process, without a deadline of its own.
//!
//! Whatever the language, an engine only forbids or asks: what it permits is no opinion
//! (continue), so that a policy's "allow" never skips an agent's own permission prompt. An
//! event the engine cannot decide (a policy that fails to evaluate, a request the schema
//! rejects) is a failure that the entry's `on_failure` decides, `block` unless the entry says
//! otherwise.

#[cfg(feature = "cedar")]
pub(crate) mod cedar;
#[cfg(feature = "cedar")]
pub(crate) mod cedar_schema;
#[cfg(feature = "rego")]
pub(crate) mod rego;

use std::fmt;
use std::sync::Arc;

use hooks_core::HookResult;
use serde_json::Value;

use crate::Entry;
use crate::failure::Failure;

/// An engine holding compiled policies, asked about one event at a time.
pub(crate) trait PolicyEngine: Send + Sync + fmt::Debug {
    /// The answer of the policies to `event` with `data`, or why they could not decide.
    fn decide(&self, event: &str, data: &Value) -> Result<HookResult, String>;
}

/// A policy hook (`type: cedar` or `type: rego`): policies compiled when the file loaded.
#[derive(Clone)]
pub struct PolicyHook {
    /// The language, as `type` names it.
    language: &'static str,
    /// Where the policies came from, for people.
    origin: String,
    engine: Arc<dyn PolicyEngine>,
}

impl PolicyHook {
    #[cfg_attr(not(any(feature = "cedar", feature = "rego")), allow(dead_code))]
    pub(crate) fn new(
        language: &'static str,
        origin: String,
        engine: impl PolicyEngine + 'static,
    ) -> Self {
        PolicyHook {
            language,
            origin,
            engine: Arc::new(engine),
        }
    }

    /// The language of its policies: `cedar` or `rego`.
    pub fn language(&self) -> &'static str {
        self.language
    }

    /// Where its policies came from: a file, a directory, or `inline`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The answer of its policies to `event` with `data`: a deny or a question from the
    /// policies, continue otherwise; an error when they could not decide.
    pub fn decide(&self, event: &str, data: &Value) -> Result<HookResult, String> {
        self.engine.decide(event, data)
    }
}

impl fmt::Debug for PolicyHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicyHook")
            .field("language", &self.language)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl crate::runner::Runner for PolicyHook {
    const IMMEDIATE: bool = true;

    async fn run(&self, entry: &Entry, data: &Value) -> Result<HookResult, Failure> {
        self.decide(&entry.event, data).map_err(|why| {
            Failure::Policy(format!(
                "its {} policies could not decide: {why}",
                self.language
            ))
        })
    }
}

/// The tool call of an event: the tool's name and its input (`{}` when it has none); `None`
/// when the event carries no tool call.
#[cfg_attr(not(any(feature = "cedar", feature = "rego")), allow(dead_code))]
pub(crate) fn tool_call(data: &Value) -> Option<(&str, &Value)> {
    static EMPTY: Value = Value::Null;
    let tool = data.get(hooks_core::events::fields::TOOL_NAME)?.as_str()?;
    let input = data
        .get(hooks_core::events::fields::TOOL_INPUT)
        .unwrap_or(&EMPTY);
    Some((tool, input))
}

/// The 1-based line and column of byte `offset` in `text` (columns count characters).
#[cfg_attr(not(any(feature = "cedar", feature = "rego")), allow(dead_code))]
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let column = before.get(start..).map_or(0, |rest| rest.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn offsets_become_lines_and_columns() {
        let text = "first\nsecond é line\nthird";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, text.find("line").unwrap()), (2, 10));
        assert_eq!(line_column(text, 10_000), (3, 6), "past the end: its end");
    }

    #[test]
    fn a_tool_call_is_its_name_and_input() {
        let data = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
        let (tool, input) = tool_call(&data).unwrap();
        assert_eq!(tool, "Bash");
        assert_eq!(input["command"], "ls");
        assert!(tool_call(&json!({"prompt": "hi"})).is_none());
        assert_eq!(
            tool_call(&json!({"tool_name": "Read"})).unwrap().1,
            &Value::Null
        );
    }
}
