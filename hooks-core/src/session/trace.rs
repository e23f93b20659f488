//! The session layer's `tracing` spans and events, beside the kernel's [`crate::trace`]: a
//! tool call through the [`ToolCallGate`](super::ToolCallGate) is a [`TOOL_CALL_SPAN`] span
//! named `execute_tool {tool}` around both its emits and the tool itself, and any other
//! [`HookSession::gate`](super::HookSession::gate) a [`GATE_SPAN`] span; approvals
//! ([`APPROVAL_EVENT`] events) and injections with their audit outcome ([`INJECTION_EVENT`]
//! events) are recorded on them.
//!
//! Everything is on the kernel's target [`crate::trace::TARGET`] and follows its rules:
//! identifiers and counts only, texts a hook wrote only through the
//! [redactor](crate::trace::set_redactor).

use tracing::Span;

use super::Blocked;
use super::approval::{ApprovalDecision, ApprovalRequest, DecisionSource};
use super::injection::{Disposition, InjectionAudit, Placement};
use crate::trace::{TARGET, count, record_text, redacted};

/// The span of one tool call through a [`ToolCallGate`](super::ToolCallGate).
pub const TOOL_CALL_SPAN: &str = "hooks.tool_call";
/// The span of one [`HookSession::gate`](super::HookSession::gate) outside a tool call.
pub const GATE_SPAN: &str = "hooks.gate";
/// The message of the event recorded for each approval decision.
pub const APPROVAL_EVENT: &str = "hooks.approval";
/// The message of the event recorded for each injection applied.
pub const INJECTION_EVENT: &str = "hooks.injection";

/// The span of one tool call through a gate, named `execute_tool {tool}` as the GenAI
/// conventions name a tool execution.
pub(crate) fn tool_call_span(tool: &str) -> Span {
    tracing::info_span!(
        target: TARGET,
        TOOL_CALL_SPAN,
        otel.name = %format_args!("execute_tool {tool}"),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        gen_ai.tool.call.id = tracing::field::Empty,
        hooks.outcome = tracing::field::Empty,
        hooks.blocked_by = tracing::field::Empty,
        hooks.reason = tracing::field::Empty,
        hooks.input_rewritten = tracing::field::Empty,
        hooks.approval = tracing::field::Empty,
        hooks.injections = tracing::field::Empty,
    )
}

/// The span of one session gate outside a tool call.
pub(crate) fn gate_span(event: &str) -> Span {
    tracing::info_span!(
        target: TARGET,
        GATE_SPAN,
        hooks.event = event,
        hooks.outcome = tracing::field::Empty,
        hooks.blocked_by = tracing::field::Empty,
        hooks.reason = tracing::field::Empty,
        hooks.approval = tracing::field::Empty,
        hooks.injections = tracing::field::Empty,
    )
}

/// Records how a gate or tool call ended: `outcome` (`ran`, `blocked`, ...), and for a block
/// the hook that blocked and its reason.
pub(crate) fn record_end(span: &Span, outcome: &str, blocked: Option<&Blocked>) {
    if span.is_disabled() {
        return;
    }
    span.record("hooks.outcome", outcome);
    match blocked {
        Some(Blocked::ByHook { reason, hook }) => {
            if let Some(hook) = hook {
                span.record("hooks.blocked_by", &**hook);
            }
            record_text(span, "hooks.reason", Some(reason));
        }
        Some(Blocked::ByApproval { .. }) => {
            span.record("hooks.blocked_by", "approval");
        }
        Some(Blocked::InvalidModification { reason }) => {
            span.record("hooks.blocked_by", "invalid_modification");
            record_text(span, "hooks.reason", Some(reason));
        }
        None => {}
    }
}

/// Records whether a tool call's input was rewritten by a `tool:pre` hook.
pub(crate) fn record_rewritten(span: &Span, rewritten: bool) {
    span.record("hooks.input_rewritten", rewritten);
}

/// Records an approval decision on the current span (the tool call's or the gate's).
pub(crate) fn approval(request: &ApprovalRequest, decision: &ApprovalDecision) {
    let span = Span::current();
    let verdict = if decision.allowed {
        "granted"
    } else {
        "denied"
    };
    span.record("hooks.approval", verdict);
    let source = match &decision.source {
        DecisionSource::User => "user",
        DecisionSource::Remembered => "remembered",
        DecisionSource::Timeout => "timeout",
        DecisionSource::ProviderError(_) => "provider_error",
        DecisionSource::NoProvider => "no_provider",
        DecisionSource::UnusableAnswer(_) => "unusable_answer",
    };
    if tracing::event_enabled!(target: TARGET, tracing::Level::INFO) {
        let prompt = redacted(&request.prompt);
        tracing::event!(
            target: TARGET,
            tracing::Level::INFO,
            {
                "hooks.hook.name" = request.hook.as_deref(),
                "hooks.event" = request.event.as_str(),
                "hooks.approval" = verdict,
                "hooks.approval.source" = source,
                "hooks.approval.prompt" = prompt.as_deref(),
            },
            "{APPROVAL_EVENT}"
        );
    }
}

/// Records the injections applied by one gate step on the current span, with each one's
/// audit outcome (never its text).
pub(crate) fn injections(audits: &[InjectionAudit]) {
    if audits.is_empty() {
        return;
    }
    let span = Span::current();
    if span.is_disabled() && !tracing::event_enabled!(target: TARGET, tracing::Level::INFO) {
        return;
    }
    span.record("hooks.injections", count(audits.len()));
    for audit in audits {
        let disposition = match audit.disposition {
            Disposition::Delivered => "delivered",
            Disposition::Truncated { .. } => "truncated",
            Disposition::RejectedTooLarge { .. } => "rejected_too_large",
            Disposition::RejectedBudgetSpent { .. } => "rejected_budget_spent",
        };
        let placement = match audit.placement {
            Placement::NewMessage => "new_message",
            Placement::AppendedToToolResult => "appended_to_tool_result",
            Placement::NextModelCall => "next_model_call",
            Placement::Rejected => "rejected",
        };
        tracing::event!(
            target: TARGET,
            tracing::Level::INFO,
            {
                "hooks.hook.name" = &*audit.hook,
                "hooks.event" = &*audit.event,
                "hooks.injection.disposition" = disposition,
                "hooks.injection.placement" = placement,
                "hooks.injection.tokens" = count(audit.tokens),
                "hooks.injection.role" = audit.role.as_str(),
                "hooks.injection.ephemeral" = audit.ephemeral,
            },
            "{INJECTION_EVENT}"
        );
    }
}
