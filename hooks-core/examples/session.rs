//! A scripted agent session through the hooks: a prompt, a model call and five tool calls run
//! through a `HookSession` (approvals, injections, the tool-call gate), and the example prints
//! what the hooks decided at each step and what the agent is told.
//!
//! Run it with `cargo run -p hooks-core --example session`.

use std::time::Duration;

use std::sync::Arc;

use hooks_core::session::approval::ApprovalError;
use hooks_core::session::{
    ApprovalProvider, ApprovalRequest, DisplaySink, HookSession, InMemoryContext, Proceed,
    ScriptedApprovals, Tool, ToolCallOutcome, ToolCallStatus, ToolError, tool_fn,
};
use hooks_core::{
    BoxFuture, EmitResult, Hook, HookOptions, HookRegistry, HookResult, InjectionRole,
    MessageLevel, UserMessage, events,
};
use serde_json::{Value, json};

/// Blocks destructive shell commands, and says what to do instead.
struct Safety;

impl Hook for Safety {
    async fn handle(&self, _event: &str, data: &Value) -> HookResult {
        let command = data["tool_input"]["command"].as_str().unwrap_or_default();
        if command.contains("rm -rf /") {
            return HookResult::deny(
                "`rm -rf /` would destroy the machine; delete the specific build directory instead",
            )
            .with_user_message("blocked a destructive command", MessageLevel::Warning);
        }
        HookResult::cont()
    }
}

/// Masks anything that looks like an API key before the prompt reaches the model.
async fn redact_secrets(_event: &str, data: &Value) -> HookResult {
    let prompt = data["prompt"].as_str().unwrap_or_default();
    if !prompt.contains("sk-") {
        return HookResult::cont();
    }
    let masked: Vec<String> = prompt
        .split(' ')
        .map(|word| {
            if word.starts_with("sk-") {
                "sk-***".to_owned()
            } else {
                word.to_owned()
            }
        })
        .collect();
    let mut data = data.clone();
    data["prompt"] = json!(masked.join(" "));
    HookResult::modify(data).with_reason("masked an API key")
}

/// Asks before any write to a production file.
async fn production_guard(_event: &str, data: &Value) -> HookResult {
    let path = data["tool_input"]["file_path"].as_str().unwrap_or_default();
    if path.contains("production") {
        return HookResult::ask(format!("Allow write to production file {path}?"))
            .with_approval_options(["Allow once", "Allow always", "Deny"])
            .with_approval_timeout(Duration::from_secs(60));
    }
    HookResult::cont()
}

/// Feeds lint findings back to the agent after a Python file is written.
async fn lint_feedback(_event: &str, data: &Value) -> HookResult {
    let path = data["tool_input"]["file_path"].as_str().unwrap_or_default();
    let content = data["tool_input"]["content"].as_str().unwrap_or_default();
    if path.ends_with(".py") && content.contains("import os\n") && !content.contains("os.") {
        return HookResult::inject(format!("lint: {path}:1: F401 `os` imported but unused"))
            .with_user_message(
                format!("linter found 1 issue in {path}"),
                MessageLevel::Warning,
            );
    }
    HookResult::cont()
}

/// Reminds the agent of its open todos on every prompt, without filling the history.
async fn todo_reminder(_event: &str, _data: &Value) -> HookResult {
    HookResult::inject("open todos: [ ] add tests for the parser")
        .with_role(InjectionRole::System)
        .with_ephemeral(true)
}

/// A metrics exporter whose backend is down: its failure is reported, the chain goes on.
async fn flaky_metrics(_event: &str, _data: &Value) -> Result<HookResult, String> {
    Err("metrics backend unreachable".to_owned())
}

/// Prints user messages as they are shown.
struct PrintedDisplay;

impl DisplaySink for PrintedDisplay {
    fn show(&self, message: &UserMessage) {
        println!(
            "    [{}] {} (from {})",
            message.level, message.text, message.hook
        );
    }
}

/// Plays the scripted answers and prints each question with the answer given.
struct PrintedApprovals(ScriptedApprovals);

impl ApprovalProvider for PrintedApprovals {
    fn ask<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> BoxFuture<'a, Result<String, ApprovalError>> {
        Box::pin(async move {
            let answer = self.0.ask(request).await;
            println!(
                "    ? {} {:?} -> {answer:?}",
                request.prompt, request.options
            );
            answer
        })
    }
}

fn describe_emit(event: &str, outcome: &EmitResult) {
    println!("{event}: {:?}", outcome.action());
}

fn describe_tool(outcome: &ToolCallOutcome) {
    let verdict = match &outcome.status {
        ToolCallStatus::Ran { .. } => "ran".to_owned(),
        ToolCallStatus::Blocked(blocked) => format!("BLOCKED, {blocked}"),
        ToolCallStatus::Withheld { reason } => format!("ran, output withheld: {reason}"),
        ToolCallStatus::Errored { error } => format!("failed: {error}"),
        other => format!("{other:?}"),
    };
    println!("    => {verdict}");
    println!("    agent is told: {}", outcome.agent_message());
    for audit in &outcome.injections {
        println!(
            "    + {:?} injection from {} ({:?}): {}",
            audit.placement, audit.hook, audit.disposition, audit.text
        );
    }
}

/// A tool that pretends to do its work and says what it did.
fn fake_tool(name: &'static str) -> impl Tool {
    tool_fn(name, move |input: Value| async move {
        Ok::<_, ToolError>(json!(format!("{name} done with {input}")))
    })
}

/// The registry with the example's hooks, each on its event.
fn registry() -> Result<HookRegistry, Box<dyn std::error::Error>> {
    let registry = HookRegistry::new();
    registry.set_default_fields([("session_id", json!("demo-session"))]);

    registry.register(events::TOOL_PRE, Safety, -100, "safety")?;
    registry.register("PromptSubmit", redact_secrets, 0, "redaction")?;
    registry.register(events::PROMPT_SUBMIT, todo_reminder, 10, "todo_reminder")?;
    registry.register(events::TOOL_PRE, production_guard, 0, "approval")?;
    registry.register(events::TOOL_POST, lint_feedback, 0, "linter")?;
    registry.register_with(
        events::TOOL_POST,
        flaky_metrics,
        HookOptions::new()
            .priority(100)
            .name("metrics")
            .timeout(Duration::from_millis(200)),
    )?;

    println!("registered hooks:");
    for (event, names) in registry.list_handlers(None) {
        println!("  {event:<14} {}", names.join(", "));
    }
    println!();
    Ok(registry)
}

/// The user's prompt through `prompt:submit`, then the model call through `provider:request`.
async fn prompt_and_model_call(session: &HookSession, prompt: &str) {
    println!("prompt {prompt:?}");
    match session.submit_prompt(prompt).await {
        Proceed::Yes(prompt) => println!("    => proceeds as {prompt:?}"),
        Proceed::No(blocked) => println!("    => {blocked}"),
        other => println!("    => {other:?}"),
    }
    if let Proceed::Yes(call) = session
        .provider_request(json!({"messages": [prompt]}))
        .await
    {
        for message in &call.ephemeral {
            println!(
                "    model call carries an ephemeral {} message: {}",
                message.role, message.content
            );
        }
    }
}

/// The agent's five tool calls, each through the session's tool-call gate.
async fn tool_calls(session: &HookSession) {
    let calls = [
        ("bash", json!({"command": "ls -la"})),
        ("bash", json!({"command": "rm -rf / --no-preserve-root"})),
        (
            "write_file",
            json!({"file_path": "config/production.env", "content": "MODE=prod\n"}),
        ),
        (
            "write_file",
            json!({"file_path": "config/production.env", "content": "MODE=prod\nDEBUG=0\n"}),
        ),
        (
            "write_file",
            json!({"file_path": "app/main.py", "content": "import os\nprint('hi')\n"}),
        ),
    ];
    for (tool, input) in calls {
        let shown = input.get("command").or_else(|| input.get("file_path"));
        println!("tool {tool} {}", shown.cloned().unwrap_or_default());
        let outcome = session.run_tool(&fake_tool(tool), input).await;
        describe_tool(&outcome);
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = registry()?;
    // The user's answers to approval prompts, scripted: "Allow always" is remembered.
    let approvals = Arc::new(PrintedApprovals(ScriptedApprovals::choosing([
        "Allow always",
    ])));
    let context = Arc::new(InMemoryContext::new());
    let session = HookSession::builder(registry.clone())
        .approvals(approvals.clone())
        .context(context.clone())
        .display(Arc::new(PrintedDisplay))
        .build();

    describe_emit(
        events::SESSION_START,
        &registry
            .emit(events::SESSION_START, json!({"source": "startup"}))
            .await,
    );
    prompt_and_model_call(&session, "deploy the app with key sk-live-4242 please").await;
    tool_calls(&session).await;
    describe_emit(
        events::SESSION_END,
        &registry
            .emit(events::SESSION_END, json!({"reason": "done"}))
            .await,
    );

    println!();
    println!(
        "approval prompts shown: {} (the second production write was remembered)",
        approvals.0.asked().len()
    );
    println!(
        "stored history: {} messages; injections audited: {}",
        context.messages().len(),
        session.audit_log().len()
    );
    Ok(())
}
