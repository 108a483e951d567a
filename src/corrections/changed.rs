//! Files the summary says changed or fixed that the record shows unchanged: the last edit of the
//! file failed or was rejected and nothing wrote it after; the last test run failed, names the
//! file, and came after its last write; or the record, read back to the session's start, holds
//! no write of it at all (it was only read, or never opened: D089).

use super::claims::{Verb, asserted, change_verb, negated, paths};
use super::headings::Role;
use super::lexicon::{CHANGED, DONE_UNSPACED, FIXED, NOT_ASSERTED, READ, USER_NOUNS};
use super::summary::Sentence;
use super::words;
use super::{Correction, Judge, Kind, and_quotes, best_quotes, shown_command};
use crate::extract::checks::Check;
use crate::extract::facts::{CheckRun, Outcome, WriteEnd, base_name, same_file};
use crate::text::folded_line;

impl<'a> Judge<'a> {
    /// Files said changed (or fixed) that the record shows unchanged.
    pub(super) fn changed(&self, out: &mut Vec<Correction>) {
        // Per file: what the record shows, and the statements it answers.
        let mut found: Vec<Answer> = Vec::new();
        let failing = self
            .facts
            .checks_of(Some(Check::Test))
            .find(|r| r.decisive())
            .filter(|r| r.outcome.failed());
        for (k, s) in self.claims.iter().enumerate() {
            if self.late() {
                return;
            }
            let Some(verb) = change_claim(s) else {
                continue;
            };
            // "Fixed by replacing ...": the file is the one the sentence before it names.
            let mut named = paths(s);
            if named.is_empty() && k > 0 && self.claims[k - 1].line == s.line {
                named = paths(self.claims[k - 1]);
            }
            for p in named {
                let name = base_name(&p).to_owned();
                if only_referred_to(s, &p) || name.len() < 3 {
                    continue; // "the getter for the `grid-index.hbs` template": not what changed
                }
                let in_files = self.d.files.iter().any(|f| same_file(f, &p));
                let answer = self
                    .edit_failed(s, &p, verb, in_files)
                    .or_else(|| failing.and_then(|run| self.fix_failed(s, verb, &p, run)))
                    .or_else(|| self.never_written(s, &p, in_files));
                let Some((kind, evidence)) = answer else {
                    let written = self.facts.file(&p).is_some_and(|f| f.applied.is_some());
                    if in_files || written {
                        self.agree(1, |a| &mut a.files);
                    }
                    continue;
                };
                match found.iter_mut().find(|f| f.0 == name) {
                    Some(f) => f.3.push((*s, p)),
                    None => found.push((name, kind, evidence, vec![(*s, p)])),
                }
            }
        }
        for (_, kind, evidence, claims) in found {
            out.push(Correction {
                kind,
                items: Vec::new(),
                text: format!(
                    "The summary says {}; {evidence}.",
                    and_quotes(&best_quotes(&claims))
                ),
            });
        }
    }

    /// The correction of a claim that `path` changed when its last edit failed or was rejected
    /// and nothing wrote it after. A change claimed of a file an earlier edit did change may be
    /// about that edit: only a fix (the newest change) is answered then.
    fn edit_failed(
        &self,
        s: &Sentence,
        path: &str,
        verb: Verb,
        in_files: bool,
    ) -> Option<(Kind, String)> {
        let file = self.facts.file(path)?;
        let last = file.last.as_ref()?;
        // "(second change)", "edited again": a later change than the one that went through.
        let later = words::words(&s.text).iter().any(|w| {
            matches!(
                w.as_str(),
                "second" | "third" | "again" | "another" | "later"
            )
        });
        let changed_before = (in_files || file.applied.is_some()) && !later;
        let how = match last.end {
            WriteEnd::Failed if last.why.is_empty() => "failed".to_owned(),
            WriteEnd::Failed => format!("failed ({})", folded_line(&last.why, 100)),
            WriteEnd::Rejected => "was rejected".to_owned(),
            _ => return None,
        };
        if self.facts.file_written_since(path, last.age) || (changed_before && verb != Verb::Fixed)
        {
            return None;
        }
        Some((
            Kind::Changed,
            format!(
                "the last edit of `{}` ({}) {how}, and no change to it is recorded since",
                folded_line(base_name(path), 80),
                last.tool
            ),
        ))
    }

    /// The correction of a claim that `path` was fixed that `run`, the last test run, contradicts:
    /// it failed, names the file, came after the file's last write, and the summary admits no
    /// failure near the claim.
    fn fix_failed(
        &self,
        s: &Sentence,
        verb: Verb,
        path: &str,
        run: &CheckRun,
    ) -> Option<(Kind, String)> {
        let Outcome::Failed { how } = &run.outcome else {
            return None;
        };
        let name = base_name(path);
        let file_stem = name.split('.').next().unwrap_or(name).to_lowercase();
        let related = file_stem.len() >= 3
            && (run.scope.iter().any(|w| w.contains(&file_stem))
                || run.output.to_lowercase().contains(&file_stem));
        if !related
            || verb != Verb::Fixed
            || self.facts.file_written_since(path, run.age)
            || self.admits_failure_near(s, run)
        {
            return None;
        }
        Some((
            Kind::Fixed,
            format!(
                "the last test run in the record, {}, {how}, and it was not edited after that run (`{}`)",
                shown_command(&run.command),
                folded_line(name, 80)
            ),
        ))
    }

    /// The correction of a claim that `path` changed when the record, read back to the session's
    /// start, holds no write of it, no command that names it and may write it, and nothing that
    /// may write files unnamed (a script, a checkout), and no sub-agent ran.
    fn never_written(&self, s: &Sentence, path: &str, in_files: bool) -> Option<(Kind, String)> {
        let reach = &self.facts.reach;
        let name = base_name(path);
        let a_file = name.contains('.') && !path.ends_with('/');
        // "Root-package.json" may be the root's `package.json`: every name it may stand for.
        let untouched = std::iter::once(name)
            .chain(name.match_indices('-').map(|(i, _)| &name[i + 1..]))
            .all(|n| reach.touched.holds(n) == Some(false));
        let silent = reach.since_start
            && !reach.delegated
            && !in_files
            && self.facts.file(path).is_none()
            && self.facts.opaque.is_none()
            && untouched;
        if !(a_file && silent && names_as_changed(s, path)) {
            return None;
        }
        // A file listed with a participle ("- `a.rs`: inspected for the retry path") may be
        // one the work only read: answered so only when no tool opened it at all.
        let read = reach.read.holds(path) == Some(true);
        if read && !says_change(s) {
            return None;
        }
        let how = if read {
            "it was only read"
        } else {
            "no tool opened it"
        };
        Some((
            Kind::Changed,
            format!(
                "the record of this session holds no change to `{}` ({how})",
                folded_line(name, 80)
            ),
        ))
    }
}

/// A file's answer: its base name, the kind of correction, what the record shows, and the
/// statements (each with the path it names) it answers.
type Answer<'s> = (String, Kind, String, Vec<(&'s Sentence, String)>);

/// Whether the sentence says `path` itself was changed: it heads the sentence (a listing:
/// "`a.ts`: restyled", "`b.rs` (edited)"), or a change verb stands right before or after it
/// ("Updated `a.ts`", "`a.ts` was updated", "`README.md` now shows ..."). A file named further
/// off is context ("the project modified: Go, cobra (`Taskfile.yml`)"). In the unspaced
/// scripts a change verb is also a request ("修改 `a.rs`"): it must say it was done.
fn names_as_changed(s: &Sentence, path: &str) -> bool {
    let text = s.text.to_lowercase();
    let Some(at) = text.find(&path.to_lowercase()) else {
        return false;
    };
    let before = words::words(&text[..at]);
    let after = words::words(&text[at + path.len()..]);
    let changed = |w: &String| CHANGED.contains(&w.as_str()) || FIXED.contains(&w.as_str());
    let unspaced = text.chars().any(words::unspaced);
    // "`.DS_Store` was added on the user's request": the user's doing, or an entry of a list.
    if words::words(&text)
        .iter()
        .any(|w| USER_NOUNS.contains(&w.as_str()))
    {
        return false;
    }
    if unspaced
        && !DONE_UNSPACED
            .iter()
            .chain(["已", "了", "した", "했"].iter())
            .any(|d| text.contains(d))
    {
        return false;
    }
    before.is_empty()
        || before.iter().rev().take(3).any(changed)
        || after.iter().take(4).any(|w| changed(w) || w == "now")
        || (unspaced && before.len() <= 2)
}

/// What a sentence claims was done to the files it names: a change or a fix, asserted, not
/// negated; in the files section, a file listed with what was done to it ("`a.ts`: restyled",
/// "`b.rs` (edited)"), unless it says the file was read.
fn change_claim(s: &Sentence) -> Option<Verb> {
    if s.clauses.iter().any(|c| negated(c, &s.own)) {
        return None;
    }
    let read = words::words(&s.own)
        .iter()
        .any(|w| READ.contains(&w.as_str()));
    if let Some(verb) = change_verb(s).filter(|_| asserted(s)) {
        return (!read || verb == Verb::Fixed).then_some(verb);
    }
    // "- `src/pages/RegisterPage.tsx`: restyled with ...": a past form describing the file;
    // "- `WebStore.ts` (second change): ...": a label that says it changed.
    let described = words::words(&s.own)
        .first()
        .is_some_and(|w| w.ends_with("ed") && w.len() > 4);
    let listed = s.role == Role::Files && !read && (described && asserted(s) || change_label(s));
    listed.then_some(Verb::Changed)
}

/// Whether the sentence says a change in so many words: a change verb, or a label that says it
/// ("(edited)"), not only a participle that describes the file.
fn says_change(s: &Sentence) -> bool {
    change_verb(s).is_some() || change_label(s)
}

/// "- `WebStore.ts` (second change): ...": a label that says the file changed.
fn change_label(s: &Sentence) -> bool {
    s.text.split_once('(').is_some_and(|(_, rest)| {
        let inside = words::words(rest.split(')').next().unwrap_or_default());
        let says_changed = inside.iter().any(|w| {
            matches!(w.as_str(), "change" | "changes" | "new") || CHANGED.contains(&w.as_str())
        });
        says_changed && !inside.iter().any(|w| NOT_ASSERTED.contains(&w.as_str()))
    })
}

/// Whether the sentence names `path` only as a reference for what changed ("for the
/// `grid-index.hbs` template", "from `config.ts`", "like `a.rs`"), not as what was changed.
fn only_referred_to(s: &Sentence, path: &str) -> bool {
    const REFERRING: &[&str] = &["for", "from", "of", "like", "than", "via", "per", "by"];
    let lower = s.text.to_lowercase();
    let Some(at) = lower.find(&path.to_lowercase()) else {
        return false;
    };
    let before = words::words(&lower[..at]);
    // The word before it, or before its article ("for the `x`").
    let mut last = before.iter().rev();
    match (last.next(), last.next()) {
        (Some(w), _) if REFERRING.contains(&w.as_str()) => true,
        (Some(a), Some(w)) if matches!(a.as_str(), "the" | "a" | "an") => {
            REFERRING.contains(&w.as_str())
        }
        _ => false,
    }
}
