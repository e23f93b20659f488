//! The HTTP client of the HTTP and LLM hooks (the `http` and `llm` features): one shared
//! client, a POST with a timeout, errors that name the URL but never a header.

use std::sync::OnceLock;
use std::time::Duration;

use crate::failure::Failure;

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new)
}

/// POSTs `body` (JSON) to `url` and returns the answer's text; a timeout, a transport error
/// or a status other than success is a failure.
pub(crate) async fn post(
    url: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
    timeout: Duration,
) -> Result<String, Failure> {
    let mut request = client()
        .post(url)
        .timeout(timeout)
        .header("content-type", "application/json")
        .body(body);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = request.send().await.map_err(|error| {
        Failure::Remote(if error.is_timeout() {
            format!("no answer from {url} within {timeout:?}")
        } else {
            format!("the request to {url} failed: {}", error.without_url())
        })
    })?;
    let status = response.status();
    let text = response.text().await.map_err(|error| {
        Failure::Remote(format!(
            "the answer from {url} could not be read: {}",
            error.without_url()
        ))
    })?;
    if !status.is_success() {
        return Err(Failure::Remote(format!(
            "{url} answered HTTP {}",
            status.as_u16()
        )));
    }
    Ok(text)
}
