//! OpenCode itself behind the plugin `hooks init opencode` writes: the real CLI (`opencode
//! run`), in a network namespace with only loopback, talking to a mock of an OpenAI-compatible
//! chat API (a custom provider in the project's `opencode.json`) that plays the model.
//!
//! The CLI is the executable named by `HOOKS_E2E_OPENCODE` (`.ci/run` installs the version
//! pinned in `opencode-version.txt` from npm and sets it); without it each scenario says it was
//! skipped and passes.

#![allow(dead_code)] // each scenario uses its own part

#[path = "../support/agent_project.rs"]
pub mod agent_project;
#[path = "../support/chat_completions.rs"]
pub mod chat_completions;
#[path = "../support/isolation.rs"]
pub mod isolation;
#[path = "../support/mock_http.rs"]
pub mod mock_http;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hooks_config::interop::plugin::PluginCommand;
use mock_http::MockServer;

/// The variable naming the `opencode` executable.
pub const OPENCODE_VAR: &str = "HOOKS_E2E_OPENCODE";

/// The version of OpenCode the scenarios are written against.
pub const PINNED_VERSION: &str = include_str!("opencode-version.txt");

/// The longest one `opencode run` may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `scenario` (given the `opencode` executable and a scratch directory) inside its own
/// network namespace, or says why it cannot be run: skipped when `HOOKS_E2E_OPENCODE` is
/// unset; a failure when it names something that is not the pinned OpenCode.
pub fn scenario(test: &str, scenario: impl FnOnce(&Path, &Path)) {
    let opencode = match std::env::var_os(OPENCODE_VAR) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "{test}: skipped: set {OPENCODE_VAR} to an `opencode` executable of OpenCode {} \
                 to run it (.ci/run does)",
                PINNED_VERSION.trim()
            );
            return;
        }
    };
    if let Some(scratch) = isolation::inside() {
        assert_eq!(
            isolation::network_interfaces(),
            ["lo"],
            "the scenario must run where only loopback exists"
        );
        scenario(&opencode, &scratch);
        isolation::mark_done(&scratch);
        return;
    }
    let output = Command::new(&opencode)
        .arg("--version")
        .output()
        .unwrap_or_else(|error| panic!("{OPENCODE_VAR}={}: {error}", opencode.display()));
    let version = String::from_utf8_lossy(&output.stdout);
    let pinned = PINNED_VERSION.trim();
    assert!(
        output.status.success() && version.trim() == pinned,
        "{OPENCODE_VAR}={} is not OpenCode {pinned} (`--version` said {:?}); install it with \
         `npm install --prefix target/opencode opencode-ai@{pinned}`",
        opencode.display(),
        version.trim()
    );
    let scratch = isolation::scratch_dir(test);
    isolation::run_inside(test, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A project set up as a user sets one up: `hooks init opencode` (the starter hooks file and
/// the plugin), the user's own entries in `hooks.yaml`, and an `opencode.json` whose model is
/// the mock.
pub struct Project {
    /// The project directory (OpenCode's working directory).
    pub dir: PathBuf,
    /// OpenCode's home directory, with its configuration, data and caches.
    pub home: PathBuf,
}

/// What one `opencode run` did.
pub struct Run {
    /// Its exit status (`None`: killed past the timeout).
    pub status: Option<i32>,
    /// What it printed.
    pub stdout: String,
    /// Its log.
    pub stderr: String,
}

impl Run {
    /// Everything it printed, for a failure message.
    pub fn report(&self) -> String {
        format!(
            "exit {:?}\n--- stdout ---\n{}\n--- stderr (last lines) ---\n{}",
            self.status,
            self.stdout,
            self.stderr
                .lines()
                .rev()
                .take(40)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n")
        )
    }
}

impl Project {
    /// Sets up a project in `scratch`, with `hooks` (a section of the hooks file) in place of
    /// the starter's empty one.
    pub fn new(scratch: &Path, hooks: &str) -> Project {
        let project = Project {
            dir: scratch.join("project"),
            home: scratch.join("home"),
        };
        for dir in [&project.dir, &project.home] {
            std::fs::create_dir_all(dir).expect("the scratch directories can be created");
        }
        project.hooks(&["init", "opencode", "--dir", "."]);
        let file = project.dir.join("hooks.yaml");
        let starter = std::fs::read_to_string(&file).expect("hooks init wrote hooks.yaml");
        assert!(
            starter.contains("\nhooks: {}\n"),
            "the starter hooks file no longer ends in an empty `hooks: {{}}`:\n{starter}"
        );
        std::fs::write(
            &file,
            starter.replace("\nhooks: {}\n", &format!("\n{hooks}")),
        )
        .expect("hooks.yaml can be written");
        project.hooks(&["check", "hooks.yaml"]);
        project
    }

    /// Runs `hooks` with `args` in the project; panics with its output unless it succeeds.
    pub fn hooks(&self, args: &[&str]) -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .expect("the hooks binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "hooks {}: {}\n{stdout}{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }

    /// The plugin `hooks init` wrote.
    pub fn plugin(&self) -> PathBuf {
        self.dir.join(".opencode/plugin/hooks.js")
    }

    /// Points the plugin at another `hooks` binary, as if the one it names had gone.
    pub fn plugin_runs(&self, binary: &str) {
        let text = std::fs::read_to_string(self.plugin()).expect("the plugin was written");
        let mut command = PluginCommand::read(&text).expect("the plugin names its command");
        let line = serde_json::to_string(&command).expect("the command is JSON");
        command.binary = binary.to_owned();
        let changed = serde_json::to_string(&command).expect("the command is JSON");
        std::fs::write(self.plugin(), text.replace(&line, &changed))
            .expect("the plugin can be written");
    }

    /// Runs `opencode run <prompt>` in the project against `api`.
    pub fn run(&self, opencode: &Path, api: &MockServer, prompt: &str) -> Run {
        let config = serde_json::json!({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": format!("{}/v1", api.base_url()), "apiKey": "test-key"},
                "models": {"mock-model": {"name": "Mock model", "tool_call": true}},
            }},
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "autoupdate": false,
            "share": "disabled",
        });
        std::fs::write(self.dir.join("opencode.json"), config.to_string())
            .expect("opencode.json can be written");
        let home = &self.home;
        let mut child = Command::new(opencode)
            .args(["run", "--print-logs", prompt])
            .current_dir(&self.dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            // OpenCode installs its plugin package beside a plugin folder in the background;
            // offline, npm gives up at once instead of retrying for a minute.
            .env("npm_config_offline", "true")
            .env("npm_config_fetch_retries", "0")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
            .env("OPENCODE_DISABLE_SHARE", "1")
            .env("OPENCODE_DISABLE_CLAUDE_CODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("opencode starts");
        let stdout = isolation::drain(child.stdout.take());
        let stderr = isolation::drain(child.stderr.take());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("opencode can be waited for") {
                break status.code();
            }
            if started.elapsed() > RUN_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        Run {
            status,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        }
    }
}
