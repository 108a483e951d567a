//! What the agent needs to resume, folded from records met **newest first**: [`Extractor`].
//!
//! The reader hands over records from the end of the transcript backwards; the extractor keeps
//! only bounded state and says what it still wants ([`Fold::wants`]) and when it has enough
//! ([`Fold::satisfied`]), so the reader can stop or skip lines unparsed. Memory does not grow
//! with the transcript, its record count or its line lengths.
//!
//! One small fold per thing collected, each with its own state, its own "still wanted" and its
//! own tests: `prompts` (the user's words), `replies` (the agent's last words and checklists),
//! `calls` (results waiting for their calls, recent actions, changed files), [`crate::extract::tasks`]
//! (the task list), `plans`, `commit`; `branch` is the walk that says which records are on the
//! conversation's current branch (prompts and replies count only there; tool calls all
//! happened). Compaction boundaries are crossed through their logical parent.
//!
//! What far-back things are looked for, and which lines can hold them, is the table in
//! [`crate::read::wants`]: a new thing to collect is a row there, a fold here, a section in `render`.

mod authorship;
mod branch;
mod calls;
pub mod checks;
mod commit;
pub mod digest;
pub mod facts;
mod plans;
mod prompts;
mod replies;
pub mod tasks;
mod why;

use crate::extract::authorship::prompt_text;
use crate::extract::tasks::{Status, Task, TaskReplay};
use crate::read::record::{Id, Link, Record, RecordKind, ToolUse};
use crate::read::reported::ReportedCall;
use crate::read::transcript::Fold;
use crate::read::wants::{Far, FarSet, Wants};
use branch::{Branch, Step};
use calls::{Actions, Files, Results};
pub use commit::Commit;
use commit::LastCommit;
use facts::{Facts, FactsFold};
use plans::Plans;
use prompts::Prompts;
use replies::Replies;
pub use replies::{checklist_item, checklist_open};
use serde::Serialize;
use std::collections::HashSet;
use std::time::SystemTime;

/// How many of the user's latest prompts are kept.
pub(crate) const MAX_INSTRUCTIONS: usize = 5;
/// How many recent tool calls are listed (after collapsing repeats).
pub(crate) const MAX_ACTIONS: usize = 20;
/// How many recent assistant messages are searched for checklist lines.
pub(crate) const CHECKLIST_MESSAGES: usize = 10;
/// How many changed files are kept.
pub(crate) const MAX_FILES: usize = 30;
/// Recent activity (the last actions, replies and changed files) is collected from at most this
/// much of the end of the transcript (about eighty 2.1.3xx turns); beyond it, every line is triaged
/// from its bytes and only prompts and the far-back things of [`crate::read::wants`] are looked for.
pub(crate) const RECENT_WINDOW: u64 = 8 * 1024 * 1024;
/// Always read at least this much (when the file is that long): the original plugin's window.
pub(crate) const MIN_WINDOW: u64 = 2 * 1024 * 1024;
/// Once the prompts are found, the task list is looked for this far back at most: a session that
/// never used task tools must not cost a parse of its whole history on every compaction.
pub(crate) const HORIZON: u64 = 64 * 1024 * 1024;

/// Everything the snapshot is made of. Serialized as-is by `preview --json`.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Extraction {
    /// The user's latest genuine prompts, oldest first.
    pub instructions: Vec<String>,
    /// The `uuid` of each instruction's record, in the same order (where the record has one):
    /// how the agent can read a cut instruction back from the transcript.
    pub instruction_records: Vec<Option<String>>,
    /// The transcript read (set by the pipeline).
    pub transcript: Option<String>,
    /// The task list as it stood.
    pub tasks: Vec<Task>,
    /// Task-tool calls about tasks beyond the tracked number (their state is not shown).
    pub untracked_task_calls: usize,
    /// Checklist lines from recent assistant text, latest state of each.
    pub checklist: Vec<String>,
    /// The agent's last text reply.
    pub last_response: Option<String>,
    /// Files written by Edit/Write/MultiEdit/NotebookEdit, most recent first.
    pub files_changed: Vec<String>,
    /// Recent tool calls, oldest first, repeats collapsed.
    pub actions: Vec<Action>,
    /// The record's facts: each check's last run, each file's writes, each kind of action's
    /// attempts (D089), read alike by the snapshot, the directive and the judge.
    pub facts: Facts,
    /// The session's working directory, from the newest record that names one.
    pub cwd: Option<String>,
    /// The git branch, from the newest record that names one.
    pub git_branch: Option<String>,
    /// The newest plan the user approved on the main thread, if any.
    pub plan: Option<Plan>,
    /// The newest commit the agent made, as git reported it.
    pub last_commit: Option<Commit>,
    /// How much of the transcript was read for this, so that a snapshot without instructions can
    /// say how far back it looked.
    pub searched: Searched,
    /// A message from the user newer than every instruction above that could not be read (a
    /// damaged record): the newest of [`Extraction::instructions`] is then not the latest.
    pub unread_prompt: Option<UnreadPrompt>,
    /// The bounds its texts were cut to when read.
    #[serde(skip)]
    pub read_bounds: ReadBounds,
}

/// The bounds texts were cut to when read: a text that long may have been longer, which its cut
/// mark in the snapshot says ("at least"). Carried here so the renderer needs no parse limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadBounds {
    /// Prompts and replies, in bytes.
    pub text: usize,
    /// A plan's text, in bytes.
    pub plan: usize,
}

impl Default for ReadBounds {
    fn default() -> ReadBounds {
        ReadBounds {
            text: crate::json::MAX_TEXT,
            plan: crate::read::record::KEEP_PLAN,
        }
    }
}

/// A record shaped like a prompt from the user that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadPrompt {
    /// Its size as met: the record was at least this long.
    pub bytes: u64,
    /// Its first words, where the raw bytes show them.
    pub starts: Option<String>,
}

/// How far back the transcript was read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Searched {
    /// Bytes read from the end.
    pub bytes: u64,
    /// The whole file was read.
    pub whole_file: bool,
    /// Reading stopped at the time budget.
    pub out_of_time: bool,
    /// What a save needs was read before reading stopped (a deep read that ran out of time
    /// still has it: only its facts' reach is short).
    #[serde(skip)]
    pub enough: bool,
}

/// A plan the user approved (`ExitPlanMode` with an approving result).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// Its title: the first heading, else the first line, else the file name.
    pub title: String,
    /// Its text, bounded when read (the file has all of it).
    pub text: Option<String>,
    /// The plan file the CLI saved it to.
    pub file: Option<String>,
}

impl Plan {
    pub(crate) fn new(text: Option<String>, file: Option<String>) -> Option<Plan> {
        let title = text
            .as_deref()
            .and_then(|t| {
                let lines = || t.lines().map(str::trim).filter(|l| !l.is_empty());
                lines()
                    .find(|l| l.starts_with('#'))
                    .or_else(|| lines().next())
                    .map(|l| l.trim_start_matches('#').trim().to_owned())
            })
            .or_else(|| {
                file.as_deref()
                    .and_then(|f| f.rsplit(['/', '\\']).next())
                    .map(str::to_owned)
            })?;
        Some(Plan { title, text, file })
    }
}

/// One line of recent activity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Action {
    /// Tool name.
    pub tool: String,
    /// Its key argument, one line.
    pub summary: String,
    /// The call failed (error result or non-zero exit).
    pub error: bool,
    /// How many identical calls in a row this line stands for.
    pub count: u32,
    /// A shell command's exit code, when its result states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// Its result was not read (not written yet, or out of reach): how it ended is unknown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// A shell command's output as read: its first lines and, after a `…` line, its last
    /// (bounded): the evidence for what the summary says of it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// Why a failed shell command failed, as its output says (one line: the failing tests'
    /// names or the first error); empty when it did not fail or its output does not say.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

/// The actions unit tests are written with, in one place: an action's fields change, its
/// builders change with it (the facts' tests build calls instead: `facts::build`).
#[cfg(test)]
impl Action {
    /// One call of `tool` on `summary` (a file edited, a command run), failed or not.
    pub(crate) fn call(tool: &str, summary: &str, error: bool) -> Action {
        Action {
            tool: tool.into(),
            summary: summary.into(),
            error,
            count: 1,
            ..Action::default()
        }
    }
}

impl Extraction {
    /// What is unfinished, for the steering and the PostCompact audit: the open tasks in list
    /// order with their status; or, when the task list has none open (never used, or all of an
    /// earlier phase completed), the unchecked boxes of the agent's newest checklist (their text,
    /// without the box). The first value names the kind: `tasks` or `checklist items`.
    pub(crate) fn open_work(&self) -> (&'static str, Vec<(&str, Option<Status>)>) {
        let tasks: Vec<(&str, Option<Status>)> = self
            .tasks
            .iter()
            .filter(|t| t.status != Status::Completed)
            .map(|t| (t.content.as_str(), Some(t.status)))
            .collect();
        let unchecked: Vec<(&str, Option<Status>)> = self
            .checklist
            .iter()
            .filter(|c| checklist_open(c))
            .map(|c| (checklist_item(c), None))
            .collect();
        if self.tasks.is_empty() || tasks.is_empty() && !unchecked.is_empty() {
            return ("checklist items", unchecked);
        }
        ("tasks", tasks)
    }

    /// True when there is nothing at all to report: such a transcript yields no snapshot.
    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty()
            && self.unread_prompt.is_none()
            && self.tasks.is_empty()
            && self.checklist.is_empty()
            && self.last_response.is_none()
            && self.files_changed.is_empty()
            && self.actions.is_empty()
            && self.facts.checks.is_empty()
            && self.facts.last_failure.is_none()
            && self.last_commit.is_none()
    }
}

/// Which part of the transcript is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Everything up to now (save, preview).
    Whole,
    /// The conversation that was just compacted (restore's rebuild). Claude Code 2.1.3xx runs the
    /// SessionStart(compact) hook *before* it appends the new `compact_boundary`, so the newest
    /// boundary is this compaction's only if no prompt typed by the user follows it; otherwise it
    /// belongs to an earlier compaction and everything counts (D006).
    Compacted,
}

/// The fold: feed it newest record first ([`Fold::record`], [`Fold::link`]). It is made of one
/// small fold per thing collected (in this module's files), each saying what it still wants;
/// this one walks the branch, pairs calls with results, and decides how far back each is
/// looked for.
pub struct Extractor {
    part: Part,
    /// The newest boundary has been met (rebuild) or does not matter.
    boundary_settled: bool,
    /// Where the part being extracted starts, in bytes from the end (after a rebuild's reset at
    /// this compaction's boundary): the recent window is measured from here.
    part_start: u64,
    /// Bytes of the transcript read so far (told by the reader).
    scanned: u64,
    /// [`RECENT_WINDOW`], lowered by tests to exercise the byte triage on small files.
    recent_window: u64,
    branch: Branch,
    prompts: Prompts,
    replies: Replies,
    results: Results,
    actions: Actions,
    facts: FactsFold,
    /// The facts are read back to the session's start, not only within [`facts::FACTS_WINDOW`]
    /// (the audit's reach, D089).
    deep: bool,
    files: Files,
    tasks: TaskReplay,
    plans: Plans,
    commit: LastCommit,
    place: Place,
    /// The ids of calls the hooks reported that the transcript did not hold yet, fed first
    /// ([`Extractor::with_reported_calls`]): met again in the transcript, they are not counted twice.
    reported: HashSet<String>,
    /// Those calls, newest first: fed again when the fold starts over at this compaction's
    /// boundary, since their ids stay taken (a call only moves, never disappears; issue #55).
    unwritten: Vec<ReportedCall>,
}

/// Where the session works: from the newest record that names it.
#[derive(Default)]
struct Place {
    cwd: Option<String>,
    git_branch: Option<String>,
}

impl Place {
    fn record(&mut self, rec: &Record) {
        if self.cwd.is_none() {
            self.cwd = rec.cwd.as_deref().map(str::to_owned);
        }
        if self.git_branch.is_none() {
            self.git_branch = rec.git_branch.as_deref().map(str::to_owned);
        }
    }
}

impl Extractor {
    /// A fold for `part` of a transcript.
    pub fn new(part: Part) -> Extractor {
        Extractor {
            part,
            boundary_settled: part == Part::Whole,
            part_start: 0,
            scanned: 0,
            recent_window: RECENT_WINDOW,
            branch: Branch::new(),
            prompts: Prompts::default(),
            replies: Replies::default(),
            results: Results::default(),
            actions: Actions::default(),
            facts: FactsFold::default(),
            deep: false,
            files: Files::default(),
            tasks: TaskReplay::default(),
            plans: Plans::default(),
            commit: LastCommit::default(),
            place: Place::default(),
            reported: HashSet::new(),
            unwritten: Vec::new(),
        }
    }

    /// The same fold, told the calls the hooks reported (oldest first, `ReportedCall`) before it is
    /// fed the transcript last written at `written` (issue #46, D083). Every reported result
    /// waits for its call, so that a call the transcript holds without its result yet ends as
    /// the hook was told; a call reported after the transcript's last write may not be in it at
    /// all, and is taken as its newest.
    pub fn with_reported_calls(
        mut self,
        calls: &[ReportedCall],
        written: Option<SystemTime>,
    ) -> Extractor {
        let written = written.map(crate::read::reported::nanos);
        for call in calls {
            let Some([result, _]) = call.records() else {
                continue;
            };
            self.results.record(&result);
            if written.is_some_and(|w| call.at > w) {
                self.unwritten.push(call.clone());
            }
        }
        self.unwritten.reverse();
        self.take_unwritten(false);
        self
    }

    /// Feeds the reported calls the transcript did not hold yet, newest first, as its newest
    /// calls; `again` after the fold started over, which dropped what they had given it (their
    /// results waited for them again).
    fn take_unwritten(&mut self, again: bool) {
        for call in std::mem::take(&mut self.unwritten) {
            let Some([result, record]) = call.records() else {
                continue;
            };
            if again {
                self.results.record(&result);
            }
            // Counted here, then never again: marked only once taken.
            let ids: Vec<String> = record.tool_uses.iter().map(|t| t.id.clone()).collect();
            self.take_record(record);
            self.reported.extend(ids);
            self.unwritten.push(call);
        }
    }

    /// The same fold with a different recent window (tests: a window of 0 puts every line
    /// through the byte triage).
    pub fn with_recent_window(mut self, bytes: u64) -> Extractor {
        self.recent_window = bytes;
        self
    }

    /// The recent window (actions, files, replies) is still being read.
    fn recent_open(&self) -> bool {
        self.scanned.saturating_sub(self.part_start) < self.recent_window
    }

    /// The same fold reading the facts back to the session's start (the audit, D089): every call
    /// of a shell, edit or sub-agent tool is read, however far back.
    pub fn deep(mut self) -> Extractor {
        self.deep = true;
        self
    }

    /// Whether calls are still read for the facts: the last [`facts::FACT_CALLS`] within
    /// [`facts::FACTS_WINDOW`] of the part's end, or every one when reading deep.
    fn facts_open(&self) -> bool {
        let window = facts::FACTS_WINDOW.min(self.recent_window);
        self.deep
            || (self.scanned.saturating_sub(self.part_start) < window
                && self.facts.calls() < facts::FACT_CALLS)
    }

    /// Whether what a save needs is read (the prompts, the task list, the recent window): the
    /// rest of a deep read only extends the facts' reach.
    pub fn enough(&self) -> bool {
        !self.prompts.needed()
            && self.scanned >= MIN_WINDOW
            && self.boundary_settled
            && (self.tasks.known() || self.scanned >= HORIZON)
    }

    /// How far back a plan is looked for: as far as prompts are, and at least the recent window.
    fn within_reach(&self) -> bool {
        self.prompts.needed() || self.recent_open()
    }

    /// The next record, newest first.
    fn take_record(&mut self, rec: Record) {
        if rec.sidechain {
            return; // subagent traffic: never the user's conversation, not in its chain
        }
        if rec.kind == RecordKind::CompactBoundary && !self.boundary_settled {
            // Met before any prompt: this compaction's own boundary (older CLIs write it before
            // the hook runs). What follows it is the summary and the /compact command, not the
            // compacted conversation: start over from here.
            // The reported results still wait for their calls, which lie before it; the calls
            // the transcript did not hold are fed again (their ids taken again), or nothing
            // would show them: the transcript's own copy of one is not counted.
            *self = Extractor {
                boundary_settled: true,
                scanned: self.scanned,
                part_start: self.scanned,
                recent_window: self.recent_window,
                deep: self.deep,
                results: std::mem::take(&mut self.results),
                unwritten: std::mem::take(&mut self.unwritten),
                ..Extractor::new(self.part)
            };
            self.take_unwritten(true);
        }
        if rec.kind == (RecordKind::ToolsUsed { task_tools: false }) {
            // The CLI's own running list of tools used: the newest one met names every tool used
            // before it, so without a task tool there is no task call to look for (D016).
            self.tasks.settle();
        }
        self.facts.record(&rec);
        let plans_wanted = self.plans.wanted() && self.within_reach();
        self.plans.record(&rec, plans_wanted);
        self.results.record(&rec);
        let on_branch = match rec.uuid {
            Some(u) => self.step(u, rec.parent, rec.meta),
            None => true,
        };
        if let Some(p) = prompt_text(&rec) {
            // A prompt typed after the newest boundary makes that boundary an earlier
            // compaction's (D006): the whole conversation counts, whatever lies further back.
            self.boundary_settled = true;
            let id = rec.uuid_text.as_deref().map(str::to_owned);
            self.prompts.record(p, id, on_branch);
        }
        let recent = self.recent_open();
        self.replies.record(&rec, on_branch, recent);
        // Tool calls all happened, whatever the branch. Within a record, newest call last.
        for tu in rec.tool_uses.iter().rev() {
            self.tool_call(tu);
        }
        self.place.record(&rec);
    }

    /// Steps the branch walk; true if the record is on the current branch.
    fn step(&mut self, uuid: Id, parent: Option<Id>, meta: bool) -> bool {
        match self.branch.step(uuid, parent, meta) {
            Step::On => true,
            Step::Off => false,
            Step::Rejoined { keep: true } => {
                self.prompts.release();
                self.replies.release();
                true
            }
            Step::Rejoined { keep: false } => {
                self.prompts.drop_held();
                self.replies.drop_held();
                true
            }
        }
    }

    fn tool_call(&mut self, tu: &ToolUse) {
        if !tu.id.is_empty() && self.reported.contains(&tu.id) {
            return; // taken from the hooks' report already, as the newest call
        }
        let ended = self.results.take(tu);
        if !ended.failed {
            let head = ended.read.then_some(ended.head.as_str());
            self.tasks.call(tu, head);
        }
        self.plans.call(tu);
        if self.recent_open() {
            self.commit.call(tu, &ended);
        }
        if crate::read::tools::TASK_TOOLS.contains(&tu.name.as_str()) {
            return; // reported as tasks, not as actions
        }
        if self.facts_open() {
            self.facts.call(tu, &ended);
        }
        if self.recent_open() {
            self.actions.call(tu, &ended);
            self.files.call(tu, ended.failed);
        }
    }

    /// The extraction, once reading has stopped.
    pub fn finish(self, searched: Searched) -> Extraction {
        let (instructions, instruction_records, unread_prompt) = self.prompts.finish();
        let (checklist, last_response) = self.replies.finish();
        Extraction {
            instructions,
            instruction_records,
            transcript: None,
            tasks: self.tasks.tasks(),
            untracked_task_calls: self.tasks.untracked(),
            checklist,
            last_response,
            files_changed: self.files.finish(),
            actions: self.actions.finish(),
            facts: self
                .facts
                .finish(searched.whole_file && !searched.out_of_time),
            cwd: self.place.cwd,
            git_branch: self.place.git_branch,
            plan: self.plans.finish(),
            last_commit: self.commit.finish(),
            searched,
            unread_prompt,
            read_bounds: ReadBounds::default(),
        }
    }
}

impl Fold for Extractor {
    /// What still matters, for the reader's byte-level triage.
    fn wants(&self) -> Wants {
        let recent = self.recent_open();
        Wants {
            lines: self.prompts.needed() || !self.boundary_settled,
            // Before the newest boundary is settled (rebuild), everything may be discarded and
            // collected again: parse all.
            everything: recent
                && !(self.actions.full() && self.replies.full() && !self.facts_open()),
            // The facts are tool calls with their results, like the actions.
            actions: recent && (!self.actions.full() || self.facts_open()),
            far: FarSet::of([
                // Until the list is known, any task-tool call (or its result) may change it.
                (Far::TaskList, !self.tasks.known()),
                (Far::Files, recent && self.files.wanted()),
                (Far::Plan, self.plans.wanted() && self.within_reach()),
                // A commit is recent activity, like the actions: looked for in the recent window
                // only (far back it would cost a search of every tool output, D029).
                (Far::Commit, recent && self.commit.wanted()),
                // Reading deep, every call counts, however far back (not its result).
                (Far::Calls, self.deep),
            ]),
        }
    }

    fn record(&mut self, rec: Record) {
        self.take_record(rec);
    }

    fn link(&mut self, link: Link) {
        self.step(link.uuid, link.parent, link.meta);
    }

    /// A line that should have been read but did not parse (damaged, or too large to shrink).
    fn unreadable(&mut self, line: &[u8]) {
        if self.boundary_settled {
            self.prompts.unreadable(line);
        }
    }

    fn scanned(&mut self, bytes: u64) {
        self.scanned = bytes;
    }

    /// Whether reading further back can change nothing that matters: the prompts are found, the
    /// task list is known (or looked for far enough), and at least `MIN_WINDOW` was read.
    fn satisfied(&self) -> bool {
        self.enough() && !self.deep
    }
}

/// Extracts from records in transcript order (oldest first): the fold fed newest first. For
/// tests, property tests and fuzzing; the commands stream through [`crate::pipeline`].
pub fn extract(records: &[Record]) -> Extraction {
    extract_part(records, Part::Whole)
}

/// [`extract`] for a given [`Part`].
pub fn extract_part(records: &[Record], part: Part) -> Extraction {
    let mut ex = Extractor::new(part);
    for r in records.iter().rev() {
        ex.take_record(r.clone());
    }
    ex.finish(Searched::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::record::parse_line;

    fn recs(lines: &[&str]) -> Vec<Record> {
        lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect()
    }

    /// The extraction of `lines`, told first of `calls` reported after a transcript written
    /// at `written` nanoseconds (in microseconds at least: Windows keeps file times in units of
    /// 100 ns).
    fn with_reported(lines: &[&str], calls: &[ReportedCall], written: u64) -> Extraction {
        let written = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(written);
        let mut ex = Extractor::new(Part::Whole).with_reported_calls(calls, Some(written));
        for r in recs(lines).into_iter().rev() {
            ex.take_record(r);
        }
        ex.finish(Searched::default())
    }

    fn failed_test_run(at: u64) -> ReportedCall {
        ReportedCall {
            at,
            id: "t2".into(),
            tool: "Bash".into(),
            input: [("command".to_owned(), "sh run_tests.sh".to_owned())].into(),
            failed: true,
            output: "Exit code 101\ntest result: FAILED. 3 passed; 1 failed".into(),
            running: false,
            unstated: false,
        }
    }

    const ASKED: &str =
        r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"run the tests"}}"#;
    const EDIT: &str = r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/p/a.rs"}}]}}"#;
    const EDITED: &str = r#"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#;
    const RUN: &str = r#"{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"sh run_tests.sh"}}]}}"#;
    const RAN: &str = r#"{"type":"user","uuid":"r2","parentUuid":"a2","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"Exit code 101\ntest result: FAILED. 3 passed; 1 failed"}]}}"#;

    fn shown(e: &Extraction) -> Vec<(String, bool, bool, Option<i32>)> {
        e.actions
            .iter()
            .map(|a| (a.summary.clone(), a.error, a.pending, a.exit))
            .collect()
    }

    #[test]
    fn a_result_not_yet_written_ends_as_the_hook_reported() {
        // The call is written, its result is not (Claude Code batches its writes).
        let e = with_reported(
            &[ASKED, EDIT, EDITED, RUN],
            &[failed_test_run(5_000)],
            10_000,
        );
        let run = ("sh run_tests.sh".to_owned(), true, false, Some(101));
        assert_eq!(shown(&e)[1], run);
        assert!(
            e.actions[1].output.ends_with("1 failed"),
            "{:?}",
            e.actions[1]
        );
    }

    #[test]
    fn a_call_not_yet_written_at_all_is_the_newest() {
        let e = with_reported(&[ASKED, EDIT, EDITED], &[failed_test_run(20_000)], 10_000);
        let list = shown(&e);
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(list[0].0, "/p/a.rs");
        assert_eq!(
            list[1],
            ("sh run_tests.sh".to_owned(), true, false, Some(101))
        );
    }

    #[test]
    fn a_reported_call_the_transcript_also_holds_is_counted_once() {
        // Reported after the transcript's last write as read (a coarse clock), written after all.
        let e = with_reported(
            &[ASKED, EDIT, EDITED, RUN, RAN],
            &[failed_test_run(20_000)],
            10_000,
        );
        assert_eq!(shown(&e).len(), 2, "{:?}", shown(&e));
        assert!(e.actions[1].error);
    }

    #[test]
    fn reported_calls_older_than_the_last_write_only_fill_missing_results() {
        // Written long before: its place in the transcript is where it is shown.
        let mut ok = failed_test_run(5_000);
        ok.failed = false;
        ok.output = "test result: ok. 4 passed".into();
        let e = with_reported(&[ASKED, RUN, RAN, EDIT, EDITED], &[ok], 10_000);
        let list = shown(&e);
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].0, "sh run_tests.sh");
        assert!(list[0].1, "the transcript's own result stands: {list:?}");
    }

    /// Issue #55: at this compaction's boundary the fold starts over; a reported call it had
    /// taken as unwritten (a coarse or skewed file clock) was dropped there while its id stayed
    /// taken, so the transcript's own copy was skipped too and the failed run vanished.
    #[test]
    fn a_reported_call_survives_the_fold_starting_over_at_the_boundary() {
        let boundary =
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","logicalParentUuid":"r2"}"#;
        let summary = r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued"}}"#;
        let written = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(10_000);
        for lines in [
            // Written after all: the transcript holds the call.
            &[ASKED, EDIT, EDITED, RUN, RAN, boundary, summary][..],
            // Not written at all.
            &[ASKED, EDIT, EDITED, boundary, summary],
        ] {
            let mut ex = Extractor::new(Part::Compacted)
                .with_reported_calls(&[failed_test_run(20_000)], Some(written));
            for r in recs(lines).into_iter().rev() {
                ex.take_record(r);
            }
            let list = shown(&ex.finish(Searched::default()));
            let run = ("sh run_tests.sh".to_owned(), true, false, Some(101));
            assert_eq!(
                list.iter().filter(|a| **a == run).count(),
                1,
                "{lines:?}: {list:?}"
            );
            assert_eq!(list.len(), 2, "{list:?}");
        }
    }

    #[test]
    fn rewound_branch_prompts_do_not_count() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"first"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"text","text":"ok"}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"content":"abandoned idea"}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"content":[{"type":"text","text":"sure"}]}}"#,
            r#"{"type":"user","uuid":"u3","parentUuid":"a1","message":{"content":"better idea"}}"#,
        ]);
        assert_eq!(extract(&r).instructions, vec!["first", "better idea"]);
    }

    #[test]
    fn local_command_linked_to_meta_caveat_is_not_a_rewind() {
        let r = recs(&[
            r#"{"type":"user","uuid":"c","isMeta":true,"message":{"content":"Caveat: The messages below were generated by the user while running local commands."}}"#,
            r#"{"type":"user","uuid":"u1","parentUuid":"c","message":{"content":"real work"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"text","text":"done"}]}}"#,
            r#"{"type":"user","uuid":"m","parentUuid":"c","message":{"content":"<user-memory-input>use conventional commits</user-memory-input>"}}"#,
            r#"{"type":"user","uuid":"e","parentUuid":"c","message":{"content":"<command-name>/export</command-name>"}}"#,
        ]);
        assert_eq!(
            extract(&r).instructions,
            vec!["real work", "(saved to memory) use conventional commits"]
        );
    }

    #[test]
    fn missing_links_are_bridged_in_file_order() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","parentUuid":"gone","message":{"content":"one"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"also-gone","message":{"content":"two"}}"#,
        ]);
        assert_eq!(extract(&r).instructions, vec!["one", "two"]);
    }

    #[test]
    fn resent_prompt_counts_once() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"do it"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            r#"{"type":"user","uuid":"u3","parentUuid":"u2","message":{"content":"do it"}}"#,
        ]);
        assert_eq!(extract(&r).instructions, vec!["do it"]);
    }

    #[test]
    fn keeps_latest_five_oldest_first() {
        let lines: Vec<String> = (1..=8)
            .map(|i| format!(r#"{{"type":"user","uuid":"u{i}","parentUuid":"u{}","message":{{"content":"p{i}"}}}}"#, i - 1))
            .collect();
        let r: Vec<Record> = lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect();
        assert_eq!(extract(&r).instructions, vec!["p4", "p5", "p6", "p7", "p8"]);
    }

    #[test]
    fn errored_todowrite_is_ignored() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"go"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"real","status":"in_progress"}]}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"TodoWrite","input":{"todos":[{"content":"bogus","status":"pending"}]}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"No such tool available: TodoWrite"}]}}"#,
        ]);
        let ex = extract(&r);
        assert_eq!(ex.tasks.len(), 1);
        assert_eq!(ex.tasks[0].content, "real");
        assert!(ex.actions.is_empty(), "task tools are not actions");
    }

    #[test]
    fn task_tools_replayed_with_ids_from_results() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"go"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"c1","name":"TaskCreate","input":{"subject":"alpha"}},{"type":"tool_use","id":"c2","name":"TaskCreate","input":{"subject":"beta"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"Task #4 created successfully: alpha"},{"type":"tool_result","tool_use_id":"c2","content":"Task #5 created successfully: beta"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"u1","name":"TaskUpdate","input":{"taskId":"5","status":"in_progress"}},{"type":"tool_use","id":"u2","name":"TaskUpdate","input":{"taskId":"4","status":"completed"}}]}}"#,
        ]);
        let ex = extract(&r);
        assert_eq!(
            ex.tasks,
            vec![
                Task {
                    content: "alpha".into(),
                    status: Status::Completed
                },
                Task {
                    content: "beta".into(),
                    status: Status::InProgress
                }
            ]
        );
    }

    #[test]
    fn repeated_calls_collapse_and_failures_marked() {
        let mut lines = vec![r#"{"type":"user","message":{"content":"build"}}"#.to_owned()];
        for i in 0..40 {
            lines.push(format!(r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"b{i}","name":"Bash","input":{{"command":"cargo build"}}}}]}}}}"#));
        }
        lines.push(r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"cargo test\n--all"}}]}}"#.to_owned());
        lines.push(r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"Exit code 101\nfailed"}]}}"#.to_owned());
        let r: Vec<Record> = lines
            .iter()
            .filter_map(|l| parse_line(l.as_bytes()))
            .collect();
        let ex = extract(&r);
        assert_eq!(ex.actions.len(), 2);
        assert_eq!(ex.actions[0].count, 40);
        assert_eq!(ex.actions[1].summary, "cargo test\\n--all");
        assert!(ex.actions[1].error);
    }

    #[test]
    fn files_changed_most_recent_first_deduplicated_failures_skipped() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"edit"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Write","input":{"file_path":"/a"}},{"type":"tool_use","id":"2","name":"Edit","input":{"file_path":"/b"}},{"type":"tool_use","id":"3","name":"Edit","input":{"file_path":"/a"}},{"type":"tool_use","id":"4","name":"Edit","input":{"file_path":"/c"}},{"type":"tool_use","id":"5","name":"Read","input":{"file_path":"/d"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"4","is_error":true,"content":"String not found"}]}}"#,
        ]);
        assert_eq!(extract(&r).files_changed, vec!["/a", "/b"]);
    }

    #[test]
    fn checklist_latest_state_wins_and_fences_ignored() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"plan"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Plan:\n- [ ] write parser\n- [ ] add tests\n```\n1. not an item\n```"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"- [x] write parser\n- [ ] add tests"}]}}"#,
        ]);
        assert_eq!(
            extract(&r).checklist,
            vec!["- [x] write parser", "- [ ] add tests"]
        );
    }

    #[test]
    fn calls_and_results_without_ids_are_not_paired() {
        let r = recs(&[
            r#"{"type":"user","message":{"content":"go"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"make"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"Exit code 2","is_error":true}]}}"#,
        ]);
        assert!(!extract(&r).actions[0].error);
    }

    #[test]
    fn sidechain_records_are_ignored() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"main prompt"}}"#,
            r#"{"type":"user","uuid":"s1","isSidechain":true,"message":{"content":"subagent task"}}"#,
            r#"{"type":"assistant","uuid":"s2","isSidechain":true,"parentUuid":"s1","message":{"content":[{"type":"tool_use","id":"x","name":"Write","input":{"file_path":"/sub"}}]}}"#,
        ]);
        let ex = extract(&r);
        assert_eq!(ex.instructions, vec!["main prompt"]);
        assert!(ex.files_changed.is_empty());
    }

    fn compacted(lines: &[&str]) -> Vec<String> {
        extract_part(&recs(lines), Part::Compacted).instructions
    }

    #[test]
    fn compacted_part_cuts_only_at_this_compactions_boundary() {
        let before = r#"{"type":"user","uuid":"u1","message":{"content":"before"}}"#;
        let boundary =
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","logicalParentUuid":"u1"}"#;
        let summary = r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued"}}"#;
        let compact_cmd = r#"{"type":"user","uuid":"c","parentUuid":"s","message":{"content":"<command-name>/compact</command-name>"}}"#;
        let after = r#"{"type":"user","uuid":"u2","parentUuid":"s","message":{"content":"after"}}"#;
        let after_reply = r#"{"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"content":[{"type":"text","text":"after reply"}]}}"#;
        // Boundary already written (older CLIs): cut there.
        let ex = extract_part(
            &recs(&[before, boundary, summary, compact_cmd]),
            Part::Compacted,
        );
        assert_eq!(ex.instructions, vec!["before"]);
        // Boundary of an earlier compaction, prompts since: everything was just compacted.
        assert_eq!(
            compacted(&[before, boundary, summary, after, after_reply]),
            vec!["before", "after"]
        );
        // No boundary yet (2.1.3xx at SessionStart time): everything.
        assert_eq!(compacted(&[before]), vec!["before"]);
    }

    #[test]
    fn tasks_finished_before_an_earlier_compaction_stay_finished() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"go"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"tool_use","id":"c1","name":"TaskCreate","input":{"subject":"first"}},{"type":"tool_use","id":"c2","name":"TaskCreate","input":{"subject":"second"}}]}}"#,
            r#"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"Task #1 created successfully: first"},{"type":"tool_result","tool_use_id":"c2","content":"Task #2 created successfully: second"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"content":[{"type":"tool_use","id":"u1","name":"TaskUpdate","input":{"taskId":"1","status":"completed"}}]}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","logicalParentUuid":"a2"}"#,
            r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued. Tasks: first (pending), second (pending)"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"s","message":{"content":"continue"}}"#,
            r#"{"type":"assistant","uuid":"a3","parentUuid":"u2","message":{"content":[{"type":"tool_use","id":"u2","name":"TaskUpdate","input":{"taskId":"2","status":"in_progress"}}]}}"#,
        ]);
        assert_eq!(
            extract(&r).tasks,
            vec![
                Task {
                    content: "first".into(),
                    status: Status::Completed
                },
                Task {
                    content: "second".into(),
                    status: Status::InProgress
                }
            ]
        );
    }

    #[test]
    fn compaction_boundary_is_crossed_and_summary_ignored() {
        let r = recs(&[
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"before compaction"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"text","text":"ok"}]}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a1"}"#,
            r#"{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"This session is being continued from a previous conversation. Summary: all done"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"s","message":{"content":"after compaction"}}"#,
        ]);
        assert_eq!(
            extract(&r).instructions,
            vec!["before compaction", "after compaction"]
        );
    }

    // ---- Approved plans (issue #13). Fixtures shaped like the records the facts file describes:
    // ExitPlanMode {plan} (older) or a plan file read by the CLI with toolUseResult {plan,
    // filePath} (newer), an approving result, and the plan_mode_exit attachment.

    const CALL: &str = r###"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"tool_use","id":"p1","name":"ExitPlanMode","input":{"plan":"# Retry the importer\n1. add backoff\n2. cap retries"}}]}}"###;
    const APPROVED: &str = r###"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"p1","content":"User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nYour plan has been saved to: /home/u/.claude/plans/brave-otter.md\nYou can refer back to it if needed during implementation."}]},"toolUseResult":{"plan":"# Retry the importer\n1. add backoff\n2. cap retries","filePath":"/home/u/.claude/plans/brave-otter.md"}}"###;
    const PROMPT: &str =
        r###"{"type":"user","uuid":"u1","message":{"content":"plan the importer fix"}}"###;

    #[test]
    fn approved_plan_survives_with_title_and_file() {
        let ex = extract(&recs(&[PROMPT, CALL, APPROVED]));
        let plan = ex.plan.expect("approved plan kept");
        assert_eq!(plan.title, "Retry the importer");
        assert_eq!(
            plan.file.as_deref(),
            Some("/home/u/.claude/plans/brave-otter.md")
        );
        assert!(plan.text.unwrap().contains("cap retries"));
    }

    #[test]
    fn plan_read_from_its_file_comes_from_tool_use_result() {
        // Newer CLIs: ExitPlanMode takes no plan argument; the result record carries it.
        let call = r###"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"tool_use","id":"p1","name":"ExitPlanMode","input":{}}]}}"###;
        let approved = r###"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"p1","content":"User has approved your plan. You can now start coding."}]},"toolUseResult":{"plan":"## Split the parser\nsteps","filePath":"/p/split.md"}}"###;
        let plan = extract(&recs(&[PROMPT, call, approved])).plan.unwrap();
        assert_eq!(
            (plan.title.as_str(), plan.file.as_deref()),
            ("Split the parser", Some("/p/split.md"))
        );
    }

    #[test]
    fn plan_mode_exit_attachment_names_the_file() {
        let approved = r###"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"p1","content":"User has approved your plan. You can now start coding."}]}}"###;
        let exit = r###"{"type":"attachment","uuid":"x1","parentUuid":"r1","attachment":{"type":"plan_mode_exit","planFilePath":"/p/from-attachment.md","planExists":true}}"###;
        let plan = extract(&recs(&[PROMPT, CALL, approved, exit]))
            .plan
            .unwrap();
        assert_eq!(plan.file.as_deref(), Some("/p/from-attachment.md"));
        assert_eq!(plan.title, "Retry the importer");
    }

    #[test]
    fn rejected_plan_is_not_shown() {
        let rejected = r###"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"p1","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected."}]}}"###;
        assert_eq!(extract(&recs(&[PROMPT, CALL, rejected])).plan, None);
        // ExitPlanMode is disabled in -p mode: the error result is no approval either.
        let disabled = r###"{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"p1","is_error":true,"content":"<tool_use_error>No such tool available: ExitPlanMode</tool_use_error>"}]}}"###;
        assert_eq!(extract(&recs(&[PROMPT, CALL, disabled])).plan, None);
    }

    #[test]
    fn subagent_plan_is_not_shown() {
        let side = |l: &str| l.replacen("{\"type\"", "{\"isSidechain\":true,\"type\"", 1);
        let ex = extract(&recs(&[PROMPT, &side(CALL), &side(APPROVED)]));
        assert_eq!(ex.plan, None);
    }

    #[test]
    fn superseded_plan_is_not_shown() {
        let call2 = r###"{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"content":[{"type":"tool_use","id":"p2","name":"ExitPlanMode","input":{"plan":"# Rewrite the importer instead\n1. new crate"}}]}}"###;
        let approved2 = r###"{"type":"user","uuid":"r2","parentUuid":"a2","message":{"content":[{"type":"tool_result","tool_use_id":"p2","content":"User has approved your plan. You can now start coding."}]}}"###;
        let plan = extract(&recs(&[PROMPT, CALL, APPROVED, call2, approved2]))
            .plan
            .unwrap();
        assert_eq!(plan.title, "Rewrite the importer instead");
        assert_eq!(
            plan.file, None,
            "the older plan's file is not the newer plan's"
        );
    }

    #[test]
    fn approval_whose_call_was_not_read_still_counts() {
        let plan = extract(&recs(&[PROMPT, APPROVED])).plan.unwrap();
        assert_eq!(plan.title, "Retry the importer");
    }

    #[test]
    fn commit_behind_full_actions_and_replies_is_found_through_the_byte_triage() {
        // Once the recent actions and replies are full and the last runs of checks looked for
        // far enough, lines are triaged from their bytes: only the wants table's rows (here, a
        // commit's call and git's report) are still parsed.
        let mut lines = vec![
            r#"{"type":"user","uuid":"u0","message":{"content":"ship it"}}"#.to_owned(),
            r#"{"type":"assistant","uuid":"g1","parentUuid":"u0","message":{"content":[{"type":"tool_use","id":"gc","name":"Bash","input":{"command":"git commit -am 'Ship it'"}}]}}"#.to_owned(),
            r#"{"type":"user","uuid":"g2","parentUuid":"g1","message":{"content":[{"type":"tool_result","tool_use_id":"gc","content":"[main 1a2b3c4] Ship it\n 1 file changed, 1 insertion(+)"}]}}"#.to_owned(),
        ];
        let mut parent = "g2".to_owned();
        for i in 0..(facts::FACT_CALLS as usize).max(MAX_ACTIONS + CHECKLIST_MESSAGES) + 5 {
            let (call, reply) = (format!("c{i}"), format!("r{i}"));
            lines.push(format!(r#"{{"type":"assistant","uuid":"{call}","parentUuid":"{parent}","message":{{"content":[{{"type":"tool_use","id":"t{i}","name":"Read","input":{{"file_path":"/f{i}"}}}}]}}}}"#));
            lines.push(format!(r#"{{"type":"assistant","uuid":"{reply}","parentUuid":"{call}","message":{{"content":[{{"type":"text","text":"read f{i}"}}]}}}}"#));
            parent = reply;
        }
        // The reader asks what is wanted once a chunk; here, before every line.
        let mut fold = Extractor::new(Part::Whole);
        let mut links = 0;
        for line in lines.iter().rev() {
            match crate::read::record::triage(line.as_bytes(), fold.wants()) {
                crate::read::record::Triage::Parse => {
                    fold.record(parse_line(line.as_bytes()).unwrap())
                }
                crate::read::record::Triage::Link(l) => {
                    links += 1;
                    fold.link(l);
                }
                crate::read::record::Triage::Skip => {}
            }
        }
        assert!(links >= 2, "the triage was in use");
        let got = fold
            .finish(Searched::default())
            .last_commit
            .map(|c| c.report);
        assert_eq!(got.as_deref(), Some("[main 1a2b3c4] Ship it"));
        let reference = extract(&recs(&lines.iter().map(String::as_str).collect::<Vec<_>>()));
        assert_eq!(reference.last_commit.map(|c| c.report), got);
    }

    #[test]
    fn rebuild_without_a_boundary_stops_once_a_prompt_settles_it() {
        // 2.1.3xx runs restore before writing the boundary: a prompt met first means any older
        // boundary is an earlier compaction's, so the rebuild need not read to the file's start.
        let mut ex = Extractor::new(Part::Compacted);
        for (i, r) in recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"one"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","message":{"content":"two"}}"#,
            r#"{"type":"user","uuid":"u3","parentUuid":"u2","message":{"content":"three"}}"#,
            r#"{"type":"user","uuid":"u4","parentUuid":"u3","message":{"content":"four"}}"#,
            r#"{"type":"user","uuid":"u5","parentUuid":"u4","message":{"content":"five"}}"#,
            r#"{"type":"assistant","uuid":"a5","parentUuid":"u5","message":{"content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[]}}]}}"#,
        ])
        .into_iter()
        .enumerate()
        .rev()
        {
            ex.record(r);
            ex.scanned(MIN_WINDOW + i as u64);
        }
        assert!(ex.satisfied(), "no need to read on for a boundary");
    }

    #[test]
    fn rebuild_recent_window_restarts_at_this_compactions_boundary() {
        let mut ex = Extractor::new(Part::Compacted);
        ex.scanned(20 * 1024 * 1024); // far from the end already
        for r in recs(&[
            r#"{"type":"user","uuid":"u1","message":{"content":"before"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","logicalParentUuid":"a1"}"#,
        ])
        .into_iter()
        .rev()
        {
            ex.record(r);
        }
        let got = ex.finish(Searched::default());
        assert_eq!(got.instructions, vec!["before"]);
        assert_eq!(
            got.actions.len(),
            1,
            "actions of the compacted part are recent to it"
        );
    }
}
