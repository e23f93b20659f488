//! The reminder module (an example of ephemeral injection): before each model call it injects
//! the current todo or status list as ephemeral context, so the agent keeps it in mind without
//! the reminders piling up in the history.
//!
//! The application updates the list through [`ReminderModule::set`] (for every session) or
//! [`ReminderModule::set_for`] (for one session, kept in its [state](hooks_core::state)); a
//! hooks file gives it as `items` or as a `file` read at every event (one item a line;
//! Markdown list marks and checked `[x]` items are left out). With `todo_tool`, the list the
//! agent writes with its own todo tool (Claude Code's `TodoWrite`) becomes the session's list
//! when the tool runs. A session's list lives in its state, so under `hooks claude`, where
//! every event is a new process, the list one event set is shown at the next. Nothing is
//! injected while the list is empty.
//!
//! Config keys (unknown keys are an error naming the key). As in every standard module, a list
//! with built-in entries is **added to** them unless `replace_defaults` names it.
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `title` | `Current todos` | the first line of the reminder |
//! | `events` | `provider:request` | when to remind; given ones are added |
//! | `replace_defaults` | none | `[events]` leaves `provider:request` out, so that the events given are the whole list; another name is an error |
//! | `items` | none | the list to start from |
//! | `file` | none | a todo file read at every event, its items after `items` (a file that cannot be read adds nothing) |
//! | `todo_tool` | none | a tool whose `todos` input (a list of texts, or of objects with `content` and `status`) replaces the session's list after it runs; completed items are left out |
//! | `max_items` | `20` | how many items to show (the rest are counted) |
//! | `priority` | `100` | after hooks that modify the request |
//!
//! ```
//! use hooks_std::reminder::{ReminderConfig, ReminderModule};
//!
//! let reminder = ReminderModule::new(ReminderConfig::default()).unwrap();
//! reminder.set(["write the parser test", "fix the empty-input case"]);
//! assert_eq!(
//!     reminder.text().as_deref(),
//!     Some("Current todos:\n- write the parser test\n- fix the empty-input case")
//! );
//! ```

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::state::{SessionState, StateError, StateStore};
use hooks_core::sync::lock;
use hooks_core::{HookRegistry, HookResult, TypedHook};
use hooks_safety::lists::{BuiltInLists, strings};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The reminder module's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReminderConfig {
    /// The first line of the reminder.
    pub title: String,
    /// When to remind, besides `provider:request`.
    pub events: Vec<String>,
    /// The list to start from.
    pub items: Vec<String>,
    /// A todo file read at every event; its open items follow `items`.
    pub file: Option<PathBuf>,
    /// A tool whose `todos` input becomes the session's list when it runs.
    pub todo_tool: Option<String>,
    /// How many items to show.
    pub max_items: usize,
    /// The handler's priority.
    pub priority: i32,
    /// The lists whose built-in entries are left out, so that the list given is the whole
    /// list: any of [`ReminderConfig::LISTS`].
    pub replace_defaults: Vec<String>,
}

const EVENTS: &[&str] = &["provider:request"];

impl ReminderConfig {
    /// The lists that have built-in entries, which `replace_defaults` may name.
    pub const LISTS: &[&str] = &["events"];

    /// The default configuration with every built-in list written out in its field and named
    /// in `replace_defaults`: the same module as the default one.
    pub fn with_built_in_lists() -> Self {
        ReminderConfig {
            events: strings(EVENTS),
            replace_defaults: strings(Self::LISTS),
            ..ReminderConfig::default()
        }
    }

    /// The configuration with the built-in entries merged into its lists, as the module uses it.
    fn resolved(&self) -> Result<ReminderConfig, ReminderConfigError> {
        let lists = BuiltInLists::new(&self.replace_defaults, Self::LISTS)
            .map_err(|unknown| ReminderConfigError(unknown.to_string()))?;
        Ok(ReminderConfig {
            events: lists.merge("events", strings(EVENTS), &self.events),
            replace_defaults: strings(Self::LISTS),
            ..self.clone()
        })
    }
}

impl Default for ReminderConfig {
    fn default() -> Self {
        ReminderConfig {
            title: "Current todos".to_owned(),
            events: Vec::new(),
            items: Vec::new(),
            file: None,
            todo_tool: None,
            max_items: 20,
            priority: 100,
            replace_defaults: Vec::new(),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("reminder module: {0}")]
pub struct ReminderConfigError(String);

/// The key of a session's state that holds its reminder list (an array of texts).
pub const ITEMS_KEY: &str = "hooks.reminder.items";

/// The reminder module: see the [module docs](self). Clones share the list.
#[derive(Debug, Clone)]
pub struct ReminderModule {
    config: Arc<ReminderConfig>,
    items: Arc<Mutex<Vec<String>>>,
    /// The session states of the registry it is mounted on.
    state: Arc<Mutex<Option<StateStore>>>,
}

impl ReminderModule {
    /// Checks `config`; the list starts empty.
    pub fn new(config: ReminderConfig) -> Result<Self, ReminderConfigError> {
        let config = config.resolved()?;
        for event in &config.events {
            hooks_core::events::canonicalize(event)
                .map_err(|error| ReminderConfigError(format!("`events`: {error}")))?;
        }
        Ok(ReminderModule {
            items: Arc::new(Mutex::new(config.items.clone())),
            config: Arc::new(config),
            state: Arc::new(Mutex::new(None)),
        })
    }

    /// Replaces the list of one session (shown after the list of [`set`](Self::set)).
    pub fn set_for<I, S>(&self, session: &SessionState, items: I) -> Result<(), StateError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let items: Vec<String> = items.into_iter().map(Into::into).collect();
        session.set(ITEMS_KEY, items)
    }

    fn store(&self) -> Option<StateStore> {
        lock(&self.state).clone()
    }

    /// The state of the session of an event, when the module is mounted and the event has a
    /// session; the reminder is a nicety, so a session without state only has the common list.
    fn session_of(&self, data: &Value) -> Option<SessionState> {
        self.store()?.for_event(data).ok()
    }

    /// The reminder for the event `data` (its session's list after the common one), if the
    /// list is not empty.
    pub fn text_for(&self, data: &Value) -> Option<String> {
        let session_items = self
            .session_of(data)
            .and_then(|state| match state.get_as::<Vec<String>>(ITEMS_KEY) {
                Ok(items) => items,
                Err(error) => {
                    tracing::warn!(%error, "reminder: the session's list is unreadable");
                    None
                }
            })
            .unwrap_or_default();
        self.render(session_items)
    }

    /// Takes the list of a todo tool's call as the session's list.
    fn track_todos(&self, data: &Value) -> HookResult {
        let Some(todos) = data[TOOL_INPUT]["todos"].as_array() else {
            return HookResult::cont();
        };
        let open: Vec<String> = todos
            .iter()
            .filter_map(|todo| match todo {
                Value::String(text) => Some(text.clone()),
                Value::Object(fields)
                    if fields.get("status") != Some(&Value::from("completed")) =>
                {
                    fields
                        .get("content")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                }
                _ => None,
            })
            .collect();
        if let Some(state) = self.session_of(data)
            && let Err(error) = self.set_for(&state, open)
        {
            tracing::warn!(%error, "reminder: cannot keep the session's list");
        }
        HookResult::cont()
    }

    /// Replaces the list.
    pub fn set<I, S>(&self, items: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        *lock(&self.items) = items.into_iter().map(Into::into).collect();
    }

    /// The reminder as it would be injected now, if the list is not empty.
    pub fn text(&self) -> Option<String> {
        self.render(Vec::new())
    }

    /// The reminder of the common list, then `session_items`, then the file's items.
    fn render(&self, session_items: Vec<String>) -> Option<String> {
        let mut items = lock(&self.items).clone();
        items.extend(session_items);
        if let Some(file) = &self.config.file {
            items.extend(open_items(file));
        }
        if items.is_empty() {
            return None;
        }
        let mut text = format!("{}:", self.config.title);
        for item in items.iter().take(self.config.max_items) {
            text.push_str("\n- ");
            text.push_str(item);
        }
        if items.len() > self.config.max_items {
            text.push_str(&format!(
                "\n(and {} more)",
                items.len() - self.config.max_items
            ));
        }
        Some(text)
    }
}

/// The open items of a todo file: its non-empty lines, without Markdown list marks, checked
/// items (`- [x] ...`) left out. A file that cannot be read has none (a reminder is a nicety,
/// never a reason to fail the event).
fn open_items(file: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .map(|line| line.trim_start_matches(['-', '*', '+']).trim_start())
        .filter(|line| !line.is_empty() && !line.starts_with("[x]") && !line.starts_with("[X]"))
        .map(|line| line.strip_prefix("[ ]").unwrap_or(line).trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

/// Every event alike (the events are the configuration's), so only `on_event`.
impl TypedHook for ReminderModule {
    async fn on_event(&self, event: &str, data: &Value) -> HookResult {
        if event == hooks_core::events::TOOL_POST
            && let Some(tool) = &self.config.todo_tool
            && data[TOOL_NAME].as_str() == Some(tool)
        {
            return self.track_todos(data);
        }
        match self.text_for(data) {
            Some(text) => HookResult::inject(text)
                .with_ephemeral(true)
                .with_suppress_output(true),
            None => HookResult::cont(),
        }
    }
}

impl HookModule for ReminderModule {
    fn name(&self) -> &str {
        "reminder"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        *lock(&self.state) = Some(registry.state());
        let mut mounted = Mounted::new(self.name());
        if self.config.todo_tool.is_some() {
            mounted.register(
                registry,
                hooks_core::events::TOOL_POST,
                self.clone(),
                self.config.priority,
                "reminder",
            )?;
        }
        for event in &self.config.events {
            mounted.register(
                registry,
                event,
                self.clone(),
                self.config.priority,
                "reminder",
            )?;
        }
        Ok(mounted)
    }
}
