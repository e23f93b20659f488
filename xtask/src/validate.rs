//! `cargo xtask validate`: [`hooks_validate::Validation`] on this workspace, with the command
//! line [`hooks_validate::Args`] parses.
//!
//! Its hygiene part is `cargo fmt --check` and `cargo clippy -D warnings` as hooks-validate
//! defines them: the same commands `.ci/run` runs as steps of its own (it skips this part with
//! `--only`), kept here for a local run. Nothing is added to it: the `#[hook]` UI tests it
//! once ran again are part of `cargo test --workspace`, which `.ci/run` runs.
//!
//! WebAssembly components named by hooks files are loaded only with this crate's `wasm`
//! feature (`cargo run -p xtask --features wasm -- validate`): wasmtime is a large build that
//! `.ci/run`'s `validate` and the other tasks do without.

use std::process::ExitCode;

use hooks_validate::Validation;

use crate::project_root;

pub fn run(args: &[String]) -> ExitCode {
    // The crate of this workspace's #[hook] functions: linked, so that they are validated.
    hooks_fixture_annotated::link();
    Validation::new(project_root()).main(args)
}
