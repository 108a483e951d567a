"""Test runners' real output shapes, for the synthetic runs the cases append.

A case writes `["run", cmd, exit, {"runner": "pytest", "passed": 11, "failed": ["tests/test_calc.py::test_add"]}]`
and gets the text that runner prints (the layouts are those of pytest 8, cargo 1.8x libtest,
go test, jest 29 under npm, python's unittest, GNU make, git 2.4x).
"""

from __future__ import annotations


def render_output(spec: dict) -> str:
    r = spec["runner"]
    fn = RUNNERS[r]
    return fn(spec)


def _pytest(s):
    passed, failed = s.get("passed", 0), s.get("failed", [])
    total = passed + len(failed)
    files = s.get("files") or sorted({f.split("::")[0] for f in failed} or {"tests/test_core.py"})
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0",
        f"rootdir: {s.get('root', '/home/dev/project')}",
        "configfile: pyproject.toml",
        f"collected {total} items",
        "",
    ]
    left = passed
    for i, f in enumerate(files):
        mine = [x for x in failed if x.startswith(f + "::")]
        ok = left // (len(files) - i)
        left -= ok
        dots = "." * ok + "F" * len(mine)
        lines.append(f"{f} {dots}")
    lines.append("")
    if failed:
        lines.append("=================================== FAILURES ===================================")
        for f in failed:
            name = f.split("::")[-1]
            lines += [
                f"_{'_' * 20} {name} {'_' * 20}",
                "",
                f"    def {name}():",
                f">       {s.get('assert', 'assert add(2, 2) == 4')}",
                f"E       {s.get('error', 'assert 5 == 4')}",
                "",
                f"{f.split('::')[0]}:{s.get('line', 14)}: AssertionError",
            ]
        lines.append("=========================== short test summary info ============================")
        for f in failed:
            lines.append(f"FAILED {f} - AssertionError: {s.get('error', 'assert 5 == 4')}")
        lines.append(f"========================= {len(failed)} failed, {passed} passed in 0.{total * 3 + 11:02d}s =========================")
    else:
        lines.append(f"============================== {passed} passed in 0.{total * 3 + 11:02d}s ===============================")
    return "\n".join(lines)


def _cargo(s):
    passed, failed = s.get("passed", 0), s.get("failed", [])
    crate = s.get("crate", "app")
    lines = [
        f"   Compiling {crate} v0.3.1 ({s.get('root', '/home/dev/project')})",
        "    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.12s",
        f"     Running {s.get('target', 'unittests src/lib.rs')} (target/debug/deps/{crate}-5f1c2a9e0b7d4c21)",
        "",
        f"running {passed + len(failed)} tests",
    ]
    for i in range(passed):
        lines.append(f"test {s.get('module', 'tests')}::case_{i:02d} ... ok")
    for f in failed:
        lines.append(f"test {f} ... FAILED")
    lines.append("")
    if failed:
        lines.append("failures:")
        lines.append("")
        for f in failed:
            lines += [
                f"---- {f} stdout ----",
                "",
                f"thread '{f}' panicked at {s.get('at', 'src/lib.rs:41:9')}:",
                "assertion `left == right` failed",
                f"  left: {s.get('left', '1005')}",
                f" right: {s.get('right', '1004')}",
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                "",
            ]
        lines.append("")
        lines.append("failures:")
        for f in failed:
            lines.append(f"    {f}")
        lines.append("")
        lines.append(f"test result: FAILED. {passed} passed; {len(failed)} failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s")
        lines.append("")
        lines.append(f"error: test failed, to rerun pass `{s.get('rerun', '--lib')}`")
    else:
        lines.append(f"test result: ok. {passed} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s")
    return "\n".join(lines)


def _go(s):
    pkgs = s.get("packages", ["example.com/app/store"])
    failed = s.get("failed", [])
    lines = []
    for f in failed:
        lines += [f"--- FAIL: {f} (0.00s)", f"    {s.get('where', 'store_test.go:42')}: {s.get('error', 'got 3, want 2')}"]
    for i, p in enumerate(pkgs):
        if failed and i == 0:
            lines += ["FAIL", f"FAIL\t{p}\t0.014s"]
        else:
            lines.append(f"ok  \t{p}\t0.0{i + 1}1s")
    if failed:
        lines.append("FAIL")
    return "\n".join(lines)


def _jest(s):
    passed, failed = s.get("passed", 0), s.get("failed", [])
    pkg = s.get("package", "app@1.0.0")
    script = s.get("script", "jest")
    lines = [f"> {pkg} test", f"> {script}", ""]
    suites = s.get("suites", ["src/format.test.js"])
    fsuites = sorted({f.split(" > ")[0] for f in failed})
    for su in suites:
        lines.append(("FAIL " if su in fsuites else "PASS ") + su)
    for f in failed:
        su, name = f.split(" > ", 1)
        lines += ["", f"  \u25cf {name}", "", f"    {s.get('error', 'expect(received).toBe(expected) // Object.is equality')}", "", "    Expected: 120", "    Received: 12", ""]
    total = passed + len(failed)
    ts = len(suites)
    fs = len(fsuites)
    if failed:
        lines.append(f"Test Suites: {fs} failed, {ts - fs} passed, {ts} total")
        lines.append(f"Tests:       {len(failed)} failed, {passed} passed, {total} total")
    else:
        lines.append(f"Test Suites: {ts} passed, {ts} total")
        lines.append(f"Tests:       {passed} passed, {total} total")
    lines += ["Snapshots:   0 total", "Time:        1.84 s", "Ran all test suites."]
    if failed:
        lines.append(f"npm error Lifecycle script `test` failed with error:\nnpm error code 1\nnpm error path {s.get('root', '/home/dev/project')}\nnpm error command failed\nnpm error command sh -c {script}")
    return "\n".join(lines)


def _unittest(s):
    passed, failed = s.get("passed", 0), s.get("failed", [])
    total = passed + len(failed)
    lines = ["." * passed + "F" * len(failed)]
    for f in failed:
        lines += [
            "======================================================================",
            f"FAIL: {f}",
            "----------------------------------------------------------------------",
            "Traceback (most recent call last):",
            f'  File "{s.get("file", "tests/test_calc.py")}", line {s.get("line", 12)}, in {f.split(" ")[0]}',
            f"    {s.get('assert', 'self.assertEqual(add(2, 2), 4)')}",
            f"AssertionError: {s.get('error', '5 != 4')}",
            "",
        ]
    lines += ["----------------------------------------------------------------------", f"Ran {total} tests in 0.003s", "", f"FAILED (failures={len(failed)})" if failed else "OK"]
    return "\n".join(lines)


def _make(s):
    inner = render_output(dict(s, runner=s.get("inner", "pytest")))
    target = s.get("target", "check")
    head = [f"{s.get('recipe', 'python3 -m pytest -q')}"]
    if s.get("failed"):
        return "\n".join(head + [inner, f"make: *** [Makefile:{s.get('line', 23)}: {target}] Error 1"])
    return "\n".join(head + [inner])


def _script(s):
    """A project's own script that prints a banner and runs an inner runner."""
    inner = render_output(dict(s, runner=s.get("inner", "cargo")))
    banner = s.get("banner", "==> running test suite")
    tail = s.get("tail_fail", "==> FAILED") if s.get("failed") else s.get("tail_ok", "==> all suites passed")
    return f"{banner}\n{inner}\n{tail}"


def _git_commit(s):
    files = s.get("files", 3)
    return f"[{s.get('branch', 'main')} {s.get('sha', '4e1f0a2')}] {s['message']}\n {files} files changed, {s.get('ins', 42)} insertions(+), {s.get('del', 7)} deletions(-)"


def _git_commit_hook_fail(s):
    return s.get("text", "ruff....................................................................Failed\n- hook id: ruff\n- exit code: 1\n\nsrc/app/core.py:12:5: F841 Local variable `tmp` is assigned to but never used\nFound 1 error.")


def _git_nothing(s):
    return f"On branch {s.get('branch', 'main')}\nYour branch is ahead of 'origin/{s.get('branch', 'main')}' by 1 commit.\n  (use \"git push\" to publish your local commits)\n\nnothing to commit, working tree clean"


def _git_push_rejected(s):
    b = s.get("branch", "main")
    return (
        f"To github.com:{s.get('repo', 'acme/app')}.git\n ! [rejected]        {b} -> {b} (fetch first)\n"
        f"error: failed to push some refs to 'github.com:{s.get('repo', 'acme/app')}.git'\n"
        "hint: Updates were rejected because the remote contains work that you do not\n"
        "hint: have locally. This is usually caused by another repository pushing to\n"
        "hint: the same ref. If you want to integrate the remote changes, use\n"
        "hint: 'git pull' before pushing again."
    )


def _git_push_ok(s):
    b = s.get("branch", "main")
    return f"To github.com:{s.get('repo', 'acme/app')}.git\n   {s.get('old', '3c2d1e0')}..{s.get('sha', '4e1f0a2')}  {b} -> {b}"


def _vitest(s):
    passed, failed = s.get("passed", 0), s.get("failed", [])
    files = s.get("suites", ["src/app.test.ts"])
    ffiles = sorted({f.split(" > ")[0] for f in failed})
    lines = [f"> {s.get('package', 'app@1.0.0')} test {s.get('root', '/home/dev/project')}", "> vitest run", "", f" RUN  v2.1.4 {s.get('root', '/home/dev/project')}", ""]
    for f in files:
        n = max(1, passed // len(files))
        if f in ffiles:
            k = sum(1 for x in failed if x.startswith(f))
            lines.append(f" \u276f {f} ({n + k} tests | {k} failed) 21ms")
            for x in failed:
                if x.startswith(f):
                    lines.append(f"   \u00d7 {x.split(' > ', 1)[1]} 4ms")
        else:
            lines.append(f" \u2713 {f} ({n} tests) 12ms")
    lines.append("")
    if failed:
        lines.append("\u23af" * 20 + " Failed Tests " + str(len(failed)) + " " + "\u23af" * 20)
        for x in failed:
            lines += ["", f" FAIL  {x}", f"AssertionError: {s.get('error', 'expected 1200 to be 1250 // Object.is equality')}"]
        lines.append("")
    tf = len(ffiles)
    lines.append(f" Test Files  {str(tf) + ' failed | ' if tf else ''}{len(files) - tf} passed ({len(files)})")
    lines.append(f"      Tests  {str(len(failed)) + ' failed | ' if failed else ''}{passed} passed ({passed + len(failed)})")
    lines.append("   Duration  1.42s")
    if failed:
        lines.append("\u2009ELIFECYCLE\u2009 Test failed. See above for more details.")
    return "\n".join(lines)


def _django(s):
    passed, failed = s.get("passed", 0), s.get("failed", [])
    total = passed + len(failed)
    lines = ["Found %d test(s)." % total, "Creating test database for alias 'default'...", "System check identified no issues (0 silenced).", "." * passed + "F" * len(failed)]
    for f in failed:
        lines += ["======================================================================", f"FAIL: {f}", "----------------------------------------------------------------------", "Traceback (most recent call last):", f'  File "{s.get("file", "notes/tests.py")}", line {s.get("line", 31)}, in {f.split(" ")[0]}', f"    {s.get('assert', 'self.assertEqual(resp.status_code, 200)')}", f"AssertionError: {s.get('error', '404 != 200')}", ""]
    lines += ["----------------------------------------------------------------------", f"Ran {total} tests in 0.412s", "", f"FAILED (failures={len(failed)})" if failed else "OK", "Destroying test database for alias 'default'..."]
    return "\n".join(lines)


def _tox(s):
    inner = render_output(dict(s, runner="pytest"))
    env = s.get("env", "py311")
    if s.get("failed"):
        return f"{env}: commands[0]> pytest -q\n{inner}\n{env}: exit 1 (2.31 seconds) /home/dev/project> pytest -q pid=4121\n  {env}: FAIL code 1 (9.80=setup[7.49]+cmd[2.31] seconds)\n  evaluation failed :( (9.92 seconds)"
    return f"{env}: commands[0]> pytest -q\n{inner}\n  {env}: OK (9.41=setup[7.10]+cmd[2.31] seconds)\n  congratulations :) (9.55 seconds)"


def _git_push_denied(s):
    return "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists."


RUNNERS = {
    "vitest": _vitest,
    "django": _django,
    "tox": _tox,
    "git_push_denied": _git_push_denied,
    "pytest": _pytest,
    "cargo": _cargo,
    "go": _go,
    "jest": _jest,
    "unittest": _unittest,
    "make": _make,
    "script": _script,
    "git_commit": _git_commit,
    "git_commit_hook_fail": _git_commit_hook_fail,
    "git_nothing": _git_nothing,
    "git_push_rejected": _git_push_rejected,
    "git_push_ok": _git_push_ok,
}
