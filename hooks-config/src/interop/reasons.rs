//! The texts of our answers that every agent shares: why a call was blocked, what a rewrite
//! would have run, which hooks did it, what the user is told.

use hooks_core::EmitResult;
use hooks_core::text::truncate_chars_marked;
use serde_json::Value;

use super::AgentAnswer;
use super::hook_output::{HookOutput, Specific};

/// The reason of a rewrite that blocks under an agent that cannot ask: what would have run,
/// who rewrote it, and how to let it through.
pub(crate) fn unconfirmed_rewrite(agent: &str, new_input: &Value, outcome: &EmitResult) -> String {
    format!(
        "blocked: a hook rewrote this call ({}) to run `{}` instead, and {agent} would run the \
         rewrite without asking you; run that yourself if it is what you want, or set \
         `rewrite: apply` on the hook's entry to let {agent} run its rewrites",
        modifiers(outcome),
        would_run(new_input)
    )
}

/// The reason of a block for a modification `agent` cannot apply on `agent_event`: applying
/// nothing would drop it silently.
pub(crate) fn inapplicable(agent: &str, agent_event: &str, outcome: &EmitResult) -> String {
    format!(
        "a hook rewrites the data of {agent_event} ({}), which {agent} cannot apply here; \
         blocked rather than ignored",
        modifiers(outcome)
    )
}

/// A rewritten tool input, as a reason quotes it: its command when it has one, else its JSON,
/// cut at 400 characters.
pub(crate) fn would_run(new_input: &Value) -> String {
    let text = match new_input.get("command").and_then(Value::as_str) {
        Some(command) => command.to_owned(),
        None => new_input.to_string(),
    };
    truncate_chars_marked(&text, 400, "...").into_owned()
}

/// The hooks that modified the data, for a reason that names them.
pub(crate) fn modifiers(outcome: &EmitResult) -> String {
    let names: Vec<String> = outcome
        .modifications
        .iter()
        .map(|m| format!("`{}`", m.hook))
        .collect();
    if names.is_empty() {
        "by a hook".to_owned()
    } else {
        format!("by {}", names.join(", "))
    }
}

/// The answer Claude Code and Gemini CLI share when nothing blocks: `hookSpecificOutput`
/// (`specific`, plus the context when the event takes it), `systemMessage` (the user messages,
/// failures, and the context when the event takes none: the user is told rather than nobody)
/// and `suppressOutput`.
pub(crate) fn json_answer(
    agent: &str,
    mut specific: Specific,
    takes_context: bool,
    outcome: &EmitResult,
) -> AgentAnswer {
    let mut system_message = messages_of(outcome);
    if let Some(context) = context_of(outcome) {
        if takes_context {
            specific.additional_context = Some(context);
        } else {
            let note = format!(
                "hook context ({agent} takes none on {}): {context}",
                specific.hook_event_name
            );
            system_message = Some(joined(system_message, note));
        }
    }
    AgentAnswer::json(&HookOutput {
        suppress_output: outcome.result.suppress_output,
        ..HookOutput::with(specific, system_message)
    })
}

/// `second` on a line after `first`, if there is one.
pub(crate) fn joined(first: Option<String>, second: String) -> String {
    match first {
        Some(first) => format!("{first}\n{second}"),
        None => second,
    }
}

/// Every injection of an emit, joined as the kernel joins them.
pub(crate) fn context_of(outcome: &EmitResult) -> Option<String> {
    outcome
        .result
        .context_injection
        .clone()
        .filter(|text| !text.is_empty())
}

/// Every user message of an emit, and every hook that failed (and was skipped), one a line:
/// the agent's user sees them rather than nobody.
pub(crate) fn messages_of(outcome: &EmitResult) -> Option<String> {
    let lines: Vec<String> = outcome
        .result
        .user_message
        .iter()
        .filter(|text| !text.is_empty())
        .cloned()
        .chain(outcome.failures.iter().map(|f| format!("{f}; skipped")))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// What an ask_user asks: its prompt, else its reason, else a generic question.
pub(crate) fn question_of(outcome: &EmitResult) -> String {
    let result = &outcome.result;
    result
        .approval_prompt
        .clone()
        .or_else(|| result.reason.clone())
        .unwrap_or_else(|| "a hook asks for your approval".to_owned())
}

/// The reason of a deny, or a generic one naming the hook that decided.
pub(crate) fn reason_of(outcome: &EmitResult) -> String {
    match (&outcome.result.reason, &outcome.decided_by) {
        (Some(reason), _) if !reason.is_empty() => reason.clone(),
        (_, Some(hook)) => format!("blocked by the hook `{hook}`"),
        _ => "blocked by a hook".to_owned(),
    }
}
