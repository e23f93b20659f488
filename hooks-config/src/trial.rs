//! A hooks file run on events away from any agent: what a table of test cases
//! ([`cases`](crate::cases)) and a replay of recorded events ([`replay`](crate::replay)) ask
//! of it. The decision is reduced to what a person asks of a policy (allow, deny or ask), and
//! the modules that only record (`logging`, `telemetry`) are left out, so that a trial run
//! never writes into the log it may be reading.

use std::fmt;

use hooks_core::module::{HookModule, Mounted};
use hooks_core::{EmitResult, HookAction, HookRegistry};
use serde::Serialize;
use serde_json::Value;

use crate::HooksConfig;

/// The modules a trial leaves out: they record what happened and decide nothing.
const RECORDING_MODULES: &[&str] = &["logging", "telemetry"];

/// What a policy decided about one event, as a person asks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// It goes ahead (continue, a rewrite or an injection: nothing stops it).
    Allow,
    /// It is denied.
    Deny,
    /// The user is asked first.
    Ask,
}

impl Verdict {
    /// The verdicts by name, as tables and logs spell them.
    pub const NAMES: &[&str] = &["allow", "deny", "ask"];

    /// The verdict of a merged action.
    pub fn of_action(action: HookAction) -> Self {
        match action {
            HookAction::Deny => Verdict::Deny,
            HookAction::AskUser => Verdict::Ask,
            _ => Verdict::Allow,
        }
    }

    /// The verdict of an emit.
    pub fn of(outcome: &EmitResult) -> Self {
        Verdict::of_action(outcome.action())
    }

    /// The verdict named `name`: `allow`, `deny` or `ask` (and the action names `continue`
    /// and `ask_user`, as the logging module writes them).
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "allow" | "continue" | "modify" | "inject_context" => Some(Verdict::Allow),
            "deny" => Some(Verdict::Deny),
            "ask" | "ask_user" => Some(Verdict::Ask),
            _ => None,
        }
    }

    /// Its name: `allow`, `deny` or `ask`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Deny => "deny",
            Verdict::Ask => "ask",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A hooks file mounted for a trial on a registry of its own, without its recording modules.
pub struct Trial {
    registry: HookRegistry,
    _mounted: Mounted,
}

impl Trial {
    /// Mounts `config` without its `logging` and `telemetry` modules; the problem when it does
    /// not mount.
    pub fn mount(config: &HooksConfig) -> Result<Self, String> {
        let mut quiet = config.clone();
        quiet
            .modules
            .retain(|module| !RECORDING_MODULES.contains(&module.name.as_str()));
        let registry = HookRegistry::new();
        let mounted = quiet.mount(&registry).map_err(|error| error.to_string())?;
        Ok(Trial {
            registry,
            _mounted: mounted,
        })
    }

    /// The outcome of emitting `event` with `data`.
    pub async fn emit(&self, event: &str, data: Value) -> EmitResult {
        self.registry.emit(event, data).await
    }
}

impl fmt::Debug for Trial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trial").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_become_verdicts() {
        assert_eq!(Verdict::of_action(HookAction::Deny), Verdict::Deny);
        assert_eq!(Verdict::of_action(HookAction::AskUser), Verdict::Ask);
        assert_eq!(Verdict::of_action(HookAction::Modify), Verdict::Allow);
        assert_eq!(
            Verdict::of_action(HookAction::InjectContext),
            Verdict::Allow
        );
        assert_eq!(Verdict::named("ask_user"), Some(Verdict::Ask));
        assert_eq!(Verdict::named("continue"), Some(Verdict::Allow));
        assert_eq!(Verdict::named("block"), None);
    }
}
