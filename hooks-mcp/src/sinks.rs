//! Where a hooked server's session puts what it applies, by default.
//!
//! An MCP server keeps no conversation: the client's agent does. What the tool-call gate would
//! store in a history reaches the client through the tool result instead (see the crate docs),
//! so the default history keeps nothing and the default display writes to `tracing`; neither
//! grows with the life of the server.

use hooks_core::session::sinks::{ContextMessage, ContextSink, DisplaySink};
use hooks_core::{MessageLevel, UserMessage};

/// A [`ContextSink`] that stores nothing: the MCP client holds the conversation, and the
/// injections reach it in the tool result.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHistory;

impl ContextSink for NoHistory {
    fn add_message(&self, _message: ContextMessage) {}

    fn append_to_last_tool_result(&self, _text: &str) -> bool {
        false
    }

    fn keeps_history(&self) -> bool {
        false
    }
}

/// A [`DisplaySink`] that writes each user message as a `tracing` event at its level (the
/// server has no screen of its own).
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingDisplay;

impl DisplaySink for TracingDisplay {
    fn show(&self, message: &UserMessage) {
        let (hook, event, text) = (&*message.hook, &*message.event, &message.text);
        match message.level {
            MessageLevel::Error => tracing::error!(hook, event, "{text}"),
            MessageLevel::Warning => tracing::warn!(hook, event, "{text}"),
            _ => tracing::info!(hook, event, "{text}"),
        }
    }
}
