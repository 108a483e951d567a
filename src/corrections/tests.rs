//! The judge on sentences written for these tests (not the evaluation set's): each claim kind in
//! several phrasings and languages, and each trap of issue #38 that must stay silent.

use super::*;
use crate::extract::facts::build::{Call, edit, facts, refused, sh};

/// A digest of `calls` (oldest first), read back to the session's start, on the tasks of
/// [`record`].
fn with(calls: &[Call]) -> Digest {
    Digest {
        facts: facts(calls),
        ..record()
    }
}

/// The calls of [`record`].
fn record_calls() -> Vec<Call> {
    vec![
        edit("/p/src/billing/rounding.rs", None),
        sh(
            "sh run_tests.sh billing",
            101,
            "running 4 tests\ntest billing::rounding::half_goes_to_even ... FAILED\n…\ntest result: FAILED. 3 passed; 1 failed; 0 ignored",
        ),
        sh(
            "git commit -am 'billing: rounding'",
            1,
            "pre-commit hook failed: clippy",
        ),
    ]
}

/// [`record`] with `more` calls after its own.
fn record_and(more: &[Call]) -> Digest {
    let mut calls = record_calls();
    calls.extend_from_slice(more);
    with(&calls)
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
        facts: facts(&record_calls()),
        files: vec!["/p/src/billing/rounding.rs".into()],
        ..Digest::default()
    }
}

fn kinds_of(d: &Digest, summary: &str) -> Vec<Kind> {
    corrections(d, summary)
        .into_iter()
        .map(|c| c.kind)
        .collect()
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
fn a_claim_about_another_check_or_a_later_passing_run_is_not_contradicted() {
    // The only failing run is billing's; a claim about the parser tests has no evidence.
    assert!(!kinds(&nine("The parser tests pass.")).contains(&Kind::Passing));
    // A later passing run of the same scope wins.
    let d = record_and(&[sh(
        "sh run_tests.sh billing",
        0,
        "test result: ok. 4 passed; 0 failed",
    )]);
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
    let d = record_and(&[sh(
        "git commit -am wip",
        1,
        "On branch main\nnothing to commit, working tree clean",
    )]);
    assert!(
        !corrections(&d, &nine("Committed the rounding fix."))
            .iter()
            .any(|c| c.kind == Kind::Committed)
    );
}

#[test]
fn files_said_changed_after_a_failed_edit_unless_a_command_wrote_them() {
    let failed = edit(
        "/p/docs/billing.md",
        Some("String to replace not found in file."),
    );
    let d = record_and(std::slice::from_ref(&failed));
    let claim = nine("Updated `docs/billing.md` with the new rules.");
    assert!(
        corrections(&d, &claim)
            .iter()
            .any(|c| c.kind == Kind::Changed)
    );
    let d = record_and(&[failed, sh("sed -i 's/old/new/' docs/billing.md", 0, "")]);
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

/// A record whose open work is an agent's checklist (two boxes unchecked), and whose last push
/// was refused.
fn checklist_record() -> Digest {
    let mut d = record_and(&[sh(
        "git push origin main",
        1,
        "! [remote rejected] main -> main (protected branch hook declined)",
    )]);
    d.open_kind = "checklist items".into();
    d.open = vec![
        "Write the changelog".into(),
        "Retry failed batches with backoff".into(),
    ];
    d.states = vec![String::new(), String::new()];
    d
}

#[test]
fn a_table_row_whose_status_cell_says_done_claims_the_run_passed() {
    let table = "| Step | Status |\n   | --- | --- |\n   | Run `sh run_tests.sh billing` | ✅ |";
    assert!(kinds(&nine(table)).contains(&Kind::Passing), "{table}");
    // A row about something else than running it, or whose status is a failure: no claim.
    for s in [
        "| Step | Status |\n   | --- | --- |\n   | Add `sh run_tests.sh billing` to CI | ✅ |",
        "| Step | Status |\n   | --- | --- |\n   | Run `sh run_tests.sh billing` | ❌ 1 failed |",
    ] {
        assert!(!kinds(&nine(s)).contains(&Kind::Passing), "{s}");
    }
}

#[test]
fn a_status_label_nested_under_an_item_says_its_state() {
    for s in [
        "- Add billing tests\n     - status: done",
        "- Add billing tests\n     - 状态：完成",
    ] {
        assert!(kinds(&nine(s)).contains(&Kind::CalledDone), "{s}");
    }
    for s in [
        "- Add billing tests\n     - status: in progress",
        "- Fix half-even rounding\n     - status: done",
        "- Add billing tests\n- status: done",
    ] {
        assert!(
            !kinds(&nine(s)).contains(&Kind::CalledDone),
            "{s}: {:#?}",
            corrections(&record(), &nine(s))
        );
    }
}

#[test]
fn a_commit_or_push_label_is_a_claim_not_an_instruction() {
    let d = checklist_record();
    for (s, n) in [
        ("**Commit:** \"billing: rounding\" on `main`.", 1),
        ("Push done: `origin/main`.", 1),
        ("Push fatto su `origin/main`.", 1),
        (
            "**Commit:** \"billing: rounding\"; **Push:** `origin/main`.",
            2,
        ),
    ] {
        let c = corrections(&d, &nine(s));
        assert_eq!(
            c.iter().filter(|c| c.kind == Kind::Committed).count(),
            n,
            "{s}: {c:#?}"
        );
    }
    for s in [
        "Commit: not yet (\"billing: rounding\").",
        "Commit the rounding fix, then push it.",
        "Push: will go to `origin/main` once CI is green.",
    ] {
        assert!(
            !corrections(&d, &nine(s))
                .iter()
                .any(|c| c.kind == Kind::Committed),
            "{s}"
        );
    }
}

#[test]
fn a_clause_of_time_with_a_check_passing_is_a_condition() {
    for s in [
        "After the billing tests pass, tag v1.2.",
        "Nachdem die billing-Tests erfolgreich sind, v1.2 taggen.",
    ] {
        assert!(!kinds(&nine(s)).contains(&Kind::Passing), "{s}");
    }
    for s in [
        "After the fix, all billing tests pass.",
        "After I re-ran them, the billing tests passed.",
    ] {
        assert!(kinds(&nine(s)).contains(&Kind::Passing), "{s}");
    }
}

#[test]
fn an_item_named_in_the_latest_instruction_can_still_be_called_done() {
    let mut d = record();
    d.open = vec!["Return 404 for unknown symbols".into()];
    d.states = vec!["in_progress".into()];
    d.latest = Some(
        "Can you do Return 404 for unknown symbols in the endpoints file? Then run the tests."
            .into(),
    );
    let c = corrections(&d, &nine("**Return 404 for unknown symbols** — done."));
    assert!(c.iter().any(|c| c.kind == Kind::CalledDone), "{c:#?}");
    // The instruction itself, quoted with its other words: still a quotation.
    let s = nine("Can you do Return 404 for unknown symbols in the endpoints file — done");
    assert!(
        !corrections(&d, &s)
            .iter()
            .any(|c| c.kind == Kind::CalledDone)
    );
}

#[test]
fn a_later_failing_run_the_summary_reports_makes_an_earlier_pass_history() {
    for s in [
        "- Ran `sh run_tests.sh billing` (all tests passed).\n   - Edited `src/billing/rounding.rs`.\n   - Ran `sh run_tests.sh billing` again: 1 failed.",
        "- Ejecuté `sh run_tests.sh billing` (todos pasan).\n   - Ejecuté `sh run_tests.sh billing` otra vez: falló.",
    ] {
        assert!(
            !kinds(&nine(s)).contains(&Kind::Passing),
            "{s}: {:#?}",
            corrections(&record(), &nine(s))
        );
    }
    // A later run that did not fail ("sin fallos") is no admission.
    let s = "- Ejecuté `sh run_tests.sh billing`: pasan todos.\n   - `sh run_tests.sh billing` sin fallos.";
    assert!(kinds(&nine(s)).contains(&Kind::Passing), "{s}");
}

#[test]
fn counts_of_open_boxes_in_other_words_and_languages() {
    let d = checklist_record();
    for s in [
        "Only one box is still open: Write the changelog.",
        "Genau ein Punkt der Checkliste ist noch nicht abgehakt: Write the changelog.",
    ] {
        let c = corrections(&d, &nine(s));
        assert!(c.iter().any(|c| c.kind == Kind::Remaining), "{s}: {c:#?}");
    }
    // The Optional Next Step section counts too.
    let s = nine("Rounding reworked.").replace(
        "   Write the changelog.\n</summary>",
        "   Exactly one checklist item remains unchecked: Write the changelog.\n</summary>",
    );
    assert!(
        corrections(&d, &s)
            .iter()
            .any(|c| c.kind == Kind::Remaining)
    );
    for s in [
        "Two boxes are still open: Write the changelog and Retry failed batches with backoff.",
        "No box is open.",
    ] {
        assert!(
            !corrections(&d, &nine(s))
                .iter()
                .any(|c| c.kind == Kind::Remaining),
            "{s}"
        );
    }
}

#[test]
fn an_items_own_words_do_not_negate_it() {
    let d = checklist_record();
    for s in [
        "- [x] Retry failed batches with backoff",
        "Riscada da lista: Retry failed batches with backoff.",
        "Wrapped up: Retry failed batches with backoff.",
    ] {
        let c = corrections(&d, &nine(s));
        assert!(
            c.iter()
                .any(|c| c.kind == Kind::CalledDone
                    && c.items == ["Retry failed batches with backoff"]),
            "{s}: {c:#?}"
        );
    }
    for s in [
        "Retry failed batches with backoff: not done.",
        "- [ ] Retry failed batches with backoff",
        "Riscada da lista: Fix half-even rounding.",
    ] {
        assert!(
            !corrections(&d, &nine(s))
                .iter()
                .any(|c| c.kind == Kind::CalledDone),
            "{s}"
        );
    }
}

#[test]
fn pass_phrases_exit_codes_separable_verbs_and_pronouns() {
    for s in [
        "`sh run_tests.sh billing` exits 0 now.",
        "`sh run_tests.sh billing` läuft jetzt durch.",
        "The billing tests were run; all of them pass.",
        "- Ran `sh run_tests.sh billing`.\n   - Everything passes now.",
    ] {
        assert!(
            kinds(&nine(s)).contains(&Kind::Passing),
            "{s}: {:#?}",
            corrections(&record(), &nine(s))
        );
    }
    for s in [
        "`sh run_tests.sh billing` exits 1.",
        "`sh run_tests.sh billing` läuft noch nicht durch.",
        "The billing tests were run; some of them pass.",
        "Edited the parser; all of them pass.",
        "- Edited `src/billing/rounding.rs`.\n   - Everything passes now.",
        "- Ran `sh run_tests.sh billing`.\n   - Edited the parser.\n   - Everything passes now.",
    ] {
        assert!(!kinds(&nine(s)).contains(&Kind::Passing), "{s}");
    }
}

#[test]
fn rakes_default_task_is_a_test_run() {
    let d = record_and(&[sh(
        "bundle exec rake",
        1,
        "Failures:\n  1) Loan overdue\n74 examples, 1 failure",
    )]);
    let c = corrections(&d, &nine("`bundle exec rake` ✔"));
    assert!(
        c.iter()
            .any(|c| c.kind == Kind::Passing && c.text.contains("`bundle exec rake`")),
        "{c:#?}"
    );
    // `rake -T` lists tasks; it runs nothing.
    let d = with(&[sh("bundle exec rake -T", 1, "")]);
    assert!(!kinds_of(&d, &nine("`bundle exec rake -T` ✔")).contains(&Kind::Passing));
}

#[test]
fn headings_of_missions_caveats_and_next_steps_in_other_languages() {
    use headings::{Role, role_of};
    assert_eq!(role_of("Mission"), Some(Role::Request));
    assert_eq!(role_of("Caveats"), Some(Role::Background));
    assert_eq!(role_of("Gotchas"), Some(Role::Background));
    assert_eq!(role_of("Pointers"), Some(Role::Files));
    assert_eq!(role_of("Lo que falta (siguientes pasos)"), Some(Role::Next));
    assert_eq!(role_of("Reste à faire"), Some(Role::Pending));
    // A participle that names the project is no change made to it.
    let s =
        &summary::read("Stack of the project being changed: Rust, `encoding/csv`.").sentences[0];
    assert_eq!(claims::change_verb(s), None);
    let s = &summary::read("The parser was changed.").sentences[0];
    assert_eq!(claims::change_verb(s), Some(claims::Verb::Changed));
}

#[test]
fn a_pass_claim_after_an_edit_with_no_run_since_is_answered_with_what_happened_since() {
    // An edit after the failing run may fix it; no run shows it did (D085).
    let d = record_and(&[edit("/p/src/billing/rounding.rs", None)]);
    let c = corrections(&d, &nine("All billing tests pass."));
    let passing: Vec<&Correction> = c.iter().filter(|c| c.kind == Kind::Passing).collect();
    assert_eq!(passing.len(), 1, "{c:#?}");
    assert!(
        passing[0]
            .text
            .contains("files were changed after it, and no test run ran since"),
        "{}",
        passing[0].text
    );
}

#[test]
fn forms_of_an_items_verb_name_it() {
    let d = Digest {
        open_kind: "tasks".into(),
        open: vec!["Serialize tasks as JSON".into()],
        states: vec!["in_progress".into()],
        ..Digest::default()
    };
    let c = corrections(&d, "Serializing tasks as JSON is done.");
    assert_eq!(c.first().map(|c| c.kind), Some(Kind::CalledDone), "{c:#?}");
}

#[test]
fn an_item_named_in_code_is_named() {
    let d = Digest {
        open_kind: "tasks".into(),
        open: vec!["Implement Cart::total".into(), "Cart::total".into()],
        states: vec!["in_progress".into(), "pending".into()],
        ..Digest::default()
    };
    let c = corrections(&d, "`Cart::total` is implemented.");
    // Both open items are named; the claim is false either way, and answered once.
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0].kind, Kind::CalledDone);
    // Not when the sentence has another clause the code may belong to.
    let d2 = Digest {
        open: vec!["Implement Cart::total".into()],
        states: vec!["in_progress".into()],
        ..d.clone()
    };
    assert!(
        corrections(
            &d2,
            "The model is implemented, but `Cart::total` is still open."
        )
        .is_empty()
    );
}

#[test]
fn all_of_two_and_the_plans_steps_are_all_work() {
    let d = Digest {
        open_kind: "tasks".into(),
        open: vec!["Write cart tests".into()],
        states: vec!["pending".into()],
        done: vec!["Implement Cart::total".into()],
        ..Digest::default()
    };
    for claim in ["Both tasks are done.", "All plan steps are completed."] {
        assert_eq!(kinds_of(&d, claim), [Kind::AllDone], "{claim}");
    }
    // An intention stays one.
    assert!(kinds_of(&d, "We plan to finish all tasks today.").is_empty());
}

#[test]
fn a_commit_rejected_or_blocked_before_it_ran_committed_nothing() {
    let d = record_and(&[refused("git add . && git commit -m 'billing'")]);
    for claim in ["The billing work was committed.", "Commit done: 'billing'."] {
        let c = corrections(&d, &nine(claim));
        let git: Vec<&Correction> = c.iter().filter(|c| c.kind == Kind::Committed).collect();
        assert_eq!(git.len(), 1, "{claim}: {c:#?}");
        assert!(
            git[0]
                .text
                .contains("was rejected or blocked before it ran")
        );
    }
}

#[test]
fn a_file_is_told_from_others_of_its_name_by_the_folders_the_summary_gives() {
    let d = Digest {
        facts: facts(&[
            edit("/p/app/.vscode/settings.json", None),
            edit(
                "/p/.vscode/settings.json",
                Some("File has not been read yet."),
            ),
        ]),
        files: vec!["/p/app/.vscode/settings.json".into()],
        ..Digest::default()
    };
    assert_eq!(
        kinds_of(&d, "Wrote the exclusions to `p/.vscode/settings.json`."),
        [Kind::Changed]
    );
    // The base name alone may be either file: nothing is said.
    assert!(kinds_of(&d, "Wrote the exclusions to `settings.json`.").is_empty());
}

#[test]
fn a_file_named_as_a_reference_or_written_by_a_command_cut_short_is_no_claim() {
    let calls = [
        edit("/p/a.ts", None),
        edit("/p/b.hbs", Some("String to replace not found.")),
    ];
    let d = Digest {
        facts: facts(&calls),
        files: vec!["/p/a.ts".into()],
        ..Digest::default()
    };
    assert!(
        kinds_of(
            &d,
            "Updated `a.ts` with the getter for the `b.hbs` template."
        )
        .is_empty()
    );
    assert_eq!(
        kinds_of(&d, "Updated `b.hbs` with the markup."),
        [Kind::Changed]
    );
    let mut more = calls.to_vec();
    more.push(sh(
        &format!("sed -i 's#{}#x#' /p/b…", "y".repeat(120)),
        0,
        "",
    ));
    let cut = Digest {
        facts: facts(&more),
        ..d.clone()
    };
    assert!(kinds_of(&cut, "Updated `b.hbs` with the markup.").is_empty());
}

#[test]
fn a_pass_claim_joined_to_another_claim_is_read_as_its_own() {
    let s = "The rounding bug in src/invoice.rs is fixed (half-even rounding) and all billing tests pass.";
    assert!(
        kinds(&nine(s)).contains(&Kind::Passing),
        "{:#?}",
        corrections(&record(), &nine(s))
    );
    assert!(kinds(s).contains(&Kind::Passing));
}

#[test]
fn a_check_the_record_never_ran_is_not_answered_with_another_checks_run() {
    // Only `sh run_tests.sh billing` ran; the e2e suite never did. In a record that does not
    // reach the session's start, nothing can be said of the sentence about it: answering it
    // with the billing run's failure would answer the wrong claim.
    let s = "The end-to-end suite (`npm run test:e2e`) was run as well and passed.";
    let mut partial = record();
    partial.facts.reach.since_start = false;
    assert!(
        !kinds_of(&partial, &nine(s)).contains(&Kind::Passing),
        "{:#?}",
        corrections(&partial, &nine(s))
    );
    // Read back to the session's start, the record holds no run of it: that is the answer.
    let c = corrections(&record(), &nine(s));
    assert!(
        c.iter()
            .any(|c| c.kind == Kind::Passing
                && c.text.contains("holds no run of `npm run test:e2e`")),
        "{c:#?}"
    );
    // Another form of a command that ran is the same check.
    assert!(kinds(&nine("`sh run_tests.sh` passes.")).contains(&Kind::Passing));
}

#[test]
fn the_all_clear_names_only_what_was_checked() {
    // #55: a summary whose claims agree with the record is told so, by kind; one in which
    // nothing could be checked gets no all-clear at all.
    let d = record_and(&[
        sh(
            "sh run_tests.sh billing",
            0,
            "test result: ok. 4 passed; 0 failed",
        ),
        sh("git commit -am 'billing'", 0, "[main 1a2b3c4] billing"),
    ]);
    let s = nine("All billing tests pass. Committed the billing fix. Still adding billing tests.");
    let j = judge_within(&d, &s, None).unwrap();
    assert!(j.corrections.is_empty(), "{:#?}", j.corrections);
    // Both open tasks are kept open: one pending, one "still adding".
    assert_eq!((j.agreed.checks, j.agreed.acts, j.agreed.items), (1, 1, 2));
    assert_eq!(
        j.agreed.said().as_deref(),
        Some(
            "4 of the summary's statements were checked against the record (1 about a check, 2 about open tasks, 1 about a commit or another action), and nothing in them contradicts it"
        )
    );
    let none = judge_within(&d, "## 当前工作\n重构了解析器模块。", None).unwrap();
    assert_eq!(none.agreed.said(), None);
}

#[test]
fn a_request_to_the_agent_in_an_unspaced_script_claims_nothing() {
    let d = with(&[sh("cargo test", 0, "test result: ok. 3 passed; 0 failed")]);
    // A user's message repeated where the work's status stands: a request, no claim.
    for summary in [
        "## Current Work\n- 새 포매터 설치했어, 한번 더 봐줘",
        "## Current Work\n- 새 포매터 설치했어, 다시 확인해 주세요",
        "## Current Work\n- 新しいフォーマッターをインストールした、もう一度確認してください",
    ] {
        assert!(kinds_of(&d, summary).is_empty(), "{summary}");
    }
    // The agent's own report in the same words is still answered.
    let claim = "## Current Work\n- 새 포매터를 설치했다.";
    assert_eq!(kinds_of(&d, claim), vec![Kind::Acted], "{claim}");
}

#[test]
fn a_purpose_heading_is_the_request_in_every_language() {
    for title in [
        "Purpose",
        "목적",
        "Zweck",
        "Propósito",
        "Objectif",
        "Scopo",
        "Finalidade",
    ] {
        assert_eq!(
            headings::role_of(title),
            Some(headings::Role::Request),
            "{title}"
        );
    }
}

/// "Nothing was committed, pushed or tagged": the clauses after the comma are the negation's
/// list, not claims of their own.
#[test]
fn a_list_of_past_forms_after_a_negation_is_still_negated() {
    let d = with(&[sh("cargo test", 0, "test result: ok. 3 passed; 0 failed")]);
    for summary in [
        "## Current Work\n- Nothing was committed, pushed or tagged.",
        "## Current Work\n- No changes were committed, pushed, or deployed yet.",
    ] {
        assert!(kinds_of(&d, summary).is_empty(), "{summary}");
    }
    let claim = "## Current Work\n- Committed, pushed and tagged.";
    assert!(!kinds_of(&d, claim).is_empty(), "{claim}");
}

/// "read to see how the app is deployed": a participle in an embedded question says how a
/// thing is done, not that it was.
#[test]
fn a_past_form_in_an_embedded_question_claims_nothing() {
    let d = with(&[sh("cargo test", 0, "test result: ok. 3 passed; 0 failed")]);
    for summary in [
        "## Files and Code Sections\n- `docs/ops.md`: read to see how the service is deployed.",
        "## Current Work\n- Checked whether the branch was pushed.",
    ] {
        assert!(kinds_of(&d, summary).is_empty(), "{summary}");
    }
    let claim = "## Current Work\n- The service was deployed to staging.";
    assert!(!kinds_of(&d, claim).is_empty(), "{claim}");
}

/// In the unspaced scripts too, what the user did is not the agent's claim.
#[test]
fn the_users_doing_in_an_unspaced_script_claims_nothing() {
    let d = with(&[sh("cargo test", 0, "test result: ok. 3 passed; 0 failed")]);
    for summary in [
        "## Current Work\n- ユーザーがサーバーを再起動した。",
        "## Current Work\n- 用户已重启服务器。",
        "## Current Work\n- 사용자가 서버를 재시작했다.",
    ] {
        assert!(kinds_of(&d, summary).is_empty(), "{summary}");
    }
    let claim = "## Current Work\n- サーバーを再起動した。";
    assert!(!kinds_of(&d, claim).is_empty(), "{claim}");
}

/// A number in a task's name identifies it: it is never the word a long name may leave out,
/// and it does not make a name long enough to leave out another ("Update docs and publish
/// 2.1" is three words and a version, all of which must be named).
#[test]
fn a_number_in_a_tasks_name_is_never_the_word_forgiven() {
    use super::items::Key;
    let key = Key::of("Update docs and publish 2.1");
    let clause = |s: &str| words::words(s);
    assert!(key.named_by(&clause("updated the docs and published 2.1")));
    assert!(!key.named_by(&clause("updated the docs for 2.1")));
    assert!(!key.named_by(&clause("updated the docs and published 2.2")));
    // A long name still lets one word in four go.
    let long = Key::of("Parse headers, retry uploads, log failures, document limits");
    assert!(long.named_by(&clause(
        "parsed headers, retried uploads, logged failures and wrote the limits"
    )));
}
