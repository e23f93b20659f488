//! The documents name the standard modules as the catalog does: the guide's table has one row
//! per module of `ModuleCatalog::standard()`, and any paragraph of the README or the docs (or a
//! crate's description) that lists several standard modules lists them all. A module added to the catalog fails here until
//! the documents name it.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use hooks_std::catalog::ModuleCatalog;

/// A paragraph naming this many standard modules is taken for a list of them.
const A_LIST: usize = 4;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn standard() -> Vec<String> {
    ModuleCatalog::standard()
        .names()
        .map(str::to_owned)
        .collect()
}

/// The README, ARCHITECTURE.md, CONTRIBUTING.md and every page under `docs/` except the dated
/// performance notes, which record what was measured then: each path with its text.
fn documents() -> Vec<(PathBuf, String)> {
    let root = workspace();
    let mut found: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"]
        .iter()
        .map(|name| root.join(name))
        .collect();
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && path.file_name().is_some_and(|name| name != "perf") {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            (path, text)
        })
        .collect()
}

/// The `description` of every crate's manifest (what crates.io and `cargo search` show).
fn descriptions() -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(workspace()).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        if let Some(line) = text.lines().find(|line| line.starts_with("description")) {
            found.push((manifest, line.to_owned()));
        }
    }
    found
}

/// Whether `text` holds `word` with no identifier character on either side.
fn names(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// What may hold a list: each paragraph, and each row of a table on its own (a table as a whole
/// names everything its rows do).
fn units(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .flat_map(|paragraph| {
            if paragraph.trim_start().starts_with('|') {
                paragraph.lines().collect()
            } else {
                vec![paragraph]
            }
        })
        .collect()
}

#[test]
fn the_guide_has_one_row_per_standard_module() {
    let path = workspace().join("docs/guide/standard-modules.md");
    let guide = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<&str> = guide
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|row| row.split_once('`').map(|(name, _)| name))
        .collect();
    let mut documented = rows.clone();
    documented.sort_unstable();
    assert_eq!(
        documented,
        standard(),
        "{}: the table's rows are not the catalog's modules",
        path.display()
    );
}

#[test]
fn every_list_of_standard_modules_in_the_documents_is_whole() {
    let standard = standard();
    assert!(standard.len() >= A_LIST, "{standard:?}");
    let mut partial = Vec::new();
    for (path, text) in documents().into_iter().chain(descriptions()) {
        for paragraph in units(&text) {
            let named: Vec<&String> = standard.iter().filter(|m| names(paragraph, m)).collect();
            if named.len() >= A_LIST && named.len() < standard.len() {
                let missing: Vec<&String> =
                    standard.iter().filter(|m| !named.contains(m)).collect();
                partial.push(format!(
                    "{}: a list of modules without {missing:?}:\n{paragraph}",
                    path.display()
                ));
            }
        }
    }
    assert!(partial.is_empty(), "{}", partial.join("\n\n"));
}

#[test]
fn the_check_sees_a_partial_list() {
    let standard = standard();
    let partial = "the modules safety, redaction, approval, logging and linter";
    let named = standard.iter().filter(|m| names(partial, m)).count();
    assert!(named >= A_LIST && named < standard.len(), "{named}");
    assert!(!names("safety_packs", "safety"));
    assert!(names("`prompt_gate`;", "prompt_gate"));
}
