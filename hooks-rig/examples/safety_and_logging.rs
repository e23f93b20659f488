//! The safety and logging modules of hooks-std on a rig agent.
//!
//! The agent's model is scripted (it runs offline): it asks to run `rm -rf /` through a
//! `shell` tool, then answers. The safety module denies the call on `tool:pre`, so the tool
//! never runs and the model reads why; the logging module writes every event of the run as
//! one JSON line.
//!
//! ```text
//! cargo run -p hooks-rig --example safety_and_logging
//! ```

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use hooks_core::{HookModule, HookRegistry};
use hooks_rig::RigHooks;
use hooks_std::logging::{LoggingConfig, LoggingModule};
use hooks_std::safety::{SafetyModule, SelfProtection};
use rig_agent::AgentBuilder;
use rig_agent::core::completion::{CompletionRequest, CompletionResponse, Usage};
use rig_agent::core::driver::{Exchange, Model, Opened, Opening, Transport};
use rig_agent::core::error::ProviderError;
use rig_agent::core::message::{AssistantContent, Origin, ToolCall, ToolFunction, ToolName};
use rig_agent::core::test_utils::{MOCK_API, MOCK_PROVIDER, MockFrame, MockScript};
use rig_agent::tool::{Tool, ToolContext, ToolExecutionError};
use serde_json::{Value, json};

/// A pretend shell: it only says what it would have run.
struct Shell;

impl Tool for Shell {
    const NAME: &'static str = "shell";
    type Args = Value;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "runs a shell command".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}})
    }

    async fn call(&self, _context: &mut ToolContext, args: Value) -> Result<String, Self::Error> {
        Ok(format!("would have run {}", args["command"]))
    }
}

/// A model answering from a script: the transport of rig's scripted wire.
#[derive(Clone)]
struct ScriptedModel {
    turns: Arc<Mutex<VecDeque<AssistantContent>>>,
}

impl Transport<MockScript> for ScriptedModel {
    fn send(&self, _request: CompletionRequest, _exchange: Exchange) -> Opening<MockFrame> {
        let next = self
            .turns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop_front();
        let Some(content) = next else {
            return Opening::failed(ProviderError::Provider("the script is over".into()));
        };
        let response = CompletionResponse::new(
            vec![content],
            Usage::default(),
            Origin::new(MOCK_API, MOCK_PROVIDER, ""),
            Value::Null,
        );
        Opening::ready(Opened::new(futures::stream::iter([Ok(
            MockFrame::Response(Box::new(response)),
        )])))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let log = std::env::temp_dir().join("hooks-rig-example.jsonl");
    let registry = HookRegistry::new();
    // A rig application is no agent's guard: nothing of a product to keep from the model.
    let safety = SafetyModule::with_defaults(&SelfProtection::none())?.mount(&registry)?;
    let logging = LoggingModule::new(LoggingConfig {
        path: log.clone(),
        ..LoggingConfig::default()
    })?
    .mount(&registry)?;

    let shell = ToolName::new("shell".to_owned())?;
    let model = ScriptedModel {
        turns: Arc::new(Mutex::new(VecDeque::from([
            AssistantContent::ToolCall(ToolCall::from_wire(
                "call-1",
                ToolFunction::new(shell, json!({"command": "rm -rf /"})),
            )),
            AssistantContent::text("I will not delete the file system."),
        ]))),
    };
    let agent = AgentBuilder::new(Model::new(MockScript::default(), model))
        .tool(Shell)
        .add_hook(RigHooks::new(registry))
        .build();

    let response = agent.prompt("free some disk space").max_turns(3).await?;
    println!("agent: {}", response.output());
    for message in response.messages() {
        println!("  {}", serde_json::to_string(message)?);
    }
    let lines = std::fs::read_to_string(&log)?;
    println!(
        "{} events logged to {}",
        lines.lines().count(),
        log.display()
    );

    safety.unmount();
    logging.unmount();
    std::fs::remove_file(&log)?;
    Ok(())
}
