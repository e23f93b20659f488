//! The server's side over streamable HTTP (`hooks mcp-proxy --upstream URL`): rmcp's HTTP client
//! (a POST per message, answers as JSON or as an SSE stream, the `Mcp-Session-Id` kept), held to
//! the proxy's size limit, and the server's own command run once per client session when the
//! proxy listens.

use std::ffi::OsString;
use std::process::Stdio;

use rmcp::RoleClient;
use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::limit::LineLimit;
use super::{McpProxy, ProxyError, Settings, line_transport};

impl McpProxy {
    /// Serves the client that reads and writes `client` (what it sends, what it receives; the
    /// process's stdin and stdout for `hooks mcp-proxy --upstream`), forwarding to the
    /// streamable-HTTP MCP server at `url`. Returns when the client closes its side.
    pub async fn serve_url<CR, CW>(self, client: (CR, CW), url: &str) -> Result<(), ProxyError>
    where
        CR: AsyncRead + Send + Unpin + 'static,
        CW: AsyncWrite + Send + Unpin + 'static,
    {
        let Upstream::Url(url) = Upstream::url(url)? else {
            return Err(ProxyError::BadUrl(url.to_owned()));
        };
        let to_client = line_transport::<RoleServer, _, _>(&self.settings, client.0, client.1);
        let to_server = http_transport(&self.settings, &url);
        self.serve_transports(to_client, to_server, None).await
    }
}

/// Where the proxy finds its server.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Upstream {
    /// A command (its program, then its arguments) that serves MCP on its stdin and stdout.
    Command(Vec<OsString>),
    /// The URL of a streamable-HTTP MCP server (its MCP endpoint, `http://` or `https://`).
    Url(String),
}

impl Upstream {
    /// The URL, when it is one the proxy can reach: `http://` or `https://` with a host.
    pub fn url(url: &str) -> Result<Self, ProxyError> {
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"));
        match rest {
            Some(rest) if !rest.is_empty() && !rest.starts_with('/') => {
                Ok(Upstream::Url(url.to_owned()))
            }
            _ => Err(ProxyError::BadUrl(url.to_owned())),
        }
    }
}

/// The HTTP transport to the server at `url`. A message over the proxy's size limit (a JSON
/// answer, or one event of an SSE stream) ends the request it answers with an error; it is
/// never forwarded.
pub(crate) fn http_transport(
    settings: &Settings,
    url: &str,
) -> StreamableHttpClientTransport<reqwest::Client> {
    let config = StreamableHttpClientTransportConfig::with_uri(url)
        .max_json_response_size(settings.max_message_bytes)
        .max_sse_event_size(settings.max_message_bytes);
    StreamableHttpClientTransport::from_config(config)
}

/// A server started by the proxy for one client session, spoken to on its stdin and stdout.
/// The child lives as long as the transport: dropping it kills the server.
pub(crate) struct ChildTransport {
    lines: AsyncRwTransport<RoleClient, LineLimit<ChildStdout>, ChildStdin>,
    _child: Child,
}

impl ChildTransport {
    /// Starts `command` (its program, then its arguments); its stderr is this process's.
    pub(crate) fn spawn(settings: &Settings, command: &[OsString]) -> Result<Self, ProxyError> {
        let (program, arguments) = command.split_first().ok_or(ProxyError::NoCommand)?;
        let spawn_error = |source| ProxyError::Spawn {
            command: program.to_string_lossy().into_owned(),
            source,
        };
        let mut child = tokio::process::Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(spawn_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(spawn_error(std::io::Error::other(
                "the child's stdin or stdout is not a pipe",
            )));
        };
        Ok(ChildTransport {
            lines: line_transport(settings, stdout, stdin),
            _child: child,
        })
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.lines.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.lines.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.lines.close()
    }
}
