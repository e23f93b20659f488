use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre")]
fn not_async(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

fn main() {
    // The function is still emitted, so using it is not a second error.
    let _ = not_async("tool:pre", &Value::Null);
}
