//! The guard the integration tests check commands with: a workspace of `/srv/project`, a home
//! of `/home/dev`, the packs each test names.

use std::path::Path;

use hooks_safety::{Guard, SelfProtection, SafetyConfig};

/// The workspace every command is checked in.
pub const WORKSPACE: &str = "/srv/project";

/// The denial of `line` with `packs` on, as its rule id and its whole message.
pub fn denial(packs: &[&str], line: &str) -> Option<(String, String)> {
    let config = SafetyConfig {
        workspace: Some(WORKSPACE.into()),
        home: Some("/home/dev".into()),
        packs: packs.iter().map(|pack| (*pack).to_owned()).collect(),
        ..SafetyConfig::default()
    };
    Guard::new(config, &SelfProtection::none())
        .expect("the test's configuration is valid")
        .check(line, Path::new(WORKSPACE))
        .map(|denial| (denial.id(), denial.to_string()))
}
