//! Session state: what a hook remembers between the events of one agent session.
//!
//! A policy that depends on an earlier event (a write to `migrations/` only if a prompt of the
//! same session asked for a migration) keeps what it saw in the session's state: a JSON object
//! per session, keyed by the agent's session id (the `session_id` field every event of a
//! [`HookSession`](crate::session::HookSession) carries, as the agents' own events do).
//!
//! - [`StateBackend`] is where the states live: [`MemoryState`] for a long-lived application
//!   (the default), or a file store for per-event processes such as `hooks claude`, where
//!   every event is a new process (`hooks_std::state_file::FileState`).
//! - [`StateStore`] is the handle a hook keeps: every registry has one
//!   ([`HookRegistry::state`](crate::HookRegistry::state)), and
//!   [`HookRegistry::set_state_backend`](crate::HookRegistry::set_state_backend) moves it (and
//!   every handle taken from it) to another backend.
//! - [`SessionState`] is one session's state: read, write, and update under the backend's
//!   lock, so that concurrent events (or processes) lose no update.
//!
//! Session ids come from outside (an agent's hook input): an id that is not a plain name
//! (`../../etc/passwd`, an empty string, a path) is refused with [`StateError::InvalidSessionId`]
//! rather than cleaned up, so it can never name another session's state, nor a file outside
//! the store.
//!
//! ```
//! use hooks_core::state::StateStore;
//! use serde_json::json;
//!
//! let store = StateStore::in_memory();
//! let state = store.for_event(&json!({"session_id": "s-1", "prompt": "add a migration"})).unwrap();
//! state.update("prompts", |prompts| {
//!     if !prompts.is_array() {
//!         *prompts = json!([]);
//!     }
//!     prompts.as_array_mut().unwrap().push(json!("add a migration"));
//! }).unwrap();
//! assert_eq!(store.session("s-1").unwrap().get("prompts").unwrap(), Some(json!(["add a migration"])));
//! assert!(store.session("../../etc/passwd").is_err());
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, RwLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::events::fields::SESSION_ID;
use crate::sync::{lock, read, write};

/// The longest session id accepted (agents use UUIDs: 36 characters).
pub const MAX_SESSION_ID_LEN: usize = 128;

/// Why session state could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The event carries no `session_id` string, so there is no session to remember for.
    #[error("the event has no `session_id` string: session state is kept per session")]
    NoSessionId,
    /// The session id cannot name a state: it is refused, never cleaned up.
    #[error("session id {id:?} is refused: {why}")]
    InvalidSessionId {
        /// The id as given (cut to [`MAX_SESSION_ID_LEN`] characters).
        id: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The backend failed (a file that cannot be read, written or locked, or is corrupt).
    #[error("the state of session `{session}` is unavailable: {message}")]
    Backend {
        /// The session.
        session: String,
        /// What failed.
        message: String,
    },
    /// A stored value is not of the type asked for.
    #[error("the state `{key}` of session `{session}` is not of the expected type: {message}")]
    WrongType {
        /// The session.
        session: String,
        /// The key.
        key: String,
        /// The deserialisation error.
        message: String,
    },
}

/// A session id checked to be a plain name: 1 to [`MAX_SESSION_ID_LEN`] ASCII letters,
/// digits, `-`, `_` and `.`, not starting with `.`. It is safe as a file name in any store.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(Arc<str>);

impl SessionId {
    /// Checks `id`.
    pub fn new(id: &str) -> Result<Self, StateError> {
        let refuse = |why| StateError::InvalidSessionId {
            id: id.chars().take(MAX_SESSION_ID_LEN).collect(),
            why,
        };
        if id.is_empty() {
            return Err(refuse("it is empty"));
        }
        if id.len() > MAX_SESSION_ID_LEN {
            return Err(refuse("it is longer than 128 characters"));
        }
        if id.starts_with('.') {
            return Err(refuse("it starts with `.`"));
        }
        if !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        {
            return Err(refuse(
                "only ASCII letters, digits, `-`, `_` and `.` are allowed",
            ));
        }
        Ok(SessionId(id.into()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where session states live. Each state is a JSON object.
///
/// An implementation must make [`update`](StateBackend::update) atomic: two updates of one
/// session, from two threads or two processes, must not lose either's change.
pub trait StateBackend: Send + Sync + 'static {
    /// The state of `session` (an empty object when it has none yet).
    fn load(&self, session: &SessionId) -> Result<Map<String, Value>, StateError>;

    /// Reads the state of `session`, lets `change` edit it (called exactly once), and stores
    /// the result, as one atomic step.
    fn update(
        &self,
        session: &SessionId,
        change: &mut dyn FnMut(&mut Map<String, Value>),
    ) -> Result<(), StateError>;
}

/// A backend shared with its owner (`Arc<dyn StateBackend>`, `Arc<FileState>`): the same
/// states, through another handle.
impl<B: StateBackend + ?Sized> StateBackend for Arc<B> {
    fn load(&self, session: &SessionId) -> Result<Map<String, Value>, StateError> {
        (**self).load(session)
    }

    fn update(
        &self,
        session: &SessionId,
        change: &mut dyn FnMut(&mut Map<String, Value>),
    ) -> Result<(), StateError> {
        (**self).update(session, change)
    }
}

/// Session states in memory, for a long-lived application: the default backend.
#[derive(Debug, Default)]
pub struct MemoryState {
    sessions: Mutex<HashMap<SessionId, Map<String, Value>>>,
}

impl MemoryState {
    /// No state yet.
    pub fn new() -> Self {
        MemoryState::default()
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Map<String, Value>>> {
        // A change is applied to the map only after it ran, so a panic in it leaves the map
        // as it was: a poisoned lock is still consistent.
        lock(&self.sessions)
    }
}

impl StateBackend for MemoryState {
    fn load(&self, session: &SessionId) -> Result<Map<String, Value>, StateError> {
        Ok(self.sessions().get(session).cloned().unwrap_or_default())
    }

    fn update(
        &self,
        session: &SessionId,
        change: &mut dyn FnMut(&mut Map<String, Value>),
    ) -> Result<(), StateError> {
        let mut sessions = self.sessions();
        let mut state = sessions.get(session).cloned().unwrap_or_default();
        change(&mut state);
        sessions.insert(session.clone(), state);
        Ok(())
    }
}

/// The handle to a registry's session states that hooks keep. Clones share the backend, and
/// [`set_backend`](StateStore::set_backend) moves every clone to another one.
#[derive(Clone)]
pub struct StateStore {
    backend: Arc<RwLock<Arc<dyn StateBackend>>>,
}

impl fmt::Debug for StateStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateStore").finish_non_exhaustive()
    }
}

impl Default for StateStore {
    fn default() -> Self {
        StateStore::in_memory()
    }
}

impl StateStore {
    /// A store over a new [`MemoryState`].
    pub fn in_memory() -> Self {
        StateStore::new(MemoryState::new())
    }

    /// A store over `backend`.
    pub fn new(backend: impl StateBackend) -> Self {
        StateStore {
            backend: Arc::new(RwLock::new(Arc::new(backend))),
        }
    }

    /// Moves this store and every clone of it to `backend`. What the old backend held is not
    /// carried over: set the backend before the first event.
    pub fn set_backend(&self, backend: impl StateBackend) {
        *write(&self.backend) = Arc::new(backend);
    }

    fn backend(&self) -> Arc<dyn StateBackend> {
        Arc::clone(&read(&self.backend))
    }

    /// The state of session `id`, or why `id` is refused.
    pub fn session(&self, id: &str) -> Result<SessionState, StateError> {
        Ok(SessionState {
            store: self.clone(),
            id: SessionId::new(id)?,
        })
    }

    /// The state of a session named by the crate itself (an id that needs no check).
    pub(crate) fn private_session(&self, id: &'static str) -> SessionState {
        SessionState {
            store: self.clone(),
            id: SessionId(id.into()),
        }
    }

    /// The state of the session an event belongs to (its `session_id` field), or why there
    /// is none.
    pub fn for_event(&self, data: &Value) -> Result<SessionState, StateError> {
        match data.get(SESSION_ID) {
            Some(Value::String(id)) => self.session(id),
            _ => Err(StateError::NoSessionId),
        }
    }
}

/// The state of one session: a JSON object whose keys the hooks share (the standard modules
/// use keys starting with `hooks.`).
#[derive(Debug, Clone)]
pub struct SessionState {
    store: StateStore,
    id: SessionId,
}

impl SessionState {
    /// The session's id.
    pub fn id(&self) -> &str {
        self.id.as_str()
    }

    /// The whole state.
    pub fn snapshot(&self) -> Result<Map<String, Value>, StateError> {
        self.store.backend().load(&self.id)
    }

    /// The value stored under `key`.
    pub fn get(&self, key: &str) -> Result<Option<Value>, StateError> {
        Ok(self.snapshot()?.remove(key))
    }

    /// The value stored under `key`, as a `T`.
    pub fn get_as<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, StateError> {
        self.get(key)?
            .map(|value| {
                serde_json::from_value(value).map_err(|error| StateError::WrongType {
                    session: self.id.to_string(),
                    key: key.to_owned(),
                    message: error.to_string(),
                })
            })
            .transpose()
    }

    /// Stores `value` under `key`.
    pub fn set(&self, key: &str, value: impl Serialize) -> Result<(), StateError> {
        let value = serde_json::to_value(value).map_err(|error| StateError::WrongType {
            session: self.id.to_string(),
            key: key.to_owned(),
            message: error.to_string(),
        })?;
        self.update(key, move |slot| *slot = value)
    }

    /// Removes `key`; returns what it held.
    pub fn remove(&self, key: &str) -> Result<Option<Value>, StateError> {
        self.update(key, std::mem::take)
            .map(|value| Some(value).filter(|value| !value.is_null()))
    }

    /// Edits the value under `key` (`null` when absent) in one atomic step: no concurrent
    /// update, in this process or another one sharing the backend, is lost. A value left
    /// `null` removes the key. Returns what `change` returns.
    pub fn update<R>(
        &self,
        key: &str,
        change: impl FnOnce(&mut Value) -> R,
    ) -> Result<R, StateError> {
        let mut change = Some(change);
        let mut returned = None;
        self.store.backend().update(&self.id, &mut |state| {
            let Some(change) = change.take() else { return };
            let mut value = state.remove(key).unwrap_or(Value::Null);
            returned = Some(change(&mut value));
            if !value.is_null() {
                state.insert(key.to_owned(), value);
            }
        })?;
        returned.ok_or_else(|| StateError::Backend {
            session: self.id.to_string(),
            message: "the backend did not apply the update".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_that_could_name_a_path_are_refused() {
        for bad in [
            "",
            "../../etc/passwd",
            "a/b",
            "a\\b",
            ".hidden",
            "..",
            "a\0b",
            "é",
            "has space",
        ] {
            assert!(
                matches!(
                    SessionId::new(bad),
                    Err(StateError::InvalidSessionId { .. })
                ),
                "{bad:?} was accepted"
            );
        }
        assert!(SessionId::new(&"a".repeat(129)).is_err());
        for good in ["0197a1b2-0000-7000-8000-000000000001", "s1", "a.b_c-d"] {
            assert_eq!(
                SessionId::new(good).map(|id| id.to_string()).ok(),
                Some(good.to_owned())
            );
        }
    }

    #[test]
    fn the_error_names_the_refused_id() {
        let error = StateStore::in_memory()
            .session("../../etc/passwd")
            .unwrap_err();
        assert!(error.to_string().contains("../../etc/passwd"), "{error}");
    }

    #[test]
    fn sessions_are_kept_apart_and_null_removes_a_key() {
        let store = StateStore::in_memory();
        let one = store.session("one").unwrap();
        let two = store.session("two").unwrap();
        one.set("count", 1).unwrap();
        assert_eq!(one.get_as::<u32>("count").unwrap(), Some(1));
        assert_eq!(two.get("count").unwrap(), None);
        assert_eq!(one.remove("count").unwrap(), Some(Value::from(1)));
        assert!(one.snapshot().unwrap().is_empty());
        assert!(matches!(
            {
                one.set("name", "x").unwrap();
                one.get_as::<u32>("name")
            },
            Err(StateError::WrongType { .. })
        ));
    }

    #[test]
    fn an_event_without_a_session_id_has_no_state() {
        let store = StateStore::in_memory();
        assert_eq!(
            store
                .for_event(&serde_json::json!({"prompt": "x"}))
                .unwrap_err(),
            StateError::NoSessionId
        );
        assert_eq!(
            store
                .for_event(&serde_json::json!({"session_id": 7}))
                .unwrap_err(),
            StateError::NoSessionId
        );
    }

    #[test]
    fn a_new_backend_reaches_every_clone_of_the_store() {
        let store = StateStore::in_memory();
        let kept = store.clone();
        store.session("s").unwrap().set("k", true).unwrap();
        store.set_backend(MemoryState::new());
        assert_eq!(kept.session("s").unwrap().get("k").unwrap(), None);
    }

    #[test]
    fn concurrent_updates_lose_nothing() {
        let store = StateStore::in_memory();
        std::thread::scope(|scope| {
            for _ in 0..8 {
                let state = store.session("s").unwrap();
                scope.spawn(move || {
                    for _ in 0..100 {
                        state
                            .update("n", |n| *n = Value::from(n.as_u64().unwrap_or(0) + 1))
                            .unwrap();
                    }
                });
            }
        });
        assert_eq!(
            store.session("s").unwrap().get_as::<u64>("n").unwrap(),
            Some(800)
        );
    }
}
