//! The client's side over streamable HTTP (`hooks mcp-proxy --listen ADDR`): one MCP endpoint,
//! `/mcp`, where a client opens a session with `initialize` (answered with an `Mcp-Session-Id`),
//! POSTs its messages (a request's answer, and the server's requests and progress about it,
//! come back as an SSE stream on that POST), GETs a stream for the rest, and DELETEs the
//! session. Each session is a relay of its own, with a server of its own.
//!
//! A client of the stateless era (2026-07-28) opens no session: each of its requests is POSTed
//! on its own, without `Mcp-Session-Id`, its version and capabilities in its `_meta`, and is
//! answered on that POST's SSE stream, which ends with the answer. Those requests share one
//! relay, with one server (see [`Endpoint::post_stateless`]).
//!
//! What a browser could abuse is refused before any message is read: a request whose `Origin`
//! is not a loopback page (403), and on a loopback listener a `Host` that is not a loopback
//! name (403, DNS rebinding). A body over the size limit is refused (413), a body that is not
//! one JSON-RPC message is refused (400); neither reaches the relay.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta};
use rmcp::service::serve_directly;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::{OneshotTransport, Transport};
use rmcp::{RoleClient, RoleServer, ServiceExt};
use serde_json::json;
use tokio::net::TcpListener;

use super::http_upstream::{ChildTransport, Upstream, http_transport};
use super::relay::Relay;
use super::{McpProxy, ProxyError};

impl McpProxy {
    /// Serves MCP clients over streamable HTTP on `listener`, at [`MCP_PATH`]: each client
    /// session is a proxy of its own, with a server of its own from `upstream` (the command
    /// started for it, or a session of its own at the URL). Sessions share the hooks' state
    /// and the pins. Runs until accepting a connection fails.
    ///
    /// A listener on an address that is not loopback is refused unless
    /// [`allow_remote_clients`](super::McpProxyBuilder::allow_remote_clients) was set.
    pub async fn serve_http(
        self,
        listener: TcpListener,
        upstream: Upstream,
    ) -> Result<(), ProxyError> {
        let address = listener.local_addr().map_err(ProxyError::Listen)?;
        let loopback = address.ip().is_loopback();
        if !loopback && !self.settings.remote_clients {
            return Err(ProxyError::NotLoopback(address));
        }
        let limit = self.settings.max_message_bytes;
        let McpProxy { settings, session } = self;
        match upstream {
            Upstream::Command(command) => {
                if command.is_empty() {
                    return Err(ProxyError::NoCommand);
                }
                let new_relay = move || {
                    let server = ChildTransport::spawn(&settings, &command)?;
                    Ok(Relay::new(
                        Arc::clone(&settings),
                        Arc::clone(&session),
                        server,
                        None,
                    ))
                };
                Endpoint::new(new_relay, limit, loopback)
                    .serve(listener)
                    .await
            }
            Upstream::Url(url) => {
                let new_relay = move || {
                    let server = http_transport(&settings, &url);
                    Ok(Relay::new(
                        Arc::clone(&settings),
                        Arc::clone(&session),
                        server,
                        None,
                    ))
                };
                Endpoint::new(new_relay, limit, loopback)
                    .serve(listener)
                    .await
            }
        }
    }
}

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// The header that carries the session.
const SESSION_HEADER: &str = "mcp-session-id";

type Body = BoxBody<Bytes, Infallible>;

/// The endpoint: its sessions, and how a new session gets its relay.
pub(crate) struct Endpoint<F, T> {
    sessions: Arc<LocalSessionManager>,
    new_relay: F,
    max_body_bytes: usize,
    /// Whether the listener is on a loopback address, so that `Host` must name one.
    loopback: bool,
    /// The relay of the stateless era's requests, once one came.
    stateless: tokio::sync::OnceCell<Relay<T>>,
}

impl<F, T> Endpoint<F, T>
where
    F: Fn() -> Result<Relay<T>, ProxyError> + Send + Sync + 'static,
    T: Transport<RoleClient> + Send + 'static,
{
    /// An endpoint whose sessions each get a relay from `new_relay`.
    pub(crate) fn new(new_relay: F, max_body_bytes: usize, loopback: bool) -> Self {
        Endpoint {
            sessions: Arc::default(),
            new_relay,
            max_body_bytes,
            loopback,
            stateless: tokio::sync::OnceCell::new(),
        }
    }

    /// Serves the clients that connect to `listener`, until accepting fails.
    pub(crate) async fn serve(self, listener: TcpListener) -> Result<(), ProxyError> {
        let endpoint = Arc::new(self);
        loop {
            let (stream, peer) = listener.accept().await.map_err(ProxyError::Listen)?;
            let endpoint = Arc::clone(&endpoint);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let endpoint = Arc::clone(&endpoint);
                    async move { Ok::<_, Infallible>(endpoint.handle(request, peer).await) }
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                if let Err(error) = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await
                {
                    tracing::debug!(%error, %peer, "an HTTP connection of an MCP client ended");
                }
            });
        }
    }

    /// One HTTP request.
    async fn handle(&self, request: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
        if let Some(refusal) = self.refusal(request.headers()) {
            tracing::warn!(%peer, %refusal, "an HTTP request to the MCP proxy was refused");
            return plain(StatusCode::FORBIDDEN, &refusal);
        }
        if request.uri().path() != MCP_PATH {
            return plain(
                StatusCode::NOT_FOUND,
                &format!("the MCP endpoint is {MCP_PATH}"),
            );
        }
        match *request.method() {
            Method::POST => self.post(request).await,
            Method::GET => self.get(request.headers()).await,
            Method::DELETE => self.delete(request.headers()).await,
            _ => {
                let mut response = plain(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "the MCP endpoint takes POST, GET and DELETE",
                );
                response
                    .headers_mut()
                    .insert("allow", HeaderValue::from_static("GET, POST, DELETE"));
                response
            }
        }
    }

    /// Why a request is refused before it is read, if it is: an `Origin` that is not a
    /// loopback page, or (on a loopback listener) a `Host` that is not a loopback name.
    fn refusal(&self, headers: &HeaderMap) -> Option<String> {
        if let Some(origin) = headers.get("origin") {
            let origin = origin.to_str().unwrap_or_default();
            let host = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            if !host.is_some_and(is_loopback_host) {
                return Some(format!(
                    "the Origin `{origin}` is not a page of this machine (loopback)"
                ));
            }
        }
        if self.loopback {
            let host = headers
                .get("host")
                .and_then(|host| host.to_str().ok())
                .unwrap_or_default();
            if !is_loopback_host(host) {
                return Some(format!(
                    "the Host `{host}` is not a loopback name, on a loopback listener"
                ));
            }
        }
        None
    }

    /// A message of the client.
    async fn post(&self, request: Request<Incoming>) -> Response<Body> {
        let json_body = request
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
        if !json_body {
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "the body must be application/json",
            );
        }
        let session = session_of(request.headers());
        let body = match Limited::new(request.into_body(), self.max_body_bytes)
            .collect()
            .await
        {
            Ok(body) => body.to_bytes(),
            Err(error) if error.is::<http_body_util::LengthLimitError>() => {
                let message = format!(
                    "the message is over the proxy's limit of {} bytes; it was not forwarded",
                    self.max_body_bytes
                );
                tracing::warn!("{message}");
                return rpc_error(StatusCode::PAYLOAD_TOO_LARGE, -32600, &message);
            }
            Err(error) => {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32700,
                    &format!("the body could not be read: {error}"),
                );
            }
        };
        let message = match serde_json::from_slice::<ClientJsonRpcMessage>(&body) {
            Ok(message) => message,
            Err(error) => {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32700,
                    &format!("the body is not one JSON-RPC message of an MCP client: {error}"),
                );
            }
        };
        match session {
            Some(session) => self.post_in_session(session, message).await,
            None if is_stateless(&message) => self.post_stateless(message).await,
            None => self.open_session(message).await,
        }
    }

    /// A request of a client of the stateless era: answered on an SSE stream of its own,
    /// which ends with the answer, by the relay every such request shares. That relay's
    /// server session opens at the first of them, in the name of the client that sent it
    /// (as a stdio client's first request opens it); each request still carries its own
    /// `_meta` to a server of the stateless era. The gate, the pins and the limits are the
    /// relay's, as in a session.
    async fn post_stateless(&self, message: ClientJsonRpcMessage) -> Response<Body> {
        let relay = match self
            .stateless
            .get_or_try_init(|| async { (self.new_relay)() })
            .await
        {
            Ok(relay) => relay.clone(),
            Err(error) => {
                tracing::warn!(%error, "the stateless MCP clients could not get their server");
                return rpc_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    -32603,
                    &error.to_string(),
                );
            }
        };
        let (transport, receiver) = OneshotTransport::<RoleServer>::new(message);
        // No peer info: the relay takes the request for one of the stateless era.
        let running = serve_directly(relay, transport, None);
        let stop = running.cancellation_token();
        tokio::spawn(async move {
            let _ = running.waiting().await;
        });
        // A client that goes away before its answer cancels its request.
        let cancel_on_drop = CancelOnDrop(Some(stop));
        let messages = futures::stream::unfold(
            (receiver, cancel_on_drop),
            |(mut receiver, cancel_on_drop)| async move {
                let message = receiver.recv().await?;
                Some((
                    ServerSseMessage::from_message(message),
                    (receiver, cancel_on_drop),
                ))
            },
        );
        sse(messages)
    }

    /// A message in an open session: a request is answered on an SSE stream; anything else is
    /// accepted (202).
    async fn post_in_session(
        &self,
        session: SessionId,
        message: ClientJsonRpcMessage,
    ) -> Response<Body> {
        if !self.sessions.has_session(&session).await.unwrap_or(false) {
            return plain(StatusCode::NOT_FOUND, "no such session (it may have ended)");
        }
        if matches!(message, ClientJsonRpcMessage::Request(_)) {
            match self.sessions.create_stream(&session, message).await {
                Ok(stream) => sse(stream),
                Err(error) => plain(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
            }
        } else {
            match self.sessions.accept_message(&session, message).await {
                Ok(()) => empty(StatusCode::ACCEPTED),
                Err(error) => plain(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
            }
        }
    }

    /// A message without a session: it must be `initialize`, which opens one (and the server's
    /// session behind it).
    async fn open_session(&self, message: ClientJsonRpcMessage) -> Response<Body> {
        let is_initialize = matches!(
            &message,
            ClientJsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::InitializeRequest(_))
        );
        if !is_initialize {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                -32600,
                "no Mcp-Session-Id: a session opens with `initialize`",
            );
        }
        let relay = match (self.new_relay)() {
            Ok(relay) => relay,
            Err(error) => {
                tracing::warn!(%error, "a session of an MCP client could not get its server");
                return rpc_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    -32603,
                    &error.to_string(),
                );
            }
        };
        let (session, transport) = match self.sessions.create_session().await {
            Ok(created) => created,
            Err(error) => {
                return plain(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string());
            }
        };
        let sessions = Arc::clone(&self.sessions);
        let id = session.clone();
        tokio::spawn(async move {
            match relay.clone().serve(transport).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(error) => tracing::debug!(%error, "an MCP client's session did not start"),
            }
            relay.close().await;
            let _ = sessions.close_session(&id).await;
        });
        match self.sessions.initialize_session(&session, message).await {
            Ok(answer) => {
                let mut response = json_response(StatusCode::OK, &answer);
                if let Ok(value) = HeaderValue::from_str(&session) {
                    response.headers_mut().insert(SESSION_HEADER, value);
                }
                response
            }
            Err(error) => plain(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
        }
    }

    /// The stream of the session's messages that answer no POST.
    async fn get(&self, headers: &HeaderMap) -> Response<Body> {
        let session = match self.known_session(headers).await {
            Ok(session) => session,
            Err(refused) => return refused,
        };
        match self.sessions.create_standalone_stream(&session).await {
            Ok(stream) => sse(stream),
            Err(error) => plain(StatusCode::CONFLICT, &error.to_string()),
        }
    }

    /// The client ends its session (and the server's behind it).
    async fn delete(&self, headers: &HeaderMap) -> Response<Body> {
        let session = match self.known_session(headers).await {
            Ok(session) => session,
            Err(refused) => return refused,
        };
        match self.sessions.close_session(&session).await {
            Ok(()) => empty(StatusCode::OK),
            Err(error) => plain(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
        }
    }

    /// The session the request names, when it names one that is open; the answer refusing it
    /// otherwise (400 without a session id, 404 for a session that is not, or no longer, open).
    async fn known_session(&self, headers: &HeaderMap) -> Result<SessionId, Response<Body>> {
        let Some(session) = session_of(headers) else {
            return Err(plain(StatusCode::BAD_REQUEST, "no Mcp-Session-Id"));
        };
        if !self.sessions.has_session(&session).await.unwrap_or(false) {
            return Err(plain(
                StatusCode::NOT_FOUND,
                "no such session (it may have ended)",
            ));
        }
        Ok(session)
    }
}

/// Whether `message` is a request of a client of the stateless era: a `server/discover`, or a
/// request whose `_meta` names a version without `initialize`.
fn is_stateless(message: &ClientJsonRpcMessage) -> bool {
    let ClientJsonRpcMessage::Request(request) = message else {
        return false;
    };
    matches!(request.request, ClientRequest::DiscoverRequest(_))
        || request
            .request
            .get_meta()
            .protocol_version()
            .is_some_and(|version| !version.has_initialize())
}

/// Cancels a request's service when the stream of its answer is dropped (answered, or the
/// client gone).
struct CancelOnDrop(Option<rmcp::service::RunningServiceCancellationToken>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// Whether `authority` (`host[:port]`) names this machine: `localhost`, `127.0.0.1` (or any
/// 127.x address) or `[::1]`.
fn is_loopback_host(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

fn session_of(headers: &HeaderMap) -> Option<SessionId> {
    headers
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(SessionId::from)
}

/// An SSE response carrying `stream`'s messages.
fn sse(
    stream: impl futures::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
) -> Response<Body> {
    let frames = stream.map(|message| Ok::<_, Infallible>(Frame::data(sse_event(&message))));
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(frames)));
    let headers = response.headers_mut();
    headers.insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert("cache-control", HeaderValue::from_static("no-cache"));
    response
}

/// One SSE event, as the streamable HTTP transport writes it.
fn sse_event(message: &ServerSseMessage) -> Bytes {
    let mut event = String::new();
    if let Some(id) = &message.event_id {
        event.push_str(&format!("id: {id}\n"));
    }
    if let Some(retry) = message.retry {
        event.push_str(&format!("retry: {}\n", retry.as_millis()));
    }
    match &message.message {
        Some(message) => {
            let data = serde_json::to_string(message.as_ref()).unwrap_or_default();
            event.push_str(&format!("event: message\ndata: {data}\n"));
        }
        None => event.push_str("data: \n"),
    }
    event.push('\n');
    Bytes::from(event)
}

fn json_response(status: StatusCode, value: &impl serde::Serialize) -> Response<Body> {
    let body = serde_json::to_vec(value).unwrap_or_default();
    let mut response = Response::new(BodyExt::boxed(Full::new(Bytes::from(body))));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC error with no id (the message it answers could not be read), under `status`.
fn rpc_error(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    let error = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    json_response(status, &error)
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(BodyExt::boxed(Full::new(Bytes::from(text.to_owned()))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(BodyExt::boxed(Full::new(Bytes::new())));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn only_names_of_this_machine_are_loopback() {
        for host in [
            "localhost",
            "localhost:3000",
            "127.0.0.1:8",
            "127.9.9.9",
            "[::1]:80",
            "[::1]",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "",
            "example.com",
            "localhost.example.com:80",
            "10.0.0.1",
            "[::2]:80",
            "0.0.0.0",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
