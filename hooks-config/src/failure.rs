//! The failures of the runners that the `on_failure` policy ([`OnFailure`], shared by every
//! runner and kept in hooks-core) decides about.

use std::time::Duration;

pub use hooks_core::OnFailure;
use hooks_std::process::{OUTPUT_CAP, ProcessError};

use crate::answer::AnswerError;

/// Why an external hook (command, persistent, HTTP, LLM or WebAssembly) gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// Its process could not start, timed out, flooded or exited badly.
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// A persistent hook's process gave no answer line.
    #[error(transparent)]
    Persistent(#[from] NoAnswer),
    /// A persistent hook answered a line that cannot be read; its process was restarted.
    #[error("{0}; it was restarted")]
    Restarted(AnswerError),
    /// It answered something that cannot be read as a decision.
    #[error(transparent)]
    Answer(#[from] AnswerError),
    /// The service or model could not be asked, or answered an error.
    #[cfg_attr(not(any(feature = "http", feature = "llm")), allow(dead_code))]
    #[error("{0}")]
    Remote(String),
    /// A WebAssembly component's call gave no usable answer.
    #[cfg(feature = "wasm")]
    #[error(transparent)]
    Component(#[from] hooks_wasm::CallFailure),
    /// Policies (Cedar, Rego) could not decide on the event.
    #[cfg_attr(not(any(feature = "cedar", feature = "rego")), allow(dead_code))]
    #[error("{0}")]
    Policy(String),
    /// The runner gave no answer by the entry's deadline (and a grace period): the layer
    /// stopped waiting.
    #[error("gave no answer within its timeout of {} ms", .0.as_millis())]
    Deadline(Duration),
}

/// Why a persistent hook's process gave no answer line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoAnswer {
    /// The process could not be started.
    #[error(transparent)]
    Start(ProcessError),
    /// The process ended, or closed its pipes, before answering (how, for the report).
    #[error("{0}; it is restarted at the next event")]
    Died(String),
    /// No answer within the timeout; the process was killed.
    #[error("timed out and was killed; it is restarted at the next event")]
    TimedOut,
    /// The answer line was longer than the cap; the process was killed.
    #[error("answered with a line of more than {OUTPUT_CAP} bytes and was killed")]
    TooLong,
}
