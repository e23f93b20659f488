use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:prre")]
async fn typo(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "PreToolUsee")]
async fn alias_typo(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(events = ["tool:post", "Billing:Charged", "PostToolUse"])]
async fn bad_list(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

fn main() {}
