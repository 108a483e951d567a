//! Claude Code transcript lines (`~/.claude/projects/<project>/<session>.jsonl`): the raw
//! record as serde reads it (borrowing, lenient, every unnamed field skipped), its conversion
//! into the shared [`Record`], and the triage that decides from raw bytes whether a line needs
//! parsing at all (the structural keys, read in one pass over the line's colons).

use super::{
    Id, KEEP_PLAN, Link, PlanResult, Record, RecordKind, TaskArgs, TodoItem, ToolResult, ToolUse,
    Triage, bounded, bounded_tail,
};
use crate::json::{self, LBool, LContent, LEnds, LList, LObj, LStr, LText, MAX_TEXT, repair_line};
use crate::read::wants::{Far, FarSet, TASK_LIST_TOOLS, Wants};
use serde::Deserialize;
use std::borrow::Cow;

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
    content: ResultText,
}

/// A tool result's text (a string, or a list of parts whose texts are joined), kept as its first
/// [`KEEP_RESULT_READ`] and last [`KEEP_RESULT_TAIL`] bytes: the head names task ids, exit codes
/// and plan files; the tail holds a test runner's result line.
#[derive(Debug, Default)]
struct ResultText {
    head: String,
    tail: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawResultPart<'a> {
    #[serde(borrow)]
    text: LEnds<'a, KEEP_RESULT_READ, KEEP_RESULT_TAIL>,
}

impl<'de> Deserialize<'de> for ResultText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de serde_json::value::RawValue>::deserialize(d)?.get();
        let mut out = ResultText::default();
        match raw.as_bytes().first() {
            Some(b'"') => {
                let (head, tail) = json::ends(raw, KEEP_RESULT_READ, KEEP_RESULT_TAIL);
                out.head = head.map(Cow::into_owned).unwrap_or_default();
                out.tail = tail.map(Cow::into_owned).unwrap_or_default();
            }
            Some(b'[') => {
                let parts = serde_json::from_str::<LList<RawResultPart>>(raw).unwrap_or_default();
                for p in parts.0 {
                    if out.head.len() < KEEP_RESULT_READ
                        && let Some(h) = &p.text.head
                    {
                        out.head.push_str(h);
                    }
                    // The newest text part's end is the output's end.
                    if let Some(h) = p.text.head {
                        out.tail = p.text.tail.unwrap_or(h).into_owned();
                    }
                }
                out.head = bounded(&out.head, KEEP_RESULT_READ);
                out.tail = bounded_tail(&out.tail, KEEP_RESULT_TAIL);
            }
            _ => {}
        }
        Ok(out)
    }
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
    #[serde(borrow)]
    subagent_type: LStr<'a>,
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

/// How much of a tool's key argument is kept.
const KEEP_ARG: usize = 400;
/// How much of a tool result's text is kept: all that is read, since a failed command's reason
/// often follows a warning or a banner printed first (#50).
const KEEP_RESULT_HEAD: usize = KEEP_RESULT_READ;
/// How much of a tool result's text is read: a plan approval names its file after ~150 bytes.
const KEEP_RESULT_READ: usize = 1024;
/// How much of the end of a tool result's text is kept: a test runner's result line.
const KEEP_RESULT_TAIL: usize = 512;

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
/// (The triage applies both tests itself, the second to short lines only after their facts.)
#[cfg(test)]
fn can_skip(line: &[u8]) -> bool {
    match first_key_type(line) {
        Some(name) => is_ignored_type(name),
        None => subagent_head(line),
    }
}

/// Whether a first-key `type` is one of [`IGNORED_TYPES`].
fn is_ignored_type(name: &[u8]) -> bool {
    IGNORED_TYPES.iter().any(|t| t.as_bytes() == name)
}

/// Whether a line starts as the CLI writes a subagent's records: `parentUuid` first and
/// `"isSidechain":true` among its first keys.
fn subagent_head(line: &[u8]) -> bool {
    let head = &line[..line.len().min(160)];
    head.starts_with(PARENT_FIRST) && pat::SIDECHAIN.find(head).is_some()
}

/// The record types whose lines can hold more than their place in the parent chain (see
/// `convert`): every other type is `RecordKind::Other`.
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

/// Byte patterns that can only occur in JSON structure, never inside a JSON string (where every
/// quote is escaped). A line that has none of the interesting ones cannot matter.
mod pat {
    use crate::read::wants::RowNeedles;
    use memchr::memmem::Finder;
    use std::sync::LazyLock;

    macro_rules! finders {
        ($($name:ident = $pat:expr;)*) => {
            $(pub static $name: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new($pat));)*
        };
    }
    finders! {
        SIDECHAIN = b"\"isSidechain\":true";
        TYPE_KEY = b"\"type\"";
    }

    /// The far-back rows' needles a call's line and a result's line may hold.
    pub static CALL_HOLDS: LazyLock<RowNeedles> =
        LazyLock::new(|| RowNeedles::of(|s| s.call_holds));
    pub static RESULTS: LazyLock<RowNeedles> = LazyLock::new(|| RowNeedles::of(|s| s.results));
}

/// [`super::triage`] for a Claude Code line. Conservative: a line is only skipped or reduced to
/// its link on positive evidence (compact JSON as the CLI writes it); anything unusual is parsed.
/// Most lines of a long autonomous session are tool calls, tool results and bookkeeping, and this
/// keeps the backward scan near `grep` speed over them: one pass over the line's colons reads
/// every structural key it needs.
pub(super) fn triage(line: &[u8], wants: Wants) -> Triage {
    let short = line.len() <= SHORT_LINE;
    if let Some(decided) = by_first_key(line, short).or_else(|| by_shape(line, short, wants)) {
        return decided;
    }
    by_facts(line, &facts_of(line), wants)
}

/// Step 1, the line's first key: bookkeeping is skipped, any other record type that is not part
/// of the conversation is only a link, and a long subagent line is skipped. `None`: undecided.
fn by_first_key(line: &[u8], short: bool) -> Option<Triage> {
    match first_key_type(line) {
        Some(name) if is_ignored_type(name) => Some(Triage::Skip),
        // A record of another type yields nothing but its place in the chain, even in the recent
        // window: no need to parse a million tiny bookkeeping lines to learn that.
        Some(name) if !CONVERSATION_TYPES.contains(&name) => Some(link_only(&facts_of(line))),
        Some(_) => None,
        // Short lines have their facts read anyway, which tell whether they are a subagent's.
        None if !short && subagent_head(line) => Some(Triage::Skip),
        None => None,
    }
}

/// Step 2, the line's shape: anything but compact JSON as the CLI writes it is parsed, and so is
/// a long line in the recent window (see [`SHORT_LINE`]). `None`: undecided.
fn by_shape(line: &[u8], short: bool, wants: Wants) -> Option<Triage> {
    (!line.starts_with(b"{\"") || (!short && wants.everything)).then_some(Triage::Parse)
}

/// Step 3, the facts one pass over the line's keys found: a subagent's line is skipped, a
/// typeless or contentless one is a link, one that may hold a prompt, a boundary or something
/// unclear is parsed, and so is a call or result still wanted; the rest is a link.
fn by_facts(line: &[u8], f: &Facts, wants: Wants) -> Triage {
    if f.sidechain && subagent_head(line) {
        return Triage::Skip;
    }
    let t = &f.types;
    // A record with no type at all is only a link too. The facts see every key of compact JSON;
    // only a line with loose spacing could hide one from them, and there the bytes decide.
    if !(t.any || (f.loose && has_type_key(line))) {
        return link_only(f);
    }
    if wants.everything {
        // A short record without a single key that carries content is only a link, whatever
        // its type; anything else in the recent window is parsed.
        if !f.payload && t.any && !t.other {
            return link_only(f);
        }
        return Triage::Parse;
    }
    let may_hold_a_prompt = !t.any
        || (t.user && !t.tool_result) // a prompt, a summary, injected text
        || t.queued
        || t.system // compaction boundaries among them
        || t.other
        || f.sidechain
        || f.unclear;
    if may_hold_a_prompt || still_wanted(line, f, wants) {
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

/// Whether the line is a call, result or record a far-back thing still wanted needs (the
/// table in [`crate::read::wants`]): a task-list change, a file written, a plan, a commit, an error
/// that undoes a call.
fn still_wanted(line: &[u8], f: &Facts, wants: Wants) -> bool {
    let far = wants.far;
    if far.is_empty() {
        return false;
    }
    // A named row wants the call outright, or only when its line holds one of the row's needles.
    let named = far.and(f.tools.or(f.types.far));
    named.specs().any(|s| s.call_holds.is_empty())
        || pat::CALL_HOLDS.found(named, line)
        || (f.is_error && far.specs().any(|s| s.errors))
        || (f.types.tool_result && pat::RESULTS.found(far, line))
}

/// Lines up to this long are checked for having no type at all before the recent window parses
/// them (longer ones are parsed: the check would cost a pass of its own).
const SHORT_LINE: usize = 1024;

/// Whether the bytes `"type"` occur anywhere: without them the record has no type (whatever the
/// JSON's spacing) and is `RecordKind::Other`.
fn has_type_key(line: &[u8]) -> bool {
    pat::TYPE_KEY.find(line).is_some()
}

/// The triage of a line whose record can only be `RecordKind::Other`: its link, if it is clear.
fn link_only(f: &Facts) -> Triage {
    match f.uuid {
        _ if f.unclear => Triage::Parse,
        _ if f.sidechain => Triage::Skip, // never walked (`Extractor` drops subagent records)
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
    /// Far-back things that want this record type ([`crate::read::wants::Spec::types`]).
    far: FarSet,
    /// A value not known to be harmless: the line is parsed.
    other: bool,
}

/// What one pass over a line's structural keys found.
#[derive(Default)]
struct Facts {
    types: Types,
    /// Far-back things whose tools the line names in `"name":"..."`.
    tools: FarSet,
    uuid: Option<Id>,
    parent: Option<Id>,
    is_error: bool,
    meta: bool,
    sidechain: bool,
    /// How many `uuid` and `parentUuid` keys the line has.
    uuids: usize,
    parents: usize,
    /// A key that can carry more than the record's link: `message`, `cwd`, `gitBranch`,
    /// `toolUseResult`, `attachment`, `subtype`, `tools` (see `convert`).
    payload: bool,
    /// A key occurred twice where once was expected, or a value had an unexpected form.
    unclear: bool,
    /// Something the facts cannot vouch for: a colon not right after a key's closing quote
    /// (loose spacing, or a colon inside a value), a `type` key not where compact JSON puts
    /// keys, or a `type` value with escapes. Then a type key may be hidden from them.
    loose: bool,
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
    for colon in colons {
        // A structural key ends `"key":` and starts right after `{` or `,`.
        if colon < 4 || line[colon - 1] != b'"' {
            f.loose = true;
            continue;
        }
        f.key_before(line, colon);
    }
    // Nested objects with such keys make the record's own ones unclear: parse instead.
    f.unclear |= f.uuids > 1 || f.parents > 1;
    f
}

impl Facts {
    /// Notes the key that ends right before `colon` (`"key":`) and its value, if the facts read
    /// it. Dispatching on the key's last byte keeps the cost per colon to a few compares; inlined
    /// into the loop over the colons, always (as a call it cost a save of 30-byte records 7% of
    /// its instructions under the guard).
    #[inline(always)]
    fn key_before(&mut self, line: &[u8], colon: usize) {
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
            b'e' if key(b"type") => match string_value(value) {
                Some(v) => {
                    self.types.any = true;
                    classify_type(v, &mut self.types);
                }
                None => self.loose = true,
            },
            b'e' if line[..colon].ends_with(b"\"type\"") => self.loose = true,
            b'e' if key(b"name") => {
                if let Some(v) = string_value(value) {
                    self.tools = self.tools.or(FarSet::calling(v));
                }
            }
            b'd' if key(b"uuid") => {
                self.uuids += 1;
                match string_value(value) {
                    Some(v) => self.uuid = Some(Id::of_bytes(v)),
                    None => self.unclear = true,
                }
            }
            b'd' if key(b"parentUuid") => {
                self.parents += 1;
                if !value.starts_with(b"null") {
                    match string_value(value) {
                        Some(v) => self.parent = Some(Id::of_bytes(v)),
                        None => self.unclear = true,
                    }
                }
            }
            // Only boundaries link through it (`convert`): never reduce such a line to a link.
            b'd' if key(b"logicalParentUuid") => self.unclear = true,
            b'r' if key(b"is_error") => self.is_error |= value.starts_with(b"true"),
            b'a' if key(b"isMeta") => self.meta |= value.starts_with(b"true"),
            b'e' if key(b"message") || key(b"subtype") => self.payload = true,
            b't' if key(b"attachment") || key(b"toolUseResult") => self.payload = true,
            b'd' if key(b"cwd") => self.payload = true,
            b'h' if key(b"gitBranch") => self.payload = true,
            b's' if key(b"tools") => self.payload = true,
            b'n' if key(b"isSidechain") => self.sidechain |= value.starts_with(b"true"),
            _ => {}
        }
    }
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
        v => match FarSet::typed(v) {
            far if !far.is_empty() => t.far = t.far.or(far),
            _ => t.other = true,
        },
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

/// [`super::parse_line`] for a Claude Code line (trimmed): `None` unless it is a JSON object
/// that parses.
pub(super) fn parse(line: &[u8]) -> Option<Record> {
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

/// What a record is, by its `type` (and a boundary's `subtype`, an attachment's kind).
fn kind_of(raw: &RawRecord) -> RecordKind {
    match (raw.kind.get(), raw.subtype.get()) {
        (Some("user"), _) => RecordKind::User,
        (Some("assistant"), _) => RecordKind::Assistant,
        (Some("system"), Some("compact_boundary")) => RecordKind::CompactBoundary,
        (Some("tools-used"), _) => RecordKind::ToolsUsed {
            task_tools: raw
                .tools
                .is_none_or(|t| names_task_tool(t.get().as_bytes())),
        },
        (Some("attachment"), _) => match raw.attachment.0.as_ref().and_then(|a| a.kind.get()) {
            Some("queued_command") => RecordKind::QueuedPrompt,
            Some("plan_mode_exit") => RecordKind::PlanExit,
            _ => RecordKind::Other,
        },
        _ => RecordKind::Other,
    }
}

/// A record parsed whole, reduced to what extraction reads.
fn convert(raw: RawRecord) -> Record {
    let kind = kind_of(&raw);
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
    if matches!(rec.kind, RecordKind::User | RecordKind::QueuedPrompt) {
        rec.uuid_text = raw.uuid.non_blank().map(|u| bounded(u, 64).into());
    }
    match rec.kind {
        RecordKind::User | RecordKind::Assistant => {
            rec.cwd = raw.cwd.non_blank().map(|s| bounded(s, 1024).into());
            rec.git_branch = raw.git_branch.non_blank().map(|s| bounded(s, 256).into());
            if let Some(msg) = raw.message.0 {
                fill_content(&mut rec, msg.content);
            }
        }
        RecordKind::QueuedPrompt => {
            if let Some(p) = raw.attachment.0.as_ref().and_then(|a| a.prompt.get()) {
                rec.texts.push(bounded(p, MAX_TEXT));
            }
        }
        RecordKind::PlanExit => {
            rec.plan_file = raw
                .attachment
                .0
                .as_ref()
                .and_then(|a| a.plan_file_path.non_blank())
                .map(|p| bounded(p, 1024));
        }
        RecordKind::CompactBoundary | RecordKind::ToolsUsed { .. } | RecordKind::Other => {}
    }
    if rec.kind == RecordKind::User
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
                let text = &b.content.head;
                rec.tool_results.push(ToolResult {
                    tool_use_id: b.tool_use_id.get().unwrap_or_default().to_owned(),
                    is_error: b.is_error.0,
                    head: bounded(text, KEEP_RESULT_HEAD),
                    tail: if b.content.tail.is_empty() {
                        bounded_tail(text, KEEP_RESULT_TAIL)
                    } else {
                        b.content.tail.clone()
                    },
                    exit: exit_code(text),
                    plan_file: saved_plan_path(text),
                    running: text.starts_with(BACKGROUND_START)
                        || text.starts_with("Process running with session ID"),
                    unstated: false,
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
        t.agent = input.subagent_type.non_blank().map(|a| bounded(a, 128));
        if Far::Files.spec().tools.contains(&name.as_str()) {
            t.written = input
                .file_path
                .non_blank()
                .or(input.notebook_path.non_blank())
                .map(|p| bounded(p, 1024))
                .into_iter()
                .collect();
        }
        if name == "TodoWrite" {
            t.todos = Some(todos(input));
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

/// How Claude Code's Bash tool answers a command it started in the background
/// (`run_in_background`): it is running, and how it ends comes later, in a task notification.
pub(crate) const BACKGROUND_START: &str = "Command running in background with ID:";

/// The task list a TodoWrite call sets (an item without content named by its `activeForm`).
fn todos(input: &RawInput) -> Vec<TodoItem> {
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
        .collect()
}

/// The exit code Claude Code's Bash tool writes at the head of a failed command's result
/// ("Exit code 101"); `None` when there is none (a command that succeeded, or another tool).
fn exit_code(head: &str) -> Option<i32> {
    head.strip_prefix("Exit code ")?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The path in "Your plan has been saved to: <path>" (an approved plan's result, CLI 2.1.x).
fn saved_plan_path(text: &str) -> Option<String> {
    const SAVED: &str = "plan has been saved to:";
    let rest = &text[text.find(SAVED)? + SAVED.len()..];
    let path = rest.lines().next()?.trim();
    (!path.is_empty()).then(|| bounded(path, 1024))
}

#[cfg(test)]
mod tests {
    use super::super::{parse_line, triage};
    use super::*;

    #[test]
    fn user_string_content() {
        let r = parse_line(br#"{"type":"user","uuid":"a","parentUuid":"b","message":{"role":"user","content":"hi"}}"#).unwrap();
        assert_eq!(r.kind, RecordKind::User);
        assert_eq!(r.texts, vec!["hi"]);
        assert_eq!(r.uuid, Some(Id::of("a")));
        assert_eq!(r.parent, Some(Id::of("b")));
    }

    #[test]
    fn compact_boundary_links_through_logical_parent() {
        let r = parse_line(br#"{"type":"system","subtype":"compact_boundary","uuid":"c","parentUuid":null,"logicalParentUuid":"p"}"#).unwrap();
        assert_eq!(r.kind, RecordKind::CompactBoundary);
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
    fn deep_nesting_is_read_without_overflow() {
        // 200,000 levels in a field nothing reads: skipped (serde_json ignores a value without
        // recursing), and the record around it is read. The result used to be discarded, so the
        // test could not fail on anything but a crash.
        let deep = |field: &str| {
            format!(
                r#"{{"type":"user",{field}{}{},"uuid":"u1"}}"#,
                "[".repeat(200_000),
                "]".repeat(200_000)
            )
        };
        let r = parse_line(deep(r#""x":"#).as_bytes()).expect("the record is read");
        assert_eq!(
            (r.kind, r.uuid_text.as_deref()),
            (RecordKind::User, Some("u1"))
        );
        // In the content it reads, the nesting is no text: nothing of it is taken for a prompt.
        let r = parse_line(
            deep(r#""message":{"content":"#)
                .replace(",\"uuid\"", "},\"uuid\"")
                .as_bytes(),
        );
        assert!(r.as_ref().is_none_or(|r| r.texts.is_empty()), "{r:?}");
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
    fn far_back_a_shell_call_matters_only_when_it_commits() {
        let far = Wants {
            far: FarSet::default().with(Far::Commit),
            ..Wants::default()
        };
        let commit = br#"{"parentUuid":"a","type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"git commit -m x"}}]},"uuid":"b"}"#;
        let other = br#"{"parentUuid":"a","type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo test"}}]},"uuid":"c"}"#;
        let report = br#"{"parentUuid":"b","type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"[main 1a2b3c4] x\n 1 file changed, 1 insertion(+)"}]},"uuid":"d"}"#;
        assert_eq!(triage(commit, far), Triage::Parse);
        assert!(matches!(triage(other, far), Triage::Link(_)));
        assert_eq!(triage(report, far), Triage::Parse);
        assert!(matches!(triage(commit, Wants::default()), Triage::Link(_)));
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
    fn a_type_key_hidden_by_loose_spacing_or_escapes_is_parsed_not_linked() {
        // The facts read compact JSON's keys without a byte search; what they cannot vouch for
        // (a spaced key, a key not after `{` or `,`, an escaped value) goes to the bytes, then
        // to the parser. `\u0075ser` is "user" once decoded: a prompt, never a mere link.
        for wants in [
            Wants::default(),
            Wants {
                everything: true,
                ..Wants::default()
            },
        ] {
            for line in [
                &br#"{"parentUuid":"a","uuid":"b","type" :"user","message":{"content":"hi"}}"#[..],
                br#"{"parentUuid":"a","uuid":"b", "type":"user","message":{"content":"hi"}}"#,
                br#"{"parentUuid":"a","uuid":"b","type":"\u0075ser","message":{"content":"hi"}}"#,
            ] {
                assert_eq!(
                    triage(line, wants),
                    Triage::Parse,
                    "{}",
                    String::from_utf8_lossy(line)
                );
            }
        }
        let r = parse_line(
            br#"{"parentUuid":"a","uuid":"b","type":"\u0075ser","message":{"content":"hi"}}"#,
        )
        .unwrap();
        assert_eq!((r.kind, r.texts), (RecordKind::User, vec!["hi".to_owned()]));
        // A value that merely says "type" hides nothing: still a link.
        let plain = br#"{"parentUuid":"a","uuid":"b","kind":"type"}"#;
        assert!(matches!(triage(plain, Wants::default()), Triage::Link(_)));
    }

    #[test]
    fn a_short_subagent_line_is_skipped_after_its_facts() {
        let line = br#"{"parentUuid":"a","isSidechain":true,"type":"user","uuid":"u","message":{"content":"x"}}"#;
        for wants in [
            Wants::default(),
            Wants {
                everything: true,
                ..Wants::default()
            },
        ] {
            assert_eq!(triage(line, wants), Triage::Skip);
        }
    }

    #[test]
    fn bounded_cuts_at_char_boundary() {
        assert_eq!(bounded("héllo", 2), "h");
        assert_eq!(bounded("abc", 10), "abc");
    }
}
