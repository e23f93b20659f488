//! `hooks <agent> --config FILE`, for every agent of [`AGENTS`](hooks_config::interop::AGENTS):
//! our policy as another agent's command hook. The agent's hook JSON comes on stdin; the answer
//! goes out in its protocol. Anything that keeps the policy from deciding (unreadable input, a
//! broken policy file) blocks, with the reason: a guard that cannot run must not wave
//! everything through.
//!
//! The policy is the file's with the machine's managed and the user's hooks files over it
//! ([`PolicyStack`](hooks_config::PolicyStack)): a managed file that is there but cannot be
//! loaded blocks too.
//!
//! Every event is a new process, so the hooks' [session state](hooks_core::state) is kept in
//! files ([`FileState::from_env`]: `$HOOKS_STATE_DIR`, else the XDG state directory), keyed
//! by the event's `session_id`: what one event's hooks remember, the next event's find. An
//! `ask_user` whose question was answered "… always" earlier in the session is settled by that
//! answer instead of being put to the agent again.

use std::path::Path;

use hooks_config::interop::{Agent, AgentAnswer, Rewrites};
use hooks_core::module::{HookModule, Mounted};
use hooks_core::session::approval::{ApprovalRequest, Approvals};
use hooks_core::{EmitResult, HookAction, HookRegistry};
use hooks_std::state_file::FileState;
use serde_json::Value;

use crate::modules::{flush_telemetry, load_layers, unloadable};

/// The answer when the policy cannot decide: a block, in the agent's terms.
pub fn fail_closed(agent: &dyn Agent, agent_event: Option<&str>, problem: &str) -> AgentAnswer {
    let reason = format!(
        "hooks {}: {problem}; blocked because the policy could not decide",
        agent.name()
    );
    agent.fail_closed(agent_event, reason)
}

/// The answer to one hook call of `agent`: `input` is what it wrote on stdin.
pub fn answer(agent: &dyn Agent, config: &Path, input: &str) -> AgentAnswer {
    let mapped = match agent.event_in(input) {
        Ok(mapped) => mapped,
        Err(error) => return fail_closed(agent, None, &error.to_string()),
    };
    let fail_closed = |problem: String| fail_closed(agent, Some(&mapped.agent_event), &problem);
    let policy = match load_layers(config) {
        Ok(policy) => policy,
        Err(error) => return fail_closed(unloadable(&error)),
    };
    hooks_config::one_event_per_process();
    // The policy layers, and every #[hook] linked into this binary.
    let registry = HookRegistry::new();
    if let Some(files) = FileState::from_env() {
        registry.set_state_backend(files);
    }
    if let Err(error) = registry.register_annotated(|_| true) {
        return fail_closed(error.to_string());
    }
    let _mounted: Mounted = match policy.mount(&registry) {
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
    let mut outcome = runtime.block_on(registry.emit(&mapped.event, mapped.data.clone()));
    settle_remembered(&registry, &mapped.event, &mapped.data, &mut outcome);
    // The event's spans are exported before the answer: within the telemetry's timeout, and
    // whatever the collector does, the decision is already made.
    flush_telemetry();
    let rewrites = Rewrites::of_stack(&policy);
    agent.answer(&mapped.agent_event, &mapped.data, &outcome, &rewrites)
}

/// Settles an `ask_user` by an earlier "… always" answer to the same question in the same
/// session, kept in the session state: a remembered allow drops the question (the agent's own
/// permission rules still apply), a remembered deny denies.
fn settle_remembered(registry: &HookRegistry, event: &str, data: &Value, outcome: &mut EmitResult) {
    if outcome.action != HookAction::AskUser {
        return;
    }
    let Ok(state) = registry.state().for_event(data) else {
        return;
    };
    let request = ApprovalRequest::from_result(&outcome.result, event, outcome.decided_by.clone());
    let approvals = Approvals::new(None, registry.clone()).remembering_in(state);
    match approvals.remembered(&request.prompt) {
        Some(true) => outcome.settle_ask(true),
        Some(false) => {
            outcome.settle_ask(false);
            outcome.result.reason = Some(format!(
                "denied by an earlier \"always\" answer in this session: {}",
                request.prompt
            ));
        }
        None => {}
    }
}
