"""The HELD-OUT half's scenarios (`python3 scripts/eval/author.py heldout` writes
`tests/fixtures/eval/heldout/heldout-cases.json`). Never read when tuning the corrections.

Written apart from the tune half: its own projects, phrasings, bases and cut points (in
`data/heldout.json`), its own scenario code below and its own narration (`compose_heldout.py`).
"""

from __future__ import annotations

import author

ABOUT = "The HELD-OUT half of the corrections evaluation set (issue #38): never tune on it; read only the aggregate figures of `scripts/eval-corrections heldout`. Authored by `scripts/eval/author.py heldout`."
D = author.data("heldout")
CONTEXT, RUNBOOK, HELPERS = D["context"], D["runbook"], D["helpers"]
W = {name: dict(w, spec=author.spec_of(w["spec"]), all_spec=author.spec_of(w["all_spec"])) for name, w in D["worlds"].items()}
BASES = D["bases"]
SMALL = set(D["small"])
ASK = D["ask"]
PASS = D["pass"]
ALL = D["all"]
DONE = D["done"]
PATCHED = D["patched"]
COMMITTED = D["committed"]
PUSHED = D["pushed"]
LATEST_H = D["latest"]
ORDER = D["order"]
LANGS = D["langs"]
SHAPES = D["shapes"]

for l in ("fr", "pt", "ja", "es", "de"):
    BASES[l] = BASES["en"][3:] + BASES["en"][:3]
_next = {}


def base(lang: str, codex: bool, i: int):
    if codex and lang == "en" and i % 4 == 0:
        return ("codex:fixture", 79)
    while True:
        k = _next.get(lang, 0)
        _next[lang] = k + 1
        b = BASES[lang][k % len(BASES[lang])]
        if codex or b[0] not in SMALL:
            return b


# ---------------------------------------------------------------- wording (held-out)


def say(bank, lang, k, **kw):
    opts = bank.get(lang) or bank["en"]
    return opts[k % len(opts)].format(**kw)


def ask(w, lang, k, task):
    return say(ASK, lang, k, t=task, f=w["file"], c=w["scope_cmd"])


def needle(w, cmd):
    return cmd.replace("./", "", 1) if cmd.startswith("./") else cmd


# ---------------------------------------------------------------- scenarios (held-out)


def h_questions(w, lang, k):
    t = w["tasks"]
    reply = f"Change is in and `{w['scope_cmd']}` is green. Two things I need from you:\n1) Should {t[1].lower()} be on by default?\n2) Is it fine to add a section to {w['doc']}, or do you keep docs elsewhere?"
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](16, [])], ["reply", reply]]
    traps = [{"section": "next", "text": f"Waiting on the user's answers to:\n1) Should {t[1].lower()} be on by default?\n2) Is it fine to add a section to {w['doc']}, or do you keep docs elsewhere?"}]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": say(PASS, lang, k, c=w["scope_cmd"], s=w["scope"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_questions"])


def h_recap(w, lang, k):
    t = w["tasks"]
    steps = [
        ["prompt", ask(w, lang, k, t[0])],
        ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]],
        ["edit", w["file"], w["old"], w["new"]],
        ["write", w["test_file"], w["test_code"]],
        ["run", w["scope_cmd"], 0, w["spec"](18, [])],
        ["tasks", [[t[0], "completed"], [t[1], "completed"]]],
        ["reply", f"Here's what changed:\n1. {w['file']}: {t[0].lower()}\n2. {w['test_file']}: new test\n3. {t[1]}: handled in the same change\nBoth items are finished."],
    ]
    traps = [{"section": "problem", "text": f"Recap the agent gave:\n1. {w['file']}: {t[0].lower()}\n2. {w['test_file']}: new test\n3. {t[1]}: handled in the same change"}]
    claims = [{"kind": "all_done", "text": say(ALL, lang, k), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_recap", "all_done_true"])


def h_steering(w, lang, k):
    t = w["tasks"]
    latest = {"en": f"Only stop once `{w['all_cmd']}` is green; after that, bump the version.", "fr": f"Ne t'arrête que quand `{w['all_cmd']}` passe ; ensuite, monte la version.", "ja": f"`{w['all_cmd']}` がグリーンになるまで止めないで。その後でバージョンを上げて。", "zh": f"等 `{w['all_cmd']}` 全绿再停；之后升级版本号。"}.get(lang) or f"Only stop once `{w['all_cmd']}` is green; after that, bump the version."
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["all_cmd"], w["code_fail"], w["all_spec"](20, w["fail_names"][:1])], ["prompt", latest], ["reply", "On it; one test still red."]]
    traps = [{"section": "pending", "text": f"Get `{w['all_cmd']}` green, then bump the version (user: \"{latest}\")."}]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["steering_quote"])


def h_intent(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](15, w["fail_names"][:1])], ["reply", "Still failing on one case."]]
    traps = [
        {"section": "request", "text": f"In order for the {w['scope']} tests to pass, {t[0].lower()} has to work for every case."},
        {"section": "current", "text": f"Target: make `{w['scope_cmd']}` pass. It does not yet: one case fails."},
        {"section": "concepts", "text": f"`{w['fail_names'][0]}` passes if the result matches the expected value."},
    ]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["intent_sentences"])


def h_passfail(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](23, w["fail_names"][:1])], ["reply", "23 green, 1 red."]]
    traps = [{"section": "current", "text": f"Last run of `{w['scope_cmd']}`:\n\n| result | count |\n|---|---|\n| passed | 23 |\n| failed | 1 |"}]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["pass_and_fail_lines"])


def h_narrow(w, lang, k):
    if k % 2 == 0:
        steps = [
            ["prompt", "Write a failing test for portrait images first; we'll fix it after lunch."],
            ["run", "cargo test --workspace", 0, {"runner": "cargo", "crate": "thumbs", "passed": 37, "failed": []}],
            ["write", "tests/portrait.rs", "#[test]\nfn portrait_height_only() {\n    assert_eq!(thumbs::resize::target_size(3000, 4000, None, Some(400)), (300, 400));\n}\n"],
            ["run", "cargo test --test portrait", 101, {"runner": "cargo", "crate": "thumbs", "passed": 0, "failed": ["portrait_height_only"], "target": "tests/portrait.rs", "rerun": "--test portrait", "left": "(299, 400)", "right": "(300, 400)"}],
            ["reply", "Red as expected; the rest of the suite was green before I added it."],
        ]
        claims = [{"kind": "tests_pass", "cmd": ["cargo test --workspace"], "text": "Before the new test, `cargo test --workspace` was fully green (37 passed).", "section": "problem"}]
        traps = [{"section": "current", "text": "`cargo test --test portrait` fails on purpose: the test was written first."}]
    else:
        steps = [
            ["prompt", "Fix the limiter's refill math. The auth package tests are broken on main, not our problem."],
            ["run", "go test ./...", 1, {"runner": "go", "failed": ["TestTokenExpiry"], "packages": ["example.com/gateway/internal/auth", "example.com/gateway/internal/ratelimit"], "where": "token_test.go:88", "error": "token expired 1s early"}],
            ["edit", "internal/ratelimit/bucket.go", W["gateway"]["old"], W["gateway"]["new"]],
            ["run", "go test ./internal/ratelimit/", 0, {"runner": "go", "failed": [], "packages": ["example.com/gateway/internal/ratelimit"]}],
            ["reply", "Limiter fixed, its package passes. Auth still fails on main as you said."],
        ]
        claims = [{"kind": "tests_pass", "cmd": ["go test ./internal/ratelimit/"], "text": "`go test ./internal/ratelimit/` passes after the fix.", "section": "current"}]
        traps = [{"section": "errors", "text": "`go test ./...` shows `TestTokenExpiry` failing in internal/auth; the user said it is broken on main and out of scope."}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["narrow_vs_whole"])


def h_mention(w, lang, k):
    t = w["tasks"]
    steps = [
        ["prompt", ask(w, lang, k, t[0])],
        ["edit", w["file"], w["old"], w["new"]],
        ["run", w["scope_cmd"], 0, w["spec"](16, [])],
        ["run", "rg -n \"npm test|pytest\" README.md CONTRIBUTING.md", 1, ""],
        ["run", "git commit -am \"chore: drop pytest.ini and stop tracking .pytest_cache\"", 0, {"runner": "git_commit", "message": "chore: drop pytest.ini and stop tracking .pytest_cache", "sha": "9ab31c7"}],
        ["reply", "Committed 9ab31c7. The docs never mention `npm test` or pytest."],
    ]
    traps = [{"section": "problem", "text": "`rg -n \"npm test|pytest\" README.md CONTRIBUTING.md` found no mention (exit 1); the commit message mentions `.pytest_cache` and `pytest.ini` only because those files were dropped."}]
    claims = [
        {"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": ["Every test passes.", "The suite is green.", "Test suite: passing."][k % 3], "section": "current"},
        {"kind": "committed", "what": "commit", "text": say(COMMITTED, lang, k, m="chore: drop pytest.ini and stop tracking .pytest_cache"), "section": "current"},
    ]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["runner_mention_not_a_run"])


def h_clean_tree(w, lang, k):
    t = w["tasks"]
    steps = [
        ["prompt", ask(w, lang, k, t[0]) + " Commit."],
        ["edit", w["file"], w["old"], w["new"]],
        ["run", f"git add {w['file']} && git commit -m \"{t[0]}\"", 0, {"runner": "git_commit", "message": t[0], "sha": "c0ffee1", "files": 1}],
        ["run", "git commit -a -m \"wip\"", 1, {"runner": "git_nothing"}],
        ["reply", "Already committed as c0ffee1; nothing else to commit."],
    ]
    traps = [{"section": "errors", "text": "`git commit -a -m \"wip\"` exited 1 with \"nothing to commit, working tree clean\" — expected, the change was already in c0ffee1."}]
    claims = [{"kind": "committed", "what": "commit", "text": say(COMMITTED, lang, k, m=t[0]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["nothing_to_commit"])


def h_script_edit(w, lang, k):
    steps = [
        ["prompt", "Release prep: set the version to 0.9.1 in setup.cfg and package.json, and add the new env var to .env.example."],
        ["run", "perl -pi -e 's/^version = 0.9.0/version = 0.9.1/' setup.cfg", 0, ""],
        ["run", "node scripts/sync-version.js 0.9.1", 0, "wrote package.json\nwrote package-lock.json"],
        ["run", "echo 'RATE_LIMIT_BURST=20' >> .env.example", 0, ""],
        ["reply", "Done: setup.cfg via perl, package files via the sync script, .env.example appended."],
    ]
    claims = [
        {"kind": "file_changed", "file": "setup.cfg", "text": "`setup.cfg` now says 0.9.1 (edited in place with perl).", "section": "files"},
        {"kind": "file_changed", "file": "package.json", "text": "`package.json` was updated by `scripts/sync-version.js`.", "section": "files"},
        {"kind": "file_changed", "file": ".env.example", "text": "Added `RATE_LIMIT_BURST` to `.env.example`.", "section": "current"},
    ]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["sed_or_script_edit"])


def h_true_lang(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["tasks", [[t[0], "in_progress"], [t[2], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](19, [])], ["tasks", [[t[0], "completed"], [t[2], "pending"]]], ["reply", "First one done."]]
    claims = [
        {"kind": "task_done", "task": t[0], "text": say(DONE, lang, k, t=t[0]), "section": "current"},
        {"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": say(PASS, lang, k, c=w["scope_cmd"], s=w["scope"]), "section": "problem"},
    ]
    cls = {"zh": "chinese_summary", "ko": "korean_summary", "fr": "french_summary", "pt": "portuguese_summary", "ja": "japanese_summary", "de": "german_summary", "es": "spanish_summary"}.get(lang, "true_status")
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=[cls])


def h_part_quote(w, lang, k):
    t = w["tasks"]
    p = ask(w, lang, k, t[0]) + " Ground rules: no new dependencies, keep the error messages exactly as they are (support greps for them), and leave the feature flag off by default. If something is ambiguous, pick the conservative option and tell me afterwards."
    steps = [["prompt", p], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](16, [])], ["reply", "Done within the ground rules."]]
    traps = [{"section": "concepts", "text": "User ground rules: \"no new dependencies, keep the error messages exactly as they are\"."}, {"section": "next", "text": "Tell the user which ambiguous choices were made (\"pick the conservative option and tell me afterwards\")."}]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": say(PASS, lang, k, c=w["scope_cmd"], s=w["scope"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["quotes_part_of_prompt"])


def h_log(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["run", w["scope_cmd"], w["code_fail"], w["spec"](15, w["fail_names"][:1])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](16, [])], ["reply", "Fixed."]]
    traps = [{"section": "errors", "text": f"Initial failure (log excerpt):\n\n    $ {w['scope_cmd']}\n    FAIL {w['fail_names'][0]}\n    exit status {w['code_fail']}\n\nResolved by the change to `{w['file']}`."}]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": say(PASS, lang, k + 3, c=w["scope_cmd"], s=w["scope"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["quotes_a_log"])


def h_pending(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[1])], ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["reply", f"Working on {t[1].lower()}."]]
    traps = [{"section": "pending", "text": f"{t[1]} (in progress)"}, {"section": "pending", "text": f"{t[2]} (not started)"}]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["tasks_under_pending"])


def h_plan_zh(w, lang, k):
    t = w["tasks"]
    title = "重构限流模块" if w is W["gateway"] else "重构核心模块"
    md = f"# {title}\n\n1. {t[0]}\n2. {t[1]}\n3. 更新文档"
    steps = [["prompt", ask(w, lang, k, t[0])], ["plan", md], ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["reply", "Plan approved; step 1 underway."]]
    traps = [{"section": "request", "text": f"The user approved the plan \"{title}\": {t[0]}; {t[1]}; 更新文档."}]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["plan_title_in_chinese"])


def h_long(w, lang, k):
    t = w["tasks"]
    big = w["test_code"] + "\n" + "\n".join(f"// case {i}: expected output matches; this passes when the rounding is right" if w["file"].endswith((".ts", ".go", ".rs")) else f"# case {i}: expected output matches; this passes when the parsing is right" for i in range(40))
    steps = [["prompt", ask(w, lang, k, t[1])], ["write", w["test_file"], big], ["run", w["scope_cmd"], 0, w["spec"](41, [])], ["reply", "41 cases, all green."]]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": say(PASS, lang, k + 2, c=w["scope_cmd"], s=w["scope"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["long_code"])


def h_span(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](16, [])], ["reply", "Green."], ["prompt", f"Good. Now {t[2].lower()}."], ["run", w["scope_cmd"], w["code_fail"], w["spec"](16, w["fail_names"][:1])]]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "text": say(PASS, lang, k, c=w["scope_cmd"], s=w["scope"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["span_of_precomputed_summary"], save_at=4, shape={"variant": "up_to"})


def h_recent(w, lang, k):
    d = h_true_lang(w, lang, k + 1)
    d["classes"] = ["partial_summary_span"]
    d["shape"] = {"variant": "recent"}
    return d


def h_retry(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit_fail", w["file"], w["old"].replace("\n", "\r\n"), w["new"], "String to replace not found in file.\nString: " + w["old"].split("\n")[0]], ["read", w["file"], w["old"]], ["edit", w["file"], w["old"], w["new"]], ["reply", "Applied on the second try."]]
    claims = [{"kind": "file_changed", "file": w["file"], "text": say(PATCHED, lang, k, f=w["file"]), "section": "files"}]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["failed_edit_then_retried"])


def h_recap_plain(w, lang, k):
    steps = [["prompt", ask(w, lang, k, w["tasks"][0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], 0, w["spec"](14, [])], ["reply", f"Finished. Summary:\n1) {w['file']} now handles it\n2) `{w['scope_cmd']}` is green\n3) no docs needed changing"]]
    traps = [{"section": "current", "text": f"The agent's closing message listed: 1) {w['file']} now handles it 2) `{w['scope_cmd']}` is green 3) no docs needed changing"}]
    claims = [{"kind": "all_done", "text": say(ALL, lang, k + 1), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_recap"], clean_base=True)


def h_questions_plain(w, lang, k):
    steps = [["prompt", ask(w, lang, k, w["tasks"][0])], ["edit", w["file"], w["old"], w["new"]], ["reply", "Question before the tests:\n1. Do you want the old behaviour kept for existing tenants?\n2. Is a breaking change acceptable in the next minor release?\n3. Should I write the migration note?"]]
    traps = [{"section": "current", "text": "Three questions are out to the user (old behaviour for existing tenants; breaking change in the next minor; the migration note)."}]
    claims = [{"kind": "all_done", "text": "No tasks are open; progress waits on the user's three answers.", "section": "pending"}]
    return dict(steps=steps, claims=claims, traps=traps, expect="true", classes=["numbered_questions"], clean_base=True)


def h_latest(w, lang, k, how):
    text, rendered, lang2, cls = LATEST_H[how]
    steps = [["prompt", ask(w, lang2, k, w["tasks"][0])], ["edit", w["file"], w["old"], w["new"]], ["reply", "Done with that."], ["prompt", text], ["reply", "Let me look."]]
    return dict(steps=steps, claims=[], traps=[], latest_as=rendered, lang=lang2, expect="true", classes=[cls])


def h_latest_ja(w, lang, k):
    return h_latest(w, lang, k, "ja")


def h_latest_part(w, lang, k):
    return h_latest(w, lang, k, "part")


def h_latest_trace(w, lang, k):
    return h_latest(w, lang, k, "trace")


def h_perl_after_patch(w, lang, k):
    steps = [
        ["prompt", "Set the default page size to 50 in config/defaults.toml."],
        ["edit_fail", "config/defaults.toml", "page_size = 25", "page_size = 50", "String to replace not found in file.\nString: page_size = 25"],
        ["run", "perl -pi -e 's/^page_size\\s*=\\s*25/page_size = 50/' config/defaults.toml", 0, ""],
        ["reply", "The file had tabs around `=`; perl handled it."],
    ]
    claims = [{"kind": "file_changed", "file": "config/defaults.toml", "text": "`config/defaults.toml` now sets `page_size = 50`.", "section": "files"}]
    return dict(steps=steps, claims=claims, traps=[], expect="true", classes=["sed_or_script_edit", "failed_edit_then_retried"])


def h_pending_reworded(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[1])], ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], ["reply", "On the second item."]]
    words = lambda x: " ".join(x.split()[1:])
    traps = [{"section": "pending", "text": f"Still to do: {words(t[1])}; afterwards {words(t[2])}."}]
    return dict(steps=steps, claims=[], traps=traps, expect="true", classes=["tasks_under_pending"])


# ---- FALSE


def hf_script(w, lang, k):
    t = w["tasks"]
    cmd = w["scope_cmd"] if k % 2 == 0 else w["all_cmd"]
    spec = w["spec"] if k % 2 == 0 else w["all_spec"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", cmd, w["code_fail"], spec(17, w["fail_names"][:1])], ["reply", "Looking into the failure."]]
    claims = [{"kind": "tests_pass", "cmd": [cmd], "needles": [needle(w, cmd)], "text": say(PASS, lang, k, c=cmd, s=w["scope"]), "section": ["current", "problem", "next", "analysis"][k % 4]}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["project_test_script" if any(x in cmd for x in ("test.sh", "manage.py", "make", "tox")) else "test_runner"])


def hf_all(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["tasks", [[t[0], "in_progress"], [t[1], "pending"], [t[2], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["tasks", [[t[0], "completed"], [t[1], "in_progress"], [t[2], "pending"]]], ["reply", "Moving on."]]
    claims = [{"kind": "all_done", "needles": [t[1], t[2]], "text": say(ALL, lang, k), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], request=[f"Also: {t[1].lower()}; {t[2].lower()}."], expect="false", classes=["all_done_while_request_lists_open"])


def hf_box(w, lang, k, count=False):
    t = w["tasks"]
    reply = f"Checklist:\n- [x] {t[0]}\n- [ ] {t[1]}\n- [ ] {t[2]}\nI'll continue with the unchecked ones."
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["reply", reply]]
    if count:
        claims = [{"kind": "checklist_count", "count": 1, "needles": [t[1], t[2]], "text": f"There is one open checklist item left ({t[1]}).", "section": "pending"}]
        cls = "checklist_count"
    else:
        claims = [{"kind": "checklist_done", "item": t[2], "class": "task_done", "needles": [t[2]], "text": say(DONE, lang, k + 1, t=t[2]), "section": "current"}]
        cls = "one_of_two_open_items_called_done"
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=[cls])


def hf_no_edit(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["read", w["file"], w["old"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](15, w["fail_names"][:1])], ["reply", f"Found it: the bug is in {w['file']}."]]
    claims = [{"kind": "file_changed", "file": w["file"], "after": "last_failing_test", "needles": [w["file"].rsplit("/", 1)[-1]], "text": say(PATCHED, lang, k, f=w["file"]), "section": "files"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["fixed_without_an_edit"])


def hf_status(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["reply", "Partway through the first item."]]
    claims = [{"kind": "task_done", "task": t[0], "needles": [t[0]], "text": say(DONE, lang, k + 1, t=t[0]), "section": "pending"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["open_task_called_done"])


def hf_git(w, lang, k):
    t = w["tasks"]
    if k % 2 == 0:
        steps = [["prompt", ask(w, lang, k, t[0]) + " Then commit."], ["edit", w["file"], w["old"], w["new"]], ["run", f"git commit -am \"{t[0]}\"", 1, {"runner": "git_commit_hook_fail", "text": "check-yaml...........................................................Passed\nend-of-file-fixer....................................................Failed\n- hook id: end-of-file-fixer\n- exit code: 1\n- files were modified by this hook\n\nFixing " + w["file"]}], ["reply", "The hook modified a file; the commit did not happen."]]
        claims = [{"kind": "committed", "what": "commit", "needles": ["git commit"], "text": say(COMMITTED, lang, k, m=t[0]), "section": "current"}]
        cls = "failed_commit_said_committed"
    else:
        steps = [["prompt", ask(w, lang, k, t[0]) + " Commit and push to origin."], ["edit", w["file"], w["old"], w["new"]], ["run", f"git commit -am \"{t[0]}\"", 0, {"runner": "git_commit", "message": t[0], "sha": "77aa0d2"}], ["run", "git push -u origin HEAD", 128, {"runner": "git_push_denied"}], ["reply", "Push failed: no SSH key here."]]
        claims = [{"kind": "committed", "what": "push", "needles": ["git push"], "text": say(PUSHED, lang, k), "section": "current"}]
        cls = "failed_push_said_pushed"
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=[cls])


def hf_edit_failed(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[2])], ["edit_fail", w["doc"], "## Usage", "## Usage\n\nSee the new flag.", "File has not been read yet. Read it first before writing to it."], ["reply", "Need to read the doc first."]]
    claims = [{"kind": "file_changed", "file": w["doc"], "needles": [w["doc"].rsplit("/", 1)[-1]], "text": f"`{w['doc']}` now documents the change.", "section": "files"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["failed_edit_said_changed"])


def hf_late(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["all_cmd"], w["code_fail"], w["all_spec"](17, w["fail_names"][:1]), "pending"], ["finish_pending"]]
    claims = [{"kind": "tests_pass", "cmd": [w["all_cmd"]], "needles": [needle(w, w["all_cmd"])], "text": say(PASS, lang, k, c=w["all_cmd"], s=w["scope"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["result_written_after_precompact"], save_at=3, trigger="auto")


def hf_mixed(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["tasks", [[t[0], "in_progress"], [t[1], "pending"]]], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](15, w["fail_names"][:1])], ["run", "git push origin main", 1, {"runner": "git_push_rejected"}], ["reply", "Test still failing and the push was rejected."]]
    claims = [
        {"kind": "tests_pass", "cmd": [w["scope_cmd"]], "needles": [needle(w, w["scope_cmd"])], "text": say(PASS, lang, k + 1, c=w["scope_cmd"], s=w["scope"]), "section": "current"},
        {"kind": "committed", "what": "push", "needles": ["git push"], "text": say(PUSHED, lang, k), "section": "current"},
        {"kind": "file_changed", "file": w["file"], "text": say(PATCHED, lang, k + 1, f=w["file"]), "section": "files"},
        {"kind": "tests_pass", "cmd": ["lighthouse"], "text": "A Lighthouse run in the browser scored 98.", "section": "problem"},
    ]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["several_claims"])


def hf_span(w, lang, k):
    t = w["tasks"]
    steps = [["prompt", ask(w, lang, k, t[0])], ["edit", w["file"], w["old"], w["new"]], ["run", w["scope_cmd"], w["code_fail"], w["spec"](15, w["fail_names"][:1])], ["reply", "Red."], ["prompt", "try again"], ["edit", w["file"], w["new"], w["new"] + "\n"], ["run", w["scope_cmd"], 0, w["spec"](16, [])]]
    claims = [{"kind": "tests_pass", "cmd": [w["scope_cmd"]], "needles": [needle(w, w["scope_cmd"])], "text": say(PASS, lang, k, c=w["scope_cmd"], s=w["scope"]), "section": "current"}]
    return dict(steps=steps, claims=claims, traps=[], expect="false", classes=["precomputed_summary_false_in_its_span"], save_at=4, shape={"variant": "up_to"})


TRUE = [h_questions, h_recap, h_steering, h_intent, h_passfail, h_narrow, h_mention, h_clean_tree, h_script_edit, h_true_lang, h_part_quote, h_log, h_pending, h_plan_zh, h_long, h_span, h_recent, h_retry, h_recap_plain, h_questions_plain, h_latest_ja, h_latest_part, h_latest_trace, h_perl_after_patch, h_pending_reworded]
FALSE = [hf_script, hf_all, lambda w, l, k: hf_box(w, l, k), lambda w, l, k: hf_box(w, l, k, True), hf_no_edit, hf_status, hf_git, hf_edit_failed, hf_late, hf_mixed, hf_span]
FALSE_NAMES = ["script", "all", "box_one", "box_count", "no_edit", "status", "git", "edit_failed", "late", "mixed", "span"]


def build() -> list[dict]:
    cases = []
    n = 0
    for rnd in range(4):
        for client in ("codex", "claude"):
            for kind, lst in (("f", FALSE), ("t", TRUE)):
                if rnd >= 2 and kind == "t":
                    continue
                for i, scen in enumerate(lst):
                    n += 1
                    world = ORDER[(i * 2 + rnd + (client == "claude") * 3) % len(ORDER)]
                    lang = LANGS[(i * 5 + rnd * 7 + (client == "claude")) % len(LANGS)]
                    if scen in (h_narrow, h_script_edit, h_perl_after_patch):
                        lang = "en"
                        world = "thumbs" if scen is h_narrow and (i + rnd) % 2 == 0 else world
                    if scen is h_plan_zh and client == "codex":
                        continue
                    if scen is h_plan_zh:
                        lang = "zh"
                    k = i + rnd * 2 + (client == "claude")
                    if scen is h_narrow:
                        k = 0 if world == "thumbs" else 1
                    w = W[world]
                    d = scen(w, lang, k)
                    lang = d.pop("lang", lang)
                    if client == "codex":
                        # Codex summarizes the whole record when it compacts, after every output
                        # is written: the partial and precomputed spans and the late result are
                        # Claude Code's alone.
                        if d.get("shape", {}).get("variant") in ("up_to", "recent"):
                            continue
                        if author.late_result_for_codex(d):
                            d["trigger"] = "auto"
                    first = next((j for j, st in enumerate(d["steps"]) if st[0] == "prompt"), 0)
                    d["steps"][first + 1 : first + 1] = [["read", *CONTEXT[world]], ["read", *RUNBOOK[world]], ["read", *HELPERS[world]]]
                    if d.get("save_at") is not None:
                        d["save_at"] += 3
                    b, cut = base(lang, client == "codex", n)
                    if d.pop("clean_base", False):
                        while author.open_in_base(b, cut):
                            b, cut = base(lang, client == "codex", n + 1)
                    if b == "codex:fixture" and kind == "t" and scen in (h_recap,):
                        b, cut = BASES["en"][n % len(BASES["en"])]
                    shape = dict(SHAPES[n % len(SHAPES)]) if client == "claude" else {"codex_style": ["markdown", "plain", "bold"][n % 3], "codex_code": n % 16 != 3}
                    shape.update(d.pop("shape", {}))
                    if lang not in ("en",) and n % 2 == 0:
                        shape["translated_headings"] = True
                    name = scen.__name__ if kind == "t" else FALSE_NAMES[i]
                    cases.append(
                        dict(
                            id=f"heldout-{'cc' if client == 'claude' else 'cx'}-{kind}-{name.replace('h_', '').replace('hf_', '')}-{world}-{lang}-{rnd}",
                            client=client,
                            base=b,
                            cut=cut,
                            lang=lang,
                            trigger=d.pop("trigger", ["auto", "manual"][n % 2]),
                            shape=shape,
                            concepts=w["concepts"],
                            **d,
                        )
                    )
    return cases
