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


RUNNERS = {
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
