//! Reading a shell command line the way a shell would, far enough to see what it runs.
//!
//! The split follows quotes ('…', "…"), backslash escapes, separators (`;`, `&&`, `||`, `|`,
//! `&`, newlines), grouping (`( … )`, `{ … }`), redirections and comments. Scripts hidden
//! inside a command (`$( … )`, backticks, `bash -c '…'`, `eval …`, `su -c …`) are returned
//! as nested scripts, to be read in turn. Nothing is expanded or executed.

/// One simple command: its words (quotes removed) and where it redirects output to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SimpleCommand {
    pub words: Vec<String>,
    /// Files written by `>`, `>>`, `&>`.
    pub redirect_targets: Vec<String>,
    /// Files read by `<`.
    pub input_files: Vec<String>,
    /// Whether the command reads the previous command's output through a pipe.
    pub piped_into: bool,
}

/// What a command line holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Script {
    pub commands: Vec<SimpleCommand>,
    /// Command lines found inside this one (substitutions).
    pub nested: Vec<String>,
}

/// Splits `line` into simple commands and nested scripts.
pub(crate) fn parse(line: &str) -> Script {
    let mut parser = Parser {
        chars: line.chars().collect(),
        at: 0,
        script: Script::default(),
        current: SimpleCommand::default(),
        word: None,
        redirect_next: None,
        pipe_pending: false,
    };
    parser.run();
    parser.script
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    script: Script,
    current: SimpleCommand,
    /// The word being read; `None` between words (an empty quoted word is `Some("")`).
    word: Option<String>,
    /// The next word is the target of a redirection: `Some(true)` written, `Some(false)` read.
    redirect_next: Option<bool>,
    /// The next command reads from a pipe.
    pipe_pending: bool,
}

impl Parser {
    fn peek(&self, offset: usize) -> Option<char> {
        self.chars.get(self.at + offset).copied()
    }

    fn push_char(&mut self, c: char) {
        self.word.get_or_insert_with(String::new).push(c);
    }

    fn end_word(&mut self) {
        if let Some(word) = self.word.take() {
            match self.redirect_next.take() {
                Some(true) => self.current.redirect_targets.push(word),
                Some(false) => self.current.input_files.push(word),
                None => self.current.words.push(word),
            }
        }
    }

    fn end_command(&mut self, piped_next: bool) {
        self.end_word();
        self.redirect_next = None;
        let mut command = std::mem::take(&mut self.current);
        if !command.words.is_empty()
            || !command.redirect_targets.is_empty()
            || !command.input_files.is_empty()
        {
            command.piped_into = self.pipe_pending;
            self.script.commands.push(command);
        }
        self.pipe_pending = piped_next;
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                ' ' | '\t' => self.end_word(),
                '\n' | ';' | '(' | ')' | '{' | '}' => self.end_command(false),
                '&' => {
                    if self.peek(0) == Some('>') {
                        // `&>` redirects both streams.
                        self.at += 1;
                        self.end_word();
                        self.redirect_next = Some(true);
                    } else {
                        if self.peek(0) == Some('&') {
                            self.at += 1;
                        }
                        self.end_command(false);
                    }
                }
                '|' => {
                    if self.peek(0) == Some('|') {
                        self.at += 1;
                        self.end_command(false);
                    } else {
                        self.end_command(true);
                    }
                }
                '>' | '<' => {
                    // A descriptor number just before (`2>`) belongs to the redirection.
                    if self
                        .word
                        .as_deref()
                        .is_some_and(|w| w.chars().all(|d| d.is_ascii_digit()))
                    {
                        self.word = None;
                    }
                    self.end_word();
                    while matches!(self.peek(0), Some('>') | Some('|')) {
                        self.at += 1;
                    }
                    if self.peek(0) == Some('&') {
                        // `2>&1`, `>&2`: a descriptor is duplicated, no file is named.
                        self.at += 1;
                        while self.peek(0).is_some_and(|d| d.is_ascii_digit() || d == '-') {
                            self.at += 1;
                        }
                    } else {
                        self.redirect_next = Some(c == '>');
                    }
                }
                '#' if self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                '\\' => match self.peek(0) {
                    Some('\n') => self.at += 1,
                    Some(escaped) => {
                        self.at += 1;
                        self.push_char(escaped);
                    }
                    None => {}
                },
                '\'' => {
                    let text = self.take_until('\'');
                    self.word.get_or_insert_with(String::new).push_str(&text);
                }
                '"' => self.double_quoted(),
                '`' => self.backticks(),
                '$' if self.peek(0) == Some('(') => self.command_substitution(),
                other => self.push_char(other),
            }
        }
        self.end_command(false);
    }

    /// `$( … )`, its `$(` already read: a nested script, kept in the word as written.
    fn command_substitution(&mut self) {
        self.at += 1;
        let inner = self.take_balanced();
        self.word
            .get_or_insert_with(String::new)
            .push_str(&format!("$({inner})"));
        self.script.nested.push(inner);
    }

    /// `` `…` ``, its opening backtick already read: a nested script, kept in the word.
    fn backticks(&mut self) {
        let inner = self.take_until('`');
        self.word
            .get_or_insert_with(String::new)
            .push_str(&format!("`{inner}`"));
        self.script.nested.push(inner);
    }

    /// The text up to the next `end` (not included), or to the end of the line.
    fn take_until(&mut self, end: char) -> String {
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            if c == end {
                break;
            }
            text.push(c);
        }
        text
    }

    /// The text up to the `)` that closes an already opened `$(`.
    fn take_balanced(&mut self) -> String {
        let mut depth = 1;
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            text.push(c);
        }
        text
    }

    fn double_quoted(&mut self) {
        self.word.get_or_insert_with(String::new);
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                '"' => return,
                '\\' => match self.peek(0) {
                    Some(escaped @ ('"' | '\\' | '$' | '`')) => {
                        self.at += 1;
                        self.push_char(escaped);
                    }
                    Some('\n') => self.at += 1,
                    _ => self.push_char('\\'),
                },
                '$' if self.peek(0) == Some('(') => self.command_substitution(),
                '`' => self.backticks(),
                other => self.push_char(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        parse(line).commands.into_iter().map(|c| c.words).collect()
    }

    #[test]
    fn quotes_escapes_and_spaces_are_read_as_a_shell_does() {
        assert_eq!(words("  rm   -rf\t/ "), [["rm", "-rf", "/"]]);
        assert_eq!(words(r#"r''m "-rf" '/'"#), [["rm", "-rf", "/"]]);
        assert_eq!(words(r"\rm -r\f /"), [["rm", "-rf", "/"]]);
        assert_eq!(
            words(r#"echo "a \"quoted\" word""#),
            [["echo", "a \"quoted\" word"]]
        );
        assert_eq!(words("echo '' x"), [["echo", "", "x"]]);
    }

    #[test]
    fn separators_split_commands_and_pipes_are_marked() {
        let script = parse("cd /; rm -rf * && echo done || true | sh & sleep 1\nls # rm -rf /");
        let names: Vec<&str> = script
            .commands
            .iter()
            .map(|c| c.words[0].as_str())
            .collect();
        assert_eq!(names, ["cd", "rm", "echo", "true", "sh", "sleep", "ls"]);
        assert!(script.commands[4].piped_into);
        assert!(!script.commands[3].piped_into);
        assert_eq!(
            script.commands[6].words,
            ["ls"],
            "the comment is not a command"
        );
    }

    #[test]
    fn redirections_name_their_targets() {
        let script = parse("echo x > /etc/hosts 2>&1; cat < .env >> out.log; ls &>/dev/null");
        assert_eq!(script.commands.len(), 3, "{script:?}");
        assert_eq!(script.commands[0].words, ["echo", "x"]);
        assert_eq!(script.commands[0].redirect_targets, ["/etc/hosts"]);
        assert_eq!(script.commands[1].input_files, [".env"]);
        assert_eq!(script.commands[1].redirect_targets, ["out.log"]);
        assert_eq!(script.commands[2].redirect_targets, ["/dev/null"]);
    }

    #[test]
    fn substitutions_are_returned_as_nested_scripts() {
        let script = parse(r#"echo "$(rm -rf /)" `sudo rm x` $(echo $(id))"#);
        assert_eq!(script.nested, ["rm -rf /", "sudo rm x", "echo $(id)"]);
    }

    #[test]
    fn unterminated_quotes_do_not_lose_the_rest() {
        assert_eq!(words("rm -rf '/"), [["rm", "-rf", "/"]]);
        assert_eq!(words("echo \"unterminated"), [["echo", "unterminated"]]);
    }
}
