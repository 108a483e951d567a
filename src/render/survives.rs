//! The snapshot's sections for the facts a summary loses most (#50): the last run of each check
//! with how it ended and why it failed, and every file changed, grouped by folder so that a
//! session's thirty files fit where seven full paths did. What does not fit is named in a cut
//! line, never dropped silently.
//!
//! A check's outcome is the record's facts' ([`crate::extract::facts`], D089): the same reading
//! the judge and the directive use, so the snapshot and the corrections never disagree about a
//! run.

use super::SECTION_END_RESERVE;
use super::sections::why_line;
use crate::extract::checks::Check;
use crate::extract::facts::{CheckRun, Outcome};
use crate::extract::{Action, Extraction};
use crate::text::{cut_line, folded_line, room, utf16_len};

/// The most code units of one folder's line of changed files.
const MAX_FOLDER_LINE: usize = 400;
/// The most code units of the line naming what was left out.
const MAX_CUT_LINE: usize = 300;

/// How a command's checks ended, in words: one command may run several (`make build && make
/// test`); a failure of any is its failure.
fn ended(runs: &[&CheckRun]) -> String {
    let failed = runs.iter().find(|r| r.outcome.failed());
    let outcome = match failed {
        Some(r) => &r.outcome,
        None if runs.iter().all(|r| r.outcome == Outcome::Passed) => &Outcome::Passed,
        None => &runs[0].outcome,
    };
    match runs.iter().find_map(|r| r.later.as_ref()) {
        Some(later) => format!("{}; a later run: {}", outcome.said(), later.said()),
        None => outcome.said(),
    }
}

/// The last failed command when neither the recent actions nor the checks show it failing.
fn unseen_failure(ex: &Extraction) -> Option<&Action> {
    let f = ex.facts.last_failure.as_ref()?;
    let shown = ex.actions.iter().any(|a| a.summary == f.summary && a.error)
        || ex
            .facts
            .checks
            .iter()
            .any(|r| r.command == f.summary && r.outcome.failed());
    (!shown).then_some(f)
}

/// "## Last run of each check": one line per check command, its newest run and how it ended,
/// the reason under a failure; then the last failed command, when nothing else shows it. The
/// newest are kept first when room is short.
pub(super) fn checks(ex: &Extraction, budget: usize) -> String {
    let failure = unseen_failure(ex);
    // One line per command, oldest first (a command's checks share its age). A program run to
    // see it work is shown when it says something: passed, failed, or never finished.
    let mut commands: Vec<Vec<&CheckRun>> = Vec::new();
    let telling = |r: &&CheckRun| {
        r.check != Check::Run || !matches!(r.outcome, Outcome::Unknown | Outcome::NoResult)
    };
    for r in ex.facts.checks.iter().rev().filter(telling) {
        match commands
            .iter_mut()
            .find(|c| c[0].age == r.age && c[0].command == r.command)
        {
            Some(c) => c.push(r),
            None => commands.push(vec![r]),
        }
    }
    commands.sort_by_key(|c| std::cmp::Reverse(c[0].age));
    let mut lines: Vec<String> = commands
        .iter()
        .map(|runs| {
            let r = runs[0];
            let how = ended(runs);
            let mut l = format!("- {}  {how}\n", folded_line(&r.command, 140));
            // Not twice: a runner's report quoted in the outcome is already the reason.
            if runs.iter().any(|r| r.outcome.failed()) && !how.contains(r.why.as_str()) {
                l.push_str(&why_line(&Action {
                    error: true,
                    why: r.why.clone(),
                    ..Action::default()
                }));
            }
            l
        })
        .collect();
    if commands.is_empty() && failure.is_none() {
        return String::new();
    }
    if let Some(f) = failure {
        let how = f.exit.map(|c| format!(" (exited {c})")).unwrap_or_default();
        let mut l = format!(
            "- Last failed command: {}  FAILED{how}\n",
            folded_line(&f.summary, 140)
        );
        l.push_str(&why_line(f));
        lines.push(l);
    }
    let mut s = String::from("## Last run of each check (oldest first)\n");
    let room = room(budget, &s, SECTION_END_RESERVE + 40);
    let mut used = 0;
    let mut keep = 0;
    for l in lines.iter().rev() {
        if used + utf16_len(l) > room {
            break;
        }
        used += utf16_len(l);
        keep += 1;
    }
    let omitted = lines.len() - keep;
    let shown = lines.split_off(omitted);
    if omitted > 0 {
        s.push_str(&format!(
            "- ... {omitted} older check(s) left out for space\n"
        ));
    }
    s.extend(shown);
    s.push('\n');
    s
}

/// The changed files by folder, in the order their newest change was made: each folder (relative
/// to the session's directory when it lies inside it) with its files' base names.
fn by_folder(ex: &Extraction) -> Vec<(String, Vec<String>)> {
    let cwd = ex.cwd.as_deref().map(|c| c.trim_end_matches(['/', '\\']));
    let mut folders: Vec<(String, Vec<String>)> = Vec::new();
    for path in &ex.files_changed {
        let rel = cwd
            .and_then(|c| path.strip_prefix(c))
            .and_then(|r| r.strip_prefix(['/', '\\']))
            .unwrap_or(path);
        let (dir, name) = match rel.rfind(['/', '\\']) {
            Some(i) => (&rel[..=i], &rel[i + 1..]),
            None => ("./", rel),
        };
        match folders.iter_mut().find(|(d, _)| d == dir) {
            Some((_, names)) => names.push(name.to_owned()),
            None => folders.push((dir.to_owned(), vec![name.to_owned()])),
        }
    }
    folders
}

/// "## Files changed": one line per folder, its files' base names; what does not fit is named
/// in a last line (how many files, in which folders).
pub(super) fn files(ex: &Extraction, budget: usize) -> String {
    if ex.files_changed.is_empty() {
        return String::new();
    }
    let folders = by_folder(ex);
    let mut s = String::from("## Files changed (most recent first)\n");
    let room = room(budget, &s, SECTION_END_RESERVE);
    let mut used = 0;
    let mut shown = 0;
    for (i, (dir, names)) in folders.iter().enumerate() {
        let line = cut_line(
            &format!(
                "- {}: {}\n",
                folded_line(dir, 200),
                folded_line(&names.join(", "), MAX_FOLDER_LINE)
            ),
            MAX_FOLDER_LINE,
        );
        let rest = &folders[i + 1..];
        let reserve = if rest.is_empty() { 0 } else { MAX_CUT_LINE };
        if used + utf16_len(&line) + reserve > room {
            break;
        }
        s.push_str(&line);
        used += utf16_len(&line);
        shown += 1;
    }
    let left: &[(String, Vec<String>)] = &folders[shown..];
    if !left.is_empty() {
        let files: usize = left.iter().map(|(_, n)| n.len()).sum();
        let dirs: Vec<String> = left.iter().map(|(d, _)| folded_line(d, 60)).collect();
        let line = cut_line(
            &format!(
                "- ... left out for space: {files} more file(s) in {}\n",
                dirs.join(", ")
            ),
            MAX_CUT_LINE,
        );
        if used + utf16_len(&line) <= room {
            s.push_str(&line);
        }
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::extract::facts::build::{background, facts, sh};

    #[test]
    fn each_check_says_how_it_ended_and_why_it_failed() {
        let ex = Extraction {
            facts: facts(&[
                sh("cargo test", 0, "test result: ok. 3 passed; 0 failed"),
                sh("pnpm build", 1, "src/a.ts(1,2): error TS2322: no"),
            ]),
            ..Extraction::default()
        };
        let s = checks(&ex, 2_000);
        assert!(s.contains("- cargo test  passed\n"), "{s}");
        assert!(s.contains("- pnpm build  FAILED (exited 1)\n"), "{s}");
        assert!(
            s.contains("  why: src/a.ts(1,2): error TS2322: no\n"),
            "{s}"
        );
        // Short of room: the newest is kept, the cut is said.
        let s = checks(&ex, 170);
        assert!(
            s.contains("1 older check(s) left out") && s.contains("pnpm build"),
            "{s}"
        );
        assert!(utf16_len(&s) <= 170, "{}", utf16_len(&s));
        // A failure of no check: said on its own line.
        let ex = Extraction {
            facts: facts(&[sh(
                "ls /nonexistent",
                2,
                "ls: cannot access '/nonexistent': No such file or directory",
            )]),
            ..Extraction::default()
        };
        let s = checks(&ex, 1_000);
        assert!(
            s.contains("- Last failed command: ls /nonexistent  FAILED (exited 2)\n  why: ls: cannot access"),
            "{s}"
        );
    }

    #[test]
    fn a_background_run_after_a_failure_leaves_the_failure_standing() {
        let ex = Extraction {
            facts: facts(&[
                sh("cargo test", 101, "test result: FAILED. 3 passed; 1 failed"),
                background("cargo test"),
            ]),
            ..Extraction::default()
        };
        let s = checks(&ex, 2_000);
        assert!(
            s.contains("- cargo test  FAILED (exited 101, reporting \"test result: FAILED. 3 passed; 1 failed\"); a later run: started in the background, not finished"),
            "{s}"
        );
        assert!(!s.contains("passed\n"), "{s}");
    }

    #[test]
    fn files_are_grouped_by_folder_and_the_cut_names_what_it_left_out() {
        let ex = Extraction {
            cwd: Some("/w/app".into()),
            files_changed: [
                "/w/app/src/a.rs",
                "/w/app/README.md",
                "/w/app/src/b.rs",
                "/elsewhere/x.txt",
            ]
            .map(String::from)
            .to_vec(),
            ..Extraction::default()
        };
        let s = files(&ex, 1_000);
        assert!(s.contains("- src/: a.rs, b.rs\n"), "{s}");
        assert!(s.contains("- ./: README.md\n"), "{s}");
        assert!(s.contains("- /elsewhere/: x.txt\n"), "{s}");
        let many = Extraction {
            files_changed: (0..60).map(|i| format!("/d{i}/f{i}.rs")).collect(),
            ..Extraction::default()
        };
        let s = files(&many, 700);
        assert!(utf16_len(&s) <= 700, "{}", utf16_len(&s));
        assert!(
            s.contains("left out for space:") && s.contains("more file(s) in /d"),
            "{s}"
        );
    }
}
