//! Claude Code's hook protocol: its events, its stdin fields, its answers, and its settings
//! files.
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

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value, json};

pub use crate::agent_protocol::CLAUDE;
pub use crate::settings::{Imported, import_plugin, import_settings};

use super::{
    AgentAnswer, Rewrites, inapplicable, json_answer, messages_of, modifiers, question_of,
    reason_of, would_run,
};

/// The events whose `hookSpecificOutput.additionalContext` reaches the model.
const TAKES_CONTEXT: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "Setup",
    "SubagentStart",
];

/// The events that block with the top-level `decision: "block"`.
const BLOCKS_BY_DECISION: &[&str] = &["UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop"];

/// Our merged result for Claude Code's event `agent_event`, in its protocol (see the
/// [module docs](self)); `input` is the event data as it was emitted. Every rewrite is
/// confirmed; [`answer_with`] applies those of the hooks `rewrites` names.
pub fn answer(agent_event: &str, input: &Value, outcome: &EmitResult) -> AgentAnswer {
    answer_with(agent_event, input, outcome, &Rewrites::confirmed())
}

/// [`answer`], with the rewrites of the hooks in `rewrites` passed through as an allow.
pub fn answer_with(
    agent_event: &str,
    input: &Value,
    outcome: &EmitResult,
    rewrites: &Rewrites,
) -> AgentAnswer {
    let result = &outcome.result;
    let mut specific = Map::new();
    match result.action {
        HookAction::Deny => return block(agent_event, reason_of(outcome), outcome),
        HookAction::AskUser => {
            let prompt = question_of(outcome);
            match agent_event {
                "PreToolUse" => {
                    specific.insert("permissionDecision".into(), json!("ask"));
                    specific.insert("permissionDecisionReason".into(), json!(prompt));
                }
                "PermissionRequest" => {}
                _ => {
                    let reason = format!(
                        "a hook asks for approval, which Claude Code cannot ask for on \
                         {agent_event}: {prompt}"
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
                specific.insert("updatedInput".into(), new_input.clone());
                if !specific.contains_key("permissionDecision") {
                    let (decision, reason) = if rewrites.all_applied(outcome) {
                        ("allow", format!("rewritten {}", modifiers(outcome)))
                    } else {
                        ("ask", to_confirm(new_input, outcome))
                    };
                    specific.insert("permissionDecision".into(), json!(decision));
                    specific.insert("permissionDecisionReason".into(), json!(reason));
                }
            }
            _ => {
                let reason = inapplicable("Claude Code", agent_event, outcome);
                return block(agent_event, reason, outcome);
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

/// A block of `agent_event`: exit 2 with the reason, unless there is a message for the user,
/// which exit 2 would drop (Claude Code ignores stdout then); the event's JSON block keeps it.
fn block(agent_event: &str, reason: String, outcome: &EmitResult) -> AgentAnswer {
    let Some(message) = messages_of(outcome) else {
        return AgentAnswer::block(reason);
    };
    let mut answer = Map::new();
    match agent_event {
        "PreToolUse" => {
            answer.insert(
                "hookSpecificOutput".into(),
                json!({"hookEventName": agent_event, "permissionDecision": "deny",
                       "permissionDecisionReason": reason}),
            );
        }
        "PermissionRequest" => {
            answer.insert(
                "hookSpecificOutput".into(),
                json!({"hookEventName": agent_event,
                       "decision": {"behavior": "deny", "message": reason}}),
            );
        }
        _ if BLOCKS_BY_DECISION.contains(&agent_event) => {
            answer.insert("decision".into(), json!("block"));
            answer.insert("reason".into(), json!(reason));
        }
        // Exit 2 shows stderr to the user on the other events: the message goes with it.
        _ => return AgentAnswer::block(format!("{reason}\n{message}")),
    }
    answer.insert("systemMessage".into(), json!(message));
    AgentAnswer::json(answer)
}

/// The reason of a rewrite put to the user: who rewrote it, what would run, and what happens
/// where nobody can answer, which is also what the model reads when it is refused.
fn to_confirm(new_input: &Value, outcome: &EmitResult) -> String {
    format!(
        "a hook rewrote the input ({}); approve to run `{}` instead. Without an answer \
         (headless, `claude -p`) neither the original nor the rewrite runs.",
        modifiers(outcome),
        would_run(new_input)
    )
}
