//! A mock of the Gemini API (`POST /v1beta/models/<model>:generateContent`, and
//! `:streamGenerateContent?alt=sse`), the API family of Gemini CLI: it plays the model with a
//! script of tool calls, one per turn, then a closing text.
//!
//! A shell step is a call of `run_shell_command` (`{"command": ...}`), a file write one of
//! `write_file` (`{"file_path": ..., "content": ...}`). The calls carry the ids `call_e2e_<n>`;
//! the turn after a call carries its `functionResponse`, counted to know the script's place.

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

/// Whether `request` is a turn of the model (either generate endpoint).
pub fn is_turn(request: &Request) -> bool {
    request.method == "POST"
        && request.route().starts_with("/v1beta/models/")
        && (request.route().ends_with(":generateContent")
            || request.route().ends_with(":streamGenerateContent"))
}

/// The responses the client sent back for tool calls, in order, as text.
pub fn function_responses(request: &Request) -> Vec<String> {
    let body = request.json();
    body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|content| content["parts"].as_array())
        .flatten()
        .filter_map(|part| part.get("functionResponse"))
        .map(|response| response["response"].to_string())
        .collect()
}

/// The response to the `n`th tool call in the first turn that carries it.
pub fn response_to(api: &MockServer, n: usize) -> Option<String> {
    api.requests()
        .iter()
        .filter(|request| is_turn(request))
        .find_map(|request| function_responses(request).get(n).cloned())
}

/// The answer to `request`.
fn answer(request: &Request, script: &[Step]) -> Response {
    if !is_turn(request) {
        let problem = format!("{} {} is not mocked", request.method, request.path);
        return Response::error(
            404,
            &json!({"error": {"code": 404, "message": problem, "status": "NOT_FOUND"}}),
        );
    }
    let answered = function_responses(request).len();
    let part = match script.get(answered) {
        Some(step) => tool_call(step, answered),
        None => json!({"text": CLOSING_TEXT}),
    };
    let chunk = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [part]},
            "finishReason": "STOP", "index": 0,
        }],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    });
    if request.route().ends_with(":streamGenerateContent") {
        Response::events([(None, chunk)])
    } else {
        Response::json(&chunk)
    }
}

/// The part that makes `step` as Gemini CLI's tools take it.
fn tool_call(step: &Step, n: usize) -> Value {
    let (name, args) = match step {
        Step::Shell(command) => ("run_shell_command", json!({"command": command})),
        Step::Write { path, content } => {
            ("write_file", json!({"file_path": path, "content": content}))
        }
    };
    json!({"functionCall": {"id": format!("call_e2e_{n}"), "name": name, "args": args}})
}
