//! One configured hook: its event, name, priority, place and kind.

use crate::{CommandHook, EventMatcher, HttpHook, LlmHook, MatcherHook};

/// The kind of a configured hook.
#[derive(Debug, Clone)]
pub enum HookKind {
    /// Runs a command.
    Command(CommandHook),
    /// Matches rules.
    Matcher(MatcherHook),
    /// Asks a policy service over HTTP.
    Http(HttpHook),
    /// Asks a model.
    Llm(LlmHook),
}

/// One configured hook.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The canonical event.
    pub event: String,
    /// The event as written in the file.
    pub event_as_written: String,
    /// The name.
    pub name: String,
    /// The priority.
    pub priority: i32,
    /// The line of the entry in its file.
    pub line: usize,
    /// Which events the entry runs for (`matcher`, Claude Code's semantics); `None` for all.
    pub matcher: Option<EventMatcher>,
    /// What it does.
    pub hook: HookKind,
}
