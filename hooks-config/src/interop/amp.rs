//! Amp ([`Amp`]): no hooks file, but in-process plugins (TypeScript, run by Bun), loaded from
//! `.amp/plugins/` in the project (`~/.config/amp/plugins/` for the user), as Amp's plugin API
//! manual gives them (marked experimental there; not run against the real program here, as Amp
//! needs its own backend). `hooks init amp` writes `.amp/plugins/hooks.ts` (see
//! [`plugin`](super::plugin)), which runs `hooks amp --config FILE` on every `tool.call`.
//!
//! | the plugin's event | our event | its JSON |
//! |---|---|---|
//! | `tool.call` | `tool:pre` | `tool`, `input` (the tool's own), `thread`, `toolUseID` |
//!
//! `tool` is also the `tool_name`, `input` the `tool_input`, `thread` the `session_id`,
//! `toolUseID` the `tool_call_id`. Its tools get canonical names: `Bash` stays `Bash` (its `cmd`
//! also the `command`), `Read`, `create_file` and `edit_file` are `Read`, `Write` and `Edit`
//! (their `path` also the `file_path`).
//!
//! A block is `{action: "reject-and-continue", message}`: the model reads the reason. A rewrite
//! is `{action: "modify", input}`, run without asking anyone: it runs when every hook that made
//! it says `rewrite: apply`, otherwise it blocks saying what would have run. Amp's plugins cannot
//! ask, and cannot stop a prompt (`agent.start` can only add a message); context is shown to the
//! user.

use hooks_core::events::{PROMPT_COMPLETE, SESSION_START, TOOL_POST, TOOL_PRE};

use super::plugin::PluginEvents;
use super::tools::ToolName;
use super::{
    Agent, Capabilities, HookSettings, Layout, OnFailure, Profile, ProjectDir, Protocol,
    RewriteSupport,
};

/// Amp.
#[derive(Debug, Clone, Copy)]
pub struct Amp;

/// The JSON of the plugin `hooks init amp` writes, read as a hook protocol.
pub const AMP: Protocol = Protocol {
    agent: "amp",
    events: &[
        ("tool.call", Some(TOOL_PRE)),
        ("tool.result", Some(TOOL_POST)),
        ("session.start", Some(SESSION_START)),
        ("agent.end", Some(PROMPT_COMPLETE)),
    ],
    fields: &[
        ("tool", "tool_name"),
        ("input", "tool_input"),
        ("thread", "session_id"),
        ("toolUseID", "tool_call_id"),
    ],
};

/// Amp's tools under their canonical names.
const TOOLS: &[ToolName] = &[
    ToolName {
        theirs: "Bash",
        canonical: "Bash",
        fields: &[("cmd", "command")],
    },
    ToolName {
        theirs: "Read",
        canonical: "Read",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "create_file",
        canonical: "Write",
        fields: &[("path", "file_path")],
    },
    ToolName {
        theirs: "edit_file",
        canonical: "Edit",
        fields: &[("path", "file_path")],
    },
];

/// What Amp is, as data.
static PROFILE: Profile = Profile::new(&AMP, "Amp", &DIALECT, &CAPABILITIES, &SETTINGS)
    // Every plugin.
    .also_guards(&[".amp/plugins/**", ".config/amp/plugins/**"])
    .tools(TOOLS)
    .binaries(&["amp"])
    // The plugin blocks on any failure of `hooks`.
    .on_failure(OnFailure::Closed);

/// Its plugin's events.
static DIALECT: PluginEvents = PluginEvents {
    tool_call: "tool.call",
    prompt: None,
    args: "input",
};

/// What Amp takes from its plugin.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &[],
    rewrite: RewriteSupport::AppliedOnly,
    context_on: &[],
    blocks_prompt: None,
};

/// The plugin `hooks init amp` writes.
static SETTINGS: HookSettings = HookSettings {
    project: ".amp/plugins/hooks.ts",
    user: ".config/amp/plugins/hooks.ts",
    project_dir: ProjectDir::Cwd,
    layout: Layout::Plugin(concat!(
        include_str!("plugins/amp.ts"),
        include_str!("plugins/guard.js")
    )),
    init_events: &["tool.call"],
};

impl Agent for Amp {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }
}
