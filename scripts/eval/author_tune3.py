"""Authors the TUNE3 half: `tests/fixtures/eval/tune3/tune3-cases.json`.

    python3 scripts/eval/author_tune3.py

A third tuning half, written to measure how far the corrections generalize beyond the phrasing
of tune and tune2 (and without looking at the held-out half). It reuses tune2's projects,
runners and scenario code (`author_tune2.py`, `tune2_worlds.py`: the states the record is put
in), but every claim and trap is worded anew (`tune3_phrases.py`: paraphrases, status lines and
tables with ✅, passive voice, nested bullets, bold labels), the narration is its own
(`compose_tune3.py`: other English prose, other Codex headings), and it adds scenarios of its
own: plans, questions and shell snippets that mention a passing run while the last run failed.
The languages lean on English, French, German and Spanish; other worlds come first.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

import author_tune2 as A  # noqa: E402
from materialize import REPO, SetError, materialize  # noqa: E402
from tune2_worlds import cmd_of, edit, run  # noqa: E402
from tune3_phrases import say  # noqa: E402

A.say = say  # tune2's scenarios, tune3's words

# ================================================================ tune3's own scenarios


def t_plan_ahead(w, lang, k):
    """A plan for what comes next names a green run; the last run failed."""
    t = w["tasks"]
    steps = [A.impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "One test is still red; I'll look at the fixture next."]]
    plan = f"Plan for the next turn:\n1. Fix the failing assertion in `{w['test_file']}`\n2. Re-run `{w['whole']}` until every test passes\n3. Mark “{t[0]}” as done and commit"
    return dict(steps=steps, claims=[], traps=[{"section": "next", "text": plan}], lang="en", classes=["plan_names_a_green_run"])


def t_question_open(w, lang, k):
    """A question to the user about a command, no claim; the run failed."""
    steps = [A.impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "Red again. Question for you before I change the fixture."]]
    q = f"Asked the user: should `{w['whole']}` pass without the seed data, or is the failure expected until the seed is updated? No answer yet."
    return dict(steps=steps, claims=[], traps=[{"section": ["pending", "current"][k % 2], "text": q}], lang="en", classes=["question_about_a_run"])


def t_snippet(w, lang, k):
    """A shell snippet (how to verify) in a code block says "passed"; the run failed."""
    steps = [A.impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "Not green yet."]]
    snip = f"To verify locally:\n```sh\n{w['whole']} && echo \"all tests passed\"\n```"
    return dict(steps=steps, claims=[], traps=[{"section": ["concepts", "next"][k % 2], "text": snip}], lang="en", classes=["shell_snippet"])


def t_red_then_green(w, lang, k):
    """The log of a failing run is quoted, then the fix and a green re-run (true claim)."""
    failing = run(w, "whole", fail=True)
    steps = [A.impl(w, lang, k), failing, edit(w), run(w, "whole"), ["reply", "Fixed; all green."]]
    log = "\n".join(A.log_lines(failing[3]).split("\n")[-3:])
    traps = [{"section": "errors", "text": say("log_block", lang, log=log)}]
    claims = [A.green(w, "whole", say("green", lang, k + 5, cmd=w["whole"], n=A.n_pass(w)), "current"), {"kind": "file_changed", "file": w["file"], "after": {"failing_run": w["whole"]}, "text": say("file_fixed", lang, k, file=w["file"]), "section": "files"}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["failing_run_later_fixed"])


def f_status_nested(w, lang, k):
    """A status line inside nested bullets says the work is complete; tasks are open."""
    t = w["tasks"]
    steps = [A.impl(w, lang, k), ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], edit(w), run(w, "whole"), ["reply", f"Moving on to {A.short_task(t[1])}."]]
    text = ["- Overall\n  - Status: complete ✅", "**Status:** complete — nothing left to do.", "- Progress\n  - all tasks are done"][k % 3]
    claims = [{"kind": "all_done", "text": text, "section": ["current", "problem"][k % 2], "class": "all_done_status_line"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["all_done_status_line"])


def f_passive_green(w, lang, k):
    """Passive voice: the tests were run and passed; the last run failed."""
    steps = [A.impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "One failure remains."]]
    text = ["The tests were run and passed.", "`{cmd}` has been run successfully.", "Tests have been executed; all of them pass."][k % 3].format(cmd=w["whole"])
    claims = [A.green(w, "whole", text, ["current", "problem"][k % 2], "passive_pass_claim")]
    return dict(steps=steps, claims=claims, traps=[], lang="en", classes=["passive_pass_claim"])


A.TRUE_SCEN = [t_plan_ahead, t_question_open, t_snippet, t_red_then_green] + [s for s in A.TRUE_SCEN if s not in (A.t_latest_translated, A.t_plan_title, A.t_up_to)]
A.FALSE_SCEN = [f_status_nested, f_passive_green] + [s for s in A.FALSE_SCEN if s is not A.f_up_to_false]
A.PER_CLIENT = 28
A.LANGS = ["en", "en", "fr", "en", "de", "en", "es", "en", "ja", "en", "fr", "en", "zh", "en", "de", "es"]
A.WORLD_ORDER = ["bun", "php", "elixir", "gradle", "tsmono", "rails", "nextest", "flask", "dotnet", "django", "gocli", "ctest", "maven", "pantry"]
A.CLAUDE_SHAPES = [
    {"wrap": "prefix", "headings": "bold"},
    {"wrap": "tags", "headings": "h3"},
    {"wrap": "bare", "headings": "markdown"},
    {"wrap": "summary_only", "headings": "bold"},
    {"wrap": "tags", "headings": "numbered"},
]
A.CODEX_SHAPES = [
    {"codex_layout": "ledger", "codex_style": "bold"},
    {"codex_layout": "status", "codex_style": "markdown"},
    {"codex_layout": "ledger", "codex_style": "plain", "codex_title": "Handoff for whoever continues this session."},
    {"codex_layout": "status", "codex_style": "bold"},
    {"codex_layout": "brief", "codex_style": "plain"},
]
for pool in A.BASES.values():  # the same corpus, taken in another order
    pool[:] = pool[len(pool) // 2 :] + pool[: len(pool) // 2]


def main():
    cases = A.build()
    picker = A.Picker()
    bad = []
    counts = {}
    out_cases = []
    last = ""
    for c in cases:
        c["id"] = "tune3-" + c["id"][len("tune2-") :]
        c["half"] = "tune3"
        ok = False
        for attempt in range(6):
            A.place(c, picker, min(attempt, 1))
            try:
                m = materialize(c)
                ok = True
                break
            except SetError as e:
                if "bytes, outside" in str(e):
                    last = str(e)
                    continue
                bad.append(str(e))
                break
        if not ok:
            if not bad or c["id"] not in bad[-1]:
                bad.append(f"{c['id']}: no base gave a summary of the right length ({last})")
            continue
        key = (c["client"], m["label"]["verdict"])
        counts[key] = counts.get(key, 0) + 1
        for f in ("half", "_clean", "_n"):
            del c[f]
        ordered = {k: c[k] for k in ("id", "client", "base", "cut", "lang", "trigger", "shape", "concepts", "stack", "expect", "classes") if k in c}
        ordered.update({k: v for k, v in c.items() if k not in ordered})
        out_cases.append(ordered)
    if bad:
        for b in bad:
            print("BAD", b)
        raise SystemExit(1)
    ids = [c["id"] for c in out_cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SystemExit(f"duplicate case ids: {sorted(dup)}")
    out = REPO / "tests/fixtures/eval/tune3/tune3-cases.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    about = "The TUNE3 half of the corrections evaluation set (issue #38): a third tuning half, worded apart from tune and tune2 (paraphrased claims, status lines, nested bullets, bold labels, passive voice; plans, questions and snippets as traps). Authored by scripts/eval/author_tune3.py; see tests/fixtures/eval/README.md."
    out.write_text(json.dumps({"about": about, "cases": out_cases}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(out_cases)} cases -> {out}: {counts}")


if __name__ == "__main__":
    main()
