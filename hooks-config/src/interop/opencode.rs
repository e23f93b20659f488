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

use hooks_core::EmitResult;
use hooks_core::events::{PROMPT_SUBMIT, SESSION_START, TOOL_POST, TOOL_PRE};
use serde_json::Value;

use super::plugin::PluginEvents;
use super::tools::{ToolName, make_canonical};
use super::{
    Agent, AgentAnswer, Capabilities, HookSettings, InputError, Layout, MappedEvent, OnFailure,
    ProjectDir, Protocol, RewriteSupport, Rewrites, Verdict,
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

/// Its plugin's events.
static EVENTS: PluginEvents = PluginEvents {
    display: "OpenCode",
    tool_call: "tool.execute.before",
    prompt: Some("chat.message"),
    tools: TOOLS,
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
    fn protocol(&self) -> &'static Protocol {
        &OPENCODE
    }

    fn display_name(&self) -> &'static str {
        "OpenCode"
    }

    fn capabilities(&self) -> &'static Capabilities {
        &CAPABILITIES
    }

    fn settings(&self) -> &'static HookSettings {
        &SETTINGS
    }

    /// The plugin blocks on any failure of `hooks`.
    fn on_failure(&self) -> OnFailure {
        OnFailure::Closed
    }

    fn binaries(&self) -> &'static [&'static str] {
        &["opencode"]
    }

    fn tools(&self) -> &'static [ToolName] {
        TOOLS
    }

    fn tested_against_real_program(&self) -> bool {
        true
    }

    /// The plugin's JSON, its tools made canonical.
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let mut mapped = OPENCODE.event_in(input)?;
        if let Value::Object(data) = &mut mapped.data {
            make_canonical(TOOLS, data);
        }
        Ok(mapped)
    }

    /// Our merged result, in the plugin's answer (see [`plugin`](super::plugin)).
    fn answer(
        &self,
        agent_event: &str,
        input: &Value,
        outcome: &EmitResult,
        rewrites: &Rewrites,
    ) -> AgentAnswer {
        EVENTS.answer(agent_event, input, outcome, rewrites)
    }

    /// A block the plugin reads from its JSON, its exit code and its stderr alike.
    fn fail_closed(&self, _agent_event: Option<&str>, reason: String) -> AgentAnswer {
        PluginEvents::fail_closed(reason)
    }

    /// The plugin's reading of an answer (see [`plugin`](super::plugin)).
    fn accepts(&self, agent_event: &str, answer: &AgentAnswer) -> Result<Verdict, String> {
        EVENTS.accepts(agent_event, answer)
    }
}
