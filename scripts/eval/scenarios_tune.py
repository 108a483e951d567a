"""The TUNE half's scenarios (`python3 scripts/eval/author.py tune` writes
`tests/fixtures/eval/tune/tune-cases.json`).

Each scenario below writes the steps that put the record in a known state, the claims the
summary makes (with what they are about) and the sentences that are no claims (traps), in one
of several languages; the worlds, phrasings and bases are in `data/tune.json`. The held-out
half is authored separately (other projects, phrasings, bases and cut points).
"""

from __future__ import annotations

import author

# ---------------------------------------------------------------- worlds (tune)

ABOUT = "The TUNE half of the corrections evaluation set (issue #38): tune on these. Authored by `scripts/eval/author.py tune`; see tests/fixtures/eval/README.md."
D = author.data("tune")
CONTEXT, NOTES = D["context"], D["notes"]
WORLDS = {name: dict(w, spec=author.spec_of(w["spec"])) for name, w in D["worlds"].items()}
BASES = D["bases"]
T = D["phrasings"]
CLAUDE_SHAPES = D["claude_shapes"]
CODEX_STYLES = D["codex_styles"]
LATEST = D["latest"]
WORLD_ORDER = D["world_order"]
LANG_ORDER = D["lang_order"]

# German, Spanish and Japanese sessions: an English base whose user switches language.
for l in ("de", "es", "ja"):
    BASES[l] = BASES["en"][::-1]

_turn = {}


def base_for(lang: str) -> tuple[str, int]:
    i = _turn.get(lang, 0)
    _turn[lang] = i + 1
    bs = BASES[lang]
    return bs[i % len(bs)]


# ---------------------------------------------------------------- phrasings (tune)


def pick(key, lang, k):
    bank = T[key].get(lang) or T[key]["en"]
    return bank[k % len(bank)] if isinstance(bank, list) else bank


# ---------------------------------------------------------------- scenarios (tune)
# Each returns the case's steps, claims, traps and intent; `k` varies the phrasing.


def _impl_prompt(w, lang, task):
    return T["impl"].get(lang, T["impl"]["en"]).format(task_l=task[0].lower() + task[1:], file=w["file"], scope=w["scope"])


def s_numbered_questions(w, lang, k):
    t = w["tasks"]
    reply = f"I have made the first change and the tests pass. Before I continue, two questions:\n1. Should `{t[1]}` cover every caller, or only the public entry point?\n2. Do you want the change documented in `{w['doc']}` now or in a later PR?"
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["tasks", [[t[0], "completed"], [t[1], "pending"]]], ["reply", reply]]
    traps = [{"section": "current", "text": f"I asked the user two questions and am waiting for the answers:\n   1. Should `{t[1]}` cover every caller, or only the public entry point?\n   2. Do you want the change documented in `{w['doc']}` now or in a later PR?"}]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "problem"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_questions"])


def s_numbered_recap(w, lang, k):
    t = w["tasks"]
    recap = f"Done. Summary of the changes:\n1. Added the fix in `{w['file']}` ({t[0].lower()}).\n2. Added `{w['test_file']}` with the regression cases.\n3. Updated the docs in `{w['doc']}`.\nAll three tasks are complete and `{w['scope_cmd']}` passes."
    steps = [
        ["prompt", _impl_prompt(w, lang, t[0])],
        ["tasks", [[t[0], "in_progress"], [t[1], "pending"], [t[2], "pending"]]],
        ["edit", w["file"], w["old"], w["new"]],
        ["write", w["test_file"], w["test_code"]],
        ["edit", w["doc"], "## Unreleased", f"## Unreleased\n\n- {t[0]}."],
        ["run", w["scope_cmd"], 0, w["spec"](14, [])],
        ["tasks", [[t[0], "completed"], [t[1], "completed"], [t[2], "completed"]]],
        ["reply", recap],
    ]
    traps = [{"section": "current", "text": f"The agent's last reply recapped the work:\n   1. Added the fix in `{w['file']}`.\n   2. Added `{w['test_file']}` with the regression cases.\n   3. Updated the docs in `{w['doc']}`."}]
    claims = [
        {"kind": "all_done", "text": pick("all_done", lang, k), "section": "current"},
        {"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": pick("tests_pass", lang, k + 1).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "problem"},
    ]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_recap", "all_done_true"])


def s_steering_quote(w, lang, k):
    t = w["tasks"]
    latest = {"en": "Stop after the tests pass; then write the changelog.", "de": "Hör auf, sobald die Tests grün sind; dann schreib das Changelog.", "es": "Para cuando pasen las pruebas; después escribe el changelog.", "zh": "测试通过后就停下；然后写 changelog。", "ja": "テストが通ったら止めて、そのあと changelog を書いて。", "ko": "테스트가 통과하면 멈추고, 그다음 changelog를 써 줘."}.get(lang)
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["prompt", latest], ["reply", "Understood. The tests still fail in one case; I am looking at it now."]]
    traps = [
        {"section": "pending", "text": f"Make the tests pass, then write the changelog; the user's words: \"{latest}\""},
        {"section": "next", "text": f"Keep working on the failing test, as the user asked: \"{latest}\""},
    ]
    claims = []
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["steering_quote"])


def s_intent(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["all_cmd"], w["code_fail"], w["spec"](9, w["fail_names"][:1])], ["reply", "One test still fails; I will look at the rounding next."]]
    traps = [
        {"section": "request", "text": f"The user wants `{w['file']}` changed so that the tests pass."},
        {"section": "problem", "text": f"The goal is for `{w['all_cmd']}` to pass; the last run still has one failure."},
        {"section": "concepts", "text": "A test passes when the function returns the expected value for each case; currently one case does not."},
    ]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["intent_sentences"])


def s_pass_fail_lines(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["reply", "11 tests pass, 1 still fails."]]
    traps = [{"section": "current", "text": f"Test status after the last run of `{w['scope_cmd']}`:\n   - 11 tests pass\n   - 1 fails (`{w['fail_names'][0]}`)"}]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["pass_and_fail_lines"])


def s_narrow_whole(w, lang, k):
    if k % 2 == 0:
        steps = [
            ["prompt", "Add a test for unicode names in the export, TDD style: write the failing test first."],
            ["run", "python -m pytest -q", 0, {"runner": "pytest", "passed": 48, "failed": [], "files": ["tests/test_export.py", "tests/test_parser.py"]}],
            ["write", "tests/test_unicode.py", "def test_unicode_names_roundtrip():\n    assert export_names(['Zoë', '渡辺']) == 'Zoë,渡辺'\n"],
            ["run", "pytest tests/test_unicode.py -q", 1, {"runner": "pytest", "passed": 0, "failed": ["tests/test_unicode.py::test_unicode_names_roundtrip"], "error": "AssertionError: assert 'Zo?,??' == 'Zoë,渡辺'"}],
            ["reply", "The new test fails as expected (red). Next: make export_names encode UTF-8."],
        ]
        claims = [{"kind": "tests_pass", "cmd": ["python -m pytest -q"], "text": "Before the new test was written, the whole suite passed (`python -m pytest -q`: 48 passed).", "section": "problem"}]
        traps = [{"section": "current", "text": "The new test in `tests/test_unicode.py` fails, as intended for the red step."}]
    else:
        steps = [
            ["prompt", "The parser drops quoted commas; fix it. Ignore the export test, that one is flaky and owned by another team."],
            ["run", "python -m pytest -q", 1, {"runner": "pytest", "passed": 47, "failed": ["tests/test_export.py::test_export_timeout"], "files": ["tests/test_export.py", "tests/test_parser.py"]}],
            ["edit", "src/parser.py", "fields = line.split(',')", "fields = next(csv.reader([line]))"],
            ["run", "pytest tests/test_parser.py -q", 0, {"runner": "pytest", "passed": 14, "failed": [], "files": ["tests/test_parser.py"]}],
            ["reply", "Parser fixed; its tests pass. The export timeout test is the known flaky one."],
        ]
        claims = [{"kind": "tests_pass", "cmd": ["pytest tests/test_parser.py"], "text": "The parser tests pass (`pytest tests/test_parser.py -q`: 14 passed).", "section": "current"}]
        traps = [{"section": "errors", "text": "The full run has one failure, `tests/test_export.py::test_export_timeout`, which the user called flaky and out of scope."}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["narrow_vs_whole"])


def s_runner_mention(w, lang, k):
    t = w["tasks"]
    steps = [
        ["prompt", _impl_prompt(w, lang, t[0]) + " Commit when green."],
        ["edit", w["file"], w["old"], w["new"]],
        ["run", w["scope_cmd"], 0, w["spec"](12, [])],
        ["run", 'grep -rn "cargo test" docs/', 1, ""],
        ["run", "git commit -am \"Stop tracking .pytest_cache\"", 1, {"runner": "git_commit_hook_fail", "text": "trim trailing whitespace.................................................Failed\n- hook id: trailing-whitespace\n- exit code: 1\n- files were modified by this hook\n\nFixing .gitignore"}],
        ["run", "git add -A && git commit -m \"Stop tracking the Python test caches\"", 0, {"runner": "git_commit", "message": "Stop tracking the Python test caches"}],
        ["reply", "Committed on the second try (the hook fixed whitespace). No docs mention `cargo test`."],
    ]
    claims = [
        {"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": ["All tests pass.", "The whole test suite passes.", "Tests: all passing."][k % 3], "section": "current"},
        {"kind": "committed", "what": "commit", "text": pick("committed", lang, k), "section": "current"},
    ]
    traps = [{"section": "problem", "text": "Searched the docs for `cargo test` (`grep -rn \"cargo test\" docs/` found nothing, exit 1), so no doc needed the new command. The first commit (\"Stop tracking .pytest_cache\") was stopped by the whitespace hook; the second went through."}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["runner_mention_not_a_run"])


def s_nothing_to_commit(w, lang, k):
    t = w["tasks"]
    steps = [
        ["prompt", _impl_prompt(w, lang, t[0]) + " Commit when done."],
        ["edit", w["file"], w["old"], w["new"]],
        ["run", w["scope_cmd"], 0, w["spec"](12, [])],
        ["run", f"git commit -am \"{t[0]}\"", 0, {"runner": "git_commit", "message": t[0]}],
        ["run", "git commit -am \"follow-up\"", 1, {"runner": "git_nothing"}],
        ["run", "git status", 0, {"runner": "git_nothing"}],
        ["reply", "Everything was already committed in 4e1f0a2; the working tree is clean."],
    ]
    claims = [{"kind": "committed", "what": "commit", "text": pick("committed", lang, k), "section": "current"}]
    traps = [{"section": "problem", "text": "A second `git commit -am` reported \"nothing to commit, working tree clean\": everything was already in 4e1f0a2."}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["nothing_to_commit"])


def s_sed(w, lang, k):
    steps = [
        ["prompt", "Bump the version to 0.3.2 everywhere and regenerate the lockfile metadata."],
        ["run", "sed -i 's/^version = \"0.3.1\"/version = \"0.3.2\"/' Cargo.toml", 0, ""],
        ["run", "python3 scripts/bump_version.py 0.3.2", 0, "updated pyproject.toml\nupdated package.json\nversion: 0.3.1 -> 0.3.2"],
        ["run", "git diff --stat", 0, " Cargo.toml     | 2 +-\n package.json   | 2 +-\n pyproject.toml | 2 +-\n 3 files changed, 3 insertions(+), 3 deletions(-)"],
        ["reply", "Version bumped to 0.3.2 in Cargo.toml (sed), pyproject.toml and package.json (bump script)."],
    ]
    claims = [
        {"kind": "file_changed", "file": "Cargo.toml", "text": "Updated the version in `Cargo.toml` to 0.3.2 (with `sed -i`).", "section": "files"},
        {"kind": "file_changed", "file": "pyproject.toml", "text": "`pyproject.toml` and `package.json` were modified by `scripts/bump_version.py`.", "section": "files"},
    ]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["sed_or_script_edit"])


def s_plain_true(w, lang, k):
    """The work done and the tests green, said in the session's language."""
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["edit", w["file"], w["new"], w["new"] + "\n"], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["tasks", [[t[0], "completed"], [t[1], "pending"]]], ["reply", "Done with the first task; the tests pass."]]
    claims = [
        {"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "current"},
        {"kind": "task_done", "task": t[0], "text": pick("task_done", lang, k).format(task=t[0]), "section": "problem"},
        {"kind": "file_changed", "file": w["file"], "after": "last_failing_test", "text": pick("fixed_file", lang, k).format(file=w["file"]), "section": "files"},
    ]
    cls = {"zh": "chinese_summary", "ko": "korean_summary", "de": "german_summary", "es": "spanish_summary", "ja": "japanese_summary"}.get(lang, "fixed_then_passing")
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=[cls, "fixed_then_passing"])


def s_quote_prompt_part(w, lang, k):
    t = w["tasks"]
    long_prompt = (f"{_impl_prompt(w, lang, t[0])} Keep the public API unchanged, do not touch the migration files, and if the tests need new fixtures put them under tests/fixtures/. "
                   "Also, when you report back, list what you changed file by file so I can review it before lunch; I will run the full suite myself afterwards.")
    steps = [["prompt", long_prompt], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["reply", f"Changed `{w['file']}` only; tests pass."]]
    traps = [
        {"section": "request", "text": "Constraints from the user: \"Keep the public API unchanged, do not touch the migration files\"."},
        {"section": "next", "text": "Report back file by file, as the user asked (\"list what you changed file by file so I can review it before lunch\")."},
    ]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["quotes_part_of_prompt"])


def s_quote_log(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["reply", "Fixed; the suite passes now."]]
    log = "\n".join("   " + l for l in [f"$ {w['scope_cmd']}", f"FAILED {w['fail_names'][0]}", "1 failed, 11 passed"])
    traps = [{"section": "errors", "text": f"The first run failed with this log:\n```\n{log}\n```\n   Fixed by the change to `{w['file']}`."}]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["quotes_a_log"])


def s_pending_listed(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["reply", f"First task done; starting on \"{t[1]}\"."]]
    traps = [{"section": "pending", "text": pick("pending", lang, k).format(items=f"\"{t[1]}\" and \"{t[2]}\"")}]
    claims = [{"kind": "task_done", "task": t[0], "text": pick("task_done", lang, k).format(task=t[0]), "section": "problem"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["tasks_under_pending"])


def s_long_code(w, lang, k):
    t = w["tasks"]
    big = "\n".join([w["test_code"]] + [f"# case {i}: the assertion passes when the result equals the expected total\n" for i in range(20)])
    steps = [["prompt", _impl_prompt(w, lang, t[2])], ["write", w["test_file"], big], ["run", w["scope_cmd"], 0, w["spec"](30, [])], ["reply", "Added the cases; all pass."]]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["long_code"])


def s_up_to_span(w, lang, k):
    t = w["tasks"]
    steps = [
        ["prompt", _impl_prompt(w, lang, t[0])],
        ["edit", w["file"], w["old"], w["new"]],
        ["run", w["all_cmd"], 0, w["spec"](12, [])],
        ["reply", "All green."],
        ["prompt", f"Now {t[1][0].lower() + t[1][1:]}."],
        ["write", w["test_file"], w["test_code"]],
        ["run", w["all_cmd"], w["code_fail"], w["spec"](12, w["fail_names"][:1])],
    ]
    claims = [{"kind": "tests_pass", "cmd": [w["all_cmd"]], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["all_cmd"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["span_of_precomputed_summary"], save_at=4, shape={"variant": "up_to"})


def s_recent_span(w, lang, k):
    d = s_plain_true(w, lang, k)
    d["classes"] = ["partial_summary_span"]
    d["shape"] = {"variant": "recent"}
    return d


def s_edit_retry(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit_fail", w["file"], w["old"] + " ", w["new"], "String to replace not found in file."], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["reply", "The first edit missed (whitespace); the second applied."]]
    claims = [{"kind": "file_changed", "file": w["file"], "text": pick("fixed_file", lang, k).format(file=w["file"]), "section": "files"}]
    traps = [{"section": "errors", "text": f"The first Edit of `{w['file']}` failed (\"String to replace not found in file.\"); retried with the exact text and it applied."}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["failed_edit_then_retried"])


def s_recap_no_tasks(w, lang, k):
    """A numbered recap in the agent's last reply and no task tool: the recap is finished work."""
    recap = f"All done:\n1. Fixed `{w['file']}`.\n2. Added `{w['test_file']}`.\n3. Ran `{w['scope_cmd']}`: everything passes."
    steps = [["prompt", _impl_prompt(w, lang, w["tasks"][0])], ["edit", w["file"], w["old"], w["new"]], ["write", w["test_file"], w["test_code"]], ["run", w["scope_cmd"], 0, w["spec"](13, [])], ["reply", recap]]
    claims = [{"kind": "all_done", "text": pick("all_done", lang, k + 1), "section": "current"}]
    traps = [{"section": "problem", "text": f"What the agent reported at the end:\n   1. Fixed `{w['file']}`.\n   2. Added `{w['test_file']}`.\n   3. Ran `{w['scope_cmd']}`: everything passes."}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_recap"], clean_base=True)


def s_questions_no_tasks(w, lang, k):
    reply = f"Before I go on:\n1. Keep the old `{w['file'].rsplit('/', 1)[-1]}` behaviour behind a flag?\n2. Should the fix land in the 0.3 branch too?"
    steps = [["prompt", _impl_prompt(w, lang, w["tasks"][0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["reply", reply]]
    traps = [{"section": "next", "text": f"Wait for the user's answers to the agent's questions:\n   1. Keep the old `{w['file'].rsplit('/', 1)[-1]}` behaviour behind a flag?\n   2. Should the fix land in the 0.3 branch too?"}]
    claims = [{"kind": "all_done", "text": "There are no open tasks; only the two questions wait for the user.", "section": "pending"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_questions"], clean_base=True)


def s_latest_rendered(w, lang, k, how):
    text, rendered, lang2, cls = LATEST[how]
    steps = [["prompt", _impl_prompt(w, lang2, w["tasks"][0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["reply", "Done."], ["prompt", text], ["reply", "Looking at it."]]
    return dict(steps=steps, claims=[], traps=[], latest_as=rendered, lang=lang2, expect="true", classes=[cls])


def s_sed_after_failed_edit(w, lang, k):
    steps = [
        ["prompt", "Bump the version to 0.4.0 in Cargo.toml."],
        ["edit_fail", "Cargo.toml", "version = \"0.3.1\"\n", "version = \"0.4.0\"\n", "Found 2 matches of the string to replace, but replace_all is false. To replace all matches, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance."],
        ["run", "sed -i '0,/^version = \"0.3.1\"/s//version = \"0.4.0\"/' Cargo.toml", 0, ""],
        ["run", "grep -n '^version' Cargo.toml", 0, "3:version = \"0.4.0\""],
        ["reply", "Bumped with sed (the Edit matched two lines)."],
    ]
    claims = [{"kind": "file_changed", "file": "Cargo.toml", "text": "Updated the version in `Cargo.toml` to 0.4.0.", "section": "files"}]
    traps = [{"section": "errors", "text": "The Edit of `Cargo.toml` failed (the old string matched twice); `sed -i` on the first match did it instead."}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["sed_or_script_edit", "failed_edit_then_retried"])


def s_pending_paraphrased(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["tasks", [[t[0], "completed"], [t[1], "pending"], [t[2], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["reply", "First one done."]]
    short = lambda x: x.split(" ", 1)[1] if " " in x else x
    traps = [{"section": "pending", "text": f"{short(t[1])} (not started); {short(t[2]).lower()} (not started)"}]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["tasks_under_pending"])


def s_plan_title_zh(w, lang, k):
    """An approved plan whose title is Chinese; the summary names it by that title."""
    t = w["tasks"]
    title = {"billing": "修复发票合计的舍入", "calc": "修正 add() 的差一错误", "importer": "导入失败批次的重试", "cart": "折扣先于税费计算", "inventory": "库存预留的上限检查"}[w["scope"] if w["scope"] in ("billing", "calc", "importer", "cart") else "inventory"]
    md = f"## {title}\n\n- {t[0]}\n- {t[1]}\n- 运行 `{w['scope_cmd']}`"
    steps = [["prompt", _impl_prompt(w, "zh", t[0])], ["plan", md], ["edit", w["file"], w["old"], w["new"]], ["reply", "计划已批准，第一步完成。"]]
    traps = [{"section": "request", "text": f"用户批准了计划《{title}》：{t[0]}；{t[1]}；运行 `{w['scope_cmd']}`。"}]
    return dict(steps=steps, claims=[], traps=traps, lang="zh", expect="true", classes=["plan_title_in_chinese"])


# ---- FALSE


def f_project_script(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["reply", "Let me look at that failure."]]
    claims = [{"kind": "tests_pass", "class": "tests_pass", "cmd": [w["scope_cmd"]], "needles": [w["scope_cmd"].replace("sh ", "", 1) if w["scope_cmd"].startswith("sh ") else w["scope_cmd"]], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": ["current", "problem", "analysis"][k % 3]}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["project_test_script" if "run_tests" in w["scope_cmd"] or "tests/" in w["scope_cmd"] or "make" in w["scope_cmd"] else "test_runner"])


def f_all_done_restated(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["tasks", [[t[0], "in_progress"], [t[1], "pending"], [t[2], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["tasks", [[t[0], "completed"], [t[1], "pending"], [t[2], "pending"]]], ["reply", "First task done."]]
    claims = [{"kind": "all_done", "needles": [t[1], t[2]], "text": pick("all_done", lang, k), "section": "current"}]
    req = [f"{t[1]}.", f"{t[2]}."]
    return dict(steps=steps, claims=claims, traps=[], request=req, expect="false", classes=["all_done_while_request_lists_open"])


def f_checklist(w, lang, k, count=False):
    t = w["tasks"]
    reply = f"Progress:\n- [x] {t[0]}\n- [ ] {t[1]}\n- [ ] {t[2]}"
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["reply", reply]]
    if count:
        claims = [{"kind": "checklist_count", "count": 1, "needles": [t[1], t[2]], "text": f"1 unchecked checklist item remains: {t[2]}.", "section": "pending"}]
        cls = "checklist_count"
    else:
        claims = [{"kind": "checklist_done", "item": t[1], "class": "task_done", "text": pick("task_done", lang, k).format(task=t[1]), "section": "problem"}]
        cls = "one_of_two_open_items_called_done"
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=[cls])


def f_fixed_no_edit(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["reply", f"The failure is in `{w['file']}`; I will fix it next."], ["run", "git status --short", 0, " M docs/notes.md"]]
    claims = [{"kind": "file_changed", "file": w["file"], "after": "last_failing_test", "needles": [w["file"].rsplit("/", 1)[-1]], "text": pick("fixed_file", lang, k).format(file=w["file"]), "section": "files"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["fixed_without_an_edit"])


def f_task_label(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["reply", f"Working on \"{t[1]}\"."]]
    claims = [{"kind": "task_done", "task": t[1], "needles": [t[1]], "text": pick("task_done", lang, k + 1).format(task=t[1]), "section": "problem"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["open_task_called_done"])


def f_commit(w, lang, k):
    t = w["tasks"]
    if k % 2 == 0:
        steps = [["prompt", _impl_prompt(w, lang, t[0]) + " Commit it."], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](12, [])], ["run", f"git commit -am \"{t[0]}\"", 1, {"runner": "git_commit_hook_fail"}], ["reply", "The pre-commit hook rejected the commit."]]
        claims = [{"kind": "committed", "what": "commit", "needles": ["git commit"], "text": pick("committed", lang, k), "section": "current"}]
        cls = "failed_commit_said_committed"
    else:
        steps = [["prompt", _impl_prompt(w, lang, t[0]) + " Commit and push."], ["edit", w["file"], w["old"], w["new"]], ["run", f"git commit -am \"{t[0]}\"", 0, {"runner": "git_commit", "message": t[0]}], ["run", "git push origin main", 1, {"runner": "git_push_rejected"}], ["reply", "The push was rejected; the remote has new commits."]]
        claims = [{"kind": "committed", "what": "push", "needles": ["git push"], "text": pick("pushed", lang, k), "section": "current"}]
        cls = "failed_push_said_pushed"
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=[cls])


def f_edit_failed(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[2])], ["edit_fail", w["doc"], "## Settings", "## Settings\n\nRetries: 5", "String to replace not found in file.\nString: ## Settings"], ["reply", "I could not find the settings section; the doc may have moved."]]
    claims = [{"kind": "file_changed", "file": w["doc"], "needles": [w["doc"].rsplit("/", 1)[-1]], "text": pick("fixed_file", lang, k + 1).format(file=w["doc"]), "section": "files"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["failed_edit_said_changed"])


def f_pending_result(w, lang, k):
    """PreCompact runs before the failing result is written (issue #38's timing)."""
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1]), "pending"], ["finish_pending"]]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "needles": [w["scope_cmd"].replace("sh ", "", 1)], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["result_written_after_precompact"], save_at=3, trigger="auto")


def f_multi(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["run", "git diff --stat", 0, f" {w['file']} | 9 +++++----\n 1 file changed"], ["reply", "Still one failing test."]]
    claims = [
        {"kind": "tests_pass", "cmd": [w["scope_cmd"]], "needles": [w["scope_cmd"].replace("sh ", "", 1)], "text": pick("tests_pass", lang, k + 2).format(scope=w["scope"], cmd=w["scope_cmd"]), "section": "current"},
        {"kind": "task_done", "task": t[0], "needles": [t[0]], "text": pick("task_done", lang, k).format(task=t[0]), "section": "problem"},
        {"kind": "file_changed", "file": w["file"], "text": f"Changed `{w['file']}` (see the diff above).", "section": "files"},
        {"kind": "tests_pass", "cmd": ["npx playwright test"], "text": "The UI was also checked with `npx playwright test` in the browser and looked right.", "section": "problem"},
    ]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["several_claims"])


def f_up_to_false(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", _impl_prompt(w, lang, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["all_cmd"], w["code_fail"], w["spec"](11, w["fail_names"][:1])], ["reply", "One failure left."], ["prompt", "ok, keep going"], ["run", "git status --short", 0, f" M {w['file']}"]]
    claims = [{"kind": "tests_pass", "cmd": [w["all_cmd"]], "needles": [w["all_cmd"].replace("sh ", "", 1)], "text": pick("tests_pass", lang, k).format(scope=w["scope"], cmd=w["all_cmd"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["precomputed_summary_false_in_its_span"], save_at=4, shape={"variant": "up_to"})


def s_latest_translated(w, lang, k):
    return s_latest_rendered(w, lang, k, "translated")


def s_latest_partial(w, lang, k):
    return s_latest_rendered(w, lang, k, "partial")


def s_latest_log(w, lang, k):
    return s_latest_rendered(w, lang, k, "log")


TRUE_SCEN = [s_numbered_questions, s_numbered_recap, s_steering_quote, s_intent, s_pass_fail_lines, s_narrow_whole, s_runner_mention, s_nothing_to_commit, s_sed, s_plain_true, s_quote_prompt_part, s_quote_log, s_pending_listed, s_long_code, s_up_to_span, s_recent_span, s_edit_retry, s_recap_no_tasks, s_questions_no_tasks, s_latest_translated, s_latest_partial, s_latest_log, s_sed_after_failed_edit, s_pending_paraphrased, s_plan_title_zh]
FALSE_SCEN = [f_project_script, f_all_done_restated, lambda w, l, k: f_checklist(w, l, k), lambda w, l, k: f_checklist(w, l, k, count=True), f_fixed_no_edit, f_task_label, f_commit, f_edit_failed, f_pending_result, f_multi, f_up_to_false]
FALSE_NAMES = ["project_script", "all_done", "checklist_one", "checklist_count", "fixed_no_edit", "task_label", "commit", "edit_failed", "pending_result", "multi", "up_to_false"]


def build() -> list[dict]:
    cases = []
    n = 0
    # Two rounds of every scenario, and two more of the false ones: about as many false
    # summaries as true ones.
    for rnd in range(4):
        for client in ("claude", "codex"):
            for kind, scen_list in (("t", TRUE_SCEN), ("f", FALSE_SCEN)):
                if rnd >= 2 and kind == "t":
                    continue
                for i, scen in enumerate(scen_list):
                    n += 1
                    world = WORLD_ORDER[(i + rnd * 2 + (client == "codex")) % len(WORLD_ORDER)]
                    lang = LANG_ORDER[(i * 3 + rnd * 5 + (client == "codex") * 2) % len(LANG_ORDER)]
                    if scen in (s_narrow_whole, s_sed, s_sed_after_failed_edit):
                        lang = "en"
                    if scen is s_plain_true and rnd == 0 and client == "claude":
                        lang = "zh"
                    k = i + rnd + (client == "codex")
                    d = scen(WORLDS[world], lang, k)
                    lang = d.pop("lang", lang)
                    if client == "codex" and scen is s_plan_title_zh:
                        continue  # Codex has no plan approval
                    if client == "codex":
                        # Codex summarizes the whole record when it compacts, after every output
                        # is written: the partial and precomputed spans and the late result are
                        # Claude Code's alone.
                        if d.get("shape", {}).get("variant") in ("up_to", "recent"):
                            continue
                        if author.late_result_for_codex(d):
                            d["trigger"] = "auto"
                    # The agent reads the world's main module before its first change.
                    first = next((j for j, st in enumerate(d["steps"]) if st[0] == "prompt"), 0)
                    d["steps"][first + 1 : first + 1] = [["read", *NOTES[world]], ["read", *CONTEXT[world]]]
                    if d.get("save_at") is not None:
                        d["save_at"] += 2
                    base, cut = base_for(lang)
                    if d.pop("clean_base", False):
                        # The scenario's claim covers the whole record: a base whose own task list
                        # or checklist is still open would make it false.
                        while author.open_in_base(base, cut):
                            base, cut = base_for(lang)
                    shape = dict(CLAUDE_SHAPES[n % len(CLAUDE_SHAPES)]) if client == "claude" else {"codex_style": CODEX_STYLES[n % 3]}
                    shape.update(d.pop("shape", {}))
                    if lang != "en" and n % 3 == 0:
                        shape["translated_headings"] = True
                    name = scen.__name__ if kind == "t" else FALSE_NAMES[i]
                    case = {
                        "id": f"tune-{'cc' if client == 'claude' else 'cx'}-{kind}-{name.replace('s_', '').replace('f_', '')}-{world}-{lang}-{rnd}",
                        "client": client,
                        "base": base,
                        "cut": cut,
                        "lang": lang,
                        "trigger": d.pop("trigger", ["manual", "auto"][n % 2]),
                        "shape": shape,
                        "concepts": WORLDS[world]["concepts"],
                    }
                    case.update(d)
                    cases.append(case)
    return cases
