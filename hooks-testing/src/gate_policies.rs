//! Policies for the session's tool-call gate, one for each way it can decide a call: for tests
//! that hold an integration (an agent framework's hook, an MCP server) to the answer
//! `HookSession::run_tool` gives for the same call, since both go through that gate.

use std::sync::Arc;

use hooks_core::session::{HookSession, HookSessionBuilder, ScriptedApprovals};
use hooks_core::{EventNameError, HookRegistry, HookResult};
use serde_json::{Value, json};

/// One policy: what its handlers answer on which events, and the user's choice when an
/// approval is asked (`None`: nobody is there to ask).
#[derive(Debug, Clone)]
pub struct GatePolicy {
    /// What the policy does, for assertion messages.
    pub name: &'static str,
    /// Each handler's event and its fixed answer.
    pub answers: Vec<(&'static str, HookResult)>,
    /// The user's choice when asked.
    pub approval: Option<&'static str>,
}

impl GatePolicy {
    /// A policy named `name` with no handlers and nobody to ask.
    pub fn new(name: &'static str) -> Self {
        GatePolicy {
            name,
            answers: Vec::new(),
            approval: None,
        }
    }

    /// This policy answering `result` on `event`.
    #[must_use]
    pub fn on(mut self, event: &'static str, result: HookResult) -> Self {
        self.answers.push((event, result));
        self
    }

    /// This policy with the user choosing `choice` when asked.
    #[must_use]
    pub fn approving(mut self, choice: &'static str) -> Self {
        self.approval = Some(choice);
        self
    }

    /// A session builder over a fresh registry holding the policy's handlers, with scripted
    /// approvals answering its choice (none when nobody is to be asked). Call it once for each
    /// side compared, so that neither sees the other's state.
    pub fn session(&self) -> Result<HookSessionBuilder, EventNameError> {
        let registry = HookRegistry::new();
        for (event, result) in &self.answers {
            let result = result.clone();
            registry.register(
                event,
                move |_: &str, _: &Value| {
                    let result = result.clone();
                    async move { result }
                },
                0,
                self.name,
            )?;
        }
        let builder = HookSession::builder(registry);
        Ok(match self.approval {
            Some(choice) => builder.approvals(Arc::new(ScriptedApprovals::choosing([choice]))),
            None => builder,
        })
    }
}

/// The gate's decisions on a call of the tool named `tool`: denied before it runs; asked and
/// refused, asked and approved, asked with nobody to ask; its input dropped by a rewrite; its
/// output withheld, dropped by a rewrite, or rewritten.
///
/// ```
/// use hooks_testing::gate_policies;
///
/// for policy in gate_policies("read_file") {
///     let session = policy.session().unwrap().build();
///     // ... run the same call through `session.run_tool` and through the integration,
///     // and assert that the agent is told the same, naming `policy.name` on failure.
/// #   let _ = session;
/// }
/// ```
pub fn gate_policies(tool: &str) -> Vec<GatePolicy> {
    // A rewrite to data without the tool's input (or its output) leaves nothing to run (or to
    // report): the gate must treat the call as failed rather than make something up.
    let without_payload = json!({ "tool_name": tool });
    vec![
        GatePolicy::new("deny before").on("tool:pre", HookResult::deny("not today")),
        GatePolicy::new("ask, refused")
            .on("tool:pre", HookResult::ask("Run it?"))
            .approving("Deny"),
        GatePolicy::new("ask, approved")
            .on("tool:pre", HookResult::ask("Run it?"))
            .approving("Allow"),
        GatePolicy::new("ask, nobody to ask").on("tool:pre", HookResult::ask("Run it?")),
        GatePolicy::new("input dropped")
            .on("tool:pre", HookResult::modify(without_payload.clone())),
        GatePolicy::new("output withheld").on("tool:post", HookResult::deny("it holds a secret")),
        GatePolicy::new("output dropped").on("tool:post", HookResult::modify(without_payload)),
        GatePolicy::new("output rewritten").on(
            "tool:post",
            HookResult::modify(json!({"tool_result": "[redacted]"})),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use hooks_core::session::{ToolCallStatus, ToolError, tool_fn};

    use super::*;

    /// Each policy decides the call differently from running it unhooked, and the approvals
    /// scripted are the ones consulted.
    #[tokio::test]
    async fn every_policy_changes_what_the_agent_is_told() {
        let tool = tool_fn("echo", |input: Value| async move {
            Ok::<_, ToolError>(input["text"].clone())
        });
        let plain = HookSession::builder(HookRegistry::new())
            .build()
            .run_tool(&tool, json!({"text": "hello"}))
            .await;
        for policy in gate_policies("echo") {
            let outcome = policy
                .session()
                .expect("valid events")
                .build()
                .run_tool(&tool, json!({"text": "hello"}))
                .await;
            let approved = policy.approval == Some("Allow");
            assert_eq!(
                outcome.agent_message() == plain.agent_message(),
                approved,
                "{}: {outcome:?}",
                policy.name
            );
            assert_eq!(
                matches!(outcome.status, ToolCallStatus::Ran { .. }),
                approved || policy.name == "output rewritten",
                "{}: {outcome:?}",
                policy.name
            );
        }
    }
}
