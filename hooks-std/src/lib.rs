//! Standard pieces for `hooks-core` applications: the standard hook modules (each opt-in, each a
//! [`HookModule`](hooks_core::HookModule) with a serde config) and the terminal approval provider
//! and display (the kernel itself does no I/O).
//!
//! - [`safety`]: the `hooks-safety` checker as a module: denies destructive commands and file
//!   operations on system paths, secrets or outside the workspace;
//! - [`linter`]: runs the linter for a written file and feeds its findings back;
//! - [`logging`]: one JSON line per event, redacted, rotated;
//! - [`redaction`]: replaces secrets and personal data in requests, tool results and prompts;
//! - [`approval`]: asks the user before listed tools run;
//! - [`prompt_gate`]: writes to some paths only once a prompt of the session asked for them;
//! - [`reminder`]: keeps a todo or status list in front of the model, ephemerally;
//! - [`state_file`]: session state in files, for per-event processes such as `hooks claude`;
//! - [`process`]: runs an external process in its own group, bounded in time and output;
//! - [`config_file`]: reads a file that configures the guard without blocking on a FIFO or
//!   reading a device or a huge file;
//! - [`catalog`]: the modules by name, as a hooks file's `modules:` section mounts them, and
//!   room for an application's own.
//!
//! **Lists in the modules' configurations extend the built-in ones.** A list that has built-in
//! entries (the safety module's `protected_files`, the redaction module's `secret_keys`, the
//! linter's `linters`, ...) holds what a configuration adds: `{"protected_files":
//! ["**/secrets.toml"]}` protects that file besides `.env` and keys, in Rust and in a hooks
//! file alike. `replace_defaults` names the lists whose built-in entries a configuration leaves
//! out, list by list (`{"replace_defaults": ["allowed_files"], "allowed_files": [...]}`), so
//! replacing one list keeps the others' built-in entries; each configuration's
//! `with_built_in_lists()` writes them out to start from. A guard weakened by a list that read
//! as "also this" would weaken it silently; replacing is said in so many words. The one
//! exception is the approval module's `options`, the menu of answers, which is taken as given.
//!
//! Hooks files (YAML or Claude Code settings), the runners of external hooks and the agents'
//! hook protocols are in the `hooks-config` crate; this one starts no HTTP client.

pub mod approval;
pub mod catalog;
pub mod config_file;
pub mod linter;
pub mod logging;
pub mod process;
pub mod prompt_gate;
pub mod redaction;
pub mod reminder;
pub mod safety;
pub mod state_file;
pub mod terminal;

pub use hooks_core as core;
