//! The cost of configured hooks: a command hook against spawning the same process bare, 1,000
//! matcher rules, and the LLM cache-hit path.
//!
//! Run with `cargo bench -p hooks-std --bench configured`.

use std::hint::black_box;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::{HookModule, HookRegistry, HookResult};
use hooks_std::config::{AnswerCache, HookKind, HooksConfig, load_str, render};
use serde_json::{Value, json};

fn load(yaml: &str) -> HooksConfig {
    load_str(yaml, Path::new("bench.yaml"), &std::env::temp_dir())
        .expect("the bench config is valid")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn tool_call() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls -la"}, "session_id": "bench"})
}

/// A command hook through the registry beside the same `sh -c` spawned bare, stdin written and
/// output read, in one run.
fn command_hook_versus_bare_spawn(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("command_hook");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(8));
    for (label, command) in [
        ("true", "true"),
        ("json_echo", "cat > /dev/null; echo '{}'"),
    ] {
        let registry = HookRegistry::new();
        let yaml =
            format!("hooks:\n  PreToolUse:\n    - type: command\n      command: \"{command}\"\n");
        let _mounted = load(&yaml).mount(&registry).expect("mounts");
        group.bench_function(format!("{label}/through_the_registry"), |b| {
            b.to_async(&rt)
                .iter(|| async { black_box(registry.emit("tool:pre", tool_call()).await) });
        });
        let input = tool_call().to_string();
        group.bench_function(format!("{label}/bare_spawn"), |b| {
            b.to_async(&rt).iter(|| async {
                let mut child = tokio::process::Command::new("sh")
                    .arg("-c")
                    .arg(command)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("sh runs");
                if let Some(mut stdin) = child.stdin.take() {
                    use tokio::io::AsyncWriteExt;
                    let _ = stdin.write_all(input.as_bytes()).await;
                }
                black_box(child.wait_with_output().await.expect("sh ends"))
            });
        });
    }
    group.finish();
}

/// 1,000 matcher rules, none of which matches the call (every rule is checked).
fn thousand_matchers(c: &mut Criterion) {
    let mut yaml = String::from("hooks:\n  PreToolUse:\n");
    for n in 0..1000 {
        yaml.push_str(&format!(
            "    - type: matcher\n      match:\n        tool: \"Tool{n}*\"\n        args:\n          file_path: \"**/secret{n}/**\"\n      action: block\n      message: \"rule {n}\"\n"
        ));
    }
    let config = load(&yaml);
    let matchers: Vec<_> = config
        .entries
        .iter()
        .filter_map(|entry| match &entry.hook {
            HookKind::Matcher(matcher) => Some(matcher),
            _ => None,
        })
        .collect();
    assert_eq!(matchers.len(), 1000);
    let data = json!({"tool_name": "Write", "tool_input": {"file_path": "src/lib.rs"}});
    c.bench_function("matchers/1000_rules_checked", |b| {
        b.iter(|| {
            let matched = matchers
                .iter()
                .filter(|m| m.matches(black_box(&data)))
                .count();
            black_box(matched)
        });
    });
    let registry = HookRegistry::new();
    let _mounted = config.mount(&registry).expect("mounts");
    let rt = runtime();
    c.bench_function("matchers/1000_rules_through_the_registry", |b| {
        b.to_async(&rt)
            .iter(|| async { black_box(registry.emit("tool:pre", data.clone()).await) });
    });
}

/// The path of an LLM hook whose answer is cached: render the prompt, look it up.
fn llm_cache_hit(c: &mut Criterion) {
    let cache = AnswerCache::new(256, Duration::from_secs(300));
    let template = "Is {{tool}} with {{args}} safe? Answer {\"safe\": bool, \"reason\": string}.";
    let data = tool_call();
    let key = format!("model\u{0}{}", render(template, "tool:pre", &data));
    cache.put(key, HookResult::deny("cached"));
    c.bench_function("llm/cache_hit", |b| {
        b.iter(|| {
            let key = format!(
                "model\u{0}{}",
                render(template, "tool:pre", black_box(&data))
            );
            black_box(cache.get(&key))
        });
    });
}

criterion_group!(
    benches,
    command_hook_versus_bare_spawn,
    thousand_matchers,
    llm_cache_hit
);
criterion_main!(benches);
