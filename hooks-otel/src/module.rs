//! The `telemetry` module of a hooks file: mounting it installs the pipeline as the process's
//! global subscriber (once per process).
//!
//! ```yaml
//! modules:
//!   telemetry: {endpoint: "http://localhost:4318", service_name: "claude-hooks", timeout_ms: 200}
//! ```

use hooks_core::HookRegistry;
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_std::catalog::{CatalogError, ModuleCatalog};

use crate::config::{TelemetryConfig, TelemetryConfigError};
use crate::pipeline::{Telemetry, TelemetryError};

/// The module's name in a hooks file.
pub const MODULE_NAME: &str = "telemetry";

/// The `telemetry` module: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct TelemetryModule {
    config: TelemetryConfig,
}

impl TelemetryModule {
    /// Checks `config`; nothing is set up until the module is mounted.
    pub fn new(config: TelemetryConfig) -> Result<Self, TelemetryConfigError> {
        config.check()?;
        Ok(TelemetryModule { config })
    }
}

impl HookModule for TelemetryModule {
    fn name(&self) -> &str {
        MODULE_NAME
    }

    /// Installs the pipeline; registers no handler, so it never takes part in a decision.
    /// When the process already has its own subscriber, the module says so through `tracing`
    /// and exports nothing (the application adds [`Telemetry::layer`] itself): telemetry never
    /// keeps a policy from mounting.
    fn mount(&self, _registry: &HookRegistry) -> Result<Mounted, MountError> {
        match Telemetry::install(&self.config) {
            Ok(_) => {}
            Err(TelemetryError::Config(error)) => {
                return Err(MountError::Config {
                    module: MODULE_NAME.to_owned(),
                    reason: error.to_string(),
                });
            }
            Err(error) => tracing::warn!("{error}; no telemetry is exported"),
        }
        Ok(Mounted::new(MODULE_NAME))
    }
}

/// Adds the `telemetry` module to `catalog`, so that hooks files loaded with it can mount it.
///
/// ```
/// let mut catalog = hooks_std::catalog::ModuleCatalog::standard();
/// hooks_otel::add_to_catalog(&mut catalog).unwrap();
/// assert!(catalog.contains("telemetry"));
/// ```
pub fn add_to_catalog(catalog: &mut ModuleCatalog) -> Result<(), CatalogError> {
    catalog.add(MODULE_NAME, |config, _context| {
        let config: TelemetryConfig =
            serde_json::from_value(config.clone()).map_err(|error| error.to_string())?;
        Ok(Box::new(TelemetryModule::new(config).map_err(|e| e.0)?) as _)
    })
}
