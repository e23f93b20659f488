//! `hooks claude` and `hooks gemini`: our policy as another agent's command hook. The agent's
//! hook JSON comes on stdin; the answer goes out in its protocol. Anything that keeps the
//! policy from deciding (unreadable input, a broken policy file) blocks, with the reason:
//! a guard that cannot run must not wave everything through.

use std::path::Path;

use hooks_config::interop::{AgentAnswer, Protocol, claude, gemini};
use hooks_config::load_file;
use hooks_core::HookRegistry;
use hooks_core::module::HookModule;

/// The agents `hooks` can serve as a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// Gemini CLI.
    Gemini,
}

impl Agent {
    fn protocol(self) -> &'static Protocol {
        match self {
            Agent::Claude => &claude::CLAUDE,
            Agent::Gemini => &gemini::GEMINI,
        }
    }
}

/// The answer to one hook call of `agent`: `input` is what it wrote on stdin.
pub fn answer(agent: Agent, config: &Path, input: &str) -> AgentAnswer {
    let fail_closed = |problem: String| {
        AgentAnswer::block(format!(
            "hooks {}: {problem}; blocked because the policy could not decide",
            agent.protocol().agent
        ))
    };
    let mapped = match agent.protocol().event_in(input) {
        Ok(mapped) => mapped,
        Err(error) => return fail_closed(error.to_string()),
    };
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
    match agent {
        Agent::Claude => claude::answer(&mapped.agent_event, &mapped.data, &outcome),
        Agent::Gemini => gemini::answer(&mapped.agent_event, &mapped.data, &outcome),
    }
}
