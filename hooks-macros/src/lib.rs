//! The `#[hook]` attribute for `hooks-core`: annotate an async fn to register it as a hook,
//! checked at compile time.
//!
//! The attribute itself is not implemented yet; this crate reserves its place in the workspace.
