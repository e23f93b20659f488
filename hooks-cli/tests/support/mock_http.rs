//! The skeleton of the mock model APIs: an HTTP/1.1 server on loopback that records every
//! request and answers each by a function of it (the API family's script). Each answer closes
//! its connection, so no keep-alive state can leak between requests.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

/// How long one connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest request body the mock reads (agents send a few hundred KiB at most).
const MAX_BODY: usize = 16 * 1024 * 1024;

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
    /// The path without its query.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// An answer: status, content type, body.
#[derive(Debug, Clone)]
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// The content type.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl Response {
    /// `200` with a JSON body.
    pub fn json(body: &Value) -> Response {
        Response {
            status: 200,
            content_type: "application/json",
            body: body.to_string(),
        }
    }

    /// `200` with a server-sent event stream, one `data:` line per event (named when a name
    /// is given).
    pub fn events<'a>(events: impl IntoIterator<Item = (Option<&'a str>, Value)>) -> Response {
        let body = events
            .into_iter()
            .map(|(name, data)| match name {
                Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                None => format!("data: {data}\n\n"),
            })
            .collect();
        Response {
            status: 200,
            content_type: "text/event-stream",
            body,
        }
    }

    /// An error status with a JSON body.
    pub fn error(status: u16, body: &Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: body.to_string(),
        }
    }
}

/// The function that answers each request, given it and every request before it.
pub type Answer = dyn Fn(&Request) -> Response + Send + Sync;

/// The running mock; stopped when dropped.
pub struct MockServer {
    address: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    stopping: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Listens on a free loopback port and answers by `answer`.
    pub fn start(
        answer: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stopping = Arc::new(AtomicBool::new(false));
        let answer: Arc<Answer> = Arc::new(answer);
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
                    let answer = Arc::clone(&answer);
                    // The client may hold several connections at once.
                    std::thread::spawn(move || serve(stream, &*answer, &requests));
                }
            })
        };
        Ok(MockServer {
            address,
            requests,
            stopping,
            acceptor: Some(acceptor),
        })
    }

    /// `http://127.0.0.1:<port>`.
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

    /// Whether any request so far carries `text` in its body.
    pub fn any_body_contains(&self, text: &str) -> bool {
        self.requests()
            .iter()
            .any(|request| request.body.contains(text))
    }

    /// The requests, one line each with the end of its body, for a failure report.
    pub fn log(&self) -> String {
        let requests = self.requests();
        if requests.is_empty() {
            return "  (no request reached the mock)\n".to_owned();
        }
        requests
            .iter()
            .map(|request| {
                let chars: Vec<char> = request.body.chars().collect();
                let tail: String = chars[chars.len().saturating_sub(800)..].iter().collect();
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

impl Drop for MockServer {
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
fn serve(stream: TcpStream, answer: &Answer, requests: &Mutex<Vec<Request>>) {
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
            let body = serde_json::json!({"error": {"message": problem}});
            let _ = respond(&stream, &Response::error(400, &body));
            return;
        }
    };
    requests
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(request.clone());
    let _ = respond(&stream, &answer(&request));
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

/// Writes a whole response and closes the connection.
fn respond(mut stream: &TcpStream, response: &Response) -> std::io::Result<()> {
    let reason = match response.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        _ => "Error",
    };
    write!(
        stream,
        "HTTP/1.1 {} {reason}\r\ncontent-type: {}\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{}",
        response.status,
        response.content_type,
        response.body.len(),
        response.body
    )?;
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Both)
}
