use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre", priority = 1, priority = 2)]
async fn duplicate_key(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "tool:pre", order = 1)]
async fn unknown_key(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "tool:pre", priority = "high")]
async fn string_priority(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "tool:pre", priority = 1.5, timeout_ms = 0)]
async fn float_priority_zero_timeout(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(priority = 1)]
async fn missing_event(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "tool:pre", events = ["tool:post"])]
async fn both_event_forms(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

fn main() {}
