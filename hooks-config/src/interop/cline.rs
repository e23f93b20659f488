//! Cline ([`Cline`]): one executable per event, named after the event (`PreToolUse`), in
//! `.clinerules/hooks/` in the project or `~/Documents/Cline/Hooks/` for the user; every
//! script of an event runs, and any cancel wins. `hooks init cline` writes one script per
//! event into `.clinerules/hooks/` (see [`executables`](super::executables)); each hands
//! Cline's JSON to `hooks cline --config FILE`.
//!
//! Two generations of Cline read that directory, and both are read here:
//!
//! | | the extension's runner (3.x) | the SDK's file hooks (the current CLI) |
//! |---|---|---|
//! | `hookName` | the file's name: `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `TaskStart`, ... | `tool_call`, `tool_result`, `prompt_submit`, `agent_start`, ... |
//! | the tool call | `preToolUse: {toolName, parameters}` (every value a string) | `tool_call: {id, name, input}`, and `preToolUse` too |
//! | the tool's result | `postToolUse: {toolName, parameters, result, success}` | `tool_result: {id, name, input, output, error}` |
//! | the prompt | `userPromptSubmit: {prompt}` | the same, sent without waiting: it cannot be stopped |
//!
//! Both send `taskId` (our `session_id`) and `workspaceRoots` (the first is our `cwd`).
//!
//! The answer is JSON on stdout, read by both whatever the exit code; a hook that fails
//! (non-zero exit without JSON, a crash, its 30 s timeout) lets the call run. So `hooks cline`
//! always prints an answer with `cancel`, and the scripts print a cancel themselves when
//! `hooks` cannot answer.
//!
//! | our merged result | Cline's answer |
//! |---|---|
//! | continue | `{"cancel": false}`, with `contextModification` where the event takes context |
//! | deny, ask_user, or a rewritten tool input on `PreToolUse` or `UserPromptSubmit` | `{"cancel": true, "errorMessage": <reason: the question, or what would have run>}` |
//! | anything else elsewhere | `{"cancel": false}`; what a hook would have stopped goes to stderr |
//!
//! No question and no rewrite: the SDK's `review` and `overrideInput` are unknown to the
//! extension, which would run the call, so a question or a rewrite is a cancel saying so.
//!
//! Its tools get canonical names: `execute_command` and `run_commands` are `Bash` (several
//! commands become one command line, a line each), `read_file` and `read_files` `Read`,
//! `write_to_file` and `new_rule` `Write`, `replace_in_file` and `editor` `Edit` (their `path`
//! also the `file_path`), `apply_patch` `apply_patch` (its `input` also the `command`), and
//! `use_mcp_tool` `mcp__<server>__<tool>` with its arguments as the input. A `read_files` of
//! several files has no one path for the rules to read.

use crate::agent_protocol::input_object;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use hooks_core::events::{
    CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END, SESSION_START, TOOL_POST,
    TOOL_PRE, USER_NOTIFICATION,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
#[cfg(any(test, feature = "validate"))]
use super::Verdict;
use super::exit_two::{notes, refusal};
use super::reasons::context_of;
use super::tools::{ToolName, canonical_event, named};
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, InputError, Layout,
    MappedEvent, OnFailure, Profile, ProjectDir, Protocol, RewriteSupport,
};

/// Cline.
#[derive(Debug, Clone, Copy)]
pub struct Cline;

/// Cline's hook events: the extension's names, and the SDK's.
pub const CLINE: Protocol = Protocol {
    agent: "cline",
    events: &[
        ("PreToolUse", Some(TOOL_PRE)),
        ("PostToolUse", Some(TOOL_POST)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("TaskStart", Some(SESSION_START)),
        ("TaskResume", None),
        ("TaskCancel", None),
        ("TaskComplete", Some(PROMPT_COMPLETE)),
        ("TaskError", None),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
        ("Notification", Some(USER_NOTIFICATION)),
        ("SessionShutdown", Some(SESSION_END)),
        ("tool_call", Some(TOOL_PRE)),
        ("tool_result", Some(TOOL_POST)),
        ("prompt_submit", Some(PROMPT_SUBMIT)),
        ("agent_start", Some(SESSION_START)),
        ("agent_resume", None),
        ("agent_abort", None),
        ("agent_end", Some(PROMPT_COMPLETE)),
        ("agent_error", None),
        ("session_shutdown", Some(SESSION_END)),
    ],
    fields: &[],
};

/// Cline's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    named("execute_command", "Bash"),
    named("run_commands", "Bash"),
    ToolName {
        theirs: "read_file",
        canonical: "Read",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "read_files",
        canonical: "Read",
        fields: &[("path", "file_path"), ("filePath", "file_path")],
    },
    ToolName {
        theirs: "write_to_file",
        canonical: "Write",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "new_rule",
        canonical: "Write",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "replace_in_file",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "editor",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "apply_patch",
        canonical: "apply_patch",
        fields: &[("input", "command")],
    },
];

/// The events on which a cancel stops what the event is about.
const BLOCKING: &[&str] = &["PreToolUse", "tool_call", "UserPromptSubmit"];

/// The events whose `contextModification` reaches Cline's model.
const CONTEXT_ON: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "tool_call",
    "tool_result",
];

/// What Cline takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &[],
    rewrite: RewriteSupport::None,
    context_on: CONTEXT_ON,
    blocks_prompt: Some("UserPromptSubmit"),
};

/// The template of the scripts `hooks init cline` writes.
const SCRIPT: &str = include_str!("scripts/cline.sh");

/// Cline's hooks directory.
static SETTINGS: HookSettings = HookSettings {
    project: ".clinerules/hooks",
    user: "Documents/Cline/Hooks",
    project_dir: ProjectDir::Cwd,
    layout: Layout::Executables(SCRIPT),
    init_events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

/// What `hooks cline --help` adds to the capabilities.
const LIMITS: &str = "Cline runs a tool when its hook fails (a non-zero exit without JSON, \
a crash, its 30 s timeout): the scripts `hooks init cline` writes print a cancel themselves \
when `hooks` is missing, crashes, answers nothing or runs past 25 s \
($HOOKS_CLINE_DEADLINE). The SDK-based Cline CLI sends prompts to hooks without waiting, so \
there a prompt cannot be blocked; it skips hooks in --yolo mode, and tools its model provider \
runs itself never reach a hook.";

/// Our answer, as both generations of Cline read it: the one model of it, written and, by the
/// validator, read (where a field it does not know, or of the wrong type, fails the hook).
#[derive(Debug, Serialize)]
#[cfg_attr(
    any(test, feature = "validate"),
    derive(serde::Deserialize),
    serde(deny_unknown_fields)
)]
#[serde(rename_all = "camelCase")]
struct ClineAnswer {
    /// Whether the call (or the prompt) is stopped.
    cancel: bool,
    /// The reason of a cancel, which the model reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    error_message: Option<String>,
    /// Context for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    context_modification: Option<String>,
}

impl ClineAnswer {
    /// A cancel with `reason`, exit 0 (Cline reads the JSON, not the exit code).
    fn cancel(reason: String) -> AgentAnswer {
        json_answer(&ClineAnswer {
            cancel: true,
            error_message: Some(reason),
            context_modification: None,
        })
    }
}

/// `answer` printed, exit 0; never the silent answer, which the scripts take for a failure.
fn json_answer(answer: &ClineAnswer) -> AgentAnswer {
    match serde_json::to_string(answer) {
        Ok(stdout) => AgentAnswer {
            stdout,
            stderr: String::new(),
            exit_code: 0,
        },
        Err(error) => AgentAnswer {
            stdout: json!({"cancel": true, "errorMessage": format!(
                "hooks: cannot write the answer ({error}); blocked rather than answered wrong"
            )})
            .to_string(),
            stderr: String::new(),
            exit_code: 0,
        },
    }
}

/// The object `key` of `fields`, if there is one.
fn object<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    fields.get(key).and_then(Value::as_object)
}

/// A tool's input as Cline sent it, in the shape the rules read: `run_commands`' commands as
/// one command line, a string input as `{"input": ...}`, `use_mcp_tool`'s as the MCP tool's
/// name and arguments; the extension's parameters are strings, its MCP arguments JSON text.
fn tool_call(name: &str, input: Value) -> (String, Value) {
    let mut input = match input {
        Value::Object(fields) => fields,
        Value::String(text) if name == "run_commands" => {
            Map::from_iter([("command".to_owned(), Value::from(text))])
        }
        Value::Null => Map::new(),
        other => Map::from_iter([("input".to_owned(), other)]),
    };
    if name == "run_commands"
        && !input.contains_key("command")
        && let Some(line) = command_line(input.get("commands").or_else(|| input.get("cmd")))
    {
        input.insert("command".to_owned(), Value::from(line));
    }
    if name == "use_mcp_tool" {
        let part = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
        if let (Some(server), Some(tool)) = (part("server_name"), part("tool_name")) {
            let arguments = match input.get("arguments") {
                Some(Value::String(text)) => {
                    serde_json::from_str(text).unwrap_or_else(|_| Value::from(text.as_str()))
                }
                Some(other) => other.clone(),
                None => json!({}),
            };
            return (format!("mcp__{server}__{tool}"), arguments);
        }
    }
    (name.to_owned(), Value::Object(input))
}

/// `run_commands`' commands as one command line, one a line: each a string, or an executable
/// with its arguments.
fn command_line(commands: Option<&Value>) -> Option<String> {
    let one = |entry: &Value| -> Option<String> {
        match entry {
            Value::String(text) => Some(text.clone()),
            Value::Object(fields) => {
                let program = fields.get("command")?.as_str()?;
                let args = fields.get("args").and_then(Value::as_array);
                let words = std::iter::once(super::shell_word(program)).chain(
                    args.into_iter()
                        .flatten()
                        .map(|arg| super::shell_word(arg.as_str().unwrap_or_default())),
                );
                Some(words.collect::<Vec<_>>().join(" "))
            }
            _ => None,
        }
    };
    match commands? {
        Value::Array(entries) => {
            let lines: Option<Vec<String>> = entries.iter().map(one).collect();
            lines.map(|lines| lines.join("\n"))
        }
        entry => one(entry),
    }
}

/// What Cline is, as data.
static PROFILE: Profile = Profile::new(&CLINE, "Cline", &ClineDialect, &CAPABILITIES, &SETTINGS)
    // The hooks folder of the SDK-based Cline CLI.
    .also_guards(&[".cline/hooks/**"])
    .tools(TOOLS)
    .binaries(&["cline"])
    // The scripts block when `hooks` cannot answer; only a hang past Cline's own timeout,
    // which the scripts' deadline stays under, would let the call run.
    .on_failure(OnFailure::Closed)
    .limits(LIMITS);

/// Cline's answers: `{cancel, errorMessage, contextModification}` on stdout, read by both its generations.
#[derive(Debug)]
pub(crate) struct ClineDialect;

impl Agent for Cline {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Either generation's JSON (see the [module docs](self)) as Claude Code's fields.
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let fields = input_object(input)?;
        let mut data = fields.clone();
        if let Some(name) = fields.get("hookName").cloned() {
            data.insert("hook_event_name".to_owned(), name);
        }
        if let Some(task) = fields.get("taskId").cloned() {
            data.entry("session_id").or_insert(task);
        }
        if let Some(root) = fields
            .get("workspaceRoots")
            .and_then(Value::as_array)
            .and_then(|roots| roots.first())
        {
            data.entry("cwd").or_insert(root.clone());
        }
        let sdk_call = object(&fields, "tool_call").or_else(|| object(&fields, "tool_result"));
        let legacy_call = object(&fields, "preToolUse").or_else(|| object(&fields, "postToolUse"));
        let call = match (sdk_call, legacy_call) {
            (Some(call), _) => call
                .get("name")
                .and_then(Value::as_str)
                .map(|name| (name, call.get("input").cloned().unwrap_or(Value::Null))),
            (None, Some(call)) => call
                .get("toolName")
                .and_then(Value::as_str)
                .map(|name| (name, call.get("parameters").cloned().unwrap_or(Value::Null))),
            (None, None) => None,
        };
        if let Some((name, input)) = call {
            let (name, input) = tool_call(name, input);
            data.insert(TOOL_NAME.to_owned(), Value::from(name));
            data.insert(TOOL_INPUT.to_owned(), input);
        }
        if let Some(call) = sdk_call.filter(|_| fields.contains_key("tool_result")) {
            if let Some(id) = call.get("id").cloned() {
                data.entry("tool_call_id").or_insert(id);
            }
            if let Some(output) = call.get("output").cloned() {
                data.entry("tool_result").or_insert(output);
            }
        } else if let Some(id) = object(&fields, "tool_call").and_then(|call| call.get("id")) {
            data.entry("tool_call_id").or_insert(id.clone());
        }
        if let Some(result) = object(&fields, "postToolUse").and_then(|post| post.get("result")) {
            data.entry("tool_result").or_insert(result.clone());
        }
        if let Some(prompt) = object(&fields, "userPromptSubmit").and_then(|p| p.get("prompt")) {
            data.entry("prompt").or_insert(prompt.clone());
        }
        canonical_event(&CLINE, TOOLS, &Value::Object(data).to_string())
    }
}

impl Dialect for ClineDialect {
    /// Our merged result for Cline's event `agent_event` (see the [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            agent_event,
            input,
            outcome,
            ..
        } = *answering;
        let blocks = BLOCKING.contains(&agent_event);
        let refused = refusal("Cline", input, outcome);
        if let Some(reason) = refused.clone().filter(|_| blocks) {
            return ClineAnswer::cancel(reason);
        }
        let takes_context = CONTEXT_ON.contains(&agent_event);
        let mut stderr: Vec<String> = refused
            .map(|reason| format!("Cline cannot stop {agent_event}; a hook would have: {reason}"))
            .into_iter()
            .collect();
        let context = context_of(outcome).filter(|_| takes_context);
        stderr.extend(
            notes(outcome)
                .into_iter()
                .filter(|note| Some(note) != context.as_ref()),
        );
        AgentAnswer {
            stderr: stderr.join("\n"),
            ..json_answer(&ClineAnswer {
                cancel: false,
                error_message: None,
                context_modification: context,
            })
        }
    }

    /// A cancel wherever one stops something: Cline reads JSON, not the exit code.
    fn fail_closed(&self, _agent_event: Option<&str>, reason: String) -> AgentAnswer {
        ClineAnswer::cancel(reason)
    }

    /// Cline's reading of an answer, by both generations' sources: a JSON object on stdout
    /// whose `cancel: true` stops the call of a blocking event (`PreToolUse`, `tool_call`,
    /// `UserPromptSubmit`), with `errorMessage` as the reason the model reads. Refused: no JSON (Cline logs it and runs the call), a
    /// `cancel` that is not a boolean or missing, a cancel without a reason, fields of the
    /// wrong type (the extension then fails the hook: the call runs), `review` and
    /// `overrideInput` (the extension ignores them: the call would run unasked or unchanged),
    /// and a non-zero exit (a failed hook, if its JSON were unreadable).
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        if answer.exit_code != 0 {
            return Err(format!(
                "exit code {}: a failed hook unless its JSON is read, which Cline runs",
                answer.exit_code
            ));
        }
        let read: ClineAnswer = serde_json::from_str(answer.stdout.trim())
            .map_err(|error| format!("not Cline's answer ({error}): Cline runs the call"))?;
        if !read.cancel {
            return Ok(Verdict::Proceed);
        }
        let reason = read
            .error_message
            .filter(|reason| !reason.trim().is_empty())
            .ok_or_else(|| "a cancel without an `errorMessage`".to_owned())?;
        Ok(if BLOCKING.contains(&agent_event) {
            Verdict::Block(reason)
        } else {
            Verdict::Proceed
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clines_validator_refuses_an_exit_code_a_question_and_a_bare_cancel() {
        let exit_two = AgentAnswer::block("no");
        assert!(Cline.accepts("PreToolUse", &exit_two).is_err());
        let review = AgentAnswer::json(&json!({"cancel": false, "review": true}));
        assert!(Cline.accepts("PreToolUse", &review).is_err());
        let bare = AgentAnswer::json(&json!({"cancel": true}));
        assert!(Cline.accepts("tool_call", &bare).is_err());
        let deny = Cline.fail_closed(None, "no".to_owned());
        assert_eq!(
            Cline.accepts("PreToolUse", &deny),
            Ok(Verdict::Block("no".to_owned()))
        );
        assert_eq!(Cline.accepts("PostToolUse", &deny), Ok(Verdict::Proceed));
    }

    #[test]
    fn both_generations_name_the_same_tool_call() {
        let legacy = json!({
            "clineVersion": "3.0.65", "hookName": "PreToolUse", "taskId": "t1",
            "workspaceRoots": ["/p"],
            "preToolUse": {"toolName": "write_to_file", "parameters": {"path": "a.txt", "content": "x"}}
        });
        let sdk = json!({
            "clineVersion": "", "hookName": "tool_call", "taskId": "t1", "workspaceRoots": ["/p"],
            "tool_call": {"id": "c1", "name": "editor", "input": {"path": "a.txt", "new_text": "x"}},
            "preToolUse": {"toolName": "editor", "parameters": {"path": "a.txt"}}
        });
        let legacy = Cline.event_in(&legacy.to_string()).unwrap();
        let sdk = Cline.event_in(&sdk.to_string()).unwrap();
        assert_eq!(legacy.event, "tool:pre");
        assert_eq!(sdk.event, "tool:pre");
        assert_eq!(legacy.data["tool_name"], "Write");
        assert_eq!(sdk.data["tool_name"], "Edit");
        for mapped in [&legacy, &sdk] {
            assert_eq!(mapped.data["tool_input"]["file_path"], "a.txt");
            assert_eq!(mapped.data["session_id"], "t1");
            assert_eq!(mapped.data["cwd"], "/p");
        }
    }

    #[test]
    fn several_commands_are_one_command_line_and_mcp_tools_are_named() {
        let (name, input) = tool_call(
            "run_commands",
            json!({"commands": ["ls", {"command": "rm", "args": ["-rf", "a b"]}]}),
        );
        assert_eq!(name, "run_commands");
        assert_eq!(input["command"], "ls\nrm -rf 'a b'");
        let (name, input) = tool_call(
            "use_mcp_tool",
            json!({"server_name": "git", "tool_name": "push", "arguments": "{\"force\":true}"}),
        );
        assert_eq!(name, "mcp__git__push");
        assert_eq!(input, json!({"force": true}));
    }
}
