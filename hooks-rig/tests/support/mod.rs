//! A scripted completion model and recording tools: real rig agents, no network.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rig_agent::core::completion::{CompletionRequest, CompletionResponse, Usage};
use rig_agent::core::driver::{Exchange, Model, Opened, Opening, Transport};
use rig_agent::core::error::ProviderError;
use rig_agent::core::message::{
    AssistantContent, Message, Origin, ToolCall, ToolFunction, ToolName, UserContent,
};
use rig_agent::core::test_utils::{MOCK_API, MOCK_PROVIDER, MockFrame, MockScript};
use rig_agent::tool::{Tool, ToolContext, ToolErrorKind, ToolExecutionError};
use serde_json::{Value, json};

/// One scripted answer of the model.
pub enum Turn {
    /// Answer with text.
    Text(&'static str),
    /// Call a tool.
    Call {
        id: &'static str,
        tool: &'static str,
        args: Value,
    },
}

/// A completion model answering from a script and recording every request it receives: the
/// transport of rig's scripted wire.
#[derive(Clone, Default)]
pub struct ScriptedModel {
    turns: Arc<Mutex<VecDeque<Turn>>>,
    requests: Arc<Mutex<Vec<CompletionRequest>>>,
}

impl ScriptedModel {
    /// A model answering `turns` in order.
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        ScriptedModel {
            turns: Arc::new(Mutex::new(turns.into_iter().collect())),
            requests: Arc::default(),
        }
    }

    /// The model to give an agent.
    pub fn model(&self) -> Model<MockScript, ScriptedModel> {
        Model::new(MockScript::default(), self.clone())
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<CompletionRequest> {
        lock(&self.requests).clone()
    }

    /// The messages of request `index` (the prompt last), as text, one line each.
    pub fn transcript(&self, index: usize) -> Vec<String> {
        self.requests()[index]
            .chat_history
            .iter()
            .map(describe)
            .collect()
    }
}

impl Transport<MockScript> for ScriptedModel {
    fn send(&self, request: CompletionRequest, _exchange: Exchange) -> Opening<MockFrame> {
        lock(&self.requests).push(request);
        let Some(turn) = lock(&self.turns).pop_front() else {
            return Opening::failed(ProviderError::Provider("the script is over".into()));
        };
        let content = match turn {
            Turn::Text(text) => AssistantContent::text(text),
            Turn::Call { id, tool, args } => AssistantContent::ToolCall(ToolCall::from_wire(
                id,
                ToolFunction::new(ToolName::new(tool.to_owned()).unwrap(), args),
            )),
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

/// One message as a line of text: its role, then its parts.
pub fn describe(message: &Message) -> String {
    match message {
        Message::System { content } => format!("system: {content}"),
        Message::User { content } => {
            let parts: Vec<String> = content
                .iter()
                .map(|part| match part {
                    UserContent::Text(text) => text.text().to_owned(),
                    UserContent::ToolResult(result) => {
                        format!("[result {}] {}", result.call, json!(result.content))
                    }
                    other => format!("{other:?}"),
                })
                .collect();
            format!("user: {}", parts.join(" | "))
        }
        Message::Assistant(turn) => {
            let parts: Vec<String> = turn
                .content
                .iter()
                .map(|part| match part {
                    AssistantContent::Text(text) => text.text().to_owned(),
                    AssistantContent::ToolCall(call) => format!(
                        "[call {}] {}",
                        call.function.name.as_str(),
                        call.function.arguments_value()
                    ),
                    other => format!("{other:?}"),
                })
                .collect();
            format!("assistant: {}", parts.join(" | "))
        }
    }
}

/// Defines a tool named `$name` that records the arguments of every call and answers
/// `$answer` (`Ok(text)`, or `Err(error)` to fail).
macro_rules! recording_tool {
    ($tool:ident, $name:literal, $answer:expr) => {
        #[doc = concat!("The `", $name, "` tool: records its calls.")]
        #[derive(Clone, Default)]
        pub struct $tool {
            calls: Arc<Mutex<Vec<Value>>>,
        }

        impl $tool {
            /// The arguments of every call, in order.
            pub fn calls(&self) -> Vec<Value> {
                lock(&self.calls).clone()
            }
        }

        impl Tool for $tool {
            const NAME: &'static str = $name;
            type Args = Value;
            type Output = String;
            type Error = ToolExecutionError;

            fn description(&self) -> String {
                concat!("the ", $name, " tool").to_owned()
            }

            fn parameters(&self) -> Value {
                json!({"type": "object", "properties": {"path": {"type": "string"}}})
            }

            async fn call(
                &self,
                _context: &mut ToolContext,
                args: Value,
            ) -> Result<String, ToolExecutionError> {
                lock(&self.calls).push(args);
                let answer: Result<&str, &str> = $answer;
                answer
                    .map(str::to_owned)
                    .map_err(|error| ToolExecutionError::new(ToolErrorKind::Provider, error))
            }
        }
    };
}

recording_tool!(ReadFile, "read_file", Ok("file contents"));
recording_tool!(DeleteFile, "delete_file", Ok("deleted"));
recording_tool!(Flaky, "flaky", Err("disk on fire"));

/// `mutex` locked, whether or not a thread panicked while holding it: a panic in a handler or
/// a tool then fails its own test instead of every later lock with a `PoisonError`.
pub use hooks_core::sync::lock;
