//! [`TestCoordinator`]: an isolated registry, a scripted approval provider, in-memory context
//! and display, and an event recorder, wired into a `HookSession`, so that a test mounts a hook
//! module and drives a tool call or a whole turn in a few lines.

use std::sync::Arc;

use hooks_core::session::approval::ScriptedAnswer;
use hooks_core::session::{
    HookSession, InMemoryContext, InMemoryDisplay, InjectionPolicy, ModelRequest, Proceed,
    ScriptedApprovals, Tool, ToolCallOutcome,
};
use hooks_core::{
    AnnotatedHook, EmitResult, EventNameError, HookModule, HookRegistry, MountError, Mounted,
};
use serde_json::Value;

use crate::{EventRecorder, ScriptedSession};

/// Everything a hook test needs, isolated from the rest of the program.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use hooks_core::HookResult;
/// use hooks_testing::{MockTool, TestCoordinator};
/// use serde_json::{json, Value};
///
/// let test = TestCoordinator::new();
/// test.registry()
///     .register("tool:pre", |_: &str, _: &Value| async { HookResult::ask("Write?") }, 0, "ask")
///     .unwrap();
/// test.answer("Allow");
///
/// let tool = MockTool::new("write_file");
/// let outcome = test.run_tool(&tool, json!({"path": "a.txt"})).await;
///
/// assert_eq!(tool.calls(), 1);
/// test.recorder().assert_sequence(&["tool:pre", "approval:granted", "tool:post"]);
/// # });
/// ```
#[derive(Debug)]
pub struct TestCoordinator {
    registry: HookRegistry,
    recorder: EventRecorder,
    approvals: Arc<ScriptedApprovals>,
    context: Arc<InMemoryContext>,
    display: Arc<InMemoryDisplay>,
    session: HookSession,
    mounted: Vec<Mounted>,
}

impl Default for TestCoordinator {
    fn default() -> Self {
        TestCoordinator::new()
    }
}

impl TestCoordinator {
    /// A coordinator with an empty registry (no annotated hooks), no scripted approval answers
    /// yet (so a request gets its default) and the default injection policy.
    pub fn new() -> Self {
        TestCoordinator::with_policy(InjectionPolicy::default())
    }

    /// The same, with another injection policy.
    pub fn with_policy(policy: InjectionPolicy) -> Self {
        let registry = HookRegistry::new();
        let recorder = EventRecorder::new();
        // The observer lives as long as the registry; the coordinator owns both.
        let _recording = recorder.attach(&registry);
        let approvals = Arc::new(ScriptedApprovals::new([]));
        let context = Arc::new(InMemoryContext::new());
        let display = Arc::new(InMemoryDisplay::new());
        let session = HookSession::builder(registry.clone())
            .approvals(approvals.clone())
            .context(context.clone())
            .display(display.clone())
            .injection_policy(policy)
            .build();
        TestCoordinator {
            registry,
            recorder,
            approvals,
            context,
            display,
            session,
            mounted: Vec::new(),
        }
    }

    /// Adds the `#[hook]` functions `filter` accepts (none are added unless asked).
    pub fn with_annotated(
        self,
        filter: impl Fn(&AnnotatedHook) -> bool,
    ) -> Result<Self, EventNameError> {
        self.registry.register_annotated(filter)?;
        Ok(self)
    }

    /// Mounts `module` on the coordinator's registry.
    pub fn mount(&mut self, module: &dyn HookModule) -> Result<&Mounted, MountError> {
        let index = self.mounted.len();
        self.mounted.push(module.mount(&self.registry)?);
        Ok(&self.mounted[index])
    }

    /// Unmounts every mounted module; returns how many handlers were removed.
    pub fn unmount_all(&mut self) -> usize {
        self.mounted.drain(..).map(Mounted::unmount).sum()
    }

    /// The registry (to register handlers by hand, or emit).
    pub fn registry(&self) -> &HookRegistry {
        &self.registry
    }

    /// The session that applies results.
    pub fn session(&self) -> &HookSession {
        &self.session
    }

    /// Every emit so far, with its outcome.
    pub fn recorder(&self) -> &EventRecorder {
        &self.recorder
    }

    /// The scripted approval provider (to see what was asked).
    pub fn approvals(&self) -> &ScriptedApprovals {
        &self.approvals
    }

    /// Queues the user's next answer to an approval request.
    pub fn answer(&self, choice: impl Into<String>) {
        self.approvals.push(ScriptedAnswer::Choose(choice.into()));
    }

    /// The stored history.
    pub fn context(&self) -> &InMemoryContext {
        &self.context
    }

    /// What was shown to the user.
    pub fn display(&self) -> &InMemoryDisplay {
        &self.display
    }

    /// Emits one event.
    pub async fn emit(&self, event: &str, data: Value) -> EmitResult {
        self.registry.emit(event, data).await
    }

    /// Runs a tool call through the whole pipeline (a [`MockTool`](crate::MockTool) or any
    /// other tool).
    pub async fn run_tool(&self, tool: &dyn Tool, input: Value) -> ToolCallOutcome {
        self.session.run_tool(tool, input).await
    }

    /// Submits a user prompt through `prompt:submit`: the prompt to send on (as the hooks
    /// left it), or why it was refused.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use hooks_core::HookResult;
    /// use hooks_core::session::{Blocked, Proceed};
    /// use hooks_testing::TestCoordinator;
    /// use serde_json::Value;
    ///
    /// let test = TestCoordinator::new();
    /// test.registry()
    ///     .register("prompt:submit", |_: &str, _: &Value| async { HookResult::deny("no secrets") }, 0, "gate")
    ///     .unwrap();
    ///
    /// let Proceed::No(Blocked::ByHook { reason, .. }) = test.submit_prompt("my key is ...").await else {
    ///     panic!("the prompt was sent");
    /// };
    /// assert_eq!(reason, "no secrets");
    /// # });
    /// ```
    pub async fn submit_prompt(&self, prompt: &str) -> Proceed<String> {
        self.session.submit_prompt(prompt).await
    }

    /// Sends a model request through `provider:request`: the request to send (as the hooks
    /// left it, with the ephemeral injections to add), or why it was refused.
    pub async fn provider_request(&self, request: Value) -> Proceed<ModelRequest> {
        self.session.provider_request(request).await
    }

    /// Plays a scripted session on the registry.
    pub async fn play(&self, session: &ScriptedSession) -> Vec<(&'static str, EmitResult)> {
        session.play(&self.registry).await
    }
}
