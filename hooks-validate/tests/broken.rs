//! A workspace with one broken hooks file, misannotated hooks and a misbehaving module:
//! validation reports exactly those, and fails.
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::Path;

use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{HookRegistry, HookResult, hook};
use hooks_validate::{Part, Validation};
use serde_json::Value;

// Two hooks under one name.
#[hook(event = "tool:pre", priority = 10, name = "audit")]
async fn audit_calls(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

#[hook(event = "tool:post", name = "audit")]
async fn audit_results(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

// The alias of the event `audit_calls` is on, at its priority: the order is the names'.
#[hook(event = "PreToolUse", priority = 10, name = "gate")]
async fn gate(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

// A well-made hook, listed and passing.
#[hook(event = "prompt:submit", name = "fine")]
async fn fine(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

// An event the taxonomy does not know. `#[hook]` rejects it at compile time; a registration made
// by hand (or by a crate built against another taxonomy) can still carry one.
async fn stale(_event: &str, _data: &Value) -> HookResult {
    HookResult::cont()
}

fn stale_handler() -> hooks_core::Handler {
    hooks_core::Handler::from_fn(stale)
}

hooks_core::__private::inventory::submit! {
    hooks_core::__private::AnnotatedHook::__new(
        "tool:prre", 0, "stale", None, module_path!(), file!(), line!(), stale_handler,
    )
}

/// Denies without a reason whatever it is given: fails the suite's bad-data check.
struct Misbehaving;

async fn deny_bare(_event: &str, _data: &Value) -> HookResult {
    HookResult {
        reason: None,
        ..HookResult::deny("")
    }
}

impl HookModule for Misbehaving {
    fn name(&self) -> &str {
        "misbehaving"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.name());
        mounted.register(registry, "tool:pre", deny_bare, 0, "misbehaving.deny")?;
        Ok(mounted)
    }
}

fn fixture() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/broken-workspace"
    ))
}

fn validation() -> Validation {
    Validation::new(fixture())
        .only([Part::Config, Part::Annotated, Part::Behaviour])
        .without_std_modules()
        .module(Misbehaving)
}

#[test]
fn exactly_the_broken_config_the_misannotated_hooks_and_the_misbehaving_module_fail() {
    let report = validation().run();
    assert!(!report.passed(), "{report}");
    let failed: Vec<(Part, &str)> = report
        .failures()
        .map(|f| (f.part, f.subject.as_str()))
        .collect();
    assert_eq!(
        failed,
        [
            (Part::Config, "hooks.yaml"),
            (Part::Annotated, "stale"),
            (Part::Annotated, "names"),
            (Part::Annotated, "order"),
            (Part::Behaviour, "misbehaving"),
        ],
        "{report}"
    );
    let passed: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.passed)
        .map(|f| f.subject.as_str())
        .collect();
    assert_eq!(
        passed,
        [
            "good.hooks.yml",
            "registration",
            "audit",
            "fine",
            "audit",
            "gate",
            "linked"
        ],
        "{report}"
    );
}

#[test]
fn each_problem_is_reported_with_its_location_and_remedy() {
    let report = validation().run();
    let finding = |subject: &str| {
        report
            .findings
            .iter()
            .find(|f| f.subject == subject && !f.passed)
            .unwrap()
    };
    assert_eq!(
        finding("hooks.yaml").details,
        [
            "hooks.yaml:10:19: `timeout_ms` must be from 1 to 3600000 milliseconds, not `soon`",
            "hooks.yaml:11:3: unknown event `PreToolUze`: use a canonical name such as `tool:pre`, \
             an alias such as `PreToolUse`, or a custom `namespace:name` (did you mean `PreToolUse`?)",
        ]
    );
    let stale = finding("stale");
    assert!(stale.reason.contains("`tool:prre`"), "{stale:?}");
    assert!(stale.reason.contains("broken.rs:"), "{stale:?}");
    let names = finding("names");
    assert_eq!(names.details.len(), 1, "{names:?}");
    assert!(
        names.details[0].starts_with("`audit` is used at "),
        "{names:?}"
    );
    assert_eq!(
        finding("order").details,
        ["tool:pre at priority 10: `audit`, `gate` (they run in name order)"]
    );
    let misbehaving = finding("misbehaving");
    assert!(
        misbehaving
            .details
            .iter()
            .any(|d| d.starts_with("BadData: ")),
        "{misbehaving:?}"
    );
}

#[test]
fn the_listing_names_event_priority_and_place() {
    let report = validation().only([Part::Annotated]).run();
    let gate = report
        .findings
        .iter()
        .find(|f| f.subject == "gate")
        .unwrap();
    assert!(gate.passed);
    assert!(
        gate.reason
            .starts_with("tool:pre (PreToolUse), priority 10, ")
            && gate.reason.contains("broken.rs:"),
        "{gate:?}"
    );
}

#[test]
fn the_json_report_carries_the_same_findings() {
    let report = validation().only([Part::Config]).run();
    let json = report.to_json();
    assert_eq!(json["passed"], false);
    assert_eq!(json["counts"]["passed"], 1);
    assert_eq!(json["counts"]["failed"], 1);
    assert_eq!(json["findings"][1]["subject"], "hooks.yaml");
    assert_eq!(json["findings"][1]["details"].as_array().unwrap().len(), 2);
}

#[test]
fn a_module_filter_that_matches_nothing_fails_rather_than_checking_nothing() {
    let report = validation()
        .only([Part::Behaviour])
        .modules_matching("nothing-is-called-this")
        .run();
    assert!(!report.passed());
    assert!(report.findings[0].reason.contains("nothing-is-called-this"));
}
