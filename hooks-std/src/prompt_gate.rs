//! The prompt gate module (`prompt:submit`, `tool:pre`): writes to some paths are allowed only
//! once a prompt of the same session asked for them, e.g. a file under `migrations/` only if
//! the user asked for a migration.
//!
//! Each rule has a name, the paths it guards (globs) and a pattern (a regex) a prompt must
//! match. A matching prompt opens the rule for the rest of its session, in the session's
//! [state](hooks_core::state); a tool call whose `file_path` or `path` input falls under a rule
//! that no prompt of its session opened is denied. Under `hooks claude`, where every event is
//! a new process, the session state is kept in files, so the prompt and the write may come
//! to different processes. An event that has no usable `session_id`, or whose session state
//! cannot be read, is denied when it touches a guarded path: the gate fails closed.
//!
//! Config keys (unknown keys are an error naming the key):
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `rules` | none | each `{name, paths: [globs], prompt: regex, message?}` |
//! | `priority` | `0` | |
//!
//! ```
//! use hooks_std::prompt_gate::{PromptGateConfig, PromptGateModule};
//! use serde_json::json;
//!
//! let config: PromptGateConfig = serde_json::from_value(json!({"rules": [
//!     {"name": "migrations", "paths": ["**/migrations/**"], "prompt": "(?i)\\bmigration"}
//! ]})).unwrap();
//! let gate = PromptGateModule::new(config).unwrap();
//! ```

use std::sync::{Arc, Mutex};

use globset::{Glob, GlobSet, GlobSetBuilder};
use hooks_core::events::fields::{PROMPT, TOOL_INPUT};
use hooks_core::events::{PROMPT_SUBMIT, TOOL_PRE};
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::state::{SessionState, StateError, StateStore};
use hooks_core::{Hook, HookRegistry, HookResult};
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use hooks_core::sync::lock;

/// The key of a session's state that holds the names of the rules its prompts opened.
pub const OPENED_KEY: &str = "hooks.prompt_gate.opened";

/// One rule of the gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptGateRule {
    /// The rule's name, as the session state and the denials name it.
    pub name: String,
    /// The paths it guards (globs).
    pub paths: Vec<String>,
    /// What a prompt must match (a regex) to open the rule.
    pub prompt: String,
    /// The reason of a denial; by default one naming the rule.
    #[serde(default)]
    pub message: Option<String>,
}

/// The prompt gate module's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PromptGateConfig {
    /// The rules.
    pub rules: Vec<PromptGateRule>,
    /// The handlers' priority.
    pub priority: i32,
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("prompt_gate module: {0}")]
pub struct PromptGateConfigError(String);

#[derive(Debug)]
struct Rule {
    name: String,
    paths: GlobSet,
    prompt: Regex,
    message: Option<String>,
}

/// The prompt gate module: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct PromptGateModule {
    rules: Arc<[Rule]>,
    priority: i32,
    /// The session states of the registry it is mounted on.
    state: Arc<Mutex<Option<StateStore>>>,
}

impl PromptGateModule {
    /// Checks `config`: every glob and regex must compile, every rule have a name and a path.
    pub fn new(config: PromptGateConfig) -> Result<Self, PromptGateConfigError> {
        let mut rules = Vec::with_capacity(config.rules.len());
        for rule in config.rules {
            let fail =
                |what: String| PromptGateConfigError(format!("rule `{}`: {what}", rule.name));
            if rule.name.is_empty() {
                return Err(PromptGateConfigError("a rule has no `name`".into()));
            }
            if rule.paths.is_empty() {
                return Err(fail("`paths` is empty".into()));
            }
            let mut paths = GlobSetBuilder::new();
            for path in &rule.paths {
                paths.add(Glob::new(path).map_err(|error| fail(format!("`paths`: {error}")))?);
            }
            rules.push(Rule {
                paths: paths
                    .build()
                    .map_err(|error| fail(format!("`paths`: {error}")))?,
                prompt: Regex::new(&rule.prompt)
                    .map_err(|error| fail(format!("`prompt`: {error}")))?,
                name: rule.name,
                message: rule.message,
            });
        }
        Ok(PromptGateModule {
            rules: rules.into(),
            priority: config.priority,
            state: Arc::new(Mutex::new(None)),
        })
    }

    fn session_of(&self, data: &Value) -> Result<SessionState, StateError> {
        let store = lock(&self.state).clone();
        store.unwrap_or_default().for_event(data)
    }

    /// Opens the rules whose pattern the prompt matches.
    fn remember(&self, data: &Value) -> HookResult {
        let Some(prompt) = data[PROMPT].as_str() else {
            return HookResult::cont();
        };
        let opened: Vec<&str> = self
            .rules
            .iter()
            .filter(|rule| rule.prompt.is_match(prompt))
            .map(|rule| rule.name.as_str())
            .collect();
        if opened.is_empty() {
            return HookResult::cont();
        }
        let kept = self.session_of(data).and_then(|state| {
            state.update(OPENED_KEY, |list| {
                if !list.is_array() {
                    *list = Value::Array(Vec::new());
                }
                if let Value::Array(list) = list {
                    for name in &opened {
                        if !list.iter().any(|kept| kept == name) {
                            list.push(Value::from(*name));
                        }
                    }
                }
            })
        });
        match kept {
            Ok(()) => HookResult::cont(),
            // The write it would allow will be denied: say so now.
            Err(error) => HookResult::cont().with_user_message(
                format!("prompt_gate: this prompt could not be remembered: {error}"),
                hooks_core::MessageLevel::Warning,
            ),
        }
    }

    /// Denies a write under a rule no prompt of the session opened.
    fn check(&self, data: &Value) -> HookResult {
        let input = &data[TOOL_INPUT];
        let Some(path) = input
            .get("file_path")
            .or_else(|| input.get("path"))
            .and_then(Value::as_str)
        else {
            return HookResult::cont();
        };
        let guarding: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|rule| rule.paths.is_match(path))
            .collect();
        if guarding.is_empty() {
            return HookResult::cont();
        }
        let opened: Vec<String> = match self
            .session_of(data)
            .and_then(|state| state.get_as::<Vec<String>>(OPENED_KEY))
        {
            Ok(opened) => opened.unwrap_or_default(),
            Err(error) => {
                return HookResult::deny(format!(
                    "`{path}` is guarded by the prompt gate, which cannot decide: {error}"
                ));
            }
        };
        match guarding.iter().find(|rule| !opened.contains(&rule.name)) {
            None => HookResult::cont(),
            Some(rule) => HookResult::deny(rule.message.clone().unwrap_or_else(|| {
                format!(
                    "`{path}` may only be written once a prompt of this session asks for it \
                     (rule `{}`)",
                    rule.name
                )
            })),
        }
    }
}

impl Hook for PromptGateModule {
    async fn handle(&self, event: &str, data: &Value) -> HookResult {
        if event == PROMPT_SUBMIT {
            self.remember(data)
        } else {
            self.check(data)
        }
    }
}

impl HookModule for PromptGateModule {
    fn name(&self) -> &str {
        "prompt_gate"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        *lock(&self.state) = Some(registry.state());
        let mut mounted = Mounted::new(self.name());
        for event in [PROMPT_SUBMIT, TOOL_PRE] {
            mounted.register(registry, event, self.clone(), self.priority, "prompt_gate")?;
        }
        Ok(mounted)
    }
}
