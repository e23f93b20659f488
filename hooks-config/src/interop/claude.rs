//! Claude Code ([`ClaudeCode`]): its events, its stdin fields, its answers, and its settings
//! files (`.claude/settings.json` in the project and in the home directory; commands name
//! the project `"$CLAUDE_PROJECT_DIR"`).
//!
//! # Answers (`hooks claude`)
//!
//! | our merged result | Claude Code's answer |
//! |---|---|
//! | continue, nothing else | nothing on stdout, exit 0 (never `allow`: that would skip the user's own permission prompt) |
//! | deny | the reason on stderr, exit 2; with a message for the user, the JSON block of the event instead (below), so the message is not lost |
//! | deny with a message, on PreToolUse | `permissionDecision: "deny"`, the reason, and `systemMessage` |
//! | deny with a message, on PermissionRequest | `decision: {behavior: "deny", message}` and `systemMessage` |
//! | deny with a message, on UserPromptSubmit, PostToolUse, Stop, SubagentStop | `decision: "block"`, `reason` and `systemMessage` |
//! | deny with a message, elsewhere | exit 2, the reason and the message on stderr |
//! | ask_user on PreToolUse | `permissionDecision: "ask"` with the prompt as the reason |
//! | ask_user on PermissionRequest | no decision: Claude Code's own dialog asks |
//! | ask_user elsewhere | exit 2 with the prompt (Claude Code cannot ask there: fail closed) |
//! | modified tool input on PreToolUse | `updatedInput` with `permissionDecision: "ask"`, so the user sees the rewrite; the reason says what would run |
//! | modified tool input on PreToolUse, every rewriter `rewrite: apply` | `updatedInput` with `permissionDecision: "allow"`: it runs, unconfirmed |
//! | any other modification | exit 2 with a reason (Claude Code cannot apply it, and it is not dropped) |
//! | context injection | `additionalContext` where Claude Code takes it (PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, Setup, SubagentStart); elsewhere `systemMessage`, so the user sees it |
//! | user messages, failed hooks | `systemMessage` |
//! | suppress_output | `suppressOutput: true` |
//!
//! A rewrite asks by default, and in headless mode (`claude -p`) nobody can answer: Claude Code
//! takes the `ask` as a refusal, neither the original nor the rewritten call runs, and the model
//! reads the reason, which names the rewritten call. An entry marked `rewrite: apply` passes
//! its rewrite through as an allow instead (see [`Rewrite::Apply`](crate::Rewrite::Apply)).
//!
//! # Answers read (command hooks written for Claude Code)
//!
//! Read as Claude Code reads them, per event: see [`AnswerProtocol::ClaudeCode`](crate::AnswerProtocol::ClaudeCode).
//! `permissionDecision` and `updatedInput` count on PreToolUse only, `decision.behavior` on
//! PermissionRequest only; what Claude Code would ignore or reject (`{"decision": "ask"}`, the
//! hook's input echoed back) decides nothing and is reported as a warning. Plain output on
//! exit 0 is a success: context on UserPromptSubmit and SessionStart, no decision elsewhere.

use std::path::Path;

use super::{FailClosedKey, KeyValue, MinVersion, OnFailure, Profile};
use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::events::{
    APPROVAL_REQUIRED, CONTEXT_POST_COMPACT, CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT,
    SESSION_END, SESSION_START, TOOL_ERROR, TOOL_POST, TOOL_PRE, USER_NOTIFICATION,
};
use hooks_core::{EmitResult, HookAction};
use serde_json::Value;

pub use crate::settings::Imported;
use crate::settings::{import_hooks, one_error};
use crate::{ConfigErrors, HookKind};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
#[cfg(any(test, feature = "validate"))]
use super::Verdict;
use super::foreign::{ForeignCaller, cursor_answer};
use super::hook_output::{Decision, HookOutput, Permission, PermissionRequestDecision, Specific};
#[cfg(any(test, feature = "validate"))]
use super::hook_output::{SpecificRules, non_empty, printed};
use super::reasons::{
    inapplicable, json_answer, messages_of, modifiers, question_of, reason_of, would_run,
};
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, Importer, InputError,
    Layout, MappedEvent, ProjectDir, Protocol, RewriteSupport,
};

/// Claude Code.
#[derive(Debug, Clone, Copy)]
pub struct ClaudeCode;

/// Claude Code's hook protocol: its events, and its fields the taxonomy names otherwise.
pub const CLAUDE: Protocol = Protocol {
    agent: "claude",
    events: &[
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("PreToolUse", Some(TOOL_PRE)),
        ("PermissionRequest", Some(APPROVAL_REQUIRED)),
        ("PostToolUse", Some(TOOL_POST)),
        ("PostToolUseFailure", Some(TOOL_ERROR)),
        ("Notification", Some(USER_NOTIFICATION)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
        ("PostCompact", Some(CONTEXT_POST_COMPACT)),
        ("SubagentStart", None),
        ("SubagentStop", None),
        ("Setup", None),
    ],
    fields: &[
        ("tool_response", "tool_result"),
        ("tool_use_id", "tool_call_id"),
    ],
};

/// The events whose `hookSpecificOutput.additionalContext` reaches the model.
const CONTEXT_ON: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "Setup",
    "SubagentStart",
];

/// What Claude Code takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &["PreToolUse", "PermissionRequest"],
    rewrite: RewriteSupport::ConfirmedOrApplied,
    context_on: CONTEXT_ON,
    blocks_prompt: Some("UserPromptSubmit"),
};

/// Claude Code's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: ".claude/settings.json",
    user: ".claude/settings.json",
    project_dir: ProjectDir::Var("CLAUDE_PROJECT_DIR"),
    layout: Layout::MatcherGroups,
    init_events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

/// The events that block with the top-level `decision: "block"`.
const BLOCKS_BY_DECISION: &[&str] = &["UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop"];

/// What Claude Code is, as data.
static PROFILE: Profile = Profile::new(&CLAUDE, "Claude Code", &DIALECT, &CAPABILITIES, &SETTINGS)
    // Its local settings, its hooks folder, a plugin's hooks file, its subagents and skills.
    .also_guards(&[
        ".claude/settings.local.json",
        ".claude/hooks/**",
        "hooks/hooks.json",
        // Subagents and skills, whose frontmatter can declare hooks that run outside the guard.
        ".claude/agents/*.md",
        ".claude/skills/*/SKILL.md",
    ])
    .binaries(&["claude"])
    // `"onFailure": "block"` makes a failed hook block, from Claude Code 2.1.295; an older
    // version ignores it, and a value it does not know makes it skip the whole settings file.
    .on_failure(OnFailure::Settable(FailClosedKey {
        key: "onFailure",
        value: KeyValue::Str("block"),
        since: Some(MinVersion {
            binary: "claude",
            version: [2, 1, 295],
        }),
    }))
    // Run headless against the real CLI, offline, by this project's end-to-end tests
    // (`hooks-cli/tests/claude_code_e2e.rs`, when `HOOKS_E2E_CLAUDE` names the binary).
    .tested_against_real_program();

impl Agent for ClaudeCode {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// `"disableAllHooks": true` in the project's settings (shared or local) or the user's.
    fn hooks_switched_off(&self, project: &Path, home: &Path) -> Option<String> {
        let files = [
            project.join(".claude/settings.json"),
            project.join(".claude/settings.local.json"),
            home.join(".claude/settings.json"),
        ];
        files.iter().find_map(|file| {
            let text = std::fs::read_to_string(file).ok()?;
            let settings = serde_json::from_str::<Value>(&text).ok()?;
            (settings.get("disableAllHooks") == Some(&Value::Bool(true)))
                .then(|| format!("`disableAllHooks: true` in {}", file.display()))
        })
    }

    /// Claude Code's hook input; or that of another agent running the hooks of Claude Code's
    /// settings, told by its shape (see [`foreign`](super::foreign)).
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        match serde_json::from_str::<Value>(input) {
            Ok(Value::Object(fields)) => match ForeignCaller::of(&fields) {
                Some(caller) => caller.event_in(
                    fields,
                    |text| CLAUDE.event_in(text),
                    |event| CLAUDE.events.iter().any(|(theirs, _)| *theirs == event),
                ),
                None => CLAUDE.event_in(input),
            },
            _ => CLAUDE.event_in(input),
        }
    }

    fn importer(&self) -> Option<Importer> {
        Some(import_file)
    }
}

/// Claude Code's reading of an answer, which Qwen Code and Factory Droid document as theirs: exit 2 blocks with stderr as the reason (stdout is
/// ignored then); exit 0 with nothing proceeds; exit 0 with JSON is read per event (see the
/// [module docs](self)). Refused, as a guard must not say them: any other exit code (a
/// non-blocking error: the call runs), `continue`, `stopReason`, an `allow` without
/// `updatedInput` (it would skip the user's own permission prompt), a deny or a question
/// without a reason, a `decision` other than `block` or on an event that does not take
/// it, and any field the event does not know.
#[cfg(any(test, feature = "validate"))]
pub(crate) fn accepts(agent_event: &str, answer: &AgentAnswer) -> Result<Verdict, String> {
    match answer.exit_code {
        2 if !answer.stdout.trim().is_empty() => Err(format!(
            "exit 2 with stdout, which Claude Code ignores: {answer:?}"
        )),
        2 => non_empty(Some(&Value::from(answer.stderr.as_str())))
            .map(Verdict::Block)
            .ok_or_else(|| "exit 2 without a reason on stderr".to_owned()),
        0 => match printed(answer)? {
            None => Ok(Verdict::Proceed),
            Some(fields) => read_json(agent_event, &fields),
        },
        code => Err(format!(
            "exit code {code}: a non-blocking error to Claude Code, which runs the call"
        )),
    }
}

/// Claude Code's JSON answer to `agent_event`, read.
#[cfg(any(test, feature = "validate"))]
fn read_json(
    agent_event: &str,
    fields: &serde_json::Map<String, Value>,
) -> Result<Verdict, String> {
    let mut verdict = Verdict::Proceed;
    for (key, value) in fields {
        match key.as_str() {
            "systemMessage" if value.is_string() => {}
            "suppressOutput" if value.is_boolean() => {}
            "decision" if BLOCKS_BY_DECISION.contains(&agent_event) && value == "block" => {
                let reason = non_empty(fields.get("reason")).ok_or_else(|| {
                    format!("`decision: block` without a reason on {agent_event}")
                })?;
                verdict = Verdict::Block(reason);
            }
            "reason" if fields.contains_key("decision") => {}
            "hookSpecificOutput" => {
                if let Some(specific) = SPECIFIC.read(agent_event, value)? {
                    verdict = specific;
                }
            }
            other => return Err(format!("`{other}` is not taken on {agent_event}: {value}")),
        }
    }
    Ok(verdict)
}

/// What Claude Code takes in `hookSpecificOutput`: every decision, an `updatedInput` beside
/// any of them (with `ask`, the user confirms the rewrite).
#[cfg(any(test, feature = "validate"))]
const SPECIFIC: SpecificRules = SpecificRules {
    context_on: CONTEXT_ON,
    decisions: &["deny", "ask", "allow"],
    updated_with: &["deny", "ask", "allow"],
};

/// Converts the `hooks` section of a Claude Code settings file (see the [module docs](crate::settings)).
/// Malformed JSON or a malformed `hooks` section is an error, with its line and column.
pub fn import_settings(text: &str, file: &Path) -> Result<Imported, ConfigErrors> {
    import_hooks(&CLAUDE, text, file)
}

/// Converts the hooks of the Claude Code plugin in `plugin_dir` (its `hooks/hooks.json`), as
/// [`import_settings`] converts a settings file. Each command is given the plugin's root as
/// Claude Code gives it (`export CLAUDE_PLUGIN_ROOT=...;` before the command), so that
/// `${CLAUDE_PLUGIN_ROOT}/hooks/check.py` and scripts that read the variable find their files
/// while the hook runs in the project directory.
pub fn import_plugin(plugin_dir: &Path) -> Result<Imported, ConfigErrors> {
    let file = plugin_dir.join("hooks").join("hooks.json");
    let text = std::fs::read_to_string(&file).map_err(|error| {
        one_error(
            &file,
            1,
            1,
            format!("cannot read the plugin's hooks file: {error}"),
        )
    })?;
    let mut imported = import_settings(&text, &file)?;
    let root = std::path::absolute(plugin_dir).unwrap_or_else(|_| plugin_dir.to_path_buf());
    with_plugin_root(&mut imported, &root);
    imported.notes.push(format!(
        "the plugin's commands run in the project directory with CLAUDE_PLUGIN_ROOT={}",
        root.display()
    ));
    Ok(imported)
}

/// `hooks import claude`: a settings file, or a plugin's directory (its `hooks/hooks.json`).
fn import_file(path: &Path) -> Result<Imported, ConfigErrors> {
    if path.is_dir() {
        return import_plugin(path);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|error| one_error(path, 1, 1, format!("cannot read the file: {error}")))?;
    import_settings(&text, path)
}

/// The entries of a Claude Code plugin's hooks file, given the plugin's root as Claude Code
/// gives it: each command starts with `export CLAUDE_PLUGIN_ROOT=<root>;`, so that
/// `${CLAUDE_PLUGIN_ROOT}/hooks/check.py` and scripts that read the variable find their files
/// while the hook runs in the project directory.
pub fn with_plugin_root(imported: &mut Imported, root: &Path) {
    let export = format!(
        "export CLAUDE_PLUGIN_ROOT={}; ",
        sh_quoted(&root.to_string_lossy())
    );
    for entry in &mut imported.entries {
        if let HookKind::Command(command) = &mut entry.hook {
            command.command.insert_str(0, &export);
        }
    }
}

/// The plugin a hooks file belongs to: `<plugin>/hooks/hooks.json`, Claude Code's plugin
/// layout, gives `<plugin>`.
pub fn plugin_root_of(file: &Path) -> Option<std::path::PathBuf> {
    let hooks_dir = file.parent()?;
    let is_plugin_file = file.file_name()? == "hooks.json" && hooks_dir.file_name()? == "hooks";
    is_plugin_file
        .then(|| hooks_dir.parent().map(Path::to_path_buf))
        .flatten()
}

/// `text` as one word for `sh`.
fn sh_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A block of `agent_event`: exit 2 with the reason, unless there is a message for the user,
/// which exit 2 would drop (Claude Code ignores stdout then); the event's JSON block keeps it.
fn block(agent_event: &str, reason: String, outcome: &EmitResult) -> AgentAnswer {
    let Some(message) = messages_of(outcome) else {
        return AgentAnswer::block(reason);
    };
    let mut answer = HookOutput {
        system_message: Some(message.clone()),
        ..HookOutput::default()
    };
    let mut specific = Specific::of(agent_event);
    match agent_event {
        "PreToolUse" => {
            specific.permission_decision = Some(Permission::Deny);
            specific.permission_decision_reason = Some(reason);
            answer.hook_specific_output = Some(specific);
        }
        "PermissionRequest" => {
            specific.decision = Some(PermissionRequestDecision::deny(reason));
            answer.hook_specific_output = Some(specific);
        }
        _ if BLOCKS_BY_DECISION.contains(&agent_event) => {
            answer.decision = Some(Decision::Block);
            answer.reason = Some(reason);
        }
        // Exit 2 shows stderr to the user on the other events: the message goes with it.
        _ => return AgentAnswer::block(format!("{reason}\n{message}")),
    }
    AgentAnswer::json(&answer)
}

/// The dialect of Claude Code's protocol (Claude Code itself, Qwen Code, Factory Droid): its
/// answers are Claude Code's (see the [module docs](self)), their reasons naming the agent of
/// the row, its context reaching the model on the row's `context_on`.
#[derive(Debug)]
pub(crate) struct ClaudeDialect {
    /// How it runs headless, where nobody can confirm a rewrite: `` `claude -p` ``.
    pub headless: &'static str,
    /// Whether other agents run its settings' hooks, told by the shape of their input (see
    /// [`foreign`](super::foreign)): Cursor is then answered in a form both read alike.
    pub foreign_callers: bool,
}

/// Claude Code as a [`ClaudeDialect`].
static DIALECT: ClaudeDialect = ClaudeDialect {
    headless: "`claude -p`",
    foreign_callers: true,
};

impl Dialect for ClaudeDialect {
    /// Our merged result for its event `agent_event`, in Claude Code's protocol; to Cursor
    /// running Claude Code's hooks, in a form both read alike.
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            profile,
            agent_event,
            input,
            outcome,
            rewrites,
        } = *answering;
        if self.foreign_callers && ForeignCaller::recorded_in(input) == Some(ForeignCaller::Cursor)
        {
            return cursor_answer(input, outcome);
        }
        let name = profile.display_name;
        let result = &outcome.result;
        let mut specific = Specific::of(agent_event);
        match result.action {
            HookAction::Deny => return block(agent_event, reason_of(outcome), outcome),
            HookAction::AskUser => {
                let prompt = question_of(outcome);
                match agent_event {
                    "PreToolUse" => {
                        specific.permission_decision = Some(Permission::Ask);
                        specific.permission_decision_reason = Some(prompt);
                    }
                    // No decision: Claude Code's own dialog asks.
                    "PermissionRequest" => {}
                    _ => {
                        let reason = format!(
                            "a hook asks for approval, which {name} cannot ask for on \
                             {agent_event}: {prompt}",
                        );
                        return block(agent_event, reason, outcome);
                    }
                }
            }
            _ => {}
        }
        if outcome.is_modified() {
            // Of the data of a tool call, Claude Code takes only the tool input.
            let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
            match (agent_event, new_input) {
                ("PreToolUse", Some(new_input)) if *new_input == input[TOOL_INPUT] => {}
                ("PreToolUse", Some(new_input @ Value::Object(_))) => {
                    specific.updated_input = Some(new_input.clone());
                    if specific.permission_decision.is_none() {
                        let (decision, reason) = if rewrites.all_applied(outcome) {
                            (
                                Permission::Allow,
                                format!("rewritten {}", modifiers(outcome)),
                            )
                        } else {
                            (Permission::Ask, self.to_confirm(new_input, outcome))
                        };
                        specific.permission_decision = Some(decision);
                        specific.permission_decision_reason = Some(reason);
                    }
                }
                _ => {
                    let reason = inapplicable(name, agent_event, outcome);
                    return block(agent_event, reason, outcome);
                }
            }
        }
        let context_on = profile.capabilities.context_on;
        json_answer(name, specific, context_on.contains(&agent_event), outcome)
    }

    /// Claude Code's reading (see [`accepts`]).
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        accepts(agent_event, answer)
    }
}

impl ClaudeDialect {
    /// The reason of a rewrite put to the user: who rewrote it, what would run, and what
    /// happens where nobody can answer, which is also what the model reads when it is refused.
    fn to_confirm(&self, new_input: &Value, outcome: &EmitResult) -> String {
        format!(
            "a hook rewrote the input ({}); approve to run `{}` instead. Without an answer \
             (headless, {}) neither the original nor the rewrite runs.",
            modifiers(outcome),
            would_run(new_input),
            self.headless
        )
    }
}
