use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre")]
async fn only_event(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(timeout_ms = 500, name = "all_keys", priority = -10, event = "PreToolUse")]
async fn keys_in_any_order(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "billing:quota_checked", priority = 7)]
async fn custom_event(_event: &str, _data: &serde_json::Value) -> hooks_core::HookResult {
    HookResult::cont()
}

#[hook(events = ["tool:pre", "tool:post", "SessionStart"], name = "several")]
async fn several_events(event: &str, _data: &Value) -> HookResult {
    HookResult::inject(event.to_owned())
}

#[hook(event = "tool:post")]
async fn fallible(_event: &str, data: &Value) -> Result<HookResult, String> {
    data.get("tool_result").ok_or("no tool_result")?;
    Ok(HookResult::cont())
}

#[hook(event = "tool:error")]
pub(crate) async fn with_visibility_and_awaits(_event: &str, data: &Value) -> HookResult {
    let owned = data.clone();
    std::future::ready(()).await;
    HookResult::modify(owned)
}

fn main() {
    let _ = (only_event, keys_in_any_order, custom_event, several_events, fallible);
    let _ = with_visibility_and_awaits;
}
