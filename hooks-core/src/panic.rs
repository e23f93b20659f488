//! The message of a caught panic, shared by everything that isolates a call from panics (the
//! handler guard, the approval provider's call).

use std::any::Any;

/// The panic's message when its payload is a string (as `panic!` with a message makes it).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
