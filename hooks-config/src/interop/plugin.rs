//! The agents whose interception points are in-process JavaScript plugins (OpenCode, Amp):
//! the plugin file `hooks init` writes, and the JSON the plugin and `hooks <agent>` exchange.
//!
//! The plugin is a template of the agent's file ([`Layout::Plugin`](super::Layout::Plugin));
//! `hooks init` fills in one line, [`PluginCommand`], which names the `hooks` binary, the
//! agent, the hooks file and the project directory as seen from the plugin. On each event it
//! hooks, the plugin runs that binary (`hooks <agent> --config FILE`), writes the event as JSON
//! on its stdin, and reads one JSON answer from its stdout:
//!
//! | answer | the plugin |
//! |---|---|
//! | `{"decision": "proceed"}` | lets the call go on |
//! | `{"decision": "block", "reason"}` | stops it, with the reason (OpenCode: it throws; Amp: `reject-and-continue`) |
//! | `{"decision": "rewrite", "args"}` | runs the tool call with these arguments |
//! | `{"decision": "rewrite", "prompt"}` | sends this prompt instead |
//!
//! An optional `notes` is shown to the user. Anything else blocks: a missing binary, a crash, a
//! non-zero exit, a run past the timeout, an answer that is not one of these. The plugin never
//! lets a call through because `hooks` failed.

use hooks_core::events::fields::{PROMPT, TOOL_INPUT, TOOL_NAME};
use hooks_core::{EmitResult, HookAction};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::reasons::{context_of, messages_of, question_of, reason_of, unconfirmed_rewrite};
use super::tools::AGENT_TOOL_NAME;
use super::{AgentAnswer, Answering, Dialect, Profile, Rewrites};
#[cfg(any(test, feature = "validate"))]
use super::{Verdict, hook_output::non_empty, hook_output::printed};

/// The placeholder of a plugin template that `hooks init` replaces with the
/// [`PluginCommand`] as JSON.
pub const PLACEHOLDER: &str = "__HOOKS_COMMAND__";

/// The start of the line of a written plugin that holds its [`PluginCommand`].
const COMMAND_LINE: &str = "const COMMAND = ";

/// What a written plugin runs: the one line `hooks init` fills in, and `hooks doctor` reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginCommand {
    /// The `hooks` binary, an absolute path.
    pub binary: String,
    /// The agent: `hooks <agent>`.
    pub agent: String,
    /// The hooks file, relative to the project directory.
    pub config: String,
    /// The project directory, relative to the plugin's own directory (`../..`).
    pub root: String,
    /// How long a call of `hooks` may take before the plugin kills it and blocks.
    pub timeout_ms: u64,
}

impl PluginCommand {
    /// `template` with this command filled in.
    pub fn render(&self, template: &str) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        template.replace(PLACEHOLDER, &json)
    }

    /// The command a written plugin runs; `None` when `text` is not a plugin `hooks init`
    /// wrote.
    pub fn read(text: &str) -> Option<PluginCommand> {
        text.lines().find_map(|line| {
            let json = line.trim().strip_prefix(COMMAND_LINE)?;
            serde_json::from_str(json.trim_end_matches(';')).ok()
        })
    }
}

/// The plugin dialect, as one plugin agent speaks it: its events (the one that calls a tool
/// and the one that submits a prompt) and the field its plugin sends a tool's arguments under;
/// the rest (its name, its tools) is read from the agent's [`Profile`].
#[derive(Debug)]
pub(crate) struct PluginEvents {
    /// The event before a tool call.
    pub(crate) tool_call: &'static str,
    /// The event of a prompt, where the plugin API lets it be stopped.
    pub(crate) prompt: Option<&'static str>,
    /// The field of the plugin's JSON that holds the tool's arguments, as the agent has them.
    pub(crate) args: &'static str,
}

/// The answer the plugin reads; a field left `None` is left out.
#[derive(Debug, Default, Serialize)]
struct PluginAnswer {
    /// `proceed`, `block` or `rewrite`.
    decision: &'static str,
    /// Why it is blocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The tool's arguments to run instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Value>,
    /// The prompt to send instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<String>,
    /// What the user is shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    notes: Option<String>,
}

impl PluginAnswer {
    /// A block with `reason`.
    fn block(reason: String) -> Self {
        PluginAnswer {
            decision: "block",
            reason: Some(reason),
            ..PluginAnswer::default()
        }
    }
}

impl Dialect for PluginEvents {
    /// Our merged result for `agent_event`, whose data as emitted is `input`, in the plugin's
    /// answer (see the [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            profile,
            agent_event,
            input,
            outcome,
            rewrites,
        } = *answering;
        let result = &outcome.result;
        let stoppable = agent_event == self.tool_call || Some(agent_event) == self.prompt;
        let mut notes: Vec<String> = messages_of(outcome).into_iter().collect();
        notes.extend(context_of(outcome));
        let refusal = match result.action {
            HookAction::Deny => Some(reason_of(outcome)),
            HookAction::AskUser => Some(format!(
                "a hook asks for approval, which {} cannot put to you from a plugin: {}",
                profile.display_name,
                question_of(outcome)
            )),
            _ => None,
        };
        let mut answer = match refusal {
            Some(reason) if stoppable => PluginAnswer::block(reason),
            Some(reason) => {
                notes.insert(
                    0,
                    format!(
                        "{} cannot stop {agent_event}; a hook would have: {reason}",
                        profile.display_name
                    ),
                );
                PluginAnswer {
                    decision: "proceed",
                    ..PluginAnswer::default()
                }
            }
            None => self.rewrite(profile, agent_event, input, outcome, rewrites),
        };
        answer.notes = (!notes.is_empty()).then(|| notes.join("\n"));
        AgentAnswer::json(&answer)
    }

    /// A block in the plugin's JSON, exit code 2 and the reason on stderr as well: any of them
    /// alone makes the plugin block.
    fn fail_closed(&self, _agent_event: Option<&str>, reason: String) -> AgentAnswer {
        AgentAnswer {
            stderr: reason.clone(),
            exit_code: 2,
            ..AgentAnswer::json(&PluginAnswer::block(reason))
        }
    }

    /// The plugin's reading of an answer to `agent_event`: exit 0 with `proceed`, `block` and
    /// a reason, or a `rewrite` with `args` (on the tool event) or `prompt` (on the prompt
    /// event); exit 2 blocks with the reason of its JSON or its stderr. Refused: an answer the
    /// plugin would take as a failure of `hooks` (it blocks, but not for the reason the policy
    /// meant): any other exit code, no JSON object, no or an unknown `decision`, a block
    /// without a reason, a rewrite of the wrong kind, an unknown field.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        let fields = printed(answer)?;
        if answer.exit_code != 0 && answer.exit_code != 2 {
            return Err(format!(
                "exit {}: the plugin takes it for a crash of `hooks` (and blocks)",
                answer.exit_code
            ));
        }
        if answer.exit_code == 2 {
            let reason = fields
                .as_ref()
                .and_then(|fields| non_empty(fields.get("reason")))
                .or_else(|| non_empty(Some(&Value::from(answer.stderr.as_str()))));
            return reason
                .map(Verdict::Block)
                .ok_or_else(|| format!("exit {} without a reason", answer.exit_code));
        }
        let fields = fields.ok_or_else(|| "exit 0 with no answer: the plugin blocks".to_owned())?;
        let known = ["decision", "reason", "args", "prompt", "notes"];
        if let Some(key) = fields.keys().find(|key| !known.contains(&key.as_str())) {
            return Err(format!("`{key}` is not part of the plugin's answer"));
        }
        let extra = |allowed: &[&str]| {
            fields
                .keys()
                .find(|key| !allowed.contains(&key.as_str()))
                .map(|key| format!("`{key}` beside this decision"))
        };
        match fields.get("decision").and_then(Value::as_str) {
            Some("proceed") => extra(&["decision", "notes"]).map_or(Ok(Verdict::Proceed), Err),
            Some("block") => {
                if let Some(problem) = extra(&["decision", "reason", "notes"]) {
                    return Err(problem);
                }
                non_empty(fields.get("reason"))
                    .map(Verdict::Block)
                    .ok_or_else(|| "a block without a reason".to_owned())
            }
            Some("rewrite") if agent_event == self.tool_call => {
                if let Some(problem) = extra(&["decision", "args", "notes"]) {
                    return Err(problem);
                }
                match fields.get("args") {
                    Some(args @ Value::Object(_)) => Ok(Verdict::RunRewritten(args.clone())),
                    other => Err(format!("a rewrite with args {other:?}")),
                }
            }
            Some("rewrite") if Some(agent_event) == self.prompt => {
                if let Some(problem) = extra(&["decision", "prompt", "notes"]) {
                    return Err(problem);
                }
                match fields.get("prompt") {
                    Some(prompt @ Value::String(_)) => Ok(Verdict::RunRewritten(prompt.clone())),
                    other => Err(format!("a prompt rewrite with {other:?}")),
                }
            }
            other => Err(format!("decision {other:?} on {agent_event}")),
        }
    }
}

impl PluginEvents {
    /// The answer when nothing blocks: the rewrite, if the hooks made one the agent takes.
    fn rewrite(
        &self,
        profile: &Profile,
        agent_event: &str,
        input: &Value,
        outcome: &EmitResult,
        rewrites: &Rewrites,
    ) -> PluginAnswer {
        let proceed = PluginAnswer {
            decision: "proceed",
            ..PluginAnswer::default()
        };
        let Some(data) = outcome
            .result
            .data
            .as_ref()
            .filter(|_| outcome.is_modified())
        else {
            return proceed;
        };
        if agent_event == self.tool_call {
            let new_input = &data[TOOL_INPUT];
            if *new_input == input[TOOL_INPUT] {
                return proceed;
            }
            if !rewrites.all_applied(outcome) {
                return PluginAnswer::block(unconfirmed_rewrite(
                    profile.display_name,
                    new_input,
                    outcome,
                ));
            }
            return PluginAnswer {
                decision: "rewrite",
                args: Some(self.args_back(profile, input, new_input)),
                ..PluginAnswer::default()
            };
        }
        if Some(agent_event) == self.prompt {
            // The prompt is the user's own text: a redaction is sent as it is, with no one
            // to confirm it (nothing runs).
            return match data[PROMPT].as_str() {
                Some(prompt) if data[PROMPT] != input[PROMPT] => PluginAnswer {
                    decision: "rewrite",
                    prompt: Some(prompt.to_owned()),
                    ..PluginAnswer::default()
                },
                _ => proceed,
            };
        }
        proceed
    }

    /// The rewritten canonical input `new_input` as the agent's own arguments: the agent's
    /// fields, each taking the canonical field's new value where a hook changed that one, and
    /// no canonical field the agent's arguments did not have.
    fn args_back(&self, profile: &Profile, input: &Value, new_input: &Value) -> Value {
        let Value::Object(new) = new_input else {
            return new_input.clone();
        };
        let own = input.get(self.args).and_then(Value::as_object);
        let mut args: Map<String, Value> = new.clone();
        let tool = profile.tools.iter().find(|tool| {
            input[AGENT_TOOL_NAME] == tool.theirs && input[TOOL_NAME] == tool.canonical
        });
        for (theirs, ours) in tool.map(|tool| tool.fields).unwrap_or_default() {
            if let Some(value) = new.get(*ours)
                && Some(value) != input[TOOL_INPUT].get(*ours)
            {
                args.insert((*theirs).to_owned(), value.clone());
            }
            if !own.is_some_and(|own| own.contains_key(*ours)) {
                args.remove(*ours);
            }
        }
        Value::Object(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_of_a_written_plugin_is_read_back() {
        let command = PluginCommand {
            binary: "/opt/my tools/hooks".to_owned(),
            agent: "opencode".to_owned(),
            config: "hooks.yaml".to_owned(),
            root: "../..".to_owned(),
            timeout_ms: 90_000,
        };
        let template = "// a plugin\nconst COMMAND = __HOOKS_COMMAND__;\nexport default 1;\n";
        let written = command.render(template);
        assert!(!written.contains(PLACEHOLDER), "{written}");
        assert_eq!(PluginCommand::read(&written), Some(command));
        assert_eq!(PluginCommand::read(template), None);
        assert_eq!(PluginCommand::read("{\"hooks\": {}}"), None);
    }
}
