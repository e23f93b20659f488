//! Codex CLI's hook protocol: its events, its stdin fields, its answers, and its hooks files.
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
//! ([`fail_closed`]), which blocks wherever Codex CLI lets a hook block.

use std::path::Path;

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value, json};

pub use crate::agent_protocol::CODEX;
use crate::settings::{Imported, import_section};
use crate::{ConfigError, ConfigErrors};

use super::{
    AgentAnswer, Rewrites, context_of, inapplicable, messages_of, modifiers, question_of,
    reason_of, unconfirmed_rewrite,
};

/// The events whose `hookSpecificOutput.additionalContext` Codex CLI takes.
const TAKES_CONTEXT: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "SubagentStart",
];

/// The events a top-level `{"decision": "block", "reason"}` blocks.
const BLOCKS_BY_DECISION: &[&str] = &["PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"];

/// Our merged result for Codex CLI's event `agent_event`, in its protocol (see the
/// [module docs](self)); `input` is the event data as it was emitted, `rewrites` whether the
/// entries that rewrote a tool input opted in to having it run unconfirmed.
pub fn answer(
    agent_event: &str,
    input: &Value,
    outcome: &EmitResult,
    rewrites: &Rewrites,
) -> AgentAnswer {
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
    let mut specific = Map::new();
    if outcome.is_modified() {
        // Of the data of a tool call, Codex CLI takes only the tool input, and only on an allow.
        let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
        match (agent_event, new_input) {
            ("PreToolUse", Some(new_input)) if *new_input == input[TOOL_INPUT] => {}
            ("PreToolUse", Some(new_input @ Value::Object(_))) if rewrites.all_applied(outcome) => {
                specific.insert("permissionDecision".into(), json!("allow"));
                specific.insert(
                    "permissionDecisionReason".into(),
                    json!(format!("rewritten {}", modifiers(outcome))),
                );
                specific.insert("updatedInput".into(), new_input.clone());
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
        if TAKES_CONTEXT.contains(&agent_event) {
            specific.insert("additionalContext".into(), json!(context));
        } else {
            let note = format!("hook context (Codex CLI takes none on {agent_event}): {context}");
            system_message = Some(join(system_message, note));
        }
    }
    AgentAnswer::json(fields(agent_event, specific, system_message))
}

/// The answer when the policy cannot decide: exit 2 with the reason, a block wherever Codex
/// CLI lets a hook block.
pub fn fail_closed(reason: String) -> AgentAnswer {
    AgentAnswer::block(reason)
}

/// A deny with `reason`, in the terms of `agent_event` (see the [module docs](self)).
fn deny(agent_event: &str, reason: String, outcome: &EmitResult) -> AgentAnswer {
    // Codex CLI takes an empty reason as no block at all.
    let reason = if reason.trim().is_empty() {
        "blocked by a hook".to_owned()
    } else {
        reason
    };
    let mut specific = Map::new();
    let mut top = Map::new();
    match agent_event {
        "PreToolUse" => {
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
            if let Some(context) = context_of(outcome) {
                specific.insert("additionalContext".into(), json!(context));
            }
        }
        "PermissionRequest" => {
            specific.insert(
                "decision".into(),
                json!({"behavior": "deny", "message": reason}),
            );
        }
        event if BLOCKS_BY_DECISION.contains(&event) => {
            top.insert("decision".into(), json!("block"));
            top.insert("reason".into(), json!(reason));
        }
        _ => return AgentAnswer::block(reason),
    }
    let mut answer = fields(agent_event, specific, messages_of(outcome));
    answer.extend(top);
    AgentAnswer::json(answer)
}

/// An answer's fields: `hookSpecificOutput` (when `specific` has anything) and
/// `systemMessage`.
fn fields(
    agent_event: &str,
    mut specific: Map<String, Value>,
    system_message: Option<String>,
) -> Map<String, Value> {
    let mut answer = Map::new();
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(agent_event));
        answer.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if let Some(message) = system_message {
        answer.insert("systemMessage".into(), json!(message));
    }
    answer
}

fn join(first: Option<String>, second: String) -> String {
    match first {
        Some(first) => format!("{first}\n{second}"),
        None => second,
    }
}

/// Converts the `[hooks]` tables of a Codex CLI `config.toml` (the same shape as its
/// `hooks.json`, see [`import_hooks`](crate::settings::import_hooks)); the rest of the file
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
    import_section(&CODEX, &settings, text, file)
}

/// The 1-based line and column of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |newline| newline + 1) + 1;
    (line, column)
}
