//! What the guard's configuration was when the session started, and what changed since: the
//! backstop behind the rules that refuse writes to the guard files. Whatever got through
//! anyway (a write the checker could not tie to a guard file) does not take effect silently:
//! once a file that configures the guard differs from what it was at the session's first event,
//! every call of the session is blocked, and the reason tells the user how to accept the change
//! (`hooks trust`, at a terminal) or to start a new session.
//!
//! The files watched: the hooks file given (`--config`), the managed and user hooks files, and
//! the agent's hook settings in the project and the home directory. A hooks file is known by
//! its metadata (device, inode, size, modification and change times: a write, a replacement, a
//! new link or a `chmod` changes one of them, for one `stat` per event), the settings by what
//! their `hooks` hold. The binary is not among them: one replaced by another program runs none
//! of this, and one replaced by another `hooks` (an upgrade) is the user's; keeping the binary
//! the settings name from being replaced is the guard-file rules' work.
//!
//! Where it is kept: the session's state (the snapshot) and, for what the user accepted, a
//! file per project beside the sessions' states; both in the state directory, which the
//! checker write-protects. A same-user process can still defeat any check made as that user
//! (SAFETY.md, "What each placement guarantees"): this one makes a change visible, it does not
//! make one impossible.

use std::collections::BTreeMap;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};

use hooks_config::LayerPaths;
use hooks_config::interop::{AGENTS, Agent};
use hooks_core::state::SessionState;
use serde::{Deserialize, Serialize};

/// The session state's key of the snapshot taken at the session's first event.
const SNAPSHOT_KEY: &str = "hooks.integrity.snapshot";

/// What a file is: for a hooks file or the binary, as far as one `stat` tells; for an agent's
/// settings, what its `hooks` hold (the agent writes its other settings itself, a theme or a
/// permission granted, and that must not block the session). `None` in a snapshot: a file that
/// is not there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fingerprint {
    /// The file's metadata.
    Metadata {
        device: u64,
        inode: u64,
        len: u64,
        modified_ns: i64,
        changed_ns: i64,
    },
    /// A digest of the settings' `hooks` (of the whole text, where it is not JSON).
    Hooks { hooks_digest: String },
}

/// A watched file, and how it is known.
struct Watched {
    path: PathBuf,
    settings: bool,
}

/// FNV-1a, 64 bits: a stable digest for names and contents, with no dependency.
fn fnv(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// What an agent's settings file says of hooks.
fn settings_fingerprint(path: &Path) -> Option<Fingerprint> {
    let text =
        hooks_std::config_file::read_config_file(path, hooks_std::config_file::MAX_CONFIG_BYTES)
            .ok()?;
    let digest = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(settings) => fnv(settings
            .get("hooks")
            .unwrap_or(&serde_json::Value::Null)
            .to_string()
            .as_bytes()),
        Err(_) => fnv(text.as_bytes()),
    };
    Some(Fingerprint::Hooks {
        hooks_digest: format!("{digest:016x}"),
    })
}

/// The watched files, each with its fingerprint.
pub type Snapshot = BTreeMap<PathBuf, Option<Fingerprint>>;

#[cfg(unix)]
fn fingerprint(path: &Path) -> Option<Fingerprint> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::symlink_metadata(path).ok()?;
    let nanos =
        |seconds: i64, nanos: i64| seconds.saturating_mul(1_000_000_000).saturating_add(nanos);
    Some(Fingerprint::Metadata {
        device: meta.dev(),
        inode: meta.ino(),
        len: meta.size(),
        modified_ns: nanos(meta.mtime(), meta.mtime_nsec()),
        changed_ns: nanos(meta.ctime(), meta.ctime_nsec()),
    })
}

#[cfg(not(unix))]
fn fingerprint(path: &Path) -> Option<Fingerprint> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| {
            i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
        });
    Some(Fingerprint::Metadata {
        device: 0,
        inode: 0,
        len: meta.len(),
        modified_ns: modified,
        changed_ns: modified,
    })
}

/// The project of the hooks file `config`: its directory.
fn project_of(config: &Path) -> PathBuf {
    let absolute = std::path::absolute(config).unwrap_or_else(|_| config.to_path_buf());
    absolute
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The files that configure the guard for `agents` in the project of `config`.
fn watched_for<'a>(agents: impl IntoIterator<Item = &'a dyn Agent>, config: &Path) -> Vec<Watched> {
    let project = project_of(config);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let layers = LayerPaths::from_env();
    let file = |path: PathBuf| Watched {
        path,
        settings: false,
    };
    let mut files = vec![file(
        std::path::absolute(config).unwrap_or_else(|_| config.to_path_buf()),
    )];
    files.extend(layers.managed.clone().map(file));
    files.extend(layers.user.clone().map(file));
    for agent in agents {
        let settings = agent.profile().settings;
        let mut paths = vec![project.join(settings.project)];
        paths.extend(home.as_ref().map(|home| home.join(settings.user)));
        files.extend(paths.into_iter().map(|path| Watched {
            path,
            settings: true,
        }));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    files
}

/// The snapshot of `files` now.
fn snapshot_of(files: &[Watched]) -> Snapshot {
    files
        .iter()
        .map(|file| {
            let print = if file.settings {
                settings_fingerprint(&file.path)
            } else {
                fingerprint(&file.path)
            };
            (file.path.clone(), print)
        })
        .collect()
}

/// The file, beside the sessions' states in `state_dir`, of what the user accepted for the
/// project of `config`.
fn accepted_file(state_dir: &Path, config: &Path) -> PathBuf {
    // A stable name for the project, whatever characters its path holds.
    let hash = fnv(project_of(config).as_os_str().as_encoded_bytes());
    state_dir.join(format!("trusted-{hash:016x}.json"))
}

fn read_accepted(file: &Path) -> Snapshot {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Checks the session of `state` against what the guard's configuration was at its first
/// event (taken now, if this is it); `Err` names what changed and how to accept it.
pub fn check(
    agent: &dyn Agent,
    config: &Path,
    state: &SessionState,
    state_dir: Option<&Path>,
) -> Result<(), String> {
    let files = watched_for([agent], config);
    let now = snapshot_of(&files);
    // A snapshot that is there but cannot be read is no first event: it blocks.
    let stored: Option<Snapshot> = state
        .get_as(SNAPSHOT_KEY)
        .map_err(|error| format!("cannot read the session's snapshot of the guard: {error}"))?;
    let Some(mut stored) = stored else {
        // The session's first event: what is there now is what the session runs with.
        state
            .set(SNAPSHOT_KEY, &now)
            .map_err(|error| format!("cannot keep the session's snapshot: {error}"))?;
        return Ok(());
    };
    let accepted = state_dir
        .map(|dir| read_accepted(&accepted_file(dir, config)))
        .unwrap_or_default();
    let mut changed = Vec::new();
    for (file, fingerprint) in &now {
        let Some(before) = stored.get(file) else {
            // Not watched when the session started (another project's file, another agent's):
            // what it is now is what the session runs with.
            stored.insert(file.clone(), fingerprint.clone());
            continue;
        };
        if before == fingerprint {
            continue;
        }
        if accepted.get(file) == Some(fingerprint) {
            stored.insert(file.clone(), fingerprint.clone());
            continue;
        }
        changed.push(file.display().to_string());
    }
    if changed.is_empty() {
        if stored != now {
            let _ = state.set(SNAPSHOT_KEY, &stored);
        }
        return Ok(());
    }
    Err(format!(
        "the guard's configuration changed since this session started ({}); every call of \
         the session is blocked until the user accepts the change by running `hooks trust \
         --config {}` at a terminal, outside the agent, or starts a new session",
        changed.join(", "),
        config.display()
    ))
}

/// `hooks trust --config FILE`: the user accepts the guard's configuration as it is now, for
/// the sessions running in the project of FILE; asked at the terminal (`/dev/tty`), where a
/// code shown must be typed back.
pub fn trust(config: &Path) -> Result<String, String> {
    let state_dir = hooks_std::state_file::FileState::from_env()
        .map(|state| state.dir().to_path_buf())
        .ok_or("no state directory is known ($HOOKS_STATE_DIR, $XDG_STATE_HOME or $HOME)")?;
    let files = watched_for(AGENTS.iter().copied(), config);
    let now = snapshot_of(&files);
    let code = code();
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(|error| {
            format!(
                "accepting a change needs the user at a terminal, and this process has none \
                 ({error}); run `hooks trust` in a terminal of your own, outside the agent"
            )
        })?;
    let listed: Vec<String> = files
        .iter()
        .map(|file| format!("  {}", file.path.display()))
        .collect();
    write!(
        tty,
        "hooks trust: the sessions in {} will run with these files as they are now:\n{}\n\
         Type {code} to accept: ",
        project_of(config).display(),
        listed.join("\n")
    )
    .map_err(|error| format!("cannot write to the terminal: {error}"))?;
    let mut answer = String::new();
    std::io::BufReader::new(&tty)
        .read_line(&mut answer)
        .map_err(|error| format!("cannot read the terminal: {error}"))?;
    if answer.trim() != code {
        return Err("the code was not typed back; nothing was accepted".to_owned());
    }
    let file = accepted_file(&state_dir, config);
    let text = serde_json::to_string_pretty(&now).map_err(|error| error.to_string())?;
    std::fs::create_dir_all(&state_dir).map_err(|error| error.to_string())?;
    let partial = file.with_extension("json.partial");
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &file))
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    Ok(format!(
        "accepted: the sessions in {} run with the guard's configuration as it is now",
        project_of(config).display()
    ))
}

/// A short code to type back, different at each run.
fn code() -> String {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos())
        ^ u128::from(std::process::id()) << 64;
    let mut value = seed;
    (0..4)
        .map(|_| {
            let letters = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
            let letter = letters[(value % letters.len() as u128) as usize];
            value /= letters.len() as u128;
            letter as char
        })
        .collect()
}
