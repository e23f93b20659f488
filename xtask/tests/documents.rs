//! The documents hold to the code: ARCHITECTURE's layers to the manifests, CONTRIBUTING's list
//! of CI steps to `.ci/run`, the module catalog's docs to the catalog, and BENCHMARKS.md to its
//! size (the detail goes to `docs/perf/`).

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::collections::{BTreeMap, BTreeSet};

use support::{members, read, root};

/// Each workspace member's name and its dependencies on other members: `[dependencies]` and
/// `[build-dependencies]`, plain or per target, optional ones included; dev-dependencies are a
/// crate's tests, not its layer.
fn crate_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let manifests: Vec<toml::Table> = members()
        .iter()
        .map(|member| read(&format!("{member}/Cargo.toml")).parse().unwrap())
        .collect();
    let names: BTreeSet<String> = manifests
        .iter()
        .map(|manifest| manifest["package"]["name"].as_str().unwrap().to_owned())
        .collect();
    let mut edges = BTreeMap::new();
    for manifest in &manifests {
        let mut tables: Vec<&toml::Table> = Vec::new();
        for section in ["dependencies", "build-dependencies"] {
            if let Some(table) = manifest.get(section).and_then(|t| t.as_table()) {
                tables.push(table);
            }
            for target in manifest
                .get("target")
                .and_then(|t| t.as_table())
                .into_iter()
                .flat_map(|targets| targets.values())
            {
                if let Some(table) = target.get(section).and_then(|t| t.as_table()) {
                    tables.push(table);
                }
            }
        }
        let mut depends = BTreeSet::new();
        for (key, value) in tables.into_iter().flatten() {
            // A renamed dependency names its package.
            let package = value.get("package").and_then(|p| p.as_str()).unwrap_or(key);
            if names.contains(package) {
                depends.insert(package.to_owned());
            }
        }
        let name = manifest["package"]["name"].as_str().unwrap().to_owned();
        edges.insert(name, depends);
    }
    edges
}

/// The text between `<!-- name -->` and `<!-- /name -->` in `document`.
fn marked<'a>(document: &'a str, name: &str) -> &'a str {
    let begin = format!("<!-- {name} -->");
    let end = format!("<!-- /{name} -->");
    let start = document
        .find(&begin)
        .unwrap_or_else(|| panic!("no {begin}"))
        + begin.len();
    let stop = document[start..]
        .find(&end)
        .unwrap_or_else(|| panic!("no {end}"))
        + start;
    &document[start..stop]
}

/// The backquoted words of `text`.
fn quoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn architecture_lists_every_dependency_between_the_crates() {
    let document = read("ARCHITECTURE.md");
    let mut stated = BTreeMap::new();
    for line in marked(&document, "crate-dependencies").lines() {
        let Some(item) = line.strip_prefix("- ") else {
            assert!(line.trim().is_empty(), "not an item of the list: {line}");
            continue;
        };
        let (krate, depends) = item.split_once(':').unwrap();
        let krate = quoted(krate)[0].to_owned();
        let depends: BTreeSet<String> = quoted(depends).into_iter().map(str::to_owned).collect();
        assert!(
            stated.insert(krate.clone(), depends).is_none(),
            "{krate} twice"
        );
    }
    let actual = crate_dependencies();
    let differences: Vec<String> = actual
        .keys()
        .chain(stated.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|krate| actual.get(*krate) != stated.get(*krate))
        .map(|krate| {
            format!(
                "{krate}: the manifests say {:?}, ARCHITECTURE.md says {:?}",
                actual.get(krate),
                stated.get(krate)
            )
        })
        .collect();
    assert!(
        differences.is_empty(),
        "ARCHITECTURE.md's crate dependencies are not the manifests' (update the list and the \
         layer diagram):\n{}",
        differences.join("\n")
    );
}

#[test]
fn architecture_layer_diagram_has_every_crate_above_its_dependencies() {
    let document = read("ARCHITECTURE.md");
    let layers = &document[document.find("## Layers").unwrap()..];
    let diagram = layers.split("```").nth(1).unwrap();
    let actual = crate_dependencies();
    let mut row_of = BTreeMap::new();
    for (row, line) in diagram.lines().enumerate() {
        for word in line.split_whitespace() {
            if actual.contains_key(word) {
                assert!(row_of.insert(word, row).is_none(), "{word} twice");
            }
        }
    }
    let missing: Vec<&String> = actual
        .keys()
        .filter(|k| !row_of.contains_key(k.as_str()))
        .collect();
    assert!(missing.is_empty(), "crates not in the diagram: {missing:?}");
    let mut upwards = Vec::new();
    for (krate, depends) in &actual {
        for dependency in depends {
            if row_of[dependency.as_str()] <= row_of[krate.as_str()] {
                upwards.push(format!("{krate} → {dependency}"));
            }
        }
    }
    assert!(
        upwards.is_empty(),
        "dependencies that do not point down the diagram: {upwards:?}"
    );
}

/// The steps of `.ci/run`: the text of each `echo "==> ..."` outside a conditional (the install
/// of `jq` when the machine lacks it is not a step).
fn ci_steps(script: &str) -> Vec<String> {
    let mut depth = 0usize;
    let mut steps = Vec::new();
    for line in script.lines() {
        let line = line.trim();
        if line.starts_with("if ") {
            depth += 1;
        } else if line == "fi" {
            depth = depth.saturating_sub(1);
        } else if depth == 0
            && let Some(step) = line.strip_prefix("echo \"==> ")
        {
            steps.push(step.trim_end_matches('"').to_owned());
        }
    }
    steps
}

/// The items of the first numbered list after `heading` in `document`, each joined into one line.
fn numbered_items(document: &str, heading: &str) -> Vec<String> {
    let section = &document[document.find(heading).unwrap()..];
    let mut items: Vec<String> = Vec::new();
    for line in section.lines().skip(1) {
        if line.starts_with('#') {
            break;
        }
        let trimmed = line.trim_start();
        let number = trimmed.split_once(". ").filter(|(n, _)| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && line == trimmed
        });
        match number {
            Some((_, text)) => items.push(text.to_owned()),
            None if !items.is_empty() && line.starts_with("   ") => {
                let last = items.last_mut().unwrap();
                last.push(' ');
                last.push_str(trimmed);
            }
            None if !items.is_empty() => break,
            None => {}
        }
    }
    items
}

#[test]
fn contributing_lists_the_steps_of_ci_as_they_are() {
    let steps = ci_steps(&read(".ci/run"));
    let items = numbered_items(&read("CONTRIBUTING.md"), "## What CI runs");
    assert_eq!(
        items.len(),
        steps.len(),
        "CONTRIBUTING.md lists {} steps of CI, .ci/run has {}:\n{}",
        items.len(),
        steps.len(),
        steps.join("\n")
    );
    for (step, item) in steps.iter().zip(&items) {
        // The step's program and what it does first (`cargo fmt`, `npm install`, `hooks-py`).
        for word in step.split_whitespace().take(2) {
            let word = word.trim_end_matches(':');
            assert!(
                item.contains(word),
                "the item `{item}` is not the step `{step}`"
            );
        }
    }
}

#[test]
fn the_ci_steps_are_read_outside_conditionals_only() {
    let script = "if ! x; then\n  echo \"==> installing jq\"\nfi\necho \"==> cargo fmt\"\n\
                  f() {\n  echo \"==> npm install $p\"\n}\n";
    assert_eq!(ci_steps(script), ["cargo fmt", "npm install $p"]);
    let document = "## What CI runs\n\nIntro:\n\n1. `a b`;\n2. `c`\n   d;\n\nAfter.\n";
    assert_eq!(
        numbered_items(document, "## What CI runs"),
        ["`a b`;", "`c` d;"]
    );
}

#[test]
fn the_catalog_docs_name_every_standard_module() {
    let source = read("hooks-std/src/catalog.rs");
    let docs: String = source
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join(" ");
    let at = docs.find("holds the ").unwrap() + "holds the ".len();
    let sentence = &docs[at..at + docs[at..].find(");").unwrap()];
    let count = sentence.split_whitespace().next().unwrap();
    let named: BTreeSet<&str> = quoted(sentence).into_iter().collect();
    let catalog = hooks_std::catalog::ModuleCatalog::standard();
    let actual: BTreeSet<&str> = catalog.names().collect();
    assert_eq!(named, actual, "{sentence}");
    let numbers = [
        "", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    assert_eq!(count, numbers[actual.len()], "{sentence}");
}

/// BENCHMARKS.md keeps each area's budget, figure and command; how a figure was reached goes to
/// a note under `docs/perf/`.
const BENCHMARKS_LIMIT: usize = 15 * 1024;

#[test]
fn benchmarks_stays_within_its_size() {
    let size = read("BENCHMARKS.md").len();
    assert!(
        size <= BENCHMARKS_LIMIT,
        "BENCHMARKS.md is {size} bytes, over {BENCHMARKS_LIMIT}: move the detail into a note \
         under docs/perf/ and link it"
    );
}

#[test]
fn benchmarks_links_lead_to_files() {
    let document = read("BENCHMARKS.md");
    let mut broken = Vec::new();
    for link in document.split("](").skip(1) {
        let target = &link[..link.find(')').unwrap()];
        let file = target.split('#').next().unwrap();
        if !file.is_empty() && !file.contains("://") && !root().join(file).exists() {
            broken.push(target.to_owned());
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:?}");
}
