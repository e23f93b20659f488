//! A minimal OTLP/HTTP receiver on loopback: it reads each HTTP/1.1 request (keep-alive
//! included) and keeps its path and body; it answers each with an empty protobuf response (a
//! valid `Export*ServiceResponse`), or never answers at all.

#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// `200 OK` with an empty protobuf body.
    Ok,
    /// Reads the request and never answers (a hung collector).
    Never,
}

/// Each request received: its path and body.
type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// The receiver; it runs until the test process ends.
pub struct Receiver {
    address: String,
    received: Received,
}

impl Receiver {
    pub fn start(reply: Reply) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let received: Received = Arc::default();
        let store = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let store = Arc::clone(&store);
                std::thread::spawn(move || serve(stream, reply, &store));
            }
        });
        Receiver { address, received }
    }

    /// The base address, as a hooks file's `endpoint` gives it.
    pub fn endpoint(&self) -> String {
        self.address.clone()
    }

    /// The bodies received on `path`, in order.
    pub fn bodies(&self, path: &str) -> Vec<Vec<u8>> {
        lock(&self.received)
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, body)| body.clone())
            .collect()
    }

    /// Every span of every trace request received on `/v1/traces`, decoded with the
    /// official protobuf types.
    pub fn spans(&self) -> Vec<opentelemetry_proto::tonic::trace::v1::Span> {
        use prost::Message;
        self.bodies("/v1/traces")
            .iter()
            .map(|body| {
                opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest::decode(
                    &body[..],
                )
                .unwrap()
            })
            .flat_map(|request| request.resource_spans)
            .flat_map(|resource| resource.scope_spans)
            .flat_map(|scope| scope.spans)
            .collect()
    }

    /// Every body received.
    pub fn all_bodies(&self) -> Vec<Vec<u8>> {
        lock(&self.received)
            .iter()
            .map(|(_, b)| b.clone())
            .collect()
    }
}

fn serve(stream: TcpStream, reply: Reply, store: &Mutex<Vec<(String, Vec<u8>)>>) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                let name = name.trim().to_ascii_lowercase();
                assert_ne!(
                    name, "content-encoding",
                    "the payloads are sent uncompressed"
                );
                if name == "content-length" {
                    length = value.trim().parse().unwrap();
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        lock(store).push((path, body));
        match reply {
            Reply::Ok => {
                let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
                if writer.write_all(answer.as_bytes()).is_err() {
                    return;
                }
            }
            Reply::Never => std::thread::sleep(Duration::from_secs(3600)),
        }
    }
}

/// An address where nothing listens.
pub fn closed_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    address
}

/// `mutex` locked, whether or not a thread panicked while holding it: a panic in a handler or
/// a tool then fails its own test instead of every later lock with a `PoisonError`.
pub use hooks_core::sync::lock;
