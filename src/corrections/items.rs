//! Open items (tasks of the task list, unchecked boxes of the agent's newest checklist) and
//! what the summary says of them: an item called done by name, all work called done while items
//! are open, a count of what remains below the record's. An item is found by its own words
//! (`Key`), told apart from every other item, finished or open, that a sentence may name.

use super::claims::{
    asserted_without, body_says_none, negated, remaining_count, says_all_done, says_done,
};
use super::headings::Role;
use super::summary::{Sentence, Shape};
use super::words::{self, key_words, stem};
use super::{Correction, Judge, Kind, and_quotes, best_quotes, lexicon, quoted_claim};
use crate::text::folded_line;
use std::collections::HashSet;

/// An open item of the record: a task of the task list, or an unchecked box of the agent's
/// newest checklist.
pub(super) struct Item<'a> {
    pub(super) text: &'a str,
    /// How it stands: "in progress", "pending", "open" (tasks) or "unchecked" (checklist).
    pub(super) state: &'static str,
    pub(super) key: Key,
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

impl<'a> Judge<'a> {
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
            // "Pending Tasks: ✅ Build with npm run build": a mark that says done is no pending.
            (s.role.keeps_open() && !s.marked_done && Self::refers_to(key, s))
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
    pub(super) fn called_done(&self, out: &mut Vec<Correction>) {
        let mut answered: Vec<&Sentence> = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            let key = &item.key;
            if self.late() {
                return;
            }
            if !key.usable() {
                continue;
            }
            if self.kept_open(key) {
                self.agree(1, |a| &mut a.items);
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
            } else if self.names_as_open(key) {
                self.agree(1, |a| &mut a.items); // it says the item is still open, as it is
            }
        }
    }

    /// Open items the summary does not keep open (never names in its status, or names as
    /// done), while it says all work is done or that nothing is pending.
    pub(super) fn all_done(&self, out: &mut Vec<Correction>) {
        if self.items.is_empty() {
            return;
        }
        let saying: Vec<(&Sentence, String)> = self
            .claims
            .iter()
            .filter(|s| says_all_done(s))
            .map(|s| (*s, all_done_word(s)))
            .collect();
        let claim: Option<String> = (!saying.is_empty())
            .then(|| and_quotes(&best_quotes(&saying)))
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
            if (s.role.keeps_open() && !s.marked_done) || s.marked_open {
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
    pub(super) fn remaining(&self, out: &mut Vec<Correction>) {
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
}

/// The word an "all done" sentence says it with, to quote it there: its done or "all" word.
fn all_done_word(s: &Sentence) -> String {
    let ws = words::words(&s.own);
    ws.iter()
        .find(|w| lexicon::DONE.contains(&w.as_str()))
        .or_else(|| ws.iter().find(|w| lexicon::ALL.contains(&w.as_str())))
        .cloned()
        .unwrap_or_default()
}

/// Whether a clause says a thing is only partly done.
fn partial_done(c: &[String]) -> bool {
    // The words of a part, but those an item's name may hold ("the other task", "first draft").
    let naming = ["remaining", "but", "besides", "other", "first", "part"];
    c.iter().any(|w| {
        (lexicon::PARTIAL.contains(&w.as_str()) && !naming.contains(&w.as_str()))
            || matches!(w.as_str(), "partially" | "started" | "begun")
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
pub(super) struct Key {
    pub(super) words: Vec<String>,
    verb: Option<String>,
}

impl Key {
    pub(super) fn of(item: &str) -> Key {
        let words = key_words(item);
        let verb = words::words(item)
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
    pub(super) fn mentionable(&self) -> bool {
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

    /// Whether the clause names it: all its words, or three in four of its words when it has
    /// more than four. A number in its name ("2", a version's "1", "4") identifies it: it is
    /// never the word let go, nor counted to make a name long ("release 2.0.1 in three steps"
    /// is not five words to forgive one of).
    pub(super) fn named_by(&self, clause: &[String]) -> bool {
        if !self.usable() {
            return false;
        }
        // One pass: a number must be named; the other words count towards the tolerance.
        let (mut n, mut found) = (0, 0);
        for k in &self.words {
            let named = clause.iter().any(|w| stem(w) == k.as_str());
            if k.chars().all(|c| c.is_ascii_digit()) {
                if !named {
                    return false;
                }
            } else {
                n += 1;
                found += usize::from(named);
            }
        }
        if n > 4 {
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
pub(super) fn quotes(s: &Sentence, latest: &[String], names: &[Key]) -> bool {
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
