//! One HTTP request to `hooks serve`: the checks every request passes (token, method, size,
//! time), the routing by agent and project, and the decision, through the same steps as
//! `hooks <agent>` ([`crate::adapter`]).
//!
//! Nothing here answers "allow" by default: a request that is not a well-formed hook call of
//! a known agent, with the token, gets a 4xx status, which an agent wired with
//! `onFailure: "block"` takes as a block.

use std::convert::Infallible;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;

use hooks_config::interop::agent;

use super::policies::Policies;
use super::reply::{self, Reply};
use super::token::Token;
use crate::adapter;

/// The header naming the project directory (Claude Code: `$CLAUDE_PROJECT_DIR`); without it,
/// the event's `cwd`.
pub const PROJECT_HEADER: &str = "x-hooks-project";

/// The hooks file of a project when the request names none (`?config=` in the URL).
pub const DEFAULT_CONFIG: &str = "hooks.yaml";

/// What every request is served with.
pub struct Server {
    /// The bearer token.
    pub token: Token,
    /// The hooks files in use.
    pub policies: Policies,
    /// The largest body accepted, in bytes.
    pub max_body: usize,
    /// How long a client has to send its headers, and then its body.
    pub read_timeout: Duration,
}

/// The reply to `request`, never an error: every failure is a status.
pub async fn handle(
    server: Arc<Server>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let reply = reply_to(&server, request).await;
    if reply.status >= 400 {
        eprintln!("hooks serve: {} {}", reply.status, first_line(&reply.body));
    }
    Ok(response(reply))
}

/// The reply on a connection over the limit: 503, whatever was asked; nothing decided.
pub async fn busy(_request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(response(Reply::text(
        503,
        "hooks serve has as many connections as it serves at once; try again",
    )))
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn response(reply: Reply) -> Response<Full<Bytes>> {
    let kind = if reply.json {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    let mut response = Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(kind) = kind.parse() {
        response.headers_mut().insert(CONTENT_TYPE, kind);
    }
    response
}

async fn reply_to(server: &Server, request: Request<Incoming>) -> Reply {
    let authorized = server.token.admits(
        request
            .headers()
            .get(AUTHORIZATION)
            .map(|value| value.as_bytes()),
    );
    let path = request.uri().path().to_owned();
    if path == "/health" {
        return health(server, authorized);
    }
    if !authorized {
        return Reply::text(
            401,
            "a bearer token is required (Authorization: Bearer ...)",
        );
    }
    let Some(agent) = path.strip_prefix('/').and_then(agent) else {
        return Reply::text(404, format!("no agent answers at {path}"));
    };
    if request.method() != Method::POST {
        return Reply::text(405, "an agent's hook call is a POST of its event JSON");
    }
    let config = match config_of(request.uri().query()) {
        Ok(config) => config,
        Err(problem) => return Reply::text(400, problem),
    };
    let header_project = request
        .headers()
        .get(PROJECT_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.is_empty())
        .map(PathBuf::from);
    let input = match body_of(server, request).await {
        Ok(input) => input,
        Err(reply) => return reply,
    };
    let mapped = match adapter::read_event(agent, &input) {
        Ok(mapped) => mapped,
        Err(answer) => return Reply::text(400, answer.stderr),
    };
    let project = header_project.or_else(|| mapped.data["cwd"].as_str().map(PathBuf::from));
    let Some(project) = project.filter(|dir| dir.is_absolute()) else {
        return Reply::text(
            400,
            format!(
                "no project directory: the event has no absolute `cwd` and the request no \
                 `{PROJECT_HEADER}` header"
            ),
        );
    };
    let file = project.join(config);
    let answer = match server.policies.get(&file) {
        Ok(policy) => {
            let state_dir =
                hooks_std::state_file::FileState::from_env().map(|state| state.dir().to_path_buf());
            match adapter::unchanged(agent, &file, &policy, &mapped, state_dir.as_deref()) {
                Ok(()) => adapter::decide(agent, &policy, &mapped).await,
                Err(problem) => adapter::fail_closed(agent, Some(&mapped.agent_event), &problem),
            }
        }
        Err(problem) => adapter::fail_closed(agent, Some(&mapped.agent_event), &problem),
    };
    reply::of(agent.name(), Some(&mapped.agent_event), &answer)
}

/// `/health`: "ok" and the version to anyone; with the token, the hooks files in use and
/// those whose current version does not load.
fn health(server: &Server, authorized: bool) -> Reply {
    let version = env!("CARGO_PKG_VERSION");
    if !authorized {
        return Reply::text(200, format!("ok hooks {version}\n"));
    }
    let files = server.policies.report();
    let broken = files.iter().filter(|file| file.broken.is_some()).count();
    Reply {
        status: 200,
        body: json!({
            "status": if broken == 0 { "ok" } else { "broken" },
            "version": version,
            "files": files,
        })
        .to_string(),
        json: true,
    }
}

/// The hooks file named by the query (`config=FILE`, relative to the project, no `..`).
fn config_of(query: Option<&str>) -> Result<PathBuf, String> {
    let named = query
        .into_iter()
        .flat_map(|query| query.split('&'))
        .filter_map(|pair| pair.strip_prefix("config="))
        .next_back();
    let Some(named) = named else {
        return Ok(PathBuf::from(DEFAULT_CONFIG));
    };
    let path = Path::new(named);
    let inside = !named.is_empty()
        && path
            .components()
            .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if inside {
        Ok(path.to_path_buf())
    } else {
        Err(format!(
            "config={named}: the hooks file must be a relative path inside the project"
        ))
    }
}

/// The body as text, within the size limit and the time limit.
async fn body_of(server: &Server, request: Request<Incoming>) -> Result<String, Reply> {
    let too_large = || {
        Reply::text(
            413,
            format!("the body is over the limit of {} bytes", server.max_body),
        )
    };
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > server.max_body as u64) {
        return Err(too_large());
    }
    let limited = Limited::new(request.into_body(), server.max_body);
    let collected = match tokio::time::timeout(server.read_timeout, limited.collect()).await {
        Err(_) => {
            return Err(Reply::text(
                408,
                format!(
                    "the body did not arrive within {} s",
                    server.read_timeout.as_secs()
                ),
            ));
        }
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
            return Err(too_large());
        }
        Ok(Err(error)) => return Err(Reply::text(400, format!("cannot read the body: {error}"))),
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    String::from_utf8(collected.to_vec())
        .map_err(|_| Reply::text(400, "the body is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_file_named_in_the_query_stays_inside_the_project() {
        assert_eq!(config_of(None), Ok(PathBuf::from("hooks.yaml")));
        assert_eq!(
            config_of(Some("config=policy/hooks.yaml")),
            Ok(PathBuf::from("policy/hooks.yaml"))
        );
        for bad in [
            "config=../x.yaml",
            "config=/etc/x.yaml",
            "config=",
            "config=a/../../b",
        ] {
            assert!(config_of(Some(bad)).is_err(), "{bad}");
        }
    }
}
