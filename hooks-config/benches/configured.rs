//! The cost of configured hooks: a command hook against spawning the same process bare, a
//! persistent command hook against the same policy spawned per event, 1,000 matcher rules, and
//! the LLM cache-hit path.
//!
//! Run with `cargo bench -p hooks-config --bench configured`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use hooks_config::{AnswerCache, HookKind, HooksConfig, load_str, render};
use hooks_core::{HookModule, HookRegistry, HookResult};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

fn load(yaml: &str) -> HooksConfig {
    load_str(yaml, Path::new("bench.yaml"), &std::env::temp_dir())
        .expect("the bench config is valid")
}

fn runtime() -> Runtime {
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

/// A Python policy (parse the event, answer `{}`) as a persistent hook, the same policy spawned
/// per event, and bare line round trips to the same persistent process without the registry:
/// with blocking pipes, and with Tokio's (as the hook's runner uses them).
fn persistent_versus_per_event(c: &mut Criterion) {
    let rt = runtime();
    let dir = policy_scripts();
    let mut group = c.benchmark_group("persistent_hook");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(6));
    through_the_registry(&mut group, &rt, &dir);
    let mut request = tool_call().to_string();
    request.push('\n');
    bare_pipe_round_trip(&mut group, &dir, &request);
    tokio_pipe_round_trip(&mut group, &rt, &dir, &request);
    group.finish();
}

/// A scratch directory with the same policy as a line server (`server.py`) and as a script
/// run per event (`once.py`).
fn policy_scripts() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-bench-persistent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let policy = "import json, sys\n\
def decide(request):\n    return '{\"decision\": \"block\", \"reason\": \"no rm\"}' if request.get('tool_name') == 'rm' else '{}'\n";
    std::fs::write(
        dir.join("server.py"),
        format!("{policy}for line in sys.stdin:\n    sys.stdout.write(decide(json.loads(line)) + '\\n')\n    sys.stdout.flush()\n"),
    )
    .expect("writes the server");
    std::fs::write(
        dir.join("once.py"),
        format!("{policy}print(decide(json.load(sys.stdin)))\n"),
    )
    .expect("writes the script");
    dir
}

/// The policy as a persistent hook and as a per-event hook, each through the registry.
fn through_the_registry(group: &mut BenchmarkGroup<'_, WallTime>, rt: &Runtime, dir: &Path) {
    for (label, extra, script) in [
        (
            "persistent/through_the_registry",
            "      persistent: true\n",
            "server.py",
        ),
        ("per_event/through_the_registry", "", "once.py"),
    ] {
        let registry = HookRegistry::new();
        let yaml = format!(
            "hooks:\n  PreToolUse:\n    - type: command\n      command: \"python3 {script}\"\n{extra}"
        );
        let config = load_str(&yaml, Path::new("bench.yaml"), dir).expect("valid");
        let _mounted = config.mount(&registry).expect("mounts");
        group.bench_function(label, |b| {
            b.to_async(rt)
                .iter(|| async { black_box(registry.emit("tool:pre", tool_call()).await) });
        });
    }
}

/// The same exchange with nothing around it: write a line, read a line.
fn bare_pipe_round_trip(group: &mut BenchmarkGroup<'_, WallTime>, dir: &Path, request: &str) {
    use std::io::{BufRead, Write};
    let mut server = std::process::Command::new("python3")
        .arg(dir.join("server.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut to_server = server.stdin.take().expect("a pipe");
    let mut from_server = std::io::BufReader::new(server.stdout.take().expect("a pipe"));
    group.bench_function("persistent/bare_pipe_round_trip", |b| {
        let mut answer = String::new();
        b.iter(|| {
            to_server.write_all(request.as_bytes()).expect("writes");
            to_server.flush().expect("flushes");
            answer.clear();
            from_server.read_line(&mut answer).expect("reads");
            black_box(&answer);
        });
    });
    drop(to_server);
    let _ = server.wait();
}

/// The same exchange through Tokio's pipes, as the hook does it, with nothing else around.
fn tokio_pipe_round_trip(
    group: &mut BenchmarkGroup<'_, WallTime>,
    rt: &Runtime,
    dir: &Path,
    request: &str,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (_child, mut to_server, mut from_server) = rt.block_on(async {
        let mut child = tokio::process::Command::new("python3")
            .arg(dir.join("server.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("python3 runs");
        let to_server = child.stdin.take().expect("a pipe");
        let from_server = tokio::io::BufReader::new(child.stdout.take().expect("a pipe"));
        (child, to_server, from_server)
    });
    group.bench_function("persistent/tokio_pipe_round_trip", |b| {
        let mut answer = String::new();
        b.iter(|| {
            rt.block_on(async {
                to_server
                    .write_all(request.as_bytes())
                    .await
                    .expect("writes");
                answer.clear();
                from_server.read_line(&mut answer).await.expect("reads");
                black_box(&answer);
            });
        });
    });
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
    persistent_versus_per_event,
    thousand_matchers,
    llm_cache_hit
);
criterion_main!(benches);
