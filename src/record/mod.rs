//! One transcript line turned into a small, owned [`Record`] holding only what extraction uses.
//!
//! Parsing borrows from the line and skips every field it does not name, so a 1 MB tool result or
//! image costs a scan, not an allocation. Strings that are kept are bounded ([`MAX_TEXT`]), so
//! memory depends on how many records are kept, never on how long a line was. Any line that is not
//! a JSON object is `None`: the caller skips it.

use crate::json::{
    LBool, LContent, LList, LObj, LStr, LText, MAX_TEXT, floor_char_boundary, repair_line,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

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
    pub fn of_bytes(s: &[u8]) -> Id {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h = (s.len() as u64).wrapping_mul(K);
        let mut words = s.chunks_exact(8);
        for w in &mut words {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            h = (h ^ w).wrapping_mul(K).rotate_left(27);
        }
        let mut last = [0u8; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        h = (h ^ u64::from_le_bytes(last)).wrapping_mul(K);
        Id(h ^ (h >> 31))
    }
}

/// What kind of line this was, reduced to what extraction distinguishes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
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

mod codex;

/// Which client wrote a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A Claude Code session transcript.
    #[default]
    ClaudeCode,
    /// A Codex CLI rollout.
    Codex,
}

impl Format {
    /// The format a transcript's first line shows.
    pub fn of_first_line(line: &[u8]) -> Format {
        if codex::is_rollout_line(line) {
            Format::Codex
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
    /// The plan file an approved `ExitPlanMode` result names ("Your plan has been saved to: ...").
    pub plan_file: Option<String>,
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
    pub kind: Kind,
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
    /// Text: a string `content`, each `text` block, or a queued prompt. Bounded by [`MAX_TEXT`].
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
    pub fn empty(kind: Kind) -> Record {
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

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawRecord<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    subtype: LStr<'a>,
    #[serde(borrow)]
    uuid: LStr<'a>,
    #[serde(rename = "parentUuid", borrow)]
    parent_uuid: LStr<'a>,
    #[serde(rename = "logicalParentUuid", borrow)]
    logical_parent_uuid: LStr<'a>,
    #[serde(rename = "isSidechain")]
    is_sidechain: LBool,
    #[serde(rename = "isMeta")]
    is_meta: LBool,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: LBool,
    #[serde(rename = "isVisibleInTranscriptOnly")]
    is_visible_in_transcript_only: LBool,
    #[serde(rename = "isApiErrorMessage")]
    is_api_error_message: LBool,
    #[serde(borrow)]
    origin: LObj<RawOrigin<'a>>,
    #[serde(rename = "promptSource", borrow)]
    prompt_source: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(rename = "gitBranch", borrow)]
    git_branch: LStr<'a>,
    #[serde(borrow)]
    message: LObj<RawMessage<'a>>,
    #[serde(borrow)]
    attachment: LObj<RawAttachment<'a>>,
    #[serde(rename = "toolUseResult", borrow)]
    tool_use_result: LObj<RawToolUseResult<'a>>,
    /// `tools-used` records' list, kept raw: only which names it holds matters.
    #[serde(borrow)]
    tools: Option<&'a serde_json::value::RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawToolUseResult<'a> {
    #[serde(borrow)]
    plan: LText<'a, KEEP_PLAN>,
    #[serde(rename = "filePath", borrow)]
    file_path: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawOrigin<'a> {
    #[serde(borrow)]
    kind: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMessage<'a> {
    #[serde(borrow)]
    content: LContent<'a, RawBlock<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawAttachment<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    prompt: LText<'a>,
    #[serde(rename = "planFilePath", borrow)]
    plan_file_path: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    text: LText<'a>,
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    input: LObj<RawInput<'a>>,
    #[serde(borrow)]
    tool_use_id: LStr<'a>,
    is_error: LBool,
    #[serde(borrow)]
    content: LContent<'a, RawResultPart<'a>, KEEP_RESULT_READ>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawResultPart<'a> {
    #[serde(borrow)]
    text: LText<'a, KEEP_RESULT_READ>,
}

/// Tool arguments that matter. Big ones (`content` of Write, `old_string`, ...) are not named and
/// so are skipped without allocation.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawInput<'a> {
    #[serde(borrow)]
    file_path: LStr<'a>,
    #[serde(borrow)]
    notebook_path: LStr<'a>,
    #[serde(borrow)]
    command: LStr<'a>,
    #[serde(borrow)]
    pattern: LStr<'a>,
    #[serde(borrow)]
    path: LStr<'a>,
    #[serde(borrow)]
    url: LStr<'a>,
    #[serde(borrow)]
    query: LStr<'a>,
    #[serde(borrow)]
    skill: LStr<'a>,
    #[serde(borrow)]
    subject: LStr<'a>,
    #[serde(borrow)]
    description: LStr<'a>,
    #[serde(borrow)]
    prompt: LStr<'a>,
    #[serde(rename = "taskId", borrow)]
    task_id: LStr<'a>,
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(borrow)]
    todos: LList<RawTodo<'a>>,
    #[serde(borrow)]
    plan: LText<'a, KEEP_PLAN>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTodo<'a> {
    #[serde(borrow)]
    content: LStr<'a>,
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(rename = "activeForm", borrow)]
    active_form: LStr<'a>,
}

/// Tools whose calls change a file on disk, and the argument naming it.
const WRITING_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// How much of a tool's key argument is kept.
const KEEP_ARG: usize = 400;
/// How an approved plan's result begins ("User has approved your plan. You can now start coding").
pub const PLAN_APPROVED: &str = "approved your plan";
/// How much of a tool result's text is kept.
const KEEP_RESULT_HEAD: usize = 160;
/// How much of a tool result's text is read: a plan approval names its file after ~150 bytes.
const KEEP_RESULT_READ: usize = 1024;
/// How much of a plan's text is kept (the snapshot shows an excerpt; the file has the rest).
pub const KEEP_PLAN: usize = 8 * 1024;

/// The tools whose calls change the task list.
pub const TASK_LIST_TOOLS: [&str; 3] = ["TodoWrite", "TaskCreate", "TaskUpdate"];

/// Whether raw JSON text names one of [`TASK_LIST_TOOLS`] (anything unreadable counts as yes).
fn names_task_tool(raw: &[u8]) -> bool {
    TASK_LIST_TOOLS
        .iter()
        .any(|t| memchr::memmem::find(raw, t.as_bytes()).is_some())
}

/// Record types that never matter here, recognised when `type` is the line's first key (as the CLI
/// writes them): API bookkeeping, file history, titles, modes, queue and cost state, old titles.
const IGNORED_TYPES: &[&str] = &[
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "file-history-snapshot",
    "file-history-delta",
    "last-prompt",
    "ai-title",
    "custom-title",
    "agent-name",
    "mode",
    "permission-mode",
    "cost-state",
    "atis-latch",
    "queue-operation",
    "bridge-session",
    "worktree-state",
    "summary",
];

/// A cheap look at the start of a line: true when the line certainly cannot matter, so it need
/// not be parsed. Bookkeeping records (a third of a 2.1.3xx transcript's bytes) and subagent
/// records (`isSidechain: true`, written right after `parentUuid`) qualify. Anything else, a
/// different key order included, is left to the parser.
pub fn can_skip(line: &[u8]) -> bool {
    can_skip_with(line, first_key_type(line))
}

/// [`can_skip`] given the line's [`first_key_type`], which the triage reads once for both uses.
fn can_skip_with(line: &[u8], first_type: Option<&[u8]>) -> bool {
    if let Some(name) = first_type {
        return IGNORED_TYPES.iter().any(|t| t.as_bytes() == name);
    }
    let head = &line[..line.len().min(160)];
    head.starts_with(PARENT_FIRST) && pat::SIDECHAIN.find(head).is_some()
}

/// The record types whose lines can hold more than their place in the parent chain (see
/// `convert`): every other type is `Kind::Other`.
const CONVERSATION_TYPES: &[&[u8]] = &[
    b"user",
    b"assistant",
    b"system",
    b"attachment",
    b"tools-used",
];

/// The value of `type` when it is the line's first key (bookkeeping records as the CLI writes
/// them), escape-free.
fn first_key_type(line: &[u8]) -> Option<&[u8]> {
    string_value(line.strip_prefix(b"{\"type\":")?)
}

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

/// What the extraction still needs, for [`triage`] and for the reader's choice of how to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Wants {
    /// Prompts (or the newest compaction boundary) are still being looked for: any user,
    /// system or unrecognised line may matter, so every line must be triaged. When false, only
    /// lines that name what is wanted can matter, and the reader may look for those names alone
    /// ([`Wants::needles`]).
    pub lines: bool,
    /// The recent window (actions, files, replies) is still filling: every line may matter.
    pub everything: bool,
    /// Task-tool calls and their results still change the task list.
    pub task_calls: bool,
    /// File-writing calls (and failed results) still add changed files.
    pub files: bool,
    /// An approved plan is still being looked for.
    pub plans: bool,
}

impl Wants {
    /// Byte strings of which a line must hold at least one to matter, when only task or plan
    /// calls are still wanted; `None` when every line must be triaged. The per-line triage still
    /// decides about each line that holds one: this only spares the lines that hold none.
    pub fn needles(&self) -> Option<Vec<&'static [u8]>> {
        if self.lines || self.everything || self.files {
            return None;
        }
        let mut n: Vec<&'static [u8]> = Vec::new();
        if self.task_calls {
            n.extend(TASK_LIST_TOOLS.iter().map(|t| t.as_bytes()));
            n.push(b"update_plan"); // Codex
            // Creation results carry the new id; an error result undoes its call; the CLI's own
            // list of tools used can prove there is nothing further back.
            n.extend([&b"Task #"[..], b"\"is_error\":true", b"\"tools-used\""]);
        }
        if self.plans {
            n.extend([
                &b"ExitPlanMode"[..],
                PLAN_APPROVED.as_bytes(),
                b"plan_mode_exit",
            ]);
        }
        Some(n)
    }
}

/// Byte patterns that can only occur in JSON structure, never inside a JSON string (where every
/// quote is escaped). A line that has none of the interesting ones cannot matter.
mod pat {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;

    /// A byte pattern, built once.
    pub type LazyFinder = LazyLock<Finder<'static>>;

    macro_rules! finders {
        ($($name:ident = $pat:expr;)*) => {
            $(pub static $name: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new($pat));)*
        };
    }
    finders! {
        TASK_CREATED = b"Task #";
        PLAN_APPROVED = super::PLAN_APPROVED.as_bytes();
        SIDECHAIN = b"\"isSidechain\":true";
        TYPE_KEY = b"\"type\"";
    }
}

/// Decides from the raw bytes of a line whether it must be parsed, given what is still wanted.
/// Conservative: a line is only skipped or reduced to its link on positive evidence (compact JSON
/// as the CLI writes it); anything unusual is parsed. Most lines of a long autonomous session are
/// tool calls, tool results and bookkeeping, and this keeps the backward scan near `grep` speed
/// over them: one `memchr` pass over the line's colons reads every structural key it needs.
pub fn triage(line: &[u8], wants: Wants) -> Triage {
    if codex::is_rollout_line(line) {
        return codex::triage(line, wants);
    }
    let first_type = first_key_type(line);
    if can_skip_with(line, first_type) {
        return Triage::Skip;
    }
    // A record of another type, or of none, yields nothing but its place in the chain, even in
    // the recent window: no need to parse a million tiny bookkeeping lines to learn that.
    let other_type = match first_type {
        Some(name) => !CONVERSATION_TYPES.contains(&name),
        None => line.len() <= SHORT_LINE && line.starts_with(b"{\"") && !has_type_key(line),
    };
    if other_type {
        return link_only(&facts_of(line));
    }
    if !line.starts_with(b"{\"") {
        return Triage::Parse;
    }
    if wants.everything {
        // A short record without a single key that carries content is only a link, whatever
        // its type; anything else in the recent window is parsed.
        if line.len() <= SHORT_LINE {
            let f = facts_of(line);
            if !f.payload && f.types.any && !f.types.other {
                return link_only(&f);
            }
        }
        return Triage::Parse;
    }
    let f = facts_of(line);
    let t = &f.types;
    if !t.any && !has_type_key(line) {
        return link_only(&f);
    }
    if !t.any
        || (t.user && !t.tool_result) // a prompt, a summary, injected text
        || t.queued
        || t.system // compaction boundaries among them
        || t.other
        || f.sidechain
        || f.unclear
    {
        return Triage::Parse;
    }
    let has = |f: &pat::LazyFinder| f.find(line).is_some();
    if (wants.task_calls && f.tools.task)
        || (wants.files && f.tools.writing)
        || (wants.plans && (f.tools.plan || t.plan_exit))
        || ((wants.task_calls || wants.files) && f.is_error)
        || (t.tool_result && wants.task_calls && has(&pat::TASK_CREATED))
        || (t.tool_result && wants.plans && has(&pat::PLAN_APPROVED))
    {
        return Triage::Parse;
    }
    match f.uuid {
        None => Triage::Skip,
        Some(uuid) => Triage::Link(Link {
            uuid,
            parent: f.parent,
            meta: f.meta,
        }),
    }
}

/// Lines up to this long are checked for having no type at all before the recent window parses
/// them (longer ones are parsed: the check would cost a pass of its own).
const SHORT_LINE: usize = 1024;

/// Whether the bytes `"type"` occur anywhere: without them the record has no type (whatever the
/// JSON's spacing) and is `Kind::Other`.
fn has_type_key(line: &[u8]) -> bool {
    pat::TYPE_KEY.find(line).is_some()
}

/// The triage of a line whose record can only be `Kind::Other`: its link, if it is clear.
fn link_only(f: &Facts) -> Triage {
    match f.uuid {
        _ if f.unclear => Triage::Parse,
        _ if f.sidechain => Triage::Skip, // never walked (`Extractor::record`)
        None => Triage::Skip,
        Some(uuid) => Triage::Link(Link {
            uuid,
            parent: f.parent,
            meta: f.meta,
        }),
    }
}

/// The `"type"` values a line holds (at any depth), reduced to what triage distinguishes.
#[derive(Default)]
struct Types {
    any: bool,
    user: bool,
    tool_result: bool,
    queued: bool,
    system: bool,
    plan_exit: bool,
    /// A value not known to be harmless: the line is parsed.
    other: bool,
}

/// Which kinds of tool a line names in `"name":"..."`.
#[derive(Default)]
struct ToolNames {
    task: bool,
    writing: bool,
    plan: bool,
}

/// What one pass over a line's structural keys found.
#[derive(Default)]
struct Facts {
    types: Types,
    tools: ToolNames,
    uuid: Option<Id>,
    parent: Option<Id>,
    is_error: bool,
    meta: bool,
    sidechain: bool,
    /// A key that can carry more than the record's link: `message`, `cwd`, `gitBranch`,
    /// `toolUseResult`, `attachment`, `subtype`, `tools` (see `convert`).
    payload: bool,
    /// A key occurred twice where once was expected, or a value had an unexpected form.
    unclear: bool,
}

/// Reads the structural keys of a compact JSON line in one pass over its colons. A key counts only when it is a
/// whole string directly after `{` or `,` and directly before the colon: inside a JSON string
/// every quote is escaped, so text that merely mentions `"type":"user"` never counts.
fn facts_of(line: &[u8]) -> Facts {
    // A short line is cheaper to search eight bytes a step than to set a vector searcher up for.
    if line.len() <= SHORT_COLONS {
        return facts_from(line, SwarColons::new(line));
    }
    // The colon searcher is chosen once: memchr_iter would go through its runtime dispatch on
    // every colon, a tenth of the triage's cost (JSON has a colon every few dozen bytes).
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = &*AVX2_COLON {
        return facts_from(line, avx2.iter(line));
    }
    facts_from(line, memchr::memchr_iter(b':', line))
}

#[cfg(target_arch = "x86_64")]
static AVX2_COLON: std::sync::LazyLock<Option<memchr::arch::x86_64::avx2::memchr::One>> =
    std::sync::LazyLock::new(|| memchr::arch::x86_64::avx2::memchr::One::new(b':'));

/// [`facts_of`] over the given positions of the line's colons.
fn facts_from(line: &[u8], colons: impl Iterator<Item = usize>) -> Facts {
    let mut f = Facts::default();
    let mut uuids = 0;
    let mut parents = 0;
    for colon in colons {
        // A structural key ends `"key":` and starts right after `{` or `,`. Dispatching on the
        // key's last byte keeps the cost per colon to a few compares.
        if colon < 4 || line[colon - 1] != b'"' {
            continue;
        }
        let key = |k: &[u8]| {
            colon > k.len() + 2 && {
                let start = colon - 1 - k.len();
                &line[start..colon - 1] == k
                    && line[start - 1] == b'"'
                    && matches!(line[start - 2], b'{' | b',')
            }
        };
        let value = &line[colon + 1..];
        match line[colon - 2] {
            b'e' if key(b"type") => {
                if let Some(v) = string_value(value) {
                    f.types.any = true;
                    classify_type(v, &mut f.types);
                }
            }
            b'e' if key(b"name") => {
                if let Some(v) = string_value(value) {
                    f.tools.task |= matches!(v, b"TodoWrite" | b"TaskCreate" | b"TaskUpdate");
                    f.tools.writing |= WRITING_TOOLS.iter().any(|w| w.as_bytes() == v);
                    f.tools.plan |= v == b"ExitPlanMode";
                }
            }
            b'd' if key(b"uuid") => {
                uuids += 1;
                match string_value(value) {
                    Some(v) => f.uuid = Some(Id::of_bytes(v)),
                    None => f.unclear = true,
                }
            }
            b'd' if key(b"parentUuid") => {
                parents += 1;
                if !value.starts_with(b"null") {
                    match string_value(value) {
                        Some(v) => f.parent = Some(Id::of_bytes(v)),
                        None => f.unclear = true,
                    }
                }
            }
            // Only boundaries link through it (`convert`): never reduce such a line to a link.
            b'd' if key(b"logicalParentUuid") => f.unclear = true,
            b'r' if key(b"is_error") => f.is_error |= value.starts_with(b"true"),
            b'a' if key(b"isMeta") => f.meta |= value.starts_with(b"true"),
            b'e' if key(b"message") || key(b"subtype") => f.payload = true,
            b't' if key(b"attachment") || key(b"toolUseResult") => f.payload = true,
            b'd' if key(b"cwd") => f.payload = true,
            b'h' if key(b"gitBranch") => f.payload = true,
            b's' if key(b"tools") => f.payload = true,
            b'n' if key(b"isSidechain") => f.sidechain |= value.starts_with(b"true"),
            _ => {}
        }
    }
    // Nested objects with such keys make the record's own ones unclear: parse instead.
    f.unclear |= uuids > 1 || parents > 1;
    f
}

/// The plain (escape-free) string value at the start of `value`, without its quotes.
fn string_value(value: &[u8]) -> Option<&[u8]> {
    let rest = value.strip_prefix(b"\"")?;
    // Values read here are short (types, names, ids): a plain loop beats a vector search.
    let end = match rest[..rest.len().min(SHORT)]
        .iter()
        .position(|&b| b == b'"' || b == b'\\')
    {
        Some(end) => end,
        None => memchr::memchr2(b'"', b'\\', rest)?,
    };
    (rest[end] == b'"').then(|| &rest[..end])
}

/// Below this many bytes a byte loop is faster than `memchr`'s vector set-up.
const SHORT: usize = 64;

fn classify_type(value: &[u8], t: &mut Types) {
    match value {
        b"user" => t.user = true,
        b"tool_result" => t.tool_result = true,
        b"queued_command" => t.queued = true,
        b"system" => t.system = true,
        b"plan_mode_exit" => t.plan_exit = true,
        // Harmless on their own: what matters in such lines is named by the values above or by a
        // tool name.
        b"assistant"
        | b"attachment"
        | b"text"
        | b"message"
        | b"tool_use"
        | b"thinking"
        | b"image"
        | b"progress"
        | b"redacted_thinking"
        | b"document"
        | b"base64"
        | b"prompt_snapshot"
        | b"date"
        | b"tool_reference"
        | b"server_tool_use"
        | b"web_search_tool_result" => {}
        v if v.starts_with(b"hook_") || v.ends_with(b"_listing") => {}
        _ => t.other = true,
    }
}

/// Below this many bytes, colons are found eight bytes a step in a register ([`SwarColons`]).
const SHORT_COLONS: usize = 128;

/// The positions of `:` in a short line, found a word at a time (SIMD within a register): for
/// tiny records this beats both a byte loop and a vector searcher's set-up.
struct SwarColons<'a> {
    line: &'a [u8],
    /// Offset of the current word.
    base: usize,
    /// One high bit per colon byte of the current word still to report.
    mask: u64,
}

impl<'a> SwarColons<'a> {
    fn new(line: &'a [u8]) -> SwarColons<'a> {
        let mut it = SwarColons {
            line,
            base: 0,
            mask: 0,
        };
        it.mask = it.word_mask(0);
        it
    }

    /// High bits marking the colons among the eight bytes at `at` (zero past the end).
    fn word_mask(&self, at: usize) -> u64 {
        let word = match self.line.get(at..at + 8) {
            Some(w) => u64::from_le_bytes(w.try_into().unwrap_or_default()),
            None => {
                let mut word = [0u8; 8];
                let tail = self.line.get(at..).unwrap_or_default();
                word[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(word)
            }
        };
        let x = word ^ 0x3a3a_3a3a_3a3a_3a3a;
        // Exact zero-byte test: no false positives from borrows.
        let y = (x & 0x7f7f_7f7f_7f7f_7f7f).wrapping_add(0x7f7f_7f7f_7f7f_7f7f);
        !(y | x | 0x7f7f_7f7f_7f7f_7f7f)
    }
}

impl Iterator for SwarColons<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += 8;
            if self.base >= self.line.len() {
                return None;
            }
            self.mask = self.word_mask(self.base);
        }
        let bit = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + bit / 8)
    }
}

/// How CLI-written lines start.
const PARENT_FIRST: &[u8] = b"{\"parentUuid\":";

/// Parses one line. Lines that are not JSON objects, or that fail to parse, are `None`.
pub fn parse_line(line: &[u8]) -> Option<Record> {
    let line = trim_line(line);
    if codex::is_rollout_line(line) {
        return codex::parse(line);
    }
    if line.first() != Some(&b'{') {
        return None;
    }
    // Clean lines (nearly all) are validated once, by serde_json, and never copied; only a line
    // that fails is repaired (invalid UTF-8, lone surrogates) and tried again.
    if let Ok(raw) = serde_json::from_slice::<RawRecord>(line) {
        return Some(convert(raw));
    }
    match repair_line(line) {
        Cow::Owned(fixed) => serde_json::from_slice::<RawRecord>(&fixed)
            .ok()
            .map(convert),
        Cow::Borrowed(_) => None,
    }
}

/// Strips a byte-order mark, surrounding whitespace and a CR left by CRLF line endings.
fn trim_line(mut line: &[u8]) -> &[u8] {
    if let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF") {
        line = rest;
    }
    line.trim_ascii()
}

fn convert(raw: RawRecord) -> Record {
    let kind = match (raw.kind.get(), raw.subtype.get()) {
        (Some("user"), _) => Kind::User,
        (Some("assistant"), _) => Kind::Assistant,
        (Some("system"), Some("compact_boundary")) => Kind::CompactBoundary,
        (Some("tools-used"), _) => Kind::ToolsUsed {
            task_tools: raw
                .tools
                .is_none_or(|t| names_task_tool(t.get().as_bytes())),
        },
        (Some("attachment"), _) => match raw.attachment.0.as_ref().and_then(|a| a.kind.get()) {
            Some("queued_command") => Kind::QueuedPrompt,
            Some("plan_mode_exit") => Kind::PlanExit,
            _ => Kind::Other,
        },
        _ => Kind::Other,
    };
    let parent = raw
        .parent_uuid
        .get()
        .or(raw.logical_parent_uuid.get())
        .map(Id::of);
    let mut rec = Record {
        uuid: raw.uuid.get().map(Id::of),
        parent,
        sidechain: raw.is_sidechain.0,
        meta: raw.is_meta.0,
        compact_summary: raw.is_compact_summary.0 || raw.is_visible_in_transcript_only.0,
        api_error: raw.is_api_error_message.0,
        origin: raw.origin.0.and_then(|o| o.kind.get().map(str::to_owned)),
        prompt_source: raw.prompt_source.non_blank().map(|s| bounded(s, 32)),
        ..Record::empty(kind)
    };
    // Subagent traffic and injected records never yield a prompt, a reply or an action: keep only
    // their place in the chain (skill expansions alone can be 16 KB each).
    if rec.sidechain || rec.meta || rec.compact_summary {
        return rec;
    }
    if matches!(rec.kind, Kind::User | Kind::QueuedPrompt) {
        rec.uuid_text = raw.uuid.non_blank().map(|u| bounded(u, 64).into());
    }
    match rec.kind {
        Kind::User | Kind::Assistant => {
            rec.cwd = raw.cwd.non_blank().map(|s| bounded(s, 1024).into());
            rec.git_branch = raw.git_branch.non_blank().map(|s| bounded(s, 256).into());
            if let Some(msg) = raw.message.0 {
                fill_content(&mut rec, msg.content);
            }
        }
        Kind::QueuedPrompt => {
            if let Some(p) = raw.attachment.0.as_ref().and_then(|a| a.prompt.get()) {
                rec.texts.push(bounded(p, MAX_TEXT));
            }
        }
        Kind::PlanExit => {
            rec.plan_file = raw
                .attachment
                .0
                .as_ref()
                .and_then(|a| a.plan_file_path.non_blank())
                .map(|p| bounded(p, 1024));
        }
        Kind::CompactBoundary | Kind::ToolsUsed { .. } | Kind::Other => {}
    }
    if rec.kind == Kind::User
        && let Some(r) = raw.tool_use_result.0.as_ref()
        && let Some(plan) = r.plan.get().filter(|p| !p.trim().is_empty())
    {
        rec.plan_result = Some(PlanResult {
            plan: bounded(plan, KEEP_PLAN),
            file: r.file_path.non_blank().map(|p| bounded(p, 1024)),
        });
    }
    rec
}

fn fill_content(rec: &mut Record, content: LContent<RawBlock>) {
    let blocks = match content {
        LContent::Text(s) => {
            rec.texts.push(bounded(&s, MAX_TEXT));
            return;
        }
        LContent::Blocks(b) => b,
        LContent::Nothing => return,
    };
    for b in blocks {
        match b.kind.get() {
            Some("text") => {
                if let Some(t) = b.text.get() {
                    rec.texts.push(bounded(t, MAX_TEXT));
                }
            }
            Some("tool_use") => rec.tool_uses.push(tool_use(&b)),
            Some("tool_result") => {
                let text = result_text(&b.content);
                rec.tool_results.push(ToolResult {
                    tool_use_id: b.tool_use_id.get().unwrap_or_default().to_owned(),
                    is_error: b.is_error.0,
                    head: bounded(&text, KEEP_RESULT_HEAD),
                    plan_file: saved_plan_path(&text),
                });
            }
            _ => {}
        }
    }
}

fn tool_use(b: &RawBlock) -> ToolUse {
    let name = b
        .name
        .get()
        .map(|s| bounded(s, 128))
        .unwrap_or_else(|| "?".to_owned());
    let mut t = ToolUse {
        id: b.id.get().unwrap_or_default().to_owned(),
        ..ToolUse::default()
    };
    if let Some(input) = &b.input.0 {
        let key = [
            &input.file_path,
            &input.notebook_path,
            &input.command,
            &input.pattern,
            &input.path,
            &input.url,
            &input.query,
            &input.skill,
            &input.subject,
            &input.description,
            &input.prompt,
            &input.task_id,
        ]
        .into_iter()
        .find_map(LStr::non_blank);
        t.key_arg = key.map(|k| bounded(k, KEEP_ARG));
        if WRITING_TOOLS.contains(&name.as_str()) {
            t.written = input
                .file_path
                .non_blank()
                .or(input.notebook_path.non_blank())
                .map(|p| bounded(p, 1024))
                .into_iter()
                .collect();
        }
        if name == "TodoWrite" {
            t.todos = Some(
                input
                    .todos
                    .0
                    .iter()
                    .filter_map(|td| {
                        let content = td.content.non_blank().or(td.active_form.non_blank())?;
                        Some(TodoItem {
                            content: bounded(content, 500),
                            status: td.status.get().unwrap_or("pending").to_owned(),
                        })
                    })
                    .collect(),
            );
        }
        if name == "ExitPlanMode" {
            t.plan = input
                .plan
                .get()
                .filter(|p| !p.trim().is_empty())
                .map(|p| bounded(p, KEEP_PLAN));
        }
        if name == "TaskCreate" || name == "TaskUpdate" {
            t.task = Some(TaskArgs {
                task_id: input.task_id.non_blank().map(|s| bounded(s, 64)),
                subject: input.subject.non_blank().map(|s| bounded(s, 500)),
                status: input.status.non_blank().map(|s| bounded(s, 32)),
            });
        }
    }
    t.name = name;
    t
}

/// The first [`KEEP_RESULT_READ`] bytes of a result's text.
fn result_text(content: &LContent<RawResultPart, KEEP_RESULT_READ>) -> String {
    match content {
        LContent::Text(s) => bounded(s, KEEP_RESULT_READ),
        LContent::Blocks(parts) => {
            let mut out = String::new();
            for p in parts {
                if let Some(t) = p.text.get() {
                    out.push_str(t);
                    if out.len() >= KEEP_RESULT_READ {
                        break;
                    }
                }
            }
            bounded(&out, KEEP_RESULT_READ)
        }
        LContent::Nothing => String::new(),
    }
}

/// The path in "Your plan has been saved to: <path>" (an approved plan's result, CLI 2.1.x).
fn saved_plan_path(text: &str) -> Option<String> {
    const SAVED: &str = "plan has been saved to:";
    let rest = &text[text.find(SAVED)? + SAVED.len()..];
    let path = rest.lines().next()?.trim();
    (!path.is_empty()).then(|| bounded(path, 1024))
}

/// At most `max` bytes of `s`, cut at a character boundary.
pub fn bounded(s: &str, max: usize) -> String {
    s[..floor_char_boundary(s, max.min(s.len()))].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_string_content() {
        let r = parse_line(br#"{"type":"user","uuid":"a","parentUuid":"b","message":{"role":"user","content":"hi"}}"#).unwrap();
        assert_eq!(r.kind, Kind::User);
        assert_eq!(r.texts, vec!["hi"]);
        assert_eq!(r.uuid, Some(Id::of("a")));
        assert_eq!(r.parent, Some(Id::of("b")));
    }

    #[test]
    fn compact_boundary_links_through_logical_parent() {
        let r = parse_line(br#"{"type":"system","subtype":"compact_boundary","uuid":"c","parentUuid":null,"logicalParentUuid":"p"}"#).unwrap();
        assert_eq!(r.kind, Kind::CompactBoundary);
        assert_eq!(r.parent, Some(Id::of("p")));
    }

    #[test]
    fn tool_use_and_result() {
        let a = parse_line(br#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/x.rs","old_string":"a","new_string":"b"}}]}}"#).unwrap();
        assert_eq!(a.tool_uses[0].written, vec!["/x.rs".to_owned()]);
        let u = parse_line(br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"boom"}]}]}}"#).unwrap();
        assert_eq!(u.tool_results[0].head, "boom");
        assert!(u.tool_results[0].is_error);
    }

    #[test]
    fn odd_types_keep_the_rest_of_the_record() {
        let r = parse_line(br#"{"type":"user","message":{"content":[{"type":"text","text":null},{"type":"text","text":"ok"},7,{"type":"tool_use","name":5}]}}"#).unwrap();
        assert_eq!(r.texts, vec!["ok"]);
        assert_eq!(r.tool_uses[0].name, "5");
    }

    #[test]
    fn non_objects_are_skipped() {
        for l in [
            &b"7"[..],
            b"null",
            b"[]",
            b"\"x\"",
            b"",
            b"{broken",
            b"{\"type\":\"user\"",
        ] {
            assert!(parse_line(l).is_none());
        }
    }

    #[test]
    fn bom_and_crlf_are_tolerated() {
        let r = parse_line(b"\xEF\xBB\xBF{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\r")
            .unwrap();
        assert_eq!(r.texts, vec!["hi"]);
    }

    #[test]
    fn deep_nesting_is_rejected_without_overflow() {
        let mut l = String::from(r#"{"type":"user","x":"#);
        l.push_str(&"[".repeat(200_000));
        l.push_str(&"]".repeat(200_000));
        l.push('}');
        let _ = parse_line(l.as_bytes());
    }

    #[test]
    fn cheap_skip_only_for_lines_that_cannot_matter() {
        assert!(can_skip(br#"{"type":"api-request-shape","shape":"..."}"#));
        assert!(can_skip(br#"{"type":"last-prompt","leafUuid":"x"}"#));
        assert!(can_skip(
            br#"{"parentUuid":"a","isSidechain":true,"type":"user","message":{"content":"x"}}"#
        ));
        assert!(!can_skip(br#"{"parentUuid":"a","isSidechain":false,"type":"user","message":{"content":"isSidechain\":true"}}"#));
        assert!(!can_skip(br#"{"type":"user","message":{"content":"x"}}"#));
        assert!(!can_skip(br#"{"type":"api-request-newkind"}"#));
        assert!(!can_skip(
            br#"{"type":"system","subtype":"compact_boundary"}"#
        ));
        assert!(!can_skip(b"{\"type\":\"mode"));
    }

    #[test]
    fn swar_colons_find_every_colon_of_short_lines() {
        for line in [
            &b""[..],
            b":",
            b"{\"a\":1,\"b\":\":\"}",
            b"::::::::::::::::::",
            b"{\"parentUuid\":\"a\",\"uuid\":\"00001\"}",
            "\u{e9}:\u{3a3a}:x".as_bytes(),
        ] {
            let want: Vec<usize> = memchr::memchr_iter(b':', line).collect();
            assert_eq!(SwarColons::new(line).collect::<Vec<_>>(), want, "{line:?}");
        }
    }

    #[test]
    fn short_record_without_content_keys_is_a_link_even_in_the_recent_window() {
        let all = Wants {
            everything: true,
            ..Wants::default()
        };
        let bare = br#"{"type":"assistant","uuid":"a1","parentUuid":"a0","n":1}"#;
        assert!(matches!(triage(bare, all), Triage::Link(_)));
        let untyped = br#"{"parentUuid":"a","uuid":"b"}"#;
        assert!(matches!(triage(untyped, all), Triage::Link(_)));
        for with_content in [
            &br#"{"type":"assistant","uuid":"a1","message":{"content":"hi"}}"#[..],
            br#"{"type":"user","uuid":"u1","cwd":"/w"}"#,
            br#"{"type":"system","uuid":"s1","subtype":"compact_boundary"}"#,
            br#"{"parentUuid":"a","uuid":"b","type":"user","message":{"content":"hi"}}"#,
        ] {
            assert_eq!(triage(with_content, all), Triage::Parse, "{with_content:?}");
        }
    }

    #[test]
    fn bounded_cuts_at_char_boundary() {
        assert_eq!(bounded("héllo", 2), "h");
        assert_eq!(bounded("abc", 10), "abc");
    }
}
