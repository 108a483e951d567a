//! A test runner's report in a command's output, read by the runners' own result lines (cargo,
//! pytest, unittest, jest, go, rspec, JUnit, PHPUnit, dotnet, ctest, bun, ...): whether it counts
//! failures, and how many tests passed.

/// Where an action's output states a test runner's result: whether it reports failures, and the
/// line that says so. Only the runners' own result shapes count ([`RESULT_LINES`]), so that a
/// log or a grep that happens to print "FAILED" is no report.
pub(crate) fn report(output: &str) -> Option<(bool, String)> {
    let mut failed_line: Option<&str> = None;
    let mut passed_line: Option<&str> = None;
    for line in output.lines() {
        let t = line.trim();
        let lower = t.to_lowercase();
        let Some(failed) = RESULT_LINES.iter().find_map(|read| read(&lower)) else {
            continue;
        };
        if failed {
            failed_line.get_or_insert(t);
        } else {
            passed_line = Some(t);
        }
    }
    match (failed_line, passed_line) {
        (Some(f), _) => Some((true, crate::text::folded_line(f, 100))),
        (None, Some(p)) => Some((false, crate::text::folded_line(p, 100))),
        _ => None,
    }
}

/// A reader of one runner's result line (lowercased): `Some(true)` when it reports failures,
/// `Some(false)` when it reports success, `None` when the line is not of that shape.
type ResultLine = fn(&str) -> Option<bool>;

/// The test runners' result lines.
const RESULT_LINES: &[ResultLine] = &[
    // cargo test: "test result: FAILED. 10 passed; 1 failed"; "error: test failed, to rerun"
    |l| {
        l.strip_prefix("test result: ")
            .map(|r| r.starts_with("failed"))
    },
    |l| l.starts_with("error: test failed").then_some(true),
    // pytest: "===== 1 failed, 10 passed in 0.12s =====", or the same without the rules (-q)
    |l| {
        let body = l.trim_matches(['=', ' ']);
        let counted = ["passed", "failed", "error", "errors"]
            .iter()
            .any(|w| count_before(body, &[&format!(" {w}")]).is_some());
        (counted && body.contains(" in ") && body.ends_with('s') && body.len() < 120)
            .then(|| failures(body, &[" failed", " error"]))
    },
    // unittest (and Django): "FAILED (failures=1)", "FAILED (errors=2)", "OK"
    |l| (l.starts_with("failed (failures=") || l.starts_with("failed (errors=")).then_some(true),
    |l| (l == "ok" || l.starts_with("ok (skipped=")).then_some(false),
    // jest, vitest: "Tests:  1 failed, 10 passed, 11 total", "Tests  1 failed | 10 passed (11)"
    |l| {
        (l.starts_with("tests:")
            || l.starts_with("tests ")
            || l.starts_with("test suites:")
            || l.starts_with("test files "))
        .then_some(())
        .filter(|()| l.contains(" passed") || l.contains(" failed"))
        .map(|()| failures(l, &[" failed"]))
    },
    // mocha: "10 passing (20ms)", "1 failing"
    |l| {
        count_before(l, &[" failing"])
            .filter(|_| l.ends_with(" failing"))
            .map(|n| n > 0)
    },
    |l| {
        let mocha = count_before(l, &[" passing"]).is_some()
            && (l.ends_with(" passing") || l.ends_with("ms)") || l.ends_with("s)"));
        mocha.then_some(false)
    },
    // go test: "--- FAIL: TestX", "FAIL\tpkg", "FAIL", "ok  \tpkg"
    |l| (l.starts_with("--- fail:") || l.starts_with("fail\t") || l == "fail").then_some(true),
    |l| l.starts_with("ok  \t").then_some(false),
    // rspec: "11 examples, 1 failure"; mix: "11 tests, 1 failure"
    |l| {
        (l.contains(" examples, ") || l.contains(" tests, ") || l.contains(" test, "))
            .then_some(())
            .filter(|()| l.contains(" failure"))
            .map(|()| failures(l, &[" failure"]))
    },
    // TAP: "# fail 1", "# pass 10"
    |l| l.strip_prefix("# fail ").map(|n| n.trim() != "0"),
    |l| l.starts_with("# pass ").then_some(false),
    // JUnit (Maven, Gradle): "Tests run: 11, Failures: 1, Errors: 0, Skipped: 0"
    |l| {
        l.starts_with("tests run:").then(|| {
            count_after(l, "failures:").unwrap_or(0) + count_after(l, "errors:").unwrap_or(0) > 0
        })
    },
    // Gradle: "11 tests completed, 1 failed"
    |l| {
        l.contains(" tests completed")
            .then(|| failures(l, &[" failed"]))
    },
    // PHPUnit: "FAILURES!", "Tests: 11, Assertions: 20, Failures: 1.", "OK (11 tests, 20 assertions)"
    |l| (l == "failures!" || l == "errors!").then_some(true),
    |l| {
        (l.starts_with("tests:") && l.contains("assertions:")).then(|| {
            count_after(l, "failures:").unwrap_or(0) + count_after(l, "errors:").unwrap_or(0) > 0
        })
    },
    |l| (l.starts_with("ok (") && l.contains(" test")).then_some(false),
    // dotnet test: "Failed!  - Failed:     1, Passed:    10", "Passed!  - Failed:     0"
    |l| l.strip_prefix("failed!").map(|_| true),
    |l| l.strip_prefix("passed!").map(|_| false),
    // ctest: "91% tests passed, 1 tests failed out of 11"
    |l| {
        l.contains("% tests passed")
            .then(|| failures(l, &[" tests failed", " test failed"]))
    },
    // bun test: " 10 pass", " 1 fail"; deno: "FAILED | 10 passed | 1 failed"
    |l| {
        count_before(l, &[" fail"])
            .filter(|_| l.ends_with(" fail"))
            .map(|n| n > 0)
    },
    |l| (l.starts_with("failed | ") || l.starts_with("ok | ")).then(|| failures(l, &[" failed"])),
    // Anything else as short as a summary: "10 passed, 1 failed", "1 failed, 10 passed in 2s"
    |l| {
        let counted = count_before(l, &[" passed", " failed"]).is_some();
        (counted
            && l.split_whitespace().count() <= 12
            && (l.contains("test") || l.contains(" in ") || l.contains(',')))
        .then(|| failures(l, &[" failed"]))
    },
];

/// Whether a result line counts failures (a number above zero before one of `nouns`).
fn failures(l: &str, nouns: &[&str]) -> bool {
    nouns.iter().any(|n| {
        let mut from = 0;
        while let Some(at) = l[from..].find(n) {
            let end = from + at;
            if number_ending(&l[..end]).is_some_and(|c| c > 0) {
                return true;
            }
            from = end + n.len();
        }
        false
    })
}

/// How many tests a runner's report says passed (`None`: no report with a count).
pub(crate) fn passed_count(output: &str) -> Option<u64> {
    output.lines().rev().find_map(|l| {
        let l = l.to_lowercase();
        report(&l)?;
        count_before(&l, &[" passed", " passing", " pass"])
            .or_else(|| count_after(&l, "passed:"))
            .or_else(|| {
                // JUnit: "Tests run: 11, Failures: 1" passed 10.
                let run = count_after(&l, "tests run:")?;
                let bad = count_after(&l, "failures:").unwrap_or(0)
                    + count_after(&l, "errors:").unwrap_or(0);
                run.checked_sub(bad)
            })
    })
}

/// The number right before the first of `after` in `s` ("3 failed" -> 3).
fn count_before(s: &str, after: &[&str]) -> Option<u64> {
    after.iter().find_map(|a| {
        let i = s.find(a)?;
        number_ending(&s[..i])
    })
}

/// The number `s` ends with, spaces after it aside ("3 failed" cut before "failed" -> 3).
fn number_ending(s: &str) -> Option<u64> {
    let digits: String = s
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().ok()
}

/// The number right after `key` in `s` ("failures: 1" -> 1).
fn count_after(s: &str, key: &str) -> Option<u64> {
    let rest = s[s.find(key)? + key.len()..].trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Whether a test command's output says it ran no test at all: a filter that matched nothing,
/// a collection without a run ("no tests ran", "collected 0 items", "No tests found", "0
/// passing"), or only result lines that count nothing. `whole`: the output was kept whole (a
/// cut output's middle may hold the targets that did run tests; cargo ends every run with its
/// doc-tests' "0 passed").
pub(crate) fn ran_nothing(output: &str, whole: bool) -> bool {
    let lower = output.to_lowercase();
    let said = [
        "no tests ran",
        "collected 0 items",
        "no tests found",
        "0 passing",
        "ran 0 tests",
    ]
    .iter()
    .any(|m| lower.contains(m));
    if said {
        return true;
    }
    // Every result line counts nothing ("test result: ok. 0 passed; 0 failed; ... 3 filtered out").
    let mut results = lower
        .lines()
        .filter(|l| report(l).is_some())
        .map(|l| count_before(l, &[" passed", " passing", " pass"]).unwrap_or(1) == 0)
        .peekable();
    whole && results.peek().is_some() && results.all(|zero| zero)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_reports_are_read_by_their_shapes() {
        for (out, failed) in [
            ("=========== 1 failed, 10 passed in 0.12s ===========", true),
            ("============ 11 passed in 0.10s ============", false),
            ("Ran 3 tests in 0.001s\n\nFAILED (failures=1)", true),
            ("Ran 3 tests in 0.001s\n\nOK", false),
            ("Tests:       1 failed, 10 passed, 11 total", true),
            ("  10 passing (20ms)\n  1 failing", true),
            ("--- FAIL: TestAdd (0.00s)\nFAIL\tcalc\t0.01s", true),
            ("ok  \tcalc\t0.01s", false),
            ("test result: ok. 11 passed; 0 failed; 0 ignored", false),
        ] {
            assert_eq!(report(out).map(|r| r.0), Some(failed), "{out}");
        }
        assert_eq!(report("the deploy FAILED yesterday"), None);
        assert_eq!(report("grep: FAILED: no such file"), None);
    }

    #[test]
    fn a_run_that_ran_no_test_is_told_from_one_that_passed() {
        let filtered = "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 12 filtered out";
        assert!(ran_nothing(filtered, true));
        assert!(
            !ran_nothing(filtered, false),
            "a cut output may hide the targets that ran"
        );
        assert!(ran_nothing("===== no tests ran in 0.01s =====", false));
        assert!(ran_nothing("collected 0 items", true));
        // cargo's doc-tests count nothing after the unit tests that passed: it ran tests.
        let cargo = "running 11 tests\ntest result: ok. 11 passed; 0 failed\n   Doc-tests calc\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed";
        assert!(!ran_nothing(cargo, true));
        assert!(!ran_nothing("test result: ok. 11 passed; 0 failed", true));
    }
}
