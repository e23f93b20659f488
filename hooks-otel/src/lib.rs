//! The hooks' decisions as OpenTelemetry traces and metrics, exported over OTLP/HTTP
//! (protobuf) to a collector.
//!
//! `hooks-core` records every emit, handler call, tool call, approval and injection as
//! `tracing` spans (see [`hooks_core::trace`]). This crate sets up the OpenTelemetry SDK with
//! the OTLP exporter and bridges those spans into it, with three metrics derived from them
//! (decisions, hook latency, failures: see [`metrics`](crate#metrics)). Texts written by hooks
//! (reasons, approval prompts) pass through the logging module's redaction first.
//!
//! Three ways in:
//!
//! - a hooks file mounts the [`telemetry`](module) module (the `hooks` binary built with its
//!   `otel` feature knows it; an application adds it to its catalog with
//!   [`add_to_catalog`]);
//! - [`Telemetry::install`] makes the pipeline the process's global subscriber;
//! - [`Telemetry::layer`] adds it to a subscriber the application builds itself.
//!
//! The pipeline also carries W3C trace context across processes (see
//! [`hooks_core::trace::ContextCarrier`]): an integration whose calls arrive with a
//! `traceparent`, as the MCP proxy's do in `_meta`, has its spans parented to it, and names its
//! own span in the requests it makes.
//!
//! A process that lives for one event (an agent's command hook) calls [`Telemetry::flush`]
//! (or [`flush_installed`]) before it exits: the spans of the event are exported, and an
//! unreachable collector costs at most the export timeout (200 ms by default), never the
//! decision.
//!
//! ```no_run
//! use hooks_otel::{Telemetry, TelemetryConfig};
//!
//! let telemetry = Telemetry::install(&TelemetryConfig {
//!     endpoint: Some("http://localhost:4318".into()),
//!     service_name: Some("my-agent".into()),
//!     ..TelemetryConfig::default()
//! })?;
//! // ... emits, tool calls ...
//! telemetry.flush();
//! # Ok::<(), hooks_otel::TelemetryError>(())
//! ```
//!
//! # Metrics
#![doc = include_str!("metrics.md")]

mod config;
mod metrics;
pub mod module;
mod pipeline;
mod propagation;

pub use config::{
    DEFAULT_SERVICE_NAME, DEFAULT_TIMEOUT, MAX_TIMEOUT, TelemetryConfig, TelemetryConfigError,
};
pub use module::{TelemetryModule, add_to_catalog};
pub use pipeline::{Telemetry, TelemetryError, flush_installed};
