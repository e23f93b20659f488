//! `hooks claude` end to end, as Claude Code runs it on every tool call (process start, hooks
//! file load, emit, answer), beside the floor of any command hook: spawning `/bin/true` with
//! the same input, in the same run; and the same decision from `hooks serve` over a loopback
//! keep-alive connection (Claude Code's `type: "http"` hook), with its throughput and p99 from
//! concurrent clients printed at the end.
//!
//! With the `wasm` feature, one WebAssembly hook served at three sizes (the bench's component,
//! 1,000 and 5,000 filler functions) from one server, beside `hooks claude` per process with
//! each and the same floor: once the server has loaded a component, a call should cost the same
//! whatever its size.
//!
//! Run with `cargo bench -p hooks-cli --bench agent_hook` (`--features wasm` for the
//! WebAssembly cases).

use std::io::{BufRead as _, BufReader, Read as _, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};

#[cfg(feature = "wasm")]
#[path = "../../hooks-wasm/tests/support/guests.rs"]
mod guests;

/// What Claude Code sends on PreToolUse.
const INPUT: &str = r#"{"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": "cargo test --workspace"}, "tool_use_id": "toolu_01"}"#;

/// Spawns `program` with `args`, writes the hook input, waits for it to end.
fn run(program: &Path, args: &[&str]) {
    run_with(program, args, &[]);
}

/// [`run`] with `env` added to the program's environment.
fn run_with(program: &Path, args: &[&str], env: &[(&str, &Path)]) {
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    if let Some(mut stdin) = child.stdin.take() {
        // `/bin/true` may exit before reading: a broken pipe is part of the floor.
        let _ = stdin.write_all(INPUT.as_bytes());
    }
    child.wait().expect("waits");
}

fn hooks_file(name: &str, yaml: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-bench-agent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join(name);
    std::fs::write(&file, yaml).expect("writes the hooks file");
    file
}

const ONE_RULE: &str = r#"hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Write, args: {file_path: "**/.env*"}}
      action: block
      message: "environment files are protected"
"#;

/// The starter policy of `hooks init`: safety, redaction and logging.
const STARTER: &str = r#"modules:
  safety: {workspace: "."}
  redaction: {}
  logging: {path: ".hooks/events.jsonl"}
"#;

fn claude_hook_versus_spawn_floor(c: &mut Criterion) {
    let hooks = Path::new(env!("CARGO_BIN_EXE_hooks"));
    let one_rule = hooks_file("one_rule.yaml", ONE_RULE);
    let one_rule = one_rule.to_str().expect("a UTF-8 path");
    let starter = hooks_file("starter.yaml", STARTER);
    let starter = starter.to_str().expect("a UTF-8 path");
    let mut group = c.benchmark_group("agent_hook");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("spawn_floor/bin_true", |b| {
        b.iter(|| run(Path::new("/bin/true"), &[]));
    });
    group.bench_function("hooks_claude/one_rule", |b| {
        b.iter(|| run(hooks, &["claude", "--config", one_rule]));
    });
    group.bench_function("hooks_claude/safety_redaction_logging", |b| {
        b.iter(|| run(hooks, &["claude", "--config", starter]));
    });
    group.finish();
}

/// A `hooks serve` on a free loopback port, killed when dropped.
struct Server {
    child: Child,
    address: String,
    token: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server() -> Server {
    start_server_with(&[])
}

/// [`start_server`] with `env` added to the server's environment.
fn start_server_with(env: &[(&str, &Path)]) -> Server {
    let dir = std::env::temp_dir().join(format!("hooks-bench-agent-{}", std::process::id()));
    let token_file = dir.join("serve-token");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(&token_file)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hooks serve starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("its log"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("its first line");
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the address it listens on")
        .to_owned();
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let token = std::fs::read_to_string(&token_file)
        .expect("the token")
        .trim()
        .to_owned();
    Server {
        child,
        address,
        token,
    }
}

/// A keep-alive connection to the server, posting Claude Code's PreToolUse event.
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    request: Vec<u8>,
    /// The body of the last reply.
    body: Vec<u8>,
}

impl Client {
    fn new(server: &Server, project: &Path, config: &str) -> Self {
        let writer = TcpStream::connect(&server.address).expect("connects");
        writer.set_nodelay(true).expect("no delay");
        let reader = BufReader::new(writer.try_clone().expect("a second handle"));
        let request = format!(
            "POST /claude?config={config} HTTP/1.1\r\nHost: localhost\r\n\
             Authorization: Bearer {}\r\nX-Hooks-Project: {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{INPUT}",
            server.token,
            project.display(),
            INPUT.len()
        )
        .into_bytes();
        Client {
            reader,
            writer,
            request,
            body: Vec::new(),
        }
    }

    /// One decision: the request written, the whole reply read; its status.
    fn decide(&mut self) -> u16 {
        self.writer.write_all(&self.request).expect("sends");
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("a status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .expect("a status");
        let mut length = 0;
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("a header");
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a length");
            }
        }
        self.body.resize(length, 0);
        self.reader.read_exact(&mut self.body).expect("the body");
        status
    }
}

fn served_decision(c: &mut Criterion) {
    let starter = hooks_file("starter.yaml", STARTER);
    let project = starter.parent().expect("its directory").to_path_buf();
    let server = start_server();
    let mut client = Client::new(&server, &project, "starter.yaml");
    assert_eq!(client.decide(), 200, "the server decides");
    let mut group = c.benchmark_group("agent_hook");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("hooks_serve_keep_alive/safety_redaction_logging", |b| {
        b.iter(|| client.decide());
    });
    group.finish();
}

/// Decisions per second and latency percentiles of `hooks serve` with the starter policy,
/// from `clients` keep-alive connections at once, each making `calls` decisions.
fn served_throughput(clients: usize, calls: usize) {
    let starter = hooks_file("starter.yaml", STARTER);
    let project = starter.parent().expect("its directory").to_path_buf();
    let server = start_server();
    let started = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..clients)
            .map(|_| {
                let project = &project;
                let server = &server;
                scope.spawn(move || {
                    let mut client = Client::new(server, project, "starter.yaml");
                    (0..calls)
                        .map(|_| {
                            let call = Instant::now();
                            assert_eq!(client.decide(), 200);
                            call.elapsed()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a client"))
            .collect()
    });
    let elapsed = started.elapsed();
    latencies.sort();
    let at = |share: f64| {
        latencies[((latencies.len() as f64 * share) as usize).min(latencies.len() - 1)]
    };
    println!(
        "hooks_serve throughput: {clients} clients x {calls} decisions in {:.2} s: {:.0} decisions/s, \
         p50 {:?}, p99 {:?}, max {:?}",
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        at(0.50),
        at(0.99),
        latencies[latencies.len() - 1],
    );
}

/// The filler functions of the WebAssembly hooks served, besides their two exports.
#[cfg(feature = "wasm")]
const WASM_SIZES: &[usize] = &[0, 1_000, 5_000];

/// A hook that lets every call through, with `functions` filler functions, written beside the
/// other hooks files with a hooks file naming it as the one `PreToolUse` hook; the hooks file.
#[cfg(feature = "wasm")]
fn wasm_hooks_file(functions: usize) -> PathBuf {
    let component = guests::guest(
        &guests::answer(guests::CONTINUE, None),
        &guests::filler(functions),
    );
    let name = format!("wasm-{functions}");
    let file = hooks_file(
        &format!("{name}.yaml"),
        &format!("hooks:\n  PreToolUse:\n    - type: wasm\n      path: {name}.wasm\n"),
    );
    let dir = file.parent().expect("its directory");
    std::fs::write(dir.join(format!("{name}.wasm")), component).expect("writes the component");
    file
}

/// One server holding the three components, a keep-alive client for each; the floor and
/// `hooks claude` per process with each component (its compiled code in the disk cache, as
/// for an agent's guard after its first event), in the same run.
#[cfg(feature = "wasm")]
fn served_wasm_by_size(c: &mut Criterion) {
    let hooks = Path::new(env!("CARGO_BIN_EXE_hooks"));
    let files: Vec<(usize, PathBuf)> = WASM_SIZES
        .iter()
        .map(|&functions| (functions, wasm_hooks_file(functions)))
        .collect();
    let project = files[0].1.parent().expect("its directory").to_path_buf();
    let cache = project.join("wasm-cache");
    let env = [("HOOKS_WASM_CACHE", cache.as_path())];
    let server = start_server_with(&env);
    let mut group = c.benchmark_group("agent_hook_wasm");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("spawn_floor/bin_true", |b| {
        b.iter(|| run(Path::new("/bin/true"), &[]));
    });
    for (functions, file) in &files {
        let name = file.file_name().and_then(|n| n.to_str()).expect("a name");
        let mut client = Client::new(&server, &project, name);
        // The first call loads the component; the calls measured find it loaded.
        assert_eq!(client.decide(), 200, "the server decides with {name}");
        let body = String::from_utf8_lossy(&client.body).into_owned();
        assert!(
            !body.contains("deny"),
            "the component lets the call through: {body}"
        );
        group.bench_function(format!("hooks_serve_keep_alive/wasm_{functions}"), |b| {
            b.iter(|| client.decide());
        });
        let config = file.to_str().expect("a UTF-8 path");
        // Fills the disk cache, as an agent's first event does.
        let mut child = Command::new(hooks)
            .args(["claude", "--config", config])
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hooks claude starts");
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(INPUT.as_bytes()).expect("the event");
        }
        let first = child.wait_with_output().expect("hooks claude answers");
        assert!(
            first.status.success() && !String::from_utf8_lossy(&first.stdout).contains("deny"),
            "hooks claude lets the call through with {name}: {first:?}"
        );
        group.bench_function(format!("hooks_claude/wasm_{functions}"), |b| {
            b.iter(|| run_with(hooks, &["claude", "--config", config], &env));
        });
    }
    group.finish();
}

#[cfg(not(feature = "wasm"))]
criterion_group!(benches, claude_hook_versus_spawn_floor, served_decision);
#[cfg(feature = "wasm")]
criterion_group!(
    benches,
    claude_hook_versus_spawn_floor,
    served_decision,
    served_wasm_by_size
);

/// The median of `times`, which it sorts.
#[cfg(feature = "wasm")]
fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The WebAssembly hooks at each size side by side, interleaved so that the machine's load
/// falls on each alike: every round spawns `/bin/true` once, runs `hooks claude` once with each
/// component, and makes `block` served decisions with each; the medians printed, with their
/// ratios to the floor.
#[cfg(feature = "wasm")]
fn served_wasm_interleaved(rounds: usize, block: usize) {
    let hooks = Path::new(env!("CARGO_BIN_EXE_hooks"));
    let files: Vec<(usize, PathBuf)> = WASM_SIZES
        .iter()
        .map(|&functions| (functions, wasm_hooks_file(functions)))
        .collect();
    let project = files[0].1.parent().expect("its directory").to_path_buf();
    let cache = project.join("wasm-cache");
    let env = [("HOOKS_WASM_CACHE", cache.as_path())];
    let server = start_server_with(&env);
    let mut sizes: Vec<_> = files
        .iter()
        .map(|(functions, file)| {
            let name = file.file_name().and_then(|n| n.to_str()).expect("a name");
            let mut client = Client::new(&server, &project, name);
            assert_eq!(client.decide(), 200, "the server decides with {name}");
            let config = file.to_str().expect("a UTF-8 path").to_owned();
            run_with(hooks, &["claude", "--config", &config], &env);
            (*functions, client, config, Vec::new(), Vec::new())
        })
        .collect();
    let mut floor = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        run(Path::new("/bin/true"), &[]);
        floor.push(started.elapsed());
        for (_, client, config, served, per_process) in &mut sizes {
            let started = Instant::now();
            run_with(hooks, &["claude", "--config", config], &env);
            per_process.push(started.elapsed());
            for _ in 0..block {
                let started = Instant::now();
                assert_eq!(client.decide(), 200);
                served.push(started.elapsed());
            }
        }
    }
    let floor = median(&mut floor);
    println!(
        "wasm by size, interleaved: {rounds} rounds, {block} served decisions a round; \
         /bin/true median {floor:?}"
    );
    for (functions, _, _, served, per_process) in &mut sizes {
        let (served, per_process) = (median(served), median(per_process));
        println!(
            "wasm {functions:>5} filler functions: served median {served:?} ({:.3}x the floor), \
             hooks claude per process {per_process:?} ({:.2}x), per process / served {:.0}",
            served.as_secs_f64() / floor.as_secs_f64(),
            per_process.as_secs_f64() / floor.as_secs_f64(),
            per_process.as_secs_f64() / served.as_secs_f64(),
        );
    }
}

fn main() {
    benches();
    served_throughput(8, 2_000);
    #[cfg(feature = "wasm")]
    served_wasm_interleaved(300, 50);
    Criterion::default().configure_from_args().final_summary();
}
