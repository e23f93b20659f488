//! The engine components run on: compiled with Cranelift, run as futures on the caller's task
//! (a guest yields to it every [`YIELD_FUEL`](crate::sandbox::YIELD_FUEL) units of fuel, so that the caller's deadline can
//! stop it), with WASI linked and nothing granted, instances taken from a pool of slots
//! reserved once, and compiled components cached on disk.
//!
//! # Why fuel and futures, not an epoch and a thread
//!
//! An epoch needs a thread to advance it, and a synchronous call needs a thread of its own to
//! run on when the caller is async (WASI's synchronous host functions block on a tokio
//! runtime). Starting those two threads was a third of what one wasm hook added to a
//! `hooks claude` process. Run as a future that yields every so much fuel, a call needs
//! neither: it runs on the caller's task, and the caller's timer ends it.
//!
//! # Why a pool
//!
//! Each call instantiates afresh. Without a pool, that maps a new linear memory (a 4 GiB
//! reservation and its guard), copies in its data and unmaps it all at the end: most of a
//! trivial call's time went into those system calls. The pooling allocator reserves the
//! slots once; a slot freed keeps its mapping (and its component's data image), and only the
//! pages the call touched are reset. The per-call memory limit is still the store's limiter;
//! the pool only bounds how many calls run at once, and a call past that waits for a slot.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use hooks_core::sync::lock;
use tokio::sync::{Semaphore, SemaphorePermit};

use wasmtime::component::{Component, InstancePre};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::cache::{self, Compiled, ComponentCache, Key};
use crate::file_identity::FileIdentity;
use crate::sandbox::{State, TABLE_ELEMENTS};
use crate::wasi::WasiLinker;

/// How many calls may run at once on a runtime by default (each holds one slot of the pool).
///
/// Each slot's execution stack has its guard page `mprotect`ed when the runtime starts, a few
/// microseconds apiece, which a per-event process (`hooks claude`) pays in full: eight keep
/// that small while leaving room for concurrent emits; a call past them waits.
pub const DEFAULT_SLOTS: u32 = 8;

/// What one component may hold, in core instances, memories and tables; a component past these
/// is refused when loaded. Those of the usual toolchains hold a handful of instances, one
/// memory and one or two tables.
const CORE_INSTANCES_PER_COMPONENT: u32 = 64;
const MEMORIES_PER_COMPONENT: u32 = 2;
const TABLES_PER_COMPONENT: u32 = 4;

/// The bytes of a freed memory slot zeroed in place rather than handed back to the kernel: the
/// next call then finds those pages mapped instead of faulting them in again. Zeroing faults in
/// the pages a call did not touch, so more than a small guest dirties only costs: the first
/// call of a process paid a dozen more page faults with 64 KiB than with 8, and calls in a
/// loop ran no faster (BENCHMARKS.md).
const MEMORY_KEEP_RESIDENT: usize = 8 << 10;

/// The bytes of a freed table slot zeroed in place, for the same reasons.
const TABLE_KEEP_RESIDENT: usize = 4 << 10;

/// The most components a runtime keeps loaded, by content; one past these is loaded again each
/// time it is asked for.
const KEPT_COMPONENTS: usize = 64;

/// An engine, a linker and a cache, shared by every hook loaded with it. Cloning is cheap.
#[derive(Clone)]
pub struct WasmRuntime {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Engine,
    linker: Mutex<WasiLinker>,
    cache: Option<ComponentCache>,
    /// What every cache key of this engine shares ([`cache::settings_digest`]).
    settings: [u8; 32],
    /// Whether code from the cache runs from the buffer it is read into
    /// ([`Builder::process_wide`]).
    in_place: bool,
    /// The components loaded so far, by their cache key: the same bytes named twice (by two
    /// entries of a hooks file, or a file loaded again) are compiled or read once. Kept for the
    /// runtime's life, which for a [`Builder::process_wide`] one is the process's: nothing is
    /// torn down when a per-event process ends.
    loaded: Mutex<HashMap<Key, (Component, Compiled)>>,
    slots: Slots,
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
#[non_exhaustive]
pub enum RuntimeError {
    /// The pool cannot count what that many slots need.
    #[error(
        "cannot set up the WebAssembly runtime: {slots} slots are more than its pool can count"
    )]
    TooManySlots {
        /// The slots asked for.
        slots: u32,
    },
    /// wasmtime refused the engine's configuration.
    #[error("cannot set up the WebAssembly runtime")]
    Engine(#[source] wasmtime::Error),
}

/// How a [`WasmRuntime`] is set up, as tokio's runtime `Builder`: by default no disk cache,
/// [`DEFAULT_SLOTS`] slots, and a runtime of its own rather than one for the process's life.
///
/// ```no_run
/// use hooks_wasm::{ComponentCache, WasmRuntime};
///
/// let mut builder = WasmRuntime::builder();
/// if let Some(dir) = ComponentCache::default_dir() {
///     builder.cache(ComponentCache::new(dir));
/// }
/// let runtime = builder.slots(1).process_wide(true).build()?;
/// # Ok::<(), hooks_wasm::RuntimeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Builder {
    cache: Option<ComponentCache>,
    slots: u32,
    process_wide: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            cache: None,
            slots: DEFAULT_SLOTS,
            process_wide: false,
        }
    }
}

impl Builder {
    /// Caches compiled components in `cache`, so that the next process loads them instead of
    /// compiling (without: compile in every process).
    pub fn cache(&mut self, cache: ComponentCache) -> &mut Self {
        self.cache = Some(cache);
        self
    }

    /// Runs at most `slots` calls at once (at least one): a call past them waits for one to
    /// end, for at most its own timeout. Each slot reserves address space (about 4 GiB per
    /// memory, none of it committed) when the runtime starts, and costs a few microseconds
    /// then: a process that makes one call at a time (a per-event `hooks claude`) starts
    /// faster with one.
    pub fn slots(&mut self, slots: u32) -> &mut Self {
        self.slots = slots;
        self
    }

    /// Whether the runtime is meant to live as long as the process. On x86-64 Linux the code of
    /// a component such a runtime loads from the cache runs from the buffer it was read and
    /// checked in, instead of being copied again (a millisecond a start for a component of
    /// megabytes, BENCHMARKS.md); that buffer stays mapped for the rest of the process (an
    /// entry of 256 KiB or more rounded up to whole 2 MiB huge pages). That is done only for
    /// the components the runtime keeps (the first 64 it loads), which it holds for its life
    /// anyway; so build one such runtime, not one per load.
    pub fn process_wide(&mut self, process_wide: bool) -> &mut Self {
        self.process_wide = process_wide;
        self
    }

    /// The runtime: its engine configured and its pool of slots reserved.
    pub fn build(&self) -> Result<WasmRuntime, RuntimeError> {
        WasmRuntime::start(self.cache.clone(), self.slots, self.process_wide)
    }
}

impl WasmRuntime {
    /// A [`Builder`] with the defaults: no disk cache, [`DEFAULT_SLOTS`] slots, not
    /// process-wide.
    pub fn builder() -> Builder {
        Builder::default()
    }

    fn start(
        cache: Option<ComponentCache>,
        slots: u32,
        in_place: bool,
    ) -> Result<Self, RuntimeError> {
        let slots = slots.max(1);
        let total = |per_component: u32| {
            slots
                .checked_mul(per_component)
                .ok_or(RuntimeError::TooManySlots { slots })
        };
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(slots)
            .max_core_instances_per_component(CORE_INSTANCES_PER_COMPONENT)
            .total_core_instances(total(CORE_INSTANCES_PER_COMPONENT)?)
            .max_memories_per_component(MEMORIES_PER_COMPONENT)
            .max_memories_per_module(MEMORIES_PER_COMPONENT)
            .total_memories(total(MEMORIES_PER_COMPONENT)?)
            .max_tables_per_component(TABLES_PER_COMPONENT)
            .max_tables_per_module(TABLES_PER_COMPONENT)
            .total_tables(total(TABLES_PER_COMPONENT)?)
            .table_elements(TABLE_ELEMENTS)
            // One stack per slot: the default of a thousand costs a thousand `mprotect`s of
            // their guard pages when the runtime starts, most of a `hooks claude` process's time.
            .total_stacks(slots)
            .linear_memory_keep_resident(MEMORY_KEEP_RESIDENT)
            .table_keep_resident(TABLE_KEEP_RESIDENT);
        let mut config = Config::new();
        config
            .wasm_component_model(true)
            // A call is a future on the caller's task, yielding by fuel (the module's docs).
            .async_support(true)
            .consume_fuel(true)
            // A third less code to read and check at every start (BENCHMARKS.md): no address
            // map, so a trap's report names the functions on the guest's stack but not their
            // byte offsets.
            .generate_address_map(false)
            .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        // No native unwind tables either: only debuggers and profilers outside wasmtime read
        // them (it walks guest frames by their frame pointers, for traps and backtraces).
        // Windows' ABI requires them.
        #[cfg(not(windows))]
        config.native_unwind_info(false);
        // Cached code runs from the buffer it was checked in, not a copy (src/code_memory.rs).
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        if in_place {
            config.with_custom_code_memory(Some(crate::code_memory::Mprotect::new()));
        }
        let engine = Engine::new(&config).map_err(RuntimeError::Engine)?;
        // Components from the usual toolchains import WASI even when they use none of it; it
        // is linked (as each component needs it) so that they instantiate, and each store
        // grants nothing unless told.
        let linker = Mutex::new(WasiLinker::new(&engine));
        let settings = cache::settings_digest(&engine);
        Ok(WasmRuntime {
            inner: Arc::new(Inner {
                engine,
                linker,
                cache,
                settings,
                in_place: cfg!(all(target_os = "linux", target_arch = "x86_64")) && in_place,
                loaded: Mutex::new(HashMap::new()),
                slots: Slots::new(slots),
            }),
        })
    }

    /// The cache, if any.
    pub fn cache(&self) -> Option<&ComponentCache> {
        self.inner.cache.as_ref()
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The template of `component`'s instances, with the WASI it imports linked.
    pub(crate) fn instantiate_pre(
        &self,
        component: &Component,
    ) -> wasmtime::Result<InstancePre<State>> {
        // Linking is a few microseconds per interface, once per runtime; calls never lock.
        let mut linker = lock(&self.inner.linker);
        linker
            .for_component(&self.inner.engine, component)?
            .instantiate_pre(component)
    }

    /// How many calls may run at once.
    pub fn slots(&self) -> u32 {
        self.inner.slots.total
    }

    /// A slot for one call, waiting at most `wait` for one to free; `None` if none did.
    pub(crate) async fn slot(&self, wait: Duration) -> Option<Slot<'_>> {
        self.inner.slots.take(wait).await
    }

    /// `bytes` compiled, and their key: as loaded before by this runtime, else from the disk
    /// cache when it holds them, else compiled now. A component loaded before says where it
    /// came from then.
    pub(crate) fn compile(&self, bytes: &[u8]) -> wasmtime::Result<(Component, Compiled, Key)> {
        let key = cache::key(&self.inner.settings, &cache::digest(bytes));
        match self.loaded(&key) {
            Some((component, compiled)) => Ok((component, compiled, key)),
            None => self.compile_new(bytes, key),
        }
    }

    /// The component in the file at `path`, as [`WasmRuntime::compile`] gives it; read with
    /// `read`. With a cache, the file's identity names the digest of its bytes, once they have
    /// been read and the file has settled (`src/file_identity.rs`): a later process loads the
    /// component without reading or hashing the file.
    pub(crate) fn compile_file(
        &self,
        path: &Path,
        read: impl FnOnce(&Path) -> std::io::Result<Vec<u8>>,
    ) -> Result<(Component, Compiled, Key), FileFailure> {
        let identity = match &self.inner.cache {
            Some(_) => FileIdentity::of(&fs::metadata(path).map_err(FileFailure::Read)?),
            None => None,
        };
        let remembered = self.inner.cache.as_ref().zip(identity);
        if let Some((cache, identity)) = remembered
            && let Some(digest) = cache.remembered_digest(identity)
        {
            let key = cache::key(&self.inner.settings, &digest);
            if let Some((component, compiled)) = self.loaded(&key) {
                return Ok((component, compiled, key));
            }
        }
        let bytes = read(path).map_err(FileFailure::Read)?;
        let digest = cache::digest(&bytes);
        let key = cache::key(&self.inner.settings, &digest);
        let found = match self.loaded(&key) {
            Some((component, compiled)) => (component, compiled, key),
            None => self
                .compile_new(&bytes, key)
                .map_err(FileFailure::Compile)?,
        };
        // Only if the file did not change while it was read, and cannot change unseen later.
        if let Some((cache, identity)) = remembered
            && fs::metadata(path)
                .ok()
                .and_then(|after| FileIdentity::of(&after))
                == Some(identity)
            && identity.settled(SystemTime::now())
        {
            cache.remember_digest(identity, &digest);
        }
        Ok(found)
    }

    /// The component of `key` as this runtime loaded it before, else from the disk cache.
    fn loaded(&self, key: &Key) -> Option<(Component, Compiled)> {
        if let Some(found) = self.kept().get(key) {
            return Some(found.clone());
        }
        let cache = self.inner.cache.as_ref()?;
        // In place only for what this runtime will keep (and so hold for its life).
        let in_place = self.inner.in_place && self.kept().len() < KEPT_COMPONENTS;
        let component = cache.load(&self.inner.engine, key, in_place)?;
        Some(self.keep(*key, (component, Compiled::FromCache)))
    }

    /// `bytes`, of `key`, compiled now (and stored in the disk cache, if any).
    fn compile_new(&self, bytes: &[u8], key: Key) -> wasmtime::Result<(Component, Compiled, Key)> {
        // Not under the lock: compiling takes long, and other components may load meanwhile.
        let component = match &self.inner.cache {
            Some(cache) => cache.compile(&self.inner.engine, bytes, &key)?,
            None => Component::new(&self.inner.engine, bytes)?,
        };
        let (component, compiled) = self.keep(key, (component, Compiled::Now));
        Ok((component, compiled, key))
    }

    /// The components this runtime keeps.
    fn kept(&self) -> MutexGuard<'_, HashMap<Key, (Component, Compiled)>> {
        lock(&self.inner.loaded)
    }

    /// Keeps `found` under `key` while fewer than [`KEPT_COMPONENTS`] are kept (unless another
    /// thread's load of it came first), and gives it back.
    fn keep(&self, key: Key, found: (Component, Compiled)) -> (Component, Compiled) {
        let mut kept = self.kept();
        if kept.len() < KEPT_COMPONENTS {
            kept.entry(key).or_insert_with(|| found.clone());
        }
        found
    }
}

/// Why a component's file gave no component.
#[derive(Debug)]
pub(crate) enum FileFailure {
    /// The file cannot be read.
    Read(std::io::Error),
    /// Its bytes do not compile.
    Compile(wasmtime::Error),
}

/// The pool's slots, counted here so that a call past them waits instead of failing in the
/// allocator.
struct Slots {
    total: u32,
    free: Semaphore,
}

/// One slot, held for one call and given back when dropped.
pub(crate) struct Slot<'a> {
    _permit: SemaphorePermit<'a>,
}

impl Slots {
    fn new(total: u32) -> Self {
        Slots {
            total,
            free: Semaphore::new(usize::try_from(total).unwrap_or(Semaphore::MAX_PERMITS)),
        }
    }

    async fn take(&self, wait: Duration) -> Option<Slot<'_>> {
        // The timer only when every slot is busy: a free slot costs an atomic.
        let permit = match self.free.try_acquire() {
            Ok(permit) => permit,
            Err(_) => tokio::time::timeout(wait, self.free.acquire())
                .await
                .ok()?
                .ok()?,
        };
        Some(Slot { _permit: permit })
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::PathBuf;

    use super::*;
    use crate::test_guests::{CONTINUE, DENY, answer, guest};

    /// A fresh directory in the system's temporary directory, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("hooks-wasm-runtime-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("a scratch directory");
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// Loads `path` with a fresh runtime on `cache`, counting the reads of the file.
    fn load(cache: Option<&Path>, path: &Path) -> (Compiled, Key, usize) {
        let runtime = {
            let mut builder = WasmRuntime::builder();
            if let Some(cache) = cache {
                builder.cache(ComponentCache::new(cache));
            }
            builder.build().expect("a runtime")
        };
        let reads = Cell::new(0);
        let (_, compiled, key) = runtime
            .compile_file(path, |path| {
                reads.set(reads.get() + 1);
                fs::read(path)
            })
            .expect("the component loads");
        (compiled, key, reads.get())
    }

    #[test]
    fn a_settled_file_is_read_once_then_found_by_its_identity_until_it_changes() {
        let scratch = Scratch::new("settled");
        let cache = scratch.0.join("cache");
        let path = scratch.0.join("hook.wasm");
        fs::write(&path, guest(&answer(CONTINUE, None), "")).expect("written");
        std::thread::sleep(crate::file_identity::SETTLE + Duration::from_millis(100));

        let (compiled, key, reads) = load(Some(&cache), &path);
        assert_eq!((compiled, reads), (Compiled::Now, 1));
        let (compiled, again, reads) = load(Some(&cache), &path);
        assert_eq!(
            (compiled, again, reads),
            (Compiled::FromCache, key, 0),
            "a later process neither reads nor hashes the file"
        );

        // A remembered digest whose entry is gone, or a record damaged: the file is read.
        let files = |extension: &str| -> Vec<PathBuf> {
            fs::read_dir(&cache)
                .expect("the cache")
                .map(|entry| entry.expect("an entry").path())
                .filter(|path| path.extension().is_some_and(|found| found == extension))
                .collect()
        };
        for entry in files("cwasm") {
            fs::remove_file(entry).expect("removed");
        }
        assert_eq!(load(Some(&cache), &path), (Compiled::Now, key, 1));
        for record in files("source") {
            let mut bytes = fs::read(&record).expect("a record");
            bytes[0] ^= 1;
            fs::write(&record, bytes).expect("damaged");
        }
        assert_eq!(load(Some(&cache), &path), (Compiled::FromCache, key, 1));
        assert_eq!(load(Some(&cache), &path), (Compiled::FromCache, key, 0));

        // Another component in its place (written now: read, and not remembered yet).
        fs::write(&path, guest(&answer(DENY, None), "")).expect("written");
        let (compiled, other, reads) = load(Some(&cache), &path);
        assert_eq!((compiled, reads), (Compiled::Now, 1));
        assert_ne!(other, key, "the new bytes, not the remembered ones");
        let (_, again, reads) = load(Some(&cache), &path);
        assert_eq!((again, reads), (other, 1), "not settled: read again");
    }

    #[test]
    fn slots_past_what_the_pool_counts_are_refused_by_name() {
        let refused = WasmRuntime::builder().slots(u32::MAX).build();
        assert!(
            matches!(refused, Err(RuntimeError::TooManySlots { slots: u32::MAX })),
            "{refused:?}"
        );
    }

    #[test]
    fn a_file_is_read_every_time_without_a_cache() {
        let scratch = Scratch::new("uncached");
        let path = scratch.0.join("hook.wasm");
        fs::write(&path, guest(&answer(CONTINUE, None), "")).expect("written");
        let (_, key, reads) = load(None, &path);
        assert_eq!(reads, 1);
        assert_eq!(load(None, &path), (Compiled::Now, key, 1));
    }

    #[test]
    fn a_missing_file_is_a_read_failure() {
        let scratch = Scratch::new("missing");
        let runtime = WasmRuntime::builder()
            .cache(ComponentCache::new(scratch.0.join("cache")))
            .build()
            .expect("a runtime");
        let failure = runtime
            .compile_file(&scratch.0.join("absent.wasm"), |path| fs::read(path))
            .map(|_| ())
            .expect_err("no such file");
        assert!(
            matches!(&failure, FileFailure::Read(error) if error.kind() == std::io::ErrorKind::NotFound),
            "{failure:?}"
        );
    }
}
