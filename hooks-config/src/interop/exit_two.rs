//! The answers of agents whose one way to block is exit 2 with the reason on stderr, and that
//! take no question, no rewrite and no context from a hook (Augment Auggie, Goose, Windsurf,
//! Kiro): what our merged result becomes there.

use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::{EmitResult, HookAction};
use serde_json::Value;

use super::AgentAnswer;
use super::reasons::{context_of, messages_of, modifiers, question_of, reason_of, would_run};

/// Why `agent` must stop the call, if it must: a deny's reason, a question it cannot put, or a
/// rewrite of the tool input it cannot apply (saying what would have run).
pub(crate) fn refusal(agent: &str, input: &Value, outcome: &EmitResult) -> Option<String> {
    let result = &outcome.result;
    let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
    let rewritten = outcome.is_modified() && new_input.is_some_and(|new| *new != input[TOOL_INPUT]);
    match result.action {
        HookAction::Deny => Some(reason_of(outcome)),
        HookAction::AskUser => Some(format!(
            "a hook asks for approval, which {agent} cannot ask for from a hook: {}",
            question_of(outcome)
        )),
        _ if rewritten => Some(format!(
            "a hook rewrites this call ({}) to run `{}` instead, which {agent} cannot apply; \
             blocked rather than run unchanged",
            modifiers(outcome),
            new_input.map(would_run).unwrap_or_default()
        )),
        _ => None,
    }
}

/// What the hooks said that the agent has no channel for (messages, context), one a line.
pub(crate) fn notes(outcome: &EmitResult) -> Vec<String> {
    let mut notes: Vec<String> = messages_of(outcome).into_iter().collect();
    notes.extend(context_of(outcome));
    notes
}

/// The answer to `agent_event`: exit 2 with the [`refusal`] where the agent lets a hook block
/// (`blocks`); elsewhere exit 0, with what a hook would have stopped and the [`notes`] on
/// stderr, where the user sees them. Stderr of a block is the reason the model reads: the
/// user's messages stay out of it.
pub(crate) fn answer(
    agent: &str,
    agent_event: &str,
    blocks: bool,
    input: &Value,
    outcome: &EmitResult,
) -> AgentAnswer {
    match refusal(agent, input, outcome) {
        Some(reason) if blocks => AgentAnswer::block(reason),
        refusal => AgentAnswer {
            stderr: refusal
                .map(|reason| {
                    format!("{agent} cannot stop {agent_event}; a hook would have: {reason}")
                })
                .into_iter()
                .chain(notes(outcome))
                .collect::<Vec<_>>()
                .join("\n"),
            ..AgentAnswer::silent()
        },
    }
}
