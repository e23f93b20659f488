//! `hooks <agent> --config FILE`, for every agent of [`AGENTS`](hooks_config::interop::AGENTS):
//! our policy as another agent's command hook. The agent's hook JSON comes on stdin; the answer
//! goes out in its protocol. Anything that keeps the policy from deciding (unreadable input, a
//! broken policy file) blocks, with the reason: a guard that cannot run must not wave
//! everything through.
//!
//! The policy is the file's with the machine's managed and the user's hooks files over it
//! ([`PolicyStack`]): a managed file that is there but cannot be loaded blocks too.
//!
//! The steps are shared with `hooks serve` (the same event answered over HTTP): read the
//! event ([`read_event`]), find the policy ([`Policy`]), decide ([`decide`]). Only where the
//! policy comes from differs: here the layers are loaded for this one event; the server keeps
//! them loaded.
//!
//! Every event is a new process, so the hooks' [session state](hooks_core::state) is kept in
//! files ([`FileState::from_env`]: `$HOOKS_STATE_DIR`, else the XDG state directory), keyed
//! by the event's `session_id`: what one event's hooks remember, the next event's find. An
//! `ask_user` whose question was answered "… always" earlier in the session is settled by that
//! answer instead of being put to the agent again.

use std::path::Path;

use hooks_config::interop::{Agent, AgentAnswer, MappedEvent, Rewrites};
use hooks_config::{Level, PolicyStack};
use hooks_core::module::{HookModule, Mounted};
use hooks_core::session::approval::{ApprovalRequest, Approvals};
use hooks_core::state::StateBackend;
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

/// `input`, the agent's hook JSON, as an event naming the agent (its `agent` field: the
/// principal of a Cedar policy); the fail-closed answer when it is not one.
pub fn read_event(agent: &dyn Agent, input: &str) -> Result<MappedEvent, AgentAnswer> {
    let mut mapped = agent
        .event_in(input)
        .map_err(|error| fail_closed(agent, None, &error.to_string()))?;
    mapped.name_agent(agent.name());
    Ok(mapped)
}

/// The policy layers mounted and ready to decide: their hooks and every `#[hook]` linked into
/// this binary, on one registry.
pub struct Policy {
    registry: HookRegistry,
    rewrites: Rewrites,
    _mounted: Mounted,
    /// The managed layer on a registry of its own, when a lower layer sits under it: a rewrite
    /// is put to it again (see [`recheck_rewrite`]).
    managed: Option<(HookRegistry, Mounted)>,
}

impl Policy {
    /// Mounts `stack`, with the session states in `state` (`None`: in memory, this policy's
    /// own); the problem when a hook does not mount.
    pub fn mount(stack: &PolicyStack, state: Option<impl StateBackend>) -> Result<Self, String> {
        let registry = HookRegistry::new();
        if let Some(state) = state {
            registry.set_state_backend(state);
        }
        registry
            .register_annotated(|_| true)
            .map_err(|error| error.to_string())?;
        let mounted = stack.mount(&registry).map_err(|error| error.to_string())?;
        let managed = match stack.layer(Level::Managed) {
            Some(config) if stack.layers().len() > 1 => {
                let managed = HookRegistry::new();
                let mounted = config.mount(&managed).map_err(|error| error.to_string())?;
                Some((managed, mounted))
            }
            _ => None,
        };
        Ok(Policy {
            registry,
            rewrites: Rewrites::of_stack(stack),
            _mounted: mounted,
            managed,
        })
    }
}

/// The policy's answer to `mapped`, in `agent`'s protocol: the event emitted, an `ask_user`
/// settled by an earlier "always" answer of the session, the outcome put in the agent's terms.
pub async fn decide(agent: &dyn Agent, policy: &Policy, mapped: &MappedEvent) -> AgentAnswer {
    let registry = &policy.registry;
    let mut outcome = registry.emit(&mapped.event, mapped.data.clone()).await;
    settle_remembered(registry, &mapped.event, &mapped.data, &mut outcome);
    if let Some((managed, _)) = &policy.managed {
        recheck_rewrite(managed, mapped, &mut outcome).await;
    }
    agent.answer(
        &mapped.agent_event,
        &mapped.data,
        &outcome,
        &policy.rewrites,
    )
}

/// Puts a rewritten call to the managed rules again, and lets their deny stand: a lower
/// layer's hook that runs after them must not turn a call the team forbids into one that runs.
/// (The managed layer's own hooks run twice on a rewritten call.)
async fn recheck_rewrite(managed: &HookRegistry, mapped: &MappedEvent, outcome: &mut EmitResult) {
    if outcome.modifications.is_empty() || outcome.action() == HookAction::Deny {
        return;
    }
    let Some(rewritten) = outcome.result.data.clone() else {
        return;
    };
    let check = managed.emit(&mapped.event, rewritten).await;
    if check.action() == HookAction::Deny {
        *outcome = check;
    }
}

/// The answer to one hook call of `agent` in a process of its own: `input` is what it wrote
/// on stdin, `config` the hooks file, loaded for this event.
pub fn answer(agent: &dyn Agent, config: &Path, input: &str) -> AgentAnswer {
    let mapped = match read_event(agent, input) {
        Ok(mapped) => mapped,
        Err(answer) => return answer,
    };
    let fail_closed = |problem: String| fail_closed(agent, Some(&mapped.agent_event), &problem);
    let stack = match load_layers(config) {
        Ok(stack) => stack,
        Err(error) => return fail_closed(unloadable(&error)),
    };
    hooks_config::one_event_per_process();
    let policy = match Policy::mount(&stack, FileState::from_env()) {
        Ok(policy) => policy,
        Err(problem) => return fail_closed(problem),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail_closed(format!("cannot start the runtime: {error}")),
    };
    let answer = runtime.block_on(decide(agent, &policy, &mapped));
    // The event's spans are exported before the answer: within the telemetry's timeout, and
    // whatever the collector does, the decision is already made.
    flush_telemetry();
    answer
}

/// Settles an `ask_user` by an earlier "… always" answer to the same question in the same
/// session, kept in the session state: a remembered allow drops the question (the agent's own
/// permission rules still apply), a remembered deny denies.
fn settle_remembered(registry: &HookRegistry, event: &str, data: &Value, outcome: &mut EmitResult) {
    if outcome.action() != HookAction::AskUser {
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
