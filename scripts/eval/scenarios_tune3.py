"""The TUNE3 half's scenarios (`python3 scripts/eval/author.py tune3` writes
`tests/fixtures/eval/tune3/tune3-cases.json`).

A third tuning half, written to measure how far the corrections generalize beyond the phrasing
of tune and tune2 (and without looking at the held-out half). It reuses tune2's projects,
runners and scenario code (`scenarios_tune2.py`: the states the record is put in), but every
claim and trap is worded anew (`data/tune3.json`'s phrases: paraphrases, status lines and
tables with ✅, passive voice, nested bullets, bold labels; prompts and the few keys not
written there are tune2's, the users' words rather than the summary's), the narration is its
own (tune3's voice: other English prose, other Codex headings), and it adds scenarios of its
own: plans, questions and shell snippets that mention a passing run while the last run failed.
The languages lean on English, French, German and Spanish; other worlds come first.
"""

from __future__ import annotations

import author
import scenarios_tune2 as A
from scenarios_tune2 import edit, finish, place, run  # noqa: F401 (place, finish: the engine's)

ABOUT = "The TUNE3 half of the corrections evaluation set (issue #38): a third tuning half, worded apart from tune and tune2 (paraphrased claims, status lines, nested bullets, bold labels, passive voice; plans, questions and snippets as traps). Authored by `scripts/eval/author.py tune3`; see tests/fixtures/eval/README.md."
D = author.data("tune3")
P = D["phrases"]
tune2_say = A.say


def say(key: str, lang: str, k: int = 0, **fields) -> str:
    entry = P.get(key)
    bank = (entry.get(lang) or entry.get("en")) if entry else None
    if bank is None or (entry and lang not in entry and key in A.P and lang in A.P[key]):
        return tune2_say(key, lang, k, **fields)
    text = bank[k % len(bank)] if isinstance(bank, list) else bank
    if "task" in fields and "task_l" not in fields:
        t = fields["task"]
        fields["task_l"] = t[:1].lower() + t[1:]
    return text.format(**fields)


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
for pool in A.BASES.values():  # the same corpus, taken in another order
    pool[:] = pool[len(pool) // 2 :] + pool[: len(pool) // 2]
A.PER_CLIENT = D["per_client"]
A.LANGS = D["langs"]
A.WORLD_ORDER = D["world_order"]
A.CLAUDE_SHAPES = D["claude_shapes"]
A.CODEX_SHAPES = D["codex_shapes"]


def build() -> list[dict]:
    cases = A.build()
    for c in cases:
        c["id"] = "tune3-" + c["id"][len("tune2-") :]
    return cases
