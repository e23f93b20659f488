//! [`ScriptedSession`]: a realistic stream of canonical events, so that a hook module is tested
//! against the events it will really see, with plausible data shapes.

use hooks_core::events::fields::{
    ERROR, PROMPT, REASON, REQUEST, RESPONSE, SESSION_ID, SOURCE, TOKENS_AFTER, TOKENS_BEFORE,
    TOOL_CALL_ID, TOOL_INPUT, TOOL_NAME, TOOL_RESULT, TRIGGER,
};
use hooks_core::events::{
    CONTEXT_POST_COMPACT, CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, PROVIDER_REQUEST,
    PROVIDER_RESPONSE, SESSION_END, SESSION_START, TOOL_ERROR, TOOL_POST, TOOL_PRE,
};
use hooks_core::{EmitResult, HookRegistry};
use serde_json::{Value, json};

/// One event of a scripted session.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The canonical event.
    pub event: &'static str,
    /// Its data.
    pub data: Value,
}

/// A sequence of events played in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedSession {
    steps: Vec<Step>,
}

/// The id every scripted event carries.
const THE_SESSION_ID: &str = "scripted-session";
/// The prompt of the scripted turn.
const THE_PROMPT: &str = "Add a test for the parser and run it";

impl ScriptedSession {
    /// A session of the given steps.
    pub fn new(steps: Vec<Step>) -> Self {
        ScriptedSession { steps }
    }

    /// One realistic turn: the session starts, a prompt comes in, the model asks for a file
    /// write and a test run, the tests fail, the context is compacted, the model answers, the
    /// session ends.
    pub fn typical() -> Self {
        let write_input = json!({
            "file_path": "tests/parser.rs",
            "content": "use app::parse;\n\n#[test]\nfn parses_empty_input() {\n    assert!(parse(\"\").is_ok());\n}\n"
        });
        let bash_input = json!({"command": "cargo test --test parser", "timeout_ms": 120000});
        let request = |messages: Value| {
            json!({
                "model": "test-model",
                "max_tokens": 4096,
                "messages": messages,
                "tools": [{"name": "write_file"}, {"name": "bash"}, {"name": "read_file"}]
            })
        };
        let steps = vec![
            step(
                SESSION_START,
                json!({SESSION_ID: THE_SESSION_ID, SOURCE: "startup", "config": {"model": "test-model"}}),
            ),
            step(
                PROMPT_SUBMIT,
                json!({SESSION_ID: THE_SESSION_ID, PROMPT: THE_PROMPT}),
            ),
            step(
                PROVIDER_REQUEST,
                json!({SESSION_ID: THE_SESSION_ID, REQUEST: request(json!([{"role": "user", "content": THE_PROMPT}]))}),
            ),
            step(
                PROVIDER_RESPONSE,
                json!({
                    SESSION_ID: THE_SESSION_ID,
                    RESPONSE: {
                        "content": [{"type": "tool_use", "id": "call_1", "name": "write_file", "input": write_input}],
                        "stop_reason": "tool_use",
                        "usage": {"input_tokens": 1250, "output_tokens": 96}
                    }
                }),
            ),
            step(
                TOOL_PRE,
                json!({SESSION_ID: THE_SESSION_ID, TOOL_NAME: "write_file", TOOL_INPUT: write_input, TOOL_CALL_ID: "call_1"}),
            ),
            step(
                TOOL_POST,
                json!({
                    SESSION_ID: THE_SESSION_ID, TOOL_NAME: "write_file", TOOL_INPUT: write_input,
                    TOOL_CALL_ID: "call_1", TOOL_RESULT: {"success": true, "bytes_written": 96}
                }),
            ),
            step(
                TOOL_PRE,
                json!({SESSION_ID: THE_SESSION_ID, TOOL_NAME: "bash", TOOL_INPUT: bash_input, TOOL_CALL_ID: "call_2"}),
            ),
            step(
                TOOL_ERROR,
                json!({
                    SESSION_ID: THE_SESSION_ID, TOOL_NAME: "bash", TOOL_INPUT: bash_input,
                    TOOL_CALL_ID: "call_2", ERROR: "exit status 101: 1 test failed (parses_empty_input)"
                }),
            ),
            step(
                CONTEXT_PRE_COMPACT,
                json!({SESSION_ID: THE_SESSION_ID, TRIGGER: "auto", TOKENS_BEFORE: 182_000}),
            ),
            step(
                CONTEXT_POST_COMPACT,
                json!({SESSION_ID: THE_SESSION_ID, TRIGGER: "auto", TOKENS_BEFORE: 182_000, TOKENS_AFTER: 41_000}),
            ),
            step(
                PROVIDER_REQUEST,
                json!({SESSION_ID: THE_SESSION_ID, REQUEST: request(json!([
                    {"role": "user", "content": THE_PROMPT},
                    {"role": "tool", "content": "exit status 101: 1 test failed"}
                ]))}),
            ),
            step(
                PROVIDER_RESPONSE,
                json!({
                    SESSION_ID: THE_SESSION_ID,
                    RESPONSE: {
                        "content": [{"type": "text", "text": "I added the test; it fails because `parse` rejects empty input."}],
                        "stop_reason": "end_turn",
                        "usage": {"input_tokens": 2100, "output_tokens": 40}
                    }
                }),
            ),
            step(
                PROMPT_COMPLETE,
                json!({
                    SESSION_ID: THE_SESSION_ID, PROMPT: THE_PROMPT,
                    RESPONSE: "I added the test; it fails because `parse` rejects empty input."
                }),
            ),
            step(
                SESSION_END,
                json!({SESSION_ID: THE_SESSION_ID, REASON: "done"}),
            ),
        ];
        ScriptedSession { steps }
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The data of the first step of `event`, if the session has one (a plausible sample of
    /// that event's data).
    pub fn sample(&self, event: &str) -> Option<&Value> {
        self.steps
            .iter()
            .find(|s| s.event == event)
            .map(|s| &s.data)
    }

    /// Emits every step on `registry`, in order; returns each outcome with its event.
    pub async fn play(&self, registry: &HookRegistry) -> Vec<(&'static str, EmitResult)> {
        let mut outcomes = Vec::with_capacity(self.steps.len());
        for step in &self.steps {
            outcomes.push((
                step.event,
                registry.emit(step.event, step.data.clone()).await,
            ));
        }
        outcomes
    }
}

fn step(event: &'static str, data: Value) -> Step {
    Step { event, data }
}
