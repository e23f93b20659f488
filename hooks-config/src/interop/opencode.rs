//! OpenCode ([`OpenCode`]): no hooks file, but in-process plugins, loaded from
//! `.opencode/plugin/` in the project (`~/.config/opencode/plugin/` for the user). `hooks init
//! opencode` writes `.opencode/plugin/hooks.js` (see [`plugin`](super::plugin)), which runs
//! `hooks opencode --config FILE` before every tool call (`tool.execute.before`) and on every
//! prompt (`chat.message`), with the JSON below on stdin.
//!
//! | the plugin's event | our event | its JSON |
//! |---|---|---|
//! | `tool.execute.before` | `tool:pre` | `tool`, `args` (the tool's own), `sessionID`, `callID`, `directory` |
//! | `chat.message` | `prompt:submit` | `prompt` (the text parts, joined), `sessionID`, `messageID`, `directory` |
//!
//! `tool` is also the `tool_name`, `args` the `tool_input`, `sessionID` the `session_id`,
//! `callID` the `tool_call_id`, `directory` the `cwd`. Its tools get canonical names: `bash` is
//! `Bash`, `read`, `write` and `edit` are `Read`, `Write` and `Edit` (their `filePath` also the
//! `file_path`), `apply_patch` is `apply_patch` (its `patchText` also the `command`).
//!
//! A block throws in the plugin: OpenCode stops the call and hands the model the reason.
//! OpenCode changes a tool call's arguments in place, without asking anyone: a rewrite runs when
//! every hook that made it says `rewrite: apply`, otherwise it blocks saying what would have
//! run. A question cannot be put (OpenCode's `permission.ask` plugin hook is not called on its
//! permission path): it blocks with the question. A prompt's redaction replaces its text.
//! Context cannot reach the model from these hooks: it is shown to the user.

use hooks_core::events::{PROMPT_SUBMIT, SESSION_START, TOOL_POST, TOOL_PRE};

use super::plugin::PluginEvents;
use super::tools::ToolName;
use super::{
    Agent, Capabilities, HookSettings, Layout, OnFailure, Profile, ProjectDir, Protocol,
    RewriteSupport,
};

/// OpenCode.
#[derive(Debug, Clone, Copy)]
pub struct OpenCode;

/// The JSON of the plugin `hooks init opencode` writes, read as a hook protocol.
pub const OPENCODE: Protocol = Protocol {
    agent: "opencode",
    events: &[
        ("tool.execute.before", Some(TOOL_PRE)),
        ("tool.execute.after", Some(TOOL_POST)),
        ("chat.message", Some(PROMPT_SUBMIT)),
        ("session.created", Some(SESSION_START)),
    ],
    fields: &[
        ("tool", "tool_name"),
        ("args", "tool_input"),
        ("sessionID", "session_id"),
        ("callID", "tool_call_id"),
        ("directory", "cwd"),
    ],
};

/// OpenCode's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    ToolName {
        theirs: "bash",
        canonical: "Bash",
        fields: &[],
    },
    ToolName {
        theirs: "read",
        canonical: "Read",
        fields: &[("filePath", "file_path")],
    },
    ToolName {
        theirs: "write",
        canonical: "Write",
        fields: &[("filePath", "file_path")],
    },
    ToolName {
        theirs: "edit",
        canonical: "Edit",
        fields: &[("filePath", "file_path")],
    },
    ToolName {
        theirs: "apply_patch",
        canonical: "apply_patch",
        fields: &[("patchText", "command")],
    },
];

/// What OpenCode is, as data.
static PROFILE: Profile = Profile::new(&OPENCODE, "OpenCode", &DIALECT, &CAPABILITIES, &SETTINGS)
    // Every plugin, in both folder spellings, and its configuration, which can load one.
    .also_guards(&[
        ".opencode/plugin/**",
        ".opencode/plugins/**",
        ".config/opencode/plugin/**",
        ".config/opencode/plugins/**",
        "opencode.json",
        "opencode.jsonc",
    ])
    .tools(TOOLS)
    .binaries(&["opencode"])
    // The plugin blocks on any failure of `hooks`.
    .on_failure(OnFailure::Closed)
    .tested_against_real_program();

/// Its plugin's events.
static DIALECT: PluginEvents = PluginEvents {
    tool_call: "tool.execute.before",
    prompt: Some("chat.message"),
    args: "args",
};

/// What OpenCode takes from its plugin.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &[],
    rewrite: RewriteSupport::AppliedOnly,
    context_on: &[],
    blocks_prompt: Some("chat.message"),
};

/// The plugin `hooks init opencode` writes.
static SETTINGS: HookSettings = HookSettings {
    project: ".opencode/plugin/hooks.js",
    user: ".config/opencode/plugin/hooks.js",
    project_dir: ProjectDir::Cwd,
    layout: Layout::Plugin(concat!(
        include_str!("plugins/opencode.js"),
        include_str!("plugins/guard.js")
    )),
    init_events: &["tool.execute.before", "chat.message"],
};

impl Agent for OpenCode {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }
}
