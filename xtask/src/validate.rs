//! `cargo xtask validate`: [`hooks_validate::Validation`] on this workspace, with the command
//! line [`hooks_validate::Args`] parses.

use std::process::ExitCode;

use hooks_validate::{HygieneStep, Validation};

use crate::project_root;

pub fn run(args: &[String]) -> ExitCode {
    // The crate of this workspace's #[hook] functions: linked, so that they are validated.
    hooks_fixture_annotated::link();
    Validation::new(project_root())
        // The UI tests of `#[hook]`: the compile errors users see stay the ones we mean.
        .hygiene_step(HygieneStep::cargo([
            "test",
            "-p",
            "hooks-core",
            "--test",
            "ui",
        ]))
        .main(args)
}
