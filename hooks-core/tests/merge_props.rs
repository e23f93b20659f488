//! Property tests of the emit rules (`HookRegistry::emit`'s docs): for any sequence of handler
//! answers, checked against a direct model of the rules.
//!
//! - a deny anywhere decides, and no handler after it runs;
//! - the first ask_user decides unless a deny comes (before or after it): it is never lost to a
//!   later non-blocking answer, and the handlers after it still run;
//! - every injection appears exactly once, in handler order, with its provenance, whatever the
//!   action that carried it;
//! - the final data is the data of the last modify (or of the deny that ended the chain, when
//!   it carries data), and every user message is kept;
//! - answers that cannot be applied (modify without data, inject_context without text) are
//!   reported as failures and change nothing else;
//! - registering handlers of distinct priorities in any order changes nothing.

#![allow(clippy::unwrap_used, missing_docs)]

use std::sync::{Arc, Mutex};

use hooks_core::{EmitResult, HookAction, HookRegistry, HookResult};
use hooks_testing::strategies::hook_result;
use proptest::prelude::*;
use serde_json::{Value, json};

/// The event data every chain starts with; its timestamp is set so that none is added.
fn start_data() -> Value {
    json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "timestamp": "t0"})
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Registers `answers[i]` as handler `h{i}` at priority `i`, in the order `order` gives, and
/// emits once. Returns the outcome and the handlers that ran, in order.
fn run(answers: &[HookResult], order: &[usize]) -> (EmitResult, Vec<usize>) {
    let registry = HookRegistry::new();
    let ran: Arc<Mutex<Vec<usize>>> = Arc::default();
    for &index in order {
        let (answer, ran) = (answers[index].clone(), ran.clone());
        registry
            .register(
                "tool:pre",
                move |_: &str, _: &Value| {
                    ran.lock().unwrap().push(index);
                    let answer = answer.clone();
                    async move { answer }
                },
                i32::try_from(index).unwrap(),
                format!("h{index}"),
            )
            .unwrap();
    }
    let outcome = runtime().block_on(registry.emit("tool:pre", start_data()));
    let ran = ran.lock().unwrap().clone();
    (outcome, ran)
}

/// What the rules say the outcome of `answers`, run in order, must be.
struct Expected {
    ran: Vec<usize>,
    action: HookAction,
    decided_by: Option<String>,
    reason: Option<String>,
    data: Value,
    injections: Vec<(String, String)>,
    messages: Vec<(String, String)>,
    failures: Vec<String>,
}

fn model(answers: &[HookResult]) -> Expected {
    let ran: Vec<usize> = match answers.iter().position(|a| a.action == HookAction::Deny) {
        Some(deny) => (0..=deny).collect(),
        None => (0..answers.len()).collect(),
    };
    let name = |i: usize| format!("h{i}");
    let mut data = start_data();
    let (mut injections, mut messages, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    let mut last_modify_reason = None;
    let mut modified = false;
    for &i in &ran {
        let answer = &answers[i];
        if let Some(text) = &answer.user_message {
            messages.push((text.clone(), name(i)));
        }
        match &answer.context_injection {
            Some(text) => injections.push((text.clone(), name(i))),
            None if answer.action == HookAction::InjectContext => failures.push(name(i)),
            None => {}
        }
        match (answer.action, &answer.data) {
            (HookAction::Modify, Some(new)) => {
                data = new.clone();
                modified = true;
                last_modify_reason.clone_from(&answer.reason);
            }
            (HookAction::Modify, None) => failures.push(name(i)),
            (HookAction::Deny, Some(new)) => data = new.clone(),
            _ => {}
        }
    }
    let deny = ran
        .iter()
        .copied()
        .find(|&i| answers[i].action == HookAction::Deny);
    let ask = ran
        .iter()
        .copied()
        .find(|&i| answers[i].action == HookAction::AskUser);
    let (action, decided_by, reason) = match (deny, ask) {
        (Some(i), _) => (HookAction::Deny, Some(name(i)), answers[i].reason.clone()),
        (None, Some(i)) => (
            HookAction::AskUser,
            Some(name(i)),
            answers[i].reason.clone(),
        ),
        (None, None) if !injections.is_empty() => (HookAction::InjectContext, None, None),
        (None, None) if modified => (HookAction::Modify, None, last_modify_reason),
        (None, None) => (HookAction::Continue, None, None),
    };
    Expected {
        ran,
        action,
        decided_by,
        reason,
        data,
        injections,
        messages,
        failures,
    }
}

fn check(outcome: &EmitResult, ran: &[usize], expected: &Expected) -> Result<(), TestCaseError> {
    prop_assert_eq!(ran, &expected.ran[..], "which handlers ran");
    prop_assert_eq!(outcome.action(), expected.action);
    prop_assert_eq!(
        outcome.decided_by.as_deref(),
        expected.decided_by.as_deref()
    );
    if expected.action != HookAction::InjectContext {
        prop_assert_eq!(&outcome.result.reason, &expected.reason);
    }
    prop_assert_eq!(outcome.data(), &expected.data, "final data");
    let injections: Vec<(String, String)> = outcome
        .injections
        .iter()
        .map(|i| (i.text.clone(), i.hook.to_string()))
        .collect();
    prop_assert_eq!(&injections, &expected.injections);
    let joined = expected
        .injections
        .iter()
        .map(|(text, _)| text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    prop_assert_eq!(
        outcome.result.context_injection.clone(),
        (!expected.injections.is_empty()).then_some(joined)
    );
    let messages: Vec<(String, String)> = outcome
        .messages
        .iter()
        .map(|m| (m.text.clone(), m.hook.to_string()))
        .collect();
    prop_assert_eq!(&messages, &expected.messages);
    let failures: Vec<String> = outcome
        .failures
        .iter()
        .map(|f| f.hook.to_string())
        .collect();
    prop_assert_eq!(&failures, &expected.failures);
    Ok(())
}

/// Answers biased towards the interesting actions: each action about as often as the others.
fn answers() -> impl Strategy<Value = Vec<HookResult>> {
    prop::collection::vec(hook_result(), 0..9)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_chain_follows_the_emit_rules(answers in answers()) {
        let order: Vec<usize> = (0..answers.len()).collect();
        let (outcome, ran) = run(&answers, &order);
        check(&outcome, &ran, &model(&answers))?;
    }

    #[test]
    fn the_merged_action_is_the_strongest_applied_by_its_strength(answers in answers()) {
        let order: Vec<usize> = (0..answers.len()).collect();
        let (outcome, ran) = run(&answers, &order);
        // Each answer that ran counts with what it did: its action when it could be applied,
        // and inject_context whenever it carried text.
        let applied = ran.iter().flat_map(|&i| {
            let answer = &answers[i];
            let own = match answer.action {
                HookAction::Modify if answer.data.is_none() => None,
                HookAction::InjectContext if answer.context_injection.is_none() => None,
                action => Some(action),
            };
            let injected = answer.context_injection.as_ref().map(|_| HookAction::InjectContext);
            [own, injected].into_iter().flatten()
        });
        let strongest = applied.max_by_key(|a| a.strength()).unwrap_or(HookAction::Continue);
        prop_assert_eq!(outcome.action(), strongest);
    }

    #[test]
    fn a_deny_anywhere_wins_and_nothing_after_it_runs(
        mut answers in answers(),
        at in any::<prop::sample::Index>(),
        reason in ".{1,20}",
    ) {
        let at = at.index(answers.len() + 1);
        answers.insert(at, HookResult::deny(reason.clone()));
        let order: Vec<usize> = (0..answers.len()).collect();
        let (outcome, ran) = run(&answers, &order);
        let first_deny = answers.iter().position(|a| a.action == HookAction::Deny).unwrap();
        prop_assert_eq!(outcome.action(), HookAction::Deny);
        prop_assert_eq!(ran.last().copied(), Some(first_deny));
        prop_assert!(ran.len() == first_deny + 1);
        check(&outcome, &ran, &model(&answers))?;
    }

    #[test]
    fn an_ask_user_is_never_lost_to_a_later_non_blocking_answer(
        before in prop::collection::vec(hook_result(), 0..4),
        after in prop::collection::vec(hook_result(), 0..6),
        prompt in ".{1,20}",
    ) {
        let non_blocking = |a: &HookResult| !a.action.is_blocking();
        let before: Vec<HookResult> = before.into_iter().filter(non_blocking).collect();
        let after: Vec<HookResult> = after.into_iter().filter(non_blocking).collect();
        let mut answers = before.clone();
        answers.push(HookResult::ask(prompt.clone()));
        answers.extend(after.iter().cloned());
        let order: Vec<usize> = (0..answers.len()).collect();
        let (outcome, ran) = run(&answers, &order);
        prop_assert_eq!(outcome.action(), HookAction::AskUser);
        prop_assert_eq!(outcome.result.approval_prompt.as_deref(), Some(prompt.as_str()));
        let asker = format!("h{}", before.len());
        prop_assert_eq!(outcome.decided_by.as_deref(), Some(asker.as_str()));
        prop_assert_eq!(ran.len(), answers.len(), "handlers after an ask still run");
        check(&outcome, &ran, &model(&answers))?;
    }

    #[test]
    fn registration_order_of_distinct_priorities_changes_nothing(
        (answers, order) in answers().prop_flat_map(|answers| {
            let order: Vec<usize> = (0..answers.len()).collect();
            (Just(answers), Just(order).prop_shuffle())
        }),
    ) {
        let sorted: Vec<usize> = (0..answers.len()).collect();
        let (in_order, ran_in_order) = run(&answers, &sorted);
        let (shuffled, ran_shuffled) = run(&answers, &order);
        prop_assert_eq!(&ran_in_order, &ran_shuffled);
        prop_assert_eq!(&in_order.result, &shuffled.result);
        prop_assert_eq!(&in_order.injections, &shuffled.injections);
        prop_assert_eq!(&in_order.messages, &shuffled.messages);
        prop_assert_eq!(&in_order.modifications, &shuffled.modifications);
        prop_assert_eq!(&in_order.failures, &shuffled.failures);
        prop_assert_eq!(&in_order.decided_by, &shuffled.decided_by);
    }
}
