//! The guard's cost per tool call: typical commands, and adversarial ones (deep
//! nesting, long quoting, many segments, a long heredoc) at 1, 16 and 64 KB, in one run, so
//! that the curve shows whether the cost grows faster than the input.
//!
//! Run with `cargo bench -p hooks-safety --bench safety`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hooks_safety::{Guard, SafetyConfig, SelfProtection};
use serde_json::{Value, json};

fn module(packs: &[&str]) -> Guard {
    let config = SafetyConfig {
        workspace: Some("/srv/project".into()),
        home: Some("/home/dev".into()),
        packs: packs.iter().map(|p| (*p).to_owned()).collect(),
        ..SafetyConfig::default()
    };
    Guard::new(config, &SelfProtection::none()).expect("the bench config is valid")
}

fn input(command: &str) -> Value {
    json!({ "command": command })
}

/// Everyday commands, allowed and denied, with the default packs and with every pack.
fn typical(c: &mut Criterion) {
    let commands = [
        ("ls", "ls -la"),
        (
            "cargo_pipeline",
            "cargo test --workspace 2>&1 | tee build.log | tail -n 20",
        ),
        ("rm_build", "cd crates/app && rm -rf target/debug"),
        ("git_force_push", "git -C repo push --force origin topic"),
        (
            "python_heredoc",
            "python3 <<'PY'\nimport json, pathlib\nprint(json.dumps(sorted(p.name for p in pathlib.Path('.').iterdir())))\nPY",
        ),
    ];
    for (label, packs) in [("default", &["default"][..]), ("all_packs", &["all"][..])] {
        let safety = module(packs);
        let mut group = c.benchmark_group(format!("safety_typical_{label}"));
        for (name, command) in commands {
            let input = input(command);
            group.bench_function(name, |b| {
                b.iter(|| safety.check_tool_input(black_box(&input)))
            });
        }
        group.finish();
    }
}

/// `echo $(echo $(… ls …))`: substitutions nested as deep as the size allows.
fn nesting(bytes: usize) -> String {
    let depth = bytes / 16;
    let mut line = "echo \"$(".repeat(depth);
    line.push_str("ls");
    line.push_str(&")\"".repeat(depth));
    line
}

/// One word of double-quoted text full of escapes and quote changes.
fn quoting(bytes: usize) -> String {
    let unit = r#"a\"b'c'"d$x\\ "#;
    let mut line = String::from("echo \"");
    while line.len() < bytes {
        line.push_str(unit);
    }
    line.push('"');
    line
}

/// Many short commands joined by every separator.
fn segments(bytes: usize) -> String {
    let unit = "ls -l src | grep rs && echo ok; true || false & ";
    let mut line = String::new();
    while line.len() < bytes {
        line.push_str(unit);
    }
    line.push_str("pwd");
    line
}

/// A long Python heredoc: inline code scanned for calls.
fn heredoc(bytes: usize) -> String {
    let unit = "os.path.join('a', 'b'); print(subprocess_name, shutil_name)\n";
    let mut line = String::from("python3 <<'EOF'\nimport os\n");
    while line.len() < bytes {
        line.push_str(unit);
    }
    line.push_str("EOF\n");
    line
}

/// A generator of adversarial command lines of a given size in bytes.
type Shape = fn(usize) -> String;

fn adversarial(c: &mut Criterion) {
    let safety = module(&["all"]);
    let shapes: [(&str, Shape); 4] = [
        ("nesting", nesting),
        ("quoting", quoting),
        ("segments", segments),
        ("heredoc", heredoc),
    ];
    for (name, shape) in shapes {
        let mut group = c.benchmark_group(format!("safety_adversarial_{name}"));
        group
            .sample_size(30)
            .measurement_time(Duration::from_secs(3));
        for kilobytes in [1, 16, 64] {
            let command = shape(kilobytes * 1024);
            let input = input(&command);
            group.throughput(Throughput::Bytes(command.len() as u64));
            group.bench_with_input(
                BenchmarkId::from_parameter(format!("{kilobytes}KB")),
                &input,
                |b, input| b.iter(|| safety.check_tool_input(black_box(input))),
            );
        }
        group.finish();
    }
}

criterion_group!(benches, typical, adversarial);
criterion_main!(benches);
