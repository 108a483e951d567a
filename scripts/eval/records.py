"""Synthetic records in each client's own format, appended to a real transcript cut at a line.

A case's `steps` are written in one small vocabulary (see `tests/fixtures/eval/README.md`):

    ["prompt", text]                       the user types a prompt
    ["reply", text]                        the agent answers in text
    ["run", cmd, exit, output]             a shell call and its result (output: text or a
                                           runner-output spec, see `outputs.py`)
    ["edit", path, old, new]               an edit that succeeded
    ["edit_fail", path, old, new, error]   an edit the tool refused
    ["write", path, content]               a new file
    ["read", path, content]                the agent reads a file (Read; Codex: `sed -n`)
    ["plan", markdown]                     a plan the user approved (ExitPlanMode; Codex: a reply)
    ["tasks", [[name, status], ...]]       the task list's whole new state

Claude Code: the records carry the base transcript's own envelope (sessionId, cwd, version,
gitBranch, the prompt fields its version writes), hang off the newest record of the base's
conversation branch, and use the task tool of the base's generation (TodoWrite before 2.1.16,
TaskCreate/TaskUpdate after). A failed Bash result is written as the base's version writes it
("Exit code N" first from 2.1 on, the bare output with is_error before).

Codex: rollout lines as 0.169 writes them (`timestamp`, `ordinal`, `type`, `payload`):
`response_item` messages, `exec_command` function calls with the unified-exec output
("Process exited with code N"), `apply_patch` custom tool calls, `update_plan`, and the
`event_msg` items beside them. `convert_claude()` turns a real Claude Code transcript's
conversation into such a rollout (prompts, replies, Bash -> exec_command, Edit/Write ->
apply_patch, TodoWrite/Task* -> update_plan, Task/Agent -> spawn_agent, Read/Grep/Glob -> the shell
command Codex would run).
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
import re

from outputs import render_output

TS0 = dt.datetime(2026, 11, 25, 9, 0, 0, tzinfo=dt.timezone.utc)


def _uuid(seed: str) -> str:
    h = hashlib.sha256(seed.encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def _tid(seed: str) -> str:
    return "toolu_01" + hashlib.sha256(seed.encode()).hexdigest()[:22]


def _iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _parse_ts(s) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(str(s).replace("Z", "+00:00"))
    except ValueError:
        return None


def _old_version(v: str) -> bool:
    return v.startswith("1.") or v.startswith("2.0.")


def _uses_task_tools(v: str) -> bool:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", v or "")
    return bool(m) and (int(m[1]), int(m[2]), int(m[3])) >= (2, 1, 16)


# ---------------------------------------------------------------- Claude Code


class ClaudeWriter:
    """Appends records to a cut Claude Code transcript in its own envelope."""

    def __init__(self, base_lines: list[str], seed: str, task_tool: str | None = None):
        recs = []
        for raw in base_lines:
            try:
                d = json.loads(raw)
                if isinstance(d, dict):
                    recs.append(d)
            except ValueError:
                pass
        conv = [d for d in recs if d.get("type") in ("user", "assistant") and not d.get("isSidechain") and d.get("uuid")]
        last = conv[-1] if conv else {}
        self.env = {k: last[k] for k in ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "slug") if k in last}
        self.env.setdefault("cwd", "/home/dev/project")
        self.env.setdefault("sessionId", _uuid(seed + "session"))
        self.env.setdefault("version", "2.1.140")
        self.version = self.env["version"]
        self.parent = last.get("uuid")
        prompts = [
            d
            for d in recs
            if d.get("type") == "user" and isinstance((d.get("message") or {}).get("content"), str) and not d.get("isMeta") and not d.get("isCompactSummary")
        ]
        self.prompt_extra = {}
        if prompts:
            p = prompts[-1]
            for k in ("promptSource", "origin", "permissionMode"):
                if k in p:
                    self.prompt_extra[k] = p[k]
            if "promptSource" in self.prompt_extra:
                self.prompt_extra["promptSource"] = "typed"
            if "origin" in self.prompt_extra:
                self.prompt_extra["origin"] = {"kind": "human"}
        times = [t for t in (_parse_ts(d.get("timestamp")) for d in recs) if t]
        self.t = (max(times) if times else TS0) + dt.timedelta(minutes=3)
        self.seed = seed
        self.n = 0
        self.task_tool = task_tool or ("task" if _uses_task_tools(self.version) else "todo")
        # Task ids and states already in the base (TaskCreate results name them).
        self.task_ids: dict[str, str] = {}
        self.task_state: dict[str, str] = {}
        self.todos: list[dict] = []
        calls = {}
        for d in recs:
            msg = d.get("message") if isinstance(d.get("message"), dict) else {}
            c = msg.get("content")
            if not isinstance(c, list):
                continue
            for b in c:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use":
                    calls[b.get("id")] = b
                elif b.get("type") == "tool_result":
                    call = calls.get(b.get("tool_use_id")) or {}
                    inp = call.get("input") or {}
                    text = b.get("content") if isinstance(b.get("content"), str) else json.dumps(b.get("content"))
                    if call.get("name") == "TaskCreate":
                        m = re.search(r"Task #(\w+) created", text or "")
                        if m:
                            self.task_ids[inp.get("subject", "")] = m.group(1)
                            self.task_state[inp.get("subject", "")] = "pending"
                    elif call.get("name") == "TaskUpdate" and inp.get("status"):
                        for s, i in self.task_ids.items():
                            if i == str(inp.get("taskId")):
                                self.task_state[s] = inp["status"]
                    elif call.get("name") == "TodoWrite" and not b.get("is_error"):
                        self.todos = inp.get("todos") or []
        self.lines: list[str] = []

    # ---- envelope
    def _next(self) -> tuple[str, str, str]:
        self.n += 1
        self.t += dt.timedelta(seconds=7 + (self.n * 13) % 31)
        u = _uuid(f"{self.seed}/{self.n}")
        p = self.parent
        self.parent = u
        return u, p, _iso(self.t)

    def _rec(self, body: dict) -> dict:
        u, p, ts = self._next()
        r = {"parentUuid": p, "isSidechain": False}
        r.update(self.env)
        r.update(body)
        r["uuid"] = u
        r["timestamp"] = ts
        return r

    def _emit(self, r: dict):
        self.lines.append(json.dumps(r, ensure_ascii=False, separators=(",", ":")))

    def _assistant(self, content: list, stop: str) -> dict:
        return self._rec(
            {
                "type": "assistant",
                "message": {
                    "id": "msg_01" + hashlib.sha256(f"{self.seed}m{self.n}".encode()).hexdigest()[:22],
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-opus-4-8",
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 4, "cache_creation_input_tokens": 812, "cache_read_input_tokens": 48211, "output_tokens": 240},
                },
                "requestId": "req_011C" + hashlib.sha256(f"{self.seed}r{self.n}".encode()).hexdigest()[:20],
            }
        )

    # ---- steps
    def prompt(self, text: str):
        body = {"type": "user", "message": {"role": "user", "content": text}}
        body.update(self.prompt_extra)
        self._emit(self._rec(body))

    def reply(self, text: str):
        self._emit(self._assistant([{"type": "text", "text": text}], "end_turn"))

    def _tool(self, name: str, inp: dict, result: str, is_error: bool, tur):
        tid = _tid(f"{self.seed}/tool{self.n}")
        a = self._assistant([{"type": "tool_use", "id": tid, "name": name, "input": inp}], "tool_use")
        self._emit(a)
        block = {"tool_use_id": tid, "type": "tool_result", "content": result}
        if is_error or not _old_version(self.version):
            block["is_error"] = is_error
        body = {"type": "user", "message": {"role": "user", "content": [block]}, "toolUseResult": tur}
        if not _old_version(self.version):
            body["sourceToolAssistantUUID"] = a["uuid"]
        self._emit(self._rec(body))

    def run(self, cmd: str, code: int, output: str, pending: bool = False):
        """A Bash call; `pending`: the call with no result yet (PreCompact can run before the
        result is written, issue #38)."""
        if pending:
            tid = _tid(f"{self.seed}/tool{self.n}")
            self._emit(self._assistant([{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": cmd, "description": _describe(cmd)}}], "tool_use"))
            self._pending = (tid, cmd, code, output)
            return
        inp = {"command": cmd, "description": _describe(cmd)}
        if code == 0:
            self._tool("Bash", inp, output, False, {"stdout": output, "stderr": "", "interrupted": False, "isImage": False})
        else:
            text = output if _old_version(self.version) else f"Exit code {code}\n{output}"
            self._tool("Bash", inp, text, True, "Error: " + text)

    def finish_pending(self):
        """Writes the result of the call left pending by `run(..., pending=True)`."""
        tid, cmd, code, output = self._pending
        text = output if code == 0 else (output if _old_version(self.version) else f"Exit code {code}\n{output}")
        block = {"tool_use_id": tid, "type": "tool_result", "content": text, "is_error": code != 0}
        tur = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False} if code == 0 else "Error: " + text
        self._emit(self._rec({"type": "user", "message": {"role": "user", "content": [block]}, "toolUseResult": tur}))

    def edit(self, path: str, old: str, new: str):
        full = self._abs(path)
        self._tool(
            "Edit",
            {"file_path": full, "old_string": old, "new_string": new, "replace_all": False},
            f"The file {full} has been updated successfully.",
            False,
            {"filePath": full, "oldString": old, "newString": new, "originalFile": None, "structuredPatch": [], "userModified": False, "replaceAll": False},
        )

    def edit_fail(self, path: str, old: str, new: str, error: str):
        full = self._abs(path)
        self._tool(
            "Edit",
            {"file_path": full, "old_string": old, "new_string": new, "replace_all": False},
            f"<tool_use_error>{error}</tool_use_error>",
            True,
            "Error: " + error,
        )

    def read(self, path: str, content: str):
        full = self._abs(path)
        numbered = "\n".join(f"{i + 1:6d}\u2192{l}" for i, l in enumerate(content.split("\n")))
        self._tool("Read", {"file_path": full}, numbered, False, {"type": "text", "file": {"filePath": full, "content": content, "numLines": content.count("\n") + 1, "startLine": 1, "totalLines": content.count("\n") + 1}})

    def write(self, path: str, content: str):
        full = self._abs(path)
        self._tool("Write", {"file_path": full, "content": content}, f"File created successfully at: {full}", False, {"type": "create", "filePath": full, "content": content, "structuredPatch": []})

    def plan(self, md: str):
        """A plan the user approved (ExitPlanMode and its approval)."""
        path = "/home/dev/.claude/plans/" + hashlib.sha256(md.encode()).hexdigest()[:12] + ".md"
        self._tool(
            "ExitPlanMode",
            {"plan": md},
            "User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nYour plan has been saved to: " + path + "\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n" + md,
            False,
            {"plan": md, "isAgent": False, "filePath": path},
        )

    def tasks(self, items: list):
        if self.task_tool == "todo":
            old = self.todos
            todos = [{"content": n, "status": s, "activeForm": _active(n)} for n, s in items]
            self._tool(
                "TodoWrite",
                {"todos": todos},
                "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
                False,
                {"oldTodos": old, "newTodos": todos},
            )
            self.todos = todos
            return
        for n, s in items:
            if n not in self.task_ids:
                tid = str(max([int(i) for i in self.task_ids.values() if i.isdigit()] + [0]) + 1)
                self._tool("TaskCreate", {"subject": n, "description": n, "activeForm": _active(n)}, f"Task #{tid} created successfully: {n}", False, {"task": {"id": tid, "subject": n}})
                self.task_ids[n] = tid
                self.task_state[n] = "pending"
            if s != self.task_state.get(n):
                tid = self.task_ids[n]
                self._tool(
                    "TaskUpdate",
                    {"taskId": tid, "status": s},
                    f"Updated task #{tid} status",
                    False,
                    {"success": True, "taskId": tid, "updatedFields": ["status"], "statusChange": {"from": self.task_state[n], "to": s}},
                )
                self.task_state[n] = s

    def _abs(self, path: str) -> str:
        if path.startswith("/"):
            return path
        cwd = self.env["cwd"]
        sep = "\\" if "\\" in cwd else "/"
        return cwd.rstrip(sep) + sep + path.replace("/", sep)

    def boundary_and_summary(self, summary_text: str, trigger: str, transcript_path: str):
        """The records Claude Code appends when it applies a compaction: the boundary and the
        summary as a user record (in 2.1.3xx after SessionStart(compact) ran)."""
        u, p, ts = self._next()
        b = {"parentUuid": None, "logicalParentUuid": p, "isSidechain": False, "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False, "timestamp": ts, "uuid": u, "level": "info", "compactMetadata": {"trigger": trigger, "preTokens": 167923, "postTokens": 13630, "durationMs": 80370}}
        b.update({k: v for k, v in self.env.items()})
        self._emit(b)
        body = (
            "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n"
            + summary_text
            + "\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: "
            + transcript_path
            + "\nContinue the conversation from where it left off without asking the user any further questions. Resume directly \u2014 do not acknowledge the summary, do not recap what was happening, do not preface with \"I'll continue\" or similar. Pick up the last task as if the break never happened."
        )
        self._emit(self._rec({"type": "user", "message": {"role": "user", "content": body}, "isVisibleInTranscriptOnly": True, "isCompactSummary": True}))


def _describe(cmd: str) -> str:
    c = cmd.strip()
    if "test" in c or "check" in c:
        return "Run the tests"
    if c.startswith("git commit"):
        return "Commit the changes"
    if c.startswith("git push"):
        return "Push to the remote"
    if c.startswith("git"):
        return "Check git state"
    return "Run " + c.split()[0] if c else "Run command"


def _active(name: str) -> str:
    return name[:1].upper() + name[1:] if name else name


# ---------------------------------------------------------------- Codex


CODEX_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its thinking process. "
    "You also have access to the state of the tools that were used by that language model. Use this to build on "
    "the work that has already been done and avoid duplicating work. Here is the summary produced by the other "
    "language model, use the information in this summary to assist with your own analysis:"
)


class CodexWriter:
    """Writes a Codex 0.169 rollout: the session's start, then turns of steps."""

    def __init__(self, seed: str, cwd: str = "/home/dev/project", start: dt.datetime | None = None):
        self.seed = seed
        self.cwd = cwd
        self.t = start or TS0
        self.ordinal = 0
        self.lines: list[str] = []
        self.sid = _uuid(seed + "codex")
        self.turn = None
        self.n = 0
        self.user_items: list[dict] = []
        # The tool calls of a converted transcript whose results were converted: what the
        # rollout holds (a summary's files are read from these, see `materialize.base_code`).
        self.converted: set[str] = set()
        self._line(
            "session_meta",
            {
                "session_id": self.sid,
                "id": self.sid,
                "timestamp": _iso(self.t),
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.169.0",
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": "You are Codex, a coding agent."},
                "git": {"commit_hash": hashlib.sha1(seed.encode()).hexdigest(), "branch": "main"},
            },
        )
        self._item(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>2026-11-25</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>"}],
            }
        )

    def _line(self, ty: str, payload: dict):
        self.t += dt.timedelta(milliseconds=350 + (self.ordinal * 97) % 900)
        self.lines.append(json.dumps({"timestamp": _iso(self.t), "ordinal": self.ordinal, "type": ty, "payload": payload}, ensure_ascii=False, separators=(",", ":")))
        self.ordinal += 1

    def _item(self, payload: dict):
        meta = {"turn_id": self.turn} if self.turn else {}
        p = dict(payload)
        if meta:
            p["internal_chat_message_metadata_passthrough"] = meta
        self._line("response_item", p)

    def _event(self, payload: dict):
        self._line("event_msg", payload)

    def _id(self, tag: str) -> str:
        self.n += 1
        return f"{tag}_{hashlib.sha256(f'{self.seed}/{self.n}'.encode()).hexdigest()[:24]}"

    def end_turn(self):
        if self.turn:
            self._event({"type": "task_complete", "turn_id": self.turn, "last_agent_message": None})
            self.turn = None

    def prompt(self, text: str):
        self.end_turn()
        self.turn = _uuid(f"{self.seed}/turn{self.n}")
        self.n += 1
        self._event({"type": "task_started", "turn_id": self.turn, "model_context_window": 258400, "collaboration_mode_kind": "default"})
        self._line("turn_context", {"turn_id": self.turn, "cwd": self.cwd, "approval_policy": "on-request", "model": "gpt-5.3-codex", "summary": "auto"})
        item = {"type": "message", "id": self._id("msg"), "role": "user", "content": [{"type": "input_text", "text": text}]}
        self._item(item)
        self.user_items.append(item)
        self._event({"type": "item_completed", "turn_id": self.turn, "item": {"type": "UserMessage", "id": self._id("um"), "content": [{"type": "text", "text": text, "text_elements": []}]}})

    def reply(self, text: str):
        mid = self._id("msg")
        self._event({"type": "item_completed", "turn_id": self.turn, "item": {"type": "AgentMessage", "id": mid, "content": [{"type": "Text", "text": text}]}})
        self._item({"type": "message", "id": mid, "role": "assistant", "content": [{"type": "output_text", "text": text}]})

    def run(self, cmd: str, code: int, output: str, pending: bool = False):
        cid = self._id("call")
        self._item({"type": "function_call", "id": self._id("fc"), "name": "exec_command", "arguments": json.dumps({"cmd": cmd, "workdir": self.cwd}), "call_id": cid})
        if pending:
            self._pending = (cid, cmd, code, output)
            return
        self._run_output(cid, cmd, code, output)

    def _run_output(self, cid, cmd, code, output):
        self._event(
            {
                "type": "item_completed",
                "turn_id": self.turn,
                "item": {"type": "CommandExecution", "id": cid, "command": ["/bin/bash", "-lc", cmd], "cwd": "file://" + self.cwd, "status": "completed" if code == 0 else "failed", "aggregated_output": output, "exit_code": code},
            }
        )
        tokens = max(1, len(output) // 4)
        self._item(
            {
                "type": "function_call_output",
                "id": self._id("fco"),
                "call_id": cid,
                "output": f"Chunk ID: {hashlib.sha256(cid.encode()).hexdigest()[:6]}\nWall time: 0.{(len(output) * 37) % 9000 + 1000:04d} seconds\nProcess exited with code {code}\nOriginal token count: {tokens}\nOutput:\n{output}",
            }
        )

    def finish_pending(self):
        cid, cmd, code, output = self._pending
        self._run_output(cid, cmd, code, output)

    def _patch(self, patch: str, ok: bool, files: list[str], error: str = ""):
        cid = self._id("call")
        self._item({"type": "custom_tool_call", "id": self._id("ctc"), "call_id": cid, "name": "apply_patch", "input": patch})
        if ok:
            listing = "\n".join(("A " if "*** Add File: " + f in patch else "M ") + f for f in files)
            self._event({"type": "item_completed", "turn_id": self.turn, "item": {"type": "FileChange", "id": cid, "status": "completed", "stdout": f"Success. Updated the following files:\n{listing}\n", "stderr": ""}})
            out = f"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n{listing}\n"
        else:
            self._event({"type": "item_completed", "turn_id": self.turn, "item": {"type": "FileChange", "id": cid, "status": "failed", "stdout": "", "stderr": error}})
            out = f"Exit code: 1\nWall time: 0 seconds\nOutput:\n{error}\n"
        self._item({"type": "custom_tool_call_output", "id": self._id("ctco"), "call_id": cid, "output": out})

    def edit(self, path: str, old: str, new: str):
        self._patch(_update_patch(path, old, new), True, [path])

    def edit_fail(self, path: str, old: str, new: str, error: str):
        self._patch(_update_patch(path, old, new), False, [path], error)

    def read(self, path: str, content: str):
        self.run(f"sed -n '1,200p' {path}", 0, content)

    def write(self, path: str, content: str):
        body = "\n".join("+" + l for l in content.split("\n"))
        self._patch(f"*** Begin Patch\n*** Add File: {path}\n{body}\n*** End Patch\n", True, [path])

    def agent(self, message: str, kind: str, result: str):
        """A sub-agent started and waited for: `spawn_agent` (an explorer for a read-only one)."""
        cid = self._id("call")
        role = "explorer" if kind in ("Explore", "Plan") else "worker"
        self._item({"type": "function_call", "id": self._id("fc"), "name": "spawn_agent", "arguments": json.dumps({"message": message[:2000], "agent_type": role}), "call_id": cid})
        self._item({"type": "function_call_output", "id": self._id("fco"), "call_id": cid, "output": json.dumps({"agent_id": cid, "status": "completed", "message": result[:2000]})})

    def plan(self, md: str):
        # Codex has no plan approval step: the agent states its plan in a reply.
        self.reply(md)

    def tasks(self, items: list):
        cid = self._id("call")
        self._item({"type": "function_call", "id": self._id("fc"), "name": "update_plan", "arguments": json.dumps({"plan": [{"step": n, "status": s} for n, s in items]}, ensure_ascii=False), "call_id": cid})
        self._item({"type": "function_call_output", "id": self._id("fco"), "call_id": cid, "output": "Plan updated"})

    def compacted(self, summary: str):
        """The line Codex writes when it applies a compaction: the summary after its prefix, and
        the recent user messages kept."""
        kept = self.user_items[-6:]
        self._line("compacted", {"message": CODEX_PREFIX + "\n" + summary, "replacement_history": kept})
        self._event({"type": "item_completed", "turn_id": self.turn, "item": {"type": "ContextCompaction", "id": self._id("cc")}})


def _update_patch(path: str, old: str, new: str) -> str:
    minus = "\n".join("-" + l for l in old.split("\n"))
    plus = "\n".join("+" + l for l in new.split("\n"))
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{minus}\n{plus}\n*** End Patch\n"


# ---------------------------------------------------------------- steps


def apply_steps(w, steps: list, world: dict | None = None):
    """Writes `steps` with writer `w` (Claude or Codex). Returns the number written."""
    for st in steps:
        kind = st[0]
        if kind == "prompt":
            w.prompt(st[1])
        elif kind == "reply":
            w.reply(st[1])
        elif kind == "run":
            out = render_output(st[3]) if not isinstance(st[3], str) else st[3]
            w.run(st[1], st[2], out, pending=len(st) > 4 and st[4] == "pending")
        elif kind == "finish_pending":
            w.finish_pending()
        elif kind == "edit":
            w.edit(st[1], st[2], st[3])
        elif kind == "edit_fail":
            w.edit_fail(st[1], st[2], st[3], st[4])
        elif kind == "write":
            w.write(st[1], st[2])
        elif kind == "read":
            w.read(st[1], st[2])
        elif kind == "plan":
            w.plan(st[1])
        elif kind == "tasks":
            w.tasks([tuple(x) for x in st[1]])
        else:
            raise ValueError(f"unknown step {kind!r}")


# ---------------------------------------------------------------- Claude -> Codex


def convert_claude(base_lines: list[str], seed: str) -> CodexWriter:
    """A Codex rollout holding a real Claude Code conversation: its prompts, replies, shell
    commands with their results, edits as patches, task lists as plans. Subagent records and
    tools Codex has no counterpart for are left out."""
    recs = []
    for raw in base_lines:
        try:
            d = json.loads(raw)
            if isinstance(d, dict):
                recs.append(d)
        except ValueError:
            pass
    cwd = next((d["cwd"] for d in recs if isinstance(d.get("cwd"), str)), "/home/dev/project").replace("\\", "/")
    if not cwd.startswith("/"):
        cwd = "/home/dev/" + re.sub(r"[^\w.-]+", "-", cwd).strip("-")
    times = [t for t in (_parse_ts(d.get("timestamp")) for d in recs) if t]
    w = CodexWriter(seed, cwd, min(times) if times else TS0)
    from reader import _typed, _text_of

    calls = {}
    started = False
    task_ids: dict[str, list] = {}
    order: list[str] = []
    for d in recs:
        if d.get("isSidechain"):
            continue
        msg = d.get("message") if isinstance(d.get("message"), dict) else {}
        c = msg.get("content")
        if d.get("type") == "user" and not d.get("isMeta") and not d.get("isCompactSummary"):
            if isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c):
                if not started:
                    continue
                for b in c:
                    if not isinstance(b, dict) or b.get("type") != "tool_result":
                        continue
                    name, inp = calls.get(b.get("tool_use_id"), (None, {}))
                    text = _text_of(b.get("content")) if not isinstance(b.get("content"), str) else b["content"]
                    err = bool(b.get("is_error"))
                    _convert_result(w, name, inp, text, err, task_ids, order)
                    w.converted.add(b.get("tool_use_id"))
                continue
            text = _text_of(c)
            src = d.get("promptSource")
            if (src is None or src in ("typed", "queued", "suggestion_accepted", "sdk")) and _typed(text):
                w.prompt(text)
                started = True
        elif d.get("type") == "assistant" and isinstance(c, list) and started:
            for b in c:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "text" and b.get("text", "").strip():
                    w.reply(b["text"])
                elif b.get("type") == "tool_use":
                    calls[b.get("id")] = (b.get("name"), b.get("input") or {})
    return w


def _rel(w: CodexWriter, path: str) -> str:
    p = path.replace("\\", "/")
    return p[len(w.cwd) + 1 :] if p.startswith(w.cwd + "/") else p


def _convert_result(w, name, inp, text, err, task_ids, order):
    text = text or ""
    if len(text) > 6000:
        text = text[:6000] + "\n[... output truncated ...]"
    if name in ("Bash", "PowerShell"):
        m = re.match(r"(?:Error: )?Exit code (\d+)\n?", text)
        code = int(m.group(1)) if m else (1 if err else 0)
        w.run(inp.get("command", ""), code, text[m.end() :] if m else text)
    elif name in ("Read",):
        p = inp.get("file_path", "")
        w.run(f"sed -n '1,200p' {_rel(w, p)}", 1 if err else 0, re.sub(r"(?m)^\s*\d+\u2192", "", text))
    elif name == "Grep":
        w.run(f"rg -n {json.dumps(inp.get('pattern', ''))} {inp.get('path', '.')}", 1 if err else 0, text)
    elif name == "Glob":
        w.run(f"rg --files -g {json.dumps(inp.get('pattern', '*'))}", 1 if err else 0, text)
    elif name in ("Edit", "MultiEdit"):
        p = _rel(w, inp.get("file_path", ""))
        old = inp.get("old_string") or (inp.get("edits") or [{}])[0].get("old_string", "")
        new = inp.get("new_string") or (inp.get("edits") or [{}])[0].get("new_string", "")
        if err:
            w.edit_fail(p, old, new, f"apply_patch verification failed: Failed to find expected lines in {p}:\n{old[:200]}")
        else:
            w.edit(p, old, new)
    elif name == "Write":
        if not err:
            w.write(_rel(w, inp.get("file_path", "")), (inp.get("content") or "")[:4000])
    elif name == "TodoWrite" and not err:
        w.tasks([(x.get("content", ""), x.get("status", "pending")) for x in inp.get("todos") or [] if isinstance(x, dict)])
    elif name == "TaskCreate" and not err:
        m = re.search(r"Task #(\w+) created", text)
        tid = m.group(1) if m else str(len(order) + 1)
        task_ids[tid] = [inp.get("subject", ""), "pending"]
        order.append(tid)
        w.tasks([tuple(task_ids[i]) for i in order])
    elif name in ("Task", "Agent"):
        # Codex's own sub-agents (0.169: `spawn_agent`, sharing the workspace).
        w.agent(inp.get("prompt", "") or inp.get("description", ""), inp.get("subagent_type", ""), text)
    elif name == "TaskUpdate" and not err:
        tid = str(inp.get("taskId", ""))
        if tid in task_ids and inp.get("status"):
            if inp["status"] == "deleted":
                order.remove(tid)
            else:
                task_ids[tid][1] = inp["status"]
            w.tasks([tuple(task_ids[i]) for i in order])
