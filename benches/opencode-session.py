#!/usr/bin/env python3
"""What a compaction of a big OpenCode session costs with the plugin (issue #43, D050).

The real OpenCode (`.e2e/opencode/`, or COMPACT_GUARDIAN_OPENCODE) runs offline against a local
stand-in for a chat completions API, with the plugin installed by `install-opencode` from the
release binary. A session is made through OpenCode's API, then grown in its database to TURNS
turns (a prompt, a `bash` call with OUTPUT_BYTES of output, a reply: the shape of a long
autonomous run), and compacted by hand (`POST /session/:id/summarize`) RUNS times, each in a
fresh `opencode serve`. Reported, as medians:
  - as installed: the plugin's excerpt (how long reading the session newest first through
    OpenCode's API and writing the excerpt took, how many messages and bytes) and its run of the
    binary's `save` (spawn to answer), from the plugin's own COMPACT_GUARDIAN_DEBUG line in
    OpenCode's log;
  - measured: the binary's `save` on that excerpt and its `restore` after the compaction, wall
    time and peak RSS, through a wrapper running it under GNU time (/usr/bin/time).

    benches/opencode-session.py                   # TURNS=2000 OUTPUT_BYTES=16384 RUNS=5
    TURNS=10000 RUNS=3 benches/opencode-session.py

Needs python3 and OpenCode installed (.ci/run, or npm install --prefix .e2e/opencode
opencode-ai@1.18.33). Everything happens in a temporary folder, removed at the end.
"""

import http.server
import json
import os
import re
import shutil
import socketserver
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPENCODE = os.environ.get("COMPACT_GUARDIAN_OPENCODE") or os.path.join(
    ROOT, ".e2e/opencode/node_modules/opencode-linux-x64/bin/opencode"
)
TURNS = int(os.environ.get("TURNS", "2000"))
OUTPUT = int(os.environ.get("OUTPUT_BYTES", "16384"))
RUNS = int(os.environ.get("RUNS", "5"))


class Chat(http.server.BaseHTTPRequestHandler):
    """The stand-in: a summary for OpenCode's summarizer, a short text for anything else."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.reply("application/json", b'{"data":[]}')

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        system = " ".join(
            m["content"] for m in body.get("messages", []) if m.get("role") == "system" and isinstance(m.get("content"), str)
        )
        text = "## Objective\n- Keep going.\n" if "summarization" in system else "Done."
        chunks = [
            {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
            {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}},
        ]
        self.reply("text/event-stream", ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode())

    def reply(self, kind, payload):
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def main():
    if not os.path.isfile(OPENCODE):
        sys.exit(f"OpenCode is not installed at {OPENCODE} (.ci/run installs it)")
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "compact-guardian"], cwd=ROOT, check=True)
    binary = os.path.join(ROOT, "target/release/compact-guardian")
    api = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Chat)
    api.daemon_threads = True
    threading.Thread(target=api.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = os.path.join(tmp, "home"), os.path.join(tmp, "project")
        os.makedirs(os.path.join(home, ".config/opencode"))
        os.makedirs(project)
        config = {
            "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock", "options": {"baseURL": f"http://127.0.0.1:{api.server_address[1]}/v1", "apiKey": "x"}, "models": {"m": {"name": "m", "tool_call": True, "limit": {"context": 1000000, "output": 4000}}}}},
            "model": "mock/m",
            "autoupdate": False,
            "share": "disabled",
        }
        with open(os.path.join(home, ".config/opencode/opencode.json"), "w") as f:
            json.dump(config, f)
        # The binary runs through a wrapper that measures it.
        measured = os.path.join(tmp, "measured.jsonl")
        wrapper = os.path.join(tmp, "compact-guardian")
        with open(wrapper, "w") as f:
            f.write(WRAPPER.format(python=sys.executable, binary=binary, log=measured))
        os.chmod(wrapper, 0o755)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": home,
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "COMPACT_GUARDIAN_BIN": wrapper,
            "COMPACT_GUARDIAN_DEBUG": "1",
        }
        subprocess.run([binary, "install-opencode"], env={"HOME": home}, check=True, stdout=subprocess.DEVNULL)
        with Serve(env, project) as s:
            session = s.call("POST", "/session", {})["id"]
            s.call("POST", f"/session/{session}/message", {"parts": [{"type": "text", "text": "hello"}]})
        grow(os.path.join(home, ".local/share/opencode/opencode.db"), session)
        # First as a user runs it (the plugin's own timing of the excerpt and of the binary's
        # run), then through the wrapper (the binary's wall time and peak RSS).
        logs = os.path.join(home, ".local/share/opencode/log")
        for phase, binary_used in (("as installed", binary), ("measured", wrapper)):
            env["COMPACT_GUARDIAN_BIN"] = binary_used
            shutil.rmtree(logs, ignore_errors=True)
            for _ in range(RUNS):
                with Serve(env, project) as s:
                    s.call("POST", f"/session/{session}/summarize", {"providerID": "mock", "modelID": "m"})
                    time.sleep(1)  # the restore runs at the session.compacted event
            print(f"{phase}:")
            report(logs, measured if binary_used == wrapper else None)
    api.shutdown()


# GNU time measures the binary's peak RSS (a child forked from this Python would count Python's
# pages too); the wall time is taken around it.
WRAPPER = """#!{python}
import json, os, subprocess, sys, tempfile, time
data = sys.stdin.buffer.read()
with tempfile.NamedTemporaryFile() as rss:
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, {binary!r}] + sys.argv[1:], input=data, capture_output=True)
    ms = (time.perf_counter() - start) * 1000
    kib = int(open(rss.name).read().split()[-1])
path = json.loads(data or b"{{}}").get("transcript_path")
with open({log!r}, "a") as f:
    f.write(json.dumps({{"sub": sys.argv[1], "ms": ms, "maxrss_kib": kib, "excerpt": os.path.getsize(path) if path and os.path.exists(path) else None}}) + "\\n")
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
"""


class Serve:
    """`opencode serve` on a free port, for one `with` block."""

    def __init__(self, env, project):
        self.proc = subprocess.Popen([OPENCODE, "serve", "--port", "0", "--hostname", "127.0.0.1"], env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.project = project
        for line in self.proc.stdout:
            m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def call(self, method, path, body=None):
        url = f"http://127.0.0.1:{self.port}{path}?directory={urllib.request.quote(self.project, safe='')}"
        req = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None, headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=600) as r:
            return json.loads(r.read() or b"null")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def grow(db_path, session):
    """Appends TURNS turns to the session, in the shape OpenCode 1.18 stores them."""
    db = sqlite3.connect(db_path)
    (user,) = db.execute("select data from message where session_id=? and json_extract(data,'$.role')='user' limit 1", (session,)).fetchone()
    (assistant,) = db.execute("select data from message where session_id=? and json_extract(data,'$.role')='assistant' limit 1", (session,)).fetchone()
    user, assistant = json.loads(user), json.loads(assistant)
    (t0,) = db.execute("select max(time_created) from message where session_id=?", (session,)).fetchone()
    output = ("PASSED tests/test_%d.py\n" * (OUTPUT // 24))[:OUTPUT]
    rows_m, rows_p = [], []
    for i in range(TURNS):
        t = t0 + 1 + i * 10
        uid, aid = f"msg_{t:013x}u{i:08d}", f"msg_{t:013x}a{i:08d}"
        rows_m.append((uid, session, t, t, json.dumps({**user, "time": {"created": t}})))
        rows_p.append((f"prt_{t:013x}u{i:08d}", uid, session, t, t, json.dumps({"type": "text", "text": f"step {i}: run the test suite and fix what fails"})))
        rows_m.append((aid, session, t + 1, t + 1, json.dumps({**assistant, "parentID": uid, "time": {"created": t + 1, "completed": t + 2}, "finish": "stop"})))
        tool = {"type": "tool", "callID": f"call_{i}", "tool": "bash", "state": {"status": "completed", "input": {"command": f"pytest -q tests/test_{i}.py", "description": "run"}, "output": output, "title": "pytest", "metadata": {"output": output, "exit": 0, "truncated": False}, "time": {"start": t, "end": t + 1}}}
        rows_p.append((f"prt_{t:013x}a{i:08d}1", aid, session, t + 1, t + 1, json.dumps(tool)))
        rows_p.append((f"prt_{t:013x}a{i:08d}2", aid, session, t + 1, t + 1, json.dumps({"type": "text", "text": f"Step {i} passes."})))
    db.executemany("insert into message (id, session_id, time_created, time_updated, data) values (?,?,?,?,?)", rows_m)
    db.executemany("insert into part (id, message_id, session_id, time_created, time_updated, data) values (?,?,?,?,?,?)", rows_p)
    db.commit()
    db.execute("pragma wal_checkpoint(truncate)")
    db.close()
    print(f"session grown to {TURNS} turns: database {os.path.getsize(db_path) / 1e6:.0f} MB")


def report(logs, measured):
    excerpts = []
    for name in sorted(os.listdir(logs)):
        for line in open(os.path.join(logs, name), errors="replace"):
            m = re.search(r"excerpt of (\d+) messages \((\d+) pages, (\d+) typed prompts, (\d+) bytes\) in (\d+) ms.*; save (\d+) ms", line)
            if m:
                excerpts.append([int(x) for x in m.groups()])
    runs = [json.loads(l) for l in open(measured)] if measured and os.path.exists(measured) else []
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    for e in excerpts:
        print(f"  run: {e[0]} messages, {e[1]} pages, {e[3]} bytes in {e[4]} ms; save {e[5]} ms")
    if excerpts:
        print(f"  plugin excerpt ({len(excerpts)} runs): {med([e[4] for e in excerpts]):.0f} ms median, {med([e[0] for e in excerpts]):.0f} messages in {med([e[1] for e in excerpts]):.0f} pages, {med([e[3] for e in excerpts]) / 1e6:.2f} MB written; the plugin's run of save {med([e[5] for e in excerpts]):.0f} ms")
    for sub in ("save", "restore"):
        rs = [r for r in runs if r["sub"] == sub]
        if rs:
            size = [r["excerpt"] for r in rs if r["excerpt"]]
            print(f"  binary {sub} ({len(rs)} runs): {med([r['ms'] for r in rs]):.1f} ms median wall, peak RSS {med([r['maxrss_kib'] for r in rs]) / 1024:.1f} MiB median" + (f", on a {med(size) / 1e6:.1f} MB excerpt" if size else ""))


if __name__ == "__main__":
    main()
