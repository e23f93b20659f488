//! Codex CLI ([`CodexCli`]): its events, its stdin fields, its answers, and its hooks files.
//!
//! Codex CLI reads command hooks in Claude Code's shape from `hooks.json` or the `[hooks]`
//! tables of `config.toml` (in `~/.codex/` or `<repo>/.codex/`), and sends Claude Code's stdin
//! fields plus `model`, `turn_id`, `agent_id` and `agent_type`. Tool events name the shell
//! `Bash`, file edits `apply_patch` (the patch in `tool_input.command`) and MCP tools
//! `mcp__<server>__<tool>`.
//!
//! What it accepts as an answer is narrower than Claude Code's, and an answer it does not
//! accept makes it count the hook as failed and go on, the tool call included. This module
//! answers only in the shapes Codex CLI parses (its output parser and the JSON schemas it
//! generates for each event's output, `codex-rs/hooks/src/engine/output_parser.rs` and
//! `codex-rs/hooks/schema/generated/*.command.output.schema.json` in openai/codex, and its
//! hooks documentation, <https://developers.openai.com/codex/hooks>): never
//! `permissionDecision: "ask"`, never `"allow"` without `updatedInput`, never
//! `decision: "approve"`, `continue: false`, `stopReason` or `suppressOutput`, never a field
//! the event does not know.
//!
//! # Events in
//!
//! | Codex CLI's event | our event |
//! |---|---|
//! | `PreToolUse` / `PostToolUse` | `tool:pre` / `tool:post` (`tool_response` is also the `tool_result`) |
//! | `PermissionRequest` | `approval:required` |
//! | `UserPromptSubmit` / `Stop` | `prompt:submit` / `prompt:complete` |
//! | `SessionStart` / `SessionEnd` | `session:start` / `session:end` |
//! | `PreCompact` / `PostCompact` | `context:pre_compact` / `context:post_compact` |
//! | `SubagentStart`, `SubagentStop`, any newer one | `codex:subagent_start`, `codex:subagent_stop`, `codex:<snake_case>` |
//!
//! # Answers (`hooks codex`)
//!
//! | our merged result | Codex CLI's answer |
//! |---|---|
//! | continue, nothing else | nothing on stdout, exit 0 (never `allow`) |
//! | deny on `PreToolUse` | `hookSpecificOutput.permissionDecision: "deny"` with the reason (never empty) |
//! | deny on `PermissionRequest` | `hookSpecificOutput.decision: {"behavior": "deny", "message"}` |
//! | deny on `PostToolUse`, `UserPromptSubmit`, `Stop`, `SubagentStop` | `{"decision": "block", "reason"}` (on `Stop`, the agent goes on with the reason) |
//! | deny on `SessionStart`, `SubagentStart`, `PreCompact`, `PostCompact`, `SessionEnd` | exit 2 with the reason on stderr: Codex CLI lets no hook stop these, and shows the hook as failed with the reason |
//! | ask_user on `PermissionRequest` | nothing: Codex CLI's own approval prompt asks |
//! | ask_user elsewhere | a deny whose reason is the question: Codex CLI rejects `permissionDecision: "ask"`, so fail closed |
//! | modified tool input on `PreToolUse`, every entry that modified it with `rewrite: apply` | `permissionDecision: "allow"` with `updatedInput`, the only form in which Codex CLI takes a rewrite: it runs without anyone confirming it |
//! | modified tool input on `PreToolUse`, otherwise | a deny whose reason says what would have run and how to opt in |
//! | any other modification | a deny with a reason (Codex CLI cannot apply it, and it is not dropped) |
//! | context injection | `additionalContext` on `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `SessionStart`, `SubagentStart`; elsewhere `systemMessage` |
//! | user messages, hooks that failed | `systemMessage` |
//! | suppress_output | left out: Codex CLI rejects `suppressOutput` |
//!
//! A policy that cannot decide (a broken hooks file, unreadable input) exits 2 with the reason
//! ([`Agent::fail_closed`]), which blocks wherever Codex CLI lets a hook block.
//!
//! # The working directory of a shell call
//!
//! Codex CLI runs a shell call in the tool's `workdir`, which the model picks, and leaves it out
//! of what it hands hooks: `rm -r sibling` run with `workdir: ".."` deletes outside the
//! project, while the hook sees only `rm -r sibling`. So where the input gives no `workdir`,
//! the command is also handed to the rules as `script`: `cd "$CODEX_WORKDIR" && <command>`, a
//! directory the shell computes, in which the safety module takes every relative path as
//! unknown and refuses to destroy what it cannot place (an absolute path is still checked as
//! it is). Where the input has a `workdir`, the `cd` goes there. The `script` is ours: it is
//! never part of a rewrite sent back (see [`UNKNOWN_WORKDIR`]).
//!
//! Codex CLI's session files (`~/.codex/sessions/.../rollout-*.jsonl`) record each call with
//! its arguments and call id, but nothing documents that a call is written there before its
//! `PreToolUse` hook runs, nor the files' format as stable: they are not read, the safe reading.

use std::path::Path;

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use hooks_core::events::{
    APPROVAL_REQUIRED, CONTEXT_POST_COMPACT, CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT,
    SESSION_END, SESSION_START, TOOL_POST, TOOL_PRE,
};
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value};

use crate::settings::{Imported, import_hooks, import_section, one_error};
use crate::{ConfigError, ConfigErrors};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::hook_output::{Decision, HookOutput, Permission, PermissionRequestDecision, Specific};
use super::reasons::{
    context_of, inapplicable, joined, messages_of, modifiers, question_of, reason_of,
    unconfirmed_rewrite,
};
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, Importer, InputError,
    Layout, MappedEvent, Profile, ProjectDir, Protocol, RewriteSupport, TimeUnit,
};
#[cfg(any(test, feature = "validate"))]
use super::{Verdict, hook_output::SpecificRules, hook_output::non_empty, hook_output::printed};

/// Codex CLI.
#[derive(Debug, Clone, Copy)]
pub struct CodexCli;

/// Codex CLI's hook protocol: Claude Code's events and fields, less the events Codex has not
/// (`PostToolUseFailure`, `Notification`), its own custom events named `codex:`.
pub const CODEX: Protocol = Protocol {
    agent: "codex",
    events: &[
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("PreToolUse", Some(TOOL_PRE)),
        ("PermissionRequest", Some(APPROVAL_REQUIRED)),
        ("PostToolUse", Some(TOOL_POST)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
        ("PostCompact", Some(CONTEXT_POST_COMPACT)),
        ("SubagentStart", None),
        ("SubagentStop", None),
    ],
    fields: &[
        ("tool_response", "tool_result"),
        ("tool_use_id", "tool_call_id"),
    ],
};

/// The events whose `hookSpecificOutput.additionalContext` Codex CLI takes.
const CONTEXT_ON: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "SubagentStart",
];

/// What Codex CLI takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &["PermissionRequest"],
    rewrite: RewriteSupport::AppliedOnly,
    context_on: CONTEXT_ON,
    blocks_prompt: Some("UserPromptSubmit"),
};

/// Codex CLI's hooks files: `hooks.json` beside `config.toml`, in the repository's `.codex/`
/// and in `~/.codex/`. Codex CLI sets no project variable and runs hooks in the session's
/// directory: commands name the repository's root.
/// Whether a `config.toml` turns hooks off: `hooks = false` or `codex_hooks = false` in its
/// `[features]` table, or `features.hooks = false` at the top. Read line by line: enough for
/// the forms Codex CLI documents, without a TOML parser.
fn features_turn_hooks_off(text: &str) -> bool {
    let mut table = String::new();
    text.lines().any(|line| {
        let line = line.split('#').next().unwrap_or_default().trim();
        if let Some(name) = line
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            table = name.trim().to_owned();
            return false;
        }
        let Some((key, value)) = line.split_once('=') else {
            return false;
        };
        let key = key.trim();
        let off = value.trim() == "false";
        let in_features = table == "features" && (key == "hooks" || key == "codex_hooks");
        let dotted = table.is_empty() && (key == "features.hooks" || key == "features.codex_hooks");
        off && (in_features || dotted)
    })
}

/// What `hooks init codex` tells the user: Codex CLI runs a project's hooks only once they are
/// trusted, and keeps that trust per entry.
const TRUST_NOTE: &str = "Codex CLI runs a project's hooks only after you trust them: start \
`codex` in this project and approve its hooks when asked (`codex exec` skips untrusted hooks \
without a word; `codex exec --dangerously-bypass-hook-trust` runs them all). The trust is tied to \
each entry's text: after a change of the command (a new `hooks` binary path, `hooks init` run \
again), trust it again.";

static SETTINGS: HookSettings = HookSettings {
    project: ".codex/hooks.json",
    user: ".codex/hooks.json",
    project_dir: ProjectDir::GitRoot,
    layout: Layout::MatcherGroups,
    init_events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

/// The events a top-level `{"decision": "block", "reason"}` blocks.
const BLOCKS_BY_DECISION: &[&str] = &["PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"];

/// The events whose answer may have a `hookSpecificOutput`.
#[cfg(any(test, feature = "validate"))]
const HAS_SPECIFIC: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "SubagentStart",
];

/// The field of the event data that says `tool_input.script` was added by [`CodexCli`]'s
/// reading of a shell call whose working directory is unknown (see the [module docs](self)).
pub const UNKNOWN_WORKDIR: &str = "codex_workdir_script";

/// The shell tools whose `command` runs in a `workdir`.
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "shell",
    "shell_command",
    "local_shell",
    "exec_command",
];

/// Hands the command of a shell call in `data` to the rules also as it runs: in its `workdir`,
/// or, where the input has none, in a directory they cannot know.
fn with_workdir(data: &mut Map<String, Value>) {
    let is_shell = data
        .get(TOOL_NAME)
        .and_then(Value::as_str)
        .is_some_and(|tool| SHELL_TOOLS.contains(&tool));
    let Some(Value::Object(input)) = data.get_mut(TOOL_INPUT) else {
        return;
    };
    if !is_shell || input.contains_key("script") {
        return;
    }
    let command = match input.get("command") {
        Some(Value::String(line)) => line.clone(),
        Some(Value::Array(words)) if words.iter().all(Value::is_string) => words
            .iter()
            .filter_map(Value::as_str)
            .map(sh_word)
            .collect::<Vec<_>>()
            .join(" "),
        _ => return,
    };
    let dir = match input.get("workdir").and_then(Value::as_str) {
        Some(dir) => sh_word(dir),
        None => "\"$CODEX_WORKDIR\"".to_owned(),
    };
    input.insert(
        "script".to_owned(),
        Value::from(format!("cd {dir} && {command}")),
    );
    data.insert(UNKNOWN_WORKDIR.to_owned(), Value::Bool(true));
}

/// `word` as one word for `sh`.
fn sh_word(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// `input` without the `script` [`with_workdir`] added to the data of `data`.
fn without_our_script(data: &Value, mut input: Value) -> Value {
    if data.get(UNKNOWN_WORKDIR) == Some(&Value::Bool(true))
        && let Value::Object(fields) = &mut input
    {
        fields.remove("script");
    }
    input
}

/// What Codex CLI is, as data.
static PROFILE: Profile =
    Profile::new(&CODEX, "Codex CLI", &CodexDialect, &CAPABILITIES, &SETTINGS)
        // Its configuration, which can hold hooks and MCP servers too.
        .also_guards(&[".codex/config.toml"])
        .binaries(&["codex"])
        // Run headless against the real CLI, offline, by this project's end-to-end tests
        // (`hooks-cli/tests/codex_cli_e2e.rs`, when `HOOKS_E2E_CODEX` names the binary).
        .tested_against_real_program()
        .trust_note(TRUST_NOTE);

/// Codex CLI's answers: Claude Code's JSON, as much of it as Codex CLI takes.
#[derive(Debug)]
pub(crate) struct CodexDialect;

impl Agent for CodexCli {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// `hooks = false` (or the old `codex_hooks = false`) under `[features]` of the project's
    /// or the user's `config.toml`.
    fn hooks_switched_off(&self, project: &Path, home: &Path) -> Option<String> {
        let files = [
            project.join(".codex/config.toml"),
            home.join(".codex/config.toml"),
        ];
        files.iter().find_map(|file| {
            let text = std::fs::read_to_string(file).ok()?;
            features_turn_hooks_off(&text)
                .then(|| format!("`[features] hooks = false` in {}", file.display()))
        })
    }

    /// Claude Code's stdin fields; a shell call's command also as it runs in its working
    /// directory, known or not (see the [module docs](self)).
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let mut mapped = CODEX.event_in(input)?;
        if let Value::Object(data) = &mut mapped.data {
            with_workdir(data);
        }
        Ok(mapped)
    }

    fn importer(&self) -> Option<Importer> {
        Some(import_file)
    }
}

impl Dialect for CodexDialect {
    /// Our merged result for Codex CLI's event `agent_event`, in its protocol (see the
    /// [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            agent_event,
            input,
            outcome,
            rewrites,
            ..
        } = *answering;
        let result = &outcome.result;
        match result.action {
            HookAction::Deny => return deny(agent_event, reason_of(outcome), outcome),
            HookAction::AskUser if agent_event == "PermissionRequest" => {
                // No decision: Codex CLI's own approval prompt asks the user.
            }
            HookAction::AskUser => {
                let reason = format!(
                    "a hook asks for approval, which Codex CLI cannot ask for from a hook: {}",
                    question_of(outcome)
                );
                return deny(agent_event, reason, outcome);
            }
            _ => {}
        }
        let mut specific = Specific::of(agent_event);
        if outcome.is_modified() {
            // Of the data of a tool call, Codex CLI takes only the tool input, and only on an
            // allow.
            let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
            match (agent_event, new_input) {
                ("PreToolUse", Some(new_input)) if *new_input == input[TOOL_INPUT] => {}
                ("PreToolUse", Some(new_input @ Value::Object(_)))
                    if rewrites.all_applied(outcome) =>
                {
                    specific.permission_decision = Some(Permission::Allow);
                    specific.permission_decision_reason =
                        Some(format!("rewritten {}", modifiers(outcome)));
                    specific.updated_input = Some(without_our_script(input, new_input.clone()));
                }
                ("PreToolUse", Some(new_input @ Value::Object(_))) => {
                    let reason = unconfirmed_rewrite("Codex CLI", new_input, outcome);
                    return deny(agent_event, reason, outcome);
                }
                _ => {
                    let reason = inapplicable("Codex CLI", agent_event, outcome);
                    return deny(agent_event, reason, outcome);
                }
            }
        }
        let mut system_message = messages_of(outcome);
        if let Some(context) = context_of(outcome) {
            if CAPABILITIES.context_on.contains(&agent_event) {
                specific.additional_context = Some(context);
            } else {
                let note =
                    format!("hook context (Codex CLI takes none on {agent_event}): {context}");
                system_message = Some(joined(system_message, note));
            }
        }
        // Never `suppressOutput`: Codex CLI rejects it.
        AgentAnswer::json(&HookOutput::with(specific, system_message))
    }

    /// Exit 2 with the reason, a block wherever Codex CLI lets a hook block.
    fn fail_closed(&self, _agent_event: Option<&str>, reason: String) -> AgentAnswer {
        AgentAnswer::block(reason)
    }

    /// Whether Codex CLI takes `answer` as the answer of a hook on `agent_event`, as its
    /// output parser and the JSON schemas of its hook outputs say (openai/codex,
    /// `codex-rs/hooks/src/engine/output_parser.rs` and `codex-rs/hooks/schema/generated/`),
    /// narrowed to what a guard may say: an answer Codex CLI rejects counts as a failed hook,
    /// and the tool call then runs.
    ///
    /// Accepted: exit 2 with a reason on stderr; exit 0 with nothing; exit 0 with a JSON
    /// object holding only `systemMessage` and the event's own fields (`decision: "block"` with
    /// a non-empty `reason`; `hookSpecificOutput` naming the event, with `additionalContext`, a
    /// `permissionDecision` of `deny` with a non-empty reason or of `allow` with
    /// `updatedInput`, or on `PermissionRequest` a `decision` of `behavior: "deny"` with a
    /// message). Refused: `permissionDecision: "ask"`, an `allow` without `updatedInput` (it
    /// would skip the user's own approval), `decision: "approve"`, `continue`, `stopReason`,
    /// `suppressOutput`, and any other field.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        match answer.exit_code {
            2 if answer.stderr.trim().is_empty() => Err("exit 2 without a reason on stderr".into()),
            2 if !answer.stdout.trim().is_empty() => {
                Err(format!("exit 2 with stdout {:?}", answer.stdout))
            }
            2 => Ok(Verdict::Block(answer.stderr.trim().to_owned())),
            0 => match printed(answer)? {
                None => Ok(Verdict::Proceed),
                Some(fields) => read_json(agent_event, &fields),
            },
            code => Err(format!(
                "exit code {code}: Codex CLI counts it a failed hook"
            )),
        }
    }
}

/// Codex CLI's JSON answer to `agent_event`, read.
#[cfg(any(test, feature = "validate"))]
fn read_json(agent_event: &str, fields: &Map<String, Value>) -> Result<Verdict, String> {
    let mut verdict = Verdict::Proceed;
    for (key, value) in fields {
        match key.as_str() {
            "systemMessage" if value.is_string() => {}
            "decision" if BLOCKS_BY_DECISION.contains(&agent_event) => {
                if value != "block" {
                    return Err(format!("`decision: {value}` on {agent_event}"));
                }
                let reason = non_empty(fields.get("reason")).ok_or_else(|| {
                    format!("`decision: block` without a reason on {agent_event}")
                })?;
                verdict = Verdict::Block(reason);
            }
            "reason" if BLOCKS_BY_DECISION.contains(&agent_event) => {
                if !fields.contains_key("decision") {
                    return Err(format!("`reason` without `decision` on {agent_event}"));
                }
            }
            "hookSpecificOutput" if HAS_SPECIFIC.contains(&agent_event) => {
                if let Some(decided) = SPECIFIC.read(agent_event, value)? {
                    verdict = decided;
                }
            }
            other => return Err(format!("`{other}` is not taken on {agent_event}: {value}")),
        }
    }
    Ok(verdict)
}

/// What Codex CLI takes in `hookSpecificOutput`: no `ask` (it rejects one and runs the call),
/// and an `updatedInput` only beside `allow`.
#[cfg(any(test, feature = "validate"))]
const SPECIFIC: SpecificRules = SpecificRules {
    context_on: CONTEXT_ON,
    decisions: &["deny", "allow"],
    updated_with: &["allow"],
};

/// A deny with `reason`, in the terms of `agent_event` (see the [module docs](self)).
fn deny(agent_event: &str, reason: String, outcome: &EmitResult) -> AgentAnswer {
    // Codex CLI takes an empty reason as no block at all.
    let reason = if reason.trim().is_empty() {
        "blocked by a hook".to_owned()
    } else {
        reason
    };
    let mut specific = Specific::of(agent_event);
    let mut top = HookOutput::default();
    match agent_event {
        "PreToolUse" => {
            specific.permission_decision = Some(Permission::Deny);
            specific.permission_decision_reason = Some(reason);
            specific.additional_context = context_of(outcome);
        }
        "PermissionRequest" => {
            specific.decision = Some(PermissionRequestDecision::deny(reason));
        }
        event if BLOCKS_BY_DECISION.contains(&event) => {
            top.decision = Some(Decision::Block);
            top.reason = Some(reason);
        }
        _ => return AgentAnswer::block(reason),
    }
    AgentAnswer::json(&HookOutput {
        decision: top.decision,
        reason: top.reason,
        ..HookOutput::with(specific, messages_of(outcome))
    })
}

/// `hooks import codex`: a `hooks.json`, or the `[hooks]` tables of a `config.toml`.
fn import_file(path: &Path) -> Result<Imported, ConfigErrors> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| one_error(path, 1, 1, format!("cannot read the file: {error}")))?;
    if path.extension().is_some_and(|ext| ext == "toml") {
        import_config_toml(&text, path)
    } else {
        import_hooks(&CODEX, &text, path)
    }
}

/// Converts the `[hooks]` tables of a Codex CLI `config.toml` (the same shape as its
/// `hooks.json`, see [`import_hooks`]); the rest of the file
/// is not hooks and is ignored. Malformed TOML is an error with its line and column.
pub fn import_config_toml(text: &str, file: &Path) -> Result<Imported, ConfigErrors> {
    let settings = match toml::from_str::<Value>(text) {
        Ok(Value::Object(settings)) => settings,
        Ok(_) => Map::new(),
        Err(error) => {
            let (line, column) = error
                .span()
                .map(|span| line_column(text, span.start))
                .unwrap_or((1, 1));
            return Err(ConfigErrors(vec![ConfigError {
                file: file.to_path_buf(),
                line,
                column,
                message: format!("not valid TOML: {}", error.message()),
            }]));
        }
    };
    import_section(&CODEX, TimeUnit::Seconds, &settings, text, file)
}

/// The 1-based line and column of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |newline| newline + 1) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    #[test]
    fn hooks_turned_off_in_config_toml_are_found() {
        assert!(super::features_turn_hooks_off(
            "[features]\nhooks = false\n"
        ));
        assert!(super::features_turn_hooks_off(
            "[features]\ncodex_hooks = false # old\n"
        ));
        assert!(super::features_turn_hooks_off(
            "features.hooks = false\n[x]\n"
        ));
        assert!(!super::features_turn_hooks_off(
            "[features]\nhooks = true\n"
        ));
        assert!(!super::features_turn_hooks_off("[other]\nhooks = false\n"));
    }
}
