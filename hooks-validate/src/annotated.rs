//! The annotated part: list every `#[hook]` linked into this binary and report what the macro
//! cannot see from one function alone: unknown events, names used twice, hooks whose relative
//! order is decided only by their names, and hooks the workspace defines that the binary lost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hooks_core::annotated::AnnotatedHook;
use hooks_core::events;

use crate::report::{Finding, Part};
use crate::sources::{self, SourceHook};

/// The findings for the hooks linked into this program, measured against the `#[hook]`
/// functions of the workspace at `root` (those under an `elsewhere` path belong to other
/// binaries).
pub fn check_linked(root: &Path, elsewhere: &[PathBuf]) -> Vec<Finding> {
    let linked = hooks_core::annotated::annotated_hooks();
    let mut findings = check(linked, hooks_core::annotated::registration_works());
    findings.push(match sources::hooks_in(root) {
        Ok(written) => {
            let written: Vec<SourceHook> = written
                .into_iter()
                .filter(|hook| !elsewhere.iter().any(|path| hook.file.starts_with(path)))
                .collect();
            unlinked(&written, linked)
        }
        Err(problem) => Finding::fail(
            Part::Annotated,
            "linked",
            format!("cannot read the workspace's sources: {problem}"),
        ),
    });
    findings
}

/// Hooks written in the workspace's libraries that no registration of this binary is.
pub fn unlinked(written: &[SourceHook], linked: &[&AnnotatedHook]) -> Finding {
    let missing: Vec<&SourceHook> = written
        .iter()
        .filter(|hook| !linked.iter().any(|l| hook.is(l.name(), l.file())))
        .collect();
    if missing.is_empty() {
        let reason = match written.len() {
            0 => "the workspace's libraries define no #[hook] function".to_owned(),
            1 => "the workspace's one #[hook] function is in this binary".to_owned(),
            count => format!("the workspace's {count} #[hook] functions are all in this binary"),
        };
        return Finding::pass(Part::Annotated, "linked", reason);
    }
    let mut crates: Vec<&str> = missing.iter().map(|hook| hook.krate.as_str()).collect();
    crates.sort_unstable();
    crates.dedup();
    let calls: Vec<String> = crates.iter().map(|k| format!("`{k}::link()`")).collect();
    Finding::fail(
        Part::Annotated,
        "linked",
        format!(
            "{} #[hook] function(s) of the workspace are not in this binary, so they were never \
             checked: call {} from its main (a crate nothing uses is dropped by the linker with \
             its hooks), or leave their path out with `Validation::elsewhere`",
            missing.len(),
            calls.join(", ")
        ),
    )
    .with_details(
        missing
            .iter()
            .map(|hook| {
                format!(
                    "`{}` in crate `{}` ({}:{})",
                    hook.name.as_deref().unwrap_or(&hook.function),
                    hook.krate,
                    hook.file.display(),
                    hook.line
                )
            })
            .collect(),
    )
}

/// The findings for `hooks`; `registration_works` says whether hooks-core's canary was seen.
pub fn check(hooks: &[&AnnotatedHook], registration_works: bool) -> Vec<Finding> {
    let part = Part::Annotated;
    let mut findings = vec![if registration_works {
        Finding::pass(part, "registration", "hooks-core's canary is seen")
    } else {
        Finding::fail(
            part,
            "registration",
            "hooks-core's canary is not seen: this platform's linker drops `inventory` \
             registrations, so no #[hook] can be found; register hooks by hand",
        )
    }];
    if hooks.is_empty() {
        findings.push(Finding::pass(
            part,
            "hooks",
            "no #[hook] is linked into this binary",
        ));
        return findings;
    }
    findings.extend(hooks.iter().map(|hook| listing(hook)));
    findings.push(duplicate_names(hooks));
    findings.push(unclear_order(hooks));
    findings
}

fn location(hook: &AnnotatedHook) -> String {
    format!("{}:{}", hook.file(), hook.line())
}

/// One line per hook: its event, priority and location; failed if the event is unknown.
fn listing(hook: &AnnotatedHook) -> Finding {
    let part = Part::Annotated;
    match events::canonicalize(hook.event()) {
        Ok(canonical) => {
            let event = if canonical == hook.event() {
                canonical.to_owned()
            } else {
                format!("{canonical} ({})", hook.event())
            };
            Finding::pass(
                part,
                hook.name(),
                format!("{event}, priority {}, {}", hook.priority(), location(hook)),
            )
        }
        Err(problem) => Finding::fail(part, hook.name(), format!("{problem} ({})", location(hook))),
    }
}

/// A name shared by hooks at different places (one function on several events is one hook).
fn duplicate_names(hooks: &[&AnnotatedHook]) -> Finding {
    let mut by_name: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for hook in hooks {
        let places = by_name.entry(hook.name()).or_default();
        let place = location(hook);
        if !places.contains(&place) {
            places.push(place);
        }
    }
    let details: Vec<String> = by_name
        .iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(name, places)| format!("`{name}` is used at {}", places.join(" and ")))
        .collect();
    if details.is_empty() {
        Finding::pass(Part::Annotated, "names", "every hook has its own name")
    } else {
        Finding::fail(
            Part::Annotated,
            "names",
            "names used by more than one hook: give each a `name = \"...\"` of its own",
        )
        .with_details(details)
    }
}

/// Hooks on one event with one priority: they run in name order, which nobody chose.
fn unclear_order(hooks: &[&AnnotatedHook]) -> Finding {
    let mut by_slot: BTreeMap<(&str, i32), Vec<&str>> = BTreeMap::new();
    for hook in hooks {
        let names = by_slot
            .entry((hook.canonical_event(), hook.priority()))
            .or_default();
        if !names.contains(&hook.name()) {
            names.push(hook.name());
        }
    }
    let details: Vec<String> = by_slot
        .iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|((event, priority), names)| {
            format!(
                "{event} at priority {priority}: {} (they run in name order)",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    if details.is_empty() {
        Finding::pass(
            Part::Annotated,
            "order",
            "no two hooks share an event and a priority",
        )
    } else {
        Finding::fail(
            Part::Annotated,
            "order",
            "hooks share an event and a priority: give them distinct priorities",
        )
        .with_details(details)
    }
}
