//! The record's facts (issue #54, D089): what the session did and how each thing ended, computed
//! once by the extraction and read alike by the snapshot's sections, the summarizer's directive
//! and the judge, so that the three never disagree about the record.
//!
//! - **Checks** (`outcome`): the last run of each check command (a test, build, lint or type
//!   check) and how it ended: passed, failed and why, still running in the background, ran no
//!   test, never ran (rejected), or unknown. A scope (a package, a file, a filter) keeps its own
//!   last run: a pass of `cargo test -p parser` says nothing of `cargo test -p billing`.
//! - **Files** (`files`): each file's newest write by an edit tool and how it ended, when it was
//!   last written at all, and the names of every file touched or read.
//! - **Actions** (`acts`): per kind (commit, push, tag, pull request, deploy, install, restart,
//!   migration, publish, activation), the last attempt, how it ended, and the last success; no
//!   entry is the record's "none attempted".
//! - **Reach**: how far back the facts hold. Every call within [`FACTS_WINDOW`] of the part's end
//!   is read (the save's reach); the audit reads every call back to the session's start, so that
//!   an absence ("no commit ran", "this file was never written") is a fact only there, and only
//!   when nothing could have done it unseen (a sub-agent, a session continued from another file).
//!
//! Times are ages: how many calls back from the newest a thing happened (0: the newest call), so
//! that "after the failing run" is a comparison of two numbers.

mod acts;
mod files;
mod outcome;
pub(crate) mod reports;

pub use acts::{Act, ActEnd, ActKind, Attempt};
pub use files::{FileFact, Names, Write, WriteEnd, base_name};
pub use outcome::Outcome;

use super::Action;
use super::calls::{Ended, action_of, output_ends};
use super::checks::{Check, check_of, simple_commands};
use crate::read::record::ToolUse;
use crate::read::tools::{is_edit, is_shell};
use crate::read::wants::USER_SHELL_COMMAND;
use crate::text::{escaped_line, folded_line};
use serde::{Deserialize, Serialize};

/// How many distinct check commands are kept.
pub const MAX_CHECKS: usize = 12;
/// How many of them may be programs run to see them work ([`Check::Run`]): a session that runs
/// many scripts must not push its tests and builds out.
const MAX_RUN_CHECKS: usize = 4;
/// How many files are kept in full (every file's name is kept in [`Reach::touched`]).
pub const MAX_FILES: usize = 40;
/// How many bytes back from the part's end every call is read for the facts at a save: what
/// every save reads anyway (a real session's 150 calls with their results take from a few
/// hundred KB to 2 MB). The audit reads further (see [`Reach`]).
pub const FACTS_WINDOW: u64 = super::MIN_WINDOW;
/// How many calls back at most the facts are read at a save, within [`FACTS_WINDOW`]: a failed
/// check 300 calls back is still the last word on it, and a long session's save parses no more
/// than this many calls for the facts (the one reach of the snapshot, the directive and the
/// judge; D089).
pub const FACT_CALLS: u32 = 400;
/// The longest command kept with a fact.
const COMMAND_CHARS: usize = 300;

/// What the record shows the session did, and how each thing ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// The last run of each check command, newest first.
    #[serde(default)]
    pub checks: Vec<CheckRun>,
    /// The newest shell command that failed by itself (not refused or interrupted) and whose
    /// output says why, whatever it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<Action>,
    /// The files written or attempted, newest first.
    #[serde(default)]
    pub files: Vec<FileFact>,
    /// The actions attempted, one entry per kind, in [`ActKind`] order.
    #[serde(default)]
    pub acts: Vec<Act>,
    /// How many calls the facts were read from.
    #[serde(default)]
    pub calls: u32,
    /// How many calls back the newest command ran that may write files it does not name (a
    /// script, a checkout, a formatter): after it, any file may have changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opaque: Option<u32>,
    /// How far back they hold: known in the process that read the record, never stored.
    #[serde(skip)]
    pub reach: Reach,
}

/// How far back the facts hold, and what could have acted unseen: what an absence needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// Every call since the session began was read: an absence is a fact.
    pub since_start: bool,
    /// A sub-agent ran: its calls are not in this record.
    pub delegated: bool,
    /// Every file written, attempted, or named by a command that may write it.
    pub touched: Names,
    /// Every file read (a read tool, `cat`, `grep`).
    pub read: Names,
    /// Kinds of action the user ran themselves (a `!` command), or whose words such a command
    /// has (`pkill app`: a restart, maybe).
    pub by_user: Vec<ActKind>,
    /// Kinds of action a command that ran may have done unnamed (`make install`, a
    /// `release.sh`): their absence is no evidence.
    pub hinted: Vec<ActKind>,
}

/// The last run of one check command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRun {
    /// What it checks.
    pub check: Check,
    /// The whole command line as run, one line, bounded.
    pub command: String,
    /// The words of the check's own simple command (`cargo test billing`).
    pub words: Vec<String>,
    /// What it narrows the check to (lowercased words of its arguments); empty for the whole.
    #[serde(default)]
    pub scope: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// Why it failed, as its output says (one line).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// Its output's ends, bounded: a runner's report is read from here.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// How many calls back it ran.
    pub age: u32,
    /// How a newer attempt of the same command ended that did not finish it (rejected, started
    /// in the background, no result): this run is still the last that says how it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub later: Option<Outcome>,
}

impl CheckRun {
    /// Whether its outcome says how the check stands: it passed or it failed.
    pub fn decisive(&self) -> bool {
        matches!(self.outcome, Outcome::Passed | Outcome::Failed { .. })
    }
}

impl Facts {
    /// The newest run of a check over `scope` words, of `check` (any when `None`).
    pub fn checks_of(&self, check: Option<Check>) -> impl Iterator<Item = &CheckRun> {
        self.checks
            .iter()
            .filter(move |r| check.is_none_or(|c| c == r.check))
    }

    /// The actions of `kind`, if any was attempted.
    pub fn act(&self, kind: ActKind) -> Option<&Act> {
        self.acts.iter().find(|a| a.kind == kind)
    }

    /// What the record shows of the file at `path` (matched by as many path components as both
    /// give), if it was written or attempted.
    pub fn file(&self, path: &str) -> Option<&FileFact> {
        self.files.iter().find(|f| same_file(&f.path, path))
    }

    /// Whether anything may have written files after the call `age` calls back: an applied
    /// write, or a command that may write files it does not name.
    pub fn written_since(&self, age: u32) -> bool {
        self.files
            .iter()
            .any(|f| f.applied.is_some_and(|a| a < age))
            || self.opaque.is_some_and(|a| a < age)
    }

    /// Whether the file at `path` may have been written after the call `age` calls back.
    pub fn file_written_since(&self, path: &str, age: u32) -> bool {
        self.file(path)
            .is_some_and(|f| f.applied.is_some_and(|a| a < age))
            || self.opaque.is_some_and(|a| a < age)
    }

    /// The check commands whose last run did not pass, newest first: failed, started in the
    /// background and not finished, never run (rejected), or run without running a test. What
    /// the directive names and the judge holds pass claims to.
    pub fn unpassed(&self) -> impl Iterator<Item = &CheckRun> {
        self.checks.iter().filter(|r| {
            matches!(
                r.outcome,
                Outcome::Failed { .. } | Outcome::Running | Outcome::NotRun | Outcome::RanNothing
            )
        })
    }

    /// What they hold, in one line without the record's text, for `COMPACT_GUARDIAN_DEBUG`:
    /// "12 calls; 2 checks (1 failed); 3 files (1 edit failed); commit: failed; from the
    /// session's start".
    pub fn described(&self) -> String {
        let failed = self.checks.iter().filter(|r| r.outcome.failed()).count();
        let undone = |f: &&FileFact| {
            f.last
                .as_ref()
                .is_some_and(|w| matches!(w.end, WriteEnd::Failed | WriteEnd::Rejected))
        };
        let acts: Vec<String> = self
            .acts
            .iter()
            .map(|a| {
                let end = serde_json::to_value(&a.last.end).ok();
                let end = end
                    .as_ref()
                    .and_then(|v| v["ended"].as_str())
                    .unwrap_or("?");
                format!("{:?}: {end}", a.kind).to_lowercase()
            })
            .collect();
        let r = &self.reach;
        format!(
            "{} calls; {} checks ({failed} failed); {} files ({} edits failed or rejected); acts [{}]; {}{}{}",
            self.calls,
            self.checks.len(),
            self.files.len(),
            self.files.iter().filter(undone).count(),
            acts.join(", "),
            if r.since_start {
                "from the session's start"
            } else {
                "not from the session's start"
            },
            if r.delegated { "; a sub-agent ran" } else { "" },
            match self.opaque {
                Some(age) => format!("; a command {age} calls back may have written unnamed files"),
                None => String::new(),
            }
        )
    }

    /// The facts of calls kept as [`Action`]s, oldest first (a digest written before the facts
    /// were, the labelled set): read as the transcript's calls are, their reach unknown.
    pub fn of_actions(actions: &[Action]) -> Facts {
        let mut fold = FactsFold::default();
        for a in actions.iter().rev() {
            let tu = ToolUse {
                name: a.tool.clone(),
                key_arg: Some(a.summary.clone()),
                written: if is_edit(&a.tool) {
                    a.summary.split(", ").map(str::to_owned).collect()
                } else {
                    Vec::new()
                },
                ..ToolUse::default()
            };
            let ended = Ended {
                read: !a.pending,
                failed: a.error,
                head: a.output.clone(),
                tail: a.output.clone(),
                exit: a.exit,
                ..Ended::default()
            };
            fold.call(&tu, &ended);
        }
        fold.finish(false)
    }

    /// The kind of action a command line or a tool named in the summary attempts (`git push`,
    /// `deploy_to_github`), read as the record's attempts are.
    pub fn act_in(code: &str) -> Option<ActKind> {
        let simple = simple_commands(code);
        simple
            .iter()
            .find_map(|s| acts::kind_of(&s.words))
            .or_else(|| acts::tool_named(code.trim()))
    }

    /// The check a command line written in the summary runs (`cargo test billing`), read as the
    /// record's runs are: what it checks, its command words, and whether it runs the whole.
    pub fn check_in(code: &str) -> Option<(Check, Vec<String>, bool)> {
        simple_commands(code).iter().find_map(|s| {
            let (check, first) = check_of(&s.words)?;
            let whole = scope_words(s.words.get(first..).unwrap_or(&[])).is_empty();
            Some((check, s.words.clone(), whole))
        })
    }
}

/// Whether the record's path `f` is the file `said` names: the same final components, as many
/// as both give (`src/a.rs` is not `tests/a.rs`; `a.rs` is either).
pub fn same_file(f: &str, said: &str) -> bool {
    let parts = |p: &str| -> Vec<String> {
        p.trim_matches(|c: char| matches!(c, '`' | '\'' | '"' | ','))
            .split(['/', '\\'])
            .map(|c| c.trim_start_matches('.').to_lowercase())
            .filter(|c| !c.is_empty())
            .collect()
    };
    let (said, f) = (parts(said), parts(f));
    let n = said.len().min(f.len());
    n > 0 && f[f.len() - n..] == said[said.len() - n..]
}

/// The facts fold: fed each call newest first, with how it ended.
#[derive(Default)]
pub(super) struct FactsFold {
    facts: Facts,
    /// The check commands met (their words), in the order of `facts.checks`.
    keys: Vec<Vec<String>>,
    /// A continuation summary was met with no compaction boundary before it: the session began
    /// in another file.
    continued: bool,
}

impl FactsFold {
    /// How many calls were read.
    pub(super) fn calls(&self) -> u32 {
        self.facts.calls
    }

    /// The next call, newest first.
    pub(super) fn call(&mut self, tu: &ToolUse, ended: &Ended) {
        let age = self.facts.calls;
        self.facts.calls = self.facts.calls.saturating_add(1);
        let name = tu.name.as_str();
        if matches!(name, "Task" | "Agent") {
            // Claude Code's (and OpenCode's) read-only sub-agents search and plan; any other may
            // write or commit.
            let read_only = tu.agent.as_deref().is_some_and(|a| {
                a.eq_ignore_ascii_case("explore") || a.eq_ignore_ascii_case("plan")
            });
            self.facts.reach.delegated |= !read_only;
        } else if matches!(name, "spawn_agent" | "send_input" | "resume_agent") {
            // Codex's agents share the workspace, whatever their role: their work is not here.
            self.facts.reach.delegated = true;
        } else if is_edit(name) {
            self.edit(tu, ended, age);
        } else if is_shell(name) {
            self.shell(tu, ended, age);
        } else if matches!(name, "Read" | "NotebookRead" | "view") {
            if let Some(p) = &tu.key_arg {
                self.facts.reach.read.add(p);
            }
        } else if let Some(kind) = acts::tool_named(name) {
            self.attempt(kind, name, acts::tool_ended(ended), age);
        }
    }

    /// A record's texts: a user's `!` command, a continuation summary, a compaction boundary.
    pub(super) fn record(&mut self, rec: &crate::read::record::Record) {
        use crate::read::record::RecordKind;
        if rec.kind == RecordKind::CompactBoundary {
            self.continued = false; // the summary met belongs to this file's own compaction
        }
        // The parser keeps no text of a summary record (`isCompactSummary`): its flag says it.
        if rec.compact_summary {
            self.continued = true;
        }
        for text in &rec.texts {
            if text.starts_with(super::authorship::CONTINUED) {
                self.continued = true;
            }
            if let Some(cmd) = users_command(text) {
                let by_user = &mut self.facts.reach.by_user;
                for s in simple_commands(cmd) {
                    match acts::kind_of(&s.words) {
                        Some(kind) => add_kinds(by_user, [kind]),
                        // What the user's command may have done (`pkill app && ./app &`), as
                        // for the agent's.
                        None => add_kinds(by_user, acts::hinted(&s.words)),
                    }
                }
            }
        }
    }

    /// An edit tool's call: a write of each file it names.
    fn edit(&mut self, tu: &ToolUse, ended: &Ended, age: u32) {
        let (end, why) = files::write_end(ended);
        let paths: Vec<&String> = if tu.written.is_empty() {
            tu.key_arg.iter().collect()
        } else {
            tu.written.iter().collect()
        };
        for path in paths {
            self.facts.reach.touched.add(path);
            let write = Write {
                tool: tu.name.clone(),
                end,
                why: why.clone(),
                age,
            };
            let files = &mut self.facts.files;
            match files.iter().position(|f| f.path == *path) {
                Some(i) => {
                    files[i].last.get_or_insert(write);
                    if end == WriteEnd::Applied {
                        files[i].applied.get_or_insert(age);
                    }
                }
                None if files.len() < MAX_FILES => files.push(FileFact {
                    path: path.clone(),
                    last: Some(write),
                    applied: (end == WriteEnd::Applied).then_some(age),
                }),
                None => {}
            }
        }
    }

    /// A shell command: the checks it ran, the actions it attempted, the files it wrote or read.
    fn shell(&mut self, tu: &ToolUse, ended: &Ended, age: u32) {
        let Some(cmd) = tu.key_arg.as_deref() else {
            return;
        };
        let simple = simple_commands(cmd);
        // Read only where a check or an action needs it (most commands are neither).
        let kept = std::cell::OnceCell::new();
        let output = || {
            kept.get_or_init(|| output_ends(&ended.head, &ended.tail))
                .as_str()
        };
        let ran = ended.read && !outcome::never_ran(ended);
        if self.facts.last_failure.is_none() && ran && ended.failed && !ended.running {
            let a = action_of(tu, ended, escaped_line(cmd));
            if !a.why.is_empty() {
                self.facts.last_failure = Some(a);
            }
        }
        let mut found_check = false;
        for (i, s) in simple.iter().enumerate() {
            let as_check = check_of(&s.words);
            if let Some((check, first)) = as_check {
                found_check = true;
                // How it ended is read only for a run that is kept (most are not: their
                // command's newer run stands, or the list is full).
                if self.keeps(check, &s.words) {
                    let outcome = outcome::of_run(check, ended, &simple[i..], output());
                    let scope = scope_words(s.words.get(first..).unwrap_or(&[]));
                    self.check_run(check, &s.words, scope, outcome, cmd, tu, ended, age);
                }
            }
            if let Some(kind) = acts::kind_of(&s.words) {
                let end = acts::ended(ended, &simple[i..], output());
                self.attempt(kind, cmd, end, age);
            } else if ran && as_check.is_none() {
                // A check (a test run, a build) is no action, whatever its words.
                add_kinds(&mut self.facts.reach.hinted, acts::hinted(&s.words));
            }
        }
        // A command no rule names, whose output is a test runner's report (`./ci`, `just`).
        if !found_check
            && simple.len() == 1
            && self.keeps(Check::Test, &simple[0].words)
            && let Some(outcome) = outcome::by_report(ended, output())
        {
            self.check_run(
                Check::Test,
                &simple[0].words,
                Vec::new(),
                outcome,
                cmd,
                tu,
                ended,
                age,
            );
        }
        let touched = files::shell_files(cmd, &simple);
        for path in &touched.writes {
            self.facts.reach.touched.add(path);
            if ran && !ended.failed {
                self.shell_write(path, age);
            }
        }
        for path in &touched.reads {
            self.facts.reach.read.add(path);
        }
        if touched.opaque && ran {
            self.facts.opaque.get_or_insert(age);
        }
    }

    /// A file written by a command that names it.
    fn shell_write(&mut self, path: &str, age: u32) {
        let files = &mut self.facts.files;
        match files.iter().position(|f| same_file(&f.path, path)) {
            Some(i) => {
                files[i].applied.get_or_insert(age);
            }
            None if files.len() < MAX_FILES => files.push(FileFact {
                path: path.to_owned(),
                last: None,
                applied: Some(age),
            }),
            None => {}
        }
    }

    /// Whether a run of `check` by the simple command `words` would be kept: its command is not
    /// in the list yet (and the list has room), or its newer run never finished.
    fn keeps(&self, check: Check, words: &[String]) -> bool {
        match self.keys.iter().position(|k| k.as_slice() == words) {
            Some(i) => matches!(
                self.facts.checks[i].outcome,
                Outcome::Running | Outcome::NotRun | Outcome::RanNothing | Outcome::NoResult
            ),
            None => {
                let runs = self.facts.checks.iter().filter(|r| r.check == Check::Run);
                self.keys.len() < MAX_CHECKS
                    && (check != Check::Run || runs.count() < MAX_RUN_CHECKS)
            }
        }
    }

    /// A run of a check ([`FactsFold::keeps`] says it is kept): the newest of its command, or
    /// an older one that passed or failed behind a newer attempt that never finished (rejected,
    /// in the background, no result), which it replaces, marked with that attempt.
    #[allow(clippy::too_many_arguments)]
    fn check_run(
        &mut self,
        check: Check,
        words: &[String],
        scope: Vec<String>,
        outcome: Outcome,
        cmd: &str,
        tu: &ToolUse,
        ended: &Ended,
        age: u32,
    ) {
        let at = self.keys.iter().position(|k| k.as_slice() == words);
        let decisive = matches!(outcome, Outcome::Passed | Outcome::Failed { .. });
        let later = match at {
            Some(_) if !decisive => return,
            Some(i) => Some(self.facts.checks[i].outcome.clone()),
            None => None,
        };
        let command = folded_line(&escaped_line(cmd), COMMAND_CHARS);
        let a = action_of(tu, ended, command.clone());
        let run = CheckRun {
            check,
            command,
            words: words.to_vec(),
            scope,
            outcome,
            why: a.why,
            output: a.output,
            age,
            later,
        };
        match at {
            Some(i) => self.facts.checks[i] = run,
            None => {
                self.keys.push(words.to_vec());
                self.facts.checks.push(run);
            }
        }
    }

    /// An attempt of an action of `kind`: the newest is its last; the newest done, its done.
    fn attempt(&mut self, kind: ActKind, command: &str, end: ActEnd, age: u32) {
        let done = end.done();
        let attempt = Attempt {
            command: folded_line(&escaped_line(command), COMMAND_CHARS),
            end,
            age,
        };
        match self.facts.acts.iter_mut().find(|a| a.kind == kind) {
            Some(a) => {
                a.attempts += 1;
                if done {
                    a.done.get_or_insert(age);
                }
            }
            None => self.facts.acts.push(Act {
                kind,
                attempts: 1,
                last: attempt,
                done: done.then_some(age),
            }),
        }
    }

    /// The facts, once reading has stopped; `whole`: every call back to the file's start was
    /// read.
    pub(super) fn finish(mut self, whole: bool) -> Facts {
        self.facts.acts.sort_by_key(|a| a.kind);
        self.facts.reach.since_start = whole && !self.continued;
        self.facts
    }
}

/// Adds each of `kinds` to `list` once.
fn add_kinds(list: &mut Vec<ActKind>, kinds: impl IntoIterator<Item = ActKind>) {
    for kind in kinds {
        if !list.contains(&kind) {
            list.push(kind);
        }
    }
}

/// The command a user ran themselves with `!`: Claude Code's `<bash-input>git push</bash-input>`,
/// Codex's `<user_shell_command>` (its command in `<command>` since 0.1xx, bare before).
fn users_command(text: &str) -> Option<&str> {
    // Where the text between `open` and `close` (or the text's end) lies.
    fn between(text: &str, open: &str, close: &str) -> Option<(usize, usize)> {
        let start = text.find(open)? + open.len();
        let end = text[start..].find(close).map_or(text.len(), |e| e + start);
        Some((start, end))
    }
    // Both open the message they are in: a text that starts otherwise (most) is not searched.
    let text = text.trim_start();
    if text.starts_with("<bash-input>") {
        let (s, e) = between(text, "<bash-input>", "</bash-input>")?;
        return Some(&text[s..e]);
    }
    if !text.starts_with(USER_SHELL_COMMAND) {
        return None;
    }
    let (s, e) = between(text, USER_SHELL_COMMAND, "</user_shell_command>")?;
    let inner = &text[s..e];
    match between(inner, "<command>", "</command>") {
        Some((cs, ce)) => Some(inner[cs..ce].trim()),
        None => Some(inner.split("<user_shell_command_output>").next()?.trim()),
    }
}

/// The words of a run's arguments that narrow it: names, paths, filters (lowercased, split at
/// non-alphanumerics); flags and their common values dropped.
fn scope_words(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for a in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        if a.starts_with('-') {
            // Flags that take a value we do not want (`-j 4`, `--color always`); filters such as
            // `-k expr`, `-p pkg`, `--test name` keep theirs.
            skip_next = matches!(
                a.as_str(),
                "-j" | "--jobs"
                    | "--color"
                    | "--timeout"
                    | "-n"
                    | "--maxfail"
                    | "--reporter"
                    | "--features"
                    | "-F"
                    | "--target"
                    | "--manifest-path"
                    | "--config"
                    | "-c"
            );
            continue;
        }
        if a.starts_with('>') || a.starts_with('<') || a.contains("&1") || a == "2" {
            continue;
        }
        for w in crate::text::lower_words(a) {
            if !matches!(w.as_str(), "py" | "js" | "ts" | "rs" | "sh" | "go" | "rb") {
                out.push(w);
            }
        }
    }
    out
}

/// Builders of calls and their facts, for the tests of every stage that reads facts.
#[cfg(test)]
pub(crate) mod build {
    use super::*;

    /// A call with how it ended.
    #[derive(Clone)]
    pub(crate) struct Call(pub(crate) ToolUse, Ended);

    /// A shell command that exited `exit` (0: success) printing `out`.
    pub(crate) fn sh(cmd: &str, exit: i32, out: &str) -> Call {
        let tu = ToolUse {
            id: format!("t{cmd}"),
            name: "Bash".into(),
            key_arg: Some(cmd.into()),
            ..ToolUse::default()
        };
        Call(
            tu,
            Ended {
                read: true,
                failed: exit != 0,
                exit: (exit != 0).then_some(exit),
                head: out.into(),
                tail: out.into(),
                ..Ended::default()
            },
        )
    }

    /// A shell command the user rejected.
    pub(crate) fn refused(cmd: &str) -> Call {
        let mut c = sh(
            cmd,
            1,
            "The user doesn't want to proceed with this tool use.",
        );
        c.1.exit = None;
        c
    }

    /// A shell command started in the background.
    pub(crate) fn background(cmd: &str) -> Call {
        let mut c = sh(cmd, 0, "Command running in background with ID: b1.");
        c.1.running = true;
        c
    }

    /// An edit of `path`: applied, or failed with `error`.
    pub(crate) fn edit(path: &str, error: Option<&str>) -> Call {
        let tu = ToolUse {
            id: format!("e{path}"),
            name: "Edit".into(),
            key_arg: Some(path.into()),
            written: vec![path.into()],
            ..ToolUse::default()
        };
        Call(
            tu,
            Ended {
                read: true,
                failed: error.is_some(),
                head: error.unwrap_or("ok").into(),
                ..Ended::default()
            },
        )
    }

    /// A call of another tool (`Read`, `Task`) naming `arg`.
    pub(crate) fn tool(name: &str, arg: &str) -> Call {
        let tu = ToolUse {
            id: format!("o{name}{arg}"),
            name: name.into(),
            key_arg: Some(arg.into()),
            ..ToolUse::default()
        };
        Call(
            tu,
            Ended {
                read: true,
                head: "ok".into(),
                ..Ended::default()
            },
        )
    }

    /// The facts of `calls`, given oldest first as the transcript holds them, read back to the
    /// session's start.
    pub(crate) fn facts(calls: &[Call]) -> Facts {
        let mut fold = FactsFold::default();
        for Call(tu, e) in calls.iter().rev() {
            fold.call(tu, e);
        }
        fold.finish(true)
    }
}

#[cfg(test)]
mod tests;
