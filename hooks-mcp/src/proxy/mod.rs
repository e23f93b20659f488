//! A guarding MCP proxy: an MCP server of its own to the client, an MCP client to the real
//! server, and every `tools/call` between them run through the hook pipeline's tool-call gate,
//! exactly as [`HookedServer`](crate::HookedServer) gates a server written in Rust.
//!
//! ```no_run
//! # async fn run() -> Result<(), hooks_mcp::proxy::ProxyError> {
//! use hooks_core::HookRegistry;
//! use hooks_mcp::proxy::McpProxy;
//!
//! let registry = HookRegistry::new(); // a hooks file mounted on it, say
//! let command = ["npx", "-y", "@modelcontextprotocol/server-everything"];
//! McpProxy::builder(registry, "everything").build().serve_command(&command).await
//! # }
//! ```
//!
//! # What passes, and what is gated
//!
//! | from the client | what the proxy does |
//! |---|---|
//! | `initialize` | starts the server's session with the client's own `initialize` (its capabilities, its `clientInfo`, its protocol version) and answers with the server's (its capabilities, `serverInfo`, instructions); see [protocol eras](#protocol-eras) for a server of the 2026-07-28 era |
//! | `server/discover` (a client of the 2026-07-28 era) | starts the server's session in the name of the client its `_meta` describes, and answers with the server's capabilities, `serverInfo` and instructions, and every protocol version (the proxy speaks both eras) |
//! | `tools/call` | `tool:pre` with `tool_name` = `mcp__<server>__<tool>` (the name Claude Code gives the tool, so that one rule works in both places) and `tool_input` = the parsed `arguments`; then, unless blocked, the call goes to the server with the arguments as the hooks left them; then `tool:post` (or `tool:error`) with the result |
//! | every other request (`tools/list`, resources, prompts, completions, ...) and notification | forwarded to the server unchanged; the answer comes back unchanged |
//!
//! Requests and notifications of the server (elicitation, sampling, roots, logging, progress,
//! list changes) go to the client unchanged, and the client's answers go back, with one
//! exception: a **form elicitation that asks for a password, a key or a token** (a field whose
//! name, title or description says so) is refused with an error to the server and never
//! reaches the client, as the protocol forbids asking for secrets in a form (a URL
//! elicitation passes). Cancellation
//! travels both ways: a request the client cancels is cancelled at the server.
//!
//! The outcomes of the gate are answered as [`HookedServer`](crate::HookedServer) answers them
//! (see the crate docs): a **deny** is a tool result with `isError: true` giving the reason, and
//! the server never sees the call; a **modify** sends the rewritten arguments; a `tool:post`
//! modify rewrites the result. Every event carries `mcp_server` (the server's name as above).
//!
//! # Asking the user
//!
//! An `ask_user` on `tool:pre` is put to the client as a form elicitation that names the exact
//! call: the tool, its arguments and the hook's question.
//!
//! - On a session opened with `initialize`, it is an `elicitation/create` request, and the call
//!   waits for the answer. Accepting lets that one call proceed (the grant is not remembered:
//!   the next call is asked again); declining, cancelling, the hook's timeout or a failed
//!   request decide by the hook's default, deny unless it said allow.
//! - On a 2026-07-28 session, the call is answered with `input_required`: the elicitation
//!   under the key `hooks-proxy/approval`, and a request state naming a grant the proxy keeps,
//!   bound to the tool, a SHA-256 digest of the arguments and a digest of the question (the
//!   hook, the event, the question and its options). The call does not reach the server. The
//!   client's retry carrying the state and the user's acceptance lets exactly that call
//!   through, once; a retry with other arguments, for another tool, under another question, or
//!   with a state already used (or never issued, or older than 15 minutes) is denied whatever
//!   the hook's default, and the grant is spent. The server never sees the proxy's question,
//!   answer or state; a call that carried the server's own request state and answers gets
//!   them back on the retry.
//!
//! A client that did not declare the `elicitation` capability (in `initialize`, or in the
//! request's `_meta` on a 2026-07-28 session) cannot be asked: the call is denied, and the
//! reason tells the agent what would have been asked.
//!
//! # Protocol eras
//!
//! Clients and servers of both eras are served: the **handshake era** (every revision up to
//! 2025-11-25, a session opened by `initialize`) and the **stateless era** (2026-07-28: no
//! `initialize`, an optional `server/discover`, the version and the client's capabilities in
//! each request's `_meta`, `resultType` on results, asking by `input_required`). The client's
//! era is its session's; the server's is settled once, when its session opens (at the client's
//! `initialize`, or at a stateless client's first request):
//!
//! 1. the proxy asks the server `server/discover`, as the 2026-07-28 revision tells a client of
//!    both eras to do on stdio;
//! 2. a server that lists 2026-07-28 is used in that era, unless the client is of the handshake
//!    era and the server also lists a handshake version (the same era on both sides: nothing
//!    to translate);
//! 3. otherwise (the server refuses `server/discover`, or lists no 2026-07-28, or is silent for
//!    10 s) the server's session is opened with `initialize`: the client's own, or, for a
//!    stateless client, one in its name. A slow server of the new era that answers the
//!    discovery after all is still taken in its era.
//!
//! What the proxy translates: a handshake client of a stateless server gets an `initialize`
//! answer made from the server's discovery, and the proxy's requests carry the client's
//! identity and capabilities in their `_meta`; a stateless client of a handshake server gets a
//! discovery made from the server's `initialize` answer, its requests reach the server without
//! the stateless lifecycle keys in their `_meta`, and its results get `resultType` and cache
//! hints. The gate, the pins and the limits are the same on every path: a call is checked when
//! it is made, whatever was listed.
//!
//! A stateless server's `input_required` answer to a handshake client's `tools/call` is
//! answered by the proxy: each of the server's input requests is put to the client as the
//! request it stands for (`elicitation/create`, `sampling/createMessage`, `roots/list`), a form
//! that asks for a secret refused as a server's own request is, and the call is retried at the
//! server with the client's answers (`inputResponses`) and the server's `requestState`, for at
//! most 10 rounds. The hooks see one call, and its final result. A client that did not declare
//! the capability a request needs gets an error result saying what the server asked, and the
//! server is not called again.
//!
//! Not translated: a request of a handshake server to a stateless client mid-call (an
//! `elicitation/create`) gets an error, as the new protocol has no such request; the server
//! then carries on or fails the call as it sees fit. Translating it would mean answering the
//! client's call with `input_required` while the server's call is still running, and holding
//! that call open until the client retries, which the proxy does not do (a stateless client
//! may retry anywhere, or never). An `input_required` answer to `prompts/get` or
//! `resources/read` reaches a handshake client as it is. A server of the handshake era built on an SDK that ends its connection on a request
//! before `initialize` cannot be proxied (the same holds for any client of both eras).
//!
//! # Limits
//!
//! - **Deadline**: every request forwarded to the server must be answered within the call
//!   timeout ([`DEFAULT_CALL_TIMEOUT`], 30 s, unless set); after it the request is cancelled
//!   at the server and the client gets an error saying so. The server's own start
//!   (`initialize`) has the same deadline. Requests of the server to the client (an
//!   elicitation waits for a person) have none of the proxy's.
//! - **Size**: a message (one line) of more than [`DEFAULT_MAX_MESSAGE_BYTES`] (4 MiB, unless
//!   set) from either side is dropped as it comes, never buffered or forwarded, and logged.
//!   Its sender is told when the message has an id in its first 4 KiB (as every SDK writes
//!   them): a request over the limit is answered with an error, and a response over the
//!   limit ends the request it answers with an error (so a server's oversized result reaches
//!   the client as an error). A notification over the limit is only dropped.
//! - **A server that exits or crashes**: the calls in flight, and every request after them,
//!   are answered with an error saying that the server's connection closed.
//! - **A client that leaves** (its connection ends) mid-call: on stdio, the calls it had in
//!   flight are cancelled at the server (`notifications/cancelled`) as the proxy closes, and
//!   the server's connection is closed after them.
//!
//! Nothing is let through on a failure: a call that cannot be gated, forwarded or answered
//! ends in an error, never in a forwarded call the hooks did not clear.
//!
//! # Pinning
//!
//! With [`McpProxyBuilder::pins`] (which `hooks mcp-proxy` always sets: the pins live in
//! `.hooks/mcp-pins/` beside the hooks file), the server's first `tools/list` is pinned: each
//! tool's name, title, description, input and output schemas and annotations (see [`pins`]).
//! From then on a tool whose listing differs from its pin (a changed description, a schema,
//! an annotation that turns a destructive tool "read-only"), a tool that appears after the
//! pins were taken, and a tool whose definition reads like an instruction to the model (tool
//! poisoning) is **held back** until the user approves it (`hooks mcp pins` shows the diff,
//! `hooks mcp approve <server>` trusts it):
//!
//! - it is left out of the `tools/list` answers the client gets, so its text never reaches
//!   the model;
//! - a `tools/call` of it is answered with an `isError` result naming the command that
//!   approves it, and never reaches the server. This is the enforcement: the call is checked
//!   against the last listing the proxy saw, and a tool the proxy has not seen listed in the
//!   session (the client called it straight away, or the server announced a list change) is
//!   first looked up in a listing of its own; a tool the server does not list is refused.
//!
//! Annotations are trusted only once pinned: a tool whose annotations are not the pinned ones
//! is held back like any other change. Pins that cannot be read or written hold back every
//! tool. An approval given while the proxy runs counts from the next call.
//!
//! # Transports
//!
//! stdio on both sides by default ([`McpProxy::serve_command`], [`McpProxy::serve`]). There,
//! once the server's session is open, the proxy carries each `tools/call` and its answer as
//! JSON-RPC lines of its own, beside rmcp (which carries every other message), for speed: the
//! gate, the pins, the asks, the deadline, the size limit, cancellation and progress are the
//! same. What a server sees of it: the ids of those requests are strings starting with
//! `hooks-proxy/` (a server must take string ids, as JSON-RPC and MCP allow), and a progress
//! token the client set is replaced by one of the proxy's, put back on the server's progress
//! as it reaches the client.
//!
//! With the crate's `http` feature (which `hooks mcp-proxy` has), streamable HTTP on either
//! side or both:
//!
//! - **To the server** (`--upstream URL`, `McpProxy::serve_url`, `Upstream::Url`): rmcp's
//!   streamable-HTTP client; a POST per message, answers as JSON or as an SSE stream, the
//!   server's `Mcp-Session-Id` kept. The size limit applies to a JSON answer and to each event
//!   of a stream: one over it ends the request it answers with an error. A server that cannot
//!   be reached is reported to the client as unavailable at `initialize`, within the deadline.
//! - **To the client** (`--listen ADDR`, `McpProxy::serve_http`): one endpoint,
//!   `MCP_PATH`. A client opens a session with `initialize` (answered with an
//!   `Mcp-Session-Id`), POSTs its messages (a request is answered on an SSE stream, which also
//!   carries the server's requests and progress while it is open), may GET a stream for the
//!   rest, and DELETEs its session. **Each client session is a proxy session of its own with a
//!   server of its own** (the command started again, or a session of its own at the URL);
//!   they share the hooks' state and the pins. Before a message is read, a request whose
//!   `Origin` is not a page of this machine is refused (403), and on a loopback listener so is
//!   a `Host` that is not a loopback name (403; DNS rebinding). A body over the size limit is
//!   refused with 413 and a JSON-RPC error, a body that is not one JSON-RPC message with 400
//!   and a parse error, a message without a session other than `initialize` (or a request
//!   of the stateless era, below) with 400, an unknown session with 404: none reaches the
//!   gate or the server. The listener must be on a loopback address unless
//!   [`McpProxyBuilder::allow_remote_clients`] is set (`hooks mcp-proxy
//!   --allow-remote-clients`).
//! - **Stateless clients over HTTP** (2026-07-28): a client of that era opens no session; it
//!   POSTs each request on its own, without `Mcp-Session-Id`, its version, identity and
//!   capabilities in the request's `_meta` (a `server/discover`, or any request whose `_meta`
//!   names a version without `initialize`). Each is answered on its POST's SSE stream, which
//!   ends with the answer, and no session id is given. **Every such request goes through one
//!   relay shared by all stateless clients, with one server**: the era has no session to
//!   tell two clients apart by, only what each claims in its `_meta`, and a server of its
//!   own per claim would let a client start servers at will. The shared server's session
//!   opens at the first such request, in the name of the client that sent it (a server of
//!   the handshake era is initialized with that client's identity and capabilities; one of
//!   the stateless era gets each request's own `_meta`). The gate, the pins, the limits and
//!   the asks (`input_required`, grants) are those of any session. The server's
//!   notifications (progress, list changes) do not reach stateless HTTP clients, and a
//!   server that ends takes the stateless path with it until the proxy restarts.
//!
//! Limits of the HTTP transports: the proxy asks no authentication of its HTTP clients and
//! sends none to an upstream server (no OAuth, no header of the user's), so a server that
//! needs it is out of reach and a listener should stay on loopback; it serves HTTP/1.1 only,
//! without TLS; sessions live in memory (a restarted proxy forgets them, and its clients open
//! new ones); an SSE stream is not resumed (`Last-Event-ID`) and sends no keep-alive comments;
//! JSON-RPC batches are refused. A server's request (an elicitation, say) made while exactly
//! one request of the client is in flight travels on that request's SSE stream; made while
//! several are, the server does not say which it belongs to, and it travels on the client's
//! GET stream.
//!
//! # Tracing
//!
//! Each `tools/call` is a span of its own, `tools/call <tool>` (kind server, as
//! OpenTelemetry's MCP conventions name it), around the gate's spans of the call (see
//! `hooks_core::trace`) and the request forwarded to the server. When the request's `_meta`
//! carries a W3C `traceparent` (and `tracestate`), the span is that context's child; a
//! `traceparent` that is not a valid W3C one is ignored (the call starts a new trace), never
//! an error. The request forwarded to the server carries a `traceparent` naming the proxy's
//! span, so that the server's spans nest under it. The spans are exported by an exporter that
//! installs a carrier of trace context in `hooks-core` (the `telemetry` module of
//! `hooks-otel`); without one, nothing is recorded and the client's `_meta` reaches the server
//! as it came.
//!
//! # Redaction
//!
//! The `redaction` module acts on the events it is mounted on: on `tool:post` (by default) it
//! masks secrets in the results coming back; mounted on `tool:pre` too (`events: [tool:pre]`
//! in its settings) it masks them in the arguments going to the server.

mod ask;
mod era;
mod grants;
#[cfg(feature = "http")]
mod http_listen;
#[cfg(feature = "http")]
mod http_upstream;
mod input_rounds;
mod lane;
mod limit;
mod lines;
mod pin_audit;
mod pin_guard;
pub mod pins;
mod relay;
mod server_asks;
pub mod stdio;
mod trace_context;
mod upstream;

use std::ffi::OsStr;
use std::fmt;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::session::HookSession;
use hooks_core::{Decide, HookRegistry};
use rmcp::service::ServiceRole;
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, RoleServer, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(feature = "http")]
pub use http_listen::MCP_PATH;
#[cfg(feature = "http")]
pub use http_upstream::Upstream;
pub use pin_audit::HELD_BACK_EVENT;

use crate::server::SERVER_FIELD;
use crate::sinks::{NoHistory, TracingDisplay};
use lane::Lane;
use lines::{LineFilter, LineSink};
use pins::PinStore;
use relay::Relay;

/// How long a forwarded request may take, unless [`McpProxyBuilder::call_timeout`] says
/// otherwise.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest message (one JSON-RPC line) accepted from either side, unless
/// [`McpProxyBuilder::max_message_bytes`] says otherwise.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// Why a proxy could not serve its client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// The server's command could not be started.
    #[error("cannot start the MCP server `{command}`: {source}")]
    Spawn {
        /// The command, as given.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// No server command was given.
    #[error("no MCP server command was given")]
    NoCommand,
    /// The client's session could not be opened (it closed, or did not initialize).
    #[error("the MCP client's session could not start: {0}")]
    Client(String),
    /// The server's URL is not one the proxy can reach.
    #[error(
        "`{0}` is not the URL of a streamable-HTTP MCP server (http:// or https://, with a host)"
    )]
    BadUrl(String),
    /// The proxy could not listen, or stopped accepting clients.
    #[error("cannot serve MCP clients over HTTP: {0}")]
    Listen(std::io::Error),
    /// The proxy was to listen on an address other machines reach, and was not allowed to.
    #[error(
        "`{0}` is not a loopback address: MCP clients of other machines would reach the \
         server through it; allow them explicitly to listen there"
    )]
    NotLoopback(std::net::SocketAddr),
}

/// The name of the server a command starts, as the proxy's tool names carry it: the command's
/// file name.
///
/// ```
/// assert_eq!(hooks_mcp::proxy::server_name_of("/usr/bin/mcp-server-git".as_ref()), "mcp-server-git");
/// ```
pub fn server_name_of(command: &OsStr) -> String {
    std::path::Path::new(command)
        .file_name()
        .unwrap_or(command)
        .to_string_lossy()
        .into_owned()
}

/// The name the hooks see an MCP tool by: `mcp__<server>__<tool>`, with the server's name
/// written as Claude Code writes it (every character other than a letter, a digit, `_` or
/// `-` becomes `_`), so that a rule on a tool matches it through the proxy and in Claude Code.
///
/// ```
/// assert_eq!(hooks_mcp::proxy::hook_tool_name("my.server", "echo"), "mcp__my_server__echo");
/// ```
pub fn hook_tool_name(server: &str, tool: &str) -> String {
    format!("{}{tool}", tool_prefix(server))
}

fn tool_prefix(server: &str) -> String {
    let server: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("mcp__{server}__")
}

/// A guarding proxy for one MCP client and one MCP server: see the [module docs](self).
pub struct McpProxy {
    settings: Arc<Settings>,
    session: Arc<HookSession>,
}

impl fmt::Debug for McpProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpProxy")
            .field("server", &self.settings.server)
            .field("call_timeout", &self.settings.call_timeout)
            .field("max_message_bytes", &self.settings.max_message_bytes)
            .finish_non_exhaustive()
    }
}

/// What the proxy's parts need to know of its configuration.
#[derive(Debug)]
struct Settings {
    /// The server's name, as given.
    server: String,
    /// `mcp__<server>__`.
    tool_prefix: String,
    call_timeout: Duration,
    max_message_bytes: usize,
    /// Where the server's tools are pinned, when they are.
    pins: Option<PinStore>,
    /// Whether an HTTP listener may be on an address other machines reach.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    remote_clients: bool,
}

/// Builds an [`McpProxy`].
pub struct McpProxyBuilder {
    registry: HookRegistry,
    decider: Option<Arc<dyn Decide>>,
    server: String,
    call_timeout: Duration,
    max_message_bytes: usize,
    pins: Option<PinStore>,
    remote_clients: bool,
}

impl fmt::Debug for McpProxyBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpProxyBuilder")
            .field("registry", &self.registry)
            .field("decider", &self.decider.is_some())
            .field("server", &self.server)
            .field("call_timeout", &self.call_timeout)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("pins", &self.pins)
            .field("remote_clients", &self.remote_clients)
            .finish()
    }
}

impl McpProxy {
    /// Starts building a proxy whose tool calls are gated by `registry`'s hooks, for a server
    /// named `server` (its tools are `mcp__<server>__<tool>` to the hooks; see
    /// [`server_name_of`] for the name a command gives).
    pub fn builder(registry: HookRegistry, server: impl Into<String>) -> McpProxyBuilder {
        McpProxyBuilder {
            registry,
            decider: None,
            server: server.into(),
            call_timeout: DEFAULT_CALL_TIMEOUT,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            pins: None,
            remote_clients: false,
        }
    }

    /// The hook session that gates the calls (its registry, its state).
    pub fn session(&self) -> &Arc<HookSession> {
        &self.session
    }

    /// Serves the client on this process's stdin and stdout, and the server started by
    /// `command` (its program, then its arguments) on the child's stdin and stdout; the
    /// child's stderr is this process's. Returns when the client closes its side; the server
    /// is then stopped.
    pub async fn serve_command<S: AsRef<OsStr>>(self, command: &[S]) -> Result<(), ProxyError> {
        let (program, arguments) = command.split_first().ok_or(ProxyError::NoCommand)?;
        let mut child = tokio::process::Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| ProxyError::Spawn {
                command: program.as_ref().to_string_lossy().into_owned(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ProxyError::Spawn {
                command: program.as_ref().to_string_lossy().into_owned(),
                source: std::io::Error::other("the child's stdin or stdout is not a pipe"),
            });
        };
        let served = self.serve(stdio::stdio(), (stdout, stdin)).await;
        // The client is gone: so is the server (its stdin is closed; a server that does not
        // exit on that is killed).
        let _ = child.start_kill();
        let _ = child.wait().await;
        served
    }

    /// Serves the client that reads and writes `client` (what it sends, what it receives),
    /// forwarding to the server that reads and writes `server` (what it sends, what it
    /// receives). Returns when the client closes its side.
    pub async fn serve<CR, CW, SR, SW>(
        self,
        client: (CR, CW),
        server: (SR, SW),
    ) -> Result<(), ProxyError>
    where
        CR: AsyncRead + Send + Unpin + 'static,
        CW: AsyncWrite + Send + Unpin + 'static,
        SR: AsyncRead + Send + Unpin + 'static,
        SW: AsyncWrite + Send + Unpin + 'static,
    {
        // Both connections are shared with the `tools/call` lane (see `lane`).
        let client_sink = LineSink::spawn(client.1);
        let server_sink = LineSink::spawn(server.1);
        let (client_writer, server_writer) = (client_sink.writer(), server_sink.writer());
        let lane = Lane::new(client_sink, server_sink);
        let limit = self.settings.max_message_bytes;
        let from_client =
            LineFilter::new(limit::LineLimit::new(client.0, limit), lane.from_client());
        let from_server =
            LineFilter::new(limit::LineLimit::new(server.0, limit), lane.from_server());
        let to_client =
            limited_transport::<RoleServer, _, _>(&self.settings, from_client, client_writer);
        let to_server =
            limited_transport::<RoleClient, _, _>(&self.settings, from_server, server_writer);
        self.serve_transports(to_client, to_server, Some(lane))
            .await
    }

    /// Serves the client on `to_client`, forwarding to the server on `to_server`. Returns when
    /// the client closes its side.
    async fn serve_transports<C, T>(
        self,
        to_client: C,
        to_server: T,
        lane: Option<Arc<Lane>>,
    ) -> Result<(), ProxyError>
    where
        C: Transport<RoleServer> + Send + 'static,
        T: Transport<RoleClient> + Send + 'static,
    {
        let relay = Relay::new(Arc::clone(&self.settings), self.session, to_server, lane);
        let running = relay
            .clone()
            .serve(to_client)
            .await
            .map_err(|error| ProxyError::Client(error.to_string()))?;
        let _ = running.waiting().await;
        relay.close().await;
        Ok(())
    }
}

/// A transport of JSON-RPC lines on `read` and `write`, under the size limit of `settings`.
#[cfg(feature = "http")]
fn line_transport<R, Rd, Wr>(
    settings: &Settings,
    read: Rd,
    write: Wr,
) -> AsyncRwTransport<R, limit::LineLimit<Rd>, Wr>
where
    R: ServiceRole,
    Rd: AsyncRead + Send + Unpin + 'static,
    Wr: AsyncWrite + Send + Unpin + 'static,
{
    let read = limit::LineLimit::new(read, settings.max_message_bytes);
    limited_transport(settings, read, write)
}

/// A transport of JSON-RPC lines on `read`, whose lines a [`limit::LineLimit`] has already
/// held to the size limit of `settings`, and `write`.
fn limited_transport<R, Rd, Wr>(
    settings: &Settings,
    read: Rd,
    write: Wr,
) -> AsyncRwTransport<R, Rd, Wr>
where
    R: ServiceRole,
    Rd: AsyncRead + Send + Unpin + 'static,
    Wr: AsyncWrite + Send + Unpin + 'static,
{
    // The limit is kept by `LineLimit`; the transport's own only has to let its stand-ins
    // through.
    let lines = settings
        .max_message_bytes
        .saturating_add(limit::STANDIN_ROOM);
    AsyncRwTransport::<R, _, _>::new(read, write).with_max_line_length(lines)
}

impl McpProxyBuilder {
    /// How long a forwarded request may take before the client gets an error
    /// ([`DEFAULT_CALL_TIMEOUT`] unless set).
    #[must_use]
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The largest message accepted from either side, in bytes
    /// ([`DEFAULT_MAX_MESSAGE_BYTES`] unless set).
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Pins the server's tools in `store` (see [`pins`]): its first listing is trusted, and a
    /// tool that later differs from its pin or appears after it is held back (left out of
    /// `tools/list`, its calls refused) until the user approves it. Without pins every tool
    /// the server offers may be called.
    #[must_use]
    pub fn pins(mut self, store: PinStore) -> Self {
        self.pins = Some(store);
        self
    }

    /// Lets the proxy serve MCP clients over HTTP on an address that is not loopback (other
    /// machines reach it). Off unless set: a listener elsewhere than loopback is refused.
    #[must_use]
    pub fn allow_remote_clients(mut self, allow: bool) -> Self {
        self.remote_clients = allow;
        self
    }

    /// Gates the calls by `decider` (layers around a registry, such as hooks-config's
    /// `Policy`, which the `hooks` binary mounts) instead of the registry's emit alone; the
    /// proxy's registry becomes `decider`'s.
    #[must_use]
    pub fn decide_with(mut self, decider: Arc<dyn Decide>) -> Self {
        self.registry = decider.registry().clone();
        self.decider = Some(decider);
        self
    }

    /// The proxy. Its session asks the user through the client (see the module docs), keeps
    /// no history, and shows messages in the log; every event carries `mcp_server`.
    pub fn build(self) -> McpProxy {
        self.registry
            .set_default_fields([(SERVER_FIELD, Value::from(self.server.as_str()))]);
        let mut session = HookSession::builder(self.registry);
        if let Some(decider) = self.decider {
            session = session.decide_with(decider);
        }
        let session = session
            .approvals(Arc::new(ask::ElicitingApprovals))
            .default_context(|| Arc::new(NoHistory))
            .default_display(|| Arc::new(TracingDisplay))
            .build();
        McpProxy {
            settings: Arc::new(Settings {
                tool_prefix: tool_prefix(&self.server),
                server: self.server,
                call_timeout: self.call_timeout,
                max_message_bytes: self.max_message_bytes,
                pins: self.pins,
                remote_clients: self.remote_clients,
            }),
            session: Arc::new(session),
        }
    }
}
