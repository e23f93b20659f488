//! A mock of the Anthropic Messages API (`POST /v1/messages`, streamed or not), the API family
//! of Claude Code, on the shared mock server ([`mock_http`](super::mock_http)): it plays the
//! model with a script (at most one tool call,
//! Bash or another, then a closing text).
//!
//! It answers as the real API does: a server-sent event stream (`message_start`,
//! `content_block_start`/`_delta`/`_stop`, `message_delta`, `message_stop`) when the request
//! asks for `stream`, one message object otherwise. Token counting gets a count; any other
//! endpoint a `404` error in the API's shape.

use serde_json::{Value, json};

use super::mock_http::{MockServer, Request, Response};

/// The id of the one tool call the script makes; the next request answers it.
pub const TOOL_USE_ID: &str = "toolu_e2e_01";

/// The text the model ends every conversation with.
pub const CLOSING_TEXT: &str = "Done.";

/// What the model does.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// The command the model runs with the Bash tool at its first turn; `None` to answer with
    /// text only (or with `tool_call`).
    pub bash_command: Option<String>,
    /// Another tool the model calls at its first turn (its name and input), when there is no
    /// `bash_command`: an MCP tool, say.
    pub tool_call: Option<(String, Value)>,
}

/// Starts the mock on loopback, playing `script`.
pub fn start(script: Script) -> MockServer {
    MockServer::start(move |request| answer(request, &script))
        .expect("the mock can listen on loopback")
}

/// What the Messages API's requests say, read off the shared mock's [`Request`].
pub trait MessagesRequest {
    /// Whether this is a turn of the model (not token counting or another endpoint).
    fn is_turn(&self) -> bool;

    /// The result the client sent back for the tool call `id`: its text, and whether it is
    /// marked as an error.
    fn tool_result(&self, id: &str) -> Option<(String, bool)>;
}

impl MessagesRequest for Request {
    fn is_turn(&self) -> bool {
        self.method == "POST" && self.route() == "/v1/messages"
    }

    fn tool_result(&self, id: &str) -> Option<(String, bool)> {
        let body = self.json();
        let messages = body["messages"].as_array()?;
        messages
            .iter()
            .filter_map(|message| message["content"].as_array())
            .flatten()
            .find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id)
            .map(|block| {
                let is_error = block["is_error"].as_bool().unwrap_or(false);
                (text_of(&block["content"]), is_error)
            })
    }
}

/// The text of a content field: a string, or the text blocks of a list.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The answer to `request`.
fn answer(request: &Request, script: &Script) -> Response {
    if request.method == "POST" && request.route() == "/v1/messages/count_tokens" {
        let tokens = request.body.len() / 4;
        return Response::json(&json!({"input_tokens": tokens}));
    }
    if !request.is_turn() {
        let problem = format!("{} {} is not mocked", request.method, request.path);
        return Response::error(404, &api_error(&problem));
    }
    let body = request.json();
    if body.is_null() {
        return Response::error(400, &api_error("the body is not JSON"));
    }
    let model = body["model"].as_str().unwrap_or("claude-mock").to_owned();
    let call = match (&script.bash_command, &script.tool_call) {
        (Some(command), _) => Some((
            "Bash".to_owned(),
            json!({"command": command, "description": "Run the scripted command"}),
        )),
        (None, Some(call)) => Some(call.clone()),
        (None, None) => None,
    };
    let offered = |name: &str| {
        body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == name))
    };
    let answered = request.tool_result(TOOL_USE_ID).is_some();
    let content = match call {
        Some((name, input)) if offered(&name) && !answered => vec![json!({
            "type": "tool_use",
            "id": TOOL_USE_ID,
            "name": name,
            "input": input,
        })],
        _ => vec![json!({"type": "text", "text": CLOSING_TEXT})],
    };
    let stop_reason = if content[0]["type"] == "tool_use" {
        "tool_use"
    } else {
        "end_turn"
    };
    if body["stream"] == true {
        event_stream(&model, &content, stop_reason)
    } else {
        Response::json(&json!({
            "id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }))
    }
}

/// The message as the API streams it: every block opened, filled by one delta and closed.
fn event_stream(model: &str, content: &[Value], stop_reason: &str) -> Response {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }}),
    )];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = if block["type"] == "tool_use" {
            (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            )
        } else {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            )
        };
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    Response::events(events.into_iter().map(|(name, data)| (Some(name), data)))
}

/// An error body in the API's shape.
fn api_error(message: &str) -> Value {
    json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
}
