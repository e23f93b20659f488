//! `cargo install-guard [--root DIR] [cargo install options]`: the agent guard and its companion,
//! side by side (docs/install.md).
//!
//! - `hooks`, the guard an agent starts on every tool call: `hooks-cli` without its default
//!   features (no HTTP client, MCP proxy or server), the `dist` profile (fat LTO), and on Linux
//!   with glibc a static position-independent executable (no dynamic loader, no shared library
//!   to map at each start; `hooks-cli/build.rs` packs its relocations where the glibc linked in
//!   can apply them). `--target host-tuple` keeps the static flag off build scripts and proc
//!   macros (cargo 1.91 or later).
//! - `hooks-full`, the default build (dynamically linked, the HTTP client resolving host names
//!   through the system's name services), which runs what the guard leaves out: `hooks
//!   mcp-proxy`, `hooks mcp`, `hooks serve`, `hooks init --serve` (hooks-cli's `companion`).
//!
//! The proxy and the server carried in the guard itself cost each tool call a quarter of a
//! `/bin/true` spawn more (BENCHMARKS.md, "An agent's per-event hook"); handed to the companion,
//! they cost the guard nothing. The options given (`--features wasm`, `--quiet`, `--locked`)
//! apply to both builds. cargo installs the guard and tracks it; the companion is built by a
//! second `cargo install` into a scratch root and copied beside it (`cargo uninstall hooks-cli`
//! leaves it: remove `hooks-full` by hand).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Failure, cargo, project_root};

const USAGE: &str = "usage: cargo install-guard [--root DIR] [cargo install options...]

Installs `hooks`, the agent guard, and beside it `hooks-full`, which runs the guard's
`mcp-proxy`, `mcp` and `serve` (docs/install.md). The options (`--features wasm`, `--quiet`,
`--locked`, ...) go to both builds.";

/// The options of `cargo install` that make the guard (those given are added after them).
const GUARD: &[&str] = &[
    "--profile",
    "dist",
    "--no-default-features",
    "--target",
    "host-tuple",
    "--config",
    "target.'cfg(all(target_os = \"linux\", target_env = \"gnu\"))'.rustflags = \
     [\"-C\", \"target-feature=+crt-static\"]",
];

/// The options of `cargo install` that make the companion.
const COMPANION: &[&str] = &["--profile", "dist"];

/// The companion's file name beside the guard (hooks-cli's `companion::COMPANION`).
const COMPANION_NAME: &str = "hooks-full";

pub fn run(args: &[String]) -> Result<(), Failure> {
    if args.iter().any(|arg| arg == "-h" || arg == "--help") {
        println!("{USAGE}");
        return Ok(());
    }
    let (root, passed) = split_root(args)?;
    let root = match root {
        // Relative to where the command was given: cargo runs from the workspace.
        Some(root) => std::path::absolute(&root)
            .map_err(|error| Failure::Usage(format!("--root {}: {error}", root.display())))?,
        None => default_root()?,
    };
    // The companion first: a guard is never left beside an older companion than itself.
    let scratch = std::env::temp_dir().join(format!("hooks-install-guard-{}", std::process::id()));
    let built = install(COMPANION, &scratch, &passed).and_then(|()| {
        let exe = std::env::consts::EXE_SUFFIX;
        place(
            &scratch.join("bin").join(format!("hooks{exe}")),
            &root.join("bin").join(format!("{COMPANION_NAME}{exe}")),
        )
    });
    // The scratch root only ever holds what this run put there.
    let _ = std::fs::remove_dir_all(&scratch);
    built?;
    install(GUARD, &root, &passed)
}

/// `--root DIR` (or `--root=DIR`) taken out of `args`, and the rest.
fn split_root(args: &[String]) -> Result<(Option<PathBuf>, Vec<String>), Failure> {
    let mut root = None;
    let mut rest = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--root" {
            let dir = args
                .next()
                .ok_or_else(|| Failure::Usage("`--root` needs a directory".to_owned()))?;
            root = Some(PathBuf::from(dir));
        } else if let Some(dir) = arg.strip_prefix("--root=") {
            root = Some(PathBuf::from(dir));
        } else {
            rest.push(arg.clone());
        }
    }
    Ok((root, rest))
}

/// Where `cargo install` puts binaries when no `--root` is given: `$CARGO_INSTALL_ROOT`, else
/// `$CARGO_HOME`, else `~/.cargo` (the `install.root` setting of a cargo config is not read:
/// give `--root` with it).
fn default_root() -> Result<PathBuf, Failure> {
    let var = |name| std::env::var_os(name).filter(|value: &OsString| !value.is_empty());
    var("CARGO_INSTALL_ROOT")
        .or_else(|| var("CARGO_HOME"))
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".cargo")))
        .or_else(|| var("USERPROFILE").map(|home| Path::new(&home).join(".cargo")))
        .ok_or_else(|| {
            Failure::Failed("cannot tell where cargo installs binaries: give `--root`".to_owned())
        })
}

/// `cargo install --path hooks-cli <options> <passed> --root <root>`.
fn install(options: &[&str], root: &Path, passed: &[String]) -> Result<(), Failure> {
    let mut command = Command::new(cargo());
    command
        .current_dir(project_root())
        .args(["install", "--path", "hooks-cli"])
        .args(options)
        .args(passed)
        .arg("--root")
        .arg(root);
    let status = command
        .status()
        .map_err(|error| Failure::Failed(format!("cannot run cargo: {error}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure::Failed(format!(
            "`cargo install` into {} failed ({status})",
            root.display()
        )))
    }
}

/// Copies `from` to `to` through a file beside it renamed into place: a companion running
/// (`hooks serve`) keeps its old file, and no reader sees half a binary.
fn place(from: &Path, to: &Path) -> Result<(), Failure> {
    let failed = |what: &str, error: std::io::Error| {
        Failure::Failed(format!("cannot {what} {}: {error}", to.display()))
    };
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|error| failed("create the folder of", error))?;
    }
    let partial = to.with_extension("partial");
    std::fs::copy(from, &partial).map_err(|error| failed("write", error))?;
    std::fs::rename(&partial, to).map_err(|error| {
        let _ = std::fs::remove_file(&partial);
        failed("replace", error)
    })?;
    eprintln!("    Installed {}", to.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(line: &[&str]) -> Vec<String> {
        line.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn the_root_is_taken_out_and_the_rest_passed_to_both_builds() {
        let (root, rest) = split_root(&strings(&[
            "--quiet",
            "--root",
            "target/guard",
            "--features",
            "wasm",
        ]))
        .unwrap();
        assert_eq!(root, Some(PathBuf::from("target/guard")));
        assert_eq!(rest, strings(&["--quiet", "--features", "wasm"]));
        let (root, rest) = split_root(&strings(&["--root=/opt/hooks"])).unwrap();
        assert_eq!(root, Some(PathBuf::from("/opt/hooks")));
        assert!(rest.is_empty());
        assert!(matches!(
            split_root(&strings(&["--root"])),
            Err(Failure::Usage(_))
        ));
    }

    #[test]
    fn the_companion_is_placed_whole_over_an_older_one() {
        let dir = std::env::temp_dir().join(format!("install-guard-place-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let built = dir.join("built");
        std::fs::write(&built, "new").unwrap();
        let placed = dir.join("bin").join(COMPANION_NAME);
        place(&built, &placed).unwrap();
        std::fs::write(&built, "newer").unwrap();
        place(&built, &placed).unwrap();
        assert_eq!(std::fs::read_to_string(&placed).unwrap(), "newer");
        assert!(!placed.with_extension("partial").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
