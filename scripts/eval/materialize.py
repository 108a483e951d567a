"""A case spec -> the record as the hooks see it, the summary, and the label.

The base is a real transcript from the shared corpus (never copied into the repository: it is
read at run time, by name and cut line) or the repository's real Codex 0.169 rollout; the
case's steps are appended in the client's format. `save_at` splits the steps where PreCompact
runs: before it, the record `save` reads; after it, what the record gains before the
compaction is applied (a result written late, a precomputed summary's newer messages).

The label is the reader's (`label.py`), from the span the summary covers: the whole record,
except for the `up_to` variant (a summary of the conversation up to the save point, with the
newer messages kept verbatim after it), whose claims are about the record up to that point.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import compose
import compose_heldout
import label as labels
import reader
from records import ClaudeWriter, CodexWriter, apply_steps, convert_claude

REPO = Path(__file__).resolve().parents[2]
CODEX_FIXTURE = REPO / "tests/fixtures/codex-0.169-plan-patch-fail-auto-compaction.jsonl"

# Real summary lengths: Claude Code 7-15 KB (issue #38, measured on its summaries); Codex's
# handoff is asked to be concise.
CLAUDE_BYTES = (7_000, 15_500)
CODEX_BYTES = (1_000, 9_000)


class SetError(Exception):
    """The set itself is wrong (a label that does not hold, a summary out of shape): loud."""


def corpus_dir() -> Path:
    env = os.environ.get("COMPACT_GUARDIAN_CORPUS")
    d = Path(env) if env else REPO.parent / "shared" / "transcripts"
    if not d.is_dir():
        raise SystemExit(
            f"eval: the shared corpus of real transcripts is missing: {d} "
            "(../shared/transcripts beside the repository, or COMPACT_GUARDIAN_CORPUS=<dir>)"
        )
    return d


_cache: dict = {}


def base_lines(case: dict) -> list[str]:
    name = case["base"]
    if name not in _cache:
        path = CODEX_FIXTURE if name == "codex:fixture" else corpus_dir() / name
        _cache[name] = path.read_text(encoding="utf-8").split("\n")
        if _cache[name] and _cache[name][-1] == "":
            _cache[name].pop()
    lines = _cache[name]
    cut = case["cut"]
    if cut > len(lines):
        raise SetError(f"{case['id']}: cut {cut} is past the end of {name} ({len(lines)} lines)")
    return lines[:cut]


def base_code(lines: list[str], kept: set[str] | None = None) -> list[tuple[str, str]]:
    """(path, code) of the base's edits and new files, then of the files it read, newest first:
    what a summary's "Files and Code Sections" shows. `kept`: the tool calls a conversion to
    Codex kept (it leaves out the work before the first typed prompt and a call with no result
    yet): a summary of the rollout names only what the rollout holds."""
    out = []
    reads = {}
    read_out = []
    failed = set()
    for raw in lines:
        if '"is_error":true' in raw or '"is_error": true' in raw:
            try:
                d = json.loads(raw)
                for b in (d.get("message") or {}).get("content") or []:
                    if isinstance(b, dict) and b.get("is_error"):
                        failed.add(b.get("tool_use_id"))
            except (ValueError, AttributeError):
                pass
    for raw in lines:
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(d, dict) or d.get("type") != "assistant" or d.get("isSidechain"):
            continue
        c = (d.get("message") or {}).get("content")
        if not isinstance(c, list):
            continue
        for b in c:
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") not in failed and (kept is None or b.get("id") in kept):
                inp = b.get("input") or {}
                if b.get("name") == "Edit" and inp.get("new_string"):
                    out.append((inp.get("file_path", ""), inp["new_string"], "edit"))
                elif b.get("name") == "Write" and inp.get("content"):
                    out.append((inp.get("file_path", ""), inp["content"], "edit"))
                elif b.get("name") == "Read" and inp.get("file_path"):
                    reads[b.get("id")] = inp["file_path"]
    for raw in lines:
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        c = (d.get("message") or {}).get("content") if isinstance(d, dict) and isinstance(d.get("message"), dict) else None
        if d.get("type") != "user" or not isinstance(c, list) or d.get("isSidechain"):
            continue
        for b in c:
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in reads and not b.get("is_error"):
                text = b.get("content") if isinstance(b.get("content"), str) else ""
                text = re.sub(r"(?m)^ *\d+\u2192", "", text)
                text = re.sub(r"<system-reminder>.*?</system-reminder>", "", text, flags=re.S).strip()
                if text:
                    read_out.append((reads[b["tool_use_id"]], text, "read"))
    out = read_out + out
    seen, uniq = set(), []
    for p, code, kind in reversed(out):
        if p not in seen and code.strip():
            seen.add(p)
            uniq.append((p, code, kind))
    return uniq[:16]


def composer(case: dict, base_events: list[dict], full, base_extra: dict) -> compose.Composer:
    """The composer of the case's half, in its voice (the held-out half's narration is its own
    file, which the tuning never reads)."""
    half = case.get("half", "tune")
    if half == "heldout":
        cls = compose_heldout.Composer
    else:
        cls = compose.Listing if half == "tune" else compose.Prose
    return cls(case, base_events, full, base_extra, compose.voice(half))


def materialize(case: dict) -> dict:
    client = case["client"]
    base = base_lines(case)
    steps = case.get("steps", [])
    save_at = case.get("save_at")
    pre, post = (steps[:save_at], steps[save_at:]) if save_at is not None else (steps, [])
    seed = case["id"]
    if client == "claude":
        w = ClaudeWriter(base, seed, case.get("task_tool"))
        start = base
    elif case["base"] == "codex:fixture":
        w = CodexWriter(seed, "/tmp/cx/proj")
        w.lines = []  # continue the real rollout: no second session start
        w.ordinal = len(base)
        w.turn = None
        start = base
    else:
        w = convert_claude(base, seed)
        start = []
    base_part = list(start) + list(w.lines)
    apply_steps(w, pre)
    saved = list(start) + list(w.lines)
    apply_steps(w, post)
    full = list(start) + list(w.lines)

    variant = case.get("shape", {}).get("variant", "full")
    span = saved if variant == "up_to" else full
    tl_span = reader.read(span)
    tl_base = reader.read(base_part)
    lab = labels.label(case.get("claims", []), tl_span)
    expect = case.get("expect")
    if expect and lab["verdict"] != expect:
        raise SetError(f"{case['id']}: expected a {expect} summary, the record makes it {lab['verdict']}: {lab}")

    summarized = dict(case)
    summarized["steps"] = pre if variant == "up_to" else steps
    comp = composer(summarized, tl_base.events, tl_span, {"code": base_code(base, None if client == "claude" else w.converted) if client == "claude" or case["base"] != "codex:fixture" else []})
    if client == "claude":
        summary = fit(comp, case)
    else:
        summary = comp.codex()
        n = len(summary.encode())
        if not CODEX_BYTES[0] <= n <= CODEX_BYTES[1]:
            raise SetError(f"{case['id']}: Codex summary is {n} bytes, outside {CODEX_BYTES}")
    flat = " ".join(summary.split())
    for c in case.get("claims", []) + case.get("traps", []):
        if " ".join(c["text"].split()) not in flat:
            raise SetError(f"{case['id']}: placed text missing from the summary: {c['text']!r}")
    return {"case": case, "saved": saved, "full": full, "summary": summary, "label": lab, "writer": w}


def fit(comp, case) -> str:
    lo, hi = CLAUDE_BYTES
    budget = 6000
    for _ in range(12):
        s = comp.claude(budget)
        n = len(s.encode())
        if n < lo:
            budget += (lo - n) + 1500
            comp.shape = dict(comp.shape, code_lines=comp.shape.get("code_lines", 40) + 30)
        elif n > hi:
            budget = max(0, budget - (n - hi) - 800)
            comp.shape = dict(comp.shape, code_lines=max(8, comp.shape.get("code_lines", 40) - 10), quote_limit=max(160, comp.shape.get("quote_limit", 600) - 150))
        else:
            return s
    raise SetError(f"{case['id']}: Claude Code summary is {n} bytes, outside {CLAUDE_BYTES}")


HALVES = ("tune", "tune2", "tune3", "heldout")


def load_cases(half: str) -> list[dict]:
    """The cases of one half (`tune`, `tune2`: a second tuning half authored separately,
    `heldout`) or `all` (tune and heldout, as before tune2 existed)."""
    if half != "all" and half not in HALVES:
        raise SystemExit(f"eval: no half named {half!r} (one of {', '.join(HALVES)}, or all)")
    halves = ["tune", "heldout"] if half == "all" else [half]
    out = []
    for h in halves:
        d = REPO / "tests/fixtures/eval" / h
        files = sorted(d.glob(f"{h}-cases*.json"))
        if not files:
            raise SystemExit(f"eval: no case files in {d}")
        for f in files:
            for c in json.loads(f.read_text(encoding="utf-8"))["cases"]:
                c["half"] = h
                out.append(c)
    return out
