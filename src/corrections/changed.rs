//! Files the summary says changed or fixed that the record shows unchanged: the last edit of the
//! file failed and nothing wrote it after, or the last test run failed, names the file, and came
//! after its last write.

use super::claims::{Verb, asserted, change_verb, negated, paths};
use super::evidence::{Check, Outcome, Run, base_name, written_after};
use super::summary::Sentence;
use super::words;
use super::{Correction, Judge, Kind, quoted_claim, shown_command};
use crate::text::folded_line;
use std::collections::HashSet;

impl<'a> Judge<'a> {
    /// Files said changed (or fixed) that the record shows unchanged: the last edit of the file
    /// failed and nothing wrote it after; or the last test run, which failed and names the file,
    /// came after its last write (a fix) or the file was never written at all.
    pub(super) fn changed(&self, out: &mut Vec<Correction>) {
        let mut said = HashSet::new();
        let failing = self
            .runs
            .iter()
            .rev()
            .find(|r| r.check == Check::Test)
            .filter(|r| matches!(r.outcome, Outcome::Failed { .. }));
        for s in self.claims.iter().filter(|s| asserted(s)) {
            if self.late() {
                return;
            }
            let Some(verb) = change_verb(s) else { continue };
            if s.clauses.iter().any(|c| negated(c, &s.own)) {
                continue;
            }
            for p in paths(s) {
                let name = base_name(&p);
                if only_referred_to(s, &p) {
                    continue; // "the getter for the `grid-index.hbs` template": not what changed
                }
                if name.len() < 3 || said.contains(name) {
                    continue;
                }
                let in_files = self.d.files.iter().any(|f| same_file(f, &p));
                let correction = self.edit_failed(s, &p, in_files).or_else(|| {
                    // A fix the last (failing) test run contradicts.
                    failing.and_then(|run| self.fix_failed(s, verb, name, in_files, run))
                });
                if let Some(c) = correction {
                    said.insert(name.to_owned());
                    out.push(c);
                }
            }
        }
    }

    /// The correction of a claim that `name` changed when the last edit of it failed and
    /// nothing wrote it after (`in_files`: the record lists it among the files changed).
    fn edit_failed(&self, s: &Sentence, path: &str, in_files: bool) -> Option<Correction> {
        let name = base_name(path);
        let (at, edit) = self.d.actions.iter().enumerate().rev().find(|(_, a)| {
            crate::read::tools::is_edit(&a.tool)
                && a.summary.split(", ").any(|f| same_file(f, path))
        })?;
        if !edit.error || in_files || written_after(&self.d.actions, at + 1, name) {
            return None;
        }
        Some(Correction {
            kind: Kind::Changed,
            items: Vec::new(),
            text: format!(
                "The summary says {}; the last edit of `{}` ({}) failed, and no change to it is recorded.",
                quoted_claim(s),
                folded_line(name, 80),
                edit.tool
            ),
        })
    }

    /// The correction of a claim that `name` was fixed (or changed, when it was never written)
    /// that `run`, the last test run, contradicts: it failed, names the file, came after the
    /// file's last write, and the summary admits no failure near the claim.
    fn fix_failed(
        &self,
        s: &Sentence,
        verb: Verb,
        name: &str,
        in_files: bool,
        run: &Run,
    ) -> Option<Correction> {
        let Outcome::Failed { how } = &run.outcome else {
            return None;
        };
        // A file's name ("encoding/csv" is a package, "src/" a folder).
        let never_written = self.d.files_complete
            && !in_files
            && name.contains('.')
            && !written_after(&self.d.actions, 0, name);
        let file_stem = name.split('.').next().unwrap_or(name).to_lowercase();
        let related = file_stem.len() >= 3
            && (run.scope.iter().any(|w| w.contains(&file_stem))
                || run.action.output.to_lowercase().contains(&file_stem));
        let unwritten_since = !written_after(&self.d.actions, run.at + 1, name);
        if !related
            || !unwritten_since
            || !(verb == Verb::Fixed || never_written)
            || self.admits_failure_near(s, run)
        {
            return None;
        }
        let since = if never_written {
            "and no change to it is recorded"
        } else {
            "and it was not edited after that run"
        };
        Some(Correction {
            kind: Kind::Fixed,
            items: Vec::new(),
            text: format!(
                "The summary says {}; the last test run in the record, {}, {how}, {since} (`{}`).",
                quoted_claim(s),
                shown_command(&run.action.summary),
                folded_line(name, 80)
            ),
        })
    }
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

/// Whether the record's path `f` is the file the summary names as `said`: the same final
/// components, as many as both give (`src/a.rs` is not `tests/a.rs`; `a.rs` is either).
fn same_file(f: &str, said: &str) -> bool {
    let parts = |p: &str| -> Vec<String> {
        p.trim_matches(|c: char| c == '`' || c == '\'' || c == '"' || c == ',')
            .split(['/', '\\'])
            // `paths` trims a leading dot (".changeset/x.md" is read "changeset/x.md").
            .map(|c| c.trim_start_matches('.'))
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (said, f) = (parts(said), parts(f));
    // As many final components as both give (a patch may name the file relative to anywhere).
    let n = said.len().min(f.len());
    n > 0 && f[f.len() - n..] == said[said.len() - n..]
}
