//! `#[hook]` functions end up registered with their event, priority and name, run in order
//! with hand-registered handlers, can be filtered, and are found across crates.

use std::time::Duration;

use hooks_core::{
    AnnotatedHook, HookAction, HookRegistry, HookResult, annotated_hooks, hook, registration_works,
};
use serde_json::{Value, json};

#[hook(event = "annotated_test:order", priority = 5)]
async fn late(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("late")
}

#[hook(priority = -1, name = "early", event = "annotated_test:order")]
async fn early(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("early")
}

// Declared before `a_tie` on purpose: equal priorities are ordered by name, not declaration.
#[hook(event = "annotated_test:tie", name = "b_tie")]
async fn b_tie(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("b")
}

#[hook(event = "annotated_test:tie", name = "a_tie")]
async fn a_tie(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("a")
}

#[hook(events = ["annotated_test:multi", "SessionStart"], name = "multi", timeout_ms = 250)]
async fn multi(event: &str, _data: &Value) -> HookResult {
    HookResult::inject(format!("multi on {event}"))
}

#[hook(event = "annotated_test:fallible", name = "fallible")]
async fn fallible(_event: &str, _data: &Value) -> Result<HookResult, String> {
    Err("no database".to_owned())
}

fn find(name: &str) -> Vec<&'static AnnotatedHook> {
    annotated_hooks()
        .iter()
        .copied()
        .filter(|hook| hook.name() == name)
        .collect()
}

fn ours(hook: &AnnotatedHook) -> bool {
    hook.module_path() == module_path!()
}

#[test]
fn the_canary_proves_that_registration_works() {
    assert!(registration_works());
    assert!(
        annotated_hooks()
            .iter()
            .all(|hook| hook.event() != "hooks:canary"),
        "the canary is never handed out as a hook"
    );
}

#[test]
fn annotated_hooks_carry_their_event_priority_name_and_location() {
    let [late] = find(concat!(module_path!(), "::late"))[..] else {
        panic!(
            "`late` registered once under its path: {:?}",
            annotated_hooks()
        );
    };
    assert_eq!(late.event(), "annotated_test:order");
    assert_eq!(late.priority(), 5);
    assert_eq!(late.timeout(), None);
    assert_eq!(late.module_path(), module_path!());
    assert!(late.file().ends_with("annotated.rs"), "{}", late.file());
    assert!(late.line() > 0);

    let [early] = find("early")[..] else {
        panic!("`early` registered once")
    };
    assert_eq!(early.priority(), -1);

    let multi = find("multi");
    let events: Vec<_> = multi.iter().map(|hook| hook.canonical_event()).collect();
    assert_eq!(events.len(), 2, "one registration per event");
    assert!(events.contains(&"annotated_test:multi") && events.contains(&"session:start"));
    assert!(
        multi
            .iter()
            .all(|hook| hook.timeout() == Some(Duration::from_millis(250)))
    );
}

#[test]
fn the_list_is_sorted_by_priority_then_name() {
    let keys: Vec<(i32, &str)> = annotated_hooks()
        .iter()
        .map(|hook| (hook.priority(), hook.name()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[tokio::test]
async fn annotated_and_hand_registered_hooks_run_in_priority_order() {
    let registry = HookRegistry::new();
    registry.register_annotated(ours).unwrap();
    registry
        .register(
            "annotated_test:order",
            |_: &str, _: &Value| async { HookResult::inject("by hand") },
            0,
            "by_hand",
        )
        .unwrap();

    let outcome = registry.emit("annotated_test:order", json!({})).await;

    let order: Vec<_> = outcome.injections.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(order, ["early", "by hand", "late"]);
    assert_eq!(&*outcome.injections[0].hook, "early");
}

#[tokio::test]
async fn equal_priorities_among_annotated_hooks_run_by_name() {
    let registry = HookRegistry::new();
    registry.register_annotated(ours).unwrap();

    let outcome = registry.emit("annotated_test:tie", json!({})).await;

    let order: Vec<_> = outcome.injections.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(order, ["a", "b"]);
}

#[tokio::test]
async fn one_function_on_several_events_answers_each() {
    let registry = HookRegistry::new();
    registry
        .register_annotated(|hook| hook.name() == "multi")
        .unwrap();

    let custom = registry.emit("annotated_test:multi", json!({})).await;
    let alias = registry.emit("session:start", json!({})).await;

    assert_eq!(custom.injections[0].text, "multi on annotated_test:multi");
    assert_eq!(alias.injections[0].text, "multi on session:start");
}

#[tokio::test]
async fn a_filter_keeps_other_annotated_hooks_out() {
    let registry = HookRegistry::new();
    let handles = registry
        .register_annotated(|hook| hook.name() == "early")
        .unwrap();

    assert_eq!(handles.len(), 1);
    let outcome = registry.emit("annotated_test:order", json!({})).await;
    let order: Vec<_> = outcome.injections.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(order, ["early"]);
    assert!(!registry.has_handlers("annotated_test:tie"));
}

#[tokio::test]
async fn a_fallible_annotated_hook_is_skipped_and_reported() {
    let registry = HookRegistry::new();
    registry
        .register_annotated(|hook| hook.name() == "fallible")
        .unwrap();

    let outcome = registry.emit("annotated_test:fallible", json!({})).await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(&*outcome.failures[0].hook, "fallible");
}

#[tokio::test]
async fn the_function_stays_callable_as_written() {
    assert_eq!(
        early("annotated_test:order", &json!({})).await,
        HookResult::inject("early")
    );
    assert_eq!(
        fallible("x", &json!({})).await,
        Err("no database".to_owned())
    );
}

#[tokio::test]
async fn annotated_hooks_of_another_crate_are_found_once_it_is_linked() {
    hooks_fixture_annotated::link();
    let registry = HookRegistry::with_annotated().unwrap();

    let fixture: Vec<_> = annotated_hooks()
        .iter()
        .filter(|hook| hook.module_path() == "hooks_fixture_annotated")
        .map(|hook| hook.name())
        .collect();
    assert_eq!(
        fixture,
        ["fixture::forbid_tool", "hooks_fixture_annotated::pong"]
    );

    let denied = registry
        .emit("tool:pre", json!({"tool_name": "forbidden"}))
        .await;
    assert_eq!(denied.decided_by.as_deref(), Some("fixture::forbid_tool"));
    let pong = registry.emit("fixture:ping", json!({})).await;
    assert_eq!(pong.injections[0].text, "pong");
}

#[test]
fn expected_hooks_that_are_linked_pass_and_missing_ones_are_named() {
    hooks_core::expect_hooks(["early", "multi", "annotated::late"]).unwrap();
    let missing = hooks_core::expect_hooks(["early", "my_hooks::forgotten", "other"]).unwrap_err();
    assert_eq!(missing.names, ["my_hooks::forgotten", "other"]);
    assert!(missing.registration_works);
    let message = missing.to_string();
    assert!(
        message.contains("`my_hooks::forgotten`") && message.contains("link()"),
        "{message}"
    );
}
