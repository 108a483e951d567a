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

This module holds the engine and the TUNE half's wording. The held-out half's wording and
narration live in `compose_heldout.py` (a subclass), written separately.
"""

from __future__ import annotations

import re

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

HEADINGS = {
    "en": ["Primary Request and Intent", "Key Technical Concepts", "Files and Code Sections", "Errors and fixes", "Problem Solving", "All user messages", "Pending Tasks", "Current Work", "Optional Next Step"],
    "up_to": ["Primary Request and Intent", "Key Technical Concepts", "Files and Code Sections", "Errors and fixes", "Problem Solving", "All user messages", "Pending Tasks", "Work Completed", "Context for Continuing Work"],
    "zh": ["主要请求和意图", "关键技术概念", "文件和代码部分", "错误和修复", "问题解决", "所有用户消息", "待办任务", "当前工作", "可选的下一步"],
    "de": ["Hauptanliegen und Absicht", "Wichtige technische Konzepte", "Dateien und Codeabschnitte", "Fehler und Korrekturen", "Problemlösung", "Alle Nutzernachrichten", "Offene Aufgaben", "Aktuelle Arbeit", "Optionaler nächster Schritt"],
    "ja": ["主な依頼と意図", "主要な技術概念", "ファイルとコードセクション", "エラーと修正", "問題解決", "すべてのユーザーメッセージ", "保留中のタスク", "現在の作業", "任意の次のステップ"],
    "es": ["Solicitud principal e intención", "Conceptos técnicos clave", "Archivos y secciones de código", "Errores y correcciones", "Resolución de problemas", "Todos los mensajes del usuario", "Tareas pendientes", "Trabajo actual", "Siguiente paso opcional"],
    "ko": ["주요 요청 및 의도", "핵심 기술 개념", "파일 및 코드 섹션", "오류 및 수정", "문제 해결", "모든 사용자 메시지", "보류 중인 작업", "현재 작업", "선택적 다음 단계"],
}

# Sections 8 and 9 of the span variant ("Work Completed", "Context for Continuing Work"), for
# summaries whose headings are translated.
UP_TO_TRANSLATED = {
    "zh": ["已完成的工作", "继续工作所需的上下文"],
    "de": ["Abgeschlossene Arbeit", "Kontext für die weitere Arbeit"],
    "ja": ["完了した作業", "作業を続けるための文脈"],
    "es": ["Trabajo completado", "Contexto para continuar el trabajo"],
    "ko": ["완료된 작업", "작업을 계속하기 위한 맥락"],
}

# Generic narration, per language (the TUNE half's wording).
WORDS = {
    "en": {
        "req_intro": "The user's explicit requests over the session, oldest first:",
        "asked": "Asked: {q}",
        "ran": "Ran `{cmd}` (exit {code}).",
        "ran_counts": "Ran `{cmd}`: {p} passed, {f} failed{names}.",
        "edited": "Edited `{file}`.",
        "edit_failed": "The Edit of `{file}` was rejected by the tool: {err}",
        "created": "Created `{file}`.",
        "why_file": "Touched during this session; the change is shown below.",
        "why_read": "Read for context.",
        "base_err": "A `{tool}` call returned an error: {err}",
        "no_errors": "No errors beyond those listed above.",
        "task_line": "{name} ({state})",
        "none": "None.",
        "quote_intro": "Verbatim, in order:",
        "latest": "The most recent user message was: \"{q}\"",
        "analysis_intro": "Going through the conversation chronologically:",
        "concepts_tools": "Tools used in the session: {tools}",
        "problem_intro": "Work done, in order:",
        "current_intro": "Immediately before this summary:",
        "states": {"pending": "pending", "in_progress": "in progress", "completed": "completed"},
        "files_intro": "Files touched (most recent first):",
        "span_recent": "This summary covers the recent messages after the retained earlier context.",
        "earlier": "Earlier in the session (real history of this project):",
    },
    "zh": {
        "req_intro": "用户在本次会话中的明确请求（按时间顺序）：",
        "asked": "用户要求：{q}",
        "ran": "运行了 `{cmd}`（退出码 {code}）。",
        "ran_counts": "运行了 `{cmd}`：{p} 个通过，{f} 个失败{names}。",
        "edited": "编辑了 `{file}`。",
        "edit_failed": "对 `{file}` 的编辑被工具拒绝：{err}",
        "created": "创建了 `{file}`。",
        "why_file": "本次会话中修改过，改动见下。",
        "why_read": "为了解上下文而读取。",
        "base_err": "`{tool}` 调用返回错误：{err}",
        "no_errors": "除上述之外没有其他错误。",
        "task_line": "{name}（{state}）",
        "none": "无。",
        "quote_intro": "原文，按顺序：",
        "latest": "用户最近的一条消息是：“{q}”",
        "analysis_intro": "按时间顺序梳理对话：",
        "concepts_tools": "会话中使用的工具：{tools}",
        "problem_intro": "已做的工作，按顺序：",
        "current_intro": "在此摘要之前：",
        "states": {"pending": "待处理", "in_progress": "进行中", "completed": "已完成"},
        "files_intro": "涉及的文件（最近的在前）：",
        "span_recent": "本摘要只涵盖保留的早期上下文之后的最近消息。",
        "earlier": "会话早些时候（该项目的真实历史）：",
    },
    "de": {
        "req_intro": "Die ausdrücklichen Anliegen des Nutzers in dieser Sitzung, der Reihe nach:",
        "asked": "Bat: {q}",
        "ran": "`{cmd}` ausgeführt (Exit-Code {code}).",
        "ran_counts": "`{cmd}` ausgeführt: {p} bestanden, {f} fehlgeschlagen{names}.",
        "edited": "`{file}` bearbeitet.",
        "edit_failed": "Die Bearbeitung von `{file}` wurde vom Werkzeug abgelehnt: {err}",
        "created": "`{file}` angelegt.",
        "why_file": "In dieser Sitzung geändert; die Änderung steht unten.",
        "why_read": "Zum Verständnis gelesen.",
        "base_err": "Ein `{tool}`-Aufruf lieferte einen Fehler: {err}",
        "no_errors": "Keine weiteren Fehler als die oben genannten.",
        "task_line": "{name} ({state})",
        "none": "Keine.",
        "quote_intro": "Wörtlich, in Reihenfolge:",
        "latest": "Die letzte Nachricht des Nutzers lautete: „{q}“",
        "analysis_intro": "Die Unterhaltung chronologisch durchgegangen:",
        "concepts_tools": "In der Sitzung benutzte Werkzeuge: {tools}",
        "problem_intro": "Erledigte Arbeit, der Reihe nach:",
        "current_intro": "Unmittelbar vor dieser Zusammenfassung:",
        "states": {"pending": "offen", "in_progress": "in Arbeit", "completed": "erledigt"},
        "files_intro": "Berührte Dateien (neueste zuerst):",
        "span_recent": "Diese Zusammenfassung deckt die neueren Nachrichten nach dem beibehaltenen früheren Kontext ab.",
        "earlier": "Früher in der Sitzung (echter Verlauf dieses Projekts):",
    },
    "ja": {
        "req_intro": "このセッションでのユーザーの明示的な依頼（古い順）：",
        "asked": "依頼：{q}",
        "ran": "`{cmd}` を実行（終了コード {code}）。",
        "ran_counts": "`{cmd}` を実行：{p} 件成功、{f} 件失敗{names}。",
        "edited": "`{file}` を編集。",
        "edit_failed": "`{file}` の編集はツールに拒否された：{err}",
        "created": "`{file}` を作成。",
        "why_file": "このセッションで変更。変更内容は以下。",
        "why_read": "文脈把握のために読んだ。",
        "base_err": "`{tool}` の呼び出しがエラーを返した：{err}",
        "no_errors": "上記以外のエラーはない。",
        "task_line": "{name}（{state}）",
        "none": "なし。",
        "quote_intro": "原文のまま、順番に：",
        "latest": "ユーザーの最新メッセージ：「{q}」",
        "analysis_intro": "会話を時系列で確認：",
        "concepts_tools": "セッションで使ったツール：{tools}",
        "problem_intro": "行った作業（順番に）：",
        "current_intro": "この要約の直前：",
        "states": {"pending": "未着手", "in_progress": "作業中", "completed": "完了"},
        "files_intro": "触れたファイル（新しい順）：",
        "span_recent": "この要約は保持された以前の文脈の後の最近のメッセージのみを扱う。",
        "earlier": "セッションの前半（このプロジェクトの実際の履歴）：",
    },
    "es": {
        "req_intro": "Las peticiones explícitas del usuario en la sesión, en orden:",
        "asked": "Pidió: {q}",
        "ran": "Se ejecutó `{cmd}` (código de salida {code}).",
        "ran_counts": "Se ejecutó `{cmd}`: {p} pasaron, {f} fallaron{names}.",
        "edited": "Se editó `{file}`.",
        "edit_failed": "La herramienta rechazó la edición de `{file}`: {err}",
        "created": "Se creó `{file}`.",
        "why_file": "Modificado en esta sesión; el cambio está abajo.",
        "why_read": "Leído para entender el contexto.",
        "base_err": "Una llamada a `{tool}` devolvió un error: {err}",
        "no_errors": "Ningún otro error aparte de los anteriores.",
        "task_line": "{name} ({state})",
        "none": "Ninguna.",
        "quote_intro": "Textuales, en orden:",
        "latest": "El último mensaje del usuario fue: \"{q}\"",
        "analysis_intro": "Recorriendo la conversación en orden cronológico:",
        "concepts_tools": "Herramientas usadas en la sesión: {tools}",
        "problem_intro": "Trabajo hecho, en orden:",
        "current_intro": "Justo antes de este resumen:",
        "states": {"pending": "pendiente", "in_progress": "en curso", "completed": "completada"},
        "files_intro": "Archivos tocados (los más recientes primero):",
        "span_recent": "Este resumen cubre los mensajes recientes posteriores al contexto anterior conservado.",
        "earlier": "Antes en la sesión (historia real de este proyecto):",
    },
    "ko": {
        "req_intro": "이 세션에서 사용자가 명시적으로 요청한 내용(오래된 순):",
        "asked": "요청: {q}",
        "ran": "`{cmd}` 실행 (종료 코드 {code}).",
        "ran_counts": "`{cmd}` 실행: {p}개 통과, {f}개 실패{names}.",
        "edited": "`{file}` 수정.",
        "edit_failed": "`{file}` 수정이 도구에 의해 거부됨: {err}",
        "created": "`{file}` 생성.",
        "why_file": "이 세션에서 변경됨; 변경 내용은 아래.",
        "why_read": "맥락 파악을 위해 읽음.",
        "base_err": "`{tool}` 호출이 오류를 반환: {err}",
        "no_errors": "위에 적은 것 외의 오류는 없음.",
        "task_line": "{name} ({state})",
        "none": "없음.",
        "quote_intro": "원문 그대로, 순서대로:",
        "latest": "사용자의 가장 최근 메시지: \"{q}\"",
        "analysis_intro": "대화를 시간순으로 정리:",
        "concepts_tools": "세션에서 사용한 도구: {tools}",
        "problem_intro": "수행한 작업(순서대로):",
        "current_intro": "이 요약 직전:",
        "states": {"pending": "대기", "in_progress": "진행 중", "completed": "완료"},
        "files_intro": "다룬 파일(최근 순):",
        "span_recent": "이 요약은 유지된 이전 맥락 이후의 최근 메시지만 다룬다.",
        "earlier": "세션 초반(이 프로젝트의 실제 이력):",
    },
}


def _short(text: str, n: int) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1].rstrip() + "…"


def _lang_of(path: str) -> str:
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return EXT_LANG.get(ext, "")


def _code(text: str, max_lines: int) -> str:
    lines = text.split("\n")
    if len(lines) > max_lines:
        lines = lines[:max_lines] + ["..."]
    return "\n".join(lines)


def _counts(spec) -> tuple[int, list[str]] | None:
    if isinstance(spec, dict) and ("passed" in spec or "failed" in spec):
        return spec.get("passed", 0), list(spec.get("failed", []))
    return None


class Composer:
    """The TUNE half's summary writer. `case` is the case spec, `base` the base's timeline (the
    real transcript cut), `steps` the case's appended steps, `full` the whole record's
    timeline (base + steps) as the reader sees it."""

    words = WORDS
    headings = HEADINGS

    def __init__(self, case: dict, base_events: list[dict], full, base_extra: dict):
        self.case = case
        self.shape = case.get("shape", {})
        self.lang = case.get("lang", "en")
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

    # ---- placed text
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

    def heading(self, i: int, name: str) -> str:
        style = self.shape.get("headings", "numbered")
        if style == "markdown":
            return f"## {i}. {name}"
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
                names = names[:7] + UP_TO_TRANSLATED.get(self.lang, self.headings["up_to"][7:])
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
        if variant == "recent":
            bodies[0] = self.w["span_recent"] + "\n" + bodies[0]
        parts = []
        for i, (name, body) in enumerate(zip(names, bodies), 1):
            parts.append(self.heading(i, name) + "\n" + self.indent(body))
        summary = "\n\n".join(parts)
        wrap = self.shape.get("wrap", "tags")
        if wrap == "tags":
            return f"<analysis>\n{self.analysis()}\n</analysis>\n\n<summary>\n{summary}\n</summary>"
        if wrap == "summary_only":
            return f"<summary>\n{summary}\n</summary>"
        if wrap == "prefix":
            return "Summary:\n" + summary
        return summary

    # ---- Codex handoff
    CODEX_HEADS = {
        "en": ["Goal", "Progress so far", "Key decisions", "Context, constraints and preferences", "What remains (next steps)", "Critical references"],
        "zh": ["目标", "目前进展", "关键决定", "上下文、约束与偏好", "剩余工作（下一步）", "关键参考"],
        "de": ["Ziel", "Bisheriger Fortschritt", "Wichtige Entscheidungen", "Kontext, Vorgaben und Vorlieben", "Was bleibt (nächste Schritte)", "Wichtige Referenzen"],
        "ja": ["目的", "これまでの進捗", "主な決定", "文脈・制約・好み", "残りの作業（次のステップ）", "重要な参照"],
        "es": ["Objetivo", "Progreso hasta ahora", "Decisiones clave", "Contexto, restricciones y preferencias", "Lo que falta (siguientes pasos)", "Referencias críticas"],
        "ko": ["목표", "현재까지 진행", "주요 결정", "맥락, 제약, 선호", "남은 작업(다음 단계)", "중요 참고"],
    }
    CODEX_MAP = {"request": 0, "concepts": 3, "analysis": 2, "problem": 1, "current": 1, "errors": 1, "files": 5, "messages": 3, "pending": 4, "next": 4}

    def codex(self) -> str:
        heads = self.CODEX_HEADS.get(self.lang, self.CODEX_HEADS["en"])
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
        for sec, idx in self.CODEX_MAP.items():
            for t in self.placed(sec):
                secs[idx].append(t if t.startswith(("-", "*", "1")) else "- " + t)
        style = self.shape.get("codex_style", "bold")
        out = []
        for h, body in zip(heads, secs):
            if not body:
                continue
            if style == "markdown":
                out.append(f"## {h}\n" + "\n".join(body))
            elif style == "plain":
                out.append(f"{h}:\n" + "\n".join(body))
            else:
                out.append(f"**{h}**\n" + "\n".join(body))
        return "\n\n".join(out)
