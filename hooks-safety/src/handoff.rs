//! Programs that hand a command on to be run, each read by its own option grammar: wrappers
//! that run the rest of their words (`sudo`, `env`, `nice`, `timeout`, `busybox`, `chroot`,
//! `flock`, `watch`, ...), `xargs` and GNU `parallel` (which add the words they read or are
//! given), `find -exec`, and `ssh host command`. Nothing here checks anything: the walker
//! checks what these functions say will run.

use crate::programs::{ELEVATING, HEADER, KEYWORD, WRAPPER, is_assignment, program_name, role};

/// A command with its wrappers removed.
pub(crate) struct Unwrapped<'w> {
    /// The command that runs, first word first.
    pub argv: &'w [String],
    /// A wrapper runs it as root (`sudo`, `doas`).
    pub elevated: bool,
    /// A command line a wrapper splits and runs: `env -S '…'`, `watch 'cmd'`, `flock f -c '…'`.
    pub line: Option<String>,
    /// A directory a wrapper runs the command in: `env -C dir`, `sudo -D dir`.
    pub chdir: Option<&'w str>,
}

/// A wrapper's options: the short ones that take a value, the long ones that take a value
/// (as `--name value` or `--name=value`), and how many operands come before the command.
struct Grammar {
    valued_short: &'static str,
    valued_long: &'static [&'static str],
    operands: usize,
}

fn grammar(program: &str) -> Grammar {
    let (valued_short, valued_long, operands): (&str, &[&str], usize) = match program {
        "sudo" => (
            "ugChpUrtDRT",
            &[
                "--user",
                "--group",
                "--close-from",
                "--host",
                "--prompt",
                "--other-user",
                "--role",
                "--type",
                "--chdir",
                "--chroot",
                "--command-timeout",
            ],
            0,
        ),
        "doas" => ("uC", &[], 0),
        "env" => ("uCPS", &["--unset", "--chdir", "--split-string"], 0),
        "nice" => ("n", &["--adjustment"], 0),
        "ionice" => ("cnpP", &["--class", "--classdata", "--pid", "--pgid"], 0),
        "timeout" => ("sk", &["--signal", "--kill-after"], 1),
        "stdbuf" => ("ioe", &["--input", "--output", "--error"], 0),
        "watch" => ("nq", &["--interval", "--equexit"], 0),
        "chroot" => ("", &["--userspec", "--groups"], 1),
        "flock" => (
            "wEc",
            &["--timeout", "--conflict-exit-code", "--command"],
            1,
        ),
        "exec" => ("a", &[], 0),
        "caffeinate" => ("tw", &[], 0),
        "proxychains" | "proxychains4" => ("f", &[], 0),
        "time" => ("fo", &["--format", "--output"], 0),
        _ => ("", &[], 0),
    };
    Grammar {
        valued_short,
        valued_long,
        operands,
    }
}

/// Strips leading `NAME=value` assignments, reserved words and wrappers (`sudo -u x`,
/// `env -i`, `timeout 5`, `nice -n 5`, `busybox`, ...), each read by its own grammar.
pub(crate) fn unwrap(words: &[String]) -> Unwrapped<'_> {
    let mut found = Unwrapped {
        argv: &[],
        elevated: false,
        line: None,
        chdir: None,
    };
    let mut at = 0;
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
            return found;
        }
        if roles & WRAPPER == 0 {
            break;
        }
        found.elevated |= roles & ELEVATING != 0;
        at += 1;
        if program == "command"
            && words
                .get(at)
                .is_some_and(|w| matches!(w.as_str(), "-v" | "-V" | "-pv" | "-pV"))
        {
            // `command -v x` looks a program up; it runs nothing.
            return found;
        }
        let grammar = grammar(program);
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
            if !word.starts_with('-') || word == "-" {
                break;
            }
            let (option, value, width) = option_value(words, at, &grammar);
            at += width;
            match (program, option) {
                ("env", "-S" | "--split-string") | ("flock", "-c" | "--command") => {
                    found.line = value.map(str::to_owned);
                }
                ("env", "-C" | "--chdir") | ("sudo", "-D" | "--chdir") => found.chdir = value,
                _ => {}
            }
            if found.line.is_some() && program == "flock" {
                return Unwrapped { argv: &[], ..found };
            }
        }
        // Operands before the command: `timeout 5`, `chroot /srv`, `flock /tmp/lock`.
        let mut operands = grammar.operands;
        while operands > 0 && words.get(at).is_some() {
            at += 1;
            operands -= 1;
        }
        if program == "flock"
            && let Some(option) = words.get(at)
            && matches!(option.as_str(), "-c" | "--command")
        {
            found.line = words.get(at + 1).cloned();
            return found;
        }
        if program == "watch" {
            // `watch` gives its words to `sh -c`, joined: the words are a command line.
            let rest = words.get(at..).unwrap_or(&[]);
            if !rest.is_empty() {
                found.line = Some(rest.join(" "));
            }
            return found;
        }
    }
    found.argv = words.get(at..).unwrap_or(&[]);
    found
}

/// The option at `words[at]` under `grammar`: its name, its value if it takes one, and how
/// many words it spans. A cluster of short options (`-nq5`) ends at the first that takes a
/// value, the rest of the word (or the next word) being that value.
fn option_value<'w>(
    words: &'w [String],
    at: usize,
    grammar: &Grammar,
) -> (&'w str, Option<&'w str>, usize) {
    let word = words[at].as_str();
    if word.starts_with("--") {
        let (name, attached) = match word.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (word, None),
        };
        if grammar.valued_long.contains(&name) && attached.is_none() {
            return (name, words.get(at + 1).map(String::as_str), 2);
        }
        return (name, attached, 1);
    }
    for (index, letter) in word.char_indices().skip(1) {
        if grammar.valued_short.contains(letter) {
            let name = &word[..index + letter.len_utf8()];
            let rest = &word[index + letter.len_utf8()..];
            return if rest.is_empty() {
                (name, words.get(at + 1).map(String::as_str), 2)
            } else {
                (name, Some(rest), 1)
            };
        }
    }
    (word, None, 1)
}

/// How `xargs` runs its command.
pub(crate) struct Xargs<'w> {
    /// The command and its first arguments (`echo` when none is given).
    pub command: &'w [String],
    /// The replacement string (`-I R`, `-J R`, `--replace[=R]`, `-i[R]`): each input item
    /// replaces it, instead of being added at the end.
    pub replace: Option<&'w str>,
    /// The items come from a file (`-a FILE`), not standard input.
    pub from_file: bool,
}

/// Reads `xargs`'s options (GNU and BSD).
pub(crate) fn xargs(args: &[String]) -> Xargs<'_> {
    const VALUED_SHORT: &str = "adEILlnPsJRS";
    const VALUED_LONG: &[&str] = &[
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ];
    let mut found = Xargs {
        command: &[],
        replace: None,
        from_file: false,
    };
    let mut at = 0;
    while let Some(word) = args.get(at) {
        if word == "--" {
            at += 1;
            break;
        }
        if !word.starts_with('-') || word == "-" {
            break;
        }
        if word.starts_with("--") {
            let (name, attached) = match word.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (word.as_str(), None),
            };
            match name {
                // An optional value, attached only.
                "--replace" => {
                    found.replace = Some(attached.filter(|r| !r.is_empty()).unwrap_or("{}"))
                }
                "--arg-file" => found.from_file = true,
                _ => {}
            }
            at += if VALUED_LONG.contains(&name) && attached.is_none() {
                2
            } else {
                1
            };
            continue;
        }
        let mut width = 1;
        for (index, letter) in word.char_indices().skip(1) {
            let rest = &word[index + letter.len_utf8()..];
            match letter {
                // Optional values, attached only: `-i{}`, `-e`, `-l`.
                'i' => {
                    found.replace = Some(if rest.is_empty() { "{}" } else { rest });
                    break;
                }
                'e' | 'l' => break,
                letter if VALUED_SHORT.contains(letter) => {
                    let value = if rest.is_empty() {
                        width = 2;
                        args.get(at + 1).map_or("", String::as_str)
                    } else {
                        rest
                    };
                    match letter {
                        'I' | 'J' => found.replace = Some(value),
                        'a' => found.from_file = true,
                        _ => {}
                    }
                    break;
                }
                _ => {}
            }
        }
        at += width;
    }
    found.command = args.get(at..).unwrap_or(&[]);
    found
}

/// How GNU `parallel` runs its command.
pub(crate) struct Parallel<'w> {
    /// The command template (empty: each argument is a command line).
    pub command: &'w [String],
    /// The argument groups given after `:::` (or `:::+`), in order.
    pub groups: Vec<&'w [String]>,
    /// Arguments come from files (`::::`, `-a FILE`) the line does not show.
    pub from_files: bool,
}

/// Reads `parallel`'s options, its command and its argument groups.
pub(crate) fn parallel(args: &[String]) -> Parallel<'_> {
    const VALUED_SHORT: &str = "jPSanNLdICEX";
    const VALUED_LONG: &[&str] = &[
        "--jobs",
        "--sshlogin",
        "--slf",
        "--sshloginfile",
        "--results",
        "--res",
        "--joblog",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-replace-args",
        "--tmpdir",
        "--workdir",
        "--wd",
        "--colsep",
        "--timeout",
        "--memfree",
        "--load",
        "--halt",
        "--retries",
        "--delay",
        "--basefile",
        "--bf",
        "--return",
        "--env",
        "--tagstring",
        "--replace",
        "--sshdelay",
        "--termseq",
        "--limit",
    ];
    let mut found = Parallel {
        command: &[],
        groups: Vec::new(),
        from_files: false,
    };
    let is_separator = |w: &str| matches!(w, ":::" | ":::+" | "::::" | "::::+");
    let mut at = 0;
    while let Some(word) = args.get(at) {
        if word == "--" {
            at += 1;
            break;
        }
        if !word.starts_with('-') || word == "-" || is_separator(word) {
            break;
        }
        if word.starts_with("--") {
            let name = word.split_once('=').map_or(word.as_str(), |(name, _)| name);
            if matches!(name, "--arg-file") {
                found.from_files = true;
            }
            at += if VALUED_LONG.contains(&name) && !word.contains('=') {
                2
            } else {
                1
            };
            continue;
        }
        let mut width = 1;
        for (index, letter) in word.char_indices().skip(1) {
            if VALUED_SHORT.contains(letter) {
                if letter == 'a' {
                    found.from_files = true;
                }
                if word[index + 1..].is_empty() {
                    width = 2;
                }
                break;
            }
        }
        at += width;
    }
    let rest = args.get(at..).unwrap_or(&[]);
    let end = rest
        .iter()
        .position(|w| is_separator(w))
        .unwrap_or(rest.len());
    found.command = &rest[..end];
    let mut at = end;
    while let Some(separator) = rest.get(at) {
        let start = at + 1;
        let stop = rest[start..]
            .iter()
            .position(|w| is_separator(w))
            .map_or(rest.len(), |p| start + p);
        if separator.starts_with("::::") {
            found.from_files = true;
        } else {
            found.groups.push(&rest[start..stop]);
        }
        at = stop;
    }
    found
}

/// Whether `word` holds one of `parallel`'s replacement strings (`{}`, `{.}`, `{/}`, `{1}`,
/// `{2.}`, ...).
pub(crate) fn has_replacement(word: &str) -> bool {
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        if let Some(close) = after.find('}') {
            let inside = &after[..close];
            if inside
                .chars()
                .all(|c| c.is_ascii_digit() || "./#%".contains(c))
            {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// `word` with every replacement string of `parallel` for argument group `group` (1-based)
/// replaced by `value`: `{}` and its forms for any group, `{N}` and its forms for group N.
pub(crate) fn replaced(word: &str, group: usize, value: &str) -> String {
    let mut out = String::with_capacity(word.len() + value.len());
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inside = &after[..close];
        let digits: String = inside.chars().take_while(char::is_ascii_digit).collect();
        let modifiers = &inside[digits.len()..];
        let ours = digits.is_empty() || digits.parse::<usize>().is_ok_and(|n| n == group);
        if modifiers.chars().all(|c| "./#%".contains(c)) && ours {
            out.push_str(value);
        } else {
            out.push('{');
            out.push_str(inside);
            out.push('}');
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The command line `ssh` (or `rsh`, `mosh`) runs on the remote host, if it is given one:
/// the words after the host, joined as the remote shell joins them.
pub(crate) fn remote_command(args: &[String]) -> Option<String> {
    const VALUED: &str = "BbcDEeFIiJLlmOoPpQRSWw";
    let mut at = 0;
    while let Some(word) = args.get(at) {
        if word == "--" {
            at += 1;
            break;
        }
        if !word.starts_with('-') {
            break;
        }
        let mut width = 1;
        for (index, letter) in word.char_indices().skip(1) {
            if VALUED.contains(letter) {
                if word[index + 1..].is_empty() {
                    width = 2;
                }
                break;
            }
        }
        at += width;
    }
    let command = args.get(at + 1..)?;
    (!command.is_empty()).then(|| command.join(" "))
}

/// What `find` runs: the commands of its `-exec`, `-execdir`, `-ok` and `-okdir` actions,
/// and whether it deletes (a `-delete` that is find's own, not a word of an `-exec` command).
pub(crate) struct FindActions<'w> {
    pub commands: Vec<&'w [String]>,
    pub deletes: bool,
}

/// Reads `find`'s actions.
pub(crate) fn find_actions(args: &[String]) -> FindActions<'_> {
    let mut found = FindActions {
        commands: Vec::new(),
        deletes: false,
    };
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        at += 1;
        match arg.as_str() {
            "-delete" => found.deletes = true,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[at..]
                    .iter()
                    .position(|a| a == ";" || a == "+")
                    .map_or(args.len(), |p| at + p);
                found.commands.push(&args[at..end]);
                at = end + 1;
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn wrappers_are_peeled_by_their_own_grammar() {
        let cases = [
            ("sudo -u deploy -D /srv rm x", "rm x"),
            ("env -P /opt/bin -u HOME A=1 git status", "git status"),
            ("nice -n 5 ionice -c2 -n7 make", "make"),
            ("timeout -k 5 30s stdbuf -oL make", "make"),
            ("chroot --userspec=1:1 /mnt ls", "ls"),
            ("flock -w 3 /run/lock make", "make"),
            ("busybox rm -f x", "rm -f x"),
            ("toybox nohup setsid ls", "ls"),
        ];
        for (line, command) in cases {
            let words = words(line);
            assert_eq!(unwrap(&words).argv.join(" "), command, "{line}");
        }
        let chdir = words("env --chdir=/srv ls");
        assert_eq!(unwrap(&chdir).chdir, Some("/srv"));
        let watched = words("watch -n 2 df -h");
        assert_eq!(unwrap(&watched).line.as_deref(), Some("df -h"));
        let locked = words("flock /run/lock -c true");
        assert_eq!(unwrap(&locked).line.as_deref(), Some("true"));
    }

    #[test]
    fn xargs_options_that_take_values_are_not_the_command() {
        for (line, command, replace) in [
            ("-0 rm", "rm", None),
            ("-I{} cp {} out", "cp {} out", Some("{}")),
            ("--replace=X mv X y", "mv X y", Some("X")),
            ("--replace echo {}", "echo {}", Some("{}")),
            ("-J % cp % dir", "cp % dir", Some("%")),
            ("--delimiter , -n1 ls", "ls", None),
            ("-a list.txt -P4 wc", "wc", None),
        ] {
            let args = words(line);
            let read = xargs(&args);
            assert_eq!(read.command.join(" "), command, "{line}");
            assert_eq!(read.replace, replace, "{line}");
        }
        assert!(xargs(&words("-a list.txt wc")).from_file);
        // Options that are not ASCII are read as letters, not cut in the middle.
        for line in ["-é rm", "-0é -I é rm", "-ié"] {
            let _ = xargs(&words(line));
            let _ = parallel(&words(line));
            let _ = remote_command(&words(line));
            let _ = unwrap(&words(&format!("sudo {line}")));
        }
    }

    #[test]
    fn parallel_splits_its_command_from_its_argument_groups() {
        let args = words("-j2 --results out gzip {} ::: a b ::: c");
        let read = parallel(&args);
        assert_eq!(read.command.join(" "), "gzip {}");
        assert_eq!(read.groups.len(), 2);
        assert_eq!(read.groups[0].join(" "), "a b");
        assert!(!read.from_files);
        assert!(parallel(&words("wc :::: files.txt")).from_files);
        assert_eq!(replaced("x{}y{2}z{1.}", 1, "V"), "xVy{2}zV");
        assert!(has_replacement("a{/.}b") && !has_replacement("{a}"));
    }

    #[test]
    fn the_remote_command_of_ssh_is_what_follows_the_host() {
        let args = words("-p 2222 -i key host make test");
        assert_eq!(remote_command(&args).as_deref(), Some("make test"));
        assert_eq!(remote_command(&words("-v host")), None);
    }

    #[test]
    fn a_delete_inside_an_exec_command_is_not_finds_own() {
        let args = words("src -exec echo -delete ; -print");
        let actions = find_actions(&args);
        assert!(!actions.deletes);
        assert_eq!(actions.commands.len(), 1);
        assert!(find_actions(&words(". -name x -delete")).deletes);
    }
}
