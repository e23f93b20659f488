//! The proxy's side toward the client: an MCP server that opens the server's session when the
//! client initializes (or, for a client of the stateless era, at its first request), gates
//! every `tools/call`, and forwards everything else, translating between the eras where the
//! two sides differ (see [`era`](super::era)).

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use hooks_core::session::HookSession;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientNotification,
    ClientRequest, ContentBlock, Implementation, InitializeRequestParams, ProtocolVersion,
    ServerConfig, ServerPeerInfo, ServerResult,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RunningService, ServiceError,
    serve_directly,
};
use rmcp::transport::Transport;
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, Service};
use serde_json::Value;
use tokio::sync::Mutex;
use tracing::Instrument;

use super::Settings;
use super::ask::{Asking, CallUnderGate, Stop, asking_about};
use super::era::{self, Era};
use super::grants::Grants;
use super::input_rounds;
use super::lane::{Lane, LaneCalls, OnLane};
use super::limit::{OVERSIZED_METHOD, oversized_message};
use super::pin_audit;
use super::pin_guard::{CallVerdict, PinGuard};
use super::trace_context;
use super::upstream::{ClientSlot, ProgressTokens, ServerSide, send};
use crate::call::gate_call;

/// The server's session: not opened yet (its transport kept until the client initializes or
/// makes its first stateless request), open, or closed.
enum Upstream<T> {
    Waiting(T),
    Open(RunningService<RoleClient, ServerSide>),
    Closed(String),
}

/// The proxy as the client sees it. Clones share the one server session.
pub(crate) struct Relay<T> {
    settings: Arc<Settings>,
    session: Arc<HookSession>,
    upstream: Arc<Mutex<Upstream<T>>>,
    /// The server, once its session is open (kept apart so that calls do not wait on the lock).
    server: Arc<OnceLock<Opened>>,
    /// The client, as the server's requests reach it.
    client: ClientSlot,
    progress: ProgressTokens,
    /// The server's pins, when they are kept.
    pins: Option<Arc<PinGuard>>,
    /// The asks of a stateless client waiting for its retry.
    grants: Arc<Grants>,
    /// The `tools/call` lane, on stdio (see [`lane`](super::lane)).
    lane: Option<Arc<Lane>>,
}

/// The server's open session.
struct Opened {
    peer: Peer<RoleClient>,
    /// What the server said of itself.
    info: ServerPeerInfo,
    /// The era the server speaks.
    era: Era,
    /// The client the server's session was opened for.
    client: InitializeRequestParams,
}

impl<T> Clone for Relay<T> {
    fn clone(&self) -> Self {
        Relay {
            settings: Arc::clone(&self.settings),
            session: Arc::clone(&self.session),
            upstream: Arc::clone(&self.upstream),
            server: Arc::clone(&self.server),
            client: self.client.clone(),
            progress: self.progress.clone(),
            pins: self.pins.clone(),
            grants: Arc::clone(&self.grants),
            lane: self.lane.clone(),
        }
    }
}

impl<T> Relay<T>
where
    T: Transport<RoleClient> + Send + 'static,
{
    /// A relay to the server on `upstream`, whose session opens when the client initializes;
    /// with `lane`, its calls are carried by that lane once the server's session is open.
    pub(crate) fn new(
        settings: Arc<Settings>,
        session: Arc<HookSession>,
        upstream: T,
        lane: Option<Arc<Lane>>,
    ) -> Self {
        let pins = settings
            .pins
            .clone()
            .map(|store| Arc::new(PinGuard::new(store, settings.server.clone())));
        Relay {
            pins,
            settings,
            session,
            upstream: Arc::new(Mutex::new(Upstream::Waiting(upstream))),
            server: Arc::default(),
            client: ClientSlot::default(),
            progress: ProgressTokens::default(),
            grants: Arc::default(),
            lane,
        }
    }

    /// Closes the server's session.
    pub(crate) async fn close(&self) {
        if let Some(lane) = &self.lane {
            lane.close();
        }
        let mut upstream = self.upstream.lock().await;
        if let Upstream::Open(running) = &mut *upstream {
            let _ = running.close().await;
        }
        *upstream = Upstream::Closed("the proxy is closing".to_owned());
    }

    /// Opens the server's session for a client of the handshake era, with the client's own
    /// `initialize`; the server's answer is the client's (a server of the stateless era is
    /// opened by `server/discover`, and its answer is put as an `initialize` result).
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        client: Peer<RoleServer>,
    ) -> Result<ServerConfig, McpError> {
        let _ = self.client.set(client);
        let asked = request.protocol_version.clone();
        let opened = self.open(request, Era::Handshake, true).await?;
        self.open_lane();
        let mut config = self.server_config(&opened.info);
        if opened.era == Era::Stateless {
            // The client's own version, which rmcp's negotiation settles.
            config.protocol_version = asked;
        }
        Ok(config)
    }

    /// The server's session for a request of a client of the stateless era: opened with the
    /// identity and capabilities of the request's `_meta` if it is not open yet.
    async fn open_for(&self, context: &RequestContext<RoleServer>) -> Result<&Opened, McpError> {
        if let Some(opened) = self.server.get() {
            return Ok(opened);
        }
        let client = era::client_of_request(&context.meta);
        self.open(client, Era::Stateless, false).await
    }

    /// Opens the server's session for `client`, who speaks `era`, within the deadline (an
    /// `initialize` finding it open is an error, `only_once`).
    async fn open(
        &self,
        client: InitializeRequestParams,
        era: Era,
        only_once: bool,
    ) -> Result<&Opened, McpError> {
        let mut upstream = self.upstream.lock().await;
        let mut transport = match std::mem::replace(
            &mut *upstream,
            Upstream::Closed("the MCP server's session is already open".to_owned()),
        ) {
            Upstream::Waiting(transport) => transport,
            Upstream::Open(running) => {
                *upstream = Upstream::Open(running);
                return match self.server.get() {
                    Some(opened) if !only_once => Ok(opened),
                    _ => Err(McpError::invalid_request(
                        "the session is already initialized",
                        None,
                    )),
                };
            }
            Upstream::Closed(why) => {
                *upstream = Upstream::Closed(why.clone());
                return Err(self.unavailable(&why));
            }
        };
        let timeout = self.settings.call_timeout;
        let info = match era::open_upstream(&mut transport, &client, era, timeout).await {
            Ok(info) => info,
            Err(why) => {
                let why = format!("its session did not start: {why}");
                *upstream = Upstream::Closed(why.clone());
                return Err(self.unavailable(&why));
            }
        };
        let server_era = Era::of_version(&info.protocol_version);
        tracing::debug!(client = ?era, server = ?server_era, "the MCP server's session is open");
        let side = ServerSide {
            client_info: client.clone(),
            client: self.client.clone(),
            progress: self.progress.clone(),
            pins: self.pins.clone(),
        };
        let running = serve_directly(side, transport, Some(info.clone()));
        let opened = Opened {
            peer: running.peer().clone(),
            info,
            era: server_era,
            client,
        };
        let _ = self.server.set(opened);
        *upstream = Upstream::Open(running);
        self.server
            .get()
            .ok_or_else(|| self.unavailable("its session was lost as it opened"))
    }

    /// Opens the lane, if there is one and it is not open, once the server's session is open and
    /// the client can be reached.
    fn open_lane(&self) {
        let Some(lane) = &self.lane else {
            return;
        };
        if let (false, Some(_), Some(client)) =
            (lane.is_open(), self.server.get(), self.client.get())
        {
            lane.open(Arc::new(self.clone()), client.clone());
        }
    }

    /// The server's `initialize` answer, as the client gets it.
    fn server_config(&self, info: &ServerPeerInfo) -> ServerConfig {
        let mut config = ServerConfig::new(info.capabilities.clone())
            .with_protocol_version(info.protocol_version.clone());
        config.server_info = info
            .server_info
            .clone()
            .unwrap_or_else(|| Implementation::new(self.settings.server.clone(), ""));
        config.instructions = info.instructions.clone();
        config.meta = info.meta.clone();
        config
    }

    /// The error for a server that cannot be reached.
    fn unavailable(&self, why: &str) -> McpError {
        McpError::internal_error(
            format!(
                "the MCP server `{}` is unavailable: {why}",
                self.settings.server
            ),
            None,
        )
    }

    /// The server's session, when it is open.
    fn opened(&self) -> Result<&Opened, McpError> {
        self.server.get().ok_or_else(|| {
            McpError::invalid_request(
                "the session is not initialized: send `initialize` first",
                None,
            )
        })
    }

    /// The server, when its session is open.
    fn server(&self) -> Result<&Peer<RoleClient>, McpError> {
        self.opened().map(|opened| &opened.peer)
    }

    /// Forwards `request` to the server under the deadline, and the client's cancellation.
    async fn forward(
        &self,
        request: ClientRequest,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let method = request.method().to_owned();
        let server = self.server()?;
        let _in_flight = self.progress.in_flight(context.id.clone());
        let server_era = self
            .server
            .get()
            .map_or(Era::Handshake, |opened| opened.era);
        let mut meta = era::meta_for_server(context.meta.clone(), server_era);
        trace_context::name_current_span(&mut meta);
        let options = PeerRequestOptions::no_options().with_meta(meta);
        send(
            server,
            request,
            options,
            context.ct.cancelled(),
            &self.progress,
            Some(self.settings.call_timeout),
        )
        .await
        .map_err(|error| self.failed(&method, error))
    }

    /// What the client is told when a forwarded `method` failed.
    fn failed(&self, method: &str, error: ServiceError) -> McpError {
        let server = &self.settings.server;
        match error {
            // The server's own error reaches the client as the server gave it.
            ServiceError::McpError(error) => error,
            ServiceError::Timeout { timeout } => McpError::internal_error(
                format!(
                    "the MCP server `{server}` did not answer `{method}` within {}; \
                     the request was cancelled",
                    seconds(timeout)
                ),
                None,
            ),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                McpError::internal_error(
                    format!(
                        "the MCP server `{server}` closed its connection (it exited or \
                         crashed) before answering `{method}`"
                    ),
                    None,
                )
            }
            ServiceError::Cancelled { .. } => McpError::internal_error(
                format!("`{method}` was cancelled before the MCP server `{server}` answered"),
                None,
            ),
            other => McpError::internal_error(
                format!("the MCP server `{server}` could not answer `{method}`: {other}"),
                None,
            ),
        }
    }

    /// One `tools/call`: gated, and forwarded only as the gate lets it through.
    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // A call before `initialize` is refused before any hook runs.
        self.server()?;
        let hook_name = format!("{}{}", self.settings.tool_prefix, request.name);
        if let Some(held) = self.held_back(&request.name).await {
            tracing::warn!(tool = %hook_name, why = %held, "a call of a held-back MCP tool was refused");
            pin_audit::record_held_back(
                &self.session,
                &self.settings.server,
                &hook_name,
                request.arguments.as_ref(),
                &held,
            )
            .await;
            let text = format!(
                "Tool call denied by the MCP proxy: the tool `{hook_name}` is held back until \
                 the user approves it ({held}). The user can review it with `hooks mcp pins` \
                 and approve it with `hooks mcp approve {}`.",
                self.settings.server
            );
            return Ok(CallToolResponse::Complete(CallToolResult::error(vec![
                ContentBlock::text(text),
            ])));
        }
        let era = Era::of_request(&context);
        let (asking, can_elicit) = match era {
            Era::Handshake => (
                Asking::default(),
                context
                    .peer
                    .peer_info()
                    .is_some_and(|info| info.capabilities.elicitation.is_some()),
            ),
            Era::Stateless => (
                Asking::take_from(&mut request),
                context
                    .meta
                    .client_capabilities()
                    .is_some_and(|capabilities| capabilities.elicitation.is_some()),
            ),
        };
        let asking = Arc::new(std::sync::Mutex::new(asking));
        let call = CallUnderGate {
            client: context.peer.clone(),
            tool: hook_name.clone(),
            arguments: Value::Object(request.arguments.clone().unwrap_or_default()),
            era,
            can_elicit,
            grants: Arc::clone(&self.grants),
            asking: Arc::clone(&asking),
        };
        let asked = Arc::clone(&asking);
        let gated = gate_call(
            &self.session,
            &hook_name,
            request,
            context,
            |mut request, context| async move {
                // Stopped on this trip (the client is being asked, or its retry was refused):
                // whatever the hooks' defaults made of it, the call does not go on.
                if let Some(stop) = Asking::stop(&asked) {
                    return Ok(self.stopped(stop));
                }
                if let Some(inputs) = Asking::redeemed(&asked) {
                    request.request_state = inputs.state;
                    request.input_responses = inputs.responses;
                }
                // A stateless server's questions cannot reach a handshake client as they
                // are: the proxy puts them to it and retries the call with the answers.
                if era == Era::Handshake && self.server_era() == Era::Stateless {
                    let server = &self.settings.server;
                    let forward = |request| self.forward_call(request, &context);
                    return input_rounds::answered_by_client(
                        request,
                        &context,
                        &self.progress,
                        server,
                        forward,
                    )
                    .await;
                }
                self.forward_call(request, &context).await
            },
        );
        let answer = asking_about(call, gated).await;
        match Asking::stop(&asking) {
            Some(stop) => Ok(self.stopped(stop)),
            None => answer,
        }
    }

    /// Forwards one `tools/call` (as the gate let it through) and takes the server's answer
    /// for a tool's.
    async fn forward_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let answer = match &self.lane {
            Some(lane) if context.extensions.get::<OnLane>().is_some() => {
                self.forward_on_lane(lane, request, context).await?
            }
            _ => {
                let forwarded = ClientRequest::CallToolRequest(CallToolRequest::new(request));
                self.forward(forwarded, context).await?
            }
        };
        match answer {
            ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
            ServerResult::InputRequiredResult(result) => {
                Ok(CallToolResponse::InputRequired(result))
            }
            ServerResult::CreateTaskResult(result) => Ok(CallToolResponse::Task(result)),
            // A result with no field the protocol requires parses as one of these;
            // it is taken for what it can only be, an empty tool result.
            ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(
                rmcp::model::CallToolResult::success(Vec::new()),
            )),
            other => Err(McpError::internal_error(
                format!(
                    "the MCP server `{}` answered `tools/call` with something that \
                     is not a tool result: {}",
                    self.settings.server,
                    serde_json::to_string(&other).unwrap_or_default()
                ),
                None,
            )),
        }
    }

    /// Forwards one `tools/call` that came by the lane, by the lane, under the deadline and
    /// the client's cancellation.
    async fn forward_on_lane(
        &self,
        lane: &Lane,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let opened = self.opened()?;
        let _in_flight = self.progress.in_flight(context.id.clone());
        let mut meta = era::meta_for_server(context.meta.clone(), opened.era);
        if opened.era == Era::Stateless {
            // What rmcp's client would put on the request, where the client did not.
            era::fill_lifecycle(&mut meta, &opened.client, &opened.info.protocol_version);
        }
        trace_context::name_current_span(&mut meta);
        let deadline = self.settings.call_timeout;
        lane.forward(
            request,
            meta,
            context.ct.cancelled(),
            &self.progress,
            deadline,
        )
        .await
        .map_err(|error| self.failed("tools/call", error))
    }

    /// The era of the server, once its session is open.
    fn server_era(&self) -> Era {
        self.server
            .get()
            .map_or(Era::Handshake, |opened| opened.era)
    }

    /// The answer to a call stopped on its trip through the gate.
    fn stopped(&self, stop: Stop) -> CallToolResponse {
        match stop {
            Stop::Ask(ask) => CallToolResponse::InputRequired(ask),
            Stop::Refused(why) => {
                tracing::warn!(%why, "a retried MCP call was refused");
                let text = format!("Tool call denied by the MCP proxy: {why}.");
                CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
            }
        }
    }
}

impl<T> Relay<T>
where
    T: Transport<RoleClient> + Send + 'static,
{
    /// Why a call of `tool` may not go to the server under the pins, if it may not. A tool not
    /// listed in this session is looked up in a listing of the server's own first.
    async fn held_back(&self, tool: &str) -> Option<String> {
        let pins = self.pins.as_ref()?;
        match pins.verdict(tool) {
            CallVerdict::Pinned => return None,
            CallVerdict::Held(why) => return Some(why),
            CallVerdict::Unlisted => {}
        }
        let server = match self.server() {
            Ok(server) => server,
            Err(error) => return Some(error.message.to_string()),
        };
        let timeout = self.settings.call_timeout;
        match tokio::time::timeout(timeout, server.list_all_tools()).await {
            Ok(Ok(tools)) => {
                pins.review(tools, true);
            }
            Ok(Err(error)) => {
                return Some(format!("the server's tools could not be listed: {error}"));
            }
            Err(_elapsed) => {
                return Some(format!(
                    "the server did not list its tools within {}",
                    seconds(timeout)
                ));
            }
        }
        match pins.verdict(tool) {
            CallVerdict::Pinned => None,
            CallVerdict::Held(why) => Some(why),
            CallVerdict::Unlisted => {
                Some("the server does not list it, so it has no pin".to_owned())
            }
        }
    }

    /// The server's answer to a `tools/list`, with the tools the pins hold back left out.
    async fn list_tools(
        &self,
        request: ClientRequest,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let answer = self.forward(request, context).await?;
        match (answer, &self.pins) {
            (ServerResult::ListToolsResult(mut list), Some(pins)) => {
                let last_page = list.next_cursor.is_none();
                list.tools = pins.review(std::mem::take(&mut list.tools), last_page);
                Ok(ServerResult::ListToolsResult(list))
            }
            (answer, _) => Ok(answer),
        }
    }
}

/// A duration as the error messages give it.
fn seconds(duration: std::time::Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

impl<T> Service<RoleServer> for Relay<T>
where
    T: Transport<RoleClient> + Send + 'static,
{
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let era = Era::of_request(&context);
        match &request {
            // Answered before the client's session exists: no way back to it here.
            ClientRequest::DiscoverRequest(_) => {
                let opened = self.open_for(&context).await?;
                let answer = era::discover_answer(&opened.info, &self.settings.server);
                return Ok(ServerResult::DiscoverResult(answer));
            }
            ClientRequest::InitializeRequest(_) => {}
            _ if era == Era::Stateless => {
                let _ = self.client.set(context.peer.clone());
                self.open_for(&context).await?;
                self.open_lane();
            }
            _ => {}
        }
        let mut answer = self.answer(request, context).await?;
        era::shape_for_client(&mut answer, era);
        Ok(answer)
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        _context: NotificationContext<RoleServer>,
    ) -> Result<(), McpError> {
        match notification {
            // The server's session sent its own `initialized` when it opened.
            ClientNotification::InitializedNotification(_) => Ok(()),
            // Cancellations are carried by the requests they cancel (see `forward`).
            ClientNotification::CancelledNotification(_) => Ok(()),
            other => {
                if let Some(opened) = self.server.get()
                    && let Err(error) = opened.peer.send_notification(other).await
                {
                    tracing::debug!(%error, "a notification of the client did not reach the MCP server");
                }
                Ok(())
            }
        }
    }

    fn get_info(&self) -> ServerConfig {
        self.server
            .get()
            .map(|opened| self.server_config(&opened.info))
            .unwrap_or_default()
    }

    // Every version: the proxy speaks each era to the client, whatever the server's.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
    }
}

impl<T> Relay<T>
where
    T: Transport<RoleClient> + Send + 'static,
{
    /// The answer to one request of the client, in the server's shape.
    async fn answer(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        match request {
            ClientRequest::InitializeRequest(request) => self
                .initialize(request.params, context.peer.clone())
                .await
                .map(ServerResult::InitializeResult),
            ClientRequest::CallToolRequest(request) => {
                self.answer_call(request.params, context).await
            }
            ClientRequest::CustomRequest(request) if request.method == OVERSIZED_METHOD => Err(
                McpError::invalid_request(oversized_message(request.params.as_ref()), None),
            ),
            request @ ClientRequest::ListToolsRequest(_) => {
                self.list_tools(request, &context).await
            }
            other => self.forward(other, &context).await,
        }
    }

    /// The answer to one `tools/call`, in its span.
    async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let span = trace_context::call_span(&self.settings.server, &request.name, &context.meta);
        self.call_tool(request, context)
            .instrument(span)
            .await
            .map(ServerResult::from)
    }
}

impl<T> LaneCalls for Relay<T>
where
    T: Transport<RoleClient> + Send + 'static,
{
    fn answer(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<ServerResult, McpError>> + Send>> {
        let relay = self.clone();
        Box::pin(async move {
            let era = Era::of_request(&context);
            let mut answer = relay.answer_call(request, context).await?;
            era::shape_for_client(&mut answer, era);
            Ok(answer)
        })
    }
}
