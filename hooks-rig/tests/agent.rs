//! A real rig agent, a scripted model and real tools, with the hooks attached.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::sync::{Arc, Mutex};

use hooks_core::session::injection::{Disposition, InjectionPolicy, Oversize};
use hooks_core::session::{HookSession, ScriptedApprovals};
use hooks_core::{HookRegistry, HookResult, InjectionRole};
use hooks_rig::RigHooks;
use rig_agent::AgentBuilder;
use rig_agent::agent::PromptResponse;
use serde_json::{Value, json};

use support::{DeleteFile, Flaky, ReadFile, ScriptedModel, Turn, lock};

fn call(id: &'static str, tool: &'static str, args: Value) -> Turn {
    Turn::Call { id, tool, args }
}

/// Runs `prompt` on an agent with the three tools and `hooks`.
async fn run(
    model: &ScriptedModel,
    hooks: RigHooks,
    tools: (&ReadFile, &DeleteFile, &Flaky),
    prompt: &str,
) -> Result<PromptResponse, String> {
    let agent = AgentBuilder::new(model.model())
        .name("tester")
        .tool(tools.0.clone())
        .tool(tools.1.clone())
        .tool(tools.2.clone())
        .add_hook(hooks)
        .build();
    agent
        .prompt(prompt)
        .max_turns(6)
        .await
        .map_err(|error| error.to_string())
}

/// Everything the hooks saw, as (event, data), in order.
type Seen = Arc<Mutex<Vec<(String, Value)>>>;

fn record_all(registry: &HookRegistry, events: &[&str]) -> Seen {
    let seen: Seen = Arc::default();
    for event in events {
        let seen = seen.clone();
        registry
            .register(
                event,
                move |event: &str, data: &Value| {
                    lock(&seen).push((event.to_owned(), data.clone()));
                    async { HookResult::cont() }
                },
                1000,
                "recorder",
            )
            .unwrap();
    }
    seen
}

#[tokio::test]
async fn a_denied_tool_never_runs_and_the_model_reads_the_reason() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let deny = data["tool_name"] == "delete_file";
                async move {
                    if deny {
                        HookResult::deny("deleting files is not allowed")
                    } else {
                        HookResult::cont()
                    }
                }
            },
            0,
            "no_deletes",
        )
        .unwrap();
    let model = ScriptedModel::new([
        call("c1", "delete_file", json!({"path": "/etc/passwd"})),
        Turn::Text("understood"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    let response = run(&model, RigHooks::new(registry), tools, "clean up").await;

    assert_eq!(response.unwrap().output(), "understood");
    assert!(tools.1.calls().is_empty(), "the denied tool never ran");
    let second = model.transcript(1);
    let result = second.last().unwrap();
    assert!(result.contains("[result c1]"), "{second:?}");
    assert!(
        result.contains("deleting files is not allowed"),
        "the model reads the reason: {result}"
    );
}

#[tokio::test]
async fn rewritten_arguments_reach_the_tool() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_input"]["path"] = json!("/sandbox/notes.txt");
                async move { HookResult::modify(data) }
            },
            0,
            "sandbox",
        )
        .unwrap();
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "/home/me/notes.txt"})),
        Turn::Text("done"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    run(&model, RigHooks::new(registry), tools, "read my notes")
        .await
        .unwrap();

    assert_eq!(tools.0.calls(), vec![json!({"path": "/sandbox/notes.txt"})]);
}

#[tokio::test]
async fn tool_events_carry_the_call_and_the_runs_ids() {
    let registry = HookRegistry::new();
    let seen = record_all(
        &registry,
        &[
            "prompt:submit",
            "provider:request",
            "tool:pre",
            "tool:post",
            "tool:error",
            "prompt:complete",
        ],
    );
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "a.txt"})),
        call("c2", "flaky", json!({})),
        Turn::Text("all done"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    run(&model, RigHooks::new(registry), tools, "go")
        .await
        .unwrap();

    let seen = lock(&seen).clone();
    let names: Vec<&str> = seen.iter().map(|(event, _)| event.as_str()).collect();
    assert_eq!(
        names,
        [
            "prompt:submit",
            "provider:request",
            "tool:pre",
            "tool:post",
            "provider:request",
            "tool:pre",
            "tool:error",
            "provider:request",
            "prompt:complete"
        ]
    );
    let run_id = &seen[0].1["run_id"];
    assert!(run_id.is_string());
    for (event, data) in &seen {
        assert_eq!(&data["run_id"], run_id, "{event} carries the run id");
        assert_eq!(data["agent_name"], "tester", "{event}");
    }
    assert_eq!(seen[0].1["prompt"], "go");
    let pre = &seen[2].1;
    assert_eq!(pre["tool_name"], "read_file");
    assert_eq!(pre["tool_input"], json!({"path": "a.txt"}));
    assert_eq!(pre["tool_call_id"], "c1");
    assert_eq!(pre["turn"], 1);
    assert_eq!(seen[3].1["tool_result"], "file contents");
    assert_eq!(
        seen[3].1["tool_call_id"], "c1",
        "tool:post names the same call"
    );
    assert_eq!(seen[6].1["error"], "disk on fire");
    assert_eq!(seen[6].1["tool_call_id"], "c2");
    assert_eq!(seen[7].1["turn"], 3);
    assert_eq!(seen[8].1["response"], "all done");
    let history = &seen[4].1["request"]["history"];
    assert_eq!(history.as_array().unwrap().len(), 2, "{history}");
}

#[tokio::test]
async fn a_tool_post_rewrite_is_what_the_model_reads() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:post",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["tool_result"] = json!("[redacted]");
                async move { HookResult::modify(data) }
            },
            0,
            "redact",
        )
        .unwrap();
    registry
        .register(
            "tool:error",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["error"] = json!("the disk is busy, try later");
                async move { HookResult::modify(data) }
            },
            0,
            "explain",
        )
        .unwrap();
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "secrets.txt"})),
        call("c2", "flaky", json!({})),
        Turn::Text("ok"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    run(&model, RigHooks::new(registry), tools, "go")
        .await
        .unwrap();

    let after_read = model.transcript(1).join("\n");
    assert!(after_read.contains("[redacted]"), "{after_read}");
    assert!(!after_read.contains("file contents"), "{after_read}");
    let after_flaky = model.transcript(2).last().unwrap().clone();
    assert!(
        after_flaky.contains("the disk is busy, try later"),
        "{after_flaky}"
    );
    assert!(!after_flaky.contains("disk on fire"), "{after_flaky}");
}

#[tokio::test]
async fn a_tool_post_deny_withholds_the_output() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:post",
            |_: &str, _: &Value| async { HookResult::deny("it contains a key") },
            0,
            "withhold",
        )
        .unwrap();
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "secrets.txt"})),
        Turn::Text("ok"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    run(&model, RigHooks::new(registry), tools, "go")
        .await
        .unwrap();

    let result = model.transcript(1).last().unwrap().clone();
    assert!(result.contains("withheld: it contains a key"), "{result}");
    assert!(!result.contains("file contents"), "{result}");
}

/// Injects once, on the first `read_file` result: a persistent lint note (as the user) and
/// an ephemeral reminder (as the system).
fn inject_on_first_read(registry: &HookRegistry) {
    registry
        .register(
            "tool:post",
            |_: &str, data: &Value| {
                let first = data["tool_input"]["path"] == "first.txt";
                async move {
                    if first {
                        HookResult::inject("lint: line 3 has trailing whitespace")
                            .with_role(InjectionRole::User)
                    } else {
                        HookResult::cont()
                    }
                }
            },
            0,
            "lint",
        )
        .unwrap();
    registry
        .register(
            "tool:post",
            |_: &str, data: &Value| {
                let first = data["tool_input"]["path"] == "first.txt";
                async move {
                    if first {
                        HookResult::inject("reminder: keep answers short").with_ephemeral(true)
                    } else {
                        HookResult::cont()
                    }
                }
            },
            1,
            "reminder",
        )
        .unwrap();
}

#[tokio::test]
async fn an_injection_reaches_the_next_request_and_an_ephemeral_one_only_that_request() {
    let registry = HookRegistry::new();
    inject_on_first_read(&registry);
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "first.txt"})),
        call("c2", "read_file", json!({"path": "second.txt"})),
        Turn::Text("done"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );
    let hooks = RigHooks::new(registry);

    let response = run(&model, hooks.clone(), tools, "read both")
        .await
        .unwrap();

    let first = model.transcript(0).join("\n");
    assert!(!first.contains("lint:"), "nothing before the tool ran");
    let second = model.transcript(1);
    assert_eq!(
        second,
        [
            // rig merges adjacent messages of the same role into one.
            "user: read both | lint: line 3 has trailing whitespace",
            "system: reminder: keep answers short",
            r#"assistant: [call read_file] {"path":"first.txt"}"#,
            r#"user: [result c1] [{"type":"text","text":"file contents"}]"#,
        ],
        "injections in their roles, the call and its result kept together"
    );
    let third = model.transcript(2);
    assert_eq!(
        third[0], "user: read both | lint: line 3 has trailing whitespace",
        "the persistent injection stays: {third:?}"
    );
    assert!(
        !third.iter().any(|line| line.contains("reminder:")),
        "the ephemeral injection was for one request only: {third:?}"
    );
    let audits = hooks.audit_log();
    assert_eq!(audits.len(), 2);
    assert!(audits.iter().all(|audit| audit.disposition.delivered()));
    assert!(
        !response
            .messages()
            .iter()
            .any(|message| support::describe(message).contains("reminder:")),
        "rig's committed history holds no ephemeral injection"
    );
}

#[tokio::test]
async fn the_injection_policy_applies_its_size_limit_and_budget() {
    let registry = HookRegistry::new();
    registry
        .register(
            "prompt:submit",
            |_: &str, _: &Value| async { HookResult::inject("x".repeat(100)) },
            0,
            "too_long",
        )
        .unwrap();
    registry
        .register(
            "prompt:submit",
            |_: &str, _: &Value| async { HookResult::inject("fits") },
            1,
            "short",
        )
        .unwrap();
    registry
        .register(
            "prompt:submit",
            |_: &str, _: &Value| async { HookResult::inject("y".repeat(40)) },
            2,
            "over_budget",
        )
        .unwrap();
    let hooks = RigHooks::new(
        HookSession::builder(registry).injection_policy(InjectionPolicy {
            size_limit: Some(50),
            oversize: Oversize::Reject,
            budget_per_turn: Some(5),
        }),
    );
    let model = ScriptedModel::new([Turn::Text("hi")]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    run(&model, hooks.clone(), tools, "hello").await.unwrap();

    assert_eq!(
        model.transcript(0),
        ["system: fits", "user: hello"],
        "only the injection within the limits reaches the model"
    );
    let dispositions: Vec<Disposition> = hooks
        .audit_log()
        .into_iter()
        .map(|audit| audit.disposition)
        .collect();
    assert!(matches!(
        dispositions[..],
        [
            Disposition::RejectedTooLarge { .. },
            Disposition::Delivered,
            Disposition::RejectedBudgetSpent { .. }
        ]
    ));
}

#[tokio::test]
async fn a_users_denial_skips_the_tool_as_not_approved_by_the_user() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::ask("Delete scratch/x?") },
            0,
            "confirm",
        )
        .unwrap();
    let approvals = Arc::new(ScriptedApprovals::choosing(["Deny"]));
    let hooks = RigHooks::new(HookSession::builder(registry).approvals(approvals.clone()));
    let model = ScriptedModel::new([
        call("c1", "delete_file", json!({"path": "scratch/x"})),
        Turn::Text("ok, I will not"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    run(&model, hooks, tools, "delete it").await.unwrap();

    assert!(tools.1.calls().is_empty(), "the user said no");
    assert_eq!(approvals.asked()[0].prompt, "Delete scratch/x?");
    let result = model.transcript(1).last().unwrap().clone();
    assert!(result.contains("not approved (the user)"), "{result}");
}

#[tokio::test]
async fn allow_always_is_remembered_for_the_session() {
    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async {
                HookResult::ask("Read files?").with_approval_options(["Allow always", "Deny"])
            },
            0,
            "confirm",
        )
        .unwrap();
    let approvals = Arc::new(ScriptedApprovals::choosing(["Allow always"]));
    let hooks = RigHooks::new(HookSession::builder(registry).approvals(approvals.clone()));
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "a"})),
        call("c2", "read_file", json!({"path": "b"})),
        Turn::Text("read both"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    run(&model, hooks, tools, "go").await.unwrap();

    assert_eq!(tools.0.calls().len(), 2, "both calls ran");
    assert_eq!(approvals.asked().len(), 1, "asked once, then remembered");
}

#[tokio::test]
async fn prompt_submit_rewrites_the_prompt_or_stops_the_run() {
    let registry = HookRegistry::new();
    registry
        .register(
            "prompt:submit",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                let prompt = data["prompt"].as_str().unwrap_or_default().to_owned();
                let result = if prompt.contains("password") {
                    HookResult::deny("prompts must not contain passwords")
                } else {
                    data["prompt"] = json!(format!("{prompt} (answer in French)"));
                    HookResult::modify(data)
                };
                async move { result }
            },
            0,
            "prompt_policy",
        )
        .unwrap();
    let hooks = RigHooks::new(registry);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    let model = ScriptedModel::new([Turn::Text("bonjour")]);
    run(&model, hooks.clone(), tools, "say hello")
        .await
        .unwrap();
    assert_eq!(model.transcript(0), ["user: say hello (answer in French)"]);

    let model = ScriptedModel::new([Turn::Text("never sent")]);
    let error = run(&model, hooks, tools, "my password is hunter2")
        .await
        .unwrap_err();
    assert!(
        error.contains("prompts must not contain passwords"),
        "{error}"
    );
    assert!(model.requests().is_empty(), "the model was never called");
}

#[tokio::test]
async fn provider_request_can_stop_the_run_or_replace_the_history() {
    let registry = HookRegistry::new();
    registry
        .register(
            "provider:request",
            |_: &str, data: &Value| {
                let turn = data["turn"].as_u64();
                let mut data = data.clone();
                let result = if turn == Some(2) {
                    HookResult::deny("one model call per prompt")
                } else {
                    // Redact the history (rig's own message JSON).
                    let text = data["request"]["history"].to_string();
                    let redacted: Value =
                        serde_json::from_str(&text.replace("sk-123", "[key]")).unwrap();
                    data["request"]["history"] = redacted;
                    HookResult::modify(data)
                };
                async move { result }
            },
            0,
            "budget",
        )
        .unwrap();
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "a"})),
        Turn::Text("never sent"),
    ]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );
    let agent = AgentBuilder::new(model.model())
        .tool(tools.0.clone())
        .add_hook(RigHooks::new(registry))
        .build();
    let history = vec![rig_agent::core::message::Message::user("my key is sk-123")];

    let error = agent
        .prompt("go")
        .history(history)
        .max_turns(4)
        .await
        .unwrap_err()
        .to_string();

    assert!(error.contains("one model call per prompt"), "{error}");
    assert_eq!(model.requests().len(), 1);
    // rig merges the history's user message and the prompt into one.
    assert_eq!(model.transcript(0), ["user: my key is [key] | go"]);
}

#[tokio::test]
async fn modifications_that_cannot_be_applied_fail_closed() {
    let registry = HookRegistry::new();
    registry
        .register(
            "provider:request",
            |_: &str, data: &Value| {
                let mut data = data.clone();
                data["request"]["prompt"] = json!("something else");
                async move { HookResult::modify(data) }
            },
            0,
            "rewrites_the_prompt",
        )
        .unwrap();
    let model = ScriptedModel::new([Turn::Text("never sent")]);
    let tools = (
        &ReadFile::default(),
        &DeleteFile::default(),
        &Flaky::default(),
    );

    let error = run(&model, RigHooks::new(registry), tools, "go")
        .await
        .unwrap_err();

    assert!(error.contains("changed `request.prompt`"), "{error}");
    assert!(
        model.requests().is_empty(),
        "the unchanged prompt was not sent"
    );

    let registry = HookRegistry::new();
    registry
        .register(
            "tool:pre",
            |_: &str, _: &Value| async { HookResult::modify(json!({"tool_name": "read_file"})) },
            0,
            "drops_the_input",
        )
        .unwrap();
    let model = ScriptedModel::new([
        call("c1", "read_file", json!({"path": "a"})),
        Turn::Text("ok"),
    ]);

    run(&model, RigHooks::new(registry), tools, "go")
        .await
        .unwrap();

    assert!(tools.0.calls().is_empty(), "no input, no call");
    let result = model.transcript(1).last().unwrap().clone();
    assert!(result.contains("left no `tool_input`"), "{result}");
}
