//! `hooks claude`, `hooks gemini`, `hooks codex` and `hooks cursor`: our policy as another
//! agent's command hook. The agent's hook JSON comes on stdin; the answer goes out in its
//! protocol. Anything that keeps the
//! policy from deciding (unreadable input, a broken policy file) blocks, with the reason:
//! a guard that cannot run must not wave everything through.

use std::path::Path;

use hooks_config::interop::{
    AgentAnswer, MappedEvent, Protocol, Rewrites, claude, codex, cursor, gemini,
};
use hooks_core::HookRegistry;
use hooks_core::module::HookModule;

use crate::modules::{flush_telemetry, load_file};

/// The agents `hooks` can serve as a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// Gemini CLI.
    Gemini,
    /// Codex CLI.
    Codex,
    /// Cursor.
    Cursor,
}

impl Agent {
    fn protocol(self) -> &'static Protocol {
        match self {
            Agent::Claude => &claude::CLAUDE,
            Agent::Gemini => &gemini::GEMINI,
            Agent::Codex => &codex::CODEX,
            Agent::Cursor => &cursor::CURSOR,
        }
    }

    fn event_in(self, input: &str) -> Result<MappedEvent, String> {
        let mapped = match self {
            Agent::Cursor => cursor::event_in(input),
            _ => self.protocol().event_in(input),
        };
        mapped.map_err(|error| error.to_string())
    }

    /// The answer when the policy cannot decide: a block, in the agent's terms.
    fn fail_closed(self, agent_event: Option<&str>, problem: &str) -> AgentAnswer {
        let reason = format!(
            "hooks {}: {problem}; blocked because the policy could not decide",
            self.protocol().agent
        );
        match self {
            Agent::Cursor => cursor::fail_closed(agent_event, reason),
            Agent::Gemini => gemini::fail_closed(agent_event, reason),
            Agent::Codex => codex::fail_closed(reason),
            Agent::Claude => AgentAnswer::block(reason),
        }
    }
}

/// The answer to one hook call of `agent`: `input` is what it wrote on stdin.
pub fn answer(agent: Agent, config: &Path, input: &str) -> AgentAnswer {
    let mapped = match agent.event_in(input) {
        Ok(mapped) => mapped,
        Err(error) => return agent.fail_closed(None, &error),
    };
    let fail_closed = |problem: String| agent.fail_closed(Some(&mapped.agent_event), &problem);
    let policy = match load_file(config) {
        Ok(policy) => policy,
        Err(errors) => return fail_closed(format!("the policy file is broken:\n{errors}")),
    };
    // The policy file, and every #[hook] linked into this binary.
    let registry = match HookRegistry::with_annotated() {
        Ok(registry) => registry,
        Err(error) => return fail_closed(error.to_string()),
    };
    let _mounted = match policy.mount(&registry) {
        Ok(mounted) => mounted,
        Err(error) => return fail_closed(error.to_string()),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail_closed(format!("cannot start the runtime: {error}")),
    };
    let outcome = runtime.block_on(registry.emit(&mapped.event, mapped.data.clone()));
    // The event's spans are exported before the answer: within the telemetry's timeout, and
    // whatever the collector does, the decision is already made.
    flush_telemetry();
    let rewrites = Rewrites::of(&policy);
    match agent {
        Agent::Claude => {
            claude::answer_with(&mapped.agent_event, &mapped.data, &outcome, &rewrites)
        }
        Agent::Gemini => gemini::answer(&mapped.agent_event, &mapped.data, &outcome, &rewrites),
        Agent::Codex => codex::answer(&mapped.agent_event, &mapped.data, &outcome, &rewrites),
        Agent::Cursor => cursor::answer(&mapped.agent_event, &outcome),
    }
}
