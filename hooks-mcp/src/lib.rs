//! Hooks for MCP servers: any [rmcp](https://docs.rs/rmcp) [`ServerHandler`] wrapped so that
//! every `tools/call` runs through the tool-call gate of [`hooks_core::session::HookSession`] (its
//! public steps, [`ToolCallGate`](hooks_core::session::gate::ToolCallGate), around the wrapped
//! server's `call_tool`): a call is decided exactly as `HookSession::run_tool` decides it.
//!
//! ```no_run
//! # use hooks_core::HookRegistry;
//! # use hooks_mcp::HookedServer;
//! # use rmcp::{ServerHandler, model::ServerConfig};
//! # #[derive(Clone)] struct MyServer;
//! # impl ServerHandler for MyServer { fn get_info(&self) -> ServerConfig { ServerConfig::default() } }
//! # let registry = HookRegistry::new();
//! let server = HookedServer::builder(MyServer, registry).build();
//! // then serve it as the unwrapped server was: `server.serve(transport)` (rmcp::ServiceExt)
//! ```
//!
//! The same gate guards MCP servers written in anything: [`proxy::McpProxy`] stands between a
//! client and a server it starts (`hooks mcp-proxy -- <server command>`), and gates the
//! server's tool calls under their Claude Code names, `mcp__<server>__<tool>`.
//!
//! # Supported rmcp
//!
//! rmcp 3.x from 3.11 (3.11.0 is the version tested), with `default-features = false` and the
//! `server` feature only. [`HookedServer`] forwards each of the 32 methods `ServerHandler` has
//! in 3.11; a method a later 3.x release adds would answer with rmcp's default until this
//! crate forwards it too.
//!
//! # From MCP to hook events
//!
//! | MCP | hook events |
//! |---|---|
//! | `tools/call` | `tool:pre` → (ask_user: the approval provider, `approval:*`) → the wrapped server's `call_tool` → `tool:post`, or `tool:error` when it fails |
//! | everything else (`initialize`, `tools/list`, resources, prompts, tasks, notifications, ...) | none: passed to the wrapped server unchanged |
//!
//! The event data is the kernel's: `tool_name` (the MCP tool name), `tool_input` (the call's
//! `arguments`, `{}` when it has none), then `tool_result` or `error`:
//!
//! - `tool_result` is the result's **text** when the result is one text block and no
//!   structured content (the usual case, and what tools of other integrations give: a hook
//!   written for them works here); any other result is its **MCP JSON**,
//!   `{"content": [...], "structuredContent": ..., "isError": false}`;
//! - `error` is the text of an `isError` result, or a protocol error's message.
//!
//! Unless told otherwise ([`HookedServerBuilder::keep_default_fields`]), every event also
//! carries `mcp_server` (the server's `serverInfo.name`) and, when given, `session_id`.
//!
//! What the client is answered:
//!
//! - **deny** on `tool:pre`: the server's tool does not run; the answer is a tool result with
//!   `isError: true` whose text is what the agent is told (`Tool call denied by a hook:
//!   <reason>`), so the model reads the reason.
//! - **modify** on `tool:pre`: the rewritten `tool_input` is the `arguments` the server's tool
//!   receives. It must stay a JSON object; anything else fails closed (the tool is not called,
//!   `tool:error` fires and the client gets an `isError` result saying why).
//! - **ask_user** on `tool:pre`: the request goes to the [`ApprovalProvider`] given to the
//!   session's builder ([`HookSessionBuilder::approvals`], passed to
//!   [`HookedServer::builder`]), with the kernel's rules (timeout and errors fall back
//!   to the hook's default, deny unless it said allow; "… always" answers are remembered for
//!   this server's session). Without a provider the default decides. The connected client's
//!   elicitation capability is **not** used: a server that wants to ask through the client
//!   implements an `ApprovalProvider` that does so. A refusal is answered like a deny.
//! - **modify** on `tool:post`: the rewritten `tool_result` is sent: a rewritten text replaces
//!   the text of the block (its annotations stay); rewritten MCP JSON is sent as it is; MCP
//!   JSON replaced by something that is not an MCP result (e.g. a string) becomes the result's
//!   only text content. An unmodified result is sent exactly as the server answered it.
//! - **deny** on `tool:post`: the output is withheld; the client gets an `isError` result
//!   saying so, with the hook's reason.
//! - A tool that fails (`isError: true`, or a protocol error) fires `tool:error`; its result
//!   or error reaches the client as the server produced it, unless a `tool:error` hook
//!   rewrote `error`: its text then replaces the result's content (or the protocol error's
//!   message).
//! - Interim answers (input required, a task handle) fire `tool:post` and are passed on
//!   unchanged unless a `tool:post` hook denies. The client's retry with the input asked for
//!   is a new `tools/call`, gated again from `tool:pre`.
//!
//! # Injections
//!
//! A server has no conversation to inject into: the tool result is its only way to the model.
//! So every context injection of the call (`tool:pre`, `tool:post`, `tool:error`) that the
//! [`InjectionPolicy`](hooks_core::session::InjectionPolicy) delivers is **appended to the result's
//! `content` as a text block**, in order, after the tool's own content: persistent and
//! ephemeral alike, whatever their role. The policy's budget applies per call. Injections
//! cannot ride on a protocol error or an interim answer; those are logged (`tracing`) as not
//! delivered. The session's history defaults to [`NoHistory`] and its display to
//! [`TracingDisplay`].
//!
//! # Hooks
//!
//! The handlers are a [`HookRegistry`](hooks_core::HookRegistry)'s: registered by hand, mounted
//! as modules, or annotated with `#[hook]` and collected with
//! [`HookRegistry::with_annotated`](hooks_core::HookRegistry::with_annotated).
//!
//! [`ApprovalProvider`]: hooks_core::session::ApprovalProvider
//! [`HookSessionBuilder::approvals`]: hooks_core::session::HookSessionBuilder::approvals
//! [`ServerHandler`]: rmcp::ServerHandler

mod call;
pub mod proxy;
mod server;
pub mod sinks;

pub use server::{HookedServer, HookedServerBuilder, SERVER_FIELD, SESSION_FIELD};
pub use sinks::{NoHistory, TracingDisplay};
