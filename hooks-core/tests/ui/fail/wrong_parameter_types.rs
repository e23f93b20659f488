use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre")]
async fn swapped(_data: &Value, _event: &str) -> HookResult {
    HookResult::cont()
}

#[hook(event = "tool:pre")]
async fn owned(_event: String, _data: &mut Value) -> HookResult {
    HookResult::cont()
}

fn main() {}
