//! The one layer every configured hook runs in, whatever runs it: the entry's event matcher,
//! then its runner, bounded by its deadline, and a failure decided by its `on_failure`.
//!
//! Runners (commands, persistent processes, services, models, components, matcher rules)
//! only answer or fail: [`Runner::run`] gives `Result<HookResult, Failure>`, and what a
//! failure becomes is decided here, once. Tower's `Layer` is the model: [`Layered`] wraps a
//! runner with the entry's policy and is the handler registered for it.

use std::future::Future;
use std::time::Duration;

use hooks_core::{Hook, HookResult};
use serde_json::Value;

use crate::Entry;
use crate::failure::Failure;

/// How long past an entry's timeout the layer still waits for its runner: each runner bounds
/// its own work by the timeout (killing a process, dropping a request) and reports how it
/// ended; the layer's deadline only ensures an answer when a runner cannot.
const GRACE: Duration = Duration::from_secs(2);

/// Something that answers an event for an entry, or fails.
pub(crate) trait Runner: Send + Sync + 'static {
    /// Whether it answers in the process, at once, so that no deadline applies (a matcher).
    const IMMEDIATE: bool = false;

    /// The answer of the runner of `entry` to one event with `data`; the entry's
    /// [`timeout`](Entry::timeout) bounds its work.
    fn run(
        &self,
        entry: &Entry,
        data: &Value,
    ) -> impl Future<Output = Result<HookResult, Failure>> + Send;
}

/// A runner with its entry's policy: the handler registered for the entry.
pub(crate) struct Layered<R> {
    entry: Entry,
    runner: R,
}

impl<R: Runner> Layered<R> {
    /// `runner` under the policy of `entry`.
    pub(crate) fn new(entry: Entry, runner: R) -> Self {
        Layered { entry, runner }
    }

    /// The answer to one event: continue when the matcher does not match; the runner's
    /// answer, or its failure as `on_failure` decides it.
    pub(crate) async fn answer(&self, data: &Value) -> HookResult {
        let entry = &self.entry;
        if let Some(matcher) = &entry.matcher
            && !matcher.matches(&entry.event, data)
        {
            return HookResult::cont();
        }
        let answered = if R::IMMEDIATE {
            self.runner.run(entry, data).await
        } else {
            let run = self.runner.run(entry, data);
            tokio::time::timeout(entry.timeout + GRACE, run)
                .await
                .unwrap_or(Err(Failure::Deadline(entry.timeout)))
        };
        answered.unwrap_or_else(|failure| entry.on_failure.apply(&entry.name, &failure))
    }
}

impl<R: Runner> Hook for Layered<R> {
    async fn handle(&self, _event: &str, data: &Value) -> HookResult {
        self.answer(data).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EventMatcher, HookKind, MatcherHook, OnFailure, Rewrite};
    use hooks_core::{HookAction, MessageLevel};
    use serde_json::json;

    fn entry(on_failure: OnFailure, matcher: Option<&str>) -> Entry {
        Entry {
            event: "tool:pre".to_owned(),
            event_as_written: "PreToolUse".to_owned(),
            name: "policy".to_owned(),
            priority: 0,
            line: 1,
            matcher: matcher.map(|m| EventMatcher::parse(m).unwrap()),
            timeout: Duration::from_millis(50),
            on_failure,
            rewrite: Rewrite::Confirm,
            hook: HookKind::Matcher(MatcherHook {
                tool: None,
                args: Vec::new(),
                action: crate::Action::Block,
                message: None,
            }),
        }
    }

    /// A runner that never answers.
    struct Hangs;

    impl Runner for Hangs {
        async fn run(&self, _: &Entry, _: &Value) -> Result<HookResult, Failure> {
            std::future::pending().await
        }
    }

    /// A runner that fails at once.
    struct Fails;

    impl Runner for Fails {
        async fn run(&self, _: &Entry, _: &Value) -> Result<HookResult, Failure> {
            Err(Failure::Remote("the service is down".to_owned()))
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_runner_past_its_deadline_is_a_failure_on_failure_decides() {
        let call = json!({"tool_name": "Bash"});
        let blocked = Layered::new(entry(OnFailure::Block, None), Hangs)
            .answer(&call)
            .await;
        assert_eq!(blocked.action, HookAction::Deny);
        assert!(
            blocked
                .reason
                .unwrap()
                .contains("within its timeout of 50 ms"),
            "the deadline is named"
        );
        let warned = Layered::new(entry(OnFailure::Warn, None), Hangs)
            .answer(&call)
            .await;
        assert_eq!(warned.action, HookAction::Continue);
        assert_eq!(warned.user_message_level, MessageLevel::Warning);
        assert!(warned.user_message.is_some());
    }

    #[tokio::test]
    async fn every_runner_gets_the_same_matcher_and_on_failure() {
        let layered = Layered::new(entry(OnFailure::Block, Some("Write")), Fails);
        let other_tool = layered.answer(&json!({"tool_name": "Bash"})).await;
        assert_eq!(
            other_tool.action,
            HookAction::Continue,
            "not matched: not run"
        );
        let matched = layered.answer(&json!({"tool_name": "Write"})).await;
        assert_eq!(matched.action, HookAction::Deny);
        assert!(matched.reason.unwrap().contains("the service is down"));
        let ignored = Layered::new(entry(OnFailure::Ignore, None), Fails)
            .answer(&json!({}))
            .await;
        assert_eq!(ignored.action, HookAction::Continue);
        assert_eq!(ignored.user_message, None);
    }
}
