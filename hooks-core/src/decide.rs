//! [`Decide`]: what answers an event. A [`HookRegistry`] decides by its emit; a policy that
//! does more than one emit (hooks-config's `Policy`, which puts a rewritten call to the managed
//! rules again and settles remembered answers) is a `Decide` of its own around a registry, so
//! that whatever consumes decisions (the session layer, the MCP proxy, an agent adapter) takes
//! either and cannot leave a step out.

use serde_json::Value;

use crate::{BoxFuture, EmitResult, HookRegistry};

/// Something that decides events: a registry, or layers around one.
///
/// ```
/// use hooks_core::{BoxFuture, Decide, EmitResult, HookAction, HookRegistry, HookResult};
/// use serde_json::{Value, json};
///
/// /// A layer that denies whatever its inner registry let through on `tool:pre` in a dry run.
/// struct DryRun(HookRegistry);
///
/// impl Decide for DryRun {
///     fn registry(&self) -> &HookRegistry {
///         &self.0
///     }
///
///     fn decide<'a>(&'a self, event: &'a str, data: Value) -> BoxFuture<'a, EmitResult> {
///         Box::pin(async move {
///             let mut outcome = self.0.emit(event, data).await;
///             if event == "tool:pre" && outcome.result.action != HookAction::Deny {
///                 outcome.result = HookResult::deny("dry run: nothing runs");
///             }
///             outcome
///         })
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let policy = DryRun(HookRegistry::new());
/// let outcome = policy.decide("tool:pre", json!({"tool_name": "Bash"})).await;
/// assert_eq!(outcome.result.action, HookAction::Deny);
/// # });
/// ```
pub trait Decide: Send + Sync {
    /// The registry the decisions run on: its handlers, its [state](crate::state), its
    /// observers and its default fields. A consumer emits its own events of record (an
    /// approval's, an audit's) there.
    fn registry(&self) -> &HookRegistry;

    /// The decision on `event` with `data`.
    fn decide<'a>(&'a self, event: &'a str, data: Value) -> BoxFuture<'a, EmitResult>;
}

impl Decide for HookRegistry {
    fn registry(&self) -> &HookRegistry {
        self
    }

    fn decide<'a>(&'a self, event: &'a str, data: Value) -> BoxFuture<'a, EmitResult> {
        Box::pin(self.emit(event, data))
    }
}
