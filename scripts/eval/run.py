"""Runs the evaluation set through the release binary as the clients' hooks do, and judges.

    python3 scripts/eval/run.py [tune|tune2|tune3|heldout|all] [--detail] [--assert] [--bin PATH] [--case ID]

Claude Code, per case: `save` (PreCompact) on the record as it stood when PreCompact ran; the
record's later lines; `restore` (SessionStart compact); the compaction's boundary and summary
records appended (2.1.3xx writes them after SessionStart ran); `audit` (PostCompact, with
`compact_summary`); `correct` (UserPromptSubmit). The corrections are the "- " lines of the
"## Corrections to the compaction summary" section in `correct`'s additionalContext.
Codex: `save`; the later lines and the `compacted` line; `audit` (PostCompact, no summary
field); `restore` (SessionStart compact), whose printed snapshot leads with the section.

Judging: a TRUE summary with any correction line is a false positive; in a FALSE summary each
line must contain a needle of one of its disproved claims, else it is a false correction;
recall = disproved claims matched by a line / disproved claims. A user's line (audit's stdout,
`systemMessage`) that names a correction on a true summary is flagged.

For `heldout` only the aggregate figures are printed unless `--detail` is given, so that
whoever tunes the corrections can look without learning the cases. `tune2` (a second tuning
half, authored separately from `tune`) is printed in full like `tune`; `all` is tune + heldout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

from materialize import REPO, SetError, load_cases, materialize  # noqa: E402

HEADING = "## Corrections to the compaction summary"
# What a user's line says when it names a correction ("the summary kept them" names none).
USER_LINE_NAMES = re.compile(r"left out|did not mention|called '.*' done|said (?:checks pass|work was|actions were|.*changed)|the model is told", re.I)


def corrections_of(text: str) -> list[str]:
    at = text.find(HEADING)
    if at < 0:
        return []
    out = []
    started = False
    for line in text[at + len(HEADING) :].split("\n"):
        if line.startswith("- "):
            started = True
            if not re.match(r"- \.\.\. and \d+ more", line):
                out.append(line[2:])
        elif started and not line.strip():
            break
        elif line.startswith("#"):
            break
    return out


def hook(binary: str, sub: str, payload: dict, env: dict) -> subprocess.CompletedProcess:
    p = subprocess.run([binary, sub], input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(f"{sub} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p


def summary_as_recorded(summary: str) -> str:
    """What Claude Code writes into the transcript: the analysis dropped, the summary's tags
    turned into "Summary:" (the CLI's own formatting, read from 2.1.332)."""
    s = re.sub(r"<analysis>.*?</analysis>", "", summary, flags=re.S)
    m = re.search(r"<summary>(.*?)</summary>", s, flags=re.S)
    if m:
        s = s[: m.start()] + "Summary:\n" + m.group(1).strip() + s[m.end() :]
    return re.sub(r"\n\n+", "\n\n", s).strip()


def run_case(case: dict, binary: str) -> dict:
    m = materialize(case)
    with tempfile.TemporaryDirectory(prefix="cg-eval-") as tmp:
        tmp = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPACT_GUARDIAN", "CLAUDE", "CODEX"))}
        env.update({"HOME": str(tmp / "home"), "COMPACT_GUARDIAN_DIR": str(tmp / "store"), "COMPACT_GUARDIAN_BUDGET_MS": "5000"})
        (tmp / "home").mkdir()
        sid = "eval-" + case["id"]
        trigger = case.get("trigger", "auto")
        w = m["writer"]
        cwd = w.env["cwd"] if case["client"] == "claude" else w.cwd  # the session's own folder
        if case["client"] == "claude":
            path = tmp / "projects" / "-home-dev-project" / f"{sid}.jsonl"
        else:
            path = tmp / "codex" / "sessions" / "2026" / "11" / "25" / f"rollout-2026-11-25T09-00-00-{sid}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(m["saved"]) + "\n", encoding="utf-8")
        if case["client"] == "claude":
            hook(binary, "save", {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "hook_event_name": "PreCompact", "trigger": trigger, "custom_instructions": ""}, env)
            path.write_text("\n".join(m["full"]) + "\n", encoding="utf-8")
            hook(binary, "restore", {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "hook_event_name": "SessionStart", "source": "compact", "model": "claude-opus-4-8"}, env)
            before = len(w.lines)
            w.boundary_and_summary(summary_as_recorded(m["summary"]), trigger, str(path))
            with path.open("a", encoding="utf-8") as f:
                f.write("\n".join(w.lines[before:]) + "\n")
            audit = hook(binary, "audit", {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "prompt_id": "p-eval", "hook_event_name": "PostCompact", "trigger": trigger, "compact_summary": m["summary"]}, env)
            corr = hook(binary, "correct", {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "prompt_id": "p-eval2", "hook_event_name": "UserPromptSubmit", "prompt": "continue", "permission_mode": "default"}, env)
            out = corr.stdout.decode()
            context, user = "", audit.stdout.decode().strip()
            if out.strip():
                v = json.loads(out)
                context = (v.get("hookSpecificOutput") or {}).get("additionalContext") or ""
                user = (user + "\n" + (v.get("systemMessage") or "")).strip()
        else:
            turn = "turn-eval"
            hook(binary, "save", {"session_id": sid, "turn_id": turn, "transcript_path": str(path), "cwd": cwd, "hook_event_name": "PreCompact", "model": "gpt-5.3-codex", "trigger": trigger}, env)
            before = len(w.lines)
            w.compacted(m["summary"])
            path.write_text("\n".join(m["full"] + w.lines[before:]) + "\n", encoding="utf-8")
            audit = hook(binary, "audit", {"session_id": sid, "turn_id": turn, "transcript_path": str(path), "cwd": cwd, "hook_event_name": "PostCompact", "model": "gpt-5.3-codex", "trigger": trigger}, env)
            restore = hook(binary, "restore", {"session_id": sid, "transcript_path": str(path), "cwd": cwd, "hook_event_name": "SessionStart", "model": "gpt-5.3-codex", "permission_mode": "default", "source": "compact"}, env)
            context = restore.stdout.decode()
            a = audit.stdout.decode().strip()
            try:
                user = json.loads(a).get("systemMessage") or ""
            except ValueError:
                user = a
    lines = corrections_of(context)
    return judge(case, m, lines, user)


def judge(case: dict, m: dict, lines: list[str], user: str) -> dict:
    lab = m["label"]
    res = {"id": case["id"], "client": case["client"], "half": case["half"], "verdict": lab["verdict"], "classes": case.get("classes", []), "lines": lines, "user": user, "bytes": len(m["summary"].encode())}
    if lab["verdict"] == "true":
        res["false_lines"] = list(lines)
        res["user_flag"] = bool(USER_LINE_NAMES.search(user or ""))
        res["claims"] = []
        return res
    matched = [False] * len(lab["disproved"])
    false_lines = []
    for line in lines:
        low = line.lower()
        hit = False
        for i, d in enumerate(lab["disproved"]):
            if any(n.lower() in low for n in d["needles"]):
                matched[i] = True
                hit = True
        if not hit:
            false_lines.append(line)
    res["false_lines"] = false_lines
    res["claims"] = [{"class": d["class"], "claim": d["claim"], "needles": d["needles"], "matched": matched[i]} for i, d in enumerate(lab["disproved"])]
    res["unknowable"] = [u["claim"] for u in lab["unknowable"]]
    res["user_flag"] = False
    return res


def aggregate(results: list[dict]) -> dict:
    g = {"true_n": 0, "true_corrected": 0, "user_flags": 0, "lines": 0, "false_lines": 0, "claims": 0, "matched": 0, "false_n": 0}
    for r in results:
        g["lines"] += len(r["lines"])
        g["false_lines"] += len(r["false_lines"])
        if r["verdict"] == "true":
            g["true_n"] += 1
            g["true_corrected"] += bool(r["lines"])
            g["user_flags"] += bool(r["user_flag"])
        else:
            g["false_n"] += 1
            g["claims"] += len(r["claims"])
            g["matched"] += sum(c["matched"] for c in r["claims"])
    g["precision"] = (g["lines"] - g["false_lines"]) / g["lines"] if g["lines"] else None
    g["recall"] = g["matched"] / g["claims"] if g["claims"] else None
    return g


def fmt(g: dict) -> str:
    p = "n/a" if g["precision"] is None else f"{g['precision']:.2f}"
    r = "n/a" if g["recall"] is None else f"{g['recall']:.2f}"
    return (
        f"true summaries corrected {g['true_corrected']}/{g['true_n']}; "
        f"false corrections {g['false_lines']}/{g['lines']} lines; "
        f"recall {g['matched']}/{g['claims']} ({r}); precision {p}; "
        f"user lines naming a correction on a true summary {g['user_flags']}"
    )


def report(results: list[dict], half: str, detail: bool):
    by = defaultdict(list)
    for r in results:
        by[(r["half"], r["client"])].append(r)
    print(f"compact-guardian corrections, evaluation set ({half}): {len(results)} summaries")
    for h in ("tune", "tune2", "tune3", "heldout"):
        rs = [r for r in results if r["half"] == h]
        if not rs:
            continue
        print(f"\n[{h}] {fmt(aggregate(rs))}")
        for client in ("claude", "codex"):
            cs = by[(h, client)]
            if cs:
                print(f"  {client:7s} ({len(cs)}: {sum(r['verdict'] == 'true' for r in cs)} true, {sum(r['verdict'] == 'false' for r in cs)} false) {fmt(aggregate(cs))}")
    show = [r for r in results if r["half"] in ("tune", "tune2", "tune3") or detail]
    if not show:
        return
    print("\nPer class (true summaries: corrected/cases; false summaries' disproved claims: corrected/claims)")
    tc, fc = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0])
    for r in show:
        if r["verdict"] == "true":
            for c in r["classes"]:
                tc[c][0] += bool(r["lines"])
                tc[c][1] += 1
        for c in r["claims"]:
            fc[c["class"]][0] += c["matched"]
            fc[c["class"]][1] += 1
    print("  TRUE summaries, by class:")
    for c in sorted(tc):
        print(f"    {c:34s} {tc[c][0]}/{tc[c][1]} corrected")
    print("  FALSE claims, by class:")
    for c in sorted(fc):
        print(f"    {c:34s} {fc[c][0]}/{fc[c][1]} corrected")
    print("\nPer case (only cases with a false line or a missed claim):")
    for r in show:
        missed = [c for c in r["claims"] if not c["matched"]]
        if not r["false_lines"] and not missed and not r["user_flag"]:
            continue
        print(f"  {r['id']} ({r['client']}, {r['verdict']} summary, {r['bytes']} B, {', '.join(r['classes'])})")
        for l in r["false_lines"]:
            print(f"    FALSE LINE: {l[:300]}")
        for c in missed:
            print(f"    MISSED [{c['class']}] {c['claim'][:160]!r} (needles {c['needles']})")
        if r["user_flag"]:
            print(f"    USER LINE: {r['user'][:300]}")


def main():
    ap = argparse.ArgumentParser(description="Run the corrections evaluation set through the release binary.")
    ap.add_argument("half", nargs="?", default="tune", choices=["tune", "tune2", "tune3", "heldout", "all"])
    ap.add_argument("--detail", action="store_true", help="per-case detail for the held-out half too")
    ap.add_argument("--assert", dest="check", action="store_true", help="exit 1 when a true summary gets a correction")
    ap.add_argument("--bin", default=str(REPO / "target/release/compact-guardian"))
    ap.add_argument("--case", action="append", help="only these case ids")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every result to this file")
    a = ap.parse_args()
    if not Path(a.bin).is_file():
        raise SystemExit(f"eval: no binary at {a.bin} (cargo build --release)")
    from materialize import corpus_dir

    corpus_dir()  # stop at once, with the reason, when the corpus is missing
    cases = load_cases(a.half)
    if a.case:
        cases = [c for c in cases if c["id"] in a.case]
    try:
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            results = list(ex.map(lambda c: run_case(c, a.bin), cases))
    except SetError as e:
        raise SystemExit(f"eval: the set is wrong: {e}")
    report(results, a.half, a.detail)
    if a.json:
        Path(a.json).write_text(json.dumps(results, ensure_ascii=False, indent=1))
    if a.check:
        bad = [r["id"] for r in results if r["verdict"] == "true" and r["lines"]]
        if bad and (a.half in ("tune", "tune2", "tune3") or a.detail):
            print(f"\nASSERT: true summaries got corrections: {bad}")
        if bad:
            print(f"\nASSERT FAILED: {len(bad)} true summaries got a correction")
            sys.exit(1)


if __name__ == "__main__":
    main()
