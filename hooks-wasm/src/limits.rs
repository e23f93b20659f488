//! What a component may use: how long a call may run, how much memory it may take, and which
//! capabilities of the host it is granted (none unless listed).

use std::path::PathBuf;
use std::time::Duration;

/// The deadline of a call when none is given.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

/// The memory a component may take when no limit is given: 64 MiB.
pub const DEFAULT_MEMORY_BYTES: usize = 64 << 20;

/// How long one call may run and how much memory one instance may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A call still running at this deadline is stopped (the guest yields to its caller every
    /// few microseconds of work, and the caller's timer ends it).
    pub timeout: Duration,
    /// The most linear memory, in bytes, all of an instance's memories may hold together.
    pub memory_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: DEFAULT_TIMEOUT,
            memory_bytes: DEFAULT_MEMORY_BYTES,
        }
    }
}

/// The host capabilities a component is granted; by default none at all: no directory, an
/// empty environment, no network, no arguments, stdin closed and its output sent to the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Directories it may read (never write), each visible to it under its own path.
    pub read_dirs: Vec<PathBuf>,
    /// Environment variables it may read, by name; their values are the host's at each call,
    /// and an unset one is left out.
    pub env: Vec<String>,
}

impl Grants {
    /// No capabilities (the default).
    pub fn none() -> Self {
        Grants::default()
    }

    /// These grants and read access to `dir`.
    #[must_use]
    pub fn read_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.read_dirs.push(dir.into());
        self
    }

    /// These grants and the environment variable `name`.
    #[must_use]
    pub fn env_var(mut self, name: impl Into<String>) -> Self {
        self.env.push(name.into());
        self
    }
}
