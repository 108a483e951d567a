"""The TUNE2 half's scenarios (`python3 scripts/eval/author.py tune2` writes
`tests/fixtures/eval/tune2/tune2-cases.json`).

A second tuning half, written apart from the tune half and without looking at the held-out
one: its own fourteen projects (`data/tune2.json`'s worlds: Flask, a Go CLI, a pnpm/turbo
monorepo, Maven, Gradle, Django, Rails with RSpec and with Minitest, a cargo-nextest workspace,
CMake/CTest, Elixir, PHP, .NET, Bun, with the code the agent reads), their runners' real output
(`tune2_outputs.py`), its own wording of claims, traps and prompts in nine languages (its
phrases), its own narration (`compose.Prose`) and its own mix of base transcripts and cut
points. tune3 runs these scenarios with its own wording (`scenarios_tune3.py`).

Each scenario writes the steps that put the record in a known state, the claims the summary
makes (with their subjects) and the sentences that are no claims (traps).

    run(w, which, fail)   -> ["run", cmd, exit, text]   which: whole | narrow | entry
"""

from __future__ import annotations

import hashlib

import author
import compose
import reader
from materialize import SetError, base_lines
from tune2_outputs import git_commit_ok, git_gpg_fail, git_hook_commitlint, git_hook_lint_staged, git_nothing, git_push_non_ff, git_push_ok, git_push_protected, just_wrap, render

ABOUT = "The TUNE2 half of the corrections evaluation set (issue #38): a second tuning half, authored separately from tune (its own projects, runners, wording, narration and bases). Authored by `scripts/eval/author.py tune2`; see tests/fixtures/eval/README.md."
D = author.data("tune2")
# How a project's own test entry point wraps its runner's (exit code, output).
ENTRY_WRAP = {
    "flask": lambda inner: just_wrap("poetry run pytest -q", "test", 7, inner),
    "gocli": lambda inner: (201 if inner[0] else 0, "task: [test] go test -race ./...\n" + inner[1] + ("\ntask: Failed to run task \"test\": exit status 1" if inner[0] else "")),
    "tsmono": lambda inner: (inner[0], "\n> atlas@ test /home/dev/atlas\n> turbo run test\n\n" + inner[1] + ("\n ELIFECYCLE  Test failed. See above for more details." if inner[0] else "")),
    "gradle": lambda inner: inner if inner[0] else (0, inner[1].replace("BUILD SUCCESSFUL in 11s", "> Task :core:detekt\n> Task :core:check\n\nBUILD SUCCESSFUL in 14s")),
    "django": lambda inner: (inner[0], "nox > Running session tests\nnox > Creating virtual environment (virtualenv) using python3.12 in .nox/tests\nnox > python -m pip install -r requirements/test.txt\nnox > python manage.py test\n" + inner[1] + ("\nnox > Command python manage.py test failed with exit code 1\nnox > Session tests failed." if inner[0] else "\nnox > Session tests was successful.")),
    "rails": lambda inner: (inner[0], inner[1] + ("\n/usr/local/bin/ruby -I/usr/local/bundle/gems/rspec-core-3.13.2/lib:/usr/local/bundle/gems/rspec-support-3.13.1/lib /usr/local/bundle/gems/rspec-core-3.13.2/exe/rspec --pattern spec/\\*\\*\\{,/\\*/\\*\\*\\}/\\*_spec.rb failed" if inner[0] else "")),
    "nextest": lambda inner: just_wrap("cargo nextest run --workspace", "test", 4, inner),
    "bun": lambda inner: (inner[0], "$ tsc --noEmit && bun test\n" + inner[1] + ("\nerror: script \"check\" exited with code 1" if inner[0] else "")),
}
WORLDS = D["worlds"]
for _name, _w in WORLDS.items():
    if _name in ENTRY_WRAP:
        _w["entry_wrap"] = ENTRY_WRAP[_name]
    _w["name"] = _name
    _w["source"] = D["source"][_name]
    _w["manifest"] = D["manifest"][_name]
P = D["phrases"]
LANGS = D["langs"]
WORLD_ORDER = D["world_order"]
BASES = {group: [tuple(b) for b in pool] for group, pool in D["bases"].items()}
RENAMES = D["renames"]
EXC = D["exc"]
PER_CLIENT = D["per_client"]  # true and false summaries, each, per client
CLAUDE_SHAPES = D["claude_shapes"]
CODEX_SHAPES = D["codex_shapes"]
SHORT_FOR_CLAUDE = {tuple(b) for b in D["short_for_claude"]}


def cmd_of(w: dict, which: str) -> str:
    if which == "entry" and w.get("entry"):
        return w["entry"]
    return w["whole"] if which in ("whole", "entry") else w["narrow"]


def run(w: dict, which: str, fail=False, flaky: bool = False, passed: int | None = None) -> list:
    """A run of the world's tests: the whole suite, a narrower one, or the project's own entry
    point (the whole suite when it has none). `fail`: the world's own failing test; `flaky`:
    another, unrelated test failing instead."""
    cmd = cmd_of(w, which)
    n_whole, n_narrow = w["n"]
    n = passed if passed is not None else (n_narrow if which == "narrow" else n_whole)
    failed = w["flaky"] if flaky else (w["fail"] if fail else [])
    if not failed and passed is None:
        n += len(w["fail"])  # the same suite, its failing test now passing
    if which == "narrow" and flaky:
        raise ValueError("the flaky test is outside the narrow run")
    detail = dict(w.get("detail", {}))
    if flaky:
        detail.update(w.get("flaky_detail", {}))
    if which == "narrow":
        detail.update(w.get("narrow_detail", {}))
    if which in ("whole", "entry"):
        detail.update(w.get("whole_detail", {}))
    runner = w.get("narrow_runner", w["runner"]) if which == "narrow" else w["runner"]
    if which == "entry" and w.get("entry"):
        runner = w.get("entry_runner", runner)
    code, text = render(runner, n, failed, detail)
    if which == "entry" and w.get("entry") and w.get("entry_wrap"):
        code, text = w["entry_wrap"]((code, text))
    return ["run", cmd, code, text]


def edit(w: dict) -> list:
    return ["edit", w["file"], w["old"], w["new"]]


def reads(w: dict) -> list:
    return [["read", *w["manifest"]], ["read", *w["source"]]]


def say(key: str, lang: str, k: int = 0, **fields) -> str:
    bank = P[key].get(lang) or P[key]["en"]
    text = bank[k % len(bank)] if isinstance(bank, list) else bank
    if "task" in fields and "task_l" not in fields:
        t = fields["task"]
        fields["task_l"] = t[:1].lower() + t[1:]
    return text.format(**fields)

def _h(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:8], 16)


def sha_of(s: str) -> str:
    return hashlib.sha1(s.encode()).hexdigest()[:7]


def nd(cmd: str) -> list[str]:
    return [cmd] + ([cmd[2:]] if cmd.startswith("./") else [])


def green(w, which, text, section, cls=None) -> dict:
    cmd = cmd_of(w, which)
    c = {"kind": "tests_pass", "cmd": [cmd], "exact": True, "needles": nd(cmd), "text": text, "section": section}
    if cls:
        c["class"] = cls
    return c


def n_pass(w, which="whole") -> int:
    return (w["n"][1] if which == "narrow" else w["n"][0]) + len(w["fail"])


def impl(w, lang, k, task=None, which="whole") -> list:
    return ["prompt", say("impl", lang, k, task=task or w["tasks"][0], file=w["file"], cmd=cmd_of(w, which))]


def short_task(t: str) -> str:
    return t[:1].lower() + t[1:]


def log_lines(text: str, n: int = 9) -> str:
    keep = [l for l in text.split("\n") if l.strip() and not l.startswith(("[INFO] ---", "[INFO] Scanning", "[INFO]   from", "[INFO] Building", "[INFO] Using"))]
    return "\n".join(keep[-n:])


# ================================================================ TRUE scenarios


def t_questions(w, lang, k):
    t = w["tasks"]
    forms = [("1) ", "2) "), ("Q1. ", "Q2. "), ("(1) ", "(2) ")]
    a, b = forms[k % 3]
    qs = f"{a}{say('q_scope', lang, task=t[1])}\n{b}{say('q_doc', lang, doc=w['doc'])}"
    steps = [impl(w, lang, k), ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], edit(w), run(w, "whole"), ["tasks", [[t[0], "completed"], [t[1], "pending"]]], ["reply", say("ask_intro", lang) + "\n" + qs]]
    traps = [{"section": ["current", "next"][k % 2], "text": say("wait_answers", lang, q=qs)}]
    claims = [green(w, "whole", say("green", lang, k, cmd=w["whole"], n=n_pass(w)), "problem")]
    return dict(steps=steps, claims=claims, traps=traps, classes=["numbered_questions"])


def t_recap(w, lang, k):
    t = w["tasks"]
    lines = say("recap_lines", lang, task=t[0], file=w["file"], test=w["test_file"], doc=w["doc"]).split("\n")
    recap = "\n".join(f"{i}) {l}" for i, l in enumerate(lines, 1))
    steps = [
        impl(w, lang, k),
        ["tasks", [[t[0], "in_progress"], [t[1], "pending"], [t[2], "pending"]]],
        edit(w),
        ["write", w["test_file"], w["test_code"]],
        ["edit", w["doc"], w["doc_old"], w["doc_new"]],
        run(w, "whole"),
        ["tasks", [[t[0], "completed"], [t[1], "completed"], [t[2], "completed"]]],
        ["reply", say("recap_intro", lang) + "\n" + recap],
    ]
    traps = [{"section": "current", "text": say("recap", lang, q=recap)}]
    claims = [{"kind": "all_done", "text": say("all_done", lang, k), "section": ["current", "pending"][k % 2]}, green(w, "whole", say("green", lang, k + 1, cmd=w["whole"], n=n_pass(w)), "problem")]
    return dict(steps=steps, claims=claims, traps=traps, classes=["numbered_recap", "all_done_true"], clean_base=True)


def t_steering(w, lang, k):
    msg = say("steer_msg", lang, cmd=w["whole"])
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["prompt", msg], ["reply", "Understood. One test still fails; I'm on it."]]
    traps = [{"section": "pending", "text": say("steer_pending", lang, cmd=w["whole"], q=msg)}, {"section": "next", "text": say("steer_next", lang, q=msg)}]
    return dict(steps=steps, claims=[], traps=traps, classes=["steering_quote"])


def t_conditions(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "Still one failure; the fixture data looks stale."]]
    traps = [{"section": "next", "text": say("cond_merge", lang, cmd=w["whole"])}, {"section": "pending", "text": say("cond_tag", lang, ver=w["ver"])}, {"section": "problem", "text": say("cond_should", lang, cmd=w["whole"])}]
    return dict(steps=steps, claims=[], traps=traps, classes=["conditions"])


def t_intent(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "One test still fails."]]
    traps = [{"section": "request", "text": say("intent_aim", lang, cmd=w["whole"])}, {"section": "problem", "text": say("intent_goal", lang, cmd=w["whole"])}, {"section": "concepts", "text": say("intent_def", lang)}]
    return dict(steps=steps, claims=[], traps=traps, classes=["intent_sentences"])


def t_passfail(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "Almost there: one failure left."]]
    key = "passfail_table" if k % 2 == 0 else "passfail_lines"
    traps = [{"section": "current", "text": say(key, lang, cmd=w["whole"], p=w["n"][0], fail=w["fail"][0])}]
    return dict(steps=steps, claims=[], traps=traps, classes=["pass_and_fail_lines"])


def t_tdd_red(w, lang, k):
    steps = [impl(w, lang, k, which="narrow"), run(w, "whole", passed=w["n"][0]), ["write", w["test_file"], w["test_code"]], run(w, "narrow", fail=True), ["reply", "Red as expected. Next: the fix."]]
    claims = [green(w, "whole", say("past_green", lang, cmd=w["whole"], n=w["n"][0]), "problem")]
    traps = [{"section": "current", "text": say("tdd_red", lang)}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["narrow_vs_whole", "past_tense_claim"])


def t_flaky_narrow(w, lang, k):
    p = impl(w, lang, k, which="narrow")
    p[1] += say("ignore_flaky", lang, flaky=w["flaky"][0])
    steps = [p, run(w, "whole", flaky=True), edit(w), run(w, "narrow"), ["reply", "The narrow run is green; the full run only has the known flaky failure."]]
    claims = [green(w, "narrow", say("narrow_green", lang, cmd=w["narrow"], n=n_pass(w, "narrow")), "current")]
    traps = [{"section": "errors", "text": say("flaky_note", lang, cmd=w["whole"], flaky=w["flaky"][0])}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["narrow_vs_whole"])


def t_runner_mention(w, lang, k):
    mcmd, mcode, mout = w["mention"]
    msg = f"{w['msg']} (checked with {w['whole']})"
    p = impl(w, lang, k)
    p[1] += say("commit_tail", lang)
    steps = [p, edit(w), run(w, "whole"), ["run", mcmd, mcode, mout], ["run", f"git commit -am \"{msg}\"", 0, git_commit_ok("main", sha_of(msg), msg)], ["reply", "Committed."]]
    claims = [green(w, "whole", say("green", lang, k, cmd=w["whole"], n=n_pass(w)), "current"), {"kind": "committed", "what": "commit", "text": say("committed", lang, k, msg=msg, branch="main"), "section": "current"}]
    traps = [{"section": "problem", "text": say("mention_note", lang, mcmd=mcmd, code=mcode)}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["runner_mention_not_a_run"])


def t_nothing(w, lang, k):
    p = impl(w, lang, k)
    p[1] += say("commit_tail", lang)
    sha = sha_of(w["msg"] + "n")
    steps = [p, edit(w), run(w, "whole"), ["run", f"git commit -am \"{w['msg']}\"", 0, git_commit_ok("main", sha, w["msg"])], ["run", "git commit -am \"fixup\"", 1, git_nothing("main")], ["run", "git status --short", 0, ""], ["reply", f"Already committed in {sha}; the tree is clean."]]
    claims = [{"kind": "committed", "what": "commit", "text": say("committed", lang, k + 2, msg=w["msg"], branch="main"), "section": "current"}]
    traps = [{"section": "problem", "text": say("nothing_note", lang, sha=sha)}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["nothing_to_commit"])


def t_sed_script(w, lang, k):
    cfg, cmd = w["config"]
    tool = "perl -pi" if cmd.startswith("perl") else "sed -i"
    steps = [["prompt", say("config_prompt", lang, file=cfg)], ["run", cmd, 0, ""], ["run", "python3 scripts/sync_env.py", 0, "reading settings from " + cfg + "\nupdated .env.example\nupdated docs/configuration.md\n2 files rewritten"], ["run", "git diff --stat", 0, f" .env.example            | 2 +-\n {cfg} | 2 +-\n docs/configuration.md   | 2 +-\n 3 files changed, 3 insertions(+), 3 deletions(-)"], ["reply", "Done: default changed and the env example regenerated."]]
    claims = [{"kind": "file_changed", "file": cfg, "text": say("cfg_changed", lang, file=cfg, tool=tool), "section": "files"}, {"kind": "file_changed", "file": ".env.example", "text": say("script_changed", lang), "section": ["files", "problem"][k % 2]}]
    return dict(steps=steps, claims=claims, traps=[], classes=["sed_or_script_edit"], no_reads=True)


def t_quote_part(w, lang, k):
    p = impl(w, lang, k)
    p[1] += " " + say("constraints", lang)
    steps = [p, edit(w), run(w, "whole"), ["reply", f"Only `{w['file']}` changed."]]
    traps = [{"section": "request", "text": say("constraint_quote", lang)}, {"section": "next", "text": say("report_quote", lang)}]
    claims = [green(w, "whole", say("green", lang, k, cmd=w["whole"], n=n_pass(w)), "current")]
    return dict(steps=steps, claims=claims, traps=traps, classes=["quotes_part_of_prompt"])


def t_log_fixed(w, lang, k):
    failing = run(w, "whole", fail=True)
    log = log_lines(failing[3])
    steps = [["prompt", say("log_prompt", lang, log=log)], failing, edit(w), run(w, "whole"), ["reply", "Fixed; green again."]]
    short = "\n".join(log.split("\n")[-4:])
    traps = [{"section": "errors", "text": say("log_block", lang, log=short)}]
    claims = [green(w, "whole", say("green", lang, k + 1, cmd=w["whole"], n=n_pass(w)), "current")]
    return dict(steps=steps, claims=claims, traps=traps, classes=["quotes_a_log"])


def t_pending_listed(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], edit(w), run(w, "whole"), ["reply", f"First one done; starting on {short_task(t[1])}."]]
    st = {"en": ("in progress", "not started"), "fr": ("en cours", "pas commencée"), "pt": ("em andamento", "não iniciada"), "it": ("in corso", "da iniziare"), "de": ("in Arbeit", "nicht begonnen"), "es": ("en curso", "sin empezar"), "zh": ("进行中", "未开始"), "ja": ("対応中", "未着手"), "ko": ("진행 중", "시작 전")}[lang]
    block = f"☐ {t[1]} ({st[0]})\n☐ {t[2]} ({st[1]})" if k % 2 == 0 else f"1. {t[1]} — {st[0]}\n2. {t[2]} — {st[1]}"
    traps = [{"section": "pending", "text": block}]
    claims = [{"kind": "task_done", "task": t[0], "text": say("task_done", lang, k, task=t[0]), "section": "problem"}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["tasks_under_pending"], shape={"pending_list": False})


def t_pending_para(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], edit(w), ["reply", "First task done."]]
    traps = [{"section": "pending", "text": say("pending_para", lang, a=short_task(t[1]), b=short_task(t[2]))}]
    claims = [{"kind": "task_done", "task": t[0], "text": say("table_task", lang, task=t[0]), "section": ["problem", "current"][k % 2]}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["tasks_under_pending", "status_table"], shape={"pending_list": False})


def t_long_code(w, lang, k):
    big = w["test_code"] + "".join(f"\n// case {i}: boundary value {i * 7} must round-trip unchanged through parse and render\n" for i in range(24))
    steps = [impl(w, lang, k, task=w["tasks"][1]), ["write", w["test_file"], big], run(w, "whole"), ["reply", "Added the cases; green."]]
    claims = [green(w, "whole", say("green", lang, k, cmd=w["whole"], n=n_pass(w)), "current")]
    return dict(steps=steps, claims=claims, traps=[], classes=["long_code"], shape={"code_lines": 80})


def t_up_to(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), edit(w), run(w, "whole"), ["reply", "Green."], ["prompt", say("followup", lang, task=t[1])], ["write", w["test_file"], w["test_code"]], run(w, "whole", fail=True)]
    claims = [green(w, "whole", say("green", lang, k, cmd=w["whole"], n=n_pass(w)), "current")]
    return dict(steps=steps, claims=claims, traps=[], classes=["span_of_precomputed_summary"], save_at=4, shape={"variant": "up_to"}, only="claude")


def t_fixed_then_passing(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], run(w, "whole", fail=True), edit(w), run(w, "whole"), ["tasks", [[t[0], "completed"], [t[1], "pending"]]], ["reply", "Fixed and green."]]
    claims = [
        green(w, "whole", say("green", lang, k + 2, cmd=w["whole"], n=n_pass(w)), "current"),
        {"kind": "task_done", "task": t[0], "text": say("task_done", lang, k + 1, task=t[0]), "section": "problem"},
        {"kind": "file_changed", "file": w["file"], "after": {"failing_run": w["whole"]}, "text": say("file_fixed", lang, k, file=w["file"]), "section": "files"},
    ]
    cls = ["fixed_then_passing"] + ([f"{lang}_summary"] if lang != "en" else [])
    return dict(steps=steps, claims=claims, traps=[], classes=cls)


def t_recent(w, lang, k):
    d = t_fixed_then_passing(w, lang, k)
    d.update(classes=["partial_summary_span"], shape={"variant": "recent"}, only="claude")
    return d


def t_edit_retry(w, lang, k, client="claude"):
    err = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it." if client == "claude" else f"apply_patch verification failed: Failed to find expected lines in {w['file']}"
    steps = [impl(w, lang, k), ["edit_fail", w["file"], w["old"], w["new"], err], ["read", *w["source"]], edit(w), run(w, "whole"), ["reply", "Second attempt applied; tests pass."]]
    claims = [{"kind": "file_changed", "file": w["file"], "text": say("file_fixed", lang, k + 2, file=w["file"]), "section": "files"}]
    traps = [{"section": "errors", "text": say("retry_note", lang, file=w["file"], err=err.split(",")[0].split(":")[0])}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["failed_edit_then_retried"])


def t_latest_translated(w, lang, k):
    if lang == "en":
        lang = ["fr", "pt", "it", "de"][k % 4]
    old, new = RENAMES[w["name"]]
    en = say("late_prompt_en", "en", old=old, new=new)
    steps = [impl(w, "en", k), edit(w), run(w, "whole"), ["reply", "Done, green."], ["prompt", en], ["reply", "On it."]]
    return dict(steps=steps, claims=[], traps=[], latest_as=say("late_prompt", lang, old=old, new=new), lang=lang, classes=["translated_latest_prompt"])


def t_latest_log(w, lang, k):
    exc = EXC[w["name"]]
    trace = f"{exc}\n  at {w['file']}:{17 + k % 20}\n  at handler ({w['source'][0]})\n  ... 14 more"
    steps = [impl(w, lang, k), edit(w), run(w, "whole"), ["reply", "Done."], ["prompt", f"seeing this in prod since the deploy:\n```\n{trace}\n```\nwhat's going on?"], ["reply", "Looking."]]
    return dict(steps=steps, claims=[], traps=[], latest_as=say("log_desc", lang, exc=exc.split(":")[0], file=w["file"]), classes=["quotes_a_log"])


def t_plan_title(w, lang, k):
    lang = ["zh", "ja", "ko"][k % 3]
    t = w["tasks"]
    title = say("plan_title", lang, project=w["project"])
    md = f"## {title}\n\n1. {t[0]}\n2. {t[1]}\n3. `{w['whole']}`"
    steps = [impl(w, lang, k), ["plan", md], edit(w), ["reply", "Plan approved; step 1 done."]]
    traps = [{"section": "request", "text": say("plan_trap", lang, title=title, a=t[0], b=t[1], cmd=w["whole"])}]
    return dict(steps=steps, claims=[], traps=traps, lang=lang, classes=["plan_title_non_latin"], only="claude")


def t_baseline(w, lang, k):
    ok = run(w, "whole")
    CW = compose.voice("tune2")["words"]

    steps = [impl(w, lang, k), ok, edit(w), run(w, "whole", fail=True), ["reply", "The refactor broke one test."]]
    traps = [{"section": "problem", "text": say("baseline_note", lang, cmd=w["whole"], result=compose.result_of(ok[3], 0, CW.get(lang, CW["en"])))}]
    return dict(steps=steps, claims=[], traps=traps, classes=["past_tense_earlier_run"])


def t_boxes_all(w, lang, k):
    t = w["tasks"]
    box = "\n".join(f"{i}. [x] {x}" for i, x in enumerate(t, 1)) if k % 2 == 0 else "\n".join(f"☑ {x}" for x in t)
    steps = [impl(w, lang, k), edit(w), ["write", w["test_file"], w["test_code"]], ["edit", w["doc"], w["doc_old"], w["doc_new"]], run(w, "whole"), ["reply", "Checklist:\n" + box]]
    claims = [{"kind": "all_done", "boxes": "any", "text": say("all_done", lang, k + 1), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["numbered_boxes", "all_done_true"], clean_base=True)


def t_count_true(w, lang, k):
    t = w["tasks"]
    box = f"☑ {t[0]}\n☐ {t[1]}\n☐ {t[2]}" if k % 2 == 0 else f"1. [x] {t[0]}\n2. [ ] {t[1]}\n3. [ ] {t[2]}"
    steps = [impl(w, lang, k), edit(w), run(w, "whole"), ["reply", "Where we are:\n" + box]]
    claims = [{"kind": "checklist_count", "count": 2, "boxes": "any", "text": say("count_two", lang, a=t[1], b=t[2]), "section": "pending"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["checklist_count_true", "numbered_boxes"])


def t_commit_push(w, lang, k):
    p = impl(w, lang, k)
    p[1] += say("push_tail", lang)
    sha = sha_of(w["msg"] + "p")
    steps = [p, edit(w), run(w, "whole"), ["run", f"git checkout -b {w['branch']}", 0, f"Switched to a new branch '{w['branch']}'"], ["run", f"git commit -am \"{w['msg']}\"", 0, git_commit_ok(w["branch"], sha, w["msg"])], ["run", f"git push -u origin {w['branch']}", 0, git_push_ok(w["branch"], w["repo"], "", sha, new_branch=True)], ["reply", "Pushed."]]
    claims = [{"kind": "committed", "what": "commit", "text": say("committed", lang, k, msg=w["msg"], branch=w["branch"]), "section": "current"}, {"kind": "committed", "what": "push", "text": say("pushed", lang, k, branch=w["branch"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["commit_and_push"])


def t_gotcha(w, lang, k):
    which = "entry" if w.get("entry") else "whole"
    cmd = cmd_of(w, which)
    steps = [impl(w, lang, k, which=which), edit(w), ["run", cmd, 1, "Error: could not connect to database at 127.0.0.1:5432 (connection refused)\nIs the container running? Try: docker compose up -d db"], ["run", "docker compose up -d db", 0, " ✔ Container %s-db-1  Started" % w["project"].lower()], run(w, which), ["reply", "Green once the database was up."]]
    claims = [green(w, which, say("green", lang, k, cmd=cmd, n=n_pass(w)), "current")]
    traps = [{"section": "concepts", "text": say("gotcha", lang, cmd=cmd)}]
    return dict(steps=steps, claims=claims, traps=traps, classes=["gotcha_note"], needs="db")


def t_user_claim(w, lang, k):
    msg = say("user_claim_msg", lang)
    steps = [["prompt", msg], run(w, "whole", fail=True), ["reply", "Reproduced locally with a clean database: one test fails."]]
    traps = [{"section": "request", "text": say("user_claim_req", lang, q=msg)}]
    return dict(steps=steps, claims=[], traps=traps, classes=["quoted_user_claim"])


# ================================================================ FALSE scenarios


def f_entry(w, lang, k):
    steps = [impl(w, lang, k, which="entry"), edit(w), run(w, "entry", fail=True), ["reply", "Looking at the failure."]]
    claims = [green(w, "entry", say("green", lang, k, cmd=w["entry"], n=n_pass(w)), ["current", "problem", "analysis", "current"][k % 4], "project_test_script")]
    return dict(steps=steps, claims=claims, traps=[], classes=["project_test_script"], needs="entry")


def f_runner_plain(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "One failure; checking the assertion."]]
    claims = [green(w, "whole", say("green", lang, k + 3, cmd=w["whole"], n=n_pass(w)), ["current", "analysis", "next"][k % 3], "test_runner")]
    return dict(steps=steps, claims=claims, traps=[], classes=["test_runner"])


def f_runner_errors(w, lang, k):
    exc = EXC[w["name"]].split(":")[0]
    steps = [impl(w, lang, k), run(w, "whole", fail=True), edit(w), run(w, "whole", fail=True), ["reply", "The edit did not fix it."]]
    claims = [green(w, "whole", say("errors_green", lang, err=exc, file=w["file"], cmd=w["whole"]), "errors", "claim_in_errors_section")]
    return dict(steps=steps, claims=claims, traps=[], classes=["claim_in_errors_section"])


def f_runner_prose(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "Still red."]]
    claims = [green(w, "whole", say("prose_green", lang, cmd=w["whole"]), ["problem", "current"][k % 2], "claim_in_prose")]
    return dict(steps=steps, claims=claims, traps=[], classes=["claim_in_prose"])


def f_runner_table(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "One failing test left."]]
    claims = [green(w, "whole", say("table_green", lang, cmd=w["whole"]), ["current", "problem"][k % 2], "claim_in_table")]
    return dict(steps=steps, claims=claims, traps=[], classes=["claim_in_table"])


def f_bare(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "Not there yet."]]
    claims = [green(w, "whole", say("green_bare", lang, k, n=n_pass(w)), ["current", "problem"][k % 2], "claim_without_command")]
    return dict(steps=steps, claims=claims, traps=[], classes=["claim_without_command"])


def f_all_done(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), ["tasks", [[t[0], "in_progress"], [t[1], "pending"], [t[2], "pending"]]], edit(w), run(w, "whole"), ["tasks", [[t[0], "completed"], [t[1], "pending"], [t[2], "pending"]]], ["reply", "First item done."]]
    claims = [{"kind": "all_done", "text": say("all_done", lang, k), "section": ["current", "pending"][k % 2], "class": "all_done_while_request_lists_open"}]
    return dict(steps=steps, claims=claims, traps=[], request=[f"{t[1]}.", f"{t[2]}."], classes=["all_done_while_request_lists_open"])


def _boxes(t, k):
    return f"1. [x] {t[0]}\n2. [ ] {t[1]}\n3. [ ] {t[2]}" if k % 2 == 0 else f"☑ {t[0]}\n☐ {t[1]}\n☐ {t[2]}"


def f_box_one(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), edit(w), run(w, "whole"), ["reply", "Progress:\n" + _boxes(t, k)]]
    claims = [{"kind": "checklist_done", "item": t[1], "boxes": "any", "needles": [t[1]], "text": say("task_done", lang, k + 1, task=t[1]), "section": "problem", "class": "open_box_called_done"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["open_box_called_done", "numbered_boxes"])


def f_box_count(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), edit(w), run(w, "whole"), ["reply", "Status:\n" + _boxes(t, k + 1)]]
    claims = [{"kind": "checklist_count", "count": 1, "boxes": "any", "needles": [t[1], t[2]], "text": say("count_one", lang, item=t[2]), "section": "pending"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["checklist_count", "numbered_boxes"])


def f_fixed_before(w, lang, k):
    if k % 2 == 0:
        steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "Still failing after the change."]]
    else:
        steps = [impl(w, lang, k), run(w, "whole", fail=True), ["reply", f"The failure comes from `{w['file']}`; fixing it next."], ["run", "git status --short", 0, "?? notes.txt"]]
    base = w["file"].rsplit("/", 1)[-1]
    claims = [{"kind": "file_changed", "file": w["file"], "after": {"failing_run": w["whole"]}, "needles": [base], "text": say("file_fixed", lang, k, file=w["file"]), "section": ["files", "problem", "errors"][k % 3], "class": "fixed_without_an_edit"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["fixed_without_an_edit"])


def f_task_open(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], edit(w), ["reply", f"Working on {short_task(t[1])}."]]
    claims = [{"kind": "task_done", "task": t[1], "needles": [t[1]], "text": say("task_done", lang, k + 2, task=t[1]), "section": ["problem", "current", "files"][k % 3], "class": "open_task_called_done"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["open_task_called_done"])


def f_commit_fail(w, lang, k):
    p = impl(w, lang, k)
    p[1] += say("commit_tail", lang)
    kind = k % 3
    if kind == 0:
        cmd, out = "git commit -am \"wip\"", git_hook_commitlint("wip")
    elif kind == 1:
        cmd, out = f"git commit -am \"{w['msg']}\"", git_hook_lint_staged(w["file"])
    else:
        cmd, out = f"git commit -S -am \"{w['msg']}\"", git_gpg_fail()
    steps = [p, edit(w), run(w, "whole"), ["run", cmd, 1, out], ["reply", "The commit did not go through."]]
    claims = [{"kind": "committed", "what": "commit", "needles": ["git commit"], "text": say("committed", lang, k, msg=w["msg"], branch="main"), "section": ["current", "problem"][k % 2], "class": "failed_commit_said_committed"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["failed_commit_said_committed"])


def f_push_fail(w, lang, k):
    p = impl(w, lang, k)
    p[1] += say("push_tail", lang)
    sha = sha_of(w["msg"] + "f")
    branch = "main" if k % 2 == 0 else w["branch"]
    out = git_push_protected(branch, w["repo"]) if k % 2 == 0 else git_push_non_ff(branch, w["repo"])
    steps = [p, edit(w), run(w, "whole"), ["run", f"git commit -am \"{w['msg']}\"", 0, git_commit_ok(branch, sha, w["msg"])], ["run", f"git push origin {branch}", 1, out], ["reply", "The push was refused."]]
    claims = [{"kind": "committed", "what": "commit", "text": say("committed", lang, k, msg=w["msg"], branch=branch), "section": "current"}, {"kind": "committed", "what": "push", "needles": ["git push"], "text": say("pushed", lang, k, branch=branch), "section": "current", "class": "failed_push_said_pushed"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["failed_push_said_pushed"])


def f_doc_failed(w, lang, k, client="claude"):
    t = w["tasks"]
    err = f"String to replace not found in file.\nString: {w['doc_old']}" if client == "claude" else f"apply_patch verification failed: Failed to find expected lines in {w['doc']}:\n{w['doc_old']}"
    steps = [impl(w, lang, k, task=t[2]), ["edit_fail", w["doc"], w["doc_old"], w["doc_new"], err], ["reply", "That section does not exist in the doc; I need to look for where it moved."]]
    base = w["doc"].rsplit("/", 1)[-1]
    claims = [{"kind": "file_changed", "file": w["doc"], "needles": [base], "text": say("doc_updated", lang, k, file=w["doc"]), "section": ["files", "current"][k % 2], "class": "failed_edit_said_changed"}]
    return dict(steps=steps, claims=claims, traps=[], classes=["failed_edit_said_changed"])


def f_late(w, lang, k):
    r = run(w, "whole", fail=True)
    steps = [impl(w, lang, k), edit(w), r + ["pending"], ["finish_pending"]]
    claims = [green(w, "whole", say("green", lang, k, cmd=w["whole"], n=n_pass(w)), "current", "result_written_after_precompact")]
    return dict(steps=steps, claims=claims, traps=[], classes=["result_written_after_precompact"], save_at=3, trigger="auto")


def f_multi(w, lang, k):
    t = w["tasks"]
    steps = [impl(w, lang, k), ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], edit(w), run(w, "whole", fail=True), ["run", "git diff --stat", 0, f" {w['file']} | 7 +++++--\n 1 file changed, 5 insertions(+), 2 deletions(-)"], ["reply", "One test still red."]]
    claims = [
        green(w, "whole", say("green", lang, k + 1, cmd=w["whole"], n=n_pass(w)), "current", "test_runner"),
        {"kind": "task_done", "task": t[0], "needles": [t[0]], "text": say("task_done", lang, k, task=t[0]), "section": "problem", "class": "open_task_called_done"},
        {"kind": "file_changed", "file": w["file"], "text": say("file_fixed", lang, k + 3, file=w["file"]), "section": "files"},
        {"kind": "tests_pass", "cmd": ["npm run test:e2e"], "exact": True, "text": "The end-to-end suite (`npm run test:e2e`) was run as well and passed.", "section": "problem"},
    ]
    return dict(steps=steps, claims=claims, traps=[], classes=["several_claims"])


def f_up_to_false(w, lang, k):
    steps = [impl(w, lang, k), edit(w), run(w, "whole", fail=True), ["reply", "One failure left."], ["prompt", say("ok_continue", lang)], ["run", "git status --short", 0, f" M {w['file']}"]]
    claims = [green(w, "whole", say("green", lang, k, cmd=w["whole"], n=n_pass(w)), "current", "precomputed_summary_false_in_its_span")]
    return dict(steps=steps, claims=claims, traps=[], classes=["precomputed_summary_false_in_its_span"], save_at=4, shape={"variant": "up_to"}, only="claude")


def f_narrow_then_whole(w, lang, k):
    steps = [impl(w, lang, k, which="narrow"), edit(w), run(w, "narrow"), run(w, "whole", flaky=True), ["reply", "Narrow run green; the full run has a failure elsewhere."]]
    claims = [green(w, "whole", say("whole_green_now", lang, k, cmd=w["whole"]), ["current", "problem"][k % 2], "whole_suite_claim_after_narrow_pass")]
    return dict(steps=steps, claims=claims, traps=[], classes=["whole_suite_claim_after_narrow_pass"])


def f_stale(w, lang, k):
    steps = [impl(w, lang, k), run(w, "whole"), edit(w), run(w, "whole", fail=True), ["reply", "The refactor broke one test."]]
    claims = [green(w, "whole", say("green", lang, k + 2, cmd=w["whole"], n=n_pass(w)), ["current", "problem"][k % 2], "stale_pass_claim")]
    return dict(steps=steps, claims=claims, traps=[], classes=["stale_pass_claim"])


TRUE_SCEN = [t_questions, t_recap, t_steering, t_conditions, t_intent, t_passfail, t_tdd_red, t_flaky_narrow, t_runner_mention, t_nothing, t_sed_script, t_quote_part, t_log_fixed, t_pending_listed, t_pending_para, t_long_code, t_up_to, t_fixed_then_passing, t_recent, t_edit_retry, t_latest_translated, t_latest_log, t_plan_title, t_baseline, t_boxes_all, t_count_true, t_commit_push, t_gotcha, t_user_claim]
FALSE_SCEN = [f_entry, f_runner_plain, f_runner_errors, f_runner_prose, f_runner_table, f_bare, f_all_done, f_box_one, f_box_count, f_fixed_before, f_task_open, f_commit_fail, f_push_fail, f_doc_failed, f_late, f_multi, f_up_to_false, f_narrow_then_whole, f_stale]


def is_clean(base: str, cut: int) -> bool:
    if base == "codex:fixture":
        return False
    tl = reader.read(base_lines({"id": "probe", "base": base, "cut": cut}))
    return not tl.open_items("any")


class Picker:
    """Base transcripts in turn, per language group and client."""

    def __init__(self):
        self.turn = {}

    def base(self, lang: str, client: str, n: int, clean: bool, skip: int = 0, tasks: bool = False):
        if client == "codex" and n % 5 == 2 and not clean and skip == 0:
            return ("codex:fixture", 73)
        group = "zh" if lang == "zh" else "ko" if lang == "ko" else "any"
        pool = [b for b in BASES[group] if client == "codex" or b not in SHORT_FOR_CLAUDE]
        if tasks and client == "claude" and group == "any" and n % 3 != 0:
            # Claude Code 2.1.16+ tracks tasks with TaskCreate/TaskUpdate: a base of that age.
            group = "tasks"
            pool = [b for b in pool if b[0].startswith("omarchy-backup")]
        key = (group, client)
        i = self.turn.get(key, 0) + skip
        for _ in range(len(pool)):
            b = pool[i % len(pool)]
            i += 1
            if not clean or is_clean(*b):
                self.turn[key] = i
                return b
        raise SetError(f"no clean base for {lang}")


def scenario_args(scen, client):
    return {"client": client} if scen in (t_edit_retry, f_doc_failed) else {}


def build() -> list[dict]:
    cases = []
    for ci, client in enumerate(("claude", "codex")):
        n_client = 0
        for kind, scen_list in (("t", TRUE_SCEN), ("f", FALSE_SCEN)):
            made = 0
            rnd = 0
            while made < PER_CLIENT:
                for i, scen in enumerate(scen_list):
                    if made >= PER_CLIENT:
                        break
                    k = i + rnd * 3 + ci
                    wi = (i * 5 + rnd * 3 + ci * 7) % len(WORLD_ORDER)
                    lang = LANGS[(n_client * 5 + ci * 3 + rnd) % len(LANGS)]
                    w = WORLDS[WORLD_ORDER[wi]]
                    probe = scen(w, lang, k, **scenario_args(scen, client))
                    if probe.get("only") and probe["only"] != client:
                        continue
                    if probe.get("needs") and not w.get(probe["needs"]):
                        while not w.get(probe["needs"]):
                            wi = (wi + 1) % len(WORLD_ORDER)
                            w = WORLDS[WORLD_ORDER[wi]]
                        probe = scen(w, lang, k, **scenario_args(scen, client))
                    d = probe
                    lang = d.pop("lang", lang)
                    n_client += 1
                    made += 1
                    if client == "codex" and any(len(st) > 4 and st[0] == "run" and st[4] == "pending" for st in d["steps"]):
                        # Codex summarizes after every output is written: the late result becomes a
                        # failing run just before an automatic compaction.
                        d["steps"] = [st[:4] if st[0] == "run" else st for st in d["steps"] if st[0] != "finish_pending"]
                        d.pop("save_at", None)
                        d["classes"] = ["failing_run_just_before_auto_compaction"]
                        for c in d["claims"]:
                            if c.get("class") == "result_written_after_precompact":
                                c["class"] = "failing_run_just_before_auto_compaction"
                    if not d.pop("no_reads", False):
                        first = next((j for j, st in enumerate(d["steps"]) if st[0] == "prompt"), 0)
                        d["steps"][first + 1 : first + 1] = reads(w)
                        if d.get("save_at") is not None:
                            d["save_at"] += 2
                    if w.get("prep") and any(st[0] == "run" and st[1].startswith("ctest") for st in d["steps"]):
                        at = next(j for j, st in enumerate(d["steps"]) if st[0] == "run" and st[1].startswith("ctest"))
                        d["steps"][at:at] = [["run", *w["prep"]]]
                        if d.get("save_at") is not None and d["save_at"] > at:
                            d["save_at"] += 1
                    clean = d.pop("clean_base", False)
                    d.pop("only", None)
                    d.pop("needs", None)
                    shape = dict(CLAUDE_SHAPES[n_client % len(CLAUDE_SHAPES)]) if client == "claude" else dict(CODEX_SHAPES[n_client % len(CODEX_SHAPES)])
                    if client == "claude" and lang != "en" and n_client % 2 == 0:
                        shape["translated_headings"] = True
                    shape.update(d.pop("shape", {}))
                    name = scen.__name__[2:]
                    if lang != "en" and f"{lang}_summary" not in d["classes"]:
                        d["classes"] = d["classes"] + [f"{lang}_summary"]
                    case = {
                        "id": f"tune2-{'cc' if client == 'claude' else 'cx'}-{kind}-{name}-{w['name']}-{lang}-{rnd}",
                        "client": client,
                        "lang": lang,
                        "trigger": d.pop("trigger", ["auto", "manual"][n_client % 2]),
                        "shape": shape,
                        "concepts": w["concepts"],
                        "stack": w["stack"],
                        "expect": "true" if kind == "t" else "false",
                        "_clean": clean,
                        "_n": n_client,
                    }
                    case.update(d)
                    cases.append(case)
                rnd += 1
    return cases


PICKER = Picker()
# The fields a case starts with, in this order; the scenario's own follow.
FIRST = ("id", "client", "base", "cut", "lang", "trigger", "shape", "concepts", "stack", "expect", "classes")


def place(case: dict, skip: int = 0):
    """Puts the case on the next base of its language group that suits it (`skip`: not the one
    it was on)."""
    tasks = any(st[0] == "tasks" for st in case["steps"])
    base, cut = PICKER.base(case["lang"], case["client"], case["_n"], case["_clean"], skip, tasks)
    case["base"], case["cut"] = base, cut


def finish(case: dict) -> dict:
    """The case as written: its fields in order, the placing's notes dropped."""
    for f in ("_clean", "_n"):
        del case[f]
    ordered = {k: case[k] for k in FIRST if k in case}
    ordered.update({k: v for k, v in case.items() if k not in ordered})
    return ordered
