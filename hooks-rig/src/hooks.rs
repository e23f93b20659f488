//! [`RigHooks`]: a [`HookRegistry`] and the application's policy as one rig [`AgentHook`].

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use hooks_core::approval::{ApprovalProvider, Approvals};
use hooks_core::events::fields;
use hooks_core::events::{
    PROMPT_COMPLETE, PROMPT_SUBMIT, PROVIDER_REQUEST, TOOL_ERROR, TOOL_POST, TOOL_PRE,
};
use hooks_core::injection::InjectionAudit;
use hooks_core::session::{Blocked, HookSession, ToolCallStatus};
use hooks_core::sinks::DisplaySink;
use hooks_core::{HookAction, HookRegistry, InjectionPolicy};
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent,
    HookContext, OutcomeAction, OutcomeEvent, RequestPatch, RunId, RunSettled, RunStart,
    RunStartAction, SettledOutcome, StepEventKind,
};
use rig_agent::core::effect::{EffectKind, Outcome};
use rig_agent::core::error::ErrorReport;
use rig_agent::core::message::{Message, UserContent};
use rig_agent::tool::{ToolOutput, ToolResult};

use crate::gate::{Gated, gate};
use crate::placement::{PendingInjections, RunInjections};

/// The name under which the hook appears in rig's hook stack and run records.
pub const HOOK_NAME: &str = "hooks-rig";

/// The field every event carries with the id of the rig run it belongs to.
pub const RUN_ID_FIELD: &str = "run_id";
/// The field every event carries with the run's one-based model-call index.
pub const TURN_FIELD: &str = "turn";
/// The field events carry with the agent's name, when the agent has one.
pub const AGENT_NAME_FIELD: &str = "agent_name";
/// The field tool events carry with the id of the model's tool call: the workspace's
/// canonical [`TOOL_CALL_ID`](hooks_core::events::fields::TOOL_CALL_ID).
pub const CALL_ID_FIELD: &str = fields::TOOL_CALL_ID;

/// A [`HookRegistry`] with the application's approval provider and injection policy, as a
/// rig [`AgentHook`]: attach it with `AgentBuilder::add_hook`.
///
/// Clones share everything: keep one to read the [audit log](RigHooks::audit_log) after a
/// run. One value serves one conversation: its injection queue, its turn budget and its
/// "Allow always" answers are those of one session, so runs that share it should not run
/// at the same time.
#[derive(Clone)]
pub struct RigHooks {
    inner: Arc<Inner>,
}

struct Inner {
    session: HookSession,
    approvals: Approvals,
    pending: Arc<PendingInjections>,
    runs: RunInjections,
}

impl fmt::Debug for RigHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigHooks")
            .field("session", &self.inner.session)
            .finish_non_exhaustive()
    }
}

/// Builds a [`RigHooks`]; everything but the registry has a default.
pub struct RigHooksBuilder {
    registry: HookRegistry,
    provider: Option<Arc<dyn ApprovalProvider>>,
    policy: InjectionPolicy,
    display: Option<Arc<dyn DisplaySink>>,
}

impl fmt::Debug for RigHooksBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigHooksBuilder")
            .field("registry", &self.registry)
            .field("approvals", &self.provider.is_some())
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl RigHooksBuilder {
    /// Who is asked on `ask_user`. Without one, every request gets its default (deny unless
    /// the hook set allow).
    #[must_use]
    pub fn approvals(mut self, provider: Arc<dyn ApprovalProvider>) -> Self {
        self.provider = Some(provider);
        self
    }

    /// The injection policy: size limit, budget per turn (default
    /// [`InjectionPolicy::default`]).
    #[must_use]
    pub fn injection_policy(mut self, policy: InjectionPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Where hooks' user messages and the policy's warnings are shown (default: kept in
    /// memory).
    #[must_use]
    pub fn display(mut self, display: Arc<dyn DisplaySink>) -> Self {
        self.display = Some(display);
        self
    }

    /// The hook.
    pub fn build(self) -> RigHooks {
        let pending = Arc::new(PendingInjections::default());
        let mut session = HookSession::builder(self.registry.clone())
            .injection_policy(self.policy)
            .context(pending.clone());
        if let Some(display) = self.display {
            session = session.display(display);
        }
        RigHooks {
            inner: Arc::new(Inner {
                session: session.build(),
                approvals: Approvals::new(self.provider, self.registry),
                pending,
                runs: RunInjections::default(),
            }),
        }
    }
}

impl RigHooks {
    /// The hook over `registry`, with no approval provider (every `ask_user` gets its
    /// default) and the default injection policy.
    pub fn new(registry: HookRegistry) -> Self {
        RigHooks::builder(registry).build()
    }

    /// Starts building the hook over `registry`.
    pub fn builder(registry: HookRegistry) -> RigHooksBuilder {
        RigHooksBuilder {
            registry,
            provider: None,
            policy: InjectionPolicy::default(),
            display: None,
        }
    }

    /// The registry the hook emits on.
    pub fn registry(&self) -> &HookRegistry {
        self.inner.session.registry()
    }

    /// Every injection audited so far, in order, with what the policy did with it.
    pub fn audit_log(&self) -> Vec<InjectionAudit> {
        self.inner.session.audit_log()
    }

    async fn gate(&self, event: &str, data: Value) -> Gated {
        gate(&self.inner.session, &self.inner.approvals, event, data).await
    }

    /// What [`AgentHook::on_dispatch`] does, for a caller that has the run's ids but no
    /// rig `HookContext` (rig mints those only inside a run): for a tool call, `tool:pre`,
    /// where deny or a refused approval skips the call with the reason and modify patches
    /// its arguments; any other effect proceeds untouched.
    pub async fn dispatch(&self, ids: &RunIds<'_>, event: &DispatchEvent<'_>) -> DispatchAction {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return DispatchAction::Proceed;
        };
        let mut data = ids.fields(4);
        data.insert(fields::TOOL_NAME.into(), Value::from(name.as_str()));
        data.insert(fields::TOOL_INPUT.into(), parse_arguments(args));
        if let Some(call_id) = event.call_id {
            data.insert(CALL_ID_FIELD.into(), Value::from(call_id.to_string()));
        }
        let mut gated = self.gate(TOOL_PRE, Value::Object(data)).await;
        if let Some(blocked) = gated.blocked.take() {
            return DispatchAction::skip(ToolCallStatus::Blocked(blocked).agent_message());
        }
        match gated
            .modified_data()
            .map(|mut data| take_field(&mut data, fields::TOOL_INPUT))
        {
            None => DispatchAction::Proceed,
            Some(Value::Null) => DispatchAction::skip(
                ToolCallStatus::Blocked(Blocked::InvalidModification {
                    reason: "a tool:pre hook left no `tool_input`".to_owned(),
                })
                .agent_message(),
            ),
            Some(input) => DispatchAction::rewrite_tool_args(event.kind, input),
        }
    }

    /// What [`AgentHook::on_outcome`] does, for a caller that has the run's ids but no rig
    /// `HookContext`: for a tool call, `tool:post` (or `tool:error` for a failure), where
    /// modify rewrites what the model reads and a `tool:post` deny withholds the output;
    /// injections are queued for the next model call. Any other effect's outcome is kept.
    pub async fn outcome(&self, ids: &RunIds<'_>, event: &OutcomeEvent<'_>) -> OutcomeAction {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return OutcomeAction::Proceed;
        };
        let (event_name, field, value) = match event.outcome {
            Ok(Outcome::ToolResult { result }) if result.is_skipped() => {
                return OutcomeAction::Proceed;
            }
            Ok(Outcome::ToolResult { result }) if result.is_success() => (
                TOOL_POST,
                fields::TOOL_RESULT,
                output_value(result.output()),
            ),
            Ok(Outcome::ToolResult { result }) => (TOOL_ERROR, fields::ERROR, failure_text(result)),
            Err(report) => (TOOL_ERROR, fields::ERROR, Value::from(report.to_string())),
            Ok(_) => return OutcomeAction::Proceed,
        };
        let mut data = ids.fields(5);
        data.insert(fields::TOOL_NAME.into(), Value::from(name.as_str()));
        data.insert(fields::TOOL_INPUT.into(), parse_arguments(args));
        data.insert(field.into(), value);
        if let Some(call_id) = event.call_id {
            data.insert(CALL_ID_FIELD.into(), Value::from(call_id.to_string()));
        }
        let session = &self.inner.session;
        let mut outcome = session
            .registry()
            .emit(event_name, Value::Object(data))
            .await;
        session.apply(&outcome).await;
        if event_name == TOOL_POST && outcome.action == HookAction::Deny {
            let reason = outcome
                .reason
                .clone()
                .unwrap_or_else(|| "no reason given".into());
            return rewrite(event, ToolCallStatus::Withheld { reason }.agent_message());
        }
        if !outcome.is_modified() {
            return OutcomeAction::Proceed;
        }
        let mut data = outcome.result.data.take().unwrap_or(Value::Null);
        match (take_field(&mut data, field), event.outcome) {
            (Value::Null, _) => rewrite(
                event,
                ToolCallStatus::Withheld {
                    reason: format!("a {event_name} hook left no `{field}`"),
                }
                .agent_message(),
            ),
            (Value::String(text), Err(report)) => {
                OutcomeAction::replace(Err(ErrorReport::new(report.kind, text)))
            }
            (other, Err(report)) => {
                OutcomeAction::replace(Err(ErrorReport::new(report.kind, other.to_string())))
            }
            (Value::String(text), Ok(_)) => OutcomeAction::rewrite_tool_result(event, text),
            (other, Ok(_)) => OutcomeAction::rewrite_tool_output(event, ToolOutput::json(other)),
        }
    }
}

/// Replaces what the model reads of a tool call with `text`, whatever the call resolved to.
fn rewrite(event: &OutcomeEvent<'_>, text: String) -> OutcomeAction {
    match event.outcome {
        Ok(_) => OutcomeAction::rewrite_tool_result(event, text),
        Err(report) => OutcomeAction::replace(Err(ErrorReport::new(report.kind, text))),
    }
}

impl AgentHook for RigHooks {
    fn name(&self) -> Option<String> {
        Some(HOOK_NAME.to_owned())
    }

    /// `prompt:submit`: starts the session's turn (the injection budget is whole again);
    /// modify rewrites the prompt, deny stops the run.
    async fn on_run_start(&self, ctx: &HookContext, event: RunStart<'_>) -> RunStartAction {
        self.inner.session.start_turn();
        let mut data = RunIds::of(ctx, ctx.turn()).fields(1);
        data.insert(
            fields::PROMPT.into(),
            Value::from(prompt_text(event.prompt)),
        );
        let mut gated = self.gate(PROMPT_SUBMIT, Value::Object(data)).await;
        if let Some(blocked) = gated.blocked.take() {
            return RunStartAction::stop(blocked.to_string());
        }
        match gated
            .modified_data()
            .map(|mut data| take_field(&mut data, fields::PROMPT))
        {
            None => RunStartAction::Continue,
            Some(Value::String(prompt)) => RunStartAction::rewrite(Message::user(prompt)),
            Some(_) => RunStartAction::stop(
                Blocked::InvalidModification {
                    reason: "a prompt:submit hook left no text in `prompt`".to_owned(),
                }
                .to_string(),
            ),
        }
    }

    /// `provider:request`: deny stops the run; the queued injections are woven into this
    /// call's history (see the crate docs).
    async fn on_completion_call(
        &self,
        ctx: &HookContext,
        event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        let request = match request_value(event.prompt, event.history) {
            Ok(request) => request,
            Err(error) => {
                return CompletionCallAction::stop(format!(
                    "the model request could not be shown to the provider:request hooks: {error}"
                ));
            }
        };
        let mut data = RunIds::of(ctx, ctx.turn()).fields(1);
        data.insert(fields::REQUEST.into(), request);
        let mut gated = self.gate(PROVIDER_REQUEST, Value::Object(data)).await;
        if let Some(blocked) = gated.blocked.take() {
            return CompletionCallAction::stop(blocked.to_string());
        }
        let replaced_history = match gated.modified_data() {
            None => None,
            Some(mut data) => {
                match modified_history(take_field(&mut data, fields::REQUEST), &event) {
                    Ok(history) => history,
                    Err(reason) => {
                        return CompletionCallAction::stop(
                            Blocked::InvalidModification { reason }.to_string(),
                        );
                    }
                }
            }
        };
        let history = replaced_history.as_deref().unwrap_or(event.history);
        let woven = self.inner.runs.weave(
            ctx.run_id(),
            history,
            self.inner.pending.take(),
            self.inner.session.take_ephemeral(),
        );
        match woven.or(replaced_history) {
            Some(history) => CompletionCallAction::patch(RequestPatch::new().history(history)),
            None => CompletionCallAction::Continue,
        }
    }

    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        self.dispatch(&RunIds::of(ctx, event.turn), &event).await
    }

    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        self.outcome(&RunIds::of(ctx, event.turn), &event).await
    }

    /// `prompt:complete`, with the final response (or the error that ended the run).
    async fn on_run_settled(&self, ctx: &HookContext, event: RunSettled<'_>) {
        let mut data = RunIds::of(ctx, ctx.turn()).fields(1);
        match event.outcome {
            SettledOutcome::Response(response) => {
                data.insert(fields::RESPONSE.into(), Value::from(response.output()));
            }
            SettledOutcome::Error(error) => {
                data.insert(fields::ERROR.into(), Value::from(error));
            }
        }
        let outcome = self
            .inner
            .session
            .registry()
            .emit(PROMPT_COMPLETE, Value::Object(data))
            .await;
        self.inner.session.apply(&outcome).await;
        self.inner.runs.finish(ctx.run_id());
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        // Only the boundaries mapped to events: the others would cost a boxed future each.
        matches!(
            kind,
            StepEventKind::RunStart
                | StepEventKind::RunSettled
                | StepEventKind::CompletionCall
                | StepEventKind::ToolDispatch
        )
    }
}

/// Takes `key` out of an event's data; `Null` when it is missing or the data is not an
/// object (a hook may have modified it into anything).
fn take_field(data: &mut Value, key: &str) -> Value {
    data.as_object_mut()
        .and_then(|fields| fields.remove(key))
        .unwrap_or(Value::Null)
}

/// The ids of the rig run an event belongs to, which every event carries.
#[derive(Debug, Clone, Copy)]
pub struct RunIds<'a> {
    /// rig's id of the run (`run_id`).
    pub run_id: RunId,
    /// The one-based model-call index (`turn`).
    pub turn: usize,
    /// The agent's name, if it has one (`agent_name`).
    pub agent_name: Option<&'a str>,
}

impl<'a> RunIds<'a> {
    /// The ids of the run `ctx` belongs to, at `turn`.
    pub fn of(ctx: &'a HookContext, turn: usize) -> Self {
        RunIds {
            run_id: ctx.run_id(),
            turn,
            agent_name: ctx.agent_name(),
        }
    }

    /// The ids as event fields, in a map with room for `extra` more.
    fn fields(&self, extra: usize) -> Map<String, Value> {
        let mut data = Map::with_capacity(extra + 3);
        data.insert(RUN_ID_FIELD.into(), Value::from(self.run_id.to_string()));
        data.insert(TURN_FIELD.into(), Value::from(self.turn));
        if let Some(name) = self.agent_name {
            data.insert(AGENT_NAME_FIELD.into(), Value::from(name));
        }
        data
    }
}

/// A tool call's arguments as JSON; arguments that are not JSON are passed as their text,
/// so that hooks still see them.
fn parse_arguments(args: &str) -> Value {
    serde_json::from_str(args).unwrap_or_else(|_| Value::from(args))
}

/// What the model reads of a tool's output, as JSON: its text, its JSON, or its content
/// rendered as text.
fn output_value(output: &ToolOutput) -> Value {
    if let Some(text) = output.as_text() {
        Value::from(text)
    } else if let Some(json) = output.as_json() {
        json.clone()
    } else {
        Value::from(output.render())
    }
}

/// A failed (or refused) tool result's error.
fn failure_text(result: &ToolResult) -> Value {
    match result.error().or_else(|| result.refusal()) {
        Some(error) => Value::from(error.message()),
        None => Value::from(result.output().render()),
    }
}

/// The text of a prompt message: its text parts, joined by blank lines.
fn prompt_text(prompt: &Message) -> String {
    match prompt {
        Message::System { content } => content.clone(),
        Message::User { content } => content
            .iter()
            .filter_map(|part| match part {
                UserContent::Text(text) => Some(text.text()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
        Message::Assistant(turn) => turn
            .content
            .iter()
            .filter_map(|part| match part {
                rig_agent::core::message::AssistantContent::Text(text) => Some(text.text()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}

/// The `request` of `provider:request`: the prompt of this model call and the history
/// before it, as rig serialises messages.
fn request_value(prompt: &Message, history: &[Message]) -> Result<Value, serde_json::Error> {
    let mut request = Map::with_capacity(2);
    request.insert("prompt".into(), serde_json::to_value(prompt)?);
    request.insert("history".into(), serde_json::to_value(history)?);
    Ok(Value::Object(request))
}

/// The history a `provider:request` hook wrote into `request`, when it changed it. A
/// changed prompt cannot be sent (rig's request patch carries no prompt), so it fails
/// closed, as does a history that is not a list of rig messages.
fn modified_history(
    mut request: Value,
    event: &CompletionCallEvent<'_>,
) -> Result<Option<Vec<Message>>, String> {
    let prompt = serde_json::to_value(event.prompt).map_err(|error| error.to_string())?;
    if request["prompt"] != prompt {
        return Err(
            "a provider:request hook changed `request.prompt`, which rig's request patch \
             cannot carry; change the prompt on prompt:submit instead"
                .to_owned(),
        );
    }
    let history = take_field(&mut request, "history");
    let original = serde_json::to_value(event.history).map_err(|error| error.to_string())?;
    if history == original {
        return Ok(None);
    }
    serde_json::from_value(history).map(Some).map_err(|error| {
        format!(
            "a provider:request hook left a `request.history` that is not rig messages: {error}"
        )
    })
}
