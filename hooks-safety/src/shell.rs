//! Reading a shell command line the way a shell would, far enough to see what it runs.
//!
//! The split follows quotes (`'…'`, `"…"`, `$'…'`), backslash escapes and line continuations,
//! separators (`;`, `&&`, `||`, `|`, `|&`, `&`, newlines), grouping (`( … )`, `{ … }`),
//! redirections, comments, heredocs (`<<`, `<<-`, quoted or not) and here-strings (`<<<`).
//! Scripts hidden inside a command (`$( … )`, backticks, `<( … )`, `>( … )`) are returned as
//! nested scripts, to be read in turn; the text a heredoc or here-string feeds a command is
//! kept with that command, as data, for the rules that know whether the command runs it.
//!
//! It never fails: unbalanced quotes and substitutions run to the end of the line, so
//! everything in the text is still read as words. Nothing is expanded or executed. It reads
//! the input once, and nested scripts once per level of nesting.

/// One simple command: its words (quotes removed) and where it reads and writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SimpleCommand {
    pub words: Vec<String>,
    /// Files written by `>`, `>>`, `&>`.
    pub redirect_targets: Vec<String>,
    /// Files read by `<`.
    pub input_files: Vec<String>,
    /// Text given on standard input by heredocs and here-strings.
    pub stdin_text: Vec<String>,
    /// The command whose output this one reads through a pipe (an index into
    /// [`Script::commands`]).
    pub pipe_from: Option<usize>,
}

/// What a command line holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Script {
    pub commands: Vec<SimpleCommand>,
    /// Command lines found inside this one (command and process substitutions).
    pub nested: Vec<String>,
}

/// What the reader reports, in the order a shell meets it.
pub(crate) enum Event<'e> {
    /// A complete simple command, with the command whose output it reads through a pipe.
    Command(&'e SimpleCommand, Option<&'e SimpleCommand>),
    /// A command line nested in this one (a command or process substitution).
    Nested(&'e str),
}

/// Reads `line`, reporting each simple command as soon as it is complete (with its heredoc
/// bodies) and each nested script as it is met, until `sink` returns `true`. Only the
/// previous command is kept, so a long line costs no more memory than a short one.
pub(crate) fn read(line: &str, sink: &mut dyn FnMut(Event<'_>) -> bool) {
    let mut parser = Parser {
        bytes: line.as_bytes(),
        at: 0,
        sink,
        stopped: false,
        count: 0,
        last: None,
        pending: Vec::new(),
        current: SimpleCommand::default(),
        word: None,
        redirect_next: None,
        pipe_pending: false,
        heredocs: Vec::new(),
    };
    parser.run();
}

/// Splits `line` into simple commands and nested scripts, all at once.
pub(crate) fn parse(line: &str) -> Script {
    let mut script = Script::default();
    read(line, &mut |event| {
        match event {
            Event::Command(command, _) => script.commands.push(command.clone()),
            Event::Nested(inner) => script.nested.push(inner.to_owned()),
        }
        false
    });
    script
}

/// Where the next word goes, when it is not an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirect {
    Write,
    Read,
    HereString,
}

/// A heredoc whose body starts at the next line.
struct PendingHeredoc {
    /// The ordinal of the declaring command in the line (its index in [`Script::commands`]).
    command: usize,
    delimiter: String,
    strip_tabs: bool,
}

/// The reader. It works on bytes: every character with a meaning to the shell is ASCII, so
/// the text between them is copied whole and stays valid UTF-8.
struct Parser<'a, 's> {
    bytes: &'a [u8],
    at: usize,
    sink: &'s mut dyn FnMut(Event<'_>) -> bool,
    /// The sink asked to stop.
    stopped: bool,
    /// How many commands were completed.
    count: usize,
    /// The last command reported: the source of the next one, if that one reads a pipe.
    last: Option<SimpleCommand>,
    /// Completed commands waiting for the bodies of heredocs declared on their line.
    pending: Vec<SimpleCommand>,
    current: SimpleCommand,
    /// The word being read; `None` between words (an empty quoted word is `Some("")`).
    word: Option<Vec<u8>>,
    redirect_next: Option<Redirect>,
    /// The next command reads from a pipe.
    pipe_pending: bool,
    heredocs: Vec<PendingHeredoc>,
}

/// `bytes` as text (they were cut from valid UTF-8 at ASCII characters).
fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// The bytes with a meaning to `run`; a run of any others is part of a word.
const RUN_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let special = b" \t\r\n;(){}&|<>#\\'\"`$";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// The bytes `take_balanced` must look at; every other byte is skipped in bulk.
const BALANCED_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'\\' as usize] = true;
    table[b'\'' as usize] = true;
    table[b'"' as usize] = true;
    table[b'(' as usize] = true;
    table[b')' as usize] = true;
    table
};

impl<'a> Parser<'a, '_> {
    fn peek(&self, offset: usize) -> Option<u8> {
        self.bytes.get(self.at + offset).copied()
    }

    fn push_byte(&mut self, c: u8) {
        self.word
            .get_or_insert_with(|| Vec::with_capacity(16))
            .push(c);
    }

    fn push_bytes(&mut self, bytes: &[u8]) {
        self.word
            .get_or_insert_with(Vec::new)
            .extend_from_slice(bytes);
    }

    fn end_word(&mut self) {
        if let Some(word) = self.word.take() {
            let word = String::from_utf8(word).unwrap_or_else(|invalid| text(invalid.as_bytes()));
            match self.redirect_next.take() {
                Some(Redirect::Write) => self.current.redirect_targets.push(word),
                Some(Redirect::Read) => self.current.input_files.push(word),
                Some(Redirect::HereString) => self.current.stdin_text.push(word),
                None => self.current.words.push(word),
            }
        }
    }

    fn end_command(&mut self, piped_next: bool) {
        self.end_word();
        self.redirect_next = None;
        let mut command = std::mem::take(&mut self.current);
        let declared_heredoc = self.heredocs.iter().any(|h| h.command == self.count);
        if !command.words.is_empty()
            || !command.redirect_targets.is_empty()
            || !command.input_files.is_empty()
            || !command.stdin_text.is_empty()
            || declared_heredoc
        {
            if self.pipe_pending {
                command.pipe_from = self.count.checked_sub(1);
            }
            self.count += 1;
            if self.heredocs.is_empty() && self.pending.is_empty() {
                self.report(command);
            } else {
                self.pending.push(command);
            }
        }
        self.pipe_pending = piped_next;
    }

    /// Hands a complete command to the sink, with its pipe source.
    fn report(&mut self, command: SimpleCommand) {
        if !self.stopped {
            let source = command.pipe_from.and(self.last.as_ref());
            self.stopped = (self.sink)(Event::Command(&command, source));
        }
        self.last = Some(command);
    }

    /// Hands the commands that waited for their heredoc bodies to the sink.
    fn report_pending(&mut self) {
        for command in std::mem::take(&mut self.pending) {
            self.report(command);
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            if self.stopped {
                return;
            }
            self.at += 1;
            match c {
                b' ' | b'\t' | b'\r' => self.end_word(),
                b'\n' => {
                    self.end_command(false);
                    self.heredoc_bodies();
                }
                b';' | b'(' | b')' => self.end_command(false),
                // Braces group only as words of their own: `{ a; }`, not `${x}` or `a{b,c}`.
                b'{' if self.word.is_none()
                    && self.peek(0).is_none_or(|n| n.is_ascii_whitespace()) =>
                {
                    self.end_command(false);
                }
                b'}' if self.word.is_none() => self.end_command(false),
                b'&' => {
                    if self.peek(0) == Some(b'>') {
                        // `&>` and `&>>` redirect both streams.
                        while self.peek(0) == Some(b'>') {
                            self.at += 1;
                        }
                        self.end_word();
                        self.redirect_next = Some(Redirect::Write);
                    } else {
                        if self.peek(0) == Some(b'&') {
                            self.at += 1;
                        }
                        self.end_command(false);
                    }
                }
                b'|' => match self.peek(0) {
                    Some(b'|') => {
                        self.at += 1;
                        self.end_command(false);
                    }
                    Some(b'&') => {
                        self.at += 1;
                        self.end_command(true);
                    }
                    _ => self.end_command(true),
                },
                b'<' | b'>' if self.peek(0) == Some(b'(') => self.process_substitution(c),
                b'>' | b'<' => self.redirection(c),
                b'#' if self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != b'\n') {
                        self.at += 1;
                    }
                }
                b'\\' => match self.peek(0) {
                    Some(b'\n') => self.at += 1,
                    Some(escaped) => {
                        self.at += 1;
                        self.push_byte(escaped);
                    }
                    None => {}
                },
                b'\'' => {
                    let quoted = self.take_until(b'\'');
                    self.push_bytes(quoted);
                }
                b'"' => self.double_quoted(),
                b'`' => self.backticks(),
                b'$' => self.dollar(),
                _ => {
                    // A run of ordinary bytes is copied at once.
                    let start = self.at - 1;
                    let bytes: &'a [u8] = self.bytes;
                    let run = bytes[self.at..]
                        .iter()
                        .position(|&b| RUN_SPECIAL[usize::from(b)])
                        .unwrap_or(bytes.len() - self.at);
                    self.at += run;
                    self.push_bytes(&bytes[start..self.at]);
                }
            }
        }
        self.end_command(false);
        // A heredoc whose body never came still declared its command.
        self.heredocs.clear();
        self.report_pending();
    }

    /// `$` outside single quotes: a substitution, `${…}`, `$'…'`, or a plain `$`.
    fn dollar(&mut self) {
        match self.peek(0) {
            Some(b'(') => self.command_substitution(),
            Some(b'{') => {
                self.at += 1;
                let inner = self.take_until(b'}');
                let mut expansion = Vec::with_capacity(inner.len() + 3);
                expansion.extend_from_slice(b"${");
                expansion.extend_from_slice(inner);
                expansion.push(b'}');
                self.push_bytes(&expansion);
            }
            Some(b'\'') => {
                self.at += 1;
                let decoded = self.ansi_c_quoted();
                self.push_bytes(&decoded);
            }
            _ => self.push_byte(b'$'),
        }
    }

    /// `$'…'`, its opening quote already read: backslash escapes are decoded.
    fn ansi_c_quoted(&mut self) -> Vec<u8> {
        let mut decoded = Vec::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                b'\'' => break,
                b'\\' => {
                    let Some(escaped) = self.peek(0) else { break };
                    self.at += 1;
                    decoded.push(match escaped {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'0' => 0,
                        other => other,
                    });
                }
                other => decoded.push(other),
            }
        }
        decoded
    }

    /// `>`, `>>`, `>|`, `<`, `<<`, `<<-`, `<<<`, `2>&1`: the next word is where it goes.
    fn redirection(&mut self, c: u8) {
        // A descriptor number just before (`2>`) belongs to the redirection.
        if self
            .word
            .as_deref()
            .is_some_and(|w| !w.is_empty() && w.iter().all(u8::is_ascii_digit))
        {
            self.word = None;
        }
        self.end_word();
        if c == b'<' && self.peek(0) == Some(b'<') {
            self.at += 1;
            if self.peek(0) == Some(b'<') {
                self.at += 1;
                self.redirect_next = Some(Redirect::HereString);
            } else {
                self.heredoc_operator();
            }
            return;
        }
        while matches!(self.peek(0), Some(b'>' | b'|')) {
            self.at += 1;
        }
        if self.peek(0) == Some(b'&') {
            // `2>&1`, `>&2`: a descriptor is duplicated, no file is named.
            self.at += 1;
            while self
                .peek(0)
                .is_some_and(|d| d.is_ascii_digit() || d == b'-')
            {
                self.at += 1;
            }
        } else {
            self.redirect_next = Some(if c == b'>' {
                Redirect::Write
            } else {
                Redirect::Read
            });
        }
    }

    /// `<<WORD` or `<<-WORD`, the `<<` already read: the body follows the end of the line.
    fn heredoc_operator(&mut self) {
        let strip_tabs = self.peek(0) == Some(b'-');
        if strip_tabs {
            self.at += 1;
        }
        while matches!(self.peek(0), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        let mut delimiter = Vec::new();
        while let Some(c) = self.peek(0) {
            match c {
                b'\'' | b'"' => {
                    self.at += 1;
                    delimiter.extend_from_slice(self.take_until(c));
                }
                b'\\' => {
                    self.at += 1;
                    if let Some(escaped) = self.peek(0) {
                        self.at += 1;
                        delimiter.push(escaped);
                    }
                }
                c if c.is_ascii_whitespace() || b";|&<>()".contains(&c) => break,
                other => {
                    self.at += 1;
                    delimiter.push(other);
                }
            }
        }
        self.heredocs.push(PendingHeredoc {
            command: self.count,
            delimiter: text(&delimiter),
            strip_tabs,
        });
    }

    /// At the start of a line: the bodies of the heredocs declared on the line before.
    fn heredoc_bodies(&mut self) {
        for heredoc in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            loop {
                if self.at >= self.bytes.len() {
                    break;
                }
                let line = self.take_until(b'\n');
                let mut compared = line;
                if heredoc.strip_tabs {
                    while let [b'\t', rest @ ..] = compared {
                        compared = rest;
                    }
                }
                let delimiter = heredoc.delimiter.as_bytes();
                if compared == delimiter || compared.strip_suffix(b"\r") == Some(delimiter) {
                    break;
                }
                body.push_str(&String::from_utf8_lossy(compared));
                body.push('\n');
            }
            let waiting = self.count - self.pending.len();
            match heredoc
                .command
                .checked_sub(waiting)
                .and_then(|i| self.pending.get_mut(i))
            {
                Some(command) => command.stdin_text.push(body),
                None => self.current.stdin_text.push(body),
            }
        }
        self.report_pending();
    }

    /// `$( … )`, its `$` already read: a nested script, kept in the word as written. `$(( … ))`
    /// is arithmetic, not a command: kept in the word, and read as a script only for the
    /// substitutions it may hold.
    fn command_substitution(&mut self) {
        self.at += 1;
        if self.peek(0) == Some(b'(') {
            let inner = self.take_balanced();
            if inner.contains(&b'`') || inner.windows(2).any(|pair| pair == b"$(") {
                self.wrap_nested(b"$(", inner, b")");
            } else {
                self.push_bytes(b"$(");
                self.push_bytes(inner);
                self.push_bytes(b")");
            }
            return;
        }
        let inner = self.take_balanced();
        self.wrap_nested(b"$(", inner, b")");
    }

    /// `<( … )` or `>( … )`, the `<` or `>` already read: a nested script standing for a file.
    fn process_substitution(&mut self, direction: u8) {
        self.at += 1;
        let inner = self.take_balanced();
        self.wrap_nested(&[direction, b'('], inner, b")");
    }

    /// `` `…` ``, its opening backtick already read: a nested script, kept in the word.
    fn backticks(&mut self) {
        let inner = self.take_until(b'`');
        self.wrap_nested(b"`", inner, b"`");
    }

    /// Keeps a nested script in the current word as written, and returns it to be read.
    fn wrap_nested(&mut self, open: &[u8], inner: &[u8], close: &[u8]) {
        self.push_bytes(open);
        self.push_bytes(inner);
        self.push_bytes(close);
        if !self.stopped {
            let inner = match std::str::from_utf8(inner) {
                Ok(inner) => std::borrow::Cow::Borrowed(inner),
                Err(_) => std::borrow::Cow::Owned(text(inner)),
            };
            self.stopped = (self.sink)(Event::Nested(&inner));
        }
    }

    /// The bytes up to the next `end` (not included), or to the end of the line.
    fn take_until(&mut self, end: u8) -> &'a [u8] {
        let bytes: &'a [u8] = self.bytes;
        let start = self.at.min(bytes.len());
        let rest = &bytes[start..];
        match rest.iter().position(|&c| c == end) {
            Some(length) => {
                self.at = start + length + 1;
                &rest[..length]
            }
            None => {
                self.at = bytes.len();
                rest
            }
        }
    }

    /// The bytes up to the `)` that closes an already opened `(`, quotes and nested
    /// substitutions respected (with a stack, not recursion: nesting depth costs no stack).
    fn take_balanced(&mut self) -> &'a [u8] {
        #[derive(PartialEq)]
        enum Frame {
            Paren,
            DoubleQuote,
        }
        let bytes: &'a [u8] = self.bytes;
        let start = self.at.min(bytes.len());
        let mut stack = vec![Frame::Paren];
        loop {
            let rest = bytes.get(self.at..).unwrap_or(&[]);
            match rest.iter().position(|&b| BALANCED_SPECIAL[usize::from(b)]) {
                Some(skip) => self.at += skip,
                None => {
                    self.at = bytes.len();
                    break;
                }
            }
            let Some(c) = self.peek(0) else { break };
            self.at += 1;
            let in_quotes = stack.last() == Some(&Frame::DoubleQuote);
            match c {
                // An escaped character is skipped (the end of the input stops the loop).
                b'\\' => self.at += 1,
                b'\'' if !in_quotes => {
                    self.take_until(b'\'');
                }
                b'"' if in_quotes => {
                    stack.pop();
                }
                b'"' => stack.push(Frame::DoubleQuote),
                b'(' if !in_quotes || bytes.get(self.at.wrapping_sub(2)) == Some(&b'$') => {
                    stack.push(Frame::Paren);
                }
                b')' if !in_quotes => {
                    stack.pop();
                    if stack.is_empty() {
                        return &bytes[start..self.at - 1];
                    }
                }
                _ => {}
            }
        }
        &bytes[start..self.at.min(bytes.len())]
    }

    fn double_quoted(&mut self) {
        self.word.get_or_insert_with(Vec::new);
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                b'"' => return,
                b'\\' => match self.peek(0) {
                    Some(escaped @ (b'"' | b'\\' | b'$' | b'`')) => {
                        self.at += 1;
                        self.push_byte(escaped);
                    }
                    Some(b'\n') => self.at += 1,
                    _ => self.push_byte(b'\\'),
                },
                b'$' if self.peek(0) == Some(b'(') => self.command_substitution(),
                b'$' if self.peek(0) == Some(b'{') => self.dollar(),
                b'`' => self.backticks(),
                other => self.push_byte(other),
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
        assert_eq!(words("ec\\\nho $'a\\tb'"), [["echo", "a\tb"]]);
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
        assert_eq!(script.commands[4].pipe_from, Some(3));
        assert_eq!(script.commands[3].pipe_from, None);
        assert_eq!(
            script.commands[6].words,
            ["ls"],
            "the comment is not a command"
        );
    }

    #[test]
    fn braces_group_only_as_words_of_their_own() {
        assert_eq!(words("{ ls; }"), [["ls"]]);
        assert_eq!(words("rm -rf ${TMPDIR}/x"), [["rm", "-rf", "${TMPDIR}/x"]]);
        assert_eq!(
            words("git stash drop stash@{0}"),
            [["git", "stash", "drop", "stash@{0}"]]
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
    fn heredocs_and_here_strings_are_stdin_text_not_commands() {
        let script = parse("sh <<'END' | tee log\nrm -x a\n  END\nEND\nls");
        assert_eq!(script.commands.len(), 3, "{script:?}");
        assert_eq!(script.commands[0].words, ["sh"]);
        assert_eq!(script.commands[0].stdin_text, ["rm -x a\n  END\n"]);
        assert_eq!(script.commands[1].words, ["tee", "log"]);
        assert_eq!(script.commands[2].words, ["ls"]);
        let stripped = parse("cat <<-X\n\tone\n\tX\n");
        assert_eq!(stripped.commands[0].stdin_text, ["one\n"]);
        let here = parse("wc -c <<< \"a b\"");
        assert_eq!(here.commands[0].words, ["wc", "-c"]);
        assert_eq!(here.commands[0].stdin_text, ["a b"]);
    }

    #[test]
    fn substitutions_are_returned_as_nested_scripts() {
        let script =
            parse(r#"echo "$(rm -rf /)" `sudo rm x` $(echo $(id)) <(curl a) "$(echo " ) ")""#);
        assert_eq!(
            script.nested,
            [
                "rm -rf /",
                "sudo rm x",
                "echo $(id)",
                "curl a",
                "echo \" ) \""
            ]
        );
    }

    #[test]
    fn unterminated_quotes_do_not_lose_the_rest() {
        assert_eq!(words("rm -rf '/"), [["rm", "-rf", "/"]]);
        assert_eq!(words("echo \"unterminated"), [["echo", "unterminated"]]);
        assert_eq!(
            parse("cat <<EOF\nnever closed").commands[0].stdin_text,
            ["never closed\n"]
        );
    }
}
