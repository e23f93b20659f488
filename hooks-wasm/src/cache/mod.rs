//! Compiled components kept on disk between processes, so that a hook is compiled once and a
//! later process (the next `hooks claude`) loads machine code instead of compiling again; and
//! beside them, the events each component subscribes to for a configuration, so that such a
//! process need not instantiate it to ask, and the digest of each component file's bytes by the
//! file's identity (`src/file_identity.rs`), so that it need not read and hash the file either.
//! A file of the cache unused for a month is removed when something new is compiled
//! (`sweep.rs`).
//!
//! A component's entry is named by its key: a SHA-256 of the component's bytes, the engine's
//! settings (wasmtime's compatibility hash: target, compiler flags, features) and this crate's
//! version. It holds the compiled code exactly as [`Component::serialize`] gave it, then a
//! trailer of ours: the key again, a CRC-32 of the code and key, and a magic string. Entries
//! are written to a temporary file and renamed into place, so a reader never sees half an
//! entry, and concurrent writers of one entry write the same bytes.
//!
//! # Why the code is read, not mapped
//!
//! wasmtime can map an entry's file instead of reading it. The bytes it would run would then be
//! the file's at each page's first touch, not the bytes checked: an entry changed in place
//! after the check (a restore copied over the cache while an agent works) would run unchecked,
//! or, cut short, kill the process with `SIGBUS`, and an agent takes a hook that crashed for
//! one that let the call through. So an entry is read into memory of ours (populated in one
//! call) and checked there; a process-wide runtime on x86-64 Linux then runs it from there,
//! read-only (`src/code_memory.rs`), and otherwise wasmtime copies the checked bytes. That measured as fast
//! as mapping for a component of megabytes, and within the noise for a small one
//! (BENCHMARKS.md, "A component of realistic size").
//!
//! # Why deserializing is sound here
//!
//! [`Component::deserialize_raw`] (and [`Component::deserialize`], where wasmtime copies) is
//! `unsafe` because the bytes are machine code that is run without being verified: bytes that
//! did not come from [`Component::serialize`] of a compatible engine can do anything. An entry is deserialized only when its magic, its key
//! (the component and settings asked for) and its checksum all match, so a truncated,
//! corrupted or misplaced file is recompiled instead, never run; wasmtime then checks the
//! header it wrote itself (its version and settings), so code of another wasmtime is refused
//! too, recompiled and its entry replaced. The checksum guards against accidents (a disk
//! error, a write cut short by something else than our rename), not against intent: what
//! remains is someone who can write into the cache directory on purpose. The directory is
//! created readable by its owner only, and whoever can write there already has the user's
//! rights (they could as well change the hooks file). Point the cache elsewhere, or turn it
//! off, where that does not hold.

use std::fs;
use std::hash::Hasher;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest as _, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::entry_buffer::EntryBuffer;
use crate::file_identity::FileIdentity;

mod sweep;

/// The last bytes of a component's entry.
const MAGIC: &[u8; 16] = b"hooks-wasm-cc-v2";

/// The last bytes of a remembered list of subscriptions.
const SUBSCRIPTIONS_MAGIC: &[u8; 16] = b"hooks-wasm-sub-1";

/// The last bytes of a remembered digest of a component file.
const SOURCE_MAGIC: &[u8; 16] = b"hooks-wasm-src-1";

/// The length of an entry's trailer: key, checksum, magic.
const TRAILER: usize = 32 + 4 + 16;

/// Where compiled components are kept.
#[derive(Debug, Clone)]
pub struct ComponentCache {
    dir: PathBuf,
}

/// Where a component came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compiled {
    /// Loaded from a valid cache entry.
    FromCache,
    /// Compiled now (no cache, no entry, or an entry that did not check).
    Now,
}

/// The key of a component compiled by one engine (see the module's documentation).
pub(crate) type Key = [u8; 32];

/// The SHA-256 of a component's bytes.
pub(crate) type Digest = [u8; 32];

fn hex(bytes: &[u8]) -> String {
    // By table, not `format!` per byte: this names the entry in every process that loads one.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    text
}

/// A digest of what every key of `engine` shares: this crate's version and the engine's
/// settings.
pub(crate) fn settings_digest(engine: &Engine) -> [u8; 32] {
    /// Collects what `Hash` writes (hundreds of small writes), to digest it in one go.
    struct Collected(Vec<u8>);

    impl Hasher for Collected {
        fn finish(&self) -> u64 {
            0
        }

        fn write(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    let mut settings = Collected(Vec::with_capacity(4096));
    settings.write(MAGIC);
    settings.write(env!("CARGO_PKG_VERSION").as_bytes());
    std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut settings);
    Sha256::digest(&settings.0).into()
}

/// The digest of a component's bytes.
pub(crate) fn digest(bytes: &[u8]) -> Digest {
    Sha256::digest(bytes).into()
}

/// The key of the bytes of `digest` compiled by an engine whose settings digest to
/// `settings`: what names their entry, and what a runtime keeps its loaded components by.
pub(crate) fn key(settings: &[u8; 32], digest: &Digest) -> Key {
    let mut hasher = Sha256::new();
    hasher.update(settings);
    hasher.update(digest);
    hasher.finalize().into()
}

/// The key under which the digest of the file of `identity` is remembered.
fn source_key(identity: FileIdentity) -> Key {
    let mut hasher = Sha256::new();
    hasher.update(SOURCE_MAGIC);
    hasher.update(identity.to_bytes());
    hasher.finalize().into()
}

/// The key under which the subscriptions of the component of `component` for `config` (its
/// JSON text) are remembered.
pub(crate) fn subscriptions_key(component: &Key, config: &str) -> Key {
    let mut hasher = Sha256::new();
    hasher.update(SUBSCRIPTIONS_MAGIC);
    hasher.update(component);
    hasher.update(config.as_bytes());
    hasher.finalize().into()
}

impl ComponentCache {
    /// A cache in `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ComponentCache { dir: dir.into() }
    }

    /// The usual place: `$HOOKS_WASM_CACHE`, else `$XDG_CACHE_HOME/hooks/wasm`, else
    /// `$HOME/.cache/hooks/wasm`; `None` when none of them is set.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name| std::env::var_os(name).filter(|value| !value.is_empty());
        if let Some(dir) = var("HOOKS_WASM_CACHE") {
            return Some(PathBuf::from(dir));
        }
        if let Some(dir) = var("XDG_CACHE_HOME") {
            return Some(Path::new(&dir).join("hooks").join("wasm"));
        }
        var("HOME").map(|home| Path::new(&home).join(".cache").join("hooks").join("wasm"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the entry named by `key`.
    fn path(&self, key: &Key, extension: &str) -> PathBuf {
        self.dir.join(format!("{}.{extension}", hex(key)))
    }

    /// `bytes` compiled by `engine`: from the cache when a valid entry is there, else compiled
    /// and stored (a failure to store is logged, not an error: the component still runs).
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, Compiled)> {
        let key = key(&settings_digest(engine), &digest(bytes));
        match self.load(engine, &key, false) {
            Some(component) => Ok((component, Compiled::FromCache)),
            None => Ok((self.compile(engine, bytes, &key)?, Compiled::Now)),
        }
    }

    /// `bytes`, whose key is `key`, compiled by `engine` and stored.
    pub(crate) fn compile(
        &self,
        engine: &Engine,
        bytes: &[u8],
        key: &Key,
    ) -> wasmtime::Result<Component> {
        let component = Component::new(engine, bytes)?;
        match component.serialize() {
            Ok(code) => {
                self.write(&self.path(key, "cwasm"), &sealed(code, key, MAGIC));
                // Something new is kept: the time to drop what has not been used for long.
                sweep::sweep(&self.dir, SystemTime::now());
            }
            Err(error) => tracing::warn!(%error, "cannot serialize a compiled component"),
        }
        Ok(component)
    }

    /// The component of the valid entry named by `key`, or `None` (missing, or not checking);
    /// `in_place`: its code may run from the buffer it is read into (see [`Self::deserialize`]).
    pub(crate) fn load(&self, engine: &Engine, key: &Key, in_place: bool) -> Option<Component> {
        let path = self.path(key, "cwasm");
        let (mut file, len) = open(&path)?;
        if len < TRAILER as u64 {
            return None;
        }
        let entry = EntryBuffer::read(&mut file, len)?;
        let code = unsealed(entry.bytes(), key, MAGIC)?.len();
        let component = Self::deserialize(engine, entry, code, in_place);
        match component {
            Ok(component) => Some(component),
            Err(error) => {
                tracing::warn!(cache = %path.display(), error = %format!("{error:#}"), "a cached component does not load; compiling again");
                None
            }
        }
    }

    /// The component of the first `code` bytes of `entry`, checked. `in_place` (an engine that
    /// publishes code itself, `src/code_memory.rs`, on x86-64 Linux): it runs from `entry`,
    /// which then stays mapped for the rest of the process; otherwise wasmtime copies it.
    fn deserialize(
        engine: &Engine,
        entry: EntryBuffer,
        code: usize,
        in_place: bool,
    ) -> wasmtime::Result<Component> {
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        if in_place {
            // Read-only from now on, and never unmapped: clones of the component may live as
            // long as the process, so no point is known after which its code is not run. Only
            // a process-wide runtime asks for this, for the components it keeps anyway
            // (`Builder::process_wide`).
            let entry: &'static memmap2::Mmap =
                Box::leak(Box::new(entry.into_map().make_read_only()?));
            // SAFETY: the bytes are exactly what `Component::serialize` gave for this key (the
            // component's bytes and the engine's settings), as the magic, key and checksum
            // show, and wasmtime refuses code of another version; see the module's
            // documentation. They stay mapped and are never written again.
            #[allow(unsafe_code)]
            return unsafe {
                Component::deserialize_raw(engine, std::ptr::NonNull::from(&entry[..code]))
            };
        }
        let _ = in_place;
        // SAFETY: as above: exactly what `Component::serialize` gave for this key.
        #[allow(unsafe_code)]
        unsafe {
            Component::deserialize(engine, &entry.bytes()[..code])
        }
    }

    /// The events remembered for `key` ([`subscriptions_key`]), if a valid record is there.
    pub(crate) fn remembered_subscriptions(&self, key: &Key) -> Option<Vec<String>> {
        let record = read_record(&self.path(key, "subscriptions"))?;
        serde_json::from_slice(unsealed(&record, key, SUBSCRIPTIONS_MAGIC)?).ok()
    }

    /// Remembers `events` for `key` (a failure is logged: they are asked again next time).
    pub(crate) fn remember_subscriptions(&self, key: &Key, events: &[String]) {
        match serde_json::to_vec(events) {
            Ok(json) => self.write(
                &self.path(key, "subscriptions"),
                &sealed(json, key, SUBSCRIPTIONS_MAGIC),
            ),
            Err(error) => tracing::warn!(%error, "cannot encode a component's subscriptions"),
        }
    }

    /// The digest remembered for the file of `identity`, if a valid record is there.
    pub(crate) fn remembered_digest(&self, identity: FileIdentity) -> Option<Digest> {
        let key = source_key(identity);
        let record = read_record(&self.path(&key, "source"))?;
        unsealed(&record, &key, SOURCE_MAGIC)?.try_into().ok()
    }

    /// Remembers `digest` for the file of `identity` (a failure is logged: the file is read
    /// and hashed again next time).
    pub(crate) fn remember_digest(&self, identity: FileIdentity, digest: &Digest) {
        let key = source_key(identity);
        self.write(
            &self.path(&key, "source"),
            &sealed(digest.to_vec(), &key, SOURCE_MAGIC),
        );
    }

    /// Writes `contents` to `path`: a temporary file renamed into place. A failure is logged,
    /// not an error: the entry is only a shortcut.
    fn write(&self, path: &Path, contents: &[u8]) {
        let temporary = path.with_file_name(format!(
            ".{}.{}.{:?}.tmp",
            path.file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("entry"),
            std::process::id(),
            std::thread::current().id()
        ));
        let written = create_private_dir(&self.dir).and_then(|()| {
            let mut file = fs::File::create(&temporary)?;
            file.write_all(contents)?;
            file.flush()?;
            fs::rename(&temporary, path)
        });
        if let Err(error) = written {
            let _ = fs::remove_file(&temporary);
            tracing::warn!(cache = %path.display(), %error, "cannot write to the WebAssembly cache");
        }
    }
}

/// The file at `path`, open, and its size; its time of use refreshed ([`sweep::refresh`]).
fn open(path: &Path) -> Option<(fs::File, u64)> {
    let file = fs::File::open(path).ok()?;
    let metadata = file.metadata().ok()?;
    sweep::refresh(&file, &metadata, SystemTime::now());
    Some((file, metadata.len()))
}

/// The whole of a small record at `path`, its time of use refreshed.
fn read_record(path: &Path) -> Option<Vec<u8>> {
    let (mut file, len) = open(path)?;
    let mut record = Vec::with_capacity(usize::try_from(len).ok()?);
    file.read_to_end(&mut record).ok()?;
    Some(record)
}

/// The checksum of a payload under `key`.
fn checksum(payload: &[u8], key: &Key) -> [u8; 4] {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(payload);
    hasher.update(key);
    hasher.finalize().to_le_bytes()
}

/// `payload` followed by its trailer: `key`, the checksum, `magic`.
fn sealed(mut payload: Vec<u8>, key: &Key, magic: &[u8; 16]) -> Vec<u8> {
    let sum = checksum(&payload, key);
    payload.reserve(TRAILER);
    payload.extend_from_slice(key);
    payload.extend_from_slice(&sum);
    payload.extend_from_slice(magic);
    payload
}

/// The payload of `entry` if its trailer has `magic`, `key` and the payload's checksum.
fn unsealed<'e>(entry: &'e [u8], key: &Key, magic: &[u8; 16]) -> Option<&'e [u8]> {
    let (payload, trailer) = entry.split_at_checked(entry.len().checked_sub(TRAILER)?)?;
    let (stored_key, rest) = trailer.split_at(32);
    let (sum, stored_magic) = rest.split_at(4);
    (stored_magic == magic && stored_key == key && sum == checksum(payload, key)).then_some(payload)
}

/// Creates `dir` (and its parents), readable by its owner only where that can be said.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_named_by_their_key_in_lowercase_hex() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        let cache = ComponentCache::new("cache");
        let name = cache.path(&[0xab; 32], "cwasm");
        assert_eq!(
            name,
            Path::new("cache").join(format!("{}.cwasm", "ab".repeat(32)))
        );
    }

    #[test]
    fn an_entry_checks_only_with_its_magic_key_and_checksum() {
        let key = [7u8; 32];
        let code = b"machine code";
        let entry = sealed(code.to_vec(), &key, MAGIC);
        assert_eq!(
            &entry[..code.len()],
            code,
            "the code comes first, as serialized"
        );
        assert_eq!(unsealed(&entry, &key, MAGIC), Some(&code[..]));
        assert_eq!(unsealed(&entry, &[8u8; 32], MAGIC), None, "another key");
        assert_eq!(
            unsealed(&entry, &key, SUBSCRIPTIONS_MAGIC),
            None,
            "another kind"
        );
        for at in [0, code.len() - 1, code.len() + 3, code.len() + 33] {
            let mut flipped = entry.clone();
            flipped[at] ^= 1;
            assert_eq!(unsealed(&flipped, &key, MAGIC), None, "byte {at} corrupted");
        }
        assert_eq!(unsealed(&entry[1..], &key, MAGIC), None, "cut at the start");
        assert_eq!(
            unsealed(&entry[..entry.len() - 1], &key, MAGIC),
            None,
            "truncated"
        );
        assert_eq!(
            unsealed(&entry[..10], &key, MAGIC),
            None,
            "shorter than a trailer"
        );
        assert_eq!(unsealed(&[], &key, MAGIC), None, "empty");
    }

    #[test]
    fn keys_differ_by_settings_bytes_and_configuration() {
        let one = key(&[1; 32], &digest(b"component"));
        assert_ne!(one, key(&[2; 32], &digest(b"component")), "other settings");
        assert_ne!(one, key(&[1; 32], &digest(b"componenT")), "other bytes");
        assert_ne!(
            subscriptions_key(&one, "{}"),
            subscriptions_key(&one, "{\"a\":1}")
        );
        assert_ne!(subscriptions_key(&one, "{}"), one);
    }
}
