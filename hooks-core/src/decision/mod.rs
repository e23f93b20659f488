//! Decisions: what a typed handler answers, restricted to the answers legal for its event.
//!
//! [`HookResult`](crate::HookResult) is one flat struct for every event, so it can hold states
//! the kernel rejects at run time (a modify without data, an ask without a question). A
//! decision can only be built through constructors that fill in what its action needs: a
//! rewrite of a tool's input is built from the call's view with only `tool_input` replaced, an
//! ask always has its question. Each converts into a `HookResult` (and a typed handler may
//! return it, or `Result<_, E>` of it, directly).
//!
//! ```
//! use hooks_core::decision::ToolPreDecision;
//! use hooks_core::view::{EventView, ToolPre};
//! use hooks_core::{HookAction, HookResult, MessageLevel};
//! use serde_json::json;
//!
//! let data = json!({"tool_name": "bash", "tool_input": {"command": "python app.py"}});
//! let call = ToolPre::from_data(&data)?;
//! let rewrite = ToolPreDecision::rewrite_input(&call, json!({"command": "python3 app.py"}))
//!     .with_user_message("python is python3 here", MessageLevel::Info);
//!
//! let result = HookResult::from(rewrite);
//! assert_eq!(result.action, HookAction::Modify);
//! assert_eq!(result.data, Some(json!({"tool_name": "bash", "tool_input": {"command": "python3 app.py"}})));
//! # Ok::<(), hooks_core::view::ViewError>(())
//! ```

mod answer;
mod prompt;
mod provider;
mod tool;

pub use answer::{Approval, ContextInjection};
pub use prompt::PromptSubmitDecision;
pub use provider::ProviderRequestDecision;
pub use tool::{ToolPostDecision, ToolPreDecision};
