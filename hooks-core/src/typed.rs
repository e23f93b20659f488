//! [`TypedHook`]: hooks written as a type, one method per event taking the event's view,
//! and the blanket [`Hook`] impl that reads the views and calls the methods.

use std::future::Future;

use serde_json::Value;

use crate::events;
use crate::view::{
    EventView, PromptComplete, PromptSubmit, ProviderRequest, ProviderResponse, SessionEnd,
    SessionStart, ToolFailure, ToolPost, ToolPre, ViewError,
};
use crate::{Hook, HookResult};

/// A hook written as a type (for configuration and state), with one method per
/// event taking that event's [view](crate::view).
///
/// Every method has a default, so a hook implements only the events it cares about; the
/// blanket [`Hook`] impl reads each event's view and calls its method, which makes a typed
/// hook a [`Hook`] like any other: it registers with
/// [`HookRegistry::register_with`](crate::HookRegistry::register_with) for each event it
/// handles (a [`Handler`](crate::Handler) made once serves them all).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use hooks_core::decision::{ToolPostDecision, ToolPreDecision};
/// use hooks_core::view::{ToolPost, ToolPre};
/// use hooks_core::{Handler, HookOptions, HookRegistry, HookResult, TypedHook};
/// use serde_json::json;
///
/// /// Denies `write_file` after `limit` writes, and counts the writes that ran.
/// struct WriteBudget {
///     limit: usize,
///     written: AtomicUsize,
/// }
///
/// impl TypedHook for WriteBudget {
///     async fn on_tool_pre(&self, call: ToolPre<'_>) -> HookResult {
///         if call.tool_name() == "write_file" && self.written.load(Ordering::Relaxed) >= self.limit {
///             ToolPreDecision::deny("the write budget is spent").into()
///         } else {
///             ToolPreDecision::proceed().into()
///         }
///     }
///
///     async fn on_tool_post(&self, call: ToolPost<'_>) -> HookResult {
///         if call.tool_name() == "write_file" {
///             self.written.fetch_add(1, Ordering::Relaxed);
///         }
///         ToolPostDecision::proceed().into()
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let registry = HookRegistry::new();
/// let budget = Handler::from_hook(WriteBudget { limit: 1, written: AtomicUsize::new(0) });
/// for event in ["tool:pre", "tool:post"] {
///     registry.register_with(event, budget.clone(), HookOptions::new().name("write_budget"))?;
/// }
/// let write = json!({"tool_name": "write_file", "tool_input": {}, "tool_result": "ok"});
/// assert!(!registry.emit("tool:pre", write.clone()).await.is_denied());
/// registry.emit("tool:post", write.clone()).await;
/// assert!(registry.emit("tool:pre", write).await.is_denied());
/// # Ok::<(), hooks_core::EventNameError>(())
/// # }).unwrap();
/// ```
///
/// A method answers a [`HookResult`]; the event's [`decision`](crate::decision) converts into
/// one with `.into()` where the legal answers should be checked by the compiler.
///
/// Every method defaults to [`on_event`](TypedHook::on_event) with the event's data, which
/// defaults to `continue`: a hook that treats every event alike (a reminder) implements only
/// `on_event`, and one that guards tool calls only `on_tool_pre`. Data a view refuses (a
/// required field missing or of the wrong kind) goes to `on_event` too, so that a hook can
/// read an agent's own shape of the event there, and a hook enforcing a policy can deny what
/// it cannot read.
pub trait TypedHook: Send + Sync + 'static {
    /// `tool:pre`: a tool is about to run.
    fn on_tool_pre(&self, call: ToolPre<'_>) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::TOOL_PRE, call.data())
    }

    /// `tool:post`: a tool ran.
    fn on_tool_post(&self, call: ToolPost<'_>) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::TOOL_POST, call.data())
    }

    /// `tool:error`: a tool failed.
    fn on_tool_error(&self, call: ToolFailure<'_>) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::TOOL_ERROR, call.data())
    }

    /// `prompt:submit`: the user submits a prompt.
    fn on_prompt_submit(
        &self,
        prompt: PromptSubmit<'_>,
    ) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::PROMPT_SUBMIT, prompt.data())
    }

    /// `prompt:complete`: the agent has finished answering a prompt.
    fn on_prompt_complete(
        &self,
        prompt: PromptComplete<'_>,
    ) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::PROMPT_COMPLETE, prompt.data())
    }

    /// `provider:request`: a request is about to go to the model provider.
    fn on_provider_request(
        &self,
        request: ProviderRequest<'_>,
    ) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::PROVIDER_REQUEST, request.data())
    }

    /// `provider:response`: the provider answered.
    fn on_provider_response(
        &self,
        response: ProviderResponse<'_>,
    ) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::PROVIDER_RESPONSE, response.data())
    }

    /// `session:start`: a session begins.
    fn on_session_start(
        &self,
        session: SessionStart<'_>,
    ) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::SESSION_START, session.data())
    }

    /// `session:end`: a session ends.
    fn on_session_end(&self, session: SessionEnd<'_>) -> impl Future<Output = HookResult> + Send {
        self.on_event(events::SESSION_END, session.data())
    }

    /// Any other event (the ones without a view, an application's own), every event whose
    /// method is not implemented, and data a view refused. `event` is canonical. Default:
    /// `continue`.
    fn on_event(&self, event: &str, data: &Value) -> impl Future<Output = HookResult> + Send {
        let _ = (event, data);
        std::future::ready(HookResult::cont())
    }
}

/// Logs a view's refusal; the data then goes to `on_event`. At debug level: an agent's own
/// shape of an event (Claude Code's `tool:post` has `tool_response`, not `tool_result`) is
/// refused on every call, and is the hook's to handle there, not an incident.
fn refused(error: &ViewError) {
    tracing::debug!(%error, "typed hook: the event's data does not fit its view");
}

/// Calls the method of `$view`'s event with the view of `$data`, or `on_event` when the view
/// refuses it.
macro_rules! dispatch {
    ($hook:ident, $event:ident, $data:ident, $view:ident => $method:ident) => {
        match $view::from_data($data) {
            Ok(view) => $hook.$method(view).await,
            Err(error) => {
                refused(&error);
                $hook.on_event($event, $data).await
            }
        }
    };
}

impl<T: TypedHook> Hook for T {
    async fn handle(&self, event: &str, data: &Value) -> HookResult {
        let hook = self;
        // The registry passes canonical names; a direct call may pass an alias.
        let event = events::canonicalize(event).unwrap_or(event);
        match event {
            events::TOOL_PRE => dispatch!(hook, event, data, ToolPre => on_tool_pre),
            events::TOOL_POST => dispatch!(hook, event, data, ToolPost => on_tool_post),
            events::TOOL_ERROR => dispatch!(hook, event, data, ToolFailure => on_tool_error),
            events::PROMPT_SUBMIT => {
                dispatch!(hook, event, data, PromptSubmit => on_prompt_submit)
            }
            events::PROMPT_COMPLETE => {
                dispatch!(hook, event, data, PromptComplete => on_prompt_complete)
            }
            events::PROVIDER_REQUEST => {
                dispatch!(hook, event, data, ProviderRequest => on_provider_request)
            }
            events::PROVIDER_RESPONSE => {
                dispatch!(hook, event, data, ProviderResponse => on_provider_response)
            }
            events::SESSION_START => {
                dispatch!(hook, event, data, SessionStart => on_session_start)
            }
            events::SESSION_END => dispatch!(hook, event, data, SessionEnd => on_session_end),
            _ => hook.on_event(event, data).await,
        }
    }
}
