//! The work one check may do: a line of a few kilobytes that a shell runs in a blink can ask
//! a model of the shell for gigabytes (a value doubled forty times) or hours (a quarter of a
//! million `cd`s), and a guard that crashes or stalls is one the agent runs the call past. So
//! every check counts what it reads and builds, and a line past the budget is denied, saying
//! so, long before any agent's timeout.

use std::cell::Cell;

use crate::packs::Denial;
use crate::packs::builtin as rules;

/// The most simple commands one check reads, nested scripts included: far more than any line
/// a person or an agent writes, far fewer than a machine-made line needs to slow the check.
pub(crate) const MAX_COMMANDS: usize = 10_000;

/// The most bytes one check builds by putting variables' values into words.
pub(crate) const MAX_BUILT_BYTES: usize = 16 * 1024 * 1024;

/// What a check has spent so far.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    commands: Cell<usize>,
    built: Cell<usize>,
}

impl Budget {
    /// One more command read; the denial once there are too many.
    pub(crate) fn command(&self) -> Option<Denial> {
        let commands = self.commands.get() + 1;
        self.commands.set(commands);
        (commands > MAX_COMMANDS).then(|| {
            Denial::new(
                &rules::TOO_LONG,
                format!(
                    "the line has more than {MAX_COMMANDS} commands, more than the check reads; \
                     split it into shorter commands"
                ),
            )
        })
    }

    /// `bytes` more built into words; the denial once too many were.
    pub(crate) fn built(&self, bytes: usize) -> Option<Denial> {
        let built = self.built.get().saturating_add(bytes);
        self.built.set(built);
        (built > MAX_BUILT_BYTES).then(|| {
            Denial::new(
                &rules::TOO_LONG,
                "the line's variables expand to more text than the check reads; name the \
                 values directly"
                    .to_owned(),
            )
        })
    }
}
