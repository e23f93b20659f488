//! What an application's own `validate` meets: hooks its workspace defines but its binary lost,
//! the modules its hooks files mount (its own among them), a module that panics, and the
//! command line.
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{HookRegistry, HookResult};
use hooks_validate::{ModuleCatalog, Part, Report, Validation};
use serde_json::Value;

/// A scratch workspace under the system's temporary directory, removed when dropped.
struct Workspace(PathBuf);

impl Workspace {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("hooks-validate-app-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Workspace(root)
    }

    fn write(&self, file: &str, text: &str) -> &Self {
        let path = self.0.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    fn root(&self) -> &Path {
        &self.0
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn finding<'a>(report: &'a Report, subject: &str) -> &'a hooks_validate::Finding {
    report
        .findings
        .iter()
        .find(|f| f.subject == subject)
        .unwrap_or_else(|| panic!("no finding `{subject}` in\n{report}"))
}

/// A library of hooks whose `link()` the validating binary never calls.
fn workspace_with_a_hook_library(name: &str) -> Workspace {
    let workspace = Workspace::new(name);
    workspace
        .write("Cargo.toml", "[workspace]\nmembers = [\"policy\"]\n")
        .write(
            "policy/Cargo.toml",
            "[package]\nname = \"team-policy\"\nversion = \"0.1.0\"\n",
        )
        .write(
            "policy/src/lib.rs",
            "pub fn link() {}\n\n\
             #[hook(event = \"tool:pre\", name = \"team::no_force_push\")]\n\
             pub async fn no_force_push(_: &str, _: &Value) -> HookResult { todo!() }\n",
        );
    workspace
}

#[test]
fn a_hook_library_the_binary_does_not_link_fails_naming_its_link_call() {
    let workspace = workspace_with_a_hook_library("unlinked");
    let report = Validation::new(workspace.root())
        .only([Part::Annotated])
        .run();
    assert!(!report.passed(), "{report}");
    let linked = finding(&report, "linked");
    assert!(!linked.passed);
    assert!(
        linked.reason.contains("`team_policy::link()`"),
        "{linked:?}"
    );
    assert_eq!(
        linked.details,
        ["`team::no_force_push` in crate `team_policy` (policy/src/lib.rs:3)"]
    );

    // Hooks meant for another binary are left out on request.
    let report = Validation::new(workspace.root())
        .only([Part::Annotated])
        .elsewhere("policy")
        .run();
    assert!(finding(&report, "linked").passed, "{report}");
}

#[test]
fn a_linked_hook_library_passes() {
    // This workspace's own hook library, linked into this test binary.
    hooks_fixture_annotated::link();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let report = Validation::new(root).only([Part::Annotated]).run();
    let linked = finding(&report, "linked");
    assert!(linked.passed, "{linked:?}");
    assert!(linked.reason.contains(" 2 #[hook] functions"), "{linked:?}");
}

/// An application's own module, mountable from its hooks files.
struct Audit {
    panics: bool,
}

async fn audit(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

impl HookModule for Audit {
    fn name(&self) -> &str {
        "audit"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        assert!(!self.panics, "the audit database is not configured");
        let mut mounted = Mounted::new(self.name());
        mounted.register(registry, "tool:pre", audit, 0, "audit.pre")?;
        Ok(mounted)
    }
}

fn catalog() -> ModuleCatalog {
    let mut catalog = ModuleCatalog::standard();
    catalog
        .add("audit", |config: &Value, _| {
            Ok(Box::new(Audit {
                panics: config["panics"] == true,
            }) as _)
        })
        .unwrap();
    catalog
}

const MOUNTS: &str = "\
modules:
  safety: {workspace: \".\", protected_files: [\"**/secrets.toml\"]}
  logging: {path: \"events.jsonl\"}
  audit: {}
";

#[test]
fn the_modules_a_hooks_file_mounts_run_through_the_suite_as_configured() {
    let workspace = Workspace::new("mounted");
    workspace.write("hooks.yaml", MOUNTS);
    let report = Validation::new(workspace.root())
        .catalog(catalog())
        .without_std_modules()
        .only([Part::Config, Part::Behaviour])
        .run();
    assert!(report.passed(), "{report}");
    for subject in [
        "safety (hooks.yaml:2)",
        "logging (hooks.yaml:3)",
        "audit (hooks.yaml:4)",
    ] {
        assert!(
            finding(&report, subject)
                .reason
                .contains("checks of the suite"),
            "{report}"
        );
    }
    // The suite's events went to a scratch log, not the workspace's.
    assert!(!workspace.root().join("events.jsonl").exists());
}

#[test]
fn without_the_applications_catalog_its_modules_are_unknown() {
    let workspace = Workspace::new("catalog");
    workspace.write("hooks.yaml", MOUNTS);
    let report = Validation::new(workspace.root()).only([Part::Config]).run();
    let file = finding(&report, "hooks.yaml");
    assert!(!file.passed);
    assert!(
        file.details
            .iter()
            .any(|d| d.starts_with("hooks.yaml:4:") && d.contains("unknown module `audit`")),
        "{file:?}"
    );
}

#[test]
fn a_module_that_panics_fails_and_the_validation_goes_on() {
    let workspace = Workspace::new("panics");
    workspace.write(
        "hooks.yaml",
        "modules:\n  audit: {panics: true}\n  redaction: {}\n",
    );
    let report = Validation::new(workspace.root())
        .catalog(catalog())
        .without_std_modules()
        .only([Part::Behaviour])
        .run();
    let audit = finding(&report, "audit (hooks.yaml:2)");
    assert!(!audit.passed);
    assert!(
        audit
            .details
            .iter()
            .any(|d| d.contains("panicked: the audit database is not configured")),
        "{audit:?}"
    );
    assert!(
        finding(&report, "redaction (hooks.yaml:3)").passed,
        "{report}"
    );
}

#[test]
fn main_takes_the_advertised_flags_and_answers_with_exit_codes() {
    let workspace = Workspace::new("main");
    workspace
        .write("good.hooks.yaml", "modules:\n  redaction: {}\n")
        .write("bad.hooks.yaml", "hooks:\n  tool:pree: []\n");
    let validation = || Validation::new(workspace.root()).without_std_modules();
    let good = workspace.root().join("good.hooks.yaml");
    let bad = workspace.root().join("bad.hooks.yaml");
    assert_eq!(
        validation().main(["--only", "config", good.to_str().unwrap()]),
        ExitCode::SUCCESS
    );
    assert_eq!(
        validation().main(["--json", "--only", "config", bad.to_str().unwrap()]),
        ExitCode::FAILURE
    );
    assert_eq!(
        validation().main([
            "--only",
            "behaviour",
            "--module",
            "redaction",
            good.to_str().unwrap()
        ]),
        ExitCode::SUCCESS
    );
    assert_eq!(validation().main(["--verbose"]), ExitCode::from(2));
    assert_eq!(validation().main(["--help"]), ExitCode::SUCCESS);
}

#[test]
fn every_standard_module_of_the_catalog_passes_the_suite() {
    let workspace = Workspace::new("std");
    let report = Validation::new(workspace.root())
        .only([Part::Behaviour])
        .run();
    assert!(report.passed(), "{report}");
    let checked: Vec<&str> = report.findings.iter().map(|f| f.subject.as_str()).collect();
    // The suite covers every module a hooks file can mount by name.
    for name in ModuleCatalog::standard().names() {
        assert!(checked.contains(&name), "{name} is not checked: {report}");
    }
}
