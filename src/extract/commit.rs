//! The newest commit the agent made, as git reported it: a shell call naming `commit` whose
//! result holds git's own line for it (`[main 1a2b3c4] Fix the login bug`). A call whose result
//! was not read, or shows no such line (failed, nothing to commit, a hook refused), is no commit.

use super::calls::Ended;
use crate::read::record::ToolUse;
use serde::Serialize;

/// A commit the agent made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Commit {
    /// git's line for it: `[branch hash] subject`, one line.
    pub report: String,
}

/// The commit fold.
#[derive(Default)]
pub(super) struct LastCommit {
    found: Option<Commit>,
}

impl LastCommit {
    /// Whether a commit is still looked for.
    pub(super) fn wanted(&self) -> bool {
        self.found.is_none()
    }

    /// A tool call and how it ended.
    pub(super) fn call(&mut self, tu: &ToolUse, ended: &Ended) {
        if !self.wanted() || ended.failed || !ended.read {
            return;
        }
        let names_commit = tu.key_arg.as_deref().is_some_and(|c| c.contains("commit"));
        if let Some(report) = names_commit.then(|| git_report(&ended.head)).flatten() {
            self.found = Some(Commit {
                report: crate::text::folded_line(report, 200),
            });
        }
    }

    pub(super) fn finish(self) -> Option<Commit> {
        self.found
    }
}

/// git's report of a new commit among the first lines of a command's output:
/// `[branch (root-commit) 1a2b3c4] subject`, the bracket ending in an abbreviated hash.
fn git_report(output: &str) -> Option<&str> {
    output.lines().map(str::trim).find(|l| {
        l.strip_prefix('[')
            .and_then(|rest| rest.split_once("] "))
            .and_then(|(inside, subject)| {
                let hash = inside.split_whitespace().last()?;
                let is_hash =
                    (7..=40).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit());
                (is_hash && !subject.trim().is_empty()).then_some(())
            })
            .is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(cmd: &str) -> ToolUse {
        ToolUse {
            id: "b1".into(),
            name: "Bash".into(),
            key_arg: Some(cmd.into()),
            ..ToolUse::default()
        }
    }

    fn ended(failed: bool, head: &str) -> Ended {
        Ended {
            read: true,
            failed,
            head: head.into(),
            ..Ended::default()
        }
    }

    #[test]
    fn git_commit_report_is_the_commit() {
        let mut f = LastCommit::default();
        f.call(
            &bash("git commit -m \"$(cat <<'EOF'\nFix login\nEOF\n)\""),
            &ended(
                false,
                "[main 1a2b3c4] Fix login\n 2 files changed, 9 insertions(+)",
            ),
        );
        assert!(!f.wanted());
        assert_eq!(f.finish().unwrap().report, "[main 1a2b3c4] Fix login");
    }

    #[test]
    fn root_commit_and_a_hook_printing_first_are_read() {
        let head = "lint ok\n[feature/x (root-commit) 0123abcd] Initial import\n 1 file changed";
        assert_eq!(
            git_report(head),
            Some("[feature/x (root-commit) 0123abcd] Initial import")
        );
    }

    #[test]
    fn failed_unread_or_unreported_commits_are_no_commit() {
        let mut f = LastCommit::default();
        f.call(
            &bash("git commit -am wip"),
            &ended(true, "[main 1a2b3c4] wip"),
        );
        f.call(&bash("git commit -am wip"), &Ended::default());
        f.call(
            &bash("git commit -am wip"),
            &ended(
                false,
                "On branch main\nnothing to commit, working tree clean",
            ),
        );
        f.call(
            &bash("cat log"),
            &ended(false, "[main 1a2b3c4] not a commit call"),
        );
        f.call(&bash("git commit"), &ended(false, "[WARN 42] not a hash"));
        assert_eq!(f.finish(), None);
    }

    #[test]
    fn only_the_newest_commit_counts() {
        let mut f = LastCommit::default();
        f.call(&bash("git commit -m b"), &ended(false, "[main bbbbbbb] b"));
        f.call(&bash("git commit -m a"), &ended(false, "[main aaaaaaa] a"));
        assert_eq!(f.finish().unwrap().report, "[main bbbbbbb] b");
    }

    use proptest::prelude::*;

    /// Whatever a command printed, git's report is one of its lines, whole, and names a hash:
    /// never a piece of a line, never a panic. Lines shaped like git's report come often enough
    /// that a report is found in a good share of the cases (a property about what is found must
    /// find something).
    #[test]
    fn git_report_is_a_whole_line_of_the_output() {
        let line = prop_oneof![
            "\\[?[a-z/ (]{0,12}[0-9a-f]{0,12}\\]? ?.{0,30}",
            "\\[[a-z/-]{1,12}( \\(root-commit\\))? [0-9a-f]{7,12}\\] .{0,30}",
        ];
        let lines = prop::collection::vec(line, 0..6);
        let config = proptest::test_runner::Config::with_source_file(file!());
        let kinds = [("a report found", 0.2)];
        crate::proptesting::check(config, lines, &kinds, |lines, seen| {
            let output = lines.join("\n");
            if let Some(report) = git_report(&output) {
                seen.saw("a report found", true);
                prop_assert!(output.lines().any(|l| l.trim() == report));
                prop_assert!(report.starts_with('[') && report.contains("] "));
            }
            Ok(())
        });
    }
}
