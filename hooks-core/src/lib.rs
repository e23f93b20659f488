//! The hook kernel for AI-agent applications.
//!
//! An agent runs a loop: a prompt comes in, a model is called, tools run, context is
//! compacted, the session ends. Hooks let an application **observe**, **block**, **modify**,
//! **inject feedback into** and **ask the user about** every step of that loop without touching
//! the loop's code. This crate is the kernel of that system. It keeps the semantics and the JSON
//! of *the reference*, as these docs call it: Amplifier's hook API (amplifier-core's
//! `HookRegistry` and `HookResult`, in Python).
//!
//!
//! - [`events`]: the canonical event names (`tool:pre`, `session:start`, ...), the PascalCase
//!   aliases (`PreToolUse`, ...), the rules for custom `namespace:name` events, and the
//!   [`fields`](events::fields) each event carries;
//! - [`view`] and [`decision`]: typed, borrowed views of the canonical events' data, and
//!   per-event answers that can only be legal, for handlers written against types rather
//!   than JSON keys;
//! - [`HookResult`]: what a handler answers, JSON-compatible with the reference system;
//! - [`HookRegistry`]: registration and dispatch, with the reference merge rules, panic and
//!   timeout isolation, and a lock-free emit path;
//! - [`EmitResult`]: the folded answer of an emit, keeping the provenance of every injection
//!   and user message;
//! - [`hook`]: the `#[hook]` attribute, and [`annotated`] for the hooks it registers at
//!   compile time;
//! - [`text`]: cutting a text to a size on a character boundary, and naming a JSON value's
//!   kind, for messages;
//! - [`session`]: the session layer on top of the kernel: [`HookSession`](session::HookSession)
//!   applies the results to a running agent session (approvals, injections, messages, tool
//!   calls), configured by one builder, and [`session::gate`] exposes its tool-call gate as
//!   public steps for integrations that call the tool themselves. Everything else in this
//!   crate is the kernel, which never uses the session layer.
//!
//! A handler takes a view of its event and answers with that event's decision:
//!
//! ```
//! use hooks_core::decision::ToolPostDecision;
//! use hooks_core::view::ToolPost;
//! use hooks_core::{HookAction, HookOptions, HookRegistry};
//! use serde_json::json;
//!
//! async fn lint_feedback(call: ToolPost<'_>) -> ToolPostDecision {
//!     if call.tool_name() == "write_file" {
//!         ToolPostDecision::inject("lint: line 3 has trailing whitespace")
//!     } else {
//!         ToolPostDecision::proceed()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = HookRegistry::new();
//! registry
//!     .register_view(lint_feedback, HookOptions::new().priority(10).name("lint_feedback"))
//!     .unwrap();
//! let outcome = registry
//!     .emit("tool:post", json!({"tool_name": "write_file", "tool_input": {}, "tool_result": "ok"}))
//!     .await;
//! assert_eq!(outcome.action(), HookAction::InjectContext);
//! assert_eq!(&*outcome.injections[0].hook, "lint_feedback");
//! # });
//! ```
//!
//! Event data is JSON underneath, and a handler may take it as it is, `(event: &str, data:
//! &Value)`, for any event including custom ones; the field names are constants of
//! [`events::fields`]:
//!
//! ```
//! use hooks_core::events::fields::TOOL_NAME;
//! use hooks_core::{HookRegistry, HookResult};
//! use serde_json::Value;
//!
//! async fn count_calls(_event: &str, data: &Value) -> HookResult {
//!     HookResult::inject(format!("{} was called", data[TOOL_NAME]))
//! }
//!
//! let registry = HookRegistry::new();
//! registry.register("tool:post", count_calls, 0, "count_calls").unwrap();
//! ```
//!
//! `hooks-core` does no file, terminal or network I/O; it needs a Tokio runtime with the time
//! driver for handler timeouts.

pub mod annotated;
mod decide;
pub mod decision;
mod error;
mod guard;
mod handler;
mod merge;
pub mod module;
mod observer;
mod on_failure;
mod outcome;
mod panic;
mod registry;
mod result;
pub mod session;
pub mod state;
pub mod sync;
pub mod text;
// The RFC 3339 clock of event data, shared with hooks-std's logging and hooks-py: not a public
// API.
#[doc(hidden)]
pub mod timestamp;
pub mod trace;
mod typed;
pub mod view;

pub use annotated::{
    AnnotatedHook, MissingHooks, annotated_hooks, expect_hooks, registration_works,
};
// The kernel's types are all at the root, so that no `use` needs to know which module
// defines them; the session layer's are under `session::`, and the kernel never uses them.
pub use decide::Decide;
pub use error::{BoxError, HandlerError};
pub use handler::{BoxFuture, Handler, Hook, HookFn, IntoHandler, IntoHookResult, owned_fn};
pub use hooks_events as events;
pub use hooks_events::{EventName, EventNameError};
pub use hooks_macros::hook;
pub use module::{HookModule, MountError, Mounted};
pub use observer::EmitObserver;
pub use on_failure::OnFailure;
pub use outcome::{EmitResult, FailureKind, HandlerFailure, Injection, Modification, UserMessage};
pub use registry::{
    DEFAULT_COLLECT_TIMEOUT, DEFAULT_HANDLER_TIMEOUT, HookHandle, HookOptions, HookRegistry,
    ObserverHandle, TIMESTAMP_FIELD,
};
pub use result::{
    ApprovalDefault, DEFAULT_APPROVAL_OPTIONS, DEFAULT_APPROVAL_TIMEOUT_SECS, HookAction,
    HookResult, InjectionRole, InvalidValue, MessageLevel,
};
pub use state::{SessionState, StateBackend, StateError, StateStore};
pub use typed::TypedHook;
pub use view::{EventView, ViewError};

/// What the code generated by `#[hook]` refers to; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::Handler;
    pub use crate::annotated::AnnotatedHook;
    pub use crate::view::same_event;
    pub use crate::view::view_event;
    pub use inventory;
    pub use serde_json;
}

/// The Rust examples of the README and of the guide under `docs/`, compiled and run as doctests
/// so that they stay true (each page is the doc of an item of its own, as axum does).
#[cfg(doctest)]
pub mod documents {
    #[doc = include_str!("../../README.md")]
    pub struct Readme;
    #[doc = include_str!("../../docs/install.md")]
    pub struct Install;
    #[doc = include_str!("../../docs/agents.md")]
    pub struct Agents;
    #[doc = include_str!("../../docs/guide/writing-hooks.md")]
    pub struct WritingHooks;
    #[doc = include_str!("../../docs/guide/applying-results.md")]
    pub struct ApplyingResults;
    #[doc = include_str!("../../docs/guide/standard-modules.md")]
    pub struct StandardModules;
    #[doc = include_str!("../../docs/guide/hooks-files.md")]
    pub struct HooksFiles;
    #[doc = include_str!("../../docs/guide/testing.md")]
    pub struct Testing;
    #[doc = include_str!("../../docs/guide/validating.md")]
    pub struct Validating;
    #[doc = include_str!("../../docs/guide/integrations.md")]
    pub struct Integrations;
    #[doc = include_str!("../../docs/guide/observability.md")]
    pub struct Observability;
}
