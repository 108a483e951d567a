//! The judge on sentences written for these tests (not the evaluation set's): each claim kind in
//! several phrasings and languages, and each trap of issue #38 that must stay silent.

use super::*;
use crate::extract::Action;

fn sh(cmd: &str, exit: Option<i32>, output: &str) -> Action {
    Action {
        tool: "Bash".into(),
        summary: cmd.into(),
        error: exit.is_some_and(|c| c != 0),
        count: 1,
        exit,
        output: output.into(),
        pending: false,
    }
}

fn edit(file: &str, error: bool) -> Action {
    Action {
        tool: "Edit".into(),
        summary: file.into(),
        error,
        count: 1,
        ..Action::default()
    }
}

/// A record: two open tasks, a failed project test script after the last edit, a failed commit.
fn record() -> Digest {
    Digest {
        saved: true,
        open_kind: "tasks".into(),
        open: vec!["Add billing tests".into(), "Write the changelog".into()],
        states: vec!["in_progress".into(), "pending".into()],
        done: vec!["Fix half-even rounding".into()],
        latest: Some("Stop after the tests pass; then write the changelog".into()),
        actions: vec![
            edit("/p/src/billing/rounding.rs", false),
            sh(
                "sh run_tests.sh billing",
                Some(101),
                "running 4 tests\ntest billing::rounding::half_goes_to_even ... FAILED\n…\ntest result: FAILED. 3 passed; 1 failed; 0 ignored",
            ),
            sh(
                "git commit -am 'billing: rounding'",
                Some(1),
                "pre-commit hook failed: clippy",
            ),
        ],
        files: vec!["/p/src/billing/rounding.rs".into()],
        ..Digest::default()
    }
}

fn kinds(summary: &str) -> Vec<Kind> {
    corrections(&record(), summary)
        .into_iter()
        .map(|c| c.kind)
        .collect()
}

/// Claude Code's nine sections around one sentence in Current Work.
fn nine(current: &str) -> String {
    format!(
        "<summary>\n1. Primary Request and Intent:\n   The user asked to fix rounding and add billing tests.\n\n2. Key Technical Concepts:\n   - Rust\n\n3. Files and Code Sections:\n   - `src/billing/rounding.rs`\n\n4. Errors and fixes:\n   - none\n\n5. Problem Solving:\n   Rounding reworked.\n\n6. All user messages:\n   - \"Stop after the tests pass; then write the changelog\"\n\n7. Pending Tasks:\n   - Write the changelog\n\n8. Current Work:\n   {current}\n\n9. Optional Next Step:\n   Write the changelog.\n</summary>"
    )
}

#[test]
fn passing_claims_in_many_phrasings_are_corrected_with_the_runs_evidence() {
    for claim in [
        "All billing tests pass.",
        "The billing suite is green.",
        "`sh run_tests.sh billing` passes cleanly.",
        "Ran the billing tests: everything passes with no failures.",
        "The failing billing test now passes.",
        "Die billing-Tests laufen durch.",
        "Todas las pruebas de billing pasan.",
        "Tous les tests de billing passent.",
        "Todos os testes de billing passam.",
        "billing 的测试全部通过。",
        "billing のテストはすべてパスした。",
        "billing 테스트가 모두 통과했다.",
    ] {
        let c = corrections(&record(), &nine(claim));
        let passing: Vec<&Correction> = c.iter().filter(|c| c.kind == Kind::Passing).collect();
        assert_eq!(passing.len(), 1, "{claim}: {c:#?}");
        assert!(
            passing[0].text.contains("`sh run_tests.sh billing`")
                && passing[0].text.contains("exited 101"),
            "{}",
            passing[0].text
        );
    }
}

#[test]
fn statements_that_are_not_pass_claims_stay_silent() {
    for s in [
        // Intent, purpose, conditions, instructions.
        "Changed the rounding so that the billing tests pass.",
        "The goal is for the billing tests to pass.",
        "The billing test passes when round returns half to even.",
        "Stop after the tests pass; then write the changelog.",
        "Next: make the billing tests pass.",
        // Counts beside a failure, and parts.
        "3 billing tests pass.",
        "3 billing tests pass; 1 fails (`half_goes_to_even`).",
        "Most billing tests pass.",
        // Negations and admissions.
        "The billing tests do not pass yet.",
        "Los tests de billing todavía no pasan.",
        "billing 的测试还没通过。",
        // A test's name is no claim.
        "Investigating `test_rounding_succeeds_for_cents`.",
    ] {
        assert!(
            !kinds(&nine(s)).contains(&Kind::Passing),
            "{s}: {:#?}",
            corrections(&record(), &nine(s))
        );
    }
}

#[test]
fn a_claim_about_another_check_or_a_run_after_an_edit_is_not_contradicted() {
    // The only failing run is billing's; a claim about the parser tests has no evidence.
    assert!(!kinds(&nine("The parser tests pass.")).contains(&Kind::Passing));
    // An edit after the failing run: the tests may pass now; nothing is said.
    let mut d = record();
    d.actions.push(edit("/p/src/billing/rounding.rs", false));
    assert!(corrections(&d, &nine("All billing tests pass.")).is_empty());
    // A later passing run of the same scope wins.
    let mut d = record();
    d.actions.push(sh(
        "sh run_tests.sh billing",
        Some(0),
        "test result: ok. 4 passed; 0 failed",
    ));
    assert!(
        !corrections(&d, &nine("All billing tests pass."))
            .iter()
            .any(|c| c.kind == Kind::Passing)
    );
}

#[test]
fn tasks_called_done_in_many_phrasings() {
    for claim in [
        "Added the billing tests.",
        "The \"Add billing tests\" task is done.",
        "- [x] Add billing tests",
        "✅ Add billing tests",
        "Add billing tests — done",
        "Add billing tests: Status: completed",
        "Finished: Add billing tests.",
        "La tâche « Add billing tests » est terminée.",
        "A tarefa \"Add billing tests\" foi concluída.",
        "“Add billing tests”任务已完成。",
    ] {
        let c = corrections(&record(), &nine(claim));
        assert!(
            c.iter()
                .any(|c| c.kind == Kind::CalledDone && c.items == ["Add billing tests"]),
            "{claim}: {c:#?}"
        );
        assert!(
            c.iter()
                .any(|c| c.text.contains("in progress in the task list"))
        );
    }
}

#[test]
fn tasks_named_as_open_or_only_requested_are_not_called_done() {
    for s in [
        "Working on the billing tests.",
        "- [ ] Add billing tests",
        "Add billing tests is not done yet.",
        "The user asked to add billing tests once rounding is done.",
        // Another task's words: the completed one, not the open one.
        "Fixed half-even rounding.",
    ] {
        assert!(
            !kinds(&nine(s)).contains(&Kind::CalledDone),
            "{s}: {:#?}",
            corrections(&record(), &nine(s))
        );
    }
}

#[test]
fn all_done_claims_list_what_the_summary_does_not_keep_open() {
    for claim in [
        "All tasks are complete.",
        "Everything is done; nothing remains.",
        "There is no remaining work.",
        "Toutes les tâches sont terminées.",
        "所有任务都已完成。",
    ] {
        let c = corrections(&record(), &nine(claim));
        let all: Vec<&Correction> = c.iter().filter(|c| c.kind == Kind::AllDone).collect();
        // "Write the changelog" is kept open by the Pending Tasks section.
        assert_eq!(all.len(), 1, "{claim}: {c:#?}");
        assert_eq!(all[0].items, ["Add billing tests"], "{claim}");
    }
    // A Pending Tasks section that says none.
    let none = nine("Rounding reworked.").replace("   - Write the changelog\n", "   None.\n");
    let c = corrections(
        &record(),
        &none.replace("Write the changelog.\n</summary>", "Nothing.\n</summary>"),
    );
    assert!(
        c.iter()
            .any(|c| c.kind == Kind::AllDone && c.items.len() == 2),
        "{c:#?}"
    );
}

#[test]
fn commits_and_nothing_to_commit() {
    let c = corrections(&record(), &nine("Committed the rounding fix."));
    assert!(
        c.iter()
            .any(|c| c.kind == Kind::Committed && c.text.contains("exited 1"))
    );
    // "nothing to commit, working tree clean": everything was committed.
    let mut d = record();
    d.actions.push(sh(
        "git commit -am wip",
        Some(1),
        "On branch main\nnothing to commit, working tree clean",
    ));
    assert!(
        !corrections(&d, &nine("Committed the rounding fix."))
            .iter()
            .any(|c| c.kind == Kind::Committed)
    );
}

#[test]
fn files_said_changed_after_a_failed_edit_unless_a_command_wrote_them() {
    let mut d = record();
    d.actions.push(edit("/p/docs/billing.md", true));
    let claim = nine("Updated `docs/billing.md` with the new rules.");
    assert!(
        corrections(&d, &claim)
            .iter()
            .any(|c| c.kind == Kind::Changed)
    );
    d.actions
        .push(sh("sed -i 's/old/new/' docs/billing.md", Some(0), ""));
    assert!(
        !corrections(&d, &claim)
            .iter()
            .any(|c| c.kind == Kind::Changed)
    );
}

#[test]
fn a_fix_the_last_failing_run_contradicts() {
    let c = corrections(
        &record(),
        &nine("Fixed the bug in `src/billing/rounding.rs`."),
    );
    assert!(
        c.iter()
            .any(|c| c.kind == Kind::Fixed && c.text.contains("`sh run_tests.sh billing`")),
        "{c:#?}"
    );
    // Mentioning the file without a change verb is no claim.
    let c = corrections(
        &record(),
        &nine("Read `src/billing/rounding.rs` for context."),
    );
    assert!(!c.iter().any(|c| c.kind == Kind::Fixed), "{c:#?}");
}

#[test]
fn a_true_summary_of_the_record_gets_nothing() {
    let s = nine(
        "The billing tests fail: 3 pass, 1 fails (`half_goes_to_even`). The commit was rejected by the pre-commit hook. Still adding billing tests.",
    );
    assert_eq!(corrections(&record(), &s), Vec::new());
}

#[test]
fn the_quoted_steering_instruction_is_no_claim() {
    let s = nine(
        "The user's latest instruction, verbatim: Stop after the tests pass; then write the changelog",
    );
    assert!(
        !kinds(&s).contains(&Kind::Passing),
        "{:#?}",
        corrections(&record(), &s)
    );
}
