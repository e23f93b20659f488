//! W3C trace context across processes: the carrier this crate installs in `hooks-core`
//! ([`hooks_core::trace::set_context_carrier`]), so that a span can be parented to a context
//! that arrived with a request and a request can carry the context of the span it is made in.

use std::collections::HashMap;
use std::sync::Arc;

use hooks_core::trace::{ContextCarrier, TraceContext};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

/// The carrier: W3C Trace Context read and written by OpenTelemetry's own propagator, the
/// spans' ids those of the `tracing` bridge.
struct W3cCarrier;

impl ContextCarrier for W3cCarrier {
    fn adopt(&self, span: &Span, context: &TraceContext) -> bool {
        if !well_formed(&context.traceparent) {
            return false;
        }
        let mut headers = HashMap::from([(TRACEPARENT.to_owned(), context.traceparent.clone())]);
        if let Some(state) = &context.tracestate {
            headers.insert(TRACESTATE.to_owned(), state.clone());
        }
        let remote = TraceContextPropagator::new().extract(&headers);
        // Nor of ids of zeros or version `ff`: no parent, a new trace.
        if !remote.span().span_context().is_valid() {
            return false;
        }
        span.set_parent(remote).is_ok()
    }

    fn context_of(&self, span: &Span) -> Option<TraceContext> {
        let context = span.context();
        if !context.span().span_context().is_valid() {
            return None;
        }
        let mut headers = HashMap::new();
        TraceContextPropagator::new().inject_context(&context, &mut headers);
        Some(TraceContext {
            traceparent: headers.remove(TRACEPARENT)?,
            tracestate: headers.remove(TRACESTATE).filter(|state| !state.is_empty()),
        })
    }
}

/// Whether `traceparent` has W3C's shape: `version-traceid-parentid-flags` in lowercase hex
/// of 2, 32, 16 and 2 digits (version `00` has nothing after the flags). OpenTelemetry's
/// propagator alone would take a short id, padded with zeros, for a valid one.
fn well_formed(traceparent: &str) -> bool {
    let parts: Vec<&str> = traceparent.split('-').collect();
    let hex = |part: &str, length: usize| {
        part.len() == length
            && part
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    match parts[..] {
        [version, trace, parent, flags, ref rest @ ..] => {
            hex(version, 2)
                && hex(trace, 32)
                && hex(parent, 16)
                && hex(flags, 2)
                && (version != "00" || rest.is_empty())
        }
        _ => false,
    }
}

/// Installs the carrier (each pipeline built installs it again; it holds no state).
pub(crate) fn install_carrier() {
    hooks_core::trace::set_context_carrier(Arc::new(W3cCarrier));
}

#[cfg(test)]
mod tests {
    use super::well_formed;

    #[test]
    fn only_the_w3c_shape_is_well_formed() {
        assert!(well_formed(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        ));
        // A later version may add fields.
        assert!(well_formed(
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more"
        ));
        for malformed in [
            "00-4bf92f35-00f067aa-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "not a traceparent",
            "",
        ] {
            assert!(!well_formed(malformed), "{malformed}");
        }
    }
}
