//! Typed, borrowed views of the canonical events' data.
//!
//! Event data is JSON, and stays the one source of truth; a view is a convenience on top. It
//! reads the fields an event always carries once, borrowing them from the payload (no copy),
//! and refuses data that lacks one with a [`ViewError`] naming the event and the field. The
//! fields and which of them are required come from
//! [`events::fields`](crate::events::fields).
//!
//! ```
//! use hooks_core::view::{EventView, ToolPre};
//! use serde_json::json;
//!
//! let data = json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_call_id": "c1"});
//! let call = ToolPre::from_data(&data)?;
//! assert_eq!(call.tool_name(), "bash");
//! assert_eq!(call.tool_input()["command"], "ls");
//! assert_eq!(call.tool_call_id(), Some("c1"));
//!
//! let refused = ToolPre::from_data(&json!({"tool_input": {}})).unwrap_err();
//! assert_eq!(refused.field(), Some("tool_name"));
//! # Ok::<(), hooks_core::view::ViewError>(())
//! ```
//!
//! A typed handler takes a view instead of `(&str, &Value)`: annotate it with
//! [`#[hook]`](crate::hook) (the event is the view's) or register it with
//! [`HookRegistry::register_view`](crate::HookRegistry::register_view). What it answers can
//! be a [`decision`](crate::decision) that only admits the answers legal for its event.
//!
//! The trait is open: an application gives its own `namespace:name` events a view by
//! implementing [`EventView`] (reading the payload with the helpers of [`field`]), and
//! functions taking that view register as the built-in ones do:
//!
//! ```
//! use hooks_core::view::{EventView, ViewError, field};
//! use hooks_core::{HookOptions, HookRegistry, HookResult};
//! use serde_json::{Value, json};
//!
//! /// `deploy:start`: the application is about to deploy.
//! struct DeployStart<'a> {
//!     data: &'a Value,
//!     target: &'a str,
//! }
//!
//! impl<'a> EventView<'a> for DeployStart<'a> {
//!     const EVENT: &'static str = "deploy:start";
//!     type At<'b> = DeployStart<'b>;
//!
//!     fn from_data(data: &'a Value) -> Result<Self, ViewError> {
//!         let object = field::object(data, Self::EVENT)?;
//!         let target = field::required(object, Self::EVENT, "target")?;
//!         Ok(DeployStart { data, target })
//!     }
//!
//!     fn data(&self) -> &'a Value {
//!         self.data
//!     }
//! }
//!
//! async fn no_friday_prod(deploy: DeployStart<'_>) -> HookResult {
//!     if deploy.target == "prod" {
//!         HookResult::deny("no production deploys today")
//!     } else {
//!         HookResult::cont()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = HookRegistry::new();
//! let handle = registry.register_view(no_friday_prod, HookOptions::new())?;
//! assert_eq!(handle.event(), "deploy:start");
//! let outcome = registry.emit("deploy:start", json!({"target": "prod"})).await;
//! assert!(outcome.is_denied());
//! # Ok::<(), hooks_core::EventNameError>(())
//! # }).unwrap();
//! ```

mod error;
mod events;
pub mod field;
mod handler;

pub use error::ViewError;
pub use events::{
    PromptComplete, PromptSubmit, ProviderRequest, ProviderResponse, SessionEnd, SessionStart,
    ToolFailure, ToolPost, ToolPre,
};
#[doc(hidden)]
pub use handler::same_event;
pub use handler::{ViewFn, view_event};

use serde_json::Value;

use crate::events::fields;

/// A typed view of one event's data, borrowed from the payload.
///
/// Implemented by the views of the canonical events, and open to applications for their own
/// events (see the [module docs](self)): a function taking any view registers with
/// [`HookRegistry::register_view`](crate::HookRegistry::register_view) or `#[hook]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an event view",
    label = "a typed hook takes one event view, such as `ToolPre<'_>`",
    note = "the views of `hooks_core::view` read the canonical events; an event of your own \
            gets one by implementing `hooks_core::view::EventView`"
)]
pub trait EventView<'a>: Sized {
    /// The event whose data the view reads: a canonical name, or a custom `namespace:name`.
    const EVENT: &'static str;

    /// The same view borrowing for `'b` (`MyView<'b>` for `MyView<'a>`): it lets a function
    /// taking the view be called with a view of any event's payload, whatever its lifetime.
    type At<'b>: EventView<'b>;

    /// Reads `data`, or says which field is missing or of the wrong kind. Absent and `null`
    /// are the same: a required field that is null is missing, an optional one is `None`.
    fn from_data(data: &'a Value) -> Result<Self, ViewError>;

    /// The whole payload, for the fields the view does not name.
    fn data(&self) -> &'a Value;

    /// Any field of the payload; `None` when absent or null.
    fn field(&self, name: &str) -> Option<&'a Value> {
        self.data().get(name).filter(|value| !value.is_null())
    }

    /// The session's id, when the emitter or the registry's default fields set it.
    fn session_id(&self) -> Option<&'a str> {
        self.data().get(fields::SESSION_ID).and_then(Value::as_str)
    }

    /// The time of the emit (RFC 3339), which the registry adds unless the emitter set it.
    fn timestamp(&self) -> Option<&'a str> {
        self.data().get(fields::TIMESTAMP).and_then(Value::as_str)
    }
}
