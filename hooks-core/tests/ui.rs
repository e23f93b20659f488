//! Compile-time behaviour of `#[hook]`: what must compile (`ui/pass`) and the error each
//! mistake gives (`ui/fail`, one `.rs` with its expected `.stderr`).
//!
//! Compiler messages change between Rust releases, so the expected `.stderr` files are tied to
//! the compiler they were blessed with (`ui/RUSTC_VERSION`). With that compiler the messages
//! are compared. With any other, the outcomes still are: every pass case must compile and every
//! fail case must fail to compile, and the test says that this is all it checked. (It runs
//! itself again on a scratch copy of the cases with `TRYBUILD=overwrite`, so that the blessed
//! files are neither compared nor touched.) Setting `HOOKS_UI_OUTCOMES_ONLY=1` makes the
//! blessed compiler check outcomes only as well.
//!
//! To re-bless after reviewing the new messages:
//!
//! ```sh
//! TRYBUILD=overwrite cargo test -p hooks-core --test ui
//! rustc --version | cut -d' ' -f2 > hooks-core/tests/ui/RUSTC_VERSION
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

/// Forces the outcomes-only check, whatever the compiler.
const OUTCOMES_ONLY: &str = "HOOKS_UI_OUTCOMES_ONLY";
/// Set on the inner run: the scratch copy of the cases to check.
const SCRATCH: &str = "HOOKS_UI_SCRATCH";

#[test]
fn ui() {
    if let Some(scratch) = std::env::var_os(SCRATCH) {
        // The inner run, in overwrite mode: only whether each case compiles can fail it.
        let scratch = PathBuf::from(scratch);
        let cases = trybuild::TestCases::new();
        cases.pass(scratch.join("pass/*.rs"));
        cases.compile_fail(scratch.join("fail/*.rs"));
        return;
    }
    let blessed = include_str!("ui/RUSTC_VERSION").trim();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    let is_blessed = version.split_whitespace().nth(1) == Some(blessed);
    if is_blessed && std::env::var_os(OUTCOMES_ONLY).is_none() {
        let cases = trybuild::TestCases::new();
        cases.pass("tests/ui/pass/*.rs");
        cases.compile_fail("tests/ui/fail/*.rs");
        return;
    }
    let (passing, failing) = check_outcomes_only();
    let why = if is_blessed {
        format!("{OUTCOMES_ONLY} is set")
    } else {
        format!(
            "they were blessed with rustc {blessed} and this is `{}`",
            version.trim()
        )
    };
    eprintln!(
        "#[hook] UI tests: the compiler messages were not compared ({why}); checked instead \
         that the {passing} pass cases compile and the {failing} fail cases fail to compile"
    );
}

/// Runs this test again on a scratch copy of the cases, with `TRYBUILD=overwrite`; returns
/// how many pass and fail cases were checked.
fn check_outcomes_only() -> (usize, usize) {
    let scratch = std::env::temp_dir().join(format!("hooks-ui-cases-{}", std::process::id()));
    let passing = copy_cases(Path::new("tests/ui/pass"), &scratch.join("pass"));
    let failing = copy_cases(Path::new("tests/ui/fail"), &scratch.join("fail"));
    let status = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args(["ui", "--exact", "--nocapture"])
        .env(SCRATCH, &scratch)
        .env("TRYBUILD", "overwrite")
        .status()
        .expect("the test binary runs again");
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        status.success(),
        "a pass case did not compile or a fail case compiled (see above)"
    );
    (passing, failing)
}

/// Copies the `.rs` cases of `from` into `to`; returns how many.
fn copy_cases(from: &Path, to: &Path) -> usize {
    std::fs::create_dir_all(to).expect("a scratch directory");
    let mut count = 0;
    for entry in std::fs::read_dir(from).expect("the UI cases") {
        let path = entry.expect("a UI case").path();
        if path.extension().is_some_and(|ext| ext == "rs") {
            let name = path.file_name().expect("a file name");
            std::fs::copy(&path, to.join(name)).expect("a copy of the case");
            count += 1;
        }
    }
    assert!(count > 0, "no UI cases in {}", from.display());
    count
}
