//! `hooks claude` with a hooks file mounting `telemetry`: with the `otel` feature the process
//! exports the spans of its one event before it exits, and a collector that is down changes
//! nothing of the answer; without it the module loads and the answer is the same.

#![allow(clippy::unwrap_used)]

#[cfg(feature = "otel")]
#[path = "../../hooks-otel/tests/support/mod.rs"]
mod otlp;
mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
#[cfg(feature = "otel")]
use {
    opentelemetry_proto::tonic::common::v1::KeyValue,
    opentelemetry_proto::tonic::common::v1::any_value::Value as Any,
    std::time::{Duration, Instant},
};

const FAKE_KEY: &str = "sk-ant-api03-Zq4xFAKEkeyFAKEkeyFAKEkeyFAKEkey0123456789ab";

fn project(test: &str, endpoint: &str) -> PathBuf {
    let dir = hooks_testing::scratch_dir("telemetry", test);
    let yaml = format!(
        "modules:\n  safety: {{}}\n  telemetry: {{endpoint: \"{endpoint}\", service_name: \"claude-hooks\", timeout_ms: 200}}\n"
    );
    std::fs::write(dir.join("hooks.yaml"), yaml).unwrap();
    dir
}

fn rm_rf(dir: &Path) -> Value {
    json!({
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": dir, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_use_id": "toolu_42",
        "tool_input": {"command": format!("rm -rf / # {FAKE_KEY}")},
    })
}

#[cfg(feature = "otel")]
fn text<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| match &v.value {
            Some(Any::StringValue(s)) => Some(s.as_str()),
            _ => None,
        })
}

fn decision(output: &std::process::Output) -> Value {
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    support::stdout_json(output)["hookSpecificOutput"]["permissionDecision"].clone()
}

#[cfg(feature = "otel")]
#[test]
fn hooks_claude_exports_its_event_before_it_exits() {
    let receiver = otlp::Receiver::start(otlp::Reply::Ok);
    let dir = project("exports", &receiver.endpoint());
    let output = support::run(
        Some(&dir),
        &["claude", "--config", "hooks.yaml"],
        &rm_rf(&dir).to_string(),
    );
    assert_eq!(decision(&output), "deny");

    let spans = receiver.spans();
    let emit = spans
        .iter()
        .find(|s| s.name == "hooks.emit")
        .unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!(text(&emit.attributes, "hooks.event"), Some("tool:pre"));
    assert_eq!(text(&emit.attributes, "hooks.action"), Some("deny"));
    assert_eq!(text(&emit.attributes, "hooks.decided_by"), Some("safety"));
    assert_eq!(text(&emit.attributes, "gen_ai.tool.name"), Some("Bash"));
    assert_eq!(
        text(&emit.attributes, "gen_ai.tool.call.id"),
        Some("toolu_42")
    );
    assert!(
        spans
            .iter()
            .any(|s| s.name == "hooks.handler" && s.parent_span_id == emit.span_id)
    );
    assert!(
        !receiver.bodies("/v1/metrics").is_empty(),
        "the metrics are flushed too"
    );
    for body in receiver.all_bodies() {
        assert!(
            !body
                .windows(FAKE_KEY.len())
                .any(|w| w == FAKE_KEY.as_bytes())
        );
    }
}

#[cfg(feature = "otel")]
#[test]
fn a_silent_collector_delays_the_answer_by_at_most_the_timeout_and_never_changes_it() {
    let silent = otlp::Receiver::start(otlp::Reply::Never);
    let dir = project("silent", &silent.endpoint());
    let started = Instant::now();
    let output = support::run(
        Some(&dir),
        &["claude", "--config", "hooks.yaml"],
        &rm_rf(&dir).to_string(),
    );
    let elapsed = started.elapsed();
    assert_eq!(decision(&output), "deny");
    // Generous: a process start, the policy and the 200 ms timeout; a behaviour check.
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    assert!(
        !silent.bodies("/v1/traces").is_empty(),
        "the export was attempted"
    );

    let down = project("down", &otlp::closed_endpoint());
    let output = support::run(
        Some(&down),
        &["claude", "--config", "hooks.yaml"],
        &rm_rf(&down).to_string(),
    );
    assert_eq!(decision(&output), "deny");
}

#[cfg(not(feature = "otel"))]
#[test]
fn without_the_feature_the_module_loads_exports_nothing_and_decides_nothing() {
    let dir = project("without", "http://127.0.0.1:9");
    let output = support::run(
        Some(&dir),
        &["claude", "--config", "hooks.yaml"],
        &rm_rf(&dir).to_string(),
    );
    assert_eq!(decision(&output), "deny");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("without the `otel` feature"),
        "{output:?}"
    );
}
