//! Hooks files from Python: `hooks.load("hooks.yaml")` mounts a file's modules and entries on
//! the Rust kernel, under the machine's managed and user hooks files as the `hooks` binary
//! mounts them, and registers, for each event they handle, one Python handler that decides it
//! there as the binary's guard does ([`hooks_config::Policy`]).

use std::path::PathBuf;
use std::sync::Arc;

use hooks_config::{LayerPaths, LayersError, Level, ModuleCatalog, Policy, PolicyStack};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::json;
use crate::registry::HookRegistry;
use crate::result::HookResult;

/// The mounted policy a bridge decides events by.
struct Mount {
    policy: Policy,
    runtime: tokio::runtime::Runtime,
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
        let outcome = py.detach(move || mount.runtime.block_on(mount.policy.decide(&event, data)));
        HookResult::from_kernel(py, &outcome.result)
    }

    fn __repr__(&self) -> String {
        format!("<hooks from {}>", self.file)
    }
}

/// Loads a hooks file (YAML: `modules:` and `hooks:`) into a new `HookRegistry`.
///
/// With `layers` (the default) the machine's managed and user hooks files apply over it, as
/// the `hooks` binary applies them; without, the file alone. Each event the policy handles
/// gets one handler, named after the policy's own handlers for it (joined by `+`), at
/// `priority`. A file that does not load is a `ValueError` listing every problem with its
/// line; so is a managed or user file that is there but does not load.
#[pyfunction]
#[pyo3(signature = (path, *, priority = 0, registry = None, layers = true))]
pub fn load<'py>(
    py: Python<'py>,
    path: PathBuf,
    priority: i64,
    registry: Option<Bound<'py, HookRegistry>>,
    layers: bool,
) -> PyResult<Bound<'py, HookRegistry>> {
    let paths = if layers {
        LayerPaths::from_env()
    } else {
        LayerPaths::none()
    };
    let stack = PolicyStack::load(&paths, &path, &ModuleCatalog::standard()).map_err(|error| {
        PyValueError::new_err(match error {
            LayersError::Broken {
                level: Level::Project,
                errors,
            } => format!("{}: {errors}", path.display()),
            other => other.to_string(),
        })
    })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| PyRuntimeError::new_err(format!("cannot start the runtime: {error}")))?;
    let policy = Policy::builder(&stack)
        .build()
        .map_err(|error| PyValueError::new_err(format!("{}: {error}", path.display())))?;
    let handled = policy.registry().list_handlers(None);
    let mount = Arc::new(Mount { policy, runtime });
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
