//! Each end-to-end scenario (a real agent against a mock of its model API) runs in namespaces
//! of its own: a network namespace with only loopback (so the
//! client can reach the mock and nothing else) and a PID namespace (so that everything it
//! started dies with it, even on a timeout).
//!
//! The test binary re-executes itself under `unshare`, running only the one test; that inner
//! run does the work and leaves a marker file, and the outer run fails unless the inner one
//! passed and left its marker (a name that selects no test cannot pass by running nothing).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the inner run: the scenario's scratch directory, where it leaves its marker.
const SCRATCH: &str = "HOOKS_E2E_SCRATCH";

/// The marker's name in the scratch directory.
const DONE_MARKER: &str = "scenario-passed";

/// The longest a whole scenario may take, Claude Code runs included.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(240);

/// An agent's CLI as the end-to-end tests take it: the variable naming its executable, and the
/// version pinned in the repository (`.ci/run` installs that version from npm and sets the
/// variable).
pub struct PinnedAgent {
    /// The agent's name, for messages.
    pub name: &'static str,
    /// The environment variable naming the executable.
    pub var: &'static str,
    /// The pinned version (the version file's text; surrounding whitespace is ignored).
    pub version: &'static str,
    /// The npm package it is installed from.
    pub package: &'static str,
}

impl PinnedAgent {
    /// The pinned version, trimmed.
    pub fn pinned(&self) -> &'static str {
        self.version.trim()
    }

    /// The executable the variable names; `None` when it is unset or empty.
    pub fn executable(&self) -> Option<PathBuf> {
        std::env::var_os(self.var)
            .filter(|path| !path.is_empty())
            .map(PathBuf::from)
    }

    /// Panics unless `<executable> --version` prints the pinned version as one of its words
    /// (a sentence's closing full stop aside).
    pub fn check_version(&self, executable: &Path) {
        let output = Command::new(executable)
            .arg("--version")
            .env("DISABLE_AUTOUPDATER", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|error| panic!("{}={}: {error}", self.var, executable.display()));
        let said = String::from_utf8_lossy(&output.stdout);
        let pinned = self.pinned();
        assert!(
            output.status.success()
                && said
                    .split_whitespace()
                    .any(|word| word.trim_end_matches('.') == pinned),
            "{}={} is not {} {pinned} (`--version` said {:?}, {}); install it with \
             `npm install --prefix target/<dir> {}@{pinned}`",
            self.var,
            executable.display(),
            self.name,
            said.trim(),
            String::from_utf8_lossy(&output.stderr).trim(),
            self.package,
        );
    }
}

/// Runs `scenario` (given the agent's executable and a scratch directory) inside its own
/// network and PID namespaces, or says why it cannot be run: skipped, printed past the test
/// harness's capture, when the agent's variable is unset; a failure when it names something
/// that is not the pinned version.
pub fn scenario(test: &str, agent: &PinnedAgent, scenario: impl FnOnce(&Path, &Path)) {
    let Some(executable) = agent.executable() else {
        let _ = writeln!(
            std::io::stderr(),
            "{test}: skipped: set {} to the executable of {} {} to run it (.ci/run does)",
            agent.var,
            agent.name,
            agent.pinned()
        );
        return;
    };
    if let Some(scratch) = inside() {
        assert_eq!(
            network_interfaces(),
            ["lo"],
            "the scenario must run where only loopback exists"
        );
        scenario(&executable, &scratch);
        mark_done(&scratch);
        return;
    }
    agent.check_version(&executable);
    let scratch = scratch_dir(test);
    run_inside(test, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Whether this process is the inner run, inside the namespaces.
pub fn inside() -> Option<PathBuf> {
    std::env::var_os(SCRATCH).map(PathBuf::from)
}

/// In the inner run, after the scenario passed: says so to the outer run.
pub fn mark_done(scratch: &Path) {
    std::fs::write(scratch.join(DONE_MARKER), "passed").expect("the marker file can be written");
}

/// The network interfaces this process sees (`/proc/net/dev` lists its namespace's).
pub fn network_interfaces() -> Vec<String> {
    let table = std::fs::read_to_string("/proc/net/dev").unwrap_or_default();
    table
        .lines()
        .skip(2) // two header lines
        .filter_map(|line| line.split(':').next())
        .map(|name| name.trim().to_owned())
        .collect()
}

/// Runs the test `test` of this binary again inside fresh network and PID namespaces (as the
/// root of a user namespace, so that it needs no privilege), working in `scratch`. Panics,
/// with everything the inner run printed, unless it passed in time.
pub fn run_inside(test: &str, scratch: &Path) {
    let marker = scratch.join(DONE_MARKER);
    let _ = std::fs::remove_file(&marker);
    let this = std::env::current_exe().expect("the test binary knows its path");
    // The scenarios have agents run `rm -rf ~/` in a home of their own. Should an agent reset
    // `HOME` and a hook fail, the real home is read-only in the scenario's mount namespace.
    let shield = home_to_shield(&[&this, scratch]);
    let mut child = Command::new("unshare")
        .args([
            "--map-root-user",
            "--net",
            "--pid",
            "--mount",
            "--fork",
            "--kill-child",
            "--",
            "sh",
            "-c",
            // A new network namespace has its loopback down.
            r#"ip link set lo up && { [ -z "$HOOKS_E2E_SHIELD" ] || { mount --bind "$HOOKS_E2E_SHIELD" "$HOOKS_E2E_SHIELD" && mount -o remount,bind,ro "$HOOKS_E2E_SHIELD"; }; } && exec "$0" "$@""#,
        ])
        .env("HOOKS_E2E_SHIELD", shield.as_deref().unwrap_or(Path::new("")))
        .arg(&this)
        .args([
            test,
            "--exact",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCRATCH, scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| {
            panic!("cannot start `unshare` (util-linux) for the network namespace: {error}")
        });
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the inner run can be waited for") {
            break Some(status);
        }
        if started.elapsed() > SCENARIO_TIMEOUT {
            // `--kill-child` takes the namespace's processes with it.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = format!(
        "(its files are kept in {})\n--- inner run stdout ---\n{}\n--- inner run stderr ---\n{}",
        scratch.display(),
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default()
    );
    let Some(status) = status else {
        panic!("{test}: no result within {SCENARIO_TIMEOUT:?}\n{output}");
    };
    assert!(
        status.success(),
        "{test}: the inner run failed ({status})\n{output}"
    );
    assert!(
        marker.exists(),
        "{test}: the inner run ended without running the scenario (a test of that exact name \
         must exist; `unshare` and `ip` must work here)\n{output}"
    );
    // Passing runs stay quiet unless asked (`--nocapture`).
    println!("{output}");
}

/// Reads a pipe to its end on a thread of its own, so that neither pipe can fill and block.
pub fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut text);
        }
        String::from_utf8_lossy(&text).into_owned()
    })
}

/// The real home, to be made read-only for a scenario; `None` where that would also shield what
/// the scenario must write (`needed`: the test binary and its scratch directory, with the
/// temporary directory and the working directory) because they lie under it, or when there is
/// no home to shield.
fn home_to_shield(needed: &[&Path]) -> Option<PathBuf> {
    let home = std::fs::canonicalize(std::env::var_os("HOME")?).ok()?;
    if home.parent().is_none() || !home.is_dir() {
        return None;
    }
    let mut needed: Vec<PathBuf> = needed.iter().map(|path| path.to_path_buf()).collect();
    needed.push(std::env::temp_dir());
    needed.extend(std::env::current_dir().ok());
    let clear = needed.iter().all(|path| {
        !std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.clone())
            .starts_with(&home)
    });
    clear.then_some(home)
}

/// A directory of its own for one scenario, emptied first.
pub fn scratch_dir(test: &str) -> PathBuf {
    hooks_testing::scratch_dir("e2e", test)
}
