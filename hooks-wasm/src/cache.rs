//! Compiled components kept on disk between processes, so that a hook is compiled once and a
//! later process (the next `hooks claude`) loads machine code instead of compiling again.
//!
//! An entry is named by a SHA-256 of the component's bytes, the engine's settings (wasmtime's
//! compatibility hash: target, compiler flags, features) and this crate's version, and holds a header of ours: a magic string, that key again and a SHA-256
//! of the compiled code. Entries are written to a temporary file and renamed into place, so a
//! reader never sees half an entry, and concurrent writers of one entry write the same bytes.
//!
//! # Why deserializing is sound here
//!
//! [`Component::deserialize`] is `unsafe` because the bytes are machine code that is run
//! without being verified: bytes that did not come from [`Component::serialize`] of a
//! compatible engine can do anything. An entry is deserialized only when its magic, its key
//! (the component and settings asked for) and the checksum of its code all match, so a
//! truncated, corrupted or misplaced file is recompiled instead, never run; wasmtime then checks
//! the header it wrote itself (its version and settings), so code of another wasmtime is
//! refused too, recompiled and its entry replaced. What remains is someone who can
//! write into the cache directory on purpose; the directory is created readable by its owner
//! only, and whoever can write there already has the user's rights (they could as well change
//! the hooks file). Point the cache elsewhere, or turn it off, where that does not hold.

use std::fs;
use std::hash::Hasher;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The first bytes of an entry.
const MAGIC: &[u8; 16] = b"hooks-wasm-cc-v1";

/// The length of the header: magic, key, checksum.
const HEADER: usize = MAGIC.len() + 32 + 32;

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

/// Feeds what `Hash` writes into a SHA-256.
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

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

    /// The key of `bytes` compiled by `engine`: what names its entry, and what a runtime keeps
    /// its loaded components by.
    pub(crate) fn key(engine: &Engine, bytes: &[u8]) -> [u8; 32] {
        let mut hasher = ShaHasher(Sha256::new());
        hasher.write(MAGIC);
        hasher.write(env!("CARGO_PKG_VERSION").as_bytes());
        std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut hasher);
        hasher.0.update(Sha256::digest(bytes));
        hasher.0.finalize().into()
    }

    /// The entry's file.
    fn path(&self, key: &[u8; 32]) -> PathBuf {
        self.dir.join(format!("{}.cwasm", hex(key)))
    }

    /// `bytes` compiled by `engine`: from the cache when a valid entry is there, else compiled
    /// and stored (a failure to store is logged, not an error: the component still runs).
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, Compiled)> {
        self.load_or_compile_keyed(engine, bytes, &Self::key(engine, bytes))
    }

    /// [`ComponentCache::load_or_compile`] with the key of `bytes` already known.
    pub(crate) fn load_or_compile_keyed(
        &self,
        engine: &Engine,
        bytes: &[u8],
        key: &[u8; 32],
    ) -> wasmtime::Result<(Component, Compiled)> {
        let key = *key;
        let path = self.path(&key);
        if let Some(component) = Self::read(engine, &path, &key) {
            return Ok((component, Compiled::FromCache));
        }
        let component = Component::new(engine, bytes)?;
        match component.serialize() {
            Ok(code) => {
                if let Err(error) = self.write(&path, &key, &code) {
                    tracing::warn!(cache = %path.display(), %error, "cannot store a compiled component");
                }
            }
            Err(error) => tracing::warn!(%error, "cannot serialize a compiled component"),
        }
        Ok((component, Compiled::Now))
    }

    /// The component of a valid entry at `path`, or `None` (missing, or not checking).
    fn read(engine: &Engine, path: &Path, key: &[u8; 32]) -> Option<Component> {
        let entry = fs::read(path).ok()?;
        let code = checked(&entry, key)?;
        // SAFETY: `code` is exactly what `Component::serialize` gave for this key (the
        // component's bytes and the engine's settings), as the magic, key and checksum show,
        // and wasmtime refuses code of another version; see the module's documentation.
        #[allow(unsafe_code)]
        let component = unsafe { Component::deserialize(engine, code) };
        match component {
            Ok(component) => Some(component),
            Err(error) => {
                tracing::warn!(cache = %path.display(), %error, "a cached component does not load; compiling again");
                None
            }
        }
    }

    /// Writes an entry: a temporary file renamed into place.
    fn write(&self, path: &Path, key: &[u8; 32], code: &[u8]) -> std::io::Result<()> {
        create_private_dir(&self.dir)?;
        let temporary = self.dir.join(format!(
            ".{}.{}.{:?}.tmp",
            hex(key),
            std::process::id(),
            std::thread::current().id()
        ));
        let written = (|| {
            let mut file = fs::File::create(&temporary)?;
            file.write_all(MAGIC)?;
            file.write_all(key)?;
            file.write_all(&Sha256::digest(code))?;
            file.write_all(code)?;
            file.flush()?;
            fs::rename(&temporary, path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written
    }
}

/// The code of `entry` if its magic, key and checksum match.
fn checked<'e>(entry: &'e [u8], key: &[u8; 32]) -> Option<&'e [u8]> {
    if entry.len() < HEADER || &entry[..MAGIC.len()] != MAGIC {
        return None;
    }
    let (stored_key, rest) = entry[MAGIC.len()..].split_at(32);
    let (checksum, code) = rest.split_at(32);
    (stored_key == key && checksum == Sha256::digest(code).as_slice()).then_some(code)
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
        let name = cache.path(&[0xab; 32]);
        assert_eq!(
            name,
            Path::new("cache").join(format!("{}.cwasm", "ab".repeat(32)))
        );
    }

    #[test]
    fn an_entry_checks_only_with_its_magic_key_and_checksum() {
        let key = [7u8; 32];
        let code = b"machine code";
        let mut entry = MAGIC.to_vec();
        entry.extend_from_slice(&key);
        entry.extend_from_slice(&Sha256::digest(code));
        entry.extend_from_slice(code);
        assert_eq!(checked(&entry, &key), Some(&code[..]));
        assert_eq!(checked(&entry, &[8u8; 32]), None, "another key");
        let mut flipped = entry.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert_eq!(checked(&flipped, &key), None, "corrupted code");
        assert_eq!(checked(&entry[..entry.len() - 1], &key), None, "truncated");
        assert_eq!(checked(&entry[..10], &key), None, "shorter than the header");
        let mut magic = entry.clone();
        magic[0] = b'x';
        assert_eq!(checked(&magic, &key), None, "another format");
    }
}
