//! Actions the summary says were done (a commit, a push, a tag, a pull request, a deploy, an
//! install, a restart, a migration, a publish, an environment activated), held to the record's
//! attempts of that kind: the last one failed or never ran and none succeeded after it; or the
//! record, read back to the session's start, holds none at all (D089).
//!
//! An absence is evidence only where nothing could have acted unseen: the facts reach the
//! session's start, no sub-agent ran, the user did not run it themselves, and the summary does
//! not name a commit by its hash (a commit made before the session).

use super::claims::{asserted, git_label, negated, paths};
use super::lexicon::{
    ACT_DONE, ACTS, DONE, DONE_UNSPACED, ENV_NOUNS, PARTICIPLE_ENDS, QUESTION, USER_NOUNS,
    USER_NOUNS_UNSPACED,
};
use super::summary::Sentence;
use super::{Correction, Judge, Kind, and_quotes, best_quotes, shown_command};
use crate::extract::facts::{Act, ActEnd, ActKind, Facts, base_name};
use crate::text::folded_line;

impl<'a> Judge<'a> {
    /// Actions said done that the record shows failed, never ran, or never attempted.
    pub(super) fn acts(&self, out: &mut Vec<Correction>) {
        for (kind, stems, unspaced) in ACTS {
            if self.late() {
                return;
            }
            // The statements that claim it, each with the words that claim it.
            let claiming: Vec<(&Sentence, String)> = self
                .claims
                .iter()
                .filter_map(|s| claims_done(s, *kind, stems, unspaced).map(|near| (*s, near)))
                .collect();
            let Some((first, _)) = claiming.first() else {
                continue;
            };
            let quotes = best_quotes(&claiming);
            let evidence = match self.facts.act(*kind) {
                Some(act) => undone(act)
                    .filter(|_| claiming.iter().any(|(s, _)| same_subject(*kind, act, s)))
                    .map(|how| {
                        format!(
                            "the last {} in the record, {}, {how}, and none succeeded after it",
                            kind.noun(),
                            shown_command(&act.last.command)
                        )
                    })
                    .or_else(|| self.changed_since(*kind, act, &claiming)),
                None if never_attempted(self.facts, *kind, first) => Some(format!(
                    "the record of this session holds no {} at all",
                    kind.noun()
                )),
                None => None,
            };
            let done = self.facts.act(*kind).is_some_and(|a| a.done.is_some());
            if evidence.is_none() && done {
                self.agree(claiming.len(), |a| &mut a.acts);
            }
            if let Some(evidence) = evidence {
                let git = matches!(kind, ActKind::Commit | ActKind::Push | ActKind::Tag);
                out.push(Correction {
                    kind: if git { Kind::Committed } else { Kind::Acted },
                    items: Vec::new(),
                    text: format!("The summary says {}; {evidence}.", and_quotes(&quotes)),
                });
            }
        }
    }
}

impl Judge<'_> {
    /// A commit said to hold a file that was changed after the last commit went through ("The
    /// package.json script change was committed"): what the record shows of the two.
    fn changed_since(
        &self,
        kind: ActKind,
        act: &Act,
        claiming: &[(&Sentence, String)],
    ) -> Option<String> {
        let done = act.done?;
        if kind != ActKind::Commit {
            return None;
        }
        let later = claiming.iter().flat_map(|(s, _)| paths(s)).find_map(|p| {
            let file = self.facts.file(&p)?;
            file.applied
                .filter(|a| *a < done)
                .map(|_| base_name(&file.path).to_owned())
        })?;
        Some(format!(
            "the last `git commit` that went through in the record ran before `{}` was last changed, and none ran since",
            folded_line(&later, 80)
        ))
    }
}

/// How the last attempt of an action ended when it did not go through and none succeeded after
/// it: "exited 1", "was rejected or blocked before it ran".
fn undone(act: &Act) -> Option<String> {
    if act.done.is_some_and(|d| d <= act.last.age) || act.done.is_some() && act.last.end.done() {
        return None;
    }
    match &act.last.end {
        ActEnd::Failed { how } => Some(how.clone()),
        ActEnd::NotRun => Some("was rejected or blocked before it ran".into()),
        _ => None,
    }
}

/// Whether a statement may be about the same thing as an attempt: a commit or a push is the
/// repository's; an install, a deploy or a restart names what it acts on, and a statement
/// naming none of its arguments may be about another package or service.
fn same_subject(kind: ActKind, act: &Act, s: &Sentence) -> bool {
    if matches!(
        kind,
        ActKind::Commit | ActKind::Push | ActKind::Tag | ActKind::PullRequest
    ) {
        return true;
    }
    let named: Vec<String> = crate::text::lower_words(&act.last.command)
        .into_iter()
        .filter(|w| w.len() > 3 && !ActKind::ALL.iter().any(|k| k.noun().contains(w.as_str())))
        .filter(|w| {
            !matches!(
                w.as_str(),
                "install" | "npm" | "pnpm" | "yarn" | "pip3" | "cargo" | "sudo" | "save" | "global"
            )
        })
        .collect();
    let said = crate::text::lower_words(&s.text);
    named.is_empty() || named.iter().any(|w| said.contains(w))
}

/// Whether the record's silence about `kind` is evidence: it reaches the session's start, no
/// sub-agent ran, the user did not run one themselves, no command ran whose words say it may
/// have done one (`make install`), and the claim does not name a commit made before the
/// session (by its hash).
fn never_attempted(f: &Facts, kind: ActKind, s: &Sentence) -> bool {
    f.reach.since_start
        && !f.reach.delegated
        && !f.reach.by_user.contains(&kind)
        && !f.reach.hinted.contains(&kind)
        && (kind != ActKind::Commit || !names_a_hash(s))
}

/// Whether the sentence says an action of `kind` is done: a past form of its verb ("committed",
/// "gepusht", "déployé"), its noun beside a done word ("Commit hecho", "the push went
/// through"), a label ("Commit: ..."), or a mark that says done, in a clause that is not
/// negated and whose subject is not the user. The words to quote it at, when it does.
fn claims_done(s: &Sentence, kind: ActKind, stems: &[&str], unspaced: &[&str]) -> Option<String> {
    let label = match kind {
        ActKind::Commit => git_label(s, "commit"),
        ActKind::Push => git_label(s, "push"),
        _ => false,
    };
    if !(asserted(s) || s.marked_done || label || noun_first(s)) {
        return None;
    }
    let claim = Claim {
        kind,
        stems,
        marked: s.marked_done,
        label,
        code: s.code.iter().find(|c| Facts::act_in(c) == Some(kind)),
    };
    // "Nothing was committed, pushed or tagged": a clause of participles alone, after a negated
    // one, is still under its negation.
    let mut under_negation = false;
    s.clauses
        .iter()
        .filter(|c| {
            let said_not = negated(c, &s.own) || (under_negation && continues(c));
            under_negation = said_not;
            !said_not && !c.iter().any(|w| USER_NOUNS.contains(&w.as_str()))
        })
        .find_map(|c| claim.in_clause(c))
        .or_else(|| in_unspaced(s, unspaced))
}

/// Whether a clause only goes on with the one before it: past forms and the words that join
/// them ("pushed or tagged"), with no subject, verb or contrast of its own.
fn continues(c: &[String]) -> bool {
    const JOINING: &[&str] = &[
        "or", "and", "nor", "either", "oder", "und", "noch", "ou", "et", "ni", "o", "y", "e", "né",
        "yet", "even",
    ];
    !c.is_empty()
        && c.len() <= 6
        && c.iter()
            .all(|w| participle(w) || JOINING.contains(&w.as_str()))
}

/// "Commit ab7085a created and pushed": a sentence that starts with an action's noun is a noun
/// phrase, not the instruction its first word would make of it.
fn noun_first(s: &Sentence) -> bool {
    let first = super::words::words(&s.own).into_iter().next();
    first.is_some_and(|w| {
        ACTS.iter()
            .flat_map(|(_, stems, _)| stems.iter())
            .any(|st| !st.contains(' ') && w.starts_with(st.trim_start_matches('=')))
    })
}

/// An unspaced script's word for the action with a word that says it was done ("已提交").
fn in_unspaced(s: &Sentence, unspaced: &[&str]) -> Option<String> {
    let done = |d: &&str| s.own.contains(d);
    // The user's own doing ("ユーザーが再起動した"), as in the spaced scripts.
    if USER_NOUNS_UNSPACED.iter().any(|u| s.own.contains(u)) {
        return None;
    }
    unspaced
        .iter()
        .find(|u| {
            s.own.contains(**u)
                && (DONE_UNSPACED.iter().any(done)
                    || ["已", "了", "済", "した", "했"].iter().any(done))
                && !s.clauses.iter().any(|c| negated(c, &s.own))
        })
        .map(|u| (*u).to_owned())
}

/// What a sentence may claim of one kind of action: the kind, its words, and what the
/// sentence has beside its clauses (a mark, a label, a command in code that attempts it).
struct Claim<'s> {
    kind: ActKind,
    stems: &'s [&'s str],
    marked: bool,
    label: bool,
    code: Option<&'s String>,
}

impl Claim<'_> {
    /// Whether a word names the action ("commit", "committed"; a `=`-stem whole).
    fn names(&self, w: &str) -> bool {
        self.stems.iter().any(|st| match st.strip_prefix('=') {
            Some(whole) => w == whole,
            None => !st.contains(' ') && w.starts_with(st),
        })
    }

    /// Whether the clause (not negated, not the user's) says the action was done: the words to
    /// quote it at.
    fn in_clause(&self, c: &[String]) -> Option<String> {
        let done_word = |w: &String| DONE.contains(&w.as_str()) || ACT_DONE.contains(&w.as_str());
        // "to see how the app is deployed": a question's participle says how, not that.
        let asked = |i: usize| c[..i].iter().any(|w| QUESTION.contains(&w.as_str()));
        let past = c
            .iter()
            .enumerate()
            .any(|(i, w)| self.names(w) && participle(w) && self.acted(c, i) && !asked(i));
        // The noun with its verdict right after it ("Commit hecho", "the push went through",
        // "commit created"), not a verdict on something else before it ("mark it done and
        // commit").
        let at = c.iter().position(|w| self.names(w)).or_else(|| {
            self.stems
                .iter()
                .filter(|st| st.contains(' '))
                .find_map(|st| phrase_at(c, st))
        });
        let noun_done = at.is_some_and(|i| self.marked || c[i + 1..].iter().take(3).any(done_word));
        let coded = self.code.is_some() && (self.marked || c.iter().any(done_word));
        let claimed = past || noun_done || self.label || coded;
        // The words to quote: the verb, the noun, or the command that claims it.
        let word = c.iter().find(|w| self.names(w)).or(self.code).cloned();
        (self.in_context(c) && claimed).then(|| word.unwrap_or_default())
    }

    /// "psmux installed" may say how the machine is: an install or a restart is the agent's act
    /// when said as one ("Installed psmux", "psmux was installed").
    fn acted(&self, c: &[String], i: usize) -> bool {
        let agent = ["i", "we", "was", "were", "been", "got", "successfully"];
        !matches!(self.kind, ActKind::Install | ActKind::Restart)
            || i == 0
            || c[..i]
                .iter()
                .rev()
                .take(2)
                .any(|w| agent.contains(&w.as_str()))
    }

    /// Whether the clause is about this action at all: "migrated the pages to AppTheme" is
    /// code; a database's migration, or an environment's activation, is named so.
    fn in_context(&self, c: &[String]) -> bool {
        let named = || c.iter().any(|w| ENV_NOUNS.contains(&w.as_str()));
        match self.kind {
            ActKind::Migration => named() || self.code.is_some(),
            ActKind::Activate => named(),
            _ => true,
        }
    }
}

/// Where a phrase of words (`pull request`) starts in a clause.
fn phrase_at(c: &[String], phrase: &str) -> Option<usize> {
    let words: Vec<&str> = phrase.split(' ').collect();
    c.windows(words.len())
        .position(|w| w.iter().zip(&words).all(|(a, b)| a == b))
        .map(|i| i + words.len() - 1)
}

/// Whether a word is a past participle or past form by its ending, in the languages the
/// lexicon reads ("pushed", "committet", "déployé", "instalado").
fn participle(w: &str) -> bool {
    PARTICIPLE_ENDS.iter().any(|e| w.ends_with(e)) && w.chars().count() > 4
}

/// Whether the sentence names a commit by its hash ("committed in 4f1c2ab").
fn names_a_hash(s: &Sentence) -> bool {
    s.text.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        (7..=40).contains(&w.len())
            && w.chars().all(|c| c.is_ascii_hexdigit())
            && w.chars().any(|c| c.is_ascii_digit())
            && w.chars().any(|c| c.is_ascii_alphabetic())
    })
}
