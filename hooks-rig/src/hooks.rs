//! [`RigHooks`]: a [`HookRegistry`] and the application's policy as one rig [`AgentHook`].

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use hooks_core::HookRegistry;
use hooks_core::events::{PROMPT_COMPLETE, PROMPT_SUBMIT, PROVIDER_REQUEST};
use hooks_core::session::ToolError;
use hooks_core::session::gate::{BeforeTool, Gated, ToolCallGate};
use hooks_core::session::injection::InjectionAudit;
use hooks_core::session::{Blocked, HookSession, HookSessionBuilder, ToolCallStatus};
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent,
    HookContext, OutcomeAction, OutcomeEvent, RequestPatch, RunId, RunSettled, RunStart,
    RunStartAction, SettledOutcome, StepEventKind,
};
use rig_agent::core::effect::{EffectKind, Outcome};
use rig_agent::core::error::ErrorReport;
use rig_agent::core::message::{Message, UserContent};
use rig_agent::tool::{ToolOutput, ToolResult};

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
pub const CALL_ID_FIELD: &str = hooks_core::events::fields::TOOL_CALL_ID;

/// A [`HookSession`] (a [`HookRegistry`] with the application's approval provider and
/// injection policy) as a rig [`AgentHook`]: attach it with `AgentBuilder::add_hook`. Tool
/// calls go through the session's [`ToolCallGate`], so they are decided exactly as
/// [`HookSession::run_tool`] decides them.
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

impl RigHooks {
    /// The hook over a session built by `session`: a [`HookSessionBuilder`] with the
    /// application's approval provider, injection policy and display, or a registry alone
    /// (no approval provider: every `ask_user` gets its default; the default injection
    /// policy).
    ///
    /// rig owns the conversation, so the hook keeps the session's history itself: a history
    /// given to the builder ([`HookSessionBuilder::context`]) is replaced by the hook's queue
    /// of injections for the next model call.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hooks_core::HookRegistry;
    /// use hooks_core::session::{HookSession, InjectionPolicy, ScriptedApprovals};
    /// use hooks_rig::RigHooks;
    ///
    /// let hooks = RigHooks::new(
    ///     HookSession::builder(HookRegistry::new())
    ///         .approvals(Arc::new(ScriptedApprovals::choosing(["Allow"])))
    ///         .injection_policy(InjectionPolicy::unlimited()),
    /// );
    /// # let _ = hooks;
    /// ```
    pub fn new(session: impl Into<HookSessionBuilder>) -> Self {
        let pending = Arc::new(PendingInjections::default());
        let session = session.into().context(pending.clone()).build();
        RigHooks {
            inner: Arc::new(Inner {
                session,
                pending,
                runs: RunInjections::default(),
            }),
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
        self.inner.session.gate(event, data).await
    }

    /// The gates of one tool call, its events carrying the run's ids and the call's.
    fn tool_call_gate(
        &self,
        ids: &RunIds<'_>,
        name: &str,
        call_id: Option<String>,
    ) -> ToolCallGate<'_> {
        // Room for the call id and the gate's own fields (name, input, result or error).
        let mut fields = ids.fields(4);
        if let Some(call_id) = call_id {
            fields.insert(CALL_ID_FIELD.into(), Value::from(call_id));
        }
        self.inner.session.tool_call_gate(name).with_fields(fields)
    }

    /// What [`AgentHook::on_dispatch`] does, for a caller that has the run's ids but no
    /// rig `HookContext` (rig mints those only inside a run): for a tool call, `tool:pre`,
    /// where deny or a refused approval skips the call with the reason and modify patches
    /// its arguments; any other effect proceeds untouched.
    pub async fn dispatch(&self, ids: &RunIds<'_>, event: &DispatchEvent<'_>) -> DispatchAction {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return DispatchAction::Proceed;
        };
        let mut gate = self.tool_call_gate(ids, name, event.call_id.map(|id| id.to_string()));
        match gate.before(parse_arguments(args)).await {
            BeforeTool::Blocked { blocked, .. } => {
                DispatchAction::skip(ToolCallStatus::Blocked(blocked).agent_message())
            }
            BeforeTool::Proceed {
                rewritten: false, ..
            } => DispatchAction::Proceed,
            BeforeTool::Proceed { input, .. } => {
                DispatchAction::rewrite_tool_args(event.kind, input)
            }
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
        let result = match event.outcome {
            Ok(Outcome::ToolResult { result }) if result.is_skipped() => {
                return OutcomeAction::Proceed;
            }
            Ok(Outcome::ToolResult { result }) if result.is_success() => {
                Ok(output_value(result.output()))
            }
            Ok(Outcome::ToolResult { result }) => Err(ToolError::new(failure_text(result))),
            Err(report) => Err(ToolError::new(report.to_string())),
            Ok(_) => return OutcomeAction::Proceed,
        };
        let outcome = self
            .tool_call_gate(ids, name, event.call_id.map(|id| id.to_string()))
            .after(parse_arguments(args), result)
            .await;
        let withheld = matches!(outcome.status, ToolCallStatus::Withheld { .. });
        if !outcome.output_rewritten && !withheld {
            return OutcomeAction::Proceed;
        }
        match (outcome.status, event.outcome) {
            (
                ToolCallStatus::Ran {
                    output: Value::String(text),
                },
                _,
            ) => OutcomeAction::rewrite_tool_result(event, text),
            (ToolCallStatus::Ran { output }, _) => {
                OutcomeAction::rewrite_tool_output(event, ToolOutput::json(output))
            }
            (ToolCallStatus::Errored { error }, Err(report)) => {
                OutcomeAction::replace(Err(ErrorReport::new(report.kind, error)))
            }
            (ToolCallStatus::Errored { error }, Ok(_)) => {
                OutcomeAction::rewrite_tool_result(event, error)
            }
            (status, _) => rewrite(event, status.agent_message()),
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
        data.insert("prompt".into(), Value::from(prompt_text(event.prompt)));
        let mut gated = self.gate(PROMPT_SUBMIT, Value::Object(data)).await;
        if let Some(blocked) = gated.blocked.take() {
            return RunStartAction::stop(blocked.to_string());
        }
        match gated
            .modified_data()
            .map(|mut data| take_field(&mut data, "prompt"))
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
        data.insert("request".into(), request);
        let mut gated = self.gate(PROVIDER_REQUEST, Value::Object(data)).await;
        if let Some(blocked) = gated.blocked.take() {
            return CompletionCallAction::stop(blocked.to_string());
        }
        let replaced_history = match gated.modified_data() {
            None => None,
            Some(mut data) => match modified_history(take_field(&mut data, "request"), &event) {
                Ok(history) => history,
                Err(reason) => {
                    return CompletionCallAction::stop(
                        Blocked::InvalidModification { reason }.to_string(),
                    );
                }
            },
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
                data.insert("response".into(), Value::from(response.output()));
            }
            SettledOutcome::Error(error) => {
                data.insert("error".into(), Value::from(error));
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
fn failure_text(result: &ToolResult) -> String {
    match result.error().or_else(|| result.refusal()) {
        Some(error) => error.message().to_owned(),
        None => result.output().render(),
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
