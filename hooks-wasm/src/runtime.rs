//! The engine components run on: compiled with Cranelift, interrupted by an epoch that a
//! background thread advances every millisecond (a call's deadline is a number of ticks), with
//! WASI linked and nothing granted, and compiled components cached on disk.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine};

use crate::cache::{Compiled, ComponentCache};
use crate::sandbox::State;

/// How often the epoch advances: the granularity of deadlines.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// An engine, a linker and a cache, shared by every hook loaded with it. Cloning is cheap.
#[derive(Clone)]
pub struct WasmRuntime {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Engine,
    linker: Linker<State>,
    cache: Option<ComponentCache>,
}

impl std::fmt::Debug for WasmRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmRuntime")
            .field("cache", &self.inner.cache)
            .finish_non_exhaustive()
    }
}

/// Why the runtime could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the WebAssembly runtime: {0}")]
pub struct RuntimeError(String);

impl WasmRuntime {
    /// A runtime caching compiled components in `cache` (`None`: compile in every process).
    pub fn new(cache: Option<ComponentCache>) -> Result<Self, RuntimeError> {
        let mut config = Config::new();
        config
            .wasm_component_model(true)
            .epoch_interruption(true)
            // Limits come from the store's limiter; a guest never waits on the host.
            .async_support(false);
        let engine = Engine::new(&config).map_err(|error| RuntimeError(error.to_string()))?;
        let mut linker = Linker::new(&engine);
        // Components from the usual toolchains import WASI even when they use none of it; it
        // is linked so that they instantiate, and each store grants nothing unless told.
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .map_err(|error| RuntimeError(error.to_string()))?;
        start_ticker(&engine)?;
        Ok(WasmRuntime {
            inner: Arc::new(Inner {
                engine,
                linker,
                cache,
            }),
        })
    }

    /// The process's runtime, caching in [`ComponentCache::default_dir`].
    pub fn shared() -> Result<Self, RuntimeError> {
        static SHARED: OnceLock<Result<WasmRuntime, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                WasmRuntime::new(ComponentCache::default_dir().map(ComponentCache::new))
                    .map_err(|error| error.0)
            })
            .clone()
            .map_err(RuntimeError)
    }

    /// The cache, if any.
    pub fn cache(&self) -> Option<&ComponentCache> {
        self.inner.cache.as_ref()
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    pub(crate) fn linker(&self) -> &Linker<State> {
        &self.inner.linker
    }

    /// `bytes` compiled, from the cache when it holds them.
    pub(crate) fn compile(&self, bytes: &[u8]) -> wasmtime::Result<(Component, Compiled)> {
        match &self.inner.cache {
            Some(cache) => cache.load_or_compile(&self.inner.engine, bytes),
            None => Ok((Component::new(&self.inner.engine, bytes)?, Compiled::Now)),
        }
    }
}

/// Advances `engine`'s epoch every tick while the engine lives.
fn start_ticker(engine: &Engine) -> Result<(), RuntimeError> {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("hooks-wasm-epoch".to_owned())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(TICK);
            }
        })
        .map(drop)
        .map_err(|error| RuntimeError(format!("cannot start the deadline thread: {error}")))
}
