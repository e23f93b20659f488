//! The guard keeps its resident processes running: a command that stops or kills one of the
//! processes the product names ([`ResidentProcess`]: a server answering the agents' HTTP hooks,
//! a proxy in front of their tools) is refused whatever the packs (`guard:stop-guard`). With
//! such a server down every call the agent makes is blocked, or, worse, answered by whatever
//! the agent starts on the server's port.
//!
//! What counts as naming the guard, since a command sees no process table:
//!
//! - `pkill`, `pgrep` and `killall` patterns are tried on what those tools match: the
//!   process's program name, and with `-f` its command lines (with the directory the pattern
//!   itself puts before the name). A pattern that names another program passes; one that a
//!   command line matches in part (`pkill -f serve` for a `NAME serve …` line) is refused. A
//!   pattern-less selection of a whole user's processes (`pkill -u me`, `killall -u me`) and an
//!   inverted one (`pkill -v …`) take the guard with them.
//! - `kill` of every process (`kill -9 -1`), or of the process ids a lookup of the guard prints
//!   (`kill $(pgrep -f NAME)`, `pgrep NAME | xargs kill`, `kill $(lsof -t -i :PORT)`); on
//!   Linux, a literal process id is looked up in `/proc` (`kill 4242` where 4242 runs the
//!   program with one of its command lines' subcommands). A job (`kill %1`), a variable, or
//!   another lookup passes.
//! - the service managers: `systemctl stop|kill|disable|mask` of its systemd units (globs
//!   included) and `systemctl --user exit`; `launchctl unload|bootout|remove|stop|kill|disable`
//!   of its launchd labels.
//! - `fuser -k` of its default ports (`PORT/tcp`) or of its program.
//!
//! Signal 0 (`kill -0`, which only asks whether a process exists) stops nothing and passes.

use regex::RegexBuilder;

use super::{Denial, Rule, Severity};
use crate::handoff::unwrap;
use crate::programs::{operands, program_name};
use crate::protection::ResidentProcess;
use crate::shell;

/// Stopping or killing the resident guard.
pub(crate) const STOP_GUARD: Rule = Rule {
    pack: "guard",
    name: "stop-guard",
    severity: Severity::Critical,
    reason: "stops a resident process of the guard that answers this agent's hooks, which would \
             switch the guard off",
    alternative: "ask the user to stop or restart it themselves, outside the agent",
};

/// What a lookup of the guard's process ids stands for when its output is handed on through a
/// pipe (`pgrep NAME | xargs kill`): the items `xargs` adds are this word, a substitution
/// (so that no other rule takes it for a plain name) that [`is_guard_pid`] knows.
pub(crate) const GUARD_PIDS: &str = "$(pgrep -x resident-guard)";

/// Why `program` with `args` must not run, if it stops one of the `resident` processes.
pub(crate) fn stops_guard(
    resident: &[ResidentProcess],
    program: &str,
    args: &[String],
) -> Option<Denial> {
    let stopped = resident.iter().find(|guard| match program {
        "kill" => kill(guard, args),
        "pkill" => Selection::read(args).names_guard(guard),
        "killall" => killall(guard, args),
        "systemctl" => systemctl(guard, args),
        "launchctl" => launchctl(guard, args),
        "fuser" => fuser(guard, args, true),
        _ => false,
    })?;
    let mut shown = vec![program.to_owned()];
    shown.extend(args.iter().cloned());
    Some(Denial::explained_as(
        &STOP_GUARD,
        &shown.join(" "),
        stopped.reason.as_deref(),
    ))
}

/// Whether `words` (a command) prints the process ids of one of the `resident` processes.
pub(crate) fn looks_up_any(resident: &[ResidentProcess], words: &[String]) -> bool {
    resident.iter().any(|guard| looks_up_guard(guard, words))
}

/// Whether `words` (a command) prints the guard's process ids: `pgrep` or `pidof` naming it,
/// `lsof` or `fuser` of its port, `grep` of its command line (`ps aux | grep 'NAME serve'`).
fn looks_up_guard(guard: &ResidentProcess, words: &[String]) -> bool {
    let Some((program, args)) = unwrap(words).argv.split_first() else {
        return false;
    };
    match program_name(program) {
        "pgrep" => Selection::read(args).names_guard(guard),
        "pidof" => operands(args)
            .1
            .iter()
            .any(|name| is_guard_binary(guard, name)),
        "lsof" => args.iter().any(|arg| {
            guard
                .ports
                .iter()
                .any(|port| arg.ends_with(&format!(":{port}")))
        }),
        "fuser" => fuser(guard, args, false),
        "grep" | "egrep" | "fgrep" | "rg" => operands(args)
            .1
            .first()
            .is_some_and(|pattern| matches_guard(guard, pattern, true, false, false)),
        _ => false,
    }
}

/// `word` names the guard's program: `NAME`, `/usr/local/bin/NAME`.
fn is_guard_binary(guard: &ResidentProcess, word: &str) -> bool {
    program_name(word) == guard.name
}

/// Whether a signal option's value stops nothing (`0`: the process is only looked for).
fn is_null_signal(signal: &str) -> bool {
    matches!(
        signal.trim_start_matches('-'),
        "0" | "NULL" | "SIGNULL" | "null"
    )
}

/// `-9`, `-KILL`, `-SIGTERM`: a signal given as an option (upper case or digits, never one of
/// the tools' own upper-case options, which are one letter).
fn signal_option(arg: &str) -> Option<&str> {
    let name = arg.strip_prefix('-')?;
    let digits = !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit());
    let upper = name.len() >= 2
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'+' || b == b'-');
    (digits || upper).then_some(name)
}

/// Whether the regular expression `pattern` (as `pkill`, `pgrep`, `killall -r`, `grep` read it)
/// matches the guard: its name, or with `full` its command lines.
fn matches_guard(
    guard: &ResidentProcess,
    pattern: &str,
    full: bool,
    exact: bool,
    ignore_case: bool,
) -> bool {
    let name = guard.name.as_str();
    let anchored = if exact {
        format!("^(?:{pattern})$")
    } else {
        pattern.to_owned()
    };
    let Ok(regex) = RegexBuilder::new(&anchored)
        .case_insensitive(ignore_case)
        .build()
    else {
        // A pattern this reader does not take: refused when it spells the name at all.
        return pattern.to_ascii_lowercase().contains(name);
    };
    if !full {
        return regex.is_match(name);
    }
    // `^/opt/tools/NAME serve`: the directory the pattern puts before the name is tried too.
    let directory: String = pattern
        .find(name)
        .map(|at| pattern[..at].replace(['^', '\\'], ""))
        .unwrap_or_default();
    guard.command_lines.iter().any(|line| {
        regex.is_match(line)
            || (!directory.is_empty() && regex.is_match(&format!("{directory}{line}")))
    })
}

/// What `pkill` or `pgrep` selects.
#[derive(Default)]
struct Selection {
    pattern: Option<String>,
    full: bool,
    exact: bool,
    ignore_case: bool,
    inverse: bool,
    /// Selected by user or group alone: every process of theirs.
    by_owner: bool,
    null_signal: bool,
}

impl Selection {
    /// Reads `pkill`'s or `pgrep`'s arguments.
    fn read(args: &[String]) -> Selection {
        // The short options that take a value, and the long ones that do not.
        const VALUED: &str = "dgGOPstuUFrqT";
        const LONG_FLAGS: &[&str] = &[
            "--full",
            "--exact",
            "--ignore-case",
            "--inverse",
            "--newest",
            "--oldest",
            "--echo",
            "--count",
            "--list-name",
            "--list-full",
            "--lightweight",
            "--require-handler",
            "--logpidfile",
        ];
        let mut selection = Selection::default();
        let mut words = args.iter();
        let mut only_operands = false;
        while let Some(arg) = words.next() {
            if only_operands || !arg.starts_with('-') || arg == "-" {
                selection.pattern.get_or_insert_with(|| arg.clone());
                continue;
            }
            if arg == "--" {
                only_operands = true;
            } else if let Some(long) = arg.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_owned())),
                    None => (long, None),
                };
                match name {
                    "full" => selection.full = true,
                    "exact" => selection.exact = true,
                    "ignore-case" => selection.ignore_case = true,
                    "inverse" => selection.inverse = true,
                    _ if LONG_FLAGS.contains(&arg.as_str()) => {}
                    _ => {
                        let value = inline.or_else(|| words.next().cloned()).unwrap_or_default();
                        match name {
                            "signal" => selection.null_signal |= is_null_signal(&value),
                            "euid" | "uid" | "group" => selection.by_owner = true,
                            _ => {}
                        }
                    }
                }
            } else if let Some(signal) = signal_option(arg) {
                selection.null_signal |= is_null_signal(signal);
            } else {
                for (at, letter) in arg.char_indices().skip(1) {
                    if VALUED.contains(letter) {
                        // The value is the rest of the word, or the next word.
                        let rest = &arg[at + letter.len_utf8()..];
                        if rest.is_empty() {
                            words.next();
                        }
                        if matches!(letter, 'u' | 'U' | 'G') {
                            selection.by_owner = true;
                        }
                        break;
                    }
                    match letter {
                        'f' => selection.full = true,
                        'x' => selection.exact = true,
                        'i' => selection.ignore_case = true,
                        'v' => selection.inverse = true,
                        _ => {}
                    }
                }
            }
        }
        selection
    }

    /// Whether the selection takes in the guard.
    fn names_guard(&self, guard: &ResidentProcess) -> bool {
        if self.null_signal {
            return false;
        }
        match &self.pattern {
            Some(pattern) => {
                matches_guard(guard, pattern, self.full, self.exact, self.ignore_case)
                    != self.inverse
            }
            None => self.by_owner,
        }
    }
}

/// `kill`: every process (`-1`), or process ids that are the guard's.
fn kill(guard: &ResidentProcess, args: &[String]) -> bool {
    let mut signal_given = false;
    let mut only_operands = false;
    let mut pids = Vec::new();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        if only_operands || signal_given || !arg.starts_with('-') || arg == "-" {
            pids.push(arg.as_str());
            continue;
        }
        match arg.as_str() {
            "--" => only_operands = true,
            // Lists signals, sends none.
            "-l" | "-L" | "--list" | "--table" => return false,
            "-s" | "-n" | "--signal" => {
                if words.next().is_some_and(|signal| is_null_signal(signal)) {
                    return false;
                }
                signal_given = true;
            }
            signal => {
                let signal = signal
                    .strip_prefix("--signal=")
                    .or_else(|| signal.strip_prefix("-s"))
                    .unwrap_or(signal);
                if is_null_signal(signal) {
                    return false;
                }
                signal_given = true;
            }
        }
    }
    pids.into_iter().any(|pid| is_guard_pid(guard, pid))
}

/// Whether the process id word `pid` is, or may be, the guard's.
fn is_guard_pid(guard: &ResidentProcess, pid: &str) -> bool {
    if pid == "-1" || pid == GUARD_PIDS {
        // Every process the user may signal, the guard among them.
        return true;
    }
    if pid.contains("$(") || pid.contains('`') {
        return substitution_looks_up_guard(guard, pid);
    }
    pid.parse::<u32>()
        .is_ok_and(|pid| running_guard(guard, pid))
}

/// The substitutions in `word` (`$(pgrep -f NAME)`, `` `pidof NAME` ``): whether one of
/// their commands prints the guard's process ids.
fn substitution_looks_up_guard(guard: &ResidentProcess, word: &str) -> bool {
    let script = shell::parse(&format!("echo {word}"));
    script.nested.iter().any(|inner| {
        let inner = shell::parse(inner);
        inner
            .commands
            .iter()
            .any(|command| looks_up_guard(guard, &command.words))
            || inner
                .nested
                .iter()
                .any(|line| substitution_looks_up_guard(guard, &format!("$({line})")))
    })
}

/// Whether the process `pid` runs the guard's program with one of its command lines'
/// subcommands (Linux: its command line in `/proc`; elsewhere a process id cannot be looked up
/// here, and it passes).
fn running_guard(guard: &ResidentProcess, pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(line) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            return false;
        };
        let mut words = line
            .split(|byte| *byte == 0)
            .map(|word| String::from_utf8_lossy(word).into_owned());
        let binary = words
            .next()
            .is_some_and(|word| is_guard_binary(guard, &word));
        binary && words.any(|word| subcommands(guard).any(|subcommand| subcommand == word))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (guard, pid);
        false
    }
}

/// The subcommands of the guard's command lines: each one's word after the program's name.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn subcommands(guard: &ResidentProcess) -> impl Iterator<Item = &str> {
    guard
        .command_lines
        .iter()
        .filter_map(|line| line.split_whitespace().nth(1))
}

/// `killall`: a name that is the guard's (its name, a path to it, a `-r` pattern matching it),
/// or every process of a user.
fn killall(guard: &ResidentProcess, args: &[String]) -> bool {
    const VALUED: &str = "suoyZnct";
    let (mut regex, mut ignore_case, mut by_owner) = (false, false, false);
    let mut names = Vec::new();
    let mut words = args.iter();
    let mut only_operands = false;
    while let Some(arg) = words.next() {
        if only_operands || !arg.starts_with('-') || arg == "-" {
            names.push(arg.as_str());
            continue;
        }
        if arg == "--" {
            only_operands = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            match name {
                "regexp" => regex = true,
                "ignore-case" => ignore_case = true,
                "signal" | "user" | "older-than" | "younger-than" | "context" | "ns" => {
                    let value = inline.or_else(|| words.next().map(String::as_str));
                    if name == "signal" && value.is_some_and(is_null_signal) {
                        return false;
                    }
                    by_owner |= name == "user";
                }
                _ => {}
            }
        } else if let Some(signal) = signal_option(arg) {
            if is_null_signal(signal) {
                return false;
            }
        } else {
            for (at, letter) in arg.char_indices().skip(1) {
                if VALUED.contains(letter) {
                    let rest = &arg[at + letter.len_utf8()..];
                    let value = if rest.is_empty() {
                        words.next().map(String::as_str)
                    } else {
                        Some(rest)
                    };
                    if letter == 's' && value.is_some_and(is_null_signal) {
                        return false;
                    }
                    by_owner |= letter == 'u';
                    break;
                }
                match letter {
                    'r' => regex = true,
                    'I' => ignore_case = true,
                    _ => {}
                }
            }
        }
    }
    if names.is_empty() {
        return by_owner;
    }
    names.into_iter().any(|name| {
        if regex {
            matches_guard(guard, name, false, false, ignore_case)
        } else if ignore_case {
            program_name(name).eq_ignore_ascii_case(&guard.name)
        } else {
            is_guard_binary(guard, name)
        }
    })
}

/// `systemctl stop|kill|disable|mask UNIT` of one of the guard's units (a glob naming it too), and
/// `systemctl --user exit`, which stops every user service.
fn systemctl(guard: &ResidentProcess, args: &[String]) -> bool {
    const VALUED: &[&str] = &[
        "-t",
        "--type",
        "-p",
        "--property",
        "-H",
        "--host",
        "-M",
        "--machine",
        "-s",
        "--signal",
        "-n",
        "--lines",
        "-o",
        "--output",
        "--kill-whom",
        "--kill-value",
        "--state",
        "--root",
        "--job-mode",
        "--what",
    ];
    let mut words = args.iter();
    let mut user = false;
    let mut operands: Vec<&str> = Vec::new();
    while let Some(arg) = words.next() {
        if VALUED.contains(&arg.as_str()) {
            words.next();
        } else if arg == "--user" {
            user = true;
        } else if !arg.starts_with('-') {
            operands.push(arg);
        }
    }
    let Some((verb, units)) = operands.split_first() else {
        return false;
    };
    match *verb {
        "stop" | "kill" | "disable" | "mask" | "freeze" => {
            units.iter().any(|unit| is_unit(guard, unit))
        }
        "exit" => user,
        _ => false,
    }
}

/// Whether `unit` (a name, with or without `.service`, or a glob) is the server's unit.
fn is_unit(guard: &ResidentProcess, unit: &str) -> bool {
    let name = unit.rsplit('/').next().unwrap_or(unit);
    guard.systemd_units.iter().any(|known| {
        let bare = known.strip_suffix(".service");
        if name == known || Some(name) == bare {
            return true;
        }
        name.contains(['*', '?', '['])
            && globset::Glob::new(name).is_ok_and(|glob| {
                let glob = glob.compile_matcher();
                glob.is_match(known) || bare.is_some_and(|u| glob.is_match(u))
            })
    })
}

/// `launchctl unload|bootout|remove|stop|kill|disable` naming one of the guard's labels (the
/// label, its plist, a `gui/501/LABEL` target).
fn launchctl(guard: &ResidentProcess, args: &[String]) -> bool {
    let (_, operands) = operands(args);
    let Some((verb, rest)) = operands.split_first() else {
        return false;
    };
    matches!(
        *verb,
        "unload" | "bootout" | "remove" | "stop" | "kill" | "disable"
    ) && rest.iter().any(|operand| {
        let last = operand.rsplit('/').next().unwrap_or(operand);
        guard
            .launchd_labels
            .iter()
            .any(|label| last == label || last == format!("{label}.plist"))
    })
}

/// `fuser` of one of the guard's default ports or of its program; with `killing`, only when it
/// kills (`-k`).
fn fuser(guard: &ResidentProcess, args: &[String], killing: bool) -> bool {
    let (options, names) = operands(args);
    if killing
        && !options
            .iter()
            .any(|option| !option.starts_with("--") && option.contains('k') || *option == "--kill")
    {
        return false;
    }
    let tcp = args
        .windows(2)
        .any(|pair| pair[0] == "-n" && pair[1] == "tcp");
    names.iter().any(|name| {
        let (port, space) = name.split_once('/').unwrap_or((name, ""));
        let port = port.split(',').next().unwrap_or(port);
        let ours = guard.ports.iter().any(|ours| ours.to_string() == port);
        (ours && (space == "tcp" || tcp)) || is_guard_binary(guard, name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A product of this test's own: `warden daemon` on port 7070 as `warden-daemon.service`
    /// and `warden.daemon`, and `warden relay`.
    fn warden() -> ResidentProcess {
        ResidentProcess::new("warden")
            .command_line("warden daemon --listen 127.0.0.1:7070")
            .command_line("warden relay")
            .port(7070)
            .systemd_unit("warden-daemon.service")
            .launchd_label("warden.daemon")
    }

    /// The words of `line`'s first command, as the walker reads them.
    fn words(line: &str) -> Vec<String> {
        shell::parse(line)
            .commands
            .into_iter()
            .next()
            .map(|command| command.words)
            .unwrap_or_default()
    }

    #[test]
    fn patterns_are_tried_on_the_name_and_the_command_lines() {
        let guard = &warden();
        assert!(matches_guard(guard, "warden", false, false, false));
        assert!(matches_guard(guard, "^ward", false, false, false));
        assert!(!matches_guard(guard, "warden-test", false, false, false));
        assert!(matches_guard(guard, "WARDEN", false, true, true));
        assert!(matches_guard(guard, "warden daemon", true, false, false));
        assert!(matches_guard(guard, "relay", true, false, false));
        assert!(matches_guard(
            guard,
            "^/opt/tools/warden daemon",
            true,
            false,
            false
        ));
        assert!(!matches_guard(
            guard,
            "my-warden-test-server",
            true,
            false,
            false
        ));
        assert!(
            !matches_guard(guard, "warden daemon", true, true, false),
            "whole line"
        );
        // Not a regular expression here: the name spelled in it decides.
        assert!(matches_guard(guard, "warden(", true, false, false));
        assert!(!matches_guard(guard, "vite(", true, false, false));
    }

    #[test]
    fn lookups_of_the_guard_are_known_by_their_command() {
        let guard = &warden();
        for line in [
            "pgrep -f warden",
            "pgrep -x warden",
            "pidof warden",
            "lsof -t -i :7070",
            "lsof -ti tcp:7070",
            "fuser 7070/tcp",
            "grep 'warden daemon'",
        ] {
            assert!(looks_up_guard(guard, &words(line)), "{line}");
        }
        for line in ["pgrep -f vite", "pidof node", "lsof -ti :3000", "grep TODO"] {
            assert!(!looks_up_guard(guard, &words(line)), "{line}");
        }
        assert!(is_guard_pid(guard, GUARD_PIDS));
        assert!(!looks_up_any(&[], &words("pgrep -f warden")));
    }

    #[test]
    fn the_signal_comes_first_and_then_only_process_ids() {
        let guard = &warden();
        assert!(kill(guard, &words("-9 -1")));
        assert!(kill(guard, &words("-- -1")));
        // `-1` first is the signal SIGHUP, sent to process 1234.
        assert!(!kill(guard, &words("-1 1234")));
        assert!(!kill(guard, &words("-0 $(pgrep warden)")));
        assert!(!kill(guard, &words("-s 0 $(pgrep warden)")));
        assert!(kill(guard, &words("-s KILL $(pgrep warden)")));
    }

    #[test]
    fn units_are_matched_by_name_and_glob() {
        let guard = &warden();
        for unit in [
            "warden-daemon",
            "warden-daemon.service",
            "warden-*",
            "*daemon*",
            "/home/u/.config/systemd/user/warden-daemon.service",
        ] {
            assert!(is_unit(guard, unit), "{unit}");
        }
        for unit in ["warden-server", "nginx", "web-*"] {
            assert!(!is_unit(guard, unit), "{unit}");
        }
    }

    #[test]
    fn the_product_says_what_stopping_it_does() {
        let args = words("-f 'warden relay'");
        let told = warden().reason("stops the warden");
        let denial = stops_guard(&[told], "pkill", &args).unwrap();
        assert_eq!(denial.id(), "guard:stop-guard");
        assert!(
            denial.message.contains("stops the warden"),
            "{}",
            denial.message
        );
        assert!(stops_guard(&[], "pkill", &args).is_none());
    }
}
