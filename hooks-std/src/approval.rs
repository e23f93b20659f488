//! The approval module (`tool:pre`): asks the user before the listed tools run, with a prompt
//! built from the tool and its input.
//!
//! The question names the tool and what it will act on: the command for shell tools, the path
//! for file tools, otherwise the input as compact JSON, cut to `max_input_chars` on a character
//! boundary. The answer goes through the session's approval provider (see
//! `hooks_core::session::approval`): "Allow always" is remembered in the session's state, and silence or
//! failure is the default. Under `hooks claude` the agent asks its user itself; an answer
//! remembered in the session's state (by an application sharing the file store) settles the
//! question without asking again.
//!
//! Config keys (unknown keys are an error naming the key):
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `tools` | none | tool names to ask about (any case); `"*"` for every tool |
//! | `options` | `Allow once`, `Allow always`, `Deny` | the answers offered; given, they are the whole menu (the one list of the standard modules that replaces its built-in entries: adding to it would offer `Allow always` to a configuration that left it out) |
//! | `default` | `deny` | the decision on timeout or error (`allow` or `deny`) |
//! | `timeout_secs` | `300` | how long to wait |
//! | `max_input_chars` | `200` | how much of the input the question shows |
//! | `priority` | `0` | |
//!
//! ```
//! use hooks_std::approval::{ApprovalConfig, ApprovalModule};
//! use hooks_core::HookAction;
//! use serde_json::json;
//!
//! let config: ApprovalConfig = serde_json::from_value(json!({"tools": ["deploy"]})).unwrap();
//! let approval = ApprovalModule::new(config).unwrap();
//! let asked = approval.decide(&json!({"tool_name": "deploy", "tool_input": {"env": "prod"}}));
//! assert_eq!(asked.action, HookAction::AskUser);
//! assert_eq!(asked.approval_prompt.as_deref(), Some(r#"Allow `deploy` with {"env":"prod"}?"#));
//! ```

use std::sync::Arc;
use std::time::Duration;

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::text::truncate_chars_marked;
use hooks_core::view::{EventView, ToolPre};
use hooks_core::{ApprovalDefault, HookRegistry, HookResult, TypedHook};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The approval module's configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApprovalConfig {
    /// Tool names to ask about; `"*"` for all.
    pub tools: Vec<String>,
    /// The answers offered.
    pub options: Vec<String>,
    /// The decision on timeout or error.
    pub default: ApprovalDefault,
    /// How long to wait for the user, in seconds.
    pub timeout_secs: f64,
    /// How many characters of the input the question shows.
    pub max_input_chars: usize,
    /// The handler's priority.
    pub priority: i32,
}

impl Default for ApprovalConfig {
    fn default() -> Self {
        ApprovalConfig {
            tools: Vec::new(),
            options: ["Allow once", "Allow always", "Deny"]
                .map(String::from)
                .to_vec(),
            default: ApprovalDefault::Deny,
            timeout_secs: 300.0,
            max_input_chars: 200,
            priority: 0,
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("approval module: {0}")]
pub struct ApprovalConfigError(String);

/// The approval module: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct ApprovalModule {
    config: Arc<ApprovalConfig>,
}

impl ApprovalModule {
    /// Checks `config`.
    pub fn new(config: ApprovalConfig) -> Result<Self, ApprovalConfigError> {
        if !(config.timeout_secs.is_finite() && config.timeout_secs > 0.0) {
            return Err(ApprovalConfigError(format!(
                "`timeout_secs` must be a positive number of seconds, not {}",
                config.timeout_secs
            )));
        }
        if config.options.is_empty() {
            return Err(ApprovalConfigError(
                "`options` must offer at least one answer".into(),
            ));
        }
        Ok(ApprovalModule {
            config: Arc::new(config),
        })
    }

    fn listed(&self, tool: &str) -> bool {
        self.config
            .tools
            .iter()
            .any(|listed| listed == "*" || listed.eq_ignore_ascii_case(tool))
    }

    /// The answer to a `tool:pre` event's data: ask for a listed tool, continue otherwise.
    pub fn decide(&self, data: &Value) -> HookResult {
        // A tool an adapter gave its canonical name keeps the agent's own one (`Shell`) as
        // `agent_tool_name`, which the list may name instead.
        let own = data["agent_tool_name"]
            .as_str()
            .filter(|own| self.listed(own));
        match data[TOOL_NAME].as_str() {
            Some(tool) if self.listed(tool) => self.decide_call(tool, &data[TOOL_INPUT]),
            Some(_) => own.map_or_else(HookResult::cont, |own| {
                self.decide_call(own, &data[TOOL_INPUT])
            }),
            None => HookResult::cont(),
        }
    }

    /// The answer to a call of `tool` with `input`.
    fn decide_call(&self, tool: &str, input: &Value) -> HookResult {
        if !self.listed(tool) {
            return HookResult::cont();
        }
        let subject = input
            .get("command")
            .or_else(|| input.get("file_path"))
            .or_else(|| input.get("path"))
            .and_then(Value::as_str)
            .map(|text| {
                format!(
                    "`{}`",
                    truncate_chars_marked(text, self.config.max_input_chars, "…")
                )
            })
            .unwrap_or_else(|| {
                truncate_chars_marked(&input.to_string(), self.config.max_input_chars, "…")
                    .into_owned()
            });
        HookResult::ask(format!("Allow `{tool}` with {subject}?"))
            .with_reason(format!(
                "`{tool}` needs the user's approval (approval module)"
            ))
            .with_approval_options(self.config.options.clone())
            .with_approval_default(self.config.default)
            .with_approval_timeout(Duration::from_secs_f64(self.config.timeout_secs))
    }
}

impl TypedHook for ApprovalModule {
    async fn on_tool_pre(&self, call: ToolPre<'_>) -> HookResult {
        self.decide(call.data())
    }
}

impl HookModule for ApprovalModule {
    fn name(&self) -> &str {
        "approval"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.name());
        mounted.register(
            registry,
            hooks_core::events::TOOL_PRE,
            self.clone(),
            self.config.priority,
            "approval",
        )?;
        Ok(mounted)
    }
}
