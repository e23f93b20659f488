use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre")]
async fn one_parameter(_data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "tool:pre")]
async fn no_parameters() -> HookResult {
    HookResult::cont()
}

fn main() {}
