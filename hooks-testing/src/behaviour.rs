//! The behavioural suite every hook module runs: mounting and unmounting, valid answers,
//! robustness to bad data, a time budget, a realistic session, and concurrency.
//!
//! [`hook_behaviour_tests!`](crate::hook_behaviour_tests) turns it into one `#[test]` per check;
//! each check is also a function of [`Suite`] returning a [`BehaviourFailure`], so that a test
//! can assert that a broken module fails.

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::time::Duration;

use hooks_core::{EmitResult, HookAction, HookModule, HookRegistry};
use serde_json::{Value, json};

use crate::ScriptedSession;

/// The time one emit may take in the suite, unless the suite is given another budget.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(500);

/// The checks of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Mounting registers handlers; unmounting removes every one of them.
    MountAndUnmount,
    /// Every answer to realistic data is a valid result.
    ValidAnswers,
    /// Empty, malformed and unexpected data give `continue` or a deny with a reason (fail
    /// closed), never a failure. (Events a module did not register for never reach it: the
    /// registry guarantees that, so the suite does not test it.)
    BadData,
    /// Every emit finishes within the budget.
    TimeBudget,
    /// The module survives a whole scripted session.
    ScriptedSession,
    /// Concurrent emits give the same answers as serial ones.
    Concurrency,
}

impl Check {
    /// Every check, in the order the suite runs them.
    pub const ALL: [Check; 6] = [
        Check::MountAndUnmount,
        Check::ValidAnswers,
        Check::BadData,
        Check::TimeBudget,
        Check::ScriptedSession,
        Check::Concurrency,
    ];
}

/// Why a module failed a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehaviourFailure {
    /// The module.
    pub module: String,
    /// The check.
    pub check: Check,
    /// What went wrong.
    pub problem: String,
}

impl fmt::Display for BehaviourFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hook module `{}` fails the {:?} check: {}",
            self.module, self.check, self.problem
        )
    }
}

impl std::error::Error for BehaviourFailure {}

/// The suite, for one module.
#[derive(Debug)]
pub struct Suite<M> {
    module: M,
    budget: Duration,
}

/// Data a hook must survive: absent, empty, of the wrong type, with wrongly typed fields, deep,
/// large, and odd text.
pub fn bad_data() -> Vec<Value> {
    let mut deep = json!("bottom");
    for _ in 0..64 {
        deep = json!({ "nested": deep });
    }
    vec![
        Value::Null,
        json!({}),
        json!([]),
        json!("garbage"),
        json!(42),
        json!({"tool_name": 7, "tool_input": "not an object", "prompt": ["a", "list"]}),
        json!({"tool_name": null, "tool_input": null, "tool_result": null, "request": null}),
        json!({"tool_name": "bash", "tool_input": {"command": {"not": "a string"}}}),
        json!({"tool_name": "write_file", "tool_input": {"file_path": "../../../../etc/passwd"}}),
        json!({"tool_name": "", "tool_input": {"command": ""}}),
        json!({"prompt": "x".repeat(256 * 1024)}),
        json!({"prompt": "\u{0}\u{202e}\u{fffd} emoji 🦀 and\nnew\nlines"}),
        deep,
    ]
}

impl<M: HookModule> Suite<M> {
    /// The suite for `module`, with [`DEFAULT_BUDGET`].
    pub fn new(module: M) -> Self {
        Suite {
            module,
            budget: DEFAULT_BUDGET,
        }
    }

    /// Another time budget per emit.
    #[must_use]
    pub fn budget(mut self, budget: Duration) -> Self {
        self.budget = budget;
        self
    }

    fn fail(&self, check: Check, problem: impl Into<String>) -> BehaviourFailure {
        BehaviourFailure {
            module: self.module.name().to_owned(),
            check,
            problem: problem.into(),
        }
    }

    /// A registry whose handlers time out at the budget, with the module mounted.
    fn mounted(&self, check: Check) -> Result<(HookRegistry, Vec<String>), BehaviourFailure> {
        let registry = HookRegistry::with_handler_timeout(Some(self.budget));
        let mounted = self
            .module
            .mount(&registry)
            .map_err(|error| self.fail(check, format!("mounting failed: {error}")))?;
        let mut events: BTreeSet<String> = mounted
            .handles()
            .iter()
            .map(|handle| handle.event().to_owned())
            .collect();
        // An observer hears every event: exercise it on the events of a realistic session.
        if !mounted.observers().is_empty() {
            events.extend(
                ScriptedSession::typical()
                    .steps()
                    .iter()
                    .map(|s| s.event.to_owned()),
            );
        }
        Ok((registry, events.into_iter().collect()))
    }

    /// Runs one check on a fresh multi-threaded runtime; panics with the failure, for
    /// `#[test]` functions.
    #[track_caller]
    pub fn run(&self, check: Check) {
        if let Err(failure) = self.check(check) {
            panic!("{failure}");
        }
    }

    /// Runs one check on a fresh multi-threaded runtime. A module that panics (in `mount`,
    /// say) fails the check with the panic's message; the panic goes no further.
    pub fn check(&self, check: Check) -> Result<(), BehaviourFailure> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|error| self.fail(check, format!("no runtime: {error}")))?;
        let run = || match check {
            Check::MountAndUnmount => self.mount_and_unmount(),
            Check::ValidAnswers => runtime.block_on(self.valid_answers()),
            Check::BadData => runtime.block_on(self.bad_data()),
            Check::TimeBudget => runtime.block_on(self.time_budget()),
            Check::ScriptedSession => runtime.block_on(self.scripted_session()),
            Check::Concurrency => runtime.block_on(self.concurrency()),
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            Err(self.fail(check, format!("the module panicked: {message}")))
        })
    }

    /// Runs every check; returns every failure.
    pub fn check_all(&self) -> Vec<BehaviourFailure> {
        Check::ALL
            .iter()
            .filter_map(|check| self.check(*check).err())
            .collect()
    }

    /// Mounting registers at least one handler or observer; unmounting removes exactly those,
    /// leaving the registry empty.
    pub fn mount_and_unmount(&self) -> Result<(), BehaviourFailure> {
        let check = Check::MountAndUnmount;
        let registry = HookRegistry::new();
        let mounted = self
            .module
            .mount(&registry)
            .map_err(|error| self.fail(check, format!("mounting failed: {error}")))?;
        let registered: usize = registry
            .list_handlers(None)
            .values()
            .map(Vec::len)
            .sum::<usize>()
            + registry.observer_count();
        let returned = mounted.handles().len() + mounted.observers().len();
        if registered == 0 {
            return Err(self.fail(check, "mounting registered no handler"));
        }
        if registered != returned {
            return Err(self.fail(
                check,
                format!(
                    "mounting registered {registered} handlers and observers but returned \
                     {returned}: the rest cannot be unmounted"
                ),
            ));
        }
        let removed = mounted.unmount();
        let left = registry.list_handlers(None);
        if removed != registered || !left.is_empty() || registry.observer_count() > 0 {
            return Err(self.fail(
                check,
                format!("unmounting removed {removed} of {registered}; left: {left:?}"),
            ));
        }
        Ok(())
    }

    /// Checks one outcome: no handler failed, and the merged result is usable.
    fn validate(
        &self,
        check: Check,
        event: &str,
        outcome: &EmitResult,
    ) -> Result<(), BehaviourFailure> {
        if let Some(failure) = outcome.failures.first() {
            return Err(self.fail(check, format!("on `{event}`: {failure}")));
        }
        let result = &outcome.result;
        let empty = |text: &Option<String>| text.as_deref().is_none_or(|t| t.trim().is_empty());
        let problem = match result.action {
            HookAction::Deny if empty(&result.reason) => Some("a deny without a reason"),
            HookAction::AskUser if empty(&result.approval_prompt) && empty(&result.reason) => {
                Some("an ask_user with neither prompt nor reason")
            }
            _ if !(result.approval_timeout.is_finite() && result.approval_timeout >= 0.0) => {
                Some("an approval timeout that is not a finite number of seconds")
            }
            _ => None,
        };
        match problem {
            Some(problem) => Err(self.fail(check, format!("on `{event}`: {problem}"))),
            None => Ok(()),
        }
    }

    /// Realistic data for every event the module handles gives valid answers.
    pub async fn valid_answers(&self) -> Result<(), BehaviourFailure> {
        let check = Check::ValidAnswers;
        let (registry, events) = self.mounted(check)?;
        let session = ScriptedSession::typical();
        for event in &events {
            let data = session.sample(event).cloned().unwrap_or_else(|| json!({}));
            let outcome = registry.emit(event, data).await;
            self.validate(check, event, &outcome)?;
        }
        Ok(())
    }

    /// Bad data on every event the module handles gives `continue` or a reasoned deny (or an
    /// ask, which defaults to deny), never a failure.
    pub async fn bad_data(&self) -> Result<(), BehaviourFailure> {
        let check = Check::BadData;
        let (registry, events) = self.mounted(check)?;
        for event in &events {
            for data in bad_data() {
                let shown = abbreviate(&data);
                let outcome = registry.emit(event, data).await;
                self.validate(check, event, &outcome).map_err(|failure| {
                    self.fail(check, format!("{} (data: {shown})", failure.problem))
                })?;
                if matches!(
                    outcome.action(),
                    HookAction::Modify | HookAction::InjectContext
                ) {
                    return Err(self.fail(
                        check,
                        format!(
                            "on `{event}` with data {shown}: answered {} instead of continue or a \
                             fail-closed deny",
                            outcome.action()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every emit of the scripted session and of the bad data ends within the budget.
    pub async fn time_budget(&self) -> Result<(), BehaviourFailure> {
        let check = Check::TimeBudget;
        let (registry, events) = self.mounted(check)?;
        let mut cases: Vec<(String, Value)> = ScriptedSession::typical()
            .steps()
            .iter()
            .map(|step| (step.event.to_owned(), step.data.clone()))
            .collect();
        for event in &events {
            cases.extend(bad_data().into_iter().map(|data| (event.clone(), data)));
        }
        for (event, data) in cases {
            // The registry's own timeout is the budget; this outer one only guards against an
            // emit that never ends at all.
            let outcome = within(self.budget * 4, registry.emit(&event, data))
                .await
                .ok_or_else(|| self.fail(check, format!("an emit of `{event}` never ended")))?;
            if let Some(slow) = outcome
                .failures
                .iter()
                .find(|f| matches!(f.kind, hooks_core::FailureKind::Timeout(_)))
            {
                return Err(self.fail(
                    check,
                    format!(
                        "`{}` took longer than {:?} on `{event}`",
                        slow.hook, self.budget
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every step of a realistic session gives a valid answer.
    pub async fn scripted_session(&self) -> Result<(), BehaviourFailure> {
        let check = Check::ScriptedSession;
        let (registry, _) = self.mounted(check)?;
        for (event, outcome) in ScriptedSession::typical().play(&registry).await {
            self.validate(check, event, &outcome)?;
        }
        Ok(())
    }

    /// The scripted session's events emitted all at once, from several tasks, get the answers
    /// they get one after another.
    pub async fn concurrency(&self) -> Result<(), BehaviourFailure> {
        let check = Check::Concurrency;
        let (registry, _) = self.mounted(check)?;
        let steps = ScriptedSession::typical().steps().to_vec();
        let mut serial = Vec::with_capacity(steps.len());
        for step in &steps {
            serial.push(answer_of(
                &registry.emit(step.event, step.data.clone()).await,
            ));
        }
        let tasks: Vec<_> = steps
            .iter()
            .map(|step| {
                let registry = registry.clone();
                let step = step.clone();
                tokio::spawn(async move { answer_of(&registry.emit(step.event, step.data).await) })
            })
            .collect();
        for (index, task) in tasks.into_iter().enumerate() {
            let concurrent = task.await.map_err(|error| {
                self.fail(check, format!("a concurrent emit panicked: {error}"))
            })?;
            if concurrent != serial[index] {
                return Err(self.fail(
                    check,
                    format!(
                        "`{}` answered {:?} concurrently but {:?} serially",
                        steps[index].event, concurrent, serial[index]
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// What must not depend on concurrency: the action, the reason, the injections and the final
/// data (without the timestamp, which differs by nature).
fn answer_of(outcome: &EmitResult) -> (HookAction, Option<String>, Vec<String>, Value) {
    let mut data = outcome.data().clone();
    if let Some(fields) = data.as_object_mut() {
        fields.remove(hooks_core::TIMESTAMP_FIELD);
    }
    (
        outcome.action(),
        outcome.result.reason.clone(),
        outcome.injections.iter().map(|i| i.text.clone()).collect(),
        data,
    )
}

async fn within<F: Future>(limit: Duration, future: F) -> Option<F::Output> {
    tokio::time::timeout(limit, future).await.ok()
}

fn abbreviate(data: &Value) -> String {
    let text = data.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Generates one `#[test]` per behavioural check for a hook module.
///
/// ```ignore
/// hooks_testing::hook_behaviour_tests!(
///     safety_behaviour,
///     SafetyModule::new(SafetyConfig::default(), &SelfProtection::none())
/// );
/// // with another time budget per emit:
/// hooks_testing::hook_behaviour_tests!(slow_behaviour, LinterModule::default(), budget = Duration::from_secs(5));
/// ```
#[macro_export]
macro_rules! hook_behaviour_tests {
    ($name:ident, $module:expr) => {
        $crate::hook_behaviour_tests!($name, $module, budget = $crate::behaviour::DEFAULT_BUDGET);
    };
    ($name:ident, $module:expr, budget = $budget:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn suite() -> $crate::behaviour::Suite<impl $crate::core::HookModule> {
                $crate::behaviour::Suite::new($module).budget($budget)
            }

            #[test]
            fn mounts_and_unmounts_cleanly() {
                suite().run($crate::behaviour::Check::MountAndUnmount);
            }

            #[test]
            fn answers_realistic_data_validly() {
                suite().run($crate::behaviour::Check::ValidAnswers);
            }

            #[test]
            fn survives_bad_data_and_unknown_events() {
                suite().run($crate::behaviour::Check::BadData);
            }

            #[test]
            fn answers_within_the_time_budget() {
                suite().run($crate::behaviour::Check::TimeBudget);
            }

            #[test]
            fn survives_a_scripted_session() {
                suite().run($crate::behaviour::Check::ScriptedSession);
            }

            #[test]
            fn answers_the_same_concurrently() {
                suite().run($crate::behaviour::Check::Concurrency);
            }
        }
    };
}
