//! Decisions: every constructor builds an answer the kernel accepts, and converts into the
//! `HookResult` (and the JSON) the flat form would have needed.

use std::time::Duration;

use hooks_core::decision::{
    Approval, ContextInjection, PromptSubmitDecision, ProviderRequestDecision, ToolPostDecision,
    ToolPreDecision,
};
use hooks_core::view::{EventView, PromptSubmit, ProviderRequest, ToolPost, ToolPre};
use hooks_core::{
    ApprovalDefault, HookAction, HookRegistry, HookResult, InjectionRole, IntoHookResult,
    MessageLevel,
};
use serde_json::{Value, json};

fn tool_call() -> Value {
    json!({
        "tool_name": "bash",
        "tool_input": {"command": "python app.py"},
        "tool_call_id": "c1",
        "session_id": "s1"
    })
}

#[test]
fn proceed_is_a_plain_continue() {
    let result = HookResult::from(ToolPreDecision::proceed());
    assert_eq!(result, HookResult::cont());
    assert_eq!(ToolPreDecision::proceed().action(), HookAction::Continue);
}

#[test]
fn deny_carries_its_reason() {
    let result = HookResult::from(ToolPreDecision::deny("no shell; use read_file"));
    assert_eq!(result, HookResult::deny("no shell; use read_file"));
    assert_eq!(
        serde_json::to_value(&result).unwrap()["action"],
        json!("deny")
    );
}

#[test]
fn ask_always_has_its_question_and_keeps_the_approval_settings() {
    let plain = HookResult::from(ToolPreDecision::ask("Run it?"));
    assert_eq!(plain, HookResult::ask("Run it?"));

    let approval = Approval::new("Force-push?")
        .options(["Allow once", "Deny"])
        .timeout(Duration::from_secs(30))
        .on_timeout(ApprovalDefault::Allow);
    let result = HookResult::from(ToolPreDecision::ask(approval));
    assert_eq!(result.action, HookAction::AskUser);
    assert_eq!(result.approval_prompt.as_deref(), Some("Force-push?"));
    assert_eq!(result.effective_approval_options(), ["Allow once", "Deny"]);
    assert_eq!(result.approval_timeout_duration(), Duration::from_secs(30));
    assert_eq!(result.approval_default, ApprovalDefault::Allow);
    let json = serde_json::to_value(&result).unwrap();
    assert_eq!(json["action"], "ask_user");
    assert_eq!(json["approval_timeout"], 30.0);
    assert_eq!(json["approval_default"], "allow");
}

#[test]
fn rewriting_the_input_replaces_only_tool_input_in_the_whole_data() {
    let data = tool_call();
    let call = ToolPre::from_data(&data).unwrap();
    let decision = ToolPreDecision::rewrite_input(&call, json!({"command": "python3 app.py"}));
    assert_eq!(decision.action(), HookAction::Modify);
    let result = HookResult::from(decision);
    assert_eq!(result.action, HookAction::Modify);
    assert_eq!(
        result.data,
        Some(json!({
            "tool_name": "bash",
            "tool_input": {"command": "python3 app.py"},
            "tool_call_id": "c1",
            "session_id": "s1"
        }))
    );
}

#[test]
fn injections_keep_text_role_and_placement() {
    let result = HookResult::from(ToolPostDecision::inject("lint: 1 issue"));
    assert_eq!(result, HookResult::inject("lint: 1 issue"));

    let note = ContextInjection::new("remember the style guide")
        .role(InjectionRole::User)
        .ephemeral()
        .append_to_last_tool_result();
    let result = HookResult::from(PromptSubmitDecision::inject(note));
    assert_eq!(result.action, HookAction::InjectContext);
    assert_eq!(
        result.context_injection.as_deref(),
        Some("remember the style guide")
    );
    assert_eq!(result.context_injection_role, InjectionRole::User);
    assert!(result.ephemeral && result.append_to_last_tool_result);
}

#[test]
fn extras_are_legal_on_every_answer() {
    let result = HookResult::from(
        ToolPreDecision::deny("blocked")
            .with_user_message("blocked a shell call", MessageLevel::Warning)
            .with_suppress_output(),
    );
    assert_eq!(result.action, HookAction::Deny);
    assert_eq!(result.user_message.as_deref(), Some("blocked a shell call"));
    assert_eq!(result.user_message_level, MessageLevel::Warning);
    assert!(result.suppress_output);

    let quiet = HookResult::from(ToolPostDecision::proceed().with_suppress_output());
    assert_eq!(quiet.action, HookAction::Continue);
    assert!(quiet.suppress_output);
}

#[test]
fn tool_post_replaces_the_result_or_withholds_it() {
    let data =
        json!({"tool_name": "read_file", "tool_input": {"path": ".env"}, "tool_result": "KEY=1"});
    let call = ToolPost::from_data(&data).unwrap();
    let replaced = HookResult::from(ToolPostDecision::replace_result(&call, json!("[redacted]")));
    assert_eq!(replaced.data.as_ref().unwrap()["tool_result"], "[redacted]");
    assert_eq!(
        replaced.data.as_ref().unwrap()["tool_input"],
        json!({"path": ".env"})
    );
    let withheld = HookResult::from(ToolPostDecision::deny("secrets are not shown"));
    assert_eq!(withheld.action, HookAction::Deny);
}

#[test]
fn prompt_and_provider_rewrites_replace_their_field() {
    let data = json!({"prompt": "delpoy", "session_id": "s"});
    let submitted = PromptSubmit::from_data(&data).unwrap();
    let result = HookResult::from(PromptSubmitDecision::rewrite(&submitted, "deploy"));
    assert_eq!(
        result.data,
        Some(json!({"prompt": "deploy", "session_id": "s"}))
    );
    assert_eq!(
        HookResult::from(PromptSubmitDecision::deny("empty prompt")).action,
        HookAction::Deny
    );

    let data = json!({"request": {"messages": ["secret"]}});
    let request = ProviderRequest::from_data(&data).unwrap();
    let redacted =
        ProviderRequestDecision::rewrite_request(&request, json!({"messages": ["[redacted]"]}));
    assert_eq!(
        HookResult::from(redacted).data,
        Some(json!({"request": {"messages": ["[redacted]"]}}))
    );
    assert_eq!(
        ProviderRequestDecision::deny("over budget").action(),
        HookAction::Deny
    );
}

#[test]
fn decisions_and_results_of_them_are_handler_answers() {
    let ok = ToolPreDecision::deny("no").into_hook_result().unwrap();
    assert_eq!(ok.action, HookAction::Deny);
    let fine: Result<ToolPreDecision, String> = Ok(ToolPreDecision::proceed());
    assert_eq!(fine.into_hook_result().unwrap(), HookResult::cont());
    let failed: Result<ToolPreDecision, String> = Err("policy file unreadable".to_owned());
    assert_eq!(
        failed.into_hook_result().unwrap_err().to_string(),
        "policy file unreadable"
    );
}

#[tokio::test]
async fn a_rewrite_reaches_later_handlers_and_the_result() {
    async fn python3(call: ToolPre<'_>) -> ToolPreDecision {
        match call.tool_input()["command"].as_str() {
            Some(command) if command.starts_with("python ") => ToolPreDecision::rewrite_input(
                &call,
                json!({"command": command.replacen("python ", "python3 ", 1)}),
            ),
            _ => ToolPreDecision::proceed(),
        }
    }
    async fn sees(call: ToolPre<'_>) -> ToolPreDecision {
        ToolPreDecision::inject(format!("ran {}", call.tool_input()["command"]))
    }
    let registry = HookRegistry::new();
    registry
        .register_view(python3, hooks_core::HookOptions::new().priority(1))
        .unwrap();
    registry
        .register_view(sees, hooks_core::HookOptions::new().priority(2))
        .unwrap();
    let outcome = registry.emit("tool:pre", tool_call()).await;
    assert_eq!(outcome.injections[0].text, "ran \"python3 app.py\"");
    let data = outcome
        .result
        .data
        .as_ref()
        .expect("a modified chain keeps its data");
    assert_eq!(data["tool_input"], json!({"command": "python3 app.py"}));
    assert_eq!(data["tool_call_id"], "c1");
}
