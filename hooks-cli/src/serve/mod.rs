//! `hooks serve`: the guard as one long-lived process answering the agents' HTTP hooks
//! (`POST /<agent>` with the event JSON, for every agent of
//! [`AGENTS`](hooks_config::interop::AGENTS)), with the decision `hooks <agent>` gives for the
//! same event and hooks file: both go through [`crate::adapter`].
//!
//! Each request is routed by its project directory (the `X-Hooks-Project` header, else the
//! event's `cwd`) to that project's hooks file (`hooks.yaml`, or `?config=FILE`), kept loaded
//! and reloaded when it changes ([`policies`]). Session state is kept where `hooks <agent>`
//! keeps it (`$HOOKS_STATE_DIR`, else the XDG state directory), so that a session's hooks and
//! its "… always" answers are the same whichever of the two answers it.
//!
//! Security: it listens on loopback, or on another address only with TLS (`--tls-cert`,
//! `--tls-key`: a token sent in clear over a network is no token); every request but `/health`
//! needs the bearer token of the token file; bodies are limited in size and in the time they
//! take to arrive, headers (and the wait for them on a silent or idle connection) in the time
//! they take; anything malformed gets a 4xx status. At most `--max-connections` are served at
//! once; one more gets 503, never a wait or a guessed decision. `/health` says "ok" and the
//! version, and more only with the token.
//!
//! `--install` and `--uninstall` write and remove a user service that runs the server
//! ([`service`]).
//!
//! `hooks serve --ensure` starts the server in the background unless one answers on the
//! address already (the `SessionStart` hook of `hooks init --serve`). SIGTERM or Ctrl-C stops
//! accepting connections and lets the calls in flight finish.
//!
//! With a hooks file mounting `telemetry`, the spans are exported in batches by the exporter's
//! own thread (`OTEL_BSP_SCHEDULE_DELAY`, 5 s by default): a decision never waits for the
//! collector. What is still batched when the server stops is exported before it exits.

mod handler;
mod policies;
pub mod reply;
pub mod service;
pub mod status;
#[cfg(feature = "serve-tls")]
mod tls;
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
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::sync::Semaphore;

use handler::Server;
use token::Token;

/// The address `hooks serve` listens on by default (the guard keeps its port from the agent:
/// [`protection`](crate::protection), which holds it in every build).
pub const DEFAULT_LISTEN: &str = crate::protection::SERVE_LISTEN;

/// The most connections `hooks serve` serves at once by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;

/// How long the calls in flight get to finish after SIGTERM.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// `hooks serve`'s arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The address to listen on and its port: loopback (127.0.0.1, ::1), or another address
    /// with `--tls-cert` and `--tls-key`.
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Serve HTTPS with the certificate chain in this PEM file (required on an address other
    /// than loopback).
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of `--tls-cert`.
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
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
    /// The most connections served at once; one more is answered 503 (a block under
    /// `onFailure: "block"`), never a guessed decision. An idle keep-alive connection holds
    /// its place until `--read-timeout` closes it.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Start the server in the background unless one answers on `--listen`, then exit; its
    /// log goes to `serve.log` beside the default token file.
    #[arg(long, conflicts_with = "service")]
    pub ensure: bool,
    /// Write a user service that runs `hooks serve` with these arguments at each login (a
    /// systemd user unit; a launchd agent on macOS), and say how to start it.
    #[arg(long, group = "service")]
    pub install: bool,
    /// Remove the user service `--install` wrote.
    #[arg(long, group = "service")]
    pub uninstall: bool,
    /// With `--install` or `--uninstall`: print the file and what it would say, change
    /// nothing.
    #[arg(long, requires = "service")]
    pub dry_run: bool,
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
    let tls = args.tls_cert.is_some() && args.tls_key.is_some();
    if !args.listen.ip().is_loopback() && !tls {
        return Err(format!(
            "{}: not a loopback address, and no TLS: the token would cross the network in \
             clear. Listen on loopback (127.0.0.1 or ::1), or give --tls-cert and --tls-key",
            args.listen
        ));
    }
    #[cfg(not(feature = "serve-tls"))]
    if tls {
        return Err("this build of `hooks` has no TLS (the `serve-tls` feature)".into());
    }
    if args.ensure && tls {
        return Err(
            "--ensure checks for a server over plain HTTP on loopback; run a server with TLS \
             as a service (--install)"
                .into(),
        );
    }
    let token_file = match args.token_file.clone().or_else(token::default_file) {
        Some(file) => file,
        None => return Err("no --token-file, and neither XDG_STATE_HOME nor HOME is set".into()),
    };
    if args.ensure {
        return ensure(&args, &token_file);
    }
    if args.install || args.uninstall {
        return user_service(&args, &token_file);
    }
    let token = Token::from_file(&token_file)?;
    if args.max_connections == 0 {
        return Err("--max-connections must be at least 1".into());
    }
    let server = Arc::new(Server {
        token,
        policies: policies::Policies::new(hooks_config::LayerPaths::from_env()),
        max_body: args.max_body,
        read_timeout: Duration::from_secs(args.read_timeout),
    });
    let tls = match (&args.tls_cert, &args.tls_key) {
        #[cfg(feature = "serve-tls")]
        (Some(cert), Some(key)) => Some(tls::acceptor(cert, key)?),
        _ => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    let served = runtime.block_on(listen(args.listen, server, args.max_connections, tls));
    // The telemetry exports in batches in the background while the server runs; what is
    // still batched at the end goes out before the process does (within the telemetry's
    // timeout), as `hooks <agent>` exports its one event's spans.
    crate::modules::flush_telemetry();
    served
}

/// The TLS acceptor, when the server has TLS.
#[cfg(feature = "serve-tls")]
type Tls = tokio_rustls::TlsAcceptor;

/// No TLS in this build.
#[cfg(not(feature = "serve-tls"))]
type Tls = std::convert::Infallible;

/// Accepts connections until SIGTERM or Ctrl-C, then waits for the calls in flight.
///
/// At most `max_connections` are served at once; as many more are answered 503 and closed
/// (each within the read timeout); past those, a connection is closed unanswered. Either way
/// the agent's hook fails, which `onFailure: "block"` makes a block.
async fn listen(
    address: SocketAddr,
    server: Arc<Server>,
    max_connections: usize,
    tls: Option<Tls>,
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    let bound = listener
        .local_addr()
        .map_err(|error| format!("cannot read the bound address: {error}"))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    eprintln!(
        "hooks serve: listening on {scheme}://{bound} (hooks {})",
        env!("CARGO_PKG_VERSION")
    );
    let served = Arc::new(Semaphore::new(max_connections));
    let refused = Arc::new(Semaphore::new(max_connections));
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
        let (place, serving) = if let Ok(place) = Arc::clone(&served).try_acquire_owned() {
            (place, Some(Arc::clone(&server)))
        } else if let Ok(place) = Arc::clone(&refused).try_acquire_owned() {
            eprintln!("hooks serve: 503 over the limit of {max_connections} connections at once");
            (place, None)
        } else {
            drop(stream);
            continue;
        };
        let watcher = graceful.watcher();
        let read_timeout = server.read_timeout;
        // A copy for the task (an `Infallible` in a build without TLS).
        #[allow(clippy::clone_on_copy)]
        let tls = tls.clone();
        tokio::spawn(async move {
            match tls {
                None => connection(stream, serving, read_timeout, watcher).await,
                #[cfg(feature = "serve-tls")]
                Some(tls) => {
                    // A handshake gets the time a request's headers get.
                    if let Ok(Ok(stream)) =
                        tokio::time::timeout(read_timeout, tls.accept(stream)).await
                    {
                        connection(stream, serving, read_timeout, watcher).await;
                    }
                }
                #[cfg(not(feature = "serve-tls"))]
                Some(never) => match never {},
            }
            drop(place);
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

/// Serves the HTTP/1 connection on `io` until it closes: with `server`, or with 503 to each
/// request when it is `None` (over the limit of connections).
async fn connection<I>(io: I, server: Option<Arc<Server>>, read_timeout: Duration, watcher: Watcher)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(read_timeout);
    let io = TokioIo::new(io);
    match server {
        Some(server) => {
            let service = service_fn(move |request| handler::handle(Arc::clone(&server), request));
            let _ = watcher.watch(builder.serve_connection(io, service)).await;
        }
        None => {
            let refusal = builder
                .keep_alive(false)
                .serve_connection(io, service_fn(handler::busy));
            let _ = watcher.watch(refusal).await;
        }
    }
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

/// The arguments that run the server as `args` asks, binary first: what `--ensure` starts
/// and a user service runs.
fn server_command(args: &ServeArgs, token_file: &std::path::Path) -> Result<Vec<String>, String> {
    let binary = crate::init::this_binary()
        .map_err(|error| format!("cannot find this binary to start it: {error}"))?;
    let text = |path: &std::path::Path| {
        path.to_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{}: not a UTF-8 path", path.display()))
    };
    let mut command = vec![
        text(&binary)?,
        "serve".to_owned(),
        "--listen".to_owned(),
        args.listen.to_string(),
        "--token-file".to_owned(),
        text(token_file)?,
        "--max-body".to_owned(),
        args.max_body.to_string(),
        "--read-timeout".to_owned(),
        args.read_timeout.to_string(),
        "--max-connections".to_owned(),
        args.max_connections.to_string(),
    ];
    if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
        command.extend([
            "--tls-cert".to_owned(),
            text(cert)?,
            "--tls-key".to_owned(),
            text(key)?,
        ]);
    }
    Ok(command)
}

/// `--install`, `--uninstall`, with or without `--dry-run`.
fn user_service(args: &ServeArgs, token_file: &std::path::Path) -> Result<(), String> {
    let manager = service::Manager::here();
    let homes = service::Homes::from_env();
    if args.uninstall {
        if args.dry_run {
            println!("would remove {}", homes.file(manager)?.display());
        } else {
            print!("{}", service::uninstall(manager, &homes)?);
        }
        return Ok(());
    }
    let command = server_command(args, token_file)?;
    let log = token_file.with_file_name("serve.log");
    let service = service::service(manager, &homes, &command, &log)?;
    if args.dry_run {
        print!("would write {}:\n{}", service.file.display(), service.text);
    } else {
        print!("{}", service::install(&service)?);
    }
    Ok(())
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
    let command = server_command(args, token_file)?;
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
    let (binary, rest) = command
        .split_first()
        .ok_or("no command to start the server with")?;
    let mut command = std::process::Command::new(binary);
    command
        .args(rest)
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
