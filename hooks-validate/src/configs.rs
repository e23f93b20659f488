//! The config part: find the hooks files of a workspace and load each with the loader of
//! `hooks check`, so that every problem is reported with its file, line and column.

use std::path::{Path, PathBuf};

use hooks_config::ConfiguredModule;
use hooks_std::catalog::ModuleCatalog;

use crate::report::{Finding, Part};

/// Whether a file name is a hooks file: `hooks.yaml`, `hooks.yml`, `*.hooks.yaml` or
/// `*.hooks.yml`.
pub fn is_hooks_file(name: &str) -> bool {
    ["hooks.yaml", "hooks.yml"]
        .iter()
        .any(|file| name == *file || name.strip_suffix(file).is_some_and(|s| s.ends_with('.')))
}

/// The hooks files under `root`, sorted. Hidden directories, `target` and nested workspaces
/// (a directory whose `Cargo.toml` declares its own `[workspace]`) are not entered: they are not
/// part of this workspace. Symbolic links to directories are not followed.
pub fn discover(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|error| format!("cannot list {}: {error}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|error| format!("cannot list {}: {error}", dir.display()))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let kind = entry
                .file_type()
                .map_err(|error| format!("cannot inspect {}: {error}", path.display()))?;
            if kind.is_dir() {
                if !name.starts_with('.') && name != "target" && !is_other_workspace(&path) {
                    pending.push(path);
                }
            } else if is_hooks_file(&name) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

fn is_other_workspace(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .is_ok_and(|manifest| manifest.lines().any(|line| line.trim() == "[workspace]"))
}

/// The hooks files to check: each path (a directory stands for the hooks files under it), or
/// every one under `root`; a directory without any, or that cannot be listed, is a finding.
fn files(root: &Path, paths: Option<&[PathBuf]>) -> Vec<Result<PathBuf, Finding>> {
    let targets = match paths {
        None => vec![root.to_path_buf()],
        Some(paths) => paths.iter().map(|path| root.join(path)).collect(),
    };
    let mut files = Vec::new();
    for target in targets {
        if !target.is_dir() {
            files.push(Ok(target));
            continue;
        }
        match discover(&target) {
            Ok(found) if found.is_empty() => files.push(Err(Finding::pass(
                Part::Config,
                shown(root, &target),
                "no hooks files (hooks.yaml, hooks.yml, *.hooks.yaml, *.hooks.yml)",
            ))),
            Ok(found) => files.extend(found.into_iter().map(Ok)),
            Err(problem) => files.push(Err(Finding::fail(
                Part::Config,
                shown(root, &target),
                problem,
            ))),
        }
    }
    files
}

/// `path` as the report shows it: relative to the root when it is under it.
pub(crate) fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Loads each file (a directory stands for the hooks files under it) and reports it; modules
/// are named from `catalog`.
pub fn check(root: &Path, paths: Option<&[PathBuf]>, catalog: &ModuleCatalog) -> Vec<Finding> {
    files(root, paths)
        .into_iter()
        .map(|file| match file {
            Ok(file) => check_file(&file, &shown(root, &file), catalog),
            Err(finding) => finding,
        })
        .collect()
}

/// The modules the hooks files mount, each with the file it is in (as shown). Files that do
/// not load are left out: the config part reports them.
pub fn mounted_modules(
    root: &Path,
    paths: Option<&[PathBuf]>,
    catalog: &ModuleCatalog,
) -> Vec<(String, ConfiguredModule)> {
    files(root, paths)
        .into_iter()
        .flatten()
        .filter_map(|file| {
            let config = hooks_config::load_file_with(&file, catalog).ok()?;
            let shown = shown(root, &file);
            Some(
                config
                    .modules
                    .into_iter()
                    .map(move |module| (shown.clone(), module)),
            )
        })
        .flatten()
        .collect()
}

fn check_file(file: &Path, shown: &str, catalog: &ModuleCatalog) -> Finding {
    // Every WebAssembly component the file names is loaded and checked against its world.
    let checked = hooks_config::load_file_with(file, catalog)
        .and_then(|config| config.check_components().map(|()| config));
    match checked {
        Ok(config) => Finding::pass(Part::Config, shown, config.summary()),
        Err(errors) => {
            let count = errors.0.len();
            let problems = if count == 1 { "problem" } else { "problems" };
            Finding::fail(Part::Config, shown, format!("{count} {problems}")).with_details(
                errors
                    .0
                    .iter()
                    .map(|e| format!("{shown}:{}:{}: {}", e.line, e.column, e.message))
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_files_are_recognised_by_name() {
        for name in [
            "hooks.yaml",
            "hooks.yml",
            "team.hooks.yaml",
            "a.b.hooks.yml",
        ] {
            assert!(is_hooks_file(name), "{name}");
        }
        for name in [
            "myhooks.yaml",
            "hooks.json",
            "settings.yaml",
            "hooks.yaml.bak",
        ] {
            assert!(!is_hooks_file(name), "{name}");
        }
    }

    #[test]
    fn discovery_skips_hidden_dirs_build_output_and_nested_workspaces() {
        let root =
            std::env::temp_dir().join(format!("hooks-validate-discover-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for dir in ["a/b", "target/debug", ".git", "nested", "member"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in [
            "hooks.yaml",
            "a/b/team.hooks.yml",
            "a/other.yaml",
            "target/debug/hooks.yaml",
            ".git/hooks.yaml",
            "nested/hooks.yaml",
            "member/hooks.yml",
        ] {
            std::fs::write(root.join(file), "hooks: {}\n").unwrap();
        }
        std::fs::write(
            root.join("nested/Cargo.toml"),
            "[workspace]\nmembers = []\n",
        )
        .unwrap();
        std::fs::write(root.join("member/Cargo.toml"), "[package]\nname = \"m\"\n").unwrap();

        let found = discover(&root).unwrap();
        let found: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap())
            .collect();
        assert_eq!(
            found,
            [
                Path::new("a/b/team.hooks.yml"),
                Path::new("hooks.yaml"),
                Path::new("member/hooks.yml")
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_missing_file_fails_with_the_reason() {
        let findings = check(
            Path::new("/nonexistent-root"),
            Some(&[PathBuf::from("x.hooks.yaml")]),
            &ModuleCatalog::standard(),
        );
        assert_eq!(findings.len(), 1);
        assert!(!findings[0].passed);
        assert!(
            findings[0].details[0].contains("x.hooks.yaml"),
            "{:?}",
            findings[0]
        );
    }
}
