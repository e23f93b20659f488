//! Keeping the cache from growing without end: each version of a component a developer builds,
//! and each version of this crate or wasmtime, leaves an entry of up to megabytes that nothing
//! will read again.
//!
//! A file's modification time says when it was last used: reading an entry or a record moves
//! it to now, at most once a day (one `futimens` a day, not one a process). When something new
//! is compiled (a process that already pays for a compilation), every file of the cache unused
//! for [`UNUSED_FOR`] is removed, and a temporary file left by a writer that died after an
//! hour. A process that has one open reads on: on Unix, a removed file lives until it is closed.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How long a file of the cache may go unused before it is removed.
pub(super) const UNUSED_FOR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// How old a file's time of use may be before a read moves it to now.
const REFRESH_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a temporary file may stand before it is taken for one whose writer died.
const ABANDONED_AFTER: Duration = Duration::from_secs(60 * 60);

/// Marks `file` (whose `metadata` was just read) as used at `now`, unless it was within a day.
/// A failure only means the file may be removed sooner.
pub(super) fn refresh(file: &fs::File, metadata: &fs::Metadata, now: SystemTime) {
    let stale = metadata
        .modified()
        .map_or(true, |modified| older_than(modified, now, REFRESH_AFTER));
    if stale && let Err(error) = file.set_modified(now) {
        tracing::debug!(%error, "cannot mark a cache file as used");
    }
}

/// Removes from `dir` the files of the cache unused for [`UNUSED_FOR`] at `now`, and
/// temporary files abandoned for an hour; nothing else in it is touched. Failures are
/// logged: the cache only takes more room.
pub(super) fn sweep(dir: &Path, now: SystemTime) {
    let Ok(files) = fs::read_dir(dir) else {
        return;
    };
    let mut removed = 0_usize;
    for file in files.flatten() {
        let name = file.file_name();
        let Some(limit) = name.to_str().and_then(kept_for) else {
            continue;
        };
        let Ok(modified) = file.metadata().and_then(|metadata| metadata.modified()) else {
            continue;
        };
        if older_than(modified, now, limit) {
            match fs::remove_file(file.path()) {
                Ok(()) => removed += 1,
                Err(error) => {
                    tracing::debug!(file = %file.path().display(), %error, "cannot remove an unused cache file");
                }
            }
        }
    }
    if removed > 0 {
        tracing::debug!(removed, cache = %dir.display(), "removed unused WebAssembly cache files");
    }
}

/// How long the cache keeps the file named `name` unused: `None` if it is not the cache's.
fn kept_for(name: &str) -> Option<Duration> {
    match name.strip_prefix('.') {
        // `.{entry}.{process}.{thread}.tmp`, as `ComponentCache::write` names them.
        Some(temporary) => after_entry_name(temporary)
            .filter(|rest| rest.starts_with('.') && rest.ends_with(".tmp"))
            .map(|_| ABANDONED_AFTER),
        None => after_entry_name(name)
            .filter(|rest| rest.is_empty())
            .map(|_| UNUSED_FOR),
    }
}

/// What follows the name of one of the cache's files (a key in lowercase hex, one of its
/// extensions) at the start of `name`.
fn after_entry_name(name: &str) -> Option<&str> {
    let (key, rest) = name.split_at_checked(64)?;
    if !key
        .bytes()
        .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let rest = rest.strip_prefix('.')?;
    ["cwasm", "source", "subscriptions"]
        .into_iter()
        .find_map(|extension| rest.strip_prefix(extension))
}

/// Whether `time` is more than `age` before `now` (a time in the future is not).
fn older_than(time: SystemTime, now: SystemTime, age: Duration) -> bool {
    now.duration_since(time).is_ok_and(|elapsed| elapsed > age)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_cache_s_own_files_are_kept_for_a_time() {
        let key = "0123456789abcdef".repeat(4);
        for extension in ["cwasm", "source", "subscriptions"] {
            assert_eq!(kept_for(&format!("{key}.{extension}")), Some(UNUSED_FOR));
        }
        assert_eq!(
            kept_for(&format!(".{key}.cwasm.123.ThreadId(1).tmp")),
            Some(ABANDONED_AFTER)
        );
        for other in [
            format!("{key}.wasm"),
            format!("{}.cwasm", &key[1..]),
            format!("{}.cwasm", key.to_uppercase()),
            format!("{key}.cwasm.bak"),
            format!(".{key}.cwasm"),
            format!(".{key}.wasm.1.tmp"),
            ".other.tmp".to_owned(),
            "notes.txt".to_owned(),
            "policy.wasm".to_owned(),
            ".hidden".to_owned(),
        ] {
            assert_eq!(kept_for(&other), None, "{other}");
        }
    }

    #[test]
    fn age_is_counted_from_now_and_the_future_is_young() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let day = Duration::from_secs(86_400);
        assert!(older_than(now - day - Duration::from_secs(1), now, day));
        assert!(!older_than(now - day, now, day));
        assert!(!older_than(now + day, now, day));
    }
}
