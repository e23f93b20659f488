//! A scripted agent session through a `HookRegistry`: each step of the agent loop is emitted,
//! a handful of hooks answer, and the example prints what each emit decided.
//!
//! Run it with `cargo run -p hooks-core --example session`.

use std::time::Duration;

use hooks_core::{
    EmitResult, Hook, HookAction, HookOptions, HookRegistry, HookResult, InjectionRole,
    MessageLevel, events,
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

fn describe(event: &str, outcome: &EmitResult) {
    let verdict = match outcome.action {
        HookAction::Continue => "continue".to_owned(),
        HookAction::Deny => format!(
            "DENY by {}: {}",
            outcome.decided_by.as_deref().unwrap_or("?"),
            outcome.reason.as_deref().unwrap_or("")
        ),
        HookAction::AskUser => format!(
            "ASK the user (by {}): {} {:?}",
            outcome.decided_by.as_deref().unwrap_or("?"),
            outcome.approval_prompt.as_deref().unwrap_or(""),
            outcome.effective_approval_options()
        ),
        HookAction::Modify => format!("modify ({})", outcome.reason.as_deref().unwrap_or("")),
        HookAction::InjectContext => "inject context".to_owned(),
    };
    println!("{event:<16} -> {verdict}");
    for modification in &outcome.modifications {
        let why = modification.reason.as_deref().unwrap_or("no reason given");
        println!(
            "{:<16}    ~ data modified by {} ({why})",
            "", modification.hook
        );
    }
    if outcome.is_modified() {
        println!("{:<16}    data now {}", "", compact(outcome.data()));
    }
    for injection in &outcome.injections {
        let lifetime = if injection.ephemeral {
            "ephemeral"
        } else {
            "persistent"
        };
        println!(
            "{:<16}    + {lifetime} {} injection from {}: {}",
            "", injection.role, injection.hook, injection.text
        );
    }
    for message in &outcome.messages {
        println!(
            "{:<16}    [{}] {} (from {})",
            "", message.level, message.text, message.hook
        );
    }
    for failure in &outcome.failures {
        println!("{:<16}    ! {failure}", "");
    }
}

fn compact(value: &Value) -> String {
    let mut value = value.clone();
    if let Some(fields) = value.as_object_mut() {
        fields.remove("timestamp");
        fields.remove("session_id");
    }
    value.to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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

    let session: [(&str, Value); 7] = [
        (events::SESSION_START, json!({"source": "startup"})),
        (
            events::PROMPT_SUBMIT,
            json!({"prompt": "deploy the app with key sk-live-4242 please"}),
        ),
        (
            events::TOOL_PRE,
            json!({"tool_name": "bash", "tool_input": {"command": "ls -la"}}),
        ),
        (
            events::TOOL_PRE,
            json!({"tool_name": "bash", "tool_input": {"command": "rm -rf / --no-preserve-root"}}),
        ),
        (
            events::TOOL_PRE,
            json!({"tool_name": "write_file", "tool_input": {"file_path": "config/production.env"}}),
        ),
        (
            events::TOOL_POST,
            json!({
                "tool_name": "write_file",
                "tool_input": {"file_path": "app/main.py", "content": "import os\nprint('hi')\n"},
                "tool_result": {"success": true}
            }),
        ),
        (events::SESSION_END, json!({"reason": "done"})),
    ];
    for (event, data) in session {
        let outcome = registry.emit(event, data).await;
        describe(event, &outcome);
    }
    Ok(())
}
