//! Qwen Code ([`QwenCode`]): Claude Code's hook protocol (event names, stdin fields, answers)
//! over Gemini CLI's tool ids, in `.qwen/settings.json` (project and home directory); commands
//! name the project `"$QWEN_PROJECT_DIR"`.
//!
//! Qwen Code's hooks documentation (QwenLM/qwen-code, `docs/users/features/hooks.md`) gives the
//! answers of Claude Code's shape, so [`QwenCode`] answers as [`ClaudeCode`](super::claude::ClaudeCode) does and reads
//! answers by Claude Code's rules. Where it differs:
//!
//! - **Asking**: `permissionDecision: "ask"` on `PreToolUse` reaches the user in an interactive
//!   session, and is a deny headless and in background subagents: a question, and a rewrite put
//!   to the user to confirm, never run unasked.
//! - **Tools**: `run_shell_command` is `Bash`, `read_file` is `Read` (its `absolute_path` also
//!   the `file_path`), `write_file` is `Write`, `edit` and `replace` are `Edit` (see
//!   [`tools`](super::tools)); Qwen Code's own names stay as `agent_tool_name`.
//! - **Timeouts** of command hooks are in milliseconds (60000 by default).

use hooks_core::events::{
    APPROVAL_REQUIRED, CONTEXT_PRE_COMPACT, PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END,
    SESSION_START, TOOL_ERROR, TOOL_POST, TOOL_PRE, USER_NOTIFICATION,
};

use super::claude::ClaudeDialect;
use super::tools::{GEMINI_TOOLS, ToolName};
use super::{
    Agent, Capabilities, HookSettings, Importer, Layout, Profile, ProjectDir, Protocol,
    RewriteSupport, TimeUnit,
};
use crate::settings::{import_hooks_timed, one_error};

/// Qwen Code.
#[derive(Debug, Clone, Copy)]
pub struct QwenCode;

/// Qwen Code's hook protocol: Claude Code's event names and fields.
pub const QWEN: Protocol = Protocol {
    agent: "qwen",
    events: &[
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("PreToolUse", Some(TOOL_PRE)),
        ("PermissionRequest", Some(APPROVAL_REQUIRED)),
        ("PostToolUse", Some(TOOL_POST)),
        ("PostToolUseFailure", Some(TOOL_ERROR)),
        ("Notification", Some(USER_NOTIFICATION)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("PreCompact", Some(CONTEXT_PRE_COMPACT)),
        ("SubagentStart", None),
        ("SubagentStop", None),
    ],
    fields: &[
        ("tool_response", "tool_result"),
        ("tool_use_id", "tool_call_id"),
    ],
};

/// Qwen Code's tools under their canonical names: Gemini CLI's tool ids.
const TOOLS: &[ToolName] = GEMINI_TOOLS;

/// The events whose `additionalContext` reaches Qwen Code's model.
const CONTEXT_ON: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "SubagentStart",
];

/// What Qwen Code takes from a hook: Claude Code's answers.
static CAPABILITIES: Capabilities = Capabilities {
    // Headless, and in background subagents, the question is a deny.
    asks_on: &["PreToolUse", "PermissionRequest"],
    rewrite: RewriteSupport::ConfirmedOrApplied,
    context_on: CONTEXT_ON,
    blocks_prompt: Some("UserPromptSubmit"),
};

/// It speaks Claude Code's protocol; its reasons name it.
static DIALECT: ClaudeDialect = ClaudeDialect {
    headless: "`qwen -p`",
    foreign_callers: false,
};

/// Qwen Code's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: ".qwen/settings.json",
    user: ".qwen/settings.json",
    project_dir: ProjectDir::Var("QWEN_PROJECT_DIR"),
    layout: Layout::MatcherGroups,
    init_events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

/// What Qwen Code is, as data.
static PROFILE: Profile = Profile::new(&QWEN, "Qwen Code", &DIALECT, &CAPABILITIES, &SETTINGS)
    .tools(TOOLS)
    // Qwen Code reads a command's `timeout` in milliseconds.
    .timeout_unit(TimeUnit::Milliseconds)
    // Run headless against the real CLI, offline, by this project's end-to-end tests
    // (`hooks-cli/tests/qwen_code_e2e.rs`, when `HOOKS_E2E_QWEN` names the binary).
    .tested_against_real_program();

impl Agent for QwenCode {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    fn importer(&self) -> Option<Importer> {
        Some(import_file)
    }
}

/// `hooks import qwen`: the `hooks` of a `.qwen/settings.json`, its timeouts in milliseconds.
fn import_file(path: &std::path::Path) -> Result<crate::settings::Imported, crate::ConfigErrors> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| one_error(path, 1, 1, format!("cannot read the file: {error}")))?;
    import_hooks_timed(&QWEN, TimeUnit::Milliseconds, &text, path)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_qwen_timeout_is_read_in_milliseconds() {
        let settings = r#"{"hooks": {"PreToolUse": [{"matcher": "run_shell_command",
            "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5000}]}]}}"#;
        let imported = import_hooks_timed(
            &QWEN,
            TimeUnit::Milliseconds,
            settings,
            std::path::Path::new("settings.json"),
        )
        .unwrap();
        assert_eq!(imported.entries[0].timeout, Duration::from_secs(5));
    }
}
