//! One call's store: WASI with only what was granted, the memory limiter and the deadline.

use wasmtime::{ResourceLimiter, Store};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::p2::{IoView, WasiCtx, WasiCtxBuilder, WasiView};
use wasmtime_wasi::{DirPerms, FilePerms, ResourceTable};

use crate::limits::{Grants, Limits};
use crate::runtime::{TABLE_ELEMENTS, TICK, WasmRuntime};

/// How much a component may print in one call; the rest is refused to it.
const OUTPUT_CAP: usize = 64 << 10;

/// The most tables, instances and memories an instance may create (a component from the
/// usual toolchains has a handful).
const COUNT_LIMIT: usize = 1_000;

/// What a store holds: the WASI context, its resources and the limiter.
pub(crate) struct State {
    wasi: WasiCtx,
    table: ResourceTable,
    limiter: MemoryCap,
}

impl IoView for State {
    fn table(&mut self) -> &mut ResourceTable {
        &mut self.table
    }
}

impl WasiView for State {
    fn ctx(&mut self) -> &mut WasiCtx {
        &mut self.wasi
    }
}

/// Refuses memory past the limit, and remembers that it did so that the failure can say so.
pub(crate) struct MemoryCap {
    max_bytes: usize,
    pub(crate) refused: Option<usize>,
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_bytes {
            self.refused = Some(desired);
            // An error rather than `false`: the guest stops here instead of carrying on
            // without the memory it asked for.
            return Err(wasmtime::Error::msg(format!(
                "the memory limit of {} bytes is reached",
                self.max_bytes
            )));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        COUNT_LIMIT
    }

    fn tables(&self) -> usize {
        COUNT_LIMIT
    }

    fn memories(&self) -> usize {
        COUNT_LIMIT
    }
}

/// A store for one call, and the pipe its output goes to.
pub(crate) fn store(
    runtime: &WasmRuntime,
    limits: &Limits,
    grants: &Grants,
) -> Result<(Store<State>, MemoryOutputPipe), String> {
    let output = MemoryOutputPipe::new(OUTPUT_CAP);
    let mut wasi = WasiCtxBuilder::new();
    wasi.stdout(output.clone())
        .stderr(output.clone())
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false);
    for name in &grants.env {
        if let Ok(value) = std::env::var(name) {
            wasi.env(name, value);
        }
    }
    for dir in &grants.read_dirs {
        let guest = dir.display().to_string();
        wasi.preopened_dir(dir, guest, DirPerms::READ, FilePerms::READ)
            .map_err(|error| format!("cannot grant the directory {}: {error}", dir.display()))?;
    }
    let state = State {
        wasi: wasi.build(),
        table: ResourceTable::new(),
        limiter: MemoryCap {
            max_bytes: limits.memory_bytes,
            refused: None,
        },
    };
    let mut store = Store::new(runtime.engine(), state);
    store.limiter(|state| &mut state.limiter);
    // One tick more than the timeout: the tick in progress may be nearly over.
    let ticks = limits.timeout.as_micros().div_ceil(TICK.as_micros()) + 1;
    store.set_epoch_deadline(u64::try_from(ticks).unwrap_or(u64::MAX));
    store.epoch_deadline_trap();
    Ok((store, output))
}

/// The memory refused to the store's guest, if any.
pub(crate) fn refused_memory(store: &Store<State>) -> Option<usize> {
    store.data().limiter.refused
}
