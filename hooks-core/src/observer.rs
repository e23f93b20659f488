//! Observers: code that sees the outcome of every emit, after the handlers, without taking
//! part in the decision (recorders in tests, audit logs, metrics).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::EmitResult;

/// Sees every emit's outcome. Observers run synchronously at the end of each emit, so they
/// should be quick (hand slow work to a channel).
pub trait EmitObserver: Send + Sync + 'static {
    /// Called with the canonical event name (or the name as emitted, for an unknown one) and
    /// the merged outcome; its `data` is the final event data.
    fn observe(&self, event: &str, outcome: &EmitResult);
}

impl<F> EmitObserver for F
where
    F: Fn(&str, &EmitResult) + Send + Sync + 'static,
{
    fn observe(&self, event: &str, outcome: &EmitResult) {
        self(event, outcome);
    }
}

/// Tells every observer; one that panics is logged and the others still run.
pub(crate) fn notify(observers: &[Arc<dyn EmitObserver>], event: &str, outcome: &EmitResult) {
    for observer in observers {
        if catch_unwind(AssertUnwindSafe(|| observer.observe(event, outcome))).is_err() {
            tracing::error!(event, "an emit observer panicked; the emit is unaffected");
        }
    }
}
