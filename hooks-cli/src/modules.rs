//! The modules the `hooks` binary's hooks files can mount: the standard ones, and `telemetry`.
//!
//! With the `otel` feature (off by default: it adds 42 crates to the build) `telemetry` exports every decision over OTLP/HTTP
//! (see the `hooks-otel` crate); without it the module still loads, and mounting it only warns
//! that nothing is exported: telemetry never decides, so its absence blocks nothing.

use std::path::Path;

use hooks_config::{ConfigErrors, HooksConfig};
use hooks_std::catalog::ModuleCatalog;

/// The catalog of the `hooks` binary.
pub fn catalog() -> ModuleCatalog {
    let mut catalog = ModuleCatalog::standard();
    #[cfg(feature = "otel")]
    let added = hooks_otel::add_to_catalog(&mut catalog);
    #[cfg(not(feature = "otel"))]
    let added = catalog.add("telemetry", |_config, _context| {
        Ok(Box::new(without_otel::Telemetry) as _)
    });
    // The catalog is built here from the standard one, which has no `telemetry`.
    debug_assert!(added.is_ok());
    catalog
}

/// Loads a hooks file with the binary's catalog.
pub fn load_file(path: &Path) -> Result<HooksConfig, ConfigErrors> {
    hooks_config::load_file_with(path, &catalog())
}

/// Exports what the `telemetry` module recorded, within its timeout (a process that lives for
/// one event calls it before it exits); nothing without the module.
pub fn flush_telemetry() {
    #[cfg(feature = "otel")]
    if !hooks_otel::flush_installed() {
        eprintln!("hooks: telemetry not exported within its timeout");
    }
}

#[cfg(not(feature = "otel"))]
mod without_otel {
    use hooks_core::HookRegistry;
    use hooks_core::module::{HookModule, MountError, Mounted};

    /// `telemetry` in a binary built without the `otel` feature.
    pub struct Telemetry;

    impl HookModule for Telemetry {
        fn name(&self) -> &str {
            "telemetry"
        }

        fn mount(&self, _registry: &HookRegistry) -> Result<Mounted, MountError> {
            eprintln!(
                "hooks: this binary was built without the `otel` feature; the telemetry module exports nothing"
            );
            Ok(Mounted::new("telemetry"))
        }
    }
}
