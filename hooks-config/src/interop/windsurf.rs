//! Windsurf's Cascade, now Devin Desktop ([`Windsurf`]): command hooks in
//! `.windsurf/hooks.json` (workspace; `~/.codeium/windsurf/hooks.json` for the user), entries
//! `{command, show_output}` under each event, as its Cascade hooks documentation gives them
//! (docs.windsurf.com/windsurf/cascade/hooks).
//!
//! Its stdin names the event `agent_action_name` and puts what the action is about under
//! `tool_info` (`command_line` and `cwd`, `file_path` and `edits`, `mcp_server_name`,
//! `mcp_tool_name` and `mcp_tool_arguments`, `user_prompt`); `trajectory_id` is the session.
//! Its events are actions, not tools, so each tool event gets a tool of its own:
//! `pre_run_command` is a `Bash` call (`command_line` also the `command`), `pre_read_code` a
//! `Read`, `pre_write_code` an `Edit` (of `file_path`), `pre_mcp_tool_use` the MCP tool
//! `mcp__<server>__<tool>` with its arguments as the input.
//!
//! Exit 2 blocks a `pre_*` action, with stderr as the reason; Windsurf reads no JSON answer,
//! no question, no rewrite and no context, so:
//!
//! | our merged result | Windsurf's answer |
//! |---|---|
//! | continue, nothing else | nothing, exit 0 |
//! | deny, ask_user or a modified input on a `pre_*` action | exit 2 with the reason (the question, or what would have run) |
//! | anything on a `post_*` action | nothing it acts on: what the hooks said goes to stderr |
//!
//! The fields of the stdin are second-hand in part; Devin Desktop is reported to read
//! `.devin/hooks.json` as well, which is write-protected like the others.

use crate::agent_protocol::input_object;
use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use hooks_core::events::{PROMPT_COMPLETE, PROMPT_SUBMIT, TOOL_POST, TOOL_PRE};
use serde_json::{Map, Value, json};

use super::exit_two::{self, Blocking, ExitTwo, StdoutBlock};
use super::tools::{ToolName, canonical_event};
use super::{
    Agent, Capabilities, HookSettings, InputError, Layout, MappedEvent, Profile, ProjectDir,
    Protocol,
};

/// Windsurf's Cascade (Devin Desktop).
#[derive(Debug, Clone, Copy)]
pub struct Windsurf;

/// Windsurf's hook protocol.
pub const WINDSURF: Protocol = Protocol {
    agent: "windsurf",
    events: &[
        ("pre_run_command", Some(TOOL_PRE)),
        ("pre_read_code", Some(TOOL_PRE)),
        ("pre_write_code", Some(TOOL_PRE)),
        ("pre_mcp_tool_use", Some(TOOL_PRE)),
        ("post_run_command", Some(TOOL_POST)),
        ("post_read_code", Some(TOOL_POST)),
        ("post_write_code", Some(TOOL_POST)),
        ("post_mcp_tool_use", Some(TOOL_POST)),
        ("pre_user_prompt", Some(PROMPT_SUBMIT)),
        ("post_cascade_response", Some(PROMPT_COMPLETE)),
        ("post_setup_worktree", None),
    ],
    fields: &[("trajectory_id", "session_id")],
};

/// The tool each action is, under its canonical name.
const TOOLS: &[ToolName] = &[
    ToolName {
        theirs: "run_command",
        canonical: "Bash",
        fields: &[("command_line", "command")],
    },
    ToolName {
        theirs: "read_code",
        canonical: "Read",
        fields: &[],
    },
    ToolName {
        theirs: "write_code",
        canonical: "Edit",
        fields: &[],
    },
];

/// What Windsurf takes from a hook: a block of a `pre_*` action, and nothing else.
static CAPABILITIES: Capabilities = exit_two::capabilities(Some("pre_user_prompt"));

/// Exit 2 blocks a `pre_*` action; Windsurf reads no JSON answer.
static DIALECT: ExitTwo = ExitTwo {
    blocks: Blocking::Prefix("pre_"),
    stdout: StdoutBlock::Unread,
};

/// Windsurf's settings files.
static SETTINGS: HookSettings = HookSettings {
    project: ".windsurf/hooks.json",
    user: ".codeium/windsurf/hooks.json",
    project_dir: ProjectDir::GitRoot,
    layout: Layout::BareCommands,
    init_events: &[
        "pre_run_command",
        "pre_read_code",
        "pre_write_code",
        "pre_mcp_tool_use",
        "pre_user_prompt",
    ],
};

/// What Windsurf is, as data.
static PROFILE: Profile = Profile::new(&WINDSURF, "Windsurf", &DIALECT, &CAPABILITIES, &SETTINGS)
    // The other places Windsurf and Devin Desktop read hooks from.
    .also_guards(&[".codeium/hooks.json", ".devin/hooks.json"])
    .tools(TOOLS)
    // Its entries take no timeout.
    .timeout_keys(&[]);

impl Agent for Windsurf {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Its action as an event with a tool (see the [module docs](self)).
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        let mut fields = input_object(input)?;
        let action = fields
            .get("agent_action_name")
            .and_then(Value::as_str)
            .ok_or(InputError::NoEventName)?
            .to_owned();
        fields.insert("hook_event_name".to_owned(), Value::from(action.as_str()));
        let info = match fields.get("tool_info") {
            Some(Value::Object(info)) => info.clone(),
            _ => Map::new(),
        };
        if let Some(cwd) = info.get("cwd").cloned() {
            fields.entry("cwd").or_insert(cwd);
        }
        if let Some(prompt) = info.get("user_prompt").cloned() {
            fields.entry("prompt").or_insert(prompt);
        }
        if let Some(tool) = action
            .strip_prefix("pre_")
            .or_else(|| action.strip_prefix("post_"))
        {
            let (name, tool_input) = match tool {
                "mcp_tool_use" => {
                    let part = |key: &str| {
                        info.get(key)
                            .and_then(Value::as_str)
                            .unwrap_or("unknown")
                            .to_owned()
                    };
                    let arguments = info
                        .get("mcp_tool_arguments")
                        .cloned()
                        .unwrap_or_else(|| json!({}));
                    (
                        format!(
                            "mcp__{}__{}",
                            part("mcp_server_name"),
                            part("mcp_tool_name")
                        ),
                        arguments,
                    )
                }
                "run_command" | "read_code" | "write_code" => {
                    (tool.to_owned(), Value::Object(info.clone()))
                }
                _ => (String::new(), Value::Null),
            };
            if !name.is_empty() {
                fields.insert(TOOL_NAME.to_owned(), Value::from(name));
                fields.insert(TOOL_INPUT.to_owned(), tool_input);
            }
        }
        canonical_event(&WINDSURF, TOOLS, &Value::Object(fields).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::{AgentAnswer, Verdict};

    #[test]
    fn windsurfs_validator_refuses_a_json_deny() {
        let deny = AgentAnswer::json(&json!({"decision": "deny", "reason": "no"}));
        assert!(Windsurf.accepts("pre_run_command", &deny).is_err());
        assert_eq!(
            Windsurf.accepts("pre_run_command", &AgentAnswer::block("no")),
            Ok(Verdict::Block("no".to_owned()))
        );
        assert_eq!(
            Windsurf.accepts("post_run_command", &AgentAnswer::block("no")),
            Ok(Verdict::Proceed)
        );
    }
}
