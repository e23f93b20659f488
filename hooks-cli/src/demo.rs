//! `hooks demo`: a scripted agent session through the whole hook pipeline, with real tools in
//! a temporary sandbox, the standard modules and a demo hooks YAML.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hooks_core::events::fields::{self, PROMPT, REASON, RESPONSE, SOURCE};
use hooks_core::session::approval::{ApprovalError, ApprovalRequest, ScriptedAnswer};
use hooks_core::session::{
    ApprovalProvider, DisplaySink, HookSession, InMemoryContext, InMemoryDisplay, Proceed,
    ScriptedApprovals, Tool, ToolCallOutcome, ToolCallStatus, ToolError,
};
use hooks_core::{BoxFuture, EmitResult, HookModule, HookRegistry};
use hooks_std::approval::{ApprovalConfig, ApprovalModule};
use hooks_std::linter::{LinterConfig, LinterModule};
use hooks_std::logging::{LoggingConfig, LoggingModule};
use hooks_std::redaction::{RedactionConfig, RedactionModule};
use hooks_std::reminder::{ReminderConfig, ReminderModule};
use hooks_std::safety::{SafetyConfig, SafetyModule};
use hooks_std::terminal::{TerminalApprovals, TerminalDisplay};

use crate::progress::{Lines, Progress};
use hooks_core::sync::lock;
use serde_json::{Value, json};

/// How the demo answers approval prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// Ask on the terminal when there is one, else answer "Allow always".
    Interactive,
    /// Answer "Allow always".
    Yes,
    /// Answer "Deny".
    No,
}

/// The demo's hooks file: a matcher and a command hook.
const DEMO_YAML: &str = include_str!("../demo/hooks.yaml");

/// The command hook's script: blocks `git push` with Claude Code's exit-code protocol.
const POLICY_SH: &str = include_str!("../demo/policy.sh");

/// What the transcript shows of one step, and the counts for the summary.
struct Transcript {
    colour: bool,
    json: bool,
    progress: Progress,
    events: Arc<Mutex<Vec<Value>>>,
    hook_time: Duration,
    waiting: Duration,
}

impl Transcript {
    fn paint(&self, text: &str, ansi: &str) -> String {
        if self.colour {
            format!("\x1b[{ansi}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn say(&self, line: &str) {
        if !self.json {
            self.progress.line(line);
        }
    }

    fn step(&self, what: &str) {
        self.say(&format!("\n{} {what}", self.paint("▶", "1;36")));
    }
}

/// Counts the questions actually put (the session remembers "… always" answers), and the time
/// spent waiting for their answers, which is the user's and not the hooks'.
struct Counted {
    inner: Arc<dyn ApprovalProvider>,
    asked: Arc<Mutex<usize>>,
    waiting: Arc<Mutex<Duration>>,
    quiet: bool,
    progress: Progress,
}

impl ApprovalProvider for Counted {
    fn ask<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> BoxFuture<'a, Result<String, ApprovalError>> {
        Box::pin(async move {
            *lock(&self.asked) += 1;
            // A terminal prompt owns the terminal while it asks.
            let paused = self.progress.pause();
            let asked_at = Instant::now();
            let answer = self.inner.ask(request).await;
            *lock(&self.waiting) += asked_at.elapsed();
            self.progress.resume(paused);
            if !self.quiet {
                self.progress.line(&format!(
                    "    ? {} -> {}",
                    request.prompt,
                    answer
                        .as_deref()
                        .unwrap_or("(no answer: the default applies)")
                ));
            }
            answer
        })
    }
}

/// A real tool working in the sandbox.
struct SandboxTool {
    name: &'static str,
    root: PathBuf,
    spent: Arc<Mutex<Duration>>,
}

impl SandboxTool {
    fn run(&self, input: &Value) -> Result<Value, ToolError> {
        let path = |input: &Value| -> Result<PathBuf, ToolError> {
            let path = input["path"]
                .as_str()
                .ok_or_else(|| ToolError::new("`path` is missing"))?;
            Ok(self.root.join(path))
        };
        match self.name {
            "write_file" => {
                let target = path(input)?;
                if let Some(dir) = target.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| ToolError::new(e.to_string()))?;
                }
                let content = input["content"].as_str().unwrap_or_default();
                std::fs::write(&target, content).map_err(|e| ToolError::new(e.to_string()))?;
                Ok(json!({"success": true, "bytes_written": content.len()}))
            }
            "read_file" => std::fs::read_to_string(path(input)?)
                .map(Value::from)
                .map_err(|e| ToolError::new(e.to_string())),
            _ => {
                let command = input["command"].as_str().unwrap_or_default();
                let output = std::process::Command::new("sh")
                    .arg("-c")
                    .arg(command)
                    .current_dir(&self.root)
                    .output()
                    .map_err(|e| ToolError::new(e.to_string()))?;
                let text = String::from_utf8_lossy(&output.stdout).into_owned()
                    + &String::from_utf8_lossy(&output.stderr);
                if output.status.success() {
                    Ok(Value::from(text.trim_end()))
                } else {
                    Err(ToolError::new(text.trim_end()))
                }
            }
        }
    }
}

impl Tool for SandboxTool {
    fn name(&self) -> &str {
        self.name
    }

    fn call(&self, input: Value) -> BoxFuture<'_, Result<Value, ToolError>> {
        let started = Instant::now();
        let result = self.run(&input);
        *lock(&self.spent) += started.elapsed();
        Box::pin(async move { result })
    }
}

/// What the demo found, for its summary and its test.
#[derive(Debug, Default)]
pub struct Summary {
    /// Events emitted.
    pub events: usize,
    /// Denials (by hooks or by approval).
    pub denials: usize,
    /// Events whose data a hook modified.
    pub modifications: usize,
    /// Injections delivered.
    pub injections: usize,
    /// Approval questions put (remembered answers are not asked again).
    pub approvals_asked: usize,
    /// Lines written by the logging module.
    pub log_lines: usize,
    /// Time in hooks: the whole session but the tools and the wait for approval answers.
    pub hook_time: Duration,
    /// Time spent waiting for the answers to approval questions.
    pub waiting: Duration,
}

fn sandbox() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("hooks-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("policy.sh"), POLICY_SH)?;
    std::fs::write(dir.join("hooks.yaml"), DEMO_YAML)?;
    Ok(dir)
}

fn module_error(error: impl std::fmt::Display) -> String {
    error.to_string()
}

/// What the demo keeps from one part to the next.
struct Demo {
    root: PathBuf,
    log_path: PathBuf,
    registry: HookRegistry,
    session: HookSession,
    context: Arc<InMemoryContext>,
    transcript: Transcript,
    /// Approval questions actually put.
    asked: Arc<Mutex<usize>>,
    /// Time spent in the tools themselves, to tell the time in hooks apart.
    spent: Arc<Mutex<Duration>>,
    /// Time spent waiting for approval answers, likewise.
    waiting: Arc<Mutex<Duration>>,
}

/// Runs the demo; returns its summary.
pub async fn run(answers: Answers, json_output: bool) -> Result<Summary, String> {
    run_with(approval_provider(answers, json_output), json_output).await
}

/// Runs the demo with `provider` answering its approval questions.
async fn run_with(
    provider: Arc<dyn ApprovalProvider>,
    json_output: bool,
) -> Result<Summary, String> {
    let started = Instant::now();
    let colour = !json_output && hooks_std::terminal::colour_for(&std::io::stdout());
    // The spinner only on a terminal; elsewhere the printer just prints lines.
    let progress = Progress::new(std::io::stdout(), colour);
    let spinner = progress.spin(Duration::from_millis(100));
    let root = sandbox().map_err(|e| format!("cannot create the sandbox: {e}"))?;
    let registry = HookRegistry::new();
    registry.set_default_fields([(fields::SESSION_ID, json!("demo"))]);
    let events = record_events(&registry);
    let log_path = root.join("events.jsonl");
    mount_modules(&registry, &root, &log_path)?;

    let asked = Arc::new(Mutex::new(0));
    let waiting = Arc::new(Mutex::new(Duration::ZERO));
    let context = Arc::new(InMemoryContext::new());
    let approvals = Counted {
        inner: provider,
        asked: asked.clone(),
        waiting: waiting.clone(),
        quiet: json_output,
        progress: progress.clone(),
    };
    let session = HookSession::builder(registry.clone())
        .approvals(Arc::new(approvals))
        .context(context.clone())
        .display(if json_output {
            Arc::new(InMemoryDisplay::new()) as Arc<dyn DisplaySink>
        } else {
            Arc::new(
                TerminalDisplay::with_writer(Lines::new(progress.clone()), colour).indented("    "),
            )
        })
        .build();
    let mut demo = Demo {
        root,
        log_path,
        registry,
        session,
        context,
        transcript: Transcript {
            colour,
            json: json_output,
            progress,
            events,
            hook_time: Duration::ZERO,
            waiting: Duration::ZERO,
        },
        asked,
        spent: Arc::default(),
        waiting,
    };

    demo.transcript.say(&format!(
        "hooks demo: a scripted agent session in the sandbox {}",
        demo.root.display()
    ));
    demo.registry
        .emit("session:start", json!({ SOURCE: "startup" }))
        .await;
    let prompt =
        "Create app.py. The API key is sk-live-AbCdEfGhIjKlMnOpQrSt1234, deploy when done.";
    demo.play_prompt(prompt).await;
    demo.play_tool_calls().await;
    spinner.abort();
    demo.registry
        .emit(
            "prompt:complete",
            json!({ PROMPT: prompt, RESPONSE: "app.py is written; deploying is for you." }),
        )
        .await;
    demo.registry
        .emit("session:end", json!({ REASON: "done" }))
        .await;

    let tool_time = *lock(&demo.spent);
    let waiting = *lock(&demo.waiting);
    demo.transcript.waiting = waiting;
    demo.transcript.hook_time = started
        .elapsed()
        .saturating_sub(tool_time)
        .saturating_sub(waiting);
    Ok(demo.summarise())
}

/// Records every emit of `registry` as one JSON object, for the transcript and the summary.
fn record_events(registry: &HookRegistry) -> Arc<Mutex<Vec<Value>>> {
    let events: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = events.clone();
    registry.observe(move |event: &str, outcome: &EmitResult| {
        let mut record = json!({
            "event": event,
            "action": outcome.action().as_str(),
            "reason": outcome.result.reason,
            "approved_by": event.starts_with("approval:").then(|| outcome.data()["decided_by"].clone()),
        });
        if let (Some(record), Value::Object(provenance)) =
            (record.as_object_mut(), crate::provenance::to_json(outcome))
        {
            record.extend(provenance);
        }
        lock(&sink).push(record);
    });
    events
}

/// Mounts six of the standard modules (all but `prompt_gate`) and the demo hooks file on `registry`, for the whole demo.
fn mount_modules(registry: &HookRegistry, root: &Path, log_path: &Path) -> Result<(), String> {
    let reminder = ReminderModule::new(ReminderConfig::default()).map_err(module_error)?;
    reminder.set(["create app.py", "keep secrets out of the repository"]);
    // Guarding what the binary's hooks files guard.
    let mut protection = hooks_config::protection::self_protection();
    protection.extend(crate::protection::self_protection());
    let safety = SafetyModule::new(
        SafetyConfig {
            workspace: Some(root.to_path_buf()),
            ..SafetyConfig::default()
        },
        &protection,
    )
    .map_err(module_error)?;
    let linter = LinterModule::new(serde_json::from_value::<LinterConfig>(json!({
        "workspace": root,
        "tools": ["write_file"],
        "linters": {"py": ["sh", "-c", "if grep -n '[[:space:]]$' \"$1\"; then echo 'trailing whitespace'; exit 1; fi", "lint", "{file}"]}
    })).map_err(module_error)?)
    .map_err(module_error)?;
    let approval = ApprovalModule::new(
        serde_json::from_value::<ApprovalConfig>(
            json!({"tools": ["write_file"], "timeout_secs": 60}),
        )
        .map_err(module_error)?,
    )
    .map_err(module_error)?;
    let redaction = RedactionModule::new(RedactionConfig::default()).map_err(module_error)?;
    let logging = LoggingModule::new(LoggingConfig {
        path: log_path.to_path_buf(),
        ..LoggingConfig::default()
    })
    .map_err(module_error)?;
    let configured = hooks_config::load_file(&root.join("hooks.yaml")).map_err(module_error)?;
    let modules: [&dyn HookModule; 7] = [
        &safety,
        &redaction,
        &approval,
        &linter,
        &reminder,
        &logging,
        &configured,
    ];
    for module in modules {
        // Mounted for the whole demo: the handles are not needed to unmount.
        let _mounted = module.mount(registry).map_err(module_error)?;
    }
    Ok(())
}

/// Who answers the approval prompts: the terminal when there is one and the demo may ask,
/// else a script.
fn approval_provider(answers: Answers, json_output: bool) -> Arc<dyn ApprovalProvider> {
    let scripted = |answer: &str| -> Arc<dyn ApprovalProvider> {
        Arc::new(ScriptedApprovals::new(std::iter::repeat_n(
            ScriptedAnswer::Choose(answer.into()),
            8,
        )))
    };
    match answers {
        Answers::Interactive if std::io::stdin().is_terminal() && !json_output => {
            Arc::new(TerminalApprovals::stdio())
        }
        Answers::No => scripted("Deny"),
        _ => scripted("Allow always"),
    }
}

/// The tool calls of the scripted session: what the transcript says, which tool, its input.
fn tool_calls() -> [(&'static str, &'static str, Value); 8] {
    [
        (
            "the agent writes app.py (with trailing whitespace)",
            "write_file",
            json!({"path": "app.py", "content": "print('hello')   \n"}),
        ),
        (
            "the agent fixes app.py after the linter's feedback",
            "write_file",
            json!({"path": "app.py", "content": "print('hello')\n"}),
        ),
        (
            "the agent reads app.py back",
            "read_file",
            json!({"path": "app.py"}),
        ),
        (
            "the agent runs the program",
            "bash",
            json!({"command": "python3 app.py 2>/dev/null || cat app.py"}),
        ),
        (
            "the agent tries to clean up with rm -rf /",
            "bash",
            json!({"command": "rm -rf / --no-preserve-root"}),
        ),
        (
            "the agent tries to store the key in .env",
            "write_file",
            json!({"path": ".env", "content": "API_KEY=sk-live-AbCdEfGhIjKlMnOpQrSt1234\n"}),
        ),
        (
            "the agent tries to edit a generated file",
            "write_file",
            json!({"path": "generated/api.py", "content": "x = 1\n"}),
        ),
        (
            "the agent tries to deploy with git push",
            "bash",
            json!({"command": "git push origin main"}),
        ),
    ]
}

impl Demo {
    /// The user's prompt, then the model call it leads to (redacted, with the reminder).
    async fn play_prompt(&self, prompt: &str) {
        self.transcript.step(&format!("the user: {prompt:?}"));
        let Proceed::Yes(prompt) = self.session.submit_prompt(prompt).await else {
            return;
        };
        let request =
            json!({"model": "scripted", "messages": [{"role": "user", "content": prompt}]});
        if let Proceed::Yes(call) = self.session.provider_request(request).await {
            self.transcript.say(&format!(
                "    the model receives: {}",
                call.request["messages"][0]["content"]
            ));
            for reminder in &call.ephemeral {
                self.transcript.say(&format!(
                    "    + ephemeral reminder for this call only: {:?}",
                    reminder.content
                ));
            }
        }
    }

    /// Every scripted tool call through the session, each told in the transcript.
    async fn play_tool_calls(&self) {
        let progress = &self.transcript.progress;
        for (what, tool, input) in tool_calls() {
            self.transcript.step(what);
            let tool = SandboxTool {
                name: tool,
                root: self.root.clone(),
                spent: self.spent.clone(),
            };
            let seen = self.recorded().len();
            progress.wait("running the hooks and the tool");
            let outcome = self.session.run_tool(&tool, input).await;
            progress.done();
            for approval in approvals_since(&self.recorded()[seen..]) {
                self.transcript.say(&format!("    approval {approval}"));
            }
            self.tell(&outcome);
        }
    }

    /// What became of one tool call, as the transcript says it.
    fn tell(&self, outcome: &ToolCallOutcome) {
        let transcript = &self.transcript;
        let verdict = match &outcome.status {
            ToolCallStatus::Ran { .. } => transcript.paint("ran", "32"),
            ToolCallStatus::Blocked(blocked) => {
                transcript.paint(&format!("BLOCKED, {blocked}"), "1;31")
            }
            ToolCallStatus::Withheld { reason } => format!("output withheld: {reason}"),
            ToolCallStatus::Errored { error } => format!("failed: {error}"),
            other => format!("{other:?}"),
        };
        transcript.say(&format!("    => {verdict}"));
        for audit in &outcome.injections {
            transcript.say(&format!(
                "    + the agent is told: {}",
                audit.text.replace('\n', " | ")
            ));
        }
        transcript.say(&format!(
            "    the agent sees: {}",
            outcome.agent_message().replace('\n', " | ")
        ));
    }

    /// The events recorded so far.
    fn recorded(&self) -> Vec<Value> {
        lock(&self.transcript.events).clone()
    }

    /// Counts what happened and prints the summary (or the events and summary as JSON).
    fn summarise(&self) -> Summary {
        let recorded = self.recorded();
        let stored = self.context.messages();
        let ephemeral_stored = stored.iter().any(|m| m.content.contains("create app.py"));
        let summary = Summary {
            events: recorded.len(),
            denials: recorded.iter().filter(|e| e["action"] == "deny").count()
                + stored
                    .iter()
                    .filter(|m| m.content.contains("not approved"))
                    .count(),
            modifications: recorded
                .iter()
                .filter(|e| e["modified_by"].as_array().is_some_and(|m| !m.is_empty()))
                .count(),
            injections: self.session.audit_log().len(),
            approvals_asked: *lock(&self.asked),
            log_lines: std::fs::read_to_string(&self.log_path)
                .map(|t| t.lines().count())
                .unwrap_or(0),
            hook_time: self.transcript.hook_time,
            waiting: self.transcript.waiting,
        };
        if self.transcript.json {
            for event in &recorded {
                println!("{event}");
            }
            println!(
                "{}",
                json!({"summary": {
                    "events": summary.events, "denials": summary.denials, "modifications": summary.modifications,
                    "injections": summary.injections, "approvals_asked": summary.approvals_asked,
                    "log_lines": summary.log_lines, "log": self.log_path, "ephemeral_in_history": ephemeral_stored,
                    "hook_ms": millis(summary.hook_time), "waiting_ms": millis(summary.waiting)
                }})
            );
        } else {
            self.print_summary(&summary, ephemeral_stored);
        }
        summary
    }

    fn print_summary(&self, summary: &Summary, ephemeral_stored: bool) {
        let transcript = &self.transcript;
        transcript.say(&format!(
            "\nthe ephemeral reminder is {} the stored history",
            if ephemeral_stored {
                "IN (unexpected)"
            } else {
                "not in"
            }
        ));
        transcript.say(&format!(
            "every event was logged to {}",
            self.log_path.display()
        ));
        transcript.say("\nsummary");
        for (label, value) in [
            ("events emitted", summary.events.to_string()),
            ("denials", summary.denials.to_string()),
            ("modifications", summary.modifications.to_string()),
            ("injections", summary.injections.to_string()),
            (
                "approval questions asked",
                summary.approvals_asked.to_string(),
            ),
            ("log lines", summary.log_lines.to_string()),
            (
                "time in hooks",
                format!("{:.1} ms", millis(transcript.hook_time)),
            ),
            (
                "waiting for you",
                format!("{:.1} ms", millis(transcript.waiting)),
            ),
        ] {
            transcript.say(&format!("  {label:<26} {value:>10}"));
        }
    }
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// The approvals granted or denied among `events`, as "granted by user" lines.
fn approvals_since(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["event"] == "approval:granted" || e["event"] == "approval:denied")
        .map(|e| {
            format!(
                "{} by {}",
                e["event"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_start_matches("approval:"),
                e["approved_by"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers "Allow always", after a user's thinking time.
    struct Slow(Duration);

    impl ApprovalProvider for Slow {
        fn ask<'a>(
            &'a self,
            _request: &'a ApprovalRequest,
        ) -> BoxFuture<'a, Result<String, ApprovalError>> {
            Box::pin(async move {
                tokio::time::sleep(self.0).await;
                Ok("Allow always".to_owned())
            })
        }
    }

    #[test]
    fn the_wait_for_an_approval_is_not_time_in_hooks() {
        let thinking = Duration::from_secs(2);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");

        let summary = runtime
            .block_on(run_with(Arc::new(Slow(thinking)), true))
            .expect("the demo runs");

        assert_eq!(summary.approvals_asked, 1);
        assert!(summary.waiting >= thinking, "{summary:?}");
        // The hooks of the demo take milliseconds (a few hundred in a debug build at most).
        assert!(summary.hook_time < thinking, "{summary:?}");
    }
}
