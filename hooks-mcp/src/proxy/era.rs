//! The two eras of the protocol, and what the proxy translates between them.
//!
//! - The **handshake era** (every revision up to 2025-11-25): a session opens with
//!   `initialize`; the version and the client's capabilities are the session's.
//! - The **stateless era** (2026-07-28): no `initialize`; a client may ask `server/discover`,
//!   and each request carries the version, the client's identity and its capabilities in its
//!   `_meta`; results say `resultType`, and a server asks the user by answering
//!   `input_required` (the client retries the request with the answers).
//!
//! Each side of the proxy speaks its own era: the client's is its session's (a client that
//! sent `initialize` is of the handshake era), the server's is settled when its session opens
//! ([`open_upstream`]).

use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ClientResult, DiscoverRequest,
    DiscoverRequestParams, DiscoverResult, InitializeRequest, InitializeRequestParams,
    InitializedNotification, JsonRpcMessage, NumberOrString, ProtocolVersion, RequestId,
    RequestMetaObject, ResultType, ServerJsonRpcMessage, ServerPeerInfo, ServerRequest,
    ServerResult,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::transport::Transport;
use rmcp::{RoleClient, RoleServer};

/// The era a side of the proxy speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// A session opened by `initialize`.
    Handshake,
    /// The 2026-07-28 protocol: every request on its own.
    Stateless,
}

impl Era {
    /// The era of a protocol version.
    pub(crate) fn of_version(version: &ProtocolVersion) -> Era {
        if version.has_initialize() {
            Era::Handshake
        } else {
            Era::Stateless
        }
    }

    /// The era of one request of the client: the handshake era on a session the client
    /// opened with `initialize`, the stateless era otherwise (rmcp has checked that such a
    /// request carries the lifecycle metadata).
    pub(crate) fn of_request(context: &RequestContext<RoleServer>) -> Era {
        Era::of_client(&context.peer)
    }

    /// The era of the client on `peer`.
    pub(crate) fn of_client(peer: &Peer<RoleServer>) -> Era {
        if peer.peer_info().is_some() {
            Era::Handshake
        } else {
            Era::Stateless
        }
    }
}

/// The keys of a request's `_meta` that belong to the stateless era's lifecycle: a server of
/// the handshake era is not sent them (its session has them).
const LIFECYCLE_META_KEYS: [&str; 4] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/logLevel",
];

/// The `_meta` of a client request as it goes to a server of `server_era`: without the
/// stateless lifecycle keys for a handshake server (for a stateless server, the proxy's peer
/// sets them from the session it opened, and the client's own, when it sent them, win).
pub(crate) fn meta_for_server(mut meta: RequestMetaObject, server_era: Era) -> RequestMetaObject {
    if server_era == Era::Handshake {
        for key in LIFECYCLE_META_KEYS {
            meta.remove(key);
        }
    }
    meta
}

/// Puts in `meta` what a server of the stateless era needs on each request and the client did
/// not send: the session's protocol `version`, and the identity and capabilities of `client`
/// (for whom the server's session was opened).
pub(crate) fn fill_lifecycle(
    meta: &mut RequestMetaObject,
    client: &InitializeRequestParams,
    version: &ProtocolVersion,
) {
    if meta.protocol_version().is_none() {
        meta.set_protocol_version(version.clone());
    }
    if meta.client_info().is_none() {
        meta.set_client_info(client.client_info.clone());
    }
    if meta.client_capabilities().is_none() {
        meta.set_client_capabilities(client.capabilities.clone());
    }
}

/// Puts a server's answer in the shape a client of `era` expects: a stateless client is told
/// `resultType` and the cache hints; a handshake client is not sent what its revision lacks
/// (as rmcp's own servers do).
pub(crate) fn shape_for_client(result: &mut ServerResult, era: Era) {
    match era {
        Era::Stateless => {
            if let ServerResult::CallToolResult(result) = result {
                result.result_type.get_or_insert(ResultType::COMPLETE);
            }
            result.fill_missing_cache_hints();
        }
        Era::Handshake => {
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
        }
    }
}

/// The server's answer to `server/discover` as the proxy gives it: the server's capabilities,
/// identity and instructions, and every version the proxy serves (it translates between the
/// eras, so a client may use either).
pub(crate) fn discover_answer(server: &ServerPeerInfo, name: &str) -> DiscoverResult {
    let mut answer = DiscoverResult::new(
        ProtocolVersion::KNOWN_VERSIONS.to_vec(),
        server.capabilities.clone(),
    );
    answer.instructions = server.instructions.clone();
    answer.meta = server.meta.clone();
    let identity = server
        .server_info
        .clone()
        .unwrap_or_else(|| rmcp::model::Implementation::new(name.to_owned(), ""));
    answer.with_server_info(identity)
}

/// The client's identity and capabilities for a stateless client that never sent
/// `initialize`: read from its request's `_meta`, as the session opened for it upstream
/// presents it.
pub(crate) fn client_of_request(meta: &RequestMetaObject) -> InitializeRequestParams {
    let mut client = InitializeRequestParams::default();
    client.protocol_version = meta
        .protocol_version()
        .unwrap_or(ProtocolVersion::V_2026_07_28);
    if let Some(info) = meta.client_info() {
        client.client_info = info;
    }
    if let Some(capabilities) = meta.client_capabilities() {
        client.capabilities = capabilities;
    }
    client
}

/// How long a server may take to answer `server/discover` before it is taken for a server of
/// the handshake era (one that ignores unknown requests before `initialize`).
const DISCOVER_PATIENCE: Duration = Duration::from_secs(10);

/// Opens the server's session on `transport` for `client`, who speaks `client_era`. The
/// server is asked `server/discover` first, as the 2026-07-28 revision tells a client of both
/// eras to (a server of that era alone may end its connection on an `initialize` it refuses);
/// then:
///
/// - a server that speaks 2026-07-28 is used in that era, unless the client is of the
///   handshake era and the server speaks a version of that era too (the same era on both
///   sides: nothing to translate);
/// - a server that refuses `server/discover`, or does not answer it within 10 s, is opened with
///   `initialize` (the client's own, or, for a stateless client, one in its name at the newest
///   version the server listed or the newest rmcp knows).
///
/// Returns what the server said of itself, its protocol version telling the era. Each step
/// has `timeout`.
pub(crate) async fn open_upstream<T>(
    transport: &mut T,
    client: &InitializeRequestParams,
    client_era: Era,
    timeout: Duration,
) -> Result<ServerPeerInfo, String>
where
    T: Transport<RoleClient>,
{
    let patience = timeout.min(DISCOVER_PATIENCE);
    let mut late_discover = false;
    let (refused, listed) = match discover(transport, client, patience).await {
        Ok(Ok(discovered)) => {
            let same_era = client_era == Era::Handshake
                && discovered
                    .listed
                    .iter()
                    .any(ProtocolVersion::has_initialize);
            match discovered.stateless {
                Some(info) if !same_era => return Ok(info),
                _ => (None, discovered.listed),
            }
        }
        Ok(Err(refused)) => (Some(refused), Vec::new()),
        // Silence is what an old server may answer a request before `initialize`; a slow
        // server of the new era may still answer, and is taken as it is when it does.
        Err(silent) => {
            late_discover = true;
            (Some(silent), Vec::new())
        }
    };
    let mut legacy = client.clone();
    if client_era == Era::Stateless {
        legacy.protocol_version = listed
            .into_iter()
            .filter(ProtocolVersion::has_initialize)
            .max_by(|one, other| one.as_str().cmp(other.as_str()))
            .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE);
    }
    match initialize(transport, &legacy, timeout, late_discover).await? {
        Ok(info) => Ok(info),
        Err(also) => Err(match refused {
            Some(refused) => {
                format!("it refused `server/discover` ({refused}) and `initialize` ({also})")
            }
            None => format!("it refused `initialize` ({also})"),
        }),
    }
}

/// Sends `initialize` (then `notifications/initialized`): the server's answer, or why it
/// refused (the outer error: the transport failed or the server did not answer in time).
/// With `late_discover`, a late answer to the `server/discover` sent before, saying the server
/// speaks 2026-07-28, is taken instead.
async fn initialize<T>(
    transport: &mut T,
    client: &InitializeRequestParams,
    timeout: Duration,
    late_discover: bool,
) -> Result<Result<ServerPeerInfo, String>, String>
where
    T: Transport<RoleClient>,
{
    let id = RequestId::from(NumberOrString::String("hooks-proxy-initialize".into()));
    let request = ClientRequest::InitializeRequest(InitializeRequest::new(client.clone()));
    let late = late_discover.then(discover_id);
    let answer = exchange(transport, request, id, timeout, "initialize", late.as_ref()).await?;
    match answer {
        Ok(ServerResult::DiscoverResult(result)) => Ok(Ok(ServerPeerInfo::from_discover_result(
            ProtocolVersion::V_2026_07_28,
            result,
        ))),
        Ok(ServerResult::InitializeResult(result)) => {
            let notification =
                ClientNotification::InitializedNotification(InitializedNotification::default());
            transport
                .send(ClientJsonRpcMessage::notification(notification))
                .await
                .map_err(|error| format!("`notifications/initialized` was not sent: {error}"))?;
            Ok(Ok(ServerPeerInfo::from(result)))
        }
        Ok(other) => Ok(Err(format!(
            "it answered with something else: {}",
            serde_json::to_string(&other).unwrap_or_default()
        ))),
        Err(refused) => Ok(Err(refused)),
    }
}

/// What a server answered to `server/discover`.
struct Discovered {
    /// The server in the stateless era, when it speaks 2026-07-28.
    stateless: Option<ServerPeerInfo>,
    /// Every version it listed.
    listed: Vec<ProtocolVersion>,
}

/// Sends `server/discover` as a stateless client: what the server answered, or why it
/// refused (the outer error: the transport failed or the server did not answer in time).
async fn discover<T>(
    transport: &mut T,
    client: &InitializeRequestParams,
    timeout: Duration,
) -> Result<Result<Discovered, String>, String>
where
    T: Transport<RoleClient>,
{
    let version = ProtocolVersion::V_2026_07_28;
    let meta = RequestMetaObject::with_client_context(
        version.clone(),
        client.client_info.clone(),
        client.capabilities.clone(),
    );
    let mut request = DiscoverRequest::new(DiscoverRequestParams {});
    request.extensions.insert(meta);
    let request = ClientRequest::DiscoverRequest(request);
    let answer = exchange(
        transport,
        request,
        discover_id(),
        timeout,
        "server/discover",
        None,
    )
    .await?;
    Ok(match answer {
        Ok(ServerResult::DiscoverResult(result)) => {
            let listed = result.supported_versions.clone();
            let stateless = listed
                .contains(&version)
                .then(|| ServerPeerInfo::from_discover_result(version, result));
            Ok(Discovered { stateless, listed })
        }
        Ok(other) => Err(format!(
            "it answered with something else: {}",
            serde_json::to_string(&other).unwrap_or_default()
        )),
        Err(refused) => Err(refused),
    })
}

/// The id of the proxy's `server/discover`.
fn discover_id() -> RequestId {
    RequestId::from(NumberOrString::String("hooks-proxy-discover".into()))
}

/// Sends `request` with `id` and waits for its answer within `timeout`: the result, or the
/// server's error (inner); the outer error when nothing usable came. A late answer to the
/// discovery `late` (its id) that lists 2026-07-28 is taken too. A `ping` of the server
/// meanwhile is answered; anything else it sends before its session opens is dropped.
async fn exchange<T>(
    transport: &mut T,
    request: ClientRequest,
    id: RequestId,
    timeout: Duration,
    method: &str,
    late: Option<&RequestId>,
) -> Result<Result<ServerResult, String>, String>
where
    T: Transport<RoleClient>,
{
    transport
        .send(ClientJsonRpcMessage::request(request, id.clone()))
        .await
        .map_err(|error| format!("`{method}` was not sent: {error}"))?;
    let waiting = async {
        loop {
            let Some(message) = transport.receive().await else {
                return Err(format!(
                    "its connection closed before it answered `{method}`"
                ));
            };
            match message {
                JsonRpcMessage::Response(response) if response.id == id => {
                    return Ok(Ok(response.result));
                }
                JsonRpcMessage::Response(response) if Some(&response.id) == late => {
                    if let ServerResult::DiscoverResult(result) = &response.result
                        && result
                            .supported_versions
                            .contains(&ProtocolVersion::V_2026_07_28)
                    {
                        return Ok(Ok(response.result));
                    }
                }
                JsonRpcMessage::Error(error) if error.id.as_ref() == Some(&id) => {
                    return Ok(Err(error.error.message.to_string()));
                }
                JsonRpcMessage::Request(request)
                    if matches!(request.request, ServerRequest::PingRequest(_)) =>
                {
                    let pong = ClientJsonRpcMessage::response(ClientResult::empty(()), request.id);
                    transport
                        .send(pong)
                        .await
                        .map_err(|error| format!("a `ping` was not answered: {error}"))?;
                }
                other => dropped(&other),
            }
        }
    };
    match tokio::time::timeout(timeout, waiting).await {
        Ok(answer) => answer,
        Err(_elapsed) => Err(format!(
            "it did not answer `{method}` within {:.1} s",
            timeout.as_secs_f64()
        )),
    }
}

fn dropped(message: &ServerJsonRpcMessage) {
    tracing::debug!(
        ?message,
        "a message of the MCP server before its session opened was dropped"
    );
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ListToolsResult};

    use super::*;

    #[test]
    fn a_version_without_initialize_is_the_stateless_era() {
        assert_eq!(
            Era::of_version(&ProtocolVersion::V_2026_07_28),
            Era::Stateless
        );
        assert_eq!(
            Era::of_version(&ProtocolVersion::V_2025_11_25),
            Era::Handshake
        );
    }

    #[test]
    fn a_handshake_server_is_not_sent_the_stateless_lifecycle_keys() {
        let mut meta = RequestMetaObject::with_client_context(
            ProtocolVersion::V_2026_07_28,
            rmcp::model::Implementation::new("agent", "1"),
            rmcp::model::ClientCapabilities::default(),
        );
        meta.insert("traceparent".to_owned(), "00-abc-def-01".into());
        let kept = meta_for_server(meta.clone(), Era::Stateless);
        assert_eq!(kept, meta);
        let stripped = meta_for_server(meta, Era::Handshake);
        assert_eq!(stripped.keys().collect::<Vec<_>>(), ["traceparent"]);
    }

    #[test]
    fn results_take_the_shape_of_the_clients_era() {
        let mut call = ServerResult::CallToolResult(CallToolResult::success(Vec::new()));
        shape_for_client(&mut call, Era::Stateless);
        let json = serde_json::to_value(&call).unwrap_or_default();
        assert_eq!(json["resultType"], "complete");
        shape_for_client(&mut call, Era::Handshake);
        let json = serde_json::to_value(&call).unwrap_or_default();
        assert!(json.get("resultType").is_none(), "{json}");

        let mut list = ServerResult::ListToolsResult(ListToolsResult::default());
        shape_for_client(&mut list, Era::Stateless);
        let json = serde_json::to_value(&list).unwrap_or_default();
        assert_eq!(json["ttlMs"], 0, "{json}");
    }
}
