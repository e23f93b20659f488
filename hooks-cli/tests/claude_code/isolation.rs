//! Each scenario runs in namespaces of its own: a network namespace with only loopback (so the
//! client can reach the mock and nothing else) and a PID namespace (so that everything it
//! started dies with it, even on a timeout).
//!
//! The test binary re-executes itself under `unshare`, running only the one test; that inner
//! run does the work and leaves a marker file, and the outer run fails unless the inner one
//! passed and left its marker (a name that selects no test cannot pass by running nothing).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the inner run: the scenario's scratch directory, where it leaves its marker.
const SCRATCH: &str = "HOOKS_E2E_SCRATCH";

/// The marker's name in the scratch directory.
const DONE_MARKER: &str = "scenario-passed";

/// The longest a whole scenario may take, Claude Code runs included.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(240);

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
    let mut child = Command::new("unshare")
        .args([
            "--map-root-user",
            "--net",
            "--pid",
            "--fork",
            "--kill-child",
            "--",
            "sh",
            "-c",
            // A new network namespace has its loopback down.
            r#"ip link set lo up && exec "$0" "$@""#,
        ])
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

/// A directory of its own for one scenario, emptied first.
pub fn scratch_dir(test: &str) -> PathBuf {
    hooks_testing::scratch_dir("e2e", test)
}
