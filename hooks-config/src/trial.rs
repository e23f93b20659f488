//! A hooks file run on events away from any agent: what a table of test cases
//! ([`cases`](crate::cases)) and a replay of recorded events ([`replay`](crate::replay)) ask
//! of it. The decision is the guard's own ([`Policy`]), reduced to what a person asks of a
//! policy (allow, deny or ask); the modules that only record (`logging`, `telemetry`) are left
//! out, so that a trial run never writes into the log it may be reading.

use std::fmt;

use hooks_core::state::MemoryState;
use hooks_core::{EmitResult, HookAction, StateBackend};
use serde::Serialize;
use serde_json::Value;

use crate::{HooksConfig, Layer, Level, Policy, PolicyStack};

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

/// A policy mounted for a trial: the [`Policy`] the guard decides with, built from the same
/// stack, without the recording modules and with the sessions' state read, never written.
pub struct Trial {
    policy: Policy,
}

impl Trial {
    /// Mounts `stack` as the guard would, without its `logging` and `telemetry` modules; the
    /// sessions' state is `sessions`' (read, never written; `None`: none), so that a call a
    /// session answered "… always" is settled as the guard settles it. The problem when it
    /// does not mount.
    pub fn mount(stack: &PolicyStack, sessions: Option<impl StateBackend>) -> Result<Self, String> {
        let mut builder = Policy::builder(stack).recording(false);
        if let Some(sessions) = sessions {
            builder = builder.state_read_only(sessions);
        }
        Ok(Trial {
            policy: builder.build()?,
        })
    }

    /// Mounts the file `config` alone (no managed or user layer, no sessions' state), as
    /// [`Trial::mount`] does a stack.
    pub fn mount_file(config: &HooksConfig) -> Result<Self, String> {
        let stack = PolicyStack::from_layers(vec![Layer {
            level: Level::Project,
            config: config.clone(),
        }]);
        Trial::mount(&stack, None::<MemoryState>)
    }

    /// The outcome of emitting `event` with `data`: the guard's [`Policy::decide`].
    pub async fn emit(&self, event: &str, data: Value) -> EmitResult {
        self.policy.decide(event, data).await
    }
}

impl fmt::Debug for Trial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trial")
            .field("policy", &self.policy)
            .finish()
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
