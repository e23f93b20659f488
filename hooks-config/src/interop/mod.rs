//! Other agents' hook protocols, both ways, one [`Agent`] description per agent.
//!
//! - **Outward**: our policy runs inside them. `hooks <agent>` reads the agent's hook JSON,
//!   maps it to a canonical event ([`Agent::event_in`]), emits it, and writes the merged result
//!   in the agent's protocol ([`Agent::answer`]); when the policy cannot decide it blocks
//!   ([`Agent::fail_closed`]). `hooks init <agent>` writes its [`HookSettings`].
//! - **Inward**: their hook scripts run under our command runner. A script reads the stdin
//!   fields of its own agent ([`Protocol::script_input`]) and answers in its protocol, which
//!   the runner understands; a Claude Code settings file converts to our entries
//!   ([`claude::import_settings`]) or loads directly.
//!
//! The agents are listed in [`AGENTS`]; each is one file here: its unit struct and its row
//! ([`Profile`]: its event table, settings, tools, capabilities), naming one of a few shared
//! [dialects](Dialect) that write and read its answers (Claude Code's JSON, exit 2, Cursor's,
//! GitHub Copilot's, Gemini CLI's, Codex CLI's, a plugin's). The command line iterates the
//! list, so adding an agent is adding its file.
//!
//! A rewrite of a tool call is shown to the user where the agent can ask (Claude Code's
//! `permissionDecision: "ask"`). Gemini CLI and Codex CLI cannot ask: there a rewrite blocks,
//! with a reason saying what would have run, unless every entry that rewrote the call says
//! `rewrite: apply` ([`Rewrites`]). Cursor cannot take a rewrite at all: it blocks.
//!
//! Events an agent has and the taxonomy has not keep their meaning as custom events named
//! after the agent (`SubagentStop` is `claude:subagent_stop`), so nothing is dropped.

mod agent;
pub mod amp;
pub mod antigravity;
pub mod auggie;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod copilot;
pub mod crush;
pub mod cursor;
mod dialect;
pub mod droid;
pub mod executables;
mod exit_two;
pub mod foreign;
pub mod gemini;
pub mod goose;
mod hook_output;
pub mod kiro;
pub mod opencode;
pub mod ordered_json;
pub mod plugin;
pub mod qwen;
mod reasons;
mod settings_format;
#[cfg(any(test, feature = "validate"))]
mod summary;
pub mod tools;
pub mod windsurf;

use std::collections::BTreeSet;

use hooks_core::events::EventNameError;
use serde::Serialize;
use serde_json::Value;

pub use crate::agent_protocol::{AGENT_FIELD, InputError, MappedEvent, Protocol};
use crate::{HooksConfig, Rewrite};
pub use agent::{
    Agent, Capabilities, FailClosedKey, HookSettings, Importer, KeyValue, MinVersion, OnFailure,
    Profile, ProjectDir, RewriteSupport, TimeUnit, Trust, Verdict, parse_version, runs_hooks,
    shell_word,
};
#[cfg(any(test, feature = "validate"))]
pub use dialect::Reading;
pub use dialect::{Answering, Dialect};
pub use settings_format::{Layout, OurEntry};
#[cfg(any(test, feature = "validate"))]
pub use summary::{agent_list, setup_table, summary_table};

/// Every agent `hooks` serves, in the order the command line lists them.
pub static AGENTS: &[&dyn Agent] = &[
    &claude::ClaudeCode,
    &gemini::GeminiCli,
    &codex::CodexCli,
    &cursor::Cursor,
    &qwen::QwenCode,
    &droid::FactoryDroid,
    &copilot::Copilot,
    &auggie::Auggie,
    &goose::Goose,
    &windsurf::Windsurf,
    &crush::Crush,
    &kiro::Kiro,
    &cline::Cline,
    &antigravity::Antigravity,
    &opencode::OpenCode,
    &amp::Amp,
];

/// The agent called `name` (`claude`, `gemini`, ...), if `hooks` serves it.
pub fn agent(name: &str) -> Option<&'static dyn Agent> {
    AGENTS.iter().copied().find(|agent| agent.name() == name)
}

/// The event a hooks file or `hooks eval` means by `name`: a canonical name, an alias, a custom
/// `namespace:name`, or the name of a Claude Code or Gemini CLI event, mapped as `hooks claude`
/// and `hooks gemini` map it (`Stop` is `prompt:complete`, `BeforeTool` is `tool:pre`,
/// `SubagentStop` is `claude:subagent_stop`).
///
/// ```
/// use hooks_config::interop::event_named;
///
/// assert_eq!(event_named("Stop").unwrap(), "prompt:complete");
/// assert_eq!(event_named("BeforeAgent").unwrap(), "prompt:submit");
/// assert_eq!(event_named("SubagentStop").unwrap(), "claude:subagent_stop");
/// assert_eq!(event_named("tool:pre").unwrap(), "tool:pre");
/// let typo = event_named("UserPromptSubmitt").unwrap_err();
/// assert_eq!(typo.suggestion(), Some("UserPromptSubmit"));
/// ```
pub fn event_named(name: &str) -> Result<String, EventNameError> {
    let error = match hooks_core::events::canonicalize(name) {
        Ok(canonical) => return Ok(canonical.to_owned()),
        Err(error) => error,
    };
    let agents = [&claude::CLAUDE, &gemini::GEMINI];
    for protocol in agents {
        if protocol.events.iter().any(|(theirs, _)| *theirs == name)
            && let Ok(event) = protocol.canonical_event(name)
        {
            return Ok(event);
        }
    }
    match error {
        EventNameError::NotNamespaced { name, suggestion } => {
            let agent_names = agents
                .iter()
                .flat_map(|protocol| protocol.events.iter().map(|(theirs, _)| *theirs));
            let known = hooks_core::events::CANONICAL
                .iter()
                .copied()
                .chain(hooks_core::events::ALIASES.iter().map(|(alias, _)| *alias))
                .chain(agent_names);
            let suggestion = hooks_core::events::closest(&name, known).or(suggestion);
            Err(EventNameError::NotNamespaced { name, suggestion })
        }
        other => Err(other),
    }
}

/// The hooks whose rewrites of a tool call an adapter passes to the agent as applied, with no
/// one confirming them: the entries of a hooks file marked `rewrite: apply`.
#[derive(Debug, Clone, Default)]
pub struct Rewrites {
    applied_by: BTreeSet<String>,
}

impl Rewrites {
    /// Every rewrite is confirmed (the default).
    pub fn confirmed() -> Self {
        Rewrites::default()
    }

    /// The entries of `config` marked `rewrite: apply`.
    pub fn of(config: &HooksConfig) -> Self {
        Rewrites {
            applied_by: config
                .entries
                .iter()
                .filter(|entry| entry.rewrite == Rewrite::Apply)
                .map(|entry| entry.name.clone())
                .collect(),
        }
    }

    /// The entries of every layer of `stack` marked `rewrite: apply`.
    pub fn of_stack(stack: &crate::PolicyStack) -> Self {
        Rewrites {
            applied_by: stack
                .entries()
                .filter(|entry| entry.rewrite == Rewrite::Apply)
                .map(|entry| entry.name.clone())
                .collect(),
        }
    }

    /// Whether every modification of `outcome` came from a hook whose rewrites apply (and
    /// there was one): one rewriter that wants confirmation makes the whole rewrite asked.
    pub fn all_applied(&self, outcome: &hooks_core::EmitResult) -> bool {
        !outcome.modifications.is_empty()
            && outcome
                .modifications
                .iter()
                .all(|m| self.applied_by.contains(&*m.hook))
    }
}

/// What an adapter prints, and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentAnswer {
    /// Standard output (a JSON answer, or nothing).
    pub stdout: String,
    /// Standard error (the reason of a block).
    pub stderr: String,
    /// The exit code: 0, or 2 for a block.
    pub exit_code: i32,
}

impl AgentAnswer {
    /// Exit 0 with `answer` as JSON on stdout, or with nothing if it is an empty object. An
    /// answer that cannot be written blocks.
    pub fn json(answer: &impl Serialize) -> Self {
        match serde_json::to_value(answer) {
            Ok(Value::Object(fields)) if fields.is_empty() => AgentAnswer::silent(),
            Ok(json) => AgentAnswer {
                stdout: json.to_string(),
                stderr: String::new(),
                exit_code: 0,
            },
            Err(error) => AgentAnswer::block(format!(
                "hooks: cannot write the answer ({error}); blocked rather than answered wrong"
            )),
        }
    }

    /// Exit 0 with nothing on stdout: the agent goes on as it would without the hook.
    pub fn silent() -> Self {
        AgentAnswer {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: 0,
        }
    }

    /// Exit 2 with the reason on stderr: a block in every agent's protocol.
    pub fn block(reason: impl Into<String>) -> Self {
        AgentAnswer {
            stdout: String::new(),
            stderr: reason.into(),
            exit_code: 2,
        }
    }
}
