//! A user's test written from the crates' roots alone: the coordinator's prompt and model
//! request shortcuts, and the types their answers are made of.

#![allow(clippy::unwrap_used)]

use hooks_core::HookResult;
use hooks_core::session::{
    ApprovalDecision, Blocked, ContextMessage, DecisionSource, ModelRequest, Proceed,
    ScriptedAnswer,
};
use hooks_testing::{Check, MockTool, Suite, TestCoordinator};
use serde_json::{Value, json};

fn answer(test: &TestCoordinator, event: &str, answer: HookResult) {
    test.registry()
        .register(
            event,
            move |_: &str, _: &Value| {
                let answer = answer.clone();
                async move { answer }
            },
            0,
            "policy",
        )
        .unwrap();
}

#[tokio::test]
async fn submit_prompt_passes_a_rewritten_prompt_on_and_a_denied_one_not() {
    let rewriting = TestCoordinator::new();
    answer(
        &rewriting,
        "prompt:submit",
        HookResult::modify(json!({"prompt": "deploy [REDACTED]"})),
    );
    let denying = TestCoordinator::new();
    answer(&denying, "prompt:submit", HookResult::deny("not today"));

    let rewritten = rewriting.submit_prompt("deploy hunter2").await;
    let denied = denying.submit_prompt("deploy").await;

    assert!(matches!(rewritten, Proceed::Yes(ref prompt) if prompt == "deploy [REDACTED]"));
    let Proceed::No(Blocked::ByHook { reason, hook }) = denied else {
        panic!("the prompt went through");
    };
    assert_eq!(
        (reason.as_str(), hook.as_deref()),
        ("not today", Some("policy"))
    );
    denying.recorder().assert_sequence(&["prompt:submit"]);
}

#[tokio::test]
async fn provider_request_hands_over_the_request_and_the_ephemeral_injections() {
    let test = TestCoordinator::new();
    answer(
        &test,
        "provider:request",
        HookResult::modify(json!({"request": {"messages": ["[REDACTED]"]}}))
            .with_context_injection("today is a holiday")
            .with_ephemeral(true),
    );

    let outcome = test
        .provider_request(json!({"messages": ["my password is hunter2"]}))
        .await;

    let Proceed::Yes(ModelRequest { request, ephemeral }) = outcome else {
        panic!("the request was refused");
    };
    assert_eq!(request, json!({"messages": ["[REDACTED]"]}));
    let texts: Vec<&str> = ephemeral
        .iter()
        .map(|m: &ContextMessage| m.content.as_str())
        .collect();
    assert_eq!(texts, ["today is a holiday"]);
    assert!(
        test.context().messages().is_empty(),
        "ephemeral: not stored"
    );
}

#[tokio::test]
async fn an_approval_scripted_from_the_root_types_blocks_the_tool() {
    let test = TestCoordinator::new();
    answer(&test, "tool:pre", HookResult::ask("Write it?"));
    test.approvals().push(ScriptedAnswer::Choose("Deny".into()));
    let tool = MockTool::new("write_file");

    let outcome = test.run_tool(&tool, json!({"path": "a"})).await;

    let hooks_core::session::ToolCallStatus::Blocked(Blocked::ByApproval { decision, .. }) =
        outcome.status
    else {
        panic!("the tool ran: {:?}", outcome.status);
    };
    let ApprovalDecision {
        allowed, source, ..
    } = decision;
    assert!(!allowed);
    assert_eq!(source, DecisionSource::User);
    assert_eq!(tool.calls(), 0);
}

#[test]
fn the_behavioural_suite_is_at_the_root_too() {
    use hooks_core::HookModule;

    struct Pass;
    impl HookModule for Pass {
        fn name(&self) -> &str {
            "pass"
        }
        fn mount(
            &self,
            registry: &hooks_core::HookRegistry,
        ) -> Result<hooks_core::Mounted, hooks_core::MountError> {
            let mut mounted = hooks_core::Mounted::new(self.name());
            mounted.register(
                registry,
                "tool:pre",
                |_: &str, _: &Value| async { HookResult::cont() },
                0,
                "pass.continue",
            )?;
            Ok(mounted)
        }
    }
    Suite::new(Pass).run(Check::MountAndUnmount);
}
