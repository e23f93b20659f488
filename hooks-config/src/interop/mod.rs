//! Other agents' hook protocols, both ways.
//!
//! - **Inward**: their hook scripts run under our command runner. A script reads the stdin
//!   fields of its own agent ([`Protocol::script_input`]) and answers in its protocol, which
//!   the runner understands; a Claude Code settings file converts to our YAML
//!   ([`claude::import_settings`]) or loads directly.
//! - **Outward**: our policy runs inside them. An adapter reads the agent's hook JSON, maps it to
//!   a canonical event ([`Protocol::event_in`]), emits it, and writes the merged result in the
//!   agent's protocol ([`claude::answer`], [`gemini::answer`]).
//!
//! Events an agent has and the taxonomy has not keep their meaning as custom events named
//! after the agent (`SubagentStop` is `claude:subagent_stop`), so nothing is dropped.

pub mod claude;
pub mod gemini;

use serde_json::{Map, Value};

/// What an agent's hook protocol looks like from here: its events and field names.
#[derive(Debug)]
pub struct Protocol {
    /// The agent, lowercase: the namespace of its events that have no canonical equivalent.
    pub agent: &'static str,
    /// Each of the agent's events and the canonical event it is (`None`: no equivalent).
    pub events: &'static [(&'static str, Option<&'static str>)],
    /// The agent's data fields that the taxonomy names otherwise: (theirs, canonical).
    pub fields: &'static [(&'static str, &'static str)],
}

/// An agent's event, mapped onto ours.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedEvent {
    /// The event as the agent named it.
    pub agent_event: String,
    /// The canonical event, or the custom `agent:snake_case` event.
    pub event: String,
    /// The agent's fields, plus the canonical names of the fields that the taxonomy names
    /// otherwise (the agent's own names are kept: nothing is dropped).
    pub data: Value,
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

/// Why an agent's hook input cannot be mapped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Not JSON, or not an object.
    #[error("the hook input is not a JSON object: {0}")]
    NotAnObject(String),
    /// No `hook_event_name`.
    #[error("the hook input has no `hook_event_name`")]
    NoEventName,
    /// An event name that cannot become an event of ours.
    #[error("the event `{0}` cannot be mapped: it is not a name of letters and digits")]
    BadEventName(String),
}

/// `PreToolUse` → `pre_tool_use`, `beforeShellExecution` → `before_shell_execution`.
fn snake_case(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    for (index, character) in name.chars().enumerate() {
        if character.is_ascii_uppercase() {
            if index > 0 {
                snake.push('_');
            }
            snake.push(character.to_ascii_lowercase());
        } else {
            snake.push(character);
        }
    }
    snake
}

impl Protocol {
    /// The canonical event for the agent's `name`; an event without equivalent (or one newer
    /// than this table) becomes the custom event `agent:snake_case`.
    pub fn canonical_event(&self, name: &str) -> Result<String, InputError> {
        if let Some((_, Some(canonical))) = self.events.iter().find(|(theirs, _)| *theirs == name) {
            return Ok((*canonical).to_owned());
        }
        let custom = format!("{}:{}", self.agent, snake_case(name));
        hooks_core::events::canonicalize(&custom)
            .map(str::to_owned)
            .map_err(|_| InputError::BadEventName(name.to_owned()))
    }

    /// The agent's name for a canonical event, if it has one.
    pub fn agent_event(&self, canonical: &str) -> Option<&'static str> {
        self.events
            .iter()
            .find(|(_, ours)| *ours == Some(canonical))
            .map(|(theirs, _)| *theirs)
    }

    /// Maps the agent's hook input (JSON with `hook_event_name`).
    pub fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let mut data = match serde_json::from_str::<Value>(input) {
            Ok(Value::Object(fields)) => fields,
            Ok(other) => return Err(InputError::NotAnObject(format!("it is `{other}`"))),
            Err(error) => return Err(InputError::NotAnObject(error.to_string())),
        };
        let agent_event = data
            .get("hook_event_name")
            .and_then(Value::as_str)
            .ok_or(InputError::NoEventName)?
            .to_owned();
        let event = self.canonical_event(&agent_event)?;
        for (theirs, ours) in self.fields {
            if let Some(value) = data.get(*theirs).cloned() {
                data.entry(*ours).or_insert(value);
            }
        }
        Ok(MappedEvent {
            agent_event,
            event,
            data: Value::Object(data),
        })
    }

    /// What one of the agent's hook scripts reads on stdin when our runner runs it for a
    /// canonical event: the event data under the agent's names as well as ours, and
    /// `hook_event_name` as the agent names the event.
    pub fn script_input(&self, canonical: &str, data: &Value) -> Map<String, Value> {
        let mut input = match data {
            Value::Object(fields) => fields.clone(),
            _ => Map::new(),
        };
        for (theirs, ours) in self.fields {
            if let Some(value) = input.get(*ours).cloned() {
                input.entry(*theirs).or_insert(value);
            }
        }
        if let Some(name) = self.agent_event(canonical) {
            input.insert("hook_event_name".to_owned(), Value::from(name));
        }
        input
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

/// The reason of a deny, or a generic one naming the hook that decided.
fn reason_of(outcome: &hooks_core::EmitResult) -> String {
    match (&outcome.result.reason, &outcome.decided_by) {
        (Some(reason), _) if !reason.is_empty() => reason.clone(),
        (_, Some(hook)) => format!("blocked by the hook `{hook}`"),
        _ => "blocked by a hook".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_snake_case() {
        assert_eq!(snake_case("SubagentStop"), "subagent_stop");
        assert_eq!(snake_case("beforeShellExecution"), "before_shell_execution");
        assert_eq!(snake_case("PreCompress"), "pre_compress");
    }
}
