"""The evaluation set's own reader of a transcript: the ground truth of every case.

It is deliberately independent of compact-guardian (no shared code, no call into the binary):
it reads a Claude Code transcript or a Codex rollout line by line, follows Claude Code's
parentUuid chain back from the newest record (rewinds leave branches that did not happen for
the conversation; tool calls on any branch did happen), and turns both formats into one
timeline of events:

    prompt   the user's own words (authorship fields first, injected wrappers left out)
    reply    the agent's text
    run      a shell command with its exit code (None when the record has no result yet)
    write    a file written, by an edit tool, apply_patch, `sed -i`, a redirection, `tee`,
             or a script whose output names the file it wrote; ok=False for a failed edit
    tasks    the whole task list after a TodoWrite / TaskCreate / TaskUpdate / update_plan

`facts()` then answers the questions a label needs: the last run of a command, a task's
state, the files written after a point, the agent's last checklist.
"""

from __future__ import annotations

import json
import re

TEST_PROGRAMS = (
    "pytest",
    "py.test",
    "cargo test",
    "cargo nextest",
    "go test",
    "npm test",
    "npm run test",
    "yarn test",
    "pnpm test",
    "npx jest",
    "npx vitest",
    "jest",
    "vitest",
    "make check",
    "make test",
    "python -m unittest",
    "python3 -m unittest",
    "python -m pytest",
    "python3 -m pytest",
    "run_tests",
    "tox",
    "mvn test",
    "gradle test",
    "bundle exec rspec",
    "rspec",
    "dotnet test",
    "ctest",
)

INJECTED_PREFIXES = (
    "<command-",
    "<local-command",
    "<bash-",
    "<task-notification",
    "<cross-session-message",
    "[Request interrupted",
    "Caveat:",
    "<environment_context>",
    "<user_instructions>",
    "<skills_instructions>",
    "<permissions instructions>",
    "# AGENTS.md",
    "This session is being continued",
)


def is_test_command(cmd: str) -> bool:
    """A command that runs a test suite: a runner, or the project's own test entry point
    (a `run_tests*` / `test*.sh` script, `tests/test_*.py` run directly, `manage.py test`, a
    `make check|test` target). Only the program position counts: `grep -rn "cargo test" docs/`
    is no test run."""
    for part in re.split(r"&&|\|\||;|\|", cmd):
        words = re.sub(r"^(\w+=\S+\s+)+", "", part.strip())  # leading VAR=value
        if not words:
            continue
        prog = words.split()[0]
        if prog in ("grep", "rg", "echo", "cat", "git", "sed", "awk", "ls", "find", "printf", "cd"):
            continue
        if any(words.startswith(p) for p in TEST_PROGRAMS):
            return True
        if re.match(r"^((sh|bash)\s+)?(\./)?\S*(run_tests|/test\w*\.sh|^test\w*\.sh)", words):
            return True
        if re.match(r"^((sh|bash)\s+)?(\./)?(scripts/)?test\w*\.sh\b", words):
            return True
        if re.match(r"^python3?\s+(\S*tests?/test_\S+\.py|manage\.py\s+test)", words):
            return True
    return False


def _text_of(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for b in content:
            if isinstance(b, dict) and b.get("type") in ("text", "input_text", "output_text"):
                out.append(b.get("text", ""))
            elif isinstance(b, str):
                out.append(b)
        return "\n".join(out)
    return ""


def _typed(text: str) -> bool:
    t = text.lstrip()
    return bool(t) and not any(t.startswith(p) for p in INJECTED_PREFIXES)


def _exit_from_claude(result_text: str, is_error: bool) -> int:
    m = re.match(r"(?:Error: )?Exit code (\d+)", result_text or "")
    if m:
        return int(m.group(1))
    return 1 if is_error else 0


def _writes_of_command(cmd: str, output: str) -> list[str]:
    """Files a shell command wrote: `sed -i`/`perl -pi` targets, `>`/`>>` and `tee` targets,
    and the files a script says it wrote ("wrote X", "updated X")."""
    files = []
    if re.search(r"\b(sed|perl)\s+(-\w*i|-pi)", cmd):
        for w in cmd.split():
            w = w.strip("'\"")
            if re.search(r"\.\w{1,8}$", w) and "/" in w or re.search(r"^[\w.-]+\.\w{1,8}$", w):
                if not w.startswith("s/") and not w.startswith("-"):
                    files.append(w)
    for m in re.finditer(r"(?:>>?|\btee\s+(?:-a\s+)?)\s*([\w./-]+\.\w{1,8})", cmd):
        files.append(m.group(1))
    for m in re.finditer(r"(?im)^(?:wrote|updated|modified|rewrote)\s+([\w./-]+\.\w{1,8})", output or ""):
        files.append(m.group(1))
    return files


def _patch_files(patch: str) -> list[str]:
    return re.findall(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", patch or "", re.M)


class Timeline:
    """Events in record order, and the questions the labels ask of them."""

    def __init__(self, events: list[dict]):
        self.events = events

    # ---- runs
    def runs(self) -> list[dict]:
        return [e for e in self.events if e["k"] == "run"]

    def last_run(self, needles: list[str], exact: bool = False) -> dict | None:
        """The newest shell command containing one of `needles` (with a result); `exact`: the
        command is one of them, whole (so that `mix test` is not `mix test test/x_test.exs`, nor
        `rg -n "mix test" .github/`)."""
        for e in reversed(self.events):
            if e["k"] != "run" or e.get("exit") is None:
                continue
            cmd = e["cmd"].strip()
            if any(cmd == n.strip() for n in needles) if exact else any(n in e["cmd"] for n in needles):
                return e
        return None

    def index_of(self, e: dict) -> int:
        return self.events.index(e)

    # ---- writes
    def writes(self, name: str, after: int = -1) -> list[dict]:
        base = name.rsplit("/", 1)[-1]
        return [
            e
            for i, e in enumerate(self.events)
            if i > after and e["k"] == "write" and e["file"].replace("\\", "/").rsplit("/", 1)[-1] == base
        ]

    # ---- tasks
    def tasks(self) -> list[tuple[str, str]]:
        for e in reversed(self.events):
            if e["k"] == "tasks":
                return [tuple(x) for x in e["items"]]
        return []

    def open_tasks(self) -> list[str]:
        return [n for n, s in self.tasks() if s in ("pending", "in_progress")]

    def last_checklist(self, boxes: str = "dash") -> list[tuple[str, bool]]:
        """The checklist (`- [ ]` / `- [x]` lines) of the agent's newest reply that has one.
        `boxes="any"` also reads numbered boxes (`1. [ ]`, `2) [x]`) and ballot boxes (`☐`
        open, `☑`/`☒` checked); opt-in, so that the labels of the halves authored before it
        (tune, heldout) cannot change."""
        for e in reversed(self.events):
            if e["k"] == "reply":
                if boxes == "any":
                    items = []
                    for m in re.finditer(r"(?m)^\s*(?:(?:[-*+]|\d+[.)])\s+\[([ xX])\]|([\u2610\u2611\u2612]))\s*(.+?)\s*$", e["text"]):
                        mark = m.group(1) if m.group(1) is not None else m.group(2)
                        items.append((m.group(3), mark in ("x", "X", "\u2611", "\u2612")))
                    if items:
                        return items
                    continue
                items = re.findall(r"(?m)^\s*[-*]\s+\[([ xX])\]\s+(.+?)\s*$", e["text"])
                if items:
                    return [(t, c.lower() == "x") for c, t in items]
        return []

    def open_items(self, boxes: str = "dash") -> list[str]:
        """Open tasks and the unchecked boxes of the newest checklist."""
        return self.open_tasks() + [t for t, c in self.last_checklist(boxes) if not c]

    def prompts(self) -> list[str]:
        return [e["text"] for e in self.events if e["k"] == "prompt"]

    def replies(self) -> list[str]:
        return [e["text"] for e in self.events if e["k"] == "reply"]


# ---------------------------------------------------------------- Claude Code


def read_claude(lines: list[str]) -> Timeline:
    recs = []
    for raw in lines:
        try:
            d = json.loads(raw)
        except (ValueError, TypeError):
            continue
        if isinstance(d, dict):
            recs.append(d)
    by_uuid = {d["uuid"]: d for d in recs if isinstance(d.get("uuid"), str)}
    # The conversation's branch: from the newest user/assistant record back through parents.
    on_branch = set()
    tip = None
    for d in reversed(recs):
        if d.get("type") in ("user", "assistant") and not d.get("isSidechain") and d.get("uuid"):
            tip = d
            break
    while tip is not None and tip["uuid"] not in on_branch:
        on_branch.add(tip["uuid"])
        p = tip.get("parentUuid") or tip.get("logicalParentUuid")
        tip = by_uuid.get(p) if p else None

    calls = {}
    tasks: dict[str, list] = {}
    task_order: list[str] = []
    events = []
    for d in recs:
        if d.get("isSidechain"):
            continue
        t = d.get("type")
        msg = d.get("message") if isinstance(d.get("message"), dict) else {}
        content = msg.get("content")
        if t == "assistant" and isinstance(content, list):
            for b in content:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "text" and d.get("uuid") in on_branch:
                    events.append({"k": "reply", "text": b.get("text", "")})
                elif b.get("type") == "tool_use":
                    calls[b.get("id")] = (b.get("name"), b.get("input") or {})
        elif t == "user":
            if d.get("isCompactSummary") or d.get("isMeta"):
                continue
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            ):
                for b in content:
                    if not isinstance(b, dict) or b.get("type") != "tool_result":
                        continue
                    name, inp = calls.get(b.get("tool_use_id"), (None, {}))
                    text = _text_of(b.get("content"))
                    err = bool(b.get("is_error"))
                    _claude_result(events, name, inp, text, err, d.get("toolUseResult"), tasks, task_order)
                continue
            if d.get("uuid") not in on_branch:
                continue
            src = d.get("promptSource")
            if src is not None and src not in ("typed", "queued", "suggestion_accepted", "sdk"):
                continue
            if isinstance(d.get("origin"), dict) and d["origin"].get("kind") not in (None, "human"):
                continue
            text = _text_of(content)
            if _typed(text):
                events.append({"k": "prompt", "text": text})
    return Timeline(events)


def _claude_result(events, name, inp, text, err, tur, tasks, task_order):
    if name in ("Bash", "PowerShell"):
        cmd = inp.get("command", "")
        code = _exit_from_claude(text, err)
        events.append({"k": "run", "cmd": cmd, "exit": code, "output": text, "test": is_test_command(cmd)})
        if code == 0:
            for f in _writes_of_command(cmd, text):
                events.append({"k": "write", "file": f, "ok": True, "tool": "Bash"})
    elif name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        path = inp.get("file_path") or inp.get("notebook_path") or ""
        events.append({"k": "write", "file": path, "ok": not err, "tool": name})
    elif name == "TodoWrite" and not err:
        items = [(x.get("content", ""), x.get("status", "pending")) for x in inp.get("todos") or [] if isinstance(x, dict)]
        events.append({"k": "tasks", "items": items})
    elif name == "TaskCreate" and not err:
        m = re.search(r"Task #(\w+) created", text)
        tid = m.group(1) if m else str(len(task_order) + 1)
        tasks[tid] = [inp.get("subject", ""), "pending"]
        task_order.append(tid)
        events.append({"k": "tasks", "items": [tuple(tasks[i]) for i in task_order]})
    elif name == "TaskUpdate" and not err:
        tid = str(inp.get("taskId", ""))
        if tid in tasks:
            if inp.get("status") == "deleted":
                task_order.remove(tid)
                del tasks[tid]
            else:
                if inp.get("status"):
                    tasks[tid][1] = inp["status"]
                if inp.get("subject"):
                    tasks[tid][0] = inp["subject"]
            events.append({"k": "tasks", "items": [tuple(tasks[i]) for i in task_order]})
    else:
        events.append({"k": "tool", "name": name, "ok": not err})


# ---------------------------------------------------------------- Codex


def read_codex(lines: list[str]) -> Timeline:
    events = []
    calls = {}
    for raw in lines:
        try:
            d = json.loads(raw)
        except (ValueError, TypeError):
            continue
        if not isinstance(d, dict) or d.get("type") != "response_item":
            continue
        p = d.get("payload") or {}
        pt = p.get("type")
        if pt == "message":
            text = _text_of(p.get("content"))
            if p.get("role") == "user" and _typed(text):
                events.append({"k": "prompt", "text": text})
            elif p.get("role") == "assistant" and not (p.get("metadata") or {}).get("compaction_output"):
                if not (d.get("metadata") or {}).get("compaction_output"):
                    events.append({"k": "reply", "text": text})
        elif pt in ("function_call", "custom_tool_call"):
            args = p.get("arguments") if pt == "function_call" else p.get("input")
            calls[p.get("call_id")] = (p.get("name"), args)
        elif pt in ("function_call_output", "custom_tool_call_output"):
            name, args = calls.get(p.get("call_id"), (None, None))
            out = p.get("output")
            if isinstance(out, dict):
                out = out.get("content", "")
            out = out if isinstance(out, str) else ""
            if name in ("exec_command", "shell", "local_shell"):
                try:
                    a = json.loads(args) if isinstance(args, str) else (args or {})
                except ValueError:
                    a = {}
                cmd = a.get("cmd") or a.get("command") or ""
                if isinstance(cmd, list):
                    cmd = cmd[-1] if cmd else ""
                m = re.search(r"Process exited with code (\d+)", out)
                code = int(m.group(1)) if m else None
                events.append({"k": "run", "cmd": cmd, "exit": code, "output": out, "test": is_test_command(cmd)})
                if code == 0:
                    for f in _writes_of_command(cmd, out):
                        events.append({"k": "write", "file": f, "ok": True, "tool": "exec_command"})
            elif name == "apply_patch":
                ok = bool(re.search(r"^Exit code: 0", out, re.M)) or out.startswith("Success.")
                for f in _patch_files(args if isinstance(args, str) else ""):
                    events.append({"k": "write", "file": f.strip(), "ok": ok, "tool": "apply_patch"})
            elif name == "update_plan":
                try:
                    a = json.loads(args) if isinstance(args, str) else (args or {})
                except ValueError:
                    a = {}
                items = [(x.get("step", ""), x.get("status", "pending")) for x in a.get("plan") or []]
                events.append({"k": "tasks", "items": items})
    return Timeline(events)


def read(lines: list[str]) -> Timeline:
    """Either format, told by the first line (a Codex rollout line starts with `timestamp`
    and carries `payload`)."""
    for raw in lines:
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict) and "payload" in d and d.get("type") in (
            "session_meta",
            "response_item",
            "event_msg",
            "turn_context",
        ):
            return read_codex(lines)
        break
    return read_claude(lines)
