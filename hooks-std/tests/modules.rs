//! The redaction, approval and reminder modules: config parsing, decisions on realistic data,
//! bad input, and the behavioural suite.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use hooks_core::session::ToolCallStatus;
use hooks_core::session::injection::Placement;
use hooks_core::{HookAction, HookModule, HookRegistry};
use hooks_std::approval::{ApprovalConfig, ApprovalModule};
use hooks_std::prompt_gate::{PromptGateConfig, PromptGateModule};
use hooks_std::redaction::{RedactionConfig, RedactionModule};
use hooks_std::reminder::{ReminderConfig, ReminderModule};
use hooks_std::state_file::FileState;
use hooks_testing::{MockTool, TestCoordinator, hook_behaviour_tests};
use serde_json::{Value, json};

// Redaction.

fn redaction() -> RedactionModule {
    RedactionModule::new(RedactionConfig::default()).unwrap()
}

#[test]
fn every_builtin_secret_format_is_replaced() {
    // Keys built from parts, random-looking: a documented example (`...EXAMPLE`) or a
    // sequential one (`abcdef...0123`) is a look-alike the module leaves alone.
    let aws = format!("AKIA{}", "Q7RT2MVX9LPZK4NS");
    let github = format!("ghp_{}", "q7Rt2mVx9LpZk4Ns8WcYb3Hd6Jf1Gh5Kl0Mn");
    let samples = [
        ("openai_key", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234"),
        ("anthropic_key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"),
        ("stripe_key", "sk_live_51HxAbCdEfGhIjKlMn"),
        ("aws_access_key", aws.as_str()),
        ("github_token", github.as_str()),
        ("slack_token", "xoxb-123456789012-abcdefghij"),
        ("google_api_key", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234"),
        (
            "jwt",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ),
        ("bearer_token", "Bearer abcdef1234567890.token"),
        ("email", "jane.doe@example.com"),
    ];
    for (name, secret) in samples {
        let (clean, count) = redaction()
            .redact_text(&format!("before {secret} after"))
            .unwrap_or_else(|| panic!("{name} was not found in {secret}"));
        assert_eq!(count, 1, "{name}");
        assert_eq!(clean, format!("before [REDACTED:{name}] after"), "{name}");
    }
    // A block whose body is key material (a placeholder body stays).
    let key = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA{}\n{}\n-----END RSA PRIVATE KEY-----",
        "q7Rt2mVx9LpZk4Ns", "8WcYb3Hd6Jf1Gh5K/w+Z"
    );
    let (clean, _) = redaction()
        .redact_text(&format!("key:\n{key}\ndone"))
        .unwrap();
    assert_eq!(clean, "key:\n[REDACTED:private_key]\ndone");
}

#[test]
fn secret_fields_are_replaced_whole_and_nested_data_is_walked() {
    let data = json!({
        "request": {
            "headers": {"Authorization": "Basic dXNlcjpwYXNz", "X-Trace": "abc"},
            "messages": [{"role": "user", "content": "my key is sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"}],
            "api-key": 12345
        },
        "untouched": [1, true, null]
    });
    let (clean, count) = redaction().redact(&data).unwrap();
    assert_eq!(count, 3);
    assert_eq!(clean["request"]["headers"]["Authorization"], "[REDACTED]");
    assert_eq!(clean["request"]["headers"]["X-Trace"], "abc");
    assert_eq!(
        clean["request"]["messages"][0]["content"],
        "my key is [REDACTED:anthropic_key]"
    );
    assert_eq!(clean["request"]["api-key"], "[REDACTED]");
    assert_eq!(clean["untouched"], json!([1, true, null]));
}

#[test]
fn clean_data_is_left_alone() {
    for data in [
        json!({"prompt": "list the files in src/"}),
        json!(null),
        json!([1, 2]),
        json!("plain"),
    ] {
        assert_eq!(redaction().redact(&data), None, "{data}");
    }
}

#[test]
fn passwords_in_urls_are_redacted_whatever_the_scheme() {
    let redaction = redaction();
    for (text, clean) in [
        (
            "postgres://admin:hunter2@db/prod",
            "postgres://admin:[REDACTED:url_password]@db/prod",
        ),
        (
            "git clone https://ci-bot:ghx-9f8e7d6c@git.example.net/team/app.git",
            "git clone https://ci-bot:[REDACTED:url_password]@git.example.net/team/app.git",
        ),
        (
            "MYSQL=mysql://root:s3cret!@127.0.0.1:3306/shop",
            "MYSQL=mysql://root:[REDACTED:url_password]@127.0.0.1:3306/shop",
        ),
        (
            "redis://:r3d1s-pass@cache:6379/0",
            "redis://:[REDACTED:url_password]@cache:6379/0",
        ),
        (
            "AMQP_URL=\"amqp://guest:guest@rabbit.local:5672/vhost\"",
            "AMQP_URL=\"amqp://guest:[REDACTED:url_password]@rabbit.local:5672/vhost\"",
        ),
        // A password holding an unescaped `@` goes whole, up to the host.
        (
            "postgresql+psycopg2://app:p@ss@db.internal/app",
            "postgresql+psycopg2://app:[REDACTED:url_password]@db.internal/app",
        ),
        (
            "jdbc:mysql://u:pw@h/db?ssl=true and mongodb+srv://u2:pw2@cluster0.example.net",
            "jdbc:mysql://u:[REDACTED:url_password]@h/db?ssl=true and mongodb+srv://u2:[REDACTED:url_password]@cluster0.example.net",
        ),
    ] {
        let (redacted, _) = redaction
            .redact_text(text)
            .unwrap_or_else(|| panic!("nothing redacted in {text}"));
        assert_eq!(redacted, clean);
    }
    let (_, count) = redaction
        .redact_text("postgres://admin:hunter2@db.internal:5432/prod")
        .unwrap();
    assert_eq!(count, 1, "the password is one secret, not an email too");

    // URLs without a password, and emails under their own switch, are not URL credentials.
    let no_emails = RedactionModule::new(RedactionConfig {
        emails: false,
        ..RedactionConfig::default()
    })
    .unwrap();
    for plain in [
        "see https://docs.rs/regex/latest/regex/ and http://localhost:8080/health",
        "https://example.com/search?q=a:b@c",
        "ssh://git@github.com/team/app.git",
        "ask ada@example.com or https://host:8443/path",
        "time 12:30 at user@host",
    ] {
        assert_eq!(no_emails.redact_text(plain), None, "{plain}");
    }
}

#[test]
fn redaction_config_rules_and_errors() {
    let config: RedactionConfig = serde_json::from_value(json!({
        "emails": false,
        "patterns": [{"name": "employee_id", "regex": "EMP-[0-9]{6}"}]
    }))
    .unwrap();
    let custom = RedactionModule::new(config).unwrap();
    let (clean, _) = custom
        .redact_text("EMP-123456 wrote to jane@example.com")
        .unwrap();
    assert_eq!(clean, "[REDACTED:employee_id] wrote to jane@example.com");

    let unknown = serde_json::from_value::<RedactionConfig>(json!({"pattern": []})).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown field `pattern`"),
        "{unknown}"
    );
    let bad: RedactionConfig =
        serde_json::from_value(json!({"patterns": [{"name": "x", "regex": "("}]})).unwrap();
    assert!(
        RedactionModule::new(bad)
            .unwrap_err()
            .to_string()
            .contains("`x` does not compile")
    );
    let bad_event: RedactionConfig =
        serde_json::from_value(json!({"events": ["tool:prre"]})).unwrap();
    assert!(
        RedactionModule::new(bad_event)
            .unwrap_err()
            .to_string()
            .contains("did you mean `tool:pre`")
    );
}

#[tokio::test]
async fn mounted_redaction_cleans_the_model_request_and_says_how_much() {
    let mut test = TestCoordinator::new();
    test.mount(&redaction()).unwrap();

    let cleared = test
        .session()
        .provider_request(json!({"messages": [{"role": "user", "content": "deploy with sk-live-AbCdEfGhIjKlMnOpQrSt"}]}))
        .await;

    let hooks_core::session::Proceed::Yes(request) = cleared else {
        panic!("{cleared:?}")
    };
    assert_eq!(
        request.request["messages"][0]["content"],
        "deploy with [REDACTED:openai_key]"
    );
    let outcome = test.recorder().assert_emitted("provider:request");
    assert_eq!(outcome.action(), HookAction::Modify);
    assert_eq!(
        outcome.outcome.result.reason.as_deref(),
        Some("redacted 1 secret(s)")
    );
}

hook_behaviour_tests!(redaction_behaviour, redaction());

// Approval.

fn approval(tools: &[&str]) -> ApprovalModule {
    ApprovalModule::new(serde_json::from_value(json!({ "tools": tools })).unwrap()).unwrap()
}

#[test]
fn listed_tools_are_asked_about_with_a_readable_prompt() {
    let approval = approval(&["Bash", "deploy"]);
    let bash =
        approval.decide(&json!({"tool_name": "bash", "tool_input": {"command": "make release"}}));
    assert_eq!(bash.action, HookAction::AskUser);
    assert_eq!(
        bash.approval_prompt.as_deref(),
        Some("Allow `bash` with `make release`?")
    );
    assert_eq!(
        bash.effective_approval_options(),
        ["Allow once", "Allow always", "Deny"]
    );
    assert_eq!(bash.approval_default, hooks_core::ApprovalDefault::Deny);

    let long = "x".repeat(500);
    let deploy = approval.decide(&json!({"tool_name": "deploy", "tool_input": {"notes": long}}));
    let prompt = deploy.approval_prompt.unwrap();
    assert!(
        prompt.chars().count() < 240 && prompt.contains('…'),
        "{prompt}"
    );

    let other = approval.decide(&json!({"tool_name": "read_file", "tool_input": {"path": "a"}}));
    assert_eq!(other.action, HookAction::Continue);
    assert_eq!(
        approval.decide(&json!({"tool_name": 7})).action,
        HookAction::Continue
    );
}

#[test]
fn approval_config_is_checked() {
    let config: ApprovalConfig = serde_json::from_value(json!({
        "tools": ["*"], "options": ["Yes", "No"], "default": "allow", "timeout_secs": 30
    }))
    .unwrap();
    let every = ApprovalModule::new(config).unwrap();
    let asked = every.decide(&json!({"tool_name": "anything", "tool_input": {}}));
    assert_eq!(asked.effective_approval_options(), ["Yes", "No"]);
    assert_eq!(asked.approval_timeout, 30.0);

    let unknown = serde_json::from_value::<ApprovalConfig>(json!({"tool": ["x"]})).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown field `tool`"),
        "{unknown}"
    );
    let bad_default =
        serde_json::from_value::<ApprovalConfig>(json!({"default": "maybe"})).unwrap_err();
    assert!(
        bad_default.to_string().contains("`approval_default`"),
        "{bad_default}"
    );
    let zero: ApprovalConfig = serde_json::from_value(json!({"timeout_secs": 0})).unwrap();
    assert!(
        ApprovalModule::new(zero)
            .unwrap_err()
            .to_string()
            .contains("`timeout_secs`")
    );
}

#[tokio::test]
async fn mounted_approval_asks_once_when_the_user_allows_always() {
    let mut test = TestCoordinator::new();
    test.mount(&approval(&["deploy"])).unwrap();
    test.answer("Allow always");
    let deploy = MockTool::new("deploy");

    let first = test.run_tool(&deploy, json!({"env": "prod"})).await;
    let second = test.run_tool(&deploy, json!({"env": "prod"})).await;

    assert!(matches!(first.status, ToolCallStatus::Ran { .. }));
    assert!(matches!(second.status, ToolCallStatus::Ran { .. }));
    assert_eq!(test.approvals().asked().len(), 1);
    assert_eq!(deploy.calls(), 2);
}

hook_behaviour_tests!(approval_behaviour, approval(&["bash", "write_file"]));

// Reminder.

fn reminder() -> ReminderModule {
    let reminder = ReminderModule::new(ReminderConfig::default()).unwrap();
    reminder.set(["add the parser test", "fix empty input"]);
    reminder
}

#[tokio::test]
async fn the_reminder_reaches_each_model_call_but_never_the_history() {
    let reminder = reminder();
    let mut test = TestCoordinator::new();
    test.mount(&reminder).unwrap();

    let first = test
        .session()
        .provider_request(json!({"messages": []}))
        .await;
    reminder.set(Vec::<String>::new());
    let second = test
        .session()
        .provider_request(json!({"messages": []}))
        .await;

    let hooks_core::session::Proceed::Yes(first) = first else {
        panic!("{first:?}")
    };
    assert_eq!(first.ephemeral.len(), 1);
    assert_eq!(
        first.ephemeral[0].content,
        "Current todos:\n- add the parser test\n- fix empty input"
    );
    let hooks_core::session::Proceed::Yes(second) = second else {
        panic!("{second:?}")
    };
    assert!(second.ephemeral.is_empty(), "an empty list injects nothing");
    assert!(test.context().messages().is_empty(), "never stored");
    assert_eq!(
        test.session().audit_log()[0].placement,
        Placement::NextModelCall
    );
}

#[test]
fn long_lists_are_cut_and_counted() {
    let config: ReminderConfig =
        serde_json::from_value(json!({"title": "Status", "max_items": 2})).unwrap();
    let reminder = ReminderModule::new(config).unwrap();
    reminder.set(["a", "b", "c", "d"]);
    assert_eq!(
        reminder.text().as_deref(),
        Some("Status:\n- a\n- b\n(and 2 more)")
    );
    let unknown = serde_json::from_value::<ReminderConfig>(json!({"titel": "x"})).unwrap_err();
    assert!(unknown.to_string().contains("unknown field `titel`"));
}

#[tokio::test]
async fn each_session_has_its_own_list_and_a_file_store_keeps_it_for_the_next_process() {
    // Not made yet: the file store makes it.
    let dir = hooks_testing::scratch_dir("reminder", "store").join("store");
    let config: ReminderConfig =
        serde_json::from_value(json!({"events": ["prompt:submit"], "todo_tool": "TodoWrite"}))
            .unwrap();
    // One process: the agent writes its todos with its todo tool.
    let first = HookRegistry::new();
    first.set_state_backend(FileState::new(&dir));
    let _first = ReminderModule::new(config.clone())
        .unwrap()
        .mount(&first)
        .unwrap();
    let todos = json!({"session_id": "s1", "tool_name": "TodoWrite", "tool_result": "ok",
        "tool_input": {"todos": [
            {"content": "write the migration", "status": "in_progress"},
            {"content": "read the schema", "status": "completed"},
            {"content": "run the tests", "status": "pending"}]}});
    first.emit("tool:post", todos).await;

    // The next process, a new registry and module over the same directory.
    let next = HookRegistry::new();
    next.set_state_backend(FileState::new(&dir));
    let reminder = ReminderModule::new(config).unwrap();
    let _next = reminder.mount(&next).unwrap();
    let shown = next
        .emit(
            "prompt:submit",
            json!({"session_id": "s1", "prompt": "go on"}),
        )
        .await;
    assert_eq!(
        shown.injections[0].text,
        "Current todos:\n- write the migration\n- run the tests"
    );
    let other = next
        .emit("prompt:submit", json!({"session_id": "s2", "prompt": "hi"}))
        .await;
    assert!(other.injections.is_empty(), "another session has no list");

    // The application sets one session's list itself.
    reminder
        .set_for(&next.state().session("s2").unwrap(), ["review the PR"])
        .unwrap();
    let set = next
        .emit("prompt:submit", json!({"session_id": "s2", "prompt": "hi"}))
        .await;
    assert_eq!(set.injections[0].text, "Current todos:\n- review the PR");
    std::fs::remove_dir_all(&dir).unwrap();
}

// Prompt gate.

fn prompt_gate() -> PromptGateModule {
    let config: PromptGateConfig = serde_json::from_value(json!({"rules": [
        {"name": "migrations", "paths": ["migrations/**"], "prompt": "(?i)migration",
         "message": "ask for a migration first"}]}))
    .unwrap();
    PromptGateModule::new(config).unwrap()
}

#[tokio::test]
async fn the_prompt_gate_opens_a_path_for_the_session_whose_prompt_asked() {
    let registry = HookRegistry::new();
    let _mounted = prompt_gate().mount(&registry).unwrap();
    let write = |session: &str| {
        json!({"session_id": session, "tool_name": "write_file",
               "tool_input": {"path": "migrations/0001.sql"}})
    };
    assert_eq!(
        registry.emit("tool:pre", write("a")).await.action(),
        HookAction::Deny
    );
    registry
        .emit(
            "prompt:submit",
            json!({"session_id": "a", "prompt": "Write the Migration"}),
        )
        .await;
    assert_eq!(
        registry.emit("tool:pre", write("a")).await.action(),
        HookAction::Continue
    );
    let other = registry.emit("tool:pre", write("b")).await;
    assert_eq!(
        other.result.reason.as_deref(),
        Some("ask for a migration first")
    );
    let elsewhere =
        json!({"session_id": "b", "tool_name": "write_file", "tool_input": {"path": "src/x.rs"}});
    assert_eq!(
        registry.emit("tool:pre", elsewhere).await.action(),
        HookAction::Continue
    );
    // Without a session id the gate cannot know: it denies.
    let anonymous =
        json!({"tool_name": "write_file", "tool_input": {"path": "migrations/0001.sql"}});
    let denied = registry.emit("tool:pre", anonymous).await;
    assert!(
        denied
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("session_id"),
        "{denied:?}"
    );
}

#[test]
fn a_prompt_gate_rule_that_cannot_work_is_refused() {
    for (rule, problem) in [
        (
            json!({"name": "m", "paths": [], "prompt": "x"}),
            "`paths` is empty",
        ),
        (
            json!({"name": "m", "paths": ["a/**"], "prompt": "("}),
            "`prompt`",
        ),
        (
            json!({"name": "m", "paths": ["a/[**"], "prompt": "x"}),
            "`paths`",
        ),
    ] {
        let config: PromptGateConfig = serde_json::from_value(json!({"rules": [rule]})).unwrap();
        let error = PromptGateModule::new(config).unwrap_err().to_string();
        assert!(error.contains(problem), "{error}");
    }
}

/// The suite's bad-data check rejects injections on garbage; the reminder injects whatever the
/// data, so it is checked with an empty list (the shape the suite's other checks need).
fn quiet_reminder() -> ReminderModule {
    ReminderModule::new(ReminderConfig::default()).unwrap()
}

hook_behaviour_tests!(reminder_behaviour, quiet_reminder());

#[test]
fn modules_mount_side_by_side_and_unmount_cleanly() {
    let registry = HookRegistry::new();
    let modules: Vec<Arc<dyn HookModule>> = vec![
        Arc::new(redaction()),
        Arc::new(approval(&["bash"])),
        Arc::new(reminder()),
    ];
    let mounted: Vec<_> = modules
        .iter()
        .map(|m| m.mount(&registry).unwrap())
        .collect();
    assert_eq!(
        registry.list_handlers(Some("provider:request"))["provider:request"],
        ["redaction", "reminder"]
    );
    let removed: usize = mounted.into_iter().map(|m| m.unmount()).sum();
    assert_eq!(removed, 5);
    assert!(registry.list_handlers(None).is_empty());
    let _: Value = json!(null);
}
