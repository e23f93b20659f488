//! Sandboxed hooks: WebAssembly components run by wasmtime, which cannot touch the file
//! system, the environment or the network unless granted, cannot run past a deadline or use
//! more memory than allowed, and cost microseconds a call.
//!
//! # Two interfaces
//!
//! - **Ours**, `hooks:guest@0.1.0` (`wit/guest.wit`, shipped in this crate): the component
//!   exports `hook` with `handle(event, data) -> result<hook-result, string>` (the event's
//!   canonical name and its data as JSON text) and `subscriptions(config) -> list<string>`
//!   (the events it wants, given its configuration as JSON text).
//! - **amplifier-core's** (`abi: amplifier`, `wit/amplifier.wit`): the component exports
//!   `amplifier:modules/hook-handler@1.0.0` with `handle(list<u8>) -> result<list<u8>,
//!   string>`, a protobuf `HookHandleRequest {event, data_json}` in and a protobuf
//!   `HookResult` out (`proto/amplifier_hook.proto`, read with prost: no `protoc` is needed).
//!   A component built for amplifier-core loads unchanged.
//!
//! ## Why the answer is a WIT record, not JSON
//!
//! The `hook-result` record is checked by the component model itself as it crosses the
//! boundary: an action, role or level outside its enum cannot be expressed, a missing field
//! cannot happen, and an ill-formed answer is a trap (a failure) rather than text that a parser
//! must judge. It costs no JSON encoding in the guest, and the types are generated for the
//! guest's language by the usual bindings generators. Only the modified event data stays
//! JSON text (`data`), because event data has no fixed schema.
//!
//! # Limits
//!
//! - **Capabilities**: WASI is linked (the usual toolchains' `wasm32-wasip2` components
//!   import `wasi:cli/environment`, `wasi:filesystem/preopens`, `wasi:io/streams` even when
//!   they use none of them) with nothing granted: no directory, an empty environment, no
//!   network, stdin closed, and what the component prints sent to the log. Directories (read
//!   only) and environment variables are granted by name in [`Grants`]. Clocks and random
//!   numbers are not withheld.
//! - **Deadline**: a call is a future on the caller's task, and the guest yields to it every
//!   few microseconds of work (by fuel); a call past [`Limits::timeout`] is stopped there,
//!   infinite loops and sleeps included. No thread is started for it.
//! - **Memory**: a resource limiter refuses growth past [`Limits::memory_bytes`] and stops
//!   the component.
//! - A trap, a timeout, memory refused or an answer that cannot be read is a [`CallFailure`];
//!   [`WasmModule`] (and `type: wasm` entries in hooks files) hand it to the hook's
//!   `on_failure` ([`hooks_core::OnFailure`]), like every other runner.
//!
//! # Speed
//!
//! A component is compiled once, and the machine code kept on disk ([`ComponentCache`]) so
//! that the next process loads it instead of compiling; the events it subscribes to for a
//! configuration are kept beside it, so that the next process need not instantiate it to ask. Its exports are looked up once, in an
//! instantiation template; each call instantiates afresh from it (no state carried from one
//! event to the next) in a store of its own, its instance taken from a pool of slots reserved
//! when the runtime starts ([`Builder::slots`]): a slot freed keeps its mappings, so
//! a call costs no `mmap`/`munmap`. A call past the slots waits for one (at most its timeout;
//! then [`CallFailure::Busy`]).
//!
//! ```no_run
//! use hooks_wasm::{Abi, Grants, Limits, WasmHook, WasmRuntime};
//! use std::time::Duration;
//!
//! let runtime = WasmRuntime::builder().slots(1).build()?;
//! let hook = WasmHook::load(&runtime, "policy.wasm".as_ref(), Abi::Hooks)?
//!     .with_limits(Limits { timeout: Duration::from_millis(50), memory_bytes: 16 << 20 })
//!     .with_grants(Grants::none().env_var("PROJECT_NAME"));
//! let data = serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
//! let result = hook.call("tool:pre", &data)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bindings;
mod blocking;
mod cache;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod code_memory;
mod entry_buffer;
mod error;
mod file_identity;
mod hook;
mod limits;
mod module;
pub mod proto;
mod runtime;
mod sandbox;
mod wasi;

/// The components the tests build, for this crate's own unit tests.
#[cfg(test)]
#[path = "../tests/support/guests.rs"]
mod test_guests;

pub use cache::{Compiled, ComponentCache};
pub use error::{CallFailure, LoadError};
pub use hook::{Abi, WasmHook};
pub use limits::{DEFAULT_MEMORY_BYTES, DEFAULT_TIMEOUT, Grants, Limits};
pub use module::WasmModule;
pub use runtime::{Builder, DEFAULT_SLOTS, RuntimeError, WasmRuntime};
