//! `hooks._native`, the extension module of the Python package `hooks`: the registry with the
//! reference's Python API (`HookRegistry`, `HookResult`), hooks files, the safety checker and
//! the redaction module. The Python side (`python/hooks`) adds `emit_and_collect` and the
//! adapters for agent SDKs.

mod chain;
mod files;
mod handlers;
mod json;
mod modules;
mod registry;
mod result;

use pyo3::prelude::*;

/// The constant name of a canonical event: `tool:pre` → `TOOL_PRE`.
fn constant_name(event: &str) -> String {
    event.replace([':', '-'], "_").to_ascii_uppercase()
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_class::<registry::HookRegistry>()?;
    module.add_class::<registry::Unregister>()?;
    module.add_class::<result::HookResult>()?;
    module.add_class::<chain::Chain>()?;
    module.add_class::<files::FileHooks>()?;
    module.add_class::<modules::Denial>()?;
    module.add_function(wrap_pyfunction!(files::load, module)?)?;
    module.add_function(wrap_pyfunction!(modules::safety_check, module)?)?;
    module.add_function(wrap_pyfunction!(modules::redact, module)?)?;
    // The event names as class attributes: `HookRegistry.TOOL_PRE == "tool:pre"`.
    let class = py.get_type::<registry::HookRegistry>();
    for event in hooks_events::CANONICAL {
        class.setattr(constant_name(event), *event)?;
    }
    let aliases = pyo3::types::PyDict::new(py);
    for (alias, canonical) in hooks_events::ALIASES {
        aliases.set_item(*alias, *canonical)?;
    }
    module.add("ALIASES", aliases)?;
    Ok(())
}
