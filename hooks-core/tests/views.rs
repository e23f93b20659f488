//! Typed views: built from good data without copying it, refusing data that lacks a required
//! field, and typed handlers registered beside JSON ones.

use hooks_core::decision::{ToolPostDecision, ToolPreDecision};
use hooks_core::events::{self, fields};
use hooks_core::view::{
    EventView, PromptComplete, PromptSubmit, ProviderRequest, ProviderResponse, SessionEnd,
    SessionStart, ToolFailure, ToolPost, ToolPre, ViewError, view_event,
};
use hooks_core::{FailureKind, Handler, HookAction, HookOptions, HookRegistry, HookResult};
use serde_json::{Value, json};

#[test]
fn a_tool_pre_view_borrows_its_fields_from_the_payload() {
    let data = json!({
        "tool_name": "bash",
        "tool_input": {"command": "ls"},
        "tool_call_id": "c1",
        "session_id": "s1",
        "timestamp": "2026-01-01T00:00:00Z",
        "extra": 7
    });
    let call = ToolPre::from_data(&data).unwrap();
    assert_eq!(call.tool_name(), "bash");
    assert_eq!(call.tool_input(), &json!({"command": "ls"}));
    assert_eq!(call.tool_call_id(), Some("c1"));
    assert_eq!(call.session_id(), Some("s1"));
    assert_eq!(call.timestamp(), Some("2026-01-01T00:00:00Z"));
    assert_eq!(call.field("extra"), Some(&json!(7)));
    // Borrowed, not copied: the view's strings and values point into the payload itself.
    assert!(std::ptr::eq(call.data(), &data));
    assert!(std::ptr::eq(call.tool_input(), &data["tool_input"]));
    assert!(std::ptr::eq(
        call.tool_name().as_ptr(),
        data["tool_name"].as_str().unwrap().as_ptr()
    ));
}

#[test]
fn optional_fields_are_none_when_absent_or_null() {
    let absent = json!({"tool_name": "bash", "tool_input": {}});
    assert_eq!(ToolPre::from_data(&absent).unwrap().tool_call_id(), None);
    let null = json!({"tool_name": "bash", "tool_input": {}, "tool_call_id": null});
    assert_eq!(ToolPre::from_data(&null).unwrap().tool_call_id(), None);
    let view = ToolPre::from_data(&null).unwrap();
    assert_eq!(view.field("tool_call_id"), None);
}

#[test]
fn a_missing_or_null_required_field_is_refused_naming_event_and_field() {
    let missing = ToolPre::from_data(&json!({"tool_input": {}})).unwrap_err();
    assert_eq!(
        missing,
        ViewError::Missing {
            event: "tool:pre",
            field: "tool_name"
        }
    );
    assert_eq!(missing.event(), "tool:pre");
    let message = missing.to_string();
    assert!(
        message.contains("`tool:pre`") && message.contains("`tool_name`"),
        "{message}"
    );

    let null = json!({"tool_name": "x", "tool_input": {}, "tool_result": null});
    let refused = ToolPost::from_data(&null).unwrap_err();
    assert_eq!(refused.field(), Some("tool_result"));
}

#[test]
fn a_field_of_the_wrong_kind_is_refused_even_when_optional() {
    let wrong = ToolPre::from_data(&json!({"tool_name": 7, "tool_input": {}})).unwrap_err();
    assert_eq!(
        wrong,
        ViewError::WrongType {
            event: "tool:pre",
            field: "tool_name",
            expected: "a string",
            found: "a number"
        }
    );
    let optional = json!({"tool_name": "x", "tool_input": {}, "tool_call_id": 3});
    let refused = ToolPre::from_data(&optional).unwrap_err();
    assert_eq!(refused.field(), Some("tool_call_id"));
    let not_object = PromptSubmit::from_data(&json!(["a", "list"])).unwrap_err();
    assert_eq!(
        not_object,
        ViewError::NotAnObject {
            event: "prompt:submit",
            found: "an array"
        }
    );
    assert_eq!(not_object.field(), None);
}

/// Builds a view of `event` (through `read`) from a payload holding exactly the required
/// fields of the event (as its field group lists them), then from that payload without each
/// one in turn.
fn check_required_fields(event: &str, read: impl Fn(&Value) -> Result<(), ViewError>) {
    let fields = fields::of(event).expect("every view's event has a field group");
    let mut complete = serde_json::Map::new();
    for field in fields.required() {
        let value = if matches!(
            *field,
            fields::TOOL_NAME | fields::PROMPT | fields::SESSION_ID
        ) {
            json!("text")
        } else {
            json!({"any": "value"})
        };
        complete.insert((*field).to_owned(), value);
    }
    let complete = Value::Object(complete);
    assert_eq!(read(&complete), Ok(()), "{event}: {complete}");
    for field in fields.required() {
        let mut without = complete.clone();
        without
            .as_object_mut()
            .expect("built as an object")
            .remove(*field);
        let refused = read(&without).err();
        assert_eq!(refused.and_then(|e| e.field()), Some(*field), "{event}");
    }
}

#[test]
fn every_view_requires_exactly_the_required_fields_of_its_event_group() {
    check_required_fields(ToolPre::EVENT, |data| ToolPre::from_data(data).map(drop));
    check_required_fields(ToolPost::EVENT, |data| ToolPost::from_data(data).map(drop));
    check_required_fields(ToolFailure::EVENT, |data| {
        ToolFailure::from_data(data).map(drop)
    });
    check_required_fields(PromptSubmit::EVENT, |data| {
        PromptSubmit::from_data(data).map(drop)
    });
    check_required_fields(PromptComplete::EVENT, |data| {
        PromptComplete::from_data(data).map(drop)
    });
    check_required_fields(ProviderRequest::EVENT, |data| {
        ProviderRequest::from_data(data).map(drop)
    });
    check_required_fields(ProviderResponse::EVENT, |data| {
        ProviderResponse::from_data(data).map(drop)
    });
    check_required_fields(SessionStart::EVENT, |data| {
        SessionStart::from_data(data).map(drop)
    });
    check_required_fields(SessionEnd::EVENT, |data| {
        SessionEnd::from_data(data).map(drop)
    });
}

#[test]
fn views_of_the_other_events_read_their_fields() {
    let data = json!({"tool_name": "bash", "tool_input": {}, "error": "exit 1"});
    let failure = ToolFailure::from_data(&data).unwrap();
    assert_eq!(failure.error_text(), Some("exit 1"));
    let data = json!({"response": "done", "prompt": "go"});
    let complete = PromptComplete::from_data(&data).unwrap();
    assert_eq!(complete.response(), Some(&json!("done")));
    assert_eq!(complete.prompt(), Some("go"));
    assert_eq!(complete.error(), None);
    let data = json!({"session_id": "s", "source": "startup"});
    assert_eq!(
        SessionStart::from_data(&data).unwrap().source(),
        Some("startup")
    );
    let data = json!({"response": {"content": []}});
    assert_eq!(ProviderResponse::from_data(&data).unwrap().request(), None);
}

async fn guard(call: ToolPre<'_>) -> ToolPreDecision {
    if call.tool_name() == "bash" {
        ToolPreDecision::deny("no shell")
    } else {
        ToolPreDecision::proceed()
    }
}

async fn audit(call: ToolPost<'_>) -> Result<ToolPostDecision, String> {
    let result = call
        .tool_result()
        .as_str()
        .ok_or("tool_result is not text")?;
    Ok(ToolPostDecision::inject(format!(
        "{} said {result}",
        call.tool_name()
    )))
}

#[test]
fn the_event_of_a_typed_function_is_its_views() {
    assert_eq!(view_event(&guard), events::TOOL_PRE);
    assert_eq!(view_event(&audit), events::TOOL_POST);
}

#[tokio::test]
async fn a_typed_handler_registers_for_its_views_event_and_decides() {
    let registry = HookRegistry::new();
    let handle = registry
        .register_view(guard, HookOptions::new().priority(5))
        .unwrap();
    assert_eq!(handle.event(), "tool:pre");
    assert!(handle.name().ends_with("guard"), "{}", handle.name());
    registry
        .register_view(audit, HookOptions::new().name("audit"))
        .unwrap();

    let denied = registry
        .emit(
            "PreToolUse",
            json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
        )
        .await;
    assert_eq!(denied.action(), HookAction::Deny);
    assert_eq!(denied.result.reason.as_deref(), Some("no shell"));
    let allowed = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "read_file", "tool_input": {}}),
        )
        .await;
    assert_eq!(allowed.action(), HookAction::Continue);

    let post = registry
        .emit(
            "tool:post",
            json!({"tool_name": "read_file", "tool_input": {}, "tool_result": "hello"}),
        )
        .await;
    assert_eq!(post.injections[0].text, "read_file said hello");
    // The handler's own error is a failure like any handler's.
    let failed = registry
        .emit(
            "tool:post",
            json!({"tool_name": "read_file", "tool_input": {}, "tool_result": 1}),
        )
        .await;
    assert_eq!(failed.failures.len(), 1);
    assert!(
        matches!(&failed.failures[0].kind, FailureKind::Error(m) if m.to_string().contains("not text"))
    );
}

#[tokio::test]
async fn data_the_view_refuses_is_a_failure_and_the_handler_never_runs() {
    let registry = HookRegistry::new();
    registry
        .register_view(guard, HookOptions::new().name("guard"))
        .unwrap();
    // A tool:pre without tool_name: the guard would have denied bash, but cannot read it.
    let outcome = registry
        .emit("tool:pre", json!({"tool_input": {"command": "rm -rf /"}}))
        .await;
    assert_eq!(outcome.action(), HookAction::Continue);
    assert_eq!(outcome.failures.len(), 1);
    let failure = &outcome.failures[0];
    assert_eq!(&*failure.hook, "guard");
    let FailureKind::Error(message) = &failure.kind else {
        panic!("expected an error, got {:?}", failure.kind);
    };
    assert!(message.to_string().contains("`tool_name`"), "{message}");
    // The refusal keeps its type: a handler error that is the view's.
    assert!(
        message
            .downcast_ref::<hooks_core::view::ViewError>()
            .is_some()
    );
}

#[tokio::test]
async fn under_fail_closed_data_the_view_refuses_is_a_deny() {
    let registry = HookRegistry::new();
    registry
        .register_view(guard, HookOptions::new().name("guard").fail_closed(true))
        .unwrap();
    let outcome = registry
        .emit("tool:pre", json!({"tool_name": null, "tool_input": {}}))
        .await;
    assert_eq!(outcome.action(), HookAction::Deny);
    let reason = outcome.result.reason.as_deref().unwrap_or_default();
    assert!(
        reason.contains("guard") && reason.contains("`tool_name`"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_typed_handler_may_answer_a_plain_hook_result() {
    async fn note(submitted: PromptSubmit<'_>) -> HookResult {
        HookResult::inject(format!("{} characters", submitted.prompt().len()))
    }
    let handler = Handler::from_view(note);
    let answer = handler
        .call("prompt:submit", &json!({"prompt": "hello"}))
        .await;
    assert_eq!(
        answer.unwrap().context_injection.as_deref(),
        Some("5 characters")
    );
    let refused = handler.call("prompt:submit", &json!({})).await.unwrap_err();
    assert!(refused.to_string().contains("`prompt`"), "{refused}");
}
