//! `#[hook]` functions take part in a rig agent's run like registered ones.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use hooks_core::{HookRegistry, HookResult, hook};
use hooks_rig::RigHooks;
use rig_agent::AgentBuilder;
use serde_json::{Value, json};

use support::{DeleteFile, ReadFile, ScriptedModel, Turn};

/// Deletes are denied, whoever asks.
#[hook(event = "PreToolUse", priority = -10, name = "annotated::no_deletes")]
async fn no_deletes(_event: &str, data: &Value) -> HookResult {
    if data["tool_name"] == "delete_file" {
        HookResult::deny("the annotated policy forbids deletes")
    } else {
        HookResult::cont()
    }
}

/// Every tool result gets a note for the model.
#[hook(event = "tool:post", name = "annotated::note")]
async fn note(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("note from an annotated hook")
}

#[tokio::test]
async fn annotated_hooks_deny_and_inject_in_a_run() {
    let registry = HookRegistry::with_annotated().unwrap();
    assert_eq!(registry.list_handlers(None).values().flatten().count(), 2);
    let model = ScriptedModel::new([
        Turn::Call {
            id: "c1",
            tool: "delete_file",
            args: json!({"path": "a"}),
        },
        Turn::Call {
            id: "c2",
            tool: "read_file",
            args: json!({"path": "a"}),
        },
        Turn::Text("done"),
    ]);
    let deletes = DeleteFile::default();
    let reads = ReadFile::default();
    let agent = AgentBuilder::new(model.model())
        .tool(deletes.clone())
        .tool(reads.clone())
        .add_hook(RigHooks::new(registry))
        .build();

    agent.prompt("tidy up").max_turns(5).await.unwrap();

    assert!(deletes.calls().is_empty());
    assert_eq!(reads.calls().len(), 1);
    let after_delete = model.transcript(1).join("\n");
    assert!(after_delete.contains("the annotated policy forbids deletes"));
    assert!(
        !after_delete.contains("note from an annotated hook"),
        "no result, no note"
    );
    let after_read = model.transcript(2).join("\n");
    assert!(
        after_read.contains("system: note from an annotated hook"),
        "{after_read}"
    );
}
