//! Reading one field of the payload as the type a view exposes, borrowed, never copied: the
//! helpers the built-in views are made of, for views of an application's own events.

use serde_json::{Map, Value};

use super::error::ViewError;
use crate::text::json_kind;

/// A type a view field can be read as, borrowing from the payload: `&str` and `&Value`.
pub trait FieldValue<'a>: Sized {
    /// How the expected kind is described in a [`ViewError`].
    const EXPECTED: &'static str;

    /// The value as `Self`, or `None` when it is of another kind.
    fn read(value: &'a Value) -> Option<Self>;
}

impl<'a> FieldValue<'a> for &'a str {
    const EXPECTED: &'static str = "a string";

    fn read(value: &'a Value) -> Option<Self> {
        value.as_str()
    }
}

impl<'a> FieldValue<'a> for &'a Value {
    const EXPECTED: &'static str = "any value but null";

    fn read(value: &'a Value) -> Option<Self> {
        Some(value)
    }
}

/// The payload as an object, the shape every view needs.
pub fn object<'a>(
    data: &'a Value,
    event: &'static str,
) -> Result<&'a Map<String, Value>, ViewError> {
    data.as_object().ok_or(ViewError::NotAnObject {
        event,
        found: json_kind(data),
    })
}

/// A field the event always carries: absent or null is [`ViewError::Missing`].
pub fn required<'a, T: FieldValue<'a>>(
    object: &'a Map<String, Value>,
    event: &'static str,
    field: &'static str,
) -> Result<T, ViewError> {
    optional(object, event, field)?.ok_or(ViewError::Missing { event, field })
}

/// A field the event carries when the emitter knows it: absent and null are `None`, another
/// kind of value than expected is still an error (a wrong shape is never read as "unknown").
pub fn optional<'a, T: FieldValue<'a>>(
    object: &'a Map<String, Value>,
    event: &'static str,
    field: &'static str,
) -> Result<Option<T>, ViewError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => T::read(value)
            .map(Some)
            .ok_or_else(|| ViewError::WrongType {
                event,
                field,
                expected: T::EXPECTED,
                found: json_kind(value),
            }),
    }
}
