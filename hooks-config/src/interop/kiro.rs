//! Kiro's CLI ([`Kiro`]): the standalone hooks files of its v3 (`.kiro/hooks/<name>.json`,
//! `{"version": "v1", "hooks": [{name, trigger, matcher, action: {type: "command", command},
//! timeout, enabled}]}`), which apply to every agent of the workspace, as its hooks
//! documentation gives them (kiro.dev/docs/cli/v3/hooks). `hooks init kiro` writes
//! `.kiro/hooks/hooks-guard.json`.
//!
//! Its stdin is Claude Code's fields (`hook_event_name`, `cwd`, `tool_name`, `tool_input`,
//! `tool_response`), the event named by its v3 trigger (`PreToolUse`) or, from an agent file of
//! its 2.x, in camelCase (`preToolUse`); both are read.
//!
//! Exit 2 blocks `PreToolUse`, `UserPromptSubmit` and `PreTaskExec`, with stderr as the reason
//! the model reads; any other non-zero code is a warning (the call runs). Kiro documents no
//! question, no rewrite and no JSON answer, so:
//!
//! | our merged result | Kiro's answer |
//! |---|---|
//! | continue, nothing else | nothing, exit 0 |
//! | deny, ask_user or a modified input on an event that blocks | exit 2 with the reason (the question, or what would have run) |
//! | anything else | nothing it acts on: what the hooks said goes to stderr |
//!
//! Its tools get canonical names: `execute_bash` and `shell` are `Bash`, `fs_read` `Read`,
//! `fs_write` `Write`, `str_replace` `Edit` (their `path` also the `file_path`). An `fs_read`
//! of several files at once (`operations`) has no one path for the rules to read.

use hooks_core::events::{PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_START, TOOL_POST, TOOL_PRE};

use super::exit_two::{self, Blocking, ExitTwo, StdoutBlock};
use super::tools::{ToolName, named};
use super::{Agent, Capabilities, HookSettings, Layout, Profile, ProjectDir, Protocol};

/// Kiro's CLI.
#[derive(Debug, Clone, Copy)]
pub struct Kiro;

/// Kiro's hook protocol: its v3 triggers, and its 2.x events.
pub const KIRO: Protocol = Protocol {
    agent: "kiro",
    events: &[
        ("PreToolUse", Some(TOOL_PRE)),
        ("PostToolUse", Some(TOOL_POST)),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("SessionStart", Some(SESSION_START)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("PreTaskExec", None),
        ("preToolUse", Some(TOOL_PRE)),
        ("postToolUse", Some(TOOL_POST)),
        ("userPromptSubmit", Some(PROMPT_SUBMIT)),
        ("agentSpawn", Some(SESSION_START)),
        ("stop", Some(PROMPT_COMPLETE)),
    ],
    fields: &[("tool_response", "tool_result")],
};

/// Kiro's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    named("execute_bash", "Bash"),
    named("shell", "Bash"),
    ToolName {
        theirs: "fs_read",
        canonical: "Read",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "fs_write",
        canonical: "Write",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "str_replace",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
];

/// What Kiro takes from a hook: a block, and nothing else.
static CAPABILITIES: Capabilities = exit_two::capabilities(Some("UserPromptSubmit"));

/// Exit 2 blocks these events (a v3 trigger, or the 2.x `preToolUse`); Kiro reads no JSON
/// answer, and any other non-zero code is a warning (the call runs).
static DIALECT: ExitTwo = ExitTwo {
    blocks: Blocking::Events(&[
        "PreToolUse",
        "UserPromptSubmit",
        "PreTaskExec",
        "preToolUse",
    ]),
    stdout: StdoutBlock::Unread,
};

/// Kiro's hooks file.
static SETTINGS: HookSettings = HookSettings {
    project: ".kiro/hooks/hooks-guard.json",
    user: ".kiro/hooks/hooks-guard.json",
    project_dir: ProjectDir::GitRoot,
    layout: Layout::Triggers,
    init_events: &["PreToolUse", "UserPromptSubmit"],
};

/// What Kiro is, as data.
static PROFILE: Profile = Profile::new(&KIRO, "Kiro", &DIALECT, &CAPABILITIES, &SETTINGS)
    // Every hook file, and its agents, which can hold hooks.
    .also_guards(&[".kiro/hooks/**", ".kiro/agents/*.json"])
    .tools(TOOLS)
    .binaries(&["kiro-cli"]);

impl Agent for Kiro {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::{AgentAnswer, Verdict};

    #[test]
    fn kiros_validator_refuses_json_and_a_warning() {
        let deny = AgentAnswer::json(&serde_json::json!({"decision": "deny", "reason": "no"}));
        assert!(Kiro.accepts("PreToolUse", &deny).is_err());
        let warning = AgentAnswer {
            exit_code: 1,
            ..AgentAnswer::block("no")
        };
        assert!(Kiro.accepts("PreToolUse", &warning).is_err());
        assert_eq!(
            Kiro.accepts("PreToolUse", &AgentAnswer::block("no")),
            Ok(Verdict::Block("no".to_owned()))
        );
    }
}
