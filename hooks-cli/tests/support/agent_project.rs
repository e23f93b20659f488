//! A scratch project set up as a user sets one up for an agent (`hooks init <agent>`, then
//! their own entries in `hooks.yaml`), what the model is scripted to do in it, and one headless
//! run of the agent there.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::isolation::drain;
use super::mock_http::MockServer;

/// The longest one headless run of an agent may take.
const AGENT_TIMEOUT: Duration = Duration::from_secs(120);

/// The project's own entries, beside the starter's modules (safety, redaction, logging): a
/// command hook that keeps prompts carrying a marker on this machine.
pub const HOOKS: &str = r#"hooks:
  prompt:submit:
    - type: command
      command: "grep -q 'KEEP-OUT-7f3a' && { echo 'prompts marked keep-out stay on this machine' >&2; exit 2; } || exit 0"
"#;

/// The marker a blocked prompt carries.
pub const KEEP_OUT: &str = "KEEP-OUT-7f3a";

/// The hooks file exactly as `hooks init` writes it: the starter's modules and no entries of
/// the project's own.
pub const STARTER: &str = "hooks: {}\n";

/// The file in the agent's home that a `rm -rf ~/` would take with it.
pub const HOME_MARKER: &str = "home-marker.txt";

/// The file in the project holding a made-up key, which the model reads.
pub const KEY_FILE: &str = "deploy-notes.txt";

/// What the redaction module puts in place of a GitHub token.
pub const GITHUB_TOKEN_MASK: &str = "[REDACTED:github_token]";

/// Part of the reason the model reads where a hook blocked a tool's output because the
/// redaction module changed it and the agent cannot take the change.
pub const REDACTION_BLOCKED: &str = "rewrites the data of";

/// The command the starter's safety module must deny whatever the agent: it would delete the
/// home directory (the scenario's own, `HOME`, with [`HOME_MARKER`] in it).
pub const RM_HOME: &str = "rm -rf ~/";

/// What the model reads when the safety module denies [`RM_HOME`] (part of the reason).
pub const RM_HOME_REASON: &str = "refusing to delete `~/`";

/// A made-up GitHub token, different on every call (so that no text of the agent or of the
/// repository can hold it by chance): `ghp_` and 36 letters and digits drawn from the clock.
pub fn made_up_token() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    // xorshift over the clock and the process id: spread enough for a test's key.
    let mut state = (nanos as u64) ^ (u64::from(std::process::id()) << 32) | 1;
    let body: String = (0..36)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(ALPHABET[(state % ALPHABET.len() as u64) as usize])
        })
        .collect();
    format!("ghp_{body}")
}

/// One tool call the model makes, in the agent's own tools.
#[derive(Debug, Clone)]
pub enum Step {
    /// Run a shell command.
    Shell(String),
    /// Write a whole file (by the agent's file tool, or its patch tool where it has no other).
    Write {
        /// The path as the model names it (relative to the project, or absolute).
        path: String,
        /// The new content.
        content: String,
    },
}

/// A project directory, with a home directory and a directory beside it that is outside it.
pub struct Project {
    /// The project directory (the agent's working directory).
    pub dir: PathBuf,
    /// The agent's home directory (`HOME`).
    pub home: PathBuf,
    /// A directory beside the project, outside it, with a file in it (`keep.txt`).
    pub outside: PathBuf,
}

impl Project {
    /// Sets up a project in `scratch` for `agent`: a git repository (where `git` is wanted),
    /// `hooks init <agent>` writes the starter hooks file and the agent's settings; `hooks`
    /// (a section of the hooks file) then takes the place of the starter's empty one, and the
    /// file must pass `check`.
    pub fn new(scratch: &Path, agent: &str, git: bool, hooks: &str) -> Project {
        let project = Project {
            dir: scratch.join("project"),
            home: scratch.join("home"),
            outside: scratch.join("outside"),
        };
        for dir in [&project.dir, &project.home, &project.outside] {
            std::fs::create_dir_all(dir).expect("the scratch directories can be created");
        }
        std::fs::write(project.outside.join("keep.txt"), "keep me\n")
            .expect("the outside file can be written");
        if git {
            let status = Command::new("git")
                .args(["init", "-q", "."])
                .current_dir(&project.dir)
                .status()
                .expect("git runs");
            assert!(status.success(), "git init failed");
        }
        project.hooks(&["init", agent, "--dir", "."]);
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

    /// Puts the marker file in the home directory, for a scenario that checks it survives.
    pub fn mark_home(&self) -> PathBuf {
        let marker = self.home.join(HOME_MARKER);
        std::fs::write(&marker, "the home directory is still here\n")
            .expect("the home marker can be written");
        marker
    }

    /// Writes the key file into the project with `key` in it, as notes a user keeps.
    pub fn plant_key(&self, key: &str) {
        std::fs::write(
            self.dir.join(KEY_FILE),
            format!("deploy with the token {key} (rotate monthly)\n"),
        )
        .expect("the key file can be written");
    }

    /// Runs `hooks` with `args` in the project (with the project's home); panics with its
    /// output unless it succeeds.
    pub fn hooks(&self, args: &[&str]) -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(args)
            .current_dir(&self.dir)
            .env("HOME", &self.home)
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

    /// The reason `hooks <agent>` gives when the agent hands it `payload` (the agent's own
    /// JSON for a tool call), as the agent reads it: the JSON answer's reason, or stderr on
    /// exit 2. Panics when it does not block.
    pub fn denial_reason(&self, agent: &str, payload: &Value) -> String {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args([agent, "--config", "hooks.yaml"])
            .current_dir(&self.dir)
            .env("HOME", &self.home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hooks binary starts");
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(payload.to_string().as_bytes());
        }
        let output = child.wait_with_output().expect("the hooks binary ends");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let answer: Value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
        let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .or(answer["reason"].as_str())
            .map(str::to_owned);
        match (output.status.code(), reason) {
            (Some(0), Some(reason)) => reason,
            (Some(2), _) => String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            _ => panic!("hooks {agent} does not block {payload}: {output:?}"),
        }
    }

    /// Points the hook entries of the settings file `settings` (relative to the project) for
    /// the agent's events `events` (all of them when empty) at a `hooks` binary that does not
    /// exist, as when the binary `hooks init` named was moved.
    pub fn break_hooks_binary(&self, settings: &str, events: &[&str]) {
        let file = self.dir.join(settings);
        let text = std::fs::read_to_string(&file).expect("hooks init wrote the settings");
        let mut json: Value = serde_json::from_str(&text).expect("the settings are JSON");
        let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_hooks"))
            .expect("the hooks binary has a path");
        let binary = binary.to_string_lossy();
        let mut broken = 0;
        if let Some(hooks) = json["hooks"].as_object_mut() {
            for (event, entries) in hooks.iter_mut() {
                if !events.is_empty() && !events.contains(&event.as_str()) {
                    continue;
                }
                let before = entries.to_string();
                let after = before.replace(&*binary, "/nonexistent/bin/hooks");
                broken += usize::from(before != after);
                *entries = serde_json::from_str(&after).expect("still JSON");
            }
        }
        assert!(
            broken > 0 && (events.is_empty() || broken == events.len()),
            "{settings} does not name the hooks binary {binary} on {events:?}:\n{text}"
        );
        std::fs::write(&file, json.to_string()).expect("the settings can be written");
    }

    /// Runs `command` (an agent, set up by the caller) in the project with the project's
    /// home, waiting at most `AGENT_TIMEOUT`; `mock_log` is called at the end for the report.
    pub fn run(&self, mut command: Command, mock_log: impl FnOnce() -> String) -> AgentRun {
        let label = format!("{command:?}");
        let mut child = command
            .current_dir(&self.dir)
            .env("HOME", &self.home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {label}: {error}"));
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("the agent can be waited for") {
                break Some(status);
            }
            if started.elapsed() > AGENT_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        AgentRun {
            label,
            status,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
            mock_log: mock_log(),
        }
    }
}

/// The starter file's checks, played in one run: the model runs [`RM_HOME`], then prints a
/// file of the project holding a made-up key.
pub struct StarterChecks {
    /// The made-up key.
    pub key: String,
    /// The model's steps: the delete, then the print.
    pub steps: Vec<Step>,
}

impl StarterChecks {
    /// A new key, and the steps.
    pub fn new() -> StarterChecks {
        StarterChecks {
            key: made_up_token(),
            steps: vec![
                Step::Shell(RM_HOME.to_owned()),
                Step::Shell(format!("cat {KEY_FILE}")),
            ],
        }
    }

    /// Puts the home marker and the key file in `project`.
    pub fn plant(&self, project: &Project) {
        project.mark_home();
        project.plant_key(&self.key);
    }

    /// Panics unless the home directory of `project` kept its marker and the model read, as
    /// the result of the delete (`read`), that it was refused and why.
    pub fn assert_home_kept(&self, project: &Project, run: &AgentRun, read: Option<&str>) {
        assert!(
            project.home.join(HOME_MARKER).exists(),
            "`{RM_HOME}` ran: the home marker is gone\n{}",
            run.report()
        );
        assert!(
            read.is_some_and(|text| text.contains(RM_HOME_REASON)),
            "the model must read our reason ({RM_HOME_REASON:?}...), read {read:?}\n{}",
            run.report()
        );
    }

    /// Panics unless the key never reached the mock and the model read `instead` (part of
    /// it) as the result of the print, `read`.
    pub fn assert_key_withheld(
        &self,
        run: &AgentRun,
        api: &MockServer,
        read: Option<&str>,
        instead: &str,
    ) {
        let leaked = self.requests_with_key(api);
        assert_eq!(
            leaked,
            0,
            "the key {} reached the mock in {leaked} request(s); the model read {read:?}\n{}",
            self.key,
            run.report()
        );
        assert!(
            read.is_some_and(|text| text.contains(instead)),
            "the model must read {instead:?} in place of the output, read {read:?}\n{}",
            run.report()
        );
    }

    /// Panics unless the key reached the mock: where the agent gives a hook no way to change
    /// or withhold a tool's output, this records the gap (and fails once the agent closes it).
    pub fn assert_key_reached(&self, run: &AgentRun, api: &MockServer, read: Option<&str>) {
        assert!(
            self.requests_with_key(api) > 0,
            "the key no longer reaches the model (read {read:?}): the agent withholds or \
             changes a tool's output now; check and update this scenario and docs/agents.md\n{}",
            run.report()
        );
    }

    /// How many requests to the mock carry the key.
    fn requests_with_key(&self, api: &MockServer) -> usize {
        api.requests()
            .iter()
            .filter(|request| request.body.contains(&self.key))
            .count()
    }
}

/// What one headless run of an agent did.
pub struct AgentRun {
    label: String,
    /// How it ended; `None` when it was killed at the timeout.
    pub status: Option<ExitStatus>,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
    mock_log: String,
}

impl AgentRun {
    /// Everything needed to see why a scenario failed: the command, the exit, both outputs and
    /// the requests the mock received by the end of the run.
    pub fn report(&self) -> String {
        let status = self.status.map_or_else(
            || format!("killed after {AGENT_TIMEOUT:?}"),
            |s| s.to_string(),
        );
        format!(
            "{}: {status}\n--- stdout ---\n{}\n--- stderr ---\n{}\n\
             --- requests the mock received ---\n{}",
            self.label, self.stdout, self.stderr, self.mock_log
        )
    }

    /// Panics with the report unless the agent ended by itself (with any exit code: a
    /// blocked prompt may end a headless run with an error).
    pub fn assert_ended(&self) {
        assert!(
            self.status.is_some(),
            "the agent did not end in time\n{}",
            self.report()
        );
    }

    /// Panics with the report unless the agent ended by itself with exit code 0.
    pub fn assert_finished(&self) {
        assert!(
            self.status.is_some_and(|status| status.success()),
            "the agent did not finish cleanly\n{}",
            self.report()
        );
    }
}
