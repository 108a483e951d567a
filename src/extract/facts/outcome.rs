//! How a shell command ended, read from its structure rather than its text: the exit status when
//! it belongs to the command in question (the last of a line, or one whose failure stops a `&&`
//! chain), else a test runner's own report in its output; a background start is still running,
//! a call the user rejected or the client blocked never ran, a timeout or an interruption says
//! nothing, and a test command that ran no test backs no claim that tests pass.
//!
//! A command that pipes a runner into `tail` is judged by the runner's report, not by `tail`'s
//! exit status.

use super::super::calls::Ended;
use super::reports::{ran_nothing, report};
use crate::extract::checks::{Check, Joiner, Simple};
use serde::{Deserialize, Serialize};

/// How a run of a check (or an attempt of an action) ended, as far as the record tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
pub enum Outcome {
    /// It passed: exit 0 from the check itself, or a runner's report with no failure.
    Passed,
    /// It failed: a non-zero exit status of the check itself, or a runner's report of failures.
    /// `how` says which ("exited 101", "reported \"1 failed, 10 passed\"").
    Failed {
        /// How it failed, for the reader.
        how: String,
    },
    /// It was started in the background and had not ended by the record's end.
    Running,
    /// A test command that ran no test (`--no-run`, `--collect-only`, a filter that matched
    /// nothing): it backs no claim that tests pass.
    RanNothing,
    /// It never ran: the user rejected the call, or the client blocked it.
    NotRun,
    /// Its result was not read (not written yet, or out of reach).
    NoResult,
    /// The record cannot tell (a pipe or a later command decides the status, a timeout, an
    /// interruption, no result, a result without an exit status).
    Unknown,
}

impl Outcome {
    /// Whether it failed.
    pub fn failed(&self) -> bool {
        matches!(self, Outcome::Failed { .. })
    }

    /// In words, for the snapshot and the directive: "passed", "failed (exited 1)", ...
    pub fn said(&self) -> String {
        match self {
            Outcome::Passed => "passed".into(),
            Outcome::Failed { how } if how == "failed" => "FAILED".into(),
            Outcome::Failed { how } => format!("FAILED ({how})"),
            Outcome::Running => "started in the background, not finished".into(),
            Outcome::RanNothing => "ran no test".into(),
            Outcome::NotRun => "not run (rejected or blocked)".into(),
            Outcome::NoResult => "no result read".into(),
            Outcome::Unknown => "ended, outcome unclear".into(),
        }
    }
}

/// What the client writes when it, not the command, ended a call: the user refused it, a hook
/// or the permission system blocked it, or it was cancelled before it ran.
const NOT_RUN: &[&str] = &[
    "doesn't want to proceed",
    "doesn't want to take this action",
    "tool use was rejected",
    "was blocked",
    "Cancelled",
    "[Request interrupted",
];

/// Whether the call never ran at all: rejected by the user, or blocked by the client before it
/// started (unlike a timeout, which may leave part of it done).
pub(crate) fn never_ran(e: &Ended) -> bool {
    e.read && e.failed && NOT_RUN.iter().any(|m| e.head.contains(m))
}

/// Results that say a command did not run to its end: nothing about the command itself.
fn interrupted(e: &Ended) -> bool {
    let o = e.head.to_lowercase();
    ["timed out", "interrupted", "killed", "permission"]
        .iter()
        .any(|m| o.contains(m))
}

/// How the first of `rest` (the simple commands of a command line from one on) ended, by the
/// call's exit status, when that status is its own.
pub(super) fn by_status(e: &Ended, rest: &[Simple]) -> Outcome {
    if !e.read {
        return Outcome::NoResult;
    }
    if e.unstated {
        return Outcome::Unknown;
    }
    if e.running {
        return Outcome::Running;
    }
    if never_ran(e) {
        return Outcome::NotRun;
    }
    // The exit status is this command's when nothing after it can change it: it is the last,
    // or a failure of it stops a `&&` chain whose status then is its own.
    let last = rest[0].then == Joiner::End;
    let chained = rest
        .iter()
        .all(|r| matches!(r.then, Joiner::And | Joiner::End));
    let how = match e.exit {
        Some(c) => format!("exited {c}"),
        None => "failed".to_owned(),
    };
    if e.failed && interrupted(e) {
        Outcome::Unknown
    } else if e.failed && last {
        Outcome::Failed { how }
    } else if !e.failed && chained {
        Outcome::Passed
    } else {
        Outcome::Unknown
    }
}

/// How a run of `check` (the simple command `rest[0]` of its line) ended: its status, with a
/// test runner's report over it (the report names the failure, and wins over a status that is
/// not the runner's own), and "ran nothing" for a test command that ran no test.
pub(super) fn of_run(check: Check, e: &Ended, rest: &[Simple], output: &str) -> Outcome {
    let status = by_status(e, rest);
    if check != Check::Test
        || matches!(
            status,
            Outcome::NotRun | Outcome::Running | Outcome::NoResult
        )
    {
        return status;
    }
    if collects_only(&rest[0].words) {
        return Outcome::RanNothing;
    }
    // The report's line is the command's output, quoted in what the snapshot, the directive and
    // the judge say: a quotation mark in it would end the quotation there (#55).
    let reported = if e.read && !e.running {
        report(output).map(|(failed, line)| (failed, line.replace('"', "'")))
    } else {
        None
    };
    match (reported, status) {
        (Some((true, line)), Outcome::Failed { how }) => Outcome::Failed {
            how: format!("{how}, reporting \"{line}\""),
        },
        (Some((true, line)), _) => Outcome::Failed {
            how: format!("reported \"{line}\""),
        },
        (_, Outcome::Failed { how }) => Outcome::Failed { how },
        (_, _) if ran_nothing(output, !output.contains("\n…\n")) => Outcome::RanNothing,
        (Some((false, _)), _) => Outcome::Passed,
        (None, status) => status,
    }
}

/// The outcome of a line no rule names as a check whose output is a test runner's report (`./ci`,
/// `just`): its report, when the line is one command.
pub(super) fn by_report(e: &Ended, output: &str) -> Option<Outcome> {
    if !e.read || e.running {
        return None;
    }
    let (failed, line) = report(output)?;
    let line = line.replace('"', "'");
    Some(if failed {
        Outcome::Failed {
            how: format!("reported \"{line}\""),
        }
    } else if e.failed || e.unstated {
        Outcome::Unknown
    } else {
        Outcome::Passed
    })
}

/// Whether a test command's arguments make it list or build its tests without running them.
fn collects_only(words: &[String]) -> bool {
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "--no-run" | "--collect-only" | "--co" | "--list" | "--listTests" | "--list-tests"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::checks::{check_of, simple_commands};

    fn ended(exit: Option<i32>, head: &str) -> Ended {
        Ended {
            read: true,
            failed: exit.is_some_and(|c| c != 0),
            head: head.into(),
            tail: head.into(),
            exit,
            ..Ended::default()
        }
    }

    fn outcome(cmd: &str, e: &Ended) -> Outcome {
        let simple = simple_commands(cmd);
        let (i, check) = simple
            .iter()
            .enumerate()
            .find_map(|(i, s)| check_of(&s.words).map(|c| (i, c.0)))
            .expect("a check");
        of_run(check, e, &simple[i..], &e.head)
    }

    #[test]
    fn a_runner_piped_into_another_program_is_judged_by_its_report() {
        let o = outcome(
            "cargo test 2>&1 | tail -5",
            &ended(Some(0), "test result: FAILED. 10 passed; 1 failed"),
        );
        assert!(o.failed(), "{o:?}");
        assert_eq!(
            outcome("cargo test | grep foo", &ended(Some(1), "")),
            Outcome::Unknown
        );
        assert_eq!(
            outcome("cargo test && cargo clippy", &ended(Some(1), "")),
            Outcome::Unknown
        );
        assert_eq!(
            outcome("cargo test && echo ok", &ended(None, "")),
            Outcome::Passed
        );
    }

    #[test]
    fn a_background_start_is_running_never_passed() {
        let e = Ended {
            running: true,
            ..ended(None, "Command running in background with ID: b1.")
        };
        assert_eq!(outcome("cargo test", &e), Outcome::Running);
    }

    #[test]
    fn a_result_without_an_exit_status_is_unknown_never_passed() {
        let e = Ended {
            unstated: true,
            ..ended(
                None,
                "Compiling calc v0.1.0\nerror[E0308]: mismatched types",
            )
        };
        assert_eq!(outcome("cargo build", &e), Outcome::Unknown);
        // A runner's report in it still says how the tests ended.
        let e = Ended {
            unstated: true,
            ..ended(None, "test result: FAILED. 3 passed; 1 failed")
        };
        assert!(outcome("cargo test", &e).failed());
    }

    #[test]
    fn a_test_command_that_ran_no_test_backs_nothing() {
        for cmd in [
            "cargo test --no-run",
            "pytest --collect-only -q",
            "cargo test -- --list",
        ] {
            assert_eq!(
                outcome(cmd, &ended(Some(0), "")),
                Outcome::RanNothing,
                "{cmd}"
            );
        }
        let filtered = ended(
            Some(0),
            "running 0 tests\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out",
        );
        assert_eq!(
            outcome("cargo test nosuchtest", &filtered),
            Outcome::RanNothing
        );
    }

    #[test]
    fn a_refused_or_interrupted_run_says_nothing_of_the_check() {
        let refused = ended(
            Some(1),
            "The user doesn't want to proceed with this tool use.",
        );
        assert_eq!(outcome("pnpm build", &refused), Outcome::NotRun);
        let timeout = ended(None, "Command timed out after 2m 0.0s");
        let timeout = Ended {
            failed: true,
            ..timeout
        };
        assert_eq!(outcome("cargo test", &timeout), Outcome::Unknown);
    }
}
