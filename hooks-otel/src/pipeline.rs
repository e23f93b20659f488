//! [`Telemetry`]: the OpenTelemetry SDK with the OTLP/HTTP exporter, the `tracing` layer that
//! feeds it the hooks' spans, and a flush bounded by the export timeout.

use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracerProvider};
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;

use crate::config::{TelemetryConfig, TelemetryConfigError};
use crate::metrics::MetricsLayer;

/// How often a long-lived process exports its metrics (a short-lived one exports them when it
/// flushes).
const METRICS_INTERVAL: Duration = Duration::from_secs(30);

/// Why telemetry could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] TelemetryConfigError),
    /// The exporter could not be built.
    #[error("telemetry: the OTLP exporter cannot be built: {0}")]
    Exporter(String),
    /// The process already has a global `tracing` subscriber; add [`Telemetry::layer`] to it.
    #[error(
        "telemetry: the process already has a global tracing subscriber; add `Telemetry::layer()` to it instead"
    )]
    SubscriberTaken,
}

/// The telemetry pipeline: the tracer and meter providers exporting over OTLP/HTTP.
///
/// Cloning gives another handle to the same pipeline.
#[derive(Debug, Clone)]
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    timeout: Duration,
}

impl Telemetry {
    /// Builds the pipeline from `config` and the environment, and installs the redaction
    /// that texts from hooks pass through before they reach a span (the logging module's:
    /// API keys, tokens, authorization headers, private keys), and the carrier of W3C trace
    /// context across processes ([`hooks_core::trace::set_context_carrier`]).
    ///
    /// Nothing is sent until spans end; nothing is installed as the global subscriber (see
    /// [`Telemetry::install`] and [`Telemetry::layer`]).
    pub fn new(config: &TelemetryConfig) -> Result<Telemetry, TelemetryError> {
        config.check()?;
        let timeout = config.timeout();
        let resource = Resource::builder()
            .with_service_name(config.service_name())
            .build();

        let mut spans = SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_timeout(timeout);
        if let Some(endpoint) = config.signal_endpoint("traces") {
            spans = spans.with_endpoint(endpoint);
        }
        let spans = spans
            .build()
            .map_err(|error| TelemetryError::Exporter(error.to_string()))?;
        let tracer_provider = SdkTracerProvider::builder()
            .with_span_processor(BatchSpanProcessor::builder(spans).build())
            .with_resource(resource.clone())
            .build();

        let mut metrics = MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_timeout(timeout);
        if let Some(endpoint) = config.signal_endpoint("metrics") {
            metrics = metrics.with_endpoint(endpoint);
        }
        let metrics = metrics
            .build()
            .map_err(|error| TelemetryError::Exporter(error.to_string()))?;
        let meter_provider = SdkMeterProvider::builder()
            .with_reader(
                PeriodicReader::builder(metrics)
                    .with_interval(METRICS_INTERVAL)
                    .build(),
            )
            .with_resource(resource)
            .build();

        install_redaction();
        crate::propagation::install_carrier();
        Ok(Telemetry {
            tracer_provider,
            meter_provider,
            timeout,
        })
    }

    /// The `tracing` layer that exports the hooks' spans (the `hooks` target, handler spans
    /// included) and derives the metrics from them, for an application that sets up its own
    /// subscriber. Other targets are left to the application's other layers: a hook's own logs
    /// may carry what it saw, and are not exported.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        let tracer = self.tracer_provider.tracer("hooks");
        let meter = self.meter_provider.meter("hooks");
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .and_then(MetricsLayer::new(&meter))
            .with_filter(filter_fn(|metadata| {
                metadata.target() == hooks_core::trace::TARGET
            }))
    }

    /// Builds the pipeline and makes it the process's global `tracing` subscriber; once per
    /// process (later calls return the first pipeline). Fails with
    /// [`TelemetryError::SubscriberTaken`] when the application set its own subscriber.
    pub fn install(config: &TelemetryConfig) -> Result<Telemetry, TelemetryError> {
        static INSTALLED: OnceLock<Telemetry> = OnceLock::new();
        if let Some(installed) = INSTALLED.get() {
            return Ok(installed.clone());
        }
        let telemetry = Telemetry::new(config)?;
        let subscriber = tracing_subscriber::registry().with(telemetry.layer());
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|_| TelemetryError::SubscriberTaken)?;
        let installed = INSTALLED.get_or_init(|| telemetry);
        let _ = GLOBAL.set(installed.clone());
        Ok(installed.clone())
    }

    /// The export timeout, which also bounds [`Telemetry::flush`].
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Exports every span and metric recorded so far, waiting at most the export timeout: a
    /// process that lives for one event calls it before it exits. Returns whether everything
    /// was exported in time; an unreachable collector costs the timeout and nothing else.
    pub fn flush(&self) -> bool {
        let tracer_provider = self.tracer_provider.clone();
        let meter_provider = self.meter_provider.clone();
        within(
            self.timeout,
            [
                Box::new(move || tracer_provider.force_flush().is_ok()) as Job,
                Box::new(move || meter_provider.force_flush().is_ok()),
            ],
        )
    }

    /// Flushes, then stops the exporters; spans ended afterwards are dropped. Bounded by the
    /// export timeout as [`Telemetry::flush`] is.
    pub fn shutdown(&self) -> bool {
        let tracer_provider = self.tracer_provider.clone();
        let meter_provider = self.meter_provider.clone();
        within(
            self.timeout,
            [
                Box::new(move || tracer_provider.shutdown().is_ok()) as Job,
                Box::new(move || meter_provider.shutdown().is_ok()),
            ],
        )
    }
}

/// The pipeline [`Telemetry::install`] installed, if any.
static GLOBAL: OnceLock<Telemetry> = OnceLock::new();

/// Flushes the pipeline [`Telemetry::install`] installed (as the `telemetry` module does),
/// within its timeout; `true` when there is none or everything was exported in time.
pub fn flush_installed() -> bool {
    GLOBAL.get().is_none_or(Telemetry::flush)
}

type Job = Box<dyn FnOnce() -> bool + Send>;

/// Runs `jobs` side by side and waits for all of them, at most `timeout`; whether all finished
/// in time and succeeded. A job still running is left to finish on its own thread.
fn within<const N: usize>(timeout: Duration, jobs: [Job; N]) -> bool {
    let deadline = Instant::now() + timeout;
    let (done, results) = mpsc::channel();
    for job in jobs {
        let done = done.clone();
        let spawned = std::thread::Builder::new()
            .name("hooks-otel-flush".into())
            .spawn(move || {
                let _ = done.send(job());
            });
        if spawned.is_err() {
            return false;
        }
    }
    drop(done);
    let mut all = true;
    for _ in 0..N {
        let left = deadline.saturating_duration_since(Instant::now());
        match results.recv_timeout(left) {
            Ok(ok) => all &= ok,
            Err(_) => return false,
        }
    }
    all
}

/// Texts from hooks pass through the logging module's redaction before they reach a span.
fn install_redaction() {
    let redaction =
        hooks_std::redaction::RedactionModule::new(hooks_std::redaction::RedactionConfig {
            emails: false,
            ..hooks_std::redaction::RedactionConfig::default()
        });
    match redaction {
        Ok(redaction) => hooks_core::trace::set_redactor(Arc::new(move |text: &str| {
            redaction
                .redact_text(text)
                .map_or_else(|| text.to_owned(), |(clean, _)| clean)
        })),
        // The built-in rules always compile; were they ever not to, no text is recorded
        // rather than an unredacted one.
        Err(error) => {
            tracing::error!("telemetry: redaction unavailable, texts are not recorded: {error}")
        }
    }
}
