//! The reminder module (an example of ephemeral injection): before each model call it injects
//! the current todo or status list as ephemeral context, so the agent keeps it in mind without
//! the reminders piling up in the history.
//!
//! The application updates the list through [`ReminderModule::set`]; nothing is injected while
//! it is empty.
//!
//! Config keys (unknown keys are an error naming the key):
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `title` | `Current todos` | the first line of the reminder |
//! | `events` | `provider:request` | when to remind |
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

use std::sync::{Arc, Mutex};

use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{Hook, HookRegistry, HookResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The reminder module's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReminderConfig {
    /// The first line of the reminder.
    pub title: String,
    /// When to remind.
    pub events: Vec<String>,
    /// How many items to show.
    pub max_items: usize,
    /// The handler's priority.
    pub priority: i32,
}

impl Default for ReminderConfig {
    fn default() -> Self {
        ReminderConfig {
            title: "Current todos".to_owned(),
            events: vec!["provider:request".to_owned()],
            max_items: 20,
            priority: 100,
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("reminder module: {0}")]
pub struct ReminderConfigError(String);

/// The reminder module: see the [module docs](self). Clones share the list.
#[derive(Debug, Clone)]
pub struct ReminderModule {
    config: Arc<ReminderConfig>,
    items: Arc<Mutex<Vec<String>>>,
}

impl ReminderModule {
    /// Checks `config`; the list starts empty.
    pub fn new(config: ReminderConfig) -> Result<Self, ReminderConfigError> {
        for event in &config.events {
            hooks_core::events::canonicalize(event)
                .map_err(|error| ReminderConfigError(format!("`events`: {error}")))?;
        }
        Ok(ReminderModule {
            config: Arc::new(config),
            items: Arc::default(),
        })
    }

    /// Replaces the list.
    pub fn set<I, S>(&self, items: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        *self.items.lock().unwrap_or_else(|p| p.into_inner()) =
            items.into_iter().map(Into::into).collect();
    }

    /// The reminder as it would be injected now, if the list is not empty.
    pub fn text(&self) -> Option<String> {
        let items = self.items.lock().unwrap_or_else(|p| p.into_inner());
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

impl Hook for ReminderModule {
    async fn handle(&self, _event: &str, _data: &Value) -> HookResult {
        match self.text() {
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
        let mut mounted = Mounted::new(self.name());
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
