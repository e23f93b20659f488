//! A scratch project set up as a user sets one up (`hooks init claude`, then their own entries
//! in `hooks.yaml`), and Claude Code run headless in it against the mock.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::isolation::drain;
use super::mock_http::MockServer;

/// The longest one `claude -p` may take.
const CLAUDE_TIMEOUT: Duration = Duration::from_secs(90);

/// A project directory, with a home directory and a `PATH` directory of its own.
pub struct Project {
    /// The project directory (Claude Code's working directory, `CLAUDE_PROJECT_DIR`).
    pub dir: PathBuf,
    /// Claude Code's home directory (`HOME`), empty but for what a scenario puts there.
    pub home: PathBuf,
    bin: PathBuf,
}

impl Project {
    /// Sets up a project in `scratch`: `hooks init claude` writes the starter hooks file and
    /// registers `hooks claude` in `.claude/settings.json`; `hooks` (a section of the hooks
    /// file) then takes the place of the starter's empty one, and the file must pass `check`.
    pub fn new(scratch: &Path, hooks: &str) -> Project {
        let project = Project {
            dir: scratch.join("project"),
            home: scratch.join("home"),
            bin: scratch.join("bin"),
        };
        for dir in [&project.dir, &project.home, &project.bin] {
            std::fs::create_dir_all(dir).expect("the scratch directories can be created");
        }
        // Claude Code finds our binary on its PATH, as the settings entry names it.
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hooks"), project.bin.join("hooks"))
            .expect("the hooks binary can be linked");
        project.hooks(&["init", "claude", "--dir", "."]);
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

    /// Runs `hooks init claude` again with the executable `claude` first on the PATH, as a user
    /// with it installed does: the entries then take the fail-closed key its version takes.
    /// Returns the settings written.
    pub fn init_with(&self, claude: &Path) -> Value {
        self.init_with_args(claude, &[])
    }

    /// As [`Project::init_with`], with `args` after `hooks init claude --dir .` (`--serve`).
    pub fn init_with_args(&self, claude: &Path, args: &[&str]) -> Value {
        let dir = claude.parent().unwrap_or(Path::new("/"));
        let path = format!(
            "{}:{}",
            dir.display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".to_owned())
        );
        let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(["init", "claude", "--dir", "."])
            .args(args)
            .current_dir(&self.dir)
            .env("PATH", path)
            .stdin(Stdio::null())
            .output()
            .expect("the hooks binary runs");
        assert!(output.status.success(), "hooks init claude: {output:?}");
        self.settings()
    }

    /// The project's `.claude/settings.json`.
    pub fn settings(&self) -> Value {
        let text = std::fs::read_to_string(self.dir.join(".claude/settings.json"))
            .expect("hooks init wrote .claude/settings.json");
        serde_json::from_str(&text).expect("the settings are JSON")
    }

    /// Writes `settings` as the project's `.claude/settings.json`.
    pub fn write_settings(&self, settings: &Value) {
        std::fs::write(self.dir.join(".claude/settings.json"), settings.to_string())
            .expect("the settings can be written");
    }

    /// The reason the project's policy gives for denying the Bash command `command`.
    pub fn deny_reason(&self, command: &str) -> String {
        let data = serde_json::json!({"tool_name": "Bash", "tool_input": {"command": command}});
        let answer = self.hooks(&[
            "eval",
            "--config",
            "hooks.yaml",
            "--event",
            "PreToolUse",
            "--data",
            &data.to_string(),
        ]);
        let answer: Value = serde_json::from_str(&answer).expect("eval prints JSON");
        assert_eq!(answer["action"], "deny", "the policy denies `{command}`");
        answer["reason"].as_str().unwrap_or_default().to_owned()
    }

    /// Runs `claude -p prompt` (the executable `claude`) in the project against `api`, headless,
    /// with the Bash tool allowed so that only hooks can stop it; waits at most
    /// `CLAUDE_TIMEOUT`.
    pub fn run_claude(&self, claude: &Path, api: &MockServer, prompt: &str) -> ClaudeRun {
        self.run_claude_with(claude, api, prompt, &[])
    }

    /// As [`Project::run_claude`], with `env` added to Claude Code's environment.
    pub fn run_claude_with(
        &self,
        claude: &Path,
        api: &MockServer,
        prompt: &str,
        env: &[(&str, &str)],
    ) -> ClaudeRun {
        self.run_claude_allowing(claude, api, prompt, "Bash", env)
    }

    /// As [`Project::run_claude_with`], with `tools` (a comma-separated list) allowed instead
    /// of Bash alone.
    pub fn run_claude_allowing(
        &self,
        claude: &Path,
        api: &MockServer,
        prompt: &str,
        tools: &str,
        env: &[(&str, &str)],
    ) -> ClaudeRun {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".to_owned())
        );
        let mut child = Command::new(claude)
            .args(["-p", prompt, "--output-format", "json"])
            .args(["--allowedTools", tools, "--max-turns", "4"])
            .current_dir(&self.dir)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("ANTHROPIC_BASE_URL", api.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-e2e-mock")
            // No update checks, telemetry, error reports or other calls home.
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            // MCP tools offered to the model by name, not deferred behind its tool search, so
            // that the mock can call them.
            .env("ENABLE_TOOL_SEARCH", "false")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", claude.display()));
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("claude can be waited for") {
                break Some(status);
            }
            if started.elapsed() > CLAUDE_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stdout = stdout.join().unwrap_or_default();
        let result = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
        ClaudeRun {
            prompt: prompt.to_owned(),
            status,
            stdout,
            stderr: stderr.join().unwrap_or_default(),
            result,
            mock_log: api.log(),
        }
    }
}

/// What one `claude -p` did.
pub struct ClaudeRun {
    prompt: String,
    /// How it ended; `None` when it was killed at the timeout.
    pub status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
    /// Its `--output-format json` result (`Null` when it printed none).
    pub result: Value,
    mock_log: String,
}

impl ClaudeRun {
    /// Everything needed to see why a scenario failed: the prompt, the exit, both outputs and
    /// the requests the mock received by the end of the run.
    pub fn report(&self) -> String {
        let status = self.status.map_or_else(
            || format!("killed after {CLAUDE_TIMEOUT:?}"),
            |s| s.to_string(),
        );
        format!(
            "claude -p {:?}: {status}\n--- claude stdout ---\n{}\n--- claude stderr ---\n{}\n\
             --- requests the mock received ---\n{}",
            self.prompt, self.stdout, self.stderr, self.mock_log
        )
    }

    /// Panics with the report unless Claude Code ended by itself with exit code 0.
    pub fn assert_finished(&self) {
        assert!(
            self.status.is_some_and(|status| status.success()),
            "Claude Code did not finish cleanly\n{}",
            self.report()
        );
    }
}
