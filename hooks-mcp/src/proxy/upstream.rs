//! The proxy's side toward the server: an MCP client that speaks for the proxy's client (its
//! `initialize`, its capabilities), hands the server's requests and notifications to that
//! client, and carries the client's requests to the server under a deadline.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientConfig, ClientResult, GetExtensions,
    ProgressToken, RequestId, RequestMetaObject, ServerNotification, ServerRequest,
};
use rmcp::service::{
    NotificationContext, OriginatingRequestId, Peer, PeerRequestOptions, RequestContext,
    ServiceError, ServiceRole,
};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, Service};

use super::limit::{OVERSIZED_METHOD, oversized_message};
use super::pin_guard::PinGuard;
use super::server_asks;

/// The progress tokens of the requests in flight to the server: the proxy's own token (which
/// rmcp puts on every request it sends) to the client's, so that the server's progress reaches
/// the client under the token the client chose. Also the client's ids of those requests, so
/// that a request of the server while exactly one is in flight is tied to it (over HTTP it
/// then travels on that request's SSE stream).
#[derive(Clone, Default)]
pub(crate) struct ProgressTokens(
    Arc<Mutex<HashMap<ProgressToken, ProgressToken>>>,
    Arc<Mutex<Vec<RequestId>>>,
);

impl ProgressTokens {
    fn with<T>(&self, f: impl FnOnce(&mut HashMap<ProgressToken, ProgressToken>) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Counts the client's request `id` as in flight until the guard is dropped.
    pub(crate) fn in_flight(&self, id: RequestId) -> InFlight {
        self.1
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(id.clone());
        InFlight {
            ids: Arc::clone(&self.1),
            id,
        }
    }

    /// Puts the server's progress under `own` back under the client's `token` until the
    /// guard is dropped.
    pub(crate) fn relay(&self, own: ProgressToken, token: ProgressToken) -> RelayedProgress {
        self.with(|tokens| tokens.insert(own.clone(), token));
        RelayedProgress {
            tokens: self.clone(),
            own,
        }
    }

    /// The client's request in flight, when there is exactly one.
    fn sole_in_flight(&self) -> Option<RequestId> {
        match self
            .1
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_slice()
        {
            [only] => Some(only.clone()),
            _ => None,
        }
    }
}

/// A progress token relayed to the client's (see [`ProgressTokens::relay`]).
pub(crate) struct RelayedProgress {
    tokens: ProgressTokens,
    own: ProgressToken,
}

impl Drop for RelayedProgress {
    fn drop(&mut self) {
        self.tokens.with(|tokens| tokens.remove(&self.own));
    }
}

/// A client's request in flight to the server (see [`ProgressTokens::in_flight`]).
pub(crate) struct InFlight {
    ids: Arc<Mutex<Vec<RequestId>>>,
    id: RequestId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut ids = self.ids.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = ids.iter().position(|id| *id == self.id) {
            ids.remove(at);
        }
    }
}

/// The proxy's client, once a request of it opened a way back to it (a stateless client's
/// `server/discover` comes before its session, and leaves the slot empty).
#[derive(Clone, Default)]
pub(crate) struct ClientSlot(Arc<OnceLock<Peer<RoleServer>>>);

impl ClientSlot {
    /// Keeps `peer` as the way to the client, unless one is kept already.
    pub(crate) fn set(&self, peer: Peer<RoleServer>) -> Result<(), Peer<RoleServer>> {
        self.0.set(peer)
    }

    /// The client, once a request of it opened the way back.
    pub(crate) fn get(&self) -> Option<&Peer<RoleServer>> {
        self.0.get()
    }
}

/// The client of the server: the proxy's client's identity, and the way back to it.
#[derive(Clone)]
pub(crate) struct ServerSide {
    /// The proxy's client's `initialize`, given to the server as this client's own.
    pub(crate) client_info: ClientConfig,
    /// The proxy's client.
    pub(crate) client: ClientSlot,
    pub(crate) progress: ProgressTokens,
    /// The server's pins, told when its tools change.
    pub(crate) pins: Option<Arc<PinGuard>>,
}

impl Service<RoleClient> for ServerSide {
    async fn handle_request(
        &self,
        request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<ClientResult, McpError> {
        if let ServerRequest::CustomRequest(request) = &request
            && request.method == OVERSIZED_METHOD
        {
            let message = oversized_message(request.params.as_ref());
            return Err(McpError::invalid_request(message, None));
        }
        if let ServerRequest::ElicitRequest(elicitation) = &request
            && let Some(refusal) = server_asks::refusal(&elicitation.params)
        {
            tracing::warn!(%refusal, "an elicitation of the MCP server was refused");
            return Err(McpError::invalid_params(refusal, None));
        }
        // A request of the server waits for the client (and perhaps a person) as long as the
        // server lets it: the server cancels it when it gives up.
        let method = serde_json::to_value(&request)
            .ok()
            .and_then(|request| request["method"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let Some(client) = self.client.get().cloned() else {
            return Err(McpError::internal_error(
                format!("the MCP client cannot be reached yet to answer `{method}`"),
                None,
            ));
        };
        let mut request = request;
        if let Some(id) = self.progress.sole_in_flight() {
            request.extensions_mut().insert(OriginatingRequestId(id));
        }
        let options = PeerRequestOptions::no_options().with_meta(context.meta);
        // Sent from a task of its own: in this handler's task rmcp would tie the request to
        // the server's id for the request being handled, which the client never saw.
        let (progress, cancelled) = (self.progress.clone(), context.ct.clone());
        let sent = tokio::spawn(async move {
            send(
                &client,
                request,
                options,
                cancelled.cancelled(),
                &progress,
                None,
            )
            .await
        });
        // A task that did not finish (the runtime is shutting down) has no answer.
        sent.await
            .unwrap_or(Err(ServiceError::TransportClosed))
            .map_err(|error| {
                McpError::internal_error(
                    format!("the MCP client did not answer `{method}`: {error}"),
                    None,
                )
            })
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> Result<(), McpError> {
        let notification = match notification {
            // A cancellation names a request by the server's id for it; rmcp has already
            // cancelled the proxy's handler of that request, which cancels it at the client.
            ServerNotification::CancelledNotification(_) => return Ok(()),
            ServerNotification::ToolListChangedNotification(changed) => {
                if let Some(pins) = &self.pins {
                    pins.forget();
                }
                ServerNotification::ToolListChangedNotification(changed)
            }
            ServerNotification::ProgressNotification(mut progress) => {
                let token = &progress.params.progress_token;
                match self.progress.with(|tokens| tokens.get(token).cloned()) {
                    Some(client_token) => progress.params.progress_token = client_token,
                    // The client asked for no progress on that request.
                    None => return Ok(()),
                }
                ServerNotification::ProgressNotification(progress)
            }
            other => other,
        };
        let Some(client) = self.client.get() else {
            tracing::debug!(
                "a notification of the MCP server came before the client could be reached"
            );
            return Ok(());
        };
        if let Err(error) = client.send_notification(notification).await {
            tracing::debug!(%error, "a notification of the MCP server did not reach the client");
        }
        Ok(())
    }

    fn get_info(&self) -> ClientConfig {
        self.client_info.clone()
    }
}

/// Sends `request` to `peer` and waits for its answer: within `deadline` when there is one
/// (past it, the request is cancelled at the peer), and until `cancelled` fires (then it is
/// cancelled at the peer too). The peer's progress on it is reported under the token of
/// `meta` (the sender's own), through `progress`.
pub(crate) async fn send<R: ServiceRole>(
    peer: &Peer<R>,
    request: R::Req,
    mut options: PeerRequestOptions,
    cancelled: impl Future<Output = ()>,
    progress: &ProgressTokens,
    deadline: Option<Duration>,
) -> Result<R::PeerResp, ServiceError>
where
    R::Not: From<CancelledNotification>,
{
    options.timeout = deadline;
    let asked_progress = options
        .meta
        .as_ref()
        .and_then(RequestMetaObject::get_progress_token);
    let handle = peer.send_request_with_option(request, options).await?;
    let own_token = handle.progress_token.clone();
    if let Some(token) = asked_progress {
        progress.with(|tokens| tokens.insert(own_token.clone(), token));
    }
    let id = handle.id.clone();
    let answer = tokio::select! {
        answer = handle.await_response() => answer,
        () = cancelled => {
            let notification = CancelledNotification::new(CancelledNotificationParam::new(
                Some(id),
                Some("cancelled by its sender".to_owned()),
            ));
            let _ = peer.send_notification(notification.into()).await;
            Err(ServiceError::Cancelled { reason: None })
        }
    };
    progress.with(|tokens| tokens.remove(&own_token));
    answer
}
