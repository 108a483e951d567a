//! Which claims of the compaction summary the record contradicts (issues #27, #38; D025, D055).
//!
//! A correction is told to the model under "trust the record", so it must never be false: when
//! in doubt, nothing is said. The summary is read as the document it is (`summary`): only the
//! sections that state the work's status hold claims; requests, the user's messages and code are
//! quoted, pending and next steps keep work open. A claim is an assertion of a finished state,
//! with its subject (`claims`): checks that pass, a task or checklist item done, all work done,
//! a count of what remains, a file changed or fixed, work committed or pushed. The evidence is the
//! record's structure (`evidence`): which commands ran a check and how each ended, what was
//! edited after it, the task tools' states. A correction states the evidence ("the last run of
//! `sh run_tests.sh billing` exited 101, and nothing was edited after it"), never a verdict.
//!
//! The verdicts on items called done, all work called done, counts and commits are here; checks
//! said to pass are judged in `passing`, files said changed or fixed in `changed`; `section`
//! writes the corrections for the model.

mod changed;
mod claims;
pub mod digest;
pub(crate) mod evidence;
mod headings;
mod lexicon;
mod passing;
mod reports;
mod section;
mod summary;
mod words;

pub use section::{HEADING, MAX_UNITS, inserted, is_section, section};

use crate::text::folded_line;
use claims::{
    asserted, asserted_without, body_says_none, negated, remaining_count, says_all_done, says_done,
    says_git,
};
use digest::Digest;
use evidence::{GitEnd, Run, git_runs, runs};
use std::collections::HashSet;
use std::time::Instant;
use summary::{Document, Role, Sentence, Shape};
use words::{Script, key_words, script, stem, stems};

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
    /// Work said to be committed or pushed after the last `git commit`/`git push` failed.
    Committed,
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
    if !judgeable(summary) {
        return Some(Vec::new()); // no summary a client writes; judging it would cost, not help
    }
    let doc = summary::read_within(summary, deadline)?;
    let judge = Judge::new(d, &doc, deadline);
    let mut out = Vec::new();
    judge.called_done(&mut out);
    judge.all_done(&mut out);
    judge.remaining(&mut out);
    judge.passing(&mut out);
    judge.changed(&mut out);
    judge.git(&mut out);
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
    Some(out)
}

/// An open item of the record: a task of the task list, or an unchecked box of the agent's
/// newest checklist.
struct Item<'a> {
    text: &'a str,
    /// How it stands: "in progress", "pending", "open" (tasks) or "unchecked" (checklist).
    state: &'static str,
    key: Key,
}

impl Item<'_> {
    fn checklist(&self) -> bool {
        self.state == "unchecked"
    }

    /// How it stands in the record, said to the model.
    fn where_it_stands(&self) -> String {
        if self.checklist() {
            "unchecked in the agent's checklist".to_owned()
        } else {
            format!("{} in the task list", self.state)
        }
    }
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
    /// The actions' check runs.
    runs: Vec<Run<'a>>,
    /// When to stop ([`Deadline`]).
    deadline: Deadline,
}

impl<'a> Judge<'a> {
    fn new(d: &'a Digest, doc: &'a Document, deadline: Deadline) -> Self {
        let latest = d.latest.as_deref().map(super::corrections::words::words);
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
            runs: runs(&d.actions),
            deadline,
        }
    }

    /// Whether the deadline has passed: the step stops, and the judgement is not used.
    fn late(&self) -> bool {
        late(self.deadline)
    }

    /// Whether the sentence names the item: in its own words, or in a quoted span that is the
    /// item's name ("The \"Add docs\" task"), not a quotation of a longer message that
    /// happens to hold its words.
    fn refers_to(key: &Key, s: &Sentence) -> bool {
        s.clauses.iter().any(|c| key.named_by(c))
            || s.quoted.iter().any(|q| {
                let w = words::words(q);
                key.named_by(&w) && key_words(q).len() * 2 <= key.words.len() * 3 + 2
            })
    }

    /// Whether the summary keeps `key` open: names it where work is pending or next, or names it
    /// in its status as open or not done.
    fn kept_open(&self, key: &Key) -> bool {
        self.doc.sentences.iter().any(|s| {
            (s.role.keeps_open() && Self::refers_to(key, s))
                || (s.role.states_status()
                    && Self::refers_to(key, s)
                    && (s.marked_open
                        || s.clauses
                            .iter()
                            .any(|c| key.named_by(c) && key.negated_beside(c, &s.own))))
        })
    }

    /// What a sentence naming the `i`th item must tell it apart from: every finished item, and
    /// every other open item named more fully. A sentence that names two open items as done
    /// is false either way; it is answered once, for the item it names best.
    fn others(&self, i: usize) -> Vec<Other<'_>> {
        self.items
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, it)| Other {
                key: &it.key,
                open: true,
            })
            .chain(self.done.iter().map(|key| Other { key, open: false }))
            .collect()
    }

    /// Open items the summary calls done by name.
    fn called_done(&self, out: &mut Vec<Correction>) {
        let mut answered: Vec<&Sentence> = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            let key = &item.key;
            if self.late() {
                return;
            }
            if !key.usable() || self.kept_open(key) {
                continue;
            }
            let others = self.others(i);
            let claim = self.claims.iter().find(|s| {
                if answered.iter().any(|a| std::ptr::eq(*a, **s)) {
                    return false;
                }
                if !asserted_without(s, &key.words) {
                    return false;
                }
                let own = &s.clauses;
                let negated = |c: &Vec<String>, own: &str| key.negated_beside(c, own);
                let done_here = |c: &Vec<String>| {
                    key.named_by_exactly(c, &others)
                        && (says_done(c, &s.own, key.verb.as_deref()) || s.marked_done)
                        && !negated(c, &s.own)
                        && !partial_done(c)
                };
                // The item named in quotes ("The \"Add docs\" task is done"): the sentence's own
                // words say done, and none of them says otherwise.
                let quoted_name = s
                    .quoted
                    .iter()
                    .any(|q| key.named_by_exactly(&words::words(q), &others));
                let done_by_quote = quoted_name
                    && own
                        .iter()
                        .any(|c| says_done(c, &s.own, None) || s.marked_done)
                    && !own.iter().any(|c| negated(c, &s.own) || partial_done(c));
                // A label and its verdict ("Login bug: fixed."): named by the whole sentence,
                // one clause is the verdict alone.
                let whole: Vec<String> = own.concat();
                let labelled = own.len() > 1
                    && key.named_by_exactly(&whole, &others)
                    && own.iter().any(|c| verdict_only(c, &s.own))
                    && !own.iter().any(|c| negated(c, &s.own) || partial_done(c));
                // The item named in code ("`Cart::total` is implemented"): a sentence of one
                // clause, whose code spans are that clause's.
                let in_code = own.len() == 1 && !s.code.is_empty() && {
                    let mut named = own[0].clone();
                    named.extend(s.code.iter().flat_map(|c| words::words(c)));
                    done_here(&named)
                };
                own.iter().any(done_here) || done_by_quote || labelled || in_code
            });
            if let Some(s) = claim {
                answered.push(s);
                out.push(Correction {
                    kind: Kind::CalledDone,
                    items: vec![item.text.to_owned()],
                    text: format!(
                        "The summary calls \"{}\" done ({}); the record still has it {}.",
                        folded_line(item.text, 80),
                        quoted_claim(s),
                        item.where_it_stands()
                    ),
                });
            }
        }
    }

    /// Open items the summary does not keep open (never names in its status, or names as
    /// done), while it says all work is done or that nothing is pending.
    fn all_done(&self, out: &mut Vec<Correction>) {
        if self.items.is_empty() {
            return;
        }
        let claim: Option<String> = self
            .claims
            .iter()
            .find(|s| says_all_done(s))
            .map(|s| quoted_claim(s))
            .or_else(|| {
                (self.doc.shape == Shape::Sections)
                    .then(|| {
                        self.doc
                            .sections
                            .iter()
                            .find(|(role, body)| *role == Role::Pending && body_says_none(body))
                            .map(|(_, body)| {
                                format!("\"Pending Tasks: {}\"", folded_line(body[0].trim(), 40))
                            })
                    })
                    .flatten()
            });
        let Some(claim) = claim else { return };
        let left: Vec<&Item> = self
            .items
            .iter()
            .filter(|it| !self.late() && it.key.mentionable() && !self.names_as_open(&it.key))
            .collect();
        if left.is_empty() {
            return;
        }
        out.push(Correction {
            kind: Kind::AllDone,
            items: left.iter().map(|it| it.text.to_owned()).collect(),
            text: format!(
                "The summary says {claim}; the record still has {}.",
                listed(&left)
            ),
        });
    }

    /// Whether the summary names the item as open anywhere it states the work's state: in its
    /// pending work or next steps, or in its status without calling it done ("currently adding
    /// the billing tests"). Its request and the user's words do not count: they restate what was
    /// asked, not how it stands.
    fn names_as_open(&self, key: &Key) -> bool {
        self.doc.sentences.iter().any(|s| {
            let status = matches!(s.role, Role::Status | Role::Files | Role::Unknown);
            if !(status || s.role.keeps_open()) || !Self::refers_to(key, s) {
                return false;
            }
            if s.role.keeps_open() || s.marked_open {
                return true;
            }
            let own = &s.clauses;
            let done = s.marked_done
                || own
                    .iter()
                    .any(|c| says_done(c, &s.own, key.verb.as_deref()) && !negated(c, &s.own));
            !done
        })
    }

    /// A count of what remains below the record's: "1 unchecked checklist item remains" when the
    /// checklist has two.
    fn remaining(&self, out: &mut Vec<Correction>) {
        if out.iter().any(|c| c.kind == Kind::AllDone) {
            return;
        }
        for s in &self.doc.sentences {
            if self.late() {
                return;
            }
            if !matches!(
                s.role,
                Role::Status | Role::Pending | Role::Next | Role::Unknown
            ) {
                continue;
            }
            let Some(n) = remaining_count(s) else {
                continue;
            };
            // Counted among the checklist's boxes, or the task list's tasks, as the sentence says.
            let lower = s.own.to_lowercase();
            // Boxes are a checklist's; with no task open, open items are the checklist's.
            let of_checklist = lower.contains("checklist")
                || lower.contains("unchecked")
                || words::words(&lower)
                    .iter()
                    .any(|w| matches!(w.as_str(), "box" | "boxes" | "checkbox" | "checkboxes"))
                || self.items.iter().all(Item::checklist);
            let counted: Vec<&Item> = self
                .items
                .iter()
                .filter(|it| it.checklist() == of_checklist)
                .collect();
            if n == 0 || n >= counted.len() {
                continue;
            }
            out.push(Correction {
                kind: Kind::Remaining,
                items: Vec::new(),
                text: format!(
                    "The summary says {}; the record has {}.",
                    quoted_claim(s),
                    listed(&counted)
                ),
            });
            return;
        }
    }

    /// Work said committed or pushed whose last `git commit` / `git push` failed.
    fn git(&self, out: &mut Vec<Correction>) {
        for (sub, noun) in [("commit", "commit"), ("push", "push")] {
            let Some(s) = self.claims.iter().find(|s| {
                (asserted(s) || claims::git_label(s, sub))
                    && says_git(s, sub)
                    && !s.clauses.iter().any(|c| negated(c, &s.own))
            }) else {
                continue;
            };
            let git = git_runs(&self.d.actions, sub);
            let how = match git.last() {
                Some((_, _, GitEnd::NotRun)) => "was rejected or blocked before it ran".to_owned(),
                Some((_, run, GitEnd::Failed)) => match run.exit {
                    Some(c) => format!("exited {c}"),
                    None => "failed".to_owned(),
                },
                _ => continue,
            };
            let Some((_, run, _)) = git.last() else {
                continue;
            };
            out.push(Correction {
                kind: Kind::Committed,
                items: Vec::new(),
                text: format!(
                    "The summary says {}; the last `git {noun}` in the record, {}, {how}, and none succeeded after it.",
                    quoted_claim(s),
                    shown_command(&run.summary)
                ),
            });
        }
    }
}

/// Whether a clause says a thing is only partly done.
fn partial_done(c: &[String]) -> bool {
    c.iter().any(|w| {
        matches!(
            w.as_str(),
            "partially"
                | "partly"
                | "mostly"
                | "almost"
                | "nearly"
                | "started"
                | "begun"
                | "some"
                | "only"
                | "except"
                | "excluding"
        )
    })
}

/// Whether a clause is a verdict alone ("Login bug: fixed.", "Write the renderer: completed"):
/// done words and nothing else of substance.
fn verdict_only(c: &[String], own: &str) -> bool {
    !c.is_empty()
        && says_done(c, own, None)
        && c.iter().all(|w| {
            lexicon::DONE.contains(&w.as_str())
                || matches!(
                    w.as_str(),
                    "now" | "all" | "fully" | "status" | "is" | "was" | "been" | "has"
                )
                // "Wrapped up: ...", "Crossed off the list: ...", "Riscada da lista: ..."
                || w == "up" && c.iter().any(|x| x == "wrapped")
                || matches!(
                    w.as_str(),
                    "off" | "the" | "list" | "from" | "da" | "de" | "la" | "lista" | "liste"
                        | "dalla" | "von" | "der"
                )
        })
}

/// Another item a sentence naming one must be told from ([`Judge::others`]).
struct Other<'k> {
    key: &'k Key,
    /// Open too: a sentence naming both as done is false either way.
    open: bool,
}

/// An item's identifying words, its leading verb, and the words no other item has.
struct Key {
    words: Vec<String>,
    verb: Option<String>,
}

impl Key {
    fn of(item: &str) -> Key {
        let words = key_words(item);
        let verb = super::corrections::words::words(item)
            .first()
            .filter(|w| w.is_ascii() && w.len() >= 3)
            .map(|w| stem(w).to_owned());
        Key { words, verb }
    }

    /// Enough words to be told from other text in a clause that calls it done: two, or one
    /// long word ("renderer").
    fn usable(&self) -> bool {
        self.words.len() >= 2 || self.words.iter().any(|w| w.chars().count() >= 5)
    }

    /// Enough to tell whether a text mentions it at all: one word of three letters or more.
    fn mentionable(&self) -> bool {
        self.words.len() >= 2 || self.words.iter().any(|w| w.chars().count() >= 3)
    }

    /// Whether a clause naming it says it is not so, by words other than its own: an item's
    /// name says nothing of its state ("Retry failed batches", "Run without a network").
    fn negated_beside(&self, clause: &[String], own: &str) -> bool {
        let rest: Vec<String> = clause
            .iter()
            .filter(|w| !self.words.iter().any(|k| k == stem(w)))
            .cloned()
            .collect();
        negated(&rest, own)
    }

    /// How many of its words `have` holds.
    fn found_in(&self, have: &HashSet<String>) -> usize {
        self.words
            .iter()
            .filter(|w| have.contains(w.as_str()))
            .count()
    }

    /// Whether the clause names it: all its words, or three in four when it has more than four.
    fn named_by(&self, clause: &[String]) -> bool {
        if !self.usable() {
            return false;
        }
        let found = self
            .words
            .iter()
            .filter(|k| clause.iter().any(|w| stem(w) == k.as_str()))
            .count();
        let n = self.words.len();
        self.usable()
            && if n > 4 {
                found * 4 >= n * 3
            } else {
                found == n
            }
    }

    /// [`Key::named_by`], and no other item is named by it as fully (a finished one) or more
    /// fully (an open one): the words that tell this item from the others are there.
    fn named_by_exactly(&self, clause: &[String], others: &[Other]) -> bool {
        if !self.named_by(clause) {
            return false;
        }
        let have: HashSet<String> = clause.iter().map(|w| stem(w).to_owned()).collect();
        let mine = self.found_in(&have);
        others.iter().all(|Other { key: o, open }| {
            let theirs = o.found_in(&have) * self.words.len();
            let ours = mine * o.words.len();
            // Another item named as fully: the clause may be about it.
            let rival = if *open { theirs > ours } else { theirs >= ours };
            !(o.usable() && o.named_by(clause) && rival)
        })
    }
}

/// Whether a sentence quotes the user's latest instruction: eight of its words in a row are in
/// the instruction, or four or more that make four fifths of the sentence. A task or a noun
/// phrase taken from the instruction ("fix add() off-by-one", "the store tests") is no
/// quotation by itself.
fn quotes(s: &Sentence, latest: &[String], names: &[Key]) -> bool {
    // Its own words and what it quotes; a command or path in code is a name both may share.
    let mine = words::words(&format!("{} {}", s.own, s.quoted.join(" ")));
    if mine.len() < 3 || latest.len() < 3 {
        return false;
    }
    let run = longest_common_run(&mine, latest);
    if !(run >= 8 || (run >= 4 && run * 10 >= mine.len() * 8)) {
        return false;
    }
    // An item's name the instruction holds ("Return 404 for unknown symbols — done"): what is
    // shared is the name; the sentence quotes only if its other words are the instruction's too.
    let named: Vec<&Key> = names.iter().filter(|k| k.named_by(&mine)).collect();
    if named.is_empty() {
        return true;
    }
    // Its words of substance outside the names (stop words join a name's words as well).
    let rest: Vec<String> = mine
        .iter()
        .filter(|w| {
            !key_words(w).is_empty() && !named.iter().any(|k| k.words.iter().any(|n| n == stem(w)))
        })
        .cloned()
        .collect();
    longest_common_run(&rest, latest) >= 2
}

/// The length of the longest run of words `a` and `b` share.
fn longest_common_run(a: &[String], b: &[String]) -> usize {
    // Bounded inputs (a sentence, an instruction cut at 2,000 characters): the plain
    // dynamic program over one row.
    let mut best = 0;
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut prev = 0;
        for (j, y) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if x == y { prev + 1 } else { 0 };
            best = best.max(row[j + 1]);
            prev = cur;
        }
    }
    best
}

/// "2 open tasks: \"a\" (in progress), \"b\" (pending)": items with their states, at most
/// four named.
fn listed(items: &[&Item]) -> String {
    let n = items.len();
    let noun = match (items.iter().all(|it| it.checklist()), n == 1) {
        (true, true) => "unchecked checklist item",
        (true, false) => "unchecked checklist items",
        (false, true) => "open item",
        (false, false) => "open items",
    };
    let noun = if items.iter().all(|it| !it.checklist()) {
        if n == 1 { "open task" } else { "open tasks" }
    } else {
        noun
    };
    let shown: Vec<String> = items
        .iter()
        .take(4)
        .map(|it| format!("\"{}\" ({})", folded_line(it.text, 60), it.state))
        .collect();
    let more = if n > 4 {
        format!(" and {} more", n - 4)
    } else {
        String::new()
    };
    format!("{n} {noun}: {}{more}", shown.join(", "))
}

fn quoted_claim(s: &Sentence) -> String {
    format!(
        "\"{}\"",
        folded_line(s.text.trim(), CLAIM_CHARS).replace('"', "'")
    )
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
            asserted(s),
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
