//! Gemini CLI's hook protocol: its events, its stdin fields and its answers.
//!
//! # Answers (`hooks gemini`)
//!
//! | our merged result | Gemini CLI's answer |
//! |---|---|
//! | continue, nothing else | nothing on stdout, exit 0 |
//! | deny | exit 0 with `{"decision": "deny", "reason": ...}`, the form Gemini CLI documents (an exit code 2 blocks too, but Gemini CLI reports it as a failed hook). On `SessionStart`, `SessionEnd`, `PreCompress` and `Notification`, which Gemini CLI does not let a hook stop, the reason is also the `systemMessage`, so the user sees it |
//! | ask_user | a deny with the prompt: Gemini CLI has no documented way to ask (its undocumented `decision: "ask"` waits forever in a headless run), so fail closed |
//! | modified tool input on BeforeTool, every entry that modified it with `rewrite: apply` | `hookSpecificOutput.tool_input`, the whole new input, which Gemini CLI runs without asking anyone (0.61 replaces the arguments with it) |
//! | modified tool input on BeforeTool, otherwise | a deny whose reason says what would have run and how to opt in |
//! | any other modification | a deny with a reason (Gemini CLI cannot apply it, and it is not dropped) |
//! | context injection | `hookSpecificOutput.additionalContext` on AfterTool and BeforeAgent; elsewhere `systemMessage` |
//! | user messages | `systemMessage` |
//! | suppress_output | `suppressOutput: true` |
//!
//! A policy that cannot decide (a broken hooks file, unreadable input) denies the same way
//! ([`fail_closed`]).
//!
//! # Trust
//!
//! Gemini CLI runs a project's hooks (`.gemini/settings.json`) only in a trusted folder; with
//! `--skip-trust` it drops them silently. `GEMINI_CLI_TRUST_WORKSPACE=true`, a trusted folder
//! (`~/.gemini/trustedFolders.json`), or the hooks in the user's own settings keep them.

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::{EmitResult, HookAction};
use serde_json::{Map, Value, json};

pub use crate::agent_protocol::GEMINI;

use super::{
    AgentAnswer, Rewrites, inapplicable, json_answer, messages_of, question_of, reason_of,
    unconfirmed_rewrite,
};

/// The events whose `hookSpecificOutput.additionalContext` reaches the model.
const TAKES_CONTEXT: &[&str] = &["AfterTool", "BeforeAgent"];

/// The events whose `decision` Gemini CLI ignores: a hook there is advisory.
const ADVISORY: &[&str] = &["SessionStart", "SessionEnd", "PreCompress", "Notification"];

/// Our merged result for Gemini CLI's event `agent_event`, in its protocol (see the
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
        HookAction::Deny => return deny(Some(agent_event), reason_of(outcome), outcome),
        HookAction::AskUser => {
            let prompt = question_of(outcome);
            let reason =
                format!("a hook asks for approval, which Gemini CLI cannot ask for: {prompt}");
            return deny(Some(agent_event), reason, outcome);
        }
        _ => {}
    }
    let mut specific = Map::new();
    if outcome.is_modified() {
        // Of the data of a tool call, Gemini CLI takes only the tool input.
        let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
        match (agent_event, new_input) {
            ("BeforeTool", Some(new_input)) if *new_input == input[TOOL_INPUT] => {}
            ("BeforeTool", Some(Value::Object(new))) if rewrites.all_applied(outcome) => {
                specific.insert(TOOL_INPUT.into(), Value::Object(new.clone()));
            }
            ("BeforeTool", Some(new_input @ Value::Object(_))) => {
                let reason = unconfirmed_rewrite("Gemini CLI", new_input, outcome);
                return deny(Some(agent_event), reason, outcome);
            }
            _ => {
                let reason = inapplicable("Gemini CLI", agent_event, outcome);
                return deny(Some(agent_event), reason, outcome);
            }
        }
    }
    json_answer(
        "Gemini CLI",
        agent_event,
        specific,
        TAKES_CONTEXT.contains(&agent_event),
        outcome,
    )
}

/// The answer when the policy cannot decide: a deny, in the documented form.
pub fn fail_closed(agent_event: Option<&str>, reason: String) -> AgentAnswer {
    let mut answer = Map::new();
    answer.insert("decision".into(), json!("deny"));
    answer.insert("reason".into(), json!(reason));
    if agent_event.is_none_or(|event| ADVISORY.contains(&event)) {
        answer.insert("systemMessage".into(), json!(reason));
    }
    AgentAnswer::json(answer)
}

/// A deny with `reason`: `{"decision": "deny", "reason"}`, the user messages (and, where
/// Gemini CLI ignores the decision, the reason) in `systemMessage`.
fn deny(agent_event: Option<&str>, reason: String, outcome: &EmitResult) -> AgentAnswer {
    let mut answer = Map::new();
    let advisory = agent_event.is_none_or(|event| ADVISORY.contains(&event));
    let messages = messages_of(outcome);
    let system_message = match (advisory, messages) {
        (true, Some(messages)) => Some(format!("{messages}\n{reason}")),
        (true, None) => Some(reason.clone()),
        (false, messages) => messages,
    };
    answer.insert("decision".into(), json!("deny"));
    answer.insert("reason".into(), json!(reason));
    if let Some(message) = system_message {
        answer.insert("systemMessage".into(), json!(message));
    }
    AgentAnswer::json(answer)
}
