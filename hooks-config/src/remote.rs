//! HTTP and LLM hooks: the event goes to a service, the answer comes back as a decision.
//!
//! An HTTP hook POSTs the same JSON a command hook reads on stdin and reads the same answer
//! protocols. An LLM hook renders its prompt, asks an OpenAI-compatible chat completions
//! endpoint (or the Anthropic messages API) and reads `{"safe": bool, "reason"}` or a
//! `HookResult`-shaped object from the model's answer. Anything else is a failure, handled by
//! the hook's `on_failure`. API keys come from environment variables and are never logged.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use hooks_core::HookResult;
use serde_json::{Value, json};

use crate::command::{failure, parse_stdout, stdin_json, usable};
use crate::{Entry, OnFailure};

/// Which API an LLM hook speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, ...).
    OpenAi,
    /// The Anthropic messages API.
    Anthropic,
}

/// An HTTP hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHook {
    /// Where to POST.
    pub url: String,
    /// Extra headers; `${VAR}` in a value is replaced by that environment variable.
    pub headers: Vec<(String, String)>,
    /// How long to wait.
    pub timeout: Duration,
    /// What a failure gives.
    pub on_failure: OnFailure,
}

/// An LLM hook.
#[derive(Debug, Clone)]
pub struct LlmHook {
    /// The model name.
    pub model: String,
    /// The prompt template (`{{event}}`, `{{tool}}`, `{{args}}`, `{{data}}`).
    pub prompt: String,
    /// The answer's token limit.
    pub max_tokens: u32,
    /// Which API.
    pub provider: Provider,
    /// The API's base URL.
    pub base_url: String,
    /// The environment variable holding the API key, if any.
    pub api_key_env: Option<String>,
    /// How long to wait.
    pub timeout: Duration,
    /// What a failure gives.
    pub on_failure: OnFailure,
    /// Identical rendered prompts answered from memory, when set.
    pub cache: Option<Arc<AnswerCache>>,
}

/// Answers of an LLM hook by rendered prompt: bounded, each for a time to live.
#[derive(Debug)]
pub struct AnswerCache {
    ttl: Duration,
    capacity: usize,
    answers: Mutex<HashMap<String, (Instant, HookResult)>>,
}

impl AnswerCache {
    /// A cache of at most `capacity` answers, each kept for `ttl`.
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        AnswerCache {
            ttl,
            capacity: capacity.max(1),
            answers: Mutex::new(HashMap::new()),
        }
    }

    /// The answer cached for `key`, if fresh.
    pub fn get(&self, key: &str) -> Option<HookResult> {
        let answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        answers
            .get(key)
            .filter(|(at, _)| at.elapsed() < self.ttl)
            .map(|(_, answer)| answer.clone())
    }

    /// Keeps `answer` for `key`, dropping the oldest answer when full.
    pub fn put(&self, key: String, answer: HookResult) {
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        answers.retain(|_, (at, _)| at.elapsed() < self.ttl);
        if answers.len() >= self.capacity {
            if let Some(oldest) = answers
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
            {
                answers.remove(&oldest);
            }
        }
        answers.insert(key, (Instant::now(), answer));
    }
}

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new)
}

/// `text` with `${VAR}` replaced by the environment; an unset variable is an error naming it.
fn with_env(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &after[..end];
        let value = std::env::var(name)
            .map_err(|_| format!("the environment variable `{name}` is not set"))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

async fn post(
    url: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
    timeout: Duration,
) -> Result<String, String> {
    let mut request = client()
        .post(url)
        .timeout(timeout)
        .header("content-type", "application/json")
        .body(body);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = request.send().await.map_err(|error| {
        if error.is_timeout() {
            format!("no answer from {url} within {timeout:?}")
        } else {
            format!("the request to {url} failed: {}", error.without_url())
        }
    })?;
    let status = response.status();
    let text = response.text().await.map_err(|error| {
        format!(
            "the answer from {url} could not be read: {}",
            error.without_url()
        )
    })?;
    if !status.is_success() {
        return Err(format!("{url} answered HTTP {}", status.as_u16()));
    }
    Ok(text)
}

/// The answer of an HTTP hook to one event, `on_failure` applied.
pub(super) async fn http_answer(
    hook: &HttpHook,
    entry: &Entry,
    project_dir: &Path,
    data: &Value,
) -> HookResult {
    let body = Value::Object(stdin_json(entry, project_dir, data))
        .to_string()
        .into_bytes();
    let headers = hook
        .headers
        .iter()
        .map(|(name, value)| with_env(value).map(|value| (name.clone(), value)))
        .collect::<Result<Vec<_>, _>>();
    let answer = match headers {
        Ok(headers) => post(&hook.url, &headers, body, hook.timeout)
            .await
            .and_then(|text| parse_stdout(text.trim(), &entry.event, data)),
        Err(why) => Err(why),
    };
    answer.unwrap_or_else(|why| failure(hook.on_failure, &entry.name, &why))
}

/// The prompt with its placeholders filled in from the event.
pub fn render(template: &str, event: &str, data: &Value) -> String {
    let compact = |value: &Value| match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    template
        .replace("{{event}}", event)
        .replace("{{tool}}", &compact(&data["tool_name"]))
        .replace("{{args}}", &compact(&data["tool_input"]))
        .replace("{{data}}", &data.to_string())
}

/// The answer of an LLM hook to one event, `on_failure` applied.
pub(super) async fn llm_answer(hook: &LlmHook, entry: &Entry, data: &Value) -> HookResult {
    let prompt = render(&hook.prompt, &entry.event, data);
    let key = format!("{}\u{0}{prompt}", hook.model);
    if let Some(cached) = hook.cache.as_ref().and_then(|cache| cache.get(&key)) {
        return cached;
    }
    match ask_model(hook, &prompt)
        .await
        .and_then(|answer| decision(&answer))
    {
        Ok(result) => {
            if let Some(cache) = &hook.cache {
                cache.put(key, result.clone());
            }
            result
        }
        Err(why) => failure(hook.on_failure, &entry.name, &why),
    }
}

async fn ask_model(hook: &LlmHook, prompt: &str) -> Result<String, String> {
    let mut headers = Vec::new();
    if let Some(variable) = &hook.api_key_env {
        let key = std::env::var(variable).map_err(|_| {
            format!("the environment variable `{variable}` (the API key) is not set")
        })?;
        match hook.provider {
            Provider::OpenAi => headers.push(("authorization".to_owned(), format!("Bearer {key}"))),
            Provider::Anthropic => headers.push(("x-api-key".to_owned(), key)),
        }
    }
    let base = hook.base_url.trim_end_matches('/');
    let messages = json!([{"role": "user", "content": prompt}]);
    let (url, body) = match hook.provider {
        Provider::OpenAi => (
            format!("{base}/chat/completions"),
            json!({"model": hook.model, "max_tokens": hook.max_tokens, "messages": messages}),
        ),
        Provider::Anthropic => {
            headers.push(("anthropic-version".to_owned(), "2023-06-01".to_owned()));
            (
                format!("{base}/messages"),
                json!({"model": hook.model, "max_tokens": hook.max_tokens, "messages": messages}),
            )
        }
    };
    let text = post(&url, &headers, body.to_string().into_bytes(), hook.timeout).await?;
    let answer: Value = serde_json::from_str(&text)
        .map_err(|_| "the model API answered something that is not JSON".to_owned())?;
    let content = match hook.provider {
        Provider::OpenAi => answer["choices"][0]["message"]["content"].as_str(),
        Provider::Anthropic => answer["content"][0]["text"].as_str(),
    };
    content
        .map(str::to_owned)
        .ok_or_else(|| "the model API's answer has no text".to_owned())
}

/// The decision in a model's answer: `{"safe": bool, "reason"}` or a `HookResult` object,
/// possibly inside a fenced code block.
pub fn decision(answer: &str) -> Result<HookResult, String> {
    let trimmed = answer.trim();
    let json_text = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|inner| inner.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(json_text) else {
        return Err(format!(
            "the model did not answer with a JSON object: `{}`",
            json_text.chars().take(120).collect::<String>()
        ));
    };
    if let Some(safe) = object.get("safe") {
        let reason = object
            .get("reason")
            .and_then(Value::as_str)
            .map(str::to_owned);
        return match safe {
            Value::Bool(true) => Ok(HookResult::cont()),
            Value::Bool(false) => {
                Ok(HookResult::deny(reason.unwrap_or_else(|| {
                    "the policy model judged this unsafe".to_owned()
                })))
            }
            _ => Err("the model's `safe` is not true or false".to_owned()),
        };
    }
    if object.contains_key("action") {
        return serde_json::from_value(Value::Object(object))
            .map_err(|error| format!("the model's answer is not a hook result: {error}"))
            .and_then(|result| usable(result).map_err(|why| format!("the model {why}")));
    }
    Err("the model's answer has neither `safe` nor `action`".to_owned())
}
