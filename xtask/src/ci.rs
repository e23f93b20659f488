//! `cargo xtask ci`: runs `.ci/run`, the one definition of what CI checks, so that a developer
//! reproduces CI with one command and the two cannot drift apart (an earlier copy of its steps
//! here had skipped the guard's install and its denial).

use std::process::Command;

use crate::{Failure, project_root};

pub fn run() -> Result<(), Failure> {
    let script = project_root().join(".ci/run");
    eprintln!("==> {}", script.display());
    // Through bash, as its first line asks: the file need not be executable in a checkout.
    let status = Command::new("bash")
        .arg(&script)
        .current_dir(project_root())
        .status()
        .map_err(|error| Failure::Failed(format!("could not run .ci/run with bash: {error}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure::Failed(format!(
            ".ci/run failed ({status}); fix it and run `cargo xtask ci` again"
        )))
    }
}
