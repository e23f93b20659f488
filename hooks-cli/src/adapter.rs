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
//! event ([`read_event`]), mount the policy ([`mount`]), decide ([`decide`], the one
//! [`Policy::decide`] of every front end). Only where the policy comes from differs: here the
//! layers are loaded for this one event; the server keeps them loaded.
//!
//! Every event is a new process, so the hooks' [session state](hooks_core::state) is kept in
//! files ([`FileState::from_env`]: `$HOOKS_STATE_DIR`, else the XDG state directory), keyed
//! by the event's `session_id`: what one event's hooks remember, the next event's find. An
//! `ask_user` whose question was answered "… always" earlier in the session is settled by that
//! answer instead of being put to the agent again.

use std::path::Path;

use hooks_config::interop::{Agent, AgentAnswer, MappedEvent};
use hooks_config::{Policy, PolicyStack};
use hooks_core::state::StateBackend;
use hooks_std::state_file::FileState;

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

/// The policy of `stack` as every front end of the binary mounts it: every `#[hook]` linked
/// in, the sessions' state in `state` (`None`: in memory, the policy's own).
pub fn mount(stack: &PolicyStack, state: Option<impl StateBackend>) -> Result<Policy, String> {
    let builder = Policy::builder(stack);
    match state {
        Some(state) => builder.state(state),
        None => builder,
    }
    .build()
}

/// Whether the guard's configuration is what it was at the session's first event (see
/// [`integrity`](crate::integrity)); an event without a session has nothing to compare with.
pub fn unchanged(
    agent: &dyn Agent,
    config: &Path,
    policy: &Policy,
    mapped: &MappedEvent,
    state_dir: Option<&Path>,
) -> Result<(), String> {
    match policy.registry().state().for_event(&mapped.data) {
        Ok(state) => crate::integrity::check(agent, config, &state, state_dir),
        Err(_) => Ok(()),
    }
}

/// The policy's answer to `mapped`, in `agent`'s protocol: the policy's decision
/// ([`Policy::decide`]) put in the agent's terms.
pub async fn decide(agent: &dyn Agent, policy: &Policy, mapped: &MappedEvent) -> AgentAnswer {
    let outcome = policy.decide(&mapped.event, mapped.data.clone()).await;
    agent.answer(
        &mapped.agent_event,
        &mapped.data,
        &outcome,
        policy.rewrites(),
    )
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
    let files = FileState::from_env();
    let state_dir = files.as_ref().map(|state| state.dir().to_path_buf());
    let policy = match mount(&stack, files) {
        Ok(policy) => policy,
        Err(problem) => return fail_closed(problem),
    };
    if let Err(problem) = unchanged(agent, config, &policy, &mapped, state_dir.as_deref()) {
        return fail_closed(problem);
    }
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
