//! Every decision as `tracing` spans, for observability pipelines (OpenTelemetry and others).
//!
//! - each heard emit is a [`EMIT_SPAN`] span (`INFO`): the event, the tool and call it is
//!   about, how many handlers it has and, when it ends, the action, the hook that decided, the
//!   reason, the hooks that modified the data, the injections and the failures (one
//!   `hooks.failure` event each, with its `error.type`);
//! - each handler call is a [`HANDLER_SPAN`] span (`DEBUG`), a child of its emit: the hook's
//!   name and priority, its answer, and for a failure its `error.type` and an error status.
//!
//! The session layer adds its own spans and events (tool calls, gates, approvals, injections):
//! see [`session::trace`](crate::session::trace).
//!
//! Field names follow OpenTelemetry's semantic conventions where one exists
//! (`gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
//! `gen_ai.conversation.id`, `error.type`, `otel.name`, `otel.status_code`) and the `hooks.*`
//! namespace otherwise. Every span and event is on the target [`TARGET`], so a subscriber can
//! select exactly these.
//!
//! Nothing free-form from event data reaches a field: only identifiers (event, tool name,
//! call and session ids, hook names) and counts. Texts a hook wrote (reasons, approval
//! prompts) are recorded only through the [redactor](set_redactor) an exporter installs, and
//! left out while none is installed.
//!
//! With no subscriber interested, each span costs one cached-interest check (the cost is
//! measured in `BENCHMARKS.md`); building the crate without its default `spans` feature
//! removes the emit and handler spans altogether.

use std::sync::{Arc, RwLock};

use serde_json::Value;
use tracing::Span;

use crate::events::fields::TOOL_CALL_ID;
use crate::outcome::FailureKind;
use crate::sync::{read, write};

/// The target of every span and event of this module and of the session layer's.
pub const TARGET: &str = "hooks";
/// The span of one emit.
pub const EMIT_SPAN: &str = "hooks.emit";
/// The span of one handler call, a child of its emit's span.
pub const HANDLER_SPAN: &str = "hooks.handler";
/// The message of the event recorded for each handler failure.
pub const FAILURE_EVENT: &str = "hooks.failure";

/// Makes a text safe to record: returns it with every secret replaced.
pub type Redactor = dyn Fn(&str) -> String + Send + Sync;

static REDACTOR: RwLock<Option<Arc<Redactor>>> = RwLock::new(None);

/// Installs the redactor that texts written by hooks (reasons, approval prompts, failure
/// messages) pass through before they are recorded; without one they are not recorded at all.
/// Replaces any redactor installed before.
///
/// ```
/// hooks_core::trace::set_redactor(std::sync::Arc::new(|text: &str| text.replace("hunter2", "[REDACTED]")));
/// ```
pub fn set_redactor(redactor: Arc<Redactor>) {
    *write(&REDACTOR) = Some(redactor);
}

/// `text` through the installed redactor; `None` when no redactor is installed.
pub(crate) fn redacted(text: &str) -> Option<String> {
    let redactor = read(&REDACTOR).clone()?;
    Some(redactor(text))
}

/// Records `text`, redacted, in `field` of `span` (nothing without a redactor).
pub(crate) fn record_text(span: &Span, field: &'static str, text: Option<&str>) {
    if let Some(clean) = text.and_then(redacted) {
        span.record(field, clean);
    }
}

/// A span's W3C trace context as a request carries it to another process: its `traceparent`
/// and, when it has one, its `tracestate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// `version-traceid-spanid-flags`, as W3C Trace Context writes it.
    pub traceparent: String,
    /// Vendor entries, as W3C Trace Context writes them.
    pub tracestate: Option<String>,
}

/// Carries trace context across processes. Only an exporter knows the ids its spans have, so
/// it installs the carrier ([`set_context_carrier`]); an integration whose calls arrive with a
/// trace context, or which makes requests to another process, uses it through
/// [`adopt_remote_parent`] and [`trace_context_of`].
pub trait ContextCarrier: Send + Sync {
    /// Makes `span`, not yet entered, a child of the remote span `context` names. Returns
    /// whether it did: a context that is not a valid W3C trace context leaves `span` as it
    /// was (a new trace, or the span's local parent).
    fn adopt(&self, span: &Span, context: &TraceContext) -> bool;
    /// The trace context naming `span`, for a request made in it; `None` when the span is not
    /// recorded.
    fn context_of(&self, span: &Span) -> Option<TraceContext>;
}

static CARRIER: RwLock<Option<Arc<dyn ContextCarrier>>> = RwLock::new(None);

/// Installs the carrier of trace context across processes; replaces any installed before.
pub fn set_context_carrier(carrier: Arc<dyn ContextCarrier>) {
    *write(&CARRIER) = Some(carrier);
}

/// Makes `span`, not yet entered, a child of the remote span `context` names, through the
/// installed carrier. `false` when no carrier is installed or `context` is not valid: a
/// malformed context is ignored, never an error.
pub fn adopt_remote_parent(span: &Span, context: &TraceContext) -> bool {
    if span.is_disabled() {
        return false;
    }
    let carrier = read(&CARRIER).clone();
    carrier.is_some_and(|carrier| carrier.adopt(span, context))
}

/// The trace context naming `span`, through the installed carrier; `None` when no carrier is
/// installed or the span is not recorded.
pub fn trace_context_of(span: &Span) -> Option<TraceContext> {
    if span.is_disabled() {
        return None;
    }
    let carrier = read(&CARRIER).clone()?;
    carrier.context_of(span)
}

/// A count as a signed integer: OpenTelemetry has no unsigned type, and a bridge may record
/// an unsigned value as text.
pub(crate) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The `error.type` of a failure.
pub fn failure_type(kind: &FailureKind) -> &'static str {
    match kind {
        FailureKind::Error(_) => "error",
        FailureKind::Panic(_) => "panic",
        FailureKind::Timeout(_) => "timeout",
        FailureKind::InvalidResult(_) => "invalid_result",
    }
}

#[cfg(feature = "spans")]
mod spans {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use serde_json::Value;
    use tracing::Span;
    use tracing::field::Empty;

    use super::*;
    use crate::EmitResult;
    use crate::events::fields::{SESSION_ID, TOOL_NAME};
    use crate::handler::Answer;

    /// A string field of the event data (identifiers only: never a free-form field).
    fn id_field<'a>(data: &'a Value, key: &str) -> Option<&'a str> {
        data.get(key).and_then(Value::as_str)
    }

    /// The span of an emit of `event` (canonical) with `handlers` handlers, disabled when no
    /// subscriber is interested.
    #[inline]
    pub(crate) fn emit_span(event: &str, data: &Value, handlers: usize) -> Span {
        tracing::info_span!(
            target: TARGET,
            EMIT_SPAN,
            hooks.event = event,
            gen_ai.tool.name = id_field(data, TOOL_NAME),
            gen_ai.tool.call.id = id_field(data, TOOL_CALL_ID),
            gen_ai.conversation.id = id_field(data, SESSION_ID),
            hooks.handlers = count(handlers),
            hooks.action = Empty,
            hooks.decided_by = Empty,
            hooks.reason = Empty,
            hooks.modified_by = Empty,
            hooks.injections = Empty,
            hooks.failures = Empty,
        )
    }

    /// The handler chain of an emit run in `span`, its outcome recorded there.
    #[inline]
    pub(crate) fn emit<F>(span: Span, chain: F) -> Emit<F> {
        Emit { chain, span }
    }

    pin_project_lite::pin_project! {
        /// An emit's handler chain and its span. A hand-written future rather than an
        /// `async fn`, so that with the span disabled a poll is the chain's poll and one
        /// branch, and the chain is not moved once more.
        pub(crate) struct Emit<F> {
            #[pin]
            chain: F,
            span: Span,
        }
    }

    impl<F: Future<Output = EmitResult>> Future for Emit<F> {
        type Output = EmitResult;

        #[inline]
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<EmitResult> {
            let this = self.project();
            if this.span.is_disabled() {
                return this.chain.poll(cx);
            }
            let outcome = {
                let _entered = this.span.enter();
                std::task::ready!(this.chain.poll(cx))
            };
            record_outcome(this.span, &outcome);
            Poll::Ready(outcome)
        }
    }

    fn record_outcome(span: &Span, outcome: &EmitResult) {
        span.record("hooks.action", outcome.action().as_str());
        if let Some(hook) = &outcome.decided_by {
            span.record("hooks.decided_by", &**hook);
        }
        record_text(span, "hooks.reason", outcome.result.reason.as_deref());
        if !outcome.modifications.is_empty() {
            let names: Vec<&str> = outcome.modifications.iter().map(|m| &*m.hook).collect();
            span.record("hooks.modified_by", names.join(","));
        }
        span.record("hooks.injections", count(outcome.injections.len()));
        span.record("hooks.failures", count(outcome.failures.len()));
        for failure in &outcome.failures {
            tracing::event!(
                target: TARGET,
                parent: span,
                tracing::Level::WARN,
                {
                    "hooks.hook.name" = &*failure.hook,
                    "hooks.event" = &*failure.event,
                    "error.type" = failure_type(&failure.kind),
                },
                "{FAILURE_EVENT}"
            );
        }
    }

    /// Whether a subscriber may want emit spans: one load, no call.
    #[inline(always)]
    pub(crate) fn emits_traced() -> bool {
        tracing::level_enabled!(tracing::Level::INFO)
    }

    /// Whether a subscriber may want handler spans: one load, no call.
    #[inline(always)]
    pub(crate) fn handlers_traced() -> bool {
        tracing::level_enabled!(tracing::Level::DEBUG)
    }

    /// One handler call in a child span, its answer recorded there.
    #[inline]
    pub(crate) fn handler<F>(name: &str, priority: i32, call: F) -> Handler<F> {
        let span = tracing::debug_span!(
            target: TARGET,
            HANDLER_SPAN,
            hooks.hook.name = name,
            hooks.hook.priority = priority,
            hooks.answer = Empty,
            hooks.reason = Empty,
            "error.type" = Empty,
            otel.status_code = Empty,
            otel.status_message = Empty,
        );
        Handler { call, span }
    }

    pin_project_lite::pin_project! {
        /// A handler call and its span, the answer recorded there when it comes.
        pub(crate) struct Handler<F> {
            #[pin]
            call: F,
            span: Span,
        }
    }

    impl<F: Future<Output = Answer>> Future for Handler<F> {
        type Output = Answer;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
            let this = self.project();
            let answer = {
                let _entered = this.span.enter();
                std::task::ready!(this.call.poll(cx))
            };
            record_answer(this.span, &answer);
            Poll::Ready(answer)
        }
    }

    fn record_answer(span: &Span, answer: &Answer) {
        match answer {
            Answer::Continue => span.record("hooks.answer", "continue"),
            Answer::Full(result) => {
                record_text(span, "hooks.reason", result.reason.as_deref());
                span.record("hooks.answer", result.action.as_str())
            }
            Answer::Failed(kind) => {
                span.record("error.type", failure_type(kind));
                record_text(span, "otel.status_message", Some(&kind.to_string()));
                span.record("otel.status_code", "ERROR");
                span.record("hooks.answer", "failed")
            }
        };
    }
}

#[cfg(not(feature = "spans"))]
mod spans {
    //! The spans compiled out: each call is its future, untouched.

    use serde_json::Value;

    /// No span.
    pub(crate) struct NoSpan;

    #[inline(always)]
    pub(crate) fn emit_span(_event: &str, _data: &Value, _handlers: usize) -> NoSpan {
        NoSpan
    }

    #[inline(always)]
    pub(crate) fn emit<F>(_span: NoSpan, chain: F) -> F {
        chain
    }

    #[inline(always)]
    pub(crate) fn handler<F>(_name: &str, _priority: i32, call: F) -> F {
        call
    }

    #[inline(always)]
    pub(crate) fn handlers_traced() -> bool {
        false
    }

    #[inline(always)]
    pub(crate) fn emits_traced() -> bool {
        false
    }
}

pub(crate) use spans::{emit, emit_span, emits_traced, handler, handlers_traced};

/// Records the call id a caller gave a tool call's gate.
pub(crate) fn record_call_id(span: &Span, fields: &serde_json::Map<String, Value>) {
    if span.is_disabled() {
        return;
    }
    if let Some(id) = fields.get(TOOL_CALL_ID).and_then(Value::as_str) {
        span.record("gen_ai.tool.call.id", id);
    }
}
