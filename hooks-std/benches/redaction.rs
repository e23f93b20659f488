//! The redaction module's cost per text: everyday tool output and prompts without a secret
//! (the common case, which the literal prefilter answers), at 1 and 64 KB, texts with URLs
//! with and without credentials, one with a key to replace, and 64 KB of tool output with a
//! few secrets in it (a provider key, a password by its name, a URL password, a header), in
//! one run.
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

/// `length` random-looking characters of `alphabet`, the same on every run (fake keys, built
/// so that no literal here looks like a credential).
fn fake(seed: u64, length: usize, alphabet: &str) -> String {
    let alphabet = alphabet.as_bytes();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..length)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(alphabet[(state % alphabet.len() as u64) as usize])
        })
        .collect()
}

/// 64 KB of build output with four secrets spread through it.
fn output_with_secrets() -> String {
    const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let quarter = repeated(BUILD_LINES, 16 * 1024);
    format!(
        "{quarter}+ export GITLAB_TOKEN=glpat-{}\n{quarter}DB_PASSWORD={}\n{quarter}\
         connecting to postgres://app:{}@db.internal:5432/prod\n{quarter}\
         > Authorization: Bearer {}\n",
        fake(1, 20, ALNUM),
        fake(2, 18, ALNUM),
        fake(3, 14, ALNUM),
        fake(4, 40, ALNUM),
    )
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
        ("tool_output_64k_four_secrets", output_with_secrets()),
    ];
    let with_secrets = &cases[cases.len() - 1].1;
    let masked = redaction.redact_text(with_secrets).map(|(_, count)| count);
    assert_eq!(masked, Some(4), "the four secrets are found");
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
