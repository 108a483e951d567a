"""What the TUNE2 half's test runners print, as the runner versions named below print it.

`scenarios_tune2.py` renders a run's output here once, at authoring, and stores the text in the
case's step (`["run", cmd, exit, text]`): the shared `outputs.py` is left as the other halves
use it. Each function takes the numbers of the run (passed, the names that failed) and returns
`(exit code, text)`; the exit code is the one the runner (or the wrapper: just, composer, npm,
turbo) really exits with.

Layouts: pytest 8 (`-q`), go 1.23 `go test`, vitest 2 under turbo 2, Maven 3.9 surefire 3,
Gradle 8 (JUnit 5), Django 5 `manage.py test`, Rails 7.2 minitest, RSpec 3.13, cargo-nextest
0.9, CTest 3.28, ExUnit (Elixir 1.17), PHPUnit 11 (and `composer test`), dotnet 8 VSTest,
bun 1.1, just 1.36, and git's own messages.
"""

from __future__ import annotations


def _pytest_q(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    total = passed + len(failed)
    marks = "." * passed
    for i, _ in enumerate(failed):
        at = min(len(marks), (i + 1) * max(1, passed // (len(failed) + 1)))
        marks = marks[:at] + "F" + marks[at:]
    lines = []
    width = 72
    for i in range(0, len(marks), width):
        chunk = marks[i : i + width]
        pct = min(100, round(100 * (i + len(chunk)) / max(1, total)))
        lines.append(f"{chunk:<{width}} [{pct:3d}%]")
    if failed:
        lines.append("=================================== FAILURES ===================================")
        for f in failed:
            name = f.split("::")[-1]
            lines += [
                f"{'_' * 24} {name} {'_' * 24}",
                "",
                detail.get("fixture", "client = <FlaskClient <Flask 'linkshort'>>"),
                "",
                f"    def {name}({detail.get('arg', 'client')}):",
                "        " + detail.get("setup", 'resp = client.get("/r/old-slug")'),
                f">       {detail.get('assert', 'assert resp.status_code == 404')}",
                f"E       {detail.get('error', 'assert 302 == 404')}",
                "",
                f"{f.split('::')[0]}:{detail.get('line', 48)}: AssertionError",
            ]
        lines.append("=========================== short test summary info ============================")
        for f in failed:
            lines.append(f"FAILED {f} - {detail.get('error', 'assert 302 == 404')}")
        lines.append(f"{len(failed)} failed, {passed} passed in {0.4 + total * 0.02:.2f}s")
        return 1, "\n".join(lines)
    lines.append(f"{passed} passed in {0.4 + total * 0.02:.2f}s")
    return 0, "\n".join(lines)


def _go(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    mod = detail.get("module", "github.com/acme/tally")
    pkgs = detail.get("packages", ["internal/parse", "internal/report", "cmd/tally"])
    lines = [f"?   \t{mod}\t[no test files]"]
    bad_pkg = detail.get("failing_package", pkgs[0])
    for p in pkgs:
        if failed and p == bad_pkg:
            for f in failed:
                lines += [f"--- FAIL: {f} (0.00s)", f"    {detail.get('where', 'csv_test.go:57')}: {detail.get('error', 'got 3 columns, want 4')}"]
            lines += ["FAIL", f"FAIL\t{mod}/{p}\t0.{len(p) * 17 % 900 + 100:03d}s"]
        else:
            lines.append(f"ok  \t{mod}/{p}\t(cached)" if len(p) % 2 else f"ok  \t{mod}/{p}\t0.{len(p) * 31 % 900 + 100:03d}s")
    if failed:
        lines.append("FAIL")
        return 1, "\n".join(lines)
    return 0, "\n".join(lines)


def _vitest_turbo(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    pkg = detail.get("package", "@atlas/ui")
    others = detail.get("others", ["@atlas/core", "@atlas/api-client"])
    pre = f"{pkg}:test: "
    lines = ["• Packages in scope: " + ", ".join(sorted([pkg] + others)), f"• Running test in {len(others) + 1} packages", "• Remote caching disabled", ""]
    for o in others:
        lines += [f"{o}:test: cache hit, replaying logs 6f1e2d9c0a7b4e35", f"{o}:test: ", f"{o}:test:  Test Files  4 passed (4)", f"{o}:test:       Tests  31 passed (31)"]
    files = detail.get("files", ["src/Button.test.tsx", "src/DatePicker.test.tsx", "src/useDebounce.test.ts"])
    ffiles = sorted({f.split(" > ")[0] for f in failed})
    lines += [f"{pre}cache miss, executing 3b9a0c1d7e2f4a68", pre, f"{pre}> {pkg}@0.14.2 test /home/dev/atlas/packages/ui", f"{pre}> vitest run", pre, f"{pre} RUN  v2.1.4 /home/dev/atlas/packages/ui", pre]
    per = max(1, passed // len(files))
    for f in files:
        if f in ffiles:
            k = sum(1 for x in failed if x.startswith(f + " > "))
            lines.append(f"{pre} ❯ {f} ({per + k} tests | {k} failed) 48ms")
            for x in failed:
                if x.startswith(f + " > "):
                    lines.append(f"{pre}   × {x.split(' > ', 1)[1]} 9ms")
                    lines.append(f"{pre}     → {detail.get('error', 'expected 0 to be 1 // Object.is equality')}")
        else:
            lines.append(f"{pre} ✓ {f} ({per} tests) 31ms")
    lines.append(pre)
    tf = len(ffiles)
    lines.append(f"{pre} Test Files  {str(tf) + ' failed | ' if tf else ''}{len(files) - tf} passed ({len(files)})")
    lines.append(f"{pre}      Tests  {str(len(failed)) + ' failed | ' if failed else ''}{passed} passed ({passed + len(failed)})")
    lines.append(f"{pre}   Duration  1.37s")
    if failed:
        lines += [f"{pre}ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  {pkg}@0.14.2 test: `vitest run`", f"{pre}Exit status 1", f"{pkg}:test: ERROR: command finished with error: command (/home/dev/atlas/packages/ui) /usr/local/bin/pnpm run test exited (1)", "", f" Tasks:    {len(others)} successful, {len(others) + 1} total", f"Cached:    {len(others)} cached, {len(others) + 1} total", "  Time:    2.911s ", f"Failed:    {pkg}#test", "", " ERROR  run failed: command  exited (1)"]
        return 1, "\n".join(lines)
    lines += ["", f" Tasks:    {len(others) + 1} successful, {len(others) + 1} total", f"Cached:    {len(others)} cached, {len(others) + 1} total", "  Time:    2.604s "]
    return 0, "\n".join(lines)


def _vitest_filter(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    """`pnpm --filter <pkg> test`: one package, no turbo."""
    code, text = _vitest_turbo(passed, failed, dict(detail, others=[]))
    pre = f"{detail.get('package', '@atlas/ui')}:test: "
    keep = [l[len(pre):] if l.startswith(pre) else None for l in text.split("\n")]
    keep = [l for l in keep if l is not None and "cache miss" not in l and "ERROR: command" not in l and not l.startswith(("ERR_PNPM", "Exit status"))]
    if failed:
        keep += [f"/home/dev/atlas/packages/ui:", f" ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  {detail.get('package', '@atlas/ui')}@0.14.2 test: `vitest run`", "Exit status 1"]
    return code, "\n".join(keep)


def _maven(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    classes = detail.get("classes", ["com.acme.ledger.TransferServiceTest", "com.acme.ledger.AccountRepositoryTest", "com.acme.ledger.api.TransferControllerTest"])
    total = passed + len(failed)
    lines = [
        "[INFO] Scanning for projects...",
        "[INFO] ",
        f"[INFO] ---------------------< com.acme:{detail.get('artifact', 'ledgerd')} >----------------------",
        f"[INFO] Building {detail.get('artifact', 'ledgerd')} 2.7.0-SNAPSHOT",
        "[INFO]   from pom.xml",
        "[INFO] --------------------------------[ jar ]---------------------------------",
        "[INFO] --- surefire:3.2.5:test (default-test) @ ledgerd ---",
        "[INFO] Using auto detected provider org.apache.maven.surefire.junitplatform.JUnitPlatformProvider",
        "[INFO] ",
        "[INFO] -------------------------------------------------------",
        "[INFO]  T E S T S",
        "[INFO] -------------------------------------------------------",
    ]
    left = passed
    for i, c in enumerate(classes):
        short = c.rsplit(".", 1)[1]
        mine = [f for f in failed if f.startswith(short + ".")]
        ok = left // (len(classes) - i)
        left -= ok
        n = ok + len(mine)
        lines.append(f"[INFO] Running {c}")
        if mine:
            lines.append(f"[ERROR] Tests run: {n}, Failures: {len(mine)}, Errors: 0, Skipped: 0, Time elapsed: 0.{n * 41 % 900 + 100:03d} s <<< FAILURE! -- in {c}")
            for f in mine:
                lines += [f"[ERROR] {c}.{f.split('.', 1)[1]} -- Time elapsed: 0.031 s <<< FAILURE!", f"org.opentest4j.AssertionFailedError: {detail.get('error', 'expected: <REJECTED> but was: <ACCEPTED>')}", f"\tat {c}.{f.split('.', 1)[1]}({short}.java:{detail.get('line', 48)})", ""]
        else:
            lines.append(f"[INFO] Tests run: {n}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: {n * 0.13 + 0.2:.3f} s -- in {c}")
    lines += ["[INFO] ", "[INFO] Results:", "[INFO] "]
    if failed:
        lines.append("[ERROR] Failures: ")
        for f in failed:
            lines.append(f"[ERROR]   {f}:{detail.get('line', 48)} {detail.get('error', 'expected: <REJECTED> but was: <ACCEPTED>')}")
        lines += ["[INFO] ", f"[ERROR] Tests run: {total}, Failures: {len(failed)}, Errors: 0, Skipped: 0", "[INFO] ", "[INFO] ------------------------------------------------------------------------", "[INFO] BUILD FAILURE", "[INFO] ------------------------------------------------------------------------", "[INFO] Total time:  9.412 s", "[INFO] Finished at: 2026-11-25T10:14:07Z", "[INFO] ------------------------------------------------------------------------", f"[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project {detail.get('artifact', 'ledgerd')}: There are test failures.", "[ERROR] ", "[ERROR] Please refer to /home/dev/ledgerd/target/surefire-reports for the individual test results."]
        return 1, "\n".join(lines)
    lines += [f"[INFO] Tests run: {total}, Failures: 0, Errors: 0, Skipped: 0", "[INFO] "]
    if detail.get("verify"):
        lines += ["[INFO] --- jar:3.4.1:jar (default-jar) @ ledgerd ---", "[INFO] Building jar: /home/dev/ledgerd/target/ledgerd-2.7.0-SNAPSHOT.jar", "[INFO] --- failsafe:3.2.5:integration-test (default) @ ledgerd ---", "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0"]
    lines += ["[INFO] ------------------------------------------------------------------------", "[INFO] BUILD SUCCESS", "[INFO] ------------------------------------------------------------------------", "[INFO] Total time:  11.207 s", "[INFO] Finished at: 2026-11-25T10:21:44Z", "[INFO] ------------------------------------------------------------------------"]
    return 0, "\n".join(lines)


def _gradle(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    task = detail.get("task", ":core:test")
    lines = ["> Task :core:compileKotlin UP-TO-DATE", "> Task :core:compileJava NO-SOURCE", "> Task :core:classes UP-TO-DATE", "> Task :core:compileTestKotlin", "> Task :core:testClasses", f"> Task {task}"]
    total = passed + len(failed)
    if failed:
        lines.append("")
        for f in failed:
            cls, name = f.split(".", 1)
            lines += [f"{cls} > {name}() FAILED", f"    org.opentest4j.AssertionFailedError at {cls}.kt:{detail.get('line', 57)}", ""]
        lines += [f"{total} tests completed, {len(failed)} failed", "", f"> Task {task} FAILED", "", "FAILURE: Build failed with an exception.", "", "* What went wrong:", f"Execution failed for task '{task}'.", f"> There were failing tests. See the report at: file:///home/dev/parcel-api/core/build/reports/tests/test/index.html", "", "* Try:", "> Run with --scan to get full insights.", "", "BUILD FAILED in 8s", "6 actionable tasks: 3 executed, 3 up-to-date"]
        return 1, "\n".join(lines)
    lines += ["", "BUILD SUCCESSFUL in 11s", "6 actionable tasks: 3 executed, 3 up-to-date"]
    return 0, "\n".join(lines)


def _django(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    total = passed + len(failed)
    lines = [f"Found {total} test(s).", "Creating test database for alias 'default'...", "System check identified no issues (0 silenced).", "." * (passed // 2) + "F" * len(failed) + "." * (passed - passed // 2)]
    for f in failed:
        lines += ["======================================================================", f"FAIL: {f}", "----------------------------------------------------------------------", "Traceback (most recent call last):", f'  File "/home/dev/clinic/{detail.get("file", "appointments/tests/test_booking.py")}", line {detail.get("line", 64)}, in {f.split(" ")[0]}', f"    {detail.get('assert', 'self.assertEqual(response.status_code, 409)')}", f"AssertionError: {detail.get('error', '201 != 409')}", ""]
    lines += ["----------------------------------------------------------------------", f"Ran {total} tests in {0.3 + total * 0.011:.3f}s", "", f"FAILED (failures={len(failed)})" if failed else "OK", "Destroying test database for alias 'default'..."]
    return (1 if failed else 0), "\n".join(lines)


def _minitest(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    total = passed + len(failed)
    lines = [f"Running {total} tests in a single process (parallelization threshold is 50)", "Run options: --seed 41233", "", "# Running:", "", "." * (passed - 3) + "F" * len(failed) + "..."]
    for f in failed:
        lines += ["", "Failure:", f"{f} [{detail.get('where', 'test/models/loan_test.rb:18')}]:", detail.get("error", "Expected true to be falsy."), "", f"bin/rails test {detail.get('where', 'test/models/loan_test.rb:18').rsplit(':', 1)[0]}:{int(detail.get('where', 'x:18').rsplit(':', 1)[1]) - 4}", ""]
    lines += ["", f"Finished in 0.{total * 17 % 900 + 100:03d}s, 55.8 runs/s, 80.1 assertions/s.", f"{total} runs, {total + 9} assertions, {len(failed)} failures, 0 errors, 0 skips"]
    return (1 if failed else 0), "\n".join(lines)


def _rspec(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    total = passed + len(failed)
    lines = ["." * (passed // 2) + "F" * len(failed) + "." * (passed - passed // 2), ""]
    if failed:
        lines += ["Failures:", ""]
        for i, f in enumerate(failed, 1):
            lines += [f"  {i}) {f}", f"     Failure/Error: {detail.get('assert', 'expect(loan.overdue?).to be(true)')}", "", "       " + detail.get("error", "expected true\n            got false"), f"     # ./{detail.get('spec', 'spec/models/loan_spec.rb')}:{detail.get('line', 22)}:in `block (3 levels) in <top (required)>'", ""]
    lines += [f"Finished in 0.{total * 7 % 90 + 10:02d} seconds (files took 1.91 seconds to load)", f"{total} examples, {len(failed)} failure{'s' if len(failed) != 1 else ''}"]
    if failed:
        lines += ["", "Failed examples:", ""]
        for f in failed:
            lines.append(f"rspec ./{detail.get('spec', 'spec/models/loan_spec.rb')}:{detail.get('line', 22) - 3} # {f}")
        return 1, "\n".join(lines)
    return 0, "\n".join(lines)


def _nextest(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    total = passed + len(failed)
    crates = detail.get("crates", ["quarry-index", "quarry-query", "quarry-cli"])
    lines = ["    Finished `test` profile [unoptimized + debuginfo] target(s) in 3.84s", f"    Starting {total} tests across {len(crates) + 1} binaries"]
    shown = 0
    names = {"quarry-index": ["segment::tests::tombstone_lookup", "postings::tests::sorted_by_doc", "tokenize::tests::unicode_words"], "quarry-query": ["parse::tests::phrase_query", "eval::tests::boolean_and", "rank::tests::bm25_orders_by_tf"], "quarry-cli": ["cli::help_lists_commands", "cli::index_dir_roundtrip", "cli::query_prints_json"]}
    for c in crates:
        for j, t in enumerate(names.get(c, ["tests::smoke"])[: max(0, min(3, passed - shown))]):
            lines.append(f"        PASS [   0.0{(shown * 7) % 90 + 10:02d}s] {c} {t}")
            shown += 1
    if passed > shown:
        lines.append(f"        PASS [   0.004s] ... ({passed - shown} more)")
    for f in failed:
        lines += [f"        FAIL [   0.021s] {f}", "", f"--- STDERR:              {f} ---", f"thread '{f.split(' ', 1)[1]}' panicked at {detail.get('at', 'crates/quarry-index/src/segment.rs:88:9')}:", "assertion `left == right` failed", f"  left: {detail.get('left', '3')}", f" right: {detail.get('right', '2')}", "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace", ""]
    lines.append("------------")
    if failed:
        lines.append(f"     Summary [   0.214s] {total} tests run: {passed} passed, {len(failed)} failed, 0 skipped")
        for f in failed:
            lines.append(f"        FAIL [   0.021s] {f}")
        lines.append("error: test run failed")
        return 100, "\n".join(lines)
    lines.append(f"     Summary [   0.198s] {total} tests run: {total} passed, 0 skipped")
    return 0, "\n".join(lines)


def _ctest(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    names = detail.get("names", ["png_decode", "png_encode", "jpeg_decode", "resize_nearest", "resize_bilinear", "resize_lanczos", "color_srgb", "color_linear", "tiles_split", "tiles_merge", "cli_smoke"])
    tests = list(names)
    while len(tests) < passed + len(failed):
        tests.append(f"extra_{len(tests)}")
    tests = [t for t in tests if t not in failed][:passed] + list(failed)
    order = sorted(tests, key=lambda t: names.index(t) if t in names else 99)
    total = len(order)
    lines = [f"Internal ctest changing into directory: /home/dev/raster/build", "Test project /home/dev/raster/build"]
    for i, t in enumerate(order, 1):
        lines.append(f"      Start {i:2d}: {t}")
        dots = "." * max(3, 32 - len(t))
        if t in failed:
            lines.append(f"{i:2d}/{total} Test #{i:2d}: {t} {dots}***Failed    0.05 sec")
        else:
            lines.append(f"{i:2d}/{total} Test #{i:2d}: {t} {dots}   Passed    0.0{i % 9 + 1} sec")
    pct = 100.0 * (total - len(failed)) / total
    pct = int(round(min(pct, 99.0) if failed else pct))
    lines += ["", f"{pct}% tests passed, {len(failed)} tests failed out of {total}", "", "Total Test time (real) =   0.61 sec"]
    if failed:
        lines += ["", "The following tests FAILED:"]
        for t in failed:
            lines.append(f"\t{order.index(t) + 1:3d} - {t} (Failed)")
        lines += ["Errors while running CTest", "Output from these tests are in: /home/dev/raster/build/Testing/Temporary/LastTest.log", "Use \"--rerun-failed --output-on-failure\" to re-run the failed cases verbosely."]
        return 8, "\n".join(lines)
    return 0, "\n".join(lines)


def _mix(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    total = passed + len(failed)
    lines = ["Compiling 2 files (.ex)", "Generated relay app", "Running ExUnit with seed: 412903, max_cases: 16", "", "." * (passed // 2)]
    for i, f in enumerate(failed, 1):
        lines += ["", f"  {i}) {f}", f"     {detail.get('where', 'test/relay/presence_test.exs:31')}", "     Assertion with == failed", "     code:  " + detail.get("assert", 'assert diff.leaves == ["u2"]'), f"     left:  {detail.get('left', '[]')}", "     right: " + detail.get("right", '["u2"]'), "     stacktrace:", f"       {detail.get('where', 'test/relay/presence_test.exs:31').rsplit(':', 1)[0]}:37: (test)", ""]
    lines.append("." * (passed - passed // 2))
    lines += [f"Finished in 0.4 seconds (0.1s async, 0.3s sync)", f"{total} tests, {len(failed)} failure{'s' if len(failed) != 1 else ''}", "", "Randomized with seed 412903"]
    return (2 if failed else 0), "\n".join(lines)


def _phpunit(passed: int, failed: list[str], detail: dict, composer: bool = False) -> tuple[int, str]:
    total = passed + len(failed)
    dots = "." * (passed // 2) + "F" * len(failed) + "." * (passed - passed // 2)
    lines = (["> vendor/bin/phpunit"] if composer else []) + ["PHPUnit 11.4.3 by Sebastian Bergmann and contributors.", "", "Runtime:       PHP 8.3.12", "Configuration: /home/dev/booking/phpunit.xml", "", f"{dots:<63} {total} / {total} (100%)", "", "Time: 00:00.184, Memory: 24.00 MB", ""]
    if failed:
        lines.append(f"There {'was' if len(failed) == 1 else 'were'} {len(failed)} failure{'s' if len(failed) != 1 else ''}:")
        lines.append("")
        for i, f in enumerate(failed, 1):
            lines += [f"{i}) {f}", detail.get("error", "Failed asserting that two arrays are identical."), "--- Expected", "+++ Actual", "@@ @@", " Array &0 [", "-    0 => '2026-12-01',", "+    0 => '2026-11-30',", " ]", "", f"/home/dev/booking/{detail.get('file', 'tests/Unit/SlotFinderTest.php')}:{detail.get('line', 42)}", ""]
        lines += ["FAILURES!", f"Tests: {total}, Assertions: {total * 2 + 5}, Failures: {len(failed)}."]
        if composer:
            lines.append("Script vendor/bin/phpunit handling the test event returned with error code 1")
        return 1, "\n".join(lines)
    lines.append(f"OK ({total} tests, {total * 2 + 5} assertions)")
    return 0, "\n".join(lines)


def _composer(passed, failed, detail):
    return _phpunit(passed, failed, detail, composer=True)


def _dotnet(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    total = passed + len(failed)
    dll = detail.get("dll", "Meridian.Api.Tests.dll")
    lines = ["  Determining projects to restore...", "  All projects are up-to-date for restore.", "  Meridian.Api -> /home/dev/meridian/src/Meridian.Api/bin/Debug/net8.0/Meridian.Api.dll", f"  Meridian.Api.Tests -> /home/dev/meridian/tests/Meridian.Api.Tests/bin/Debug/net8.0/{dll}", f"Test run for /home/dev/meridian/tests/Meridian.Api.Tests/bin/Debug/net8.0/{dll} (.NETCoreApp,Version=v8.0)", "VSTest version 17.11.1 (x64)", "", "Starting test execution, please wait...", "A total of 1 test files matched the specified pattern."]
    for f in failed:
        lines += [f"  Failed {f} [12 ms]", "  Error Message:", f"   {detail.get('error', 'Assert.Equal() Failure: Values differ')}", f"Expected: {detail.get('expected', '404')}", f"Actual:   {detail.get('actual', '500')}", "  Stack Trace:", f"     at {f}() in /home/dev/meridian/{detail.get('file', 'tests/Meridian.Api.Tests/QuoteEndpointTests.cs')}:line {detail.get('line', 37)}", ""]
    if failed:
        lines.append(f"Failed!  - Failed:     {len(failed)}, Passed:    {passed}, Skipped:     0, Total:    {total}, Duration: 412 ms - {dll} (net8.0)")
        return 1, "\n".join(lines)
    lines.append(f"Passed!  - Failed:     0, Passed:    {passed}, Skipped:     0, Total:    {total}, Duration: 398 ms - {dll} (net8.0)")
    return 0, "\n".join(lines)


def _bun(passed: int, failed: list[str], detail: dict) -> tuple[int, str]:
    files = detail.get("files", ["src/ingest.test.ts", "src/window.test.ts", "src/sink.test.ts"])
    lines = ["bun test v1.1.34 (5e5e7c60)", ""]
    per = max(1, passed // len(files))
    for f in files:
        lines.append(f"{f}:")
        group = f.rsplit("/", 1)[1].split(".")[0]
        for j, t in enumerate(["accepts a batch", "counts by type", "keeps order"][: min(per, 3)]):
            lines.append(f"✓ {group} > {t} [0.{j + 1}{j}ms]")
        for x in failed:
            if x.startswith(f + " > "):
                lines += [f"✗ {x.split(' > ', 1)[1]} [1.02ms]", "", "error: expect(received).toBe(expected)", "", f"Expected: {detail.get('expected', '2')}", f"Received: {detail.get('received', '3')}", "", f"      at /home/dev/pulse/{f}:27:30", ""]
        lines.append("")
    lines += [f" {passed} pass", f" {len(failed)} fail", f" {passed * 2 + 3} expect() calls", f"Ran {passed + len(failed)} tests across {len(files)} files. [92.00ms]"]
    return (1 if failed else 0), "\n".join(lines)


def just_wrap(recipe_cmd: str, recipe: str, line: int, inner: tuple[int, str]) -> tuple[int, str]:
    """`just <recipe>`: just echoes the recipe's command line, then its output; a failing
    command ends the recipe with just's own line."""
    code, text = inner
    out = f"{recipe_cmd}\n{text}"
    if code:
        out += f"\nerror: Recipe `{recipe}` failed on line {line} with exit code {code}"
    return code, out


def npm_wrap(pkg: str, script: str, body: str, inner: tuple[int, str]) -> tuple[int, str]:
    code, text = inner
    out = f"> {pkg} {script}\n> {body}\n\n{text}"
    if code:
        out += f"\nnpm error Lifecycle script `{script}` failed with error:\nnpm error code {code}\nnpm error path /home/dev/project\nnpm error workspace {pkg.split('@')[0] or pkg}\nnpm error command failed\nnpm error command sh -c {body}"
    return code, out


RUNNERS = {
    "pytest_q": _pytest_q,
    "go": _go,
    "vitest_turbo": _vitest_turbo,
    "vitest_filter": _vitest_filter,
    "maven": _maven,
    "gradle": _gradle,
    "django": _django,
    "minitest": _minitest,
    "rspec": _rspec,
    "nextest": _nextest,
    "ctest": _ctest,
    "mix": _mix,
    "phpunit": _phpunit,
    "composer": _composer,
    "dotnet": _dotnet,
    "bun": _bun,
}


def render(runner: str, passed: int, failed: list[str], detail: dict | None = None) -> tuple[int, str]:
    return RUNNERS[runner](passed, list(failed), dict(detail or {}))


# ---- git, as git 2.4x prints it


def git_commit_ok(branch: str, sha: str, message: str, files: int = 2, ins: int = 31, dels: int = 6) -> str:
    return f"[{branch} {sha}] {message}\n {files} files changed, {ins} insertions(+), {dels} deletions(-)"


def git_nothing(branch: str) -> str:
    return f"On branch {branch}\nnothing to commit, working tree clean"


def git_hook_commitlint(message: str) -> str:
    return (
        "→ No staged files match any configured task.\n"
        f"⧗   input: {message}\n"
        "✖   subject may not be empty [subject-empty]\n"
        "✖   type may not be empty [type-empty]\n\n"
        "✖   found 2 problems, 0 warnings\n"
        "ⓘ   Get help: https://github.com/conventional-changelog/commitlint/#what-is-commitlint\n\n"
        "husky - commit-msg script failed (code 1)"
    )


def git_hook_lint_staged(file: str) -> str:
    return (
        "✔ Preparing lint-staged...\n"
        "❯ Running tasks for staged files...\n"
        "  ❯ package.json — 2 files\n"
        f"    ❯ *.{{ts,tsx}} — 1 file\n"
        "      ✖ eslint --max-warnings=0 [FAILED]\n"
        "↓ Skipped because of errors from tasks.\n"
        "✔ Reverting to original state because of errors...\n"
        "✔ Cleaning up temporary files...\n\n"
        "✖ eslint --max-warnings=0:\n\n"
        f"/home/dev/project/{file}\n"
        "  14:7  error  'legacyId' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n"
        "✖ 1 problem (1 error, 0 warnings)\n\n"
        "husky - pre-commit script failed (code 1)"
    )


def git_gpg_fail() -> str:
    return "error: gpg failed to sign the data:\n[GNUPG:] KEY_CONSIDERED 3AA5C34371567BD2 2\ngpg: signing failed: Inappropriate ioctl for device\n\nfatal: failed to write commit object"


def git_push_protected(branch: str, repo: str) -> str:
    return (
        "Enumerating objects: 9, done.\nCounting objects: 100% (9/9), done.\nDelta compression using up to 8 threads\n"
        "Compressing objects: 100% (5/5), done.\nWriting objects: 100% (5/5), 1.02 KiB | 1.02 MiB/s, done.\n"
        "Total 5 (delta 3), reused 0 (delta 0), pack-reused 0 (from 0)\n"
        "remote: Resolving deltas: 100% (3/3), completed with 3 local objects.\n"
        f"remote: error: GH006: Protected branch update failed for refs/heads/{branch}.\n"
        "remote: \n"
        "remote: - Changes must be made through a pull request.\n"
        f"To github.com:{repo}.git\n"
        f" ! [remote rejected] {branch} -> {branch} (protected branch hook declined)\n"
        f"error: failed to push some refs to 'github.com:{repo}.git'"
    )


def git_push_non_ff(branch: str, repo: str) -> str:
    return (
        f"To github.com:{repo}.git\n ! [rejected]        {branch} -> {branch} (non-fast-forward)\n"
        f"error: failed to push some refs to 'github.com:{repo}.git'\n"
        "hint: Updates were rejected because the tip of your current branch is behind\n"
        "hint: its remote counterpart. If you want to integrate the remote changes,\n"
        "hint: use 'git pull' before pushing again.\n"
        "hint: See the 'Note about fast-forwards' in 'git push --help' for details."
    )


def git_push_ok(branch: str, repo: str, old: str, new: str, new_branch: bool = False) -> str:
    if new_branch:
        return (
            "Enumerating objects: 12, done.\nCounting objects: 100% (12/12), done.\nWriting objects: 100% (7/7), 1.44 KiB | 1.44 MiB/s, done.\n"
            f"remote: \nremote: Create a pull request for '{branch}' on GitHub by visiting:\nremote:      https://github.com/{repo}/pull/new/{branch}\nremote: \n"
            f"To github.com:{repo}.git\n * [new branch]      {branch} -> {branch}\nbranch '{branch}' set up to track 'origin/{branch}'."
        )
    return f"To github.com:{repo}.git\n   {old}..{new}  {branch} -> {branch}"
