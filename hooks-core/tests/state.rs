//! Session state: the `session_id` every event of a session carries, state kept per session,
//! a stateful policy as a `Hook` on a struct, closures capturing state, and approvals' "always"
//! answers kept in the state.

// In a test, a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use hooks_core::session::Blocked;
use hooks_core::session::approval::DecisionSource;
use hooks_core::session::{HookSession, Proceed, ScriptedApprovals, ToolCallStatus, tool_fn};
use hooks_core::state::{StateError, StateStore};
use hooks_core::{Handler, Hook, HookAction, HookOptions, HookRegistry, HookResult, owned_fn};
use serde_json::{Value, json};

/// Records the `session_id` of every event the registry emits.
fn record_session_ids(registry: &HookRegistry) -> Arc<Mutex<Vec<(String, Value)>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorder = Arc::clone(&seen);
    for event in [
        "prompt:submit",
        "tool:pre",
        "tool:post",
        "injection:audit",
        "approval:required",
        "approval:granted",
    ] {
        let recorder = Arc::clone(&recorder);
        registry
            .register(
                event,
                owned_fn(move |event, data| {
                    let recorder = Arc::clone(&recorder);
                    async move {
                        recorder
                            .lock()
                            .unwrap()
                            .push((event, data["session_id"].clone()));
                        HookResult::cont()
                    }
                }),
                100,
                "recorder",
            )
            .unwrap();
    }
    seen
}

#[tokio::test]
async fn every_event_of_a_session_carries_its_session_id() {
    let registry = HookRegistry::new();
    let seen = record_session_ids(&registry);
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::ask("Run it?") },
            0,
            "asks",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async { HookResult::inject("noted") },
            0,
            "injects",
        )
        .unwrap();
    let session = HookSession::builder(registry)
        .session_id("agent-7")
        .approvals(Arc::new(ScriptedApprovals::choosing(["Allow"])))
        .build();
    assert_eq!(session.session_id(), "agent-7");
    session.submit_prompt("hello").await;
    let tool = tool_fn("echo", |input| async move { Ok(input) });
    session.run_tool(&tool, json!({})).await;
    let seen = seen.lock().unwrap().clone();
    let events: Vec<&str> = seen.iter().map(|(event, _)| event.as_str()).collect();
    assert_eq!(
        events,
        [
            "prompt:submit",
            "tool:pre",
            "approval:required",
            "approval:granted",
            "tool:post",
            "injection:audit"
        ]
    );
    for (event, id) in &seen {
        assert_eq!(id, "agent-7", "{event}");
    }
}

#[tokio::test]
async fn the_session_id_defaults_to_the_registrys_field_else_a_new_id() {
    let registry = HookRegistry::new();
    let seen = record_session_ids(&registry);
    registry.set_default_fields([("session_id", json!("from-defaults"))]);
    let session = HookSession::builder(registry.clone()).build();
    assert_eq!(session.session_id(), "from-defaults");

    registry.set_default_fields::<String>([]);
    let one = HookSession::builder(registry.clone()).build();
    let two = HookSession::builder(registry.clone()).build();
    assert_ne!(one.session_id(), two.session_id());
    one.submit_prompt("hi").await;
    // The emitter's own id wins, as data wins over a default field.
    one.emit(
        "prompt:submit",
        json!({"prompt": "x", "session_id": "mine"}),
    )
    .await;
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].1, one.session_id());
    assert_eq!(seen[1].1, "mine");
}

/// The policy of docs/guide/writing-hooks.md ("State across events"): a write under
/// `migrations/` only if an earlier prompt of the same session asked for a migration. A `Hook`
/// on a struct holding the registry's state store.
struct MigrationsNeedAPrompt {
    state: StateStore,
}

impl Hook for MigrationsNeedAPrompt {
    async fn handle(&self, event: &str, data: &Value) -> HookResult {
        let state = match self.state.for_event(data) {
            Ok(state) => state,
            Err(error) => return HookResult::deny(format!("no session state: {error}")),
        };
        if event == "prompt:submit" {
            let asked = data["prompt"]
                .as_str()
                .is_some_and(|prompt| prompt.to_lowercase().contains("migration"));
            if asked && let Err(error) = state.set("migration_requested", true) {
                return HookResult::deny(format!("cannot remember the prompt: {error}"));
            }
            return HookResult::cont();
        }
        let path = data["tool_input"]["path"].as_str().unwrap_or_default();
        if !path.starts_with("migrations/") {
            return HookResult::cont();
        }
        match state.get_as::<bool>("migration_requested") {
            Ok(Some(true)) => HookResult::cont(),
            Ok(_) => HookResult::deny("no prompt of this session asked for a migration"),
            Err(error) => HookResult::deny(format!("cannot read the session state: {error}")),
        }
    }
}

fn migrations_policy() -> HookRegistry {
    let registry = HookRegistry::new();
    let policy = Handler::from_hook(MigrationsNeedAPrompt {
        state: registry.state(),
    });
    for event in ["prompt:submit", "tool:pre"] {
        registry
            .register_with(
                event,
                policy.clone(),
                HookOptions::new().name("migrations_need_a_prompt"),
            )
            .unwrap();
    }
    registry
}

#[tokio::test]
async fn a_write_to_migrations_needs_an_earlier_prompt_of_the_same_session() {
    let registry = migrations_policy();
    let write = tool_fn("write_file", |_| async { Ok(json!("written")) });
    let migration = json!({"path": "migrations/0002_add_users.sql"});

    let asked = HookSession::builder(registry.clone())
        .session_id("asked")
        .build();
    let other = HookSession::builder(registry.clone())
        .session_id("other")
        .build();
    // Before any prompt, and in a session whose prompt did not ask, the write is denied.
    let denied = asked.run_tool(&write, migration.clone()).await;
    assert!(
        matches!(
            denied.status,
            ToolCallStatus::Blocked(Blocked::ByHook { .. })
        ),
        "{denied:?}"
    );
    assert!(matches!(
        asked.submit_prompt("Add a migration for users").await,
        Proceed::Yes(_)
    ));
    other.submit_prompt("Fix the README").await;

    let allowed = asked.run_tool(&write, migration.clone()).await;
    assert_eq!(
        allowed.status,
        ToolCallStatus::Ran {
            output: json!("written")
        }
    );
    let still_denied = other.run_tool(&write, migration).await;
    assert!(matches!(still_denied.status, ToolCallStatus::Blocked(_)));
    // Other paths are not the policy's business.
    let elsewhere = other.run_tool(&write, json!({"path": "src/lib.rs"})).await;
    assert!(matches!(elsewhere.status, ToolCallStatus::Ran { .. }));
}

#[tokio::test]
async fn a_stateful_policy_fails_closed_on_an_event_without_a_session() {
    let registry = migrations_policy();
    let outcome = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "write_file", "tool_input": {"path": "migrations/x.sql"}}),
        )
        .await;
    assert_eq!(outcome.action(), HookAction::Deny);
    assert!(
        outcome
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("session_id"),
        "{:?}",
        outcome.result.reason
    );
    let outcome = registry
        .emit(
            "tool:pre",
            json!({"session_id": "../../etc/passwd", "tool_input": {"path": "migrations/x.sql"}}),
        )
        .await;
    assert_eq!(outcome.action(), HookAction::Deny);
    assert!(
        outcome
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("refused")
    );
}

#[tokio::test]
async fn a_closure_capturing_state_sees_the_data_and_keeps_the_state() {
    let registry = HookRegistry::new();
    let tools_seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let kept = Arc::clone(&tools_seen);
    registry
        .register(
            "tool:pre",
            owned_fn(move |_event, data| {
                let kept = Arc::clone(&kept);
                async move {
                    let mut seen = kept.lock().unwrap();
                    let tool = data["tool_name"].as_str().unwrap_or_default().to_owned();
                    if seen.contains(&tool) {
                        return HookResult::deny(format!("`{tool}` already ran once"));
                    }
                    seen.push(tool);
                    HookResult::cont()
                }
            }),
            0,
            "once_per_tool",
        )
        .unwrap();
    let first = registry
        .emit("tool:pre", json!({"tool_name": "deploy"}))
        .await;
    let second = registry
        .emit("tool:pre", json!({"tool_name": "deploy"}))
        .await;
    assert_eq!(first.action(), HookAction::Continue);
    assert_eq!(second.action(), HookAction::Deny);
    assert_eq!(*tools_seen.lock().unwrap(), ["deploy"]);
}

#[tokio::test]
async fn an_always_answer_is_kept_in_the_session_state_and_outlives_the_session_value() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async {
                HookResult::ask("Deploy?").with_approval_options([
                    "Allow once",
                    "Allow always",
                    "Deny",
                ])
            },
            0,
            "asks",
        )
        .unwrap();
    let tool = tool_fn("deploy", |_| async { Ok(json!("deployed")) });
    let first_provider = Arc::new(ScriptedApprovals::choosing(["Allow always"]));
    let first = HookSession::builder(registry.clone())
        .session_id("s-1")
        .approvals(first_provider)
        .build();
    assert!(matches!(
        first.run_tool(&tool, json!({})).await.status,
        ToolCallStatus::Ran { .. }
    ));
    assert_eq!(
        first
            .state()
            .unwrap()
            .get("hooks.approval.remembered")
            .unwrap(),
        Some(json!({"Deploy?": true}))
    );
    drop(first);

    // A new session value for the same session (a restarted application with a file store,
    // here the same registry's store) asks nobody.
    let second_provider = Arc::new(ScriptedApprovals::choosing(["Deny"]));
    let second = HookSession::builder(registry.clone())
        .session_id("s-1")
        .approvals(second_provider.clone())
        .build();
    assert!(matches!(
        second.run_tool(&tool, json!({})).await.status,
        ToolCallStatus::Ran { .. }
    ));
    assert!(second_provider.asked().is_empty());

    // Another session is asked.
    let third = HookSession::builder(registry)
        .session_id("s-2")
        .approvals(second_provider.clone())
        .build();
    let outcome = third.run_tool(&tool, json!({})).await;
    match outcome.status {
        ToolCallStatus::Blocked(Blocked::ByApproval { decision, .. }) => {
            assert_eq!(decision.source, DecisionSource::User);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_session_whose_id_cannot_key_a_state_says_why() {
    let session = HookSession::builder(HookRegistry::new())
        .session_id("../escape")
        .build();
    assert!(matches!(
        session.state(),
        Err(StateError::InvalidSessionId { .. })
    ));
}
