//! The JSON a hook receives on stdin, read leniently and with a size cap.
//!
//! Every field is optional and may be of any type in practice; a field of the wrong type is simply
//! absent. Only the first [`MAX_INPUT`] bytes are read, so a runaway writer cannot exhaust memory.

use crate::json::{LStr, repair_line};
use anyhow::{Result, bail};
use serde::Deserialize;
use std::io::Read;

/// The most bytes of hook input read. Real inputs are under 2 KB.
pub const MAX_INPUT: u64 = 1024 * 1024;

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
}

/// Reads and parses hook input from `input` (at most [`MAX_INPUT`] bytes).
pub fn read(input: impl Read) -> Result<HookInput> {
    let mut buf = Vec::new();
    input.take(MAX_INPUT).read_to_end(&mut buf)?;
    parse(&buf)
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
    fn input_is_capped() {
        let mut big = br#"{"session_id":"s"}"#.to_vec();
        big.extend(std::iter::repeat_n(b' ', 5 * 1024 * 1024));
        assert_eq!(read(&big[..]).unwrap().session_id.as_deref(), Some("s"));
    }
}
