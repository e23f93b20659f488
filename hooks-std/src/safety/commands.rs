//! The walk over a command line: every simple command, in lists, pipelines, groups,
//! substitutions, heredocs and the scripts given to shells and interpreters, with wrappers
//! (`sudo`, `env`, `command`, `nice`, `timeout`, `nohup`, `xargs`, `find -exec`) seen through,
//! each checked against the packs that are on.

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use rustc_hash::FxHashMap;

use super::RmPolicy;
use super::inline::{self, Finding, Language};
use super::packs::builtin as rules;
use super::packs::{self, Denial, Enabled, Rule, catalog, git};
use super::paths::PathRules;
use super::shell::{self, Event, SimpleCommand};

/// How deep scripts may nest (`bash -c "sh -c '…'"`) before the check gives up and denies.
const MAX_DEPTH: usize = 8;

/// Runs the rest of its arguments as a command (`sudo`, `env`, `nice`, `xargs`, …).
const WRAPPER: u16 = 1 << 0;
/// Runs its command as root (`sudo`, `doas`).
const ELEVATING: u16 = 1 << 1;
/// A reserved word a command may follow (`if`, `do`, `!`).
const KEYWORD: u16 = 1 << 2;
/// A reserved word that starts a header, not a command (`for`, `case`).
const HEADER: u16 = 1 << 3;
/// A shell, which runs its `-c` script, heredoc or pipe.
const SHELL: u16 = 1 << 4;
/// Fetches from the network and can print what it fetches.
const DOWNLOADER: u16 = 1 << 5;
/// Only prints its arguments.
const PRINTER: u16 = 1 << 6;
/// Formats or partitions disks.
const DISK_TOOL: u16 = 1 << 7;
/// Stops or restarts the machine.
const POWER: u16 = 1 << 8;
/// Writes or removes the paths it is given.
const WRITER: u16 = 1 << 9;

/// The roles of `program` (a base name), from one table lookup: the check of every simple
/// command asks several times.
fn role(program: &str) -> u16 {
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
                    "xargs",
                    "watch",
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
                &["sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox"],
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
fn is(program: &str, roles: u16) -> bool {
    role(program) & roles != 0
}

/// `find` tests that select some files only.
const FIND_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-regex",
    "-iregex",
    "-newer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-empty",
    "-size",
    "-user",
    "-group",
    "-perm",
];
/// Programs whose `-i` names a key they use, not one they read out.
const IDENTITY_USERS: &[&str] = &["ssh", "scp", "sftp", "ssh-copy-id"];

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
    pub enabled: &'a Enabled,
    pub catalog: &'a catalog::Compiled,
    pub rm_policy: RmPolicy,
    /// Rules that would have fired but for a policy (deleting in the workspace or a
    /// temporary directory).
    pub exemptions: RefCell<Vec<&'static Rule>>,
}

/// What a command reads on standard input, as far as the command line shows.
enum Fed {
    /// Nothing that the line shows.
    Nothing,
    /// Known text: a heredoc, a here-string, or the words of `echo` or `printf`.
    Text(String),
    /// The output of a download.
    Download(String),
    /// The output of some other command.
    Unknown,
}

/// A command with its wrappers removed.
struct Unwrapped<'w> {
    argv: &'w [String],
    elevated: bool,
    /// `xargs` adds words from standard input to the command.
    via_xargs: bool,
    /// `env -S '…'`: a command line to split and run.
    split_string: Option<&'w String>,
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

/// Strips leading `NAME=value` assignments and wrappers (`sudo -u x`, `env -i`, `timeout 5`,
/// `nice -n 5`, ...), recording whether the command runs elevated.
fn unwrap(words: &[String]) -> Unwrapped<'_> {
    let mut at = 0;
    let mut elevated = false;
    let mut via_xargs = false;
    let mut split_string = None;
    loop {
        while words.get(at).is_some_and(|w| is_assignment(w)) {
            at += 1;
        }
        let Some(program) = words.get(at).map(|w| program_name(w)) else {
            break;
        };
        let roles = role(program);
        if roles & KEYWORD != 0 {
            // `if rm …`, `do rm …`, `! rm …`: the command follows the reserved word.
            at += 1;
            continue;
        }
        if roles & HEADER != 0 {
            // `for x in a b`, `case $x in`: a loop or case header runs nothing.
            return Unwrapped {
                argv: &[],
                elevated,
                via_xargs,
                split_string,
            };
        }
        if roles & WRAPPER == 0 {
            break;
        }
        elevated |= roles & ELEVATING != 0;
        via_xargs |= program == "xargs";
        at += 1;
        // The wrapper's own options, and the values of those that take one.
        while let Some(word) = words.get(at) {
            if word == "--" {
                at += 1;
                break;
            }
            if program == "env" && is_assignment(word) {
                at += 1;
                continue;
            }
            if program == "command" && matches!(word.as_str(), "-v" | "-V" | "-pv" | "-pV") {
                // `command -v x` looks a program up; it runs nothing.
                return Unwrapped {
                    argv: &[],
                    elevated,
                    via_xargs,
                    split_string,
                };
            }
            if !word.starts_with('-') {
                break;
            }
            if program == "env" && (word == "-S" || word == "--split-string") {
                split_string = words.get(at + 1);
                at += 2;
                continue;
            }
            at += if takes_value(program, word) { 2 } else { 1 };
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
        via_xargs,
        split_string,
    }
}

/// Whether the wrapper `program`'s option `option` takes the next word as its value
/// (`sudo -u root`, `nice -n 5`).
fn takes_value(program: &str, option: &str) -> bool {
    matches!(
        (program, option),
        (
            "sudo" | "doas",
            "-u" | "-g" | "-C" | "-h" | "-p" | "-U" | "-r" | "-t" | "-D" | "-R"
        ) | ("nice", "-n")
            | ("ionice", "-c" | "-n")
            | ("env", "-u" | "-C")
            | ("timeout", "-s" | "-k")
            | (
                "xargs",
                "-I" | "-n" | "-P" | "-d" | "-L" | "-s" | "-E" | "-a"
            )
            | ("watch", "-n" | "-d")
            | ("stdbuf", "-i" | "-o" | "-e")
    )
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

/// Whether the options include a force flag (`-f`, `-rf`, `--force`).
fn forced(options: &[&str]) -> bool {
    options.iter().any(|option| {
        *option == "--force"
            || (!option.starts_with("--") && option.chars().skip(1).any(|c| c == 'f'))
    })
}

/// The words of a line an `echo` or `printf` prints, options dropped.
fn printed(args: &[String]) -> String {
    args.iter()
        .skip_while(|a| a.starts_with('-') && a.len() > 1)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

impl CommandRules<'_> {
    /// Why `line` must not run, if it must not.
    pub(crate) fn check(&self, line: &str) -> Option<Denial> {
        self.check_at(line, 0)
    }

    fn exempt(&self, rule: &'static Rule) {
        self.exemptions.borrow_mut().push(rule);
    }

    fn check_at(&self, line: &str, depth: usize) -> Option<Denial> {
        if depth > MAX_DEPTH {
            return Some(Denial::new(
                &rules::TOO_DEEP,
                "the command nests shells too deeply to be checked; run the inner command \
                 directly"
                    .to_owned(),
            ));
        }
        // A fork bomb needs a brace, a pipe and an ampersand: most lines skip the regex.
        if self.enabled.has("disk")
            && line.contains('{')
            && line.contains('|')
            && line.contains('&')
            && fork_bomb().is_match(line)
        {
            return Some(Denial::new(
                &rules::FORK_BOMB,
                "this is a fork bomb: it would exhaust the machine's processes; do not run it"
                    .to_owned(),
            ));
        }
        // Each command is checked as soon as it is read, and the reading stops at the first
        // denial. `cd` moves where later relative paths point: `cd / && rm -rf *`.
        let mut denial = None;
        let mut cwd = self.paths.workspace.clone();
        shell::read(line, &mut |event| {
            denial = match event {
                Event::Nested(inner) => self.check_at(inner, depth + 1),
                Event::Command(command, source) => {
                    let fed = self.fed(command, source);
                    self.check_command(command, fed, depth, &mut cwd)
                }
            };
            denial.is_some()
        });
        denial
    }

    /// What `command` reads on standard input.
    fn fed(&self, command: &SimpleCommand, source: Option<&SimpleCommand>) -> Fed {
        if !command.stdin_text.is_empty() {
            return Fed::Text(command.stdin_text.join("\n"));
        }
        let Some(source) = source else {
            return Fed::Nothing;
        };
        let Unwrapped { argv, .. } = unwrap(&source.words);
        match argv.split_first() {
            Some((program, args)) => {
                let program = program_name(program);
                let roles = role(program);
                if roles & PRINTER != 0 {
                    Fed::Text(printed(args))
                } else if roles & DOWNLOADER != 0 {
                    Fed::Download(source.words.join(" "))
                } else if program == "cat" && !source.stdin_text.is_empty() {
                    Fed::Text(source.stdin_text.join("\n"))
                } else {
                    Fed::Unknown
                }
            }
            None if !source.stdin_text.is_empty() => Fed::Text(source.stdin_text.join("\n")),
            None => Fed::Unknown,
        }
    }

    fn check_command(
        &self,
        command: &SimpleCommand,
        fed: Fed,
        depth: usize,
        cwd: &mut PathBuf,
    ) -> Option<Denial> {
        let unwrapped = unwrap(&command.words);
        let denial = {
            let here = Here::new(self, cwd.as_path());
            self.check_unwrapped(&here, command, &unwrapped, &fed, depth)
        };
        if denial.is_some() {
            return denial;
        }
        if let Some((program, args)) = unwrapped.argv.split_first()
            && program_name(program) == "cd"
        {
            let target = args
                .iter()
                .find(|a| !a.starts_with('-'))
                .map_or("~", String::as_str);
            if let Ok(moved) = self.paths.absolute_from(target, cwd) {
                *cwd = moved;
            }
        }
        None
    }

    fn check_unwrapped(
        &self,
        here: &Here<'_, '_>,
        command: &SimpleCommand,
        unwrapped: &Unwrapped<'_>,
        fed: &Fed,
        depth: usize,
    ) -> Option<Denial> {
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
        if let Some(line) = unwrapped.split_string
            && let Some(denial) = self.check_at(line, depth + 1)
        {
            return Some(denial);
        }
        if unwrapped
            .argv
            .first()
            .is_some_and(|p| program_name(p) == "cd")
        {
            return None;
        }
        match fed {
            // `echo / | xargs rm -rf`: the printed words become arguments.
            Fed::Text(text) if unwrapped.via_xargs => {
                let mut argv = unwrapped.argv.to_vec();
                argv.extend(text.split_whitespace().map(str::to_owned));
                self.check_argv(here, &argv, unwrapped.elevated, fed, depth)
            }
            _ => self.check_argv(here, unwrapped.argv, unwrapped.elevated, fed, depth),
        }
    }

    /// The checks on one command's words (wrappers removed), reading `fed` on its input.
    fn check_argv(
        &self,
        here: &Here<'_, '_>,
        argv: &[String],
        elevated: bool,
        fed: &Fed,
        depth: usize,
    ) -> Option<Denial> {
        if depth > MAX_DEPTH {
            // `find -exec find -exec …` nests without a shell: the same limit applies.
            return Some(Denial::new(
                &rules::TOO_DEEP,
                "the command nests commands too deeply to be checked; run the inner command \
                 directly"
                    .to_owned(),
            ));
        }
        let (program, args) = match argv.split_first() {
            Some((program, args)) => (program_name(program), args),
            None => return None,
        };
        if let Some(denial) = self
            .user_rule(program, args)
            .or_else(|| self.computed_program(program, args))
        {
            return Some(denial);
        }
        let roles = role(program);
        if roles & SHELL != 0
            && let Some(denial) = self.shell(program, args, fed, depth)
        {
            return Some(denial);
        }
        if let Some(language) = Language::of(program)
            && let Some(denial) = self.interpreter(here, language, program, args, fed, depth)
        {
            return Some(denial);
        }
        if let ControlFlow::Break(decided) =
            self.program_specific(here, program, args, argv, elevated, depth)
        {
            return decided;
        }
        let denial = self.general_rules(here, program, args, argv, elevated, fed);
        if denial.is_none() {
            self.note_data(program, fed, depth);
        }
        denial
    }

    /// A program computed when the command runs (`$RM -rf ...`) cannot be checked: with
    /// recursive options it is denied.
    fn computed_program(&self, program: &str, args: &[String]) -> Option<Denial> {
        if !(program.starts_with('$') || program.starts_with('`'))
            || !self.enabled.has("filesystem")
        {
            return None;
        }
        let (options, _) = operands(args);
        recursive(&options).then(|| {
            Denial::new(
                &rules::COMPUTED_PROGRAM,
                format!(
                    "the program `{program}` is computed when the command runs, with recursive \
                     options, so it cannot be checked; name the program directly"
                ),
            )
        })
    }

    /// The programs read in a way of their own: what runs inside `eval`, `su -c`, a sourced
    /// file, `find -exec` and git's subcommands. `Break` is the decision (`eval` and `su -c`
    /// decide by what they run); `Continue` goes on to the general rules.
    fn program_specific(
        &self,
        here: &Here<'_, '_>,
        program: &str,
        args: &[String],
        argv: &[String],
        elevated: bool,
        depth: usize,
    ) -> ControlFlow<Option<Denial>> {
        let denial = match program {
            "eval" => return ControlFlow::Break(self.check_at(&args.join(" "), depth + 1)),
            "su" => match args
                .iter()
                .position(|a| a == "-c")
                .and_then(|i| args.get(i + 1))
            {
                Some(script) => return ControlFlow::Break(self.check_at(script, depth + 1)),
                None => None,
            },
            "source" | "." => self.sourced(args),
            "find" => self.find(here, args, elevated, depth),
            "git" if self.enabled.has("git") => {
                git::check(args).map(|rule| Denial::explained(rule, &argv.join(" ")))
            }
            _ => None,
        };
        match denial {
            Some(denial) => ControlFlow::Break(Some(denial)),
            None => ControlFlow::Continue(()),
        }
    }

    /// The rules every program goes through: destructive operations on paths, secrets named as
    /// arguments, and the rules of the packs switched on.
    fn general_rules(
        &self,
        here: &Here<'_, '_>,
        program: &str,
        args: &[String],
        argv: &[String],
        elevated: bool,
        fed: &Fed,
    ) -> Option<Denial> {
        here.destructive(program, role(program), args, elevated)
            .or_else(|| {
                self.enabled
                    .has("secrets")
                    .then(|| {
                        args.iter()
                            .enumerate()
                            // `ssh -i key` uses a key without reading it out.
                            .filter(|(i, _)| {
                                !(IDENTITY_USERS.contains(&program)
                                    && *i > 0
                                    && args[i - 1] == "-i")
                            })
                            .find_map(|(_, arg)| here.secret(arg))
                    })
                    .flatten()
            })
            .or_else(|| {
                let stdin: Vec<String> = match fed {
                    Fed::Text(text) => vec![text.clone()],
                    _ => Vec::new(),
                };
                self.catalog
                    .check(program, args, &stdin)
                    .map(|rule| Denial::explained(rule, &argv.join(" ")))
            })
    }

    /// Text fed to a command that does not run it is data (`cat <<EOF … EOF`); when that
    /// text would be denied as a command, the allowance is recorded for the policy report.
    fn note_data(&self, program: &str, fed: &Fed, depth: usize) {
        let Fed::Text(text) = fed else { return };
        if is(program, SHELL) || Language::of(program).is_some() {
            return;
        }
        if self.check_at(text, depth + 1).is_some() {
            self.exempt(&rules::POLICY_DATA);
        }
    }

    /// A shell: the script it is given (`-c`, a heredoc, a pipe, a process substitution).
    fn shell(&self, program: &str, args: &[String], fed: &Fed, depth: usize) -> Option<Denial> {
        let mut at = 0;
        let mut script: Option<&str> = None;
        let mut file: Option<&str> = None;
        while let Some(arg) = args.get(at) {
            at += 1;
            if matches!(
                arg.as_str(),
                "--rcfile" | "--init-file" | "-o" | "-O" | "+O"
            ) {
                at += 1;
            } else if arg.starts_with("--") {
            } else if let Some(flags) = arg.strip_prefix('-') {
                if let Some((_, attached)) = flags.split_once('c') {
                    // `-c 'script'`, or `-c'script'` glued to the option.
                    script = if attached.chars().all(|c| c.is_ascii_alphabetic()) {
                        args.get(at).map(String::as_str)
                    } else {
                        Some(attached)
                    };
                    break;
                }
            } else {
                file = Some(arg);
                break;
            }
        }
        if let Some(script) = script {
            if let Some(denial) = self.generated_code(script, depth) {
                return Some(denial);
            }
            return self.check_at(script, depth + 1);
        }
        if let Some(file) = file {
            return self.sourced(std::slice::from_ref(&file.to_owned()));
        }
        match fed {
            Fed::Text(text) => self.check_at(text, depth + 1),
            Fed::Download(source) if self.enabled.has("download") => Some(Denial::new(
                &rules::PIPE_TO_SHELL,
                format!(
                    "`{} | {program}` runs code from the network nobody has read; download the \
                     script to a file, read it, then run it",
                    packs::shorten(source)
                ),
            )),
            Fed::Unknown if self.enabled.has("download") => Some(Denial::new(
                &rules::UNREAD_PIPE,
                format!(
                    "piping into `{program}` runs code nobody has read; save the script to a \
                     file, read it, then run it"
                ),
            )),
            _ => None,
        }
    }

    /// A script read from a file that is really a process substitution: `<(curl …)`.
    fn sourced(&self, args: &[String]) -> Option<Denial> {
        if !self.enabled.has("download") {
            return None;
        }
        for arg in args {
            let Some(inner) = arg
                .strip_prefix("<(")
                .and_then(|rest| rest.strip_suffix(')'))
            else {
                continue;
            };
            if downloads(inner) {
                return Some(Denial::new(
                    &rules::PIPE_TO_SHELL,
                    format!(
                        "`<({})` runs code from the network nobody has read; download the \
                         script to a file, read it, then run it",
                        packs::shorten(inner)
                    ),
                ));
            }
        }
        None
    }

    /// A script that is the output of a substitution: `sh -c "$(curl …)"`,
    /// `bash -c "$(cat <<EOF … EOF)"`. The output is code, so its source is read as code.
    fn generated_code(&self, script: &str, depth: usize) -> Option<Denial> {
        if !script.contains("$(") && !script.contains('`') {
            return None;
        }
        for nested in shell::parse(script).nested {
            if downloads(&nested) && self.enabled.has("download") {
                return Some(Denial::new(
                    &rules::PIPE_TO_SHELL,
                    format!(
                        "`$({})` runs code from the network nobody has read; download the \
                         script to a file, read it, then run it",
                        packs::shorten(&nested)
                    ),
                ));
            }
            let inner = shell::parse(&nested);
            for command in &inner.commands {
                let Unwrapped { argv, .. } = unwrap(&command.words);
                let text = match argv.split_first() {
                    Some((p, args)) if is(program_name(p), PRINTER) => printed(args),
                    _ => command.stdin_text.join("\n"),
                };
                if !text.is_empty()
                    && let Some(denial) = self.check_at(&text, depth + 1)
                {
                    return Some(denial);
                }
            }
        }
        None
    }

    /// An interpreter: the code it is given inline, on a heredoc or through a pipe.
    fn interpreter(
        &self,
        here: &Here<'_, '_>,
        language: Language,
        program: &str,
        args: &[String],
        fed: &Fed,
        depth: usize,
    ) -> Option<Denial> {
        let code_flags = language.code_flags();
        let mut code: Option<String> = None;
        let mut reads_stdin = true;
        let mut at = 0;
        while let Some(arg) = args.get(at) {
            at += 1;
            if code_flags.contains(&arg.as_str()) {
                code = args.get(at).cloned();
                break;
            }
            if let Some(flag) = code_flags
                .iter()
                .find(|f| f.len() == 2 && arg.starts_with(**f) && arg.len() > 2)
            {
                code = Some(arg[flag.len()..].to_owned());
                break;
            }
            if arg == "-" {
                break;
            }
            if arg == "-m" || !arg.starts_with('-') {
                reads_stdin = false;
                break;
            }
        }
        let code = match (code, fed) {
            (Some(code), _) => code,
            (None, Fed::Text(text)) if reads_stdin => text.clone(),
            (None, Fed::Download(source)) if reads_stdin && self.enabled.has("download") => {
                return Some(Denial::new(
                    &rules::PIPE_TO_SHELL,
                    format!(
                        "`{} | {program}` runs code from the network nobody has read; download \
                         it to a file, read it, then run it",
                        packs::shorten(source)
                    ),
                ));
            }
            _ => return None,
        };
        if !self.enabled.has("inline") {
            return None;
        }
        for finding in inline::scan(language, &code) {
            let denial = match finding {
                Finding::Shell(line) => self.check_at(&line, depth + 1),
                Finding::Delete {
                    call,
                    path,
                    recursive,
                } => here.deletion(&path, recursive).map(|why| {
                    Denial::new(
                        &rules::INLINE_DELETE,
                        format!(
                            "the {} code calls `{call}` on `{path}`: {why}",
                            language.name()
                        ),
                    )
                }),
            };
            if denial.is_some() {
                return denial;
            }
        }
        None
    }

    /// `find ROOTS … -delete` or `-exec CMD {} ;`: the command runs on what `find` finds.
    fn find(
        &self,
        here: &Here<'_, '_>,
        args: &[String],
        elevated: bool,
        depth: usize,
    ) -> Option<Denial> {
        let roots: Vec<&str> = args
            .iter()
            .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
            .map(String::as_str)
            .collect();
        let roots = if roots.is_empty() { vec!["."] } else { roots };
        if args.iter().any(|a| a == "-delete") && self.enabled.has("filesystem") {
            // With tests (`-name '*.orig'`) only some files go, so only the trees the system
            // depends on are refused; without, the whole root goes.
            let filtered = args.iter().any(|a| FIND_TESTS.contains(&a.as_str()));
            if let Some(denial) = roots
                .iter()
                .filter_map(|root| here.dangerous_target(root))
                .find(|d| {
                    !filtered || matches!(d.rule.as_str(), "rm-root" | "rm-home" | "rm-system")
                })
            {
                return Some(denial);
            }
        }
        let mut at = 0;
        while let Some(arg) = args.get(at) {
            at += 1;
            if !matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let end = args[at..]
                .iter()
                .position(|a| a == ";" || a == "+")
                .map_or(args.len(), |p| at + p);
            let command = &args[at..end];
            for root in &roots {
                let argv: Vec<String> = command.iter().map(|w| w.replace("{}", root)).collect();
                if let Some(denial) =
                    self.check_argv(here, &argv, elevated, &Fed::Nothing, depth + 1)
                {
                    return Some(denial);
                }
            }
            at = end;
        }
        None
    }

    fn user_rule(&self, program: &str, args: &[String]) -> Option<Denial> {
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
            .map(|rule| Denial::new(&rules::USER, rule.reason.clone()))
    }
}

/// Whether a nested command line downloads something (its output then being code).
fn downloads(line: &str) -> bool {
    shell::parse(line).commands.iter().any(|command| {
        let Unwrapped { argv, .. } = unwrap(&command.words);
        argv.first()
            .is_some_and(|p| is(program_name(p), DOWNLOADER))
    })
}

/// The checks that depend on the directory a command runs in.
pub(crate) struct Here<'r, 'a> {
    rules: &'r CommandRules<'a>,
    cwd: &'r Path,
    /// Whether the directory's path holds a literal of the protected patterns, once known.
    cwd_hinted: Cell<Option<bool>>,
}

impl<'r, 'a> Here<'r, 'a> {
    fn new(rules: &'r CommandRules<'a>, cwd: &'r Path) -> Self {
        Here {
            rules,
            cwd,
            cwd_hinted: Cell::new(None),
        }
    }

    /// Whether `word` could name a protected file from here (see
    /// [`PathRules::might_be_secret`]), the directory's part computed once.
    fn might_be_secret(&self, word: &str) -> bool {
        let paths = self.rules.paths;
        if paths.secret_hint(word.as_bytes()) {
            return true;
        }
        let cwd_hinted = match self.cwd_hinted.get() {
            Some(known) => known,
            None => {
                let known = paths.secret_hint(self.cwd.as_os_str().as_encoded_bytes());
                self.cwd_hinted.set(Some(known));
                known
            }
        };
        cwd_hinted || (paths.home_hinted() && word.starts_with(['~', '$']))
    }
}

impl Here<'_, '_> {
    fn absolute(&self, raw: &str) -> Result<PathBuf, String> {
        self.rules.paths.absolute_from(raw, self.cwd)
    }

    fn on(&self, pack: &str) -> bool {
        self.rules.enabled.has(pack)
    }

    /// A deletion the filesystem pack refuses: as root, with `--no-preserve-root`, of a
    /// dangerous target, or (under `rm_policy: temp_only`) outside the temporary directories.
    fn refused_deletion(
        &self,
        program: &str,
        options: &[&str],
        operands: &[&str],
        elevated: bool,
    ) -> Option<Denial> {
        let deleting = matches!(program, "rm" | "rmdir" | "unlink" | "shred");
        if !deleting || !self.on("filesystem") {
            return None;
        }
        if elevated {
            return Some(Denial::new(
                &rules::ELEVATED_DELETE,
                format!(
                    "`sudo {program}` is blocked: deleting as root can destroy the system; \
                     delete files you own, inside the project instead"
                ),
            ));
        }
        if options.contains(&"--no-preserve-root") {
            return Some(Denial::new(
                &rules::NO_PRESERVE_ROOT,
                "`--no-preserve-root` is blocked: it exists only to delete the whole file \
                 system; delete a specific directory instead"
                    .to_owned(),
            ));
        }
        if program == "rm" && recursive(options) {
            if let Some(denial) = operands.iter().find_map(|t| self.dangerous_target(t)) {
                return Some(denial);
            }
            if self.rules.rm_policy == RmPolicy::TempOnly
                && forced(options)
                && let Some(target) = operands.iter().find(|t| !self.literally_temporary(t))
            {
                return Some(Denial::new(
                    &rules::RM_OUTSIDE_TEMP,
                    format!(
                        "refusing `rm -rf {target}`: with `rm_policy: temp_only` only \
                             /tmp, /var/tmp and $TMPDIR may be deleted recursively; delete \
                             specific files, or ask the user"
                    ),
                ));
            }
        }
        None
    }

    /// Destructive programs and their dangerous uses.
    fn destructive(
        &self,
        program: &str,
        roles: u16,
        args: &[String],
        elevated: bool,
    ) -> Option<Denial> {
        let interesting = elevated
            || roles & (WRITER | DISK_TOOL | POWER) != 0
            || matches!(program, "unlink" | "init" | "systemctl" | "dd")
            || program.starts_with("mkfs");
        if !interesting {
            return None;
        }
        let (options, operands) = operands(args);
        if let Some(denial) = self.refused_deletion(program, &options, &operands, elevated) {
            return Some(denial);
        }
        if self.on("disk")
            && let Some(denial) = self.disk(program, args, &operands)
        {
            return Some(denial);
        }
        if matches!(program, "chmod" | "chown" | "chgrp")
            && recursive(&options)
            && self.on("system")
        {
            // Only the trees the system depends on: permissions elsewhere can be put back.
            if let Some(denial) = operands
                .iter()
                .filter_map(|t| self.dangerous_target(t))
                .find(|d| matches!(d.rule.as_str(), "rm-root" | "rm-home" | "rm-system"))
            {
                return Some(Denial::new(&rules::RECURSIVE_PERMISSIONS, denial.message));
            }
        }
        if elevated && roles & WRITER != 0 && self.on("system") {
            return Some(Denial::new(
                &rules::ELEVATED_WRITE,
                format!(
                    "`sudo {program}` is blocked: changing files as root can break the system; \
                     work on files you own, inside the project instead"
                ),
            ));
        }
        if roles & WRITER != 0 {
            for operand in &operands {
                if let Some(denial) = self.written_path(operand) {
                    return Some(denial);
                }
            }
        }
        None
    }

    fn disk(&self, program: &str, args: &[String], operands: &[&str]) -> Option<Denial> {
        if program.starts_with("mkfs") || is(program, DISK_TOOL) {
            return Some(Denial::new(
                &rules::FORMAT,
                format!(
                    "`{program}` formats or partitions disks; that is never part of a coding \
                     task, so ask the user instead"
                ),
            ));
        }
        if program == "dd"
            && let Some(device) = args
                .iter()
                .find_map(|a| a.strip_prefix("of="))
                .filter(|t| is_device(t))
        {
            return Some(Denial::new(
                &rules::DEVICE_WRITE,
                format!("`dd of={device}` would overwrite a disk device; write to a file instead"),
            ));
        }
        if is(program, POWER)
            || (program == "init" && operands.first().is_some_and(|l| *l == "0" || *l == "6"))
            || (program == "systemctl"
                && operands
                    .iter()
                    .any(|a| matches!(*a, "poweroff" | "reboot" | "halt")))
        {
            return Some(Denial::new(
                &rules::POWER,
                format!(
                    "`{program}` would stop or restart the machine; that is for the user to do, \
                     so ask instead"
                ),
            ));
        }
        None
    }

    /// Why deleting `target` from inline code is refused, if it is.
    fn deletion(&self, target: &str, recursive: bool) -> Option<String> {
        if recursive {
            self.dangerous_target(target).map(|d| d.message)
        } else {
            self.written_path(target).map(|d| d.message)
        }
    }

    /// Whether `target` is literally under a temporary directory (`/tmp/…`, `$TMPDIR/…`).
    fn literally_temporary(&self, target: &str) -> bool {
        let expanded = self.rules.paths.expand_temp(target);
        let candidate = expanded.as_deref().unwrap_or(target);
        candidate.starts_with('/')
            && self
                .absolute(candidate)
                .is_ok_and(|path| self.rules.paths.in_temp(&path))
    }

    /// A recursive target that would take the system, the home directory or the workspace.
    pub(crate) fn dangerous_target(&self, target: &str) -> Option<Denial> {
        let globbed = target.ends_with('*');
        let stripped = target
            .trim_end_matches('*')
            .trim_end_matches(".*")
            .trim_end_matches('/');
        let stripped = if stripped.is_empty() && target.starts_with('/') {
            "/"
        } else {
            stripped
        };
        let expanded = self.rules.paths.expand_temp(stripped);
        let stripped = expanded.as_deref().unwrap_or(stripped);
        let computed = (stripped.starts_with('$')
            && !(stripped.starts_with("$HOME") || stripped.starts_with("${HOME}")))
            || stripped.starts_with('`');
        if computed {
            return Some(Denial::new(
                &rules::RM_COMPUTED,
                format!(
                    "refusing to delete `{target}` recursively: the shell computes that path \
                     when it runs, so it cannot be checked; name the directory directly instead"
                ),
            ));
        }
        let path = match self.absolute(if stripped.is_empty() { "." } else { stripped }) {
            Ok(path) => path,
            Err(why) => {
                return Some(Denial::new(
                    &rules::RM_OUTSIDE,
                    format!("refusing to delete `{target}`: {why}"),
                ));
            }
        };
        let paths = self.rules.paths;
        let (rule, what) = if path == Path::new("/") {
            (&rules::RM_ROOT, "the root of the file system")
        } else if paths.home.as_deref() == Some(path.as_path()) {
            (&rules::RM_HOME, "your home directory")
        } else if paths.is_system(&path) {
            (&rules::RM_SYSTEM, "a protected system directory")
        } else if path == paths.workspace {
            (&rules::RM_WORKSPACE, "the whole workspace")
        } else if paths.workspace.starts_with(&path) {
            // Checked before the temporary directories: a workspace under /tmp goes with its
            // parent all the same.
            (
                &rules::RM_WORKSPACE,
                "a directory that holds the whole workspace",
            )
        } else if paths.is_secret(&path) || paths.is_secret(&path.join("*")) {
            // `~/.ssh` itself, or a directory whose every file is protected (`.ssh/**`).
            return Some(Denial::new(
                &rules::SECRET_FILE,
                format!(
                    "refusing to delete `{target}` recursively: it holds keys or credentials; \
                     ask the user to handle it instead"
                ),
            ));
        } else if paths.in_workspace(&path) {
            self.rules.exempt(&rules::POLICY_WORKSPACE);
            return None;
        } else if paths.in_temp(&path) && (globbed || !paths.is_temp_root(&path)) {
            self.rules.exempt(&rules::POLICY_TEMP);
            return None;
        } else {
            (&rules::RM_OUTSIDE, "outside the workspace")
        };
        Some(Denial::new(
            rule,
            format!(
                "refusing to delete `{target}` recursively: it is {what}; delete the specific \
                 build or output directory inside the project instead"
            ),
        ))
    }

    /// A path written to: a system directory, a disk device or a secret.
    fn written_path(&self, target: &str) -> Option<Denial> {
        if is_device(target) && self.on("disk") {
            return Some(Denial::new(
                &rules::DEVICE_WRITE,
                format!(
                    "writing to `{target}` would overwrite a disk device; write to a file instead"
                ),
            ));
        }
        let path = self.absolute(target).ok()?;
        if self.rules.paths.is_system(&path) && self.on("system") {
            return Some(Denial::new(
                &rules::WRITE_SYSTEM,
                format!(
                    "`{target}` is in a protected system directory; write inside the project \
                     instead"
                ),
            ));
        }
        self.secret(target)
    }

    /// A path that names a protected file (keys, `.env`, credentials).
    fn secret(&self, word: &str) -> Option<Denial> {
        if word.starts_with('-')
            || word.contains(char::is_whitespace)
            || !self.on("secrets")
            || !self.might_be_secret(word)
        {
            return None;
        }
        let path = self.absolute(word).ok()?;
        self.rules.paths.is_secret(&path).then(|| {
            Denial::new(
                &rules::SECRET_FILE,
                format!(
                    "`{word}` holds secrets and is protected; use environment variables, or ask \
                     the user to handle that file instead"
                ),
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

/// The fork-bomb shape, compiled the first time a line could be one (it rarely is).
fn fork_bomb() -> &'static Regex {
    static FORK_BOMB: OnceLock<Regex> = OnceLock::new();
    FORK_BOMB.get_or_init(|| {
        Regex::new(r"(\w+|:)\s*\(\s*\)\s*\{[^}]*\|\s*(\w+|:)\s*&")
            .unwrap_or_else(|error| unreachable!("the fork-bomb pattern compiles: {error}"))
    })
}
