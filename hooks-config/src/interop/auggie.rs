//! Augment's Auggie CLI ([`Auggie`]): command hooks in `.augment/settings.json` (project;
//! `~/.augment/settings.json` for the user), in Claude Code's matcher-group shape, as its hooks
//! documentation gives them (docs.augmentcode.com/cli/hooks; the stdin fields are second-hand:
//! Claude Code's `hook_event_name`, `tool_name`, `tool_input`, and `hookEventName` is read too).
//!
//! Only `PreToolUse` blocks, by exit 2 with the reason on stderr; `Stop` takes
//! `{"decision": "block", "reason"}`. Auggie documents no JSON decision on a tool call, no
//! question, no rewrite and no context, so:
//!
//! | our merged result | Auggie's answer |
//! |---|---|
//! | continue, nothing else | nothing, exit 0 |
//! | deny, ask_user or a modified input on `PreToolUse` | exit 2 with the reason (the question, or what would have run); a message for the user has no channel there and is left out |
//! | deny on `Stop` | `{"decision": "block", "reason"}` |
//! | anything else | nothing it acts on: what the hooks said goes to stderr |
//!
//! Its tools get canonical names: `launch-process` is `Bash`, `save-file` is `Write`,
//! `str-replace-editor` is `Edit`, `view` is `Read` (their `path` also the `file_path`).
//! Command-hook timeouts are in milliseconds.

use hooks_core::EmitResult;
use hooks_core::events::{PROMPT_COMPLETE, SESSION_END, SESSION_START, TOOL_POST, TOOL_PRE};
use serde_json::{Value, json};

use super::exit_two;
use super::hook_output::{non_empty, printed};
use super::tools::{self, ToolName};
use super::{
    Agent, AgentAnswer, Capabilities, HookSettings, InputError, Layout, MappedEvent, Profile,
    ProjectDir, Protocol, RewriteSupport, Rewrites, TimeUnit, Verdict,
};

/// Augment's Auggie CLI.
#[derive(Debug, Clone, Copy)]
pub struct Auggie;

/// Auggie's hook protocol.
pub const AUGGIE: Protocol = Protocol {
    agent: "auggie",
    events: &[
        ("PreToolUse", Some(TOOL_PRE)),
        ("PostToolUse", Some(TOOL_POST)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
    ],
    fields: &[("tool_response", "tool_result")],
};

/// Auggie's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    ToolName {
        theirs: "launch-process",
        canonical: "Bash",
        fields: &[],
    },
    ToolName {
        theirs: "save-file",
        canonical: "Write",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "str-replace-editor",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "view",
        canonical: "Read",
        fields: &[("path", "file_path")],
    },
];

/// What Auggie takes from a hook: a block, and nothing else.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &[],
    rewrite: RewriteSupport::None,
    context_on: &[],
    blocks_prompt: None,
};

/// Auggie's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: ".augment/settings.json",
    user: ".augment/settings.json",
    project_dir: ProjectDir::GitRoot,
    layout: Layout::MatcherGroups,
    init_events: &["PreToolUse", "PostToolUse"],
};

/// What Augment Auggie is, as data.
static PROFILE: Profile = Profile::new(&AUGGIE, "Augment Auggie", &CAPABILITIES, &SETTINGS)
    // Its local settings.
    .also_guards(&[".augment/settings.local.json"])
    .tools(TOOLS)
    // Auggie reads a command's `timeout` in milliseconds.
    .timeout_unit(TimeUnit::Milliseconds);

impl Agent for Auggie {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Claude Code's stdin fields (or `hookEventName`), its tools made canonical.
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        tools::event_in(
            &AUGGIE,
            &[("hookEventName", "hook_event_name")],
            TOOLS,
            input,
        )
    }

    /// Our merged result for Auggie's event `agent_event` (see the [module docs](self)).
    fn answer(
        &self,
        agent_event: &str,
        input: &Value,
        outcome: &EmitResult,
        _rewrites: &Rewrites,
    ) -> AgentAnswer {
        if agent_event == "Stop"
            && let Some(reason) = exit_two::refusal("Augment Auggie", input, outcome)
        {
            return AgentAnswer {
                stderr: exit_two::notes(outcome).join("\n"),
                ..AgentAnswer::json(&json!({"decision": "block", "reason": reason}))
            };
        }
        let blocks = agent_event == "PreToolUse";
        exit_two::answer("Augment Auggie", agent_event, blocks, input, outcome)
    }

    /// Exit 2 with the reason; on `Stop`, its JSON block.
    fn fail_closed(&self, agent_event: Option<&str>, reason: String) -> AgentAnswer {
        match agent_event {
            Some("Stop") => AgentAnswer::json(&json!({"decision": "block", "reason": reason})),
            _ => AgentAnswer::block(reason),
        }
    }

    /// Auggie's reading of an answer: exit 2 with a reason blocks a `PreToolUse`; exit 0 with
    /// nothing goes on; on `Stop`, `{"decision": "block", "reason"}` blocks. Refused: any other
    /// exit code, exit 2 without a reason, JSON on any event but `Stop`, and any other field.
    /// Elsewhere exit 2 is taken as no decision.
    fn accepts(&self, agent_event: &str, answer: &AgentAnswer) -> Result<Verdict, String> {
        let fields = printed(answer)?;
        match (answer.exit_code, agent_event, fields) {
            (2, _, Some(_)) => Err("exit 2 with JSON on stdout".to_owned()),
            (2, "PreToolUse", None) => non_empty(Some(&Value::from(answer.stderr.as_str())))
                .map(Verdict::Block)
                .ok_or_else(|| "exit 2 without a reason on stderr".to_owned()),
            (2, _, None) if answer.stderr.trim().is_empty() => {
                Err("exit 2 without a reason on stderr".to_owned())
            }
            (2, _, None) => Ok(Verdict::Proceed),
            (0, _, None) => Ok(Verdict::Proceed),
            (0, "Stop", Some(fields)) => {
                if let Some(key) = fields
                    .keys()
                    .find(|key| *key != "decision" && *key != "reason")
                {
                    return Err(format!("`{key}` is not taken on Stop"));
                }
                match (
                    fields.get("decision").and_then(Value::as_str),
                    non_empty(fields.get("reason")),
                ) {
                    (Some("block"), Some(reason)) => Ok(Verdict::Block(reason)),
                    other => Err(format!("Stop answer {other:?}")),
                }
            }
            (0, event, Some(_)) => Err(format!("Augment Auggie takes no JSON on {event}")),
            (code, _, _) => Err(format!(
                "exit code {code}: Augment Auggie counts it a failed hook"
            )),
        }
    }
}
