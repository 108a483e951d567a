"""Writes a case's compaction summary in each client's real format, at its real length.

Claude Code (2.1.332's summarizer prompt, read from the CLI binary): an optional `<analysis>`
block, then `<summary>` with nine numbered sections; the variant that summarizes up to a point
(newer messages kept verbatim after it) has "8. Work Completed" and "9. Context for Continuing
Work"; the partial one covers the RECENT messages after a retained earlier context. The CLI
shows the summary as "Summary:\\n..." with the analysis removed; cases use every form (`shape`).

Codex 0.169 (`codex-rs/core/templates/compact/prompt.md`, the string in the 0.169 binary): a
handoff summary with the goal, progress and key decisions, context and constraints, what
remains, and critical references; Codex stores it after its fixed prefix in the `compacted`
line.

What the summary says comes from three places: the base transcript's real content as the
evaluation's reader sees it (prompts quoted verbatim, files and code, errors), the case's
appended steps (narrated truthfully, except that a step a claim speaks for is left to the
claim), and the case's `claims` and `traps`, placed in their sections verbatim. Nothing here
decides a label: `label.py` does, from the record.

One engine (`Composer`: the clients' formats, the placed sentences, the files) and two manners
of narration: `Listing` (the tune half: "Ran `x` (exit 1).", "Asked: ...") and `Prose` (tune2
and tune3: first person, prose paragraphs, each run told by its runner's own result line,
edits shown before and after, Codex handoffs under their own headings). Each half's wording is
its voice, in `data/<half>.json`; tune3's is tune2's with its own English and Codex headings.
The held-out half narrates in a manner of its own (`compose_heldout.py`, a `Listing`), written
separately: do not read it when tuning.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

EXT_LANG = {
    "py": "python",
    "rs": "rust",
    "go": "go",
    "js": "javascript",
    "ts": "typescript",
    "tsx": "tsx",
    "jsx": "jsx",
    "json": "json",
    "toml": "toml",
    "md": "markdown",
    "sh": "bash",
    "c": "c",
    "h": "c",
    "yaml": "yaml",
    "yml": "yaml",
    "css": "css",
    "html": "html",
    "ipynb": "json",
}
# Prose's code fences know more languages (tune2's projects).
PROSE_EXT = {"kt": "kotlin", "kts": "kotlin", "java": "java", "rb": "ruby", "ex": "elixir", "exs": "elixir", "php": "php", "cs": "csharp", "csproj": "xml", "xml": "xml", "cpp": "cpp", "hpp": "cpp", "txt": "cmake", "yml": "yaml"}
# Where a placed sentence goes in a Codex handoff, by the section a case names.
CODEX_MAP = {"request": 0, "concepts": 3, "analysis": 2, "problem": 1, "current": 1, "errors": 1, "files": 5, "messages": 3, "pending": 4, "next": 4}
CODEX_SLOT = {"request": 0, "messages": 0, "problem": 1, "analysis": 1, "files": 5, "current": 2, "errors": 2, "pending": 3, "next": 3, "concepts": 4}

_voices: dict = {}


def voice(half: str) -> dict:
    """A half's wording (`data/<half>.json`'s `voice`); one `like` another is that one's, with
    its own tables laid over it (a language's words one by one)."""
    if half not in _voices:
        v = json.loads((DATA / f"{half}.json").read_text(encoding="utf-8"))["voice"]
        if "like" in v:
            base = voice(v["like"])
            words = {lang: dict(w, **v.get("words", {}).get(lang, {})) for lang, w in base["words"].items()}
            v = dict(base, words=words, codex_layouts=dict(base["codex_layouts"], **v.get("codex_layouts", {})))
        _voices[half] = v
    return _voices[half]


def _short(text: str, n: int) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1].rstrip() + "…"


def _lang_of(path: str) -> str:
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return EXT_LANG.get(ext, "")


def lang_of(path: str) -> str:
    """A code fence's language in Prose: build files by name, more extensions."""
    name = path.rsplit("/", 1)[-1]
    if name in ("justfile", "Rakefile", "Makefile"):
        return {"justfile": "just", "Rakefile": "ruby", "Makefile": "make"}[name]
    if name == "CMakeLists.txt":
        return "cmake"
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return PROSE_EXT.get(ext) or _lang_of(path)


def _code(text: str, max_lines: int) -> str:
    lines = text.split("\n")
    if len(lines) > max_lines:
        lines = lines[:max_lines] + ["..."]
    return "\n".join(lines)


def _counts(spec) -> tuple[int, list[str]] | None:
    if isinstance(spec, dict) and ("passed" in spec or "failed" in spec):
        return spec.get("passed", 0), list(spec.get("failed", []))
    return None


RESULT_PATTERNS = [
    r"^\d+ failed, \d+ passed in [\d.]+s$",
    r"^\d+ passed in [\d.]+s$",
    r"Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+$",
    r"^\d+ tests completed, \d+ failed$",
    r"^BUILD (?:SUCCESSFUL|FAILED) in \S+$",
    r"^\d+ runs, \d+ assertions, \d+ failures, \d+ errors, \d+ skips$",
    r"^\d+ examples?, \d+ failures?$",
    r"\d+ tests run: .*$",
    r"^\d+% tests passed, \d+ tests failed out of \d+$",
    r"^\d+ tests?, \d+ failures?$",
    r"^OK \(\d+ tests?, \d+ assertions?\)$",
    r"^Tests: \d+, Assertions: \d+, Failures: \d+\.$",
    r"^(?:Passed|Failed)!  - Failed: .*?Total: +\d+",
    r"^Ran \d+ tests? across \d+ files?\.",
    r"^FAILED \(failures=\d+\)$",
    r"Tests  .*\(\d+\)$",
    r"^nothing to commit, working tree clean$",
    r"^\[[\w./-]+ [0-9a-f]{7}\] .*$",
    r"^ ! \[(?:remote )?rejected\].*$",
]


def result_of(output: str, code: int, w: dict) -> str:
    """The runner's own result line, as a summary quotes it."""
    lines = [l.strip() for l in (output or "").split("\n") if l.strip()]
    for pat in RESULT_PATTERNS:
        for l in reversed(lines):
            m = re.search(pat, l)
            if m:
                got = m.group(0).strip()
                if pat.startswith("^Ran") and code != 0:
                    return f"{got} {w['exit'].format(code=code)}"
                if "Total:" in pat:
                    return re.sub(r" {2,}", " ", got)
                if pat.startswith("^\\d+ failed") or pat.startswith("^FAILED"):
                    return got
                return got if code == 0 or re.search(r"fail|FAIL|rejected", got) else f"{got}; {w['exit'].format(code=code)}"
    if re.search(r"^(ok|FAIL)\s+\S+", output or "", re.M) and ("go test" in output or "\t" in (output or "")):
        fails = re.findall(r"^--- FAIL: (\S+)", output or "", re.M)
        return ("FAIL: " + ", ".join(fails)) if fails else "ok"
    first = lines[0] if lines else ""
    if code == 0:
        return _short(lines[-1], 90) if lines else w["exit"].format(code=0)
    return w["exit"].format(code=code) + (f": {_short(first, 90)}" if first else "")


def _h(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:8], 16)


class Composer:
    """The engine: `case` is the case spec, `base_events` the base's timeline (the real
    transcript cut), `full` the whole record's timeline (base + steps) as the reader sees it,
    `voice` the half's wording. Its narration (`bodies`, `codex`) is a subclass's."""

    def __init__(self, case: dict, base_events: list[dict], full, base_extra: dict, voice: dict):
        self.case = case
        self.voice = voice
        self.shape = case.get("shape", {})
        self.lang = case.get("lang", "en")
        self.words = voice["words"]
        self.headings = voice["headings"]
        self.w = self.words.get(self.lang, self.words["en"])
        self.base = base_events
        self.full = full
        self.extra = base_extra  # code snippets of the base: [(path, code)]
        self.steps = case.get("steps", [])
        self.claims = case.get("claims", [])
        self.traps = case.get("traps", [])
        self.suppress_cmds = [n for c in self.claims if c["kind"] in ("tests_pass", "build_pass", "check_pass") for n in c["cmd"]]
        self.suppress_files = [c["file"] for c in self.claims if c["kind"] == "file_changed"]
        self.suppress_git = [c.get("what", "commit") for c in self.claims if c["kind"] == "committed"]
        self.suppress_tasks = [c["task"] for c in self.claims if c["kind"] == "task_done"] + [c["item"] for c in self.claims if c["kind"] == "checklist_done"]
        self.all_done_claimed = any(c["kind"] in ("all_done",) for c in self.claims)

    def placed(self, section: str) -> list[str]:
        """The claims and traps placed in `section` (an analysis-block sentence goes to Problem
        Solving when the summary has no analysis block)."""
        wanted = {section}
        if section == "problem" and self.shape.get("wrap", "tags") != "tags":
            wanted.add("analysis")
        out = []
        for c in self.claims + self.traps:
            if c.get("section") in wanted:
                out.append(c["text"])
        return out

    def quoted_prompt(self, p: str) -> str:
        limit = self.shape.get("quote_limit", 600)
        t = p.strip()
        if len(t) > limit:
            t = t[:limit].rstrip() + " [...]"
        return t.replace("\n", "\n     ")

    def base_files(self) -> list[tuple[str, str]]:
        return self.extra.get("code", [])

    def open_tasks_for_summary(self) -> list[tuple[str, str]]:
        items = [(n, s) for n, s in self.full.tasks() if s in ("pending", "in_progress")]
        items = [(n, s) for n, s in items if n not in self.suppress_tasks]
        if self.all_done_claimed:
            return []
        return items

    # ---- Claude Code: nine sections, their headings, the wrapping
    def heading(self, i: int, name: str) -> str:
        style = self.shape.get("headings", "numbered")
        if style == "markdown":
            return f"## {i}. {name}"
        if style == "h3":
            return f"### {i}. {name}"
        if style == "bold":
            return f"**{i}. {name}:**"
        if style == "plain":
            return f"{name}:"
        return f"{i}. {name}:"

    def indent(self, body: str) -> str:
        if self.shape.get("headings", "numbered") in ("numbered", "plain"):
            return "\n".join(("   " + l) if l else l for l in body.split("\n"))
        return body

    def claude(self, files_budget: int = 6000) -> str:
        variant = self.shape.get("variant", "full")
        names = self.headings["up_to"] if variant == "up_to" else self.headings["en"]
        if self.shape.get("translated_headings") and self.lang in self.headings:
            names = self.headings[self.lang]
            if variant == "up_to":
                # The span variant's own last two sections, translated like the rest.
                names = names[:7] + self.voice["up_to"].get(self.lang, self.headings["up_to"][7:])
        bodies = self.bodies(files_budget)
        summary = "\n\n".join(self.heading(i, n) + "\n" + self.indent(b) for i, (n, b) in enumerate(zip(names, bodies), 1))
        wrap = self.shape.get("wrap", "tags")
        if wrap == "tags":
            return f"<analysis>\n{self.analysis()}\n</analysis>\n\n<summary>\n{summary}\n</summary>"
        if wrap == "summary_only":
            return f"<summary>\n{summary}\n</summary>"
        if wrap == "prefix":
            return "Summary:\n" + summary
        return summary

    def bodies(self, files_budget: int) -> list[str]:
        raise NotImplementedError

    def analysis(self) -> str:
        raise NotImplementedError

    # ---- Codex: a handoff under the narration's headings
    def handoff(self, heads: list[str], secs: list[list[str]], style: str) -> str:
        out = []
        style = self.shape.get("codex_style", style)
        if self.shape.get("codex_title"):
            out.append(self.shape["codex_title"])
        for h, body in zip(heads, secs):
            if not body:
                continue
            if style == "markdown":
                out.append(f"## {h}\n" + "\n".join(body))
            elif style == "bold":
                out.append(f"**{h}**\n" + "\n".join(body))
            else:
                out.append(f"{h}:\n" + "\n".join(body))
        return "\n\n".join(out)


class Listing(Composer):
    """The tune half's narration: each step a line ("Ran `x` (exit 1).", "Asked: ..."), the
    sections as lists."""

    # ---- narration of steps (truthful unless a claim speaks for the step)
    def _run_suppressed(self, cmd: str) -> bool:
        if any(n in cmd for n in self.suppress_cmds):
            return True
        return any(("git " + g) in cmd for g in self.suppress_git)

    def narrate_step(self, st) -> str | None:
        w = self.w
        k = st[0]
        if k == "run":
            cmd, code = st[1], st[2]
            if self._run_suppressed(cmd):
                return None
            cnt = _counts(st[3])
            if cnt is not None:
                p, f = cnt
                names = f" ({', '.join(f)})" if f else ""
                return w["ran_counts"].format(cmd=cmd, p=p, f=len(f), names=names)
            return w["ran"].format(cmd=cmd, code=code)
        if k == "edit":
            return w["edited"].format(file=st[1])
        if k == "edit_fail":
            if any(st[1].endswith(f) or f.endswith(st[1]) for f in self.suppress_files):
                return None
            return w["edit_failed"].format(file=st[1], err=_short(st[4], 120))
        if k == "write":
            return w["created"].format(file=st[1])
        return None

    def step_lines(self) -> list[str]:
        return [x for x in (self.narrate_step(s) for s in self.steps) if x]

    # ---- content pieces
    def prompts(self) -> list[str]:
        """Every user prompt; the latest as the case has the summary render it (`latest_as`: a
        translation, a part, or a description of a pasted log), as real summaries do."""
        ps = [e["text"] for e in self.base if e["k"] == "prompt"] + [s[1] for s in self.steps if s[0] == "prompt"]
        if ps and self.case.get("latest_as"):
            ps[-1] = self.case["latest_as"]
        return ps

    def step_files(self) -> list[tuple[str, str, str]]:
        """(path, kind, code) for each file the steps touched, newest first."""
        out = []
        for st in reversed(self.steps):
            if st[0] == "edit":
                out.append((st[1], "edit", st[3]))
            elif st[0] == "write":
                out.append((st[1], "write", st[2]))
            elif st[0] == "edit_fail" and not any(st[1].endswith(f) or f.endswith(st[1]) for f in self.suppress_files):
                out.append((st[1], "fail", st[3]))
            elif st[0] == "read":
                out.append((st[1], "read", st[2]))
        seen, uniq = set(), []
        for f in out:
            if f[0] not in seen:
                seen.add(f[0])
                uniq.append(f)
        return uniq

    # ---- sections (Claude Code)
    def sec_request(self) -> str:
        w = self.w
        lines = [w["req_intro"]]
        for p in self.prompts():
            lines.append("- " + w["asked"].format(q=_short(p, 220)))
        for t in self.case.get("request", []):
            lines.append("- " + t)
        for t in self.placed("request"):
            lines.append("- " + t)
        return "\n".join(lines)

    def sec_concepts(self) -> str:
        items = list(self.case.get("concepts", []))
        tools = sorted({e.get("name") for e in self.base if e["k"] == "tool" and e.get("name")} - {None})
        if tools:
            items.append(self.w["concepts_tools"].format(tools=", ".join(tools[:10])))
        langs = sorted({_lang_of(p) for p, _, _ in self.base_files()} - {""})
        items += [f"{l}" for l in langs]
        items += self.placed("concepts")
        return "\n".join("- " + i for i in items) if items else "- " + self.w["none"]

    def sec_files(self, budget: int) -> str:
        w = self.w
        out = []
        for path, kind, code in self.step_files():
            out.append(f"- `{path}`")
            if kind == "fail":
                out.append("   - " + w["edit_failed"].format(file=path, err="").rstrip(": "))
            elif kind == "read":
                out.append("   - " + w["why_read"])
            else:
                out.append("   - " + w["why_file"])
            fence = _lang_of(path)
            out.append(f"   ```{fence}\n{code}\n   ```")
        out += ["- " + t for t in self.placed("files")]
        used = sum(len(x) for x in out)
        for path, code, kind in self.base_files():
            if used > budget:
                break
            snippet = _code(code, self.shape.get("code_lines", 40))
            why = w["why_read"] if kind == "read" else w["why_file"]
            block = f"- `{path}`\n   - {why}\n   ```{_lang_of(path)}\n{snippet}\n   ```"
            out.append(block)
            used += len(block)
        return "\n".join(out) if out else "- " + w["none"]

    def sec_errors(self) -> str:
        w = self.w
        out = []
        for e in self.base:
            if e["k"] == "run" and e.get("exit") not in (0, None) and not e.get("test"):
                first = next((l for l in (e.get("output") or "").split("\n") if l.strip() and not l.startswith("Exit code")), "")
                if first:
                    out.append("- " + w["base_err"].format(tool="Bash", err=_short(first, 140)))
            if len(out) >= 4:
                break
        for st in self.steps:
            if st[0] == "edit_fail" or (st[0] == "run" and st[2] != 0):
                n = self.narrate_step(st)
                if n:
                    out.append("- " + n)
        out += ["- " + t for t in self.placed("errors")]
        return "\n".join(out) if out else "- " + w["no_errors"]

    def sec_problem(self) -> str:
        w = self.w
        out = [w["problem_intro"]]
        base_runs = [e for e in self.base if e["k"] == "run"][-4:]
        if base_runs:
            out.append(w["earlier"])
            for e in base_runs:
                out.append("- " + w["ran"].format(cmd=_short(e["cmd"], 100), code=e["exit"]))
        out += ["- " + l for l in self.step_lines()]
        out += ["- " + t for t in self.placed("problem")]
        return "\n".join(out)

    def sec_messages(self) -> str:
        out = [self.w["quote_intro"]] if self.shape.get("quote_intro", True) else []
        for p in self.prompts():
            out.append(f'- "{self.quoted_prompt(p)}"')
        out += ["- " + t for t in self.placed("messages")]
        return "\n".join(out)

    def sec_pending(self) -> str:
        w = self.w
        items = ["- " + w["task_line"].format(name=n, state=w["states"].get(s, s)) for n, s in self.open_tasks_for_summary()]
        items += ["- " + t for t in self.placed("pending")]
        return "\n".join(items) if items else "- " + w["none"]

    def sec_current(self) -> str:
        out = [self.w["current_intro"]]
        last = self.step_lines()[-3:]
        out += ["- " + l for l in last]
        out += self.placed("current")
        return "\n".join(out)

    def sec_next(self) -> str:
        out = list(self.placed("next"))
        ps = self.prompts()
        if ps and self.shape.get("next_quote", True):
            out.append(self.w["latest"].format(q=self.quoted_prompt(ps[-1]).replace("\n     ", " ")))
        return "\n".join(out) if out else self.w["none"]

    def analysis(self) -> str:
        out = [self.w["analysis_intro"]]
        n = 1
        for p in self.prompts()[-6:]:
            out.append(f"{n}. " + self.w["asked"].format(q=_short(p, 160)))
            n += 1
        for l in self.step_lines():
            out.append(f"{n}. {l}")
            n += 1
        for t in self.placed("analysis"):
            out.append(f"{n}. {t}")
            n += 1
        return "\n".join(out)

    def bodies(self, files_budget: int) -> list[str]:
        bodies = [
            self.sec_request(),
            self.sec_concepts(),
            self.sec_files(files_budget),
            self.sec_errors(),
            self.sec_problem(),
            self.sec_messages(),
            self.sec_pending(),
            self.sec_current(),
            self.sec_next(),
        ]
        if self.shape.get("variant", "full") == "recent":
            bodies[0] = self.w["span_recent"] + "\n" + bodies[0]
        return bodies

    # ---- Codex handoff
    def codex(self) -> str:
        heads = self.voice["codex_heads"].get(self.lang, self.voice["codex_heads"]["en"])
        w = self.w
        secs: list[list[str]] = [[] for _ in heads]
        ps = self.prompts()
        if ps:
            secs[0].append(_short(ps[-1], 400))
            for p in ps[-4:-1]:
                secs[0].append("- " + w["asked"].format(q=_short(p, 160)))
        for t in self.case.get("request", []):
            secs[0].append("- " + t)
        base_writes = [e for e in self.base if e["k"] == "write" and e.get("ok")][-6:]
        for e in base_writes:
            secs[1].append("- " + w["edited"].format(file=e["file"]))
        for e in [e for e in self.base if e["k"] == "run"][-4:]:
            secs[1].append("- " + w["ran"].format(cmd=_short(e["cmd"], 120), code=e["exit"]))
        secs[1] += ["- " + l for l in self.step_lines()]
        for c in self.case.get("concepts", [])[:5]:
            secs[3].append("- " + c)
        for p in ps[:-1][-3:]:
            secs[3].append("- " + w["asked"].format(q=_short(p, 300)))
        for n, s in self.open_tasks_for_summary():
            secs[4].append("- " + w["task_line"].format(name=n, state=w["states"].get(s, s)))
        for path, kind, code in self.step_files():
            secs[5].append(f"- `{path}`")
            if self.shape.get("codex_code", True):
                secs[5].append(f"```{_lang_of(path)}\n{_code(code, 30)}\n```")
        for path, code, kind in self.base_files()[:2]:
            secs[5].append(f"- `{path}`" + (f" ({w['why_read']})" if kind == "read" else ""))
        cmds = []
        for st in self.steps:
            if st[0] == "run" and st[1] not in cmds and not self._run_suppressed(st[1]):
                cmds.append(st[1])
        for c in cmds[-5:]:
            secs[5].append(f"- `{c}`")
        for sec, idx in CODEX_MAP.items():
            for t in self.placed(sec):
                secs[idx].append(t if t.startswith(("-", "*", "1")) else "- " + t)
        return self.handoff(heads, secs, "bold")


class Prose(Composer):
    """Tune2's narration (tune3's too): first person, prose paragraphs in Primary Request,
    Problem Solving and Current Work, each run told by its runner's own result line ("Tests
    run: 11, Failures: 1"), edits shown with the code before and after, pending tasks in several
    list forms; Codex handoffs in layouts of their own headings."""

    def __init__(self, case, base_events, full, base_extra, voice):
        super().__init__(case, base_events, full, base_extra, voice)
        self.seed = _h(case.get("id", ""))
        self.exact_cmds = [n for c in self.claims if c["kind"] in ("tests_pass",) and c.get("exact") for n in c["cmd"]]
        self.loose_cmds = [n for c in self.claims if c["kind"] in ("tests_pass",) and not c.get("exact") for n in c["cmd"]]

    # ---- what a claim speaks for
    def _run_suppressed(self, cmd: str) -> bool:
        c = cmd.strip()
        if any(c == n.strip() for n in self.exact_cmds) or any(n in cmd for n in self.loose_cmds):
            return True
        return any(("git " + g) in cmd for g in self.suppress_git)

    def _file_claimed(self, path: str) -> bool:
        return any(path.endswith(f) or f.endswith(path) for f in self.suppress_files)

    def narrate_step(self, st) -> str | None:
        w = self.w
        k = st[0]
        if k == "run":
            cmd, code, out = st[1], st[2], st[3] if isinstance(st[3], str) else ""
            if self._run_suppressed(cmd):
                return None
            return w["n_run"].format(cmd=_short(cmd, 110), result=result_of(out, code, w))
        if k == "edit":
            return w["n_edit"].format(file=st[1])
        if k == "write":
            return w["n_new"].format(file=st[1])
        if k == "edit_fail":
            if self._file_claimed(st[1]):
                return None
            return w["n_fail"].format(file=st[1], err=_short(st[4], 100))
        if k == "read":
            return w["n_read"].format(file=st[1])
        if k == "tasks":
            items = [(n, s) for n, s in st[1] if not (n in self.suppress_tasks)]
            if not items or self.all_done_claimed:
                return None
            return w["n_tasks"].format(items="; ".join(f"{n}: {w['states'].get(s, s)}" for n, s in items))
        return None

    def work_lines(self, reads: bool = True, tasks: bool = True) -> list[str]:
        out = []
        for st in self.steps:
            if (st[0] == "read" and not reads) or (st[0] == "tasks" and not tasks):
                continue
            n = self.narrate_step(st)
            if n:
                out.append(n)
        return out

    # ---- pieces
    def step_prompts(self) -> list[str]:
        ps = [s[1] for s in self.steps if s[0] == "prompt"]
        if ps and self.case.get("latest_as"):
            ps[-1] = self.case["latest_as"]
        return ps

    def base_prompts(self) -> list[str]:
        return [e["text"] for e in self.base if e["k"] == "prompt"]

    def pending_items(self) -> list[str]:
        w = self.w
        if self.shape.get("pending_list") is False:
            return []  # the case places its own rendering of the open tasks
        items = self.open_tasks_for_summary()
        form = self.shape.get("pending_form", self.seed % 4)
        out = []
        for i, (n, s) in enumerate(items, 1):
            st = w["states"].get(s, s)
            if form == 0:
                out.append(f"- {n} ({st})")
            elif form == 1:
                out.append(f"- {st[:1].upper() + st[1:]}: {n}")
            elif form == 2:
                out.append(f"{i}. {n} — {st}")
            else:
                out.append(f"- **{n}** — {st}")
        return out

    def _block(self, text: str, bullet: str = "- ") -> str:
        """A placed sentence: a table, a list or a multi-line quote goes as a block; a sentence
        as a bullet."""
        t = text.strip("\n")
        if t.startswith(("|", "```", ">", "1.", "- ", "* ", "☐", "☑", "**")) or "\n" in t:
            return t
        return bullet + t

    # ---- Claude Code sections
    def sec_request(self) -> str:
        w = self.w
        out = [w["req_lead"]]
        for p in self.base_prompts()[-4:]:
            out.append("- " + w["earlier"].format(q=_short(p, 200)))
        sp = self.step_prompts()
        if sp:
            out.append("- " + w["main"].format(q=_short(sp[0], 320)))
            for p in sp[1:]:
                out.append("- " + w["follow"].format(q=_short(p, 260)))
        for t in self.case.get("request", []):
            out.append("- " + t)
        for t in self.placed("request"):
            out.append(self._block(t))
        return "\n".join(out)

    def sec_concepts(self) -> str:
        w = self.w
        items = [f"- {c}" for c in self.case.get("concepts", [])]
        stack = self.case.get("stack")
        if stack:
            items.append("- " + w["stack"].format(x=stack))
        tools = sorted({e.get("name") for e in self.base if e["k"] == "tool" and e.get("name")} - {None})
        if tools:
            items.append("- " + w["tools"].format(x=", ".join(tools[:8])))
        items += [self._block(t) for t in self.placed("concepts")]
        return "\n".join(items) if items else "- " + w["pend_none"]

    def sec_files(self, budget: int) -> str:
        w = self.w
        lines_max = self.shape.get("code_lines", 40)
        out = []
        seen = set()
        for st in reversed(self.steps):
            kind, path = st[0], st[1] if len(st) > 1 else ""
            if kind not in ("edit", "write", "edit_fail", "read") or path in seen:
                continue
            seen.add(path)
            fence = lang_of(path)
            if kind == "edit":
                out.append(f"- `{path}`\n  - {w['f_edit']}\n  ```{fence}\n{_code(st[2], lines_max)}\n  ```\n  - {w['f_after']}\n  ```{fence}\n{_code(st[3], lines_max)}\n  ```")
            elif kind == "write":
                out.append(f"- `{path}`\n  - {w['f_new']}\n  ```{fence}\n{_code(st[2], lines_max)}\n  ```")
            elif kind == "edit_fail":
                if self._file_claimed(path):
                    continue
                out.append(f"- `{path}`\n  - {w['f_fail']}")
            else:
                out.append(f"- `{path}`\n  - {w['f_read']}\n  ```{fence}\n{_code(st[2], lines_max)}\n  ```")
        out += [self._block(t) for t in self.placed("files")]
        used = sum(len(x) for x in out)
        for path, code, kind in self.base_files():
            if used > budget:
                break
            if path in seen:
                continue
            block = f"- `{path}`\n  - {w['f_read'] if kind == 'read' else w['f_base']}\n  ```{lang_of(path)}\n{_code(code, lines_max)}\n  ```"
            out.append(block)
            used += len(block)
        return "\n".join(out) if out else "- " + w["pend_none"]

    def sec_errors(self) -> str:
        w = self.w
        out = []
        for e in self.base:
            if e["k"] == "run" and e.get("exit") not in (0, None):
                first = next((l for l in (e.get("output") or "").split("\n") if l.strip() and not l.startswith("Exit code")), "")
                if first:
                    out.append("- " + w["e_base"].format(cmd=_short(e["cmd"], 80), code=e["exit"], line=_short(first, 120)))
            if len(out) >= 3:
                break
        for st in self.steps:
            if st[0] == "run" and st[2] != 0 and not self._run_suppressed(st[1]):
                out.append("- " + w["e_run"].format(cmd=_short(st[1], 110), result=result_of(st[3] if isinstance(st[3], str) else "", st[2], w)))
            elif st[0] == "edit_fail" and not self._file_claimed(st[1]):
                out.append("- " + w["e_edit"].format(file=st[1], err=_short(st[4], 120)))
        out += [self._block(t) for t in self.placed("errors")]
        return "\n".join(out) if out else w["e_none"]

    def sec_problem(self) -> str:
        w = self.w
        out = []
        runs = [e for e in self.base if e["k"] == "run"][-3:]
        if runs:
            out.append(w["p_earlier"].format(x=", ".join(f"`{_short(e['cmd'], 70)}`" for e in runs)))
        work = self.work_lines(reads=False)
        if work:
            out.append(w["p_lead"])
            out += [f"{i}. {l[:1].upper() + l[1:]}" if self.lang in ("en", "fr", "pt", "it", "de", "es") else f"{i}. {l}" for i, l in enumerate(work, 1)]
        placed = self.placed("problem")
        prose = [t for t in placed if "\n" not in t and not t.startswith(("|", "-", "*", "1."))]
        blocks = [t for t in placed if t not in prose]
        if prose:
            out.append(" ".join(prose))
        out += [self._block(t) for t in blocks]
        return "\n".join(out) if out else w["e_none"]

    def sec_messages(self) -> str:
        out = [self.w["m_lead"]]
        for p in self.base_prompts() + self.step_prompts():
            out.append(f'- "{self.quoted_prompt(p)}"')
        out += [self._block(t) for t in self.placed("messages")]
        return "\n".join(out)

    def sec_pending(self) -> str:
        items = self.pending_items()
        items += [self._block(t) for t in self.placed("pending")]
        return "\n".join(items) if items else self.w["pend_none"]

    def sec_current(self) -> str:
        w = self.w
        work = self.work_lines(reads=False, tasks=False)[-3:] or self.work_lines(reads=False)[-1:]
        out = []
        if work:
            if len(work) == 1:
                s = f"{w['cur_lead']} {work[0]}{w['end']}"
            elif len(work) == 2:
                s = f"{w['cur_lead']} {work[0]}{w['last']} {work[1]}{w['end']}"
            else:
                s = f"{w['cur_lead']} {work[0]}{w['then']} {work[1]}{w['last']} {work[2]}{w['end']}"
            if self.lang in ("zh", "ja"):
                s = s.replace(" ", "", 1) if s.startswith(w["cur_lead"] + " ") else s
            out.append(s)
        placed = self.placed("current")
        prose = [t for t in placed if "\n" not in t and not t.startswith(("|", "-", "*", "1.", "☐"))]
        blocks = [t for t in placed if t not in prose]
        if prose:
            if out:
                out[-1] += " " + " ".join(prose)
            else:
                out.append(" ".join(prose))
        out += [self._block(t) for t in blocks]
        return "\n".join(out) if out else w["pend_none"]

    def sec_next(self) -> str:
        out = [self._block(t, "") for t in self.placed("next")]
        ps = self.base_prompts() + self.step_prompts()
        if ps and self.shape.get("next_quote", True):
            out.append(self.w["next_quote"].format(q=self.quoted_prompt(ps[-1]).replace("\n     ", " ")))
        return "\n".join(out) if out else self.w["pend_none"]

    def analysis(self) -> str:
        w = self.w
        out = [w["an_lead"]]
        n = 1
        for p in self.base_prompts()[-3:] + self.step_prompts():
            out.append(f"{n}. " + w["an_user"].format(q=_short(p, 150)))
            n += 1
        for l in self.work_lines(reads=True):
            out.append(f"{n}. " + w["an_me"].format(n=l))
            n += 1
        for t in self.placed("analysis"):
            out.append(f"{n}. {t}")
            n += 1
        return "\n".join(out)

    def bodies(self, files_budget: int) -> list[str]:
        bodies = [self.sec_request(), self.sec_concepts(), self.sec_files(files_budget), self.sec_errors(), self.sec_problem(), self.sec_messages(), self.sec_pending(), self.sec_current(), self.sec_next()]
        if self.shape.get("variant", "full") == "recent":
            bodies[0] = self.w["recent"] + "\n" + bodies[0]
        return bodies

    # ---- Codex handoff
    def codex(self) -> str:
        for code_lines in (24, 14, 8, 0):
            for prompt_len in (300, 180, 100):
                s = self._codex(code_lines, prompt_len)
                if len(s.encode()) <= 8800:
                    return s
        return s

    def _codex(self, code_lines: int, prompt_len: int) -> str:
        w = self.w
        cx = self.voice["cx"].get(self.lang, self.voice["cx"]["en"])
        layout = self.shape.get("codex_layout", "handoff")
        heads_by_lang = self.voice["codex_layouts"][layout]
        heads = heads_by_lang.get(self.lang, heads_by_lang["en"])
        secs: list[list[str]] = [[] for _ in heads]
        sp = self.step_prompts()
        bp = self.base_prompts()
        if sp:
            secs[0].append(_short(sp[0], prompt_len))
            for p in sp[1:]:
                secs[0].append("- " + w["follow"].format(q=_short(p, prompt_len)))
        if bp:
            secs[0].append(cx["asked_before"].format(x="; ".join(f"“{_short(p, 90)}”" for p in bp[-3:])))
        for t in self.case.get("request", []):
            secs[0].append("- " + t)
        cap = (lambda l: l[:1].upper() + l[1:]) if self.lang in ("en", "fr", "pt", "it", "de", "es") else (lambda l: l)
        base_writes = []
        for e in self.base:
            if e["k"] == "write" and e.get("ok") and e["file"] not in base_writes:
                base_writes.append(e["file"])
        for f in base_writes[-4:]:
            secs[1].append("- " + cap(w["n_edit"].format(file=f)))
        for l in self.work_lines(reads=False):
            secs[1].append("- " + cap(l))
        for st in self.steps:
            if st[0] == "run" and st[2] != 0 and not self._run_suppressed(st[1]):
                secs[2].append("- " + w["e_run"].format(cmd=_short(st[1], 110), result=result_of(st[3] if isinstance(st[3], str) else "", st[2], w)))
        for c in self.case.get("concepts", [])[:4]:
            secs[4].append("- " + c)
        if self.case.get("stack"):
            secs[4].append("- " + w["stack"].format(x=self.case["stack"]))
        secs[3] += self.pending_items()
        paths = []
        for st in reversed(self.steps):
            if st[0] in ("edit", "write") and st[1] not in paths:
                paths.append(st[1])
        for p in paths[:3]:
            secs[5].append(f"- `{p}`")
            if code_lines:
                code = next(st[3] if st[0] == "edit" else st[2] for st in reversed(self.steps) if st[0] in ("edit", "write") and st[1] == p)
                secs[5].append(f"```{lang_of(p)}\n{_code(code, code_lines)}\n```")
        for st in self.steps:
            if st[0] == "read" and st[1] not in paths:
                paths.append(st[1])
                secs[5].append(f"- `{st[1]}` ({self.voice['read_tag'].get(self.lang, self.voice['read_tag']['en'])})")
                if code_lines and len(paths) <= 2:
                    secs[5].append(f"```{lang_of(st[1])}\n{_code(st[2], max(6, code_lines // 2))}\n```")
        cmds = []
        for st in self.steps:
            if st[0] == "run" and st[1] not in cmds and not self._run_suppressed(st[1]) and not st[1].startswith(("sed -n", "cat ")):
                cmds.append(st[1])
        for c in cmds[-4:]:
            secs[5].append(f"- `{c}`")
        for sec, idx in CODEX_SLOT.items():
            for t in self.placed(sec):
                secs[idx].append(self._block(t))
        if not secs[3]:
            secs[3].append(cx["none_open"])
        if len(sp) > 1 and self.shape.get("next_quote", True):
            secs[3].append(cx["then_next"].format(q=_short(sp[-1], prompt_len)))
        return self.handoff(heads, secs, "markdown")
