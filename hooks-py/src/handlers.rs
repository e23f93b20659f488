//! The handlers of an event as the registry keeps them and an emit runs them.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// One registered handler.
pub struct Entry {
    /// Unique in its registry: what the unregister callable removes.
    pub id: u64,
    pub priority: i64,
    /// `None` for a handler without a name (left out of `list_handlers`).
    pub name: Option<String>,
    pub handler: Py<PyAny>,
    /// A failure of this handler denies instead of being skipped.
    pub fail_closed: bool,
}

impl Entry {
    /// The same entry, its handler shared.
    pub fn clone_ref(&self, py: Python<'_>) -> Entry {
        Entry {
            id: self.id,
            priority: self.priority,
            name: self.name.clone(),
            handler: self.handler.clone_ref(py),
            fail_closed: self.fail_closed,
        }
    }

    /// The name used in logs and deny reasons.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("<anonymous handler>")
    }
}

/// The handlers of one event, in running order; replaced whole on every change, so an emit
/// keeps the list it started with while handlers come and go.
pub type Handlers = Arc<Vec<Entry>>;

/// The canonical name of `event` (aliases such as `PreToolUse` resolved); a name that is not
/// an event (a typo of a canonical one, a reserved namespace, bad characters) is a
/// `ValueError`, so that a handler never waits for an event that cannot come.
pub fn canonical(event: &str) -> PyResult<&str> {
    hooks_events::canonicalize(event).map_err(|error| PyValueError::new_err(error.to_string()))
}
