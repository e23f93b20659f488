//! The guard keeps its resident processes running: a command that stops or kills `hooks serve`
//! (the server answering the agents' HTTP hooks) or `hooks mcp-proxy` is refused whatever the
//! packs (`guard:stop-guard`). With the server down every call the agent makes is blocked, or,
//! worse, answered by whatever the agent starts on the server's port.
//!
//! What counts as naming the guard, since a command sees no process table:
//!
//! - `pkill`, `pgrep` and `killall` patterns are tried on what those tools match: the process
//!   name `hooks`, and with `-f` the command lines `hooks serve …` and `hooks mcp-proxy …` (with
//!   the directory the pattern itself puts before `hooks`). `pkill -f my-hooks-test-server`
//!   names another program and passes; `pkill -f serve` would kill the server and is refused.
//!   A pattern-less selection of a whole user's processes (`pkill -u me`, `killall -u me`) and
//!   an inverted one (`pkill -v …`) take the guard with them.
//! - `kill` of every process (`kill -9 -1`), or of the process ids a lookup of the guard prints
//!   (`kill $(pgrep -f hooks)`, `pgrep hooks | xargs kill`, `kill $(lsof -t -i :8787)`); on
//!   Linux, a literal process id is looked up in `/proc` (`kill 4242` where 4242 is the
//!   server). A job (`kill %1`), a variable, or another lookup passes.
//! - the service managers: `systemctl stop|kill|disable|mask` of `hooks-serve.service` (globs
//!   included) and `systemctl --user exit`; `launchctl unload|bootout|remove|stop|kill|disable`
//!   of `hooks.serve`.
//! - `fuser -k` of the server's default port (`8787/tcp`) or of the `hooks` binary.
//!
//! Signal 0 (`kill -0`, which only asks whether a process exists) stops nothing and passes.

use regex::RegexBuilder;

use super::{Denial, Rule, Severity};
use crate::handoff::unwrap;
use crate::programs::{operands, program_name};
use crate::shell;

/// Stopping or killing the resident guard.
pub(crate) const STOP_GUARD: Rule = Rule {
    pack: "guard",
    name: "stop-guard",
    severity: Severity::Critical,
    reason: "stops the resident guard (`hooks serve`, `hooks mcp-proxy`) that answers this \
             agent's hooks, which would switch the guard off",
    alternative: "ask the user to stop or restart it themselves, outside the agent",
};

/// The guard's process name, as `pkill` and `killall` see it.
const NAME: &str = "hooks";

/// The guard's command lines, as `pkill -f` sees them: the binary's directory, the proxy's
/// upstream command and the options a given server runs with cannot be known here, and are
/// left out (`pkill -f server-everything` passes, though it may match a proxy's upstream).
const COMMAND_LINES: &[&str] = &["hooks serve --listen 127.0.0.1:8787", "hooks mcp-proxy"];

/// The port `hooks serve` listens on by default.
const PORT: &str = "8787";

/// The unit `hooks serve --install` writes (systemd) and its label (launchd).
const UNIT: &str = "hooks-serve.service";
const LABEL: &str = "hooks.serve";

/// What a lookup of the guard's process ids stands for when its output is handed on through a
/// pipe (`pgrep hooks | xargs kill`): the items `xargs` adds are this word.
pub(crate) const GUARD_PIDS: &str = "$(pgrep -x hooks)";

/// Why `program` with `args` must not run, if it stops the resident guard.
pub(crate) fn stops_guard(program: &str, args: &[String]) -> Option<Denial> {
    let stops = match program {
        "kill" => kill(args),
        "pkill" => Selection::read(args).names_guard(),
        "killall" => killall(args),
        "systemctl" => systemctl(args),
        "launchctl" => launchctl(args),
        "fuser" => fuser(args, true),
        _ => false,
    };
    stops.then(|| {
        let mut shown = vec![program.to_owned()];
        shown.extend(args.iter().cloned());
        Denial::explained(&STOP_GUARD, &shown.join(" "))
    })
}

/// Whether `words` (a command) prints the guard's process ids: `pgrep` or `pidof` naming it,
/// `lsof` or `fuser` of its port, `grep` of its command line (`ps aux | grep 'hooks serve'`).
pub(crate) fn looks_up_guard(words: &[String]) -> bool {
    let Some((program, args)) = unwrap(words).argv.split_first() else {
        return false;
    };
    match program_name(program) {
        "pgrep" => Selection::read(args).names_guard(),
        "pidof" => operands(args).1.iter().any(|name| is_guard_binary(name)),
        "lsof" => args.iter().any(|arg| arg.ends_with(&format!(":{PORT}"))),
        "fuser" => fuser(args, false),
        "grep" | "egrep" | "fgrep" | "rg" => operands(args)
            .1
            .first()
            .is_some_and(|pattern| matches_guard(pattern, true, false, false)),
        _ => false,
    }
}

/// `word` names the guard binary: `hooks`, `/usr/local/bin/hooks`.
fn is_guard_binary(word: &str) -> bool {
    program_name(word) == NAME
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
fn matches_guard(pattern: &str, full: bool, exact: bool, ignore_case: bool) -> bool {
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
        return pattern.to_ascii_lowercase().contains(NAME);
    };
    if !full {
        return regex.is_match(NAME);
    }
    // `^/opt/tools/hooks serve`: the directory the pattern puts before the name is tried too.
    let directory: String = pattern
        .find(NAME)
        .map(|at| pattern[..at].replace(['^', '\\'], ""))
        .unwrap_or_default();
    COMMAND_LINES.iter().any(|line| {
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
    fn names_guard(&self) -> bool {
        if self.null_signal {
            return false;
        }
        match &self.pattern {
            Some(pattern) => {
                matches_guard(pattern, self.full, self.exact, self.ignore_case) != self.inverse
            }
            None => self.by_owner,
        }
    }
}

/// `kill`: every process (`-1`), or process ids that are the guard's.
fn kill(args: &[String]) -> bool {
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
    pids.into_iter().any(is_guard_pid)
}

/// Whether the process id word `pid` is, or may be, the guard's.
fn is_guard_pid(pid: &str) -> bool {
    if pid == "-1" {
        // Every process the user may signal, the guard among them.
        return true;
    }
    if pid.contains("$(") || pid.contains('`') {
        return substitution_looks_up_guard(pid);
    }
    pid.parse::<u32>().is_ok_and(running_guard)
}

/// The substitutions in `word` (`$(pgrep -f hooks)`, `` `pidof hooks` ``): whether one of
/// their commands prints the guard's process ids.
fn substitution_looks_up_guard(word: &str) -> bool {
    let script = shell::parse(&format!("echo {word}"));
    script.nested.iter().any(|inner| {
        let inner = shell::parse(inner);
        inner
            .commands
            .iter()
            .any(|command| looks_up_guard(&command.words))
            || inner
                .nested
                .iter()
                .any(|line| substitution_looks_up_guard(&format!("$({line})")))
    })
}

/// Whether the process `pid` runs `hooks serve` or `hooks mcp-proxy` (Linux: its command line
/// in `/proc`; elsewhere a process id cannot be looked up here, and it passes).
fn running_guard(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(line) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            return false;
        };
        let mut words = line
            .split(|byte| *byte == 0)
            .map(|word| String::from_utf8_lossy(word).into_owned());
        let binary = words.next().is_some_and(|word| is_guard_binary(&word));
        binary && words.any(|word| word == "serve" || word == "mcp-proxy")
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
    }
}

/// `killall`: a name that is the guard's (`hooks`, a path to it, a `-r` pattern matching it),
/// or every process of a user.
fn killall(args: &[String]) -> bool {
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
            matches_guard(name, false, false, ignore_case)
        } else if ignore_case {
            program_name(name).eq_ignore_ascii_case(NAME)
        } else {
            is_guard_binary(name)
        }
    })
}

/// `systemctl stop|kill|disable|mask hooks-serve.service` (a glob naming it too), and
/// `systemctl --user exit`, which stops every user service.
fn systemctl(args: &[String]) -> bool {
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
        "stop" | "kill" | "disable" | "mask" | "freeze" => units.iter().any(|unit| is_unit(unit)),
        "exit" => user,
        _ => false,
    }
}

/// Whether `unit` (a name, with or without `.service`, or a glob) is the server's unit.
fn is_unit(unit: &str) -> bool {
    let name = unit.rsplit('/').next().unwrap_or(unit);
    if name == UNIT || Some(name) == UNIT.strip_suffix(".service") {
        return true;
    }
    name.contains(['*', '?', '['])
        && globset::Glob::new(name).is_ok_and(|glob| {
            let glob = glob.compile_matcher();
            glob.is_match(UNIT)
                || UNIT
                    .strip_suffix(".service")
                    .is_some_and(|u| glob.is_match(u))
        })
}

/// `launchctl unload|bootout|remove|stop|kill|disable` naming `hooks.serve` (its label, its
/// plist, a `gui/501/hooks.serve` target).
fn launchctl(args: &[String]) -> bool {
    let (_, operands) = operands(args);
    let Some((verb, rest)) = operands.split_first() else {
        return false;
    };
    matches!(
        *verb,
        "unload" | "bootout" | "remove" | "stop" | "kill" | "disable"
    ) && rest.iter().any(|operand| {
        let last = operand.rsplit('/').next().unwrap_or(operand);
        last == LABEL || last == format!("{LABEL}.plist")
    })
}

/// `fuser` of the server's default port or of the `hooks` binary; with `killing`, only when it
/// kills (`-k`).
fn fuser(args: &[String], killing: bool) -> bool {
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
        (port == PORT && (space == "tcp" || tcp)) || is_guard_binary(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(matches_guard("hooks", false, false, false));
        assert!(matches_guard("^hook", false, false, false));
        assert!(!matches_guard("hooks-test", false, false, false));
        assert!(matches_guard("HOOKS", false, true, true));
        assert!(matches_guard("hooks serve", true, false, false));
        assert!(matches_guard("mcp-proxy", true, false, false));
        assert!(matches_guard("^/opt/tools/hooks serve", true, false, false));
        assert!(!matches_guard("my-hooks-test-server", true, false, false));
        assert!(
            !matches_guard("hooks serve", true, true, false),
            "whole line"
        );
        // Not a regular expression here: the name spelled in it decides.
        assert!(matches_guard("hooks(", true, false, false));
        assert!(!matches_guard("vite(", true, false, false));
    }

    #[test]
    fn lookups_of_the_guard_are_known_by_their_command() {
        for line in [
            "pgrep -f hooks",
            "pgrep -x hooks",
            "pidof hooks",
            "lsof -t -i :8787",
            "lsof -ti tcp:8787",
            "fuser 8787/tcp",
            "grep hooks.serve",
        ] {
            assert!(looks_up_guard(&words(line)), "{line}");
        }
        for line in ["pgrep -f vite", "pidof node", "lsof -ti :3000", "grep TODO"] {
            assert!(!looks_up_guard(&words(line)), "{line}");
        }
        assert!(is_guard_pid(GUARD_PIDS));
    }

    #[test]
    fn the_signal_comes_first_and_then_only_process_ids() {
        assert!(kill(&words("-9 -1")));
        assert!(kill(&words("-- -1")));
        // `-1` first is the signal SIGHUP, sent to process 1234.
        assert!(!kill(&words("-1 1234")));
        assert!(!kill(&words("-0 $(pgrep hooks)")));
        assert!(!kill(&words("-s 0 $(pgrep hooks)")));
        assert!(kill(&words("-s KILL $(pgrep hooks)")));
    }

    #[test]
    fn units_are_matched_by_name_and_glob() {
        for unit in [
            "hooks-serve",
            "hooks-serve.service",
            "hooks-*",
            "*serve*",
            "/home/u/.config/systemd/user/hooks-serve.service",
        ] {
            assert!(is_unit(unit), "{unit}");
        }
        for unit in ["hooks-server", "nginx", "web-*"] {
            assert!(!is_unit(unit), "{unit}");
        }
    }
}
