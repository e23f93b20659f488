//! A mock of an OpenAI-compatible chat completions API on loopback: it plays the model with a
//! script (one `bash` tool call at the first turn that offers tools, then a closing text) and
//! records every request it receives. It answers `POST .../chat/completions` with a server-sent
//! event stream of chunks, as the real API does; each answer closes its connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// The id of the one tool call the script makes.
pub const TOOL_CALL_ID: &str = "call_e2e_01";

/// The running mock; it stops with the test process.
pub struct ChatApi {
    address: SocketAddr,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl ChatApi {
    /// Listens on a free loopback port; the model runs `command` with its `bash` tool.
    pub fn start(command: &str) -> std::io::Result<ChatApi> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let command = command.to_owned();
        {
            let requests = Arc::clone(&requests);
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let requests = Arc::clone(&requests);
                    let command = command.clone();
                    std::thread::spawn(move || serve(stream, &command, &requests));
                }
            });
        }
        Ok(ChatApi { address, requests })
    }

    /// The base URL of the provider (`.../v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// The bodies of the requests received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// What the client sent back as the result of the tool call, if it did.
    pub fn tool_result(&self) -> Option<String> {
        self.requests().iter().find_map(|body| {
            body["messages"].as_array()?.iter().find_map(|message| {
                (message["role"] == "tool" && message["tool_call_id"] == TOOL_CALL_ID)
                    .then(|| text_of(&message["content"]))
            })
        })
    }

    /// Every request, for a failure message.
    pub fn log(&self) -> String {
        self.requests()
            .iter()
            .map(|body| {
                let text = body.to_string();
                text.chars()
                    .rev()
                    .take(600)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect()
            })
            .collect::<Vec<String>>()
            .join("\n")
    }
}

/// The text of a message's content: a string, or the text parts of a list.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Reads one request and answers it.
fn serve(stream: TcpStream, command: &str, requests: &Mutex<Vec<Value>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(reader_stream) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader_stream);
    let mut length = 0;
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, text) = if request_line.contains("/chat/completions") {
        let answer = turn(&body, command);
        if let Ok(mut requests) = requests.lock() {
            requests.push(body);
        }
        ("200 OK", answer)
    } else {
        ("404 Not Found", String::new())
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = stream.flush();
}

/// The model's turn: the tool call where tools are offered and no tool has answered yet, else
/// a closing text.
fn turn(body: &Value, command: &str) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let answered = messages.iter().any(|message| message["role"] == "tool");
    let offers_tools = body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty());
    let (delta, finish) = if offers_tools && !answered {
        let arguments = json!({"command": command, "description": "run it"}).to_string();
        (
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": TOOL_CALL_ID,
                   "type": "function", "function": {"name": "bash", "arguments": arguments}}]}),
            "tool_calls",
        )
    } else {
        (json!({"role": "assistant", "content": "Done."}), "stop")
    };
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-e2e", "object": "chat.completion.chunk", "created": 0,
               "model": "mock-model",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut last = chunk(json!({}), Value::from(finish));
    last["usage"] = json!({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2});
    [chunk(delta, Value::Null), last]
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .chain(["data: [DONE]\n\n".to_owned()])
        .collect()
}
