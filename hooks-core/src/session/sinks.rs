//! Where applied results go: the conversation context and the user's display.
//!
//! Applications plug in their own context manager and UI by implementing [`ContextSink`] and
//! [`DisplaySink`]; the in-memory implementations serve tests, demos and simple agents.

use std::sync::{Arc, Mutex};

use crate::sync::lock;
use crate::{InjectionRole, UserMessage};

/// What a message in the context is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageKind {
    /// Text a hook injected.
    Injection,
    /// A tool's result, which later injections may be appended to.
    ToolResult,
    /// Anything else the application stores (prompts, model answers).
    Conversation,
}

/// One message of the conversation context.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextMessage {
    /// The role it is sent with.
    pub role: InjectionRole,
    /// Its text.
    pub content: String,
    /// What it is.
    pub kind: MessageKind,
    /// The hook that injected it, for injections.
    pub hook: Option<Arc<str>>,
}

impl ContextMessage {
    /// A message injected by `hook`.
    pub fn injection(role: InjectionRole, content: impl Into<String>, hook: Arc<str>) -> Self {
        ContextMessage {
            role,
            content: content.into(),
            kind: MessageKind::Injection,
            hook: Some(hook),
        }
    }

    /// A tool's result.
    pub fn tool_result(content: impl Into<String>) -> Self {
        ContextMessage {
            role: InjectionRole::User,
            content: content.into(),
            kind: MessageKind::ToolResult,
            hook: None,
        }
    }
}

/// The conversation history that persistent injections are stored in.
pub trait ContextSink: Send + Sync {
    /// Adds a message to the stored history.
    fn add_message(&self, message: ContextMessage);

    /// Appends `text` to the last tool result in the history; returns `false` when there is no
    /// tool result to append to (the caller then adds a message instead).
    fn append_to_last_tool_result(&self, text: &str) -> bool;

    /// Whether this history wants the session's record of each tool call's result. A sink
    /// that drops everything, or whose tool results are kept by someone else (an agent
    /// framework that owns the conversation), answers `false`, and the session then skips
    /// building the tool-result message (which renders a JSON output as text) for it.
    /// Injections are still given to it.
    fn keeps_history(&self) -> bool {
        true
    }
}

/// Where user messages are shown.
pub trait DisplaySink: Send + Sync {
    /// Shows one message, at its level.
    fn show(&self, message: &UserMessage);
}

/// A [`ContextSink`] that keeps the history in memory.
#[derive(Debug, Default)]
pub struct InMemoryContext {
    messages: Mutex<Vec<ContextMessage>>,
}

impl InMemoryContext {
    /// An empty history.
    pub fn new() -> Self {
        InMemoryContext::default()
    }

    /// The stored history, oldest first.
    pub fn messages(&self) -> Vec<ContextMessage> {
        lock(&self.messages).clone()
    }
}

impl ContextSink for InMemoryContext {
    fn add_message(&self, message: ContextMessage) {
        lock(&self.messages).push(message);
    }

    fn append_to_last_tool_result(&self, text: &str) -> bool {
        let mut messages = lock(&self.messages);
        match messages
            .iter_mut()
            .rev()
            .find(|message| message.kind == MessageKind::ToolResult)
        {
            Some(result) => {
                result.content.push_str("\n\n");
                result.content.push_str(text);
                true
            }
            None => false,
        }
    }
}

/// A [`DisplaySink`] that records what it was asked to show.
#[derive(Debug, Default)]
pub struct InMemoryDisplay {
    shown: Mutex<Vec<UserMessage>>,
}

impl InMemoryDisplay {
    /// A display that has shown nothing.
    pub fn new() -> Self {
        InMemoryDisplay::default()
    }

    /// Everything shown, in order.
    pub fn shown(&self) -> Vec<UserMessage> {
        lock(&self.shown).clone()
    }
}

impl DisplaySink for InMemoryDisplay {
    fn show(&self, message: &UserMessage) {
        lock(&self.shown).push(message.clone());
    }
}

impl<T: ContextSink + ?Sized> ContextSink for Arc<T> {
    fn add_message(&self, message: ContextMessage) {
        (**self).add_message(message);
    }

    fn append_to_last_tool_result(&self, text: &str) -> bool {
        (**self).append_to_last_tool_result(text)
    }

    fn keeps_history(&self) -> bool {
        (**self).keeps_history()
    }
}

impl<T: DisplaySink + ?Sized> DisplaySink for Arc<T> {
    fn show(&self, message: &UserMessage) {
        (**self).show(message);
    }
}
