//! OpenTelemetry trace context carried in `_meta`, as the MCP revisions of both eras reserve
//! it (W3C `traceparent` and `tracestate`): a `tools/call` whose request names a span is
//! traced under that span, and the request the proxy forwards names the proxy's own span, so
//! that the server's spans nest under it.
//!
//! The spans' ids are known only to an exporter (`hooks-otel`'s, which installs the carrier in
//! `hooks-core`); without one the call's span is not recorded, and a forwarded request keeps
//! the client's context as it came: the proxy is then no hop of the trace.

use hooks_core::trace::{TARGET, TraceContext, adopt_remote_parent, trace_context_of};
use rmcp::model::RequestMetaObject;
use tracing::Span;

/// The proxy's span of one `tools/call`, around the gate's spans and the forwarded request.
const CALL_SPAN: &str = "hooks.mcp.tool_call";

const TRACESTATE: &str = "tracestate";

/// The proxy's span for one call of the server's tool `tool`, named `tools/call {tool}` as
/// OpenTelemetry's MCP conventions name it, and a child of the span `meta` names, when it names
/// one. A `traceparent` that is not a valid W3C one is ignored: the call starts a new trace.
pub(super) fn call_span(server: &str, tool: &str, meta: &RequestMetaObject) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        CALL_SPAN,
        otel.name = %format_args!("tools/call {tool}"),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        gen_ai.tool.name = tool,
        hooks.mcp.server = server,
    );
    if let Some(traceparent) = meta.get_traceparent() {
        let remote = TraceContext {
            traceparent: traceparent.to_owned(),
            tracestate: meta.get_tracestate().map(str::to_owned),
        };
        adopt_remote_parent(&span, &remote);
    }
    span
}

/// `meta` made to name the current span (the call's), for a request forwarded in it; left as
/// it came when that span is not recorded.
pub(super) fn name_current_span(meta: &mut RequestMetaObject) {
    let Some(context) = trace_context_of(&Span::current()) else {
        return;
    };
    meta.set_traceparent(context.traceparent);
    match context.tracestate {
        Some(state) => meta.set_tracestate(state),
        None => {
            meta.remove(TRACESTATE);
        }
    }
}
