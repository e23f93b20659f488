//! The gate: how a [`HookSession`] carries out what the hooks decided about an operation.
//!
//! Every blocking event goes through the same three steps: emit, apply what is not a decision
//! (injections, user messages, failures), settle the decision (a deny, or an `ask_user` put to
//! the approval provider, whose failure or absence is the request's default, deny unless the
//! hook said allow). [`HookSession::gate`] is that for any event; the prompt, the model
//! request and the tool call are built on it.
//!
//! A tool call has two gates, before and after the tool, and [`ToolCallGate`] exposes them
//! as steps so that an integration which calls the tool itself (a rig agent, an MCP server
//! calling the server it wraps) gets exactly the semantics of [`HookSession::run_tool`]:
//!
//! ```
//! use hooks_core::session::gate::BeforeTool;
//! use hooks_core::{HookRegistry, HookResult};
//! use hooks_core::session::{HookSession, ToolCallStatus};
//! use serde_json::{Value, json};
//!
//! async fn no_rm(_event: &str, data: &Value) -> HookResult {
//!     if data["tool_input"]["command"] == "rm -rf /" {
//!         HookResult::deny("that would erase the disk")
//!     } else {
//!         HookResult::cont()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = HookRegistry::new();
//! registry.register("tool:pre", no_rm, 0, "no_rm").unwrap();
//! let session = HookSession::builder(registry).build();
//!
//! let mut gate = session.tool_call_gate("shell");
//! let outcome = match gate.before(json!({"command": "ls"})).await {
//!     BeforeTool::Proceed { input, .. } => {
//!         let output = Ok(json!(format!("ran {}", input["command"]))); // the application's call
//!         gate.after(input, output).await
//!     }
//!     BeforeTool::Blocked { blocked, .. } => panic!("blocked: {blocked}"),
//! };
//! assert_eq!(outcome.status, ToolCallStatus::Ran { output: json!("ran \"ls\"") });
//! # });
//! ```

use serde_json::{Map, Value};
use tracing::{Instrument, Span};

use super::approval::ApprovalRequest;
use super::injection::InjectionAudit;
use super::tool::{Tool, ToolError};
use super::trace;
use super::{Blocked, HookSession, ModelRequest, Proceed, ToolCallOutcome, ToolCallStatus, object};
use crate::events::fields::{TOOL_INPUT, TOOL_NAME, TOOL_RESULT};
use crate::events::{PROMPT_SUBMIT, PROVIDER_REQUEST, TOOL_ERROR, TOOL_POST, TOOL_PRE};
use crate::{EmitResult, HookAction};

/// What one gated emit settled to.
#[derive(Debug)]
#[non_exhaustive]
pub struct Gated {
    /// The folded outcome of the emit; its injections, user messages and failures are already
    /// applied.
    pub outcome: EmitResult,
    /// Why the operation must not proceed, if it must not: a deny, or an `ask_user` that was
    /// not approved.
    pub blocked: Option<Blocked>,
    /// The audit of each injection applied, in order.
    pub injections: Vec<InjectionAudit>,
}

impl Gated {
    /// Takes the final event data (as the last handler left it).
    pub fn take_data(&mut self) -> Value {
        self.outcome.result.data.take().unwrap_or(Value::Null)
    }

    /// Takes the final event data when a hook replaced it; `None` when none did.
    pub fn modified_data(&mut self) -> Option<Value> {
        self.outcome.is_modified().then(|| self.take_data())
    }
}

/// What the `tool:pre` step decided: the tool runs or it does not (so there is no third
/// case an integration could read as a permission).
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeTool {
    /// The tool may run, with this input.
    Proceed {
        /// The input as the `tool:pre` hooks left it.
        input: Value,
        /// Whether a hook replaced the event data (and so perhaps the input); when false,
        /// the input is the caller's own, moved through untouched.
        rewritten: bool,
    },
    /// The tool must not run. The agent's answer is
    /// [`ToolCallStatus::Blocked`]`(blocked)`'s [`agent_message`](ToolCallStatus::agent_message).
    Blocked {
        /// Why.
        blocked: Blocked,
        /// The input as the `tool:pre` hooks left it (`Null` when one removed it).
        input: Value,
    },
}

/// The two gates of one tool call, for a caller that calls the tool itself:
/// [`before`](ToolCallGate::before) the call (`tool:pre`, approval, a rewritten input) and
/// [`after`](ToolCallGate::after) it (`tool:post` or `tool:error`, a rewritten or withheld
/// output). [`HookSession::run_tool`] is these two steps around [`Tool::call`].
///
/// The session's history gets what the agent is told of the call (when the call is blocked,
/// or after it ran), as `run_tool` stores it; the injections of both steps are applied under
/// the session's policy, and the gate keeps their audits for the outcome.
#[derive(Debug)]
#[must_use = "a tool call gate does nothing until its steps are run"]
pub struct ToolCallGate<'s> {
    session: &'s HookSession,
    name: String,
    /// The caller's own fields, which every event of the call carries.
    fields: Map<String, Value>,
    injections: Vec<InjectionAudit>,
    /// The call's `execute_tool` span: both steps, and the tool between them, run in it.
    span: Span,
}

impl<'s> ToolCallGate<'s> {
    /// Adds `fields` to the data of every event of the call (e.g. an id of the call or of the
    /// run it belongs to). The gate's own fields (`tool_name`, `tool_input`, `tool_result`,
    /// `error`) are set after them and win.
    pub fn with_fields(mut self, fields: Map<String, Value>) -> Self {
        if self.fields.is_empty() {
            self.fields = fields;
        } else {
            self.fields.extend(fields);
        }
        self
    }

    /// The data of one event of the call: the caller's `fields`, the tool's name, the input
    /// and `extra`.
    fn event_data(
        &self,
        mut data: Map<String, Value>,
        input: Value,
        extra: Option<(&str, Value)>,
    ) -> Value {
        data.insert(TOOL_NAME.to_owned(), Value::from(self.name.as_str()));
        data.insert(TOOL_INPUT.to_owned(), input);
        if let Some((key, value)) = extra {
            data.insert(key.to_owned(), value);
        }
        Value::Object(data)
    }

    /// The `tool:pre` gate: a deny blocks the call, an `ask_user` goes to the approval
    /// provider (a refusal, a timeout, an error or no provider blocks it unless the hook's
    /// default is allow), a modify rewrites the input. A hook that leaves no `tool_input`
    /// blocks the call. When the call is blocked, what the agent is told is stored in the
    /// history as the call's result.
    pub async fn before(&mut self, input: Value) -> BeforeTool {
        let span = self.span.clone();
        crate::trace::record_call_id(&span, &self.fields);
        let step = async {
            // The `after` step needs the fields as the caller gave them: a copy goes to the
            // hooks.
            let data = self.event_data(self.fields.clone(), input, None);
            let mut gated = self.session.gated(TOOL_PRE, data).await;
            self.injections.append(&mut gated.injections);
            let rewritten = gated.outcome.is_modified();
            trace::record_rewritten(&self.span, rewritten);
            let input = take_field(&mut gated.take_data(), TOOL_INPUT).unwrap_or(Value::Null);
            let blocked = match (gated.blocked, &input) {
                (Some(blocked), _) => blocked,
                (None, Value::Null) => Blocked::InvalidModification {
                    reason: "a tool:pre hook left no `tool_input`".to_owned(),
                },
                (None, _) => return BeforeTool::Proceed { input, rewritten },
            };
            trace::record_end(&self.span, "blocked", Some(&blocked));
            self.session
                .record_result(|| ToolCallStatus::Blocked(blocked.clone()).agent_message());
            BeforeTool::Blocked { blocked, input }
        };
        step.instrument(span).await
    }

    /// The gate after the call: `tool:post` for an output, `tool:error` for a failure.
    ///
    /// - `tool:post`: a deny withholds the output (the agent reads why); a modify rewrites
    ///   it, and one that leaves no `tool_result` withholds it.
    /// - `tool:error`: a modify rewrites the error the agent reads (a text as it is, any other
    ///   value as its JSON); the call stays failed whatever the hooks answer.
    /// - `ask_user` is not put to anyone here: the tool has already run.
    ///
    /// What the agent is told is stored in the history as the call's result before this
    /// step's injections are applied, so that they can be appended to it. `input` is what the
    /// tool received. A call whose `before` step ran on another gate (as when a framework
    /// reports the call's start and its end separately) may take this step on a new one.
    pub async fn after(
        mut self,
        input: Value,
        result: Result<Value, ToolError>,
    ) -> ToolCallOutcome {
        let (event, field, value, error) = match result {
            Ok(output) => (TOOL_POST, TOOL_RESULT, output, None),
            Err(error) => (
                TOOL_ERROR,
                ERROR,
                Value::from(error.message.as_str()),
                Some(error),
            ),
        };
        let span = self.span.clone();
        crate::trace::record_call_id(&span, &self.fields);
        let step = async move {
            let fields = std::mem::take(&mut self.fields);
            let data = self.event_data(fields, input.clone(), Some((field, value)));
            let mut emitted = self.session.emit(event, data).await;
            let rewritten = emitted.is_modified();
            let status = match error {
                None => ran(&mut emitted),
                Some(error) => ToolCallStatus::Errored {
                    error: failed(&mut emitted, error),
                },
            };
            trace::record_end(&self.span, status_name(&status), None);
            self.session.record_result(|| status.agent_message());
            let audits = self.session.apply(&emitted).await;
            trace::injections(&audits);
            self.injections.extend(audits);
            ToolCallOutcome {
                status,
                input,
                injections: self.injections,
                output_rewritten: rewritten,
            }
        };
        step.instrument(span).await
    }

    /// The audits of the injections applied so far, in order.
    pub fn injections(&self) -> &[InjectionAudit] {
        &self.injections
    }

    /// Takes the audits of the injections applied so far.
    pub fn into_injections(self) -> Vec<InjectionAudit> {
        self.injections
    }
}

const ERROR: &str = "error";

/// How a call ended, as its span records it.
fn status_name(status: &ToolCallStatus) -> &'static str {
    match status {
        ToolCallStatus::Ran { .. } => "ran",
        ToolCallStatus::Blocked(_) => "blocked",
        ToolCallStatus::Withheld { .. } => "withheld",
        ToolCallStatus::Errored { .. } => "errored",
    }
}

/// What `tool:post` made of an output.
fn ran(post: &mut EmitResult) -> ToolCallStatus {
    if post.action() == HookAction::Deny {
        return ToolCallStatus::Withheld {
            reason: post
                .result
                .reason
                .clone()
                .unwrap_or_else(|| "no reason given".into()),
        };
    }
    let mut data = post.result.data.take().unwrap_or(Value::Null);
    match take_field(&mut data, TOOL_RESULT) {
        Some(output) => ToolCallStatus::Ran { output },
        None => ToolCallStatus::Withheld {
            reason: "a tool:post hook left no `tool_result`".to_owned(),
        },
    }
}

/// The error the agent reads after `tool:error`: the tool's own unless a hook rewrote it.
fn failed(emitted: &mut EmitResult, error: ToolError) -> String {
    if !emitted.is_modified() {
        return error.message;
    }
    let mut data = emitted.result.data.take().unwrap_or(Value::Null);
    match take_field(&mut data, ERROR) {
        Some(Value::String(text)) => text,
        None | Some(Value::Null) => error.message,
        Some(other) => other.to_string(),
    }
}

/// Takes `key` out of an event's data; `None` when it is missing or the data is not an
/// object (a hook may have modified it into anything).
fn take_field(data: &mut Value, key: &str) -> Option<Value> {
    data.as_object_mut().and_then(|fields| fields.remove(key))
}

impl HookSession {
    /// Emits `event`, applies its outcome (injections, user messages, failures) and settles
    /// its decision: a deny blocks, and an `ask_user` is put to the approval provider (a
    /// refusal, a timeout, an error or no provider blocks unless the hook's default is allow).
    ///
    /// The gate is a `hooks.gate` span (see [`trace`]) holding the emit's span,
    /// with the approval and the injections recorded on it.
    pub async fn gate(&self, event: &str, data: Value) -> Gated {
        let span = trace::gate_span(event);
        let gated = self.gated(event, data).instrument(span.clone()).await;
        let outcome = if gated.blocked.is_some() {
            "blocked"
        } else {
            "proceed"
        };
        trace::record_end(&span, outcome, gated.blocked.as_ref());
        gated
    }

    /// [`gate`](HookSession::gate) in the current span (a tool call's, or the gate's own).
    async fn gated(&self, event: &str, data: Value) -> Gated {
        let outcome = self.emit(event, data).await;
        let injections = self.apply(&outcome).await;
        trace::injections(&injections);
        let blocked = self.settle(&outcome, event).await;
        Gated {
            outcome,
            blocked,
            injections,
        }
    }

    /// The gates of one call of the tool named `tool_name`, for a caller that calls the tool
    /// itself; see [`ToolCallGate`].
    pub fn tool_call_gate(&self, tool_name: &str) -> ToolCallGate<'_> {
        ToolCallGate {
            session: self,
            name: tool_name.to_owned(),
            fields: Map::new(),
            injections: Vec::new(),
            span: trace::tool_call_span(tool_name),
        }
    }

    /// Settles a blocking result: `Some(blocked)` when the operation must not proceed.
    async fn settle(&self, outcome: &EmitResult, event: &str) -> Option<Blocked> {
        match outcome.action() {
            HookAction::Deny => Some(Blocked::ByHook {
                reason: outcome.result.reason.clone().unwrap_or_else(|| {
                    format!(
                        "`{}` denied `{event}` without a reason",
                        outcome.decided_by.as_deref().unwrap_or("a hook")
                    )
                }),
                hook: outcome.decided_by.clone(),
            }),
            HookAction::AskUser => {
                let request = ApprovalRequest::from_result(
                    &outcome.result,
                    event,
                    outcome.decided_by.clone(),
                );
                let decision = self.approvals().decide(&request).await;
                trace::approval(&request, &decision);
                (!decision.allowed).then_some(Blocked::ByApproval {
                    prompt: request.prompt,
                    decision,
                })
            }
            _ => None,
        }
    }

    /// Submits a user prompt: starts a new turn, then emits `prompt:submit`. Hooks may rewrite
    /// the prompt (modify), refuse it (deny) or ask first.
    pub async fn submit_prompt(&self, prompt: &str) -> Proceed<String> {
        self.start_turn();
        let mut gated = self
            .gate(PROMPT_SUBMIT, object([("prompt", Value::from(prompt))]))
            .await;
        match (
            gated.blocked.take(),
            take_field(&mut gated.take_data(), "prompt"),
        ) {
            (Some(blocked), _) => Proceed::No(blocked),
            (None, Some(Value::String(prompt))) => Proceed::Yes(prompt),
            (None, _) => Proceed::No(Blocked::InvalidModification {
                reason: "a prompt:submit hook left no text in `prompt`".to_owned(),
            }),
        }
    }

    /// Clears a model request through `provider:request` (where hooks may, e.g., redact it)
    /// and hands over the ephemeral injections for this call only.
    pub async fn provider_request(&self, request: Value) -> Proceed<ModelRequest> {
        let mut gated = self
            .gate(PROVIDER_REQUEST, object([("request", request)]))
            .await;
        match (
            gated.blocked.take(),
            take_field(&mut gated.take_data(), "request"),
        ) {
            (Some(blocked), _) => Proceed::No(blocked),
            (None, None | Some(Value::Null)) => Proceed::No(Blocked::InvalidModification {
                reason: "a provider:request hook left no `request`".to_owned(),
            }),
            (None, Some(request)) => Proceed::Yes(ModelRequest {
                request,
                ephemeral: self.take_ephemeral(),
            }),
        }
    }

    /// Runs one tool call through the whole pipeline: the [`ToolCallGate`]'s
    /// [`before`](ToolCallGate::before) step (`tool:pre`: deny stops it, ask_user goes to the
    /// approval provider, modify rewrites the input), the tool, then its
    /// [`after`](ToolCallGate::after) step (`tool:post`, which may rewrite or withhold the
    /// output, or `tool:error`, which may rewrite the error). The result the agent sees is
    /// stored in the history as a tool result before the `tool:post` injections are applied,
    /// so that they can be appended to it.
    pub async fn run_tool(&self, tool: &dyn Tool, input: Value) -> ToolCallOutcome {
        let mut gate = self.tool_call_gate(tool.name());
        match gate.before(input).await {
            BeforeTool::Proceed { input, .. } => {
                let result = tool.call(input.clone()).await;
                gate.after(input, result).await
            }
            BeforeTool::Blocked { blocked, input } => ToolCallOutcome {
                status: ToolCallStatus::Blocked(blocked),
                input,
                injections: gate.into_injections(),
                output_rewritten: false,
            },
        }
    }
}
