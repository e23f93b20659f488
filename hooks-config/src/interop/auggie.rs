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

use hooks_core::events::{PROMPT_COMPLETE, SESSION_END, SESSION_START, TOOL_POST, TOOL_PRE};

use super::exit_two::{self, Blocking, ExitTwo, StdoutBlock};
use super::tools::ToolName;
use super::{Agent, Capabilities, HookSettings, Layout, Profile, ProjectDir, Protocol, TimeUnit};

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
static CAPABILITIES: Capabilities = exit_two::capabilities(None);

/// Exit 2 blocks only `PreToolUse`; `Stop` takes its JSON block.
static DIALECT: ExitTwo = ExitTwo {
    blocks: Blocking::Events(&["PreToolUse"]),
    stdout: StdoutBlock::Answered(&["Stop"]),
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
static PROFILE: Profile = Profile::new(
    &AUGGIE,
    "Augment Auggie",
    &DIALECT,
    &CAPABILITIES,
    &SETTINGS,
)
// Its local settings.
.also_guards(&[".augment/settings.local.json"])
.tools(TOOLS)
// `hookEventName` is read too.
.aliases(&[("hookEventName", "hook_event_name")])
// Auggie reads a command's `timeout` in milliseconds.
.timeout_unit(TimeUnit::Milliseconds);

impl Agent for Auggie {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }
}
