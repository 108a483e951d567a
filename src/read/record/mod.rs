//! One transcript line turned into a small, owned [`Record`] holding only what extraction uses.
//!
//! Parsing borrows from the line and skips every field it does not name, so a 1 MB tool result or
//! image costs a scan, not an allocation. Strings that are kept are bounded (`json::MAX_TEXT`), so
//! memory depends on how many records are kept, never on how long a line was. Any line that is not
//! a JSON object is `None`: the caller skips it.
//!
//! This module holds what the formats share (the record, the triage verdicts) and sends each
//! line to its reader: `claude.rs` for Claude Code transcripts, `codex.rs` for Codex rollouts,
//! `opencode.rs` for the excerpts the OpenCode plugin writes (a rollout or excerpt line is
//! recognised by its start, so no file-level detection).

use crate::input::client::Client;
use crate::json::floor_char_boundary;
use crate::read::wants::Wants;
use serde::Serialize;

/// A short, stable fingerprint of a record `uuid` (64 bits). Keeping 8 bytes instead of a
/// 36-byte string per record keeps the parent-chain index small on huge scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(pub u64);

impl Id {
    /// Fingerprint of an id string.
    pub fn of(s: &str) -> Id {
        Id::of_bytes(s.as_bytes())
    }

    /// Fingerprint of an id's bytes (as read from a raw line). Eight bytes a step: the raw-line
    /// triage hashes two ids per line, and a byte-at-a-time hash was a tenth of its cost.
    pub(crate) fn of_bytes(s: &[u8]) -> Id {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h = (s.len() as u64).wrapping_mul(K);
        let mut words = s.chunks_exact(8);
        for w in &mut words {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            h = (h ^ w).wrapping_mul(K).rotate_left(27);
        }
        // The last bytes are assembled in a register: copied into a stack buffer and read back as
        // one word, they stalled that read (narrow stores do not forward to a wide load), which
        // was a third of the triage of short records. Same value as the zero-padded word.
        let mut last = 0u64;
        for (i, &b) in words.remainder().iter().enumerate() {
            last |= u64::from(b) << (8 * i);
        }
        h = (h ^ last).wrapping_mul(K);
        Id(h ^ (h >> 31))
    }
}

/// What kind of line this was, reduced to what extraction distinguishes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordKind {
    /// `type: user` (prompts, tool results, injected text).
    User,
    /// `type: assistant`.
    Assistant,
    /// `type: system, subtype: compact_boundary`: a compaction happened here.
    CompactBoundary,
    /// `type: attachment` with `attachment.type: queued_command`: a prompt typed while the agent
    /// was busy, in CLI 2.1.x.
    QueuedPrompt,
    /// `type: attachment` with `attachment.type: plan_mode_exit` (CLI 2.1.1xx+): the agent left
    /// plan mode; names the plan file.
    PlanExit,
    /// `type: tools-used` (CLI 2.1.3xx): the tools the session has used so far, a list that only
    /// grows; `task_tools` when it names a tool that changes the task list.
    ToolsUsed {
        /// It names `TodoWrite`, `TaskCreate` or `TaskUpdate`.
        task_tools: bool,
    },
    /// Anything else that carries a `uuid` (attachments, other system records, progress, ...).
    /// Kept only so the parent chain stays connected.
    Other,
}

mod claude;
mod codex;
mod opencode;

/// Which client wrote a transcript: how its lines are read. What the client expects of the hooks
/// is `input::client::Client`'s (`Client::from(format)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A Claude Code session transcript.
    #[default]
    ClaudeCode,
    /// A Codex CLI rollout.
    Codex,
    /// An OpenCode session, as the excerpt its plugin writes (D050).
    #[serde(rename = "opencode")]
    OpenCode,
}

impl From<Format> for Client {
    /// The client that writes transcripts of this format.
    fn from(format: Format) -> Client {
        match format {
            Format::ClaudeCode => Client::ClaudeCode,
            Format::Codex => Client::Codex,
            Format::OpenCode => Client::OpenCode,
        }
    }
}

impl Format {
    /// The format a transcript's first line shows.
    pub(crate) fn of_first_line(line: &[u8]) -> Format {
        if codex::is_rollout_line(line) {
            Format::Codex
        } else if opencode::is_excerpt_line(line) {
            Format::OpenCode
        } else {
            Format::ClaudeCode
        }
    }
}

/// A tool call made by the assistant, reduced to its name and the arguments extraction uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolUse {
    /// The `tool_use` block id, matched against results.
    pub id: String,
    /// Tool name (`Bash`, `Edit`, `mcp__x__y`, ...).
    pub name: String,
    /// The most telling argument (file path, command, pattern, ...), bounded.
    pub key_arg: Option<String>,
    /// The files this call writes: Edit, Write, MultiEdit and NotebookEdit name one, a Codex
    /// `apply_patch` several.
    pub written: Vec<String>,
    /// The whole list a `TodoWrite` call carries.
    pub todos: Option<Vec<TodoItem>>,
    /// `TaskCreate`/`TaskUpdate` arguments.
    pub task: Option<TaskArgs>,
    /// The plan an `ExitPlanMode` call presents (older CLIs pass it as an argument), bounded.
    pub plan: Option<String>,
    /// The kind of sub-agent a `Task`/`Agent` call starts (`subagent_type`): a read-only one
    /// (`Explore`, `Plan`) changes nothing the record would miss.
    pub agent: Option<String>,
}

/// One `TodoWrite` item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TodoItem {
    /// What the task is.
    pub content: String,
    /// `pending`, `in_progress` or `completed` (anything else is kept verbatim).
    pub status: String,
}

/// Arguments of `TaskCreate` / `TaskUpdate`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskArgs {
    /// `taskId` (updates only).
    pub task_id: Option<String>,
    /// `subject` (creation, optionally update).
    pub subject: Option<String>,
    /// `status` (updates; `deleted` removes the task).
    pub status: Option<String>,
}

/// A tool result as delivered in a later user record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolResult {
    /// Which call it answers.
    pub tool_use_id: String,
    /// The CLI marked it as an error (rejected call, non-zero exit, ...).
    pub is_error: bool,
    /// The first few hundred characters of its text (task ids and exit codes live there).
    pub head: String,
    /// The last few hundred characters of its text, from a line start (a test runner's result
    /// line lives there); the whole text when it is that short.
    pub tail: String,
    /// The command's exit code, when the result states it.
    pub exit: Option<i32>,
    /// The plan file an approved `ExitPlanMode` result names ("Your plan has been saved to: ...").
    pub plan_file: Option<String>,
    /// The command was started and is still running: a background start ("Command running in
    /// background with ID: ..."), or a Codex command that had not ended when its output was
    /// written ("Process running with session ID ..."). How it ends is not in this result.
    pub running: bool,
    /// The result states no exit status where its client always states one (a Codex command's
    /// output without "Exit code"/"Process exited with code" or `success`, as a Codex hook may
    /// report it): how the command ended is unknown, never assumed a success.
    pub unstated: bool,
}

/// What a record's `toolUseResult` says about an approved plan (CLI 2.1.x: `{plan, filePath}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanResult {
    /// The plan text, bounded.
    pub plan: String,
    /// The plan file.
    pub file: Option<String>,
}

/// A transcript record, owned and bounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// What kind of record.
    pub kind: RecordKind,
    /// Its `uuid`.
    pub uuid: Option<Id>,
    /// Its `uuid` as written, for records that may be a prompt (user and queued records): how a
    /// cut instruction is found again in the transcript.
    pub uuid_text: Option<Box<str>>,
    /// `parentUuid`, or for a compaction boundary its `logicalParentUuid`.
    pub parent: Option<Id>,
    /// `isSidechain`: subagent traffic, never the user's own conversation.
    pub sidechain: bool,
    /// `isMeta`: injected text (skill and command expansions, caveats, `/context` output).
    pub meta: bool,
    /// `isCompactSummary` or `isVisibleInTranscriptOnly`: the compaction summary.
    pub compact_summary: bool,
    /// `isApiErrorMessage`.
    pub api_error: bool,
    /// `origin.kind` in CLI 2.1.2xx+ (`human`, `task-notification`, ...).
    pub origin: Option<String>,
    /// `promptSource` in CLI 2.1.2xx+ (`typed`, `queued`, `suggestion_accepted`, `sdk`, `system`).
    pub prompt_source: Option<String>,
    /// `cwd` (user and assistant records only).
    pub cwd: Option<Box<str>>,
    /// `gitBranch` (user and assistant records only).
    pub git_branch: Option<Box<str>>,
    /// Text: a string `content`, each `text` block, or a queued prompt. Bounded by `json::MAX_TEXT`.
    pub texts: Vec<String>,
    /// Tool calls made by this (assistant) record.
    pub tool_uses: Vec<ToolUse>,
    /// Tool results carried by this (user) record.
    pub tool_results: Vec<ToolResult>,
    /// `toolUseResult` of an approved plan, when the record carries one.
    pub plan_result: Option<PlanResult>,
    /// `planFilePath` of a `plan_mode_exit` attachment (CLI 2.1.1xx+).
    pub plan_file: Option<String>,
}

impl Record {
    /// A record of `kind` with nothing in it yet.
    pub fn empty(kind: RecordKind) -> Record {
        Record {
            kind,
            uuid: None,
            uuid_text: None,
            parent: None,
            sidechain: false,
            meta: false,
            compact_summary: false,
            api_error: false,
            origin: None,
            prompt_source: None,
            cwd: None,
            git_branch: None,
            texts: Vec::new(),
            tool_uses: Vec::new(),
            tool_results: Vec::new(),
            plan_result: None,
            plan_file: None,
        }
    }
}

/// How much of a plan's text is kept (the snapshot shows an excerpt; the file has the rest).
pub(crate) const KEEP_PLAN: usize = 8 * 1024;

/// A record's place in the parent chain, read from the raw line without parsing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// Its `uuid`.
    pub uuid: Id,
    /// Its `parentUuid`.
    pub parent: Option<Id>,
    /// `isMeta: true`.
    pub meta: bool,
}

/// What the reader does with a line, decided from its raw bytes before any parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triage {
    /// Nothing in it can matter, not even its place in the chain.
    Skip,
    /// Only its place in the parent chain matters.
    Link(Link),
    /// It may matter: parse it.
    Parse,
}

/// Decides from the raw bytes of a line whether it must be parsed, given what is still wanted.
/// Conservative: a line is only skipped or reduced to its link on positive evidence; anything
/// unusual is parsed. Most lines of a long autonomous session are tool calls, tool results and
/// bookkeeping, and this keeps the backward scan near `grep` speed over them.
pub fn triage(line: &[u8], wants: Wants) -> Triage {
    if codex::is_rollout_line(line) {
        return codex::triage(line, wants);
    }
    if opencode::is_excerpt_line(line) {
        return opencode::triage(line);
    }
    claude::triage(line, wants)
}

/// Parses one line. Lines that are not JSON objects, or that fail to parse, are `None`.
pub fn parse_line(line: &[u8]) -> Option<Record> {
    let line = trim_line(line);
    if codex::is_rollout_line(line) {
        return codex::parse(line);
    }
    if opencode::is_excerpt_line(line) {
        return opencode::parse(line);
    }
    claude::parse(line)
}

/// Strips a byte-order mark, surrounding whitespace and a CR left by CRLF line endings.
fn trim_line(mut line: &[u8]) -> &[u8] {
    if let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF") {
        line = rest;
    }
    line.trim_ascii()
}

/// At most `max` bytes of `s`, cut at a character boundary.
pub fn bounded(s: &str, max: usize) -> String {
    s[..floor_char_boundary(s, max.min(s.len()))].to_owned()
}

/// The last `max` bytes of `s` at most, from a line start when one lies within them, else from a
/// character boundary.
pub fn bounded_tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut from = s.len() - max;
    while !s.is_char_boundary(from) {
        from += 1;
    }
    let t = &s[from..];
    match t.find('\n') {
        Some(nl) if nl + 1 < t.len() => t[nl + 1..].to_owned(),
        _ => t.to_owned(),
    }
}
