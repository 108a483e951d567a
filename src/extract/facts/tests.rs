//! The facts read from calls as the transcript holds them.

use super::build::*;
use super::*;

#[test]
fn each_check_keeps_its_newest_run_and_a_scope_its_own() {
    let f = facts(&[
        sh(
            "cargo test -p billing",
            101,
            "test result: FAILED. 3 passed; 1 failed",
        ),
        sh(
            "cargo test -p parser",
            0,
            "test result: ok. 9 passed; 0 failed",
        ),
        sh("pnpm build", 1, "error TS2322: no"),
        sh("ls src", 0, ""),
        sh("pnpm build", 0, "done"),
    ]);
    let shown: Vec<(&str, bool)> = f
        .checks
        .iter()
        .map(|r| (r.command.as_str(), r.outcome.failed()))
        .collect();
    assert_eq!(
        shown,
        [
            ("pnpm build", false),
            ("cargo test -p parser", false),
            ("cargo test -p billing", true)
        ]
    );
    assert_eq!(f.checks[2].scope, ["billing"]);
}

#[test]
fn a_refused_run_leaves_the_run_before_it_as_the_last() {
    let f = facts(&[
        sh("pnpm build", 2, "error TS2322: no"),
        refused("pnpm build"),
    ]);
    assert!(f.checks[0].outcome.failed(), "{f:?}");
    assert_eq!(f.checks[0].later, Some(Outcome::NotRun));
    // Never run at all: the attempt is all there is.
    let f = facts(&[refused("pnpm build")]);
    assert_eq!(f.checks[0].outcome, Outcome::NotRun);
}

#[test]
fn actions_keep_their_last_attempt_and_last_success() {
    let f = facts(&[
        sh("git commit -m a", 0, "[main 1a2b3c] a"),
        sh("git push", 1, "rejected: non-fast-forward"),
    ]);
    let push = f.act(ActKind::Push).unwrap();
    assert!(matches!(push.last.end, ActEnd::Failed { .. }) && push.done.is_none());
    assert_eq!(f.act(ActKind::Commit).unwrap().done, Some(1));
    assert!(f.act(ActKind::Deploy).is_none());
}

#[test]
fn files_keep_their_writes_and_every_name_touched() {
    let failed = "<tool_use_error>String to replace not found in file.</tool_use_error>";
    let f = facts(&[
        edit("/p/src/a.rs", None),
        edit("/p/src/b.rs", Some(failed)),
        sh("cat /p/README.md", 0, "# p"),
        sh("python3 gen.py", 0, ""),
    ]);
    let b = f.file("src/b.rs").unwrap();
    let last = b.last.as_ref().unwrap();
    assert_eq!(last.end, WriteEnd::Failed);
    assert_eq!(last.why, "String to replace not found in file.");
    assert!(b.applied.is_none());
    assert_eq!(f.file("a.rs").unwrap().applied, Some(3));
    assert_eq!(f.reach.touched.holds("b.rs"), Some(true));
    assert_eq!(f.reach.touched.holds("README.md"), Some(false));
    assert_eq!(f.reach.read.holds("README.md"), Some(true));
    assert_eq!(f.opaque, Some(0), "a script may write anything");
    assert!(f.written_since(1));
}

#[test]
fn a_background_start_is_running_until_its_notification() {
    let f = facts(&[background("cargo test")]);
    assert_eq!(f.checks[0].outcome, Outcome::Running);
    assert_eq!(f.unpassed().count(), 1);
    // After a failure, the failure stands: the background run has not said otherwise.
    let f = facts(&[
        sh("cargo test", 101, "test result: FAILED. 3 passed; 1 failed"),
        background("cargo test"),
    ]);
    assert!(f.checks[0].outcome.failed(), "{f:?}");
    assert_eq!(f.checks[0].later, Some(Outcome::Running));
}

#[test]
fn a_session_continued_from_another_file_holds_no_absence() {
    let mut fold = FactsFold::default();
    let summary = crate::read::record::Record {
        texts: vec![format!(
            "{}. Summary: ...",
            crate::extract::authorship::CONTINUED
        )],
        ..crate::read::record::Record::empty(crate::read::record::RecordKind::User)
    };
    fold.record(&summary);
    assert!(!fold.finish(true).reach.since_start);
    // As the parser gives it: the summary record's flag, and no text kept.
    let mut fold = FactsFold::default();
    fold.record(&crate::read::record::Record {
        compact_summary: true,
        ..crate::read::record::Record::empty(crate::read::record::RecordKind::User)
    });
    assert!(!fold.finish(true).reach.since_start);
}

#[test]
fn only_a_sub_agent_that_may_write_hides_work_from_the_record() {
    let mut explore = tool("Task", "Explore codebase structure");
    explore.0.agent = Some("Explore".into());
    let f = facts(&[explore, tool("Read", "/p/README.md")]);
    assert!(!f.reach.delegated, "a read-only sub-agent writes nothing");
    assert_eq!(f.reach.read.holds("README.md"), Some(true));
    let f = facts(&[tool("Task", "Implement the parser")]);
    assert!(f.reach.delegated);
}

#[test]
fn a_codex_agent_of_any_role_hides_work_from_the_record() {
    for name in ["spawn_agent", "send_input", "resume_agent"] {
        let f = facts(&[tool(name, "fix the tax rate")]);
        assert!(f.reach.delegated, "{name}");
    }
    // OpenCode's `explore` agent only reads, as Claude Code's `Explore` does.
    let mut explore = tool("Task", "find the tax rate");
    explore.0.agent = Some("explore".into());
    assert!(!facts(&[explore]).reach.delegated);
}

#[test]
fn a_command_the_user_ran_is_theirs_in_either_clients_words() {
    let texts = [
        "<bash-input>git push origin main</bash-input>",
        "<user_shell_command>\n<command>\ngit push origin main\n</command>\n<result>\nExit code: 0\n</result>\n</user_shell_command>",
        "<user_shell_command>\ngit push origin main\n</user_shell_command>\n<user_shell_command_output>\nok\n</user_shell_command_output>",
    ];
    for text in texts {
        let mut fold = FactsFold::default();
        let rec = crate::read::record::Record {
            texts: vec![text.to_owned()],
            ..crate::read::record::Record::empty(crate::read::record::RecordKind::Other)
        };
        fold.record(&rec);
        fold.record(&rec);
        let f = fold.finish(true);
        assert_eq!(f.reach.by_user, vec![ActKind::Push], "{text}");
    }
}

/// A restart the user did by hand (a process ended by name, then started again) is no command
/// the action rules name; its words still say it may be one, as the agent's would.
#[test]
fn a_process_the_user_ended_and_started_again_may_be_a_restart() {
    let mut fold = FactsFold::default();
    let rec = crate::read::record::Record {
        texts: vec!["<bash-input>pkill -f devserver; nohup ./devserver &</bash-input>".to_owned()],
        ..crate::read::record::Record::empty(crate::read::record::RecordKind::Other)
    };
    fold.record(&rec);
    let f = fold.finish(true);
    assert_eq!(f.reach.by_user, vec![ActKind::Restart]);
}
