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
    use std::time::Duration;

    use hooks_core::HookResult;
    use serde_json::{Value, json};

    use super::render;
    use crate::answer::decision;
    use crate::client::post;
    use crate::failure::Failure;
    use crate::runner::Runner;
    use crate::{Entry, LlmHook, Provider};

    impl Runner for LlmHook {
        /// The model's decision; identical prompts answered from the cache when it has one.
        async fn run(&self, entry: &Entry, data: &Value) -> Result<HookResult, Failure> {
            let prompt = render(&self.prompt, &entry.event, data);
            let key = format!("{}\u{0}{prompt}", self.model);
            if let Some(cached) = self.cache.as_ref().and_then(|cache| cache.get(&key)) {
                return Ok(cached);
            }
            let answer = ask_model(self, &prompt, entry.timeout).await?;
            let result = decision(&answer)?;
            if let Some(cache) = &self.cache {
                cache.put(key, result.clone());
            }
            Ok(result)
        }
    }

    async fn ask_model(hook: &LlmHook, prompt: &str, timeout: Duration) -> Result<String, Failure> {
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
        let text = post(&url, &headers, body.to_string().into_bytes(), timeout).await?;
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
