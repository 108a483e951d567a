//! Which statements of the compaction summary the record contradicts (issue #27, D025).
//!
//! The summary is model-written prose; the record is what `save` saw (the [`Digest`]): the open
//! tasks or checklist items with their state, the last twenty actions with failures marked, the
//! files changed, the user's latest instruction. A statement is corrected only when it is a
//! *claim* (past or present tense, not negated, not conditional, not in a section that lists
//! what is still to do or quotes the user) and the record holds evidence against it. Where the
//! record has no evidence either way, nothing is said: a false correction is worse than none.
//!
//! The claims recognised: an open item called done; all work called done; tests, builds, lints
//! or type checks said to pass; a file said to be changed; work said to be committed or pushed;
//! and, though not a claim, the latest instruction left out.

use crate::audit::Digest;
use crate::extract::Action;
use crate::text::{cut_line, folded_line, utf16_len};
use std::collections::HashSet;

/// The most UTF-16 code units of the corrections section (heading included): with a snapshot at
/// its 9,000-unit target, both stay within the 10,000 the client inlines.
pub const MAX_UNITS: usize = 1_000;
/// The heading of the section, in the snapshot and in the hook output that carries it alone.
pub const HEADING: &str = "## Corrections to the compaction summary";
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
    /// Tests, a build, a lint or a type check said to pass after the last run failed.
    Passing,
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

// ---- Words.

/// Words that call work finished.
const DONE: &[&str] = &[
    "done",
    "completed",
    "complete",
    "finished",
    "implemented",
    "fixed",
    "resolved",
    "shipped",
    "merged",
    "addressed",
];
/// Words that keep work open, negate, or make a statement future or conditional.
const NOT_A_CLAIM: &[&str] = &[
    "pending",
    "remaining",
    "remains",
    "todo",
    "unfinished",
    "incomplete",
    "progress",
    "next",
    "still",
    "yet",
    "not",
    "never",
    "no",
    "cannot",
    "outstanding",
    "left",
    "need",
    "needs",
    "needed",
    "wip",
    "blocked",
    "started",
    "starting",
    "will",
    "would",
    "should",
    "must",
    "going",
    "plan",
    "planned",
    "planning",
    "until",
    "unless",
    "if",
    "whether",
    "once",
    "ensure",
    "verify",
    "might",
    "may",
    "could",
    "hopefully",
    "expected",
    "attempted",
    "tried",
    "trying",
    "almost",
    "partially",
    "partly",
    "except",
    "but",
    "only",
    "fail",
    "fails",
    "failed",
    "failing",
    "failure",
    "failures",
    "broken",
    "error",
    "errors",
];
/// Words in a heading whose section lists what is still to do.
const OPEN_HEADINGS: &[&str] = &[
    "pending",
    "remaining",
    "next",
    "todo",
    "outstanding",
    "open",
    "unfinished",
    "incomplete",
    "optional",
    "plan",
    "plans",
    "upcoming",
    "future",
    "blocked",
    "blockers",
];
/// Words in a heading whose section states what was asked or quotes the user.
const QUOTED_HEADINGS: &[&str] = &[
    "request", "requests", "intent", "messages", "message", "asked",
];
const STOP: &[&str] = &[
    "the", "and", "for", "with", "into", "from", "that", "this", "then", "than", "are", "was",
    "were", "its", "our", "your", "all", "any", "can", "should", "will",
];

/// Lowercased runs of letters and digits.
pub fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The words that identify a text: not stop words, at least three characters or a number.
pub(crate) fn significant(s: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(s)
        .into_iter()
        .filter(|w| {
            (w.chars().count() >= 3 || w.chars().all(|c| c.is_ascii_digit()))
                && !STOP.contains(&w.as_str())
        })
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

// ---- The summary as sentences.

/// One sentence of the summary.
#[derive(Debug, Clone)]
pub struct Sentence {
    /// As written (one line, trimmed).
    pub text: String,
    /// Its words, lowercased, with double-quoted text left out (quoted words are not claims).
    pub words: Vec<String>,
    /// It stands in a section that lists what is still to do: naming an item there keeps it
    /// open.
    pub open_section: bool,
    /// It stands in a section that states requests or quotes the user: neither a claim nor a
    /// sign that an item is open.
    pub quoted_section: bool,
    /// It says something is not so ("isn't", "not", "no"...), is future or conditional.
    pub not_a_claim: bool,
    /// Where its clauses start (see [`clause_breaks`]).
    breaks: Vec<usize>,
}

impl Sentence {
    fn has(&self, list: &[&str]) -> bool {
        self.words.iter().any(|w| list.contains(&w.as_str()))
    }

    fn is_claim(&self) -> bool {
        !self.open_section && !self.quoted_section && !self.not_a_claim
    }
}

/// The text of a heading line, if `line` is one: a Markdown heading, a bold line, a numbered or
/// plain label ending in a colon (a few words, no sentence inside).
fn heading(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some(h) = t.strip_prefix('#') {
        return Some(h.trim_start_matches('#').trim().to_owned());
    }
    let t = t.trim_matches('*').trim();
    let t = t
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')'])
        .trim();
    let label = t.strip_suffix(':')?.trim().trim_matches('*').trim();
    let n = label.split_whitespace().count();
    ((1..=6).contains(&n) && !label.contains(['.', ',', ';', ':', '`', '"']))
        .then(|| label.to_owned())
}

/// Whether a label ("Pending", "Next steps") opens a section of things still to do.
fn is_open_label(label: &str) -> bool {
    let w = words(label);
    w.iter().any(|w| OPEN_HEADINGS.contains(&w.as_str())) || label.to_lowercase().contains("to do")
}

/// Whether a label ("Primary Request and Intent", "All user messages") opens a section of
/// requests or the user's words.
fn is_quoted_label(label: &str) -> bool {
    words(label)
        .iter()
        .any(|w| QUOTED_HEADINGS.contains(&w.as_str()))
}

/// `s` without text in double quotes (straight or curly), which quotes someone rather than
/// claims anything.
fn unquoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut inside = false;
    for c in s.chars() {
        match c {
            '"' => inside = !inside,
            '\u{201C}' => inside = true,
            '\u{201D}' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    if inside {
        // An unpaired quote mark: keep the text, it was no quotation.
        return s.replace(['"', '\u{201C}', '\u{201D}'], "");
    }
    out
}

/// The summary as sentences, each knowing the section it stands in.
pub fn sentences(summary: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let (mut open_section, mut quoted_section) = (false, false);
    for line in summary.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(h) = heading(line) {
            // A request section may also name open work ("Pending requests"): open wins.
            open_section = is_open_label(&h);
            quoted_section = !open_section && is_quoted_label(&h);
            continue;
        }
        // "Pending: the renderer" or "- Next: ..." on one line: that line is open.
        let body = line.trim().trim_start_matches(['-', '*', '+', ' ']);
        let inline_open = body.split_once(':').is_some_and(|(label, _)| {
            label.split_whitespace().count() <= 3 && is_open_label(label)
        });
        for piece in split_sentences(line) {
            let unq = unquoted(piece);
            let lower = unq.to_lowercase();
            let mut w = words(&unq);
            if w.is_empty() {
                continue;
            }
            // A check mark or a ticked box says done as plainly as the word.
            if ['\u{2705}', '\u{2714}', '\u{2611}']
                .iter()
                .any(|m| unq.contains(*m))
                || unq.contains("[x]")
                || unq.contains("[X]")
            {
                w.push("done".to_owned());
            }
            let not_a_claim = w.iter().any(|w| NOT_A_CLAIM.contains(&w.as_str()))
                || lower.contains("n't")
                || lower.contains("n\u{2019}t")
                || lower.contains("to be ")
                || piece.trim_end().ends_with('?');
            out.push(Sentence {
                text: folded_line(piece, 400),
                words: w,
                open_section: open_section || inline_open,
                quoted_section,
                not_a_claim,
                breaks: clause_breaks(&unq),
            });
        }
    }
    out
}

/// A line cut at sentence ends (`.`, `!`, `?`, `;` before a space or the end), never inside
/// backticks, so `src/main.rs` or `cargo test -- --nocapture; echo` stay whole.
fn split_sentences(line: &str) -> Vec<&str> {
    // Quotation marks that pair up on the line protect what they quote ("all tests pass. Commit
    // it." is one quotation); a stray one protects nothing.
    let straight = line.matches('"').count().is_multiple_of(2);
    let curly = line.matches('\u{201C}').count() == line.matches('\u{201D}').count();
    let mut out = Vec::new();
    let mut start = 0;
    let (mut in_code, mut in_quote, mut in_curly) = (false, false, false);
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '"' if straight && !in_code => in_quote = !in_quote,
            '\u{201C}' if curly && !in_code => in_curly = true,
            '\u{201D}' if curly && !in_code => in_curly = false,
            '.' | '!' | '?' | ';' if !in_code && !in_quote && !in_curly => {
                let end = bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
                if end {
                    out.push(&line[start..=i]);
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    if start < line.len() {
        out.push(&line[start..]);
    }
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// A sentence's clauses: cut at commas and at "but", "while", "whereas", "although", so that
/// "the parser is done, the renderer is pending" says nothing about the renderer being done.
fn clauses(s: &Sentence) -> Vec<Vec<&str>> {
    let mut out = vec![Vec::new()];
    for (i, w) in s.words.iter().enumerate() {
        let cut = s.breaks.binary_search(&i).is_ok()
            || matches!(
                w.as_str(),
                "but" | "while" | "whereas" | "although" | "though"
            );
        if cut && !out.last().is_some_and(Vec::is_empty) {
            out.push(Vec::new());
        }
        if let Some(last) = out.last_mut() {
            last.push(w.as_str());
        }
    }
    out
}

/// The indexes (into [`words`] of `text`) of the words that follow a comma or a parenthesis,
/// ascending: where a clause starts.
fn clause_breaks(text: &str) -> Vec<usize> {
    let mut n = 0;
    let mut at = Vec::new();
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            in_word = true;
            continue;
        }
        if in_word {
            n += 1;
        }
        in_word = false;
        if matches!(c, ',' | '(' | ')') && at.last() != Some(&n) {
            at.push(n);
        }
    }
    at
}

/// Whether `words` names an item: all its identifying words, or three in four of them when it has
/// more than four, each compared by its stem ("fixed the login bug" names "Fix the login bug").
fn names(words: &[&str], item: &[String]) -> bool {
    if item.is_empty() {
        return false;
    }
    let found = item
        .iter()
        .filter(|k| words.iter().any(|w| stem(w) == stem(k)))
        .count();
    if item.len() > 4 {
        found * 4 >= item.len() * 3
    } else {
        found == item.len()
    }
}

// ---- What the record shows.

/// The kind of check a command runs, if it runs one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Test,
    Build,
    Lint,
    Types,
}

impl Check {
    fn noun(self) -> &'static str {
        match self {
            Check::Test => "test run",
            Check::Build => "build",
            Check::Lint => "lint run",
            Check::Types => "type check",
        }
    }
}

/// Tools that run a shell command (Claude Code, Codex).
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "PowerShell",
    "shell",
    "exec_command",
    "local_shell",
    "local_shell_call",
    "container.exec",
];
/// Tools that change a file.
const EDIT_TOOLS: &[&str] = &[
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "apply_patch",
    "str_replace_based_edit_tool",
    "create_file",
];

/// What kind of check a command line runs (`None`: none that is recognised).
fn check_of(command: &str) -> Option<Check> {
    let w = words(command);
    let has = |x: &str| w.iter().any(|v| v == x);
    let pair = |a: &str, b: &str| w.windows(2).any(|p| p[0] == a && p[1] == b);
    let test = [
        "pytest", "jest", "vitest", "mocha", "rspec", "phpunit", "tox", "nox", "ctest", "unittest",
        "nextest",
    ]
    .iter()
    .any(|t| has(t))
        || [
            "cargo", "go", "npm", "yarn", "pnpm", "bun", "make", "deno", "dotnet", "mix", "swift",
        ]
        .iter()
        .any(|t| pair(t, "test"))
        || pair("run", "test")
        || pair("gradle", "test")
        || pair("mvn", "test");
    if test {
        return Some(Check::Test);
    }
    if has("clippy")
        || has("eslint")
        || has("ruff")
        || has("flake8")
        || has("pylint")
        || has("golangci")
        || pair("run", "lint")
        || has("shellcheck")
    {
        return Some(Check::Lint);
    }
    if has("mypy") || has("pyright") || (has("tsc") && command.contains("--noEmit")) {
        return Some(Check::Types);
    }
    let build = pair("cargo", "build")
        || pair("cargo", "check")
        || pair("go", "build")
        || pair("run", "build")
        || pair("gradle", "build")
        || pair("mvn", "package")
        || pair("mvn", "compile")
        || has("tsc")
        || (w.first().is_some_and(|f| f == "make") && w.len() <= 2);
    build.then_some(Check::Build)
}

fn is_shell(a: &Action) -> bool {
    SHELL_TOOLS.contains(&a.tool.as_str())
}

/// A command for a correction: one line, in backticks, cut.
fn shown_command(cmd: &str) -> String {
    format!("`{}`", folded_line(cmd, 90).replace('`', "'"))
}

/// The final path component of a path-like text.
fn base_name(p: &str) -> &str {
    p.trim_matches(|c: char| c == '`' || c == '\'' || c == '"' || c == ',')
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(p)
}

/// The path-like words of a sentence: in backticks, or with a slash or a file extension.
fn paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        let t = raw.trim_matches(|c: char| {
            matches!(c, '`' | '\'' | '"' | ',' | ':' | ';' | '*') || (c == '.' && raw.len() > 1)
        });
        let ext = t.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=8).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        });
        let slash = t.contains('/') && t.len() > 2 && !t.starts_with("http");
        if (ext || slash) && !t.contains("://") && t.len() <= 200 {
            out.push(t.to_owned());
        }
    }
    out.dedup();
    out
}

// ---- The comparison.

/// The corrections the record supports, in a fixed order: items called done, all work called
/// done, checks said to pass, files said to be changed, commits, the latest instruction.
pub fn corrections(d: &Digest, summary: &str) -> Vec<Correction> {
    let sentences = sentences(summary);
    let mut out = Vec::new();
    called_done(d, &sentences, &mut out);
    passing(d, &sentences, &mut out);
    changed(d, &sentences, &mut out);
    committed(d, &sentences, &mut out);
    if latest_left_out(d, summary) == Some(true) {
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
    out
}

/// Whether the summary leaves out the latest instruction: `None` when there is none or it is too
/// short to tell (fewer than three identifying words); `Some(true)` only when fewer than a third
/// of its identifying words appear anywhere in the summary (a paraphrase keeps more).
pub(crate) fn latest_left_out(d: &Digest, summary: &str) -> Option<bool> {
    let latest = d.latest.as_deref()?;
    // Words compared by their stem ("fixed" names "fix"), courtesy words left out: a summary
    // that paraphrases the instruction keeps it.
    let key: Vec<String> = significant(latest)
        .into_iter()
        .filter(|w| !COURTESY.contains(&w.as_str()))
        .map(|w| stem(&w).to_owned())
        .take(40)
        .collect();
    if key.len() < 3 {
        return None;
    }
    let everything: HashSet<String> = words(summary).iter().map(|w| stem(w).to_owned()).collect();
    let found = key.iter().filter(|w| everything.contains(*w)).count();
    Some(found * 3 < key.len())
}

/// Words of a request that say nothing of what is asked.
const COURTESY: &[&str] = &[
    "please", "thanks", "thank", "now", "also", "just", "after", "before", "again", "could",
    "would", "you", "make", "sure", "let", "know", "want", "need", "like", "okay", "yes",
];

/// A word without its commonest English endings ("fixed", "fixes", "fixing" -> "fix"), for
/// comparing a paraphrase with its source. Short words are left as they are.
fn stem(w: &str) -> &str {
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() >= 3
        {
            return base;
        }
    }
    w
}

/// How an open item stands in the record, said to the model.
fn item_state(d: &Digest, i: usize) -> String {
    match short_state(d, i) {
        "unchecked" => "still unchecked in the agent's checklist".to_owned(),
        state => format!("still {state} in the task list"),
    }
}

fn short_state(d: &Digest, i: usize) -> &'static str {
    match d.states.get(i).map(String::as_str) {
        Some("in_progress") => "in progress",
        Some("pending") => "pending",
        _ if d.open_kind == "checklist items" => "unchecked",
        _ => "open",
    }
}

fn quoted_claim(s: &Sentence) -> String {
    format!(
        "\"{}\"",
        folded_line(&s.text, CLAIM_CHARS).replace('"', "'")
    )
}

/// Open items the summary calls done, one by one or all at once.
fn called_done(d: &Digest, sentences: &[Sentence], out: &mut Vec<Correction>) {
    let mut unmentioned_open = Vec::new();
    let split: Vec<(&Sentence, Vec<Vec<&str>>)> =
        sentences.iter().map(|s| (s, clauses(s))).collect();
    for (i, item) in d.open.iter().enumerate() {
        let key = significant(item);
        if key.is_empty() {
            continue;
        }
        let mut kept_open = false;
        let mut said_done: Option<&Sentence> = None;
        let mut named = false;
        for (s, clauses) in &split {
            for clause in clauses {
                if !names(clause, &key) {
                    continue;
                }
                named = true;
                if s.quoted_section {
                    // A request or the user's words: says nothing of the item's state.
                } else if !s.is_claim() {
                    kept_open = true;
                } else if clause.iter().any(|w| DONE.contains(w)) {
                    said_done.get_or_insert(*s);
                }
            }
        }
        match said_done {
            Some(s) if !kept_open => out.push(Correction {
                kind: Kind::CalledDone,
                items: vec![item.clone()],
                text: format!(
                    "The summary calls \"{}\" done ({}); it is {}.",
                    folded_line(item, 80),
                    quoted_claim(s),
                    item_state(d, i)
                ),
            }),
            None if !named => unmentioned_open.push(i),
            _ => {}
        }
    }
    if unmentioned_open.is_empty() {
        return;
    }
    let Some(claim) = sentences.iter().find(|s| claims_all_done(s)) else {
        return;
    };
    let shown: Vec<String> = unmentioned_open
        .iter()
        .take(4)
        .map(|&i| {
            format!(
                "\"{}\" ({})",
                folded_line(&d.open[i], 60),
                short_state(d, i)
            )
        })
        .collect();
    let more = unmentioned_open.len().saturating_sub(shown.len());
    let kind = if d.open_kind == "checklist items" {
        "unchecked checklist items"
    } else {
        "open tasks"
    };
    out.push(Correction {
        kind: Kind::AllDone,
        items: unmentioned_open
            .iter()
            .map(|&i| d.open[i].clone())
            .collect(),
        text: format!(
            "The summary says {}; the record still has {} {kind}: {}{}.",
            quoted_claim(claim),
            unmentioned_open.len(),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ),
    });
}

/// A claim that all work is finished: "All tasks are completed", "There is no remaining work",
/// "Nothing remains to be done". Its own "no"/"remaining" are the claim, not a negation of it,
/// so this looks at the words, not at [`Sentence::not_a_claim`]; anything else that limits it
/// ("except", "but", "not", "first", "some") makes it no claim.
fn claims_all_done(s: &Sentence) -> bool {
    if s.open_section || s.quoted_section {
        return false;
    }
    let has = |w: &str| s.words.iter().any(|v| v == w);
    let work = [
        "tasks",
        "task",
        "todos",
        "items",
        "requests",
        "request",
        "work",
        "steps",
        "everything",
        "changes",
    ]
    .iter()
    .any(|w| has(w));
    let limited = [
        "except", "but", "not", "yet", "still", "first", "some", "most", "part", "phase", "will",
        "should", "if", "once", "until", "almost",
    ]
    .iter()
    .any(|w| has(w))
        || s.text.to_lowercase().contains("n't")
        || s.text.trim_end().ends_with('?');
    let all = (has("all") || has("every") || has("everything"))
        && s.words.iter().any(|w| DONE.contains(&w.as_str()));
    let none_left = (has("no")
        && ["remaining", "pending", "outstanding", "further", "open"]
            .iter()
            .any(|w| has(w))
        && work)
        || (has("nothing")
            && ["remains", "remaining", "left", "pending"]
                .iter()
                .any(|w| has(w)));
    work && !limited && (all || none_left) || (none_left && has("nothing") && !limited)
}

/// Nouns that name a kind of check, with the kind (`None`: any check).
fn check_noun(w: &str) -> Option<Option<Check>> {
    Some(match w {
        "test" | "tests" | "suite" | "specs" | "pytest" | "testsuite" => Some(Check::Test),
        "build" | "builds" | "compiles" | "compile" | "compilation" => Some(Check::Build),
        "lint" | "lints" | "linter" | "clippy" | "eslint" | "ruff" => Some(Check::Lint),
        "typecheck" | "mypy" | "pyright" => Some(Check::Types),
        "checks" => None,
        _ => return None,
    })
}

/// Words that say a check passed.
const PASS: &[&str] = &[
    "pass",
    "passes",
    "passed",
    "passing",
    "green",
    "succeed",
    "succeeds",
    "succeeded",
    "successful",
    "successfully",
    "clean",
    "cleanly",
];
/// Words before a check noun that do not narrow which check is meant.
const GENERIC: &[&str] = &[
    "all",
    "the",
    "our",
    "my",
    "existing",
    "remaining",
    "both",
    "new",
    "full",
    "whole",
    "entire",
    "every",
    "each",
    "of",
    "and",
    "now",
    "test",
    "tests",
    "project",
    "repo",
    "code",
];

/// Checks the summary says pass whose last run failed.
fn passing(d: &Digest, sentences: &[Sentence], out: &mut Vec<Correction>) {
    let runs: Vec<(&Action, Check)> = d
        .actions
        .iter()
        .filter(|a| is_shell(a))
        .filter_map(|a| check_of(&a.summary).map(|c| (a, c)))
        .collect();
    if runs.is_empty() {
        return;
    }
    let mut said = HashSet::new();
    for s in sentences.iter().filter(|s| s.is_claim()) {
        // "3 of 10 tests pass", "some tests pass": a part passing is no claim that the run did.
        let part = s.has(&[
            "some", "most", "several", "few", "half", "majority", "partial",
        ]) || s
            .words
            .windows(2)
            .any(|w| w[1] == "of" && w[0].chars().all(|c| c.is_ascii_digit()));
        if !s.has(PASS) || part {
            continue;
        }
        for (i, w) in s.words.iter().enumerate() {
            let Some(kind) = check_noun(w) else { continue };
            // "billing tests pass": the word before the noun narrows it to commands naming it.
            let qualifier = i
                .checked_sub(1)
                .map(|j| s.words[j].as_str())
                .filter(|q| !GENERIC.contains(q) && !q.chars().all(|c| c.is_ascii_digit()));
            let last = runs
                .iter()
                .rev()
                .find(|(_, c)| kind.is_none_or(|k| k == *c));
            let Some((run, check)) = last else { continue };
            if !run.error
                || qualifier.is_some_and(|q| !run.summary.to_lowercase().contains(q))
                || !said.insert(*check as u8)
            {
                continue;
            }
            out.push(Correction {
                kind: Kind::Passing,
                items: Vec::new(),
                text: format!(
                    "The summary says {}; the last {}, {}, failed, and none ran after it.",
                    quoted_claim(s),
                    check.noun(),
                    shown_command(&run.summary)
                ),
            });
            break;
        }
    }
}

/// Verbs that say a file was changed.
const CHANGED: &[&str] = &[
    "created",
    "added",
    "modified",
    "updated",
    "edited",
    "wrote",
    "written",
    "changed",
    "fixed",
    "applied",
    "patched",
    "rewrote",
    "rewritten",
    "refactored",
    "implemented",
];

/// Files the summary says were changed whose last edit failed, with no change recorded.
fn changed(d: &Digest, sentences: &[Sentence], out: &mut Vec<Correction>) {
    let mut said = HashSet::new();
    for s in sentences.iter().filter(|s| s.is_claim() && s.has(CHANGED)) {
        for p in paths(&s.text) {
            let name = base_name(&p);
            if name.is_empty() || d.files.iter().any(|f| base_name(f) == name) {
                continue; // changed after all
            }
            let last = d.actions.iter().rev().find(|a| {
                EDIT_TOOLS.contains(&a.tool.as_str())
                    && a.summary.split(", ").any(|f| base_name(f) == name)
            });
            let Some(edit) = last.filter(|a| a.error) else {
                continue;
            };
            if !said.insert(name.to_owned()) {
                continue;
            }
            out.push(Correction {
                kind: Kind::Changed,
                items: Vec::new(),
                text: format!(
                    "The summary says {}; the last edit of `{}` ({}) failed, and no change to it is recorded.",
                    quoted_claim(s),
                    folded_line(name, 80),
                    edit.tool
                ),
            });
        }
    }
}

/// Work said to be committed or pushed whose last `git commit`/`git push` failed.
fn committed(d: &Digest, sentences: &[Sentence], out: &mut Vec<Correction>) {
    for (verbs, git, what) in [
        (&["committed", "commited"][..], "commit", "commit"),
        (&["pushed"][..], "push", "push"),
    ] {
        let Some(s) = sentences.iter().find(|s| s.is_claim() && s.has(verbs)) else {
            continue;
        };
        let last = d.actions.iter().rev().find(|a| {
            is_shell(a)
                && words(&a.summary)
                    .windows(2)
                    .any(|p| p[0] == "git" && p[1] == git)
        });
        let Some(run) = last.filter(|a| a.error) else {
            continue;
        };
        out.push(Correction {
            kind: Kind::Committed,
            items: Vec::new(),
            text: format!(
                "The summary says {}; the last `git {what}`, {}, failed, and none ran after it.",
                quoted_claim(s),
                shown_command(&run.summary)
            ),
        });
    }
}

/// The corrections as the section the model reads, within [`MAX_UNITS`], ending in a blank line;
/// `None` when there are none. Lines that do not fit are counted, never cut in half.
pub fn section(list: &[Correction]) -> Option<String> {
    if list.is_empty() {
        return None;
    }
    let mut s = format!(
        "{HEADING}\n\nThe record from before the compaction contradicts these statements of the summary; trust the record, and check before you rely on the summary:\n"
    );
    let reserve = utf16_len("- ... and 99 more (not shown for space)\n\n");
    for (n, c) in list.iter().enumerate() {
        let line = cut_line(&format!("- {}\n", folded_line(&c.text, 600)), 420);
        if utf16_len(&s) + utf16_len(&line) + reserve > MAX_UNITS {
            s.push_str(&format!(
                "- ... and {} more (not shown for space)\n",
                list.len() - n
            ));
            break;
        }
        s.push_str(&line);
    }
    s.push('\n');
    Some(s)
}

/// Whether `text` is a corrections section as [`section`] writes it (a file read back may be
/// damaged or planted: nothing else is handed to the model).
pub fn is_section(text: &str) -> bool {
    text.starts_with(HEADING)
        && utf16_len(text) <= MAX_UNITS
        && text.ends_with("\n\n")
        && !text.contains("\n# ")
}

/// `snapshot` with the corrections section right after its title line, where the model reads
/// first (the snapshot's own end line stays last).
pub fn inserted(snapshot: &str, section: &str) -> String {
    match snapshot.split_once("\n\n") {
        Some((title, rest)) => format!("{title}\n\n{section}{rest}"),
        None => format!("{section}{snapshot}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(tool: &str, summary: &str, error: bool) -> Action {
        Action {
            tool: tool.into(),
            summary: summary.into(),
            error,
            count: 1,
        }
    }

    fn digest() -> Digest {
        Digest {
            saved_at: 1,
            saved: true,
            open_kind: "tasks".into(),
            open: vec!["renderer".into(), "billing tests".into()],
            states: vec!["in_progress".into(), "pending".into()],
            latest: Some("add retries with backoff to the importer job".into()),
            plan: None,
            actions: vec![
                act("Edit", "/p/src/importer.rs", false),
                act("Bash", "cargo test --test billing", true),
                act("Edit", "/p/src/render.rs", true),
                act("Bash", "git commit -m 'importer retries'", true),
            ],
            files: vec!["/p/src/importer.rs".into()],
            client: None,
        }
    }

    fn kinds(c: &[Correction]) -> Vec<Kind> {
        c.iter().map(|c| c.kind).collect()
    }

    #[test]
    fn each_kind_of_claim_is_corrected_with_its_evidence() {
        let c = corrections(
            &digest(),
            "The renderer is done. All billing tests pass. I updated `src/render.rs` to fix the layout. The work was committed.",
        );
        assert_eq!(
            kinds(&c),
            [
                Kind::CalledDone,
                Kind::Passing,
                Kind::Changed,
                Kind::Committed,
                Kind::LatestLeftOut
            ],
            "{c:#?}"
        );
        assert!(
            c[0].text.contains("still in progress in the task list"),
            "{}",
            c[0].text
        );
        assert!(
            c[1].text.contains("`cargo test --test billing`, failed"),
            "{}",
            c[1].text
        );
        assert!(
            c[2].text.contains("`render.rs` (Edit) failed"),
            "{}",
            c[2].text
        );
        assert!(c[3].text.contains("git commit"), "{}", c[3].text);
    }

    #[test]
    fn negated_future_and_conditional_statements_are_not_claims() {
        for s in [
            "The renderer is not done yet.",
            "The renderer isn't finished.",
            "The renderer will be done next.",
            "Once the renderer is done, the billing tests should pass.",
            "Is the renderer done?",
            "The user said \"the renderer is done\" but it was not checked.",
            "Tests pass except the billing tests, which fail.",
            "We need to make sure the billing tests pass.",
        ] {
            let c = corrections(
                &digest(),
                &format!("{s} The importer retries with backoff job."),
            );
            assert!(
                !c.iter()
                    .any(|c| matches!(c.kind, Kind::CalledDone | Kind::Passing)),
                "{s}: {c:#?}"
            );
        }
    }

    #[test]
    fn sections_that_list_open_work_or_quote_the_user_hold_no_claims() {
        let summary = "Summary:\n1. Primary Request and Intent:\n   - Make the renderer done and the billing tests pass\n7. Pending Tasks:\n   - renderer: finish the layout (completed parts: header)\n8. Current Work:\n   Worked on the importer retries with backoff job.\n";
        let c = corrections(&digest(), summary);
        assert!(c.is_empty(), "{c:#?}");
    }

    #[test]
    fn a_clause_about_another_item_does_not_call_this_one_done() {
        let mut d = digest();
        d.open = vec!["renderer".into(), "parser".into()];
        let c = corrections(&d, "The parser is done, the renderer is being reworked.");
        let done: Vec<&Vec<String>> = c
            .iter()
            .filter(|c| c.kind == Kind::CalledDone)
            .map(|c| &c.items)
            .collect();
        assert_eq!(done, [&vec!["parser".to_owned()]], "{c:#?}");
    }

    #[test]
    fn a_long_sentence_keeps_its_clauses_apart_past_its_shown_length() {
        // The shown text of a sentence is cut at 400 characters; its clauses are not.
        let mut d = digest();
        d.open = vec!["renderer".into()];
        let filler = "while reading the configuration loader code in depth ".repeat(10);
        let c = corrections(
            &d,
            &format!(
                "During the session, {filler}, the parser is done, the renderer is being reworked."
            ),
        );
        assert!(c.iter().all(|c| c.kind != Kind::CalledDone), "{c:#?}");
    }

    #[test]
    fn a_quotation_of_several_sentences_is_no_claim() {
        let c = corrections(
            &digest(),
            "The user wrote \"All tests pass. The renderer is done.\" in the issue, which was about CI.",
        );
        assert!(
            !c.iter()
                .any(|c| matches!(c.kind, Kind::CalledDone | Kind::Passing)),
            "{c:#?}"
        );
        // A stray quotation mark protects nothing, and splits nothing together.
        let c = corrections(&digest(), "The 12\" display works. The renderer is done.");
        assert!(c.iter().any(|c| c.kind == Kind::CalledDone), "{c:#?}");
    }

    #[test]
    fn a_check_that_passed_last_is_not_corrected() {
        let mut d = digest();
        d.actions.push(act("Bash", "cargo test", false));
        let c = corrections(&d, "All tests pass.");
        assert!(c.iter().all(|c| c.kind != Kind::Passing), "{c:#?}");
    }

    #[test]
    fn a_qualified_claim_needs_a_run_of_that_check() {
        // The last test run failed, but it was the billing tests; "unit tests" are another run.
        let c = corrections(&digest(), "The unit tests pass.");
        assert!(c.iter().all(|c| c.kind != Kind::Passing), "{c:#?}");
    }

    #[test]
    fn all_done_names_the_open_items_it_overlooks() {
        let c = corrections(
            &digest(),
            "All tasks are completed. There is no remaining work.",
        );
        assert_eq!(c[0].kind, Kind::AllDone);
        assert_eq!(c[0].items, ["renderer", "billing tests"]);
        assert!(
            c[0].text.contains("\"renderer\" (in progress)"),
            "{}",
            c[0].text
        );
    }

    #[test]
    fn a_right_summary_gets_no_corrections() {
        let c = corrections(
            &digest(),
            "The renderer is still in progress and the billing tests are pending; the last billing test run failed. The user asked to add retries with backoff to the importer job; the commit failed.",
        );
        assert!(c.is_empty(), "{c:#?}");
    }

    #[test]
    fn the_section_stays_within_its_room_and_counts_what_it_leaves_out() {
        let many: Vec<Correction> = (0..30)
            .map(|i| Correction {
                kind: Kind::CalledDone,
                items: vec![],
                text: format!("correction {i} {}", "x".repeat(200)),
            })
            .collect();
        let s = section(&many).unwrap();
        assert!(utf16_len(&s) <= MAX_UNITS, "{}", utf16_len(&s));
        assert!(s.contains("more (not shown for space)"), "{s}");
        assert!(section(&[]).is_none());
    }

    #[test]
    fn paths_are_found_in_backticks_and_bare() {
        assert_eq!(
            paths("Updated `src/render.rs` and README.md, see http://x.io/a"),
            ["src/render.rs", "README.md"]
        );
    }
}
