//! The line between the kernel and the session layer: every module of `src/` outside
//! `src/session/` is the kernel, and the kernel never uses the session layer (the session
//! layer is built on the kernel, never the other way round). Doc comments may link to it.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
    found
}

/// The code of a line without its comment (a `//` outside a string is taken as a comment: the
/// kernel has no string holding one before a path).
fn code_of(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// The lines of `source` (numbered from 1) whose code names the session layer: a path through
/// `session::`, or a `use` (grouped or not) naming `session`.
fn session_uses(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_use = false;
    for (number, line) in source.lines().enumerate() {
        let code = code_of(line);
        let statement = code.trim_start();
        if ["use ", "pub use ", "pub(crate) use "]
            .iter()
            .any(|start| statement.starts_with(start))
        {
            in_use = true;
        }
        let path = code.replace(' ', "").contains("session::");
        let imported = in_use
            && code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == "session");
        if path || imported {
            found.push((number + 1, line.trim().to_owned()));
        }
        if code.contains(';') {
            in_use = false;
        }
    }
    found
}

#[test]
fn no_kernel_module_uses_the_session_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let session = src.join("session");
    let mut offences = Vec::new();
    for file in sources(&src) {
        if file.starts_with(&session) {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for (line, code) in session_uses(&text) {
            let shown = file.strip_prefix(&src).unwrap().display();
            offences.push(format!("src/{shown}:{line}: {code}"));
        }
    }
    assert!(
        offences.is_empty(),
        "kernel modules use the session layer (move the code into src/session/, or what it \
         needs into the kernel):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_scan_sees_each_way_of_naming_the_session_layer() {
    for offence in [
        "use crate::session::HookSession;",
        "pub use session::{HookSession, Proceed};",
        "fn f(_: &crate :: session :: Blocked) {}",
        "use crate::{EmitResult, session};",
        "use crate::{\n    EmitResult,\n    session,\n};",
        "let s = super::session::object([]);",
    ] {
        assert!(!session_uses(offence).is_empty(), "missed: {offence}");
    }
    for innocent in [
        "pub mod session;",
        "/// See [`HookSession`](crate::session::HookSession).",
        "use crate::state::{SessionState, StateStore}; // not session::",
        "let event = \"session:start\";",
        "use crate::{EmitResult,\n    HookRegistry};\nlet session = 1;",
    ] {
        assert_eq!(session_uses(innocent), Vec::new(), "{innocent}");
    }
}
