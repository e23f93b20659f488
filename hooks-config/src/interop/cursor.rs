//! Cursor's hook protocol (`.cursor/hooks.json`): its events, its stdin fields and its answers.
//!
//! # Events in
//!
//! Cursor names its events after what it is about to do, and puts a shell command or a file at
//! the top level of its input; they become tool calls, so that the tool rules (the safety
//! module, matchers on `tool` and `args`) apply to them as to any agent's:
//!
//! | Cursor's event | our event | `tool_name` | `tool_input` |
//! |---|---|---|---|
//! | `beforeShellExecution` / `afterShellExecution` | `tool:pre` / `tool:post` | `Shell` | `command`, `cwd` |
//! | `beforeMCPExecution` / `afterMCPExecution` | `tool:pre` / `tool:post` | its `tool_name` | its `tool_input` (a JSON text is parsed) |
//! | `beforeReadFile` | `tool:pre` | `Read` | `file_path` |
//! | `afterFileEdit` | `tool:post` | `Edit` | `file_path`, `edits` |
//! | `preToolUse` / `postToolUse` | `tool:pre` / `tool:post` | as given | as given |
//! | `beforeSubmitPrompt` | `prompt:submit` | | |
//! | `stop` | `prompt:complete` | | |
//! | `sessionStart`, `sessionEnd`, `preCompact` | `session:start`, `session:end`, `context:pre_compact` | | |
//! | any other | `cursor:<snake_case>` | | |
//!
//! Cursor's own fields stay in the data beside ours; `afterShellExecution`'s `output` and
//! `afterMCPExecution`'s `result_json` are also the `tool_result`.
//!
//! # Answers (`hooks cursor`)
//!
//! | our merged result | Cursor's answer |
//! |---|---|
//! | continue, nothing else | nothing on stdout, exit 0: Cursor goes on as it would without the hook (never `allow`, which would skip the user's own prompt) |
//! | deny, on a `before*` or `preToolUse` event | `{"permission": "deny", "user_message", "agent_message"}` with the reason |
//! | ask_user, there | `{"permission": "ask", ...}` with the prompt |
//! | modified input, there | deny with the reason: Cursor cannot take a rewritten input, and the rewrite is not dropped |
//! | deny or modified prompt on `beforeSubmitPrompt` | `{"continue": false, "user_message"}`: the prompt is not sent (a redacted prompt cannot be sent in its place) |
//! | deny on `stop` | `{"followup_message": reason}`: the agent goes on with it |
//! | on `after*`, `postToolUse` and the others | nothing: Cursor takes no answer there; messages go to stderr |
//! | context injection | `agent_message` beside a `permission`; otherwise it cannot reach the model, and the user is told on stderr |
//!
//! A policy that cannot decide (a broken hooks file, unreadable input) denies with exit code 2
//! as well as the JSON, whatever the event.

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME, TOOL_RESULT};
use hooks_core::events::{
    CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END, SESSION_START, TOOL_POST,
    TOOL_PRE,
};
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value, json};

use super::{AgentAnswer, context_of, messages_of, question_of, reason_of};
use crate::agent_protocol::{InputError, MappedEvent, Protocol};

/// Cursor's hook protocol: the events with a canonical equivalent. Their data is reshaped by
/// [`event_in`] rather than by field renames.
pub const CURSOR: Protocol = Protocol {
    agent: "cursor",
    events: &[
        ("beforeShellExecution", Some(TOOL_PRE)),
        ("afterShellExecution", Some(TOOL_POST)),
        ("beforeMCPExecution", Some(TOOL_PRE)),
        ("afterMCPExecution", Some(TOOL_POST)),
        ("beforeReadFile", Some(TOOL_PRE)),
        ("afterFileEdit", Some(TOOL_POST)),
        ("preToolUse", Some(TOOL_PRE)),
        ("postToolUse", Some(TOOL_POST)),
        ("beforeSubmitPrompt", Some(PROMPT_SUBMIT)),
        ("stop", Some(PROMPT_COMPLETE)),
        ("sessionStart", Some(SESSION_START)),
        ("sessionEnd", Some(SESSION_END)),
        ("preCompact", Some(CONTEXT_PRE_COMPACT)),
        ("subagentStart", None),
        ("subagentStop", None),
    ],
    fields: &[],
};

/// The events whose answer is a `permission`.
const ASKS_PERMISSION: &[&str] = &[
    "beforeShellExecution",
    "beforeMCPExecution",
    "beforeReadFile",
    "preToolUse",
];

/// Maps Cursor's hook input (JSON with `hook_event_name`) onto our event, its shell commands,
/// MCP calls and files as tool calls (see the [module docs](self)).
pub fn event_in(input: &str) -> Result<MappedEvent, InputError> {
    let mut mapped = CURSOR.event_in(input)?;
    let Value::Object(data) = &mut mapped.data else {
        return Ok(mapped);
    };
    let field = |data: &Map<String, Value>, name: &str| data.get(name).cloned();
    let tool = match mapped.agent_event.as_str() {
        "beforeShellExecution" | "afterShellExecution" => Some((
            Value::from("Shell"),
            json!({"command": field(data, "command"), "cwd": field(data, "cwd")}),
        )),
        "beforeReadFile" => Some((
            Value::from("Read"),
            json!({"file_path": field(data, "file_path")}),
        )),
        "afterFileEdit" => Some((
            Value::from("Edit"),
            json!({"file_path": field(data, "file_path"), "edits": field(data, "edits")}),
        )),
        "beforeMCPExecution" | "afterMCPExecution" => {
            let input = match field(data, TOOL_INPUT) {
                // Cursor has sent MCP arguments as a JSON text: the rules want the object.
                Some(Value::String(text)) => {
                    serde_json::from_str(&text).unwrap_or(Value::String(text))
                }
                other => other.unwrap_or(Value::Null),
            };
            Some((field(data, TOOL_NAME).unwrap_or(Value::Null), input))
        }
        _ => None,
    };
    if let Some((name, input)) = tool {
        data.insert(TOOL_NAME.to_owned(), name);
        data.insert(TOOL_INPUT.to_owned(), input);
    }
    let result = match mapped.agent_event.as_str() {
        "afterShellExecution" => field(data, "output"),
        "afterMCPExecution" => field(data, "result_json"),
        _ => None,
    };
    if let Some(result) = result {
        data.entry(TOOL_RESULT).or_insert(result);
    }
    Ok(mapped)
}

/// Our merged result for Cursor's event `agent_event`, in its protocol (see the
/// [module docs](self)).
pub fn answer(agent_event: &str, outcome: &EmitResult) -> AgentAnswer {
    let result = &outcome.result;
    let mut answer = Map::new();
    if ASKS_PERMISSION.contains(&agent_event) {
        let decision = match result.action {
            HookAction::Deny => Some(("deny", reason_of(outcome))),
            HookAction::AskUser => Some(("ask", question_of(outcome))),
            _ if outcome.is_modified() => Some((
                "deny",
                format!(
                    "a hook rewrites this call's input, which Cursor cannot apply; blocked rather \
                     than run unchanged ({})",
                    modifiers(outcome)
                ),
            )),
            _ => None,
        };
        if let Some((permission, message)) = decision {
            answer.insert("permission".into(), Value::from(permission));
            answer.insert("user_message".into(), Value::from(message.clone()));
            let agent_message = match context_of(outcome) {
                Some(context) => format!("{message}\n{context}"),
                None => message,
            };
            answer.insert("agent_message".into(), Value::from(agent_message));
            return AgentAnswer::json(answer);
        }
    } else if agent_event == "beforeSubmitPrompt" {
        let refusal = if result.action == HookAction::Deny {
            Some(reason_of(outcome))
        } else if outcome.is_modified() {
            Some(format!(
                "the prompt was not sent: a hook rewrites it ({}), and Cursor can only send it as \
                 typed; edit it and send it again",
                modifiers(outcome)
            ))
        } else {
            None
        };
        if let Some(message) = refusal {
            answer.insert("continue".into(), Value::Bool(false));
            answer.insert("user_message".into(), Value::from(message));
            return AgentAnswer::json(answer);
        }
    } else if agent_event == "stop" && result.action == HookAction::Deny {
        answer.insert("followup_message".into(), Value::from(reason_of(outcome)));
        return AgentAnswer::json(answer);
    }
    // No answer Cursor takes: whatever the hooks said goes to the user on stderr.
    let mut notes: Vec<String> = messages_of(outcome).into_iter().collect();
    if let Some(context) = context_of(outcome) {
        notes.push(format!(
            "hook context (Cursor takes none on {agent_event}): {context}"
        ));
    }
    AgentAnswer {
        stdout: String::new(),
        stderr: notes.join("\n"),
        exit_code: 0,
    }
}

/// The answer when the policy cannot decide: a deny in the event's own terms, and exit code 2
/// for a Cursor that reads only the code.
pub fn fail_closed(agent_event: Option<&str>, reason: String) -> AgentAnswer {
    let json = match agent_event {
        Some("beforeSubmitPrompt") => json!({"continue": false, "user_message": reason}),
        Some("stop") => json!({"followup_message": reason}),
        _ => json!({"permission": "deny", "user_message": reason, "agent_message": reason}),
    };
    AgentAnswer {
        stdout: json.to_string(),
        stderr: reason,
        exit_code: 2,
    }
}

/// The hooks that modified the data, for a reason that names them.
fn modifiers(outcome: &EmitResult) -> String {
    let names: Vec<&str> = outcome.modifications.iter().map(|m| &*m.hook).collect();
    if names.is_empty() {
        "a hook".to_owned()
    } else {
        names.join(", ")
    }
}
