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

use hooks_core::EmitResult;
use hooks_core::events::{PROMPT_COMPLETE, PROMPT_SUBMIT, SESSION_START, TOOL_POST, TOOL_PRE};
use serde_json::Value;

use super::exit_two;
use super::hook_output::{non_empty, printed};
use super::tools::{self, ToolName, named};
use super::{
    Agent, AgentAnswer, Capabilities, HookSettings, InputError, Layout, MappedEvent, Profile,
    ProjectDir, Protocol, RewriteSupport, Rewrites, Verdict,
};

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

/// The events whose hooks Kiro lets block.
const BLOCKING: &[&str] = &[
    "PreToolUse",
    "UserPromptSubmit",
    "PreTaskExec",
    "preToolUse",
];

/// What Kiro takes from a hook: a block, and nothing else.
static CAPABILITIES: Capabilities = Capabilities {
    asks_on: &[],
    rewrite: RewriteSupport::None,
    context_on: &[],
    blocks_prompt: Some("UserPromptSubmit"),
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
static PROFILE: Profile = Profile::new(&KIRO, "Kiro", &CAPABILITIES, &SETTINGS)
    // Every hook file, and its agents, which can hold hooks.
    .also_guards(&[".kiro/hooks/**", ".kiro/agents/*.json"])
    .tools(TOOLS)
    .binaries(&["kiro-cli"]);

impl Agent for Kiro {
    fn profile(&self) -> &'static Profile {
        &PROFILE
    }

    /// Claude Code's stdin fields, its tools made canonical.
    fn event_in(&self, input: &str) -> Result<MappedEvent, InputError> {
        tools::event_in(&KIRO, &[], TOOLS, input)
    }

    /// Our merged result for Kiro's event `agent_event` (see the [module docs](self)).
    fn answer(
        &self,
        agent_event: &str,
        input: &Value,
        outcome: &EmitResult,
        _rewrites: &Rewrites,
    ) -> AgentAnswer {
        let blocks = BLOCKING.contains(&agent_event);
        exit_two::answer("Kiro", agent_event, blocks, input, outcome)
    }

    /// Kiro's reading of an answer, by its documentation: exit 2 with a reason blocks the
    /// events that block; exit 0 goes on (its stdout is context on a prompt, and nothing on a
    /// tool call). Refused: any other exit code (a warning: the call runs), exit 2 without a
    /// reason, and JSON on stdout (Kiro reads no decision from it). Elsewhere exit 2 is no
    /// decision.
    fn accepts(&self, agent_event: &str, answer: &AgentAnswer) -> Result<Verdict, String> {
        if printed(answer).map_or(true, |fields| fields.is_some()) {
            return Err("Kiro reads no JSON answer: the call would run".to_owned());
        }
        match answer.exit_code {
            0 => Ok(Verdict::Proceed),
            2 => {
                let reason = non_empty(Some(&Value::from(answer.stderr.as_str())))
                    .ok_or_else(|| "exit 2 without a reason on stderr".to_owned())?;
                Ok(if BLOCKING.contains(&agent_event) {
                    Verdict::Block(reason)
                } else {
                    Verdict::Proceed
                })
            }
            code => Err(format!(
                "exit code {code}: a warning to Kiro, which runs the call"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
