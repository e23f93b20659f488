//! `hooks serve`: the guard as one long-lived process answering the agents' HTTP hooks
//! (`POST /<agent>` with the event JSON, for every agent of
//! [`AGENTS`](hooks_config::interop::AGENTS)), with the decision `hooks <agent>` gives for the
//! same event and hooks file: both go through [`crate::adapter`].
//!
//! Each request is routed by its project directory (the `X-Hooks-Project` header, else the
//! event's `cwd`) to that project's hooks file (`hooks.yaml`, or `?config=FILE`), kept loaded
//! and reloaded when it changes ([`policies`]). Session state is kept in memory.
//!
//! Security: it listens on loopback only (a non-loopback address is refused: this server has
//! no TLS, and a token sent in clear over a network is no token); every request but `/health`
//! needs the bearer token of the token file; bodies are limited in size and in the time they
//! take to arrive, headers in the time they take; anything malformed gets a 4xx status.
//! `/health` says "ok" and the version, and more only with the token.
//!
//! `hooks serve --ensure` starts the server in the background unless one answers on the
//! address already (the `SessionStart` hook of `hooks init --serve`). SIGTERM or Ctrl-C stops
//! accepting connections and lets the calls in flight finish.

mod handler;
mod policies;
pub mod reply;
mod token;

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;

use handler::Server;
use token::Token;

/// The address `hooks serve` listens on by default.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8787";

/// How long the calls in flight get to finish after SIGTERM.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// `hooks serve`'s arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The address to listen on: a loopback address (127.0.0.1, ::1) and a port.
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// The file holding the bearer token; created with a random token when missing
    /// (default: `$XDG_STATE_HOME/hooks/serve-token`, else `~/.local/state/hooks/serve-token`).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// The largest request body accepted, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_body: usize,
    /// Seconds a client has to send a request's headers, and then its body: a slow or
    /// half-open client is cut off.
    #[arg(long, default_value_t = 10)]
    pub read_timeout: u64,
    /// Start the server in the background unless one answers on `--listen`, then exit; its
    /// log goes to `serve.log` beside the default token file.
    #[arg(long)]
    pub ensure: bool,
}

/// Runs `hooks serve`.
pub fn run(args: ServeArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("hooks serve: {problem}");
            ExitCode::from(1)
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), String> {
    if !args.listen.ip().is_loopback() {
        return Err(format!(
            "{}: not a loopback address. `hooks serve` has no TLS, and the token would cross \
             the network in clear, so it listens on loopback only (127.0.0.1 or ::1)",
            args.listen
        ));
    }
    let token_file = match args.token_file.clone().or_else(token::default_file) {
        Some(file) => file,
        None => return Err("no --token-file, and neither XDG_STATE_HOME nor HOME is set".into()),
    };
    if args.ensure {
        return ensure(&args, &token_file);
    }
    let token = Token::from_file(&token_file)?;
    let server = Arc::new(Server {
        token,
        policies: policies::Policies::default(),
        max_body: args.max_body,
        read_timeout: Duration::from_secs(args.read_timeout),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    runtime.block_on(listen(args.listen, server))
}

/// Accepts connections until SIGTERM or Ctrl-C, then waits for the calls in flight.
async fn listen(address: SocketAddr, server: Arc<Server>) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    let bound = listener
        .local_addr()
        .map_err(|error| format!("cannot read the bound address: {error}"))?;
    eprintln!(
        "hooks serve: listening on http://{bound} (hooks {})",
        env!("CARGO_PKG_VERSION")
    );
    let graceful = GracefulShutdown::new();
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let (stream, _) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: wait instead of spinning.
                eprintln!("hooks serve: cannot accept a connection: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // Small requests and replies: sent at once, not held back for more.
        let _ = stream.set_nodelay(true);
        let server = Arc::clone(&server);
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(server.read_timeout)
            .serve_connection(
                TokioIo::new(stream),
                service_fn(move |request| handler::handle(Arc::clone(&server), request)),
            );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
    drop(listener);
    eprintln!("hooks serve: stopping; finishing the calls in flight");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_TIMEOUT) => {
            eprintln!("hooks serve: calls still open after {} s, stopped anyway", DRAIN_TIMEOUT.as_secs());
        }
    }
    eprintln!("hooks serve: stopped");
    Ok(())
}

/// Resolves on SIGTERM or Ctrl-C.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Whether a `hooks serve` answers `/health` on `address`.
pub fn answers(address: SocketAddr) -> bool {
    let probe = || -> std::io::Result<String> {
        let mut stream = TcpStream::connect_timeout(&address, Duration::from_millis(500))?;
        stream.set_read_timeout(Some(Duration::from_secs(2)))?;
        stream
            .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
        let mut text = String::new();
        stream.read_to_string(&mut text)?;
        Ok(text)
    };
    probe().is_ok_and(|text| text.starts_with("HTTP/1.1 200") && text.contains("ok hooks "))
}

/// `--ensure`: starts `hooks serve` in the background, in a process group of its own (it
/// outlives the hook that started it), unless one answers already; waits until it does.
/// Nothing goes to stdout, which a `SessionStart` hook's agent would read as context.
fn ensure(args: &ServeArgs, token_file: &std::path::Path) -> Result<(), String> {
    if answers(args.listen) {
        return Ok(());
    }
    let binary = std::env::current_exe()
        .map_err(|error| format!("cannot find this binary to start it: {error}"))?;
    let log_file = token_file.with_file_name("serve.log");
    if let Some(dir) = log_file.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_file)
        .map_err(|error| format!("cannot open the log {}: {error}", log_file.display()))?;
    let mut command = std::process::Command::new(binary);
    command
        .arg("serve")
        .arg("--listen")
        .arg(args.listen.to_string())
        .arg("--token-file")
        .arg(token_file)
        .arg("--max-body")
        .arg(args.max_body.to_string())
        .arg("--read-timeout")
        .arg(args.read_timeout.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot start `hooks serve`: {error}"))?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if answers(args.listen) {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "`hooks serve` exited ({status}) before answering; see {}",
                log_file.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!(
        "`hooks serve` did not answer on {} within 10 s; see {}",
        args.listen,
        log_file.display()
    ))
}
