//! HTTP hooks: the event is POSTed to a policy service, as the JSON a command hook reads on
//! stdin, and the answer is read in the same protocols. Running them needs the `http` feature;
//! without it they load and check, and mounting one is an error naming the feature.

#[cfg(feature = "http")]
mod run {
    use std::path::PathBuf;

    use hooks_core::HookResult;
    use serde_json::Value;

    use crate::client::post;
    use crate::failure::Failure;
    use crate::request::request;
    use crate::runner::Runner;
    use crate::{Entry, HttpHook};

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

    /// An HTTP hook, with the project directory its requests name.
    pub(crate) struct HttpRunner {
        pub(crate) hook: HttpHook,
        pub(crate) project_dir: PathBuf,
    }

    impl Runner for HttpRunner {
        async fn run(&self, entry: &Entry, data: &Value) -> Result<HookResult, Failure> {
            let hook = &self.hook;
            let body = Value::Object(request(entry, &self.project_dir, data))
                .to_string()
                .into_bytes();
            let headers = hook
                .headers
                .iter()
                .map(|(name, value)| with_env(value).map(|value| (name.clone(), value)))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Failure::Remote)?;
            let text = post(&hook.url, &headers, body, entry.timeout).await?;
            Ok(hook.protocol.read(&text, &entry.event, data)?)
        }
    }
}

#[cfg(feature = "http")]
pub(crate) use run::HttpRunner;
