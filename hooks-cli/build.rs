//! Packs the `hooks` binary's relocations (`-z pack-relative-relocs`) when it is linked
//! statically against a glibc that can apply packed ones: the agent guard of
//! `cargo install-guard`, which an agent starts on every tool call.
//!
//! A static position-independent executable applies its own relocations before `main`, with the
//! C library it was linked with. Packed, the table it reads shrinks from about half a MiB to a
//! few KiB (BENCHMARKS.md, "Shedding the threads and the rest"). But glibc before 2.36 does not
//! read packed relocations, and nothing would stop such a binary from starting with its
//! pointers unrelocated: so the flag is given only when the C library linked in is the build
//! machine's own (host and target alike) and that is glibc 2.36 or later. Dynamically linked
//! builds are left as they are.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let cfg = |name: &str| env::var(format!("CARGO_CFG_{name}")).unwrap_or_default();
    let linked_statically = cfg("TARGET_FEATURE")
        .split(',')
        .any(|feature| feature == "crt-static");
    let glibc_linux = cfg("TARGET_OS") == "linux" && cfg("TARGET_ENV") == "gnu";
    let native = env::var("HOST").ok() == env::var("TARGET").ok();
    if linked_statically && glibc_linux && native && glibc_reads_packed_relocations() {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the build machine's glibc is 2.36 or later (`getconf GNU_LIBC_VERSION`: `glibc
/// 2.36`); `false` when that cannot be told.
fn glibc_reads_packed_relocations() -> bool {
    let Ok(output) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(str::parse::<u32>);
    matches!(
        (parts.next(), parts.next()),
        (Some(Ok(major)), Some(Ok(minor))) if (major, minor) >= (2, 36)
    )
}
