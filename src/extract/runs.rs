//! The last run of each check (a test, build, lint or type-check command, as
//! [`super::checks`] reads them) and how it ended, kept beyond the recent actions: the agent that
//! resumes must know that `pnpm build` last failed 80 calls ago, or that `cargo test` passed
//! again after it. Each distinct check command (its program and arguments, wrappers skipped)
//! keeps its newest run only, so a later passing run replaces an earlier failure.
//!
//! Beside them, the newest shell command that failed, whatever it ran: its reason matters as
//! much, and it may lie beyond the recent actions too.
//!
//! Read newest first, like every fold here: the first run met of a command is its last. The
//! outcome is judged where it is shown, by the same reading the judge uses (the exit status when
//! it is the check's own, else the runner's report): this keeps the run as an [`Action`].

use super::Action;
use super::calls::{Ended, action_of};
use super::checks::{check_of, simple_commands};
use crate::read::record::ToolUse;
use crate::read::tools::SHELL_TOOLS;
use crate::text::escaped_line;

/// How many distinct check commands are kept.
pub(crate) const MAX_CHECKS: usize = 8;
/// How many tool calls back (newest first) the runs of checks are looked for: beyond the recent
/// actions, within the recent window (a failed check 150 calls back is still the last word on
/// it), and bounded, so that a long session's save parses no more than this many calls for it.
pub(crate) const CHECK_REACH: usize = 400;
/// How many bytes back from the end the runs of checks are looked for: what every save reads
/// anyway ([`super::MIN_WINDOW`]; a real session's 150 calls with their results take from a few
/// hundred KB to 2 MB). Beyond it, and beyond [`CHECK_REACH`], a save parses only what the recent
/// actions and the far-back table need (D071).
pub(crate) const CHECK_WINDOW: u64 = super::MIN_WINDOW;

/// The last run of each check met so far.
#[derive(Default)]
pub(super) struct LastRuns {
    /// The check commands met (their words, joined), newest run first.
    keys: Vec<String>,
    /// Their runs, newest first; one action may stand for several keys (`make build && make test`).
    found: Vec<Action>,
    /// The newest shell command that failed by itself (not refused, blocked or interrupted by
    /// the CLI) and whose output says why, whatever it ran: the last failure the agent may need
    /// to know the reason of.
    last_failed: Option<Action>,
    /// Tool calls seen.
    calls: usize,
}

/// What the CLI writes when it, not the command, ended a call: the agent knows those.
const NOT_RUN: [&str; 5] = [
    "doesn't want to proceed",
    "doesn't want to take this action",
    "was blocked",
    "Cancelled",
    "[Request interrupted",
];

impl LastRuns {
    /// Whether older calls are still looked at.
    pub(super) fn wanted(&self) -> bool {
        self.calls < CHECK_REACH && (self.keys.len() < MAX_CHECKS || self.last_failed.is_none())
    }

    pub(super) fn call(&mut self, tu: &ToolUse, ended: &Ended) {
        if !self.wanted() {
            return;
        }
        self.calls += 1;
        if !SHELL_TOOLS.contains(&tu.name.as_str()) {
            return;
        }
        let Some(cmd) = tu.key_arg.as_deref() else {
            return;
        };
        if !ended.read || NOT_RUN.iter().any(|m| ended.head.contains(m)) {
            // A run whose result is not written yet, or that the CLI refused, says nothing: the
            // run before it is the last word on its check (the recent actions show this one).
            return;
        }
        if self.last_failed.is_none() && ended.failed {
            let a = action_of(tu, ended, escaped_line(cmd));
            // A failure whose output does not say why adds nothing to the recent actions' mark.
            if !a.why.is_empty() {
                self.last_failed = Some(a);
            }
        }
        let mut new = false;
        for s in simple_commands(cmd) {
            if check_of(&s.words).is_none() {
                continue;
            }
            let key = s.words.join(" ");
            if !self.keys.contains(&key) && self.keys.len() < MAX_CHECKS {
                self.keys.push(key);
                new = true;
            }
        }
        if new {
            self.found.push(action_of(tu, ended, escaped_line(cmd)));
        }
    }

    /// The last runs of checks, oldest first, and the last failed command.
    pub(super) fn finish(self) -> (Vec<Action>, Option<Action>) {
        let mut runs = self.found;
        runs.reverse();
        (runs, self.last_failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(cmd: &str) -> ToolUse {
        ToolUse {
            id: "t".into(),
            name: "Bash".into(),
            key_arg: Some(cmd.into()),
            ..ToolUse::default()
        }
    }

    fn ended(failed: bool) -> Ended {
        Ended {
            read: true,
            failed,
            head: if failed { "error TS2322: no" } else { "ok" }.into(),
            ..Ended::default()
        }
    }

    #[test]
    fn each_check_keeps_its_newest_run_only() {
        let mut r = LastRuns::default();
        // Newest first: the build passed last, after a failure; the tests failed.
        r.call(&bash("pnpm build"), &ended(false));
        r.call(&bash("ls src"), &ended(false));
        r.call(&bash("cargo test billing"), &ended(true));
        r.call(&bash("pnpm build"), &ended(true));
        let (runs, failed) = r.finish();
        assert_eq!(
            failed.map(|a| a.summary).as_deref(),
            Some("cargo test billing")
        );
        let shown: Vec<(&str, bool)> = runs.iter().map(|a| (a.summary.as_str(), a.error)).collect();
        assert_eq!(shown, [("cargo test billing", true), ("pnpm build", false)]);
        assert_eq!(runs[0].why, "error TS2322: no");
    }

    #[test]
    fn a_run_without_its_result_or_refused_leaves_the_run_before_it() {
        let mut r = LastRuns::default();
        r.call(&bash("pnpm build"), &Ended::default());
        let refused = Ended {
            read: true,
            failed: true,
            head: "The user doesn't want to proceed with this tool use.".into(),
            ..Ended::default()
        };
        r.call(&bash("pnpm build"), &refused);
        r.call(&bash("pnpm build"), &ended(false));
        let (runs, failed) = r.finish();
        assert_eq!(runs.len(), 1);
        assert!(!runs[0].error && !runs[0].pending);
        assert!(failed.is_none());
    }

    #[test]
    fn a_command_with_two_checks_is_one_run_and_the_reach_is_bounded() {
        let mut r = LastRuns::default();
        r.call(&bash("cargo build && cargo test"), &ended(false));
        r.call(&bash("cargo test"), &ended(true));
        assert_eq!(r.finish().0.len(), 1);
        let mut r = LastRuns::default();
        for _ in 0..CHECK_REACH {
            r.call(&bash("ls"), &ended(false));
        }
        assert!(!r.wanted());
        r.call(&bash("cargo test"), &ended(true));
        assert!(r.finish().0.is_empty());
    }
}
