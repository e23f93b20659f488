//! Cursor ([`Cursor`]): its events, its stdin fields, its answers, and its hooks file
//! (`.cursor/hooks.json` in the project and in the home directory, run in the project
//! directory; its session is its `conversation_id`).
//!
//! # Events in
//!
//! Cursor names its events after what it is about to do, and puts a shell command or a file at
//! the top level of its input; they become tool calls, so that the tool rules (the safety
//! module, matchers on `tool` and `args`) apply to them as to any agent's:
//!
//! | Cursor's event | our event | `tool_name` | `tool_input` |
//! |---|---|---|---|
//! | `beforeShellExecution` / `afterShellExecution` | `tool:pre` / `tool:post` | `Bash` (Cursor's `Shell`) | `command`, `cwd` |
//! | `beforeMCPExecution` / `afterMCPExecution` | `tool:pre` / `tool:post` | its `tool_name` | its `tool_input` (a JSON text is parsed) |
//! | `beforeReadFile` | `tool:pre` | `Read` | `file_path` |
//! | `afterFileEdit` | `tool:post` | `Edit` | `file_path`, `edits` |
//! | `preToolUse` / `postToolUse` | `tool:pre` / `tool:post` | canonical (see [`CURSOR_TOOLS`]) | as given, plus `file_path` |
//! | `beforeSubmitPrompt` | `prompt:submit` | | |
//! | `stop` | `prompt:complete` | | |
//! | `sessionStart`, `sessionEnd`, `preCompact` | `session:start`, `session:end`, `context:pre_compact` | | |
//! | any other | `cursor:<snake_case>` | | |
//!
//! A tool's canonical name replaces Cursor's, which stays as `agent_tool_name` (a rule on
//! `tool: Shell` still matches). Cursor's own fields stay in the data beside ours; `afterShellExecution`'s `output` and
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

use super::{FailClosedKey, KeyValue, OnFailure, Profile};
use hooks_core::HookAction;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME, TOOL_RESULT};
use hooks_core::events::{
    CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END, SESSION_START, TOOL_POST,
    TOOL_PRE,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::hook_output::Permission;
use super::reasons::{context_of, messages_of, modifiers, question_of, reason_of, would_run};
use super::tools::{CURSOR_TOOLS, make_canonical};
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, Layout, ProjectDir,
    RewriteSupport,
};
use super::{InputError, MappedEvent, Protocol};
#[cfg(any(test, feature = "validate"))]
use super::{Verdict, hook_output::non_empty, hook_output::printed};

/// Cursor.
#[derive(Debug, Clone, Copy)]
pub struct Cursor;

/// Cursor's hook protocol: the events with a canonical equivalent. Their data is reshaped by
/// [`Agent::event_in`] rather than by field renames; its `conversation_id` is also the
/// `session_id` the hooks key their state on.
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
    fields: &[("conversation_id", "session_id")],
};

/// The events whose answer is a `permission`.
const ASKS_PERMISSION: &[&str] = &[
    "beforeShellExecution",
    "beforeMCPExecution",
    "beforeReadFile",
    "preToolUse",
];

/// What Cursor takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: ASKS_PERMISSION,
    rewrite: RewriteSupport::None,
    // Context reaches the model only beside a permission, as its `agent_message`.
    context_on: ASKS_PERMISSION,
    blocks_prompt: Some("beforeSubmitPrompt"),
};

/// Cursor's hooks files.
static SETTINGS: HookSettings = HookSettings {
    project: ".cursor/hooks.json",
    user: ".cursor/hooks.json",
    project_dir: ProjectDir::Cwd,
    layout: Layout::Commands,
    init_events: &[
        "beforeShellExecution",
        "beforeMCPExecution",
        "beforeReadFile",
        "afterFileEdit",
        "beforeSubmitPrompt",
        "stop",
    ],
};

/// Cursor's JSON answer; a field left `None` is left out.
#[derive(Debug, Default, Serialize)]
struct CursorAnswer {
    /// The tool call's permission, on the events that ask one.
    #[serde(skip_serializing_if = "Option::is_none")]
    permission: Option<Permission>,
    /// Whether the prompt is sent, on `beforeSubmitPrompt`.
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    proceed: Option<bool>,
    /// What the user reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    user_message: Option<String>,
    /// What the model reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_message: Option<String>,
    /// What the agent goes on with, on `stop`.
    #[serde(skip_serializing_if = "Option::is_none")]
    followup_message: Option<String>,
}

impl CursorAnswer {
    /// A `permission` with `message` for both the user and the model.
    fn permission(permission: Permission, message: String) -> Self {
        CursorAnswer {
            permission: Some(permission),
            user_message: Some(message.clone()),
            agent_message: Some(message),
            ..CursorAnswer::default()
        }
    }

    /// A prompt not sent, with `message` for the user.
    fn refused_prompt(message: String) -> Self {
        CursorAnswer {
            proceed: Some(false),
            user_message: Some(message),
            ..CursorAnswer::default()
        }
    }

    /// A stop refused: the agent goes on with `message`.
    fn follow_up(message: String) -> Self {
        CursorAnswer {
            followup_message: Some(message),
            ..CursorAnswer::default()
        }
    }
}

/// What Cursor is, as data.
static PROFILE: Profile = Profile::new(&CURSOR, "Cursor", &CursorDialect, &CAPABILITIES, &SETTINGS)
    .tools(CURSOR_TOOLS)
    .binaries(&["cursor-agent", "cursor"])
    // `"failClosed": true` makes a crashed, timed-out or unreadable hook block.
    .on_failure(OnFailure::Settable(FailClosedKey {
        key: "failClosed",
        value: KeyValue::Bool(true),
        since: None,
    }));

/// Cursor's answers: a `permission` per event.
#[derive(Debug)]
pub(crate) struct CursorDialect;

impl Agent for Cursor {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Maps Cursor's hook input (JSON with `hook_event_name`) onto our event, its shell
    /// commands, MCP calls and files as tool calls (see the [module docs](self)).
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        event_in(input)
    }
}

impl Dialect for CursorDialect {
    /// Our merged result for Cursor's event `agent_event`, in its protocol (see the
    /// [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            agent_event,
            outcome,
            ..
        } = *answering;
        let result = &outcome.result;
        if ASKS_PERMISSION.contains(&agent_event) {
            let decision = match result.action {
                HookAction::Deny => Some((Permission::Deny, reason_of(outcome))),
                HookAction::AskUser => Some((Permission::Ask, question_of(outcome))),
                _ if outcome.is_modified() => {
                    let new_input = result
                        .data
                        .as_ref()
                        .map_or(&Value::Null, |d| &d[TOOL_INPUT]);
                    Some((
                        Permission::Deny,
                        format!(
                            "a hook rewrites this call's input ({}) to run `{}` instead, which \
                             Cursor cannot apply; blocked rather than run unchanged",
                            modifiers(outcome),
                            would_run(new_input)
                        ),
                    ))
                }
                _ => None,
            };
            if let Some((permission, message)) = decision {
                let mut answer = CursorAnswer::permission(permission, message.clone());
                if let Some(context) = context_of(outcome) {
                    answer.agent_message = Some(format!("{message}\n{context}"));
                }
                return AgentAnswer::json(&answer);
            }
        } else if agent_event == "beforeSubmitPrompt" {
            let refusal = if result.action == HookAction::Deny {
                Some(reason_of(outcome))
            } else if outcome.is_modified() {
                Some(format!(
                    "the prompt was not sent: a hook rewrites it ({}), and Cursor can only send \
                     it as typed; edit it and send it again",
                    modifiers(outcome)
                ))
            } else {
                None
            };
            if let Some(message) = refusal {
                return AgentAnswer::json(&CursorAnswer::refused_prompt(message));
            }
        } else if agent_event == "stop" && result.action == HookAction::Deny {
            return AgentAnswer::json(&CursorAnswer::follow_up(reason_of(outcome)));
        }
        // No answer Cursor takes: whatever the hooks said goes to the user on stderr.
        let mut notes: Vec<String> = messages_of(outcome).into_iter().collect();
        if let Some(context) = context_of(outcome) {
            notes.push(format!(
                "hook context (Cursor takes none on {agent_event}): {context}"
            ));
        }
        AgentAnswer {
            stderr: notes.join("\n"),
            ..AgentAnswer::silent()
        }
    }

    /// A deny in the event's own terms, and exit code 2 for a Cursor that reads only the code.
    fn fail_closed(&self, agent_event: Option<&str>, reason: String) -> AgentAnswer {
        let answer = match agent_event {
            Some("beforeSubmitPrompt") => CursorAnswer::refused_prompt(reason.clone()),
            Some("stop") => CursorAnswer::follow_up(reason.clone()),
            _ => CursorAnswer::permission(Permission::Deny, reason.clone()),
        };
        AgentAnswer {
            stderr: reason,
            exit_code: 2,
            ..AgentAnswer::json(&answer)
        }
    }

    /// Cursor's reading of an answer: exit 2 blocks (whatever the JSON says); exit 0 with
    /// nothing proceeds; exit 0 with JSON is read per event: a `permission` of `deny` or `ask`
    /// with a `user_message` on the `before*` events and `preToolUse`, `continue: false` with a
    /// `user_message` on `beforeSubmitPrompt`, a `followup_message` on `stop`. Refused, as a
    /// guard must not say them: `permission: "allow"` (it would skip the user's own prompt), a
    /// deny or a question without a message, JSON on an event that takes none, any other exit
    /// code, and any field the event does not know.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        let fields = printed(answer)?;
        match (answer.exit_code, fields) {
            (2, fields) => {
                let said = fields
                    .as_ref()
                    .and_then(|f| non_empty(f.get("user_message")));
                said.or_else(|| non_empty(Some(&Value::from(answer.stderr.as_str()))))
                    .map(Verdict::Block)
                    .ok_or_else(|| "exit 2 without a reason".to_owned())
            }
            (0, None) => Ok(Verdict::Proceed),
            (0, Some(fields)) => read_json(agent_event, &fields),
            (code, _) => Err(format!("exit code {code}: Cursor counts it a failed hook")),
        }
    }
}

/// Cursor's JSON answer to `agent_event`, read.
#[cfg(any(test, feature = "validate"))]
fn read_json(agent_event: &str, fields: &Map<String, Value>) -> Result<Verdict, String> {
    let message = non_empty(fields.get("user_message"));
    let allowed: &[&str] = if ASKS_PERMISSION.contains(&agent_event) {
        &["permission", "user_message", "agent_message"]
    } else if agent_event == "beforeSubmitPrompt" {
        &["continue", "user_message"]
    } else if agent_event == "stop" {
        &["followup_message"]
    } else {
        &[]
    };
    if let Some(key) = fields.keys().find(|key| !allowed.contains(&key.as_str())) {
        return Err(format!("`{key}` is not taken on {agent_event}"));
    }
    if let Some(permission) = fields.get("permission") {
        return match (permission.as_str(), message) {
            (Some("deny"), Some(message)) => Ok(Verdict::Block(message)),
            (Some("ask"), Some(message)) => Ok(Verdict::Ask(message)),
            _ => Err(format!("permission {permission} as sent: {fields:?}")),
        };
    }
    match fields.get("continue") {
        Some(Value::Bool(false)) => {
            return message
                .map(Verdict::Block)
                .ok_or_else(|| "`continue: false` without a user_message".to_owned());
        }
        Some(Value::Bool(true)) | None => {}
        Some(other) => return Err(format!("`continue: {other}`")),
    }
    match fields.get("followup_message") {
        Some(follow_up) => non_empty(Some(follow_up))
            .map(Verdict::Block)
            .ok_or_else(|| "an empty followup_message".to_owned()),
        None => Ok(Verdict::Proceed),
    }
}

/// Maps Cursor's hook input (JSON with `hook_event_name`) onto our event, its shell commands,
/// MCP calls and files as tool calls (see the [module docs](self)).
fn event_in(input: &str) -> Result<MappedEvent, InputError> {
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
    make_canonical(CURSOR_TOOLS, data);
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
