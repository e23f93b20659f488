//! HTTP and LLM hooks against a real HTTP server on loopback, started by the test: the request
//! body, the decision, the cache, timeouts, HTTP errors and malformed answers.

// They need the HTTP client: run with the `http` and `llm` features (the default).
#![cfg(all(feature = "http", feature = "llm"))]
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_config::load_str;
use hooks_core::{HookAction, HookModule, HookRegistry, MessageLevel};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request the server received.
#[derive(Debug, Clone)]
struct Request {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server answers.
enum Reply {
    Json(u16, Value),
    Text(u16, &'static str),
    Stall,
}

/// A minimal HTTP/1.1 server on 127.0.0.1 that records requests and answers with `respond`.
struct Server {
    url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    async fn start(respond: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let (log, respond) = (requests.clone(), Arc::new(respond));
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (log, respond) = (log.clone(), respond.clone());
                tokio::spawn(async move {
                    let mut raw = Vec::new();
                    let mut buffer = [0_u8; 4096];
                    let (head_end, length) = loop {
                        let read = socket.read(&mut buffer).await.unwrap_or(0);
                        if read == 0 {
                            return;
                        }
                        raw.extend_from_slice(&buffer[..read]);
                        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&raw[..end]).to_string();
                            let length = head
                                .lines()
                                .find_map(|l| {
                                    l.to_ascii_lowercase()
                                        .strip_prefix("content-length:")
                                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                                })
                                .unwrap_or(0);
                            break (end + 4, length);
                        }
                    };
                    while raw.len() < head_end + length {
                        let read = socket.read(&mut buffer).await.unwrap_or(0);
                        if read == 0 {
                            break;
                        }
                        raw.extend_from_slice(&buffer[..read]);
                    }
                    let head = String::from_utf8_lossy(&raw[..head_end]).to_string();
                    let mut lines = head.lines();
                    let path = lines
                        .next()
                        .unwrap_or("")
                        .split(' ')
                        .nth(1)
                        .unwrap_or("")
                        .to_owned();
                    let headers = lines
                        .filter_map(|l| {
                            l.split_once(':')
                                .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
                        })
                        .collect();
                    let body = serde_json::from_slice(&raw[head_end..]).unwrap_or(Value::Null);
                    let request = Request {
                        path,
                        headers,
                        body,
                    };
                    log.lock().unwrap().push(request.clone());
                    let (status, text) = match respond(&request) {
                        Reply::Json(status, value) => (status, value.to_string()),
                        Reply::Text(status, text) => (status, text.to_owned()),
                        Reply::Stall => {
                            tokio::time::sleep(Duration::from_secs(30)).await;
                            return;
                        }
                    };
                    let response = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                        text.len()
                    );
                    let _ = socket.write_all(response.as_bytes()).await;
                });
            }
        });
        Server { url, requests }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn mount(yaml: &str) -> HookRegistry {
    let config = load_str(yaml, Path::new("hooks.yaml"), Path::new("/tmp"))
        .unwrap_or_else(|e| panic!("{e}"));
    let registry = HookRegistry::new();
    let _mounted = config.mount(&registry).unwrap();
    registry
}

fn rm_call() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "session_id": "s-9"})
}

// HTTP hooks.

#[tokio::test]
async fn an_http_hook_posts_the_event_and_reads_the_answer() {
    let server = Server::start(|request| {
        if request.body["tool_input"]["command"]
            .as_str()
            .unwrap_or("")
            .contains("rm")
        {
            Reply::Json(
                200,
                json!({"action": "block", "message": "the policy service forbids rm"}),
            )
        } else {
            Reply::Text(200, "")
        }
    })
    .await;
    let registry = mount(&format!(
        "hooks:\n  PreToolUse:\n    - type: http\n      name: policy_service\n      url: {}/check\n      headers:\n        X-Home: \"${{HOME}}\"\n",
        server.url
    ));

    let denied = registry.emit("tool:pre", rm_call()).await;
    let allowed = registry
        .emit(
            "tool:pre",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        )
        .await;

    assert_eq!(denied.action(), HookAction::Deny);
    assert_eq!(
        denied.result.reason.as_deref(),
        Some("the policy service forbids rm")
    );
    assert_eq!(allowed.action(), HookAction::Continue);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first.path, "/check");
    assert_eq!(first.body["event"], "PreToolUse");
    assert_eq!(first.body["canonical_event"], "tool:pre");
    assert_eq!(first.body["tool_name"], "Bash");
    assert_eq!(first.body["session_id"], "s-9");
    assert_eq!(
        first.header("x-home"),
        std::env::var("HOME").ok().as_deref(),
        "${{VAR}} read from the environment"
    );
}

#[tokio::test]
async fn http_failures_follow_on_failure() {
    let cases = [
        (
            Reply::Json(500, json!({"error": "boom"})),
            "answered HTTP 500",
        ),
        (
            Reply::Text(200, "{\"action\": \"block\""),
            "not a JSON object",
        ),
        (Reply::Stall, "no answer"),
    ];
    for (reply, why) in cases {
        let reply = Arc::new(Mutex::new(Some(reply)));
        let server =
            Server::start(move |_| reply.lock().unwrap().take().unwrap_or(Reply::Text(200, "")))
                .await;
        let registry = mount(&format!(
            "hooks:\n  PreToolUse:\n    - type: http\n      name: svc\n      url: {}/\n      timeout_ms: 300\n      on_failure: block\n",
            server.url
        ));
        let outcome = registry.emit("tool:pre", rm_call()).await;
        assert_eq!(outcome.action(), HookAction::Deny, "{why}: fail closed");
        assert!(
            outcome.result.reason.as_deref().unwrap().contains(why),
            "{why}: {:?}",
            outcome.result.reason
        );
    }
}

// LLM hooks.

fn openai_answer(content: &str) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": content}}]})
}

#[tokio::test]
async fn an_llm_hook_asks_the_model_and_caches_identical_prompts() {
    let server = Server::start(|_| {
        Reply::Json(
            200,
            openai_answer(r#"{"safe": false, "reason": "it deletes files"}"#),
        )
    })
    .await;
    let registry = mount(&format!(
        r#"hooks:
  PreToolUse:
    - type: llm
      name: judge
      model: small-model
      base_url: {}/v1
      api_key_env: HOME
      max_tokens: 50
      cache: true
      prompt: "Is {{{{tool}}}} with {{{{args}}}} safe? Answer JSON."
"#,
        server.url
    ));

    let first = registry.emit("tool:pre", rm_call()).await;
    let second = registry.emit("tool:pre", rm_call()).await;

    for outcome in [&first, &second] {
        assert_eq!(outcome.action(), HookAction::Deny);
        assert_eq!(outcome.result.reason.as_deref(), Some("it deletes files"));
    }
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        1,
        "the second identical prompt came from the cache"
    );
    let request = &requests[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.body["model"], "small-model");
    assert_eq!(request.body["max_tokens"], 50);
    assert_eq!(
        request.body["messages"][0]["content"],
        r#"Is Bash with {"command":"rm -rf build"} safe? Answer JSON."#
    );
    let home = std::env::var("HOME").unwrap();
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {home}").as_str())
    );
}

#[tokio::test]
async fn an_anthropic_llm_hook_speaks_the_messages_api() {
    let server = Server::start(|_| {
        Reply::Json(
            200,
            json!({"content": [{"type": "text", "text": "```json\n{\"safe\": true}\n```"}]}),
        )
    })
    .await;
    let registry = mount(&format!(
        "hooks:\n  PreToolUse:\n    - type: llm\n      provider: anthropic\n      model: claude-small\n      base_url: {}/v1\n      api_key_env: HOME\n      prompt: \"{{{{data}}}}\"\n",
        server.url
    ));

    let outcome = registry.emit("tool:pre", rm_call()).await;

    assert_eq!(outcome.action(), HookAction::Continue);
    assert!(
        outcome.failures.is_empty() && outcome.result.user_message.is_none(),
        "{outcome:?}"
    );
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        request.header("x-api-key"),
        std::env::var("HOME").ok().as_deref()
    );
}

#[tokio::test]
async fn llm_failures_follow_on_failure_and_are_not_cached() {
    let cases = [
        (
            Reply::Json(200, openai_answer("I think it is probably fine.")),
            "did not answer with a JSON object",
        ),
        (
            Reply::Json(200, openai_answer(r#"{"verdict": "ok"}"#)),
            "neither `safe` nor `action`",
        ),
        (Reply::Json(500, json!({})), "answered HTTP 500"),
        (Reply::Stall, "no answer"),
    ];
    for (reply, why) in cases {
        let reply = Arc::new(Mutex::new(Some(reply)));
        let server = Server::start(move |_| {
            reply
                .lock()
                .unwrap()
                .take()
                .unwrap_or(Reply::Json(200, openai_answer(r#"{"safe": true}"#)))
        })
        .await;
        let registry = mount(&format!(
            "hooks:\n  PreToolUse:\n    - type: llm\n      name: judge\n      model: m\n      base_url: {}\n      prompt: p\n      cache: true\n      timeout_ms: 300\n",
            server.url
        ));
        let failed = registry.emit("tool:pre", rm_call()).await;
        assert_eq!(
            failed.action(),
            HookAction::Continue,
            "{why}: warn is the default"
        );
        assert_eq!(failed.result.user_message_level, MessageLevel::Warning);
        assert!(
            failed.result.user_message.as_deref().unwrap().contains(why),
            "{why}: {:?}",
            failed.result.user_message
        );
        let retried = registry.emit("tool:pre", rm_call()).await;
        assert!(
            retried.result.user_message.is_none(),
            "{why}: the failure was not cached, the next ask succeeded"
        );
    }
}

#[tokio::test]
async fn a_missing_api_key_variable_is_a_failure_naming_it() {
    let server = Server::start(|_| Reply::Json(200, openai_answer(r#"{"safe": true}"#))).await;
    let registry = mount(&format!(
        "hooks:\n  PreToolUse:\n    - type: llm\n      model: m\n      base_url: {}\n      prompt: p\n      api_key_env: HOOKS_TEST_SURELY_UNSET_KEY\n      on_failure: block\n",
        server.url
    ));

    let outcome = registry.emit("tool:pre", rm_call()).await;

    assert_eq!(outcome.action(), HookAction::Deny);
    assert!(
        outcome
            .result
            .reason
            .as_deref()
            .unwrap()
            .contains("`HOOKS_TEST_SURELY_UNSET_KEY`")
    );
    assert!(
        server.requests().is_empty(),
        "nothing was sent without the key"
    );
}

#[test]
fn llm_and_http_config_errors_name_their_location() {
    let yaml = r#"hooks:
  PreToolUse:
    - type: http
      url: ftp://example.com
    - type: llm
      model: m
      provider: gemini
      max_tokens: 0
      api_key_env: "MY KEY"
    - type: http
      url: https://example.com
      headers: [a, b]
"#;
    let errors = load_str(yaml, Path::new("hooks.yaml"), Path::new("."))
        .unwrap_err()
        .0;
    let found: Vec<(usize, usize, String)> = errors
        .into_iter()
        .map(|e| (e.line, e.column, e.message))
        .collect();
    for (line, column, fragment) in [
        (4, 12, "must be an http:// or https:// URL"),
        (5, 7, "is missing `prompt`"),
        (7, 17, "`provider` must be openai or anthropic"),
        (8, 19, "`max_tokens` must be from 1"),
        (9, 20, "`api_key_env` names an environment variable"),
        (12, 16, "`headers` maps header names to values"),
    ] {
        assert!(
            found
                .iter()
                .any(|(l, c, m)| *l == line && *c == column && m.contains(fragment)),
            "expected {line}:{column} {fragment:?} in {found:#?}"
        );
    }
    assert_eq!(found.len(), 6, "{found:#?}");
}
