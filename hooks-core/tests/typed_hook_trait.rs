//! `TypedHook`: a stateful hook with a method per event, a `Hook` through the blanket impl.

#![allow(clippy::unwrap_used)]

use std::sync::Mutex;

use hooks_core::decision::{PromptSubmitDecision, ToolPreDecision};
use hooks_core::view::{PromptSubmit, ToolPre};
use hooks_core::{Handler, HookAction, HookOptions, HookRegistry, HookResult, TypedHook};
use serde_json::{Value, json};

/// Remembers what it saw, guards `rm`, and treats every other event alike.
#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<String>>,
}

impl Recorder {
    fn saw(&self, what: String) {
        self.seen.lock().unwrap().push(what);
    }
}

impl TypedHook for Recorder {
    async fn on_tool_pre(&self, call: ToolPre<'_>) -> HookResult {
        self.saw(format!("tool_pre {}", call.tool_name()));
        if call.tool_name() == "rm" {
            ToolPreDecision::deny("rm is disabled").into()
        } else {
            ToolPreDecision::proceed().into()
        }
    }

    async fn on_prompt_submit(&self, prompt: PromptSubmit<'_>) -> HookResult {
        self.saw(format!("prompt {}", prompt.prompt()));
        PromptSubmitDecision::inject("be brief").into()
    }

    async fn on_event(&self, event: &str, data: &Value) -> HookResult {
        self.saw(format!("event {event} {}", data["n"]));
        HookResult::cont()
    }
}

/// Implements nothing: every event continues.
struct Silent;

impl TypedHook for Silent {}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn each_event_reaches_its_method_and_the_rest_reach_on_event() {
    block_on(async {
        let registry = HookRegistry::new();
        let recorder = std::sync::Arc::new(Recorder::default());
        let handler = Handler::from_hook(SharedRecorder(std::sync::Arc::clone(&recorder)));
        for event in ["tool:pre", "prompt:submit", "session:start", "deploy:start"] {
            registry
                .register_with(event, handler.clone(), HookOptions::new().name("recorder"))
                .unwrap();
        }

        let denied = registry
            .emit("PreToolUse", json!({"tool_name": "rm", "tool_input": {}}))
            .await;
        assert!(denied.is_denied());
        let injected = registry
            .emit("prompt:submit", json!({"prompt": "hi"}))
            .await;
        assert_eq!(injected.action(), HookAction::InjectContext);
        // No method of its own in the recorder: the default sends it to `on_event`.
        registry
            .emit("session:start", json!({"session_id": "s1", "n": 1}))
            .await;
        // An event without a view.
        registry.emit("deploy:start", json!({"n": 2})).await;
        // Data the view refuses (no tool name) goes to `on_event` too.
        registry.emit("tool:pre", json!({"n": 3})).await;

        assert_eq!(
            *recorder.seen.lock().unwrap(),
            [
                "tool_pre rm",
                "prompt hi",
                "event session:start 1",
                "event deploy:start 2",
                "event tool:pre 3",
            ]
        );
    });
}

/// A recorder shared with the test, which reads what it saw.
struct SharedRecorder(std::sync::Arc<Recorder>);

impl TypedHook for SharedRecorder {
    fn on_tool_pre(
        &self,
        call: ToolPre<'_>,
    ) -> impl std::future::Future<Output = HookResult> + Send {
        self.0.on_tool_pre(call)
    }

    fn on_prompt_submit(
        &self,
        prompt: PromptSubmit<'_>,
    ) -> impl std::future::Future<Output = HookResult> + Send {
        self.0.on_prompt_submit(prompt)
    }

    fn on_event(
        &self,
        event: &str,
        data: &Value,
    ) -> impl std::future::Future<Output = HookResult> + Send {
        self.0.on_event(event, data)
    }
}

#[test]
fn a_hook_implementing_no_method_continues_on_every_event() {
    block_on(async {
        let silent = Handler::from_hook(Silent);
        for (event, data) in [
            ("tool:pre", json!({"tool_name": "rm", "tool_input": {}})),
            (
                "tool:post",
                json!({"tool_name": "rm", "tool_input": {}, "tool_result": 1}),
            ),
            ("session:end", json!({"session_id": "s"})),
            ("custom:thing", json!({})),
        ] {
            let answer = silent.call(event, &data).await.unwrap();
            assert_eq!(answer.action, HookAction::Continue, "{event}");
        }
    });
}
