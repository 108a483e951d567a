//! Issue #54's replays through the built binary: the record's facts the red team found wrong,
//! each as the snapshot shows it, the directive names it and the judge holds the summary to it.
//! A Claude Code session is saved (PreCompact), restored (SessionStart) and audited (PostCompact
//! with the summary); the corrections reach the model at the next prompt (`correct`).

use crate::common::*;
use serde_json::json;
use std::path::PathBuf;

/// A session: the prompt, then `calls` (a command and how it ended: its exit status and output),
/// each a call and its result.
fn session(calls: &[(&str, i32, &str)]) -> Vec<String> {
    let mut lines = vec![prompt(
        "u0",
        None,
        "fix the billing tests and make them pass",
    )];
    let mut parent = "u0".to_owned();
    for (i, (cmd, exit, out)) in calls.iter().enumerate() {
        let (a, r, t) = (format!("a{i}"), format!("r{i}"), format!("t{i}"));
        lines.push(tool_use(&a, &parent, &t, "Bash", json!({"command": cmd})));
        let content = if *exit == 0 {
            (*out).to_owned()
        } else {
            format!("Exit code {exit}\n{out}")
        };
        lines.push(tool_result(&r, &a, &t, &content, *exit != 0));
        parent = r;
    }
    lines
}

/// What a compaction of `lines` gives: the directive `save` printed, the snapshot `restore`
/// handed over, and the corrections the model gets at the next prompt.
struct Compacted {
    directive: String,
    snapshot: String,
    corrections: String,
}

fn compact(lines: &[String], summary: &str) -> Compacted {
    let sb = Sandbox::new();
    let t: PathBuf = sb.transcript("t.jsonl", lines);
    let directive = sb.save(&hook("s1", &t)).stdout;
    let snapshot = sb.restore(&start_hook("s1", &t)).stdout;
    sb.cmd(&["audit"])
        .stdin(post_compact("s1", &t, "auto", summary))
        .run()
        .assert_fail_open();
    let input = json!({"session_id": "s1", "transcript_path": t,
        "hook_event_name": "UserPromptSubmit", "prompt": "go on"});
    let out = sb.cmd(&["correct"]).stdin(input.to_string()).run().stdout;
    Compacted {
        directive,
        snapshot,
        corrections: out,
    }
}

const FAILED: &str = "test result: FAILED. 11 passed; 1 failed; 0 ignored";
const PASSED: &str = "test result: ok. 12 passed; 0 failed; 0 ignored";

#[test]
fn a_failed_run_thirty_calls_back_is_still_the_last_word_for_the_judge() {
    // The directive read 400 calls back, the judge 20 actions: one reach now (D089).
    let mut calls = vec![("cargo test", 101, FAILED)];
    calls.extend(std::iter::repeat_n(("ls src", 0, "lib.rs"), 30));
    let c = compact(
        &session(&calls),
        "## Current Work\nRan `cargo test`: all tests pass.",
    );
    assert!(
        c.directive.contains("the last run of `cargo test` failed"),
        "{}",
        c.directive
    );
    assert!(c.snapshot.contains("cargo test  FAILED"), "{}", c.snapshot);
    assert!(
        c.corrections.contains("`cargo test`, exited 101"),
        "{}",
        c.corrections
    );
}

#[test]
fn a_background_start_is_still_running_never_passed() {
    let mut lines = session(&[("cargo test", 101, FAILED)]);
    lines.push(tool_use(
        "ab",
        "r0",
        "tb",
        "Bash",
        json!({"command": "cargo test", "run_in_background": true}),
    ));
    lines.push(tool_result(
        "rb",
        "ab",
        "tb",
        "Command running in background with ID: b1. Output is being written to: /tmp/b1.output",
        false,
    ));
    let c = compact(&lines, "## Current Work\nAll tests pass now.");
    assert!(
        c.snapshot
            .contains("a later run: started in the background, not finished"),
        "{}",
        c.snapshot
    );
    assert!(!c.snapshot.contains("cargo test  passed"), "{}", c.snapshot);
    assert!(
        c.directive.contains("the last run of `cargo test` failed"),
        "{}",
        c.directive
    );
    assert!(
        c.corrections.contains("exited 101") && c.corrections.contains("started in the background"),
        "{}",
        c.corrections
    );
}

#[test]
fn a_run_that_ran_no_test_backs_nothing() {
    let calls = [
        ("cargo test", 101, FAILED),
        ("cargo test --no-run", 0, "Finished `test` profile"),
    ];
    let c = compact(&session(&calls), "## Current Work\nAll tests pass.");
    assert!(
        c.corrections.contains("`cargo test`, exited 101"),
        "{}",
        c.corrections
    );
}

#[test]
fn a_failed_scope_stays_failed_until_that_scope_passes() {
    let calls = [
        ("cargo test -p billing", 101, FAILED),
        ("cargo test -p parser", 0, PASSED),
    ];
    let c = compact(&session(&calls), "## Current Work\nAll tests pass.");
    assert!(
        c.corrections
            .contains("`cargo test -p billing`, exited 101"),
        "{}",
        c.corrections
    );
    // Once billing passes, or the whole suite does, the claim stands.
    for later in ["cargo test -p billing", "cargo test"] {
        let mut calls = calls.to_vec();
        calls.push((later, 0, PASSED));
        let c = compact(&session(&calls), "## Current Work\nAll tests pass.");
        assert!(
            !c.corrections.contains("Corrections"),
            "{later}: {}",
            c.corrections
        );
    }
}

#[test]
fn a_codex_result_without_an_exit_status_is_never_taken_for_a_pass() {
    // Codex's PostToolUse gives the command's text; the ledger keeps it as the rollout would
    // say it, and a build whose end is not stated is not "passed" in the snapshot.
    let sb = Sandbox::new();
    let t = sb.transcript("t.jsonl", &session(&[]));
    let report = json!({"session_id": "s1", "transcript_path": t,
        "hook_event_name": "PostToolUse", "tool_name": "exec_command", "tool_use_id": "c1",
        "tool_input": {"command": "cargo build"},
        "tool_response": "Compiling calc v0.1.0\nerror[E0308]: mismatched types"});
    sb.cmd(&["correct"])
        .stdin(report.to_string())
        .run()
        .assert_fail_open();
    sb.save(&hook("s1", &t)).assert_fail_open();
    let snapshot = sb.restore(&start_hook("s1", &t)).stdout;
    assert!(snapshot.contains("cargo build"), "{snapshot}");
    assert!(!snapshot.contains("cargo build  passed"), "{snapshot}");
}

#[test]
fn a_commit_the_record_never_holds_is_answered_and_one_it_holds_is_not() {
    let lines = session(&[("cargo test", 0, PASSED)]);
    let c = compact(
        &lines,
        "## Current Work\nCommitted the fix and pushed it to origin/main.",
    );
    assert!(
        c.corrections.contains("holds no `git commit` at all")
            && c.corrections.contains("holds no `git push` at all"),
        "{}",
        c.corrections
    );
    let mut lines = session(&[
        ("cargo test", 0, PASSED),
        (
            "git commit -am 'fix billing'",
            0,
            "[main 1a2b3c4] fix billing",
        ),
    ]);
    lines.push(prompt("u9", Some("r1"), "thanks"));
    let c = compact(&lines, "## Current Work\nCommitted the fix.");
    assert!(!c.corrections.contains("Corrections"), "{}", c.corrections);
}

/// `session` with one more call of `tool` (`input`) answered `out`, after the last call.
fn with_call(
    mut lines: Vec<String>,
    tool: &str,
    input: serde_json::Value,
    out: &str,
) -> Vec<String> {
    let parent = lines.len().to_string();
    let last = format!("r{}", lines.len() / 2 - 1);
    lines.push(tool_use(
        &format!("a{parent}x"),
        &last,
        &format!("t{parent}x"),
        tool,
        input,
    ));
    lines.push(tool_result(
        &format!("r{parent}x"),
        &format!("a{parent}x"),
        &format!("t{parent}x"),
        out,
        false,
    ));
    lines
}

/// Files are kept by base name (a bounded set of hashes): the answer names no file of that name.
#[test]
fn a_file_said_edited_that_was_only_read_or_never_opened_is_answered() {
    let lines = with_call(
        session(&[("cargo test", 0, PASSED)]),
        "Read",
        json!({"file_path": "/p/src/billing.rs"}),
        "fn total() {}",
    );
    let c = compact(
        &lines,
        "## Files and Code Sections\n- src/billing.rs (edited): fixed the rounding\n- src/tax.rs (edited): new rate",
    );
    assert_has_all(
        &c.corrections,
        &[
            "holds no change to `billing.rs` (it was only read)",
            "holds no change to `tax.rs` (no tool opened it)",
        ],
    );
}

#[test]
fn a_sub_agent_that_may_write_leaves_absences_unanswered_and_a_read_only_one_does_not() {
    let summary = "## Current Work\nCommitted the fix.\n\n## Files and Code Sections\n- src/tax.rs (edited): new rate";
    let writer = with_call(
        session(&[("cargo test", 0, PASSED)]),
        "Task",
        json!({"subagent_type": "general-purpose", "prompt": "fix the tax rate and commit"}),
        "Done.",
    );
    let c = compact(&writer, summary);
    assert_lacks_all(
        &c.corrections,
        &["holds no `git commit`", "holds no change"],
    );
    let explorer = with_call(
        session(&[("cargo test", 0, PASSED)]),
        "Task",
        json!({"subagent_type": "Explore", "prompt": "find where the tax rate is set"}),
        "src/tax.rs:3",
    );
    let c = compact(&explorer, summary);
    assert_has_all(
        &c.corrections,
        &[
            "holds no `git commit` at all",
            "holds no change to `tax.rs`",
        ],
    );
}

#[test]
fn a_commit_the_user_ran_with_a_bang_is_no_absence() {
    let mut lines = session(&[("cargo test", 0, PASSED)]);
    lines.push(prompt(
        "u9",
        Some("r0"),
        "<bash-input>git commit -am 'fix billing'</bash-input>",
    ));
    let c = compact(&lines, "## Current Work\nCommitted the fix.");
    assert_lacks_all(&c.corrections, &["git commit"]);
}

/// The summary a session continued from another file begins with is found however far back it
/// lies, past megabytes of lines that name no call (the deep read searches for its needles).
#[test]
fn a_session_continued_from_another_file_answers_no_absence_however_far_back_it_began() {
    let continued = json!({"type":"user","uuid":"c0","parentUuid":null,"isCompactSummary":true,
        "message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The fix was committed."}})
    .to_string();
    let mut lines = vec![continued];
    let mut parent = "c0".to_owned();
    for i in 0..3000 {
        let uuid = format!("f{i}");
        lines.push(reply(
            &uuid,
            &parent,
            &"lorem ipsum dolor sit amet ".repeat(40),
        ));
        parent = uuid;
    }
    // Prompts enough near the end that none is looked for further back.
    for i in 0..12 {
        let (u, a, t, r) = (
            format!("u{i}"),
            format!("a{i}"),
            format!("t{i}"),
            format!("r{i}"),
        );
        lines.push(prompt(
            &u,
            Some(&parent),
            &format!("step {i} of the billing fix"),
        ));
        lines.push(tool_use(
            &a,
            &u,
            &t,
            "Bash",
            json!({"command": "cargo test"}),
        ));
        lines.push(tool_result(&r, &a, &t, PASSED, false));
        parent = r;
    }
    let c = compact(&lines, "## Current Work\nCommitted the fix and pushed it.");
    assert_lacks_all(&c.corrections, &["holds no `git"]);
}
