//! The modules the `hooks` binary's hooks files can mount: the standard ones, and `telemetry`.
//!
//! With the `otel` feature (off by default: it adds 42 crates to the build) `telemetry` exports every decision over OTLP/HTTP
//! (see the `hooks-otel` crate); without it the module still loads, and mounting it only warns
//! that nothing is exported: telemetry never decides, so its absence blocks nothing.

use std::path::Path;

use hooks_config::{LayerPaths, LayersError, Level, PolicyStack};
use hooks_std::catalog::ModuleCatalog;

/// The catalog of the `hooks` binary: its `safety` modules keep the binary's own setup,
/// processes and files from the agent ([`protection`](crate::protection)).
pub fn catalog() -> ModuleCatalog {
    let mut catalog = ModuleCatalog::standard();
    catalog.protect(crate::protection::self_protection());
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

/// Loads the policy layers of the hooks file `path` with the binary's catalog: the managed and
/// user files of this machine and environment under it.
pub fn load_layers(path: &Path) -> Result<PolicyStack, LayersError> {
    PolicyStack::load(&LayerPaths::from_env(), path, &catalog())
}

/// Why the policy cannot run, for a person: a broken project file as `the policy file is
/// broken` and its problems, a managed or user file by its level.
pub fn unloadable(error: &LayersError) -> String {
    match error {
        LayersError::Broken {
            level: Level::Project,
            errors,
        } => format!("the policy file is broken:\n{errors}"),
        other => other.to_string(),
    }
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
