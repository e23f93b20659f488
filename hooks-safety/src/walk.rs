//! The walk over a command line: every simple command, in lists, pipelines, groups,
//! substitutions, heredocs and the scripts given to shells and interpreters, and every command
//! handed on to another program (wrappers, `xargs`, `parallel`, `find -exec`, `ssh`, an
//! unknown program; their grammars are in `handoff.rs`), each checked against the packs that
//! are on, where it runs (`cd`, and the variables the line assigns, followed to its end).

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::path::Path;

use regex::Regex;

use crate::RmPolicy;
use crate::budget::Budget;
use crate::handoff::{self, Unwrapped, unwrap};
use crate::inline::{self, Finding, Language};
use crate::packs::builtin as rules;
use crate::packs::filesystem::{FIND_TESTS, computed_program};
use crate::packs::here::{Here, Place};
use crate::packs::{self, Denial, Enabled, Rule, catalog, disk, git, resident, self_admin};
use crate::patch;
use crate::paths::PathRules;
use crate::programs::{
    DISK_TOOL, DOWNLOADER, POWER, PRINTER, RUNNER, SHELL, WRAPPER, WRITER, is, is_assignment,
    program_name, role,
};
use crate::protection::SelfProtection;
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
    /// The product's processes and programs the guard keeps from the agent.
    pub protection: &'a SelfProtection,
    /// Rules that would have fired but for a policy (deleting in the workspace or a
    /// temporary directory).
    pub exemptions: RefCell<Vec<&'static Rule>>,
    /// What this check has spent of its work.
    pub budget: Budget,
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
    /// The process ids of a resident process of the guard (`pgrep -f NAME`).
    GuardPids,
}

/// The words of a line an `echo` or `printf` prints, options dropped; `printf`'s `\n`
/// escapes are line breaks.
fn printed(program: &str, args: &[String]) -> String {
    let text = args
        .iter()
        .skip_while(|a| a.starts_with('-') && a.len() > 1)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    if program == "printf" {
        text.replace("\\n", "\n")
    } else {
        text
    }
}

impl CommandRules<'_> {
    /// Why `line`, run in the directory `cwd`, must not run, if it must not.
    pub(crate) fn check(&self, line: &str, cwd: &Path) -> Option<Denial> {
        self.check_in(line, 0, &mut Place::at(cwd))
    }

    fn exempt(&self, rule: &'static Rule) {
        self.exemptions.borrow_mut().push(rule);
    }

    /// The rules' checks for a command run at `place`.
    fn here<'r>(&'r self, place: &'r Place) -> Here<'r> {
        Here::new(
            self.paths,
            self.enabled,
            self.rm_policy,
            &self.exemptions,
            place,
        )
    }

    /// `line` read on its own, from the workspace (text that is data, generated code).
    fn check_at(&self, line: &str, depth: usize) -> Option<Denial> {
        self.check_in(line, depth, &mut Place::at(&self.paths.workspace))
    }

    /// `line` run by a command at `here`: it starts where that command runs.
    fn check_nested(&self, line: &str, depth: usize, here: &Here<'_>) -> Option<Denial> {
        self.check_in(line, depth, &mut here.place().clone())
    }

    /// `line` read from `place`, which its `cd`s and assignments move on.
    fn check_in(&self, line: &str, depth: usize, place: &mut Place) -> Option<Denial> {
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
        shell::read(line, &mut |event| {
            denial = match event {
                Event::Nested(inner) => {
                    let mut inner_place = place.clone();
                    let denial = self.check_in(inner, depth + 1, &mut inner_place);
                    if inner_place.cwd != place.cwd || !inner_place.cwd_known {
                        // A `cd` in a substitution or subshell may or may not outlive it:
                        // where later relative paths point is no longer known.
                        place.cwd_known = false;
                    }
                    denial
                }
                Event::Command(command, source) => self.budget.command().or_else(|| {
                    let fed = self.fed(command, source);
                    self.check_command(command, fed, depth, place)
                }),
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
                    Fed::Text(printed(program, args))
                } else if roles & DOWNLOADER != 0 {
                    Fed::Download(source.words.join(" "))
                } else if program == "cat" && !source.stdin_text.is_empty() {
                    Fed::Text(source.stdin_text.join("\n"))
                } else if resident::looks_up_any(&self.protection.resident, argv) {
                    Fed::GuardPids
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
        place: &mut Place,
    ) -> Option<Denial> {
        // `TMPDIR=/x rm -rf $TMPDIR/y`: the command, and the rest of the line, are read with
        // the value assigned before the program (a shell expands the old value in this
        // command, a temporary directory all the same, and the new one in what it runs).
        let assigned = command
            .words
            .iter()
            .take_while(|w| is_assignment(w))
            .count();
        if assigned > 0 && assigned < command.words.len() {
            for word in &command.words[..assigned] {
                if let Some((name, value)) = word.split_once('=') {
                    place.assign(name, literal(value));
                }
            }
        }
        // Variables the line assigned stand for their values.
        let substituted: Option<SimpleCommand> = (!place.vars.is_empty()).then(|| {
            let mut copy = command.clone();
            for word in copy
                .words
                .iter_mut()
                .chain(copy.redirect_targets.iter_mut())
            {
                if let Some(value) = place.substitute(word) {
                    *word = value;
                }
            }
            copy
        });
        if let Some(copy) = &substituted {
            let built = copy
                .words
                .iter()
                .chain(&copy.redirect_targets)
                .map(String::len);
            if let Some(denial) = self.budget.built(built.sum()) {
                return Some(denial);
            }
        }
        let command = substituted.as_ref().unwrap_or(command);
        let unwrapped = unwrap(&command.words);
        let denial = {
            let moved;
            let place_here = match unwrapped.chdir {
                Some(dir) => {
                    moved = moved_to(self.paths, place, dir);
                    &moved
                }
                None => &*place,
            };
            let here = self.here(place_here);
            self.check_unwrapped(&here, command, &unwrapped, &fed, depth)
        };
        if denial.is_some() {
            return denial;
        }
        match unwrapped.argv.split_first() {
            Some((program, args)) if program_name(program) == "cd" => {
                let target = args
                    .iter()
                    .find(|a| !a.starts_with('-') || *a == "-")
                    .map_or("~", String::as_str);
                *place = moved_to(self.paths, place, target);
            }
            Some((program, args))
                if matches!(
                    program_name(program),
                    "export" | "declare" | "typeset" | "local" | "readonly"
                ) =>
            {
                for (name, value) in args.iter().filter_map(|a| a.split_once('=')) {
                    place.assign(name, literal(value));
                }
            }
            None => {
                // `NAME=value` alone sets a shell variable for the rest of the line.
                let assignments = command.words.iter().filter(|w| is_assignment(w));
                for (name, value) in assignments.filter_map(|w| w.split_once('=')) {
                    place.assign(name, literal(value));
                }
            }
            _ => {}
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
            if let Some(denial) = here
                .guarded_write(target)
                .or_else(|| here.written_path(target))
            {
                return Some(denial);
            }
        }
        for source in &command.input_files {
            if let Some(denial) = here.secret(source) {
                return Some(denial);
            }
        }
        if let Some(denial) = here.guard_patch_files(unwrapped.argv, &command.input_files) {
            return Some(denial);
        }
        if let Some(line) = &unwrapped.line
            && let Some(denial) = self.check_nested(line, depth + 1, here)
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
        self.check_argv(here, unwrapped.argv, unwrapped.elevated, fed, depth)
    }

    /// The checks on the words of a command handed on by another (`find -exec`, `xargs`,
    /// `parallel`, an unknown program): its own wrappers removed first.
    fn check_words(
        &self,
        here: &Here<'_>,
        words: &[String],
        elevated: bool,
        fed: &Fed,
        depth: usize,
    ) -> Option<Denial> {
        let unwrapped = unwrap(words);
        if let Some(line) = &unwrapped.line
            && let Some(denial) = self.check_nested(line, depth + 1, here)
        {
            return Some(denial);
        }
        self.check_argv(
            here,
            unwrapped.argv,
            elevated || unwrapped.elevated,
            fed,
            depth,
        )
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
        if let Some(denial) = here
            .guard_writes(program, args)
            .or_else(|| resident::stops_guard(&self.protection.resident, program, args))
            .or_else(|| self_admin::administers_guard(&self.protection.admin, program, args))
            .or_else(|| self.user_rule(program, args))
            .or_else(|| computed_program(self.enabled, program, args))
        {
            return Some(denial);
        }
        let roles = role(program);
        if roles & SHELL != 0
            && let Some(denial) = self.shell(here, program, args, fed, depth)
        {
            return Some(denial);
        }
        if let Some(language) = Language::of(program)
            && let Some(denial) = self.interpreter(here, language, program, args, fed, depth)
        {
            return Some(denial);
        }
        if let ControlFlow::Break(decided) =
            self.program_specific(here, program, args, argv, elevated, fed, depth)
        {
            return decided;
        }
        let denial = self
            .general_rules(here, program, args, argv, elevated, fed)
            .or_else(|| self.unknown_runner(here, program, roles, args, depth));
        if denial.is_none() {
            self.note_data(program, fed, depth);
        }
        denial
    }

    /// A program the checker does not know, placed before a command it would deny
    /// (`tool rm -rf /`, `retry git reset --hard`): it may well run that command, so the
    /// command is checked as if it ran. Programs known not to run their arguments (printers,
    /// pagers, search tools, help) are left alone, and so is any command that would pass.
    fn unknown_runner(
        &self,
        here: &Here<'_>,
        program: &str,
        roles: u16,
        args: &[String],
        depth: usize,
    ) -> Option<Denial> {
        if roles != 0 || program == "git" {
            return None;
        }
        let at = args.iter().position(|a| !a.starts_with('-'))?;
        let next = program_name(&args[at]);
        let runs = role(next) & (WRAPPER | SHELL | WRITER | DISK_TOOL | POWER | RUNNER) != 0
            || matches!(next, "git" | "dd")
            || next.starts_with("mkfs");
        // The list is only looked at for the rare line that needs it.
        if !runs || READS_ARGUMENTS_AS_DATA.contains(&program) {
            return None;
        }
        // Only what destroys data for certain: subcommands that share a program's name
        // (`apt-get install`, `docker cp x /etc/app`) are not refused for what that program
        // would do with root or system paths.
        self.check_words(here, &args[at..], false, &Fed::Nothing, depth + 1)
            .filter(|denial| {
                matches!(denial.pack.as_str(), "filesystem" | "git" | "disk")
                    && denial.rule != "elevated-delete"
            })
    }

    /// `xargs`: its command, with the items it reads added (or put in place of its
    /// replacement string). Items from a file or an unknown pipe are unknown words, which a
    /// recursive deletion refuses.
    fn xargs(
        &self,
        here: &Here<'_>,
        args: &[String],
        elevated: bool,
        fed: &Fed,
        depth: usize,
    ) -> Option<Denial> {
        let mut read = handoff::xargs(args);
        // `xargs xargs … cmd`: the items reach the innermost command; peeled in a loop.
        while read
            .command
            .first()
            .is_some_and(|p| program_name(p) == "xargs")
        {
            let inner = handoff::xargs(&read.command[1..]);
            read = handoff::Xargs {
                replace: read.replace.or(inner.replace),
                from_file: read.from_file || inner.from_file,
                command: inner.command,
            };
        }
        let echo = ["echo".to_owned()];
        let command = if read.command.is_empty() {
            &echo[..]
        } else {
            read.command
        };
        let items: Vec<String> = match fed {
            Fed::Text(text) if !read.from_file => match read.replace {
                Some(_) => text.lines().map(str::to_owned).collect(),
                None => text.split_whitespace().map(str::to_owned).collect(),
            },
            Fed::Nothing if !read.from_file => Vec::new(),
            Fed::GuardPids if !read.from_file => vec![resident::GUARD_PIDS.to_owned()],
            _ => vec![UNKNOWN_ITEM.to_owned()],
        };
        match read.replace {
            // With a replacement string the command has, each item goes in its place; one it
            // does not have (`xargs -i rm -rf`) is read as if the item were added, to be safe.
            Some(replace) if command.iter().any(|w| w.contains(replace)) => {
                for item in &items {
                    let argv: Vec<String> =
                        command.iter().map(|w| w.replace(replace, item)).collect();
                    if let Some(denial) =
                        self.check_words(here, &argv, elevated, &Fed::Nothing, depth + 1)
                    {
                        return Some(denial);
                    }
                }
                self.check_words(here, command, elevated, &Fed::Nothing, depth + 1)
            }
            _ => {
                let mut argv = command.to_vec();
                if argv.last().is_some_and(|w| w == "-c") && is(program_name(&argv[0]), SHELL) {
                    // `xargs sh -c`: the items are the script.
                    argv.push(items.join(" "));
                } else {
                    argv.extend(items);
                }
                self.check_words(here, &argv, elevated, &Fed::Nothing, depth + 1)
            }
        }
    }

    /// GNU `parallel`: its command template with each argument put in (or added), or each
    /// argument as a command line when there is no template; arguments from standard input
    /// when no `:::` gives them.
    fn parallel(
        &self,
        here: &Here<'_>,
        args: &[String],
        elevated: bool,
        fed: &Fed,
        depth: usize,
    ) -> Option<Denial> {
        let read = handoff::parallel(args);
        let piped: Vec<String>;
        let mut groups: Vec<&[String]> = read.groups.clone();
        if groups.is_empty() && !read.from_files {
            piped = match fed {
                Fed::Text(text) => text.lines().map(str::to_owned).collect(),
                Fed::Nothing => Vec::new(),
                Fed::GuardPids => vec![resident::GUARD_PIDS.to_owned()],
                _ => vec![UNKNOWN_ITEM.to_owned()],
            };
            groups.push(&piped);
        } else if read.from_files {
            piped = vec![UNKNOWN_ITEM.to_owned()];
            groups.push(&piped);
        }
        if read.command.is_empty() {
            for line in groups.iter().flat_map(|group| group.iter()) {
                if line != UNKNOWN_ITEM
                    && let Some(denial) = self.check_nested(line, depth + 1, here)
                {
                    return Some(denial);
                }
            }
            return None;
        }
        let templated = read.command.iter().any(|w| handoff::has_replacement(w));
        for (index, group) in groups.iter().enumerate() {
            for value in group.iter() {
                let argv: Vec<String> = if templated {
                    read.command
                        .iter()
                        .map(|w| handoff::replaced(w, index + 1, value))
                        .collect()
                } else {
                    let mut argv = read.command.to_vec();
                    argv.push(value.clone());
                    argv
                };
                if let Some(denial) =
                    self.check_words(here, &argv, elevated, &Fed::Nothing, depth + 1)
                {
                    return Some(denial);
                }
            }
        }
        self.check_words(here, read.command, elevated, &Fed::Nothing, depth + 1)
    }

    /// The programs read in a way of their own: what runs inside `eval`, `su -c`, a sourced
    /// file, `find -exec` and git's subcommands. `Break` is the decision (`eval` and `su -c`
    /// decide by what they run); `Continue` goes on to the general rules.
    #[allow(clippy::too_many_arguments)]
    fn program_specific(
        &self,
        here: &Here<'_>,
        program: &str,
        args: &[String],
        argv: &[String],
        elevated: bool,
        fed: &Fed,
        depth: usize,
    ) -> ControlFlow<Option<Denial>> {
        let denial = match program {
            "eval" => {
                return ControlFlow::Break(self.check_nested(&args.join(" "), depth + 1, here));
            }
            "su" => match args
                .iter()
                .position(|a| a == "-c")
                .and_then(|i| args.get(i + 1))
            {
                Some(script) => {
                    return ControlFlow::Break(self.check_nested(script, depth + 1, here));
                }
                None => None,
            },
            "source" | "." => self.sourced(args),
            // A patch is read as the files it changes, never as a command line.
            "apply_patch" | "applypatch" => {
                let text = match fed {
                    Fed::Text(text) => Some(text.as_str()),
                    _ => args.first().map(String::as_str),
                };
                return ControlFlow::Break(text.and_then(|text| here.guard_patch(text)));
            }
            "patch" if matches!(fed, Fed::Text(text) if patch::looks_like_patch(text)) => match fed
            {
                Fed::Text(text) => here.guard_patch(text),
                _ => None,
            },
            "find" => self.find(here, args, elevated, depth),
            "xargs" => self.xargs(here, args, elevated, fed, depth),
            "parallel" => self.parallel(here, args, elevated, fed, depth),
            "ssh" | "rsh" | "mosh" => handoff::remote_command(args)
                .and_then(|line| self.check_at(&line, depth + 1))
                .filter(|denial| !LOCAL_PATH_RULES.contains(&denial.rule.as_str())),
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
    fn shell(
        &self,
        here: &Here<'_>,
        program: &str,
        args: &[String],
        fed: &Fed,
        depth: usize,
    ) -> Option<Denial> {
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
            return self.check_nested(script, depth + 1, here);
        }
        if let Some(file) = file {
            return self.sourced(std::slice::from_ref(&file.to_owned()));
        }
        match fed {
            Fed::Text(text) => self.check_nested(text, depth + 1, here),
            Fed::Download(source) if self.enabled.has("download") => Some(Denial::new(
                &rules::PIPE_TO_SHELL,
                format!(
                    "`{} | {program}` runs code from the network nobody has read; download the \
                     script to a file, read it, then run it",
                    packs::shorten(source)
                ),
            )),
            Fed::Unknown | Fed::GuardPids if self.enabled.has("download") => Some(Denial::new(
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
                    Some((p, args)) if is(program_name(p), PRINTER) => {
                        printed(program_name(p), args)
                    }
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
        if let Some(denial) = here.guard_in_place(language, args) {
            return Some(denial);
        }
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
        if let Some(denial) = here.guard_code(language, &code) {
            return Some(denial);
        }
        if !self.enabled.has("inline") {
            return None;
        }
        for finding in inline::scan(language, &code) {
            let denial = match finding {
                Finding::Shell(line) => self.check_nested(&line, depth + 1, here),
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
        let actions = handoff::find_actions(args);
        if actions.deletes {
            let filtered = args.iter().any(|a| FIND_TESTS.contains(&a.as_str()));
            if let Some(denial) = here.find_delete(&roots, filtered) {
                return Some(denial);
            }
        }
        for command in actions.commands {
            for root in &roots {
                let argv: Vec<String> = command.iter().map(|w| w.replace("{}", root)).collect();
                if let Some(denial) =
                    self.check_words(here, &argv, elevated, &Fed::Nothing, depth + 1)
                {
                    return Some(denial);
                }
            }
        }
        // Last, as it reads the file system: the guard files it would delete or rewrite.
        here.guard_find(&roots, args)
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

/// What an item read from a file or an unknown pipe stands for: a word the shell computes,
/// so a recursive deletion of it is refused and other uses pass.
const UNKNOWN_ITEM: &str = "$ITEM";

/// The rules that judge a path by where it is on this machine (in the workspace, a
/// temporary directory, computed): a remote command's paths are on the remote host, so
/// they do not apply there; the rest (the root, the home directory, git, disks) do.
const LOCAL_PATH_RULES: &[&str] = &[
    "rm-outside-workspace",
    "rm-computed-path",
    "rm-workspace",
    "rm-temp-root",
    "rm-outside-temp",
];

/// Programs known to take their arguments as data, never as a command to run: an unknown
/// program placed before a command is checked as running it, these are not.
const READS_ARGUMENTS_AS_DATA: &[&str] = &[
    "man",
    "info",
    "help",
    "which",
    "whereis",
    "whatis",
    "apropos",
    "type",
    "hash",
    "alias",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "wc",
    "ls",
    "stat",
    "file",
    "sort",
    "uniq",
    "cut",
    "tr",
    "jq",
    "yq",
    "test",
    "[",
    "expr",
    "read",
    "complete",
    "compgen",
    "tldr",
    "diff",
    "cmp",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "column",
    "fold",
    "fmt",
    "nl",
    "rev",
    "tac",
    "od",
    "hexdump",
    "xxd",
    "base64",
    "md5sum",
    "sha256sum",
    "sha1sum",
    "cksum",
    "b2sum",
    "strings",
    "say",
    "banner",
    "figlet",
    "cowsay",
    "notify-send",
    "logger",
    "wall",
    "write",
    "trap",
    "unalias",
    "unset",
    "shift",
    "exit",
    "return",
    "true",
    "false",
    ":",
];

/// The longest directory the check follows `cd` into: a longer one is one no system opens
/// (`PATH_MAX`), and following `cd a; cd a; …` past it would make each step cost the length of
/// the path so far.
const MAX_CWD_BYTES: usize = 4096;

/// Where `cd target` from `place` leads: a target the shell computes (`$dir`, `` `…` ``,
/// `-`), cannot resolve, or that is longer than [`MAX_CWD_BYTES`] leaves the directory
/// unknown.
fn moved_to(paths: &PathRules, place: &Place, target: &str) -> Place {
    let mut moved = place.clone();
    let computed = target == "-" || target.contains(['$', '`']);
    match paths.absolute_from(target, &place.cwd) {
        Ok(path) if !computed && path.as_os_str().len() <= MAX_CWD_BYTES => moved.cwd = path,
        _ => moved.cwd_known = false,
    }
    moved
}

/// An assigned value, when it is literal text (nothing the shell computes).
fn literal(value: &str) -> Option<String> {
    (!value.contains(['$', '`'])).then(|| value.to_owned())
}
