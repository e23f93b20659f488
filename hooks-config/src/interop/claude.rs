//! Claude Code's hook protocol: its events, its stdin fields, its answers, and its settings
//! files.
//!
//! # Answers (`hooks claude`)
//!
//! | our merged result | Claude Code's answer |
//! |---|---|
//! | continue, nothing else | nothing on stdout, exit 0 (never `allow`: that would skip the user's own permission prompt) |
//! | deny | the reason on stderr, exit 2 |
//! | ask_user on PreToolUse | `permissionDecision: "ask"` with the prompt as the reason |
//! | ask_user on PermissionRequest | no decision: Claude Code's own dialog asks |
//! | ask_user elsewhere | exit 2 with the prompt (Claude Code cannot ask there: fail closed) |
//! | modified tool input on PreToolUse | `updatedInput` with `permissionDecision: "ask"`, so the user sees the rewrite |
//! | any other modification | exit 2 with a reason (Claude Code cannot apply it, and it is not dropped) |
//! | context injection | `additionalContext` where Claude Code takes it (PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart); elsewhere `systemMessage`, so the user sees it |
//! | user messages | `systemMessage` |
//! | suppress_output | `suppressOutput: true` |

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value, json};

pub use crate::agent_protocol::CLAUDE;
pub use crate::settings::{Imported, import_settings};

use super::{AgentAnswer, json_answer, question_of, reason_of};

/// The events whose `hookSpecificOutput.additionalContext` reaches the model.
const TAKES_CONTEXT: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
];

/// Our merged result for Claude Code's event `agent_event`, in its protocol (see the
/// [module docs](self)); `input` is the event data as it was emitted.
pub fn answer(agent_event: &str, input: &Value, outcome: &EmitResult) -> AgentAnswer {
    let result = &outcome.result;
    let mut specific = Map::new();
    match result.action {
        HookAction::Deny => return AgentAnswer::block(reason_of(outcome)),
        HookAction::AskUser => {
            let prompt = question_of(outcome);
            match agent_event {
                "PreToolUse" => {
                    specific.insert("permissionDecision".into(), json!("ask"));
                    specific.insert("permissionDecisionReason".into(), json!(prompt));
                }
                "PermissionRequest" => {}
                _ => {
                    return AgentAnswer::block(format!(
                        "a hook asks for approval, which Claude Code cannot ask for on \
                         {agent_event}: {prompt}"
                    ));
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
                specific.insert("updatedInput".into(), new_input.clone());
                if !specific.contains_key("permissionDecision") {
                    specific.insert("permissionDecision".into(), json!("ask"));
                    specific.insert(
                        "permissionDecisionReason".into(),
                        json!(format!("a hook rewrote the input ({})", modifiers(outcome))),
                    );
                }
            }
            _ => {
                return AgentAnswer::block(format!(
                    "a hook rewrites the data of {agent_event} ({}), which Claude Code cannot \
                     apply here; blocked rather than ignored",
                    modifiers(outcome)
                ));
            }
        }
    }
    json_answer(
        "Claude Code",
        agent_event,
        specific,
        TAKES_CONTEXT.contains(&agent_event),
        outcome,
    )
}

fn modifiers(outcome: &EmitResult) -> String {
    let names: Vec<String> = outcome
        .modifications
        .iter()
        .map(|m| format!("`{}`", m.hook))
        .collect();
    format!("by {}", names.join(", "))
}
