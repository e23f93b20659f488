//! The eight emit rules (`HookRegistry::emit`'s docs, and "What `emit` does" in
//! docs/guide/writing-hooks.md), one group of tests each, with their edge cases.

mod support;

use std::time::Duration;

use hooks_core::{
    FailureKind, HookAction, HookOptions, HookRegistry, HookResult, InjectionRole, MessageLevel,
};
use serde_json::{Value, json};
use support::Trace;

fn registry() -> HookRegistry {
    HookRegistry::new()
}

// Rule 1: ascending priority, ties in registration order.

#[tokio::test]
async fn handlers_run_in_ascending_priority_and_ties_in_registration_order() {
    let registry = registry();
    let trace = Trace::new();
    registry
        .register("tool:pre", trace.observe("p5"), 5, "p5")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("p0-first"), 0, "p0-first")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("p-3"), -3, "p-3")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("p10"), 10, "p10")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("p0-second"), 0, "p0-second")
        .unwrap();
    registry
        .register("tool:pre", trace.observe("min"), i32::MIN, "min")
        .unwrap();

    registry.emit("tool:pre", json!({})).await;

    assert_eq!(
        trace.order(),
        ["min", "p-3", "p0-first", "p0-second", "p5", "p10"]
    );
    assert_eq!(
        registry.list_handlers(Some("tool:pre"))["tool:pre"],
        ["min", "p-3", "p0-first", "p0-second", "p5", "p10"]
    );
}

// Rule 2: deny stops the chain at once and is the result.

#[tokio::test]
async fn deny_stops_the_chain_and_carries_its_reason() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(
        &registry,
        "tool:pre",
        [
            ("before", HookResult::cont()),
            ("guard", HookResult::deny("no writes to /etc")),
            ("after", HookResult::cont()),
        ],
    );

    let outcome = registry
        .emit("tool:pre", json!({"tool_name": "write"}))
        .await;

    assert_eq!(outcome.action(), HookAction::Deny);
    assert!(outcome.is_denied());
    assert_eq!(outcome.result.reason.as_deref(), Some("no writes to /etc"));
    assert_eq!(outcome.decided_by.as_deref(), Some("guard"));
    assert_eq!(
        trace.order(),
        ["before", "guard"],
        "nothing after a deny runs"
    );
}

#[tokio::test]
async fn a_deny_after_an_injection_wins_and_keeps_the_injection() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(
        &registry,
        "tool:pre",
        [
            ("lint", HookResult::inject("lint: 2 issues")),
            ("guard", HookResult::deny("blocked")),
            ("late", HookResult::inject("never")),
        ],
    );

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::Deny);
    assert_eq!(outcome.result.reason.as_deref(), Some("blocked"));
    assert_eq!(outcome.injections.len(), 1);
    assert_eq!(outcome.injections[0].text, "lint: 2 issues");
    assert_eq!(&*outcome.injections[0].hook, "lint");
    assert_eq!(
        outcome.result.context_injection.as_deref(),
        Some("lint: 2 issues")
    );
    assert_eq!(trace.order(), ["lint", "guard"]);
}

#[tokio::test]
async fn a_deny_after_a_modify_keeps_the_modified_data() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(
        &registry,
        "tool:pre",
        [
            ("rewrite", HookResult::modify(json!({"n": 2}))),
            ("guard", HookResult::deny("no")),
        ],
    );

    let outcome = registry.emit("tool:pre", json!({"n": 1})).await;

    assert_eq!(outcome.action(), HookAction::Deny);
    assert_eq!(outcome.data(), &json!({"n": 2}));
}

// Rule 3: modify replaces the data later handlers see; the chain ends as modify.

#[tokio::test]
async fn modify_chains_the_data_through_later_handlers() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(
        &registry,
        "tool:pre",
        [("first", HookResult::modify(json!({"step": 1})))],
    );
    registry
        .register(
            "tool:pre",
            trace.answer(
                "second",
                HookResult::modify(json!({"step": 2})).with_reason("normalised"),
            ),
            1,
            "second",
        )
        .unwrap();
    registry
        .register("tool:pre", trace.observe("observer"), 2, "observer")
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({"step": 0})).await;

    assert_eq!(trace.seen_by("second"), json!({"step": 1}));
    assert_eq!(trace.seen_by("observer"), json!({"step": 2}));
    assert_eq!(
        outcome.action(),
        HookAction::Modify,
        "the reference docs expect `modify`"
    );
    assert_eq!(outcome.data(), &json!({"step": 2}));
    assert_eq!(outcome.result.reason.as_deref(), Some("normalised"));
    let modified_by: Vec<_> = outcome
        .modifications
        .iter()
        .map(|m| (&*m.hook, m.reason.as_deref()))
        .collect();
    assert_eq!(
        modified_by,
        [("first", None), ("second", Some("normalised"))]
    );
}

#[tokio::test]
async fn a_modify_without_data_is_reported_and_changes_nothing() {
    let registry = registry();
    let broken = HookResult {
        action: HookAction::Modify,
        ..HookResult::default()
    };
    registry
        .register(
            "tool:pre",
            Trace::new().answer("broken", broken),
            0,
            "broken",
        )
        .unwrap();

    let outcome = registry
        .emit("tool:pre", json!({"timestamp": "t", "keep": true}))
        .await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(outcome.data(), &json!({"timestamp": "t", "keep": true}));
    assert!(!outcome.is_modified());
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(&*outcome.failures[0].hook, "broken");
    assert!(matches!(
        outcome.failures[0].kind,
        FailureKind::InvalidResult(_)
    ));
}

// Rule 4: injections are merged in order, each with its provenance.

#[tokio::test]
async fn injections_are_joined_by_a_blank_line_and_keep_their_provenance() {
    let registry = registry();
    let trace = Trace::new();
    registry
        .register(
            "tool:post",
            trace.answer(
                "lint",
                HookResult::inject("lint: unused import")
                    .with_role(InjectionRole::User)
                    .with_ephemeral(true),
            ),
            0,
            "lint",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            trace.answer("tests", HookResult::inject("tests: 1 failed")),
            1,
            "tests",
        )
        .unwrap();

    let outcome = registry.emit("PostToolUse", json!({})).await;

    assert_eq!(outcome.action(), HookAction::InjectContext);
    assert_eq!(
        outcome.result.context_injection.as_deref(),
        Some("lint: unused import\n\ntests: 1 failed")
    );
    let provenance: Vec<_> = outcome
        .injections
        .iter()
        .map(|i| (&*i.hook, &*i.event, i.text.as_str()))
        .collect();
    assert_eq!(
        provenance,
        [
            ("lint", "tool:post", "lint: unused import"),
            ("tests", "tool:post", "tests: 1 failed")
        ]
    );
    assert_eq!(outcome.injections[0].role, InjectionRole::User);
    assert!(outcome.injections[0].ephemeral);
    assert_eq!(outcome.injections[1].role, InjectionRole::System);
    // The merged result takes the first injection's settings, as in the reference.
    assert_eq!(outcome.result.context_injection_role, InjectionRole::User);
    assert!(outcome.result.ephemeral);
}

#[tokio::test]
async fn an_injection_after_a_modify_keeps_the_modified_data() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(
        &registry,
        "prompt:submit",
        [
            ("redact", HookResult::modify(json!({"prompt": "key=***"}))),
            ("remind", HookResult::inject("todo: 2 open")),
        ],
    );

    let outcome = registry
        .emit("prompt:submit", json!({"prompt": "key=sk-123"}))
        .await;

    assert_eq!(outcome.action(), HookAction::InjectContext);
    assert_eq!(
        outcome.data(),
        &json!({"prompt": "key=***"}),
        "the reference drops this; we do not"
    );
    assert_eq!(
        outcome.result.context_injection.as_deref(),
        Some("todo: 2 open")
    );
}

#[tokio::test]
async fn an_injection_on_a_continue_result_is_kept_not_dropped() {
    let registry = registry();
    let sneaky = HookResult::cont().with_context_injection("fyi: build is red");
    registry
        .register("tool:post", Trace::new().answer("ci", sneaky), 0, "ci")
        .unwrap();

    let outcome = registry.emit("tool:post", json!({})).await;

    assert_eq!(outcome.action(), HookAction::InjectContext);
    assert_eq!(outcome.injections[0].text, "fyi: build is red");
}

// Rule 5: the first ask_user wins over everything but a later deny.

#[tokio::test]
async fn the_first_ask_user_wins_over_later_asks_and_non_blocking_answers() {
    let registry = registry();
    let trace = Trace::new();
    registry
        .register(
            "tool:pre",
            trace.answer(
                "prod",
                HookResult::ask("Write to production?").with_approval_options([
                    "Allow once",
                    "Allow always",
                    "Deny",
                ]),
            ),
            0,
            "prod",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("cost", HookResult::ask("Spend $5?")),
            1,
            "cost",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("note", HookResult::inject("writes are audited")),
            2,
            "note",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("rewrite", HookResult::modify(json!({"path": "b"}))),
            3,
            "rewrite",
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({"path": "a"})).await;

    assert_eq!(outcome.action(), HookAction::AskUser);
    assert_eq!(
        outcome.result.approval_prompt.as_deref(),
        Some("Write to production?")
    );
    assert_eq!(outcome.decided_by.as_deref(), Some("prod"));
    assert_eq!(
        outcome.result.effective_approval_options(),
        ["Allow once", "Allow always", "Deny"]
    );
    assert_eq!(
        trace.order(),
        ["prod", "cost", "note", "rewrite"],
        "ask_user does not stop the chain"
    );
    assert_eq!(
        outcome.result.context_injection.as_deref(),
        Some("writes are audited")
    );
    assert_eq!(outcome.data(), &json!({"path": "b"}));
}

#[tokio::test]
async fn a_deny_after_an_ask_user_wins() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(
        &registry,
        "tool:pre",
        [
            ("ask", HookResult::ask("ok?")),
            ("guard", HookResult::deny("never")),
        ],
    );

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::Deny);
    assert_eq!(outcome.result.reason.as_deref(), Some("never"));
    assert_eq!(outcome.decided_by.as_deref(), Some("guard"));
}

#[tokio::test]
async fn an_ask_user_after_an_injection_still_asks() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(
        &registry,
        "tool:pre",
        [
            ("note", HookResult::inject("context")),
            ("ask", HookResult::ask("ok?")),
        ],
    );

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(
        outcome.action(),
        HookAction::AskUser,
        "a blocking answer is never lost"
    );
    assert_eq!(outcome.result.context_injection.as_deref(), Some("context"));
}

// Rule 6: in-process failures are logged and skipped; the chain goes on.

#[tokio::test]
async fn a_handler_error_is_skipped_and_reported() {
    async fn failing(_: &str, _: &Value) -> Result<HookResult, String> {
        Err("database unreachable".into())
    }
    let registry = registry();
    let trace = Trace::new();
    registry
        .register("tool:pre", failing, 0, "failing")
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("after", HookResult::modify(json!({"ok": true}))),
            1,
            "after",
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(trace.order(), ["after"]);
    assert_eq!(outcome.action(), HookAction::Modify);
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(
        outcome.failures[0].kind,
        FailureKind::Error("database unreachable".into())
    );
    assert_eq!(
        outcome.failures[0].to_string(),
        "hook `failing` returned an error: database unreachable"
    );
}

#[derive(Debug, thiserror::Error)]
#[error("the policy store is unavailable")]
struct StoreDown(#[source] std::io::Error);

async fn typed_failure(_: &str, _: &Value) -> Result<HookResult, StoreDown> {
    Err(StoreDown(std::io::Error::other("connection refused")))
}

#[tokio::test]
async fn a_handlers_typed_error_is_reported_with_its_type_and_sources() {
    let registry = registry();
    registry
        .register("tool:pre", typed_failure, 0, "typed")
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    let FailureKind::Error(error) = &outcome.failures[0].kind else {
        panic!("not an error: {:?}", outcome.failures);
    };
    assert!(error.downcast_ref::<StoreDown>().is_some(), "{error:?}");
    assert_eq!(
        outcome.failures[0].to_string(),
        "hook `typed` returned an error: the policy store is unavailable: connection refused"
    );
}

#[tokio::test]
async fn calling_a_handler_directly_gives_its_error_back() {
    let handler = hooks_core::Handler::from_fn(typed_failure);

    let error = handler.call("tool:pre", &json!({})).await.unwrap_err();

    let recorded = error.downcast_ref::<hooks_core::HandlerError>().unwrap();
    assert!(recorded.downcast_ref::<StoreDown>().is_some());
    assert_eq!(error.to_string(), "the policy store is unavailable");
}

#[tokio::test]
async fn a_handler_that_panics_is_skipped_and_the_chain_goes_on() {
    async fn panicking(_: &str, data: &Value) -> HookResult {
        let index = data["index"].as_u64().unwrap_or(0) as usize;
        let empty: Vec<u8> = Vec::new();
        HookResult::inject(format!("{}", empty[index]))
    }
    let registry = registry();
    let trace = Trace::new();
    registry
        .register("tool:pre", panicking, 0, "panicking")
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer("guard", HookResult::deny("still enforced")),
            1,
            "guard",
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({"index": 3})).await;

    assert_eq!(
        outcome.action(),
        HookAction::Deny,
        "a panic before a guard must not disable it"
    );
    assert_eq!(trace.order(), ["guard"]);
    match &outcome.failures[..] {
        [failure] => {
            assert_eq!(&*failure.hook, "panicking");
            assert!(
                matches!(&failure.kind, FailureKind::Panic(m) if m.contains("index out of bounds")),
                "{failure}"
            );
        }
        other => panic!("expected one failure, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_handler_that_sleeps_past_its_timeout_is_skipped() {
    async fn slow(_: &str, _: &Value) -> HookResult {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        HookResult::deny("too late to matter")
    }
    let registry = registry();
    let trace = Trace::new();
    registry
        .register_with(
            "tool:pre",
            slow,
            HookOptions::new()
                .name("slow")
                .timeout(Duration::from_millis(250)),
        )
        .unwrap();
    registry
        .register("tool:pre", trace.observe("after"), 1, "after")
        .unwrap();

    let started = tokio::time::Instant::now();
    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(trace.order(), ["after"]);
    assert_eq!(
        outcome.failures[0].kind,
        FailureKind::Timeout(Duration::from_millis(250))
    );
    assert_eq!(
        started.elapsed(),
        Duration::from_millis(250),
        "the emit waited exactly the timeout"
    );
}

#[tokio::test(start_paused = true)]
async fn a_fail_closed_handler_that_fails_denies_and_the_chain_stops() {
    async fn hangs(_: &str, _: &Value) -> HookResult {
        std::future::pending().await
    }
    async fn panics(_: &str, _: &Value) -> HookResult {
        panic!("policy file unreadable")
    }
    for (failing, expected) in [
        (
            HookOptions::new().timeout(Duration::from_millis(250)),
            "timed out after 250ms",
        ),
        (HookOptions::new(), "panicked: policy file unreadable"),
    ] {
        let registry = registry();
        let trace = Trace::new();
        let options = failing.name("policy").fail_closed(true);
        if expected.starts_with("timed out") {
            registry.register_with("tool:pre", hangs, options).unwrap();
        } else {
            registry.register_with("tool:pre", panics, options).unwrap();
        }
        registry
            .register("tool:pre", trace.observe("after"), 1, "after")
            .unwrap();

        let outcome = registry.emit("tool:pre", json!({})).await;

        assert_eq!(outcome.action(), HookAction::Deny, "{expected}");
        assert_eq!(
            outcome.result.reason.as_deref(),
            Some(format!("hook `policy` failed and fails closed: it {expected}").as_str())
        );
        assert_eq!(outcome.failures.len(), 1, "the failure is still reported");
        assert!(trace.order().is_empty(), "nothing after the deny runs");
    }
}

#[tokio::test(start_paused = true)]
async fn the_registry_default_timeout_applies_when_the_registration_sets_none() {
    async fn slow(_: &str, _: &Value) -> HookResult {
        tokio::time::sleep(Duration::from_secs(10)).await;
        HookResult::cont()
    }
    let registry = HookRegistry::with_handler_timeout(Some(Duration::from_secs(2)));
    registry.register("tool:pre", slow, 0, "slow").unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(
        outcome.failures[0].kind,
        FailureKind::Timeout(Duration::from_secs(2))
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_handler_within_its_timeout_counts() {
    async fn slow_but_ok(_: &str, _: &Value) -> HookResult {
        tokio::time::sleep(Duration::from_secs(5)).await;
        HookResult::deny("considered")
    }
    let registry = HookRegistry::with_handler_timeout(Some(Duration::from_secs(10)));
    registry
        .register("tool:pre", slow_but_ok, 0, "slow")
        .unwrap();

    assert!(registry.emit("tool:pre", json!({})).await.is_denied());
}

// Rule 7: nothing is lost in the merge.

#[tokio::test]
async fn every_user_message_survives_beside_modifications_and_injections() {
    let registry = registry();
    let trace = Trace::new();
    registry
        .register(
            "tool:post",
            trace.answer(
                "a",
                HookResult::modify(json!({"v": 1}))
                    .with_user_message("normalised output", MessageLevel::Info),
            ),
            0,
            "a",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            trace.answer(
                "b",
                HookResult::inject("lint")
                    .with_user_message("lint issues", MessageLevel::Warning)
                    .with_suppress_output(true),
            ),
            1,
            "b",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            trace.answer(
                "c",
                HookResult::cont().with_user_message("done", MessageLevel::Info),
            ),
            2,
            "c",
        )
        .unwrap();

    let outcome = registry.emit("tool:post", json!({})).await;

    assert_eq!(outcome.action(), HookAction::InjectContext);
    assert_eq!(outcome.data(), &json!({"v": 1}));
    let messages: Vec<_> = outcome
        .messages
        .iter()
        .map(|m| (&*m.hook, m.text.as_str(), m.level))
        .collect();
    assert_eq!(
        messages,
        [
            ("a", "normalised output", MessageLevel::Info),
            ("b", "lint issues", MessageLevel::Warning),
            ("c", "done", MessageLevel::Info)
        ]
    );
    assert_eq!(
        outcome.result.user_message.as_deref(),
        Some("normalised output\nlint issues\ndone")
    );
    assert_eq!(
        outcome.result.user_message_level,
        MessageLevel::Warning,
        "the merged level is the most severe"
    );
    assert!(outcome.messages[1].suppress_output && !outcome.messages[0].suppress_output);
    assert!(outcome.result.suppress_output);
}

#[tokio::test]
async fn the_denying_handlers_own_message_and_earlier_messages_are_kept() {
    let registry = registry();
    let trace = Trace::new();
    registry
        .register(
            "tool:pre",
            trace.answer(
                "warn",
                HookResult::cont().with_user_message("large input", MessageLevel::Warning),
            ),
            0,
            "warn",
        )
        .unwrap();
    registry
        .register(
            "tool:pre",
            trace.answer(
                "guard",
                HookResult::deny("no").with_user_message("blocked rm", MessageLevel::Error),
            ),
            1,
            "guard",
        )
        .unwrap();

    let outcome = registry.emit("tool:pre", json!({})).await;

    assert_eq!(
        outcome.result.user_message.as_deref(),
        Some("large input\nblocked rm")
    );
    assert_eq!(outcome.result.user_message_level, MessageLevel::Error);
}

// Rule 8: with no handler the result is continue with the data unchanged.

#[tokio::test]
async fn an_event_without_handlers_continues_with_the_data_as_given() {
    let registry = registry();
    registry.set_default_fields([("session_id", json!("s-1"))]);
    registry
        .register("tool:post", Trace::new().observe("other"), 0, "other")
        .unwrap();
    let data = json!({"tool_name": "read", "nested": {"k": [1, 2, 3]}});

    let outcome = registry.emit("tool:pre", data.clone()).await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(outcome.data(), &data);
    assert!(
        outcome.injections.is_empty() && outcome.messages.is_empty() && outcome.failures.is_empty()
    );
    assert_eq!(outcome.decided_by, None);
}

// Event data: defaults, timestamp, canonical names.

#[tokio::test]
async fn handlers_see_default_fields_under_the_event_data_and_a_timestamp() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(&registry, "tool:pre", [("seen", HookResult::cont())]);
    registry.set_default_fields([("session_id", json!("s-1")), ("env", json!("prod"))]);

    registry
        .emit("tool:pre", json!({"env": "dev", "tool_name": "bash"}))
        .await;

    let seen = trace.seen_by("seen");
    assert_eq!(seen["session_id"], "s-1");
    assert_eq!(seen["env"], "dev", "event data wins over a default");
    let timestamp = seen["timestamp"].as_str().expect("a timestamp is added");
    assert!(
        timestamp.len() == 24 && timestamp.ends_with('Z') && timestamp.as_bytes()[10] == b'T',
        "{timestamp}"
    );
}

#[tokio::test]
async fn set_default_fields_replaces_the_previous_defaults() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(&registry, "tool:pre", [("seen", HookResult::cont())]);
    registry.set_default_fields([("old", json!(1))]);
    registry.set_default_fields([("new", json!(2))]);

    registry
        .emit("tool:pre", json!({"timestamp": "2024-01-15T10:30:00Z"}))
        .await;

    assert_eq!(
        trace.seen_by("seen"),
        json!({"new": 2, "timestamp": "2024-01-15T10:30:00Z"}),
        "the emitter's timestamp is kept and the old default is gone"
    );
}

#[tokio::test]
async fn null_data_is_an_empty_object_and_other_non_objects_pass_through() {
    let registry = registry();
    let trace = Trace::new();
    trace.chain(&registry, "app:raw", [("raw", HookResult::cont())]);

    let outcome = registry.emit("app:raw", json!([1, 2])).await;
    assert_eq!(trace.seen_by("raw"), json!([1, 2]));
    assert_eq!(outcome.data(), &json!([1, 2]));

    let outcome = registry.emit("app:raw", Value::Null).await;
    assert!(
        outcome
            .data()
            .as_object()
            .is_some_and(|o| o.contains_key("timestamp"))
    );
}

#[tokio::test]
async fn handlers_and_provenance_carry_the_canonical_name_when_emitted_by_alias() {
    let registry = registry();
    let names = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = names.clone();
    registry
        .register(
            "SessionStart",
            move |event: &str, _: &Value| {
                seen.lock().unwrap().push(event.to_owned());
                async { HookResult::inject("welcome") }
            },
            0,
            "greeter",
        )
        .unwrap();

    let by_alias = registry.emit("SessionStart", json!({})).await;
    let by_name = registry.emit("session:start", json!({})).await;

    assert_eq!(*names.lock().unwrap(), ["session:start", "session:start"]);
    assert_eq!(&*by_alias.injections[0].event, "session:start");
    assert_eq!(&*by_name.injections[0].event, "session:start");
}

// Performance contract: the payload is lent to each handler, never copied.

#[tokio::test]
async fn every_handler_sees_the_same_payload_allocation_unless_one_modifies() {
    use std::sync::{Arc, Mutex};
    let registry = registry();
    let seen: Arc<Mutex<Vec<(&'static str, usize)>>> = Arc::default();
    let watcher = |tag: &'static str| {
        let seen = seen.clone();
        move |_: &str, data: &Value| {
            let buffer = data["tool_input"]["content"]
                .as_str()
                .map_or(0, |s| s.as_ptr() as usize);
            seen.lock().unwrap().push((tag, buffer));
            async { HookResult::cont() }
        }
    };
    registry.register("tool:pre", watcher("a"), 0, "a").unwrap();
    registry.register("tool:pre", watcher("b"), 1, "b").unwrap();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut copy = data.clone();
                copy["tool_input"]["content"] = json!("rewritten");
                async move { HookResult::modify(copy) }
            },
            2,
            "rewriter",
        )
        .unwrap();
    registry.register("tool:pre", watcher("c"), 3, "c").unwrap();
    let data = json!({"tool_input": {"content": "x".repeat(64 * 1024)}});
    let original = data["tool_input"]["content"].as_str().unwrap().as_ptr() as usize;

    registry.emit("tool:pre", data).await;

    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen[0],
        ("a", original),
        "the first handler sees the caller's allocation"
    );
    assert_eq!(
        seen[1],
        ("b", original),
        "the second handler sees it too: no copy between them"
    );
    assert_eq!(seen[2].0, "c");
    assert_ne!(
        seen[2].1, original,
        "after a modify, later handlers see the modified data"
    );
}
