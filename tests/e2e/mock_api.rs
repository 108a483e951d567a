//! A local stand-in for the Anthropic Messages API, enough for the real Claude Code CLI to run
//! sessions offline: streamed (SSE) text and tool-use replies from a scripted brain, JSON replies
//! for non-streaming calls, `count_tokens`, and `{"data":[]}` for GETs. Every POSTed body is kept
//! for the test to inspect. Loopback only; the server stops when dropped.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the model "says" next.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A text answer (`end_turn`).
    Text(String),
    /// A tool call (`tool_use`); the CLI runs it and sends the result in its next request.
    Tool { name: String, input: Value },
}

/// Decides the reply to a Messages request.
pub type Brain = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

/// A running mock server.
pub struct MockApi {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Value>>>,
    stop: Arc<AtomicBool>,
}

impl MockApi {
    /// Starts a server on a free loopback port.
    pub fn start(brain: Brain) -> MockApi {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let ids = Arc::new(AtomicUsize::new(0));
        let (reqs, stopping) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (brain, reqs, ids) = (brain.clone(), reqs.clone(), ids.clone());
                std::thread::spawn(move || serve(conn, &brain, &reqs, &ids));
            }
        });
        MockApi {
            addr,
            requests,
            stop,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every Messages request body received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr); // wake the accept loop
    }
}

fn serve(conn: TcpStream, brain: &Brain, reqs: &Mutex<Vec<Value>>, ids: &AtomicUsize) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(60)));
    let mut writer = conn.try_clone().unwrap();
    let mut reader = BufReader::new(conn);
    // Keep-alive: serve requests on this connection until the client closes it.
    while let Some((method, path, body)) = read_request(&mut reader) {
        let (status, content_type, payload) = respond(&method, &path, &body, brain, reqs, ids);
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: keep-alive\r\nrequest-id: req_mock\r\n\r\n",
            payload.len()
        );
        if !send(&mut writer, &head, &payload) {
            return;
        }
    }
}

/// Writes one response (its head, then its body); false once the client has gone.
fn send(writer: &mut impl Write, head: &str, payload: &[u8]) -> bool {
    writer
        .write_all(head.as_bytes())
        .and_then(|_| writer.write_all(payload))
        .and_then(|_| writer.flush())
        .is_ok()
}

/// A stand-in for another client's API on a loopback port (Codex's Responses API, OpenCode's
/// chat completions): a POST to a path ending in `endpoint` is kept and answered by `answer`
/// (given its number, from 1, and its body: the content type and the payload); anything else
/// gets `other` as JSON. Keeps every such request's body.
pub(super) struct StandIn {
    pub(super) port: u16,
    requests: Arc<Mutex<Vec<Value>>>,
}

/// How a [`StandIn`] answers a request it keeps.
pub(super) type Answer = Arc<dyn Fn(usize, &Value) -> (&'static str, Vec<u8>) + Send + Sync>;

impl StandIn {
    /// Starts the stand-in; a connection idle for `idle` is closed.
    pub(super) fn start(
        endpoint: &'static str,
        other: &'static [u8],
        idle: Duration,
        answer: Answer,
    ) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let reqs = requests.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let (reqs, answer) = (reqs.clone(), answer.clone());
                std::thread::spawn(move || {
                    let _ = conn.set_read_timeout(Some(idle));
                    let mut writer = conn.try_clone().unwrap();
                    let mut reader = BufReader::new(conn);
                    while let Some((method, path, body)) = read_request(&mut reader) {
                        let (kind, payload) = if method == "POST" && path.ends_with(endpoint) {
                            let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                            let n = {
                                let mut r = reqs.lock().unwrap();
                                r.push(req.clone());
                                r.len()
                            };
                            answer(n, &req)
                        } else {
                            ("application/json", other.to_vec())
                        };
                        let head = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n",
                            payload.len()
                        );
                        if !send(&mut writer, &head, &payload) {
                            return;
                        }
                    }
                });
            }
        });
        StandIn { port, requests }
    }

    /// Every request kept so far, in order.
    pub(super) fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

pub(super) fn read_request(r: &mut impl BufRead) -> Option<(String, String, Vec<u8>)> {
    let (line, body) = read_message(r, false)?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    Some((method, path, body))
}

/// One HTTP/1.1 message: its first line and its body (by `content-length`, or chunked; with
/// neither, none, or with `to_end` what comes until the connection closes).
pub(super) fn read_message(r: &mut impl BufRead, to_end: bool) -> Option<(String, Vec<u8>)> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let (mut length, mut chunked) = (None, false);
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        match k.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = Some(v.trim().parse::<usize>().ok()?),
            "transfer-encoding" => chunked = v.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        r.read_exact(&mut body).ok()?;
    } else if to_end {
        r.read_to_end(&mut body).ok()?;
    }
    Some((line, body))
}

fn respond(
    method: &str,
    path: &str,
    body: &[u8],
    brain: &Brain,
    reqs: &Mutex<Vec<Value>>,
    ids: &AtomicUsize,
) -> (&'static str, &'static str, Vec<u8>) {
    let ok = "200 OK";
    if method != "POST" {
        return (
            ok,
            "application/json",
            br#"{"data":[],"has_more":false}"#.to_vec(),
        );
    }
    if path.contains("count_tokens") {
        return (ok, "application/json", br#"{"input_tokens":100}"#.to_vec());
    }
    let req: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    if !path.contains("/v1/messages") {
        return (ok, "application/json", b"{}".to_vec());
    }
    reqs.lock().unwrap().push(req.clone());
    let reply = brain(&req);
    let id = ids.fetch_add(1, Ordering::SeqCst);
    // A prompt with FILLCONTEXT reports a nearly full context window (of the 1,000,000-token
    // default model): the CLI compacts automatically before the next prompt.
    let tokens = if current_prompt(&req).0.contains("FILLCONTEXT") {
        990_000
    } else {
        100
    };
    if req["stream"].as_bool() == Some(true) {
        (
            ok,
            "text/event-stream",
            sse(&reply, id, tokens).into_bytes(),
        )
    } else {
        let content = match &reply {
            Reply::Text(t) => json!([{"type":"text","text":t}]),
            Reply::Tool { name, input } => {
                json!([{"type":"tool_use","id":format!("toolu_mock{id}"),"name":name,"input":input}])
            }
        };
        let stop = if matches!(reply, Reply::Tool { .. }) {
            "tool_use"
        } else {
            "end_turn"
        };
        let msg = json!({"id":format!("msg_mock{id}"),"type":"message","role":"assistant","model":"claude-mock","content":content,"stop_reason":stop,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":10}});
        (ok, "application/json", msg.to_string().into_bytes())
    }
}

fn sse(reply: &Reply, id: usize, input_tokens: u64) -> String {
    let mut events = vec![(
        "message_start",
        json!({"type":"message_start","message":{"id":format!("msg_mock{id}"),"type":"message","role":"assistant","model":"claude-mock","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":input_tokens,"output_tokens":1}}}),
    )];
    let stop = match reply {
        Reply::Text(text) => {
            events.push(("content_block_start", json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})));
            events.push(("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}})));
            "end_turn"
        }
        Reply::Tool { name, input } => {
            events.push(("content_block_start", json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":format!("toolu_mock{id}"),"name":name,"input":{}}})));
            events.push(("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":input.to_string()}})));
            "tool_use"
        }
    };
    events.push((
        "content_block_stop",
        json!({"type":"content_block_stop","index":0}),
    ));
    events.push(("message_delta", json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},"usage":{"output_tokens":10}})));
    events.push(("message_stop", json!({"type":"message_stop"})));
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// The text blocks of a message, joined.
pub fn message_text(m: &Value) -> String {
    crate::common::content_text(&m["content"])
}

/// Whether a request is Claude Code's compaction (summarizer) call.
pub fn is_summarizer(req: &Value) -> bool {
    let Some(last) = req["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
    else {
        return false;
    };
    let t = message_text(last);
    t.contains("TEXT ONLY") && t.to_lowercase().contains("summary")
}

/// The user's prompt this request answers, and how many tool calls the model has made since.
/// The prompt is the last plain text block of the last user message that carries no tool result:
/// after a compaction the CLI puts the summary, the `/compact` command and its output (which
/// quotes the previous prompt) in the same message, before the new prompt.
pub fn current_prompt(req: &Value) -> (String, usize) {
    let msgs = req["messages"].as_array().cloned().unwrap_or_default();
    let mut steps = 0;
    for m in msgs.iter().rev() {
        let blocks = match &m["content"] {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(b) => b.clone(),
            _ => Vec::new(),
        };
        if m["role"] == "assistant" && blocks.iter().any(|b| b["type"] == "tool_use") {
            steps += 1;
        }
        if m["role"] == "user" && !blocks.iter().any(|b| b["type"] == "tool_result") {
            let prompt = blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .map(str::trim)
                .rfind(|t| {
                    !t.is_empty()
                        && !t.starts_with('<')
                        && !t.starts_with("This session is being continued")
                });
            if let Some(p) = prompt {
                return (p.to_owned(), steps);
            }
        }
    }
    (String::new(), steps)
}

/// Every string in a request (system prompt, messages, tools), in order. Where the CLI puts hook
/// output has moved between versions (top-level `system`, or a system-role entry in `messages`).
pub fn all_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| all_strings(i, out)),
        Value::Object(map) => map.values().for_each(|i| all_strings(i, out)),
        _ => {}
    }
}
