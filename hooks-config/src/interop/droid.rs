//! Factory Droid ([`FactoryDroid`]): Claude Code's hook protocol (event names, exit codes,
//! answers) with its own tool names, in `.factory/settings.json` (project and home directory);
//! commands name the project `"$FACTORY_PROJECT_DIR"`.
//!
//! Factory's hooks reference gives Claude Code's answers, so [`FactoryDroid`] answers as
//! [`ClaudeCode`] does and reads answers by Claude Code's rules. Where it differs:
//!
//! - **Tools**: `Execute` is `Bash`, `Create` is `Write`; `Read` and `Edit` keep their names
//!   (see [`tools`]).
//! - **Input casing**: sources disagree on whether Droid sends `session_id` or `sessionId`
//!   (and `hook_event_name` or `hookEventName`); both are read, the snake_case name kept.
//! - **Settings file**: Droid reads `.factory/hooks.json` too, but `droid exec` (0.186) was
//!   reported to run only the hooks of `settings.json`; `hooks init droid` writes those, which
//!   both read (the safe reading).

use hooks_core::EmitResult;
use hooks_core::events::{
    CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END, SESSION_START, TOOL_POST,
    TOOL_PRE, USER_NOTIFICATION,
};
use serde_json::Value;

use super::claude::{ClaudeCode, ClaudeDialect};
use super::tools::{self, ToolName, named};
use super::{
    Agent, AgentAnswer, Capabilities, HookSettings, Importer, InputError, Layout, MappedEvent,
    ProjectDir, Protocol, RewriteSupport, Rewrites, Verdict,
};
use crate::settings::{import_hooks, one_error};

/// Factory Droid.
#[derive(Debug, Clone, Copy)]
pub struct FactoryDroid;

/// Factory Droid's hook protocol: Claude Code's event names and fields.
pub const DROID: Protocol = Protocol {
    agent: "droid",
    events: &[
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("PreToolUse", Some(TOOL_PRE)),
        ("PostToolUse", Some(TOOL_POST)),
        ("Notification", Some(USER_NOTIFICATION)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
        ("SubagentStop", None),
    ],
    fields: &[
        ("tool_response", "tool_result"),
        ("tool_use_id", "tool_call_id"),
    ],
};

/// Droid's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    named("Execute", "Bash"),
    named("Create", "Write"),
    named("Read", "Read"),
    named("Edit", "Edit"),
    named("ApplyPatch", "apply_patch"),
];

/// The camelCase names some Droid versions are reported to send, and the snake_case ones.
const CAMEL_FIELDS: &[(&str, &str)] = &[
    ("hookEventName", "hook_event_name"),
    ("sessionId", "session_id"),
    ("toolName", "tool_name"),
    ("toolInput", "tool_input"),
    ("toolResponse", "tool_response"),
    ("transcriptPath", "transcript_path"),
    ("permissionMode", "permission_mode"),
];

/// The events whose `additionalContext` reaches Droid's model.
const CONTEXT_ON: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
];

/// What Droid takes from a hook: Claude Code's answers.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &["PreToolUse"],
    rewrite: RewriteSupport::ConfirmedOrApplied,
    context_on: CONTEXT_ON,
    blocks_prompt: Some("UserPromptSubmit"),
};

/// Droid as a speaker of Claude Code's protocol.
const DIALECT: ClaudeDialect = ClaudeDialect {
    name: "Factory Droid",
    headless: "`droid exec`",
    context_on: CONTEXT_ON,
};

/// Droid's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: ".factory/settings.json",
    user: ".factory/settings.json",
    project_dir: ProjectDir::Var("FACTORY_PROJECT_DIR"),
    layout: Layout::MatcherGroups,
    init_events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

impl Agent for FactoryDroid {
    fn protocol(&self) -> &'static Protocol {
        &DROID
    }

    fn display_name(&self) -> &'static str {
        "Factory Droid"
    }

    fn capabilities(&self) -> &'static Capabilities {
        &CAPABILITIES
    }

    fn settings(&self) -> &'static HookSettings {
        &SETTINGS
    }

    fn tools(&self) -> &'static [ToolName] {
        TOOLS
    }

    /// Claude Code's stdin in either casing, its tools made canonical.
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        tools::event_in(&DROID, CAMEL_FIELDS, TOOLS, input)
    }

    /// Claude Code's answer, its reasons naming Factory Droid (see the [module docs](self)).
    fn answer(
        &self,
        agent_event: &str,
        input: &Value,
        outcome: &EmitResult,
        rewrites: &Rewrites,
    ) -> AgentAnswer {
        DIALECT.answer(agent_event, input, outcome, rewrites)
    }

    /// Read by Claude Code's rules, which Factory documents as Droid's.
    fn accepts(&self, agent_event: &str, answer: &AgentAnswer) -> Result<Verdict, String> {
        ClaudeCode.accepts(agent_event, answer)
    }

    fn importer(&self) -> Option<Importer> {
        Some(import_file)
    }
}

/// `hooks import droid`: the `hooks` of a `.factory/settings.json` or `hooks.json`.
fn import_file(path: &std::path::Path) -> Result<crate::settings::Imported, crate::ConfigErrors> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| one_error(path, 1, 1, format!("cannot read the file: {error}")))?;
    import_hooks(&DROID, &text, path)
}
