//! What a failing external hook gives: one policy for every runner (commands, services,
//! models, WebAssembly components), so that a hook that hangs, crashes or answers garbage is
//! judged the same way whatever runs it.

use std::fmt;

use crate::{HookResult, MessageLevel};

/// What a failing external hook gives.
///
/// ```
/// use hooks_core::{HookAction, OnFailure};
///
/// let result = OnFailure::Block.apply("policy", &"timed out");
/// assert_eq!(result.action, HookAction::Deny);
/// assert_eq!(OnFailure::Ignore.apply("policy", &"timed out").action, HookAction::Continue);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnFailure {
    /// Continue, with a warning for the user naming the hook and the failure.
    Warn,
    /// Deny, with the failure as the reason (fail closed).
    Block,
    /// Continue silently.
    Ignore,
}

impl OnFailure {
    /// What this policy makes of `failure` of the hook `name`.
    pub fn apply(self, name: &str, failure: &dyn fmt::Display) -> HookResult {
        match self {
            OnFailure::Warn => HookResult::cont().with_user_message(
                format!("hook `{name}` failed: {failure}; continuing"),
                MessageLevel::Warning,
            ),
            OnFailure::Block => HookResult::deny(format!(
                "hook `{name}` failed ({failure}); blocked because its on_failure is block"
            ))
            .with_user_message(
                format!("hook `{name}` failed: {failure}"),
                MessageLevel::Error,
            ),
            OnFailure::Ignore => HookResult::cont(),
        }
    }
}
