//! A mock of the Anthropic Messages API on loopback: it plays the model with a script (at most
//! one tool call, Bash or another, then a closing text) and records every request it receives.
//!
//! It answers `POST /v1/messages` as the real API does: a server-sent event stream
//! (`message_start`, `content_block_start`/`_delta`/`_stop`, `message_delta`, `message_stop`)
//! when the request asks for `stream`, one message object otherwise. Token counting gets a
//! count; any other endpoint a `404` error in the API's shape. Each answer closes its
//! connection, so no keep-alive state can leak between requests.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// The id of the one tool call the script makes; the next request answers it.
pub const TOOL_USE_ID: &str = "toolu_e2e_01";

/// The text the model ends every conversation with.
pub const CLOSING_TEXT: &str = "Done.";

/// How long one connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest request body the mock reads (Claude Code's are about 50 KiB).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// What the model does.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// The command the model runs with the Bash tool at its first turn; `None` to answer with
    /// text only (or with `tool_call`).
    pub bash_command: Option<String>,
    /// Another tool the model calls at its first turn (its name and input), when there is no
    /// `bash_command`: an MCP tool, say.
    pub tool_call: Option<(String, Value)>,
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Request {
    /// The method.
    pub method: String,
    /// The path, with its query.
    pub path: String,
    /// The body, as text.
    pub body: String,
}

impl Request {
    /// Whether this is a turn of the model (not token counting or another endpoint).
    pub fn is_turn(&self) -> bool {
        self.method == "POST" && message_path(&self.path)
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The result the client sent back for the tool call `id`: its text, and whether it is
    /// marked as an error.
    pub fn tool_result(&self, id: &str) -> Option<(String, bool)> {
        let body = self.json();
        let messages = body["messages"].as_array()?;
        messages
            .iter()
            .filter_map(|message| message["content"].as_array())
            .flatten()
            .find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id)
            .map(|block| {
                let is_error = block["is_error"].as_bool().unwrap_or(false);
                (text_of(&block["content"]), is_error)
            })
    }
}

/// The text of a content field: a string, or the text blocks of a list.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Whether `path` is the messages endpoint (`/v1/messages`, with or without a query).
fn message_path(path: &str) -> bool {
    path.split('?').next() == Some("/v1/messages")
}

/// The running mock; stopped when dropped.
pub struct MessagesApi {
    address: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    stopping: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl MessagesApi {
    /// Listens on a free loopback port and answers by `script`.
    pub fn start(script: Script) -> std::io::Result<MessagesApi> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stopping = Arc::new(AtomicBool::new(false));
        let script = Arc::new(script);
        let acceptor = {
            let requests = Arc::clone(&requests);
            let stopping = Arc::clone(&stopping);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let requests = Arc::clone(&requests);
                    let script = Arc::clone(&script);
                    // The client may hold several connections at once.
                    std::thread::spawn(move || serve(stream, &script, &requests));
                }
            })
        };
        Ok(MessagesApi {
            address,
            requests,
            stopping,
            acceptor: Some(acceptor),
        })
    }

    /// The base URL to give the client (`ANTHROPIC_BASE_URL`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Every request received so far, in order of arrival.
    pub fn requests(&self) -> Vec<Request> {
        self.requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The requests, one line each with the end of the last message, for a failure report.
    pub fn log(&self) -> String {
        let requests = self.requests();
        if requests.is_empty() {
            return "  (no request reached the mock)\n".to_owned();
        }
        requests
            .iter()
            .map(|request| {
                let body = request.json();
                let last = body["messages"]
                    .as_array()
                    .and_then(|messages| messages.last())
                    .map(|message| message.to_string())
                    .unwrap_or_else(|| request.body.clone());
                let tail: String = {
                    let chars: Vec<char> = last.chars().collect();
                    chars[chars.len().saturating_sub(600)..].iter().collect()
                };
                format!(
                    "  {} {} ({} bytes) ... {tail}\n",
                    request.method,
                    request.path,
                    request.body.len()
                )
            })
            .collect()
    }
}

impl Drop for MessagesApi {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the acceptor so that it sees the flag.
        let _ = TcpStream::connect(self.address);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// Reads one request from `stream`, records it and answers it.
fn serve(stream: TcpStream, script: &Script, requests: &Mutex<Vec<Request>>) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader);
    let request = match read_request(&mut reader) {
        Ok(Some(request)) => request,
        // A connection that closed without a request (the mock's own wake-up call).
        Ok(None) => return,
        Err(problem) => {
            let _ = respond(&stream, 400, "application/json", &api_error(&problem));
            return;
        }
    };
    requests
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(request.clone());
    let (status, content_type, body) = answer(&request, script);
    let _ = respond(&stream, status, content_type, &body);
}

/// One HTTP/1.1 request: the request line, the headers, a body by length or in chunks.
fn read_request(reader: &mut impl BufRead) -> Result<Option<Request>, String> {
    let mut line = String::new();
    if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(format!("not an HTTP request line: {line:?}"));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err("the connection closed inside the headers".to_owned());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(format!("not a header: {header:?}"));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                length = value
                    .parse()
                    .map_err(|_| format!("bad content-length {value:?}"))?;
            }
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let body = if chunked {
        read_chunks(reader)?
    } else {
        if length > MAX_BODY {
            return Err(format!("a body of {length} bytes"));
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).map_err(|e| e.to_string())?;
        body
    };
    Ok(Some(Request {
        method,
        path,
        body: String::from_utf8_lossy(&body).into_owned(),
    }))
}

/// A chunked body, to its last chunk.
fn read_chunks(reader: &mut impl BufRead) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let size = line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size, 16).map_err(|_| format!("bad chunk {line:?}"))?;
        if body.len() + size > MAX_BODY {
            return Err("a chunked body too large".to_owned());
        }
        let mut chunk = vec![0; size + 2]; // the chunk and its CRLF
        reader.read_exact(&mut chunk).map_err(|e| e.to_string())?;
        body.extend_from_slice(&chunk[..size]);
        if size == 0 {
            return Ok(body);
        }
    }
}

/// The answer to `request`: status, content type, body.
fn answer(request: &Request, script: &Script) -> (u16, &'static str, String) {
    let path = request.path.split('?').next().unwrap_or_default();
    if request.method == "POST" && path == "/v1/messages/count_tokens" {
        let tokens = request.body.len() / 4;
        return (
            200,
            "application/json",
            json!({"input_tokens": tokens}).to_string(),
        );
    }
    if !request.is_turn() {
        let problem = format!("{} {} is not mocked", request.method, request.path);
        return (404, "application/json", api_error(&problem));
    }
    let body = request.json();
    if body.is_null() {
        return (400, "application/json", api_error("the body is not JSON"));
    }
    let model = body["model"].as_str().unwrap_or("claude-mock").to_owned();
    let call = match (&script.bash_command, &script.tool_call) {
        (Some(command), _) => Some((
            "Bash".to_owned(),
            json!({"command": command, "description": "Run the scripted command"}),
        )),
        (None, Some(call)) => Some(call.clone()),
        (None, None) => None,
    };
    let offered = |name: &str| {
        body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == name))
    };
    let answered = request.tool_result(TOOL_USE_ID).is_some();
    let content = match call {
        Some((name, input)) if offered(&name) && !answered => vec![json!({
            "type": "tool_use",
            "id": TOOL_USE_ID,
            "name": name,
            "input": input,
        })],
        _ => vec![json!({"type": "text", "text": CLOSING_TEXT})],
    };
    let stop_reason = if content[0]["type"] == "tool_use" {
        "tool_use"
    } else {
        "end_turn"
    };
    if body["stream"] == true {
        (
            200,
            "text/event-stream",
            event_stream(&model, &content, stop_reason),
        )
    } else {
        let message = json!({
            "id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        });
        (200, "application/json", message.to_string())
    }
}

/// The message as the API streams it: every block opened, filled by one delta and closed.
fn event_stream(model: &str, content: &[Value], stop_reason: &str) -> String {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }}),
    )];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = if block["type"] == "tool_use" {
            (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            )
        } else {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            )
        };
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// An error body in the API's shape.
fn api_error(message: &str) -> String {
    json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        .to_string()
}

/// Writes a whole response and closes the connection.
fn respond(
    mut stream: &TcpStream,
    status: u16,
    content_type: &str,
    body: &str,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        _ => "Not Found",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Both)
}
