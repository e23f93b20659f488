//! Goose ([`Goose`]): command hooks of an Open Plugins plugin, in
//! `.agents/plugins/<plugin>/hooks/hooks.json` (project; the same under the home directory for
//! the user), in Claude Code's matcher-group shape, as Goose's hooks guide gives them
//! (block/goose, `documentation/docs/guides/context-engineering/hooks.md`). `hooks init goose`
//! writes the plugin `hooks-guard`.
//!
//! Its stdin names the event `event` (read as `hook_event_name`) beside Claude Code's
//! `session_id`, `tool_name`, `tool_input`, `tool_call_id`, and `working_dir` (also the `cwd`).
//!
//! Only `PreToolUse` and `Stop` block: exit 2 with stderr, or `{"decision": "block", "reason"}`
//! on stdout; anything else is no decision, and Goose runs the call, unless the entry says
//! `on_failure: block`, which `hooks init goose` writes. Goose documents no question, no
//! rewrite and no context, so:
//!
//! | our merged result | Goose's answer |
//! |---|---|
//! | continue, nothing else | nothing, exit 0 |
//! | deny, ask_user or a modified input on `PreToolUse` or `Stop` | exit 2 with the reason (the question, or what would have run) |
//! | anything else | nothing it acts on: what the hooks said goes to stderr |
//!
//! Its tools get canonical names: `developer__shell` is `Bash`, `developer__write` `Write`,
//! `developer__edit` and `developer__text_editor` `Edit` (their `path` also the `file_path`;
//! the text editor's `view` is read as an edit too, the stricter reading). A matcher of a bare
//! `*` is invalid in Goose (the rule is skipped), so `hooks init` writes none.

use hooks_core::events::{
    PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_END, SESSION_START, TOOL_POST, TOOL_PRE,
};

use super::exit_two::{self, Blocking, ExitTwo, StdoutBlock};
use super::tools::{ToolName, named};
use super::{
    Agent, Capabilities, FailClosedKey, HookSettings, KeyValue, Layout, OnFailure, Profile,
    ProjectDir, Protocol,
};

/// Goose.
#[derive(Debug, Clone, Copy)]
pub struct Goose;

/// Goose's hook protocol.
pub const GOOSE: Protocol = Protocol {
    agent: "goose",
    events: &[
        ("PreToolUse", Some(TOOL_PRE)),
        ("PostToolUse", Some(TOOL_POST)),
        ("PreToolUseResult", None),
        ("BeforeShellExecution", None),
        ("UserPromptSubmit", Some(PROMPT_SUBMIT)),
        ("Stop", Some(PROMPT_COMPLETE)),
        ("SessionStart", Some(SESSION_START)),
        ("SessionEnd", Some(SESSION_END)),
    ],
    fields: &[("working_dir", "cwd"), ("tool_response", "tool_result")],
};

/// Goose's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    named("developer__shell", "Bash"),
    ToolName {
        theirs: "developer__write",
        canonical: "Write",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "developer__edit",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "developer__text_editor",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
];

/// What Goose takes from a hook: a block, and nothing else.
static CAPABILITIES: Capabilities = exit_two::capabilities(None);

/// `PreToolUse` and `Stop` block, by exit 2 or by stdout's JSON block, whatever the exit code.
static DIALECT: ExitTwo = ExitTwo {
    blocks: Blocking::Events(&["PreToolUse", "Stop"]),
    stdout: StdoutBlock::Read,
};

/// Goose's plugin hooks file.
static SETTINGS: HookSettings = HookSettings {
    project: ".agents/plugins/hooks-guard/hooks/hooks.json",
    user: ".agents/plugins/hooks-guard/hooks/hooks.json",
    project_dir: ProjectDir::GitRoot,
    layout: Layout::MatcherGroups,
    init_events: &["PreToolUse", "PostToolUse"],
};

/// What Goose is, as data.
static PROFILE: Profile = Profile::new(&GOOSE, "Goose", &DIALECT, &CAPABILITIES, &SETTINGS)
    // Every Open Plugin, and its configuration.
    .also_guards(&[".agents/plugins/**", ".config/goose/config.yaml"])
    .tools(TOOLS)
    // Its stdin names the event `event`.
    .aliases(&[("event", "hook_event_name")])
    .binaries(&["goose"])
    // `"on_failure": "block"` makes a hook that fails or says nothing readable block.
    .on_failure(OnFailure::Settable(FailClosedKey {
        key: "on_failure",
        value: KeyValue::Str("block"),
        since: None,
    }));

impl Agent for Goose {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::{AgentAnswer, Verdict};

    #[test]
    fn gooses_validator_refuses_a_deny_it_does_not_know() {
        let deny = AgentAnswer::json(&serde_json::json!({"decision": "deny", "reason": "no"}));
        assert!(Goose.accepts("PreToolUse", &deny).is_err());
        let block = AgentAnswer::json(&serde_json::json!({"decision": "block", "reason": "no"}));
        assert_eq!(
            Goose.accepts("PreToolUse", &block),
            Ok(Verdict::Block("no".to_owned()))
        );
    }
}
