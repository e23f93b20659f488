//! [`HookedServer`]: an rmcp [`ServerHandler`] whose `tools/call` runs through the gate, and
//! which forwards every other method to the server it wraps.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use hooks_core::session::HookSession;
use hooks_core::session::HookSessionBuilder;
#[allow(deprecated)] // SetLevelRequestParams: see `set_level`
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use crate::call::gated_call;
use crate::sinks::{NoHistory, TracingDisplay};

/// The default field naming the MCP server (its `serverInfo.name`) in every event.
pub const SERVER_FIELD: &str = "mcp_server";

/// The default field carrying the session id given to [`HookedServerBuilder::session_id`].
pub const SESSION_FIELD: &str = hooks_core::events::fields::SESSION_ID;

/// An MCP server whose tool calls are governed by hooks.
///
/// `tools/call` runs through [`HookSession::run_tool`]: `tool:pre` (deny, modify, ask_user),
/// the wrapped server's `call_tool`, then `tool:post` or `tool:error`; see the crate docs for
/// how each outcome is answered. Every other [`ServerHandler`] method, `get_info` and
/// `list_tools` included, is the wrapped server's own.
///
/// One `HookedServer` is one hook session: serve one per connection (clone the registry, not
/// the server, when a transport serves many clients), so that "allow always" answers and the
/// injection budget are not shared between clients.
pub struct HookedServer<S> {
    inner: S,
    session: Arc<HookSession>,
}

impl<S: fmt::Debug> fmt::Debug for HookedServer<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookedServer")
            .field("inner", &self.inner)
            .field("session", &self.session)
            .finish()
    }
}

impl<S: Clone> Clone for HookedServer<S> {
    /// A clone shares the hook session (its approvals, budget and audit log).
    fn clone(&self) -> Self {
        HookedServer {
            inner: self.inner.clone(),
            session: Arc::clone(&self.session),
        }
    }
}

impl<S> HookedServer<S> {
    /// Wraps `inner`, gating its tool calls with `session` as it is (its registry's default
    /// fields untouched).
    pub fn new(inner: S, session: Arc<HookSession>) -> Self {
        HookedServer { inner, session }
    }

    /// Starts building a wrapper of `inner` whose tool calls are gated by a session built by
    /// `session`: a [`HookSessionBuilder`] with the server's approval provider and injection
    /// policy (the budget is per call), or a registry alone for every default. Unless the
    /// builder sets them, the session's history is [`NoHistory`] (the client holds the
    /// conversation) and its display [`TracingDisplay`].
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use hooks_core::HookRegistry;
    /// # use hooks_core::session::{HookSession, ScriptedApprovals};
    /// # use hooks_mcp::HookedServer;
    /// # use rmcp::{ServerHandler, model::ServerConfig};
    /// # #[derive(Clone)] struct MyServer;
    /// # impl ServerHandler for MyServer { fn get_info(&self) -> ServerConfig { ServerConfig::default() } }
    /// let approvals = Arc::new(ScriptedApprovals::choosing(["Allow once"]));
    /// let server = HookedServer::builder(
    ///     MyServer,
    ///     HookSession::builder(HookRegistry::new()).approvals(approvals),
    /// )
    /// .session_id("s-1")
    /// .build();
    /// # let _ = server;
    /// ```
    pub fn builder(inner: S, session: impl Into<HookSessionBuilder>) -> HookedServerBuilder<S> {
        HookedServerBuilder {
            inner,
            session: session.into(),
            session_id: None,
            set_default_fields: true,
        }
    }

    /// The wrapped server.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The hook session that gates the tool calls.
    pub fn session(&self) -> &Arc<HookSession> {
        &self.session
    }

    /// The wrapped server, unwrapped.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

/// Builds a [`HookedServer`]: the session's policy is its [`HookSessionBuilder`]'s, the rest
/// has a default.
pub struct HookedServerBuilder<S> {
    inner: S,
    session: HookSessionBuilder,
    session_id: Option<String>,
    set_default_fields: bool,
}

impl<S> HookedServerBuilder<S> {
    /// The session id every event carries as its `session_id` (and the key of the session's
    /// state); without one, the hook session makes its own.
    #[must_use]
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Leaves the registry's default fields as they are, instead of replacing them with
    /// [`SERVER_FIELD`] and [`SESSION_FIELD`].
    #[must_use]
    pub fn keep_default_fields(mut self) -> Self {
        self.set_default_fields = false;
        self
    }
}

impl<S: ServerHandler> HookedServerBuilder<S> {
    /// The wrapper. Unless [`keep_default_fields`](Self::keep_default_fields) was called, the
    /// registry's default fields become `mcp_server` (the wrapped server's name) and, when
    /// given, `session_id`: every event then carries them.
    pub fn build(self) -> HookedServer<S> {
        if self.set_default_fields {
            let mut fields = vec![(
                SERVER_FIELD,
                Value::from(self.inner.get_info().server_info.name),
            )];
            if let Some(id) = &self.session_id {
                fields.push((SESSION_FIELD, Value::from(id.as_str())));
            }
            self.session.registry().set_default_fields(fields);
        }
        let mut session = self.session;
        // The session's own id, which it adds to every event it emits and keys its state on.
        if let Some(id) = self.session_id {
            session = session.session_id(id);
        }
        let session = session
            .default_context(|| Arc::new(NoHistory))
            .default_display(|| Arc::new(TracingDisplay));
        HookedServer::new(self.inner, Arc::new(session.build()))
    }
}

// Every method of `ServerHandler` (rmcp 3.11) is forwarded, so that the wrapped server's own
// implementations, not rmcp's defaults, answer everything but `tools/call`.
impl<S: ServerHandler> ServerHandler for HookedServer<S> {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        gated_call(&self.inner, &self.session, request, context).await
    }

    fn ping(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        self.inner.ping(context)
    }

    fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<InitializeResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.initialize(request, context)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, McpError> {
        self.inner.negotiate_initialize(request)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.discover(context)
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.complete(request, context)
    }

    #[allow(deprecated)] // logging is deprecated by SEP-2577, still served to older clients
    fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        self.inner.set_level(request, context)
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetPromptResponse, McpError>> + MaybeSendFuture + '_ {
        self.inner.get_prompt(request, context)
    }

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.list_prompts(request, context)
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.list_resources(request, context)
    }

    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourceTemplatesResult, McpError>> + MaybeSendFuture + '_
    {
        self.inner.list_resource_templates(request, context)
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceResponse, McpError>> + MaybeSendFuture + '_ {
        self.inner.read_resource(request, context)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    fn listen(
        &self,
        context: SubscriptionContext,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        self.inner.listen(context)
    }

    #[allow(deprecated)] // still served to clients of the older protocol versions
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        self.inner.subscribe(request, context)
    }

    #[allow(deprecated)] // still served to clients of the older protocol versions
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        self.inner.unsubscribe(request, context)
    }

    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.list_tools(request, context)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }

    fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CustomResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.on_custom_request(request, context)
    }

    fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_cancelled(notification, context)
    }

    fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_progress(notification, context)
    }

    fn on_initialized(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_initialized(context)
    }

    fn on_roots_list_changed(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_roots_list_changed(context)
    }

    fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_custom_notification(notification, context)
    }

    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetTaskResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.get_task(request, context)
    }

    fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        self.inner.update_task(request, context)
    }

    fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        self.inner.cancel_task(request, context)
    }

    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListSkillsResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.list_skills(request, context)
    }

    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetSkillResult, McpError>> + MaybeSendFuture + '_ {
        self.inner.get_skill(request, context)
    }

    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceDirectoryResult, McpError>> + MaybeSendFuture + '_
    {
        self.inner.read_resource_directory(request, context)
    }
}
