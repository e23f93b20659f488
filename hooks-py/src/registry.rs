//! `HookRegistry`: handlers by event in priority order, with the reference's Python API.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::chain::Chain;
use crate::handlers::{Entry, Handlers, canonical};
use crate::result::Action;

/// The registry of hook handlers: register them by event and priority, emit events to them.
///
/// The reference's API: `register`/`on` (returning an unregister callable), `unregister`,
/// `emit` (awaitable), `emit_and_collect`, `set_default_fields`, `list_handlers`, and the
/// event names as class attributes (`HookRegistry.TOOL_PRE`, ...).
#[pyclass(module = "hooks", name = "HookRegistry", subclass)]
pub struct HookRegistry {
    tables: HashMap<String, Handlers>,
    next_id: u64,
    defaults: Option<Py<PyDict>>,
    /// What a chain that modified and did nothing stronger ends as.
    modified_chain: Action,
}

impl HookRegistry {
    /// The handlers of the canonical `event`, as they are now.
    pub fn handlers(&self, event: &str) -> Option<Handlers> {
        self.tables.get(event).map(Arc::clone)
    }

    fn remove(&mut self, py: Python<'_>, event: &str, keep: impl Fn(&Entry) -> bool) {
        let Some(current) = self.tables.get(event) else {
            return;
        };
        let kept: Vec<Entry> = current
            .iter()
            .filter(|e| keep(e))
            .map(|e| e.clone_ref(py))
            .collect();
        if kept.is_empty() {
            self.tables.remove(event);
        } else if kept.len() != current.len() {
            self.tables.insert(event.to_owned(), Arc::new(kept));
        }
    }
}

/// The name the reference gives a handler registered without one: its `__name__`.
fn name_of(handler: &Bound<'_, PyAny>) -> Option<String> {
    handler.getattr("__name__").ok()?.extract().ok()
}

#[pymethods]
impl HookRegistry {
    /// A registry with no handler.
    ///
    /// `modified_chain`: what a chain that modified the data and did nothing stronger ends as:
    /// `"modify"` (the default, as the reference's documentation says) or `"continue"` (as
    /// amplifier-core's implementation does); the final data is on the result either way.
    #[new]
    #[pyo3(signature = (*, modified_chain = "modify"))]
    fn new(modified_chain: &str) -> PyResult<Self> {
        let modified_chain = match modified_chain {
            "modify" => Action::Modify,
            "continue" => Action::Continue,
            other => {
                return Err(PyValueError::new_err(format!(
                    "`modified_chain` must be \"modify\" or \"continue\", not {other:?}"
                )));
            }
        };
        Ok(HookRegistry {
            tables: HashMap::new(),
            next_id: 0,
            defaults: None,
            modified_chain,
        })
    }

    /// Registers `handler` (an `async def handler(event, data) -> HookResult`, or a plain
    /// function returning one) for `event`; lower priorities run first, equal ones in
    /// registration order. `name` defaults to the handler's `__name__`. With
    /// `fail_closed=True` an exception in the handler denies instead of being skipped.
    ///
    /// Returns a callable that unregisters this handler (calling it again does nothing).
    #[pyo3(signature = (event, handler, priority = 0, name = None, *, fail_closed = false))]
    fn register(
        slf: &Bound<'_, Self>,
        event: &str,
        handler: Bound<'_, PyAny>,
        priority: i64,
        name: Option<String>,
        fail_closed: bool,
    ) -> PyResult<Unregister> {
        let py = slf.py();
        if !handler.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "the handler for {event:?} must be callable, not {}",
                handler.get_type().name()?
            )));
        }
        let event = canonical(event)?.to_owned();
        let name = name.or_else(|| name_of(&handler));
        let mut registry = slf.borrow_mut();
        let id = registry.next_id;
        registry.next_id += 1;
        let entry = Entry {
            id,
            priority,
            name,
            handler: handler.unbind(),
            fail_closed,
        };
        let mut list: Vec<Entry> = match registry.tables.get(&event) {
            Some(current) => current.iter().map(|e| e.clone_ref(py)).collect(),
            None => Vec::new(),
        };
        // After every handler of the same priority: registration order breaks ties.
        let at = list.partition_point(|e| e.priority <= priority);
        list.insert(at, entry);
        registry.tables.insert(event.clone(), Arc::new(list));
        Ok(Unregister {
            registry: slf.clone().unbind(),
            event,
            id,
        })
    }

    /// The same as `register` (the reference keeps it for compatibility).
    #[pyo3(signature = (event, handler, priority = 0, name = None, *, fail_closed = false))]
    fn on(
        slf: &Bound<'_, Self>,
        event: &str,
        handler: Bound<'_, PyAny>,
        priority: i64,
        name: Option<String>,
        fail_closed: bool,
    ) -> PyResult<Unregister> {
        Self::register(slf, event, handler, priority, name, fail_closed)
    }

    /// Removes every handler named `name`, from one event or (without `event`) from all.
    #[pyo3(signature = (name, event = None))]
    fn unregister(&mut self, py: Python<'_>, name: &str, event: Option<&str>) -> PyResult<()> {
        let events: Vec<String> = match event {
            Some(event) => vec![canonical(event)?.to_owned()],
            None => self.tables.keys().cloned().collect(),
        };
        for event in events {
            self.remove(py, &event, |e| e.name.as_deref() != Some(name));
        }
        Ok(())
    }

    /// Emits `event` with `data` (a dict) to its handlers, one after another; awaiting it
    /// gives the merged `HookResult`. See the package's documentation for the merge rules.
    fn emit(
        &self,
        py: Python<'_>,
        event: &Bound<'_, PyString>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<Chain> {
        Chain::start(
            py,
            |event| self.handlers(event),
            self.defaults.as_ref(),
            event,
            data,
            self.modified_chain,
        )
    }

    /// The data handlers of `event` are given: the default fields, then `data` over them,
    /// and a `timestamp` (RFC 3339, UTC) unless one is set. Used by `emit_and_collect`.
    fn _prepare(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyDict>> {
        crate::chain::prepared_data(py, self.defaults.as_ref(), data).map(Bound::unbind)
    }

    /// The handlers of `event` in running order, as `(name, handler)` pairs.
    fn _handlers(&self, py: Python<'_>, event: &str) -> PyResult<Vec<(Option<String>, Py<PyAny>)>> {
        let event = canonical(event)?;
        Ok(self
            .tables
            .get(event)
            .map(|list| {
                list.iter()
                    .map(|e| (e.name.clone(), e.handler.clone_ref(py)))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Sets the fields merged into every emitted event's data (the event's own data wins);
    /// replaces the previous defaults.
    #[pyo3(signature = (**defaults))]
    fn set_default_fields(&mut self, defaults: Option<Bound<'_, PyDict>>) {
        self.defaults = defaults.filter(|d| !d.is_empty()).map(Bound::unbind);
    }

    /// `decision:tool_resolution`, a decision event for `emit_and_collect`.
    #[classattr]
    #[allow(non_snake_case)]
    fn DECISION_TOOL_RESOLUTION() -> &'static str {
        "decision:tool_resolution"
    }

    /// `decision:agent_resolution`, a decision event for `emit_and_collect`.
    #[classattr]
    #[allow(non_snake_case)]
    fn DECISION_AGENT_RESOLUTION() -> &'static str {
        "decision:agent_resolution"
    }

    /// `decision:context_resolution`, a decision event for `emit_and_collect`.
    #[classattr]
    #[allow(non_snake_case)]
    fn DECISION_CONTEXT_RESOLUTION() -> &'static str {
        "decision:context_resolution"
    }

    /// The names of the registered handlers by event (unnamed ones left out); for one event,
    /// a dict with that event alone (its list empty if it has no handler).
    #[pyo3(signature = (event = None))]
    fn list_handlers(&self, event: Option<&str>) -> PyResult<HashMap<String, Vec<String>>> {
        let names = |list: &Handlers| list.iter().filter_map(|e| e.name.clone()).collect();
        match event {
            Some(event) => {
                let event = canonical(event)?;
                let list = self.tables.get(event).map(names).unwrap_or_default();
                Ok(HashMap::from([(event.to_owned(), list)]))
            }
            None => Ok(self
                .tables
                .iter()
                .map(|(event, list)| (event.clone(), names(list)))
                .collect()),
        }
    }
}

/// The callable `register` returns: removes that one handler.
#[pyclass(module = "hooks")]
pub struct Unregister {
    registry: Py<HookRegistry>,
    event: String,
    id: u64,
}

#[pymethods]
impl Unregister {
    fn __call__(&self, py: Python<'_>) {
        let id = self.id;
        self.registry
            .borrow_mut(py)
            .remove(py, &self.event, |e| e.id != id);
    }
}
