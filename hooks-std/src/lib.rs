//! Standard pieces for `hooks-core` applications: the standard hook modules (each opt-in, each a
//! [`HookModule`](hooks_core::HookModule) with a serde config) and the terminal approval provider
//! and display (the kernel itself does no I/O).
//!
//! - [`safety`]: denies destructive commands and file operations on system paths, secrets or
//!   outside the workspace;
//! - [`linter`]: runs the linter for a written file and feeds its findings back;
//! - [`logging`]: one JSON line per event, redacted, rotated;
//! - [`redaction`]: replaces secrets and personal data in requests, tool results and prompts;
//! - [`approval`]: asks the user before listed tools run;
//! - [`config`]: hooks configured in YAML (command, matcher, HTTP and LLM hooks) or in a Claude
//!   Code settings file;
//! - [`reminder`]: keeps a todo or status list in front of the model, ephemerally;
//! - [`interop`]: Claude Code's and Gemini CLI's hook protocols, both ways.

pub mod approval;
pub mod config;
pub mod interop;
pub mod linter;
pub mod logging;
pub mod redaction;
pub mod reminder;
pub mod safety;
pub mod terminal;

pub use hooks_core as core;
