//! What the tool-call gate runs: anything with a name that turns an input into an output.

use serde_json::Value;

use crate::handler::BoxFuture;

/// A tool's failure, as the agent will be told of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// What went wrong.
    pub message: String,
}

impl ToolError {
    /// A failure with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }
}

/// A tool the agent can call.
pub trait Tool: Send + Sync {
    /// The name hooks see as `tool_name`.
    fn name(&self) -> &str;

    /// Runs the tool on `input` (as the `tool:pre` hooks left it).
    fn call(&self, input: Value) -> BoxFuture<'_, Result<Value, ToolError>>;
}

// Tools chosen at run time (a registry of the agent's tools, a user's plugins) are boxed or
// shared; they are tools as they are, as modules are.
impl<T: Tool + ?Sized> Tool for Box<T> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn call(&self, input: Value) -> BoxFuture<'_, Result<Value, ToolError>> {
        (**self).call(input)
    }
}

impl<T: Tool + ?Sized> Tool for std::sync::Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn call(&self, input: Value) -> BoxFuture<'_, Result<Value, ToolError>> {
        (**self).call(input)
    }
}

impl<T: Tool + ?Sized> Tool for &T {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn call(&self, input: Value) -> BoxFuture<'_, Result<Value, ToolError>> {
        (**self).call(input)
    }
}

/// A tool made of a name and an async closure.
///
/// ```
/// use hooks_core::session::{tool_fn, Tool, ToolError};
/// use serde_json::{json, Value};
///
/// let echo = tool_fn("echo", |input: Value| async move { Ok::<_, ToolError>(input) });
/// assert_eq!(echo.name(), "echo");
/// ```
pub fn tool_fn<F, Fut>(name: impl Into<String>, run: F) -> impl Tool
where
    F: Fn(Value) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    FnTool {
        name: name.into(),
        run,
    }
}

struct FnTool<F> {
    name: String,
    run: F,
}

impl<F, Fut> Tool for FnTool<F>
where
    F: Fn(Value) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn call(&self, input: Value) -> BoxFuture<'_, Result<Value, ToolError>> {
        Box::pin((self.run)(input))
    }
}
