//! Helpers of the tests: the components they run ([`guests`]), a runtime, and scratch
//! directories.

#![allow(dead_code, missing_docs)]

mod guests;

use std::path::PathBuf;

pub use guests::*;
use hooks_wasm::{Abi, WasmHook, WasmRuntime};

/// A runtime that compiles in each test (no disk cache).
pub fn runtime() -> WasmRuntime {
    WasmRuntime::builder().build().expect("the runtime starts")
}

/// `bytes` loaded as a hook of `abi`.
pub fn load(runtime: &WasmRuntime, name: &str, bytes: &[u8], abi: Abi) -> WasmHook {
    WasmHook::from_bytes(runtime, name, bytes, abi).expect("the component loads")
}

/// A fresh directory under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hooks-wasm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}
