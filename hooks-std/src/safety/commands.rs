//! The rules for shell commands: what a command line runs, once wrappers, nesting and quoting
//! are seen through, and whether any of it is destructive.

use std::path::{Path, PathBuf};

use regex::Regex;

use super::paths::PathRules;
use super::shell::{self, SimpleCommand};

/// How deep scripts may nest (`bash -c "sh -c '…'"`) before the check gives up and denies.
const MAX_DEPTH: usize = 8;

/// Programs that run the rest of their arguments as a command.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "nohup", "time", "nice", "ionice", "command", "exec", "builtin",
    "stdbuf", "timeout", "xargs", "watch", "unbuffer", "chronic",
];
const ELEVATING: &[&str] = &["sudo", "doas"];
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox"];
const DISK_TOOLS: &[&str] = &[
    "mkfs", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "mkswap",
];
const POWER: &[&str] = &["shutdown", "reboot", "halt", "poweroff"];
/// Programs whose path arguments they write or remove.
const WRITERS: &[&str] = &[
    "rm", "rmdir", "mv", "cp", "tee", "truncate", "ln", "install", "chmod", "chown", "chgrp",
    "shred", "touch", "mkdir", "sed", "dd", "unlink",
];

/// A user rule: a regex over the normalised command (`program arg arg`) and its reason.
#[derive(Debug)]
pub(crate) struct UserRule {
    pub pattern: Regex,
    pub reason: String,
}

/// Checks command lines.
#[derive(Debug)]
pub(crate) struct CommandRules<'a> {
    pub paths: &'a PathRules,
    pub user_rules: &'a [UserRule],
    pub fork_bomb: &'a Regex,
}

/// A command with its wrappers removed.
struct Unwrapped<'w> {
    argv: &'w [String],
    elevated: bool,
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Strips leading `NAME=value` assignments and wrappers (`sudo -u x`, `env -i`, `timeout 5`,
/// `nice -n 5`, ...), recording whether the command runs elevated.
fn unwrap(words: &[String]) -> Unwrapped<'_> {
    let mut at = 0;
    let mut elevated = false;
    loop {
        while words.get(at).is_some_and(|w| is_assignment(w)) {
            at += 1;
        }
        let Some(program) = words.get(at).map(|w| basename(w)) else {
            break;
        };
        if !WRAPPERS.contains(&program) {
            break;
        }
        elevated |= ELEVATING.contains(&program);
        at += 1;
        // The wrapper's own options, and the values of those that take one.
        while let Some(word) = words.get(at) {
            if word == "--" {
                at += 1;
                break;
            }
            if !word.starts_with('-') {
                break;
            }
            let takes_value = matches!(
                (program, word.as_str()),
                (
                    "sudo" | "doas",
                    "-u" | "-g" | "-C" | "-h" | "-p" | "-U" | "-r" | "-t"
                ) | ("nice", "-n")
                    | ("ionice", "-c" | "-n")
                    | ("env", "-u" | "-C" | "-S")
                    | ("timeout", "-s" | "-k")
                    | ("xargs", "-I" | "-n" | "-P" | "-d" | "-L" | "-s" | "-E")
                    | ("watch", "-n" | "-d")
                    | ("stdbuf", "-i" | "-o" | "-e")
            );
            at += if takes_value { 2 } else { 1 };
        }
        if program == "timeout"
            && words
                .get(at)
                .is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        {
            at += 1;
        }
    }
    Unwrapped {
        argv: words.get(at..).unwrap_or(&[]),
        elevated,
    }
}

fn is_assignment(word: &str) -> bool {
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
fn operands(args: &[String]) -> (Vec<&str>, Vec<&str>) {
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
fn recursive(options: &[&str]) -> bool {
    options.iter().any(|option| {
        *option == "--recursive"
            || (!option.starts_with("--") && option.chars().skip(1).any(|c| c == 'r' || c == 'R'))
    })
}

impl CommandRules<'_> {
    /// Why `line` must not run, if it must not.
    pub(crate) fn check(&self, line: &str) -> Option<String> {
        self.check_at(line, 0)
    }

    fn check_at(&self, line: &str, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return Some(
                "the command nests shells too deeply to be checked; run the inner command \
                 directly"
                    .to_owned(),
            );
        }
        if self.fork_bomb.is_match(line) {
            return Some(
                "this is a fork bomb: it would exhaust the machine's processes; do not run it"
                    .to_owned(),
            );
        }
        let script = shell::parse(line);
        for nested in &script.nested {
            if let Some(denial) = self.check_at(nested, depth + 1) {
                return Some(denial);
            }
        }
        // `cd` moves where later relative paths point: `cd / && rm -rf *` deletes the root.
        let mut cwd = self.paths.workspace.clone();
        for command in &script.commands {
            if let Some(denial) = self.check_command(command, depth, &mut cwd) {
                return Some(denial);
            }
        }
        None
    }

    fn check_command(
        &self,
        command: &SimpleCommand,
        depth: usize,
        cwd: &mut PathBuf,
    ) -> Option<String> {
        let cwd_now = cwd.clone();
        let here = Here {
            rules: self,
            cwd: &cwd_now,
        };
        for target in &command.redirect_targets {
            if let Some(denial) = here.written_path(target) {
                return Some(denial);
            }
        }
        for source in &command.input_files {
            if let Some(denial) = here.secret(source) {
                return Some(denial);
            }
        }
        let Unwrapped { argv, elevated } = unwrap(&command.words);
        let (program, args) = match argv.split_first() {
            Some((program, args)) => (basename(program), args),
            None => return None,
        };
        if program.starts_with('$') || program.starts_with('`') {
            let (options, _) = operands(args);
            if recursive(&options) {
                return Some(format!(
                    "the program `{program}` is computed when the command runs, with recursive \
                     options, so it cannot be checked; name the program directly"
                ));
            }
        }
        if program == "cd" {
            let target = args
                .iter()
                .find(|a| !a.starts_with('-'))
                .map_or("~", String::as_str);
            if let Ok(moved) = self.paths.absolute_from(target, &cwd_now) {
                *cwd = moved;
            }
            return None;
        }
        if SHELLS.contains(&program)
            && let Some(denial) = self.shell(program, args, command.piped_into, depth)
        {
            return Some(denial);
        }
        if program == "eval" {
            return self.check_at(&args.join(" "), depth + 1);
        }
        if program == "su"
            && let Some(script) = args
                .iter()
                .position(|a| a == "-c")
                .and_then(|i| args.get(i + 1))
        {
            return self.check_at(script, depth + 1);
        }
        here.destructive(program, args, elevated)
            .or_else(|| args.iter().find_map(|arg| here.secret(arg)))
            .or_else(|| self.user_rule(program, args))
    }

    fn shell(
        &self,
        program: &str,
        args: &[String],
        piped_into: bool,
        depth: usize,
    ) -> Option<String> {
        let script_at = args
            .iter()
            .position(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c'));
        match script_at.and_then(|at| args.get(at + 1)) {
            Some(script) => self.check_at(script, depth + 1),
            None if piped_into => Some(format!(
                "piping into `{program}` runs code nobody has read; save the script to a file, \
                 read it, then run it"
            )),
            None => None,
        }
    }

    fn user_rule(&self, program: &str, args: &[String]) -> Option<String> {
        if self.user_rules.is_empty() {
            return None;
        }
        let normalised = std::iter::once(program)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        self.user_rules
            .iter()
            .find(|rule| rule.pattern.is_match(&normalised))
            .map(|rule| rule.reason.clone())
    }
}

/// The checks that depend on the directory a command runs in.
struct Here<'r, 'a> {
    rules: &'r CommandRules<'a>,
    cwd: &'r Path,
}

impl Here<'_, '_> {
    fn absolute(&self, raw: &str) -> Result<PathBuf, String> {
        self.rules.paths.absolute_from(raw, self.cwd)
    }

    /// Destructive programs and their dangerous uses.
    fn destructive(&self, program: &str, args: &[String], elevated: bool) -> Option<String> {
        let (options, operands) = operands(args);
        if program == "rm" || program == "rmdir" || program == "unlink" || program == "shred" {
            if elevated {
                return Some(format!(
                    "`sudo {program}` is blocked: deleting as root can destroy the system; delete \
                     files you own, inside the project"
                ));
            }
            if options.contains(&"--no-preserve-root") {
                return Some(
                    "`--no-preserve-root` is blocked: it exists only to delete the whole file \
                     system"
                        .to_owned(),
                );
            }
            if program == "rm"
                && recursive(&options)
                && let Some(denial) = operands.iter().find_map(|t| self.dangerous_target(t))
            {
                return Some(denial);
            }
        }
        if program.starts_with("mkfs") || DISK_TOOLS.contains(&program) {
            return Some(format!(
                "`{program}` formats or partitions disks; that is never part of a coding task"
            ));
        }
        if program == "dd"
            && let Some(device) = args
                .iter()
                .find_map(|a| a.strip_prefix("of="))
                .filter(|t| is_device(t))
        {
            return Some(format!(
                "`dd of={device}` would overwrite a disk device; write to a file instead"
            ));
        }
        if POWER.contains(&program)
            || (program == "init" && operands.first().is_some_and(|l| *l == "0" || *l == "6"))
            || (program == "systemctl"
                && operands
                    .iter()
                    .any(|a| matches!(*a, "poweroff" | "reboot" | "halt")))
        {
            return Some(format!(
                "`{program}` would stop or restart the machine; that is for the user to do"
            ));
        }
        if matches!(program, "chmod" | "chown" | "chgrp")
            && recursive(&options)
            && let Some(denial) = operands.iter().find_map(|t| self.dangerous_target(t))
        {
            return Some(denial);
        }
        if elevated && WRITERS.contains(&program) {
            return Some(format!(
                "`sudo {program}` is blocked: changing files as root can break the system; work \
                 on files you own, inside the project"
            ));
        }
        if WRITERS.contains(&program) {
            for operand in &operands {
                if let Some(denial) = self.written_path(operand) {
                    return Some(denial);
                }
            }
        }
        None
    }

    /// A recursive target that would take the system, the home directory or the workspace.
    fn dangerous_target(&self, target: &str) -> Option<String> {
        let stripped = target
            .trim_end_matches('*')
            .trim_end_matches(".*")
            .trim_end_matches('/');
        let stripped = if stripped.is_empty() && target.starts_with('/') {
            "/"
        } else {
            stripped
        };
        let computed = (stripped.starts_with('$')
            && !(stripped.starts_with("$HOME") || stripped.starts_with("${HOME}")))
            || stripped.starts_with('`');
        if computed {
            return Some(format!(
                "refusing to delete `{target}` recursively: the shell computes that path when it \
                 runs, so it cannot be checked; name the directory directly"
            ));
        }
        let path = match self.absolute(if stripped.is_empty() { "." } else { stripped }) {
            Ok(path) => path,
            Err(why) => return Some(format!("refusing to delete `{target}`: {why}")),
        };
        let what = if path == Path::new("/") {
            "the root of the file system"
        } else if self.rules.paths.home.as_deref() == Some(path.as_path()) {
            "your home directory"
        } else if self.rules.paths.is_system(&path) {
            "a protected system directory"
        } else if path == self.rules.paths.workspace {
            "the whole workspace"
        } else if path.starts_with(self.rules.paths.temp_dir())
            && path != self.rules.paths.temp_dir()
        {
            return None;
        } else if !self.rules.paths.in_workspace(&path) {
            "outside the workspace"
        } else {
            return None;
        };
        Some(format!(
            "refusing to delete `{target}` recursively: it is {what}; delete the specific build \
             or output directory inside the project instead"
        ))
    }

    /// A path written to: a system directory, a disk device or a secret.
    fn written_path(&self, target: &str) -> Option<String> {
        if is_device(target) {
            return Some(format!(
                "writing to `{target}` would overwrite a disk device; write to a file instead"
            ));
        }
        let path = self.absolute(target).ok()?;
        if self.rules.paths.is_system(&path) {
            return Some(format!(
                "`{target}` is in a protected system directory; write inside the project instead"
            ));
        }
        self.secret(target)
    }

    /// A path that names a protected file (keys, `.env`, credentials).
    fn secret(&self, word: &str) -> Option<String> {
        if word.starts_with('-') || word.contains(char::is_whitespace) {
            return None;
        }
        let path = self.absolute(word).ok()?;
        self.rules.paths.is_secret(&path).then(|| {
            format!(
                "`{word}` holds secrets and is protected; use environment variables, or ask the \
                 user to handle that file"
            )
        })
    }
}

/// Block devices and raw memory (not `/dev/null`, `/dev/stdout`, ...).
fn is_device(target: &str) -> bool {
    let Some(device) = target.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "mapper/", "md", "loop", "mem", "kmem",
        "port",
    ]
    .iter()
    .any(|prefix| device.starts_with(prefix))
}
