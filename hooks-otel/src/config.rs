//! [`TelemetryConfig`]: where the telemetry goes and how long a process may wait for it.
//!
//! Each setting left out falls back to the standard OpenTelemetry environment variable, then to
//! a default fit for a hook (which runs on every tool call):
//!
//! | key | environment variable | default |
//! |---|---|---|
//! | `endpoint` | `OTEL_EXPORTER_OTLP_ENDPOINT` (or the per-signal `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`) | `http://localhost:4318` |
//! | `service_name` | `OTEL_SERVICE_NAME` | `hooks` |
//! | `timeout_ms` | `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds) | `200` |
//!
//! Headers (an API key for a hosted backend) come only from `OTEL_EXPORTER_OTLP_HEADERS`, so
//! that no secret has to be written in a hooks file; resource attributes from
//! `OTEL_RESOURCE_ATTRIBUTES`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The default export timeout: also the most an unreachable collector delays a process that
/// flushes before it exits.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(200);

/// The service name when neither the configuration nor `OTEL_SERVICE_NAME` gives one.
pub const DEFAULT_SERVICE_NAME: &str = "hooks";

/// The longest export timeout accepted: a hook that waits longer stalls its agent.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(30);

/// The telemetry settings (the `telemetry` module's configuration in a hooks file).
///
/// ```
/// use hooks_otel::TelemetryConfig;
///
/// let config: TelemetryConfig = serde_json::from_value(serde_json::json!({
///     "endpoint": "http://localhost:4318",
///     "service_name": "claude-hooks",
///     "timeout_ms": 200,
/// })).unwrap();
/// config.check().unwrap();
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TelemetryConfig {
    /// The collector's OTLP/HTTP base address; `/v1/traces` and `/v1/metrics` are appended.
    pub endpoint: Option<String>,
    /// The `service.name` of the resource.
    pub service_name: Option<String>,
    /// The export timeout in milliseconds.
    pub timeout_ms: Option<u64>,
}

/// Why a telemetry configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("telemetry: {0}")]
pub struct TelemetryConfigError(pub(crate) String);

impl TelemetryConfig {
    /// Checks the settings given (the environment is read when the exporter is built).
    pub fn check(&self) -> Result<(), TelemetryConfigError> {
        if let Some(endpoint) = &self.endpoint {
            check_endpoint(endpoint)?;
        }
        if let Some(name) = &self.service_name
            && name.trim().is_empty()
        {
            return Err(TelemetryConfigError("`service_name` is empty".into()));
        }
        if let Some(ms) = self.timeout_ms {
            timeout_from_ms(ms).map_err(TelemetryConfigError)?;
        }
        Ok(())
    }

    /// The export timeout: the configured one, else `OTEL_EXPORTER_OTLP_TIMEOUT`, else
    /// [`DEFAULT_TIMEOUT`]. An unusable environment value falls back to the default.
    pub fn timeout(&self) -> Duration {
        if let Some(ms) = self.timeout_ms {
            return timeout_from_ms(ms).unwrap_or(DEFAULT_TIMEOUT);
        }
        std::env::var("OTEL_EXPORTER_OTLP_TIMEOUT")
            .ok()
            .and_then(|value| value.trim().parse::<u64>().ok())
            .and_then(|ms| timeout_from_ms(ms).ok())
            .unwrap_or(DEFAULT_TIMEOUT)
    }

    /// The service name: the configured one, else `OTEL_SERVICE_NAME`, else
    /// [`DEFAULT_SERVICE_NAME`].
    pub fn service_name(&self) -> String {
        self.service_name
            .clone()
            .or_else(|| {
                std::env::var("OTEL_SERVICE_NAME")
                    .ok()
                    .filter(|name| !name.trim().is_empty())
            })
            .unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_owned())
    }

    /// The address of one signal (`traces`, `metrics`) under the configured endpoint; `None`
    /// leaves it to the exporter, which reads the environment.
    pub(crate) fn signal_endpoint(&self, signal: &str) -> Option<String> {
        self.endpoint
            .as_deref()
            .map(|base| format!("{}/v1/{signal}", base.trim_end_matches('/')))
    }
}

fn check_endpoint(endpoint: &str) -> Result<(), TelemetryConfigError> {
    let rest = endpoint
        .strip_prefix("http://")
        .or_else(|| endpoint.strip_prefix("https://"))
        .ok_or_else(|| {
            TelemetryConfigError(format!(
                "`endpoint` `{endpoint}` is not an http:// or https:// address"
            ))
        })?;
    if rest.is_empty() || rest.starts_with('/') || rest.contains(char::is_whitespace) {
        return Err(TelemetryConfigError(format!(
            "`endpoint` `{endpoint}` has no host"
        )));
    }
    Ok(())
}

fn timeout_from_ms(ms: u64) -> Result<Duration, String> {
    let timeout = Duration::from_millis(ms);
    if timeout.is_zero() || timeout > MAX_TIMEOUT {
        return Err(format!(
            "`timeout_ms` {ms} is not between 1 and {}",
            MAX_TIMEOUT.as_millis()
        ));
    }
    Ok(timeout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_are_refused_with_the_key() {
        let bad = |config: serde_json::Value| {
            serde_json::from_value::<TelemetryConfig>(config)
                .map_err(|e| e.to_string())
                .and_then(|c| c.check().map_err(|e| e.to_string()))
                .unwrap_err()
        };
        assert!(bad(serde_json::json!({"endpoint": "localhost:4318"})).contains("`endpoint`"));
        assert!(bad(serde_json::json!({"endpoint": "http://"})).contains("no host"));
        assert!(bad(serde_json::json!({"timeout_ms": 0})).contains("`timeout_ms`"));
        assert!(bad(serde_json::json!({"timeout_ms": 600000})).contains("`timeout_ms`"));
        assert!(bad(serde_json::json!({"service_name": " "})).contains("`service_name`"));
        assert!(bad(serde_json::json!({"endpiont": "http://x"})).contains("endpiont"));
    }

    #[test]
    fn a_base_endpoint_gets_the_signal_path() {
        let config = TelemetryConfig {
            endpoint: Some("http://collector:4318/".into()),
            ..TelemetryConfig::default()
        };
        assert_eq!(
            config.signal_endpoint("traces").as_deref(),
            Some("http://collector:4318/v1/traces")
        );
        assert_eq!(
            TelemetryConfig {
                timeout_ms: Some(50),
                ..TelemetryConfig::default()
            }
            .timeout(),
            Duration::from_millis(50)
        );
    }
}
