//! Asking and telling the user on a terminal.
//!
//! [`TerminalApprovals`] puts approval requests to the user and reads the answer; when there is
//! no terminal (a CI job, a pipe), it does not wait for input that will never come but fails at
//! once, so that the request's default applies (deny unless the hook said otherwise).
//! [`TerminalDisplay`] shows user messages, coloured by level on a terminal.
//! [`colour_for`] is the one rule for colour: a terminal gets it, a pipe or a file does not,
//! and `NO_COLOR` and `CLICOLOR_FORCE` overrule both.

use std::fmt;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};

use hooks_core::session::DisplaySink;
use hooks_core::session::approval::{ApprovalError, ApprovalProvider, ApprovalRequest};
use hooks_core::{BoxFuture, MessageLevel, UserMessage};

use hooks_core::sync::lock;

/// Whether text written to `stream` should carry colour: never when `NO_COLOR` is set to
/// anything, always when `CLICOLOR_FORCE` is set to anything but `0`, and otherwise only when
/// `stream` is a terminal (colour codes in a pipe or a file are noise).
///
/// ```
/// let colour = hooks_std::terminal::colour_for(&std::io::stdout());
/// # let _ = colour;
/// ```
pub fn colour_for(stream: &impl IsTerminal) -> bool {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    colour_wanted(
        stream.is_terminal(),
        set("NO_COLOR").is_some(),
        set("CLICOLOR_FORCE").is_some_and(|value| value != "0"),
    )
}

/// [`colour_for`]'s rule, on what it read.
fn colour_wanted(terminal: bool, no_color: bool, force: bool) -> bool {
    !no_color && (force || terminal)
}

/// How many unusable answers are tolerated before the request falls back to its default.
pub const MAX_ATTEMPTS: usize = 3;

struct Console {
    input: Box<dyn BufRead + Send>,
    output: Box<dyn Write + Send>,
    interactive: bool,
}

/// An approval provider that asks on a terminal.
///
/// The prompt lists the options by number; the user answers with a number or an option's text
/// (any case). The timeout is enforced by [`hooks_core::session::approval::Approvals`]; note that a
/// blocking read of standard input cannot be interrupted, so after a timeout the read stays
/// pending until the user presses Enter (and that answer is discarded).
#[derive(Clone)]
pub struct TerminalApprovals {
    console: Arc<Mutex<Console>>,
}

impl fmt::Debug for TerminalApprovals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TerminalApprovals")
            .field("interactive", &self.lock().interactive)
            .finish()
    }
}

impl TerminalApprovals {
    /// Asks on standard error and reads standard input, when both are a terminal.
    pub fn stdio() -> Self {
        let interactive = io::stdin().is_terminal() && io::stderr().is_terminal();
        TerminalApprovals::with_io(BufReader::new(io::stdin()), io::stderr(), interactive)
    }

    /// Asks on `output` and reads `input`; `interactive: false` means there is nobody there,
    /// and every request fails at once (so its default applies).
    pub fn with_io(
        input: impl BufRead + Send + 'static,
        output: impl Write + Send + 'static,
        interactive: bool,
    ) -> Self {
        TerminalApprovals {
            console: Arc::new(Mutex::new(Console {
                input: Box::new(input),
                output: Box::new(output),
                interactive,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Console> {
        lock(&self.console)
    }
}

impl ApprovalProvider for TerminalApprovals {
    fn ask<'a>(
        &'a self,
        request: &'a ApprovalRequest,
    ) -> BoxFuture<'a, Result<String, ApprovalError>> {
        let console = Arc::clone(&self.console);
        let request = request.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut console = lock(&console);
                ask_on(&mut console, &request)
            })
            .await
            .map_err(|error| ApprovalError(format!("the terminal prompt failed: {error}")))?
        })
    }
}

fn ask_on(console: &mut Console, request: &ApprovalRequest) -> Result<String, ApprovalError> {
    if !console.interactive {
        return Err(ApprovalError(
            "no terminal to ask on; the request's default applies".to_owned(),
        ));
    }
    let io_error = |error: io::Error| ApprovalError(format!("terminal I/O failed: {error}"));
    writeln!(console.output, "\n? {}", request.prompt).map_err(io_error)?;
    if let Some(reason) = &request.reason {
        writeln!(console.output, "  ({reason})").map_err(io_error)?;
    }
    for (number, option) in request.options.iter().enumerate() {
        writeln!(console.output, "  {}) {option}", number + 1).map_err(io_error)?;
    }
    let default = request.default.as_str();
    for _ in 0..MAX_ATTEMPTS {
        write!(
            console.output,
            "choose 1-{} (default: {default}): ",
            request.options.len()
        )
        .map_err(io_error)?;
        console.output.flush().map_err(io_error)?;
        let mut line = String::new();
        if console.input.read_line(&mut line).map_err(io_error)? == 0 {
            return Err(ApprovalError(
                "the terminal closed before an answer".to_owned(),
            ));
        }
        if let Some(option) = choose(line.trim(), &request.options) {
            return Ok(option.to_owned());
        }
        writeln!(
            console.output,
            "  `{}` is not one of the options",
            line.trim()
        )
        .map_err(io_error)?;
    }
    Err(ApprovalError(format!(
        "no usable answer after {MAX_ATTEMPTS} attempts"
    )))
}

/// The option an answer names: its number (from 1) or its text, in any case.
fn choose<'o>(answer: &str, options: &'o [String]) -> Option<&'o str> {
    if let Ok(number) = answer.parse::<usize>() {
        return number
            .checked_sub(1)
            .and_then(|index| options.get(index))
            .map(String::as_str);
    }
    options
        .iter()
        .find(|option| option.eq_ignore_ascii_case(answer))
        .map(String::as_str)
}

/// A display that writes user messages to a terminal (or any writer), one per line, coloured
/// by level when colour is on.
pub struct TerminalDisplay {
    output: Mutex<Box<dyn Write + Send>>,
    colour: bool,
    indent: String,
}

impl fmt::Debug for TerminalDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TerminalDisplay")
            .field("colour", &self.colour)
            .finish_non_exhaustive()
    }
}

impl TerminalDisplay {
    /// Writes to standard error, coloured when it is a terminal (see [`colour_for`]).
    pub fn stderr() -> Self {
        let colour = colour_for(&io::stderr());
        TerminalDisplay::with_writer(io::stderr(), colour)
    }

    /// Writes to `output`, coloured or plain.
    pub fn with_writer(output: impl Write + Send + 'static, colour: bool) -> Self {
        TerminalDisplay {
            output: Mutex::new(Box::new(output)),
            colour,
            indent: String::new(),
        }
    }

    /// Starts every line with `indent` (to nest messages under a transcript's steps).
    #[must_use]
    pub fn indented(mut self, indent: impl Into<String>) -> Self {
        self.indent = indent.into();
        self
    }
}

impl DisplaySink for TerminalDisplay {
    fn show(&self, message: &UserMessage) {
        let (label, ansi) = match message.level {
            MessageLevel::Info => ("info", "36"),
            MessageLevel::Warning => ("warning", "33"),
            MessageLevel::Error => ("error", "31"),
        };
        let label = if self.colour {
            format!("\x1b[{ansi}m{label}\x1b[0m")
        } else {
            label.to_owned()
        };
        let mut output = lock(&self.output);
        // A display that cannot write has nowhere to report that either; the message is also
        // in the emit's result, so it is not lost.
        let _ = writeln!(
            output,
            "{}[{label}] {} ({})",
            self.indent, message.text, message.hook
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{choose, colour_wanted};

    #[test]
    fn colour_follows_the_terminal_unless_the_environment_says_otherwise() {
        assert!(colour_wanted(true, false, false));
        assert!(!colour_wanted(false, false, false), "a pipe gets no colour");
        assert!(
            !colour_wanted(true, true, false),
            "NO_COLOR wins on a terminal"
        );
        assert!(
            colour_wanted(false, false, true),
            "CLICOLOR_FORCE colours a pipe"
        );
        assert!(
            !colour_wanted(false, true, true),
            "NO_COLOR wins over CLICOLOR_FORCE"
        );
    }

    #[test]
    fn an_answer_is_a_number_or_an_option_in_any_case() {
        let options = [
            "Allow once".to_owned(),
            "Allow always".to_owned(),
            "Deny".to_owned(),
        ];
        assert_eq!(choose("2", &options), Some("Allow always"));
        assert_eq!(choose("deny", &options), Some("Deny"));
        assert_eq!(choose("0", &options), None);
        assert_eq!(choose("4", &options), None);
        assert_eq!(choose("maybe", &options), None);
    }
}
