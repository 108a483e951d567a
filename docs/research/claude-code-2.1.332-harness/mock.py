#!/usr/bin/env python3
"""A stand-in for the Anthropic Messages API (SSE), for probing Claude Code's compaction offline.

Listens on 127.0.0.1 (port 0 -> chosen), writes the port to $MOCK_DIR/port, logs every request to
$MOCK_DIR/requests.jsonl (time, kind, prompt, message count, reported tokens) and keeps each body
in $MOCK_DIR/bodies/NNN.json. Stops by itself after MOCK_LIFETIME seconds (default 900).

The model's behaviour is picked by directives in the user's current prompt:
  TOOLS:n       n Bash calls (`echo step i`), then text; with SLOW each sleeps 3 s, with BIGBASH:N
                each prints N bytes, with BIGWRITE:N each is a Write of N bytes (context that grows
                for real), with FAILLAST the last one is `sh run_tests.sh` (fails, exit 101)
  RACE          Bash `sh run_tests.sh` reported with a full context, then text
  RACEREAD      Read of a missing file reported with a full context, then text
  FILL          every reply of the turn reports input_tokens=MOCK_FULL (default 990000)
  TOK:n         every reply reports n tokens; TOKS:a,b,c one count a step (the last repeats)
  AUTOTOK       reported tokens = request bytes / 4 (usage consistent with what is sent)
  anything else a short text answer
MOCK_CACHE=1 reports most input as cache reads/writes (a warm prompt cache). The summarizer (last
user message asks for TEXT ONLY + summary) gets <analysis>..</analysis><summary>..</summary>
after MOCK_SUMMARY_DELAY seconds (default 0).
"""
import json, os, sys, time, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

D = os.environ["MOCK_DIR"]
os.makedirs(os.path.join(D, "bodies"), exist_ok=True)
FULL = int(os.environ.get("MOCK_FULL", "990000"))
LOCK = threading.Lock()
COUNT = [0]


def text_of(m):
    c = m.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
    return ""


def is_summarizer(req):
    users = [m for m in req.get("messages", []) if m.get("role") == "user"]
    if not users:
        return False
    t = text_of(users[-1])
    return "TEXT ONLY" in t and "summary" in t.lower()


def current_prompt(req):
    msgs = req.get("messages", [])
    steps = 0
    for m in reversed(msgs):
        c = m.get("content")
        blocks = [{"type": "text", "text": c}] if isinstance(c, str) else (c or [])
        if m.get("role") == "assistant" and any(b.get("type") == "tool_use" for b in blocks):
            steps += 1
        if m.get("role") == "user" and not any(b.get("type") == "tool_result" for b in blocks):
            texts = [b.get("text", "").strip() for b in blocks if b.get("type") == "text"]
            texts = [t for t in texts if t and not t.startswith("<") and not t.startswith("This session is being continued")]
            if texts:
                return texts[-1], steps
    return "", steps


def summary_text(req):
    p, _ = current_prompt(req)
    return (
        "<analysis>\nANALYSIS-PRIVATE: the user asked for probes; I reviewed each message.\n</analysis>\n\n"
        "<summary>\n1. Primary Request and Intent:\n   The user ran probe prompts.\n\n"
        "2. Key Technical Concepts:\n   - compaction\n\n"
        "7. Pending Tasks:\n   - none\n\n"
        "8. Current Work:\n   All tests pass.\n\n"
        "9. Optional Next Step:\n   None.\n</summary>"
    )


def plan(req, nbytes=0):
    """(reply, tokens): reply is ('text', str) or ('tool', name, input)."""
    p, step = current_prompt(req)
    full = "FILL" in p
    tokens = FULL if full else 100
    if "TOK:" in p:
        tokens = int(p.split("TOK:")[1].split()[0])
    if "AUTOTOK" in p:
        # usage consistent with what is sent: about 4 bytes a token
        tokens = nbytes // 4
    if "TOKS:" in p:
        # a token count per step of the turn (the last one repeats)
        seq = [int(x) for x in p.split("TOKS:")[1].split()[0].split(",")]
        tokens = seq[min(step, len(seq) - 1)]
    if "RACEREAD" in p:
        # A tool that fails at once without a process: both rows can sit in one write batch.
        if step == 0:
            return ("tool", "Read", {"file_path": "/nonexistent/run_tests.log"}), FULL
        return ("text", "The read failed."), FULL if full else 100
    if "RACE" in p:
        if step == 0:
            return ("tool", "Bash", {"command": "sh run_tests.sh", "description": "Run the tests"}), FULL
        return ("text", "The test run finished."), tokens
    if "TOOLS:" in p:
        n = int(p.split("TOOLS:")[1].split()[0])
        if step < n:
            cmd = f"sleep 3; echo step {step}" if "SLOW" in p else f"echo step {step}"
            if "BIGBASH" in p:
                size = int(p.split("BIGBASH:")[1].split()[0]) if "BIGBASH:" in p else 28000
                cmd = f"echo step {step}; head -c {size} /dev/zero | tr '\\0' x" + ("; sleep 2" if "SLOW" in p else "")
            if "FAILLAST" in p and step == n - 1:
                cmd = "sh run_tests.sh"
            elif "BIGWRITE:" in p:
                # the content stays in the conversation (tool_use input): context that grows for real
                size = int(p.split("BIGWRITE:")[1].split()[0])
                return ("tool", "Write", {"file_path": os.path.join(os.environ.get("MOCK_PROJECT", "/tmp"), f"big{step}.txt"), "content": (f"step {step} " + "lorem ipsum dolor sit amet " * (size // 27 + 1))[:size]}), tokens
            return ("tool", "Bash", {"command": cmd, "description": f"Step {step}"}), tokens
        return ("text", f"Did {n} steps."), tokens
    return ("text", "Answer to: " + p[:60]), tokens


def usage(tokens):
    """With MOCK_CACHE=1 most of the input is reported as cache reads and writes, as the real
    API does once prompt caching works: Claude Code then sees a warm prompt cache."""
    if os.environ.get("MOCK_CACHE") and tokens > 100:
        w = tokens // 10
        return {"input_tokens": 10, "cache_creation_input_tokens": w, "cache_read_input_tokens": tokens - w - 10, "output_tokens": 1}
    return {"input_tokens": tokens, "output_tokens": 1}


def sse(reply, mid, tokens):
    ev = [("message_start", {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant", "model": "claude-mock", "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage(tokens)}})]
    if reply[0] == "text":
        ev.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
        ev.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": reply[1]}}))
        stop = "end_turn"
    else:
        ev.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_" + mid, "name": reply[1], "input": {}}}))
        ev.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": json.dumps(reply[2])}}))
        stop = "tool_use"
    ev.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 10}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in ev).encode()


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, ctype, body):
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.send_header("request-id", "req_mock")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with LOCK, open(os.path.join(D, "requests.jsonl"), "a") as f:
            f.write(json.dumps({"t": time.time(), "method": "GET", "path": self.path}) + "\n")
        self.send(200, "application/json", b'{"data":[],"has_more":false}')

    def do_HEAD(self):
        self.send(200, "application/json", b"")

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n)
        t0 = time.time()
        if "count_tokens" in self.path:
            return self.send(200, "application/json", b'{"input_tokens":100}')
        if "/v1/messages" not in self.path:
            with LOCK, open(os.path.join(D, "requests.jsonl"), "a") as f:
                f.write(json.dumps({"t": t0, "method": "POST", "path": self.path, "len": n}) + "\n")
            return self.send(200, "application/json", b"{}")
        try:
            req = json.loads(body)
        except Exception:
            req = {}
        with LOCK:
            COUNT[0] += 1
            idx = COUNT[0]
        with open(os.path.join(D, "bodies", f"{idx:03d}.json"), "wb") as f:
            f.write(body)
        summ = is_summarizer(req)
        if summ:
            time.sleep(float(os.environ.get("MOCK_SUMMARY_DELAY", "0")))
            reply, tokens = ("text", summary_text(req)), 100
        else:
            reply, tokens = plan(req, n)
        p, step = current_prompt(req)
        rec = {"t": t0, "t_reply": time.time(), "idx": idx, "path": self.path, "kind": "summarizer" if summ else "turn",
               "prompt": p[:80], "step": step, "nmsgs": len(req.get("messages", [])), "stream": req.get("stream"),
               "reply": reply[0] if reply[0] == "text" else f"tool:{reply[1]}", "tokens": tokens}
        with LOCK, open(os.path.join(D, "requests.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")
        mid = f"msg_mock{idx:03d}"
        if req.get("stream"):
            self.send(200, "text/event-stream", sse(reply, mid, tokens))
        else:
            content = [{"type": "text", "text": reply[1]}] if reply[0] == "text" else [{"type": "tool_use", "id": "toolu_" + mid, "name": reply[1], "input": reply[2]}]
            msg = {"id": mid, "type": "message", "role": "assistant", "model": "claude-mock", "content": content,
                   "stop_reason": "end_turn" if reply[0] == "text" else "tool_use", "stop_sequence": None,
                   "usage": {"input_tokens": tokens, "output_tokens": 10}}
            self.send(200, "application/json", json.dumps(msg).encode())


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(os.path.join(D, "port"), "w") as f:
    f.write(str(srv.server_address[1]))
threading.Timer(float(os.environ.get("MOCK_LIFETIME", "900")), srv.shutdown).start()
srv.serve_forever()
