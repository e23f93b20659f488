//! What the checks know of programs by name: their roles (a wrapper, a shell, a disk tool, a
//! writer, ...) from one table, the name a program word runs, and how their arguments split
//! into options and operands.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

/// Runs the rest of its arguments as a command (`sudo`, `env`, `nice`, `xargs`, …).
pub(crate) const WRAPPER: u16 = 1 << 0;
/// Runs its command as root (`sudo`, `doas`).
pub(crate) const ELEVATING: u16 = 1 << 1;
/// A reserved word a command may follow (`if`, `do`, `!`).
pub(crate) const KEYWORD: u16 = 1 << 2;
/// A reserved word that starts a header, not a command (`for`, `case`).
pub(crate) const HEADER: u16 = 1 << 3;
/// A shell, which runs its `-c` script, heredoc or pipe.
pub(crate) const SHELL: u16 = 1 << 4;
/// Fetches from the network and can print what it fetches.
pub(crate) const DOWNLOADER: u16 = 1 << 5;
/// Only prints its arguments.
pub(crate) const PRINTER: u16 = 1 << 6;
/// Formats or partitions disks.
pub(crate) const DISK_TOOL: u16 = 1 << 7;
/// Stops or restarts the machine.
pub(crate) const POWER: u16 = 1 << 8;
/// Writes or removes the paths it is given.
pub(crate) const WRITER: u16 = 1 << 9;
/// Hands a command on by a grammar of its own (`xargs`, `parallel`, `find -exec`, `ssh`,
/// `eval`, `su -c`): the walker reads each one.
pub(crate) const RUNNER: u16 = 1 << 10;

/// The roles of `program` (a base name), from one table lookup: the check of every simple
/// command asks several times.
pub(crate) fn role(program: &str) -> u16 {
    static ROLES: OnceLock<FxHashMap<&'static str, u16>> = OnceLock::new();
    let roles = ROLES.get_or_init(|| {
        let table: &[(u16, &[&str])] = &[
            (WRAPPER | ELEVATING, &["sudo", "doas"]),
            (
                WRAPPER,
                &[
                    "env",
                    "nohup",
                    "time",
                    "nice",
                    "ionice",
                    "command",
                    "exec",
                    "builtin",
                    "stdbuf",
                    "timeout",
                    "watch",
                    "chroot",
                    "flock",
                    "busybox",
                    "toybox",
                    "unbuffer",
                    "chronic",
                    "caffeinate",
                    "setsid",
                    "torsocks",
                    "proxychains",
                    "proxychains4",
                ],
            ),
            (
                KEYWORD,
                &[
                    "if", "then", "else", "elif", "fi", "while", "until", "do", "done", "!", "esac",
                ],
            ),
            (HEADER, &["for", "select", "case", "function"]),
            (
                SHELL,
                &[
                    "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh", "yash",
                ],
            ),
            (
                DOWNLOADER,
                &["curl", "wget", "fetch", "http", "https", "xh", "aria2c"],
            ),
            (PRINTER, &["echo", "printf"]),
            (
                DISK_TOOL,
                &[
                    "mkfs", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted",
                    "mkswap",
                ],
            ),
            (POWER, &["shutdown", "reboot", "halt", "poweroff"]),
            (
                RUNNER,
                &[
                    "xargs", "parallel", "find", "ssh", "rsh", "mosh", "eval", "su", "source", ".",
                ],
            ),
            (
                WRITER,
                &[
                    "rm", "rmdir", "mv", "cp", "tee", "truncate", "ln", "install", "chmod",
                    "chown", "chgrp", "shred", "touch", "mkdir", "sed", "dd", "unlink",
                ],
            ),
        ];
        let mut roles = FxHashMap::default();
        for (role, names) in table {
            for name in *names {
                *roles.entry(*name).or_insert(0) |= role;
            }
        }
        roles
    });
    roles.get(program).copied().unwrap_or(0)
}

/// Whether `program` has any of the roles in `roles`.
pub(crate) fn is(program: &str, roles: u16) -> bool {
    role(program) & roles != 0
}

/// The name a program word runs: its base name, a Windows `.exe` suffix removed.
pub(crate) fn program_name(word: &str) -> &str {
    let base = match word.bytes().rposition(|b| b == b'/' || b == b'\\') {
        Some(slash) => word.get(slash + 1..).unwrap_or(word),
        None => word,
    };
    base.strip_suffix(".exe")
        .or_else(|| base.strip_suffix(".EXE"))
        .unwrap_or(base)
}

/// Whether `word` is a shell assignment, `NAME=value`.
pub(crate) fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Splits arguments into option letters/words and operands (everything after `--` is an
/// operand).
pub(crate) fn operands(args: &[String]) -> (Vec<&str>, Vec<&str>) {
    let mut options = Vec::new();
    let mut operands = Vec::new();
    let mut only_operands = false;
    for arg in args {
        if only_operands || arg == "-" || !arg.starts_with('-') {
            operands.push(arg.as_str());
        } else if arg == "--" {
            only_operands = true;
        } else {
            options.push(arg.as_str());
        }
    }
    (options, operands)
}

/// Whether the options include a recursive flag (`-r`, `-R`, `-rf`, `--recursive`).
pub(crate) fn recursive(options: &[&str]) -> bool {
    options.iter().any(|option| {
        *option == "--recursive"
            || (!option.starts_with("--") && option.chars().skip(1).any(|c| c == 'r' || c == 'R'))
    })
}

/// Whether the options include a force flag (`-f`, `-rf`, `--force`).
pub(crate) fn forced(options: &[&str]) -> bool {
    options.iter().any(|option| {
        *option == "--force"
            || (!option.starts_with("--") && option.chars().skip(1).any(|c| c == 'f'))
    })
}
