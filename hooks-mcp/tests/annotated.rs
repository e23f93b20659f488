//! `#[hook]` functions govern a hooked server's tool calls. (A test binary of its own: the
//! annotated hooks of a binary are all collected.)
#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use common::{call, hooked, texts};
use hooks_core::{HookRegistry, HookResult, hook};
use serde_json::{Value, json};

/// Denies `echo` calls that shout.
#[hook(event = "PreToolUse", priority = 5, name = "no_shouting")]
async fn no_shouting(_event: &str, data: &Value) -> HookResult {
    let text = data["tool_input"]["text"].as_str().unwrap_or_default();
    if !text.is_empty() && text == text.to_uppercase() {
        HookResult::deny("please do not shout")
    } else {
        HookResult::cont()
    }
}

/// Signs every result.
#[hook(event = "tool:post")]
async fn sign(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("-- checked by hooks")
}

#[tokio::test]
async fn annotated_hooks_drive_the_gate() {
    let (client, inner) = hooked(HookRegistry::with_annotated().unwrap()).await;

    let denied = client
        .call_tool(call("echo", json!({"text": "HELLO"})))
        .await
        .unwrap();
    assert_eq!(denied.is_error, Some(true));
    assert_eq!(
        texts(&denied),
        ["Tool call denied by a hook: please do not shout"]
    );
    assert_eq!(inner.calls(), 0);

    let signed = client
        .call_tool(call("echo", json!({"text": "hello"})))
        .await
        .unwrap();
    assert_eq!(texts(&signed), ["hello", "-- checked by hooks"]);
}
