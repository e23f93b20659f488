//! An agent's hook protocol as data ([`Protocol`]): its event names, the canonical event each
//! is, and the data fields it names otherwise, read both ways. Each agent's table is in its own
//! file of [`interop`](crate::interop); the command runner uses Claude Code's
//! ([`CLAUDE`](crate::interop::claude::CLAUDE)) to give Claude Code's scripts the stdin they
//! expect.

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

/// The field of an event's data that names the agent it came from (`claude`, `codex`, ...):
/// the principal of a Cedar policy, `input.agent` of a Rego one.
pub const AGENT_FIELD: &str = "agent";

impl MappedEvent {
    /// Names the agent whose hook input this is, in [`AGENT_FIELD`]: the adapter that read
    /// the input knows which agent it serves, whatever the input says (an `agent` field the
    /// input had is replaced).
    pub fn name_agent(&mut self, agent: &str) {
        if let Value::Object(data) = &mut self.data {
            data.insert(AGENT_FIELD.to_owned(), Value::from(agent));
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
    /// A tool call whose input the rules cannot read (a write tool naming no file).
    #[error("the call of `{tool}` cannot be checked: {why}")]
    Unchecked {
        /// The tool, as the agent named it.
        tool: String,
        /// What is missing.
        why: String,
    },
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
        let mut data = input_object(input)?;
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

/// An agent's hook input as the JSON object every agent writes; an error saying what it is
/// otherwise.
pub(crate) fn input_object(input: &str) -> Result<Map<String, Value>, InputError> {
    match serde_json::from_str::<Value>(input) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(other) => Err(InputError::NotAnObject(format!("it is `{other}`"))),
        Err(error) => Err(InputError::NotAnObject(error.to_string())),
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
