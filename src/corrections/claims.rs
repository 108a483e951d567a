//! What a sentence of the summary asserts: whether it states a finished state at all (not
//! negated, not future, conditional, a purpose, a request or an instruction), and which: checks
//! that pass, work that is done, all work done, a count of what remains, a commit or a push, a
//! file changed. The words are English first, with the commonest forms of Chinese, Japanese,
//! German and Spanish; a sentence in any other language claims nothing we can read, which is
//! saying less, never more.

use super::lexicon::*;
use super::summary::Sentence;
use super::words::{clauses, stem, words};
use crate::extract::checks::Check;

pub(crate) use super::lexicon::GENERIC;

/// Whether `w` (a word of the sentence) is one of `list`.
fn has(ws: &[String], list: &[&str]) -> bool {
    ws.iter().any(|w| list.contains(&w.as_str()))
}

fn has_unspaced(text: &str, list: &[&str]) -> bool {
    list.iter().any(|m| text.contains(m))
}

/// A clause's words with the negations that say something good removed ("no failures").
pub(crate) fn without_good_negations(clause: &[String]) -> Vec<&str> {
    // "no failures", "without TypeScript errors", "0 failed": a none-word with a failure-word
    // within the next three words.
    let mut dropped = vec![false; clause.len()];
    for (i, w) in clause.iter().enumerate() {
        if !NONE.contains(&w.as_str()) {
            continue;
        }
        let bad = (i + 1..clause.len().min(i + 4)).find(|&j| FAILURE.contains(&clause[j].as_str()));
        if let Some(j) = bad {
            dropped[i] = true;
            dropped[j] = true;
        }
    }
    clause
        .iter()
        .zip(dropped)
        .filter(|(_, d)| !d)
        .map(|(w, _)| w.as_str())
        .collect()
}

/// Whether the sentence asserts a present or past state at all: nothing in it is future, a wish,
/// a purpose, a condition, a request or an instruction, and it is no question or imperative.
pub(crate) fn asserted(s: &Sentence) -> bool {
    let ws = words(&s.own);
    let t = s.text.trim_end();
    if t.ends_with('?') || t.ends_with('？') {
        return false;
    }
    let ws = without_plan_nouns(ws);
    if has(&ws, NOT_ASSERTED) || has_unspaced(&s.own, NOT_ASSERTED_UNSPACED) {
        return false;
    }
    // "when"/"once" make a condition ("the test passes when add returns a+b") unless the
    // sentence tells what happened ("when I ran it, all tests passed").
    if has(&ws, CONDITION) && !has(&ws, PAST) {
        return false;
    }
    // "After the suite passes, cut v1.8.0": a clause of time that opens the sentence with a
    // check passing in the present is a condition too; "After the fix, all tests pass" is not.
    // The clause is short and another follows it.
    let parts = clauses(&s.own);
    if ws.first().is_some_and(|w| TEMPORAL.contains(&w.as_str()))
        && parts.len() > 1
        && parts[0].len() <= 6
        && (has(&parts[0], PASS) || has(&parts[0], DONE))
        && !has(&parts[0], PAST)
    {
        return false;
    }
    let lower = s.own.to_lowercase();
    if lower.contains("so that")
        || lower.contains("in order")
        || lower.contains("n't")
        || lower.contains("n\u{2019}t")
        || lower.contains("to be ")
    {
        return false;
    }
    !imperative(&ws)
}

/// `ws` without "plan" where it names the work ("the plan steps are done"), not an intention
/// ("we plan to ..."): before a noun of work.
fn without_plan_nouns(ws: Vec<String>) -> Vec<String> {
    // "the plan steps", and "Plan: all steps done" (a label): the plan is the work.
    let naming = |i: usize| {
        matches!(ws[i].as_str(), "plan" | "plans")
            && (i == 0 || ws.get(i + 1).is_some_and(|n| WORK.contains(&n.as_str())))
    };
    (0..ws.len())
        .filter(|&i| !naming(i))
        .map(|i| ws[i].clone())
        .collect()
}

/// [`asserted`], with the words of a subject (an item's name: "Log every retry with attempt
/// and delay") left out: they name it, they say nothing of its state.
pub(crate) fn asserted_without(s: &Sentence, subject: &[String]) -> bool {
    if subject.is_empty() {
        return asserted(s);
    }
    // The checks on the text as written (contractions, "so that", a question) first.
    let lower = s.own.to_lowercase();
    if lower.contains("n't") || lower.contains("n\u{2019}t") {
        return false;
    }
    asserted(&Sentence {
        own: without_words(&s.own, subject),
        ..s.clone()
    })
}

/// `own` with the words whose stems are in `subject` blanked out, punctuation kept.
fn without_words(own: &str, subject: &[String]) -> String {
    own.split_inclusive(|c: char| !c.is_alphanumeric())
        .map(|piece| {
            let word: String = piece.chars().filter(|c| c.is_alphanumeric()).collect();
            let lower = word.to_lowercase();
            if !word.is_empty() && subject.iter().any(|k| k == super::words::stem(&lower)) {
                piece.replace(&word, " ")
            } else {
                piece.to_owned()
            }
        })
        .collect()
}

/// Whether the words start with an instruction ("Stop after the tests pass", "Make sure ...",
/// "Run the tests"): the base form of a verb a request starts with.
fn imperative(ws: &[String]) -> bool {
    const VERBS: &[&str] = &[
        "stop",
        "make",
        "ensure",
        "run",
        "write",
        "add",
        "fix",
        "keep",
        "do",
        "don",
        "please",
        "update",
        "check",
        "verify",
        "continue",
        "finish",
        "commit",
        "push",
        "create",
        "implement",
        "remove",
        "rename",
        "refactor",
        "try",
        "let",
        "lets",
        "use",
        "avoid",
        "never",
        "always",
        "go",
        "resume",
        "start",
        "wait",
        "note",
        "remember",
        "get",
        "bring",
        "have",
        "turn",
        "ship",
        "land",
        "wire",
        "rerun",
        "re",
        "confirm",
        "investigate",
    ];
    // "Push done", "Commit fatto": the verb is a noun the verdict follows.
    let verdict_next = ws
        .get(1)
        .is_some_and(|w| DONE.contains(&w.as_str()) || PASS.contains(&w.as_str()));
    ws.first().is_some_and(|w| VERBS.contains(&w.as_str())) && !verdict_next
}

/// Whether a clause says a thing is not so (or failed, or not yet).
pub(crate) fn negated(clause: &[String], own: &str) -> bool {
    let ws = without_good_negations(clause);
    (0..ws.len())
        .any(|i| (NEGATION.contains(&ws[i]) || FAILURE.contains(&ws[i])) && !names_a_check(&ws, i))
        || (own.chars().any(super::words::unspaced) && has_unspaced(own, NEGATION_UNSPACED))
}

/// Whether the fail word at `i` names which check a clause is about rather than saying it fails:
/// "the failing test now passes", "the previously failed billing spec" (a check noun follows
/// within two words).
pub(crate) fn names_a_check(ws: &[&str], i: usize) -> bool {
    matches!(ws[i], "failing" | "failed" | "broken" | "flaky" | "red")
        && ws[i + 1..]
            .iter()
            .take(2)
            .any(|n| TEST_NOUNS.contains(n) || BUILD_NOUNS.contains(n))
}

/// Whether a clause limits what it says to a part.
pub(crate) fn partial(clause: &[String]) -> bool {
    // "only the parser tests pass", "3 of 10 tests pass": a part passing is no claim about all.
    has(clause, PARTIAL)
        || clause.windows(2).any(|p| {
            p[0].chars().all(|c| c.is_ascii_digit())
                && matches!(p[1].as_str(), "of" | "von" | "de" | "sur" | "su")
        })
}

/// The count a clause says passes when it says no "all" ("11 tests pass", "40 个测试通过" is
/// an all): a claim about that many tests, true when the run passed at least that many.
pub(crate) fn count_claim(clause: &[String], own: &str) -> Option<u64> {
    let all =
        has(clause, ALL) || clause.iter().any(|w| w == "both") || has_unspaced(own, ALL_UNSPACED);
    if all {
        return None;
    }
    // "exits 0" is an exit code, not a count of tests.
    clause
        .iter()
        .enumerate()
        .find(|(i, w)| {
            w.chars().all(|c| c.is_ascii_digit())
                && !(*i > 0
                    && matches!(
                        clause[i - 1].as_str(),
                        "exits" | "exited" | "exit" | "returns" | "returned" | "code"
                    ))
        })
        .and_then(|(_, w)| w.parse().ok())
}

/// Whether a clause says checks pass.
pub(crate) fn says_pass(clause: &[String], own: &str) -> bool {
    // German "läuft jetzt durch": a separable verb, its particle at the clause's end.
    let durch = has(clause, &["läuft", "laufen", "lief", "liefen"])
        && clause.last().is_some_and(|w| w == "durch");
    durch
        || has(clause, PASS)
        || has_unspaced(own, PASS_UNSPACED)
        || clause
            .windows(2)
            .any(|p| PASS_PHRASES.iter().any(|[a, b]| p[0] == *a && p[1] == *b))
        || without_good_negations(clause).len() < clause.len()
}

/// Whether a clause says a program builds or compiles ("the project builds", "it compiles
/// cleanly"): a build's pass, said with the verb, not the noun ("the builds", "all builds").
pub(crate) fn says_builds(clause: &[String]) -> bool {
    clause.iter().enumerate().any(|(i, w)| {
        matches!(
            w.as_str(),
            "builds" | "compiles" | "kompiliert" | "compila" | "compile"
        ) && !(i > 0
            && matches!(
                clause[i - 1].as_str(),
                "the"
                    | "all"
                    | "both"
                    | "these"
                    | "those"
                    | "its"
                    | "der"
                    | "die"
                    | "les"
                    | "los"
                    | "las"
                    | "to"
            ))
    })
}

/// Whether a clause says something is done (a done word, or the past tense of `verb`, the verb an
/// item starts with: "Add billing tests" is done by "added billing tests").
pub(crate) fn says_done(clause: &[String], own: &str, verb: Option<&str>) -> bool {
    has(clause, DONE)
        || has_unspaced(own, DONE_UNSPACED)
        || verb.is_some_and(|v| {
            clause
                .iter()
                .any(|w| w.ends_with("ed") && w.len() > v.len() && stem(w) == v)
        })
}

/// Whether a sentence claims all work is finished: "All tasks are completed", "Everything is
/// done", "There is no remaining work", "Nothing is left to do".
pub(crate) fn says_all_done(s: &Sentence) -> bool {
    const LIMITS: &[&str] = &[
        "not", "yet", "will", "should", "if", "once", "until", "when", "almost", "nearly",
    ];
    const LEFT: &[&str] = &[
        "remaining",
        "remain",
        "remains",
        "pending",
        "outstanding",
        "further",
        "open",
        "left",
    ];
    let ws = without_plan_nouns(words(&s.own));
    let lower = s.own.to_lowercase();
    let work = has(&ws, WORK) || has_unspaced(&s.own, WORK_UNSPACED);
    let all = has(&ws, ALL) || has_unspaced(&s.own, ALL_UNSPACED);
    // "checked off" and "ticked off" say done only of a whole list.
    let done = has(&ws, DONE)
        || has_unspaced(&s.own, DONE_UNSPACED)
        || ws
            .windows(2)
            .any(|p| matches!(p[0].as_str(), "checked" | "ticked") && p[1] == "off");
    let limited = ws.iter().any(|w| {
        (PARTIAL.contains(&w.as_str()) && w != "remaining") || LIMITS.contains(&w.as_str())
    }) || lower.contains("n't")
        || s.text.trim_end().ends_with('?');
    // A plain statement: nothing conditional or wished (its own "remaining" is the claim).
    let wished = ws.iter().any(|w| {
        NOT_ASSERTED.contains(&w.as_str())
            && !LEFT.contains(&w.as_str())
            && !WORK.contains(&w.as_str())
    });
    if limited || wished {
        return false;
    }
    let everything_done = all && done && (work || ws.iter().any(|w| w == "everything"));
    // "no remaining tasks", "nothing left", "no further work": its "no" is the claim.
    let none_left = (ws.iter().any(|w| w == "no") && work && has(&ws, LEFT))
        || (ws.iter().any(|w| w == "nothing") && has(&ws, LEFT));
    let unspaced = has_unspaced(
        &s.own,
        &[
            "全部完成",
            "都已完成",
            "均已完成",
            "すべて完了",
            "全て完了",
            "모두 완료",
            "전부 완료",
        ],
    );
    everything_done || none_left || unspaced
}

/// Whether a section's whole body says nothing is pending ("None", "- None.", "(none)", "无").
pub(crate) fn body_says_none(lines: &[String]) -> bool {
    let text: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let [only] = text.as_slice() else {
        return false;
    };
    let t = only
        .trim_start_matches(['-', '*', '•', ' '])
        .trim_matches(['.', '(', ')', '*', '_', ' ', '。'])
        .to_lowercase();
    matches!(
        t.as_str(),
        "none"
            | "n/a"
            | "nothing"
            | "no pending tasks"
            | "no remaining tasks"
            | "no tasks"
            | "no pending tasks remain"
            | "all tasks are complete"
            | "all tasks completed"
            | "无"
            | "没有"
            | "暂无"
            | "なし"
            | "ありません"
            | "keine"
            | "ninguna"
            | "ninguno"
    )
}

/// A count of what remains in a sentence ("1 unchecked checklist item remains", "two tasks
/// left"): the number claimed.
pub(crate) fn remaining_count(s: &Sentence) -> Option<usize> {
    let ws = words(&s.own);
    if has(&ws, &["not", "no", "will", "should", "if", "none"]) {
        return None;
    }
    counted_in_words(&ws).or_else(|| counted_unspaced(&s.own))
}

/// Words that say an item is still open, beside a count of items.
const REMAINING_OPEN: &[&str] = &[
    "remain",
    "remains",
    "remaining",
    "left",
    "open",
    "pending",
    "unchecked",
    "outstanding",
    "restante",
    "restantes",
    "reste",
    "restent",
    "falta",
    "faltan",
    "offen",
    "übrig",
    "rimane",
    "rimangono",
    "aberto",
    "aberta",
];

/// The nouns a count of open items counts.
const REMAINING_NOUNS: &[&str] = &[
    "task",
    "tasks",
    "item",
    "items",
    "todo",
    "todos",
    "step",
    "steps",
    "box",
    "boxes",
    "checkbox",
    "checkboxes",
    "entry",
    "entries",
    "tarea",
    "tareas",
    "tâche",
    "tâches",
    "élément",
    "éléments",
    "aufgabe",
    "aufgaben",
    "punkt",
    "punkte",
    "tarefa",
    "tarefas",
    "item",
    "attività",
    "voce",
    "voci",
    "casilla",
    "casillas",
    "case",
    "cases",
    "caixa",
];

/// [`REMAINING_OPEN`] in the unspaced scripts (Japanese, Chinese, Korean).
const REMAINING_OPEN_UNSPACED: &[&str] = &[
    "残り",
    "未チェック",
    "剩余",
    "还剩",
    "未完成",
    "남은",
    "미완료",
    "남았",
];

/// [`REMAINING_NOUNS`] in the unspaced scripts, written right after the number.
const REMAINING_NOUNS_UNSPACED: &[&str] = &[
    "項目",
    "件",
    "タスク",
    "项",
    "个任务",
    "个事项",
    "항목",
    "개",
    "작업",
];

/// "nicht abgehakt", "non cochée", "sin marcar": a box not checked is open.
const UNCHECKED: &[[&str; 2]] = &[
    ["nicht", "abgehakt"],
    ["nicht", "angehakt"],
    ["non", "coché"],
    ["non", "cochée"],
    ["non", "cochés"],
    ["non", "cochées"],
    ["sin", "marcar"],
    ["non", "spuntata"],
    ["non", "spuntate"],
    ["non", "spuntato"],
    ["não", "marcado"],
    ["não", "marcada"],
];

/// The number a word says, spelled out (one to three) or in digits (below 1,000).
fn count_word(w: &str) -> Option<usize> {
    match w {
        "one" | "single" | "un" | "une" | "uno" | "una" | "eine" | "ein" | "um" | "uma" => Some(1),
        "two" | "deux" | "dos" | "zwei" | "dois" | "duas" | "due" => Some(2),
        "three" | "trois" | "tres" | "drei" | "três" | "tre" => Some(3),
        _ => w.parse().ok().filter(|n| *n < 1000),
    }
}

/// A count in a spaced script: an open word anywhere (or a box said not checked), and a number
/// with one of [`REMAINING_NOUNS`] within the next four words.
fn counted_in_words(ws: &[String]) -> Option<usize> {
    let unchecked = ws
        .windows(2)
        .any(|p| UNCHECKED.iter().any(|[a, b]| p[0] == *a && p[1] == *b));
    if !(has(ws, REMAINING_OPEN) || unchecked) {
        return None;
    }
    for (i, w) in ws.iter().enumerate() {
        let Some(n) = count_word(w) else { continue };
        // The noun within the next four words.
        if ws[i + 1..]
            .iter()
            .take(4)
            .any(|x| REMAINING_NOUNS.contains(&x.as_str()))
        {
            return Some(n);
        }
    }
    None
}

/// "未チェックは残り1項目", "还剩 1 项": a number beside an unspaced noun, an open word anywhere.
fn counted_unspaced(own: &str) -> Option<usize> {
    if !has_unspaced(own, REMAINING_OPEN_UNSPACED) {
        return None;
    }
    let digits: String = own
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    let after = own
        .split_once(digits.as_str())
        .map(|(_, a)| a)
        .unwrap_or("");
    if !digits.is_empty()
        && REMAINING_NOUNS_UNSPACED
            .iter()
            .any(|n| after.trim_start().starts_with(n))
    {
        return digits.parse().ok();
    }
    None
}

/// A label and what it names ("**Commit:** \"Add retries\" on `main`", "Push: `origin/x`"):
/// the label alone (`commit`, `push`), then the message quoted or the ref in code. Its verb is
/// the label's, not an instruction.
pub(crate) fn git_label(s: &Sentence, label: &str) -> bool {
    let ws = words(&s.own);
    ws.len() <= 3
        && ws.first().is_some_and(|w| w == label)
        && s.text
            .trim_start_matches(['-', '*', ' '])
            .to_lowercase()
            .starts_with(&format!("{label}:"))
        && (!s.quoted.is_empty() || !s.code.is_empty())
        && !ws.iter().any(|w| NEGATION.contains(&w.as_str()))
        && !has(&ws, NOT_ASSERTED)
}

/// What a sentence says was done to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    /// It was fixed (a claim that the problem is gone).
    Fixed,
    /// It was changed in some way.
    Changed,
}

/// The change a sentence claims, if any.
pub(crate) fn change_verb(s: &Sentence) -> Option<Verb> {
    let ws = words(&s.own);
    // "the project being changed": a participle that names, in progress, not a change made.
    let ws: Vec<&String> = ws
        .iter()
        .enumerate()
        .filter(|(i, _)| *i == 0 || ws[i - 1] != "being")
        .map(|(_, w)| w)
        .collect();
    let any = |list: &[&str]| {
        list.iter()
            .any(|v| ws.iter().any(|w| *w == v) || (!v.is_ascii() && s.own.contains(v)))
    };
    // "`docs/x.md` now describes the new behaviour": what a file holds now, said of a change.
    const NOW: &[&str] = &["now", "ora", "ahora", "jetzt", "maintenant", "agora"];
    const HOLDS: &[&str] = &[
        "shows",
        "contains",
        "lists",
        "includes",
        "describes",
        "documents",
        "covers",
        "explains",
        "descrive",
        "describe",
        "beschreibt",
        "décrit",
        "descreve",
        "documenta",
        "dokumentiert",
    ];
    if any(FIXED) {
        Some(Verb::Fixed)
    } else if any(CHANGED) || (any(NOW) && any(HOLDS)) {
        Some(Verb::Changed)
    } else {
        None
    }
}

/// The path-like words of a sentence: its code spans and bare words with a slash or a file
/// extension.
pub(crate) fn paths(s: &Sentence) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bare = s
        .own
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',');
    let coded = s.code.len();
    for (i, raw) in s.code.iter().map(String::as_str).chain(bare).enumerate() {
        // A sentence's full stop is no part of a name; a dotfile's leading dot is.
        let t = raw
            .trim_matches(|c: char| matches!(c, '`' | '\'' | '"' | ',' | ':' | ';' | '*'))
            .trim_end_matches('.');
        if t.contains(char::is_whitespace) || t.contains("://") || t.len() > 200 {
            continue;
        }
        // "e.g." and "i.e." are no file names: a one-letter stem needs a longer extension.
        let ext = t.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (stem.len() > 1 || ext.len() > 1)
                && (1..=8).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        });
        let slash = t.contains('/') && t.len() > 2;
        // A dotfile written as code (`.gitignore`, `.env`); not ".NET" in prose.
        let dotfile = i < coded
            && t.len() > 2
            && t.starts_with('.')
            && t.chars().any(|c| c.is_ascii_lowercase())
            && t[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && t[1..].chars().any(|c| c.is_ascii_alphabetic());
        if (ext || slash || dotfile) && !out.iter().any(|p| p == t) {
            out.push(t.to_owned());
        }
    }
    out
}

/// The nouns that name a kind of check, with the kind (`None`: any kind).
pub(crate) fn check_noun(w: &str) -> Option<Option<Check>> {
    Some(if TEST_NOUNS.contains(&w) {
        Some(Check::Test)
    } else if BUILD_NOUNS.contains(&w) {
        Some(Check::Build)
    } else {
        match w {
            "lint" | "lints" | "linter" | "clippy" | "eslint" | "ruff" | "flake8" => {
                Some(Check::Lint)
            }
            "typecheck" | "mypy" | "pyright" => Some(Check::Types),
            "checks" => None,
            _ => return None,
        }
    })
}

/// The same for unspaced scripts, as substrings.
pub(crate) fn check_noun_unspaced(own: &str) -> Option<Check> {
    if has_unspaced(own, TEST_NOUNS_UNSPACED) {
        Some(Check::Test)
    } else if has_unspaced(own, BUILD_NOUNS_UNSPACED) {
        Some(Check::Build)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::summary::read;
    use super::*;

    fn first(text: &str) -> Sentence {
        read(text).sentences.into_iter().next().unwrap()
    }

    #[test]
    fn intent_purpose_conditions_and_instructions_are_not_asserted() {
        for s in [
            "Make the tests pass so that the release can go out.",
            "Changed the guard so that the tests pass.",
            "The goal is for cargo test to pass.",
            "The test passes when add returns a+b.",
            "Stop after the tests pass; then write the changelog.",
            "Once the tests pass, write the changelog.",
            "The tests should pass now.",
            "We need to make sure all tests pass.",
            "Do the tests pass?",
            "The user asked that all tests pass.",
        ] {
            assert!(!asserted(&first(s)), "{s}");
        }
        for s in [
            "All tests pass.",
            "Fixed the sign bug; all 11 tests pass now.",
            "When I ran cargo test, all tests passed.",
            "测试全部通过。",
            "Alle Tests bestehen.",
        ] {
            assert!(asserted(&first(s)), "{s}");
        }
    }

    #[test]
    fn counts_and_parts_are_no_claim_about_all() {
        for s in [
            "3 of 10 tests pass",
            "only the parser tests pass",
            "most tests pass",
        ] {
            let c = clauses(s);
            assert!(partial(&c[0]), "{s}");
        }
        assert!(!partial(&clauses("all 11 tests pass")[0]));
        assert!(!partial(&clauses("all tests pass")[0]));
        // A bare count is a claim about that many, checked against the run's report.
        assert_eq!(
            count_claim(&clauses("11 tests pass")[0], "11 tests pass"),
            Some(11)
        );
        assert_eq!(
            count_claim(&clauses("all 11 tests pass")[0], "all 11 tests pass"),
            None
        );
        assert_eq!(
            count_claim(&clauses("40 个测试全部通过")[0], "40 个测试全部通过"),
            None
        );
    }

    #[test]
    fn good_negations_are_not_negations() {
        let s = "all tests pass with no failures";
        assert!(!negated(&clauses(s)[0], s));
        let s = "tests do not pass";
        assert!(negated(&clauses(s)[0], s));
    }

    #[test]
    fn all_done_claims() {
        for s in [
            "All tasks are complete.",
            "There is no remaining work.",
            "Nothing is left to do.",
            "Everything is done.",
            "所有任务都已完成。",
        ] {
            assert!(says_all_done(&first(s)), "{s}");
        }
        for s in [
            "All tasks will be complete after the docs.",
            "Not all tasks are complete.",
            "All tasks except the docs are complete.",
            "Most work is done.",
        ] {
            assert!(!says_all_done(&first(s)), "{s}");
        }
    }

    #[test]
    fn a_pending_section_that_says_none() {
        assert!(body_says_none(&["- None.".into()]));
        assert!(body_says_none(&["None".into()]));
        assert!(!body_says_none(&[
            "None explicitly requested beyond the current work.".into()
        ]));
        assert!(!body_says_none(&["- Write docs".into()]));
    }

    #[test]
    fn counts_of_what_remains() {
        assert_eq!(
            remaining_count(&first("1 unchecked checklist item remains.")),
            Some(1)
        );
        assert_eq!(remaining_count(&first("Two tasks are left.")), Some(2));
        assert_eq!(remaining_count(&first("A task remains.")), None);
        assert_eq!(remaining_count(&first("No tasks remain.")), None);
    }
}
