//! The linter module (`tool:post`): after a file write or edit, runs the linter configured for
//! the file's extension and feeds its findings back to the agent.
//!
//! The linter runs as a program with arguments (no shell, so a path chosen by the agent cannot
//! inject commands), in the workspace, under [`process::run`]: in its own process group, killed
//! with everything it started at the timeout, its output capped. Findings (a non-zero exit) are injected
//! as context with a warning for the user, and the linter's own output is suppressed from the
//! transcript. A linter that is not installed is a one-time warning, not an error; one that
//! times out is a warning and is killed.
//!
//! Config keys (unknown keys are an error naming the key). A list with built-in entries is
//! **added to** them: `linters: {sh: [shellcheck, "{file}"]}` lints shell scripts besides
//! Python and Rust, and `tools: [save_file]` lints that tool's files besides the built-in
//! tools'. To drop a list's built-in entries, name the list in `replace_defaults`; the list
//! given is then the whole list.
//!
//! | key | built in | meaning |
//! |---|---|---|
//! | `linters` | `py`: `ruff check {file}`, `rs`: `rustfmt --check {file}` | extension → program and arguments; `{file}` is the path (appended when absent); given ones are added, one for `py` or `rs` in the built-in one's place |
//! | `tools` | `write_file`, `edit_file`, `create_file`, `Write`, `Edit`, `MultiEdit` | tools whose calls are linted (any case); given ones are added |
//! | `path_fields` | `file_path`, `path` | where the path is in the tool input; given ones are added |
//! | `replace_defaults` | none | the lists above whose built-in entries are left out, e.g. `[linters]`; another name is an error listing them |
//! | `timeout_ms` | `10000` | how long a linter may run |
//! | `max_output_bytes` | `4000` | how much of the findings is injected |
//! | `workspace` | the current directory | where linters run |
//! | `priority` | `10` | |
//!
//! ```
//! use hooks_std::linter::{LinterConfig, LinterModule};
//! use serde_json::json;
//!
//! // Lint shell scripts with shellcheck, and TOML with taplo, besides Python and Rust.
//! let config: LinterConfig = serde_json::from_value(json!({
//!     "linters": {
//!         "sh": ["shellcheck", "--format=gcc", "{file}"],
//!         "toml": ["taplo", "check"]
//!     },
//!     "timeout_ms": 5000
//! }))
//! .unwrap();
//! let linter = LinterModule::new(config).unwrap();
//! ```

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::events::fields::{ERROR, TOOL_INPUT, TOOL_NAME, TOOL_RESULT};
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::text::truncate_bytes;
use hooks_core::view::{EventView, ToolPost};
use hooks_core::{HookRegistry, HookResult, MessageLevel, TypedHook};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::process::{self, Finished, ProcessError};
use hooks_core::sync::lock;
use hooks_safety::lists::{BuiltInLists, strings};

/// The linter module's configuration.
///
/// `linters`, `tools` and `path_fields` hold what is added to the built-in ones (a linter given
/// for `py` or `rs` takes the built-in one's place): the default configuration's are empty, and
/// the built-in entries come from the module. `replace_defaults` names the lists whose built-in
/// entries are left out; [`LinterConfig::with_built_in_lists`] writes them out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinterConfig {
    /// Extension (without the dot) → program and arguments, besides the built-in linters.
    pub linters: BTreeMap<String, Vec<String>>,
    /// Tools whose calls are linted, besides the built-in ones.
    pub tools: Vec<String>,
    /// Where the path is in the tool input, besides `file_path` and `path`.
    pub path_fields: Vec<String>,
    /// How long a linter may run, in milliseconds.
    pub timeout_ms: u64,
    /// How much of the findings is injected.
    pub max_output_bytes: usize,
    /// Where linters run (default: the current directory).
    pub workspace: Option<PathBuf>,
    /// The handler's priority.
    pub priority: i32,
    /// The lists whose built-in entries are left out, so that the list given is the whole
    /// list: any of [`LinterConfig::LISTS`].
    pub replace_defaults: Vec<String>,
}

const TOOLS: &[&str] = &[
    "write_file",
    "edit_file",
    "create_file",
    "Write",
    "Edit",
    "MultiEdit",
];

const PATH_FIELDS: &[&str] = &["file_path", "path"];

fn built_in_linters() -> BTreeMap<String, Vec<String>> {
    BTreeMap::from([
        ("py".to_owned(), strings(&["ruff", "check", "{file}"])),
        ("rs".to_owned(), strings(&["rustfmt", "--check", "{file}"])),
    ])
}

impl LinterConfig {
    /// The lists that have built-in entries, which `replace_defaults` may name.
    pub const LISTS: &[&str] = &["linters", "tools", "path_fields"];

    /// The default configuration with every built-in list written out in its field and named
    /// in `replace_defaults`: the same module as the default one, and where to start from to
    /// take a built-in entry out.
    pub fn with_built_in_lists() -> Self {
        LinterConfig {
            linters: built_in_linters(),
            tools: strings(TOOLS),
            path_fields: strings(PATH_FIELDS),
            replace_defaults: strings(Self::LISTS),
            ..LinterConfig::default()
        }
    }

    /// The configuration with the built-in entries merged into its lists, as the module uses it.
    fn resolved(&self) -> Result<LinterConfig, LinterConfigError> {
        let lists = BuiltInLists::new(&self.replace_defaults, Self::LISTS)
            .map_err(|unknown| LinterConfigError(unknown.to_string()))?;
        let mut linters: BTreeMap<String, Vec<String>> = lists
            .kept("linters", built_in_linters())
            .into_iter()
            .collect();
        linters.extend(self.linters.clone());
        Ok(LinterConfig {
            linters,
            tools: lists.merge("tools", strings(TOOLS), &self.tools),
            path_fields: lists.merge("path_fields", strings(PATH_FIELDS), &self.path_fields),
            replace_defaults: strings(Self::LISTS),
            ..self.clone()
        })
    }
}

impl Default for LinterConfig {
    fn default() -> Self {
        LinterConfig {
            linters: BTreeMap::new(),
            tools: Vec::new(),
            path_fields: Vec::new(),
            timeout_ms: 10_000,
            max_output_bytes: 4000,
            workspace: None,
            priority: 10,
            replace_defaults: Vec::new(),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("linter module: {0}")]
pub struct LinterConfigError(String);

#[derive(Debug)]
struct Linter {
    config: LinterConfig,
    workspace: PathBuf,
    /// Programs already reported missing: the warning is given once.
    missing: Mutex<HashSet<String>>,
}

/// The linter module: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct LinterModule {
    linter: Arc<Linter>,
}

impl LinterModule {
    /// Checks `config`.
    pub fn new(config: LinterConfig) -> Result<Self, LinterConfigError> {
        let config = config.resolved()?;
        if config.timeout_ms == 0 {
            return Err(LinterConfigError("`timeout_ms` must be at least 1".into()));
        }
        if let Some((extension, _)) = config.linters.iter().find(|(_, argv)| argv.is_empty()) {
            return Err(LinterConfigError(format!(
                "`linters.{extension}` names no program; give e.g. [\"ruff\", \"check\", \"{{file}}\"]"
            )));
        }
        let workspace = match &config.workspace {
            Some(workspace) => workspace.clone(),
            None => std::env::current_dir().map_err(|e| {
                LinterConfigError(format!(
                    "no `workspace` given and no current directory: {e}"
                ))
            })?,
        };
        Ok(LinterModule {
            linter: Arc::new(Linter {
                config,
                workspace,
                missing: Mutex::new(HashSet::new()),
            }),
        })
    }

    /// The answer to a `tool:post` event's data.
    pub async fn lint(&self, data: &Value) -> HookResult {
        self.linter.lint(data).await
    }
}

impl Linter {
    fn path<'d>(&self, data: &'d Value) -> Option<&'d str> {
        let tool = data[TOOL_NAME].as_str()?;
        if !self
            .config
            .tools
            .iter()
            .any(|t| t.eq_ignore_ascii_case(tool))
        {
            return None;
        }
        if data[TOOL_RESULT]["success"] == false || !data[ERROR].is_null() {
            return None;
        }
        self.config
            .path_fields
            .iter()
            .find_map(|field| data[TOOL_INPUT][field].as_str())
    }

    /// The linter for `file`: its program and arguments, `{file}` filled in.
    fn invocation(&self, file: &str) -> Option<(&str, Vec<String>)> {
        let extension = Path::new(file)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let argv = self.config.linters.get(extension)?;
        // A path that looks like an option must not be read as one.
        let file_arg = if file.starts_with('-') {
            format!("./{file}")
        } else {
            file.to_owned()
        };
        let mut args: Vec<String> = argv[1..]
            .iter()
            .map(|a| a.replace("{file}", &file_arg))
            .collect();
        if !argv.iter().any(|a| a.contains("{file}")) {
            args.push(file_arg);
        }
        Some((argv[0].as_str(), args))
    }

    async fn lint(&self, data: &Value) -> HookResult {
        let Some(file) = self.path(data) else {
            return HookResult::cont();
        };
        let Some((program, args)) = self.invocation(file) else {
            return HookResult::cont();
        };
        let mut command = tokio::process::Command::new(program);
        command.args(&args).current_dir(&self.workspace);
        let timeout = Duration::from_millis(self.config.timeout_ms);
        match process::run(command, b"", timeout).await {
            Ok(finished) if finished.status.success() => HookResult::cont(),
            Ok(finished) => self.findings(program, file, &finished),
            Err(error) => self.trouble(program, file, timeout, &error),
        }
    }

    /// What a linter that could not judge the file gives: a warning, never a block.
    fn trouble(
        &self,
        program: &str,
        file: &str,
        timeout: Duration,
        error: &ProcessError,
    ) -> HookResult {
        let warning = match error {
            ProcessError::Spawn(spawn) if spawn.kind() == std::io::ErrorKind::NotFound => {
                let first = lock(&self.missing).insert(program.to_owned());
                if !first {
                    return HookResult::cont();
                }
                let extension = Path::new(file)
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or_default();
                format!("linter `{program}` is not installed; .{extension} files are not linted")
            }
            ProcessError::Spawn(spawn) => format!("linter `{program}` could not start: {spawn}"),
            ProcessError::TimedOut | ProcessError::OutputHeld => {
                format!("linter `{program}` took longer than {timeout:?} on {file} and was stopped")
            }
            other => format!("linter `{program}` failed: {other}"),
        };
        HookResult::cont().with_user_message(warning, MessageLevel::Warning)
    }

    /// A linter's findings (it exited non-zero), injected for the agent.
    fn findings(&self, program: &str, file: &str, finished: &Finished) -> HookResult {
        let mut findings = finished.stdout_text().trim_end().to_owned();
        let stderr = finished.stderr_text();
        if !stderr.trim().is_empty() {
            if !findings.is_empty() {
                findings.push('\n');
            }
            findings.push_str(stderr.trim_end());
        }
        let mut findings = cut(&findings, self.config.max_output_bytes);
        if finished.truncated {
            findings.push_str(&format!(
                "\n[the linter printed more than {} bytes; the rest was discarded]",
                process::OUTPUT_CAP
            ));
        }
        HookResult::inject(format!(
            "Linter `{program}` reported problems in {file}:\n{findings}"
        ))
        .with_user_message(
            format!("linter found problems in {file}"),
            MessageLevel::Warning,
        )
        .with_suppress_output(true)
    }
}

/// `text` cut to at most `max` bytes on a character boundary, marked when cut.
fn cut(text: &str, max: usize) -> String {
    let kept = truncate_bytes(text, max);
    if kept.len() == text.len() {
        return text.to_owned();
    }
    format!("{kept}\n[… {} more bytes]", text.len() - kept.len())
}

impl TypedHook for LinterModule {
    async fn on_tool_post(&self, call: ToolPost<'_>) -> HookResult {
        self.lint(call.data()).await
    }

    /// A `tool:post` whose data the view refuses is linted all the same: Claude Code's carries
    /// the result as `tool_response`, not `tool_result`, and the linter needs only the path.
    async fn on_event(&self, event: &str, data: &Value) -> HookResult {
        if event == hooks_core::events::TOOL_POST {
            self.lint(data).await
        } else {
            HookResult::cont()
        }
    }
}

impl HookModule for LinterModule {
    fn name(&self) -> &str {
        "linter"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new(self.name());
        mounted.register(
            registry,
            hooks_core::events::TOOL_POST,
            self.clone(),
            self.linter.config.priority,
            "linter",
        )?;
        Ok(mounted)
    }
}
