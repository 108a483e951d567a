//! What the compaction summary got wrong, told to the user after every compaction (issue #19).
//!
//! `save` keeps a small [`Digest`] of what it protected (the open tasks or unchecked checklist
//! items, the latest instruction, the approved plan's title) beside the snapshot. The PostCompact
//! hook compares it with the summary the model will continue from (`compact_summary`) and says,
//! in one short line, what was restored and what the summary got wrong. The matching is plain
//! and honest: words are compared lowercased, an item counts as **called done** only when a
//! sentence that names it says done (or the summary claims that all work is done) without saying
//! it is still open; an item the summary never names is **not mentioned**, nothing more.

use crate::corrections::{self, Correction, Kind};
use crate::extract::digest::Digest;
use crate::render::WhyRebuilt;
use crate::text::folded_line;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// The longest message the hook prints (a line or two in the interface).
pub(crate) const MAX_MESSAGE: usize = 400;

/// How the summary treats what was protected.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Findings {
    /// What the record contradicts (see [`crate::corrections`]): the model is told these, and
    /// the user's line names the same.
    pub corrections: Vec<Correction>,
    /// Open items the summary never names.
    pub not_mentioned: Vec<String>,
    /// Whether the summary names the latest instruction (`None`: there is none, or it is too
    /// short to tell).
    pub latest_kept: Option<bool>,
    /// Whether the summary names the approved plan.
    pub plan_kept: Option<bool>,
    /// Every open item, the latest instruction and the plan were looked for in the summary and
    /// found: only then does the user's line say the summary kept them. Not so when any could
    /// not be looked for (another language or script, too few words to tell, D062).
    #[serde(default)]
    pub all_found: bool,
    /// The summary's statements checked against the record that agree with it, by kind: all
    /// the all-clear may claim (#55).
    #[serde(default)]
    pub agreed: corrections::Agreed,
}

impl Findings {
    /// What the summary got wrong, each as the user's line says it ("called 'a' done", "left
    /// out your latest instruction"); empty when it kept everything.
    pub fn wrong(&self) -> Vec<String> {
        let mut wrong = Vec::new();
        let done = self.called_done();
        if !done.is_empty() {
            let done: Vec<String> = done.into_iter().map(str::to_owned).collect();
            wrong.push(format!("called {} done", quoted(&done)));
        }
        if self.count(Kind::Passing) > 0 {
            wrong.push("said checks pass that the record shows did not".to_owned());
        }
        if self.count(Kind::Changed) + self.count(Kind::Fixed) > 0 {
            wrong.push("said files were changed that the record shows unchanged".to_owned());
        }
        if self.count(Kind::Committed) > 0 {
            wrong
                .push("said work was committed or pushed that the record shows was not".to_owned());
        }
        if self.count(Kind::Acted) > 0 {
            wrong.push(
                "said actions were done (a deploy, an install, ...) that the record shows were not"
                    .to_owned(),
            );
        }
        if !self.not_mentioned.is_empty() {
            wrong.push(format!("did not mention {}", quoted(&self.not_mentioned)));
        }
        if self.latest_kept == Some(false) {
            wrong.push("left out your latest instruction".to_owned());
        }
        if self.plan_kept == Some(false) {
            wrong.push("left out the plan".to_owned());
        }
        wrong
    }

    /// The user's line about the summary alone, when restore has already said what it handed
    /// over: `None` when the summary kept everything.
    pub(crate) fn verdict(&self, told: bool) -> Option<String> {
        let wrong = self.wrong();
        if wrong.is_empty() {
            return None;
        }
        let told = if told { "; the model is told" } else { "" };
        let s = format!("compact-guardian: the summary {}{told}.", join(&wrong));
        Some(crate::text::cut_line(&s, MAX_MESSAGE).trim_end().to_owned())
    }

    /// The user's line when the summary got nothing wrong (`verdict` is `None`): which of its
    /// statements were checked and agree ([`corrections::Agreed::said`]), and nothing when none
    /// was checked (a summary in a language the judge does
    /// not read, one that claims nothing it can hold to the record): an all-clear says no more
    /// than was checked (#55). Claude Code then shows a bare "completed successfully" (#39).
    pub(crate) fn kept(&self) -> Option<String> {
        let said = self.agreed.said()?;
        Some(format!("compact-guardian: {said}."))
    }

    /// The open items the summary calls done (one by one, or by saying all work is done).
    pub fn called_done(&self) -> Vec<&str> {
        self.corrections
            .iter()
            .filter(|c| matches!(c.kind, Kind::CalledDone | Kind::AllDone))
            .flat_map(|c| c.items.iter().map(String::as_str))
            .collect()
    }

    /// How many corrections of `kind` there are.
    fn count(&self, kind: Kind) -> usize {
        self.corrections.iter().filter(|c| c.kind == kind).count()
    }
}

/// Compares what was protected with the summary.
pub fn compare(digest: &Digest, summary: &str) -> Findings {
    compare_within(digest, summary, None).unwrap_or_default()
}

/// [`compare`], if it is done before `deadline`: `None` when it passed first, and then nothing of
/// the comparison is used, neither a correction nor "kept" (D061).
pub fn compare_within(
    digest: &Digest,
    summary: &str,
    deadline: corrections::Deadline,
) -> Option<Findings> {
    let judgement = corrections::judge_within(digest, summary, deadline)?;
    let corrections = judgement.corrections;
    let corrected: HashSet<&str> = corrections
        .iter()
        .flat_map(|c| c.items.iter().map(String::as_str))
        .collect();
    // "Did not mention" only where the summary can be read for it (same script, enough words).
    let mut not_mentioned = Vec::new();
    let mut all_found = true;
    for item in &digest.open {
        if corrections::late(deadline) {
            return None;
        }
        match corrections::mentions(summary, item) {
            Some(false) if !corrected.contains(item.as_str()) => not_mentioned.push(item.clone()),
            Some(true) if !corrected.contains(item.as_str()) => {}
            _ => all_found = false,
        }
    }
    let plan_kept = digest
        .plan
        .as_deref()
        .and_then(|p| corrections::mentions(summary, p));
    let latest_kept = corrections::latest_left_out(digest, summary, deadline).map(|out| !out);
    if corrections::late(deadline) {
        return None;
    }
    Some(Findings {
        agreed: judgement.agreed,
        all_found: all_found
            && (digest.plan.is_none() || plan_kept == Some(true))
            && (digest.latest.is_none() || latest_kept == Some(true)),
        latest_kept,
        corrections,
        not_mentioned,
        plan_kept,
    })
}

/// How the compaction went, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restored {
    /// The saved snapshot was handed to the model.
    Snapshot,
    /// No saved snapshot could be printed, for this reason: restore rebuilt one from the
    /// transcript.
    Rebuilt(WhyRebuilt),
    /// Restore did not run or handed nothing over.
    Nothing,
    /// The client runs the restore after this hook, when the next turn starts (Codex).
    Deferred,
}

/// What the audit knows besides the digest: the history's record of this compaction and, when
/// nothing arrived at all, whether the snapshot folder can be written.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// `save` ran for this compaction (the history says so).
    pub save_ran: bool,
    /// `save` found nothing to save (the history says so).
    pub nothing_to_save: bool,
    /// Why the snapshot folder cannot be written, if it cannot.
    pub folder_problem: Option<String>,
}

/// What a digest says was protected, as the user's line names it: "2 open tasks, your latest
/// instruction and the approved plan" (or "its progress notes").
pub fn carried(d: &Digest) -> String {
    let mut carried = Vec::new();
    if !d.open.is_empty() {
        let n = d.open.len();
        let kind = if d.open_kind.is_empty() {
            "tasks"
        } else {
            &d.open_kind
        };
        carried.push(format!("{n} open {}", singular(kind, n)));
    }
    if d.latest.is_some() {
        carried.push("your latest instruction".to_owned());
    }
    if d.plan.is_some() {
        carried.push("the approved plan".to_owned());
    }
    if carried.is_empty() {
        "its progress notes".to_owned()
    } else {
        join(&carried)
    }
}

/// The line restore shows the user when it hands the context over (Claude Code shows a
/// SessionStart `systemMessage` after manual and automatic compactions alike, D027).
pub(crate) fn restore_line(digest: Option<&Digest>, rebuilt: Option<WhyRebuilt>) -> String {
    let s = match (rebuilt, digest) {
        (None, Some(d)) => format!("compact-guardian restored {} for the model.", carried(d)),
        (None, None) => "compact-guardian restored its snapshot for the model.".to_owned(),
        (Some(why), _) => format!(
            "compact-guardian rebuilt the context from the transcript for the model ({}).",
            why.said()
        ),
    };
    crate::text::cut_line(&s, MAX_MESSAGE).trim_end().to_owned()
}

/// The one message the user sees after a compaction: each diagnosis from what the history, the
/// folder and the digest show, never a guess (a snapshot that expired is not "never saved").
pub fn message(
    digest: Option<&Digest>,
    restored: Restored,
    findings: Option<&Findings>,
    evidence: &Evidence,
    told: bool,
) -> String {
    let Some(d) =
        digest.filter(|d| d.saved || !matches!(restored, Restored::Nothing | Restored::Deferred))
    else {
        let rebuilt = "the context was rebuilt from the transcript instead";
        let folder = evidence
            .folder_problem
            .as_deref()
            .map(|p| folded_line(p, 160));
        let s = match (digest, restored) {
            // Its digest was used by an earlier audit, or could not be kept.
            (None, Restored::Snapshot) => "compact-guardian restored its snapshot.".to_owned(),
            (None, Restored::Rebuilt(WhyRebuilt::Expired)) => format!(
                "compact-guardian: the snapshot saved before this compaction had expired by the time the session resumed; {rebuilt}."
            ),
            (None, Restored::Rebuilt(WhyRebuilt::AlreadyRestored)) => format!(
                "compact-guardian: no new snapshot was saved since the last one was restored; {rebuilt}."
            ),
            (None, Restored::Rebuilt(WhyRebuilt::NotOurs)) => format!(
                "compact-guardian: a file it did not write sits where its snapshot belongs, so it was left alone; {rebuilt}."
            ),
            (None, Restored::Rebuilt(WhyRebuilt::FolderUnusable)) => format!(
                "compact-guardian: its snapshot folder could not be used{}; {rebuilt}.",
                folder.map(|p| format!(" ({p})")).unwrap_or_default()
            ),
            (None, Restored::Rebuilt(WhyRebuilt::NotSaved)) => {
                not_saved(folder.as_deref(), evidence, rebuilt)
            }
            (None, Restored::Deferred) => not_saved(
                folder.as_deref(),
                evidence,
                "the context will be rebuilt from the transcript when the next turn starts",
            ),
            (Some(_), _) => {
                "compact-guardian: this compaction was NOT protected: there was nothing to save (no instruction, task or progress found).".to_owned()
            }
            (None, Restored::Nothing) => match folder {
                Some(p) => format!(
                    "compact-guardian: this compaction was NOT protected: its snapshot folder cannot be written ({p})."
                ),
                None if evidence.save_ran => {
                    "compact-guardian: this compaction was NOT protected: its PreCompact hook ran but its snapshot did not reach the model.".to_owned()
                }
                None => {
                    "compact-guardian: this compaction was NOT protected: its PreCompact hook did not run (not installed or not trusted yet, or its binary is missing).".to_owned()
                }
            },
        };
        return crate::text::cut_line(&s, MAX_MESSAGE).trim_end().to_owned();
    };
    let what = carried(d);
    let nothing_carried = d.open.is_empty() && d.latest.is_none() && d.plan.is_none();
    let mut s = match restored {
        Restored::Snapshot => format!("compact-guardian restored {what}"),
        Restored::Rebuilt(_) => format!("compact-guardian rebuilt and restored {what}"),
        Restored::Nothing => {
            format!("compact-guardian saved, but the restore did not run for {what}")
        }
        Restored::Deferred => {
            format!("compact-guardian saved {what}: the model gets them when the next turn starts")
        }
    };
    let wrong = findings.map(Findings::wrong).unwrap_or_default();
    let told = if told { ", and the model is told" } else { "" };
    match (findings, wrong.is_empty()) {
        (Some(_), false) => s.push_str(&format!("; the summary {}{told}.", join(&wrong))),
        (Some(f), true) if !nothing_carried => s.push_str(&nothing_wrong(f)),
        _ => s.push('.'),
    }
    crate::text::cut_line(&s, MAX_MESSAGE).trim_end().to_owned()
}

/// The end of the user's line when nothing in the summary was found against the record: "kept"
/// only when everything carried was found in it, never when some of it could not be looked for
/// (a summary in another language, an instruction too short to tell, D062); else which of its
/// claims were checked and agree, and nothing more when none was (#55).
fn nothing_wrong(f: &Findings) -> String {
    if f.all_found {
        "; the summary kept them.".to_owned()
    } else {
        match f.agreed.said() {
            Some(said) => format!("; {said}."),
            None => ".".to_owned(),
        }
    }
}

/// Why no snapshot was saved before this compaction, from what happened, and what follows
/// (`then`: the context rebuilt now, or at Codex's next turn).
fn not_saved(folder: Option<&str>, evidence: &Evidence, then: &str) -> String {
    match folder {
        Some(p) => format!(
            "compact-guardian: no snapshot could be saved before this compaction: its folder cannot be written ({p}); {then}."
        ),
        None if evidence.nothing_to_save => {
            format!("compact-guardian: there was nothing to save before this compaction; {then}.")
        }
        None if evidence.save_ran => {
            format!("compact-guardian: its PreCompact hook ran but left no snapshot; {then}.")
        }
        None => format!(
            "compact-guardian: no snapshot was saved before this compaction (its PreCompact hook did not run); {then}."
        ),
    }
}

fn singular(kind: &str, n: usize) -> String {
    if n == 1 {
        kind.trim_end_matches('s').to_owned()
    } else {
        kind.to_owned()
    }
}

/// "'a', 'b' and 2 more".
fn quoted(items: &[String]) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(3)
        .map(|i| format!("'{}'", folded_line(i, 40)))
        .collect();
    let mut s = join(&shown);
    if items.len() > 3 {
        s = format!("{} and {} more", shown.join(", "), items.len() - 3);
    }
    s
}

/// "a", "a and b", "a, b and c".
fn join(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(open: &[&str]) -> Digest {
        Digest {
            saved_at: 1,
            saved: true,
            open_kind: "tasks".into(),
            open: open.iter().map(|s| (*s).to_owned()).collect(),
            latest: Some("never call unwrap() in the importer code".into()),
            plan: None,
            ..Digest::default()
        }
    }

    #[test]
    fn global_all_done_claim_calls_every_unmentioned_item_done() {
        let f = compare(
            &digest(&["renderer", "billing tests"]),
            "All of the user's requests are complete. There is no remaining work.",
        );
        assert_eq!(f.called_done(), vec!["renderer", "billing tests"]);
        // Prose: too little structure to say the latest instruction was left out (#38).
        assert_eq!(f.latest_kept, None);
    }

    #[test]
    fn an_item_said_done_is_called_done_one_kept_open_is_not() {
        let f = compare(
            &digest(&["write renderer", "billing tests", "docs"]),
            "The renderer was written and is done. Billing tests are still pending.",
        );
        // "write renderer": "write" is not in the summary ("written"): not named, not claimed;
        // half its words are there, so it is not "not mentioned" either.
        assert_eq!(f.called_done(), Vec::<&str>::new());
        assert_eq!(f.not_mentioned, vec!["docs"]);
        let f = compare(
            &digest(&["add the billing tests", "docs"]),
            "Added the billing tests.",
        );
        assert_eq!(f.called_done(), vec!["add the billing tests"]);
        // One long word names an item; a short one is too little to tell.
        let f = compare(&digest(&["renderer"]), "The renderer is done.");
        assert_eq!(f.called_done(), vec!["renderer"]);
        let f = compare(&digest(&["docs"]), "The docs are done.");
        assert_eq!(f.called_done(), Vec::<&str>::new());
    }

    #[test]
    fn negated_claims_are_not_claims() {
        for s in [
            "Not all tasks are completed.",
            "All tasks except billing are done.",
            "Nothing is done yet.",
        ] {
            assert!(
                compare(&digest(&["renderer"]), s).called_done().is_empty(),
                "{s}"
            );
        }
    }

    #[test]
    fn latest_instruction_kept_when_most_of_its_words_are_there() {
        let f = compare(
            &digest(&[]),
            "## Current Work\nThe user said: never call unwrap in the importer code.",
        );
        assert_eq!(f.latest_kept, Some(true));
        let f = compare(
            &digest(&[]),
            "## Current Work\nThe parser module was refactored and the docs are updated.",
        );
        assert_eq!(f.latest_kept, Some(false));
        // In another script, or in prose: not told.
        let f = compare(&digest(&[]), "## 当前工作\n重构了解析器模块。");
        assert_eq!(f.latest_kept, None);
    }

    #[test]
    fn message_names_what_the_summary_called_done_briefly() {
        let d = digest(&["renderer", "billing tests"]);
        let f = compare(&d, "All tasks are completed.");
        let m = message(
            Some(&d),
            Restored::Snapshot,
            Some(&f),
            &Evidence::default(),
            false,
        );
        assert_eq!(
            m,
            "compact-guardian restored 2 open tasks and your latest instruction; the summary called 'renderer' and 'billing tests' done."
        );
        assert!(m.chars().count() <= MAX_MESSAGE);
        let many: Vec<String> = (0..30)
            .map(|i| format!("item number {i} {}", "x".repeat(150)))
            .collect();
        let d = Digest {
            open: many,
            ..digest(&[])
        }
        .bounded();
        let f = compare(&d, "Everything is done.");
        assert!(
            message(
                Some(&d),
                Restored::Snapshot,
                Some(&f),
                &Evidence::default(),
                false
            )
            .chars()
            .count()
                <= MAX_MESSAGE
        );
    }

    #[test]
    fn unprotected_compactions_say_so_and_why() {
        let m = message(None, Restored::Nothing, None, &Evidence::default(), false);
        assert!(
            m.contains("NOT protected") && m.contains("PreCompact hook did not run"),
            "{m}"
        );
        let m = message(
            None,
            Restored::Rebuilt(WhyRebuilt::NotSaved),
            None,
            &Evidence::default(),
            false,
        );
        assert!(m.contains("rebuilt from the transcript"), "{m}");
        let m = message(None, Restored::Snapshot, None, &Evidence::default(), false);
        assert_eq!(m, "compact-guardian restored its snapshot.");
    }

    #[test]
    fn without_a_summary_only_what_was_restored_is_said() {
        let d = digest(&["renderer"]);
        assert_eq!(
            message(
                Some(&d),
                Restored::Snapshot,
                None,
                &Evidence::default(),
                false
            ),
            "compact-guardian restored 1 open task and your latest instruction."
        );
    }

    // ---- Issue #29 case 10: each diagnosis from what happened.

    #[test]
    fn each_cause_is_its_own_true_sentence() {
        let none = Evidence::default();
        let expired = message(
            None,
            Restored::Rebuilt(WhyRebuilt::Expired),
            None,
            &none,
            false,
        );
        assert!(
            expired.contains("had expired") && !expired.contains("did not run"),
            "{expired}"
        );
        let folder = Evidence {
            folder_problem: Some("Read-only file system (os error 30)".into()),
            ..Evidence::default()
        };
        let m = message(None, Restored::Nothing, None, &folder, false);
        assert!(
            m.contains("NOT protected") && m.contains("Read-only file system"),
            "{m}"
        );
        assert!(!m.contains("did not run"), "{m}");
        let m = message(
            None,
            Restored::Rebuilt(WhyRebuilt::NotSaved),
            None,
            &folder,
            false,
        );
        assert!(
            m.contains("cannot be written") && m.contains("rebuilt"),
            "{m}"
        );
        let ran = Evidence {
            save_ran: true,
            ..Evidence::default()
        };
        let m = message(None, Restored::Nothing, None, &ran, false);
        assert!(m.contains("ran but") && !m.contains("did not run"), "{m}");
        let nothing = Evidence {
            save_ran: true,
            nothing_to_save: true,
            ..Evidence::default()
        };
        let m = message(
            None,
            Restored::Rebuilt(WhyRebuilt::NotSaved),
            None,
            &nothing,
            false,
        );
        assert!(
            m.contains("nothing to save") && m.contains("rebuilt"),
            "{m}"
        );
        let m = message(
            None,
            Restored::Rebuilt(WhyRebuilt::NotOurs),
            None,
            &none,
            false,
        );
        assert!(m.contains("did not write") && m.contains("rebuilt"), "{m}");
        let m = message(
            None,
            Restored::Rebuilt(WhyRebuilt::AlreadyRestored),
            None,
            &none,
            false,
        );
        assert!(
            m.contains("no new snapshot was saved since") && !m.contains("did not run"),
            "{m}"
        );
    }

    #[test]
    fn a_comparison_not_done_by_its_deadline_is_none_and_one_done_is_the_same() {
        let d = digest(&["renderer", "billing tests"]);
        let s = "## Current Work\nThe renderer is done. Never call unwrap in the importer code.";
        let past = std::time::Instant::now();
        assert_eq!(compare_within(&d, s, Some(past)), None);
        let later = std::time::Instant::now() + std::time::Duration::from_secs(3600);
        assert_eq!(compare_within(&d, s, Some(later)), Some(compare(&d, s)));
    }

    #[test]
    fn the_summary_is_said_to_keep_the_work_only_when_all_of_it_was_found() {
        let line = |d: &Digest, s: &str| {
            let f = compare(d, s);
            message(
                Some(d),
                Restored::Snapshot,
                Some(&f),
                &Evidence::default(),
                false,
            )
        };
        let d = digest(&["renderer", "billing tests"]);
        let kept = "## Current Work\nThe renderer and the billing tests are still open.\n\
                    ## Next\nNever call unwrap in the importer code.";
        assert!(
            line(&d, kept).ends_with("; the summary kept them."),
            "{}",
            line(&d, kept)
        );
        // Nothing could be looked for: another script. No all-clear is claimed (#55).
        let other = "## 当前工作\n重构了解析器模块。";
        assert!(
            line(&d, other).ends_with("open tasks and your latest instruction."),
            "{}",
            line(&d, other)
        );
        // The items found, the latest instruction too short to tell.
        let short = Digest {
            latest: Some("go on".into()),
            ..d.clone()
        };
        assert!(
            !line(&short, kept).contains("kept them"),
            "{}",
            line(&short, kept)
        );
        // What was checked, it names: here the two open tasks the summary keeps open.
        assert!(
            line(&short, kept).ends_with(
                "; 2 of the summary's statements were checked against the record (2 about open tasks), and nothing in them contradicts it."
            ),
            "{}",
            line(&short, kept)
        );
    }
}
