//! Which claims of the compaction summary the record contradicts (issues #27, #38, #54; D025,
//! D055, D089).
//!
//! A correction is told to the model under "trust the record", so it must never be false: when
//! in doubt, nothing is said. The judge is a loop over the record's facts
//! ([`crate::extract::facts`], the same the snapshot and the directive read): for each fact, the
//! summary's statements about its subject, found by the names the record gives it (a command, a
//! path, a task's words, a kind of action), and judged by what they assert. The summary is read
//! as the document it is (`summary`): only the sections that state the work's status hold claims;
//! requests, the user's messages and code are quoted, pending and next steps keep work open; a
//! negated statement, a statement about an earlier time and an honest report of a failure claim
//! nothing (`claims`). A correction states the evidence ("the last run of `sh run_tests.sh
//! billing` exited 101, and nothing was edited after it"), never a verdict.
//!
//! One file per kind of fact: `items` (tasks and checklist items called done, all work called
//! done, counts of what remains), `passing` (checks said to pass), `changed` (files said changed
//! or fixed), `acts` (commits, pushes, deploys, installs and the like said done); `section`
//! writes the corrections for the model.

mod acts;
mod changed;
mod claims;
mod headings;
mod items;
mod lexicon;
mod passing;
mod section;
mod summary;
mod words;

pub use section::{HEADING, MAX_UNITS, inserted, is_section, section};

use crate::extract::digest::Digest;
use crate::extract::facts::Facts;
use crate::text::folded_line;
use items::{Item, Key, quotes};
use std::time::Instant;
use summary::{Document, Sentence, Shape};
use words::{Script, key_words, script, stems};

/// The longest summary judged: Claude Code's and Codex's run to tens of KB (the summarizer's
/// output is capped at tens of thousands of tokens); anything far larger is no summary the model
/// continues from, and judging it costs time that grows with it (an adversarial 1 MB summary took
/// over 5 s in a release build on a loaded two-core machine, 250 KB took 1.4 s, 60 KB 0.2 s).
/// A longer one is not judged at all, and the audit says nothing about it (`cmd::audit`).
pub const MAX_SUMMARY: usize = 256 * 1024;

/// Whether `summary` is short enough to be judged ([`MAX_SUMMARY`]): the one test the judge and
/// the commands that decide whether to call a summary right share.
pub fn judgeable(summary: &str) -> bool {
    summary.len() <= MAX_SUMMARY
}

/// When the judge must have answered (D061): the size cap alone does not bound its time (a
/// 256 KiB summary of one-word lines took 3.5 s in a release build, 6.7 s with 60 open tasks,
/// past the watchdog). `None`: no limit (tests, tools). Every loop whose work grows with the
/// summary or the record looks at it; a judgement it stopped is never used, whole or in part.
pub type Deadline = Option<Instant>;

/// Whether `deadline` has passed.
pub(crate) fn late(deadline: Deadline) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}
/// The longest quote of a summary sentence in a correction.
const CLAIM_CHARS: usize = 110;

/// What kind of claim a correction answers (the user's line names them by kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An open item the summary calls done.
    CalledDone,
    /// The summary says all work is done while items are open.
    AllDone,
    /// The summary counts fewer open items than the record has.
    Remaining,
    /// Tests, a build, a lint or a type check said to pass after the last run failed.
    Passing,
    /// A file said to be fixed whose last edit came before a failing test run.
    Fixed,
    /// A file said to be changed whose last edit failed, with no change recorded.
    Changed,
    /// Work said to be committed, pushed or tagged when the last `git commit`/`git push`/`git
    /// tag` failed or never ran, or the session holds none.
    Committed,
    /// Another action said done (a deploy, an install, a restart, a migration, a publish, a pull
    /// request) that the record shows failed, never ran, or never attempted.
    Acted,
    /// The user's latest instruction does not appear in the summary.
    LatestLeftOut,
}

/// One correction: what the summary says, and what the record shows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Correction {
    /// What kind of claim it answers.
    pub kind: Kind,
    /// The open items it concerns ([`Kind::CalledDone`], [`Kind::AllDone`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
    /// One line for the model, with the evidence.
    pub text: String,
}

/// Whether the latest-instruction check is told to the model. Off: on summaries nobody tuned on
/// it was not precise (a paraphrase, a translation, a partial quote all look "left out" to a word
/// comparison), and the snapshot already carries the instruction in its words (D055).
const TELL_LATEST_LEFT_OUT: bool = false;

/// The statements of a summary that were checked against the record and agree with it, by
/// kind: what the user's all-clear may say (#55), and nothing more.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Agreed {
    /// Checks said to pass whose last run passed.
    pub checks: usize,
    /// Open tasks or checklist items the summary keeps open.
    pub items: usize,
    /// Files said changed that the record shows written.
    pub files: usize,
    /// Commits, pushes and other actions said done that the record shows done.
    pub acts: usize,
}

impl Agreed {
    /// How many statements agree.
    pub fn total(&self) -> usize {
        self.checks + self.items + self.files + self.acts
    }

    /// "3 of the summary's statements were checked against the record (2 about checks, 1 about
    /// a file), and nothing in them contradicts it"; `None` when none was checked.
    pub fn said(&self) -> Option<String> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let kinds: Vec<String> = [
            (self.checks, "a check", "checks"),
            (self.items, "an open task", "open tasks"),
            (self.files, "a file", "files"),
            (
                self.acts,
                "a commit or another action",
                "commits and other actions",
            ),
        ]
        .iter()
        .filter(|(k, _, _)| *k > 0)
        .map(|(k, one, many)| format!("{k} about {}", if *k == 1 { one } else { many }))
        .collect();
        let (statements, were) = if n == 1 {
            ("statement", "was")
        } else {
            ("statements", "were")
        };
        Some(format!(
            "{n} of the summary's {statements} {were} checked against the record ({}), and nothing in them contradicts it",
            kinds.join(", ")
        ))
    }
}

/// What the judge found: the corrections, and what agreed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// What the record contradicts.
    pub corrections: Vec<Correction>,
    /// What was checked and agrees.
    pub agreed: Agreed,
}

/// The corrections the record supports, in a fixed order: items called done, all work called
/// done, counts, checks said to pass, files said fixed or changed, commits and pushes.
pub fn corrections(d: &Digest, summary: &str) -> Vec<Correction> {
    corrections_within(d, summary, None).unwrap_or_default()
}

/// [`corrections`], if they are decided before `deadline`: `None` when it passed first (each
/// step stops when it sees it has; what they found is dropped, D061).
pub fn corrections_within(
    d: &Digest,
    summary: &str,
    deadline: Deadline,
) -> Option<Vec<Correction>> {
    judge_within(d, summary, deadline).map(|j| j.corrections)
}

/// The judgement of `summary` against the record `d` holds, if decided before `deadline`.
pub fn judge_within(d: &Digest, summary: &str, deadline: Deadline) -> Option<Judgement> {
    if !judgeable(summary) {
        return Some(Judgement::default()); // no summary a client writes; judging it would cost, not help
    }
    let doc = summary::read_within(summary, deadline)?;
    let judge = Judge::new(d, &doc, deadline);
    let mut out = Vec::new();
    judge.called_done(&mut out);
    judge.all_done(&mut out);
    judge.remaining(&mut out);
    judge.passing(&mut out);
    judge.changed(&mut out);
    judge.acts(&mut out);
    if late(deadline) {
        return None;
    }
    if TELL_LATEST_LEFT_OUT && latest_left_out(d, summary, deadline) == Some(true) {
        let latest = d.latest.as_deref().unwrap_or_default();
        out.push(Correction {
            kind: Kind::LatestLeftOut,
            items: Vec::new(),
            text: format!(
                "The summary does not mention the user's latest instruction: \"{}\"",
                folded_line(latest, 300)
            ),
        });
    }
    Some(Judgement {
        corrections: out,
        agreed: judge.agreed.get(),
    })
}

/// The summary and the record, side by side.
struct Judge<'a> {
    d: &'a Digest,
    doc: &'a Document,
    /// The sentences that can claim a finished state: in a section that states status, and no
    /// quotation of the user's latest instruction.
    claims: Vec<&'a Sentence>,
    /// The open items.
    items: Vec<Item<'a>>,
    /// The finished items' keys (completed tasks, checked boxes).
    done: Vec<Key>,
    /// The record's facts.
    facts: &'a Facts,
    /// What was checked and agrees, counted as the steps go.
    agreed: std::cell::Cell<Agreed>,
    /// When to stop ([`Deadline`]).
    deadline: Deadline,
}

impl<'a> Judge<'a> {
    fn new(d: &'a Digest, doc: &'a Document, deadline: Deadline) -> Self {
        let latest = d.latest.as_deref().map(words::words);
        let names: Vec<Key> = d
            .open
            .iter()
            .chain(&d.unchecked)
            .chain(&d.done)
            .map(|t| Key::of(t))
            .collect();
        let claims = doc
            .sentences
            .iter()
            .filter(|s| s.role.states_status())
            .filter(|s| !latest.as_deref().is_some_and(|l| quotes(s, l, &names)))
            .collect();
        let checklist = d.open_kind == "checklist items";
        let mut items: Vec<Item> = d
            .open
            .iter()
            .enumerate()
            .map(|(i, t)| Item {
                text: t,
                state: match d.states.get(i).map(String::as_str) {
                    Some("in_progress") => "in progress",
                    Some("pending") => "pending",
                    _ if checklist => "unchecked",
                    _ => "open",
                },
                key: Key::of(t),
            })
            .collect();
        items.extend(d.unchecked.iter().map(|t| Item {
            text: t,
            state: "unchecked",
            key: Key::of(t),
        }));
        Judge {
            d,
            doc,
            claims,
            items,
            done: d.done.iter().map(|t| Key::of(t)).collect(),
            facts: &d.facts,
            agreed: std::cell::Cell::new(Agreed::default()),
            deadline,
        }
    }

    /// Whether the deadline has passed: the step stops, and the judgement is not used.
    fn late(&self) -> bool {
        late(self.deadline)
    }

    /// Counts `n` statements that agree with the record.
    fn agree(&self, n: usize, count: fn(&mut Agreed) -> &mut usize) {
        let mut a = self.agreed.get();
        *count(&mut a) += n;
        self.agreed.set(a);
    }
}

/// A summary sentence quoted for a correction, whole or cut at [`CLAIM_CHARS`].
fn quoted_claim(s: &Sentence) -> String {
    format!(
        "\"{}\"",
        folded_line(s.text.trim(), CLAIM_CHARS).replace('"', "'")
    )
}

/// A summary sentence quoted for a correction: whole when short, else the part that holds
/// `near` (the words that make the claim), so that the quote shows the false words themselves.
fn quoted_near(s: &Sentence, near: &str) -> String {
    let text = s.text.trim();
    if text.chars().count() <= CLAIM_CHARS || near.is_empty() {
        return quoted_claim(s);
    }
    // ASCII lowercasing keeps every byte where it is.
    let Some(at) = text.to_ascii_lowercase().find(&near.to_ascii_lowercase()) else {
        return quoted_claim(s);
    };
    // A few words of what leads to it, from a word's start.
    let lead = text[..at]
        .char_indices()
        .rev()
        .nth(30)
        .map_or(0, |(i, _)| i);
    let start = text[lead..at]
        .find(' ')
        .map_or(lead, |sp| lead + sp + 1)
        .min(at);
    let shown = folded_line(&text[start..], CLAIM_CHARS);
    let ellipsis = if start > 0 { "…" } else { "" };
    format!("\"{ellipsis}{}\"", shown.replace('"', "'"))
}

/// "\"A\"" or "\"A\" and \"B\"": the statements a correction answers.
fn and_quotes(quotes: &[String]) -> String {
    quotes.join(" and ")
}

/// The statements a correction quotes, of those that make the same false claim (each quoted
/// with [`quoted_near`]): the two that say most, in the summary's order. "Pushed." says less
/// than the sentence that tells where and when.
fn best_quotes(claims: &[(&Sentence, String)]) -> Vec<String> {
    let mut best: Vec<&(&Sentence, String)> = claims.iter().collect();
    best.sort_by_key(|(s, _)| std::cmp::Reverse(s.text.chars().count().min(CLAIM_CHARS)));
    best.truncate(2);
    best.sort_by_key(|(s, _)| s.line);
    let mut quotes: Vec<String> = Vec::new();
    for (s, near) in best {
        let q = quoted_near(s, near);
        if !quotes.contains(&q) {
            quotes.push(q);
        }
    }
    quotes
}

/// A command for a correction: one line, in backticks, cut.
fn shown_command(cmd: &str) -> String {
    format!("`{}`", folded_line(cmd, 90).replace('`', "'"))
}

// ---- What the user's line says besides the corrections (D018).

/// Whether the summary leaves out the latest instruction, for the user's line (the model is not
/// told, D055): `None` when there is none, it is too short to tell (fewer than five identifying
/// words), or the summary is in another language or has no recognised structure; `Some(true)`
/// only when not one of its identifying words appears in the summary (a paraphrase, a partial
/// quotation or a quoted log keeps some).
pub(crate) fn latest_left_out(d: &Digest, summary: &str, deadline: Deadline) -> Option<bool> {
    let latest = d.latest.as_deref()?;
    let doc = summary::read_within(summary, deadline)?;
    if doc.shape != Shape::Sections
        || script(latest) != script(&doc.text)
        || script(latest) == Some(Script::Unspaced)
        || words::language(&doc.text) != words::language(latest).or(Some(words::Language::English))
    {
        return None;
    }
    let key: Vec<String> = key_words(latest)
        .into_iter()
        .filter(|w| !COURTESY.contains(&w.as_str()))
        .take(40)
        .collect();
    if key.len() < 5 {
        return None;
    }
    let everything = stems(&doc.text);
    Some(!key.iter().any(|w| everything.contains(w)))
}

/// Words of a request that say nothing of what is asked.
const COURTESY: &[&str] = &[
    "please", "thank", "thanks", "now", "also", "just", "after", "before", "again", "could",
    "would", "you", "make", "sure", "let", "know", "want", "need", "like", "okay", "yes",
];

/// Whether the summary describes a span of the record that newer messages follow (Claude Code's
/// precomputed summary), not the record up to the compaction: then it is judged against the
/// record as `save` read it, when the span ended (D055). `None`: `deadline` passed first.
pub fn covers_a_span(summary: &str, deadline: Deadline) -> Option<bool> {
    summary::read_within(summary, deadline).map(|doc| doc.covers_a_span)
}

/// Whether the summary mentions `text` (an open item, a plan title), for the user's line:
/// `Some(false)` only when none of its identifying words appears anywhere in a summary written in
/// the same language (a paraphrase keeps some; a translation keeps none, so another language
/// says nothing); `None` when it cannot tell.
pub(crate) fn mentions(summary: &str, text: &str) -> Option<bool> {
    let key = Key::of(text);
    let body = summary::body(summary);
    if !key.mentionable()
        || script(text) != script(&body)
        || script(text) == Some(Script::Unspaced)
        || words::language(&body) != words::language(text).or(Some(words::Language::English))
    {
        return None;
    }
    let have = stems(&body);
    Some(key.words.iter().any(|w| have.contains(w)))
}

/// How each sentence of `summary` was read (role, asserted, clauses), for debugging the judge.
#[doc(hidden)]
pub fn explain(summary: &str) -> String {
    let doc = summary::read(summary);
    let mut out = format!("shape: {:?}\n", doc.shape);
    for s in &doc.sentences {
        out.push_str(&format!(
            "{:>4} {:?} asserted={} done={} open={} | {} | clauses={:?} code={:?}\n",
            s.line,
            s.role,
            claims::asserted(s),
            s.marked_done,
            s.marked_open,
            s.text,
            s.clauses,
            s.code
        ));
    }
    out
}

#[cfg(test)]
mod tests;
