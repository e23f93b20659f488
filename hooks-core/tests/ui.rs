//! Compile-time behaviour of `#[hook]`: what must compile (`ui/pass`) and the error each
//! mistake gives (`ui/fail`, one `.rs` with its expected `.stderr`).
//!
//! Compiler messages change between Rust releases, so the expected `.stderr` files are tied to
//! the compiler they were blessed with (`ui/RUSTC_VERSION`); with another compiler the test
//! says so and checks nothing. To re-bless after reviewing the new messages:
//!
//! ```sh
//! TRYBUILD=overwrite cargo test -p hooks-core --test ui
//! rustc --version | cut -d' ' -f2 > hooks-core/tests/ui/RUSTC_VERSION
//! ```

use std::process::Command;

#[test]
fn ui() {
    let blessed = include_str!("ui/RUSTC_VERSION").trim();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    if version.split_whitespace().nth(1) != Some(blessed) {
        eprintln!(
            "skipping the #[hook] UI tests: their messages were blessed with rustc {blessed}, \
             this is `{}`; re-bless them (see tests/ui.rs)",
            version.trim()
        );
        return;
    }
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
