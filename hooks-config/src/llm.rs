//! LLM hooks: the prompt, rendered from the event, goes to an OpenAI-compatible chat completions
//! endpoint or the Anthropic messages API, and the model's `{"safe", "reason"}` or
//! `HookResult`-shaped answer is the decision. API keys come from environment variables and are
//! never logged. Running them needs the `llm` feature; without it they load and check, and
//! mounting one is an error naming the feature.

use hooks_core::events::fields::{TOOL_INPUT, TOOL_NAME};
use serde_json::Value;

/// The prompt with its placeholders filled in from the event.
pub fn render(template: &str, event: &str, data: &Value) -> String {
    let compact = |value: &Value| match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    template
        .replace("{{event}}", event)
        .replace("{{tool}}", &compact(&data[TOOL_NAME]))
        .replace("{{args}}", &compact(&data[TOOL_INPUT]))
        .replace("{{data}}", &data.to_string())
}

#[cfg(feature = "llm")]
mod run {
    use hooks_core::HookResult;
    use serde_json::{Value, json};

    use super::render;
    use crate::answer::decision;
    use crate::client::post;
    use crate::failure::Failure;
    use crate::{Entry, LlmHook, Provider};

    /// The answer of an LLM hook to one event, `on_failure` applied.
    pub(crate) async fn answer(hook: &LlmHook, entry: &Entry, data: &Value) -> HookResult {
        let prompt = render(&hook.prompt, &entry.event, data);
        let key = format!("{}\u{0}{prompt}", hook.model);
        if let Some(cached) = hook.cache.as_ref().and_then(|cache| cache.get(&key)) {
            return cached;
        }
        match ask_model(hook, &prompt)
            .await
            .and_then(|answer| decision(&answer).map_err(Failure::Answer))
        {
            Ok(result) => {
                if let Some(cache) = &hook.cache {
                    cache.put(key, result.clone());
                }
                result
            }
            Err(failure) => hook.on_failure.apply(&entry.name, &failure),
        }
    }

    async fn ask_model(hook: &LlmHook, prompt: &str) -> Result<String, Failure> {
        let mut headers = Vec::new();
        if let Some(variable) = &hook.api_key_env {
            let key = std::env::var(variable).map_err(|_| {
                Failure::Remote(format!(
                    "the environment variable `{variable}` (the API key) is not set"
                ))
            })?;
            match hook.provider {
                Provider::OpenAi => {
                    headers.push(("authorization".to_owned(), format!("Bearer {key}")))
                }
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
        let answer: Value = serde_json::from_str(&text).map_err(|_| {
            Failure::Remote("the model API answered something that is not JSON".to_owned())
        })?;
        let content = match hook.provider {
            Provider::OpenAi => answer["choices"][0]["message"]["content"].as_str(),
            Provider::Anthropic => answer["content"][0]["text"].as_str(),
        };
        content
            .map(str::to_owned)
            .ok_or_else(|| Failure::Remote("the model API's answer has no text".to_owned()))
    }
}

#[cfg(feature = "llm")]
pub(crate) use run::answer;
