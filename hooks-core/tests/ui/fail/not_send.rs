use std::rc::Rc;

use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre")]
async fn holds_rc_across_await(_event: &str, _data: &Value) -> HookResult {
    let counter = Rc::new(1);
    std::future::ready(()).await;
    HookResult::inject(counter.to_string())
}

fn main() {}
