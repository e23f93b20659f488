//! The safety module (`tool:pre`): the [`hooks_safety`] checker mounted on the hook registry.
//! It denies destructive shell commands and file operations on system directories, secrets,
//! or outside the workspace, with a reason that tells the agent what to do instead.
//!
//! The checker, its configuration ([`SafetyConfig`], with every key and its built-in
//! entries) and its packs live in the `hooks-safety` crate and are re-exported here; this
//! module adds only the hook: a denial becomes a `deny` result with the rule's id, and a
//! warning for the user. The tool's name is handed on, so that reading tools may read the
//! write-protected files (the hooks files, the agents' hook settings) and a patch tool's
//! input is read as a patch. What it keeps of the product that runs it (its files, resident
//! processes and administration commands) is the [`SelfProtection`] it is given; built from a
//! hooks file (the module catalog), it is the catalog's and the loader's
//! ([`ModuleContext::protection`](crate::catalog::ModuleContext::protection)), and the module
//! also write-protects that file, whatever its name.
//!
//! ```
//! use hooks_std::safety::{SafetyConfig, SafetyModule, SelfProtection};
//! use serde_json::json;
//!
//! let config: SafetyConfig = serde_json::from_value(json!({"workspace": "/srv/app"})).unwrap();
//! let safety = SafetyModule::new(config, &SelfProtection::none()).unwrap();
//! let denial = safety.check(&json!({"command": "bash -c 'cd / && rm -rf *'"}));
//! assert!(denial.unwrap().starts_with("[filesystem:rm-root]"));
//! let git = safety.check(&json!({"command": "git -C app reset --hard"}));
//! assert!(git.unwrap().starts_with("[git:reset-hard]"));
//! assert_eq!(safety.check(&json!({"command": "cargo test"})), None);
//! ```

use std::path::Path;

use hooks_core::events::fields::{CWD, TOOL_INPUT, TOOL_NAME};
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{Hook, HookRegistry, HookResult, MessageLevel};
pub use hooks_safety::{
    Access, AdminCommand, AdminProgram, BlockedCommand, Denial, Evaluation, Guard, ResidentProcess,
    RmPolicy, SafetyConfig, SafetyConfigError, SelfProtection, Severity, packs,
};
use serde_json::Value;

/// The safety module: a [`Guard`] as a hook on `tool:pre`.
#[derive(Debug, Clone)]
pub struct SafetyModule {
    guard: Guard,
}

impl SafetyModule {
    /// Compiles `config`, keeping what `protection` names of the product from the agent
    /// ([`Guard::new`]); every glob and regex is checked now, not at the first tool call.
    pub fn new(
        config: SafetyConfig,
        protection: &SelfProtection,
    ) -> Result<Self, SafetyConfigError> {
        Guard::new(config, protection).map(SafetyModule::from)
    }

    /// The module with the default configuration, the workspace being the current directory.
    pub fn with_defaults(protection: &SelfProtection) -> Result<Self, SafetyConfigError> {
        Guard::with_defaults(protection).map(SafetyModule::from)
    }

    /// The checker the module runs.
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// Why the tool call with input `tool_input` must not run, if it must not: the rule's
    /// id, then what to do instead.
    pub fn check(&self, tool_input: &Value) -> Option<String> {
        self.guard
            .check_tool_input(tool_input)
            .map(|denial| denial.to_string())
    }

    /// The full verdict on the tool call with input `tool_input`: the denial, with its pack
    /// and rule, and the policy allowances that let deletions through.
    pub fn evaluate(&self, tool_input: &Value) -> Evaluation {
        self.guard.evaluate_tool_input(tool_input)
    }

    /// Why the call of the tool `tool` with input `tool_input` must not run, if it must not:
    /// as [`check`](SafetyModule::check), the tool's name telling reading tools (which may
    /// read a write-protected file) and patch tools (whose input is read as a patch) apart.
    pub fn check_call(&self, tool: &str, tool_input: &Value) -> Option<String> {
        self.guard
            .check_tool_call(tool, tool_input)
            .map(|denial| denial.to_string())
    }
}

impl From<Guard> for SafetyModule {
    fn from(guard: Guard) -> Self {
        SafetyModule { guard }
    }
}

impl Hook for SafetyModule {
    async fn handle(&self, _event: &str, data: &Value) -> HookResult {
        let name = data[TOOL_NAME].as_str().unwrap_or_default();
        let tool = if name.is_empty() { "the tool" } else { name };
        // The call runs where the agent says it does (Claude Code's `cwd` follows the `cd`s of
        // its shell); a relative or missing `cwd` says nothing, and the workspace stands.
        let input = &data[TOOL_INPUT];
        let denial = match data[CWD].as_str().map(Path::new) {
            Some(dir) if dir.is_absolute() => {
                self.guard.evaluate_tool_call_in(name, input, dir).denial
            }
            _ => self.guard.check_tool_call(name, input),
        };
        match denial {
            Some(denial) => HookResult::deny(denial.to_string()).with_user_message(
                format!(
                    "safety: blocked a call to `{tool}` (rule {}, {})",
                    denial.id(),
                    denial.severity
                ),
                MessageLevel::Warning,
            ),
            None => HookResult::cont(),
        }
    }
}

impl HookModule for SafetyModule {
    fn name(&self) -> &str {
        "safety"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.name());
        mounted.register(
            registry,
            hooks_core::events::TOOL_PRE,
            self.clone(),
            self.guard.config().priority,
            "safety",
        )?;
        Ok(mounted)
    }
}
