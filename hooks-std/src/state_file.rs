//! Session state in files, for per-event processes (`hooks claude`, `hooks gemini`, ...),
//! where every event is a new process and nothing in memory survives.
//!
//! Each session's state is one JSON object in `<dir>/<session-id>.json`. An update takes an
//! exclusive advisory lock on `<dir>/<session-id>.lock`, reads the state, applies the change,
//! writes it to a temporary file in the same directory and renames that over the state file:
//! concurrent processes updating one session are serialised by the lock (no update is lost),
//! and a reader, which takes no lock, sees either the old file or the new one, never a torn
//! one. A state file that is not a JSON object is an error, never read as empty: a policy
//! must not forget what it was told because a file was damaged.
//!
//! Session ids are checked by [`SessionId`] before they name a file, so an id such as
//! `../../etc/passwd` is refused and never leaves the directory.
//!
//! ```
//! use hooks_core::HookRegistry;
//! use hooks_std::state_file::FileState;
//!
//! # let dir = std::env::temp_dir().join(format!("hooks-state-doc-{}", std::process::id()));
//! let registry = HookRegistry::new();
//! registry.set_state_backend(FileState::new(&dir));
//! let state = registry.state().session("0197a1b2-0000-7000-8000-000000000001").unwrap();
//! state.set("migration_requested", true).unwrap();
//! assert!(dir.join("0197a1b2-0000-7000-8000-000000000001.json").exists());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use hooks_core::state::{SessionId, StateBackend, StateError};
use serde_json::{Map, Value};

/// The environment variable that sets the directory of [`FileState::from_env`].
pub const STATE_DIR_ENV: &str = "HOOKS_STATE_DIR";

/// How long [`FileState::prune`] keeps the state of a session nobody updated, by default.
pub const DEFAULT_KEEP: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Session states as JSON files in one directory: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct FileState {
    dir: PathBuf,
}

impl FileState {
    /// States in `dir`, created (owner-only on Unix) at the first update.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileState { dir: dir.into() }
    }

    /// States in `$HOOKS_STATE_DIR` when set, otherwise `$XDG_STATE_HOME/hooks/sessions`,
    /// otherwise `~/.local/state/hooks/sessions`; `None` when none of these can be found.
    pub fn from_env() -> Option<Self> {
        let var = |name| std::env::var_os(name).filter(|value| !value.is_empty());
        if let Some(dir) = var(STATE_DIR_ENV) {
            return Some(FileState::new(dir));
        }
        let base = var("XDG_STATE_HOME")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| Path::new(&home).join(".local/state")))?;
        Some(FileState::new(base.join("hooks").join("sessions")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file holding the state of `session`.
    pub fn path_of(&self, session: &SessionId) -> PathBuf {
        self.dir.join(format!("{session}.json"))
    }

    fn lock_path(&self, session: &SessionId) -> PathBuf {
        self.dir.join(format!("{session}.lock"))
    }

    /// Removes the states (and their lock files) not updated for `keep`; returns how many
    /// states were removed. A state being updated meanwhile is left alone.
    pub fn prune(&self, keep: Duration) -> io::Result<usize> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(error) => return Err(error),
        };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(|name| name.strip_suffix(".json"))
                .and_then(|id| SessionId::new(id).ok())
            else {
                continue;
            };
            let stale = entry
                .metadata()
                .and_then(|meta| meta.modified())
                .is_ok_and(|modified| now.duration_since(modified).unwrap_or_default() > keep);
            if !stale {
                continue;
            }
            let lock = self.open_lock(&id)?;
            if lock.try_lock().is_err() {
                continue;
            }
            fs::remove_file(&path)?;
            removed += 1;
            // The lock file goes with the state; a process that opened it meanwhile still
            // holds a valid lock of its own, on a state that starts afresh.
            drop(lock);
            let _ = fs::remove_file(self.lock_path(&id));
        }
        Ok(removed)
    }

    fn open_lock(&self, session: &SessionId) -> io::Result<File> {
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.lock_path(session))
    }

    fn create_dir(&self) -> io::Result<()> {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(&self.dir)
    }

    fn read(&self, session: &SessionId) -> Result<Map<String, Value>, String> {
        let path = self.path_of(session);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Map::new()),
            Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
        };
        match serde_json::from_str(&text) {
            Ok(Value::Object(state)) => Ok(state),
            Ok(_) => Err(format!("{} does not hold a JSON object", path.display())),
            Err(error) => Err(format!("{} is not JSON: {error}", path.display())),
        }
    }

    /// Writes `state` to a temporary file and renames it over the state file.
    fn write(&self, session: &SessionId, state: &Map<String, Value>) -> io::Result<()> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let temporary = self.dir.join(format!(
            ".{session}.{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| {
            let mut file = File::create(&temporary)?;
            serde_json::to_writer(&mut file, state)?;
            file.write_all(b"\n")?;
            // No fsync: the rename makes the update atomic, which is what a policy needs;
            // durability across a power cut is not worth ~10 ms on every event.
            fs::rename(&temporary, self.path_of(session))
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written
    }
}

impl StateBackend for FileState {
    fn load(&self, session: &SessionId) -> Result<Map<String, Value>, StateError> {
        self.read(session).map_err(|message| StateError::Backend {
            session: session.to_string(),
            message,
        })
    }

    fn update(
        &self,
        session: &SessionId,
        change: &mut dyn FnMut(&mut Map<String, Value>),
    ) -> Result<(), StateError> {
        let failed = |message: String| StateError::Backend {
            session: session.to_string(),
            message,
        };
        self.create_dir()
            .map_err(|error| failed(format!("cannot create {}: {error}", self.dir.display())))?;
        let lock = self
            .open_lock(session)
            .map_err(|error| failed(format!("cannot open its lock file: {error}")))?;
        lock.lock()
            .map_err(|error| failed(format!("cannot lock it: {error}")))?;
        let mut state = self.read(session).map_err(failed)?;
        change(&mut state);
        self.write(session, &state)
            .map_err(|error| failed(format!("cannot write it: {error}")))
        // Dropping `lock` releases it.
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use hooks_core::state::StateStore;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "hooks-state-{name}-{}-{:?}",
            std::process::id(),
            SystemTime::now()
        ));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_state_is_one_json_object_per_session_file() {
        let dir = temp_dir("format");
        let store = StateStore::new(FileState::new(&dir));
        let state = store.session("s1").unwrap();
        state.set("asked", true).unwrap();
        state.set("items", ["a", "b"]).unwrap();
        let text = fs::read_to_string(dir.join("s1.json")).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            serde_json::json!({"asked": true, "items": ["a", "b"]})
        );
        // A new store over the same directory (another process) reads it back.
        let again = StateStore::new(FileState::new(&dir)).session("s1").unwrap();
        assert_eq!(again.get_as::<bool>("asked").unwrap(), Some(true));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_state_file_is_an_error_not_an_empty_state() {
        let dir = temp_dir("damaged");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("s1.json"), "{\"asked\": tr").unwrap();
        let state = StateStore::new(FileState::new(&dir)).session("s1").unwrap();
        let error = state.get("asked").unwrap_err();
        assert!(error.to_string().contains("not JSON"), "{error}");
        assert!(state.set("asked", false).is_err());
        // Left as it was, for someone to look at.
        assert_eq!(
            fs::read_to_string(dir.join("s1.json")).unwrap(),
            "{\"asked\": tr"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_id_naming_a_path_writes_nothing_anywhere() {
        let dir = temp_dir("escape");
        let store = StateStore::new(FileState::new(dir.join("sessions")));
        for id in ["../escaped", "../../etc/passwd", "/tmp/x", ".."] {
            assert!(store.session(id).is_err(), "{id}");
        }
        assert!(!dir.exists());
    }

    #[test]
    fn prune_removes_only_old_states() {
        let dir = temp_dir("prune");
        let files = FileState::new(&dir);
        let store = StateStore::new(files.clone());
        store.session("old").unwrap().set("k", 1).unwrap();
        store.session("new").unwrap().set("k", 1).unwrap();
        let old = File::options()
            .write(true)
            .open(dir.join("old.json"))
            .unwrap();
        old.set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        assert_eq!(files.prune(Duration::from_secs(60)).unwrap(), 1);
        assert!(!dir.join("old.json").exists());
        assert!(dir.join("new.json").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
