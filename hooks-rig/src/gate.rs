//! The gate every blocking event goes through: emit, apply what is not a decision, settle
//! the decision (a deny, or an `ask_user` put to the approval provider).
//!
//! `HookSession` keeps its own gate private and runs whole tool calls at once; rig splits a
//! tool call into a dispatch and an outcome, so the adapter gates each boundary itself with
//! the session's parts: [`HookSession::apply`] for injections, user messages and failures,
//! and [`Approvals`] for the questions.

use serde_json::Value;

use hooks_core::approval::{ApprovalRequest, Approvals};
use hooks_core::session::{Blocked, HookSession};
use hooks_core::{EmitResult, HookAction};

/// What one gated emit settled to.
pub(crate) struct Gated {
    /// The folded outcome of the emit (already applied).
    pub(crate) outcome: EmitResult,
    /// Why the operation must not proceed, if it must not.
    pub(crate) blocked: Option<Blocked>,
}

impl Gated {
    /// The final event data, when a hook changed it; `None` when no hook did.
    pub(crate) fn modified_data(&mut self) -> Option<Value> {
        if self.outcome.is_modified() {
            Some(self.outcome.result.data.take().unwrap_or(Value::Null))
        } else {
            None
        }
    }
}

/// Emits `event`, applies the outcome through the session and settles it.
pub(crate) async fn gate(
    session: &HookSession,
    approvals: &Approvals,
    event: &str,
    data: Value,
) -> Gated {
    let outcome = session.registry().emit(event, data).await;
    session.apply(&outcome).await;
    let blocked = settle(approvals, &outcome, event).await;
    Gated { outcome, blocked }
}

/// `Some(blocked)` when the outcome does not let the operation proceed: a deny, or an
/// `ask_user` that was not approved.
async fn settle(approvals: &Approvals, outcome: &EmitResult, event: &str) -> Option<Blocked> {
    match outcome.action {
        HookAction::Deny => Some(Blocked::ByHook {
            reason: outcome.reason.clone().unwrap_or_else(|| {
                format!(
                    "`{}` denied `{event}` without a reason",
                    outcome.decided_by.as_deref().unwrap_or("a hook")
                )
            }),
            hook: outcome.decided_by.clone(),
        }),
        HookAction::AskUser => {
            let request =
                ApprovalRequest::from_result(&outcome.result, event, outcome.decided_by.clone());
            let decision = approvals.decide(&request).await;
            (!decision.allowed).then_some(Blocked::ByApproval {
                prompt: request.prompt,
                decision,
            })
        }
        _ => None,
    }
}
