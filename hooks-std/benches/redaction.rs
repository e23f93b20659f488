//! The redaction module's cost per text: everyday tool output and prompts without a secret
//! (the common case, which the literal prefilter answers), at 1 and 64 KB, texts with URLs
//! with and without credentials, and one with a key to replace, in one run.
//!
//! Run with `cargo bench -p hooks-std --bench redaction`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hooks_std::redaction::{RedactionConfig, RedactionModule};
use serde_json::json;

/// Build output of the kind a `tool:post` event carries: colons, paths, no secret, no URL.
const BUILD_LINES: &str = "   Compiling hooks-std v0.1.0 (crates/hooks-std)\n\
warning: unused variable: `x`\n  --> src/lib.rs:12:9\n   |\n12 |     let x: u32 = 1;\n   |         ^ help: prefix it with an underscore: `_x`\n\
error[E0308]: mismatched types: expected `String`, found `&str`\n\
test safety::paths::tests::lexical_normalisation ... ok\n\
    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.31s\n";

fn repeated(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len() + 1)
}

fn texts(c: &mut Criterion) {
    let redaction = RedactionModule::new(RedactionConfig::default()).expect("the defaults compile");
    let cases = [
        ("build_output_1k", repeated(BUILD_LINES, 1024)),
        ("build_output_64k", repeated(BUILD_LINES, 64 * 1024)),
        (
            "prompt",
            "Refactor the parser: split `parse_line` into tokenising and building, keep the \
             error messages, and add a test for the empty input."
                .to_owned(),
        ),
        (
            "url_without_credentials",
            "fetched https://docs.rs/regex/latest/regex/ and https://crates.io/crates/serde (200 OK)"
                .to_owned(),
        ),
        (
            "url_with_credentials",
            "DATABASE_URL=postgres://admin:hunter2@db.internal:5432/prod psql ready".to_owned(),
        ),
        (
            "api_key",
            "export OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx".to_owned(),
        ),
    ];
    let mut group = c.benchmark_group("redaction_text");
    for (name, text) in &cases {
        // Compiles the regexes now, so no case pays for it inside the measurement.
        let _ = redaction.redact_text(text);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(*name, |b| b.iter(|| redaction.redact_text(black_box(text))));
    }
    group.finish();

    let event = json!({
        "tool_name": "Bash",
        "tool_input": {"command": "cargo test --workspace"},
        "tool_result": {"stdout": repeated(BUILD_LINES, 4096), "exit_code": 101},
    });
    let mut group = c.benchmark_group("redaction_event");
    group.bench_function("tool_post_4k_no_secret", |b| {
        b.iter(|| redaction.redact(black_box(&event)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = texts
}
criterion_main!(benches);
