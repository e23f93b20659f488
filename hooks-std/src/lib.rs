//! Standard hook modules (safety, logging, linter, approval, redaction) and the runners of
//! YAML-configured hooks (command, matcher, LLM, HTTP) for `hooks-core`.
//!
//! The modules are not implemented yet; the kernel they build on is re-exported here so that
//! applications can already depend on this crate alone.

pub use hooks_core as core;
