//! ARCHITECTURE.md's first invariant inside each crate: the modules of a crate import one
//! another one way only. Every library and binary of the workspace is read from its root file
//! along its `mod` declarations; a path that starts with `crate::`, `super::` or `self::` (in a
//! `use` or in code) is an arrow from the module it is written in to the module it names (its
//! longest prefix that is a module: `crate::Thing`, re-exported by the crate root, names the
//! root).
//!
//! Arrows between a module and its own parent or children are the module tree itself and not
//! counted; any other arrow is lifted to the two siblings under the modules' common parent
//! (`a::x` naming `b::y` is `a` → `b`), and no siblings may reach each other both ways. Code
//! under `#[cfg(test)]` is left out: a test may use what it likes.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use support::{attribute, is_test_cfg, members, root, skip_item};

/// A module's path inside its crate (the crate root is the empty path).
type ModPath = Vec<String>;

/// What one crate's modules are, and what each one names.
#[derive(Default)]
struct Crate {
    /// Each module, with the file it is written in.
    modules: BTreeMap<ModPath, PathBuf>,
    /// The paths (`crate::`, `super::`, `self::`) written in each module, made absolute.
    paths: BTreeMap<ModPath, Vec<ModPath>>,
}

impl Crate {
    /// Notes that `module` names `path` (as written there).
    fn names(&mut self, module: &ModPath, path: &[String]) {
        if let Some(absolute) = absolute(module, path) {
            self.paths.entry(module.clone()).or_default().push(absolute);
        }
    }
}

/// The root files of every crate of the workspace: each member's `src/lib.rs`, `src/main.rs`
/// and `src/bin/*.rs`.
fn crate_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for member in members() {
        let src = root().join(member).join("src");
        for file in ["lib.rs", "main.rs"] {
            if src.join(file).is_file() {
                roots.push(src.join(file));
            }
        }
        if let Ok(bins) = fs::read_dir(src.join("bin")) {
            for bin in bins {
                let path = bin.unwrap().path();
                if path.extension().is_some_and(|ext| ext == "rs") {
                    roots.push(path);
                }
            }
        }
    }
    roots
}

/// The value of a `path = "..."` attribute.
fn path_attribute(attribute: &TokenStream) -> Option<String> {
    let tokens: Vec<TokenTree> = attribute.clone().into_iter().collect();
    match tokens.as_slice() {
        [
            TokenTree::Ident(name),
            TokenTree::Punct(eq),
            TokenTree::Literal(value),
        ] if name == "path" && eq.as_char() == '=' => {
            Some(value.to_string().trim_matches('"').to_owned())
        }
        _ => None,
    }
}

/// Reads a crate's modules from `file` (module `module`, whose child files live in `dir`).
fn read_module(krate: &mut Crate, file: &Path, module: ModPath, dir: &Path) {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let tokens: TokenStream = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
    krate.modules.insert(module.clone(), file.to_owned());
    let file_dir = file.parent().unwrap().to_owned();
    scan(krate, tokens, &module, dir, &file_dir, file);
}

/// Reads the items of `tokens`, in module `module` whose child files live in `dir`.
fn scan(
    krate: &mut Crate,
    tokens: TokenStream,
    module: &ModPath,
    dir: &Path,
    file_dir: &Path,
    file: &Path,
) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut at = 0;
    let mut test_only = false;
    let mut path_attr = None;
    while at < tokens.len() {
        match &tokens[at] {
            // An attribute: `#[...]` (an inner `#![...]` applies to the whole file; none of the
            // workspace's files is test-only that way).
            TokenTree::Punct(hash) if hash.as_char() == '#' => match attribute(&tokens, at) {
                Some((inside, next)) => {
                    test_only |= is_test_cfg(&inside);
                    path_attr = path_attr.or_else(|| path_attribute(&inside));
                    at = next;
                }
                None => at += 1,
            },
            _ if test_only => {
                at = skip_item(&tokens, at);
                test_only = false;
                path_attr = None;
            }
            TokenTree::Ident(word) if word == "mod" => {
                let Some(TokenTree::Ident(name)) = tokens.get(at + 1) else {
                    at += 1;
                    continue;
                };
                let name = name.to_string();
                let mut child = module.clone();
                child.push(name.clone());
                match tokens.get(at + 2) {
                    Some(TokenTree::Group(body)) if body.delimiter() == Delimiter::Brace => {
                        krate.modules.insert(child.clone(), file.to_owned());
                        scan(
                            krate,
                            body.stream(),
                            &child,
                            &dir.join(&name),
                            file_dir,
                            file,
                        );
                        at += 3;
                    }
                    _ => {
                        let (child_file, child_dir) = match path_attr.take() {
                            Some(path) => {
                                let path = file_dir.join(path);
                                let dir = path.parent().unwrap().to_owned();
                                (path, dir)
                            }
                            None if dir.join(format!("{name}.rs")).is_file() => {
                                (dir.join(format!("{name}.rs")), dir.join(&name))
                            }
                            None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
                        };
                        read_module(krate, &child_file, child, &child_dir);
                        at += 2;
                    }
                }
                path_attr = None;
            }
            TokenTree::Ident(word) if word == "use" => {
                let end = tokens[at..]
                    .iter()
                    .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                    .map_or(tokens.len(), |end| at + end);
                let mut trees = Vec::new();
                use_tree(&tokens[at + 1..end], Vec::new(), &mut trees);
                for path in trees {
                    krate.names(module, &path);
                }
                at = end + 1;
                path_attr = None;
            }
            TokenTree::Ident(word)
                if word == "crate"
                    || word == "super"
                    || (word == "self" && is_path(&tokens, at)) =>
            {
                let starts_path = at == 0
                    || !matches!(&tokens[at - 1], TokenTree::Punct(p) if p.as_char() == ':');
                if starts_path && is_path(&tokens, at) {
                    let mut path = vec![word.to_string()];
                    let mut next = at + 1;
                    while is_path(&tokens, next - 1) {
                        match tokens.get(next + 2) {
                            Some(TokenTree::Ident(segment)) => {
                                path.push(segment.to_string());
                                next += 3;
                            }
                            _ => break,
                        }
                    }
                    krate.names(module, &path);
                    at = next;
                } else {
                    at += 1;
                }
            }
            TokenTree::Group(group) => {
                scan(krate, group.stream(), module, dir, file_dir, file);
                at += 1;
            }
            _ => {
                at += 1;
                path_attr = None;
            }
        }
    }
}

/// Whether `tokens[at]` is followed by `::`.
fn is_path(tokens: &[TokenTree], at: usize) -> bool {
    matches!(
        (tokens.get(at + 1), tokens.get(at + 2)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':'
    )
}

/// The paths of a `use` tree (`a::{b, c::{self, D as E}}`).
fn use_tree(tokens: &[TokenTree], prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    for part in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        let mut path = prefix.clone();
        let mut grouped = false;
        for token in part {
            match token {
                // What follows `as` is a local name, not a segment.
                TokenTree::Ident(word) if word == "as" => break,
                TokenTree::Ident(word) if word == "self" && !path.is_empty() => {}
                TokenTree::Ident(word) => path.push(word.to_string()),
                TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                    let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                    use_tree(&inner, path.clone(), out);
                    grouped = true;
                }
                _ => {}
            }
        }
        if !grouped && !path.is_empty() {
            out.push(path);
        }
    }
}

/// `path` written in `module`, from the crate root. A path of a `use` that starts with a name
/// (`use child::Thing`, `use std::fs`) is taken from the module itself: when that name is no
/// module of the crate, the path names the module it is written in, which is no arrow.
fn absolute(module: &ModPath, path: &[String]) -> Option<ModPath> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.clone(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        _ => {
            let mut base = module.clone();
            base.extend(path.iter().cloned());
            return Some(base);
        }
    };
    let mut rest = rest;
    while let Some((word, tail)) = rest.split_first()
        && word == "super"
    {
        base.pop();
        rest = tail;
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The module a path names: its longest prefix that is a module.
fn target(krate: &Crate, path: &[String]) -> ModPath {
    let mut module: ModPath = Vec::new();
    for word in path {
        module.push(word.clone());
        if !krate.modules.contains_key(&module) {
            module.pop();
            break;
        }
    }
    module
}

/// The arrows between sibling modules, each with a file that draws it.
fn arrows(krate: &Crate) -> BTreeMap<(ModPath, ModPath), PathBuf> {
    let mut arrows = BTreeMap::new();
    for (from, paths) in &krate.paths {
        for path in paths {
            let to = target(krate, path);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue; // a module and its parent or child
            }
            let key = (from[..=common].to_vec(), to[..=common].to_vec());
            arrows
                .entry(key)
                .or_insert_with(|| krate.modules[from].clone());
        }
    }
    arrows
}

/// The cycles of the arrows: each set of siblings that reach each other, as `a → b → a` with
/// the files drawing each arrow.
fn cycles(arrows: &BTreeMap<(ModPath, ModPath), PathBuf>) -> Vec<String> {
    let mut next: BTreeMap<&ModPath, BTreeSet<&ModPath>> = BTreeMap::new();
    for (from, to) in arrows.keys() {
        next.entry(from).or_default().insert(to);
    }
    let reach = |start: &ModPath| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(module) = stack.pop() {
            for &to in next.get(module).into_iter().flatten() {
                if seen.insert(to) {
                    stack.push(to);
                }
            }
        }
        seen
    };
    let mut found = Vec::new();
    for ((from, to), file) in arrows {
        if reach(to).contains(from) {
            found.push(format!(
                "{} → {} ({})",
                name(from),
                name(to),
                file.strip_prefix(root()).unwrap_or(file).display()
            ));
        }
    }
    found
}

fn name(module: &ModPath) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

fn read_crate(root_file: &Path) -> Crate {
    let mut krate = Crate::default();
    let dir = root_file.parent().unwrap().to_owned();
    // `src/bin/x.rs`'s modules live in `src/bin/x/`.
    let dir = if matches!(
        root_file.file_name().and_then(|n| n.to_str()),
        Some("lib.rs" | "main.rs" | "mod.rs")
    ) {
        dir
    } else {
        dir.join(root_file.file_stem().unwrap())
    };
    read_module(&mut krate, root_file, Vec::new(), &dir);
    krate
}

/// Cycles known and being taken apart elsewhere, as the test prints them: the agents' settings
/// formats (`HookSettings`, in `interop::agent`) and the per-event scripts that are one of them
/// (`interop::executables`) are becoming one settings object. The test fails when one of these
/// is gone, so that the line goes with it.
const KNOWN: &[&str] = &[
    "hooks-config/src/lib.rs: interop::agent → interop::executables",
    "hooks-config/src/lib.rs: interop::executables → interop::agent",
];

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let mut offences = Vec::new();
    let mut known = Vec::new();
    let roots = crate_roots();
    assert!(roots.len() > 10, "{roots:?}");
    for root_file in roots {
        let krate = read_crate(&root_file);
        let shown = root_file
            .strip_prefix(root())
            .unwrap()
            .display()
            .to_string();
        for cycle in cycles(&arrows(&krate)) {
            let line = format!("{shown}: {cycle}");
            match KNOWN.iter().find(|k| line.starts_with(*k)) {
                Some(k) => known.push(*k),
                None => offences.push(line),
            }
        }
    }
    assert!(
        offences.is_empty(),
        "modules that import each other (move what both need into the lower one):\n{}",
        offences.join("\n")
    );
    let gone: Vec<&&str> = KNOWN.iter().filter(|k| !known.contains(k)).collect();
    assert!(
        gone.is_empty(),
        "no longer a cycle, remove it from KNOWN: {gone:?}"
    );
}

/// A crate of the given files in a scratch directory of its own.
fn scratch(files: &[(&str, &str)]) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("xtask-module-cycles-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for (file, text) in files {
        let path = dir.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn the_scan_sees_each_way_of_writing_an_arrow() {
    let cases: &[(&str, &str, bool)] = &[
        ("use crate::b::Thing;", "use crate::a::Other;", true),
        (
            "use super::b::Thing;",
            "pub fn f() { super::a::g(); }",
            true,
        ),
        (
            "use crate::{b::{self, Thing}};",
            "use crate::{Other, a};",
            true,
        ),
        (
            "use crate::b;",
            "fn f() -> super::a::Other { todo!() }",
            true,
        ),
        ("use crate::b;", "use self::super::a as other;", true),
        // Through the root's re-export of `a::Other`: an arrow to the root.
        ("use crate::b;", "fn f() -> crate::Other { todo!() }", false),
        ("use crate::b;", "use crate::Other;", false),
        (
            "use crate::b;",
            "#[cfg(test)]\nmod tests { use crate::a::Other; }",
            false,
        ),
        (
            "use crate::b;",
            "/// [`Other`](crate::a::Other)\npub fn f() {}",
            false,
        ),
        (
            "use crate::b;",
            "pub fn f() { let s = \"crate::a\"; }",
            false,
        ),
    ];
    for &(a, b, cycle) in cases {
        let dir = scratch(&[
            ("lib.rs", "mod a;\nmod b;\npub use a::Other;\n"),
            ("a.rs", a),
            ("b.rs", b),
        ]);
        let found = cycles(&arrows(&read_crate(&dir.join("lib.rs"))));
        assert_eq!(!found.is_empty(), cycle, "{a} / {b}: {found:?}");
        fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn arrows_inside_a_module_are_lifted_to_its_siblings() {
    let dir = scratch(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "mod x;\n"),
        ("a/x.rs", "use crate::b::y::Thing;\n"),
        ("b.rs", "mod y { use crate::a::Other; }\n"),
    ]);
    let found = cycles(&arrows(&read_crate(&dir.join("lib.rs"))));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("a → b ("), "{found:?}");
    assert!(found[1].starts_with("b → a ("), "{found:?}");
    fs::remove_dir_all(dir).unwrap();
}
