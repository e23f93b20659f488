//! The metrics beside the spans, derived from them: a `tracing` layer that counts each
//! decision when its `hooks.emit` span closes, times each `hooks.handler` span, and counts each
//! `hooks.failure` event.
//!
#![doc = include_str!("metrics.md")]

use std::fmt;
use std::time::Instant;

use hooks_core::trace::{EMIT_SPAN, FAILURE_EVENT, HANDLER_SPAN};
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The instruments, and the layer that feeds them.
pub(crate) struct MetricsLayer {
    decisions: Counter<u64>,
    handler_duration: Histogram<f64>,
    failures: Counter<u64>,
}

impl MetricsLayer {
    pub(crate) fn new(meter: &Meter) -> Self {
        MetricsLayer {
            decisions: meter
                .u64_counter("hooks.decisions")
                .with_description(
                    "Emits heard by at least one hook, by event, action and deciding hook",
                )
                .build(),
            handler_duration: meter
                .f64_histogram("hooks.handler.duration")
                .with_unit("s")
                .with_description("How long each hook handler ran")
                .build(),
            failures: meter
                .u64_counter("hooks.failures")
                .with_description("Hook handlers that failed and were skipped, by kind")
                .build(),
        }
    }
}

/// What the layer keeps of a span until it closes.
#[derive(Default)]
struct Noted {
    started: Option<Instant>,
    event: Option<String>,
    action: Option<String>,
    decided_by: Option<String>,
    hook: Option<String>,
    answer: Option<String>,
    error_type: Option<String>,
    message: Option<String>,
}

impl Visit for Noted {
    fn record_str(&mut self, field: &Field, value: &str) {
        let slot = match field.name() {
            "hooks.event" => &mut self.event,
            "hooks.action" => &mut self.action,
            "hooks.decided_by" => &mut self.decided_by,
            "hooks.hook.name" => &mut self.hook,
            "hooks.answer" => &mut self.answer,
            "error.type" => &mut self.error_type,
            _ => return,
        };
        *slot = Some(value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.message = Some(format!("{value:?}"));
        }
    }
}

fn attribute(key: &'static str, value: &Option<String>) -> KeyValue {
    KeyValue::new(key, value.clone().unwrap_or_else(|| "none".to_owned()))
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for MetricsLayer {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let name = attrs.metadata().name();
        if name != EMIT_SPAN && name != HANDLER_SPAN {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut noted = Noted {
            started: Some(Instant::now()),
            ..Noted::default()
        };
        attrs.record(&mut noted);
        // A handler's event is its emit's.
        if noted.event.is_none()
            && let Some(parent) = span.parent()
        {
            noted.event = parent
                .extensions()
                .get::<Noted>()
                .and_then(|p| p.event.clone());
        }
        span.extensions_mut().insert(noted);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(noted) = span.extensions_mut().get_mut::<Noted>()
        {
            values.record(noted);
        }
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut noted = Noted::default();
        event.record(&mut noted);
        if noted.message.as_deref() != Some(FAILURE_EVENT) {
            return;
        }
        self.failures.add(
            1,
            &[
                attribute("hooks.event", &noted.event),
                attribute("hooks.hook.name", &noted.hook),
                attribute("error.type", &noted.error_type),
            ],
        );
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(noted) = span.extensions_mut().remove::<Noted>() else {
            return;
        };
        if span.name() == EMIT_SPAN {
            self.decisions.add(
                1,
                &[
                    attribute("hooks.event", &noted.event),
                    attribute("hooks.action", &noted.action),
                    attribute("hooks.decided_by", &noted.decided_by),
                ],
            );
        } else if let Some(started) = noted.started {
            self.handler_duration.record(
                started.elapsed().as_secs_f64(),
                &[
                    attribute("hooks.event", &noted.event),
                    attribute("hooks.hook.name", &noted.hook),
                    attribute("hooks.answer", &noted.answer),
                ],
            );
        }
    }
}
