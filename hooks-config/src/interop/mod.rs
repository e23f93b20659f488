//! Other agents' hook protocols, both ways.
//!
//! - **Inward**: their hook scripts run under our command runner. A script reads the stdin
//!   fields of its own agent ([`Protocol::script_input`]) and answers in its protocol, which
//!   the runner understands; a Claude Code settings file converts to our entries
//!   ([`claude::import_settings`]) or loads directly.
//! - **Outward**: our policy runs inside them. An adapter reads the agent's hook JSON, maps it to
//!   a canonical event ([`Protocol::event_in`]), emits it, and writes the merged result in the
//!   agent's protocol ([`claude::answer`], [`gemini::answer`], [`codex::answer`],
//!   [`cursor::answer`]).
//!
//! A rewrite of a tool call is shown to the user where the agent can ask (Claude Code's
//! `permissionDecision: "ask"`). Gemini CLI and Codex CLI cannot ask: there a rewrite blocks,
//! with a reason saying what would have run, unless every entry that rewrote the call says
//! `rewrite: apply` ([`Rewrites`]).
//!
//! Events an agent has and the taxonomy has not keep their meaning as custom events named
//! after the agent (`SubagentStop` is `claude:subagent_stop`), so nothing is dropped.

pub mod claude;
pub mod codex;
pub mod cursor;
pub mod gemini;

use std::collections::BTreeSet;

use serde_json::{Map, Value};

pub use crate::agent_protocol::{InputError, MappedEvent, Protocol, event_named};
use crate::{HooksConfig, Rewrite};

/// The hooks whose rewrites of a tool call an adapter passes to the agent as applied, with no
/// one confirming them: the entries of a hooks file marked `rewrite: apply`.
#[derive(Debug, Clone, Default)]
pub struct Rewrites {
    applied_by: BTreeSet<String>,
}

impl Rewrites {
    /// Every rewrite is confirmed (the default).
    pub fn confirmed() -> Self {
        Rewrites::default()
    }

    /// The entries of `config` marked `rewrite: apply`.
    pub fn of(config: &HooksConfig) -> Self {
        Rewrites {
            applied_by: config
                .entries
                .iter()
                .filter(|entry| entry.rewrite == Rewrite::Apply)
                .map(|entry| entry.name.clone())
                .collect(),
        }
    }

    /// Whether every modification of `outcome` came from a hook whose rewrites apply (and
    /// there was one): one rewriter that wants confirmation makes the whole rewrite asked.
    pub fn all_applied(&self, outcome: &hooks_core::EmitResult) -> bool {
        !outcome.modifications.is_empty()
            && outcome
                .modifications
                .iter()
                .all(|m| self.applied_by.contains(&*m.hook))
    }
}

/// What an adapter prints, and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentAnswer {
    /// Standard output (a JSON answer, or nothing).
    pub stdout: String,
    /// Standard error (the reason of a block).
    pub stderr: String,
    /// The exit code: 0, or 2 for a block.
    pub exit_code: i32,
}

impl AgentAnswer {
    /// Exit 0 with `json` on stdout, or with nothing if it is empty.
    pub fn json(json: Map<String, Value>) -> Self {
        AgentAnswer {
            stdout: if json.is_empty() {
                String::new()
            } else {
                Value::Object(json).to_string()
            },
            stderr: String::new(),
            exit_code: 0,
        }
    }

    /// Exit 2 with the reason on stderr: a block in every agent's protocol.
    pub fn block(reason: impl Into<String>) -> Self {
        AgentAnswer {
            stdout: String::new(),
            stderr: reason.into(),
            exit_code: 2,
        }
    }
}

/// The reason of a rewrite that blocks under an agent that cannot ask: what would have run,
/// who rewrote it, and how to let it through.
fn unconfirmed_rewrite(agent: &str, new_input: &Value, outcome: &hooks_core::EmitResult) -> String {
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
fn inapplicable(agent: &str, agent_event: &str, outcome: &hooks_core::EmitResult) -> String {
    format!(
        "a hook rewrites the data of {agent_event} ({}), which {agent} cannot apply here; \
         blocked rather than ignored",
        modifiers(outcome)
    )
}

/// A rewritten tool input, as a reason quotes it: its command when it has one, else its JSON,
/// cut at 400 characters.
fn would_run(new_input: &Value) -> String {
    let text = match new_input.get("command").and_then(Value::as_str) {
        Some(command) => command.to_owned(),
        None => new_input.to_string(),
    };
    match text.char_indices().nth(400) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// The hooks that modified the data, for a reason that names them.
fn modifiers(outcome: &hooks_core::EmitResult) -> String {
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

/// The JSON answer the protocols share: `hookSpecificOutput` (`specific`, plus the context
/// when the event takes it), `systemMessage` (the user messages, failures, and the context when
/// the event takes none: the user is told rather than nobody) and `suppressOutput`.
fn json_answer(
    agent: &str,
    agent_event: &str,
    mut specific: Map<String, Value>,
    takes_context: bool,
    outcome: &hooks_core::EmitResult,
) -> AgentAnswer {
    let mut system_message = messages_of(outcome);
    if let Some(context) = context_of(outcome) {
        if takes_context {
            specific.insert("additionalContext".into(), Value::from(context));
        } else {
            let note = format!("hook context ({agent} takes none on {agent_event}): {context}");
            system_message = Some(match system_message {
                Some(messages) => format!("{messages}\n{note}"),
                None => note,
            });
        }
    }
    let mut answer = Map::new();
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), Value::from(agent_event));
        answer.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if let Some(message) = system_message {
        answer.insert("systemMessage".into(), Value::from(message));
    }
    if outcome.result.suppress_output {
        answer.insert("suppressOutput".into(), Value::Bool(true));
    }
    AgentAnswer::json(answer)
}

/// Every injection of an emit, joined as the kernel joins them.
fn context_of(outcome: &hooks_core::EmitResult) -> Option<String> {
    outcome
        .result
        .context_injection
        .clone()
        .filter(|text| !text.is_empty())
}

/// Every user message of an emit, and every hook that failed (and was skipped), one a line:
/// the agent's user sees them rather than nobody.
fn messages_of(outcome: &hooks_core::EmitResult) -> Option<String> {
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
fn question_of(outcome: &hooks_core::EmitResult) -> String {
    let result = &outcome.result;
    result
        .approval_prompt
        .clone()
        .or_else(|| result.reason.clone())
        .unwrap_or_else(|| "a hook asks for your approval".to_owned())
}

/// The reason of a deny, or a generic one naming the hook that decided.
fn reason_of(outcome: &hooks_core::EmitResult) -> String {
    match (&outcome.result.reason, &outcome.decided_by) {
        (Some(reason), _) if !reason.is_empty() => reason.clone(),
        (_, Some(hook)) => format!("blocked by the hook `{hook}`"),
        _ => "blocked by a hook".to_owned(),
    }
}
