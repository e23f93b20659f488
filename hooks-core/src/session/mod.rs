//! The session layer: [`HookSession`], applying merged results to a running agent session.
//!
//! An emit says what the hooks decided; the session carries it out: asks for approval,
//! delivers injections within the policy (persistent ones to the history, ephemeral ones to
//! the next model call only), shows user messages, and runs whole tool calls through
//! `tool:pre` → approval → the tool → `tool:post` or `tool:error` (the steps are in
//! [`gate`]).
//!
//! A session is configured in one place, [`HookSession::builder`]: the approval provider,
//! the injection policy, the history and the display. The integrations (rig, MCP) take the
//! same builder.
//!
//! This layer is built on the kernel (the crate root: [`HookRegistry`], [`EmitResult`],
//! [`crate::state`], ...) and the kernel never uses it, a rule `tests/layers.rs` holds. Its
//! parts: [`approval`] (the provider that answers `ask_user`), [`injection`] (the policy
//! injections are admitted under), [`sinks`] (where injections and messages go), [`tool`] (the
//! tools a session calls), [`gate`] (the steps of a gated operation) and [`trace`] (their
//! spans). Their types are named here as well, so that `hooks_core::session::ToolCallGate`
//! and `hooks_core::session::gate::ToolCallGate` are the same.

pub mod approval;
pub mod gate;
pub mod injection;
pub mod sinks;
pub mod tool;
pub mod trace;

pub use approval::{
    ApprovalDecision, ApprovalError, ApprovalProvider, ApprovalRequest, DecisionSource,
    ScriptedAnswer, ScriptedApprovals,
};
pub use gate::{BeforeTool, Gated, ToolCallGate};
pub use injection::{Disposition, InjectionAudit, InjectionPolicy, Oversize, Placement};
pub use sinks::{
    ContextMessage, ContextSink, DisplaySink, InMemoryContext, InMemoryDisplay, MessageKind,
};
pub use tool::{Tool, ToolError, tool_fn};

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};

use self::approval::Approvals;
use self::injection::{INJECTION_AUDIT_EVENT, admit, estimate_tokens};
use crate::events::fields::SESSION_ID;
use crate::state::{SessionState, StateError};
use crate::sync::lock;
use crate::{Decide, EmitResult, HookRegistry, MessageLevel, UserMessage, timestamp};

/// The name under which the session's own warnings (truncated or rejected injections) reach
/// the display.
pub const POLICY_HOOK_NAME: &str = "injection_policy";

/// Why an operation did not proceed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Blocked {
    /// A hook denied it.
    ByHook {
        /// The hook's reason, for the agent.
        reason: String,
        /// The hook that denied.
        hook: Option<Arc<str>>,
    },
    /// A hook asked, and the approval was not given (by the user, or by the default).
    ByApproval {
        /// The question that was asked.
        prompt: String,
        /// The decision, with how it was reached.
        decision: ApprovalDecision,
    },
    /// A hook changed the data into something the operation cannot use.
    InvalidModification {
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocked::ByHook { reason, .. } => write!(f, "denied by a hook: {reason}"),
            Blocked::ByApproval { prompt, decision } => {
                write!(f, "not approved ({}): {prompt}", decision.source)
            }
            Blocked::InvalidModification { reason } => write!(f, "blocked: {reason}"),
        }
    }
}

/// What became of a tool call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolCallStatus {
    /// The tool ran; its output, as the `tool:post` hooks left it.
    Ran {
        /// The output.
        output: Value,
    },
    /// The tool did not run.
    Blocked(Blocked),
    /// The tool ran, but a `tool:post` hook withheld its output from the agent.
    Withheld {
        /// The hook's reason.
        reason: String,
    },
    /// The tool failed.
    Errored {
        /// Its error.
        error: String,
    },
}

/// The result of [`HookSession::run_tool`], and of a [`ToolCallGate`]'s
/// steps.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallOutcome {
    /// What happened.
    pub status: ToolCallStatus,
    /// The input the tool received (or would have), after the `tool:pre` hooks.
    pub input: Value,
    /// Every injection applied during the call, in order.
    pub injections: Vec<InjectionAudit>,
    /// Whether a `tool:post` (or `tool:error`) hook replaced the event data, and so perhaps
    /// the output (or the error); when false, the output is the tool's own, moved through
    /// untouched (an adapter holding the tool's native result can send that instead of
    /// converting the output back).
    pub output_rewritten: bool,
}

impl ToolCallOutcome {
    /// What the agent is told as the result of its tool call.
    pub fn agent_message(&self) -> String {
        self.status.agent_message()
    }
}

impl ToolCallStatus {
    /// What the agent is told as the result of its tool call.
    pub fn agent_message(&self) -> String {
        match self {
            ToolCallStatus::Ran { output } => match output {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            },
            ToolCallStatus::Blocked(blocked) => format!("Tool call {blocked}"),
            ToolCallStatus::Withheld { reason } => {
                format!("The tool ran, but its output was withheld: {reason}")
            }
            ToolCallStatus::Errored { error } => format!("The tool failed: {error}"),
        }
    }
}

/// Whether an operation (a prompt, a model request) proceeds, and with what.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Proceed<T> {
    /// It proceeds with this value (as the hooks left it).
    Yes(T),
    /// It does not.
    No(Blocked),
}

/// A model request cleared by the `provider:request` hooks.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// The request, as the hooks left it (e.g. with secrets redacted).
    pub request: Value,
    /// Ephemeral injections to add to this call only; they are not in the stored history.
    pub ephemeral: Vec<ContextMessage>,
}

#[derive(Default)]
struct TurnState {
    turn_tokens: usize,
    ephemeral: Vec<ContextMessage>,
    audits: Vec<InjectionAudit>,
}

/// The application side of the hooks for one agent session.
///
/// Every event the session emits carries its `session_id` (unless the emitter set one), the
/// key of its [state](crate::state), as the events of Claude Code, Gemini CLI and Codex CLI do.
pub struct HookSession {
    registry: HookRegistry,
    /// What decides its events when it is more than the registry's emit.
    decider: Option<Arc<dyn Decide>>,
    session_id: Arc<str>,
    approvals: Approvals,
    policy: InjectionPolicy,
    context: Arc<dyn ContextSink>,
    display: Arc<dyn DisplaySink>,
    state: Mutex<TurnState>,
}

impl fmt::Debug for HookSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookSession")
            .field("session_id", &self.session_id)
            .field("registry", &self.registry)
            .field("approvals", &self.approvals)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// Builds a [`HookSession`]; everything but the registry has a default.
///
/// This is the one place a session's policy is set: the integrations (`hooks-rig`,
/// `hooks-mcp`) take a builder too, and a registry alone converts into one with every default.
pub struct HookSessionBuilder {
    registry: HookRegistry,
    decider: Option<Arc<dyn Decide>>,
    session_id: Option<String>,
    provider: Option<Arc<dyn ApprovalProvider>>,
    policy: InjectionPolicy,
    context: Option<Arc<dyn ContextSink>>,
    display: Option<Arc<dyn DisplaySink>>,
}

impl HookSessionBuilder {
    /// Decides the session's events by `decider` (layers around a registry, such as
    /// hooks-config's `Policy`) instead of the registry's emit alone; the session's registry
    /// becomes `decider`'s, where its approvals, audits and state live.
    #[must_use]
    pub fn decide_with(mut self, decider: Arc<dyn Decide>) -> Self {
        self.registry = decider.registry().clone();
        self.decider = Some(decider);
        self
    }

    /// Who is asked on `ask_user`. Without one, every request gets its default (deny unless
    /// the hook set allow).
    #[must_use]
    pub fn approvals(mut self, provider: Arc<dyn ApprovalProvider>) -> Self {
        self.provider = Some(provider);
        self
    }

    /// The session's id: the `session_id` of every event it emits, and the key of its
    /// [state](crate::state). Default: the registry's `session_id` default field if it has
    /// one, otherwise a new id unique to this process and time. Give the agent's own id when
    /// there is one, so that a state kept in a file store follows the agent's session.
    #[must_use]
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// The injection policy (default: [`InjectionPolicy::default`]).
    #[must_use]
    pub fn injection_policy(mut self, policy: InjectionPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The stored history (default: an [`InMemoryContext`]).
    #[must_use]
    pub fn context(mut self, context: Arc<dyn ContextSink>) -> Self {
        self.context = Some(context);
        self
    }

    /// Where user messages go (default: an [`InMemoryDisplay`]).
    #[must_use]
    pub fn display(mut self, display: Arc<dyn DisplaySink>) -> Self {
        self.display = Some(display);
        self
    }

    /// The history to use unless [`context`](Self::context) gives one: for an integration
    /// whose default differs from the kernel's.
    #[must_use]
    pub fn default_context(mut self, context: impl FnOnce() -> Arc<dyn ContextSink>) -> Self {
        self.context.get_or_insert_with(context);
        self
    }

    /// The display to use unless [`display`](Self::display) gives one: for an integration
    /// whose default differs from the kernel's.
    #[must_use]
    pub fn default_display(mut self, display: impl FnOnce() -> Arc<dyn DisplaySink>) -> Self {
        self.display.get_or_insert_with(display);
        self
    }

    /// The registry the session will emit on.
    pub fn registry(&self) -> &HookRegistry {
        &self.registry
    }

    /// The session.
    pub fn build(self) -> HookSession {
        let session_id: Arc<str> = match self.session_id {
            Some(id) => id.into(),
            None => match self.registry.default_field(SESSION_ID) {
                Some(Value::String(id)) => id.into(),
                _ => new_session_id().into(),
            },
        };
        let mut approvals = Approvals::new(self.provider, self.registry.clone());
        // An id the state refuses keeps the answers in memory; `state()` says why.
        if let Ok(state) = self.registry.state().session(&session_id) {
            approvals = approvals.remembering_in(state);
        }
        HookSession {
            approvals,
            session_id,
            registry: self.registry,
            decider: self.decider,
            policy: self.policy,
            context: self
                .context
                .unwrap_or_else(|| Arc::new(InMemoryContext::new())),
            display: self
                .display
                .unwrap_or_else(|| Arc::new(InMemoryDisplay::new())),
            state: Mutex::new(TurnState::default()),
        }
    }
}

impl fmt::Debug for HookSessionBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookSessionBuilder")
            .field("registry", &self.registry)
            .field("approvals", &self.provider.is_some())
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl From<HookRegistry> for HookSessionBuilder {
    /// A builder over `registry` with every default.
    fn from(registry: HookRegistry) -> Self {
        HookSession::builder(registry)
    }
}

impl HookSession {
    /// Starts building a session over `registry`.
    pub fn builder(registry: HookRegistry) -> HookSessionBuilder {
        HookSessionBuilder {
            registry,
            decider: None,
            session_id: None,
            provider: None,
            policy: InjectionPolicy::default(),
            context: None,
            display: None,
        }
    }

    /// The registry the session emits on.
    pub fn registry(&self) -> &HookRegistry {
        &self.registry
    }

    /// The session's id, which every event it emits carries as `session_id`.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The session's [state](crate::state), in the registry's store
    /// ([`HookRegistry::state`]); an error when the session id cannot key a state.
    pub fn state(&self) -> Result<SessionState, StateError> {
        self.registry.state().session(&self.session_id)
    }

    /// Emits `event` on the registry (or puts it to the
    /// [decider](HookSessionBuilder::decide_with)) with the session's `session_id` added
    /// (unless `data` has one), without applying the outcome; [`gate`](HookSession::gate)
    /// also applies it.
    pub async fn emit(&self, event: &str, data: Value) -> EmitResult {
        let data = match data {
            Value::Null => Value::Object(Map::new()),
            other => other,
        };
        let data = match data {
            Value::Object(mut fields) => {
                if !fields.contains_key(SESSION_ID) {
                    fields.insert(SESSION_ID.to_owned(), Value::from(&*self.session_id));
                }
                Value::Object(fields)
            }
            // Passed on as it is: the registry warns about data that is not an object.
            other => other,
        };
        match &self.decider {
            Some(decider) => decider.decide(event, data).await,
            None => self.registry.emit(event, data).await,
        }
    }

    fn turn(&self) -> MutexGuard<'_, TurnState> {
        lock(&self.state)
    }

    /// Starts a new turn: the injection budget is whole again. [`HookSession::submit_prompt`]
    /// calls it.
    pub fn start_turn(&self) {
        self.turn().turn_tokens = 0;
    }

    /// Takes the ephemeral injections waiting for the next model call.
    pub fn take_ephemeral(&self) -> Vec<ContextMessage> {
        std::mem::take(&mut self.turn().ephemeral)
    }

    /// Every injection audited so far, in order.
    pub fn audit_log(&self) -> Vec<InjectionAudit> {
        self.turn().audits.clone()
    }

    /// Applies what an emit decided that is not a decision: its injections (within the
    /// policy, each audited and its audit emitted as `injection:audit`), its user messages, and
    /// a warning for each hook that failed. Returns the audits of this call.
    pub async fn apply(&self, outcome: &EmitResult) -> Vec<InjectionAudit> {
        for message in &outcome.messages {
            self.display.show(message);
        }
        for failure in &outcome.failures {
            self.display.show(&UserMessage::new(
                format!("{failure}; it was skipped"),
                MessageLevel::Warning,
                failure.hook.clone(),
                failure.event.clone(),
            ));
        }
        let mut audits = Vec::with_capacity(outcome.injections.len());
        for injection in &outcome.injections {
            let audit = self.deliver(injection);
            if let Some(warning) = audit.disposition.warning(&injection.hook) {
                self.warn(warning, &injection.event);
            }
            self.emit(INJECTION_AUDIT_EVENT, audit.to_json()).await;
            audits.push(audit);
        }
        audits
    }

    /// Checks one injection against the policy and delivers it to its place.
    fn deliver(&self, injection: &crate::Injection) -> InjectionAudit {
        let mut state = self.turn();
        let (delivered, disposition) = admit(&self.policy, &mut state.turn_tokens, &injection.text);
        let (text, placement) = match delivered {
            None => (injection.text.clone(), Placement::Rejected),
            Some(text) => {
                let message =
                    ContextMessage::injection(injection.role, text.clone(), injection.hook.clone());
                let placement = if injection.ephemeral {
                    state.ephemeral.push(message);
                    Placement::NextModelCall
                } else if injection.append_to_last_tool_result
                    && self.context.append_to_last_tool_result(&text)
                {
                    Placement::AppendedToToolResult
                } else {
                    self.context.add_message(message);
                    Placement::NewMessage
                };
                (text, placement)
            }
        };
        let audit = InjectionAudit {
            hook: injection.hook.clone(),
            event: injection.event.clone(),
            at: timestamp::now(),
            role: injection.role,
            ephemeral: injection.ephemeral,
            tokens: if placement == Placement::Rejected {
                0
            } else {
                estimate_tokens(&text)
            },
            text,
            placement,
            disposition,
        };
        state.audits.push(audit.clone());
        audit
    }

    fn warn(&self, text: String, event: &Arc<str>) {
        self.display.show(&UserMessage::new(
            text,
            MessageLevel::Warning,
            POLICY_HOOK_NAME,
            event.clone(),
        ));
    }

    /// Stores what the agent is told of a tool call as the call's result in the history
    /// (only rendered when the history keeps it).
    pub(crate) fn record_result(&self, agent_message: impl FnOnce() -> String) {
        if self.context.keeps_history() {
            self.context
                .add_message(ContextMessage::tool_result(agent_message()));
        }
    }

    /// The approvals of the session.
    pub(crate) fn approvals(&self) -> &Approvals {
        &self.approvals
    }
}

/// A JSON object of `fields`, moved in. (`json!` serialises its operands by reference, which
/// would copy a tool input or a whole model request.)
/// A session id unique to this process and moment: the process id, the time in nanoseconds
/// and a counter.
fn new_session_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    format!(
        "session-{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

pub(crate) fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}
