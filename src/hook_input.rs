//! The JSON a hook receives on stdin, read leniently and in bounded memory.
//!
//! Every field is optional and may be of any type in practice; a field of the wrong type is simply
//! absent. Input of any size is accepted: while it is read, every string value is cut to
//! [`MAX_STRING`] bytes (at a character boundary, never inside an escape) and whitespace between
//! tokens is dropped, so a 5 MB `/compact` focus text still yields valid JSON and a snapshot, and
//! memory stays bounded. Only the structure around the strings is capped (`MAX_KEPT`).

use crate::json::{LStr, repair_line};
use crate::record::Format;
use anyhow::{Result, bail};
use serde::Deserialize;
use std::io::Read;

/// The most bytes of one string value kept (the focus text is shown bounded far below this).
pub const MAX_STRING: usize = 64 * 1024;
/// The most bytes kept in all; input whose structure alone exceeds this is not a hook's. Real
/// inputs are under 2 KB.
pub(crate) const MAX_KEPT: usize = 1024 * 1024;

/// Hook input fields compact-guardian uses.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
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
    /// `compact_summary` (PostCompact): the summary the model continues from (bounded).
    pub compact_summary: Option<String>,
    /// `agent_id`: set when the hook fires inside a subagent (Claude Code 2.1.x), whose context
    /// is not the main conversation's.
    pub agent_id: Option<String>,
    /// `client`: the client that ran the hook, when it says so (the OpenCode plugin sends
    /// `"opencode"`; Claude Code and Codex send nothing and are told apart by their transcripts).
    pub client: Option<Format>,
    /// `compaction_id` (OpenCode): the id of the user message that holds the compaction the
    /// model's context now starts from; what is restored is bound to it.
    pub compaction_id: Option<String>,
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
}

/// Reads and parses hook input from `input`, in bounded memory whatever its size.
pub fn read(input: impl Read) -> Result<HookInput> {
    parse(&read_bounded(input)?)
}

/// Copies JSON from `input` with every string value cut to [`MAX_STRING`] bytes and whitespace
/// outside strings dropped; stops at `MAX_KEPT` kept bytes. A cut lands only where a character
/// starts (never inside a UTF-8 sequence or an escape), so valid JSON stays valid.
fn read_bounded(input: impl Read) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut input = input;
    let mut in_string = false;
    let mut after_backslash = false;
    let mut hex_left = 0u8;
    let mut kept = 0usize; // bytes kept of the current string
    let mut cutting = false;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for &b in &buf[..n] {
            if !in_string {
                if !b.is_ascii_whitespace() {
                    out.push(b);
                }
                if b == b'"' {
                    (in_string, kept, cutting) = (true, 0, false);
                }
                continue;
            }
            if after_backslash {
                after_backslash = false;
                hex_left = if b == b'u' { 4 } else { 0 };
            } else if hex_left > 0 {
                hex_left -= 1;
            } else if b == b'"' {
                in_string = false;
                out.push(b);
                continue;
            } else {
                // A new character starts here unless `b` continues a UTF-8 sequence.
                let starts_char = !(0x80..0xC0).contains(&b);
                if starts_char && kept >= MAX_STRING {
                    cutting = true;
                }
                after_backslash = b == b'\\';
            }
            if !cutting {
                out.push(b);
                kept += 1;
            }
        }
        if out.len() > MAX_KEPT {
            break;
        }
    }
    Ok(out)
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
        session_id: raw.session_id.non_blank().map(str::to_owned),
        transcript_path: own(&raw.transcript_path).filter(|p| !p.is_empty()),
        cwd: own(&raw.cwd).filter(|p| !p.is_empty()),
        trigger: raw.trigger.non_blank().map(str::to_owned),
        custom_instructions: own(&raw.custom_instructions),
        hook_event_name: own(&raw.hook_event_name),
        source: raw.source.non_blank().map(str::to_owned),
        compact_summary: own(&raw.compact_summary),
        agent_id: raw.agent_id.non_blank().map(str::to_owned),
        // Named at the edge: code past here asks the enum, never the string.
        client: match raw.client.get() {
            Some("opencode") => Some(Format::OpenCode),
            _ => None,
        },
        compaction_id: raw.compaction_id.non_blank().map(str::to_owned),
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
        assert_eq!(h.client, Some(Format::OpenCode));
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
        let h =
            parse(&read_bounded(&br#"{ "session_id" : "a b\"c\\" , "cwd":"x  y" }"#[..]).unwrap())
                .unwrap();
        assert_eq!(h.session_id.as_deref(), Some("a b\"c\\"));
        assert_eq!(h.cwd.as_deref(), Some("x  y"));
    }
}
