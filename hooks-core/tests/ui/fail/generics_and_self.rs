use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre")]
async fn generic<T: Default>(_event: &str, _data: &Value) -> HookResult {
    let _ = T::default();
    HookResult::cont()
}

#[hook(event = "tool:pre")]
async fn with_lifetime<'a>(_event: &'a str, _data: &'a Value) -> HookResult {
    HookResult::cont()
}

struct Guard;

impl Guard {
    #[hook(event = "tool:pre")]
    async fn method(&self, _event: &str, _data: &Value) -> HookResult {
        HookResult::cont()
    }
}

fn main() {}
