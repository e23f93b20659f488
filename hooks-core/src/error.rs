//! The error a handler fails with: any error type, boxed (as tower's `BoxError`), and shared
//! once it is recorded in an outcome, which is cloned.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// Any error a handler may return: `Result<HookResult, E>` works for every `E` that converts
/// into it, which includes every `std::error::Error + Send + Sync` type, `anyhow::Error`,
/// `String` and `&str`.
pub type BoxError = Box<dyn Error + Send + Sync>;

/// The error a handler failed with, as [`FailureKind::Error`](crate::FailureKind::Error)
/// records it: the handler's own error (its type, message and [`source`](Error::source)
/// chain kept), shared so that outcomes stay cheap to clone.
///
/// Two `HandlerError`s are equal when they say the same (their messages and sources), since
/// errors themselves are not comparable.
#[derive(Clone)]
pub struct HandlerError(Arc<dyn Error + Send + Sync>);

impl HandlerError {
    /// The error as the handler returned it.
    pub fn get_ref(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.0
    }

    /// The handler's error as `T`, when it is one.
    pub fn downcast_ref<T: Error + 'static>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }

    /// The message followed by the messages of its sources, each after `": "`.
    pub fn chain(&self) -> String {
        let mut text = self.0.to_string();
        let mut source = self.0.source();
        while let Some(error) = source {
            text.push_str(": ");
            text.push_str(&error.to_string());
            source = error.source();
        }
        text
    }
}

impl From<BoxError> for HandlerError {
    fn from(error: BoxError) -> Self {
        HandlerError(Arc::from(error))
    }
}

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        HandlerError::from(BoxError::from(message))
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        HandlerError::from(BoxError::from(message))
    }
}

impl fmt::Debug for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl Error for HandlerError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for HandlerError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.chain() == other.chain()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("the cache failed")]
    struct CacheFailed(#[source] std::io::Error);

    #[test]
    fn the_handlers_error_keeps_its_type_and_its_sources() {
        let io = std::io::Error::other("disk full");
        let error = HandlerError::from(BoxError::from(CacheFailed(io)));
        assert!(error.downcast_ref::<CacheFailed>().is_some());
        assert_eq!(error.to_string(), "the cache failed");
        assert_eq!(error.chain(), "the cache failed: disk full");
        assert_eq!(
            error.source().map(ToString::to_string).as_deref(),
            Some("disk full")
        );
    }

    #[test]
    fn errors_are_equal_when_they_say_the_same() {
        assert_eq!(
            HandlerError::from("late"),
            HandlerError::from("late".to_owned())
        );
        assert_ne!(HandlerError::from("late"), HandlerError::from("early"));
    }
}
