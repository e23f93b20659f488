//! A mock of the OpenAI Responses API (`POST /v1/responses`, streamed), the API family of Codex
//! CLI: it plays the model with a script of tool calls, one per turn, then a closing text.
//!
//! A shell step is a call of the function tool `exec_command` (`{"cmd": ...}`); a file write is
//! a call of the custom tool `apply_patch` with a patch adding the file. The call ids are
//! `call_e2e_<n>`, `n` counting from 0; the turn after a call carries its output.

use serde_json::{Value, json};

use super::agent_project::Step;
use super::mock_http::{MockServer, Request, Response};

/// The text the model ends every conversation with.
pub const CLOSING_TEXT: &str = "Done.";

/// Starts the mock, playing `script`.
pub fn start(script: Vec<Step>) -> MockServer {
    MockServer::start(move |request| answer(request, &script))
        .expect("the mock can listen on loopback")
}

/// The id of the `n`th tool call of the script.
pub fn call_id(n: usize) -> String {
    format!("call_e2e_{n}")
}

/// Whether `request` is a turn of the model.
pub fn is_turn(request: &Request) -> bool {
    request.method == "POST" && request.route() == "/v1/responses"
}

/// The output the client sent back for the call `id`, as text.
pub fn call_output(request: &Request, id: &str) -> Option<String> {
    let body = request.json();
    body["input"]
        .as_array()?
        .iter()
        .find(|item| {
            matches!(
                item["type"].as_str(),
                Some("function_call_output" | "custom_tool_call_output")
            ) && item["call_id"] == id
        })
        .map(|item| match &item["output"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
}

/// The output of the call `id` in the first turn that carries it.
pub fn first_output(api: &MockServer, id: &str) -> Option<String> {
    api.requests()
        .iter()
        .filter(|request| is_turn(request))
        .find_map(|request| call_output(request, id))
}

/// The answer to `request`.
fn answer(request: &Request, script: &[Step]) -> Response {
    if !is_turn(request) {
        let problem = format!("{} {} is not mocked", request.method, request.path);
        return Response::error(404, &json!({"error": {"message": problem}}));
    }
    let body = request.json();
    let answered = (0..script.len())
        .take_while(|&n| call_output(request, &call_id(n)).is_some())
        .count();
    let item = match script.get(answered) {
        Some(step) => tool_call(step, &call_id(answered)),
        None => json!({
            "type": "message", "id": "msg_e2e", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": CLOSING_TEXT, "annotations": []}],
        }),
    };
    let model = body["model"].as_str().unwrap_or("mock").to_owned();
    let response = json!({"id": "resp_e2e", "object": "response", "model": model});
    let mut completed = response.clone();
    completed["usage"] = json!({
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    });
    Response::events([
        (
            Some("response.created"),
            json!({"type": "response.created", "response": response}),
        ),
        (
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            Some("response.completed"),
            json!({"type": "response.completed", "response": completed}),
        ),
    ])
}

/// The output item that makes `step` as Codex's tools take it.
fn tool_call(step: &Step, id: &str) -> Value {
    match step {
        Step::Shell(command) => json!({
            "type": "function_call", "id": format!("fc_{id}"), "call_id": id,
            "name": "exec_command",
            "arguments": json!({"cmd": command}).to_string(),
        }),
        Step::Write { path, content } => {
            let lines: String = content.lines().map(|line| format!("+{line}\n")).collect();
            json!({
                "type": "custom_tool_call", "id": format!("ctc_{id}"), "call_id": id,
                "name": "apply_patch",
                "input": format!("*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"),
            })
        }
    }
}
