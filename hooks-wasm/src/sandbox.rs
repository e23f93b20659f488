//! One call's store: WASI with only what was granted, the memory limiter, and fuel that makes
//! the guest yield to its caller.

use wasmtime::{Engine, ResourceLimiter, Store};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::p2::{IoView, WasiCtx, WasiCtxBuilder, WasiView};
use wasmtime_wasi::{DirPerms, FilePerms, ResourceTable};

use crate::limits::{Grants, Limits};

/// How much fuel a guest burns between two yields to its caller: a few microseconds of work,
/// so that a deadline is noticed soon after it passes and a slow hook shares the executor.
pub(crate) const YIELD_FUEL: u64 = 10_000;

/// The most elements a table may hold (also the size of a table's slot in the runtime's pool).
pub(crate) const TABLE_ELEMENTS: usize = 1 << 20;

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

/// A store of `engine` for one call, and the pipe its output goes to.
pub(crate) fn store(
    engine: &Engine,
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
    let mut store = Store::new(engine, state);
    store.limiter(|state| &mut state.limiter);
    // Fuel does not bound the call (its deadline does); it only makes the guest yield.
    let fuel = |error: wasmtime::Error| format!("cannot fuel the store: {error}");
    store.set_fuel(u64::MAX).map_err(fuel)?;
    store
        .fuel_async_yield_interval(Some(YIELD_FUEL))
        .map_err(fuel)?;
    Ok((store, output))
}

/// The memory refused to the store's guest, if any.
pub(crate) fn refused_memory(store: &Store<State>) -> Option<usize> {
    store.data().limiter.refused
}
