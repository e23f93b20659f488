//! Crush ([`Crush`]): command hooks in `crush.json` (project; `~/.config/crush/crush.json` for
//! the user), flat entries `{name, matcher, command, timeout}` under each event, as its hooks
//! guide gives them (charmbracelet/crush, `docs/hooks/README.md`). Its stdin names the event
//! `event` (read as `hook_event_name`); commands name the project `"$CRUSH_PROJECT_DIR"`.
//!
//! Only `PreToolUse` and `PreCompact` fire. Exit 2 denies with stderr as the reason; exit 0
//! with JSON answers `{decision, reason, context, updated_input}`, where `decision: "allow"`
//! skips Crush's permission prompt (so it is never sent) and `updated_input` is merged
//! key by key over the tool input.
//!
//! | our merged result | Crush's answer |
//! |---|---|
//! | continue, nothing else | nothing, exit 0 |
//! | deny | exit 2 with the reason |
//! | ask_user | exit 2 with the question: Crush takes no question from a hook |
//! | modified tool input, every rewriter `rewrite: apply` | `{"updated_input"}` with every key of the new input, and no decision: Crush's own permission flow still runs |
//! | modified tool input, otherwise, or one that drops a key | exit 2 saying what would have run (a merge cannot drop a key) |
//! | context on `PreToolUse` | `{"context"}` |
//!
//! Tools get canonical names: `bash` is `Bash`, `view` `Read`, `write` and `download` `Write`,
//! `edit` and `multiedit` `Edit` (their `file_path` as it is). Sub-agents' tool calls are not
//! hooked by Crush, by design.

use hooks_core::HookAction;
use hooks_core::events::fields::TOOL_INPUT;
use hooks_core::events::{CONTEXT_PRE_COMPACT, TOOL_PRE};
use serde_json::{Map, Value};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::reasons::{
    context_of, inapplicable, messages_of, question_of, reason_of, unconfirmed_rewrite,
};
use super::tools::{ToolName, named};
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, Layout, Profile,
    ProjectDir, Protocol, RewriteSupport,
};
#[cfg(any(test, feature = "validate"))]
use super::{Verdict, hook_output::non_empty, hook_output::printed};

/// Crush.
#[derive(Debug, Clone, Copy)]
pub struct Crush;

/// Crush's hook protocol.
pub const CRUSH: Protocol = Protocol {
    agent: "crush",
    events: &[
        ("PreToolUse", Some(TOOL_PRE)),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
    ],
    fields: &[],
};

/// Crush's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    named("bash", "Bash"),
    named("view", "Read"),
    named("write", "Write"),
    named("download", "Write"),
    named("edit", "Edit"),
    named("multiedit", "Edit"),
];

/// What Crush takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &[],
    rewrite: RewriteSupport::AppliedOnly,
    context_on: &["PreToolUse"],
    blocks_prompt: None,
};

/// Crush's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: "crush.json",
    user: ".config/crush/crush.json",
    project_dir: ProjectDir::Var("CRUSH_PROJECT_DIR"),
    layout: Layout::BareCommands,
    init_events: &["PreToolUse"],
};

/// The keys of Crush's JSON answer.
#[cfg(any(test, feature = "validate"))]
const ANSWER_KEYS: &[&str] = &[
    "version",
    "decision",
    "halt",
    "reason",
    "context",
    "updated_input",
];

/// What Crush is, as data.
static PROFILE: Profile = Profile::new(&CRUSH, "Crush", &CrushDialect, &CAPABILITIES, &SETTINGS)
    // Its hidden settings file in a project.
    .also_guards(&[".crush.json"])
    .tools(TOOLS)
    // Its stdin names the event `event`.
    .aliases(&[("event", "hook_event_name")])
    .binaries(&["crush"]);

/// Crush's answers: exit 2 and a JSON object of its own keys.
#[derive(Debug)]
pub(crate) struct CrushDialect;

impl Agent for Crush {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }
}

impl Dialect for CrushDialect {
    /// Our merged result for Crush's event `agent_event` (see the [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            agent_event,
            input,
            outcome,
            rewrites,
            ..
        } = *answering;
        let result = &outcome.result;
        let mut answer = Map::new();
        match result.action {
            HookAction::Deny => return AgentAnswer::block(reason_of(outcome)),
            HookAction::AskUser => {
                return AgentAnswer::block(format!(
                    "a hook asks for approval, which Crush cannot ask for from a hook: {}",
                    question_of(outcome)
                ));
            }
            _ => {}
        }
        if outcome.is_modified() {
            let new_input = result.data.as_ref().map(|data| &data[TOOL_INPUT]);
            let old_input = &input[TOOL_INPUT];
            match (agent_event, new_input) {
                (_, Some(new_input)) if new_input == old_input => {}
                ("PreToolUse", Some(new_input @ Value::Object(new))) => {
                    let drops_a_key = old_input
                        .as_object()
                        .is_some_and(|old| old.keys().any(|key| !new.contains_key(key)));
                    if drops_a_key || !rewrites.all_applied(outcome) {
                        return AgentAnswer::block(unconfirmed_rewrite(
                            "Crush", new_input, outcome,
                        ));
                    }
                    answer.insert("updated_input".to_owned(), new_input.clone());
                }
                _ => return AgentAnswer::block(inapplicable("Crush", agent_event, outcome)),
            }
        }
        let mut notes: Vec<String> = messages_of(outcome).into_iter().collect();
        if let Some(context) = context_of(outcome) {
            if CAPABILITIES.context_on.contains(&agent_event) {
                answer.insert("context".to_owned(), Value::from(context));
            } else {
                notes.push(format!(
                    "hook context (Crush takes none on {agent_event}): {context}"
                ));
            }
        }
        AgentAnswer {
            stderr: notes.join("\n"),
            ..AgentAnswer::json(&Value::Object(answer))
        }
    }

    /// Crush's reading of an answer, by its hooks guide: exit 2 denies with stderr as the
    /// reason, exit 49 halts the turn; exit 0 with nothing is no opinion; exit 0 with JSON is
    /// read by its keys. Refused, as a guard must not say them: any other exit code (logged and
    /// ignored: the call runs), `decision: "allow"` (it skips the user's permission prompt), a
    /// deny without a reason, and any key Crush does not know.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        let reason = || non_empty(Some(&Value::from(answer.stderr.as_str())));
        match answer.exit_code {
            2 | 49 => reason()
                .map(Verdict::Block)
                .ok_or_else(|| format!("exit {} without a reason on stderr", answer.exit_code)),
            0 => match printed(answer)? {
                None => Ok(Verdict::Proceed),
                Some(fields) => read_json(agent_event, &fields),
            },
            code => Err(format!(
                "exit code {code}: Crush logs and ignores it, and runs the call"
            )),
        }
    }
}

/// Crush's JSON answer, read.
#[cfg(any(test, feature = "validate"))]
fn read_json(agent_event: &str, fields: &Map<String, Value>) -> Result<Verdict, String> {
    if let Some(key) = fields
        .keys()
        .find(|key| !ANSWER_KEYS.contains(&key.as_str()))
    {
        return Err(format!("`{key}` is not a key of Crush's answer"));
    }
    let reason = non_empty(fields.get("reason"));
    match (fields.get("decision"), fields.get("halt")) {
        (Some(Value::String(deny)), _) if deny == "deny" => {
            return reason
                .map(Verdict::Block)
                .ok_or_else(|| "`decision: deny` without a reason".to_owned());
        }
        (_, Some(Value::Bool(true))) => {
            return reason
                .map(Verdict::Block)
                .ok_or_else(|| "`halt` without a reason".to_owned());
        }
        (Some(Value::String(allow)), _) if allow == "allow" => {
            return Err("`decision: allow` skips Crush's permission prompt".to_owned());
        }
        (None | Some(Value::Null), _) => {}
        (Some(other), _) => return Err(format!("`decision: {other}`")),
    }
    match fields.get("updated_input") {
        Some(patch @ Value::Object(_)) if agent_event == "PreToolUse" => {
            Ok(Verdict::RunRewritten(patch.clone()))
        }
        Some(other) => Err(format!("`updated_input` on {agent_event}: {other}")),
        None => Ok(Verdict::Proceed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crushs_validator_refuses_an_allow_and_a_silent_failure() {
        let allow = AgentAnswer::json(&serde_json::json!({"decision": "allow"}));
        assert!(Crush.accepts("PreToolUse", &allow).is_err());
        let failed = AgentAnswer {
            exit_code: 1,
            ..AgentAnswer::block("oops")
        };
        assert!(Crush.accepts("PreToolUse", &failed).is_err());
        let deny = AgentAnswer::json(&serde_json::json!({"decision": "deny", "reason": "no"}));
        assert_eq!(
            Crush.accepts("PreToolUse", &deny),
            Ok(Verdict::Block("no".to_owned()))
        );
    }
}
