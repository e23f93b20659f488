//! GitHub Copilot CLI and cloud agent ([`Copilot`]): its events in both of its dialects, its
//! answers, and its hooks files (`.github/hooks/*.json` in the repository,
//! `~/.copilot/hooks/*.json`), as its hooks reference documents them (github/docs,
//! `content/copilot/reference/copilot-cli-reference/cli-hooks-reference.md`).
//!
//! # Two dialects in
//!
//! The case of an event's name in the hooks file picks the payload:
//!
//! - **camelCase** (`preToolUse`): camelCase fields, no event name (`sessionId`, `toolName`,
//!   and `toolArgs`, the tool's arguments as a JSON text). The event is read from the fields
//!   that only it has (`toolResult`: `postToolUse`; `toolName` and `error`:
//!   `postToolUseFailure`; `toolName` alone: `preToolUse`; `prompt`: `userPromptSubmitted`;
//!   ...). Its `toolArgs` text is parsed into the `tool_input` the rules read.
//! - **PascalCase** (`PreToolUse`, what `hooks init copilot` writes): snake_case fields and
//!   `hook_event_name`; the VS Code agent, which runs the same files, sends `hookEventName`
//!   and `sessionId` beside snake_case tool fields, read alike.
//!
//! Tools get their canonical names (`bash` is `Bash`, `view` `Read`, `create` `Write`, `edit`
//! `Edit`, and the VS Code agent's `run_in_terminal`, `readFile`, `createFile`, `editFiles`
//! likewise), their `path` also the `file_path`.
//!
//! # Answers (`hooks copilot`)
//!
//! Copilot skips a hook that exits non-zero or times out ("logged and skipped": the call runs),
//! except on `permissionRequest`, where exit 2 denies. So every answer is JSON on exit 0:
//!
//! | our merged result | Copilot's answer |
//! |---|---|
//! | continue, nothing else | nothing, exit 0 (never `allow`) |
//! | deny on `preToolUse` | `{"permissionDecision": "deny", "permissionDecisionReason"}`; in the PascalCase dialect also `hookSpecificOutput` with the same decision, for the VS Code agent |
//! | ask_user on `preToolUse` | a deny whose reason is the question: `ask` is a deny headless and an approval under `--allow-all-tools` |
//! | modified tool input, every rewriter `rewrite: apply` | `permissionDecision: "allow"` with `modifiedArgs` (Copilot runs it unconfirmed) |
//! | modified tool input, otherwise | a deny saying what would have run |
//! | deny or ask_user on `permissionRequest` | `{"behavior": "deny", "message"}` |
//! | deny on `agentStop` / `Stop` / `subagentStop` | `{"decision": "block", "reason"}`: the agent goes on with the reason |
//! | anything on other events | nothing Copilot acts on (its output is not processed there): what the hooks said goes to stderr |
//! | context | stderr (Copilot drops `additionalContext` on `preToolUse`) |
//!
//! A policy that cannot decide denies the same way; for input it cannot read, with every
//! tool event's deny at once (`permissionDecision`, `behavior`, `hookSpecificOutput`).

use crate::agent_protocol::input_object;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME, TOOL_RESULT};
use hooks_core::events::{
    APPROVAL_REQUIRED, CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END,
    SESSION_START, TOOL_ERROR, TOOL_POST, TOOL_PRE, USER_NOTIFICATION,
};
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value, json};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::reasons::{
    context_of, inapplicable, messages_of, modifiers, question_of, reason_of, unconfirmed_rewrite,
};
use super::tools::{ToolName, canonical_event, named};
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, InputError, Layout,
    MappedEvent, Profile, ProjectDir, Protocol, RewriteSupport,
};
#[cfg(any(test, feature = "validate"))]
use super::{Verdict, hook_output::non_empty, hook_output::printed};

/// GitHub Copilot CLI and cloud agent.
#[derive(Debug, Clone, Copy)]
pub struct Copilot;

/// Copilot's hook protocol: its events in both dialects.
pub const COPILOT: Protocol = Protocol {
    agent: "copilot",
    events: &[
        ("preToolUse", Some(TOOL_PRE)),
        ("PreToolUse", Some(TOOL_PRE)),
        ("permissionRequest", Some(APPROVAL_REQUIRED)),
        ("postToolUse", Some(TOOL_POST)),
        ("PostToolUse", Some(TOOL_POST)),
        ("postToolUseFailure", Some(TOOL_ERROR)),
        ("PostToolUseFailure", Some(TOOL_ERROR)),
        ("userPromptSubmitted", Some(PROMPT_SUBMIT)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("agentStop", Some(PROMPT_COMPLETE)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("sessionStart", Some(SESSION_START)),
        ("SessionStart", Some(SESSION_START)),
        ("sessionEnd", Some(SESSION_END)),
        ("SessionEnd", Some(SESSION_END)),
        ("preCompact", Some(CONTEXT_PRE_COMPACT)),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
        ("notification", Some(USER_NOTIFICATION)),
        ("Notification", Some(USER_NOTIFICATION)),
        ("subagentStart", None),
        ("subagentStop", None),
        ("SubagentStop", None),
        ("errorOccurred", None),
        ("ErrorOccurred", None),
    ],
    fields: &[("tool_response", "tool_result")],
};

/// Copilot's tools (and the VS Code agent's, which sends the PascalCase dialect) under their
/// canonical names.
const TOOLS: &[ToolName] = &[
    named("bash", "Bash"),
    ToolName {
        theirs: "view",
        canonical: "Read",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "create",
        canonical: "Write",
        fields: &[("path", "file_path"), ("file_text", "content")],
    },
    ToolName {
        theirs: "edit",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
    named("run_in_terminal", "Bash"),
    named("runInTerminal", "Bash"),
    ToolName {
        theirs: "readFile",
        canonical: "Read",
        fields: &[("filePath", "file_path")],
    },
    ToolName {
        theirs: "createFile",
        canonical: "Write",
        fields: &[("filePath", "file_path")],
    },
    named("editFiles", "Edit"),
];

/// The tool events, whose answer is a permission.
const PRE_TOOL: &[&str] = &["preToolUse", "PreToolUse"];

/// The fields of an answer to a tool event (`preToolUse` and `permissionRequest`).
#[cfg(any(test, feature = "validate"))]
const PERMISSION_FIELDS: &[&str] = &[
    "permissionDecision",
    "permissionDecisionReason",
    "modifiedArgs",
    "hookSpecificOutput",
    "behavior",
    "message",
];

/// The events a `decision: "block"` keeps going.
const STOPS: &[&str] = &["agentStop", "Stop", "subagentStop", "SubagentStop"];

/// What Copilot takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    // `ask` is a deny headless, and approved unasked under `--allow-all-tools`.
    asks_on: &[],
    rewrite: RewriteSupport::AppliedOnly,
    // `additionalContext` on `preToolUse` is dropped (github/copilot-cli#2585).
    context_on: &[],
    // `userPromptSubmitted`'s output is not processed.
    blocks_prompt: None,
};

/// Copilot's hooks files; the VS Code agent reads the same folder and the `command` field.
static SETTINGS: HookSettings = HookSettings {
    project: ".github/hooks/hooks.json",
    user: ".copilot/hooks/hooks.json",
    project_dir: ProjectDir::GitRoot,
    layout: Layout::CommandFields(&["bash", "command"]),
    init_events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

/// Seen with the real Copilot CLI offline: in prompt mode it skips a repository's hooks without
/// a word unless the folder is trusted or the variable below is set.
const TRUST_NOTE: &str = "GitHub Copilot CLI runs a repository's `.github/hooks/` in prompt mode \
(`copilot -p`) only in a folder it trusts (start `copilot` here once and trust the folder) or \
with `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true`; otherwise it skips them without a word.";

/// What GitHub Copilot is, as data.
static PROFILE: Profile = Profile::new(
    &COPILOT,
    "GitHub Copilot",
    &CopilotDialect,
    &CAPABILITIES,
    &SETTINGS,
)
// Every hooks file in its folders, whatever its name.
.also_guards(&[".github/hooks/**", ".copilot/hooks/**"])
.tools(TOOLS)
// Copilot reads `timeoutSec`, the VS Code agent `timeout`, both in seconds.
.timeout_keys(&["timeoutSec", "timeout"])
// Run headless against the real Copilot CLI, offline, by this project's end-to-end tests
// (`hooks-cli/tests/copilot_cli_e2e.rs`, when `HOOKS_E2E_COPILOT` names the binary).
.tested_against_real_program()
.trust_note(TRUST_NOTE);

/// GitHub Copilot's answers: a permission on the tool call, a decision on a stop.
#[derive(Debug)]
pub(crate) struct CopilotDialect;

impl Agent for Copilot {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Either dialect in (see the [module docs](self)).
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let mut fields = input_object(input)?;
        // The VS Code agent, reading the same folder, names its event `hookEventName`.
        if let Some(event) = fields.get("hookEventName").cloned() {
            fields.entry("hook_event_name").or_insert(event);
        }
        if !fields.contains_key("hook_event_name") {
            let event = camel_event(&fields).ok_or(InputError::NoEventName)?;
            fields.insert("hook_event_name".to_owned(), Value::from(event));
        }
        // Some camelCase payloads name their event (`notification`): read the fields alike.
        for (camel, snake) in [
            ("sessionId", "session_id"),
            ("toolName", TOOL_NAME),
            ("toolArgs", TOOL_INPUT),
            ("toolResult", TOOL_RESULT),
            ("transcriptPath", "transcript_path"),
        ] {
            if let Some(value) = fields.get(camel).cloned() {
                fields.entry(snake).or_insert(value);
            }
        }
        // The arguments as a JSON text (camelCase always, PascalCase when unparsed upstream).
        if let Some(Value::String(text)) = fields.get(TOOL_INPUT)
            && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text)
        {
            fields.insert(TOOL_INPUT.to_owned(), parsed);
        }
        // A freeform tool's input is its raw text (Copilot CLI 1.0.102 sends `apply_patch` as
        // `Edit` with the patch as the whole input): the rules read it as the field `input`,
        // where a patch is checked file by file.
        if let Some(Value::String(text)) = fields.get(TOOL_INPUT) {
            let input = serde_json::json!({ "input": text });
            fields.insert(TOOL_INPUT.to_owned(), input);
        }
        canonical_event(&COPILOT, TOOLS, &Value::Object(fields).to_string())
    }
}

impl Dialect for CopilotDialect {
    /// Our merged result for Copilot's event `agent_event` (see the [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            agent_event,
            input,
            outcome,
            rewrites,
            ..
        } = *answering;
        let result = &outcome.result;
        if PRE_TOOL.contains(&agent_event) {
            let decision = match result.action {
                HookAction::Deny => Some(deny_tool(agent_event, reason_of(outcome))),
                HookAction::AskUser => Some(deny_tool(
                    agent_event,
                    format!(
                        "a hook asks for approval, which GitHub Copilot cannot be relied on to \
                         ask for (headless it denies, with --allow-all-tools it approves): {}",
                        question_of(outcome)
                    ),
                )),
                _ if outcome.is_modified() => {
                    let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
                    match new_input {
                        Some(new_input) if *new_input == input[TOOL_INPUT] => None,
                        Some(new_input @ Value::Object(_)) if rewrites.all_applied(outcome) => {
                            Some(permission(
                                agent_event,
                                "allow",
                                format!("rewritten {}", modifiers(outcome)),
                                Some(new_input),
                            ))
                        }
                        Some(new_input @ Value::Object(_)) => Some(deny_tool(
                            agent_event,
                            unconfirmed_rewrite("GitHub Copilot", new_input, outcome),
                        )),
                        _ => Some(deny_tool(
                            agent_event,
                            inapplicable("GitHub Copilot", agent_event, outcome),
                        )),
                    }
                }
                _ => None,
            };
            if let Some(answer) = decision {
                return with_notes(answer, agent_event, outcome);
            }
        } else if agent_event == "permissionRequest" {
            let refusal = match result.action {
                HookAction::Deny => Some(reason_of(outcome)),
                HookAction::AskUser => Some(format!(
                    "a hook asks for approval, which GitHub Copilot cannot be relied on to ask \
                     for: {}",
                    question_of(outcome)
                )),
                _ if outcome.is_modified() => {
                    Some(inapplicable("GitHub Copilot", agent_event, outcome))
                }
                _ => None,
            };
            if let Some(message) = refusal {
                let answer = AgentAnswer::json(&json!({"behavior": "deny", "message": message}));
                return with_notes(answer, agent_event, outcome);
            }
        } else if STOPS.contains(&agent_event) {
            let refusal = match result.action {
                HookAction::Deny => Some(reason_of(outcome)),
                HookAction::AskUser => Some(question_of(outcome)),
                _ if outcome.is_modified() => {
                    Some(inapplicable("GitHub Copilot", agent_event, outcome))
                }
                _ => None,
            };
            if let Some(reason) = refusal {
                let answer = AgentAnswer::json(&json!({"decision": "block", "reason": reason}));
                return with_notes(answer, agent_event, outcome);
            }
        } else if result.action == HookAction::Deny || outcome.is_modified() {
            // Copilot does not process the output of this event: the user is told.
            let answer = AgentAnswer {
                stderr: format!(
                    "GitHub Copilot cannot stop {agent_event}; a hook would have: {}",
                    reason_of(outcome)
                ),
                ..AgentAnswer::silent()
            };
            return with_notes(answer, agent_event, outcome);
        }
        with_notes(AgentAnswer::silent(), agent_event, outcome)
    }

    /// A deny in the event's own terms, on exit 0: Copilot skips a hook that exits non-zero.
    fn fail_closed(&self, agent_event: Option<&str>, reason: String) -> AgentAnswer {
        match agent_event {
            Some(event) if PRE_TOOL.contains(&event) => deny_tool(event, reason),
            Some("permissionRequest") => {
                AgentAnswer::json(&json!({"behavior": "deny", "message": reason}))
            }
            Some(event) if STOPS.contains(&event) => {
                AgentAnswer::json(&json!({"decision": "block", "reason": reason}))
            }
            Some(_) => AgentAnswer {
                stderr: reason,
                ..AgentAnswer::silent()
            },
            // Unreadable input: every tool event's deny at once.
            None => AgentAnswer::json(&json!({
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
                "behavior": "deny",
                "message": reason,
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                },
            })),
        }
    }

    /// Copilot's reading of an answer, by its hooks reference: on `preToolUse` a
    /// `permissionDecision` of `deny` with a reason, or `allow` with `modifiedArgs`; on
    /// `permissionRequest` `behavior: "deny"` with a message, or exit 2; on the stop events
    /// `decision: "block"` with a reason. Output of other events is not processed. Refused:
    /// a non-zero exit on a tool event (skipped: the call runs), `ask` (a deny headless, an
    /// approval under `--allow-all-tools`), an `allow` without `modifiedArgs`, a deny without
    /// a reason, output that is not a JSON object, and any field the event does not know.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        let reads_output = PRE_TOOL.contains(&agent_event)
            || STOPS.contains(&agent_event)
            || agent_event == "permissionRequest";
        match answer.exit_code {
            0 => {}
            2 if agent_event == "permissionRequest" => {
                let message = printed(answer)?.and_then(|fields| non_empty(fields.get("message")));
                return Ok(Verdict::Block(
                    message.unwrap_or_else(|| "denied".to_owned()),
                ));
            }
            code if reads_output => {
                return Err(format!(
                    "exit code {code}: GitHub Copilot logs the hook as failed and runs the call"
                ));
            }
            _ => return Ok(Verdict::Proceed),
        }
        if !reads_output {
            return Ok(Verdict::Proceed);
        }
        match printed(answer)? {
            None => Ok(Verdict::Proceed),
            Some(fields) if STOPS.contains(&agent_event) => read_stop(&fields),
            Some(fields) => read_permission(agent_event, &fields),
        }
    }
}

/// The camelCase event of `fields`, read from the fields only it has.
fn camel_event(fields: &Map<String, Value>) -> Option<&'static str> {
    let has = |name: &str| fields.contains_key(name);
    Some(if has("toolName") && has("toolResult") {
        "postToolUse"
    } else if has("toolName") && has("error") {
        "postToolUseFailure"
    } else if has("toolName") {
        // `permissionRequest` documents no payload of its own: read as `preToolUse`, whose
        // deny `permissionRequest` does not take, so its own permission flow decides.
        "preToolUse"
    } else if has("prompt") {
        "userPromptSubmitted"
    } else if has("errorContext") {
        "errorOccurred"
    } else if has("agentName") && has("stopReason") {
        "subagentStop"
    } else if has("agentName") {
        "subagentStart"
    } else if has("stopReason") {
        "agentStop"
    } else if has("trigger") {
        "preCompact"
    } else if has("source") {
        "sessionStart"
    } else if has("reason") {
        "sessionEnd"
    } else {
        return None;
    })
}

/// A `permissionDecision` on `agent_event`; in the PascalCase dialect also as
/// `hookSpecificOutput`, which the VS Code agent reads.
fn permission(
    agent_event: &str,
    decision: &str,
    reason: String,
    modified: Option<&Value>,
) -> AgentAnswer {
    let mut answer = json!({
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    });
    if let Some(modified) = modified {
        answer["modifiedArgs"] = modified.clone();
    }
    if agent_event == "PreToolUse" {
        let mut specific = json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        });
        if let Some(modified) = modified {
            specific["updatedInput"] = modified.clone();
        }
        answer["hookSpecificOutput"] = specific;
    }
    AgentAnswer::json(&answer)
}

/// A deny of the tool call, with `reason` (never empty).
fn deny_tool(agent_event: &str, reason: String) -> AgentAnswer {
    let reason = if reason.trim().is_empty() {
        "blocked by a hook".to_owned()
    } else {
        reason
    };
    permission(agent_event, "deny", reason, None)
}

/// `answer` with the hooks' messages and context on stderr, where the user sees them.
fn with_notes(mut answer: AgentAnswer, agent_event: &str, outcome: &EmitResult) -> AgentAnswer {
    let mut notes: Vec<String> = messages_of(outcome).into_iter().collect();
    if let Some(context) = context_of(outcome) {
        notes.push(format!(
            "hook context (GitHub Copilot takes none on {agent_event}): {context}"
        ));
    }
    if !notes.is_empty() {
        if !answer.stderr.is_empty() {
            notes.insert(0, answer.stderr);
        }
        answer.stderr = notes.join("\n");
    }
    answer
}

/// The answer to a stop event, read; the fields of a tool event's deny (the answer to input
/// that could not be read) are ignored there.
#[cfg(any(test, feature = "validate"))]
fn read_stop(fields: &Map<String, Value>) -> Result<Verdict, String> {
    if let Some(key) = fields.keys().find(|key| {
        !["decision", "reason"].contains(&key.as_str())
            && !PERMISSION_FIELDS.contains(&key.as_str())
    }) {
        return Err(format!("`{key}` is not taken on a stop"));
    }
    match fields.get("decision").and_then(Value::as_str) {
        Some("block") => non_empty(fields.get("reason"))
            .map(Verdict::Block)
            .ok_or_else(|| "`decision: block` without a reason".to_owned()),
        None => Ok(Verdict::Proceed),
        Some(other) => Err(format!("`decision: {other}` on a stop")),
    }
}

/// The answer to a tool event, read: `permissionDecision` on `preToolUse` (`hookSpecificOutput`
/// repeating it for the VS Code agent), `behavior` on `permissionRequest`; each ignores the
/// other's fields.
#[cfg(any(test, feature = "validate"))]
fn read_permission(agent_event: &str, fields: &Map<String, Value>) -> Result<Verdict, String> {
    if let Some(key) = fields
        .keys()
        .find(|key| !PERMISSION_FIELDS.contains(&key.as_str()))
    {
        return Err(format!("`{key}` is not taken on {agent_event}"));
    }
    let decision = fields.get("permissionDecision").and_then(Value::as_str);
    if let Some(specific) = fields.get("hookSpecificOutput") {
        let mirrors = specific.get("hookEventName") == Some(&Value::from("PreToolUse"))
            && specific.get("permissionDecision").and_then(Value::as_str) == decision;
        if !mirrors {
            return Err(format!(
                "hookSpecificOutput does not repeat the decision: {specific}"
            ));
        }
    }
    if fields
        .get("behavior")
        .is_some_and(|behavior| behavior != "deny")
    {
        return Err(format!("`behavior: {}` from a guard", fields["behavior"]));
    }
    if agent_event == "permissionRequest" {
        return match fields.get("behavior") {
            Some(_) => non_empty(fields.get("message"))
                .map(Verdict::Block)
                .ok_or_else(|| "`behavior: deny` without a message".to_owned()),
            None => Ok(Verdict::Proceed),
        };
    }
    let reason = non_empty(fields.get("permissionDecisionReason"));
    match (decision, reason, fields.get("modifiedArgs")) {
        (None, _, None) => Ok(Verdict::Proceed),
        (Some("deny"), Some(reason), None) => Ok(Verdict::Block(reason)),
        (Some("allow"), _, Some(args @ Value::Object(_))) => {
            Ok(Verdict::RunRewritten(args.clone()))
        }
        (decision, _, modified) => Err(format!(
            "permissionDecision {decision:?} with modifiedArgs {modified:?}: {fields:?}"
        )),
    }
}
