//! Checks the summary says pass (tests, a build, a lint, a type check, a program run to see it
//! work) against the record's runs of that check: which runs a claim speaks of (`claimed_check`,
//! `Judge::standing`), and what makes a claim only a partial report or a step of the command's
//! history, not its last word. A claim is answered by the last run that passed or failed; a run
//! started in the background, rejected, or that ran no test is no pass, and a failed scope stays
//! failed until a run of that scope (or of the whole) passes.

use super::claims::{
    self, asserted, check_noun, check_noun_unspaced, count_claim, negated, partial, paths,
    says_pass,
};
use super::headings::Role;
use super::summary::Sentence;
use super::words::{self, stem};
use super::{Correction, Judge, Kind, and_quotes, best_quotes, lexicon, shown_command};
use crate::extract::checks::{Check, command_words};
use crate::extract::facts::{CheckRun, Facts, Outcome, base_name, reports};
use std::collections::HashSet;

impl<'a> Judge<'a> {
    /// Checks the summary says pass whose last run of that scope failed, with nothing edited
    /// after it, or never finished.
    pub(super) fn passing(&self, out: &mut Vec<Correction>) {
        if self.facts.checks.is_empty() {
            return;
        }
        // Each run answered once, with the statements it answers.
        let mut answered: Vec<(&CheckRun, Vec<(&Sentence, String)>)> = Vec::new();
        for (k, s) in self.claims.iter().enumerate().take_while(|_| !self.late()) {
            for clause in &self.verdicts(s) {
                match self.pass_claim(k, s, clause) {
                    Verdict::NotAClaim => continue,
                    Verdict::Stands => break,
                    Verdict::NeverRan(c) => out.extend(c),
                    Verdict::Against(run) => {
                        let near = claim_word(clause);
                        match answered.iter_mut().find(|(r, _)| std::ptr::eq(*r, run)) {
                            Some((_, claims)) => claims.push((*s, near)),
                            None => answered.push((run, vec![(*s, near)])),
                        }
                    }
                }
                break;
            }
        }
        for (run, claims) in answered {
            out.push(self.unpassed_run(&best_quotes(&claims), run));
        }
    }

    /// The clauses of a sentence that may say a check passed: its own, or, for a table row or
    /// a command with a mark that says done and no words of its own ("`poetry run pytest -q`
    /// ✔", "| Run `mix test` | ✅ |"), one that says it passes. None when it asserts nothing.
    fn verdicts(&self, s: &Sentence) -> Vec<Vec<String>> {
        let excepted = words::words(&s.own)
            .iter()
            .any(|w| matches!(w.as_str(), "except" | "excluding" | "besides" | "apart"));
        let row = s.marked_done
            && s.text.starts_with('|')
            && only_runs(&s.own)
            && self.named_run(s).is_some();
        if !(asserted(s) || row) || excepted {
            return Vec::new();
        }
        if s.marked_done && words::words(&s.own).is_empty() || row {
            vec![vec!["passes".to_owned()]]
        } else {
            s.clauses.clone()
        }
    }

    /// What the record says of a clause of the `k`th claim sentence `s` that may say a check
    /// passed.
    fn pass_claim(&self, k: usize, s: &Sentence, clause: &[String]) -> Verdict<'a> {
        // "completed without TypeScript errors" says a build or a run passed, as "builds" does;
        // of tests, "done" may mean written.
        let pass_said = says_pass(clause, &s.own) || claims::says_builds(clause);
        let done_said = clause.iter().any(|w| lexicon::DONE.contains(&w.as_str()));
        if !(pass_said || done_said) || negated(clause, &s.own) || partial(clause) {
            return Verdict::NotAClaim;
        }
        let run = match self.named_run(s) {
            Some(r) => self.standing(Some(r.check), &Scope::Command(r.words.clone())),
            // A check named in code that the record never ran in any form (`npm run test:e2e`
            // where only `pytest` ran): the claim is about it, and the record says nothing of
            // it, unless it holds the whole session and no run of that kind passed in it.
            None if self.names_an_unrun_check(s) => {
                return Verdict::NeverRan(self.never_ran(s, clause));
            }
            None => self.claimed_run(k, s, clause),
        };
        // A later run whose result is not read may be what the summary reports.
        let Some(run) = run.filter(|r| r.later != Some(Outcome::NoResult)) else {
            return Verdict::NotAClaim;
        };
        if !pass_said && !matches!(run.check, Check::Build | Check::Run) {
            return Verdict::NotAClaim;
        }
        if self.admits_failure_near(s, run) || self.reports_later_failure(s, run) {
            return Verdict::Stands;
        }
        if run.outcome == Outcome::Passed {
            self.agree(1, |a| &mut a.checks);
        }
        // "11 tests pass" is true of a run that passed 11 and failed 1: a count is contradicted
        // only by a report that passed fewer.
        let counted = count_claim(clause, &s.own)
            .is_some_and(|n| reports::passed_count(&run.output).is_none_or(|p| p >= n));
        let stands = matches!(
            run.outcome,
            Outcome::Passed | Outcome::Unknown | Outcome::NoResult
        );
        if stands || counted {
            return Verdict::NotAClaim;
        }
        Verdict::Against(run)
    }

    /// The run a clause's pass claim speaks of: the check named in it, or, when the clause has
    /// only the verb ("Ran the billing tests: everything passes"), in the sentence before it:
    /// a pronoun for the check the sentence before it on the same line names ("Tests have been
    /// executed; all of them pass"), or a verdict with no subject but "all" on the next line
    /// ("- Ran `pytest -q`." / "- Everything passes.").
    fn claimed_run(&self, k: usize, s: &Sentence, clause: &[String]) -> Option<&'a CheckRun> {
        let before = k.checked_sub(1).map(|j| self.claims[j]).filter(|b| {
            b.line == s.line && pronoun(clause)
                || b.line + 1 == s.line && bare_verdict(clause, &s.own)
        });
        claimed_check(clause, s)
            .or_else(|| claimed_check(&s.clauses.concat(), s))
            .or_else(|| before.and_then(|b| claimed_check(&b.clauses.concat(), b)))
            .and_then(|(check, scope)| self.standing(check, &scope))
    }

    /// The correction of pass claims (`quotes`) that `run` contradicts: it failed, or it is the
    /// only attempt and never finished. A change after a failure may fix it, but no run shows
    /// that it did: the claim has no run behind it, and the correction says what happened since
    /// (D085).
    fn unpassed_run(&self, quotes: &[String], run: &CheckRun) -> Correction {
        let noun = run.check.noun();
        let command = shown_command(&run.command);
        let evidence = match &run.outcome {
            Outcome::Failed { how } => {
                let since = if self.facts.written_since(run.age) {
                    format!("files were changed after it, and no {noun} ran since")
                } else {
                    "nothing was edited after it".to_owned()
                };
                let later = match &run.later {
                    Some(Outcome::Running) => {
                        "; a later run of it was started in the background and has not finished"
                    }
                    Some(Outcome::NotRun) => "; a later attempt of it was rejected before it ran",
                    _ => "",
                };
                format!("the last {noun} in the record, {command}, {how}, and {since}{later}")
            }
            Outcome::Running => format!(
                "the last {noun} in the record, {command}, was started in the background and the record shows no result of it"
            ),
            Outcome::NotRun => format!(
                "the record's only attempt of {command} was rejected or blocked before it ran"
            ),
            _ => format!("the last {noun} in the record, {command}, ran no test"),
        };
        Correction {
            kind: Kind::Passing,
            items: Vec::new(),
            text: format!("The summary says {}; {evidence}.", and_quotes(quotes)),
        }
    }

    /// Whether the sentence names in code a check whose program the record never ran as a
    /// check (another form of a command that ran, `cargo test` for `cargo test --workspace`,
    /// is the same program).
    fn names_an_unrun_check(&self, s: &Sentence) -> bool {
        s.code
            .iter()
            .filter_map(|code| Facts::check_in(code))
            .any(|(_, words, _)| {
                !self
                    .facts
                    .checks
                    .iter()
                    .any(|r| r.words.first() == words.first())
            })
    }

    /// The correction of a pass claim about a check named in code that the record, read back to
    /// the session's start, never ran, when no run of that kind of check passed in it either
    /// (another command may run the same check): `None` otherwise.
    fn never_ran(&self, s: &Sentence, clause: &[String]) -> Option<Correction> {
        let reach = &self.facts.reach;
        if !reach.since_start || reach.delegated {
            return None;
        }
        let (check, words, _) = s.code.iter().find_map(|c| Facts::check_in(c))?;
        let of_kind: Vec<&CheckRun> = self.facts.checks_of(Some(check)).collect();
        if of_kind.iter().any(|r| r.outcome == Outcome::Passed) {
            return None;
        }
        let other = match of_kind.first() {
            Some(r) => format!(
                "; the last {} in the record, {}, {}",
                check.noun(),
                shown_command(&r.command),
                r.outcome.said().to_lowercase()
            ),
            None => String::new(),
        };
        let quote = best_quotes(&[(s, claim_word(clause))]);
        Some(Correction {
            kind: Kind::Passing,
            items: Vec::new(),
            text: format!(
                "The summary says {}; the record of this session holds no run of {}{other}.",
                and_quotes(&quote),
                shown_command(&words.join(" "))
            ),
        })
    }

    /// The last run of a command the sentence names in code, when the record ran it as a check
    /// (`mix ci`, `bun run check`, `sh run_tests.sh billing`).
    /// A script named by its path ("`scripts/migrate.py` now runs end to end") is named too.
    fn named_run(&self, s: &Sentence) -> Option<&'a CheckRun> {
        let by_command = s.code.iter().find_map(|code| {
            let words = command_words(code);
            self.facts.checks.iter().find(|r| words.contains(&r.words))
        });
        by_command.or_else(|| {
            let scripts: Vec<String> = paths(s).iter().map(|p| base_name(p).to_owned()).collect();
            self.facts.checks.iter().find(|r| {
                r.check == Check::Run
                    && r.words
                        .iter()
                        .any(|w| scripts.iter().any(|p| p.len() > 3 && base_name(w) == p))
            })
        })
    }

    /// Whether the summary says, next to a claim or where it states what is open, that checks
    /// fail ("- 11 tests pass" / "- 1 fails"): then the claim is a partial report. A failure of
    /// another command named in code ("`npm run lint` fails") says nothing of `run`.
    pub(super) fn admits_failure_near(&self, s: &Sentence, run: &CheckRun) -> bool {
        // The sentences within two lines of the claim, and those that state open work.
        let lines = &self.doc.sentences;
        let from = lines.partition_point(|o| o.line + 2 < s.line);
        let to = lines.partition_point(|o| o.line <= s.line + 2);
        let near = lines[from..to]
            .iter()
            .chain(lines.iter().filter(|o| o.role.keeps_open()));
        near.into_iter().any(|o| {
            // A failure of a check: a fail word with a check's noun, a count or a test's name
            // beside it ("1 fails", "test_add failed"), not "retry failed batches".
            let about_checks = |c: &[String]| {
                c.iter()
                    .any(|w| check_noun(w).is_some() || w.chars().all(|ch| ch.is_ascii_digit()))
                    || o.code.iter().any(|n| n.to_lowercase().contains("test"))
                    || check_noun_unspaced(&o.own).is_some()
                    // "All tests pass except the billing tests, which fail."
                    || std::ptr::eq(o, s)
                        && words::words(&o.own).iter().any(|w| check_noun(w).is_some())
            };
            let other_command = !o.code.is_empty()
                && o.code
                    .iter()
                    .all(|c| !command_words(c).contains(&run.words))
                && o.code
                    .iter()
                    .any(|c| command_words(c).iter().any(|w| !w.is_empty()) && c.contains(' '));
            !other_command
                && !matches!(o.role, Role::Request | Role::UserMessages)
                && o.clauses.iter().any(|c| {
                    // "no failures", "ningún fallo": a good negation admits nothing.
                    let ws = claims::without_good_negations(c);
                    (0..ws.len()).any(|i| {
                        lexicon::FAILURE.contains(&ws[i]) && !claims::names_a_check(&ws, i)
                    })
                        && about_checks(c)
                        // "The `renders_currency` failure is resolved": a fix claimed, not a
                        // failure admitted.
                        && !c.iter().any(|w| {
                            lexicon::FIXED.contains(&w.as_str()) || lexicon::DONE.contains(&w.as_str())
                        })
                })
        })
    }

    /// Whether the summary reports, after the claim, a run of the same command that failed
    /// ("Ran `phpunit` (OK)" ... "Ran `phpunit` (Failures: 1)"): the claim is a step of the
    /// command's history, not its last word.
    fn reports_later_failure(&self, s: &Sentence, run: &CheckRun) -> bool {
        self.doc.sentences.iter().any(|o| {
            o.line > s.line
                && o.role.states_status()
                && o.code.iter().any(|c| command_words(c).contains(&run.words))
                && o.clauses.iter().any(|c| {
                    claims::without_good_negations(c)
                        .iter()
                        .any(|w| lexicon::FAILURE.contains(w))
                })
        })
    }

    /// The run that answers a claim that `check` (any when `None`) passes over `scope`: the
    /// last run that failed and was not passed since, else the only attempt when none passed or
    /// failed; `None` when the claim stands. "All tests pass" is answered by the whole suite's
    /// last decisive run, or by a scope that failed after it and has not passed since; "the billing
    /// tests pass" by the last run that names billing, or a failed whole run whose report does.
    fn standing(&self, check: Option<Check>, scope: &Scope) -> Option<&'a CheckRun> {
        let facts: &'a Facts = self.facts;
        let of_check = || facts.checks_of(check);
        // Newest first: an attempt that never finished (in the background, rejected, ran no
        // test) leaves the run before it standing; a run whose end is unknown stands itself.
        let decisive_or_only = |runs: Vec<&'a CheckRun>| {
            let unfinished = |r: &CheckRun| {
                matches!(
                    r.outcome,
                    Outcome::Running | Outcome::NotRun | Outcome::RanNothing
                )
            };
            runs.iter()
                .copied()
                .find(|r| !unfinished(r))
                .or_else(|| runs.first().copied())
        };
        match scope {
            Scope::Command(words) => {
                decisive_or_only(of_check().filter(|r| &r.words == words).collect())
            }
            Scope::Whole => {
                let whole = decisive_or_only(of_check().filter(|r| r.scope.is_empty()).collect());
                if whole.is_some_and(|w| w.outcome.failed()) {
                    return whole;
                }
                // A failed scope newer than the whole's last run, with no run since of a scope that
                // covers it that passed (or may have: its end unknown).
                let since = whole
                    .filter(|w| {
                        !matches!(
                            w.outcome,
                            Outcome::Running | Outcome::NotRun | Outcome::RanNothing
                        )
                    })
                    .map_or(u32::MAX, |w| w.age);
                let failed = of_check().find(|r| {
                    r.outcome.failed()
                        && r.age < since
                        && !of_check().any(|p| {
                            matches!(
                                p.outcome,
                                Outcome::Passed | Outcome::Unknown | Outcome::NoResult
                            ) && p.age < r.age
                                && p.scope.iter().all(|w| r.scope.contains(w))
                        })
                });
                failed.or(whole)
            }
            Scope::Named(q) => {
                let named = decisive_or_only(
                    of_check()
                        .filter(|r| {
                            let have: HashSet<String> =
                                r.scope.iter().map(|w| stem(w).to_owned()).collect();
                            q.iter().all(|w| have.contains(w))
                        })
                        .collect(),
                );
                named.or_else(|| {
                    let whole = of_check().find(|r| r.scope.is_empty() && r.decisive())?;
                    let output = whole.output.to_lowercase();
                    (whole.outcome.failed() && q.iter().all(|w| output.contains(w.as_str())))
                        .then_some(whole)
                })
            }
        }
    }
}

/// The word of a clause to quote a pass claim at: its pass or done word, else its longest.
fn claim_word(clause: &[String]) -> String {
    let verdict = clause
        .iter()
        .find(|w| lexicon::PASS.contains(&w.as_str()) || lexicon::DONE.contains(&w.as_str()));
    verdict
        .or_else(|| clause.iter().max_by_key(|w| w.len()))
        .cloned()
        .unwrap_or_default()
}

/// Whether a table row's own words say no more than running a check ("Run", "Lancer", "运行").
fn only_runs(own: &str) -> bool {
    const RUN: &[&str] = &[
        "run",
        "ran",
        "rerun",
        "re",
        "execute",
        "executed",
        "the",
        "full",
        "whole",
        "suite",
        "tests",
        "test",
        "lancer",
        "lancé",
        "relancer",
        "ejecutar",
        "ejecutado",
        "correr",
        "ausführen",
        "ausgeführt",
        "rodar",
        "rodado",
        "eseguire",
        "eseguito",
    ];
    let mut rest = own.to_owned();
    for u in ["运行", "执行", "を実行", "実行", "실행"] {
        rest = rest.replace(u, " ");
    }
    words::words(&rest)
        .iter()
        .all(|w| RUN.contains(&w.as_str()))
}

/// Whether a clause is a verdict on everything and nothing else ("Everything passes now.",
/// "All green.", "Tout passe."): its subject is what the sentence before it ran.
fn bare_verdict(clause: &[String], own: &str) -> bool {
    says_pass(clause, own)
        && clause.iter().any(|w| lexicon::ALL.contains(&w.as_str()))
        && clause.iter().all(|w| {
            lexicon::ALL.contains(&w.as_str())
                || lexicon::PASS.contains(&w.as_str())
                || matches!(
                    w.as_str(),
                    "now" | "again" | "is" | "are" | "still" | "jetzt"
                )
        })
}

/// Whether a clause's subject is a pronoun ("all of them pass", "they pass", "sie laufen").
fn pronoun(clause: &[String]) -> bool {
    clause.iter().any(|w| {
        matches!(
            w.as_str(),
            "them" | "they" | "ellos" | "ellas" | "ils" | "elles" | "sie" | "eles" | "elas"
        )
    })
}

/// What a claim says passes: the kind of check (`None`: any) and its scope.
fn claimed_check(clause: &[String], s: &Sentence) -> Option<(Option<Check>, Scope)> {
    if let Some(named) = command_claimed(s) {
        return Some(named);
    }
    let (pos, kind) = clause
        .iter()
        .enumerate()
        .find_map(|(i, w)| check_noun(w).map(|k| (i, k)))
        .or_else(|| check_noun_unspaced(&s.own).map(|k| (0, Some(k))))?;
    let mut q = narrowing_before(&clause[..pos]);
    q.extend(narrowing_after(&clause[pos + 1..]));
    // The sentence's paths narrow the check only when they are this clause's: in "The bug in
    // `src/invoice.rs` is fixed and all billing tests pass" the file is the fix's, not the tests'.
    if s.clauses.len() <= 1 {
        q.extend(narrowing_paths(s));
    }
    let q: Vec<String> = q.into_iter().filter(|w| !w.is_empty()).collect();
    Some((
        kind,
        if q.is_empty() {
            Scope::Whole
        } else {
            Scope::Named(q)
        },
    ))
}

/// The check a command named in code runs, and its scope: `cargo test billing` passes.
fn command_claimed(s: &Sentence) -> Option<(Option<Check>, Scope)> {
    s.code.iter().find_map(|code| {
        let ws: Vec<String> = code.split_whitespace().map(str::to_owned).collect();
        let (check, words, whole) = Facts::check_in(code)?;
        Some((Some(check), Scope::Command(words).or_whole(&ws, whole)))
    })
}

/// The stems of the words right before a check's noun that narrow it ("billing tests"), nearest
/// first.
fn narrowing_before(before: &[String]) -> Vec<String> {
    let mut q: Vec<String> = Vec::new();
    for w in before.iter().rev() {
        if claims::GENERIC.contains(&w.as_str()) || w.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        if matches!(
            w.as_str(),
            "pass"
                | "passes"
                | "passed"
                | "passing"
                | "failing"
                | "failed"
                | "broken"
                | "flaky"
                | "previously"
                | "new"
                | "old"
                | "remaining"
                | "other"
                | "ran"
                | "run"
        ) {
            break;
        }
        q.push(stem(w).to_owned());
    }
    q
}

/// The stems of up to three words after a check's noun and a "for"/"in" that narrow it ("tests
/// for the importer").
fn narrowing_after(after: &[String]) -> Vec<String> {
    let mut q: Vec<String> = Vec::new();
    if let Some(f) = after.iter().position(|w| {
        matches!(
            w.as_str(),
            "for" | "in" | "of" | "de" | "del" | "von" | "für" | "im"
        )
    }) {
        for w in after[f + 1..].iter().take(3) {
            if claims::GENERIC.contains(&w.as_str()) {
                continue;
            }
            if says_pass(std::slice::from_ref(w), "") || matches!(w.as_str(), "now" | "are" | "is")
            {
                break;
            }
            q.push(stem(w).to_owned());
        }
    }
    q
}

/// The stems of a test name's or file's words in the sentence: they narrow the check too.
fn narrowing_paths(s: &Sentence) -> Vec<String> {
    let mut q: Vec<String> = Vec::new();
    for p in paths(s) {
        for w in words::words(&p) {
            if !matches!(w.as_str(), "py" | "rs" | "js" | "ts" | "go" | "rb" | "sh") {
                q.push(stem(&w).to_owned());
            }
        }
    }
    q
}

/// What the record says of a clause that may claim a check passed.
enum Verdict<'a> {
    /// It claims no pass (or none the record can speak of): the next clause may.
    NotAClaim,
    /// It claims a pass the record does not contradict, or reports a failure near it: the
    /// sentence is answered.
    Stands,
    /// It names a check the record never ran: the correction, if the record can say so.
    NeverRan(Option<Correction>),
    /// The run that contradicts it.
    Against(&'a CheckRun),
}

/// What part of a check a claim speaks of.
enum Scope {
    /// The whole suite ("all tests pass").
    Whole,
    /// A part named by these word stems ("billing tests").
    Named(Vec<String>),
    /// The exact command named in code.
    Command(Vec<String>),
}

impl Scope {
    /// A claim naming a command of the whole suite (`cargo test`) speaks of the whole suite.
    fn or_whole(self, _code: &[String], whole: bool) -> Scope {
        if whole { Scope::Whole } else { self }
    }
}
