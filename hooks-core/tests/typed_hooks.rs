//! `#[hook]` on functions taking a typed view: the event inferred from the view, or given and
//! agreeing with it (aliases included); the JSON form beside it.

use hooks_core::decision::{PromptSubmitDecision, ToolPreDecision};
use hooks_core::view::{PromptSubmit, ToolPre};
use hooks_core::{HookAction, HookRegistry, HookResult, annotated_hooks, hook};
use serde_json::json;

#[hook(priority = 3)]
async fn typed_no_sudo(call: ToolPre<'_>) -> ToolPreDecision {
    match call.tool_input()["command"].as_str() {
        Some(command) if command.starts_with("sudo ") => ToolPreDecision::deny("no sudo"),
        _ => ToolPreDecision::proceed(),
    }
}

#[hook(event = "PreToolUse", name = "typed_alias")]
async fn typed_with_alias(call: ToolPre<'_>) -> Result<HookResult, String> {
    Ok(HookResult::inject(format!("saw {}", call.tool_name())))
}

#[hook(event = "prompt:submit")]
async fn typed_prompt(prompt: PromptSubmit<'_>) -> PromptSubmitDecision {
    PromptSubmitDecision::inject(prompt.prompt().to_uppercase())
}

/// Hooks declared by a `macro_rules!`, whose fragments reach `#[hook]` wrapped in invisible
/// groups.
macro_rules! generated_hooks {
    ($($function:ident: $event:literal, $priority:literal;)+) => {$(
        #[hook(event = $event, priority = $priority)]
        async fn $function(_event: &str, _data: &serde_json::Value) -> HookResult {
            HookResult::cont()
        }
    )+};
}

generated_hooks! {
    generated_a: "generated:a", -3;
    generated_b: "generated:b", 4;
}

#[test]
fn hooks_generated_by_a_macro_keep_their_arguments() {
    let generated: Vec<_> = annotated_hooks()
        .iter()
        .filter(|hook| hook.event().starts_with("generated:"))
        .map(|hook| (hook.event(), hook.priority()))
        .collect();
    assert_eq!(generated, [("generated:a", -3), ("generated:b", 4)]);
}

#[test]
fn typed_hooks_register_under_their_views_event() {
    let typed: Vec<_> = annotated_hooks()
        .iter()
        .filter(|hook| hook.module_path() == module_path!())
        .filter(|hook| !hook.event().starts_with("generated:"))
        .map(|hook| (hook.name(), hook.event(), hook.canonical_event()))
        .collect();
    assert!(
        typed.contains(&("typed_hooks::typed_no_sudo", "tool:pre", "tool:pre")),
        "{typed:?}"
    );
    assert!(
        typed.contains(&("typed_alias", "PreToolUse", "tool:pre")),
        "{typed:?}"
    );
    assert!(
        typed.contains(&(
            "typed_hooks::typed_prompt",
            "prompt:submit",
            "prompt:submit"
        )),
        "{typed:?}"
    );
    assert_eq!(typed.len(), 3);
}

#[tokio::test]
async fn typed_hooks_decide_through_the_registry() {
    let registry = HookRegistry::new();
    let handles = registry
        .register_annotated(|hook| {
            hook.module_path() == module_path!() && !hook.event().starts_with("generated:")
        })
        .unwrap();
    assert_eq!(handles.len(), 3);

    let allowed = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
        )
        .await;
    assert_eq!(allowed.action(), HookAction::InjectContext);
    assert_eq!(allowed.injections[0].text, "saw bash");

    let denied = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "bash", "tool_input": {"command": "sudo ls"}}),
        )
        .await;
    assert_eq!(denied.action(), HookAction::Deny);
    assert_eq!(
        denied.decided_by.as_deref(),
        Some("typed_hooks::typed_no_sudo")
    );

    let prompt = registry
        .emit("prompt:submit", json!({"prompt": "hi"}))
        .await;
    assert_eq!(prompt.injections[0].text, "HI");

    // A payload the views cannot read: both tool:pre hooks fail, neither runs.
    let unreadable = registry.emit("tool:pre", json!({"tool_input": {}})).await;
    assert_eq!(unreadable.failures.len(), 2);
    assert_eq!(unreadable.action(), HookAction::Continue);
}
