//! A hooks file's table of cases asserted from a Rust test.

#![allow(clippy::unwrap_used)]

use hooks_testing::tables::{TableError, assert_table, run_table};

const HOOKS: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      name: no_env
      match:
        tool: Write
        args:
          file_path: "**/.env*"
      action: block
      message: "Cannot modify environment files"
"#;

fn table(test: &str, cases: &str) -> std::path::PathBuf {
    let dir = hooks_testing::scratch_dir("tables", test);
    std::fs::write(dir.join("hooks.yaml"), HOOKS).unwrap();
    let file = dir.join("guard.test.yaml");
    std::fs::write(&file, cases).unwrap();
    file
}

#[test]
fn a_table_that_holds_passes() {
    let file = table(
        "holds",
        "cases:\n  - tool: Write\n    input: {file_path: .env}\n    expect: deny\n    reason: environment\n  - tool: Write\n    input: {file_path: a.md}\n    expect: allow\n",
    );
    assert_table(&file);
}

#[tokio::test]
async fn a_table_runs_inside_a_runtime_too() {
    let file = table(
        "in-runtime",
        "cases:\n  - tool: Write\n    input: {file_path: a.md}\n    expect: allow\n",
    );
    assert_table(&file);
    let report = run_table(&file).await.unwrap();
    assert!(report.passed());
}

#[test]
fn a_failing_case_panics_with_the_diff() {
    let file = table(
        "fails",
        "cases:\n  - name: markdown is denied\n    tool: Write\n    input: {file_path: a.md}\n    expect: deny\n",
    );
    let panic = std::panic::catch_unwind(|| assert_table(&file)).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(message.contains("FAIL markdown is denied"), "{message}");
    assert!(
        message.contains("  - expected: deny\n  + got:      allow"),
        "{message}"
    );
}

#[tokio::test]
async fn a_malformed_table_is_a_located_error() {
    let file = table("malformed", "cases:\n  - tool: Write\n    expect: yes\n");
    let error = run_table(&file).await.unwrap_err();
    assert!(matches!(error, TableError::Table(_)), "{error}");
    assert!(
        error.to_string().contains("guard.test.yaml:3:13"),
        "{error}"
    );
}
