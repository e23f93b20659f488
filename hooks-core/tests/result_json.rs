//! The JSON contract of `HookResult`: the reference field names and defaults, lenient aliases,
//! and errors that name the offending field.

use hooks_core::{
    ApprovalDefault, DEFAULT_APPROVAL_TIMEOUT_SECS, HookAction, HookResult, InjectionRole,
    MessageLevel,
};
use serde_json::{Value, json};
use std::time::Duration;

/// A result as the reference (pydantic `model_dump()`) writes it: every field present.
fn reference_dump() -> Value {
    json!({
        "action": "ask_user",
        "data": {"tool_name": "Write", "tool_input": {"file_path": "/srv/production/app.env"}},
        "reason": "Production file requires explicit user approval",
        "context_injection": "note: production writes are audited",
        "context_injection_role": "user",
        "ephemeral": true,
        "approval_prompt": "Allow write to production file: /srv/production/app.env?",
        "approval_options": ["Allow once", "Allow always", "Deny"],
        "approval_timeout": 120.0,
        "approval_default": "allow",
        "suppress_output": true,
        "user_message": "Asking before a production write",
        "user_message_level": "warning",
        "append_to_last_tool_result": true
    })
}

#[test]
fn a_full_reference_dump_round_trips_field_for_field() {
    let parsed: HookResult = serde_json::from_value(reference_dump()).unwrap();
    assert_eq!(parsed.action, HookAction::AskUser);
    assert_eq!(parsed.context_injection_role, InjectionRole::User);
    assert!(parsed.ephemeral);
    assert_eq!(
        parsed.approval_options.as_deref(),
        Some(
            &[
                "Allow once".to_owned(),
                "Allow always".to_owned(),
                "Deny".to_owned()
            ][..]
        )
    );
    assert_eq!(parsed.approval_timeout_duration(), Duration::from_secs(120));
    assert_eq!(parsed.approval_default, ApprovalDefault::Allow);
    assert!(parsed.suppress_output);
    assert_eq!(parsed.user_message_level, MessageLevel::Warning);
    assert!(parsed.append_to_last_tool_result);

    assert_eq!(serde_json::to_value(&parsed).unwrap(), reference_dump());
}

#[test]
fn missing_fields_take_the_reference_defaults() {
    let parsed: HookResult = serde_json::from_str("{}").unwrap();
    assert_eq!(parsed, HookResult::default());
    assert_eq!(parsed.action, HookAction::Continue);
    assert_eq!(parsed.context_injection_role, InjectionRole::System);
    assert_eq!(parsed.approval_timeout, DEFAULT_APPROVAL_TIMEOUT_SECS);
    assert_eq!(parsed.approval_default, ApprovalDefault::Deny);
    assert_eq!(parsed.user_message_level, MessageLevel::Info);
    assert_eq!(parsed.effective_approval_options(), ["Allow", "Deny"]);
    assert!(!parsed.ephemeral && !parsed.suppress_output && !parsed.append_to_last_tool_result);
}

#[test]
fn defaults_serialise_with_the_reference_names_and_values() {
    let written = serde_json::to_value(HookResult::cont()).unwrap();
    assert_eq!(
        written,
        json!({
            "action": "continue",
            "data": null,
            "reason": null,
            "context_injection": null,
            "context_injection_role": "system",
            "ephemeral": false,
            "approval_prompt": null,
            "approval_options": null,
            "approval_timeout": 300.0,
            "approval_default": "deny",
            "suppress_output": false,
            "user_message": null,
            "user_message_level": "info",
            "append_to_last_tool_result": false
        })
    );
}

#[test]
fn block_parses_as_deny_and_allow_as_continue() {
    let blocked: HookResult =
        serde_json::from_value(json!({"action": "block", "reason": "no"})).unwrap();
    assert_eq!(blocked.action, HookAction::Deny);
    assert_eq!(blocked.reason.as_deref(), Some("no"));
    assert_eq!(serde_json::to_value(&blocked).unwrap()["action"], "deny");

    let allowed: HookResult = serde_json::from_value(json!({"action": "allow"})).unwrap();
    assert_eq!(allowed.action, HookAction::Continue);
    assert_eq!(
        serde_json::to_value(&allowed).unwrap()["action"],
        "continue"
    );
}

fn parse_error(json: Value) -> String {
    serde_json::from_value::<HookResult>(json)
        .expect_err("the value must be rejected")
        .to_string()
}

#[test]
fn invalid_enum_values_are_errors_that_name_the_field() {
    let cases = [
        (json!({"action": "explode"}), "`action`", "explode"),
        (
            json!({"context_injection_role": "narrator"}),
            "`context_injection_role`",
            "narrator",
        ),
        (
            json!({"user_message_level": "fatal"}),
            "`user_message_level`",
            "fatal",
        ),
        (
            json!({"approval_default": "maybe"}),
            "`approval_default`",
            "maybe",
        ),
    ];
    for (json, field, value) in cases {
        let message = parse_error(json);
        assert!(message.contains(field), "{message}");
        assert!(message.contains(value), "{message}");
    }
    let message = parse_error(json!({"action": "Deny"}));
    assert!(
        message.contains("continue, deny, modify, inject_context, ask_user"),
        "{message}"
    );
}

#[test]
fn negative_or_non_numeric_approval_timeouts_are_rejected() {
    let message = parse_error(json!({"approval_timeout": -5}));
    assert!(message.contains("`approval_timeout`"), "{message}");
    assert!(serde_json::from_value::<HookResult>(json!({"approval_timeout": "soon"})).is_err());
    assert!(serde_json::from_value::<HookResult>(json!({"approval_timeout": null})).is_err());
}

#[test]
fn malformed_json_is_an_error_not_a_default() {
    assert!(serde_json::from_str::<HookResult>(r#"{"action": "deny""#).is_err());
    assert!(serde_json::from_str::<HookResult>("[]").is_err());
    assert!(serde_json::from_str::<HookResult>("\"deny\"").is_err());
}

#[test]
fn constructors_and_builders_set_what_they_say() {
    let modify = HookResult::modify(json!({"a": 1})).with_reason("normalised");
    assert_eq!(modify.action, HookAction::Modify);
    assert_eq!(modify.data, Some(json!({"a": 1})));
    assert_eq!(modify.reason.as_deref(), Some("normalised"));

    let inject = HookResult::inject("remember the todo list")
        .with_role(InjectionRole::Assistant)
        .with_ephemeral(true)
        .with_append_to_last_tool_result(true)
        .with_suppress_output(true)
        .with_user_message("reminded", MessageLevel::Info);
    assert_eq!(inject.action, HookAction::InjectContext);
    assert_eq!(
        inject.context_injection.as_deref(),
        Some("remember the todo list")
    );
    assert_eq!(inject.context_injection_role, InjectionRole::Assistant);
    assert!(inject.ephemeral && inject.append_to_last_tool_result && inject.suppress_output);
    assert_eq!(inject.user_message.as_deref(), Some("reminded"));

    let ask = HookResult::ask("Deploy to production?")
        .with_approval_options(["Allow once", "Allow always", "Deny"])
        .with_approval_timeout(Duration::from_secs(30))
        .with_approval_default(ApprovalDefault::Allow);
    assert_eq!(ask.action, HookAction::AskUser);
    assert_eq!(
        ask.approval_prompt.as_deref(),
        Some("Deploy to production?")
    );
    assert_eq!(ask.approval_timeout, 30.0);
    assert_eq!(ask.approval_default, ApprovalDefault::Allow);

    let deny = HookResult::deny("no");
    assert_eq!(
        (deny.action, deny.reason.as_deref()),
        (HookAction::Deny, Some("no"))
    );
    assert_eq!(HookResult::cont().action, HookAction::Continue);
    assert_eq!(
        HookResult::cont()
            .with_context_injection("x")
            .context_injection
            .as_deref(),
        Some("x")
    );
    assert_eq!(HookResult::cont().with_data(json!(1)).data, Some(json!(1)));
}
