//! `hooks claude` end to end, as Claude Code runs it on every tool call (process start, hooks
//! file load, emit, answer), beside the floor of any command hook: spawning `/bin/true` with
//! the same input, in the same run.
//!
//! Run with `cargo bench -p hooks-cli --bench agent_hook`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

/// What Claude Code sends on PreToolUse.
const INPUT: &str = r#"{"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": "cargo test --workspace"}, "tool_use_id": "toolu_01"}"#;

/// Spawns `program` with `args`, writes the hook input, waits for it to end.
fn run(program: &Path, args: &[&str]) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    if let Some(mut stdin) = child.stdin.take() {
        // `/bin/true` may exit before reading: a broken pipe is part of the floor.
        let _ = stdin.write_all(INPUT.as_bytes());
    }
    child.wait().expect("waits");
}

fn hooks_file(name: &str, yaml: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-bench-agent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join(name);
    std::fs::write(&file, yaml).expect("writes the hooks file");
    file
}

const ONE_RULE: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Write, args: {file_path: "**/.env*"}}
      action: block
      message: "environment files are protected"
"#;

/// The starter policy of `hooks init`: safety, redaction and logging.
const STARTER: &str = r#"modules:
  safety: {workspace: "."}
  redaction: {}
  logging: {path: ".hooks/events.jsonl"}
"#;

fn claude_hook_versus_spawn_floor(c: &mut Criterion) {
    let hooks = Path::new(env!("CARGO_BIN_EXE_hooks"));
    let one_rule = hooks_file("one_rule.yaml", ONE_RULE);
    let one_rule = one_rule.to_str().expect("a UTF-8 path");
    let starter = hooks_file("starter.yaml", STARTER);
    let starter = starter.to_str().expect("a UTF-8 path");
    let mut group = c.benchmark_group("agent_hook");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("spawn_floor/bin_true", |b| {
        b.iter(|| run(Path::new("/bin/true"), &[]));
    });
    group.bench_function("hooks_claude/one_rule", |b| {
        b.iter(|| run(hooks, &["claude", "--config", one_rule]));
    });
    group.bench_function("hooks_claude/safety_redaction_logging", |b| {
        b.iter(|| run(hooks, &["claude", "--config", starter]));
    });
    group.finish();
}

criterion_group!(benches, claude_hook_versus_spawn_floor);
criterion_main!(benches);
