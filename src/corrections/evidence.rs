//! The record's evidence, read from its structure rather than its text: which shell commands ran
//! a test suite, a build, a lint or a type check (by the program they run, the project's own test
//! entry point, or a test runner's result in their output), how each ended (the exit status when
//! it belongs to that program, else the runner's own report, read in `reports`), which commands
//! and tools may have changed files, and which commits and pushes failed.
//!
//! A command that only mentions a runner (`grep -rn "cargo test" docs/`, a commit message naming
//! `.pytest_cache`) runs none; a runner piped into `tail` is judged by its report, not by `tail`'s
//! exit status.

use super::reports::report;
use crate::extract::Action;
pub(crate) use crate::extract::checks::{Check, command_words};
use crate::extract::checks::{INTERPRETERS, Joiner, Simple, check_of, program, simple_commands};
use crate::read::tools::{is_edit, is_shell};

/// How a check ended, as far as the record tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It passed: exit 0 from the check itself, or a runner's report with no failure.
    Passed,
    /// It failed: a non-zero exit status of the check itself, or a runner's report of failures.
    /// `how` says which ("exited 101", "reported \"1 failed, 10 passed\"").
    Failed { how: String },
    /// The record cannot tell (a pipe or a later command decides the status, a timeout, an
    /// interruption, no result).
    Unknown,
}

/// One run of a check.
#[derive(Debug, Clone)]
pub(crate) struct Run<'a> {
    /// Its index in the actions, oldest first.
    pub at: usize,
    /// The action.
    pub action: &'a Action,
    /// What it checks.
    pub check: Check,
    /// What it narrows the check to: the arguments that name tests, packages, files or filters
    /// (lowercased words); empty for the whole suite.
    pub scope: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// The command words of the check itself (`cargo test billing`), for a summary that names
    /// the command.
    pub words: Vec<String>,
}

/// The words of a run's arguments that narrow it: names, paths, filters (lowercased, split at
/// non-alphanumerics); flags and their common values dropped.
fn scope_words(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for a in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        if a.starts_with('-') {
            // Flags that take a value we do not want (`-j 4`, `--color always`); filters such as
            // `-k expr`, `-p pkg`, `--test name` keep theirs.
            skip_next = matches!(
                a.as_str(),
                "-j" | "--jobs"
                    | "--color"
                    | "--timeout"
                    | "-n"
                    | "--maxfail"
                    | "--reporter"
                    | "--features"
                    | "-F"
                    | "--target"
                    | "--manifest-path"
                    | "--config"
                    | "-c"
            );
            continue;
        }
        if a.starts_with('>') || a.starts_with('<') || a.contains("&1") || a == "2" {
            continue;
        }
        for w in super::words::words(a) {
            if !matches!(w.as_str(), "py" | "js" | "ts" | "rs" | "sh" | "go" | "rb") {
                out.push(w);
            }
        }
    }
    out
}

/// Results that say a command did not run to its end: nothing about the check itself.
fn interrupted(a: &Action) -> bool {
    let o = a.output.to_lowercase();
    [
        "timed out",
        "interrupted",
        "doesn't want to proceed",
        "tool use was rejected",
        "running in background",
        "permission",
        "was blocked",
    ]
    .iter()
    .any(|m| o.contains(m))
}

/// The runs of checks among `actions` (oldest first).
pub(crate) fn runs(actions: &[Action]) -> Vec<Run<'_>> {
    let mut out = Vec::new();
    for (at, a) in actions.iter().enumerate() {
        if !is_shell(&a.tool) {
            continue;
        }
        let simple = simple_commands(&a.summary);
        let reported = report(&a.output);
        for (i, s) in simple.iter().enumerate() {
            let Some((check, first)) = check_of(&s.words) else {
                continue;
            };
            let mut outcome = status_outcome(a, &simple[i..]);
            // A test runner's own report wins over a status that is not its own, and names the
            // failure.
            if check == Check::Test
                && let Some((failed, line)) = &reported
            {
                outcome = reported_outcome(*failed, line, outcome);
            }
            out.push(Run {
                at,
                action: a,
                check,
                scope: scope_words(s.words.get(first..).unwrap_or(&[])),
                outcome,
                words: s.words.clone(),
            });
        }
        // A command no rule names, whose output is a test runner's report (`./ci`, `just`).
        if !out.iter().any(|r| r.at == at)
            && let Some((failed, line)) = reported
            && simple.len() == 1
        {
            out.push(Run {
                at,
                action: a,
                check: Check::Test,
                scope: Vec::new(),
                outcome: if failed {
                    Outcome::Failed {
                        how: format!("reported \"{line}\""),
                    }
                } else if a.error {
                    Outcome::Unknown
                } else {
                    Outcome::Passed
                },
                words: simple[0].words.clone(),
            });
        }
    }
    out
}

/// How the first of `rest` (the simple commands of `a` from a check on) ended, by the action's
/// exit status, when that status is the check's own.
fn status_outcome(a: &Action, rest: &[Simple]) -> Outcome {
    // The exit status is this command's when nothing after it can change it: it is the
    // last, or a failure of it stops a `&&` chain whose status then is its own.
    let last = rest[0].then == Joiner::End;
    let chained = rest
        .iter()
        .all(|r| matches!(r.then, Joiner::And | Joiner::End));
    let failed_status = a.error || a.exit.is_some_and(|c| c != 0);
    let how = match a.exit {
        Some(c) => format!("exited {c}"),
        None => "failed".to_owned(),
    };
    if a.pending || interrupted(a) && failed_status {
        Outcome::Unknown
    } else if failed_status && last {
        Outcome::Failed { how }
    } else if !failed_status && chained {
        Outcome::Passed
    } else {
        Outcome::Unknown
    }
}

/// A test run's `outcome` by its status, with its runner's report (`failed`, and the report's
/// `line`) over it.
fn reported_outcome(failed: bool, line: &str, outcome: Outcome) -> Outcome {
    match (failed, &outcome) {
        (true, Outcome::Failed { how }) => Outcome::Failed {
            how: format!("{how}, reporting \"{line}\""),
        },
        (true, _) => Outcome::Failed {
            how: format!("reported \"{line}\""),
        },
        (false, Outcome::Failed { .. }) => outcome,
        (false, _) => Outcome::Passed,
    }
}

/// Programs and subcommands that may change files in the project: after a failed check, one of
/// these (or an edit tool) means the failure may be fixed.
pub(crate) fn may_write(a: &Action) -> bool {
    if is_edit(&a.tool) {
        return !a.error; // a pending edit may have been applied
    }
    if !is_shell(&a.tool) {
        return false;
    }
    let cmd = &a.summary;
    if cmd.contains('>') && !cmd.contains("2>&1") || cmd.contains(" >") {
        return true;
    }
    simple_commands(cmd).iter().any(|s| {
        let (prog, args) = program(&s.words);
        let first = args.first().map(String::as_str).unwrap_or("");
        match prog {
            "sed" | "perl" => args
                .iter()
                .any(|a| a.starts_with("-i") || a.starts_with("-pi")),
            "tee" | "mv" | "cp" | "rm" | "patch" | "touch" | "mkdir" | "rsync" | "install"
            | "ln" | "truncate" | "dd" | "unzip" | "tar" | "cargo-fix" | "black" | "prettier"
            | "gofmt" | "rustfmt" | "isort" | "autopep8" => true,
            "git" => matches!(
                first,
                "apply"
                    | "am"
                    | "checkout"
                    | "restore"
                    | "stash"
                    | "reset"
                    | "merge"
                    | "rebase"
                    | "pull"
                    | "cherry-pick"
                    | "revert"
                    | "switch"
                    | "clean"
                    | "mv"
                    | "rm"
            ),
            "cargo" => matches!(first, "fmt" | "fix" | "add" | "remove" | "update"),
            "npm" | "yarn" | "pnpm" => {
                matches!(first, "install" | "i" | "add" | "remove" | "update")
                    || (first == "run"
                        && args
                            .get(1)
                            .is_some_and(|s| s.contains("fix") || s.contains("format")))
            }
            "ruff" | "eslint" => args.iter().any(|a| a == "--fix" || a == "format"),
            p if INTERPRETERS.contains(&p) => {
                // A script that is no test run may write anything.
                check_of(&s.words).is_none()
            }
            _ => false,
        }
    })
}

/// A git subcommand's runs among the actions (`commit`, `push`): index, action, and whether it
/// failed in earnest ("nothing to commit, working tree clean" means everything was committed).
pub(crate) fn git_runs<'a>(actions: &'a [Action], sub: &str) -> Vec<(usize, &'a Action, GitEnd)> {
    let mut out = Vec::new();
    for (at, a) in actions.iter().enumerate() {
        if !is_shell(&a.tool) {
            continue;
        }
        let simple = simple_commands(&a.summary);
        let Some(pos) = simple.iter().position(|s| {
            let (prog, args) = program(&s.words);
            prog == "git" && git_sub(args) == Some(sub)
        }) else {
            continue;
        };
        let output = a.output.to_lowercase();
        let failed = a.error || a.exit.is_some_and(|c| c != 0);
        let own = simple[pos].then == Joiner::End;
        let end = if a.pending {
            GitEnd::Unknown
        } else if !failed {
            GitEnd::Done
        } else if output.contains("nothing to commit")
            || output.contains("everything up-to-date")
            || output.contains("everything up to date")
        {
            GitEnd::NothingToDo
        } else if never_ran(a) {
            GitEnd::NotRun
        } else if own && !interrupted(a) {
            GitEnd::Failed
        } else {
            GitEnd::Unknown
        };
        out.push((at, a, end));
    }
    out
}

/// How a `git commit` or `git push` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GitEnd {
    /// It succeeded.
    Done,
    /// It had nothing to do (all committed, already pushed).
    NothingToDo,
    /// It failed, and its status is its own.
    Failed,
    /// It never ran: the user rejected the call, or the client blocked it. Nothing of it
    /// happened, as when it fails.
    NotRun,
    /// It failed, but the status may be another command's, or it was interrupted.
    Unknown,
}

/// Whether the call never ran at all: rejected by the user, or blocked by the client before it
/// started (unlike a timeout or an interruption, which may leave part of it done).
fn never_ran(a: &Action) -> bool {
    let o = a.output.to_lowercase();
    a.error
        && [
            "doesn't want to proceed",
            "tool use was rejected",
            "was blocked",
        ]
        .iter()
        .any(|m| o.contains(m))
}

/// The git subcommand, after global options (`git -C dir commit`).
fn git_sub(args: &[String]) -> Option<&str> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if matches!(a.as_str(), "-C" | "-c" | "--git-dir" | "--work-tree") {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return Some(a.as_str());
        }
    }
    None
}

/// Whether the action at `at` or any after it may have written `name` (a file's last path
/// component): an edit tool naming it, a command naming it that may write, or a script, which
/// may write anything. The judge's and the summarizer's directive's one reading.
pub(crate) fn written_after(actions: &[Action], at: usize, name: &str) -> bool {
    actions[at.min(actions.len())..].iter().any(|a| {
        if is_edit(&a.tool) {
            !a.error && a.summary.split(", ").any(|f| base_name(f) == name)
        } else {
            // A writing command cut short may name it past its cut (`sed -i '...' f`).
            let cut = a.summary.len() >= COMMAND_CUT || a.summary.ends_with('…');
            let names = a.summary.contains(name) || cut;
            is_shell(&a.tool) && !a.error && (names && may_write(a) || runs_a_script(a))
        }
    })
}

/// How long a command's text is when the transcript reader cut it (its `key_arg` bound, less
/// a few bytes of slack for the escaping of one line): what it names may be past the cut. The
/// digest cuts it shorter, with a `…`.
const COMMAND_CUT: usize = 390;

/// Whether a shell action runs a script that is no test run (it may write any file).
fn runs_a_script(a: &Action) -> bool {
    may_write(a) && !a.summary.contains('>') && {
        let w = super::words::words(&a.summary);
        w.first().is_some_and(|p| {
            matches!(
                p.as_str(),
                "python" | "python3" | "node" | "ruby" | "perl" | "sh" | "bash" | "deno" | "bun"
            )
        })
    }
}

/// The final path component of a path-like text.
pub(crate) fn base_name(p: &str) -> &str {
    p.trim_matches(|c: char| c == '`' || c == '\'' || c == '"' || c == ',')
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(cmd: &str, exit: Option<i32>, output: &str) -> Action {
        Action {
            tool: "Bash".into(),
            summary: cmd.into(),
            error: exit.is_some_and(|c| c != 0),
            count: 1,
            exit,
            output: output.into(),
            pending: false,
            why: String::new(),
        }
    }

    fn one(a: Action) -> Option<(Check, Vec<String>, Outcome)> {
        let actions = [a];
        runs(&actions)
            .into_iter()
            .next()
            .map(|r| (r.check, r.scope, r.outcome))
    }

    #[test]
    fn a_command_that_mentions_a_runner_runs_none() {
        assert!(one(sh("grep -rn \"cargo test\" docs/", Some(1), "")).is_none());
        assert!(one(sh("git commit -m 'ignore .pytest_cache'", Some(1), "")).is_none());
        assert!(one(sh("echo run pytest later", None, "")).is_none());
        assert!(one(sh("cat run_tests.sh", None, "")).is_none());
    }

    #[test]
    fn the_projects_own_test_scripts_are_test_runs() {
        let (check, scope, outcome) = one(sh(
            "sh run_tests.sh billing",
            Some(101),
            "running 4 tests\n…\ntest result: FAILED. 3 passed; 1 failed; 0 ignored",
        ))
        .unwrap();
        assert_eq!((check, scope), (Check::Test, vec!["billing".to_owned()]));
        assert!(
            matches!(outcome, Outcome::Failed { how } if how.contains("exited 101") && how.contains("1 failed"))
        );
        for cmd in [
            "./run_tests.sh",
            "python3 tests/test_calc.py",
            "make check",
            "npm test",
            "npm run test:unit",
            "bash scripts/test.sh",
            "cd app && pytest -q",
            "uv run pytest tests/",
        ] {
            assert_eq!(
                one(sh(cmd, Some(1), "")).map(|r| r.0),
                Some(Check::Test),
                "{cmd}"
            );
        }
    }

    #[test]
    fn a_runner_piped_into_another_program_is_judged_by_its_report() {
        let (_, _, o) = one(sh(
            "cargo test 2>&1 | tail -5",
            Some(0),
            "test result: FAILED. 10 passed; 1 failed",
        ))
        .unwrap();
        assert!(matches!(o, Outcome::Failed { .. }), "{o:?}");
        let (_, _, o) = one(sh("cargo test | grep foo", Some(1), "")).unwrap();
        assert_eq!(o, Outcome::Unknown);
        let (_, _, o) = one(sh("cargo test && cargo clippy", Some(1), "")).unwrap();
        assert_eq!(o, Outcome::Unknown);
        let (_, _, o) = one(sh("cargo test && echo ok", None, "")).unwrap();
        assert_eq!(o, Outcome::Passed);
    }

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
    fn interrupted_runs_say_nothing() {
        let (_, _, o) = one(sh("cargo test", None, "Command timed out after 2m 0.0s")).unwrap();
        // Not flagged failed: a timeout without an exit status is unknown, never a pass claim's
        // disproof.
        assert_ne!(
            o,
            Outcome::Failed {
                how: "failed".into()
            }
        );
    }

    #[test]
    fn writes_are_edit_tools_and_writing_commands() {
        assert!(may_write(&sh("sed -i 's/a/b/' src/calc.py", Some(0), "")));
        assert!(may_write(&sh("python3 fix_imports.py", Some(0), "")));
        assert!(may_write(&sh("echo x > f.txt", Some(0), "")));
        assert!(!may_write(&sh("cargo test 2>&1 | tail", Some(0), "")));
        assert!(!may_write(&sh("python3 tests/test_calc.py", Some(1), "")));
        assert!(!may_write(&sh("git status", Some(0), "")));
    }

    #[test]
    fn nothing_to_commit_is_no_failed_commit() {
        let a = [
            sh(
                "git add -A && git commit -m 'x'",
                Some(1),
                "On branch main\nnothing to commit, working tree clean",
            ),
            sh("git commit -m y", Some(1), "pre-commit hook failed"),
            sh("git -C repo commit -am z", Some(0), "[main 1a2b3c] z"),
        ];
        let ends: Vec<GitEnd> = git_runs(&a, "commit").into_iter().map(|r| r.2).collect();
        assert_eq!(ends, [GitEnd::NothingToDo, GitEnd::Failed, GitEnd::Done]);
    }
}
