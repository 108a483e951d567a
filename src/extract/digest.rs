//! What `save` protected, kept beside the snapshot for the PostCompact audit: the open items with
//! their state, the finished ones, the latest instruction, the plan's title, the record's facts
//! (`facts`: each check's last run, each file's writes, each kind of action's attempts), the
//! files changed, and enough of the transcript's state to bring it up to the compaction. The
//! judge (`corrections`) reads nothing else of the record. Read back from disk it may be damaged
//! or planted: [`Digest::read`] bounds it.

use super::facts::{self, Facts};
use super::tasks::Status;
use super::{Extraction, checklist_item, checklist_open};
use crate::read::record::Format;
use crate::text::folded_line;
use serde::{Deserialize, Serialize};

/// The most open items a digest keeps (the snapshot shows fewer).
pub(crate) const MAX_ITEMS: usize = 30;
/// The most characters of one item, of the latest instruction, of the plan title.
const ITEM_CHARS: usize = 200;
const INSTRUCTION_CHARS: usize = 2_000;
/// The most actions an old digest's facts are read from.
const MAX_ACTIONS: usize = 40;
/// The most files a digest keeps, and the longest text of a fact.
const MAX_FILES: usize = 50;
const FACT_CHARS: usize = 300;
/// The longest output a check's run keeps in a digest.
const OUTPUT_CHARS: usize = 800;
/// What `save` protected, kept for the PostCompact hook.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// Seconds since the Unix epoch when `save` ran.
    pub saved_at: u64,
    /// Whether a snapshot was written.
    pub saved: bool,
    /// `tasks` or `checklist items`: what [`Digest::open`] lists.
    pub open_kind: String,
    /// The open items, as the snapshot shows them.
    pub open: Vec<String>,
    /// The unchecked boxes of the agent's newest checklist, when [`Digest::open`] lists tasks:
    /// open work too, of another kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<String>,
    /// The tasks the task list has completed: a sentence that names one of these as well as an
    /// open item may be about either, and calls neither done for certain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub done: Vec<String>,
    /// The user's latest instruction (bounded).
    pub latest: Option<String>,
    /// The approved plan's title.
    pub plan: Option<String>,
    /// Each open item's state (`in_progress`, `pending`; empty for checklist items), in the
    /// order of [`Digest::open`]: what a correction says about it.
    #[serde(default)]
    pub states: Vec<String>,
    /// The record's facts (D089): each check's last run, each file's writes, each kind of
    /// action's attempts. The evidence for claims about checks, edits, commits and the like.
    #[serde(default)]
    pub facts: Facts,
    /// The last actions, as digests kept them before the facts were kept (read, never written):
    /// their facts are read from them ([`Digest::bounded`]).
    #[serde(default, skip_serializing)]
    pub actions: Vec<crate::extract::Action>,
    /// The files changed, as the snapshot lists them.
    #[serde(default)]
    pub files: Vec<String>,
    /// The client that wrote the transcript (`codex` or `claude`), whose hook order the audit
    /// must tell the truth about.
    #[serde(default)]
    pub client: Option<String>,
    /// How long the transcript was when `save` read it: a restore that finds it longer brings the
    /// snapshot up to the compaction (a result written while PreCompact ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_len: Option<u64>,
    /// The compaction's trigger and focus text, as `save` rendered them, for that update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The `/compact` focus text.
    pub focus: Option<String>,
}

/// The largest digest read back (one is a few KB).
pub(crate) const MAX_DIGEST_BYTES: u64 = 64 * 1024;

impl Digest {
    /// What was protected, for the PostCompact audit: the open tasks (or, without a task list, the
    /// unchecked checklist items), the latest instruction, the plan's title, the facts. `saved`:
    /// a snapshot was written.
    pub fn of(ex: &Extraction, format: Format, saved: bool) -> Digest {
        let (open_kind, items) = ex.open_work();
        let open = items.iter().map(|(text, _)| (*text).to_owned()).collect();
        let states = items
            .iter()
            .map(|(_, status)| match status {
                Some(Status::InProgress) => "in_progress".to_owned(),
                Some(Status::Pending) => "pending".to_owned(),
                _ => String::new(),
            })
            .collect();
        Digest {
            saved_at: crate::platform::now(),
            saved,
            open_kind: open_kind.to_owned(),
            open,
            // With open tasks, the checklist's unchecked boxes are open work as well.
            unchecked: if open_kind == "tasks" {
                ex.checklist
                    .iter()
                    .filter(|c| checklist_open(c))
                    .map(|c| checklist_item(c).to_owned())
                    .collect()
            } else {
                Vec::new()
            },
            // What is finished, to tell a sentence about it from one about an open item.
            done: ex
                .tasks
                .iter()
                .filter(|t| t.status == Status::Completed)
                .map(|t| t.content.clone())
                .chain(
                    ex.checklist
                        .iter()
                        .filter(|c| !checklist_open(c))
                        .map(|c| checklist_item(c).to_owned()),
                )
                .collect(),
            // The audit must not hold the summary to an older prompt than the user's newest.
            latest: ex
                .instructions
                .last()
                .filter(|_| ex.unread_prompt.is_none())
                .cloned(),
            plan: ex.plan.as_ref().map(|p| p.title.clone()),
            states,
            facts: ex.facts.clone(),
            actions: Vec::new(),
            files: ex.files_changed.clone(),
            client: Some(match format {
                Format::Codex => "codex".to_owned(),
                Format::OpenCode => "opencode".to_owned(),
                Format::ClaudeCode => "claude".to_owned(),
            }),
            transcript_len: None,
            trigger: None,
            focus: None,
        }
        .bounded()
    }

    /// This digest with its evidence (open items, finished ones, actions, files) replaced by
    /// `newer`'s, read later from the same record: what the record gained after `save` ran
    /// (a result written while PreCompact ran, a summary precomputed earlier) counts.
    pub(crate) fn with_evidence_of(self, newer: Digest) -> Digest {
        Digest {
            open_kind: newer.open_kind,
            open: newer.open,
            unchecked: newer.unchecked,
            done: newer.done,
            states: newer.states,
            facts: newer.facts,
            files: newer.files,
            ..self
        }
    }

    /// A digest read back from disk: as written, or damaged or planted, so bounded and cleaned
    /// either way (`None` when it does not parse).
    pub fn read(bytes: &[u8]) -> Option<Digest> {
        serde_json::from_slice::<Digest>(bytes)
            .ok()
            .map(Digest::bounded)
    }

    /// A digest bounded for storage: items, instruction and title cut, at most `MAX_ITEMS`.
    pub fn bounded(mut self) -> Digest {
        // Read back from disk, a digest may be damaged or planted: only the two kinds `save`
        // writes reach the user's message.
        if !matches!(self.open_kind.as_str(), "tasks" | "checklist items") {
            self.open_kind = "tasks".to_owned();
        }
        self.open.truncate(MAX_ITEMS);
        for item in &mut self.open {
            *item = folded_line(item, ITEM_CHARS);
        }
        self.unchecked.truncate(MAX_ITEMS);
        for item in &mut self.unchecked {
            *item = folded_line(item, ITEM_CHARS);
        }
        self.done.truncate(MAX_ITEMS);
        for item in &mut self.done {
            *item = folded_line(item, ITEM_CHARS);
        }
        self.latest = self
            .latest
            .map(|l| l.chars().take(INSTRUCTION_CHARS).collect());
        self.plan = self.plan.map(|p| folded_line(&p, ITEM_CHARS));
        self.states.truncate(self.open.len());
        for s in &mut self.states {
            if !matches!(s.as_str(), "in_progress" | "pending") {
                s.clear();
            }
        }
        if self.facts == Facts::default() && !self.actions.is_empty() {
            self.actions.truncate(MAX_ACTIONS);
            self.facts = Facts::of_actions(&std::mem::take(&mut self.actions));
        }
        self.actions.clear();
        self.facts = bounded_facts(self.facts);
        self.files.truncate(MAX_FILES);
        for f in &mut self.files {
            *f = folded_line(f, FACT_CHARS);
        }
        if !matches!(
            self.client.as_deref(),
            Some("codex" | "claude" | "opencode")
        ) {
            self.client = None;
        }
        self.trigger = self.trigger.map(|t| folded_line(&t, 20));
        self.focus = self
            .focus
            .map(|f| f.chars().take(INSTRUCTION_CHARS).collect());
        self
    }
}

/// Facts read back from disk, bounded as the fold bounds them.
fn bounded_facts(mut f: Facts) -> Facts {
    let cut = |s: &mut String, n: usize| *s = folded_line(s, n);
    f.checks.truncate(facts::MAX_CHECKS);
    for r in &mut f.checks {
        cut(&mut r.command, FACT_CHARS);
        cut(&mut r.why, FACT_CHARS);
        r.output = crate::text::cut_to(&r.output, OUTPUT_CHARS).0;
        r.words.truncate(64);
        r.scope.truncate(64);
        for w in r.words.iter_mut().chain(r.scope.iter_mut()) {
            cut(w, 100);
        }
    }
    f.files.truncate(facts::MAX_FILES);
    for file in &mut f.files {
        cut(&mut file.path, FACT_CHARS);
        if let Some(w) = &mut file.last {
            cut(&mut w.tool, 60);
            cut(&mut w.why, FACT_CHARS);
        }
    }
    f.acts.sort_by_key(|a| a.kind);
    f.acts.dedup_by_key(|a| a.kind);
    for a in &mut f.acts {
        cut(&mut a.last.command, FACT_CHARS);
    }
    if let Some(a) = &mut f.last_failure {
        cut(&mut a.summary, FACT_CHARS);
        cut(&mut a.why, FACT_CHARS);
        a.output = crate::text::cut_to(&a.output, OUTPUT_CHARS).0;
    }
    f
}
