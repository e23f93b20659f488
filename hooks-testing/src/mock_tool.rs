//! [`MockTool`]: a tool with a scripted behaviour that records what it received.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::BoxFuture;
use hooks_core::session::{Tool, ToolError};
use serde_json::{Value, json};

use hooks_core::sync::lock;

#[derive(Debug, Clone)]
struct Behaviour {
    output: Value,
    failure: Option<String>,
    delay: Duration,
}

#[derive(Debug)]
struct Inner {
    name: String,
    behaviour: Mutex<Behaviour>,
    inputs: Mutex<Vec<Value>>,
}

/// A tool that answers as configured (an output, a failure, after a delay) and records every
/// input it receives, so a test sees what the `tool:pre` hooks made of the call.
///
/// Clones share their configuration and their record.
#[derive(Debug, Clone)]
pub struct MockTool {
    inner: Arc<Inner>,
}

impl MockTool {
    /// A tool named `name` that answers `"ok"` at once.
    pub fn new(name: impl Into<String>) -> Self {
        MockTool {
            inner: Arc::new(Inner {
                name: name.into(),
                behaviour: Mutex::new(Behaviour {
                    output: json!("ok"),
                    failure: None,
                    delay: Duration::ZERO,
                }),
                inputs: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Answers `output` from now on.
    #[must_use]
    pub fn returning(self, output: Value) -> Self {
        {
            let mut behaviour = lock(&self.inner.behaviour);
            behaviour.output = output;
            behaviour.failure = None;
        }
        self
    }

    /// Fails with `message` from now on.
    #[must_use]
    pub fn failing(self, message: impl Into<String>) -> Self {
        lock(&self.inner.behaviour).failure = Some(message.into());
        self
    }

    /// Waits `delay` before answering.
    #[must_use]
    pub fn with_delay(self, delay: Duration) -> Self {
        lock(&self.inner.behaviour).delay = delay;
        self
    }

    /// Every input received, in order.
    pub fn inputs(&self) -> Vec<Value> {
        lock(&self.inner.inputs).clone()
    }

    /// The last input received.
    pub fn last_input(&self) -> Option<Value> {
        lock(&self.inner.inputs).last().cloned()
    }

    /// How many times it was called.
    pub fn calls(&self) -> usize {
        lock(&self.inner.inputs).len()
    }
}

impl Tool for MockTool {
    fn name(&self) -> &str {
        &self.inner.name
    }

    fn call(&self, input: Value) -> BoxFuture<'_, Result<Value, ToolError>> {
        lock(&self.inner.inputs).push(input);
        let behaviour = lock(&self.inner.behaviour).clone();
        Box::pin(async move {
            if !behaviour.delay.is_zero() {
                tokio::time::sleep(behaviour.delay).await;
            }
            match behaviour.failure {
                Some(message) => Err(ToolError::new(message)),
                None => Ok(behaviour.output),
            }
        })
    }
}
