//! Code given to an interpreter (`python -c`, `node -e`, `ruby -e`, `perl -e`, `php -r`, a
//! heredoc, a here-string or a pipe into one): the shell commands it runs and the files it
//! deletes, found by pattern, for the same rules as the command line itself.
//!
//! It is a reading of calls, not of the language: string literals passed to the known
//! process and file-deletion calls of each language. Code that builds its arguments at run
//! time is not followed.

use std::sync::OnceLock;

use regex::Regex;

/// A language an interpreter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Python,
    JavaScript,
    Ruby,
    Perl,
    Php,
}

impl Language {
    /// The language `program` (a base name) interprets.
    pub(crate) fn of(program: &str) -> Option<Language> {
        let starts = |prefix: &str| {
            program
                .get(..prefix.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
        };
        if starts("python") || starts("pypy") {
            Some(Language::Python)
        } else if ["node", "nodejs", "bun"]
            .iter()
            .any(|name| program.eq_ignore_ascii_case(name))
        {
            Some(Language::JavaScript)
        } else if starts("ruby") {
            Some(Language::Ruby)
        } else if starts("perl") {
            Some(Language::Perl)
        } else if starts("php") {
            Some(Language::Php)
        } else {
            None
        }
    }

    /// The options whose value is code to run.
    pub(crate) fn code_flags(self) -> &'static [&'static str] {
        match self {
            Language::Python => &["-c"],
            Language::JavaScript => &["-e", "--eval", "-p", "--print"],
            Language::Ruby => &["-e"],
            Language::Perl => &["-e", "-E"],
            Language::Php => &["-r"],
        }
    }

    /// The language's name, for messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::Ruby => "Ruby",
            Language::Perl => "Perl",
            Language::Php => "PHP",
        }
    }
}

/// Something the code does that the rules look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finding {
    /// A shell command line it runs.
    Shell(String),
    /// A path it deletes, recursively or not.
    Delete {
        call: String,
        path: String,
        recursive: bool,
    },
}

struct Patterns {
    /// A call that runs its string argument through a shell.
    shell_string: Regex,
    /// A call that runs a list of words (`subprocess.run(["rm", "-rf", "/"])`).
    shell_list: Regex,
    /// `spawn("rm", ["-rf", "/"])`: a program and its argument list.
    spawn_list: Regex,
    /// Backticks and `%x(…)`, `qx(…)` in Ruby and Perl.
    backticks: Regex,
    /// A recursive delete call with a literal path.
    delete_tree: Regex,
    /// A single-file delete call with a literal path.
    delete_file: Regex,
    /// A string literal.
    literal: Regex,
    /// A call or mode that writes, moves or deletes a file.
    file_change: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let compile = |pattern: &str| Regex::new(pattern).unwrap_or_else(|_| never());
        Patterns {
            shell_string: compile(
                r#"\b(os\.system|os\.popen|subprocess\.\w+|commands\.getoutput|execSync|exec|system|shell_exec|passthru|popen|proc_open)\s*\(?\s*(?:"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)')"#,
            ),
            shell_list: compile(
                r#"\b(subprocess\.\w+|os\.exec\w*|system|exec)\s*\(\s*\[([^\]]*)\]"#,
            ),
            spawn_list: compile(
                r#"\b(spawnSync|spawn|execFileSync|execFile)\s*\(\s*(?:"([^"]*)"|'([^']*)')\s*,\s*\[([^\]]*)\]"#,
            ),
            backticks: compile(r"`([^`]*)`|%x\(([^)]*)\)|qx[({]([^)}]*)[)}]"),
            delete_tree: compile(
                r#"(\bshutil\.rmtree|FileUtils\.rm_rf|FileUtils\.rm_r|FileUtils\.remove_dir|FileUtils\.remove_entry(?:_secure)?|rmtree|remove_tree|(?:\bfs(?:\.promises)?|\))\.rm(?:dir)?(?:Sync)?|Deno\.remove)\s*\(?\s*(?:"([^"]*)"|'([^']*)')([^)\n]*)"#,
            ),
            delete_file: compile(
                r#"\b(os\.remove|os\.unlink|os\.rmdir|Path\([^)]*\)\.unlink|fs(?:\.promises)?\.unlink(?:Sync)?|File\.delete|File\.unlink|FileUtils\.rm|unlink)\s*\(?\s*(?:glob\s*\(\s*)?(?:"([^"]*)"|'([^']*)')"#,
            ),
            literal: compile(r#""((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)'"#),
            file_change: compile(
                r#"(?i)write|append|unlink|remove|rename|replace|truncate|rmtree|rm_r|rmsync|\brm\b|\bmove|copy|symlink|\blink|delete|put_contents|chmod|chown|['"](?:[wax]|r\+)[bt]?\+?['"]|['"]\s*(?:\+<|\+?>)"#,
            ),
        }
    })
}

/// The patterns are constants that compile; this is never reached.
#[cold]
fn never() -> Regex {
    Regex::new("$^").unwrap_or_else(|_| unreachable!("an empty pattern compiles"))
}

fn capture(captures: &regex::Captures<'_>, groups: &[usize]) -> String {
    groups
        .iter()
        .find_map(|g| captures.get(*g))
        .map_or_else(String::new, |m| m.as_str().to_owned())
}

/// The text of every string literal in `code`.
pub(crate) fn string_literals(code: &str) -> Vec<String> {
    literals(code)
}

/// Whether `code` calls anything that writes, moves or deletes a file, or opens one for
/// writing (`'w'`, `'a'`, `'>'`): a reading of words, which may see a change where there is
/// none, never the other way round for the calls it names.
pub(crate) fn changes_files(code: &str) -> bool {
    patterns().file_change.is_match(code)
}

fn literals(list: &str) -> Vec<String> {
    patterns()
        .literal
        .captures_iter(list)
        .map(|c| capture(&c, &[1, 2]))
        .collect()
}

/// What `code` in `language` runs and deletes.
pub(crate) fn scan(language: Language, code: &str) -> Vec<Finding> {
    let patterns = patterns();
    let mut findings = Vec::new();
    for c in patterns.shell_list.captures_iter(code) {
        findings.push(Finding::Shell(literals(&capture(&c, &[2])).join(" ")));
    }
    for c in patterns.spawn_list.captures_iter(code) {
        let mut words = vec![capture(&c, &[2, 3])];
        words.extend(literals(&capture(&c, &[4])));
        findings.push(Finding::Shell(words.join(" ")));
    }
    for c in patterns.shell_string.captures_iter(code) {
        findings.push(Finding::Shell(unescape(&capture(&c, &[2, 3]))));
    }
    if matches!(language, Language::Ruby | Language::Perl) {
        for c in patterns.backticks.captures_iter(code) {
            findings.push(Finding::Shell(capture(&c, &[1, 2, 3])));
        }
    }
    for c in patterns.delete_tree.captures_iter(code) {
        let call = capture(&c, &[1]);
        let rest = capture(&c, &[4]);
        // `fs.rmSync(p)` without `recursive: true` removes a file, not a tree.
        let javascript =
            call.starts_with("fs") || call.starts_with(')') || call.starts_with("Deno");
        let recursive = !javascript || rest.contains("recursive");
        findings.push(Finding::Delete {
            call,
            path: capture(&c, &[2, 3]),
            recursive,
        });
    }
    for c in patterns.delete_file.captures_iter(code) {
        findings.push(Finding::Delete {
            call: capture(&c, &[1]),
            path: capture(&c, &[2, 3]),
            recursive: false,
        });
    }
    findings
}

/// A string literal's text with the common escapes resolved.
fn unescape(text: &str) -> String {
    text.replace("\\\"", "\"")
        .replace("\\'", "'")
        .replace("\\n", "\n")
        .replace("\\\\", "\\")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shells(language: Language, code: &str) -> Vec<String> {
        scan(language, code)
            .into_iter()
            .filter_map(|f| match f {
                Finding::Shell(line) => Some(line),
                Finding::Delete { .. } => None,
            })
            .collect()
    }

    #[test]
    fn shell_commands_in_code_are_found() {
        assert_eq!(
            shells(Language::Python, "import os\nos.system('make clean')"),
            ["make clean"]
        );
        assert_eq!(
            shells(Language::Python, "subprocess.call(['git', 'clean', '-f'])"),
            ["git clean -f"]
        );
        assert_eq!(
            shells(
                Language::JavaScript,
                "cp.spawnSync('git', ['reset', '--hard'])"
            ),
            ["git reset --hard"]
        );
        assert_eq!(shells(Language::Ruby, "puts `ls -1`"), ["ls -1"]);
        assert_eq!(shells(Language::Perl, "system \"du -sh\";"), ["du -sh"]);
    }

    #[test]
    fn deletions_in_code_are_found_with_their_depth() {
        let found = scan(
            Language::JavaScript,
            "fs.rmSync('/opt/x', { recursive: true }); fs.unlinkSync('a.txt'); fs.rmSync('b')",
        );
        assert_eq!(
            found,
            [
                Finding::Delete {
                    call: "fs.rmSync".into(),
                    path: "/opt/x".into(),
                    recursive: true
                },
                Finding::Delete {
                    call: "fs.rmSync".into(),
                    path: "b".into(),
                    recursive: false
                },
                Finding::Delete {
                    call: "fs.unlinkSync".into(),
                    path: "a.txt".into(),
                    recursive: false
                },
            ]
        );
        assert!(scan(Language::Python, "print('shutil.rmtree is a function')").is_empty());
    }

    #[test]
    fn file_changes_are_told_from_reads() {
        assert!(changes_files("open('policy.yaml', 'w').write('')"));
        assert!(changes_files("open(F, '>', 'policy.yaml')"));
        assert!(changes_files("require('fs').writeFileSync('x', '')"));
        assert!(changes_files("os.remove('x')"));
        assert!(changes_files("File.open('x', 'a+')"));
        assert!(!changes_files("print(open('policy.yaml').read())"));
        assert!(!changes_files("open(F, '<', 'policy.yaml'); print <F>"));
        assert!(!changes_files(
            "console.log(require('fs').readFileSync('notes.txt', 'utf8'))"
        ));
        assert_eq!(string_literals("f('a', \"b\")"), ["a", "b"]);
    }

    #[test]
    fn interpreters_are_recognised_by_name() {
        assert_eq!(Language::of("python3.12"), Some(Language::Python));
        assert_eq!(Language::of("nodejs"), Some(Language::JavaScript));
        assert_eq!(Language::of("perl5.36"), Some(Language::Perl));
        assert_eq!(Language::of("nod"), None);
    }
}
