//! [`ViewError`]: why event data does not fit a typed view.

/// Why event data cannot be read as a typed view: it names the event and the field, so the
/// emitter that sent the wrong shape can be found.
///
/// For a typed handler this is a handler failure, reported like an error the handler
/// returned (and a deny when the handler was registered with
/// [`HookOptions::fail_closed`](crate::HookOptions::fail_closed)); the handler never runs on
/// data it cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// The data is not a JSON object.
    #[error("`{event}` data is {found}, not an object with the event's fields")]
    NotAnObject {
        /// The canonical event the view is for.
        event: &'static str,
        /// What the data is instead (e.g. `an array`).
        found: &'static str,
    },
    /// A required field is absent or `null`.
    #[error("`{event}` data has no `{field}` (absent or null); every `{event}` must carry it")]
    Missing {
        /// The canonical event the view is for.
        event: &'static str,
        /// The missing field.
        field: &'static str,
    },
    /// A field holds another kind of value than the view reads.
    #[error("`{event}` data has `{field}` as {found}; expected {expected}")]
    WrongType {
        /// The canonical event the view is for.
        event: &'static str,
        /// The field with the unexpected value.
        field: &'static str,
        /// What the view reads (e.g. `a string`).
        expected: &'static str,
        /// What the field holds instead.
        found: &'static str,
    },
}

impl ViewError {
    /// The canonical event the view is for.
    pub fn event(&self) -> &'static str {
        match self {
            ViewError::NotAnObject { event, .. }
            | ViewError::Missing { event, .. }
            | ViewError::WrongType { event, .. } => event,
        }
    }

    /// The field at fault, unless the data as a whole is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            ViewError::NotAnObject { .. } => None,
            ViewError::Missing { field, .. } | ViewError::WrongType { field, .. } => Some(field),
        }
    }
}
