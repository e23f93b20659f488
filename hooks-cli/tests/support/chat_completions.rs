//! A mock of the OpenAI Chat Completions API (`POST /v1/chat/completions`, streamed or not),
//! the API family of Qwen Code, GitHub Copilot CLI, OpenCode and Crush: it plays the model with a script of tool calls, one
//! per turn, then a closing text.
//!
//! A shell step is a call of the agent's shell tool, a file write one of its file-writing tool
//! (their names and argument keys are the agent's [`Tools`]), or of its freeform patch tool
//! (a custom tool whose input is a patch adding the file) where the agent writes by one, with
//! the ids `call_e2e_<n>`; the turn after a call carries a `tool` message answering it.

use serde_json::{Value, json};

use super::agent_project::Step;
use super::mock_http::{MockServer, Request, Response};

/// The text the model ends every conversation with.
pub const CLOSING_TEXT: &str = "Done.";

/// An agent's tools as the model calls them: names and argument keys.
#[derive(Debug, Clone, Copy)]
pub struct Tools {
    /// The shell tool.
    pub shell: &'static str,
    /// Its argument holding the command.
    pub command: &'static str,
    /// Its argument holding a description of the command, where it requires one.
    pub description: Option<&'static str>,
    /// The tool that writes a whole file.
    pub write: &'static str,
    /// Its argument holding the path.
    pub path: &'static str,
    /// Its argument holding the content.
    pub content: &'static str,
    /// The freeform patch tool that writes files instead, where the agent offers one.
    pub patch: Option<&'static str>,
}

/// Qwen Code's tools (Gemini CLI's names).
pub const QWEN_TOOLS: Tools = Tools {
    shell: "run_shell_command",
    command: "command",
    description: None,
    write: "write_file",
    path: "file_path",
    content: "content",
    patch: None,
};

/// GitHub Copilot CLI's tools.
pub const COPILOT_TOOLS: Tools = Tools {
    shell: "bash",
    command: "command",
    description: Some("description"),
    write: "create",
    path: "path",
    content: "file_text",
    patch: None,
};

/// GitHub Copilot CLI's tools with a GPT model: it writes files by the freeform `apply_patch`
/// (offered as a custom tool), not `create`.
pub const COPILOT_GPT_TOOLS: Tools = Tools {
    patch: Some("apply_patch"),
    ..COPILOT_TOOLS
};

/// OpenCode's tools.
pub const OPENCODE_TOOLS: Tools = Tools {
    shell: "bash",
    command: "command",
    description: Some("description"),
    write: "write",
    path: "filePath",
    content: "content",
    patch: None,
};

/// Starts the mock, playing `script` with the agent's `tools`.
pub fn start(tools: Tools, script: Vec<Step>) -> MockServer {
    MockServer::start(move |request| answer(request, tools, &script))
        .expect("the mock can listen on loopback")
}

/// The id of the `n`th tool call of the script.
pub fn call_id(n: usize) -> String {
    format!("call_e2e_{n}")
}

/// Whether `request` is a turn of the model.
pub fn is_turn(request: &Request) -> bool {
    request.method == "POST" && request.route().ends_with("/chat/completions")
}

/// The `tool` message the client sent back for the call `id`, as text.
pub fn tool_result(request: &Request, id: &str) -> Option<String> {
    let body = request.json();
    body["messages"]
        .as_array()?
        .iter()
        .find(|message| message["role"] == "tool" && message["tool_call_id"] == id)
        .map(|message| text_of(&message["content"]))
}

/// The text of a message's content: a string, or the text parts of a list.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The result of the call `id` in the first turn that carries it.
pub fn first_result(api: &MockServer, id: &str) -> Option<String> {
    api.requests()
        .iter()
        .filter(|request| is_turn(request))
        .find_map(|request| tool_result(request, id))
}

/// The answer to `request`.
fn answer(request: &Request, tools: Tools, script: &[Step]) -> Response {
    if !is_turn(request) {
        let problem = format!("{} {} is not mocked", request.method, request.path);
        return Response::error(404, &json!({"error": {"message": problem}}));
    }
    let body = request.json();
    // A turn that offers no tools (a title, a summary) only gets text.
    let offers_tools = body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty());
    let answered = (0..script.len())
        .take_while(|&n| tool_result(request, &call_id(n)).is_some())
        .count();
    let call = script
        .get(answered)
        .filter(|_| offers_tools)
        .map(|step| tool_call(tools, step, &call_id(answered)));
    let model = body["model"].as_str().unwrap_or("mock").to_owned();
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    let (message, finish) = match &call {
        Some(call) => (
            json!({"role": "assistant", "content": null, "tool_calls": [call]}),
            "tool_calls",
        ),
        None => (
            json!({"role": "assistant", "content": CLOSING_TEXT}),
            "stop",
        ),
    };
    if body["stream"] != true {
        return Response::json(&json!({
            "id": "chatcmpl-e2e", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }));
    }
    let delta = match call {
        Some(mut call) => {
            call["index"] = json!(0);
            json!({"role": "assistant", "tool_calls": [call]})
        }
        None => json!({"role": "assistant", "content": CLOSING_TEXT}),
    };
    let chunk = |choice: Value, usage: Value| {
        json!({
            "id": "chatcmpl-e2e", "object": "chat.completion.chunk", "created": 1,
            "model": model, "choices": [choice], "usage": usage,
        })
    };
    let mut response = Response::events([
        (
            None,
            chunk(
                json!({"index": 0, "delta": delta, "finish_reason": null}),
                Value::Null,
            ),
        ),
        (
            None,
            chunk(
                json!({"index": 0, "delta": {}, "finish_reason": finish}),
                usage,
            ),
        ),
    ]);
    response.body.push_str("data: [DONE]\n\n");
    response
}

/// The tool call that makes `step` as the agent's tools take it.
fn tool_call(tools: Tools, step: &Step, id: &str) -> Value {
    let (name, args) = match step {
        Step::Shell(command) => {
            let mut args = json!({ (tools.command): command });
            if let Some(key) = tools.description {
                args[key] = json!("Run the scripted command");
            }
            (tools.shell, args)
        }
        Step::Write { path, content } => match tools.patch {
            Some(patch) => {
                let lines: String = content.lines().map(|line| format!("+{line}\n")).collect();
                let input =
                    format!("*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n");
                return json!({"id": id, "type": "custom",
                              "custom": {"name": patch, "input": input}});
            }
            None => (
                tools.write,
                json!({ (tools.path): path, (tools.content): content }),
            ),
        },
    };
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}})
}
