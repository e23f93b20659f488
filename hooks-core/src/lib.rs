//! The hook kernel for AI-agent applications.
//!
//! An agent runs a loop: a prompt comes in, a model is called, tools run, context is
//! compacted, the session ends. Hooks let an application **observe**, **block**, **modify**,
//! **inject feedback into** and **ask the user about** every step of that loop without touching
//! the loop's code. This crate is the kernel of that system:
//!
//! - [`events`]: the canonical event names (`tool:pre`, `session:start`, ...), the PascalCase
//!   aliases (`PreToolUse`, ...) and the rules for custom `namespace:name` events;
//! - [`HookResult`]: what a handler answers, JSON-compatible with the reference system;
//! - [`HookRegistry`]: registration and dispatch, with the reference merge rules, panic and
//!   timeout isolation, and a lock-free emit path;
//! - [`EmitResult`]: the folded answer of an emit, keeping the provenance of every injection
//!   and user message.
//!
//! ```
//! use hooks_core::{HookRegistry, HookResult, HookAction};
//! use serde_json::{json, Value};
//!
//! async fn lint_feedback(_event: &str, data: &Value) -> HookResult {
//!     if data["tool_name"] == "write_file" {
//!         HookResult::inject("lint: line 3 has trailing whitespace")
//!     } else {
//!         HookResult::cont()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = HookRegistry::new();
//! registry.register("tool:post", lint_feedback, 10, "lint_feedback").unwrap();
//! let outcome = registry.emit("tool:post", json!({"tool_name": "write_file"})).await;
//! assert_eq!(outcome.action, HookAction::InjectContext);
//! assert_eq!(&*outcome.injections[0].hook, "lint_feedback");
//! # });
//! ```
//!
//! `hooks-core` does no file, terminal or network I/O; it needs a Tokio runtime with the time
//! driver for handler timeouts.

pub mod events;
mod guard;
mod handler;
mod merge;
mod outcome;
mod registry;
mod result;
pub mod timestamp;

pub use events::{EventName, EventNameError};
pub use handler::{Handler, Hook, HookFn, IntoHandler, IntoHookResult, marker};
pub use outcome::{EmitResult, FailureKind, HandlerFailure, Injection, Modification, UserMessage};
pub use registry::{
    DEFAULT_COLLECT_TIMEOUT, DEFAULT_HANDLER_TIMEOUT, HookHandle, HookOptions, HookRegistry,
    TIMESTAMP_FIELD,
};
pub use result::{
    ApprovalDefault, DEFAULT_APPROVAL_OPTIONS, DEFAULT_APPROVAL_TIMEOUT_SECS, HookAction,
    HookResult, InjectionRole, InvalidValue, MessageLevel,
};

/// The README's examples, compiled and run as doctests so that they stay true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
