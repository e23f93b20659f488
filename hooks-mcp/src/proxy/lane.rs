//! The `tools/call` lane: on stdio, once the server's session is open, the proxy reads a
//! client's `tools/call`, and forwards it to the server and the server's answer back, as
//! JSON-RPC lines of its own, beside rmcp rather than through it.
//!
//! Why: through rmcp, a call is decoded into rmcp's untagged message enums twice (the client's
//! request, the server's answer), encoded twice, and handed between four tasks. That was most
//! of what the proxy added to a call above any process on the path. On the lane a call is read
//! into the one type it is (`CallToolRequestParams`, then `CallToolResult`), and runs through
//! the same gate, pins, asks and deadline as any other (see [`Relay`](super::relay::Relay)):
//! only the carrying differs.
//!
//! Everything else stays with rmcp: the lifecycle, every other request and notification, and
//! the server's requests to the client (an elicitation mid-call included). Calls of every
//! pairing of eras take the lane: the relay settles the client's era of each call from its
//! context, and puts on a call to a server of the stateless era the lifecycle metadata rmcp's
//! client would (see [`era::fill_lifecycle`](super::era::fill_lifecycle)). The two share each
//! connection:
//! - the client's lines pass the lane first ([`LineFilter`](super::lines::LineFilter)): it
//!   takes `tools/call` requests once it is open, and notes a cancellation of a call it
//!   carries (which it passes on too: rmcp finds nothing to cancel);
//! - the server's lines pass it too: it takes the responses to its own requests, whose ids
//!   are strings starting with [`ID_PREFIX`] (rmcp's ids are numbers);
//! - both write whole lines through one [`LineSink`] per connection.
//!
//! A server that ends its connection fails the calls the lane has in flight, as rmcp fails its
//! own.

use std::borrow::Cow;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::sync::lock;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, NumberOrString, ProgressToken, RequestId,
    RequestMetaObject, ServerResult,
};
use rmcp::service::{Peer, RequestContext, ServiceError};
use rmcp::{ErrorData as McpError, RoleServer};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::lines::{Claim, LineSink};
use super::upstream::ProgressTokens;

/// How the ids of the lane's requests to the server start (and its progress tokens).
pub(crate) const ID_PREFIX: &str = "hooks-proxy/";

/// What answers a call that came by the lane: the relay, once the lane is open.
pub(crate) trait LaneCalls: Send + Sync {
    /// The answer to the client's `tools/call` with `params`, in the shape the client gets.
    fn answer(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Pin<Box<dyn Future<Output = Result<ServerResult, McpError>> + Send>>;
}

/// Marks the context of a call that came by the lane: it goes to the server by the lane too.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OnLane;

/// The lane of one stdio proxy session: see the [module docs](self).
pub(crate) struct Lane {
    /// The connections' writers; gone once the lane is closed.
    sinks: Mutex<Option<Sinks>>,
    /// Set once the server's session is open; taken when the proxy closes.
    open: Mutex<Option<Open>>,
    /// The lane's requests to the server awaiting their answers, by number.
    replies: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    /// The client's calls on the lane, by the client's id, to cancel them by.
    calls: Mutex<HashMap<RequestId, CancellationToken>>,
    next: AtomicU64,
    server_ended: AtomicBool,
}

struct Sinks {
    client: LineSink,
    server: LineSink,
}

#[derive(Clone)]
struct Open {
    calls: Arc<dyn LaneCalls>,
    client: Peer<RoleServer>,
}

/// The server's answer to one of the lane's requests.
enum Reply {
    Result(Box<RawValue>),
    Error(McpError),
}

impl Lane {
    /// A lane writing to the client and the server through these sinks; closed until
    /// [`open`](Lane::open).
    pub(crate) fn new(client: LineSink, server: LineSink) -> Arc<Lane> {
        Arc::new(Lane {
            sinks: Mutex::new(Some(Sinks { client, server })),
            open: Mutex::default(),
            replies: Mutex::default(),
            calls: Mutex::default(),
            next: AtomicU64::new(0),
            server_ended: AtomicBool::new(false),
        })
    }

    /// Opens the lane: from now on the client's `tools/call` requests are taken, and answered
    /// by `calls`, with `client` as their context's peer.
    pub(crate) fn open(&self, calls: Arc<dyn LaneCalls>, client: Peer<RoleServer>) {
        *lock(&self.open) = Some(Open { calls, client });
    }

    /// Whether the lane takes calls.
    pub(crate) fn is_open(&self) -> bool {
        lock(&self.open).is_some()
    }

    /// Closes the lane: no call is taken any more, the calls in flight to the server end (none
    /// of their answers can be read any more), and its writers are let go (a connection is
    /// closed once rmcp and those calls let go of it too: the server then sees its input end).
    pub(crate) fn close(&self) {
        lock(&self.open).take();
        lock(&self.sinks).take();
        self.server_ended();
    }

    /// The claim on the client's lines.
    pub(crate) fn from_client(self: &Arc<Self>) -> Arc<dyn Claim> {
        Arc::new(FromClient(Arc::clone(self)))
    }

    /// The claim on the server's lines.
    pub(crate) fn from_server(self: &Arc<Self>) -> Arc<dyn Claim> {
        Arc::new(FromServer(Arc::clone(self)))
    }

    fn sink(&self, pick: impl FnOnce(&Sinks) -> &LineSink) -> Option<LineSink> {
        lock(&self.sinks).as_ref().map(|sinks| pick(sinks).clone())
    }

    /// Takes `line` if it is a `tools/call` request and the lane is open, and starts
    /// answering it; notes a cancellation of a call it carries.
    fn take_request(self: &Arc<Self>, line: &[u8]) -> bool {
        let Ok(message) = serde_json::from_slice::<Message<'_>>(line) else {
            return false;
        };
        match message.method.as_deref() {
            Some("tools/call") => {}
            Some("notifications/cancelled") => {
                self.note_cancelled(message.params);
                return false;
            }
            _ => return false,
        }
        let (Some(id), Some(params)) = (message.id, message.params) else {
            return false;
        };
        let Some(open) = lock(&self.open).clone() else {
            return false;
        };
        // Anything the lane cannot read is left to rmcp, which answers it as it should.
        let (Ok(id), Ok(mut params)) = (
            serde_json::from_str::<RequestId>(id.get()),
            serde_json::from_str::<CallToolRequestParams>(params.get()),
        ) else {
            return false;
        };
        let cancelled = CancellationToken::new();
        {
            let mut calls = lock(&self.calls);
            if calls.contains_key(&id) {
                return false;
            }
            calls.insert(id.clone(), cancelled.clone());
        }
        let mut context = RequestContext::new(id.clone(), open.client);
        context.ct = cancelled;
        context.meta = params.meta.take().unwrap_or_default();
        context.extensions.insert(OnLane);
        let lane = Arc::clone(self);
        tokio::spawn(async move {
            let answer = open.calls.answer(params, context).await;
            lock(&lane.calls).remove(&id);
            let response = match &answer {
                Ok(result) => Response::result(&id, result),
                Err(error) => Response::error(&id, error),
            };
            match (lane.sink(|sinks| &sinks.client), line_of(&response)) {
                (Some(client), Ok(line)) => {
                    if client.send(line).is_err() {
                        tracing::debug!("the MCP client left before its call was answered");
                    }
                }
                (None, _) => tracing::debug!("the proxy closed before a call was answered"),
                (_, Err(error)) => {
                    tracing::error!(%error, "a tool call's answer could not be written")
                }
            }
        });
        true
    }

    /// Cancels the lane's call that a client's `notifications/cancelled` names, if any.
    fn note_cancelled(&self, params: Option<&RawValue>) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Cancelled {
            request_id: RequestId,
        }
        let Some(Ok(cancelled)) =
            params.map(|params| serde_json::from_str::<Cancelled>(params.get()))
        else {
            return;
        };
        if let Some(call) = lock(&self.calls).get(&cancelled.request_id) {
            call.cancel();
        }
    }

    /// Takes `line` if it answers one of the lane's own requests, and hands the answer to it.
    fn take_reply(&self, line: &[u8]) -> bool {
        // Most of the server's lines are not the lane's: a look for the prefix settles them.
        if memchr::memmem::find(line, ID_PREFIX.as_bytes()).is_none() {
            return false;
        }
        let Ok(message) = serde_json::from_slice::<ServerMessage<'_>>(line) else {
            return false;
        };
        let number = message
            .id
            .filter(|_| message.method.is_none())
            .and_then(|id| {
                id.get()
                    .strip_prefix('"')?
                    .strip_suffix('"')
                    .map(str::to_owned)
            })
            .and_then(|id| id.strip_prefix(ID_PREFIX)?.parse::<u64>().ok());
        let Some(number) = number else {
            return false;
        };
        let reply = match (message.result, message.error) {
            (Some(result), _) => Reply::Result(result.to_owned()),
            (None, Some(error)) => Reply::Error(error),
            (None, None) => Reply::Error(McpError::internal_error(
                "the MCP server answered `tools/call` with neither a result nor an error",
                None,
            )),
        };
        // An answer after its request gave up (its deadline passed) is dropped.
        if let Some(waiting) = lock(&self.replies).remove(&number) {
            let _ = waiting.send(reply);
        }
        true
    }

    /// The server's connection ended: every request of the lane in flight fails.
    fn server_ended(&self) {
        self.server_ended.store(true, Ordering::SeqCst);
        lock(&self.replies).clear();
    }

    /// Sends `params` (with `meta` as its `_meta`) to the server as a `tools/call` of the
    /// lane's own, and waits for its answer: within `deadline` (past it, the request is
    /// cancelled at the server), and until `cancelled` fires (then it is cancelled there too).
    /// The server's progress on it reaches the client under the client's token, through
    /// `progress`.
    pub(crate) async fn forward(
        &self,
        mut params: CallToolRequestParams,
        mut meta: RequestMetaObject,
        cancelled: impl Future<Output = ()>,
        progress: &ProgressTokens,
        deadline: Duration,
    ) -> Result<ServerResult, ServiceError> {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("{ID_PREFIX}{number}");
        // The client's progress token is its own: the server is given the lane's, unique
        // among the proxy's requests, and its progress is put back under the client's.
        let _progress = meta.get_progress_token().map(|token| {
            let own = ProgressToken(NumberOrString::String(
                format!("{ID_PREFIX}progress/{number}").into(),
            ));
            meta.set_progress_token(own.clone());
            progress.relay(own, token)
        });
        params.meta = (!meta.is_empty()).then_some(meta);
        let line = line_of(&Request {
            jsonrpc: "2.0",
            id: &id,
            method: "tools/call",
            params: &params,
        })
        .map_err(|error| {
            ServiceError::McpError(McpError::internal_error(error.to_string(), None))
        })?;
        let (waiting, reply) = oneshot::channel();
        lock(&self.replies).insert(number, waiting);
        let _waiting = Waiting {
            replies: &self.replies,
            number,
        };
        // Checked after the request is listed: an end of the server's connection either
        // finds it listed and fails it, or was already told here.
        if self.server_ended.load(Ordering::SeqCst) {
            return Err(ServiceError::TransportClosed);
        }
        let server = self
            .sink(|sinks| &sinks.server)
            .ok_or(ServiceError::TransportClosed)?;
        server
            .send(line)
            .map_err(|_| ServiceError::TransportClosed)?;
        let reply = tokio::select! {
            reply = tokio::time::timeout(deadline, reply) => match reply {
                Ok(Ok(reply)) => reply,
                // Dropped unanswered: the server's connection ended, or the client's (then the
                // server is told that the call is not waited for any more).
                Ok(Err(_)) => {
                    cancel_at(&server, &id, "the proxy's client is gone");
                    return Err(ServiceError::TransportClosed);
                }
                Err(_elapsed) => {
                    cancel_at(&server, &id, "the proxy's deadline for it passed");
                    return Err(ServiceError::Timeout { timeout: deadline });
                }
            },
            () = cancelled => {
                cancel_at(&server, &id, "cancelled by its sender");
                return Err(ServiceError::Cancelled { reason: None });
            }
        };
        match reply {
            Reply::Error(error) => Err(ServiceError::McpError(error)),
            Reply::Result(result) => result_of(&result).map_err(ServiceError::McpError),
        }
    }
}

/// The server's result to a `tools/call`: a tool result, read as one; anything else (a task,
/// an empty result) as rmcp would read it.
fn result_of(result: &RawValue) -> Result<ServerResult, McpError> {
    if let Ok(result) = serde_json::from_str::<CallToolResult>(result.get()) {
        return Ok(ServerResult::CallToolResult(result));
    }
    serde_json::from_str::<ServerResult>(result.get()).map_err(|error| {
        McpError::internal_error(
            format!("the MCP server's answer to `tools/call` is not a result: {error}"),
            None,
        )
    })
}

/// Tells the server that the lane's request `id` is no longer waited for.
fn cancel_at(server: &LineSink, id: &str, reason: &str) {
    let notification = serde_json::json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": reason},
    });
    if let Ok(line) = line_of(&notification) {
        let _ = server.send(line);
    }
}

/// `message` as one line.
fn line_of(message: &impl Serialize) -> serde_json::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    Ok(line)
}

/// Unlists a request of the lane however its wait ends.
struct Waiting<'a> {
    replies: &'a Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    number: u64,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        lock(self.replies).remove(&self.number);
    }
}

/// What the lane reads of each of the client's lines.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

/// What the lane reads of a server's line that may answer it.
#[derive(Deserialize)]
struct ServerMessage<'a> {
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<McpError>,
}

/// A request of the lane to the server.
#[derive(Serialize)]
struct Request<'a> {
    jsonrpc: &'static str,
    id: &'a str,
    method: &'static str,
    params: &'a CallToolRequestParams,
}

/// The lane's answer to the client.
#[derive(Serialize)]
struct Response<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a ServerResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a McpError>,
}

impl<'a> Response<'a> {
    fn result(id: &'a RequestId, result: &'a ServerResult) -> Self {
        Response {
            jsonrpc: "2.0",
            id,
            result: Some(result),
            error: None,
        }
    }

    fn error(id: &'a RequestId, error: &'a McpError) -> Self {
        Response {
            jsonrpc: "2.0",
            id,
            result: None,
            error: Some(error),
        }
    }
}

/// The lane's claim on the client's lines.
struct FromClient(Arc<Lane>);

impl Claim for FromClient {
    fn claim(&self, line: &[u8]) -> bool {
        self.0.take_request(line)
    }
}

/// The lane's claim on the server's lines.
struct FromServer(Arc<Lane>);

impl Claim for FromServer {
    fn claim(&self, line: &[u8]) -> bool {
        self.0.take_reply(line)
    }

    fn ended(&self) {
        self.0.server_ended();
    }
}
