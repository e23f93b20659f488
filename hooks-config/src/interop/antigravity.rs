//! Antigravity CLI, `agy` ([`Antigravity`]): Gemini CLI's successor, a closed program whose
//! hooks are known second-hand only (its users' write-ups and guards that target it). Its
//! `hooks.json` (`.agents/hooks.json` in the project, `~/.gemini/config/hooks.json` for the
//! user) is keyed by hook name, each name holding Claude Code's matcher groups per event:
//! `hooks init antigravity` writes the hook `hooks-guard`.
//!
//! Its stdin names no event: a tool call is `{"toolCall": {"name", "args"}, "conversationId",
//! "workspacePaths"}`, read as `PreToolUse` (an event name, where one is sent, is read first);
//! `args` is the tool input, `conversationId` the session, the first workspace path the `cwd`.
//!
//! It answers by `{"decision": "allow" | "deny" | "ask" | "force_ask", "reason"}` and is
//! reported to block a call whose hook says nothing readable: it fails closed. `allow` did not
//! skip its own review prompt in 1.1.2, but might in a later version, so it is never the answer
//! to a tool call; `ask` leaves the call to its own permission flow, and `force_ask` asks even
//! where the user once chose "always allow".
//!
//! | our merged result | Antigravity's answer |
//! |---|---|
//! | continue, nothing else, on `PreToolUse` | `{"decision": "ask"}`: its own permission flow decides (silence would block) |
//! | continue, elsewhere | `{"decision": "allow"}` |
//! | deny | `{"decision": "deny", "reason"}` |
//! | ask_user on `PreToolUse` | `{"decision": "force_ask", "reason"}` with the question |
//! | ask_user elsewhere, or a modified input | a deny saying what would have been asked or run |
//!
//! Tools get canonical names: `run_command` is `Bash` (its `CommandLine` also the `command`),
//! `view_file` `Read` (its `AbsolutePath` the `file_path`), `write_to_file` `Write`,
//! `replace_file_content` and `multi_replace_file_content` `Edit` (their `TargetFile` the
//! `file_path`); the file tools' names and fields are those of the Antigravity editor, not
//! confirmed for the CLI.

use crate::agent_protocol::input_object;
use hooks_core::HookAction;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use hooks_core::events::{PROMPT_COMPLETE, TOOL_POST, TOOL_PRE};
use serde_json::{Map, Value, json};

#[cfg(any(test, feature = "validate"))]
use super::Reading;
use super::exit_two::{self, DecisionAnswer};
use super::reasons::question_of;
use super::tools::{self, ToolName};
use super::{
    Agent, AgentAnswer, Answering, Capabilities, Dialect, HookSettings, InputError, Layout,
    MappedEvent, OnFailure, Profile, ProjectDir, Protocol, RewriteSupport,
};
#[cfg(any(test, feature = "validate"))]
use super::{Verdict, hook_output::printed};

/// Antigravity CLI.
#[derive(Debug, Clone, Copy)]
pub struct Antigravity;

/// Antigravity's hook protocol.
pub const ANTIGRAVITY: Protocol = Protocol {
    agent: "antigravity",
    events: &[
        ("PreToolUse", Some(TOOL_PRE)),
        ("PostToolUse", Some(TOOL_POST)),
        ("PreInvocation", None),
        ("PostInvocation", None),
        ("Stop", Some(PROMPT_COMPLETE)),
    ],
    fields: &[("conversationId", "session_id")],
};

/// Antigravity's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    ToolName {
        theirs: "run_command",
        canonical: "Bash",
        fields: &[("CommandLine", "command"), ("Cwd", "cwd")],
    },
    ToolName {
        theirs: "view_file",
        canonical: "Read",
        fields: &[("AbsolutePath", "file_path")],
    },
    ToolName {
        theirs: "write_to_file",
        canonical: "Write",
        fields: &[("TargetFile", "file_path")],
    },
    ToolName {
        theirs: "replace_file_content",
        canonical: "Edit",
        fields: &[("TargetFile", "file_path")],
    },
    ToolName {
        theirs: "multi_replace_file_content",
        canonical: "Edit",
        fields: &[("TargetFile", "file_path")],
    },
];

/// What Antigravity takes from a hook.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &["PreToolUse"],
    rewrite: RewriteSupport::None,
    context_on: &[],
    blocks_prompt: None,
};

/// Antigravity's hooks file.
static SETTINGS: HookSettings = HookSettings {
    project: ".agents/hooks.json",
    user: ".gemini/config/hooks.json",
    project_dir: ProjectDir::GitRoot,
    layout: Layout::NamedMatcherGroups("hooks-guard"),
    init_events: &["PreToolUse"],
};

/// What Antigravity CLI is, as data.
static PROFILE: Profile = Profile::new(
    &ANTIGRAVITY,
    "Antigravity CLI",
    &AntigravityDialect,
    &CAPABILITIES,
    &SETTINGS,
)
// The CLI's own folder under Gemini's.
.also_guards(&[".gemini/antigravity-cli/**"])
.tools(TOOLS)
.binaries(&["agy"])
// It blocks a call whose hook fails, by itself (reported, not documented).
.on_failure(OnFailure::Closed);

/// Antigravity CLI's answers: a `decision` on every event, never silence.
#[derive(Debug)]
pub(crate) struct AntigravityDialect;

impl Agent for Antigravity {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Its tool call as `PreToolUse` (see the [module docs](self)).
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let mut fields = input_object(input)?;
        if let Some(event) = fields.get("hookEventName").cloned() {
            fields.entry("hook_event_name").or_insert(event);
        }
        let call = match fields.get("toolCall") {
            Some(Value::Object(call)) => call.clone(),
            _ => Map::new(),
        };
        if !call.is_empty() {
            fields
                .entry("hook_event_name")
                .or_insert(Value::from("PreToolUse"));
            if let Some(name) = call.get("name").cloned() {
                fields.entry(TOOL_NAME).or_insert(name);
            }
            let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
            fields.entry(TOOL_INPUT).or_insert(args);
        }
        if let Some(Value::String(root)) = fields
            .get("workspacePaths")
            .and_then(|paths| paths.get(0))
            .cloned()
        {
            fields.entry("cwd").or_insert(Value::from(root));
        }
        tools::event_in(&ANTIGRAVITY, &[], TOOLS, &Value::Object(fields).to_string())
    }
}

impl Dialect for AntigravityDialect {
    /// Our merged result for Antigravity's event `agent_event` (see the [module docs](self)).
    fn answer(&self, answering: &Answering<'_>) -> AgentAnswer {
        let Answering {
            agent_event,
            input,
            outcome,
            ..
        } = *answering;
        let pre_tool = agent_event == "PreToolUse";
        if pre_tool && outcome.result.action == HookAction::AskUser && !outcome.is_modified() {
            return DecisionAnswer::answer("force_ask", Some(question_of(outcome)));
        }
        let notes = exit_two::notes(outcome).join("\n");
        let answer = match exit_two::refusal("Antigravity CLI", input, outcome) {
            Some(reason) => DecisionAnswer::answer("deny", Some(reason)),
            None if pre_tool => DecisionAnswer::answer("ask", None),
            None => DecisionAnswer::answer("allow", None),
        };
        AgentAnswer {
            stderr: notes,
            ..answer
        }
    }

    /// A deny: the same as Antigravity's own reading of a failure, with the reason.
    fn fail_closed(&self, _agent_event: Option<&str>, reason: String) -> AgentAnswer {
        DecisionAnswer::answer("deny", Some(reason))
    }

    /// Antigravity's reading of an answer, as reported: a `decision` on exit 0. Anything
    /// unreadable (no JSON, no decision, another exit code) blocks the call there, but with no
    /// reason for the model, so it is refused here like the others: a guard answers with a
    /// decision. Refused too: `allow` on `PreToolUse` (a later version may let it skip the
    /// user's review), a deny without a reason, and any key but `decision` and `reason`.
    #[cfg(any(test, feature = "validate"))]
    fn accepts(&self, reading: &Reading<'_>) -> Result<Verdict, String> {
        let (agent_event, answer) = (reading.agent_event, reading.answer);
        let unreadable = |why: &str| {
            Err(format!(
                "{why}: Antigravity CLI blocks the call without a reason: {answer:?}"
            ))
        };
        if answer.exit_code != 0 {
            return unreadable("a non-zero exit");
        }
        let Ok(Some(fields)) = printed(answer) else {
            return unreadable("no JSON decision");
        };
        let answer = DecisionAnswer::read(fields)?;
        match (answer.decision.as_str(), answer.reason()) {
            ("deny", Some(reason)) => Ok(Verdict::Block(reason)),
            ("deny", None) => Err("a deny without a reason".to_owned()),
            ("ask" | "force_ask", Some(question)) => Ok(Verdict::Ask(question)),
            // Its own permission flow decides.
            ("ask", None) => Ok(Verdict::Proceed),
            ("allow", _) if agent_event == "PreToolUse" => {
                Err("`allow` on a tool call may skip the user's review".to_owned())
            }
            ("allow", _) => Ok(Verdict::Proceed),
            _ => unreadable("no known decision"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn antigravitys_validator_refuses_an_allow_and_silence() {
        let allow = DecisionAnswer::answer("allow", None);
        assert!(Antigravity.accepts("PreToolUse", &allow).is_err());
        assert!(
            Antigravity
                .accepts("PreToolUse", &AgentAnswer::silent())
                .is_err()
        );
        assert_eq!(
            Antigravity.accepts("PreToolUse", &DecisionAnswer::answer("ask", None)),
            Ok(Verdict::Proceed)
        );
    }
}
