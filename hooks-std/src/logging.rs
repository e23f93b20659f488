//! The logging module: one JSON line per event (time, event, sanitised data, result) appended
//! to a file.
//!
//! It observes every emit, after its handlers, so it records the merged result and loses no
//! event, not even one a hook denied. Secrets in the data (API keys, tokens, authorization
//! headers, the configured keys) and in the hooks' reasons, messages and failures are redacted
//! first. Each line is written whole, in one append, so concurrent emits never interleave or
//! lose a line, and neither do processes sharing the file (an agent's command hook runs once
//! per event): rotation takes a lock file (`<path>.lock`) and a process that finds the file
//! already rotated by another reopens it instead of rotating again. The debug events
//! (`llm:request:debug`, `llm:response:debug`) are written only at `level: debug`. When the file
//! would grow past `max_bytes` it is rotated: `events.jsonl` becomes `events.jsonl.1`, and so
//! on up to `keep` files.
//!
//! Lines are written as the emit happens (no buffer to lose on a crash); a failed write is
//! reported through `tracing` and counted ([`LoggingModule::write_errors`]).
//!
//! Config keys (unknown keys are an error naming the key). As in every standard module, a list
//! with built-in entries is **added to** them unless `replace_defaults` names it.
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `path` | `hooks-events.jsonl` | the log file |
//! | `events` | all | only these events (canonical names or aliases) |
//! | `level` | `info` | `debug` also writes the debug events |
//! | `max_bytes` | `10485760` (10 MiB) | rotate before the file grows past this; `null` never |
//! | `keep` | `3` | rotated files kept |
//! | `redact` | `true` | redact secrets in the data |
//! | `secret_keys` | the redaction module's (`api_key`, `password`, `token`, `authorization`, ...) | field names whose values are redacted whole; given ones are added |
//! | `replace_defaults` | none | `[secret_keys]` leaves the built-in keys out, so that the list given is the whole list; another name is an error |
//!
//! ```
//! use hooks_core::{HookModule, HookRegistry};
//! use hooks_std::logging::{LoggingConfig, LoggingModule};
//!
//! let path = std::env::temp_dir().join("hooks-logging-doc-example.jsonl");
//! let config = LoggingConfig { path: path.clone(), max_bytes: Some(1 << 20), ..LoggingConfig::default() };
//! let registry = HookRegistry::new();
//! let mounted = LoggingModule::new(config).unwrap().mount(&registry).unwrap();
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! registry.emit("session:start", serde_json::json!({"source": "startup"})).await;
//! # });
//! assert!(std::fs::read_to_string(&path).unwrap().contains(r#""event":"session:start""#));
//! mounted.unmount();
//! # std::fs::remove_file(path).unwrap();
//! ```

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hooks_core::events::{LLM_REQUEST_DEBUG, LLM_RESPONSE_DEBUG};
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{EmitResult, HookRegistry, timestamp};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::redaction::{RedactionConfig, RedactionModule};
use hooks_core::sync::lock;
use hooks_safety::lists::BuiltInLists;

/// Which events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Every event but the debug events.
    #[default]
    Info,
    /// Every event.
    Debug,
}

/// The logging module's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoggingConfig {
    /// The log file.
    pub path: PathBuf,
    /// Only these events; empty for all.
    pub events: Vec<String>,
    /// Whether the debug events are written.
    pub level: LogLevel,
    /// Rotate before the file grows past this many bytes; `None` never rotates.
    pub max_bytes: Option<u64>,
    /// How many rotated files are kept.
    pub keep: usize,
    /// Redact secrets in the data.
    pub redact: bool,
    /// Field names whose values are redacted whole, besides the redaction module's built-in
    /// ones.
    pub secret_keys: Vec<String>,
    /// The lists whose built-in entries are left out, so that the list given is the whole
    /// list: any of [`LoggingConfig::LISTS`].
    pub replace_defaults: Vec<String>,
}

impl LoggingConfig {
    /// The lists that have built-in entries, which `replace_defaults` may name.
    pub const LISTS: &[&str] = &["secret_keys"];
}

impl Default for LoggingConfig {
    fn default() -> Self {
        LoggingConfig {
            path: PathBuf::from("hooks-events.jsonl"),
            events: Vec::new(),
            level: LogLevel::Info,
            max_bytes: Some(10 * 1024 * 1024),
            keep: 3,
            redact: true,
            secret_keys: Vec::new(),
            replace_defaults: Vec::new(),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("logging module: {0}")]
pub struct LoggingConfigError(String);

#[derive(Debug)]
struct LogFile {
    file: File,
    /// The file's size as this process last knew it (other processes may append).
    size: u64,
}

impl LogFile {
    /// Whether `path` still names this open file (another process may have rotated it away).
    #[cfg(unix)]
    fn is_at(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (self.file.metadata(), std::fs::metadata(path)) {
            (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
            _ => false,
        }
    }

    /// Without inode numbers, a rotation by another process goes unseen until this one's own.
    #[cfg(not(unix))]
    fn is_at(&self, _path: &Path) -> bool {
        true
    }
}

#[derive(Debug)]
struct Log {
    config: LoggingConfig,
    events: Vec<String>,
    redaction: Option<RedactionModule>,
    /// Opened at the first mount.
    file: Mutex<Option<LogFile>>,
    write_errors: AtomicU64,
}

/// The logging module: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct LoggingModule {
    log: Arc<Log>,
}

fn open(path: &Path) -> std::io::Result<LogFile> {
    // A log under a directory of its own (`.hooks/events.jsonl`) needs no set-up step.
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let size = file.metadata()?.len();
    Ok(LogFile { file, size })
}

impl LoggingModule {
    /// Checks `config`. The log file (and its directory, if missing) is opened or created when
    /// the module is first mounted, so that checking a configuration writes nothing.
    pub fn new(config: LoggingConfig) -> Result<Self, LoggingConfigError> {
        let events = config
            .events
            .iter()
            .map(|event| {
                hooks_core::events::canonicalize(event)
                    .map(str::to_owned)
                    .map_err(|error| LoggingConfigError(format!("`events`: {error}")))
            })
            .collect::<Result<_, _>>()?;
        // The lists are checked even when nothing is redacted: a misspelt name is a mistake
        // either way.
        BuiltInLists::new(&config.replace_defaults, LoggingConfig::LISTS)
            .map_err(|unknown| LoggingConfigError(unknown.to_string()))?;
        let redaction = if config.redact {
            let redaction = RedactionConfig {
                emails: false,
                secret_keys: config.secret_keys.clone(),
                // The redaction module's lists of the same names.
                replace_defaults: config.replace_defaults.clone(),
                ..RedactionConfig::default()
            };
            Some(RedactionModule::new(redaction).map_err(|e| LoggingConfigError(e.to_string()))?)
        } else {
            None
        };
        Ok(LoggingModule {
            log: Arc::new(Log {
                config,
                events,
                redaction,
                file: Mutex::new(None),
                write_errors: AtomicU64::new(0),
            }),
        })
    }

    /// How many lines could not be written (each was reported through `tracing`).
    pub fn write_errors(&self) -> u64 {
        self.log.write_errors.load(Ordering::Relaxed)
    }

    /// The line recorded for one emit, if the event is logged at all.
    pub fn line(&self, event: &str, outcome: &EmitResult) -> Option<String> {
        self.log.line(event, outcome)
    }
}

/// One line of the log.
#[derive(Serialize)]
struct Record<'a> {
    data: &'a Value,
    event: &'a str,
    result: Outcome<'a>,
    time: String,
}

/// What the hooks made of an event, as a line records it.
#[derive(Serialize)]
struct Outcome<'a> {
    action: &'a str,
    decided_by: Option<&'a str>,
    failures: Vec<String>,
    injections: Vec<Injection<'a>>,
    messages: Vec<Message<'a>>,
    modified_by: Vec<&'a str>,
    reason: Option<String>,
}

#[derive(Serialize)]
struct Injection<'a> {
    bytes: usize,
    ephemeral: bool,
    hook: &'a str,
}

#[derive(Serialize)]
struct Message<'a> {
    hook: &'a str,
    level: &'a str,
    text: String,
}

impl Log {
    fn wants(&self, event: &str) -> bool {
        let debug = event == LLM_REQUEST_DEBUG || event == LLM_RESPONSE_DEBUG;
        (!debug || self.config.level == LogLevel::Debug)
            && (self.events.is_empty() || self.events.iter().any(|e| e == event))
    }

    fn line(&self, event: &str, outcome: &EmitResult) -> Option<String> {
        if !self.wants(event) {
            return None;
        }
        let redacted = self
            .redaction
            .as_ref()
            .and_then(|r| r.redact(outcome.data()));
        let data = redacted.as_ref().map_or(outcome.data(), |(clean, _)| clean);
        // Every text a hook wrote may repeat a secret it saw: reasons, messages and failures
        // are redacted as the data is.
        let clean = |text: &str| match &self.redaction {
            Some(redaction) => redaction
                .redact_text(text)
                .map_or_else(|| text.to_owned(), |(clean, _)| clean),
            None => text.to_owned(),
        };
        // Written from borrowed parts: the data is not copied into a record first. The fields
        // are in the order the lines have always had (by name).
        let record = Record {
            data,
            event,
            result: Outcome {
                action: outcome.action().as_str(),
                decided_by: outcome.decided_by.as_deref(),
                failures: outcome
                    .failures
                    .iter()
                    .map(|f| clean(&f.to_string()))
                    .collect(),
                injections: outcome
                    .injections
                    .iter()
                    .map(|i| Injection {
                        bytes: i.text.len(),
                        ephemeral: i.ephemeral,
                        hook: &i.hook,
                    })
                    .collect(),
                messages: outcome
                    .messages
                    .iter()
                    .map(|m| Message {
                        hook: &m.hook,
                        level: m.level.as_str(),
                        text: clean(&m.text),
                    })
                    .collect(),
                modified_by: outcome.modifications.iter().map(|m| &*m.hook).collect(),
                reason: outcome.result.reason.as_deref().map(clean),
            },
            time: timestamp::now(),
        };
        // Text and JSON values always serialize; were one not to, the line is counted as lost.
        let mut line = match serde_json::to_string(&record) {
            Ok(line) => line,
            Err(error) => {
                self.failed(&format!(
                    "a line for `{event}` could not be written: {error}"
                ));
                return None;
            }
        };
        line.push('\n');
        Some(line)
    }

    /// Opens the log file unless a mount did already.
    fn open(&self) -> Result<(), LoggingConfigError> {
        let mut file = lock(&self.file);
        if file.is_none() {
            *file = Some(open(&self.config.path).map_err(|error| {
                LoggingConfigError(format!(
                    "`path`: cannot open `{}`: {error}",
                    self.config.path.display()
                ))
            })?);
        }
        Ok(())
    }

    fn write(&self, line: &str) {
        let mut file = lock(&self.file);
        // Mounting opened it; only a module never mounted has no file, and it observes nothing.
        let Some(log) = file.as_mut() else {
            return;
        };
        let bytes = line.len() as u64;
        if let Some(max) = self.config.max_bytes {
            // Other processes may append to the file too: its own size decides.
            if let Ok(metadata) = log.file.metadata() {
                log.size = metadata.len();
            }
            if log.size > 0
                && log.size + bytes > max
                && let Err(error) = self.rotate(log, bytes, max)
            {
                self.failed(&format!(
                    "rotating `{}` failed: {error}",
                    self.config.path.display()
                ));
            }
        }
        // One write of the whole line to a file opened for appending: the kernel puts it at
        // the end in one piece, whatever other processes append meanwhile.
        match log.file.write_all(line.as_bytes()) {
            Ok(()) => log.size += bytes,
            Err(error) => self.failed(&format!(
                "writing to `{}` failed: {error}",
                self.config.path.display()
            )),
        }
    }

    /// Rotates the log unless another process did it first: `log` → `log.1` → … →
    /// `log.{keep}` (the oldest dropped), then a fresh file. Under the lock file, so that two
    /// processes never rotate the same file twice.
    fn rotate(&self, log: &mut LogFile, bytes: u64, max: u64) -> std::io::Result<()> {
        let path = &self.config.path;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(format!("{}.lock", path.display()))?;
        lock.lock()?;
        // Another process may have rotated since this one opened the file: then the path names
        // a new file, which is where the line belongs.
        if !log.is_at(path) {
            *log = open(path)?;
        }
        // The file's own size: other processes append to it too.
        log.size = log.file.metadata()?.len();
        if log.size == 0 || log.size + bytes <= max {
            return Ok(());
        }
        let numbered = |n: usize| PathBuf::from(format!("{}.{n}", path.display()));
        if self.config.keep == 0 {
            std::fs::remove_file(path)?;
        } else {
            for n in (1..self.config.keep).rev() {
                if numbered(n).exists() {
                    std::fs::rename(numbered(n), numbered(n + 1))?;
                }
            }
            std::fs::rename(path, numbered(1))?;
        }
        *log = open(path)?;
        // Dropping `lock` releases it.
        Ok(())
    }

    fn failed(&self, what: &str) {
        self.write_errors.fetch_add(1, Ordering::Relaxed);
        tracing::error!("logging module: {what}");
    }
}

impl HookModule for LoggingModule {
    fn name(&self) -> &str {
        "logging"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        self.log.open().map_err(|error| MountError::Config {
            module: self.name().to_owned(),
            reason: error.to_string(),
        })?;
        let mut mounted = Mounted::new(self.name());
        let log = Arc::clone(&self.log);
        mounted.observe(registry, move |event: &str, outcome: &EmitResult| {
            if let Some(line) = log.line(event, outcome) {
                log.write(&line);
            }
        });
        Ok(mounted)
    }
}
