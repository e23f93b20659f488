//! Hooks files from Python: `hooks.load("hooks.yaml")` mounts a file's modules and entries on
//! the Rust kernel and registers, for each event they handle, one Python handler that runs
//! them there.

use std::path::PathBuf;
use std::sync::Arc;

use hooks_core::module::{HookModule, Mounted};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::json;
use crate::registry::HookRegistry;
use crate::result::HookResult;

/// The mounted file a bridge runs events on.
struct Mount {
    registry: hooks_core::HookRegistry,
    runtime: tokio::runtime::Runtime,
    /// Kept for as long as a bridge lives: the file's handlers stay mounted.
    _mounted: Mounted,
}

/// The handler `load` registers for one event: runs the file's hooks for it on the kernel
/// and answers their merged result.
///
/// It is a plain (not `async`) handler: it blocks the event loop while the file's hooks run,
/// which for matcher and module hooks is microseconds; command, HTTP and LLM hooks take as
/// long as they take (their `timeout_ms` bounds it).
#[pyclass(module = "hooks", name = "FileHooks")]
pub struct FileHooks {
    mount: Arc<Mount>,
    /// What the file is, for `repr`.
    file: String,
}

#[pymethods]
impl FileHooks {
    fn __call__(
        &self,
        py: Python<'_>,
        event: &str,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<HookResult> {
        let data = json::to_json(data)?;
        let mount = Arc::clone(&self.mount);
        let event = event.to_owned();
        let outcome = py.detach(move || mount.runtime.block_on(mount.registry.emit(&event, data)));
        HookResult::from_kernel(py, &outcome.result)
    }

    fn __repr__(&self) -> String {
        format!("<hooks from {}>", self.file)
    }
}

/// Loads a hooks file (YAML: `modules:` and `hooks:`) into a new `HookRegistry`.
///
/// Each event the file handles gets one handler, named after the file's own handlers for it
/// (joined by `+`), at `priority`. A file that does not load is a `ValueError` listing every
/// problem with its line.
#[pyfunction]
#[pyo3(signature = (path, *, priority = 0, registry = None))]
pub fn load<'py>(
    py: Python<'py>,
    path: PathBuf,
    priority: i64,
    registry: Option<Bound<'py, HookRegistry>>,
) -> PyResult<Bound<'py, HookRegistry>> {
    let config = hooks_config::load_file(&path)
        .map_err(|errors| PyValueError::new_err(format!("{}: {errors}", path.display())))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| PyRuntimeError::new_err(format!("cannot start the runtime: {error}")))?;
    let kernel = hooks_core::HookRegistry::new();
    let mounted = config
        .mount(&kernel)
        .map_err(|error| PyValueError::new_err(format!("{}: {error}", path.display())))?;
    let handled = kernel.list_handlers(None);
    let mount = Arc::new(Mount {
        registry: kernel,
        runtime,
        _mounted: mounted,
    });
    let registry = match registry {
        Some(registry) => registry,
        None => {
            let class = py.get_type::<HookRegistry>();
            class.call0()?.cast_into::<HookRegistry>()?
        }
    };
    let file = path.display().to_string();
    for (event, names) in handled {
        let bridge = Bound::new(
            py,
            FileHooks {
                mount: Arc::clone(&mount),
                file: file.clone(),
            },
        )?;
        let name = if names.is_empty() {
            file.clone()
        } else {
            names.join("+")
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item("priority", priority)?;
        kwargs.set_item("name", name)?;
        // A file's hooks that cannot even run (data that is not JSON) deny: a guard never
        // fails open by accident.
        kwargs.set_item("fail_closed", true)?;
        registry.call_method(
            "register",
            (PyString::new(py, &event), bridge),
            Some(&kwargs),
        )?;
    }
    Ok(registry)
}
