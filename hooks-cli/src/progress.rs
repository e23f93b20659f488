//! A progress indicator that owns the terminal's last line: a spinner with the elapsed time while
//! a step waits, cleared before anything else is printed, so it never garbles other output.

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

struct State {
    output: Box<dyn Write + Send>,
    /// What the spinner is waiting for, and since when; `None` when no spinner is shown.
    waiting: Option<(String, Instant)>,
    frame: usize,
    /// Whether the spinner's line is on screen (and must be cleared before other output).
    drawn: bool,
}

/// What the spinner was waiting for when it was paused.
pub struct Paused(Option<(String, Instant)>);

/// A `Write` that hands each complete line to a [`Progress`], so other printers (a display)
/// clear the spinner too.
pub struct Lines {
    progress: Progress,
    pending: Vec<u8>,
}

impl Lines {
    /// Lines for `progress`.
    pub fn new(progress: Progress) -> Self {
        Lines {
            progress,
            pending: Vec::new(),
        }
    }
}

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.progress
                .line(String::from_utf8_lossy(&line[..end]).as_ref());
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The printer of a transcript; the spinner only runs when `enabled` (a terminal).
#[derive(Clone)]
pub struct Progress {
    state: Arc<Mutex<State>>,
    enabled: bool,
}

impl Progress {
    /// A printer writing to `output`; the spinner is shown only when `enabled`.
    pub fn new(output: impl Write + Send + 'static, enabled: bool) -> Self {
        Progress {
            state: Arc::new(Mutex::new(State {
                output: Box::new(output),
                waiting: None,
                frame: 0,
                drawn: false,
            })),
            enabled,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        hooks_core::sync::lock(&self.state)
    }

    fn clear(state: &mut State) {
        if state.drawn {
            let _ = write!(state.output, "\r\x1b[2K");
            state.drawn = false;
        }
    }

    /// Prints a line, clearing the spinner first; the spinner comes back at the next tick.
    pub fn line(&self, text: &str) {
        let mut state = self.lock();
        Self::clear(&mut state);
        let _ = writeln!(state.output, "{text}");
        let _ = state.output.flush();
    }

    /// Starts waiting for `what`: ticks show a spinner until [`Progress::done`].
    pub fn wait(&self, what: &str) {
        if self.enabled {
            self.lock().waiting = Some((what.to_owned(), Instant::now()));
        }
    }

    /// Draws the next spinner frame, if waiting.
    pub fn tick(&self) {
        let mut state = self.lock();
        let Some((what, since)) = state.waiting.clone() else {
            return;
        };
        state.frame = (state.frame + 1) % FRAMES.len();
        let frame = FRAMES[state.frame];
        let _ = write!(
            state.output,
            "\r\x1b[2K    {frame} {what} {:.1}s",
            since.elapsed().as_secs_f64()
        );
        let _ = state.output.flush();
        state.drawn = true;
    }

    /// Stops waiting and clears the spinner.
    pub fn done(&self) {
        let mut state = self.lock();
        state.waiting = None;
        Self::clear(&mut state);
    }

    /// Hides the spinner while something else owns the terminal (a prompt); give the result
    /// to [`Progress::resume`] afterwards.
    pub fn pause(&self) -> Paused {
        let mut state = self.lock();
        Self::clear(&mut state);
        Paused(state.waiting.take())
    }

    /// Shows the spinner again after [`Progress::pause`].
    pub fn resume(&self, paused: Paused) {
        if let Paused(Some(waiting)) = paused {
            self.lock().waiting = Some(waiting);
        }
    }

    /// Ticks every `period` until the returned task is aborted.
    pub fn spin(&self, period: Duration) -> tokio::task::JoinHandle<()> {
        let progress = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                progress.tick();
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hooks_core::sync::lock;

    #[derive(Clone, Default)]
    struct Screen(Arc<Mutex<Vec<u8>>>);

    impl Write for Screen {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            lock(&self.0).extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Screen {
        fn text(&self) -> String {
            String::from_utf8_lossy(&lock(&self.0)).into_owned()
        }
    }

    #[test]
    fn the_spinner_is_cleared_before_any_other_line_and_after_the_step() {
        let screen = Screen::default();
        let progress = Progress::new(screen.clone(), true);
        progress.wait("running hooks");
        progress.tick();
        progress.line("    [warning] lint findings");
        progress.tick();
        progress.done();
        let text = screen.text();
        assert!(text.contains("⠙ running hooks 0.0s"), "{text:?}");
        assert!(
            text.contains("\r\x1b[2K    [warning] lint findings\n"),
            "cleared before the line: {text:?}"
        );
        assert!(text.ends_with("\r\x1b[2K"), "cleared at the end: {text:?}");
    }

    #[test]
    fn lines_written_through_the_writer_clear_the_spinner() {
        let screen = Screen::default();
        let progress = Progress::new(screen.clone(), true);
        progress.wait("w");
        progress.tick();
        let mut lines = Lines::new(progress.clone());
        write!(lines, "[info] a").unwrap();
        write!(lines, "b\nrest").unwrap();
        assert!(
            screen.text().ends_with("\r\x1b[2K[info] ab\n"),
            "{:?}",
            screen.text()
        );
        assert!(
            !screen.text().contains("rest"),
            "a partial line waits for its end"
        );
    }

    #[test]
    fn no_spinner_without_a_terminal_and_none_while_paused() {
        let plain = Screen::default();
        let progress = Progress::new(plain.clone(), false);
        progress.wait("x");
        progress.tick();
        progress.line("a line");
        assert_eq!(plain.text(), "a line\n");

        let screen = Screen::default();
        let progress = Progress::new(screen.clone(), true);
        progress.wait("asking");
        let paused = progress.pause();
        progress.tick();
        assert!(
            !screen.text().contains("asking"),
            "no spinner while a prompt owns the terminal"
        );
        progress.resume(paused);
        progress.tick();
        assert!(
            screen.text().contains("asking"),
            "it resumes after the prompt"
        );
    }
}
