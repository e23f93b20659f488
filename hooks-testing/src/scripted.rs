//! [`ScriptedSession`]: a realistic stream of canonical events, so that a hook module is tested
//! against the events it will really see, with plausible data shapes.

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

const SESSION_ID: &str = "scripted-session";
const PROMPT: &str = "Add a test for the parser and run it";

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
                json!({"session_id": SESSION_ID, "source": "startup", "config": {"model": "test-model"}}),
            ),
            step(
                PROMPT_SUBMIT,
                json!({"session_id": SESSION_ID, "prompt": PROMPT}),
            ),
            step(
                PROVIDER_REQUEST,
                json!({"session_id": SESSION_ID, "request": request(json!([{"role": "user", "content": PROMPT}]))}),
            ),
            step(
                PROVIDER_RESPONSE,
                json!({
                    "session_id": SESSION_ID,
                    "response": {
                        "content": [{"type": "tool_use", "id": "call_1", "name": "write_file", "input": write_input}],
                        "stop_reason": "tool_use",
                        "usage": {"input_tokens": 1250, "output_tokens": 96}
                    }
                }),
            ),
            step(
                TOOL_PRE,
                json!({"session_id": SESSION_ID, "tool_name": "write_file", "tool_input": write_input, "tool_use_id": "call_1"}),
            ),
            step(
                TOOL_POST,
                json!({
                    "session_id": SESSION_ID, "tool_name": "write_file", "tool_input": write_input,
                    "tool_use_id": "call_1", "tool_result": {"success": true, "bytes_written": 96}
                }),
            ),
            step(
                TOOL_PRE,
                json!({"session_id": SESSION_ID, "tool_name": "bash", "tool_input": bash_input, "tool_use_id": "call_2"}),
            ),
            step(
                TOOL_ERROR,
                json!({
                    "session_id": SESSION_ID, "tool_name": "bash", "tool_input": bash_input,
                    "tool_use_id": "call_2", "error": "exit status 101: 1 test failed (parses_empty_input)"
                }),
            ),
            step(
                CONTEXT_PRE_COMPACT,
                json!({"session_id": SESSION_ID, "trigger": "auto", "tokens_before": 182_000}),
            ),
            step(
                CONTEXT_POST_COMPACT,
                json!({"session_id": SESSION_ID, "trigger": "auto", "tokens_before": 182_000, "tokens_after": 41_000}),
            ),
            step(
                PROVIDER_REQUEST,
                json!({"session_id": SESSION_ID, "request": request(json!([
                    {"role": "user", "content": PROMPT},
                    {"role": "tool", "content": "exit status 101: 1 test failed"}
                ]))}),
            ),
            step(
                PROVIDER_RESPONSE,
                json!({
                    "session_id": SESSION_ID,
                    "response": {
                        "content": [{"type": "text", "text": "I added the test; it fails because `parse` rejects empty input."}],
                        "stop_reason": "end_turn",
                        "usage": {"input_tokens": 2100, "output_tokens": 40}
                    }
                }),
            ),
            step(
                PROMPT_COMPLETE,
                json!({
                    "session_id": SESSION_ID, "prompt": PROMPT,
                    "response": "I added the test; it fails because `parse` rejects empty input."
                }),
            ),
            step(
                SESSION_END,
                json!({"session_id": SESSION_ID, "reason": "done"}),
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
