//! The walk over a command line: every simple command, in lists, pipelines, groups,
//! substitutions, heredocs and the scripts given to shells and interpreters, with wrappers
//! (`sudo`, `env`, `command`, `nice`, `timeout`, `nohup`, `xargs`, `find -exec`) seen through,
//! each checked against the packs that are on.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::RmPolicy;
use crate::inline::{self, Finding, Language};
use crate::packs::builtin as rules;
use crate::packs::filesystem::{FIND_TESTS, computed_program};
use crate::packs::here::Here;
use crate::packs::{self, Denial, Enabled, Rule, catalog, disk, git};
use crate::paths::PathRules;
use crate::programs::{
    DOWNLOADER, ELEVATING, HEADER, KEYWORD, PRINTER, SHELL, WRAPPER, is, is_assignment,
    program_name, role,
};
use crate::shell::{self, Event, SimpleCommand};

/// How deep scripts may nest (`bash -c "sh -c '…'"`) before the check gives up and denies.
const MAX_DEPTH: usize = 8;

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

/// The words of a line an `echo` or `printf` prints, options dropped.
fn printed(args: &[String]) -> String {
    args.iter()
        .skip_while(|a| a.starts_with('-') && a.len() > 1)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

impl CommandRules<'_> {
    /// Why `line`, run in the directory `cwd`, must not run, if it must not.
    pub(crate) fn check(&self, line: &str, cwd: &Path) -> Option<Denial> {
        self.check_from(line, 0, cwd)
    }

    fn exempt(&self, rule: &'static Rule) {
        self.exemptions.borrow_mut().push(rule);
    }

    /// The rules' checks for a command run in `cwd`.
    fn here<'r>(&'r self, cwd: &'r Path) -> Here<'r> {
        Here::new(
            self.paths,
            self.enabled,
            self.rm_policy,
            &self.exemptions,
            cwd,
        )
    }

    fn check_at(&self, line: &str, depth: usize) -> Option<Denial> {
        self.check_from(line, depth, &self.paths.workspace)
    }

    fn check_from(&self, line: &str, depth: usize, start: &Path) -> Option<Denial> {
        if depth > MAX_DEPTH {
            return Some(Denial::new(
                &rules::TOO_DEEP,
                "the command nests shells too deeply to be checked; run the inner command \
                 directly"
                    .to_owned(),
            ));
        }
        if let Some(denial) = disk::fork_bomb(self.enabled, line) {
            return Some(denial);
        }
        // Each command is checked as soon as it is read, and the reading stops at the first
        // denial. `cd` moves where later relative paths point: `cd / && rm -rf *`.
        let mut denial = None;
        let mut cwd = start.to_path_buf();
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
            let here = self.here(cwd.as_path());
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
        here: &Here<'_>,
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
        here: &Here<'_>,
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
            .or_else(|| computed_program(self.enabled, program, args))
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

    /// The programs read in a way of their own: what runs inside `eval`, `su -c`, a sourced
    /// file, `find -exec` and git's subcommands. `Break` is the decision (`eval` and `su -c`
    /// decide by what they run); `Continue` goes on to the general rules.
    fn program_specific(
        &self,
        here: &Here<'_>,
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
        here: &Here<'_>,
        program: &str,
        args: &[String],
        argv: &[String],
        elevated: bool,
        fed: &Fed,
    ) -> Option<Denial> {
        here.destructive(program, role(program), args, elevated)
            .or_else(|| here.secret_argument(program, args))
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
        here: &Here<'_>,
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
        here: &Here<'_>,
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
        if args.iter().any(|a| a == "-delete") {
            let filtered = args.iter().any(|a| FIND_TESTS.contains(&a.as_str()));
            if let Some(denial) = here.find_delete(&roots, filtered) {
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
