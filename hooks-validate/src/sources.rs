//! The `#[hook]` functions written in a workspace's library sources, found by parsing them, so
//! that the annotated part can tell a hook the binary holds from one it lost (a crate whose
//! `link()` nobody calls is dropped by the linker without a word).
//!
//! Only code a validating binary could link is read: the `src/` of each package, without
//! `src/main.rs`, `src/bin/` and items under `#[cfg(test)]`. Tests, examples, benches and
//! doc comments are left out: their hooks live in other binaries.

use std::path::{Path, PathBuf};

use syn::{Attribute, Item, LitStr};

/// One `#[hook]` function as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceHook {
    /// The package that defines it, as a crate name (`my_hooks`).
    pub krate: String,
    /// The function's name.
    pub function: String,
    /// The `name = "..."` of the attribute, if it gives one.
    pub name: Option<String>,
    /// The file, relative to the workspace root.
    pub file: PathBuf,
    /// The line of the attribute.
    pub line: usize,
}

impl SourceHook {
    /// Whether a linked registration is this function: same file, and the name it was given or
    /// the path of the function (`#[hook]` names a hook `module::path::function` by default).
    pub fn is(&self, linked_name: &str, linked_file: &str) -> bool {
        let linked_file = Path::new(linked_file);
        let same_file = linked_file == self.file || linked_file.ends_with(&self.file);
        let same_name = match &self.name {
            Some(name) => name == linked_name,
            None => linked_name
                .rsplit_once("::")
                .is_some_and(|(_, function)| function == self.function),
        };
        same_file && same_name
    }
}

/// Every `#[hook]` in the library sources of the packages under `root` (nested workspaces,
/// hidden directories and `target` left out), sorted by file and line. An unreadable directory
/// or a file that does not parse is an error naming it.
pub fn hooks_in(root: &Path) -> Result<Vec<SourceHook>, String> {
    let mut found = Vec::new();
    for package in packages(root)? {
        let krate = package_name(&package.join("Cargo.toml"))
            .unwrap_or_else(|| dir_name(&package))
            .replace('-', "_");
        let src = package.join("src");
        if src.is_dir() {
            scan_dir(root, &src, &krate, true, &mut found)?;
        }
    }
    found.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Ok(found)
}

/// The package directories under `root` (the root itself included when it is one).
fn packages(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut packages = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let manifest = dir.join("Cargo.toml");
        if std::fs::read_to_string(&manifest).is_ok_and(|text| has_table(&text, "package")) {
            packages.push(dir.clone());
        }
        for entry in list(&dir)? {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
            if is_dir
                && !name.starts_with('.')
                && name != "target"
                && !(path.join("Cargo.toml").is_file()
                    && std::fs::read_to_string(path.join("Cargo.toml"))
                        .is_ok_and(|text| has_table(&text, "workspace")))
            {
                pending.push(path);
            }
        }
    }
    Ok(packages)
}

fn list(dir: &Path) -> Result<Vec<std::fs::DirEntry>, String> {
    std::fs::read_dir(dir)
        .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
        .map_err(|error| format!("cannot list {}: {error}", dir.display()))
}

fn has_table(manifest: &str, table: &str) -> bool {
    manifest
        .lines()
        .any(|line| line.trim() == format!("[{table}]"))
}

/// `name = "..."` of the manifest's `[package]` table.
fn package_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && let Some(value) = line.strip_prefix("name") {
            let value = value.trim_start().strip_prefix('=')?.trim();
            return Some(value.trim_matches('"').to_owned());
        }
    }
    None
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned())
}

/// Scans the `.rs` files under `dir`; at the top of `src/`, `main.rs` and `bin/` are skipped.
fn scan_dir(
    root: &Path,
    dir: &Path,
    krate: &str,
    top: bool,
    found: &mut Vec<SourceHook>,
) -> Result<(), String> {
    for entry in list(dir)? {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if top && (name == "main.rs" || name == "bin") {
            continue;
        }
        if is_dir {
            scan_dir(root, &path, krate, false, found)?;
        } else if name.ends_with(".rs") {
            scan_file(root, &path, krate, found)?;
        }
    }
    Ok(())
}

fn scan_file(
    root: &Path,
    path: &Path,
    krate: &str,
    found: &mut Vec<SourceHook>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    // Cheap first: most files name no hook at all.
    if !text.contains("hook") {
        return Ok(());
    }
    let file = syn::parse_file(&text).map_err(|error| {
        let start = error.span().start();
        format!(
            "{}:{}:{}: does not parse: {error}",
            path.display(),
            start.line,
            start.column + 1
        )
    })?;
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    scan_items(&file.items, krate, &relative, found);
    Ok(())
}

fn scan_items(items: &[Item], krate: &str, file: &Path, found: &mut Vec<SourceHook>) {
    for item in items {
        match item {
            Item::Fn(function) if !is_test_only(&function.attrs) => {
                for attr in function.attrs.iter().filter(|attr| is_hook_attribute(attr)) {
                    found.push(SourceHook {
                        krate: krate.to_owned(),
                        function: function.sig.ident.to_string(),
                        name: given_name(attr),
                        file: file.to_path_buf(),
                        line: attr.pound_token.span.start().line,
                    });
                }
            }
            Item::Mod(module) if !is_test_only(&module.attrs) => {
                if let Some((_, items)) = &module.content {
                    scan_items(items, krate, file, found);
                }
            }
            _ => {}
        }
    }
}

/// `#[hook]`, `#[hooks_core::hook]` or `#[hooks_macros::hook]`.
fn is_hook_attribute(attr: &Attribute) -> bool {
    let path = attr.path();
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.as_slice() {
        [last] => last == "hook",
        [krate, last] => last == "hook" && (krate == "hooks_core" || krate == "hooks_macros"),
        _ => false,
    }
}

/// `#[cfg(test)]` (and `#[cfg(all(test, ...))]`): compiled into test binaries only.
fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr.meta.require_list().is_ok_and(|list| {
                let tokens = list.tokens.to_string();
                tokens == "test" || tokens.starts_with("all (test")
            })
    })
}

/// The attribute's `name = "..."`, if any (other keys are the macro's business).
fn given_name(attr: &Attribute) -> Option<String> {
    let mut name = None;
    // A malformed attribute is the compiler's to report; here it names nothing.
    let _ = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            name = Some(meta.value()?.parse::<LitStr>()?.value());
        } else {
            // Skip the value of any other key.
            let _ = meta.value()?.parse::<syn::Expr>()?;
        }
        Ok(())
    });
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "hooks-validate-sources-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn write(root: &Path, file: &str, text: &str) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn library_hooks_are_found_and_other_code_is_not() {
        let root = scratch("found");
        write(&root, "Cargo.toml", "[workspace]\nmembers = [\"policy\"]\n");
        write(
            &root,
            "policy/Cargo.toml",
            "[package]\nname = \"my-policy\"\nversion = \"0.1.0\"\n",
        );
        write(
            &root,
            "policy/src/lib.rs",
            r#"//! ```
//! #[hook(event = "tool:pre")]
//! async fn in_docs(_: &str, _: &Value) -> HookResult { todo!() }
//! ```
pub mod nested;

#[hook(event = "tool:pre", priority = 5)]
pub async fn guard(_: &str, _: &Value) -> HookResult { todo!() }

#[hooks_core::hook(event = "prompt:submit", name = "policy::prompt")]
pub async fn prompt(_: &str, _: &Value) -> HookResult { todo!() }

#[cfg(test)]
mod tests {
    #[hook(event = "tool:pre")]
    async fn test_only(_: &str, _: &Value) -> HookResult { todo!() }
}
"#,
        );
        write(
            &root,
            "policy/src/nested.rs",
            "mod inner {\n    #[hook(event = \"tool:post\")]\n    async fn after(_: &str, _: &Value) -> HookResult { todo!() }\n}\n",
        );
        write(
            &root,
            "policy/src/main.rs",
            "#[hook(event = \"tool:pre\")]\nasync fn in_the_binary(_: &str, _: &Value) -> HookResult { todo!() }\n",
        );
        write(
            &root,
            "policy/tests/t.rs",
            "#[hook(event = \"tool:pre\")]\nasync fn in_a_test(_: &str, _: &Value) -> HookResult { todo!() }\n",
        );

        let hooks = hooks_in(&root).unwrap();
        let names: Vec<(&str, Option<&str>, usize)> = hooks
            .iter()
            .map(|h| (h.function.as_str(), h.name.as_deref(), h.line))
            .collect();
        assert_eq!(
            names,
            [
                ("guard", None, 7),
                ("prompt", Some("policy::prompt"), 10),
                ("after", None, 2)
            ]
        );
        assert!(hooks.iter().all(|h| h.krate == "my_policy"));
        assert_eq!(hooks[0].file, Path::new("policy/src/lib.rs"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_registration_is_matched_by_file_and_name() {
        let hook = SourceHook {
            krate: "my_policy".into(),
            function: "guard".into(),
            name: None,
            file: "policy/src/lib.rs".into(),
            line: 7,
        };
        assert!(hook.is("my_policy::guard", "policy/src/lib.rs"));
        // A dependency outside the workspace is compiled with its absolute path.
        assert!(hook.is("my_policy::guard", "/src/app/policy/src/lib.rs"));
        assert!(!hook.is("my_policy::guardian", "policy/src/lib.rs"));
        assert!(!hook.is("other::guard", "other/src/lib.rs"));
        let named = SourceHook {
            name: Some("policy::prompt".into()),
            ..hook
        };
        assert!(named.is("policy::prompt", "policy/src/lib.rs"));
        assert!(!named.is("my_policy::guard", "policy/src/lib.rs"));
    }

    #[test]
    fn a_file_that_does_not_parse_is_named() {
        let root = scratch("broken");
        write(&root, "p/Cargo.toml", "[package]\nname = \"p\"\n");
        write(&root, "p/src/lib.rs", "#[hook(event = \"tool:pre\")]\nfn (");
        let error = hooks_in(&root).unwrap_err();
        assert!(error.contains("p/src/lib.rs:2:"), "{error}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
