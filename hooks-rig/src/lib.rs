//! The hook registry as a hook of [rig](https://crates.io/crates/rig-agent) agents.
//!
//! [`RigHooks`] wraps a [`HookRegistry`](hooks_core::HookRegistry) and the application's
//! policy (an [`ApprovalProvider`](hooks_core::session::ApprovalProvider) and an
//! [`InjectionPolicy`](hooks_core::session::InjectionPolicy), set on the kernel's
//! [`HookSessionBuilder`](hooks_core::session::HookSessionBuilder)) into one value
//! implementing rig's [`AgentHook`](rig_agent::AgentHook). Tool calls go through the
//! session's public tool-call gate ([`ToolCallGate`](hooks_core::session::gate::ToolCallGate)), so a
//! policy decides a call here exactly as `HookSession::run_tool` decides it. Attach it with `add_hook`, and every run of the agent
//! goes through the hooks: its prompt, each model request, each tool call and the end of
//! the run.
//!
//! ```
//! use hooks_core::{HookRegistry, HookResult};
//! use hooks_rig::RigHooks;
//! use serde_json::Value;
//!
//! async fn no_shell(_event: &str, data: &Value) -> HookResult {
//!     if data["tool_name"] == "shell" {
//!         HookResult::deny("shell commands are not allowed here")
//!     } else {
//!         HookResult::cont()
//!     }
//! }
//!
//! # fn attach(model: rig_agent::core::DynModel<rig_agent::core::operation::Completion>) {
//! let registry = HookRegistry::new();
//! registry.register("tool:pre", no_shell, 10, "no_shell").unwrap();
//! let agent = rig_agent::AgentBuilder::new(model)
//!     .add_hook(RigHooks::new(registry))
//!     .build();
//! # let _ = agent;
//! # }
//! ```
//!
//! # Supported versions
//!
//! `rig-agent` 0.44.x (`>=0.44, <0.45`), built without default features. Later releases
//! (0.45, 0.46) require Rust 1.97.1, newer than this workspace's toolchain (1.95), and are
//! not supported yet. The crate uses only rig's agent runtime and its hook trait: no TLS,
//! no reqwest, no provider client. rig-core itself always pulls in its HTTP abstraction
//! (`rig-http`, with the `http` and `url` crates), about 80 crates in all beside
//! hooks-core's.
//!
//! # Event mapping
//!
//! | rig boundary | event | data | what the hooks' answer does |
//! |---|---|---|---|
//! | `on_run_start` | `prompt:submit` | `prompt` (the text of the prompt) | modify rewrites the prompt (`RunStartAction::Rewrite`); deny or a refused `ask_user` stops the run with the reason; a new turn starts (the injection budget is whole again) |
//! | `on_completion_call` | `provider:request` | `request`: `{prompt, history}`, rig's messages as JSON | deny or a refused ask stops the run; a changed `request.history` is sent instead; queued injections are woven into the history through the `RequestPatch` |
//! | `on_dispatch`, tool call | `tool:pre` | `tool_name`, `tool_input` (the arguments as JSON), `tool_call_id` | deny → `DispatchAction::Deny` with a report the model reads as the skipped call's result, with the reason; modify → `DispatchAction::Patch` with the rewritten arguments; `ask_user` → the approval provider (allow proceeds, a refusal is reported as not approved by the user, "Allow always" is remembered) |
//! | `on_outcome`, tool result | `tool:post` | `tool_name`, `tool_input`, `tool_result`, `tool_call_id` | modify rewrites the output the model reads; deny withholds it (the model reads why); injections are queued |
//! | `on_outcome`, failed tool | `tool:error` | `tool_name`, `tool_input`, `error`, `tool_call_id` | modify of `error` rewrites what the model reads; injections are queued |
//! | `on_run_settled` | `prompt:complete` | `response` (the final output) or `error` | observed; its injections wait for the next run |
//!
//! Every event carries the run's ids: `run_id` (rig's run id), `turn` (the one-based
//! model-call index) and `agent_name` when the agent has a name, beside the registry's own
//! default fields and `timestamp`. Approval decisions are emitted as `approval:*` and every
//! injection's audit as `injection:audit`, as `HookSession` does; these two carry the
//! registry's default fields but not the run's ids.
//!
//! ## Injections
//!
//! Injections are applied by hooks-core's [`HookSession`](hooks_core::session::HookSession) under the
//! injection policy: size limit, budget per turn (reset on `prompt:submit`), role, an audit
//! record for each ([`RigHooks::audit_log`]) and a warning for each one truncated or refused.
//! They reach the model at the next `on_completion_call`, through the request patch's
//! history, as messages of their role (system, user or assistant):
//!
//! - an **ephemeral** injection is in that one request only;
//! - a **persistent** one is in that request and in every later request of the run, at the
//!   same place.
//!
//! # How rig 0.44 differs from the intended mapping, and why
//!
//! - rig's `RequestPatch` is per call: it never changes the run's committed history. A
//!   persistent injection is therefore "kept in history" by this hook, which weaves it into
//!   every later request of the same run; it is not in rig's `PromptResponse` messages, nor
//!   carried to the next run.
//! - An injection is placed at the end of the history, before the prompt of the call;
//!   after tool calls (where the prompt carries their results) it goes before the assistant
//!   turn that made the calls, because providers require results to follow their calls
//!   directly. `append_to_last_tool_result` cannot append to a rig tool result from there,
//!   so such an injection becomes a message like the others.
//! - A `provider:request` hook cannot rewrite the prompt of a call (the patch carries no
//!   prompt): a changed `request.prompt` stops the run (fail closed) rather than send the
//!   unchanged prompt. Rewrite prompts on `prompt:submit`.
//! - rig denies a tool call with an error report: the model reads the report's text
//!   ("Tool call denied by a hook: …" or "Tool call not approved (the user): …") as the
//!   skipped call's result. A `tool:post` deny cannot undo the call; it withholds the
//!   output instead.
//! - The prompt hooks see is the text of rig's prompt message; a rewrite replaces the
//!   prompt with a user text message (attachments of the original are dropped).
//! - `ask_user` on `tool:post`, `tool:error` and `prompt:complete` is not put to the user
//!   (the operation has already happened), as in `HookSession::run_tool`.
//!
//! # Performance
//!
//! The hook only answers the four boundaries above (`observes`), so streamed deltas cost
//! nothing. Per tool call it adds the parsing of the arguments, the data maps and the
//! session's bookkeeping to the two emits (see the `adapter` bench and BENCHMARKS.md).

mod hooks;
mod placement;

pub use hooks::{
    AGENT_NAME_FIELD, CALL_ID_FIELD, HOOK_NAME, RUN_ID_FIELD, RigHooks, RunIds, TURN_FIELD,
};
