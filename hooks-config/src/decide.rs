//! [`Policy`]: the policy layers mounted and ready to decide, the one entry point of every front
//! end of the `hooks` binary (the agent adapters, `hooks serve`, `hooks mcp-proxy`, `hooks
//! eval`, `hooks test`, `hooks replay`) and of the Python package, so that none of them can
//! decide an event differently from the others.
//!
//! A decision is three layers, each a [`Decide`] around the next, in tower's sense:
//!
//! 1. **the emit**: every layer of the [`PolicyStack`] and every `#[hook]` linked in, on one
//!    registry, managed first;
//! 2. **the managed re-check** ([`ManagedRecheck`]): a call a lower layer's hook rewrote is put
//!    to the managed rules again; their deny stands, and so does their ask (a lower hook that
//!    runs after them must not turn a call the team forbids, or wants asked, into one that runs);
//! 3. **the remembered answers** ([`SettleRemembered`]): an `ask_user` whose question was
//!    answered "… always" earlier in the same session is settled by that answer.

use std::fmt;
use std::sync::{Arc, Mutex};

use hooks_core::module::{HookModule, Mounted};
use hooks_core::session::approval::{ApprovalRequest, Approvals};
use hooks_core::state::SessionId;
use hooks_core::{
    BoxFuture, Decide, EmitResult, HookAction, HookRegistry, HookResult, StateBackend, StateError,
};
use serde_json::{Map, Value};

use crate::interop::Rewrites;
use crate::{Layer, Level, PolicyStack};

/// The modules that only record what happened (`logging`, `telemetry`): a trial leaves them
/// out, so that a run away from any agent never writes into the log it may be reading.
pub const RECORDING_MODULES: &[&str] = &["logging", "telemetry"];

/// The policy layers mounted and ready to decide: build it with [`Policy::builder`], ask it
/// with [`Policy::decide`].
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use hooks_config::{Layer, Level, Policy, PolicyStack};
/// use serde_json::json;
///
/// let file = hooks_config::load_str(
///     "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash, args: {command: 'rm *'}}\n      action: block\n      message: no rm\n",
///     std::path::Path::new("hooks.yaml"),
///     std::path::Path::new("."),
/// )?;
/// let stack = PolicyStack::from_layers(vec![Layer { level: Level::Project, config: file }]);
/// let policy = Policy::builder(&stack).build()?;
/// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
/// let outcome = policy
///     .decide("tool:pre", json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf x"}}))
///     .await;
/// assert!(outcome.is_denied());
/// # });
/// # Ok(())
/// # }
/// ```
pub struct Policy {
    layers: SettleRemembered<ManagedRecheck<HookRegistry>>,
    rewrites: Rewrites,
    /// Kept for as long as the policy lives: the stack's handlers stay mounted.
    _mounted: Mounted,
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policy")
            .field("registry", self.registry())
            .field("managed_recheck", &self.layers.inner.managed.is_some())
            .finish_non_exhaustive()
    }
}

/// How a [`Policy`] is mounted; every option has the guard's default.
pub struct PolicyBuilder<'a> {
    stack: &'a PolicyStack,
    sessions: Sessions,
    annotated: bool,
    recording: bool,
}

/// Where a policy keeps the sessions' state.
enum Sessions {
    /// In memory, the policy's own.
    Own,
    /// In a backend it shares.
    Shared(Arc<dyn StateBackend>),
    /// Read from a backend it shares, changed only in its own memory.
    ReadOnly(Arc<dyn StateBackend>),
}

impl fmt::Debug for PolicyBuilder<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicyBuilder")
            .field("stack", &self.stack.summary())
            .field(
                "sessions",
                &match self.sessions {
                    Sessions::Own => "own",
                    Sessions::Shared(_) => "shared",
                    Sessions::ReadOnly(_) => "read only",
                },
            )
            .field("annotated", &self.annotated)
            .field("recording", &self.recording)
            .finish()
    }
}

impl<'a> PolicyBuilder<'a> {
    /// The sessions' [state](hooks_core::state) in `backend` (default: in memory, this
    /// policy's own): what one event's hooks remember, the next event's find, and where the
    /// "… always" answers are looked up.
    #[must_use]
    pub fn state(mut self, backend: impl StateBackend) -> Self {
        self.sessions = Sessions::Shared(Arc::new(backend));
        self
    }

    /// The sessions' state read from `backend` and never written to it: the hooks' changes
    /// stay in this policy's memory. For a trial run away from any agent that must see what
    /// the sessions remembered without changing it.
    #[must_use]
    pub fn state_read_only(mut self, backend: impl StateBackend) -> Self {
        self.sessions = Sessions::ReadOnly(Arc::new(backend));
        self
    }

    /// Whether the `#[hook]` functions linked into this program are mounted beside the stack
    /// (default: yes, as the guard mounts them).
    #[must_use]
    pub fn annotated(mut self, mount: bool) -> Self {
        self.annotated = mount;
        self
    }

    /// Whether the [recording modules](RECORDING_MODULES) of every layer are mounted (default:
    /// yes). A trial leaves them out: it decides what the guard would, and records nothing.
    #[must_use]
    pub fn recording(mut self, mount: bool) -> Self {
        self.recording = mount;
        self
    }

    /// Mounts the policy; the problem when a hook does not mount.
    pub fn build(self) -> Result<Policy, String> {
        let quiet;
        let stack = if self.recording {
            self.stack
        } else {
            quiet = without_recording(self.stack);
            &quiet
        };
        let registry = HookRegistry::new();
        match self.sessions {
            Sessions::Own => {}
            Sessions::Shared(state) => registry.set_state_backend(state),
            Sessions::ReadOnly(state) => registry.set_state_backend(ReadOnlyState::over(state)),
        }
        if self.annotated {
            registry
                .register_annotated(|_| true)
                .map_err(|error| error.to_string())?;
        }
        let mounted = stack.mount(&registry).map_err(|error| error.to_string())?;
        // The managed layer on a registry of its own, when a lower layer sits under it.
        let managed = match stack.layer(Level::Managed) {
            Some(config) if stack.layers().len() > 1 => {
                let managed = HookRegistry::new();
                let mounted = config.mount(&managed).map_err(|error| error.to_string())?;
                Some((managed, mounted))
            }
            _ => None,
        };
        Ok(Policy {
            layers: SettleRemembered {
                inner: ManagedRecheck {
                    inner: registry,
                    managed,
                },
            },
            rewrites: Rewrites::of_stack(stack),
            _mounted: mounted,
        })
    }
}

impl Policy {
    /// Starts mounting `stack`, with the guard's defaults: sessions in memory, the `#[hook]`s
    /// linked in, every module.
    pub fn builder(stack: &PolicyStack) -> PolicyBuilder<'_> {
        PolicyBuilder {
            stack,
            sessions: Sessions::Own,
            annotated: true,
            recording: true,
        }
    }

    /// The decision on `event` with `data`: the emit, then a lower layer's rewrite put to the
    /// managed rules again ([`ManagedRecheck`]), then an `ask_user` settled by the session's
    /// remembered answer ([`SettleRemembered`]).
    pub async fn decide(&self, event: &str, data: Value) -> EmitResult {
        self.layers.decide(event, data).await
    }

    /// The registry the stack is mounted on (its state, its observers, its default fields).
    pub fn registry(&self) -> &HookRegistry {
        self.layers.inner.inner.registry()
    }

    /// The entries whose rewrites an agent adapter passes on as applied (`rewrite: apply`).
    pub fn rewrites(&self) -> &Rewrites {
        &self.rewrites
    }
}

impl Decide for Policy {
    fn registry(&self) -> &HookRegistry {
        Policy::registry(self)
    }

    fn decide<'a>(&'a self, event: &'a str, data: Value) -> BoxFuture<'a, EmitResult> {
        self.layers.decide(event, data)
    }
}

/// `stack` without its recording modules.
fn without_recording(stack: &PolicyStack) -> PolicyStack {
    let layers = stack
        .layers()
        .iter()
        .map(|layer| {
            let mut config = layer.config.clone();
            config
                .modules
                .retain(|module| !RECORDING_MODULES.contains(&module.name.as_str()));
            Layer {
                level: layer.level,
                config,
            }
        })
        .collect();
    PolicyStack::from_layers(layers)
}

/// The layer that puts a rewritten call to the managed rules again, around `inner`: a lower
/// layer's hook runs after the managed ones (the stack mounts managed first), so the data the
/// managed rules judged is not the data that runs. Their deny stands; so does their ask, with
/// the rewritten data kept for when it is approved. (The managed hooks run twice on a
/// rewritten call.)
pub struct ManagedRecheck<D> {
    inner: D,
    /// The managed layer alone, when a lower layer sits under it; `None`, nothing to re-check.
    managed: Option<(HookRegistry, Mounted)>,
}

impl<D: Decide> Decide for ManagedRecheck<D> {
    fn registry(&self) -> &HookRegistry {
        self.inner.registry()
    }

    fn decide<'a>(&'a self, event: &'a str, data: Value) -> BoxFuture<'a, EmitResult> {
        Box::pin(async move {
            let mut outcome = self.inner.decide(event, data).await;
            let Some((managed, _)) = &self.managed else {
                return outcome;
            };
            if !outcome.is_modified() || outcome.is_denied() {
                return outcome;
            }
            let Some(rewritten) = outcome.result.data.clone() else {
                return outcome;
            };
            let check = managed.emit(event, rewritten).await;
            match check.action() {
                HookAction::Deny => outcome = check,
                HookAction::AskUser if outcome.action() != HookAction::AskUser => {
                    ask_as(&mut outcome, check);
                }
                _ => {}
            }
            outcome
        })
    }
}

/// `outcome` turned into the managed layer's question in `check`: what the chain merged
/// (the rewritten data, injections, messages) stays.
fn ask_as(outcome: &mut EmitResult, check: EmitResult) {
    let asked = check.result;
    outcome.result = HookResult {
        action: HookAction::AskUser,
        reason: asked.reason,
        approval_prompt: asked.approval_prompt,
        approval_options: asked.approval_options,
        approval_timeout: asked.approval_timeout,
        approval_default: asked.approval_default,
        ..std::mem::take(&mut outcome.result)
    };
    outcome.decided_by = check.decided_by;
}

/// The layer that settles an `ask_user` by an earlier "… always" answer to the same question
/// in the same session, kept in the session state, around `inner`: a remembered allow drops
/// the question (the agent's own permission rules still apply), a remembered deny denies.
pub struct SettleRemembered<D> {
    inner: D,
}

impl<D: Decide> Decide for SettleRemembered<D> {
    fn registry(&self) -> &HookRegistry {
        self.inner.registry()
    }

    fn decide<'a>(&'a self, event: &'a str, data: Value) -> BoxFuture<'a, EmitResult> {
        Box::pin(async move {
            let session = session_of(&data);
            let mut outcome = self.inner.decide(event, data).await;
            if outcome.action() == HookAction::AskUser {
                settle(self.registry(), event, session.as_ref(), &mut outcome);
            }
            outcome
        })
    }
}

/// The event's `session_id`, the key of its state, as an event carrying only it.
fn session_of(data: &Value) -> Option<Value> {
    let id = data.get(hooks_core::events::fields::SESSION_ID)?;
    let mut key = Map::new();
    key.insert(
        hooks_core::events::fields::SESSION_ID.to_owned(),
        id.clone(),
    );
    Some(Value::Object(key))
}

/// Settles `outcome`'s question by the session's remembered answer, if it has one.
fn settle(registry: &HookRegistry, event: &str, session: Option<&Value>, outcome: &mut EmitResult) {
    let Some(session) = session else {
        return;
    };
    let Ok(state) = registry.state().for_event(session) else {
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

/// The states of a backend read, never written: a session's first change copies its state
/// into memory, where every later read and change of it happens.
struct ReadOnlyState {
    backend: Arc<dyn StateBackend>,
    changed: Mutex<std::collections::HashMap<SessionId, Map<String, Value>>>,
}

impl ReadOnlyState {
    fn over(backend: Arc<dyn StateBackend>) -> Self {
        ReadOnlyState {
            backend,
            changed: Mutex::default(),
        }
    }
}

impl StateBackend for ReadOnlyState {
    fn load(&self, session: &SessionId) -> Result<Map<String, Value>, StateError> {
        let changed = hooks_core::sync::lock(&self.changed);
        match changed.get(session) {
            Some(state) => Ok(state.clone()),
            None => self.backend.load(session),
        }
    }

    fn update(
        &self,
        session: &SessionId,
        change: &mut dyn FnMut(&mut Map<String, Value>),
    ) -> Result<(), StateError> {
        let mut changed = hooks_core::sync::lock(&self.changed);
        let mut state = match changed.get(session) {
            Some(state) => state.clone(),
            None => self.backend.load(session)?,
        };
        change(&mut state);
        changed.insert(session.clone(), state);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use hooks_core::owned_fn;
    use hooks_core::state::MemoryState;
    use serde_json::json;

    use super::*;

    fn command(data: &Value) -> &str {
        data["tool_input"]["command"].as_str().unwrap_or_default()
    }

    /// The managed rules of the tests: `curl` denied, `deploy` asked; they count their runs.
    fn managed(runs: Arc<AtomicUsize>) -> HookRegistry {
        let registry = HookRegistry::new();
        registry
            .register(
                "tool:pre",
                owned_fn(move |_event, data| {
                    runs.fetch_add(1, Ordering::SeqCst);
                    async move {
                        match command(&data) {
                            c if c.starts_with("curl") => HookResult::deny("managed: no curl"),
                            c if c.starts_with("deploy") => HookResult::ask("managed: deploy?"),
                            _ => HookResult::cont(),
                        }
                    }
                }),
                0,
                "managed",
            )
            .unwrap();
        registry
    }

    /// The whole chain: the managed rules, then a lower hook rewriting `echo <x>` into `<x>`.
    fn chain(runs: Arc<AtomicUsize>) -> ManagedRecheck<HookRegistry> {
        let registry = managed(Arc::new(AtomicUsize::new(0)));
        registry
            .register(
                "tool:pre",
                |_event: &str, data: &Value| {
                    let rewritten = command(data).strip_prefix("echo ").map(|rest| {
                        let mut data = data.clone();
                        data["tool_input"]["command"] = json!(rest);
                        data
                    });
                    async move { rewritten.map_or_else(HookResult::cont, HookResult::modify) }
                },
                10,
                "lower",
            )
            .unwrap();
        ManagedRecheck {
            inner: registry,
            managed: Some((managed(runs), Mounted::new("managed"))),
        }
    }

    fn call(command: &str) -> Value {
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "session_id": "s1"})
    }

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn a_lower_rewrite_into_a_managed_deny_is_denied() {
        let runs = Arc::new(AtomicUsize::new(0));
        let outcome = block_on(chain(runs.clone()).decide("tool:pre", call("echo curl x")));
        assert!(outcome.is_denied(), "{outcome:?}");
        assert_eq!(outcome.result.reason.as_deref(), Some("managed: no curl"));
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_lower_rewrite_into_a_managed_ask_is_asked_with_the_rewritten_call() {
        let outcome = block_on(
            chain(Arc::new(AtomicUsize::new(0))).decide("tool:pre", call("echo deploy now")),
        );
        assert_eq!(outcome.action(), HookAction::AskUser, "{outcome:?}");
        assert_eq!(
            outcome.result.approval_prompt.as_deref(),
            Some("managed: deploy?")
        );
        assert_eq!(command(outcome.data()), "deploy now");
        assert_eq!(outcome.decided_by.as_deref(), Some("managed"));
        assert_eq!(outcome.modifications.len(), 1);
    }

    #[test]
    fn a_call_nobody_rewrote_is_not_put_to_the_managed_rules_again() {
        let runs = Arc::new(AtomicUsize::new(0));
        let outcome = block_on(chain(runs.clone()).decide("tool:pre", call("ls")));
        assert_eq!(outcome.action(), HookAction::Continue);
        let harmless = block_on(chain(runs.clone()).decide("tool:pre", call("echo ls")));
        assert_eq!(harmless.action(), HookAction::Modify);
        // Only the rewritten call ran the managed rules a second time.
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    /// A registry that asks "ship?" on every call, its sessions in `state`.
    fn asking(state: MemoryState) -> SettleRemembered<HookRegistry> {
        let registry = HookRegistry::new();
        registry.set_state_backend(state);
        registry
            .register(
                "tool:pre",
                |_event: &str, _data: &Value| async { HookResult::ask("ship?") },
                0,
                "asker",
            )
            .unwrap();
        SettleRemembered { inner: registry }
    }

    fn remember(layer: &SettleRemembered<HookRegistry>, session: &str, allowed: bool) {
        let state = layer.registry().state().session(session).unwrap();
        Approvals::new(None, layer.registry().clone())
            .remembering_in(state)
            .remember("ship?", allowed);
    }

    #[test]
    fn a_remembered_answer_settles_the_same_question_of_the_same_session() {
        let layer = asking(MemoryState::new());
        remember(&layer, "yes", true);
        remember(&layer, "no", false);
        let decide = |session: &str| {
            block_on(layer.decide("tool:pre", json!({"tool_name": "X", "session_id": session})))
        };
        assert_eq!(decide("yes").action(), HookAction::Continue);
        let denied = decide("no");
        assert!(denied.is_denied());
        assert!(denied.result.reason.unwrap().contains("\"always\""));
        assert_eq!(decide("other").action(), HookAction::AskUser);
        let without_session = block_on(layer.decide("tool:pre", json!({"tool_name": "X"})));
        assert_eq!(without_session.action(), HookAction::AskUser);
    }

    #[test]
    fn a_read_only_state_is_read_and_never_written() {
        let backend = Arc::new(MemoryState::new());
        let session = SessionId::new("s1").unwrap();
        backend
            .update(&session, &mut |state| {
                state.insert("seen".into(), json!(1));
            })
            .unwrap();
        let read_only = ReadOnlyState::over(backend.clone());
        assert_eq!(read_only.load(&session).unwrap()["seen"], 1);
        read_only
            .update(&session, &mut |state| {
                state.insert("seen".into(), json!(2));
            })
            .unwrap();
        assert_eq!(read_only.load(&session).unwrap()["seen"], 2);
        assert_eq!(backend.load(&session).unwrap()["seen"], 1);
    }

    #[test]
    fn a_policy_without_recording_leaves_out_the_logging_module() {
        let dir =
            std::env::temp_dir().join(format!("hooks-policy-recording-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("events.jsonl");
        let yaml = format!(
            "modules:\n  logging: {{path: {:?}}}\n",
            log.display().to_string()
        );
        let config = crate::load_str(&yaml, &dir.join("hooks.yaml"), &dir).unwrap();
        let stack = PolicyStack::from_layers(vec![Layer {
            level: Level::Project,
            config,
        }]);
        for (recording, written) in [(false, false), (true, true)] {
            let policy = Policy::builder(&stack)
                .recording(recording)
                .build()
                .unwrap();
            block_on(policy.decide("tool:pre", call("ls")));
            assert_eq!(log.exists(), written, "recording: {recording}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
