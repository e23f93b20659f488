//! Compiled code made executable on our side (wasmtime's `CustomCodeMemory`), so that a
//! component read from the disk cache runs from the very buffer it was read into and checked.
//! Otherwise wasmtime copies the code into a mapping of its own: for a component of megabytes,
//! that copy and its page faults cost a millisecond at every start of a per-event process
//! (BENCHMARKS.md, "A component of realistic size"). Only on x86-64 Linux, where publishing code
//! is an `mprotect` and nothing more (no instruction cache to clear, no branch-target pages as
//! wasmtime sets up on AArch64); elsewhere wasmtime copies, as before.

use std::ffi::c_void;
use std::sync::Arc;

use rustix::mm::{MprotectFlags, mprotect};
use wasmtime::CustomCodeMemory;

/// Publishes code by `mprotect`, as wasmtime itself does on this platform.
pub(crate) struct Mprotect {
    page: usize,
}

impl Mprotect {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Mprotect {
            page: rustix::param::page_size(),
        })
    }

    /// Sets the protection of a range wasmtime handed over.
    fn protect(ptr: *const u8, len: usize, flags: MprotectFlags) -> wasmtime::Result<()> {
        if len == 0 {
            return Ok(());
        }
        // SAFETY: wasmtime hands over a page-aligned range of its code, in memory that stays
        // mapped while the code lives (its own mapping, or a cache entry's buffer that is
        // never unmapped). It publishes a range once it has finished writing it (read and run
        // from then on, never written) and unpublishes it once no code runs from it.
        #[allow(unsafe_code)]
        unsafe {
            mprotect(ptr.cast_mut().cast::<c_void>(), len, flags)?;
        }
        Ok(())
    }
}

impl CustomCodeMemory for Mprotect {
    fn required_alignment(&self) -> usize {
        self.page
    }

    fn publish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        Self::protect(ptr, len, MprotectFlags::READ | MprotectFlags::EXEC)
    }

    fn unpublish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        Self::protect(ptr, len, MprotectFlags::READ | MprotectFlags::WRITE)
    }
}
