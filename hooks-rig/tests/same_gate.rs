//! The same policy, decided the same way: what the model reads of a tool call through a rig
//! agent is what the kernel's `HookSession::run_tool` tells the agent, since both go through
//! the session's tool-call gate.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use hooks_core::session::{ToolError, tool_fn};
use hooks_rig::RigHooks;
use hooks_testing::gate_policies;
use rig_agent::AgentBuilder;
use serde_json::{Value, json};

use support::{ReadFile, ScriptedModel, Turn};

#[tokio::test]
async fn a_rig_agent_and_run_tool_tell_the_agent_the_same() {
    for policy in gate_policies("read_file") {
        let tool = tool_fn("read_file", |_: Value| async {
            Ok::<_, ToolError>(json!("file contents"))
        });
        let expected = policy
            .session()
            .unwrap()
            .build()
            .run_tool(&tool, json!({"path": "a.txt"}))
            .await
            .agent_message();

        let model = ScriptedModel::new([
            Turn::Call {
                id: "c1",
                tool: "read_file",
                args: json!({"path": "a.txt"}),
            },
            Turn::Text("ok"),
        ]);
        let agent = AgentBuilder::new(model.model())
            .tool(ReadFile::default())
            .add_hook(RigHooks::new(policy.session().unwrap()))
            .build();
        agent.prompt("read a.txt").max_turns(3).await.unwrap();

        let read = model.transcript(1).last().unwrap().clone();
        let expected_json = json!(expected).to_string();
        let expected_text = expected_json.trim_matches('"');
        assert!(
            read.contains(expected_text),
            "{}: the model read {read}, run_tool says {expected}",
            policy.name
        );
    }
}
