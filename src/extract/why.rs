//! Why a failed command failed, in a line or two read from the ends of its output: the failing
//! tests' names when a runner names them (pytest's `FAILED tests/x.py::test_y`, go's
//! `--- FAIL: TestX`, cargo's `test x ... FAILED`, jest's `✕`/`●`), else the compiler's or the
//! interpreter's error (`error[E0308]`, `error TS2322`, a Python exception's last line,
//! `npm ERR!`), else the first line that says it is an error. An agent that resumes from
//! "[FAILED]" alone reruns the command to learn this, or believes a summary that says it passed.
//!
//! Only the output's head and tail are read (what the record keeps of a result), so a reason in
//! the middle of a long output is not found; then nothing is said rather than a guess.

use crate::text::folded_line;

/// The most characters of one reason line.
const WHY_LINE: usize = 160;
/// The most test names listed before "+N more".
const MAX_NAMES: usize = 3;

/// Why the command whose output ends are `head` and `tail` failed: one or two lines, each at
/// most [`WHY_LINE`] characters (cut with `…`); `None` when its output does not say.
pub(crate) fn why_failed(head: &str, tail: &str) -> Option<String> {
    let (head, tail) = (plain(head), plain(tail));
    let lines: Vec<&str> = if tail.is_empty() || head.contains(tail.trim()) {
        head.lines().collect()
    } else {
        head.lines().chain(tail.lines()).collect()
    };
    let lines: Vec<&str> = lines
        .into_iter()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Exit code "))
        .collect();
    if let Some(names) = failing_tests(&lines) {
        return Some(names);
    }
    compiler_error(&lines)
        .or_else(|| exception(&lines))
        .or_else(|| first_error(&lines))
        .map(|l| folded_line(l, WHY_LINE - 1))
}

/// `s` without terminal colour codes (`ESC[31m`): runners colour their errors.
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            // Up to the sequence's final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The failing tests a runner names, as one line: "failing: a, b, c (+2 more)".
fn failing_tests(lines: &[&str]) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    for l in lines {
        let Some(name) = test_name(l) else { continue };
        let name = folded_line(name, 80);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        return None;
    }
    let more = names.len().saturating_sub(MAX_NAMES);
    names.truncate(MAX_NAMES);
    let mut line = format!("failing: {}", names.join(", "));
    if more > 0 {
        line.push_str(&format!(" (+{more} more)"));
    }
    Some(folded_line(&line, WHY_LINE - 1))
}

/// The test a runner's line reports failed, if it is such a line.
fn test_name(l: &str) -> Option<&str> {
    // pytest's short summary: "FAILED tests/test_calc.py::test_add - assert 1 == 2".
    if let Some(rest) = l.strip_prefix("FAILED ").filter(|r| r.contains("::")) {
        return rest.split(" - ").next();
    }
    // go test: "--- FAIL: TestAdd (0.00s)".
    if let Some(rest) = l.strip_prefix("--- FAIL: ") {
        return rest.split_whitespace().next();
    }
    // cargo test: "test billing::tests::rounds ... FAILED".
    if let Some(rest) = l.strip_prefix("test ")
        && let Some(name) = rest.strip_suffix(" ... FAILED")
    {
        return Some(name);
    }
    // jest / vitest: "✕ adds two numbers (3 ms)", "× adds", "● Calc › adds two numbers".
    for mark in ["✕ ", "× ", "● "] {
        if let Some(rest) = l.strip_prefix(mark) {
            let name = rest.split(" (").next().unwrap_or(rest);
            return (!name.is_empty()).then_some(name);
        }
    }
    // rspec: "rspec ./spec/calc_spec.rb:12 # Calc adds".
    l.strip_prefix("rspec ./")
}

/// A compiler's or type checker's first error line: rustc's `error[E0308]: mismatched types`,
/// `error: ...`, tsc's `src/a.ts(85,7): error TS2322: ...`, gcc's `a.c:3:5: error: ...`.
fn compiler_error<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines.iter().copied().find(|l| {
        l.starts_with("error[E")
            || (l.starts_with("error:") && !l.starts_with("error: could not compile"))
            || has_ts_error(l)
            || l.contains(": error: ")
            || l.contains(": fatal error: ")
    })
}

/// Whether `l` holds a TypeScript diagnostic: `error TS` and its number.
fn has_ts_error(l: &str) -> bool {
    l.match_indices("error TS").any(|(i, m)| {
        l[i + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// An interpreter's exception: a Python traceback's last line (`ModuleNotFoundError: No module
/// named 'torch'`), node's `Error: Cannot find module ...`, an `AssertionError`. The last such
/// line: a traceback ends with the one that stopped the program.
fn exception<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines.iter().rev().copied().find(|l| {
        let name = l.split([':', ' ', '[']).next().unwrap_or("");
        let name = name.rsplit('.').next().unwrap_or(name);
        (name.ends_with("Error") || name.ends_with("Exception"))
            && name.len() > 5
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.ends_with("Warning")
    })
}

/// The first line that says it is an error: a package manager's `npm ERR!`, git's `fatal:`, a
/// shell's "command not found", "No such file or directory", the CLI's own "Command timed out"
/// or refusal, or any line with the word "error" or "failed" that is not a warning.
fn first_error<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines.iter().copied().find(|l| {
        let lower = l.to_lowercase();
        // A timeout's line carries the program's first output after it, often a warning.
        if lower.contains("warning") && !lower.starts_with("command timed out") {
            return false;
        }
        lower.starts_with("npm err")
            || lower.starts_with("npm error")
            || lower.starts_with("fatal:")
            || lower.starts_with("error")
            || lower.contains("command not found")
            || lower.contains("no such file or directory")
            || lower.contains("not found")
            || lower.contains("cannot ")
            || lower.contains("permission denied")
            || lower.contains("timed out")
            || lower.contains("was blocked")
            || lower.contains("doesn't want to proceed")
            || has_word(&lower, "error")
            || has_word(&lower, "failed")
            || has_word(&lower, "fail")
    })
}

/// Whether `word` occurs in `s` on its own (not inside a longer word).
fn has_word(s: &str, word: &str) -> bool {
    s.match_indices(word).any(|(i, _)| {
        let before = s[..i].chars().next_back();
        let after = s[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(out: &str) -> Option<String> {
        why_failed(out, "")
    }

    #[test]
    fn runners_name_their_failing_tests() {
        for (out, want) in [
            (
                "===== short test summary info =====\nFAILED tests/test_calc.py::test_add - assert 1 == 2\nFAILED tests/test_calc.py::test_sub\n===== 2 failed, 3 passed =====",
                "failing: tests/test_calc.py::test_add, tests/test_calc.py::test_sub",
            ),
            (
                "--- FAIL: TestAdd (0.00s)\n    calc_test.go:9: got 3\nFAIL\tcalc\t0.01s",
                "failing: TestAdd",
            ),
            (
                "running 3 tests\ntest billing::rounds ... FAILED\ntest billing::adds ... ok\n\ntest result: FAILED. 2 passed; 1 failed",
                "failing: billing::rounds",
            ),
            (
                "FAIL src/calc.test.js\n  Calc\n    ✕ adds two numbers (3 ms)\n    ✓ subtracts (1 ms)",
                "failing: adds two numbers",
            ),
        ] {
            assert_eq!(why(out).as_deref(), Some(want), "{out}");
        }
    }

    #[test]
    fn many_failing_tests_are_counted_not_listed() {
        let out: String = (0..7)
            .map(|i| format!("--- FAIL: TestN{i} (0.00s)\n"))
            .collect();
        assert_eq!(
            why(&out).as_deref(),
            Some("failing: TestN0, TestN1, TestN2 (+4 more)")
        );
    }

    #[test]
    fn compilers_and_interpreters_give_their_first_error() {
        for (out, want) in [
            (
                "   Compiling calc v0.1.0\nerror[E0308]: mismatched types\n --> src/lib.rs:3:5\nerror: could not compile `calc`",
                "error[E0308]: mismatched types",
            ),
            (
                "> app@0.1.0 build\n> tsc && vite build\n\nsrc/theme/themePrimitives.ts(85,7): error TS2322: Type 'string' is not assignable to type 'number'.\n ELIFECYCLE  Command failed with exit code 2.",
                "src/theme/themePrimitives.ts(85,7): error TS2322: Type 'string' is not assignable to type 'number'.",
            ),
            (
                "Traceback (most recent call last):\n  File \"model_comparison.py\", line 1, in <module>\n    import torch\nModuleNotFoundError: No module named 'torch'",
                "ModuleNotFoundError: No module named 'torch'",
            ),
            (
                "node:internal/modules/cjs/loader:1408\n  throw err;\n  ^\n\nError: Cannot find module '/x/serve-charts.ts'",
                "Error: Cannot find module '/x/serve-charts.ts'",
            ),
            (
                "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree",
                "npm error code ERESOLVE",
            ),
            (
                "Exit code 1\nrm: serve-charts.js: No such file or directory",
                "rm: serve-charts.js: No such file or directory",
            ),
            (
                "fatal: pathspec 'template' did not match any files",
                "fatal: pathspec 'template' did not match any files",
            ),
        ] {
            assert_eq!(why(out).as_deref(), Some(want), "{out}");
        }
    }

    #[test]
    fn the_tail_is_read_too_and_warnings_are_not_reasons() {
        let head = "(node:1) ExperimentalWarning: Type Stripping is experimental\nstarting";
        let tail = "    at main (index.ts:3)\nTypeError: x is not a function";
        assert_eq!(
            why_failed(head, tail).as_deref(),
            Some("TypeError: x is not a function")
        );
        assert_eq!(why("(node:1) ExperimentalWarning: it may change"), None);
        assert_eq!(
            why("Command timed out after 10s (node:9) ExperimentalWarning: Type Stripping")
                .as_deref(),
            Some("Command timed out after 10s (node:9) ExperimentalWarning: Type Stripping")
        );
        assert_eq!(why("Exit code 1"), None);
        assert_eq!(
            why("\u{1b}[31merror\u{1b}[39m: Failed to start").as_deref(),
            Some("error: Failed to start")
        );
        assert_eq!(why(""), None);
    }

    #[test]
    fn a_reason_is_one_bounded_line() {
        let out = format!("error: {}", "x".repeat(500));
        let w = why(&out).unwrap_or_default();
        assert!(w.chars().count() <= WHY_LINE && w.ends_with('…'), "{w}");
        assert!(!w.contains('\n'));
    }
}
