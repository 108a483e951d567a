//! The JSON a hook receives on stdin, read leniently and in bounded memory.
//!
//! Every field is optional and may be of any type in practice; a field of the wrong type is simply
//! absent. Input of any size is accepted: it is read as a stream, and only the top-level members
//! compact-guardian uses are kept ([`FIELDS`]); every other member (a tool's whole input and
//! output, in PostToolUse) is skipped as it streams by, never copied. In the kept members every
//! string value is cut to [`MAX_STRING`] bytes (at a character boundary, never inside an escape),
//! except the compaction summary, which is kept whole up to [`MAX_SUMMARY`] and, when cut there,
//! says so ([`HookInput::summary_cut`]): a cut summary is never judged as if whole. Whitespace
//! between tokens is dropped, so a 5 MB `/compact` focus text still yields valid JSON and a
//! snapshot. Only the structure kept is capped (`MAX_KEPT`). The bytes are read by the same
//! scanner as a transcript line too long to buffer (`json::scan`); what to keep is decided here.
//!
//! `correct` runs after every tool call and needs only the session id first: [`Stream`] reads up
//! to a member and stops there, and the rest of the input is then drained unread. The call a
//! PostToolUse hook reports ([`ToolReport`]) is kept in its own, smaller bounds (`bounds`): its
//! input and output can be megabytes (a file written, a file read) and only their ends matter.

use crate::input::client::Client;
use crate::json::scan::{Scanner, Token};
use crate::json::{LStr, repair_line};
use anyhow::{Result, bail};
use serde::Deserialize;
use std::io::Read;

/// The most bytes of one string value kept (the focus text is shown bounded far below this).
pub const MAX_STRING: usize = 64 * 1024;
/// The most bytes of `compact_summary` kept: a summary is a few to a few dozen KB (its "Files and
/// Code Sections" quote code), so this is far past any real one and still bounds memory.
pub const MAX_SUMMARY: usize = 4 * 1024 * 1024;
/// The most bytes kept in all besides the summary; input whose kept structure alone exceeds this
/// is not a hook's. Real inputs keep under 2 KB.
pub(crate) const MAX_KEPT: usize = 1024 * 1024;
/// Bytes read from stdin per step: zeroing a larger buffer cost the hook after every tool call
/// more than it read (64 KiB were a sixth of its instructions).
const READ_PIECE: usize = 8 * 1024;
/// The top-level members kept: the fields of [`HookInput`].
pub const FIELDS: &[&str] = &[
    "session_id",
    "transcript_path",
    "cwd",
    "trigger",
    "custom_instructions",
    "hook_event_name",
    "source",
    "compact_summary",
    "agent_id",
    "client",
    "compaction_id",
    "tool_name",
    "tool_use_id",
    "tool_input",
    "tool_response",
    "error",
];

/// How much of one member's strings, and of the member as a whole, is kept: `(string, member)`
/// bytes. A member past its whole bound is kept as `null` (what a tool's output holds beyond
/// that is the transcript's to tell), so that no tool call makes the input unreadable.
fn bounds(key: &[u8]) -> (usize, usize) {
    match key {
        b"compact_summary" => (MAX_SUMMARY, usize::MAX),
        // A command or a file path; an edit's text is not needed (each of a multi-edit's texts
        // cut short, so that its path survives).
        b"tool_input" => (1024, 64 * 1024),
        // A command's stdout and stderr, each as long as Claude Code's Bash ever gives (it cuts
        // output at 30,000 characters); a written file's text and patch make the member `null`.
        b"tool_response" => (MAX_STRING, 2 * MAX_STRING + 1024),
        _ => (MAX_STRING, usize::MAX),
    }
}
/// The length of the longest key in [`FIELDS`] (`custom_instructions`).
const LONGEST_FIELD: usize = {
    let mut longest = 0;
    let mut i = 0;
    while i < FIELDS.len() {
        if FIELDS[i].len() > longest {
            longest = FIELDS[i].len();
        }
        i += 1;
    }
    longest
};

/// Hook input fields compact-guardian uses.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct HookInput {
    /// `session_id`.
    pub session_id: Option<String>,
    /// `transcript_path`.
    pub transcript_path: Option<String>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `trigger` (`manual` / `auto`, PreCompact).
    pub trigger: Option<String>,
    /// `custom_instructions`: the text after `/compact` (PreCompact).
    pub custom_instructions: Option<String>,
    /// `hook_event_name`.
    pub hook_event_name: Option<String>,
    /// `source` (`compact`, `startup`, ... for SessionStart).
    pub source: Option<String>,
    /// `compact_summary` (PostCompact): the summary the model continues from, whole up to
    /// [`MAX_SUMMARY`].
    pub compact_summary: Option<String>,
    /// Whether `compact_summary` was longer than [`MAX_SUMMARY`] and was cut: what it leaves out
    /// is unknown, so nothing may be judged absent from it.
    pub summary_cut: bool,
    /// `agent_id`: set when the hook fires inside a subagent (Claude Code 2.1.x), whose context
    /// is not the main conversation's.
    pub agent_id: Option<String>,
    /// `client`: the client that ran the hook, when it says so, by its stored name (the OpenCode
    /// plugin sends `"opencode"`; Claude Code and Codex send nothing and are told apart by their
    /// transcripts: `Client::of`).
    pub client: Option<Client>,
    /// `compaction_id` (OpenCode): the id of the user message that holds the compaction the
    /// model's context now starts from; what is restored is bound to it.
    pub compaction_id: Option<String>,
    /// The tool call a PostToolUse or PostToolUseFailure hook reports, when it names one.
    pub tool: Option<ToolReport>,
}

/// A tool call as PostToolUse / PostToolUseFailure report it, bounded (`bounds`): the call's
/// outcome, which the hook has before the transcript may hold it (issue #46).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ToolReport {
    /// `tool_name`.
    pub name: String,
    /// `tool_use_id`: the id of the call in the transcript.
    pub id: String,
    /// `tool_input`, when an object.
    pub input: serde_json::Map<String, serde_json::Value>,
    /// `tool_response` (PostToolUse): a string, or an object such as `{stdout, stderr}`.
    pub response: Option<serde_json::Value>,
    /// `error` (PostToolUseFailure): why the call failed ("Exit code 101\n..." for a command).
    pub error: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Raw<'a> {
    #[serde(borrow)]
    session_id: LStr<'a>,
    #[serde(borrow)]
    transcript_path: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    trigger: LStr<'a>,
    #[serde(borrow)]
    custom_instructions: LStr<'a>,
    #[serde(borrow)]
    hook_event_name: LStr<'a>,
    #[serde(borrow)]
    source: LStr<'a>,
    #[serde(borrow)]
    compact_summary: LStr<'a>,
    #[serde(borrow)]
    agent_id: LStr<'a>,
    #[serde(borrow)]
    client: LStr<'a>,
    #[serde(borrow)]
    compaction_id: LStr<'a>,
    #[serde(borrow)]
    tool_name: LStr<'a>,
    #[serde(borrow)]
    tool_use_id: LStr<'a>,
    tool_input: Option<serde_json::Value>,
    tool_response: Option<serde_json::Value>,
    #[serde(borrow)]
    error: LStr<'a>,
}

/// Reads and parses hook input from `input`, in bounded memory whatever its size.
pub fn read(input: impl Read) -> Result<HookInput> {
    Stream::new(input).finish()
}

/// Hook input read as a stream: the kept members so far, and the rest still unread.
pub struct Stream<R> {
    input: R,
    reducer: Reducer,
    buf: Vec<u8>,
    /// The unread part of `buf`.
    at: usize,
    filled: usize,
    ended: bool,
}

impl<R: Read> Stream<R> {
    /// A stream over `input`; nothing is read yet.
    pub fn new(input: R) -> Stream<R> {
        Stream {
            input,
            reducer: Reducer::default(),
            buf: vec![0; READ_PIECE],
            at: 0,
            filled: 0,
            ended: false,
        }
    }

    /// Reads on until the top-level member `key` has been read whole, or the input ends, or it
    /// can be read no further (more than the kept bound, or not a JSON object).
    pub fn read_to(&mut self, key: &str) -> std::io::Result<()> {
        self.pump(Some(key))
    }

    /// The string value of `key` as [`read`] would give it, if that member has been read.
    pub fn field(&self, key: &str) -> Option<String> {
        let value = self.reducer.member(key)?;
        if key == "tool_name" {
            // Alone, it is no report (that needs an id too): read as the string it is.
            let value = repair_line(value);
            let name: LStr = serde_json::from_slice(&value).ok()?;
            return name.non_blank().map(str::to_owned);
        }
        let mut one = Vec::with_capacity(value.len() + key.len() + 5);
        one.extend_from_slice(b"{\"");
        one.extend_from_slice(key.as_bytes());
        one.extend_from_slice(b"\":");
        one.extend_from_slice(value);
        one.push(b'}');
        let input = parse(&one).ok()?;
        match key {
            "session_id" => input.session_id,
            "hook_event_name" => input.hook_event_name,
            "transcript_path" => input.transcript_path,
            "agent_id" => input.agent_id,
            _ => None,
        }
    }

    /// Reads the rest and parses what was kept.
    pub fn finish(mut self) -> Result<HookInput> {
        self.pump(None)?;
        self.drain()?;
        if self.reducer.invalid {
            bail!("hook input is not valid JSON (syntax error)");
        }
        if self.reducer.at == At::KeyText {
            // A key the input ends in is not kept: what came before it is what was read.
            self.reducer.out.truncate(self.reducer.key_at);
        }
        let mut input = parse(&self.reducer.out)?;
        input.summary_cut = self.reducer.summary_cut && input.compact_summary.is_some();
        Ok(input)
    }

    /// Reads the rest unparsed: the client's writes never meet a closed pipe.
    pub fn drain(&mut self) -> std::io::Result<()> {
        self.at = self.filled;
        if !self.ended {
            std::io::copy(&mut self.input, &mut std::io::sink())?;
            self.ended = true;
        }
        Ok(())
    }

    fn pump(&mut self, until: Option<&str>) -> std::io::Result<()> {
        loop {
            if until.is_some_and(|k| self.reducer.member(k).is_some()) {
                return Ok(());
            }
            if self.at == self.filled {
                if self.ended || self.reducer.stopped() {
                    return Ok(());
                }
                let n = match self.input.read(&mut self.buf) {
                    Ok(0) => {
                        self.ended = true;
                        return Ok(());
                    }
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                (self.at, self.filled) = (0, n);
            }
            let done = self.reducer.feed(&self.buf[self.at..self.filled], until);
            self.at += done;
            if self.reducer.stopped() {
                return Ok(());
            }
        }
    }
}

/// Where the reducer is in the JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum At {
    /// Before the first byte that is not white space.
    #[default]
    Start,
    /// In the top-level object, where a key (or its end) comes next.
    Key,
    /// In a top-level key, copied into the output from `key_at` until it is judged.
    KeyText,
    /// After a key, before its `:`.
    Colon,
    /// In a member's value, `depth` containers deep in it.
    Value { depth: usize },
    /// The object has ended; what follows is ignored.
    Done,
}

/// The most raw bytes of a top-level key read: the longest kept key written with every character
/// escaped (`\uXXXX`, six bytes for one). A longer key is none of them.
const KEY_LIMIT: usize = 6 * LONGEST_FIELD;

/// Copies the kept members of a JSON object into a small object of the same fields.
#[derive(Debug, Default)]
struct Reducer {
    out: Vec<u8>,
    at: At,
    scanner: Scanner,
    /// Where the key being read starts in `out`.
    key_at: usize,
    /// The last key read, unescaped (empty if it was too long to be a kept one).
    key: Vec<u8>,
    /// Whether the current member is kept, where its value starts in `out`, and its bounds
    /// ([`bounds`]).
    keep: bool,
    value_start: usize,
    string_bound: usize,
    member_bound: usize,
    /// The kept members read whole: key and value range in `out`.
    members: Vec<(String, std::ops::Range<usize>)>,
    summary_cut: bool,
    /// Past the bound: nothing more is read.
    full: bool,
    /// Not JSON where it stood: refused, as the parser would refuse the whole input.
    invalid: bool,
}

impl Reducer {
    fn stopped(&self) -> bool {
        self.full || self.invalid || matches!(self.at, At::Done)
    }

    fn member(&self, key: &str) -> Option<&[u8]> {
        self.members
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, r)| &self.out[r.clone()])
    }

    /// Reads `bytes`; returns how many were used (all of them, unless the member `until` ended
    /// first, or the object, or the bound was reached).
    fn feed(&mut self, bytes: &[u8], until: Option<&str>) -> usize {
        let mut i = 0;
        loop {
            if self.out.len() > MAX_KEPT + MAX_SUMMARY {
                self.full = true;
                return i;
            }
            let before = self.members.len();
            let token = match self.at {
                // A member not kept is skipped whole, without a token for each of its parts.
                At::Value { mut depth } if !self.keep => {
                    let end = self.scanner.skip(bytes, &mut i, &mut depth);
                    self.at = At::Value { depth };
                    end.map(Token::Punct)
                }
                _ => self.scanner.next(bytes, &mut i, &mut self.out),
            };
            if self.keep && self.out.len() - self.value_start > self.member_bound {
                self.drop_value();
            }
            if let Some(token) = token {
                self.token(token);
            }
            let until_read = self.members.len() > before
                && until.is_some_and(|k| self.members.last().is_some_and(|(m, _)| m == k));
            if token.is_none() || until_read || self.stopped() {
                return i;
            }
        }
    }

    /// One token, where the reducer is.
    fn token(&mut self, token: Token) {
        match (self.at, token) {
            (At::Start, Token::Punct(b'{')) => {
                self.out.push(b'{');
                self.at = At::Key;
            }
            // A form feed (the scanner drops JSON's own white space) or a byte order mark
            // before the object, as `parse` trims them.
            (At::Start, Token::Bare(run))
                if run
                    .iter()
                    .all(|b| b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF)) => {}
            // Not a JSON object: a byte of it is kept, for the parser to say so.
            (At::Start, _) => {
                self.out.push(b'?');
                self.full = true;
            }
            (At::Key, Token::Quote) => {
                self.key_at = self.out.len();
                self.scanner.copy(&self.out, KEY_LIMIT);
                self.at = At::KeyText;
            }
            (At::Key, Token::Punct(b'}')) => self.end_object(),
            (At::Key, Token::Punct(b',')) => {}
            (At::KeyText, Token::End { cut }) => self.start_member(cut),
            (At::Colon, Token::Punct(b':')) => {
                if self.keep {
                    self.out.push(b':');
                    self.value_start = self.out.len();
                }
                self.at = At::Value { depth: 0 };
            }
            (At::Value { depth }, _) => self.value(depth, token),
            (At::Done, _) => {}
            // Not JSON where it stands: refused, as the parser would refuse the whole input.
            (At::Key | At::KeyText | At::Colon, _) => self.invalid = true,
        }
    }

    /// A top-level key has been read (it is the output from `key_at`): its member is kept if it
    /// is one of [`FIELDS`] (an escaped key is compared as the parser would read it).
    fn start_member(&mut self, cut: bool) {
        self.key.clear();
        let raw = &self.out[self.key_at..];
        if cut {
            // Longer than any kept key: none of them.
        } else if raw.contains(&b'\\') {
            let mut quoted = Vec::with_capacity(raw.len() + 2);
            quoted.push(b'"');
            quoted.extend_from_slice(raw);
            quoted.push(b'"');
            self.key = serde_json::from_slice::<String>(&quoted)
                .map(String::into_bytes)
                .unwrap_or_default();
        } else {
            self.key.extend_from_slice(raw);
        }
        self.out.truncate(self.key_at);
        self.keep = FIELDS.iter().any(|f| f.as_bytes() == self.key.as_slice());
        (self.string_bound, self.member_bound) = bounds(&self.key);
        if self.keep {
            if self.out.last() != Some(&b'{') {
                self.out.push(b',');
            }
            self.out.push(b'"');
            self.out.extend_from_slice(&self.key);
            self.out.push(b'"');
        }
        // Until its colon, the member's value is measured from here: never an earlier member's.
        self.value_start = self.out.len();
        self.at = At::Colon;
    }

    /// The current member's value is past its whole bound: kept as `null`, the rest skipped.
    fn drop_value(&mut self) {
        self.scanner.skip_rest();
        self.out.truncate(self.value_start);
        self.out.extend_from_slice(b"null");
        self.keep = false;
        let key = String::from_utf8_lossy(&self.key).into_owned();
        let end = self.out.len();
        self.members.push((key, self.value_start..end));
    }

    /// The current member's value has ended.
    fn end_member(&mut self) {
        if self.keep {
            let key = String::from_utf8_lossy(&self.key).into_owned();
            self.members.push((key, self.value_start..self.out.len()));
        }
        self.keep = false;
    }

    fn end_object(&mut self) {
        self.out.push(b'}');
        self.at = At::Done;
    }

    /// A token of a member's value, `depth` containers deep in it: copied when the member is
    /// kept, its strings within their bounds; skipped otherwise.
    fn value(&mut self, depth: usize, token: Token) {
        self.at = At::Value { depth };
        let b = match token {
            Token::Quote if self.keep => {
                self.out.push(b'"');
                // A string's own bound: the summary is kept whole, far longer; a tool's input
                // shorter (its member's, [`bounds`]).
                let limit = if depth > 0 && self.key == b"compact_summary" {
                    MAX_STRING
                } else {
                    self.string_bound
                };
                self.scanner.copy(&self.out, limit);
                return;
            }
            Token::End { cut } if self.keep => {
                self.out.push(b'"');
                if cut && depth == 0 && self.key == b"compact_summary" {
                    self.summary_cut = true;
                }
                return;
            }
            Token::Quote | Token::End { .. } => return,
            Token::Bare(run) => {
                if self.keep {
                    self.out.extend_from_slice(run);
                }
                return;
            }
            Token::Punct(b) => b,
        };
        match b {
            b'{' | b'[' => self.at = At::Value { depth: depth + 1 },
            b'}' | b']' if depth > 0 => self.at = At::Value { depth: depth - 1 },
            b',' if depth == 0 => {
                self.end_member();
                self.at = At::Key;
                return;
            }
            b'}' if depth == 0 => {
                self.end_member();
                self.end_object();
                return;
            }
            _ => {}
        }
        if self.keep {
            self.out.push(b);
        }
    }
}

/// Parses hook input bytes.
pub fn parse(bytes: &[u8]) -> Result<HookInput> {
    let bytes = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii();
    if bytes.is_empty() {
        bail!("no hook input on stdin");
    }
    if bytes[0] != b'{' {
        bail!("hook input is not a JSON object");
    }
    let repaired = repair_line(bytes);
    let raw: Raw = serde_json::from_slice(&repaired)
        .map_err(|e| anyhow::anyhow!("hook input is not valid JSON ({})", e.classify_str()))?;
    let own = |s: &LStr| s.get().map(str::to_owned);
    Ok(HookInput {
        // An id holding U+FFFD is refused, as if absent: invalid UTF-8 and lone surrogates are
        // read as U+FFFD (`repair_line`), so distinct ids would share one session's files
        // (issue #48 item 11, D070). No client writes such an id.
        session_id: raw
            .session_id
            .non_blank()
            .filter(|id| !id.contains('\u{FFFD}'))
            .map(str::to_owned),
        transcript_path: own(&raw.transcript_path).filter(|p| !p.is_empty()),
        cwd: own(&raw.cwd).filter(|p| !p.is_empty()),
        trigger: raw.trigger.non_blank().map(str::to_owned),
        custom_instructions: own(&raw.custom_instructions),
        hook_event_name: own(&raw.hook_event_name),
        source: raw.source.non_blank().map(str::to_owned),
        compact_summary: own(&raw.compact_summary),
        summary_cut: false,
        agent_id: raw.agent_id.non_blank().map(str::to_owned),
        // Named at the edge: code past here asks the enum, never the string.
        client: raw.client.get().and_then(Client::from_name),
        compaction_id: raw.compaction_id.non_blank().map(str::to_owned),
        tool: tool_report(&raw),
    })
}

/// The tool call the input reports: one with a name and an id (the transcript's), or none.
fn tool_report(raw: &Raw) -> Option<ToolReport> {
    Some(ToolReport {
        name: raw.tool_name.non_blank()?.to_owned(),
        id: raw.tool_use_id.non_blank()?.to_owned(),
        input: match &raw.tool_input {
            Some(serde_json::Value::Object(m)) => m.clone(),
            _ => serde_json::Map::new(),
        },
        response: raw.tool_response.clone().filter(|v| !v.is_null()),
        error: raw.error.get().map(str::to_owned),
    })
}

/// Short names for serde_json error classes, which never quote the input (it may hold prompts).
trait Classify {
    fn classify_str(&self) -> &'static str;
}

impl Classify for serde_json::Error {
    fn classify_str(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "read error",
            serde_json::error::Category::Syntax => "syntax error",
            serde_json::error::Category::Data => "unexpected data",
            serde_json::error::Category::Eof => "truncated",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typical_precompact_input() {
        let h = parse(br#"{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"focus on tests"}"#).unwrap();
        assert_eq!(h.session_id.as_deref(), Some("abc"));
        assert_eq!(h.custom_instructions.as_deref(), Some("focus on tests"));
    }

    #[test]
    fn the_opencode_plugin_names_its_client_and_compaction() {
        let h = parse(br#"{"session_id":"ses_1","client":"opencode","compaction_id":"msg_9"}"#)
            .unwrap();
        assert_eq!(h.client, Some(Client::OpenCode));
        assert_eq!(h.compaction_id.as_deref(), Some("msg_9"));
        let h = parse(br#"{"session_id":"s","client":"vim","compaction_id":" "}"#).unwrap();
        assert_eq!((h.client, h.compaction_id), (None, None));
    }

    #[test]
    fn wrong_types_and_nulls_are_absent() {
        let h = parse(br#"{"session_id":12,"transcript_path":null,"cwd":[],"trigger":{},"custom_instructions":false}"#).unwrap();
        assert_eq!(h.session_id.as_deref(), Some("12"));
        assert_eq!(h.transcript_path, None);
        assert_eq!(h.cwd, None);
        assert_eq!(h.trigger, None);
    }

    #[test]
    fn non_objects_are_errors() {
        for b in [
            &b""[..],
            b"   ",
            b"[1]",
            b"7",
            b"null",
            b"nope",
            b"{\"session_id\":",
        ] {
            assert!(parse(b).is_err());
        }
    }

    #[test]
    fn whitespace_padding_of_any_size_is_read_through() {
        let mut big = br#"{"session_id":"s"}"#.to_vec();
        big.extend(std::iter::repeat_n(b' ', 5 * 1024 * 1024));
        assert_eq!(read(&big[..]).unwrap().session_id.as_deref(), Some("s"));
    }

    #[test]
    fn huge_focus_text_is_cut_not_fatal() {
        // Issue #10: a 5 MB `/compact` focus text used to be cut mid-string, leaving invalid JSON
        // and no snapshot. Escapes and multi-byte characters straddle the cut point on purpose.
        for unit in ["é", "\\n", "\\u00e9", "\\\"", "😀", "a"] {
            let focus = unit.repeat(5 * 1024 * 1024 / unit.len());
            let json = format!(
                r#"{{"custom_instructions":"{focus}","session_id":"s","transcript_path":"/t"}}"#
            );
            let h = read(json.as_bytes()).unwrap_or_else(|e| panic!("{unit}: {e}"));
            assert_eq!(h.session_id.as_deref(), Some("s"), "{unit}");
            assert_eq!(h.transcript_path.as_deref(), Some("/t"), "{unit}");
            let kept = h.custom_instructions.unwrap();
            assert!(
                kept.len() <= MAX_STRING && kept.len() > MAX_STRING / 8,
                "{unit}"
            );
        }
    }

    #[test]
    fn strings_with_spaces_and_escapes_survive_unchanged() {
        let h = read(&br#"{ "session_id" : "a b\"c\\" , "cwd":"x  y" }"#[..]).unwrap();
        assert_eq!(h.session_id.as_deref(), Some("a b\"c\\"));
        assert_eq!(h.cwd.as_deref(), Some("x  y"));
    }

    #[test]
    fn a_summary_past_64_kib_is_whole_and_one_past_the_cap_says_it_was_cut() {
        // Issue #41 item 12: the summary was cut at 64 KiB like any string and judged whole.
        let summary = "x".repeat(200_000) + "Pending Tasks: the renderer";
        let h = read(
            serde_json::json!({"session_id": "s", "compact_summary": summary})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(h.compact_summary.as_deref(), Some(summary.as_str()));
        assert!(!h.summary_cut);
        for unit in ["é", "\\n", "a"] {
            let body = unit.repeat(MAX_SUMMARY / unit.len() + 10);
            let json = format!(r#"{{"compact_summary":"{body}","session_id":"s"}}"#);
            let h = read(json.as_bytes()).unwrap();
            assert!(h.summary_cut, "{unit}");
            assert_eq!(h.session_id.as_deref(), Some("s"));
            let kept = h.compact_summary.unwrap();
            assert!(
                kept.len() <= MAX_SUMMARY && kept.len() > MAX_SUMMARY / 4,
                "{unit}"
            );
        }
    }

    #[test]
    fn members_it_does_not_use_are_skipped_whatever_their_size() {
        // Issue #41 item 13: a Write of a 40,000-line file sends ~5 MB of hook input, one string
        // per changed line; the kept structure passed its bound and the input read as truncated.
        let lines: Vec<String> = (0..200_000).map(|i| format!("+ line {i}")).collect();
        let json = serde_json::json!({"session_id": "s", "tool_response": {"lines": lines},
            "tool_input": {"content": "y".repeat(3_000_000), "nested": [[[{"a": "}]\""}]]]},
            "hook_event_name": "PostToolUse", "agent_id": "a1"})
        .to_string();
        let h = read(json.as_bytes()).unwrap();
        assert_eq!(h.session_id.as_deref(), Some("s"));
        assert_eq!(h.hook_event_name.as_deref(), Some("PostToolUse"));
        assert_eq!(h.agent_id.as_deref(), Some("a1"));
    }

    #[test]
    fn an_escaped_key_is_read_as_the_parser_reads_it() {
        let json = br#"{"session\u005fid":"s","hook_event_name":"Stop"}"#;
        assert_eq!(read(&json[..]).unwrap(), parse(json).unwrap());
        assert_eq!(read(&json[..]).unwrap().session_id.as_deref(), Some("s"));
    }

    #[test]
    fn a_tool_input_after_a_long_tool_response_loses_neither() {
        // The member bound was measured from the previous member's value until the colon: a
        // 64 KiB `tool_response` before `tool_input` put `tool_input` past its own bound before
        // it began, and both were lost (Claude Code sends the input first; nothing says it must).
        let stdout = "y".repeat(100_000);
        let json = format!(
            r#"{{"session_id":"s","tool_name":"Bash","tool_use_id":"t1","tool_response":{{"stdout":"{stdout}"}},"tool_input":{{"command":"ls"}}}}"#
        );
        let tool = read(json.as_bytes()).unwrap().tool.unwrap();
        assert_eq!(tool.input["command"], "ls");
        let stdout = tool.response.unwrap()["stdout"].as_str().unwrap().len();
        assert_eq!(stdout, MAX_STRING);
    }

    #[test]
    fn a_cut_never_keeps_half_a_surrogate_pair() {
        // A string cut right after the high half of `\ud83d\ude00` kept it alone, which the
        // reader turned into U+FFFD: the pair goes whole or not at all.
        let command = "a".repeat(1018) + "\\ud83d\\ude00";
        let json = format!(
            r#"{{"tool_name":"Bash","tool_use_id":"t1","tool_input":{{"command":"{command}"}}}}"#
        );
        let tool = read(json.as_bytes()).unwrap().tool.unwrap();
        assert_eq!(tool.input["command"], "a".repeat(1018));
    }

    /// A reader that fails once its first part has been read.
    struct ThenFail<'a>(&'a [u8]);

    impl Read for ThenFail<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("read past the session id"));
            }
            let n = buf.len().min(self.0.len()).min(7);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_stream_stops_at_the_member_asked_for() {
        let head = br#" {"session_id" : "abc" , "hook_event_name":"PostToolUse","tool_input":"#;
        let mut s = Stream::new(ThenFail(head));
        s.read_to("session_id").unwrap();
        assert_eq!(s.field("session_id").as_deref(), Some("abc"));
        assert_eq!(s.field("hook_event_name"), None, "not read yet");
        let mut s = Stream::new(&br#"{"hook_event_name":"Stop","session_id":7}"#[..]);
        s.read_to("session_id").unwrap();
        assert_eq!(s.field("session_id").as_deref(), Some("7"));
        assert_eq!(s.finish().unwrap().hook_event_name.as_deref(), Some("Stop"));
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn streaming_reads_what_parsing_the_whole_input_reads(
            fields in prop::collection::vec((0..FIELDS.len() + 3, crate::proptesting::json_value()), 0..8),
            pretty: bool,
        ) {
            let mut obj = serde_json::Map::new();
            for (i, v) in fields {
                let key = FIELDS.get(i).copied().unwrap_or_else(|| ["tool_input", "tool_response", "x"][i - FIELDS.len()]);
                obj.insert(key.to_owned(), v);
            }
            let v = serde_json::Value::Object(obj);
            let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
            prop_assert_eq!(read(text.as_bytes()).unwrap(), parse(text.as_bytes()).unwrap());
        }

        #[test]
        fn any_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = read(&data[..]);
            let mut s = Stream::new(&data[..]);
            let _ = s.read_to("session_id");
            let _ = s.field("session_id");
        }
    }
}
