//! Why a component cannot be loaded, and why a call gave no usable answer.

use std::path::PathBuf;
use std::time::Duration;

/// Why a component cannot be loaded. Each message says what failed; why is its
/// [`source`](std::error::Error::source), typed (walk the chain to print it all).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file cannot be read.
    #[error("cannot read the component {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The bytes are not a valid WebAssembly component.
    #[error("`{name}` is not a valid WebAssembly component")]
    Invalid {
        /// The component.
        name: String,
        /// What is wrong, as wasmtime says it.
        #[source]
        source: wasmtime::Error,
    },
    /// The component does not satisfy the world of its ABI: an export missing or of another
    /// type, or an import that is neither WASI nor provided.
    #[error("the component `{name}` does not satisfy the world {world}")]
    World {
        /// The component.
        name: String,
        /// The world it should satisfy.
        world: &'static str,
        /// What is missing or wrong, as wasmtime says it.
        #[source]
        source: wasmtime::Error,
    },
    /// The runtime could not be set up.
    #[error(transparent)]
    Runtime(#[from] crate::RuntimeError),
}

/// Why a call gave no usable answer: a failure of the hook, which its `on_failure` decides.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallFailure {
    /// The call ran past its deadline and was stopped.
    #[error("ran past its deadline of {} ms and was stopped", .0.as_millis())]
    Timeout(Duration),
    /// The component asked for more memory than its limit.
    #[error("asked for {asked} bytes of memory, past its limit of {limit} bytes, and was stopped")]
    Memory {
        /// The bytes asked for.
        asked: usize,
        /// The limit.
        limit: usize,
    },
    /// The component trapped (or could not be instantiated).
    #[error("trapped: {0}")]
    Trap(String),
    /// The component answered an error of its own.
    #[error("answered the error `{0}`")]
    Guest(String),
    /// The answer cannot be read as a hook result.
    #[error("answered something that is not a hook result: {0}")]
    Unreadable(String),
    /// Every slot of the runtime stayed taken by other calls for as long as this call's
    /// timeout, so it did not run.
    #[error("did not run: all {slots} slots stayed busy for {} ms", .waited.as_millis())]
    Busy {
        /// The runtime's slots.
        slots: u32,
        /// How long it waited.
        waited: Duration,
    },
    /// The call could not be made (a granted directory missing, the call's thread lost).
    #[error("could not be called: {0}")]
    Setup(String),
}
