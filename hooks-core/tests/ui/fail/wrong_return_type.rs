use hooks_core::{HookResult, hook};
use serde_json::Value;

#[hook(event = "tool:pre")]
async fn returns_nothing(_event: &str, _data: &Value) {}

#[hook(event = "tool:pre")]
async fn returns_a_string(_event: &str, _data: &Value) -> String {
    String::new()
}

#[hook(event = "tool:pre")]
async fn returns_option(_event: &str, _data: &Value) -> Option<HookResult> {
    None
}

fn main() {}
